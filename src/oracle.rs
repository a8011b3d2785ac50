//! The slow, obvious n-queens checks every test compares the engines against.
//!
//! One file for unit and integration tests alike: the library compiles it under
//! `#[cfg(test)]`, `tests/it/common` includes it by path. It uses nothing of the crate, so that
//! a bug in the engines cannot hide in the oracle too: rows are 0 (empty) or the 1-based
//! column, attacks are a predicate on two squares, and completions are found by trying
//! every column of every empty row in order.
#![allow(dead_code)]

/// Whether queens on the squares `a` and `b` (row, column) attack each other.
pub fn attack(a: (i64, i64), b: (i64, i64)) -> bool {
    let (dr, dc) = (b.0 - a.0, b.1 - a.1);
    dr == 0 || dc == 0 || dr.abs() == dc.abs()
}

/// Every pair of rows (1-based, earlier first) whose queens attack each other, in the
/// order of the later row; values 0 and above n hold no queen.
pub fn conflicting_pairs(rows: &[u32]) -> Vec<(u64, u64)> {
    let n = rows.len() as u64;
    let queen = |r: usize| (1..=n).contains(&(rows[r] as u64));
    let mut pairs = Vec::new();
    for b in 0..rows.len() {
        for a in 0..b {
            if queen(a)
                && queen(b)
                && attack((a as i64, rows[a] as i64), (b as i64, rows[b] as i64))
            {
                pairs.push((a as u64 + 1, b as u64 + 1));
            }
        }
    }
    pairs
}

/// Σ over the lines of the board (columns and both diagonals) of the queens on it less
/// one: for every queen, how many of its three lines an earlier queen already holds.
pub fn conflict_count(rows: &[u32]) -> u64 {
    let n = rows.len() as i64;
    let queens: Vec<(i64, i64)> = (0..rows.len())
        .filter(|&r| (1..=n).contains(&(rows[r] as i64)))
        .map(|r| (r as i64 + 1, rows[r] as i64))
        .collect();
    let mut count = 0;
    for (b, &(rb, cb)) in queens.iter().enumerate() {
        let earlier = &queens[..b];
        count += earlier.iter().any(|&(_, c)| c == cb) as u64
            + earlier.iter().any(|&(r, c)| c - r == cb - rb) as u64
            + earlier.iter().any(|&(r, c)| c + r == cb + rb) as u64;
    }
    count
}

/// Whether no two queens of `rows` attack each other (every value in 0..=n).
pub fn is_composition(rows: &[u32]) -> bool {
    rows.iter().all(|&c| c as usize <= rows.len()) && conflicting_pairs(rows).is_empty()
}

/// Whether `rows` is a solution: a composition with a queen in every row.
pub fn is_solution(rows: &[u32]) -> bool {
    rows.iter().all(|&c| c != 0) && is_composition(rows)
}

/// Whether a queen may go on the empty row `row` (0-based) at column `col` (1-based).
pub fn free_cell(rows: &[u32], row: usize, col: u32) -> bool {
    rows[row] == 0
        && rows
            .iter()
            .enumerate()
            .all(|(r, &c)| c == 0 || !attack((r as i64, c as i64), (row as i64, col as i64)))
}

/// The first completion of the composition `rows` in lexicographic order of the empty
/// rows' columns, or `None` when there is none.
pub fn first_completion(rows: &[u32]) -> Option<Vec<u32>> {
    fn go(q: &mut Vec<u32>, row: usize) -> bool {
        if row == q.len() {
            return true;
        }
        if q[row] != 0 {
            return go(q, row + 1);
        }
        for col in 1..=q.len() as u32 {
            if free_cell(q, row, col) {
                q[row] = col;
                if go(q, row + 1) {
                    return true;
                }
                q[row] = 0;
            }
        }
        false
    }
    let mut q = rows.to_vec();
    go(&mut q, 0).then_some(q)
}

/// Every completion of the composition `rows`, in lexicographic order.
pub fn completions(rows: &[u32]) -> Vec<Vec<u32>> {
    fn go(q: &mut Vec<u32>, row: usize, out: &mut Vec<Vec<u32>>) {
        if row == q.len() {
            out.push(q.clone());
            return;
        }
        if q[row] != 0 {
            return go(q, row + 1, out);
        }
        for col in 1..=q.len() as u32 {
            if free_cell(q, row, col) {
                q[row] = col;
                go(q, row + 1, out);
                q[row] = 0;
            }
        }
    }
    let mut out = Vec::new();
    go(&mut rows.to_vec(), 0, &mut out);
    out
}

/// Whether the composition `rows` has a completion.
pub fn completable(rows: &[u32]) -> bool {
    first_completion(rows).is_some()
}

/// The number of solutions of the n-board (every row filled), by trying every column.
pub fn count_solutions(n: usize) -> u64 {
    fn go(q: &mut Vec<u32>, row: usize) -> u64 {
        if row == q.len() {
            return 1;
        }
        let mut total = 0;
        for col in 1..=q.len() as u32 {
            if free_cell(q, row, col) {
                q[row] = col;
                total += go(q, row + 1);
                q[row] = 0;
            }
        }
        total
    }
    go(&mut vec![0; n], 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle itself against known numbers (OEIS A000170) and hand-checked boards.
    #[test]
    fn the_oracle_knows_the_classics() {
        let known = [1u64, 0, 0, 2, 10, 4, 40, 92];
        for (n, &count) in (1..=8).zip(&known) {
            assert_eq!(count_solutions(n), count, "n = {n}");
        }
        assert!(is_solution(&[2, 4, 1, 3]));
        assert!(!is_solution(&[2, 4, 1, 0]));
        assert!(is_composition(&[2, 4, 1, 0]));
        assert!(!is_composition(&[1, 2, 0, 0]));
        assert!(!is_composition(&[5, 0, 0, 0]));
        assert_eq!(conflicting_pairs(&[1, 0, 3, 3]), vec![(1, 3), (3, 4)]);
        assert_eq!(first_completion(&[2, 0, 0, 0]), Some(vec![2, 4, 1, 3]));
        assert_eq!(first_completion(&[1, 0, 0, 0]), None);
        assert_eq!(
            completions(&[0, 0, 0, 0]),
            vec![vec![2, 4, 1, 3], vec![3, 1, 4, 2]]
        );
    }
}
