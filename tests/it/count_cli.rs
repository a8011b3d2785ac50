//! `nqueens count` through the binary.

use crate::common::{listing, nq, nqueens, run, shell};
use serde_json::Value;

fn json_lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn counts_queens_with_distinct_and_orders() {
    let (code, out, _) = run(&["count", "8", "--distinct", "--orders"]);
    assert_eq!(code, 0);
    assert!(out.contains("placements: 92\n"), "{out}");
    assert!(out.contains("distinct: 12\n"));
    assert!(out.contains("orders: 3709440\n"));
    let (code, out, _) = run(&["count", "8", "--distinct", "--orders", "--json"]);
    assert_eq!(code, 0);
    let v = &json_lines(&out)[0];
    assert_eq!(
        (v["placements"].as_str(), v["distinct"].as_str()),
        (Some("92"), Some("12"))
    );
    assert_eq!(v["orders"], "3709440");
}

#[test]
fn range_prints_one_row_per_n() {
    let (code, out, _) = run(&["count", "--range", "4..10", "--distinct", "--json"]);
    assert_eq!(code, 0);
    let rows = json_lines(&out);
    let got: Vec<(u64, String, String)> = rows
        .iter()
        .map(|v| {
            (
                v["n"].as_u64().unwrap(),
                v["placements"].as_str().unwrap().into(),
                v["distinct"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [
        (4, 2, 1),
        (5, 10, 2),
        (6, 4, 1),
        (7, 40, 6),
        (8, 92, 12),
        (9, 352, 46),
        (10, 724, 92),
    ];
    for ((n, a, d), (wn, wa, wd)) in got.iter().zip(want) {
        assert_eq!(
            (*n, a.as_str(), d.as_str()),
            (wn, wa.to_string().as_str(), wd.to_string().as_str())
        );
    }
    let (code, table, _) = run(&["count", "--range", "1..3", "--piece", "rook"]);
    assert_eq!(code, 0);
    assert_eq!(table.lines().count(), 4, "{table}");
}

#[test]
fn every_piece_and_kind_runs() {
    for (piece, kind, n, want) in [
        ("queen", "super", "10", "4"),
        ("queen", "awesome", "12", "6"),
        ("rook", "regular", "20", "2432902008176640000"),
        ("rook", "super", "8", "2766"),
        ("rook", "awesome", "8", "276"),
        ("bishop", "regular", "9", "565532992"),
        ("bishop", "super", "6", "9556"),
        ("bishop", "awesome", "6", "2824"),
    ] {
        let (code, out, err) = run(&["count", n, "--piece", piece, "--kind", kind, "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            json_lines(&out)[0]["placements"],
            want,
            "{piece} {kind} {n}"
        );
    }
}

#[test]
fn preplaced_pieces_from_the_command_line_and_from_a_file() {
    let (code, out, _) = run(&["count", "8", "--place", "1:1", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out)[0]["placements"], "4");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.txt");
    std::fs::write(&file, "1\n0\n0\n0\n0\n0\n0\n0\n").unwrap();
    let (code, out, _) = run(&["count", "--from", file.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v = &json_lines(&out)[0];
    assert_eq!(
        (v["n"].as_u64(), v["placements"].as_str()),
        (Some(8), Some("4"))
    );
    // Attacking preplaced pieces: zero, with the reason.
    let (code, out, _) = run(&["count", "8", "--place", "1:1,3:3"]);
    assert_eq!(code, 0);
    assert!(out.contains("attack each other: [1,1] and [3,3]"), "{out}");
    assert!(out.contains("placements: 0"));
    // Off the board: an error naming the square.
    let (code, out, err) = run(&["count", "8", "--place", "9:1"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("row 9, column 1 is off the 8 x 8 board"),
        "{err}"
    );
    let (code, _, err) = run(&["count", "8", "--place", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("ROW:COL"));
}

/// A board given whole (or all but one queen) has one completion, counted by following the
/// given queens; the empty board's engine of n <= 23 (whose tables took 26 s to build at
/// n = 23 before it was ruled out) is not built for it.
#[test]
fn a_full_board_given_counts_one_in_every_shard_sum() {
    let dir = tempfile::tempdir().unwrap();
    for n in ["20", "23", "24"] {
        let file = dir.path().join(format!("s{n}.txt"));
        let f = file.to_str().unwrap();
        let (code, _, err) = run(&["generate", "solution", "--n", n, "-o", f]);
        assert_eq!(code, 0, "{err}");
        let (code, out, _) = run(&["count", "--from", f, "--json"]);
        assert_eq!(
            (code, json_lines(&out)[0]["placements"].as_str()),
            (0, Some("1"))
        );
        let shards: u64 = ["0/2", "1/2"]
            .iter()
            .map(|s| {
                let (code, out, _) = run(&["count", "--from", f, "--shard", s, "--json"]);
                assert_eq!(code, 0);
                json_lines(&out)[0]["placements"]
                    .as_str()
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
            })
            .sum();
        assert_eq!(shards, 1, "n = {n}");
    }
}

#[test]
fn first_prints_a_board_and_writes_a_composition() {
    let (code, out, _) = run(&["count", "8", "--first"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Q . . . . . . .\n"), "{out}");
    assert!(out.contains("columns: 1 5 8 6 3 7 2 4"));
    let (code, out, _) = run(&["count", "3", "--first"]);
    assert_eq!((code, out.as_str()), (3, "no placement exists\n"));
    let dir = tempfile::tempdir().unwrap();
    for name in ["f.nqb", "f.txt"] {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap();
        nq(&["count", "50", "--first", "--place", "1:10", "-o", path]).ok();
        let (code, out, _) = run(&["verify", "--require-complete", path]);
        assert_eq!(code, 0, "{out}");
    }
    let (code, out, _) = run(&[
        "count", "5", "--first", "--piece", "bishop", "--kind", "super",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("squares: "), "{out}");
    let (code, _, err) = run(&["count", "5", "--first", "--piece", "bishop", "-o", "x.nqb"]);
    assert_eq!(code, 2);
    assert!(err.contains("not compositions"));
}

#[test]
fn shards_merge_into_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for i in 0..3 {
        let (code, out, _) = run(&[
            "count",
            "11",
            "--distinct",
            "--shard",
            &format!("{i}/3"),
            "--json",
        ]);
        assert_eq!(code, 0);
        let f = dir.path().join(format!("s{i}.json"));
        std::fs::write(&f, out).unwrap();
        files.push(f.to_str().unwrap().to_string());
    }
    let mut args = vec!["count", "merge", "--json"];
    args.extend(files.iter().map(|s| s.as_str()));
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v = &json_lines(&out)[0];
    assert_eq!(
        (v["placements"].as_str(), v["distinct"].as_str()),
        (Some("2680"), Some("341"))
    );
    let (code, _, err) = run(&["count", "merge", &files[0], &files[1]]);
    assert_eq!(code, 2);
    assert!(
        err.contains("need each shard I/3, I = 0 to S - 1, exactly once: missing 2/3"),
        "{err}"
    );
    let (code, _, err) = run(&["count", "merge", &files[0], &files[1], &files[1], &files[2]]);
    assert_eq!(code, 2);
    assert!(err.contains("given more than once 1/3"), "{err}");
    // A shard counted by another engine (another version's work items) is refused.
    let other = dir.path().join("other.json");
    let text = std::fs::read_to_string(&files[2]).unwrap();
    let v: nqueens::json::CountRecord = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    // Edited by hand: refused by its digest.
    let mut edited: serde_json::Value = serde_json::to_value(&v).unwrap();
    edited["placements"] = "1".into();
    std::fs::write(&other, edited.to_string()).unwrap();
    let (code, _, err) = run(&[
        "count",
        "merge",
        &files[0],
        &files[1],
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("shard 2/3: the record's digest does not match its content"),
        "{err}"
    );
    // Sealed, as another version of nqueens would write it.
    let changed = nqueens::json::CountRecord {
        engine: "constellations".into(),
        items: 98,
        digest: None,
        ..v
    }
    .sealed();
    std::fs::write(&other, serde_json::to_string(&changed).unwrap()).unwrap();
    let (code, _, err) = run(&[
        "count",
        "merge",
        &files[0],
        &files[1],
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("shards counted differently"), "{err}");
    let (code, _, _) = run(&["count", "8", "--shard", "3/3"]);
    assert_eq!(code, 2);
}

#[test]
fn basic_algorithm_and_thread_counts_agree() {
    let (code, out, _) = run(&["count", "10", "--algorithm", "basic", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out)[0]["placements"], "724");
    let (code, _, err) = run(&["count", "6", "--algorithm", "basic", "--piece", "rook"]);
    assert_eq!(code, 2);
    assert!(err.contains("regular queens only"));
    let with_threads = |t: &str| {
        run(&[
            "count",
            "9",
            "--kind",
            "super",
            "--distinct",
            "--place",
            "2:4",
            "--threads",
            t,
            "--json",
        ])
        .1
    };
    let (one, two) = (with_threads("1"), with_threads("3"));
    let strip = |s: &str| {
        let mut v: Value = serde_json::from_str(s.trim()).unwrap();
        v["seconds"] = Value::Null;
        v["digest"] = Value::Null;
        v
    };
    assert_eq!(strip(&one), strip(&two));
}

#[test]
fn sizes_are_accepted_in_scientific_and_power_notation() {
    let (code, out, err) = run(&["count", "1.2e1", "--json", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json_lines(&out)[0]["placements"], "14200");
    let (code, out, _) = run(&["count", "--range", "2^3..1e1", "--json", "--quiet"]);
    assert_eq!(code, 0);
    let counts: Vec<_> = json_lines(&out)
        .iter()
        .map(|v| v["placements"].clone())
        .collect();
    assert_eq!(counts, ["92", "352", "724"]);
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("g.txt");
    nq(&[
        "generate",
        "solution",
        "--n",
        "1e3",
        "-o",
        f.to_str().unwrap(),
    ])
    .ok();
    let (code, out, _) = run(&["verify", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("VALID SOLUTION (n = 1000)"), "{out}");
    let (code, _, err) = run(&["generate", "solution", "--n", "2.5", "-o", "-"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a whole number"), "{err}");
}

#[test]
fn every_subcommand_help_lists_the_exit_codes() {
    for args in [
        &["count", "--help"][..],
        &["info", "--help"],
        &["verify", "--help"],
        &["complete", "--help"],
        &["convert", "--help"],
        &["generate", "solution", "--help"],
        &["generate", "composition", "--help"],
        &["generate", "excluded", "--help"],
    ] {
        let (code, out, _) = run(args);
        assert_eq!(code, 0, "{args:?}");
        assert!(
            out.contains("Exit codes:") && out.contains("130"),
            "{args:?}"
        );
    }
}

#[test]
fn completions_and_manual_pages_come_from_the_command_line() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(
            out.contains("count") && out.contains("checkpoint"),
            "{shell}"
        );
    }
    let (code, _, _) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    let (code, out, _) = run(&["man"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with(".ie") && out.contains(".TH nqueens 1"),
        "{out}"
    );
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("man1");
    nq(&["man", "--dir", dir.to_str().unwrap()]).ok();
    let page = std::fs::read_to_string(dir.join("nqueens-count.1")).unwrap();
    assert!(page.contains("checkpoint"), "{page}");
    // Every page a page refers to was written, and the environment is documented.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for (i, _) in text.match_indices("(1)") {
            let start = text[..i]
                .rfind(|c: char| c.is_whitespace())
                .map_or(0, |s| s + 1);
            let name = text[start..i]
                .replace("\\-", "-")
                .replace("\\fB", "")
                .replace("\\fR", "");
            if name.starts_with("nqueens") {
                assert!(
                    dir.join(format!("{name}.1")).exists(),
                    "{name}(1) is referred to"
                );
            }
        }
    }
    let top = std::fs::read_to_string(dir.join("nqueens.1")).unwrap();
    assert!(
        top.contains("NQUEENS_KERNEL") && top.contains("NQUEENS_PROGRESS_AFTER_MS"),
        "{top}"
    );
}

/// A placement too long to print is announced, not silently dropped.
#[test]
fn a_first_placement_too_long_to_print_says_where_it_can_go() {
    let (code, out, err) = run(&["count", "20000", "--first"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("found a placement of n = 20000") && out.contains("-o FILE"),
        "{out}"
    );
}

/// A count no engine here can finish is refused at once instead of spinning for ever.
#[test]
fn a_count_that_cannot_finish_is_refused() {
    let (code, _, err) = run(&["count", "40"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("n = 40 is too large for regular queens on an empty board")
            && err.contains("--first"),
        "{err}"
    );
}

/// A cluster run that lost shards: `count merge` names the missing ones and the files that
/// held nothing, and the command it prints counts exactly those again.
#[test]
fn merge_names_missing_and_failed_shards_and_the_command_that_reruns_them() {
    let d = tempfile::tempdir().unwrap();
    for i in [0, 1, 4] {
        let (code, out, _) = run(&["count", "10", "--shard", &format!("{i}/5"), "--json"]);
        assert_eq!(code, 0);
        std::fs::write(d.path().join(format!("part-{i}.json")), out).unwrap();
    }
    // Shard 3's job died before printing; shard 2's left nothing at all.
    std::fs::write(d.path().join("part-3.json"), "").unwrap();
    let merge = || {
        let mut files: Vec<String> = listing(d.path())
            .into_iter()
            .map(|f| d.path().join(f).to_str().unwrap().to_string())
            .collect();
        files.sort();
        let mut args = vec!["count".to_string(), "merge".to_string()];
        args.extend(files);
        nqueens().args(&args).output().unwrap()
    };
    let out = merge();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("part-3.json: no result") && err.contains("missing 2/5, 3/5"),
        "{err}"
    );
    let rerun = err.split("rerun: ").nth(1).unwrap().trim().to_string();
    // Written where the other part files are, named as they are.
    assert_eq!(
        rerun,
        format!(
            "for I in 2 3; do nqueens count 10 --shard $I/5 --json > {}/part-${{I}}.json; done",
            d.path().display()
        )
    );
    // Run as printed, with this build's nqueens on PATH.
    let (code, _, err) = shell(d.path(), &rerun, &[]);
    assert_eq!(code, 0, "{err}");
    let out = merge();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("placements: 724"));
}
