//! Regular queens with nothing preplaced, total count only, by joining half boards: the
//! engine for totals up to n = 23.
//!
//! Cut the board between rows `t - 1` and `t` (`t = n / 2`; for odd n, the middle row's
//! queen is fixed and the cut runs on both sides of it). A placement is a *top half* (a
//! queen on each of rows `0..t`, on a set `C` of columns) joined with a *bottom half* (a
//! queen on each of the other rows, on the other columns). Two halves that are valid on
//! their own join into a placement exactly when no diagonal holds a queen of each. Every
//! diagonal that crosses the cut meets row `t` (extended past the board's edge) in one
//! square, so a half is reduced to the squares of row `t` its diagonals pass through: two
//! masks of under `n` bits each, packed into a `u64`. The count is then, over column sets
//! `C`, the number of pairs (top half on `C`, bottom half on the other columns) whose masks
//! are disjoint.
//!
//! Halves are never stored for all column sets (there are 3.2e8 at n = 18): each is built
//! when its column set is counted, by joining pieces of its left and right quarters, which
//! are precomputed once ([`Quarter`]). The pairs are counted bit-sliced by
//! [`Kernel::disjoint_pairs`] (the method Kluev's N-Queens-Count-Sol uses to match half
//! boards; this is a separate implementation of the idea).
//!
//! Symmetry ([`Work::new`]): the mirror and the half turn map column sets to column sets,
//! so one set per orbit is counted, weighted by the orbit's size; for even n, Kluev's
//! main-diagonal weighting halves the remaining pairs again.

use super::join::{Piece, Turn, keep_where};
use super::kernel::Kernel;
use super::sieve;

/// Largest n. The masks would fit up to n = 32, but a count of n = 23 already takes days on
/// a few cores and the quarter tables grow by about 4x per n; larger boards go to the start
/// constellations.
pub(super) const MAX_N: u32 = 23;
/// Smallest n.
pub(super) const MIN_N: u32 = 4;

/// How masks are laid out for a board of size `n`: the squares of the cut row that the
/// top half's down-right diagonals reach in bits `0..n`, those its down-left diagonals
/// reach in bits `n..2n - 1`. A bottom half's up-left and up-right diagonals land on the
/// same bits.
#[derive(Clone, Copy)]
struct Geometry {
    n: u32,
}

impl Geometry {
    fn low(&self) -> u64 {
        (1u64 << self.n) - 1
    }

    /// The top mask of a half whose down-right diagonals reach row `k` at the columns of
    /// `l` and down-left ones at those of `r` (bits past the board are dropped: no queen
    /// below can be on them).
    fn top(&self, l: u64, r: u64) -> u64 {
        (l & self.low()) | (r & (self.low() >> 1)) << self.n
    }

    /// What turns a top mask into the mask of the same half turned upside down and used as
    /// a bottom half: flipping swaps the two diagonal directions, and the cut row moves by
    /// one (a bit at the edge of the board drops out).
    fn upside_down(&self) -> Turn {
        let moved = self.low() & !1;
        Turn {
            shift: self.n - 1,
            up: moved,
            down: moved,
        }
    }

    /// Bits a mask uses.
    fn bits(&self) -> u32 {
        2 * self.n - 1
    }
}

/// One quarter of a half board: rows `0..rows`, columns `first..first + width`, and every
/// placement of queens on it with at most one per row and column, grouped by the rows and
/// columns they take.
struct Quarter {
    rows: u32,
    /// Start of each group's pieces in `pieces`, by key `rows taken | columns taken << rows`
    /// (columns counted from `first`), one more at the end.
    start: Vec<usize>,
    pieces: Vec<Piece>,
}

impl Quarter {
    /// The quarter of an `n`-wide board's first `rows` rows that starts at column `first`
    /// and is `width` wide; `left` when the other quarter lies to its right.
    fn new(n: u32, rows: u32, first: u32, width: u32, left: bool) -> Quarter {
        // A counting sort by key: one pass counts each group, the next writes the pieces in
        // place (the pieces of n = 22 take 1.3 GB; a sort of (key, piece) pairs needed 2.5x
        // that, and a fifth of the setup's time).
        let keys = 1usize << (rows + width);
        let mut start = vec![0usize; keys + 1];
        each_piece(n, rows, first, width, left, |key, _| {
            start[key as usize + 1] += 1
        });
        for k in 1..=keys {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        let empty = Piece { cut: 0, top: 0 };
        let mut pieces = vec![empty; start[keys]];
        each_piece(n, rows, first, width, left, |key, piece| {
            let at = &mut next[key as usize];
            pieces[*at] = piece;
            *at += 1;
        });
        Quarter {
            rows,
            start,
            pieces,
        }
    }

    fn of(&self, rows: u32, cols: u32) -> &[Piece] {
        let k = (rows | cols << self.rows) as usize;
        &self.pieces[self.start[k]..self.start[k + 1]]
    }
}

/// Calls `f(key, piece)` for every placement on the quarter of an `n`-wide board's first
/// `rows` rows that starts at column `first` and is `width` wide (`left` when the other
/// quarter lies to its right), keyed `rows taken | columns taken << rows`.
fn each_piece(
    n: u32,
    rows: u32,
    first: u32,
    width: u32,
    left: bool,
    mut f: impl FnMut(u32, Piece),
) {
    let geo = Geometry { n };
    // Depth-first over rows: each row is skipped or takes a queen.
    let mut stack = vec![(0u32, 0u32, 0u32, 0u64, 0u64, 0u64, 0u64)];
    // A piece's `cut`: the rows of `0..rows` where the diagonals crossing into the other
    // quarter meet its nearest column, one direction in the low 16 bits and the other
    // above; its `top`: its part of the half's top mask ([`Geometry::top`]).
    while let Some((row, taken_rows, taken_cols, d1, d2, top, cut)) = stack.pop() {
        if row == rows {
            f(taken_rows | taken_cols << rows, Piece { cut, top });
            continue;
        }
        stack.push((row + 1, taken_rows, taken_cols, d1, d2, top, cut));
        for c in 0..width {
            let col = first + c;
            let (b1, b2) = (1u64 << (row + n - col), 1u64 << (row + col));
            if taken_cols >> c & 1 == 1 || d1 & b1 != 0 || d2 & b2 != 0 {
                continue;
            }
            // Where this queen's diagonals meet row `rows` and the cut column.
            let dist = rows - row;
            let l = 1u64 << (col + dist);
            let r = if col >= dist { 1u64 << (col - dist) } else { 0 };
            let to_cut = if left {
                first + width - col
            } else {
                col - first
            };
            let down = row + to_cut;
            let up = row.checked_sub(to_cut);
            let bit = |v: Option<u32>| match v {
                Some(v) if v < rows => 1u64 << v,
                _ => 0,
            };
            // The left quarter's down-right diagonals meet the right quarter's up-left
            // ones, and up-right meet down-left.
            let cut_bits = if left {
                bit(Some(down)) | bit(up) << 16
            } else {
                bit(up) | bit(Some(down)) << 16
            };
            stack.push((
                row + 1,
                taken_rows | 1 << row,
                taken_cols | 1 << c,
                d1 | b1,
                d2 | b2,
                top | geo.top(l, r),
                cut | cut_bits,
            ));
        }
    }
}

/// Placements of queens on the first `rows` rows of a board, one per row, generated for one
/// set of columns at a time by joining compatible pieces of the left and right quarters.
struct Halves {
    geo: Geometry,
    rows: u32,
    /// Columns `0..split` are the left quarter's, the rest the right's.
    split: u32,
    left: Quarter,
    right: Quarter,
}

impl Halves {
    fn new(n: u32, rows: u32) -> Halves {
        let split = n / 2;
        // The two quarters on two threads where there are: building them is the setup of a
        // count, 1.6 s of n = 20 when built one after the other.
        let (left, right) = rayon::join(
            || Quarter::new(n, rows, 0, split, true),
            || Quarter::new(n, rows, split, n - split, false),
        );
        Halves {
            geo: Geometry { n },
            rows,
            split,
            left,
            right,
        }
    }

    /// Appends the top mask of every placement on exactly the columns `cols` whose top
    /// mask has none of the bits of `avoid` to `out`; when `across_middle`, the mask of
    /// the placement turned upside down below the middle row instead
    /// ([`Geometry::across_middle`]).
    fn on(
        &self,
        cols: u32,
        avoid: u64,
        across_middle: bool,
        kernel: Kernel,
        out: &mut Vec<u64>,
        buffers: &mut (Vec<Piece>, Vec<Piece>),
    ) {
        let low = cols & ((1 << self.split) - 1);
        let high = cols >> self.split;
        let all_rows = (1u32 << self.rows) - 1;
        let turn = across_middle.then(|| self.geo.across_middle());
        each_subset(self.rows, low.count_ones(), |rows| {
            let (lefts, rights) = (
                self.left.of(rows, low),
                self.right.of(all_rows ^ rows, high),
            );
            kernel.join(lefts, rights, avoid, turn, out, buffers);
        });
    }
}

/// The work for board size `n`: the column sets to count, one per symmetry orbit, and the
/// quarter tables their halves are built from.
pub(super) struct Work {
    geo: Geometry,
    /// Halves of `n / 2` rows: the top halves, and turned upside down the bottom ones.
    halves: Halves,
    items: Vec<Item>,
}

/// One work item: a column set of top halves, and the orbits (under the symmetries that
/// keep the cut row) it is counted for.
struct Item {
    top: u32,
    orbits: Vec<Orbit>,
}

/// An orbit of column sets, seen from its first member, whose halves pair with those on
/// `bottom` (the complement of the item's columns, less the middle queen's column for
/// odd n); turned upside down, the orbit holds `bottom` as a top column set too.
struct Orbit {
    bottom: u32,
    /// Odd n: the middle row queen's column.
    middle: Option<u32>,
    /// Images of the item's columns under the mirror (1 or 2).
    top_images: u64,
    /// Images of `bottom` under the mirror, or 0 when those are images of the top's.
    bottom_images: u64,
    /// Size of the whole orbit.
    size: u64,
}

/// Buffers one thread reuses from item to item.
#[derive(Default)]
pub(super) struct Scratch {
    upper: Vec<u64>,
    /// `upper` less the halves that attack the middle row's queen.
    upper_free: Vec<u64>,
    lower: Vec<u64>,
    free: Vec<u64>,
    by_diagonals: [Vec<u64>; 3],
    pieces: (Vec<Piece>, Vec<Piece>),
}

impl Geometry {
    /// For odd n, cut at the middle row itself: what turns the mask of a half of the last
    /// `n / 2` rows, turned upside down (`top`), into its mask as seen from the middle row.
    /// The distances to that row are the top half's, so only the two directions swap.
    fn across_middle(&self) -> Turn {
        Turn {
            shift: self.n,
            up: self.low() >> 1,
            down: !0,
        }
    }

    /// The bits of a mask whose diagonals pass through column `c` of the row masks are
    /// taken on: a half with any of them attacks a queen there.
    fn through(&self, c: u32) -> u64 {
        1u64 << c | (1u64 << (self.n + c) & (self.low() >> 1) << self.n)
    }

    /// The bits that mark a queen on one of the two main diagonals (corner to corner),
    /// in top masks and turned bottom masks alike: each crosses the cut row at a fixed
    /// column.
    fn main_diagonals(&self) -> u64 {
        let (n, t) = (self.n, self.n / 2);
        1u64 << t | 1u64 << (n + n - 1 - t)
    }
}

impl Work {
    /// Builds the work for `n` (MIN_N..=MAX_N).
    ///
    /// Even n: top and bottom halves have `n / 2` rows. Odd n: the middle row's queen
    /// (column `c`) is fixed, and the halves above and below it have `n / 2` rows each.
    ///
    /// Symmetry: the mirror keeps halves in place and maps a column set to its mirror
    /// image; turning the board upside down (or half a turn) swaps the halves. Items are
    /// the orbits of (top columns, middle queen) under these four. For even n, with the
    /// transposition too (which swaps the halves of one main diagonal only), every
    /// placement is counted through one whose top half has no queen on a main diagonal,
    /// weighted 2 per main-diagonal queen of its bottom half (the method of Kluev's
    /// counter); pairs without any main-diagonal queen keep the whole group of four. For
    /// odd n that weighting measured slower (see `Work::count`).
    pub(super) fn new(n: u32) -> Work {
        assert!((MIN_N..=MAX_N).contains(&n));
        let t = n / 2;
        let full = (1u32 << n) - 1;
        let mirror = |c: u32| c.reverse_bits() >> (32 - n);
        let mut items = Vec::new();
        each_subset(n, t, |cols| {
            let middles: Vec<Option<u32>> = if n.is_multiple_of(2) {
                vec![None]
            } else {
                (0..n).filter(|&c| cols >> c & 1 == 0).map(Some).collect()
            };
            let mut orbits = Vec::new();
            for middle in middles {
                let (bottom, m) = match middle {
                    None => (full ^ cols, None),
                    Some(c) => (full ^ cols ^ 1 << c, Some(n - 1 - c)),
                };
                let orbit = [
                    (cols, middle),
                    (mirror(cols), m),
                    (bottom, middle),
                    (mirror(bottom), m),
                ];
                if orbit.iter().any(|&o| o < orbit[0]) {
                    continue;
                }
                let distinct = |v: &[(u32, Option<u32>)]| {
                    let mut v = v.to_vec();
                    v.sort_unstable();
                    v.dedup();
                    v.len() as u64
                };
                let (top_images, size) = (distinct(&orbit[..2]), distinct(&orbit));
                orbits.push(Orbit {
                    bottom,
                    middle,
                    top_images,
                    bottom_images: size - top_images,
                    size,
                });
            }
            if !orbits.is_empty() {
                items.push(Item { top: cols, orbits });
            }
        });
        Work {
            geo: Geometry { n },
            halves: Halves::new(n, t),
            items,
        }
    }

    /// Work items (orbits of column sets), in a fixed order.
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    /// Placements counted through item `i`'s orbits, with `kernel`.
    pub(super) fn count(&self, i: usize, kernel: Kernel, scratch: &mut Scratch) -> u64 {
        let item = &self.items[i];
        let s = scratch;
        s.upper.clear();
        self.halves
            .on(item.top, 0, false, kernel, &mut s.upper, &mut s.pieces);
        let mut total = 0;
        for orbit in &item.orbits {
            let avoid = orbit.middle.map_or(0, |c| self.geo.through(c));
            let mut upper = std::mem::take(&mut s.upper_free);
            // Which halves attack the middle queen is unpredictable: no branch per half.
            upper.clear();
            if avoid == 0 {
                upper.extend_from_slice(&s.upper);
            } else {
                keep_where(&mut upper, &s.upper, |m| m & avoid == 0, |m| m);
            }
            let mut lower = std::mem::take(&mut s.lower);
            lower.clear();
            if orbit.middle.is_some() {
                // Odd n: the halves of one column set are few (the middle queen splits
                // them), and splitting them further by main-diagonal queens costs more
                // in per-call overhead than the pairs it saves (measured at n = 17); the
                // bottom halves are turned as they are built.
                self.halves
                    .on(orbit.bottom, avoid, true, kernel, &mut lower, &mut s.pieces);
                total +=
                    orbit.size * sieve::disjoint_pairs(kernel, &lower, &upper, self.geo.bits());
            } else {
                // Even n: the bottom column set's halves serve as tops too, so they are
                // kept as built and turned where used.
                self.halves.on(
                    orbit.bottom,
                    avoid,
                    false,
                    kernel,
                    &mut lower,
                    &mut s.pieces,
                );
                if !upper.is_empty() && !lower.is_empty() {
                    let (plain, diagonal) = self.pairs(&upper, &lower, true, kernel, s);
                    total += orbit.size * plain + orbit.top_images * diagonal;
                    if orbit.bottom_images > 0 {
                        total +=
                            orbit.bottom_images * self.pairs(&lower, &upper, false, kernel, s).1;
                    }
                }
            }
            s.upper_free = upper;
            s.lower = lower;
        }
        total
    }

    /// Even n: pairs of a half from `tops` without a queen on a main diagonal and one from
    /// `bottoms` turned upside down: those where the bottom half has none either (when
    /// `plain`, else 0), and those where it has, weighted 2 per such queen.
    fn pairs(
        &self,
        tops: &[u64],
        bottoms: &[u64],
        plain: bool,
        kernel: Kernel,
        s: &mut Scratch,
    ) -> (u64, u64) {
        let geo = self.geo;
        let diagonals = geo.main_diagonals();
        let (free, by_diagonals) = (&mut s.free, &mut s.by_diagonals);
        // Which half goes where is unpredictable: write each to every place it may go
        // and keep it where it belongs, without a branch.
        free.clear();
        keep_where(free, tops, |m| m & diagonals == 0, |m| m);
        // Two bits: cheaper than a population count where the CPU has none built in.
        let (d1, d2) = (
            diagonals & diagonals.wrapping_neg(),
            diagonals & (diagonals - 1),
        );
        kernel.split(bottoms, geo.upside_down(), (d1, d2), plain, by_diagonals);
        let pairs = |v: &[u64]| sieve::disjoint_pairs(kernel, v, free, geo.bits());
        (
            pairs(&by_diagonals[0]),
            2 * pairs(&by_diagonals[1]) + 4 * pairs(&by_diagonals[2]),
        )
    }
}

/// Calls `f` with every `k`-subset of `0..n` as a bitmask.
fn each_subset(n: u32, k: u32, mut f: impl FnMut(u32)) {
    if k == 0 {
        f(0);
        return;
    }
    // Gosper's hack: the next larger integer with as many set bits.
    let mut s: u64 = (1 << k) - 1;
    while s < 1 << n {
        f(s as u32);
        let c = s & s.wrapping_neg();
        let r = s + c;
        s = (((r ^ s) >> 2) / c) | r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OEIS A000170 from n = 1.
    const TOTALS: [u64; 17] = [
        1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
        95815104,
    ];

    fn total(n: u32, kernel: Kernel) -> u64 {
        let w = Work::new(n);
        let mut s = Scratch::default();
        (0..w.len()).map(|i| w.count(i, kernel, &mut s)).sum()
    }

    #[test]
    fn totals_match_oeis_with_every_kernel() {
        for kernel in Kernel::available() {
            for n in MIN_N..=15 {
                assert_eq!(
                    total(n, kernel),
                    TOTALS[n as usize - 1],
                    "n = {n}, {kernel:?}"
                );
            }
        }
    }

    /// Every placement of `k` queens on rows `0..k` of an `n`-wide board, by brute force
    /// over columns checked pairwise: (columns, top mask).
    fn slow_halves(n: u32, k: u32) -> Vec<(u32, u64)> {
        let geo = Geometry { n };
        let mut out = Vec::new();
        let mut stack = vec![Vec::<u32>::new()];
        while let Some(p) = stack.pop() {
            if p.len() == k as usize {
                let cols = p.iter().fold(0u32, |a, &c| a | 1 << c);
                let top = p.iter().enumerate().fold(0u64, |m, (i, &c)| {
                    let dist = k - i as u32;
                    let r = if c >= dist { 1u64 << (c - dist) } else { 0 };
                    m | geo.top(1u64 << (c + dist), r)
                });
                out.push((cols, top));
                continue;
            }
            let row = p.len() as u32;
            for c in 0..n {
                if p.iter()
                    .enumerate()
                    .all(|(r, &q)| q != c && q.abs_diff(c) != row - r as u32)
                {
                    let mut q = p.clone();
                    q.push(c);
                    stack.push(q);
                }
            }
        }
        out
    }

    #[test]
    fn halves_from_quarters_are_those_found_by_brute_force() {
        for n in 4u32..=9 {
            for k in [n / 2, n - n / 2] {
                let halves = Halves::new(n, k);
                let slow = slow_halves(n, k);
                each_subset(n, k, |cols| {
                    let mut want: Vec<u64> =
                        slow.iter().filter(|h| h.0 == cols).map(|h| h.1).collect();
                    want.sort_unstable();
                    for kernel in Kernel::available() {
                        let mut fast = Vec::new();
                        halves.on(cols, 0, false, kernel, &mut fast, &mut Default::default());
                        fast.sort_unstable();
                        assert_eq!(fast, want, "n = {n}, k = {k}, columns {cols:b}, {kernel:?}");
                    }
                });
            }
        }
    }

    #[test]
    fn a_bottom_mask_is_the_turned_half_seen_from_the_cut() {
        // Joining by masks must agree with checking every pair of queens directly.
        for n in 4u32..=8 {
            let t = n / 2;
            let geo = Geometry { n };
            let (tops, bottoms) = (slow_halves(n, t), slow_halves(n, n - t));
            let mut by_masks = 0;
            for &(tc, tm) in &tops {
                for &(bc, bm) in &bottoms {
                    if tc & bc == 0 && tm & geo.upside_down().apply(bm) == 0 {
                        by_masks += 1;
                    }
                }
            }
            assert_eq!(by_masks, TOTALS[n as usize - 1], "n = {n}");
        }
    }

    #[test]
    fn across_the_middle_row_masks_agree_with_the_queens() {
        for n in [5u32, 7, 9] {
            let t = n / 2;
            let geo = Geometry { n };
            let halves = slow_halves(n, t);
            let mut by_masks = 0;
            for c in 0..n {
                let through = geo.through(c);
                for &(tc, tm) in halves.iter().filter(|h| h.0 >> c & 1 == 0) {
                    for &(bc, bm) in halves.iter().filter(|h| h.0 >> c & 1 == 0) {
                        if tc & bc == 0
                            && (tm | bm) & through == 0
                            && tm & geo.across_middle().apply(bm) == 0
                        {
                            by_masks += 1;
                        }
                    }
                }
            }
            assert_eq!(by_masks, TOTALS[n as usize - 1], "n = {n}");
        }
    }
}
