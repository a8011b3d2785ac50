//! The repair phase: min-conflicts search over a full assignment of the input's free rows.
//!
//! Pairing and scatter extend a partial board and fail when some row has no free cell
//! left; on compositions that did not come from a random solution (a construction with rows
//! cleared at random, a random solution with a block cleared) that happens on almost every
//! try. Repair instead gives every free row of the input a column (a permutation of the
//! input's free columns: the queens pairing placed, the leftover rows matched to the
//! leftover columns at random) and swaps the columns of two rows while that lowers the
//! number of diagonal conflicts (Sosic and Gu's QS4), with random partners, sideways moves
//! when nothing lowers it, and a shake of the rows in conflict when progress stops.
//! Given queens never move: only the input's free rows take part.
//!
//! Conflicts are counted on the board's own diagonal bitmaps, which hold every queen at
//! least once; a diagonal holding more than one queen keeps its surplus in a small hash map.
//! A diagonal with k queens counts k - 1 conflicts, so a board without conflicts is a
//! solution. At n = 10^9 this needs no memory beyond the bitmaps the engine already has.

use super::state::BoardState;
use crate::board::Bitmap;
use crate::rng::Rng;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Partners tried for a row in conflict before a sideways move (or none) is taken.
const TRIES: usize = 64;
/// Moves without a new best count of conflicts before the rows in conflict are shaken.
const PATIENCE: u64 = 1 << 12;
/// Moves without a new fewest count before the repair gives up, on the first call (the
/// caller multiplies it by 4 on each restart, while the exact searches' budgets double:
/// sparse residuals of a few hundred to a few thousand rows need long tabu runs, which
/// paid more than exact search there; BENCHMARKS.md). On tight residuals the count stalls
/// far from zero, and the exact searches do better.
pub(crate) const STALL: u64 = 1 << 15;

/// How long a repair may go on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Effort {
    /// Moves in all.
    pub max_moves: u64,
    /// Moves without a new fewest count of conflicts before giving up.
    pub stall: u64,
    /// Whether moves may be guided by the residual's cells (see [`Guide`]): listing them
    /// costs O(m^2), worth it only once random partners have failed.
    pub guided: bool,
}

/// Why a repair stopped without a solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unrepaired {
    /// Conflicts left at the end.
    pub conflicts: u64,
    /// The fewest conflicts seen.
    pub best: u64,
    /// Moves tried.
    pub moves: u64,
    /// Whether `stop` ended it (else the move budget ran out, or the count stalled).
    pub stopped: bool,
}

/// What a successful repair did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Repaired {
    /// Conflicts of the first full assignment.
    pub initial: u64,
    /// Moves tried.
    pub moves: u64,
}

/// A hasher for diagonal indices: one multiplication (keys are plain integers, and the
/// maps are small and hot).
#[derive(Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (i ^ (i >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type Surplus = HashMap<u64, u32, BuildHasherDefault<IndexHasher>>;

/// One direction of diagonals: the board's bitmap (at least one queen) and the surplus.
struct Diagonals<'a> {
    bits: &'a mut Bitmap,
    surplus: Surplus,
}

impl Diagonals<'_> {
    /// Adds a queen on diagonal `d`; returns the conflicts added (0 or 1).
    #[inline]
    fn add(&mut self, d: u64) -> u64 {
        if self.bits.test_and_set(d) {
            *self.surplus.entry(d).or_insert(0) += 1;
            1
        } else {
            0
        }
    }

    /// Removes a queen from diagonal `d`; returns the conflicts removed (0 or 1).
    #[inline]
    fn remove(&mut self, d: u64) -> u64 {
        match self.surplus.get_mut(&d) {
            Some(k) => {
                *k -= 1;
                if *k == 0 {
                    self.surplus.remove(&d);
                }
                1
            }
            None => {
                self.bits.clear(d);
                0
            }
        }
    }

    #[inline]
    fn crowded(&self, d: u64) -> bool {
        !self.surplus.is_empty() && self.surplus.contains_key(&d)
    }

    /// Queens on diagonal `d`.
    #[inline]
    fn queens(&self, d: u64) -> u32 {
        if !self.bits.get(d) {
            0
        } else {
            1 + if self.surplus.is_empty() {
                0
            } else {
                self.surplus.get(&d).copied().unwrap_or(0)
            }
        }
    }

    /// The change in conflicts if a queen leaves diagonals `gone` and queens arrive on
    /// `come`, without making it.
    #[inline]
    fn delta(&self, gone: [u64; 2], come: [u64; 2]) -> i64 {
        // The affected diagonals with their net change in queens.
        let mut at: [(u64, i32); 4] = [(0, 0); 4];
        let mut len = 0;
        for (d, by) in [(gone[0], -1), (gone[1], -1), (come[0], 1), (come[1], 1)] {
            match at[..len].iter_mut().find(|e| e.0 == d) {
                Some(e) => e.1 += by,
                None => {
                    at[len] = (d, by);
                    len += 1;
                }
            }
        }
        let surplus = |q: i64| (q - 1).max(0);
        at[..len]
            .iter()
            .filter(|e| e.1 != 0)
            .map(|&(d, by)| {
                let q = self.queens(d) as i64;
                surplus(q + by as i64) - surplus(q)
            })
            .sum()
    }
}

/// A full assignment of the input's free rows under repair.
struct Assignment<'a> {
    n: u64,
    rows: Vec<u32>,
    cols: Vec<u32>,
    d1: Diagonals<'a>,
    d2: Diagonals<'a>,
    conflicts: u64,
}

impl Assignment<'_> {
    #[inline]
    fn add(&mut self, k: usize) {
        let (i, j) = (self.rows[k] as u64, self.cols[k] as u64);
        self.conflicts += self.d1.add(self.n + j - i) + self.d2.add(i + j);
    }

    #[inline]
    fn remove(&mut self, k: usize) {
        let (i, j) = (self.rows[k] as u64, self.cols[k] as u64);
        self.conflicts -= self.d1.remove(self.n + j - i) + self.d2.remove(i + j);
    }

    /// Exchanges the columns of rows `a` and `b` (doing it twice undoes it).
    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.remove(a);
        self.remove(b);
        self.cols.swap(a, b);
        self.add(a);
        self.add(b);
    }

    /// The change in conflicts that [`Assignment::swap`] of `a` and `b` would make.
    #[inline]
    fn swap_delta(&self, a: usize, b: usize) -> i64 {
        let n = self.n;
        let (ia, ja) = (self.rows[a] as u64, self.cols[a] as u64);
        let (ib, jb) = (self.rows[b] as u64, self.cols[b] as u64);
        self.d1
            .delta([n + ja - ia, n + jb - ib], [n + jb - ia, n + ja - ib])
            + self.d2.delta([ia + ja, ib + jb], [ia + jb, ib + ja])
    }

    #[inline]
    fn attacked(&self, k: usize) -> bool {
        let (i, j) = (self.rows[k] as u64, self.cols[k] as u64);
        self.d1.crowded(self.n + j - i) || self.d2.crowded(i + j)
    }
}

/// Repairs the board in `state` (pairing's queens placed, some of `free_rows`, the input's
/// free rows, still free) into a solution within `effort`, drawing every random choice
/// from `rng`; polls `stop`.
/// `report(conflicts)` is told the count of conflicts as it falls.
///
/// On success every row of the state holds a queen. On failure the state's diagonal
/// bitmaps are as they were before the call, and the rows the call gave a column are free
/// again, so that a rewind to the input (or a reload) sees a consistent board.
pub(crate) fn repair(
    state: &mut BoardState,
    free_rows: &[u32],
    mut rng: Rng,
    effort: Effort,
    stop: &crate::stop::Stop,
    report: &dyn Fn(u64),
) -> Result<Repaired, Unrepaired> {
    state.write_pending();
    let n = state.n;
    // The leftover rows and columns, matched at random.
    let mut leftover_cols = Vec::new();
    state.for_each_free_column(|j| {
        leftover_cols.push(j as u32);
        true
    });
    rng.shuffle(&mut leftover_cols);
    let mut cols = Vec::with_capacity(free_rows.len());
    let mut leftover = Vec::new();
    for (k, &i) in free_rows.iter().enumerate() {
        if state.taken_rows.get(i as u64) {
            cols.push(state.rows.get(i as u64) as u32);
        } else {
            cols.push(leftover_cols[leftover.len()]);
            leftover.push(k);
        }
    }
    debug_assert_eq!(leftover.len(), leftover_cols.len());
    // Pairing's columns (0 for the leftover rows), to put back on failure.
    let mut pairing_cols = cols.clone();
    for &k in &leftover {
        pairing_cols[k] = 0;
    }
    let lines = &mut state.lines;
    let mut a = Assignment {
        n,
        rows: free_rows.to_vec(),
        cols,
        d1: Diagonals {
            bits: &mut lines.d1,
            surplus: Surplus::default(),
        },
        d2: Diagonals {
            bits: &mut lines.d2,
            surplus: Surplus::default(),
        },
        conflicts: 0,
    };
    let guide = (effort.guided && a.rows.len() <= GUIDED_ROWS).then(|| {
        // Pairing's queens leave the bitmaps while the cells are listed, so that the
        // bitmaps hold the given queens alone (the leftover rows are not on them yet).
        let placed: Vec<usize> = (0..a.rows.len())
            .filter(|&k| pairing_cols[k] != 0)
            .collect();
        for &k in &placed {
            a.remove(k);
        }
        let (d1, d2) = (&*a.d1.bits, &*a.d2.bits);
        let guide = Guide::new(&a, &|i, j| !d1.get(n + j - i) && !d2.get(i + j));
        for &k in &placed {
            a.add(k);
        }
        guide
    });
    let mut guide = guide.flatten();
    greedy_start(&mut a, &leftover, &mut rng);
    if let Some(g) = guide.as_mut() {
        g.take_owners(&a);
    }
    let initial = a.conflicts;
    report(a.conflicts);
    let outcome = search(&mut a, &leftover, guide, &mut rng, effort, stop, report);
    match outcome {
        Ok(moves) => {
            let (rows, cols) = (a.rows, a.cols);
            state.adopt_repaired(&rows, &cols);
            Ok(Repaired { initial, moves })
        }
        Err(failed) => {
            // Take every queen of the assignment off the diagonals, then put back pairing's
            // queens where pairing left them: the bitmaps are as before the call.
            for k in 0..a.rows.len() {
                a.remove(k);
            }
            debug_assert!(a.d1.surplus.is_empty() && a.d2.surplus.is_empty());
            for (k, &j) in pairing_cols.iter().enumerate() {
                if j != 0 {
                    let i = a.rows[k] as u64;
                    a.d1.bits.set(n + j as u64 - i);
                    a.d2.bits.set(i + j as u64);
                }
            }
            Err(failed)
        }
    }
}

/// QS4's move for row `k` in conflict: the first of [`TRIES`] random partners whose swap
/// lowers the conflicts, else the first that keeps them, else none.
fn random_move(
    a: &mut Assignment<'_>,
    k: usize,
    m: usize,
    rng: &mut Rng,
    suspects: &mut Vec<usize>,
) {
    let mut sideways = None;
    for _ in 0..TRIES {
        let b = rng.index(m);
        if b == k {
            continue;
        }
        let delta = a.swap_delta(k, b);
        if delta < 0 {
            sideways = Some(b);
            break;
        }
        if delta == 0 && sideways.is_none() {
            sideways = Some(b);
        }
    }
    if let Some(b) = sideways {
        a.swap(k, b);
        if a.attacked(b) {
            suspects.push(b);
        }
    }
}

/// Free rows up to which moves are guided by the residual's cells (see [`Guide`]).
const GUIDED_ROWS: usize = 1 << 13;
/// Free cells per row, on average, up to which [`Guide`] keeps them: a move scans the
/// row's cells, and on denser residuals (a block cleared from a construction: hundreds of
/// cells a row) random partners find improving swaps as well for less.
const GUIDED_CELLS_PER_ROW: usize = 256;

/// Moves guided by the residual's cells, for small sparse residuals (hundreds to a few
/// thousand free rows with a few dozen free cells each, such as a construction with 0.1 %
/// of its rows cleared), where a random partner is almost never one whose column is free
/// in the row: a row in conflict takes the best of all swaps that give it one of its free
/// cells, even uphill, and the two rows are then tabu for a few moves (min-conflicts with
/// tabu search).
struct Guide {
    /// The free columns of each row (cells whose diagonals the given queens leave free).
    cells: Vec<Vec<u32>>,
    /// The input's free columns, increasing, and the row holding each.
    columns: Vec<u32>,
    owner: Vec<u32>,
    /// The move until which each row is tabu.
    tabu: Vec<u64>,
}

impl Guide {
    /// A guide for `a`, whose leftover rows are not placed yet (their diagonals hold the
    /// given queens and pairing's), or `None` when the residual is too large.
    fn new(a: &Assignment<'_>, given_free: &dyn Fn(u64, u64) -> bool) -> Option<Guide> {
        let m = a.rows.len();
        if m > GUIDED_ROWS {
            return None;
        }
        let mut columns = a.cols.clone();
        columns.sort_unstable();
        let mut cells = Vec::with_capacity(m);
        let mut total = 0;
        for k in 0..m {
            let i = a.rows[k] as u64;
            let row: Vec<u32> = columns
                .iter()
                .copied()
                .filter(|&j| given_free(i, j as u64))
                .collect();
            total += row.len();
            if total > GUIDED_CELLS_PER_ROW * m {
                return None;
            }
            cells.push(row);
        }
        let mut g = Guide {
            cells,
            columns,
            owner: vec![0; m],
            tabu: vec![0; m],
        };
        g.take_owners(a);
        Some(g)
    }

    /// Notes which row holds each column in `a`.
    fn take_owners(&mut self, a: &Assignment<'_>) {
        for k in 0..a.rows.len() {
            let at = self
                .columns
                .binary_search(&a.cols[k])
                .expect("a free column");
            self.owner[at] = k as u32;
        }
    }

    /// The partner of the best swap for row `k` (fewest conflicts after it, ties at
    /// random) among rows not tabu, or whose swap would beat `fewest`.
    fn best_partner(
        &self,
        a: &Assignment<'_>,
        k: usize,
        moves: u64,
        fewest: u64,
        rng: &mut Rng,
    ) -> Option<usize> {
        let mut best: Option<(i64, usize)> = None;
        let mut ties = 0u32;
        for &j in &self.cells[k] {
            if j == a.cols[k] {
                continue;
            }
            let b = self.owner[self.columns.binary_search(&j).expect("a free column")] as usize;
            let delta = a.swap_delta(k, b);
            let allowed = self.tabu[b] <= moves || (a.conflicts as i64 + delta) < fewest as i64;
            if !allowed {
                continue;
            }
            match best {
                Some((d, _)) if delta > d => {}
                Some((d, _)) if delta == d => {
                    ties += 1;
                    if rng.below(u64::from(ties) + 1) == 0 {
                        best = Some((delta, b));
                    }
                }
                _ => {
                    best = Some((delta, b));
                    ties = 0;
                }
            }
        }
        best.map(|(_, b)| b)
    }

    /// Records that rows `k` and `b` swapped columns at move `moves`.
    fn swapped(&mut self, a: &Assignment<'_>, k: usize, b: usize, moves: u64, rng: &mut Rng) {
        for r in [k, b] {
            let at = self
                .columns
                .binary_search(&a.cols[r])
                .expect("a free column");
            self.owner[at] = r as u32;
            self.tabu[r] = moves + 2 + rng.below(8);
        }
    }
}

/// Columns tried per leftover row by [`greedy_start`].
const START_TRIES: usize = 32;

/// Places the leftover rows on their columns, first exchanging the columns among them so
/// that each row, in turn, takes a column whose diagonals are empty when one of
/// [`START_TRIES`] random ones is (the rest take the least crowded seen): far fewer
/// conflicts to repair than a random match.
fn greedy_start(a: &mut Assignment<'_>, leftover: &[usize], rng: &mut Rng) {
    let n = a.n;
    for t in 0..leftover.len() {
        let k = leftover[t];
        let i = a.rows[k] as u64;
        let crowd = |a: &Assignment<'_>, j: u64| a.d1.queens(n + j - i) + a.d2.queens(i + j);
        let mut best = (crowd(a, a.cols[k] as u64), t);
        for _ in 0..START_TRIES.min(leftover.len() - t) {
            if best.0 == 0 {
                break;
            }
            let u = t + rng.index(leftover.len() - t);
            let c = crowd(a, a.cols[leftover[u]] as u64);
            if c < best.0 {
                best = (c, u);
            }
        }
        let u = leftover[best.1];
        a.cols.swap(k, u);
        a.add(k);
    }
}

/// Moves until no conflict is left (the moves made), or the budget or `stop` ends it.
fn search(
    a: &mut Assignment<'_>,
    leftover: &[usize],
    mut guide: Option<Guide>,
    rng: &mut Rng,
    Effort {
        max_moves, stall, ..
    }: Effort,
    stop: &crate::stop::Stop,
    report: &dyn Fn(u64),
) -> Result<u64, Unrepaired> {
    let m = a.rows.len();
    // Rows that may be in conflict (some no longer are: checked when drawn).
    let mut suspects: Vec<usize> = leftover
        .iter()
        .copied()
        .filter(|&k| a.attacked(k))
        .collect();
    // The fewest conflicts since the last shake, and ever.
    let mut best = a.conflicts;
    let mut fewest = a.conflicts;
    let mut since_best = 0u64;
    let mut moves = 0u64;
    let mut at_fewest = 0u64;
    while a.conflicts > 0 {
        if moves >= max_moves || (moves & 1023 == 0 && stop.now()) {
            return Err(Unrepaired {
                conflicts: a.conflicts,
                best: fewest,
                moves,
                stopped: moves < max_moves,
            });
        }
        moves += 1;
        if suspects.is_empty() {
            // Stale list: find the rows in conflict again.
            suspects = (0..m).filter(|&k| a.attacked(k)).collect();
        }
        let s = rng.index(suspects.len());
        let k = suspects[s];
        if !a.attacked(k) {
            suspects.swap_remove(s);
            continue;
        }
        if let Some(g) = guide.as_mut() {
            if let Some(b) = g.best_partner(a, k, moves, fewest, rng) {
                a.swap(k, b);
                g.swapped(a, k, b, moves, rng);
                if a.attacked(b) {
                    suspects.push(b);
                }
            }
        } else {
            random_move(a, k, m, rng, &mut suspects);
        }
        if a.conflicts < best {
            best = a.conflicts;
            since_best = 0;
            if best < fewest {
                fewest = best;
                at_fewest = moves;
                report(fewest);
            }
        } else {
            since_best += 1;
            if moves - at_fewest > stall {
                return Err(Unrepaired {
                    conflicts: a.conflicts,
                    best: fewest,
                    moves,
                    stopped: false,
                });
            }
            if since_best > PATIENCE {
                // Stuck: shake every row in conflict with a random partner.
                suspects = (0..m).filter(|&k| a.attacked(k)).collect();
                for &k in &suspects.clone() {
                    let b = rng.index(m);
                    a.swap(k, b);
                    suspects.push(b);
                }
                best = a.conflicts;
                since_best = 0;
            }
        }
    }
    Ok(moves)
}
