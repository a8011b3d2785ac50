//! `nqueens complete IN [-o OUT]`

use super::{Error, exit, plural};
use nqueens::complete::JobOutcome;
use nqueens::complete::{Answer, Stats};
use nqueens::format::{OutputFormat, writes_stdout};
use nqueens::json::{CompleteAnswer, CompleteRecord, Versions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Arguments of `complete`.
#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens complete board.nqb -o solved.nqb",
        "nqueens complete Q.mat -o Q_solved.mat --seed 7 --time-limit 300",
        "nqueens complete hard.txt --certificate why.json --json",
        "nqueens complete big.nqb -o solved.nqb --plot run.svg --trace run.csv",
        "nqueens --threads 2 complete big.nqb.zst -o big-solved.zst",
        "nqueens complete boards/*.npy -o solved/"
    )
)]
pub struct Args {
    /// The compositions to complete (any supported format), one after another, each
    /// answered in the order given.
    #[arg(id = "input", value_name = "INPUT", required = true)]
    inputs: Vec<PathBuf>,
    /// The one input of a run (set from `inputs`).
    #[arg(skip)]
    input: PathBuf,
    #[command(flatten)]
    input_args: super::InputArgs,
    /// Where to write the solution (`-` standard output): in the input's format, unless
    /// --encoding or the extension (.nqb, .zst/.nqbz, .txt/.csv/.dat, .mat, .npy, .param)
    /// names another. Without -o, the solution is shown after the answer (up to 10,000
    /// rows). An existing directory: the input's file name in it; `{stem}` and `{name}`
    /// are replaced by the input's file name without and with its extension (several
    /// inputs need one or the other; so do their --certificate, --trace and --plot).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output encoding.
    #[arg(long, value_enum)]
    encoding: Option<super::EncodingArg>,
    #[command(flatten)]
    mat: super::mat::MatArgs,
    #[command(flatten)]
    npy: super::npy::NpyArgs,
    /// Seed of every random choice; default a fresh one, printed in the statistics.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Give up with UNKNOWN after this many seconds, counted per input from its start
    /// (reading it included); a certificate's proof search stops there too (the answer
    /// stands, without the proof).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    /// Search even when every given queen lies on a closed-form solution (the explicit
    /// construction under a symmetry, a linear solution), which otherwise completes the
    /// board in one pass.
    #[arg(long)]
    no_closed_form: bool,
    /// Write the proof of an INFEASIBLE answer to this file (JSON), the input's residual
    /// as DIMACS CNF beside it (FILE with the extension .cnf), which any SAT solver can
    /// confirm unsatisfiable independently, and a proof of that (FILE with the extension
    /// .drat or .lrat, as --proof says) for a proof checker.
    #[arg(long, value_name = "FILE")]
    certificate: Option<PathBuf>,
    /// The format of the certificate's proof: DRAT (rate, drat-trim), LRAT, whose hints
    /// make its check many times faster (lrat-trim, lrat-check, cake_lpr), or LRAT in
    /// binary, half the bytes and checked faster again (lrat-trim).
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        default_value = "drat",
        requires = "certificate"
    )]
    proof: ProofArg,
    /// Nodes at most in the search of the certificate's proof (1e7 and 10^7 are accepted
    /// too; 0: no proof): each node writes about one clause (1.1 in large proofs, a few
    /// more in small ones) of about 80 bytes in DRAT, 200 in LRAT, 75-95 in binary LRAT,
    /// which lrat-trim checks at about a million a second; beyond the limit the
    /// certificate says so and has no proof. With --proof-shard: the nodes of the pieces
    /// this run writes.
    #[arg(
        long,
        value_name = "NODES",
        value_parser = super::parse_size,
        default_value = "1000000",
        requires = "certificate"
    )]
    proof_limit: u64,
    /// Split the certificate's proof into about this many parts (cube and conquer: the
    /// nodes of the proof's search that branch at the depth whose count is nearest),
    /// written at once on --threads and checked each on its own, all at once where there
    /// are cores (tools/check_proof.sh FILE): a top, FILE with the extension .top.drat or
    /// .top.lrat, and parts, .part0001.lrat on. 1: one piece; auto: 1 for searches under
    /// 2^22 nodes, 64 above (such proofs need a --proof-limit above the default); the same
    /// files whatever --threads.
    #[arg(
        long,
        value_name = "PARTS",
        value_parser = parse_parts,
        default_value = "auto",
        requires = "certificate"
    )]
    proof_parts: PartsArg,
    /// Write only shard I of S (0 <= I < S) of the proof's pieces: the top (or the whole
    /// proof) is shard 0's, part k shard k % S's. The shards of runs with the same input
    /// and options together make the proof, so a proof larger than the disk is written,
    /// checked and removed a shard at a time (tools/prove_in_shards.py does it); the
    /// document names its shard and the files it wrote.
    #[arg(
        long,
        value_name = "I/S",
        value_parser = parse_proof_shard,
        requires = "certificate"
    )]
    proof_shard: Option<nqueens::dimacs::ProofShard>,
    /// Write the proof's S shards one after another from this one search (as S runs of
    /// --proof-shard I/S would, each repeating the search): after each is written, a line
    /// on standard error says so ("proof shard I/S written"), and the next is written when
    /// a line comes on standard input, its writing removing the shard before; the end of
    /// standard input stops the run (exit 130). tools/prove_in_shards.py checks and removes
    /// each shard meanwhile. Time spent waiting does not count in --time-limit.
    #[arg(
        long,
        value_name = "S",
        value_parser = parse_shards,
        requires = "certificate",
        conflicts_with = "proof_shard"
    )]
    proof_shards_in_turn: Option<usize>,
    /// The answer and statistics as one JSON object.
    #[arg(long)]
    json: bool,
    /// Write the run's free rows over time, with its stage, restarts and dead ends, as CSV.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Draw the run's free rows over time, one colour per stage, as SVG.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// No progress display and no statistics, only the answer line.
    #[arg(short, long)]
    quiet: bool,
    /// With an Excluded Diagonals instance (CSPLib 079): answer with the solution of the
    /// completion board it reduces to, instead of the instance's own rows.
    #[arg(long)]
    reduced: bool,
}

/// `--proof-parts`: about how many parts, or as the search's size says.
#[derive(Clone, Copy, Debug)]
enum PartsArg {
    Auto,
    About(usize),
}

impl PartsArg {
    /// About how many parts the proof of `cert` is split into.
    fn parts(self, cert: &nqueens::complete::Certificate) -> usize {
        match (self, cert) {
            (PartsArg::About(k), _) => k,
            (PartsArg::Auto, nqueens::complete::Certificate::ExhaustedSearch { nodes, .. })
                if *nodes >= nqueens::dimacs::AUTO_SPLIT_NODES =>
            {
                nqueens::dimacs::AUTO_PARTS
            }
            (PartsArg::Auto, _) => 1,
        }
    }
}

fn parse_parts(text: &str) -> Result<PartsArg, String> {
    if text == "auto" {
        return Ok(PartsArg::Auto);
    }
    let max = nqueens::dimacs::MAX_PROOF_PARTS;
    match text.parse::<usize>() {
        Ok(k) if (1..=max).contains(&k) => Ok(PartsArg::About(k)),
        _ => Err(format!(
            "expected auto or a whole number of parts from 1 to {max}"
        )),
    }
}

fn parse_proof_shard(text: &str) -> Result<nqueens::dimacs::ProofShard, String> {
    let number = |t: &str| {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<usize>().ok())
            .flatten()
    };
    match text.split_once('/').map(|(i, s)| (number(i), number(s))) {
        Some((Some(index), Some(of))) if index < of => {
            Ok(nqueens::dimacs::ProofShard { index, of })
        }
        _ => Err("expected I/S, whole numbers with 0 <= I < S (0/4 is the first of four)".into()),
    }
}

/// Whether the input `path` is standard input: by its name (`-`, `/dev/stdin`), or as the
/// file it leads to (a link to `/dev/stdin`, the file standard input is redirected from).
fn is_stdin(path: &Path) -> bool {
    if nqueens::format::reads_stdin(path) {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::FromRawFd;
        // SAFETY: descriptor 0 is borrowed for one fstat and never closed (ManuallyDrop).
        let stdin = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(0) });
        if let (Ok(a), Ok(b)) = (std::fs::metadata(path), stdin.metadata()) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    false
}

fn parse_shards(text: &str) -> Result<usize, String> {
    // A proof has at most this many pieces: more shards would hold none.
    let max = nqueens::dimacs::MAX_PROOF_PARTS + 1;
    match text.parse::<usize>() {
        Ok(s) if (1..=max).contains(&s) && text.bytes().all(|b| b.is_ascii_digit()) => Ok(s),
        _ => Err(format!(
            "expected a whole number of shards from 1 to {max} (the most pieces a proof has)"
        )),
    }
}

/// `--proof`: the certificate's proof format.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ProofArg {
    /// DRAT, text.
    Drat,
    /// LRAT, text.
    Lrat,
    /// LRAT, binary: half the bytes, checked faster (lrat-trim reads it, lrat-check not).
    LratBinary,
}

impl ProofArg {
    fn format(self) -> nqueens::dimacs::ProofFormat {
        match self {
            ProofArg::Drat => nqueens::dimacs::ProofFormat::Drat,
            ProofArg::Lrat => nqueens::dimacs::ProofFormat::Lrat,
            ProofArg::LratBinary => nqueens::dimacs::ProofFormat::LratBinary,
        }
    }
}

/// Runs `complete`: each input in turn, its answer reported as for one; the exit code is
/// the worst of theirs (an unreadable input, then an invalid one, UNKNOWN, INFEASIBLE).
pub fn run(args: Args) -> Result<i32, Error> {
    if args.proof_shards_in_turn.is_some() && args.inputs.iter().any(|i| is_stdin(i)) {
        return Err(Error::Usage(
            "complete: --proof-shards-in-turn takes its go-ahead from standard input, which is \
             an input here: give the input as a file"
                .into(),
        ));
    }
    let several = args.inputs.len() > 1;
    let mut runs = Vec::with_capacity(args.inputs.len());
    let (mut derived, mut certificates) = (Vec::new(), Vec::new());
    for input in &args.inputs {
        let mut one = args.clone();
        one.inputs = Vec::new();
        one.input = input.clone();
        for (flag, path) in [
            ("-o", &mut one.output),
            ("--certificate", &mut one.certificate),
            ("--trace", &mut one.trace),
            ("--plot", &mut one.plot),
        ] {
            if let Some(given) = path.take() {
                let resolved = per_input(&given, input, several, flag)?;
                if resolved != given || several {
                    if flag == "--certificate" {
                        super::channels::check_set("complete", "certificate", flag, &resolved)?;
                        derived.extend(super::channels::certificate_siblings(flag, &resolved));
                        certificates.push((flag.to_string(), resolved.clone()));
                    }
                    derived.push((flag.to_string(), resolved.clone()));
                }
                *path = Some(resolved);
            }
        }
        runs.push(one);
    }
    // Paths made per input are checked as the command line's own were.
    if !derived.is_empty() {
        super::channels::check_derived(&args.inputs, derived, certificates)?;
    }
    if !several {
        return run_one(runs.pop().expect("one input"));
    }
    let mut worst = exit::OK;
    for one in runs {
        if !one.json {
            let mut w = report_stream(&one);
            wln!(w, "==> {} <==", one.input.display())?;
        }
        let code = match run_one(one) {
            Ok(code) => code,
            Err(e) if e.is_closed_pipe() => return Err(e),
            Err(e) => {
                errln!("nqueens: {e}");
                e.exit_code()
            }
        };
        if code == exit::INTERRUPTED {
            return Ok(code);
        }
        worst = worse(worst, code);
    }
    Ok(worst)
}

/// The output path `given` means for `input`: a pattern's `{stem}` and `{name}` replaced,
/// a directory joined with the input's file name; with several inputs, one of the two.
fn per_input(given: &Path, input: &Path, several: bool, flag: &str) -> Result<PathBuf, Error> {
    let name = match input.file_name() {
        Some(name) if !nqueens::format::is_stdio(input) => name.to_string_lossy().into_owned(),
        _ => "stdin".to_string(),
    };
    let stem = Path::new(&name)
        .file_stem()
        .map_or(name.clone(), |s| s.to_string_lossy().into_owned());
    let text = given.to_string_lossy();
    if text.contains("{stem}") || text.contains("{name}") {
        return Ok(PathBuf::from(
            text.replace("{stem}", &stem).replace("{name}", &name),
        ));
    }
    if flag == "-o" && given.is_dir() {
        return Ok(given.join(&name));
    }
    if several {
        return Err(Error::Usage(format!(
            "{}: {flag}: several inputs: name a pattern with {{stem}} or {{name}}{}",
            given.display(),
            if flag == "-o" { ", or a directory" } else { "" }
        )));
    }
    Ok(given.to_path_buf())
}

/// The worse of two exit codes of inputs completed in one call.
fn worse(a: i32, b: i32) -> i32 {
    let rank = |c: i32| {
        [
            exit::OK,
            exit::INFEASIBLE,
            exit::UNKNOWN,
            exit::INVALID,
            exit::ERROR,
            exit::INTERNAL,
        ]
        .iter()
        .position(|&x| x == c)
        .unwrap_or(usize::MAX)
    };
    if rank(b) > rank(a) { b } else { a }
}

/// Where a run's report goes: standard error when one of its outputs is standard output,
/// so that the output stays a clean file.
fn report_stream(args: &Args) -> Box<dyn std::io::Write> {
    if [&args.output, &args.certificate, &args.trace, &args.plot]
        .into_iter()
        .flatten()
        .any(|p| writes_stdout(p))
    {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(super::stdout())
    }
}

/// Completes one input (`args.input`) as `complete` does.
fn run_one(args: Args) -> Result<i32, Error> {
    let started = Instant::now();
    // The files it names were checked by `channels::check` (an output is no input).
    let certificate_cnf = args.certificate.as_ref().map(|p| p.with_extension("cnf"));
    let proof_format = args.proof.format();
    let stamp = FileStamp::of(&args.input);
    let input = super::open_input(&args.input, &args.input_args.options())?;
    // An Excluded Diagonals instance is solved through its reduced board; the answer is
    // the instance's own rows unless --reduced asks for that board.
    let excluded = input.excluded_diagonals().filter(|_| !args.reduced);
    let rows_out = excluded.map_or(input.n(), |ed| ed.m);
    let format = args
        .encoding
        .map(super::EncodingArg::format)
        .unwrap_or_else(|| match &args.output {
            Some(path) => OutputFormat::for_result(path, &input),
            None => OutputFormat::like(&input),
        });
    let (format, mat_note) = args.mat.apply(format, Some(&input), rows_out)?;
    let format = args.npy.apply(format, rows_out)?;
    if let Some(path) = &args.output {
        super::refuse_binary_on_terminal(path, format)?;
    }
    let seed = args.seed.unwrap_or_else(rand::random);
    let time_limit = match args.time_limit {
        Some(t) if !(t > 0.0 && t.is_finite()) => {
            return Err(Error::Usage(format!(
                "--time-limit {t}: expected a positive number of seconds"
            )));
        }
        // Beyond what a Duration holds, or a clock can count to: no limit in practice.
        t => t
            .and_then(|t| Duration::try_from_secs_f64(t).ok())
            .filter(|&d| started.checked_add(d).is_some()),
    };
    let recorder = (args.trace.is_some() || args.plot.is_some()).then(super::Recorder::start);
    let outcome = super::solve(
        &input,
        args.output
            .as_deref()
            .filter(|_| excluded.is_none())
            .map(|o| (o, format)),
        seed,
        time_limit,
        started,
        args.quiet,
        !args.no_closed_form,
    );
    // Stopped by a signal: exit 130 leaves no file behind, the trace and plot included.
    let interrupted = matches!(
        &outcome,
        Ok(JobOutcome::Ran { answer: Answer::Unknown(stopped), .. })
            if stopped.reason == nqueens::complete::StopReason::Interrupted
    );
    // Nor when the job failed (its output unwritable, its work file unmapped): a trace
    // of a run that wrote nothing would be left alone.
    if let Some(samples) = recorder
        .map(super::Recorder::finish)
        .filter(|_| !interrupted && outcome.is_ok())
    {
        if let Some(path) = &args.trace {
            super::write_csv(path, &samples)?;
        }
        if let Some(path) = &args.plot {
            let title = format!(
                "nqueens complete {} (n = {}, seed {seed})",
                args.input.display(),
                input.n()
            );
            super::write_svg(path, &samples, &title)?;
        }
    }
    // A result that fails its own check is a bug, unless the input changed under us:
    // then the check compared against other bytes, and the user should hear that.
    let outcome = outcome.map_err(|e| match e {
        Error::Job(_) | Error::Format(_)
            if stamp.is_some() && FileStamp::of(&args.input) != stamp =>
        {
            Error::InputChanged(args.input.clone())
        }
        e => e,
    })?;
    let (answer, stats, mut seconds_output, mut solution, patched, residual) = match outcome {
        // With --json, standard output holds records only: the reason is one line on
        // standard error.
        JobOutcome::Invalid(report) if args.json => {
            errln!(
                "nqueens: {}: not a valid composition: {}",
                args.input.display(),
                report.first_problem().unwrap_or_default()
            );
            return Ok(exit::INVALID);
        }
        JobOutcome::Invalid(report) => {
            errln!(
                "nqueens: {}: not a valid composition; the verifier says:",
                args.input.display()
            );
            super::print_report(&args.input.display().to_string(), &report)?;
            return Ok(exit::INVALID);
        }
        JobOutcome::Ran {
            answer,
            stats,
            seconds_output,
            solution,
            patched,
            residual,
        } => (answer, stats, seconds_output, solution, patched, residual),
    };
    if let (Some(ed), Answer::Solved) = (excluded, &answer) {
        let t = Instant::now();
        solution = Some(instance_solution(ed, solution, &args, format)?);
        seconds_output += t.elapsed().as_secs_f64();
    }
    let mut proof_record = None;
    if let (Answer::Infeasible(cert), Some(path), Some(cnf_path)) =
        (&answer, &args.certificate, &certificate_cnf)
    {
        use nqueens::dimacs::ProofShard;
        let (first, of) = match (args.proof_shard, args.proof_shards_in_turn) {
            (_, Some(of)) => (0, of),
            (one, None) => {
                let one = one.unwrap_or(ProofShard::ALL);
                (one.index, one.of)
            }
        };
        let in_turn = args.proof_shards_in_turn.is_some();
        let last = if in_turn { of } else { first + 1 };
        let mut waited = Duration::ZERO;
        for shard in (first..last).map(|index| ProofShard { index, of }) {
            if in_turn && shard.index > 0 {
                let t = Instant::now();
                if let Err(why) = go_ahead() {
                    errln!(
                        "nqueens: {}: {why} after proof shard {}/{}: the later shards are not written",
                        path.display(),
                        shard.index - 1,
                        shard.of
                    );
                    return Ok(exit::INTERRUPTED);
                }
                waited += t.elapsed();
            }
            // The time limit bounds the proof's search too (time spent waiting for the
            // go-ahead aside): past it the answer stands, without a proof.
            let deadline = time_limit.and_then(|t| started.checked_add(t + waited));
            let stop = nqueens::stop::Stop::new(deadline, Some(super::interrupt_flag()));
            let record = match nqueens::publish::certificate(
                cert,
                &input,
                residual.as_ref(),
                stats.free_rows,
                path,
                cnf_path,
                nqueens::dimacs::ProofOptions {
                    format: proof_format,
                    max_nodes: args.proof_limit,
                    parts: args.proof_parts.parts(cert),
                    shard,
                },
                &stop,
            )? {
                nqueens::publish::Published::Interrupted => {
                    // A signal during the proof search: nothing of the certificate (of this
                    // shard) is published.
                    if in_turn && shard.index > 0 {
                        errln!(
                            "nqueens: {}: interrupted while writing proof shard {}/{}: it is not written (the shards before it are)",
                            path.display(),
                            shard.index,
                            shard.of
                        );
                    } else {
                        errln!(
                            "nqueens: {}: interrupted while writing the certificate's proof; nothing written",
                            path.display()
                        );
                    }
                    return Ok(exit::INTERRUPTED);
                }
                nqueens::publish::Published::Written(record) => record,
            };
            // Said once, on standard error: the document says it too.
            if let Some(why) = record.missing.as_ref().filter(|_| !args.quiet) {
                errln!("nqueens: {}: no proof written: {why}", path.display());
            }
            let missing = record.missing.is_some();
            proof_record = Some(record);
            if missing {
                break;
            }
            if args.proof_shards_in_turn.is_some() {
                errln!(
                    "nqueens: {}: proof shard {}/{} written{}",
                    path.display(),
                    shard.index,
                    shard.of,
                    if shard.index + 1 < shard.of {
                        "; a line on standard input writes the next"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    // A 0-based solution read as 1-based leaves one row without a cell: say so.
    let hint = match &answer {
        Answer::Infeasible(_) if stats.free_rows == 1 => {
            nqueens::verify::verify(&input, Default::default())?
                .looks_zero_based
                .then(|| super::report::zero_based_hint(input.n()))
        }
        _ => None,
    };
    let total = started.elapsed().as_secs_f64();
    let run = Finished {
        output_base: format.index_base(),
        hint,
        patched,
        mat_note: match (patched, format.mat_layout()) {
            (Some(k), Some(layout)) => {
                let others = input
                    .mat_source()
                    .filter(|s| !s.others.is_empty())
                    .map(|s| s.others_listing());
                Some(format!(
                    "written as the input file with the {k} chunk{} that held free rows \
                     replaced: {layout}, stored as the input stored it{}",
                    if k == 1 { "" } else { "s" },
                    match others {
                        None => String::new(),
                        Some(list) => format!("; its other variables kept ({list})"),
                    }
                ))
            }
            _ => mat_note,
        }
        .filter(|_| args.output.is_some() && answer == Answer::Solved),
        instance_note: excluded.map(|ed| {
            format!(
                "Excluded Diagonals instance of {}, solved through the completion board of \
                 {} it reduces to (--reduced answers with that board)",
                plural(ed.m, "row"),
                plural(stats.n, "row")
            )
        }),
        answer: &answer,
        stats: &stats,
        seed,
        seconds_output,
        total,
        solution: solution.as_deref(),
        proof: proof_record,
    };
    report(&run, &args)?;
    // An output the answer has none for, where an earlier run's file is.
    let (word, solved, infeasible) = match &answer {
        Answer::Solved => ("SOLVED", true, false),
        Answer::Infeasible(_) => ("INFEASIBLE", false, true),
        Answer::Unknown(_) => ("UNKNOWN", false, false),
    };
    for (path, written) in [(&args.output, solved), (&args.certificate, infeasible)] {
        if let Some(path) = path.as_deref().filter(|_| !written) {
            super::channels::note_not_written(path, &format!("the answer is {word}"));
        }
    }
    Ok(exit::of_answer(&answer))
}

/// Waits for the go-ahead for `--proof-shards-in-turn`'s next shard: a line on standard
/// input, read by one thread for the whole process (each input of several takes the next
/// lines, none lost between them), so that a signal is noticed while none comes. Err: why
/// none will come.
fn go_ahead() -> Result<(), &'static str> {
    use std::io::Read;
    use std::sync::mpsc::{Receiver, RecvTimeoutError};
    use std::sync::{Mutex, OnceLock};
    static LINES: OnceLock<Mutex<Receiver<bool>>> = OnceLock::new();
    let lines = LINES.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // Bytes are counted, never kept: a line of any length costs nothing.
            let mut buf = [0u8; 4096];
            let mut stdin = std::io::stdin().lock();
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(false);
                        return;
                    }
                    Ok(k) => {
                        for _ in buf[..k].iter().filter(|&&b| b == b'\n') {
                            if tx.send(true).is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        Mutex::new(rx)
    });
    let lines = lines.lock().unwrap_or_else(|e| e.into_inner());
    let flag = super::interrupt_flag();
    loop {
        if flag.load(std::sync::atomic::Ordering::SeqCst) {
            return Err("interrupted");
        }
        match lines.recv_timeout(Duration::from_millis(50)) {
            Ok(true) => return Ok(()),
            Ok(false) | Err(RecvTimeoutError::Disconnected) => return Err("standard input ended"),
            Err(RecvTimeoutError::Timeout) => continue,
        }
    }
}

/// The Excluded Diagonals instance's solution inside `reduced`, the solved rows of its
/// reduced board, checked against the instance and written to `-o` when given.
fn instance_solution(
    ed: &nqueens::excluded::ExcludedDiagonals,
    reduced: Option<Vec<u32>>,
    args: &Args,
    format: OutputFormat,
) -> Result<Vec<u32>, Error> {
    let self_check = |why: String| Error::Job(nqueens::complete::JobError::SelfCheck(why));
    let reduced =
        reduced.ok_or_else(|| self_check("the reduced board's rows were not kept".into()))?;
    let solution = ed.solution_from_reduced(&reduced).map_err(self_check)?;
    if let Some(path) = &args.output {
        nqueens::format::RowWriter::all(path, &solution, format)?.commit()?;
    }
    Ok(solution)
}

/// What identifies the content of a file cheaply: its inode, size and modification time.
#[derive(PartialEq, Eq)]
struct FileStamp(u64, u64, std::time::SystemTime);

impl FileStamp {
    /// The stamp of a regular file; `None` for standard input, devices and pipes.
    fn of(path: &std::path::Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        Some(FileStamp(m.ino(), m.len(), m.modified().ok()?))
    }
}

/// A run that has its answer, as it is reported.
struct Finished<'a> {
    answer: &'a Answer,
    stats: &'a Stats,
    seed: u64,
    /// Seconds spent publishing the output.
    seconds_output: f64,
    /// Seconds since the command started.
    total: f64,
    /// The solution's columns, when there was no `-o` and the board is small enough to show.
    solution: Option<&'a [u32]>,
    /// Advice about the input, shown under the answer.
    hint: Option<String>,
    /// Chunks replaced when the answer is its v7.3 input patched.
    patched: Option<u64>,
    /// How the written answer numbers its columns (to read it back for `--json`).
    output_base: nqueens::format::IndexBase,
    /// The solution went to a MAT file (whose shape is ours, not the input's).
    /// How a MAT output's variable was written.
    mat_note: Option<String>,
    /// For an Excluded Diagonals instance answered with its own rows: what was solved.
    instance_note: Option<String>,
    /// The proof beside a certificate written, as its document records it.
    proof: Option<nqueens::json::ProofRecord>,
}

fn report(run: &Finished, args: &Args) -> Result<(), Error> {
    // When an output (the solution, a trace, a plot) went to standard output, everything
    // else goes to standard error, so that the output stays a clean file.
    let mut w = report_stream(args);
    let headline = match run.answer {
        Answer::Solved => "SOLVED".to_string(),
        Answer::Infeasible(c) => format!("INFEASIBLE: {c}"),
        Answer::Unknown(why) => format!("UNKNOWN: {why}"),
    };
    if args.json {
        let record = record(run, args);
        let line = serde_json::to_string(&record).expect("records serialize");
        return wln!(w, "{line}");
    }
    wln!(w, "{headline}")?;
    if args.quiet {
        // Quiet hides statistics, not the advice that explains an answer.
        if let Some(hint) = &run.hint {
            errln!("nqueens: {}: {hint}", args.input.display());
        }
        return Ok(());
    }
    if let Some(hint) = &run.hint {
        wln!(w, "  {hint}")?;
    }
    // Without -o the answer is shown here, as `count --first` shows its placement.
    if args.output.is_none() && *run.answer == Answer::Solved {
        match run.solution {
            Some(cols) => {
                let cols: Vec<String> = cols.iter().map(u32::to_string).collect();
                wln!(w, "solution: {}", cols.join(" "))?;
            }
            None => wln!(
                w,
                "solution: {} rows, more than the {} shown here: write it with -o FILE (-o - for standard output)",
                run.stats.n,
                nqueens::complete::KEPT_ROWS
            )?,
        }
    }
    print_stats(&mut w, run)
}

/// The answer and statistics as `--json` prints them.
fn record(run: &Finished, args: &Args) -> CompleteRecord {
    let Finished {
        answer,
        stats,
        seed,
        seconds_output,
        total,
        solution,
        hint: _,
        mat_note: _,
        instance_note: _,
        patched,
        output_base,
        ref proof,
    } = *run;
    // Kept in memory without -o; read back from the file -o wrote (a regular file: a pipe
    // or standard output cannot be read again) when it is small.
    let solution = match (answer, solution, &args.output) {
        (Answer::Solved, Some(rows), _) => Some(rows.to_vec()),
        (Answer::Solved, None, Some(out))
            if stats.n <= nqueens::complete::KEPT_ROWS
                && std::fs::metadata(out).is_ok_and(|m| m.is_file()) =>
        {
            let opts = nqueens::format::OpenOptions {
                index_base: output_base,
                ..Default::default()
            };
            nqueens::format::Input::open_with(out, &opts)
                .and_then(|i| i.to_vec())
                .ok()
        }
        _ => None,
    };
    CompleteRecord {
        versions: Versions::current(),
        input: args.input.display().to_string(),
        answer: match answer {
            Answer::Solved => CompleteAnswer::Solved,
            Answer::Infeasible(_) => CompleteAnswer::Infeasible,
            Answer::Unknown(_) => CompleteAnswer::Unknown,
        },
        seed,
        seconds: total,
        seconds_output,
        peak_rss_bytes: super::peak_rss(),
        stats: stats.clone(),
        certificate: match answer {
            Answer::Infeasible(c) => Some(c.clone()),
            _ => None,
        },
        explanation: match answer {
            Answer::Infeasible(c) => Some(c.to_string()),
            _ => None,
        },
        reason: match answer {
            Answer::Unknown(stopped) => Some(stopped.to_string()),
            _ => None,
        },
        output: match answer {
            Answer::Solved => args.output.as_ref().map(|o| o.display().to_string()),
            _ => None,
        },
        certificate_file: proof
            .as_ref()
            .and(args.certificate.as_ref())
            .map(|p| p.display().to_string()),
        proof: proof.clone(),
        patched_chunks: patched,
        solution,
    }
}

/// The statistics for people: the phases' times and queens, the search, memory, totals.
fn print_stats(w: &mut dyn std::io::Write, run: &Finished) -> Result<(), Error> {
    let Finished {
        stats,
        seed,
        seconds_output,
        total,
        ..
    } = *run;
    let phase = |w: &mut dyn std::io::Write,
                 name: &str,
                 p: &nqueens::complete::Phase,
                 extra: String|
     -> Result<(), Error> {
        if p.runs > 0 {
            wln!(
                w,
                "  {name:<13}{:>9.3} s  {:>12} queens  {extra}",
                p.seconds,
                p.placed
            )?;
        }
        Ok(())
    };
    wln!(
        w,
        "  n = {}, {} in the input; exact search from {} free rows, end game from {}; seed {seed}",
        stats.n,
        plural(stats.free_rows, "free row"),
        stats.levels.0,
        stats.levels.1
    )?;
    if let Some(note) = &run.instance_note {
        wln!(w, "  {note}")?;
    }
    phase(w, "input", &stats.input, "read, validated, marked".into())?;
    phase(
        w,
        "closed form",
        &stats.closed_form,
        closed_form_line(stats),
    )?;
    phase(w, "certificates", &stats.certificates, String::new())?;
    phase(
        w,
        "pairing",
        &stats.pairing,
        format!(
            "{} in the last run",
            plural(stats.pairing_rounds.len() as u64, "round")
        ),
    )?;
    phase(
        w,
        "scatter",
        &stats.scatter,
        plural(stats.scatter.runs, "run"),
    )?;
    phase(
        w,
        "end game",
        &stats.endgame,
        plural(stats.endgame.runs, "run"),
    )?;
    phase(
        w,
        "chains",
        &stats.chains,
        format!("moving {}", plural(stats.chain_rows, "row")),
    )?;
    phase(
        w,
        "repair",
        &stats.repair,
        format!("{} tried", plural(stats.repair_moves, "swap")),
    )?;
    phase(w, "exact", &stats.exact, String::new())?;
    wln!(
        w,
        "  search        {} ({} branching, the rest forced); dead ends: {} in scatter, {} in end games; {}; {} of the exact search",
        plural(stats.search_nodes, "node"),
        stats.search_decisions,
        stats.dead_ends_scatter,
        stats.dead_ends_endgame,
        plural(stats.restarts, "restart"),
        plural(stats.exact_restarts, "restart")
    )?;
    wln!(
        w,
        "  output        {seconds_output:>9.3} s  (seal, re-verify, write)"
    )?;
    if let Some(note) = &run.mat_note {
        wln!(w, "                {note}")?;
    }
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    if let Some(b) = stats.peak_anonymous_bytes {
        wln!(
            w,
            "  memory        {:.1} MiB anonymous (bitmaps and working sets, sampled)",
            mib(b)
        )?;
    }
    if let Some(rss) = super::peak_rss() {
        wln!(
            w,
            "  peak RSS      {:.1} MiB (mapped file pages included)",
            mib(rss)
        )?;
    }
    wln!(w, "  total         {total:>9.3} s")?;
    Ok(())
}

/// What the closed-form phase found and did, for the statistics.
fn closed_form_line(stats: &Stats) -> String {
    let on = |s: &str| match stats.closed_form_exceptions {
        0 => format!("the given queens lie on {s}"),
        e => format!("all but {} lie on {s}", plural(e, "given queen")),
    };
    let chained = match stats.closed_form_chained {
        0 => String::new(),
        c => format!(
            "{} by chains of column exchanges moving {}",
            if c == stats.closed_form_attacked {
                "placed".to_string()
            } else {
                format!("{c} placed")
            },
            plural(stats.closed_form_chain_rows, "row"),
        ),
    };
    let searched = |r| format!("rerouted with {} by exact search", plural(r, "row"));
    let rerouted = match (stats.closed_form_attacked, stats.closed_form_rerouted) {
        (0, _) => String::new(),
        (a, _) if stats.closed_form_chained == a => {
            format!(
                "; those attack its queen in {}, {chained}",
                plural(a, "free row")
            )
        }
        (a, r) if stats.closed_form_chained > 0 => format!(
            "; those attack its queen in {}, {chained}, the others {}",
            plural(a, "free row"),
            searched(r)
        ),
        (a, r) => format!(
            "; those attack its queen in {}, {}",
            plural(a, "free row"),
            searched(r)
        ),
    };
    match (&stats.closed_form_solution, &stats.closed_form_tried) {
        (Some(s), _) => format!("{}: completed from it{rerouted}", on(s)),
        (None, Some(s)) if stats.closed_form_rerouted > 0 => {
            format!("{}{}, in vain: searched instead", on(s), rerouted)
        }
        // No reroute ran: the attacked rows were most free rows (searched instead), or a
        // free line no free row reaches proved the board infeasible (the answer says so).
        (None, Some(s)) => format!(
            "{}; those attack its queen in {}: not completed from it",
            on(s),
            plural(stats.closed_form_attacked, "free row")
        ),
        (None, None) => "the given queens lie on no closed-form solution".into(),
    }
}
