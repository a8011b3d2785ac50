//! A count shared between a data-parallel device (the GPU of `count --gpu`, [`Device`])
//! and CPU threads: the items left are taken from one counter, by the device in batches
//! of about [`Settings::batch_nodes`] search nodes ([`super::batch`]) and by each CPU
//! thread one item at a time. Two batches are in flight, so that the device starts one
//! batch while the other's last nodes finish and the host builds the next batch while the
//! device works; near the end the device takes at most half of what is left, so that
//! neither side waits long for the other. A few nodes of every batch are counted on the
//! CPU too, and a device that disagrees is an error.
//!
//! This part holds no GPU code, so its tests run it over a device made of the CPU's node
//! search, and `benches/count_share.rs` times it over a simulated one; `gpu.rs` is the
//! CUDA device.

use super::batch::{NodeBatch, TABLE_WORDS, count_node};
use super::resumable::{Hooks, ItemCount};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Nodes of each batch also counted on the CPU and compared.
const SPOT_CHECKS: usize = 16;

/// Static shared memory a GPU block may have.
const SHARED_BYTES: usize = 48 * 1024;

/// How a count runs on the device: defaults, each of which an environment variable
/// overrides (for tuning on a new card; README, "Counting on a GPU").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The free row whose nodes go to the device (`NQUEENS_GPU_DEPTH`): each of its
    /// threads searches from there to the item's last row.
    pub depth: usize,
    /// Threads per block (`NQUEENS_GPU_BLOCK`).
    pub block: u32,
    /// Search stacks in shared memory rather than each thread's local memory
    /// (`NQUEENS_GPU_STACK=shared|local`).
    pub shared: bool,
    /// Nodes per batch (`NQUEENS_GPU_BATCH`).
    pub batch_nodes: usize,
    /// CPU threads counting items beside the device (`NQUEENS_GPU_CPU_THREADS`; default:
    /// none).
    pub cpu_threads: usize,
}

/// The value of environment variable `name` when set and not empty, if `ok` takes it;
/// else an error saying what it takes (`expected`).
fn var<T: std::str::FromStr>(
    name: &str,
    expected: &str,
    ok: impl Fn(&T) -> bool,
) -> Result<Option<T>, String> {
    match text(name)? {
        None => Ok(None),
        Some(v) => match v.parse::<T>() {
            Ok(x) if ok(&x) => Ok(Some(x)),
            _ => Err(format!("{name}={v:?}: expected {expected}")),
        },
    }
}

/// Environment variable `name` when set and not empty; an error when it is not text.
fn text(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(format!("{name}={v:?}: not text")),
        Ok(v) if v.is_empty() => Ok(None),
        Ok(v) => Ok(Some(v)),
    }
}

impl Settings {
    /// The settings for boards of `n`, as the environment overrides them; an error names a
    /// variable whose value is not usable.
    pub fn for_board(n: u32) -> Result<Settings, String> {
        // The defaults are the fastest on an H100 (BENCHMARKS.md): of depths 3 and 4 and
        // blocks of 64 and 128 at n = 20, within 1 % of each other; stacks in shared memory
        // 2.6x as fast as in local memory at n = 19; depth 5 3x slower (its nodes cost
        // more to build and send than they save).
        let depth = var(
            "NQUEENS_GPU_DEPTH",
            "a free row from 1 to 12",
            |&d: &usize| (1..=12).contains(&d),
        )?
        .unwrap_or(4);
        let block = var(
            "NQUEENS_GPU_BLOCK",
            "a multiple of 32 from 32 to 1024",
            |&b: &u32| b % 32 == 0 && (32..=1024).contains(&b),
        )?;
        let stack = match text("NQUEENS_GPU_STACK")?.as_deref() {
            None => None,
            Some("shared") => Some(true),
            Some("local") => Some(false),
            Some(v) => {
                return Err(format!("NQUEENS_GPU_STACK={v:?}: expected shared or local"));
            }
        };
        let batch_nodes = var("NQUEENS_GPU_BATCH", "nodes from 1 to 2^28", |&b: &usize| {
            (1..=1 << 28).contains(&b)
        })?
        .unwrap_or(1 << 22);
        // No CPU threads beside the GPU unless asked: they count the constellation
        // engine's items, which an H100 counted about 40 times as fast as 16 Xeon threads
        // (Q(20): 3.7 % of the items), and they slowed the thread feeding the GPU (Q(20)
        // in 6.1 s beside them, 3.9 s without; BENCHMARKS.md).
        let cpu_threads = var(
            "NQUEENS_GPU_CPU_THREADS",
            "threads from 0 to 4096",
            |&t: &usize| t <= 4096,
        )?
        .unwrap_or(0);
        let mut s = Settings {
            depth,
            block: block.unwrap_or(128),
            shared: false,
            batch_nodes,
            cpu_threads,
        };
        if block.is_none() {
            // Blocks of 128 threads unless their stacks would not fit in shared memory
            // (n = 24 at nodes of free row 4): then the largest that fits.
            let fits = |b: u32| {
                Settings {
                    block: b,
                    ..s.clone()
                }
                .shared_bytes(n)
                    <= SHARED_BYTES
            };
            s.block = [128, 64, 32].into_iter().find(|&b| fits(b)).unwrap_or(128);
        }
        if stack == Some(true) && s.shared_bytes(n) > SHARED_BYTES {
            return Err(format!(
                "NQUEENS_GPU_STACK=shared: {} stack levels for blocks of {} threads take {} bytes of shared memory, more than {SHARED_BYTES}",
                s.stack_depth(n),
                s.block,
                s.shared_bytes(n)
            ));
        }
        s.shared = stack.unwrap_or(s.shared_bytes(n) <= SHARED_BYTES);
        Ok(s)
    }

    /// Stack levels a device thread needs at `n`: an item has at most n - 3 free rows
    /// (the four queens on the board's edges take three rows or four), and a thread keeps
    /// a pair for each row from its node's down to the one above the last.
    pub fn stack_depth(&self, n: u32) -> usize {
        (n as usize).saturating_sub(4 + self.depth).max(1)
    }

    /// Shared memory a block's stacks and row pairs take (24 bytes a level and thread),
    /// when they are in shared memory.
    pub fn shared_bytes(&self, n: u32) -> usize {
        24 * self.stack_depth(n) * self.block as usize
    }
}

/// What a shared count did: its sum, how many items each side counted, and where the
/// time went (for tuning: README, "Counting on a GPU").
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Shared {
    /// The items' values added up.
    pub sum: u64,
    /// Items counted on the device.
    pub device_items: usize,
    /// Items counted by the CPU threads beside it.
    pub cpu_items: usize,
    /// Search nodes sent to the device.
    pub nodes: usize,
    /// Batches sent to the device.
    pub batches: usize,
    /// Seconds the feeding thread spent building batches.
    pub build_seconds: f64,
    /// Seconds it spent sending them (copies to the device, launches).
    pub launch_seconds: f64,
    /// Seconds it waited for the device's results.
    pub wait_seconds: f64,
    /// Seconds it spent checking nodes on the CPU and reporting items.
    pub check_seconds: f64,
    /// Seconds the CPU threads spent counting items, all threads together.
    pub cpu_seconds: f64,
}

/// A data-parallel device that counts the nodes of a batch.
pub trait Device: Sync {
    /// A batch under way.
    type Pending;
    /// Starts counting `batch` on queue `queue` (0 or 1), returning before it is done.
    fn launch(&self, queue: usize, batch: &NodeBatch) -> Result<Self::Pending, String>;
    /// Waits for a batch: each node's placements (unweighted), in order.
    fn wait(&self, pending: Self::Pending) -> Result<Vec<u64>, String>;
    /// The device's name, for messages.
    fn name(&self) -> &str;
    /// Run by each CPU thread before it counts: undoes what opening the device did to
    /// the process's threads, if anything (`gpu.rs`: their CPU affinity).
    fn prepare_cpu_thread(&self) {}
}

/// Counts `count`'s items that `hooks` leaves on `device` and `settings.cpu_threads` CPU
/// threads, reporting each item's value as the CPU engine does (so that checkpoints and
/// progress work alike); `Ok(None)` when `hooks.stop` stopped it (the items under way are
/// finished and reported). On a device error the CPU threads finish the queue, the items
/// the device held are not reported, and the error is returned: the caller counts what no
/// report covers. The half-board engine's items are refused (no kernel for them).
pub fn count<D: Device>(
    device: &D,
    settings: &Settings,
    count: &ItemCount,
    hooks: &Hooks,
) -> Result<Option<Shared>, String> {
    if count.engine() != super::Method::Constellations {
        return Err("the GPU counts the constellation engine's items only".into());
    }
    let todo = count.todo(hooks.skip);
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let (cpu_sum, cpu_items, cpu_nanos) =
        (AtomicU64::new(0), AtomicUsize::new(0), AtomicU64::new(0));
    let fed = std::thread::scope(|s| {
        for _ in 0..settings.cpu_threads {
            s.spawn(|| {
                device.prepare_cpu_thread();
                loop {
                    if stopped.load(Ordering::Relaxed) || hooks.stop.now() {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(k) else { return };
                    let started = Instant::now();
                    let value = count.count_item(i);
                    cpu_nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
                    (hooks.counted)(i, value);
                    cpu_sum.fetch_add(value, Ordering::Relaxed);
                    cpu_items.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        let helped = (settings.cpu_threads > 0).then_some(&cpu_items);
        feed(
            device, settings, count, hooks, &todo, &next, helped, &stopped,
        )
    })?;
    // Every item taken was counted and reported: the count is whole when none is left to
    // take (a thread that saw the stop took nothing more).
    if next.into_inner() < todo.len() {
        return Ok(None);
    }
    Ok(Some(Shared {
        sum: fed.sum + cpu_sum.into_inner(),
        cpu_items: cpu_items.into_inner(),
        cpu_seconds: cpu_nanos.into_inner() as f64 * 1e-9,
        ..fed
    }))
}

/// A batch on the device with the items it holds.
struct InFlight<P> {
    pending: P,
    batch: NodeBatch,
    items: Vec<usize>,
}

/// The device's side of [`count`]: batches taken from `next` until `todo` is done.
/// `helped` counts the items CPU threads have counted, when they work beside it.
#[allow(clippy::too_many_arguments)]
fn feed<D: Device>(
    device: &D,
    settings: &Settings,
    count: &ItemCount,
    hooks: &Hooks,
    todo: &[usize],
    next: &AtomicUsize,
    helped: Option<&AtomicUsize>,
    stopped: &AtomicBool,
) -> Result<Shared, String> {
    let mut done = Shared::default();
    let mut in_flight: VecDeque<InFlight<D::Pending>> = VecDeque::new();
    let mut items_sent = 0usize;
    let mut queue = 0usize;
    // Buffers of reported batches, and of the parts batches are built from, for reuse.
    let mut spare: Vec<NodeBatch> = Vec::new();
    let parts = std::sync::Mutex::new(Vec::new());
    loop {
        let left = todo.len().saturating_sub(next.load(Ordering::Relaxed));
        if left == 0 {
            break;
        }
        if stopped.load(Ordering::Relaxed) || hooks.stop.now() {
            stopped.store(true, Ordering::Relaxed);
            break;
        }
        // Items for about batch_nodes nodes at the nodes per item seen so far. Beside CPU
        // threads, no more than keeps the device's work (what it holds and the new batch)
        // within its share of all the work left, its share being the part of the items
        // counted so far that it counted (a half until its first batch of 1,024 is back),
        // less a quarter for the error of that guess: both sides then run out of work at
        // about the same time. A device whose share is not one item more takes no more.
        let want = match done.nodes {
            0 => 1024,
            nodes => (settings.batch_nodes * items_sent / nodes).max(1),
        };
        let want = match helped {
            None => want,
            Some(cpu_items) => {
                let (by_device, by_cpu) = (done.device_items, cpu_items.load(Ordering::Relaxed));
                let share = match (by_device, by_cpu) {
                    (0, _) => 0.5,
                    (_, 0) => 0.9,
                    _ => by_device as f64 / (by_device + by_cpu) as f64,
                };
                let held: usize = in_flight.iter().map(|f| f.items.len()).sum();
                let fair = ((left + held) as f64 * share * 0.75) as usize;
                match (fair.saturating_sub(held), in_flight.pop_front()) {
                    (0, None) => break,
                    (0, Some(f)) => {
                        spare.push(report(device, f, hooks, &mut done)?);
                        continue;
                    }
                    (room, f) => {
                        if let Some(f) = f {
                            in_flight.push_front(f);
                        }
                        want.min(room)
                    }
                }
            }
        };
        let from = next.fetch_add(want, Ordering::Relaxed).min(todo.len());
        let to = (from + want).min(todo.len());
        if from == to {
            continue;
        }
        let started = Instant::now();
        let mut batch = spare.pop().unwrap_or_default();
        build(count, &todo[from..to], settings.depth, &mut batch, &parts);
        items_sent += to - from;
        let built = Instant::now();
        done.build_seconds += (built - started).as_secs_f64();
        let pending = device.launch(queue, &batch)?;
        done.launch_seconds += built.elapsed().as_secs_f64();
        done.nodes += batch.nodes.len();
        done.batches += 1;
        queue ^= 1;
        in_flight.push_back(InFlight {
            pending,
            batch,
            items: todo[from..to].to_vec(),
        });
        // Beside CPU threads, the first batch comes back before a second is sent: the
        // device's share is guessed until then.
        let first = helped.is_some() && done.device_items == 0;
        while in_flight.len() > 1 || (first && !in_flight.is_empty()) {
            spare.push(report(
                device,
                in_flight.pop_front().unwrap(),
                hooks,
                &mut done,
            )?);
        }
    }
    while let Some(f) = in_flight.pop_front() {
        report(device, f, hooks, &mut done)?;
    }
    Ok(done)
}

/// Builds the nodes of `items` into `batch` (emptied first), in parts of 64 items on the
/// rayon pool, with part buffers from `parts`. On one thread with new buffers, building the
/// 85 M nodes of Q(20) took 1.7 s, most of what an H100 took to count them, much of it in
/// page faults on fresh memory (which threads do not share out): buffers are reused, the
/// batch's from those of batches already reported.
fn build(
    count: &ItemCount,
    items: &[usize],
    depth: usize,
    batch: &mut NodeBatch,
    parts: &std::sync::Mutex<Vec<NodeBatch>>,
) {
    const PART: usize = 64;
    let spare = || parts.lock().unwrap_or_else(|e| e.into_inner()).pop();
    let built: Vec<NodeBatch> = items
        .par_chunks(PART)
        .map(|chunk| {
            let mut part = spare().unwrap_or_default();
            part.clear();
            for &i in chunk {
                count.push_nodes(&mut part, i, depth);
            }
            part
        })
        .collect();
    batch.clear();
    for part in built {
        batch.append(&part);
        parts.lock().unwrap_or_else(|e| e.into_inner()).push(part);
    }
}

/// Waits for a batch, checks a few of its nodes on the CPU, and reports its items.
fn report<D: Device>(
    device: &D,
    f: InFlight<D::Pending>,
    hooks: &Hooks,
    done: &mut Shared,
) -> Result<NodeBatch, String> {
    let started = Instant::now();
    let counts = device.wait(f.pending)?;
    let waited = Instant::now();
    done.wait_seconds += (waited - started).as_secs_f64();
    let b = &f.batch;
    if counts.len() != b.nodes.len() {
        return Err(format!(
            "{}: a batch of {} nodes came back with {} counts",
            device.name(),
            b.nodes.len(),
            counts.len()
        ));
    }
    // Checked side by side: one at a time, they took 0.45 s of Q(20)'s 3.9 s on an H100.
    let step = (b.nodes.len() / SPOT_CHECKS).max(1);
    let checks: Vec<usize> = (0..b.nodes.len())
        .step_by(step)
        .take(SPOT_CHECKS + 1)
        .collect();
    let wrong = checks.par_iter().find_map_first(|&i| {
        let at = b.owners[i] as usize * TABLE_WORDS;
        let cpu = count_node(&b.tables[at..at + TABLE_WORDS], b.nodes[i]);
        (counts[i] != cpu).then_some((i, cpu))
    });
    if let Some((i, cpu)) = wrong {
        return Err(format!(
            "{}: node {i} of a batch counted {} on the device and {cpu} on the CPU",
            device.name(),
            counts[i]
        ));
    }
    let mut values = vec![0u64; f.items.len()];
    for (c, &o) in counts.iter().zip(&b.owners) {
        values[o as usize] += c * b.weights[o as usize];
    }
    for (&i, &value) in f.items.iter().zip(&values) {
        (hooks.counted)(i, value);
        done.sum += value;
        done.device_items += 1;
    }
    done.check_seconds += waited.elapsed().as_secs_f64();
    Ok(f.batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::{Kind, Method, Piece, Problem, Rules, Shard};
    use std::sync::Mutex;

    /// A device made of the CPU's node search: counts a batch when it is waited for, and
    /// gets every `wrong`-th batch's node 0 wrong (when `wrong` > 0).
    struct Host {
        wrong: usize,
        launched: AtomicUsize,
    }

    impl Device for Host {
        type Pending = (usize, NodeBatch);
        fn launch(&self, queue: usize, batch: &NodeBatch) -> Result<Self::Pending, String> {
            assert!(queue < 2);
            Ok((self.launched.fetch_add(1, Ordering::SeqCst), batch.clone()))
        }
        fn wait(&self, (k, batch): Self::Pending) -> Result<Vec<u64>, String> {
            let mut counts = batch.node_counts();
            if self.wrong > 0 && (k + 1) % self.wrong == 0 && !counts.is_empty() {
                counts[0] += 1;
            }
            Ok(counts)
        }
        fn name(&self) -> &str {
            "the host"
        }
    }

    fn host(wrong: usize) -> Host {
        Host {
            wrong,
            launched: AtomicUsize::new(0),
        }
    }

    fn items(n: u32, shard: Shard) -> ItemCount {
        let p = Problem::new(n, Rules::new(Piece::Queen, Kind::Regular), vec![]).unwrap();
        ItemCount::with_engine(&p, false, shard, Method::Constellations).unwrap()
    }

    fn settings(depth: usize, batch_nodes: usize, cpu_threads: usize) -> Settings {
        Settings {
            depth,
            block: 128,
            shared: false,
            batch_nodes,
            cpu_threads,
        }
    }

    #[test]
    fn device_and_cpu_threads_count_every_item_once() {
        // OEIS A000170 at n = 10..13, at several depths, batch sizes and thread counts.
        for (n, total) in [(10u32, 724u64), (11, 2680), (12, 14200), (13, 73712)] {
            let count = items(n, Shard::WHOLE);
            for (depth, batch, threads) in [(3, 1 << 22, 0), (4, 50, 2), (1, 7, 1), (40, 300, 3)] {
                let seen = Mutex::new(vec![0u32; count.items()]);
                let counted = |i: usize, _: u64| seen.lock().unwrap()[i] += 1;
                let stop = crate::stop::Stop::new(None, None);
                let hooks = Hooks {
                    skip: &|_| false,
                    counted: &counted,
                    stop: &stop,
                };
                let s = settings(depth, batch, threads);
                let done = super::count(&host(0), &s, &count, &hooks).unwrap().unwrap();
                assert_eq!(done.sum, total, "n = {n}, {s:?}");
                assert_eq!(done.device_items + done.cpu_items, count.items());
                assert!(
                    seen.into_inner().unwrap().iter().all(|&k| k == 1),
                    "n = {n}"
                );
                if threads == 0 {
                    assert_eq!(done.cpu_items, 0);
                }
            }
        }
    }

    #[test]
    fn a_shard_a_stop_and_a_resume_give_the_shard_s_count() {
        let count = items(13, Shard::new(1, 3).unwrap());
        let straight = count.run(&Hooks::none()).unwrap();
        let saved = Mutex::new(std::collections::BTreeMap::<usize, u64>::new());
        for stop_after in [5usize, 60, usize::MAX] {
            let before = saved.lock().unwrap().clone();
            let skip = |i: usize| before.contains_key(&i);
            let stop = crate::stop::Stop::new(None, Some(Default::default()));
            let counted = |i: usize, v: u64| {
                let mut st = saved.lock().unwrap();
                assert!(st.insert(i, v).is_none(), "item {i} reported twice");
                if st.len() - before.len() >= stop_after {
                    stop.raise();
                }
            };
            let hooks = Hooks {
                skip: &skip,
                counted: &counted,
                stop: &stop,
            };
            let done = super::count(&host(0), &settings(3, 200, 1), &count, &hooks).unwrap();
            assert_eq!(done.is_some(), stop_after == usize::MAX);
        }
        let st = saved.into_inner().unwrap();
        assert_eq!(st.values().sum::<u64>(), straight);
        assert!(st.keys().all(|&i| count.takes(i)));
    }

    #[test]
    fn a_device_that_miscounts_is_caught_and_its_items_are_left_unreported() {
        let count = items(12, Shard::WHOLE);
        let reported = Mutex::new(Vec::new());
        let counted = |i: usize, v: u64| reported.lock().unwrap().push((i, v));
        let stop = crate::stop::Stop::new(None, None);
        let hooks = Hooks {
            skip: &|_| false,
            counted: &counted,
            stop: &stop,
        };
        let why = super::count(&host(2), &settings(3, 500, 0), &count, &hooks).unwrap_err();
        assert!(why.contains("on the device and"), "{why}");
        let reported = reported.into_inner().unwrap();
        assert!(!reported.is_empty());
        // What was reported is right, item by item.
        for (i, v) in reported {
            assert_eq!(v, count.count_item(i), "item {i}");
        }
    }

    #[test]
    fn stacks_fit_every_item_and_the_environment_is_checked() {
        // A thread's stack holds an entry per row from its node's down to the one above
        // the last: levels - 1 - row entries. Every item of n = 5..20, at every depth.
        for n in 5..=20u32 {
            let work = crate::count::constellations::WorkItems::new(n);
            let most = (0..work.len()).map(|i| work.get(i).levels).max().unwrap();
            assert!(most <= n as usize - 3, "n = {n}: {most} free rows");
            for depth in 1..=12 {
                let s = settings(depth, 1, 0);
                let row = depth.min(most - 1);
                assert!(s.stack_depth(n) >= most - 1 - row, "n = {n}, depth {depth}");
            }
        }
        // Beyond, from the bound on free rows (n - 3), which the loop above checks.
        for n in 21..=31u32 {
            for depth in 1..=12 {
                let worst = (n as usize - 4).saturating_sub(depth);
                assert!(settings(depth, 1, 0).stack_depth(n) >= worst, "n = {n}");
            }
        }
        let s = Settings::for_board(21).unwrap();
        assert_eq!((s.depth, s.cpu_threads, s.shared), (4, 0, true));
    }
}
