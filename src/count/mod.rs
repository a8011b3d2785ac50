//! Counting placements of n non-attacking queens, rooks or bishops (regular, super,
//! awesome), with preplaced pieces, distinct up to symmetry, and split into shards.
//!
//! Which engine runs depends on the piece: queens and rooks take one row and one column
//! each and go to the bitboard row engine (`rows`), searching half the first row when
//! nothing is preplaced (the mirror image of each placement is the other half); regular
//! rooks and regular bishops have closed counts (a factorial; a Ferrers-board programme per
//! colour, `bishops`); super and awesome bishops, and bishops up to symmetry, go to the
//! square engine (`squares`). Regular queens on an empty board, total and `--distinct` (by
//! Burnside's formula), join half boards (`halves`, n <= 23, large sets sieved first in
//! `sieve`, its SIMD kernel chosen in `kernel`; larger boards use start constellations,
//! `constellations`); a sharded `--distinct` takes Takaken's search (`takaken`). That count
//! is made of work items a caller can watch, stop and resume ([`resumable`], saved by
//! `count --checkpoint` as a [`checkpoint`]). Regular queens on a large board with few free
//! rows go to the exact engine over its residual (`crate::exact`), the one `complete` uses.
//! The results of the shards of a count are added up by `publish::merge` (a layer above). `count --algorithm
//! basic` is the plain bitmask backtracker ([`count_queens_basic`]), kept as the baseline
//! the engines are measured against; tests compare every engine with the slow obvious
//! counter in `oracle`.

mod basic;
mod bishops;
pub mod checkpoint;
mod constellations;
pub mod estimate;
mod halves;
mod join;
pub(crate) mod kernel;
#[cfg(test)]
mod reference;
pub mod resumable;
pub(crate) mod row_search;
mod rules;
mod sieve;
mod split;
mod squares;
mod symmetry;
mod takaken;
#[cfg(test)]
mod tests;

pub use basic::count_queens as count_queens_basic;

/// Placements of n regular queens on an empty board, as published (OEIS A000170, n = 1 to
/// 27): what a count can be checked against.
const KNOWN_TOTALS: [u128; 27] = [
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2680,
    14200,
    73712,
    365596,
    2279184,
    14772512,
    95815104,
    666090624,
    4968057848,
    39029188884,
    314666222712,
    2691008701644,
    24233937684440,
    227514171973736,
    2207893435808352,
    22317699616364044,
    234907967154122528,
];

/// The published number of placements of n regular queens on an empty board, where one
/// is known (n = 1 to 27).
pub fn known_total(n: u32) -> Option<u128> {
    KNOWN_TOTALS.get((n as usize).checked_sub(1)?).copied()
}
pub use kernel::{Kernel, KernelError};
pub use row_search::MAX_ROW_N;
pub use rules::{Kind, Piece, Rules};
pub use squares::MAX_SQUARES_N;

use crate::stop::Stop;
use num_bigint::BigUint;
use rayon::prelude::*;
use row_search::{Lines, RowBoard, RowState, with_lines};
use squares::SquareBoard;
use std::sync::atomic::{AtomicBool, Ordering};
use symmetry::Symmetry;

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

    fn takes(&self, item: usize) -> bool {
        item % self.of as usize == self.index as usize
    }
}

/// The engine that produced a count.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Regular rooks: (n - preplaced)!.
    Factorial,
    /// Regular bishops: Ferrers-board counts per colour.
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

    fn too_large(&self, max: u32, what: &str) -> Result<(), CountError> {
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

/// Counts the placements of `problem` (and the distinct ones when `distinct`) in `shard`,
/// on the current rayon pool.
///
/// ```
/// use nqueens::count::{Kind, Piece, Problem, Rules, Shard, count};
/// let queens = Problem::new(8, Rules::new(Piece::Queen, Kind::Regular), vec![])?;
/// let t = count(&queens, true, Shard::WHOLE)?;
/// assert_eq!((t.count.to_string(), t.distinct.unwrap().to_string()), ("92".into(), "12".into()));
/// // With a queen preplaced at row 1, column 1 (0-based squares).
/// let corner = Problem::new(8, Rules::new(Piece::Queen, Kind::Regular), vec![(0, 0)])?;
/// assert_eq!(count(&corner, false, Shard::WHOLE)?.count.to_string(), "4");
/// # Ok::<(), nqueens::count::CountError>(())
/// ```
pub fn count(problem: &Problem, distinct: bool, shard: Shard) -> Result<Tally, CountError> {
    let never = Stop::never();
    count_until(problem, distinct, shard, &never).map(|t| t.expect("never stopped"))
}

/// [`count`], ended early by `stop` (a deadline, or a flag raised by Ctrl-C): `Ok(None)`
/// when it stopped the count first. It is polled before each work item, so a count stops
/// within the time of the items under way (milliseconds on the long counts).
///
/// ```
/// use nqueens::count::{Kind, Piece, Problem, Rules, Shard, count_until};
/// use nqueens::stop::Stop;
/// use std::sync::{Arc, atomic::AtomicBool};
/// let queens = Problem::new(10, Rules::new(Piece::Queen, Kind::Regular), vec![])?;
/// let flag = Arc::new(AtomicBool::new(false));
/// let stop = Stop::new(None, Some(flag.clone()));
/// assert_eq!(count_until(&queens, false, Shard::WHOLE, &stop)?.unwrap().count.to_string(), "724");
/// stop.raise(); // as a Ctrl-C handler would
/// assert!(count_until(&queens, false, Shard::WHOLE, &stop)?.is_none());
/// # Ok::<(), nqueens::count::CountError>(())
/// ```
pub fn count_until(
    problem: &Problem,
    distinct: bool,
    shard: Shard,
    stop: &Stop,
) -> Result<Option<Tally>, CountError> {
    let p = problem;
    let halt = Halt::new(stop);
    let tally = count_items(p, distinct, shard, &halt)?;
    Ok((!halt.stopped()).then_some(tally))
}

/// A [`Stop`] polled before each work item, remembering whether it ended the count (then
/// the items left were skipped and the sum is not the count).
struct Halt<'a> {
    stop: &'a Stop,
    hit: AtomicBool,
}

impl<'a> Halt<'a> {
    fn new(stop: &'a Stop) -> Halt<'a> {
        Halt {
            stop,
            hit: AtomicBool::new(false),
        }
    }

    /// Whether to count the next item.
    fn go(&self) -> bool {
        if self.hit.load(Ordering::Relaxed) || self.stop.now() {
            self.hit.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Whether the stop came.
    fn stopped(&self) -> bool {
        self.hit.load(Ordering::Relaxed)
    }
}

/// The body of [`count_until`]: every engine counts the items `halt` lets through.
fn count_items(
    p: &Problem,
    distinct: bool,
    shard: Shard,
    halt: &Halt,
) -> Result<Tally, CountError> {
    if let Some(conflict) = p.conflict() {
        return Ok(Tally {
            count: BigUint::ZERO,
            distinct: distinct.then_some(BigUint::ZERO),
            method: Method::Conflict,
            items: 0,
            conflict: Some(conflict),
        });
    }
    if let Some(items) = resumable::ItemCount::new(p, distinct, shard) {
        let total = items.run(&resumable::Hooks::until(halt.stop));
        halt.hit.fetch_or(total.is_none(), Ordering::Relaxed);
        return Ok(items.tally(total.unwrap_or(0) as u128));
    }
    let (piece, kind) = (p.rules.piece, p.rules.kind);
    match (piece, kind, distinct) {
        (Piece::Rook, Kind::Regular, false) => {
            p.too_large(MAX_ROOK_N, "regular rooks")?;
            let count = if shard.takes(0) {
                p.orders_per_placement()
            } else {
                BigUint::ZERO
            };
            Ok(tally(count, None, Method::Factorial, 1))
        }
        (Piece::Bishop, Kind::Regular, false) => {
            p.too_large(MAX_BISHOP_N, "regular bishops")?;
            Ok(bishop_colours(p, shard))
        }
        (Piece::Bishop, _, _) => {
            p.too_large(
                MAX_SQUARES_N,
                "super and awesome bishops, and bishops up to symmetry",
            )?;
            Ok(squares(p, distinct, shard, halt))
        }
        // Burnside's distinct count is not a sum over items, so a sharded `--distinct`
        // takes Takaken's search, whose class counts are.
        (Piece::Queen, Kind::Regular, _)
            if p.placed.is_empty() && (takaken::MIN_N..=takaken::MAX_N).contains(&p.n) =>
        {
            let items = takaken::items(p.n);
            let meter = crate::progress::meter();
            meter.start_items((0..items.len()).filter(|&i| shard.takes(i)).count() as u64);
            let classes = takaken::sum(
                items
                    .par_iter()
                    .enumerate()
                    .filter(|(i, _)| shard.takes(*i) && halt.go())
                    .map(|(_, item)| {
                        let r = takaken::run(item);
                        meter.item_done();
                        r
                    })
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            Ok(tally(
                BigUint::from(classes.total()),
                distinct.then(|| BigUint::from(classes.distinct())),
                Method::Symmetry,
                items.len(),
            ))
        }
        // Beyond the constellation engine only the plain row search is left, and no one
        // has counted past n = 27: a count that cannot finish is refused, not started.
        (Piece::Queen, Kind::Regular, _) if p.placed.is_empty() && p.n > constellations::MAX_N => {
            Err(CountError::TooLarge {
                n: p.n,
                max: constellations::MAX_N,
                what: "regular queens on an empty board: the largest n ever counted is 27, \
and n = 31 would take millennia here; preplace queens (--place, --from) or find one \
placement (--first)"
                    .into(),
            })
        }
        (Piece::Queen, Kind::Regular, false)
            if p.n > MAX_ROW_N && p.n as usize - p.placed.len() <= crate::exact::MAX_FREE =>
        {
            Ok(free_rows_only(p, shard, halt))
        }
        _ => {
            p.too_large(MAX_ROW_N, "queens and rooks")?;
            Ok(with_lines!(p.rules, one_per_line(p, distinct, shard, halt)))
        }
    }
}

fn tally(count: BigUint, distinct: Option<BigUint>, method: Method, items: usize) -> Tally {
    Tally {
        count,
        distinct,
        method,
        items,
        conflict: None,
    }
}

/// Regular queens on a large board with few free rows: the exact engine over the residual.
fn free_rows_only(p: &Problem, shard: Shard, halt: &Halt) -> Tally {
    let queens: Vec<(u64, u64)> = p
        .placed
        .iter()
        .map(|&(r, c)| (r as u64 + 1, c as u64 + 1))
        .collect();
    let res = crate::exact::Residual::from_queens(p.n as u64, &queens);
    let done = crate::exact::count(&res, &|i| shard.takes(i), halt.stop);
    halt.hit
        .fetch_or(done.completions.is_none(), Ordering::Relaxed);
    let count = done.completions.unwrap_or(0);
    tally(BigUint::from(count), None, Method::Residual, done.items)
}

fn bishop_colours(p: &Problem, shard: Shard) -> Tally {
    let (d1, d2) = bishops::used_lines(p.n, &p.placed);
    let white = bishops::colour_ways(p.n, 0, &d1, &d2);
    let black = bishops::colour_ways(p.n, 1, &d1, &d2);
    let need = (p.n as usize).saturating_sub(p.placed.len());
    let mut count = BigUint::ZERO;
    for k in (0..=need).filter(|&k| shard.takes(k)) {
        if let (Some(w), Some(b)) = (white.get(k), black.get(need - k)) {
            count += w * b;
        }
    }
    tally(count, None, Method::BishopColours, need + 1)
}

fn squares(p: &Problem, distinct: bool, shard: Shard, halt: &Halt) -> Tally {
    let board = SquareBoard::new(p.n, p.rules, &p.placed);
    let items = board.items();
    let group: Vec<Symmetry> = Symmetry::all().collect();
    let (count, classes) = items
        .par_iter()
        .enumerate()
        .filter(|(i, _)| shard.takes(*i) && halt.go())
        .map(|(_, &(first, cand, need))| {
            if !distinct {
                return (board.count(cand, need) as u128, 0u128);
            }
            let mut chosen: Vec<u16> = board.placed.iter().copied().chain(first).collect();
            let (mut all, mut least) = (0u128, 0u128);
            let mut sorted = Vec::new();
            let mut image = Vec::new();
            board.each(cand, need, &mut chosen, &mut |set| {
                all += 1;
                sorted.clear();
                sorted.extend_from_slice(set);
                sorted.sort_unstable();
                least += symmetry::is_least_squares(p.n, &sorted, &group, &board.placed, &mut image)
                    as u128;
                true
            });
            (all, least)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    tally(
        BigUint::from(count),
        distinct.then(|| BigUint::from(classes)),
        Method::Squares,
        items.len(),
    )
}

/// Queens and rooks. With nothing preplaced, only placements whose first rows lie left of the
/// mirror line are searched and count twice (for odd n, a middle first piece is followed by a
/// left second one); distinct placements are those least among all their images, and the
/// least image of every placement is among those searched.
fn one_per_line<L: Lines>(p: &Problem, distinct: bool, shard: Shard, halt: &Halt) -> Tally {
    let board = RowBoard::new(p.n, p.rules, &p.placed);
    let mirror = p.placed.is_empty() && p.n > 1;
    let mut items = prefixes::<L>(&board, if mirror { 2 } else { 0 });
    let half = board.n / 2;
    if mirror {
        items.retain(|(_, path)| {
            let first = path[0] as usize;
            first < half || (board.n % 2 == 1 && first == half && (path[1] as usize) < half)
        });
    }
    let weight: u128 = if mirror { 2 } else { 1 };
    let group: Vec<Symmetry> = Symmetry::all().collect();
    let (count, least) = items
        .par_iter()
        .enumerate()
        .filter(|(i, _)| shard.takes(*i) && halt.go())
        .map(|(_, (state, path))| {
            if !distinct {
                return (weight * state.count(&board) as u128, 0);
            }
            let (all, least) = least_completions(&board, *state, path, &group, &p.placed);
            (weight * all, least)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    tally(
        BigUint::from(count),
        distinct.then(|| BigUint::from(least)),
        if mirror { Method::Mirror } else { Method::Rows },
        items.len(),
    )
}

/// Prefixes of the row search (at least `min_depth` rows, more until every core has plenty of
/// work), in a fixed order.
fn prefixes<L: Lines>(board: &RowBoard, min_depth: usize) -> Vec<(RowState<L>, Vec<u8>)> {
    let start = RowState::<L>::start(board);
    let mut out = Vec::new();
    for depth in min_depth.min(board.n)..=board.n {
        out.clear();
        start.expand(board, depth, &mut out, &mut Vec::new());
        if out.len() >= 4096 || out.is_empty() {
            break;
        }
    }
    out
}

/// Completions of `state` (whose rows so far are `path`): all of them, and those least among
/// their images under `group` that keep `required`.
fn least_completions<L: Lines>(
    board: &RowBoard,
    state: RowState<L>,
    path: &[u8],
    group: &[Symmetry],
    required: &[(u32, u32)],
) -> (u128, u128) {
    let mut cols = vec![0u8; board.n];
    cols[..path.len()].copy_from_slice(path);
    let mut image = vec![0u8; board.n];
    let (mut all, mut least) = (0u128, 0u128);
    state.each(board, &mut cols, &mut |cols| {
        all += 1;
        least += symmetry::is_least_rows(cols, group, required, &mut image) as u128;
        true
    });
    (all, least)
}

/// The first placement in the engines' order (rows top to bottom, columns left to right), or
/// `None` when there is none. Regular queens on boards over 32 come from the completion engine
/// instead, which reaches any n; their placement is then a valid one, not the first.
pub fn first(p: &Problem) -> Result<Option<Vec<(u32, u32)>>, CountError> {
    if p.conflict().is_some() {
        return Ok(None);
    }
    if p.rules == Rules::new(Piece::Queen, Kind::Regular) && p.n > 32 {
        return Ok(first_by_completion(p));
    }
    if p.rules.one_per_line() {
        p.too_large(MAX_ROW_N, "a first placement of these pieces")?;
        return Ok(with_lines!(p.rules, first_rows(p)));
    }
    p.too_large(MAX_SQUARES_N, "a first placement of bishops")?;
    let board = SquareBoard::new(p.n, p.rules, &p.placed);
    let mut found = None;
    let mut chosen = board.placed.clone();
    board.each(board.free, board.need, &mut chosen, &mut |set| {
        let mut s = set.to_vec();
        s.sort_unstable();
        found = Some(
            s.iter()
                .map(|&s| (s as u32 / p.n, s as u32 % p.n))
                .collect(),
        );
        false
    });
    Ok(found)
}

fn first_rows<L: Lines>(p: &Problem) -> Option<Vec<(u32, u32)>> {
    let board = RowBoard::new(p.n, p.rules, &p.placed);
    let mut cols = vec![0u8; board.n];
    let mut found = None;
    RowState::<L>::start(&board).each(&board, &mut cols, &mut |cols| {
        found = Some(
            cols.iter()
                .enumerate()
                .map(|(r, &c)| (r as u32, c as u32))
                .collect(),
        );
        false
    });
    found
}

fn first_by_completion(p: &Problem) -> Option<Vec<(u32, u32)>> {
    let mut rows = vec![0u32; p.n as usize];
    for &(r, c) in &p.placed {
        rows[r as usize] = c + 1;
    }
    let opts = crate::complete::Options::new(0);
    match crate::complete::complete_rows(&rows, &opts)? {
        (crate::complete::Answer::Solved, rows, _) => Some(
            rows.iter()
                .enumerate()
                .map(|(r, &c)| (r as u32, c - 1))
                .collect(),
        ),
        _ => None,
    }
}
