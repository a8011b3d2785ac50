//! Phase 2: random free rows get a random free cell, one queen at a time, until the
//! residual is small enough for the exact end game.

use super::state::BoardState;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// Places queens in random free rows, each on a free cell found by probing the free columns
/// in a random order, until at most `target` rows are free. Returns the number placed, or
/// the row with no free cell that ends this attempt.
pub fn scatter(state: &mut BoardState, target: u64, rng: &mut ChaCha8Rng) -> Result<u64, u64> {
    let (mut rows, mut cols) = state.free_rows_and_columns();
    for i in (1..rows.len()).rev() {
        rows.swap(i, rng.random_range(0..=i));
    }
    let mut placed = 0;
    for &i in &rows {
        if state.free() <= target {
            break;
        }
        // Visit the columns in the order start, start + step, ... (mod len) with a step
        // coprime to len: a random permutation's worth of probing without shuffling.
        let len = cols.len();
        let start = rng.random_range(0..len);
        let step = loop {
            let s = rng.random_range(1..=len);
            if gcd(s, len) == 1 {
                break s;
            }
        };
        let found = (0..len)
            .map(|t| (start + t * step) % len)
            .find(|&c| state.lines.diagonals_free(i, cols[c]));
        let Some(c) = found else {
            return Err(i);
        };
        state.place(i, cols[c]);
        cols.swap_remove(c);
        placed += 1;
    }
    Ok(placed)
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
