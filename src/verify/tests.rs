use super::*;
use proptest::prelude::*;
use std::path::Path;

fn report(rows: &[u32]) -> Report {
    let input = Input::from_rows(Path::new("t"), "text", rows).unwrap();
    verify(&input, Requirements::default()).unwrap()
}

use crate::oracle::conflicting_pairs as oracle_pairs;

#[test]
fn eight_queens_solution() {
    let r = report(&[1, 5, 8, 6, 3, 7, 2, 4]);
    assert_eq!(r.verdict, Verdict::Solution);
    assert_eq!(r.k, 8);
}

#[test]
fn names_the_conflict_exactly() {
    let r = report(&[1, 0, 3, 0, 0]);
    assert_eq!(r.verdict, Verdict::Invalid);
    assert_eq!(
        r.conflicts,
        vec![Conflict {
            kind: LineKind::D1,
            first: (1, 1),
            second: (3, 3)
        }]
    );
}

#[test]
fn out_of_range_and_base() {
    let r = report(&[0, 9, 0]);
    assert_eq!(r.out_of_range, vec![OutOfRange { row: 2, value: 9 }]);
    let input = Input::from_rows(Path::new("t"), "text", &[2, 4, 1, 3]).unwrap();
    let base = Input::from_rows(Path::new("b"), "text", &[3, 0, 0, 0]).unwrap();
    let r = verify(
        &input,
        Requirements {
            complete: true,
            base: Some(&base),
        },
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Invalid);
    assert_eq!(
        r.base_violations,
        vec![BaseViolation {
            row: 1,
            base: 3,
            found: 2
        }]
    );
}

proptest! {
    #[test]
    fn agrees_with_the_quadratic_oracle(rows in proptest::collection::vec(0u32..=9, 1..9)) {
        let r = report(&rows);
        let pairs = oracle_pairs(&rows);
        let n = rows.len() as u32;
        let oor = rows.iter().filter(|&&v| v > n).count() as u64;
        prop_assert_eq!(r.out_of_range_count, oor);
        prop_assert_eq!(r.conflict_count == 0, pairs.is_empty());
        prop_assert_eq!(r.verdict == Verdict::Invalid, !pairs.is_empty() || oor > 0);
        // Every reported conflict is a real pair, and the first one is the oracle's first.
        for c in &r.conflicts {
            prop_assert!(pairs.contains(&(c.first.0, c.second.0)));
        }
        if let Some(first) = pairs.first() {
            prop_assert_eq!(r.conflicts[0].second.0, first.1);
        }
    }
}
