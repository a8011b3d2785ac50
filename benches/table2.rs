//! The seed paper's Table 2 protocol, in process: for each n, random solutions, random
//! compositions keeping k of their queens (k uniform in 1..n-1), completion timed.
//! Such compositions are completable by construction: any answer but SOLVED is a false
//! negative.
//!
//! cargo bench --bench table2 -- [--n 1e3,1e4] [--samples S] [--seed S] [--csv FILE]
//!
//! Without --samples, the sample size shrinks with n. Prints a Markdown table; --csv also
//! writes one row per n for tools/plot_table2.py.

use nqueens::complete::{Answer, Options, complete_rows};
use rand::{RngExt, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn samples_for(n: u64) -> usize {
    match n {
        0..=1_000 => 1000,
        1_001..=10_000 => 300,
        10_001..=100_000 => 100,
        100_001..=1_000_000 => 30,
        1_000_001..=10_000_000 => 10,
        _ => 3,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let sizes: Vec<u64> = arg("--n")
        .unwrap_or_else(|| "10,100,1e3,1e4,1e5,1e6,1e7".into())
        .split(',')
        .map(|s| s.parse::<f64>().expect("--n: numbers") as u64)
        .collect();
    let fixed_samples: Option<usize> = arg("--samples").map(|s| s.parse().expect("--samples"));
    let seed: u64 = arg("--seed").map_or(1, |s| s.parse().expect("--seed"));
    let csv_path = arg("--csv");
    let verbose = args.iter().any(|a| a == "--verbose");
    let opts = |seed| Options {
        seed,
        time_limit: None,
        since: std::time::Instant::now(),
        interrupt: Arc::new(AtomicBool::new(false)),
        closed_forms: true,
    };
    let mut csv = String::from(
        "n,samples,mean_s,t90_mean_s,min_s,max_s,false_negatives,s_per_row,dead_ends_0,dead_ends_1,dead_ends_2_3,dead_ends_4plus,mean_search_nodes\n",
    );
    println!(
        "| n | samples | mean s | t90 mean s | min s | max s | false neg. | s per row | dead ends 0/1/2-3/4+ | search nodes (mean) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
    for &n in &sizes {
        let samples = fixed_samples.unwrap_or_else(|| samples_for(n));
        let mut times = Vec::with_capacity(samples);
        let mut false_negatives = 0;
        let mut dead_hist = [0usize; 4];
        let mut nodes = 0u64;
        for s in 0..samples {
            let sample_seed = seed.wrapping_mul(1_000_003).wrapping_add(s as u64 + n);
            let (answer, solution, _) =
                complete_rows(&vec![0; n as usize], &opts(sample_seed)).unwrap();
            assert_eq!(answer, Answer::Solved, "random solution of n = {n}");
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(sample_seed ^ 0xabcdef);
            let k = if n > 1 { rng.random_range(1..n) } else { 0 };
            // Selection sampling: k of the n queens, uniformly.
            let (mut need, mut left) = (k, n);
            let comp: Vec<u32> = solution
                .iter()
                .map(|&c| {
                    let keep = rng.random_range(0..left) < need;
                    left -= 1;
                    need -= keep as u64;
                    if keep { c } else { 0 }
                })
                .collect();
            if verbose {
                eprint!("n = {n} sample {s} (seed {sample_seed}, k = {k}) ... ");
            }
            let t = Instant::now();
            let (answer, _, stats) = complete_rows(&comp, &opts(sample_seed ^ 0x5eed)).unwrap();
            times.push(t.elapsed().as_secs_f64());
            if verbose {
                eprintln!(
                    "{:?} {:.4} s, dead ends {} + {}, restarts {}",
                    answer,
                    t.elapsed().as_secs_f64(),
                    stats.dead_ends_scatter,
                    stats.dead_ends_endgame,
                    stats.restarts
                );
            }
            if answer != Answer::Solved {
                false_negatives += 1;
            }
            let dead = stats.dead_ends_scatter + stats.dead_ends_endgame;
            dead_hist[match dead {
                0 => 0,
                1 => 1,
                2..=3 => 2,
                _ => 3,
            }] += 1;
            nodes += stats.search_nodes;
        }
        times.sort_by(f64::total_cmp);
        let mean = times.iter().sum::<f64>() / samples as f64;
        let t90 = &times[..((samples * 9).div_ceil(10)).max(1)];
        let t90_mean = t90.iter().sum::<f64>() / t90.len() as f64;
        let (min, max) = (times[0], times[samples - 1]);
        let per_row = mean / n as f64;
        let mean_nodes = nodes as f64 / samples as f64;
        let [d0, d1, d23, d4] = dead_hist;
        println!(
            "| {n:.0e} | {samples} | {mean:.6} | {t90_mean:.6} | {min:.6} | {max:.6} | {false_negatives} | {per_row:.2e} | {d0}/{d1}/{d23}/{d4} | {mean_nodes:.0} |"
        );
        csv += &format!(
            "{n},{samples},{mean},{t90_mean},{min},{max},{false_negatives},{per_row},{d0},{d1},{d23},{d4},{mean_nodes}\n"
        );
    }
    if let Some(p) = csv_path {
        std::fs::write(&p, csv).expect("writing the CSV");
        eprintln!("wrote {p}");
    }
}
