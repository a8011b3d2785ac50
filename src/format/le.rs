//! Rows as little-endian `u32` bytes, the layout of NQB payloads and of every segment an
//! [`Input`](super::Input) hands out: the one place rows are encoded and decoded.

use byteorder::{ByteOrder, LittleEndian};

/// The rows as bytes.
pub(crate) fn to_bytes(rows: &[u32]) -> Vec<u8> {
    let mut out = vec![0u8; 4 * rows.len()];
    LittleEndian::write_u32_into(rows, &mut out);
    out
}

/// Appends the rows' bytes to `out`.
pub(crate) fn extend_bytes(out: &mut Vec<u8>, rows: &[u32]) {
    let start = out.len();
    out.resize(start + 4 * rows.len(), 0);
    LittleEndian::write_u32_into(rows, &mut out[start..]);
}

/// The rows in `bytes` (a whole number of rows).
pub(crate) fn to_rows(bytes: &[u8]) -> Vec<u32> {
    let mut out = vec![0u32; bytes.len() / 4];
    LittleEndian::read_u32_into(bytes, &mut out);
    out
}

/// Decodes `bytes` into `out`, which holds exactly as many rows.
pub(crate) fn read_rows_into(bytes: &[u8], out: &mut [u32]) {
    LittleEndian::read_u32_into(bytes, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_in_little_endian() {
        let rows = [0u32, 1, 0x0102_0304, u32::MAX];
        let bytes = to_bytes(&rows);
        assert_eq!(&bytes[8..12], &[4, 3, 2, 1]);
        assert_eq!(to_rows(&bytes), rows);
        let mut more = vec![9u8];
        extend_bytes(&mut more, &rows);
        assert_eq!(&more[1..], &bytes[..]);
        let mut out = [0u32; 4];
        read_rows_into(&bytes, &mut out);
        assert_eq!(out, rows);
    }
}
