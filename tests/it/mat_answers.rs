//! MAT answers shaped like the input's variable: class, orientation and name kept by
//! default, chosen with --mat-class, --mat-name and --mat-shape, widened when the class
//! cannot hold n. Inputs are Octave's own files (tools/make_octave_fixtures.sh); outputs
//! are read back through `info` (which names the variable) and checked with `verify`.

use crate::common::{data, nq, run};
use std::path::Path;

/// `info`'s line naming the variable of a MAT file.
fn variable(path: &Path) -> String {
    let (code, out, err) = run(&["info", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .find_map(|l| l.strip_prefix("variable"))
        .unwrap_or_else(|| panic!("no variable line in {out}"))
        .trim()
        .to_string()
}

/// Completes `input` into `out` with `extra` options; returns the statistics.
fn complete(input: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "complete",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--seed",
        "1",
    ];
    args.extend(extra);
    let (code, stdout, err) = run(&args);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.starts_with("SOLVED"), "{stdout}");
    assert!(err.is_empty(), "{err}");
    let (code, v, verr) = run(&[
        "verify",
        "--require-complete",
        "--base",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{v}{verr}");
    stdout
}

#[test]
fn answers_keep_the_inputs_class_orientation_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let double_row = data("octave/octave-answer-double-row.mat");
    assert_eq!(variable(&double_row), "Q, 1x12 double");
    let out = dir.path().join("q.mat");
    let err = complete(&double_row, &out, &[]);
    assert_eq!(variable(&out), "Q, 1x12 double");
    assert!(
        err.contains("written as Q, a 1 x n double row, like the input's variable"),
        "{err}"
    );
    assert!(
        err.contains("; the input's other variable, x, is not copied"),
        "{err}"
    );

    let column = data("octave/octave-answer-uint8-column.mat");
    let out = dir.path().join("p.mat");
    complete(&column, &out, &[]);
    assert_eq!(variable(&out), "P, 12x1 uint8");
    // v7.3 keeps them too (the streaming writer).
    let out = dir.path().join("p73.mat");
    complete(&column, &out, &["--encoding", "mat"]);
    assert_eq!(variable(&out), "P, 12x1 uint8");
    nq(&[
        "convert",
        column.to_str().unwrap(),
        dir.path().join("c73.mat").to_str().unwrap(),
        "--to",
        "mat-v73",
    ])
    .ok();
    assert_eq!(variable(&dir.path().join("c73.mat")), "P, 12x1 uint8");
}

#[test]
fn options_choose_the_layout_and_a_narrow_class_widens() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("octave/octave-answer-double-row.mat");
    let out = dir.path().join("s.mat");
    let err = complete(
        &input,
        &out,
        &[
            "--mat-class",
            "uint16",
            "--mat-name",
            "Sol",
            "--mat-shape",
            "column",
        ],
    );
    assert_eq!(variable(&out), "Sol, 12x1 uint16");
    assert!(
        err.contains("written as Sol, an n x 1 uint16 column;"),
        "{err}"
    );
    // Text in, MAT out: the seed program's uint32 row Q, unless asked otherwise.
    let text = dir.path().join("q.txt");
    std::fs::write(&text, "2\n4\n0\n0\n0\n0\n1\n3\n5\n7\n9\n11\n").unwrap();
    let out = dir.path().join("t.mat");
    complete(&text, &out, &[]);
    assert_eq!(variable(&out), "Q, 1x12 uint32");
    let out = dir.path().join("t73.mat");
    nq(&[
        "convert",
        text.to_str().unwrap(),
        out.to_str().unwrap(),
        "--to",
        "mat-v73",
        "--mat-class",
        "double",
        "--mat-shape",
        "column",
    ])
    .ok();
    assert_eq!(variable(&out), "Q, 12x1 double");

    // uint8 holds columns up to 255: an answer at n = 300 is written as double, and says so.
    let narrow = data("octave/octave-answer-uint8-300.mat");
    assert_eq!(variable(&narrow), "Z, 1x300 uint8");
    let out = dir.path().join("z.mat");
    let err = complete(&narrow, &out, &[]);
    assert_eq!(variable(&out), "Z, 1x300 double");
    assert!(
        err.contains("(the input's uint8 cannot hold columns up to n = 300)"),
        "{err}"
    );
}

#[test]
fn layout_options_are_refused_where_they_cannot_apply() {
    let dir = tempfile::tempdir().unwrap();
    let narrow = data("octave/octave-answer-uint8-300.mat");
    let out = dir.path().join("z.mat");
    for (args, message) in [
        (
            vec!["--mat-class", "int8"],
            "--mat-class int8 holds columns up to 127, not up to n = 300",
        ),
        (vec!["--mat-name", "2x"], "not a MATLAB variable name"),
        (
            vec!["--mat-class", "float64"],
            "expected one of double, single",
        ),
    ] {
        let mut all = vec![
            "complete",
            narrow.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        all.extend(&args);
        let (code, _, err) = run(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!out.exists());
    }
    let nqb = dir.path().join("z.nqb");
    let (code, _, err) = run(&[
        "complete",
        narrow.to_str().unwrap(),
        "-o",
        nqb.to_str().unwrap(),
        "--mat-shape",
        "column",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("apply to MAT output only"), "{err}");
}

/// MATLAB's own `save -v7.3` of a deflated double vector, with other variables beside it:
/// the answer is that file with the chunks that held free rows replaced, the other
/// variables kept; read back through `info` and checked with `verify`.
#[test]
fn a_deflated_v73_answer_is_the_input_patched() {
    let dir = tempfile::tempdir().unwrap();
    for (name, shape) in [
        ("h5py-v73-patchable", "1x2003 double"),
        ("h5py-v73-patchable-col", "2003x1 double"),
    ] {
        let input = data(&format!("mat/{name}.mat"));
        let out = dir.path().join(format!("{name}.mat"));
        let stats = complete(&input, &out, &[]);
        assert!(
            stats.contains(
                "written as the input file with the 6 chunks that held free rows replaced"
            ) && stats.contains("its other variables kept (a_seed, note)"),
            "{stats}"
        );
        assert_eq!(variable(&out), format!("Q, {shape}"));
        let (code, info, err) = run(&["info", out.to_str().unwrap(), "--var", "a_seed"]);
        assert_eq!(code, 0, "{err}");
        assert!(info.contains("a_seed, 1x1 double"), "{info}");
        // Deflated as the input was: not the 16 kB of 2003 doubles written out.
        let size = std::fs::metadata(&out).unwrap().len();
        let before = std::fs::metadata(&input).unwrap().len();
        assert!(
            size < before + 2_000,
            "{size} bytes against the input's {before}"
        );
        // The MAT header names the writer.
        let head = std::fs::read(&out).unwrap();
        assert!(head.starts_with(b"MATLAB 7.3 MAT-file, Platform: nqueens"));
        // The JSON record says so too.
        let again = dir.path().join(format!("{name}-json.mat"));
        let (code, json, err) = run(&[
            "complete",
            input.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
            "--seed",
            "1",
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let record: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(record["patched_chunks"], 6, "{json}");
        // Another class is written from the board, not patched.
        let widened = dir.path().join(format!("{name}-uint32.mat"));
        let stats = complete(&input, &widened, &["--mat-class", "uint32"]);
        assert!(!stats.contains("written as the input file"), "{stats}");
        assert!(stats.contains("not copied"), "{stats}");
    }
}

/// hdf5storage's `savemat(..., format='7.3')` (tools/make_hdf5storage_fixture.py) deflates
/// with the Fletcher-32 filter on: the answer is still the input patched, the replaced
/// chunk checksummed as the HDF5 library checksums it. h5py, which checks every chunk's
/// Fletcher-32 on read, reads the answer back with the other variables intact (it needs
/// python3 with h5py and NumPy: tools/test.sh installs them, and a missing one fails here).
#[test]
fn an_hdf5storage_fletcher32_answer_is_the_input_patched() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("mat/hdf5storage-v73-fletcher.mat");
    let out = dir.path().join("out.mat");
    let stats = complete(&input, &out, &[]);
    assert!(
        stats.contains("written as the input file with the 1 chunk that held free rows replaced")
            && stats.contains("its other variables kept (a_seed, note)"),
        "{stats}"
    );
    let (code, v, err) = run(&[
        "verify",
        "--require-complete",
        "--base",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{v}{err}");
    assert!(v.contains("VALID SOLUTION (n = 3001)"), "{v}");
    let solution = data("mat/hdf5storage-v73-fletcher.solution.txt");
    let check = r#"
import sys, h5py, numpy as np
solution = np.loadtxt(sys.argv[2])
with h5py.File(sys.argv[1], "r") as f:
    q = f["Q"]
    assert q.fletcher32 and q.compression == "gzip", (q.fletcher32, q.compression)
    assert q.shape == (3001, 1) and q.attrs["MATLAB_class"] == b"double"
    assert np.array_equal(q[:, 0], solution), "Q is not the solution"
    assert f["a_seed"][()].tolist() == [[7.0]], f["a_seed"][()]
    assert f["note"][()].ravel().tobytes().decode("utf-16-le") == "hi", f["note"][()]
    assert f["note"].attrs["MATLAB_class"] == b"char"
print("ok")
"#;
    let o = std::process::Command::new("python3")
        .args(["-c", check])
        .arg(&out)
        .arg(&solution)
        .output()
        .expect("python3 is needed (tools/test.sh installs h5py and NumPy)");
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "ok",
        "h5py read the answer as:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
