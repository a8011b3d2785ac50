//! The queens of the board being completed, stored as a raw NQB file mapped into memory:
//! the engine never holds an n-sized array besides this map, and for raw NQB output the map
//! is the output file itself.

use super::{HEADER_LEN, Header, PayloadHasher};
use crate::format::{ErrorKind, FormatError};
use memmap2::MmapMut;
use rayon::prelude::*;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Rows 1..=n of a board, as little-endian `u32` at offset 64 of a mapped file.
pub(crate) struct RowStore {
    map: Backing,
    n: u64,
    /// The mapped file and its path, for loading the rows with `pwrite` (`None`: anonymous
    /// memory).
    file: Option<(File, PathBuf)>,
}

/// Where a pass that reads every row of an input puts them: the store's file, written
/// with `pwrite`, or the slice of an anonymous store. Not through the map: a store into a
/// fresh file's map faults its pages in one by one, each first read from the file's
/// reserved blocks as zeros; loading 400 MB that way took 0.6-0.9 s against 0.06 s with
/// `pwrite` (BENCHMARKS.md, "Loading the row store").
pub(crate) enum Loader<'a> {
    /// Rows 1..=n at byte [`HEADER_LEN`] of this file.
    File { file: &'a File, path: &'a Path },
    /// Rows 1..=n, row i at index i - 1.
    Slice(&'a mut [u32]),
}

/// The slot of one run of rows in a [`Loader`].
pub(crate) enum LoaderPiece<'a> {
    File {
        file: &'a File,
        path: &'a Path,
        /// Byte offset of the run's first row.
        offset: u64,
    },
    Slice(&'a mut [u32]),
}

impl<'a> Loader<'a> {
    /// The same slots, for one more pass.
    pub(crate) fn reborrow(&mut self) -> Loader<'_> {
        match self {
            Loader::File { file, path } => Loader::File { file, path },
            Loader::Slice(rows) => Loader::Slice(rows),
        }
    }

    /// The slots of rows `1 + i * rows ..` (`rows` each, the last possibly fewer), in
    /// order, for a store of `n` rows.
    pub(crate) fn pieces(self, n: u64, rows: u64) -> Vec<LoaderPiece<'a>> {
        match self {
            Loader::File { file, path } => (0..n.div_ceil(rows))
                .map(|i| LoaderPiece::File {
                    file,
                    path,
                    offset: HEADER_LEN as u64 + 4 * i * rows,
                })
                .collect(),
            Loader::Slice(slice) => {
                assert_eq!(slice.len() as u64, n, "one slot per row");
                slice
                    .chunks_mut(rows as usize)
                    .map(LoaderPiece::Slice)
                    .collect()
            }
        }
    }
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, offset)
}

#[cfg(not(unix))]
fn write_at(_: &File, _: &[u8], _: u64) -> std::io::Result<()> {
    unreachable!("row stores load through their file on Unix only")
}

impl LoaderPiece<'_> {
    /// Puts a run of rows, given as little-endian `u32` bytes (as many rows as the slot
    /// holds).
    pub(crate) fn put(&mut self, bytes: &[u8]) -> Result<(), FormatError> {
        match self {
            LoaderPiece::File { file, path, offset } => write_at(file, bytes, *offset)
                .map_err(|e| FormatError::new(path, ErrorKind::Write(e))),
            LoaderPiece::Slice(out) => {
                crate::format::le::read_rows_into(bytes, out);
                // The slots are little-endian on every machine (a no-op where the machine
                // is).
                out.iter_mut().for_each(|o| *o = o.to_le());
                Ok(())
            }
        }
    }
}

/// The bytes of a store: a map (of a file, or anonymous memory for a large board), or
/// for a small board words on the heap (mapping and unmapping a page per board, as
/// completing thousands of small boards in one process did, costs a TLB shootdown across
/// every thread each time).
enum Backing {
    Map(MmapMut),
    /// `HEADER_LEN / 4 + n` words: the header's bytes, then the rows.
    Heap(Vec<u32>),
}

impl std::ops::Deref for Backing {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Backing::Map(m) => m,
            // SAFETY: any u32 is four initialised bytes, and u8 has alignment 1.
            Backing::Heap(v) => unsafe { v.align_to::<u8>().1 },
        }
    }
}

impl std::ops::DerefMut for Backing {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Backing::Map(m) => m,
            // SAFETY: as in `deref`; every byte pattern is a valid u32.
            Backing::Heap(v) => unsafe { v.align_to_mut::<u8>().1 },
        }
    }
}

/// Boards up to this many rows are stored on the heap when anonymous.
const HEAP_ROWS: u64 = 1 << 18;

impl RowStore {
    /// Sizes `file` for an `n`-row raw NQB file and maps it (all rows empty).
    pub(crate) fn create(file: &File, n: u64, path: &Path) -> Result<Self, FormatError> {
        let err = |e| FormatError::new(path, ErrorKind::Write(e));
        // Reserved, not only sized: a full disk must fail here, not as SIGBUS on a store.
        crate::format::reserve(file, HEADER_LEN as u64 + 4 * n).map_err(err)?;
        // SAFETY: the file is a private temporary file of this process; nothing else maps
        // or truncates it while the map lives.
        let map = unsafe { MmapMut::map_mut(file) }.map_err(|source| {
            let bytes = HEADER_LEN as u64 + 4 * n;
            FormatError::new(path, ErrorKind::WorkMap { bytes, source })
        })?;
        // Elsewhere than on Unix the rows are loaded through the map.
        let file = if cfg!(unix) {
            Some((file.try_clone().map_err(err)?, path.to_path_buf()))
        } else {
            None
        };
        Ok(RowStore {
            map: Backing::Map(map),
            n,
            file,
        })
    }

    /// A row store in anonymous memory, for small boards and in-process use.
    pub(crate) fn anonymous(n: u64) -> std::io::Result<Self> {
        let map = if n <= HEAP_ROWS {
            Backing::Heap(vec![0; HEADER_LEN / 4 + n as usize])
        } else {
            Backing::Map(MmapMut::map_anon(HEADER_LEN + 4 * n as usize)?)
        };
        Ok(RowStore { map, n, file: None })
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
        // SAFETY: the store starts page-aligned (a map) or u32-aligned (heap words) and the
        // payload at offset 64, so it is aligned for u32 and holds exactly n of them.
        let (head, rows, _) = unsafe { self.map[HEADER_LEN..].align_to::<u32>() };
        debug_assert!(head.is_empty());
        rows
    }

    /// Rows 1..=n as little-endian `u32` (row i at index i - 1), to read them in bulk.
    pub(crate) fn rows(&self) -> &[u32] {
        self.payload()
    }

    /// Where to load every row in bulk (mutably borrowed, so that nothing reads the map
    /// meanwhile).
    pub(crate) fn loader(&mut self) -> Loader<'_> {
        match &self.file {
            Some((file, path)) => Loader::File { file, path },
            None => {
                // SAFETY: as in `payload`.
                let (head, rows, _) = unsafe { self.map[HEADER_LEN..].align_to_mut::<u32>() };
                debug_assert!(head.is_empty());
                Loader::Slice(rows)
            }
        }
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
    /// complete raw NQB file. Returns the header.
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
        Ok(header)
    }
}
