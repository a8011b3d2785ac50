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

/// Brute force, written independently of the engine: does `q` have a completion?
fn completable(q: &mut Vec<u32>, row: usize) -> bool {
    let n = q.len();
    if row == n {
        return true;
    }
    if q[row] != 0 {
        return completable(q, row + 1);
    }
    for col in 1..=n as u32 {
        let attacked = q.iter().enumerate().any(|(r, &c)| {
            c != 0 && (c == col || (c as i64 - col as i64).abs() == (r as i64 - row as i64).abs())
        });
        if !attacked {
            q[row] = col;
            if completable(q, row + 1) {
                q[row] = 0;
                return true;
            }
            q[row] = 0;
        }
    }
    false
}

fn is_valid(q: &[u32]) -> bool {
    (0..q.len()).all(|b| {
        (0..b).all(|a| {
            let (ca, cb) = (q[a] as i64, q[b] as i64);
            ca == 0 || cb == 0 || (ca != cb && (ca - cb).abs() != (b - a) as i64)
        })
    })
}

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
        let expected = completable(&mut q.clone(), 0);
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
