//! Running the search: sequentially under a node budget, or on every core with work
//! items handed back in slices, the answer independent of the thread count.

use super::Residual;
use super::bits::Bits;
use super::search::{self, Board, Flow, Item, Mode, Search, TABLE_BYTES, Ties};
use serde::Serialize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The most free rows the engine takes.
pub(crate) const MAX_FREE: usize = 1024;

/// Nodes a parallel work item explores before handing back what it has not explored.
pub(super) const SLICE: u64 = 1 << 16;

/// How a search for a first solution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A queen for every residual row: (row, column) pairs, 1-based board coordinates, in
    /// the order placed.
    Solved(Vec<(u64, u64)>),
    /// Every branch failed: the residual has no completion.
    Exhausted,
    /// The node budget or the stop function ended the search first.
    Stopped,
}

/// Work done by a search.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Queens placed, by branching or forced by propagation.
    pub nodes: u64,
    /// Queens placed by branching.
    pub decisions: u64,
}

impl Counts {
    fn add<B>(&mut self, s: &Search<'_, B>) {
        self.nodes += s.nodes;
        self.decisions += s.decisions;
    }
}

/// Limits of a search.
#[derive(Clone, Copy)]
pub(crate) struct Limits<'a> {
    /// Placements (nodes) allowed.
    pub max_nodes: u64,
    /// Polled every thousand nodes or so; the search stops when it returns true.
    pub stop: &'a crate::stop::Stop,
}

/// Runs `$body` with `$B` the narrowest word set holding `$m` members: `u32` for at most
/// 32, unless this CPU scans levels by AVX-512, whose kernel takes `u64` words
/// ([`level_scan::takes`](super::level_scan::takes)).
macro_rules! with_width {
    ($m:expr, $B:ident => $body:expr) => {{
        let m: usize = $m;
        if m <= 32 && crate::simd::Kernel::best() != crate::simd::Kernel::Avx512 {
            type $B = u32;
            $body
        } else if m <= 64 {
            type $B = u64;
            $body
        } else if m <= 128 {
            type $B = [u64; 2];
            $body
        } else if m <= 256 {
            type $B = [u64; 4];
            $body
        } else if m <= 512 {
            type $B = [u64; 8];
            $body
        } else {
            assert!(m <= MAX_FREE, "residual of {m} rows");
            type $B = [u64; 16];
            $body
        }
    }};
}

/// The search's board for `res`, for a search expected to place about `expected` nodes,
/// with an attack table of at most `table_bytes`.
pub(super) fn board<B: Bits>(
    res: &Residual,
    seed: Option<u64>,
    ties: Ties,
    expected: u64,
    table_bytes: usize,
) -> Board<B> {
    // The attack table costs about m^3 steps to build and saves about m per node, so it
    // pays after about m^2 nodes. A short search walks the diagonals instead; both visit
    // the same nodes.
    let m = res.size() as u64;
    let table_bytes = if expected >= m.saturating_mul(m) {
        table_bytes
    } else {
        0
    };
    let mut b = Board::new(res, seed, ties, table_bytes);
    b.order_values = order_values();
    b
}

/// Whether to try branches least damaging first: yes, unless the environment variable
/// `NQUEENS_ORDER` is `0` (a switch for measuring it, read once).
pub(super) fn order_values() -> bool {
    static ORDER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ORDER.get_or_init(|| std::env::var("NQUEENS_ORDER").map_or(true, |v| v != "0"))
}

/// Searches `res` for a first solution on one thread, up to `limits.max_nodes` nodes, with
/// ties broken in the order `seed` gives.
pub(crate) fn first_sequential(res: &Residual, seed: u64, limits: Limits<'_>) -> (Outcome, Counts) {
    // A budget is a bound, not a forecast (most searches of complete's first pass, 2,000
    // + 20m nodes, end after a few dozen), so only a search whose budget could pay for the
    // table m times over builds it: the long budgets of later restarts.
    let expected = limits.max_nodes / (res.size() as u64).max(1);
    sequential(
        res,
        seed,
        Ties::MiddleFirst,
        true,
        expected,
        TABLE_BYTES,
        limits,
    )
}

/// [`first_sequential`], with rows' ties broken as `ties` says, the values of a node tried
/// least damaging first only if `order_values` (and the environment does not turn that
/// off), else in label order, and the attack table built if `expected` nodes pay for it
/// and it fits in `table_bytes`.
pub(super) fn sequential(
    res: &Residual,
    seed: u64,
    ties: Ties,
    order_values: bool,
    expected: u64,
    table_bytes: usize,
    limits: Limits<'_>,
) -> (Outcome, Counts) {
    with_width!(res.size(), B => {
        let mut board = board::<B>(res, Some(seed), ties, expected, table_bytes);
        board.order_values &= order_values;
        let mode = Mode { want: 1, budget: limits.max_nodes, split_depth: usize::MAX };
        let mut s = Search::at(&board, &Item::default(), mode, limits.stop);
        let flow = s.run();
        let mut counts = Counts::default();
        counts.add(&s);
        let outcome = match flow {
            Flow::Enough => solved(&board, &s.solution.expect("a solution was recorded").1),
            Flow::Done => Outcome::Exhausted,
            Flow::Suspended | Flow::Stopped => Outcome::Stopped,
        };
        (outcome, counts)
    })
}

pub(super) fn solved<B: Bits>(board: &Board<B>, path: &[(u16, u16)]) -> Outcome {
    Outcome::Solved(path.iter().map(|&cell| board.cell(cell)).collect())
}

/// Searches `res` for a first solution on every thread of the current rayon pool, until
/// `stop` says so. The solution is the first one the sequential search (ties broken in the
/// order `seed` gives) would find, whatever the thread count; an exhausted search counts
/// the same nodes as the sequential one.
pub(crate) fn first(res: &Residual, seed: u64, stop: &crate::stop::Stop) -> (Outcome, Counts) {
    with_width!(res.size(), B => {
        let board = board::<B>(res, Some(seed), Ties::MiddleFirst, u64::MAX, TABLE_BYTES);
        let shared = Shared::new(&board, stop, 1);
        rayon::scope(|scope| shared.run(scope, Item::default()));
        let counts = shared.counts();
        let outcome = if shared.stopped.load(Ordering::Relaxed) {
            Outcome::Stopped
        } else {
            match shared.best.into_inner().expect("no worker panicked") {
                Some((_, path)) => solved(&board, &path),
                None => Outcome::Exhausted,
            }
        };
        (outcome, counts)
    })
}

/// A count split into work items for shards: how many items there are, and the count of
/// those `take` accepts (by index), or `None` when `stop` ended it.
pub(crate) struct Count {
    /// Work items the count was split into (fixed for a residual).
    pub items: usize,
    /// Completions in the items taken; `None` when stopped.
    pub completions: Option<u64>,
    /// Work done; only tests read it, to check that the work is the same on any thread count.
    #[cfg_attr(not(test), allow(dead_code))]
    pub counts: Counts,
}

/// Work items of a count: the residual split at the first branch levels until there are at
/// least this many (the same for every run, so that shards agree).
pub(super) const COUNT_ITEMS: usize = 256;

/// Counts the completions of `res` in the work items `take` accepts, on every thread.
pub(crate) fn count(
    res: &Residual,
    take: &(dyn Fn(usize) -> bool + Sync),
    stop: &crate::stop::Stop,
) -> Count {
    with_width!(res.size(), B => {
        let board = board::<B>(res, None, Ties::MiddleFirst, u64::MAX, TABLE_BYTES);
        let items = split(&board, COUNT_ITEMS, stop);
        // A tree split into this many items is worth a linear program first: one that
        // refutes the residual makes every item's count 0 (`relaxation`; every shard
        // reaches the same conclusion, with the same items).
        if items.len() >= COUNT_ITEMS && super::relaxation::refutes(res, stop) {
            return Count {
                items: items.len(),
                completions: Some(0),
                counts: Counts::default(),
            };
        }
        let shared = Shared::new(&board, stop, u64::MAX);
        rayon::scope(|scope| {
            for (i, item) in items.iter().enumerate() {
                if take(i) {
                    let shared = &shared;
                    let item = item.clone();
                    scope.spawn(move |scope| shared.run(scope, item));
                }
            }
        });
        Count {
            items: items.len(),
            completions: (!shared.stopped.load(Ordering::Relaxed))
                .then(|| shared.found.load(Ordering::Relaxed)),
            counts: shared.counts(),
        }
    })
}

/// The subtrees at the first branch levels of `board`'s search, deepened until there are at
/// least `at_least` (or the tree ends), in search order. Solutions met above the split
/// level are items of their own (a complete path), counted when their item runs.
pub(super) fn split<B: Bits>(
    board: &Board<B>,
    at_least: usize,
    stop: &crate::stop::Stop,
) -> Vec<Item> {
    let mut items = vec![Item::default()];
    for depth in 1..=board.size() {
        if items.len() >= at_least {
            break;
        }
        let mode = Mode {
            want: u64::MAX,
            budget: u64::MAX,
            split_depth: depth,
        };
        let mut s = Search::at(board, &Item::default(), mode, stop);
        s.run();
        items = s.items;
    }
    items
}

/// What the workers of one parallel search share.
pub(super) struct Shared<'a, B> {
    board: &'a Board<B>,
    stop: &'a crate::stop::Stop,
    want: u64,
    /// The first solution so far in search order (first-solution mode).
    best: Mutex<Option<search::Found>>,
    found: AtomicU64,
    nodes: AtomicU64,
    decisions: AtomicU64,
    stopped: AtomicBool,
}

impl<'a, B: Bits> Shared<'a, B> {
    fn new(board: &'a Board<B>, stop: &'a crate::stop::Stop, want: u64) -> Self {
        Shared {
            board,
            stop,
            want,
            best: Mutex::new(None),
            found: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            decisions: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
        }
    }

    fn counts(&self) -> Counts {
        Counts {
            nodes: self.nodes.load(Ordering::Relaxed),
            decisions: self.decisions.load(Ordering::Relaxed),
        }
    }

    /// Whether an item can be skipped: a solution earlier in search order is known.
    fn beaten(&self, key: &[u32]) -> bool {
        self.want == 1
            && self
                .best
                .lock()
                .expect("no worker panicked")
                .as_ref()
                .is_some_and(|(best, _)| best.as_slice() < key)
    }

    fn run<'s>(&'s self, scope: &rayon::Scope<'s>, item: Item) {
        if self.stopped.load(Ordering::Relaxed) || self.beaten(&item.key) {
            return;
        }
        let mode = Mode {
            want: self.want,
            budget: SLICE + item.pending,
            split_depth: usize::MAX,
        };
        let mut s = Search::at(self.board, &item, mode, self.stop);
        let flow = s.run();
        self.nodes.fetch_add(s.nodes, Ordering::Relaxed);
        self.decisions.fetch_add(s.decisions, Ordering::Relaxed);
        self.found.fetch_add(s.found, Ordering::Relaxed);
        match flow {
            Flow::Stopped => self.stopped.store(true, Ordering::Relaxed),
            Flow::Enough if self.want == 1 => {
                let found = s.solution.take().expect("a solution was recorded");
                let mut best = self.best.lock().expect("no worker panicked");
                if best.as_ref().is_none_or(|(k, _)| found.0 < *k) {
                    *best = Some(found);
                }
            }
            Flow::Enough | Flow::Done => {}
            Flow::Suspended => {
                // A worker runs its own spawns last first, and other workers steal the
                // first: spawned in reverse, this worker goes on in search order (the
                // node it stopped at, then the deepest siblings) and thieves take the
                // shallowest, largest subtrees. Spawned in order, one thread searched the
                // latest subtrees first (n = 25: 1.3e9 nodes against 1.6e5 on two).
                for item in s.items.drain(..).rev() {
                    scope.spawn(move |scope| self.run(scope, item));
                }
            }
        }
    }
}
