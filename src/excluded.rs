//! The Excluded Diagonals Problem (CSPLib 079) and its reduction to n-queens completion.
//!
//! An instance is an m-board on which some sum diagonals (row + col = d) and difference
//! diagonals (row - col = d - (m - 1)) are excluded; a solution is m non-attacking queens,
//! one per row and column, none on an excluded diagonal.
//!
//! [`ExcludedDiagonals::reduce`] builds an n-queens completion instance with the same
//! solutions: the m-board becomes a block of m consecutive free rows and columns inside a
//! larger board, and the given queens, outside the block, occupy exactly the excluded
//! diagonals among those that cross it. Every completion then puts its m free queens in
//! the block, on the allowed diagonals only, so completions and solutions correspond one
//! to one (the reduction preserves counts).
//!
//! Gent, Jefferson and Nightingale (JAIR 59, 2017) prove that such boards exist with a
//! fixed algebraic gadget of about 266m rows. We build the given queens by search instead
//! (the construction's text was not at hand): place one queen on each excluded diagonal,
//! then fill the other rows with the exact end game of the completion engine while
//! keeping every block diagonal clear. The board is 8m to 11m rows, is found in
//! milliseconds for the sizes that are hard (m <= 30), depends only on the instance, and
//! is checked in full before use: [`Reduction::check`] re-derives the property that makes
//! the correspondence exact.

use crate::complete::residual::Residual;
use crate::complete::search::{SearchOutcome, search};
use crate::complete::seeded_rng;
use rand::RngExt;

/// An Excluded Diagonals instance on an `m`-board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcludedDiagonals {
    /// Board size.
    pub m: u64,
    /// `sum[d]`: the diagonal row + col = d (0-based) is excluded; `2m - 1` entries.
    pub sum: Vec<bool>,
    /// `diff[d]`: the diagonal row - col = d - (m - 1) is excluded; `2m - 1` entries.
    pub diff: Vec<bool>,
}

/// A diagonal of an m-board as CSPLib 079 names it: `[d, 1]` a sum diagonal, `[d, 0]` a
/// difference diagonal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Diagonal {
    /// Index 0 ..= 2m - 2.
    pub d: u64,
    /// True for a sum diagonal (t = 1).
    pub is_sum: bool,
}

impl ExcludedDiagonals {
    /// The instance on an `m`-board excluding `diagonals` (each `d < 2m - 1`).
    pub fn new(m: u64, diagonals: &[Diagonal]) -> Self {
        let len = (2 * m).saturating_sub(1) as usize;
        let mut e = ExcludedDiagonals {
            m,
            sum: vec![false; len],
            diff: vec![false; len],
        };
        for g in diagonals {
            let v = if g.is_sum { &mut e.sum } else { &mut e.diff };
            v[g.d as usize] = true;
        }
        e
    }

    /// Whether the cell (row, col), 0-based, is on no excluded diagonal.
    pub fn allowed(&self, row: u64, col: u64) -> bool {
        !self.sum[(row + col) as usize] && !self.diff[(row + self.m - 1 - col) as usize]
    }

    /// Checks a solution given as `q[i]` = 1-based column of the queen in row i + 1.
    pub fn check_solution(&self, q: &[u32]) -> Result<(), String> {
        if q.len() as u64 != self.m {
            return Err(format!(
                "{} rows for an excluded-diagonals board of {}",
                q.len(),
                self.m
            ));
        }
        let len = self.sum.len();
        let (mut cols, mut sums, mut diffs) = (
            vec![false; self.m as usize],
            vec![false; len],
            vec![false; len],
        );
        for (i, &c) in q.iter().enumerate() {
            let row = i as u64 + 1;
            if c == 0 || c as u64 > self.m {
                return Err(format!("row {row} has no queen on the board (value {c})"));
            }
            let (r, c) = (i as u64, c as u64 - 1);
            if !self.allowed(r, c) {
                return Err(format!("the queen of row {row} is on an excluded diagonal"));
            }
            let (s, d) = ((r + c) as usize, (r + self.m - 1 - c) as usize);
            if std::mem::replace(&mut cols[c as usize], true)
                || std::mem::replace(&mut sums[s], true)
                || std::mem::replace(&mut diffs[d], true)
            {
                return Err(format!("the queen of row {row} attacks an earlier queen"));
            }
        }
        Ok(())
    }

    /// The completion instance with the same solutions; deterministic.
    pub fn reduce(&self) -> Reduction {
        let m = self.m;
        // Board size in multiples of m: grown until the gadget queens fit (in practice
        // 8 to 11); a board of 20m + 8 rows has room to spare, and larger ones more.
        let mut extra = 6;
        for attempt in 0u64.. {
            let n = extra * m + 8;
            let mut rng = seeded_rng(m, &[attempt, 0xED]);
            if let Some(r) = self.build(n, &mut rng) {
                return r;
            }
            extra += 1 + extra / 4;
        }
        unreachable!("the loop returns")
    }

    fn build(&self, n: u64, rng: &mut rand_chacha::ChaCha8Rng) -> Option<Reduction> {
        let m = self.m;
        let origin = (n - m) / 2;
        let red = Reduction {
            n,
            origin,
            m,
            rows: Vec::new(),
        };
        let mut rows = vec![0u32; n as usize];
        let (mut row_used, mut col_used) = (vec![false; n as usize], vec![false; n as usize]);
        for i in origin..origin + m {
            row_used[i as usize] = true;
            col_used[i as usize] = true;
        }
        let mut sums = vec![false; 2 * n as usize];
        let mut diffs = vec![false; 2 * n as usize];
        let excluded = self
            .sum
            .iter()
            .enumerate()
            .map(|(d, &x)| (d, true, x))
            .chain(self.diff.iter().enumerate().map(|(d, &x)| (d, false, x)))
            .filter(|g| g.2);
        for (d, is_sum, _) in excluded {
            let candidates: Vec<(u64, u64)> = (0..n)
                .filter(|&r| !row_used[r as usize])
                .filter_map(|r| {
                    let c = if is_sum {
                        (2 * origin + d as u64).checked_sub(r)?
                    } else {
                        (r + m - 1).checked_sub(d as u64)?
                    };
                    (c < n && !col_used[c as usize]).then_some((r, c))
                })
                .filter(|&(r, c)| {
                    let other = if is_sum {
                        red.diff_of(r, c)
                    } else {
                        red.sum_of(r, c)
                    };
                    other.is_none() && !sums[(r + c) as usize] && !diffs[(r + n - 1 - c) as usize]
                })
                .collect();
            if candidates.is_empty() {
                return None;
            }
            let (r, c) = candidates[rng.random_range(0..candidates.len())];
            rows[r as usize] = c as u32 + 1;
            row_used[r as usize] = true;
            col_used[c as usize] = true;
            sums[(r + c) as usize] = true;
            diffs[(r + n - 1 - c) as usize] = true;
        }
        let free_rows: Vec<u64> = (1..=n).filter(|&r| !row_used[r as usize - 1]).collect();
        let free_cols: Vec<u64> = (1..=n).filter(|&c| !col_used[c as usize - 1]).collect();
        let res = Residual::build(free_rows, free_cols, |i, j| {
            let (r, c) = (i - 1, j - 1);
            red.sum_of(r, c).is_none()
                && red.diff_of(r, c).is_none()
                && !sums[(r + c) as usize]
                && !diffs[(r + n - 1 - c) as usize]
        });
        // Short randomized searches with restarts find fillings far more reliably than one
        // long search, which can sink its budget into one bad early choice.
        let cells = (0..RESTARTS).find_map(|_| {
            match search(&res, n, Some(&mut *rng), 40 * n, &|| false).0 {
                SearchOutcome::Solved(cells) => Some(cells),
                SearchOutcome::Exhausted | SearchOutcome::Stopped => None,
            }
        })?;
        for (i, j) in cells {
            rows[i as usize - 1] = j as u32;
        }
        let red = Reduction { rows, ..red };
        red.check(self)
            .expect("the gadget queens were placed to satisfy it");
        Some(red)
    }
}

/// Randomized searches tried per board size before the board is made larger.
const RESTARTS: usize = 30;

/// An excluded-diagonals instance turned into a completion instance.
#[derive(Debug, Clone)]
pub struct Reduction {
    /// Size of the completion board.
    pub n: u64,
    /// 0-based first row (and column) of the block that holds the m-board.
    pub origin: u64,
    /// Size of the excluded-diagonals board.
    pub m: u64,
    /// The composition: `rows[i]` = 1-based column of row i + 1, 0 for the block's rows.
    pub rows: Vec<u32>,
}

impl Reduction {
    /// The m-board sum diagonal through board cell (r, c) (0-based), if it crosses the block.
    fn sum_of(&self, r: u64, c: u64) -> Option<u64> {
        (r + c)
            .checked_sub(2 * self.origin)
            .filter(|&d| d + 1 < 2 * self.m)
    }

    /// The m-board difference diagonal index through board cell (r, c), if it crosses the
    /// block.
    fn diff_of(&self, r: u64, c: u64) -> Option<u64> {
        (r + self.m - 1)
            .checked_sub(c)
            .filter(|&d| d + 1 < 2 * self.m)
    }

    /// Checks what makes completions and solutions correspond: the given queens attack
    /// no one, fill every row and column but the block's, and occupy exactly the excluded
    /// diagonals among those crossing the block.
    pub fn check(&self, ed: &ExcludedDiagonals) -> Result<(), String> {
        let n = self.n;
        let block = self.origin..self.origin + self.m;
        let mut cols = vec![false; n as usize];
        let (mut sums, mut diffs) = (vec![false; 2 * n as usize], vec![false; 2 * n as usize]);
        let mut hit_sum = vec![false; ed.sum.len()];
        let mut hit_diff = vec![false; ed.diff.len()];
        for (i, &q) in self.rows.iter().enumerate() {
            let r = i as u64;
            if block.contains(&r) != (q == 0) {
                return Err(format!("row {} is wrongly filled", r + 1));
            }
            if q == 0 {
                continue;
            }
            let c = q as u64 - 1;
            if block.contains(&c) {
                return Err(format!("the queen of row {} is in a block column", r + 1));
            }
            if std::mem::replace(&mut cols[c as usize], true)
                || std::mem::replace(&mut sums[(r + c) as usize], true)
                || std::mem::replace(&mut diffs[(r + n - 1 - c) as usize], true)
            {
                return Err(format!("the queen of row {} is attacked", r + 1));
            }
            if let Some(d) = self.sum_of(r, c) {
                hit_sum[d as usize] = true;
            }
            if let Some(d) = self.diff_of(r, c) {
                hit_diff[d as usize] = true;
            }
        }
        if hit_sum != ed.sum || hit_diff != ed.diff {
            return Err("the block diagonals occupied differ from the excluded ones".into());
        }
        Ok(())
    }

    /// The m-board solution inside a solution of the completion board (`rows` 1-based
    /// columns, as read from a file); checks that `rows` completes this reduction.
    pub fn solution_of(&self, rows: &[u32]) -> Result<Vec<u32>, String> {
        if rows.len() as u64 != self.n {
            return Err(format!(
                "{} rows, but the instance reduces to a board of {}",
                rows.len(),
                self.n
            ));
        }
        for (i, (&got, &given)) in rows.iter().zip(&self.rows).enumerate() {
            if given != 0 && got != given {
                return Err(format!(
                    "row {} holds {got}, but the reduction gives the queen {given}",
                    i + 1
                ));
            }
        }
        let block = self.origin as usize..(self.origin + self.m) as usize;
        rows[block]
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                (c as u64)
                    .checked_sub(self.origin + 1)
                    .filter(|&j| j < self.m)
                    .map(|j| j as u32 + 1)
                    .ok_or_else(|| {
                        format!(
                            "row {} has {c}, outside the block's columns",
                            self.origin + i as u64 + 1
                        )
                    })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Solutions of an instance by trying every permutation.
    fn brute_force(ed: &ExcludedDiagonals) -> Vec<Vec<u32>> {
        fn go(ed: &ExcludedDiagonals, q: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            if q.len() as u64 == ed.m {
                if ed.check_solution(q).is_ok() {
                    out.push(q.clone());
                }
                return;
            }
            for c in 1..=ed.m as u32 {
                if !q.contains(&c) {
                    q.push(c);
                    go(ed, q, out);
                    q.pop();
                }
            }
        }
        let mut out = Vec::new();
        go(ed, &mut Vec::new(), &mut out);
        out
    }

    fn random_instance(
        m: u64,
        count: usize,
        rng: &mut rand_chacha::ChaCha8Rng,
    ) -> ExcludedDiagonals {
        let diags: Vec<Diagonal> = (0..count)
            .map(|_| Diagonal {
                d: rng.random_range(0..2 * m - 1),
                is_sum: rng.random_bool(0.5),
            })
            .collect();
        ExcludedDiagonals::new(m, &diags)
    }

    /// Completions of a reduced board: its block rows searched exhaustively.
    fn completions(red: &Reduction) -> Vec<Vec<u32>> {
        let n = red.n as usize;
        let mut out = Vec::new();
        let free: Vec<usize> = (0..n).filter(|&i| red.rows[i] == 0).collect();
        let mut rows = red.rows.clone();
        fn go(n: usize, free: &[usize], rows: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            let Some((&r, rest)) = free.split_first() else {
                out.push(rows.clone());
                return;
            };
            for c in 1..=n as u32 {
                let ok = rows.iter().enumerate().all(|(i, &q)| {
                    q == 0 || (q != c && (i as i64 - r as i64).abs() != (q as i64 - c as i64).abs())
                });
                if ok {
                    rows[r] = c;
                    go(n, rest, rows, out);
                    rows[r] = 0;
                }
            }
        }
        go(n, &free, &mut rows, &mut out);
        out
    }

    #[test]
    fn reduced_boards_have_the_same_solutions() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(79);
        for case in 0..60 {
            let m = 1 + case % 7;
            let ed = random_instance(m, rng.random_range(0..=3 * m as usize), &mut rng);
            let red = ed.reduce();
            red.check(&ed).unwrap();
            let mut mapped: Vec<Vec<u32>> = completions(&red)
                .iter()
                .map(|s| red.solution_of(s).unwrap())
                .collect();
            mapped.sort();
            let mut truth = brute_force(&ed);
            truth.sort();
            assert_eq!(mapped, truth, "case {case}: {ed:?}");
        }
    }

    #[test]
    fn reduction_is_deterministic_and_handles_dense_instances() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let all = |m: u64| {
            let d: Vec<Diagonal> = (0..2 * m - 1)
                .flat_map(|d| [true, false].map(|is_sum| Diagonal { d, is_sum }))
                .collect();
            ExcludedDiagonals::new(m, &d)
        };
        for m in [1, 2, 14, 21, 30] {
            let ed = all(m);
            let a = ed.reduce();
            a.check(&ed).unwrap();
            assert_eq!(a.rows, ed.reduce().rows);
            let ed = random_instance(m, (1.8 * m as f64) as usize, &mut rng);
            ed.reduce().check(&ed).unwrap();
        }
    }

    #[test]
    fn solution_of_rejects_other_boards() {
        let ed = ExcludedDiagonals::new(4, &[]);
        let red = ed.reduce();
        let mut rows = red.rows.clone();
        assert!(red.solution_of(&rows[1..]).is_err());
        let given = rows.iter().position(|&q| q != 0).unwrap();
        rows[given] = 0;
        assert!(
            red.solution_of(&rows)
                .unwrap_err()
                .contains("reduction gives")
        );
    }
}
