//! Restarts: short searches of a residual in other orders, under growing node budgets, for
//! the satisfiable residuals on which one order's search is heavy-tailed.
//!
//! On tight residuals (a block of rows cleared from a constructed solution with a queen
//! moved, n = 200-1,000: `generate composition --clear block --move 1`) one order's search
//! either finds a solution within a few thousand nodes or wanders for billions; other tie
//! orders, and the columns in label order instead of least damaging first, succeed early
//! one time in three to ten (BENCHMARKS.md, "Restarts"). Restart k searches with a seed
//! drawn from (seed, k), the value order on even k and the label order on odd k, up to
//! `luby(k + 1)` short budgets ([`short_budget`]): the universal sequence 1 1 2 1 1 2 4 ...
//! of Luby, Sinclair and Zuckerman, within a log factor of the best fixed budget whatever
//! the distribution of run lengths.
//!
//! Restarts run [`Restarts::BATCH`] at a time on the rayon pool (one after another on
//! residuals wider than [`Restarts::SIDE_BY_SIDE_ROWS`]) and every one of a batch runs to
//! its budget; the answer is that of the lowest-numbered restart that decides, so it, and
//! the work counted, do not depend on the thread count. A restart that exhausts its tree
//! proves infeasibility like any exhausted search (every order's tree is complete).

use super::Residual;
use super::run::{Counts, Limits, Outcome, sequential};
use super::search::{TABLE_BYTES, Ties};
use rayon::prelude::*;

/// Nodes of a short search of a residual of `m` free rows, which decides most residuals of
/// this size (`complete`'s first search and its end games); a restart's budget is a number
/// of these.
pub(crate) fn short_budget(m: usize) -> u64 {
    2000 + 20 * m as u64
}

/// The k-th term (k >= 1) of Luby's sequence: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...
pub(crate) fn luby(k: u64) -> u64 {
    debug_assert!(k >= 1);
    let mut k = k;
    loop {
        // The smallest p with 2^p - 1 >= k.
        let p = 64 - k.leading_zeros();
        if k == (1u64 << p) - 1 {
            return 1 << (p - 1);
        }
        k -= (1u64 << (p - 1)) - 1;
    }
}

/// A series of restarts of one residual's search; [`Restarts::run`] goes on where the last
/// call stopped.
pub(crate) struct Restarts {
    seed: u64,
    /// The next restart's number.
    next: u64,
    /// Restarts run so far.
    pub(crate) runs: u64,
}

impl Restarts {
    /// Restarts run side by side (a constant, not the thread count: the work done and the
    /// restart that answers must not depend on the machine).
    pub(crate) const BATCH: u64 = 8;
    /// Residuals of at most this many rows run a batch's restarts on every thread; wider
    /// ones one after another (the same restarts, the same answer).
    pub(crate) const SIDE_BY_SIDE_ROWS: usize = 256;

    /// The restarts drawn from `seed`.
    pub(crate) fn new(seed: u64) -> Restarts {
        Restarts {
            seed,
            next: 0,
            runs: 0,
        }
    }

    /// Runs batches of restarts of `res` until one decides, `budget` nodes are spent (whole
    /// batches: the last may go past it) or `stop` says so. `Outcome::Stopped` when none
    /// decided.
    pub(crate) fn run(
        &mut self,
        res: &Residual,
        budget: u64,
        stop: &crate::stop::Stop,
    ) -> (Outcome, Counts) {
        let unit = short_budget(res.size());
        let side_by_side = res.size() <= Self::SIDE_BY_SIDE_ROWS;
        // Side by side, a batch's tables together take no more than one search's may: each
        // restart builds its own (its labels are its own order's), and up to 32 MB each at
        // 65-127 rows grew peak memory with the threads (n = 256 with 65 rows cleared: 22 MB
        // on 1 thread, 139 MB on 16).
        let table_bytes = if side_by_side {
            TABLE_BYTES / Self::BATCH as usize
        } else {
            TABLE_BYTES
        };
        let one = |k: u64| {
            // Checked before each restart: a stop (the time limit, a signal) waits for
            // no more than the restarts already under way.
            if stop.now() {
                return (Outcome::Stopped, Counts::default());
            }
            let seed = crate::rng::Rng::seeded(self.seed, &[17, k]).next_u64();
            let max_nodes = luby(k + 1).saturating_mul(unit);
            let limits = Limits { max_nodes, stop };
            // Most restarts spend their budget: it is the forecast that decides whether
            // the attack table pays.
            sequential(
                res,
                seed,
                Ties::Drawn,
                k.is_multiple_of(2),
                max_nodes,
                table_bytes,
                limits,
            )
        };
        let mut counts = Counts::default();
        while counts.nodes < budget && !stop.now() {
            let ks = self.next..self.next + Self::BATCH;
            // A wide residual's search holds a trail of about m^2 row sets at depth m
            // (1,000 rows: over 100 MB): side by side, every thread held one (peak memory
            // 1.1 GB on 2 threads, 2.1 GB on 8, against 0.4 GB for one search).
            let batch: Vec<(Outcome, Counts)> = if side_by_side {
                ks.into_par_iter().map(one).collect()
            } else {
                ks.map(one).collect()
            };
            self.next += Self::BATCH;
            self.runs += Self::BATCH;
            if let Some(outcome) = first_decided(batch, stop.now(), &mut counts) {
                return (outcome, counts);
            }
        }
        (Outcome::Stopped, counts)
    }
}

/// The answer of a batch of restarts, in their order, adding their work to `counts`: the
/// first that decided, unless `stopped` (a stop during the batch): then none, even one a
/// restart found before the stop, since a signal must end the command with nothing written
/// and an answer after the time limit would be late.
fn first_decided(
    batch: Vec<(Outcome, Counts)>,
    stopped: bool,
    counts: &mut Counts,
) -> Option<Outcome> {
    let mut answer = None;
    for (outcome, c) in batch {
        counts.nodes += c.nodes;
        counts.decisions += c.decisions;
        if answer.is_none() && !stopped && !matches!(outcome, Outcome::Stopped) {
            answer = Some(outcome);
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luby_sequence() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
        assert_eq!(luby(31), 16);
        assert_eq!(luby(63), 32);
    }

    #[test]
    fn a_batch_answers_with_its_first_decided_restart_unless_stopped() {
        let work = |nodes| Counts {
            nodes,
            decisions: nodes / 2,
        };
        let batch = || {
            vec![
                (Outcome::Stopped, work(10)),
                (Outcome::Solved(vec![(1, 2)]), work(20)),
                (Outcome::Exhausted, work(40)),
            ]
        };
        let mut counts = Counts::default();
        assert_eq!(
            first_decided(batch(), false, &mut counts),
            Some(Outcome::Solved(vec![(1, 2)]))
        );
        assert_eq!(counts, work(70));
        // A stop during the batch: no answer, the work still counted.
        let mut counts = Counts::default();
        assert_eq!(first_decided(batch(), true, &mut counts), None);
        assert_eq!(counts, work(70));
        let mut counts = Counts::default();
        assert_eq!(
            first_decided(vec![(Outcome::Stopped, work(8))], false, &mut counts),
            None
        );
    }
}
