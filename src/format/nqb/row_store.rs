//! The queens of the board being completed, stored as a raw NQB file mapped into memory:
//! the engine never holds an n-sized array besides this map, and for raw NQB output the map
//! is the output file itself.

use super::{HEADER_LEN, Header, PayloadHasher};
use crate::format::{ErrorKind, FormatError};
use memmap2::MmapMut;
use rayon::prelude::*;
use std::fs::File;
use std::path::Path;

/// Rows 1..=n of a board, as little-endian `u32` at offset 64 of a mapped file.
pub(crate) struct RowStore {
    map: MmapMut,
    n: u64,
}

impl RowStore {
    /// Sizes `file` for an `n`-row raw NQB file and maps it (all rows empty).
    pub(crate) fn create(file: &File, n: u64, path: &Path) -> Result<Self, FormatError> {
        let err = |e| FormatError::new(path, ErrorKind::Write(e));
        // Reserved, not only sized: a full disk must fail here, not as SIGBUS on a store.
        crate::format::reserve(file, HEADER_LEN as u64 + 4 * n).map_err(err)?;
        // SAFETY: the file is a private temporary file of this process; nothing else maps
        // or truncates it while the map lives.
        let map = unsafe { MmapMut::map_mut(file) }.map_err(err)?;
        Ok(RowStore { map, n })
    }

    /// A row store in anonymous memory, for small boards and in-process use.
    pub(crate) fn anonymous(n: u64) -> std::io::Result<Self> {
        let map = MmapMut::map_anon(HEADER_LEN + 4 * n as usize)?;
        Ok(RowStore { map, n })
    }

    /// All rows (1-based row i at index i - 1), for small boards and tests.
    pub(crate) fn to_vec(&self) -> Vec<u32> {
        self.payload().iter().map(|&v| u32::from_le(v)).collect()
    }

    /// Board size.
    pub(crate) fn n(&self) -> u64 {
        self.n
    }

    fn payload(&self) -> &[u32] {
        // SAFETY: the map starts page-aligned and the payload at offset 64, so it is aligned
        // for u32 and holds exactly n of them.
        let (head, rows, _) = unsafe { self.map[HEADER_LEN..].align_to::<u32>() };
        debug_assert!(head.is_empty());
        rows
    }

    /// Rows 1..=n as little-endian `u32` (row i at index i - 1), to read them in bulk.
    pub(crate) fn rows(&self) -> &[u32] {
        self.payload()
    }

    /// Rows 1..=n as little-endian `u32` (row i at index i - 1), to load them in bulk.
    pub(crate) fn rows_mut(&mut self) -> &mut [u32] {
        self.payload_mut()
    }

    fn payload_mut(&mut self) -> &mut [u32] {
        // SAFETY: as in `payload`.
        let (head, rows, _) = unsafe { self.map[HEADER_LEN..].align_to_mut::<u32>() };
        debug_assert!(head.is_empty());
        rows
    }

    /// The column of row `row` (1-based), 0 if empty.
    #[inline]
    pub(crate) fn get(&self, row: u64) -> u64 {
        u32::from_le(self.payload()[(row - 1) as usize]) as u64
    }

    /// Sets row `row` (1-based) to column `col` (0 = empty).
    #[inline]
    pub(crate) fn set(&mut self, row: u64, col: u64) {
        self.payload_mut()[(row - 1) as usize] = (col as u32).to_le();
    }

    /// Writes the header (k counted, checksum computed in parallel) so that the file is a
    /// complete raw NQB file, and starts writing the map back to disk without waiting: the
    /// re-verification that follows reads the pages meanwhile, and publishing the file
    /// waits for the disk (`sync_all`). Returns the header.
    pub(crate) fn seal(&mut self) -> std::io::Result<Header> {
        let bytes_per_block = crate::format::nqb::CHECKSUM_BLOCK_ROWS as usize * 4;
        let parts: Vec<(u64, u64)> = self.map[HEADER_LEN..]
            .par_chunks(bytes_per_block)
            .map(|b| {
                let k = b.chunks_exact(4).filter(|c| c != &[0, 0, 0, 0]).count() as u64;
                (k, twox_hash::XxHash3_64::oneshot(b))
            })
            .collect();
        let mut hasher = PayloadHasher::new();
        let mut k = 0;
        for (kk, h) in parts {
            k += kk;
            hasher.push(h);
        }
        let header = Header {
            n: self.n,
            k,
            payload_checksum: hasher.finish(),
        };
        self.map[..HEADER_LEN].copy_from_slice(&header.to_bytes());
        self.map.flush_async()?;
        Ok(header)
    }
}
