use super::run::*;
use super::*;
use proptest::prelude::*;

/// A residual over the given board rows and columns, free where `free` says.
fn residual(rows: &[u64], cols: &[u64], free: &[bool]) -> Residual {
    let m = rows.len();
    Residual::build(rows.to_vec(), cols.to_vec(), |i, j| {
        let r = rows.iter().position(|&x| x == i).unwrap();
        let c = cols.iter().position(|&x| x == j).unwrap();
        free[r * m + c]
    })
}

/// Every completion by trying every assignment of columns to rows.
fn brute(rows: &[u64], cols: &[u64], free: &[bool]) -> Vec<Vec<usize>> {
    fn go(
        r: usize,
        rows: &[u64],
        cols: &[u64],
        free: &[bool],
        used: &mut Vec<bool>,
        at: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        let m = rows.len();
        if r == m {
            out.push(at.clone());
            return;
        }
        for c in 0..m {
            if used[c] || !free[r * m + c] {
                continue;
            }
            let clash = (0..r).any(|r2| {
                let (i, j, i2, j2) = (rows[r], cols[c], rows[r2], cols[at[r2]]);
                i.abs_diff(i2) == j.abs_diff(j2)
            });
            if clash {
                continue;
            }
            used[c] = true;
            at.push(c);
            go(r + 1, rows, cols, free, used, at, out);
            at.pop();
            used[c] = false;
        }
    }
    let mut out = Vec::new();
    go(
        0,
        rows,
        cols,
        free,
        &mut vec![false; rows.len()],
        &mut Vec::new(),
        &mut out,
    );
    out
}

/// Checks that `cells` is a completion of the residual.
fn is_completion(rows: &[u64], cols: &[u64], free: &[bool], cells: &[(u64, u64)]) -> bool {
    let m = rows.len();
    let mut seen_r = vec![false; m];
    let mut seen_c = vec![false; m];
    for (k, &(i, j)) in cells.iter().enumerate() {
        let r = rows.iter().position(|&x| x == i).unwrap();
        let c = cols.iter().position(|&x| x == j).unwrap();
        if seen_r[r] || seen_c[c] || !free[r * m + c] {
            return false;
        }
        seen_r[r] = true;
        seen_c[c] = true;
        for &(i2, j2) in &cells[..k] {
            if i.abs_diff(i2) == j.abs_diff(j2) {
                return false;
            }
        }
    }
    cells.len() == m
}

/// Sorted distinct board coordinates: rows and columns of a residual inside an n-board.
fn coords(m: usize, spread: u64) -> impl Strategy<Value = Vec<u64>> {
    proptest::collection::btree_set(1..=spread, m).prop_map(|s| s.into_iter().collect())
}

fn instance() -> impl Strategy<Value = (Vec<u64>, Vec<u64>, Vec<bool>)> {
    (1usize..=8, 8u64..=20).prop_flat_map(|(m, spread)| {
        (
            coords(m, spread),
            coords(m, spread),
            proptest::collection::vec(prop::bool::weighted(0.75), m * m),
        )
    })
}

static NEVER: std::sync::LazyLock<crate::stop::Stop> =
    std::sync::LazyLock::new(crate::stop::Stop::never);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn agrees_with_brute_force((rows, cols, free) in instance(), seed in any::<u64>()) {
        let res = residual(&rows, &cols, &free);
        let all = brute(&rows, &cols, &free);
        let counted = count(&res, &|_| true, &NEVER);
        prop_assert_eq!(counted.completions, Some(all.len() as u64));
        let limits = Limits { max_nodes: u64::MAX, stop: &NEVER };
        let (seq, seq_counts) = first_sequential(&res, seed, limits);
        let (par, par_counts) = first(&res, seed, &NEVER);
        prop_assert_eq!(&seq, &par);
        match seq {
            Outcome::Solved(cells) => prop_assert!(is_completion(&rows, &cols, &free, &cells)),
            Outcome::Exhausted => {
                prop_assert!(all.is_empty());
                prop_assert_eq!(seq_counts, par_counts);
            }
            Outcome::Stopped => prop_assert!(false, "stopped without a limit"),
        }
        if !all.is_empty() {
            prop_assert!(matches!(par, Outcome::Solved(_)));
        }
        // Restarts in other orders decide as well: their budgets grow until one does.
        let (restarted, _) = Restarts::new(seed).run(&res, u64::MAX, &NEVER);
        match restarted {
            Outcome::Solved(cells) => prop_assert!(is_completion(&rows, &cols, &free, &cells)),
            Outcome::Exhausted => prop_assert!(all.is_empty()),
            Outcome::Stopped => prop_assert!(false, "restarts stopped without a limit"),
        }
    }

    #[test]
    fn shards_add_up((rows, cols, free) in instance()) {
        let res = residual(&rows, &cols, &free);
        let whole = count(&res, &|_| true, &NEVER).completions;
        let even = count(&res, &|i| i % 2 == 0, &NEVER).completions.unwrap();
        let odd = count(&res, &|i| i % 2 == 1, &NEVER).completions.unwrap();
        prop_assert_eq!(whole, Some(even + odd));
    }
}

fn empty_board(n: u64) -> Residual {
    Residual::build((1..=n).collect(), (1..=n).collect(), |_, _| true)
}

/// A000170.
const QUEENS: [u64; 14] = [1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712];

#[test]
fn counts_the_empty_boards() {
    for n in 1..=12u64 {
        let c = count(&empty_board(n), &|_| true, &NEVER);
        assert_eq!(c.completions, Some(QUEENS[n as usize]), "n = {n}");
    }
}

/// Runs `f` in a pool of `threads` threads.
fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn the_answer_does_not_depend_on_the_thread_count() {
    // Big enough to be split into many work items.
    for (n, seed) in [(14u64, 1u64), (16, 2), (17, 3)] {
        let res = empty_board(n);
        let one = with_threads(1, || first(&res, seed, &NEVER).0);
        for threads in [2, 3, 8] {
            assert_eq!(with_threads(threads, || first(&res, seed, &NEVER).0), one);
        }
        let limits = Limits {
            max_nodes: u64::MAX,
            stop: &NEVER,
        };
        assert_eq!(first_sequential(&res, seed, limits).0, one);
    }
    // n = 3 rows between other free rows of no solution: exhausted, same nodes everywhere.
    let res = Residual::build(
        vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
        (1..=9).collect(),
        |i, j| !(i <= 3 && j > 6),
    );
    let a = with_threads(1, || count(&res, &|_| true, &NEVER));
    let b = with_threads(4, || count(&res, &|_| true, &NEVER));
    assert_eq!(a.completions, b.completions);
    assert_eq!(a.counts, b.counts);
}

#[test]
fn restarts_do_not_depend_on_the_thread_count() {
    // 17 rows, the first four kept to the first three columns: no completion (Hall's
    // condition fails), which the search finds by exhausting its tree.
    let blocked = Residual::build((1..=17).collect(), (1..=17).collect(), |i, j| {
        i > 4 || j <= 3
    });
    for (res, seed) in [(empty_board(16), 1u64), (empty_board(17), 2), (blocked, 3)] {
        let run = |threads| {
            with_threads(threads, || {
                let mut r = Restarts::new(seed);
                let (outcome, counts) = r.run(&res, 1 << 20, &NEVER);
                (outcome, counts, r.runs)
            })
        };
        let one = run(1);
        assert!(one.2 > 0);
        let want_solved = seed < 3;
        assert_eq!(
            matches!(one.0, Outcome::Solved(_)),
            want_solved,
            "{:?}",
            one.0
        );
        assert_eq!(
            matches!(one.0, Outcome::Exhausted),
            !want_solved,
            "{:?}",
            one.0
        );
        for threads in [2, 5] {
            assert_eq!(run(threads), one, "{threads} threads");
        }
    }
}

#[test]
fn a_large_count_splits_into_items_and_agrees() {
    let res = empty_board(13);
    let c = count(&res, &|_| true, &NEVER);
    assert_eq!(c.completions, Some(73712));
    assert!(c.items >= COUNT_ITEMS);
}

#[test]
fn wide_residuals_use_wider_words_and_agree() {
    // 70 and 130 free rows: [u64; 2] and [u64; 4], the second without the attack table.
    for m in [70u64, 130] {
        let res = Residual::build((1..=m).collect(), (1..=m).collect(), |_, _| true);
        let limits = Limits {
            max_nodes: 1_000_000,
            stop: &NEVER,
        };
        match first_sequential(&res, 7, limits).0 {
            Outcome::Solved(cells) => {
                let free = vec![true; (m * m) as usize];
                let rc: Vec<u64> = (1..=m).collect();
                assert!(is_completion(&rc, &rc, &free, &cells), "m = {m}");
            }
            other => panic!("m = {m}: {other:?}"),
        }
    }
}

#[test]
fn a_node_limit_stops_and_the_stop_function_is_obeyed() {
    let res = empty_board(30);
    let limits = Limits {
        max_nodes: 3,
        stop: &NEVER,
    };
    assert_eq!(first_sequential(&res, 1, limits).0, Outcome::Stopped);
    let always = crate::stop::Stop::new(None, Some(Default::default()));
    always.raise();
    // 2 rows cannot be completed: exhausted before any poll.
    assert_eq!(first(&empty_board(2), 1, &always).0, Outcome::Exhausted);
    let mut nodes = 0;
    let stopped = first(&empty_board(60), 1, &always);
    if let (Outcome::Stopped, c) = stopped {
        nodes = c.nodes;
    }
    assert!(nodes <= 2 * super::search::POLL_NODES, "{nodes}");
}

/// The wide search of the residual `rows` x `cols` free where `free` says.
fn wide_first(rows: &[u64], cols: &[u64], free: &[bool]) -> Outcome {
    let m = rows.len();
    let n = rows.iter().chain(cols).copied().max().unwrap_or(1);
    let is_free = |i: u64, j: u64| {
        let r = rows.iter().position(|&x| x == i).unwrap();
        let c = cols.iter().position(|&x| x == j).unwrap();
        free[r * m + c]
    };
    let limits = Limits {
        max_nodes: u64::MAX,
        stop: &crate::stop::Stop::never(),
    };
    wide::first(n, rows, cols, &is_free, limits).unwrap().0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The wide search finds a completion exactly when brute force does, and what it finds
    /// is one.
    #[test]
    fn wide_search_agrees_with_brute_force(
        // Sparse to dense: sparse residuals make tight line families (as many supported
        // lines as rows), where the counting propagation acts.
        (rows, cols, free) in (1usize..9, prop_oneof![Just(0.35), Just(0.6), Just(0.85)])
            .prop_flat_map(|(m, density)| (
                proptest::sample::subsequence((1u64..=14).collect::<Vec<_>>(), m),
                proptest::sample::subsequence((1u64..=14).collect::<Vec<_>>(), m),
                proptest::collection::vec(proptest::bool::weighted(density), m * m),
            ))
    ) {
        let all = brute(&rows, &cols, &free);
        match wide_first(&rows, &cols, &free) {
            Outcome::Solved(cells) => {
                let at: Vec<usize> = rows
                    .iter()
                    .map(|&i| {
                        let j = cells.iter().find(|c| c.0 == i).unwrap().1;
                        cols.iter().position(|&x| x == j).unwrap()
                    })
                    .collect();
                prop_assert!(all.contains(&at), "{at:?} is not a completion");
            }
            Outcome::Exhausted => prop_assert!(all.is_empty(), "missed {:?}", all[0]),
            Outcome::Stopped => prop_assert!(false, "stopped without a limit"),
        }
    }
}

/// The search on each vector level scan this CPU has (AVX-512, AVX2: `Search::run` takes
/// the better for residuals of at most 32 rows) visits the scalar scan's tree node for
/// node: the same
/// nodes, decisions, solutions and suspended items, on Excluded Diagonals boards near the
/// hard ratio, for a first solution and for a count, whole and suspended.
#[test]
fn the_vector_scan_searches_the_scalar_tree() {
    use crate::simd::Kernel;
    let (mut nodes, mut found, mut compared) = (0, 0, 0);
    let cases = [
        (12u64, 1u64, 12),
        (16, 2, 16),
        (20, 3, 20),
        (20, 1, 10),
        (23, 1, 23),
    ];
    for (m, seed, d) in
        cases
            .into_iter()
            .chain([(25, 4, 25), (25, 2, 15), (29, 4, 29), (32, 5, 32)])
    {
        let diags = crate::excluded::generate(m, seed, 4);
        let ed = crate::excluded::ExcludedDiagonals::new(m, &diags[..d.min(diags.len())]);
        let all: Vec<u64> = (0..m).collect();
        let res = Residual::build(all.clone(), all, |i, j| ed.allowed(i, j));
        for (want, budget) in [(1, 400_000), (1, 20_000), (u64::MAX, 300_000)] {
            let what = format!("m {m}, seed {seed}, d {d}, want {want}, budget {budget}");
            // The AVX-512 kernel takes `u64` words, the AVX2 kernel `u32`s: each is
            // compared with the scalar search on its words, and the scalar searches on
            // both widths with each other.
            let (wide, tree) = searches_alike::<u64>(&res, seed, want, budget, &what);
            let (narrow, narrow_tree) = searches_alike::<u32>(&res, seed, want, budget, &what);
            assert_eq!(narrow_tree, tree, "u32 against u64 words: {what}");
            nodes += tree.nodes;
            found += tree.found;
            compared += wide + narrow;
        }
    }
    // Trees worth comparing: millions of nodes, solutions among them.
    assert!(
        nodes > 2_000_000 && found > 1_000,
        "{nodes} nodes, {found} solutions"
    );
    // Every x86-64 CPU that runs the tests has AVX2 or is older than 2013; elsewhere
    // nothing is compared.
    if Kernel::Avx2.supported() {
        assert!(compared >= 27, "{compared} searches compared");
    }
}

/// The search without an attack table (a queen's attacks found from the cells on its
/// diagonals, levels changed in place) visits the tree of the search with one: the same
/// flow, nodes, decisions, solutions and items, on Excluded Diagonals residuals and on
/// residuals of scattered rows and columns (a board of 10^6, sorted groups), with the
/// branches ordered by damage (which the walk counts) and without.
#[test]
fn the_walk_searches_the_table_tree() {
    use super::search::{Board, Item, Mode, Search, TABLE_BYTES, Ties};
    fn trees<B: super::bits::Bits>(res: &Residual, seed: u64, what: &str) -> u64 {
        let mut nodes = 0;
        for order in [true, false] {
            for (want, budget) in [(1, 200_000), (u64::MAX, 100_000)] {
                let search = |table_bytes| {
                    let mut board =
                        Board::<B>::new(res, Some(seed), Ties::MiddleFirst, table_bytes);
                    board.order_values = order;
                    let mode = Mode {
                        want,
                        budget,
                        split_depth: usize::MAX,
                    };
                    let mut s = Search::at(&board, &Item::default(), mode, &NEVER);
                    let flow = s.run_scalar();
                    Tree {
                        flow: format!("{flow:?}"),
                        nodes: s.nodes,
                        decisions: s.decisions,
                        found: s.found,
                        rest: format!("{:?} {:?}", s.solution, s.items),
                    }
                };
                let walked = search(0);
                assert_eq!(
                    walked,
                    search(TABLE_BYTES),
                    "{what}, order {order}, want {want}"
                );
                nodes += walked.nodes;
            }
        }
        nodes
    }
    let mut nodes = 0;
    for (m, seed, d) in [(16u64, 2u64, 16), (21, 4, 21), (25, 2, 15), (29, 4, 29)] {
        let diags = crate::excluded::generate(m, seed, 4);
        let ed = crate::excluded::ExcludedDiagonals::new(m, &diags[..d.min(diags.len())]);
        let all: Vec<u64> = (0..m).collect();
        let res = Residual::build(all.clone(), all, |i, j| ed.allowed(i, j));
        nodes += trees::<u64>(&res, seed, &format!("excluded m {m} seed {seed} d {d}"));
    }
    // Scattered rows and columns: most cells share no diagonal.
    let mut rng = crate::rng::Rng::seeded(11, &[]);
    for m in [40usize, 90] {
        let mut pick = |k: usize| {
            let mut v: Vec<u64> = Vec::new();
            while v.len() < k {
                let x = if v.len().is_multiple_of(3) {
                    1 + rng.below(1_000_000)
                } else {
                    1 + rng.below(3 * k as u64)
                };
                if !v.contains(&x) {
                    v.push(x);
                }
            }
            v.sort_unstable();
            v
        };
        let (rows, cols) = (pick(m), pick(m));
        let res = Residual::build(rows, cols, |i, j| (i * 7 + j * 13) % 5 != 0 && i != j);
        let what = format!("scattered m {m}");
        nodes += if m <= 64 {
            trees::<u64>(&res, 3, &what)
        } else {
            trees::<[u64; 2]>(&res, 3, &what)
        };
    }
    assert!(nodes > 200_000, "{nodes} nodes compared");
}

/// What a search did, to compare searches on words of other widths.
#[derive(Debug, PartialEq)]
struct Tree {
    flow: String,
    nodes: u64,
    decisions: u64,
    found: u64,
    /// The solution and the items (keys, paths, pending nodes) by their full description.
    rest: String,
}

/// The scalar search of `res` on words `B`, and how many vector searches (each kernel that
/// takes `B`, where this CPU has it) searched the same tree: the same flow, nodes,
/// decisions, solutions and items.
fn searches_alike<B: super::bits::Bits>(
    res: &Residual,
    seed: u64,
    want: u64,
    budget: u64,
    what: &str,
) -> (usize, Tree) {
    use super::search::{Board, Item, Mode, Search, TABLE_BYTES, Ties};
    use crate::simd::Kernel;
    let mut board = Board::<B>::new(res, Some(seed), Ties::MiddleFirst, TABLE_BYTES);
    board.order_values = true;
    let mode = || Mode {
        want,
        budget,
        split_depth: usize::MAX,
    };
    let tree = |s: &Search<B>, flow| Tree {
        flow: format!("{flow:?}"),
        nodes: s.nodes,
        decisions: s.decisions,
        found: s.found,
        rest: format!("{:?} {:?}", s.solution, s.items),
    };
    let mut scalar = Search::at(&board, &Item::default(), mode(), &NEVER);
    let flow = scalar.run_scalar();
    let want_tree = tree(&scalar, flow);
    let mut compared = 0;
    for kernel in [Kernel::Avx512, Kernel::Avx2] {
        let mut vector = Search::at(&board, &Item::default(), mode(), &NEVER);
        let Some(flow) = vector.run_vector(kernel) else {
            continue;
        };
        compared += 1;
        assert_eq!(tree(&vector, flow), want_tree, "{kernel:?}: {what}");
    }
    (compared, want_tree)
}
