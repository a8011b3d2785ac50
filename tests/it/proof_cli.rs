//! DRAT proofs beside certificates, verified by an independent checker: `rate` (crates.io,
//! which tools/test.sh installs). A missing checker fails these tests: they never pass by
//! skipping.

use crate::common::{data, listing, run};
use std::path::{Path, PathBuf};

/// The checker: `rate` on PATH, else in cargo's bin directory (where tools/test.sh and
/// tools/check_proof.sh install it).
fn rate() -> PathBuf {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("rate"))
            .find(|p| p.is_file())
    });
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    on_path
        .or_else(|| {
            cargo_home
                .map(|h| h.join("bin/rate"))
                .filter(|p| p.is_file())
        })
        .expect("the DRAT checker rate is needed: tools/test.sh installs it (cargo install rate)")
}

/// Runs the checker on `cnf` and `proof`: whether it answered `s VERIFIED` (exit 0), and
/// its report.
fn check(cnf: &Path, proof: &Path) -> (bool, String) {
    let out = std::process::Command::new(rate())
        .arg(cnf)
        .arg(proof)
        .output()
        .expect("rate runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let verified = text.lines().any(|l| l == "s VERIFIED");
    assert_eq!(
        verified,
        out.status.success(),
        "rate's answer and exit code disagree: {text}"
    );
    (verified, text)
}

#[test]
fn infeasible_instances_get_proofs_a_checker_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures: Vec<String> = listing(&data("csplib"))
        .into_iter()
        .filter(|n| n.starts_with("ed-") && n.contains("-infeasible-") && n.ends_with(".txt"))
        .collect();
    assert!(fixtures.len() >= 10, "{fixtures:?}");
    let mut rejected = 0;
    for name in &fixtures {
        let stem = name.strip_suffix(".txt").unwrap();
        let json = dir.path().join(format!("{stem}.json"));
        let input = data("csplib").join(name);
        let (code, _, err) = run(&[
            "complete",
            input.to_str().unwrap(),
            "--certificate",
            json.to_str().unwrap(),
            "-q",
        ]);
        assert_eq!(code, 3, "{name}: {err}");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["certificate"]["kind"], "exhausted_search", "{name}");
        let (cnf, drat) = (json.with_extension("cnf"), json.with_extension("drat"));
        assert_eq!(doc["proof"]["file"], drat.to_str().unwrap(), "{name}");
        let text = std::fs::read_to_string(&drat).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let lemmas = lines.iter().filter(|l| !l.starts_with("d ")).count();
        assert_eq!(doc["proof"]["lemmas"], lemmas as u64, "{name}");
        assert_eq!(lines.last(), Some(&"0"), "{name}: ends in the empty clause");
        let (ok, report) = check(&cnf, &drat);
        assert!(ok, "{name}: {report}");
        // A proof cut to its first half lacks the lemmas that refute the root's branches.
        // (A proof cut by a few lines may still be one: the checker accepts a proof whose
        // lemmas give a conflict by unit propagation without the empty clause.)
        if lines.len() > 10 {
            let cut = dir.path().join(format!("{stem}-cut.drat"));
            std::fs::write(&cut, lines[..lines.len() / 2].join("\n") + "\n").unwrap();
            let (ok, report) = check(&cnf, &cut);
            assert!(!ok, "{name}: a cut proof was verified: {report}");
            rejected += 1;
        }
    }
    assert!(rejected >= 8, "{rejected}");
}

#[test]
fn a_certificate_without_search_gets_a_proof_too() {
    // k92: a free column with no free cell, a conflict of unit propagation at once.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("k92.json");
    let input = data("grigoryan-n100-k92.txt");
    let (code, _, err) = run(&[
        "complete",
        input.to_str().unwrap(),
        "--certificate",
        json.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 3, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["proof"]["lemmas"], 1);
    let (ok, report) = check(&json.with_extension("cnf"), &json.with_extension("drat"));
    assert!(ok, "{report}");
}
