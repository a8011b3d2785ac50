//! What each piece attacks: the move rays of queens, rooks and bishops in the three kinds.

use serde::{Deserialize, Serialize};

/// The chess piece being placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
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
    pub fn attacks(&self, n: u32, a: (u32, u32), b: (u32, u32)) -> bool {
        a != b && self.attacked_from(n, a.0, a.1).contains(&b)
    }

    /// The first pair of `pieces` that attack each other or share a square.
    pub fn first_conflict(
        &self,
        n: u32,
        pieces: &[(u32, u32)],
    ) -> Option<((u32, u32), (u32, u32))> {
        for (i, &a) in pieces.iter().enumerate() {
            for &b in &pieces[i + 1..] {
                if a == b || self.attacks(n, a, b) {
                    return Some((a, b));
                }
            }
        }
        None
    }
}
