//! The command line's errors, each reported once at the edge in one line, and the exit
//! codes they map to.
use nqueens::format::FormatError;

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
pub(super) const EXIT_CODES: &str = concat!(
    exit_codes!(),
    "

Environment:
  NQUEENS_COUNT_ENGINE=half-boards|constellations
       count: count regular queens on an empty board with this engine instead of the one
       chosen for n (half boards up to 23, constellations from 24), item by item as with
       --checkpoint; for tests, benchmarks and bug reports
  NQUEENS_KERNEL=portable|avx2|avx512
       force one SIMD instruction set (count's kernels, the exact search's scan) instead
       of the fastest this CPU runs (an error if the CPU cannot run it); answers are the
       same with each; for benchmarks and bug reports
  NQUEENS_RELAXATION=0|1
       complete, count --from: 0 turns off the refutation of a residual by its linear
       relaxation (weights on lines, the weighted_cover certificate), so that only the
       search decides; for benchmarks and bug reports
  NQUEENS_PROBE_FROM=ROWS, NQUEENS_PROBE_DIAGONAL=SQUARES, NQUEENS_PROBE_BESIDE=NODES
       complete: probe the cells (and pairs of cells) near the corners from ROWS free rows
       instead of 26 (28), on diagonals of at most SQUARES squares instead of 9 (11), with
       a search of one core of NODES nodes beside the pairs' probes instead of 2^26 (0:
       none); whole numbers; for benchmarks and tests
  NQUEENS_PROGRESS_AFTER_MS=MS
       show the progress display after MS milliseconds instead of 1000 (0: at once);
       the display shows only when standard error is a terminal
  TMPDIR
       where standard input is spooled and, without -o, complete's work file goes"
);

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
    /// The SIMD kernel forced through the environment cannot run.
    #[error("{0}")]
    Kernel(#[from] nqueens::count::KernelError),
    /// The refutation's switch in the environment has a value other than 0 or 1.
    #[error("{var}={value:?}: expected 0 (off) or 1 (on)")]
    Switch {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
    },
    /// A setting of the probes in the environment is not a whole number.
    #[error("{var}={value:?}: expected a whole number")]
    Setting {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
    },
    /// A count checkpoint cannot be used.
    #[error("{}: {source}", .path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        source: nqueens::count::checkpoint::CheckpointError,
    },
    /// A count's result failed its own check (a total other than the published one, or a
    /// GPU that disagreed with the CPU); nothing was written.
    #[error("{0}")]
    CountCheck(String),
    /// A count plan cannot be made or used.
    #[error("{}: {source}", .path.display())]
    Plan {
        /// The plan file (`-`: standard output or input).
        path: std::path::PathBuf,
        /// What is wrong with it.
        source: nqueens::count::plan::PlanError,
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
            Error::Job(nqueens::complete::JobError::SelfCheck(_)) | Error::CountCheck(_) => {
                exit::INTERNAL
            }
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

/// An error's message as one line for a terminal: every control character (a newline, an
/// escape, a vertical tab, from a file's name or its bytes) escaped as Rust writes it, so
/// that no message splits or sends a terminal a sequence.
pub fn one_line(e: &dyn std::fmt::Display) -> String {
    nqueens::format::escaped(&e.to_string())
}

#[cfg(test)]
mod one_line_tests {
    #[test]
    fn control_characters_are_escaped() {
        let shown = super::one_line(&"a\nb\x1b[31mc\x0bd\u{7f}e \u{2026}");
        assert_eq!(shown, "a\\nb\\u{1b}[31mc\\u{b}d\\u{7f}e \u{2026}");
    }
}
