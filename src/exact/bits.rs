//! Fixed-width sets of small integers (free columns, open rows) as machine words.
//!
//! The search is generic over the width so that a residual of 25 rows runs on plain `u32`
//! (or `u64`) operations and one of 1,000 rows on `[u64; 16]`, each compiled to
//! straight-line code (the array length is a constant, so the loops over words unroll).

/// Sets of one machine word each, as the vector scans (x86-64's) take them.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) enum Words<'a> {
    U64(&'a [u64]),
    U32(&'a [u32]),
}

/// A set of integers below [`Bits::CAPACITY`], one bit each.
///
/// # Safety
/// Implemented only for plain words (`u32`, `u64` and arrays of them): every bit pattern
/// of the type's size is a value, it has no padding and needs no more than 64-byte
/// alignment, so that the search may keep sets in cache lines of bytes (`search::Aligned`).
pub(super) unsafe trait Bits:
    Copy + Eq + Send + Sync + std::fmt::Debug + 'static
{
    /// Number of integers the set can hold.
    const CAPACITY: usize;
    /// The empty set.
    fn zero() -> Self;
    /// `{0, 1, ..., k - 1}`.
    fn below(k: usize) -> Self;
    /// Whether `i` is in the set.
    fn has(&self, i: usize) -> bool;
    /// The set with `i` added.
    fn with(self, i: usize) -> Self;
    /// The set with `i` removed.
    fn without(self, i: usize) -> Self;
    /// Intersection.
    fn and(self, o: Self) -> Self;
    /// Difference.
    fn and_not(self, o: Self) -> Self;
    /// Union.
    fn or(self, o: Self) -> Self;
    /// Whether the set is empty.
    fn is_zero(&self) -> bool;
    /// Number of members.
    fn count(&self) -> u32;
    /// The smallest member; the set must not be empty.
    fn lowest(&self) -> usize;
    /// The sets as single words, where the width is one word (for scans that work on
    /// words: [`level_scan`](super::level_scan)).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn as_words(sets: &[Self]) -> Option<Words<'_>>;
    /// The set of the members of `w` (all below [`Bits::CAPACITY`] and 64).
    fn from_word(w: u64) -> Self;
    /// The members below 64, as a word.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn low_word(&self) -> u64;
    /// Calls `f` with each member in increasing order.
    #[inline(always)]
    fn each(self, mut f: impl FnMut(usize)) {
        let mut s = self;
        while !s.is_zero() {
            let i = s.lowest();
            f(i);
            s = s.without(i);
        }
    }
}

/// `Bits` for one machine word: `u64`, and `u32` for residuals of at most 32 rows (half
/// the bytes per level, so the vector scans take a level in half the registers).
macro_rules! word_bits {
    ($t:ty, $lanes:ident) => {
        // SAFETY: a machine word.
        unsafe impl Bits for $t {
            const CAPACITY: usize = <$t>::BITS as usize;
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn below(k: usize) -> Self {
                if k >= Self::CAPACITY {
                    <$t>::MAX
                } else {
                    (1 << k) - 1
                }
            }
            #[inline(always)]
            fn has(&self, i: usize) -> bool {
                self >> i & 1 == 1
            }
            #[inline(always)]
            fn with(self, i: usize) -> Self {
                self | 1 << i
            }
            #[inline(always)]
            fn without(self, i: usize) -> Self {
                self & !(1 << i)
            }
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                self & o
            }
            #[inline(always)]
            fn and_not(self, o: Self) -> Self {
                self & !o
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                self | o
            }
            #[inline(always)]
            fn is_zero(&self) -> bool {
                *self == 0
            }
            #[inline(always)]
            fn count(&self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest(&self) -> usize {
                self.trailing_zeros() as usize
            }
            #[inline(always)]
            fn as_words(sets: &[Self]) -> Option<Words<'_>> {
                Some(Words::$lanes(sets))
            }
            #[inline(always)]
            fn from_word(w: u64) -> Self {
                debug_assert!(w <= <$t>::MAX as u64);
                w as $t
            }
            #[inline(always)]
            fn low_word(&self) -> u64 {
                *self as u64
            }
            #[inline(always)]
            fn each(self, mut f: impl FnMut(usize)) {
                let mut s = self;
                while s != 0 {
                    f(s.trailing_zeros() as usize);
                    s &= s - 1;
                }
            }
        }
    };
}

word_bits!(u64, U64);
word_bits!(u32, U32);

// SAFETY: an array of machine words.
unsafe impl<const K: usize> Bits for [u64; K] {
    const CAPACITY: usize = 64 * K;
    #[inline(always)]
    fn zero() -> Self {
        [0; K]
    }
    #[inline(always)]
    fn below(k: usize) -> Self {
        std::array::from_fn(|w| <u64 as Bits>::below(k.saturating_sub(64 * w)))
    }
    #[inline(always)]
    fn has(&self, i: usize) -> bool {
        self[i >> 6].has(i & 63)
    }
    #[inline(always)]
    fn with(mut self, i: usize) -> Self {
        self[i >> 6] |= 1 << (i & 63);
        self
    }
    #[inline(always)]
    fn without(mut self, i: usize) -> Self {
        self[i >> 6] &= !(1 << (i & 63));
        self
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        std::array::from_fn(|w| self[w] & o[w])
    }
    #[inline(always)]
    fn and_not(self, o: Self) -> Self {
        std::array::from_fn(|w| self[w] & !o[w])
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        std::array::from_fn(|w| self[w] | o[w])
    }
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.iter().all(|&w| w == 0)
    }
    #[inline(always)]
    fn count(&self) -> u32 {
        self.iter().map(|w| w.count_ones()).sum()
    }
    #[inline(always)]
    fn lowest(&self) -> usize {
        let w = self.iter().position(|&w| w != 0).unwrap_or(K - 1);
        64 * w + self[w].trailing_zeros() as usize
    }
    #[inline(always)]
    fn as_words(_: &[Self]) -> Option<Words<'_>> {
        None
    }
    #[inline(always)]
    fn from_word(w: u64) -> Self {
        std::array::from_fn(|k| if k == 0 { w } else { 0 })
    }
    #[inline(always)]
    fn low_word(&self) -> u64 {
        self[0]
    }
    #[inline(always)]
    fn each(self, mut f: impl FnMut(usize)) {
        for (w, &word) in self.iter().enumerate() {
            word.each(|i| f(64 * w + i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members<B: Bits>(b: B) -> Vec<usize> {
        let mut v = Vec::new();
        b.each(|i| v.push(i));
        v
    }

    fn agree<B: Bits>() {
        let cap = B::CAPACITY;
        let picks = [0, 1, 63.min(cap - 1), 64.min(cap - 1), cap / 2, cap - 1];
        let mut b = B::zero();
        let mut want = std::collections::BTreeSet::new();
        for &i in &picks {
            b = b.with(i);
            want.insert(i);
        }
        assert_eq!(members(b), want.iter().copied().collect::<Vec<_>>());
        assert_eq!(b.count() as usize, want.len());
        assert_eq!(b.lowest(), 0);
        let b2 = b.without(0).without(1);
        assert_eq!(b2.lowest(), *want.iter().nth(2).unwrap());
        assert_eq!(members(B::below(cap)).len(), cap);
        assert_eq!(members(B::below(3)), vec![0, 1, 2]);
        assert!(b.and_not(b).is_zero());
        assert_eq!(b.and(B::below(2)), B::zero().with(0).with(1));
        assert_eq!(b2.or(B::below(2)), b);
        assert!(b.has(cap - 1) && !b2.has(1));
    }

    #[test]
    fn every_width_behaves_like_a_set() {
        agree::<u32>();
        agree::<u64>();
        agree::<[u64; 2]>();
        agree::<[u64; 4]>();
        agree::<[u64; 16]>();
    }
}
