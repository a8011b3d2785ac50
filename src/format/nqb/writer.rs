//! Writing an NQB file row by row, atomically.

use super::layout::*;
use super::*;
use crate::board::MAX_N;
use crate::format::{AtomicFile, ErrorKind, FormatError};
use rayon::prelude::*;
use std::hash::Hasher;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use twox_hash::XxHash3_64;

/// The zstd frame holding the header of a compressed file: a single raw (stored) block
/// with a content checksum, built by hand because its size must not depend on its
/// content: the header is rewritten in place once k and the checksum are known.
pub(super) fn header_frame(header: &[u8; HEADER_LEN]) -> [u8; HEADER_FRAME_LEN] {
    let mut f = [0u8; HEADER_FRAME_LEN];
    f[0..4].copy_from_slice(&ZSTD_MAGIC);
    f[4] = 0b0010_0100; // single segment, 1-byte content size, content checksum
    f[5] = HEADER_LEN as u8;
    let block = 1u32 | ((HEADER_LEN as u32) << 3); // last block, raw, 64 bytes
    f[6..9].copy_from_slice(&block.to_le_bytes()[..3]);
    f[9..9 + HEADER_LEN].copy_from_slice(header);
    let sum = twox_hash::XxHash64::oneshot(0, header) as u32;
    f[9 + HEADER_LEN..].copy_from_slice(&sum.to_le_bytes());
    f
}

/// Writes an NQB file row by row without holding it in memory; the file appears at its
/// path only when [`NqbWriter::finish`] succeeds.
pub struct NqbWriter {
    out: BufWriter<AtomicFile>,
    n: u64,
    encoding: Encoding,
    level: i32,
    rows: u64,
    k: u64,
    hasher: PayloadHasher,
    block: XxHash3_64,
    block_fill: u64,
    pending: Vec<u8>,
    seek_table: zeekstd::SeekTable,
}

impl NqbWriter {
    /// Starts an NQB file for an `n`-board at `dest`.
    pub fn create(dest: &Path, n: u64, encoding: Encoding) -> Result<Self, FormatError> {
        let fail = |p| FormatError::new(dest, p);
        if n == 0 {
            return Err(fail(ErrorKind::ZeroN));
        }
        if n > MAX_N {
            return Err(fail(ErrorKind::TooLarge(n)));
        }
        let mut out = BufWriter::with_capacity(1 << 20, AtomicFile::create(dest)?);
        let mut seek_table = zeekstd::SeekTable::new();
        let placeholder = Header {
            n,
            k: 0,
            payload_checksum: 0,
        }
        .to_bytes();
        let w = match encoding {
            Encoding::Raw => out.write_all(&placeholder),
            Encoding::Zstd { frame_rows } => {
                assert!(frame_rows > 0 && frame_rows % CHECKSUM_BLOCK_ROWS == 0);
                seek_table
                    .log_frame(HEADER_FRAME_LEN as u32, HEADER_LEN as u32)
                    .expect("one frame fits the seek table");
                out.write_all(&header_frame(&placeholder))
            }
        };
        w.map_err(|e| fail(ErrorKind::Write(e)))?;
        Ok(NqbWriter {
            out,
            n,
            encoding,
            level: 3,
            rows: 0,
            k: 0,
            hasher: PayloadHasher::new(),
            block: XxHash3_64::new(),
            block_fill: 0,
            pending: Vec::new(),
            seek_table,
        })
    }

    fn fail(&self, p: ErrorKind) -> FormatError {
        FormatError::new(self.out.get_ref().dest(), p)
    }

    /// Appends rows (0 = empty row, else the 1-based column).
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        if self.rows + rows.len() as u64 > self.n {
            return Err(self.fail(ErrorKind::Mismatch(format!(
                "more than n = {} rows written",
                self.n
            ))));
        }
        self.rows += rows.len() as u64;
        self.k += rows.iter().filter(|&&v| v != 0).count() as u64;
        match self.encoding {
            Encoding::Raw => {
                let mut bytes = Vec::with_capacity(rows.len() * 4);
                for v in rows {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
                self.hash_streaming(&bytes);
                self.out
                    .write_all(&bytes)
                    .map_err(|e| self.fail(ErrorKind::Write(e)))
            }
            Encoding::Zstd { frame_rows } => {
                for v in rows {
                    self.pending.extend_from_slice(&v.to_le_bytes());
                }
                let batch = 4 * frame_rows as usize * 2 * rayon::current_num_threads();
                if self.pending.len() >= batch {
                    let whole =
                        self.pending.len() / (4 * frame_rows as usize) * (4 * frame_rows as usize);
                    let rest = self.pending.split_off(whole);
                    let full = std::mem::replace(&mut self.pending, rest);
                    self.compress_frames(&full, frame_rows)?;
                }
                Ok(())
            }
        }
    }

    fn hash_streaming(&mut self, mut bytes: &[u8]) {
        let block_bytes = CHECKSUM_BLOCK_ROWS * 4;
        while !bytes.is_empty() {
            let take = ((block_bytes - self.block_fill) as usize).min(bytes.len());
            self.block.write(&bytes[..take]);
            self.block_fill += take as u64;
            bytes = &bytes[take..];
            if self.block_fill == block_bytes {
                self.hasher.push(self.block.finish());
                self.block = XxHash3_64::new();
                self.block_fill = 0;
            }
        }
    }

    /// Compresses whole frames in parallel and appends them in order: the output bytes do
    /// not depend on the number of threads.
    fn compress_frames(&mut self, bytes: &[u8], frame_rows: u64) -> Result<(), FormatError> {
        /// One compressed frame, the checksum blocks of its rows, and its raw length.
        type Compressed = (Vec<u8>, Vec<u64>, usize);
        let level = self.level;
        let results: Vec<std::io::Result<Compressed>> = bytes
            .par_chunks(4 * frame_rows as usize)
            .map(|raw| {
                let mut c = zstd::bulk::Compressor::new(level)?;
                c.include_checksum(true)?;
                Ok((
                    c.compress(raw)?,
                    PayloadHasher::block_hashes(raw),
                    raw.len(),
                ))
            })
            .collect();
        for r in results {
            let (frame, hashes, raw_len) = r.map_err(|e| self.fail(ErrorKind::Write(e)))?;
            for h in hashes {
                self.hasher.push(h);
            }
            self.seek_table
                .log_frame(frame.len() as u32, raw_len as u32)
                .map_err(|e| self.fail(ErrorKind::Write(std::io::Error::other(e.to_string()))))?;
            self.out
                .write_all(&frame)
                .map_err(|e| self.fail(ErrorKind::Write(e)))?;
        }
        Ok(())
    }

    /// Writes the final header (and seek table). Returns the header and the complete file,
    /// still unpublished: [`AtomicFile::commit`] moves it into place.
    pub fn finish(mut self) -> Result<(Header, AtomicFile), FormatError> {
        if self.rows != self.n {
            return Err(self.fail(ErrorKind::Mismatch(format!(
                "{} rows written for n = {}",
                self.rows, self.n
            ))));
        }
        if let Encoding::Zstd { frame_rows } = self.encoding {
            let rest = std::mem::take(&mut self.pending);
            self.compress_frames(&rest, frame_rows)?;
        } else if self.block_fill > 0 {
            self.hasher.push(self.block.finish());
        }
        let header = Header {
            n: self.n,
            k: self.k,
            payload_checksum: self.hasher.finish(),
        };
        let bytes = header.to_bytes();
        let dest = self.out.get_ref().dest().to_path_buf();
        let io = |e| FormatError::new(&dest, ErrorKind::Write(e));
        if matches!(self.encoding, Encoding::Zstd { .. }) {
            let table = std::mem::take(&mut self.seek_table);
            let mut ser = table.into_serializer();
            let mut buf = vec![0u8; ser.encoded_len()];
            let len = ser.write_into(&mut buf);
            self.out.write_all(&buf[..len]).map_err(io)?;
        }
        let mut file = self.out.into_inner().map_err(|e| io(e.into_error()))?;
        file.file().seek(SeekFrom::Start(0)).map_err(io)?;
        match self.encoding {
            Encoding::Raw => file.file().write_all(&bytes),
            Encoding::Zstd { .. } => file.file().write_all(&header_frame(&bytes)),
        }
        .map_err(io)?;
        Ok((header, file))
    }
}
