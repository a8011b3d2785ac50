//! The edges where files come in and go out, through the binary: no output ever replaces an
//! input, corrupt NQB files are never laundered into valid ones, a full disk or a vanished
//! input is an error and not a signal, closed pipes end quietly, `-` is standard input and
//! output, symbolic links are followed, and Octave and HDF5 files are read as written.

use crate::common::{data, listing, nq, nqueens, run, write_raw_nqb};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The binary as a plain process, for streams assert_cmd does not expose.
fn process() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
}

/// Asserts a run succeeded, showing its error output if not.
fn assert_ok(o: &std::process::Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The words of a command template, with placeholders replaced.
fn words(template: &str, subs: &[(&str, &str)]) -> Vec<String> {
    template
        .split(' ')
        .map(|w| subs.iter().fold(w.to_string(), |w, (k, v)| w.replace(k, v)))
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Exit code, stdout and stderr of a run in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = nqueens().current_dir(dir).args(args).output().unwrap();
    (
        o.status.code().expect("exited normally, not by a signal"),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A raw NQB copy of the k47 composition in `dir`.
fn k47_nqb(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    nq(&["convert", s(&data("grigoryan-n100-k47.txt")), s(&p)]).ok();
    p
}

#[test]
fn no_output_ever_overwrites_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = k47_nqb(d, "c.nqb");
    std::fs::hard_link(&input, d.join("hard.nqb")).unwrap();
    std::os::unix::fs::symlink("c.nqb", d.join("link.nqb")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let before = std::fs::read(&input).unwrap();
    // Every output option of every command, against the same file under other names.
    let cases: &[&[&str]] = &[
        &["complete", "c.nqb", "-o", "c.nqb"],
        &["complete", "c.nqb", "-o", "./c.nqb"],
        &["complete", "c.nqb", "-o", "hard.nqb"],
        &["complete", "c.nqb", "-o", "link.nqb"],
        &["complete", "c.nqb", "-o", "sub/../c.nqb"],
        &["complete", "c.nqb", "--certificate", "c.nqb"],
        &[
            "generate",
            "composition",
            "--from",
            "c.nqb",
            "-o",
            "hard.nqb",
        ],
        &["count", "--from", "c.nqb", "--first", "-o", "./c.nqb"],
        &["convert", "c.nqb", "link.nqb"],
        &["convert", "hard.nqb", "c.nqb"],
    ];
    for args in cases {
        let (code, out, err) = run_in(d, args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("refusing to overwrite an input") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), before, "{args:?}");
        assert!(
            std::fs::symlink_metadata(d.join("link.nqb"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert_eq!(
        listing(d),
        ["c.nqb", "hard.nqb", "link.nqb", "sub"],
        "no temporary file left"
    );
}

/// Two outputs of one command naming one file (under any spelling) are refused before
/// anything runs: the answer can never be replaced by a trace, a plot or a checkpoint.
#[test]
fn no_output_overwrites_another_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = k47_nqb(d, "c.nqb");
    std::fs::write(d.join("old.nqb"), b"kept").unwrap();
    std::os::unix::fs::symlink("old.nqb", d.join("link")).unwrap();
    std::os::unix::fs::symlink("new.nqb", d.join("dangling")).unwrap();
    let cases: &[&[&str]] = &[
        &["complete", "c.nqb", "-o", "x.nqb", "--trace", "x.nqb"],
        &["complete", "c.nqb", "-o", "x.nqb", "--plot", "./x.nqb"],
        &["complete", "c.nqb", "-o", "old.nqb", "--trace", "link"],
        &["complete", "c.nqb", "-o", "new.nqb", "--plot", "dangling"],
        &["complete", "c.nqb", "-o", "-", "--trace", "-"],
        &["complete", "c.nqb", "--trace", "t.csv", "--plot", "t.csv"],
        &[
            "complete",
            "c.nqb",
            "--certificate",
            "z.json",
            "-o",
            "z.cnf",
        ],
        &[
            "complete",
            "c.nqb",
            "--certificate",
            "z.json",
            "--trace",
            "z.json",
        ],
    ];
    // `count`'s two outputs, -o (with --first or --plan) and --checkpoint, are never
    // given together: the command line is refused before any file is named.
    let (code, out, err) = run_in(
        d,
        &["count", "8", "--checkpoint", "old.nqb", "-o", "old.nqb"],
    );
    assert_eq!(
        (code, out.as_str(), err.lines().count()),
        (2, "", 1),
        "{err}"
    );
    for args in cases {
        let (code, out, err) = run_in(d, args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("names the same file as") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(out.is_empty(), "{args:?}: {out}");
    }
    assert_eq!(std::fs::read(d.join("old.nqb")).unwrap(), b"kept");
    assert_eq!(
        listing(d),
        ["c.nqb", "dangling", "link", "old.nqb"],
        "nothing written"
    );
    // Devices are written into, not replaced: two outputs to /dev/null are fine.
    let (code, _, err) = run_in(
        d,
        &[
            "complete",
            s(&input),
            "-o",
            "/dev/null",
            "--trace",
            "/dev/null",
            "-q",
        ],
    );
    assert_eq!(code, 0, "{err}");
}

/// An NQB file whose payload or queen count no longer matches its header is refused by
/// every command that reads it, and nothing is written from it.
#[test]
fn a_corrupt_nqb_file_is_never_laundered() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = k47_nqb(d, "good.nqb");
    let bytes = std::fs::read(&good).unwrap();
    // A payload byte changed: the checksum no longer matches.
    let mut flipped = bytes.clone();
    flipped[64 + 4 * 10] ^= 0x01;
    std::fs::write(d.join("flipped.nqb"), &flipped).unwrap();
    // k in the header changed (header resealed): the queen count no longer matches.
    let mut k = bytes.clone();
    k[24] ^= 0x01;
    crate::common::reseal_header(&mut k);
    std::fs::write(d.join("k.nqb"), &k).unwrap();
    for (bad, needle) in [
        ("flipped.nqb", "payload checksum mismatch"),
        ("k.nqb", "header says k = "),
    ] {
        let out = tempfile::tempdir().unwrap();
        let cases = [
            "verify BAD",
            "convert BAD OUT/x.nqb",
            "convert BAD OUT/x.txt",
            "convert BAD OUT/x.mat",
            "convert BAD OUT/x.zst",
            "convert BAD OUT/x.cnf",
            "count --from BAD",
            "count --from BAD --first -o OUT/f.nqb",
            "generate composition --from BAD -o OUT/g.nqb",
            "complete BAD -o OUT/s.nqb",
            "verify --base BAD good.nqb",
        ];
        for case in cases {
            let args = words(case, &[("BAD", bad), ("OUT", s(out.path()))]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, _, err) = run_in(d, &args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(err.contains(needle) && err.contains(bad), "{args:?}: {err}");
            assert!(listing(out.path()).is_empty(), "{args:?}: output written");
        }
    }
}

/// Unmounts a test's tmpfs when dropped.
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A 1 MiB tmpfs at `dir`. Mounting needs root: the tests that use it are ignored unless
/// asked for (`cargo test -- --include-ignored`, which tools/test.sh adds when run as root,
/// as in .ci/run), and then fail, never skip, when the mount fails.
fn small_filesystem(dir: &Path) -> Mount {
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs", s(dir)])
        .status()
        .is_ok_and(|st| st.success());
    assert!(
        ok,
        "mount -t tmpfs failed: this test needs root (run it as root, or leave it ignored)"
    );
    Mount(dir.to_path_buf())
}

#[test]
#[ignore = "mounts a tmpfs: needs root (tools/test.sh runs it as root)"]
fn a_full_disk_is_an_error_not_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let full = d.join("full");
    std::fs::create_dir(&full).unwrap();
    let _mount = small_filesystem(&full);
    // A 2^19-row composition: 2 MiB raw, twice the filesystem.
    let sol = d.join("s.nqb");
    assert_eq!(
        run(&["generate", "solution", "--n", "524287", "-o", s(&sol)]).0,
        0
    );
    let comp = d.join("c.nqb");
    nq(&[
        "generate",
        "composition",
        "--from",
        s(&sol),
        "--seed",
        "3",
        "-o",
        s(&comp),
    ])
    .ok();
    let cases = [
        "complete COMP --seed 1 -o FULL/out.nqb",
        "complete COMP --seed 1 -o FULL/out.txt",
        "complete COMP --seed 1 -o FULL/out.mat",
        "complete COMP --seed 1 -o FULL/out.zst",
        "generate solution --random --n 524287 --seed 1 -o FULL/r.nqb",
        "generate solution --n 524287 -o FULL/g.txt",
        "convert SOL FULL/x.nqb",
        "convert SOL --to mat-v73 FULL/x.mat",
    ];
    for case in cases {
        let args = words(
            case,
            &[("COMP", s(&comp)), ("SOL", s(&sol)), ("FULL", s(&full))],
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.lines().count() == 1
                && err.contains("No space left on device")
                && err.contains(s(&full)),
            "{args:?}: {err}"
        );
        assert!(
            listing(&full).is_empty(),
            "{args:?}: {:?} left",
            listing(&full)
        );
    }
    // The manual pages are small: the disk filled up to its last 16 KiB first, the set
    // of pages is written whole or not at all.
    let filler = full.join("filler");
    std::fs::write(&filler, vec![1u8; (1 << 20) - (16 << 10)]).unwrap();
    let man = full.join("man");
    let (code, _, err) = run(&["man", "--dir", s(&man)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(listing(&man).is_empty(), "{:?} left", listing(&man));
}

/// The answer to a deflated v7.3 file is that file copied and patched: a disk that fills
/// during the copy is an error naming the output, and leaves nothing behind.
#[test]
#[ignore = "mounts a tmpfs: needs root (tools/test.sh runs it as root)"]
fn a_full_disk_while_the_input_is_copied_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    let _mount = small_filesystem(&full);
    let input = data("mat/h5py-v73-patchable.mat");
    let out = full.join("out.mat");
    // Room for the 8 kB work file beside the output, not for the 20 kB copy.
    let free = 16 << 10;
    let filler = full.join("filler");
    std::fs::write(&filler, vec![1u8; (1 << 20) - free]).unwrap();
    let (code, _, err) = run(&["complete", s(&input), "-o", s(&out), "--seed", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.lines().count() == 1
            && err.contains("No space left on device")
            && err.contains(s(&out)),
        "{err}"
    );
    assert_eq!(listing(&full), ["filler"]);
    // With the room, the same run writes the patched file.
    std::fs::remove_file(&filler).unwrap();
    let (code, stdout, err) = run(&["complete", s(&input), "-o", s(&out), "--seed", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("written as the input file"), "{stdout}");
}

#[test]
fn the_work_file_goes_beside_the_output_not_to_tmpdir() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(data("grigoryan-n100-k47.txt"), d.join("c.txt")).unwrap();
    // With TMPDIR unusable, a work file put there would fail the run.
    let o = nqueens()
        .current_dir(d)
        .env("TMPDIR", d.join("does-not-exist"))
        .args(["complete", "c.txt", "-o", "out.txt", "--seed", "1", "-q"])
        .output()
        .unwrap();
    assert_ok(&o);
    assert_eq!(listing(d), ["c.txt", "out.txt"]);
}

/// A raw NQB input truncated while it is read (mapped) ends the run with an error
/// naming the cause, never with SIGBUS, and leaves no temporary file.
#[test]
fn an_input_truncated_while_mapped_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = d.join("big.nqb");
    assert_eq!(
        run(&["generate", "solution", "--n", "20000000", "-o", s(&big)]).0,
        0
    );
    let bytes = std::fs::read(&big).unwrap();
    let mut stopped = 0;
    for delay_ms in [20, 60, 150, 300, 600] {
        std::fs::write(&big, &bytes).unwrap();
        let child = process()
            .current_dir(d)
            .args(["convert", "big.nqb", "out.txt"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&big)
            .unwrap()
            .set_len(1000)
            .unwrap();
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let code = o
            .status
            .code()
            .expect("an exit code, not death by a signal");
        assert!(code == 0 || code == 2, "{code}: {err}");
        if code == 2 {
            stopped += 1;
            assert_eq!(err.lines().count(), 1, "{err}");
        }
        assert!(
            listing(d).iter().all(|f| !f.starts_with(".nqueens")),
            "temporary file left: {:?}",
            listing(d)
        );
        let _ = std::fs::remove_file(d.join("out.txt"));
    }
    assert!(stopped > 0, "the input was never truncated in time");
}

#[test]
fn closed_pipes_end_quietly_and_full_stdout_is_an_error() {
    // The reader goes away after one line: no message, exit 0 (like cat and ripgrep).
    for args in [
        &["count", "--range", "4..13"][..],
        &[
            "verify",
            s(&data("grigoryan-n100-k47.txt")),
            s(&data("grigoryan-n100-k80.txt")),
        ],
        &["info", s(&data("grigoryan-n100-k47.txt"))],
        &["generate", "solution", "--n", "300000"],
        &[
            "complete",
            s(&data("grigoryan-n100-k47.txt")),
            "--seed",
            "1",
        ],
    ] {
        let mut child = process()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 1];
        use std::io::Read;
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe is closed here, with the rest unread.
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(
            o.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for args in [
        &["count", "8"][..],
        &["verify", s(&data("grigoryan-n100-k47.txt"))],
        &["info", s(&data("grigoryan-n100-k47.txt"))],
        &[
            "complete",
            s(&data("grigoryan-n100-k47.txt")),
            "--seed",
            "1",
        ],
        &["generate", "solution", "--n", "8"],
    ] {
        let o = process().args(args).stdout(full()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.lines().count() == 1 && err.contains("No space left on device"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn arguments_that_used_to_panic_or_run_away() {
    let k47 = data("grigoryan-n100-k47.txt");
    let (code, out, err) = run(&[
        "complete",
        s(&k47),
        "--time-limit",
        "1e300",
        "--seed",
        "1",
        "-q",
    ]);
    assert_eq!((code, out.trim()), (0, "SOLVED"), "{err}");
    let (code, _, err) = run(&["count", "8", "--threads", "1000000000"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--threads 1000000000: at most 4096 threads"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("c.ckpt");
    let (code, _, err) = run(&[
        "count",
        "12",
        "--checkpoint",
        s(&ckpt),
        "--checkpoint-every",
        "1e300",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--checkpoint-every 1e300: too many seconds"),
        "{err}"
    );
    // Negative numbers are values, not options: the error says what is wrong with them
    // instead of clap's "use -- -5" tip, which fails too.
    for (args, needle) in [
        (vec!["count", "-5"], "\"-5\" is not a whole number"),
        (
            vec!["complete", s(&k47), "--time-limit", "-1"],
            "--time-limit -1: expected a positive number",
        ),
        (
            vec!["generate", "solution", "--n", "-3"],
            "\"-3\" is not a whole number",
        ),
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(needle) && !err.contains("tip:"),
            "{args:?}: {err}"
        );
    }
    // An endless device is recognised as no format from its first bytes, not spooled
    // until the disk is full.
    let (code, _, err) = run(&["verify", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/dev/zero: unrecognized format"), "{err}");
    // The most threads allowed start no more than the machine can use.
    let started = std::time::Instant::now();
    nq(&["verify", s(&k47), "--threads", "4096"]).ok();
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

/// An output whose directory is missing, is a file, or cannot be written is refused
/// before the command runs, naming the user's path, never an internal temporary name.
#[test]
fn an_unwritable_output_is_named_as_the_user_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let k47 = data("grigoryan-n100-k47.txt");
    std::fs::write(d.join("file"), "x").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["complete", "K", "-o", "nodir/x.nqb"],
            "nodir/x.nqb: cannot write: directory nodir does not exist",
        ),
        (
            &["complete", "K", "-o", "x.nqb", "--trace", "nodir/t.csv"],
            "nodir/t.csv: cannot write: directory nodir does not exist",
        ),
        (
            &["complete", "K", "-o", "file/x.nqb"],
            "file/x.nqb: cannot write: file is not a directory",
        ),
        (
            &["convert", "K", "nodir/x.mat"],
            "nodir/x.mat: cannot write: directory nodir does not exist",
        ),
        (
            &["count", "8", "--first", "-o", "nodir/x.txt"],
            "nodir/x.txt: cannot write: directory nodir does not exist",
        ),
        (
            &["generate", "solution", "--n", "8", "-o", "nodir/x.txt"],
            "nodir/x.txt: cannot write: directory nodir does not exist",
        ),
    ];
    for (args, want) in cases {
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "K" { s(&k47) } else { a })
            .collect();
        let (code, out, err) = run_in(d, &args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.trim(), format!("nqueens: {want}"), "{args:?}");
        assert!(!out.contains("SOLVED"), "{args:?}: the run did not start");
    }
    assert_eq!(listing(d), ["file"]);
}

#[test]
fn octave_and_hdf5_files_read_as_written() {
    let oct = |name: &str| data("octave").join(name);
    for (name, want) in [
        ("octave-text-uint32.txt", "VALID SOLUTION (n = 8)"),
        ("octave-text-column.txt", "VALID SOLUTION (n = 4)"),
        ("octave-text-workspace.txt", "VALID SOLUTION (n = 4)"),
        ("octave-text-composition.txt", "VALID COMPOSITION (4 of 6)"),
        ("octave-hdf5-uint32.h5", "VALID SOLUTION (n = 8)"),
        ("octave-hdf5-workspace.h5", "VALID SOLUTION (n = 4)"),
        ("hdf5-plain-1d.h5", "VALID SOLUTION (n = 4)"),
        // Recognised by content whatever the name: Octave's default `save('x.mat', 'Q')`
        // is text; -binary, -zip (gzip of text or binary) and -v4, and scipy's MAT v4.
        ("octave-default-text.mat", "VALID SOLUTION (n = 4)"),
        ("octave-binary-double.mat", "VALID SOLUTION (n = 4)"),
        ("octave-binary-uint32.mat", "VALID SOLUTION (n = 8)"),
        ("octave-binary-int8-column.mat", "VALID SOLUTION (n = 4)"),
        // A struct before Q is walked past by its declared sizes (issue 44).
        ("octave-binary-struct-first.mat", "VALID SOLUTION (n = 4)"),
        ("octave-zip-text.mat", "VALID SOLUTION (n = 4)"),
        ("octave-zip-binary.mat", "VALID SOLUTION (n = 4)"),
        ("octave-v4.mat", "VALID SOLUTION (n = 4)"),
        ("scipy-v4-double.mat", "VALID SOLUTION (n = 4)"),
        ("scipy-v4-column-int.mat", "VALID SOLUTION (n = 4)"),
    ] {
        let (code, out, err) = run(&["verify", s(&oct(name))]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains(want), "{name}: {out}");
    }
    // The values, not the dimensions line, are the rows.
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("q.txt");
    assert_eq!(
        run(&["convert", s(&oct("octave-text-uint32.txt")), s(&txt)]).0,
        0
    );
    assert_eq!(
        std::fs::read_to_string(&txt).unwrap(),
        "1\n5\n8\n6\n3\n7\n2\n4\n"
    );
    for (name, needle) in [
        (
            "octave-text-string.txt",
            "Octave text file: variable Q is of type \"string\"",
        ),
        (
            "hdf5-plain-two.h5",
            "HDF5 file (not MATLAB v7.3): 2 variables could be the board, name one with --var",
        ),
        (
            "hdf5-plain-scalar.h5",
            "HDF5 file (not MATLAB v7.3): variable Q is an HDF5 scalar",
        ),
    ] {
        let (code, _, err) = run(&["verify", s(&oct(name))]);
        assert_eq!(code, 2, "{name}");
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{name}: {err}"
        );
    }
    let (code, out, _) = run(&["verify", "--var", "b", s(&oct("hdf5-plain-two.h5"))]);
    assert_eq!(code, 0);
    assert!(out.contains("VALID SOLUTION (n = 4)"));
    // A workspace with Q among other variables needs no --var, in MAT v6 and v7 too.
    for name in ["octave-v6-workspace.mat", "octave-v7-workspace.mat"] {
        let (code, out, err) = run(&["verify", s(&oct(name))]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("VALID SOLUTION (n = 4)"), "{name}: {out}");
    }
}

/// An Octave `save -binary` workspace whose board `Q` lies after a string, a cell (holding
/// a string and a nested cell) and a struct (issue 44): the other variables are walked past
/// by their declared sizes, with or without `--var`, and `complete` answers it in text and
/// in MAT v5. A string cut short is refused on one line naming the file.
#[test]
fn octave_binary_workspace_with_a_string_a_cell_and_a_struct() {
    let input = data("octave/octave-binary-workspace.bin");
    for args in [&["verify", "--var", "Q"][..], &["verify"][..]] {
        let (code, out, err) = run(&[args, &[s(&input)]].concat());
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(
            out.contains("VALID COMPOSITION (5 of 8)"),
            "{args:?}: {out}"
        );
    }
    for (var, kind) in [("name", "string"), ("c", "cell"), ("s", "scalar struct")] {
        let (code, _, err) = run(&["verify", "--var", var, s(&input)]);
        assert_eq!(code, 2, "{var}");
        assert!(
            err.contains(&format!(
                "variable {var} is of type \"{kind}\", expected a numeric vector"
            )),
            "{var}: {err}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    for name in ["out.bin", "out.mat"] {
        let out = dir.path().join(name);
        let (code, _, err) = run(&["complete", s(&input), "-o", s(&out)]);
        assert_eq!(code, 0, "{name}: {err}");
        let (code, v, err) = run(&["verify", "--require-complete", "--base", s(&input), s(&out)]);
        assert_eq!(code, 0, "{name}: {v}{err}");
        assert!(v.contains("VALID SOLUTION (n = 8)"), "{name}: {v}");
    }
    let (code, info, _) = run(&["info", s(&dir.path().join("out.mat"))]);
    assert_eq!(code, 0);
    assert!(info.contains("Q, 1x8 double"), "{info}");
    // The string `name` ("hello") cut after two of its characters.
    let bytes = std::fs::read(&input).unwrap();
    let at = bytes.windows(5).position(|w| w == b"hello").unwrap();
    let cut = dir.path().join("cut.bin");
    std::fs::write(&cut, &bytes[..at + 2]).unwrap();
    for args in [
        &["verify", "--var", "Q"][..],
        &["complete", "-o", "x.txt"][..],
    ] {
        let (code, out, err) = run_in(dir.path(), &[args, &[s(&cut)]].concat());
        assert_eq!(code, 2, "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!(
                "nqueens: {}: Octave binary file: name's values",
                cut.display()
            )) && err.contains("need more than the 2 bytes left"),
            "{err}"
        );
    }
    assert!(!dir.path().join("x.txt").exists());
}

#[test]
fn dash_is_standard_input_and_output() {
    let k47 = std::fs::read(data("grigoryan-n100-k47.txt")).unwrap();
    // Text in, verify.
    let o = nqueens()
        .args(["verify", "-"])
        .write_stdin(k47.clone())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "-: VALID COMPOSITION (47 of 100)"
    );
    // Binary in (spooled, then mapped), info and verify.
    let dir = tempfile::tempdir().unwrap();
    let nqb = std::fs::read(k47_nqb(dir.path(), "c.nqb")).unwrap();
    let o = nqueens()
        .args(["info", "-"])
        .write_stdin(nqb.clone())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("NQB raw"));
    // Complete from stdin to stdout: the solution alone on stdout, the report on stderr.
    let o = nqueens()
        .args(["complete", "-", "-o", "-", "--seed", "1"])
        .write_stdin(k47.clone())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 100, "{out}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("SOLVED"));
    let o = nqueens()
        .args(["verify", "--require-complete", "-"])
        .write_stdin(o.stdout)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "-: VALID SOLUTION (n = 100)"
    );
    // Binary in, text out; nothing named `-` appears.
    let o = nqueens()
        .current_dir(dir.path())
        .args(["convert", "-", "-"])
        .write_stdin(nqb)
        .output()
        .unwrap();
    assert_ok(&o);
    assert_eq!(o.stdout, k47);
    assert_eq!(listing(dir.path()), ["c.nqb"]);
    let o = nqueens()
        .args(["generate", "solution", "--n", "8", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 8);
    // Small whole-file inputs too: a CSPLib instance, and count results to merge.
    let nauck = std::fs::read(data("csplib/nauck-1850.param")).unwrap();
    let o = nqueens()
        .args(["complete", "-", "--seed", "1", "-q"])
        .write_stdin(nauck)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "SOLVED");
    let shard = nqueens()
        .args(["count", "8", "--json"])
        .output()
        .unwrap()
        .stdout;
    let o = nqueens()
        .args(["count", "merge", "-"])
        .write_stdin(shard)
        .output()
        .unwrap();
    assert_ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("placements: 92"));
    // A corrupt binary file from a pipe is named `-` in the error.
    let o = nqueens()
        .args(["verify", "-"])
        .write_stdin(vec![0x8b, b'N', b'Q'])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("nqueens: -: "));
}

#[test]
fn a_named_pipe_is_read_like_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let nqb = k47_nqb(dir.path(), "c.nqb");
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let bytes = std::fs::read(&nqb).unwrap();
    let f2 = fifo.clone();
    let writer = std::thread::spawn(move || std::fs::write(&f2, bytes).unwrap());
    let (code, out, err) = run(&["verify", s(&fifo)]);
    writer.join().unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("VALID COMPOSITION (47 of 100)"), "{out}");
}

#[test]
fn a_symlinked_output_writes_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("real")).unwrap();
    std::fs::write(d.join("real/old.txt"), "old\n").unwrap();
    std::os::unix::fs::symlink("real/old.txt", d.join("link.txt")).unwrap();
    std::os::unix::fs::symlink("real/new.txt", d.join("dangling.txt")).unwrap();
    let k47 = data("grigoryan-n100-k47.txt");
    for link in ["link.txt", "dangling.txt"] {
        let (code, _, err) = run_in(d, &["convert", s(&k47), link]);
        assert_eq!(code, 0, "{err}");
        assert!(
            std::fs::symlink_metadata(d.join(link))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    let want = std::fs::read(&k47).unwrap();
    assert_eq!(std::fs::read(d.join("real/old.txt")).unwrap(), want);
    assert_eq!(std::fs::read(d.join("real/new.txt")).unwrap(), want);
    assert_eq!(
        listing(&d.join("real")),
        ["new.txt", "old.txt"],
        "temporaries beside the target removed"
    );
    // A replaced file keeps its mode, like `cp`; a new one gets 0666 less the umask.
    use std::os::unix::fs::PermissionsExt;
    let private = d.join("private.txt");
    std::fs::write(&private, "x\n").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(run_in(d, &["convert", s(&k47), "private.txt"]).0, 0);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&private), 0o600);
    let umask = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .map(|v| u32::from_str_radix(v.trim(), 8).unwrap())
        .unwrap();
    assert_eq!(mode(&d.join("real/new.txt")), 0o666 & !umask);
    // /dev/stdout is a link to the process's descriptor: written into, never replaced.
    let o = nqueens()
        .args(["convert", s(&k47), "/dev/stdout", "--to", "text"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout, want);
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn count_from_a_board_with_a_value_above_n_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big.nqb");
    write_raw_nqb(&f, 4, &[2, 9, 0, 0]);
    let (code, _, err) = run(&["count", "--from", s(&f)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("row 2: column 9 is off the 4 x 4 board"),
        "{err}"
    );
}

/// Under a memory limit (`ulimit -v`), a file that needs more memory than allowed is
/// answered with one line and exit 2, naming the file, not by an abort (SIGABRT) that
/// leaves temporary files: a 41-byte CSPLib file with the largest n, and verifying a MAT
/// v7 file whose zlib stream inflates to 2^26 rows (converting it streams its rows).
#[test]
fn a_memory_limit_is_an_error_not_an_abort() {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csplib = d.join("max.param");
    std::fs::write(&csplib, "letting n = 4294967295\nletting init = []\n").unwrap();
    // MAT v7: one compressed uint8 1 x 2^28 matrix of ones.
    let n: u32 = 1 << 26;
    let element = |t: u32, data: &[u8]| {
        let mut e = Vec::new();
        e.extend_from_slice(&t.to_le_bytes());
        e.extend_from_slice(&(data.len() as u32).to_le_bytes());
        e.extend_from_slice(data);
        e.resize(e.len().next_multiple_of(8), 0);
        e
    };
    let mut body = element(6, &[9, 0, 0, 0, 0, 0, 0, 0]);
    body.extend(element(
        5,
        &[1, 0, 0, 0]
            .iter()
            .chain(&n.to_le_bytes())
            .copied()
            .collect::<Vec<u8>>(),
    ));
    body.extend(element(1, b"Q"));
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(&14u32.to_le_bytes()).unwrap();
    z.write_all(&(body.len() as u32 + 8 + n).to_le_bytes())
        .unwrap();
    z.write_all(&body).unwrap();
    z.write_all(&2u32.to_le_bytes()).unwrap();
    z.write_all(&n.to_le_bytes()).unwrap();
    let ones = vec![1u8; 1 << 20];
    for _ in 0..(n >> 20) {
        z.write_all(&ones).unwrap();
    }
    let compressed = z.finish().unwrap();
    let mut mat = format!("{:<116}", "MATLAB 5.0 MAT-file").into_bytes();
    mat.extend_from_slice(&[0; 8]);
    mat.extend_from_slice(&0x100u16.to_le_bytes());
    mat.extend_from_slice(b"IM");
    mat.extend_from_slice(&15u32.to_le_bytes());
    mat.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
    mat.extend_from_slice(&compressed);
    let bomb = d.join("bomb.mat");
    std::fs::write(&bomb, &mat).unwrap();
    let limited_to = |mib: u64, args: &[&str]| {
        let mut cmd = process();
        cmd.current_dir(d).args(args);
        // SAFETY: setrlimit in the child before exec; async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: mib << 20,
                    rlim_max: mib << 20,
                };
                libc::setrlimit(libc::RLIMIT_AS, &limit);
                Ok(())
            });
        }
        cmd.output().unwrap()
    };
    // 160 MiB: the board of 2^26 rows takes 256 MiB as u32.
    for args in [
        vec!["verify", s(&csplib)],
        vec!["info", s(&csplib)],
        vec!["verify", s(&bomb)],
    ] {
        let o = limited_to(160, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        // The MAT file's rows are inflated a window at a time: where the rest of the
        // address space leaves room (now and then, in a debug build), verify answers
        // (every row 1: invalid, exit 1) instead. Either way, never an abort.
        if args[1] == s(&bomb) && o.status.code() == Some(1) {
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(out.contains("INVALID") && err.is_empty(), "{out}{err}");
            continue;
        }
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        // Where the limit leaves no room for the worker threads' stacks (now and then,
        // in a debug build), the command says so before it reads anything.
        assert!(
            (err.contains(args[1]) && err.contains("out of memory"))
                || err.starts_with("nqueens: cannot start the threads"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(listing(d), ["bomb.mat", "max.param"], "nothing left behind");
    // Converting the MAT file needs its rows a window at a time, not whole (256 MiB as
    // u32): it fits the limit.
    let o = limited_to(256, &["convert", s(&bomb), "out.nqbz"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (code, out, err) = crate::common::run(&["info", s(&d.join("out.nqbz"))]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("67108864"), "{out}");
}

/// Binary output is not written to a terminal (as zstd refuses): standard output here is
/// a pseudo-terminal.
#[test]
fn binary_output_is_not_written_to_a_terminal() {
    let (_master, slave) = crate::common::pty();
    let k47 = data("grigoryan-n100-k47.txt");
    for args in [
        vec!["convert", s(&k47), "-", "--to", "nqb"],
        vec!["complete", s(&k47), "-o", "-", "--encoding", "raw"],
    ] {
        let o = process()
            .args(&args)
            .stdout(slave.try_clone().unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("the output is binary and standard output is a terminal"),
            "{args:?}: {err}"
        );
    }
    // Text is fine on a terminal.
    let o = process()
        .args(["convert", s(&k47), "-", "--to", "text"])
        .stdout(slave.try_clone().unwrap())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
