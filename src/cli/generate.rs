//! `nqueens generate solution|composition|excluded`

use super::{Error, exit};
use nqueens::format::{Input, OutputFormat, RowWriter, STDIO};
use nqueens::generate::{check_solvable, write_constructed_solution, write_random_composition};
use nqueens::verify::{Requirements, Verdict, verify};
use std::path::PathBuf;

/// What to generate.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// A solution for an n-board (explicit construction, O(n), streamed to disk).
    Solution(SolutionArgs),
    /// A composition keeping a random subset of a file's queens.
    Composition(CompositionArgs),
    /// A series of Excluded Diagonals instances (CSPLib 079), by the generator of Gent,
    /// Jefferson and Nightingale: the 4n - 2 diagonals in a random order, each excluded
    /// unless that leaves a row or column with fewer than --min-free allowed cells. The
    /// file lists every excluded diagonal in order; the instance is the first --diags.
    Excluded(ExcludedArgs),
}

/// Arguments of `generate excluded`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens generate excluded --n 30 --diags 40 --seed 1 -o ed.param"
    )
)]
pub struct ExcludedArgs {
    /// Board size (1e3 and 10^3 are accepted too).
    #[arg(long, value_parser = excluded_size)]
    n: u64,
    /// Diagonals the instance excludes (the file's `numdiags`); default all of the series.
    #[arg(long, value_name = "D")]
    diags: Option<usize>,
    /// Fewest allowed cells left in any row or column.
    #[arg(long, default_value_t = 4)]
    min_free: u64,
    /// Seed of the order of the diagonals; default a fresh one, printed on standard error.
    #[arg(long)]
    seed: Option<u64>,
    /// Output file; without it, standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Where and how to write.
#[derive(clap::Args, Debug)]
pub struct OutputArgs {
    /// Output file; without it, text on standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output encoding; by default from the extension (.txt/.csv text, .zst/.nqbz NQB zstd,
    /// anything else NQB raw).
    #[arg(long, value_enum)]
    encoding: Option<super::EncodingArg>,
    /// No progress display.
    #[arg(short, long)]
    quiet: bool,
}

impl OutputArgs {
    /// Where to write and in which format: `-o FILE` (format from --encoding, else the
    /// extension), or text on standard output.
    fn destination(&self) -> (PathBuf, OutputFormat) {
        let dest = self.output.clone().unwrap_or_else(|| PathBuf::from(STDIO));
        let format = self
            .encoding
            .map(super::EncodingArg::format)
            .unwrap_or_else(|| OutputFormat::from_path(&dest));
        (dest, format)
    }
}

/// Arguments of `generate solution`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens generate solution --n 1e8 -o s.nqb",
        "nqueens generate solution --n 1e6 --random --seed 3 -o r.zst",
        "nqueens generate solution --n 8"
    )
)]
pub struct SolutionArgs {
    /// Board size (1 or at least 4; 1e8 and 10^8 are accepted too).
    #[arg(long, value_parser = super::parse_size)]
    n: u64,
    /// A random solution (the completion engine on the empty board) instead of the
    /// explicit construction.
    #[arg(long)]
    random: bool,
    /// Seed of a random solution; default a fresh one, printed on standard error.
    #[arg(long, requires = "random")]
    seed: Option<u64>,
    #[command(flatten)]
    out: OutputArgs,
}

/// Arguments of `generate composition`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens generate composition --from s.nqb --k 90000000 --seed 1 -o board.nqb"
    )
)]
pub struct CompositionArgs {
    /// The solution (or composition) whose queens are sampled.
    #[arg(long, value_name = "SOLUTION")]
    from: PathBuf,
    /// Queens to keep; default uniform in 1..k-1 (the seed paper's protocol).
    #[arg(long)]
    k: Option<u64>,
    /// Seed of every random choice; default a fresh one, printed on standard error.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    out: OutputArgs,
}

/// Runs `generate`.
pub fn run(cmd: Command) -> Result<i32, Error> {
    match cmd {
        Command::Solution(a) if a.random => random_solution(a),
        Command::Solution(a) => {
            check_solvable(a.n)?;
            with_output(&a.out, a.n, |w| {
                write_constructed_solution(a.n, w).map(|_| ())
            })
        }
        Command::Excluded(a) => excluded(a),
        Command::Composition(a) => {
            nqueens::format::refuse_overwrite(a.out.output.as_deref(), &[&a.from])?;
            let opts = nqueens::format::OpenOptions {
                mmap: super::mapped(),
                ..Default::default()
            };
            let source = Input::open_with(&a.from, &opts)?;
            let report = verify(&source, Requirements::default())?;
            if report.verdict == Verdict::Invalid {
                return Err(Error::Invalid {
                    path: a.from.clone(),
                    why: report.first_problem().unwrap_or_default(),
                });
            }
            let seed = a.seed.unwrap_or_else(rand::random);
            let mut kept = 0;
            let code = with_output(&a.out, source.n(), |w| {
                kept = write_random_composition(&source, report.k, a.k, seed, w)?;
                Ok(())
            })?;
            eprintln!(
                "kept {kept} of {} queens of {} (seed {seed})",
                report.k,
                a.from.display()
            );
            Ok(code)
        }
    }
}

fn excluded(a: ExcludedArgs) -> Result<i32, Error> {
    let seed = a.seed.unwrap_or_else(rand::random);
    let series = nqueens::excluded::generate(a.n, seed, a.min_free);
    let numdiags = a.diags.unwrap_or(series.len());
    if numdiags > series.len() {
        return Err(Error::Usage(format!(
            "--diags {numdiags}: the series of n = {} (seed {seed}) excludes only {} diagonals",
            a.n,
            series.len()
        )));
    }
    let dest = a.output.unwrap_or_else(|| PathBuf::from(STDIO));
    let mut f = nqueens::format::AtomicFile::create(&dest)?;
    std::io::Write::write_all(
        &mut f,
        nqueens::excluded::to_csplib(a.n, &series, numdiags).as_bytes(),
    )
    .map_err(|e| nqueens::format::FormatError::new(&dest, nqueens::format::ErrorKind::Write(e)))?;
    f.commit()?;
    eprintln!(
        "excluded diagonals, n = {}: {numdiags} of a series of {} (seed {seed})",
        a.n,
        series.len()
    );
    Ok(exit::OK)
}

fn random_solution(a: SolutionArgs) -> Result<i32, Error> {
    check_solvable(a.n)?;
    let seed = a.seed.unwrap_or_else(rand::random);
    let input = Input::Empty { n: a.n };
    let (dest, format) = a.out.destination();
    let outcome = super::solve(
        &input,
        Some((&dest, format)),
        seed,
        None,
        std::time::Instant::now(),
        a.out.quiet,
    )?;
    use nqueens::complete::{Answer, JobOutcome};
    match outcome {
        JobOutcome::Ran {
            answer: Answer::Solved,
            ..
        } => {}
        JobOutcome::Ran {
            answer: Answer::Unknown(stopped),
            ..
        } => return Err(Error::Stopped(stopped)),
        // check_solvable ruled both out: the empty board of a solvable n is valid and has
        // a completion.
        JobOutcome::Ran {
            answer: Answer::Infeasible(_),
            ..
        }
        | JobOutcome::Invalid(_) => unreachable!("n = {} has solutions", a.n),
    }
    eprintln!("random solution of n = {} (seed {seed})", a.n);
    Ok(exit::OK)
}

fn with_output(
    out: &OutputArgs,
    n: u64,
    body: impl FnOnce(&mut RowWriter) -> Result<(), nqueens::generate::GenerateError>,
) -> Result<i32, Error> {
    // Standard output (`-`, or no -o) is staged like any output: nothing is printed unless
    // the whole board was made.
    let (dest, format) = out.destination();
    let mut w = RowWriter::create(&dest, n, format)?;
    let progress = super::Progress::rows(out.quiet, n, format!("writing {n} rows"), || {
        nqueens::progress::meter().rows_written()
    });
    let made = body(&mut w);
    progress.finish();
    made?;
    w.finish()?.commit()?;
    Ok(exit::OK)
}

/// `generate excluded --n`: a size in 1..=MAX_GENERATED_M.
fn excluded_size(s: &str) -> Result<u64, String> {
    let n = super::parse_size(s)?;
    let max = nqueens::excluded::MAX_GENERATED_M;
    if !(1..=max).contains(&n) {
        return Err(format!("{n} is not in 1..={max}"));
    }
    Ok(n)
}
