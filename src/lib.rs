//! nqueens: n-queens compositions and solutions at every scale.
//!
//! The library reads and writes the project's file formats ([`format`](mod@format), with CNF export in
//! [`dimacs`]), checks compositions and solutions ([`verify`]), completes compositions
//! ([`complete`]), counts placements of queens, rooks and bishops ([`count`]), builds
//! solutions and compositions ([`generate`]), and makes and reduces Excluded Diagonals
//! instances ([`excluded`]). [`json`] holds the records the command line prints with
//! `--json`, from which the published JSON Schemas are made. [`cleanup`] and [`progress`]
//! are process plumbing (temporary files removed on a signal, how far a long run has got).
//!
//! Private to the crate: `board` (the line bitmaps every part shares), `exact` (the exact
//! search of a residual, the end game of `complete` and the engine of `count --from`),
//! `memory` (resident memory) and, in tests, `oracle` (the brute-force checks every test
//! compares against). The `nqueens` binary is a thin layer over this surface: its command
//! line (`src/cli/`) is private to the binary.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub(crate) mod board;
pub mod cleanup;
pub(crate) mod closed_form;
pub mod complete;
pub mod count;
pub mod dimacs;
pub(crate) mod exact;
pub mod excluded;
pub mod format;
pub mod generate;
pub mod json;
pub(crate) mod memory;
#[cfg(test)]
mod oracle;
pub mod progress;
pub mod publish;
pub(crate) mod rng;
pub mod stop;
pub mod verify;
