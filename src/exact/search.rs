//! The depth-first search of a residual, shared by the first-solution and counting modes.
//!
//! State: per open row the set of its cells still free (columns not taken and on no taken
//! diagonal), the open rows and the open columns. Placing a queen clears its column and
//! its two diagonal partners in every open row. Where the table of masks
//! (`(row, column) -> row' -> cells of row' it attacks`) fits, a placement writes the next
//! level's sets in one branch-free pass (`next = current & !mask`, which vectorises) and
//! undoing is moving back a level; wider residuals clear the column in each open row and
//! the cells listed on the queen's two diagonals ([`Diagonals`]), change the sets in place
//! and undo through a trail.
//!
//! Propagation at each node, to a fixpoint: a row with no free cell or a column with none
//! is a dead end; a row with one free cell, or a column free in one row only, is placed
//! without branching. One scan of the rows finds every row with one cell (and any with
//! none), and all of them are placed before the next scan: time goes to scanning, and
//! rescanning after each forced queen cost 10-15 % (BENCHMARKS.md). Then the search
//! branches on the open row with the fewest free cells (of equals, the one nearest the
//! middle of the residual: [`Ties`]), or on a column free in exactly two rows when every
//! row has three or more (two branches instead of three). Columns are counted with a
//! bit-sliced counter (ones, twos, threes) in the same pass that counts the rows. For
//! residuals of up to 32 rows on a CPU with AVX-512 or AVX2, [`Search::run`] takes a copy
//! of the search whose scan is [`level_scan`](super::level_scan)'s, with the same answers.
//!
//! A search can be suspended: when its node budget runs out it returns, as work items, the
//! subtrees it has not explored (the node it stands on and the untried siblings of every
//! node on its path), each keyed by the branch indices that lead to it. Keys order the
//! items as the sequential search would meet them, which is what makes the parallel
//! driver's answer independent of the thread count.

use super::bits::Bits;
use super::diagonals::Diagonals;
use super::residual::Residual;

/// How the search breaks ties between rows of equally few free cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ties {
    /// Rows nearest the middle of the residual first ([`Residual::middle_first`]), the
    /// seed's order among rows as near: the smaller trees, for the searches that decide.
    MiddleFirst,
    /// In the seed's order only: restarts, whose worth is in trying other orders.
    Drawn,
}

/// The residual as the search sees it.
///
/// Rows and columns carry labels `0..m`: the search breaks ties by the lowest label, so the
/// labels decide which of equal rows is branched on and in which order a row's cells are
/// tried, at no cost per node. Columns are labelled in an order drawn from the seed, rows
/// as [`Ties`] says.
pub(crate) struct Board<B> {
    m: usize,
    /// Board row and column of each row and column label.
    rows: Vec<u64>,
    cols: Vec<u64>,
    /// The free cells on each diagonal, where there is no table: a placement's attacks.
    diagonals: Option<Diagonals>,
    /// Free cells of each row.
    start: Vec<B>,
    /// `(r * m + c) * stride + r2`: column `c` and the cells of row `r2` on a diagonal of
    /// `(r, c)`; at `r2 = r`, every cell.
    table: Option<Aligned<B>>,
    /// Entries per row's masks in the table and per level in the search: `m` rounded up
    /// to whole 512-bit registers of `u64`s, so that a level is written and read in whole
    /// registers ([`level_scan`](super::level_scan)); the rest are empty rows.
    stride: usize,
    /// Try a node's branches least damaging first (the fewest free cells closed in other
    /// rows), at nodes less than [`ORDERED_DEPTH`] branchings deep: finds solutions sooner;
    /// the tree of an infeasible residual is the same.
    pub(crate) order_values: bool,
    /// Per row label, the cells the search never places ([`Residual::refuted`]): a branch
    /// skips them and a forced one is a dead end. They stay in the levels, so the rows
    /// chosen and the propagation are those of the search without them, whose tree this
    /// one's is a part of.
    refuted: Vec<B>,
    /// Whether any row has a refuted cell (the test costs nothing otherwise).
    any_refuted: bool,
}

/// Nodes this many branchings below the root or deeper try their branches in label order,
/// not least damaging first ([`Board::order_values`]): the subtrees down there are small,
/// so where a solution is found first hardly changes, and an infeasible residual's search
/// (whose tree the order does not change) saves the damage counts: 12 % of its time on
/// n 27 d 27 seed 6; of 216 compositions of the zoo, 206 decided within 10 s against 204
/// (BENCHMARKS.md).
const ORDERED_DEPTH: usize = 10;

/// Largest attack table built, in bytes; above it attacks are found by walking.
pub(crate) const TABLE_BYTES: usize = 32 << 20;

impl<B: Bits> Board<B> {
    /// The search's view of `res`; `seed` permutes the tie-breaks (rows and columns of
    /// equal counts are tried in a seeded order), `None` keeps the natural order, and
    /// `ties` says whether rows nearer the middle go first. The attack table is built if it
    /// fits in `table_bytes` (at most [`TABLE_BYTES`]; 0: none).
    pub(crate) fn new(
        res: &Residual,
        seed: Option<u64>,
        ties: Ties,
        table_bytes: usize,
    ) -> Board<B> {
        let m = res.size();
        assert!(m <= B::CAPACITY);
        // label -> residual index, in the seed's order.
        let order = |salt: u64| -> Vec<usize> {
            let mut order: Vec<usize> = (0..m).collect();
            if let Some(seed) = seed {
                crate::rng::Rng::seeded(seed, &[5, salt]).shuffle(&mut order);
            }
            order
        };
        let (mut row_of, col_of) = (order(0), order(1));
        if ties == Ties::MiddleFirst {
            res.middle_first(&mut row_of);
        }
        let (mut row_label, mut col_label) = (vec![0; m], vec![0; m]);
        for (label, (&r, &c)) in row_of.iter().zip(&col_of).enumerate() {
            (row_label[r], col_label[c]) = (label, label);
        }
        let start: Vec<B> = row_of
            .iter()
            .map(|&r| {
                let mut b = B::zero();
                for c in super::residual::ones(res.row_bits(r)) {
                    b = b.with(col_label[c]);
                }
                b
            })
            .collect();
        let rows: Vec<u64> = row_of.iter().map(|&r| res.rows[r]).collect();
        let cols: Vec<u64> = col_of.iter().map(|&c| res.cols[c]).collect();
        let stride = m.next_multiple_of(8);
        let bytes = m
            .saturating_mul(m * stride)
            .saturating_mul(std::mem::size_of::<B>());
        let table = (bytes <= table_bytes.min(TABLE_BYTES)).then(|| {
            // Board column -> label, looked up m^3 times: a dense table over the columns'
            // span when that is small (as it is where the table fits), else a sorted list.
            let by_col = ColumnLabels::new(&cols);
            let mut table = attack_table(&rows, &cols, &start, stride, |j| {
                u64::try_from(j).ok().and_then(|j| by_col.get(j))
            });
            // A queen closes its own row whole: the next level is then one pass of
            // and-not, with no store of a single row after it (a 512-bit load of a
            // level that two stores wrote waits for both to reach the cache).
            for r in 0..m {
                for c in 0..m {
                    table[(r * m + c) * stride + r] = B::below(m);
                }
            }
            // Two cells in no completion together close each other as an attack does: the
            // propagation then finds what follows (a row or column left with one cell or
            // none) a placement earlier, at no cost per node. (Unlike a refuted cell, which
            // stays in the levels: the rows branched on change, and measured the trees
            // shrink, 3.4x at n 29 d 29 seed 4, BENCHMARKS.md.)
            for &[(r1, c1), (r2, c2)] in res.refuted_pairs() {
                let (a, b) = (
                    (row_label[r1], col_label[c1]),
                    (row_label[r2], col_label[c2]),
                );
                for ((r, c), (r2, c2)) in [(a, b), (b, a)] {
                    let k = (r * m + c) * stride + r2;
                    table[k] = table[k].with(c2);
                }
            }
            Aligned::new(table)
        });
        let diagonals = table
            .is_none()
            .then(|| Diagonals::new(&rows, &cols, &start));
        let mut refuted = vec![B::zero(); m];
        for &(r, c) in res.refuted() {
            refuted[row_label[r]] = refuted[row_label[r]].with(col_label[c]);
        }
        Board {
            any_refuted: !res.refuted().is_empty(),
            refuted,
            m,
            rows,
            cols,
            diagonals,
            start,
            table,
            stride,
            order_values: false,
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

/// Sets in cache lines (64 bytes), the first at the start of one: with levels and masks of
/// whole registers ([`Board::stride`]), every 512-bit load and store is then aligned, and
/// a level just written is read back from the store without a split across two lines.
/// (Not a vector of sets with an offset to the first aligned one: taking that slice on
/// every access cost 5 % of the search's instructions.)
struct Aligned<B> {
    lines: Vec<Line>,
    len: usize,
    sets: std::marker::PhantomData<B>,
}

/// One cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

impl<B: Bits> Aligned<B> {
    fn new(sets: Vec<B>) -> Aligned<B> {
        let bytes = std::mem::size_of_val(sets.as_slice());
        let mut aligned = Aligned {
            lines: vec![Line([0; 64]); bytes.div_ceil(64)],
            len: sets.len(),
            sets: std::marker::PhantomData,
        };
        aligned.copy_from_slice(&sets);
        aligned
    }
}

impl<B: Bits> std::ops::Deref for Aligned<B> {
    type Target = [B];
    #[inline(always)]
    fn deref(&self) -> &[B] {
        // SAFETY: the lines hold `len` sets' bytes (`new`), a line's alignment is every
        // set type's, and any bytes are a set (`Bits`' contract).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast(), self.len) }
    }
}

impl<B: Bits> std::ops::DerefMut for Aligned<B> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [B] {
        // SAFETY: as for `deref`, borrowed mutably once.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast(), self.len) }
    }
}

/// The label of each board column of a residual, by its board column.
enum ColumnLabels {
    /// `labels[j - first]`, `u32::MAX` where no column of the residual is.
    Dense { first: u64, labels: Vec<u32> },
    /// (board column, label), sorted by column.
    Sorted(Vec<(u64, usize)>),
}

impl ColumnLabels {
    /// Spans up to this many columns per residual column are held densely.
    const DENSE_SPAN_PER_COLUMN: u64 = 64;

    fn new(cols: &[u64]) -> ColumnLabels {
        let (Some(&lo), Some(&hi)) = (cols.iter().min(), cols.iter().max()) else {
            return ColumnLabels::Sorted(Vec::new());
        };
        if hi - lo < Self::DENSE_SPAN_PER_COLUMN * cols.len() as u64 {
            let mut labels = vec![u32::MAX; (hi - lo + 1) as usize];
            for (label, &j) in cols.iter().enumerate() {
                labels[(j - lo) as usize] = label as u32;
            }
            return ColumnLabels::Dense { first: lo, labels };
        }
        let mut sorted: Vec<(u64, usize)> = cols
            .iter()
            .enumerate()
            .map(|(label, &j)| (j, label))
            .collect();
        sorted.sort_unstable();
        ColumnLabels::Sorted(sorted)
    }

    fn get(&self, j: u64) -> Option<usize> {
        match self {
            ColumnLabels::Dense { first, labels } => j
                .checked_sub(*first)
                .and_then(|k| labels.get(k as usize))
                .filter(|&&l| l != u32::MAX)
                .map(|&l| l as usize),
            ColumnLabels::Sorted(sorted) => sorted
                .binary_search_by_key(&j, |&(col, _)| col)
                .ok()
                .map(|k| sorted[k].1),
        }
    }
}

/// The attack table of free cells `cells` (per row label) on board rows `rows` and columns
/// `cols`: at `(r * m + c) * stride + r2`, the cells of row `r2` a queen on `(r, c)` attacks
/// (column `c` and the two diagonal partners, which `column` finds by board column); the
/// engine's and the proof's search share it.
pub(crate) fn attack_table<B: Bits>(
    rows: &[u64],
    cols: &[u64],
    cells: &[B],
    stride: usize,
    column: impl Fn(i128) -> Option<usize>,
) -> Vec<B> {
    let m = rows.len();
    assert!(stride >= m);
    let mut t = vec![B::zero(); m * m * stride];
    for (r, free) in cells.iter().enumerate() {
        let i = rows[r] as i128;
        free.each(|c| {
            let j = cols[c] as i128;
            for r2 in (0..m).filter(|&r2| r2 != r) {
                let delta = rows[r2] as i128 - i;
                let mut mask = B::zero().with(c);
                for j2 in [j + delta, j - delta] {
                    if let Some(c2) = column(j2) {
                        mask = mask.with(c2);
                    }
                }
                t[(r * m + c) * stride + r2] = mask;
            }
        });
    }
    t
}

/// Calls `f(r2, c2)` for each cell of a row `r2` of `rows` that a queen on `(r, c)`
/// attacks, where the board has no attack table: column `c` in each of the rows (whether
/// free there or not), then the cells free at the root on its two diagonals (each at most
/// once, never `(r, c)` itself when `r` is not in `rows`).
#[inline(always)]
fn each_attacked<B: Bits>(
    b: &Board<B>,
    rows: B,
    r: usize,
    c: usize,
    mut f: impl FnMut(usize, usize),
) {
    rows.each(|r2| f(r2, c));
    let diagonals = b.diagonals.as_ref().expect("made where there is no table");
    for line in diagonals.through(b.rows[r], b.cols[c]) {
        for &(r2, c2) in line {
            if rows.has(r2 as usize) {
                f(r2 as usize, c2 as usize);
            }
        }
    }
}

/// A solution: its key (its place in the search order) and its cells.
pub(crate) type Found = (Vec<u32>, Vec<(u16, u16)>);

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
    /// The sets of free cells per row: one level per placement when the table is used
    /// (level `path.len()` is current), else one level changed in place.
    levels: Aligned<B>,
    rows_left: B,
    cols_left: B,
    trail: Vec<(u32, B)>,
    path: Vec<(u16, u16)>,
    key: Vec<u32>,
    alts: Vec<(u16, u16)>,
    mode: Mode,
    poll: u32,
    stop: &'a crate::stop::Stop,
    /// Placements made (branches and forced), the unit of the budget.
    pub nodes: u64,
    /// Branch placements only.
    pub decisions: u64,
    /// Solutions found.
    pub found: u64,
    /// The first solution found, with its key.
    pub solution: Option<Found>,
    /// Unexplored subtrees (after a suspension or a split).
    pub items: Vec<Item>,
}

/// The state to return to: open rows and columns, placements, trail length.
type Mark<B> = (B, B, usize, usize);

/// A node being branched on.
struct Frame<B> {
    /// The state on entering the node (restored when its branches are done).
    entry: Mark<B>,
    /// The state after propagation (restored between branches).
    branch: Mark<B>,
    /// Its branches: `alts[first..first + count]`, the next one to try.
    first: usize,
    count: usize,
    next: usize,
}

/// What entering a node gave.
enum Entry<B> {
    /// Settled (dead end, a solution counted, or made a work item).
    Done,
    /// To branch.
    Branch(Frame<B>),
    /// The budget ran out here.
    Suspended,
    /// Enough solutions.
    Enough,
    /// Stopped from outside.
    Stopped,
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
        stop: &'a crate::stop::Stop,
    ) -> Search<'a, B> {
        let m = board.m;
        let mut levels = board.start.clone();
        if board.table.is_some() {
            levels.resize((m + 1) * board.stride.max(1), B::zero());
        }
        let mut s = Search {
            board,
            levels: Aligned::new(levels),
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

    /// Explores the subtree of the current node, on the fastest instructions this CPU has.
    pub(crate) fn run(&mut self) -> Flow {
        #[cfg(target_arch = "x86_64")]
        {
            use super::level_scan::{AVX2, AVX512};
            use crate::simd::Kernel;
            match Kernel::best() {
                Kernel::Avx512 if self.vector_fits::<AVX512>() => {
                    // SAFETY: the kernel is chosen only where the CPU has its features
                    // (AVX-512 F, BW, VL, VPOPCNTDQ, POPCNT; every such CPU has BMI1 and
                    // AVX2), and the levels are of the width it takes (`vector_fits`).
                    return unsafe { self.run_avx512() };
                }
                Kernel::Avx2 if self.vector_fits::<AVX2>() => {
                    // SAFETY: as above (AVX2, BMI1 and 2, POPCNT).
                    return unsafe { self.run_avx2() };
                }
                // SAFETY: as above.
                Kernel::Avx512 | Kernel::Avx2 => return unsafe { self.run_x86() },
                Kernel::Portable => {}
            }
        }
        self.run_portable()
    }

    /// Whether vector kernel `K` can take this search: levels of single words of the
    /// width it [`takes`](super::level_scan::takes), at most
    /// [`level_scan::MAX_ROWS`](super::level_scan::MAX_ROWS) rows, from the attack table.
    /// (The vector scans are x86-64's.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn vector_fits<const K: u8>(&self) -> bool {
        self.board.m <= super::level_scan::MAX_ROWS
            && self.board.table.is_some()
            && super::level_scan::takes::<K, B>()
    }

    /// [`Search::run`] compiled with POPCNT, BMI1 and AVX2 (one instruction per count,
    /// 256-bit copies of the levels).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,avx2")]
    unsafe fn run_x86(&mut self) -> Flow {
        self.explore::<{ super::level_scan::SCALAR }>()
    }

    /// [`Search::run`] with each node's level scanned by AVX-512 ([`level_scan`]), for
    /// residuals of at most [`level_scan::MAX_ROWS`] rows in `u64` words with an attack
    /// table.
    ///
    /// [`level_scan`]: super::level_scan
    /// [`level_scan::MAX_ROWS`]: super::level_scan::MAX_ROWS
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,avx2,avx512f,avx512vpopcntdq")]
    unsafe fn run_avx512(&mut self) -> Flow {
        self.explore::<{ super::level_scan::AVX512 }>()
    }

    /// [`Search::run`] with each node's level scanned by AVX2 ([`level_scan`]), for
    /// residuals of at most [`level_scan::MAX_ROWS`] rows in `u32` words with an attack
    /// table.
    ///
    /// [`level_scan::MAX_ROWS`]: super::level_scan::MAX_ROWS
    ///
    /// [`level_scan`]: super::level_scan
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,avx2")]
    unsafe fn run_avx2(&mut self) -> Flow {
        self.explore::<{ super::level_scan::AVX2 }>()
    }

    /// [`Search::run`] for any CPU.
    fn run_portable(&mut self) -> Flow {
        self.explore::<{ super::level_scan::SCALAR }>()
    }

    /// [`Search::run`] on the scalar scan, whatever the CPU: what the vector scans are
    /// compared with.
    #[cfg(test)]
    pub(crate) fn run_scalar(&mut self) -> Flow {
        self.run_portable()
    }

    /// [`Search::run`] on the vector scan of `kernel`, where this CPU has it (`None`
    /// where not, or where the residual does not suit the vector scan).
    #[cfg(test)]
    pub(crate) fn run_vector(&mut self, kernel: crate::simd::Kernel) -> Option<Flow> {
        if !kernel.supported() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use super::level_scan::{AVX2, AVX512};
            use crate::simd::Kernel;
            match kernel {
                Kernel::Avx512 if self.vector_fits::<AVX512>() => {
                    // SAFETY: the CPU has the kernel's features (checked above), and the
                    // levels are of the width it takes.
                    return Some(unsafe { self.run_avx512() });
                }
                Kernel::Avx2 if self.vector_fits::<AVX2>() => {
                    // SAFETY: as above.
                    return Some(unsafe { self.run_avx2() });
                }
                _ => {}
            }
        }
        None
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

    /// The depth-first search, iterative so that it compiles into the one function that
    /// calls it (see [`Search::run`]).
    ///
    /// `SCAN`: the kernel that scans each node's level ([`level_scan`](super::level_scan)'s
    /// constants; a vector one only where [`Search::run`] has checked that it can).
    #[inline(always)]
    fn explore<const SCAN: u8>(&mut self) -> Flow {
        let base = self.key.len();
        let mut frames: Vec<Frame<B>> = Vec::new();
        let mut entering = true;
        loop {
            if entering {
                entering = false;
                match self.enter::<SCAN>() {
                    Entry::Done => {}
                    Entry::Branch(frame) => frames.push(frame),
                    Entry::Suspended => {
                        // The rest: the untried siblings on every level, deepest first.
                        while let Some(f) = frames.pop() {
                            self.undo(f.branch);
                            self.key.truncate(base + frames.len());
                            for k in f.next..f.count {
                                let item = self.item_here(Some((k as u32, self.alts[f.first + k])));
                                self.items.push(item);
                            }
                            self.alts.truncate(f.first);
                            self.undo(f.entry);
                        }
                        return Flow::Suspended;
                    }
                    Entry::Enough => return Flow::Enough,
                    Entry::Stopped => return Flow::Stopped,
                }
            }
            let depth = frames.len();
            let Some(f) = frames.last_mut() else {
                return Flow::Done;
            };
            self.undo(f.branch);
            self.key.truncate(base + depth - 1);
            if f.next == f.count {
                self.alts.truncate(f.first);
                let entry = f.entry;
                frames.pop();
                self.undo(entry);
                continue;
            }
            let k = f.next;
            f.next += 1;
            let (r, c) = self.alts[f.first + k];
            self.key.push(k as u32);
            self.nodes += 1;
            self.decisions += 1;
            self.place(r as usize, c as usize);
            entering = true;
        }
    }

    /// Enters the current node: splits or suspends here if due, propagates, and either
    /// settles the node (dead end, solution) with its state undone, or returns the frame of
    /// its branches (with their cells on `alts`).
    ///
    /// Kept whole although long: it is the search's innermost loop, and moving the
    /// propagation into a function of its own (inlined) measured 2 % fewer nodes per second
    /// (BENCHMARKS.md, "Why the engine's constants").
    #[inline(always)]
    fn enter<const SCAN: u8>(&mut self) -> Entry<B> {
        if self.key.len() >= self.mode.split_depth {
            self.items.push(self.item_here(None));
            return Entry::Done;
        }
        if self.nodes >= self.mode.budget {
            self.items.push(self.item_here(None));
            return Entry::Suspended;
        }
        self.poll -= 1;
        if self.poll == 0 {
            self.poll = POLL;
            if self.stop.now() {
                return Entry::Stopped;
            }
        }
        let entry = self.mark();
        let b = self.board;
        let (row, row_count, column) = loop {
            if self.rows_left.is_zero() {
                let flow = self.leaf();
                self.undo(entry);
                return if flow == Flow::Enough {
                    Entry::Enough
                } else {
                    Entry::Done
                };
            }
            let (mut forced, t1, t2, t3, t4, best, best_row);
            if let Some(scan) = self.vector_scan::<SCAN>() {
                if scan.dead {
                    self.undo(entry);
                    return Entry::Done;
                }
                forced = B::from_word(scan.forced);
                [t1, t2, t3, t4] = scan.at_least.map(B::from_word);
                (best, best_row) = (scan.best, scan.best_row);
            } else {
                let level = self.level();
                let (mut c1, mut c2, mut c3, mut c4) = (B::zero(), B::zero(), B::zero(), B::zero());
                let mut fewest = u32::MAX;
                let mut fewest_row = 0;
                let mut one = B::zero();
                let mut left = self.rows_left;
                while !left.is_zero() {
                    let r = left.lowest();
                    left = left.without(r);
                    let a = level[r];
                    let k = a.count();
                    if k <= 1 {
                        if k == 0 {
                            self.undo(entry);
                            return Entry::Done;
                        }
                        // The rest of the scan only looks for rows with one cell or none.
                        one = one.with(r);
                        while !left.is_zero() {
                            let r = left.lowest();
                            left = left.without(r);
                            match level[r].count() {
                                0 => {
                                    self.undo(entry);
                                    return Entry::Done;
                                }
                                1 => one = one.with(r),
                                _ => {}
                            }
                        }
                        break;
                    }
                    c4 = c4.or(c3.and(a));
                    c3 = c3.or(c2.and(a));
                    c2 = c2.or(c1.and(a));
                    c1 = c1.or(a);
                    // Rows come lowest label first: the first of the fewest wins.
                    if k < fewest {
                        fewest = k;
                        fewest_row = r;
                    }
                }
                forced = one;
                (t1, t2, t3, t4) = (c1, c2, c3, c4);
                (best, best_row) = (fewest, fewest_row);
            }
            if !forced.is_zero() {
                // Every row found with one cell is placed before the next scan; a
                // placement may have closed the cell of a later one.
                while !forced.is_zero() {
                    let r = forced.lowest();
                    forced = forced.without(r);
                    let a = self.open(r);
                    if a.is_zero() {
                        self.undo(entry);
                        return Entry::Done;
                    }
                    if b.any_refuted && !a.and(b.refuted[r]).is_zero() {
                        self.undo(entry);
                        return Entry::Done;
                    }
                    self.nodes += 1;
                    self.place(r, a.lowest());
                }
                continue;
            }
            if !self.cols_left.and_not(t1).is_zero() {
                self.undo(entry);
                return Entry::Done;
            }
            let mut once = self.cols_left.and_not(t2);
            if !once.is_zero() {
                // Every column free in one row only is placed before the next scan; a
                // placement may have closed the cell, or the row, of a later one.
                while !once.is_zero() {
                    let c = once.lowest();
                    once = once.without(c);
                    let rows = self.rows_holding::<SCAN>(c);
                    if rows.is_zero() {
                        self.undo(entry);
                        return Entry::Done;
                    }
                    if b.any_refuted && b.refuted[rows.lowest()].has(c) {
                        self.undo(entry);
                        return Entry::Done;
                    }
                    self.nodes += 1;
                    self.place(rows.lowest(), c);
                }
                continue;
            }
            // An open column with exactly two, else three, free cells.
            let (pairs, triples) = (t2.and_not(t3), t3.and_not(t4));
            let column = if !pairs.is_zero() {
                Some((pairs.lowest(), 2))
            } else if !triples.is_zero() {
                Some((triples.lowest(), 3))
            } else {
                None
            };
            break (best_row, best, column);
        };
        let first = self.alts.len();
        if let Some((c, _)) = column.filter(|&(_, k)| k < row_count) {
            let rows = self.rows_holding::<SCAN>(c);
            let alts = &mut self.alts;
            rows.each(|r| {
                if !(b.any_refuted && b.refuted[r].has(c)) {
                    alts.push((r as u16, c as u16));
                }
            });
        } else {
            let mut cells = self.open(row);
            if b.any_refuted {
                cells = cells.and_not(b.refuted[row]);
            }
            let alts = &mut self.alts;
            cells.each(|c| alts.push((row as u16, c as u16)));
        }
        if b.order_values && self.mode.want == 1 && self.key.len() < ORDERED_DEPTH {
            self.order_by_damage::<SCAN>(first);
        }
        Entry::Branch(Frame {
            entry,
            branch: self.mark(),
            first,
            count: self.alts.len() - first,
            next: 0,
        })
    }

    /// Sorts `alts[first..]` by the free cells each would close in the other open rows.
    #[inline(always)]
    fn order_by_damage<const SCAN: u8>(&mut self, first: usize) {
        let b = self.board;
        let m = b.m;
        // (damage, row, column) packed in one word, which sorts as the triple does.
        let mut scored = [0u64; 64];
        let count = self.alts.len() - first;
        if count > scored.len() {
            return;
        }
        for (k, &(r, c)) in self.alts[first..].iter().enumerate() {
            let others = self.rows_left.without(r as usize);
            let mut damage = 0;
            if let Some(closed) = self.vector_closed::<SCAN>(r as usize, c as usize) {
                // Not the queen's own row, which the table closes whole.
                damage = closed - self.open(r as usize).count();
            } else if let Some(table) = &b.table {
                let masks = &table[(r as usize * m + c as usize) * b.stride..][..m];
                let level = self.level();
                if 2 * others.count() as usize >= m {
                    // Most rows open: one pass over the whole level, which vectorises
                    // (closed rows hold no cells at this level; the queen's own row,
                    // closed whole, is taken off after); with few open, visiting them is
                    // cheaper (Table 2 at 1e3).
                    damage = level
                        .iter()
                        .zip(masks)
                        .map(|(&a, &k)| a.and(k).count())
                        .sum::<u32>()
                        - level[r as usize].count();
                } else {
                    let mut left = others;
                    while !left.is_zero() {
                        let r2 = left.lowest();
                        left = left.without(r2);
                        damage += level[r2].and(masks[r2]).count();
                    }
                }
            } else {
                let levels = &self.levels;
                each_attacked(b, others, r as usize, c as usize, |r2, c2| {
                    damage += u32::from(levels[r2].has(c2));
                });
            }
            scored[k] = (damage as u64) << 32 | (r as u64) << 16 | c as u64;
        }
        if count == 2 {
            // Most nodes branch two ways: a compare and two conditional moves, with no
            // branch to mispredict (the sort's small-slice path had 7 % of the search's
            // mispredictions in cachegrind's model).
            let (a, b) = (scored[0], scored[1]);
            (scored[0], scored[1]) = (a.min(b), a.max(b));
        } else {
            scored[..count].sort_unstable();
        }
        for (slot, &key) in self.alts[first..].iter_mut().zip(&scored[..count]) {
            *slot = ((key >> 16) as u16, key as u16);
        }
    }

    /// The current level with its padding, as words, where `SCAN` is a vector kernel (set
    /// only by `run_avx512` and `run_avx2`, which run where the CPU has that kernel's
    /// features and the residual is narrow enough).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn vector_level<const SCAN: u8>(&self) -> Option<super::bits::Words<'_>> {
        if SCAN == super::level_scan::SCALAR {
            return None;
        }
        let stride = self.board.stride;
        B::as_words(&self.levels[self.path.len() * stride..][..stride])
    }

    /// The current level scanned by [`level_scan`](super::level_scan), where
    /// `SCAN` is a vector kernel.
    #[inline(always)]
    fn vector_scan<const SCAN: u8>(&self) -> Option<super::level_scan::Scan> {
        #[cfg(target_arch = "x86_64")]
        if let Some(level) = self.vector_level::<SCAN>() {
            // SAFETY: see `vector_level`.
            return Some(unsafe {
                super::level_scan::scan::<SCAN>(level, self.rows_left.low_word())
            });
        }
        None
    }

    /// The free cells a queen on `(r, c)` would close, counted by
    /// [`level_scan`](super::level_scan), where `SCAN` is a vector kernel.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn vector_closed<const SCAN: u8>(&self, r: usize, c: usize) -> Option<u32> {
        #[cfg(target_arch = "x86_64")]
        if let (Some(level), Some(table)) = (self.vector_level::<SCAN>(), &self.board.table) {
            let (m, stride) = (self.board.m, self.board.stride);
            let masks = B::as_words(&table[(r * m + c) * stride..][..stride])?;
            // SAFETY: see `vector_level`.
            return Some(unsafe { super::level_scan::closed::<SCAN>(level, masks) });
        }
        None
    }

    /// The open rows with column `c` free.
    #[inline(always)]
    fn rows_holding<const SCAN: u8>(&self, c: usize) -> B {
        #[cfg(target_arch = "x86_64")]
        if let Some(level) = self.vector_level::<SCAN>() {
            // SAFETY: see `vector_level`.
            let rows = unsafe { super::level_scan::rows_with::<SCAN>(level, c) };
            return B::from_word(rows).and(self.rows_left);
        }
        let mut rows = B::zero();
        let mut left = self.rows_left;
        while !left.is_zero() {
            let r = left.lowest();
            left = left.without(r);
            if self.open(r).has(c) {
                rows = rows.with(r);
            }
        }
        rows
    }

    #[inline(always)]
    fn mark(&self) -> Mark<B> {
        (
            self.rows_left,
            self.cols_left,
            self.path.len(),
            self.trail.len(),
        )
    }

    #[inline(always)]
    fn undo(&mut self, (rows, cols, path, trail): Mark<B>) {
        while self.trail.len() > trail {
            let (r, old) = self.trail.pop().expect("longer than the mark");
            self.levels[r as usize] = old;
        }
        self.rows_left = rows;
        self.cols_left = cols;
        self.path.truncate(path);
    }

    /// The free cells of every row (closed rows: none where the attack table is used,
    /// stale sets where the levels are changed in place).
    #[inline(always)]
    fn level(&self) -> &[B] {
        let (m, stride) = (self.board.m, self.board.stride);
        let depth = if self.board.table.is_some() {
            self.path.len()
        } else {
            0
        };
        &self.levels[depth * stride..][..m]
    }

    /// The free cells of row `r`.
    #[inline(always)]
    fn open(&self, r: usize) -> B {
        if self.board.table.is_some() {
            self.levels[self.path.len() * self.board.stride + r]
        } else {
            self.levels[r]
        }
    }

    #[inline(always)]
    fn place(&mut self, r: usize, c: usize) {
        let b = self.board;
        let m = b.m;
        self.rows_left = self.rows_left.without(r);
        self.cols_left = self.cols_left.without(c);
        let depth = self.path.len();
        self.path.push((r as u16, c as u16));
        if let Some(table) = &b.table {
            let stride = b.stride;
            let masks = &table[(r * m + c) * stride..][..stride];
            let (cur, next) = self.levels.split_at_mut((depth + 1) * stride);
            let cur = &cur[depth * stride..];
            // The row placed holds no cells from here on (its mask is every cell; rows
            // closed before hold none already): a pass over a whole level needs no mask
            // of the open rows. It goes eight sets at a time (`stride` is whole groups of
            // eight): a fixed number of vector operations each and no loop tail, where a
            // loop set by set had cost 12 % of the search's instructions.
            let (next, _) = next[..stride].as_chunks_mut::<8>();
            let (cur, _) = cur[..stride].as_chunks::<8>();
            let (masks, _) = masks.as_chunks::<8>();
            for ((n, &o), &k) in next.iter_mut().zip(cur).zip(masks) {
                *n = std::array::from_fn(|i| o[i].and_not(k[i]));
            }
            return;
        }
        let levels = &mut self.levels;
        let trail = &mut self.trail;
        each_attacked(b, self.rows_left, r, c, |r2, c2| {
            let old = levels[r2];
            if old.has(c2) {
                trail.push((r2 as u32, old));
                levels[r2] = old.without(c2);
            }
        });
    }

    #[inline(always)]
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
}
