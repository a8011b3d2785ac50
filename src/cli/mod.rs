//! The `nqueens` command line, private to the binary: argument structures, a short `run`
//! per subcommand, and how answers are printed, over the library's public surface.

/// `println!` that returns a [`Error::Stdout`] instead of panicking when standard output
/// is closed (`| head`) or full (`> /dev/full`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!($crate::cli::stdout(), $($arg)*).map_err($crate::cli::Error::Stdout)
    }};
}

/// `eprintln!` that never panics: after a terminal hangs up, writing to it fails (EIO),
/// and a panic in the signal handler's thread once left `count` running and deaf to
/// every later signal. A message that cannot be shown is dropped.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// `writeln!` to a report stream (standard output, or standard error when the result
/// itself goes to standard output), failing like [`outln!`].
macro_rules! wln {
    ($w:expr, $($arg:tt)*) => {{
        writeln!($w, $($arg)*).map_err($crate::cli::Error::Stdout)
    }};
}

/// The exit-code table, as a literal so that each subcommand's long help can append it
/// to its examples with `concat!`.
macro_rules! exit_codes {
    () => {
        "Exit codes:
  0    success (every file valid; complete: SOLVED)
  1    some file is not a valid composition or solution, or lacks what was required
  2    unreadable or corrupt input, unwritable output, or bad arguments
  3    complete: INFEASIBLE, no completion exists (with a certificate);
       count --first: no placement exists
  4    complete: UNKNOWN, the time limit ran out first
  5    internal error: a result failed its own re-verification; nothing was written
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP); no output or temporary file was left
       (count --checkpoint saves its checkpoint first)"
    };
}

/// A subcommand's long help: its examples, then the exit codes.
macro_rules! examples {
    ($($line:literal),+ $(,)?) => {
        concat!("Examples:\n", $("  ", $line, "\n",)+ "\n", exit_codes!())
    };
}

pub mod alloc;
pub mod channels;
mod complete;
mod convert;
mod count;
mod display;
mod docs;
mod generate;
mod info;
mod mat;
mod report;
mod size;
mod solve;
mod trace;
mod verify;

pub(crate) use display::Progress;
use report::print_report;
use size::{parse_size, parse_size_u32};
use solve::solve;
use trace::{Recorder, write_csv, write_svg};

use clap::{Parser, Subcommand};
use nqueens::format::nqb::DEFAULT_FRAME_ROWS;
use nqueens::format::{Encoding, FormatError, MmapChoice, OpenOptions, OutputFormat};

/// The input choices every subcommand that reads compositions takes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct InputArgs {
    /// The MAT variable to read (default: the only numeric vector).
    #[arg(long, value_name = "NAME")]
    var: Option<String>,
    /// From a CSPLib Excluded Diagonals file, take the first D diagonals of `diags`
    /// (default: `numdiags`).
    #[arg(long, value_name = "D")]
    diags: Option<u64>,
    /// The file's columns are 0-based (0..n-1) with -1 for an empty row, as NumPy code
    /// often holds them; they are read as 1..n with 0 (text, NumPy, MAT, Octave, HDF5).
    /// Outputs are written 1-based.
    #[arg(long)]
    zero_based: bool,
}

impl InputArgs {
    /// As the format layer takes them.
    fn options(&self) -> OpenOptions {
        OpenOptions {
            var: self.var.clone(),
            diags: self.diags,
            mmap: mapped(),
            index_base: if self.zero_based {
                nqueens::format::IndexBase::Zero
            } else {
                nqueens::format::IndexBase::One
            },
        }
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
    /// NumPy .npy, one uint32 vector.
    Npy,
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
            EncodingArg::Mat => OutputFormat::Mat {
                compressed: true,
                layout: Default::default(),
            },
            EncodingArg::Csplib => OutputFormat::Csplib,
            EncodingArg::Npy => OutputFormat::Npy(Default::default()),
        }
    }
}

/// Inputs are memory-mapped: a pass over a 4 GB file then costs no copy and no buffer.
fn mapped() -> MmapChoice {
    // SAFETY: README's "Files" section asks users not to change an input while nqueens
    // reads it; if one is truncated anyway, the SIGBUS handler (`install_bus_error_handler`)
    // turns the fault into a one-line error and exit code 2, removing temporary files.
    unsafe { MmapChoice::auto() }
}

/// Peak resident set size in bytes (all pages, mapped file pages included).
pub(crate) fn peak_rss() -> Option<u64> {
    // SAFETY: rusage is plain integers, for which all zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes into the struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    // Linux reports kilobytes.
    Some(usage.ru_maxrss as u64 * 1024)
}

/// Exit codes of the binary, shared by every subcommand.
pub mod exit {
    /// Success: every file valid, the job done.
    pub const OK: i32 = 0;
    /// Some file is not a valid composition or solution (or misses what was required).
    pub const INVALID: i32 = 1;
    /// Unreadable or corrupt input, unwritable output, or bad arguments.
    pub const ERROR: i32 = 2;
    /// `complete`: the composition has no completion (a certificate is printed).
    pub const INFEASIBLE: i32 = 3;
    /// `complete`: the budget ran out before an answer.
    pub const UNKNOWN: i32 = 4;
    /// A result failed its own re-verification (a bug): nothing was written.
    pub const INTERNAL: i32 = 5;
    /// Stopped by Ctrl-C, SIGTERM or SIGHUP; no output or temporary file was left.
    pub const INTERRUPTED: i32 = 130;

    use nqueens::complete::{Answer, StopReason};

    /// The code of a completion's answer.
    pub fn of_answer(answer: &Answer) -> i32 {
        match answer {
            Answer::Solved => OK,
            Answer::Infeasible(_) => INFEASIBLE,
            Answer::Unknown(stopped) => of_stop(stopped.reason),
        }
    }

    /// The code of a run that stopped before its answer.
    pub fn of_stop(reason: StopReason) -> i32 {
        match reason {
            StopReason::TimeLimit(_) => UNKNOWN,
            StopReason::Interrupted => INTERRUPTED,
        }
    }
}

/// The table of exit codes that every help ends with.
const EXIT_CODES: &str = concat!(
    exit_codes!(),
    "

Environment:
  NQUEENS_COUNT_ENGINE=half-boards|constellations
       count: count regular queens on an empty board with this engine instead of the one
       chosen for n (half boards up to 23, constellations from 24), item by item as with
       --checkpoint; for tests, benchmarks and bug reports
  NQUEENS_KERNEL=portable|avx2|avx512
       count: force one counting kernel instead of the fastest this CPU runs
       (an error if the CPU cannot run it); for benchmarks and bug reports
  NQUEENS_PROGRESS_AFTER_MS=MS
       show the progress display after MS milliseconds instead of 1000 (0: at once);
       the display shows only when standard error is a terminal
  TMPDIR
       where standard input is spooled and, without -o, complete's work file goes"
);

/// n-queens compositions and solutions at every scale.
#[derive(Parser, Debug)]
#[command(name = "nqueens", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Worker threads of every parallel step (default, or 0: all cores; at most 4096, and
    /// no more than 64 or twice the cores are started); may come before or after the
    /// subcommand.
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Complete a composition into a solution, or prove that none exists.
    Complete(complete::Args),
    /// Check compositions and solutions, many files at once.
    Verify(verify::Args),
    /// Show a file's format, header fields, sizes and checksum status.
    Info(info::Args),
    /// Convert a composition between NQB, MAT, text, CSPLib and DIMACS CNF.
    Convert(convert::Args),
    /// Count placements of n queens, rooks or bishops (regular, super, awesome).
    Count(count::Args),
    /// Build solutions and compositions.
    #[command(subcommand)]
    Generate(generate::Command),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    Completions(docs::CompletionArgs),
    /// Print the manual page (roff), or write one page per subcommand with --dir.
    Man(docs::ManArgs),
}

/// A failure that ends a command: reported once, as one line, by `main`, with the exit
/// code [`Error::exit_code`] gives it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written, or is malformed.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Generation failed.
    #[error(transparent)]
    Generate(#[from] nqueens::generate::GenerateError),
    /// A completion job failed.
    #[error(transparent)]
    Job(#[from] nqueens::complete::JobError),
    /// A run stopped before its answer (`generate solution --random`).
    #[error("stopped: {0}")]
    Stopped(nqueens::complete::Stopped),
    /// A CNF export failed, or its input is not a valid composition.
    #[error(transparent)]
    Dimacs(#[from] nqueens::dimacs::DimacsError),
    /// An input is not a valid composition where one is required.
    #[error("{}: not a valid composition ({why}); run `nqueens verify` for details", .path.display())]
    Invalid {
        /// The input.
        path: std::path::PathBuf,
        /// Its first problem.
        why: String,
    },
    /// A `--base` that is not a valid composition: every file would be judged against it.
    #[error("{}: --base is not a valid composition ({why}): each file would be judged against an impossible board; run `nqueens verify` on it for details", .path.display())]
    InvalidBase {
        /// The base.
        path: std::path::PathBuf,
        /// Its first problem.
        why: String,
    },
    /// An input that another process changed while this one read it.
    #[error("{}: the file changed while it was being read (another process rewrote it); nothing was written: run again on a file that stays put", .0.display())]
    InputChanged(std::path::PathBuf),
    /// A count cannot be made as asked.
    #[error("count: {0}")]
    Count(#[from] nqueens::count::CountError),
    /// The counting kernel forced through the environment cannot run.
    #[error("count: {0}")]
    Kernel(#[from] nqueens::count::KernelError),
    /// A count checkpoint cannot be used.
    #[error("{}: {source}", .path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        source: nqueens::count::checkpoint::CheckpointError,
    },
    /// A line given to `count merge` is not a result of `count --json`.
    #[error("{}: line {line}: not a result of `count --json`: {source}", .path.display())]
    NotACountRecord {
        /// The file.
        path: std::path::PathBuf,
        /// The line (1-based).
        line: usize,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
    /// Standard output was closed when the command started (`>&-`).
    #[error(
        "(standard output): closed (>&-): nothing could be printed; to discard the output, redirect it to /dev/null"
    )]
    StdoutClosed,
    /// Standard error is redirected into an input: any message would be written into it,
    /// so this one is not printed (exit 2 only).
    #[error("(standard error): is the input {} (the same file): refusing to write into an input", .0.display())]
    StderrIsInput(std::path::PathBuf),
    /// Files given to `count merge` that hold no record, with the shards the others leave
    /// missing.
    #[error("count merge: {files}: no result of `count --json` (failed shards?); {then}")]
    FailedShards {
        /// The files, listed.
        files: String,
        /// What the other files leave missing.
        then: nqueens::publish::merge::MergeError,
    },
    /// A file given to `count merge` that holds no record.
    #[error("{}: holds no result of `count --json` (an empty file, or only blank lines)", .0.display())]
    NoCountRecord(std::path::PathBuf),
    /// Shards that do not make one count.
    #[error("count merge: {0}")]
    Merge(#[from] nqueens::publish::merge::MergeError),
    /// The system refused a resource outside any file (threads, a directory).
    #[error("{what}: {source}")]
    System {
        /// What was asked for.
        what: String,
        /// The system's answer.
        source: std::io::Error,
    },
    /// Arguments that cannot work together.
    #[error("{0}")]
    Usage(String),
    /// Standard output could not be written: a closed pipe ends the command quietly
    /// (see [`Error::is_closed_pipe`]), anything else is reported.
    #[error("(standard output): cannot write: {0}")]
    Stdout(std::io::Error),
}

impl Error {
    /// Whether the reader of standard output went away (`nqueens ... | head -1`): the
    /// command then stops without a message, like `cat` or ripgrep, and exits 0.
    pub fn is_closed_pipe(&self) -> bool {
        let io = match self {
            Error::Stdout(e) => e,
            Error::Format(FormatError {
                problem: nqueens::format::ErrorKind::Write(e),
                path,
            })
            | Error::Job(nqueens::complete::JobError::Format(FormatError {
                problem: nqueens::format::ErrorKind::Write(e),
                path,
            })) if nqueens::format::writes_stdout(path) => e,
            _ => return false,
        };
        io.kind() == std::io::ErrorKind::BrokenPipe
    }

    /// The exit code for this failure: the README's table, in one place with [`exit`].
    pub fn exit_code(&self) -> i32 {
        use nqueens::dimacs::DimacsError;
        match self {
            Error::Job(nqueens::complete::JobError::SelfCheck(_)) => exit::INTERNAL,
            Error::Stopped(stopped) => exit::of_stop(stopped.reason),
            // A value off the board makes a file no composition, in every format.
            Error::Format(e) | Error::Dimacs(DimacsError::Format(e))
                if matches!(e.problem, nqueens::format::ErrorKind::OffBoard { .. }) =>
            {
                exit::INVALID
            }
            Error::Invalid { .. } | Error::Dimacs(DimacsError::Invalid(..)) => exit::INVALID,
            _ => exit::ERROR,
        }
    }
}

static INTERRUPT: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
    std::sync::OnceLock::new();
/// Set while a command polls the interrupt flag and stops by itself.
static POLLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Installs the handler of Ctrl-C, SIGTERM and SIGHUP. A command that polls the flag (see
/// [`interrupt_flag`]) is asked to stop and answers for itself; any other command, or a
/// second signal, removes this process's temporary files and exits with
/// [`exit::INTERRUPTED`] at once, so that no partial file is left behind.
fn install_signal_handler() {
    let flag = INTERRUPT
        .get_or_init(|| std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)))
        .clone();
    // Without a handler a signal still stops the process, only less tidily.
    let _ = ctrlc::set_handler(move || {
        use std::sync::atomic::Ordering::SeqCst;
        if POLLED.load(SeqCst) && !flag.swap(true, SeqCst) {
            return;
        }
        nqueens::cleanup::remove_all();
        errln!("nqueens: interrupted");
        std::process::exit(exit::INTERRUPTED);
    });
}

/// Turns SIGBUS into an error exit. The kernel raises it when a memory-mapped file cannot
/// back a page: an input truncated by another process while we read it, or an output
/// whose disk filled although its space was reserved (a filesystem that cannot
/// preallocate). The handler says so in one line, removes this process's temporary files
/// and exits with [`exit::ERROR`], instead of dying with no message and leaving them.
fn install_bus_error_handler() {
    #[cfg(unix)]
    {
        static FIRST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
        extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
            // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO.
            let addr = unsafe { (*info).si_addr() } as usize;
            use nqueens::format::fault::{Fault, recover};
            let name = match recover(addr) {
                // An input that shrank: the page now reads as zeros and the file is
                // marked; the readers report it and the process goes on.
                Some(Fault::Input(_)) => return,
                Some(Fault::Output(name)) => Some(name),
                None => None,
            };
            // Several threads may fault at once: one reports and exits, the others wait.
            if !FIRST.swap(false, std::sync::atomic::Ordering::SeqCst) {
                loop {
                    // SAFETY: pause(2) is async-signal-safe.
                    unsafe { libc::pause() };
                }
            }
            let write = |bytes: &[u8]| {
                // SAFETY: write(2) is async-signal-safe.
                unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
            };
            match name {
                Some(name) => {
                    write(b"nqueens: ");
                    write(name);
                    write(b": bus error writing the memory-mapped output: its disk is full; temporary files removed\n");
                }
                None => write(
                    b"nqueens: bus error on a memory-mapped file: an input was truncated while being read, or an output's disk is full; temporary files removed\n",
                ),
            }
            nqueens::cleanup::remove_all_in_signal_handler();
            // SAFETY: _exit(2) is async-signal-safe and runs no destructors.
            unsafe { libc::_exit(exit::ERROR) }
        }
        // SAFETY: installs a handler for one signal with an empty mask; the handler only
        // makes async-signal-safe calls apart from the non-blocking cleanup.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    }
}

/// `n thing` or `n things`, for statistics people read ("1 run", "2 runs").
fn plural(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// Refuses to write a binary format to standard output when it is a terminal, as zstd
/// does: the bytes would garble the screen and be lost.
fn refuse_binary_on_terminal(
    path: &std::path::Path,
    format: nqueens::format::OutputFormat,
) -> Result<(), Error> {
    use nqueens::format::OutputFormat::{Csplib, Text};
    use std::io::IsTerminal;
    if nqueens::format::writes_stdout(path)
        && !matches!(format, Text | Csplib)
        && std::io::stdout().is_terminal()
    {
        return Err(Error::Usage(
            "-: the output is binary and standard output is a terminal: redirect it (> FILE), pipe it, or name a file".into(),
        ));
    }
    Ok(())
}

/// Opens an input, naming it in an out-of-memory message from now on (see [`alloc`]).
fn open_input(
    path: impl AsRef<std::path::Path>,
    opts: &nqueens::format::OpenOptions,
) -> Result<nqueens::format::Input, nqueens::format::FormatError> {
    alloc::working_on(path.as_ref());
    nqueens::format::Input::open_with(path.as_ref(), opts)
}

/// The flag a signal sets, for a command that polls it and stops cleanly by itself.
fn interrupt_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    POLLED.store(true, std::sync::atomic::Ordering::SeqCst);
    INTERRUPT
        .get_or_init(|| std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)))
        .clone()
}

/// Makes a standard output that was closed when the process started (`>&-`) fail every
/// write (EBADF: reported, exit 2), as it would in C, instead of throwing the answer away
/// with exit 0. Rust's runtime puts `/dev/null` in the place of a closed standard
/// descriptor before `main` (so that no file takes its number), opened read-write; a
/// shell's `> /dev/null` opens it write-only. A read-write `/dev/null` as standard output is
/// therefore taken for a closed one and reopened read-only.
pub fn guard_standard_output() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        use std::os::unix::io::FromRawFd;
        // SAFETY: descriptor 1 is only borrowed for fstat; ManuallyDrop keeps it open.
        let out = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
        let Ok(meta) = out.metadata() else { return };
        let null = std::fs::metadata("/dev/null").map(|m| m.rdev()).ok();
        // SAFETY: F_GETFL reads the descriptor's status flags.
        let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
        let is_null = meta.file_type().is_char_device() && Some(meta.rdev()) == null;
        if !is_null || flags < 0 || flags & libc::O_ACCMODE != libc::O_RDWR {
            return;
        }
        STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
        // Writes that bypass `stdout()` (a copy into descriptor 1) fail the same way.
        // SAFETY: open and dup2 on a constant NUL-terminated path and descriptor numbers.
        unsafe {
            let read_only = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            if read_only > 1 {
                libc::dup2(read_only, 1);
                libc::close(read_only);
            }
        }
    }
}

/// Set when standard output was closed as the process started.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Standard output as every command writes it: std's, except that when it was closed as
/// the process started, every write fails with EBADF (std's own handle reports success).
pub(crate) fn stdout() -> Stdout {
    Stdout(std::io::stdout().lock())
}

/// See [`stdout`].
pub(crate) struct Stdout(std::io::StdoutLock<'static>);

impl Stdout {
    fn closed() -> std::io::Result<()> {
        if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::from_raw_os_error(libc::EBADF));
        }
        Ok(())
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Self::closed()?;
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Self::closed()?;
        self.0.flush()
    }
}

/// The command line of this process, parsed, with the files it names (clap's own error
/// and exit for a command line that does not parse, or `--help`).
pub fn parse() -> (Cli, channels::Files) {
    use clap::{CommandFactory, FromArgMatches};
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind;
            // Help and version go to standard output: through `stdout()`, so that a closed
            // or full one is an error (clap's own printing reports success).
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                use std::io::IsTerminal as _;
                use std::io::Write as _;
                let text = if std::io::stdout().is_terminal() {
                    e.render().ansi().to_string()
                } else {
                    e.render().to_string()
                };
                let written = stdout()
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout().flush());
                if let Err(e) = written {
                    errln!("nqueens: {}", Error::Stdout(e));
                    std::process::exit(exit::ERROR);
                }
                std::process::exit(exit::OK);
            }
            e.exit()
        }
    };
    let files = channels::Files::of(&Cli::command(), &matches);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    (cli, files)
}

/// Runs a parsed command line; returns the exit code for a command that ran to its end.
pub fn run(cli: Cli, files: channels::Files) -> Result<i32, Error> {
    install_signal_handler();
    install_bus_error_handler();
    channels::check(&files)?;
    if let Some(t) = checked_threads(cli.threads)? {
        // Idle pool threads spin before they sleep: thousands of them on two cores took
        // 12 s to start and stop around a 0.01 s count. Results never depend on the
        // number of threads, so more than the cores can run are simply not started.
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let t = t.min(64.max(2 * cores));
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .map_err(|e| Error::System {
                what: format!("--threads {t}: cannot start the threads"),
                source: std::io::Error::other(e),
            })?;
    }
    match cli.command {
        Command::Complete(a) => complete::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Info(a) => info::run(a),
        Command::Generate(c) => generate::run(c),
        Command::Count(a) => count::run(a),
        Command::Convert(a) => convert::run(a),
        Command::Completions(a) => docs::completions(a),
        Command::Man(a) => docs::man(a),
    }
}

/// The most worker threads a command starts: far above any machine's cores, far below
/// what exhausts the system's thread limit.
pub const MAX_THREADS: usize = 4096;

/// `--threads`, checked against [`MAX_THREADS`].
fn checked_threads(threads: Option<usize>) -> Result<Option<usize>, Error> {
    match threads {
        Some(t) if t > MAX_THREADS => Err(Error::Usage(format!(
            "--threads {t}: at most {MAX_THREADS} threads"
        ))),
        // As for zstd -T0: zero means all cores.
        Some(0) => Ok(None),
        t => Ok(t),
    }
}

/// Prints one JSON record on its own line.
fn print_json(record: &impl serde::Serialize) -> Result<(), Error> {
    let line = serde_json::to_string(record).expect("records serialize");
    outln!("{line}")
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every example in every help parses as the command line it shows (up to the first
    /// shell operator).
    #[test]
    fn every_example_in_the_help_parses() {
        fn walk(cmd: &mut clap::Command, seen: &mut usize) {
            let help = cmd.render_long_help().to_string();
            if let Some(at) = help.find("Examples:") {
                for line in help[at..].lines().skip(1) {
                    let Some(example) = line.trim().strip_prefix("nqueens ") else {
                        break;
                    };
                    let words: Vec<&str> = std::iter::once("nqueens")
                        .chain(
                            example
                                .split_whitespace()
                                .take_while(|w| !["|", "&&", ">", "<"].contains(w)),
                        )
                        .collect();
                    if let Err(e) = Cli::try_parse_from(&words) {
                        panic!("example `{line}` does not parse: {e}");
                    }
                    *seen += 1;
                }
            }
            for sub in cmd.get_subcommands_mut() {
                walk(sub, seen);
            }
        }
        use clap::Parser as _;
        let mut seen = 0;
        walk(&mut Cli::command(), &mut seen);
        assert!(seen >= 20, "only {seen} examples found");
    }
}
