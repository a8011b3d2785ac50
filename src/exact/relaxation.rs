//! Refuting a residual by its linear relaxation: a certificate of infeasibility found by
//! linear programming and checked in integers.
//!
//! Give each free row `i` a weight `a_i`, each free column `j` a weight `b_j` (of any
//! sign) and each diagonal `g` a weight `w_g >= 0`, such that every free cell (i, j) has
//! `a_i + b_j <= w_D1(i,j) + w_D2(i,j)`. A completion puts one queen in each free row and
//! column, at most one on each diagonal; adding the inequality over its queens gives
//! `sum a + sum b <= sum w`. So weights with `sum a + sum b > sum w` prove that no
//! completion exists (Farkas' lemma for the relaxation in which the queens are fractions:
//! such weights exist exactly when that relaxation is infeasible).
//!
//! On Excluded Diagonals instances the relaxation is often infeasible where the exact
//! search is long: at n = 29, four of the six infeasible instances of seeds 4-6 at
//! d = 26-29 (searches of 4-55 s) are refuted at the root in milliseconds (BENCHMARKS.md).
//! The weights are found by `microlp` (a simplex in pure Rust) on the dual program, then
//! rounded to integers and repaired until the inequalities hold exactly, so a wrong
//! floating-point answer can only cost a refutation, never give a false one; the
//! certificate ([`Certificate::WeightedCover`]) is checked the same way by anyone.

use super::{Certificate, Residual};
use crate::stop::Stop;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Free cells beyond which no program is built (the simplex's time grows faster than the
/// search it could save on residuals this wide).
pub(crate) const MAX_CELLS: u64 = 4096;

/// Weights are rounded to multiples of `1 / SCALE`.
const SCALE: f64 = (1u64 << 20) as f64;

/// The longest a simplex may run (it stops at its limit, and the search goes on).
const TIME_LIMIT: Duration = Duration::from_secs(2);

/// The diagonals through free cell `(i, j)` of an `n`-board: D1 `n + j - i` and D2 `i + j`.
fn diagonals(n: u64, i: u64, j: u64) -> (u64, u64) {
    (n + j - i, i + j)
}

/// The environment variable that turns the refutation off (`0`) or on (`1`, the default):
/// a switch for measuring the search alone.
pub const RELAXATION_VAR: &str = "NQUEENS_RELAXATION";

/// Whether the refutation is on: [`RELAXATION_VAR`] unset or `1`; `0` turns it off;
/// anything else is the value, refused (never silently on).
pub fn relaxation_enabled() -> Result<bool, String> {
    static ON: std::sync::OnceLock<Result<bool, String>> = std::sync::OnceLock::new();
    ON.get_or_init(|| match std::env::var_os(RELAXATION_VAR) {
        None => Ok(true),
        Some(v) if v == "1" => Ok(true),
        Some(v) if v == "0" => Ok(false),
        Some(v) => Err(v.to_string_lossy().into_owned()),
    })
    .clone()
}

/// Weights that refute `res` (the free part of an `n`-board), when its linear relaxation is
/// infeasible and the simplex finds them within its limits and before `stop`; `None`
/// otherwise, and when [`relaxation_enabled`] says no.
pub(crate) fn refute(res: &Residual, n: u64, stop: &Stop) -> Option<Certificate> {
    if relaxation_enabled() != Ok(true)
        || res.size() == 0
        || res.free_cells() > MAX_CELLS
        || stop.now()
    {
        return None;
    }
    let weights = solve(res, n, stop)?;
    let cert = certificate(res, n, &weights)?;
    debug_assert!(check(res, n, &cert));
    Some(cert)
}

/// Whether weights refute `res` ([`refute`] on a board as large as its last row: the
/// diagonals' numbering does not change the weights).
pub(crate) fn refutes(res: &Residual, stop: &Stop) -> bool {
    let n = res.rows.last().copied().unwrap_or(0);
    refute(res, n, stop).is_some()
}

/// Fractional weights from the dual program: maximise `sum a + sum b - sum w` over
/// `-1 <= a, b <= 1`, `0 <= w <= 1` and the cells' inequalities (bounded, so the optimum
/// is positive exactly when refuting weights exist).
struct Fractional {
    rows: Vec<f64>,
    cols: Vec<f64>,
    d1: BTreeMap<u64, f64>,
    d2: BTreeMap<u64, f64>,
}

fn solve(res: &Residual, n: u64, stop: &Stop) -> Option<Fractional> {
    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    let m = res.size();
    let mut p = Problem::new(OptimizationDirection::Maximize);
    p.set_time_limit(TIME_LIMIT);
    let rows: Vec<_> = (0..m).map(|_| p.add_var(1.0, (-1.0, 1.0))).collect();
    let cols: Vec<_> = (0..m).map(|_| p.add_var(1.0, (-1.0, 1.0))).collect();
    let (mut d1, mut d2) = (BTreeMap::new(), BTreeMap::new());
    for (r, &row) in rows.iter().enumerate() {
        for c in super::ones(res.row_bits(r)) {
            let (g1, g2) = diagonals(n, res.rows[r], res.cols[c]);
            let w1 = *d1.entry(g1).or_insert_with(|| p.add_var(-1.0, (0.0, 1.0)));
            let w2 = *d2.entry(g2).or_insert_with(|| p.add_var(-1.0, (0.0, 1.0)));
            p.add_constraint(
                [(row, 1.0), (cols[c], 1.0), (w1, -1.0), (w2, -1.0)],
                ComparisonOp::Le,
                0.0,
            );
        }
    }
    // On a thread of its own, so that a deadline or Ctrl-C ends the wait at once (a program
    // of 3,600 cells took 0.3 s); one left behind ends within its limit. Whatever the
    // library does on a program it finds hard, the search decides the residual instead.
    let s = solve_apart(p, stop)?;
    (s.objective() > 1e-9).then(|| Fractional {
        rows: rows.iter().map(|&v| s.var_value(v)).collect(),
        cols: cols.iter().map(|&v| s.var_value(v)).collect(),
        d1: d1.into_iter().map(|(g, v)| (g, s.var_value(v))).collect(),
        d2: d2.into_iter().map(|(g, v)| (g, s.var_value(v))).collect(),
    })
}

/// The fractional weights rounded to integers (in units of `1 / SCALE`), the diagonals'
/// raised where rounding broke a cell's inequality; `None` if the total no longer exceeds
/// the diagonals' sum.
fn certificate(res: &Residual, n: u64, f: &Fractional) -> Option<Certificate> {
    let round = |x: f64| (x * SCALE).round() as i64;
    let a: Vec<i64> = f.rows.iter().map(|&x| round(x)).collect();
    let b: Vec<i64> = f.cols.iter().map(|&x| round(x)).collect();
    let mut w1: BTreeMap<u64, i64> = f.d1.iter().map(|(&g, &x)| (g, round(x).max(0))).collect();
    let w2: BTreeMap<u64, i64> = f.d2.iter().map(|(&g, &x)| (g, round(x).max(0))).collect();
    for (r, &ar) in a.iter().enumerate() {
        for c in super::ones(res.row_bits(r)) {
            let (g1, g2) = diagonals(n, res.rows[r], res.cols[c]);
            let short = ar + b[c] - w1[&g1] - w2[&g2];
            if short > 0 {
                *w1.get_mut(&g1).expect("every cell's diagonal has a weight") += short;
            }
        }
    }
    let listed = |lines: &[u64], w: &[i64]| -> Vec<[i64; 2]> {
        lines
            .iter()
            .zip(w)
            .filter(|&(_, &w)| w != 0)
            .map(|(&l, &w)| [l as i64, w])
            .collect()
    };
    let nonzero = |w: BTreeMap<u64, i64>| -> Vec<[i64; 2]> {
        w.into_iter()
            .filter(|&(_, w)| w != 0)
            .map(|(g, w)| [g as i64, w])
            .collect()
    };
    let mut lines = [
        listed(&res.rows, &a),
        listed(&res.cols, &b),
        nonzero(w1),
        nonzero(w2),
    ];
    reduce(&mut lines);
    let [rows, columns, d1, d2] = lines;
    let cert = Certificate::WeightedCover {
        rows,
        columns,
        d1,
        d2,
    };
    check(res, n, &cert).then_some(cert)
}

/// Divides every weight by their greatest common divisor.
fn reduce(lines: &mut [Vec<[i64; 2]>]) {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let g = lines
        .iter()
        .flatten()
        .fold(0, |g, &[_, w]| gcd(g, w.unsigned_abs()));
    if g > 1 {
        for [_, w] in lines.iter_mut().flatten() {
            *w /= g as i64;
        }
    }
}

/// Whether `cert` (a [`Certificate::WeightedCover`]) refutes `res`, in exact integers: every
/// free cell's row and column weights at most its diagonals' (absent lines weigh 0,
/// diagonal weights are not negative, rows and columns listed are free), and the rows' and
/// columns' total above the diagonals'.
pub(crate) fn check(res: &Residual, n: u64, cert: &Certificate) -> bool {
    let Certificate::WeightedCover {
        rows,
        columns,
        d1,
        d2,
    } = cert
    else {
        return false;
    };
    let map = |v: &[[i64; 2]]| -> BTreeMap<i64, i128> {
        v.iter().map(|&[l, w]| (l, w as i128)).collect()
    };
    let (a, b, w1, w2) = (map(rows), map(columns), map(d1), map(d2));
    // Each line once; rows and columns free ones; diagonals not negative.
    let once = [(rows, &a), (columns, &b), (d1, &w1), (d2, &w2)]
        .iter()
        .all(|(v, m)| v.len() == m.len());
    let free = |lines: &[u64], m: &BTreeMap<i64, i128>| {
        m.keys()
            .all(|&l| u64::try_from(l).is_ok_and(|l| lines.binary_search(&l).is_ok()))
    };
    if !once
        || !free(&res.rows, &a)
        || !free(&res.cols, &b)
        || w1.values().chain(w2.values()).any(|&w| w < 0)
    {
        return false;
    }
    let weight = |m: &BTreeMap<i64, i128>, l: u64| m.get(&(l as i64)).copied().unwrap_or(0);
    for r in 0..res.size() {
        for c in super::ones(res.row_bits(r)) {
            let (i, j) = (res.rows[r], res.cols[c]);
            let (g1, g2) = diagonals(n, i, j);
            if weight(&a, i) + weight(&b, j) > weight(&w1, g1) + weight(&w2, g2) {
                return false;
            }
        }
    }
    let sum = |m: &BTreeMap<i64, i128>| m.values().sum::<i128>();
    sum(&a) + sum(&b) > sum(&w1) + sum(&w2)
}

/// Cells on a diagonal of at most this many squares of the residual (free or not) are
/// probed by [`refuted_cells`]. On every Excluded Diagonals instance measured (n = 23-29,
/// 15 instances), the cells the relaxation refutes lie near the board's corners, on a
/// diagonal of at most 9 squares: probing those finds every one that probing all cells
/// finds, for a quarter of the probes (BENCHMARKS.md).
const PROBED_DIAGONAL: u64 = 9;

/// Residuals of fewer free rows are not probed: on Excluded Diagonals their searches take
/// at most a few seconds on two cores, and the probes (0.1-0.25 s at 21-25 rows, the dual
/// simplex steps of about a hundred probes) cost more than the nodes they save on most of
/// them (BENCHMARKS.md).
pub(crate) const PROBED_MIN_ROWS: usize = 26;

/// Pairs of cells on a diagonal of at most this many squares are probed by
/// [`refuted_pairs`]: at n = 29 d = 29 seed 4, 528 of 1,331 such pairs up to 9 squares
/// (6.0 s of probes and weights on two cores, 4.50 G nodes left), 674 up to 11 (12.5 s,
/// 3.21 G nodes), 795 up to 13 (23.0 s) (BENCHMARKS.md).
const PAIRED_DIAGONAL: u64 = 11;

/// Residuals of fewer free rows have no pairs probed ([`refuted_pairs`]): the pairs of
/// cells near the corners are thousands of probes (6-13 s with their weights on two cores
/// at 29 rows), which at 27 rows cost about what they save (n 27 d 27 seed 6: 6.6 s of
/// probes, 7.4 s of search saved) and at 29 many times over (BENCHMARKS.md).
pub(crate) const PAIRED_MIN_ROWS: usize = 28;

/// The environment variable that sets the fewest free rows probed, for cells and pairs of
/// cells alike (a whole number; unset: 26 for cells, 28 for pairs): a switch for
/// measuring, and for tests on residuals small enough for a debug build.
pub const PROBE_FROM_VAR: &str = "NQUEENS_PROBE_FROM";

/// The environment variable that sets the longest diagonal probed, for cells and pairs of
/// cells alike (a whole number of squares; unset: 9 for cells, 11 for pairs): a switch for
/// measuring, and for tests in a debug build, where the thousands of probes of the pairs on
/// a small board (every cell of it near a corner) take minutes.
pub const PROBE_DIAGONAL_VAR: &str = "NQUEENS_PROBE_DIAGONAL";

/// The environment variable that sets the nodes of the search of one core beside the
/// probes of pairs (a whole number; unset: 2^26; 0: none, the pairs always probed): a
/// switch for measuring, and for tests of the pairs on residuals that search decides.
pub const PROBE_BESIDE_VAR: &str = "NQUEENS_PROBE_BESIDE";

/// The settings of the probes in the environment, each refused unless a whole number in
/// decimal digits: `Err((variable, value))` for the first one that is not.
pub fn probe_settings() -> Result<(), (&'static str, String)> {
    for var in [PROBE_FROM_VAR, PROBE_DIAGONAL_VAR, PROBE_BESIDE_VAR] {
        setting(var).map_err(|value| (var, value))?;
    }
    Ok(())
}

/// The whole number `var` sets, if set; its value where it is not a whole number.
fn setting(var: &str) -> Result<Option<u64>, String> {
    let Some(v) = std::env::var_os(var) else {
        return Ok(None);
    };
    let text = v.to_str().unwrap_or("");
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match text.parse() {
        Ok(k) if digits => Ok(Some(k)),
        _ => Err(v.to_string_lossy().into_owned()),
    }
}

/// [`setting`] read once per variable (the command line refuses a bad one before any work;
/// a library caller that sets one gets the default).
fn setting_once(var: &'static str, cell: &'static std::sync::OnceLock<Option<u64>>) -> Option<u64> {
    *cell.get_or_init(|| setting(var).ok().flatten())
}

/// The longest diagonal [`PROBE_DIAGONAL_VAR`] sets, if it sets one.
fn probe_diagonal() -> Option<u64> {
    static LONGEST: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    setting_once(PROBE_DIAGONAL_VAR, &LONGEST)
}

/// The floor [`PROBE_FROM_VAR`] sets, if it sets one.
fn probe_from() -> Option<usize> {
    static FROM: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    setting_once(PROBE_FROM_VAR, &FROM).map(|k| usize::try_from(k).unwrap_or(usize::MAX))
}

/// Nodes of the search of one core beside the probes of pairs: 2^26 (about 2.5 s on one
/// core of the EPYC; the residuals of n = 29 with a completion that reach the probes take
/// 3-26 M nodes, BENCHMARKS.md), or what [`PROBE_BESIDE_VAR`] sets.
pub(crate) fn beside_pairs_nodes() -> u64 {
    static NODES: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    setting_once(PROBE_BESIDE_VAR, &NODES).unwrap_or(1 << 26)
}

/// The longest the probes of one half may take in all. Past it (no residual measured comes
/// near: 0.1-1 s), that half's cells are dropped whole, so that which cells are refuted
/// does not depend on the machine's speed short of a program this slow.
const PROBE_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Free cells of `res` (the free part of an `n`-board) in no completion, each with the
/// weights that refute the residual left by a queen on it ([`Residual::placed`], without
/// the cells before it in the list). Each cell near a corner (on a diagonal of at most
/// [`PROBED_DIAGONAL`] squares) is probed: the relaxation with a queen on it is solved
/// from the relaxation of `res` by a few dual simplex steps (`microlp`'s `fix_var`), and
/// where it is infeasible the cell is left out of the relaxation for the probes after it.
/// The weights are then found and checked in integers as [`refute`] does; a cell whose
/// weights are not found (floating point having misled the simplex) ends the list.
///
/// The probes run in two fixed halves of the cells (alternate ones), on two threads where
/// there are two: the answer does not depend on the thread count. Empty where
/// [`relaxation_enabled`] says no, where `res` has fewer than [`PROBED_MIN_ROWS`] rows or
/// more than [`MAX_CELLS`] free cells, or where the relaxation of `res` itself is
/// infeasible.
pub(crate) fn refuted_cells(
    res: &Residual,
    n: u64,
    stop: &Stop,
) -> Vec<((usize, usize), Certificate)> {
    if relaxation_enabled() != Ok(true)
        || res.size() < probe_from().unwrap_or(PROBED_MIN_ROWS)
        || res.free_cells() > MAX_CELLS
    {
        return Vec::new();
    }
    probed_cells(res, n, stop)
}

/// [`refuted_cells`] on a residual of any size.
fn probed_cells(res: &Residual, n: u64, stop: &Stop) -> Vec<((usize, usize), Certificate)> {
    let (even, odd) = rayon::join(|| probe(res, n, stop, 0), || probe(res, n, stop, 1));
    let cells: Vec<(usize, usize)> = even.into_iter().chain(odd).collect();
    use rayon::prelude::*;
    let covers: Vec<Option<Certificate>> = (0..cells.len())
        .into_par_iter()
        .map(|k| refute(&res.placed(&[cells[k]], &cells[..k]), n, stop))
        .collect();
    cells
        .into_iter()
        .zip(covers)
        .map_while(|(cell, cover)| Some((cell, cover?)))
        .collect()
}

/// The cells of one half (`half`: 0 or 1, alternate cells near the corners in residual
/// order) whose queen makes the relaxation infeasible, each left out for the next ones.
fn probe(res: &Residual, n: u64, stop: &Stop, half: usize) -> Vec<(usize, usize)> {
    // Whatever the library does on a program it finds hard (its documentation warns of
    // panics), the cells found before stand and the search goes on without the rest.
    let mut found = Vec::new();
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        probe_half(res, n, stop, half, &mut found)
    }));
    found
}

fn probe_half(res: &Residual, n: u64, stop: &Stop, half: usize, found: &mut Vec<(usize, usize)>) {
    let Some(Program {
        mut relaxation,
        probed,
    }) = Program::solve(
        res,
        n,
        &[],
        probe_diagonal().unwrap_or(PROBED_DIAGONAL),
        stop,
    )
    else {
        return;
    };
    // `fix_var` consumes the solution when the program turns infeasible: the last one
    // with every refuted cell left out is kept to go on from.
    let mut kept = relaxation.clone();
    for p in probed.iter().skip(half).step_by(2) {
        if stop.now() {
            return;
        }
        let v = p.var;
        match relaxation.fix_var(v, 1.0) {
            Ok(s) if finished(&s) => relaxation = s.unfix_var(v).0,
            Ok(_) => {
                found.clear();
                return;
            }
            Err(_) => {
                found.push(p.cell);
                let Some(s) = kept.fix_var(v, 0.0).ok().filter(finished) else {
                    found.clear();
                    return;
                };
                kept = s;
                relaxation = kept.clone();
            }
        }
    }
}

/// Whether the simplex ran to its end (not to a limit).
fn finished(s: &microlp::Solution) -> bool {
    *s.stop_reason() == microlp::StopReason::Finished
}

/// A cell near a corner, as a variable of the relaxation.
struct Probed {
    /// Residual (row, column).
    cell: (usize, usize),
    var: microlp::Variable,
    /// Its diagonals.
    diagonals: (u64, u64),
}

/// The relaxation of a residual, solved: a fraction of a queen per free cell, each free
/// row and column summing to 1, each diagonal to at most 1.
struct Program {
    relaxation: microlp::Solution,
    /// The free cells on a diagonal of at most [`PROBED_DIAGONAL`] squares, in residual
    /// order, but those left out.
    probed: Vec<Probed>,
}

impl Program {
    /// The relaxation of `res` with the cells `out` left out (their fractions 0); `None`
    /// where it is infeasible or the simplex stops at its limit.
    fn solve(
        res: &Residual,
        n: u64,
        out: &[(usize, usize)],
        diagonal: u64,
        stop: &Stop,
    ) -> Option<Program> {
        use microlp::{ComparisonOp, OptimizationDirection, Problem};
        let m = res.size();
        // Squares of the residual on each diagonal, free or not.
        let (mut squares1, mut squares2) =
            (BTreeMap::<u64, u64>::new(), BTreeMap::<u64, u64>::new());
        for &i in &res.rows {
            for &j in &res.cols {
                let (g1, g2) = diagonals(n, i, j);
                *squares1.entry(g1).or_default() += 1;
                *squares2.entry(g2).or_default() += 1;
            }
        }
        let mut p = Problem::new(OptimizationDirection::Maximize);
        p.set_time_limit(PROBE_TIME_LIMIT);
        let mut probed = Vec::new();
        let mut lines = vec![Vec::new(); 2 * m];
        let (mut d1, mut d2) = (
            BTreeMap::<u64, Vec<_>>::new(),
            BTreeMap::<u64, Vec<_>>::new(),
        );
        for r in 0..m {
            for c in super::ones(res.row_bits(r)) {
                let left_out = out.contains(&(r, c));
                let var = p.add_var(0.0, (0.0, if left_out { 0.0 } else { 1.0 }));
                let (g1, g2) = diagonals(n, res.rows[r], res.cols[c]);
                if !left_out && squares1[&g1].min(squares2[&g2]) <= diagonal {
                    probed.push(Probed {
                        cell: (r, c),
                        var,
                        diagonals: (g1, g2),
                    });
                }
                lines[r].push((var, 1.0));
                lines[m + c].push((var, 1.0));
                d1.entry(g1).or_default().push((var, 1.0));
                d2.entry(g2).or_default().push((var, 1.0));
            }
        }
        for line in lines {
            p.add_constraint(line, ComparisonOp::Eq, 1.0);
        }
        for line in d1.into_values().chain(d2.into_values()) {
            p.add_constraint(line, ComparisonOp::Le, 1.0);
        }
        let relaxation = solve_apart(p, stop)?;
        Some(Program { relaxation, probed })
    }
}

/// Two residual cells in no completion together, with the weights that refute queens on
/// both.
pub(crate) type PairCover = ([(usize, usize); 2], Certificate);

/// Pairs of cells in no completion together, each with the weights that refute the
/// residual left by queens on both (the `refuted` cells taken out): pairs of cells near a
/// corner (on a diagonal of at most [`PROBED_DIAGONAL`] squares) that do not attack each
/// other, neither of them refuted, whose two queens make the relaxation (without the
/// `refuted` cells) infeasible. With one queen near a corner the relaxation is mostly
/// feasible; with two it often is not: on the n = 29 instances measured, 20-40 % of such
/// pairs (BENCHMARKS.md).
///
/// The probes run in two fixed halves (alternate first cells), on two threads where there
/// are two, with a time limit per half past which that half's pairs are dropped whole: the
/// pairs do not depend on the thread count. A pair whose weights are not found in integers
/// (floating point having misled the simplex) is dropped. Empty where `res` has fewer than
/// [`PAIRED_MIN_ROWS`] rows (or what [`PROBE_FROM_VAR`] says), more than [`MAX_CELLS`]
/// free cells, or where [`relaxation_enabled`] says no; and where `stop` says so or
/// `dropped` is raised before the weights are all found (the pairs no longer wanted: the
/// search beside the probes has decided the residual).
pub(crate) fn refuted_pairs(
    res: &Residual,
    n: u64,
    refuted: &[(usize, usize)],
    stop: &Stop,
    dropped: &AtomicBool,
) -> Vec<PairCover> {
    if !pairs_probed(res) {
        return Vec::new();
    }
    probed_pairs(res, n, refuted, stop, dropped)
}

/// Whether [`refuted_pairs`] probes `res`.
pub(crate) fn pairs_probed(res: &Residual) -> bool {
    relaxation_enabled() == Ok(true)
        && res.size() >= probe_from().unwrap_or(PAIRED_MIN_ROWS)
        && res.free_cells() <= MAX_CELLS
}

/// [`refuted_pairs`] on a residual of any size; it ends early, with no pairs, when `stop`
/// says so or `dropped` is raised (the pairs are no longer wanted).
fn probed_pairs(
    res: &Residual,
    n: u64,
    refuted: &[(usize, usize)],
    stop: &Stop,
    dropped: &AtomicBool,
) -> Vec<PairCover> {
    let start = std::time::Instant::now();
    let diagonal = probe_diagonal().unwrap_or(PAIRED_DIAGONAL);
    let Some(Program {
        relaxation: root,
        probed,
    }) = Program::solve(res, n, refuted, diagonal, stop)
    else {
        return Vec::new();
    };
    let quit = || stop.now() || dropped.load(Ordering::Relaxed);
    // One task per first cell, each from the root's solution: whichever threads take them
    // (a core joins when the search beside the probes ends), the pairs are the same, unless
    // the probes reach their time limit, which drops them all.
    let overran = AtomicBool::new(false);
    use rayon::prelude::*;
    let found: Vec<Vec<[(usize, usize); 2]>> = (0..probed.len())
        .into_par_iter()
        .map(|k| {
            if quit() || overran.load(Ordering::Relaxed) {
                return Vec::new();
            }
            let pairs = (start.elapsed() <= PROBE_TIME_LIMIT)
                .then(|| pairs_from(&root, &probed, k, &quit))
                .flatten();
            pairs.unwrap_or_else(|| {
                overran.store(true, Ordering::Relaxed);
                Vec::new()
            })
        })
        .collect();
    if quit() || overran.load(Ordering::Relaxed) {
        return Vec::new();
    }
    let pairs: Vec<[(usize, usize); 2]> = found.into_iter().flatten().collect();
    // Each pair's weights stand alone (the refuted cells out, which have their own): one
    // not found drops that pair only.
    let covers: Vec<Option<Certificate>> = pairs
        .par_iter()
        .map(|pair| (!quit()).then(|| refute(&res.placed(pair, refuted), n, stop))?)
        .collect();
    if quit() {
        return Vec::new();
    }
    pairs
        .into_iter()
        .zip(covers)
        .filter_map(|(pair, cover)| Some((pair, cover?)))
        .collect()
}

/// The pairs of `probed[k]` with the cells after it that it does not attack, whose queens
/// make the relaxation infeasible: a few dual simplex steps from `root` to place the first
/// queen, then a few per second one. `None` where `quit` says so, where the simplex stops
/// at its limit, or whatever the library does on a program it finds hard (its
/// documentation warns of panics): the probes are then dropped, and the search goes on
/// without them.
fn pairs_from(
    root: &microlp::Solution,
    probed: &[Probed],
    k: usize,
    quit: &dyn Fn() -> bool,
) -> Option<Vec<[(usize, usize); 2]>> {
    let a = &probed[k];
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut found = Vec::new();
        // A cell the relaxation refutes alone here is one the probes of cells did not
        // (each half of them left out its own refuted cells only): its pairs are moot.
        let Ok(with_a) = root.clone().fix_var(a.var, 1.0) else {
            return Some(found);
        };
        if !finished(&with_a) {
            return None;
        }
        // `fix_var` consumes the solution when the program turns infeasible: the one with
        // `a` placed is kept to go on from.
        let mut current = with_a.clone();
        for b in &probed[k + 1..] {
            let attacks = a.cell.0 == b.cell.0
                || a.cell.1 == b.cell.1
                || a.diagonals.0 == b.diagonals.0
                || a.diagonals.1 == b.diagonals.1;
            if attacks {
                continue;
            }
            if quit() {
                return None;
            }
            match current.fix_var(b.var, 1.0) {
                Ok(s) if finished(&s) => current = s.unfix_var(b.var).0,
                Ok(_) => return None,
                Err(_) => {
                    found.push([a.cell, b.cell]);
                    current = with_a.clone();
                }
            }
        }
        Some(found)
    }))
    .ok()
    .flatten()
}

/// Solves `p` on a thread of its own, so that `stop` ends the wait at once (microlp looks
/// at its own time limit only every thousand pivots); `None` where it is stopped, ends at
/// its limit, or fails (its documentation warns of panics on programs it finds hard).
fn solve_apart(p: microlp::Problem, stop: &Stop) -> Option<microlp::Solution> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("nqueens-simplex".into())
        .spawn(move || {
            let solved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.solve()));
            let solution = solved.ok().and_then(Result::ok).filter(finished);
            // The receiver is gone when the wait was stopped: nothing to tell.
            let _ = tx.send(solution);
        });
    spawned.ok()?;
    loop {
        match rx.recv_timeout(Duration::from_millis(1)) {
            Ok(solution) => return solution,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !stop.now() => {}
            Err(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Whether `res` has a completion, by brute force over its rows.
    fn completes(res: &Residual, n: u64) -> bool {
        fn go(res: &Residual, n: u64, r: usize, used: &mut Vec<(u64, u64)>) -> bool {
            if r == res.size() {
                return true;
            }
            for c in super::super::ones(res.row_bits(r)) {
                let (i, j) = (res.rows[r], res.cols[c]);
                let d = diagonals(n, i, j);
                if used.iter().any(|&(i2, j2)| {
                    j2 == j || diagonals(n, i2, j2).0 == d.0 || diagonals(n, i2, j2).1 == d.1
                }) {
                    continue;
                }
                used.push((i, j));
                if go(res, n, r + 1, used) {
                    return true;
                }
                used.pop();
            }
            false
        }
        go(res, n, 0, &mut Vec::new())
    }

    /// `m` random rows and columns of an `n`-board, each of their cells free with a
    /// probability drawn from `least` to `least + 0.4`.
    fn random_residual(rng: &mut Rng, n: u64, m: usize, least: f64) -> Residual {
        let mut rows: Vec<u64> = (1..=n).collect();
        let mut cols: Vec<u64> = (1..=n).collect();
        rng.shuffle(&mut rows);
        rng.shuffle(&mut cols);
        let (mut rows, mut cols) = (rows[..m].to_vec(), cols[..m].to_vec());
        rows.sort_unstable();
        cols.sort_unstable();
        let density = least + 0.4 * rng.below(100) as f64 / 100.0;
        let keep: Vec<bool> = (0..m * m)
            .map(|_| (rng.below(1000) as f64) < density * 1000.0)
            .collect();
        let (r0, c0) = (rows.clone(), cols.clone());
        Residual::build(rows, cols, |i, j| {
            let r = r0.binary_search(&i).unwrap();
            let c = c0.binary_search(&j).unwrap();
            keep[r * m + c]
        })
    }

    /// Random residuals of 6-11 rows on a board of 30 with completions and without: every
    /// cell the probes give ([`probed_cells`], which [`refuted_cells`] runs from 26 rows)
    /// is in no completion, its weights check on the residual left by a queen on it (the
    /// cells before it taken out), and the search skipping them gives the same answer
    /// within the nodes of the search that does not.
    #[test]
    fn refuted_cells_are_in_no_completion_and_skipping_them_keeps_the_answer() {
        let n = 30;
        let mut rng = Rng::seeded(12, &[]);
        let (mut found, mut residuals) = (0, 0);
        for case in 0..300 {
            let m = 6 + case % 6;
            let res = random_residual(&mut rng, n, m, 0.45);
            let refuted = probed_cells(&res, n, &Stop::never());
            residuals += usize::from(!refuted.is_empty());
            for (k, (cell, cert)) in refuted.iter().enumerate() {
                found += 1;
                assert!(res.is_free(cell.0, cell.1));
                assert!(
                    !completes(&res.placed(&[*cell], &[]), n),
                    "{cell:?} is in a completion"
                );
                let before: Vec<_> = refuted[..k].iter().map(|&(c, _)| c).collect();
                assert!(
                    check(&res.placed(&[*cell], &before), n, cert),
                    "{cell:?}: {cert:?}"
                );
            }
            let cells = refuted.iter().map(|&(c, _)| c).collect();
            let (plain, plain_counts) = super::super::first(&res, 1, &Stop::never());
            let (skipping, counts) =
                super::super::first(&res.clone().with_refuted(cells), 1, &Stop::never());
            use super::super::Outcome;
            let solved = |o: &Outcome| matches!(o, Outcome::Solved(_));
            assert_eq!(solved(&plain), solved(&skipping), "case {case}");
            assert_eq!(solved(&plain), completes(&res, n), "case {case}");
            if !solved(&plain) {
                assert!(counts.nodes <= plain_counts.nodes, "case {case}");
            }
        }
        assert!(
            found > 20 && residuals > 5,
            "{found} cells in {residuals} residuals"
        );
    }

    /// Random residuals of 6-9 rows: every pair the probes give ([`probed_pairs`], which
    /// [`refuted_pairs`] runs from 28 rows) is two free cells, not refuted and not
    /// attacking each other, in no completion together, whose weights check on the
    /// residual left by queens on both (every refuted cell taken out); and the search
    /// taking them as attacking gives the same answer, with the refuted cells skipped or
    /// taken out.
    #[test]
    fn refuted_pairs_are_in_no_completion_together_and_keep_the_answer() {
        let n = 30;
        let mut rng = Rng::seeded(13, &[]);
        let (mut found, mut residuals) = (0, 0);
        for case in 0..40 {
            let m = 6 + case % 4;
            let res = random_residual(&mut rng, n, m, 0.5);
            let cells: Vec<_> = probed_cells(&res, n, &Stop::never())
                .into_iter()
                .map(|(cell, _)| cell)
                .collect();
            let pairs = probed_pairs(&res, n, &cells, &Stop::never(), &AtomicBool::new(false));
            residuals += usize::from(!pairs.is_empty());
            for ([a, b], cert) in &pairs {
                found += 1;
                assert!(res.is_free(a.0, a.1) && res.is_free(b.0, b.1));
                assert!(!cells.contains(a) && !cells.contains(b));
                assert!(a.0 != b.0 && a.1 != b.1, "{a:?} {b:?}");
                assert!(
                    !completes(&res.placed(&[*a, *b], &[]), n),
                    "{a:?} and {b:?} are in a completion"
                );
                assert!(
                    check(&res.placed(&[*a, *b], &cells), n, cert),
                    "{a:?} {b:?}: {cert:?}"
                );
            }
            let (plain, _) = super::super::first(&res, 1, &Stop::never());
            let taken = res
                .clone()
                .with_refuted(cells.clone())
                .with_refuted_pairs(pairs.iter().map(|&(pair, _)| pair).collect());
            let (with_pairs, _) = super::super::first(&taken, 1, &Stop::never());
            // As the engine searches from 28 rows: the cells taken out, not skipped.
            let taken_out = res
                .without(&cells)
                .with_refuted_pairs(pairs.iter().map(|&(pair, _)| pair).collect());
            let (cells_out, _) = super::super::first(&taken_out, 1, &Stop::never());
            use super::super::Outcome;
            let solved = |o: &Outcome| matches!(o, Outcome::Solved(_));
            assert_eq!(solved(&plain), solved(&with_pairs), "case {case}");
            assert_eq!(solved(&plain), solved(&cells_out), "case {case}");
            assert_eq!(solved(&plain), completes(&res, n), "case {case}");
        }
        assert!(
            found > 20 && residuals > 5,
            "{found} pairs in {residuals} residuals"
        );
    }

    /// Random residuals of 5-10 rows on a board of 30: every refutation is of a residual
    /// that brute force cannot complete, passes the exact check, and fails it once any
    /// weight is lowered or a diagonal's raised past the margin.
    #[test]
    fn refutations_are_of_residuals_with_no_completion_and_check_exactly() {
        let n = 30;
        let mut rng = Rng::seeded(11, &[]);
        let (mut refuted, mut infeasible) = (0, 0);
        for case in 0..400 {
            let m = 5 + case % 6;
            let res = random_residual(&mut rng, n, m, 0.35);
            let feasible = completes(&res, n);
            infeasible += usize::from(!feasible);
            if let Some(cert) = refute(&res, n, &Stop::never()) {
                refuted += 1;
                assert!(!feasible, "refuted a completable residual: {cert:?}");
                assert!(check(&res, n, &cert));
                let Certificate::WeightedCover {
                    rows,
                    columns,
                    d1,
                    d2,
                } = &cert
                else {
                    unreachable!()
                };
                // The rows' and columns' total exceeds the diagonals' by at least 1: one
                // more unit on a diagonal (where the total then no longer exceeds it) or
                // one less where a cell is tight must break it.
                let total: i64 = rows.iter().chain(columns).map(|&[_, w]| w).sum();
                let bound: i64 = d1.iter().chain(d2).map(|&[_, w]| w).sum();
                let mut heavier = cert.clone();
                if let Certificate::WeightedCover { d1, .. } = &mut heavier {
                    match d1.first_mut() {
                        Some(first) => first[1] += total - bound,
                        None => d1.push([1, total - bound]),
                    }
                }
                assert!(!check(&res, n, &heavier), "{heavier:?}");
                let mut negative = cert.clone();
                if let Certificate::WeightedCover { d1, d2, .. } = &mut negative
                    && let Some(first) = d1.first_mut().or(d2.first_mut())
                {
                    first[1] = -first[1] - 1;
                    assert!(!check(&res, n, &negative));
                }
            }
        }
        // The relaxation refutes some of these, not all (it is a relaxation).
        assert!(
            refuted > 10 && infeasible > refuted,
            "{refuted} of {infeasible}"
        );
    }
}
