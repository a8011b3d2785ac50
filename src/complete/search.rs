//! The exact end game: a complete depth-first search of a residual.
//!
//! Each free row and each free column must get exactly one queen, each diagonal at most
//! one. At every node the search branches on the row or column with the fewest free cells
//! (minimum risk; a row or column with none is a dead end, one with a single cell is
//! forced), tries cells in order of least damage (fewest free cells closed elsewhere), and
//! undoes through a trail. Exhausting the search proves there is no completion of the
//! residual; with a random generator, ties are broken at random.

use super::residual::{Residual, ones};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// How a search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchOutcome {
    /// A queen for every residual row: (row, column) pairs, 1-based board coordinates.
    Solved(Vec<(u64, u64)>),
    /// Every branch failed: the residual has no completion.
    Exhausted,
    /// The node limit or the budget ran out first.
    Stopped,
}

/// Counters of one search.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchCounts {
    /// Nodes (placements tried).
    pub nodes: u64,
    /// Nodes that failed (dead ends).
    pub dead_ends: u64,
}

/// Open cells per diagonal, indexed by the board's D1 (`n + j - i`) or D2 (`i + j`)
/// index: a plain array for boards up to [`DIRECT_DIAGONALS`] diagonals, a hash map above.
enum DiagonalCounts {
    Direct(Vec<u16>),
    Hashed(std::collections::HashMap<u64, u16>),
}

/// Largest diagonal index counted in a plain array (16 MiB of u16 per family, touched
/// only where the residual has cells).
const DIRECT_DIAGONALS: u64 = 1 << 23;

impl DiagonalCounts {
    fn new(max_index: u64) -> Self {
        if max_index < DIRECT_DIAGONALS {
            DiagonalCounts::Direct(vec![0; max_index as usize + 1])
        } else {
            DiagonalCounts::Hashed(Default::default())
        }
    }

    #[inline]
    fn get(&self, d: u64) -> u16 {
        match self {
            DiagonalCounts::Direct(v) => v[d as usize],
            DiagonalCounts::Hashed(h) => h.get(&d).copied().unwrap_or(0),
        }
    }

    #[inline]
    fn add(&mut self, d: u64, delta: i16) {
        match self {
            DiagonalCounts::Direct(v) => v[d as usize] = v[d as usize].wrapping_add_signed(delta),
            DiagonalCounts::Hashed(h) => {
                let e = h.entry(d).or_insert(0);
                *e = e.wrapping_add_signed(delta);
            }
        }
    }
}

struct Search<'a> {
    res: &'a Residual,
    n: u64,
    words: usize,
    cells: Vec<u64>,
    row_count: Vec<u32>,
    col_count: Vec<u32>,
    d1_count: DiagonalCounts,
    d2_count: DiagonalCounts,
    row_open: Vec<bool>,
    col_open: Vec<bool>,
    open_rows: usize,
    trail: Vec<(u32, u32)>,
    chosen: Vec<(usize, usize)>,
    counts: SearchCounts,
    max_nodes: u64,
    rng: Option<&'a mut ChaCha8Rng>,
    stop: &'a dyn Fn() -> bool,
    stopped: bool,
}

/// Searches `res` (a residual of an `n`-board) exhaustively, up to `max_nodes` nodes;
/// `stop` is polled now and then and ends the search when it returns true.
pub fn search(
    res: &Residual,
    n: u64,
    rng: Option<&mut ChaCha8Rng>,
    max_nodes: u64,
    stop: &dyn Fn() -> bool,
) -> (SearchOutcome, SearchCounts) {
    let m = res.size();
    let words = res.words();
    let cells = res.cells().to_vec();
    let mut row_count = vec![0u32; m];
    let mut col_count = vec![0u32; m];
    let mut d1_count = DiagonalCounts::new(2 * n);
    let mut d2_count = DiagonalCounts::new(2 * n);
    for r in 0..m {
        for c in ones(&cells[r * words..(r + 1) * words]) {
            row_count[r] += 1;
            col_count[c] += 1;
            d1_count.add(n + res.cols[c] - res.rows[r], 1);
            d2_count.add(res.rows[r] + res.cols[c], 1);
        }
    }
    let mut s = Search {
        res,
        n,
        words,
        cells,
        row_count,
        col_count,
        d1_count,
        d2_count,
        row_open: vec![true; m],
        col_open: vec![true; m],
        open_rows: m,
        trail: Vec::new(),
        chosen: Vec::with_capacity(m),
        counts: SearchCounts::default(),
        max_nodes,
        rng,
        stop,
        stopped: false,
    };
    let outcome = if s.descend() {
        let sol = s
            .chosen
            .iter()
            .map(|&(r, c)| (res.rows[r], res.cols[c]))
            .collect();
        SearchOutcome::Solved(sol)
    } else if s.stopped {
        SearchOutcome::Stopped
    } else {
        SearchOutcome::Exhausted
    };
    (outcome, s.counts)
}

/// What to branch on.
#[derive(Clone, Copy)]
enum Branch {
    Row(usize),
    Col(usize),
}

impl Search<'_> {
    #[inline]
    fn has(&self, r: usize, c: usize) -> bool {
        self.cells[r * self.words + (c >> 6)] & (1 << (c & 63)) != 0
    }

    #[inline]
    fn d1(&self, r: usize, c: usize) -> u64 {
        self.n + self.res.cols[c] - self.res.rows[r]
    }

    #[inline]
    fn d2(&self, r: usize, c: usize) -> u64 {
        self.res.rows[r] + self.res.cols[c]
    }

    #[inline]
    fn count_cell(&mut self, r: usize, c: usize, delta: i32) {
        self.row_count[r] = self.row_count[r].wrapping_add_signed(delta);
        self.col_count[c] = self.col_count[c].wrapping_add_signed(delta);
        let (d1, d2) = (self.d1(r, c), self.d2(r, c));
        self.d1_count.add(d1, delta as i16);
        self.d2_count.add(d2, delta as i16);
    }

    #[inline]
    fn remove(&mut self, r: usize, c: usize) {
        let w = &mut self.cells[r * self.words + (c >> 6)];
        let bit = 1u64 << (c & 63);
        if *w & bit != 0 {
            *w &= !bit;
            self.count_cell(r, c, -1);
            self.trail.push((r as u32, c as u32));
        }
    }

    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let (r, c) = self.trail.pop().unwrap();
            let (r, c) = (r as usize, c as usize);
            self.cells[r * self.words + (c >> 6)] |= 1 << (c & 63);
            self.count_cell(r, c, 1);
        }
    }

    /// Free cells closed by a queen on (r, c), besides (r, c) itself.
    #[inline]
    fn damage(&self, r: usize, c: usize) -> u32 {
        self.row_count[r]
            + self.col_count[c]
            + self.d1_count.get(self.d1(r, c)) as u32
            + self.d2_count.get(self.d2(r, c)) as u32
            - 4
    }

    fn place(&mut self, r: usize, c: usize) {
        self.row_open[r] = false;
        self.col_open[c] = false;
        self.open_rows -= 1;
        for w in 0..self.words {
            let mut bits = self.cells[r * self.words + w];
            while bits != 0 {
                self.remove(r, w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        let m = self.res.size();
        let (i, j) = (self.res.rows[r], self.res.cols[c]);
        // Rows and columns are sorted, so as the row i2 grows, the D1 partner column
        // j + (i2 - i) grows and the D2 partner j - (i2 - i) shrinks: two pointers find
        // both in one pass.
        let cols = &self.res.cols;
        let mut p1 = 0usize; // first column >= D1 partner
        let mut p2 = m; // one past the last column <= D2 partner
        for r2 in 0..m {
            if !self.row_open[r2] {
                continue;
            }
            self.remove(r2, c);
            let i2 = self.res.rows[r2];
            let t1 = (j + i2) as i64 - i as i64; // D1 partner column
            while p1 < m && (cols[p1] as i64) < t1 {
                p1 += 1;
            }
            if p1 < m && cols[p1] as i64 == t1 {
                self.remove(r2, p1);
            }
            let t2 = (j + i) as i64 - i2 as i64; // D2 partner column
            while p2 > 0 && cols[p2 - 1] as i64 > t2 {
                p2 -= 1;
            }
            if p2 > 0 && cols[p2 - 1] as i64 == t2 {
                self.remove(r2, p2 - 1);
            }
        }
    }

    /// Picks the open row or column with the fewest free cells; None when one has none.
    fn choose(&mut self) -> Option<Branch> {
        let m = self.res.size();
        let mut best: Option<(u32, Branch)> = None;
        let mut ties = 0u32;
        for k in 0..2 * m {
            let (open, count, b) = if k < m {
                (self.row_open[k], self.row_count[k], Branch::Row(k))
            } else {
                let c = k - m;
                (self.col_open[c], self.col_count[c], Branch::Col(c))
            };
            if !open {
                continue;
            }
            if count == 0 {
                return None;
            }
            match best {
                Some((bc, _)) if count > bc => {}
                Some((bc, _)) if count == bc => {
                    ties += 1;
                    if let Some(rng) = self.rng.as_deref_mut()
                        && rng.random_range(0..=ties) == 0
                    {
                        best = Some((count, b));
                    }
                }
                _ => {
                    ties = 0;
                    best = Some((count, b));
                }
            }
        }
        best.map(|(_, b)| b)
    }

    /// Cells of the branch, least damage first (random ties with a generator).
    fn ordered_cells(&mut self, branch: Branch) -> Vec<(usize, usize)> {
        let mut cells: Vec<(usize, usize)> = match branch {
            Branch::Row(r) => ones(&self.cells[r * self.words..(r + 1) * self.words])
                .map(|c| (r, c))
                .collect(),
            Branch::Col(c) => (0..self.res.size())
                .filter(|&r| self.row_open[r] && self.has(r, c))
                .map(|r| (r, c))
                .collect(),
        };
        if let Some(rng) = self.rng.as_deref_mut() {
            for i in (1..cells.len()).rev() {
                cells.swap(i, rng.random_range(0..=i));
            }
        }
        cells.sort_by_cached_key(|&(r, c)| self.damage(r, c));
        cells
    }

    fn descend(&mut self) -> bool {
        if self.open_rows == 0 {
            return true;
        }
        if self.counts.nodes >= self.max_nodes
            || (self.counts.nodes & 1023 == 1023 && (self.stop)())
        {
            self.stopped = true;
            return false;
        }
        let Some(branch) = self.choose() else {
            self.counts.dead_ends += 1;
            return false;
        };
        for (r, c) in self.ordered_cells(branch) {
            self.counts.nodes += 1;
            let mark = self.trail.len();
            self.place(r, c);
            self.chosen.push((r, c));
            if self.descend() {
                return true;
            }
            self.chosen.pop();
            self.undo(mark);
            self.row_open[r] = true;
            self.col_open[c] = true;
            self.open_rows += 1;
            if self.stopped {
                return false;
            }
        }
        self.counts.dead_ends += 1;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts n-queens solutions of the empty n-board through the search (by forbidding
    /// each found solution would be slow); instead check solvability against known facts.
    fn empty_board(n: u64) -> Residual {
        Residual::build((1..=n).collect(), (1..=n).collect(), |_, _| true)
    }

    #[test]
    fn solves_empty_boards_and_proves_two_and_three_impossible() {
        for n in 1..=12u64 {
            let (out, _) = search(&empty_board(n), n, None, u64::MAX, &|| false);
            match out {
                SearchOutcome::Solved(sol) => {
                    assert!(n == 1 || n >= 4);
                    let mut q = vec![0i64; n as usize + 1];
                    for (i, j) in sol {
                        q[i as usize] = j as i64;
                    }
                    for a in 1..=n as usize {
                        for b in a + 1..=n as usize {
                            assert!(q[a] != q[b] && (q[a] - q[b]).abs() != (b - a) as i64);
                        }
                    }
                }
                SearchOutcome::Exhausted => assert!(n == 2 || n == 3, "n = {n}"),
                SearchOutcome::Stopped => panic!(),
            }
        }
    }

    #[test]
    fn node_limit_stops() {
        let (out, counts) = search(&empty_board(3), 3, None, 1, &|| false);
        assert_eq!(out, SearchOutcome::Stopped);
        assert!(counts.nodes <= 1);
    }
}
