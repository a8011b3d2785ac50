//! A whole completion job, from an input to a published, re-verified output file.
//!
//! The queens live in a memory-mapped raw NQB file: the output itself when it is raw NQB
//! (completed in place), else a work file beside the output (in the system's temporary
//! directory when there is no output), converted at the end. A solution is read back
//! from the file about to be published and verified (every queen of the input kept,
//! every row filled) before it is renamed into place.

use super::{Completion, Options, Prepared, Stats, complete, prepare};
use crate::format::nqb::row_store::RowStore;
use crate::format::{
    AtomicFile, Destination, Encoding, ErrorKind, FormatError, Input, OutputFormat, RowWriter,
};
use crate::verify::{KeptQueens, Report, Requirements, Verdict, verify};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why a job failed.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Reading or writing.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The result failed its own re-verification: a bug; nothing was written.
    #[error("internal error, nothing written: the completed board failed re-verification: {0}")]
    SelfCheck(String),
}

/// What a job ended with.
pub enum JobOutcome {
    /// The input is not a valid composition.
    Invalid(Report),
    /// The engine ran: its answer and statistics; `seconds_output` is the time spent
    /// sealing, re-verifying and writing.
    Ran {
        /// The engine's answer.
        answer: super::Answer,
        /// Statistics.
        stats: Box<Stats>,
        /// Seconds for sealing, re-verification and output.
        seconds_output: f64,
        /// With no output and a solved board of at most [`KEPT_ROWS`] rows, or of an
        /// Excluded Diagonals instance's reduced board (held in memory already): its rows
        /// (1-based columns), so that the answer can be shown or mapped back.
        solution: Option<Vec<u32>>,
        /// When the answer was written as its v7.3 input with the chunks that held free rows
        /// replaced: how many chunks.
        patched: Option<u64>,
        /// With an INFEASIBLE answer and at most 4,096
        /// free rows: the input's residual, so that the certificate's CNF is written
        /// without reading and verifying the input again.
        residual: Option<InputResidual>,
    },
}

/// The free part of an input (free rows x free columns and their free cells), as the
/// engine had it; opaque outside the crate.
pub struct InputResidual(pub(crate) crate::exact::Residual);

/// The most rows of a solution [`run_job`] returns when it has no output to write.
pub const KEPT_ROWS: u64 = 10_000;

/// Completes `input`; when solved and `output` is given, writes the solution there in the
/// given format.
///
/// ```
/// use nqueens::complete::{Answer, JobOutcome, Options, run_job};
/// use nqueens::format::{Input, OutputFormat};
/// let dir = std::env::temp_dir().join(format!("job-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let (board, solved) = (dir.join("board.txt"), dir.join("solved.nqb"));
/// std::fs::write(&board, "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n")?;
/// let input = Input::open(&board)?;
/// let outcome = run_job(&input, Some((&solved, OutputFormat::from_path(&solved))), &Options::new(3))?;
/// assert!(matches!(outcome, JobOutcome::Ran { answer: Answer::Solved, .. }));
/// assert!(nqueens::verify::verify(&Input::open(&solved)?, Default::default())?.is_solution());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_job(
    input: &Input,
    output: Option<(&Path, OutputFormat)>,
    opts: &Options,
) -> Result<JobOutcome, JobError> {
    let n = input.n();
    let in_place = matches!(output, Some((_, OutputFormat::Nqb(Encoding::Raw))));
    // The backing file: the output's own temporary file, or a temporary beside it.
    let mut published: Option<AtomicFile> = None;
    let scratch: crate::format::Scratch;
    let (store, store_path): (RowStore, PathBuf) = match output {
        Some((dest, _)) if in_place => {
            let mut file = AtomicFile::create(dest)?;
            let store = RowStore::create(file.file(), n, dest)?;
            let path = file.temp_path().to_path_buf();
            published = Some(file);
            (store, path)
        }
        _ => {
            // The n-sized work file goes beside the output (never to a small $TMPDIR by
            // accident); without an output, to the system's temporary directory.
            let dest = match output {
                Some((d, _)) => Destination::resolve(d)?,
                None => Destination::temp(input.path()),
            };
            scratch = dest.scratch("work-", "")?;
            let store = RowStore::create(scratch.as_file(), n, &dest.given)?;
            (store, scratch.path().to_path_buf())
        }
    };
    let (state, stats, kept) = match prepare(input, store)? {
        Prepared::Invalid(report) => return Ok(JobOutcome::Invalid(report)),
        Prepared::Ready(state, stats, kept) => (state, stats, kept),
    };
    let Completion {
        answer,
        mut state,
        stats,
    } = complete(input, state, stats, opts)?;
    // A signal the phases did not see (the closed form completes a board without polling)
    // still ends the run: nothing is written after it, as everywhere else.
    let answer = match answer {
        super::Answer::Unknown(_) => answer,
        _ if opts.interrupt.load(std::sync::atomic::Ordering::SeqCst) => {
            super::Answer::Unknown(super::Stopped {
                reason: super::StopReason::Interrupted,
                during: format!(
                    "once the answer ({}) was found, before it was written",
                    match answer {
                        super::Answer::Solved => "SOLVED",
                        _ => "INFEASIBLE",
                    }
                ),
            })
        }
        _ => answer,
    };
    let t = Instant::now();
    let mut solution = None;
    let mut patched = None;
    // An infeasible board is left as the input was (searches place queens only to
    // answer SOLVED): its free part is the input's residual.
    let residual = (matches!(answer, super::Answer::Infeasible(_))
        && state.free() <= super::RESIDUAL_MAX)
        .then(|| InputResidual(state.residual()));
    crate::progress::meter().set_stage(crate::progress::Stage::Output);
    // Sealing, checking and writing the answer poll nothing, and writing 10^9 rows as
    // text takes minutes: a signal ends the run at once here (no file is published).
    let _unpolled = crate::stop::unpolled();
    if answer == super::Answer::Solved {
        state
            .seal()
            .map_err(|e| FormatError::new(&store_path, ErrorKind::Write(e)))?;
        drop(state);
        match (output, published) {
            (Some(_), Some(file)) => {
                // Submitting the writes may wait for the disk's queue: beside the check.
                std::thread::scope(|scope| {
                    scope.spawn(|| file.start_writeback());
                    check_solution(file.temp_path(), &kept)
                })?;
                file.commit()?;
            }
            (Some((dest, format)), None) => {
                // The board is verified in its row store while the answer is written from
                // it; the written file must then give back the store's rows, which reads
                // it once without marking anything.
                let (written, checked) = rayon::join(
                    || write_answer(input, dest, format, &store_path, &kept.rows),
                    || check_solution(&store_path, &kept),
                );
                checked?;
                let written = written?;
                // Submitting the writes may wait for the disk's queue: beside the check.
                std::thread::scope(|scope| {
                    scope.spawn(|| written.file().start_writeback());
                    check_written(input, &written, format.index_base(), &store_path)
                })?;
                if let Written::Patched(p) = &written {
                    patched = Some(p.replaced());
                }
                written.into_file().commit()?;
            }
            (None, _) => {
                check_solution(&store_path, &kept)?;
                if n <= KEPT_ROWS || input.excluded_diagonals().is_some() {
                    solution = Some(open_own(&store_path, Default::default())?.to_vec()?);
                }
            }
        }
    }
    Ok(JobOutcome::Ran {
        answer,
        stats: Box::new(stats),
        seconds_output: t.elapsed().as_secs_f64(),
        solution,
        patched,
        residual,
    })
}

/// An answer written, not yet published.
enum Written {
    /// Written from the row store.
    File(AtomicFile),
    /// The input file with the chunks that held free rows replaced.
    Patched(crate::format::matlab::mat73::Patched),
}

/// Writes the solved board in the row store at `store_path` to `dest` as `format`: as
/// its v7.3 input patched where that can be done (`given` marks the input's rows), else
/// from the store.
fn write_answer(
    input: &Input,
    dest: &Path,
    format: OutputFormat,
    store_path: &Path,
    given: &crate::board::Bitmap,
) -> Result<Written, FormatError> {
    let n = input.n();
    if !format.is_mat73(n) {
        let solved = open_own(store_path, Default::default())?;
        return RowWriter::copy(&solved, dest, format).map(Written::File);
    }
    let layout = format.mat_layout().expect("a MAT format");
    let map = map_own(store_path)?;
    if let Input::Mat73(mat) = input
        && let Some(patched) =
            mat.write_patched(dest, layout, &map[crate::format::nqb::HEADER_LEN..], given)?
    {
        return Ok(Written::Patched(patched));
    }
    // Straight from the row store: a spool would copy 4 n bytes once more.
    crate::format::matlab::mat73::write_mapped(
        dest,
        std::sync::Arc::new(map),
        crate::format::nqb::HEADER_LEN,
        n,
        layout,
    )
    .map(Written::File)
}

/// Checks that the answer `written` holds exactly the rows of the row store at
/// `store_path` (a verified solution).
fn check_written(
    input: &Input,
    written: &Written,
    base: crate::format::IndexBase,
    store_path: &Path,
) -> Result<(), JobError> {
    match written {
        Written::File(file) => check_same_rows(file.temp_path(), base, store_path),
        Written::Patched(patched) => {
            let Input::Mat73(mat) = input else {
                unreachable!("only a v7.3 input is patched")
            };
            let map = map_own(store_path)?;
            mat.check_patched(patched, &map[crate::format::nqb::HEADER_LEN..])
                .map_err(|e| JobError::SelfCheck(format!("the patched input: {e}")))
        }
    }
}

impl Written {
    fn file(&self) -> &AtomicFile {
        match self {
            Written::File(f) => f,
            Written::Patched(p) => &p.file,
        }
    }

    fn into_file(self) -> AtomicFile {
        match self {
            Written::File(f) => f,
            Written::Patched(p) => p.file,
        }
    }
}

/// Maps a file this job wrote, read-only.
fn map_own(path: &Path) -> Result<memmap2::Mmap, FormatError> {
    let file = std::fs::File::open(path).map_err(|e| FormatError::new(path, ErrorKind::Read(e)))?;
    // SAFETY: the file is this job's own work file, sealed and no longer changed.
    unsafe { memmap2::Mmap::map(&file) }.map_err(|e| FormatError::new(path, ErrorKind::Read(e)))
}

/// Checks that the answer at `written` holds exactly the rows of the row store at
/// `store_path` (a verified solution).
fn check_same_rows(
    written: &Path,
    base: crate::format::IndexBase,
    store_path: &Path,
) -> Result<(), JobError> {
    use rayon::prelude::*;
    let written = open_own(written, base)?;
    let store = map_own(store_path)?;
    let rows = &store[crate::format::nqb::HEADER_LEN..];
    if written.n() * 4 != rows.len() as u64 {
        return Err(JobError::SelfCheck(format!(
            "the written file has n = {}, the board {}",
            written.n(),
            rows.len() / 4
        )));
    }
    let seg = written.segment_rows();
    let differs = (0..written.segment_count())
        .into_par_iter()
        .map_init(Vec::new, |scratch, s| -> Result<Option<u64>, FormatError> {
            let bytes = written.segment(s, scratch)?;
            let first = (s * seg) as usize;
            let theirs = &rows[4 * first..4 * first + bytes.len()];
            let at = (bytes != theirs).then(|| {
                let i = bytes
                    .chunks_exact(4)
                    .zip(theirs.chunks_exact(4))
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                (first + i) as u64 + 1
            });
            written.release(s);
            Ok(at)
        })
        .collect::<Result<Vec<_>, _>>()?;
    match differs.into_iter().flatten().min() {
        Some(row) => Err(JobError::SelfCheck(format!(
            "row {row} of the written file is not the solved board's"
        ))),
        None => Ok(()),
    }
}

/// Opens a file this job wrote (the row store, an output about to be published), mapped:
/// it is the job's own temporary file, which nothing else changes.
/// `base`: how the file numbers its columns (a `.npy` answer to a 0-based input is
/// 0-based too).
fn open_own(path: &Path, base: crate::format::IndexBase) -> Result<Input, FormatError> {
    let opts = crate::format::OpenOptions {
        // SAFETY: the file is this job's own temporary file, sealed and no longer written.
        mmap: unsafe { crate::format::MmapChoice::auto() },
        index_base: base,
        ..Default::default()
    };
    Input::open_with(path, &opts)
}

/// Reads `path` back and checks that it is a full solution keeping every queen of the
/// input, by their digest: the input is not read again (a deflated MAT file took longer
/// to decode again than the rest of the output phase).
fn check_solution(path: &Path, kept: &KeptQueens) -> Result<(), JobError> {
    let written = open_own(path, Default::default())?;
    let report = verify(
        &written,
        Requirements {
            complete: true,
            base: None,
            kept: Some(kept),
        },
    )?;
    if report.verdict != Verdict::Solution {
        return Err(JobError::SelfCheck(format!(
            "{:?}: {} conflicts, {} base queens moved, {} of {} rows filled",
            report.verdict, report.conflict_count, report.base_violation_count, report.k, report.n
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sealed raw NQB file of `rows` at `path`, as a row store leaves it.
    fn store_file(path: &Path, rows: &[u32]) {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .unwrap();
        let mut store = RowStore::create(&file, rows.len() as u64, path).unwrap();
        for (i, &c) in rows.iter().enumerate() {
            store.set(i as u64 + 1, c as u64);
        }
        store.seal().unwrap();
    }

    /// A signal the phases never saw (the closed form completes a board without polling)
    /// still ends the run before anything is written: the answer is UNKNOWN, interrupted,
    /// and the output is not there. It used to be written, and the run to end in success.
    #[test]
    fn a_signal_raised_before_the_answer_is_written_stops_it() {
        let dir = tempfile::tempdir().unwrap();
        let n = 1_000u64;
        let board: Vec<u32> = (1..=n)
            .map(|r| crate::closed_form::constructed_column(n, r) as u32)
            .enumerate()
            .map(|(i, c)| if i % 10 == 0 { 0 } else { c })
            .collect();
        let input_path = dir.path().join("board.nqb");
        crate::format::RowWriter::all(&input_path, &board, OutputFormat::Nqb(Encoding::Raw))
            .unwrap()
            .commit()
            .unwrap();
        let input = Input::open(&input_path).unwrap();
        for out in ["solved.nqb", "solved.txt"] {
            let out = dir.path().join(out);
            let format = OutputFormat::from_path(&out);
            let opts = Options::new(1);
            let solved = run_job(&input, Some((&out, format)), &opts).unwrap();
            assert!(matches!(
                solved,
                JobOutcome::Ran {
                    answer: super::super::Answer::Solved,
                    ..
                }
            ));
            std::fs::remove_file(&out).unwrap();
            opts.interrupt
                .store(true, std::sync::atomic::Ordering::SeqCst);
            match run_job(&input, Some((&out, format)), &opts).unwrap() {
                JobOutcome::Ran {
                    answer: super::super::Answer::Unknown(stopped),
                    ..
                } => assert_eq!(stopped.reason, super::super::StopReason::Interrupted),
                _ => panic!("{}: not stopped", out.display()),
            }
            assert!(!out.exists(), "{}: written", out.display());
        }
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["board.nqb"], "nothing else left");
    }

    #[test]
    fn a_written_answer_must_hold_the_stores_rows() {
        let dir = tempfile::tempdir().unwrap();
        let board = [2u32, 4, 1, 3, 6, 8, 5, 7];
        let store = dir.path().join("store.nqb");
        store_file(&store, &board);
        let same = dir.path().join("same.nqb");
        store_file(&same, &board);
        assert!(check_same_rows(&same, Default::default(), &store).is_ok());
        let mut other = board;
        other.swap(4, 6);
        let changed = dir.path().join("changed.nqb");
        store_file(&changed, &other);
        match check_same_rows(&changed, Default::default(), &store) {
            Err(JobError::SelfCheck(why)) => assert!(why.contains("row 5 "), "{why}"),
            _ => panic!("a changed row passed"),
        }
        let short = dir.path().join("short.nqb");
        store_file(&short, &board[..4]);
        assert!(matches!(
            check_same_rows(&short, Default::default(), &store),
            Err(JobError::SelfCheck(_))
        ));
    }
}
