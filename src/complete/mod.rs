//! The completion engine: adds queens to a valid composition until every row has one, or
//! proves that no completion exists, or says that its budget ran out.
//!
//! - Given queens that all lie on one closed-form solution (the explicit construction
//!   under a symmetry, a linear solution: `crate::closed_form`) are completed from it in
//!   one pass (`closed_form`); an empty board has no queen to tell, and is searched.
//!   When all but a few given queens lie on one (an edited construction), the rows those
//!   few disturb get cells by chains of column exchanges (`chains`), or else are rerouted
//!   by a bounded exact search.
//! - Few free rows (at most `EXACT_FIRST`): the exact search (`crate::exact`) of the
//!   input's residual decides the question outright: a short search on one thread, then
//!   if that has not decided it, on every core.
//! - Otherwise, randomized placement brings the board down to a small residual: phase 1
//!   pairs free rows with free columns in blocks (`pairing`) down to level 2, phase 2
//!   places queens on random free cells (`scatter`) down to level 3, and the exact search
//!   finishes with a node limit. A dead end rewinds to level 2 (journal) and tries again;
//!   after `ATTEMPTS_PER_BASE` dead ends the attempt restarts from the input.
//! - When pairing stalls far above level 2, or every end game on its base meets a dead
//!   end (compositions that did not come from a random solution: a construction with rows
//!   cleared at random, a random solution with a block cleared), chains of column
//!   exchanges (`chains`) give the open rows cells where that fits a budget of cell checks;
//!   if some stay open, from pairing's board again, the repair phase
//!   (`repair`) gives every free row of the input a column and swaps columns until no
//!   diagonal is shared, starting from pairing's queens.
//! - Whenever the input's residual is small enough to project (`RESIDUAL_MAX` rows), it
//!   is checked first for certificates of infeasibility (`exact::residual`), and between
//!   randomized restarts the exact search of the input residual gets a growing node budget,
//!   so that an infeasible input is eventually proved so rather than left unknown. Wider
//!   residuals (up to `exact::wide::MAX_ROWS`) get the wide exact search instead, which
//!   decides the tight ones (a block, a band of columns or diagonals cleared from a
//!   construction) by propagation.
//! - Budgets are counted in nodes and moves, never in time, so that a seed gives the same
//!   answer on any machine and thread count: the exact budgets double on each restart,
//!   the repair's patience grows 4x.

mod answer;
mod chains;
mod closed_form;
mod engine;
mod job;
mod levels;
pub(crate) mod pairing;
mod repair;
mod run;
mod scatter;
pub(crate) mod state;

pub use answer::{Answer, Options, Phase, Stats, StopReason, Stopped};
pub use job::{InputResidual, JobError, JobOutcome, KEPT_ROWS, run_job};
pub(crate) use levels::{RESIDUAL_MAX, level2, level3};
pub use run::{Board, complete_board, complete_rows};
pub(crate) use run::{Completion, Prepared, complete, prepare};

pub use crate::exact::relaxation::{
    PROBE_BESIDE_VAR, PROBE_DIAGONAL_VAR, PROBE_FROM_VAR, RELAXATION_VAR, probe_settings,
    relaxation_enabled,
};
pub use crate::exact::{Certificate, RefutedCell, RefutedPair};

#[cfg(test)]
mod tests;
