//! Proofs that a composition has no completion, in a form a user can check by hand or with
//! another program.

use serde::Serialize;

/// Why a composition cannot be completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Certificate {
    /// A free row every cell of which is attacked (column taken, or a diagonal taken).
    EmptyRow {
        /// The row (1-based).
        row: u64,
    },
    /// A free column every cell of which (in free rows) is attacked.
    EmptyColumn {
        /// The column (1-based).
        column: u64,
    },
    /// Free rows whose free cells all lie in fewer free columns than there are rows (Hall's
    /// condition fails: the rows cannot all get distinct columns).
    Hall {
        /// The rows, increasing.
        rows: Vec<u64>,
        /// Every column where any of those rows has a free cell, increasing.
        columns: Vec<u64>,
    },
    /// Weights that no completion can satisfy: each free cell's row and column weigh at
    /// most its two diagonals together, so the queens of a completion (one per free row and
    /// column, at most one per diagonal) would give `sum rows + sum columns <= sum
    /// diagonals`; the weights listed sum the other way. Lines not listed weigh 0.
    WeightedCover {
        /// `[row, weight]` for free rows (1-based).
        rows: Vec<[i64; 2]>,
        /// `[column, weight]` for free columns (1-based).
        columns: Vec<[i64; 2]>,
        /// `[n + column - row, weight]`: D1 diagonals, weights not negative.
        d1: Vec<[i64; 2]>,
        /// `[row + column, weight]`: D2 diagonals, weights not negative.
        d2: Vec<[i64; 2]>,
    },
    /// An exact search of every way to fill the free rows of the input, none of which works.
    ExhaustedSearch {
        /// Free rows of the input (= free columns).
        free_rows: u64,
        /// Free cells of the input residual.
        free_cells: u64,
        /// Queens placed by the search (branching or forced by propagation); the same for
        /// every thread count.
        nodes: u64,
        /// Queens placed by branching.
        decisions: u64,
        /// Free cells the search skipped, each in no completion: in order, each with a
        /// [`Certificate::WeightedCover`] of the residual left by a queen on it with the
        /// cells listed before it taken out. Absent when empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        refuted_cells: Vec<RefutedCell>,
        /// Pairs of free cells that do not attack each other, in no completion together,
        /// which the search took as attacking each other: each with a
        /// [`Certificate::WeightedCover`] of the residual left by queens on both, with
        /// every cell of `refuted_cells` taken out. Absent when empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        refuted_pairs: Vec<RefutedPair>,
    },
}

/// A free cell in no completion, and why: weights that refute a queen on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RefutedCell {
    /// The cell's row (1-based).
    pub row: u64,
    /// The cell's column (1-based).
    pub column: u64,
    /// A [`Certificate::WeightedCover`] of the residual left by a queen on the cell (its row
    /// and column gone, the cells it attacks and the refuted cells listed before it taken
    /// out).
    pub cover: Box<Certificate>,
}

/// Two free cells in no completion together, and why: weights that refute queens on both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RefutedPair {
    /// The cells, `[row, column]` (1-based).
    pub cells: [[u64; 2]; 2],
    /// A [`Certificate::WeightedCover`] of the residual left by queens on both cells
    /// (their rows and columns gone, the cells they attack and every refuted cell taken
    /// out).
    pub cover: Box<Certificate>,
}

impl std::fmt::Display for Certificate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Certificate::EmptyRow { row } => {
                write!(
                    f,
                    "free row {row} has no free cell (every column or diagonal through it is taken)"
                )
            }
            Certificate::EmptyColumn { column } => {
                write!(f, "free column {column} has no free cell in any free row")
            }
            Certificate::Hall { rows, columns } => write!(
                f,
                "the {} free rows {} have free cells only in the {} columns {}",
                rows.len(),
                list(rows),
                columns.len(),
                list(columns)
            ),
            Certificate::WeightedCover {
                rows,
                columns,
                d1,
                d2,
            } => {
                let sum = |v: &[[i64; 2]]| v.iter().map(|&[_, w]| w as i128).sum::<i128>();
                write!(
                    f,
                    "weights on {} free rows and columns sum to {}, more than the {} that weights on {} diagonals give, though every free cell's row and column weigh at most its diagonals",
                    rows.len() + columns.len(),
                    sum(rows) + sum(columns),
                    sum(d1) + sum(d2),
                    d1.len() + d2.len()
                )
            }
            Certificate::ExhaustedSearch {
                free_rows,
                free_cells,
                nodes,
                decisions,
                refuted_cells,
                refuted_pairs,
            } => {
                write!(
                    f,
                    "exact search of the {free_rows} free rows ({free_cells} free cells) exhausted after {nodes} nodes ({decisions} branching)"
                )?;
                match (refuted_cells.len(), refuted_pairs.len()) {
                    (0, 0) => {}
                    (cells, 0) => write!(
                        f,
                        ", never placing {cells} cells the linear relaxation refutes"
                    )?,
                    (0, pairs) => write!(
                        f,
                        ", taking {pairs} pairs of cells the linear relaxation refutes together as attacking"
                    )?,
                    (cells, pairs) => write!(
                        f,
                        ", never placing {cells} cells the linear relaxation refutes and taking {pairs} pairs it refutes together as attacking"
                    )?,
                }
                Ok(())
            }
        }
    }
}

fn list(v: &[u64]) -> String {
    const SHOWN: usize = 12;
    let mut s: Vec<String> = v.iter().take(SHOWN).map(u64::to_string).collect();
    if v.len() > SHOWN {
        s.push(format!("... ({} more)", v.len() - SHOWN));
    }
    format!("[{}]", s.join(", "))
}
