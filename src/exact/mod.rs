//! The exact engine for residuals: free rows x free columns of a board, with diagonal
//! conflicts between free cells. One engine serves `complete` (the first solution, or a
//! proof that none exists) and `count --from` (every solution).
//!
//! - [`residual`] projects a board's free part into a [`Residual`] and reads certificates
//!   of infeasibility off it without search (empty row or column, Hall's condition).
//! - [`relaxation`] refutes a residual by its linear relaxation (weights on lines found
//!   by a simplex, checked in integers) before a long search.
//! - [`proof`] writes a DRAT proof that a residual has no completion, from a search of its
//!   own whose every step is unit propagation on the residual's CNF.
//! - [`search`](self::search) is the depth-first search with propagation, over word sets of
//!   the residual's width ([`bits`]): `u32` up to 32 free rows (unless the kernel is
//!   AVX-512, whose scan takes `u64`s), `u64` up to 64, `[u64; K]` up to [`MAX_FREE`].
//! - [`diagonals`] lists the free cells on each diagonal, from which the search finds a
//!   queen's attacks where its table of them would not fit or would not pay.
//! - [`level_scan`] scans a node's level (counts of rows and columns, the row to branch
//!   on) in a few AVX-512 or AVX2 instructions for residuals of up to 32 rows, where that
//!   is the kernel chosen ([`crate::simd`]); otherwise the search scans row by row.
//! - [`wide`] searches residuals too wide for a cell matrix (thousands of free rows), with
//!   counts of candidates per row and line instead of bitsets.
//! - [`restarts`] runs short searches in other orders under growing budgets, for
//!   satisfiable residuals on which one order's search is heavy-tailed.
//! - [`run`](self::run) runs it: sequentially under a node budget (the randomized end game), or on
//!   every core through rayon, where a search that spends its slice of nodes hands its
//!   unexplored subtrees back as work items. Items are keyed by their place in the
//!   sequential search's order, and the answer is the first solution in that order, so it
//!   does not depend on the thread count; an exhausted search visits exactly the nodes of
//!   the sequential one.
mod bits;
mod certificate;
mod diagonals;
// Off x86-64 nothing of it runs.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod level_scan;
pub(crate) mod proof;
pub(crate) mod relaxation;
pub(crate) mod residual;
mod restarts;
mod run;
mod search;
#[cfg(test)]
mod tests;
pub(crate) mod wide;

pub use certificate::{Certificate, RefutedCell, RefutedPair};
pub(crate) use residual::{Residual, ones};
pub(crate) use restarts::{Restarts, short_budget};
pub(crate) use run::{Counts, Limits, MAX_FREE, Outcome, count, first, first_sequential};
