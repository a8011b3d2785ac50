//! The free cells of a residual on each diagonal: how the search finds a queen's attacks
//! where no attack table is built ([`Search`](super::search)'s walk).
//!
//! A queen on board cell (i, j) attacks, in the residual, its column in every open row and
//! the free cells on its two diagonals. The cells of each diagonal are listed once, when
//! the search's board is made, so a placement visits the rows for its column and then only
//! the few cells on its diagonals. (Before, each placement walked every open row and found
//! both diagonal partners in it by two pointers over the sorted columns: with no table, that
//! walk was most of completing a board of 100 rows with 30-60 of them free, BENCHMARKS.md,
//! "Python package".)

use super::bits::Bits;

/// The cells of a residual on each diagonal, grouped: D1 diagonals (column − row), then D2
/// diagonals (column + row).
pub(super) struct Diagonals {
    /// (row label, column label) of every free cell on each diagonal, a diagonal's cells
    /// together: group `g` is `cells[start[g]..start[g + 1]]`.
    cells: Vec<(u16, u16)>,
    start: Vec<u32>,
    d1: Groups,
    d2: Groups,
    /// What is added to a D1 key to keep it non-negative: the largest board row.
    lift: u64,
}

/// The group of each diagonal key that has cells.
enum Groups {
    /// Group `first_group + key - first`, for keys spanning few values: one subtraction.
    Dense { first: u64, first_group: usize },
    /// The keys that have cells, sorted; group `first_group + index`.
    Sorted { keys: Vec<u64>, first_group: usize },
}

/// Keys spanning up to this many values per cell (plus a constant) take dense groups, whose
/// empty ones cost a `u32` each.
const DENSE_SPAN_PER_CELL: u64 = 4;

impl Groups {
    /// Groups for `keys` (one per cell, any order, repeats allowed), numbered from
    /// `first_group`; the number of groups.
    fn new(keys: &[u64], first_group: usize) -> (Groups, usize) {
        let (Some(&lo), Some(&hi)) = (keys.iter().min(), keys.iter().max()) else {
            return (
                Groups::Dense {
                    first: 0,
                    first_group,
                },
                0,
            );
        };
        if hi - lo <= DENSE_SPAN_PER_CELL * keys.len() as u64 + 64 {
            return (
                Groups::Dense {
                    first: lo,
                    first_group,
                },
                (hi - lo + 1) as usize,
            );
        }
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let count = sorted.len();
        (
            Groups::Sorted {
                keys: sorted,
                first_group,
            },
            count,
        )
    }

    /// The group of `key`, which must be one of the keys the groups were made from.
    #[inline(always)]
    fn of(&self, key: u64) -> usize {
        match self {
            Groups::Dense { first, first_group } => first_group + (key - first) as usize,
            Groups::Sorted { keys, first_group } => {
                first_group + keys.binary_search(&key).expect("a key with cells")
            }
        }
    }
}

impl Diagonals {
    /// The diagonals of the free cells `cells` (per row label) of a residual on board rows
    /// `rows` and columns `cols` (per label).
    pub(super) fn new<B: Bits>(rows: &[u64], cols: &[u64], cells: &[B]) -> Diagonals {
        let lift = rows.iter().copied().max().unwrap_or(0);
        let mut free: Vec<(u16, u16)> = Vec::new();
        for (r, set) in cells.iter().enumerate() {
            set.each(|c| free.push((r as u16, c as u16)));
        }
        let key1 = |&(r, c): &(u16, u16)| cols[c as usize] + lift - rows[r as usize];
        let key2 = |&(r, c): &(u16, u16)| cols[c as usize] + rows[r as usize];
        let keys1: Vec<u64> = free.iter().map(key1).collect();
        let keys2: Vec<u64> = free.iter().map(key2).collect();
        let (d1, g1) = Groups::new(&keys1, 0);
        let (d2, g2) = Groups::new(&keys2, g1);
        // A counting sort of the cells by group, D1 and D2 at once.
        let groups = g1 + g2;
        let mut start = vec![0u32; groups + 1];
        let of: Vec<[usize; 2]> = keys1
            .iter()
            .zip(&keys2)
            .map(|(&k1, &k2)| [d1.of(k1), d2.of(k2)])
            .collect();
        for g in of.iter().flatten() {
            start[g + 1] += 1;
        }
        for g in 0..groups {
            start[g + 1] += start[g];
        }
        let mut next = start.clone();
        let mut grouped = vec![(0u16, 0u16); 2 * free.len()];
        for (&cell, gs) in free.iter().zip(&of) {
            for &g in gs {
                grouped[next[g] as usize] = cell;
                next[g] += 1;
            }
        }
        Diagonals {
            cells: grouped,
            start,
            d1,
            d2,
            lift,
        }
    }

    /// The free cells on the D1 and the D2 diagonal of free cell `(r, c)` (board row `i`,
    /// column `j`), the cell itself included in both.
    #[inline(always)]
    pub(super) fn through(&self, i: u64, j: u64) -> [&[(u16, u16)]; 2] {
        let group = |g: usize| &self.cells[self.start[g] as usize..self.start[g + 1] as usize];
        [
            group(self.d1.of(j + self.lift - i)),
            group(self.d2.of(j + i)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::Diagonals;

    /// Every cell's lists hold exactly the free cells on its diagonals, with dense and with
    /// sorted groups (rows and columns scattered over a board of 10^9).
    #[test]
    fn through_lists_the_cells_on_each_diagonal() {
        let cases: [(Vec<u64>, Vec<u64>); 2] = [
            (vec![3, 4, 7, 8, 9], vec![1, 2, 5, 6, 10]),
            (
                vec![5, 1_000, 999_999_000, 999_999_999, 6],
                vec![7, 1_002, 999_999_001, 2, 1_000_000_000],
            ),
        ];
        for (rows, cols) in cases {
            let m = rows.len();
            // Every cell free but (r, r).
            let cells: Vec<u64> = (0..m).map(|r| ((1u64 << m) - 1) & !(1 << r)).collect();
            let d = Diagonals::new(&rows, &cols, &cells);
            let free: Vec<(usize, usize)> = (0..m)
                .flat_map(|r| (0..m).filter(move |&c| c != r).map(move |c| (r, c)))
                .collect();
            let at = |(r, c): (usize, usize)| (rows[r] as i128, cols[c] as i128);
            for &(r, c) in &free {
                let (i, j) = at((r, c));
                let [d1, d2] = d.through(rows[r], cols[c]);
                let mut got = [d1.to_vec(), d2.to_vec()];
                let mut want = [Vec::new(), Vec::new()];
                for &(r2, c2) in &free {
                    let (i2, j2) = at((r2, c2));
                    if j2 - i2 == j - i {
                        want[0].push((r2 as u16, c2 as u16));
                    }
                    if j2 + i2 == j + i {
                        want[1].push((r2 as u16, c2 as u16));
                    }
                }
                for k in 0..2 {
                    got[k].sort_unstable();
                    assert_eq!(got[k], want[k], "cell ({r}, {c}), direction {k}");
                }
            }
        }
    }
}
