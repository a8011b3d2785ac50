//! The layout of an NQB file that every part of the reader and writer shares: the magic
//! bytes, the version, the header and frame sizes, the row encodings, the recognition of a
//! file by its first bytes, and the hash of its payload.

use twox_hash::XxHash3_64;

/// XXH3-64 of `bytes` (SIMD chosen at run time: AVX2, NEON or SSE2).
pub(super) fn xxh3_64(bytes: &[u8]) -> u64 {
    XxHash3_64::oneshot(bytes)
}

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
pub(super) const MAX_FRAME_ROWS: u64 = 1 << 28;
/// The largest frame decoded whole into one buffer (16 Mi rows); larger ones are decoded
/// in pieces of at most [`DEFAULT_FRAME_ROWS`] rows, so that memory does not grow with the
/// frame size the file chose (up to 1 GiB per frame, per thread).
pub(super) const DECODE_RESERVE: usize = 64 << 20;
/// Most bytes one compressed byte of a zstd frame can stand for.
pub(super) const MAX_ZSTD_RATIO: u64 = 1 << 15;
pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Size of the hand-built zstd frame that holds the header in a compressed file.
pub(super) const HEADER_FRAME_LEN: usize = 4 + 1 + 1 + 3 + HEADER_LEN + 4;

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
