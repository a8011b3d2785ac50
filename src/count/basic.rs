//! Wirth's backtracking with a check function, as Łajtar's "basic backtracking": each
//! candidate square is checked against every queen placed above it. Kept as the reference
//! point for the benchmark of `--algorithm basic` against the fast engine.

/// The number of n-queens solutions, with the vertical mirror halving the first row (as all of
/// Łajtar's variants do).
pub fn count_queens(n: u32) -> u64 {
    let n = n as usize;
    if n == 0 {
        return 0;
    }
    let mut cols = vec![0usize; n];
    let mut total = 0;
    for first in 0..n.div_ceil(2) {
        cols[0] = first;
        let found = place(&mut cols, 1, n);
        total += if n % 2 == 1 && first == n / 2 {
            found
        } else {
            2 * found
        };
    }
    total
}

fn place(cols: &mut [usize], row: usize, n: usize) -> u64 {
    if row == n {
        return 1;
    }
    let mut found = 0;
    for c in 0..n {
        if promising(cols, row, c) {
            cols[row] = c;
            found += place(cols, row + 1, n);
        }
    }
    found
}

/// The check function: is (`row`, `col`) free of every queen in the rows above?
fn promising(cols: &[usize], row: usize, col: usize) -> bool {
    (0..row).all(|r| {
        let c = cols[r];
        c != col && row - r != c.abs_diff(col)
    })
}
