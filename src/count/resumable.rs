//! Counts made of independent work items, which a caller can watch, stop, and resume by
//! skipping the items already counted: what `count --checkpoint` and the count's progress
//! display drive. Regular queens on an empty board: the half-board engine for n <= 23,
//! start constellations beyond (the long counts, n = 19 and up).

use super::checkpoint::Key;
use super::dispatch::tally;
use super::{Kind, Piece};
use super::{Method, Problem, Shard, Tally, constellations, halves, kernel};
use num_bigint::BigUint;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The version of the half-board engine's work items: a checkpoint names it, and one
/// written by another version (whose items may differ) is refused.
pub const HALF_BOARDS_VERSION: u32 = 1;

/// The version of the constellation engine's work items (one per constellation class and
/// square of its first free row, in the order `constellations::WorkItems` lists them;
/// version 1 had one item per class).
pub const CONSTELLATIONS_VERSION: u32 = 2;

/// The work items of one engine.
enum Work {
    Halves(halves::Work),
    Constellations(constellations::WorkItems),
}

/// What a caller is told and asked while items are counted (from worker threads).
pub struct Hooks<'a> {
    /// Items to leave out (already counted).
    pub skip: &'a (dyn Fn(usize) -> bool + Sync),
    /// Called with each item counted and its value.
    pub counted: &'a (dyn Fn(usize, u64) + Sync),
    /// Asked before each item: `true` stops the count (items under way finish).
    pub stop: &'a crate::stop::Stop,
}

fn never(_: usize) -> bool {
    false
}

fn ignore(_: usize, _: u64) {}

/// A stop that never comes.
static NEVER: std::sync::LazyLock<crate::stop::Stop> =
    std::sync::LazyLock::new(crate::stop::Stop::never);

impl<'a> Hooks<'a> {
    /// Count everything, report nothing, stop when `stop` says so.
    pub fn until(stop: &'a crate::stop::Stop) -> Hooks<'a> {
        Hooks {
            skip: &never,
            counted: &ignore,
            stop,
        }
    }
}

impl Hooks<'static> {
    /// Count everything, report nothing.
    pub fn none() -> Hooks<'static> {
        Hooks {
            skip: &never,
            counted: &ignore,
            stop: &NEVER,
        }
    }
}

/// The seed of the order in which [`ItemCount::run`] counts items: blocks of
/// `ORDER_BLOCK` consecutive items (neighbours share the tables they read: items one by
/// one in a random order took 20 % longer at n = 19) in a random order.
const ORDER_SEED: u64 = 0x006e_7175_6565_6e73;
const ORDER_BLOCK: usize = 64;

/// A count split into work items that add up.
pub struct ItemCount {
    problem: Problem,
    distinct: bool,
    shard: Shard,
    work: Work,
    /// Counting a shard of a plan: its items (sorted half-open ranges) and the plan's
    /// digest; else the shard takes every S-th item.
    planned: Option<(Vec<[u64; 2]>, String)>,
}

impl ItemCount {
    /// The item-by-item form of this count, when its engine has one: regular queens on an
    /// empty board with n in the half-board engine's range (4..=23) or the constellation
    /// engine's beyond it (24..=31), and, for `distinct`, no shards (Burnside's formula
    /// needs the whole total).
    pub fn new(problem: &Problem, distinct: bool, shard: Shard) -> Option<ItemCount> {
        let n = problem.n;
        let engine = if (halves::MIN_N..=halves::MAX_N).contains(&n) {
            Method::HalfBoards
        } else if (halves::MAX_N + 1..=constellations::MAX_N).contains(&n) {
            Method::Constellations
        } else {
            return None;
        };
        Self::with_engine(problem, distinct, shard, engine)
    }

    /// [`ItemCount::new`] with the engine chosen ([`Method::HalfBoards`] for n = 4..=23 or
    /// [`Method::Constellations`] for n = 5..=31), to run an engine outside the range it
    /// is chosen for: tests, benchmarks and bug reports (`NQUEENS_COUNT_ENGINE`).
    pub fn with_engine(
        problem: &Problem,
        distinct: bool,
        shard: Shard,
        engine: Method,
    ) -> Option<ItemCount> {
        let n = problem.n;
        let fits = problem.rules.piece == Piece::Queen
            && problem.rules.kind == Kind::Regular
            && problem.placed.is_empty()
            && (!distinct || shard.of == 1);
        // Checked before the work is made: the half boards' quarter tables take seconds
        // to build from n = 20 (a count of a full board given by --from took 26 s at 23).
        if !fits {
            return None;
        }
        let work = match engine {
            Method::HalfBoards if (halves::MIN_N..=halves::MAX_N).contains(&n) => {
                Work::Halves(halves::Work::new(n))
            }
            Method::Constellations
                if (constellations::MIN_N..=constellations::MAX_N).contains(&n) =>
            {
                Work::Constellations(constellations::WorkItems::new(n))
            }
            _ => return None,
        };
        Some(ItemCount {
            problem: problem.clone(),
            distinct,
            shard,
            work,
            planned: None,
        })
    }

    /// This count restricted to the items `ranges` (sorted half-open ranges of item
    /// indices), as shard `shard` of the plan whose digest is `plan`
    /// ([`super::plan::Plan::shard_count`] checks the plan first).
    pub(super) fn with_listed_items(
        mut self,
        shard: Shard,
        ranges: Vec<[u64; 2]>,
        plan: String,
    ) -> ItemCount {
        self.shard = shard;
        self.planned = Some((ranges, plan));
        self
    }

    /// Work items of the whole count (all shards).
    pub fn items(&self) -> usize {
        match &self.work {
            Work::Halves(w) => w.len(),
            Work::Constellations(items) => items.len(),
        }
    }

    /// The engine counting the items.
    pub fn engine(&self) -> Method {
        match self.work {
            Work::Halves(_) => Method::HalfBoards,
            Work::Constellations(_) => Method::Constellations,
        }
    }

    /// Whether this count's shard takes item `i`.
    pub fn takes(&self, i: usize) -> bool {
        match &self.planned {
            None => self.shard.takes(i),
            Some((ranges, _)) => {
                let i = i as u64;
                let at = ranges.partition_point(|r| r[1] <= i);
                ranges.get(at).is_some_and(|r| r[0] <= i)
            }
        }
    }

    /// Work items of this count's shard.
    pub fn in_shard(&self) -> usize {
        match &self.planned {
            None => (0..self.items()).filter(|&i| self.takes(i)).count(),
            Some((ranges, _)) => ranges.iter().map(|r| (r[1] - r[0]) as usize).sum(),
        }
    }

    /// The digest of the plan whose shard this counts, if any.
    pub fn plan_digest(&self) -> Option<&str> {
        self.planned.as_ref().map(|(_, d)| d.as_str())
    }

    /// What a checkpoint of this count is tied to.
    pub fn key(&self) -> Key {
        let version = match self.work {
            Work::Halves(_) => HALF_BOARDS_VERSION,
            Work::Constellations(_) => CONSTELLATIONS_VERSION,
        };
        let mut key = Key::new(
            &self.problem,
            self.shard,
            self.engine(),
            version,
            self.items(),
        );
        key.plan = self.plan_digest().map(str::to_string);
        key
    }

    /// Counts the shard's items that `hooks.skip` leaves, on the current rayon pool; the
    /// sum of their values, or `None` when `hooks.stop` stopped the count.
    pub fn run(&self, hooks: &Hooks) -> Option<u64> {
        let stopped = AtomicBool::new(false);
        // In an order drawn once for all runs (items differ in cost by orders of magnitude):
        // the items counted so far are then a random sample, from which a count under way
        // projects its time left as `count --estimate` does, and no run of costly items
        // comes last to leave threads idle. The sum does not depend on the order.
        let todo = self.todo(hooks.skip).into_par_iter();
        // Each engine's items, with the scratch space one thread reuses between them.
        let sum = match &self.work {
            Work::Halves(work) => {
                let kernel = kernel::Kernel::best();
                todo.map_init(halves::Scratch::default, |scratch, i| {
                    self.item(hooks, &stopped, i, || work.count(i, kernel, scratch))
                })
                .sum()
            }
            Work::Constellations(items) => todo
                .map(|i| self.item(hooks, &stopped, i, || items.get(i).count()))
                .sum(),
        };
        (!stopped.load(Ordering::Relaxed)).then_some(sum)
    }

    /// The shard's items that `skip` leaves, in the order they are counted: blocks of
    /// `ORDER_BLOCK` consecutive items in an order drawn once for all runs.
    pub fn todo(&self, skip: &(dyn Fn(usize) -> bool + Sync)) -> Vec<usize> {
        let mut blocks: Vec<usize> = (0..self.items().div_ceil(ORDER_BLOCK)).collect();
        blocks.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(ORDER_SEED));
        blocks
            .into_iter()
            .flat_map(|b| b * ORDER_BLOCK..((b + 1) * ORDER_BLOCK).min(self.items()))
            .filter(|&i| self.takes(i) && !skip(i))
            .collect()
    }

    /// Appends item `i`'s search nodes on its free row `depth` (its last if it has fewer) to
    /// `batch` ([`super::batch`]); `false` (nothing added) for the half-board engine.
    pub fn push_nodes(&self, batch: &mut super::batch::NodeBatch, i: usize, depth: usize) -> bool {
        let Work::Constellations(work) = &self.work else {
            return false;
        };
        batch.push(&work.get(i), depth);
        true
    }

    /// The value of item `i` alone (to time it: see [`super::estimate`]), with the
    /// scratch space of this thread kept from item to item as [`ItemCount::run`] keeps it,
    /// so that an item costs here what it costs in the count.
    pub fn count_item(&self, i: usize) -> u64 {
        thread_local! {
            static SCRATCH: std::cell::RefCell<halves::Scratch> = Default::default();
        }
        match &self.work {
            Work::Halves(work) => {
                SCRATCH.with_borrow_mut(|scratch| work.count(i, kernel::Kernel::best(), scratch))
            }
            Work::Constellations(items) => items.get(i).count(),
        }
    }

    /// Items `items` of the constellation engine as one batch of search nodes on the free
    /// row `depth` of each item ([`super::batch`]): what a data-parallel
    /// backend takes. `None` for the half-board engine, whose items are matched as arrays
    /// of half-board masks instead (`sieve::disjoint_pairs`).
    pub fn node_batch(&self, items: &[usize], depth: usize) -> Option<super::batch::NodeBatch> {
        let mut batch = super::batch::NodeBatch::default();
        for &i in items {
            if !self.push_nodes(&mut batch, i, depth) {
                return None;
            }
        }
        (self.engine() == Method::Constellations).then_some(batch)
    }

    /// Counts item `i` with `count` unless the count is stopping, and reports it.
    fn item(
        &self,
        hooks: &Hooks,
        stopped: &AtomicBool,
        i: usize,
        count: impl FnOnce() -> u64,
    ) -> u64 {
        if stopped.load(Ordering::Relaxed) || hooks.stop.now() {
            stopped.store(true, Ordering::Relaxed);
            return 0;
        }
        let value = count();
        (hooks.counted)(i, value);
        value
    }

    /// The result, from the sum of the values of all the shard's items.
    pub fn tally(&self, total: u128) -> Tally {
        let distinct = self.distinct.then(|| {
            let (quarter, half) = constellations::rotation_invariant(self.problem.n);
            BigUint::from((total + 2 * quarter as u128 + half as u128) / 8)
        });
        tally(BigUint::from(total), distinct, self.engine(), self.items())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::Rules;
    use crate::count::checkpoint::Checkpoint;
    use std::sync::Mutex;
    use std::sync::atomic::AtomicUsize;

    fn queens(n: u32) -> Problem {
        Problem::new(n, Rules::new(Piece::Queen, Kind::Regular), vec![]).unwrap()
    }

    #[test]
    fn a_stopped_count_resumes_to_the_exact_total() {
        // OEIS A000170 at n = 13; stopped after a few items, then resumed twice.
        let count = ItemCount::new(&queens(13), false, Shard::WHOLE).unwrap();
        let saved = Mutex::new(Checkpoint::new(count.key()));
        for stop_after in [5usize, 40, usize::MAX] {
            let started = AtomicUsize::new(0);
            let before = saved.lock().unwrap().clone();
            let skip = |i: usize| before.is_done(i);
            let stop = crate::stop::Stop::new(None, Some(Default::default()));
            let counted = |i: usize, v: u64| {
                saved.lock().unwrap().record(i, v);
                if started.fetch_add(1, Ordering::SeqCst) + 1 >= stop_after {
                    stop.raise();
                }
            };
            let hooks = Hooks {
                skip: &skip,
                counted: &counted,
                stop: &stop,
            };
            let done = count.run(&hooks);
            assert_eq!(done.is_some(), stop_after == usize::MAX);
        }
        let st = saved.lock().unwrap();
        assert_eq!(st.counted(), count.items());
        assert_eq!(count.tally(st.sum).count, BigUint::from(73712u32));
    }

    /// The constellation engine, which counts n >= 24, resumes the same way (checked here
    /// at n = 12, where it runs as well).
    #[test]
    fn the_constellation_engine_stops_and_resumes_to_the_exact_total() {
        let count = ItemCount::with_engine(
            &queens(12),
            false,
            Shard::new(1, 2).unwrap(),
            Method::Constellations,
        )
        .unwrap();
        let straight = count.run(&Hooks::none()).unwrap();
        let saved = Mutex::new(Checkpoint::new(count.key()));
        for stop_after in [3usize, 10, usize::MAX] {
            let started = AtomicUsize::new(0);
            let before = saved.lock().unwrap().clone();
            let skip = |i: usize| before.is_done(i);
            let stop = crate::stop::Stop::new(None, Some(Default::default()));
            let counted = |i: usize, v: u64| {
                saved.lock().unwrap().record(i, v);
                if started.fetch_add(1, Ordering::SeqCst) + 1 >= stop_after {
                    stop.raise();
                }
            };
            let hooks = Hooks {
                skip: &skip,
                counted: &counted,
                stop: &stop,
            };
            assert_eq!(count.run(&hooks).is_some(), stop_after == usize::MAX);
        }
        let st = saved.lock().unwrap();
        assert_eq!(st.sum, straight as u128);
        let whole =
            ItemCount::with_engine(&queens(12), false, Shard::WHOLE, Method::Constellations)
                .unwrap();
        assert_eq!(whole.run(&Hooks::none()), Some(14200));
        assert_eq!(count.key().engine, Method::Constellations);
    }

    #[test]
    fn node_batches_of_a_shard_add_up_to_its_count() {
        let p = queens(13);
        let shard = Shard::new(1, 3).unwrap();
        let count = ItemCount::with_engine(&p, false, shard, Method::Constellations).unwrap();
        let mine: Vec<usize> = (0..count.items()).filter(|&i| count.takes(i)).collect();
        let batched: u64 = mine
            .chunks(500)
            .map(|c| count.node_batch(c, 6).unwrap().count())
            .sum();
        assert_eq!(batched, count.run(&Hooks::none()).unwrap());
        let halves = ItemCount::with_engine(&p, false, shard, Method::HalfBoards).unwrap();
        assert!(halves.node_batch(&[0], 6).is_none());
    }

    #[test]
    fn shards_split_the_items() {
        let whole = ItemCount::new(&queens(12), false, Shard::WHOLE).unwrap();
        let parts: u64 = (0..3)
            .map(|i| {
                let c = ItemCount::new(&queens(12), false, Shard::new(i, 3).unwrap()).unwrap();
                c.run(&Hooks::none()).unwrap()
            })
            .sum();
        assert_eq!(parts, whole.run(&Hooks::none()).unwrap());
        assert_eq!(parts, 14200);
    }
}
