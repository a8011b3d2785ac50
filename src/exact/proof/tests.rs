//! The proof search's own cases; proofs checked end to end are in `dimacs` (LRAT, by a
//! checker in the test) and tests/it/proof_cli.rs (DRAT and LRAT, by independent checkers).

use super::*;
use crate::exact::Residual;

fn residual(n: u64, queens: &[(u64, u64)]) -> Residual {
    Residual::from_queens(n, queens)
}

fn proof(res: &Residual, max: u64) -> (ProofEnd, String) {
    let mut out = Vec::new();
    let end = write_proof(
        res,
        Format::Drat,
        max,
        &crate::stop::Stop::never(),
        &mut out,
    )
    .unwrap();
    (end, String::from_utf8(out).unwrap())
}

#[test]
fn an_infeasible_residual_gets_a_proof_ending_in_the_empty_clause() {
    // A queen in the corner of a 4-board: no completion.
    let (end, text) = proof(&residual(4, &[(1, 1)]), MAX_NODES);
    let ProofEnd::Proved { lemmas, .. } = end else {
        panic!("{end:?}")
    };
    assert_eq!(
        text.lines().filter(|l| !l.starts_with('d')).count() as u64,
        lemmas
    );
    assert_eq!(text.lines().last(), Some("0"));
}

#[test]
fn a_completable_residual_and_the_limit_are_reported() {
    // The empty 6-board has solutions.
    assert_eq!(proof(&residual(6, &[]), MAX_NODES).0, ProofEnd::Satisfiable);
    // The empty 3-board has none, but needs more than one lemma.
    assert_eq!(
        proof(&residual(3, &[]), 1).0,
        ProofEnd::TooLarge { limit: 1 }
    );
    assert!(matches!(
        proof(&residual(3, &[]), MAX_NODES).0,
        ProofEnd::Proved { .. }
    ));
}
