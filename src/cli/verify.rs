//! `nqueens verify FILE...`

use super::{Error, Progress, exit, print_json};
use nqueens::format::FormatError;
use nqueens::json::{VerifyRecord, VerifyStatus, Versions};
use nqueens::verify::{Report, Requirements, Verdict, verify, verify_files};
use std::path::{Path, PathBuf};

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
    /// Every queen of this composition must be kept by each file. With an Excluded
    /// Diagonals instance, a file of its m rows is checked inside its reduced board.
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
    // --zero-based describes the files checked; a base that numbers its columns by its own
    // specification (CSPLib, NQB) is read as that says.
    let base = args
        .base
        .as_deref()
        .map(|p| {
            super::open_input(p, &opts).or_else(|e| match e.problem {
                nqueens::format::ErrorKind::ZeroBasedRefused(_) => {
                    let own = nqueens::format::OpenOptions {
                        index_base: nqueens::format::IndexBase::One,
                        ..opts.clone()
                    };
                    super::open_input(p, &own)
                }
                _ => Err(e),
            })
        })
        .transpose()?;
    // The base is read by random access below, so it is checked whole first (checksums
    // included): a base that is no composition would make every file look wrong.
    if let (Some(b), Some(path)) = (&base, &args.base) {
        let checked = verify(b, Requirements::default())?;
        if let Some(why) = checked.first_problem() {
            return Err(Error::InvalidBase {
                path: path.clone(),
                why,
            });
        }
    }
    let mut req = Requirements::default();
    req.complete = args.require_complete;
    req.base = base.as_ref();
    let files = args.files.len();
    let mut tally = Tally::default();
    let mut report = |path: &Path, result: Result<Report, FormatError>| -> Result<(), Error> {
        tally.add(&result);
        if !args.quiet {
            print_result(path, &result, args.json)
        } else {
            match &result {
                Err(e) => errln!("nqueens: {e}"),
                // Quiet hides reports, not the advice that explains a wrong verdict.
                Ok(r) if r.looks_zero_based => {
                    errln!(
                        "nqueens: {}: {}",
                        path.display(),
                        super::report::zero_based_hint(r.n)
                    )
                }
                Ok(_) => {}
            }
            Ok(())
        }
    };
    if files == 1 {
        // One file: a bar of its rows.
        let path = &args.files[0];
        let result = super::open_input(path, &opts).and_then(|input| {
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
    verify_files(&args.files, &opts, req, |path, result| {
        progress.set_message(path.display().to_string());
        progress.suspend(|| report(path, result))?;
        progress.inc(1);
        Ok::<(), Error>(())
    })?;
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
        // JSON escapes a name itself; a line for a terminal shows it escaped.
        super::print_report(&super::one_line(&file), r)?;
    }
    if let Err(e) = result {
        errln!("nqueens: {e}");
    }
    Ok(())
}
