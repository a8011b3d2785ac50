//! `nqueens verify FILE...`

use super::{Error, Progress, exit, print_json};
use nqueens::format::{FormatError, Input};
use nqueens::json::{VerifyRecord, VerifyStatus, Versions};
use nqueens::verify::{Report, Requirements, Verdict, verify};
use rayon::prelude::*;
use std::path::PathBuf;

/// Files of at most this many bytes are verified several at a time; larger ones one at a
/// time (each with all threads), so that at most one large set of bitmaps is in memory.
const SMALL_FILE: u64 = 64 << 20;

/// Arguments of `verify`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens verify solved.nqb",
        "nqueens verify --require-complete runs/*.nqb",
        "nqueens verify --base board.nqb solved.nqb",
        "nqueens verify --json a.mat b.txt | jq .status",
        "nqueens verify -q solved.nqb && echo valid"
    )
)]
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
    /// Print nothing on standard output and show no progress: the exit code is the
    /// answer (errors still go to standard error).
    #[arg(short, long, conflicts_with = "json")]
    quiet: bool,
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
    let files = args.files.len();
    let mut tally = Tally::default();
    let mut report = |path: &PathBuf, result: Result<Report, FormatError>| -> Result<(), Error> {
        tally.add(&result);
        if !args.quiet {
            print_result(path, &result, args.json)
        } else {
            if let Err(e) = &result {
                eprintln!("nqueens: {e}");
            }
            Ok(())
        }
    };
    if files == 1 {
        // One file: a bar of its rows.
        let path = &args.files[0];
        let result = Input::open_with(path, &opts).and_then(|input| {
            let progress = Progress::rows(
                args.quiet,
                input.n(),
                format!("verifying {}", path.display()),
                || nqueens::progress::meter().rows_read(),
            );
            let report = verify(&input, req);
            progress.finish();
            report
        });
        report(path, result)?;
        return Ok(tally.exit_code());
    }
    let progress = Progress::files(args.quiet, files as u64);
    let mut i = 0;
    while i < files {
        // A run of consecutive small files goes in parallel; a large file alone.
        let mut j = i;
        while j < files && is_small(&args.files[j]) {
            j += 1;
        }
        if j == i {
            j = i + 1;
        }
        progress.set_message(args.files[i].display().to_string());
        let results: Vec<_> = args.files[i..j].par_iter().map(check).collect();
        for (path, result) in args.files[i..j].iter().zip(results) {
            progress.suspend(|| report(path, result))?;
        }
        progress.inc((j - i) as u64);
        i = j;
    }
    progress.finish();
    if !args.quiet && !args.json {
        outln!("{tally}")?;
    }
    Ok(tally.exit_code())
}

/// How many files were valid, invalid and unreadable.
#[derive(Default)]
struct Tally {
    valid: usize,
    invalid: usize,
    unreadable: usize,
}

impl Tally {
    fn add(&mut self, result: &Result<Report, FormatError>) {
        match result.as_ref().map(|r| &r.verdict) {
            Ok(Verdict::Solution | Verdict::Composition) => self.valid += 1,
            Ok(Verdict::Incomplete | Verdict::Invalid) => self.invalid += 1,
            Err(_) => self.unreadable += 1,
        }
    }

    /// The worst outcome's code: an unreadable file over an invalid one over success.
    fn exit_code(&self) -> i32 {
        if self.unreadable > 0 {
            exit::ERROR
        } else if self.invalid > 0 {
            exit::INVALID
        } else {
            exit::OK
        }
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{} files: {} valid, {} invalid, {} unreadable",
            self.valid + self.invalid + self.unreadable,
            self.valid,
            self.invalid,
            self.unreadable
        )
    }
}

fn is_small(path: &PathBuf) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() <= SMALL_FILE)
}

fn print_result(
    path: &std::path::Path,
    result: &Result<Report, FormatError>,
    json: bool,
) -> Result<(), Error> {
    let file = path.display().to_string();
    if json {
        let record = match result {
            Err(e) => VerifyRecord {
                versions: Versions::current(),
                file,
                status: VerifyStatus::Error,
                report: None,
                error: Some(e.problem.to_string()),
            },
            Ok(r) => VerifyRecord {
                versions: Versions::current(),
                file,
                status: match r.verdict {
                    Verdict::Solution => VerifyStatus::Solution,
                    Verdict::Composition => VerifyStatus::Composition,
                    Verdict::Incomplete => VerifyStatus::Incomplete,
                    Verdict::Invalid => VerifyStatus::Invalid,
                },
                report: Some(r.clone()),
                error: None,
            },
        };
        print_json(&record)?;
    } else if let Ok(r) = result {
        print_human(&file, r)?;
    }
    if let Err(e) = result {
        eprintln!("nqueens: {e}");
    }
    Ok(())
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
