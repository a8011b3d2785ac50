//! The closed-form phase: a composition whose given queens all lie on one closed-form
//! solution (the explicit construction under one of the board's symmetries, or a linear
//! solution: `crate::closed_form`) is completed from that solution in one pass, before any
//! search. Such compositions are what `generate solution` and `generate composition` make
//! by default, and at n = 10^9 with rows cleared at random they are the randomized phases'
//! worst case: in the construction a middle row keeps about m^2 / n free cells.
//!
//! An edited construction (a few given queens moved, or a region solved again) keeps most
//! queens on the form: the free rows then take the form's queens, except those whose
//! queen a given queen off the form attacks. Those get cells by chains of column
//! exchanges (`super::chains`); the ones no chain places, and the free rows around them
//! whose queens would have to move for them ([`Reroute`]), go to a bounded exact search.
//! Where that does not complete the board the search of every free row takes over.

use super::state::BoardState;
use crate::closed_form::ClosedForm;
use crate::exact::{self, Outcome};
use crate::rng::Rng;
use crate::stop::Stop;
use rayon::prelude::*;
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Rows per work item of the check.
const CHUNK: usize = 1 << 16;

/// Given queens looked at for a second one that fixes the linear candidate.
const SECOND_QUEENS: usize = 64;

/// A closed-form solution that the given queens lie on, all but `exceptions` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Recognised {
    pub form: ClosedForm,
    /// Given queens off the form.
    pub exceptions: u64,
}

/// Queens looked at as anchors of a linear candidate: an edited queen among the first
/// would otherwise name a wrong one.
const ANCHORS: usize = 3;

/// The closed-form solution that all the queens of `state` but at most `tolerance` lie
/// on, with the fewest exceptions (ties: the first candidate). The construction under each
/// symmetry is a candidate, and the linear solution through each of the first few queens
/// and the first of the next few whose row difference from it is prime to n. The answer
/// does not depend on the thread count: a candidate is dropped only once its exceptions
/// exceed `tolerance`, and the survivors' counts are exact.
pub(super) fn recognise(state: &BoardState, tolerance: u64) -> Option<Recognised> {
    let n = state.n;
    let mut queens = Vec::new();
    let mut at = 1;
    while queens.len() < ANCHORS + SECOND_QUEENS {
        let Some(row) = state.taken_rows.next_set(at, n + 1) else {
            break;
        };
        queens.push(row);
        at = row + 1;
    }
    let queen = |row: u64| (row, state.rows.get(row));
    let mut candidates: Vec<ClosedForm> = Vec::new();
    for (a, &first) in queens.iter().enumerate().take(ANCHORS) {
        let later = &queens[a + 1..];
        let second = later
            .iter()
            .take(SECOND_QUEENS)
            .copied()
            .find(|&r| crate::closed_form::gcd(r - first, n) == 1)
            .or(later.first().copied());
        for c in ClosedForm::candidates(n, queen(first), second.map(queen)) {
            if !candidates.contains(&c) {
                candidates.push(c);
            }
        }
        if tolerance == 0 {
            // Every queen must agree: the first one names every candidate.
            break;
        }
    }
    if candidates.is_empty() {
        return None;
    }
    debug_assert!(candidates.len() <= 32);
    let off: Vec<AtomicU64> = candidates.iter().map(|_| AtomicU64::new(0)).collect();
    let alive = |off: &[AtomicU64]| -> u32 {
        off.iter()
            .enumerate()
            .filter(|(_, c)| c.load(Relaxed) <= tolerance)
            .fold(0, |m, (b, _)| m | 1 << b)
    };
    state
        .rows
        .rows()
        .par_chunks(CHUNK)
        .enumerate()
        .for_each_init(Vec::new, |expected, (k, chunk)| {
            let mut mask = alive(&off);
            let first_row = (k * CHUNK + 1) as u64;
            if mask.count_ones() <= 2 {
                // One or two candidates left (the usual case after the first rows; the
                // construction is its own half-turn image, so two survive on it): each
                // one's columns for the whole chunk, then one comparison per row that the
                // compiler vectorises.
                while mask != 0 {
                    let b = mask.trailing_zeros();
                    mask &= mask - 1;
                    expected.resize(chunk.len(), 0);
                    candidates[b as usize].columns_le(n, first_row, expected);
                    let differ = chunk
                        .iter()
                        .zip(expected.iter())
                        .map(|(&v, &e)| u64::from((v != 0) & (v != e)))
                        .sum::<u64>();
                    off[b as usize].fetch_add(differ, Relaxed);
                }
                return;
            }
            let mut local = [0u64; 32];
            for (j, &v) in chunk.iter().enumerate() {
                if mask == 0 {
                    break;
                }
                let col = u32::from_le(v) as u64;
                if col == 0 {
                    continue;
                }
                let row = (k * CHUNK + j + 1) as u64;
                let mut m = mask;
                while m != 0 {
                    let b = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if candidates[b].column(n, row) != col {
                        local[b] += 1;
                        if local[b] > tolerance {
                            mask &= !(1 << b);
                        }
                    }
                }
                // Candidates dropped elsewhere stop this item early too.
                if j % 4096 == 4095 {
                    for (b, c) in off.iter().enumerate() {
                        if c.load(Relaxed) + local[b] > tolerance {
                            mask &= !(1 << b);
                        }
                    }
                }
            }
            for (b, c) in off.iter().enumerate() {
                if local[b] > 0 {
                    c.fetch_add(local[b], Relaxed);
                }
            }
        });
    off.iter()
        .map(|c| c.load(Relaxed))
        .zip(candidates)
        .filter(|&(e, _)| e <= tolerance)
        .min_by_key(|&(e, _)| e)
        .map(|(exceptions, form)| Recognised { form, exceptions })
}

/// Places `form`'s queen in every free row of `state`; returns how many.
pub(super) fn fill(state: &mut BoardState, form: ClosedForm) -> u64 {
    let n = state.n;
    let mut rows = Vec::new();
    state.for_each_free_row(|i| {
        rows.push(i);
        true
    });
    for &i in &rows {
        state.place(i, form.column(n, i));
    }
    rows.len() as u64
}

/// Completes the free rows of `state` from `form`, which all but a few given queens lie
/// on: every free row takes the form's queen, except the rows whose queen in the form a
/// given queen off it attacks, which chains of column exchanges place where they can
/// (`super::chains`); the rest, and the rows around them that a bounded exact search needs
/// to place those ([`Reroute`]), go to that search. The neighbourhood grows (2x per round,
/// up to what the exact search takes) until the search completes it. On failure the board
/// is as given.
pub(super) fn complete_near(
    state: &mut BoardState,
    form: ClosedForm,
    seed: u64,
    stop: &Stop,
) -> Near {
    let n = state.n;
    let mut free = Vec::new();
    state.for_each_free_row(|i| {
        free.push(i);
        true
    });
    let attacked: Vec<u64> = free
        .iter()
        .copied()
        .filter(|&i| !state.is_free_cell(i, form.column(n, i)))
        .collect();
    let mut near = Near {
        attacked: attacked.len() as u64,
        ..Near::default()
    };
    // A form most free rows disagree with explains little of the board: the search does
    // better there. (The tables below hold lines in 32 bits.)
    if 2 * attacked.len() > free.len() || 2 * n >= 1 << 32 {
        return near;
    }
    let columns: Vec<u64> = free.iter().map(|&i| form.column(n, i)).collect();
    let reroute = Reroute::new(state, free, columns);
    near.anonymous_bytes = crate::memory::anonymous_rss();
    near.certificate = reroute.unreachable(state, &attacked);
    if near.certificate.is_some() {
        return near;
    }
    // Chains of column exchanges first: where they place every attacked row, the board is
    // complete without a search.
    let Reroute {
        free, mut columns, ..
    } = reroute;
    for (x, &i) in free.iter().enumerate() {
        if attacked.binary_search(&i).is_ok() {
            columns[x] = 0;
        } else {
            state.place(i, columns[x]);
        }
    }
    let (attacked, chains) = super::chains::rehouse(
        state,
        &free,
        &mut columns,
        &attacked,
        Rng::seeded(seed, &[12]),
        CHAIN_CHECKS,
        stop,
    );
    near.chains = chains;
    if attacked.is_empty() {
        near.completed = true;
        return near;
    }
    for (&i, &j) in free.iter().zip(&columns) {
        if j != 0 {
            state.unplace(i);
        }
    }
    let reroute = Reroute::new(state, free, columns).with_owners(&attacked);
    let mut rng = Rng::seeded(seed, &[11]);
    let mut limit = NEIGHBOURHOOD_FIRST;
    let mut last = usize::MAX;
    loop {
        let open = reroute.neighbourhood(state, &attacked, limit, &mut rng);
        // A neighbourhood no larger than the last gives up early: the search of every free
        // row then did better (BENCHMARKS.md, "Edited constructions").
        if open.len() == last || open.len() > exact::MAX_FREE || stop.now() {
            return near;
        }
        last = open.len();
        near.rows_searched = open.len() as u64;
        let closed = || {
            reroute
                .rows()
                .filter(|(i, _)| open.binary_search(i).is_err())
        };
        for (i, j) in closed() {
            state.place(i, j);
        }
        let (mut outcome, counts) = if open.is_empty() {
            (Outcome::Solved(Vec::new()), exact::Counts::default())
        } else {
            let limits = exact::Limits {
                max_nodes: NODES_PER_ROW * open.len() as u64,
                stop,
            };
            exact::first_sequential(&state.residual(), seed, limits)
        };
        near.nodes += counts.nodes;
        near.decisions += counts.decisions;
        // Then restarts in other orders: the neighbourhood of a moved queen in a cleared
        // block is solved within a few thousand nodes by one order in three to ten, and
        // not in billions by the others (BENCHMARKS.md, "Restarts").
        if matches!(outcome, Outcome::Stopped) && !stop.now() {
            let res = state.residual();
            let mut restarts = exact::Restarts::new(seed);
            let budget = RESTART_SHORT_BUDGETS * exact::short_budget(res.size());
            let (o, counts) = restarts.run(&res, budget, stop);
            near.nodes += counts.nodes;
            near.decisions += counts.decisions;
            near.restarts += restarts.runs;
            outcome = o;
        }
        if let Outcome::Solved(cells) = outcome {
            for (i, j) in cells {
                state.place(i, j);
            }
            near.completed = true;
            return near;
        }
        // Exhausted proves nothing about the input: the form's queens were chosen.
        for (i, _) in closed() {
            state.unplace(i);
        }
        if limit >= exact::MAX_FREE {
            return near;
        }
        limit = (limit * 2).min(exact::MAX_FREE);
    }
}

/// What [`complete_near`] did.
#[derive(Debug, Default, Clone)]
pub(super) struct Near {
    /// Whether it completed the board.
    pub completed: bool,
    /// Free rows whose queen in the form a given queen attacks.
    pub attacked: u64,
    /// Rows in the last neighbourhood searched.
    pub rows_searched: u64,
    /// Nodes and branching decisions of the exact searches.
    pub nodes: u64,
    pub decisions: u64,
    /// Restarts of those searches in other orders (`exact::Restarts`).
    pub restarts: u64,
    /// Anonymous memory with the tables built (sampled).
    pub anonymous_bytes: Option<u64>,
    /// Attacked rows placed by chains of column exchanges (`chains`), before any search.
    pub chains: super::chains::Chains,
    /// Proof that the input has no completion: an orphan column or an attacked row that no
    /// free cell reaches (given queens off the form can close one).
    pub certificate: Option<exact::Certificate>,
}

/// Cell checks the chains of column exchanges may spend on each attacked row, and in all
/// (the time limit stops them too). There are few such rows, and at n = 1e9 with 1 %
/// cleared one of them needed more than 2^27 checks (levels of 10^6-row frontiers, each
/// up to 3 * 10^8 checks): left to the exact search, it was not placed (BENCHMARKS.md,
/// "Edited constructions").
const CHAIN_CHECKS: super::chains::Checks = super::chains::Checks {
    per_row: 1 << 29,
    total: u64::MAX,
};
/// Nodes the restarts of each neighbourhood's search may spend, in short budgets
/// (`exact::short_budget`): 16 solved a 300-row block of n = 1,000 with a queen moved in
/// 0.36 s, where one batch (1) did not; 64 and 256 solved no more (BENCHMARKS.md, "Restarts").
const RESTART_SHORT_BUDGETS: u64 = 16;
/// Rows in the first neighbourhood of the attacked rows.
const NEIGHBOURHOOD_FIRST: usize = 32;
/// Nodes of each exact search of a neighbourhood, per row: small, as the search of every
/// free row may do better, and the rerouted rows at n = 1e9 took 1 to 2 nodes a row.
const NODES_PER_ROW: u64 = 16;
/// Cells of a row (or of a column) followed, at most, when the neighbourhood grows from it.
const CELLS_FOLLOWED: usize = 16;
/// Cells followed from each attacked row and orphan column, at least.
const SEED_CELLS: usize = 8;
/// Cells of a row (or a column) looked at for those that open the fewest new rows.
const CELLS_SEEN: usize = 256;

/// Which free rows must leave their queen in the form so that the rows whose queen a given
/// queen attacks can take another cell. A cell is open when no given queen holds its
/// column or diagonals; the rows whose queens in the form hold them must then move too.
/// Grown breadth first from the attacked rows and from the rows that can reach the
/// columns that given queens off the form left free (every column must be used).
struct Reroute {
    n: u64,
    /// The input's free rows, increasing, and each one's column in the form.
    free: Vec<u64>,
    columns: Vec<u64>,
    /// Free columns that no free row's queen in the form is on.
    orphans: Vec<u64>,
    /// (diagonal, row) of the free rows' queens in the form (attacked rows left out: their
    /// queens are not placed), sorted, one table per direction; 32 bits each, as the
    /// caller checks that 2n fits (8 bytes a free row: 80 MB at 10^7 free rows).
    d1: Vec<(u32, u32)>,
    d2: Vec<(u32, u32)>,
}

impl Reroute {
    /// `state` holds the given queens only; `columns` are the free rows' columns in the
    /// form (0 where a chain left an attacked row without one).
    /// Without the diagonals' owners ([`Reroute::with_owners`]): enough for
    /// [`Reroute::unreachable`].
    fn new(state: &BoardState, free: Vec<u64>, columns: Vec<u64>) -> Reroute {
        let mut sorted = columns.clone();
        sorted.sort_unstable();
        let mut orphans = Vec::new();
        state.for_each_free_column(|j| {
            if sorted.binary_search(&j).is_err() {
                orphans.push(j);
            }
            true
        });
        Reroute {
            n: state.n,
            free,
            columns,
            orphans,
            d1: Vec::new(),
            d2: Vec::new(),
        }
    }

    /// The owners of the diagonals: the free rows' queens but the `attacked` rows'.
    fn with_owners(mut self, attacked: &[u64]) -> Reroute {
        let n = self.n;
        let placed = || {
            self.free
                .iter()
                .zip(&self.columns)
                .filter(|(i, _)| attacked.binary_search(i).is_err())
        };
        let mut d1: Vec<(u32, u32)> = placed()
            .map(|(&i, &j)| ((n + j - i) as u32, i as u32))
            .collect();
        let mut d2: Vec<(u32, u32)> = placed()
            .map(|(&i, &j)| ((i + j) as u32, i as u32))
            .collect();
        d1.sort_unstable();
        d2.sort_unstable();
        self.d1 = d1;
        self.d2 = d2;
        self
    }

    /// An orphan column, or an attacked row, without a single free cell (free of the given
    /// queens, which alone `state` holds): then no completion exists. Each scan ends at the
    /// first free cell, so this costs little unless it finds one.
    fn unreachable(&self, state: &BoardState, attacked: &[u64]) -> Option<exact::Certificate> {
        let lines = &state.lines;
        for &c in &self.orphans {
            if !self.free.iter().any(|&x| lines.diagonals_free(x, c)) {
                return Some(exact::Certificate::EmptyColumn { column: c });
            }
        }
        for &a in attacked {
            let reached = self
                .columns
                .iter()
                .chain(&self.orphans)
                .any(|&j| j != 0 && !lines.columns.get(j) && lines.diagonals_free(a, j));
            if !reached {
                return Some(exact::Certificate::EmptyRow { row: a });
            }
        }
        None
    }

    /// The free rows with their columns in the form.
    fn rows(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.free.iter().copied().zip(self.columns.iter().copied())
    }

    fn owner(table: &[(u32, u32)], line: u64) -> Option<u64> {
        table
            .binary_search_by_key(&(line as u32), |e| e.0)
            .ok()
            .map(|k| u64::from(table[k].1))
    }

    /// The rows that must move if a queen goes on (`row`, `col`), whose column is free of
    /// given queens: `mover` (the free row whose queen in the form leaves for it, if any)
    /// and the owners of the cell's diagonals; `None` when a given queen holds one of them.
    fn displaced(
        &self,
        state: &BoardState,
        (row, col): (u64, u64),
        mover: Option<u64>,
    ) -> Option<[Option<u64>; 3]> {
        let (v1, v2) = (self.n + col - row, row + col);
        if state.lines.d1.get(v1) || state.lines.d2.get(v2) {
            return None;
        }
        Some([mover, Self::owner(&self.d1, v1), Self::owner(&self.d2, v2)])
    }

    /// The attacked rows and the rows around them, breadth first, until `limit` rows (or
    /// none is left to add); increasing. `state` holds the given queens only. Every
    /// attacked row and every orphan column has some of its cells followed, however many
    /// rows that opens; the rows they open grow the neighbourhood up to `limit`.
    fn neighbourhood(
        &self,
        state: &BoardState,
        attacked: &[u64],
        limit: usize,
        rng: &mut Rng,
    ) -> Vec<u64> {
        /// What needs cells: a row that must move, or an orphan column.
        enum Need {
            Row(u64),
            Column(u64),
        }
        let mut open: BTreeSet<u64> = attacked.iter().copied().collect();
        let mut queue: VecDeque<Need> = self.orphans.iter().map(|&c| Need::Column(c)).collect();
        queue.extend(attacked.iter().map(|&a| Need::Row(a)));
        let seeds = queue.len();
        let per = (limit / (2 * seeds.max(1))).clamp(2, CELLS_FOLLOWED);
        let m = self.free.len();
        let mut done = 0;
        let mut cells: Vec<(usize, [Option<u64>; 3])> = Vec::new();
        while let Some(need) = queue.pop_front() {
            if done >= seeds && open.len() >= limit {
                break;
            }
            done += 1;
            // Up to CELLS_SEEN cells, from a random free row's column on (so that rounds
            // differ); the `per` that open the fewest new rows are followed.
            cells.clear();
            let start = rng.index(m);
            for t in 0..m {
                let x = (start + t) % m;
                let (row, j) = (self.free[x], self.columns[x]);
                // Row `row` moves either way: to column c, or off its column j (its queen
                // in the form is placed unless the row is attacked).
                let placed = Some(row).filter(|r| attacked.binary_search(r).is_err());
                let owners = match need {
                    Need::Column(c) => self.displaced(state, (row, c), placed),
                    Need::Row(a) if row != a && j != 0 && !state.lines.columns.get(j) => {
                        self.displaced(state, (a, j), placed)
                    }
                    Need::Row(_) => None,
                };
                if let Some(owners) = owners {
                    let new = owners
                        .iter()
                        .flatten()
                        .filter(|r| !open.contains(r))
                        .count();
                    cells.push((new, owners));
                    if cells.len() == CELLS_SEEN {
                        break;
                    }
                }
            }
            cells.sort_by_key(|c| c.0);
            // The cells opening the fewest rows first (those opening none keep the
            // neighbourhood compact: the search found more in compact ones). The seeds
            // themselves get more cells: they are the rows and columns that must change.
            let follow = if done <= seeds {
                SEED_CELLS.max(per)
            } else {
                per
            };
            for &(_, owners) in cells.iter().take(follow) {
                for r in owners.into_iter().flatten() {
                    if open.insert(r) {
                        queue.push_back(Need::Row(r));
                    }
                }
            }
        }
        open.into_iter().collect()
    }
}
