//! When a run must stop: the one way complete, exact and count are told to end early,
//! whatever the reason (a deadline, Ctrl-C or a signal, or the caller's own, such as a
//! checkpoint that could not be saved). Engines poll [`Stop::now`] between units of work.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A deadline and a flag; either ends the run.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    deadline: Option<Instant>,
    flag: Option<Arc<AtomicBool>>,
}

impl Stop {
    /// A run that only its own budget ends.
    pub fn never() -> Stop {
        Stop::default()
    }

    /// Stops at `deadline` (if any) or when `flag` (if any) is raised.
    pub fn new(deadline: Option<Instant>, flag: Option<Arc<AtomicBool>>) -> Stop {
        Stop { deadline, flag }
    }

    /// Whether the run must stop now.
    pub fn now(&self) -> bool {
        self.raised() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the flag was raised (rather than the deadline passed).
    pub fn raised(&self) -> bool {
        self.flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Raises the flag: every run polling this stop (or a clone) ends.
    pub fn raise(&self) {
        if let Some(f) = &self.flag {
            f.store(true, Ordering::Relaxed);
        }
    }
}

/// Stretches of work now under way that poll no stop ([`unpolled`]).
static UNPOLLED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Marks, for as long as the guard lives, a stretch of work that polls no [`Stop`] and may
/// be long: writing a solution of 10^9 rows as text takes minutes. A signal handler that
/// would otherwise raise the flag and wait for the run to answer ends the process at once
/// there ([`polled_now`]), as it does for a command that never polls.
#[must_use = "the stretch is marked only while the guard lives"]
pub struct Unpolled(());

/// Starts a stretch of work that polls no stop ([`Unpolled`]).
pub fn unpolled() -> Unpolled {
    UNPOLLED.fetch_add(1, Ordering::SeqCst);
    Unpolled(())
}

impl Drop for Unpolled {
    fn drop(&mut self) {
        UNPOLLED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether a raised flag is now seen soon: no [`unpolled`] stretch is under way.
pub fn polled_now() -> bool {
    UNPOLLED.load(Ordering::SeqCst) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_stop_ends_by_flag_or_deadline_only() {
        assert!(!Stop::never().now());
        let flag = Arc::new(AtomicBool::new(false));
        let s = Stop::new(None, Some(flag.clone()));
        assert!(!s.now());
        s.clone().raise();
        assert!(s.now() && s.raised() && flag.load(Ordering::Relaxed));
        let past = Stop::new(Some(Instant::now() - Duration::from_millis(1)), None);
        assert!(past.now() && !past.raised());
    }
}
