//! NumPy `.npy` files through the binary: NumPy's own files of every dtype and shape read
//! (tools/make_npy_fixtures.py), bad ones refused in one line, and `.npy` written by
//! convert, generate and complete read back.

use crate::common::{constructed, data, nq, run};
use std::path::Path;

fn npy(name: &str) -> String {
    data("npy").join(name).to_str().unwrap().to_string()
}

#[test]
fn numpy_files_of_every_dtype_and_shape_read_as_the_same_board() {
    for name in [
        "u4.npy",
        "i8-column.npy",
        "f8-row.npy",
        "be-i4.npy",
        "u1.npy",
        "f4-fortran.npy",
    ] {
        let (code, out, err) = run(&["verify", &npy(name)]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("VALID SOLUTION (n = 8)"), "{name}: {out}");
        let (code, out, _) = run(&["convert", &npy(name), "-"]);
        assert_eq!(code, 0);
        assert_eq!(
            out.split_whitespace().collect::<Vec<_>>(),
            ["1", "5", "8", "6", "3", "7", "2", "4"]
        );
    }
    let (code, out, _) = run(&["verify", &npy("composition-u2.npy")]);
    assert_eq!(code, 0);
    assert!(out.contains("VALID COMPOSITION (4 of 8)"), "{out}");
    let (_, out, _) = run(&["info", &npy("be-i4.npy")]);
    assert!(out.contains("NumPy .npy >i4"), "{out}");
}

#[test]
fn bad_numpy_files_get_one_line_errors() {
    for (name, needle) in [
        ("bad-matrix.npy", "shape [2, 8], expected a vector"),
        ("bad-fraction.npy", "row 2: value 5.5 is not an integer"),
        ("bad-negative.npy", "row 2: value -5 is negative"),
        (
            "bad-bool.npy",
            "dtype |b1 is bool: a logical array, expected a numeric vector",
        ),
        ("bad-empty.npy", "no values"),
        ("bad-truncated.npy", "but n = 8 needs 32"),
    ] {
        let (code, out, err) = run(&["verify", &npy(name)]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(name) && err.contains(needle), "{name}: {err}");
    }
}

/// A header whose text holds control bytes (an escape, a vertical tab) is quoted with
/// them escaped: one line, and nothing a terminal would act on.
#[test]
fn control_bytes_of_a_damaged_header_are_escaped() {
    let d = tempfile::tempdir().unwrap();
    let good = d.path().join("s.npy");
    let (code, _, err) = run(&[
        "generate",
        "solution",
        "--n",
        "8",
        "-o",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let mut bytes = std::fs::read(&good).unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let colon = text.find("'fortran_order'").unwrap() + "'fortran_order'".len();
    bytes[colon] = 0x0b;
    let shape = text.find("'shape'").unwrap();
    bytes[shape - 1] = 0x1b;
    let bad = d.path().join("bad.npy");
    std::fs::write(&bad, &bytes).unwrap();
    let (code, _, err) = run(&["info", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{b}'), "{err:?}");
    assert!(err.contains("\\u{1b}"), "{err:?}");
}

#[test]
fn npy_outputs_round_trip_through_convert_generate_and_complete() {
    let d = tempfile::tempdir().unwrap();
    let p = |f: &str| d.path().join(f).to_str().unwrap().to_string();
    nq(&["generate", "solution", "--n", "5000", "-o", &p("s.npy")]).ok();
    let bytes = std::fs::read(p("s.npy")).unwrap();
    assert!(bytes.starts_with(b"\x93NUMPY\x01\x00"));
    assert!(
        String::from_utf8_lossy(&bytes[..128]).contains("'descr': '<u4'"),
        "{:?}",
        &bytes[..128]
    );
    assert_eq!(
        bytes.len(),
        128 + 4 * 5000,
        "a 128-byte header, then the rows"
    );
    let (code, out, _) = run(&["verify", &p("s.npy")]);
    assert_eq!(code, 0);
    assert!(out.contains("VALID SOLUTION (n = 5000)"));
    // convert both ways keeps the rows.
    run(&["convert", &p("s.npy"), &p("s.nqb")]);
    run(&["convert", &p("s.nqb"), &p("t.npy")]);
    assert_eq!(std::fs::read(p("t.npy")).unwrap(), bytes);
    let (code, _, _) = run(&["convert", &p("s.nqb"), &p("u.out"), "--to", "npy"]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(p("u.out")).unwrap(), bytes);
    // complete keeps an .npy input's format.
    nq(&[
        "generate",
        "composition",
        "--from",
        &p("s.npy"),
        "--k",
        "4000",
        "--seed",
        "2",
        "-o",
        &p("c.npy"),
    ])
    .ok();
    nq(&["complete", &p("c.npy"), "-o", &p("solved"), "--seed", "1"]).ok();
    assert!(
        std::fs::read(p("solved"))
            .unwrap()
            .starts_with(b"\x93NUMPY")
    );
    let (code, out, _) = run(&["verify", "--base", &p("c.npy"), &p("solved")]);
    assert_eq!(code, 0, "{out}");
}

/// A 0-based solution saved from NumPy reads as a composition with one empty row; verify
/// and complete say that it looks 0-based and what to do.
#[test]
fn a_zero_based_vector_gets_a_hint() {
    let f = data("npy").join("zero-based-solution-8.npy");
    let (code, out, _) = run(&["verify", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("VALID COMPOSITION (7 of 8)"), "{out}");
    assert!(out.contains("the values look 0-based (0..7)"), "{out}");
    let (code, out, _) = run(&["complete", f.to_str().unwrap()]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("add 1 to every value (NumPy: Q + 1)"), "{out}");
}

/// `--zero-based` reads NumPy's convention (columns 0..n-1, -1 for an empty row) from
/// NumPy, text and MAT files alike; NQB, whose numbering is its own, refuses it.
#[test]
fn zero_based_files_are_read_with_the_option() {
    for name in [
        "zero-based-composition-8.npy",
        "zero-based-composition-8.txt",
        "zero-based-composition-8.mat",
    ] {
        let f = data("npy").join(name);
        let (code, out, err) = run(&["verify", "--zero-based", f.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("VALID COMPOSITION (6 of 8)"), "{name}: {out}");
        let (code, out, err) = run(&[
            "complete",
            "--zero-based",
            f.to_str().unwrap(),
            "--seed",
            "1",
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("solution: 1 5 8 6 3 7 2 4"), "{name}: {out}");
        // Without the option, -1 is refused, naming the row.
        let (code, _, err) = run(&["verify", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}");
        assert!(err.contains("-1"), "{name}: {err}");
    }
    let (code, out, _) = run(&[
        "verify",
        "--zero-based",
        data("npy")
            .join("zero-based-solution-8.npy")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("VALID SOLUTION (n = 8)"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let nqb = dir.path().join("k.nqb");
    let k47 = data("grigoryan-n100-k47.txt");
    assert_eq!(
        run(&["convert", k47.to_str().unwrap(), nqb.to_str().unwrap()]).0,
        0
    );
    let (code, _, err) = run(&["verify", "--zero-based", nqb.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--zero-based applies to files of plain numbers"),
        "{err}"
    );
}

/// An answer to a `.npy` input is laid out like it, as NumPy code reading it back expects:
/// its dtype and byte order (widened where the values do not fit), its shape, and with
/// `--zero-based` its 0-based columns; read back by NumPy itself.
#[test]
fn npy_answers_keep_the_inputs_dtype_shape_and_index_base() {
    let d = tempfile::tempdir().unwrap();
    let py = |code: &str| {
        let out = std::process::Command::new("python3")
            .args(["-c", code])
            .current_dir(d.path())
            .output()
            .expect("python3 with NumPy (tools/test.sh installs it)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // A composition of n = 300 from a construction: 1-based columns, some rows cleared.
    nq(&[
        "generate",
        "solution",
        "--n",
        "300",
        "-o",
        d.path().join("s.txt").to_str().unwrap(),
    ])
    .ok();
    py("import numpy as np\n\
        q = np.loadtxt('s.txt').astype(np.int64); q[::7] = 0\n\
        np.save('u1.npy', q.astype(np.uint16).reshape(300, 1))\n\
        np.save('be.npy', q.astype('>i4').reshape(1, 300))\n\
        np.save('zb.npy', (q - 1).reshape(1, 300))\n\
        np.save('f8.npy', q.astype(np.float64))\n");
    for (input, extra, want_dtype, want_shape, zero_based) in [
        ("u1.npy", None, "<u2", "(300, 1)", false),
        ("be.npy", None, ">i4", "(1, 300)", false),
        ("zb.npy", Some("--zero-based"), "<i8", "(1, 300)", true),
        ("f8.npy", None, "<f8", "(300,)", false),
    ] {
        let inp = d.path().join(input);
        let out = d.path().join(format!("solved-{input}"));
        let mut args = vec![
            "complete",
            inp.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
            "--seed",
            "1",
        ];
        args.extend(extra);
        let (code, stdout, err) = run(&args);
        assert_eq!(code, 0, "{input}: {stdout}{err}");
        let got = py(&format!(
            "import numpy as np\n\
             a = np.load('solved-{input}'); q = np.load('{input}')\n\
             base = 0 if {zb} else 1\n\
             kept = (q.ravel() >= base)\n\
             print(a.dtype.str, a.shape, sorted(a.ravel().tolist()) == list(range(base, 300 + base)), bool((a.ravel()[kept] == q.ravel()[kept]).all()))",
            zb = if zero_based { "True" } else { "False" },
        ));
        assert_eq!(
            got.trim(),
            format!("{want_dtype} {want_shape} True True"),
            "{input}"
        );
    }
}

/// `.npz` archives (`np.savez`, `np.savez_compressed`): the array `--var` names, else `Q`,
/// else the only one, read as that `.npy` file; several arrays and no choice, or a damaged
/// archive, refused in one line.
#[test]
fn npz_archives_are_read_by_the_array_they_name() {
    let d = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("python3")
        .args([
            "-c",
            "import numpy as np\n\
             q = np.array([2, 4, 1, 3], dtype=np.int16)\n\
             np.savez('q.npz', Q=q, other=np.arange(5))\n\
             np.savez_compressed('one.npz', board=q)\n\
             np.savez('two.npz', a=q, b=q[::-1])\n\
             open('bad.npz', 'wb').write(b'PK\\x03\\x04' + bytes(60))\n\
             import gzip, zipfile, shutil\n\
             with zipfile.ZipFile('nested.npz', 'w') as z: z.write('q.npz', 'Q.npy')\n\
             with zipfile.ZipFile('gz.npz', 'w') as z: z.writestr('Q.npy', gzip.compress(open('q.npz', 'rb').read()))\n\
             open('zip.gz', 'wb').write(gzip.compress(open('q.npz', 'rb').read()))\n",
        ])
        .current_dir(d.path())
        .status()
        .expect("python3 with NumPy (tools/test.sh installs it)");
    assert!(status.success());
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    for (args, want) in [
        (vec![p("q.npz")], "VALID SOLUTION (n = 4)"),
        (vec![p("one.npz")], "VALID SOLUTION (n = 4)"),
        (
            vec!["--var".into(), "b".into(), p("two.npz")],
            "VALID SOLUTION (n = 4)",
        ),
    ] {
        let mut all = vec!["verify".to_string()];
        all.extend(args);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let (code, out, err) = run(&all);
        assert_eq!(code, 0, "{all:?}: {err}");
        assert!(out.contains(want), "{all:?}: {out}");
    }
    for (name, needle) in [
        (
            "two.npz",
            "2 variables could be the board, name one with --var; the file holds: a, b",
        ),
        ("bad.npz", "not a readable .npz archive"),
        // One level of container: an archive or a compressed file in the archive, or an
        // archive in a gzip file, is not opened in turn.
        (
            "nested.npz",
            "array \"Q\" is not a .npy array (it starts 50 4b 03 04",
        ),
        ("gz.npz", "array \"Q\" is not a .npy array (it starts 1f 8b"),
        (
            "zip.gz",
            "it holds a zip archive (.npz): only one level of container is read",
        ),
    ] {
        let (code, _, err) = run(&["verify", &p(name)]);
        assert_eq!(code, 2, "{name}");
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{name}: {err}"
        );
    }
    let (code, _, err) = run(&["verify", "--var", "nope", &p("q.npz")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no variable named nope; the file holds: Q, other"),
        "{err}"
    );
}

/// `--npy-dtype`, `--npy-shape` and `--npy-base` choose a `.npy` answer's layout over the
/// input's, checked by NumPy; a layout that cannot hold the columns is refused, and so are
/// the options for another output format.
#[test]
fn npy_answers_take_the_layout_asked_for() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let k47 = data("grigoryan-n100-k47.txt");
    let k47 = k47.to_str().unwrap();
    for (options, dtype, shape, first) in [
        (vec!["--npy-dtype", "int16"], "int16", "(100,)", "0"),
        (
            vec![
                "--npy-dtype",
                "float32",
                "--npy-shape",
                "row",
                "--npy-base",
                "0",
            ],
            "float32",
            "(1, 100)",
            "-1.0",
        ),
        (vec!["--npy-shape", "column"], "uint32", "(100, 1)", "0"),
    ] {
        let out = p("out.npy");
        let mut args = vec!["convert", k47, &out];
        args.extend(options.iter().copied());
        nq(&args).ok();
        let shown = std::process::Command::new("python3")
            .args([
                "-c",
                "import sys, numpy as np; a = np.load(sys.argv[1]); print(a.dtype, a.shape, a.ravel()[0])",
                &out,
            ])
            .output()
            .expect("python3 with NumPy (tools/test.sh installs it)");
        let shown = String::from_utf8(shown.stdout).unwrap();
        assert_eq!(
            shown.trim(),
            format!("{dtype} {shape} {first}"),
            "{options:?}"
        );
        // Read back by its own base, it is the input.
        let base = if options.contains(&"0") {
            "--zero-based"
        } else {
            "--quiet"
        };
        let back = p("back.txt");
        nq(&["convert", &out, &back, base]).ok();
        assert_eq!(
            std::fs::read_to_string(&back)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>(),
            std::fs::read_to_string(k47)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>(),
            "{options:?}"
        );
    }
    for (options, why) in [
        (vec!["--npy-base", "0", "--npy-dtype", "uint8"], "unsigned"),
        (vec!["--npy-dtype", "complex64"], "expected uint8"),
        (vec!["--npy-base", "2"], "2"),
    ] {
        let mut args = vec!["convert", k47, "x.npy"];
        args.extend(options.iter().copied());
        let out = nq(&args).current_dir(d.path()).code(2);
        assert!(out.stderr.contains(why), "{options:?}: {}", out.stderr);
    }
    let big = constructed(&p("big.txt"), "300");
    let out = nq(&["convert", &big, &p("x.npy"), "--npy-dtype", "int8"]).code(2);
    assert!(
        out.stderr
            .contains("cannot hold the columns of a board of 300 rows"),
        "{}",
        out.stderr
    );
    let out = nq(&["convert", k47, &p("x.txt"), "--npy-dtype", "int8"]).code(2);
    assert!(
        out.stderr.contains("apply to .npy output only"),
        "{}",
        out.stderr
    );
    assert!(!Path::new(&p("x.npy")).exists() && !Path::new(&p("x.txt")).exists());
}

/// 0-based columns need one value less: int8 holds a 128-row board 0-based (0..127 and
/// -1), not 1-based; an out-of-range value read 0-based is named as the file stores it.
#[test]
fn zero_based_bounds_are_those_of_the_stored_values() {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let s128 = constructed(&p("s128.txt"), "128");
    nq(&[
        "convert",
        &s128,
        &p("z.npy"),
        "--npy-dtype",
        "int8",
        "--npy-base",
        "0",
    ])
    .ok();
    nq(&["verify", "--zero-based", "--require-complete", &p("z.npy")]).ok();
    let out = nq(&["convert", &s128, &p("o.npy"), "--npy-dtype", "int8"]).code(2);
    assert!(out.stderr.contains("128 rows"), "{}", out.stderr);
    let status = std::process::Command::new("python3")
        .args([
            "-c",
            "import numpy as np, sys; np.save(sys.argv[1], np.array([2**33, 0, 0, 0], 'u8'))",
            &p("h.npy"),
        ])
        .status()
        .expect("python3 with NumPy");
    assert!(status.success());
    let h = p("h.npy");
    for base in [&["--zero-based"][..], &[][..]] {
        let mut args = vec!["verify", &h[..]];
        args.extend(base);
        let out = nq(&args).code(2);
        assert!(
            out.stderr.contains("value 8589934592 is not"),
            "{base:?}: {}",
            out.stderr
        );
    }
}
