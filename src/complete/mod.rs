//! The completion engine: adds queens to a valid composition until every row has one, or
//! proves that no completion exists, or says that its budget ran out.
//!
//! - Few free rows (at most `EXACT_FIRST`): the exact search (`crate::exact`) of the
//!   input's residual, on every core, decides the question outright.
//! - Otherwise, randomized placement brings the board down to a small residual: phase 1
//!   pairs free rows with free columns in blocks (`pairing`) down to level 2, phase 2
//!   places queens on random free cells (`scatter`) down to level 3, and the exact search
//!   finishes with a node limit. A dead end rewinds to level 2 (journal) and tries again;
//!   after `ATTEMPTS_PER_BASE` dead ends the attempt restarts from the input.
//! - When pairing stalls far above level 2, or every end game on its base meets a dead
//!   end (compositions that did not come from a random solution: a construction with rows
//!   cleared at random, a random solution with a block cleared), the repair phase
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

mod job;
pub(crate) mod pairing;
mod repair;
mod scatter;
pub(crate) mod state;

pub use job::{InputResidual, JobError, JobOutcome, KEPT_ROWS, run_job};

pub use crate::exact::Certificate;
use crate::exact::{self, Outcome, Residual};
use crate::format::nqb::row_store::RowStore;
use crate::format::{FormatError, Input};
use crate::progress::{Stage, meter};
use crate::rng::Rng;
use crate::stop::Stop;
use crate::verify::{KeptQueens, Requirements, verify_mark_and_copy};
use serde::Serialize;
use state::BoardState;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Inputs with at most this many free rows (or the end game's size, if larger) are decided
/// by exact search alone; larger ones go the randomized way first, which is faster on them
/// (BENCHMARKS.md, "Why the completion engine's constants"), proofs still coming from the
/// exact searches between restarts.
pub(crate) const EXACT_FIRST: u64 = 64;
/// Largest input residual projected for certificates and exact search.
pub(crate) const RESIDUAL_MAX: u64 = 4096;
/// Dead ends tolerated from level 2 before restarting from the input.
pub(crate) const ATTEMPTS_PER_BASE: u64 = 12;
/// Free rows up to which every placement is journaled from the input on, so that a
/// restart from the input is a cheap rewind instead of a reread of the input.
const JOURNAL_FROM_INPUT: u64 = 1 << 22;

/// The free rows left after phase 2 (the end game's residual size) for an n-board: the
/// larger of 7 ln n and the cube root of n.
///
/// Small end games are cheap and so are the extra dead ends they cause, but on the empty
/// board 7 ln n is too deep from about n = 1e8, hence the cube root (BENCHMARKS.md, "Why
/// the completion engine's constants").
pub(crate) fn level3(n: u64) -> u64 {
    let x = n.max(2) as f64;
    ((7.0 * x.ln()).max(x.cbrt()) as u64).clamp(32, 1024)
}

/// The free rows at which phase 1 stops (it usually stalls earlier, see [`PAIRING_STALL`]).
pub(crate) fn level2(n: u64) -> u64 {
    4 * level3(n)
}

/// Input free rows up to which the repair phase may run (it keeps a list of them, 4 bytes
/// each, and a column for each): above it the board is nearly empty, and pairing does not
/// stall there.
const REPAIR_MAX_ROWS: u64 = 1 << 26;
/// Input free rows up to which the wide exact search runs on every restart (above, on
/// restarts 1, 2, 4, 8, ...).
const WIDE_EVERY_RESTART: u64 = 1 << 14;

/// Pairing that leaves more than this many times level 2 free rows gets only
/// `STALLED_ATTEMPTS` end games before the repair phase (random solutions' compositions
/// pair down to near level 2, and their end games succeed from further up too).
const PAIRING_SHORT: u64 = 16;
const STALLED_ATTEMPTS: u64 = 2;
/// The repair phase's first move budget, per input free row and in all (it doubles on
/// every restart).
const REPAIR_MOVES_PER_ROW: u64 = 64;
const REPAIR_MOVES_MIN: u64 = 1 << 20;

/// Phase 1 ends when a round places fewer than 1/PAIRING_STALL of the free rows: deeper
/// pairing leaves rows without free cells far more often (BENCHMARKS.md, "Why the
/// completion engine's constants").
pub(crate) const PAIRING_STALL: u64 = 8;

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
            StopReason::TimeLimit(limit) => write!(
                f,
                "time limit of {:.1} s ran out {}",
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
    pub pairing_rounds: Vec<pairing::Round>,
    /// Phase 2: random free cells.
    pub scatter: Phase,
    /// Phase 3: exact search of residuals.
    pub endgame: Phase,
    /// Min-conflicts repair of a full assignment of the input's free rows, when the end
    /// games fail; `placed` counts the leftover rows it gave a column.
    pub repair: Phase,
    /// Swaps the repair phase tried.
    pub repair_moves: u64,
    /// Exact search of the input residual (proofs).
    pub exact: Phase,
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
    /// Largest anonymous resident memory seen (sampled after reading the input, after every
    /// pairing round and at the end): the engine's own memory, without mapped file pages.
    pub peak_anonymous_bytes: Option<u64>,
}

impl Stats {
    fn add_search(&mut self, counts: exact::Counts) {
        self.search_nodes += counts.nodes;
        self.search_decisions += counts.decisions;
    }

    fn sample_memory(&mut self, sample: Option<u64>) {
        if let Some(b) = sample {
            self.peak_anonymous_bytes = Some(self.peak_anonymous_bytes.unwrap_or(0).max(b));
        }
    }
}

/// Why `stop` ended the run, with `during`, where it stood.
fn stopped(stop: &Stop, limit: Option<Duration>, during: &str) -> Stopped {
    let reason = if stop.raised() {
        StopReason::Interrupted
    } else {
        StopReason::TimeLimit(limit.unwrap_or_default())
    };
    Stopped {
        reason,
        during: during.to_string(),
    }
}

/// Runs `f` as one run of `phase`, adding its time.
fn timed<T>(stage: Stage, phase: &mut Phase, f: impl FnOnce() -> T) -> T {
    phase.runs += 1;
    timed_part(stage, phase, f)
}

/// Runs `f` as a further part of the current run of `phase`: its time is added, the run
/// is not counted again.
fn timed_part<T>(stage: Stage, phase: &mut Phase, f: impl FnOnce() -> T) -> T {
    meter().set_stage(stage);
    let t = Instant::now();
    let r = f();
    phase.seconds += t.elapsed().as_secs_f64();
    r
}

/// A finished run: the answer, the board (complete when solved) and the statistics.
pub(crate) struct Completion {
    /// The answer.
    pub answer: Answer,
    /// The board as left by the engine.
    pub state: BoardState,
    /// What happened.
    pub stats: Stats,
}

/// The result of opening an input for completion.
// Made once per run and matched at once: boxing the large variant would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Prepared {
    /// A valid composition, loaded into the row store, ready for [`complete`], with its
    /// queens as a solution must keep them.
    Ready(BoardState, Stats, KeptQueens),
    /// Not a valid composition: the verifier's report.
    Invalid(crate::verify::Report),
}

/// Validates `input`, copies it into `rows` and marks its lines.
pub(crate) fn prepare(input: &Input, mut rows: RowStore) -> Result<Prepared, FormatError> {
    let mut stats = Stats {
        n: input.n(),
        levels: (level2(input.n()), level3(input.n())),
        ..Stats::default()
    };
    meter().set_stage(Stage::Input);
    let t = Instant::now();
    let (report, marks) = verify_mark_and_copy(input, Requirements::default(), rows.rows_mut())?;
    let Some(marks) = marks else {
        return Ok(Prepared::Invalid(report));
    };
    stats.input.seconds = t.elapsed().as_secs_f64();
    stats.input.runs = 1;
    stats.sample_memory(crate::memory::anonymous_rss());
    stats.free_rows = input.n() - report.k;
    meter().set_free_rows(stats.free_rows);
    let kept = KeptQueens {
        rows: marks.rows.clone(),
        digest: marks.digest,
    };
    let state = BoardState::new(rows, marks.rows, marks.lines, report.k);
    Ok(Prepared::Ready(state, stats, kept))
}

/// Completes the board in `state`, whose queens come from `input` (reread on a restart).
pub(crate) fn complete(
    input: &Input,
    mut state: BoardState,
    mut stats: Stats,
    opts: &Options,
) -> Result<Completion, FormatError> {
    let stop = Stop::new(
        opts.time_limit.map(|t| opts.since + t),
        Some(opts.interrupt.clone()),
    );
    let answer = engine(input, &mut state, &mut stats, opts, &stop)?;
    meter().set_free_rows(state.free());
    stats.sample_memory(crate::memory::anonymous_rss());
    Ok(Completion {
        answer,
        state,
        stats,
    })
}

fn place_all(state: &mut BoardState, cells: &[(u64, u64)]) {
    for &(i, j) in cells {
        state.place(i, j);
    }
}

/// The engine's loop: levels, restarts and the stages, until an answer or the stop.
fn engine(
    input: &Input,
    state: &mut BoardState,
    stats: &mut Stats,
    opts: &Options,
    stop: &Stop,
) -> Result<Answer, FormatError> {
    let m0 = state.free();
    if m0 == 0 {
        return Ok(Answer::Solved);
    }
    let unknown = |what: String| Answer::Unknown(stopped(stop, opts.time_limit, &what));
    let (l2, l3) = stats.levels;
    // Few free rows: the exact search of the input decides.
    if m0 <= EXACT_FIRST.max(l3) {
        let res = match project(state, stats) {
            Ok(res) => res,
            Err(cert) => return Ok(Answer::Infeasible(cert)),
        };
        let (outcome, counts) = timed(Stage::Exact, &mut stats.exact, || {
            exact::first(&res, opts.seed, stop)
        });
        stats.add_search(counts);
        return Ok(match settle(state, res.extent(), stats, outcome, counts) {
            Some(answer) => answer,
            None => unknown(format!(
                "during the exact search of the {m0} free rows ({} nodes)",
                stats.search_nodes
            )),
        });
    }
    // Projected (with its certificates) only after a first restart: random compositions
    // are completed before that, and projecting costs time proportional to its cells.
    let mut input_residual: Option<Residual> = None;
    let input_mark = (m0 <= JOURNAL_FROM_INPUT).then(|| state.mark());
    let mut exact_budget: u64 = 1 << 14;
    let mut wide_budget: u64 = 4 * m0;
    // The input's free rows, for the repair phase: read off the journal when it reaches
    // back to the input, else listed now.
    let mut free_rows: Option<Vec<u32>> =
        (input_mark.is_none() && m0 <= REPAIR_MAX_ROWS).then(|| free_rows_since(state, None));
    for restart in 0u64.. {
        if restart > 0 {
            stats.restarts += 1;
            meter().add_restart();
            match input_mark {
                Some(mark) => state.rewind_to(mark),
                None => reload(input, state)?,
            }
            debug_assert!(
                state.lines_match_rows(),
                "bitmaps out of step after a restart"
            );
            // Tight residuals (blocks and bands cleared from constructions): the wide exact
            // search of the input residual gets a turn, with a budget that doubles. Its
            // setup costs O(m^2) (seconds at 30,000 rows), so wide residuals get it on
            // restarts 1, 2, 4, 8, ... only, in case repair just needed another try.
            let wide_turn = m0 <= WIDE_EVERY_RESTART || restart.is_power_of_two();
            if m0 > exact::MAX_FREE as u64 && m0 <= exact::wide::MAX_ROWS as u64 && wide_turn {
                if let Some(answer) = wide(state, stats, opts, wide_budget, stop) {
                    return Ok(answer);
                }
                wide_budget = wide_budget.saturating_mul(2);
            }
            // Give the exact search of the input a turn, with a budget that doubles.
            if m0 <= RESIDUAL_MAX && input_mark.is_some() {
                if input_residual.is_none() {
                    match project(state, stats) {
                        Ok(res) => input_residual = Some(res),
                        Err(cert) => return Ok(Answer::Infeasible(cert)),
                    }
                }
                let res = input_residual.as_ref().expect("projected above");
                if let Some(answer) = exact(state, res, stats, opts, exact_budget, stop) {
                    return Ok(answer);
                }
                exact_budget = exact_budget.saturating_mul(2);
            }
        }
        // Where a stopped run stood: the stage it was in, and what was still open.
        let stood = |restart: u64, free: u64| {
            format!(
                "during {}, after {restart} restarts, {free} of the input's {m0} free rows \
                 still open",
                meter().stage().name()
            )
        };
        if stop.now() {
            return Ok(unknown(stood(restart, state.free())));
        }
        let before = state.free();
        let rounds = timed(Stage::Pairing, &mut stats.pairing, || {
            pairing::pair_rounds(state, opts.seed, restart, l2, PAIRING_STALL, stop)
        });
        stats.pairing.placed += before - state.free();
        for r in &rounds {
            stats.sample_memory(r.anonymous_bytes);
        }
        stats.pairing_rounds = rounds;
        if stop.now() {
            return Ok(unknown(stood(restart, state.free())));
        }
        // Pairing that stalls far above level 2 may have left rows with few free cells
        // (compositions of constructions): scatter then meets a dead row on every try, so
        // such a base gets two end games, not twelve, before the repair phase.
        let stalled = m0 <= REPAIR_MAX_ROWS && state.free() > PAIRING_SHORT * l2;
        let attempts = if stalled {
            STALLED_ATTEMPTS
        } else {
            ATTEMPTS_PER_BASE
        };
        let played = end_games(state, stats, opts.seed, restart, (l3, attempts), stop);
        match played {
            EndGames::Solved => return Ok(Answer::Solved),
            EndGames::Stopped(attempt) => {
                let at = stood(restart, state.free());
                return Ok(unknown(format!("{at} ({attempt} end games on this base)")));
            }
            EndGames::Failed => {}
        }
        // The end games stall: repair a full assignment instead, from pairing's board.
        if m0 <= REPAIR_MAX_ROWS {
            let rows = free_rows.get_or_insert_with(|| free_rows_since(state, input_mark));
            let budget = (REPAIR_MOVES_PER_ROW * m0).max(REPAIR_MOVES_MIN) << restart.min(20);
            match repair_phase(state, rows, stats, opts.seed, restart, budget, stop) {
                Ok(()) => return Ok(Answer::Solved),
                Err(failed) if failed.stopped => {
                    return Ok(unknown(format!(
                        "during repair, after {restart} restarts: {} diagonal conflicts left \
                         (fewest {}) among the input's {m0} free rows",
                        failed.conflicts, failed.best
                    )));
                }
                Err(_) => {}
            }
        }
    }
    unreachable!("the restart loop only ends by returning")
}

/// The free rows of `state`, with the rows placed since `mark` (when it is given: the
/// input's free rows, if `mark` was taken on the input and `state` was reached from it by
/// placements only).
fn free_rows_since(state: &mut BoardState, mark: Option<usize>) -> Vec<u32> {
    state.write_pending();
    let mut rows = mark.map_or_else(Vec::new, |m| state.placed_since(m));
    state.for_each_free_row(|i| {
        rows.push(i as u32);
        true
    });
    rows.sort_unstable();
    rows
}

/// Runs the repair phase on `state` (pairing's board), timed and counted.
fn repair_phase(
    state: &mut BoardState,
    rows: &[u32],
    stats: &mut Stats,
    seed: u64,
    restart: u64,
    budget: u64,
    stop: &Stop,
) -> Result<(), repair::Unrepaired> {
    let leftover = state.free();
    let report = |c: u64| meter().set_conflicts(c);
    let outcome = timed(Stage::Repair, &mut stats.repair, || {
        let effort = repair::Effort {
            max_moves: budget,
            stall: repair::STALL << (2 * restart).min(20),
            // Listing the cells costs O(m^2): at once for small residuals, else only once
            // random partners have failed.
            guided: restart > 0 || rows.len() <= exact::MAX_FREE,
        };
        let rng = Rng::seeded(seed, &[5, restart]);
        repair::repair(state, rows, rng, effort, stop, &report)
    });
    meter().set_conflicts(0);
    match outcome {
        Ok(done) => {
            stats.repair.placed += leftover;
            stats.repair_moves += done.moves;
            Ok(())
        }
        Err(failed) => {
            stats.repair_moves += failed.moves;
            Err(failed)
        }
    }
}

/// The residual of `state` (timed as certificates), or the certificate that it has no
/// solution.
fn project(state: &BoardState, stats: &mut Stats) -> Result<Residual, Certificate> {
    let res = timed(Stage::Certificates, &mut stats.certificates, || {
        state.residual()
    });
    match timed_part(Stage::Certificates, &mut stats.certificates, || {
        res.certificate()
    }) {
        Some(cert) => Err(cert),
        None => Ok(res),
    }
}

/// How the end games on one level-2 base ended.
enum EndGames {
    /// One completed the board.
    Solved,
    /// The run was asked to stop before this attempt.
    Stopped(u64),
    /// Every attempt met a dead end: restart.
    Failed,
}

/// Up to `attempts` end games on the board as pairing left it: scatter down to
/// `l3` free rows, then a bounded exact search of the residual; each failure rewinds to
/// the base.
fn end_games(
    state: &mut BoardState,
    stats: &mut Stats,
    seed: u64,
    restart: u64,
    (l3, attempts): (u64, u64),
    stop: &Stop,
) -> EndGames {
    let level2_mark = state.mark();
    for attempt in 0..attempts {
        if stop.now() {
            return EndGames::Stopped(attempt);
        }
        let mut rng = Rng::seeded(seed, &[3, restart, attempt]);
        let placed = timed(Stage::Scatter, &mut stats.scatter, || {
            scatter::scatter(state, l3, &mut rng)
        });
        match placed {
            Ok(p) => stats.scatter.placed += p,
            Err(dead) => {
                stats.dead_ends_scatter += 1;
                meter().add_dead_end();
                state.rewind_to(level2_mark);
                if dead.placed == 0 {
                    // The row was dead at level 2 already: only a restart can help.
                    return EndGames::Failed;
                }
                continue;
            }
        }
        meter().set_free_rows(state.free());
        let res = timed(Stage::Endgame, &mut stats.endgame, || state.residual());
        if res.size() <= exact::MAX_FREE {
            let limits = exact::Limits {
                max_nodes: 2000 + 20 * res.size() as u64,
                stop,
            };
            let seed = rng.next_u64();
            let (outcome, counts) = timed_part(Stage::Endgame, &mut stats.endgame, || {
                exact::first_sequential(&res, seed, limits)
            });
            stats.add_search(counts);
            if let Outcome::Solved(cells) = outcome {
                stats.endgame.placed += cells.len() as u64;
                place_all(state, &cells);
                return EndGames::Solved;
            }
        }
        stats.dead_ends_endgame += 1;
        meter().add_dead_end();
        state.rewind_to(level2_mark);
    }
    EndGames::Failed
}

/// Exact search of `res` (projected from `state`) on one thread, up to `max_nodes` nodes
/// (deterministic, so that the run's answer does not depend on the thread count). `None`
/// when the limit or the budget ran out, or the residual is too wide for the engine.
fn exact(
    state: &mut BoardState,
    res: &Residual,
    stats: &mut Stats,
    opts: &Options,
    max_nodes: u64,
    stop: &Stop,
) -> Option<Answer> {
    if res.size() > exact::MAX_FREE {
        return None;
    }
    let limits = exact::Limits { max_nodes, stop };
    let (outcome, counts) = timed(Stage::Exact, &mut stats.exact, || {
        exact::first_sequential(res, opts.seed, limits)
    });
    stats.add_search(counts);
    settle(state, res.extent(), stats, outcome, counts)
}

/// The wide exact search (`exact::wide`) of the free part of `state`, which must hold the
/// input's queens only, up to `max_nodes` placements. `None` when it was stopped or does
/// not apply.
fn wide(
    state: &mut BoardState,
    stats: &mut Stats,
    opts: &Options,
    max_nodes: u64,
    stop: &Stop,
) -> Option<Answer> {
    let _ = opts;
    let (rows, cols) = state.free_rows_and_columns();
    let limits = exact::Limits { max_nodes, stop };
    let lines = &state.lines;
    let free = |i: u64, j: u64| lines.diagonals_free(i, j);
    let (outcome, counts, cells) = timed(Stage::Exact, &mut stats.exact, || {
        exact::wide::first(state.n, &rows, &cols, &free, limits)
    })?;
    stats.add_search(counts);
    settle(state, (rows.len() as u64, cells), stats, outcome, counts)
}

/// The answer an exact search of the input residual (of `size`: free rows, free cells)
/// gives: solved (the queens placed on `state`), infeasible after an exhausted search, or
/// `None` when it was stopped.
fn settle(
    state: &mut BoardState,
    (free_rows, free_cells): (u64, u64),
    stats: &mut Stats,
    outcome: Outcome,
    counts: exact::Counts,
) -> Option<Answer> {
    match outcome {
        Outcome::Solved(cells) => {
            stats.exact.placed += cells.len() as u64;
            place_all(state, &cells);
            Some(Answer::Solved)
        }
        Outcome::Exhausted => Some(Answer::Infeasible(Certificate::ExhaustedSearch {
            free_rows,
            free_cells,
            nodes: counts.nodes,
            decisions: counts.decisions,
        })),
        Outcome::Stopped => None,
    }
}

/// Completes a composition held in memory (`rows[i - 1]` = column of row i, 0 = empty):
/// the answer, the rows as the engine left them (a solution when solved), and statistics.
/// `None` when the rows are not a valid composition.
pub fn complete_rows(rows: &[u32], opts: &Options) -> Option<(Answer, Vec<u32>, Stats)> {
    let input = Input::from_rows(std::path::Path::new("(memory)"), "memory", rows).ok()?;
    let store = RowStore::anonymous(rows.len() as u64).ok()?;
    match prepare(&input, store).ok()? {
        Prepared::Invalid(_) => None,
        Prepared::Ready(state, stats, _) => {
            let c = complete(&input, state, stats, opts).ok()?;
            Some((c.answer, c.state.rows.to_vec(), c.stats))
        }
    }
}

/// Puts the input back into `state`, for a restart when the journal does not reach back
/// to the input.
fn reload(input: &Input, state: &mut BoardState) -> Result<(), FormatError> {
    state.drop_marks();
    let (report, marks) =
        verify_mark_and_copy(input, Requirements::default(), state.rows.rows_mut())?;
    let marks = marks.expect("the input was valid before");
    state.reset(marks.rows, marks.lines, report.k);
    Ok(())
}

#[cfg(test)]
mod tests;
