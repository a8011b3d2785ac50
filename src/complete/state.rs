//! The state of a completion: queens (in a [`RowStore`]), the bitmaps of taken rows,
//! columns and diagonals (0.75 bytes per row), and a journal of placements to undo.

use super::rows::RowStore;
use crate::board::{Bitmap, LineBitmaps};

/// Queens placed so far and the lines they take.
pub struct BoardState {
    /// Board size.
    pub n: u64,
    /// Column of every row.
    pub rows: RowStore,
    /// Bit i set: row i holds a queen.
    pub taken_rows: Bitmap,
    /// Columns and diagonals taken.
    pub lines: LineBitmaps<Bitmap>,
    free: u64,
    journal: Option<Vec<u32>>,
}

impl BoardState {
    /// A state over `rows`, whose queens are already marked in `taken_rows` and `lines`.
    pub fn new(
        rows: RowStore,
        taken_rows: Bitmap,
        lines: LineBitmaps<Bitmap>,
        queens: u64,
    ) -> Self {
        BoardState {
            n: rows.n(),
            free: rows.n() - queens,
            rows,
            taken_rows,
            lines,
            journal: None,
        }
    }

    /// Frees the bitmaps (before new ones are built for [`BoardState::reset`]).
    pub fn drop_marks(&mut self) {
        self.taken_rows = Bitmap::new(0);
        self.lines = LineBitmaps {
            n: self.n,
            columns: Bitmap::new(0),
            d1: Bitmap::new(0),
            d2: Bitmap::new(0),
        };
        self.journal = None;
    }

    /// Takes new bitmaps for the rows now in the row store, which hold `queens` queens;
    /// forgets the journal.
    pub fn reset(&mut self, taken_rows: Bitmap, lines: LineBitmaps<Bitmap>, queens: u64) {
        self.taken_rows = taken_rows;
        self.lines = lines;
        self.free = self.n - queens;
        self.journal = None;
    }

    /// Rows without a queen.
    pub fn free(&self) -> u64 {
        self.free
    }

    /// Whether a queen may go on (`row`, `col`): row, column and both diagonals free.
    #[inline]
    pub fn is_free_cell(&self, row: u64, col: u64) -> bool {
        !self.taken_rows.get(row)
            && !self.lines.columns.get(col)
            && self.lines.diagonals_free(row, col)
    }

    /// Places a queen on a free cell.
    #[inline]
    pub fn place(&mut self, row: u64, col: u64) {
        debug_assert!(self.is_free_cell(row, col), "({row}, {col}) is not free");
        self.rows.set(row, col);
        self.taken_rows.set(row);
        self.lines.mark(row, col);
        self.free -= 1;
        if let Some(j) = &mut self.journal {
            j.push(row as u32);
        }
    }

    fn unplace(&mut self, row: u64) {
        let col = self.rows.get(row);
        self.rows.set(row, 0);
        self.taken_rows.clear(row);
        self.lines.unmark(row, col);
        self.free += 1;
    }

    /// Starts recording placements if not recording yet, and returns a mark of the present
    /// state (a base level) for [`BoardState::rewind_to`].
    pub fn mark(&mut self) -> usize {
        self.journal.get_or_insert_with(Vec::new).len()
    }

    /// Whether placements are being recorded.
    pub fn journaling(&self) -> bool {
        self.journal.is_some()
    }

    /// Undoes every placement recorded after `mark`.
    pub fn rewind_to(&mut self, mark: usize) {
        if let Some(mut j) = self.journal.take() {
            while j.len() > mark {
                let row = j.pop().unwrap();
                self.unplace(row as u64);
            }
            self.journal = Some(j);
        }
    }

    /// Calls `f` with each free row in increasing order until it returns false.
    pub fn for_each_free_row(&self, f: impl FnMut(u64) -> bool) {
        self.taken_rows.for_each_clear(1, self.n + 1, f);
    }

    /// Calls `f` with each free column in increasing order until it returns false.
    pub fn for_each_free_column(&self, f: impl FnMut(u64) -> bool) {
        self.lines.columns.for_each_clear(1, self.n + 1, f);
    }

    /// The free rows and free columns, in increasing order (for small residuals).
    pub fn free_rows_and_columns(&self) -> (Vec<u64>, Vec<u64>) {
        let (mut r, mut c) = (Vec::new(), Vec::new());
        self.for_each_free_row(|i| {
            r.push(i);
            true
        });
        self.for_each_free_column(|j| {
            c.push(j);
            true
        });
        (r, c)
    }

    /// Writes the header of the row store; see [`RowStore::seal`].
    pub fn seal(&mut self) -> std::io::Result<crate::format::Header> {
        self.rows.seal()
    }
}
