//! nqueens: n-queens compositions and solutions at every scale.
//!
//! The library reads and writes the project's file formats ([`format`]), checks
//! compositions and solutions ([`verify`]) and builds solutions and compositions
//! ([`generate`]). The `nqueens` binary is a thin layer over it ([`cli`]).

pub mod board;
pub mod cleanup;
pub mod cli;
pub mod complete;
pub mod count;
pub mod dimacs;
pub mod exact;
pub mod excluded;
pub mod format;
pub mod generate;
pub mod memory;
pub mod verify;
