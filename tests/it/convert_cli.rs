//! `nqueens convert` and MAT input through the binary, on fixtures from real writers
//! (tools/make_mat_fixtures.py: scipy.io.savemat, hand-built big-endian and broken files).

use crate::common::{data, listing, nq, run};

fn rows_of(path: &std::path::Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect()
}

#[test]
fn every_mat_fixture_reads_as_expected() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for name in listing(&data("mat")) {
        let Some(stem) = name.strip_suffix(".expected.txt") else {
            continue;
        };
        let mat = data("mat").join(format!("{stem}.mat"));
        let out = dir.path().join(format!("{stem}.txt"));
        let var: &[&str] = if stem == "scipy-named-var" {
            &["--var", "sol"]
        } else if stem.ends_with("-named") {
            &["--var", "Q"]
        } else {
            &[]
        };
        let mut args = vec!["convert", mat.to_str().unwrap(), out.to_str().unwrap()];
        args.extend(var);
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{stem}: {err}");
        assert_eq!(rows_of(&out), rows_of(&data("mat").join(&name)), "{stem}");
        seen += 1;
    }
    assert!(seen >= 17, "only {seen} fixtures");
}

#[test]
fn mat_files_are_accepted_by_every_reader() {
    let k47 = data("mat").join("scipy-double-row-v7.mat");
    let (code, out, _) = run(&["verify", k47.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("VALID COMPOSITION (47 of 100)"), "{out}");
    let (code, out, _) = run(&["info", k47.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("MAT v5"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let solved = dir.path().join("solved.mat");
    nq(&[
        "complete",
        k47.to_str().unwrap(),
        "-o",
        solved.to_str().unwrap(),
        "--quiet",
    ])
    .ok();
    let base = data("grigoryan-n100-k47.txt");
    let (code, out, _) = run(&[
        "verify",
        "--require-complete",
        "--base",
        base.to_str().unwrap(),
        solved.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn round_trips_through_every_output_format() {
    let dir = tempfile::tempdir().unwrap();
    let src = data("grigoryan-n100-k80.txt");
    let mut prev = src.clone();
    for (name, extra) in [
        ("a.mat", vec![]),
        ("b.bin", vec!["--to", "mat-v6"]),
        ("c.nqb", vec![]),
        ("d.zst", vec![]),
        ("e.out", vec!["--to", "nqb", "--encoding", "zstd"]),
        ("f.txt", vec![]),
    ] {
        let out = dir.path().join(name);
        let mut args = vec!["convert", prev.to_str().unwrap(), out.to_str().unwrap()];
        args.extend(extra);
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{name}: {err}");
        prev = out;
    }
    assert_eq!(rows_of(&prev), rows_of(&src));
    // Whether the MAT outputs are what MATLAB readers expect is checked with scipy by
    // tools/check_mat_clients.py; here our own reader reads them back.
    let (code, out, _) = run(&["info", dir.path().join("b.bin").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("MAT v5"));
}

#[test]
fn bad_mat_files_get_one_line_errors() {
    for (name, needle) in [
        ("truncated-header", "truncated header: 100 of 128 bytes"),
        ("lying-size", "element at offset 128 claims 10000000 bytes"),
        (
            "corrupt-zlib",
            "corrupt zlib stream in the element at offset 128",
        ),
        ("char", "variable Q is a char array"),
        ("matrix-2d", "variable Q is a 3x4 matrix"),
        ("complex", "variable Q is complex"),
        ("negative", "Q(2) = -2 is negative"),
        ("fraction", "Q(2) = 2.5 is not an integer"),
        ("nan", "Q(2) is NaN"),
        (
            "two-vectors",
            "2 variables could be the board, name one with --var; the file holds: A (double, 1x2), B (double, 1x2)",
        ),
        ("v73-truncated", "v7.3: HDF5 format error: unexpected EOF"),
        ("v73-char", "v7.3: variable Q is a char array"),
        ("v73-logical", "v7.3: variable Q is a logical array"),
        ("v73-2d", "v7.3: variable Q is a 3x4 matrix"),
        ("v73-complex", "v7.3: variable Q has element type compound"),
        ("v73-negative", "v7.3: Q(2) = -2 is negative"),
        ("v73-fraction", "v7.3: Q(2) = 2.5 is not an integer"),
        (
            "v73-col-corrupt",
            "v7.3: Q: reading elements 1..: the chunk holding element 17: deflate: corrupt zlib stream or checksum mismatch",
        ),
        (
            "v73-two-vectors",
            "2 variables could be the board, name one with --var; the file holds: A (double, 1x2), B (double, 1x2)",
        ),
    ] {
        let path = data("mat").join(format!("bad-{name}.mat"));
        let before = std::fs::read(&path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.nqb");
        let (code, stdout, err) = run(&["convert", path.to_str().unwrap(), out.to_str().unwrap()]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{name}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(
            err.contains(path.to_str().unwrap()) && err.contains(needle),
            "{name}: {err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(
            listing(dir.path()).is_empty(),
            "{name}: partial output left"
        );
    }
    let two = data("mat").join("bad-two-vectors.mat");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.txt");
    nq(&[
        "convert",
        two.to_str().unwrap(),
        out.to_str().unwrap(),
        "--var",
        "B",
    ])
    .ok();
    assert_eq!(rows_of(&out), vec![0, 1]);
    let (code, _, err) = run(&[
        "convert",
        two.to_str().unwrap(),
        out.to_str().unwrap(),
        "--var",
        "C",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no variable named C; the file holds: A (double, 1x2), B (double, 1x2)"),
        "{err}"
    );
}

/// A value above n is one condition with one exit code whatever the format: the file is
/// read, `verify` calls it INVALID (1), and `convert` refuses to write it (1), for MAT v5,
/// MAT v7.3, NQB and text alike.
#[test]
fn a_value_above_n_is_invalid_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let nqb = dir.path().join("big.nqb");
    crate::common::write_raw_nqb(&nqb, 3, &[1, 9, 0]);
    let txt = dir.path().join("big.txt");
    std::fs::write(&txt, "1\n9\n0\n").unwrap();
    for input in [
        data("mat").join("bad-too-large.mat"),
        data("mat").join("bad-v73-too-large.mat"),
        nqb,
        txt,
    ] {
        let input = input.to_str().unwrap();
        let (code, out, err) = run(&["verify", input]);
        assert_eq!(code, 1, "{input}: {out}{err}");
        assert!(
            out.contains("INVALID") && out.contains("row 2: value 9"),
            "{out}"
        );
        for ext in ["nqb", "txt", "mat", "param", "zst"] {
            let dest = dir.path().join(format!("out.{ext}"));
            let (code, _, err) = run(&["convert", input, dest.to_str().unwrap()]);
            assert_eq!(code, 1, "{input} -> {ext}: {err}");
            assert!(
                err.contains("row 2: column 9 is off the 3 x 3 board") && err.lines().count() == 1,
                "{err}"
            );
            assert!(!dest.exists(), "{input} -> {ext}: output written");
        }
    }
}

#[test]
fn mat_v73_round_trips_and_is_chosen_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let k47 = data("grigoryan-n100-k47.txt");
    let v73 = dir.path().join("k47.mat");
    nq(&[
        "convert",
        k47.to_str().unwrap(),
        v73.to_str().unwrap(),
        "--to",
        "mat-v73",
    ])
    .ok();
    let head = std::fs::read(&v73).unwrap();
    assert!(head.starts_with(b"MATLAB 7.3 MAT-file"));
    assert_eq!(
        &head[512..520],
        b"\x89HDF\r\n\x1a\n",
        "HDF5 after the 512-byte user block"
    );
    let (code, out, _) = run(&["info", v73.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("MAT v7.3"), "{out}");
    // complete keeps the v7.3 format, and the solution keeps the input's queens.
    let solved = dir.path().join("solved.mat");
    nq(&[
        "complete",
        v73.to_str().unwrap(),
        "-o",
        solved.to_str().unwrap(),
        "--quiet",
    ])
    .ok();
    assert!(
        std::fs::read(&solved)
            .unwrap()
            .starts_with(b"MATLAB 7.3 MAT-file")
    );
    let (code, out, _) = run(&[
        "verify",
        "--require-complete",
        "--base",
        k47.to_str().unwrap(),
        solved.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    let back = dir.path().join("back.txt");
    assert_eq!(
        run(&["convert", v73.to_str().unwrap(), back.to_str().unwrap()]).0,
        0
    );
    assert_eq!(rows_of(&back), rows_of(&k47));
}

/// A random solution of a million rows through MAT v7 and back: the compressed variable is
/// inflated and checked in several steps, and comes back byte for byte.
#[test]
fn large_mat_v7_round_trips_in_steps() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    nq(&[
        "generate",
        "solution",
        "--random",
        "--n",
        "1000000",
        "--seed",
        "4",
        "-o",
        &path("s.nqb"),
    ])
    .ok();
    for (out, to) in [("s.mat", "mat"), ("s6.mat", "mat-v6")] {
        nq(&["convert", &path("s.nqb"), &path(out), "--to", to]).ok();
        let back = path(&format!("{out}.nqb"));
        nq(&["convert", &path(out), &back]).ok();
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(path("s.nqb")).unwrap(),
            "{to}"
        );
    }
}

/// A `.mat` (v7) is never larger than the rows it holds, compresses a constructed solution
/// about 3x (as Octave's own `save -v7` does) and a random one by a fifth; the v7.3 header
/// names nqueens.
#[test]
fn mat_outputs_are_right_sized_and_name_their_writer() {
    let d = tempfile::tempdir().unwrap();
    let n = 100_000u64;
    // The rows of any file, through a text copy.
    let rows = |p: &std::path::Path| {
        let txt = p.with_extension("rows.txt");
        nq(&["convert", p.to_str().unwrap(), txt.to_str().unwrap()]).ok();
        let r = rows_of(&txt);
        std::fs::remove_file(&txt).unwrap();
        r
    };
    for (name, random, most) in [("c", false, 0.35), ("r", true, 0.85)] {
        let nqb = d.path().join(format!("{name}.nqb"));
        let mut args = vec!["generate", "solution", "--n", "100000", "-o"];
        args.push(nqb.to_str().unwrap());
        if random {
            args.extend(["--random", "--seed", "4"]);
        }
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let mat = d.path().join(format!("{name}.mat"));
        nq(&["convert", nqb.to_str().unwrap(), mat.to_str().unwrap()]).ok();
        let size = std::fs::metadata(&mat).unwrap().len() as f64;
        assert!(
            size < most * (4 * n) as f64,
            "{name}: {size} bytes for {} raw",
            4 * n
        );
        assert_eq!(rows(&mat), rows(&nqb));
    }
    let v73 = d.path().join("q73.mat");
    nq(&[
        "convert",
        d.path().join("c.nqb").to_str().unwrap(),
        v73.to_str().unwrap(),
        "--to",
        "mat-v73",
    ])
    .ok();
    let head = std::fs::read(&v73).unwrap();
    let text = String::from_utf8_lossy(&head[..116]);
    assert!(text.starts_with("MATLAB 7.3 MAT-file"), "{text}");
    assert!(
        text.contains(&format!("nqueens {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert_eq!(rows(&v73), rows(&d.path().join("c.nqb")));
}

/// Two queens that attack each other make a file no composition: every command that needs
/// one says so in one line with the conflict and exits 1, as `verify` does, writing nothing.
#[test]
fn attacking_queens_are_invalid_for_every_command_that_needs_a_composition() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("attack.txt");
    std::fs::write(&input, "1\n2\n0\n0\n0\n").unwrap();
    let input = input.to_str().unwrap();
    let cnf = dir.path().join("out.cnf");
    let part = dir.path().join("part.txt");
    let solved = dir.path().join("solved.txt");
    for (args, dest) in [
        (vec!["convert", input, cnf.to_str().unwrap()], &cnf),
        (
            vec!["generate", "composition", "--from", input, "--k", "1", "-o"],
            &part,
        ),
        (vec!["complete", input, "-o"], &solved),
    ] {
        let mut args = args.clone();
        if args.last() == Some(&"-o") {
            args.push(dest.to_str().unwrap());
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(!dest.exists(), "{args:?}: output written");
        let said = format!("{out}{err}");
        assert!(said.contains("rows 1 and 2 share"), "{args:?}: {said}");
        if args[0] != "complete" {
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        }
    }
}

/// A SAT solver's UNSATISFIABLE is its claim: `convert --model` has no model to convert
/// (exit 1) and does not pass it on as an INFEASIBLE of its own (exit 3), here on an empty
/// 6-board, which has four solutions.
#[test]
fn an_unsatisfiable_model_is_no_model_and_no_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("empty6.txt");
    std::fs::write(&base, "0\n0\n0\n0\n0\n0\n").unwrap();
    let model = dir.path().join("model.txt");
    std::fs::write(&model, "s UNSATISFIABLE\n").unwrap();
    let out = dir.path().join("out.txt");
    let (code, stdout, err) = run(&[
        "convert",
        "--model",
        model.to_str().unwrap(),
        "--base",
        base.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!((code, stdout.as_str()), (1, ""), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not checked here"), "{err}");
    assert!(!out.exists());
}
