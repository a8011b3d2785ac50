//! The slow obvious counter the tests compare the engines against. It shares nothing with
//! them: attacks are a predicate on two squares, the search tries every square for every piece
//! in increasing order, and classes under symmetry are found by listing every image.

use super::rules::{Kind, Piece};
use std::collections::HashSet;

/// Whether pieces on `a` and `b` attack each other.
pub fn attack(piece: Piece, kind: Kind, a: (i64, i64), b: (i64, i64)) -> bool {
    let (dr, dc) = (b.0 - a.0, b.1 - a.1);
    if dr == 0 && dc == 0 {
        return true;
    }
    let straight = dr == 0 || dc == 0;
    let diagonal = dr.abs() == dc.abs();
    let own = match piece {
        Piece::Queen => straight || diagonal,
        Piece::Rook => straight,
        Piece::Bishop => diagonal,
    };
    let leap = (dr.abs() == 1 && dc.abs() == 2) || (dr.abs() == 2 && dc.abs() == 1);
    // A nightrider ray: a whole multiple of one knight leap, every square on the way on the board
    // (it always is for a straight ray between two squares of the board).
    let ride = [(1, 2), (2, 1)]
        .iter()
        .any(|&(p, q)| dr.abs() * q == dc.abs() * p && dr % p == 0 && dr != 0 && dc % q == 0);
    own || match kind {
        Kind::Regular => false,
        Kind::Super => leap,
        Kind::Awesome => ride,
    }
}

/// Every placement of `n` pieces containing `placed`, as sorted square lists (`r * n + c`).
pub fn all(piece: Piece, kind: Kind, n: usize, placed: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let sq = |s: usize| ((s / n) as i64, (s % n) as i64);
    let mut out = Vec::new();
    let mut chosen = Vec::new();
    fn go(
        from: usize,
        n: usize,
        chosen: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
        ok: &dyn Fn(usize, &[usize]) -> bool,
    ) {
        if chosen.len() == n {
            out.push(chosen.clone());
            return;
        }
        for s in from..n * n {
            if ok(s, chosen) {
                chosen.push(s);
                go(s + 1, n, chosen, out, ok);
                chosen.pop();
            }
        }
    }
    let ok =
        |s: usize, chosen: &[usize]| chosen.iter().all(|&t| !attack(piece, kind, sq(t), sq(s)));
    go(0, n, &mut chosen, &mut out, &ok);
    let required: Vec<usize> = placed.iter().map(|&(r, c)| r * n + c).collect();
    out.retain(|p| required.iter().all(|s| p.contains(s)));
    out
}

/// The number of classes of `placements` under the board's symmetries (a class is the set of
/// images of a placement that are themselves in the list).
pub fn classes(n: usize, placements: &[Vec<usize>]) -> usize {
    let set: HashSet<Vec<usize>> = placements.iter().cloned().collect();
    let m = n - 1;
    type Map = fn(usize, usize, usize) -> (usize, usize);
    let maps: [Map; 8] = [
        |_, r, c| (r, c),
        |m, r, c| (c, m - r),
        |m, r, c| (m - r, m - c),
        |m, r, c| (m - c, r),
        |m, r, c| (r, m - c),
        |m, r, c| (m - r, c),
        |_, r, c| (c, r),
        |m, r, c| (m - c, m - r),
    ];
    let reps: HashSet<Vec<usize>> = placements
        .iter()
        .map(|p| {
            maps.iter()
                .map(|f| {
                    let mut q: Vec<usize> = p
                        .iter()
                        .map(|&s| {
                            let (r, c) = f(m, s / n, s % n);
                            r * n + c
                        })
                        .collect();
                    q.sort_unstable();
                    q
                })
                .filter(|q| set.contains(q))
                .min()
                .expect("the identity is in the list")
        })
        .collect();
    reps.len()
}
