//! The `nqueens` command line, private to the binary: argument structures, a short `run`
//! per subcommand, and how answers are printed, over the library's public surface.
//!
//! `app` holds the subcommands and dispatch, `error` the errors and exit codes,
//! `signals` the signal handlers, `input` the shared input options, `stdout` a standard
//! output that fails loudly; one file per subcommand (`complete`, `verify`, `convert`,
//! `generate`, `count`, `info`, `docs`) with a short `run`.

#[macro_use]
mod macros;

pub mod alloc;
mod app;
pub mod channels;
mod complete;
mod convert;
mod count;
mod display;
mod docs;
mod error;
mod generate;
mod info;
mod input;
mod mat;
mod npy;
mod report;
mod signals;
mod size;
mod solve;
mod stdout;
#[cfg(test)]
mod tests;
mod trace;
mod verify;

pub use app::{Cli, parse, run};
pub use error::{Error, exit, one_line};
pub use input::{EncodingArg, InputArgs};
pub use stdout::guard_standard_output;
pub(crate) use stdout::stdout;

use app::requested_threads;
pub(crate) use display::Progress;
use error::EXIT_CODES;
use input::{mapped, open_input, refuse_binary_on_terminal};
use report::{peak_rss, plural, print_report};
use signals::interrupt_flag;
use size::{parse_size, parse_size_u32};
use solve::solve;
use stdout::{STDOUT_CLOSED, print_json};
use trace::{Recorder, write_csv, write_svg};
