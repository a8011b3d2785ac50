//! The scan of a search node's level in a few vector instructions, for residuals of at
//! most 32 rows (the Excluded Diagonals frontier: n = 29 and 31).
//!
//! The scalar scan in [`search`](super::search) walks the open rows one at a time: a count,
//! two compares that branch, and the column counters updated row after row. Here the
//! level is held in whole registers: the counts of a register's rows come at once, rows
//! with no cell or one are two compares, the fewest row a minimum and a compare, and the
//! column counters a tree of ORs and ANDs that halves the rows at each step. Both kernels
//! give the scalar scan's answer exactly (the same rows forced, the same row or column
//! branched on), so the tree searched, the solution found and the certificate written are
//! the same; only the time per node changes (BENCHMARKS.md, "Excluded Diagonals at
//! n = 29").
//!
//! - [`avx512`]: `u64` words in four 512-bit registers, `VPOPCNTQ` for the counts.
//! - [`avx2`]: `u32` words in four 256-bit registers, counts by a table of nibbles
//!   (`VPSHUFB`), for the x86 CPUs without AVX-512 (most of those in use).
//!
//! The kernel is a constant of the search's loop ([`SCALAR`], [`AVX512`], [`AVX2`]), so
//! each is compiled into a copy of the loop with its features enabled; each takes one
//! word width ([`takes`]), which the search's sets are built with where that kernel is
//! the CPU's (`exact::run`).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(all(test, target_arch = "x86_64"))]
mod tests;

use super::bits::Bits;
#[cfg(target_arch = "x86_64")]
use super::bits::Words;

/// Largest residual the scan takes: 32 rows (four 512-bit registers of `u64`s, four
/// 256-bit registers of `u32`s).
pub(super) const MAX_ROWS: usize = 32;

/// The search scans row by row.
pub(super) const SCALAR: u8 = 0;
/// The search scans by [`avx512`].
pub(super) const AVX512: u8 = 1;
/// The search scans by [`avx2`].
pub(super) const AVX2: u8 = 2;

/// Whether kernel `K` scans sets of type `B`: [`AVX512`] words of 64 bits, [`AVX2`] of 32.
pub(super) const fn takes<const K: u8, B: Bits>() -> bool {
    match K {
        AVX512 => B::CAPACITY == 64,
        AVX2 => B::CAPACITY == 32,
        _ => false,
    }
}

/// What a node needs from its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scan {
    /// An open row has no free cell: a dead end.
    pub dead: bool,
    /// Open rows with exactly one free cell.
    pub forced: u64,
    /// The fewest free cells of an open row, and the lowest row with that many (only
    /// where no row is dead or forced).
    pub best: u32,
    pub best_row: usize,
    /// Columns with at least 1, 2, 3, 4 free cells among the open rows (only where no row
    /// is dead or forced).
    pub at_least: [u64; 4],
}

/// Saturating counters of a column's cells over a group of rows, one register each:
/// `c[k]` holds the columns with at least `k + 1` cells.
type Counters<V> = [V; 4];

/// The counters of two disjoint groups of rows added, by the kernel's `and` and `or`
/// (the same arithmetic in every register width).
#[inline(always)]
fn add<V: Copy>(
    x: Counters<V>,
    y: Counters<V>,
    and: impl Fn(V, V) -> V,
    or: impl Fn(V, V) -> V,
) -> Counters<V> {
    [
        or(x[0], y[0]),
        or(or(x[1], y[1]), and(x[0], y[0])),
        or(or(x[2], y[2]), or(and(x[1], y[0]), and(x[0], y[1]))),
        or(
            or(or(x[3], y[3]), and(x[2], y[0])),
            or(and(x[1], y[1]), and(x[0], y[2])),
        ),
    ]
}

/// Scans `level` (the free cells of each row, padded with empty rows to a multiple of
/// eight; closed rows hold none) for the rows in `open`, by kernel `K`.
///
/// # Safety
/// `K` is [`AVX512`] or [`AVX2`], the CPU has that kernel's features (as
/// [`crate::simd::Kernel::Avx512`] and [`crate::simd::Kernel::Avx2`] require) and the
/// words are of the width it [`takes`] (the width picks the kernel).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn scan<const K: u8>(level: Words<'_>, open: u64) -> Scan {
    // SAFETY: the caller's.
    unsafe {
        match level {
            Words::U64(level) => avx512::scan(checked::<K, _>(level), open),
            Words::U32(level) => avx2::scan(checked::<K, _>(level), open),
        }
    }
}

/// `level`, checked (in debug builds) to be what kernel `K` takes: at most [`MAX_ROWS`]
/// words of its width, whole registers.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn checked<const K: u8, W>(level: &[W]) -> &[W] {
    debug_assert!(level.len() <= MAX_ROWS && level.len().is_multiple_of(8));
    debug_assert_eq!(std::mem::size_of::<W>(), if K == AVX512 { 8 } else { 4 });
    level
}

/// The free cells of `level` in `masks` (a queen's attacks, from the attack table), both
/// padded as in [`scan`]: how many cells the queen would close (the value order's
/// measure of damage).
///
/// # Safety
/// As for [`scan`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn closed<const K: u8>(level: Words<'_>, masks: Words<'_>) -> u32 {
    // SAFETY: the caller's.
    unsafe {
        match (level, masks) {
            (Words::U64(level), Words::U64(masks)) => {
                avx512::closed(checked::<K, _>(level), checked::<K, _>(masks))
            }
            (Words::U32(level), Words::U32(masks)) => {
                avx2::closed(checked::<K, _>(level), checked::<K, _>(masks))
            }
            _ => unreachable!("a level and masks of one width"),
        }
    }
}

/// The rows of `level` (padded as in [`scan`]) with column `c` free, as a word.
///
/// # Safety
/// As for [`scan`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn rows_with<const K: u8>(level: Words<'_>, c: usize) -> u64 {
    // SAFETY: the caller's.
    unsafe {
        match level {
            Words::U64(level) => avx512::rows_with(checked::<K, _>(level), c),
            Words::U32(level) => avx2::rows_with(checked::<K, _>(level), c),
        }
    }
}
