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
        assert!(err.contains("Bad file descriptor"), "{args:?}: {err}");
    }
    // Discarding it on purpose is fine.
    let (code, _, _) = run(&["verify", s]);
    assert_eq!(code, 0);
}

/// The output's directory removed while the output is written: the rename fails, and the
/// message names the output the user chose, not the temporary file beside it.
#[test]
fn an_output_directory_removed_mid_run_is_named_not_the_temporary() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("out");
    std::fs::create_dir(&dir).unwrap();
    let dest = dir.join("s.nqb");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
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
