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

use super::state::{BoardState, DiagonalPlacer};
use crate::board::Bitmap;
use crate::rng::Rng;
use rayon::prelude::*;

/// Largest number of free rows (and columns) per chunk.
const CHUNK: u64 = 1 << 15;
/// Board rows a chunk should span at most: its diagonal windows (about twice that many
/// bits each) then stay in a core's L2 cache however sparse the free rows are.
const WINDOW_ROWS: u64 = 1 << 18;

/// Rounds over fewer free rows than this, in one batch of chunks, run on one thread: below
/// it threads cost more than they save (BENCHMARKS.md, "Why the engine's constants").
const SERIAL_FREE_ROWS: u64 = 1 << 15;

/// Pairs ahead whose diagonal words are prefetched.
const AHEAD: usize = 12;

/// Free rows per chunk when `free` of `n` rows are free.
fn chunk_size(free: u64, n: u64) -> u64 {
    ((WINDOW_ROWS as u128 * free as u128 / n as u128) as u64).clamp(64, CHUNK)
}

/// What one round did.
#[derive(Debug, Clone, Copy, serde::Serialize, schemars::JsonSchema)]
pub struct Round {
    /// Free rows before the round.
    pub free_before: u64,
    /// Queens placed.
    pub placed: u64,
    /// Seconds taken.
    pub seconds: f64,
    /// Anonymous resident memory at the end of the round (bitmaps, lists), if known.
    pub anonymous_bytes: Option<u64>,
}

/// Free rows above which rows have so many free cells that pairing does not endanger them:
/// there, rounds go on while they place at least 1/64 of the free rows, and the `stall`
/// rule applies only below.
const SAFE_FREE_ROWS: u64 = 1 << 16;

/// Runs pairing rounds until at most `target` rows are free, or a round places fewer than
/// `1/stall` of the free rows (1/64 above [`SAFE_FREE_ROWS`]), or `stop` says so.
/// Returns the rounds run.
pub(crate) fn pair_rounds(
    state: &mut BoardState,
    seed: u64,
    restart: u64,
    target: u64,
    stall: u64,
    stop: &crate::stop::Stop,
) -> Vec<Round> {
    let mut rounds = Vec::new();
    let mut lists: Option<(Vec<u32>, Vec<u32>)> = None;
    while state.free() > target && !stop.now() {
        let free_before = state.free();
        // Each restart's rounds get their own streams: (restart, round) names a round.
        let round = (restart << 32) | rounds.len() as u64;
        let started = std::time::Instant::now();
        // Few free rows: keep them (and the free columns) in lists rather than scanning
        // the whole row and column bitmaps every round.
        if lists.is_none() && free_before <= state.n / LIST_RATIO {
            let (rows, cols) = state.free_rows_and_columns();
            lists = Some((
                rows.into_iter().map(|i| i as u32).collect(),
                cols.into_iter().map(|j| j as u32).collect(),
            ));
        }
        match &mut lists {
            Some((rows, cols)) => {
                list_round(state, rows, cols, seed, round, stop);
                rows.retain(|&i| !state.taken_rows.get(i as u64));
                cols.retain(|&j| !state.lines.columns.get(j as u64));
            }
            None => pairing_round(state, seed, round, stop),
        }
        let placed = free_before - state.free();
        crate::progress::meter().set_free_rows(state.free());
        rounds.push(Round {
            free_before,
            placed,
            seconds: started.elapsed().as_secs_f64(),
            anonymous_bytes: crate::memory::anonymous_rss(),
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
    // Stopped (time limit, Ctrl-C): the run ends UNKNOWN and its board is dropped, so the
    // queens still pending are not worth sorting and writing (seconds at n = 1e9).
    if !stop.now() {
        state.write_pending();
    }
    rounds
}

/// Free rows at most n / LIST_RATIO switch rounds from bitmap scans to lists.
const LIST_RATIO: u64 = 32;

/// A random permutation of the chunks of a round.
fn chunk_permutation(chunks: usize, seed: u64, round: u64) -> Vec<usize> {
    let mut rng = Rng::seeded(seed, &[1, round]);
    let mut pi: Vec<usize> = (0..chunks).collect();
    rng.shuffle(&mut pi);
    pi
}

/// Chunk `t`'s columns shuffled by the chunk's own generator.
fn shuffled(mut cols: Vec<u32>, seed: u64, round: u64, t: usize) -> Vec<u32> {
    let mut rng = Rng::seeded(seed, &[2, round, t as u64]);
    rng.shuffle(&mut cols);
    cols
}

/// Places each (row, column) pair whose diagonals are free and returns the pairs placed.
/// (Re-pairing a chunk pair's leftovers while its windows are in cache was tried: it pairs
/// deeper, which leaves rows without free cells, and made phase 2 fail far more often.)
fn place_pairs(
    placer: &mut DiagonalPlacer,
    rows: &[u32],
    cols: &[u32],
    placed: &mut Vec<(u32, u32)>,
) {
    let len = rows.len().min(cols.len());
    for k in 0..len {
        // With sparse free rows every check is a cache miss: start them early so that they
        // overlap (a prefetch changes nothing on the board, so results are the same).
        if k + AHEAD < len {
            placer.prefetch(rows[k + AHEAD] as u64, cols[k + AHEAD] as u64);
        }
        if placer.place_if_diagonals_free(rows[k] as u64, cols[k] as u64) {
            placed.push((rows[k], cols[k]));
        }
    }
}

/// One round over sorted lists of the free rows and columns; the same chunks, pairs and
/// placements as [`pairing_round`] over the bitmaps.
fn list_round(
    state: &mut BoardState,
    rows: &[u32],
    cols: &[u32],
    seed: u64,
    round: u64,
    stop: &crate::stop::Stop,
) {
    let c = chunk_size(rows.len() as u64, state.n) as usize;
    let slice = |v: &[u32], t: usize| v[t * c..((t + 1) * c).min(v.len())].to_vec();
    run_chunks(
        state,
        rows.len().div_ceil(c),
        seed,
        round,
        stop,
        |_, _, t, u| (slice(rows, t), slice(cols, u)),
    );
}

/// Pairs row chunk t with column chunk pi(t) for every chunk of a round: `gather(rows,
/// columns, t, u)` returns row chunk t and column chunk u given the taken-row and
/// taken-column bitmaps. Chunks go in batches, placed in chunk order on one thread while
/// the next batch is gathered and shuffled on the others. Each chunk's rows and columns
/// are touched only by its own pairs, so gathering a batch ahead of placing the one before
/// sees the same free rows and columns as gathering just before its own turn: the result
/// does not depend on the number of threads.
fn run_chunks(
    state: &mut BoardState,
    chunks: usize,
    seed: u64,
    round: u64,
    stop: &crate::stop::Stop,
    gather: impl Fn(&Bitmap, &Bitmap, usize, usize) -> (Vec<u32>, Vec<u32>) + Sync,
) {
    let pi = chunk_permutation(chunks, seed, round);
    let batch = 4 * rayon::current_num_threads();
    let gather_batch = |rows: &Bitmap, cols: &Bitmap, first: usize| -> Vec<(Vec<u32>, Vec<u32>)> {
        (first..(first + batch).min(chunks))
            .into_par_iter()
            .map(|t| {
                let (r, c) = gather(rows, cols, t, pi[t]);
                (r, shuffled(c, seed, round, t))
            })
            .collect()
    };
    if chunks <= batch && state.free() < SERIAL_FREE_ROWS {
        // Little work: threads would only add hand-offs.
        let (rows, cols, mut placer) = state.split_for_pairing();
        let mut placed = Vec::new();
        for (t, &u) in pi.iter().enumerate() {
            let (r, c) = gather(rows, cols, t, u);
            place_pairs(&mut placer, &r, &shuffled(c, seed, round, t), &mut placed);
        }
        state.take_rows_and_columns(&placed);
        return;
    }
    let mut next = {
        let (rows, cols, _) = state.split_for_pairing();
        gather_batch(rows, cols, 0)
    };
    let mut placed = Vec::new();
    for first in (0..chunks).step_by(batch) {
        if stop.now() {
            return;
        }
        let current = std::mem::take(&mut next);
        placed.clear();
        let (rows, cols, mut placer) = state.split_for_pairing();
        let ahead = first + batch;
        rayon::join(
            || {
                for (r, c) in &current {
                    place_pairs(&mut placer, r, c, &mut placed);
                }
            },
            || {
                if ahead < chunks {
                    next = gather_batch(rows, cols, ahead);
                }
            },
        );
        state.take_rows_and_columns(&placed);
    }
}

/// Where each chunk of `chunk` clear bits of `bits` (over 1..=n) starts, plus the end:
/// chunk t is the clear bits in `starts[t]..starts[t + 1]`.
fn chunk_starts(bits: &Bitmap, n: u64, chunk: u64) -> Vec<u64> {
    let mut starts = bits.every_nth_clear(1, n + 1, chunk);
    starts.push(n + 1);
    starts
}

fn pairing_round(state: &mut BoardState, seed: u64, round: u64, stop: &crate::stop::Stop) {
    let n = state.n;
    let chunk = chunk_size(state.free(), n);
    let rows = || chunk_starts(&state.taken_rows, n, chunk);
    let cols = || chunk_starts(&state.lines.columns, n, chunk);
    let (row_starts, col_starts) = if n < 1 << 20 {
        (rows(), cols())
    } else {
        rayon::join(rows, cols)
    };
    debug_assert_eq!(row_starts.len(), col_starts.len());
    let clear_bits = |bits: &Bitmap, starts: &[u64], t: usize| {
        let mut v = Vec::with_capacity(chunk as usize);
        bits.for_each_clear(starts[t], starts[t + 1], |i| {
            v.push(i as u32);
            true
        });
        v
    };
    run_chunks(
        state,
        row_starts.len() - 1,
        seed,
        round,
        stop,
        |rows, cols, t, u| {
            (
                clear_bits(rows, &row_starts, t),
                clear_bits(cols, &col_starts, u),
            )
        },
    );
}
