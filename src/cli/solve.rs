//! Running a completion job with Ctrl-C handling and a display of its stage, for
//! `complete` and `generate solution --random`.

use super::Error;
use nqueens::complete::{JobOutcome, Options, run_job};
use nqueens::format::{Input, OutputFormat};
use std::time::{Duration, Instant};

/// Runs the engine with Ctrl-C handling and a progress display.
pub(crate) fn solve(
    input: &Input,
    output: Option<(&std::path::Path, OutputFormat)>,
    seed: u64,
    time_limit: Option<Duration>,
    since: Instant,
    quiet: bool,
    closed_forms: bool,
) -> Result<JobOutcome, Error> {
    let opts = Options {
        seed,
        time_limit,
        since,
        interrupt: super::interrupt_flag(),
        closed_forms,
    };
    let progress = completion_progress(quiet, input);
    let outcome = run_job(input, output, &opts);
    progress.finish();
    Ok(outcome?)
}

/// A spinner naming the stage of the run: how much of the input is read, the free rows
/// left while placing, how much of the answer is written.
fn completion_progress(quiet: bool, input: &Input) -> super::Progress {
    use nqueens::progress::{Stage, meter};
    let n = input.n();
    let name = input.path().display().to_string();
    let read0 = meter().rows_read();
    let output_from = std::sync::Mutex::new(None);
    let percent = move |rows: u64| 100.0 * rows as f64 / n.max(1) as f64;
    super::Progress::status(quiet, move || {
        let m = meter();
        let what = match m.stage() {
            Stage::Idle => "starting".to_string(),
            Stage::Input => format!("input, {:.0} % read", percent(m.rows_read() - read0)),
            Stage::Output => {
                // Rows re-verified and written since the stage began.
                let (read, written) = (m.rows_read(), m.rows_written());
                let (r0, w0) = *output_from
                    .lock()
                    .expect("never poisoned")
                    .get_or_insert((read, written));
                format!(
                    "output, {} rows checked, {} written",
                    indicatif::HumanCount(read - r0),
                    indicatif::HumanCount(written - w0)
                )
            }
            Stage::Repair => format!(
                "repair of {} free rows, {} diagonal conflicts left",
                indicatif::HumanCount(m.free_rows()),
                indicatif::HumanCount(m.conflicts())
            ),
            s => format!(
                "{}, {} free rows",
                s.name(),
                indicatif::HumanCount(m.free_rows())
            ),
        };
        format!("completing n = {n} ({name}): {what}")
    })
}
