//! Regular queens with nothing preplaced: Takaken's full-symmetry backtracking (Kenji
//! Takahashi's N-Queens solver, 2003), which counts one placement of each class of eight,
//! four or two placements and so reaches both the total and the distinct count with about an
//! eighth of the plain search.
//!
//! The classes are split by the first row. A queen in the corner of the first row (column 0)
//! is never symmetric to itself except by the diagonal reflection, so its placements are
//! limited to those whose second queen lies right of the one whose reflection it is, and each
//! counts eight. Otherwise the first queen is at column B1 < n/2 and every other border queen
//! must lie farther from its corner than B1 (the side and last-row masks), which leaves each
//! class once or, for symmetric placements, a few times; `check` decides by comparing the
//! placement with its rotations.

/// Largest n: one bit per column in a u32, with room for the diagonals' shift.
pub(super) const MAX_N: u32 = 31;
/// Smallest n: below it the border rules meet in the middle.
pub(super) const MIN_N: u32 = 6;

#[derive(Clone, Copy)]
struct Kernel {
    last: usize,
    mask: u32,
    top: u32,
    corner: bool,
    bound1: usize,
    bound2: usize,
    side: u32,
    last_mask: u32,
    end_bit: u32,
}

/// Counts of placements whose class has 8, 4 or 2 members, one placement per class.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Classes {
    /// Classes of eight.
    pub of8: u64,
    /// Classes of four.
    pub of4: u64,
    /// Classes of two.
    pub of2: u64,
}

impl Classes {
    /// All placements.
    pub(super) fn total(&self) -> u128 {
        8 * self.of8 as u128 + 4 * self.of4 as u128 + 2 * self.of2 as u128
    }
    /// Placements distinct up to symmetry.
    pub(super) fn distinct(&self) -> u128 {
        (self.of8 + self.of4 + self.of2) as u128
    }
    fn add(self, o: Classes) -> Classes {
        Classes {
            of8: self.of8 + o.of8,
            of4: self.of4 + o.of4,
            of2: self.of2 + o.of2,
        }
    }
}

/// A piece of the search: a kernel and a prefix of rows.
#[derive(Clone)]
pub(super) struct Item {
    kernel: Kernel,
    y: usize,
    left: u32,
    down: u32,
    right: u32,
    board: [u32; 32],
}

impl Kernel {
    /// The squares row `y` may take, or `None` when the branch is cut.
    #[inline(always)]
    fn choices<const CORNER: bool>(&self, y: usize, down: u32, free: u32) -> Option<u32> {
        let mut bitmap = free;
        if CORNER {
            if y < self.bound1 {
                bitmap &= !2;
            }
        } else if y < self.bound1 {
            bitmap &= !self.side;
        } else if y == self.bound2 {
            if down & self.side == 0 {
                return None;
            }
            if down & self.side != self.side {
                bitmap &= self.side;
            }
        }
        Some(bitmap)
    }

    /// Depth-first search from row `y`, with explicit stacks instead of recursion (the
    /// calls cost as much as the work of a node).
    fn run(
        &self,
        y: usize,
        left: u32,
        down: u32,
        right: u32,
        board: &mut [u32; 32],
        out: &mut Classes,
    ) {
        if self.corner {
            self.run_in::<true>(y, left, down, right, board, out)
        } else {
            self.run_in::<false>(y, left, down, right, board, out)
        }
    }

    fn run_in<const CORNER: bool>(
        &self,
        y: usize,
        left: u32,
        down: u32,
        right: u32,
        board: &mut [u32; 32],
        out: &mut Classes,
    ) {
        let free = self.mask & !(left | down | right);
        if y == self.last {
            self.leaf::<CORNER>(free, board, out);
            return;
        }
        let Some(first) = self.choices::<CORNER>(y, down, free) else {
            return;
        };
        let (mut lefts, mut downs, mut rights, mut todo) =
            ([0u32; 32], [0u32; 32], [0u32; 32], [0u32; 32]);
        let start = y & 31;
        let mut y = start;
        lefts[y] = left;
        downs[y] = down;
        rights[y] = right;
        todo[y] = first;
        loop {
            if todo[y] == 0 {
                if y == start {
                    return;
                }
                y = (y - 1) & 31;
                continue;
            }
            let bit = todo[y] & todo[y].wrapping_neg();
            todo[y] ^= bit;
            if !CORNER {
                // Only the symmetry check of non-corner placements reads the board.
                board[y] = bit;
            }
            let (l, d, r) = (
                (lefts[y] | bit) << 1,
                downs[y] | bit,
                (rights[y] | bit) >> 1,
            );
            let free = self.mask & !(l | d | r);
            if y + 1 == self.last {
                self.leaf::<CORNER>(free, board, out);
                continue;
            }
            if free == 0 {
                continue;
            }
            if let Some(mut next) = self.choices::<CORNER>(y + 1, d, free) {
                if y + 2 == self.last {
                    // The row before the last is tried here rather than pushed: its level
                    // is the widest and its squares lead straight to leaves.
                    while next != 0 {
                        let b = next & next.wrapping_neg();
                        next ^= b;
                        if !CORNER {
                            board[y + 1] = b;
                        }
                        let last = self.mask & !((l | b) << 1 | d | b | (r | b) >> 1);
                        self.leaf::<CORNER>(last, board, out);
                    }
                    continue;
                }
                y = (y + 1) & 31;
                lefts[y] = l;
                downs[y] = d;
                rights[y] = r;
                todo[y] = next;
            }
        }
    }

    #[inline(always)]
    fn leaf<const CORNER: bool>(&self, free: u32, board: &mut [u32; 32], out: &mut Classes) {
        if free != 0 {
            if CORNER {
                out.of8 += 1;
            } else if free & self.last_mask == 0 {
                board[self.last] = free;
                self.check(board, out);
            }
        }
    }

    /// Adds a complete placement of the non-corner kind to the class counts, or drops it when
    /// a rotation of it is smaller (another member of its class is the one counted).
    fn check(&self, board: &[u32; 32], out: &mut Classes) {
        let last = self.last;
        // 90 degrees.
        if board[self.bound2] == 1 {
            let (mut own, mut ptn) = (1, 2u32);
            while own <= last {
                let (mut bit, mut you) = (1u32, last);
                while board[you] != ptn && board[own] >= bit {
                    bit <<= 1;
                    you -= 1;
                }
                if board[own] > bit {
                    return;
                }
                if board[own] < bit {
                    break;
                }
                own += 1;
                ptn <<= 1;
            }
            if own > last {
                out.of2 += 1;
                return;
            }
        }
        // 180 degrees.
        if board[last] == self.end_bit {
            let (mut own, mut you) = (1, last as isize - 1);
            while own <= last {
                let (mut bit, mut ptn) = (1u32, self.top);
                while ptn != board[you as usize] && board[own] >= bit {
                    bit <<= 1;
                    ptn >>= 1;
                }
                if board[own] > bit {
                    return;
                }
                if board[own] < bit {
                    break;
                }
                own += 1;
                you -= 1;
            }
            if own > last {
                out.of4 += 1;
                return;
            }
        }
        // 270 degrees.
        if board[self.bound1] == self.top {
            let (mut own, mut ptn) = (1, self.top >> 1);
            while own <= last {
                let (mut bit, mut you) = (1u32, 0);
                while board[you] != ptn && board[own] >= bit {
                    bit <<= 1;
                    you += 1;
                }
                if board[own] > bit {
                    return;
                }
                if board[own] < bit {
                    break;
                }
                own += 1;
                ptn >>= 1;
            }
        }
        out.of8 += 1;
    }

    fn split(&self, item: Item, depth: usize, out: &mut Vec<Item>) {
        if depth == 0 || item.y == self.last {
            out.push(item);
            return;
        }
        let free = self.mask & !(item.left | item.down | item.right);
        let choices = if self.corner {
            self.choices::<true>(item.y, item.down, free)
        } else {
            self.choices::<false>(item.y, item.down, free)
        };
        let Some(mut bitmap) = choices else {
            return;
        };
        while bitmap != 0 {
            let bit = bitmap & bitmap.wrapping_neg();
            bitmap ^= bit;
            let mut next = item.clone();
            next.board[item.y] = bit;
            next.y += 1;
            next.left = (item.left | bit) << 1;
            next.down = item.down | bit;
            next.right = (item.right | bit) >> 1;
            self.split(next, depth - 1, out);
        }
    }
}

/// The work for board size `n` (MIN_N..=MAX_N), in a fixed order, each item a few rows deep.
pub(super) fn items(n: u32) -> Vec<Item> {
    assert!((MIN_N..=MAX_N).contains(&n));
    let size = n as usize;
    let last = size - 1;
    let top = 1u32 << last;
    let base = Kernel {
        last,
        mask: ((1u64 << n) - 1) as u32,
        top,
        corner: true,
        bound1: 0,
        bound2: 0,
        side: 0,
        last_mask: 0,
        end_bit: 0,
    };
    let mut out = Vec::new();
    // First queen in the corner, the second at column B1.
    for bound1 in 2..last {
        let kernel = Kernel { bound1, ..base };
        let bit = 1u32 << bound1;
        let mut board = [0u32; 32];
        board[0] = 1;
        board[1] = bit;
        let item = Item {
            kernel,
            y: 2,
            left: (2 | bit) << 1,
            down: 1 | bit,
            right: bit >> 1,
            board,
        };
        kernel.split(item, 2, &mut out);
    }
    // First queen at column B1, off the corner.
    let (mut last_mask, mut end_bit) = (top | 1, top >> 1);
    let (mut bound1, mut bound2) = (1, size - 2);
    while bound1 < bound2 {
        let kernel = Kernel {
            corner: false,
            bound1,
            bound2,
            side: top | 1,
            last_mask,
            end_bit,
            ..base
        };
        let bit = 1u32 << bound1;
        let mut board = [0u32; 32];
        board[0] = bit;
        let item = Item {
            kernel,
            y: 1,
            left: bit << 1,
            down: bit,
            right: bit >> 1,
            board,
        };
        kernel.split(item, 2, &mut out);
        last_mask |= last_mask >> 1 | last_mask << 1;
        end_bit >>= 1;
        bound1 += 1;
        bound2 -= 1;
    }
    out
}

/// Runs one item.
pub(super) fn run(item: &Item) -> Classes {
    let mut board = item.board;
    let mut out = Classes::default();
    item.kernel.run(
        item.y, item.left, item.down, item.right, &mut board, &mut out,
    );
    out
}

/// Sums item results.
pub(super) fn sum(parts: impl Iterator<Item = Classes>) -> Classes {
    parts.fold(Classes::default(), Classes::add)
}
