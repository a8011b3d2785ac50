//! A signal (SIGTERM here; Ctrl-C sends SIGINT, handled the same) never leaves a partial
//! output or temporary file behind.
#![cfg(unix)]

use crate::common::*;
use std::time::Duration;

const N: &str = "10000000";

#[test]
fn sigterm_leaves_no_partial_file() {
    let d = tempfile::tempdir().unwrap();
    let run_in = |args: &[&str]| {
        let st = nqueens().args(args).current_dir(d.path()).output().unwrap();
        assert!(st.status.success(), "{args:?}");
    };
    run_in(&["generate", "solution", "--n", N, "-o", "s.nqb"]);
    run_in(&[
        "generate",
        "composition",
        "--from",
        "s.nqb",
        "--k",
        "0",
        "--seed",
        "1",
        "-o",
        "empty.nqb",
    ]);
    let inputs = listing(d.path());

    // `complete` polls the flag: it stops, answers UNKNOWN and exits with 130, leaving
    // neither its answer nor its trace and plot.
    let code = terminated(
        d.path(),
        &[
            "complete",
            "empty.nqb",
            "-o",
            "out.nqb",
            "--seed",
            "1",
            "--trace",
            "t.csv",
            "--plot",
            "p.svg",
        ],
        Duration::from_millis(300),
    );
    assert_eq!(code, 130);
    assert_eq!(listing(d.path()), inputs);

    // `convert` and `generate` do not poll: the handler removes their temporary files and
    // exits with 130 (or they finished first, with a complete output).
    for (args, out) in [
        (&["convert", "s.nqb", "out.nqbz"][..], "out.nqbz"),
        (
            &["generate", "solution", "--n", N, "-o", "g.txt"][..],
            "g.txt",
        ),
    ] {
        let code = terminated(d.path(), args, Duration::from_millis(100));
        let mut expected = inputs.clone();
        match code {
            130 => {}
            0 => {
                expected.push(out.to_string());
                expected.sort();
            }
            other => panic!("{args:?} exited with {other}"),
        }
        assert_eq!(listing(d.path()), expected, "{args:?}");
        let _ = std::fs::remove_file(d.path().join(out));
    }
}

/// A process killed with SIGKILL runs no cleanup at all; the next run that makes a
/// temporary file in the same directory removes what it left (no process holds its lock
/// any more), and leaves files of live runs alone.
#[test]
fn files_left_by_a_killed_run_are_removed_by_the_next_run() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let k47 = std::fs::read(data("grigoryan-n100-k47.txt")).unwrap();
    let spools = || -> Vec<String> {
        listing(tmp.path())
            .into_iter()
            .filter(|n| n.starts_with(".nqueens-stdin-"))
            .collect()
    };
    // A run reading standard input spools it to $TMPDIR; the pipe stays open, so it waits.
    let mut victim = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["verify", "-"])
        .env("TMPDIR", tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = victim.stdin.take().unwrap();
    // More than the 512 bytes read to recognise the format before spooling.
    stdin.write_all("0\n".repeat(1000).as_bytes()).unwrap();
    stdin.flush().unwrap();
    let started = std::time::Instant::now();
    while spools().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no spool appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    victim.kill().unwrap();
    victim.wait().unwrap();
    drop(stdin);
    assert_eq!(spools().len(), 1, "SIGKILL leaves the spool");
    // A file younger than a minute is left alone (its owner may not have locked it yet):
    // this one was left an hour ago.
    let left = tmp.path().join(&spools()[0]);
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&left)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let out = nqueens()
        .args(["verify", "-"])
        .env("TMPDIR", tmp.path())
        .write_stdin(k47)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(spools(), Vec::<String>::new(), "the next run removed it");
}

/// A terminal that hangs up takes standard error with it: writes fail. The signal that
/// comes with it (SIGHUP) must still end the run with 130, and so must later ones; a
/// panic writing the "interrupted" line once left `count` running on every core, deaf to
/// SIGINT, SIGTERM and SIGHUP. Standard error here is a pipe whose reader is gone.
#[test]
fn a_hangup_with_standard_error_gone_still_ends_the_run() {
    let (reader, writer) = std::io::pipe().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "19", "--threads", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(writer)
        .spawn()
        .unwrap();
    drop(reader);
    std::thread::sleep(Duration::from_millis(300));
    let status = signalled(&mut child, libc::SIGHUP, Duration::from_secs(10));
    assert_eq!(status.code(), Some(130));
}

/// One signal delivered twice is one signal: `timeout(1)` signals the process and then its
/// group, and the second copy, handled as a second signal, ended `complete --json` at
/// once, before it printed its record; whether the record came was a race. Here the two
/// copies come 5 ms apart, which is how far apart they can be handled: the run still
/// stops by itself, answers `unknown` in its record and exits with 130.
#[test]
fn a_signal_delivered_twice_is_answered_as_one() {
    let d = tempfile::tempdir().unwrap();
    let instance = d.path().join("e29.param");
    // Undecided for minutes (BENCHMARKS.md: n 29 d 28 seed 4).
    let generated = nqueens()
        .args([
            "generate", "excluded", "--n", "29", "--diags", "28", "--seed", "4",
        ])
        .arg("-o")
        .arg(&instance)
        .output()
        .unwrap();
    assert!(generated.status.success());
    for _ in 0..3 {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(["complete", "--seed", "1", "--json"])
            .arg(&instance)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(400));
        let pid = child.id() as libc::pid_t;
        // SAFETY: signalling our own child.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        std::thread::sleep(Duration::from_millis(5));
        // SAFETY: as above (the child is not reaped before wait_with_output).
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{stdout}{stderr}");
        let record: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("no record ({e}): {stdout:?}, {stderr}"));
        assert_eq!(record["answer"], "unknown", "{stdout}");
        let reason = record["reason"].as_str().unwrap_or_default();
        assert!(reason.starts_with("interrupted"), "{stdout}");
        assert_eq!(stderr, "", "with --json the record says it all");
    }
}

/// Writing the answer polls no flag, and may take minutes (10^9 rows as text): a signal
/// there ends `complete` at once with 130, as it ends a command that never polls. It used
/// to set the flag and wait for the run to answer, which then wrote its whole file and
/// exited 0. Here the answer goes to a pipe that is not read, so the run is held inside
/// the writing when the signal comes.
#[test]
fn a_signal_while_the_answer_is_written_ends_the_run() {
    use std::io::Read;
    let d = tempfile::tempdir().unwrap();
    let in_dir = |args: &[&str]| {
        let st = nqueens().args(args).current_dir(d.path()).output().unwrap();
        assert!(st.status.success(), "{args:?}");
    };
    in_dir(&["generate", "solution", "--n", "2000000", "-o", "s.nqb"]);
    in_dir(&[
        "generate",
        "composition",
        "--from",
        "s.nqb",
        "--free",
        "1000",
        "--seed",
        "3",
        "-o",
        "few.nqb",
    ]);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args([
            "complete",
            "few.nqb",
            "--seed",
            "1",
            "-q",
            "-o",
            "-",
            "--encoding",
            "text",
        ])
        .current_dir(d.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // The first bytes of the answer: the run is writing it, and blocks once the pipe is
    // full (16 MB of text against a 64 KiB pipe).
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        16 + rest.len() < 2_000_000,
        "the answer was not written to its end: {} bytes",
        16 + rest.len()
    );
    assert_eq!(listing(d.path()), vec!["few.nqb", "s.nqb"]);
}

/// `count --checkpoint` told to stop takes no new work item and waits a second for those
/// under way; then it saves what is finished and exits, abandoning the rest (counted again
/// on resume). An item of n = 24 takes minutes, and it used to wait for them all: one
/// SIGTERM (`timeout`, Slurm) left it running long after it said it had stopped.
#[test]
fn a_count_told_to_stop_does_not_wait_for_long_items() {
    let d = tempfile::tempdir().unwrap();
    // The signal must land once the count has begun (0.1 s here, unloaded); before, the
    // run ends with no checkpoint, nothing having been counted: then wait longer.
    for wait in [2, 5, 15] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(["count", "24", "--checkpoint", "ck.json", "-q"])
            .current_dir(d.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(wait));
        let status = signalled(&mut child, libc::SIGTERM, Duration::from_secs(60));
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(130), "{err}");
        if err == "nqueens: interrupted\n" {
            continue;
        }
        assert!(
            err.contains("work items counted, saved to ck.json"),
            "{err}"
        );
        assert!(err.contains("the items under way were left"), "{err}");
        let saved = std::fs::read_to_string(d.path().join("ck.json")).unwrap();
        assert!(saved.starts_with("{\"counted\":"), "{saved}");
        return;
    }
    panic!("the count had not begun 15 s after it started");
}

/// Sends `signal` to `child` and waits for it to exit, at most `limit` (then kills it and
/// fails): how a signal is answered, whatever the child's output.
fn signalled(
    child: &mut std::process::Child,
    signal: libc::c_int,
    limit: Duration,
) -> std::process::ExitStatus {
    // SAFETY: signalling our own child, not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let sent = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if sent.elapsed() > limit {
            child.kill().unwrap();
            panic!("still running {limit:?} after signal {signal}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
