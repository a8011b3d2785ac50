//! nqueens: n-queens compositions and solutions at every scale.
//!
//! The library reads and writes the project's file formats ([`format`], with CNF export in
//! [`dimacs`]), checks compositions and solutions ([`verify`]), completes compositions
//! ([`complete`], whose exact end game is [`exact`]), counts placements of queens, rooks and
//! bishops ([`count`]), builds solutions and compositions ([`generate`]), and makes and
//! reduces Excluded Diagonals instances ([`excluded`]). [`json`] holds the records the
//! command line prints with `--json`, from which the published JSON Schemas are made.
//! [`board`] holds the line bitmaps they share; [`cleanup`], [`memory`] and [`progress`]
//! are process plumbing (temporary files removed on a signal, resident memory, how far a
//! long run has got). The `nqueens` binary is a thin layer over it: its command line
//! (`src/cli/`) is private to the binary and uses only this public surface.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub(crate) mod board;
pub mod cleanup;
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
pub mod verify;
