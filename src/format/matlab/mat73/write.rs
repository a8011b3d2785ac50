//! Writing a v7.3 file: one vector, uncompressed, from rows spooled or already mapped.

use crate::format::{AtomicFile, ErrorKind, FormatError};
use hdf5_pure::mat::{Block, DataProducer, MatBuilder, MatError, Options};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Writes a v7.3 file with one vector laid out as a [`MatLayout`](crate::format::matlab::MatLayout) says,
/// uncompressed (the streaming writer cannot compress: a block's size must be known before
/// it is written). Rows are spooled to a temporary file beside the destination, then
/// streamed into the MAT file.
pub struct Mat73Writer {
    dest: PathBuf,
    n: u64,
    layout: crate::format::matlab::MatLayout,
    spool: std::io::BufWriter<crate::format::output::Scratch>,
    written: u64,
}

impl Mat73Writer {
    /// Starts a file at `dest` for `n` rows.
    pub fn create(
        dest: &Path,
        n: u64,
        layout: crate::format::matlab::MatLayout,
    ) -> Result<Self, FormatError> {
        holds(dest, n, layout)?;
        let spool = crate::format::output::Destination::resolve(dest)?.scratch("", ".spool")?;
        Ok(Mat73Writer {
            dest: dest.to_path_buf(),
            n,
            layout,
            spool: std::io::BufWriter::with_capacity(1 << 20, spool),
            written: 0,
        })
    }

    /// Appends rows.
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        self.written += rows.len() as u64;
        let bytes = crate::format::le::to_bytes(rows);
        self.spool
            .write_all(&bytes)
            .map_err(|e| FormatError::new(&self.dest, ErrorKind::Write(e)))
    }

    /// Writes the MAT file from the spooled rows; returns it unpublished.
    pub fn finish(self) -> Result<AtomicFile, FormatError> {
        let dest = self.dest.clone();
        let fail = |e: std::io::Error| FormatError::new(&dest, ErrorKind::Write(e));
        if self.written != self.n {
            return Err(FormatError::new(
                &dest,
                ErrorKind::Mismatch(format!("{} rows written for n = {}", self.written, self.n)),
            ));
        }
        let spool = self.spool.into_inner().map_err(|e| fail(e.into_error()))?;
        // SAFETY: the spool is this writer's own temporary file, not changed while mapped.
        let map = unsafe { memmap2::Mmap::map(spool.as_file()) }.map_err(fail)?;
        write_mapped(&dest, std::sync::Arc::new(map), 0, self.n, self.layout)
    }
}

/// Refuses a class that cannot hold every column up to n.
pub(super) fn holds(
    dest: &Path,
    n: u64,
    layout: crate::format::matlab::MatLayout,
) -> Result<(), FormatError> {
    match layout.class.refusal(n) {
        Some(why) => Err(FormatError::new(
            dest,
            ErrorKind::Mat(format!("class {why}")),
        )),
        None => Ok(()),
    }
}

/// Writes the `n` little-endian `u32` rows at byte `offset` of `map` as a v7.3 file at
/// `dest` (one variable `Q`, `uint32`, 1xN); returns it unpublished. For rows already in a
/// file (a writer's spool, the completion engine's row store), so that they are not copied
/// to a spool first.
pub(crate) fn write_mapped(
    dest: &Path,
    map: std::sync::Arc<memmap2::Mmap>,
    offset: usize,
    n: u64,
    layout: crate::format::matlab::MatLayout,
) -> Result<AtomicFile, FormatError> {
    holds(dest, n, layout)?;
    let fail = |e: std::io::Error| FormatError::new(dest, ErrorKind::Write(e));
    assert!(
        map.len() >= offset + 4 * n as usize,
        "the map holds the rows"
    );
    let mut options = Options::default();
    options.compression = hdf5_pure::mat::Compression::None;
    let mut mb = MatBuilder::new(options);
    let mat = |e: MatError| FormatError::new(dest, ErrorKind::Mat(format!("v7.3: {e}")));
    let [rows, columns] = layout.dims(n).map(|d| d as usize);
    let producer = Box::new(Mapped {
        map,
        offset,
        class: layout.class,
    });
    let name = layout.name.as_str();
    macro_rules! blocks {
        ($t:ty) => {
            mb.write_blocks::<$t>(name, &[rows, columns], producer)
        };
    }
    use crate::format::matlab::MatClass as C;
    match layout.class {
        C::Double => blocks!(f64),
        C::Single => blocks!(f32),
        C::Int8 => blocks!(i8),
        C::UInt8 => blocks!(u8),
        C::Int16 => blocks!(i16),
        C::UInt16 => blocks!(u16),
        C::Int32 => blocks!(i32),
        C::UInt32 => blocks!(u32),
        C::Int64 => blocks!(i64),
        C::UInt64 => blocks!(u64),
    }
    .map_err(mat)?;
    let mut file = AtomicFile::create(dest)?;
    let mut out =
        std::io::BufWriter::with_capacity(1 << 20, file.file().try_clone().map_err(fail)?);
    mb.finish_to(&mut out).map_err(mat)?;
    out.flush().map_err(fail)?;
    drop(out);
    // hdf5-pure names itself in the MAT header text.
    let f = file.file();
    f.seek(SeekFrom::Start(0)).map_err(fail)?;
    f.write_all(&header_text()).map_err(fail)?;
    Ok(file)
}

/// The text of a v7.3 file's MAT header as `nqueens` writes it (116 bytes): a user's
/// `head -c 116` (and MATLAB's `whos -file`) should name the program that wrote the file.
/// The text is outside every HDF5 structure and checksum.
pub(super) fn header_text() -> Vec<u8> {
    let mut text = format!(
        "MATLAB 7.3 MAT-file, Platform: nqueens {v}, Created by: nqueens {v} HDF5 schema 1.00 .",
        v = env!("CARGO_PKG_VERSION")
    )
    .into_bytes();
    text.resize(116, b' ');
    text
}

/// Blocks of the file from mapped rows, as elements of `class`.
struct Mapped {
    map: std::sync::Arc<memmap2::Mmap>,
    offset: usize,
    class: crate::format::matlab::MatClass,
}

impl DataProducer for Mapped {
    fn block_bytes(&self, block: Block, out: &mut Vec<u8>) -> Result<(), MatError> {
        let start = self.offset + block.first_element as usize * 4;
        let bytes = &self.map[start..start + block.elements as usize * 4];
        if self.class == crate::format::matlab::MatClass::UInt32 {
            out.extend_from_slice(bytes);
        } else {
            self.class
                .extend_le(out, &crate::format::le::to_rows(bytes));
        }
        Ok(())
    }
}
