//! The vector scans against the row-by-row scan.

use super::super::bits::Words;
use super::*;
use crate::rng::Rng;
use crate::simd::Kernel;

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

/// Both vector kernels against the row-by-row scan, on random levels.
#[test]
fn the_vector_scans_give_the_row_by_row_answers() {
    let kernels = [Kernel::Avx512, Kernel::Avx2].map(|k| k.supported());
    if kernels == [false, false] {
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
        let masks: Vec<u64> = level.iter().map(|_| rng.next_u64()).collect();
        let c = rng.index(m);
        let want = slow(&level, open);
        let closed_slow: u32 = level
            .iter()
            .zip(&masks)
            .map(|(l, k)| (l & k).count_ones())
            .sum();
        let rows_slow = (0..level.len())
            .filter(|&r| level[r] >> c & 1 == 1)
            .fold(0, |a, r| a | 1 << r);
        // The AVX2 kernel takes `u32` words (every row and mask here is below bit 32, as
        // in a residual of at most 32 columns).
        let narrow = |w: &[u64]| w.iter().map(|&x| x as u32).collect::<Vec<u32>>();
        let (level32, masks32) = (narrow(&level), narrow(&masks));
        let got = [
            // SAFETY: the CPU has the kernel's features (`kernels`), and the words are of
            // the width it takes.
            kernels[0].then(|| unsafe {
                (
                    scan::<AVX512>(Words::U64(&level), open),
                    closed::<AVX512>(Words::U64(&level), Words::U64(&masks)),
                    rows_with::<AVX512>(Words::U64(&level), c),
                )
            }),
            // SAFETY: as above.
            kernels[1].then(|| unsafe {
                (
                    scan::<AVX2>(Words::U32(&level32), open),
                    closed::<AVX2>(Words::U32(&level32), Words::U32(&masks32)),
                    rows_with::<AVX2>(Words::U32(&level32), c),
                )
            }),
        ];
        for (kernel, got) in ["avx512", "avx2"].iter().zip(got) {
            let Some((fast, closed_fast, rows_fast)) = got else {
                continue;
            };
            assert_eq!(fast, want, "{kernel}: level {level:x?}, open {open:x}");
            assert_eq!(
                closed_fast, closed_slow,
                "{kernel}: level {level:x?}, masks {masks:x?}"
            );
            assert_eq!(
                rows_fast, rows_slow,
                "{kernel}: level {level:x?}, column {c}"
            );
        }
    }
}
