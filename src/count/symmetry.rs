//! The eight symmetries of the square board, and the tests that pick one placement per orbit.

/// One of the eight symmetries of the n x n board (rotations and reflections).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Symmetry(u8);

impl Symmetry {
    /// All eight, the identity first.
    pub(super) fn all() -> impl Iterator<Item = Symmetry> {
        (0..8).map(Symmetry)
    }

    /// Whether this is the identity.
    pub(super) fn is_identity(self) -> bool {
        self.0 == 0
    }

    /// The image of square (`r`, `c`) (0-based) on an `n` x `n` board.
    pub(super) fn apply(self, n: u32, (r, c): (u32, u32)) -> (u32, u32) {
        let m = n - 1;
        match self.0 {
            0 => (r, c),
            1 => (c, m - r),
            2 => (m - r, m - c),
            3 => (m - c, r),
            4 => (r, m - c),
            5 => (m - r, c),
            6 => (c, r),
            _ => (m - c, m - r),
        }
    }
}

/// For placements with one piece per row: `cols[r]` is the column of row `r`. Returns whether
/// `cols` is the smallest (lexicographically) of its images under `group` that still hold every
/// square of `required` — so that exactly one member of each class is counted.
pub(super) fn is_least_rows(
    cols: &[u8],
    group: &[Symmetry],
    required: &[(u32, u32)],
    image: &mut [u8],
) -> bool {
    let n = cols.len() as u32;
    for &g in group {
        if g.is_identity() {
            continue;
        }
        for (r, &c) in cols.iter().enumerate() {
            let (r2, c2) = g.apply(n, (r as u32, c as u32));
            image[r2 as usize] = c2 as u8;
        }
        if required.iter().any(|&(r, c)| image[r as usize] as u32 != c) {
            continue;
        }
        if image[..] < cols[..] {
            return false;
        }
    }
    true
}

/// The same test for placements given as a sorted list of square numbers (`r * n + c`).
pub(super) fn is_least_squares(
    n: u32,
    squares: &[u16],
    group: &[Symmetry],
    required: &[u16],
    image: &mut Vec<u16>,
) -> bool {
    for &g in group {
        if g.is_identity() {
            continue;
        }
        image.clear();
        image.extend(squares.iter().map(|&s| {
            let (r, c) = g.apply(n, (s as u32 / n, s as u32 % n));
            (r * n + c) as u16
        }));
        image.sort_unstable();
        if required.iter().any(|s| image.binary_search(s).is_err()) {
            continue;
        }
        if image[..] < squares[..] {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eight_maps_are_distinct_and_closed() {
        let n = 5;
        let images: Vec<Vec<(u32, u32)>> = Symmetry::all()
            .map(|g| (0..n * n).map(|s| g.apply(n, (s / n, s % n))).collect())
            .collect();
        for (i, a) in images.iter().enumerate() {
            for b in &images[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // Every composition of two symmetries is one of the eight.
        for g in Symmetry::all() {
            for h in Symmetry::all() {
                let composed: Vec<_> = (0..n * n)
                    .map(|s| h.apply(n, g.apply(n, (s / n, s % n))))
                    .collect();
                assert!(images.contains(&composed));
            }
        }
    }
}
