//! The payload checksum, hashed block by block so that threads share the work.

use super::layout::*;

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
