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
    /// Groups numbered from `first_group` for the keys `keys` yields (one per cell, any
    /// order, repeats allowed), which lie in `lo..=hi` and number `count`; and the number
    /// of groups.
    fn new(
        keys: impl Fn(&mut dyn FnMut(u64)),
        (lo, hi): (u64, u64),
        count: u64,
        first_group: usize,
    ) -> (Groups, usize) {
        if count == 0 {
            return (
                Groups::Dense {
                    first: 0,
                    first_group,
                },
                0,
            );
        }
        if hi - lo <= DENSE_SPAN_PER_CELL * count + 64 {
            let groups = Groups::Dense {
                first: lo,
                first_group,
            };
            return (groups, (hi - lo + 1) as usize);
        }
        let mut sorted = Vec::with_capacity(count as usize);
        keys(&mut |k| sorted.push(k));
        sorted.sort_unstable();
        sorted.dedup();
        let groups = sorted.len();
        let keys = sorted;
        (Groups::Sorted { keys, first_group }, groups)
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

/// Calls `f(r, c)` for each cell `c` of each row `r` of `cells`.
#[inline(always)]
fn each_cell<B: Bits>(cells: &[B], mut f: impl FnMut(usize, usize)) {
    for (r, set) in cells.iter().enumerate() {
        set.each(|c| f(r, c));
    }
}

impl Diagonals {
    /// The diagonals of the free cells `cells` (per row label) of a residual on board rows
    /// `rows` and columns `cols` (per label). Made for each search without a table, so in
    /// few passes over the cells: it was a tenth of completing a 100-row board.
    pub(super) fn new<B: Bits>(rows: &[u64], cols: &[u64], cells: &[B]) -> Diagonals {
        let span = |v: &[u64]| {
            let lo = v.iter().copied().min().unwrap_or(0);
            (lo, v.iter().copied().max().unwrap_or(lo))
        };
        let ((rlo, rhi), (clo, chi)) = (span(rows), span(cols));
        let lift = rhi;
        let key1 = |r: usize, c: usize| cols[c] + lift - rows[r];
        let key2 = |r: usize, c: usize| cols[c] + rows[r];
        let count: u64 = cells.iter().map(|s| u64::from(s.count())).sum();
        let (d1, g1) = Groups::new(
            |f| each_cell(cells, |r, c| f(key1(r, c))),
            (clo + lift - rhi, chi + lift - rlo),
            count,
            0,
        );
        let (d2, g2) = Groups::new(
            |f| each_cell(cells, |r, c| f(key2(r, c))),
            (clo + rlo, chi + rhi),
            count,
            g1,
        );
        // Each cell's two groups, found once: with dense groups, a column's part and a
        // row's part added (no lookup per cell).
        let mut ids: Vec<[u32; 2]> = Vec::with_capacity(count as usize);
        if let (Groups::Dense { .. }, Groups::Dense { .. }) = (&d1, &d2) {
            for (r, set) in cells.iter().enumerate() {
                let i = rows[r];
                let (o1, o2) = ((rhi - i) as u32, (i - rlo) as u32 + g1 as u32);
                set.each(|c| {
                    let j = (cols[c] - clo) as u32;
                    ids.push([j + o1, j + o2]);
                });
            }
        } else {
            each_cell(cells, |r, c| {
                ids.push([d1.of(key1(r, c)) as u32, d2.of(key2(r, c)) as u32]);
            });
        }
        // A counting sort of the cells by group, D1 and D2 at once: `start[g]` counts
        // group g's cells, then (summed) is where group g ends, and is moved back by one
        // for each cell put in, which leaves it where the group starts.
        let groups = g1 + g2;
        let mut start = vec![0u32; groups + 1];
        for &[a, b] in &ids {
            start[a as usize] += 1;
            start[b as usize] += 1;
        }
        let mut total = 0;
        for s in &mut start {
            total += *s;
            *s = total;
        }
        let mut grouped = vec![(0u16, 0u16); total as usize];
        let mut id = ids.iter();
        each_cell(cells, |r, c| {
            for g in *id.next().expect("one per cell") {
                start[g as usize] -= 1;
                grouped[start[g as usize] as usize] = (r as u16, c as u16);
            }
        });
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
