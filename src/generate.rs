//! Building boards: solutions from explicit sources (the classic construction, its
//! transpose and mirror image, linear solutions), and compositions made by clearing part of
//! a file's queens: a random subset (the seed paper's test protocol) or a structured part
//! (a block of rows, a stride, a band of columns or diagonals, a square region), the shapes
//! of compositions users hold.

use crate::board::{Bitmap, LineBitmaps};
use crate::closed_form::{constructed_column, constructed_row, linear_column, linear_exists};
use crate::format::{FormatError, Input, RowWriter};
use crate::rng::Rng;
use rayon::prelude::*;

/// Rows computed per parallel batch while streaming a constructed solution.
const BATCH_ROWS: u64 = 1 << 22;

/// Why no solution can be built.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// n = 2 and n = 3 have no solution.
    #[error("no solution exists for n = {0}")]
    NoSolution(u64),
    /// n out of range.
    #[error("n = {0} is out of range 1..=4294967295")]
    BadN(u64),
    /// Asked to keep more queens than the source has.
    #[error("cannot keep {keep} queens: {path} has {have}")]
    TooMany {
        /// Requested.
        keep: u64,
        /// Available.
        have: u64,
        /// The source file.
        path: String,
    },
    /// No linear solution q(i) = a i mod n for this n and a.
    #[error(
        "no linear solution q(i) = {a} i mod {n}: a, a - 1 and a + 1 must all be prime to n \
         (linear solutions exist only when n is prime to 6)"
    )]
    NoLinear {
        /// Board size.
        n: u64,
        /// The multiplier asked for.
        a: u64,
    },
    /// A clearing that does not fit the board.
    #[error("{0}")]
    BadClearing(String),
    /// Reading or writing failed.
    #[error(transparent)]
    Format(#[from] FormatError),
}

/// Where a solution comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The explicit construction (Hoffman, Loessi and Moore).
    Construction,
    /// The construction's transpose (row and column exchanged): the inverse permutation.
    Transposed,
    /// The construction's mirror image (column j becomes n + 1 - j).
    Mirrored,
    /// The linear solution q(i) = a (i - 1) mod n + 1, which exists when a, a - 1 and
    /// a + 1 are all prime to n (so only for n prime to 6).
    Linear {
        /// The multiplier.
        a: u64,
    },
}

impl Source {
    /// Checks that this source has a solution of size `n`.
    pub fn check(self, n: u64) -> Result<(), GenerateError> {
        check_solvable(n)?;
        if let Source::Linear { a } = self
            && n > 1
            && !linear_exists(n, a)
        {
            return Err(GenerateError::NoLinear { n, a });
        }
        Ok(())
    }

    /// The column (1-based) of row `row` (1-based) of this source's solution of size `n`.
    pub fn column(self, n: u64, row: u64) -> u64 {
        match self {
            Source::Construction => constructed_column(n, row),
            Source::Transposed => constructed_row(n, row),
            Source::Mirrored => n + 1 - constructed_column(n, row),
            Source::Linear { a } => linear_column(n, a, 0, row),
        }
    }
}

/// Checks that a constructed solution exists for `n`.
pub fn check_solvable(n: u64) -> Result<(), GenerateError> {
    match n {
        0 => Err(GenerateError::BadN(0)),
        2 | 3 => Err(GenerateError::NoSolution(n)),
        n if n > crate::board::MAX_N => Err(GenerateError::BadN(n)),
        _ => Ok(()),
    }
}

/// Streams the constructed solution of size `n` into `out`, computing batches in parallel.
pub fn write_constructed_solution(n: u64, out: &mut RowWriter) -> Result<(), GenerateError> {
    write_solution(Source::Construction, n, out)
}

/// Streams `source`'s solution of size `n` into `out`, computing batches in parallel.
///
/// ```
/// use nqueens::format::{Input, OutputFormat, RowWriter};
/// use nqueens::generate::{Source, write_solution};
/// let path = std::env::temp_dir().join(format!("solution-doc-{}.nqb", std::process::id()));
/// let mut out = RowWriter::create(&path, 1_000_003, OutputFormat::from_path(&path))?;
/// write_solution(Source::Construction, 1_000_003, &mut out)?;
/// out.finish()?.commit()?;
/// let report = nqueens::verify::verify(&Input::open(&path)?, Default::default())?;
/// assert!(report.is_solution());
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_solution(source: Source, n: u64, out: &mut RowWriter) -> Result<(), GenerateError> {
    solution_batches(source, n, |rows| Ok(out.write_rows(rows)?))
}

/// `source`'s solution of size `n` in memory (`rows[i - 1]` = column of row i), computed
/// in parallel: what [`write_solution`] writes.
///
/// ```
/// use nqueens::generate::{Source, solution_rows};
/// let rows = solution_rows(Source::Construction, 8)?;
/// assert!(nqueens::verify::verify_rows(&rows, Default::default())?.is_solution());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn solution_rows(source: Source, n: u64) -> Result<Vec<u32>, GenerateError> {
    source.check(n)?;
    let mut all = Vec::with_capacity(n as usize);
    solution_batches(source, n, |rows| {
        all.extend_from_slice(rows);
        Ok(())
    })?;
    Ok(all)
}

/// `source`'s solution of size `n`, a batch of rows at a time, in row order.
fn solution_batches(
    source: Source,
    n: u64,
    mut f: impl FnMut(&[u32]) -> Result<(), GenerateError>,
) -> Result<(), GenerateError> {
    source.check(n)?;
    let mut first = 0;
    let mut rows = Vec::new();
    while first < n {
        let count = BATCH_ROWS.min(n - first);
        rows.clear();
        (0..count as usize)
            .into_par_iter()
            .map(|i| source.column(n, first + 1 + i as u64) as u32)
            .collect_into_vec(&mut rows);
        f(&rows)?;
        first += count;
    }
    Ok(())
}

/// How many queens to keep: `keep`, or uniformly random in 1..=have-1 (the paper's
/// protocol), drawn from `rng`.
pub(crate) fn choose_keep(keep: Option<u64>, have: u64, rng: &mut Rng) -> u64 {
    keep.unwrap_or_else(|| {
        if have < 2 {
            have.min(1)
        } else {
            1 + rng.below(have - 1)
        }
    })
}

/// What a composition clears from its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clearing {
    /// A random subset: `keep` of the source's `have` queens are kept (chosen uniformly
    /// among all subsets of that size), or a random number of them when `keep` is `None`
    /// (the seed paper's protocol).
    Random {
        /// Queens of the source.
        have: u64,
        /// Queens to keep.
        keep: Option<u64>,
    },
    /// The queens inside a structured part.
    Region(Region),
}

/// What [`write_composition`] made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Made {
    /// Queens kept.
    pub kept: u64,
    /// Queens cleared.
    pub cleared: u64,
    /// Given queens moved afterwards (fewer than asked when no other row had a cell to
    /// move to).
    pub moved: u64,
}

/// The composition's rows, a segment of the source at a time (`f(first_row, rows)`, rows
/// 1-based), in row order; the same rows on every call with the same arguments. Returns
/// the queens kept and cleared.
fn cleared_rows(
    source: &Input,
    clearing: Clearing,
    seed: u64,
    mut f: impl FnMut(u64, &mut [u32]) -> Result<(), GenerateError>,
) -> Result<(u64, u64), GenerateError> {
    let n = source.n();
    // Random clearing: selection sampling in row order, so that the input streams through
    // once.
    let mut rng = Rng::seeded(seed, &[10]);
    let (mut needed, mut remaining) = match clearing {
        Clearing::Random { have, keep } => {
            let keep = choose_keep(keep, have, &mut rng);
            if keep > have {
                return Err(GenerateError::TooMany {
                    keep,
                    have,
                    path: source.path().display().to_string(),
                });
            }
            (keep, have)
        }
        Clearing::Region(_) => (0, 0),
    };
    let (mut kept, mut cleared) = (0, 0);
    let mut scratch = Vec::new();
    let mut rows = Vec::new();
    let mut row = 1;
    for s in 0..source.segment_count() {
        let bytes = source.segment(s, &mut scratch)?;
        rows.clear();
        let first = row;
        for v in crate::format::le::to_rows(bytes) {
            let keep = v != 0
                && match clearing {
                    Clearing::Random { .. } => {
                        let take = needed > 0 && rng.below(remaining) < needed;
                        remaining -= 1;
                        needed -= take as u64;
                        take
                    }
                    Clearing::Region(region) => !region.contains(n, row, v as u64),
                };
            kept += keep as u64;
            cleared += (v != 0 && !keep) as u64;
            rows.push(if keep { v } else { 0 });
            row += 1;
        }
        f(first, &mut rows)?;
    }
    Ok((kept, cleared))
}

/// Writes the composition of `source` with `clearing` cleared, then `moves` of the kept
/// queens moved, one after another, each to another cell of its row that attacks no queen
/// (a solution edited by hand). Every random choice comes from `seed`.
pub fn write_composition(
    source: &Input,
    clearing: Clearing,
    moves: u64,
    seed: u64,
    out: &mut RowWriter,
) -> Result<Made, GenerateError> {
    composition_segments(source, clearing, moves, seed, |rows| {
        Ok(out.write_rows(rows)?)
    })
}

/// The composition [`write_composition`] writes, in memory (`rows[i - 1]` = column of
/// row i, 0 = empty): the same rows for the same arguments.
///
/// ```
/// use nqueens::format::Input;
/// use nqueens::generate::{Clearing, Source, composition_rows, solution_rows};
/// let solution = solution_rows(Source::Construction, 100)?;
/// let source = Input::from_rows("solution".as_ref(), "memory", &solution)?;
/// let clearing = Clearing::Random { have: 100, keep: Some(60) };
/// let (rows, made) = composition_rows(&source, clearing, 0, 7)?;
/// assert_eq!((made.kept, made.cleared), (60, 40));
/// assert_eq!(rows.iter().filter(|&&c| c != 0).count(), 60);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn composition_rows(
    source: &Input,
    clearing: Clearing,
    moves: u64,
    seed: u64,
) -> Result<(Vec<u32>, Made), GenerateError> {
    let mut all = Vec::with_capacity(source.n() as usize);
    let made = composition_segments(source, clearing, moves, seed, |rows| {
        all.extend_from_slice(rows);
        Ok(())
    })?;
    Ok((all, made))
}

/// The body of [`write_composition`]: the composition's rows go to `sink` in row order.
fn composition_segments(
    source: &Input,
    clearing: Clearing,
    moves: u64,
    seed: u64,
    mut sink: impl FnMut(&[u32]) -> Result<(), GenerateError>,
) -> Result<Made, GenerateError> {
    if moves == 0 {
        let write = |_: u64, rows: &mut [u32]| sink(rows);
        let (kept, cleared) = cleared_rows(source, clearing, seed, write)?;
        return Ok(Made {
            kept,
            cleared,
            moved: 0,
        });
    }
    // A first pass marks the composition's lines; the moves are chosen on them, then the
    // composition is streamed again with the moves applied.
    let n = source.n();
    let mut lines = LineBitmaps::new(n);
    let mut columns_of_moved = Vec::new();
    let mut given = Bitmap::new(n + 1);
    let mut given_rows = 0;
    cleared_rows(source, clearing, seed, |first, rows| {
        for (k, &v) in rows.iter().enumerate() {
            if v != 0 {
                lines.mark(first + k as u64, u64::from(v));
                given.set(first + k as u64);
                given_rows += 1;
            }
        }
        Ok(())
    })?;
    // No more queens move than are kept (each row is tried once).
    let moved = choose_moves(
        source,
        &mut lines,
        (&given, given_rows),
        moves.min(given_rows),
        seed,
        &mut columns_of_moved,
    )?;
    drop(lines);
    columns_of_moved.sort_unstable();
    let (kept, cleared) = cleared_rows(source, clearing, seed, |first, rows| {
        let last = first + rows.len() as u64;
        let from = columns_of_moved.partition_point(|&(r, _)| r < first);
        for &(r, c) in columns_of_moved[from..]
            .iter()
            .take_while(|&&(r, _)| r < last)
        {
            rows[(r - first) as usize] = c as u32;
        }
        sink(rows)
    })?;
    Ok(Made {
        kept,
        cleared,
        moved,
    })
}

/// Tries given rows (marked in `given`, `given_rows` of them, their lines in `lines`) drawn at random until
/// `moves` of them have moved to another cell of their row that attacks no queen, or
/// until the tries run out; pushes (row, new column) onto `moved`, and returns how many.
fn choose_moves(
    source: &Input,
    lines: &mut LineBitmaps<Bitmap>,
    (given, given_rows): (&Bitmap, u64),
    moves: u64,
    seed: u64,
    moved: &mut Vec<(u64, u64)>,
) -> Result<u64, GenerateError> {
    let n = source.n();
    let mut rng = Rng::seeded(seed, &[12]);
    let mut free_columns = Vec::new();
    lines.columns.for_each_clear(1, n + 1, |j| {
        free_columns.push(j);
        true
    });
    let mut cache = crate::format::SegmentCache::default();
    // Rows tried already (moved, or without another cell).
    let mut seen = std::collections::HashSet::new();
    let mut done = 0;
    for _ in 0..MOVE_TRIES_PER_MOVE.saturating_mul(moves) {
        // Done, or every given row tried.
        if done == moves || seen.len() as u64 == given_rows {
            break;
        }
        let row = 1 + rng.below(n);
        if !given.get(row) || !seen.insert(row) {
            continue;
        }
        let mut one = [0u32];
        source.read_rows(row - 1, &mut one, &mut cache)?;
        let old = u64::from(one[0]);
        lines.unmark(row, old);
        let open: Vec<usize> = (0..free_columns.len())
            .filter(|&k| lines.diagonals_free(row, free_columns[k]))
            .collect();
        if open.is_empty() {
            lines.mark(row, old);
            continue;
        }
        let k = open[rng.index(open.len())];
        // (Each move scans the free columns: meant for a few edits, up to thousands.)
        let new = std::mem::replace(&mut free_columns[k], old);
        lines.mark(row, new);
        moved.push((row, new));
        done += 1;
    }
    Ok(done)
}

/// Rows tried per move asked for before [`choose_moves`] gives up on the rest.
const MOVE_TRIES_PER_MOVE: u64 = 1000;

/// A direction of diagonals: D1 (index n + j - i, constant along a falling diagonal) or
/// D2 (index i + j).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Index n + j - i, 1..=2n-1.
    D1,
    /// Index i + j, 2..=2n.
    D2,
}

/// The kinds of structured part a composition can be cleared of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A run of consecutive rows.
    Block,
    /// Every s-th row.
    Stride,
    /// A band of consecutive columns.
    Columns,
    /// A band of consecutive diagonals of one direction.
    Diagonals(Direction),
    /// A square of rows x columns.
    Square,
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let last = |start: u64, len: u64| start + len - 1;
        match *self {
            Region::Rows { start, len } => write!(f, "rows {start}..={}", last(start, len)),
            Region::Stride { first, step } => {
                write!(
                    f,
                    "every {step}{} row from row {first}",
                    ordinal_suffix(step)
                )
            }
            Region::Columns { start, len } => write!(f, "columns {start}..={}", last(start, len)),
            Region::Diagonals {
                direction,
                start,
                len,
            } => write!(
                f,
                "{} diagonals {start}..={}",
                match direction {
                    Direction::D1 => "D1 (n + j - i)",
                    Direction::D2 => "D2 (i + j)",
                },
                last(start, len)
            ),
            Region::Square { row, col, side } => write!(
                f,
                "the square rows {row}..={} x columns {col}..={}",
                last(row, side),
                last(col, side)
            ),
        }
    }
}

/// A structured part of an n-board: the queens inside it are cleared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Rows `start..start + len`.
    Rows {
        /// First row (1-based).
        start: u64,
        /// Rows.
        len: u64,
    },
    /// Rows `first, first + step, first + 2 step, ...`.
    Stride {
        /// First row (1-based).
        first: u64,
        /// Distance between rows.
        step: u64,
    },
    /// Columns `start..start + len`.
    Columns {
        /// First column (1-based).
        start: u64,
        /// Columns.
        len: u64,
    },
    /// Diagonals of `direction` with index `start..start + len`.
    Diagonals {
        /// Which diagonals.
        direction: Direction,
        /// First index.
        start: u64,
        /// Diagonals.
        len: u64,
    },
    /// Rows `row..row + side` x columns `col..col + side`.
    Square {
        /// First row.
        row: u64,
        /// First column.
        col: u64,
        /// Side.
        side: u64,
    },
}

impl Shape {
    /// The region of this shape and `size` (rows, columns or diagonals; about `size` rows
    /// for a stride; for a square, the side sqrt(size n), which holds about `size` queens of
    /// a random solution) on an n-board, starting at `at` or, without it, at a place drawn
    /// from `seed`: anywhere on the board for rows, columns and squares, a
    /// random row of the first stride for strides, and for diagonals a band inside the
    /// board's middle half of indices (where diagonals are long), or as near as it fits.
    pub fn region(
        self,
        n: u64,
        size: u64,
        at: Option<u64>,
        seed: u64,
    ) -> Result<Region, GenerateError> {
        let mut rng = Rng::seeded(seed, &[11]);
        let bad = |what: String| Err(GenerateError::BadClearing(what));
        let size = if self == Shape::Square {
            ((size as f64 * n as f64).sqrt().round() as u64).clamp(1, n)
        } else {
            size
        };
        if size == 0 {
            return bad("the part to clear is empty (size 0)".into());
        }
        // First and last allowed index of the region's lines, and where it may start by
        // default.
        let (lo, hi, default_lo, default_hi) = match self {
            Shape::Block | Shape::Columns | Shape::Square => (1, n, 1, n),
            Shape::Stride => (1, n, 1, n),
            Shape::Diagonals(d) => {
                let lo = if d == Direction::D1 { 1 } else { 2 };
                (lo, lo + 2 * n - 2, lo + n / 2, lo + n / 2 + n)
            }
        };
        if self == Shape::Stride {
            if size > n {
                return bad(format!("cannot clear {size} rows of {n}"));
            }
            let step = n / size;
            let first = match at {
                Some(f) if (1..=step).contains(&f) => f,
                Some(f) => {
                    return bad(format!(
                        "a stride of {step} starts at row 1..={step}, not {f}"
                    ));
                }
                None => rng.between(1, step),
            };
            return Ok(Region::Stride { first, step });
        }
        let span = hi - lo + 1;
        if size > span {
            return bad(format!(
                "a part of size {size} does not fit: only {span} lines"
            ));
        }
        let start = match at {
            // Checked: a start near 2^64 wrapped past the end and cleared nothing.
            Some(a) if a >= lo && a.checked_add(size - 1).is_some_and(|end| end <= hi) => a,
            Some(a) => {
                return bad(format!(
                    "a part of size {size} starting at {a} leaves the range {lo}..={hi}"
                ));
            }
            None => {
                // Inside the default range if it fits, else anywhere it fits.
                let (default_lo, default_hi) = (default_lo.max(lo), default_hi.min(hi));
                let (l, h) = if default_hi >= default_lo && size <= default_hi - default_lo + 1 {
                    (default_lo, default_hi + 1 - size)
                } else {
                    (lo, hi + 1 - size)
                };
                rng.between(l, h)
            }
        };
        Ok(match self {
            Shape::Block => Region::Rows { start, len: size },
            Shape::Columns => Region::Columns { start, len: size },
            Shape::Diagonals(direction) => Region::Diagonals {
                direction,
                start,
                len: size,
            },
            Shape::Square => {
                let col = match at {
                    Some(a) => a,
                    None => rng.between(1, n + 1 - size),
                };
                Region::Square {
                    row: start,
                    col,
                    side: size,
                }
            }
            Shape::Stride => unreachable!("returned above"),
        })
    }
}

impl Region {
    /// The square of `size` (as in [`Shape::region`]) centred on (`row`, `col`), moved
    /// inside the board where it would leave it.
    pub fn square_around(n: u64, size: u64, row: u64, col: u64) -> Region {
        let side = ((size as f64 * n as f64).sqrt().round() as u64).clamp(1, n);
        let start = |x: u64| x.saturating_sub(side / 2).clamp(1, n + 1 - side);
        Region::Square {
            row: start(row),
            col: start(col),
            side,
        }
    }

    /// Whether the square (`row`, `col`) of an n-board lies in the region.
    pub fn contains(&self, n: u64, row: u64, col: u64) -> bool {
        let within = |x: u64, start: u64, len: u64| x >= start && x - start < len;
        match *self {
            Region::Rows { start, len } => within(row, start, len),
            Region::Stride { first, step } => row >= first && (row - first).is_multiple_of(step),
            Region::Columns { start, len } => within(col, start, len),
            Region::Diagonals {
                direction,
                start,
                len,
            } => {
                let d = match direction {
                    Direction::D1 => n + col - row,
                    Direction::D2 => row + col,
                };
                within(d, start, len)
            }
            Region::Square {
                row: r,
                col: c,
                side,
            } => within(row, r, side) && within(col, c, side),
        }
    }
}

/// A queen of `source`: the first at or after a row drawn from `seed`, cyclically; `None`
/// for an empty board.
pub fn random_queen(source: &Input, seed: u64) -> Result<Option<(u64, u64)>, GenerateError> {
    let n = source.n();
    if n == 0 {
        return Ok(None);
    }
    let mut rng = Rng::seeded(seed, &[12]);
    let start = rng.below(n);
    let (per, segments) = (source.segment_rows(), source.segment_count());
    let mut scratch = Vec::new();
    for k in 0..=segments {
        let s = (start / per + k) % segments;
        let bytes = source.segment(s, &mut scratch)?;
        let skip = if k == 0 { (start % per) as usize } else { 0 };
        let rows = crate::format::le::to_rows(bytes)
            .into_iter()
            .enumerate()
            .skip(skip);
        for (i, v) in rows {
            if v != 0 {
                return Ok(Some((s * per + i as u64 + 1, v as u64)));
            }
        }
    }
    Ok(None)
}

/// "st", "nd", "rd" or "th", as English writes after `k` (3rd, 11th, 22nd).
fn ordinal_suffix(k: u64) -> &'static str {
    match (k % 10, k % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ordinals_read_as_english_writes_them() {
        let read = |k| format!("{k}{}", super::ordinal_suffix(k));
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112]
            .map(read)
            .into();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd",
                "101st", "111th", "112th"
            ]
        );
    }

    use super::*;

    /// The oracle's check of a board of `u64` columns.
    fn is_solution(q: &[u64]) -> bool {
        let rows: Vec<u32> = q.iter().map(|&c| u32::try_from(c).unwrap()).collect();
        crate::oracle::is_solution(&rows)
    }

    #[test]
    fn construction_is_a_solution_for_every_small_n() {
        for n in (1..=300u64).filter(|&n| n == 1 || n >= 4) {
            let q: Vec<u64> = (1..=n).map(|r| constructed_column(n, r)).collect();
            assert!(q.iter().all(|&c| (1..=n).contains(&c)), "n = {n}");
            assert!(is_solution(&q), "n = {n}: {q:?}");
        }
    }

    #[test]
    fn every_source_is_a_solution_for_every_small_n() {
        for n in (1..=300u64).filter(|&n| n == 1 || n >= 4) {
            let mut sources = vec![Source::Construction, Source::Transposed, Source::Mirrored];
            if (Source::Linear { a: 2 }).check(n).is_ok() {
                sources.push(Source::Linear { a: 2 });
            }
            for src in sources {
                let q: Vec<u64> = (1..=n).map(|r| src.column(n, r)).collect();
                assert!(is_solution(&q), "n = {n}, {src:?}: {q:?}");
            }
        }
    }

    #[test]
    fn transposed_inverts_the_construction() {
        for n in (4..=200u64).chain([1]) {
            for r in 1..=n {
                assert_eq!(constructed_row(n, constructed_column(n, r)), r, "n = {n}");
            }
        }
    }

    #[test]
    fn linear_solutions_exist_exactly_when_n_is_prime_to_six() {
        for n in 4..200u64 {
            let exists = (2..n).any(|a| Source::Linear { a }.check(n).is_ok());
            assert_eq!(exists, n % 2 != 0 && n % 3 != 0, "n = {n}");
        }
        assert!(matches!(
            Source::Linear { a: 2 }.check(9),
            Err(GenerateError::NoLinear { .. })
        ));
    }

    #[test]
    fn regions_clear_what_they_say() {
        let n = 1000;
        for (shape, size) in [
            (Shape::Block, 20),
            (Shape::Stride, 50),
            (Shape::Columns, 30),
            (Shape::Diagonals(Direction::D1), 40),
            (Shape::Diagonals(Direction::D2), 40),
            (Shape::Square, 100),
        ] {
            for seed in 0..20 {
                let region = shape.region(n, size, None, seed).unwrap();
                assert_eq!(region, shape.region(n, size, None, seed).unwrap());
                let inside = |r: u64, c: u64| region.contains(n, r, c);
                let q: Vec<u64> = (1..=n).map(|r| constructed_column(n, r)).collect();
                let cleared = (1..=n).filter(|&r| inside(r, q[r as usize - 1])).count() as u64;
                match shape {
                    Shape::Block | Shape::Columns => assert_eq!(cleared, size),
                    Shape::Stride => assert!(cleared >= size && cleared <= 2 * size),
                    Shape::Diagonals(_) => assert!(cleared <= size),
                    Shape::Square => assert!(cleared <= 4 * size),
                }
            }
        }
        // Every shape fits the smallest boards, and stays on them.
        for n in [1u64, 4, 5] {
            for shape in [
                Shape::Block,
                Shape::Stride,
                Shape::Columns,
                Shape::Diagonals(Direction::D1),
                Shape::Diagonals(Direction::D2),
                Shape::Square,
            ] {
                for seed in 0..10 {
                    let r = shape.region(n, 1, None, seed).unwrap();
                    let inside = (1..=n).flat_map(|i| (1..=n).map(move |j| (i, j)));
                    let hits = inside.filter(|&(i, j)| r.contains(n, i, j)).count();
                    assert!(hits >= 1, "n = {n}, {shape:?}: {r} holds no square");
                }
            }
        }
        let at = Shape::Block.region(n, 10, Some(991), 0).unwrap();
        assert_eq!(
            at,
            Region::Rows {
                start: 991,
                len: 10
            }
        );
        assert!(Shape::Block.region(n, 10, Some(992), 0).is_err());
        // A start near 2^64 is off every range (it wrapped past the end and cleared nothing).
        for shape in [
            Shape::Block,
            Shape::Columns,
            Shape::Diagonals(Direction::D1),
            Shape::Square,
        ] {
            for at in [u64::MAX, u64::MAX - 1, u64::MAX - 8] {
                assert!(
                    shape.region(n, 10, Some(at), 0).is_err(),
                    "{shape:?} at {at}"
                );
            }
        }
        assert!(Shape::Columns.region(n, 1001, None, 0).is_err());
        assert!(Shape::Block.region(n, 0, None, 0).is_err());
    }

    #[test]
    fn no_solution_for_two_and_three() {
        assert!(check_solvable(2).is_err() && check_solvable(3).is_err());
        assert!(check_solvable(1).is_ok() && check_solvable(4).is_ok());
    }
}
