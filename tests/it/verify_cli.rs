//! `verify`, `info` and `generate` end to end on real files.

use crate::common::*;

#[test]
fn reference_examples() {
    let files: Vec<String> = [
        "grigoryan-n100-k47.txt",
        "grigoryan-n100-k47-solution.txt",
        "grigoryan-n100-k80.txt",
        "grigoryan-n100-k80-solution.txt",
        "grigoryan-n100-k92.txt",
    ]
    .iter()
    .map(|f| data(f).display().to_string())
    .collect();
    let args: Vec<&str> = ["verify"]
        .into_iter()
        .chain(files.iter().map(|s| s.as_str()))
        .collect();
    let (code, out, _) = run(&args);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("VALID COMPOSITION (47 of 100)"));
    assert!(lines[1].ends_with("VALID SOLUTION (n = 100)"));
    assert!(lines[2].ends_with("VALID COMPOSITION (80 of 100)"));
    assert!(lines[4].ends_with("VALID COMPOSITION (92 of 100)"));
    // The author's completions keep every queen of their compositions.
    for (sol, base) in [(1, 0), (3, 2)] {
        let (code, out, _) = run(&[
            "verify",
            &files[sol],
            "--base",
            &files[base],
            "--require-complete",
        ]);
        assert_eq!(code, 0, "{out}");
    }
    // ...and not those of the other composition.
    let (code, out, _) = run(&["verify", &files[1], "--base", &files[2]]);
    assert_eq!(code, 1);
    assert!(out.contains("base queens not kept") && out.contains("the base has a queen in column"));
}

#[test]
fn invalid_file_names_conflicts_and_out_of_range() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bad.nqb");
    // Checked by hand: (1,2)-(3,2) column; (1,2)-(4,5) and (3,2)-(5,4) D1 (j - i equal);
    // (4,5)-(5,4) D2 (i + j = 9); row 6 holds 9 > n.
    write_raw_nqb(&p, 8, &[2, 0, 2, 5, 4, 9, 0, 0]);
    let (code, out, _) = run(&["verify", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    let expected = "INVALID (4 conflicts, 1 value out of range; n = 8, k = 5)
  rows 1 and 3 share a column: row 1 column 2, row 3 column 2
  rows 1 and 4 share a D1 diagonal: row 1 column 2, row 4 column 5
  rows 3 and 5 share a D1 diagonal: row 3 column 2, row 5 column 4
  rows 4 and 5 share a D2 diagonal: row 4 column 5, row 5 column 4
  row 6: value 9 is not a column in 1..=8
";
    assert_eq!(out, format!("{}: {expected}", p.display()));
    let (code, out, _) = run(&["verify", "--json", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["status"], "invalid");
    assert_eq!(v["conflicts"][0]["kind"], "column");
    assert_eq!(v["conflicts"][0]["first"], serde_json::json!([1, 2]));
    assert_eq!(v["conflicts"][3]["kind"], "d2");
    assert_eq!(v["conflict_count"], 4);
    assert_eq!(v["out_of_range"][0]["value"], 9);
}

#[test]
fn batch_exit_code_is_the_worst() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.txt");
    std::fs::write(&bad, "1\n2\n").unwrap();
    let ok = data("grigoryan-n100-k47.txt");
    let missing = d.path().join("missing.nqb");
    let (code, out, err) = run(&["verify", ok.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        out.lines().filter(|l| !l.starts_with("  ")).count(),
        3,
        "a line per file and the summary: {out}{err}"
    );
    assert!(
        out.ends_with("2 files: 1 valid, 1 invalid, 0 unreadable\n"),
        "{out}"
    );
    let (code, out, err) = run(&[
        "verify",
        "--json",
        ok.to_str().unwrap(),
        missing.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert_eq!(out.lines().count(), 3);
    assert!(out.lines().nth(1).unwrap().contains("\"status\":\"error\""));
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn generated_solutions_verify_in_every_encoding() {
    let d = tempfile::tempdir().unwrap();
    // 2.5 frames of rows, so the compressed file has a short last frame.
    let n = "2621441";
    let mut files = Vec::new();
    for name in ["s.nqb", "s.nqb.zst", "s.txt"] {
        let p = d.path().join(name);
        nq(&["generate", "solution", "--n", n, "-o", p.to_str().unwrap()]).ok();
        files.push(p.display().to_string());
    }
    let mut args = vec!["verify", "--require-complete"];
    args.extend(files.iter().map(|s| s.as_str()));
    let (code, out, _) = run(&args);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("VALID SOLUTION (n = 2621441)").count(), 3);
    let (code, out, _) = run(&["info", "--json", &files[1]]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["encoding"], "zstd");
    assert_eq!(v["frames"], 3);
    assert_eq!(v["checksum_status"], "ok");
    assert_eq!(v["k"], 2621441);
}

#[test]
fn small_and_impossible_boards() {
    let (code, out, _) = run(&["generate", "solution", "--n", "1"]);
    assert_eq!((code, out.as_str()), (0, "1\n"));
    for n in ["2", "3"] {
        let (code, _, err) = run(&["generate", "solution", "--n", n]);
        assert_eq!(code, 2);
        assert_eq!(err, format!("nqueens: no solution exists for n = {n}\n"));
    }
    for n in 4..=40 {
        let (code, out, _) = run(&["generate", "solution", "--n", &n.to_string()]);
        assert_eq!(code, 0);
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.txt");
        std::fs::write(&p, out).unwrap();
        let (code, out, _) = run(&["verify", p.to_str().unwrap()]);
        assert_eq!(code, 0, "n = {n}: {out}");
    }
}

#[test]
fn compositions_are_reproducible_and_keep_their_queens() {
    let d = tempfile::tempdir().unwrap();
    let sol = d.path().join("s.nqb.zst");
    run(&[
        "generate",
        "solution",
        "--n",
        "300000",
        "-o",
        sol.to_str().unwrap(),
    ]);
    let a = d.path().join("a.nqb");
    let b = d.path().join("b.nqb");
    let c = d.path().join("c.nqb");
    for (out, seed) in [(&a, "5"), (&b, "5"), (&c, "6")] {
        let err = nq(&[
            "generate",
            "composition",
            "--from",
            sol.to_str().unwrap(),
            "--seed",
            seed,
            "-o",
            out.to_str().unwrap(),
        ])
        .ok()
        .stderr;
        assert!(err.contains(&format!("(seed {seed})")), "{err}");
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
    // The solution keeps every queen of the composition; the composition is not complete.
    let (code, _, _) = run(&[
        "verify",
        sol.to_str().unwrap(),
        "--base",
        a.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let (code, out, _) = run(&["verify", a.to_str().unwrap(), "--require-complete"]);
    assert_eq!(code, 1);
    assert!(out.contains("INCOMPLETE"));
    // An exact K.
    let (code, _, _) = run(&[
        "generate",
        "composition",
        "--from",
        sol.to_str().unwrap(),
        "--k",
        "1234",
        "--seed",
        "1",
        "-o",
        c.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let (_, out, _) = run(&["info", "--json", c.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["k"], 1234);
}

#[test]
fn zstd_cli_gives_back_the_raw_file() {
    let d = tempfile::tempdir().unwrap();
    let raw = d.path().join("s.nqb");
    let zst = d.path().join("s.nqb.zst");
    for p in [&raw, &zst] {
        run(&[
            "generate",
            "solution",
            "--n",
            "1500000",
            "-o",
            p.to_str().unwrap(),
        ]);
    }
    let back = d.path().join("back.nqb");
    let status = std::process::Command::new("zstd")
        .args([
            "-q",
            "-d",
            zst.to_str().unwrap(),
            "-o",
            back.to_str().unwrap(),
        ])
        .status()
        .expect("the zstd command line tool (installed by .ci/run)");
    assert!(status.success());
    assert_eq!(std::fs::read(&raw).unwrap(), std::fs::read(&back).unwrap());
}

/// A board of over 4 million rows with a conflict, an empty row and a value off the board:
/// the counts and the first conflict are those a plain count finds.
#[test]
fn a_large_board_reports_its_conflicts_exactly() {
    let d = tempfile::tempdir().unwrap();
    let n: u64 = (1 << 22) + 1000;
    let good = d.path().join("s.nqb");
    nq(&[
        "generate",
        "solution",
        "--n",
        &n.to_string(),
        "-o",
        good.to_str().unwrap(),
    ])
    .ok();
    let (code, out, _) = run(&[
        "verify",
        "--require-complete",
        "--json",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["conflict_count"], 0);
    assert_eq!(v["k"], n);

    // Row 11 takes row 10's column; row 4000000 is emptied; row 3000000 gets a value off the board.
    let bytes = std::fs::read(&good).unwrap();
    let mut rows: Vec<u32> = bytes[64..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    rows[10] = rows[9];
    rows[3_999_999] = 0;
    rows[2_999_999] = (n + 7) as u32;
    let bad = d.path().join("bad.nqb");
    write_raw_nqb(&bad, n, &rows);
    let (code, out, _) = run(&["verify", "--json", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["k"], n - 1);
    assert_eq!(v["out_of_range_count"], 1);
    assert_eq!(v["out_of_range"][0]["row"], 3_000_000);
    let first = &v["conflicts"][0];
    assert_eq!(first["kind"], "column");
    assert_eq!(first["first"][0], 10);
    assert_eq!(first["second"][0], 11);
    // The count is Σ over lines of (queens on it - 1), counted here the obvious way.
    let (mut col, mut d1, mut d2) = (
        vec![false; n as usize + 1],
        vec![false; 2 * n as usize + 1],
        vec![false; 2 * n as usize + 1],
    );
    let mut taken = 0u64;
    for (i, &c) in rows.iter().enumerate() {
        let (r, c) = (i as u64 + 1, c as u64);
        if c == 0 || c > n {
            continue;
        }
        for (seen, at) in [(&mut col, c), (&mut d1, n + c - r), (&mut d2, r + c)] {
            taken += seen[at as usize] as u64;
            seen[at as usize] = true;
        }
    }
    assert_eq!(v["conflict_count"], taken);
}

#[test]
fn info_describes_every_file_and_exits_with_the_worst() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.nqb");
    write_raw_nqb(&a, 4, &[2, 4, 1, 3]);
    let b = data("grigoryan-n100-k47.txt");
    let missing = d.path().join("missing.nqb");
    let (code, out, err) = run(&[
        "info",
        "--json",
        a.to_str().unwrap(),
        missing.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    let files: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["file"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(files, [a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing.nqb"), "{err}");
    let (code, _, _) = run(&["info", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 0);
}
