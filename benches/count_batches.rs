//! The constellation engine's items counted two ways on one CPU thread: as the engine does
//! (depth first, then its last rows breadth first in batches, with AVX-512 where present),
//! and as batches of search nodes each searched alone (`count::batch`), the shape a GPU's
//! threads take. `cargo bench --bench count_batches [-- N...]`; prints a Markdown row per n.

use nqueens::count::resumable::{Hooks, ItemCount};
use nqueens::count::{Kind, Method, Piece, Problem, Rules, Shard};
use std::time::Instant;

fn main() {
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![15, 16, 17]
    } else {
        sizes
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    println!(
        "| n | items | engine s | node batches s (nodes on free row 4) | nodes | batch / engine |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let p = Problem::new(n, Rules::new(Piece::Queen, Kind::Regular), vec![]).unwrap();
        let count =
            ItemCount::with_engine(&p, false, Shard::WHOLE, Method::Constellations).unwrap();
        let started = Instant::now();
        let engine = pool.install(|| count.run(&Hooks::none()).unwrap());
        let engine_s = started.elapsed().as_secs_f64();
        let all: Vec<usize> = (0..count.items()).collect();
        let started = Instant::now();
        let mut nodes = 0;
        let mut batched = 0;
        for chunk in all.chunks(4096) {
            let b = count.node_batch(chunk, 4).unwrap();
            nodes += b.nodes.len();
            batched += b.count();
        }
        let batch_s = started.elapsed().as_secs_f64();
        assert_eq!(batched, engine, "n = {n}");
        println!(
            "| {n} | {} | {engine_s:.2} | {batch_s:.2} | {nodes} | {:.2}x |",
            count.items(),
            batch_s / engine_s
        );
    }
}
