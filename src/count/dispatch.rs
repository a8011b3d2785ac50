//! Which engine counts a problem, and the engines' shared plumbing: stopping, work
//! items, prefixes of the row search, and the first placement.

use super::row_search::{Lines, RowBoard, RowState, with_lines};
use super::squares::SquareBoard;
use super::symmetry::Symmetry;
use super::*;
use crate::stop::Stop;
use num_bigint::BigUint;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

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
pub(super) struct Halt<'a> {
    stop: &'a Stop,
    hit: AtomicBool,
}

impl<'a> Halt<'a> {
    pub(super) fn new(stop: &'a Stop) -> Halt<'a> {
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
pub(super) fn count_items(
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
        (Piece::Rook, Kind::Regular, true) if p.placed.is_empty() => {
            p.too_large(MAX_ROOK_N, "regular rooks")?;
            let (count, distinct) = if shard.takes(0) {
                super::rooks::up_to_symmetry(p.n)
            } else {
                (BigUint::ZERO, BigUint::ZERO)
            };
            Ok(tally(count, Some(distinct), Method::Factorial, 1))
        }
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
        (Piece::Bishop, Kind::Regular, true) if p.placed.is_empty() => {
            p.too_large(bishops::MAX_SYMMETRY_N, "regular bishops up to symmetry")?;
            let stop = || !halt.go();
            let counted = if shard.takes(0) {
                bishops::up_to_symmetry(p.n, &stop)
            } else {
                Some((BigUint::ZERO, BigUint::ZERO))
            };
            let (count, distinct) = counted.unwrap_or_default();
            Ok(tally(count, Some(distinct), Method::BishopColours, 1))
        }
        (Piece::Bishop, _, _) => {
            p.too_large(
                MAX_SQUARES_N,
                "super and awesome bishops, and regular bishops up to symmetry with pieces placed",
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

pub(super) fn tally(
    count: BigUint,
    distinct: Option<BigUint>,
    method: Method,
    items: usize,
) -> Tally {
    Tally {
        count,
        distinct,
        method,
        items,
        conflict: None,
    }
}

/// Regular queens on a large board with few free rows: the exact engine over the residual.
pub(super) fn free_rows_only(p: &Problem, shard: Shard, halt: &Halt) -> Tally {
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

pub(super) fn bishop_colours(p: &Problem, shard: Shard) -> Tally {
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

pub(super) fn squares(p: &Problem, distinct: bool, shard: Shard, halt: &Halt) -> Tally {
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
pub(super) fn one_per_line<L: Lines>(
    p: &Problem,
    distinct: bool,
    shard: Shard,
    halt: &Halt,
) -> Tally {
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
pub(super) fn prefixes<L: Lines>(
    board: &RowBoard,
    min_depth: usize,
) -> Vec<(RowState<L>, Vec<u8>)> {
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
pub(super) fn least_completions<L: Lines>(
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

pub(super) fn first_rows<L: Lines>(p: &Problem) -> Option<Vec<(u32, u32)>> {
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

pub(super) fn first_by_completion(p: &Problem) -> Option<Vec<(u32, u32)>> {
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
