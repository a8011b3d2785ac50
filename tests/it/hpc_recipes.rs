//! The cluster recipes of README.md ("On a cluster: Slurm and GNU parallel"), run as
//! written: the Slurm array script task by task, its submission through a stand-in
//! `sbatch` that runs the array and then the dependent merge, and the GNU parallel lines
//! (Debian's `parallel`, which .ci/run installs).

use crate::common::shell;
use std::path::Path;
use std::process::Command;

/// The shell block that follows `<!-- recipe: NAME -->` in README.md.
fn recipe(name: &str) -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let marker = format!("<!-- recipe: {name} -->");
    let at = readme
        .find(&marker)
        .unwrap_or_else(|| panic!("no {marker} in README.md"));
    let block = &readme[at..];
    let start = block.find("```sh\n").expect("a sh block") + 6;
    let end = block[start..].find("```").unwrap();
    block[start..start + end].to_string()
}

/// `placements` of the one JSON line in `text`.
fn placements(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    v["placements"].as_str().unwrap().to_string()
}

/// A stand-in for sbatch in `dir/bin`: `--parsable [--array=A-B --cpus-per-task=C
/// --mem=.. --time=.. --export=ALL,V=..] FILE` runs every task of the array (the option's, else the script's)
/// with the variables exported, and prints a job id; `--dependency=afterok:ID --wrap CMD`
/// runs CMD if ID is that job.
fn write_sbatch_stand_in(dir: &Path) {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(
        bin.join("sbatch"),
        r#"#!/bin/bash
set -e
if [ "$1" = --parsable ]; then
  shift
  script="${@: -1}"
  range=$(sed -n 's/^#SBATCH --array=//p' "$script")
  cpus=$(sed -n 's/^#SBATCH --cpus-per-task=//p' "$script")
  exports=()
  for a in "$@"; do
    case "$a" in
      --array=*) range=${a#--array=} ;;
      --export=ALL,*) IFS=, read -ra exports <<< "${a#--export=ALL,}" ;;
      --mem=*[0-9]M|--time=*:00) ;;
      --cpus-per-task=*) cpus=${a#--cpus-per-task=} ;;
      "$script") ;;
      *) echo "sbatch stand-in: unexpected option $a" >&2; exit 2 ;;
    esac
  done
  for i in $(seq "${range%-*}" "${range#*-}"); do
    env "${exports[@]}" SLURM_ARRAY_TASK_ID=$i SLURM_CPUS_PER_TASK=$cpus bash "$script"
  done
  echo 4242
elif [ "$1" = --dependency=afterok:4242 ] && [ "$2" = --wrap ]; then
  bash -c "$3"
else
  echo "sbatch stand-in: unexpected arguments $*" >&2; exit 2
fi
"#,
    )
    .unwrap();
    let status = Command::new("chmod")
        .args(["+x", bin.join("sbatch").to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn the_slurm_array_and_its_dependent_merge_give_the_whole_count() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("count.sbatch"), recipe("slurm-array")).unwrap();
    write_sbatch_stand_in(d.path());
    // The README's array has 16 tasks; N = 11 counts quickly.
    let (code, out, err) = shell(d.path(), &recipe("slurm-submit"), &[("N", "11")]);
    assert_eq!(code, 0, "{out}{err}");
    let total = std::fs::read_to_string(d.path().join("total.json")).unwrap();
    assert_eq!(placements(&total), "2680", "Q(11) from 16 shards: {total}");
    // One task alone counts one shard, not the whole.
    let (code, _, err) = shell(
        d.path(),
        "bash count.sbatch",
        &[
            ("N", "11"),
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_CPUS_PER_TASK", "2"),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let part = std::fs::read_to_string(d.path().join("part-3.json")).unwrap();
    assert!(part.contains("\"shard\":[3,16]"), "{part}");
}

/// The array sized from `count --estimate`: as many tasks as its shard count, and the
/// merge of their results is the whole count.
#[test]
fn the_slurm_array_sized_from_an_estimate_gives_the_whole_count() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("count.sbatch"), recipe("slurm-array")).unwrap();
    write_sbatch_stand_in(d.path());
    // Shards of a few microseconds each: several tasks.
    let (code, out, err) = shell(
        d.path(),
        &recipe("slurm-sized"),
        &[("N", "12"), ("HOURS", "0.00000001")],
    );
    assert_eq!(code, 0, "{out}{err}");
    let estimate: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("estimate.json")).unwrap())
            .unwrap();
    let shards = estimate["shards"].as_u64().unwrap();
    assert!(shards > 1, "{estimate}");
    let parts = std::fs::read_dir(d.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("part-")
        })
        .count() as u64;
    assert_eq!(parts, shards);
    let total = std::fs::read_to_string(d.path().join("total.json")).unwrap();
    assert_eq!(
        placements(&total),
        "14200",
        "Q(12) from {shards} shards: {total}"
    );
}

/// The planned array: `count --plan` sizes it (array, cores, memory, time), each task counts
/// its shard of the plan, and the dependent merge gives the whole count.
#[test]
fn the_slurm_array_of_a_plan_gives_the_whole_count() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("plan.sbatch"), recipe("slurm-plan-array")).unwrap();
    write_sbatch_stand_in(d.path());
    let (code, out, err) = shell(
        d.path(),
        &recipe("slurm-planned"),
        &[("N", "12"), ("SHARDS", "6"), ("SAMPLE", "0.2")],
    );
    assert_eq!(code, 0, "{out}{err}");
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("plan.json")).unwrap())
            .unwrap();
    assert_eq!(plan["slurm"]["array"], "0-5");
    let part = std::fs::read_to_string(d.path().join("part-5.json")).unwrap();
    assert!(
        part.contains("\"shard\":[5,6]") && part.contains("\"plan\""),
        "{part}"
    );
    let total = std::fs::read_to_string(d.path().join("total.json")).unwrap();
    assert_eq!(
        placements(&total),
        "14200",
        "Q(12) from 6 planned shards: {total}"
    );
}

#[test]
fn the_gnu_parallel_lines_of_a_plan_count() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = shell(
        d.path(),
        &recipe("parallel-planned"),
        &[("N", "11"), ("SHARDS", "4")],
    );
    assert_eq!(
        code, 0,
        "needs GNU parallel (.ci/run installs it): {out}{err}"
    );
    assert!(
        out.contains("placements: 2680"),
        "Q(11) from 4 planned shards: {out}"
    );
}

#[test]
fn the_gnu_parallel_lines_count_and_verify() {
    let d = tempfile::tempdir().unwrap();
    let runs = d.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::fs::write(runs.join("good.txt"), "2 4 1 3\n").unwrap();
    std::fs::write(runs.join("bad.txt"), "1 2 3 4\n").unwrap();
    std::fs::write(runs.join("good-too.txt"), "3 1 4 2\n").unwrap();
    let (code, out, err) = shell(
        d.path(),
        &recipe("parallel"),
        &[("N", "10"), ("SHARDS", "5")],
    );
    assert_eq!(
        code, 0,
        "needs GNU parallel (.ci/run installs it): {out}{err}"
    );
    assert!(
        out.contains("placements: 724"),
        "Q(10) from 5 shards: {out}"
    );
    assert!(out.contains("not valid: runs/bad.txt"), "{out}");
    assert_eq!(out.matches("not valid").count(), 1, "{out}");
}
