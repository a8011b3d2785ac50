//! `nqueens complete` and `generate solution --random` end to end through the binary.

use crate::common::*;
use std::path::Path;

fn read_rows(path: &Path) -> Vec<u32> {
    nqueens::format::Input::open(path)
        .unwrap()
        .to_vec()
        .unwrap()
}

use crate::common::oracle::{completable, free_cell};

#[test]
fn reference_examples_come_out_as_documented() {
    let d = tempfile::tempdir().unwrap();
    for (name, other) in [("k47", None), ("k80", Some("k80-solution"))] {
        let input = data(&format!("grigoryan-n100-{name}.txt"));
        let out = d.path().join(format!("{name}.txt"));
        let (code, stdout, err) = run(&[
            "complete",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--seed",
            "1",
        ]);
        assert_eq!(code, 0, "{stdout}{err}");
        assert!(stdout.starts_with("SOLVED\n"), "{stdout}");
        let (code, _, _) = run(&[
            "verify",
            "--require-complete",
            "--base",
            input.to_str().unwrap(),
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0);
        if let Some(sol) = other {
            // k80 has exactly two completions: ours (verified above) is one of them, and the
            // author's is one too; they are the same or the two differ in some free row.
            let (code, json, _) =
                run(&["count", "100", "--from", input.to_str().unwrap(), "--json"]);
            assert_eq!(code, 0);
            let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
            assert_eq!(v["placements"], "2", "{json}");
            let author = data(&format!("grigoryan-n100-{sol}.txt"));
            let (code, out_v, _) = run(&[
                "verify",
                "--require-complete",
                "--base",
                input.to_str().unwrap(),
                author.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{out_v}");
            let (ours, theirs) = (read_rows(&out), read_rows(&author));
            let base = read_rows(&input);
            let differing: Vec<usize> = (0..ours.len()).filter(|&i| ours[i] != theirs[i]).collect();
            assert!(
                differing.iter().all(|&i| base[i] == 0),
                "a given queen moved"
            );
        }
    }
    // k92: no completion at all, with a certificate that checks out independently.
    let input = data("grigoryan-n100-k92.txt");
    let cert = d.path().join("k92.json");
    let out = d.path().join("k92-out.txt");
    let (code, stdout, _) = run(&[
        "complete",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--certificate",
        cert.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.starts_with("INFEASIBLE: "), "{stdout}");
    assert!(!out.exists(), "no output for an infeasible input");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cert).unwrap()).unwrap();
    let q = read_rows(&input);
    let free_rows: Vec<usize> = (0..q.len()).filter(|&r| q[r] == 0).collect();
    match doc["certificate"]["kind"].as_str().unwrap() {
        "empty_column" => {
            let col = doc["certificate"]["column"].as_u64().unwrap() as u32;
            assert!(!q.contains(&col), "the column is free");
            assert!(free_rows.iter().all(|&r| !free_cell(&q, r, col)));
        }
        "empty_row" => {
            let row = doc["certificate"]["row"].as_u64().unwrap() as usize - 1;
            assert!((1..=q.len() as u32).all(|c| !free_cell(&q, row, c)));
        }
        "hall" => {
            let rows: Vec<usize> = doc["certificate"]["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as usize - 1)
                .collect();
            let cols: Vec<u32> = doc["certificate"]["columns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u32)
                .collect();
            assert!(cols.len() < rows.len());
            for &r in &rows {
                for c in 1..=q.len() as u32 {
                    assert!(!free_cell(&q, r, c) || cols.contains(&c));
                }
            }
        }
        other => panic!("unexpected certificate {other}"),
    }
}

#[test]
fn invalid_input_is_rejected_with_the_verifier_report() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.txt");
    std::fs::write(&bad, "1\n2\n0\n0\n").unwrap();
    let out = d.path().join("out.txt");
    let (code, stdout, err) = run(&[
        "complete",
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("not a valid composition"), "{err}");
    assert!(
        stdout.contains("rows 1 and 2 share a D1 diagonal"),
        "{stdout}"
    );
    assert_eq!(listing(d.path()), vec!["bad.txt"]);
}

#[test]
fn exhausted_search_is_a_proof() {
    // Find inputs with no completion and no quick certificate by brute force over small
    // boards, then let the binary decide them.
    let d = tempfile::tempdir().unwrap();
    let mut found = 0;
    for seed in 0..400u64 {
        let n = 8 + (seed % 4) as usize;
        let mut q = vec![0u32; n];
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        for _ in 0..n / 2 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (r, c) = ((x % n as u64) as usize, ((x >> 20) % n as u64) as u32 + 1);
            if free_cell(&q, r, c) {
                q[r] = c;
            }
        }
        if completable(&q) || has_quick_certificate(&q) {
            continue;
        }
        let p = d.path().join(format!("hard{seed}.txt"));
        std::fs::write(&p, q.iter().map(|v| format!("{v}\n")).collect::<String>()).unwrap();
        let (code, stdout, _) = run(&["complete", p.to_str().unwrap(), "--json"]);
        assert_eq!(code, 3, "{stdout}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(v["certificate"]["kind"], "exhausted_search");
        found += 1;
        if found == 3 {
            break;
        }
    }
    assert_eq!(found, 3, "the generator should find such boards");
}

/// An empty free row or free column (Hall violations are rarer; these are the common ones).
fn has_quick_certificate(q: &[u32]) -> bool {
    let n = q.len() as u32;
    let free_rows: Vec<usize> = (0..q.len()).filter(|&r| q[r] == 0).collect();
    let free_cols: Vec<u32> = (1..=n).filter(|c| !q.contains(c)).collect();
    free_rows
        .iter()
        .any(|&r| free_cols.iter().all(|&c| !free_cell(q, r, c)))
        || free_cols
            .iter()
            .any(|&c| free_rows.iter().all(|&r| !free_cell(q, r, c)))
        || hall_violated(q, &free_rows, &free_cols)
}

/// Hall's condition by brute force over subsets of at most 12 rows.
fn hall_violated(q: &[u32], rows: &[usize], cols: &[u32]) -> bool {
    if rows.len() > 12 {
        return false;
    }
    (1u32..1 << rows.len()).any(|mask| {
        let chosen: Vec<usize> = (0..rows.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| rows[i])
            .collect();
        let reach = cols
            .iter()
            .filter(|&&c| chosen.iter().any(|&r| free_cell(q, r, c)))
            .count();
        reach < chosen.len()
    })
}

#[test]
fn unknown_when_the_time_limit_runs_out() {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty.nqb");
    write_raw_nqb(&empty, 4_000_000, &vec![0; 4_000_000]);
    let out = d.path().join("out.nqb");
    let (code, stdout, _) = run(&[
        "complete",
        empty.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--time-limit",
        "0.001",
    ]);
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.starts_with("UNKNOWN: time limit of 0.001 s ran out"),
        "{stdout}"
    );
    assert_eq!(listing(d.path()), vec!["empty.nqb"]);
}

/// Limits past what the clock can count to (from about 9.3e18 s) are no limit, as those
/// past what a duration holds are: the board is answered, nothing panics.
#[test]
fn a_time_limit_past_the_clock_is_no_limit() {
    let input = data("grigoryan-n100-k92.txt");
    for t in ["1e19", "9.3e18", "1e30"] {
        let (code, stdout, err) =
            run(&["complete", input.to_str().unwrap(), "--time-limit", t, "-q"]);
        assert_eq!(code, 3, "{t}: {stdout}{err}");
    }
}

#[test]
fn ctrl_c_stops_cleanly_and_leaves_no_file() {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty.nqb");
    write_raw_nqb(&empty, 40_000_000, &vec![0; 40_000_000]);
    let out = d.path().join("out.nqb");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args([
            "complete",
            empty.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let result = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert_eq!(result.status.code(), Some(130), "{stdout}");
    assert!(stdout.starts_with("UNKNOWN: interrupted"), "{stdout}");
    assert_eq!(listing(d.path()), vec!["empty.nqb"]);
}

#[test]
fn output_encoding_follows_the_input_and_results_are_reproducible() {
    let d = tempfile::tempdir().unwrap();
    let sol = d.path().join("sol.nqb.zst");
    let err = nq(&[
        "generate",
        "solution",
        "--random",
        "--n",
        "50000",
        "--seed",
        "9",
        "-o",
        sol.to_str().unwrap(),
    ])
    .ok()
    .stderr;
    assert!(err.contains("seed 9"));
    let comp = d.path().join("comp.nqb.zst");
    run(&[
        "generate",
        "composition",
        "--from",
        sol.to_str().unwrap(),
        "--seed",
        "4",
        "-o",
        comp.to_str().unwrap(),
    ]);
    let mut outputs = Vec::new();
    for (name, threads) in [("a.zst", "1"), ("b.zst", "2"), ("c.zst", "3")] {
        let out = d.path().join(name);
        let o = nqueens()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "complete",
                comp.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--seed",
                "77",
                "-q",
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&o.stdout), "SOLVED\n");
        outputs.push(std::fs::read(&out).unwrap());
        let (_, info, _) = run(&["info", "--json", out.to_str().unwrap()]);
        assert!(info.contains("\"encoding\":\"zstd\""), "{info}");
    }
    assert!(
        outputs.windows(2).all(|w| w[0] == w[1]),
        "same seed, same output whatever the threads"
    );
    let (code, _, _) = run(&[
        "verify",
        "--require-complete",
        "--base",
        comp.to_str().unwrap(),
        d.path().join("a.zst").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    // Text in, text out by default; --encoding overrides.
    let k47 = data("grigoryan-n100-k47.txt");
    let out = d.path().join("k47-solved");
    let (code, _, _) = run(&[
        "complete",
        k47.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 0);
    assert!(std::fs::read_to_string(&out).unwrap().lines().count() == 100);
    let raw = d.path().join("k47.bin");
    run(&[
        "complete",
        k47.to_str().unwrap(),
        "-o",
        raw.to_str().unwrap(),
        "--encoding",
        "raw",
        "-q",
    ]);
    let (_, info, _) = run(&["info", "--json", raw.to_str().unwrap()]);
    assert!(info.contains("\"encoding\":\"raw\""), "{info}");
}

#[test]
fn json_report() {
    let (code, stdout, _) = run(&[
        "complete",
        data("grigoryan-n100-k47.txt").to_str().unwrap(),
        "--json",
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["answer"], "solved");
    assert_eq!(v["seed"], "5", "seeds are strings");
    assert_eq!(v["stats"]["free_rows"], 53);
    assert!(v["stats"]["search_nodes"].as_u64().unwrap() >= 53);
}

/// Output to a named pipe (like `-o /dev/null` or `-o /dev/stdout`) must stream into it;
/// renaming a file over it would replace the pipe or device with a regular file.
#[cfg(unix)]
#[test]
fn output_to_a_pipe_is_streamed_not_renamed_over() {
    use std::os::unix::fs::FileTypeExt;
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let regular = d.path().join("regular.nqb");
    let input = d.path().join("in.nqb");
    let generate = |out: &Path| {
        run(&[
            "generate",
            "solution",
            "--random",
            "--n",
            "1000",
            "--seed",
            "5",
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let (code, _, err) = generate(&regular);
    assert_eq!(code, 0, "{err}");
    let expected = std::fs::read(&regular).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let (code, _, err) = generate(&fifo);
    assert_eq!(code, 0, "{err}");
    // Checked before joining: a pipe renamed over leaves the reader blocked forever.
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(reader.join().unwrap(), expected);

    // `complete` writes NQB through a memory map, which a pipe cannot hold.
    nq(&[
        "generate",
        "composition",
        "--from",
        regular.to_str().unwrap(),
        "--k",
        "400",
        "--seed",
        "2",
        "-o",
        input.to_str().unwrap(),
    ])
    .ok();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let (code, stdout, err) = run(&[
        "complete",
        input.to_str().unwrap(),
        "-o",
        fifo.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let streamed = d.path().join("streamed.nqb");
    std::fs::write(&streamed, reader.join().unwrap()).unwrap();
    let (code, out, _) = run(&[
        "verify",
        "--require-complete",
        "--base",
        input.to_str().unwrap(),
        streamed.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(std::fs::read_dir(d.path()).unwrap().all(|e| {
        !e.unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".partial")
    }));
}

/// `--trace` writes the run sample by sample as CSV and `--plot` draws it as SVG, both
/// published whole; neither may be the input.
#[test]
fn trace_and_plot_of_a_run() {
    let d = tempfile::tempdir().unwrap();
    let p = |f: &str| d.path().join(f).to_str().unwrap().to_string();
    nq(&["generate", "solution", "--n", "200000", "-o", &p("s.nqb")]).ok();
    nq(&[
        "generate",
        "composition",
        "--from",
        &p("s.nqb"),
        "--k",
        "120000",
        "--seed",
        "5",
        "-o",
        &p("c.nqb"),
    ])
    .ok();
    let (code, out, err) = run(&[
        "complete",
        &p("c.nqb"),
        "-o",
        &p("o.nqb"),
        "--seed",
        "1",
        // The construction's queens would be completed from it: the phases are what the
        // trace is about.
        "--no-closed-form",
        "--trace",
        &p("run.csv"),
        "--plot",
        &p("run.svg"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let csv = std::fs::read_to_string(p("run.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("seconds,stage,free_rows,restarts,dead_ends,rows_read,rows_written,conflicts")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 8));
    let stages: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    // Every stage the run went through, however short, in order: the input of 200,000
    // rows is read in a millisecond or two, less than the sampling period.
    let first = |stage: &str| stages.iter().position(|s| *s == stage);
    for stage in ["input", "pairing", "output"] {
        assert!(first(stage).is_some(), "{stage} missing: {stages:?}");
    }
    assert!(
        first("input") < first("pairing") && first("pairing") < first("output"),
        "{stages:?}"
    );
    let seconds: Vec<f64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert!(
        seconds.windows(2).all(|w| w[0] <= w[1]),
        "time runs forward"
    );
    assert!(
        rows.iter().any(|r| r[2] == "80000"),
        "the input's free rows appear"
    );
    assert_eq!(rows.last().unwrap()[2], "0", "solved: no free row left");
    let svg = std::fs::read_to_string(p("run.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("pairing") && svg.contains("free rows"),
        "legend and axis"
    );
    // Neither file may be the input.
    let (code, _, err) = run(&["complete", &p("c.nqb"), "--plot", &p("c.nqb")]);
    assert_eq!(code, 2, "{err}");
    assert!(std::fs::metadata(p("c.nqb")).unwrap().len() > 0);
}

/// Completes `comp` into `out` twice, as it comes and by search alone (`--no-closed-form`:
/// compositions of the closed-form sources would otherwise never reach the search phases
/// here), and checks each answer against `comp`.
fn complete_and_check(comp: &str, out: &str, seed: &str) {
    for extra in [None, Some("--no-closed-form")] {
        let mut args = vec![
            "complete",
            comp,
            "-o",
            out,
            "--seed",
            seed,
            "--time-limit",
            "120",
        ];
        args.extend(extra);
        let (code, stdout, err) = run(&args);
        assert_eq!(code, 0, "{comp} {extra:?}: {stdout}{err}");
        assert!(stdout.starts_with("SOLVED"), "{comp} {extra:?}: {stdout}");
        let (code, v, _) = run(&["verify", "--require-complete", "--base", comp, out]);
        assert_eq!(code, 0, "{comp}: {v}");
        std::fs::remove_file(out).unwrap();
    }
}

/// Every source of `generate solution` with every clearing of `generate composition`,
/// completed by `complete` and checked against its base with `verify`.
#[test]
fn compositions_of_every_origin_are_completed() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let n = "3001"; // prime to 6, so that the linear solution exists
    for source in ["construction", "transposed", "mirrored", "linear", "random"] {
        let sol = p(&format!("{source}.nqb"));
        let mut args = vec![
            "generate", "solution", "--n", n, "--source", source, "-o", &sol,
        ];
        if source == "random" {
            args.extend(["--seed", "5"]);
        }
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{source}: {err}");
        let (code, out, _) = run(&["verify", "--require-complete", &sol]);
        assert_eq!(code, 0, "{source}: {out}");
        for (clear, free) in [
            ("random", "5%"),
            ("block", "0.1"),
            ("stride", "10%"),
            ("columns", "10%"),
            ("diagonals", "300"),
            ("region", "2%"),
        ] {
            let comp = p(&format!("{source}-{clear}.nqb"));
            let (code, _, err) = run(&[
                "generate",
                "composition",
                "--from",
                &sol,
                "--clear",
                clear,
                "--free",
                free,
                "--seed",
                "3",
                "-o",
                &comp,
            ]);
            assert_eq!(code, 0, "{source} {clear}: {err}");
            assert!(err.contains("of 3001 queens"), "{err}");
            let out = p(&format!("{source}-{clear}-done.nqb"));
            complete_and_check(&comp, &out, "1");
        }
    }
}

#[test]
fn structured_clearings_are_where_they_say_and_reproducible() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let sol = constructed(&p("s.nqb"), "1000");
    let err = nq(&[
        "generate",
        "composition",
        "--from",
        &sol,
        "--clear",
        "block",
        "--free",
        "20",
        "--at",
        "101",
        "-o",
        &p("b.txt"),
    ])
    .ok()
    .stderr;
    assert!(
        err.contains("cleared 20 of 1000 queens") && err.contains("rows 101..=120"),
        "{err}"
    );
    let rows = read_rows(Path::new(&p("b.txt")));
    let empty: Vec<usize> = (0..1000).filter(|&i| rows[i] == 0).map(|i| i + 1).collect();
    assert_eq!(empty, (101..=120).collect::<Vec<_>>());
    // The same seed gives the same file; --k and --free do not go together; a part that
    // does not fit is refused with a one-line error.
    for name in ["c1.nqb", "c2.nqb"] {
        nq(&[
            "generate",
            "composition",
            "--from",
            &sol,
            "--clear",
            "diagonals",
            "--direction",
            "d2",
            "--free",
            "3%",
            "--seed",
            "9",
            "-o",
            &p(name),
        ])
        .ok();
    }
    assert_eq!(
        read_rows(Path::new(&p("c1.nqb"))),
        read_rows(Path::new(&p("c2.nqb")))
    );
    let (code, _, _) = run(&[
        "generate",
        "composition",
        "--from",
        &sol,
        "--k",
        "5",
        "--free",
        "2%",
        "-o",
        &p("x"),
    ]);
    assert_eq!(code, 2);
    let (code, _, err) = run(&[
        "generate",
        "composition",
        "--from",
        &sol,
        "--clear",
        "columns",
        "--free",
        "20",
        "--at",
        "990",
        "-o",
        &p("x.nqb"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("990") && err.lines().count() == 1, "{err}");
    assert!(!Path::new(&p("x.nqb")).exists());
    let (code, _, err) = run(&["generate", "solution", "--n", "1002", "--source", "linear"]);
    assert_eq!(code, 2);
    assert!(err.contains("prime to 6"), "{err}");
}

/// The project's own default route (the explicit construction, then a random clearing),
/// which stalled before the repair phase, at n = 1e5 through the binary.
#[test]
fn the_default_route_is_completed_at_1e5() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let sol = constructed(&p("s.nqb"), "100003");
    for (free, seed) in [("2%", "1"), ("3%", "2"), ("0.5%", "3")] {
        let comp = p("c.nqb");
        compose(&sol, &["--free", free, "--seed", seed], &comp);
        let out = p("done.nqb");
        complete_and_check(&comp, &out, seed);
    }
}

/// The search alone on a construction with 0.2 % of its rows cleared at random: pairing
/// leaves rows whose every cell is attacked, and chains of column exchanges place them
/// (the statistics say how many), faster than repair did (0.4-5.4 s at n = 1e6), and the
/// answer does not depend on the thread count.
#[test]
fn chains_place_the_rows_the_search_left() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let sol = constructed(&p("s.nqb"), "100000");
    let comp = p("c.nqb");
    compose(&sol, &["--free", "0.2%", "--seed", "1"], &comp);
    let out = p("o.nqb");
    let (code, stdout, err) = run(&[
        "complete",
        &comp,
        "-o",
        &out,
        "--seed",
        "1",
        "--no-closed-form",
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.starts_with("SOLVED"), "{stdout}");
    let chains = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("chains"))
        .unwrap_or_else(|| panic!("no chains line: {stdout}"));
    assert!(chains.contains("200 queens  moving"), "{chains}");
    let (code, v, _) = run(&["verify", "--require-complete", "--base", &comp, &out]);
    assert_eq!(code, 0, "{v}");
    // The same answer on one thread.
    let one = p("one.nqb");
    let (code, stdout, err) = run(&[
        "--threads",
        "1",
        "complete",
        &comp,
        "-o",
        &one,
        "--seed",
        "1",
        "--no-closed-form",
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert_eq!(read_rows(Path::new(&out)), read_rows(Path::new(&one)));
}

/// Without -o the answer is shown where the user looks: the solution's columns after the
/// answer line, and above 10,000 rows a line saying how to get it.
#[test]
fn without_an_output_the_solution_is_shown() {
    let k47 = data("grigoryan-n100-k47.txt");
    let (code, out, err) = run(&["complete", k47.to_str().unwrap(), "--seed", "1"]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("solution: "))
        .expect("a solution line");
    let dir = tempfile::tempdir().unwrap();
    let shown = dir.path().join("shown.txt");
    std::fs::write(&shown, line.split(' ').collect::<Vec<_>>().join("\n")).unwrap();
    let (code, out, err) = run(&[
        "verify",
        shown.to_str().unwrap(),
        "--require-complete",
        "--base",
        k47.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // -q keeps to the answer line.
    let (_, out, _) = run(&["complete", k47.to_str().unwrap(), "--seed", "1", "-q"]);
    assert_eq!(out.trim(), "SOLVED");
    // Above 10,000 rows: how to get it.
    let big = dir.path().join("big.nqb");
    nq(&[
        "generate",
        "solution",
        "--n",
        "10001",
        "-o",
        big.to_str().unwrap(),
    ])
    .ok();
    let (code, out, err) = run(&["complete", big.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("solution: 10001 rows, more than the 10000 shown here: write it with -o FILE"),
        "{out}"
    );
}

/// The certificate's CNF is written from the residual the engine kept, without a second
/// pass over the input; it is the same file `convert --to cnf` writes from the input.
#[test]
fn a_certificate_cnf_is_the_inputs_cnf() {
    let dir = tempfile::tempdir().unwrap();
    let k92 = data("grigoryan-n100-k92.txt");
    let cert = dir.path().join("c.json");
    let (code, out, err) = run(&[
        "complete",
        k92.to_str().unwrap(),
        "--certificate",
        cert.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 3, "{out}{err}");
    let direct = dir.path().join("direct.cnf");
    nq(&["convert", k92.to_str().unwrap(), direct.to_str().unwrap()]).ok();
    assert_eq!(
        std::fs::read(dir.path().join("c.cnf")).unwrap(),
        std::fs::read(&direct).unwrap()
    );
}

/// A MAT answer's shape is said: one uint32 row vector Q, nothing else copied.
#[test]
fn a_mat_answer_says_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.mat");
    let input = data("mat").join("scipy-double-row-v7.mat");
    let (code, stdout, err) = run(&[
        "complete",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--seed",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("written as Q, a 1 x n double row, like the input's variable\n"),
        "{stdout}"
    );
}

/// The default route (`generate solution`, then `generate composition`) at n = 1e5, through
/// the binary: the given queens lie on the explicit construction, which completes the board
/// (the statistics say so); `--no-closed-form` completes it by search instead. Both answers
/// keep every given queen.
#[test]
fn compositions_of_a_closed_form_are_completed_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (s, c, o) = (p("s.nqb"), p("c.nqb"), p("o.nqb"));
    for source in ["construction", "transposed", "mirrored"] {
        nq(&[
            "generate", "solution", "--n", "100000", "--source", source, "-o", &s, "-q",
        ])
        .ok();
        nq(&[
            "generate",
            "composition",
            "--from",
            &s,
            "--free",
            "0.01",
            "--seed",
            "3",
            "-o",
            &c,
            "-q",
        ])
        .ok();
        for (extra, closed) in [(None, true), (Some("--no-closed-form"), false)] {
            let mut args = vec!["complete", &c, "-o", &o, "--seed", "1"];
            args.extend(extra);
            let (code, out, err) = run(&args);
            assert_eq!(code, 0, "{source} {extra:?}: {out}{err}");
            assert!(out.starts_with("SOLVED"), "{out}");
            assert_eq!(
                out.contains("the given queens lie on the explicit construction"),
                closed,
                "{source} {extra:?}: {out}"
            );
            let (code, v, _) = run(&["verify", "--require-complete", "--base", &c, &o]);
            assert_eq!(code, 0, "{v}");
            std::fs::remove_file(&o).unwrap();
        }
    }
}

/// A solution edited by hand, through the binary: `generate composition --move 3` clears
/// 2 % of the explicit construction's rows at n = 1e5, then moves three given queens to
/// other cells that attack nothing (the same rows as without `--move` otherwise, the same
/// file for the same seed). All but three queens lie on the construction; the rows those
/// three disturb get cells by chains of column exchanges (the statistics say so), and the
/// answer keeps every given queen.
#[test]
fn edited_constructions_are_completed_from_the_construction() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let s = constructed(&p("s.nqb"), "100000");
    let o = p("o.nqb");
    let compose_as = |out: &str, free: &str, moves: &str, seed: &str| {
        compose(&s, &["--free", free, "--move", moves, "--seed", seed], out)
    };
    let compose = |out: &str, moves: &str| compose_as(out, "2%", moves, "4");
    let err = compose(&p("m.nqb"), "3");
    assert!(err.contains("then moved 3 queens (seed 4)"), "{err}");
    compose(&p("m2.nqb"), "3");
    compose(&p("c.nqb"), "0");
    let (m, c) = (
        read_rows(Path::new(&p("m.nqb"))),
        read_rows(Path::new(&p("c.nqb"))),
    );
    assert_eq!(m, read_rows(Path::new(&p("m2.nqb"))), "reproducible");
    let differ: Vec<usize> = (0..m.len()).filter(|&i| m[i] != c[i]).collect();
    assert_eq!(differ.len(), 3, "{differ:?}");
    assert!(differ.iter().all(|&i| m[i] != 0 && c[i] != 0));
    let (code, v, _) = run(&["verify", &p("m.nqb")]);
    assert_eq!(code, 0, "{v}");
    let (code, out, err) = run(&["complete", &p("m.nqb"), "-o", &o, "--seed", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("SOLVED"), "{out}");
    assert!(
        out.contains("all but 3 given queens lie on the explicit construction: completed from it"),
        "{out}"
    );
    // The three rows the moved queens attack get cells by chains of column exchanges.
    assert!(
        out.contains(
            "those attack its queen in 3 free rows, placed by chains of column exchanges moving"
        ),
        "{out}"
    );
    let (code, v, _) = run(&["verify", "--require-complete", "--base", &p("m.nqb"), &o]);
    assert_eq!(code, 0, "{v}");
    // With 30 queens moved, one attacked row of this composition has no chain: it and the
    // rows around it go to the exact search after the chains.
    compose_as(&p("m30.nqb"), "1%", "30", "7");
    let (code, out, err) = run(&["complete", &p("m30.nqb"), "-o", &o, "--seed", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("placed by chains of column exchanges moving")
            && out.contains("the others rerouted with"),
        "{out}"
    );
    let (code, v, _) = run(&["verify", "--require-complete", "--base", &p("m30.nqb"), &o]);
    assert_eq!(code, 0, "{v}");
    // A full board has no free column to move a queen to: the message says how many moved.
    let err = nq(&[
        "generate",
        "composition",
        "--from",
        &s,
        "--k",
        "100000",
        "--move",
        "2",
        "--seed",
        "1",
        "-o",
        &p("full.nqb"),
    ])
    .ok()
    .stderr;
    assert!(err.contains("then moved 0 of the 2 queens asked"), "{err}");
}

/// `--move K` beyond what can move ends as soon as every kept queen was tried, saying how
/// many moved (a K of 2^64 - 1 once looped for hours).
#[test]
fn more_moves_than_queens_end_at_once() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let sol = constructed(&p("s.txt"), "8");
    let started = std::time::Instant::now();
    let err = compose(
        &sol,
        &["--seed", "1", "--move", "18446744073709551615"],
        &p("c.txt"),
    );
    assert!(started.elapsed().as_secs() < 20, "{err}");
    assert!(
        err.contains("queens asked (no other row had a cell"),
        "{err}"
    );
    nq(&["verify", &p("c.txt")]).ok();
}

/// Several inputs in one call: answered in the order given, each into a directory or a
/// pattern, the exit code the worst of theirs; an unreadable input is reported and the
/// others still completed; outputs that would collide, or one file for several inputs,
/// are refused before any work.
#[test]
fn several_inputs_are_completed_in_order_into_a_directory_or_a_pattern() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let mut inputs = Vec::new();
    for i in 1..=3 {
        let sol = constructed(&p(&format!("s{i}.txt")), &(40 + i).to_string());
        compose(&sol, &["--seed", &i.to_string()], &p(&format!("c{i}.txt")));
        inputs.push(p(&format!("c{i}.txt")));
    }
    let infeasible = data("grigoryan-n100-k92.txt");
    let infeasible = infeasible.to_str().unwrap();
    std::fs::create_dir(p("out")).unwrap();
    let out_dir = p("out");
    let mut args = vec!["complete", &inputs[0], infeasible, &inputs[1], &inputs[2]];
    args.extend(["-o", &out_dir, "--seed", "1", "-q"]);
    let out = nq(&args).code(3);
    let headers: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("==> "))
        .collect();
    assert_eq!(headers.len(), 4, "{}", out.stdout);
    assert!(headers[1].contains("grigoryan-n100-k92.txt"), "{headers:?}");
    assert_eq!(
        listing(Path::new(&p("out"))),
        ["c1.txt", "c2.txt", "c3.txt"]
    );
    for i in 1..=3 {
        let (c, o) = (p(&format!("c{i}.txt")), p(&format!("out/c{i}.txt")));
        nq(&["verify", "--require-complete", "--base", &c, &o]).ok();
    }
    // A pattern, with --json: one record per input, in order; the answers are .npy.
    let pattern = p("{stem}-solved.npy");
    let out = nq(&["complete", &inputs[0], &inputs[1], "-o", &pattern, "--json"]).ok();
    let records: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["input"], inputs[0].as_str());
    assert_eq!(records[1]["output"], p("c2-solved.npy").as_str());
    nq(&[
        "verify",
        "--require-complete",
        "--base",
        &inputs[1],
        &p("c2-solved.npy"),
    ])
    .ok();
    // An unreadable input: reported, the others completed, exit 2.
    let missing = p("missing.txt");
    let out = nq(&["complete", &inputs[0], &missing, &inputs[1], "-q"]).code(2);
    assert_eq!(out.stdout.matches("SOLVED").count(), 2, "{}", out.stdout);
    assert!(out.stderr.contains("missing.txt"), "{}", out.stderr);
    // Refused before any work: one file for several inputs, a certificate without a
    // pattern, two inputs of one name into one directory, an output that is an input.
    std::fs::create_dir(p("other")).unwrap();
    std::fs::copy(&inputs[0], p("other/c1.txt")).unwrap();
    for (args, why) in [
        (
            vec![&inputs[0], &inputs[1], "-o", &p("one.txt")],
            "several inputs",
        ),
        (
            vec![&inputs[0], &inputs[1], "--certificate", &p("why.json")],
            "several inputs",
        ),
        (
            vec![&inputs[0], &p("other/c1.txt"), "-o", &p("out")],
            "same file",
        ),
        (vec![&inputs[0], &inputs[1], "-o", &p("{name}")], "input"),
    ] {
        let mut all = vec!["complete"];
        all.extend(args.iter().map(|s| &s[..]));
        let before = listing(d.path());
        let out = nq(&all).code(2);
        assert!(out.stderr.contains(why), "{all:?}: {}", out.stderr);
        assert_eq!(listing(d.path()), before, "{all:?}");
    }
}

/// With --json, standard output holds records only: an invalid input (alone, or among
/// others) is one line on standard error.
#[test]
fn json_output_stays_records_when_an_input_is_invalid() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    std::fs::write(p("bad.txt"), "1\n1\n0\n0\n").unwrap();
    std::fs::write(p("ok.txt"), "2\n0\n0\n0\n0\n0\n0\n0\n").unwrap();
    let out = nq(&["complete", &p("bad.txt"), "--json"]).code(1);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.contains("share a column"), "{}", out.stderr);
    let out = nq(&["complete", &p("ok.txt"), &p("bad.txt"), "--json", "-q"]).code(1);
    for line in out.stdout.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
}

/// A block of rows cleared from the explicit construction with one given queen moved: the
/// residual is tight, and one order's exact search either solves it within thousands of
/// nodes or wanders for billions (each of these was UNKNOWN after 20 s and more before the
/// search restarted in other orders). One case per route the restarts serve: the exact
/// search of few free rows (60), the randomized route's exact turns (70), the closed-form
/// phase's reroutes (150 of n = 500). Each is SOLVED with restarts counted, verified against
/// its base, and the same file on one thread as on every core.
#[test]
fn tight_blocks_with_a_moved_queen_are_solved_by_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (n, free, seed) in [("200", "60", "3"), ("200", "70", "1"), ("500", "150", "3")] {
        let s = constructed(&p(&format!("s{n}.nqb")), n);
        let c = p(&format!("c{n}-{free}.nqb"));
        compose(
            &s,
            &[
                "--clear", "block", "--free", free, "--move", "1", "--seed", seed,
            ],
            &c,
        );
        let mut outputs = Vec::new();
        for threads in ["1", "0"] {
            let o = p(&format!("o{n}-{free}-{threads}.nqb"));
            let (code, out, err) = run(&[
                "complete",
                &c,
                "-o",
                &o,
                "--seed",
                "2",
                "--time-limit",
                "60",
                "--json",
                "--threads",
                threads,
            ]);
            assert_eq!(code, 0, "n {n} free {free}: {out}{err}");
            let j: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(j["answer"], "solved", "{out}");
            assert!(j["stats"]["exact_restarts"].as_u64().unwrap() > 0, "{out}");
            let (code, v, _) = run(&["verify", "--require-complete", "--base", &c, &o]);
            assert_eq!(code, 0, "{v}");
            outputs.push(std::fs::read(&o).unwrap());
        }
        assert_eq!(
            outputs[0], outputs[1],
            "n {n} free {free}: thread counts differ"
        );
    }
}

/// An output the answer has nothing for is not written, and where a file from an earlier
/// run is at its path, the run says so on standard error and leaves it as it was: a
/// solution left at `-o` by an INFEASIBLE or UNKNOWN answer, a certificate left at
/// `--certificate` by a SOLVED one, a placement left at `count --first -o` when none
/// exists. Where no file is there, nothing is said and nothing is made.
#[test]
fn an_output_the_answer_has_none_for_is_left_and_said_so() {
    let d = tempfile::tempdir().unwrap();
    let infeasible = data("grigoryan-n100-k92.txt");
    let solvable = data("grigoryan-n100-k47.txt");
    let (inf, sol) = (infeasible.to_str().unwrap(), solvable.to_str().unwrap());
    // Undecided for minutes (BENCHMARKS.md: n 29 d 28 seed 4).
    let hard = d.path().join("e29.param");
    let hard = hard.to_str().unwrap();
    let generated = [
        "generate", "excluded", "--n", "29", "--diags", "28", "--seed", "4",
    ];
    assert_eq!(run(&[&generated[..], &["-o", hard]].concat()).0, 0);
    let cases: [(&[&str], &str, i32, &str); 4] = [
        (
            &["complete", inf, "-o"],
            "out.txt",
            3,
            "the answer is INFEASIBLE",
        ),
        (
            &["complete", sol, "--certificate"],
            "c.json",
            0,
            "the answer is SOLVED",
        ),
        (
            &["complete", hard, "--time-limit", "0.2", "-o"],
            "out.txt",
            4,
            "the answer is UNKNOWN",
        ),
        (
            &["count", "3", "--first", "-o"],
            "out.txt",
            3,
            "no placement exists",
        ),
    ];
    for (args, name, code, why) in cases {
        let path = d.path().join(name);
        let path_arg = path.to_str().unwrap();
        let args: Vec<&str> = args.iter().copied().chain([path_arg, "-q"]).collect();
        let (got, _, err) = run(&args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}: nothing there, nothing said");
        assert!(!path.exists(), "{args:?}: nothing made");
        std::fs::write(&path, "from before\n").unwrap();
        let (got, _, err) = run(&args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert_eq!(
            err,
            format!("nqueens: {path_arg}: not written ({why}); the file there is from before\n"),
            "{args:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "from before\n");
        std::fs::remove_file(&path).unwrap();
    }
}
