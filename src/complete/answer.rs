//! What a run is given and what it gives back: options, the answer (with its
//! certificate or why the run stopped) and the statistics.

use super::Certificate;
use crate::exact;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// How to run.
#[derive(Clone)]
pub struct Options {
    /// Seed of every random choice.
    pub seed: u64,
    /// Wall-clock budget.
    pub time_limit: Option<Duration>,
    /// When the budget started counting (for the command line, when the command started,
    /// so that reading the input counts too).
    pub since: Instant,
    /// Set from outside (Ctrl-C) to stop as soon as possible.
    pub interrupt: Arc<AtomicBool>,
    /// Whether a composition whose queens lie on a closed-form solution is completed from
    /// it (else the search phases complete it, as any other).
    pub closed_forms: bool,
}

impl Options {
    /// Options with this seed: no time limit, counted from now, no interrupt flag set,
    /// closed forms used.
    ///
    /// ```
    /// let opts = nqueens::complete::Options::new(42);
    /// assert_eq!((opts.seed, opts.time_limit), (42, None));
    /// ```
    pub fn new(seed: u64) -> Options {
        Options {
            seed,
            time_limit: None,
            since: Instant::now(),
            interrupt: Arc::default(),
            closed_forms: true,
        }
    }

    /// The same options with a wall-clock budget, counted from [`Options::since`].
    pub fn with_time_limit(self, limit: Duration) -> Options {
        Options {
            time_limit: Some(limit),
            ..self
        }
    }
}

/// Seed 0 (a fixed seed: the same answer on every run), as [`Options::new`].
impl Default for Options {
    fn default() -> Options {
        Options::new(0)
    }
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Every row has a queen.
    Solved,
    /// No completion exists, with the proof.
    Infeasible(Certificate),
    /// The run stopped first: why, and where it stood.
    Unknown(Stopped),
}

/// Why a run stopped before it had an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The time limit (this long) ran out.
    TimeLimit(Duration),
    /// Asked to stop from outside ([`Options::interrupt`]: Ctrl-C, SIGTERM).
    Interrupted,
}

/// A run that stopped without an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// Why it stopped.
    pub reason: StopReason,
    /// Where it stood, for people ("after 3 restarts").
    pub during: String,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.reason {
            StopReason::Interrupted => write!(f, "interrupted {}", self.during),
            // The limit as given (0.05 s read "0.1 s" when rounded to a tenth).
            StopReason::TimeLimit(limit) => write!(
                f,
                "time limit of {} s ran out {}",
                limit.as_secs_f64(),
                self.during
            ),
        }
    }
}

/// Time and queens of one phase.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Phase {
    /// Seconds spent.
    pub seconds: f64,
    /// Queens placed that were kept in the answer or undone by restarts.
    pub placed: u64,
    /// Times run.
    pub runs: u64,
}

/// What the engine did.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Stats {
    /// Board size.
    pub n: u64,
    /// Free rows of the input.
    pub free_rows: u64,
    /// Level 2 (free rows after phase 1) and level 3 (after phase 2).
    pub levels: (u64, u64),
    /// Reading, validating and marking the input.
    pub input: Phase,
    /// Certificates looked for on the input residual.
    pub certificates: Phase,
    /// Phase 1: block pairing.
    pub pairing: Phase,
    /// Each pairing round of the last run: free rows before it, queens it placed.
    pub pairing_rounds: Vec<super::pairing::Round>,
    /// Phase 2: random free cells.
    pub scatter: Phase,
    /// Phase 3: exact search of residuals.
    pub endgame: Phase,
    /// Min-conflicts repair of a full assignment of the input's free rows, when the end
    /// games fail; `placed` counts the leftover rows it gave a column.
    pub repair: Phase,
    /// Chains of column exchanges for the rows the end games left (`chains`), before the
    /// repair phase; `placed` counts the rows they gave a cell.
    pub chains: Phase,
    /// Free rows the chains moved, the rows given a cell included.
    pub chain_rows: u64,
    /// Swaps the repair phase tried.
    pub repair_moves: u64,
    /// Exact search of the input residual (proofs).
    pub exact: Phase,
    /// The check whether the given queens all lie on a closed-form solution (the explicit
    /// construction under a symmetry, a linear solution); `placed` counts the rows filled
    /// from it.
    pub closed_form: Phase,
    /// The closed-form solution the answer was completed from, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_form_solution: Option<String>,
    /// A closed-form solution all but a few given queens lie on, that was tried and did not
    /// complete the board (the rows it left had no completion within the exact search's
    /// budget): the board was then searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_form_tried: Option<String>,
    /// Given queens off the closed form used or tried.
    pub closed_form_exceptions: u64,
    /// Free rows whose queen in the closed form used or tried a given queen off it attacks.
    pub closed_form_attacked: u64,
    /// Free rows (the attacked ones and those around them) the last exact search of the
    /// closed-form phase placed or tried to place.
    pub closed_form_rerouted: u64,
    /// Attacked rows that chains of column exchanges gave a cell, before any search.
    pub closed_form_chained: u64,
    /// Free rows those chains moved, the chained ones included.
    pub closed_form_chain_rows: u64,
    /// Search nodes in all.
    pub search_nodes: u64,
    /// Dead ends in phase 2 (a row without free cell), each a return to level 2.
    pub dead_ends_scatter: u64,
    /// End games that failed or hit their node limit, each a return to level 2.
    pub dead_ends_endgame: u64,
    /// Queens placed by branching in exact searches (the rest of `search_nodes` were forced
    /// by propagation).
    pub search_decisions: u64,
    /// Restarts from the input.
    pub restarts: u64,
    /// Exact searches restarted in other orders (other tie-breaks, under growing node
    /// budgets): of the input's residual, or of the closed-form phase's reroutes.
    pub exact_restarts: u64,
    /// Free cells of the input's residual that the linear relaxation refutes (in no
    /// completion), never placed by the search of every core (skipped; from 28 free rows,
    /// taken out of its rows).
    pub refuted_cells: u64,
    /// Pairs of its free cells that the linear relaxation refutes together (in no
    /// completion together), taken as attacking each other by the search of every core.
    pub refuted_pairs: u64,
    /// Largest anonymous resident memory seen (sampled after reading the input, after every
    /// pairing round and at the end): the engine's own memory, without mapped file pages.
    pub peak_anonymous_bytes: Option<u64>,
}

impl Stats {
    pub(super) fn add_search(&mut self, counts: exact::Counts) {
        self.search_nodes += counts.nodes;
        self.search_decisions += counts.decisions;
    }

    pub(super) fn sample_memory(&mut self, sample: Option<u64>) {
        if let Some(b) = sample {
            self.peak_anonymous_bytes = Some(self.peak_anonymous_bytes.unwrap_or(0).max(b));
        }
    }
}
