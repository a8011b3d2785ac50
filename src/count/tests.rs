use super::dispatch::*;
use super::reference;
use super::row_search::with_lines;
use super::*;
use crate::stop::Stop;
use num_bigint::BigUint;
use proptest::prelude::*;

const PIECES: [Piece; 3] = [Piece::Queen, Piece::Rook, Piece::Bishop];
const KINDS: [Kind; 3] = [Kind::Regular, Kind::Super, Kind::Awesome];

fn fast(
    n: u32,
    piece: Piece,
    kind: Kind,
    placed: &[(u32, u32)],
    distinct: bool,
) -> (u64, Option<u64>) {
    let p = Problem::new(n, Rules::new(piece, kind), placed.to_vec()).unwrap();
    let t = count(&p, distinct, Shard::WHOLE).unwrap();
    let small = |b: &BigUint| u64::try_from(b).unwrap();
    (small(&t.count), t.distinct.as_ref().map(small))
}

fn slow(n: usize, piece: Piece, kind: Kind, placed: &[(u32, u32)]) -> (u64, u64) {
    let placed: Vec<(usize, usize)> = placed
        .iter()
        .map(|&(r, c)| (r as usize, c as usize))
        .collect();
    let all = reference::all(piece, kind, n, &placed);
    (all.len() as u64, reference::classes(n, &all) as u64)
}

/// The largest n the oracle reaches quickly for each piece.
fn oracle_max(piece: Piece) -> u32 {
    match piece {
        Piece::Bishop => 5,
        _ => 7,
    }
}

#[test]
fn every_piece_and_kind_agrees_with_the_oracle() {
    for piece in PIECES {
        for kind in KINDS {
            for n in 1..=oracle_max(piece) {
                let (all, classes) = slow(n as usize, piece, kind, &[]);
                assert_eq!(
                    fast(n, piece, kind, &[], false).0,
                    all,
                    "{piece:?} {kind:?} n={n}"
                );
                assert_eq!(
                    fast(n, piece, kind, &[], true),
                    (all, Some(classes)),
                    "{piece:?} {kind:?} n={n} distinct"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn preplaced_pieces_agree_with_the_oracle(
        piece in prop::sample::select(PIECES.to_vec()),
        kind in prop::sample::select(KINDS.to_vec()),
        n in 1u32..7,
        raw in prop::collection::vec((0u32..7, 0u32..7), 0..3),
    ) {
        let n = n.min(oracle_max(piece));
        let placed: Vec<(u32, u32)> = raw.into_iter().map(|(r, c)| (r % n, c % n)).collect();
        let mut unique = placed.clone();
        unique.sort_unstable();
        unique.dedup();
        let (all, classes) = slow(n as usize, piece, kind, &unique);
        let got = fast(n, piece, kind, &unique, true);
        prop_assert_eq!(got, (all, Some(classes)));
        prop_assert_eq!(fast(n, piece, kind, &unique, false).0, all);
    }
}

#[test]
fn queens_match_oeis_a000170_and_a002562() {
    let all = [1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200];
    let distinct = [1u64, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787];
    for n in 1..=12u32 {
        let (a, d) = fast(n, Piece::Queen, Kind::Regular, &[], true);
        assert_eq!(
            (a, d.unwrap()),
            (all[n as usize - 1], distinct[n as usize - 1]),
            "n={n}"
        );
        assert_eq!(count_queens_basic(n), all[n as usize - 1]);
    }
}

#[test]
fn super_queens_match_oeis_a051223() {
    // A051223: 1, 0, 0, 0, 0, 0, 0, 0, 0, 4, 44, 156, 1876, 5180.
    let want = [1u64, 0, 0, 0, 0, 0, 0, 0, 0, 4, 44, 156, 1876, 5180];
    for n in 1..=14u32 {
        assert_eq!(
            fast(n, Piece::Queen, Kind::Super, &[], false).0,
            want[n as usize - 1],
            "n={n}"
        );
    }
}

#[test]
fn kiss_regular_and_super_tables_hold() {
    // Rooks: regular n!, super from Kiss's table (n = 1..10).
    let super_rooks = [1u64, 2, 2, 8, 20, 94, 438, 2766, 19480, 163058];
    for n in 1..=10u32 {
        assert_eq!(
            fast(n, Piece::Rook, Kind::Super, &[], false).0,
            super_rooks[n as usize - 1]
        );
    }
    // Bishops, n = 1..8.
    let regular = [1u64, 4, 26, 260, 3368, 53744, 1022320, 22522960];
    let super_b = [1u64, 4, 6, 86, 854, 9556, 146168, 2660326];
    for n in 1..=8u32 {
        assert_eq!(
            fast(n, Piece::Bishop, Kind::Regular, &[], false).0,
            regular[n as usize - 1]
        );
        assert_eq!(
            fast(n, Piece::Bishop, Kind::Super, &[], false).0,
            super_b[n as usize - 1]
        );
    }
}

#[test]
fn awesome_counts_differ_from_kiss_only_at_odd_n() {
    // Kiss's awesome rooks (his rays wrap around the edge when n is odd).
    let kiss = [1u64, 2, 1, 8, 10, 22, 38, 276, 475, 2304];
    for n in 1..=10u32 {
        let ours = fast(n, Piece::Rook, Kind::Awesome, &[], false).0;
        if n % 2 == 0 || n == 1 {
            assert_eq!(ours, kiss[n as usize - 1], "n={n}");
        } else {
            // His wrapped rays attack more squares, so he counts fewer placements.
            assert!(ours > kiss[n as usize - 1], "n={n}: {ours}");
        }
    }
    // On a 3 x 3 board a nightrider cannot ride further than one leap: awesome = super there.
    assert_eq!(
        fast(3, Piece::Rook, Kind::Awesome, &[], false),
        fast(3, Piece::Rook, Kind::Super, &[], false)
    );
}

#[test]
fn engines_agree_where_they_overlap() {
    // Rooks: factorial against the row engine (distinct forces the row engine).
    for n in 1..=8u32 {
        let p = Problem::new(n, Rules::new(Piece::Rook, Kind::Regular), vec![(0, n / 2)]).unwrap();
        let rows = with_lines!(
            p.rules,
            one_per_line(&p, true, Shard::WHOLE, &Halt::new(&Stop::never()))
        );
        assert_eq!(count(&p, false, Shard::WHOLE).unwrap().count, rows.count);
    }
    // Bishops: colour programme against the square engine.
    for n in 2..=7u32 {
        for placed in [vec![], vec![(1, 1)], vec![(0, 0), (0, n - 1)]] {
            let p = Problem::new(n, Rules::new(Piece::Bishop, Kind::Regular), placed).unwrap();
            if p.conflict().is_some() {
                continue;
            }
            assert_eq!(
                bishop_colours(&p, Shard::WHOLE).count,
                squares(&p, false, Shard::WHOLE, &Halt::new(&Stop::never())).count
            );
        }
    }
}

#[test]
fn shards_add_up_to_the_whole() {
    for (piece, kind, n, placed) in [
        (Piece::Queen, Kind::Regular, 10, vec![]),
        (Piece::Queen, Kind::Super, 11, vec![(3, 3)]),
        (Piece::Rook, Kind::Awesome, 8, vec![]),
        // n = 7: distinct bishop counts go to the square engine, 50 s per count at n = 9 in
        // a debug build.
        (Piece::Bishop, Kind::Regular, 7, vec![(3, 3)]),
        (Piece::Bishop, Kind::Super, 6, vec![]),
    ] {
        let p = Problem::new(n, Rules::new(piece, kind), placed).unwrap();
        let whole = count(&p, true, Shard::WHOLE).unwrap();
        for of in [2, 3, 7] {
            let mut sum = BigUint::ZERO;
            let mut distinct = BigUint::ZERO;
            for i in 0..of {
                let t = count(&p, true, Shard::new(i, of).unwrap()).unwrap();
                sum += t.count;
                distinct += t.distinct.unwrap();
            }
            assert_eq!(sum, whole.count);
            assert_eq!(Some(distinct), whole.distinct);
        }
    }
}

#[test]
fn first_placements_are_valid_and_keep_the_preplaced() {
    for piece in PIECES {
        for kind in KINDS {
            for n in 1..=8u32 {
                let p = Problem::new(n, Rules::new(piece, kind), vec![]).unwrap();
                let got = first(&p).unwrap();
                let exists = fast(n.min(oracle_max(piece) + 1), piece, kind, &[], false).0 > 0;
                if n <= oracle_max(piece) + 1 {
                    assert_eq!(got.is_some(), exists, "{piece:?} {kind:?} n={n}");
                }
                if let Some(found) = got {
                    assert_eq!(found.len(), n as usize);
                    assert!(p.rules.first_conflict(n, &found).is_none());
                }
            }
        }
    }
    let p = Problem::new(
        40,
        Rules::new(Piece::Queen, Kind::Regular),
        vec![(0, 7), (20, 20)],
    )
    .unwrap();
    let found = first(&p).unwrap().unwrap();
    assert!(found.contains(&(0, 7)) && found.contains(&(20, 20)));
    assert!(p.rules.first_conflict(40, &found).is_none());
}

#[test]
fn conflicts_and_bad_boards_are_reported() {
    let p = Problem::new(
        8,
        Rules::new(Piece::Queen, Kind::Regular),
        vec![(0, 0), (3, 3)],
    )
    .unwrap();
    let t = count(&p, false, Shard::WHOLE).unwrap();
    assert_eq!(
        (t.count, t.conflict),
        (BigUint::ZERO, Some(((0, 0), (3, 3))))
    );
    assert_eq!(
        Problem::new(8, Rules::new(Piece::Rook, Kind::Regular), vec![(8, 0)]),
        Err(CountError::OffBoard {
            row: 9,
            col: 1,
            n: 8
        })
    );
    let big = Problem::new(12, Rules::new(Piece::Bishop, Kind::Super), vec![]).unwrap();
    assert!(matches!(
        count(&big, false, Shard::WHOLE),
        Err(CountError::TooLarge { .. })
    ));
}
