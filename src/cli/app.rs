//! The command line itself: the subcommands, parsing, and running one.

use super::error::{EXIT_CODES, Error, exit};
use super::signals::{install_bus_error_handler, install_signal_handler};
use super::stdout::stdout;
use super::{channels, complete, convert, count, docs, generate, info, verify};
/// n-queens compositions and solutions at every scale.
use clap::{Parser, Subcommand};
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

/// The command line of this process, parsed, with the files it names (clap's own error
/// and exit for a command line that does not parse, or `--help`).
pub fn parse() -> (Cli, channels::Files) {
    use clap::{CommandFactory, FromArgMatches};
    // First of all: a signal in the process's first milliseconds then also exits with 130
    // rather than the signal's own status (143 for SIGTERM).
    install_signal_handler();
    install_bus_error_handler();
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
            // Standard error redirected into a file the command line names (`2>> in.txt`):
            // clap's message would be written into what may be an input. Which arguments
            // are inputs is not known from a command line that does not parse, so every
            // argument that names a file counts.
            let named: Vec<std::path::PathBuf> = std::env::args_os()
                .skip(1)
                .flat_map(|a| {
                    let value = a
                        .to_str()
                        .and_then(|s| s.split_once('=').map(|(_, v)| v.into()));
                    std::iter::once(a.into()).chain(value)
                })
                .collect();
            let named: Vec<&std::path::Path> = named.iter().map(|p| p.as_path()).collect();
            if nqueens::format::redirected_into(2, &named).is_some() {
                std::process::exit(exit::ERROR);
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                e.exit()
            }
            // One line, as every other error: clap's first paragraph (what is wrong, the
            // arguments it names), without its usage and tips.
            let rendered = e.render().to_string();
            let what = rendered
                .split("\n\n")
                .next()
                .unwrap_or_default()
                .lines()
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ");
            let what = what.strip_prefix("error: ").unwrap_or(&what);
            errln!("nqueens: {what} (--help for usage)");
            std::process::exit(exit::ERROR)
        }
    };
    let files = channels::Files::of(&Cli::command(), &matches);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    (cli, files)
}

/// Runs a parsed command line; returns the exit code for a command that ran to its end.
pub fn run(cli: Cli, files: channels::Files) -> Result<i32, Error> {
    channels::check(&files)?;
    let threads = checked_threads(cli.threads)?;
    let _ = REQUESTED_THREADS.set(threads);
    // The pool is started here, before any input is read, and not by rayon on first use:
    // started late, under a memory limit that the input's buffers have nearly used up, a
    // thread's stack cannot be mapped and rayon panics (exit 101) instead of the reader
    // saying the memory ran out.
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        // Idle pool threads spin before they sleep: thousands of them on two cores took
        // 12 s to start and stop around a 0.01 s count. Results never depend on the
        // number of threads, so more than the cores can run are simply not started.
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        pool = pool.num_threads(t.min(64.max(2 * cores)));
    }
    pool.build_global().map_err(|e| Error::System {
        what: match threads {
            Some(t) => format!("--threads {t}: cannot start the threads"),
            None => "cannot start the threads".into(),
        },
        source: std::io::Error::other(e),
    })?;
    // A kernel forced through the environment that cannot run is refused before any work,
    // whichever command would have used it (count's kernels, the exact search's scan).
    nqueens::count::Kernel::selected()?;
    nqueens::complete::relaxation_enabled().map_err(|value| Error::Switch {
        var: nqueens::complete::RELAXATION_VAR,
        value,
    })?;
    nqueens::complete::probe_settings().map_err(|(var, value)| Error::Setting { var, value })?;
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

/// `--threads` as given (0 or absent: `None`), whatever this machine starts.
static REQUESTED_THREADS: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();

/// The threads the command line asked for (not those started, which are capped by this
/// machine's cores): `count --plan` plans for the cluster's.
pub(super) fn requested_threads() -> Option<usize> {
    REQUESTED_THREADS.get().copied().flatten()
}

/// The most worker threads a command starts: far above any machine's cores, far below
/// what exhausts the system's thread limit.
pub const MAX_THREADS: usize = 4096;

/// `--threads`, checked against [`MAX_THREADS`].
pub(super) fn checked_threads(threads: Option<usize>) -> Result<Option<usize>, Error> {
    match threads {
        Some(t) if t > MAX_THREADS => Err(Error::Usage(format!(
            "--threads {t}: at most {MAX_THREADS} threads"
        ))),
        // As for zstd -T0: zero means all cores.
        Some(0) => Ok(None),
        t => Ok(t),
    }
}
