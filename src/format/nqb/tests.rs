//! Tests of the NQB header, its zstd frame and the payload checksum.

use super::writer::header_frame;
use super::*;
use crate::format::ErrorKind;

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
