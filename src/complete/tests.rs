use super::levels::PAIRING_STALL;
use super::*;
use crate::exact::{self, Outcome};
use crate::format::Input;
use crate::format::nqb::row_store::RowStore;
use proptest::prelude::*;
use state::BoardState;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn opts(seed: u64) -> Options {
    Options {
        seed,
        time_limit: None,
        since: std::time::Instant::now(),
        interrupt: Arc::new(AtomicBool::new(false)),
        // The search phases are what these tests exercise (the closed form is tested
        // below on its own).
        closed_forms: false,
    }
}

use crate::oracle::{completable, is_composition as is_valid};

/// A random valid composition of an n-board: queens dropped on random free squares.
fn composition(n: usize, picks: &[(usize, usize)]) -> Vec<u32> {
    let mut q = vec![0u32; n];
    for &(r, c) in picks {
        let (r, c) = (r % n, c % n + 1);
        q[r] = c as u32;
        if !is_valid(&q) {
            q[r] = 0;
        }
    }
    q
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn agrees_with_brute_force(
        n in 1usize..=9,
        picks in proptest::collection::vec((0usize..9, 0usize..9), 0..7),
        seed in any::<u64>(),
    ) {
        let q = composition(n, &picks);
        let expected = completable(&q);
        let (answer, rows, _) = complete_rows(&q, &opts(seed)).expect("a valid composition");
        match answer {
            Answer::Solved => {
                prop_assert!(expected);
                prop_assert!(rows.iter().all(|&c| c != 0) && is_valid(&rows));
                for (a, b) in q.iter().zip(&rows) {
                    prop_assert!(*a == 0 || a == b, "a given queen moved");
                }
            }
            Answer::Infeasible(_) => prop_assert!(!expected),
            Answer::Unknown(why) => prop_assert!(false, "unknown without a budget: {}", why),
        }
    }
}

#[test]
fn random_compositions_of_mid_boards_are_solved() {
    // Above EXACT_FIRST free rows, through the randomized phases.
    for seed in 0..5 {
        let n = 2000;
        let (answer, sol, stats) = complete_rows(&vec![0; n], &opts(seed)).unwrap();
        assert_eq!(answer, Answer::Solved);
        assert!(stats.pairing.placed > 0);
        assert!(is_valid(&sol) && sol.iter().all(|&c| c != 0));
    }
}

#[test]
fn same_seed_same_solution_whatever_the_threads() {
    let n = 300_000;
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| complete_rows(&vec![0; n], &opts(42)).unwrap().1)
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
    assert_ne!(one, complete_rows(&vec![0; n], &opts(43)).unwrap().1);
}

/// A board state holding the queens of `q` (a valid composition).
fn state_of(q: &[u32]) -> BoardState {
    let input = Input::from_rows(std::path::Path::new("(memory)"), "memory", q).unwrap();
    let store = RowStore::anonymous(q.len() as u64).unwrap();
    match prepare(&input, store).unwrap() {
        Prepared::Ready(state, ..) => state,
        Prepared::Invalid(_) => panic!("not a valid composition"),
    }
}

/// Runs the repair phase on `q` (all its free rows leftover) with a generous effort.
fn repaired(q: &[u32], seed: u64) -> (Result<repair::Repaired, repair::Unrepaired>, BoardState) {
    let mut state = state_of(q);
    let free: Vec<u32> = (1..=q.len() as u32)
        .filter(|&i| q[i as usize - 1] == 0)
        .collect();
    let effort = repair::Effort {
        max_moves: 200_000,
        // As the engine's first try.
        stall: repair::STALL,
        guided: seed.is_multiple_of(2),
    };
    let outcome = repair::repair(
        &mut state,
        &free,
        crate::rng::Rng::seeded(seed, &[5]),
        effort,
        &crate::stop::Stop::never(),
        &|_| {},
    );
    (outcome, state)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// The repair phase never moves a given queen, answers only with solutions, leaves the
    /// board as it found it when it fails, and fails only where brute force agrees or on
    /// a budget (it is a local search: it may fail on a completable board, never the
    /// other way round).
    #[test]
    fn repair_keeps_given_queens_and_answers_only_with_solutions(
        n in 4usize..=10,
        picks in proptest::collection::vec((0usize..10, 0usize..10), 0..8),
        seed in any::<u64>(),
    ) {
        let q = composition(n, &picks);
        let (outcome, mut state) = repaired(&q, seed);
        let rows = state.rows.to_vec();
        match outcome {
            Ok(_) => {
                prop_assert!(completable(&q));
                prop_assert!(rows.iter().all(|&c| c != 0) && is_valid(&rows), "{rows:?}");
                for (a, b) in q.iter().zip(&rows) {
                    prop_assert!(*a == 0 || a == b, "a given queen moved");
                }
                prop_assert!(state.lines_match_rows());
            }
            Err(_) => {
                prop_assert_eq!(&rows, &q);
                prop_assert!(state.lines_match_rows(), "bitmaps out of step after a failure");
            }
        }
    }
}

#[test]
fn repair_completes_random_clearings_of_a_construction() {
    // A construction with rows cleared at random: the end games stall there, repair does not.
    let n = 3001u64;
    let q: Vec<u32> = (1..=n)
        .map(|r| crate::closed_form::constructed_column(n, r) as u32)
        .collect();
    for seed in 0..4 {
        let mut rng = crate::rng::Rng::seeded(seed, &[9]);
        let mut c = q.clone();
        for _ in 0..150 {
            c[rng.index(n as usize)] = 0;
        }
        // A local search may stall on a plateau; the engine then restarts with another
        // stream, and so does this test (up to three tries, as the engine's first).
        let (outcome, state) = (0..3)
            .map(|t| repaired(&c, seed + 1000 * t))
            .find(|(o, _)| o.is_ok())
            .unwrap_or_else(|| panic!("seed {seed}: three tries stalled"));
        assert!(outcome.is_ok());
        let rows = state.rows.to_vec();
        assert!(is_valid(&rows) && rows.iter().all(|&j| j != 0));
        assert!(c.iter().zip(&rows).all(|(a, b)| *a == 0 || a == b));
    }
}

#[test]
fn repair_after_pairing_keeps_the_board_consistent() {
    // Pairing's queens are part of the assignment: a failed repair puts them back where
    // pairing left them, a rewind then takes the board back to the input.
    let n = 2000u64;
    let q: Vec<u32> = (1..=n)
        .map(|r| crate::closed_form::constructed_column(n, r) as u32)
        .map(|j| if j % 7 == 0 { 0 } else { j })
        .collect();
    let mut state = state_of(&q);
    let mark = state.mark();
    pairing::pair_rounds(
        &mut state,
        1,
        0,
        0,
        PAIRING_STALL,
        &crate::stop::Stop::never(),
    );
    let free = {
        let mut f = state.placed_since(mark);
        state.for_each_free_row(|i| {
            f.push(i as u32);
            true
        });
        f.sort_unstable();
        f
    };
    let before = state.rows.to_vec();
    let tiny = repair::Effort {
        max_moves: 10,
        stall: 10,
        guided: true,
    };
    let outcome = repair::repair(
        &mut state,
        &free,
        crate::rng::Rng::seeded(1, &[5]),
        tiny,
        &crate::stop::Stop::never(),
        &|_| {},
    );
    assert!(outcome.is_err());
    assert_eq!(state.rows.to_vec(), before);
    assert!(state.lines_match_rows());
    state.rewind_to(mark);
    assert_eq!(state.rows.to_vec(), q);
    assert!(state.lines_match_rows());
}

/// A board of `source` with the queens inside `region` cleared.
fn cleared(n: u64, source: crate::generate::Source, region: crate::generate::Region) -> Vec<u32> {
    (1..=n)
        .map(|r| {
            let j = source.column(n, r);
            if region.contains(n, r, j) {
                0
            } else {
                j as u32
            }
        })
        .collect()
}

#[test]
fn the_wide_search_completes_tight_residuals() {
    // A block of rows, a band of columns and a band of diagonals cleared from
    // constructions: wider than the bitset engine (1024 rows), so tight that repair
    // stalls; propagation of the wide search finishes them.
    use crate::generate::{Direction, Region, Source};
    let n = 20_011u64;
    for (source, region) in [
        (
            Source::Construction,
            Region::Rows {
                start: 9000,
                len: 1100,
            },
        ),
        (
            Source::Transposed,
            Region::Columns {
                start: 4000,
                len: 1100,
            },
        ),
        (
            Source::Linear { a: 2 },
            Region::Diagonals {
                direction: Direction::D1,
                start: 15_000,
                len: 1300,
            },
        ),
    ] {
        let q = cleared(n, source, region);
        let state = state_of(&q);
        let (rows, cols) = state.free_rows_and_columns();
        assert!(
            rows.len() > exact::MAX_FREE,
            "{source:?}: {} free rows",
            rows.len()
        );
        let limits = exact::Limits {
            max_nodes: 4 * rows.len() as u64,
            stop: &crate::stop::Stop::never(),
        };
        let free = |i: u64, j: u64| state.lines.diagonals_free(i, j);
        let (outcome, _, _) = exact::wide::first(n, &rows, &cols, &free, limits).unwrap();
        let Outcome::Solved(cells) = outcome else {
            panic!("{source:?} {region}: {outcome:?}");
        };
        let mut sol = q.clone();
        for (i, j) in cells {
            assert_eq!(sol[i as usize - 1], 0, "a given queen moved");
            sol[i as usize - 1] = j as u32;
        }
        assert!(is_valid(&sol) && sol.iter().all(|&j| j != 0));
    }
}

#[test]
fn the_engine_turns_to_the_wide_search_on_a_tight_block() {
    use crate::generate::{Region, Source};
    let n = 12_001u64;
    let q = cleared(
        n,
        Source::Construction,
        Region::Rows {
            start: 3000,
            len: 1030,
        },
    );
    let (answer, rows, stats) = complete_rows(&q, &opts(1)).unwrap();
    assert_eq!(answer, Answer::Solved);
    assert!(stats.exact.placed > 0, "{stats:?}");
    assert!(is_valid(&rows) && rows.iter().all(|&j| j != 0));
    assert!(q.iter().zip(&rows).all(|(a, b)| *a == 0 || a == b));
}

#[test]
fn repaired_answers_do_not_depend_on_the_thread_count() {
    let n = 20_000u64;
    let mut rng = crate::rng::Rng::seeded(7, &[9]);
    let q: Vec<u32> = (1..=n)
        .map(|r| crate::closed_form::constructed_column(n, r) as u32)
        .map(|j| if rng.below(50) == 0 { 0 } else { j })
        .collect();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| complete_rows(&q, &opts(3)).unwrap())
    };
    let (answer, one, stats) = run(1);
    assert_eq!(answer, Answer::Solved);
    assert!(stats.repair.runs > 0, "the repair phase ran");
    assert_eq!(one, run(2).1);
}

/// Compositions of every closed form (the construction under each symmetry, a linear
/// solution) with rows cleared, and of a random-looking solution: completed from the closed
/// form exactly when every given queen lies on it; an edited row sends it to the search.
#[test]
fn closed_forms_complete_what_lies_on_them() {
    use crate::closed_form::{ClosedForm, Symmetry};
    let n = 1_001u64; // prime to 6: linear solutions exist
    let forms = Symmetry::ALL
        .map(ClosedForm::Construction)
        .into_iter()
        .chain([ClosedForm::Linear { a: 5, b: 17 }]);
    for form in forms {
        let solution: Vec<u32> = (1..=n).map(|r| form.column(n, r) as u32).collect();
        let mut q = solution.clone();
        for (i, row) in q.iter_mut().enumerate() {
            if i % 7 == 3 || i % 11 == 0 {
                *row = 0;
            }
        }
        let mut o = opts(1);
        o.closed_forms = true;
        let (answer, rows, stats) = complete_rows(&q, &o).expect("a valid composition");
        assert_eq!(answer, Answer::Solved, "{form:?}");
        assert_eq!(rows, solution, "{form:?}: completed from the form");
        assert_eq!(stats.closed_form_solution, Some(form.describe()));
        assert!(crate::oracle::conflicting_pairs(&rows).is_empty());
        // One queen added off the form, on another cell of the solution's free part: all
        // but one given queen lie on the form, which is tried first; whatever completes
        // it keeps every given queen.
        let mut edited = q.clone();
        let (a, b) = (3usize, 10usize); // both cleared rows (i % 7 == 3)
        assert_eq!((edited[a], edited[b]), (0, 0));
        edited[a] = solution[b];
        if crate::oracle::conflicting_pairs(&edited).is_empty() {
            let (answer, rows, stats) = complete_rows(&edited, &o).expect("valid");
            assert_eq!(stats.closed_form_exceptions, 1, "{form:?}");
            if answer == Answer::Solved {
                assert!(crate::oracle::conflicting_pairs(&rows).is_empty());
                assert!(edited.iter().zip(&rows).all(|(&e, &r)| e == 0 || e == r));
            }
        }
    }
    // The empty board has no queen to recognise a form by: completed at random.
    let mut o = opts(1);
    o.closed_forms = true;
    let (answer, _, stats) = complete_rows(&vec![0; 200], &o).unwrap();
    assert_eq!((answer, stats.closed_form.runs), (Answer::Solved, 1));
    assert_eq!(stats.closed_form_solution, None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Against the slow oracle: a closed form of a small board, some rows cleared and maybe
    /// one queen moved to a cell that attacks no other given queen. The answer, whatever
    /// route gave it, keeps every given queen and is a solution; the closed form is used
    /// exactly when every given queen lies on the form it names.
    #[test]
    fn closed_form_answers_keep_the_given_queens(
        n in 4u64..60,
        symmetry in 0usize..8,
        linear in any::<bool>(),
        cleared in proptest::collection::vec(any::<bool>(), 60),
        moved in proptest::option::of((0usize..60, 0usize..60)),
    ) {
        use crate::closed_form::{ClosedForm, Symmetry, linear_exists};
        let form = match (linear, (2..n).find(|&a| linear_exists(n, a))) {
            (true, Some(a)) => ClosedForm::Linear { a, b: n / 3 },
            _ => ClosedForm::Construction(Symmetry::ALL[symmetry]),
        };
        let solution: Vec<u32> = (1..=n).map(|r| form.column(n, r) as u32).collect();
        prop_assert!(crate::oracle::conflicting_pairs(&solution).is_empty());
        let mut q: Vec<u32> = solution
            .iter()
            .zip(&cleared)
            .map(|(&c, &clear)| if clear { 0 } else { c })
            .collect();
        if let Some((row, col)) = moved {
            let (row, col) = (row % n as usize, col % n as usize + 1);
            let mut edited = q.clone();
            edited[row] = col as u32;
            if crate::oracle::conflicting_pairs(&edited).is_empty() {
                q = edited;
            }
        }
        let mut o = opts(7);
        o.closed_forms = true;
        let (answer, rows, stats) = complete_rows(&q, &o).expect("a valid composition");
        if answer == Answer::Solved {
            prop_assert!(crate::oracle::conflicting_pairs(&rows).is_empty());
            prop_assert!(rows.iter().all(|&c| c >= 1 && c as u64 <= n));
            prop_assert!(q.iter().zip(&rows).all(|(&g, &r)| g == 0 || g == r));
        }
        let on_form = q.iter().zip(&solution).all(|(&g, &s)| g == 0 || g == s);
        if stats.closed_form_solution.is_some() {
            prop_assert_eq!(answer, Answer::Solved);
        }
        // The form built here, or another closed form that holds every queen, is used
        // whenever the queens name it: any queen names the construction's images; a
        // linear solution needs two whose rows differ by a number prime to n.
        let rows_given: Vec<u64> = (1..=n).filter(|&r| q[r as usize - 1] != 0).collect();
        let named = match form {
            ClosedForm::Construction(_) => !rows_given.is_empty(),
            ClosedForm::Linear { .. } => rows_given.iter().skip(1).take(64).any(|&r| {
                crate::closed_form::gcd(r - rows_given[0], n) == 1
            }),
        };
        // (A full board has nothing to complete, and never reaches the phase.)
        if on_form && named && q.contains(&0) {
            prop_assert!(stats.closed_form_solution.is_some(), "{:?} {:?}", form, q);
        }
    }
}

/// `q` with `moves` given queens moved, one after another, to another cell of their row
/// that attacks no queen (as a user editing a solution by hand); the rows moved.
fn move_queens(q: &mut [u32], moves: usize, rng: &mut crate::rng::Rng) -> Vec<usize> {
    let n = q.len();
    let free_cols = |q: &[u32]| {
        let mut used = vec![false; n + 1];
        for &c in q {
            used[c as usize] = true;
        }
        (1..=n as u32)
            .filter(|&c| !used[c as usize])
            .collect::<Vec<u32>>()
    };
    let mut moved = Vec::new();
    for _ in 0..100 * moves {
        if moved.len() == moves {
            break;
        }
        let i = rng.index(n);
        let old = q[i];
        if old == 0 || moved.contains(&i) {
            continue;
        }
        q[i] = 0;
        let open: Vec<u32> = free_cols(q)
            .into_iter()
            .filter(|&c| c != old && crate::oracle::free_cell(q, i, c))
            .collect();
        if open.is_empty() {
            q[i] = old;
            continue;
        }
        q[i] = open[rng.index(open.len())];
        moved.push(i);
    }
    moved
}

/// The explicit construction of size `n` with rows cleared with probability `per_mille`
/// / 1000, then `moves` given queens moved (`move_queens`); the rows moved.
fn edited_construction(
    n: usize,
    per_mille: u64,
    moves: usize,
    rng: &mut crate::rng::Rng,
) -> (Vec<u32>, Vec<usize>) {
    let mut q: Vec<u32> = (1..=n as u64)
        .map(|r| crate::closed_form::constructed_column(n as u64, r) as u32)
        .collect();
    for row in q.iter_mut() {
        if rng.below(1000) < per_mille {
            *row = 0;
        }
    }
    let moved = move_queens(&mut q, moves, rng);
    (q, moved)
}

/// Constructions with rows cleared and a few given queens moved: all but those lie on
/// the construction, the rows they disturb are placed by chains or rerouted by the exact
/// search, and the answer keeps every given queen; the same for every thread count.
#[test]
fn edited_constructions_are_rerouted_from_the_form() {
    let mut rerouted = 0;
    for seed in 1..=6u64 {
        let mut rng = crate::rng::Rng::seeded(seed, &[99]);
        let (q, moved) = edited_construction(20_000, 20, 1 + seed as usize % 3, &mut rng);
        assert!(!moved.is_empty());
        let mut o = opts(seed);
        o.closed_forms = true;
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| complete_rows(&q, &o).expect("a valid composition"))
        };
        let (answer, rows, stats) = run(1);
        assert_eq!(answer, Answer::Solved, "seed {seed}");
        assert!(crate::oracle::conflicting_pairs(&rows).is_empty());
        assert!(q.iter().zip(&rows).all(|(&g, &r)| g == 0 || g == r));
        assert_eq!(
            stats.closed_form_exceptions,
            moved.len() as u64,
            "seed {seed}"
        );
        if stats.closed_form_solution.is_some() && stats.closed_form_attacked > 0 {
            rerouted += 1;
        }
        assert_eq!(
            run(2).1,
            rows,
            "seed {seed}: the same answer on two threads"
        );
    }
    assert!(rerouted >= 3, "{rerouted} of 6 rerouted from the form");
}

/// Moved queens can close a free line to every free row: the closed-form phase then
/// answers INFEASIBLE with that line, and the slow oracle confirms that no free row has a
/// free cell on it.
#[test]
fn edited_constructions_with_a_closed_line_are_proved_infeasible() {
    let n = 20_000usize;
    let mut proved = 0;
    for seed in 1..=8u64 {
        let mut rng = crate::rng::Rng::seeded(seed, &[98]);
        let (q, _) = edited_construction(n, 5, 30, &mut rng);
        let mut o = opts(seed);
        o.closed_forms = true;
        let (answer, _, stats) = complete_rows(&q, &o).expect("a valid composition");
        let Answer::Infeasible(cert) = answer else {
            continue;
        };
        if stats.closed_form_tried.is_none() || stats.closed_form_rerouted > 0 {
            continue;
        }
        let free_rows: Vec<usize> = (0..n).filter(|&i| q[i] == 0).collect();
        match cert {
            Certificate::EmptyColumn { column } => {
                assert!(!q.contains(&(column as u32)), "column {column} is free");
                assert!(
                    free_rows
                        .iter()
                        .all(|&i| !crate::oracle::free_cell(&q, i, column as u32)),
                    "seed {seed}: column {column} is reachable"
                );
            }
            Certificate::EmptyRow { row } => {
                let i = row as usize - 1;
                assert_eq!(q[i], 0);
                assert!((1..=n as u32).all(|c| !crate::oracle::free_cell(&q, i, c)));
            }
            other => panic!("seed {seed}: {other:?}"),
        }
        proved += 1;
    }
    assert!(
        proved > 0,
        "no board proved infeasible by the closed-form phase"
    );
}

/// Whether row `h` (0-based, empty in `p`) can reach a column no queen of `p` holds
/// through at most one free row of `movable` (0-based rows of `p`): the slow oracle of a
/// chain of one or two rows.
fn short_chain_exists(p: &[u32], movable: &[usize], h: usize) -> bool {
    let n = p.len() as u32;
    let vacant: Vec<u32> = (1..=n).filter(|c| !p.contains(c)).collect();
    vacant.iter().any(|&v| crate::oracle::free_cell(p, h, v))
        || movable.iter().any(|&x| {
            let c = p[x];
            vacant.iter().any(|&v| {
                // h takes x's column and x takes v: both cells free of the other queens
                // and of each other.
                let mut q = p.to_vec();
                q[x] = 0;
                crate::oracle::free_cell(&q, h, c) && {
                    q[h] = c;
                    crate::oracle::free_cell(&q, x, v)
                }
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Chains of column exchanges on small boards (random queens, or a construction with
    /// one row cleared and a few queens moved, which leaves one row without a queen and
    /// one vacant column apart): the board stays valid, given queens stay, rows are
    /// placed or reported as left, and a row that a chain of one or two rows can place
    /// (the slow oracle) is placed.
    #[test]
    fn chains_keep_the_board_valid_and_find_short_ones(
        n in 8usize..=40,
        picks in proptest::collection::vec((0usize..40, 0usize..40), 0..60),
        edited in any::<bool>(),
        moves in 0usize..4,
        given in proptest::collection::vec(any::<bool>(), 40),
        seed in any::<u64>(),
    ) {
        let p = if edited {
            let mut p: Vec<u32> = (1..=n as u64)
                .map(|r| crate::closed_form::constructed_column(n as u64, r) as u32)
                .collect();
            p[picks.first().map_or(0, |x| x.0) % n] = 0;
            move_queens(&mut p, moves, &mut crate::rng::Rng::seeded(seed, &[97]));
            p
        } else {
            composition(n, &picks)
        };
        let g: Vec<u32> = p.iter().zip(&given).map(|(&c, &k)| if k { c } else { 0 }).collect();
        let mut state = state_of(&g);
        let free: Vec<u64> = (1..=n as u64).filter(|&i| g[i as usize - 1] == 0).collect();
        let mut columns: Vec<u64> = free.iter().map(|&i| u64::from(p[i as usize - 1])).collect();
        let homeless: Vec<u64> = free.iter().copied().zip(&columns).filter(|&(_, &j)| j == 0).map(|(i, _)| i).collect();
        for (&i, &j) in free.iter().zip(&columns) {
            if j != 0 {
                state.place(i, j);
            }
        }
        let (left, done) = chains::rehouse(&mut state, &free, &mut columns, &homeless, crate::rng::Rng::seeded(seed, &[12]), chains::Checks { per_row: u64::MAX, total: u64::MAX }, &crate::stop::Stop::never());
        let rows: Vec<u32> = (1..=n as u64).map(|i| state.rows.get(i) as u32).collect();
        prop_assert!(crate::oracle::conflicting_pairs(&rows).is_empty());
        prop_assert!(g.iter().zip(&rows).all(|(&a, &b)| a == 0 || a == b), "a given queen moved");
        for (&i, &j) in free.iter().zip(&columns) {
            let r = rows[i as usize - 1];
            prop_assert_eq!(u64::from(r), j);
            prop_assert_eq!(r == 0, left.contains(&i));
        }
        prop_assert_eq!(done.rehoused as usize + left.len(), homeless.len());
        if homeless.len() == 1 {
            let movable: Vec<usize> = free.iter().map(|&i| i as usize - 1).filter(|&x| p[x] != 0).collect();
            if short_chain_exists(&p, &movable, homeless[0] as usize - 1) {
                prop_assert!(left.is_empty(), "a chain of at most two rows was missed");
            }
        }
    }
}

/// A row that a chain moves is in the journal twice (placed, then placed again after an
/// unjournaled removal): rewinding still empties it once and keeps the bitmaps in step.
#[test]
fn rewinding_undoes_rows_moved_after_the_mark() {
    let mut state = state_of(&[0; 8]);
    let mark = state.mark();
    state.place(1, 1);
    state.place(2, 3);
    state.unplace(1);
    state.place(1, 8);
    state.rewind_to(mark);
    assert_eq!(state.free(), 8);
    assert!((1..=8).all(|i| state.rows.get(i) == 0));
    assert!(state.lines_match_rows());
}
