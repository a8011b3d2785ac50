//! A spinner (or, for counts made of work items, a bar with the rate and the time left) on
//! standard error for long runs: shown only after a second, only when standard error is a
//! terminal, never with --quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A progress display that may never show.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Starts a spinner with `message`, to appear after one second.
    pub(crate) fn start(quiet: bool, message: String) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]")
                .expect("a valid template"),
        );
        bar.set_message(message);
        let shown = bar.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            if !shown.is_finished() {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Progress { bar: Some(bar) }
    }

    /// A bar of `len` work items, `done` of them counted before (a resumed count): items,
    /// rate and time left, shown like [`Progress::start`].
    pub(crate) fn items(quiet: bool, len: u64, done: u64, message: String) -> Progress {
        let shown = Progress::start(quiet, message);
        if let Some(bar) = &shown.bar {
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} items, {rate}, {eta} left",
                )
                .expect("a valid template")
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.0}/s", state.per_sec());
                    },
                ),
            );
            bar.set_length(len);
            bar.set_position(done);
            // The rate is that of this run, not of the items a checkpoint brought.
            bar.reset_eta();
        }
        shown
    }

    /// Counts `k` more items done.
    pub(crate) fn inc(&self, k: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(k);
        }
    }

    /// Removes the display.
    pub(crate) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
