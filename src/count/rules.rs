//! What each piece attacks: the move rays of queens, rooks and bishops in the three kinds.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The chess piece being placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Piece {
    /// Rook plus bishop lines.
    Queen,
    /// Rows and columns.
    Rook,
    /// Diagonals.
    Bishop,
}

/// The extra moves on top of the piece's own lines (Kiss's kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The piece's own lines only.
    Regular,
    /// Plus the eight single knight leaps.
    Super,
    /// Plus the eight nightrider rays: knight leaps repeated in one direction up to the edge
    /// (never wrapping around it).
    Awesome,
}

/// A piece of one kind: the attack relation every counter shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// The piece.
    pub piece: Piece,
    /// Its kind.
    pub kind: Kind,
}

const ORTHOGONAL: [(i64, i64); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAGONAL: [(i64, i64); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT: [(i64, i64); 8] = [
    (1, 2),
    (1, -2),
    (-1, 2),
    (-1, -2),
    (2, 1),
    (2, -1),
    (-2, 1),
    (-2, -1),
];

impl Rules {
    /// The rules of `piece` in `kind`.
    pub fn new(piece: Piece, kind: Kind) -> Rules {
        Rules { piece, kind }
    }

    /// Whether a placement has one piece in every row and column (queens and rooks): the row
    /// engine and the start constellations rely on it.
    pub fn one_per_line(&self) -> bool {
        self.piece != Piece::Bishop
    }

    /// The move directions, each with whether the piece slides along it to the edge.
    pub fn rays(&self) -> Vec<((i64, i64), bool)> {
        let mut rays = Vec::new();
        if self.piece != Piece::Bishop {
            rays.extend(ORTHOGONAL.iter().map(|&d| (d, true)));
        }
        if self.piece != Piece::Rook {
            rays.extend(DIAGONAL.iter().map(|&d| (d, true)));
        }
        match self.kind {
            Kind::Regular => {}
            Kind::Super => rays.extend(KNIGHT.iter().map(|&d| (d, false))),
            Kind::Awesome => rays.extend(KNIGHT.iter().map(|&d| (d, true))),
        }
        rays
    }

    /// The squares a piece on (`row`, `col`) attacks on an `n` x `n` board (0-based).
    pub fn attacked_from(&self, n: u32, row: u32, col: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let n = n as i64;
        for ((dr, dc), slides) in self.rays() {
            let (mut r, mut c) = (row as i64 + dr, col as i64 + dc);
            while (0..n).contains(&r) && (0..n).contains(&c) {
                out.push((r as u32, c as u32));
                if !slides {
                    break;
                }
                r += dr;
                c += dc;
            }
        }
        out
    }

    /// Whether pieces on `a` and `b` attack each other (the relation is symmetric).
    pub fn attacks(&self, _n: u32, a: (u32, u32), b: (u32, u32)) -> bool {
        // The board is convex, so every square between two squares of it is on it: b is
        // attacked when it lies along a ray from a, at one step for a leap.
        let (dr, dc) = (b.0 as i64 - a.0 as i64, b.1 as i64 - a.1 as i64);
        a != b
            && self.rays().iter().any(|&((rr, rc), slides)| {
                let k = if rr != 0 { dr / rr } else { dc / rc };
                k >= 1 && (k == 1 || slides) && (k * rr, k * rc) == (dr, dc)
            })
    }

    /// A pair of `pieces` that attack each other or share a square: the one whose second
    /// piece comes first in `pieces`, with the earliest partner. Near-linear, so that
    /// compositions of any size are checked.
    pub fn first_conflict(
        &self,
        _n: u32,
        pieces: &[(u32, u32)],
    ) -> Option<((u32, u32), (u32, u32))> {
        let rays = self.rays();
        // A sliding ray and its opposite are one line; two squares are on the line of the
        // primitive direction (dr, dc) exactly when r dc - c dr agree.
        let lines: Vec<(i64, i64)> = rays
            .iter()
            .filter(|&&((dr, dc), slides)| slides && (dr > 0 || (dr == 0 && dc > 0)))
            .map(|&(d, _)| d)
            .collect();
        let leaps: Vec<(i64, i64)> = rays.iter().filter(|r| !r.1).map(|r| r.0).collect();
        let mut on_line: HashMap<(usize, i64), usize> = HashMap::new();
        let mut on_square: HashMap<(u32, u32), usize> = HashMap::new();
        for (j, &b) in pieces.iter().enumerate() {
            let (r, c) = (b.0 as i64, b.1 as i64);
            let mut partner = on_square.get(&b).copied();
            let mut meet = |i: Option<usize>| {
                if let Some(i) = i {
                    partner = Some(partner.map_or(i, |p| p.min(i)));
                }
            };
            for (f, &(dr, dc)) in lines.iter().enumerate() {
                meet(on_line.get(&(f, r * dc - c * dr)).copied());
            }
            for &(dr, dc) in &leaps {
                let (r2, c2) = (r + dr, c + dc);
                if r2 >= 0 && c2 >= 0 {
                    meet(on_square.get(&(r2 as u32, c2 as u32)).copied());
                }
            }
            if let Some(i) = partner {
                return Some((pieces[i], b));
            }
            for (f, &(dr, dc)) in lines.iter().enumerate() {
                on_line.entry((f, r * dc - c * dr)).or_insert(j);
            }
            on_square.entry(b).or_insert(j);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attacks_and_conflicts_agree_with_the_attack_sets() {
        let n = 7;
        for piece in [Piece::Queen, Piece::Rook, Piece::Bishop] {
            for kind in [Kind::Regular, Kind::Super, Kind::Awesome] {
                let rules = Rules::new(piece, kind);
                let squares: Vec<(u32, u32)> =
                    (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
                for &a in &squares {
                    let set = rules.attacked_from(n, a.0, a.1);
                    for &b in &squares {
                        assert_eq!(
                            rules.attacks(n, a, b),
                            set.contains(&b),
                            "{rules:?} {a:?} {b:?}"
                        );
                        let pair = rules.first_conflict(n, &[a, b]);
                        let expect = a == b || set.contains(&b);
                        assert_eq!(pair.is_some(), expect, "{rules:?} {a:?} {b:?}");
                    }
                }
            }
        }
    }
}
