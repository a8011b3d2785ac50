//! The level scan in AVX2: four 256-bit registers of eight rows each (`u32` words: the
//! residual has at most 32 columns as it has at most 32 rows).
//!
//! AVX2 has no population count: each byte's count comes from a table of the sixteen
//! nibbles (`VPSHUFB`, two lookups a byte) and the bytes of a lane are summed by two
//! multiply-adds. Rows with no cell or one are compares and `VMOVMSKPS` (eight bits a
//! register; a row of at most one cell is one whose word and word - 1 share no bit, found
//! before any count), the fewest row an unsigned minimum over the counts less one (a
//! closed or padding row, which holds no cell, wraps around to the largest value and
//! never wins), and the column counters the same tree as AVX-512's.

use super::{Counters, Scan};
use std::arch::x86_64::*;

/// Registers of a level of [`super::MAX_ROWS`] rows.
const REGS: usize = super::MAX_ROWS / 8;

/// The counters of two disjoint groups of rows added ([`super::add`]).
#[target_feature(enable = "avx2")]
#[inline]
fn add(x: Counters<__m256i>, y: Counters<__m256i>) -> Counters<__m256i> {
    super::add(
        x,
        y,
        |a, b| _mm256_and_si256(a, b),
        |a, b| _mm256_or_si256(a, b),
    )
}

/// The population count of each byte of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn byte_counts(v: __m256i) -> __m256i {
    let table = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let nibble = _mm256_set1_epi8(0x0f);
    let low = _mm256_and_si256(v, nibble);
    let high = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble);
    _mm256_add_epi8(
        _mm256_shuffle_epi8(table, low),
        _mm256_shuffle_epi8(table, high),
    )
}

/// The population count of each 32-bit lane of `v`: the byte counts summed in pairs, then
/// the pairs (`VPMADDUBSW`, `VPMADDWD` by ones).
#[target_feature(enable = "avx2")]
#[inline]
fn lane_counts(v: __m256i) -> __m256i {
    let pairs = _mm256_maddubs_epi16(byte_counts(v), _mm256_set1_epi8(1));
    _mm256_madd_epi16(pairs, _mm256_set1_epi16(1))
}

/// The level in registers: the rows it has, then empty ones.
#[target_feature(enable = "avx2")]
#[inline]
fn load(level: &[u32]) -> [__m256i; REGS] {
    // Whole registers, as `place` wrote them: a load the size of the store before it is
    // forwarded from it.
    std::array::from_fn(|k| match level.get(8 * k..8 * k + 8) {
        // SAFETY: the eight words loaded are `level`'s.
        Some(eight) => unsafe { _mm256_loadu_si256(eight.as_ptr().cast()) },
        None => _mm256_setzero_si256(),
    })
}

/// One bit per 32-bit lane where `f` of the lane's register is all ones, eight bits a
/// register: the four registers' lanes packed to bytes (saturating, so all ones stays all
/// ones) and their sign bits taken at once.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(regs: &[__m256i; REGS], f: impl Fn(__m256i) -> __m256i) -> u64 {
    const _: () = assert!(REGS == 4);
    let [a, b, c, d] = regs.map(f);
    // Within each 128-bit half: rows 0-3 of a, of b, of c, of d in the low half, rows 4-7
    // of each in the high half; each group of four rows is one 32-bit lane.
    let bytes = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    let rows = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_movemask_epi8(rows) as u32 as u64
}

/// The low 32-bit lane of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn low_lane(v: __m256i) -> u32 {
    _mm_cvtsi128_si32(_mm256_castsi256_si128(v)) as u32
}

/// Scans `level` (the free cells of each row, padded with empty rows to a multiple of
/// eight; closed rows hold none) for the rows in `open`.
///
/// # Safety
/// The CPU must have AVX2 (as [`crate::simd::Kernel::Avx2`] requires).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn scan(level: &[u32], open: u64) -> Scan {
    let z = load(level);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi32(1);
    // Open rows with at most one cell (a & (a - 1) == 0) before any count; which of them
    // have none is asked only where there are some.
    let at_most_one = lanes(&z, |r| {
        _mm256_cmpeq_epi32(_mm256_and_si256(r, _mm256_sub_epi32(r, one)), zero)
    }) & open;
    let mut scan = Scan {
        dead: false,
        forced: 0,
        best: u32::MAX,
        best_row: 0,
        at_least: [0; 4],
    };
    if at_most_one != 0 {
        let empty = lanes(&z, |r| _mm256_cmpeq_epi32(r, zero)) & open;
        scan.dead = empty != 0;
        scan.forced = at_most_one & !empty;
        return scan;
    }
    let counts = z.map(|r| lane_counts(r));
    // Every open row has two cells or more here, every other none: the least count less
    // one, unsigned, is an open row's.
    let min = _mm256_min_epu32;
    let less = counts.map(|c| _mm256_sub_epi32(c, one));
    let low = min(min(less[0], less[1]), min(less[2], less[3]));
    let low = min(low, _mm256_permute2x128_si256::<0x01>(low, low));
    let low = min(low, _mm256_shuffle_epi32::<0x4E>(low));
    let low = min(low, _mm256_shuffle_epi32::<0xB1>(low));
    // (No open row, which the search never scans, leaves every lane wrapped around.)
    let fewest_less_one = low_lane(low);
    if fewest_less_one < 32 {
        let best = fewest_less_one + 1;
        let b = _mm256_set1_epi32(best as i32);
        let at = lanes(&counts, |c| _mm256_cmpeq_epi32(c, b)) & open;
        scan.best = best;
        scan.best_row = at.trailing_zeros() as usize;
    }
    // Column counters: rows in pairs, then pairs of pairs, then within the register.
    let (and, or) = (_mm256_and_si256, _mm256_or_si256);
    let pair = |a: __m256i, b: __m256i| [or(a, b), and(a, b), zero, zero];
    let mut c = add(pair(z[0], z[1]), pair(z[2], z[3]));
    // Swap 128-bit halves, then 64-bit lanes, then neighbouring rows.
    c = add(c, c.map(|x| _mm256_permute2x128_si256::<0x01>(x, x)));
    c = add(c, c.map(|x| _mm256_shuffle_epi32::<0x4E>(x)));
    c = add(c, c.map(|x| _mm256_shuffle_epi32::<0xB1>(x)));
    scan.at_least = c.map(|x| low_lane(x) as u64);
    scan
}

/// The free cells of `level` in `masks` (a queen's attacks, from the attack table), both
/// padded as in [`scan`]: how many cells the queen would close.
///
/// # Safety
/// As for [`scan`].
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn closed(level: &[u32], masks: &[u32]) -> u32 {
    // Byte counts summed over at most four registers stay within a byte (4 x 8).
    let mut bytes = _mm256_setzero_si256();
    for (l, k) in level.chunks_exact(8).zip(masks.chunks_exact(8)) {
        // SAFETY: eight words of each slice.
        let (l, k) = unsafe {
            (
                _mm256_loadu_si256(l.as_ptr().cast()),
                _mm256_loadu_si256(k.as_ptr().cast()),
            )
        };
        bytes = _mm256_add_epi8(bytes, byte_counts(_mm256_and_si256(l, k)));
    }
    let sums = _mm256_sad_epu8(bytes, _mm256_setzero_si256());
    let sums = _mm_add_epi64(
        _mm256_castsi256_si128(sums),
        _mm256_extracti128_si256::<1>(sums),
    );
    (_mm_cvtsi128_si64(sums) + _mm_extract_epi64::<1>(sums)) as u32
}

/// The rows of `level` (padded as in [`scan`]) with column `c` free, as a word.
///
/// # Safety
/// As for [`scan`].
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn rows_with(level: &[u32], c: usize) -> u64 {
    let bit = _mm256_set1_epi32(1 << c);
    lanes(&load(level), |z| {
        _mm256_cmpeq_epi32(_mm256_and_si256(z, bit), bit)
    })
}
