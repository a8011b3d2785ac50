//! NQB, the project's binary file for a composition or a solution (spec: `formats/nqb.md`).
//!
//! Two encodings share one 64-byte header:
//! - raw: header, then one little-endian `u32` per row, so a memory map of the file is a
//!   `&[u32]` from offset 64;
//! - zstd: the raw file compressed in the zstd seekable format, frame 0 holding the header
//!   alone and every other frame a fixed number of rows, so `zstd -d` gives back the raw
//!   file and frames decode in parallel.

use super::source::{Fault, FileBytes, MmapChoice, Pieces, Span, Window, skip};
use super::{AtomicFile, ErrorKind, FormatError};
use crate::board::MAX_N;
use rayon::prelude::*;
use std::fs::File;
use std::hash::Hasher;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twox_hash::XxHash3_64;

/// XXH3-64 of `bytes` (SIMD chosen at run time: AVX2, NEON or SSE2).
fn xxh3_64(bytes: &[u8]) -> u64 {
    XxHash3_64::oneshot(bytes)
}

mod checksum;
mod header;
mod reader;
pub(crate) mod row_store;
mod writer;

pub use checksum::{PayloadHasher, payload_checksum};
pub use header::Header;
pub use reader::NqbFile;
pub use writer::NqbWriter;

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
/// The largest frame decoded whole into one buffer (16 Mi rows); larger ones are decoded
/// in pieces of at most [`DEFAULT_FRAME_ROWS`] rows, so that memory does not grow with the
/// frame size the file chose (up to 1 GiB per frame, per thread).
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

/// Whether `bytes` (the start of a file) look like an NQB file, raw or compressed.
pub fn sniff(bytes: &[u8]) -> bool {
    let m = bytes.len().min(8);
    bytes[..m] == MAGIC[..m] || (bytes.len() >= 4 && bytes[..4] == ZSTD_MAGIC)
}

#[cfg(test)]
mod tests {
    use super::writer::header_frame;
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
