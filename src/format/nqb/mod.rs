//! NQB, the project's binary file for a composition or a solution (spec: `formats/nqb.md`).
//!
//! Two encodings share one 64-byte header:
//! - raw: header, then one little-endian `u32` per row, so a memory map of the file is a
//!   `&[u32]` from offset 64;
//! - zstd: the raw file compressed in the zstd seekable format, frame 0 holding the header
//!   alone and every other frame a fixed number of rows, so `zstd -d` gives back the raw
//!   file and frames decode in parallel.

mod checksum;
mod header;
mod layout;
mod reader;
pub(crate) mod row_store;
mod writer;

pub use checksum::{PayloadHasher, payload_checksum};
pub use header::Header;
pub use layout::{
    CHECKSUM_BLOCK_ROWS, DEFAULT_FRAME_ROWS, Encoding, HEADER_LEN, MAGIC, ROW_ENCODING_U32LE,
    VERSION, sniff,
};
pub use reader::NqbFile;
pub use writer::NqbWriter;

#[cfg(test)]
mod tests;
