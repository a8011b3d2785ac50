//! The state of a completion: queens (in a [`RowStore`]), the bitmaps of taken rows,
//! columns and diagonals (0.75 bytes per row), and a journal of placements to undo.

use crate::board::{Bitmap, LineBitmaps};
use crate::format::nqb::row_store::RowStore;

/// Queens placed so far and the lines they take.
pub(crate) struct BoardState {
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
    /// Queens placed by pairing but not yet written to the row store, as row << 32 | col.
    pending: Vec<u64>,
}

/// Queens held back from the row store at most: 256 MiB. Writing each pairing round's
/// queens straight into the mapped file re-dirties pages that the kernel has just
/// written back (at n = 1e9 every round touches every page); gathering them and writing
/// them in row order in a few sweeps made pairing 2x faster there (BENCHMARKS.md).
const PENDING_MAX: usize = 1 << 25;

impl BoardState {
    /// The free part of the board as a residual (free rows x free columns and their free
    /// cells), for the certificates and the exact searches.
    pub(crate) fn residual(&self) -> crate::exact::Residual {
        crate::exact::Residual::from_marks(&self.taken_rows, &self.lines)
    }

    /// A state over `rows`, whose queens are already marked in `taken_rows` and `lines`.
    pub(crate) fn new(
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
            pending: Vec::new(),
        }
    }

    /// Frees the bitmaps (before new ones are built for [`BoardState::reset`]).
    pub(crate) fn drop_marks(&mut self) {
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
    pub(crate) fn reset(&mut self, taken_rows: Bitmap, lines: LineBitmaps<Bitmap>, queens: u64) {
        self.taken_rows = taken_rows;
        self.lines = lines;
        self.free = self.n - queens;
        self.journal = None;
    }

    /// Rows without a queen.
    pub(crate) fn free(&self) -> u64 {
        self.free
    }

    /// Whether a queen may go on (`row`, `col`): row, column and both diagonals free.
    #[inline]
    pub(crate) fn is_free_cell(&self, row: u64, col: u64) -> bool {
        !self.taken_rows.get(row)
            && !self.lines.columns.get(col)
            && self.lines.diagonals_free(row, col)
    }

    /// Places a queen on a free cell.
    #[inline]
    pub(crate) fn place(&mut self, row: u64, col: u64) {
        debug_assert!(self.is_free_cell(row, col), "({row}, {col}) is not free");
        self.rows.set(row, col);
        self.taken_rows.set(row);
        self.lines.mark(row, col);
        self.free -= 1;
        if let Some(j) = &mut self.journal {
            j.push(row as u32);
        }
    }

    /// Splits the state for pipelined pairing: the taken rows and columns, which one
    /// thread reads to gather the next chunks, and a [`DiagonalPlacer`] that places queens
    /// on another thread. The placer leaves the row and column bits alone; the caller sets
    /// them afterwards with [`BoardState::take_rows_and_columns`].
    pub(crate) fn split_for_pairing(&mut self) -> (&Bitmap, &Bitmap, DiagonalPlacer<'_>) {
        let LineBitmaps { n, columns, d1, d2 } = &mut self.lines;
        (
            &self.taken_rows,
            columns,
            DiagonalPlacer {
                n: *n,
                d1,
                d2,
                pending: &mut self.pending,
                free: &mut self.free,
                journal: &mut self.journal,
            },
        )
    }

    /// Sets the row and column bits of queens placed by a [`DiagonalPlacer`], and writes
    /// the queens held back to the row store if they have grown large.
    pub(crate) fn take_rows_and_columns(&mut self, placed: &[(u32, u32)]) {
        for &(i, j) in placed {
            self.taken_rows.set(i as u64);
            self.lines.columns.set(j as u64);
        }
        // Written before the vector outgrows PENDING_MAX (a batch adds far fewer than 2^20).
        if self.pending.len() >= PENDING_MAX - (1 << 20) {
            self.write_pending();
        }
    }

    /// Writes the queens placed by [`DiagonalPlacer`]s to the row store, in row order so
    /// that each page of a mapped file is dirtied once.
    pub(crate) fn write_pending(&mut self) {
        use rayon::slice::ParallelSliceMut;
        if self.pending.len() < 1 << 16 {
            self.pending.sort_unstable();
        } else {
            self.pending.par_sort_unstable();
        }
        for &q in &self.pending {
            self.rows.set(q >> 32, q & 0xffff_ffff);
        }
        self.pending.clear();
        self.pending.shrink_to(PENDING_MAX / 64);
    }

    /// Takes a finished repair: row `rows[k]` gets column `cols[k]`, for rows that were
    /// free and rows pairing filled alike; the diagonals are already marked (the repair
    /// works on the bitmaps). Every row then holds a queen.
    pub(crate) fn adopt_repaired(&mut self, rows: &[u32], cols: &[u32]) {
        debug_assert!(self.pending.is_empty());
        for (&i, &j) in rows.iter().zip(cols) {
            self.rows.set(i as u64, j as u64);
            self.taken_rows.set(i as u64);
            self.lines.columns.set(j as u64);
        }
        self.free = 0;
        self.journal = None;
    }

    /// Takes the queen off `row` (not journaled: for callers that undo their own
    /// placements).
    pub(crate) fn unplace(&mut self, row: u64) {
        debug_assert!(self.pending.is_empty());
        let col = self.rows.get(row);
        self.rows.set(row, 0);
        self.taken_rows.clear(row);
        self.lines.unmark(row, col);
        self.free += 1;
    }

    /// Starts recording placements if not recording yet, and returns a mark of the present
    /// state (a base level) for [`BoardState::rewind_to`].
    pub(crate) fn mark(&mut self) -> usize {
        self.journal.get_or_insert_with(Vec::new).len()
    }

    /// Whether the bitmaps hold exactly the lines of the queens in the row store (a check
    /// for tests: O(n)).
    pub(crate) fn lines_match_rows(&mut self) -> bool {
        self.write_pending();
        let mut fresh = LineBitmaps::new(self.n);
        let mut rows = Bitmap::new(self.n + 1);
        for i in 1..=self.n {
            let j = self.rows.get(i);
            if j != 0 {
                fresh.mark(i, j);
                rows.set(i);
            }
        }
        (1..=self.n).all(|i| rows.get(i) == self.taken_rows.get(i))
            && (1..=self.n).all(|j| fresh.columns.get(j) == self.lines.columns.get(j))
            && (1..2 * self.n).all(|d| fresh.d1.get(d) == self.lines.d1.get(d))
            && (2..=2 * self.n).all(|d| fresh.d2.get(d) == self.lines.d2.get(d))
    }

    /// The rows placed since `mark`, in the order placed.
    pub(crate) fn placed_since(&self, mark: usize) -> Vec<u32> {
        self.journal
            .as_ref()
            .map_or_else(Vec::new, |j| j[mark..].to_vec())
    }

    /// Undoes every placement recorded after `mark`.
    pub(crate) fn rewind_to(&mut self, mark: usize) {
        self.write_pending();
        if let Some(mut j) = self.journal.take() {
            while j.len() > mark {
                let row = j.pop().unwrap();
                // A row moved by a chain of column exchanges is in the journal twice.
                if self.taken_rows.get(row as u64) {
                    self.unplace(row as u64);
                }
            }
            self.journal = Some(j);
        }
    }

    /// Calls `f` with each free row in increasing order until it returns false.
    pub(crate) fn for_each_free_row(&self, f: impl FnMut(u64) -> bool) {
        self.taken_rows.for_each_clear(1, self.n + 1, f);
    }

    /// Calls `f` with each free column in increasing order until it returns false.
    pub(crate) fn for_each_free_column(&self, f: impl FnMut(u64) -> bool) {
        self.lines.columns.for_each_clear(1, self.n + 1, f);
    }

    /// The free rows and free columns, in increasing order (for small residuals).
    pub(crate) fn free_rows_and_columns(&self) -> (Vec<u64>, Vec<u64>) {
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
    pub(crate) fn seal(&mut self) -> std::io::Result<crate::format::Header> {
        self.write_pending();
        self.rows.seal()
    }
}

/// Places queens whose rows and columns are known to be free, checking only their
/// diagonals: the part of [`BoardState::place`] that pairing can run while another thread
/// reads the taken rows and columns.
pub(crate) struct DiagonalPlacer<'a> {
    n: u64,
    d1: &'a mut Bitmap,
    d2: &'a mut Bitmap,
    pending: &'a mut Vec<u64>,
    free: &'a mut u64,
    journal: &'a mut Option<Vec<u32>>,
}

impl DiagonalPlacer<'_> {
    /// Prefetches the diagonal words of (`row`, `col`), for a placement soon.
    #[inline]
    pub(crate) fn prefetch(&self, row: u64, col: u64) {
        self.d1.prefetch(self.n + col - row);
        self.d2.prefetch(row + col);
    }

    /// Places a queen on (`row`, `col`) if both its diagonals are free; tells whether it did.
    /// The row and the column must be free and are not marked taken here.
    #[inline]
    pub(crate) fn place_if_diagonals_free(&mut self, row: u64, col: u64) -> bool {
        let (a, b) = (self.n + col - row, row + col);
        if self.d1.get(a) || self.d2.get(b) {
            return false;
        }
        self.d1.set(a);
        self.d2.set(b);
        self.pending.push(row << 32 | col);
        *self.free -= 1;
        if let Some(j) = self.journal {
            j.push(row as u32);
        }
        true
    }
}
