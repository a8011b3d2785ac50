//! Completions of a queens board of any size whose free rows are few: the residual engine.
//!
//! When almost every row holds a preplaced queen (a large composition, or a board reduced
//! from an Excluded Diagonals instance, about 266m rows for m free ones), the row engine's
//! one bit per column no longer fits, but only the free rows and free columns matter. Each
//! free row gets a bit mask over the free columns: those its preplaced neighbours leave
//! open. Placing a queen then closes, in every later free row, the free columns on its two
//! diagonals, read from a table built once (free rows x free columns x free rows masks).

/// The most free rows (and columns) the engine takes: one bit per free column in a u64.
pub const MAX_FREE: usize = 64;

/// The free part of a board: free rows in search order, their open columns, and the
/// diagonal conflicts between free cells.
pub(crate) struct ResidualBoard {
    /// Free rows (and columns).
    k: usize,
    /// Per free row (search order): the free columns no preplaced queen attacks.
    open: Vec<u64>,
    /// `conflicts[(i * k + j) * k + i2]`: the free columns of free row `i2` on a diagonal
    /// of the cell (free row `i`, free column `j`).
    conflicts: Vec<u64>,
}

impl ResidualBoard {
    /// The free part of an `n`-board holding `placed` (0-based (row, column), one per row
    /// and column, not attacking each other), or `None` when more than [`MAX_FREE`] rows
    /// are free.
    pub fn new(n: u32, placed: &[(u32, u32)]) -> Option<ResidualBoard> {
        let n = n as usize;
        let k = n - placed.len();
        if k > MAX_FREE {
            return None;
        }
        let words = (2 * n).div_ceil(64);
        let (mut rows, mut cols) = (vec![0u64; n.div_ceil(64)], vec![0u64; n.div_ceil(64)]);
        let (mut sums, mut diffs) = (vec![0u64; words], vec![0u64; words]);
        let set = |v: &mut [u64], i: usize| v[i / 64] |= 1 << (i % 64);
        let get = |v: &[u64], i: usize| v[i / 64] >> (i % 64) & 1 == 1;
        for &(r, c) in placed {
            let (r, c) = (r as usize, c as usize);
            set(&mut rows, r);
            set(&mut cols, c);
            set(&mut sums, r + c);
            set(&mut diffs, r + n - 1 - c);
        }
        let free_rows: Vec<usize> = (0..n).filter(|&r| !get(&rows, r)).collect();
        let free_cols: Vec<usize> = (0..n).filter(|&c| !get(&cols, c)).collect();
        let open_of = |r: usize| {
            free_cols.iter().enumerate().fold(0u64, |m, (j, &c)| {
                let ok = !get(&sums, r + c) && !get(&diffs, r + n - 1 - c);
                m | (ok as u64) << j
            })
        };
        // Fewest open cells first: the search fails early where it fails at all.
        let mut order: Vec<(u32, usize)> = free_rows
            .iter()
            .map(|&r| (open_of(r).count_ones(), r))
            .collect();
        order.sort_unstable();
        let order: Vec<usize> = order.into_iter().map(|(_, r)| r).collect();
        let mut conflicts = vec![0u64; k * k * k];
        for (i, &r) in order.iter().enumerate() {
            for (j, &c) in free_cols.iter().enumerate() {
                for (i2, &r2) in order.iter().enumerate() {
                    conflicts[(i * k + j) * k + i2] =
                        free_cols.iter().enumerate().fold(0u64, |m, (j2, &c2)| {
                            let on_diagonal = r != r2 && r.abs_diff(r2) == c.abs_diff(c2);
                            m | (on_diagonal as u64) << j2
                        });
                }
            }
        }
        Some(ResidualBoard {
            k,
            open: order.iter().map(|&r| open_of(r)).collect(),
            conflicts,
        })
    }

    /// The partial placements after the first `depth` free rows, as the masks the search
    /// continues from, in a fixed order (the work items of a parallel count).
    pub fn items(&self, depth: usize) -> Vec<Item> {
        let mut out = Vec::new();
        let start = Item {
            row: 0,
            used: 0,
            open: self.open.clone(),
        };
        self.expand(start, depth.min(self.k), &mut out);
        out
    }

    fn expand(&self, item: Item, depth: usize, out: &mut Vec<Item>) {
        if depth == 0 {
            out.push(item);
            return;
        }
        let mut avail = item.open[item.row] & !item.used;
        while avail != 0 {
            let j = avail.trailing_zeros() as usize;
            avail &= avail - 1;
            let mut next = item.clone();
            self.place(&mut next.open, item.row, j);
            next.row += 1;
            next.used |= 1 << j;
            self.expand(next, depth - 1, out);
        }
    }

    /// Closes, in the free rows after `i`, the columns on the diagonals of (i, j).
    #[inline]
    fn place(&self, open: &mut [u64], i: usize, j: usize) {
        let base = (i * self.k + j) * self.k;
        for (o, &c) in open[i + 1..]
            .iter_mut()
            .zip(&self.conflicts[base + i + 1..])
        {
            *o &= !c;
        }
    }

    /// The completions of `item`.
    pub fn count(&self, item: &Item) -> u64 {
        let mut open = item.open.clone();
        self.count_from(item.row, item.used, &mut open)
    }

    fn count_from(&self, i: usize, used: u64, open: &mut [u64]) -> u64 {
        if i == self.k {
            return 1;
        }
        let mut avail = open[i] & !used;
        if i + 1 == self.k {
            return avail.count_ones() as u64;
        }
        let mut total = 0;
        let mut scratch = [0u64; MAX_FREE];
        while avail != 0 {
            let j = avail.trailing_zeros() as usize;
            avail &= avail - 1;
            let rest = &mut scratch[..self.k];
            rest[i + 1..].copy_from_slice(&open[i + 1..]);
            self.place(rest, i, j);
            total += self.count_from(i + 1, used | 1 << j, rest);
        }
        total
    }
}

/// A partial placement of the free rows: the next one to fill, the free columns used, and
/// what is still open in each free row.
#[derive(Clone)]
pub(crate) struct Item {
    row: usize,
    used: u64,
    open: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Completions by plain backtracking over every column of every free row.
    fn slow(n: u32, placed: &[(u32, u32)]) -> u64 {
        fn go(n: u32, rows: &mut Vec<Option<u32>>, r: u32) -> u64 {
            if r == n {
                return 1;
            }
            if rows[r as usize].is_some() {
                return go(n, rows, r + 1);
            }
            let mut total = 0;
            for c in 0..n {
                let ok = rows.iter().enumerate().all(|(r2, q)| match q {
                    None => true,
                    Some(c2) => *c2 != c && (r2 as u32).abs_diff(r) != c2.abs_diff(c),
                });
                if ok {
                    rows[r as usize] = Some(c);
                    total += go(n, rows, r + 1);
                    rows[r as usize] = None;
                }
            }
            total
        }
        let mut rows = vec![None; n as usize];
        for &(r, c) in placed {
            rows[r as usize] = Some(c);
        }
        go(n, &mut rows, 0)
    }

    #[test]
    fn counts_agree_with_plain_backtracking() {
        // Prefixes of a 12-queens solution and of its mirror image, at every depth.
        let sol = [0u32, 2, 4, 7, 9, 11, 5, 10, 1, 6, 8, 3];
        for n_placed in 0..=12usize {
            for mirror in [false, true] {
                let placed: Vec<(u32, u32)> = sol
                    .iter()
                    .enumerate()
                    .filter(|(r, _)| (r * 7) % 12 < n_placed)
                    .map(|(r, &c)| (r as u32, if mirror { 11 - c } else { c }))
                    .collect();
                let board = ResidualBoard::new(12, &placed).unwrap();
                for depth in [0, 1, 2] {
                    let total: u64 = board.items(depth).iter().map(|i| board.count(i)).sum();
                    assert_eq!(total, slow(12, &placed), "{placed:?} depth {depth}");
                }
            }
        }
    }

    #[test]
    fn too_many_free_rows_are_refused() {
        assert!(ResidualBoard::new(65, &[]).is_none());
        assert_eq!(ResidualBoard::new(64, &[]).unwrap().k, 64);
    }
}
