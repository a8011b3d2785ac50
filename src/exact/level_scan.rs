//! The scan of a search node's level in a few AVX-512 instructions, for residuals of at
//! most 32 rows (the Excluded Diagonals frontier: n = 29 and 31).
//!
//! The scalar scan in [`search`](super::search) walks the open rows one at a time: a count,
//! two compares that branch, and the column counters updated row after row. With the
//! level in four 512-bit registers (eight rows each), the counts are one `VPOPCNTQ` per
//! register, rows with no cell or one are two compares into mask registers, the fewest
//! row a minimum and a compare, and the column counters a tree of ORs and ANDs that
//! halves the rows at each step. It gives the scalar scan's answer exactly (the same
//! rows forced, the same row or column branched on), so the tree searched, the solution
//! found and the certificate written are the same; only the time per node changes
//! (BENCHMARKS.md, "Excluded Diagonals at n = 29").

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Largest residual the scan takes: four registers of eight rows.
pub(super) const MAX_ROWS: usize = 32;

/// What a node needs from its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scan {
    /// An open row has no free cell: a dead end.
    pub dead: bool,
    /// Open rows with exactly one free cell.
    pub forced: u64,
    /// The fewest free cells of an open row, and the lowest row with that many (only
    /// where no row is dead or forced).
    pub best: u32,
    pub best_row: usize,
    /// Columns with at least 1, 2, 3, 4 free cells among the open rows (only where no row
    /// is dead or forced).
    pub at_least: [u64; 4],
}

/// Saturating counters of a column's cells over a group of rows: `c[k]` holds the columns
/// with at least `k + 1` cells.
#[cfg(target_arch = "x86_64")]
type Counters = [__m512i; 4];

/// The counters of two disjoint groups of rows added.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn add(x: Counters, y: Counters) -> Counters {
    let (and, or) = (_mm512_and_si512, _mm512_or_si512);
    [
        or(x[0], y[0]),
        or(or(x[1], y[1]), and(x[0], y[0])),
        or(or(x[2], y[2]), or(and(x[1], y[0]), and(x[0], y[1]))),
        or(
            or(or(x[3], y[3]), and(x[2], y[0])),
            or(and(x[1], y[1]), and(x[0], y[2])),
        ),
    ]
}

/// Scans `level` (the free cells of each row, padded with empty rows to whole registers;
/// closed rows hold none) for the rows in `open`.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ (as [`crate::simd::Kernel::Avx512`]
/// requires).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
pub(super) unsafe fn scan(level: &[u64], open: u64) -> Scan {
    debug_assert!(level.len() <= MAX_ROWS && level.len().is_multiple_of(8));
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
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
pub(super) unsafe fn closed(level: &[u64], masks: &[u64]) -> u32 {
    debug_assert!(level.len() <= MAX_ROWS && level.len().is_multiple_of(8));
    debug_assert_eq!(masks.len(), level.len());
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
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn rows_with(level: &[u64], c: usize) -> u64 {
    debug_assert!(level.len() <= MAX_ROWS && level.len().is_multiple_of(8) && c < 64);
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The scalar scan's answer, row by row.
    fn slow(level: &[u64], open: u64) -> Scan {
        let mut s = Scan {
            dead: false,
            forced: 0,
            best: u32::MAX,
            best_row: 0,
            at_least: [0; 4],
        };
        for (r, &a) in level.iter().enumerate() {
            if open >> r & 1 == 0 {
                continue;
            }
            match a.count_ones() {
                0 => s.dead = true,
                1 => s.forced |= 1 << r,
                _ => {}
            }
        }
        if s.dead || s.forced != 0 {
            return s;
        }
        for (r, &a) in level.iter().enumerate() {
            if open >> r & 1 == 0 {
                continue;
            }
            let t = &mut s.at_least;
            t[3] |= t[2] & a;
            t[2] |= t[1] & a;
            t[1] |= t[0] & a;
            t[0] |= a;
            if a.count_ones() < s.best {
                s.best = a.count_ones();
                s.best_row = r;
            }
        }
        s
    }

    #[test]
    fn the_vector_scan_gives_the_row_by_row_answers() {
        if !crate::simd::Kernel::Avx512.supported() {
            // Nothing to compare on this CPU; the scalar scan is what runs here.
            return;
        }
        let mut rng = Rng::seeded(7, &[]);
        for case in 0..20_000u64 {
            let m = 1 + (case % MAX_ROWS as u64) as usize;
            let density = 1 + rng.below(8);
            let level: Vec<u64> = (0..m)
                .map(|_| {
                    let mut w = u64::MAX;
                    for _ in 0..density {
                        w &= rng.next_u64();
                    }
                    w & ((1u64 << m) - 1)
                })
                .collect();
            let all = (1u64 << m) - 1;
            // Every other case with every row open, as at the root.
            let open = if case % 2 == 1 {
                all
            } else {
                rng.next_u64() & all
            };
            // Closed rows hold no cells in the search's levels.
            let mut level: Vec<u64> = level
                .iter()
                .enumerate()
                .map(|(r, &w)| if open >> r & 1 == 1 { w } else { 0 })
                .collect();
            level.resize(m.next_multiple_of(8), 0);
            // SAFETY: the CPU has the features (checked above).
            let fast = unsafe { scan(&level, open) };
            assert_eq!(fast, slow(&level, open), "level {level:x?}, open {open:x}");
            let masks: Vec<u64> = level.iter().map(|_| rng.next_u64()).collect();
            let c = rng.index(m);
            // SAFETY: as above.
            let (closed_fast, rows_fast) =
                unsafe { (closed(&level, &masks), rows_with(&level, c)) };
            let closed_slow: u32 = level
                .iter()
                .zip(&masks)
                .map(|(l, k)| (l & k).count_ones())
                .sum();
            assert_eq!(
                closed_fast, closed_slow,
                "level {level:x?}, masks {masks:x?}"
            );
            let rows_slow = (0..level.len())
                .filter(|&r| level[r] >> c & 1 == 1)
                .fold(0, |a, r| a | 1 << r);
            assert_eq!(rows_fast, rows_slow, "level {level:x?}, column {c}");
        }
    }
}
