//! The square engine: placements of pieces that may share a row (bishops of every kind), as
//! sets of squares chosen in increasing order, on boards of up to 11 x 11 (one bit per square
//! in a u128).

use super::rules::Rules;

/// The largest board the square engine handles.
pub const MAX_SQUARES_N: u32 = 11;

/// A board with its attack table and preplaced pieces.
pub(crate) struct SquareBoard {
    attacks: Vec<u128>,
    /// Squares still free for a piece: not preplaced, not attacked by a preplaced piece.
    pub free: u128,
    /// Pieces still to place.
    pub need: u32,
    /// The preplaced squares (`r * n + c`), sorted.
    pub placed: Vec<u16>,
}

impl SquareBoard {
    /// The board for `n` pieces with `pieces` preplaced (0-based, not attacking each other).
    pub(super) fn new(n: u32, rules: Rules, pieces: &[(u32, u32)]) -> SquareBoard {
        let attacks: Vec<u128> = (0..n * n)
            .map(|s| {
                rules
                    .attacked_from(n, s / n, s % n)
                    .into_iter()
                    .fold(0u128, |m, (r, c)| m | 1u128 << (r * n + c))
            })
            .collect();
        let mut free = if n * n == 128 {
            u128::MAX
        } else {
            (1u128 << (n * n)) - 1
        };
        let mut placed = Vec::new();
        for &(r, c) in pieces {
            let s = r * n + c;
            free &= !(1u128 << s) & !attacks[s as usize];
            placed.push(s as u16);
        }
        placed.sort_unstable();
        SquareBoard {
            attacks,
            free,
            need: n - pieces.len() as u32,
            placed,
        }
    }

    /// The work items: the smallest free square a placement uses (or none, when nothing is
    /// left to place), each with the candidates and count left after it.
    pub(super) fn items(&self) -> Vec<(Option<u16>, u128, u32)> {
        if self.need == 0 {
            return vec![(None, 0, 0)];
        }
        let mut out = Vec::new();
        let mut c = self.free;
        while c != 0 {
            let s = c.trailing_zeros();
            c &= c - 1;
            out.push((Some(s as u16), c & !self.attacks[s as usize], self.need - 1));
        }
        out
    }

    /// The number of ways to choose `need` pairwise non-attacking squares from `cand`.
    pub(super) fn count(&self, cand: u128, need: u32) -> u64 {
        if need == 0 {
            return 1;
        }
        if need == 1 {
            return cand.count_ones() as u64;
        }
        let mut c = cand;
        let mut total = 0;
        while c.count_ones() >= need {
            let s = c.trailing_zeros();
            c &= c - 1;
            total += self.count(c & !self.attacks[s as usize], need - 1);
        }
        total
    }

    /// Calls `visit` with every such choice added to `chosen`, in increasing order, until it
    /// returns false. Returns false if stopped.
    pub(super) fn each(
        &self,
        cand: u128,
        need: u32,
        chosen: &mut Vec<u16>,
        visit: &mut dyn FnMut(&[u16]) -> bool,
    ) -> bool {
        if need == 0 {
            return visit(chosen);
        }
        let mut c = cand;
        while c.count_ones() >= need {
            let s = c.trailing_zeros();
            c &= c - 1;
            chosen.push(s as u16);
            let go_on = self.each(c & !self.attacks[s as usize], need - 1, chosen, visit);
            chosen.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
}
