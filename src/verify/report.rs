//! What a check finds: the verdict, the conflicts, values out of range and base queens
//! not kept, and what the caller requires.

use super::KeptQueens;
use crate::board::LineKind;
use crate::format::Input;
use serde::Serialize;

/// How many conflicts, out-of-range values and base violations a report names.
pub const REPORTED: usize = 10;

/// What verification found about one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every row has a queen and no two attack each other.
    Solution,
    /// No two queens attack each other, some rows are empty.
    Composition,
    /// A valid composition, but a complete solution was required.
    Incomplete,
    /// Conflicts, values out of range, or a queen of the base missing.
    Invalid,
}

/// Two queens on one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Conflict {
    /// The shared line.
    pub kind: LineKind,
    /// The earlier row (1-based) and its column.
    pub first: (u64, u64),
    /// The later row and its column.
    pub second: (u64, u64),
}

/// A row value that is not a column of the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct OutOfRange {
    /// Row (1-based).
    pub row: u64,
    /// The value found there.
    pub value: u64,
}

/// A queen of the base composition that the checked file does not keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BaseViolation {
    /// Row (1-based).
    pub row: u64,
    /// The base's column in that row.
    pub base: u64,
    /// The file's value in that row (0 = empty).
    pub found: u64,
}

/// The result of verifying one file.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// Board size.
    pub n: u64,
    /// Queens found.
    pub k: u64,
    /// The verdict.
    pub verdict: Verdict,
    /// Σ over lines of (queens on it − 1): 0 exactly when no two queens attack each other.
    pub conflict_count: u64,
    /// The first conflicts in row order of their later queen (at most [`REPORTED`]).
    pub conflicts: Vec<Conflict>,
    /// Number of values outside 0..=n.
    pub out_of_range_count: u64,
    /// The first of them.
    pub out_of_range: Vec<OutOfRange>,
    /// Number of base queens not kept.
    pub base_violation_count: u64,
    /// The first of them.
    pub base_violations: Vec<BaseViolation>,
    /// Whether a stored payload checksum was checked (it matched: a mismatch is an error).
    pub checksum_verified: bool,
    /// Whether the board looks like a 0-based solution read as 1-based: no conflict, one
    /// empty row (a 0), every other row filled, and column n the one left free (the
    /// values are 0..n-1).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub looks_zero_based: bool,
}

impl Report {
    /// Whether the file is a solution: every row holds a queen and none attacks another.
    pub fn is_solution(&self) -> bool {
        self.verdict == Verdict::Solution
    }

    /// The first thing wrong, as one line; `None` when the verdict is a success.
    pub fn first_problem(&self) -> Option<String> {
        if let Some(c) = self.conflicts.first() {
            return Some(format!(
                "rows {} and {} share a {} (columns {} and {})",
                c.first.0, c.second.0, c.kind, c.first.1, c.second.1
            ));
        }
        if let Some(o) = self.out_of_range.first() {
            return Some(format!(
                "row {}: value {} is not a column in 1..={}",
                o.row, o.value, self.n
            ));
        }
        if let Some(b) = self.base_violations.first() {
            return Some(format!(
                "row {}: the base's queen in column {} is not kept",
                b.row, b.base
            ));
        }
        match self.verdict {
            Verdict::Incomplete => Some(format!("{} of {} rows hold a queen", self.k, self.n)),
            Verdict::Invalid => Some("invalid".into()),
            Verdict::Solution | Verdict::Composition => None,
        }
    }
}

/// What to require of a file beyond being a valid composition: made with
/// `Requirements::default()` and the builder methods.
///
/// ```
/// use nqueens::verify::{Requirements, Verdict, verify_rows};
/// let base = nqueens::format::Input::from_rows("base".as_ref(), "memory", &[2, 0, 0, 0])?;
/// let req = Requirements::default().require_complete().keeping(&base);
/// assert_eq!(verify_rows(&[2, 4, 1, 3], req)?.verdict, Verdict::Solution);
/// assert_eq!(verify_rows(&[3, 1, 4, 2], req)?.verdict, Verdict::Invalid);
/// # Ok::<(), nqueens::format::FormatError>(())
/// ```
#[derive(Default, Clone, Copy)]
pub struct Requirements<'a> {
    /// Every row must hold a queen.
    pub complete: bool,
    /// Every queen of this composition must be kept.
    pub base: Option<&'a Input>,
    /// Every queen of a composition read before must be kept, checked by its digest
    /// instead of reading that composition again.
    pub(crate) kept: Option<&'a KeptQueens>,
}

impl<'a> Requirements<'a> {
    /// Every row must hold a queen (a solution, not only a composition).
    pub fn require_complete(self) -> Requirements<'a> {
        Requirements {
            complete: true,
            ..self
        }
    }

    /// Every queen of `base` must be kept (the file completes it).
    pub fn keeping(self, base: &'a Input) -> Requirements<'a> {
        Requirements {
            base: Some(base),
            ..self
        }
    }
}
