//! Checking compositions and solutions at memory speed, out of core.
//!
//! One parallel pass over the segments of a file marks every queen's column and diagonals
//! in bitmaps (about 0.63 bytes per row; one set per thread, joined at the end, unless
//! that exceeds 1.5 GiB: see `Marking`), counts queens and conflicts, collects
//! out-of-range values and `--base` violations, and hashes the payload. Only when that
//! pass finds a conflict do two more passes name the first conflicts exactly (see
//! `first_conflicts`).
//!
//! `report.rs` holds what a check finds and what it requires, `pass.rs` the passes
//! themselves, `batch.rs` the order in which many files are checked.

mod batch;
mod pass;
mod report;
#[cfg(test)]
mod tests;

pub use batch::{SMALL_FILE, verify_files};
pub(crate) use pass::{KeptQueens, verify_mark_and_copy};
pub use pass::{verify, verify_rows};
pub use report::{BaseViolation, Conflict, OutOfRange, REPORTED, Report, Requirements, Verdict};
