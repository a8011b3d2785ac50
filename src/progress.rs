//! Where a long run has got, for a progress display to poll from another thread.
//!
//! The library advances these counters as it goes (rows read by any [`Input`], rows
//! written by any [`RowWriter`], the stage and free rows of a completion); the command
//! line draws them. There is one meter per process because there is one display per
//! process: calls running at once add to the same counters, and a display reads
//! differences from where it started.
//!
//! [`Input`]: crate::format::Input
//! [`RowWriter`]: crate::format::RowWriter

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// The stages of a completion run, in the order they usually come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Stage {
    /// Nothing running, or a command without stages.
    Idle,
    /// Reading and checking the input.
    Input,
    /// Looking for a certificate of infeasibility.
    Certificates,
    /// Phase 1: pairing free rows with free columns.
    Pairing,
    /// Phase 2: random free cells.
    Scatter,
    /// Phase 3: exact search of the residual.
    Endgame,
    /// Exact search of the whole free part (few free rows).
    Exact,
    /// Re-verifying and writing the answer.
    Output,
    /// Min-conflicts repair of a full assignment of the free rows.
    Repair,
    /// Checking whether the given queens lie on a closed-form solution.
    ClosedForm,
    /// Chains of column exchanges for the rows the end games left.
    Chains,
}

impl Stage {
    const ALL: [Stage; 11] = [
        Stage::Idle,
        Stage::Input,
        Stage::Certificates,
        Stage::Pairing,
        Stage::Scatter,
        Stage::Endgame,
        Stage::Exact,
        Stage::Output,
        Stage::Repair,
        Stage::ClosedForm,
        Stage::Chains,
    ];

    /// The stage's name as shown to users.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Idle => "idle",
            Stage::Input => "input",
            Stage::Certificates => "certificates",
            Stage::Pairing => "pairing",
            Stage::Scatter => "scatter",
            Stage::Endgame => "end game",
            Stage::Exact => "exact search",
            Stage::Output => "output",
            Stage::Repair => "repair",
            Stage::ClosedForm => "closed form",
            Stage::Chains => "chains",
        }
    }
}

/// The process's progress counters (see the module documentation).
pub struct Meter {
    rows_read: AtomicU64,
    rows_written: AtomicU64,
    stage: AtomicU8,
    free_rows: AtomicU64,
    restarts: AtomicU64,
    dead_ends: AtomicU64,
    conflicts: AtomicU64,
    items_total: AtomicU64,
    items_done: AtomicU64,
    /// Whether stage changes are logged into `stage_log`.
    logging: AtomicBool,
    /// Every stage change since the log was last taken, while `logging`: a stage can be
    /// over (a small input read in a millisecond) before anyone polls the meter.
    stage_log: Mutex<Vec<Reading>>,
}

static METER: Meter = Meter::new();

/// Every counter of the meter at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// When it was taken.
    pub at: Instant,
    /// See [`Meter::stage`].
    pub stage: Stage,
    /// See [`Meter::free_rows`].
    pub free_rows: u64,
    /// See [`Meter::restarts`].
    pub restarts: u64,
    /// See [`Meter::dead_ends`].
    pub dead_ends: u64,
    /// See [`Meter::conflicts`].
    pub conflicts: u64,
    /// See [`Meter::rows_read`].
    pub rows_read: u64,
    /// See [`Meter::rows_written`].
    pub rows_written: u64,
}

/// The process's meter.
pub fn meter() -> &'static Meter {
    &METER
}

impl Meter {
    /// Every counter at zero, idle, not logging.
    const fn new() -> Meter {
        Meter {
            rows_read: AtomicU64::new(0),
            rows_written: AtomicU64::new(0),
            stage: AtomicU8::new(Stage::Idle as u8),
            free_rows: AtomicU64::new(0),
            restarts: AtomicU64::new(0),
            dead_ends: AtomicU64::new(0),
            conflicts: AtomicU64::new(0),
            items_total: AtomicU64::new(0),
            items_done: AtomicU64::new(0),
            logging: AtomicBool::new(false),
            stage_log: Mutex::new(Vec::new()),
        }
    }

    /// Work items of the count under way and how many are done (both 0 when the count
    /// is not made of items): a display estimates the time left from them.
    pub fn items(&self) -> (u64, u64) {
        (
            self.items_done.load(Relaxed),
            self.items_total.load(Relaxed),
        )
    }

    /// Starts a count of `total` work items.
    pub fn start_items(&self, total: u64) {
        self.items_done.store(0, Relaxed);
        self.items_total.store(total, Relaxed);
    }

    /// One more work item counted.
    pub(crate) fn item_done(&self) {
        self.items_done.fetch_add(1, Relaxed);
    }

    /// Rows that inputs have handed out and released since the process started.
    pub fn rows_read(&self) -> u64 {
        self.rows_read.load(Relaxed)
    }

    /// Rows that writers have taken since the process started.
    pub fn rows_written(&self) -> u64 {
        self.rows_written.load(Relaxed)
    }

    /// The stage of the completion run under way.
    pub fn stage(&self) -> Stage {
        Stage::ALL[self.stage.load(Relaxed) as usize]
    }

    /// Free rows of the board being completed, as of the last stage change.
    pub fn free_rows(&self) -> u64 {
        self.free_rows.load(Relaxed)
    }

    /// Restarts of completion runs from their input.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Relaxed)
    }

    /// Dead ends of completion runs (a scatter with a row left without a free cell, or an
    /// end game that failed), each a return to the level-2 board.
    pub fn dead_ends(&self) -> u64 {
        self.dead_ends.load(Relaxed)
    }

    /// Diagonal conflicts left in the repair phase's assignment (the fewest it has reached
    /// in its present run); 0 outside it.
    pub fn conflicts(&self) -> u64 {
        self.conflicts.load(Relaxed)
    }

    pub(crate) fn set_conflicts(&self, conflicts: u64) {
        self.conflicts.store(conflicts, Relaxed);
    }

    pub(crate) fn add_restart(&self) {
        self.restarts.fetch_add(1, Relaxed);
    }

    pub(crate) fn add_dead_end(&self) {
        self.dead_ends.fetch_add(1, Relaxed);
    }

    pub(crate) fn add_read(&self, rows: u64) {
        self.rows_read.fetch_add(rows, Relaxed);
    }

    pub(crate) fn add_written(&self, rows: u64) {
        self.rows_written.fetch_add(rows, Relaxed);
    }

    /// Every counter, now.
    pub fn read(&self) -> Reading {
        Reading {
            at: Instant::now(),
            stage: self.stage(),
            free_rows: self.free_rows(),
            restarts: self.restarts(),
            dead_ends: self.dead_ends(),
            conflicts: self.conflicts(),
            rows_read: self.rows_read(),
            rows_written: self.rows_written(),
        }
    }

    /// Starts (or stops) logging a [`Reading`] at every stage change, for
    /// [`Meter::take_stage_log`]; a stopped log is emptied.
    pub fn log_stages(&self, on: bool) {
        self.logging.store(on, Relaxed);
        if !on {
            self.take_stage_log();
        }
    }

    /// The readings logged at stage changes since the last call, oldest first.
    pub fn take_stage_log(&self) -> Vec<Reading> {
        std::mem::take(&mut *self.locked_stage_log())
    }

    /// The stage log, locked (a panic while it was held left it whole: a push is the only
    /// change made under the lock).
    fn locked_stage_log(&self) -> std::sync::MutexGuard<'_, Vec<Reading>> {
        self.stage_log.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn set_stage(&self, stage: Stage) {
        self.stage.store(stage as u8, Relaxed);
        if self.logging.load(Relaxed) {
            let reading = self.read();
            self.locked_stage_log().push(reading);
        }
    }

    pub(crate) fn set_free_rows(&self, rows: u64) {
        self.free_rows.store(rows, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_round_trip_through_their_numbers() {
        for s in Stage::ALL {
            assert_eq!(Stage::ALL[s as u8 as usize], s);
        }
    }

    #[test]
    fn a_logged_stage_change_is_kept_until_taken() {
        // A meter of its own: the process's is shared by every test.
        let m = Meter::new();
        m.set_stage(Stage::Input);
        assert!(m.take_stage_log().is_empty(), "not logging yet");
        m.log_stages(true);
        m.set_stage(Stage::Input);
        m.set_free_rows(7);
        m.set_stage(Stage::Pairing);
        m.set_stage(Stage::Output);
        let log = m.take_stage_log();
        let stages: Vec<_> = log.iter().map(|r| (r.stage, r.free_rows)).collect();
        assert_eq!(
            stages,
            [(Stage::Input, 0), (Stage::Pairing, 7), (Stage::Output, 7)]
        );
        assert!(log.windows(2).all(|w| w[0].at <= w[1].at));
        assert!(m.take_stage_log().is_empty(), "taken once");
        m.set_stage(Stage::Scatter);
        m.log_stages(false);
        assert!(m.take_stage_log().is_empty(), "emptied when stopped");
    }
}
