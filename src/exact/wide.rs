//! Exact search of residuals too wide for the cell matrix of [`search`](super::search):
//! thousands to tens of thousands of free rows, such as a block of rows or a band of
//! columns or diagonals cleared from a constructed solution.
//!
//! Such residuals are tight: their free columns and free diagonals are nearly in one-to-one
//! correspondence with the free rows, so a full assignment repaired by swaps (the repair
//! phase) meets conflicts everywhere, while propagation is strong. The search keeps no cell
//! matrix: a cell is a candidate when its row is open and its column and both diagonals are
//! free (of the given queens, read from the board's bitmaps, and of the queens placed
//! here). It counts candidates per row and per line (column, D1, D2) and updates the counts
//! in O(m) per placement, since a queen closes exactly three cells of every other row.
//!
//! Propagation: a row with no candidate fails, a row with one is forced. Counting: a
//! family of lines whose supported lines are as many as the rows (every column, and often
//! one diagonal direction) must use every one of them, so there a line without candidates
//! fails and a line with one forces it. Branching takes the row with the fewest candidates
//! (ties in row order), trying its columns in increasing order; that order follows the
//! structure of constructed solutions, which are monotone in long runs.

use super::{Counts, Limits, Outcome};

/// The widest residual taken (its setup, m^2 cell tests, takes about 15 s at this size).
pub(crate) const MAX_ROWS: usize = 1 << 16;
/// Largest span of line indices per family kept in dense arrays.
const MAX_SPAN: u64 = 1 << 26;

const NONE: u32 = u32::MAX;

/// One family of lines (columns, D1 or D2), indexed densely from `lo`.
struct Family {
    lo: u64,
    used: Vec<bool>,
    support: Vec<u32>,
    /// Every supported line must be used.
    tight: bool,
}

impl Family {
    fn new(lo: u64, hi: u64) -> Family {
        let span = (hi - lo + 1) as usize;
        Family {
            lo,
            used: vec![false; span],
            support: vec![0; span],
            tight: false,
        }
    }

    #[inline]
    fn at(&self, line: u64) -> usize {
        (line - self.lo) as usize
    }
}

/// The search.
struct Wide<'a> {
    n: u64,
    rows: &'a [u64],
    cols: &'a [u64],
    /// Column number -> index into `cols` (NONE when not free), from `cols[0]`.
    col_index: Vec<u32>,
    free: &'a (dyn Fn(u64, u64) -> bool + Sync),
    /// Column index of each row's queen, NONE while open.
    queen: Vec<u32>,
    count: Vec<u32>,
    lines: [Family; 3],
    open: usize,
    nodes: u64,
    decisions: u64,
}

/// Why a propagation failed.
struct Conflict;

impl<'a> Wide<'a> {
    /// Lines of cell (row k, column c): column, D1, D2.
    #[inline]
    fn lines_of(&self, k: usize, c: usize) -> [u64; 3] {
        let (i, j) = (self.rows[k], self.cols[c]);
        [j, self.n + j - i, i + j]
    }

    /// The column index of board column `j`, if free.
    #[inline]
    fn col(&self, j: i64) -> Option<usize> {
        let base = self.cols[0] as i64;
        if j < base {
            return None;
        }
        match self.col_index.get((j - base) as usize) {
            Some(&c) if c != NONE => Some(c as usize),
            _ => None,
        }
    }

    #[inline]
    fn candidate(&self, k: usize, c: usize) -> bool {
        if self.queen[k] != NONE {
            return false;
        }
        let l = self.lines_of(k, c);
        (0..3).all(|f| !self.lines[f].used[self.lines[f].at(l[f])])
            && (self.free)(self.rows[k], self.cols[c])
    }

    /// The three cells of open row `k` that a queen on (row `p`, column `c`) closes: same
    /// column, same D1, same D2.
    #[inline]
    fn closed_by(&self, k: usize, p: usize, c: usize) -> [Option<usize>; 3] {
        let (i, j) = (self.rows[p] as i64, self.cols[c] as i64);
        let r = self.rows[k] as i64;
        [Some(c), self.col(j + (r - i)), self.col(j - (r - i))]
    }

    fn adjust(&mut self, k: usize, c: usize, up: bool, forced: &mut Vec<Force>) {
        let l = self.lines_of(k, c);
        if up {
            self.count[k] += 1;
            for (f, &line) in l.iter().enumerate() {
                let a = self.lines[f].at(line);
                self.lines[f].support[a] += 1;
            }
        } else {
            self.count[k] -= 1;
            if self.count[k] <= 1 {
                forced.push(Force::Row(k));
            }
            for (f, &line) in l.iter().enumerate() {
                let fam = &mut self.lines[f];
                let a = fam.at(line);
                fam.support[a] -= 1;
                if fam.tight && fam.support[a] <= 1 {
                    forced.push(Force::Line(f, line));
                }
            }
        }
    }

    /// Places a queen on (row `k`, column `c`), which must be a candidate.
    fn place(&mut self, k: usize, c: usize, forced: &mut Vec<Force>) {
        self.nodes += 1;
        // The row's other candidates go, then the cells the queen closes in open rows.
        for c2 in 0..self.cols.len() {
            if self.candidate(k, c2) {
                self.adjust(k, c2, false, forced);
            }
        }
        self.queen[k] = c as u32;
        self.open -= 1;
        for k2 in 0..self.rows.len() {
            if self.queen[k2] != NONE {
                continue;
            }
            for c2 in self.closed_by(k2, k, c).into_iter().flatten() {
                if self.candidate(k2, c2) {
                    self.adjust(k2, c2, false, forced);
                }
            }
        }
        let l = self.lines_of(k, c);
        for (f, &line) in l.iter().enumerate() {
            let a = self.lines[f].at(line);
            self.lines[f].used[a] = true;
        }
    }

    /// Undoes [`Wide::place`] of (row `k`, column `c`), the last placement not undone.
    fn unplace(&mut self, k: usize, c: usize) {
        let l = self.lines_of(k, c);
        for (f, &line) in l.iter().enumerate() {
            let a = self.lines[f].at(line);
            self.lines[f].used[a] = false;
        }
        for k2 in 0..self.rows.len() {
            if self.queen[k2] != NONE || k2 == k {
                continue;
            }
            for c2 in self.closed_by(k2, k, c).into_iter().flatten() {
                if self.candidate(k2, c2) {
                    self.adjust(k2, c2, true, &mut Vec::new());
                }
            }
        }
        self.queen[k] = NONE;
        self.open += 1;
        for c2 in 0..self.cols.len() {
            if self.candidate(k, c2) {
                self.adjust(k, c2, true, &mut Vec::new());
            }
        }
    }

    /// The first open row (in row order) with a candidate on `line` of family `f`, and
    /// that candidate.
    fn cell_on_line(&self, f: usize, line: u64) -> Option<(usize, usize)> {
        (0..self.rows.len())
            .filter(|&k| self.queen[k] == NONE)
            .find_map(|k| {
                let i = self.rows[k] as i64;
                let j = match f {
                    0 => line as i64,
                    1 => line as i64 - self.n as i64 + i,
                    _ => line as i64 - i,
                };
                let c = self.col(j)?;
                self.candidate(k, c).then_some((k, c))
            })
    }

    fn first_candidate(&self, k: usize) -> Option<usize> {
        (0..self.cols.len()).find(|&c| self.candidate(k, c))
    }

    /// Applies forced placements until none is left; the placements made are pushed on
    /// `trail`.
    fn propagate(
        &mut self,
        mut forced: Vec<Force>,
        trail: &mut Vec<(usize, usize)>,
    ) -> Result<(), Conflict> {
        while let Some(f) = forced.pop() {
            match f {
                Force::Row(k) => {
                    if self.queen[k] != NONE {
                        continue;
                    }
                    match self.count[k] {
                        0 => return Err(Conflict),
                        1 => {
                            let c = self.first_candidate(k).expect("a row with one candidate");
                            self.place(k, c, &mut forced);
                            trail.push((k, c));
                        }
                        _ => {}
                    }
                }
                Force::Line(f, line) => {
                    let fam = &self.lines[f];
                    let a = fam.at(line);
                    if fam.used[a] {
                        continue;
                    }
                    match fam.support[a] {
                        0 => return Err(Conflict),
                        1 => {
                            let (k, c) = self.cell_on_line(f, line).expect("a supported line");
                            self.place(k, c, &mut forced);
                            trail.push((k, c));
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    fn undo(&mut self, trail: &mut Vec<(usize, usize)>, to: usize) {
        while trail.len() > to {
            let (k, c) = trail.pop().expect("longer than to");
            self.unplace(k, c);
        }
    }

    /// The open row with the fewest candidates (the first in row order among equals).
    fn branch_row(&self) -> Option<usize> {
        (0..self.rows.len())
            .filter(|&k| self.queen[k] == NONE)
            .min_by_key(|&k| self.count[k])
    }
}

enum Force {
    Row(usize),
    Line(usize, u64),
}

/// A level of the search: the row branched on and the next column to try.
struct Level {
    row: usize,
    next: usize,
    trail_len: usize,
}

/// Searches the residual `rows` x `cols` of an n-board, whose free cells are those where
/// `free(i, j)` (given queens' diagonals free), for a first solution, within
/// `limits.max_nodes` placements, with the number of free cells. `None` when the residual
/// is too wide or its lines span too far for dense counters.
pub(crate) fn first(
    n: u64,
    rows: &[u64],
    cols: &[u64],
    free: &(dyn Fn(u64, u64) -> bool + Sync),
    limits: Limits<'_>,
) -> Option<(Outcome, Counts, u64)> {
    let m = rows.len();
    if m == 0 || m != cols.len() || m > MAX_ROWS {
        return None;
    }
    let (rmin, rmax) = (rows[0], rows[m - 1]);
    let (cmin, cmax) = (cols[0], cols[m - 1]);
    if cmax - cmin >= MAX_SPAN || (rmax - rmin) + (cmax - cmin) >= MAX_SPAN {
        return None;
    }
    let mut col_index = vec![NONE; (cmax - cmin + 1) as usize];
    for (c, &j) in cols.iter().enumerate() {
        col_index[(j - cmin) as usize] = c as u32;
    }
    let mut w = Wide {
        n,
        rows,
        cols,
        col_index,
        free,
        queen: vec![NONE; m],
        count: vec![0; m],
        lines: [
            Family::new(cmin, cmax),
            Family::new(n + cmin - rmax, n + cmax - rmin),
            Family::new(rmin + cmin, rmax + cmax),
        ],
        open: m,
        nodes: 0,
        decisions: 0,
    };
    // Count every candidate (m^2 cells: the setup's cost, shared out over the rows).
    let mut forced = Vec::new();
    for k in 0..m {
        for c in 0..m {
            if w.candidate(k, c) {
                w.adjust(k, c, true, &mut forced);
            }
        }
        if k & 255 == 0 && limits.stop.now() {
            return Some((Outcome::Stopped, Counts::default(), 0));
        }
    }
    let cells = w.count.iter().map(|&c| c as u64).sum();
    for f in 0..3 {
        let supported = w.lines[f].support.iter().filter(|&&s| s > 0).count();
        w.lines[f].tight = supported == m;
        if supported < m {
            // Fewer lines than rows can take: no completion. Reported as an exhausted
            // search with no node (the exact engine's certificates say which lines).
            return Some((Outcome::Exhausted, Counts::default(), cells));
        }
    }
    let mut initial = Vec::new();
    for k in 0..m {
        if w.count[k] <= 1 {
            initial.push(Force::Row(k));
        }
    }
    for f in 0..3 {
        if w.lines[f].tight {
            for (a, &s) in w.lines[f].support.iter().enumerate() {
                if s == 1 {
                    initial.push(Force::Line(f, w.lines[f].lo + a as u64));
                }
            }
        }
    }
    let mut trail = Vec::new();
    if w.propagate(initial, &mut trail).is_err() {
        return Some((Outcome::Exhausted, counts(&w), cells));
    }
    let mut stack: Vec<Level> = Vec::new();
    // Descend: branch on a row; on a conflict, try its next column; with none left, back
    // up a level.
    let mut descend = true;
    loop {
        // Polled on every step: a step costs O(m) at least (a row's candidates), and one
        // decision's propagation can place thousands of queens.
        if w.nodes >= limits.max_nodes || limits.stop.now() {
            return Some((Outcome::Stopped, counts(&w), cells));
        }
        if descend {
            if w.open == 0 {
                let queens = (0..m)
                    .map(|k| (rows[k], cols[w.queen[k] as usize]))
                    .collect();
                return Some((Outcome::Solved(queens), counts(&w), cells));
            }
            let row = w.branch_row().expect("an open row");
            stack.push(Level {
                row,
                next: 0,
                trail_len: trail.len(),
            });
        }
        // Try the next column of the top level.
        let Some(level) = stack.last_mut() else {
            return Some((Outcome::Exhausted, counts(&w), cells));
        };
        let (row, from, trail_len) = (level.row, level.next, level.trail_len);
        w.undo(&mut trail, trail_len);
        match (from..m).find(|&c| w.candidate(row, c)) {
            None => {
                stack.pop();
                descend = false;
            }
            Some(c) => {
                stack.last_mut().expect("present").next = c + 1;
                w.decisions += 1;
                let mut forced = Vec::new();
                w.place(row, c, &mut forced);
                trail.push((row, c));
                descend = w.propagate(forced, &mut trail).is_ok();
            }
        }
    }
}

fn counts(w: &Wide<'_>) -> Counts {
    Counts {
        nodes: w.nodes,
        decisions: w.decisions,
    }
}
