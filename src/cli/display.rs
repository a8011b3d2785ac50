//! Progress on standard error for long runs: bars with the position, rate and time left
//! where the work has a known length (rows, files, count items), a spinner with the stage
//! where it has not (completion). Shown only after a second (`NQUEENS_PROGRESS_AFTER_MS`
//! changes that), only when standard error is a terminal, never with --quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// How often a bar fed by a poll is brought up to date.
const POLL: Duration = Duration::from_millis(100);

/// A progress display that may never show.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

/// A bar's template with the position, the rate of this run and the time left.
fn bar_style(unit: &str) -> ProgressStyle {
    ProgressStyle::with_template(&format!(
        "{{msg}} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} {unit}, {{rate}}, {{eta}} left"
    ))
    .expect("a valid template")
    .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = write!(w, "{}/s", indicatif::HumanCount(state.per_sec() as u64));
    })
}

/// How long a display waits before it shows: short runs stay silent.
fn delay() -> Duration {
    let ms = std::env::var("NQUEENS_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    Duration::from_millis(ms)
}

impl Progress {
    /// Starts a spinner with `message`, to appear after one second.
    pub(crate) fn start(quiet: bool, message: String) -> Progress {
        let spinner = ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]")
            .expect("a valid template");
        Progress::show(quiet, spinner, None, message)
    }

    /// A display of this style, length and message, to appear after the delay.
    fn show(quiet: bool, style: ProgressStyle, len: Option<u64>, message: String) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::hidden());
        bar.set_style(style);
        bar.set_message(message);
        let show = |bar: &ProgressBar| {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(120));
        };
        let wait = delay();
        if wait.is_zero() {
            // Drawn before the work starts, however short it is.
            show(&bar);
        } else {
            let shown = bar.clone();
            std::thread::spawn(move || {
                std::thread::sleep(wait);
                if !shown.is_finished() {
                    show(&shown);
                }
            });
        }
        Progress { bar: Some(bar) }
    }

    /// A bar of `len` work items, `done` of them counted before (a resumed count): items
    /// and rate, shown like [`Progress::start`]; the caller's message says the time left.
    pub(crate) fn items(quiet: bool, len: u64, done: u64, message: String) -> Progress {
        let style = ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} items, {rate}",
        )
        .expect("a valid template")
        .with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", indicatif::HumanCount(state.per_sec() as u64));
            },
        );
        let shown = Progress::show(quiet, style, Some(len), message);
        if let Some(bar) = &shown.bar {
            bar.set_position(done);
            // The rate is that of this run, not of the items a checkpoint brought.
            bar.reset_eta();
        }
        shown
    }

    /// A bar of `len` rows whose position `rows` gives (a counter of the library's
    /// [`nqueens::progress::meter`], from where it stands now), polled ten times a second.
    pub(crate) fn rows(
        quiet: bool,
        len: u64,
        message: String,
        rows: impl Fn() -> u64 + Send + 'static,
    ) -> Progress {
        let shown = Progress::show(quiet, bar_style("rows"), Some(len), message);
        if let Some(bar) = &shown.bar {
            let start = rows();
            let polled = bar.clone();
            std::thread::spawn(move || {
                while !polled.is_finished() {
                    polled.set_position((rows() - start).min(len));
                    std::thread::sleep(POLL);
                }
            });
        }
        shown
    }

    /// A spinner whose message `status` gives, polled ten times a second.
    pub(crate) fn status(quiet: bool, status: impl Fn() -> String + Send + 'static) -> Progress {
        let shown = Progress::start(quiet, status());
        if let Some(bar) = &shown.bar {
            let polled = bar.clone();
            std::thread::spawn(move || {
                while !polled.is_finished() {
                    polled.set_message(status());
                    std::thread::sleep(POLL);
                }
            });
        }
        shown
    }

    /// A bar of `len` files; [`Progress::set_message`] names the file at hand.
    pub(crate) fn files(quiet: bool, len: u64) -> Progress {
        let style = ProgressStyle::with_template(
            "file {pos}/{len} [{elapsed_precise}] {bar:30} {eta} left {wide_msg}",
        )
        .expect("a valid template");
        Progress::show(quiet, style, Some(len), String::new())
    }

    /// Replaces the message.
    pub(crate) fn set_message(&self, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message);
        }
    }

    /// Runs `f` (which prints) with the display taken off the terminal, so that lines
    /// and the bar do not mix.
    pub(crate) fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Counts `k` more items done.
    pub(crate) fn inc(&self, k: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(k);
        }
    }

    /// Removes the display.
    pub(crate) fn finish(self) {
        drop(self);
    }
}

impl Drop for Progress {
    /// Removes the display also when a command ends early with an error, so that the
    /// error line is not drawn over, and stops the threads that poll for the bar.
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
