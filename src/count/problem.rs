//! What to count ([`Problem`], [`Shard`]) and what a count gives back ([`Tally`]).

use super::rules::Rules;
use num_bigint::BigUint;

/// The largest board for regular bishops (their count is a polynomial programme).
pub const MAX_BISHOP_N: u32 = 4096;
/// The largest board for regular rooks (their count is a factorial).
pub const MAX_ROOK_N: u32 = 100_000;

/// What to count: `n` pieces of one kind on an `n` x `n` board, containing `placed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Board size and number of pieces.
    pub n: u32,
    /// The piece and its kind.
    pub rules: Rules,
    /// Preplaced pieces, (row, column), 0-based, sorted.
    pub placed: Vec<(u32, u32)>,
}

/// Why a count cannot be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CountError {
    /// A preplaced piece is off the board.
    #[error("preplaced piece at row {row}, column {col} is off the {n} x {n} board")]
    OffBoard {
        /// 1-based row.
        row: u64,
        /// 1-based column.
        col: u64,
        /// Board size.
        n: u32,
    },
    /// The board is larger than the engine for this question handles.
    #[error("n = {n} is too large for {what} (at most {max})")]
    TooLarge {
        /// Board size asked for.
        n: u32,
        /// The largest supported.
        max: u32,
        /// The question.
        what: String,
    },
    /// A board without squares.
    #[error("n must be at least 1")]
    Empty,
    /// `--shard I/S` out of range.
    #[error("shard {index}/{of}: need 0 <= I < S")]
    BadShard {
        /// I.
        index: u32,
        /// S.
        of: u32,
    },
}

/// One part of a count split for a cluster: the work items whose position is `index` modulo
/// `of`. The split depends only on the problem, never on threads or timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which part, from 0.
    pub index: u32,
    /// How many parts.
    pub of: u32,
}

impl Shard {
    /// The whole count.
    pub const WHOLE: Shard = Shard { index: 0, of: 1 };

    /// Part `index` of `of`.
    pub fn new(index: u32, of: u32) -> Result<Shard, CountError> {
        if of == 0 || index >= of {
            return Err(CountError::BadShard { index, of });
        }
        Ok(Shard { index, of })
    }

    pub(super) fn takes(&self, item: usize) -> bool {
        item % self.of as usize == self.index as usize
    }
}

/// The engine that produced a count.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Regular rooks: (n - preplaced)!; up to symmetry, Burnside's lemma over the
    /// permutations each symmetry fixes.
    Factorial,
    /// Regular bishops: Ferrers-board counts per colour; up to symmetry, Burnside's lemma
    /// over a search of the squares' orbits under each symmetry.
    BishopColours,
    /// Regular queens: one placement per symmetry class (Takaken).
    Symmetry,
    /// Regular queens, total only: one search per symmetry class of border queens.
    Constellations,
    /// Regular queens, total only: pairs of compatible top and bottom half boards.
    HalfBoards,
    /// Row engine over the left half of the first row, doubled by the mirror.
    Mirror,
    /// Row engine from the preplaced pieces.
    Rows,
    /// Free rows and columns only, on a board too large for the row engine.
    Residual,
    /// Square engine.
    Squares,
    /// Nothing to count: preplaced pieces attack each other.
    Conflict,
}

/// The result of a count (of one shard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Placements, each set of squares once.
    pub count: BigUint,
    /// Placements distinct up to the board's symmetries, when asked for.
    pub distinct: Option<BigUint>,
    /// The engine used.
    pub method: Method,
    /// Work items of the whole problem (the shards split these).
    pub items: usize,
    /// Two preplaced pieces that attack each other (then every count is 0).
    pub conflict: Option<((u32, u32), (u32, u32))>,
}

impl Problem {
    /// A problem, checking that every preplaced piece (0-based) is on the board; a square
    /// listed twice is one piece.
    pub fn new(n: u32, rules: Rules, mut placed: Vec<(u32, u32)>) -> Result<Problem, CountError> {
        if n == 0 {
            return Err(CountError::Empty);
        }
        if let Some(&(r, c)) = placed.iter().find(|&&(r, c)| r >= n || c >= n) {
            return Err(CountError::OffBoard {
                row: r as u64 + 1,
                col: c as u64 + 1,
                n,
            });
        }
        // A square named twice (`--place 4:5` and `--from` a file with that queen) holds
        // one piece, not two that attack each other.
        placed.sort_unstable();
        placed.dedup();
        Ok(Problem { n, rules, placed })
    }

    /// Two preplaced pieces that attack each other or share a square.
    pub fn conflict(&self) -> Option<((u32, u32), (u32, u32))> {
        self.rules.first_conflict(self.n, &self.placed)
    }

    /// The number of placing orders of one placement: (n - preplaced)!.
    pub fn orders_per_placement(&self) -> BigUint {
        let free = self.n as u64 - self.placed.len().min(self.n as usize) as u64;
        (1..=free).fold(BigUint::from(1u32), |f, k| f * k)
    }

    pub(super) fn too_large(&self, max: u32, what: &str) -> Result<(), CountError> {
        if self.n > max {
            return Err(CountError::TooLarge {
                n: self.n,
                max,
                what: what.to_string(),
            });
        }
        Ok(())
    }
}
