//! Joining two lists of pieces into every compatible pair, for each kernel: the step that
//! builds half boards from quarter boards ([`super::halves`]). About half of the pairs are
//! compatible, unpredictably, so no kernel branches on it: the portable one writes every
//! pair and moves on only past those it keeps; the AVX2 and AVX-512 ones test four or eight
//! pairs at once and pack the kept ones together (a permutation from a table, or a
//! compress). A join may also drop the pairs that touch given bits and turn the rest: the
//! portable kernel filters and turns each piece first, the vector ones test and turn eight
//! or four joined pairs at once, which left the list of right pieces unfiltered and saved
//! its copy. At odd n the join and its filters were 46 % of a count at n = 17 on an Intel
//! Xeon with the AVX-512 kernel (BENCHMARKS.md, "count").

use super::kernel::Kernel;
use std::mem::MaybeUninit;

/// A partial placement to be joined with another: two pieces are compatible when their
/// `cut`s are disjoint, and their join is the OR of their `top`s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Piece {
    /// What the piece occupies along the seam between the two lists.
    pub cut: u64,
    /// The piece's part of the joined mask.
    pub top: u64,
}

/// A move of a mask's bits: those of `up` up by `shift`, those of `down` down by `shift`,
/// the rest dropped. It distributes over OR, so a join may turn its pieces or its pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Turn {
    /// How far bits move.
    pub shift: u32,
    /// The bits that move up.
    pub up: u64,
    /// The bits that move down, as they lie after the move.
    pub down: u64,
}

impl Turn {
    /// `m` turned.
    #[inline(always)]
    pub(crate) fn apply(self, m: u64) -> u64 {
        (m >> self.shift) & self.down | (m & self.up) << self.shift
    }
}

/// Values a vector kernel may write past the last pair it keeps.
const SLACK: usize = 8;

impl Kernel {
    /// Appends `turn(l.top | r.top)` to `out` for every `l` of `lefts` and `r` of `rights`
    /// with `l.cut & r.cut == 0` and `(l.top | r.top) & avoid == 0` (no turn when `turn`
    /// is `None`), in an order that depends on the kernel. `buffers` is scratch space.
    pub(crate) fn join(
        self,
        lefts: &[Piece],
        rights: &[Piece],
        avoid: u64,
        turn: Option<Turn>,
        out: &mut Vec<u64>,
        (left_buffer, right_buffer): &mut (Vec<Piece>, Vec<Piece>),
    ) {
        // Every kernel drops the left pieces that touch `avoid` first: none of their pairs
        // is kept.
        let per_piece = self == Kernel::Portable || cfg!(not(target_arch = "x86_64"));
        let lefts = usable(lefts, avoid, turn.filter(|_| per_piece), left_buffer);
        if lefts.is_empty() {
            return;
        }
        let rights = if per_piece {
            usable(rights, avoid, turn, right_buffer)
        } else {
            rights
        };
        let most = lefts.len() * rights.len();
        out.reserve(most + SLACK);
        let spare = &mut out.spare_capacity_mut()[..most + SLACK];
        let kept = match self {
            Kernel::Portable => join_portable(lefts, rights, spare),
            // SAFETY: this arm runs only where `supported` found AVX2 and POPCNT; `spare`
            // holds `most + SLACK` values.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe {
                match turn {
                    None => join_avx2::<false>(lefts, rights, avoid, NO_TURN, spare),
                    Some(t) => join_avx2::<true>(lefts, rights, avoid, t, spare),
                }
            },
            // SAFETY: as above, AVX-512 was detected.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe {
                match turn {
                    None => join_avx512::<false>(lefts, rights, avoid, NO_TURN, spare),
                    Some(t) => join_avx512::<true>(lefts, rights, avoid, t, spare),
                }
            },
            #[cfg(not(target_arch = "x86_64"))]
            _ => join_portable(lefts, rights, spare),
        };
        debug_assert!(kept <= most);
        // SAFETY: the join wrote the first `kept` values of the spare capacity.
        unsafe { out.set_len(out.len() + kept) };
    }
}

/// The turn the vector joins are given when there is none (never applied).
#[cfg(target_arch = "x86_64")]
const NO_TURN: Turn = Turn {
    shift: 0,
    up: 0,
    down: 0,
};

/// A [`Turn`] in AVX2 registers, applied to four masks at once.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Turn4 {
    shift: std::arch::x86_64::__m128i,
    up: std::arch::x86_64::__m256i,
    down: std::arch::x86_64::__m256i,
}

#[cfg(target_arch = "x86_64")]
impl Turn4 {
    #[target_feature(enable = "avx2")]
    pub(super) fn new(turn: Turn) -> Turn4 {
        use std::arch::x86_64::*;
        Turn4 {
            shift: _mm_cvtsi64_si128(turn.shift as i64),
            up: _mm256_set1_epi64x(turn.up as i64),
            down: _mm256_set1_epi64x(turn.down as i64),
        }
    }

    /// Each of the four masks of `m` turned.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn apply(self, m: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
        use std::arch::x86_64::*;
        let moved = _mm256_sll_epi64(_mm256_and_si256(m, self.up), self.shift);
        let fallen = _mm256_and_si256(_mm256_srl_epi64(m, self.shift), self.down);
        _mm256_or_si256(fallen, moved)
    }
}

/// A [`Turn`] in AVX-512 registers, applied to eight masks at once.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Turn8 {
    shift: std::arch::x86_64::__m128i,
    up: std::arch::x86_64::__m512i,
    down: std::arch::x86_64::__m512i,
}

#[cfg(target_arch = "x86_64")]
impl Turn8 {
    #[target_feature(enable = "avx512f")]
    pub(super) fn new(turn: Turn) -> Turn8 {
        use std::arch::x86_64::*;
        Turn8 {
            shift: _mm_cvtsi64_si128(turn.shift as i64),
            up: _mm512_set1_epi64(turn.up as i64),
            down: _mm512_set1_epi64(turn.down as i64),
        }
    }

    /// Each of the eight masks of `m` turned.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) fn apply(self, m: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        let moved = _mm512_sll_epi64(_mm512_and_si512(m, self.up), self.shift);
        let fallen = _mm512_and_si512(_mm512_srl_epi64(m, self.shift), self.down);
        _mm512_or_si512(fallen, moved)
    }
}

/// The pieces of `group` whose top has none of the bits of `avoid`, turned by `turn` when
/// given: the whole group as it is when there is nothing to avoid or turn, without a copy;
/// else copied into `buffer`.
#[inline(always)]
fn usable<'a>(
    group: &'a [Piece],
    avoid: u64,
    turn: Option<Turn>,
    buffer: &'a mut Vec<Piece>,
) -> &'a [Piece] {
    if avoid == 0 && turn.is_none() {
        return group;
    }
    buffer.clear();
    keep_where(
        buffer,
        group,
        |p| p.top & avoid == 0,
        |p| Piece {
            cut: p.cut,
            top: turn.map_or(p.top, |t| t.apply(p.top)),
        },
    );
    buffer
}

/// Appends `map(v)` of the values `v` of `from` that `keep` accepts to `out`, without a
/// branch per value: each is written past the end, which moves on only when it is kept
/// (which are kept is unpredictable, so a branch would mispredict often).
#[inline(always)]
pub(super) fn keep_where<T: Copy, U>(
    out: &mut Vec<U>,
    from: &[T],
    keep: impl Fn(T) -> bool,
    map: impl Fn(T) -> U,
) {
    out.reserve(from.len());
    let spare = &mut out.spare_capacity_mut()[..from.len()];
    let mut kept = 0;
    for &v in from {
        // SAFETY: `kept` is at most the number of values seen before this one, so it is
        // below `from.len()`, the length of `spare`.
        unsafe { spare.get_unchecked_mut(kept).write(map(v)) };
        kept += keep(v) as usize;
    }
    // SAFETY: the first `kept` values of the spare capacity were written above.
    unsafe { out.set_len(out.len() + kept) };
}

/// Writes every pair and moves on only past the compatible ones; returns how many it kept.
fn join_portable(lefts: &[Piece], rights: &[Piece], out: &mut [MaybeUninit<u64>]) -> usize {
    let mut k = 0;
    // The left piece is copied out first: read through its reference, it was loaded again
    // after every store (up to 14 % of a count, BENCHMARKS.md, "count").
    for &Piece { cut, top } in lefts {
        for r in rights {
            // SAFETY: `k` counts the pairs kept, at most the pairs seen before this one,
            // so it is below `lefts.len() * rights.len()`, at most `out.len()`.
            unsafe { out.get_unchecked_mut(k).write(top | r.top) };
            k += (cut & r.cut == 0) as usize;
        }
    }
    k
}

/// Four pairs at a time: the kept ones are packed to the front of a register by a
/// permutation from a table of sixteen, and the whole register is stored. The right pieces
/// are tested against `avoid` here, and the pairs turned when `TURN`.
///
/// # Safety
/// The CPU has AVX2 and POPCNT; `out` holds `lefts.len() * rights.len() + SLACK` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn join_avx2<const TURN: bool>(
    lefts: &[Piece],
    rights: &[Piece],
    avoid: u64,
    turn: Turn,
    out: &mut [MaybeUninit<u64>],
) -> usize {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let avoid_v = _mm256_set1_epi64x(avoid as i64);
    let turn4 = Turn4::new(turn);
    let base = rights.as_ptr().cast::<u64>();
    let whole = rights.len() / 4 * 4;
    let to = out.as_mut_ptr().cast::<u64>();
    let mut k = 0;
    for &Piece { cut, top } in lefts {
        let (lc, lt) = (
            _mm256_set1_epi64x(cut as i64),
            _mm256_set1_epi64x(top as i64),
        );
        for j in (0..whole).step_by(4) {
            // SAFETY: pieces j..j + 4 lie in `rights` (j + 4 <= whole), two words each.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(base.add(2 * j).cast()),
                    _mm256_loadu_si256(base.add(2 * j + 4).cast()),
                )
            };
            // Pieces j, j + 2, j + 1, j + 3: the order within a join does not matter.
            let cuts = _mm256_unpacklo_epi64(a, b);
            let tops = _mm256_unpackhi_epi64(a, b);
            let clash =
                _mm256_or_si256(_mm256_and_si256(cuts, lc), _mm256_and_si256(tops, avoid_v));
            let free = _mm256_cmpeq_epi64(clash, zero);
            let keep = _mm256_movemask_pd(_mm256_castsi256_pd(free)) as usize;
            let mut joined = _mm256_or_si256(tops, lt);
            if TURN {
                joined = turn4.apply(joined);
            }
            // SAFETY: `keep < 16`.
            let order = unsafe { _mm256_loadu_si256(PACK.get_unchecked(keep).as_ptr().cast()) };
            // SAFETY: `k` counts the pairs kept so far, at most the pairs seen before these
            // four, so `k + 4 <= lefts.len() * rights.len()`, within `out`.
            unsafe {
                _mm256_storeu_si256(to.add(k).cast(), _mm256_permutevar8x32_epi32(joined, order))
            };
            k += keep.count_ones() as usize;
        }
        for r in &rights[whole..] {
            let joined = top | r.top;
            let joined = if TURN { turn.apply(joined) } else { joined };
            // SAFETY: as in `join_portable`.
            unsafe { to.add(k).write(joined) };
            k += (cut & r.cut == 0 && r.top & avoid == 0) as usize;
        }
    }
    k
}

/// For each set of kept 64-bit lanes of four, their 32-bit halves in order: the
/// permutation that packs them to the front of an AVX2 register.
#[cfg(target_arch = "x86_64")]
pub(super) const PACK: [[i32; 8]; 16] = {
    let mut table = [[0; 8]; 16];
    let mut mask = 0;
    while mask < 16 {
        let (mut lane, mut at) = (0, 0);
        while lane < 4 {
            if mask >> lane & 1 == 1 {
                table[mask][at] = 2 * lane;
                table[mask][at + 1] = 2 * lane + 1;
                at += 2;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// Eight pairs at a time: the kept ones are packed together by a compress, the whole
/// register stored; the last pieces of a list are loaded under a mask. The right pieces
/// are tested against `avoid` here, and the pairs turned when `TURN`.
///
/// # Safety
/// The CPU has AVX-512F and POPCNT; `out` holds `lefts.len() * rights.len() + SLACK`
/// values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
fn join_avx512<const TURN: bool>(
    lefts: &[Piece],
    rights: &[Piece],
    avoid: u64,
    turn: Turn,
    out: &mut [MaybeUninit<u64>],
) -> usize {
    use std::arch::x86_64::*;
    let (cuts_at, tops_at) = (
        _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14),
        _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15),
    );
    let avoid_v = _mm512_set1_epi64(avoid as i64);
    let turn = Turn8::new(turn);
    let base = rights.as_ptr().cast::<u64>();
    let to = out.as_mut_ptr().cast::<u64>();
    let mut k = 0;
    for &Piece { cut, top } in lefts {
        let (lc, lt) = (_mm512_set1_epi64(cut as i64), _mm512_set1_epi64(top as i64));
        for j in (0..rights.len()).step_by(8) {
            let left = rights.len() - j;
            // The words of the pieces still in the list, of the 16 that eight pieces take.
            let words: u16 = if left >= 8 {
                !0
            } else {
                (1u16 << (2 * left)) - 1
            };
            // SAFETY: the masked loads read only the words of pieces j..j + min(8, left),
            // which lie in `rights`.
            let (a, b) = unsafe {
                (
                    _mm512_maskz_loadu_epi64(words as u8, base.add(2 * j).cast()),
                    _mm512_maskz_loadu_epi64((words >> 8) as u8, base.add(2 * j + 8).cast()),
                )
            };
            let pieces: u8 = if left >= 8 { !0 } else { (1u8 << left) - 1 };
            let cuts = _mm512_permutex2var_epi64(a, cuts_at, b);
            let tops = _mm512_permutex2var_epi64(a, tops_at, b);
            let keep = _mm512_mask_testn_epi64_mask(pieces, cuts, lc);
            let keep = _mm512_mask_testn_epi64_mask(keep, tops, avoid_v);
            let mut joined = _mm512_or_si512(tops, lt);
            if TURN {
                joined = turn.apply(joined);
            }
            // SAFETY: `k` counts the pairs kept so far, at most the pairs seen before these,
            // so `k + 8 <= lefts.len() * rights.len() + SLACK`, within `out`.
            unsafe {
                _mm512_storeu_si512(to.add(k).cast(), _mm512_maskz_compress_epi64(keep, joined))
            };
            k += keep.count_ones() as usize;
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn slow(lefts: &[Piece], rights: &[Piece], avoid: u64, turn: Option<Turn>) -> Vec<u64> {
        let mut v = Vec::new();
        for l in lefts {
            for r in rights {
                let joined = l.top | r.top;
                if l.cut & r.cut == 0 && joined & avoid == 0 {
                    v.push(turn.map_or(joined, |t| {
                        (joined >> t.shift) & t.down | (joined & t.up) << t.shift
                    }));
                }
            }
        }
        v.sort_unstable();
        v
    }

    fn pieces(raw: &[(u64, u64)]) -> Vec<Piece> {
        raw.iter().map(|&(cut, top)| Piece { cut, top }).collect()
    }

    proptest! {
        #[test]
        fn every_kernel_joins_the_compatible_pairs(
            lefts in prop::collection::vec((0u64..16, any::<u64>()), 0..12),
            rights in prop::collection::vec((0u64..16, any::<u64>()), 0..21),
            avoid_bits in 0u32..3,
            avoid_salt in any::<u64>(),
            turn in prop::option::of((1u32..40, any::<u64>(), any::<u64>())),
            before in prop::collection::vec(any::<u64>(), 0..3),
        ) {
            let (lefts, rights) = (pieces(&lefts), pieces(&rights));
            // Up to two bits, as the halves avoid (the squares a middle queen attacks).
            let avoid = (0..avoid_bits).fold(0u64, |a, i| a | 1 << (avoid_salt >> (8 * i) & 63));
            let turn = turn.map(|(shift, up, down)| Turn { shift, up, down });
            let want = slow(&lefts, &rights, avoid, turn);
            for kernel in Kernel::available() {
                // What `out` held is kept, in front of the joined pairs.
                let mut out = before.clone();
                kernel.join(&lefts, &rights, avoid, turn, &mut out, &mut Default::default());
                prop_assert_eq!(&out[..before.len()], &before[..], "{:?}", kernel);
                let mut got = out[before.len()..].to_vec();
                got.sort_unstable();
                prop_assert_eq!(&got, &want, "{:?}", kernel);
            }
        }
    }
}
