//! `nqueens count`: placements of n queens, rooks or bishops, and `count merge` for shards.

use super::{Error, Progress, exit, print_json};
use nqueens::count::checkpoint::{Checkpoint, CheckpointError};
use nqueens::count::plan::Plan;
use nqueens::count::resumable::{Hooks, ItemCount};
use nqueens::count::{self, Kind, Piece, Problem, Rules, Shard, Tally};
use nqueens::format::writes_stdout;
use nqueens::format::{OutputFormat, RowWriter};
use nqueens::json::{CountRecord, FirstRecord, Square, Versions};
use std::io::IsTerminal;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

/// Arguments of `count`.
#[derive(clap::Args, Debug)]
#[command(
    group(clap::ArgGroup::new("sampled").args(["estimate", "plan"])),
    group(clap::ArgGroup::new("written").args(["first", "plan"])),
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens count 16",
        "nqueens count --range 4..18 --json",
        "nqueens count 27 --piece queen --kind super",
        "nqueens count 20 --checkpoint c20.json",
        "nqueens count 21 --shard 0/8 --json > s0.json",
        "nqueens count 23 --plan 64 --threads 8 -o plan.json",
        "nqueens count --plan-file plan.json --shard 0/64 --threads 8 --json > s0.json",
        "nqueens count merge s*.json",
        "nqueens count 12 --place 1:2,5:7 --first -o first.txt"
    )
)]
pub struct Args {
    /// Add up the JSON results of shards.
    #[command(subcommand)]
    merge: Option<MergeCommand>,
    /// Board size, which is also the number of pieces (taken from --from when omitted;
    /// 1.8e1 and 2^4 are accepted too).
    #[arg(value_parser = super::parse_size_u32, allow_negative_numbers = true)]
    n: Option<u32>,
    /// The piece.
    #[arg(long, value_enum, default_value = "queen")]
    piece: PieceArg,
    /// Regular moves, or plus a knight leap (super), or plus nightrider rays (awesome).
    #[arg(long, value_enum, default_value = "regular")]
    kind: KindArg,
    /// Also count placements distinct up to rotation and reflection.
    #[arg(long)]
    distinct: bool,
    /// Also count placements with their placing order: (n - preplaced)! per placement.
    #[arg(long)]
    orders: bool,
    /// Find the first placement instead of counting.
    #[arg(long, conflicts_with_all = ["distinct", "orders", "shard", "range"])]
    first: bool,
    /// Preplaced pieces as ROW:COL, 1-based, comma-separated (e.g. 1:2,5:7).
    #[arg(long, value_delimiter = ',')]
    place: Vec<String>,
    /// Preplaced pieces from a composition file (any supported format).
    #[arg(long)]
    from: Option<PathBuf>,
    #[command(flatten)]
    input_args: super::InputArgs,
    /// Count only part I of S of the work (0 <= I < S), for a cluster; add with `count merge`.
    #[arg(long, value_name = "I/S")]
    shard: Option<String>,
    /// Count every n in A..B (inclusive), one row each.
    #[arg(long, value_name = "A..B", conflicts_with = "n")]
    range: Option<String>,
    /// The engine: the fast one, or Wirth's check-function backtracking (regular queens only).
    #[arg(long, value_enum, default_value = "fast")]
    algorithm: Algorithm,
    /// With --first: write the placement as a composition file; with --plan: write the plan
    /// (else it goes to standard output).
    #[arg(short, long, requires = "written")]
    output: Option<PathBuf>,
    /// Save the count's progress to FILE every few seconds and when stopped (Ctrl-C,
    /// SIGTERM; work items under way that do not finish within a second are left, and
    /// counted again); the same command run again resumes from it. Regular queens on an
    /// empty board, n = 4..31.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["range", "first"])]
    checkpoint: Option<PathBuf>,
    /// Seconds between two saves of the checkpoint.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 5.0,
        requires = "checkpoint",
        allow_negative_numbers = true
    )]
    checkpoint_every: f64,
    /// Project the count's time and memory from a random sample of its work items instead
    /// of counting (regular queens on an empty board, n = 4..31): core-hours with a 95 %
    /// range, wall time on this machine's threads (--threads), peak memory per process.
    #[arg(long, conflicts_with_all = ["first", "range", "checkpoint", "distinct", "orders"])]
    estimate: bool,
    /// With --estimate: seconds to spend sampling (more: a narrower range). Items are timed
    /// whole, at least one per thread: from n = 24 (start constellations) an item takes
    /// seconds (about 9 s at n = 24, growing about 8x per n), and the sample at least that long.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 20.0,
        requires = "sampled",
        allow_negative_numbers = true
    )]
    estimate_seconds: f64,
    /// With --estimate: the shard count S (for --shard I/S) that keeps each shard under H
    /// hours on --threads threads; with `--plan auto`: the plan's shard count.
    #[arg(
        long,
        value_name = "H",
        requires = "sampled",
        allow_negative_numbers = true
    )]
    shard_hours: Option<f64>,
    /// With --estimate or --plan: seed of the sample; default a fresh one, printed.
    #[arg(long, requires = "sampled", allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Deal the count's work items into S shards of about equal estimated work and write the
    /// plan (JSON, formats/count-plan.md) to -o FILE, else to standard output: a timed sample
    /// as --estimate takes (--estimate-seconds, --seed) scales a cheap per-item hint; the
    /// plan holds each shard's items, time and the Slurm limits (--threads per shard).
    /// `auto`: as many shards as keep each under --shard-hours. Regular queens on an empty
    /// board, n = 4..31.
    #[arg(
        long,
        value_name = "S",
        conflicts_with_all = ["first", "range", "checkpoint", "distinct", "orders", "estimate", "shard", "plan_file", "json"]
    )]
    plan: Option<String>,
    /// Count on an NVIDIA GPU (a build with the cargo feature `gpu`): regular queens on an
    /// empty board, n = 5..31, by the items of the constellation engine (also below n = 24,
    /// where the CPU's default is the half-board engine: a plan for --gpu shards is made with
    /// --plan S --gpu, its times sampled on the CPU), each searched
    /// node by node by the GPU; --shard, --plan-file and --checkpoint work as on the CPU.
    /// Where no GPU, CUDA driver or NVRTC is found, or the build has no GPU support, it says
    /// so and counts the same items on the CPU.
    #[arg(long, conflicts_with_all = ["first", "estimate", "range"])]
    gpu: bool,
    /// Count shard --shard I/S of the plan FILE that `count --plan` wrote (N is the plan's);
    /// the result names the plan, and `count merge` adds the shards of one plan.
    #[arg(
        long,
        value_name = "FILE",
        requires = "shard",
        conflicts_with_all = ["first", "range", "distinct", "orders", "estimate", "place", "from"]
    )]
    plan_file: Option<PathBuf>,
    /// Print one JSON object per count.
    #[arg(long)]
    json: bool,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

/// `count merge`.
#[derive(clap::Subcommand, Debug)]
enum MergeCommand {
    /// Add the JSON results of the shards of a count (each file: lines from `count --json`).
    Merge {
        /// The shard results.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Which counting engine.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Algorithm {
    /// Bitboards, symmetry classes, all cores.
    Fast,
    /// Wirth's backtracking with a check function (the seed's baseline).
    Basic,
}

/// `--piece`: [`Piece`] as the command line spells it.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum PieceArg {
    /// Rook plus bishop lines.
    Queen,
    /// Rows and columns.
    Rook,
    /// Diagonals.
    Bishop,
}

impl From<PieceArg> for Piece {
    fn from(p: PieceArg) -> Piece {
        match p {
            PieceArg::Queen => Piece::Queen,
            PieceArg::Rook => Piece::Rook,
            PieceArg::Bishop => Piece::Bishop,
        }
    }
}

/// `--kind`: [`Kind`] as the command line spells it.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum KindArg {
    /// The piece's own lines only.
    Regular,
    /// Plus the eight single knight leaps.
    Super,
    /// Plus the eight nightrider rays: knight leaps repeated in one direction up to the edge
    /// (never wrapping around it).
    Awesome,
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Kind {
        match k {
            KindArg::Regular => Kind::Regular,
            KindArg::Super => Kind::Super,
            KindArg::Awesome => Kind::Awesome,
        }
    }
}

/// Runs `count`.
pub fn run(args: Args) -> Result<i32, Error> {
    if let Some(MergeCommand::Merge { files, json }) = &args.merge {
        return merge(files, *json);
    }
    let args = &args;
    let request = Request::of(args)?;
    if args.range.is_some() && !args.json {
        let mut head = format!("{:>4}  {:>24}", "n", "placements");
        if args.distinct {
            head += &format!("  {:>22}", "distinct");
        }
        if args.orders {
            head += &format!("  {:>40}", "orders");
        }
        outln!("{head}  {:>10}", "seconds")?;
    }
    for &n in &request.sizes {
        let problem = Problem::new(n, request.rules, request.placed.clone())?;
        if args.first {
            return first(args, &problem);
        }
        if args.estimate {
            return estimate(args, &problem, request.shard);
        }
        if let Some(shards) = &args.plan {
            return write_plan(args, &problem, shards);
        }
        let Some(v) = count_one(args, &problem, &request)? else {
            return Ok(exit::INTERRUPTED);
        };
        if args.json {
            print_json(&v.sealed())?;
        } else if args.range.is_some() {
            print_row(&v)?;
        } else {
            print_human(&v)?;
        }
    }
    Ok(exit::OK)
}

/// A plan file as read, its shards not yet parsed ([`Plan::from_text`] bounds them by the
/// count's items).
struct PlanFile {
    text: String,
    header: count::plan::PlanHeader,
    /// The file's absolute name, which each shard's result carries so that a lost shard is
    /// rerun from it wherever `count merge` runs.
    name: String,
}

/// What the arguments ask to count, checked against each other.
struct Request {
    rules: Rules,
    /// Preplaced pieces, sorted.
    placed: Squares,
    sizes: Vec<u32>,
    shard: Shard,
    /// With `--plan-file`: the plan file's text, what it is of, and its absolute name.
    plan: Option<PlanFile>,
}

impl Request {
    fn of(args: &Args) -> Result<Request, Error> {
        if !(args.checkpoint_every.is_finite() && args.checkpoint_every >= 0.0) {
            return Err(Error::Usage(format!(
                "--checkpoint-every {:?}: expected a number of seconds, 0 or more",
                args.checkpoint_every
            )));
        }
        if Duration::try_from_secs_f64(args.checkpoint_every).is_err() {
            return Err(Error::Usage(format!(
                "--checkpoint-every {:?}: too many seconds to wait",
                args.checkpoint_every
            )));
        }
        let rules = Rules::new(args.piece.into(), args.kind.into());
        let (from_n, mut placed) = preplaced(args)?;
        let plan = args.plan_file.as_deref().map(read_plan).transpose()?;
        if let (Some(p), Some(n)) = (&plan, args.n)
            && p.header.n != n
        {
            return Err(Error::Usage(format!(
                "count: N = {n} but the plan {} is of n = {}",
                args.plan_file.as_deref().unwrap_or(Path::new("")).display(),
                p.header.n
            )));
        }
        let sizes: Vec<u32> = match (
            &args.range,
            args.n
                .or(plan.as_ref().map(|p| p.header.n))
                .or(from_n.map(|f| f.min(u32::MAX as u64) as u32)),
        ) {
            (Some(r), _) => parse_range(r)?,
            (None, Some(n)) => vec![n],
            (None, None) => {
                return Err(Error::Usage(
                    "count: give N, --range A..B or --from FILE".into(),
                ));
            }
        };
        if let (Some(f), Some(n)) = (from_n, args.n)
            && f != n as u64
        {
            return Err(Error::Usage(format!(
                "count: N = {n} but --from holds a board of {f} rows"
            )));
        }
        placed.sort_unstable();
        let shard = match &args.shard {
            Some(s) => parse_shard(s)?,
            None => Shard::WHOLE,
        };
        if args.algorithm == Algorithm::Basic
            && (rules != Rules::new(Piece::Queen, Kind::Regular)
                || !placed.is_empty()
                || args.distinct
                || args.first
                || args.shard.is_some()
                || args.plan.is_some()
                || args.gpu)
        {
            return Err(Error::Usage(
                "count: --algorithm basic counts regular queens only, without --place, --from, --distinct, --first, --shard, --plan or --gpu".into(),
            ));
        }
        Ok(Request {
            rules,
            placed,
            sizes,
            shard,
            plan,
        })
    }
}

/// Counts one board size: by work items (with a progress bar, and a checkpoint when asked)
/// where the count is made of them, else in one call. `None` when a signal stopped it.
fn count_one(
    args: &Args,
    problem: &Problem,
    request: &Request,
) -> Result<Option<CountRecord>, Error> {
    let started = Instant::now();
    let shard = request.shard;
    let by_items = (args.checkpoint.is_some() || shows_progress(args.quiet))
        && args.algorithm == Algorithm::Fast;
    if args.gpu
        && let Some(why) = gpu_refusal(args, problem)
    {
        return Err(Error::Usage(why));
    }
    let forced = engine_asked(args, problem)?;
    let by_items = by_items || forced.is_some();
    let items = match (forced, &request.plan) {
        (_, Some(file)) => Some(planned_shard(args, problem, file, shard)?),
        (Some(engine), None) => Some(
            ItemCount::with_engine(problem, args.distinct, shard, engine).ok_or_else(|| {
                Error::Usage(if args.gpu {
                    "--gpu counts regular queens on an empty board, n = 5..31, without --distinct with --shard".into()
                } else {
                    "NQUEENS_COUNT_ENGINE: that engine does not count this (regular queens on an empty board; half-boards: n = 4..23, constellations: n = 5..31)".into()
                })
            })?,
        ),
        (None, None) => by_items
            .then(|| ItemCount::new(problem, args.distinct, shard))
            .flatten(),
    };
    let plan_digest = items
        .as_ref()
        .and_then(|i| i.plan_digest().map(str::to_string));
    let (tally, resumed, gpu_items) = if let Some(items) = items {
        match count_items(args, &items)? {
            Some(done) => done,
            None => return Ok(None),
        }
    } else if args.checkpoint.is_some() {
        return Err(Error::Usage(
            "count: --checkpoint needs a count made of work items: regular queens on an empty board, n = 4..31 (with --distinct, no --shard)".into(),
        ));
    } else {
        let progress = count_progress(args.quiet, problem.n, Instant::now());
        let tally = if args.algorithm == Algorithm::Basic {
            Tally {
                count: count::count_queens_basic(problem.n).into(),
                distinct: None,
                method: count::Method::Rows,
                items: 1,
                conflict: None,
            }
        } else {
            count::count(problem, args.distinct, shard)?
        };
        progress.finish();
        (tally, 0, None)
    };
    let seconds = started.elapsed().as_secs_f64();
    let mut v = record(problem, &tally, shard, args, seconds);
    if args.checkpoint.is_some() {
        v.resumed_items = Some(resumed as u64);
    }
    v.gpu_items = gpu_items;
    if let (Some(file), Some(digest)) = (&request.plan, plan_digest) {
        v.plan = Some(nqueens::json::PlanRef {
            digest,
            file: file.name.clone(),
        });
    }
    Ok(Some(v))
}

/// The work items of `problem`'s `shard` and a timed sample of them, as `--estimate` and
/// `--plan` take it (`--estimate-seconds`, `--seed`, `--shard-hours` checked): the items,
/// the estimate and its seed.
fn sample(
    args: &Args,
    problem: &Problem,
    shard: Shard,
    what: &str,
) -> Result<(ItemCount, count::estimate::Estimate, u64), Error> {
    let seconds = args.estimate_seconds;
    let budget = Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|_| seconds.is_finite())
        .ok_or_else(|| {
            Error::Usage(format!(
                "--estimate-seconds {seconds}: expected a finite number of seconds, 0 or more"
            ))
        })?;
    if let Some(h) = args.shard_hours
        && !(h.is_finite() && h > 0.0)
    {
        return Err(Error::Usage(format!(
            "--shard-hours {h}: expected a positive number of hours"
        )));
    }
    let started = Instant::now();
    let engine = engine_asked(args, problem)?;
    let items = match engine {
        Some(engine) => ItemCount::with_engine(problem, false, shard, engine),
        None => ItemCount::new(problem, false, shard),
    }
    .ok_or_else(|| {
        Error::Usage(format!(
            "count {what}: only counts made of work items are sampled: regular queens on an empty board, n = {}..31",
            if engine == Some(count::Method::Constellations) { 5 } else { 4 }
        ))
    })?;
    let setup = started.elapsed().as_secs_f64();
    let seed = args.seed.unwrap_or_else(rand::random);
    let n = problem.n;
    let progress = Progress::status(args.quiet, move || {
        format!(
            "sampling n = {n}: timing a sample of the work items, whole, one per thread at least"
        )
    });
    let e = count::estimate::Estimate::of(&items, seed, budget, setup);
    progress.finish();
    Ok((items, e, seed))
}

/// `count N --estimate`: samples the count's items for `--estimate-seconds` and prints the
/// projection.
fn estimate(args: &Args, problem: &Problem, shard: Shard) -> Result<i32, Error> {
    let (items, e, seed) = sample(args, problem, shard, "--estimate")?;
    let threads = rayon::current_num_threads() as u64;
    let record = nqueens::json::EstimateRecord {
        versions: Versions::current(),
        n: problem.n,
        shard: [shard.index as u64, shard.of as u64],
        engine: name(&items.engine()),
        seed,
        wall_seconds: e.wall_seconds(threads as usize),
        shards: args.shard_hours.map(|h| e.shards_for(h, threads as usize)),
        shard_hours: args.shard_hours,
        threads,
        peak_memory_bytes: super::peak_rss(),
        estimate: e,
    };
    if args.json {
        print_json(&record)?;
    } else {
        print_estimate(&record)?;
    }
    Ok(exit::OK)
}

fn print_estimate(r: &nqueens::json::EstimateRecord) -> Result<(), Error> {
    let e = &r.estimate;
    let hours = |s: f64| s / 3600.0;
    let part = if r.shard[1] == 1 {
        String::new()
    } else {
        format!(", shard {}/{}", r.shard[0], r.shard[1])
    };
    outln!("n: {}, regular queens{part}", r.n)?;
    outln!(
        "engine: {}, {} of {} work items sampled in {:.1} s (seed {}; setup {:.1} s)",
        r.engine,
        e.sampled,
        e.items,
        e.sampled_seconds,
        r.seed,
        e.setup_seconds
    )?;
    let [lo, hi] = e.core_seconds_range;
    let pct = |x: f64| 100.0 * (x / e.core_seconds.max(f64::MIN_POSITIVE) - 1.0);
    outln!(
        "core time: {} = {:.4} core-hours (95 %: {:+.1} % to {:+.1} %)",
        human_duration(e.core_seconds),
        hours(e.core_seconds),
        pct(lo),
        pct(hi)
    )?;
    outln!(
        "wall time on {}: {} (up to {})",
        super::plural(r.threads, "thread"),
        human_duration(r.wall_seconds),
        human_duration(e.setup_seconds + hi / r.threads.max(1) as f64)
    )?;
    if let Some(m) = r.peak_memory_bytes {
        outln!(
            "peak memory per process: {:.0} MiB",
            m as f64 / (1 << 20) as f64
        )?;
    }
    if let (Some(h), Some(s)) = (r.shard_hours, r.shards) {
        outln!(
            "shards: {s} of at most {h} h each on {}: --shard I/{s}, I = 0..{}",
            super::plural(r.threads, "thread"),
            s - 1
        )?;
    }
    Ok(())
}

/// The most bytes of a plan file read before what it is of is known: a plan of n = 31 takes
/// under 100 MB; [`Plan::from_text`] then bounds it by the count's items.
const MAX_PLAN_BYTES: u64 = 256 << 20;

/// `count N --plan S`: samples the count's items, deals them into S shards of about equal
/// estimated work and writes the plan (to -o, else standard output), with a summary on
/// standard output when it goes to a file.
fn write_plan(args: &Args, problem: &Problem, shards: &str) -> Result<i32, Error> {
    let asked: Option<u64> = match shards {
        "auto" => {
            if args.shard_hours.is_none() {
                return Err(Error::Usage(
                    "--plan auto: give --shard-hours H, the most hours a shard may take".into(),
                ));
            }
            None
        }
        s => Some(s.trim().parse().map_err(|_| {
            Error::Usage(format!(
                "--plan {s:?}: expected a number of shards, or auto (with --shard-hours)"
            ))
        })?),
    };
    let (items, e, seed) = sample(args, problem, Shard::WHOLE, "--plan")?;
    // The threads asked for, not those started here: a plan made on a small machine is
    // for the cluster's.
    let threads = super::requested_threads().unwrap_or_else(rayon::current_num_threads) as u64;
    let shards =
        asked.unwrap_or_else(|| e.shards_for(args.shard_hours.unwrap_or(1.0), threads as usize));
    let out = args.output.as_deref().unwrap_or(Path::new("-"));
    let plan = Plan::make(&items, shards, seed, e, threads, super::peak_rss())
        .map_err(|e| Error::Usage(format!("--plan {shards}: {e}")))?;
    let text = serde_json::to_string(&plan).expect("plans serialize") + "\n";
    if writes_stdout(out) {
        super::stdout()
            .write_all(text.as_bytes())
            .map_err(Error::Stdout)?;
        return Ok(exit::OK);
    }
    let mut file = nqueens::format::AtomicFile::create(out)?;
    file.write_all(text.as_bytes()).map_err(|e| {
        nqueens::format::FormatError::new(out, nqueens::format::ErrorKind::Write(e))
    })?;
    file.commit()?;
    let mean_wall = plan.shards.iter().map(|s| s.wall_seconds).sum::<f64>() / shards as f64;
    let per_shard = plan.items / shards;
    let [clo, chi] = plan.estimate.core_seconds_range;
    let pct = |x: f64| 100.0 * (x / plan.estimate.core_seconds.max(f64::MIN_POSITIVE) - 1.0);
    outln!(
        "plan: n = {} in {} of {} ({}, {} sampled, seed {seed}), written to {} (digest {})",
        plan.n,
        super::plural(shards, "shard"),
        super::plural(plan.items, "work item"),
        name(&plan.engine),
        plan.estimate.sampled,
        out.display(),
        plan.digest
    )?;
    outln!(
        "each shard: about {} on {}, {per_shard}+ items; the slowest up to {:+.0} % by the items' spread (95 % range of the whole: {:+.1} % to {:+.1} %)",
        human_duration(mean_wall),
        super::plural(threads, "thread"),
        100.0 * plan.expected_excess(),
        pct(clo),
        pct(chi)
    )?;
    if per_shard < 100 {
        outln!(
            "note: fewer than 100 items per shard: shards vary by the items they draw; fewer shards balance better"
        )?;
    }
    outln!(
        "slurm: --array={} --cpus-per-task={} --mem={} --time={}",
        plan.slurm.array,
        plan.slurm.cpus_per_task,
        plan.slurm.mem,
        plan.slurm.time
    )?;
    outln!(
        "run: nqueens count --plan-file={} --shard I/{shards} --threads {threads}{} --json > part-I.json, I = 0..{}",
        nqueens::publish::merge::shell_word(&absolute(out).to_string_lossy()),
        if args.gpu { " --gpu" } else { "" },
        shards - 1
    )?;
    Ok(exit::OK)
}

/// The plan file at `path`, read up to [`MAX_PLAN_BYTES`], with what it is of (format,
/// version, n, engine, items); its shards are read once the count is built
/// ([`planned_shard`]). Its name must be UTF-8 without control characters: each shard's
/// result carries it, and `count merge` prints it in the command that reruns a shard.
fn read_plan(path: &Path) -> Result<PlanFile, Error> {
    let corrupt = |why: String| Error::Plan {
        path: path.to_path_buf(),
        source: count::plan::PlanError::Corrupt(why),
    };
    let absolute = absolute(path);
    let name = absolute
        .to_str()
        .filter(|n| !n.chars().any(char::is_control))
        .ok_or_else(|| {
            Error::Usage(format!(
                "--plan-file {}: name the plan with printable UTF-8 characters: each shard's result carries its name",
                path.display()
            ))
        })?
        .to_string();
    let bytes = nqueens::format::read_bounded(path, MAX_PLAN_BYTES, "a count plan")?;
    let text = String::from_utf8(bytes).map_err(|e| {
        corrupt(format!(
            "not UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let header = Plan::header(&text).map_err(|source| Error::Plan {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(PlanFile { text, header, name })
}

/// `path` made absolute against the current directory (its links kept: a plan is named as
/// the user named it).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Shard `shard` of the plan in `file`: the whole count by the plan's engine, the plan read
/// for it (its size bounded by the count's items, its digest and deal checked), restricted
/// to the shard's items.
fn planned_shard(
    args: &Args,
    problem: &Problem,
    file: &PlanFile,
    shard: Shard,
) -> Result<ItemCount, Error> {
    let plan_error = |source| Error::Plan {
        path: args.plan_file.clone().unwrap_or_default(),
        source,
    };
    let count = ItemCount::with_engine(problem, false, Shard::WHOLE, file.header.engine)
        .ok_or_else(|| {
            plan_error(count::plan::PlanError::Mismatch(format!(
                "a plan of n = {} by engine {:?}, which does not count this",
                file.header.n, file.header.engine
            )))
        })?;
    let plan = Plan::from_text(&file.text, &count).map_err(plan_error)?;
    plan.restrict(count, shard).map_err(plan_error)
}

/// Why `--gpu` cannot count `problem` as asked, naming what is in the way, or `None`.
fn gpu_refusal(args: &Args, problem: &Problem) -> Option<String> {
    let why = if problem.rules.piece != Piece::Queen {
        format!("not --piece {}", name(&problem.rules.piece))
    } else if problem.rules.kind != Kind::Regular {
        format!("not --kind {}", name(&problem.rules.kind))
    } else if !problem.placed.is_empty() {
        "not with preplaced pieces (--place, --from)".into()
    } else if !(5..=31).contains(&problem.n) {
        format!("n = 5..31, not {}", problem.n)
    } else if args.distinct && args.shard.is_some() {
        "not --distinct with --shard (the distinct count needs the whole total)".into()
    } else {
        return None;
    };
    Some(format!(
        "--gpu counts regular queens on an empty board: {why}"
    ))
}

/// A GPU as `count --gpu` uses it: the library's where the build has the `gpu` feature,
/// else a type with no value.
#[cfg(feature = "gpu")]
type Gpu = count::gpu::Gpu;
#[cfg(not(feature = "gpu"))]
type Gpu = std::convert::Infallible;

/// The GPU to count `items` on, or `None` after saying on standard error why the count runs
/// on the CPU instead (no GPU support in this build, no driver, NVRTC or device, or items
/// of an engine the GPU does not count).
fn open_gpu(items: &ItemCount) -> Option<Gpu> {
    let on_cpu = |why: &str| {
        errln!("nqueens: --gpu: {why}; counting on the CPU");
        None
    };
    if items.engine() != count::Method::Constellations {
        return on_cpu(
            "the plan's items are the half-board engine's, which the GPU does not count",
        );
    }
    #[cfg(feature = "gpu")]
    {
        // The rayon pool (which builds the GPU's batches) starts before the CUDA driver,
        // which may narrow the CPUs of the thread that opens it and of threads started after.
        let _ = rayon::current_num_threads();
        let opened = count::share::Settings::for_board(items.key().n)
            .and_then(|settings| count::gpu::Gpu::open(items.key().n, settings));
        match opened {
            Ok(g) => {
                let s = g.settings();
                errln!(
                    "nqueens: counting on {} (nodes of free row {}, {} threads per block, stacks in {} memory) and {} CPU threads",
                    g.name(),
                    s.depth,
                    s.block,
                    if s.shared { "shared" } else { "local" },
                    s.cpu_threads
                );
                if let Some((before, after)) = g.narrowed() {
                    errln!(
                        "nqueens: --gpu: opening the GPU left this thread {after} of the {before} CPUs it had; the CPU threads get all {before} back"
                    );
                }
                Some(g)
            }
            Err(why) => on_cpu(&why),
        }
    }
    #[cfg(not(feature = "gpu"))]
    on_cpu("this nqueens was built without GPU support (cargo feature gpu)")
}

/// The engine a count or its sample must use: the constellation engine's items with
/// --gpu (on the GPU where one is found and on the CPU where not: the same items either
/// way, so its shards and checkpoints mix), which the engine variable may not contradict,
/// with the GPU's settings checked before anything is counted (a variable naming them
/// wrongly is not a reason to count on the CPU instead); else the one the variable forces.
fn engine_asked(args: &Args, problem: &Problem) -> Result<Option<count::Method>, Error> {
    match (args.gpu, forced_engine()?) {
        (true, Some(count::Method::HalfBoards)) => Err(Error::Usage(
            "--gpu counts the constellation engine's items: NQUEENS_COUNT_ENGINE=half-boards contradicts it".into(),
        )),
        (true, _) => {
            count::share::Settings::for_board(problem.n)
                .map_err(|why| Error::Usage(format!("--gpu: {why}")))?;
            Ok(Some(count::Method::Constellations))
        }
        (false, forced) => Ok(forced),
    }
}

/// The engine `NQUEENS_COUNT_ENGINE` forces, if any.
fn forced_engine() -> Result<Option<count::Method>, Error> {
    match std::env::var("NQUEENS_COUNT_ENGINE").ok().as_deref() {
        None | Some("") => Ok(None),
        Some("half-boards") => Ok(Some(count::Method::HalfBoards)),
        Some("constellations") => Ok(Some(count::Method::Constellations)),
        Some(other) => Err(Error::Usage(format!(
            "NQUEENS_COUNT_ENGINE={other:?}: expected half-boards or constellations"
        ))),
    }
}

/// A spinner for a count made in one call: when its engine reports work items (the
/// library's meter), how many are done and the time left at the rate so far, with a
/// warning when that is more than a year.
fn count_progress(quiet: bool, n: u32, started: Instant) -> Progress {
    nqueens::progress::meter().start_items(0);
    Progress::status(quiet, move || {
        let (done, total) = nqueens::progress::meter().items();
        let head = format!("counting n = {n}");
        if total == 0 {
            return head;
        }
        if done == 0 {
            return format!("{head}: 0 of {total} work items, no estimate yet");
        }
        let elapsed = started.elapsed().as_secs_f64();
        let left = elapsed * (total - done.min(total)) as f64 / done as f64;
        const YEAR: f64 = 365.25 * 86_400.0;
        let warning = if left > YEAR {
            " (more than a year at this rate: Ctrl-C stops it)"
        } else {
            ""
        };
        format!(
            "{head}: {done} of {total} work items, about {} left{warning}",
            human_duration(left)
        )
    })
}

/// Seconds as a person says them: "40 s", "12 min", "3.5 h", "2.1 days", "14 years".
fn human_duration(s: f64) -> String {
    match s {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.0} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s if s < 2.0 * 365.25 * 86_400.0 => format!("{:.1} days", s / 86_400.0),
        s => format!("{:.0} years", s / (365.25 * 86_400.0)),
    }
}

/// How long a count told to stop waits for the work items under way: those of n <= 20
/// take milliseconds and are kept; one of n = 24 takes minutes.
const UNDER_WAY_GRACE: Duration = Duration::from_secs(1);

/// Beside a count with a checkpoint (`path`): once `stop` has been raised by a signal (not
/// by a checkpoint that could not be saved, which `failed` holds) for
/// [`UNDER_WAY_GRACE`] and the count is still not `done`, saves what `state` holds (the
/// items finished) to `path` and ends the process with [`exit::INTERRUPTED`], abandoning
/// the items under way: they are not in the checkpoint and are counted again on resume.
fn abandon_when_stopped(
    stop: &nqueens::stop::Stop,
    done: &std::sync::atomic::AtomicBool,
    failed: &Mutex<Option<CheckpointError>>,
    state: &Mutex<Checkpoint>,
    path: &Path,
    total: usize,
    resumed: usize,
) {
    use std::sync::atomic::Ordering::SeqCst;
    let mut raised_at = None;
    while !done.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
        if !stop.raised() {
            continue;
        }
        if failed.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return;
        }
        if raised_at.get_or_insert_with(Instant::now).elapsed() < UNDER_WAY_GRACE {
            continue;
        }
        // Held to the end: no item is recorded after what is saved.
        let st = state.lock().unwrap_or_else(|e| e.into_inner());
        let checked = if resumed > 0 {
            st.check_plausible()
        } else {
            Ok(())
        };
        if let Err(source) = checked.and_then(|()| st.save(path)) {
            let e = Error::Checkpoint {
                path: path.to_path_buf(),
                source,
            };
            errln!("nqueens: {e}");
            nqueens::cleanup::remove_all();
            std::process::exit(e.exit_code());
        }
        errln!(
            "nqueens: interrupted; {} of {total} work items counted, saved to {}: run the same command to resume (the items under way were left: they are counted again then)",
            st.counted(),
            path.display()
        );
        nqueens::cleanup::remove_all();
        std::process::exit(exit::INTERRUPTED);
    }
}

/// Whether a progress display would show.
fn shows_progress(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A count of work items: the tally, the items taken from a checkpoint, and with `--gpu`
/// the items the GPU counted in this run.
type ItemsCounted = (Tally, usize, Option<u64>);

/// Counts item by item, with a progress bar and, with `--checkpoint`, saving what is done
/// every `--checkpoint-every` seconds, when stopped by a signal, and at the end. Returns
/// the tally and how many items came from the checkpoint, or `None` when a signal stopped
/// the count (the checkpoint is then saved; see [`abandon_when_stopped`] for items that
/// do not finish soon).
fn count_items(args: &Args, items: &ItemCount) -> Result<Option<ItemsCounted>, Error> {
    let path = args.checkpoint.as_deref();
    let key = items.key();
    let checkpoint_error = |source: CheckpointError| Error::Checkpoint {
        path: path.unwrap_or(Path::new("")).to_path_buf(),
        source,
    };
    let before = match path {
        Some(p) => Checkpoint::load(p, &key).map_err(checkpoint_error)?,
        None => None,
    }
    .unwrap_or_else(|| Checkpoint::new(key));
    // A checkpoint marks items of the whole count: one of this shard's marks none of
    // another's (a hand-sealed one could, and its sum would then hold them).
    if let Some(i) = (0..items.items()).find(|&i| before.is_done(i) && !items.takes(i)) {
        return Err(checkpoint_error(CheckpointError::Corrupt(format!(
            "it marks work item {i} counted, which this shard does not take; the file was edited"
        ))));
    }
    let resumed = before.counted();
    // Only once the checkpoint is known good: a refused one is the only thing said.
    let gpu = args.gpu.then(|| open_gpu(items)).flatten();
    let head = format!("counting n = {}", items.key().n);
    let bar = Progress::items(
        args.quiet,
        items.in_shard() as u64,
        resumed as u64,
        format!("{head}, time left after the first items"),
    );
    // The time left, projected as `count --estimate` projects a count: the items counted
    // so far (in a random order of blocks) are a sample of those left.
    let todo = (items.in_shard() - resumed) as u64;
    let threads = rayon::current_num_threads().max(1) as f64;
    let sums = Mutex::new(count::estimate::TimeSums::default());
    let run_started = Instant::now();
    thread_local! {
        static LAST_ITEM: std::cell::Cell<Option<Instant>> = const { std::cell::Cell::new(None) };
    }
    let state = Mutex::new(before.clone());
    let last_save = Mutex::new(Instant::now());
    let failed: Mutex<Option<CheckpointError>> = Mutex::new(None);
    // Ctrl-C and signals end the count through the flag (saving the checkpoint first);
    // so does a checkpoint that cannot be saved, which raises it itself.
    let flag = match path {
        Some(_) => super::interrupt_flag(),
        None => Default::default(),
    };
    let stop = nqueens::stop::Stop::new(None, Some(flag));
    let every = Duration::from_secs_f64(args.checkpoint_every);
    let skip = |i: usize| before.is_done(i);
    // Items the GPU counted: while it counts, those this thread (the GPU's feeding thread)
    // reports; CPU threads beside it report theirs from threads of their own.
    let feeder = std::thread::current().id();
    let gpu_phase = std::sync::atomic::AtomicBool::new(false);
    let on_gpu = std::sync::atomic::AtomicU64::new(0);
    let counted = |i: usize, value: u64| {
        if gpu_phase.load(std::sync::atomic::Ordering::Relaxed)
            && std::thread::current().id() == feeder
        {
            on_gpu.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        // Each thread counts items back to back: an item took the time since the thread's
        // last one ended (or since the run started).
        let now = Instant::now();
        let since = LAST_ITEM
            .with(|last| last.replace(Some(now)))
            .map_or(run_started, |t| t.max(run_started));
        let left = {
            let mut sums = sums.lock().unwrap_or_else(|e| e.into_inner());
            sums.add(now.duration_since(since).as_secs_f64());
            (sums.count() >= 2 * threads as u64).then(|| {
                let e = count::estimate::Estimate::from_sums(todo, &sums, 0.0);
                let left = |core: f64| (core - e.sampled_seconds).max(0.0) / threads;
                format!(
                    "{head}, about {} left ({} to {})",
                    human_duration(left(e.core_seconds)),
                    human_duration(left(e.core_seconds_range[0])),
                    human_duration(left(e.core_seconds_range[1]))
                )
            })
        };
        if let Some(message) = left {
            bar.set_message(message);
        }
        let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
        st.record(i, value);
        bar.inc(1);
        let Some(p) = path else { return };
        let mut last = last_save.lock().unwrap_or_else(|e| e.into_inner());
        if last.elapsed() >= every {
            if let Err(e) = st.save(p) {
                failed
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(e);
                stop.raise();
            }
            *last = Instant::now();
        }
    };
    let hooks = Hooks {
        skip: &skip,
        counted: &counted,
        stop: &stop,
    };
    #[cfg(feature = "gpu")]
    let count_on = |g: &Gpu, phase: &std::sync::atomic::AtomicBool| {
        phase.store(true, std::sync::atomic::Ordering::Relaxed);
        let done = g.count(items, &hooks);
        phase.store(false, std::sync::atomic::Ordering::Relaxed);
        done
    };
    // Told to stop, the count takes no new item; one under way finishes if it does within
    // `UNDER_WAY_GRACE`, else it is abandoned and counted again on resume.
    let done = std::sync::atomic::AtomicBool::new(false);
    let finished = std::thread::scope(|scope| {
        if let Some(p) = path {
            let (stop, done, failed, state) = (&stop, &done, &failed, &state);
            let total = items.in_shard();
            scope.spawn(move || abandon_when_stopped(stop, done, failed, state, p, total, resumed));
        }
        let finished = match gpu {
            None => items.run(&hooks).is_some(),
            #[cfg(feature = "gpu")]
            Some(g) => match count_on(&g, &gpu_phase) {
                Ok(done) => {
                    if let Some(shared) = done
                        && !args.quiet
                    {
                        errln!(
                            "nqueens: --gpu: {} items counted on {} ({} nodes in {} batches; built in {:.2} s, sent in {:.2} s, waited for {:.2} s, checked and reported in {:.2} s), {} on the CPU ({:.2} thread-seconds)",
                            shared.device_items,
                            g.name(),
                            shared.nodes,
                            shared.batches,
                            shared.build_seconds,
                            shared.launch_seconds,
                            shared.wait_seconds,
                            shared.check_seconds,
                            shared.cpu_items,
                            shared.cpu_seconds
                        );
                    }
                    done.is_some()
                }
                Err(why) => {
                    // The items the GPU counted are kept (each was reported whole); the rest
                    // are counted on the CPU.
                    errln!("nqueens: --gpu: {why}; counting the rest on the CPU");
                    let done_now = state.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    let skip_done = |i: usize| done_now.is_done(i);
                    let rest = Hooks {
                        skip: &skip_done,
                        counted: &counted,
                        stop: &stop,
                    };
                    items.run(&rest).is_some()
                }
            },
            #[cfg(not(feature = "gpu"))]
            Some(never) => match never {},
        };
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        finished
    });
    bar.finish();
    let st = state.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(checkpoint_error(e));
    }
    // Items taken from a checkpoint add what the file says: a sum edited and sealed anew
    // shows only now, when the finished count meets the published total.
    if resumed > 0 {
        st.check_plausible().map_err(checkpoint_error)?;
    }
    // A whole count whose total is published is checked against it before anything is
    // saved or printed: a wrong total (a GPU that misbehaved) is never reported, and its
    // checkpoint, whose sums cannot be trusted, is removed.
    if finished
        && items.key().shard.of == 1
        && items.plan_digest().is_none()
        && let Some(known) = count::known_total(items.key().n)
        && st.sum != known
    {
        if let Some(p) = path {
            let _ = std::fs::remove_file(p);
        }
        return Err(Error::CountCheck(format!(
            "count: the work items add up to {} placements, but the count of {} queens is {known} (OEIS A000170): not reported{}",
            st.sum,
            items.key().n,
            if path.is_some() {
                "; the checkpoint, which holds them, was removed"
            } else {
                ""
            }
        )));
    }
    if let Some(p) = path {
        st.save(p).map_err(checkpoint_error)?;
    }
    if !finished {
        errln!(
            "nqueens: interrupted; {} of {} work items counted, saved to {}: run the same command to resume",
            st.counted(),
            items.in_shard(),
            path.map(|p| p.display().to_string()).unwrap_or_default()
        );
        return Ok(None);
    }
    let gpu_items = args.gpu.then(|| on_gpu.into_inner());
    Ok(Some((items.tally(st.sum), resumed, gpu_items)))
}

/// Squares as (row, column), 0-based.
type Squares = Vec<(u32, u32)>;

/// The preplaced pieces (0-based) and, with --from, the board size of the file.
fn preplaced(args: &Args) -> Result<(Option<u64>, Squares), Error> {
    let mut placed = Vec::new();
    for item in args.place.iter().filter(|s| !s.trim().is_empty()) {
        let parsed = item.split_once(':').and_then(|(r, c)| {
            Some((r.trim().parse::<u64>().ok()?, c.trim().parse::<u64>().ok()?))
        });
        match parsed {
            Some((r, c)) if r >= 1 && c >= 1 => placed.push((
                (r - 1).min(u32::MAX as u64) as u32,
                (c - 1).min(u32::MAX as u64) as u32,
            )),
            _ => {
                return Err(Error::Usage(format!(
                    "count: --place {item:?}: expected ROW:COL with 1-based numbers"
                )));
            }
        }
    }
    let Some(path) = &args.from else {
        return Ok((None, placed));
    };
    let input = super::open_input(path, &args.input_args.options())?;
    let n = input.n();
    for (i, &q) in input.to_vec()?.iter().enumerate() {
        if q as u64 > n {
            let problem = nqueens::format::ErrorKind::OffBoard {
                row: i as u64 + 1,
                value: q,
                n,
            };
            return Err(nqueens::format::FormatError::new(path, problem).into());
        }
        if q != 0 {
            placed.push((i as u32, q - 1));
        }
    }
    Ok((Some(n), placed))
}

fn parse_range(s: &str) -> Result<Vec<u32>, Error> {
    let bad = || {
        Error::Usage(format!(
            "count: --range {s:?}: expected A..B with 1 <= A <= B"
        ))
    };
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let (a, b) = (
        super::parse_size_u32(a).map_err(|_| bad())?,
        super::parse_size_u32(b).map_err(|_| bad())?,
    );
    if a == 0 || a > b {
        return Err(bad());
    }
    Ok((a..=b).collect())
}

fn parse_shard(s: &str) -> Result<Shard, Error> {
    let bad = |why: String| Error::Usage(format!("count: --shard {s:?}: {why}"));
    let (i, of) = s
        .split_once('/')
        .ok_or_else(|| bad("expected I/S".into()))?;
    let (i, of) = (
        i.trim().parse().map_err(|_| bad("expected I/S".into()))?,
        of.trim().parse().map_err(|_| bad("expected I/S".into()))?,
    );
    Shard::new(i, of).map_err(|e| bad(e.to_string()))
}

/// 1-based squares, as records hold them.
fn squares(list: &[(u32, u32)]) -> Vec<Square> {
    list.iter().map(|&(r, c)| [r + 1, c + 1]).collect()
}

fn record(p: &Problem, t: &Tally, shard: Shard, args: &Args, seconds: f64) -> CountRecord {
    CountRecord {
        versions: Versions::current(),
        n: p.n,
        piece: p.rules.piece,
        kind: p.rules.kind,
        placed: squares(&p.placed),
        shard: [shard.index.into(), shard.of.into()],
        placements: t.count.to_string(),
        distinct: t.distinct.as_ref().map(|d| d.to_string()),
        orders: args
            .orders
            .then(|| (&t.count * p.orders_per_placement()).to_string()),
        engine: if args.algorithm == Algorithm::Basic {
            "basic".into()
        } else {
            name(&t.method)
        },
        items: t.items as u64,
        seconds,
        conflict: t.conflict.map(|(a, b)| {
            let s = squares(&[a, b]);
            [s[0], s[1]]
        }),
        resumed_items: None,
        gpu_items: None,
        plan: None,
        digest: None,
    }
}

fn print_human(r: &CountRecord) -> Result<(), Error> {
    outln!("n: {}, {} {}s", r.n, name(&r.kind), name(&r.piece))?;
    if let Some([a, b]) = r.conflict {
        outln!(
            "preplaced pieces attack each other: [{},{}] and [{},{}]",
            a[0],
            a[1],
            b[0],
            b[1]
        )?;
    }
    outln!("placements: {}", r.placements)?;
    if let Some(d) = &r.distinct {
        outln!("distinct: {d}")?;
    }
    if let Some(o) = &r.orders {
        outln!("orders: {o}")?;
    }
    let part = match (&r.plan, r.shard[1]) {
        (Some(p), _) => format!(
            ", shard {}/{} of plan {} ({})",
            r.shard[0], r.shard[1], p.file, p.digest
        ),
        (None, 1) => String::new(),
        (None, _) => format!(", shard {}/{}", r.shard[0], r.shard[1]),
    };
    outln!(
        "engine: {}, {}{part}",
        r.engine,
        super::plural(r.items, "work item")
    )?;
    outln!("time: {:.3} s", r.seconds)
}

/// A piece, kind or engine by its JSON name.
fn name(v: &impl serde::Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

fn print_row(r: &CountRecord) -> Result<(), Error> {
    let mut row = format!("{:>4}  {:>24}", r.n, r.placements);
    if let Some(d) = &r.distinct {
        row += &format!("  {d:>22}");
    }
    if let Some(o) = &r.orders {
        row += &format!("  {o:>40}");
    }
    outln!("{row}  {:>10.3}", r.seconds)
}

fn first(args: &Args, p: &Problem) -> Result<i32, Error> {
    // With the placement itself on standard output (`-o -`), every other line goes to
    // standard error so that the output stays a clean file.
    let mut w: Box<dyn std::io::Write> = if args.output.as_deref().is_some_and(writes_stdout) {
        Box::new(std::io::stderr())
    } else {
        Box::new(super::stdout())
    };
    if let Some((a, b)) = p.conflict() {
        let msg = format!(
            "no placement: preplaced pieces at {}:{} and {}:{} attack each other",
            a.0 + 1,
            a.1 + 1,
            b.0 + 1,
            b.1 + 1
        );
        if args.json {
            wln!(w, "{}", first_record(p, None, Some(msg)))?;
        } else {
            wln!(w, "{msg}")?;
        }
        if let Some(out) = &args.output {
            super::channels::note_not_written(out, "no placement exists");
        }
        return Ok(exit::INFEASIBLE);
    }
    if args.output.is_some() && !p.rules.one_per_line() {
        return Err(Error::Usage(
            "count --first -o: bishop placements are not compositions (several may share a row)"
                .into(),
        ));
    }
    let progress = Progress::start(args.quiet, format!("searching n = {}", p.n));
    let found = count::first(p)?;
    progress.finish();
    let Some(found) = found else {
        if let Some(out) = &args.output {
            super::channels::note_not_written(out, "no placement exists");
        }
        if args.json {
            wln!(
                w,
                "{}",
                first_record(p, None, Some("no placement exists".into()))
            )?;
        } else {
            wln!(w, "no placement exists")?;
        }
        return Ok(exit::INFEASIBLE);
    };
    if let Some(out) = &args.output {
        write_composition(out, p.n, &found)?;
    }
    if args.json {
        wln!(w, "{}", first_record(p, Some(&found), None))?;
        return Ok(exit::OK);
    }
    if p.n <= 32 {
        let mut board = vec![vec!['.'; p.n as usize]; p.n as usize];
        let mark = match p.rules.piece {
            Piece::Queen => 'Q',
            Piece::Rook => 'R',
            Piece::Bishop => 'B',
        };
        for &(r, c) in &found {
            board[r as usize][c as usize] = mark;
        }
        for row in board {
            wln!(
                w,
                "{}",
                row.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            )?;
        }
    }
    if p.rules.one_per_line() && args.output.is_none() && p.n <= 10_000 {
        let cols: Vec<String> = found.iter().map(|&(_, c)| (c + 1).to_string()).collect();
        wln!(w, "columns: {}", cols.join(" "))?;
    } else if p.rules.one_per_line() && args.output.is_none() {
        wln!(
            w,
            "found a placement of n = {}; its {} columns are too many to print: write them with -o FILE, or print them with --json",
            p.n,
            p.n
        )?;
    } else if let (true, Some(out)) = (p.rules.one_per_line(), &args.output) {
        if !writes_stdout(out) {
            wln!(
                w,
                "found a placement of n = {}, written to {}",
                p.n,
                out.display()
            )?;
        }
    } else if !p.rules.one_per_line() {
        let squares: Vec<String> = found
            .iter()
            .map(|&(r, c)| format!("{}:{}", r + 1, c + 1))
            .collect();
        wln!(w, "squares: {}", squares.join(" "))?;
    }
    Ok(exit::OK)
}

/// `count --first --json`'s line: the placement found, or none and why.
fn first_record(p: &Problem, found: Option<&[(u32, u32)]>, reason: Option<String>) -> String {
    let record = FirstRecord {
        versions: Versions::current(),
        n: p.n as u64,
        piece: found.map(|_| p.rules.piece),
        kind: found.map(|_| p.rules.kind),
        first: found.map(squares),
        reason,
    };
    serde_json::to_string(&record).expect("records serialize")
}

fn write_composition(out: &Path, n: u32, found: &[(u32, u32)]) -> Result<(), Error> {
    let mut rows = vec![0u32; n as usize];
    for &(r, c) in found {
        rows[r as usize] = c + 1;
    }
    RowWriter::all(out, &rows, OutputFormat::from_path(out))?.commit()?;
    Ok(())
}

/// The most bytes of one file `count merge` reads: a record is a few hundred bytes, so this
/// holds about a million shards.
const MAX_MERGE_FILE_BYTES: u64 = 256 << 20;

fn merge(files: &[PathBuf], as_json: bool) -> Result<i32, Error> {
    let mut records = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // Files that hold no record: shards whose job failed before printing, most likely.
    let mut empty = Vec::new();
    let mut names = Vec::new();
    for path in files {
        super::alloc::working_on(path);
        let before = records.len();
        read_records(path, &mut records, &mut seen)?;
        if records.len() == before {
            empty.push(path.clone());
        }
        // Standard input has no name to write a rerun shard to.
        let name = (!nqueens::format::is_stdio(path)).then(|| path.to_string_lossy().into_owned());
        names.resize(records.len(), name);
    }
    let records: Vec<(CountRecord, Option<String>)> = records.into_iter().zip(names).collect();
    if let Some(first) = empty.first() {
        // Said together with what the other files leave missing (and how to count it).
        return Err(match nqueens::publish::merge::merge_files(records) {
            Err(e @ nqueens::publish::merge::MergeError::Shards { .. }) => Error::FailedShards {
                files: empty
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                then: e,
            },
            _ => Error::NoCountRecord(first.clone()),
        });
    }
    let merged = nqueens::publish::merge::merge_files(records)?;
    for r in merged {
        if as_json {
            print_json(&r)?;
        } else {
            print_human(&r)?;
        }
    }
    Ok(exit::OK)
}

/// Appends the records of the file at `path` (`-`: standard input): JSON objects one
/// after another, one per line as `count --json` prints them or spread over lines as a
/// pretty-printer writes them, a UTF-8 byte order mark allowed. A shard given a second
/// time is refused at once (`seen`: the shards read so far), so that an endless repeat
/// of one record stops there.
fn read_records(
    path: &Path,
    records: &mut Vec<CountRecord>,
    seen: &mut std::collections::HashSet<String>,
) -> Result<(), Error> {
    let bytes =
        nqueens::format::read_bounded(path, MAX_MERGE_FILE_BYTES, "a file of count records")?;
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let stream = serde_json::Deserializer::from_slice(text).into_iter::<CountRecord>();
    for next in stream {
        let record = next.map_err(|source| Error::NotACountRecord {
            path: path.to_path_buf(),
            line: source.line(),
            source,
        })?;
        let key = serde_json::to_string(&(
            record.n,
            &record.piece,
            &record.kind,
            &record.placed,
            record.shard,
            record.distinct.is_some(),
            record.orders.is_some(),
        ))
        .expect("keys serialize");
        if !seen.insert(key) {
            return Err(nqueens::publish::merge::MergeError::Shards {
                n: record.n,
                of: record.shard[1],
                wrong: format!(
                    "given more than once {}/{} (again in {})",
                    record.shard[0],
                    record.shard[1],
                    path.display()
                ),
            }
            .into());
        }
        records.push(record);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human_duration(40.2), "40 s");
        assert_eq!(human_duration(720.0), "12 min");
        assert_eq!(human_duration(3.5 * 3600.0), "3.5 h");
        assert_eq!(human_duration(2.1 * 86_400.0), "2.1 days");
        assert_eq!(human_duration(14.0 * 365.25 * 86_400.0), "14 years");
    }
}
