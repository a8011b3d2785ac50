//! `nqueens generate solution|composition`

use super::{Error, exit};
use crate::format::{Encoding, Input, OutputFormat, RowWriter, STDIO, nqb::DEFAULT_FRAME_ROWS};
use crate::generate::{check_solvable, write_constructed_solution, write_random_composition};
use crate::verify::{Requirements, Verdict, verify};
use std::path::PathBuf;

/// What to generate.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// A solution for an n-board (explicit construction, O(n), streamed to disk).
    Solution(SolutionArgs),
    /// A composition keeping a random subset of a file's queens.
    Composition(CompositionArgs),
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
    encoding: Option<EncodingArg>,
}

impl OutputArgs {
    /// Where to write and in which format: `-o FILE` (format from --encoding, else the
    /// extension), or text on standard output.
    fn destination(&self) -> (PathBuf, OutputFormat) {
        let dest = self.output.clone().unwrap_or_else(|| PathBuf::from(STDIO));
        let format = self
            .encoding
            .map(EncodingArg::format)
            .unwrap_or_else(|| OutputFormat::from_path(&dest));
        (dest, format)
    }
}

/// The `--encoding` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum EncodingArg {
    /// NQB, one little-endian u32 per row.
    Raw,
    /// NQB, zstd seekable frames.
    Zstd,
    /// One value per line.
    Text,
    /// MAT v7 (Level 5, compressed), one uint32 vector `Q`.
    Mat,
    /// CSPLib 079 completion parameter file.
    Csplib,
}

impl EncodingArg {
    /// The output format this choice names.
    pub fn format(self) -> OutputFormat {
        match self {
            EncodingArg::Raw => OutputFormat::Nqb(Encoding::Raw),
            EncodingArg::Zstd => OutputFormat::Nqb(Encoding::Zstd {
                frame_rows: DEFAULT_FRAME_ROWS,
            }),
            EncodingArg::Text => OutputFormat::Text,
            EncodingArg::Mat => OutputFormat::Mat { compressed: true },
            EncodingArg::Csplib => OutputFormat::Csplib,
        }
    }
}

/// Arguments of `generate solution`.
#[derive(clap::Args, Debug)]
pub struct SolutionArgs {
    /// Board size (1 or at least 4).
    #[arg(long)]
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
        Command::Composition(a) => {
            crate::format::refuse_overwrite(a.out.output.as_deref(), &[&a.from])?;
            let source = Input::open(&a.from)?;
            let report = verify(&source, Requirements::default())?;
            if report.verdict == Verdict::Invalid {
                return Err(Error::Usage(format!(
                    "{}: not a valid composition (run `nqueens verify` for details)",
                    a.from.display()
                )));
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

fn random_solution(a: SolutionArgs) -> Result<i32, Error> {
    check_solvable(a.n)?;
    let seed = a.seed.unwrap_or_else(rand::random);
    let input = Input::Empty { n: a.n };
    let (dest, format) = a.out.destination();
    let outcome = super::complete::solve(&input, Some((&dest, format)), seed, None, false)?;
    match outcome {
        crate::complete::job::JobOutcome::Ran {
            answer: crate::complete::Answer::Solved,
            ..
        } => {}
        crate::complete::job::JobOutcome::Ran { answer, .. } => {
            return Err(Error::Usage(format!(
                "no random solution found: {answer:?}"
            )));
        }
        crate::complete::job::JobOutcome::Invalid(_) => unreachable!("the empty board is valid"),
    }
    eprintln!("random solution of n = {} (seed {seed})", a.n);
    Ok(exit::OK)
}

fn with_output(
    out: &OutputArgs,
    n: u64,
    body: impl FnOnce(&mut RowWriter) -> Result<(), crate::generate::GenerateError>,
) -> Result<i32, Error> {
    // Standard output (`-`, or no -o) is staged like any output: nothing is printed unless
    // the whole board was made.
    let (dest, format) = out.destination();
    let mut w = RowWriter::create(&dest, n, format)?;
    body(&mut w)?;
    w.finish()?.commit()?;
    Ok(exit::OK)
}
