//! The Excluded Diagonals problem (CSPLib 079) and its reduction to n-queens completion.
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
//! The board is Gent, Jefferson and Nightingale's (JAIR 59, 2017, Section 3; the authors'
//! `diagtoqueens.py` in CSPLib 079 follows the same steps). First the m-board goes into a
//! board of 7m - 3 with one given queen on each excluded diagonal, placed where it uses
//! none of the m-board's rows and columns. Then that board, with its queens, goes into the
//! corner of a board of 19p + k (p = 2(7m - 3) +- 1, prime to 6; k = m + the number of
//! excluded diagonals), filled by a 19-queens pattern of p x p blocks that each hold the
//! modular solution (i, 2i mod p); the blocks next to the corner leave out its lines, and
//! a strip of k rows and columns takes them over. The size is polynomial (about 266m) and
//! the board is built in time linear in it. [`Reduction::check`] re-derives the property
//! that makes the correspondence exact; the tests run it on every instance shape they make.

/// Largest board [`generate`] makes (its work grows with the square of the board).
pub const MAX_GENERATED_M: u64 = 10_000;

/// The Excluded Diagonals generator described by Gent, Jefferson and Nightingale (JAIR 59,
/// 2017; CSPLib 079): the 4m - 2 diagonals of an m-board in an order drawn from `seed`; each
/// is excluded unless that would leave some row or column with fewer than `min_free` cells
/// on no excluded diagonal. Returns the excluded diagonals in the order excluded: the
/// instances of a series are its prefixes (the first d for d = 1, 2, ...).
pub fn generate(m: u64, seed: u64, min_free: u64) -> Vec<Diagonal> {
    assert!((1..=MAX_GENERATED_M).contains(&m), "board of {m} rows");
    let mut order: Vec<Diagonal> = (0..2 * m - 1)
        .flat_map(|d| [false, true].map(|is_sum| Diagonal { d, is_sum }))
        .collect();
    crate::rng::Rng::seeded(seed, &[6, m]).shuffle(&mut order);
    let mut ed = ExcludedDiagonals::new(m, &[]);
    let (mut row_free, mut col_free) = (vec![m; m as usize], vec![m; m as usize]);
    let mut excluded = Vec::new();
    for g in order {
        // The cells of g still allowed (not also on an excluded diagonal of the other kind).
        let cells: Vec<(u64, u64)> = (0..m)
            .filter_map(|r| {
                let c = if g.is_sum {
                    g.d.checked_sub(r)?
                } else {
                    (r + m - 1).checked_sub(g.d)?
                };
                (c < m && ed.allowed(r, c)).then_some((r, c))
            })
            .collect();
        let (mut row_loss, mut col_loss) = (
            std::collections::HashMap::new(),
            std::collections::HashMap::new(),
        );
        for &(r, c) in &cells {
            *row_loss.entry(r).or_insert(0u64) += 1;
            *col_loss.entry(c).or_insert(0u64) += 1;
        }
        let too_few = row_loss
            .iter()
            .any(|(&r, &k)| row_free[r as usize] - k < min_free)
            || col_loss
                .iter()
                .any(|(&c, &k)| col_free[c as usize] - k < min_free);
        if too_few {
            continue;
        }
        for (r, c) in cells {
            row_free[r as usize] -= 1;
            col_free[c as usize] -= 1;
        }
        let v = if g.is_sum { &mut ed.sum } else { &mut ed.diff };
        v[g.d as usize] = true;
        excluded.push(g);
    }
    excluded
}

/// `diagonals` as a CSPLib 079 Excluded Diagonals file whose instance is the first
/// `numdiags` of them.
pub fn to_csplib(m: u64, diagonals: &[Diagonal], numdiags: usize) -> String {
    let list: Vec<String> = diagonals
        .iter()
        .map(|g| format!("[{}, {}]", g.d, g.is_sum as u8))
        .collect();
    format!(
        "n = {m}\nnumdiags = {numdiags}\ndiags = [{}]\n",
        list.join(", ")
    )
}

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

    /// The instance's solution inside `rows`, a solution of its [reduced
    /// board](ExcludedDiagonals::reduce), checked against the instance itself.
    pub fn solution_from_reduced(&self, rows: &[u32]) -> Result<Vec<u32>, String> {
        let solution = self.reduce().solution_of(rows)?;
        self.check_solution(&solution)?;
        Ok(solution)
    }

    /// The completion instance with the same solutions, by Gent, Jefferson and
    /// Nightingale's construction; deterministic, about 266m rows.
    pub fn reduce(&self) -> Reduction {
        let m = self.m;
        assert!(m >= 1, "an excluded-diagonals board has at least one row");
        // Step 1: the m-board at rows 3m - 2 .., columns 0 .. of a board of 7m - 3, with
        // one given queen on each excluded diagonal, all outside the m-board's lines.
        let side = 7 * m - 3;
        let (row0, col0) = (3 * m - 2, 0);
        let mut given: Vec<(u64, u64)> = Vec::new();
        for (s, _) in self.sum.iter().enumerate().filter(|e| *e.1) {
            let s = s as u64;
            given.push((2 * m - 2 - s, m + 2 * s));
        }
        for (i, _) in self.diff.iter().enumerate().filter(|e| *e.1) {
            let i = i as u64;
            given.push((7 * m - 4 - i, 5 * m - 3 - 2 * i));
        }
        let mut used_rows: Vec<u64> = (row0..row0 + m).chain(given.iter().map(|q| q.0)).collect();
        let mut used_cols: Vec<u64> = (col0..col0 + m).chain(given.iter().map(|q| q.1)).collect();
        used_rows.sort_unstable();
        used_cols.sort_unstable();
        let k = used_rows.len() as u64;
        // Step 2: that board in the corner of a 19 x 19 arrangement of blocks of side p,
        // each holding the modular solution (i, 2i mod p) or its transpose, with a last
        // strip of k rows and columns that takes over, in blocks (19, 8) and (17, 19), the
        // rows and columns the corner board uses. p = 2 side +- 1 is prime to 6, which is
        // what makes (i, 2i mod p) a solution.
        let p = if side % 3 == 2 {
            2 * side + 1
        } else {
            2 * side - 1
        };
        let n = 19 * p + k;
        let mut rows = vec![0u32; n as usize];
        let mut put = |r: u64, c: u64| {
            debug_assert_eq!(rows[r as usize], 0);
            rows[r as usize] = c as u32 + 1;
        };
        for &(r, c) in &given {
            put(r, c);
        }
        let skip_row = |i: u64| used_rows.binary_search(&i).is_ok();
        let skip_col = |i: u64| used_cols.binary_search(&i).is_ok();
        for i in (0..p).filter(|&i| !skip_row(i)) {
            put(i, 8 * p + 2 * i % p);
        }
        for i in (0..p).filter(|&i| !skip_col(i)) {
            put(17 * p + 2 * i % p, i);
        }
        for &(br, bc) in &MODULAR_BLOCKS {
            for i in 0..p {
                put(br * p + i, bc * p + 2 * i % p);
            }
        }
        for (i, (&r, &c)) in used_rows.iter().zip(&used_cols).enumerate() {
            let i = i as u64;
            put(19 * p + i, 8 * p + 2 * r);
            put(17 * p + 2 * c, 19 * p + i);
        }
        Reduction {
            n,
            row0,
            col0,
            m,
            rows,
        }
    }
}

/// The blocks (block row, block column) of the 19-queens pattern that hold a full modular
/// solution; the pattern's other queens are the corner board's blocks (0, 8) and (17, 0),
/// each missing the lines the corner board uses, and the strip blocks (19, 8) and (17, 19).
const MODULAR_BLOCKS: [(u64, u64); 17] = [
    (1, 12),
    (2, 17),
    (3, 7),
    (4, 10),
    (5, 15),
    (6, 1),
    (7, 16),
    (8, 13),
    (9, 2),
    (10, 6),
    (11, 18),
    (12, 3),
    (13, 5),
    (14, 11),
    (15, 9),
    (16, 14),
    (18, 4),
];

/// An excluded-diagonals instance turned into a completion instance.
#[derive(Debug, Clone)]
pub struct Reduction {
    /// Size of the completion board.
    pub n: u64,
    /// 0-based first row of the block of free rows that holds the m-board.
    pub row0: u64,
    /// 0-based first column of the block of free columns.
    pub col0: u64,
    /// Size of the excluded-diagonals board.
    pub m: u64,
    /// The composition: `rows[i]` = 1-based column of row i + 1, 0 for the block's rows.
    pub rows: Vec<u32>,
}

impl Reduction {
    /// The m-board sum diagonal through board cell (r, c) (0-based), if it crosses the block.
    fn sum_of(&self, r: u64, c: u64) -> Option<u64> {
        (r + c)
            .checked_sub(self.row0 + self.col0)
            .filter(|&d| d + 1 < 2 * self.m)
    }

    /// The m-board difference diagonal index through board cell (r, c), if it crosses the
    /// block.
    fn diff_of(&self, r: u64, c: u64) -> Option<u64> {
        (r + self.col0 + self.m - 1)
            .checked_sub(c + self.row0)
            .filter(|&d| d + 1 < 2 * self.m)
    }

    /// Checks what makes completions and solutions correspond: the given queens attack
    /// no one, fill every row and column but the block's, and occupy exactly the excluded
    /// diagonals among those crossing the block.
    pub fn check(&self, ed: &ExcludedDiagonals) -> Result<(), String> {
        let n = self.n;
        let block_rows = self.row0..self.row0 + self.m;
        let block_cols = self.col0..self.col0 + self.m;
        let mut cols = vec![false; n as usize];
        let (mut sums, mut diffs) = (vec![false; 2 * n as usize], vec![false; 2 * n as usize]);
        let mut hit_sum = vec![false; ed.sum.len()];
        let mut hit_diff = vec![false; ed.diff.len()];
        for (i, &q) in self.rows.iter().enumerate() {
            let r = i as u64;
            if block_rows.contains(&r) != (q == 0) {
                return Err(format!("row {} is wrongly filled", r + 1));
            }
            if q == 0 {
                continue;
            }
            let c = q as u64 - 1;
            if block_cols.contains(&c) {
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

    /// The completion board with `q` (1-based columns of the m-board, 0 for an empty
    /// row) in its block of free rows: the inverse of [`Reduction::solution_of`]. A
    /// column beyond the m-board is kept off the block (past the board's last column),
    /// so that the verifier reports it rather than this hiding it.
    pub fn board_with(&self, q: &[u32]) -> Vec<u32> {
        let mut rows = self.rows.clone();
        for (i, &c) in q.iter().enumerate().take(self.m as usize) {
            let row = &mut rows[(self.row0 + i as u64) as usize];
            *row = match c {
                0 => 0,
                c if c as u64 > self.m => u32::MAX,
                c => (self.col0 + c as u64) as u32,
            };
        }
        rows
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
        let block = self.row0 as usize..(self.row0 + self.m) as usize;
        rows[block]
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                (c as u64)
                    .checked_sub(self.col0 + 1)
                    .filter(|&j| j < self.m)
                    .map(|j| j as u32 + 1)
                    .ok_or_else(|| {
                        format!(
                            "row {} has {c}, outside the block's columns",
                            self.row0 + i as u64 + 1
                        )
                    })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allowed cells per row and per column.
    fn free_counts(ed: &ExcludedDiagonals) -> (Vec<u64>, Vec<u64>) {
        let m = ed.m;
        let row = (0..m).map(|r| (0..m).filter(|&c| ed.allowed(r, c)).count() as u64);
        let col = (0..m).map(|c| (0..m).filter(|&r| ed.allowed(r, c)).count() as u64);
        (row.collect(), col.collect())
    }

    #[test]
    fn generated_series_keep_four_cells_per_line_and_cannot_grow() {
        for (m, seed) in [(8u64, 1u64), (21, 2), (25, 3)] {
            let g = generate(m, seed, 4);
            assert_eq!(g, generate(m, seed, 4), "deterministic");
            assert_ne!(g, generate(m, seed + 1, 4));
            let ed = ExcludedDiagonals::new(m, &g);
            let (rows, cols) = free_counts(&ed);
            assert!(rows.iter().chain(&cols).all(|&k| k >= 4), "m = {m}");
            let mut seen = std::collections::HashSet::new();
            assert!(g.iter().all(|d| seen.insert((d.d, d.is_sum))));
            // Maximal: excluding any other diagonal would leave a line with fewer than 4.
            for d in 0..2 * m - 1 {
                for is_sum in [false, true] {
                    if seen.contains(&(d, is_sum)) {
                        continue;
                    }
                    let mut more = g.clone();
                    more.push(Diagonal { d, is_sum });
                    let (r2, c2) = free_counts(&ExcludedDiagonals::new(m, &more));
                    assert!(
                        r2.iter().chain(&c2).any(|&k| k < 4),
                        "m = {m}: {d} {is_sum}"
                    );
                }
            }
        }
    }

    #[test]
    fn generated_files_read_back() {
        let g = generate(12, 9, 4);
        let text = to_csplib(12, &g, 10);
        let f = crate::format::csplib::parse(std::path::Path::new("g.txt"), text.as_bytes(), None)
            .unwrap();
        let _ = f;
    }
    use rand::{RngExt, SeedableRng};

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
        let free_cols: Vec<u32> = (1..=n as u32).filter(|c| !red.rows.contains(c)).collect();
        let mut rows = red.rows.clone();
        fn go(cols: &[u32], free: &[usize], rows: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            let Some((&r, rest)) = free.split_first() else {
                out.push(rows.clone());
                return;
            };
            for &c in cols {
                let ok = rows.iter().enumerate().all(|(i, &q)| {
                    q == 0 || (q != c && (i as i64 - r as i64).abs() != (q as i64 - c as i64).abs())
                });
                if ok {
                    rows[r] = c;
                    go(cols, rest, rows, out);
                    rows[r] = 0;
                }
            }
        }
        go(&free_cols, &free, &mut rows, &mut out);
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
            let completions = completions(&red);
            let mut mapped: Vec<Vec<u32>> = completions
                .iter()
                .map(|s| red.solution_of(s).unwrap())
                .collect();
            // board_with is solution_of's inverse.
            for (full, q) in completions.iter().zip(&mapped) {
                assert_eq!(&red.board_with(q), full, "case {case}");
            }
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
        for m in (1..=40).chain([64, 101]) {
            let ed = all(m);
            let a = ed.reduce();
            a.check(&ed).unwrap();
            assert_eq!(a.rows, ed.reduce().rows);
            // The construction's size: 19p + k, p = 2(7m - 3) +- 1 prime to 6.
            let side = 7 * m - 3;
            let p = if side % 3 == 2 {
                2 * side + 1
            } else {
                2 * side - 1
            };
            assert_eq!((p % 2, p % 3 != 0), (1, true));
            assert_eq!(a.n, 19 * p + m + 2 * (2 * m - 1));
            for count in [0, m as usize / 2, (1.8 * m as f64) as usize] {
                let ed = random_instance(m, count, &mut rng);
                ed.reduce().check(&ed).unwrap();
            }
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
