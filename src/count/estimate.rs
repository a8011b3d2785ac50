//! How long a count made of work items will take, before it runs: a random sample of its
//! items (reproducible from a seed) is counted and timed (in CPU time of the thread that
//! counts it, so that other load on the machine does not count), and the mean cost per item, with
//! its standard error, projects the whole (`count N --estimate`). Items differ in cost by
//! orders of magnitude, so the range given is the sample's 95 % confidence interval of the
//! mean, not a guess; once every item of the shard has been sampled the time is exact.

use super::resumable::ItemCount;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// A projection of a count's cost.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    /// Work items of the shard.
    pub items: u64,
    /// Items counted to make the estimate.
    pub sampled: u64,
    /// Core-seconds the sampled items took.
    pub sampled_seconds: f64,
    /// Projected core-seconds of all the shard's items.
    pub core_seconds: f64,
    /// 95 % confidence range of `core_seconds` (the sample's own time is its floor).
    pub core_seconds_range: [f64; 2],
    /// Seconds to set up the engine's tables, once per process.
    pub setup_seconds: f64,
    /// Spread of the sampled items' times: standard deviation over mean (1 when fewer
    /// than two were timed). A shard of k items varies by about this over the square root
    /// of k.
    pub item_cv: f64,
}

impl Estimate {
    /// Samples items of `count` (its shard's) in an order drawn from `seed`, on the current
    /// rayon pool, until `budget` has passed (at least one round of items, one per thread)
    /// or every item is counted. `setup_seconds`: what building `count` took.
    pub fn of(count: &ItemCount, seed: u64, budget: Duration, setup_seconds: f64) -> Estimate {
        let mut order: Vec<usize> = (0..count.items()).filter(|&i| count.takes(i)).collect();
        order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let started = Instant::now();
        let threads = rayon::current_num_threads().max(1);
        let mut times: Vec<f64> = Vec::new();
        for round in order.chunks(threads) {
            let mut t: Vec<f64> = round
                .par_iter()
                .map(|&i| {
                    let at = thread_cpu_seconds();
                    std::hint::black_box(count.count_item(i));
                    thread_cpu_seconds() - at
                })
                .collect();
            times.append(&mut t);
            if started.elapsed() >= budget {
                break;
            }
        }
        Self::from_times(order.len() as u64, &times, setup_seconds)
    }

    /// The projection from the times of a random sample of `items` items.
    pub fn from_times(items: u64, times: &[f64], setup_seconds: f64) -> Estimate {
        let mut sums = TimeSums::default();
        times.iter().for_each(|&t| sums.add(t));
        Self::from_sums(items, &sums, setup_seconds)
    }

    /// The projection from the running sums of a random sample of `items` items (a count
    /// under way projects what is left from the items it has counted).
    pub fn from_sums(items: u64, sums: &TimeSums, setup_seconds: f64) -> Estimate {
        let (k, sum) = (sums.count as f64, sums.sum);
        let item_cv = if sums.count > 1 && sum > 0.0 {
            let mean = sum / k;
            (((sums.sum_of_squares - k * mean * mean) / (k - 1.0)).max(0.0)).sqrt() / mean
        } else {
            1.0
        };
        let (core_seconds, range) = if sums.count == 0 {
            (0.0, [0.0, f64::INFINITY])
        } else if sums.count >= items {
            (sum, [sum, sum])
        } else {
            let mean = sum / k;
            let var = if sums.count > 1 {
                ((sums.sum_of_squares - k * mean * mean) / (k - 1.0)).max(0.0)
            } else {
                mean * mean
            };
            // Sampling without replacement: the finite population correction.
            let fpc = (1.0 - k / items as f64).max(0.0);
            let se = items as f64 * (var / k * fpc).sqrt();
            let total = mean * items as f64;
            (total, [(total - 1.96 * se).max(sum), total + 1.96 * se])
        };
        Estimate {
            items,
            sampled: sums.count,
            sampled_seconds: sum,
            core_seconds,
            core_seconds_range: range,
            setup_seconds,
            item_cv,
        }
    }

    /// Wall seconds on `threads` threads: the setup, then the items shared evenly.
    pub fn wall_seconds(&self, threads: usize) -> f64 {
        self.setup_seconds + self.core_seconds / threads.max(1) as f64
    }

    /// Shards so that each takes at most `hours` on `threads` threads (by the upper end of
    /// the range), at least 1.
    pub fn shards_for(&self, hours: f64, threads: usize) -> u64 {
        let per_shard = hours * 3600.0 - self.setup_seconds;
        if per_shard <= 0.0 {
            return self.items.max(1);
        }
        let need = self.core_seconds_range[1] / (per_shard * threads.max(1) as f64);
        (need.ceil() as u64).clamp(1, self.items.max(1))
    }
}

/// Running sums of item times: how many, their sum and the sum of their squares.
#[derive(Debug, Clone, Default)]
pub struct TimeSums {
    count: u64,
    sum: f64,
    sum_of_squares: f64,
}

impl TimeSums {
    /// One more item, of `seconds`.
    pub fn add(&mut self, seconds: f64) {
        self.count += 1;
        self.sum += seconds;
        self.sum_of_squares += seconds * seconds;
    }

    /// Items added.
    pub fn count(&self) -> u64 {
        self.count
    }
}

/// CPU seconds this thread has run: an item's cost whatever else the machine is doing
/// (wall time on a loaded machine counts the other processes' turns too).
fn thread_cpu_seconds() -> f64 {
    #[cfg(unix)]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0 {
            return t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9;
        }
    }
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::{Kind, Piece, Problem, Rules, Shard};

    #[test]
    fn a_full_sample_is_exact_and_a_partial_one_brackets_the_truth() {
        // Costs 1, 2, ..., 100: the total is 5050.
        let costs: Vec<f64> = (1..=100).map(f64::from).collect();
        let whole = Estimate::from_times(100, &costs, 0.5);
        assert_eq!(
            (whole.core_seconds, whole.core_seconds_range),
            (5050.0, [5050.0, 5050.0])
        );
        assert_eq!(whole.wall_seconds(2), 0.5 + 2525.0);
        // Every 4th item: a sample of 25 with mean 49.
        let sample: Vec<f64> = costs.iter().copied().step_by(4).collect();
        let e = Estimate::from_times(100, &sample, 0.0);
        assert_eq!(e.core_seconds, 4900.0);
        let [lo, hi] = e.core_seconds_range;
        assert!(lo < 5050.0 && 5050.0 < hi, "{lo}..{hi}");
        assert!(e.shards_for(1.0, 1) >= 2);
        assert_eq!(e.shards_for(1000.0, 8), 1);
    }

    #[test]
    fn the_same_seed_samples_the_same_items() {
        let p = Problem::new(12, Rules::new(Piece::Queen, Kind::Regular), vec![]).unwrap();
        let count = ItemCount::new(&p, false, Shard::WHOLE).unwrap();
        let a = Estimate::of(&count, 7, Duration::ZERO, 0.0);
        let b = Estimate::of(&count, 7, Duration::ZERO, 0.0);
        assert_eq!((a.items, a.sampled), (b.items, b.sampled));
        assert_eq!(a.items, count.items() as u64);
        // With all the time it needs, every item is sampled and the range closes.
        let all = Estimate::of(&count, 7, Duration::from_secs(3600), 0.0);
        assert_eq!(all.sampled, all.items);
        assert_eq!(all.core_seconds_range[0], all.core_seconds_range[1]);
    }
}
