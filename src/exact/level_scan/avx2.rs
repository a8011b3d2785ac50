//! The level scan in AVX2: eight 256-bit registers of four rows each.
//!
//! AVX2 has no population count of a 64-bit lane: each byte's count comes from a table of
//! the sixteen nibbles (`VPSHUFB`, two lookups a byte) and the bytes of a lane are summed
//! by `VPSADBW`. Rows with no cell or one are compares and `VMOVMSKPD` (four bits a
//! register; a row of at most one cell is one whose word and word - 1 share no bit, found
//! before any count), the fewest row a minimum over 32-bit lanes (counts fit in their low
//! half), and the column counters the same tree as AVX-512's over twice the registers.

use super::{Counters, Scan};
use std::arch::x86_64::*;

/// Registers of a level of [`super::MAX_ROWS`] rows.
const REGS: usize = super::MAX_ROWS / 4;

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

/// The level in registers: the rows it has, then empty ones.
#[target_feature(enable = "avx2")]
#[inline]
fn load(level: &[u64]) -> [__m256i; REGS] {
    // Whole registers, as `place` wrote them: a load the size of the store before it is
    // forwarded from it.
    std::array::from_fn(|k| match level.get(4 * k..4 * k + 4) {
        // SAFETY: the four words loaded are `level`'s.
        Some(four) => unsafe { _mm256_loadu_si256(four.as_ptr().cast()) },
        None => _mm256_setzero_si256(),
    })
}

/// One bit per 64-bit lane where `f` of the lane's register is all ones, four bits a
/// register.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(regs: &[__m256i; REGS], f: impl Fn(__m256i) -> __m256i) -> u64 {
    regs.iter().enumerate().fold(0, |acc, (k, &r)| {
        acc | (_mm256_movemask_pd(_mm256_castsi256_pd(f(r))) as u64) << (4 * k)
    })
}

/// Scans `level` (the free cells of each row, padded with empty rows to a multiple of
/// eight; closed rows hold none) for the rows in `open`.
///
/// # Safety
/// The CPU must have AVX2 (as [`crate::simd::Kernel::Avx2`] requires).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn scan(level: &[u64], open: u64) -> Scan {
    let z = load(level);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    // Rows with no cell, and with at most one (a & (a - 1) == 0), before any count.
    let empty = lanes(&z, |r| _mm256_cmpeq_epi64(r, zero));
    let single = lanes(&z, |r| {
        _mm256_cmpeq_epi64(_mm256_and_si256(r, _mm256_sub_epi64(r, one)), zero)
    }) & !empty;
    let mut scan = Scan {
        dead: empty & open != 0,
        forced: single & open,
        best: u32::MAX,
        best_row: 0,
        at_least: [0; 4],
    };
    if scan.dead || scan.forced != 0 {
        return scan;
    }
    let counts = z.map(|r| _mm256_sad_epu8(byte_counts(r), zero));
    // The fewest cells of an open row (closed lanes count as 64 + 1). Counts fit in the
    // low 32 bits of their lane, whose high half is zero: an unsigned minimum over 32-bit
    // lanes is the minimum of the counts.
    let over = _mm256_set1_epi64x(65);
    let bits = _mm256_setr_epi64x(1, 2, 4, 8);
    let live = std::array::from_fn::<_, REGS, _>(|k| {
        let mine = _mm256_set1_epi64x((open >> (4 * k) & 0xf) as i64);
        let is_open = _mm256_cmpeq_epi64(_mm256_and_si256(mine, bits), bits);
        _mm256_blendv_epi8(over, counts[k], is_open)
    });
    let min = _mm256_min_epu32;
    let low = min(
        min(min(live[0], live[1]), min(live[2], live[3])),
        min(min(live[4], live[5]), min(live[6], live[7])),
    );
    let low = min(low, _mm256_permute2x128_si256::<0x01>(low, low));
    let low = min(low, _mm256_shuffle_epi32::<0x4E>(low));
    let best = _mm_cvtsi128_si64(_mm256_castsi256_si128(low)) as u64;
    if best <= 64 {
        let b = _mm256_set1_epi64x(best as i64);
        let at = lanes(&counts, |c| _mm256_cmpeq_epi64(c, b)) & open;
        scan.best = best as u32;
        scan.best_row = at.trailing_zeros() as usize;
    }
    // Column counters: rows in pairs, then pairs of pairs, then within the register.
    let (and, or) = (_mm256_and_si256, _mm256_or_si256);
    let pair = |a: __m256i, b: __m256i| [or(a, b), and(a, b), zero, zero];
    let mut c = add(
        add(pair(z[0], z[1]), pair(z[2], z[3])),
        add(pair(z[4], z[5]), pair(z[6], z[7])),
    );
    // Swap 128-bit halves, then neighbouring rows.
    c = add(c, c.map(|x| _mm256_permute2x128_si256::<0x01>(x, x)));
    c = add(c, c.map(|x| _mm256_shuffle_epi32::<0x4E>(x)));
    scan.at_least = c.map(|x| _mm_cvtsi128_si64(_mm256_castsi256_si128(x)) as u64);
    scan
}

/// The free cells of `level` in `masks` (a queen's attacks, from the attack table), both
/// padded as in [`scan`]: how many cells the queen would close.
///
/// # Safety
/// As for [`scan`].
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn closed(level: &[u64], masks: &[u64]) -> u32 {
    // Byte counts summed over at most eight registers stay within a byte (8 x 8).
    let mut bytes = _mm256_setzero_si256();
    for (l, k) in level.chunks_exact(4).zip(masks.chunks_exact(4)) {
        // SAFETY: four words of each slice.
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
pub(super) unsafe fn rows_with(level: &[u64], c: usize) -> u64 {
    let bit = _mm256_set1_epi64x(1 << c);
    level
        .chunks_exact(4)
        .enumerate()
        .fold(0, |rows, (k, four)| {
            // SAFETY: four words of `level`.
            let z = unsafe { _mm256_loadu_si256(four.as_ptr().cast()) };
            let has = _mm256_cmpeq_epi64(_mm256_and_si256(z, bit), bit);
            rows | (_mm256_movemask_pd(_mm256_castsi256_pd(has)) as u64) << (4 * k)
        })
}
