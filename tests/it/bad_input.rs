//! Every kind of bad input gets one line naming the file and the problem, exit code 2,
//! no panic, the input untouched and no output file left behind.

use crate::common::*;
use std::path::Path;

/// Runs `verify` and `info` on `path` and checks the error contract; returns the message.
fn rejected(path: &Path, needle: &str) -> String {
    let before = std::fs::read(path).ok();
    for cmd in ["verify", "info"] {
        let (code, _, err) = run(&[cmd, path.to_str().unwrap()]);
        assert_eq!(code, 2, "{cmd} {}: {err}", path.display());
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "one line expected: {err}");
        assert!(lines[0].starts_with("nqueens: "), "{err}");
        assert!(
            lines[0].contains(&path.display().to_string()),
            "names the file: {err}"
        );
        assert!(lines[0].contains(needle), "expected {needle:?} in {err}");
        assert!(!err.contains("panicked"));
        if cmd == "info" {
            // The reason is given once: on standard error, not also in the table.
            let (_, out, _) = run(&[cmd, path.to_str().unwrap()]);
            assert!(
                !out.contains(needle) || needle.is_empty(),
                "said twice: {out}"
            );
        }
    }
    assert_eq!(std::fs::read(path).ok(), before, "input modified");
    let (_, err) = {
        let (c, _, e) = run(&["verify", path.to_str().unwrap()]);
        (c, e)
    };
    err
}

fn valid_raw(dir: &Path) -> Vec<u8> {
    let p = dir.join("ok.nqb");
    write_raw_nqb(&p, 8, &[1, 5, 8, 6, 3, 7, 2, 4]);
    std::fs::read(p).unwrap()
}

/// A valid 8-queens file with `edit` applied to its bytes, written as `name`.
fn edited(dir: &Path, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> std::path::PathBuf {
    let mut b = valid_raw(dir);
    edit(&mut b);
    let p = dir.join(name);
    std::fs::write(&p, &b).unwrap();
    p
}

#[test]
fn empty_file() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("empty.nqb");
    std::fs::write(&p, b"").unwrap();
    rejected(&p, "empty file");
}

#[test]
fn truncated_header() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("t.nqb");
    std::fs::write(&p, &valid_raw(d.path())[..20]).unwrap();
    rejected(&p, "truncated header: 20 of 64 bytes");
}

#[test]
fn bad_magic() {
    let d = tempfile::tempdir().unwrap();
    rejected(&edited(d.path(), "m.nqb", |b| b[1] = b'X'), "bad magic");
}

#[test]
fn unknown_version() {
    let d = tempfile::tempdir().unwrap();
    let p = edited(d.path(), "v.nqb", |b| {
        b[8] = 9;
        reseal_header(b);
    });
    rejected(&p, "unsupported NQB version 9");
}

#[test]
fn n_zero_and_n_too_large() {
    let d = tempfile::tempdir().unwrap();
    for (n, needle) in [(0u64, "n = 0"), (1 << 32, "too large")] {
        let p = edited(d.path(), &format!("n{n}.nqb"), |b| {
            b[16..24].copy_from_slice(&n.to_le_bytes());
            b[24..32].copy_from_slice(&0u64.to_le_bytes());
            reseal_header(b);
        });
        rejected(&p, needle);
    }
}

#[test]
fn payload_shorter_or_longer() {
    let d = tempfile::tempdir().unwrap();
    let b = valid_raw(d.path());
    let short = d.path().join("short.nqb");
    std::fs::write(&short, &b[..b.len() - 4]).unwrap();
    rejected(
        &short,
        "payload is 28 bytes from offset 64, but n = 8 needs 32",
    );
    let long = d.path().join("long.nqb");
    let mut l = b.clone();
    l.extend_from_slice(&[0, 0, 0, 0]);
    std::fs::write(&long, &l).unwrap();
    rejected(&long, "payload is 36 bytes");
}

#[test]
fn checksum_mismatch() {
    let d = tempfile::tempdir().unwrap();
    // Swap two rows: still a valid solution, but not the payload the header describes.
    let p = edited(d.path(), "c.nqb", |b| b.swap(64, 68));
    rejected(&p, "payload checksum mismatch");
}

#[test]
fn header_field_edited_without_resealing() {
    let d = tempfile::tempdir().unwrap();
    let p = edited(d.path(), "h.nqb", |b| b[24] = 3); // k, without resealing
    rejected(&p, "header checksum mismatch");
}

#[test]
fn wrong_queen_count_in_a_sealed_header() {
    let d = tempfile::tempdir().unwrap();
    let p = edited(d.path(), "k.nqb", |b| {
        b[24] = 3;
        reseal_header(b);
    });
    rejected(&p, "header says k = 3 queens but the payload holds 8");
}

#[test]
fn corrupt_zstd_frame() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.nqb.zst");
    nq(&[
        "generate",
        "solution",
        "--n",
        "600000",
        "-o",
        p.to_str().unwrap(),
    ])
    .ok();
    let mut b = std::fs::read(&p).unwrap();
    // Flip bytes in the middle of the first row frame (after the 77-byte header frame).
    for byte in &mut b[200..260] {
        *byte ^= 0x5a;
    }
    std::fs::write(&p, &b).unwrap();
    rejected(&p, "corrupt zstd frame 1 (rows 1..=");
}

#[test]
fn truncated_zstd_file() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.nqb.zst");
    run(&[
        "generate",
        "solution",
        "--n",
        "1000",
        "-o",
        p.to_str().unwrap(),
    ]);
    let b = std::fs::read(&p).unwrap();
    std::fs::write(&p, &b[..b.len() - 10]).unwrap();
    rejected(&p, "bad zstd seek table");
}

#[test]
fn missing_file_and_directory() {
    let d = tempfile::tempdir().unwrap();
    rejected(&d.path().join("nope.nqb"), "cannot open");
    rejected(d.path(), "is a directory");
}

#[test]
fn garbage_and_bad_text() {
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("g.bin");
    std::fs::write(&g, [0u8, 1, 2, 3, 0xff, 0xfe]).unwrap();
    rejected(&g, "unrecognized format");
    let t = d.path().join("t.txt");
    std::fs::write(&t, "1\n3\nfive\n").unwrap();
    rejected(&t, "line 3: \"five\" is not a number");
}

#[test]
fn unwritable_output_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let missing_dir = d.path().join("no/such/dir/out.nqb");
    let (code, _, err) = run(&[
        "generate",
        "solution",
        "--n",
        "8",
        "-o",
        missing_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("nqueens: ") && err.contains("out.nqb: cannot write"),
        "{err}"
    );
    // A parent that is a file, not a directory.
    let file = d.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("out.nqb");
    let (code, _, err) = run(&[
        "generate",
        "solution",
        "--n",
        "8",
        "-o",
        under_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    // Output onto a directory.
    let (code, _, err) = run(&[
        "generate",
        "solution",
        "--n",
        "8",
        "-o",
        d.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a directory"), "{err}");
    assert_eq!(listing(d.path()), vec!["plain"]);
}

#[test]
fn failure_after_output_started_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("c.nqb");
    let (code, _, err) = run(&[
        "generate",
        "composition",
        "--from",
        data("grigoryan-n100-k47.txt").to_str().unwrap(),
        "--k",
        "48",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot keep 48 queens") && err.contains("has 47"),
        "{err}"
    );
    assert!(listing(d.path()).is_empty(), "{:?}", listing(d.path()));
}

#[test]
fn bad_base() {
    let d = tempfile::tempdir().unwrap();
    let small = d.path().join("small.txt");
    std::fs::write(&small, "1\n").unwrap();
    let (code, _, err) = run(&[
        "verify",
        data("grigoryan-n100-k47.txt").to_str().unwrap(),
        "--base",
        small.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("n = 100, but the base"), "{err}");
}

#[test]
fn bad_csplib_files() {
    let csplib = |name: &str| data("csplib").join(name);
    rejected(
        &csplib("bad-off-board.param"),
        "line 2: init[1] = [8,1] is off the board: rows and columns are 0..=7",
    );
    rejected(
        &csplib("bad-same-row.param"),
        "init[0] and init[1] are both in row 2",
    );
    rejected(&csplib("bad-unclosed.param"), "expected `,` or `]`");
    rejected(
        &csplib("bad-diagonal.txt"),
        "diags[1] = [9,0]: expected d in 0..=8",
    );
    rejected(
        &csplib("bad-numdiags.txt"),
        "line 2: 4 diagonals asked for, but diags lists 2",
    );
    // Queens that attack each other make an invalid composition, reported by the verifier
    // with the rows (1-based) of both queens; complete refuses it the same way.
    let attacking = csplib("bad-attacking.param");
    for cmd in ["verify", "complete"] {
        let (code, out, err) = run(&[cmd, attacking.to_str().unwrap()]);
        assert_eq!(code, 1, "{cmd}: {out}{err}");
        assert!(
            out.contains("rows 1 and 4 share a D2 diagonal"),
            "{cmd}: {out}"
        );
    }
}

#[test]
fn sat_models_that_contradict_the_instance() {
    let d = tempfile::tempdir().unwrap();
    let nauck = data("csplib").join("nauck-1850.param");
    let out = d.path().join("sol.txt");
    let check = |model: &str, needle: &str| {
        let m = d.path().join("model");
        std::fs::write(&m, model).unwrap();
        let (code, _, err) = run(&[
            "convert",
            "--model",
            m.to_str().unwrap(),
            "--base",
            nauck.to_str().unwrap(),
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(m.to_str().unwrap()) && err.contains(needle),
            "{err}"
        );
        assert!(!out.exists());
    };
    let all_false: Vec<String> = (1..=24).map(|v| format!("-{v}")).collect();
    let lits = |set: &[usize]| {
        let mut l = all_false.clone();
        for &v in set {
            l[v - 1] = v.to_string();
        }
        format!("s SATISFIABLE\nv {} 0\n", l.join(" "))
    };
    // Variables 1..=3 are row 2's cells: two queens in one row.
    check(
        &lits(&[1, 2]),
        "variables 1 and 2 both put a queen in row 2",
    );
    // No queen at all: rows are left empty.
    check(
        &lits(&[]),
        "the model contradicts the instance: 2 of 8 rows hold a queen",
    );
    check("s SATISFIABLE\nv 1 -2 0\n", "variable 3 (row 2, column");
    check("s UNKNOWN\n", "the solver's status is \"UNKNOWN\"");
    check("s SATISFIABLE\nv 1 x 0\n", "line 2: \"x\" is not a literal");
    // Two answers in one output, and a variable given both signs, are no model.
    check(
        &format!("{}s UNSATISFIABLE\n", lits(&[3])),
        "line 3: a second status line \"UNSATISFIABLE\" after \"SATISFIABLE\"",
    );
    check(
        &format!("{}v 5 0\n", lits(&[3])),
        "line 3: variable 5 is given both signs: not a model",
    );
}
