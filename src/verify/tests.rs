use super::pass::*;
use super::*;
use crate::board::LineKind;
use crate::format::Input;
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
            ..Default::default()
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
        prop_assert_eq!(r.conflict_count, crate::oracle::conflict_count(&rows));
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

/// A board of several segments with conflicts within and across segments, empty rows and
/// values out of range: every way of marking, on one to three threads, gives the same
/// report as a count of every line.
#[test]
fn every_marking_and_thread_count_gives_the_same_report() {
    let seg = crate::format::nqb::DEFAULT_FRAME_ROWS as usize;
    let n = 3 * seg + 1000;
    let mut rows: Vec<u32> = (1..=n as u64)
        .map(|r| crate::closed_form::constructed_column(n as u64, r) as u32)
        .collect();
    // Queens moved onto lines other queens hold, near and far; a few rows emptied or
    // out of range.
    for (from, to) in [
        (5, 6),
        (17, seg + 3),
        (seg - 1, 2 * seg + 7),
        (100, 3 * seg + 999),
    ] {
        rows[to] = rows[from];
    }
    rows[seg + 50] = rows[seg + 49] + 1;
    rows[3] = 0;
    rows[seg + 11] = n as u32 + 5;
    // The expected count, line by line: each line's queens less one.
    let mut queens_on = vec![0u64; 5 * n + 1];
    for (r, &c) in rows.iter().enumerate() {
        if (1..=n).contains(&(c as usize)) {
            let (r, c) = (r + 1, c as usize);
            for line in [c, 2 * n + c - r, 3 * n + c + r] {
                queens_on[line] += 1;
            }
        }
    }
    let want: u64 = queens_on.iter().map(|q| q.saturating_sub(1)).sum();
    let input = Input::from_rows(Path::new("t"), "text", &rows).unwrap();
    for threads in 1..=3 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let markings: &[Marking] = match threads {
                2 => &[Marking::Unshared, Marking::Locked],
                _ => &[Marking::Unshared],
            };
            for &marking in markings {
                let pass =
                    marking_pass(&input, Requirements::default(), false, None, marking).unwrap();
                let how = format!("{marking:?} on {threads} threads");
                assert!(pass.consistent(), "{how}");
                assert_eq!(pass.report.conflict_count, want, "{how}");
                assert_eq!(
                    (pass.report.k, pass.report.out_of_range_count),
                    (n as u64 - 1, 1),
                    "{how}"
                );
            }
            if threads == 2 {
                let r = verify(&input, Requirements::default()).unwrap();
                assert_eq!((r.verdict, r.conflict_count), (Verdict::Invalid, want));
                assert_eq!(
                    r.conflicts[0].second.0, 7,
                    "rows 6 and 7 share a column first"
                );
            }
        });
    }
}

/// A base kept in whole blocks takes the lean loop; a block with one queen of the base
/// moved is scanned row by row and names it.
#[test]
fn base_queens_are_checked_in_every_block() {
    let n = 1000u64;
    let rows: Vec<u32> = (1..=n)
        .map(|r| crate::closed_form::constructed_column(n, r) as u32)
        .collect();
    let base_rows: Vec<u32> = (0..n as usize)
        .map(|i| if i % 3 == 0 { rows[i] } else { 0 })
        .collect();
    let base = Input::from_rows(Path::new("b"), "text", &base_rows).unwrap();
    let req = Requirements {
        complete: true,
        base: Some(&base),
        ..Default::default()
    };
    let input = Input::from_rows(Path::new("t"), "text", &rows).unwrap();
    let r = verify(&input, req).unwrap();
    assert_eq!((r.verdict, r.base_violation_count), (Verdict::Solution, 0));
    let mut moved = rows.clone();
    moved.swap(300, 500); // row 301 holds a base queen, row 501 does not
    let input = Input::from_rows(Path::new("t"), "text", &moved).unwrap();
    let r = verify(&input, req).unwrap();
    assert_eq!(r.base_violation_count, 1);
    assert_eq!(
        r.base_violations,
        vec![BaseViolation {
            row: 301,
            base: rows[300] as u64,
            found: rows[500] as u64,
        }]
    );
}

/// A solution checked against the digest of the queens it must keep: kept, one moved,
/// two given queens swapping columns (the same columns, rows and count), a queen added
/// where the composition had none (allowed).
#[test]
fn kept_queens_by_digest() {
    let n = 8u64;
    let solution = [1u32, 5, 8, 6, 3, 7, 2, 4];
    let given: Vec<u32> = solution
        .iter()
        .enumerate()
        .map(|(i, &c)| if i % 2 == 0 { c } else { 0 })
        .collect();
    let base = Input::from_rows(Path::new("b"), "text", &given).unwrap();
    let store = crate::format::nqb::row_store::RowStore::anonymous(n).unwrap();
    let mut store = store;
    let (_, marks) = verify_mark_and_copy(&base, Requirements::default(), store.loader()).unwrap();
    let marks = marks.unwrap();
    let kept = KeptQueens {
        rows: marks.rows,
        digest: marks.digest,
    };
    let check = |rows: &[u32]| {
        let input = Input::from_rows(Path::new("t"), "text", rows).unwrap();
        let req = Requirements {
            kept: Some(&kept),
            ..Default::default()
        };
        verify(&input, req).unwrap().base_violation_count
    };
    assert_eq!(check(&solution), 0);
    assert_eq!(check(&given), 0);
    let mut moved = solution;
    moved[2] = 2;
    assert_eq!(check(&moved), 1);
    let mut swapped = given.clone();
    swapped.swap(0, 2);
    assert_eq!(check(&swapped), 1);
    let mut emptied = given.clone();
    emptied[4] = 0;
    assert_eq!(check(&emptied), 1);
}
