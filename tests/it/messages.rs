//! One line that names the right file and says what is wrong, in the cases where the
//! message once named the wrong file, an internal one, or none: a `--base` that is no
//! composition, an output directory removed mid-run, a standard output closed at start.

use crate::common::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_base_that_is_no_composition_is_refused_naming_the_base() {
    let d = tempfile::tempdir().unwrap();
    let base = d.path().join("base.txt");
    let file = d.path().join("file.txt");
    std::fs::write(&base, "1\n1\n0\n0\n").unwrap();
    std::fs::write(&file, "2\n4\n1\n3\n").unwrap();
    let (code, out, err) = run(&[
        "verify",
        "--base",
        base.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.starts_with(&format!(
            "nqueens: {}: --base is not a valid composition",
            base.display()
        )) && err.contains("share a column")
            && err.lines().count() == 1,
        "{err}"
    );
    assert!(out.is_empty(), "no file is judged against it: {out}");
}

/// Closed with `>&-`: the answer cannot be printed, which is an error (exit 2), not a
/// success with the answer lost.
#[test]
fn a_closed_standard_output_is_an_error_not_a_lost_answer() {
    let d = tempfile::tempdir().unwrap();
    let shard = d.path().join("s.json");
    std::fs::write(
        &shard,
        nqueens()
            .args(["count", "8", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let solution = d.path().join("s.txt");
    std::fs::write(&solution, "1 5 8 6 3 7 2 4\n").unwrap();
    let s = solution.to_str().unwrap();
    for args in [
        vec!["count", "merge", shard.to_str().unwrap()],
        vec!["count", "8"],
        vec!["verify", s],
        vec!["complete", s, "-q"],
        vec!["complete", s, "-o", "-"],
        vec!["convert", s, "-"],
        vec!["generate", "solution", "--n", "8"],
    ] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$@" >&-"#)
            .arg("sh")
            .arg(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(&args)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("closed (>&-)"), "{args:?}: {err}");
        // Discarding it on purpose is fine: /dev/null opened write-only (`> /dev/null`) or
        // read-write (`1<> /dev/null`, Python's subprocess.DEVNULL), as Rust's runtime
        // opens it in the place of a closed descriptor.
        for read in [false, true] {
            let null = std::fs::OpenOptions::new()
                .read(read)
                .write(true)
                .open("/dev/null")
                .unwrap();
            let out = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
                .args(&args)
                .stdout(null)
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{args:?} (read {read}): {err}");
        }
    }
}

/// The output's directory removed while the output is written: the rename fails, and the
/// message names the output the user chose, not the temporary file beside it.
#[test]
fn an_output_directory_removed_mid_run_is_named_not_the_temporary() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("out");
    std::fs::create_dir(&dir).unwrap();
    let dest = dir.join("s.nqb");
    let child = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args([
            "generate",
            "solution",
            "--n",
            "1e8",
            "-o",
            dest.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    while listing(&dir).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    // Stopped while the directory goes, so that the run cannot finish first.
    // SAFETY: signals to our own child.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::fs::remove_dir_all(&dir).unwrap();
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(&format!("nqueens: {}:", dest.display()))
            && !err.contains(".nqueens-")
            && err.lines().count() == 1,
        "{err}"
    );
}

/// A mapped input truncated by another process while `verify` reads it: that file is
/// reported, by name, as having shrunk (never a verdict drawn from the zeros past its new
/// end, never a bus error that ends the run), and the files after it are still checked.
#[test]
fn a_file_truncated_while_mapped_is_named_and_verify_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("big.nqb");
    let small = d.path().join("small.txt");
    std::fs::write(&small, "2\n4\n1\n3\n").unwrap();
    nq(&[
        "generate",
        "solution",
        "--n",
        "20000000",
        "-o",
        big.to_str().unwrap(),
    ])
    .ok();
    let bytes = std::fs::read(&big).unwrap();
    let mut hit = 0;
    for delay_ms in [10, 30, 80, 200, 500, 1000] {
        std::fs::write(&big, &bytes).unwrap();
        let child = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args([
                "verify",
                small.to_str().unwrap(),
                big.to_str().unwrap(),
                small.to_str().unwrap(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&big)
            .unwrap()
            .set_len(1000)
            .unwrap();
        let o = child.wait_with_output().unwrap();
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        let code = o
            .status
            .code()
            .expect("an exit code, not death by a signal");
        if err.contains("shrank while being read") {
            hit += 1;
            assert_eq!(code, 2, "{out}{err}");
            assert!(
                err.starts_with(&format!("nqueens: {}: ", big.display())),
                "{err}"
            );
            assert_eq!(out.matches("VALID SOLUTION (n = 4)").count(), 2, "{out}");
            assert!(out.contains("1 unreadable"), "{out}");
        } else {
            // Read whole before the truncation, or truncated before it was opened.
            assert!(code == 0 || code == 2, "{code}: {out}{err}");
            assert_eq!(err.lines().count(), usize::from(code == 2), "{err}");
        }
    }
    assert!(hit > 0, "the file was never truncated while mapped");
}

/// A vector that looks 0-based gets the way to read it on every command, `-q` or not (on
/// standard error then), and a -1 (0-based code's empty row) says `--zero-based`.
#[test]
fn a_zero_based_vector_gets_its_hint_everywhere() {
    let d = tempfile::tempdir().unwrap();
    let zb = d.path().join("zb.txt");
    std::fs::write(&zb, "1\n3\n0\n2\n").unwrap();
    let z = zb.to_str().unwrap();
    for args in [vec!["verify", "-q", z], vec!["complete", "-q", z]] {
        let (_, _, err) = run(&args);
        assert!(
            err.contains("--zero-based") && err.contains(z),
            "{args:?}: {err}"
        );
    }
    let minus = d.path().join("minus.txt");
    std::fs::write(&minus, "1\n-1\n0\n2\n").unwrap();
    for args in [
        vec!["verify", minus.to_str().unwrap()],
        vec!["complete", "-q", minus.to_str().unwrap()],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains("read them with --zero-based"),
            "{args:?}: {err}"
        );
    }
    let (code, out, err) = run(&["verify", "--zero-based", minus.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
}

/// `info` names a plain HDF5 file (h5py, Octave's `-hdf5`) as HDF5, not as MATLAB's v7.3.
#[test]
fn info_names_plain_hdf5_as_hdf5() {
    let (code, out, err) = run(&[
        "info",
        data("clients/octave-hdf5-char-beside-vector.h5")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let format = out
        .lines()
        .find(|l| l.starts_with("format"))
        .unwrap_or_default();
    assert_eq!(format.split_whitespace().nth(1), Some("HDF5"), "{out}");
}

/// A command line that does not parse gets one line too: what is wrong, the arguments it
/// names, and where the usage is (exit 2), not clap's paragraphs.
#[test]
fn argument_errors_are_one_line() {
    for (args, needle) in [
        (
            &["generate", "excluded", "--n", "0"][..],
            "0 is not in 1..=10000",
        ),
        (
            &["complete"][..],
            "required arguments were not provided: <INPUT>",
        ),
        (
            &["verify", "x.txt", "--bogus"][..],
            "unexpected argument '--bogus'",
        ),
        (&["frob"][..], "unrecognized subcommand 'frob'"),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("nqueens: ") && err.contains(needle),
            "{args:?}: {err}"
        );
    }
}

/// A file name holding control characters (an escape sequence that would clear a terminal)
/// is shown escaped by every command's messages, `verify`'s per-file lines included.
#[test]
fn control_characters_of_file_names_are_escaped_in_every_message() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("e\u{1b}[2Jz.txt");
    std::fs::write(&bad, "x\n").unwrap();
    let missing = dir.path().join("no\u{1b}[2Jsuch.txt");
    for args in [
        vec!["verify", bad.to_str().unwrap()],
        vec!["verify", "-q", bad.to_str().unwrap()],
        vec!["verify", missing.to_str().unwrap()],
        vec!["info", bad.to_str().unwrap()],
        vec!["complete", bad.to_str().unwrap()],
        vec!["count", "--from", bad.to_str().unwrap()],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            !err.contains('\u{1b}') && !out.contains('\u{1b}'),
            "{args:?}: {err:?}"
        );
        assert!(
            err.contains("e\\u{1b}[2Jz.txt") || err.contains("no\\u{1b}[2Jsuch.txt"),
            "{err:?}"
        );
    }
    // A valid file's line too.
    let good = dir.path().join("v\u{1b}[2Jx.txt");
    std::fs::write(&good, "2\n4\n1\n3\n").unwrap();
    let (code, out, err) = run(&["verify", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("v\\u{1b}[2Jx.txt: VALID SOLUTION"), "{out:?}");
}
