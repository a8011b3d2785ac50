//! CSPLib 079 files through the binary: completion instances read and written, Excluded
//! Diagonals instances decided through the reduction (tools/make_csplib_fixtures.py made
//! the fixtures and counted their solutions independently), and DIMACS CNF round trips
//! through a real SAT solver (`cadical`, which .ci/run installs).

use crate::common::{data, listing, nq, run};
use std::path::Path;

/// The excluded diagonals of an instance file, read here without the library: the list
/// after `diags`, cut to `numdiags`.
fn excluded(path: &Path) -> (u64, Vec<(u64, u64)>) {
    let text = std::fs::read_to_string(path).unwrap();
    let value = |key: &str| {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().any(|w| w == key))
            .unwrap();
        let v = line
            .split_once(" = ")
            .or_else(|| line.split_once(" be "))
            .unwrap()
            .1;
        v.trim().to_string()
    };
    let m: u64 = value("n").parse().unwrap();
    let d: usize = value("numdiags").parse().unwrap();
    let all: Vec<(u64, u64)> = serde_json::from_str(&value("diags")).unwrap();
    (m, all[..d].to_vec())
}

fn rows_of(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect()
}

/// Checks an m-board solution against its instance, independently of the library.
fn assert_solves(q: &[u64], m: u64, excluded: &[(u64, u64)]) {
    assert_eq!(q.len() as u64, m);
    for (r, &c) in q.iter().enumerate() {
        let (r, c) = (r as u64, c - 1);
        assert!(c < m);
        assert!(
            !excluded.contains(&(r + c, 1)),
            "row {r} on an excluded sum diagonal"
        );
        assert!(
            !excluded.contains(&(r + m - 1 - c, 0)),
            "row {r} on an excluded difference diagonal"
        );
    }
    let rows: Vec<u32> = q.iter().map(|&c| c as u32).collect();
    assert!(crate::common::oracle::is_solution(&rows), "{rows:?}");
}

fn instances() -> Vec<(std::path::PathBuf, u64)> {
    listing(&data("csplib"))
        .into_iter()
        .filter_map(|name| {
            let stem = name.strip_suffix(".expected")?;
            let count = std::fs::read_to_string(data("csplib").join(&name)).unwrap();
            Some((
                data("csplib").join(format!("{stem}.txt")),
                count.trim().parse().unwrap(),
            ))
        })
        .collect()
}

#[test]
fn excluded_diagonals_instances_are_decided_and_solutions_map_back() {
    let dir = tempfile::tempdir().unwrap();
    let all = instances();
    assert!(all.len() >= 20);
    let path_of = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (path, count) in all {
        let p = path.to_str().unwrap();
        let (m, ex) = excluded(&path);
        // By default the answer is the instance's own m rows.
        let sol = path_of("sol.txt");
        let _ = std::fs::remove_file(&sol);
        let (code, out, err) = run(&["complete", p, "-o", &sol, "--quiet", "--seed", "7"]);
        if count == 0 {
            assert_eq!(code, 3, "{p}: {out}{err}");
            assert!(out.starts_with("INFEASIBLE: exact search of the"), "{out}");
            assert!(!Path::new(&sol).exists());
            continue;
        }
        assert_eq!(code, 0, "{p}: {out}{err}");
        assert_eq!(rows_of(Path::new(&sol)).len() as u64, m, "{p}");
        assert_solves(&rows_of(Path::new(&sol)), m, &ex);
        // verify --base checks those rows inside the reduced board.
        let (code, out, _) = run(&["verify", "--require-complete", "--base", p, &sol]);
        assert_eq!(code, 0, "{p}: {out}");
        // With --reduced, the completion board it reduces to; convert --base maps it back.
        let reduced = path_of("reduced.nqb");
        let (code, out, err) = run(&[
            "complete",
            p,
            "--reduced",
            "-o",
            &reduced,
            "--quiet",
            "--seed",
            "7",
        ]);
        assert_eq!(code, 0, "{p}: {out}{err}");
        nq(&["verify", "--require-complete", "--base", p, &reduced]).ok();
        let back = path_of("back.txt");
        nq(&["convert", &reduced, "--base", p, &back]).ok();
        assert_solves(&rows_of(Path::new(&back)), m, &ex);
    }
}

/// Without -o the instance's rows are shown, in --json too; a wrong m-row answer is
/// refused by verify --base with the conflict it makes in the reduced board.
#[test]
fn excluded_diagonals_answers_are_shown_and_checked_by_their_own_rows() {
    let dir = tempfile::tempdir().unwrap();
    let p = data("csplib").join("ed-14-solvable-1.txt");
    let p = p.to_str().unwrap();
    let (m, ex) = excluded(Path::new(p));
    let (code, out, err) = run(&["complete", p, "--json", "--seed", "3"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let q: Vec<u64> = v["solution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_solves(&q, m, &ex);
    let (code, out, _) = run(&["complete", p, "--seed", "3"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("Excluded Diagonals instance of 14 rows"),
        "{out}"
    );
    let shown: Vec<u64> = out
        .lines()
        .find_map(|l| l.strip_prefix("solution: "))
        .unwrap()
        .split(' ')
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(shown, q);
    // Row 2 given row 1's column: two queens in one column.
    let mut wrong = q.clone();
    wrong[1] = wrong[0];
    let bad = dir.path().join("bad.txt");
    std::fs::write(
        &bad,
        wrong.iter().map(|c| format!("{c}\n")).collect::<String>(),
    )
    .unwrap();
    let (code, out, _) = run(&["verify", "--base", p, bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("INVALID"), "{out}");
    // A 0-based .npy answer is checked with --zero-based, which applies to the answer,
    // not to the instance file (numbered by its own specification).
    let z = dir.path().join("z.npy");
    let z = z.to_str().unwrap();
    crate::common::nq(&[
        "complete",
        p,
        "-o",
        z,
        "--npy-dtype",
        "int8",
        "--npy-base",
        "0",
        "-q",
    ])
    .ok();
    crate::common::nq(&[
        "verify",
        "--zero-based",
        "--require-complete",
        "--base",
        p,
        z,
    ])
    .ok();
}

#[test]
fn completions_of_reduced_boards_are_counted_like_the_instances() {
    for (path, count) in instances() {
        let p = path.to_str().unwrap();
        let (code, out, err) = run(&["count", "--from", p, "--json", "--quiet"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(v["engine"], "residual", "{p}");
        assert!(v["n"].as_u64().unwrap() > 64, "{p}");
        assert_eq!(
            v["placements"]
                .as_str()
                .map(|s| s.parse::<u64>().unwrap())
                .or(v["placements"].as_u64()),
            Some(count),
            "{p}"
        );
    }
}

#[test]
fn diags_option_takes_a_prefix() {
    let p = data("csplib").join("ed-6-infeasible-1.txt");
    // With no diagonal excluded the 6-board has its 4 solutions.
    let (code, out, err) = run(&[
        "count",
        "--from",
        p.to_str().unwrap(),
        "--diags",
        "0",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("placements: 4"), "{out}");
}

#[test]
fn completion_files_round_trip_and_solve() {
    let dir = tempfile::tempdir().unwrap();
    let nauck = data("csplib").join("nauck-1850.param");
    let (code, out, _) = run(&["count", "--from", nauck.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0);
    assert!(out.contains("placements: 3"), "{out}");
    let sol = dir.path().join("nauck-solved.param");
    nq(&[
        "complete",
        nauck.to_str().unwrap(),
        "-o",
        sol.to_str().unwrap(),
        "--quiet",
    ])
    .ok();
    let text = std::fs::read_to_string(&sol).unwrap();
    assert!(
        text.starts_with("letting n = 8\nletting init = [[0,3],"),
        "{text}"
    );
    assert!(text.contains("[5,1]"), "{text}");
    // Any composition to CSPLib and back is unchanged.
    let k47 = data("grigoryan-n100-k47.txt");
    let param = dir.path().join("k47.param");
    let back = dir.path().join("k47.txt");
    assert_eq!(
        run(&["convert", k47.to_str().unwrap(), param.to_str().unwrap()]).0,
        0
    );
    assert_eq!(
        run(&["convert", param.to_str().unwrap(), back.to_str().unwrap()]).0,
        0
    );
    assert_eq!(rows_of(&back), rows_of(&k47));
    let (code, out, _) = run(&["info", param.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("CSPLib"), "{out}");
}

fn cadical(cnf: &Path, model: &Path) -> i32 {
    let out = std::process::Command::new("cadical")
        .args(["-q", cnf.to_str().unwrap()])
        .output()
        .expect("the SAT solver cadical is needed: apt-get install cadical (.ci/run does)");
    std::fs::write(model, &out.stdout).unwrap();
    out.status.code().unwrap()
}

#[test]
fn cnf_round_trips_through_a_sat_solver() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases: Vec<(std::path::PathBuf, bool)> =
        instances().into_iter().map(|(p, c)| (p, c > 0)).collect();
    cases.push((data("csplib").join("nauck-1850.param"), true));
    cases.push((data("grigoryan-n100-k47.txt"), true));
    cases.push((data("grigoryan-n100-k92.txt"), false));
    for (path, satisfiable) in cases {
        let p = path.to_str().unwrap();
        let cnf = dir.path().join("x.cnf");
        let (code, _, err) = run(&["convert", p, cnf.to_str().unwrap(), "--quiet"]);
        assert_eq!(code, 0, "{p}: {err}");
        assert!(std::fs::read_to_string(&cnf).unwrap().contains("\np cnf "));
        let model = dir.path().join("model");
        let status = cadical(&cnf, &model);
        assert_eq!(status, if satisfiable { 10 } else { 20 }, "{p}");
        let sol = dir.path().join("sol.txt");
        let _ = std::fs::remove_file(&sol);
        let (code, _, err) = run(&[
            "convert",
            "--model",
            model.to_str().unwrap(),
            "--base",
            p,
            sol.to_str().unwrap(),
        ]);
        if !satisfiable {
            // The solver's claim is not an INFEASIBLE of ours (exit 3): no model, exit 1.
            assert_eq!(code, 1, "{p}: {err}");
            assert!(err.contains("UNSATISFIABLE, so there is no model"), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(!sol.exists());
            continue;
        }
        assert_eq!(code, 0, "{p}: {err}");
        let (code, out, _) = run(&[
            "verify",
            "--require-complete",
            "--base",
            p,
            sol.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{p}: {out}");
    }
}
