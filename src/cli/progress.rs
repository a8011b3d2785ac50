//! A spinner on standard error for long runs: shown only after a second, only when
//! standard error is a terminal, never with --quiet.

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

    /// Removes the display.
    pub(crate) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
