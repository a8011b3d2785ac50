//! The engine's loop: levels, restarts and the phases (pairing, scatter, end games,
//! repair, exact searches of the input residual), until an answer or the stop.

use super::levels::*;
use super::state::BoardState;
use super::{Answer, Certificate, Options, Phase, Stats, StopReason, Stopped};
use super::{closed_form, pairing, repair, scatter};
use crate::exact::{self, Outcome, Residual};
use crate::format::{FormatError, Input};
use crate::progress::{Stage, meter};
use crate::rng::Rng;
use crate::stop::Stop;
use crate::verify::{Requirements, verify_mark_and_copy};
use std::time::{Duration, Instant};

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

/// The pairs of cells of `res` (its refuted cells `out`) that the relaxation refutes
/// together ([`exact::relaxation::refuted_pairs`]), probed beside a search of one core of
/// at most [`exact::relaxation::beside_pairs_nodes`] nodes. That search is the sequential one of
/// [`exact::first`]'s tree (the same board and order), so a completion it finds is the one
/// the search of every core would give; the probes are then dropped. Its answer, `Stopped`
/// where it spent its budget, with its work and the pairs (none unless it stopped).
fn beside_pairs(
    res: &Residual,
    n: u64,
    out: &[(usize, usize)],
    seed: u64,
    stop: &Stop,
) -> (Outcome, exact::Counts, Vec<exact::relaxation::PairCover>) {
    let decided = std::sync::atomic::AtomicBool::new(false);
    let ((outcome, counts), pairs) = rayon::join(
        || {
            let max_nodes = exact::relaxation::beside_pairs_nodes();
            if max_nodes == 0 {
                return (Outcome::Stopped, exact::Counts::default());
            }
            let searched = exact::first_sequential(res, seed, exact::Limits { max_nodes, stop });
            if !matches!(searched.0, Outcome::Stopped) {
                decided.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            searched
        },
        || exact::relaxation::refuted_pairs(res, n, out, stop, &decided),
    );
    if matches!(outcome, Outcome::Stopped) {
        (outcome, counts, pairs)
    } else {
        (outcome, counts, Vec::new())
    }
}

fn place_all(state: &mut BoardState, cells: &[(u64, u64)]) {
    for &(i, j) in cells {
        state.place(i, j);
    }
}

/// The engine's loop: levels, restarts and the stages, until an answer or the stop.
pub(super) fn engine(
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
    // Given queens on a closed-form solution (all, or all but a few): that solution
    // completes the board. (An empty board has none, and is completed at random:
    // `generate solution --random`.)
    if opts.closed_forms {
        let given = state.n - m0;
        let tolerance = (given / NEAR_FORM_SHARE).min(NEAR_FORM_MAX);
        let found = timed(Stage::ClosedForm, &mut stats.closed_form, || {
            closed_form::recognise(state, tolerance)
        });
        if let Some(found) = found
            && let Some(answer) = from_closed_form(state, stats, opts, found, stop)
        {
            return Ok(answer);
        }
    }
    let unknown = |what: String| Answer::Unknown(stopped(stop, opts.time_limit, &what));
    let (l2, l3) = stats.levels;
    // Few free rows: the exact search of the input decides.
    if m0 <= EXACT_FIRST.max(l3) {
        let res = match project(state, stats) {
            Ok(res) => res,
            Err(cert) => return Ok(Answer::Infeasible(cert)),
        };
        // A short search on this thread first, without the parallel search's attack table
        // (m^3 steps to build: milliseconds at 50 rows) or its threads: most residuals of
        // this size are decided within a few thousand nodes. Both searches follow the
        // seed's order, so the answer (and an exhausted search's node count) is the one
        // the parallel search gives.
        let quick = exact::Limits {
            max_nodes: exact::short_budget(res.size()),
            stop,
        };
        let (mut outcome, mut counts) = timed(Stage::Exact, &mut stats.exact, || {
            exact::first_sequential(&res, opts.seed, quick)
        });
        // A residual the short search left open may be refuted by its linear relaxation
        // in milliseconds, where the search would take minutes (`exact::relaxation`).
        if matches!(outcome, Outcome::Stopped) && !stop.now() {
            let refuted = timed_part(Stage::Certificates, &mut stats.certificates, || {
                exact::relaxation::refute(&res, state.n, stop)
            });
            if let Some(cert) = refuted {
                stats.add_search(counts);
                return Ok(Answer::Infeasible(cert));
            }
        }
        // Then restarts in other orders, for the satisfiable residuals on which one order
        // is heavy-tailed (`exact::Restarts`), with a budget small beside the searches
        // that need every core; then the search of every core to the end.
        if matches!(outcome, Outcome::Stopped) && !stop.now() {
            stats.add_search(counts);
            let mut restarts = exact::Restarts::new(opts.seed);
            let budget = FIRST_RESTART_UNITS * exact::short_budget(res.size());
            (outcome, counts) = timed(Stage::Exact, &mut stats.exact, || {
                restarts.run(&res, budget, stop)
            });
            stats.exact_restarts += restarts.runs;
        }
        // Before the search of every core: the cells near the corners that the relaxation
        // refutes (0.1-1 s of probes from 26 rows), which the search then skips. Its tree
        // is a part of the tree without them: from a seventh of it (n 26 d 26 seed 2) to
        // nearly all (n 29 d 28 seed 4) on the Excluded Diagonals instances measured
        // (BENCHMARKS.md).
        // From 28 rows, the pairs of such cells that it refutes together, which the search
        // then takes as attacking each other (3.4x fewer nodes at n 29 d 29 seed 4): 6-13 s
        // of probes and weights, so they run beside a search of one core under a budget
        // (`beside_pairs`), which decides most residuals with a completion first. The
        // pairs change the tree anyway, so there the refuted cells are taken out rather
        // than skipped: rows and columns that keep one cell are then forced a placement
        // sooner (n 29 d 29 seed 4: 2.3x fewer nodes again). Below 28 rows they are only
        // skipped, which never grows the tree; taken out, most trees shrink (n 27 d 27
        // seed 3: 4.5x) but some grow (n 27 d 24 seed 3: 1.6x; BENCHMARKS.md).
        let (mut refuted, mut pairs) = (Vec::new(), Vec::new());
        if matches!(outcome, Outcome::Stopped) && !stop.now() {
            stats.add_search(counts);
            refuted = timed_part(Stage::Certificates, &mut stats.certificates, || {
                exact::relaxation::refuted_cells(&res, state.n, stop)
            });
            stats.refuted_cells = refuted.len() as u64;
            let out: Vec<_> = refuted.iter().map(|&(cell, _)| cell).collect();
            counts = exact::Counts::default();
            let searched = if exact::relaxation::pairs_probed(&res) {
                // The search beside the probes skips the cells, as before the pairs: the
                // residuals with a completion that it decides get the same one (taken out,
                // n 31 d 28 seed 1 was no longer decided beside the probes: 36 s, not 0.7).
                let skipping = res.clone().with_refuted(out.clone());
                (outcome, counts, pairs) = timed(Stage::Exact, &mut stats.exact, || {
                    beside_pairs(&skipping, state.n, &out, opts.seed, stop)
                });
                stats.refuted_pairs = pairs.len() as u64;
                res.without(&out)
                    .with_refuted_pairs(pairs.iter().map(|&(p, _)| p).collect())
            } else {
                res.clone().with_refuted(out)
            };
            if matches!(outcome, Outcome::Stopped) && !stop.now() {
                stats.add_search(counts);
                (outcome, counts) = timed(Stage::Exact, &mut stats.exact, || {
                    exact::first(&searched, opts.seed, stop)
                });
            }
        }
        stats.add_search(counts);
        let mut answer = settle(state, res.extent(), stats, outcome, counts);
        if let Some(Answer::Infeasible(Certificate::ExhaustedSearch {
            refuted_cells,
            refuted_pairs,
            ..
        })) = &mut answer
        {
            let board = |(r, c): (usize, usize)| [res.rows[r], res.cols[c]];
            *refuted_cells = refuted
                .into_iter()
                .map(|(cell, cover)| {
                    let [row, column] = board(cell);
                    exact::RefutedCell {
                        row,
                        column,
                        cover: Box::new(cover),
                    }
                })
                .collect();
            *refuted_pairs = pairs
                .into_iter()
                .map(|(pair, cover)| exact::RefutedPair {
                    cells: pair.map(board),
                    cover: Box::new(cover),
                })
                .collect();
        }
        return Ok(match answer {
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
    let mut exact_restarts = exact::Restarts::new(opts.seed);
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
                // As much again for restarts in other orders: the search above follows
                // one order to the end (an infeasible input is proved so once the budget
                // covers its tree), these try others (a satisfiable one whose order is
                // heavy-tailed is often solved within thousands of nodes).
                if res.size() <= exact::MAX_FREE {
                    let before = exact_restarts.runs;
                    let (outcome, counts) = timed(Stage::Exact, &mut stats.exact, || {
                        exact_restarts.run(res, exact_budget, stop)
                    });
                    stats.add_search(counts);
                    stats.exact_restarts += exact_restarts.runs - before;
                    if let Some(answer) = settle(state, res.extent(), stats, outcome, counts) {
                        return Ok(answer);
                    }
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
            let rng = Rng::seeded(opts.seed, &[12, restart]);
            if by_chains(state, rows, stats, rng, stop) {
                return Ok(Answer::Solved);
            }
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

/// Completes `state` from the closed form it was `found` to lie on: every free row takes
/// the form's queen; when given queens off the form attack some of those, a bounded exact
/// search reroutes the rows around them (`closed_form::complete_near`). `None` when it does
/// not complete the board, which is then as given, for the search of every free row.
fn from_closed_form(
    state: &mut BoardState,
    stats: &mut Stats,
    opts: &Options,
    found: closed_form::Recognised,
    stop: &Stop,
) -> Option<Answer> {
    let closed_form::Recognised { form, exceptions } = found;
    let m0 = state.free();
    stats.closed_form_exceptions = exceptions;
    if exceptions == 0 {
        timed_part(Stage::ClosedForm, &mut stats.closed_form, || {
            closed_form::fill(state, form)
        });
    } else {
        let near = timed_part(Stage::ClosedForm, &mut stats.closed_form, || {
            closed_form::complete_near(state, form, opts.seed, stop)
        });
        stats.search_nodes += near.nodes;
        stats.search_decisions += near.decisions;
        stats.exact_restarts += near.restarts;
        stats.sample_memory(near.anonymous_bytes);
        stats.closed_form_attacked = near.attacked;
        stats.closed_form_rerouted = near.rows_searched;
        stats.closed_form_chained = near.chains.rehoused;
        stats.closed_form_chain_rows = near.chains.moved;
        if let Some(cert) = near.certificate {
            stats.closed_form_tried = Some(form.describe());
            return Some(Answer::Infeasible(cert));
        }
        if !near.completed {
            stats.closed_form_tried = Some(form.describe());
            return None;
        }
    }
    stats.closed_form.placed += m0;
    stats.closed_form_solution = Some(form.describe());
    Some(Answer::Solved)
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
    // A row a chain moved is journaled twice.
    rows.dedup();
    rows
}

/// Chains of column exchanges (`chains`) for the rows the end games left without a
/// queen, on pairing's board: whether they placed every one (if not, the board is
/// pairing's again). They run where their cost, about three scans of the m free columns
/// per row left, stays within CHAIN_CHECKS.
fn by_chains(
    state: &mut BoardState,
    rows: &[u32],
    stats: &mut Stats,
    rng: Rng,
    stop: &Stop,
) -> bool {
    let m0 = rows.len() as u64;
    if 2 * state.n >= 1 << 32 || CHAIN_SCANS * state.free() * m0 > CHAIN_CHECKS {
        return false;
    }
    state.write_pending();
    let free: Vec<u64> = rows.iter().map(|&r| u64::from(r)).collect();
    let mut columns: Vec<u64> = free.iter().map(|&i| state.rows.get(i)).collect();
    let homeless: Vec<u64> = free
        .iter()
        .zip(&columns)
        .filter(|&(_, &j)| j == 0)
        .map(|(&i, _)| i)
        .collect();
    let before = columns.clone();
    let (left, done) = timed(Stage::Chains, &mut stats.chains, || {
        super::chains::rehouse(
            state,
            &free,
            &mut columns,
            &homeless,
            rng,
            super::chains::Checks {
                per_row: CHAIN_ROW_CHECKS,
                total: CHAIN_CHECKS,
            },
            stop,
        )
    });
    stats.chains.runs += 1;
    stats.chains.placed += done.rehoused;
    stats.chain_rows += done.moved;
    if left.is_empty() {
        return true;
    }
    // Repair does better from pairing's board than from the one chains leave (1e7 with
    // 0.1 % cleared: it failed there on 3 of 6 seeds, and the restart cost 10 s).
    let moved = || {
        free.iter()
            .zip(before.iter().zip(&columns))
            .filter(|(_, (b, a))| b != a)
    };
    for (&i, (_, &a)) in moved() {
        if a != 0 {
            state.unplace(i);
        }
    }
    for (&i, (&b, _)) in moved() {
        if b != 0 {
            state.place(i, b);
        }
    }
    false
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
            scatter::scatter(state, l3, &mut rng, stop)
        });
        match placed {
            Ok(p) => stats.scatter.placed += p,
            Err(scatter::Short::Stopped) => {
                state.rewind_to(level2_mark);
                return EndGames::Stopped(attempt);
            }
            Err(scatter::Short::DeadRow { placed, .. }) => {
                stats.dead_ends_scatter += 1;
                meter().add_dead_end();
                state.rewind_to(level2_mark);
                if placed == 0 {
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
                max_nodes: exact::short_budget(res.size()),
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
            refuted_cells: Vec::new(),
            refuted_pairs: Vec::new(),
        })),
        Outcome::Stopped => None,
    }
}

/// Puts the input back into `state`, for a restart when the journal does not reach back
/// to the input.
fn reload(input: &Input, state: &mut BoardState) -> Result<(), FormatError> {
    state.drop_marks();
    let (report, marks) =
        verify_mark_and_copy(input, Requirements::default(), state.rows.loader())?;
    let marks = marks.expect("the input was valid before");
    state.reset(marks.rows, marks.lines, report.k);
    Ok(())
}
