//! The level scan in AVX-512: four 512-bit registers of eight rows each.
//!
//! The counts are one `VPOPCNTQ` per register, rows with no cell or one are two compares
//! into mask registers, the fewest row a minimum and a compare, and the column counters a
//! tree of ORs and ANDs that halves the rows at each step.

use super::{Counters, Scan};
use std::arch::x86_64::*;

/// The counters of two disjoint groups of rows added ([`super::add`]).
#[target_feature(enable = "avx512f")]
#[inline]
fn add(x: Counters<__m512i>, y: Counters<__m512i>) -> Counters<__m512i> {
    super::add(
        x,
        y,
        |a, b| _mm512_and_si512(a, b),
        |a, b| _mm512_or_si512(a, b),
    )
}

/// Scans `level` (the free cells of each row, padded with empty rows to whole registers;
/// closed rows hold none) for the rows in `open`.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ (as [`crate::simd::Kernel::Avx512`]
/// requires).
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
pub(super) unsafe fn scan(level: &[u64], open: u64) -> Scan {
    // Whole registers, as `place` wrote them: a load the size of the store before it is
    // forwarded from it (a masked load waited for the store to reach the cache).
    let z: [__m512i; 4] = std::array::from_fn(|k| match level.get(8 * k..8 * k + 8) {
        // SAFETY: the eight words loaded are `level`'s.
        Some(eight) => unsafe { _mm512_loadu_si512(eight.as_ptr().cast()) },
        None => _mm512_setzero_si512(),
    });
    let counts = z.map(|r| _mm512_popcnt_epi64(r));
    let lanes = |f: &dyn Fn(__m512i) -> u8| -> u64 {
        counts
            .iter()
            .enumerate()
            .fold(0, |acc, (k, &c)| acc | (f(c) as u64) << (8 * k))
    };
    let zero = _mm512_setzero_si512();
    let one = _mm512_set1_epi64(1);
    let mut scan = Scan {
        dead: lanes(&|c| _mm512_cmpeq_epi64_mask(c, zero)) & open != 0,
        forced: lanes(&|c| _mm512_cmpeq_epi64_mask(c, one)) & open,
        best: u32::MAX,
        best_row: 0,
        at_least: [0; 4],
    };
    if scan.dead || scan.forced != 0 {
        return scan;
    }
    // The fewest cells of an open row (closed lanes count as 64 + 1).
    let over = _mm512_set1_epi64(65);
    let live: [__m512i; 4] =
        std::array::from_fn(|k| _mm512_mask_blend_epi64((open >> (8 * k)) as u8, over, counts[k]));
    let low = _mm512_min_epu64(
        _mm512_min_epu64(live[0], live[1]),
        _mm512_min_epu64(live[2], live[3]),
    );
    let best = _mm512_reduce_min_epu64(low);
    if best <= 64 {
        let b = _mm512_set1_epi64(best as i64);
        let at = lanes(&|c| _mm512_cmpeq_epi64_mask(c, b)) & open;
        scan.best = best as u32;
        scan.best_row = at.trailing_zeros() as usize;
    }
    // Column counters: rows in pairs, then pairs of pairs, then within the register.
    let (and, or) = (_mm512_and_si512, _mm512_or_si512);
    let pair = |a: __m512i, b: __m512i| [or(a, b), and(a, b), zero, zero];
    let mut c = add(pair(z[0], z[1]), pair(z[2], z[3]));
    // Swap 256-bit halves, then 128-bit quarters within them, then neighbouring rows.
    c = add(c, c.map(|x| _mm512_shuffle_i64x2::<0x4E>(x, x)));
    c = add(c, c.map(|x| _mm512_shuffle_i64x2::<0xB1>(x, x)));
    c = add(c, c.map(|x| _mm512_permutex_epi64::<0xB1>(x)));
    scan.at_least = c.map(|x| _mm_cvtsi128_si64(_mm512_castsi512_si128(x)) as u64);
    scan
}

/// The free cells of `level` in `masks` (a queen's attacks, from the attack table), both
/// padded as in [`scan`]: how many cells the queen would close (the value order's
/// measure of damage).
///
/// # Safety
/// As for [`scan`].
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
pub(super) unsafe fn closed(level: &[u64], masks: &[u64]) -> u32 {
    let mut sum = _mm512_setzero_si512();
    for (l, k) in level.chunks_exact(8).zip(masks.chunks_exact(8)) {
        // SAFETY: eight words of each slice.
        let (l, k) = unsafe {
            (
                _mm512_loadu_si512(l.as_ptr().cast()),
                _mm512_loadu_si512(k.as_ptr().cast()),
            )
        };
        sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(_mm512_and_si512(l, k)));
    }
    _mm512_reduce_add_epi64(sum) as u32
}

/// The rows of `level` (padded as in [`scan`]) with column `c` free, as a word.
///
/// # Safety
/// As for [`scan`].
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn rows_with(level: &[u64], c: usize) -> u64 {
    let bit = _mm512_set1_epi64(1 << c);
    level
        .chunks_exact(8)
        .enumerate()
        .fold(0, |rows, (k, eight)| {
            // SAFETY: eight words of `level`.
            let z = unsafe { _mm512_loadu_si512(eight.as_ptr().cast()) };
            rows | (_mm512_test_epi64_mask(z, bit) as u64) << (8 * k)
        })
}
