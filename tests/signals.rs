//! A signal (SIGTERM here; Ctrl-C sends SIGINT, handled the same) never leaves a partial
//! output or temporary file behind.
#![cfg(unix)]

mod common;
use common::*;
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

    // `complete` polls the flag: it stops, answers UNKNOWN and exits with 130.
    let code = terminated(
        d.path(),
        &["complete", "empty.nqb", "-o", "out.nqb", "--seed", "1"],
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
