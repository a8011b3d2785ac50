//! The depth-first search of a residual, shared by the first-solution and counting modes.
//!
//! State: per open row the set of its cells still free (columns not taken and on no taken
//! diagonal), the open rows and the open columns. Placing a queen clears its column and
//! its two diagonal partners in every open row: through a table of masks built once per
//! residual (`(row, column) -> row' -> cells of row' it attacks`) when that fits, else by
//! walking the sorted rows and columns. Changes go on a trail and are undone on the way
//! back, so a node costs one pass over the open rows.
//!
//! Propagation at each node, to a fixpoint: a row with no free cell or a column with none
//! is a dead end; a row with one free cell, or a column free in one row only, is placed
//! without branching. Then the search branches on the open row with the fewest free cells,
//! or on a column free in exactly two rows when every row has three or more (two branches
//! instead of three). Columns are counted with a bit-sliced counter (ones, twos, threes) in
//! the same pass that counts the rows.
//!
//! A search can be suspended: when its node budget runs out it returns, as work items, the
//! subtrees it has not explored (the node it stands on and the untried siblings of every
//! node on its path), each keyed by the branch indices that lead to it. Keys order the
//! items as the sequential search would meet them, which is what makes the parallel
//! driver's answer independent of the thread count.

use super::bits::Bits;
use super::residual::Residual;

/// Ranks are below this (so a row's count and rank share one `u32` key).
const RANK_SPAN: u32 = 1 << 11;

/// The residual as the search sees it.
pub(crate) struct Board<B> {
    m: usize,
    /// Board rows and columns of the residual, increasing.
    rows: Vec<u64>,
    cols: Vec<u64>,
    /// Free cells of each residual row.
    start: Vec<B>,
    /// `(r * m + c) * m + r2`: column `c` and the cells of row `r2` on a diagonal of `(r, c)`.
    table: Option<Vec<B>>,
    /// Tie-break ranks (from the seed): the lower rank wins among equals.
    row_rank: Vec<u32>,
    col_rank: Vec<u32>,
    seeded: bool,
    /// Branch nodes above this depth also check that the open rows can still be matched to
    /// the open columns (Hall's condition).
    pub(crate) matching_depth: usize,
}

/// Largest attack table built, in bytes; above it attacks are found by walking.
const TABLE_BYTES: usize = 32 << 20;

impl<B: Bits> Board<B> {
    /// The search's view of `res`; `seed` permutes the tie-breaks (rows and columns of
    /// equal counts are tried in a seeded order), `None` keeps the natural order.
    pub(crate) fn new(res: &Residual, seed: Option<u64>) -> Board<B> {
        let m = res.size();
        assert!(m <= B::CAPACITY && m < RANK_SPAN as usize);
        let start: Vec<B> = (0..m)
            .map(|r| {
                let mut b = B::zero();
                for c in super::residual::ones(res.row_bits(r)) {
                    b = b.with(c);
                }
                b
            })
            .collect();
        let (rows, cols) = (res.rows.clone(), res.cols.clone());
        let table = (m * m * m * std::mem::size_of::<B>() <= TABLE_BYTES).then(|| {
            let mut t = vec![B::zero(); m * m * m];
            for r in 0..m {
                for c in 0..m {
                    if !start[r].has(c) {
                        continue;
                    }
                    let base = (r * m + c) * m;
                    for r2 in (0..m).filter(|&r2| r2 != r) {
                        let mut mask = B::zero().with(c);
                        for c2 in partners(&rows, &cols, r, c, r2).into_iter().flatten() {
                            mask = mask.with(c2);
                        }
                        t[base + r2] = mask;
                    }
                }
            }
            t
        });
        let rank = |salt: u64| -> Vec<u32> {
            let mut order: Vec<u32> = (0..m as u32).collect();
            if let Some(seed) = seed {
                use rand::seq::SliceRandom;
                order.shuffle(&mut crate::complete::seeded_rng(seed, &[5, salt]));
            }
            let mut rank = vec![0; m];
            for (k, &i) in order.iter().enumerate() {
                rank[i as usize] = k as u32;
            }
            rank
        };
        Board {
            m,
            rows,
            cols,
            start,
            table,
            row_rank: rank(0),
            col_rank: rank(1),
            seeded: seed.is_some(),
            matching_depth: 0,
        }
    }

    /// Free rows of the residual.
    pub(crate) fn size(&self) -> usize {
        self.m
    }

    /// The board (row, column) of residual cell `(r, c)`.
    pub(crate) fn cell(&self, (r, c): (u16, u16)) -> (u64, u64) {
        (self.rows[r as usize], self.cols[c as usize])
    }
}

/// The columns of residual row `r2` on the two diagonals through residual cell `(r, c)`.
fn partners(rows: &[u64], cols: &[u64], r: usize, c: usize, r2: usize) -> [Option<usize>; 2] {
    let (i, j, i2) = (rows[r] as i128, cols[c] as i128, rows[r2] as i128);
    let find = |j2: i128| {
        (j2 >= 0)
            .then(|| cols.binary_search(&(j2 as u64)).ok())
            .flatten()
    };
    [find(j + (i2 - i)), find(j - (i2 - i))]
}

/// A subtree not yet explored: the placements that lead to it from the root, and its key.
#[derive(Clone, Debug, Default)]
pub(crate) struct Item {
    /// Branch indices from the root: items compare as the sequential search meets them.
    pub key: Vec<u32>,
    /// Residual cells placed from the root (forced ones included), in order.
    pub path: Vec<(u16, u16)>,
    /// Nodes of the sequential search not yet counted (the branch placement that leads
    /// here, counted when the item runs, so that node totals match a sequential search).
    pub pending: u64,
}

/// How a (sub)search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Explored in full.
    Done,
    /// The node budget ran out; the rest is in [`Search::items`].
    Suspended,
    /// As many solutions as wanted were found.
    Enough,
    /// Stopped from outside (time limit, Ctrl-C).
    Stopped,
}

/// What one search does.
pub(crate) struct Mode {
    /// Stop after this many solutions (1: first solution; `u64::MAX`: count).
    pub want: u64,
    /// Suspend after this many nodes.
    pub budget: u64,
    /// Make work items of the nodes at this many branch levels instead of exploring them.
    pub split_depth: usize,
}

/// One depth-first search over a [`Board`].
pub(crate) struct Search<'a, B> {
    board: &'a Board<B>,
    open: Vec<B>,
    rows_left: B,
    cols_left: B,
    trail: Vec<(u32, B)>,
    path: Vec<(u16, u16)>,
    key: Vec<u32>,
    alts: Vec<(u16, u16)>,
    mode: Mode,
    poll: u32,
    stop: &'a (dyn Fn() -> bool + Sync),
    /// Placements made (branches and forced), the unit of the budget.
    pub nodes: u64,
    /// Branch placements only.
    pub decisions: u64,
    /// Solutions found.
    pub found: u64,
    /// The first solution found, with its key.
    pub solution: Option<(Vec<u32>, Vec<(u16, u16)>)>,
    /// Unexplored subtrees (after a suspension or a split).
    pub items: Vec<Item>,
}

/// Nodes between two polls of the stop function.
pub(crate) const POLL_NODES: u64 = 1024;
const POLL: u32 = POLL_NODES as u32;

impl<'a, B: Bits> Search<'a, B> {
    /// A search standing at `item`'s node.
    pub(crate) fn at(
        board: &'a Board<B>,
        item: &Item,
        mode: Mode,
        stop: &'a (dyn Fn() -> bool + Sync),
    ) -> Search<'a, B> {
        let m = board.m;
        let mut s = Search {
            board,
            open: board.start.clone(),
            rows_left: B::below(m),
            cols_left: B::below(m),
            trail: Vec::with_capacity(4 * m),
            path: Vec::with_capacity(m),
            key: item.key.clone(),
            alts: Vec::with_capacity(4 * m),
            mode,
            poll: POLL,
            stop,
            nodes: item.pending,
            decisions: item.pending,
            found: 0,
            solution: None,
            items: Vec::new(),
        };
        for &(r, c) in &item.path {
            s.place(r as usize, c as usize);
        }
        s.trail.clear();
        s
    }

    /// Explores the subtree of the current node.
    pub(crate) fn run(&mut self) -> Flow {
        self.explore()
    }

    fn item_here(&self, extra: Option<(u32, (u16, u16))>) -> Item {
        let mut item = Item {
            key: self.key.clone(),
            path: self.path.clone(),
            pending: 0,
        };
        if let Some((k, cell)) = extra {
            item.key.push(k);
            item.path.push(cell);
            item.pending = 1;
        }
        item
    }

    fn explore(&mut self) -> Flow {
        if self.key.len() >= self.mode.split_depth {
            self.items.push(self.item_here(None));
            return Flow::Done;
        }
        if self.nodes >= self.mode.budget {
            self.items.push(self.item_here(None));
            return Flow::Suspended;
        }
        self.poll -= 1;
        if self.poll == 0 {
            self.poll = POLL;
            if (self.stop)() {
                return Flow::Stopped;
            }
        }
        let saved = (self.rows_left, self.cols_left, self.path.len(), self.trail.len());
        let flow = self.node();
        self.undo(saved);
        flow
    }

    fn undo(&mut self, (rows, cols, path, trail): (B, B, usize, usize)) {
        while self.trail.len() > trail {
            let (r, old) = self.trail.pop().expect("longer than the mark");
            self.open[r as usize] = old;
        }
        self.rows_left = rows;
        self.cols_left = cols;
        self.path.truncate(path);
    }

    fn place(&mut self, r: usize, c: usize) {
        let b = self.board;
        self.rows_left = self.rows_left.without(r);
        self.cols_left = self.cols_left.without(c);
        self.path.push((r as u16, c as u16));
        let mut left = self.rows_left;
        if let Some(table) = &b.table {
            let masks = &table[(r * b.m + c) * b.m..][..b.m];
            while !left.is_zero() {
                let r2 = left.lowest();
                left = left.without(r2);
                let old = self.open[r2];
                let new = old.and_not(masks[r2]);
                if new != old {
                    self.trail.push((r2 as u32, old));
                    self.open[r2] = new;
                }
            }
            return;
        }
        // Rows and columns are sorted: as the row i2 grows, the first diagonal's partner
        // column j + (i2 - i) grows and the second's j - (i2 - i) shrinks, so two pointers
        // find both in one pass over the open rows.
        let (i, j) = (b.rows[r] as i128, b.cols[c] as i128);
        let cols = &b.cols;
        let (mut p1, mut p2) = (0usize, b.m);
        while !left.is_zero() {
            let r2 = left.lowest();
            left = left.without(r2);
            let i2 = b.rows[r2] as i128;
            let old = self.open[r2];
            let mut new = old.without(c);
            let t1 = j + (i2 - i);
            while p1 < b.m && (cols[p1] as i128) < t1 {
                p1 += 1;
            }
            if p1 < b.m && cols[p1] as i128 == t1 {
                new = new.without(p1);
            }
            let t2 = j - (i2 - i);
            while p2 > 0 && cols[p2 - 1] as i128 > t2 {
                p2 -= 1;
            }
            if p2 > 0 && cols[p2 - 1] as i128 == t2 {
                new = new.without(p2 - 1);
            }
            if new != old {
                self.trail.push((r2 as u32, old));
                self.open[r2] = new;
            }
        }
    }

    fn leaf(&mut self) -> Flow {
        if self.mode.split_depth != usize::MAX {
            self.items.push(self.item_here(None));
            return Flow::Done;
        }
        self.found += 1;
        if self.solution.is_none() && self.mode.want == 1 {
            self.solution = Some((self.key.clone(), self.path.clone()));
        }
        if self.found >= self.mode.want {
            Flow::Enough
        } else {
            Flow::Done
        }
    }

    /// Propagates, then branches. The caller undoes what this places.
    fn node(&mut self) -> Flow {
        let b = self.board;
        let (row, row_count, pairs) = loop {
            if self.rows_left.is_zero() {
                return self.leaf();
            }
            let (mut t1, mut t2, mut t3) = (B::zero(), B::zero(), B::zero());
            let mut best = u32::MAX;
            let mut best_row = 0;
            let mut forced = None;
            let mut left = self.rows_left;
            while !left.is_zero() {
                let r = left.lowest();
                left = left.without(r);
                let a = self.open[r];
                let k = a.count();
                if k <= 1 {
                    if k == 0 {
                        return Flow::Done;
                    }
                    forced = Some(r);
                    break;
                }
                t3 = t3.or(t2.and(a));
                t2 = t2.or(t1.and(a));
                t1 = t1.or(a);
                let key = k * RANK_SPAN + b.row_rank[r];
                if key < best {
                    best = key;
                    best_row = r;
                }
            }
            if let Some(r) = forced {
                let c = self.open[r].lowest();
                self.nodes += 1;
                self.place(r, c);
                continue;
            }
            if !self.cols_left.and_not(t1).is_zero() {
                return Flow::Done;
            }
            let once = self.cols_left.and_not(t2);
            if !once.is_zero() {
                let c = once.lowest();
                let mut left = self.rows_left;
                while !self.open[left.lowest()].has(c) {
                    left = left.without(left.lowest());
                }
                self.nodes += 1;
                self.place(left.lowest(), c);
                continue;
            }
            if self.key.len() < b.matching_depth && !self.matching_exists() {
                return Flow::Done;
            }
            break (best_row, best / RANK_SPAN, t2.and_not(t3));
        };
        let first = self.alts.len();
        if row_count > 2 && !pairs.is_zero() {
            let mut c = pairs.lowest();
            if b.seeded {
                pairs.each(|x| {
                    if b.col_rank[x] < b.col_rank[c] {
                        c = x;
                    }
                });
            }
            let mut left = self.rows_left;
            while !left.is_zero() {
                let r = left.lowest();
                left = left.without(r);
                if self.open[r].has(c) {
                    self.alts.push((r as u16, c as u16));
                }
            }
            if b.seeded {
                self.alts[first..].sort_unstable_by_key(|&(r, _)| b.row_rank[r as usize]);
            }
        } else {
            let alts = &mut self.alts;
            self.open[row].each(|c| alts.push((row as u16, c as u16)));
            if b.seeded {
                self.alts[first..].sort_unstable_by_key(|&(_, c)| b.col_rank[c as usize]);
            }
        }
        let count = self.alts.len() - first;
        let mut flow = Flow::Done;
        for k in 0..count {
            let (r, c) = self.alts[first + k];
            let saved = (self.rows_left, self.cols_left, self.path.len(), self.trail.len());
            self.nodes += 1;
            self.decisions += 1;
            self.place(r as usize, c as usize);
            self.key.push(k as u32);
            flow = self.explore();
            self.key.pop();
            self.undo(saved);
            match flow {
                Flow::Done => {}
                Flow::Suspended => {
                    for k2 in k + 1..count {
                        let item = self.item_here(Some((k2 as u32, self.alts[first + k2])));
                        self.items.push(item);
                    }
                    break;
                }
                Flow::Enough | Flow::Stopped => break,
            }
        }
        self.alts.truncate(first);
        flow
    }

    /// Whether every open row can get its own open column (a perfect matching over free
    /// cells, by augmenting paths).
    fn matching_exists(&self) -> bool {
        let m = self.board.m;
        let mut row_of_col = vec![u16::MAX; m];
        let mut col_of_row = vec![u16::MAX; m];
        let mut left = self.rows_left;
        // Greedy first.
        while !left.is_zero() {
            let r = left.lowest();
            left = left.without(r);
            let mut a = self.open[r];
            while !a.is_zero() {
                let c = a.lowest();
                a = a.without(c);
                if row_of_col[c] == u16::MAX {
                    row_of_col[c] = r as u16;
                    col_of_row[r] = c as u16;
                    break;
                }
            }
        }
        let mut left = self.rows_left;
        let mut stack: Vec<(usize, usize)> = Vec::new();
        while !left.is_zero() {
            let start = left.lowest();
            left = left.without(start);
            if col_of_row[start] != u16::MAX {
                continue;
            }
            let mut seen = B::zero();
            stack.clear();
            let mut r = start;
            let augmented = loop {
                let avail = self.open[r].and_not(seen);
                if avail.is_zero() {
                    match stack.pop() {
                        Some((pr, _)) => r = pr,
                        None => break false,
                    }
                    continue;
                }
                let c = avail.lowest();
                seen = seen.with(c);
                stack.push((r, c));
                match row_of_col[c] {
                    u16::MAX => break true,
                    r2 => r = r2 as usize,
                }
            };
            if !augmented {
                return false;
            }
            for &(pr, pc) in &stack {
                row_of_col[pc] = pr as u16;
                col_of_row[pr] = pc as u16;
            }
        }
        true
    }
}
