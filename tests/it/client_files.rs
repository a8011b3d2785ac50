//! Files written by the real clients (scipy, h5py, GNU Octave) that the differential test
//! `tools/diff_clients.py` found misread or refused against the docs, one per class, in
//! `tests/data/clients` (made by `tools/make_client_fixtures.py`); and the differential
//! test itself, on a few hundred random files per client.

use crate::common::{data, listing, nqueens};

/// What `convert FILE out.txt` did: the rows read, or a refusal's one line.
#[derive(Debug, PartialEq)]
enum Outcome {
    Read(String),
    Refused(String),
}

fn convert(file: &std::path::Path) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.txt");
    let run = nqueens()
        .arg("convert")
        .arg(file)
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    match run.status.code() {
        Some(0) => {
            let rows = std::fs::read_to_string(&out).unwrap();
            Outcome::Read(rows.split_whitespace().collect::<Vec<_>>().join(" "))
        }
        Some(2) => {
            assert_eq!(stderr.lines().count(), 1, "{}: {stderr}", file.display());
            assert!(
                stderr.contains(file.to_str().unwrap()),
                "the error names the file: {stderr}"
            );
            assert!(listing(dir.path()).is_empty(), "output left behind");
            Outcome::Refused(stderr)
        }
        other => panic!("{}: exit {other:?}: {stderr}", file.display()),
    }
}

/// Whether `got` is what `want` (`read ROWS` or `refuse TEXT`) says.
fn matches(got: &Outcome, want: &str) -> bool {
    match (got, want.split_once(' ')) {
        (Outcome::Read(rows), Some(("read", w))) => rows == w,
        (Outcome::Refused(line), Some(("refuse", w))) => line.contains(w),
        _ => false,
    }
}

#[test]
fn files_the_clients_wrote_read_as_the_docs_say_or_as_their_open_bug() {
    let dir = data("clients");
    let manifest = std::fs::read_to_string(dir.join("expect.tsv")).unwrap();
    let mut listed = vec!["expect.tsv".to_string()];
    let mut open = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f.len() == 2 || f.len() == 4, "expect.tsv: {line}");
        listed.push(f[0].to_string());
        let got = convert(&dir.join(f[0]));
        if matches(&got, f[1]) {
            if f.len() == 4 {
                // Fixed: the line keeps only what the docs say.
                panic!(
                    "{}: now gives what the docs say; remove the bug '{}' from expect.tsv \
                     (and its model from tools/diff_clients.py)",
                    f[0], f[2]
                );
            }
            continue;
        }
        assert!(
            f.len() == 4 && matches(&got, f[3]),
            "{}: {got:?}, expected {:?}{}",
            f[0],
            f[1],
            f.get(3)
                .map(|n| format!(" (or, while {} is open, {n:?})", f[2]))
                .unwrap_or_default()
        );
        open.push(f[2]);
    }
    listed.sort();
    assert_eq!(
        listing(&dir),
        listed,
        "files in tests/data/clients without a line in expect.tsv"
    );
    eprintln!("open bugs reproduced: {open:?}");
}

/// tools/diff_clients.py on 300 random files per client with a fixed seed, through this
/// build's binary (debug: overflow checks on). It needs python3 with scipy, h5py and NumPy,
/// and GNU Octave: tools/test.sh installs them, and a missing one fails here, never skips.
/// `--strict`: it fails on any mismatch, a known bug's too (none is open).
#[test]
fn random_files_the_clients_wrote_read_as_the_clients_read_them() {
    let keep = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-mismatches");
    let _ = std::fs::remove_dir_all(&keep);
    let run = std::process::Command::new("python3")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tools/diff_clients.py", "--client", "all", "--count", "300"])
        .args(["--seed", "43", "--strict", "--bin"])
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .arg("--keep")
        .arg(&keep)
        .output()
        .expect("python3 is needed (tools/test.sh installs scipy, h5py, NumPy and Octave)");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    eprintln!("{stdout}");
    assert!(
        run.status.success(),
        "tools/diff_clients.py failed; the files are in {}:\n{stdout}\n{stderr}",
        keep.display()
    );
    // Every client ran: no client may pass by writing nothing.
    for client in ["scipy", "h5py", "numpy", "octave"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(client) && l.contains("files    300")),
            "{client} did not write 300 files:\n{stdout}"
        );
    }
}
