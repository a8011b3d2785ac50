//! The shared vocabulary of the board: sizes, lines (column and the two diagonal
//! directions) and the bitmaps that record which lines are taken.
//!
//! Rows and columns are 1-based as in the file formats. A queen at row `i`, column `j`
//! of an `n`-board lies on column `j`, on D1 line `n + j - i` (1 ..= 2n-1) and on D2
//! line `i + j` (2 ..= 2n).

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest board the project handles: rows and columns must fit a `u32`.
pub(crate) const MAX_N: u64 = u32::MAX as u64;

/// Which family of lines a conflict is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    /// Same column.
    Column,
    /// Same D1 diagonal (`n + j - i` constant).
    D1,
    /// Same D2 anti-diagonal (`i + j` constant).
    D2,
}

impl std::fmt::Display for LineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LineKind::Column => "column",
            LineKind::D1 => "D1 diagonal",
            LineKind::D2 => "D2 diagonal",
        })
    }
}

/// One line of the board: a family and its index in that family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Line {
    /// The family.
    pub kind: LineKind,
    /// Index: the column for [`LineKind::Column`], `n + j - i` for D1, `i + j` for D2.
    pub index: u64,
}

/// The three lines through the square (`row`, `col`) of an `n`-board (all 1-based).
#[inline]
pub(crate) fn lines_through(n: u64, row: u64, col: u64) -> [Line; 3] {
    [
        Line {
            kind: LineKind::Column,
            index: col,
        },
        Line {
            kind: LineKind::D1,
            index: n + col - row,
        },
        Line {
            kind: LineKind::D2,
            index: row + col,
        },
    ]
}

/// A fixed-size bitmap that several threads set bits in at once.
pub(crate) struct AtomicBitmap {
    words: Vec<AtomicU64>,
}

impl AtomicBitmap {
    /// A bitmap able to hold bits `0..bits`, all clear.
    pub(crate) fn new(bits: u64) -> Self {
        let words = bits.div_ceil(64) as usize;
        AtomicBitmap {
            words: (0..words).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Sets bit `i`.
    #[inline]
    pub(crate) fn set(&self, i: u64) {
        self.words[(i >> 6) as usize].fetch_or(1 << (i & 63), Ordering::Relaxed);
    }

    /// Whether bit `i` is set.
    pub(crate) fn get(&self, i: u64) -> bool {
        self.words[(i >> 6) as usize].load(Ordering::Relaxed) >> (i & 63) & 1 == 1
    }

    /// Asks the CPU to bring bit `i`'s word into cache ahead of use: marking random lines
    /// of a huge board is bound by memory latency, and a locked read-modify-write keeps
    /// later loads from starting early, so misses overlap only if prefetched.
    /// Any `i` may be given: one past the end prefetches nothing useful, and no harm.
    #[inline]
    pub(crate) fn prefetch(&self, i: u64) {
        prefetch(self.words.as_ptr().wrapping_add((i >> 6) as usize) as *const u8);
    }

    /// The same bits, for one thread (no copy: the words are reused in place).
    pub(crate) fn into_bitmap(self) -> Bitmap {
        Bitmap {
            words: self.words.into_iter().map(AtomicU64::into_inner).collect(),
        }
    }

    /// Touches every page of the bitmap, in parallel, so that the pages the kernel
    /// supplies on first touch are supplied now, on every core, rather than one random
    /// touch at a time while marking. For a bitmap with no bit set yet: the touch stores
    /// zeros.
    ///
    /// The pages are the kernel's default size: 2 MiB pages (`MADV_HUGEPAGE`) were tried
    /// and dropped. In a VM that hands free memory back to its host, a fresh huge page can
    /// cost 20 times a small one to touch first (0.42 against 2.6 GB/s), which made
    /// verify at n = 1e9 take up to 10 s instead of 4-4.5 s; and where the host still backed
    /// them, they saved at most 4-7 % (BENCHMARKS.md, "verify").
    pub(crate) fn touch_pages(&self) {
        const PAGE_WORDS: usize = 4096 / 8;
        self.words.par_chunks(PAGE_WORDS << 8).for_each(|chunk| {
            for word in chunk.iter().step_by(PAGE_WORDS) {
                word.store(0, Ordering::Relaxed);
            }
        });
    }

    /// Sets the bits `from..to`, a locked read-modify-write per word rather than per bit.
    pub(crate) fn set_run(&self, from: u64, to: u64) {
        let mut i = from;
        while i < to {
            let end = ((i | 63) + 1).min(to);
            let mask = (!0u64 >> (64 - (end - i))) << (i & 63);
            self.words[(i >> 6) as usize].fetch_or(mask, Ordering::Relaxed);
            i = end;
        }
    }

    /// Sets bit `i` and tells whether it was already set.
    #[inline]
    pub(crate) fn test_and_set(&self, i: u64) -> bool {
        let word = &self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        // A plain load first: most bits are clear, and a load is much cheaper than a
        // locked read-modify-write when the line is shared between cores.
        if word.load(Ordering::Relaxed) & mask != 0 {
            return true;
        }
        word.fetch_or(mask, Ordering::Relaxed) & mask != 0
    }
}

/// A hint to load the cache line at `p`; no effect on program state.
#[inline]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes no memory, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A fixed-size bitmap used by one thread.
#[derive(Clone)]
pub(crate) struct Bitmap {
    words: Vec<u64>,
}

impl Bitmap {
    /// A bitmap able to hold bits `0..bits`, all clear.
    pub(crate) fn new(bits: u64) -> Self {
        Bitmap {
            words: vec![0; bits.div_ceil(64) as usize],
        }
    }

    /// Asks the CPU to bring bit `i`'s word into cache ahead of use.
    #[inline]
    pub(crate) fn prefetch(&self, i: u64) {
        if let Some(word) = self.words.get((i >> 6) as usize) {
            prefetch(word as *const u64 as *const u8);
        }
    }

    /// Whether bit `i` is set.
    #[inline]
    pub(crate) fn get(&self, i: u64) -> bool {
        self.words[(i >> 6) as usize] & (1 << (i & 63)) != 0
    }

    /// The first set bit in `from..to`, if any.
    pub(crate) fn next_set(&self, from: u64, to: u64) -> Option<u64> {
        let mut i = from;
        while i < to {
            let word = self.words[(i >> 6) as usize] >> (i & 63);
            if word != 0 {
                let at = i + word.trailing_zeros() as u64;
                return (at < to).then_some(at);
            }
            i = (i | 63) + 1;
        }
        None
    }

    /// Bits `from .. from + 64` (bit `from` lowest; bits past the end read as clear).
    #[inline]
    pub(crate) fn bits64(&self, from: u64) -> u64 {
        let (w, s) = ((from >> 6) as usize, from & 63);
        let low = self.words.get(w).copied().unwrap_or(0) >> s;
        if s == 0 {
            low
        } else {
            low | self.words.get(w + 1).copied().unwrap_or(0) << (64 - s)
        }
    }

    /// Sets bit `i`.
    #[inline]
    pub(crate) fn set(&mut self, i: u64) {
        self.words[(i >> 6) as usize] |= 1 << (i & 63);
    }

    /// Clears bit `i`.
    #[inline]
    pub(crate) fn clear(&mut self, i: u64) {
        self.words[(i >> 6) as usize] &= !(1 << (i & 63));
    }

    /// Calls `f` with every clear bit in `from..to`, in increasing order, until `f` returns
    /// false. Scans a word at a time, so sparse clear bits cost little.
    #[inline]
    pub(crate) fn for_each_clear(&self, from: u64, to: u64, mut f: impl FnMut(u64) -> bool) {
        if from >= to {
            return;
        }
        let (first, last) = ((from >> 6) as usize, ((to - 1) >> 6) as usize);
        for w in first..=last {
            let mut bits = !self.words[w];
            if w == first {
                bits &= !0u64 << (from & 63);
            }
            if w == last && to & 63 != 0 {
                bits &= (1u64 << (to & 63)) - 1;
            }
            while bits != 0 {
                let i = ((w as u64) << 6) | bits.trailing_zeros() as u64;
                if !f(i) {
                    return;
                }
                bits &= bits - 1;
            }
        }
    }

    /// The clear bits of word `w` that lie in `from..to`, as set bits.
    #[inline]
    fn clear_in(&self, w: usize, from: u64, to: u64) -> u64 {
        let mut bits = !self.words[w];
        if w == (from >> 6) as usize {
            bits &= !0u64 << (from & 63);
        }
        if w == ((to - 1) >> 6) as usize && to & 63 != 0 {
            bits &= (1u64 << (to & 63)) - 1;
        }
        bits
    }

    /// The positions of the clear bits in `from..to` whose rank among them (from 0) is a
    /// multiple of `every`, in increasing order: where each run of `every` clear bits
    /// starts. Counts a word at a time, so it costs a pass over the words, not the bits.
    pub(crate) fn every_nth_clear(&self, from: u64, to: u64, every: u64) -> Vec<u64> {
        assert!(every > 0);
        let mut marks = Vec::new();
        if from >= to {
            return marks;
        }
        // Clear bits still to pass before the next mark.
        let mut skip = 0u64;
        for w in ((from >> 6) as usize)..=(((to - 1) >> 6) as usize) {
            let mut bits = self.clear_in(w, from, to);
            let mut count = bits.count_ones() as u64;
            while count > skip {
                for _ in 0..skip {
                    bits &= bits - 1;
                }
                marks.push(((w as u64) << 6) | bits.trailing_zeros() as u64);
                count -= skip;
                skip = every;
            }
            skip -= count;
        }
        marks
    }

    /// Sets bit `i` and tells whether it was already set.
    #[inline]
    pub(crate) fn test_and_set(&mut self, i: u64) -> bool {
        let word = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let was = *word & mask != 0;
        *word |= mask;
        was
    }
}

/// The lines taken by the queens placed so far, one bitmap per family
/// (about 0.63 bytes per row of the board: n + 2n + 2n bits).
pub(crate) struct LineBitmaps<B> {
    /// Board size.
    pub n: u64,
    /// Columns 1..=n.
    pub columns: B,
    /// D1 lines 1..=2n-1.
    pub d1: B,
    /// D2 lines 2..=2n.
    pub d2: B,
}

impl LineBitmaps<AtomicBitmap> {
    /// Empty bitmaps for an `n`-board, for several threads to mark at once (locked) or for
    /// one thread at a time (unshared).
    pub(crate) fn new_atomic(n: u64) -> Self {
        LineBitmaps {
            n,
            columns: AtomicBitmap::new(n + 1),
            d1: AtomicBitmap::new(2 * n + 1),
            d2: AtomicBitmap::new(2 * n + 1),
        }
    }

    /// Touches every page of the three bitmaps (see [`AtomicBitmap::touch_pages`]).
    pub(crate) fn touch_pages(&self) {
        self.columns.touch_pages();
        self.d1.touch_pages();
        self.d2.touch_pages();
    }

    /// The same bits, for one thread.
    pub(crate) fn into_bitmaps(self) -> LineBitmaps<Bitmap> {
        LineBitmaps {
            n: self.n,
            columns: self.columns.into_bitmap(),
            d1: self.d1.into_bitmap(),
            d2: self.d2.into_bitmap(),
        }
    }

    /// Prefetches the words holding the lines of a queen at (`row`, `col`).
    #[inline]
    pub(crate) fn prefetch(&self, row: u64, col: u64) {
        self.columns.prefetch(col);
        self.d1.prefetch((self.n + col).wrapping_sub(row));
        self.d2.prefetch(row + col);
    }

    /// Marks the lines of a queen at (`row`, `col`); returns how many of them were taken already.
    #[inline]
    pub(crate) fn place(&self, row: u64, col: u64) -> u32 {
        self.columns.test_and_set(col) as u32
            + self.d1.test_and_set(self.n + col - row) as u32
            + self.d2.test_and_set(row + col) as u32
    }

    /// The bitmaps as [`UnsharedMarker`], for a loop that marks many queens in them.
    pub(crate) fn unshared_marker(&self) -> UnsharedMarker<'_> {
        UnsharedMarker {
            n: self.n,
            columns: &self.columns.words,
            d1: &self.d1.words,
            d2: &self.d2.words,
        }
    }

    /// ORs the bitmaps of `others` (of the same board) into these, in parallel, and
    /// counts what the union tells: several threads can each mark their own bitmaps and
    /// learn afterwards which lines more than one of them took.
    pub(crate) fn absorb(&self, others: &[Self]) -> Union {
        const CHUNK: usize = 1 << 14;
        let families: [fn(&Self) -> &AtomicBitmap; 3] = [|l| &l.columns, |l| &l.d1, |l| &l.d2];
        let mut union = Union::default();
        for family in families {
            let (taken, marked) = family(self)
                .words
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(c, words)| {
                    let range = c * CHUNK..c * CHUNK + words.len();
                    let others: Vec<&[AtomicU64]> = others
                        .iter()
                        .map(|o| &family(o).words[range.clone()])
                        .collect();
                    or_words(words, &others)
                })
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            union.taken += taken;
            union.overlaps += marked - taken;
        }
        union
    }
}

/// The words of one thread's [`LineBitmaps`], held apart from the bitmaps so that a
/// marking loop keeps them in registers (stores through the bitmaps could otherwise, for
/// all the compiler knows, change where the words are, and it reloads them every row),
/// with marking that skips the bounds checks its caller has already made: verify's hot
/// loop, 8-10 % faster so (BENCHMARKS.md).
pub(crate) struct UnsharedMarker<'a> {
    n: u64,
    columns: &'a [AtomicU64],
    d1: &'a [AtomicU64],
    d2: &'a [AtomicU64],
}

impl UnsharedMarker<'_> {
    /// Prefetches the words of a queen at (`row`, `col`), whatever the values: an
    /// address outside the bitmaps prefetches nothing useful, and no harm.
    #[inline(always)]
    pub(crate) fn prefetch(&self, row: u64, col: u64) {
        let word = |words: &[AtomicU64], i: u64| {
            prefetch(words.as_ptr().wrapping_add((i >> 6) as usize) as *const u8)
        };
        word(self.columns, col);
        word(self.d1, (self.n + col).wrapping_sub(row));
        word(self.d2, row + col);
    }

    /// Marks the lines of a queen like [`LineBitmaps::place`], with a plain load and
    /// store per line instead of a locked read-modify-write, for bitmaps no other thread
    /// writes meanwhile: a locked instruction waits for every earlier store and holds back
    /// every later load, and random marking runs half as fast with it. Were another
    /// thread to store to the same word at the same moment, one of the two bits could be
    /// lost (memory stays sound: the accesses are atomic, only not as one).
    ///
    /// # Safety
    /// `row` must lie in `1..=n` and `col` in `0..=n`: then the column (at most n), the D1
    /// line (`n + col - row`, 0 ..= 2n-1) and the D2 line (`row + col`, 1 ..= 2n) are bits of
    /// bitmaps of n + 1, 2n + 1 and 2n + 1 bits. Callers pass a queen's column, 1..=n;
    /// 0 is allowed (and marks bits no queen uses) because a value checked in a mapped file
    /// and read again reads as 0 when the file shrank in between: the file is then
    /// reported as such (`format::fault`) and the marks are never used.
    #[inline(always)]
    pub(crate) unsafe fn place(&self, row: u64, col: u64) -> u32 {
        debug_assert!((1..=self.n).contains(&row) && col <= self.n);
        let mut taken = 0;
        for (words, i) in [
            (self.columns, col),
            (self.d1, self.n + col - row),
            (self.d2, row + col),
        ] {
            // SAFETY: `i` is a bit of `words` (see the function's safety section).
            let word = unsafe { words.get_unchecked((i >> 6) as usize) };
            let old = word.load(Ordering::Relaxed);
            word.store(old | 1 << (i & 63), Ordering::Relaxed);
            taken += (old >> (i & 63)) as u32 & 1;
        }
        taken
    }
}

/// ORs the words of `others` into `words`; returns the set bits of the result and of all
/// the words before, which [`LineBitmaps::absorb`] adds up. Counting bits is most of
/// the work: the `popcnt` instruction where the CPU has it, else the portable count.
fn or_words(words: &[AtomicU64], others: &[&[AtomicU64]]) -> (u64, u64) {
    #[inline(always)]
    fn or_counting(words: &[AtomicU64], others: &[&[AtomicU64]]) -> (u64, u64) {
        let (mut taken, mut marked) = (0u64, 0u64);
        for (i, word) in words.iter().enumerate() {
            let mut bits = word.load(Ordering::Relaxed);
            marked += bits.count_ones() as u64;
            for other in others {
                let more = other[i].load(Ordering::Relaxed);
                marked += more.count_ones() as u64;
                bits |= more;
            }
            taken += bits.count_ones() as u64;
            word.store(bits, Ordering::Relaxed);
        }
        (taken, marked)
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        #[target_feature(enable = "popcnt")]
        fn with_popcnt(words: &[AtomicU64], others: &[&[AtomicU64]]) -> (u64, u64) {
            or_counting(words, others)
        }
        // SAFETY: the CPU has just been found to have `popcnt`, the only feature enabled.
        return unsafe { with_popcnt(words, others) };
    }
    or_counting(words, others)
}

/// What [`LineBitmaps::absorb`] found, all three families together.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Union {
    /// Lines set in the union: the distinct lines taken.
    pub taken: u64,
    /// Lines set in more than one of the bitmaps, counted once per bitmap beyond the
    /// first: the conflicts between queens that different bitmaps marked.
    pub overlaps: u64,
}

impl LineBitmaps<Bitmap> {
    /// Empty single-thread bitmaps for an `n`-board.
    pub(crate) fn new(n: u64) -> Self {
        LineBitmaps {
            n,
            columns: Bitmap::new(n + 1),
            d1: Bitmap::new(2 * n + 1),
            d2: Bitmap::new(2 * n + 1),
        }
    }

    /// Marks `line`; tells whether it was taken already.
    #[inline]
    pub(crate) fn take(&mut self, line: Line) -> bool {
        match line.kind {
            LineKind::Column => self.columns.test_and_set(line.index),
            LineKind::D1 => self.d1.test_and_set(line.index),
            LineKind::D2 => self.d2.test_and_set(line.index),
        }
    }

    /// Whether both diagonals through (`row`, `col`) are free (the column is not looked at).
    /// Both are looked up, with no branch between them: at random cells (the residual's
    /// projection, the scatter's probes) the branch was taken half the time, unpredictably.
    #[inline]
    pub(crate) fn diagonals_free(&self, row: u64, col: u64) -> bool {
        !self.d1.get(self.n + col - row) & !self.d2.get(row + col)
    }

    /// Marks the lines of a queen at (`row`, `col`).
    #[inline]
    pub(crate) fn mark(&mut self, row: u64, col: u64) {
        self.columns.set(col);
        self.d1.set(self.n + col - row);
        self.d2.set(row + col);
    }

    /// Clears the lines of a queen at (`row`, `col`).
    #[inline]
    pub(crate) fn unmark(&mut self, row: u64, col: u64) {
        self.columns.clear(col);
        self.d1.clear(self.n + col - row);
        self.d2.clear(row + col);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_through_uses_the_documented_indices() {
        let [c, d1, d2] = lines_through(8, 3, 5);
        assert_eq!(c.index, 5);
        assert_eq!(d1.index, 8 + 5 - 3);
        assert_eq!(d2.index, 3 + 5);
    }

    #[test]
    fn atomic_place_counts_taken_lines() {
        let b = LineBitmaps::new_atomic(8);
        assert_eq!(b.place(1, 1), 0);
        assert_eq!(b.place(2, 2), 1); // same D1
        assert_eq!(b.place(3, 1), 2); // same column as (1,1), same D2 as (2,2)
        assert_eq!(b.place(4, 1), 1); // same column only
        assert_eq!(b.place(8, 8), 1); // same D1 as (1,1)
    }

    #[test]
    fn unshared_place_counts_like_the_locked_one() {
        let (locked, unshared) = (LineBitmaps::new_atomic(8), LineBitmaps::new_atomic(8));
        for (row, col) in [(1, 1), (2, 2), (3, 1), (4, 1), (8, 8), (5, 6)] {
            // SAFETY: every square is on the 8-board.
            let taken = unsafe { unshared.unshared_marker().place(row, col) };
            assert_eq!(locked.place(row, col), taken);
        }
    }

    #[test]
    fn set_run_sets_exactly_its_bits() {
        for (from, to) in [
            (0u64, 0u64),
            (3, 4),
            (0, 64),
            (63, 65),
            (5, 200),
            (64, 128),
            (1, 191),
        ] {
            let b = AtomicBitmap::new(200);
            b.set(from.saturating_sub(1)); // a bit before the run stays as it is
            b.set_run(from, to);
            let b = b.into_bitmap();
            for i in 0..200 {
                let want = (from..to).contains(&i) || i == from.saturating_sub(1);
                assert_eq!(b.get(i), want, "{from}..{to}: bit {i}");
            }
        }
    }

    #[test]
    fn clear_bit_scan_matches_a_plain_loop() {
        let mut b = Bitmap::new(300);
        for i in (0..300).filter(|i| i % 7 == 0 || i % 11 == 3) {
            b.set(i);
        }
        for (from, to) in [(0, 300), (5, 64), (63, 65), (64, 128), (100, 101), (7, 7)] {
            let mut got = Vec::new();
            b.for_each_clear(from, to, |i| {
                got.push(i);
                true
            });
            let want: Vec<u64> = (from..to).filter(|&i| !b.get(i)).collect();
            assert_eq!(got, want, "{from}..{to}");
        }
    }

    #[test]
    fn bitmap_extremes() {
        // The extreme indices of every family fit the bitmaps.
        let n = 5;
        for (row, col) in [(n, 1), (1, n), (1, 1), (n, n)] {
            let mut b = LineBitmaps::new(n);
            for line in lines_through(n, row, col) {
                assert!(!b.take(line));
                assert!(b.take(line));
            }
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// The union and its counts against sets of lines kept in plain vectors; the board
        /// is large enough that the bitmaps span several of `absorb`'s chunks.
        #[test]
        fn absorb_counts_the_union_and_the_overlaps(
            queens in proptest::collection::vec(
                proptest::collection::vec((1u64..=600_000, 1u64..=600_000), 0..40), 1..4),
        ) {
            let n = 600_000;
            let sets: Vec<_> = queens.iter().map(|qs| {
                let b = LineBitmaps::new_atomic(n);
                for &(row, col) in qs {
                    // SAFETY: proptest draws rows and columns in 1..=n.
                    unsafe { b.unshared_marker().place(row, col) };
                }
                b
            }).collect();
            let mut per_set = Vec::new();
            for qs in &queens {
                let mut lines: Vec<Line> = qs.iter().flat_map(|&(r, c)| lines_through(n, r, c)).collect();
                lines.sort_by_key(|l| (l.kind as u8, l.index));
                lines.dedup();
                per_set.push(lines);
            }
            let mut all: Vec<Line> = per_set.iter().flatten().copied().collect();
            let marked = all.len() as u64;
            all.sort_by_key(|l| (l.kind as u8, l.index));
            all.dedup();
            let union = sets[0].absorb(&sets[1..]);
            prop_assert_eq!(union.taken, all.len() as u64);
            prop_assert_eq!(union.overlaps, marked - all.len() as u64);
            // Every line of the union is set (and, by the count, no other).
            let mut merged = sets.into_iter().next().unwrap().into_bitmaps();
            for &line in &all {
                prop_assert!(merged.take(line), "{:?} missing", line);
            }
        }

        #[test]
        fn every_nth_clear_matches_a_bit_by_bit_scan(
            set in proptest::collection::vec(any::<bool>(), 1..400),
            from in 0u64..400,
            len in 0u64..400,
            every in 1u64..80,
        ) {
            let bits = set.len() as u64;
            let mut b = Bitmap::new(bits);
            for (i, &s) in set.iter().enumerate() {
                if s {
                    b.set(i as u64);
                }
            }
            let (from, to) = (from.min(bits), (from + len).min(bits));
            let clear: Vec<u64> = (from..to).filter(|&i| !b.get(i)).collect();
            let expected: Vec<u64> = clear.iter().copied().step_by(every as usize).collect();
            prop_assert_eq!(b.every_nth_clear(from, to, every), expected);
        }
    }
}
