use super::*;
use proptest::prelude::*;

fn opts(seed: u64) -> Options {
    Options {
        seed,
        time_limit: None,
        since: std::time::Instant::now(),
        interrupt: Arc::new(AtomicBool::new(false)),
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
