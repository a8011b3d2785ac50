//! Regular rooks on an empty board up to the 8 symmetries of the square, by Burnside's
//! lemma: the placements are the permutations of n, and the distinct ones the average over
//! the symmetries of the permutations each one leaves alone. Counted by enumeration, up to
//! symmetry, they had not finished after 60 s at n = 13 and never ended at 35; this is
//! exact at any n the factorial is counted for.
//!
//! What each symmetry fixes (sigma the permutation, rows and columns 1..n):
//! - the identity: all n!;
//! - the half turn, sigma(n + 1 - i) = n + 1 - sigma(i): pairs of rows moved together,
//!   2^m m! for n = 2m or 2m + 1 (the middle row of an odd board keeps its middle queen);
//! - the quarter turns (each): rows in 4-cycles, (2k)! / k! for n = 4k or 4k + 1, none
//!   otherwise;
//! - the two diagonal mirrors (each): the involutions, sigma = sigma^-1 (for the
//!   antidiagonal, conjugated by the reversal, as many);
//! - the two axis mirrors: a queen and its image share a row, so none for n >= 2.

use num_bigint::BigUint;

/// (placements, placements distinct up to symmetry) of n non-attacking rooks.
pub(super) fn up_to_symmetry(n: u32) -> (BigUint, BigUint) {
    let n = u64::from(n);
    let factorial = |k: u64| (1..=k).fold(BigUint::from(1u32), |f, i| f * i);
    let all = factorial(n);
    let m = n / 2;
    let half_turn = (BigUint::from(1u32) << m) * factorial(m);
    let quarter_turn = if n % 4 <= 1 {
        let k = n / 4;
        (k + 1..=2 * k).fold(BigUint::from(1u32), |f, i| f * i)
    } else {
        BigUint::ZERO
    };
    // Involutions: I(k) = I(k - 1) + (k - 1) I(k - 2).
    let (mut before, mut involutions) = (BigUint::from(1u32), BigUint::from(1u32));
    for k in 2..=n {
        let next = &involutions + &before * (k - 1);
        before = std::mem::replace(&mut involutions, next);
    }
    let axis = if n <= 1 { all.clone() } else { BigUint::ZERO };
    let fixed = &all + 2u32 * quarter_turn + half_turn + 2u32 * involutions + 2u32 * axis;
    (all, fixed / 8u32)
}

#[cfg(test)]
mod tests {
    /// A000903 (inequivalent ways of placing n non-attacking rooks), and the enumeration
    /// of every permutation with its 8 images for n <= 8.
    #[test]
    fn agrees_with_oeis_and_with_enumeration() {
        // A000903 from n = 1.
        let a000903: [u64; 13] = [
            1, 1, 2, 7, 23, 115, 694, 5282, 46066, 456454, 4999004, 59916028, 778525516,
        ];
        for (k, &want) in a000903.iter().enumerate() {
            let n = k as u32 + 1;
            assert_eq!(super::up_to_symmetry(n).1, want.into(), "n = {n}");
        }
        for n in 1..=8usize {
            let mut perm: Vec<usize> = (0..n).collect();
            let mut classes = std::collections::BTreeSet::new();
            loop {
                let images = symmetries(&perm);
                classes.insert(images.into_iter().min().unwrap());
                if !next_permutation(&mut perm) {
                    break;
                }
            }
            assert_eq!(
                super::up_to_symmetry(n as u32).1,
                (classes.len() as u64).into(),
                "n = {n}"
            );
        }
    }

    /// A symmetry of the n-board: (n, row, column) -> (row, column).
    type Symmetry = fn(usize, usize, usize) -> (usize, usize);

    /// The 8 images of the permutation `p` (row i holds column p[i]).
    fn symmetries(p: &[usize]) -> Vec<Vec<usize>> {
        let n = p.len();
        let cells: Vec<(usize, usize)> = p.iter().enumerate().map(|(i, &j)| (i, j)).collect();
        let maps: [Symmetry; 8] = [
            |_, i, j| (i, j),
            |n, i, j| (j, n - 1 - i),
            |n, i, j| (n - 1 - i, n - 1 - j),
            |n, i, j| (n - 1 - j, i),
            |n, i, j| (i, n - 1 - j),
            |n, i, j| (n - 1 - i, j),
            |_, i, j| (j, i),
            |n, i, j| (n - 1 - j, n - 1 - i),
        ];
        maps.iter()
            .map(|f| {
                let mut q = vec![0; n];
                for &(i, j) in &cells {
                    let (a, b) = f(n, i, j);
                    q[a] = b;
                }
                q
            })
            .collect()
    }

    fn next_permutation(p: &mut [usize]) -> bool {
        let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
            return false;
        };
        let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap();
        p.swap(i - 1, j);
        p[i..].reverse();
        true
    }
}
