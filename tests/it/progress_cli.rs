//! Progress displays under a pseudo-terminal, the verify summary, --quiet and the global
//! --threads, through the binary.

use crate::common::{nq, nqueens, run};

/// Runs nqueens with standard error on a pseudo-terminal (standard output a pipe) and the
/// progress shown at once; returns (exit code, stdout, what the terminal received).
#[cfg(unix)]
fn run_on_terminal(args: &[&str]) -> (i32, String, String) {
    use std::io::Read;
    let (master, slave) = crate::common::pty();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .env("NQUEENS_PROGRESS_AFTER_MS", "0")
        .stdout(std::process::Stdio::piped())
        .stderr(slave)
        .spawn()
        .unwrap();
    // Drain the terminal while the child runs, so that it never blocks on a full buffer.
    let reader = std::thread::spawn(move || {
        let mut master = master;
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // Reading fails (EIO) once the child, the slave's only holder, has exited.
        while let Ok(k) = master.read(&mut buf) {
            if k == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..k]);
        }
        seen
    });
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    let seen = reader.join().unwrap();
    (
        status.code().unwrap(),
        out,
        String::from_utf8_lossy(&seen).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn bars_appear_on_a_terminal_for_generate_verify_convert_and_complete() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("s.nqb");
    let s = s.to_str().unwrap();
    let (code, _, term) = run_on_terminal(&["generate", "solution", "--n", "3e6", "-o", s]);
    assert_eq!(code, 0, "{term}");
    assert!(term.contains("writing 3000000 rows"), "{term:?}");
    assert!(term.contains("rows,"), "a bar with its unit: {term:?}");

    let (code, out, term) = run_on_terminal(&["verify", s]);
    assert_eq!(code, 0, "{term}");
    assert!(out.contains("VALID SOLUTION"), "{out}");
    assert!(term.contains("verifying"), "{term:?}");
    assert!(
        term.contains("/3,000,000 rows"),
        "position of the length: {term:?}"
    );

    let z = d.path().join("s.zst");
    let (code, _, term) = run_on_terminal(&["convert", s, z.to_str().unwrap()]);
    assert_eq!(code, 0, "{term}");
    assert!(term.contains("converting"), "{term:?}");

    // The spinner is redrawn ten times a second: the run must spend well over 0.1 s
    // placing queens for a stage to be seen (about 1 s at this n; n = 200,000 was over in
    // 50 ms, and the stage showed only when the machine was busy).
    let o = d.path().join("o.nqb");
    let (code, out, term) = run_on_terminal(&[
        "generate",
        "solution",
        "--n",
        "20000000",
        "--random",
        "--seed",
        "1",
        "-o",
        o.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{term}");
    assert!(term.contains("completing n = 20000000"), "{term:?}");
    assert!(term.contains("free rows"), "the stage is named: {term:?}");

    // --quiet, and a pipe instead of a terminal, show nothing.
    let (code, _, term) = run_on_terminal(&["verify", "--quiet", s]);
    assert_eq!(code, 0);
    assert!(!term.contains("verifying"), "{term:?}");
    let (_, _, err) = run(&["verify", s]);
    assert!(!err.contains("verifying"), "{err}");
}

#[cfg(unix)]
#[test]
fn verify_of_several_files_shows_the_file_and_ends_with_a_summary() {
    let d = tempfile::tempdir().unwrap();
    let good = d.path().join("good.txt");
    let bad = d.path().join("bad.txt");
    let broken = d.path().join("broken.nqb");
    std::fs::write(&good, "2 4 1 3\n").unwrap();
    std::fs::write(&bad, "1 2 3 4\n").unwrap();
    std::fs::write(&broken, b"NQB1 truncated").unwrap();
    let names: Vec<&str> = [&good, &bad, &broken, &good]
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect();
    let mut args = vec!["verify"];
    args.extend(&names);
    let (code, out, term) = run_on_terminal(&args);
    assert_eq!(
        code, 2,
        "an unreadable file is the worst outcome: {out}{term}"
    );
    assert!(
        out.ends_with("4 files: 2 valid, 1 invalid, 1 unreadable\n"),
        "{out}"
    );
    assert!(term.contains("file 0/4"), "{term:?}");

    // --quiet: the exit code alone (errors still on standard error).
    let mut quiet = vec!["verify", "-q"];
    quiet.extend(&names);
    let out = nqueens().args(&quiet).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.nqb"));
    let out = nqueens()
        .args(["verify", "-q", names[0], names[1]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let out = nqueens()
        .args(["verify", "--quiet", "--json", names[0]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--quiet and --json conflict");
}

#[test]
fn threads_is_a_global_option() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.txt");
    let b = d.path().join("b.txt");
    for (threads, out) in [("1", &a), ("3", &b)] {
        let out = out.to_str().unwrap();
        // Before the subcommand, and after it.
        nq(&[
            "--threads",
            threads,
            "generate",
            "solution",
            "--n",
            "5000",
            "--random",
            "--seed",
            "9",
            "-o",
            out,
        ])
        .ok();
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (code, out, err) = run(&["verify", a.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("VALID SOLUTION"));
    let (code, out, _) = run(&["count", "8", "--threads", "0"]);
    assert_eq!(code, 0, "0 means all cores");
    assert!(out.contains("92"), "{out}");
    let (code, _, err) = run(&["--threads", "5000", "info", a.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("at most 4096 threads"), "{err}");
}

/// A count made of work items shows, from its first items, the time left projected as
/// `count --estimate` projects it: a value and its range, never NaN or a negative time.
#[cfg(unix)]
#[test]
fn a_count_shows_the_time_left_projected_from_its_first_items() {
    let (code, out, term) = run_on_terminal(&["count", "16", "--threads", "2"]);
    assert_eq!(code, 0, "{term}");
    assert!(out.contains("placements: 14772512"), "{out}");
    assert!(term.contains("counting n = 16"), "{term:?}");
    assert!(
        term.contains(" left (") && term.contains(" to "),
        "{term:?}"
    );
    for bad in ["NaN", "inf", "about -", "(-", "to -"] {
        assert!(!term.contains(bad), "{bad}: {term:?}");
    }
}
