//! How `count --gpu` shares a count between its device and CPU threads
//! (`count::share`), measured without a GPU: a simulated device that takes as long as a
//! GPU counting RATE nodes per second would (one batch after the other) and counts only
//! the nodes the CPU checks. Prints, per rate, the time of the CPU threads alone, of the
//! device alone, of both, and the ideal (both rates added), as a Markdown table.
//!
//! `cargo bench --bench count_share [-- N THREADS RATE...]` (default: 18, all threads,
//! device rates of 2e5, 1e6 and 1e7 nodes a second).

use nqueens::count::batch::{NodeBatch, TABLE_WORDS, count_node};
use nqueens::count::resumable::{Hooks, ItemCount};
use nqueens::count::share::{self, Device, Settings};
use nqueens::count::{Kind, Method, Piece, Problem, Rules, Shard};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A device counting `rate` nodes a second, busy until `busy`.
struct Simulated {
    rate: f64,
    busy: Mutex<Instant>,
}

impl Device for Simulated {
    type Pending = (Instant, NodeBatch);

    fn launch(&self, _queue: usize, batch: &NodeBatch) -> Result<Self::Pending, String> {
        let mut busy = self.busy.lock().unwrap();
        *busy = (*busy).max(Instant::now())
            + Duration::from_secs_f64(batch.nodes.len() as f64 / self.rate);
        Ok((*busy, batch.clone()))
    }

    fn wait(&self, (until, b): Self::Pending) -> Result<Vec<u64>, String> {
        if let Some(left) = until.checked_duration_since(Instant::now()) {
            std::thread::sleep(left);
        }
        // The nodes `share` checks on the CPU (every len/16-th), counted; the rest 0.
        let mut counts = vec![0; b.nodes.len()];
        let step = (b.nodes.len() / 16).max(1);
        for i in (0..b.nodes.len()).step_by(step).take(17) {
            let at = b.owners[i] as usize * TABLE_WORDS;
            counts[i] = count_node(&b.tables[at..at + TABLE_WORDS], b.nodes[i]);
        }
        Ok(counts)
    }

    fn name(&self) -> &str {
        "the simulated device"
    }
}

/// The arguments, N THREADS RATE...: a board size of 5..=31, 1..=1024 threads, rates of
/// nodes a second above 0; else why not.
fn arguments() -> Result<(u32, usize, Vec<f64>), String> {
    // `cargo bench` passes --bench to every bench binary: not ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let n = match args.first() {
        None => 18,
        Some(a) => a
            .parse()
            .ok()
            .filter(|n| (5..=31).contains(n))
            .ok_or(format!("N {a:?}: expected 5..31"))?,
    };
    let threads = match args.get(1) {
        None => rayon::current_num_threads(),
        Some(a) => a
            .parse()
            .ok()
            .filter(|t| (1..=1024).contains(t))
            .ok_or(format!("THREADS {a:?}: expected 1..1024"))?,
    };
    let rates = args
        .iter()
        .skip(2)
        .map(|a| {
            a.parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r > 0.0)
                .ok_or(format!("RATE {a:?}: expected nodes a second, above 0"))
        })
        .collect::<Result<Vec<f64>, String>>()?;
    let rates = if rates.is_empty() {
        vec![2e5, 1e6, 1e7]
    } else {
        rates
    };
    Ok((n, threads, rates))
}

fn main() {
    let (n, threads, rates) = match arguments() {
        Ok(a) => a,
        Err(why) => {
            eprintln!(
                "count_share: {why} (usage: cargo bench --bench count_share [-- N THREADS RATE...])"
            );
            std::process::exit(2);
        }
    };
    let p = Problem::new(n, Rules::new(Piece::Queen, Kind::Regular), vec![]).unwrap();
    let count = ItemCount::with_engine(&p, false, Shard::WHOLE, Method::Constellations).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let started = Instant::now();
    pool.install(|| count.run(&Hooks::none()).unwrap());
    let cpu = started.elapsed().as_secs_f64();
    let stop = nqueens::stop::Stop::new(None, None);
    let hooks = Hooks {
        skip: &|_| false,
        counted: &|_, _| {},
        stop: &stop,
    };
    println!("n = {n}, {threads} CPU threads, {} items", count.items());
    println!(
        "| device nodes/s | CPU alone s | device alone s | both s | ideal s | items device/CPU |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for rate in rates {
        let time = |cpu_threads: usize| {
            let device = Simulated {
                rate,
                busy: Mutex::new(Instant::now()),
            };
            let settings = Settings {
                depth: 4,
                block: 128,
                shared: true,
                batch_nodes: 1 << 22,
                cpu_threads,
            };
            let started = Instant::now();
            let done = share::count(&device, &settings, &count, &hooks)
                .unwrap()
                .unwrap();
            (started.elapsed().as_secs_f64(), done)
        };
        let (alone, _) = time(0);
        let (both, done) = time(threads);
        println!(
            "| {rate:.0e} | {cpu:.2} | {alone:.2} | {both:.2} | {:.2} | {}/{} |",
            1.0 / (1.0 / cpu + 1.0 / alone),
            done.device_items,
            done.cpu_items
        );
    }
}
