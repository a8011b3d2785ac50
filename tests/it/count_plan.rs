//! Count plans through the binary (formats/count-plan.md): a plan's shards add up to the
//! count and merge, a missing shard is named with the command that reruns it (which the
//! test runs), a planned shard stops and resumes from its checkpoint, and plans that are
//! edited, of another count or mixed with other splits are refused.

use crate::common::*;
use nqueens::count::plan::Plan;
use serde_json::Value;
use std::path::Path;

fn json(out: &str) -> Value {
    serde_json::from_str(out.lines().next().expect("a line")).unwrap()
}

/// Writes a plan of `n` in `shards` shards to `dir/plan.json`; returns the summary.
fn make_plan(dir: &Path, n: &str, shards: &str, engine: Option<&str>) -> String {
    let mut cmd = nq(&[
        "count",
        n,
        "--plan",
        shards,
        "--estimate-seconds",
        "0.2",
        "--seed",
        "7",
        "-o",
        "plan.json",
    ])
    .current_dir(dir);
    if let Some(e) = engine {
        cmd = cmd.env("NQUEENS_COUNT_ENGINE", e);
    }
    cmd.ok().stdout
}

/// Counts shard `i` of `s` of the plan in `dir` into `part-i.json`.
fn count_shard(dir: &Path, i: u32, s: u32) {
    let out = nq(&[
        "count",
        "--plan-file",
        "plan.json",
        "--shard",
        &format!("{i}/{s}"),
        "--json",
        "-q",
    ])
    .current_dir(dir)
    .ok();
    std::fs::write(dir.join(format!("part-{i}.json")), out.stdout).unwrap();
}

fn merge_parts(dir: &Path) -> Out {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.starts_with("part-"))
        .collect();
    files.sort();
    let mut args = vec!["count", "merge", "--json"];
    args.extend(files.iter().map(String::as_str));
    nq(&args).current_dir(dir).output()
}

#[test]
fn the_shards_of_a_plan_merge_to_the_count_and_a_lost_one_is_rerun_as_named() {
    for (n, engine, total) in [
        ("13", None, "73712"),
        ("14", Some("constellations"), "365596"),
    ] {
        let d = tempfile::tempdir().unwrap();
        let summary = make_plan(d.path(), n, "5", engine);
        assert!(summary.contains("slurm: --array=0-4"), "{summary}");
        let plan_path = d.path().join("plan.json").display().to_string();
        assert!(
            summary.contains(&format!("--plan-file={plan_path} --shard I/5")),
            "{summary}"
        );
        let text = std::fs::read_to_string(d.path().join("plan.json")).unwrap();
        let plan: Plan = serde_json::from_str(&text).unwrap();
        assert_eq!(plan.shards.len(), 5);
        assert_eq!(plan.n.to_string(), n);
        for i in 0..5 {
            count_shard(d.path(), i, 5);
        }
        let part = json(&std::fs::read_to_string(d.path().join("part-2.json")).unwrap());
        assert_eq!(part["plan"]["digest"], plan.digest.as_str());
        // The plan's absolute name: a lost shard is rerun from it wherever merge runs.
        assert_eq!(part["plan"]["file"], plan_path.as_str());
        let merged = merge_parts(d.path());
        assert_eq!(merged.code, 0, "{}", merged.stderr);
        assert_eq!(json(&merged.stdout)["placements"], total);
        // A lost shard: named, with the command that counts it again from the same plan.
        std::fs::remove_file(d.path().join("part-3.json")).unwrap();
        let lost = merge_parts(d.path());
        assert_eq!(lost.code, 2);
        let rerun = lost
            .stderr
            .split("rerun: ")
            .nth(1)
            .expect("a rerun command")
            .trim()
            .to_string();
        assert_eq!(
            rerun,
            format!("nqueens count --plan-file={plan_path} --shard 3/5 --json > part-3.json")
        );
        let env: Vec<(&str, &str)> = engine
            .map(|e| ("NQUEENS_COUNT_ENGINE", e))
            .into_iter()
            .collect();
        let (code, _, err) = shell(d.path(), &rerun, &env);
        assert_eq!(code, 0, "{err}");
        assert_eq!(json(&merge_parts(d.path()).stdout)["placements"], total);
    }
}

#[test]
fn shards_of_two_plans_or_of_a_plan_and_the_even_split_are_not_added() {
    let d = tempfile::tempdir().unwrap();
    make_plan(d.path(), "12", "2", None);
    count_shard(d.path(), 0, 2);
    let even = nq(&["count", "12", "--shard", "1/2", "--json"]).ok();
    std::fs::write(d.path().join("part-1.json"), even.stdout).unwrap();
    let mixed = merge_parts(d.path());
    assert_eq!(mixed.code, 2);
    assert!(
        mixed.stderr.contains("different splits of the work")
            && mixed.stderr.contains("even split"),
        "{}",
        mixed.stderr
    );
}

#[test]
fn a_planned_shard_stops_and_resumes_to_the_total_of_its_straight_run() {
    let d = tempfile::tempdir().unwrap();
    let engine = [("NQUEENS_COUNT_ENGINE", "constellations")];
    let mut plan_cmd = nq(&[
        "count",
        "15",
        "--plan",
        "2",
        "--estimate-seconds",
        "0",
        "--seed",
        "1",
        "-o",
        "plan.json",
    ])
    .current_dir(d.path());
    plan_cmd = plan_cmd.env(engine[0].0, engine[0].1);
    plan_cmd.ok();
    let args = [
        "count",
        "--plan-file",
        "plan.json",
        "--shard",
        "1/2",
        "--threads",
        "1",
        "--json",
        "-q",
    ];
    let straight = json(
        &nq(&args)
            .env(engine[0].0, engine[0].1)
            .current_dir(d.path())
            .ok()
            .stdout,
    );
    let mut resumable = args.to_vec();
    resumable.extend(["--checkpoint", "c.json", "--checkpoint-every", "0.01"]);
    // A shard of about 2.5 s on one thread, stopped at its first save (after 10 ms).
    let code = terminated_once_saved(d.path(), &engine, &resumable, "c.json");
    assert_eq!(code, 130, "stopped by SIGTERM");
    let checkpoint = std::fs::read_to_string(d.path().join("c.json")).unwrap();
    let plan: Plan =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("plan.json")).unwrap())
            .unwrap();
    assert!(
        checkpoint.contains(&format!("\"plan\":\"{}\"", plan.digest)),
        "{checkpoint}"
    );
    let resumed = nq(&resumable)
        .env(engine[0].0, engine[0].1)
        .current_dir(d.path())
        .ok();
    let v = json(&resumed.stdout);
    assert_eq!(v["placements"], straight["placements"]);
    assert!(v["resumed_items"].as_u64().unwrap() > 0, "{v}");
    // The same shard without the plan is another count: its checkpoint is refused.
    let other = nq(&[
        "count",
        "15",
        "--shard",
        "1/2",
        "--threads",
        "1",
        "--checkpoint",
        "c.json",
        "-q",
    ])
    .env(engine[0].0, engine[0].1)
    .current_dir(d.path())
    .code(2);
    assert!(
        other.stderr.contains("another count") && other.stderr.contains("plan"),
        "{}",
        other.stderr
    );
}

#[test]
fn edited_foreign_and_misused_plans_are_refused_with_one_line() {
    let d = tempfile::tempdir().unwrap();
    make_plan(d.path(), "12", "3", None);
    let text = std::fs::read_to_string(d.path().join("plan.json")).unwrap();
    let plan: Plan = serde_json::from_str(&text).unwrap();
    let write = |name: &str, p: &Plan| {
        std::fs::write(d.path().join(name), serde_json::to_string(p).unwrap()).unwrap();
    };
    // An item moved to another shard, digest left: refused as edited.
    let mut moved = plan.clone();
    let taken = moved.shards[0].items.pop().unwrap();
    moved.shards[1].items.push(taken);
    write("moved.json", &moved);
    // An item left out, digest computed again: refused for the item no shard counts.
    let mut dropped = plan.clone();
    dropped.shards[2].items.remove(0);
    dropped.digest = dropped.content_digest();
    write("dropped.json", &dropped);
    // Made by another version of the engine (its items differ), sealed anew.
    let mut older = plan.clone();
    older.engine_version += 1;
    older.digest = older.content_digest();
    write("older.json", &older);
    // A field the format does not have, inside the projection: refused like any other.
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["estimate"]["zzz"] = 1.into();
    std::fs::write(d.path().join("extra.json"), v.to_string()).unwrap();
    // n out of every engine's range, sealed anew: named as the plan's fault.
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["n"] = 0.into();
    std::fs::write(d.path().join("zero.json"), v.to_string()).unwrap();
    // Far larger than a plan of its 252 items can be: refused before its shards are read.
    let mut big = plan.clone();
    big.shards[0]
        .items
        .extend(std::iter::repeat_n([0, 0], 200_000));
    big.digest = big.content_digest();
    write("big.json", &big);
    std::fs::write(d.path().join("empty.json"), "").unwrap();
    std::fs::write(
        d.path().join("other.json"),
        "{\"format\":\"nqueens-count-checkpoint\"}",
    )
    .unwrap();
    let cases: [(&[&str], &str); 11] = [
        (
            &["--plan-file", "extra.json", "--shard", "0/3"],
            "unknown field",
        ),
        (
            &["--plan-file", "zero.json", "--shard", "0/3"],
            "plans are made for n = 4..31",
        ),
        (
            &["--plan-file", "big.json", "--shard", "0/3"],
            "more than a plan of 252 items",
        ),
        (
            &["--plan-file", "moved.json", "--shard", "0/3"],
            "the file was edited",
        ),
        (
            &["--plan-file", "dropped.json", "--shard", "0/3"],
            "in no shard",
        ),
        (
            &["--plan-file", "older.json", "--shard", "0/3"],
            "make the plan again",
        ),
        (
            &["--plan-file", "empty.json", "--shard", "0/3"],
            "not a valid count plan",
        ),
        (
            &["--plan-file", "other.json", "--shard", "0/3"],
            "not a valid count plan",
        ),
        (
            &["--plan-file", "plan.json", "--shard", "0/4"],
            "give --shard I/3",
        ),
        (
            &["13", "--plan-file", "plan.json", "--shard", "0/3"],
            "plan.json is of n = 12",
        ),
        (
            &["--plan-file", "missing.json", "--shard", "0/3"],
            "missing.json",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["count"];
        all.extend_from_slice(args);
        let out = nq(&all).current_dir(d.path()).code(2);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(expected), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Making a plan: more shards than items, a word for S, auto without hours.
    for (args, expected) in [
        (
            &["count", "8", "--plan", "100000", "--estimate-seconds", "0"][..],
            "give 1 to",
        ),
        (
            &["count", "8", "--plan", "many"][..],
            "expected a number of shards",
        ),
        (&["count", "8", "--plan", "auto"][..], "--shard-hours"),
        (
            &["count", "8", "--plan", "2", "--piece", "rook"][..],
            "regular queens",
        ),
    ] {
        let out = nq(args).current_dir(d.path()).code(2);
        assert!(out.stderr.contains(expected), "{args:?}: {}", out.stderr);
    }
    // auto with hours: as many shards as keep each under them (one, for n = 10).
    let out = nq(&[
        "count",
        "10",
        "--plan",
        "auto",
        "--shard-hours",
        "1",
        "--estimate-seconds",
        "0",
    ])
    .ok();
    let auto: Plan = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(auto.shards.len(), 1);
    assert_eq!(auto.shards[0].items, vec![[0, auto.items]]);
}

#[test]
fn a_plan_file_name_that_cannot_be_shown_in_a_rerun_is_refused() {
    let d = tempfile::tempdir().unwrap();
    make_plan(d.path(), "10", "2", None);
    std::fs::copy(d.path().join("plan.json"), d.path().join("two\nlines.json")).unwrap();
    let out = nq(&["count", "--plan-file", "two\nlines.json", "--shard", "0/2"])
        .current_dir(d.path())
        .code(2);
    assert!(out.stderr.contains("printable UTF-8"), "{}", out.stderr);
}

#[test]
fn a_checkpoint_marking_another_shards_items_is_refused() {
    let d = tempfile::tempdir().unwrap();
    make_plan(d.path(), "12", "4", None);
    let args = [
        "count",
        "--plan-file",
        "plan.json",
        "--shard",
        "0/4",
        "--checkpoint",
        "c.json",
        "-q",
    ];
    nq(&args).current_dir(d.path()).ok();
    // Mark item 1 (shard 1's) done too, and seal the file anew.
    let text = std::fs::read_to_string(d.path().join("c.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let done = v["done"].as_str().unwrap().to_string();
    let first = u64::from_str_radix(&done[..16], 16).unwrap() | 2;
    v["done"] = format!("{first:016x}{}", &done[16..]).into();
    v["counted"] = (v["counted"].as_u64().unwrap() + 1).into();
    v.as_object_mut().unwrap().remove("xxh3");
    let body = v.to_string();
    let body = &body[..body.len() - 1];
    let sum = twox_hash::XxHash3_64::oneshot(body.as_bytes());
    std::fs::write(
        d.path().join("c.json"),
        format!("{body},\"xxh3\":\"{sum:016x}\"}}\n"),
    )
    .unwrap();
    let out = nq(&args).current_dir(d.path()).code(2);
    assert!(
        out.stderr.contains("which this shard does not take"),
        "{}",
        out.stderr
    );
}

#[test]
fn many_lost_shards_and_shards_in_a_folder_are_rerun_where_they_belong() {
    let d = tempfile::tempdir().unwrap();
    make_plan(d.path(), "12", "40", None);
    std::fs::create_dir(d.path().join("out")).unwrap();
    // Every third shard lost: 13 runs of missing shards, more than the merge lists.
    for i in (0..40).filter(|i| i % 3 != 1) {
        let out = nq(&[
            "count",
            "--plan-file",
            "plan.json",
            "--shard",
            &format!("{i}/40"),
            "--json",
        ])
        .current_dir(d.path())
        .ok();
        std::fs::write(d.path().join(format!("out/s{i}.res")), out.stdout).unwrap();
    }
    let merge = || {
        let mut files: Vec<String> = std::fs::read_dir(d.path().join("out"))
            .unwrap()
            .map(|e| format!("out/{}", e.unwrap().file_name().into_string().unwrap()))
            .collect();
        files.sort();
        let mut args = vec!["count".to_string(), "merge".into(), "--json".into()];
        args.extend(files);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        nq(&args).current_dir(d.path()).output()
    };
    let lost = merge();
    assert_eq!(lost.code, 2);
    assert_eq!(lost.stderr.lines().count(), 1, "{}", lost.stderr);
    let rerun = lost
        .stderr
        .split("rerun: ")
        .nth(1)
        .unwrap()
        .trim()
        .to_string();
    assert!(rerun.contains("[ -s out/s${I}.res ] ||"), "{rerun}");
    let (code, _, err) = shell(d.path(), &rerun, &[]);
    assert_eq!(code, 0, "{rerun}: {err}");
    assert_eq!(json(&merge().stdout)["placements"], "14200");
}

#[test]
fn lost_shards_of_two_counts_are_both_named() {
    let d = tempfile::tempdir().unwrap();
    for (n, shard) in [("10", "0/2"), ("11", "1/3")] {
        let out = nq(&["count", n, "--shard", shard, "--json"]).ok();
        std::fs::write(d.path().join(format!("q{n}.json")), out.stdout).unwrap();
    }
    let out = nq(&["count", "merge", "q10.json", "q11.json"])
        .current_dir(d.path())
        .code(2);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("n = 10:") && out.stderr.contains("n = 11:"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_plan_is_made_for_the_threads_asked_for_not_those_started_here() {
    let out = nq(&[
        "--threads",
        "128",
        "count",
        "12",
        "--plan",
        "2",
        "--estimate-seconds",
        "0",
        "--seed",
        "1",
    ])
    .ok();
    let plan: Plan = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((plan.threads, plan.slurm.cpus_per_task), (128, 128));
}
