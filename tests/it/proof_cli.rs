//! Proofs beside certificates, verified by checkers independent of nqueens' code: DRAT by
//! `rate` (crates.io, which tools/test.sh installs), LRAT by tools/check_lrat.py (the C
//! checkers cannot be fetched in CI). A missing checker fails these tests: they never pass
//! by skipping.

use crate::common::{data, listing, run};
use std::path::{Path, PathBuf};

/// The checker: `rate` on PATH, else in cargo's bin directory (where tools/test.sh and
/// tools/check_proof.sh install it).
fn rate() -> PathBuf {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("rate"))
            .find(|p| p.is_file())
    });
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    on_path
        .or_else(|| {
            cargo_home
                .map(|h| h.join("bin/rate"))
                .filter(|p| p.is_file())
        })
        .expect("the DRAT checker rate is needed: tools/test.sh installs it (cargo install rate)")
}

/// Runs the checker on `cnf` and `proof`: whether it answered `s VERIFIED` (exit 0), and
/// its report.
fn check(cnf: &Path, proof: &Path) -> (bool, String) {
    let out = std::process::Command::new(rate())
        .arg(cnf)
        .arg(proof)
        .output()
        .expect("rate runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let verified = text.lines().any(|l| l == "s VERIFIED");
    assert_eq!(
        verified,
        out.status.success(),
        "rate's answer and exit code disagree: {text}"
    );
    (verified, text)
}

#[test]
fn infeasible_instances_get_proofs_a_checker_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures: Vec<String> = listing(&data("csplib"))
        .into_iter()
        .filter(|n| n.starts_with("ed-") && n.contains("-infeasible-") && n.ends_with(".txt"))
        .collect();
    assert!(fixtures.len() >= 10, "{fixtures:?}");
    let mut rejected = 0;
    for name in &fixtures {
        let stem = name.strip_suffix(".txt").unwrap();
        let json = dir.path().join(format!("{stem}.json"));
        let input = data("csplib").join(name);
        let (code, _, err) = run(&[
            "complete",
            input.to_str().unwrap(),
            "--certificate",
            json.to_str().unwrap(),
            "-q",
        ]);
        assert_eq!(code, 3, "{name}: {err}");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["certificate"]["kind"], "exhausted_search", "{name}");
        let (cnf, drat) = (json.with_extension("cnf"), json.with_extension("drat"));
        assert_eq!(doc["proof"]["file"], drat.to_str().unwrap(), "{name}");
        let text = std::fs::read_to_string(&drat).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let lemmas = lines.iter().filter(|l| !l.starts_with("d ")).count();
        assert_eq!(doc["proof"]["lemmas"], lemmas as u64, "{name}");
        assert_eq!(lines.last(), Some(&"0"), "{name}: ends in the empty clause");
        let (ok, report) = check(&cnf, &drat);
        assert!(ok, "{name}: {report}");
        // A proof cut to its first half lacks the lemmas that refute the root's branches.
        // (A proof cut by a few lines may still be one: the checker accepts a proof whose
        // lemmas give a conflict by unit propagation without the empty clause.)
        if lines.len() > 10 {
            let cut = dir.path().join(format!("{stem}-cut.drat"));
            std::fs::write(&cut, lines[..lines.len() / 2].join("\n") + "\n").unwrap();
            let (ok, report) = check(&cnf, &cut);
            assert!(!ok, "{name}: a cut proof was verified: {report}");
            rejected += 1;
        }
    }
    assert!(rejected >= 8, "{rejected}");
}

/// Runs tools/check_lrat.py on `cnf` and `proof`: whether it answered `s VERIFIED`, and its
/// report.
fn check_lrat(cnf: &Path, proof: &Path) -> (bool, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/check_lrat.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(cnf)
        .arg(proof)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let verified = text.lines().any(|l| l == "s VERIFIED");
    assert_eq!(verified, out.status.success(), "{text}");
    (verified, text)
}

/// `--proof lrat`: the same instances' proofs as LRAT, whose every step names its hints,
/// verified; a proof cut short, or one with a hint changed, is not.
#[test]
fn lrat_proofs_are_verified_and_broken_ones_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut fixtures: Vec<PathBuf> = listing(&data("csplib"))
        .into_iter()
        .filter(|n| n.starts_with("ed-") && n.contains("-infeasible-") && n.ends_with(".txt"))
        .map(|n| data("csplib").join(n))
        .collect();
    fixtures.push(data("grigoryan-n100-k92.txt"));
    assert!(fixtures.len() >= 11, "{fixtures:?}");
    let mut broken = 0;
    for input in &fixtures {
        let name = input.file_stem().unwrap().to_str().unwrap();
        let json = dir.path().join(format!("{name}.json"));
        let (code, _, err) = run(&[
            "complete",
            input.to_str().unwrap(),
            "--certificate",
            json.to_str().unwrap(),
            "--proof",
            "lrat",
            "-q",
        ]);
        assert_eq!(code, 3, "{name}: {err}");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let (cnf, lrat) = (json.with_extension("cnf"), json.with_extension("lrat"));
        assert_eq!(doc["proof"]["file"], lrat.to_str().unwrap(), "{name}");
        assert_eq!(doc["proof"]["format"], "lrat", "{name}");
        assert!(!json.with_extension("drat").exists(), "{name}");
        let text = std::fs::read_to_string(&lrat).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let added = lines.iter().filter(|l| !l.contains(" d ")).count();
        assert_eq!(doc["proof"]["lemmas"], added as u64, "{name}");
        let deleted: Vec<usize> = lines
            .iter()
            .filter(|l| l.contains(" d "))
            .map(|l| l.split(' ').count() - 3)
            .collect();
        assert!(deleted.iter().all(|&k| k == 1_024), "{name}: {deleted:?}");
        let total: usize = deleted.iter().sum();
        assert_eq!(doc["proof"]["deletions"], total as u64, "{name}");
        let (ok, report) = check_lrat(&cnf, &lrat);
        assert!(ok, "{name}: {report}");
        if lines.len() > 4 {
            // Without its last line (the empty clause), and with one hint of the middle
            // clause changed to the CNF's first clause.
            let cut = dir.path().join(format!("{name}-cut.lrat"));
            std::fs::write(&cut, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
            assert!(
                !check_lrat(&cnf, &cut).0,
                "{name}: a cut proof was verified"
            );
            let mid = lines
                .iter()
                .position(|l| !l.contains(" d ") && l.split(' ').filter(|w| *w == "0").count() == 2)
                .unwrap();
            let mut words: Vec<&str> = lines[mid].split(' ').collect();
            let last_hint = words.len() - 2;
            words[last_hint] = "1";
            let changed = words.join(" ");
            let mut edited: Vec<&str> = lines.clone();
            edited[mid] = &changed;
            let bad = dir.path().join(format!("{name}-bad.lrat"));
            std::fs::write(&bad, edited.join("\n") + "\n").unwrap();
            assert!(
                !check_lrat(&cnf, &bad).0,
                "{name}: a changed hint was verified"
            );
            broken += 1;
        }
    }
    assert!(broken >= 8, "{broken}");
}

/// Writes in `dir` the board `b.txt` of the CSPLib fixture ed-14-infeasible-2 and its
/// certificate `c.json` with a proof in `format`, `extra` arguments added.
fn certify_board(dir: &Path, format: &str, extra: &[&str]) {
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let input = data("csplib").join("ed-14-infeasible-2.txt");
    crate::common::nq(&["convert", input.to_str().unwrap(), &p("b.txt"), "--quiet"]).ok();
    let (b, c) = (p("b.txt"), p("c.json"));
    let mut args = vec!["complete", &b, "--certificate", &c, "--proof", format, "-q"];
    args.extend_from_slice(extra);
    crate::common::nq(&args).code(3);
}

/// Runs tools/check_proof.sh on `dir`'s `c.json` (every piece of its proof, checked as
/// that script chooses: rate, or tools/check_lrat.py): its exit code and what it printed.
fn check_document(dir: &Path) -> (Option<i32>, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/check_proof.sh");
    let rate_dir = rate().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(rate_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let out = std::process::Command::new(&script)
        .arg(dir.join("c.json"))
        .env("PATH", path)
        .env_remove("LRAT_CHECK")
        .output()
        .expect("bash");
    said(out)
}

/// `--proof-parts`: a proof split into parts (cube and conquer) in every format, each
/// piece verified on its own against the CNF with the clauses it assumes, by
/// tools/check_proof.sh on the document and by tools/confirm_certificate.py from the board
/// alone; a cube changed, a part left out of the list, a part cut short are not verified,
/// and a part missing is refused.
#[test]
fn split_proofs_are_verified_piece_by_piece_and_broken_ones_are_not() {
    for format in ["drat", "lrat", "lrat-binary"] {
        let dir = tempfile::tempdir().unwrap();
        certify_board(dir.path(), format, &["--proof-parts", "8"]);
        let doc_path = dir.path().join("c.json");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&doc_path).unwrap()).unwrap();
        let parts = doc["proof"]["parts"].as_array().unwrap().clone();
        assert!(parts.len() >= 4, "{doc}");
        let ext = if format == "drat" { "drat" } else { "lrat" };
        let top = dir.path().join(format!("c.top.{ext}"));
        assert_eq!(doc["proof"]["file"], top.to_str().unwrap());
        for (k, part) in parts.iter().enumerate() {
            let file = dir.path().join(format!("c.part{:04}.{ext}", k + 1));
            assert_eq!(part["file"], file.to_str().unwrap());
            assert!(file.is_file() && !part["cube"].as_array().unwrap().is_empty());
        }
        assert!(!dir.path().join(format!("c.{ext}")).exists());
        let (code, text) = check_document(dir.path());
        assert_eq!(code, Some(0), "{format}: {text}");
        assert!(text.lines().any(|l| l == "s VERIFIED"), "{text}");
        let (code, text) = confirm(dir.path());
        assert!(
            code == Some(0) && text.contains("VERIFIED; CONFIRMED"),
            "{format}: {text}"
        );
        if format == "drat" {
            continue;
        }
        // Broken: each document or file below is checked, then the good one put back.
        let good = std::fs::read_to_string(&doc_path).unwrap();
        let part1 = dir.path().join(format!("c.part0001.{ext}"));
        let bytes = std::fs::read(&part1).unwrap();
        let mut changed = doc.clone();
        let v = changed["proof"]["parts"][0]["cube"][0].as_u64().unwrap();
        changed["proof"]["parts"][0]["cube"][0] = (if v == 1 { 2 } else { v - 1 }).into();
        let mut fewer = doc.clone();
        fewer["proof"]["parts"].as_array_mut().unwrap().pop();
        for (what, broken) in [("a cube changed", changed), ("a part left out", fewer)] {
            std::fs::write(&doc_path, broken.to_string()).unwrap();
            for (code, text) in [check_document(dir.path()), confirm(dir.path())] {
                assert_eq!(code, Some(1), "{format}, {what}: {text}");
                assert!(text.contains("NOT VERIFIED"), "{format}, {what}: {text}");
            }
        }
        std::fs::write(&doc_path, &good).unwrap();
        std::fs::write(&part1, &bytes[..bytes.len() * 2 / 3]).unwrap();
        let (code, text) = check_document(dir.path());
        assert_eq!(code, Some(1), "{format}, a part cut short: {text}");
        assert!(text.contains("part 1: NOT VERIFIED"), "{text}");
        std::fs::remove_file(&part1).unwrap();
        let (code, text) = check_document(dir.path());
        assert_eq!(code, Some(2), "{format}, a part missing: {text}");
        assert!(text.contains("proof files missing"), "{text}");
    }
}

/// tools/check_proof.sh (on a document) and tools/confirm_certificate.py refuse what they
/// cannot check with exit 2 and a line, never a traceback or a wait: a document nested too
/// deep, a pipe for the document, the CNF or a proof, a CNF missing, JOBS below 1; and
/// `--rate` is the DRAT checker confirm runs.
#[cfg(unix)]
#[test]
fn proof_tools_refuse_what_they_cannot_check() {
    let dir = tempfile::tempdir().unwrap();
    certify_board(dir.path(), "drat", &["--proof-parts", "4"]);
    let p = |name: &str| dir.path().join(name);
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools");
    let run = |program: &str, args: &[&Path]| {
        let mut cmd = if program.ends_with(".py") {
            let mut c = std::process::Command::new("python3");
            c.arg(tools.join(program));
            c
        } else {
            std::process::Command::new(tools.join(program))
        };
        said(cmd.args(args).output().unwrap())
    };
    // A stand-in for rate that rejects everything: confirm must run it, not another.
    std::fs::write(p("no-rate"), "#!/bin/sh\necho 's NOT VERIFIED'\nexit 1\n").unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(p("no-rate"))
        .status()
        .unwrap();
    let script = tools.join("confirm_certificate.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args([p("b.txt"), p("c.json")])
        .arg("--rate")
        .arg(p("no-rate"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    std::fs::write(p("deep.json"), "[".repeat(100_000) + &"]".repeat(100_000)).unwrap();
    for (program, args) in [
        ("check_proof.sh", vec![p("deep.json")]),
        ("confirm_certificate.py", vec![p("b.txt"), p("deep.json")]),
    ] {
        let (code, text) = run(
            program,
            &args.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        );
        assert_eq!(code, Some(2), "{program}: {text}");
        assert!(!text.contains("Traceback"), "{program}: {text}");
    }
    let (code, text) = run(
        "check_pieces.py",
        &[&p("c.json"), Path::new("--jobs"), Path::new("0")],
    );
    assert_eq!(code, Some(2), "{text}");
    // Pipes where the document, the CNF and a part go; then no CNF at all.
    for name in ["c.part0002.drat", "c.cnf"] {
        let kept = p("kept");
        std::fs::rename(p(name), &kept).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(p(name))
                .status()
                .unwrap()
                .success()
        );
        for (program, args) in [
            ("check_proof.sh", vec![p("c.json")]),
            ("confirm_certificate.py", vec![p("b.txt"), p("c.json")]),
        ] {
            let (code, text) = run(
                program,
                &args.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
            );
            assert_eq!(code, Some(2), "{program}, {name} a pipe: {text}");
            assert!(text.contains("regular file"), "{program}: {text}");
        }
        std::fs::remove_file(p(name)).unwrap();
        if name == "c.cnf" {
            let (code, text) = run("confirm_certificate.py", &[&p("b.txt"), &p("c.json")]);
            assert_eq!(code, Some(2), "no CNF: {text}");
            assert!(!text.contains("Traceback"), "{text}");
        }
        std::fs::rename(&kept, p(name)).unwrap();
    }
}

/// Inputs that are a piece of the proof under another name (a symbolic link either way, a
/// hard link) are refused before anything runs, and so are certificates whose own proof
/// would have the name of another certificate's piece.
#[cfg(unix)]
#[test]
fn inputs_linked_to_proof_pieces_and_certificates_named_as_pieces_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let board = data("csplib").join("ed-14-infeasible-3.txt");
    std::fs::copy(&board, p("c.part0001.lrat")).unwrap();
    std::os::unix::fs::symlink(p("c.part0001.lrat"), p("link.txt")).unwrap();
    std::fs::copy(&board, p("kept.txt")).unwrap();
    std::fs::hard_link(p("kept.txt"), p("c.part0040.lrat")).unwrap();
    std::os::unix::fs::symlink(p("kept.txt"), p("c.top.drat")).unwrap();
    let listed = listing(dir.path());
    for input in ["link.txt", "kept.txt"] {
        let out = crate::common::nq(&[
            "complete",
            input,
            "--certificate",
            "c.json",
            "--proof-parts",
            "7",
            "-q",
        ])
        .current_dir(dir.path())
        .code(2);
        assert!(
            out.stderr.contains("refusing to overwrite an input"),
            "{input}: {}",
            out.stderr
        );
    }
    for cert in ["c.top.json", "c.part0001.json", "out/c.part12345.json"] {
        let out = crate::common::nq(&["complete", "kept.txt", "--certificate", cert, "-q"])
            .current_dir(dir.path())
            .code(2);
        assert!(
            out.stderr.contains("a piece of the proof of a certificate"),
            "{cert}: {}",
            out.stderr
        );
    }
    // Another output of the command named as a piece, or a piece under another name.
    std::fs::create_dir(p("sub")).unwrap();
    std::fs::write(p("t.csv"), "kept\n").unwrap();
    std::fs::hard_link(p("t.csv"), p("c.part0007.drat")).unwrap();
    for (flag, output) in [
        ("--trace", "c.part0003.lrat"),
        ("--plot", "sub/../c.part0050.drat"),
        ("-o", "c.part0002.lrat"),
        ("--trace", "t.csv"),
    ] {
        let out = crate::common::nq(&[
            "complete",
            board.to_str().unwrap(),
            "--certificate",
            "c.json",
            flag,
            output,
            "-q",
        ])
        .current_dir(dir.path())
        .code(2);
        assert!(
            out.stderr.contains("names the same file as"),
            "{flag} {output}: {}",
            out.stderr
        );
    }
    std::fs::remove_file(p("c.part0007.drat")).unwrap();
    std::fs::remove_file(p("t.csv")).unwrap();
    std::fs::remove_dir(p("sub")).unwrap();
    // A certificate named in bytes JSON cannot hold.
    use std::os::unix::ffi::OsStrExt;
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["complete", "kept.txt", "-q", "--certificate"])
        .arg(std::ffi::OsStr::from_bytes(b"\xfe.json"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("UTF-8"), "{err}");
    assert_eq!(listing(dir.path()), listed);
    assert_eq!(
        std::fs::read(p("kept.txt")).unwrap(),
        std::fs::read(&board).unwrap()
    );
}

/// The parts of a split proof are files held open until all are published: a soft limit
/// of open files below them is raised (up to the hard limit, which refuses them with a
/// reason when it is lower, before any is written).
#[cfg(unix)]
#[test]
fn a_proof_of_more_parts_than_the_soft_limit_of_open_files_is_written() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::nq(&[
        "generate", "excluded", "--n", "18", "--diags", "19", "--seed", "1", "-o", "e.param",
    ])
    .current_dir(dir.path())
    .ok();
    let nqueens = assert_cmd::cargo::cargo_bin("nqueens");
    let run = |limits: &str| {
        std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "{limits} && exec \"$0\" complete e.param --certificate c.json --proof lrat-binary --proof-parts 600 --proof-limit 1e7 -q"
            ))
            .arg(&nqueens)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let out = run("ulimit -Sn 128");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("c.json")).unwrap()).unwrap();
    let parts = doc["proof"]["parts"].as_array().unwrap().len();
    assert!(parts > 128, "{parts} parts");
    assert_eq!(listing(dir.path()).len(), parts + 4);
    let out = run("ulimit -Sn 128 && ulimit -Hn 128");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ulimit -n"), "{err}");
    // The earlier run's set is as it was.
    assert_eq!(listing(dir.path()).len(), parts + 4);
}

/// A split proof's pieces are files of the certificate's set: one run's parts go when the
/// next writes its proof whole (or none), and its whole proof when the next splits; an
/// input with the name of a part, or a pipe there, is refused before anything is written;
/// `--proof-parts` takes auto or 1 to 1000; the parts are the same whatever --threads.
#[cfg(unix)]
#[test]
fn split_proofs_replace_earlier_pieces_and_refuse_inputs_named_as_parts() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let input = data("csplib").join("ed-14-infeasible-3.txt");
    let input = input.to_str().unwrap();
    let certify = |extra: &[&str]| {
        let mut args = vec!["complete", input, "--certificate", "c.json", "-q"];
        args.extend_from_slice(extra);
        crate::common::nq(&args).current_dir(dir.path()).code(3);
        listing(dir.path())
    };
    let split = certify(&["--proof", "lrat", "--proof-parts", "4", "--threads", "1"]);
    assert!(split.contains(&"c.top.lrat".to_string()), "{split:?}");
    let parts: Vec<Vec<u8>> = split
        .iter()
        .filter(|f| f.contains(".part"))
        .map(|f| std::fs::read(p(f)).unwrap())
        .collect();
    assert!(parts.len() >= 2, "{split:?}");
    // The same parts on two threads.
    let again = certify(&["--proof", "lrat", "--proof-parts", "4", "--threads", "2"]);
    assert_eq!(again, split);
    let parts2: Vec<Vec<u8>> = again
        .iter()
        .filter(|f| f.contains(".part"))
        .map(|f| std::fs::read(p(f)).unwrap())
        .collect();
    assert!(parts2 == parts, "the parts differ between 1 and 2 threads");
    // Whole, in the other format: every piece of the split goes.
    assert_eq!(
        certify(&["--proof-parts", "1"]),
        ["c.cnf", "c.drat", "c.json"]
    );
    // Split again, fewer parts than the first time (a link to an archived file where a
    // part of the first run was: the link goes, not its target; names that are no piece's
    // stay).
    std::fs::write(p("kept.lrat"), "archived\n").unwrap();
    std::os::unix::fs::symlink(p("kept.lrat"), p("c.part0999.lrat")).unwrap();
    let others = [
        "c..lrat",
        "c.part1.lrat",
        "c.parts0001.lrat",
        "c.top.lrat.bak",
    ];
    for other in others {
        std::fs::write(p(other), "mine\n").unwrap();
    }
    let fewer = certify(&["--proof", "lrat-binary", "--proof-parts", "2"]);
    assert!(
        !fewer
            .iter()
            .any(|f| f == "c.drat" || f == "c.part0999.lrat"),
        "{fewer:?}"
    );
    for other in others {
        assert_eq!(std::fs::read_to_string(p(other)).unwrap(), "mine\n");
    }
    assert_eq!(
        std::fs::read_to_string(p("kept.lrat")).unwrap(),
        "archived\n"
    );
    // An input with the name of a part, a pipe where one would go: refused, nothing written.
    let empty = tempfile::tempdir().unwrap();
    std::fs::copy(input, empty.path().join("c.part0003.lrat")).unwrap();
    let out = crate::common::nq(&[
        "complete",
        "c.part0003.lrat",
        "--certificate",
        "c.json",
        "-q",
    ])
    .current_dir(empty.path())
    .code(2);
    assert!(
        out.stderr.contains("refusing to overwrite an input"),
        "{}",
        out.stderr
    );
    std::fs::remove_file(empty.path().join("c.part0003.lrat")).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(empty.path().join("c.part0002.drat"))
            .status()
            .unwrap()
            .success()
    );
    let out = crate::common::nq(&["complete", input, "--certificate", "c.json", "-q"])
        .current_dir(empty.path())
        .code(2);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
    assert_eq!(listing(empty.path()), ["c.part0002.drat"]);
    for bad in ["0", "1001", "x", "-3", ""] {
        let flag = format!("--proof-parts={bad}");
        let out = crate::common::nq(&["complete", input, "--certificate", "c.json", &flag])
            .current_dir(empty.path())
            .code(2);
        assert!(
            out.stderr.contains("--proof-parts"),
            "{bad}: {}",
            out.stderr
        );
    }
}

/// A finished process's exit code and what it printed (standard output, then standard
/// error).
fn said(out: std::process::Output) -> (Option<i32>, String) {
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

/// Runs tools/confirm_certificate.py on `dir`'s `b.txt` and `c.json`: its exit code and
/// what it printed (standard output, then standard error).
fn confirm(dir: &Path) -> (Option<i32>, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/confirm_certificate.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args([dir.join("b.txt"), dir.join("c.json")])
        .output()
        .expect("python3");
    said(out)
}

/// `--proof lrat-binary`: the same LRAT proofs in binary, fewer bytes, verified by
/// tools/check_lrat.py (and, through tools/confirm_certificate.py, from the board alone);
/// one cut short or with a byte changed is not.
#[test]
fn binary_lrat_proofs_are_verified_and_broken_ones_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures: Vec<PathBuf> = listing(&data("csplib"))
        .into_iter()
        .filter(|n| n.starts_with("ed-") && n.contains("-infeasible-") && n.ends_with(".txt"))
        .map(|n| data("csplib").join(n))
        .collect();
    assert!(fixtures.len() >= 10, "{fixtures:?}");
    let mut broken = 0;
    for input in &fixtures {
        let name = input.file_stem().unwrap().to_str().unwrap();
        let mut sizes = Vec::new();
        for format in ["lrat", "lrat-binary"] {
            let json = dir.path().join(format!("{name}-{format}.json"));
            let (code, _, err) = run(&[
                "complete",
                input.to_str().unwrap(),
                "--certificate",
                json.to_str().unwrap(),
                "--proof",
                format,
                "-q",
            ]);
            assert_eq!(code, 3, "{name}: {err}");
            let doc: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let (cnf, lrat) = (json.with_extension("cnf"), json.with_extension("lrat"));
            assert_eq!(doc["proof"]["file"], lrat.to_str().unwrap(), "{name}");
            assert_eq!(doc["proof"]["format"], format, "{name}");
            let (ok, report) = check_lrat(&cnf, &lrat);
            assert!(ok, "{name} {format}: {report}");
            let bytes = std::fs::read(&lrat).unwrap();
            sizes.push(bytes.len());
            if format == "lrat-binary" && bytes.len() > 64 {
                assert_eq!(bytes[0], b'a', "{name}");
                let cut = dir.path().join(format!("{name}-cut.lrat"));
                std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
                assert!(
                    !check_lrat(&cnf, &cut).0,
                    "{name}: a cut proof was verified"
                );
                // Anything after the empty clause; its last 0 in more bytes than it needs
                // (0x80 0x00), or as a negative zero (0x01): lrat-trim reads none of them.
                let last_zero = bytes.len() - 1;
                for form in 0..3 {
                    let mut odd = bytes.clone();
                    match form {
                        0 => odd.extend_from_slice(b"garbage\n"),
                        1 => {
                            odd[last_zero] = 0x80;
                            odd.push(0);
                        }
                        _ => odd[last_zero] = 0x01,
                    }
                    std::fs::write(&cut, &odd).unwrap();
                    let (ok, report) = check_lrat(&cnf, &cut);
                    assert!(!ok, "{name}: form {form} was verified: {report}");
                }
                // The last hint of the first clause that has two: the CNF's first clause.
                let mut edited = bytes.clone();
                let end = edited[1..].iter().position(|&b| b == 0).unwrap();
                let hints_end = end + 2 + edited[end + 2..].iter().position(|&b| b == 0).unwrap();
                if edited[hints_end - 1] < 128 && edited[hints_end - 2] < 128 {
                    edited[hints_end - 1] = 2;
                    let bad = dir.path().join(format!("{name}-bad.lrat"));
                    std::fs::write(&bad, &edited).unwrap();
                    assert!(
                        !check_lrat(&cnf, &bad).0,
                        "{name}: a changed hint was verified"
                    );
                    broken += 1;
                }
            }
        }
        assert!(sizes[1] * 2 < sizes[0] + 64, "{name}: {sizes:?}");
    }
    assert!(broken >= 5, "{broken}");
    // Confirmed from the board alone.
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    certify_board(dir.path(), "lrat-binary", &[]);
    let (code, text) = confirm(dir.path());
    assert!(
        code == Some(0) && text.contains("VERIFIED; CONFIRMED"),
        "{text}"
    );
    // lrat-check reads text only: tools/check_proof.sh refuses to hand it a binary proof
    // (it would call it NOT VERIFIED) rather than run it; a stand-in that would say
    // VERIFIED to anything shows that it is never run.
    let fake = dir.path().join("lrat-check");
    std::fs::write(&fake, "#!/bin/sh\necho c VERIFIED\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/check_proof.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .args([p("c.cnf"), p("c.lrat")])
        .env("LRAT_CHECK", &fake)
        .output()
        .expect("bash");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("binary LRAT, which lrat-check does not read"),
        "{err}"
    );
}

/// tools/confirm_certificate.py with an LRAT proof: nqueens' CNF must be exactly the
/// script's own writing of the encoding, and the proof is checked against it.
#[test]
fn lrat_certificates_are_confirmed_from_the_board_alone() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let confirm = || confirm(dir.path());
    certify_board(dir.path(), "lrat", &[]);
    let (code, text) = confirm();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("the same as nqueens' CNF") && text.contains("VERIFIED; CONFIRMED"),
        "{text}"
    );
    // A literal written "08" for 8: the same number to Python, not to a C checker.
    let cnf = std::fs::read_to_string(p("c.cnf")).unwrap();
    let at = cnf.find("\n-").unwrap() + 2;
    let padded = format!("{}0{}", &cnf[..at], &cnf[at..]);
    std::fs::write(p("c.cnf"), &padded).unwrap();
    let (code, text) = confirm();
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("not a number as nqueens writes it"), "{text}");
    std::fs::write(p("c.cnf"), &cnf).unwrap();
    // Two clauses of the CNF swapped: the same formula, but not the numbering the proof
    // names, so not confirmed.
    let cnf = std::fs::read_to_string(p("c.cnf")).unwrap();
    let mut lines: Vec<&str> = cnf.lines().collect();
    let first = lines
        .iter()
        .position(|l| !l.starts_with(['c', 'p']))
        .unwrap();
    lines.swap(first, first + 1);
    std::fs::write(p("c.cnf"), lines.join("\n") + "\n").unwrap();
    let (code, text) = confirm();
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("is not the encoding"), "{text}");
}

#[test]
fn a_certificate_without_search_gets_a_proof_too() {
    // k92: a free column with no free cell, a conflict of unit propagation at once.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("k92.json");
    let input = data("grigoryan-n100-k92.txt");
    let (code, _, err) = run(&[
        "complete",
        input.to_str().unwrap(),
        "--certificate",
        json.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 3, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["proof"]["lemmas"], 1);
    let (ok, report) = check(&json.with_extension("cnf"), &json.with_extension("drat"));
    assert!(ok, "{report}");
}

/// tools/confirm_certificate.py confirms an INFEASIBLE answer without nqueens: from the
/// composition it derives the residual, writes its own (pairwise) CNF and has the checker
/// verify nqueens' proof against it; the certificate of another board, or a proof cut in
/// half, is not confirmed.
#[test]
fn certificates_are_confirmed_from_the_board_alone() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/confirm_certificate.py");
    let rate = rate();
    let confirm = |board: &str, cert: &str| {
        let out = std::process::Command::new("python3")
            .arg(&script)
            .args([board, cert, "--rate", rate.to_str().unwrap()])
            .output()
            .expect("python3");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    // Excluded Diagonals instances: their reduced boards, as text.
    let mut boards = Vec::new();
    for name in ["ed-10-infeasible-1", "ed-14-infeasible-2"] {
        let board = p(&format!("{name}.board.txt"));
        let input = data("csplib").join(format!("{name}.txt"));
        crate::common::nq(&["convert", input.to_str().unwrap(), &board, "--quiet"]).ok();
        let cert = p(&format!("{name}.json"));
        crate::common::nq(&["complete", &board, "--certificate", &cert, "-q"]).code(3);
        let (code, text) = confirm(&board, &cert);
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("VERIFIED; CONFIRMED"), "{text}");
        boards.push((board, cert));
    }
    // A certificate without search: the empty column is seen on the board itself.
    let k92 = data("grigoryan-n100-k92.txt");
    let k92 = k92.to_str().unwrap();
    crate::common::nq(&["complete", k92, "--certificate", &p("k92.json"), "-q"]).code(3);
    let (code, text) = confirm(k92, &p("k92.json"));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("column 43 has no free cell"), "{text}");
    // The other board's certificate, and a proof cut in half.
    let (code, text) = confirm(&boards[0].0, &boards[1].1);
    assert_eq!(code, Some(1), "{text}");
    let drat = boards[1].1.replace(".json", ".drat");
    let lines: Vec<String> = std::fs::read_to_string(&drat)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    std::fs::write(&drat, lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    let (code, text) = confirm(&boards[1].0, &boards[1].1);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("NOT VERIFIED"), "{text}");
}

/// A certificate with no proof (Hall's condition, beyond a proof limit) removes the proof
/// an earlier run left beside the same document: no proof of another board may lie beside
/// it. Within the limit, Hall's condition gets its proof too.
#[test]
fn no_stale_proof_is_left_beside_a_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // Exhausted search (a proof), then Hall's condition (none), into the same paths.
    std::fs::write(
        p("searched.txt"),
        "10 15 22 11 0 23 34 5 12 28 0 38 6 9 29 21 40 33 35 14 7 4 13 16 31 1 3 17 39 0 27 32 37 0 20 0 2 25 0 19\n",
    )
    .unwrap();
    std::fs::write(
        p("hall.txt"),
        "8 28 22 0 26 0 34 5 12 0 36 0 6 9 29 21 18 33 0 14 7 4 13 16 23 1 38 17 35 3 30 11 37 25 0 24 2 15 19 27\n",
    )
    .unwrap();
    let cert = p("c.json");
    crate::common::nq(&["complete", &p("searched.txt"), "--certificate", &cert, "-q"]).code(3);
    assert!(Path::new(&p("c.drat")).exists());
    let hall = |limit: &str| {
        let args = [
            "complete",
            &p("hall.txt"),
            "--certificate",
            &cert,
            "--proof-limit",
            limit,
            "-q",
        ];
        let out = crate::common::nq(&args).code(3);
        assert!(
            out.stdout.contains("have free cells only in"),
            "{}",
            out.stdout
        );
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&cert).unwrap()).unwrap()
    };
    let doc = hall("0");
    assert!(
        !Path::new(&p("c.drat")).exists(),
        "{:?}",
        listing(dir.path())
    );
    let missing = doc["proof"]["missing"].as_str().unwrap();
    assert!(
        missing.contains("--proof-limit") && missing.contains("Hall"),
        "{doc}"
    );
    // Within the default limit this one is refuted by the proof search, and checked.
    let doc = hall("1000000");
    assert_eq!(doc["certificate"]["kind"], "hall");
    assert!(doc["proof"]["file"].is_string(), "{doc}");
    let (ok, report) = check(Path::new(&p("c.cnf")), Path::new(&p("c.drat")));
    assert!(ok, "{report}");
}

/// A certificate's files are renamed into place together: a name only a directory can
/// have, or a pipe or device where a sibling goes, is refused before anything is written;
/// `--proof` needs `--certificate`.
#[cfg(unix)]
#[test]
fn certificate_names_that_cannot_take_the_whole_set_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("csplib").join("ed-8-infeasible-1.txt");
    let input = input.to_str().unwrap();
    let refused = |cert: &str, extra: &[&str]| {
        let mut args = vec!["complete", input, "--certificate", cert, "-q"];
        args.extend_from_slice(extra);
        let out = crate::common::nq(&args).current_dir(dir.path()).code(2);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        out.stderr
    };
    for cert in ["c.json/", "c.json/."] {
        let err = refused(cert, &["--proof", "lrat"]);
        assert!(err.contains("names a directory"), "{err}");
    }
    assert!(
        std::process::Command::new("mkfifo")
            .arg(dir.path().join("c.lrat"))
            .status()
            .unwrap()
            .success()
    );
    for proof in ["lrat", "drat"] {
        let err = refused("c.json", &["--proof", proof]);
        assert!(
            err.contains("c.lrat") && err.contains("not a regular file"),
            "{err}"
        );
    }
    assert_eq!(listing(dir.path()), ["c.lrat"]);
    // The same names made per input from a pattern get the same checks.
    std::fs::create_dir(dir.path().join("out")).unwrap();
    std::os::unix::fs::symlink("/dev/null", dir.path().join("out/ed-8-infeasible-1.cnf")).unwrap();
    for (cert, why) in [
        ("out/{stem}.json/", "names a directory"),
        ("out/{stem}.json", "not a regular file"),
    ] {
        let err = refused(cert, &[]);
        assert!(err.contains(why), "{cert}: {err}");
    }
    assert_eq!(listing(&dir.path().join("out")), ["ed-8-infeasible-1.cnf"]);
    let out = crate::common::nq(&["complete", input, "--proof", "lrat", "-q"])
        .current_dir(dir.path())
        .code(2);
    assert!(out.stderr.contains("--certificate"), "{}", out.stderr);
}

/// `--proof-limit`: a search that needs more nodes gives no proof, and says so; one within
/// it gives the proof.
#[test]
fn the_proof_limit_is_the_users() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("csplib").join("ed-14-infeasible-3.txt");
    let cert = dir.path().join("c.json");
    let cert = cert.to_str().unwrap();
    let doc = |limit: &str| {
        crate::common::nq(&[
            "complete",
            input.to_str().unwrap(),
            "--certificate",
            cert,
            "--proof",
            "lrat",
            "--proof-limit",
            limit,
            "-q",
        ])
        .code(3);
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(cert).unwrap()).unwrap()
    };
    let small = doc("10");
    assert!(
        small["proof"]["missing"]
            .as_str()
            .unwrap()
            .contains("more than 10 nodes (--proof-limit)"),
        "{small}"
    );
    assert!(!dir.path().join("c.lrat").exists());
    // Without --quiet it is said on standard error too, in one line.
    let out = crate::common::nq(&[
        "complete",
        input.to_str().unwrap(),
        "--certificate",
        cert,
        "--proof-limit",
        "1",
    ])
    .code(3);
    let said: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("no proof written"))
        .collect();
    assert_eq!(said.len(), 1, "{}", out.stderr);
    assert!(
        said[0].contains("more than 1 node (--proof-limit)"),
        "{}",
        said[0]
    );
    // 0 asks for no proof, and the document says that rather than a search too large.
    let none = doc("0");
    assert_eq!(
        none["proof"]["missing"], "no proof was asked for (--proof-limit 0)",
        "{none}"
    );
    assert!(!dir.path().join("c.lrat").exists());
    let large = doc("1e4");
    assert_eq!(
        large["proof"]["file"],
        dir.path().join("c.lrat").to_str().unwrap()
    );
    assert!(check_lrat(&dir.path().join("c.cnf"), &dir.path().join("c.lrat")).0);
}

/// Proofs an earlier run left beside the document go, of either format (or a link to
/// one: the link, not its target); the one written now stays.
#[cfg(unix)]
#[test]
fn stale_proofs_of_either_format_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let input = data("csplib").join("ed-8-infeasible-1.txt");
    let input = input.to_str().unwrap();
    let cert = p("c.json");
    let cert = cert.to_str().unwrap();
    crate::common::nq(&[
        "complete",
        input,
        "--certificate",
        cert,
        "--proof",
        "lrat",
        "-q",
    ])
    .code(3);
    assert!(p("c.lrat").exists());
    crate::common::nq(&["complete", input, "--certificate", cert, "-q"]).code(3);
    assert!(
        p("c.drat").exists() && !p("c.lrat").exists(),
        "{:?}",
        listing(dir.path())
    );
    std::fs::write(p("kept.lrat"), "archived\n").unwrap();
    std::os::unix::fs::symlink(p("kept.lrat"), p("c.lrat")).unwrap();
    crate::common::nq(&["complete", input, "--certificate", cert, "-q"]).code(3);
    assert!(std::fs::symlink_metadata(p("c.lrat")).is_err());
    assert_eq!(
        std::fs::read_to_string(p("kept.lrat")).unwrap(),
        "archived\n"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cert).unwrap()).unwrap();
    assert_eq!(doc["proof"]["format"], "drat");
}

/// Writes in `dir` the Excluded Diagonals instance of n 22, seed 1, with `diags` excluded
/// diagonals as `input`, and its certificate (INFEASIBLE, text LRAT) as `cert`.
fn certify_excluded(dir: &Path, diags: &str, input: &str, cert: &str) {
    let arg = |name: &str| dir.join(name).to_str().unwrap().to_string();
    crate::common::nq(&[
        "generate",
        "excluded",
        "--n",
        "22",
        "--seed",
        "1",
        "--diags",
        diags,
        "-o",
        &arg(input),
    ])
    .ok();
    crate::common::nq(&[
        "complete",
        &arg(input),
        "--seed",
        "4",
        "-q",
        "--certificate",
        &arg(cert),
        "--proof",
        "lrat",
    ])
    .code(3);
}

/// `cert.json` and `cert.txt` are one set of files: a run with one replaces the CNF and
/// proof of the other, whose document then describes another board; checking it must
/// refuse, not verify the other board's proof.
#[test]
fn a_document_whose_cnf_another_run_replaced_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    for (diags, input, cert) in [("33", "a.txt", "c.json"), ("35", "b.txt", "c.txt")] {
        certify_excluded(dir.path(), diags, input, cert);
    }
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools");
    let check = |cert: &str| {
        said(
            std::process::Command::new("python3")
                .arg(tools.join("check_pieces.py"))
                .arg(p(cert))
                .env_remove("LRAT_CHECK")
                .output()
                .unwrap(),
        )
    };
    let (code, text) = check("c.txt");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().any(|l| l == "s VERIFIED"), "{text}");
    let (code, text) = check("c.json");
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("not this document's CNF"), "{text}");
    let (code, text) = check_document(dir.path());
    assert_eq!(code, Some(2), "{text}");
    assert!(!text.contains("VERIFIED"), "{text}");
}

/// The document names its CNF by the SHA-256 of its bytes, and tools/check_pieces.py checks
/// only that CNF: one with the same counts but other bytes (two boards can give equal
/// counts; here a comment changed) is refused, and so is a document that gives no hash.
#[test]
fn the_cnf_beside_a_document_is_checked_by_its_sha256() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    certify_excluded(dir.path(), "33", "a.txt", "c.json");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(p("c.json")).unwrap()).unwrap();
    let cnf = std::fs::read(p("c.cnf")).unwrap();
    let hex: String = Sha256::digest(&cnf)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(doc["cnf"]["sha256"], hex.as_str());
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools");
    let check = || {
        said(
            std::process::Command::new("python3")
                .arg(tools.join("check_pieces.py"))
                .arg(p("c.json"))
                .env_remove("LRAT_CHECK")
                .output()
                .unwrap(),
        )
    };
    let (code, text) = check();
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().any(|l| l == "s VERIFIED"), "{text}");
    // The same counts, the same clauses, one byte of a comment other: the proof would
    // verify against it, but it is not the file the document was written with.
    let other = String::from_utf8(cnf.clone()).unwrap().replacen(
        "formats/dimacs.md",
        "formats/dimacs.MD",
        1,
    );
    assert!(other.as_bytes() != &cnf[..], "the comment is in the CNF");
    std::fs::write(p("c.cnf"), other).unwrap();
    let (code, text) = check();
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("its SHA-256 is not the one"), "{text}");
    assert!(!text.contains("VERIFIED"), "{text}");
    let (code, text) = check_document(dir.path());
    assert_eq!(code, Some(2), "{text}");
    assert!(!text.contains("VERIFIED"), "{text}");
    // Named with --cnf, the document's own CNF is still checked by its hash.
    let out = std::process::Command::new("python3")
        .arg(tools.join("check_pieces.py"))
        .arg(p("c.json"))
        .arg("--cnf")
        .arg(dir.path().join(".").join("c.cnf"))
        .env_remove("LRAT_CHECK")
        .output()
        .unwrap();
    let (code, text) = said(out);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("its SHA-256 is not the one"), "{text}");
    // A checker that cannot run is no verdict: exit 2, not NOT VERIFIED.
    std::fs::write(p("c.cnf"), &cnf).unwrap();
    let out = std::process::Command::new("python3")
        .arg(tools.join("check_pieces.py"))
        .arg(p("c.json"))
        .env("LRAT_CHECK", "/nonexistent/checker")
        .output()
        .unwrap();
    let (code, text) = said(out);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("not checked"), "{text}");
    assert!(!text.contains("VERIFIED"), "{text}");
    // The CNF back, the hash gone from the document.
    std::fs::write(p("c.cnf"), &cnf).unwrap();
    let mut doc = doc;
    doc["cnf"].as_object_mut().unwrap().remove("sha256");
    std::fs::write(p("c.json"), serde_json::to_vec(&doc).unwrap()).unwrap();
    let (code, text) = check();
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("gives no SHA-256"), "{text}");
}

/// A signal during the proof search: exit 130, and nothing of the certificate, nor any
/// temporary file, is left.
#[cfg(unix)]
#[test]
fn a_signal_during_the_proof_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let instance = dir.path().join("e.param");
    crate::common::nq(&[
        "generate",
        "excluded",
        "--n",
        "20",
        "--seed",
        "1",
        "-o",
        instance.to_str().unwrap(),
    ])
    .ok();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args([
            "complete",
            "e.param",
            "--diags",
            "18",
            "--certificate",
            "c.json",
            "-q",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The proof is written to a temporary file of ours: signal once it exists.
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            panic!(
                "finished before its proof was seen being written: {:?}",
                listing(dir.path())
            );
        }
        if listing(dir.path())
            .iter()
            .any(|f| f.starts_with(".nqueens-"))
        {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 120,
            "no proof file within 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert_eq!(listing(dir.path()), ["e.param"], "{err}");
}

/// `--json` names the certificate's document and repeats its proof record: the proof's
/// file and format, or why there is none; without a certificate, neither.
#[test]
fn the_json_record_names_the_certificate_and_its_proof() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("csplib").join("ed-10-infeasible-1.txt");
    let json = dir.path().join("c.json");
    let record = |extra: &[&str]| {
        let mut args = vec!["complete", input.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, 3, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let cert = json.to_str().unwrap();
    let r = record(&["--certificate", cert, "--proof", "lrat-binary"]);
    assert_eq!(r["certificate_file"], cert);
    assert_eq!(r["proof"]["format"], "lrat-binary");
    assert_eq!(
        r["proof"]["file"],
        dir.path().join("c.lrat").to_str().unwrap()
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["proof"], doc["proof"]);
    let r = record(&["--certificate", cert, "--proof-limit", "3"]);
    assert!(
        r["proof"]["missing"]
            .as_str()
            .unwrap()
            .contains("--proof-limit"),
        "{r}"
    );
    assert!(r["proof"].get("file").is_none(), "{r}");
    let r = record(&[]);
    assert!(
        r.get("certificate_file").is_none() && r.get("proof").is_none(),
        "{r}"
    );
}

/// `--proof-shard I/S`: the shards' pieces together are, byte for byte, those of one run
/// of every piece, each shard's document names what it wrote, a shard's document is
/// refused as a whole proof and checked with `--shard`, and tools/prove_in_shards.py
/// writes, checks and removes the shards in turn to `s VERIFIED`; a shard outside 0..S
/// is refused.
#[test]
fn proofs_written_in_shards_are_the_whole_proof() {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools");
    let whole = tempfile::tempdir().unwrap();
    certify_board(whole.path(), "lrat", &["--proof-parts", "8"]);
    let pieces = listing(whole.path())
        .into_iter()
        .filter(|name| name.ends_with(".lrat"))
        .collect::<Vec<_>>();
    assert!(pieces.len() >= 5, "{pieces:?}");
    let mut seen = Vec::new();
    for index in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let shard = format!("{index}/3");
        certify_board(
            dir.path(),
            "lrat",
            &["--proof-parts", "8", "--proof-shard", &shard],
        );
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("c.json")).unwrap())
                .unwrap();
        let record = &doc["proof"]["shard"];
        assert_eq!(record["index"], index);
        assert_eq!(record["of"], 3);
        assert_eq!(record["pieces"], pieces.len());
        let written: Vec<String> = record["written"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                Path::new(f.as_str().unwrap())
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .into()
            })
            .collect();
        let here: Vec<String> = listing(dir.path())
            .into_iter()
            .filter(|name| name.ends_with(".lrat"))
            .collect();
        assert_eq!(
            written.iter().collect::<std::collections::BTreeSet<_>>(),
            here.iter().collect()
        );
        for name in &here {
            assert_eq!(
                std::fs::read(dir.path().join(name)).unwrap(),
                std::fs::read(whole.path().join(name)).unwrap(),
                "{name}"
            );
        }
        seen.extend(here);
        // Alone, a shard proves nothing: refused; with --shard, its pieces are checked.
        let (code, text) = check_document(dir.path());
        assert_eq!(code, Some(2), "{text}");
        assert!(text.contains(&format!("holds shard {index}/3")), "{text}");
        let out = std::process::Command::new("python3")
            .arg(tools.join("check_pieces.py"))
            .arg(dir.path().join("c.json"))
            .arg("--shard")
            .env_remove("LRAT_CHECK")
            .output()
            .unwrap();
        let (code, text) = said(out);
        assert_eq!(code, Some(0), "{text}");
        assert!(
            text.lines()
                .any(|l| l == format!("s SHARD {index}/3 VERIFIED")),
            "{text}"
        );
        let out = std::process::Command::new("python3")
            .arg(tools.join("confirm_certificate.py"))
            .args([dir.path().join("b.txt"), dir.path().join("c.json")])
            .arg("--shard")
            .output()
            .unwrap();
        let (code, text) = said(out);
        assert!(
            code == Some(0)
                && text.contains("the answer is confirmed when every shard is")
                && !text.contains("CONFIRMED")
                && text
                    .lines()
                    .any(|l| l == format!("s SHARD {index}/3 VERIFIED")),
            "{text}"
        );
        // A shard's list of what it wrote must be all of its pieces: one left out would
        // go unchecked.
        let mut fewer = doc.clone();
        fewer["proof"]["shard"]["written"]
            .as_array_mut()
            .unwrap()
            .pop();
        std::fs::write(dir.path().join("c.json"), fewer.to_string()).unwrap();
        let out = std::process::Command::new("python3")
            .arg(tools.join("check_pieces.py"))
            .arg(dir.path().join("c.json"))
            .arg("--shard")
            .output()
            .unwrap();
        let (code, text) = said(out);
        assert_eq!(code, Some(2), "{text}");
        assert!(text.contains("does not name exactly its pieces"), "{text}");
    }
    seen.sort();
    assert_eq!(seen, pieces);

    // The whole round: every shard written, checked and removed in turn. The document is
    // the one each run's record names ({stem} expanded), not a file of the name given.
    let dir = tempfile::tempdir().unwrap();
    let board = data("csplib").join("ed-14-infeasible-2.txt");
    std::fs::write(dir.path().join("{stem}.json"), "{}").unwrap();
    let driver = |extra: &[&str]| {
        let out = std::process::Command::new("python3")
            .arg(tools.join("prove_in_shards.py"))
            .arg(&board)
            .arg(dir.path().join("{stem}.json"))
            .args(["--shards", "3", "--parts", "8", "--nqueens"])
            .arg(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(extra)
            .env_remove("LRAT_CHECK")
            .output()
            .unwrap();
        said(out)
    };
    let (code, text) = driver(&["--", "--proof", "lrat-binary"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().any(|l| l == "s VERIFIED"), "{text}");
    assert!(
        text.contains(&format!("a proof of {} pieces in 3 shards", pieces.len())),
        "{text}"
    );
    assert_eq!(
        listing(dir.path()),
        [
            "ed-14-infeasible-2.cnf",
            "ed-14-infeasible-2.json",
            "{stem}.json"
        ]
    );
    // From the board too; a board not the input's is refused before anything is written.
    let (code, text) = driver(&["--board", whole.path().join("b.txt").to_str().unwrap()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().any(|l| l == "s VERIFIED"), "{text}");
    let other = dir.path().join("other.txt");
    std::fs::write(&other, "0 0 0 0 0 0\n").unwrap();
    let (code, text) = driver(&["--board", other.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("is not the board of"), "{text}");
    let (code, text) = driver(&["--", "--proof-shard", "1/2"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("--proof-shard is set by this script"),
        "{text}"
    );
    // Standard output carries the run's record: an output there is refused at once.
    let so = dir.path().join("so");
    std::os::unix::fs::symlink("/dev/stdout", &so).unwrap();
    let so_arg = format!("--trace={}", so.display());
    for extra in [
        &["--", "-o", "-"][..],
        &["--", "--trace=/dev/stdout"],
        &["--", "-o-"],
        &["--", "-qo", "-"],
        &["--", "-o", "//dev/stdout"],
        &["--", &so_arg],
    ] {
        let (code, text) = driver(extra);
        assert_eq!(code, Some(2), "{extra:?}: {text}");
        assert!(
            text.contains("standard output carries"),
            "{extra:?}: {text}"
        );
    }

    // The document where the system puts it: `link/..` is the link's target's parent, and
    // a set of files where the text of the path leads is neither checked nor removed.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("real/sub")).unwrap();
    std::os::unix::fs::symlink("real/sub", dir.path().join("lnk")).unwrap();
    for name in ["c.json", "c.cnf", "c.top.lrat"] {
        std::fs::write(dir.path().join(name), "stale\n").unwrap();
    }
    let out = std::process::Command::new("python3")
        .current_dir(dir.path())
        .arg(tools.join("prove_in_shards.py"))
        .arg(&board)
        .arg("lnk/../c.json")
        .args(["--shards", "2", "--parts", "8", "--nqueens"])
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .env_remove("LRAT_CHECK")
        .output()
        .unwrap();
    let (code, text) = said(out);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().any(|l| l == "s VERIFIED"), "{text}");
    assert_eq!(
        listing(&dir.path().join("real")),
        ["c.cnf", "c.json", "sub"]
    );
    for name in ["c.json", "c.cnf", "c.top.lrat"] {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            "stale\n"
        );
    }

    // One shard of a certificate a free row without cells proves: CONFIRMED from the board.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.txt");
    crate::common::nq(&[
        "generate",
        "excluded",
        "--n",
        "8",
        "--diags",
        "20",
        "--min-free",
        "0",
        "--seed",
        "1",
        "-o",
        f.to_str().unwrap(),
    ])
    .ok();
    let b = dir.path().join("b.txt");
    crate::common::nq(&["convert", f.to_str().unwrap(), b.to_str().unwrap(), "-q"]).ok();
    let out = std::process::Command::new("python3")
        .arg(tools.join("prove_in_shards.py"))
        .arg(&f)
        .arg(dir.path().join("c.json"))
        .args(["--shards", "1", "--nqueens"])
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .arg("--board")
        .arg(&b)
        .env_remove("LRAT_CHECK")
        .output()
        .unwrap();
    let (code, text) = said(out);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().any(|l| l == "s VERIFIED"), "{text}");

    for bad in ["3/3", "1/0", "a/2", "-1/2", "1", "1/2/3", " 1/2"] {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("c.json");
        let out = crate::common::nq(&[
            "complete",
            board.to_str().unwrap(),
            "--certificate",
            c.to_str().unwrap(),
            &format!("--proof-shard={bad}"),
        ])
        .code(2);
        assert!(
            out.stderr.contains("--proof-shard"),
            "{bad}: {}",
            out.stderr
        );
        assert!(listing(dir.path()).is_empty(), "{bad}");
    }
    let out =
        crate::common::nq(&["complete", board.to_str().unwrap(), "--proof-shard", "0/2"]).code(2);
    assert!(out.stderr.contains("--certificate"), "{}", out.stderr);
}

/// `--proof-shards-in-turn S`: one run, one search, the S shards written one after another,
/// each said on standard error and the next written on a line of standard input: each
/// shard's pieces are, byte for byte, its share of one run's whole set, the shard before
/// removed by the next's writing, and the record at the end the last shard's. The end of
/// standard input or a signal while it waits stops it (exit 130) with the shards written
/// left whole; time spent waiting is not in --time-limit; standard input as the input and
/// `--proof-shard` beside it are refused.
#[test]
fn shards_in_turn_are_written_from_one_search_on_a_go_ahead() {
    use std::io::{BufRead, BufReader, Write};
    let whole = tempfile::tempdir().unwrap();
    certify_board(whole.path(), "lrat", &["--proof-parts", "8"]);
    let lrat = |dir: &Path| {
        listing(dir)
            .into_iter()
            .filter(|name| name.ends_with(".lrat"))
            .collect::<Vec<_>>()
    };
    let pieces = lrat(whole.path());
    assert!(pieces.len() >= 5, "{pieces:?}");
    let board = whole.path().join("b.txt");
    let spawn = |dir: &Path, extra: &[&str]| {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(["complete", board.to_str().unwrap(), "--certificate"])
            .arg(dir.join("c.json"))
            .args(["--proof", "lrat", "--proof-parts", "8", "--json"])
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(
        dir.path(),
        &["--proof-shards-in-turn", "3", "--time-limit", "2"],
    );
    let mut stdin = child.stdin.take().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    for index in 0..3 {
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let c = dir.path().join("c.json");
        assert!(
            line.starts_with(&format!(
                "nqueens: {}: proof shard {index}/3 written",
                c.display()
            )),
            "{line}"
        );
        let here = lrat(dir.path());
        for name in &here {
            assert_eq!(
                std::fs::read(dir.path().join(name)).unwrap(),
                std::fs::read(whole.path().join(name)).unwrap(),
                "{name}"
            );
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&c).unwrap()).unwrap();
        assert_eq!(doc["proof"]["shard"]["index"], index);
        assert_eq!(
            doc["proof"]["shard"]["written"].as_array().unwrap().len(),
            here.len()
        );
        seen.extend(here);
        if index == 0 {
            // Past the time limit while waiting: the next shards still get their proofs.
            std::thread::sleep(std::time::Duration::from_millis(2500));
        }
        if index < 2 {
            stdin.write_all(b"\n").unwrap();
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["proof"]["shard"]["index"], 2, "{record}");
    // Each shard's writing removed the one before: the last's alone are left.
    seen.sort();
    assert_eq!(seen, pieces);
    assert!(lrat(dir.path()).len() < pieces.len());

    // Standard input ends after the first shard: it stays, whole; exit 130.
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &["--proof-shards-in-turn", "3"]);
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains(
            "standard input ended after proof shard 0/3: the later shards are not written"
        ),
        "{err}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("c.json")).unwrap()).unwrap();
    assert_eq!(doc["proof"]["shard"]["index"], 0);
    assert!(
        !listing(dir.path())
            .iter()
            .any(|f| f.starts_with(".nqueens-"))
    );

    // A signal while it waits: exit 130 at once.
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &["--proof-shards-in-turn", "3"]);
    // Held open past the wait (which would close it first): only the signal ends it.
    let stdin = child.stdin.take();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("proof shard 0/3 written"), "{line}");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = std::time::Instant::now();
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(started.elapsed().as_secs() < 10);
    assert!(rest.contains("interrupted after proof shard 0/3"), "{rest}");
    drop(stdin);

    // A link to /dev/stdin is standard input too.
    let links = tempfile::tempdir().unwrap();
    let si = links.path().join("si");
    std::os::unix::fs::symlink("/dev/stdin", &si).unwrap();
    // Several inputs: each takes the next lines, none lost between them (lines already
    // waiting included).
    let dir = tempfile::tempdir().unwrap();
    let csplib = data("csplib");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .arg("complete")
        .args(["ed-14-infeasible-2.txt", "ed-14-infeasible-1.txt"].map(|f| csplib.join(f)))
        .arg("--certificate")
        .arg(dir.path().join("{stem}.json"))
        .args(["--proof-parts", "8", "--proof-shards-in-turn", "3", "-q"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"\n\n\n\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    for stem in ["ed-14-infeasible-2", "ed-14-infeasible-1"] {
        assert!(
            err.contains(&format!("{stem}.json: proof shard 2/3 written")),
            "{err}"
        );
    }

    for (args, says) in [
        (vec!["-", "--proof-shards-in-turn", "2"], "standard input"),
        (
            vec!["/dev/stdin", "--proof-shards-in-turn", "2"],
            "standard input",
        ),
        (
            vec![si.to_str().unwrap(), "--proof-shards-in-turn", "2"],
            "standard input",
        ),
        (
            vec![board.to_str().unwrap(), "--proof-shards-in-turn", "1002"],
            "from 1 to 1001",
        ),
        (
            vec![
                board.to_str().unwrap(),
                "--proof-shards-in-turn",
                "2",
                "--proof-shard",
                "0/2",
            ],
            "--proof-shard",
        ),
        (
            vec![board.to_str().unwrap(), "--proof-shards-in-turn", "0"],
            "--proof-shards-in-turn",
        ),
        (
            vec![board.to_str().unwrap(), "--proof-shards-in-turn", "+2"],
            "--proof-shards-in-turn",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("c.json");
        let mut all = vec!["complete", "--certificate", c.to_str().unwrap()];
        all.extend(args);
        let out = crate::common::nq(&all).code(2);
        assert!(out.stderr.contains(says), "{says}: {}", out.stderr);
        assert!(listing(dir.path()).is_empty());
    }
}
