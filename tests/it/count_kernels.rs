//! The counting kernels and resumable counts, through the binary: every kernel this CPU
//! runs gives the OEIS counts; a count stopped by a signal resumes from its checkpoint to
//! the exact total; checkpoints of other counts and damaged ones are refused.

use crate::common::*;
use serde_json::Value;
use std::time::Duration;

/// OEIS A000170 and A002562 (distinct).
const TOTALS: [(u32, u64, u64); 5] = [
    (8, 92, 12),
    (11, 2680, 341),
    (12, 14200, 1787),
    (13, 73712, 9233),
    (14, 365596, 45752),
];

fn json(out: &str) -> Value {
    serde_json::from_str(out.lines().next().expect("a line")).unwrap()
}

/// The kernels `nqueens count` accepts on this CPU (it refuses one the CPU lacks).
fn kernels() -> Vec<&'static str> {
    let mut ok = Vec::new();
    for k in ["avx512", "avx2", "portable"] {
        let (code, _, err) = run_env(&[("NQUEENS_KERNEL", k)], &["count", "6", "--quiet"]);
        match code {
            0 => ok.push(k),
            _ => assert!(err.contains("this CPU cannot run it"), "{k}: {err}"),
        }
    }
    ok
}

#[test]
fn every_kernel_gives_the_oeis_counts() {
    let available = kernels();
    assert!(available.contains(&"portable"));
    for k in available {
        for (n, total, distinct) in TOTALS {
            let (code, out, err) = run_env(
                &[("NQUEENS_KERNEL", k)],
                &["count", &n.to_string(), "--distinct", "--json", "--quiet"],
            );
            assert_eq!(code, 0, "{k} n={n}: {err}");
            let v = json(&out);
            assert_eq!(v["engine"], "half-boards");
            assert_eq!(v["placements"], total.to_string(), "{k} n={n}");
            assert_eq!(v["distinct"], distinct.to_string(), "{k} n={n}");
        }
    }
}

#[test]
fn an_unknown_kernel_is_refused() {
    let (code, _, err) = run_env(&[("NQUEENS_KERNEL", "sse9")], &["count", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("NQUEENS_KERNEL=sse9: unknown kernel"), "{err}");
    // Empty, or not text: no kernel either, for every command (not the fastest, silently).
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let values = [
            std::ffi::OsStr::new(""),
            std::ffi::OsStr::from_bytes(b"avx\xff"),
        ];
        for value in values {
            for args in [
                &["count", "8"][..],
                &["generate", "solution", "--n", "8"][..],
            ] {
                let out = nq(args).env("NQUEENS_KERNEL", value).code(2);
                assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
                assert!(out.stderr.contains("unknown kernel"), "{}", out.stderr);
                assert!(out.stdout.is_empty(), "{}", out.stdout);
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn a_count_stopped_by_a_signal_resumes_to_the_exact_total() {
    let d = tempfile::tempdir().unwrap();
    let args = [
        "count",
        "15",
        "--threads",
        "1",
        "--checkpoint",
        "c.json",
        "--checkpoint-every",
        "0.01",
        "--json",
        "--quiet",
    ];
    // Stop it early, then again a little later, then let it finish; each stop must leave
    // a checkpoint and exit 130 (unless the count was already done).
    let mut stopped = 0;
    // (n = 15 on one thread takes about 2 s in a debug build, 0.15 s in a release one.)
    for after in [300, 300] {
        let code = terminated(d.path(), &args, Duration::from_millis(after));
        assert!(code == 130 || code == 0, "exit {code}");
        stopped += (code == 130) as usize;
        assert_eq!(listing(d.path()), ["c.json"], "no temporary file is left");
        let text = std::fs::read_to_string(d.path().join("c.json")).unwrap();
        assert!(text.starts_with("{\"counted\":"), "{text}");
    }
    let out = nqueens().args(args).current_dir(d.path()).output().unwrap();
    assert!(out.status.success());
    let v = json(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(v["placements"], "2279184");
    if stopped > 0 {
        assert!(v["resumed_items"].as_u64().unwrap() > 0, "{v}");
    }
    // A finished checkpoint answers at once, every item resumed.
    let out = nqueens().args(args).current_dir(d.path()).output().unwrap();
    let v = json(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(v["placements"], "2279184");
    assert_eq!(v["resumed_items"], v["items"]);
}

/// The engine of n >= 24 (start constellations) checkpoints and resumes like the half
/// boards: forced onto n = 15, a shard stopped by a signal once its checkpoint holds some
/// items and then resumed gives the total of the same shard counted straight through, and
/// the shards add up to Q(15).
#[cfg(unix)]
#[test]
fn the_constellation_engine_stops_and_resumes_a_shard_to_its_exact_total() {
    let d = tempfile::tempdir().unwrap();
    let engine = [("NQUEENS_COUNT_ENGINE", "constellations")];
    let shard = |i: u32, checkpoint: Option<&str>| {
        let mut args = vec![
            "count".to_string(),
            "15".into(),
            "--threads".into(),
            "1".into(),
        ];
        args.extend([
            "--shard".into(),
            format!("{i}/3"),
            "--json".into(),
            "--quiet".into(),
        ]);
        if let Some(c) = checkpoint {
            args.extend([
                "--checkpoint".into(),
                c.into(),
                "--checkpoint-every".into(),
                "0.01".into(),
            ]);
        }
        args
    };
    let (mut total, mut resumed) = (0u64, 0);
    for i in 0..3 {
        let straight = shard(i, None);
        let straight: Vec<&str> = straight.iter().map(String::as_str).collect();
        let (code, out, err) = run_env(&engine, &straight);
        assert_eq!(code, 0, "{err}");
        let v = json(&out);
        assert_eq!(v["engine"], "constellations", "{v}");
        let expected = v["placements"].as_str().unwrap().to_string();
        total += expected.parse::<u64>().unwrap();
        let ck = format!("c{i}.json");
        let resumable = shard(i, Some(&ck));
        let resumable: Vec<&str> = resumable.iter().map(String::as_str).collect();
        // Stopped once the checkpoint holds some counted items.
        let code = terminated_once_saved(d.path(), &engine, &resumable, &ck);
        assert!(code == 130 || code == 0, "exit {code}");
        let out = nqueens()
            .envs(engine)
            .args(&resumable)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&String::from_utf8(out.stdout).unwrap());
        assert_eq!(v["placements"], expected.as_str(), "shard {i}/3: {v}");
        resumed += (v["resumed_items"].as_u64().unwrap() > 0) as usize;
        let text = std::fs::read_to_string(d.path().join(&ck)).unwrap();
        assert!(text.contains("\"engine\":\"constellations\""), "{text}");
    }
    assert_eq!(total, 2279184);
    assert!(resumed > 0, "no shard was stopped before its end");
    let (code, _, err) = run_env(
        &[("NQUEENS_COUNT_ENGINE", "constellations")],
        &["count", "40"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("does not count this"), "{err}");
}

#[test]
fn a_checkpoint_of_another_count_or_a_damaged_one_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("c.json");
    let c = c.to_str().unwrap();
    let (code, out, err) = run(&["count", "10", "--checkpoint", c, "--json", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["placements"], "724");
    let saved = std::fs::read(c).unwrap();
    for other in [
        &["count", "11", "--checkpoint", c][..],
        &["count", "10", "--shard", "1/2", "--checkpoint", c][..],
    ] {
        let (code, _, err) = run(other);
        assert_eq!(code, 2, "{other:?}");
        assert!(err.contains(c) && err.contains("another count"), "{err}");
        assert_eq!(
            std::fs::read(c).unwrap(),
            saved,
            "a refused checkpoint is kept"
        );
    }
    let text = String::from_utf8(saved.clone()).unwrap();
    let damaged = text.replacen("\"sum\":\"", "\"sum\":\"1", 1);
    std::fs::write(c, damaged).unwrap();
    let (code, _, err) = run(&["count", "10", "--checkpoint", c]);
    assert_eq!(code, 2);
    assert!(err.contains("checksum"), "{err}");
    std::fs::write(c, &saved[..saved.len() / 2]).unwrap();
    let (code, _, err) = run(&["count", "10", "--checkpoint", c]);
    assert_eq!(code, 2);
    assert!(err.contains("not a valid checkpoint"), "{err}");
}

#[test]
fn checkpoints_need_a_count_made_of_items_and_never_replace_an_input() {
    let (code, _, err) = run(&["count", "8", "--piece", "rook", "--checkpoint", "x.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--checkpoint needs a count made of work items"),
        "{err}"
    );
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("c.txt");
    std::fs::write(&input, "0 0 0 0 0 0 0 0\n").unwrap();
    let p = input.to_str().unwrap();
    let (code, _, err) = run(&["count", "--from", p, "--checkpoint", p]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        "0 0 0 0 0 0 0 0\n"
    );
}

/// `--estimate` times a sample of the work items: given the time, it samples them all and
/// the projection is the measured total; it names the shard count for a time per shard;
/// counts not made of items are refused.
#[test]
fn an_estimate_samples_the_items_and_projects_the_count() {
    let (code, out, err) = run(&[
        "count",
        "12",
        "--estimate",
        "--estimate-seconds",
        "600",
        "--seed",
        "5",
        "--shard-hours",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["engine"], "half-boards");
    assert_eq!(v["seed"], "5");
    assert_eq!(v["sampled"], v["items"], "{v}");
    let range = v["core_seconds_range"].as_array().unwrap();
    assert_eq!(range[0], range[1], "{v}");
    assert_eq!(v["shards"], 1);
    assert!(v["peak_memory_bytes"].as_u64().unwrap() > 0);
    // A budget of nothing still samples one round, and says how much of the range is open.
    let (code, out, err) = run(&[
        "count",
        "14",
        "--estimate",
        "--estimate-seconds",
        "0",
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("work items sampled") && out.contains("core time:"),
        "{out}"
    );
    let (code, _, err) = run(&["count", "8", "--piece", "rook", "--estimate"]);
    assert_eq!(code, 2);
    assert!(err.contains("only counts made of work items"), "{err}");
}

/// `count --gpu` where the build has no GPU support (as here, and in CI): it says so in one
/// line and counts the constellation engine's items on the CPU, so that its results mix
/// with those of a GPU run, shard by shard.
#[test]
fn gpu_without_support_says_so_and_counts_the_same_items_on_the_cpu() {
    let out = nq(&["count", "12", "--gpu", "--json"]).ok();
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("--gpu: ") && out.stderr.contains("counting on the CPU"),
        "{}",
        out.stderr
    );
    let v = json(&out.stdout);
    assert_eq!(
        (v["placements"].as_str(), v["engine"].as_str()),
        (Some("14200"), Some("constellations"))
    );
    // The record says the GPU counted none of it (a count without --gpu says nothing).
    assert_eq!(v["gpu_items"].as_u64(), Some(0), "{}", out.stdout);
    let plain = json(&nq(&["count", "12", "--json"]).ok().stdout);
    assert!(plain.get("gpu_items").is_none(), "{plain}");
    // A shard counted with --gpu and one without, by the same engine's items, merge.
    let d = tempfile::tempdir().unwrap();
    let gpu = nq(&["count", "11", "--gpu", "--shard", "0/2", "--json"]).ok();
    let cpu = nq(&["count", "11", "--shard", "1/2", "--json"])
        .env("NQUEENS_COUNT_ENGINE", "constellations")
        .ok();
    std::fs::write(d.path().join("a.json"), gpu.stdout).unwrap();
    std::fs::write(d.path().join("b.json"), cpu.stdout).unwrap();
    let merged = nq(&["count", "merge", "a.json", "b.json", "--json"])
        .current_dir(d.path())
        .ok();
    assert_eq!(json(&merged.stdout)["placements"], "2680");
    assert_eq!(json(&merged.stdout)["gpu_items"].as_u64(), Some(0));
    // What the GPU does not count is refused or counted on the CPU, said either way.
    let out = nq(&["count", "12", "--gpu", "--distinct", "--shard", "0/2"]).code(2);
    assert!(
        out.stderr.contains("--gpu counts regular queens"),
        "{}",
        out.stderr
    );
    let out = nq(&["count", "8", "--gpu", "--piece", "rook"]).code(2);
    assert!(
        out.stderr.contains("--gpu counts regular queens"),
        "{}",
        out.stderr
    );
    nq(&[
        "count",
        "10",
        "--plan",
        "2",
        "--estimate-seconds",
        "0",
        "-o",
        "p.json",
    ])
    .current_dir(d.path())
    .ok();
    let out = nq(&[
        "count",
        "--plan-file",
        "p.json",
        "--shard",
        "1/2",
        "--gpu",
        "--json",
    ])
    .current_dir(d.path())
    .ok();
    assert!(out.stderr.contains("half-board engine"), "{}", out.stderr);
}

/// The GPU's settings (NQUEENS_GPU_*, for tuning) are checked before anything is counted,
/// with or without a GPU: a value a variable does not take is a usage error naming it, not
/// a reason to count on the CPU.
#[test]
fn gpu_settings_the_environment_names_wrongly_are_refused() {
    let cases = [
        ("NQUEENS_GPU_BLOCK", "100", "a multiple of 32"),
        ("NQUEENS_GPU_BLOCK", "2048", "a multiple of 32"),
        ("NQUEENS_GPU_DEPTH", "0", "a free row"),
        ("NQUEENS_GPU_DEPTH", "x", "a free row"),
        ("NQUEENS_GPU_STACK", "global", "shared or local"),
        ("NQUEENS_GPU_BATCH", "-1", "nodes from"),
        ("NQUEENS_GPU_CPU_THREADS", "1e3", "threads from"),
    ];
    for (var, value, says) in cases {
        let out = nq(&["count", "12", "--gpu"]).env(var, value).code(2);
        assert_eq!(
            out.stderr.lines().count(),
            1,
            "{var}={value}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains(var) && out.stderr.contains(says),
            "{var}={value}: {}",
            out.stderr
        );
        assert!(out.stdout.is_empty());
    }
    // Shared-memory stacks that do not fit a block.
    let out = nq(&["count", "20", "--gpu"])
        .env("NQUEENS_GPU_STACK", "shared")
        .env("NQUEENS_GPU_BLOCK", "1024")
        .code(2);
    assert!(out.stderr.contains("shared memory"), "{}", out.stderr);
    // Without --gpu the variables are not read.
    nq(&["count", "8"]).env("NQUEENS_GPU_BLOCK", "100").ok();
}

/// What a shard or checkpoint counted with --gpu (the constellation engine's items, also
/// at n < 24) meets elsewhere: the GPU's settings that are not text, a resume without
/// --gpu, a merge with a shard missing, a plan made for --gpu.
#[test]
fn gpu_counts_meet_resumes_merges_and_plans_as_what_they_are() {
    use std::os::unix::ffi::OsStrExt;
    let out = nq(&["count", "12", "--gpu"])
        .env("NQUEENS_GPU_DEPTH", std::ffi::OsStr::from_bytes(b"\xff"))
        .code(2);
    assert!(
        out.stderr.contains("NQUEENS_GPU_DEPTH") && out.stderr.contains("not text"),
        "{}",
        out.stderr
    );
    let d = tempfile::tempdir().unwrap();
    // A checkpoint of a --gpu count, resumed without --gpu: named as the other engine's.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args([
            "count",
            "17",
            "--gpu",
            "--threads",
            "1",
            "--checkpoint",
            "c.json",
        ])
        .args(["--checkpoint-every", "0"])
        .current_dir(d.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while !d.path().join("c.json").exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
        if child.try_wait().unwrap().is_some() {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(d.path().join("c.json").exists(), "no checkpoint saved");
    let out = nq(&["count", "17", "--checkpoint", "c.json"])
        .current_dir(d.path())
        .code(2);
    assert!(
        out.stderr.contains("engine constellations")
            && out.stderr.contains("NQUEENS_COUNT_ENGINE=constellations"),
        "{}",
        out.stderr
    );
    // Two of three shards counted with --gpu: merge's rerun counts the same items.
    for i in [0, 2] {
        let out = nq(&[
            "count",
            "12",
            "--gpu",
            "--shard",
            &format!("{i}/3"),
            "--json",
        ])
        .ok();
        std::fs::write(d.path().join(format!("s{i}.json")), out.stdout).unwrap();
    }
    let out = nq(&["count", "merge", "s0.json", "s2.json"])
        .current_dir(d.path())
        .code(2);
    let rerun = out
        .stderr
        .split("rerun: ")
        .nth(1)
        .and_then(|r| r.lines().next())
        .expect("a rerun command")
        .to_string();
    assert!(
        rerun.starts_with("NQUEENS_COUNT_ENGINE=constellations nqueens count 12"),
        "{rerun}"
    );
    let dir = env!("CARGO_BIN_EXE_nqueens");
    let path = format!(
        "{}:{}",
        std::path::Path::new(dir).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ran = std::process::Command::new("sh")
        .args(["-c", &rerun])
        .current_dir(d.path())
        .env("PATH", path)
        .status()
        .unwrap();
    assert!(ran.success());
    let merged = nq(&["count", "merge", "s0.json", "s1.json", "s2.json", "--json"])
        .current_dir(d.path())
        .ok();
    assert_eq!(json(&merged.stdout)["placements"], "14200");
    // A plan for --gpu: its run line counts with --gpu; the engine variable may not
    // contradict it, and n = 4 is below the GPU's items.
    let out = nq(&[
        "count",
        "12",
        "--gpu",
        "--plan",
        "2",
        "--estimate-seconds",
        "0",
        "-o",
        "p.json",
    ])
    .current_dir(d.path())
    .ok();
    assert!(
        out.stdout.contains("--shard I/2 --threads") && out.stdout.contains(" --gpu --json"),
        "{}",
        out.stdout
    );
    let out = nq(&["count", "12", "--gpu", "--plan", "2"])
        .env("NQUEENS_COUNT_ENGINE", "half-boards")
        .code(2);
    assert!(out.stderr.contains("contradicts"), "{}", out.stderr);
    let out = nq(&["count", "4", "--gpu", "--plan", "2"]).code(2);
    assert!(out.stderr.contains("n = 5..31"), "{}", out.stderr);
}
