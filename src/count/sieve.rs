//! Sieve cuts (after Kluev's counter): before two large sets of masks are matched, a few
//! bits that both sides often have are chosen, and each side is sorted by which of those
//! bits a mask has (its class). A pattern and an item that share a cut bit cannot be
//! disjoint, so each class of patterns is matched only against the items of the classes
//! with none of its bits: with three or four cuts of bits that 45 % of each side has, about
//! half of the pairs are never looked at.
//!
//! Sorting costs a pass over both sides, and every class ends in a partly filled block of
//! the kernel, so a sieve pays only on large sets: at n = 20 the smaller side holds 4,000
//! to 16,000 halves, and sieving made the count 1.6x faster with the portable kernel, 1.4x
//! with AVX2, 1.1x with AVX-512; at n = 18 and 19 (1,000 to 4,000) sieving every set made it
//! up to 18 % slower. [`Sieve::plan`] estimates the work with and without a sieve, from a
//! sample of each side, and sieves only when the estimate is clearly lower ([`MARGIN`]).
//! It is a layer above the kernels: each class is matched by the kernel as a pair of sets.

use super::kernel::{Costs, Kernel};

/// Cut bits a sieve uses at most (16 classes).
const MAX_CUTS: usize = 4;

/// The fraction of the work a sieve must be estimated to leave for it to be used: the
/// estimate leaves out what a class costs beyond its blocks, and sieves estimated to leave
/// 0.7-0.9 of the work made n = 19 5-8 % slower, while those at 0.3-0.6 made n = 20 26-40 %
/// faster (BENCHMARKS.md, "count").
const MARGIN: (usize, usize) = (2, 3);

/// Masks of each side the plan counts bits and classes in.
const SAMPLE: usize = 64;

/// The cut bits chosen for one pair of sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sieve {
    /// Bit positions; those not used are 63, which no mask has.
    cuts: [u32; MAX_CUTS],
    used: usize,
}

impl Sieve {
    /// The sieve under which matching `patterns` (blocked) with `items` is estimated
    /// cheapest, or `None` when matching them whole is. Masks lie in the low `bits` bits.
    pub(crate) fn plan(patterns: &[u64], items: &[u64], bits: u32, costs: Costs) -> Option<Sieve> {
        // Fewer than two blocks: at most one partly filled block to save.
        if patterns.len() < 2 * 64 * costs.block_words || bits >= 64 {
            return None;
        }
        let sample = |masks: &[u64]| -> Vec<u64> {
            let step = masks.len().div_ceil(SAMPLE).max(1);
            masks.iter().step_by(step).copied().collect()
        };
        let (sp, sx) = (sample(patterns), sample(items));
        let frequency = |masks: &[u64]| {
            let mut f = [0u64; 64];
            for &m in masks {
                for (b, f) in f.iter_mut().enumerate().take(bits as usize) {
                    *f += (m >> b) & 1;
                }
            }
            f
        };
        let (fp, fx) = (frequency(&sp), frequency(&sx));
        // The bits that rule out the most pairs: the most common on both sides at once.
        let mut by_pairs: Vec<u32> = (0..bits).collect();
        by_pairs.sort_by_key(|&b| std::cmp::Reverse(fp[b as usize] * fx[b as usize]));
        let widest = Sieve::new(&by_pairs[..MAX_CUTS.min(by_pairs.len())]);
        let scaled = |sample: &[u64], len: usize| -> Vec<usize> {
            let counts = widest.counts(sample);
            counts.iter().map(|&c| c * len / sample.len()).collect()
        };
        let (p_counts, x_counts) = (scaled(&sp, patterns.len()), scaled(&sx, items.len()));
        let plain = costs.matching(patterns.len(), items.len());
        let mut best = (plain, 0);
        for used in 1..=widest.used {
            let classes = 1usize << used;
            // The classes over the first `used` cuts are the low bits of the widest ones.
            let (mut p, mut x) = (vec![0usize; classes], vec![0usize; classes]);
            for (c, (&pc, &xc)) in p_counts.iter().zip(&x_counts).enumerate() {
                p[c & (classes - 1)] += pc;
                x[c & (classes - 1)] += xc;
            }
            let mut cost = costs.sort * (patterns.len() + items.len());
            for s in (0..classes).filter(|&s| p[s] > 0) {
                let compatible = (0..classes).filter(|&t| t & s == 0).map(|t| x[t]).sum();
                cost += costs.matching(p[s], compatible);
            }
            if cost < best.0 {
                best = (cost, used);
            }
        }
        (best.0 * MARGIN.1 < plain * MARGIN.0).then(|| Sieve::new(&by_pairs[..best.1]))
    }

    fn new(bits: &[u32]) -> Sieve {
        let mut cuts = [63; MAX_CUTS];
        cuts[..bits.len()].copy_from_slice(bits);
        Sieve {
            cuts,
            used: bits.len(),
        }
    }

    /// The number of classes: one per subset of the cut bits.
    pub(crate) fn classes(&self) -> usize {
        1 << self.used
    }

    /// Which of the cut bits `m` has, as a number.
    #[inline(always)]
    fn class(&self, m: u64) -> usize {
        let c = &self.cuts;
        (((m >> c[0]) & 1)
            | ((m >> c[1]) & 1) << 1
            | ((m >> c[2]) & 1) << 2
            | ((m >> c[3]) & 1) << 3) as usize
    }

    /// How many of `masks` fall in each class.
    fn counts(&self, masks: &[u64]) -> Vec<usize> {
        let mut counts = vec![0; self.classes()];
        for &m in masks {
            counts[self.class(m)] += 1;
        }
        counts
    }

    /// `masks` ordered by class into `sorted`; returns where each class starts, and the
    /// last ends (`classes() + 1` bounds). `classes` is scratch space: each mask's class is
    /// worked out once, in the counting pass.
    pub(crate) fn sort(
        &self,
        masks: &[u64],
        sorted: &mut Vec<u64>,
        classes: &mut Vec<u8>,
    ) -> Vec<usize> {
        let mut bounds = vec![0; self.classes() + 1];
        classes.clear();
        classes.extend(masks.iter().map(|&m| self.class(m) as u8));
        for &c in classes.iter() {
            bounds[c as usize + 1] += 1;
        }
        for c in 1..bounds.len() {
            bounds[c] += bounds[c - 1];
        }
        let mut next = [0usize; 1 << MAX_CUTS];
        next[..self.classes()].copy_from_slice(&bounds[..self.classes()]);
        sorted.clear();
        sorted.reserve(masks.len());
        let spare = &mut sorted.spare_capacity_mut()[..masks.len()];
        for (&m, &c) in masks.iter().zip(classes.iter()) {
            // SAFETY: `next[c]` starts at the start of class `c` and moves on once per
            // mask of that class, so it stays below the class's end, at most `masks.len()`.
            unsafe { spare.get_unchecked_mut(next[c as usize]).write(m) };
            next[c as usize] += 1;
        }
        // SAFETY: every one of the `masks.len()` places was written once above: the
        // classes' ranges cover them, and each class's masks fill its range.
        unsafe { sorted.set_len(masks.len()) };
        bounds
    }
}

/// Counts the disjoint pairs of `patterns` and `items` with `count`, sieved when the plan
/// says it pays. `count` is the kernel's matcher; it is called once per class of patterns,
/// with the items that class can be disjoint from.
pub(crate) fn disjoint_pairs_with(
    kernel: Kernel,
    patterns: &[u64],
    items: &[u64],
    bits: u32,
    count: impl Fn(&[u64], &[u64]) -> u64,
) -> u64 {
    disjoint_pairs_at(kernel.costs(), patterns, items, bits, count)
}

/// The number of pairs (p, x), p from `patterns` and x from `items`, with `p & x == 0`,
/// counted by `kernel`; every mask lies in the low `bits` bits. Large sets are sieved
/// first.
pub(crate) fn disjoint_pairs(kernel: Kernel, patterns: &[u64], items: &[u64], bits: u32) -> u64 {
    assert!(bits <= 64);
    disjoint_pairs_with(kernel, patterns, items, bits, |p, x| {
        kernel.disjoint_pairs_unsieved(p, x, bits)
    })
}

/// [`disjoint_pairs`] with the costs given.
fn disjoint_pairs_at(
    costs: Costs,
    patterns: &[u64],
    items: &[u64],
    bits: u32,
    count: impl Fn(&[u64], &[u64]) -> u64,
) -> u64 {
    let (patterns, items) = if patterns.len() <= items.len() {
        (patterns, items)
    } else {
        (items, patterns)
    };
    let Some(sieve) = Sieve::plan(patterns, items, bits, costs) else {
        return count(patterns, items);
    };
    thread_local! {
        static SCRATCH: std::cell::Cell<([Vec<u64>; 3], Vec<u8>)> = const {
            std::cell::Cell::new(([Vec::new(), Vec::new(), Vec::new()], Vec::new()))
        };
    }
    let ([mut sorted_p, mut sorted_x, mut compatible], mut classes) = SCRATCH.take();
    let p_bounds = sieve.sort(patterns, &mut sorted_p, &mut classes);
    let x_bounds = sieve.sort(items, &mut sorted_x, &mut classes);
    let mut total = 0;
    for s in 0..sieve.classes() {
        let ps = &sorted_p[p_bounds[s]..p_bounds[s + 1]];
        if ps.is_empty() {
            continue;
        }
        compatible.clear();
        for t in (0..sieve.classes()).filter(|&t| t & s == 0) {
            compatible.extend_from_slice(&sorted_x[x_bounds[t]..x_bounds[t + 1]]);
        }
        total += count(ps, &compatible);
    }
    SCRATCH.set(([sorted_p, sorted_x, compatible], classes));
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow(p: &[u64], x: &[u64]) -> u64 {
        p.iter()
            .map(|&a| x.iter().filter(|&&b| a & b == 0).count() as u64)
            .sum()
    }

    #[test]
    fn sorting_keeps_every_mask_and_groups_them_by_class() {
        let sieve = Sieve::new(&[3, 0, 7]);
        let masks: Vec<u64> = (0..500u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9) & 0xff)
            .collect();
        let mut sorted = Vec::new();
        let bounds = sieve.sort(&masks, &mut sorted, &mut Vec::new());
        assert_eq!(bounds.len(), 9);
        assert_eq!(bounds[8], masks.len());
        for c in 0..8 {
            for &m in &sorted[bounds[c]..bounds[c + 1]] {
                assert_eq!(sieve.class(m), c);
                assert_eq!(c & 1 != 0, m >> 3 & 1 != 0);
                assert_eq!(c & 2 != 0, m & 1 != 0);
                assert_eq!(c & 4 != 0, m >> 7 & 1 != 0);
            }
        }
        let (mut a, mut b) = (masks.clone(), sorted.clone());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }

    #[test]
    fn a_sieved_count_equals_the_plain_one() {
        // Random masks of 20 bits, each bit set half the time: a cut rules out a quarter
        // of the pairs, and the sets are large enough for the plan to sieve.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state & ((1 << 20) - 1)
        };
        let p: Vec<u64> = (0..3000).map(|_| next()).collect();
        let x: Vec<u64> = (0..5000).map(|_| next()).collect();
        let costs = Costs {
            block_words: 4,
            item: 0,
            build: 0,
            sort: 0,
        };
        assert!(
            Sieve::plan(&p, &x, 20, costs).is_some(),
            "the plan should sieve here"
        );
        let expected = slow(&p, &x);
        assert_eq!(disjoint_pairs_at(costs, &p, &x, 20, slow), expected);
        assert_eq!(disjoint_pairs_at(costs, &x, &p, 20, slow), expected);
        for kernel in Kernel::available() {
            let sieved = disjoint_pairs_at(costs, &p, &x, 20, |a, b| {
                kernel.disjoint_pairs_unsieved(a, b, 20)
            });
            assert_eq!(sieved, expected, "{kernel:?}");
            assert_eq!(disjoint_pairs(kernel, &p, &x, 20), expected, "{kernel:?}");
        }
    }

    #[test]
    fn small_sets_are_not_sieved() {
        let costs = Kernel::Portable.costs();
        let p = vec![1u64; 100];
        assert_eq!(Sieve::plan(&p, &p, 30, costs), None);
    }
}
