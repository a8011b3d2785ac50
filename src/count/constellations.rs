//! Regular queens with nothing preplaced, total count only: start constellations, the
//! method of the Q27 project (Preußer and Engelhardt) and of NQueensFAF.
//!
//! Every placement has exactly one queen on each border line: row 0, row n-1, column 0
//! and column n-1. These (up to) four queens are its *constellation*. A symmetry of the
//! square maps the placements of one constellation one to one onto those of its image, so
//! the total is the sum over one constellation per symmetry class of (class size x its
//! count): no placement is ever compared with its rotations, which is what makes this
//! faster than Takaken's search. The last [`BOTTOM_LEVELS`] rows are searched breadth
//! first, 16 nodes at a time with AVX-512 where the CPU has it. Since the half-board
//! engine ([`super::halves`]) counts n <= 23 faster, this one counts n = 24..31. Placements distinct up to
//! symmetry follow by Burnside's lemma from the total and the few placements that a
//! rotation leaves unchanged ([`rotation_invariant`]).
//!
//! Within a constellation the border queens are fixed, so every square they attack is
//! struck from its row before the search starts: the queens of the last rows constrain
//! the first rows from the outset, instead of at the end. The search then runs over the
//! free rows only, stepping over the rows of the border queens (they need no check: a
//! queen that attacked one was never allowed).

/// Largest n: one bit per column in a u32.
pub(super) const MAX_N: u32 = 31;
/// Smallest n: below it the four border lines leave no inner rows to search.
pub(super) const MIN_N: u32 = 5;

/// One constellation class: its representative's search and the class size.
#[derive(Clone)]
pub(super) struct Item {
    /// Free rows (rows without a border queen), in order.
    pub(super) levels: usize,
    /// Squares each free row may take (border queens' lines struck).
    pub(super) allowed: [u32; 32],
    /// Rows from each free row to the next: the diagonals shift by this much.
    pub(super) gap: [u32; 32],
    /// Constellations in the class.
    pub(super) weight: u64,
}

impl Item {
    /// Placements with this item's constellation, times the class size.
    pub(super) fn count(&self) -> u64 {
        self.weight * self.search(Kernel::best())
    }

    /// Placements of queens on the free rows: depth first (explicit stacks; calls cost as
    /// much as a node's work) down to [`BOTTOM_LEVELS`] above the last free row, then
    /// breadth first over batches of those nodes (see [`Frontier`]).
    fn search(&self, kernel: Kernel) -> u64 {
        let last = self.levels - 1;
        let split = last.saturating_sub(BOTTOM_LEVELS);
        let mut bottom = Bottom::new(self, kernel, split);
        if split == 0 {
            bottom.add(0, 0, 0, self.allowed[0]);
            return bottom.finish();
        }
        let (mut lefts, mut downs, mut rights, mut todo) =
            ([0u32; 32], [0u32; 32], [0u32; 32], [0u32; 32]);
        let mut k = 0usize;
        todo[0] = self.allowed[0];
        loop {
            if todo[k] == 0 {
                if k == 0 {
                    return bottom.finish();
                }
                k -= 1;
                continue;
            }
            let bit = todo[k] & todo[k].wrapping_neg();
            todo[k] ^= bit;
            let g = self.gap[k];
            let (l, d, r) = (
                (lefts[k] | bit) << g,
                downs[k] | bit,
                (rights[k] | bit) >> g,
            );
            let free = self.allowed[k + 1] & !(l | d | r);
            if free == 0 {
                continue;
            }
            if k + 1 == split {
                bottom.add(l, d, r, free);
                continue;
            }
            k += 1;
            lefts[k] = l;
            downs[k] = d;
            rights[k] = r;
            todo[k] = free;
        }
    }
}

/// Free rows above the last that are searched breadth first. Deep down the tree most nodes
/// have one to three children, and the depth-first loop pays a mispredicted branch for
/// nearly each of them; expanding a whole batch of nodes level by level has no
/// data-dependent branches but the loop over a node's squares, and with AVX-512 takes 16
/// nodes per step.
const BOTTOM_LEVELS: usize = 8;
/// Nodes per frontier buffer (plus one vector of slack for full-width stores).
const FRONTIER: usize = 2048;
/// A buffer is expanded one level down once it holds this many nodes: one more vector of
/// nodes, each with at most 32 children, still fits.
const FLUSH_AT: usize = FRONTIER - 16 * 32;

/// Nodes of one level: the diagonals and columns taken above them and their free squares.
struct Frontier {
    l: Vec<u32>,
    d: Vec<u32>,
    r: Vec<u32>,
    f: Vec<u32>,
    len: usize,
}

impl Frontier {
    fn new() -> Self {
        let v = || vec![0u32; FRONTIER + 16];
        Frontier {
            l: v(),
            d: v(),
            r: v(),
            f: v(),
            len: 0,
        }
    }

    fn push(&mut self, l: u32, d: u32, r: u32, f: u32) {
        let i = self.len;
        self.l[i] = l;
        self.d[i] = d;
        self.r[i] = r;
        self.f[i] = f;
        self.len += 1;
    }
}

/// How a frontier is expanded one level down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// Plain code, one node at a time.
    Scalar,
    /// 16 nodes per step with AVX-512 (checked at run time).
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Kernel {
    /// The AVX-512 frontier when the kernel chosen for counting ([`super::kernel`]) is
    /// AVX-512, else plain code.
    fn best() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if super::kernel::Kernel::best() == super::kernel::Kernel::Avx512 {
            return Kernel::Avx512;
        }
        Kernel::Scalar
    }

    /// Appends the children of `inp`'s nodes `from..to` that have a free square on the
    /// next free row to `out`, or, when `out` is `None` (the next row is the last), counts
    /// them.
    fn expand(
        self,
        inp: &Frontier,
        from: usize,
        to: usize,
        allowed: u32,
        gap: u32,
        out: Option<&mut Frontier>,
    ) -> u64 {
        match self {
            Kernel::Scalar => expand_scalar(inp, from, to, allowed, gap, out),
            // SAFETY: `best` chose this kernel only after detecting AVX-512F.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { expand_avx512(inp, from, to, allowed, gap, out) },
        }
    }
}

fn expand_scalar(
    inp: &Frontier,
    from: usize,
    to: usize,
    allowed: u32,
    gap: u32,
    mut out: Option<&mut Frontier>,
) -> u64 {
    let mut counted = 0;
    for i in from..to {
        let mut f = inp.f[i];
        while f != 0 {
            let bit = f & f.wrapping_neg();
            f ^= bit;
            let (l, d, r) = (
                (inp.l[i] | bit) << gap,
                inp.d[i] | bit,
                (inp.r[i] | bit) >> gap,
            );
            let nf = allowed & !(l | d | r);
            match out.as_deref_mut() {
                Some(out) => {
                    let at = out.len;
                    out.l[at] = l;
                    out.d[at] = d;
                    out.r[at] = r;
                    out.f[at] = nf;
                    out.len += (nf != 0) as usize;
                }
                // One column is left for the last row, so `nf` has at most one square.
                None => counted += (nf != 0) as u64,
            }
        }
    }
    counted
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn expand_avx512(
    inp: &Frontier,
    from: usize,
    to: usize,
    allowed: u32,
    gap: u32,
    mut out: Option<&mut Frontier>,
) -> u64 {
    use std::arch::x86_64::*;
    let allowed = _mm512_set1_epi32(allowed as i32);
    let gap = _mm512_set1_epi32(gap as i32);
    let zero = _mm512_setzero_si512();
    let mut counted = 0u64;
    let mut i = from;
    while i < to {
        let lanes = (to - i).min(16);
        let live: __mmask16 = if lanes == 16 { !0 } else { (1 << lanes) - 1 };
        // SAFETY (all loads and stores): lanes past `to` are masked off on loading, and the
        // frontier buffers have 16 slots of slack past FRONTIER for the full-width stores;
        // `out.len` stays below FLUSH_AT + 16 * 32 <= FRONTIER.
        // SAFETY: see above: masked lanes, buffers long enough.
        let load = |v: &Vec<u32>| unsafe {
            _mm512_maskz_loadu_epi32(live, v.as_ptr().add(i) as *const i32)
        };
        let (l0, d0, r0) = (load(&inp.l), load(&inp.d), load(&inp.r));
        let mut f = load(&inp.f);
        loop {
            let active = _mm512_test_epi32_mask(f, f);
            if active == 0 {
                break;
            }
            let bit = _mm512_and_si512(f, _mm512_sub_epi32(zero, f));
            f = _mm512_xor_si512(f, bit);
            let l = _mm512_sllv_epi32(_mm512_or_si512(l0, bit), gap);
            let d = _mm512_or_si512(d0, bit);
            let r = _mm512_srlv_epi32(_mm512_or_si512(r0, bit), gap);
            let nf = _mm512_andnot_si512(_mm512_or_si512(_mm512_or_si512(l, d), r), allowed);
            let keep = _mm512_mask_test_epi32_mask(active, nf, nf);
            match out.as_deref_mut() {
                Some(out) => {
                    let at = out.len;
                    // SAFETY: see above: `at + 16` lies within the buffer's slack.
                    let store = |v: &mut Vec<u32>, x| unsafe {
                        _mm512_storeu_si512(
                            v.as_mut_ptr().add(at) as *mut _,
                            _mm512_maskz_compress_epi32(keep, x),
                        )
                    };
                    store(&mut out.l, l);
                    store(&mut out.d, d);
                    store(&mut out.r, r);
                    store(&mut out.f, nf);
                    out.len += keep.count_ones() as usize;
                }
                None => counted += keep.count_ones() as u64,
            }
        }
        i += 16;
    }
    counted
}

/// The breadth-first part of one item's search: nodes of the split level are collected
/// into a frontier; a full frontier is expanded level by level, each level's buffer passed
/// down whenever it fills, so memory stays a few frontiers per level.
struct Bottom<'a> {
    item: &'a Item,
    kernel: Kernel,
    split: usize,
    /// One frontier per level from `split` to the one before the last.
    levels: Vec<Frontier>,
    found: u64,
}

thread_local! {
    /// Frontiers a thread's finished searches left, for its next: an item is a few
    /// milliseconds at n = 18, and zeroing its frontiers anew cost a third of that.
    static SPARE: std::cell::RefCell<Vec<Frontier>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Bottom<'_> {
    fn drop(&mut self) {
        SPARE.with_borrow_mut(|spare| {
            for mut f in self.levels.drain(..) {
                f.len = 0;
                spare.push(f);
            }
        });
    }
}

impl<'a> Bottom<'a> {
    fn new(item: &'a Item, kernel: Kernel, split: usize) -> Self {
        let last = item.levels - 1;
        Bottom {
            item,
            kernel,
            split,
            levels: SPARE.with_borrow_mut(|spare| {
                let want = last.max(split + 1) - split;
                (0..want)
                    .map(|_| spare.pop().unwrap_or_else(Frontier::new))
                    .collect()
            }),
            found: 0,
        }
    }

    /// Adds a node of the split level.
    fn add(&mut self, l: u32, d: u32, r: u32, f: u32) {
        let top = &mut self.levels[0];
        top.push(l, d, r, f);
        if top.len >= FLUSH_AT {
            self.found += self.drain();
        }
    }

    /// The count: what is left in the frontiers, plus what was counted.
    fn finish(mut self) -> u64 {
        if self.item.levels == 1 {
            return (self.item.allowed[0] != 0) as u64;
        }
        self.found + self.drain()
    }

    /// Expands the split level's frontier to the last level and empties it.
    fn drain(&mut self) -> u64 {
        drain(self.item, self.kernel, self.split, &mut self.levels)
    }
}

/// Expands the frontier `levels[0]` (level `level`; the next levels' frontiers follow) to
/// the last level and empties it; returns the placements found.
fn drain(item: &Item, kernel: Kernel, level: usize, levels: &mut [Frontier]) -> u64 {
    let last = item.levels - 1;
    let (allowed, gap) = (item.allowed[level + 1], item.gap[level]);
    let (here, below) = levels.split_first_mut().expect("a frontier");
    let len = here.len;
    here.len = 0;
    if level + 1 == last {
        return kernel.expand(here, 0, len, allowed, gap, None);
    }
    let mut found = 0;
    let mut from = 0;
    while from < len {
        let to = (from + 16).min(len);
        kernel.expand(here, from, to, allowed, gap, Some(&mut below[0]));
        if below[0].len >= FLUSH_AT {
            found += drain(item, kernel, level + 1, below);
        }
        from = to;
    }
    found + drain(item, kernel, level + 1, below)
}

/// The 8 symmetries of the n x n square, as maps of (row, column).
fn symmetries(n: u32) -> [impl Fn((u32, u32)) -> (u32, u32); 8] {
    let m = n - 1;
    [0u8, 1, 2, 3, 4, 5, 6, 7].map(move |s| {
        move |(r, c): (u32, u32)| {
            let (r, c) = if s & 4 != 0 { (c, r) } else { (r, c) };
            let r = if s & 1 != 0 { m - r } else { r };
            let c = if s & 2 != 0 { m - c } else { c };
            (r, c)
        }
    })
}

/// The constellation of a set of border queens: the column of the queen in row 0, the
/// column of the one in row n-1, the row of the one in column 0, the row of the one in
/// column n-1.
fn key(n: u32, queens: &[(u32, u32)]) -> (u32, u32, u32, u32) {
    let find = |f: &dyn Fn(&(u32, u32)) -> bool| *queens.iter().find(|q| f(q)).expect("border");
    (
        find(&|q| q.0 == 0).1,
        find(&|q| q.0 == n - 1).1,
        find(&|q| q.1 == 0).0,
        find(&|q| q.1 == n - 1).0,
    )
}

fn attack(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 == b.0 || a.1 == b.1 || a.0.abs_diff(b.0) == a.1.abs_diff(b.1)
}

/// The work for board size `n` (MIN_N..=MAX_N): one item per symmetry class of valid
/// constellations, in a fixed order.
pub(super) fn items(n: u32) -> Vec<Item> {
    assert!((MIN_N..=MAX_N).contains(&n));
    let m = n - 1;
    let full = ((1u64 << n) - 1) as u32;
    let group = symmetries(n);
    let mut out = Vec::new();
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                for d in 0..n {
                    // A corner queen sits on two border lines, so both must name it.
                    if (a == 0) != (c == 0)
                        || (a == m) != (d == 0)
                        || (b == 0) != (c == m)
                        || (b == m) != (d == m)
                    {
                        continue;
                    }
                    let mut queens = vec![(0, a), (m, b), (c, 0), (d, m)];
                    queens.sort_unstable();
                    queens.dedup();
                    let valid = queens
                        .iter()
                        .enumerate()
                        .all(|(i, &p)| queens[i + 1..].iter().all(|&q| !attack(p, q)));
                    if !valid {
                        continue;
                    }
                    let mut images: Vec<_> = group
                        .iter()
                        .map(|g| key(n, &queens.iter().map(|&q| g(q)).collect::<Vec<_>>()))
                        .collect();
                    images.sort_unstable();
                    images.dedup();
                    if images[0] != (a, b, c, d) {
                        continue;
                    }
                    out.push(item(n, full, &queens, images.len() as u64));
                }
            }
        }
    }
    out
}

/// The work items of board size `n`: each class of [`items`] split by the square its first
/// free row takes, so that an item is a twentieth of a class (at n = 24 seconds, not
/// minutes): a sample of a minute then times enough items to project a count, checkpoints
/// save every few seconds of work, and shards of a cluster run hold many items each. The
/// classes are kept whole and an item found from its index (an item copied out per square
/// would take 100 MB at n = 24).
pub(super) struct WorkItems {
    classes: Vec<Item>,
    /// Items before each class's first, one more at the end.
    start: Vec<usize>,
}

impl WorkItems {
    pub(super) fn new(n: u32) -> WorkItems {
        let classes = items(n);
        let mut start = Vec::with_capacity(classes.len() + 1);
        start.push(0);
        for class in &classes {
            start.push(start[start.len() - 1] + class.allowed[0].count_ones() as usize);
        }
        WorkItems { classes, start }
    }

    pub(super) fn len(&self) -> usize {
        self.start[self.classes.len()]
    }

    /// Item `i`: its class with the first free row's queen on one square.
    pub(super) fn get(&self, i: usize) -> Item {
        let c = self.start.partition_point(|&s| s <= i) - 1;
        let mut squares = self.classes[c].allowed[0];
        for _ in self.start[c]..i {
            squares &= squares - 1;
        }
        let mut item = self.classes[c].clone();
        item.allowed[0] = squares & squares.wrapping_neg();
        item
    }
}

fn item(n: u32, full: u32, queens: &[(u32, u32)], weight: u64) -> Item {
    let used_cols = queens.iter().fold(0u32, |acc, q| acc | 1 << q.1);
    let rows: Vec<u32> = (0..n)
        .filter(|&y| queens.iter().all(|q| q.0 != y))
        .collect();
    let mut allowed = [0u32; 32];
    let mut gap = [0u32; 32];
    for (k, &y) in rows.iter().enumerate() {
        let mut struck = used_cols;
        for &(qr, qc) in queens {
            let dist = qr.abs_diff(y);
            if qc + dist < n {
                struck |= 1 << (qc + dist);
            }
            if qc >= dist {
                struck |= 1 << (qc - dist);
            }
        }
        allowed[k] = full & !struck;
        gap[k] = rows.get(k + 1).map_or(0, |&next| next - y);
    }
    Item {
        levels: rows.len(),
        allowed,
        gap,
        weight,
    }
}

/// Placements invariant under a quarter turn and under a half turn, for the distinct
/// count by Burnside's lemma: distinct = (total + 2 x quarter + half) / 8, since no
/// placement of n >= 2 queens is its own mirror image (a reflection fixes a queen only on
/// its axis, and pairs of queens swapped by a diagonal reflection share a diagonal).
///
/// Invariant placements are few; they are searched by placing whole orbits of queens: the
/// first empty row takes a queen and, with it, its images under the turns.
pub(super) fn rotation_invariant(n: u32) -> (u64, u64) {
    assert!(n <= 63, "two diagonals' bits per square in a u128");
    (orbit_search(n, 4), orbit_search(n, 2))
}

/// Placements invariant under the rotation group of order `turns` (4: quarter turns,
/// 2: half turns).
fn orbit_search(n: u32, turns: u32) -> u64 {
    fn turn(n: u32, (r, c): (u32, u32), turns: u32) -> (u32, u32) {
        if turns == 4 {
            (c, n - 1 - r)
        } else {
            (n - 1 - r, n - 1 - c)
        }
    }
    struct Board {
        n: u32,
        turns: u32,
        rows: u64,
        cols: u64,
        d1: u128,
        d2: u128,
    }
    impl Board {
        fn search(&mut self) -> u64 {
            let n = self.n;
            let full = if n == 64 { !0 } else { (1u64 << n) - 1 };
            if self.rows == full {
                return 1;
            }
            let r = (!self.rows).trailing_zeros();
            let mut found = 0;
            for c in 0..n {
                let saved = (self.rows, self.cols, self.d1, self.d2);
                // The orbit of (r, c): its distinct images under the turns (one square, the
                // centre, is its own image).
                let mut orbit = vec![(r, c)];
                let mut q = turn(n, (r, c), self.turns);
                while q != (r, c) {
                    orbit.push(q);
                    q = turn(n, q, self.turns);
                }
                let ok = orbit.iter().all(|&(qr, qc)| {
                    let (d1, d2) = (1u128 << (qr + n - qc), 1u128 << (qr + qc));
                    let free = self.rows >> qr & 1 == 0
                        && self.cols >> qc & 1 == 0
                        && self.d1 & d1 == 0
                        && self.d2 & d2 == 0;
                    self.rows |= 1 << qr;
                    self.cols |= 1 << qc;
                    self.d1 |= d1;
                    self.d2 |= d2;
                    free
                });
                if ok {
                    found += self.search();
                }
                (self.rows, self.cols, self.d1, self.d2) = saved;
            }
            found
        }
    }
    let mut board = Board {
        n,
        turns,
        rows: 0,
        cols: 0,
        d1: 0,
        d2: 0,
    };
    board.search()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OEIS A000170.
    const TOTALS: [u64; 15] = [
        1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184,
    ];

    /// OEIS A002562.
    const DISTINCT: [u64; 15] = [
        1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787, 9233, 45752, 285053,
    ];

    #[test]
    fn burnside_gives_the_distinct_counts() {
        for n in MIN_N..=15 {
            let (quarter, half) = rotation_invariant(n);
            let t = TOTALS[n as usize - 1];
            assert_eq!((t + 2 * quarter + half) % 8, 0, "n = {n}");
            assert_eq!(
                (t + 2 * quarter + half) / 8,
                DISTINCT[n as usize - 1],
                "n = {n}"
            );
        }
    }

    #[test]
    fn rotation_invariant_placements_checked_by_brute_force() {
        // All permutations for n <= 8, each checked for attacks and compared with its turns.
        for n in 2u32..=8 {
            let mut perm: Vec<u32> = (0..n).collect();
            let (mut quarter, mut half) = (0, 0);
            let mut done = false;
            while !done {
                let valid = (0..n as usize).all(|i| {
                    (i + 1..n as usize).all(|j| perm[i].abs_diff(perm[j]) != (j - i) as u32)
                });
                if valid {
                    let m = n - 1;
                    let turned_q = (0..n).all(|r| perm[perm[r as usize] as usize] == m - r);
                    let turned_h = (0..n).all(|r| perm[(m - r) as usize] == m - perm[r as usize]);
                    quarter += turned_q as u64;
                    half += turned_h as u64;
                }
                // Next permutation in lexicographic order.
                done = match (0..perm.len() - 1).rev().find(|&i| perm[i] < perm[i + 1]) {
                    None => true,
                    Some(i) => {
                        let j = (i + 1..perm.len())
                            .rev()
                            .find(|&j| perm[j] > perm[i])
                            .unwrap();
                        perm.swap(i, j);
                        perm[i + 1..].reverse();
                        false
                    }
                };
            }
            assert_eq!(rotation_invariant(n), (quarter, half), "n = {n}");
        }
    }

    fn total(n: u32, kernel: Kernel) -> u64 {
        items(n).iter().map(|i| i.weight * i.search(kernel)).sum()
    }

    #[test]
    fn totals_match_oeis_with_every_kernel() {
        let mut kernels = vec![Kernel::Scalar];
        if Kernel::best() != Kernel::Scalar {
            kernels.push(Kernel::best());
        }
        for kernel in kernels {
            for n in MIN_N..=15 {
                assert_eq!(
                    total(n, kernel),
                    TOTALS[n as usize - 1],
                    "n = {n}, {kernel:?}"
                );
            }
        }
    }

    #[test]
    fn work_items_split_the_classes_and_add_up_to_them() {
        for n in MIN_N..=13 {
            let work = WorkItems::new(n);
            let parts: u64 = (0..work.len()).map(|i| work.get(i).count()).sum();
            assert_eq!(parts, TOTALS[n as usize - 1], "n = {n}");
            assert!(n < 12 || work.len() > 4 * items(n).len(), "n = {n}");
        }
    }

    #[test]
    fn kernels_agree_item_by_item() {
        // n = 15: the depth-first part runs two levels before the split, and the frontiers
        // fill and drain many times.
        for item in items(15) {
            assert_eq!(item.search(Kernel::Scalar), item.search(Kernel::best()));
        }
    }

    #[test]
    fn classes_cover_every_constellation_once() {
        // Summing class sizes gives the number of valid constellations, counted directly.
        for n in MIN_N..=9 {
            let m = n - 1;
            let mut direct = 0u64;
            for a in 0..n {
                for b in 0..n {
                    for c in 0..n {
                        for d in 0..n {
                            let mut queens = vec![(0, a), (m, b), (c, 0), (d, m)];
                            queens.sort_unstable();
                            queens.dedup();
                            if key_consistent(n, &queens, (a, b, c, d))
                                && queens
                                    .iter()
                                    .enumerate()
                                    .all(|(i, &p)| queens[i + 1..].iter().all(|&q| !attack(p, q)))
                            {
                                direct += 1;
                            }
                        }
                    }
                }
            }
            let classes: u64 = items(n).iter().map(|i| i.weight).sum();
            assert_eq!(classes, direct, "n = {n}");
        }
    }

    /// The set of queens has exactly one queen per border line and reads back as `k`.
    fn key_consistent(n: u32, queens: &[(u32, u32)], k: (u32, u32, u32, u32)) -> bool {
        let m = n - 1;
        let on = |f: &dyn Fn(&(u32, u32)) -> bool| queens.iter().filter(|q| f(q)).count() == 1;
        on(&|q| q.0 == 0)
            && on(&|q| q.0 == m)
            && on(&|q| q.1 == 0)
            && on(&|q| q.1 == m)
            && key(n, queens) == k
    }
}
