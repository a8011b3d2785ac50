//! Phase 1: randomized pairing of free rows with free columns, in blocks.
//!
//! The seed paper shuffles all free rows and all free columns and places each pair whose
//! diagonals are free, round after round. At n = 1e9 such a global shuffle makes every
//! placement touch random cache lines of 250 MB diagonal bitmaps. Here each round cuts the
//! free rows (in row order) and the free columns (in column order) into chunks of equal
//! count, pairs row chunk t with column chunk pi(t) for a random permutation pi, and matches
//! rows to columns at random inside each chunk pair: the diagonals one chunk pair touches lie
//! in two windows about as wide as its row and column ranges, which stay in cache. Across
//! chunk pairs, pi spreads the placements over all diagonals as a global shuffle would.
//!
//! Every chunk's shuffle comes from its own generator, seeded by (seed, round, chunk): chunks
//! are gathered and shuffled in parallel, placed in order on one thread, and the result does
//! not depend on the number of threads.

use super::seeded_rng;
use super::state::BoardState;
use rand::RngExt;
use rayon::prelude::*;

/// Free rows (and columns) per chunk.
const CHUNK: u64 = 1 << 15;

/// What one round did.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Round {
    /// Free rows before the round.
    pub free_before: u64,
    /// Queens placed.
    pub placed: u64,
}

/// Free rows above which rows have so many free cells that pairing does not endanger them:
/// there, rounds go on while they place at least 1/64 of the free rows, and the `stall`
/// rule applies only below.
const SAFE_FREE_ROWS: u64 = 1 << 16;

/// Runs pairing rounds until at most `target` rows are free, or a round places fewer than
/// `1/stall` of the free rows (1/64 above [`SAFE_FREE_ROWS`]), or `stop` says so.
/// Returns the rounds run.
pub fn pair_rounds(
    state: &mut BoardState,
    seed: u64,
    target: u64,
    stall: u64,
    stop: &dyn Fn() -> bool,
) -> Vec<Round> {
    let mut rounds = Vec::new();
    while state.free() > target && !stop() {
        let free_before = state.free();
        pairing_round(state, seed, rounds.len() as u64, stop);
        let placed = free_before - state.free();
        rounds.push(Round {
            free_before,
            placed,
        });
        let stall = if state.free() > SAFE_FREE_ROWS {
            64
        } else {
            stall
        };
        if placed * stall < free_before {
            break;
        }
    }
    rounds
}

/// Positions (in a bitmap scan of 1..=n) where each chunk of `chunk` clear bits starts,
/// plus the end: chunk t is the clear bits in `starts[t]..starts[t + 1]`.
fn chunk_starts(scan: impl Fn(&mut dyn FnMut(u64) -> bool), n: u64, chunk: u64) -> Vec<u64> {
    let mut starts = Vec::new();
    let mut seen = 0u64;
    scan(&mut |i| {
        if seen.is_multiple_of(chunk) {
            starts.push(i);
        }
        seen += 1;
        true
    });
    starts.push(n + 1);
    starts
}

fn pairing_round(state: &mut BoardState, seed: u64, round: u64, stop: &dyn Fn() -> bool) {
    let n = state.n;
    let row_starts = chunk_starts(|f| state.for_each_free_row(f), n, CHUNK);
    let col_starts = chunk_starts(|f| state.for_each_free_column(f), n, CHUNK);
    let chunks = row_starts.len() - 1;
    debug_assert_eq!(chunks, col_starts.len() - 1);
    let mut rng = seeded_rng(seed, &[1, round]);
    let mut pi: Vec<usize> = (0..chunks).collect();
    for i in (1..chunks).rev() {
        pi.swap(i, rng.random_range(0..=i));
    }
    let batch = 4 * rayon::current_num_threads();
    for first in (0..chunks).step_by(batch) {
        if stop() {
            return;
        }
        let last = (first + batch).min(chunks);
        let st = &*state;
        let pairs: Vec<(Vec<u32>, Vec<u32>)> = (first..last)
            .into_par_iter()
            .map(|t| {
                let mut rows = Vec::with_capacity(CHUNK as usize);
                st.taken_rows
                    .for_each_clear(row_starts[t], row_starts[t + 1], |i| {
                        rows.push(i as u32);
                        true
                    });
                let u = pi[t];
                let mut cols = Vec::with_capacity(CHUNK as usize);
                st.lines
                    .columns
                    .for_each_clear(col_starts[u], col_starts[u + 1], |j| {
                        cols.push(j as u32);
                        true
                    });
                let mut rng = seeded_rng(seed, &[2, round, t as u64]);
                for i in (1..cols.len()).rev() {
                    cols.swap(i, rng.random_range(0..=i));
                }
                (rows, cols)
            })
            .collect();
        // Each chunk's rows and columns are touched only by its own pairs, so gathering
        // ahead of placing sees the same free rows and columns as gathering just before.
        for (rows, cols) in pairs {
            for (&i, &j) in rows.iter().zip(&cols) {
                let (i, j) = (i as u64, j as u64);
                if state.lines.diagonals_free(i, j) {
                    state.place(i, j);
                }
            }
        }
    }
}
