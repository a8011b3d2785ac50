//! The `nqueens` command line: argument structures and a short `run` per subcommand.
//! No algorithms live here.

mod generate;
mod info;
mod verify;

use crate::format::FormatError;
use clap::{Parser, Subcommand};

/// Exit codes of the binary, shared by every subcommand.
pub mod exit {
    /// Success: every file valid, the job done.
    pub const OK: i32 = 0;
    /// Some file is not a valid composition or solution (or misses what was required).
    pub const INVALID: i32 = 1;
    /// Unreadable or corrupt input, unwritable output, or bad arguments.
    pub const ERROR: i32 = 2;
}

const EXIT_CODES: &str = "Exit codes:
  0  success (every file valid)
  1  some file is not a valid composition or solution, or lacks what was required
  2  unreadable or corrupt input, unwritable output, or bad arguments";

/// n-queens compositions and solutions at every scale.
#[derive(Parser, Debug)]
#[command(name = "nqueens", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check compositions and solutions, many files at once.
    Verify(verify::Args),
    /// Show a file's format, header fields, sizes and checksum status.
    Info(info::Args),
    /// Build solutions and compositions.
    #[command(subcommand)]
    Generate(generate::Command),
}

/// A failure that ends a command: reported once, as one line, by `main`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Generation failed.
    #[error(transparent)]
    Generate(#[from] crate::generate::GenerateError),
    /// Arguments that cannot work together.
    #[error("{0}")]
    Usage(String),
}

impl Error {
    /// The exit code for this failure.
    pub fn exit_code(&self) -> i32 {
        exit::ERROR
    }
}

/// Runs a parsed command line; returns the exit code for a command that ran to its end.
pub fn run(cli: Cli) -> Result<i32, Error> {
    match cli.command {
        Command::Verify(a) => verify::run(a),
        Command::Info(a) => info::run(a),
        Command::Generate(c) => generate::run(c),
    }
}

/// Prints one JSON value on its own line.
fn print_json(value: &serde_json::Value) {
    println!("{value}");
}
