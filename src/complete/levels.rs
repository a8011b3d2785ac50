//! The engine's levels and budgets: where each phase hands over to the next, and how much
//! each search may spend (BENCHMARKS.md, "Why the engine's constants").

/// Inputs with at most this many free rows (or the end game's size, if larger) are decided
/// by exact search alone; larger ones go the randomized way first, which is faster on them
/// (BENCHMARKS.md, "Why the engine's constants"), proofs still coming from the
/// exact searches between restarts.
pub(crate) const EXACT_FIRST: u64 = 64;
/// Largest input residual projected for certificates and exact search.
pub(crate) const RESIDUAL_MAX: u64 = 4096;
/// Dead ends tolerated from level 2 before restarting from the input.
pub(crate) const ATTEMPTS_PER_BASE: u64 = 12;
/// Free rows up to which every placement is journaled from the input on, so that a
/// restart from the input is a cheap rewind instead of a reread of the input.
pub(super) const JOURNAL_FROM_INPUT: u64 = 1 << 22;

/// The free rows left after phase 2 (the end game's residual size) for an n-board: the
/// larger of 7 ln n and the cube root of n.
///
/// Small end games are cheap and so are the extra dead ends they cause, but on the empty
/// board 7 ln n is too deep from about n = 1e8, hence the cube root (BENCHMARKS.md, "Why
/// the engine's constants").
pub(crate) fn level3(n: u64) -> u64 {
    let x = n.max(2) as f64;
    ((7.0 * x.ln()).max(x.cbrt()) as u64).clamp(32, 1024)
}

/// The free rows at which phase 1 stops (it usually stalls earlier, see [`PAIRING_STALL`]).
pub(crate) fn level2(n: u64) -> u64 {
    4 * level3(n)
}

/// Input free rows up to which the repair phase may run (it keeps a list of them, 4 bytes
/// each, and a column for each): above it the board is nearly empty, and pairing does not
/// stall there.
pub(super) const REPAIR_MAX_ROWS: u64 = 1 << 26;
/// Input free rows up to which the wide exact search runs on every restart (above, on
/// restarts 1, 2, 4, 8, ...).
pub(super) const WIDE_EVERY_RESTART: u64 = 1 << 14;

/// Pairing that leaves more than this many times level 2 free rows gets only
/// `STALLED_ATTEMPTS` end games before the repair phase (random solutions' compositions
/// pair down to near level 2, and their end games succeed from further up too).
pub(super) const PAIRING_SHORT: u64 = 16;
pub(super) const STALLED_ATTEMPTS: u64 = 2;
/// The repair phase's first move budget, per input free row and in all (it doubles on
/// every restart).
pub(super) const REPAIR_MOVES_PER_ROW: u64 = 64;
pub(super) const REPAIR_MOVES_MIN: u64 = 1 << 20;

/// Phase 1 ends when a round places fewer than 1/PAIRING_STALL of the free rows: deeper
/// pairing leaves rows without free cells far more often (BENCHMARKS.md, "Why the
/// engine's constants").
pub(crate) const PAIRING_STALL: u64 = 8;

/// A closed form is tried when all but 1/NEAR_FORM_SHARE of the given queens lie on it (at
/// most NEAR_FORM_MAX off it): an edited construction. Every wrong candidate is dropped
/// after NEAR_FORM_MAX + 1 rows at most, so the check stays one pass.
pub(super) const NEAR_FORM_SHARE: u64 = 64;
pub(super) const NEAR_FORM_MAX: u64 = 1 << 16;

/// Cell checks the chains of column exchanges may spend on the rows the end games left,
/// and the scans of the free columns they take per row, about (measured: 2.8-4.5 at
/// n = 1e6-1e8 with 0.01-0.1 % of a construction's rows cleared). 2^29 checks take
/// 1-3 s; past that, repair does better (BENCHMARKS.md, "Chains in the search").
pub(super) const CHAIN_CHECKS: u64 = 1 << 29;
/// The most one open row's chain may take of them.
pub(super) const CHAIN_ROW_CHECKS: u64 = 1 << 27;
pub(super) const CHAIN_SCANS: u64 = 3;

/// Units of nodes (`exact::short_budget`) the restarts of an exact-first residual get
/// before the search of every core: about 0.66 M nodes at 29 rows, 25-50 ms on two cores,
/// beside searches of 0.05-500 s (BENCHMARKS.md, "Restarts").
pub(crate) const FIRST_RESTART_UNITS: u64 = 256;
