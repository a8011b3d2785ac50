//! Proofs that a residual has no completion, for an independent checker to verify against
//! the residual's CNF (`dimacs::encode`): DRAT (`rate`, `drat-trim`) or LRAT (`lrat-check`,
//! cake_lpr).
//!
//! The proof comes from a depth-first search of its own ([`search`]), run after the engine
//! has answered (it does not touch the engine's hot path), with the engine's propagation:
//! a row or column with no free cell is a dead end, one with a single free cell is placed
//! without branching; it branches on the open row with the fewest free cells, or on a
//! column free in exactly two rows when every row has three or more, ties between rows
//! broken nearest the middle first as the engine breaks them. Every step of that
//! propagation is unit propagation on the CNF: a queen falsifies the other cells of its
//! row, column and diagonals through their at-most-one constraints (pairwise clauses, or
//! Sinz's sequential counter, on which unit propagation is arc-consistent), and a row or
//! column whose other cells are all false gets its queen from its at-least-one clause, or
//! falsifies it.
//!
//! So for every node whose subtree holds no solution, the clause "not all of this node's
//! decisions" (the negated variables of its branch placements, forced ones left out) is
//! RUP: asserting the decisions, unit propagation finds everything the search found at the
//! node, and the clauses of its children, written before it (the search writes a node's
//! clause after its whole subtree), falsify every cell it branched on, so the at-least-one
//! clause of the row or column it branched on is false. A dead end is a conflict of unit
//! propagation by itself. The root has no decisions: its clause is the empty clause, which
//! ends the proof. After a node's clause, its children's clauses (which it subsumes) are
//! deleted, so that a checker holds one path's worth of lemmas at a time. (In LRAT, a last
//! child that is a dead end writes no clause of its own: its hints follow the node's, once
//! the line's at-least-one clause has made its queen true.)
//!
//! DRAT gives the clauses alone: a checker finds each one's propagation again, from the
//! decisions down, which makes checking cost many times the search. LRAT ([`lrat`]) names
//! with each clause the clauses its propagation uses: for each cell of the line it ends on,
//! the binary clause of the queen that closed it, then the children's clauses, then the
//! line's at-least-one clause. Where several lines have no free cell left, a dead end's
//! clause ends on the one with the fewest cells in the CNF (a quarter fewer hints than on
//! the first found). A queen that propagation placed gets a clause of its own,
//! "not all of the decisions it follows from, or this queen", written the first time a
//! later node's hints need it, so that they name it in one number; one that only its own
//! node's clause needs is derived inside that clause's hints (a dead end's queens, mostly:
//! 2.7x fewer clauses, 1.6x fewer bytes).
//!
//! Hall's condition (the engine's certificate without search) is a counting argument that
//! unit propagation does not find; this search does not use it, so it proves such a
//! residual by exhausting it, or gives up at the lemma limit.

mod lrat;
mod search;

pub(crate) use lrat::{AtLeastOne, Direction, Layout};
#[cfg(test)]
pub(crate) use search::write_proof;
pub(crate) use search::{Budget, MAX_NODES, Piece, Plan, ProofEnd, plan, write_piece};

/// The proof's format.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Format<'a> {
    /// DRAT, text: clauses and `d` lines.
    Drat,
    /// LRAT: numbered clauses with their hints, against the CNF laid out as given; as
    /// text, or `binary` (a byte per tag, numbers as variable-length integers: half the
    /// bytes, checked a quarter faster by lrat-trim).
    Lrat {
        /// Where the CNF keeps each constraint.
        layout: &'a Layout,
        /// Binary LRAT instead of text.
        binary: bool,
    },
}

#[cfg(test)]
mod tests;
