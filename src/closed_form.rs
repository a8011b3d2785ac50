//! Closed-form solutions: the explicit construction (Hoffman, Loessi and Moore 1969), its
//! images under the board's eight symmetries, and the linear solutions. `generate solution`
//! writes them; the completion engine recognises a composition whose queens all lie on one
//! and completes it from that solution in one pass.

/// The column (1-based) of row `row` (1-based) in the constructed solution of size `n`.
///
/// The classic explicit construction (Hoffman, Loessi and Moore 1969; as in Bernhardsson
/// 1991): the even columns in increasing order, then the odd ones, with small
/// rearrangements when n mod 6 is 2 or 3. Valid for n = 1 and every n >= 4.
#[inline]
pub(crate) fn constructed_column(n: u64, row: u64) -> u64 {
    debug_assert!(n == 1 || n >= 4);
    debug_assert!((1..=n).contains(&row));
    let p = row - 1;
    let evens = n / 2;
    let odds = n - evens;
    match n % 6 {
        2 => {
            // evens 2, 4, ..; odds 3, 1, 7, 9, .., n-1, 5
            if p < evens {
                2 * (p + 1)
            } else {
                match p - evens {
                    0 => 3,
                    1 => 1,
                    q if q == odds - 1 => 5,
                    q => 2 * q + 3,
                }
            }
        }
        3 => {
            // evens 4, 6, .., n-1, 2; odds 5, 7, .., n, 1, 3
            if p < evens {
                if p == evens - 1 { 2 } else { 2 * p + 4 }
            } else {
                match p - evens {
                    q if q == odds - 2 => 1,
                    q if q == odds - 1 => 3,
                    q => 2 * q + 5,
                }
            }
        }
        _ => {
            if p < evens {
                2 * (p + 1)
            } else {
                2 * (p - evens) + 1
            }
        }
    }
}

/// The row (1-based) whose queen is in column `col` (1-based) in the constructed solution
/// of size `n`: the inverse of [`constructed_column`], piece by piece.
#[inline]
pub(crate) fn constructed_row(n: u64, col: u64) -> u64 {
    debug_assert!(n == 1 || n >= 4);
    debug_assert!((1..=n).contains(&col));
    let evens = n / 2;
    let odds = n - evens;
    // p: 0-based position among the rows; evens come first, then odds.
    let p = match (n % 6, col.is_multiple_of(2)) {
        (2, true) => col / 2 - 1,
        (2, false) => {
            evens
                + match col {
                    3 => 0,
                    1 => 1,
                    5 => odds - 1,
                    c => (c - 3) / 2,
                }
        }
        (3, true) => {
            if col == 2 {
                evens - 1
            } else {
                (col - 4) / 2
            }
        }
        (3, false) => {
            evens
                + match col {
                    1 => odds - 2,
                    3 => odds - 1,
                    c => (c - 5) / 2,
                }
        }
        (_, true) => col / 2 - 1,
        (_, false) => evens + (col - 1) / 2,
    };
    p + 1
}

/// Greatest common divisor.
pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Whether q(i) = a (i - 1) + b mod n + 1 is a solution (for any b): a, a - 1 and a + 1 all
/// prime to n, which needs n prime to 6.
pub(crate) fn linear_exists(n: u64, a: u64) -> bool {
    let prime_to_n = |x: u64| gcd(x % n, n) == 1;
    n == 1 || (prime_to_n(a) && prime_to_n(a + n - 1) && prime_to_n(a + 1))
}

/// Row `row`'s column in the linear solution q(i) = a (i - 1) + b mod n + 1.
#[inline]
pub(crate) fn linear_column(n: u64, a: u64, b: u64, row: u64) -> u64 {
    ((a as u128 * (row - 1) as u128 + b as u128) % n as u128) as u64 + 1
}

/// The inverse of `x` modulo `n`, when it is prime to n.
fn inverse(x: u64, n: u64) -> Option<u64> {
    let (mut r0, mut r1) = (n as i128, (x % n) as i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    (r0 == 1).then(|| t0.rem_euclid(n as i128) as u64)
}

/// One of the board's eight symmetries: rows turned upside down, then the transpose, then
/// columns mirrored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// Row i becomes row n + 1 - i.
    pub flip_rows: bool,
    /// Rows and columns exchanged.
    pub transpose: bool,
    /// Column j becomes column n + 1 - j.
    pub mirror: bool,
}

impl Symmetry {
    /// All eight.
    pub const ALL: [Symmetry; 8] = {
        let mut all = [Symmetry {
            flip_rows: false,
            transpose: false,
            mirror: false,
        }; 8];
        let mut k = 0;
        while k < 8 {
            all[k] = Symmetry {
                flip_rows: k & 1 != 0,
                transpose: k & 2 != 0,
                mirror: k & 4 != 0,
            };
            k += 1;
        }
        all
    };
}

/// A closed-form solution of size n.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClosedForm {
    /// The explicit construction seen through a symmetry.
    Construction(Symmetry),
    /// q(i) = a (i - 1) + b mod n + 1.
    Linear {
        /// The multiplier.
        a: u64,
        /// The offset.
        b: u64,
    },
}

impl ClosedForm {
    /// Row `row`'s column (both 1-based) in this solution of size `n`.
    #[inline]
    pub fn column(self, n: u64, row: u64) -> u64 {
        match self {
            ClosedForm::Construction(s) => {
                let r = if s.flip_rows { n + 1 - row } else { row };
                let c = if s.transpose {
                    constructed_row(n, r)
                } else {
                    constructed_column(n, r)
                };
                if s.mirror { n + 1 - c } else { c }
            }
            ClosedForm::Linear { a, b } => linear_column(n, a, b, row),
        }
    }

    /// The columns of rows `first ..` (as many as `out` holds), as little-endian `u32`
    /// (the row store's layout). The choice of formula is made once per call, not per row.
    pub(crate) fn columns_le(self, n: u64, first: u64, out: &mut [u32]) {
        macro_rules! fill {
            ($f:expr) => {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = ($f(first + j as u64) as u32).to_le();
                }
            };
        }
        match self {
            ClosedForm::Construction(s) => match (s.flip_rows, s.transpose, s.mirror) {
                (false, false, false) => fill!(|r| constructed_column(n, r)),
                (true, false, false) => fill!(|r| constructed_column(n, n + 1 - r)),
                (false, true, false) => fill!(|r| constructed_row(n, r)),
                (false, false, true) => fill!(|r| n + 1 - constructed_column(n, r)),
                _ => fill!(|r| self.column(n, r)),
            },
            ClosedForm::Linear { a, b } => {
                // Stepping by a modulo n instead of a multiplication and a division per row.
                let mut c = linear_column(n, a, b, first) - 1;
                let step = a % n;
                for o in out.iter_mut() {
                    *o = (c as u32 + 1).to_le();
                    c += step;
                    if c >= n {
                        c -= n;
                    }
                }
            }
        }
    }

    /// What it is, for people.
    pub fn describe(self) -> String {
        match self {
            ClosedForm::Construction(s) => {
                let mut parts = vec![];
                if s.flip_rows {
                    parts.push("rows reversed");
                }
                if s.transpose {
                    parts.push("transposed");
                }
                if s.mirror {
                    parts.push("mirrored");
                }
                if parts.is_empty() {
                    "the explicit construction".into()
                } else {
                    format!("the explicit construction, {}", parts.join(", "))
                }
            }
            ClosedForm::Linear { a, b } => {
                format!("the linear solution q(i) = {a} (i - 1) + {b} mod n + 1")
            }
        }
    }

    /// The candidates an `n`-board holding queens `first` and `second` (row, column; two
    /// different rows) may lie on: the construction under each symmetry, and the one
    /// linear solution through both queens when it exists.
    pub fn candidates(n: u64, first: (u64, u64), second: Option<(u64, u64)>) -> Vec<ClosedForm> {
        let mut all = Vec::new();
        if n == 1 || n >= 4 {
            all.extend(Symmetry::ALL.map(ClosedForm::Construction));
        }
        if let Some(second) = second
            && n >= 5
            && gcd(n, 6) == 1
        {
            // a (r1 - r2) = c1 - c2 mod n, solvable for one a when r1 - r2 is prime to n.
            let (dr, dc) = ((first.0 + n - second.0) % n, (first.1 + n - second.1) % n);
            if let Some(inv) = inverse(dr, n) {
                let a = ((dc as u128 * inv as u128) % n as u128) as u64;
                let b = ((first.1 - 1) as u128 + n as u128 * n as u128
                    - (a as u128 * (first.0 - 1) as u128) % n as u128)
                    % n as u128;
                if linear_exists(n, a) {
                    all.push(ClosedForm::Linear { a, b: b as u64 });
                }
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_solution(q: &[u64]) -> bool {
        crate::oracle::conflicting_pairs(&q.iter().map(|&c| c as u32).collect::<Vec<_>>())
            .is_empty()
    }

    /// Every candidate of every n up to 60 is a solution, and the linear candidate through
    /// two queens of a linear solution is that solution.
    #[test]
    fn every_closed_form_is_a_solution() {
        for n in (1..=60u64).filter(|&n| n == 1 || n >= 4) {
            let first = (1, constructed_column(n, 1));
            let second = (n.min(2), constructed_column(n, n.min(2)));
            for f in ClosedForm::candidates(n, first, Some(second).filter(|_| n > 1)) {
                let q: Vec<u64> = (1..=n).map(|r| f.column(n, r)).collect();
                assert!(is_solution(&q), "n = {n}, {f:?}: {q:?}");
            }
            if gcd(n, 6) == 1 && n >= 5 {
                for a in (2..n).filter(|&a| linear_exists(n, a)) {
                    let b = 3 % n;
                    let q: Vec<u64> = (1..=n).map(|r| linear_column(n, a, b, r)).collect();
                    assert!(is_solution(&q), "n = {n}, a = {a}");
                    let found = ClosedForm::candidates(n, (2, q[1]), Some((5, q[4])));
                    assert!(
                        found.contains(&ClosedForm::Linear { a, b }),
                        "n = {n}, a = {a}: {found:?}"
                    );
                }
            }
        }
    }

    /// The chunk form gives every row's column as `column` does, from any first row.
    #[test]
    fn columns_le_is_column() {
        for n in [4u64, 5, 7, 8, 9, 12, 13, 14, 15, 101, 1001, 999_999_937] {
            let first = (1, constructed_column(n, 1));
            let second = (2, constructed_column(n, 2));
            let mut forms = ClosedForm::candidates(n, first, Some(second));
            if gcd(n, 6) == 1 {
                forms.push(ClosedForm::Linear { a: 2, b: n - 1 });
                forms.push(ClosedForm::Linear { a: n - 2, b: 5 % n });
            }
            for form in forms {
                for start in [1, 2, n / 2, n.saturating_sub(9).max(1)] {
                    let len = (n - start + 1).min(40) as usize;
                    let mut out = vec![0u32; len];
                    form.columns_le(n, start, &mut out);
                    for (j, &c) in out.iter().enumerate() {
                        let row = start + j as u64;
                        assert_eq!(
                            u32::from_le(c) as u64,
                            form.column(n, row),
                            "n = {n}, {form:?}, row {row}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn inverses() {
        assert_eq!(inverse(3, 7), Some(5));
        assert_eq!(inverse(2, 8), None);
        assert_eq!(inverse(1, 1_000_000_007), Some(1));
    }
}
