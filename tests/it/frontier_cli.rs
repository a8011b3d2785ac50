//! The exact end game through the binary, on Excluded Diagonals instances: the generator,
//! answers independent of the thread count, certificates whose CNF a SAT solver
//! (`cadical`, which .ci/run installs) confirms unsatisfiable, and UNKNOWN under a time
//! limit with the nodes searched.

use crate::common::{data, nq, run, run_env};
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The infeasible CSPLib fixtures (counted independently by tools/make_csplib_fixtures.py).
fn infeasible() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data("csplib"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.contains("infeasible") && name.ends_with(".txt")
        })
        .collect();
    v.sort();
    v
}

#[test]
fn generated_series_are_reproducible_and_decided() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.txt");
    let b = d.path().join("b.txt");
    for p in [&a, &b] {
        let err = nq(&[
            "generate",
            "excluded",
            "--n",
            "19",
            "--seed",
            "4",
            "--diags",
            "18",
            "-o",
            s(p),
        ])
        .ok()
        .stderr;
        assert!(err.contains("18 of a series of"), "{err}");
    }
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(text, std::fs::read_to_string(&b).unwrap());
    assert!(
        text.starts_with("n = 19\nnumdiags = 18\ndiags = [["),
        "{text}"
    );
    // Asking for more diagonals than the series has is a usage error.
    let (code, _, err) = run(&[
        "generate", "excluded", "--n", "8", "--seed", "1", "--diags", "99",
    ]);
    assert_eq!(code, 2, "{err}");
    // Decided, and a solution is checked against the instance by convert --base.
    let sol = d.path().join("sol.txt");
    let (code, out, err) = run(&["complete", s(&a), "--seed", "1", "-o", s(&sol), "--quiet"]);
    assert!(code == 0 || code == 3, "{out} {err}");
    if code == 0 {
        let (code, out, _) = run(&["verify", s(&sol), "--base", s(&a)]);
        assert_eq!(code, 0, "{out}");
    }
}

#[test]
fn answers_do_not_depend_on_the_thread_count() {
    let d = tempfile::tempdir().unwrap();
    let mut solved = 0;
    let mut proved = 0;
    for seed in 1..=6u64 {
        let inst = d.path().join(format!("e{seed}.txt"));
        nq(&[
            "generate",
            "excluded",
            "--n",
            "17",
            "--seed",
            &seed.to_string(),
            "--diags",
            "15",
            "-o",
            s(&inst),
        ])
        .ok();
        let mut answers = Vec::new();
        for threads in [1, 2, 3] {
            let out = d.path().join(format!("o{seed}-{threads}.txt"));
            let (code, json, err) = run_env(
                &[("RAYON_NUM_THREADS", &threads.to_string())],
                &["complete", s(&inst), "--seed", "9", "-o", s(&out), "--json"],
            );
            assert!(code == 0 || code == 3, "{json} {err}");
            let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
            let what = if code == 0 {
                std::fs::read_to_string(&out).unwrap()
            } else {
                // An exhausted search visits the same nodes on any number of threads.
                v["certificate"].to_string()
            };
            answers.push((code, what));
        }
        assert!(
            answers.windows(2).all(|w| w[0] == w[1]),
            "seed {seed}: {answers:?}"
        );
        if answers[0].0 == 0 {
            solved += 1;
        } else {
            proved += 1;
        }
    }
    assert!(solved > 0 && proved > 0, "{solved} solved, {proved} proved");
}

/// The exact search scans its levels with AVX-512 where that is the kernel, row by row
/// otherwise (`NQUEENS_KERNEL` forces one): every kernel this CPU runs searches the same
/// tree, so the answer, the solution, the certificate and the node counts are the same.
#[test]
fn answers_do_not_depend_on_the_simd_kernel() {
    let d = tempfile::tempdir().unwrap();
    let kernels: Vec<&str> = ["portable", "avx2", "avx512"]
        .into_iter()
        .filter(|k| {
            let (code, _, err) = run_env(&[("NQUEENS_KERNEL", k)], &["count", "6", "--quiet"]);
            assert!(
                code == 0 || err.contains("this CPU cannot run it"),
                "{k}: {err}"
            );
            code == 0
        })
        .collect();
    assert!(kernels.contains(&"portable"), "{kernels:?}");
    let (mut solved, mut proved, mut nodes) = (0, 0, 0);
    for (seed, diags) in [(1u64, 21u64), (3, 20), (4, 21), (6, 21)] {
        let inst = d.path().join(format!("e{seed}.txt"));
        let (n, seed_s, diags_s) = ("21", seed.to_string(), diags.to_string());
        nq(&[
            "generate",
            "excluded",
            "--n",
            n,
            "--seed",
            &seed_s,
            "--diags",
            &diags_s,
            "-o",
            s(&inst),
        ])
        .ok();
        let mut answers = Vec::new();
        for k in &kernels {
            let out = d.path().join(format!("o{seed}-{k}.txt"));
            let (code, json, err) = run_env(
                &[("NQUEENS_KERNEL", k)],
                &["complete", s(&inst), "--seed", "9", "-o", s(&out), "--json"],
            );
            assert!(code == 0 || code == 3, "{k}: {json} {err}");
            let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
            let stats = &v["stats"];
            answers.push((
                code,
                std::fs::read_to_string(&out).ok(),
                v["solution"].to_string(),
                v["certificate"].to_string(),
                stats["search_nodes"].as_u64().unwrap(),
                stats["search_decisions"].as_u64().unwrap(),
            ));
        }
        assert!(
            answers.windows(2).all(|w| w[0] == w[1]),
            "seed {seed}: {kernels:?} {answers:?}"
        );
        nodes += answers[0].4;
        if answers[0].0 == 0 {
            solved += 1;
        } else {
            proved += 1;
        }
    }
    assert!(
        solved > 0 && proved > 0 && nodes > 100_000,
        "{solved} solved, {proved} proved, {nodes} nodes"
    );
    // A kernel this program does not know is refused by `complete` as by `count`.
    let (code, _, err) = run_env(
        &[("NQUEENS_KERNEL", "sse9")],
        &["complete", s(&d.path().join("e1.txt"))],
    );
    assert_eq!(code, 2);
    assert!(err.contains("NQUEENS_KERNEL=sse9: unknown kernel"), "{err}");
}

#[test]
fn certificates_carry_a_cnf_that_a_sat_solver_refutes() {
    let d = tempfile::tempdir().unwrap();
    let cases = infeasible();
    assert!(cases.len() >= 5);
    for inst in cases.iter().take(5) {
        let cert = d.path().join("cert.json");
        let cnf = d.path().join("cert.cnf");
        let (code, out, err) = run(&["complete", s(inst), "--certificate", s(&cert), "--quiet"]);
        assert_eq!(code, 3, "{}: {out} {err}", inst.display());
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&cert).unwrap()).unwrap();
        assert_eq!(doc["cnf"]["file"], s(&cnf));
        let kind = doc["certificate"]["kind"].as_str().unwrap();
        if kind == "exhausted_search" {
            assert!(doc["certificate"]["nodes"].as_u64().unwrap() > 0);
        }
        let status = std::process::Command::new("cadical")
            .args(["-q", "-n", s(&cnf)])
            .status()
            .expect("the SAT solver cadical is needed: apt-get install cadical (.ci/run does)");
        assert_eq!(status.code(), Some(20), "{}: cadical", inst.display());
    }
    // A certificate path ending in .cnf would collide with its own CNF.
    let inst = s(&cases[0]);
    let (code, _, err) = run(&[
        "complete",
        inst,
        "--certificate",
        s(&d.path().join("c.cnf")),
    ]);
    assert_eq!(code, 2, "{err}");
    // The CNF beside it never overwrites the input.
    let copy = d.path().join("inst.cnf");
    std::fs::copy(&cases[0], &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let (code, _, err) = run(&[
        "complete",
        s(&copy),
        "--certificate",
        s(&d.path().join("inst.json")),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read(&copy).unwrap(), before);
}

#[test]
fn a_time_limit_gives_unknown_with_the_nodes_searched() {
    // An instance of n = 35 near the hard region (undecided after 10 s on 2 cores of a
    // release build), with a limit of 0.3 s.
    let d = tempfile::tempdir().unwrap();
    let inst = d.path().join("big.txt");
    nq(&[
        "generate",
        "excluded",
        "--n",
        "35",
        "--seed",
        "1",
        "--diags",
        "36",
        "-o",
        s(&inst),
    ])
    .ok();
    let started = std::time::Instant::now();
    let (code, out, err) = run(&[
        "complete",
        s(&inst),
        "--seed",
        "1",
        "--time-limit",
        "0.3",
        "--json",
    ]);
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(code, 4, "{out} {err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["answer"], "unknown");
    let nodes = v["stats"]["search_nodes"].as_u64().unwrap();
    assert!(nodes > 0, "{out}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("({nodes} nodes)")), "{reason}");
    assert!(wall < 30.0, "the limit was ignored: {wall} s");
}

/// Writes Excluded Diagonals instance `n`, `diags`, `seed` to `path`.
/// tools/confirm_certificate.py on `board` and certificate `json`: its exit code and what
/// it printed.
fn confirm_certificate(board: &Path, json: &Path) -> (Option<i32>, String) {
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/confirm_certificate.py"))
        .args([board, json])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

/// A change made to a certificate.
type Change = Box<dyn Fn(&mut serde_json::Value)>;

/// Each change of `doc`'s certificate, written to `dir`/bad.json, is refused by
/// tools/confirm_certificate.py on `dir`/b.txt: exit 1, a message that says `what`.
fn refused_once_changed(
    doc: &serde_json::Value,
    changes: Vec<(&str, Change)>,
    dir: &Path,
    what: &str,
) {
    let bad_json = dir.join("bad.json");
    for (change_name, change) in changes {
        let mut bad = doc.clone();
        change(&mut bad["certificate"]);
        std::fs::write(&bad_json, bad.to_string()).unwrap();
        let (code, text) = confirm_certificate(&dir.join("b.txt"), &bad_json);
        assert_eq!(code, Some(1), "{change_name}: {text}");
        assert!(text.contains(what), "{change_name}: {text}");
    }
}

/// `dir`/e.txt, the Excluded Diagonals instance ([`excluded`]), and `dir`/b.txt, its
/// completion board.
fn excluded_board(n: u32, seed: u32, diags: u32, dir: &Path) {
    let (e, b) = (dir.join("e.txt"), dir.join("b.txt"));
    excluded(n, seed, diags, &e);
    nq(&["convert", s(&e), s(&b)]).ok();
}

fn excluded(n: u32, seed: u32, diags: u32, path: &Path) {
    let (n, seed, diags) = (n.to_string(), seed.to_string(), diags.to_string());
    nq(&[
        "generate",
        "excluded",
        "--n",
        &n,
        "--seed",
        &seed,
        "--diags",
        &diags,
        "-o",
        s(path),
    ])
    .ok();
}

/// An instance whose linear relaxation is infeasible but whose search is longer than the
/// first short one (n = 19, d = 19, seed 3: about 90,000 nodes) is refuted by weights on
/// its lines: INFEASIBLE with a `weighted_cover` certificate that tools/confirm_certificate.py
/// confirms on the board alone and rejects once a weight is changed; the search alone
/// (`NQUEENS_RELAXATION=0`) gives the same answer, and cadical refutes the CNF beside it.
#[test]
fn a_relaxation_refutes_with_weights_anyone_can_check() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name);
    excluded_board(19, 3, 19, d.path());
    let (code, out, err) = run(&["complete", s(&p("b.txt")), "--certificate", s(&p("c.json"))]);
    assert_eq!(code, 3, "{out} {err}");
    assert!(
        out.contains("weights on") && out.contains("diagonals"),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p("c.json")).unwrap()).unwrap();
    let cert = &doc["certificate"];
    assert_eq!(cert["kind"], "weighted_cover", "{doc}");
    let confirm = |json: &Path| confirm_certificate(&p("b.txt"), json);
    let (code, text) = confirm(&p("c.json"));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("CONFIRMED"), "{text}");
    // Changed, it fails: the diagonals heavier by the margin, a negative diagonal, a row
    // twice, a column that is not free.
    let sum = |field: &str| -> i64 {
        cert[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[1].as_i64().unwrap())
            .sum()
    };
    let margin = sum("rows") + sum("columns") - sum("d1") - sum("d2");
    assert!(margin > 0);
    let changes: Vec<(&str, Change)> = vec![
        (
            "margin",
            Box::new(move |c| c["d1"][0][1] = (c["d1"][0][1].as_i64().unwrap() + margin).into()),
        ),
        ("negative", Box::new(|c| c["d2"][0][1] = (-1).into())),
        (
            "twice",
            Box::new(|c| {
                let first = c["rows"][0].clone();
                c["rows"].as_array_mut().unwrap().push(first);
            }),
        ),
        (
            "not free",
            Box::new(|c| {
                c["columns"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!([0, 1]))
            }),
        ),
    ];
    refused_once_changed(&doc, changes, d.path(), "weighted_cover");
    let status = std::process::Command::new("cadical")
        .args(["-q", "-n", s(&p("c.cnf"))])
        .status()
        .expect("the SAT solver cadical is needed: apt-get install cadical (.ci/run does)");
    assert_eq!(status.code(), Some(20));
    let (code, out, err) = run_env(
        &[("NQUEENS_RELAXATION", "0")],
        &["complete", s(&p("b.txt")), "--certificate", s(&p("s.json"))],
    );
    assert_eq!(code, 3, "{out} {err}");
    assert!(out.contains("exact search of the 19 free rows"), "{out}");
    // `count --from` reaches the same conclusion, whole or a shard at a time, and the same
    // count with the search alone.
    let board = p("b.txt");
    for vars in [&[][..], &[("NQUEENS_RELAXATION", "0")][..]] {
        for shard in [None, Some("1/3")] {
            let mut args = vec!["count", "--from", s(&board), "--json"];
            if let Some(sh) = shard {
                args.extend(["--shard", sh]);
            }
            let (code, out, err) = run_env(vars, &args);
            assert_eq!(code, 0, "{out} {err}");
            let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(doc["placements"], "0", "{vars:?} {shard:?}: {out}");
            assert_eq!(doc["items"], 418, "{vars:?} {shard:?}: {out}");
        }
    }
}

/// Cells the relaxation refutes are never placed by the search (taken out of the residual,
/// as pairs are probed), pairs of cells it refutes together are taken as attacking each other, and the certificate lists both with their weights
/// (n = 21, d = 19, seed 7 probed from 21 rows with `NQUEENS_PROBE_FROM` and on diagonals of
/// at most 4 squares with `NQUEENS_PROBE_DIAGONAL`, without the search of one core beside
/// the pairs' probes (which decides it first) by `NQUEENS_PROBE_BESIDE`, small enough for a
/// debug build:
/// INFEASIBLE after about 4.5 M nodes, 3.6 M without; 14 cells and 20 pairs near the
/// corners refuted): tools/confirm_certificate.py checks each cell's and each pair's
/// weights before it asks for a proof, and rejects one whose weights are changed, a cell
/// that is not free, a pair whose cells attack each other, and either listed twice; the
/// search without the relaxation gives the same answer after more nodes, on any thread
/// count the same nodes.
#[test]
fn cells_and_pairs_the_relaxation_refutes_are_never_placed_and_listed_with_their_weights() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name);
    excluded_board(21, 7, 19, d.path());
    let nodes = |vars: &[(&str, &str)], threads: &str, cert: &str| -> (u64, serde_json::Value) {
        let (code, out, err) = run_env(
            vars,
            &[
                "complete",
                s(&p("b.txt")),
                "--seed",
                "1",
                "--json",
                "--threads",
                threads,
                "--certificate",
                s(&p(cert)),
            ],
        );
        assert_eq!(code, 3, "{out} {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        let cert: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p(cert)).unwrap()).unwrap();
        assert_eq!(cert["certificate"]["kind"], "exhausted_search", "{cert}");
        (doc["stats"]["search_nodes"].as_u64().unwrap(), cert)
    };
    let probe = [
        ("NQUEENS_PROBE_FROM", "21"),
        ("NQUEENS_PROBE_DIAGONAL", "4"),
        ("NQUEENS_PROBE_BESIDE", "0"),
    ];
    let (probed, doc) = nodes(&probe, "2", "c.json");
    let (one_thread, doc1) = nodes(&probe, "1", "c1.json");
    let (without, plain) = nodes(&[], "2", "s.json");
    assert_eq!(probed, one_thread);
    assert_eq!(doc["certificate"], doc1["certificate"]);
    // Taking the refuted cells out may grow a tree (this one: 4.5 M nodes, 3.6 M
    // without the probes), but not change an answer.
    assert_ne!(probed, without);
    assert!(
        plain["certificate"].get("refuted_cells").is_none(),
        "{plain}"
    );
    assert!(
        plain["certificate"].get("refuted_pairs").is_none(),
        "{plain}"
    );
    let cells = doc["certificate"]["refuted_cells"].as_array().unwrap();
    assert!(cells.len() >= 4, "{doc}");
    let pairs = doc["certificate"]["refuted_pairs"].as_array().unwrap();
    assert!(pairs.len() >= 4, "{doc}");
    let confirm = |json: &Path| confirm_certificate(&p("b.txt"), json);
    // The proof is over the default --proof-limit: the cells are confirmed, then the
    // script says there is no proof.
    let (code, text) = confirm(&p("c.json"));
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "the {} cells the search never placed are each refuted",
            cells.len()
        )) && text.contains(&format!(
            "the {} pairs of cells the search took as attacking are each refuted",
            pairs.len()
        )) && text.contains("no proof"),
        "{text}"
    );
    let changes: Vec<(&str, Change)> = vec![
        (
            "lighter diagonals",
            Box::new(|c| {
                let last = c["refuted_cells"].as_array().unwrap().len() - 1;
                let cover = &mut c["refuted_cells"][last]["cover"];
                let side = if cover["d1"].as_array().unwrap().is_empty() {
                    "d2"
                } else {
                    "d1"
                };
                cover[side] = serde_json::json!([]);
            }),
        ),
        (
            "not free",
            Box::new(|c| c["refuted_cells"][0]["column"] = 0.into()),
        ),
        (
            "twice",
            Box::new(|c| {
                let first = c["refuted_cells"][0].clone();
                c["refuted_cells"].as_array_mut().unwrap().push(first);
            }),
        ),
    ];
    refused_once_changed(&doc, changes, d.path(), "refuted cell");
    let changes: Vec<(&str, Change)> = vec![
        (
            "lighter diagonals",
            Box::new(|c| {
                let cover = &mut c["refuted_pairs"][0]["cover"];
                let side = if cover["d1"].as_array().unwrap().is_empty() {
                    "d2"
                } else {
                    "d1"
                };
                cover[side] = serde_json::json!([]);
            }),
        ),
        (
            "attacking",
            Box::new(|c| {
                let first = c["refuted_pairs"][0]["cells"][0].clone();
                c["refuted_pairs"][0]["cells"][1] = first;
            }),
        ),
        (
            "a refuted cell",
            Box::new(|c| {
                let cell = &c["refuted_cells"][0];
                let cell = serde_json::json!([cell["row"], cell["column"]]);
                c["refuted_pairs"][0]["cells"][0] = cell;
            }),
        ),
        (
            "twice",
            Box::new(|c| {
                let first = c["refuted_pairs"][0].clone();
                c["refuted_pairs"].as_array_mut().unwrap().push(first);
            }),
        ),
    ];
    refused_once_changed(&doc, changes, d.path(), "refuted pair");
}

/// The refutation's program obeys `--time-limit` (n = 60: a program of 0.3 s, a limit of
/// 0.01 s: UNKNOWN, nothing written), its switch takes 0 or 1 only, and the probes'
/// settings whole numbers only.
#[test]
fn the_relaxation_stops_at_the_time_limit_and_its_switch_is_checked() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name);
    excluded(60, 3, 60, &p("e.txt"));
    let (code, out, err) = run(&[
        "complete",
        s(&p("e.txt")),
        "--time-limit",
        "0.01",
        "--certificate",
        s(&p("c.json")),
        "-o",
        s(&p("out.txt")),
    ]);
    assert_eq!(code, 4, "{out} {err}");
    assert!(!p("c.json").exists() && !p("out.txt").exists());
    for value in ["off", "", "2"] {
        let (code, _, err) = run_env(
            &[("NQUEENS_RELAXATION", value)],
            &["complete", s(&p("e.txt")), "--time-limit", "0.01"],
        );
        assert_eq!(code, 2, "{value:?}: {err}");
        assert!(err.contains("NQUEENS_RELAXATION"), "{err}");
    }
    // The probes' settings: whole numbers in digits, else refused before any work.
    for var in [
        "NQUEENS_PROBE_FROM",
        "NQUEENS_PROBE_DIAGONAL",
        "NQUEENS_PROBE_BESIDE",
    ] {
        for value in ["", "abc", "-1", "+20", " 20", "3.5", "99999999999999999999"] {
            let (code, _, err) = run_env(
                &[(var, value)],
                &["complete", s(&p("e.txt")), "--time-limit", "0.01"],
            );
            assert_eq!(code, 2, "{var}={value:?}: {err}");
            assert!(
                err.contains(var) && err.contains("whole number") && err.lines().count() == 1,
                "{err}"
            );
        }
        let (code, _, err) = run_env(
            &[(var, "20")],
            &["complete", s(&p("e.txt")), "--time-limit", "0.01"],
        );
        assert_eq!(code, 4, "{var}=20: {err}");
    }
}
