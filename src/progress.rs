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

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

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
}

impl Stage {
    const ALL: [Stage; 8] = [
        Stage::Idle,
        Stage::Input,
        Stage::Certificates,
        Stage::Pairing,
        Stage::Scatter,
        Stage::Endgame,
        Stage::Exact,
        Stage::Output,
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
}

static METER: Meter = Meter {
    rows_read: AtomicU64::new(0),
    rows_written: AtomicU64::new(0),
    stage: AtomicU8::new(Stage::Idle as u8),
    free_rows: AtomicU64::new(0),
    restarts: AtomicU64::new(0),
    dead_ends: AtomicU64::new(0),
};

/// The process's meter.
pub fn meter() -> &'static Meter {
    &METER
}

impl Meter {
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

    pub(crate) fn set_stage(&self, stage: Stage) {
        self.stage.store(stage as u8, Relaxed);
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
}
