//! Splitting a set of masks three ways by how many of two bits each has, for each kernel:
//! the step that sorts bottom halves by their queens on the main diagonals at even n
//! ([`super::halves`]). Which way a mask goes is unpredictable, so no kernel branches on
//! it: the portable one writes each mask to all three and moves on only where it belongs;
//! the AVX2 and AVX-512 ones place four or eight masks at once. At n = 18 the split was
//! 16 % of a count on an Intel Xeon with the AVX-512 kernel (BENCHMARKS.md, "count").

use super::join::Turn;
#[cfg(target_arch = "x86_64")]
use super::join::{PACK, Turn4, Turn8};
use super::kernel::Kernel;

/// Values a vector kernel may write past the last mask it places in each part.
const SLACK: usize = 8;

impl Kernel {
    /// Replaces `parts` with the masks of `masks`, each turned by `turn`, by how many of
    /// the bits `one` and `other` the turned mask has: none in `parts[0]` (left empty
    /// unless `keep_none`), one in `parts[1]`, both in `parts[2]`; in an order that
    /// depends on the kernel.
    pub(crate) fn split(
        self,
        masks: &[u64],
        turn: Turn,
        (one, other): (u64, u64),
        keep_none: bool,
        parts: &mut [Vec<u64>; 3],
    ) {
        let len = masks.len();
        for part in parts.iter_mut() {
            part.clear();
            part.reserve(len + SLACK);
        }
        let [none, single, both] = parts;
        let to = [none.as_mut_ptr(), single.as_mut_ptr(), both.as_mut_ptr()];
        let bits = (one, other);
        let lens = match self {
            // SAFETY: each part has room for `len + SLACK` masks.
            Kernel::Portable => unsafe { split_portable(masks, turn, bits, keep_none, to) },
            // SAFETY: as above, and this arm runs only where `supported` found AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { split_avx2(masks, turn, bits, keep_none, to) },
            // SAFETY: as above, and this arm runs only where `supported` found AVX-512.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { split_avx512(masks, turn, bits, keep_none, to) },
            // SAFETY: each part has room for `len + SLACK` masks.
            #[cfg(not(target_arch = "x86_64"))]
            _ => unsafe { split_portable(masks, turn, bits, keep_none, to) },
        };
        for (part, len) in [none, single, both].into_iter().zip(lens) {
            debug_assert!(len <= masks.len());
            // SAFETY: the split wrote the first `len` masks of the part.
            unsafe { part.set_len(len) };
        }
    }
}

/// Writes each mask to all three parts and moves on only in its own.
///
/// # Safety
/// Each of `to` has room for `masks.len()` values.
unsafe fn split_portable(
    masks: &[u64],
    turn: Turn,
    (one, other): (u64, u64),
    keep_none: bool,
    to: [*mut u64; 3],
) -> [usize; 3] {
    let [z, o, t] = to;
    let (mut zs, mut os, mut ts) = (0usize, 0usize, 0usize);
    let keep_none = keep_none as usize;
    for &m in masks {
        let m = turn.apply(m);
        let (q1, q2) = ((m & one != 0) as usize, (m & other != 0) as usize);
        // SAFETY: each length grows by at most one per mask, so each is below
        // `masks.len()` when written at.
        unsafe {
            z.add(zs).write(m);
            o.add(os).write(m);
            t.add(ts).write(m);
        }
        zs += keep_none & !(q1 | q2) & 1;
        os += q1 ^ q2;
        ts += q1 & q2;
    }
    [zs, os, ts]
}

/// Four masks at a time, packed into each part by a permutation from a table of sixteen.
///
/// # Safety
/// The CPU has AVX2 and POPCNT; each of `to` has room for `masks.len() + SLACK` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn split_avx2(
    masks: &[u64],
    turn: Turn,
    (one, other): (u64, u64),
    keep_none: bool,
    to: [*mut u64; 3],
) -> [usize; 3] {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let turn4 = Turn4::new(turn);
    let (one_v, other_v) = (
        _mm256_set1_epi64x(one as i64),
        _mm256_set1_epi64x(other as i64),
    );
    let none_kept = if keep_none { 15 } else { 0 };
    let mut lens = [0usize; 3];
    let whole = masks.len() / 4 * 4;
    for j in (0..whole).step_by(4) {
        // SAFETY: masks j..j + 4 lie in `masks`.
        let m = unsafe { _mm256_loadu_si256(masks.as_ptr().add(j).cast()) };
        let m = turn4.apply(m);
        let clear_one = _mm256_cmpeq_epi64(_mm256_and_si256(m, one_v), zero);
        let clear_other = _mm256_cmpeq_epi64(_mm256_and_si256(m, other_v), zero);
        let q1 = 15 & !_mm256_movemask_pd(_mm256_castsi256_pd(clear_one)) as usize;
        let q2 = 15 & !_mm256_movemask_pd(_mm256_castsi256_pd(clear_other)) as usize;
        for (part, keep) in [!(q1 | q2) & none_kept, q1 ^ q2, q1 & q2]
            .into_iter()
            .enumerate()
        {
            // SAFETY: `keep < 16`; each part's length is at most `j`, so four values at
            // it lie within its room.
            unsafe {
                let order = _mm256_loadu_si256(PACK.get_unchecked(keep).as_ptr().cast());
                let packed = _mm256_permutevar8x32_epi32(m, order);
                _mm256_storeu_si256(to[part].add(lens[part]).cast(), packed);
            }
            lens[part] += keep.count_ones() as usize;
        }
    }
    let rest = &masks[whole..];
    // SAFETY: the parts' lengths are at most `whole`, and the rest adds at most
    // `rest.len()`.
    let tail = unsafe {
        let at = [to[0].add(lens[0]), to[1].add(lens[1]), to[2].add(lens[2])];
        split_portable(rest, turn, (one, other), keep_none, at)
    };
    [0, 1, 2].map(|p| lens[p] + tail[p])
}

/// Eight masks at a time, packed into each part by a compress; the last ones loaded under
/// a mask.
///
/// # Safety
/// The CPU has AVX-512F and POPCNT; each of `to` has room for `masks.len() + SLACK`
/// values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn split_avx512(
    masks: &[u64],
    turn: Turn,
    (one, other): (u64, u64),
    keep_none: bool,
    to: [*mut u64; 3],
) -> [usize; 3] {
    use std::arch::x86_64::*;
    let turn = Turn8::new(turn);
    let (one_v, other_v) = (
        _mm512_set1_epi64(one as i64),
        _mm512_set1_epi64(other as i64),
    );
    let none_kept: u8 = if keep_none { !0 } else { 0 };
    let mut lens = [0usize; 3];
    for j in (0..masks.len()).step_by(8) {
        let left = masks.len() - j;
        let valid: u8 = if left >= 8 { !0 } else { (1u8 << left) - 1 };
        // SAFETY: the masked load reads only masks j..j + min(8, left).
        let m = unsafe { _mm512_maskz_loadu_epi64(valid, masks.as_ptr().add(j).cast()) };
        let m = turn.apply(m);
        let q1 = _mm512_mask_test_epi64_mask(valid, m, one_v);
        let q2 = _mm512_mask_test_epi64_mask(valid, m, other_v);
        let keeps = [valid & !(q1 | q2) & none_kept, q1 ^ q2, q1 & q2];
        for (part, keep) in keeps.into_iter().enumerate() {
            // SAFETY: each part's length is at most `j`, so eight values at it lie within
            // its room of `masks.len() + SLACK`.
            unsafe {
                let packed = _mm512_maskz_compress_epi64(keep, m);
                _mm512_storeu_si512(to[part].add(lens[part]).cast(), packed);
            }
            lens[part] += keep.count_ones() as usize;
        }
    }
    lens
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_kernel_splits_like_counting_bits(
            masks in prop::collection::vec(any::<u64>(), 0..40),
            (one, other) in (0u32..64, 0u32..64).prop_filter("two bits", |(a, b)| a != b),
            (shift, up, down) in (1u32..40, any::<u64>(), any::<u64>()),
            keep_none in any::<bool>(),
        ) {
            let turn = Turn { shift, up, down };
            let (one, other) = (1u64 << one, 1u64 << other);
            let mut want: [Vec<u64>; 3] = Default::default();
            for &m in &masks {
                let m = (m >> shift) & down | (m & up) << shift;
                let q = (m & one != 0) as usize + (m & other != 0) as usize;
                if q > 0 || keep_none {
                    want[q].push(m);
                }
            }
            for part in &mut want {
                part.sort_unstable();
            }
            for kernel in Kernel::available() {
                let mut parts: [Vec<u64>; 3] = [vec![7], vec![], vec![8, 9]];
                kernel.split(&masks, turn, (one, other), keep_none, &mut parts);
                for part in &mut parts {
                    part.sort_unstable();
                }
                prop_assert_eq!(&parts, &want, "{:?}", kernel);
            }
        }
    }
}
