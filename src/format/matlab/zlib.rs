//! A zlib stream writer for MAT v7 outputs, on miniz_oxide.
//!
//! flate2 is built on zlib-rs, whose inflate reads MAT inputs fastest, and flate2 takes one
//! backend per build. zlib-rs's fastest deflate level (the "quick" strategy, fixed Huffman
//! codes) makes row data *larger* than it is (1.027x for a constructed solution, 1.024x for
//! a random one), and its next levels leave a constructed solution at 0.61x; miniz_oxide's
//! level 1 gives 0.32x and 0.80x at the same speed (BENCHMARKS.md, "MAT v7 size"). Its
//! streaming API is a function over buffers, so this adapter gives it `Write`.

use miniz_oxide::deflate::core::{CompressorOxide, create_comp_flags_from_zip_params};
use miniz_oxide::deflate::stream::deflate;
use miniz_oxide::{MZFlush, MZStatus};
use std::io::Write;

/// The deflate level: miniz's fastest, which already reaches what higher levels do on
/// row data (within 2 %) at a fraction of their time.
const LEVEL: i32 = 1;

/// Compresses everything written to it into one zlib stream on `inner`.
pub(super) struct ZlibWriter<W: Write> {
    inner: W,
    compressor: Box<CompressorOxide>,
    buf: Vec<u8>,
}

fn broken(what: &str) -> std::io::Error {
    std::io::Error::other(format!("zlib compression failed: {what}"))
}

impl<W: Write> ZlibWriter<W> {
    /// A stream on `inner` (a zlib header, window of 2^15).
    pub(super) fn new(inner: W) -> ZlibWriter<W> {
        ZlibWriter {
            inner,
            compressor: Box::new(CompressorOxide::new(create_comp_flags_from_zip_params(
                LEVEL, 15, 0,
            ))),
            buf: vec![0; 1 << 16],
        }
    }

    /// Ends the stream (the Adler-32 trailer) and returns the inner writer.
    pub(super) fn finish(mut self) -> std::io::Result<W> {
        loop {
            let r = deflate(&mut self.compressor, &[], &mut self.buf, MZFlush::Finish);
            self.inner.write_all(&self.buf[..r.bytes_written])?;
            match r.status {
                Ok(MZStatus::StreamEnd) => return Ok(self.inner),
                Ok(_) => {}
                Err(e) => return Err(broken(&format!("{e:?}"))),
            }
        }
    }
}

impl<W: Write> Write for ZlibWriter<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        loop {
            let r = deflate(&mut self.compressor, data, &mut self.buf, MZFlush::None);
            self.inner.write_all(&self.buf[..r.bytes_written])?;
            if let Err(e) = r.status {
                return Err(broken(&format!("{e:?}")));
            }
            if r.bytes_consumed > 0 {
                return Ok(r.bytes_consumed);
            }
        }
    }

    /// Flushes what was compressed so far to the inner writer (the stream stays open: a
    /// sync flush would cost compression at every call).
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn streams_inflate_back_to_what_was_written() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) % 1_000_000).to_le_bytes())
            .collect();
        let mut w = ZlibWriter::new(Vec::new());
        for chunk in data.chunks(7_777) {
            w.write_all(chunk).unwrap();
        }
        let z = w.finish().unwrap();
        let mut back = Vec::new();
        flate2::read::ZlibDecoder::new(&z[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, data);
        // Values below 2^20 in 32 bits: a quarter of the bytes are zero at least.
        assert!(
            z.len() < data.len() * 9 / 10,
            "{} of {}",
            z.len(),
            data.len()
        );
        let empty = ZlibWriter::new(Vec::new()).finish().unwrap();
        let mut back = Vec::new();
        flate2::read::ZlibDecoder::new(&empty[..])
            .read_to_end(&mut back)
            .unwrap();
        assert!(back.is_empty());
    }
}
