//! The 64-byte header: its fields, how they are checked and encoded.

use super::layout::*;
use crate::board::MAX_N;
use crate::format::ErrorKind;

/// The decoded 64-byte header. It describes the raw rows and is byte-identical in a raw
/// file and in frame 0 of its compressed form; the container is told by the file's magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Board size (rows = columns).
    pub n: u64,
    /// Number of queens (non-zero rows).
    pub k: u64,
    /// Checksum of the raw payload, see [`PayloadHasher`](super::PayloadHasher).
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
            return Err(ErrorKind::BadMagic(crate::format::hex(&b[..8])));
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
