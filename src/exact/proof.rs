//! DRAT proofs that a residual has no completion, for an independent checker (`rate`,
//! `drat-trim`) to verify against the residual's CNF (`dimacs::encode`).
//!
//! The proof comes from a depth-first search of its own, run after the engine has answered
//! (it does not touch the engine's hot path), with the engine's propagation: a row or
//! column with no free cell is a dead end, one with a single free cell is placed without
//! branching; it branches on the open row with the fewest free cells, or on a column free
//! in exactly two rows when every row has three or more, ties between rows broken nearest
//! the middle first as the engine breaks them. Every step of that propagation is
//! unit propagation on the CNF: a queen falsifies the other cells of its row, column and
//! diagonals through their at-most-one constraints (pairwise clauses, or Sinz's sequential
//! counter, on which unit propagation is arc-consistent), and a row or column whose other
//! cells are all false gets its queen from its at-least-one clause, or falsifies it.
//!
//! So for every node whose subtree holds no solution, the clause "not all of this node's
//! decisions" (the negated variables of its branch placements, forced ones left out) is
//! RUP: asserting the decisions, unit propagation finds everything the search found at the
//! node, and the clauses of its children, written before it (the search writes a node's
//! clause after its whole subtree), falsify every cell it branched on, so the at-least-one
//! clause of the row or column it branched on is false. A dead end is a conflict of unit
//! propagation by itself. The root has no decisions: its clause is the empty clause, which
//! ends the proof. After a node's clause, its children's clauses (which it subsumes) are
//! deleted, so that a checker holds one path's worth of lemmas at a time.
//!
//! Hall's condition (the engine's certificate without search) is a counting argument that
//! unit propagation does not find; this search does not use it, so it proves such a
//! residual by exhausting it, or gives up at the lemma limit.

use super::bits::Bits;
use super::residual::{Residual, ones};
use std::io::{self, Write};

/// Lemmas (clauses added) at most in a proof: 10^6 lines of up to a few hundred bytes
/// (the proof search repeats the engine's on one thread; a larger one would take as long
/// again and hundreds of megabytes).
pub(crate) const MAX_LEMMAS: u64 = 1_000_000;

/// How a proof search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProofEnd {
    /// The proof is written: it ends in the empty clause.
    Proved {
        /// Clauses added (the empty clause included).
        lemmas: u64,
        /// Clauses deleted.
        deletions: u64,
    },
    /// More than the limit of lemmas would be needed; what was written is no proof.
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// The search found a completion: the residual is satisfiable (no proof exists).
    Satisfiable,
    /// Stopped from outside (a signal): what was written is no proof.
    Stopped,
}

/// Writes to `out` a DRAT proof (text format) that the CNF of `res` (`dimacs::encode`:
/// variable v is the v-th free cell, free rows increasing, then free columns increasing)
/// is unsatisfiable, using at most `max_lemmas` lemmas.
pub(crate) fn write_drat(
    res: &Residual,
    max_lemmas: u64,
    stop: &crate::stop::Stop,
    out: &mut dyn Write,
) -> io::Result<ProofEnd> {
    let m = res.size();
    if m <= 64 {
        prove::<u64>(res, max_lemmas, stop, out)
    } else if m <= 128 {
        prove::<[u64; 2]>(res, max_lemmas, stop, out)
    } else if m <= 256 {
        prove::<[u64; 4]>(res, max_lemmas, stop, out)
    } else if m <= 512 {
        prove::<[u64; 8]>(res, max_lemmas, stop, out)
    } else if m <= 1024 {
        prove::<[u64; 16]>(res, max_lemmas, stop, out)
    } else {
        // Wider residuals than the engine's cell matrices: the proof would be as long as
        // a search of them, which is more than any limit here.
        Ok(ProofEnd::TooLarge { limit: max_lemmas })
    }
}

/// Why a search stopped before the root's clause.
enum Stop {
    Io(io::Error),
    TooLarge,
    Satisfiable,
    Halted,
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}

struct Prover<'a, B> {
    m: usize,
    /// Board row of each row label (residual rows, nearest the middle first) and board
    /// column of each residual column.
    rows: Vec<u64>,
    cols: &'a [u64],
    /// `var[r * m + c]`: the CNF variable of free cell (r, c) (row label r).
    var: Vec<u32>,
    /// Decision variables on the path from the root.
    decisions: Vec<u32>,
    out: &'a mut dyn Write,
    line: Vec<u8>,
    lemmas: u64,
    deletions: u64,
    max_lemmas: u64,
    /// Asked from outside to stop; polled every [`POLL_NODES`] nodes.
    stop: &'a crate::stop::Stop,
    nodes: u64,
    _bits: std::marker::PhantomData<B>,
}

/// Nodes between two looks at the stop.
const POLL_NODES: u64 = 4096;

fn prove<B: Bits>(
    res: &Residual,
    max_lemmas: u64,
    stop: &crate::stop::Stop,
    out: &mut dyn Write,
) -> io::Result<ProofEnd> {
    let m = res.size();
    // Variables are numbered in residual order (the CNF's); the search sees rows by label.
    let mut first_var = vec![0u32; m];
    for r in 1..m {
        first_var[r] = first_var[r - 1]
            + res
                .row_bits(r - 1)
                .iter()
                .map(|w| w.count_ones())
                .sum::<u32>();
    }
    let mut row_of: Vec<usize> = (0..m).collect();
    res.middle_first(&mut row_of);
    let mut var = vec![0u32; m * m];
    let mut open = vec![B::zero(); m];
    for (l, &r) in row_of.iter().enumerate() {
        for (k, c) in ones(res.row_bits(r)).enumerate() {
            var[l * m + c] = first_var[r] + k as u32 + 1;
            open[l] = open[l].with(c);
        }
    }
    let mut p = Prover::<B> {
        m,
        rows: row_of.iter().map(|&r| res.rows[r]).collect(),
        cols: &res.cols,
        var,
        decisions: Vec::with_capacity(m),
        out,
        line: Vec::with_capacity(64),
        lemmas: 0,
        deletions: 0,
        max_lemmas,
        stop,
        nodes: 0,
        _bits: std::marker::PhantomData,
    };
    match p.node(open, B::below(m), B::below(m)) {
        Ok(()) => {
            p.out.flush()?;
            Ok(ProofEnd::Proved {
                lemmas: p.lemmas,
                deletions: p.deletions,
            })
        }
        Err(Stop::Io(e)) => Err(e),
        Err(Stop::TooLarge) => Ok(ProofEnd::TooLarge { limit: max_lemmas }),
        Err(Stop::Satisfiable) => Ok(ProofEnd::Satisfiable),
        Err(Stop::Halted) => Ok(ProofEnd::Stopped),
    }
}

impl<B: Bits> Prover<'_, B> {
    /// Places a queen on (r, c): closes its row and column and clears the cells it
    /// attacks in the other open rows.
    fn place(&self, open: &mut [B], rows_left: &mut B, cols_left: &mut B, r: usize, c: usize) {
        *rows_left = rows_left.without(r);
        *cols_left = cols_left.without(c);
        let (i, j) = (self.rows[r] as i128, self.cols[c] as i128);
        let mut left = *rows_left;
        while !left.is_zero() {
            let r2 = left.lowest();
            left = left.without(r2);
            let delta = self.rows[r2] as i128 - i;
            let mut mask = B::zero().with(c);
            for j2 in [j + delta, j - delta] {
                if let Some(c2) = u64::try_from(j2)
                    .ok()
                    .and_then(|j2| self.cols.binary_search(&j2).ok())
                {
                    mask = mask.with(c2);
                }
            }
            open[r2] = open[r2].and_not(mask);
        }
    }

    /// Writes `d`-prefixed or plain the clause of the decisions and `extra`.
    fn clause(&mut self, delete: bool, extra: Option<u32>) -> Result<(), Stop> {
        self.line.clear();
        if delete {
            self.line.extend_from_slice(b"d ");
            self.deletions += 1;
        } else {
            if self.lemmas >= self.max_lemmas {
                return Err(Stop::TooLarge);
            }
            self.lemmas += 1;
        }
        for &v in self.decisions.iter().chain(&extra) {
            self.line.push(b'-');
            self.line.extend_from_slice(v.to_string().as_bytes());
            self.line.push(b' ');
        }
        self.line.extend_from_slice(b"0\n");
        self.out.write_all(&self.line)?;
        Ok(())
    }

    /// Searches the subtree of the node with free cells `open` per row; when it holds no
    /// solution, writes the clause of the node's decisions (after its children's).
    fn node(&mut self, mut open: Vec<B>, mut rows_left: B, mut cols_left: B) -> Result<(), Stop> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_NODES) && self.stop.now() {
            return Err(Stop::Halted);
        }
        // Propagation to a fixpoint, then the branches.
        let alts: Vec<(usize, usize)> = loop {
            if rows_left.is_zero() {
                return Err(Stop::Satisfiable);
            }
            let (mut t1, mut t2, mut t3) = (B::zero(), B::zero(), B::zero());
            let (mut best, mut best_row) = (u32::MAX, 0);
            let mut forced = None;
            let mut dead = false;
            let mut left = rows_left;
            while !left.is_zero() {
                let r = left.lowest();
                left = left.without(r);
                let a = open[r];
                let k = a.count();
                if k == 0 {
                    dead = true;
                    break;
                }
                if k == 1 {
                    forced = Some((r, a.lowest()));
                    break;
                }
                t3 = t3.or(t2.and(a));
                t2 = t2.or(t1.and(a));
                t1 = t1.or(a);
                if k < best {
                    best = k;
                    best_row = r;
                }
            }
            if !dead && forced.is_none() {
                dead = !cols_left.and_not(t1).is_zero();
            }
            if dead {
                return self.clause(false, None);
            }
            if forced.is_none() {
                let once = cols_left.and_not(t2);
                if !once.is_zero() {
                    let c = once.lowest();
                    let mut left = rows_left;
                    while !open[left.lowest()].has(c) {
                        left = left.without(left.lowest());
                    }
                    forced = Some((left.lowest(), c));
                }
            }
            if let Some((r, c)) = forced {
                self.place(&mut open, &mut rows_left, &mut cols_left, r, c);
                continue;
            }
            let pairs = t2.and_not(t3);
            let mut alts = Vec::new();
            if best > 2 && !pairs.is_zero() {
                let c = pairs.lowest();
                rows_left.each(|r| {
                    if open[r].has(c) {
                        alts.push((r, c));
                    }
                });
            } else {
                open[best_row].each(|c| alts.push((best_row, c)));
            }
            break alts;
        };
        for &(r, c) in &alts {
            let (mut o, mut rl, mut cl) = (open.clone(), rows_left, cols_left);
            self.place(&mut o, &mut rl, &mut cl, r, c);
            self.decisions.push(self.var[r * self.m + c]);
            let done = self.node(o, rl, cl);
            self.decisions.pop();
            done?;
        }
        self.clause(false, None)?;
        if !self.decisions.is_empty() {
            for &(r, c) in &alts {
                let v = self.var[r * self.m + c];
                self.clause(true, Some(v))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residual(n: u64, queens: &[(u64, u64)]) -> Residual {
        Residual::from_queens(n, queens)
    }

    fn proof(res: &Residual, max: u64) -> (ProofEnd, String) {
        let mut out = Vec::new();
        let end = write_drat(res, max, &crate::stop::Stop::never(), &mut out).unwrap();
        (end, String::from_utf8(out).unwrap())
    }

    #[test]
    fn an_infeasible_residual_gets_a_proof_ending_in_the_empty_clause() {
        // A queen in the corner of a 4-board: no completion.
        let (end, text) = proof(&residual(4, &[(1, 1)]), MAX_LEMMAS);
        let ProofEnd::Proved { lemmas, .. } = end else {
            panic!("{end:?}")
        };
        assert_eq!(
            text.lines().filter(|l| !l.starts_with('d')).count() as u64,
            lemmas
        );
        assert_eq!(text.lines().last(), Some("0"));
    }

    #[test]
    fn a_completable_residual_and_the_limit_are_reported() {
        // The empty 6-board has solutions.
        assert_eq!(
            proof(&residual(6, &[]), MAX_LEMMAS).0,
            ProofEnd::Satisfiable
        );
        // The empty 3-board has none, but needs more than one lemma.
        assert_eq!(
            proof(&residual(3, &[]), 1).0,
            ProofEnd::TooLarge { limit: 1 }
        );
        assert!(matches!(
            proof(&residual(3, &[]), MAX_LEMMAS).0,
            ProofEnd::Proved { .. }
        ));
    }
}
