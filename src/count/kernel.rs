//! The SIMD kernels of the counting engines.
//!
//! Each kernel is the same generic code compiled for a set of CPU features, chosen once
//! for the whole program ([`crate::simd`]: the fastest this CPU runs, or the one
//! `NQUEENS_KERNEL` forces). The portable kernel is what ARM and older x86 run; it is
//! plain code written so that the compiler vectorises it for the baseline (SSE2, NEON).
//! This file holds the matching of two sets of masks and what it costs (the sieve above it
//! plans with those costs); the same choice of kernel also
//! joins quarter pieces ([`super::join`]) and splits halves ([`super::split`]).

use std::mem::MaybeUninit;

pub use crate::simd::{Kernel, KernelError};

impl Kernel {
    /// What matching costs this kernel, for the sieve's plan (in the units of
    /// [`Costs`]). Counted from the instructions of each loop: per item and block,
    /// the portable kernel spends about 45 on a block of 8 words, AVX2 about 56 on 16, AVX-512
    /// about 12 per 16 words plus the chunk indices; building a block's table spends about
    /// 1,100 per word since it is built from a transpose (3,300 before); sorting a mask
    /// about 30. The `build` figures were cut to a third with the transpose: 5 % faster
    /// with the portable kernel at n = 19, the others within noise; a third of that again
    /// measured no faster.
    pub(crate) fn costs(self) -> Costs {
        match self {
            Kernel::Portable => Costs {
                block_words: 8,
                item: 2,
                build: 200,
                sort: 4,
            },
            Kernel::Avx2 => Costs {
                block_words: 16,
                item: 8,
                build: 500,
                sort: 8,
            },
            Kernel::Avx512 => Costs {
                block_words: 16,
                item: 16,
                build: 1300,
                sort: 24,
            },
        }
    }

    /// [`Kernel::disjoint_pairs`] without a sieve.
    pub(crate) fn disjoint_pairs_unsieved(self, patterns: &[u64], items: &[u64], bits: u32) -> u64 {
        if bits >= WIDE_FROM_BITS {
            self.disjoint_pairs_by::<WIDE>(patterns, items, bits)
        } else {
            self.disjoint_pairs_by::<NARROW>(patterns, items, bits)
        }
    }

    /// [`Kernel::disjoint_pairs`] with tables of `E` entries per chunk: each kernel and
    /// chunk width is a function of its own, so that each is compiled for its own loop.
    fn disjoint_pairs_by<const E: usize>(self, patterns: &[u64], items: &[u64], bits: u32) -> u64 {
        match self {
            // The portable kernel's blocks are half as wide: its narrow tables fit L1 with a
            // chunk of six bits.
            Kernel::Portable if E == NARROW => {
                disjoint_pairs_portable::<NARROW_PORTABLE>(patterns, items, bits)
            }
            Kernel::Portable => disjoint_pairs_portable::<E>(patterns, items, bits),
            // SAFETY: each arm runs only for a kernel whose features `supported` found.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { disjoint_pairs_avx2::<E>(patterns, items, bits) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, AVX-512 was detected.
            Kernel::Avx512 => unsafe { disjoint_pairs_avx512::<E>(patterns, items, bits) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => disjoint_pairs_portable::<E>(patterns, items, bits),
        }
    }
}

#[inline(never)]
fn disjoint_pairs_portable<const E: usize>(patterns: &[u64], items: &[u64], bits: u32) -> u64 {
    // The baseline has no population count instruction for a word (x86-64 before SSE4.2;
    // NEON's counts bytes): bits are counted by bytes.
    disjoint_pairs::<8, E, Bytewise>(patterns, items, bits)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
fn disjoint_pairs_avx2<const E: usize>(patterns: &[u64], items: &[u64], bits: u32) -> u64 {
    disjoint_pairs::<16, E, WordCounts>(patterns, items, bits)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,bmi1,bmi2,popcnt")]
fn disjoint_pairs_avx512<const E: usize>(patterns: &[u64], items: &[u64], bits: u32) -> u64 {
    disjoint_pairs::<16, E, Avx512Counts>(patterns, items, bits)
}

/// Bits of a mask combined in advance: a table entry per value of each chunk of `K` bits,
/// `E = 2^K` entries. Five-bit chunks keep a block's table (7-9 chunks of 32 entries of
/// 8 W bytes) in L1 for W = 8 and about fill it for W = 16, and 4 and 6 bits measured no
/// faster up to n = 18; from n = 19 on, where the sets to match are larger, seven-bit
/// chunks (6 chunks of 128 entries for 39 bits) save a seventh of the work per item and
/// measured 6-8 % faster (BENCHMARKS.md, "count"). The portable kernel (W = 8) takes
/// six-bit chunks below n = 19, 6 chunks of 64 entries of 64 bytes (24 KiB): 4-8 % faster
/// than five bits at n = 16-18, where seven measured slower; for W = 16 six bits measured
/// slower at n = 18.
const NARROW: usize = 1 << 5;
const NARROW_PORTABLE: usize = 1 << 6;
const WIDE: usize = 1 << 7;
/// Mask widths (2n - 1 bits) from which the wide chunks are used: n >= 19.
const WIDE_FROM_BITS: u32 = 37;

/// `W` words of one bit per pattern: a block of `64 W` patterns.
type Lanes<const W: usize> = [u64; W];

/// A table entry on cache-line boundaries, so that looking one up touches one or two whole
/// lines rather than two or three (the allocator aligns to 16 bytes only, and where an
/// entry fell varied from build to build: up to 10 % of the matching time).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Entry<const W: usize>(Lanes<W>);

/// Bit-sliced matching: the patterns are cut into blocks of `64 W`; for each block and each
/// chunk of a mask's bits, every value of that chunk maps to the block's patterns having
/// none of its bits. An item is then matched against a whole block by AND-ing one entry per
/// chunk, and the bits left are the block's patterns disjoint from it. `C` counts those
/// bits for the kernel ([`Tally`]).
#[inline(always)]
fn disjoint_pairs<const W: usize, const E: usize, C: Tally>(
    patterns: &[u64],
    items: &[u64],
    bits: u32,
) -> u64 {
    // Matching costs the same whichever side is cut into blocks, but building a block
    // costs per pattern, and a partly filled block costs as much as a full one: block the
    // smaller side.
    let (patterns, items) = if patterns.len() <= items.len() {
        (patterns, items)
    } else {
        (items, patterns)
    };
    // The number of chunks is a constant in each copy so that the loop over an item's
    // chunks unrolls (13 chunks of 5 bits cover 64).
    const { assert!(13 * E.trailing_zeros() >= 64) };
    match bits.div_ceil(E.trailing_zeros()) {
        0..=6 => blocks::<W, E, 6, C>(patterns, items),
        7 => blocks::<W, E, 7, C>(patterns, items),
        8 => blocks::<W, E, 8, C>(patterns, items),
        9 => blocks::<W, E, 9, C>(patterns, items),
        10 => blocks::<W, E, 10, C>(patterns, items),
        11 => blocks::<W, E, 11, C>(patterns, items),
        12 => blocks::<W, E, 12, C>(patterns, items),
        _ => blocks::<W, E, 13, C>(patterns, items),
    }
}

/// Full blocks of `64 W` patterns, then the rest in the narrowest block that holds it
/// (most column sets have a few hundred halves, where a block of 1024 would be mostly
/// empty).
#[inline(always)]
fn blocks<const W: usize, const E: usize, const CHUNKS: usize, C: Tally>(
    patterns: &[u64],
    items: &[u64],
) -> u64 {
    let (head, tail) = patterns.split_at(patterns.len() / (64 * W) * (64 * W));
    let mut total = pairs_in_chunks::<W, E, CHUNKS, C>(head, items);
    total += match tail_block_words(W, tail.len()) {
        0 => 0,
        4 => pairs_in_chunks::<4, E, CHUNKS, C>(tail, items),
        8 => pairs_in_chunks::<8, E, CHUNKS, C>(tail, items),
        _ => pairs_in_chunks::<W, E, CHUNKS, C>(tail, items),
    };
    total
}

/// The cost of matching, as a kernel does it, in units of one word of a block's table
/// matched against one item.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs {
    /// Words per full block (64 patterns per word).
    pub block_words: usize,
    /// Matching an item against a block, besides its words (the chunk indices, the count).
    pub item: usize,
    /// Building a block's table, per word of it, in items matched.
    pub build: usize,
    /// Sorting one mask into its class.
    pub sort: usize,
}

impl Costs {
    /// Estimated work of matching `p` patterns with `x` items without a sieve: full
    /// blocks, then a tail block as narrow as the kernel makes it.
    pub(crate) fn matching(&self, p: usize, x: usize) -> usize {
        let w = self.block_words;
        let full = p / (64 * w);
        let tail_words = tail_block_words(w, p - full * 64 * w);
        let blocks = full + (tail_words > 0) as usize;
        let words = full * w + tail_words;
        words * (x + self.build) + blocks * self.item * x
    }
}

/// The words of the block that holds the `tail` patterns left after the full blocks of
/// `w` words: the narrowest of 4, 8 and `w` that holds them (0 for no tail).
pub(crate) fn tail_block_words(w: usize, tail: usize) -> usize {
    match tail {
        0 => 0,
        t if w > 4 && t <= 256 => 4,
        t if w > 8 && t <= 512 => 8,
        _ => w,
    }
}

#[inline(always)]
fn pairs_in_chunks<const W: usize, const E: usize, const CHUNKS: usize, C: Tally>(
    patterns: &[u64],
    items: &[u64],
) -> u64 {
    if patterns.is_empty() || items.is_empty() {
        return 0;
    }
    let chunk = E.trailing_zeros() as usize;
    let bits = (CHUNKS * chunk).min(64);
    // Not zero-filled: every block writes each entry before reading it (the fill was 3 % of
    // a count at n = 19).
    let mut storage = Box::<[[Entry<W>; E]; CHUNKS]>::new_uninit();
    let building = storage
        .as_mut_ptr()
        .cast::<[[MaybeUninit<Entry<W>>; E]; CHUNKS]>();
    let mut lanes = [0u64; W];
    for block in patterns.chunks(64 * W) {
        // has[b]: the block's patterns with bit b set, one word (64 patterns) at a time: the
        // transpose of the word's patterns as a bit matrix.
        let mut has = [[0u64; W]; 64];
        let mut valid = [0u64; W];
        for (w, word) in block.chunks(64).enumerate() {
            valid[w] = if word.len() == 64 {
                !0
            } else {
                (1u64 << word.len()) - 1
            };
            let mut rows = [0u64; 64];
            rows[..word.len()].copy_from_slice(word);
            transpose_bits(&mut rows);
            for (has, &row) in has.iter_mut().zip(&rows).take(bits) {
                has[w] = row;
            }
        }
        // SAFETY: `MaybeUninit<[T; N]>` and `[MaybeUninit<T>; N]` have one layout, and
        // nothing else refers to the storage while the block is built.
        let entries_of = unsafe { &mut *building };
        for (c, entries) in entries_of.iter_mut().enumerate() {
            entries[0].write(Entry(if c == 0 { valid } else { [!0; W] }));
            for v in 1..E {
                let bit = c * chunk + v.trailing_zeros() as usize;
                // SAFETY: entry `v & (v - 1)`, below `v`, was written earlier in this loop.
                let mut e = unsafe { entries[v & (v - 1)].assume_init_ref() }.0;
                if bit < 64 {
                    for (w, e) in e.iter_mut().enumerate() {
                        *e &= !has[bit][w];
                    }
                }
                entries[v].write(Entry(e));
            }
        }
        // SAFETY: the loop above wrote every entry of every chunk.
        let table = unsafe { &*building.cast::<[[Entry<W>; E]; CHUNKS]>() };
        // SAFETY: `C` is the tally of the kernel whose features were detected.
        unsafe { C::tally(table, items, &mut lanes) };
    }
    lanes.iter().sum()
}

/// Transposes a 64 x 64 bit matrix in place: bit j of row i moves to bit i of row j. Six
/// rounds, each swapping the off-diagonal quarters of every block of the round's size at
/// once: 6 x 32 masked swaps, where testing bit by bit took 64 x 64 shifts (a third of the
/// portable kernel's time at n = 18, in building its tables).
#[inline(always)]
fn transpose_bits(m: &mut [u64; 64]) {
    let mut j = 32;
    let mut mask = 0x0000_0000_ffff_ffff_u64;
    while j != 0 {
        // The rows with bit j of their index clear, each paired with the row j after it:
        // its high j bits of each 2j swap with the other's low j bits.
        let mut k = 0;
        while k < 64 {
            let t = ((m[k] >> j) ^ m[k + j]) & mask;
            m[k] ^= t << j;
            m[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        mask ^= mask << j;
    }
}

/// The patterns of a block that `x` is disjoint from: one table entry per chunk of its bits,
/// AND-ed.
#[inline(always)]
fn matched<const W: usize, const E: usize, const CHUNKS: usize>(
    table: &[[Entry<W>; E]; CHUNKS],
    x: u64,
) -> Lanes<W> {
    let chunk = E.trailing_zeros() as usize;
    let mut acc = table[0][(x as usize) & (E - 1)].0;
    for (c, entries) in table.iter().enumerate().skip(1) {
        let e = &entries[(x >> (chunk * c)) as usize & (E - 1)].0;
        for w in 0..W {
            acc[w] &= e[w];
        }
    }
    acc
}

/// How a kernel counts, for one block, the pairs its table holds with every item: each
/// item's [`matched`] lanes are counted into one sum per lane, without a branch and without
/// adding the lanes up (testing for an empty result first, and a horizontal sum per item,
/// measured 16-29 % slower; BENCHMARKS.md, "count").
trait Tally {
    /// Adds, lane by lane, the set bits of every item's matched lanes to `lanes`.
    ///
    /// # Safety
    /// The CPU has the instructions the tally is written with.
    unsafe fn tally<const W: usize, const E: usize, const CHUNKS: usize>(
        table: &[[Entry<W>; E]; CHUNKS],
        items: &[u64],
        lanes: &mut Lanes<W>,
    );
}

/// Without a population count instruction: eight items added bit-sliced
/// ([`harley_seal`]), then the planes counted by bytes ([`BytewiseCounts`]). The adders
/// took the portable kernel from 5.95 to 4.85 s at Q(18) on an Intel Xeon (BENCHMARKS.md,
/// "count").
struct Bytewise;

impl Tally for Bytewise {
    #[inline(always)]
    unsafe fn tally<const W: usize, const E: usize, const CHUNKS: usize>(
        table: &[[Entry<W>; E]; CHUNKS],
        items: &[u64],
        lanes: &mut Lanes<W>,
    ) {
        let mut eights = BytewiseCounts::<W>::new();
        let mut in_eights = 0;
        let (planes, rest) = harley_seal(table, items, |e| {
            eights.add(e);
            in_eights += 1;
            if in_eights == BYTEWISE_ITEMS {
                std::mem::replace(&mut eights, BytewiseCounts::new()).drain_into_times(lanes, 8);
                in_eights = 0;
            }
        });
        eights.drain_into_times(lanes, 8);
        let mut counts = BytewiseCounts::<W>::new();
        for &x in rest {
            counts.add(&matched(table, x));
        }
        counts.drain_into_times(lanes, 1);
        for (plane, weight) in planes.iter().zip([1, 2, 4]) {
            let mut counts = BytewiseCounts::<W>::new();
            counts.add(plane);
            counts.drain_into_times(lanes, weight);
        }
    }
}

/// Adds the matched lanes of `items` bit-sliced, eight items at a time (Harley-Seal: seven
/// carry-save adders leave a plane of eights, fours, twos and ones), so that a tally counts
/// the bits of one plane of eights per eight items. Passes each group's eights to
/// `eights`; returns the planes of ones, twos and fours, and the items left over (fewer
/// than eight).
#[inline(always)]
fn harley_seal<'a, const W: usize, const E: usize, const CHUNKS: usize>(
    table: &[[Entry<W>; E]; CHUNKS],
    items: &'a [u64],
    mut eights: impl FnMut(&Lanes<W>),
) -> ([Lanes<W>; 3], &'a [u64]) {
    let mut planes = [[0u64; W]; 3];
    let mut groups = items.chunks_exact(8);
    for g in groups.by_ref() {
        let [ones, twos, fours] = &mut planes;
        let m = |i: usize| matched(table, g[i]);
        let twos_a = carry_save(ones, &m(0), &m(1));
        let twos_b = carry_save(ones, &m(2), &m(3));
        let fours_a = carry_save(twos, &twos_a, &twos_b);
        let twos_a = carry_save(ones, &m(4), &m(5));
        let twos_b = carry_save(ones, &m(6), &m(7));
        let fours_b = carry_save(twos, &twos_a, &twos_b);
        eights(&carry_save(fours, &fours_a, &fours_b));
    }
    (planes, groups.remainder())
}

/// A carry-save adder on bit-sliced lanes: adds `a` and `b` into `sum` (the plane of one
/// weight) and returns the carries, the plane of the next weight.
#[inline(always)]
fn carry_save<const W: usize>(sum: &mut Lanes<W>, a: &Lanes<W>, b: &Lanes<W>) -> Lanes<W> {
    let mut carry = [0u64; W];
    for w in 0..W {
        let u = sum[w] ^ a[w];
        carry[w] = (sum[w] & a[w]) | (u & b[w]);
        sum[w] = u ^ b[w];
    }
    carry
}

/// With a population count of each word, left to the compiler (AVX2 and POPCNT). Adding
/// eight items bit-sliced first ([`harley_seal`]) measured 5 % slower on an Intel Xeon
/// (Q(18), 3.20 -> 3.37 s; BENCHMARKS.md, "count").
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct WordCounts;

impl Tally for WordCounts {
    #[inline(always)]
    unsafe fn tally<const W: usize, const E: usize, const CHUNKS: usize>(
        table: &[[Entry<W>; E]; CHUNKS],
        items: &[u64],
        lanes: &mut Lanes<W>,
    ) {
        for &x in items {
            let acc = matched(table, x);
            for w in 0..W {
                lanes[w] += acc[w].count_ones() as u64;
            }
        }
    }
}

/// With AVX-512 registers and VPOPCNTDQ, written out: compiled for AVX-512 from the
/// generic loop of [`WordCounts`], the compiler matched eight items at a time with gather
/// loads, and the kernel ran 1.7x slower than the AVX2 one (BENCHMARKS.md, "count").
#[cfg(target_arch = "x86_64")]
struct Avx512Counts;

#[cfg(target_arch = "x86_64")]
impl Tally for Avx512Counts {
    #[inline(always)]
    unsafe fn tally<const W: usize, const E: usize, const CHUNKS: usize>(
        table: &[[Entry<W>; E]; CHUNKS],
        items: &[u64],
        lanes: &mut Lanes<W>,
    ) {
        // SAFETY: the caller's CPU has the features (the trait's contract).
        unsafe { tally_avx512(table, items, lanes) }
    }
}

/// [`Avx512Counts`]: 512-bit lanes for blocks of 512 or 1024 patterns, 256-bit ones (with
/// AVX-512VL) for the narrow tail blocks of 256.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512vpopcntdq")]
fn tally_avx512<const W: usize, const E: usize, const CHUNKS: usize>(
    table: &[[Entry<W>; E]; CHUNKS],
    items: &[u64],
    lanes: &mut Lanes<W>,
) {
    use std::arch::x86_64::*;
    const { assert!(W == 4 || W == 8 || W == 16) };
    let chunk = E.trailing_zeros() as usize;
    // An entry is 64-byte aligned and W words long; `at(c, x)` points at the entry of
    // item `x`'s chunk `c`.
    let at = |c: usize, x: u64| table[c][(x >> (chunk * c)) as usize & (E - 1)].0.as_ptr();
    if W == 4 {
        let mut sum = _mm256_setzero_si256();
        for &x in items {
            // SAFETY: an entry holds W = 4 words, aligned to 64 bytes.
            let mut acc = unsafe { _mm256_load_si256(at(0, x).cast()) };
            for c in 1..CHUNKS {
                // SAFETY: as above.
                let e = unsafe { _mm256_load_si256(at(c, x).cast()) };
                acc = _mm256_and_si256(acc, e);
            }
            sum = _mm256_add_epi64(sum, _mm256_popcnt_epi64(acc));
        }
        let mut out = [0u64; 4];
        // SAFETY: `out` holds four words.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), sum) };
        for (lane, v) in lanes.iter_mut().zip(out) {
            *lane += v;
        }
        return;
    }
    // W = 8 or 16: one or two 512-bit registers per entry.
    let halves = W / 8;
    let mut sum = [_mm512_setzero_si512(); 2];
    for &x in items {
        let mut acc = [_mm512_setzero_si512(); 2];
        for (h, acc) in acc.iter_mut().enumerate().take(halves) {
            // SAFETY: an entry holds W words, aligned to 64 bytes; `h < W / 8`.
            *acc = unsafe { _mm512_load_si512(at(0, x).add(8 * h).cast()) };
        }
        for c in 1..CHUNKS {
            for (h, acc) in acc.iter_mut().enumerate().take(halves) {
                // SAFETY: as above.
                let e = unsafe { _mm512_load_si512(at(c, x).add(8 * h).cast()) };
                *acc = _mm512_and_si512(*acc, e);
            }
        }
        for h in 0..halves {
            sum[h] = _mm512_add_epi64(sum[h], _mm512_popcnt_epi64(acc[h]));
        }
    }
    for h in 0..halves {
        let mut out = [0u64; 8];
        // SAFETY: `out` holds eight words.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), sum[h]) };
        for (lane, v) in lanes[8 * h..].iter_mut().zip(out) {
            *lane += v;
        }
    }
}

/// Set bits of a few bit-sliced results, counted per lane without a population count
/// instruction: each word's bits are summed into its eight bytes (three shift-and-add
/// steps), bytes accumulate over up to [`BYTEWISE_ITEMS`] results, and only then
/// are a word's bytes added up. With SSE2 this measured 9 % faster at n = 18 than counting
/// each result's bits in full (BENCHMARKS.md, "count").
struct BytewiseCounts<const W: usize> {
    bytes: Lanes<W>,
}

/// Results a [`BytewiseCounts`] can take: a byte gains at most 8 per result, and
/// 31 * 8 < 256.
const BYTEWISE_ITEMS: usize = 31;

impl<const W: usize> BytewiseCounts<W> {
    fn new() -> Self {
        BytewiseCounts { bytes: [0; W] }
    }

    /// Adds the set bits of `result`, lane by lane.
    #[inline(always)]
    fn add(&mut self, result: &Lanes<W>) {
        for (bytes, &v) in self.bytes.iter_mut().zip(result) {
            let v = v - ((v >> 1) & 0x5555_5555_5555_5555);
            let v = (v & 0x3333_3333_3333_3333) + ((v >> 2) & 0x3333_3333_3333_3333);
            *bytes += (v + (v >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
        }
    }

    /// Adds each lane's count, times `weight`, to `lanes`.
    #[inline(always)]
    fn drain_into_times(self, lanes: &mut Lanes<W>, weight: u64) {
        for (lane, &v) in lanes.iter_mut().zip(&self.bytes) {
            let v = (v & 0x00ff_00ff_00ff_00ff) + ((v >> 8) & 0x00ff_00ff_00ff_00ff);
            *lane += weight * (v.wrapping_mul(0x0001_0001_0001_0001) >> 48);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn disjoint_pairs_agree_with_counting_each_pair(
            patterns in prop::collection::vec(any::<u64>(), 0..700),
            items in prop::collection::vec(any::<u64>(), 0..40),
            bits in 1u32..=64,
            sparse in 0u32..4,
        ) {
            let mask = if bits == 64 { !0 } else { (1u64 << bits) - 1 };
            // Random words have few disjoint pairs; thin them out so that many are.
            let thin = |v: &[u64], salt: u64| -> Vec<u64> {
                v.iter().map(|&x| {
                    let mut y = x & mask;
                    for s in 0..sparse {
                        y &= (x.rotate_left(7 * s + salt as u32)) | !mask;
                    }
                    y & mask
                }).collect()
            };
            let (p, x) = (thin(&patterns, 3), thin(&items, 11));
            let slow = p.iter().map(|&a| x.iter().filter(|&&b| a & b == 0).count() as u64).sum::<u64>();
            for k in Kernel::available() {
                prop_assert_eq!(super::super::sieve::disjoint_pairs(k, &p, &x, bits), slow, "{:?}", k);
            }
        }

        #[test]
        fn transpose_bits_moves_each_bit_across_the_diagonal(
            rows in prop::collection::vec(any::<u64>(), 64),
        ) {
            let mut m: [u64; 64] = rows.clone().try_into().unwrap();
            transpose_bits(&mut m);
            for (i, &row) in rows.iter().enumerate() {
                for (j, &t) in m.iter().enumerate() {
                    prop_assert_eq!(row >> j & 1, t >> i & 1, "bit {} of row {}", j, i);
                }
            }
        }
    }

    #[test]
    fn large_sets_span_many_blocks_and_a_narrow_tail() {
        // 5000 patterns: four blocks of 1024 and a tail; sparse 40-bit masks.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x & (x >> 11) & (x >> 23) & ((1 << 40) - 1)
        };
        let patterns: Vec<u64> = (0..5000).map(|_| next()).collect();
        let items: Vec<u64> = (0..4000).map(|_| next()).collect();
        let slow: u64 = patterns
            .iter()
            .map(|&p| items.iter().filter(|&&i| p & i == 0).count() as u64)
            .sum();
        assert!(slow > 0 && slow < 5000 * 4000);
        for k in Kernel::available() {
            assert_eq!(
                super::super::sieve::disjoint_pairs(k, &patterns, &items, 40),
                slow,
                "{k:?}"
            );
        }
    }

    #[test]
    fn every_pair_disjoint_counts_past_a_bytes_worth() {
        // All-zero masks: every pair counts, so every byte of a bytewise count takes its
        // largest value in every group of items, also in the planes of eights, which are
        // drained every 31 groups of eight items (501 = 2 * 31 * 8 + 5).
        for (patterns, items) in [(1024, 100), (1500, 31), (64, 62), (3000, 7), (64, 501)] {
            let (p, x) = (vec![0u64; patterns], vec![0u64; items]);
            for k in Kernel::available() {
                let total = (patterns * items) as u64;
                assert_eq!(
                    super::super::sieve::disjoint_pairs(k, &p, &x, 35),
                    total,
                    "{k:?}"
                );
                assert_eq!(
                    super::super::sieve::disjoint_pairs(k, &p, &x, 40),
                    total,
                    "{k:?}"
                );
            }
        }
    }

    #[test]
    fn a_forced_kernel_the_cpu_lacks_is_refused_by_name() {
        // Only the parsing is tested here (the variable is read once per process); the
        // command-line tests set it for real.
        assert!(Kernel::ALL.iter().any(|k| k.name() == "portable"));
        assert!(Kernel::Portable.supported());
        assert_eq!(Kernel::available().last(), Some(&Kernel::Portable));
    }
}
