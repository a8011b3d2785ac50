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

/// Candidates whose damage is computed exactly; beyond this many, the rest follow at random.
const RANKED_CANDIDATES: usize = 24;

struct Search<'a> {
    res: &'a Residual,
    words: usize,
    cells: Vec<u64>,
    row_count: Vec<u32>,
    col_count: Vec<u32>,
    row_open: Vec<bool>,
    col_open: Vec<bool>,
    trail: Vec<(u32, u32)>,
    chosen: Vec<(usize, usize)>,
    counts: SearchCounts,
    max_nodes: u64,
    rng: Option<&'a mut ChaCha8Rng>,
    stop: &'a dyn Fn() -> bool,
    stopped: bool,
}

/// Searches `res` exhaustively, up to `max_nodes` nodes; `stop` is polled now and then and
/// ends the search when it returns true.
pub fn search(
    res: &Residual,
    rng: Option<&mut ChaCha8Rng>,
    max_nodes: u64,
    stop: &dyn Fn() -> bool,
) -> (SearchOutcome, SearchCounts) {
    let m = res.size();
    let words = res.words();
    let cells = res.cells().to_vec();
    let mut row_count = vec![0u32; m];
    let mut col_count = vec![0u32; m];
    for r in 0..m {
        for c in ones(&cells[r * words..(r + 1) * words]) {
            row_count[r] += 1;
            col_count[c] += 1;
        }
    }
    let mut s = Search {
        res,
        words,
        cells,
        row_count,
        col_count,
        row_open: vec![true; m],
        col_open: vec![true; m],
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
    fn remove(&mut self, r: usize, c: usize) {
        let w = &mut self.cells[r * self.words + (c >> 6)];
        let bit = 1u64 << (c & 63);
        if *w & bit != 0 {
            *w &= !bit;
            self.row_count[r] -= 1;
            self.col_count[c] -= 1;
            self.trail.push((r as u32, c as u32));
        }
    }

    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let (r, c) = self.trail.pop().unwrap();
            let (r, c) = (r as usize, c as usize);
            self.cells[r * self.words + (c >> 6)] |= 1 << (c & 63);
            self.row_count[r] += 1;
            self.col_count[c] += 1;
        }
    }

    /// Residual column index of board column `j`, if it is a residual column.
    #[inline]
    fn col_index(&self, j: i64) -> Option<usize> {
        if j < 1 {
            return None;
        }
        self.res.cols.binary_search(&(j as u64)).ok()
    }

    /// The open cells on the diagonals of (r, c), excluding (r, c): calls `f(r2, c2)`.
    fn for_each_diagonal_cell(&self, r: usize, c: usize, mut f: impl FnMut(usize, usize)) {
        let (i, j) = (self.res.rows[r] as i64, self.res.cols[c] as i64);
        for (r2, &i2) in self.res.rows.iter().enumerate() {
            if r2 == r || !self.row_open[r2] {
                continue;
            }
            let d = i2 as i64 - i;
            for j2 in [j + d, j - d] {
                if let Some(c2) = self.col_index(j2)
                    && self.has(r2, c2)
                {
                    f(r2, c2);
                }
            }
        }
    }

    /// Free cells closed by a queen on (r, c), besides (r, c) itself.
    fn damage(&self, r: usize, c: usize) -> u32 {
        let mut d = self.row_count[r] - 1 + self.col_count[c] - 1;
        self.for_each_diagonal_cell(r, c, |_, _| d += 1);
        d
    }

    fn place(&mut self, r: usize, c: usize) {
        self.row_open[r] = false;
        self.col_open[c] = false;
        let row_cells: Vec<usize> =
            ones(&self.cells[r * self.words..(r + 1) * self.words]).collect();
        for c2 in row_cells {
            self.remove(r, c2);
        }
        for r2 in 0..self.res.size() {
            if self.row_open[r2] {
                self.remove(r2, c);
            }
        }
        let mut diag = Vec::new();
        self.for_each_diagonal_cell(r, c, |r2, c2| diag.push((r2, c2)));
        for (r2, c2) in diag {
            self.remove(r2, c2);
        }
    }

    /// Picks the open row or column with the fewest free cells; None when one has none.
    fn choose(&mut self) -> Option<Branch> {
        let mut best: Option<(u32, Branch)> = None;
        let mut ties = 0u32;
        let m = self.res.size();
        let candidates = (0..m)
            .filter(|&r| self.row_open[r])
            .map(|r| (self.row_count[r], Branch::Row(r)))
            .chain(
                (0..m)
                    .filter(|&c| self.col_open[c])
                    .map(|c| (self.col_count[c], Branch::Col(c))),
            )
            .collect::<Vec<_>>();
        for (count, b) in candidates {
            if count == 0 {
                return None;
            }
            match &best {
                Some((bc, _)) if count > *bc => {}
                Some((bc, _)) if count == *bc => {
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
    fn ordered_cells(&mut self, branch: &Branch) -> Vec<(usize, usize)> {
        let mut cells: Vec<(usize, usize)> = match *branch {
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
        let ranked = cells.len().min(RANKED_CANDIDATES);
        let mut keyed: Vec<(u32, (usize, usize))> = cells[..ranked]
            .iter()
            .map(|&(r, c)| (self.damage(r, c), (r, c)))
            .collect();
        keyed.sort_by_key(|&(d, _)| d);
        keyed
            .into_iter()
            .map(|(_, cell)| cell)
            .chain(cells[ranked..].iter().copied())
            .collect()
    }

    fn descend(&mut self) -> bool {
        if self.chosen.len() == self.res.size() {
            return true;
        }
        if self.counts.nodes >= self.max_nodes || (self.counts.nodes & 1023 == 0 && (self.stop)()) {
            self.stopped = true;
            return false;
        }
        let Some(branch) = self.choose() else {
            self.counts.dead_ends += 1;
            return false;
        };
        for (r, c) in self.ordered_cells(&branch) {
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
            let (out, _) = search(&empty_board(n), None, u64::MAX, &|| false);
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
        let (out, counts) = search(&empty_board(3), None, 1, &|| false);
        assert_eq!(out, SearchOutcome::Stopped);
        assert!(counts.nodes <= 1);
    }
}
