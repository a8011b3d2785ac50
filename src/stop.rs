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
