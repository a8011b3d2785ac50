//! `nqueens generate solution|composition|excluded`

use super::size::{PartSize, parse_part};
use super::{Error, exit, plural};
use nqueens::format::{Input, OutputFormat, RowWriter, STDIO};
use nqueens::generate::{
    Clearing, Direction, Made, Shape, Source, check_solvable, write_composition, write_solution,
};
use nqueens::verify::{Requirements, Verdict, verify};
use std::path::PathBuf;

/// What to generate.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// A solution for an n-board: the explicit construction (O(n), streamed to disk), its
    /// transpose or mirror image, a linear solution, or a random one.
    Solution(SolutionArgs),
    /// A composition: a file's queens with a random subset or a structured part (a block
    /// of rows, a stride, a band of columns or diagonals, a square) cleared.
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
    #[arg(long, value_parser = excluded_size, allow_negative_numbers = true)]
    n: u64,
    /// Diagonals the instance excludes (the file's `numdiags`); default all of the series.
    #[arg(long, value_name = "D")]
    diags: Option<usize>,
    /// Fewest allowed cells left in any row or column.
    #[arg(long, default_value_t = 4)]
    min_free: u64,
    /// Seed of the order of the diagonals; default a fresh one, printed on standard error.
    #[arg(long, allow_negative_numbers = true)]
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
        "nqueens generate solution --n 1e5 --source transposed -o t.nqb",
        "nqueens generate solution --n 100003 --source linear --a 3 -o l.nqb",
        "nqueens generate solution --n 1e6 --source random --seed 3 -o r.zst",
        "nqueens generate solution --n 8"
    )
)]
pub struct SolutionArgs {
    /// Board size (1 or at least 4; 1e8 and 10^8 are accepted too).
    #[arg(long, value_parser = super::parse_size, allow_negative_numbers = true)]
    n: u64,
    /// Where the solution comes from: the explicit construction (Hoffman, Loessi and Moore),
    /// its transpose, its mirror image (column j becomes n + 1 - j), the linear solution
    /// q(i) = a (i - 1) mod n + 1 (n prime to 6), or random (the completion engine on the
    /// empty board).
    #[arg(long, value_enum, default_value_t = SourceArg::Construction)]
    source: SourceArg,
    /// The multiplier a of a linear solution (a, a - 1 and a + 1 prime to n).
    #[arg(long, default_value_t = 2, allow_negative_numbers = true)]
    a: u64,
    /// Same as --source random.
    #[arg(long)]
    random: bool,
    /// Seed of a random solution; default a fresh one, printed on standard error.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    #[command(flatten)]
    out: OutputArgs,
}

/// The `generate solution --source` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceArg {
    /// The explicit construction.
    Construction,
    /// The construction's transpose.
    Transposed,
    /// The construction's mirror image.
    Mirrored,
    /// q(i) = a (i - 1) mod n + 1.
    Linear,
    /// A random solution.
    Random,
}

/// The `generate composition --clear` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClearArg {
    /// A random subset of the queens (the seed paper's protocol).
    Random,
    /// A run of consecutive rows.
    Block,
    /// Every s-th row, s = n / size.
    Stride,
    /// A band of consecutive columns.
    Columns,
    /// A band of consecutive diagonals (--direction).
    Diagonals,
    /// A square of rows x columns whose side is the size.
    Region,
}

/// The `--direction` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectionArg {
    /// Index n + j - i.
    D1,
    /// Index i + j.
    D2,
}

/// Arguments of `generate composition`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens generate composition --from s.nqb --k 90000000 --seed 1 -o board.nqb",
        "nqueens generate composition --from s.nqb --free 2% --seed 1 -o board.nqb",
        "nqueens generate composition --from s.nqb --clear block --free 2000 -o block.nqb",
        "nqueens generate composition --from s.nqb --clear columns --free 10% --at 1 -o band.nqb",
        "nqueens generate composition --from s.nqb --clear diagonals --direction d2 --free 0.05 -o d.nqb",
        "nqueens generate composition --from s.nqb --free 0.1% --move 3 --seed 1 -o edited.nqb"
    )
)]
pub struct CompositionArgs {
    /// The solution (or composition) whose queens are sampled.
    #[arg(long, value_name = "SOLUTION")]
    from: PathBuf,
    /// What to clear: a random subset of the queens, or the queens inside a block of rows,
    /// a stride of rows, a band of columns or diagonals, or a square region.
    #[arg(long, value_enum, default_value_t = ClearArg::Random)]
    clear: ClearArg,
    /// Queens to keep (--clear random only); default, without --free, uniform in 1..k-1
    /// (the seed paper's protocol).
    #[arg(long, conflicts_with = "free", allow_negative_numbers = true)]
    k: Option<u64>,
    /// How much to clear, as a count (2000, 2e3) or a fraction of n (2%, 0.02): queens
    /// (random), rows (block, stride), columns, diagonals, or for a region about that many
    /// queens (a square of side sqrt(size n)).
    #[arg(long, value_parser = parse_part, value_name = "SIZE")]
    free: Option<PartSize>,
    /// Where the part starts (first row, column or diagonal index; the first row of a
    /// stride, 1..=s; the first row and column of a square); default drawn from the seed.
    #[arg(long, value_name = "POS", value_parser = super::parse_size)]
    at: Option<u64>,
    /// The diagonals of --clear diagonals.
    #[arg(long, value_enum, default_value_t = DirectionArg::D1)]
    direction: DirectionArg,
    /// Then move this many of the kept queens, one after another, each to another cell of
    /// its row that attacks no queen: a solution edited by hand (default 0). A composition
    /// with queens moved may have no completion. Each move scans the free columns: meant
    /// for a few edits, up to thousands.
    #[arg(long = "move", value_name = "K", value_parser = super::parse_size, default_value_t = 0)]
    moves: u64,
    /// Seed of every random choice; default a fresh one, printed on standard error.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    #[command(flatten)]
    out: OutputArgs,
}

/// Runs `generate`.
pub fn run(cmd: Command) -> Result<i32, Error> {
    match cmd {
        Command::Solution(a) => solution(a),
        Command::Excluded(a) => excluded(a),
        Command::Composition(a) => composition(a),
    }
}

fn solution(a: SolutionArgs) -> Result<i32, Error> {
    let source = match (a.random, a.source) {
        (true, _) | (_, SourceArg::Random) => return random_solution(a),
        (false, SourceArg::Construction) => Source::Construction,
        (false, SourceArg::Transposed) => Source::Transposed,
        (false, SourceArg::Mirrored) => Source::Mirrored,
        (false, SourceArg::Linear) => Source::Linear { a: a.a },
    };
    if a.seed.is_some() {
        return Err(Error::Usage(
            "--seed applies to --source random only: the other sources are fixed".into(),
        ));
    }
    source.check(a.n)?;
    with_output(&a.out, a.n, |w| write_solution(source, a.n, w))
}

fn composition(a: CompositionArgs) -> Result<i32, Error> {
    let opts = nqueens::format::OpenOptions {
        mmap: super::mapped(),
        ..Default::default()
    };
    let source = super::open_input(&a.from, &opts)?;
    let report = verify(&source, Requirements::default())?;
    if report.verdict == Verdict::Invalid {
        return Err(Error::Invalid {
            path: a.from.clone(),
            why: report.first_problem().unwrap_or_default(),
        });
    }
    let n = source.n();
    let seed = a.seed.unwrap_or_else(rand::random);
    let shape = match a.clear {
        ClearArg::Random => None,
        ClearArg::Block => Some(Shape::Block),
        ClearArg::Stride => Some(Shape::Stride),
        ClearArg::Columns => Some(Shape::Columns),
        ClearArg::Diagonals => Some(Shape::Diagonals(match a.direction {
            DirectionArg::D1 => Direction::D1,
            DirectionArg::D2 => Direction::D2,
        })),
        ClearArg::Region => Some(Shape::Square),
    };
    let Some(shape) = shape else {
        if a.at.is_some() {
            return Err(Error::Usage(
                "--at applies to structured clearings only".into(),
            ));
        }
        let keep = match (a.k, a.free) {
            (Some(k), _) => Some(k),
            (None, Some(free)) => Some(report.k.saturating_sub(free.of(n).min(report.k))),
            (None, None) => None,
        };
        let clearing = Clearing::Random {
            have: report.k,
            keep,
        };
        let mut made = Made::default();
        let code = with_output(&a.out, n, |w| {
            made = write_composition(&source, clearing, a.moves, seed, w)?;
            Ok(())
        })?;
        errln!(
            "kept {} of {} queens of {}{} (seed {seed})",
            made.kept,
            report.k,
            a.from.display(),
            moved(&made, a.moves)
        );
        return Ok(code);
    };
    if a.k.is_some() {
        return Err(Error::Usage(
            "--k applies to --clear random; give the part's size with --free".into(),
        ));
    }
    let Some(size) = a.free else {
        return Err(Error::Usage(format!(
            "--clear {} needs --free SIZE (a count, or a fraction of n such as 2%)",
            format!("{:?}", a.clear).to_lowercase()
        )));
    };
    let region = match (shape, a.at) {
        // A square placed at random would often hold no queen of a constructed solution
        // (its queens lie on a few lines): centre it on a random queen instead.
        (Shape::Square, None) => {
            let (row, col) = nqueens::generate::random_queen(&source, seed)?.ok_or_else(|| {
                Error::Usage(format!("{} has no queen to clear", a.from.display()))
            })?;
            nqueens::generate::Region::square_around(n, size.of(n), row, col)
        }
        _ => shape.region(n, size.of(n), a.at, seed)?,
    };
    let mut made = Made::default();
    let code = with_output(&a.out, n, |w| {
        made = write_composition(&source, Clearing::Region(region), a.moves, seed, w)?;
        Ok(())
    })?;
    errln!(
        "cleared {} of {} queens of {} inside {region}{} (seed {seed})",
        made.cleared,
        report.k,
        a.from.display(),
        moved(&made, a.moves)
    );
    Ok(code)
}

/// ", then moved K of them", saying so when fewer than asked could move.
fn moved(made: &Made, asked: u64) -> String {
    match (made.moved, asked) {
        (_, 0) => String::new(),
        (m, a) if m == a => format!(", then moved {}", plural(m, "queen")),
        (m, a) => format!(
            ", then moved {m} of the {a} queens asked (no other row had a cell that attacks \
             no queen)"
        ),
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
    errln!(
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
        false,
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
    errln!("random solution of n = {} (seed {seed})", a.n);
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
