//! `nqueens verify FILE...`

use super::{Error, exit, print_json};
use crate::format::{FormatError, Input};
use crate::verify::{Report, Requirements, Verdict, verify};
use rayon::prelude::*;
use std::path::PathBuf;

/// Files of at most this many bytes are verified several at a time; larger ones one at a
/// time (each with all threads), so that at most one large set of bitmaps is in memory.
const SMALL_FILE: u64 = 64 << 20;

/// Arguments of `verify`.
#[derive(clap::Args, Debug)]
#[command(after_help = super::EXIT_CODES)]
pub struct Args {
    /// Files to check (any supported format).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    input_args: super::InputArgs,
    /// One JSON object per file on standard output.
    #[arg(long)]
    json: bool,
    /// Count a valid composition that is not a full solution as a failure.
    #[arg(long)]
    require_complete: bool,
    /// Every queen of this composition must be kept by each file.
    #[arg(long, value_name = "COMPOSITION")]
    base: Option<PathBuf>,
}

/// Runs `verify`.
pub fn run(args: Args) -> Result<i32, Error> {
    let opts = args.input_args.options();
    let base = args
        .base
        .as_deref()
        .map(|p| Input::open_with(p, &opts))
        .transpose()?;
    // The base is read by random access below, so its checksum is checked in a pass first.
    if let Some(b) = &base {
        b.check_integrity()?;
    }
    let req = Requirements {
        complete: args.require_complete,
        base: base.as_ref(),
    };
    let check =
        |path: &PathBuf| Input::open_with(path, &opts).and_then(|input| verify(&input, req));
    let mut code = exit::OK;
    let mut i = 0;
    while i < args.files.len() {
        // A run of consecutive small files goes in parallel; a large file alone.
        let mut j = i;
        while j < args.files.len() && is_small(&args.files[j]) {
            j += 1;
        }
        let results: Vec<_> = if j > i {
            args.files[i..j].par_iter().map(check).collect()
        } else {
            j = i + 1;
            vec![check(&args.files[i])]
        };
        for (path, result) in args.files[i..j].iter().zip(results) {
            code = code.max(print_result(path, &result, args.json)?);
        }
        i = j;
    }
    Ok(code)
}

fn is_small(path: &PathBuf) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() <= SMALL_FILE)
}

fn print_result(
    path: &std::path::Path,
    result: &Result<Report, FormatError>,
    json: bool,
) -> Result<i32, Error> {
    let file = path.display().to_string();
    match result {
        Err(e) => {
            if json {
                print_json(
                    &serde_json::json!({"file": file, "status": "error", "error": e.problem.to_string()}),
                )?;
            }
            eprintln!("nqueens: {e}");
            Ok(exit::ERROR)
        }
        Ok(r) => {
            if json {
                let mut v = serde_json::to_value(r).expect("reports serialize");
                v["file"] = file.into();
                v["status"] = serde_json::to_value(&r.verdict).expect("verdicts serialize");
                print_json(&v)?;
            } else {
                print_human(&file, r)?;
            }
            Ok(match r.verdict {
                Verdict::Solution | Verdict::Composition => exit::OK,
                Verdict::Incomplete | Verdict::Invalid => exit::INVALID,
            })
        }
    }
}

/// Prints a report for people, as `verify` does.
pub(super) fn print_human(file: &str, r: &Report) -> Result<(), Error> {
    match r.verdict {
        Verdict::Solution => outln!("{file}: VALID SOLUTION (n = {})", r.n)?,
        Verdict::Composition => outln!("{file}: VALID COMPOSITION ({} of {})", r.k, r.n)?,
        Verdict::Incomplete => outln!(
            "{file}: INCOMPLETE: valid composition with {} of {} queens, a solution was required",
            r.k,
            r.n
        )?,
        Verdict::Invalid => {
            let mut what = Vec::new();
            if r.conflict_count > 0 {
                what.push(format!("{} conflicts", r.conflict_count));
            }
            if r.out_of_range_count > 0 {
                what.push(format!("{} values out of range", r.out_of_range_count));
            }
            if r.base_violation_count > 0 {
                what.push(format!("{} base queens not kept", r.base_violation_count));
            }
            outln!(
                "{file}: INVALID ({}; n = {}, k = {})",
                what.join(", "),
                r.n,
                r.k
            )?;
            for c in &r.conflicts {
                outln!(
                    "  rows {} and {} share a {}: row {} column {}, row {} column {}",
                    c.first.0,
                    c.second.0,
                    c.kind,
                    c.first.0,
                    c.first.1,
                    c.second.0,
                    c.second.1
                )?;
            }
            for o in &r.out_of_range {
                outln!(
                    "  row {}: value {} is not a column in 1..={}",
                    o.row,
                    o.value,
                    r.n
                )?;
            }
            for b in &r.base_violations {
                outln!(
                    "  row {}: the base has a queen in column {}, this file has {}",
                    b.row,
                    b.base,
                    if b.found == 0 {
                        "none".to_string()
                    } else {
                        format!("column {}", b.found)
                    }
                )?;
            }
        }
    }
    Ok(())
}
