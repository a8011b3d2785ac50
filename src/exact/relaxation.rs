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
    // The simplex runs on a thread of its own, so that a deadline or Ctrl-C ends the wait
    // at once (microlp looks at its own time limit only every thousand pivots: a program
    // of 3,600 cells took 0.3 s); one left behind ends within its limit. Whatever the
    // library does on a program it finds hard (its documentation warns of panics), the
    // search decides the residual instead.
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("nqueens-simplex".into())
        .spawn(move || {
            let solved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.solve()));
            let weights = solved.ok().and_then(Result::ok).and_then(|s| {
                let finished = *s.stop_reason() == microlp::StopReason::Finished;
                (finished && s.objective() > 1e-9).then(|| Fractional {
                    rows: rows.iter().map(|&v| s.var_value(v)).collect(),
                    cols: cols.iter().map(|&v| s.var_value(v)).collect(),
                    d1: d1.into_iter().map(|(g, v)| (g, s.var_value(v))).collect(),
                    d2: d2.into_iter().map(|(g, v)| (g, s.var_value(v))).collect(),
                })
            });
            // The receiver is gone when the wait was stopped: nothing to tell.
            let _ = tx.send(weights);
        });
    spawned.ok()?;
    loop {
        match rx.recv_timeout(Duration::from_millis(1)) {
            Ok(weights) => return weights,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !stop.now() => {}
            Err(_) => return None,
        }
    }
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
            let mut rows: Vec<u64> = (1..=n).collect();
            let mut cols: Vec<u64> = (1..=n).collect();
            rng.shuffle(&mut rows);
            rng.shuffle(&mut cols);
            let (mut rows, mut cols) = (rows[..m].to_vec(), cols[..m].to_vec());
            rows.sort_unstable();
            cols.sort_unstable();
            let density = 0.35 + 0.4 * rng.below(100) as f64 / 100.0;
            let keep: Vec<bool> = (0..m * m)
                .map(|_| (rng.below(1000) as f64) < density * 1000.0)
                .collect();
            let (r0, c0) = (rows.clone(), cols.clone());
            let res = Residual::build(rows, cols, |i, j| {
                let r = r0.binary_search(&i).unwrap();
                let c = c0.binary_search(&j).unwrap();
                keep[r * m + c]
            });
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
