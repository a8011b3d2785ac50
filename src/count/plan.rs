//! A cluster run's plan (`count N --plan S`): the work items of a count dealt into S
//! shards, each shard naming its items, with the time and memory a shard needs for a
//! scheduler's limits, projected from a timed sample. `count --plan-file FILE --shard I/S`
//! counts shard I of it, and `count merge` adds the shards of one plan.
//!
//! How the items are dealt was measured (BENCHMARKS.md, "Plans"): item i goes to shard
//! i mod S. Neighbouring items cost alike, so this deals every stretch of the item list
//! evenly; dealing by a per-item work hint (nodes a few rows down, candidate joins), heaviest
//! first to the lightest shard, left the slowest shard further from the mean at every S
//! tried. What decides the balance is items per shard: a shard of k items varies by about
//! the items' spread over the square root of k, which the plan reports and adds to the
//! time limit. The file is described in `formats/count-plan.md`; its digest covers
//! everything that decides what a shard counts.

use super::estimate::Estimate;
use super::resumable::ItemCount;
use super::{Method, Problem, Shard};

/// The `format` field of every plan.
pub const FORMAT: &str = "nqueens-count-plan";
/// The layout version written and read.
pub const VERSION: u32 = 1;

/// A count's work items dealt into shards.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Always `nqueens-count-plan`.
    pub format: String,
    /// Layout version, 1.
    pub version: u32,
    /// Board size (regular queens on an empty board).
    pub n: u32,
    /// The engine whose work items are dealt.
    pub engine: Method,
    /// The engine's version: its items and their order are fixed within one version.
    pub engine_version: u32,
    /// Work items of the whole count.
    pub items: u64,
    /// Seed of the timed sample.
    pub seed: u64,
    /// The projection the shards' times are scaled to.
    pub estimate: Estimate,
    /// Threads each shard is planned to run on.
    pub threads: u64,
    /// Peak memory of one process counting a shard, as measured while planning.
    pub peak_memory_bytes: Option<u64>,
    /// Limits for a Slurm array running the plan, from the estimate.
    pub slurm: SlurmLimits,
    /// The shards, shard I at position I.
    pub shards: Vec<PlanShard>,
    /// XXH3-64 (hex) of the fields that decide what each shard counts (format, version, n,
    /// engine, engine version, items, every shard's items): see [`Plan::content_digest`].
    pub digest: String,
}

/// What a plan is of: its fields but the shards and the projections.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct PlanHeader {
    /// Always `nqueens-count-plan`.
    pub format: String,
    /// Layout version.
    pub version: u32,
    /// Board size.
    pub n: u32,
    /// The engine whose items are dealt.
    pub engine: Method,
    /// Its version.
    pub engine_version: u32,
    /// Work items of the whole count.
    pub items: u64,
}

/// The most bytes a plan of `items` items takes: its fields, a shard's fields (at most one
/// shard per item) and one range per item, each at its longest.
fn max_bytes(items: u64) -> u64 {
    16_384u64.saturating_add(items.saturating_mul(200))
}

/// One shard of a plan.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanShard {
    /// Projected core-seconds of its items.
    pub core_seconds: f64,
    /// Projected wall seconds on the plan's threads, setup included.
    pub wall_seconds: f64,
    /// Its items, as sorted half-open ranges [first, end) of item indices.
    pub items: Vec<[u64; 2]>,
}

/// `sbatch` options for an array that runs a plan.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlurmLimits {
    /// `--array`: `0-(S-1)`.
    pub array: String,
    /// `--cpus-per-task`: the plan's threads.
    pub cpus_per_task: u64,
    /// `--mem`: the measured peak memory, half again, plus 256 MiB (`NNNM`).
    pub mem: String,
    /// `--time`: the slowest shard's wall time, a quarter again, in whole minutes
    /// (`D-HH:MM:SS`, at least 10 minutes): its items at the upper end of the estimate's
    /// range plus the spread expected of the slowest of S shards of that many items.
    pub time: String,
}

/// Why a plan cannot be made or used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    /// More shards than work items, or none.
    #[error("{shards} shards of {items} work items: give 1 to {items} shards")]
    Shards {
        /// Shards asked for.
        shards: u64,
        /// Work items of the count.
        items: u64,
    },
    /// The file is not a plan, or is damaged or edited.
    #[error("not a valid count plan: {0}")]
    Corrupt(String),
    /// The plan is of another count or another version of the engine.
    #[error("a plan of another count ({0})")]
    Mismatch(String),
}

impl Plan {
    /// Deals the items of `count` (the whole count) into `shards` shards, item i to shard
    /// i mod `shards`, with the times `estimate` projects on `threads` threads;
    /// `peak_memory_bytes` sizes the memory limit.
    pub fn make(
        count: &ItemCount,
        shards: u64,
        seed: u64,
        estimate: Estimate,
        threads: u64,
        peak_memory_bytes: Option<u64>,
    ) -> Result<Plan, PlanError> {
        let items = count.items() as u64;
        if shards == 0 || shards > items {
            return Err(PlanError::Shards { shards, items });
        }
        let threads = threads.max(1);
        let per_item = estimate.core_seconds / items as f64;
        let per_item_upper = estimate.core_seconds_range[1] / items as f64;
        // The slowest of S shards of k items each: about sqrt(2 ln S) standard deviations
        // above the mean (a bound: dealing every S-th item spreads better than chance).
        let z = (2.0 * (shards as f64).ln()).sqrt();
        let mut slowest: f64 = 0.0;
        let shards: Vec<PlanShard> = (0..shards)
            .map(|index| {
                let k = (items - index).div_ceil(shards);
                let core = k as f64 * per_item;
                let spread = z * estimate.item_cv * per_item_upper * (k as f64).sqrt();
                let upper = k as f64 * per_item_upper + spread;
                slowest = slowest.max(estimate.setup_seconds + upper / threads as f64);
                PlanShard {
                    core_seconds: core,
                    wall_seconds: estimate.setup_seconds + core / threads as f64,
                    items: (index..items)
                        .step_by(shards as usize)
                        .map(|i| [i, i + 1])
                        .fold(Vec::new(), merge_range),
                }
            })
            .collect();
        let mem_mib = peak_memory_bytes.unwrap_or(0) * 3 / 2 / (1 << 20) + 256;
        let slurm = SlurmLimits {
            array: format!("0-{}", shards.len() - 1),
            cpus_per_task: threads,
            mem: format!("{mem_mib}M"),
            time: slurm_time(1.25 * slowest),
        };
        let mut plan = Plan {
            format: FORMAT.into(),
            version: VERSION,
            n: count.key().n,
            engine: count.engine(),
            engine_version: count.key().engine_version,
            items,
            seed,
            estimate,
            threads,
            peak_memory_bytes,
            slurm,
            shards,
            digest: String::new(),
        };
        plan.digest = plan.content_digest();
        Ok(plan)
    }

    /// How much the slowest shard may exceed the mean, as a fraction: the spread of the
    /// sampled items' times over the square root of the items per shard, times the
    /// number of standard deviations the slowest of S lies above the mean.
    pub fn expected_excess(&self) -> f64 {
        let s = self.shards.len() as f64;
        let k = (self.items as f64 / s).max(1.0);
        (2.0 * s.ln()).sqrt() * self.estimate.item_cv / k.sqrt()
    }

    /// The digest of what decides each shard's items. Floats (the projected times) are
    /// left out: they may not print back as read, and no count depends on them.
    pub fn content_digest(&self) -> String {
        let items: Vec<&Vec<[u64; 2]>> = self.shards.iter().map(|s| &s.items).collect();
        let canonical = serde_json::json!([
            self.format,
            self.version,
            self.n,
            self.engine,
            self.engine_version,
            self.items,
            items
        ]);
        format!(
            "{:016x}",
            twox_hash::XxHash3_64::oneshot(canonical.to_string().as_bytes())
        )
    }

    /// What a plan is of, read from `text` without its shards (format, version, n,
    /// engine, items), so that its size can be checked against the count's before the
    /// shards are read: [`Plan::from_text`].
    pub fn header(text: &str) -> Result<PlanHeader, PlanError> {
        let corrupt = |why: String| PlanError::Corrupt(why);
        let h: PlanHeader = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
        if h.format != FORMAT {
            return Err(corrupt(format!(
                "its format is {:?}, not {FORMAT:?}",
                h.format
            )));
        }
        if h.version != VERSION {
            return Err(PlanError::Mismatch(format!(
                "layout version {}, this program reads {VERSION}",
                h.version
            )));
        }
        if !(4..=31).contains(&h.n) {
            return Err(corrupt(format!(
                "n = {}: plans are made for n = 4..31",
                h.n
            )));
        }
        Ok(h)
    }

    /// The plan in `text` for `count` (the whole count, by the plan's engine), checked:
    /// its header against the count (n, engine and version, items), its length against
    /// what a plan of that many items can take (before its shards are read), its digest,
    /// and that its shards deal every item exactly once.
    pub fn from_text(text: &str, count: &ItemCount) -> Result<Plan, PlanError> {
        let h = Self::header(text)?;
        let key = count.key();
        let ours = (key.n, key.engine, key.engine_version, key.items as u64);
        let theirs = (h.n, h.engine, h.engine_version, h.items);
        if ours != theirs {
            return Err(PlanError::Mismatch(format!(
                "n = {}, engine {:?} version {} with {} items; this nqueens counts n = {} with engine {:?} version {} in {} items: make the plan again with this version",
                theirs.0, theirs.1, theirs.2, theirs.3, ours.0, ours.1, ours.2, ours.3
            )));
        }
        let most = max_bytes(h.items);
        if text.len() as u64 > most {
            return Err(PlanError::Corrupt(format!(
                "{} bytes, more than a plan of {} items takes ({most} at most)",
                text.len(),
                h.items
            )));
        }
        let corrupt = |why: String| PlanError::Corrupt(why);
        let plan: Plan = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
        if plan.digest != plan.content_digest() {
            return Err(corrupt(format!(
                "digest {} recorded, {} computed: the file was edited or damaged; make the plan again",
                plan.digest,
                plan.content_digest()
            )));
        }
        if plan.shards.is_empty() || plan.shards.len() as u64 > plan.items {
            return Err(corrupt(format!(
                "{} shards of {} items",
                plan.shards.len(),
                plan.items
            )));
        }
        plan.check_against(count)?;
        Ok(plan)
    }

    /// Refuses a plan made for another count than `count` (n, engine, version, items), and
    /// one whose shards do not deal each of its items exactly once.
    pub fn check_against(&self, count: &ItemCount) -> Result<(), PlanError> {
        let key = count.key();
        let ours = (key.n, key.engine, key.engine_version, key.items as u64);
        let theirs = (self.n, self.engine, self.engine_version, self.items);
        if ours != theirs {
            return Err(PlanError::Mismatch(format!(
                "n = {}, engine {:?} version {} with {} items; this nqueens counts n = {} with engine {:?} version {} in {} items: make the plan again with this version",
                theirs.0, theirs.1, theirs.2, theirs.3, ours.0, ours.1, ours.2, ours.3
            )));
        }
        let mut seen = vec![false; count.items()];
        for (s, shard) in self.shards.iter().enumerate() {
            let mut last_end = 0;
            for &[a, b] in &shard.items {
                if a >= b || b > self.items || a < last_end {
                    return Err(PlanError::Corrupt(format!(
                        "shard {s}: item range [{a}, {b}) is empty, out of order or past item {}",
                        self.items
                    )));
                }
                last_end = b;
                for i in a..b {
                    if std::mem::replace(&mut seen[i as usize], true) {
                        return Err(PlanError::Corrupt(format!(
                            "item {i} is dealt to more than one shard"
                        )));
                    }
                }
            }
        }
        if let Some(i) = seen.iter().position(|&s| !s) {
            return Err(PlanError::Corrupt(format!("item {i} is in no shard")));
        }
        Ok(())
    }

    /// Shard `shard` of this plan as a count of `problem`: the items the plan deals to it,
    /// counted by the plan's engine, after checking that the plan is one of this count
    /// (board, engine and its version, items) and deals every item exactly once.
    pub fn shard_count(&self, problem: &Problem, shard: Shard) -> Result<ItemCount, PlanError> {
        let count =
            ItemCount::with_engine(problem, false, Shard::WHOLE, self.engine).ok_or_else(|| {
                PlanError::Mismatch(format!(
                    "a plan of n = {} by engine {:?}, which does not count this",
                    self.n, self.engine
                ))
            })?;
        self.check_against(&count)?;
        self.restrict(count, shard)
    }

    /// `count` (the whole count this plan was read for, [`Plan::from_text`]) restricted to
    /// shard `shard`'s items.
    pub fn restrict(&self, count: ItemCount, shard: Shard) -> Result<ItemCount, PlanError> {
        let items = self.shard(shard)?.items.clone();
        Ok(count.with_listed_items(shard, items, self.digest.clone()))
    }

    /// The shard `shard` asks for, which must be one of this plan's.
    pub fn shard(&self, shard: Shard) -> Result<&PlanShard, PlanError> {
        if shard.of as usize != self.shards.len() {
            return Err(PlanError::Mismatch(format!(
                "it has {} shards, not {}: give --shard I/{}",
                self.shards.len(),
                shard.of,
                self.shards.len()
            )));
        }
        Ok(&self.shards[shard.index as usize])
    }
}

/// `ranges` with `next` appended, joined to the last range where they touch.
fn merge_range(mut ranges: Vec<[u64; 2]>, next: [u64; 2]) -> Vec<[u64; 2]> {
    match ranges.last_mut() {
        Some(last) if last[1] == next[0] => last[1] = next[1],
        _ => ranges.push(next),
    }
    ranges
}

/// Seconds as Slurm's `D-HH:MM:SS`, rounded up to a whole minute, at least 10 minutes.
fn slurm_time(seconds: f64) -> String {
    let minutes = (seconds / 60.0).ceil().clamp(10.0, 1e9) as u64;
    let (d, h, m) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    format!("{d}-{h:02}:{m:02}:00")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::resumable::Hooks;
    use crate::count::{Kind, Piece, Problem, Rules};

    fn queens(n: u32) -> Problem {
        Problem::new(n, Rules::new(Piece::Queen, Kind::Regular), vec![]).unwrap()
    }

    fn plan(n: u32, shards: u64) -> (ItemCount, Plan) {
        let count = ItemCount::new(&queens(n), false, Shard::WHOLE).unwrap();
        let e = Estimate::of(&count, 1, std::time::Duration::ZERO, 0.0);
        let p = Plan::make(&count, shards, 1, e, 2, Some(50 << 20)).unwrap();
        (count, p)
    }

    #[test]
    fn the_shards_of_a_plan_add_up_to_the_count() {
        for engine in [Method::HalfBoards, Method::Constellations] {
            let count = ItemCount::with_engine(&queens(13), false, Shard::WHOLE, engine).unwrap();
            let e = Estimate::of(&count, 1, std::time::Duration::ZERO, 0.0);
            let p = Plan::make(&count, 7, 1, e, 1, None).unwrap();
            p.check_against(&count).unwrap();
            let mut total = 0;
            for i in 0..7 {
                let part = p
                    .shard_count(&queens(13), Shard::new(i, 7).unwrap())
                    .unwrap();
                total += part.run(&Hooks::none()).unwrap();
            }
            assert_eq!(total, 73712, "{engine:?}");
        }
    }

    #[test]
    fn a_plan_reads_back_and_refuses_edits() {
        let (count, p) = plan(12, 5);
        let text = serde_json::to_string(&p).unwrap();
        let back = Plan::from_text(&text, &count).unwrap();
        assert_eq!(back.digest, p.digest);
        // Moving an item between shards changes what they count: refused.
        let mut moved = p.clone();
        let taken = moved.shards[0].items.pop().unwrap();
        moved.shards[1].items.push(taken);
        moved.shards[1].items.sort_unstable();
        let edited = serde_json::to_string(&moved).unwrap();
        assert!(
            matches!(Plan::from_text(&edited, &count), Err(PlanError::Corrupt(m)) if m.contains("digest"))
        );
        // Sealed anew it is another valid plan, with another digest: its shards and this
        // plan's never merge.
        moved.digest = moved.content_digest();
        let other = Plan::from_text(&serde_json::to_string(&moved).unwrap(), &count).unwrap();
        assert_ne!(other.digest, p.digest);
        // Sealed anew without an item: refused for the item no shard counts.
        let mut dropped = p.clone();
        dropped.shards[0].items.remove(0);
        dropped.digest = dropped.content_digest();
        assert!(
            matches!(dropped.check_against(&count), Err(PlanError::Corrupt(m)) if m.contains("in no shard"))
        );
        // Another n: refused by the count it is used for.
        let other = ItemCount::new(&queens(13), false, Shard::WHOLE).unwrap();
        assert!(matches!(
            p.check_against(&other),
            Err(PlanError::Mismatch(_))
        ));
    }

    #[test]
    fn shards_take_every_s_th_item_and_the_limits_cover_the_slowest() {
        let (count, p) = plan(12, 5);
        let items = count.items() as u64;
        assert_eq!(p.shards[0].items[0], [0, 1]);
        assert_eq!(p.shards[3].items[1], [8, 9]);
        let dealt: u64 = p
            .shards
            .iter()
            .flat_map(|s| &s.items)
            .map(|r| r[1] - r[0])
            .sum();
        assert_eq!(dealt, items);
        // One shard: one range.
        let (_, whole) = plan(12, 1);
        assert_eq!(whole.shards[0].items, vec![[0, items]]);
        assert_eq!(merge_range(vec![[1, 4]], [4, 6]), vec![[1, 6]]);
        assert_eq!(merge_range(vec![[1, 4]], [5, 6]), vec![[1, 4], [5, 6]]);
        assert_eq!(slurm_time(30.0), "0-00:10:00");
        assert_eq!(slurm_time(90_061.0), "1-01:02:00");
        assert_eq!(p.slurm.array, "0-4");
        assert_eq!(p.slurm.mem, format!("{}M", 75 + 256));
        assert!(p.expected_excess() > 0.0);
    }

    #[test]
    fn too_many_shards_are_refused() {
        let count = ItemCount::new(&queens(8), false, Shard::WHOLE).unwrap();
        let e = Estimate::of(&count, 1, std::time::Duration::ZERO, 0.0);
        let items = count.items() as u64;
        assert_eq!(
            Plan::make(&count, items + 1, 1, e.clone(), 1, None),
            Err(PlanError::Shards {
                shards: items + 1,
                items
            })
        );
        assert!(Plan::make(&count, 0, 1, e, 1, None).is_err());
    }
}
