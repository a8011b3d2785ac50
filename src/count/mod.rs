//! Counting placements of n non-attacking queens, rooks or bishops (regular, super,
//! awesome), with preplaced pieces, distinct up to symmetry, and split into shards.
//!
//! Which engine runs depends on the piece: queens and rooks take one row and one column
//! each and go to the bitboard row engine (`rows`), searching half the first row when
//! nothing is preplaced (the mirror image of each placement is the other half); regular
//! rooks and regular bishops have closed counts (a factorial, and Burnside's lemma up to
//! symmetry, `rooks`; a Ferrers-board programme per colour, `bishops`, and up to symmetry by Burnside's lemma over a search of the squares'
//! orbits); super and awesome bishops, and regular ones up to symmetry with pieces placed,
//! go to the square engine (`squares`). Regular queens on an empty board, total and `--distinct` (by
//! Burnside's formula), join half boards (`halves`, n <= 23, large sets sieved first in
//! `sieve`, its SIMD kernel chosen in `kernel`; larger boards use start constellations,
//! `constellations`); a sharded `--distinct` takes Takaken's search (`takaken`). That count
//! is made of work items a caller can watch, stop and resume ([`resumable`], saved by
//! `count --checkpoint` as a [`checkpoint`]). Regular queens on a large board with few free
//! rows go to the exact engine over its residual (`crate::exact`), the one `complete` uses.
//! The results of the shards of a count are added up by `publish::merge` (a layer above). `count --algorithm
//! basic` is the plain bitmask backtracker ([`count_queens_basic`]), kept as the baseline
//! the engines are measured against; tests compare every engine with the slow obvious
//! counter in `oracle`.

mod basic;
pub mod batch;
mod bishops;
pub mod checkpoint;
mod constellations;
mod dispatch;
pub mod estimate;
#[cfg(feature = "gpu")]
pub mod gpu;
mod halves;
mod join;
pub(crate) mod kernel;
mod known;
pub mod plan;
mod problem;
#[cfg(test)]
mod reference;
pub mod resumable;
mod rooks;
pub(crate) mod row_search;
mod rules;
pub mod share;
mod sieve;
mod split;
mod squares;
mod symmetry;
mod takaken;
#[cfg(test)]
mod tests;

pub use basic::count_queens as count_queens_basic;

pub use dispatch::{count, count_until, first};
pub use kernel::{Kernel, KernelError};
pub use known::known_total;
pub use problem::{CountError, MAX_BISHOP_N, MAX_ROOK_N, Method, Problem, Shard, Tally};
pub use row_search::MAX_ROW_N;
pub use rules::{Kind, Piece, Rules};
pub use squares::MAX_SQUARES_N;
