//! The residual: the free rows x free columns of a board projected into a small matrix of
//! free cells, and the certificates that can be read off it.

use super::Certificate;
use crate::board::{Bitmap, LineBitmaps};

/// Free rows x free columns with a bitset of free cells per row.
#[derive(Clone)]
pub(crate) struct Residual {
    /// Free rows (1-based), increasing.
    pub rows: Vec<u64>,
    /// Free columns (1-based), increasing; as many as rows.
    pub cols: Vec<u64>,
    words: usize,
    cells: Vec<u64>,
    /// Free cells (residual row, column) the search never places: cells in no completion,
    /// each refuted by the relaxation ([`super::relaxation::refuted_cells`]). They stay
    /// free cells (of the CNF, the certificates and the proofs); the search skips them.
    refuted: Vec<(usize, usize)>,
    /// Pairs of free cells in no completion together, each pair refuted by the relaxation
    /// ([`super::relaxation::refuted_pairs`]): where the search has an attack table, a
    /// queen on either closes the other, as if it attacked it.
    refuted_pairs: Vec<[(usize, usize); 2]>,
}

impl Residual {
    /// Projects the free part of an `n`-board holding `queens` ((row, column), 1-based, one
    /// per row and column, not attacking each other).
    pub(crate) fn from_queens(n: u64, queens: &[(u64, u64)]) -> Residual {
        // Bitmaps (0.63 bytes per row with the lines), as the completion engine keeps them:
        // n can be 10^9 here.
        let mut lines = LineBitmaps::new(n);
        let mut rows = Bitmap::new(n + 1);
        for &(i, j) in queens {
            lines.mark(i, j);
            rows.set(i);
        }
        Self::from_marks(&rows, &lines)
    }

    /// The free part of a board as the verifier marks it (`Marks`), and
    /// as the completion engine keeps it: taken rows (bit i for row i, 1-based) and lines.
    /// The one way a residual is made (the completion engine's end game and certificates,
    /// the CNF export, the count of a board with few free rows).
    pub(crate) fn from_marks(rows: &Bitmap, lines: &LineBitmaps<Bitmap>) -> Residual {
        let n = lines.n;
        let free = |bits: &Bitmap| {
            let mut v = Vec::new();
            bits.for_each_clear(1, n + 1, |i| {
                v.push(i);
                true
            });
            v
        };
        Self::build(free(rows), free(&lines.columns), |i, j| {
            lines.diagonals_free(i, j)
        })
    }

    /// `order` (residual rows) sorted, stably, nearest the middle of the free rows' span
    /// first: the order in which the exact search breaks ties between rows of equally few
    /// free cells. A queen near the middle closes more cells through its longer
    /// diagonals, so its subtree is smaller: on Excluded Diagonals (n = 25-29) the trees
    /// of infeasible residuals were 15-30 % smaller than with ties broken in a random
    /// order, and 20 % larger with the edge rows first (BENCHMARKS.md).
    pub(crate) fn middle_first(&self, order: &mut [usize]) {
        let (Some(&top), Some(&bottom)) = (self.rows.first(), self.rows.last()) else {
            return;
        };
        let twice_middle = top as i128 + bottom as i128;
        order.sort_by_key(|&r| (2 * self.rows[r] as i128 - twice_middle).unsigned_abs());
    }

    /// A residual over `rows` x `cols` whose free cells are those where `free(i, j)`.
    pub(crate) fn build(
        rows: Vec<u64>,
        cols: Vec<u64>,
        free: impl Fn(u64, u64) -> bool,
    ) -> Residual {
        debug_assert_eq!(rows.len(), cols.len());
        let words = cols.len().div_ceil(64).max(1);
        let mut cells = vec![0u64; rows.len() * words];
        for (r, &i) in rows.iter().enumerate() {
            let bits = &mut cells[r * words..(r + 1) * words];
            // Without a branch: a board's free cells are as unpredictable as its queens.
            for (c, &j) in cols.iter().enumerate() {
                bits[c >> 6] |= u64::from(free(i, j)) << (c & 63);
            }
        }
        Residual {
            rows,
            cols,
            words,
            cells,
            refuted: Vec::new(),
            refuted_pairs: Vec::new(),
        }
    }

    /// The same residual with `cells` (residual row, column; free cells, each in no
    /// completion) skipped by the search.
    pub(crate) fn with_refuted(mut self, cells: Vec<(usize, usize)>) -> Residual {
        debug_assert!(cells.iter().all(|&(r, c)| self.is_free(r, c)));
        self.refuted = cells;
        self
    }

    /// The residual with the free cells `cells` (each in no completion) taken out: the
    /// search's rows and columns then count only the cells left, unlike
    /// [`Residual::with_refuted`]'s.
    pub(crate) fn without(&self, cells: &[(usize, usize)]) -> Residual {
        self.placed(&[], cells)
    }

    /// The same residual with `pairs` (of free cells that do not attack each other, no
    /// two of them in one completion) taken as attacking each other by the search.
    pub(crate) fn with_refuted_pairs(mut self, pairs: Vec<[(usize, usize); 2]>) -> Residual {
        debug_assert!(pairs.iter().flatten().all(|&(r, c)| self.is_free(r, c)));
        self.refuted_pairs = pairs;
        self
    }

    /// The pairs the search takes as attacking ([`Residual::with_refuted_pairs`]).
    pub(crate) fn refuted_pairs(&self) -> &[[(usize, usize); 2]] {
        &self.refuted_pairs
    }

    /// The cells the search skips ([`Residual::with_refuted`]).
    pub(crate) fn refuted(&self) -> &[(usize, usize)] {
        &self.refuted
    }

    /// Whether residual cell `(r, c)` is free.
    pub(crate) fn is_free(&self, r: usize, c: usize) -> bool {
        self.row_bits(r)[c >> 6] >> (c & 63) & 1 == 1
    }

    /// The residual left when queens are placed on free cells `queens` (that do not attack
    /// each other) and the free cells `out` are taken out: their rows and columns go, and
    /// with them every cell the queens attack.
    pub(crate) fn placed(&self, queens: &[(usize, usize)], out: &[(usize, usize)]) -> Residual {
        let diagonals = |i: u64, j: u64| (j as i128 - i as i128, i + j);
        let taken: Vec<(i128, u64)> = queens
            .iter()
            .map(|&(r, c)| diagonals(self.rows[r], self.cols[c]))
            .collect();
        let keep = |gone: &[usize], v: &[u64]| -> Vec<u64> {
            let kept = v.iter().enumerate().filter(|(k, _)| !gone.contains(k));
            kept.map(|(_, &x)| x).collect()
        };
        let (gone_rows, gone_cols): (Vec<usize>, Vec<usize>) = queens.iter().copied().unzip();
        let (rows, cols) = (keep(&gone_rows, &self.rows), keep(&gone_cols, &self.cols));
        Residual::build(rows, cols, |i2, j2| {
            let r2 = self.rows.binary_search(&i2).expect("a row of the residual");
            let c2 = self
                .cols
                .binary_search(&j2)
                .expect("a column of the residual");
            let (g1, g2) = diagonals(i2, j2);
            self.is_free(r2, c2)
                && !out.contains(&(r2, c2))
                && taken.iter().all(|&(t1, t2)| t1 != g1 && t2 != g2)
        })
    }

    /// Number of free rows (= free columns).
    pub(crate) fn size(&self) -> usize {
        self.rows.len()
    }

    /// 64-bit words per row bitset.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// The free-cell bitset of residual row `r`.
    pub(crate) fn row_bits(&self, r: usize) -> &[u64] {
        &self.cells[r * self.words..(r + 1) * self.words]
    }

    /// Free rows and free cells.
    pub(crate) fn extent(&self) -> (u64, u64) {
        (self.size() as u64, self.free_cells())
    }

    /// Number of free cells.
    pub(crate) fn free_cells(&self) -> u64 {
        self.cells.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// A proof that no completion exists, when one can be read off the residual without
    /// search: an empty row, an empty column, or a set of rows violating Hall's condition
    /// (found through a maximum matching of rows to columns over free cells).
    pub(crate) fn certificate(&self) -> Option<Certificate> {
        let m = self.size();
        if let Some(r) = (0..m).find(|&r| self.row_bits(r).iter().all(|&w| w == 0)) {
            return Some(Certificate::EmptyRow { row: self.rows[r] });
        }
        let mut any = vec![0u64; self.words];
        for r in 0..m {
            for (a, b) in any.iter_mut().zip(self.row_bits(r)) {
                *a |= b;
            }
        }
        if let Some(c) = (0..m).find(|&c| any[c >> 6] & (1 << (c & 63)) == 0) {
            return Some(Certificate::EmptyColumn {
                column: self.cols[c],
            });
        }
        let (row_of_col, unmatched) = self.max_matching();
        let u = unmatched?;
        // Rows reachable from the unmatched row by alternating paths: their columns are all
        // matched (else the matching could grow), to rows of the same set; so the set has
        // one row more than its columns.
        let mut in_set = vec![false; m];
        let mut seen_col = vec![false; m];
        let mut stack = vec![u];
        in_set[u] = true;
        while let Some(r) = stack.pop() {
            for c in ones(self.row_bits(r)) {
                if !seen_col[c] {
                    seen_col[c] = true;
                    let r2 =
                        row_of_col[c].expect("a maximum matching leaves no reachable column free");
                    if !in_set[r2] {
                        in_set[r2] = true;
                        stack.push(r2);
                    }
                }
            }
        }
        let rows = (0..m)
            .filter(|&r| in_set[r])
            .map(|r| self.rows[r])
            .collect();
        let columns = (0..m)
            .filter(|&c| seen_col[c])
            .map(|c| self.cols[c])
            .collect();
        Some(Certificate::Hall { rows, columns })
    }

    /// A maximum matching of rows to columns (Kuhn's augmenting paths over bitsets):
    /// for each column its row, and one unmatched row if the matching is not perfect.
    fn max_matching(&self) -> (Vec<Option<usize>>, Option<usize>) {
        let m = self.size();
        let mut row_of_col: Vec<Option<usize>> = vec![None; m];
        let mut col_of_row: Vec<Option<usize>> = vec![None; m];
        // Greedy start: most rows match at once.
        for (r, slot) in col_of_row.iter_mut().enumerate() {
            if let Some(c) = ones(self.row_bits(r)).find(|&c| row_of_col[c].is_none()) {
                row_of_col[c] = Some(r);
                *slot = Some(c);
            }
        }
        let mut visited = vec![0u64; self.words];
        for r in 0..m {
            if col_of_row[r].is_some() {
                continue;
            }
            visited.iter_mut().for_each(|w| *w = 0);
            if !self.augment(r, &mut visited, &mut row_of_col, &mut col_of_row) {
                return (row_of_col, Some(r));
            }
        }
        (row_of_col, None)
    }

    /// Iterative depth-first search for an augmenting path from row `start`.
    fn augment(
        &self,
        start: usize,
        visited: &mut [u64],
        row_of_col: &mut [Option<usize>],
        col_of_row: &mut [Option<usize>],
    ) -> bool {
        // Stack of (row, column taken to reach the next row).
        let mut path: Vec<(usize, usize)> = Vec::new();
        let mut r = start;
        loop {
            let next = self
                .row_bits(r)
                .iter()
                .zip(visited.iter())
                .enumerate()
                .find_map(|(w, (&bits, &seen))| {
                    let open = bits & !seen;
                    (open != 0).then(|| w * 64 + open.trailing_zeros() as usize)
                });
            match next {
                Some(c) => {
                    visited[c >> 6] |= 1 << (c & 63);
                    match row_of_col[c] {
                        None => {
                            // Flip the path: each row takes the column that led onwards.
                            path.push((r, c));
                            for &(pr, pc) in &path {
                                row_of_col[pc] = Some(pr);
                                col_of_row[pr] = Some(pc);
                            }
                            return true;
                        }
                        Some(r2) => {
                            path.push((r, c));
                            r = r2;
                        }
                    }
                }
                None => match path.pop() {
                    Some((pr, _)) => r = pr,
                    None => return false,
                },
            }
        }
    }
}

/// The indices of the set bits of a bitset.
pub(crate) fn ones(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        let mut b = word;
        std::iter::from_fn(move || {
            (b != 0).then(|| {
                let i = w * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                i
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_matrix(m: &[&str]) -> Residual {
        let k = m.len() as u64;
        Residual::build((1..=k).collect(), (1..=k).collect(), |i, j| {
            m[i as usize - 1].as_bytes()[j as usize - 1] == b'1'
        })
    }

    #[test]
    fn perfect_matching_gives_no_certificate() {
        assert_eq!(from_matrix(&["110", "011", "101"]).certificate(), None);
    }

    #[test]
    fn hall_violation_is_found_and_is_real() {
        // Rows 1, 2, 3 only use columns 1 and 2.
        let r = from_matrix(&["1100", "0100", "1000", "1111"]);
        match r.certificate() {
            Some(Certificate::Hall { rows, columns }) => {
                assert!(columns.len() < rows.len());
                for &i in &rows {
                    for j in 1..=4u64 {
                        if r.row_bits(i as usize - 1)[0] & (1 << (j - 1)) != 0 {
                            assert!(columns.contains(&j));
                        }
                    }
                }
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn empty_row_and_column() {
        assert_eq!(
            from_matrix(&["11", "00"]).certificate(),
            Some(Certificate::EmptyRow { row: 2 })
        );
        assert_eq!(
            from_matrix(&["10", "10"]).certificate(),
            Some(Certificate::EmptyColumn { column: 2 })
        );
    }
}
