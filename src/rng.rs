//! The crate's random numbers: one generator per purpose, seeded from the user's `--seed`
//! and a path naming the purpose, and the few ways the engines draw from it.
//!
//! Everything above the raw stream is written here rather than taken from rand (its
//! `seed_from_u64`, `random_range`, `SliceRandom::shuffle`), so that a seed's output does
//! not change when a dependency's sampling does: reproducibility across releases is a
//! promise `--seed` makes. The stream itself is ChaCha8, a fixed algorithm.

use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A generator for one purpose.
pub(crate) struct Rng(ChaCha8Rng);

/// SplitMix64's finaliser: a bijection of `u64` that mixes every bit into every other.
pub(crate) fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator of the purpose `path` (phase, round, chunk, ...) under `seed`: no two
    /// purposes share a stream.
    pub(crate) fn seeded(seed: u64, path: &[u64]) -> Rng {
        let mut h = seed ^ 0x6a09_e667_f3bc_c908;
        for &p in path {
            h = splitmix(h ^ splitmix(p.wrapping_add(0x9e37_79b9_7f4a_7c15)));
        }
        let mut key = [0u8; 32];
        for (i, word) in key.chunks_exact_mut(8).enumerate() {
            h = splitmix(h.wrapping_add(i as u64));
            word.copy_from_slice(&h.to_le_bytes());
        }
        Rng(ChaCha8Rng::from_seed(key))
    }

    /// 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform number in `0..bound` (`bound` > 0), by Lemire's multiply-and-shift with
    /// rejection: unbiased, and usually one draw.
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0, "an empty range");
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        if (m as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform index into a slice of `len` (> 0) elements.
    pub(crate) fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// A uniform number in `lo..=hi`.
    pub(crate) fn between(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        match (hi - lo).checked_add(1) {
            Some(width) => lo + self.below(width),
            None => self.next_u64(),
        }
    }

    /// Shuffles `v` in place (Fisher-Yates from the back).
    pub(crate) fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.index(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streams are part of the `--seed` promise: these values must never change.
    #[test]
    fn streams_are_fixed() {
        let mut r = Rng::seeded(1, &[2, 3]);
        let drawn: Vec<u64> = (0..3).map(|_| r.below(1000)).collect();
        assert_eq!(drawn, [769, 596, 942]);
        assert_eq!(r.next_u64(), 12458961895433474572);
        assert_ne!(
            Rng::seeded(1, &[2, 3]).next_u64(),
            Rng::seeded(1, &[2, 4]).next_u64()
        );
    }

    #[test]
    fn draws_stay_in_range_and_cover_it() {
        let mut r = Rng::seeded(7, &[]);
        let mut seen = [0u32; 10];
        for _ in 0..10_000 {
            seen[r.below(10) as usize] += 1;
            let x = r.between(5, 8);
            assert!((5..=8).contains(&x));
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        assert!(r.between(0, u64::MAX) > 0 || r.between(0, u64::MAX) > 0);
        let mut v: Vec<u32> = (0..100).collect();
        r.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}
