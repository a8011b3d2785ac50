//! Phase 2: queens on random free cells, riskiest rows first, until the residual is small
//! enough for the exact end game.
//!
//! A row with few free cells is at risk: a queen elsewhere may close its last one. The seed
//! paper's end game takes the row with the fewest free cells first (minimum risk); counting
//! them exactly costs a scan of every free column per row, so here each row's count is
//! estimated from a few random probes, rows are taken in increasing estimate, and the
//! estimates are refreshed each time half of the rows have been placed (exact counts cost
//! more and saved no dead end: BENCHMARKS.md, "Why the engine's constants").

use super::state::BoardState;
use crate::rng::Rng;
use crate::stop::Stop;

/// Random columns probed per row to estimate its free cells.
const PROBES: usize = 32;

/// Why phase 2 stopped short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Short {
    /// A row without any free cell was met.
    DeadRow {
        /// The row.
        row: u64,
        /// Queens placed by this run before it.
        placed: u64,
    },
    /// The run was asked to stop (phase 2 on millions of free rows takes minutes).
    Stopped,
}

/// Placements between two looks at the stop.
const POLL_EVERY: u64 = 1 << 12;

/// Places queens until at most `target` rows are free, polling `stop`. Returns the number
/// placed, or why it stopped short.
pub(super) fn scatter(
    state: &mut BoardState,
    target: u64,
    rng: &mut Rng,
    stop: &Stop,
) -> Result<u64, Short> {
    let (mut rows, mut cols) = state.free_rows_and_columns();
    let mut placed = 0;
    while state.free() > target {
        // Shuffle first so that equal estimates come in random order.
        rng.shuffle(&mut rows);
        let len = cols.len();
        let mut keyed: Vec<(usize, u64)> = rows
            .iter()
            .map(|&i| {
                let hits = (0..PROBES.min(len))
                    .filter(|_| state.lines.diagonals_free(i, cols[rng.index(len)]))
                    .count();
                (hits, i)
            })
            .collect();
        keyed.sort_by_key(|&(hits, _)| hits);
        // Place the riskier half (at least one row), then estimate again.
        let batch = (keyed.len() / 2).max(1);
        let mut done = 0;
        for &(_, i) in &keyed[..batch] {
            if state.free() <= target {
                break;
            }
            if placed % POLL_EVERY == POLL_EVERY - 1 && stop.now() {
                return Err(Short::Stopped);
            }
            let c = random_free_column(state, i, &cols, rng)
                .ok_or(Short::DeadRow { row: i, placed })?;
            state.place(i, cols[c]);
            cols.swap_remove(c);
            placed += 1;
            done += 1;
        }
        rows = keyed[done..].iter().map(|&(_, i)| i).collect();
    }
    Ok(placed)
}

/// A random index into `cols` whose column is free in row `i`, probing every column once
/// in the order start, start + step, ... (mod len) with a step coprime to len.
fn random_free_column(state: &BoardState, i: u64, cols: &[u64], rng: &mut Rng) -> Option<usize> {
    let len = cols.len();
    let start = rng.index(len);
    let step = loop {
        let s = 1 + rng.index(len);
        if gcd(s, len) == 1 {
            break s;
        }
    };
    (0..len)
        .map(|t| (start + t * step) % len)
        .find(|&c| state.lines.diagonals_free(i, cols[c]))
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
