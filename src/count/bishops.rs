//! Regular bishops by counting, not search: bishops on the two colours never meet, and on one
//! colour each diagonal crosses a centred run of anti-diagonals, so the runs are nested and
//! placing k bishops is placing k rooks on a Ferrers board.

use num_bigint::BigUint;

/// For one colour of an `n` x `n` board: `ways[k]` is the number of ways to put k non-attacking
/// bishops on its squares avoiding the `used` lines (D1 = r - c + n - 1, D2 = r + c).
pub(crate) fn colour_ways(n: u32, colour: u32, used_d1: &[bool], used_d2: &[bool]) -> Vec<BigUint> {
    // Each free D2 line of this colour, with the number of free D1 lines it crosses.
    let mut heights: Vec<u64> = Vec::new();
    for s in (colour..=2 * (n - 1)).step_by(2) {
        if used_d2[s as usize] {
            continue;
        }
        let reach = s.min(2 * (n - 1) - s) as i64;
        // D1 index r - c runs over -reach..=reach in steps of 2 on this line.
        let free = (-reach..=reach)
            .step_by(2)
            .filter(|t| !used_d1[(t + n as i64 - 1) as usize])
            .count();
        heights.push(free as u64);
    }
    // Nested runs: shorter lines first, each earlier bishop blocks one line of every later run.
    heights.sort_unstable();
    let mut ways = vec![BigUint::from(1u32)];
    for (i, &h) in heights.iter().enumerate() {
        let mut next = ways.clone();
        next.push(BigUint::ZERO);
        for j in 1..=i + 1 {
            let blocked = (j - 1) as u64;
            if h > blocked {
                next[j] += &ways[j - 1] * (h - blocked);
            }
        }
        ways = next;
    }
    ways
}

/// The lines used by `pieces` (0-based squares), as (D1, D2) flags.
pub(crate) fn used_lines(n: u32, pieces: &[(u32, u32)]) -> (Vec<bool>, Vec<bool>) {
    let mut d1 = vec![false; (2 * n - 1) as usize];
    let mut d2 = vec![false; (2 * n - 1) as usize];
    for &(r, c) in pieces {
        d1[(r + n - 1 - c) as usize] = true;
        d2[(r + c) as usize] = true;
    }
    (d1, d2)
}
