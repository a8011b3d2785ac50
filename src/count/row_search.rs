//! The row engine: bitboard backtracking for pieces that take one row and one column each
//! (queens and rooks of every kind), with preplaced pieces.
//!
//! The board is filled row by row. A row's free squares are one AND-NOT of bit masks: the used
//! columns, the attack lines coming down from the rows above, and the squares the preplaced
//! pieces attack. Every attack line is a shifted mask: diagonals shift by one column per row,
//! knight leaps land one or two rows lower, nightrider rays shift by two columns per row or by
//! one column every second row. Attacks between two placed pieces are symmetric, so looking down
//! from each placed piece is enough.

use super::rules::Rules;

/// The attack lines carried from one row to the next.
pub(crate) trait Lines: Copy + Send + Sync + Default {
    /// Squares of the current row attacked from the rows above.
    fn attacked(&self) -> u64;
    /// The state for the next row after a piece is placed on `bit` of the current row.
    fn advance(&self, bit: u64) -> Self;
}

/// Rooks have only columns, which the engine tracks itself.
impl Lines for () {
    #[inline(always)]
    fn attacked(&self) -> u64 {
        0
    }
    #[inline(always)]
    fn advance(&self, _: u64) -> Self {}
}

/// The two diagonals.
#[derive(Clone, Copy, Default)]
pub(crate) struct Diagonals {
    up: u64,
    down: u64,
}

impl Lines for Diagonals {
    #[inline(always)]
    fn attacked(&self) -> u64 {
        self.up | self.down
    }
    #[inline(always)]
    fn advance(&self, bit: u64) -> Self {
        Diagonals {
            up: (self.up | bit) << 1,
            down: (self.down | bit) >> 1,
        }
    }
}

/// Single knight leaps: two columns away on the next row, one column away two rows down.
#[derive(Clone, Copy, Default)]
pub(crate) struct Knight {
    here: u64,
    next: u64,
}

impl Lines for Knight {
    #[inline(always)]
    fn attacked(&self) -> u64 {
        self.here
    }
    #[inline(always)]
    fn advance(&self, bit: u64) -> Self {
        Knight {
            here: self.next | bit << 2 | bit >> 2,
            next: bit << 1 | bit >> 1,
        }
    }
}

/// Nightrider rays. The steep ones (two rows, one column) touch every second row, so each
/// carries the masks of the current row and the next one.
#[derive(Clone, Copy, Default)]
pub(crate) struct Nightrider {
    flat_up: u64,
    flat_down: u64,
    steep_up: [u64; 2],
    steep_down: [u64; 2],
}

impl Lines for Nightrider {
    #[inline(always)]
    fn attacked(&self) -> u64 {
        self.flat_up | self.flat_down | self.steep_up[0] | self.steep_down[0]
    }
    #[inline(always)]
    fn advance(&self, bit: u64) -> Self {
        Nightrider {
            flat_up: (self.flat_up | bit) << 2,
            flat_down: (self.flat_down | bit) >> 2,
            steep_up: [self.steep_up[1], (self.steep_up[0] | bit) << 1],
            steep_down: [self.steep_down[1], (self.steep_down[0] | bit) >> 1],
        }
    }
}

impl<A: Lines, B: Lines> Lines for (A, B) {
    #[inline(always)]
    fn attacked(&self) -> u64 {
        self.0.attacked() | self.1.attacked()
    }
    #[inline(always)]
    fn advance(&self, bit: u64) -> Self {
        (self.0.advance(bit), self.1.advance(bit))
    }
}

/// The largest board the row engine handles (one bit per column in a u64).
pub const MAX_ROW_N: u32 = 64;

/// A board with its preplaced pieces, ready for the row engine.
#[derive(Debug, Clone)]
pub(crate) struct RowBoard {
    /// Board size.
    pub n: usize,
    full: u64,
    /// Per row: the bit of its preplaced piece, or 0.
    forced: Vec<u64>,
    /// Per row: the squares the preplaced pieces attack.
    blocked: Vec<u64>,
    /// Columns of the preplaced pieces.
    cols: u64,
    /// Whether any piece is preplaced (else `forced` and `blocked` are all zero).
    placed: bool,
}

impl RowBoard {
    /// A board of size `n` (at most [`MAX_ROW_N`]) with `pieces` preplaced (0-based, one per row
    /// and column, not attacking each other: the caller checks that).
    pub(crate) fn new(n: u32, rules: Rules, pieces: &[(u32, u32)]) -> RowBoard {
        let n_us = n as usize;
        let mut forced = vec![0u64; n_us];
        let mut blocked = vec![0u64; n_us];
        let mut cols = 0u64;
        for &(r, c) in pieces {
            forced[r as usize] = 1 << c;
            cols |= 1 << c;
            for (ar, ac) in rules.attacked_from(n, r, c) {
                blocked[ar as usize] |= 1 << ac;
            }
        }
        let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        RowBoard {
            n: n_us,
            full,
            forced,
            blocked,
            cols,
            placed: !pieces.is_empty(),
        }
    }
}

/// A partial placement: the next row to fill and the masks so far.
#[derive(Clone, Copy)]
pub(crate) struct RowState<L> {
    row: usize,
    cols: u64,
    lines: L,
}

impl<L: Lines> RowState<L> {
    /// The empty placement of `board`.
    pub(crate) fn start(board: &RowBoard) -> Self {
        RowState {
            row: 0,
            cols: board.cols,
            lines: L::default(),
        }
    }

    /// The squares the next piece may take: its forced square (if still free) or every free one.
    #[inline(always)]
    fn choices<const PLACED: bool>(&self, board: &RowBoard) -> u64 {
        if !PLACED {
            return board.full & !(self.cols | self.lines.attacked());
        }
        let f = board.forced[self.row];
        if f != 0 {
            f & !self.lines.attacked()
        } else {
            board.full & !(self.cols | self.lines.attacked() | board.blocked[self.row])
        }
    }

    #[inline(always)]
    fn place(&self, bit: u64) -> Self {
        RowState {
            row: self.row + 1,
            cols: self.cols | bit,
            lines: self.lines.advance(bit),
        }
    }

    /// The states `depth` rows further down, in a fixed order (for splitting work).
    pub(crate) fn expand(
        &self,
        board: &RowBoard,
        depth: usize,
        out: &mut Vec<(Self, Vec<u8>)>,
        path: &mut Vec<u8>,
    ) {
        if depth == 0 || self.row == board.n {
            out.push((*self, path.clone()));
            return;
        }
        let mut avail = self.choices::<true>(board);
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            path.push(bit.trailing_zeros() as u8);
            self.place(bit).expand(board, depth - 1, out, path);
            path.pop();
        }
    }

    /// The number of completions of this state.
    pub(crate) fn count(&self, board: &RowBoard) -> u64 {
        if self.row == board.n {
            return 1;
        }
        if board.placed {
            self.count_in::<true>(board)
        } else {
            self.count_in::<false>(board)
        }
    }

    fn count_in<const PLACED: bool>(&self, board: &RowBoard) -> u64 {
        let mut avail = self.choices::<PLACED>(board);
        if self.row + 1 == board.n {
            return avail.count_ones() as u64;
        }
        let mut total = 0;
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            total += self.place(bit).count_in::<PLACED>(board);
        }
        total
    }

    /// Calls `visit` with the columns of every completion (`cols` already holds this state's
    /// rows), in lexicographic order, until it returns false. Returns false if stopped.
    pub(crate) fn each(
        &self,
        board: &RowBoard,
        cols: &mut [u8],
        visit: &mut dyn FnMut(&[u8]) -> bool,
    ) -> bool {
        if self.row == board.n {
            return visit(cols);
        }
        let mut avail = self.choices::<true>(board);
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            cols[self.row] = bit.trailing_zeros() as u8;
            if !self.place(bit).each(board, cols, visit) {
                return false;
            }
        }
        true
    }
}

/// Runs `f` with the row-engine state type that matches `rules`; `f` is generic over it.
macro_rules! with_lines {
    ($rules:expr, $f:ident ( $($arg:expr),* )) => {{
        use $crate::count::row_search::{Diagonals, Knight, Nightrider};
        use $crate::count::rules::{Kind, Piece};
        match ($rules.piece, $rules.kind) {
            (Piece::Queen, Kind::Regular) => $f::<Diagonals>($($arg),*),
            (Piece::Queen, Kind::Super) => $f::<(Diagonals, Knight)>($($arg),*),
            (Piece::Queen, Kind::Awesome) => $f::<(Diagonals, Nightrider)>($($arg),*),
            (Piece::Rook, Kind::Regular) => $f::<()>($($arg),*),
            (Piece::Rook, Kind::Super) => $f::<Knight>($($arg),*),
            (Piece::Rook, Kind::Awesome) => $f::<Nightrider>($($arg),*),
            (Piece::Bishop, _) => unreachable!("bishops do not take one piece per row"),
        }
    }};
}
pub(crate) use with_lines;
