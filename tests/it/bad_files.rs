//! Every input in tests/data/bad (each once crashed a reader, aborted, or made a few bytes
//! allocate gigabytes) through the binary, as `expect.tsv` there says: the documented exit
//! code, one line naming the file and the problem, no output file left, and peak memory
//! bounded: each child's own peak (see `run_bounded`), so that neither this test process
//! nor children of other tests running at the same time count.

use crate::common::{data, listing, run_bounded};

/// Runs the binary with `args`: exit code, standard output and error, and the child's
/// own peak resident memory in KiB.
fn run_measured(args: &[String]) -> (Option<i32>, String, String, i64) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Generous: every case ends in well under a second.
    let r = run_bounded(&args, &[], std::time::Duration::from_secs(120));
    assert!(!r.killed, "{args:?} still ran after 120 s");
    (r.code, r.stdout, r.stderr, r.peak_kib)
}

#[test]
fn every_regression_input_fails_cleanly_in_bounded_memory() {
    let dir = data("bad");
    let manifest = std::fs::read_to_string(dir.join("expect.tsv")).unwrap();
    let mut listed = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 4, "expect.tsv: {line}");
        let (name, code, command, needle) = (f[0], f[1].parse::<i32>().unwrap(), f[2], f[3]);
        listed.push(name.to_string());
        let file = dir.join(name);
        let out = tempfile::tempdir().unwrap();
        let args: Vec<String> = command
            .split(' ')
            .map(|a| {
                a.replace("FILE", file.to_str().unwrap())
                    .replace("DATA", data("").to_str().unwrap().trim_end_matches('/'))
                    .replace("OUT", out.path().to_str().unwrap())
            })
            .collect();
        let before = std::fs::read(&file).unwrap();
        let (status, stdout, stderr, peak) = run_measured(&args);
        assert_eq!(status, Some(code), "{name}: {stdout}{stderr}");
        // Before the fixes several of these took 1.4 to 4 GB; a composition of 184 million
        // rows (the CSPLib case) is verified in well under this.
        assert!(peak < 300 * 1024, "{name}: the child peaked at {peak} KiB");
        assert!(
            stdout.contains(needle) || stderr.contains(needle),
            "{name}: {stdout}{stderr}"
        );
        if code == 2 {
            assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
            assert!(
                stderr.contains(name),
                "{name}: the error names the file: {stderr}"
            );
            assert!(listing(out.path()).is_empty(), "{name}: output left behind");
        }
        assert_eq!(
            std::fs::read(&file).unwrap(),
            before,
            "{name}: input changed"
        );
    }
    // Every file in the directory is a case.
    let mut present = listing(&dir);
    present.retain(|f| f != "expect.tsv");
    listed.sort();
    assert_eq!(
        present, listed,
        "files in tests/data/bad without a line in expect.tsv"
    );
}
