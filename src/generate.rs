//! Building boards: explicitly constructed solutions for any n, and compositions that keep
//! a random subset of a file's queens (the seed paper's test protocol).

use crate::format::{FormatError, Input, RowWriter};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Rows computed per parallel batch while streaming a constructed solution.
const BATCH_ROWS: u64 = 1 << 22;

/// Why no solution can be built.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// n = 2 and n = 3 have no solution.
    #[error("no solution exists for n = {0}")]
    NoSolution(u64),
    /// n out of range.
    #[error("n = {0} is out of range 1..=4294967295")]
    BadN(u64),
    /// Asked to keep more queens than the source has.
    #[error("cannot keep {keep} queens: {path} has {have}")]
    TooMany {
        /// Requested.
        keep: u64,
        /// Available.
        have: u64,
        /// The source file.
        path: String,
    },
    /// Reading or writing failed.
    #[error(transparent)]
    Format(#[from] FormatError),
}

/// The column (1-based) of row `row` (1-based) in the constructed solution of size `n`.
///
/// The classic explicit construction (Hoffman, Loessi and Moore 1969; as in Bernhardsson
/// 1991): the even columns in increasing order, then the odd ones, with small
/// rearrangements when n mod 6 is 2 or 3. Valid for n = 1 and every n >= 4.
pub(crate) fn constructed_column(n: u64, row: u64) -> u64 {
    debug_assert!(n == 1 || n >= 4);
    debug_assert!((1..=n).contains(&row));
    let p = row - 1;
    let evens = n / 2;
    let odds = n - evens;
    match n % 6 {
        2 => {
            // evens 2, 4, ..; odds 3, 1, 7, 9, .., n-1, 5
            if p < evens {
                2 * (p + 1)
            } else {
                match p - evens {
                    0 => 3,
                    1 => 1,
                    q if q == odds - 1 => 5,
                    q => 2 * q + 3,
                }
            }
        }
        3 => {
            // evens 4, 6, .., n-1, 2; odds 5, 7, .., n, 1, 3
            if p < evens {
                if p == evens - 1 { 2 } else { 2 * p + 4 }
            } else {
                match p - evens {
                    q if q == odds - 2 => 1,
                    q if q == odds - 1 => 3,
                    q => 2 * q + 5,
                }
            }
        }
        _ => {
            if p < evens {
                2 * (p + 1)
            } else {
                2 * (p - evens) + 1
            }
        }
    }
}

/// Checks that a constructed solution exists for `n`.
pub fn check_solvable(n: u64) -> Result<(), GenerateError> {
    match n {
        0 => Err(GenerateError::BadN(0)),
        2 | 3 => Err(GenerateError::NoSolution(n)),
        n if n > crate::board::MAX_N => Err(GenerateError::BadN(n)),
        _ => Ok(()),
    }
}

/// Streams the constructed solution of size `n` into `out`, computing batches in parallel.
pub fn write_constructed_solution(n: u64, out: &mut RowWriter) -> Result<(), GenerateError> {
    check_solvable(n)?;
    let mut first = 0;
    let mut rows = Vec::new();
    while first < n {
        let count = BATCH_ROWS.min(n - first);
        rows.clear();
        (0..count as usize)
            .into_par_iter()
            .map(|i| constructed_column(n, first + 1 + i as u64) as u32)
            .collect_into_vec(&mut rows);
        out.write_rows(&rows)?;
        first += count;
    }
    Ok(())
}

/// How many queens to keep: `keep`, or uniformly random in 1..=have-1 (the paper's
/// protocol), drawn from `rng`.
pub(crate) fn choose_keep(keep: Option<u64>, have: u64, rng: &mut ChaCha8Rng) -> u64 {
    keep.unwrap_or_else(|| {
        if have < 2 {
            have.min(1)
        } else {
            rng.random_range(1..have)
        }
    })
}

/// Writes a composition keeping `keep` of the `have` queens of `source` (chosen uniformly
/// among all subsets of that size, by selection sampling in row order so that the input
/// streams through once), or a random number of them when `keep` is `None`.
/// Returns the number kept.
pub fn write_random_composition(
    source: &Input,
    have: u64,
    keep: Option<u64>,
    seed: u64,
    out: &mut RowWriter,
) -> Result<u64, GenerateError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let keep = choose_keep(keep, have, &mut rng);
    if keep > have {
        return Err(GenerateError::TooMany {
            keep,
            have,
            path: source.path().display().to_string(),
        });
    }
    let (mut needed, mut remaining) = (keep, have);
    let mut scratch = Vec::new();
    let mut rows = Vec::new();
    for s in 0..source.segment_count() {
        let bytes = source.segment(s, &mut scratch)?;
        rows.clear();
        for v in crate::format::le::to_rows(bytes) {
            let kept = v != 0 && {
                let take = needed > 0 && rng.random_range(0..remaining) < needed;
                remaining -= 1;
                needed -= take as u64;
                take
            };
            rows.push(if kept { v } else { 0 });
        }
        out.write_rows(&rows)?;
    }
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle's check of a board of `u64` columns.
    fn is_solution(q: &[u64]) -> bool {
        let rows: Vec<u32> = q.iter().map(|&c| u32::try_from(c).unwrap()).collect();
        crate::oracle::is_solution(&rows)
    }

    #[test]
    fn construction_is_a_solution_for_every_small_n() {
        for n in (1..=300u64).filter(|&n| n == 1 || n >= 4) {
            let q: Vec<u64> = (1..=n).map(|r| constructed_column(n, r)).collect();
            assert!(q.iter().all(|&c| (1..=n).contains(&c)), "n = {n}");
            assert!(is_solution(&q), "n = {n}: {q:?}");
        }
    }

    #[test]
    fn no_solution_for_two_and_three() {
        assert!(check_solvable(2).is_err() && check_solvable(3).is_err());
        assert!(check_solvable(1).is_ok() && check_solvable(4).is_ok());
    }
}
