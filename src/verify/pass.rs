//! The marking pass over a file's segments, and the passes that name its first conflicts.

use super::{BaseViolation, Conflict, OutOfRange, REPORTED, Report, Requirements, Verdict};
use crate::board::{AtomicBitmap, Bitmap, LineBitmaps, lines_through};
use crate::format::nqb::row_store::{Loader, LoaderPiece};
use crate::format::nqb::{CHECKSUM_BLOCK_ROWS, PayloadHasher};
use crate::format::{ErrorKind, FormatError, Input, SegmentCache, SegmentSum};
use rayon::prelude::*;

/// The queens of a composition, as the rows that hold one and a digest of the queens
/// (an order-free sum of a strong mix of each queen's row and column): enough to check
/// that a file keeps them all without reading the composition again. The completion
/// engine's self-check uses it: reading a deflated MAT input a second time took longer
/// than the rest of the output phase.
#[derive(Clone)]
pub(crate) struct KeptQueens {
    /// Bit i set: row i (1-based) holds a queen.
    pub rows: Bitmap,
    /// Σ of [`queen_hash`] over the queens, wrapping.
    pub digest: u64,
}

/// A queen's contribution to a digest: row and column (both below 2^32) mixed by
/// MurmurHash3's 64-bit finaliser, so that no rearrangement of queens keeps the sum but by
/// chance (about 2^-64).
#[inline(always)]
pub(super) fn queen_hash(row: u64, col: u64) -> u64 {
    let mut x = row << 32 | col;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ x >> 33
}

/// Which queens a scan adds to its digest.
#[derive(Clone, Copy)]
pub(super) enum Digest<'a> {
    /// None.
    Off,
    /// Every queen (a marking pass keeping its marks, for [`KeptQueens`]).
    Queens,
    /// The file's value in every row of this set, empty or not.
    Rows(&'a Bitmap),
}

/// Findings of the parallel pass over one segment.
#[derive(Default)]
pub(super) struct SegmentFindings {
    k: u64,
    conflicts: u64,
    out_of_range: Vec<OutOfRange>,
    out_of_range_count: u64,
    base_violations: Vec<BaseViolation>,
    base_violation_count: u64,
    block_hashes: Vec<u64>,
    /// Σ of [`queen_hash`] over the queens the scan's [`Digest`] selects.
    digest: u64,
}

/// The bitmaps a verification pass fills, handed to whoever works on the board next.
pub(crate) struct Marks {
    /// Bit i set: row i holds a queen.
    pub rows: Bitmap,
    /// Columns and diagonals taken.
    pub lines: LineBitmaps<Bitmap>,
    /// Σ of [`queen_hash`] over the queens (see [`KeptQueens`]).
    pub digest: u64,
}

/// Verifies `input`; errors are for unreadable or corrupt files only (a wrong board is an
/// `Ok` report with verdict [`Verdict::Invalid`]).
///
/// ```
/// use nqueens::format::Input;
/// use nqueens::verify::{Requirements, verify};
/// let path = std::env::temp_dir().join(format!("verify-doc-{}.txt", std::process::id()));
/// std::fs::write(&path, "2\n4\n1\n3\n")?;
/// let report = verify(&Input::open(&path)?, Requirements::default())?;
/// assert!(report.is_solution());
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// With an Excluded Diagonals instance as the base (read as its reduced board), a file
/// of the instance's own m rows is checked as its board inside the reduced one: the
/// base's queens, the file's rows in the block of free rows.
pub fn verify(input: &Input, req: Requirements) -> Result<Report, FormatError> {
    if let Some(ed) = req.base.and_then(Input::excluded_diagonals)
        && input.n() == ed.m
        && input.n() != req.base.map_or(0, Input::n)
    {
        let lifted = ed.reduce().board_with(&input.to_vec()?);
        let lifted = Input::from_rows(input.path(), "excluded diagonals solution", &lifted)?;
        return verify_pass(&lifted, req, false, None).map(|(report, _)| report);
    }
    verify_pass(input, req, false, None).map(|(report, _)| report)
}

/// Verifies rows held in memory (`rows[i - 1]` = column of row i, 1-based, 0 for an empty
/// row) like [`verify`]; errs only for more rows than a board has.
///
/// ```
/// use nqueens::verify::{Verdict, verify_rows};
/// let report = verify_rows(&[2, 4, 1, 3], Default::default())?;
/// assert!(report.is_solution());
/// let report = verify_rows(&[1, 2, 0, 0], Default::default())?;
/// assert_eq!(report.verdict, Verdict::Invalid);
/// assert_eq!(report.first_problem().unwrap(), "rows 1 and 2 share a D1 diagonal (columns 1 and 2)");
/// # Ok::<(), nqueens::format::FormatError>(())
/// ```
pub fn verify_rows(rows: &[u32], req: Requirements) -> Result<Report, FormatError> {
    let input = Input::from_rows(std::path::Path::new("(memory)"), "memory", rows)?;
    verify(&input, req)
}

/// Verifies `input` like [`verify`] and, when it is a valid composition, also returns the
/// bitmaps of its rows and lines (0.75 bytes per row), copying every row into `copy` (a
/// row store) in the same pass: the completion engine loads
/// its row store this way, so that the stores overlap the marking instead of a second pass.
pub(crate) fn verify_mark_and_copy(
    input: &Input,
    req: Requirements,
    copy: Loader,
) -> Result<(Report, Option<Marks>), FormatError> {
    verify_pass(input, req, true, Some(copy))
}

pub(super) fn verify_pass(
    input: &Input,
    req: Requirements,
    keep_marks: bool,
    mut copy: Option<Loader>,
) -> Result<(Report, Option<Marks>), FormatError> {
    let n = input.n();
    if let Some(base) = req.base
        && base.n() != n
    {
        return Err(FormatError::new(
            input.path(),
            ErrorKind::Mismatch(format!(
                "n = {n}, but the base {} has n = {}",
                base.path().display(),
                base.n()
            )),
        ));
    }
    let mut pass = marking_pass(
        input,
        req,
        keep_marks,
        copy.as_mut().map(Loader::reborrow),
        Marking::choose(n),
    )?;
    if !pass.consistent() {
        // Only a bug could bring this here; the locked pass does not depend on which
        // thread marks what.
        drop(pass);
        pass = marking_pass(input, req, keep_marks, copy, Marking::Locked)?;
        assert!(pass.consistent(), "a locked marking pass adds up");
    }
    let MarkingPass {
        mut report,
        lines,
        rows,
        digest,
        ..
    } = pass;
    if let Some(kept) = req.kept
        && digest != kept.digest
    {
        // At least one queen of the composition is not kept; which, the digest cannot say.
        report.base_violation_count += 1;
    }
    report.checksum_verified = input.header().is_some();
    report.looks_zero_based = n >= 2
        && report.k == n - 1
        && report.conflict_count == 0
        && report.out_of_range_count == 0
        && !lines.columns.get(n);
    let mut marks = None;
    if report.conflict_count > 0 {
        drop(lines);
        report.conflicts = first_conflicts(input)?;
    } else if let Some(rows) = rows {
        marks = Some(Marks {
            rows: rows.into_bitmap(),
            lines: lines.into_bitmaps(),
            digest,
        });
    }
    report.verdict = report.judge(req);
    if report.verdict == Verdict::Invalid {
        marks = None;
    }
    Ok((report, marks))
}

/// The most memory that bitmaps of one thread each may take, 1.5 GiB (one set is 0.625
/// bytes per row): room for two threads at n = 1e9.
pub(super) const UNSHARED_MARKS_BUDGET: u64 = 3 << 29;

/// The cores this process may run on, asked once: `available_parallelism` reads the
/// cgroup files on every call, which was a fifth of completing a 100-row board through
/// `complete_many` (BENCHMARKS.md, "Python package").
fn cores() -> u64 {
    static CORES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |c| c.get()) as u64)
}

/// How a pass marks the lines of its queens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Marking {
    /// Each thread marks bitmaps of its own with plain loads and stores
    /// ([`UnsharedMarker`](crate::board::UnsharedMarker)), and the bitmaps are joined at the end
    /// ([`LineBitmaps::absorb`]): at random lines of a huge board, twice as fast as
    /// locked marking, for the memory of one set of bitmaps per thread.
    Unshared,
    /// All threads mark one set of bitmaps with locked read-modify-writes
    /// ([`LineBitmaps::place`]).
    Locked,
}

impl Marking {
    /// Unshared bitmaps when one per thread fits [`UNSHARED_MARKS_BUDGET`] and there are
    /// no more threads than cores, else locked.
    fn choose(n: u64) -> Marking {
        let threads = rayon::current_num_threads() as u64;
        let bytes = (n + 1 + 2 * (2 * n + 1)).div_ceil(8);
        // More threads than cores mark no faster, and every extra set must be joined:
        // --threads 4096 once took 28 s and 1.4 GB on a 2 MB file.
        if threads == 1
            || (threads <= cores() && threads.saturating_mul(bytes) <= UNSHARED_MARKS_BUDGET)
        {
            Marking::Unshared
        } else {
            Marking::Locked
        }
    }

    /// How many sets of bitmaps a pass marking this way needs.
    fn sets(self) -> usize {
        match self {
            Marking::Unshared => rayon::current_num_threads(),
            Marking::Locked => 1,
        }
    }
}

/// One parallel pass over a file: its findings added up and the lines its queens took.
pub(super) struct MarkingPass {
    pub(super) report: Report,
    lines: LineBitmaps<AtomicBitmap>,
    rows: Option<AtomicBitmap>,
    /// Distinct lines taken, all three families together.
    taken: u64,
    /// The segments' digests added up.
    digest: u64,
}

impl MarkingPass {
    /// Whether the conflicts counted queen by queen agree with the lines taken: every
    /// queen in range takes three lines, and each conflict is one line taken again
    /// (Σ over lines of queens − 1). A lost bit would break the equality.
    pub(super) fn consistent(&self) -> bool {
        let marked = self.report.k - self.report.out_of_range_count;
        3 * marked == self.taken + self.report.conflict_count
    }
}

/// Marks every queen of `input` into fresh bitmaps, the way `marking` says, and adds up
/// the findings, checking the file's checksums on the way.
pub(super) fn marking_pass(
    input: &Input,
    req: Requirements,
    keep_marks: bool,
    copy: Option<Loader>,
    marking: Marking,
) -> Result<MarkingPass, FormatError> {
    let n = input.n();
    let sets: Vec<_> = (0..marking.sets())
        .map(|_| {
            let lines = LineBitmaps::new_atomic(n);
            lines.touch_pages();
            lines
        })
        .collect();
    let rows = keep_marks.then(|| AtomicBitmap::new(n + 1));
    let findings = scan_segments(input, req, &sets, rows.as_ref(), copy, marking)?;
    let digest = findings.iter().fold(0u64, |d, f| d.wrapping_add(f.digest));
    let (mut report, sums) = Report::sum(n, findings);
    // A file that shrank under its map was read partly as zeros: that, not a verdict, is
    // the answer (`check_sums` says so for the input).
    if let Some(base) = req.base {
        base.check_unchanged()?;
    }
    input.check_sums(sums)?;
    let mut sets = sets.into_iter();
    let lines = sets.next().expect("at least one set");
    let union = lines.absorb(&sets.collect::<Vec<_>>());
    report.conflict_count += union.overlaps;
    Ok(MarkingPass {
        report,
        lines,
        rows,
        taken: union.taken,
        digest,
    })
}

/// The parallel pass: every segment marked into `sets` (one per thread, or one for all:
/// see [`Marking`]) and `rows`, copied into its slice of `copy` when given, compared with
/// the base's rows when required.
pub(super) fn scan_segments(
    input: &Input,
    req: Requirements,
    sets: &[LineBitmaps<AtomicBitmap>],
    rows: Option<&AtomicBitmap>,
    copy: Option<Loader>,
    marking: Marking,
) -> Result<Vec<SegmentFindings>, FormatError> {
    let seg_rows = input.segment_rows();
    let digest = match (req.kept, rows) {
        (Some(kept), _) => Digest::Rows(&kept.rows),
        (None, Some(_)) => Digest::Queens,
        (None, None) => Digest::Off,
    };
    // Each segment's slot in `copy`, if any.
    let sinks: Vec<Option<LoaderPiece>> = match copy {
        Some(copy) => copy
            .pieces(input.n(), seg_rows)
            .into_iter()
            .map(Some)
            .collect(),
        None => (0..input.segment_count()).map(|_| None).collect(),
    };
    sinks
        .into_par_iter()
        .enumerate()
        .map_init(
            || (Vec::new(), SegmentCache::default(), Vec::new()),
            |(scratch, cache, base_rows), (s, sink)| {
                let s = s as u64;
                let bytes = input.segment(s, scratch)?;
                if let Some(mut out) = sink {
                    out.put(bytes)?;
                }
                let first = s * seg_rows;
                let base = match req.base {
                    Some(b) => {
                        base_rows.resize(bytes.len() / 4, 0);
                        b.read_rows(first, base_rows, cache)?;
                        Some(&base_rows[..])
                    }
                    None => None,
                };
                // Unshared marking: this thread's own set (a thread index is one thread).
                let lines = &sets[rayon::current_thread_index().unwrap_or(0) % sets.len()];
                let findings = SegmentScan {
                    lines,
                    rows,
                    marking,
                    first,
                    values: bytes.as_chunks::<4>().0,
                    base,
                    digest,
                }
                .run();
                input.release(s);
                Ok(findings)
            },
        )
        .collect()
}

impl Report {
    /// The segments' findings added up (conflicts not yet named, verdict not yet given),
    /// with what each segment contributes to the header's checks.
    fn sum(n: u64, findings: Vec<SegmentFindings>) -> (Report, Vec<SegmentSum>) {
        let mut report = Report {
            n,
            k: 0,
            verdict: Verdict::Solution,
            conflict_count: 0,
            conflicts: Vec::new(),
            out_of_range_count: 0,
            out_of_range: Vec::new(),
            base_violation_count: 0,
            base_violations: Vec::new(),
            checksum_verified: false,
            looks_zero_based: false,
        };
        let mut sums = Vec::with_capacity(findings.len());
        for f in findings {
            report.k += f.k;
            report.conflict_count += f.conflicts;
            report.out_of_range_count += f.out_of_range_count;
            report.base_violation_count += f.base_violation_count;
            extend_capped(&mut report.out_of_range, f.out_of_range);
            extend_capped(&mut report.base_violations, f.base_violations);
            sums.push(SegmentSum {
                k: f.k,
                block_hashes: f.block_hashes,
            });
        }
        (report, sums)
    }

    /// The verdict the counts give under `req`.
    fn judge(&self, req: Requirements) -> Verdict {
        if self.conflict_count + self.out_of_range_count + self.base_violation_count > 0 {
            Verdict::Invalid
        } else if self.k == self.n {
            Verdict::Solution
        } else if req.complete {
            Verdict::Incomplete
        } else {
            Verdict::Composition
        }
    }
}

pub(super) fn extend_capped<T>(v: &mut Vec<T>, more: Vec<T>) {
    let room = REPORTED.saturating_sub(v.len());
    v.extend(more.into_iter().take(room));
}

/// How many rows ahead the marking loop prefetches: 128 rows (384 lines) keep more misses
/// in flight than 64 did, 8 % faster on a random 1e8 file on an Intel Xeon (BENCHMARKS.md).
pub(super) const PREFETCH_AHEAD: usize = 128;

/// Rows per block of the marking loop: a block whose rows all hold a queen in range (each
/// the base's, if any), takes the lean loop (`SegmentScan::mark_queens`).
pub(super) const BLOCK_ROWS: usize = 64;

/// Rows per checksum block: segments start on a block's first row, and blocks are whole
/// marking blocks.
pub(super) const HASH_BLOCK_ROWS: usize = CHECKSUM_BLOCK_ROWS as usize;
const _: () = assert!(HASH_BLOCK_ROWS.is_multiple_of(BLOCK_ROWS));

/// One segment being scanned: its rows, where their queens are marked, and the base's
/// rows to compare them with.
pub(super) struct SegmentScan<'a> {
    lines: &'a LineBitmaps<AtomicBitmap>,
    rows: Option<&'a AtomicBitmap>,
    marking: Marking,
    /// Rows before the segment.
    first: u64,
    /// The segment's rows, each as its four little-endian bytes.
    values: &'a [[u8; 4]],
    base: Option<&'a [u32]>,
    digest: Digest<'a>,
}

impl SegmentScan<'_> {
    /// Scans every row, a block of [`BLOCK_ROWS`] at a time.
    fn run(&self) -> SegmentFindings {
        let n = self.lines.n;
        let mut f = SegmentFindings::default();
        let rows_here = self.values.len();
        let mut start = 0;
        while start < rows_here {
            // Each checksum block is hashed just before its rows are marked, while it is in
            // the cache (a segment of 4 MiB hashed whole was read from memory twice).
            if start.is_multiple_of(HASH_BLOCK_ROWS) {
                let block = &self.values[start..(start + HASH_BLOCK_ROWS).min(rows_here)];
                f.block_hashes
                    .extend(PayloadHasher::block_hashes(block.as_flattened()));
            }
            let end = (start + BLOCK_ROWS).min(rows_here);
            let values = self.values[start..end]
                .iter()
                .map(|&v| u32::from_le_bytes(v));
            // Whether every row of the block holds a queen in range (and keeps the base's).
            let all_queens = match self.base {
                None => values.fold(true, |all, v| all & ((v as u64).wrapping_sub(1) < n)),
                Some(base) => values.zip(&base[start..end]).fold(true, |all, (v, &b)| {
                    all & ((v as u64).wrapping_sub(1) < n) & ((b == 0) | (b == v))
                }),
            };
            if all_queens {
                f.k += (end - start) as u64;
                f.conflicts += match self.marking {
                    Marking::Unshared => self.mark_queens::<false>(start..end),
                    Marking::Locked => self.mark_queens::<true>(start..end),
                };
                if let Some(rows) = self.rows {
                    rows.set_run(self.first + start as u64 + 1, self.first + end as u64 + 1);
                }
            } else {
                for i in start..end {
                    self.row(&mut f, i);
                }
            }
            f.digest = f.digest.wrapping_add(self.digest(start..end));
            start = end;
        }
        f
    }

    /// Σ of [`queen_hash`] over the rows of `range` that [`Digest`] selects, while they
    /// are in the cache.
    #[inline(always)]
    fn digest(&self, range: std::ops::Range<usize>) -> u64 {
        // Branch-free selects over at most 64 rows, which the compiler vectorises.
        let first = self.first + 1 + range.start as u64;
        let values = &self.values[range];
        // Which rows, and whether an empty one counts (in a set of rows it does: a queen
        // not kept leaves its row empty).
        let (select, empty_too) = match self.digest {
            Digest::Off => return 0,
            Digest::Queens => (!0, 0),
            Digest::Rows(rows) => (rows.bits64(first), 1),
        };
        values
            .iter()
            .enumerate()
            .map(|(j, v)| {
                let v = u32::from_le_bytes(*v) as u64;
                let take = (select >> j & 1) & ((v != 0) as u64 | empty_too);
                queen_hash(first + j as u64, v) & take.wrapping_neg()
            })
            .fold(0, u64::wrapping_add)
    }

    /// Row `i`'s value.
    #[inline(always)]
    fn value(&self, i: usize) -> u64 {
        u32::from_le_bytes(self.values[i]) as u64
    }

    /// Prefetches the lines of the queen [`PREFETCH_AHEAD`] rows after row `i` (see
    /// [`AtomicBitmap::prefetch`]); a value out of range prefetches nothing useful, but
    /// no harm either.
    #[inline(always)]
    fn prefetch_ahead(&self, i: usize) {
        let ahead = (i + PREFETCH_AHEAD).min(self.values.len() - 1);
        self.lines
            .prefetch(self.first + ahead as u64 + 1, self.value(ahead));
    }

    /// Marks rows `range`, each of which holds a queen in range; returns how many of
    /// their lines were taken already.
    #[inline(always)]
    fn mark_queens<const LOCKED: bool>(&self, range: std::ops::Range<usize>) -> u64 {
        // Locals, not fields: the stores below would make the compiler reload fields.
        let (values, first) = (self.values, self.first);
        let value = |i: usize| u32::from_le_bytes(values[i]) as u64;
        let last = values.len() - 1;
        let marker = self.lines.unshared_marker();
        let mut conflicts = 0;
        for i in range {
            let ahead = (i + PREFETCH_AHEAD).min(last);
            let (ahead_row, ahead_value) = (first + ahead as u64 + 1, value(ahead));
            let row = first + i as u64 + 1;
            let v = value(i);
            conflicts += if LOCKED {
                self.lines.prefetch(ahead_row, ahead_value);
                self.lines.place(row, v)
            } else {
                marker.prefetch(ahead_row, ahead_value);
                // SAFETY: the caller found every value of the block in 1..=n, and `row`
                // is a row of the segment, in 1..=n.
                unsafe { marker.place(row, v) }
            } as u64;
        }
        conflicts
    }

    /// Row `i` in full: base, empty row, value out of range, then its lines.
    fn row(&self, f: &mut SegmentFindings, i: usize) {
        self.prefetch_ahead(i);
        let v = self.value(i);
        let row = self.first + i as u64 + 1;
        if let Some(base) = self.base {
            let b = base[i] as u64;
            if b != 0 && b != v {
                f.base_violation_count += 1;
                if f.base_violations.len() < REPORTED {
                    f.base_violations.push(BaseViolation {
                        row,
                        base: b,
                        found: v,
                    });
                }
            }
        }
        if v == 0 {
            return;
        }
        f.k += 1;
        if v > self.lines.n {
            f.out_of_range_count += 1;
            if f.out_of_range.len() < REPORTED {
                f.out_of_range.push(OutOfRange { row, value: v });
            }
            return;
        }
        f.conflicts += match self.marking {
            // SAFETY: `v` is in 1..=n (0 and values above n returned above), and `row`
            // is a row of the segment, in 1..=n.
            Marking::Unshared => unsafe { self.lines.unshared_marker().place(row, v) },
            Marking::Locked => self.lines.place(row, v),
        } as u64;
        if let Some(rows) = self.rows {
            rows.set(row);
        }
    }
}

/// Names the first [`REPORTED`] conflicts, ordered by their later queen's row.
///
/// The parallel pass cannot tell which earlier row took a line. A sequential scan with
/// fresh bitmaps finds the rows where a taken line is met again, in row order, and stops at
/// the last one reported; since each such line had exactly one queen before that row, one
/// more parallel pass over the rows before it finds the earlier queens.
pub(crate) fn first_conflicts(input: &Input) -> Result<Vec<Conflict>, FormatError> {
    let n = input.n();
    let seg_rows = input.segment_rows();
    let mut lines = LineBitmaps::new(n);
    // (line, later row, later column)
    let mut found: Vec<(crate::board::Line, u64, u64)> = Vec::new();
    let mut scratch = Vec::new();
    'scan: for s in 0..input.segment_count() {
        let bytes = input.segment(s, &mut scratch)?;
        for (i, c) in bytes.chunks_exact(4).enumerate() {
            let v = u32::from_le_bytes(c.try_into().unwrap()) as u64;
            if v == 0 || v > n {
                continue;
            }
            let row = s * seg_rows + i as u64 + 1;
            for line in lines_through(n, row, v) {
                if lines.take(line) {
                    found.push((line, row, v));
                }
            }
            if found.len() >= REPORTED {
                break 'scan;
            }
        }
        input.release(s);
    }
    found.truncate(REPORTED);
    drop(lines);
    let Some(last_row) = found.iter().map(|f| f.1).max() else {
        return Ok(Vec::new());
    };
    let segments = (last_row - 1) / seg_rows + 1;
    let earlier: Vec<Vec<Option<(u64, u64)>>> = (0..segments)
        .into_par_iter()
        .map_init(Vec::new, |scratch, s| {
            let bytes = input.segment(s, scratch)?;
            let mut first = vec![None; found.len()];
            for (i, c) in bytes.chunks_exact(4).enumerate() {
                let v = u32::from_le_bytes(c.try_into().unwrap()) as u64;
                let row = s * seg_rows + i as u64 + 1;
                if v == 0 || v > n || row >= last_row {
                    continue;
                }
                let through = lines_through(n, row, v);
                for (slot, (line, later, _)) in first.iter_mut().zip(&found) {
                    if row < *later && slot.is_none() && through.contains(line) {
                        *slot = Some((row, v));
                    }
                }
            }
            input.release(s);
            Ok(first)
        })
        .collect::<Result<_, FormatError>>()?;
    Ok(found
        .iter()
        .enumerate()
        .map(|(j, &(line, row, col))| Conflict {
            kind: line.kind,
            first: earlier
                .iter()
                .find_map(|seg| seg[j])
                .expect("a line met again was taken by an earlier row"),
            second: (row, col),
        })
        .collect())
}
