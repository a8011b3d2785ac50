//! NQB, the project's binary file for a composition or a solution (spec: `formats/nqb.md`).
//!
//! Two encodings share one 64-byte header:
//! - raw: header, then one little-endian `u32` per row, so a memory map of the file is a
//!   `&[u32]` from offset 64;
//! - zstd: the raw file compressed in the zstd seekable format, frame 0 holding the header
//!   alone and every other frame a fixed number of rows, so `zstd -d` gives back the raw
//!   file and frames decode in parallel.

use super::source::{FileBytes, MmapChoice};
use super::{AtomicFile, ErrorKind, FormatError};
use crate::board::MAX_N;
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// The 8 magic bytes at the start of every raw NQB file (and of every compressed one's
/// decompressed stream).
pub const MAGIC: [u8; 8] = *b"\x8bNQB\r\n\x1a\n";
/// The format version this build reads and writes.
pub const VERSION: u16 = 1;
/// Size of the header, and offset of the raw payload.
pub const HEADER_LEN: usize = 64;
/// Rows hashed together into one block of the payload checksum (1 MiB of payload).
pub const CHECKSUM_BLOCK_ROWS: u64 = 1 << 18;
/// Rows per zstd frame written by default (4 MiB of payload).
pub const DEFAULT_FRAME_ROWS: u64 = 1 << 20;
/// Largest frame the zstd seekable format allows, in rows (1 GiB of payload).
const MAX_FRAME_ROWS: u64 = 1 << 28;
/// Output reserved up front when decoding a frame; more only as the frame really decodes.
const DECODE_RESERVE: usize = 64 << 20;
/// Most bytes one compressed byte of a zstd frame can stand for.
const MAX_ZSTD_RATIO: u64 = 1 << 15;
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Size of the hand-built zstd frame that holds the header in a compressed file.
const HEADER_FRAME_LEN: usize = 4 + 1 + 1 + 3 + HEADER_LEN + 4;

/// How the rows are stored after the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Little-endian `u32` per row, directly after the header.
    Raw,
    /// Zstd seekable frames of `frame_rows` rows each (the last may be shorter).
    Zstd {
        /// Rows per frame; a multiple of [`CHECKSUM_BLOCK_ROWS`].
        frame_rows: u64,
    },
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Encoding::Raw => f.write_str("raw"),
            Encoding::Zstd { .. } => f.write_str("zstd"),
        }
    }
}

/// Code of the only row encoding of version 1 (little-endian `u32` per row), at offset 10.
pub const ROW_ENCODING_U32LE: u16 = 0;

/// The decoded 64-byte header. It describes the raw rows and is byte-identical in a raw
/// file and in frame 0 of its compressed form; the container is told by the file's magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Board size (rows = columns).
    pub n: u64,
    /// Number of queens (non-zero rows).
    pub k: u64,
    /// Checksum of the raw payload, see [`PayloadHasher`].
    pub payload_checksum: u64,
}

impl Header {
    /// The 64 header bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&VERSION.to_le_bytes());
        b[10..12].copy_from_slice(&ROW_ENCODING_U32LE.to_le_bytes());
        b[16..24].copy_from_slice(&self.n.to_le_bytes());
        b[24..32].copy_from_slice(&self.k.to_le_bytes());
        b[32..40].copy_from_slice(&self.payload_checksum.to_le_bytes());
        let h = xxh3_64(&b[..56]);
        b[56..64].copy_from_slice(&h.to_le_bytes());
        b
    }

    /// Decodes and checks header bytes (at least 64 of them).
    pub fn parse(b: &[u8]) -> Result<Header, ErrorKind> {
        if b.len() < HEADER_LEN {
            return Err(ErrorKind::TruncatedHeader {
                got: b.len() as u64,
                need: HEADER_LEN as u64,
            });
        }
        if b[0..8] != MAGIC {
            return Err(ErrorKind::BadMagic(super::hex(&b[..8])));
        }
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let version = u16_at(8);
        if version != VERSION {
            return Err(ErrorKind::Version(version));
        }
        if u64_at(56) != xxh3_64(&b[..56]) {
            return Err(ErrorKind::HeaderChecksum);
        }
        let encoding = u16_at(10);
        if encoding != ROW_ENCODING_U32LE {
            return Err(ErrorKind::Encoding(encoding));
        }
        if b[12..16] != [0; 4] || b[40..56] != [0; 16] {
            return Err(ErrorKind::BadHeader(
                "reserved bytes 12..16 or 40..56 are not zero".into(),
            ));
        }
        let n = u64_at(16);
        let k = u64_at(24);
        if n == 0 {
            return Err(ErrorKind::ZeroN);
        }
        if n > MAX_N {
            return Err(ErrorKind::TooLarge(n));
        }
        if k > n {
            return Err(ErrorKind::BadHeader(format!(
                "k = {k} queens on n = {n} rows"
            )));
        }
        Ok(Header {
            n,
            k,
            payload_checksum: u64_at(32),
        })
    }
}

/// The payload checksum: XXH3-64 of the concatenated little-endian XXH3-64 hashes of
/// consecutive 1 MiB blocks of the raw payload (the last block may be shorter).
///
/// Hashing blocks separately lets every thread hash its own part of a file.
pub struct PayloadHasher {
    block_hashes: Vec<u8>,
}

impl PayloadHasher {
    /// A hasher with no blocks yet.
    pub fn new() -> Self {
        PayloadHasher {
            block_hashes: Vec::new(),
        }
    }

    /// Hashes of the blocks of `bytes`, which must start on a block boundary of the payload.
    pub fn block_hashes(bytes: &[u8]) -> Vec<u64> {
        bytes
            .chunks(CHECKSUM_BLOCK_ROWS as usize * 4)
            .map(xxh3_64)
            .collect()
    }

    /// Appends the hash of the next block.
    pub fn push(&mut self, block_hash: u64) {
        self.block_hashes
            .extend_from_slice(&block_hash.to_le_bytes());
    }

    /// The checksum of all blocks pushed.
    pub fn finish(&self) -> u64 {
        xxh3_64(&self.block_hashes)
    }
}

impl Default for PayloadHasher {
    fn default() -> Self {
        Self::new()
    }
}

/// The checksum of a whole payload held in memory.
pub fn payload_checksum(bytes: &[u8]) -> u64 {
    let mut h = PayloadHasher::new();
    for b in PayloadHasher::block_hashes(bytes) {
        h.push(b);
    }
    h.finish()
}

/// Whether `bytes` (the start of a file) look like an NQB file, raw or compressed.
pub fn sniff(bytes: &[u8]) -> bool {
    let m = bytes.len().min(8);
    bytes[..m] == MAGIC[..m] || (bytes.len() >= 4 && bytes[..4] == ZSTD_MAGIC)
}

/// An NQB file opened for reading: header checked, payload mapped or read as the caller
/// chose ([`MmapChoice`]).
pub struct NqbFile {
    path: PathBuf,
    header: Header,
    encoding: Encoding,
    bytes: FileBytes,
    layout: Layout,
}

enum Layout {
    Raw,
    Zstd(Vec<FrameEntry>),
}

/// Where one row frame of a compressed file lies.
#[derive(Debug, Clone, Copy)]
struct FrameEntry {
    offset: u64,
    len: u64,
}

impl NqbFile {
    /// Opens `path` (already known to start like NQB, see [`sniff`]) and checks the header,
    /// the payload size and, for compressed files, the seek table.
    pub fn open(path: &Path, file: &File, mmap: MmapChoice) -> Result<NqbFile, FormatError> {
        let fail = |p| FormatError::new(path, p);
        let read = |e| fail(ErrorKind::Read(e));
        let bytes = FileBytes::open(file, mmap).map_err(read)?;
        let head = bytes
            .to_vec(0, bytes.len().min(HEADER_LEN as u64) as usize)
            .map_err(read)?;
        if head.len() >= 4 && head[..4] == ZSTD_MAGIC {
            return Self::open_zstd(path, bytes);
        }
        let header = Header::parse(&head).map_err(fail)?;
        let actual = bytes.len() - HEADER_LEN as u64;
        if actual != 4 * header.n {
            return Err(fail(ErrorKind::PayloadSize {
                offset: HEADER_LEN as u64,
                actual,
                expected: 4 * header.n,
                n: header.n,
            }));
        }
        bytes.advise_sequential();
        Ok(NqbFile {
            path: path.to_path_buf(),
            header,
            encoding: Encoding::Raw,
            bytes,
            layout: Layout::Raw,
        })
    }

    fn open_zstd(path: &Path, bytes: FileBytes) -> Result<NqbFile, FormatError> {
        let fail = |p| FormatError::new(path, p);
        let read = |e| fail(ErrorKind::Read(e));
        let file_len = bytes.len();
        // The seek table's frame count is checked against the file before the table is
        // parsed (the parser sizes its table from that count). The table is parsed from the
        // file's tail alone: it is the last thing in the file, and frame offsets are sums of
        // the sizes it lists.
        let mut tail_len = file_len;
        if file_len >= 9 {
            let foot = bytes.to_vec(file_len - 9, 9).map_err(read)?;
            let frames = u32::from_le_bytes(foot[..4].try_into().unwrap()) as u64;
            let entry = if foot[4] & 0x80 != 0 { 12 } else { 8 };
            let table = 8 + frames * entry + 9;
            if table > file_len {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "the footer claims {frames} frames, a table of {table} bytes, but the file has {file_len}"
                ))));
            }
            tail_len = table;
        }
        let tail = bytes
            .to_vec(file_len - tail_len, tail_len as usize)
            .map_err(read)?;
        let table = zeekstd::SeekTable::from_seekable(&mut zeekstd::BytesWrapper::new(&tail))
            .map_err(|e| {
                fail(ErrorKind::SeekTable(format!(
                    "{e} (the file may be truncated, or compressed without a seek table)"
                )))
            })?;
        let frames = table.num_frames();
        let entry = |i: u32| -> Result<(FrameEntry, u64), FormatError> {
            let bad = |e: zeekstd::Error| fail(ErrorKind::SeekTable(e.to_string()));
            let offset = table.frame_start_comp(i).map_err(bad)?;
            let len = table.frame_size_comp(i).map_err(bad)?;
            let dlen = table.frame_size_decomp(i).map_err(bad)?;
            if offset.saturating_add(len) > file_len - tail_len {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "frame {i} ends at byte {} past the end of the file's frames ({} bytes)",
                    offset.saturating_add(len),
                    file_len - tail_len
                ))));
            }
            // No zstd frame expands more than MAX_ZSTD_RATIO times (one 4-byte RLE block
            // per 128 KiB), so a larger claim is a lie and nothing is sized from it.
            if dlen > len.saturating_mul(MAX_ZSTD_RATIO) {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "frame {i} claims {dlen} bytes from {len} compressed: more than zstd can expand"
                ))));
            }
            Ok((FrameEntry { offset, len }, dlen))
        };
        if frames == 0 {
            return Err(fail(ErrorKind::SeekTable("no frames".into())));
        }
        let (first, first_dlen) = entry(0)?;
        if first_dlen != HEADER_LEN as u64 {
            return Err(fail(ErrorKind::SeekTable(format!(
                "frame 0 holds {first_dlen} bytes, an NQB header frame holds {HEADER_LEN}"
            ))));
        }
        let header_bytes = decompress(&bytes, first, HEADER_LEN).map_err(|detail| {
            fail(ErrorKind::CorruptFrame {
                frame: 0,
                first_row: 0,
                last_row: 0,
                offset: 0,
                detail,
            })
        })?;
        let header = Header::parse(&header_bytes).map_err(fail)?;
        let n = header.n;
        // All row frames but the last hold the same number of rows, read from frame 1; a
        // single row frame may hold any number.
        let frame_rows = match frames {
            1 => 0,
            2 if n > MAX_FRAME_ROWS => {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "one row frame of {n} rows: a frame holds at most {MAX_FRAME_ROWS}"
                ))));
            }
            2 => n.next_multiple_of(CHECKSUM_BLOCK_ROWS),
            _ => {
                let rows = entry(1)?.1 / 4;
                if rows == 0 || rows % CHECKSUM_BLOCK_ROWS != 0 || rows > MAX_FRAME_ROWS {
                    return Err(fail(ErrorKind::SeekTable(format!(
                        "frames of {rows} rows: not a multiple of {CHECKSUM_BLOCK_ROWS} rows up to {MAX_FRAME_ROWS}"
                    ))));
                }
                rows
            }
        };
        if frame_rows == 0 {
            return Err(fail(ErrorKind::SeekTable("no row frames".into())));
        }
        let expected_frames = n.div_ceil(frame_rows);
        if frames as u64 != expected_frames + 1 {
            return Err(fail(ErrorKind::SeekTable(format!(
                "{} row frames, but n = {n} in frames of {frame_rows} rows needs {expected_frames}",
                frames - 1
            ))));
        }
        let mut entries = Vec::with_capacity(frames as usize - 1);
        for i in 1..frames {
            let (e, dlen) = entry(i)?;
            let first_row = (i as u64 - 1) * frame_rows;
            let rows = frame_rows.min(n - first_row);
            if dlen != rows * 4 {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "frame {i} holds {dlen} bytes, expected {} for rows {}..={}",
                    rows * 4,
                    first_row + 1,
                    first_row + rows
                ))));
            }
            entries.push(e);
        }
        Ok(NqbFile {
            path: path.to_path_buf(),
            header,
            encoding: Encoding::Zstd { frame_rows },
            bytes,
            layout: Layout::Zstd(entries),
        })
    }

    /// Names the file `path` in messages (for a spooled copy of standard input).
    pub(crate) fn set_path(&mut self, path: &Path) {
        self.path = path.to_path_buf();
    }

    /// The file this was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The checked header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// How the rows are stored in this file.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Rows per segment, the unit of parallel work; every segment but the last has this many.
    pub fn segment_rows(&self) -> u64 {
        match self.encoding {
            Encoding::Raw => DEFAULT_FRAME_ROWS,
            Encoding::Zstd { frame_rows } => frame_rows,
        }
    }

    /// The payload bytes of segment `i` (rows `i * segment_rows ..`): for raw files borrowed
    /// from the map or read into `scratch`, for compressed ones decoded into `scratch`.
    pub fn segment<'a>(
        &'a self,
        i: u64,
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], FormatError> {
        let seg = self.segment_rows();
        let first = i * seg;
        let rows = seg.min(self.header.n - first);
        match &self.layout {
            Layout::Raw => self
                .bytes
                .get(HEADER_LEN as u64 + 4 * first, 4 * rows as usize, scratch)
                .map_err(|e| FormatError::new(&self.path, ErrorKind::Read(e))),
            Layout::Zstd(frames) => {
                let e = frames[i as usize];
                *scratch = decompress(&self.bytes, e, 4 * rows as usize).map_err(|detail| {
                    FormatError::new(
                        &self.path,
                        ErrorKind::CorruptFrame {
                            frame: i + 1,
                            first_row: first + 1,
                            last_row: first + rows,
                            offset: e.offset,
                            detail,
                        },
                    )
                })?;
                Ok(scratch)
            }
        }
    }

    /// Drops this process's mapping of the pages wholly inside segment `i`'s stored bytes,
    /// so that the resident set of a pass over a huge file stays bounded. The data stays in
    /// the page cache and the file is unchanged; a later read maps the same bytes again.
    pub fn release(&self, i: u64) {
        let (start, len) = match &self.layout {
            Layout::Raw => {
                let seg = self.segment_rows();
                let first = i * seg;
                let rows = seg.min(self.header.n - first);
                (HEADER_LEN as u64 + 4 * first, 4 * rows)
            }
            Layout::Zstd(frames) => (frames[i as usize].offset, frames[i as usize].len),
        };
        self.bytes.release(start, len);
    }
}

/// Decodes one zstd frame that must hold exactly `len` bytes. Memory grows with what the
/// frame really decodes to, not with the length the seek table claims.
fn decompress(bytes: &FileBytes, e: FrameEntry, len: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut compressed = Vec::new();
    let src = bytes
        .get(e.offset, e.len as usize, &mut compressed)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(len.min(DECODE_RESERVE));
    zstd::stream::read::Decoder::with_buffer(src)
        .map_err(|e| e.to_string())?
        .single_frame()
        .take(len as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    let got = out.len();
    if got != len {
        return Err(format!("decodes to {got} bytes, expected {len}"));
    }
    Ok(out)
}

/// The zstd frame holding the header of a compressed file: a single raw (stored) block
/// with a content checksum, built by hand because its size must not depend on its
/// content: the header is rewritten in place once k and the checksum are known.
fn header_frame(header: &[u8; HEADER_LEN]) -> [u8; HEADER_FRAME_LEN] {
    let mut f = [0u8; HEADER_FRAME_LEN];
    f[0..4].copy_from_slice(&ZSTD_MAGIC);
    f[4] = 0b0010_0100; // single segment, 1-byte content size, content checksum
    f[5] = HEADER_LEN as u8;
    let block = 1u32 | ((HEADER_LEN as u32) << 3); // last block, raw, 64 bytes
    f[6..9].copy_from_slice(&block.to_le_bytes()[..3]);
    f[9..9 + HEADER_LEN].copy_from_slice(header);
    let sum = xxhash_rust::xxh64::xxh64(header, 0) as u32;
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
    block: Xxh3,
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
            block: Xxh3::new(),
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
            self.block.update(&bytes[..take]);
            self.block_fill += take as u64;
            bytes = &bytes[take..];
            if self.block_fill == block_bytes {
                self.hasher.push(self.block.digest());
                self.block.reset();
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
            self.hasher.push(self.block.digest());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let h = Header {
            n: 1_000_000_000,
            k: 12,
            payload_checksum: 0xdead_beef,
        };
        assert_eq!(Header::parse(&h.to_bytes()).unwrap(), h);
    }

    #[test]
    fn header_rejects_flipped_bits() {
        let h = Header {
            n: 8,
            k: 8,
            payload_checksum: 1,
        };
        let mut b = h.to_bytes();
        b[17] ^= 1;
        assert!(matches!(Header::parse(&b), Err(ErrorKind::HeaderChecksum)));
    }

    #[test]
    fn header_frame_is_a_valid_zstd_frame() {
        let h = Header {
            n: 5,
            k: 0,
            payload_checksum: 7,
        }
        .to_bytes();
        let f = header_frame(&h);
        assert_eq!(zstd::bulk::decompress(&f, 64).unwrap(), h.to_vec());
    }

    #[test]
    fn checksum_blocks_combine_like_the_whole() {
        let bytes: Vec<u8> = (0..(3 * CHECKSUM_BLOCK_ROWS * 4 + 100))
            .map(|i| (i * 7) as u8)
            .collect();
        let mut h = PayloadHasher::new();
        let split = 2 * CHECKSUM_BLOCK_ROWS as usize * 4;
        for part in [&bytes[..split], &bytes[split..]] {
            for b in PayloadHasher::block_hashes(part) {
                h.push(b);
            }
        }
        assert_eq!(h.finish(), payload_checksum(&bytes));
    }
}
