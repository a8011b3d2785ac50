//! Published totals a count can be checked against.

/// Placements of n regular queens on an empty board, as published (OEIS A000170, n = 1 to
/// 27): what a count can be checked against.
const KNOWN_TOTALS: [u128; 27] = [
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2680,
    14200,
    73712,
    365596,
    2279184,
    14772512,
    95815104,
    666090624,
    4968057848,
    39029188884,
    314666222712,
    2691008701644,
    24233937684440,
    227514171973736,
    2207893435808352,
    22317699616364044,
    234907967154122528,
];

/// The published number of placements of n regular queens on an empty board, where one
/// is known (n = 1 to 27).
pub fn known_total(n: u32) -> Option<u128> {
    KNOWN_TOTALS.get((n as usize).checked_sub(1)?).copied()
}
