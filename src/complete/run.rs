//! A run from an input to an answer: validating and loading the input ([`prepare`]), the
//! engine's phases ([`complete`]), and the same for rows held in memory
//! ([`complete_rows`], [`complete_board`]).

use super::state::BoardState;
use super::{Answer, Options, Stats, engine, level2, level3};
use crate::format::nqb::row_store::RowStore;
use crate::format::{FormatError, Input};
use crate::progress::{Stage, meter};
use crate::stop::Stop;
use crate::verify::{KeptQueens, Requirements, verify_mark_and_copy};
use std::time::Instant;

/// A finished run: the answer, the board (complete when solved) and the statistics.
pub(crate) struct Completion {
    /// The answer.
    pub answer: Answer,
    /// The board as left by the engine.
    pub state: BoardState,
    /// What happened.
    pub stats: Stats,
}

/// The result of opening an input for completion.
// Made once per run and matched at once: boxing the large variant would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Prepared {
    /// A valid composition, loaded into the row store, ready for [`complete`], with its
    /// queens as a solution must keep them.
    Ready(BoardState, Stats, KeptQueens),
    /// Not a valid composition: the verifier's report.
    Invalid(crate::verify::Report),
}

/// Validates `input`, copies it into `rows` and marks its lines.
pub(crate) fn prepare(input: &Input, mut rows: RowStore) -> Result<Prepared, FormatError> {
    let mut stats = Stats {
        n: input.n(),
        levels: (level2(input.n()), level3(input.n())),
        ..Stats::default()
    };
    meter().set_stage(Stage::Input);
    let t = Instant::now();
    let (report, marks) = verify_mark_and_copy(input, Requirements::default(), rows.loader())?;
    let Some(marks) = marks else {
        return Ok(Prepared::Invalid(report));
    };
    stats.input.seconds = t.elapsed().as_secs_f64();
    stats.input.runs = 1;
    stats.sample_memory(crate::memory::anonymous_rss());
    stats.free_rows = input.n() - report.k;
    meter().set_free_rows(stats.free_rows);
    let kept = KeptQueens {
        rows: marks.rows.clone(),
        digest: marks.digest,
    };
    let state = BoardState::new(rows, marks.rows, marks.lines, report.k);
    Ok(Prepared::Ready(state, stats, kept))
}

/// Completes the board in `state`, whose queens come from `input` (reread on a restart).
pub(crate) fn complete(
    input: &Input,
    mut state: BoardState,
    mut stats: Stats,
    opts: &Options,
) -> Result<Completion, FormatError> {
    let stop = Stop::new(
        opts.time_limit.map(|t| opts.since + t),
        Some(opts.interrupt.clone()),
    );
    let answer = engine::engine(input, &mut state, &mut stats, opts, &stop)?;
    meter().set_free_rows(state.free());
    stats.sample_memory(crate::memory::anonymous_rss());
    Ok(Completion {
        answer,
        state,
        stats,
    })
}

/// Completes a composition held in memory (`rows[i - 1]` = column of row i, 0 = empty):
/// the answer, the rows as the engine left them (a solution when solved), and statistics.
/// `None` when the rows are not a valid composition ([`complete_board`] says why).
///
/// ```
/// use nqueens::complete::{Answer, Options, complete_rows};
/// // Nauck's 1850 problem: two queens given on the 8x8 board.
/// let mut rows = vec![0u32; 8];
/// rows[0] = 4;
/// rows[5] = 2;
/// let (answer, solution, _stats) = complete_rows(&rows, &Options::new(1)).unwrap();
/// assert_eq!(answer, Answer::Solved);
/// assert_eq!((solution[0], solution[5]), (4, 2));
/// let report = nqueens::verify::verify_rows(&solution, Default::default()).unwrap();
/// assert!(report.is_solution());
/// ```
pub fn complete_rows(rows: &[u32], opts: &Options) -> Option<(Answer, Vec<u32>, Stats)> {
    match complete_board(rows, opts).ok()? {
        Board::Invalid(_) => None,
        Board::Ran {
            answer,
            rows,
            stats,
        } => Some((answer, rows, *stats)),
    }
}

/// What [`complete_board`] ends with.
#[derive(Debug)]
pub enum Board {
    /// The rows are not a valid composition: the verifier's report says why.
    Invalid(crate::verify::Report),
    /// The engine ran.
    Ran {
        /// Its answer.
        answer: Answer,
        /// The rows as the engine left them: a solution when solved, the input's rows
        /// when infeasible.
        rows: Vec<u32>,
        /// What it did.
        stats: Box<Stats>,
    },
}

/// [`complete_rows`], with the verifier's report when the rows are not a valid
/// composition; errs only for more rows than a board has.
///
/// ```
/// use nqueens::complete::{Board, Options, complete_board};
/// let Board::Invalid(report) = complete_board(&[1, 2, 0, 0], &Options::new(1))? else {
///     panic!("two queens on a diagonal");
/// };
/// assert_eq!(report.first_problem().unwrap(), "rows 1 and 2 share a D1 diagonal (columns 1 and 2)");
/// # Ok::<(), nqueens::format::FormatError>(())
/// ```
pub fn complete_board(rows: &[u32], opts: &Options) -> Result<Board, FormatError> {
    let input = Input::from_rows(std::path::Path::new("(memory)"), "memory", rows)?;
    let store = RowStore::anonymous(rows.len() as u64)
        .map_err(|e| FormatError::new(input.path(), crate::format::ErrorKind::Write(e)))?;
    Ok(match prepare(&input, store)? {
        Prepared::Invalid(report) => Board::Invalid(report),
        Prepared::Ready(state, stats, _) => {
            let c = complete(&input, state, stats, opts)?;
            Board::Ran {
                answer: c.answer,
                rows: c.state.rows.to_vec(),
                stats: Box::new(c.stats),
            }
        }
    })
}
