//! The closed-form phase: a composition whose given queens all lie on one closed-form
//! solution (the explicit construction under one of the board's symmetries, or a linear
//! solution: `crate::closed_form`) is completed from that solution in one pass, before any
//! search. Such compositions are what `generate solution` and `generate composition` make
//! by default, and at n = 10^9 with rows cleared at random they are the randomized phases'
//! worst case: in the construction a middle row keeps about m^2 / n free cells.

use super::state::BoardState;
use crate::closed_form::ClosedForm;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Rows per work item of the check.
const CHUNK: usize = 1 << 16;

/// Given queens looked at for a second one that fixes the linear candidate.
const SECOND_QUEENS: usize = 64;

/// The closed-form solution every queen of `state` lies on, if any. The first queen, and
/// the first of the next few whose row difference from it is prime to n (it fixes the
/// linear candidate), name the candidates; every other queen must agree. The answer does
/// not depend on the thread count: the survivors are the candidates no row refutes.
pub(super) fn recognise(state: &BoardState) -> Option<ClosedForm> {
    let n = state.n;
    let first = state.taken_rows.next_set(1, n + 1)?;
    let mut later = Vec::new();
    let mut at = first + 1;
    while later.len() < SECOND_QUEENS {
        let Some(row) = state.taken_rows.next_set(at, n + 1) else {
            break;
        };
        later.push(row);
        at = row + 1;
    }
    let second = later
        .iter()
        .copied()
        .find(|&r| crate::closed_form::gcd(r - first, n) == 1)
        .or(later.first().copied());
    let queen = |row: u64| (row, state.rows.get(row));
    let candidates = ClosedForm::candidates(n, queen(first), second.map(queen));
    if candidates.is_empty() {
        return None;
    }
    debug_assert!(candidates.len() <= 32);
    let alive = AtomicU32::new(((1u64 << candidates.len()) - 1) as u32);
    state
        .rows
        .rows()
        .par_chunks(CHUNK)
        .enumerate()
        .for_each_init(Vec::new, |expected, (k, chunk)| {
            let mut mask = alive.load(Relaxed);
            let first_row = (k * CHUNK + 1) as u64;
            if mask.count_ones() <= 2 {
                // One or two candidates left (the usual case after the first rows; the
                // construction is its own half-turn image, so two survive on it): each
                // one's columns for the whole chunk, then one comparison per row that the
                // compiler vectorises.
                let mut m = mask;
                while m != 0 {
                    let b = m.trailing_zeros();
                    m &= m - 1;
                    expected.resize(chunk.len(), 0);
                    candidates[b as usize].columns_le(n, first_row, expected);
                    let agrees = chunk
                        .iter()
                        .zip(expected.iter())
                        .fold(true, |all, (&v, &e)| all & ((v == 0) | (v == e)));
                    if !agrees {
                        mask &= !(1 << b);
                    }
                }
                alive.fetch_and(mask, Relaxed);
                return;
            }
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
                    let b = m.trailing_zeros();
                    m &= m - 1;
                    if candidates[b as usize].column(n, row) != col {
                        mask &= !(1 << b);
                    }
                }
                // Refutations found elsewhere stop this item early too.
                if j % 4096 == 4095 {
                    mask &= alive.fetch_and(mask, Relaxed);
                }
            }
            alive.fetch_and(mask, Relaxed);
        });
    let mask = alive.into_inner();
    (mask != 0).then(|| candidates[mask.trailing_zeros() as usize])
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
