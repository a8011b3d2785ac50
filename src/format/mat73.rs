//! MATLAB v7.3 MAT files: HDF5 behind a 512-byte MAT header, read and written with the
//! pure-Rust `hdf5-pure` crate (no libhdf5). See `formats/mat.md`.
//!
//! MATLAB stores arrays column-major, so its 1xN row vector (the seed program's
//! `zeros(1,n,'uint32')`) is an HDF5 dataset of shape [N, 1] and its Nx1 column vector one
//! of shape [1, N]. Row vectors are read by windows of the leading dimension, contiguous or
//! chunked, so any n reads in bounded memory; column vectors are read whole, up to
//! [`MAX_WHOLE`] elements.

use super::{AtomicFile, FormatError, Problem};
use hdf5_pure::DType;
use hdf5_pure::mat::{Block, DataProducer, MatBuilder, MatError, Options};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Largest Nx1 (column) vector read, in elements: it is read whole.
pub const MAX_WHOLE: u64 = 1 << 28;

/// A numeric vector variable of a v7.3 file, read window by window.
pub struct Mat73File {
    path: PathBuf,
    file: hdf5_pure::File,
    var: String,
    n: u64,
    dtype: DType,
    /// Column vectors, read whole at open.
    whole: Option<Vec<u32>>,
}

fn mat_err(path: &Path, detail: String) -> FormatError {
    FormatError::new(path, Problem::Mat(detail))
}

/// The MATLAB class of a dataset, from its `MATLAB_class` attribute.
fn class_of(ds: &hdf5_pure::Dataset) -> Option<String> {
    match ds.attrs().ok()?.remove("MATLAB_class")? {
        hdf5_pure::AttrValue::AsciiString(s) | hdf5_pure::AttrValue::String(s) => Some(s),
        _ => None,
    }
}

const NUMERIC: [&str; 10] = [
    "double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
];

/// One line about a variable, for listings.
fn describe(name: &str, ds: &hdf5_pure::Dataset) -> String {
    let class = class_of(ds).unwrap_or_else(|| "unknown class".into());
    let dims: Vec<String> = ds
        .shape()
        .unwrap_or_default()
        .iter()
        .rev()
        .map(u64::to_string)
        .collect();
    format!("{name} ({class}, {})", dims.join("x"))
}

impl Mat73File {
    /// Opens the variable `var` (default: the only numeric vector) of the v7.3 file at `path`.
    pub fn open(path: &Path, var: Option<&str>) -> Result<Self, FormatError> {
        let fail = |d: String| mat_err(path, format!("v7.3: {d}"));
        let file = hdf5_pure::File::open_streaming(path).map_err(|e| fail(format!("{e}")))?;
        let root = file.root();
        let names = root.datasets().map_err(|e| fail(format!("{e}")))?;
        let groups = root.groups().unwrap_or_default();
        let var = match var {
            Some(v) if names.iter().any(|n| n == v) => v.to_string(),
            Some(v) if groups.iter().any(|g| g == v) => {
                return Err(fail(format!(
                    "variable {v} is a struct, cell, sparse or object array (an HDF5 group), expected a numeric vector"
                )));
            }
            Some(v) => {
                let list: Vec<String> = names
                    .iter()
                    .filter_map(|n| Some(describe(n, &file.dataset(n).ok()?)))
                    .collect();
                return Err(fail(format!(
                    "no variable named {v}; the file holds: {}",
                    if list.is_empty() {
                        "no numeric variables".into()
                    } else {
                        list.join(", ")
                    }
                )));
            }
            None => {
                let vectors: Vec<&String> = names
                    .iter()
                    .filter(|n| {
                        file.dataset(n).is_ok_and(|d| {
                            class_of(&d).is_some_and(|c| NUMERIC.contains(&c.as_str()))
                                && d.shape()
                                    .is_ok_and(|s| s.iter().filter(|&&x| x != 1).count() <= 1)
                        })
                    })
                    .collect();
                match (vectors.as_slice(), names.as_slice()) {
                    ([one], _) => one.to_string(),
                    // The only variable: read it, so that what is wrong with it is said.
                    ([], [only]) => only.to_string(),
                    _ => {
                        let list: Vec<String> = names
                            .iter()
                            .filter_map(|n| Some(describe(n, &file.dataset(n).ok()?)))
                            .collect();
                        return Err(fail(format!(
                            "{} numeric vectors, choose one with --var; the file holds: {}",
                            vectors.len(),
                            if list.is_empty() {
                                "no variables".into()
                            } else {
                                list.join(", ")
                            }
                        )));
                    }
                }
            }
        };
        let ds = file
            .dataset(&var)
            .map_err(|e| fail(format!("{var}: {e}")))?;
        let class = class_of(&ds).unwrap_or_default();
        if !NUMERIC.contains(&class.as_str()) {
            return Err(fail(format!(
                "variable {var} is a {} array, expected a numeric vector",
                if class.is_empty() {
                    "non-MATLAB"
                } else {
                    &class
                }
            )));
        }
        let dtype = ds.dtype().map_err(|e| fail(format!("{var}: {e}")))?;
        if !matches!(
            dtype,
            DType::F32
                | DType::F64
                | DType::I8
                | DType::I16
                | DType::I32
                | DType::I64
                | DType::U8
                | DType::U16
                | DType::U32
                | DType::U64
        ) {
            return Err(fail(format!(
                "variable {var} has element type {dtype} (complex?), expected real numbers"
            )));
        }
        let shape = ds.shape().map_err(|e| fail(format!("{var}: {e}")))?;
        let n: u64 = shape.iter().product();
        if shape.iter().filter(|&&x| x != 1).count() > 1 || shape.len() > 2 {
            let dims: Vec<String> = shape.iter().rev().map(u64::to_string).collect();
            return Err(fail(format!(
                "variable {var} is a {} matrix, expected a 1xN or Nx1 vector",
                dims.join("x")
            )));
        }
        if n == 0 {
            return Err(fail(format!("variable {var} is empty")));
        }
        if n > crate::board::MAX_N {
            return Err(FormatError::new(path, Problem::TooLarge(n)));
        }
        let by_rows = shape[0] == n;
        let mut f = Mat73File {
            path: path.to_path_buf(),
            file,
            var,
            n,
            dtype,
            whole: None,
        };
        if !by_rows {
            if n > MAX_WHOLE {
                return Err(fail(format!(
                    "variable {} is an {n}x1 column vector, read whole up to {MAX_WHOLE} elements; save a 1xN row vector",
                    f.var
                )));
            }
            f.whole = Some(f.convert(0, n)?);
        }
        Ok(f)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of rows (elements).
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Rows `first .. first + count` as validated row values.
    pub fn rows(&self, first: u64, count: u64) -> Result<Vec<u32>, FormatError> {
        match &self.whole {
            Some(w) => Ok(w[first as usize..(first + count) as usize].to_vec()),
            None => self.convert(first, count),
        }
    }

    /// Reads and validates elements `first .. first + count` (a window of the leading
    /// dimension, or everything for a column vector).
    fn convert(&self, first: u64, count: u64) -> Result<Vec<u32>, FormatError> {
        let fail = |d: String| mat_err(&self.path, format!("v7.3: {d}"));
        let ds = self
            .file
            .dataset(&self.var)
            .map_err(|e| fail(format!("{}: {e}", self.var)))?;
        let whole = self.whole.is_none() && ds.shape().map(|s| s[0] != self.n).unwrap_or(false);
        let read_err = |e: hdf5_pure::Error| {
            fail(format!(
                "{}: reading elements {}..: {e}",
                self.var,
                first + 1
            ))
        };
        macro_rules! read {
            ($rows:ident, $all:ident) => {
                if whole {
                    ds.$all()
                } else {
                    ds.$rows(first, count)
                }
                .map_err(read_err)?
            };
        }
        // Reads as one type, widened to another for checking.
        macro_rules! read_as {
            ($rows:ident, $all:ident, $to:ty) => {
                read!($rows, $all)
                    .into_iter()
                    .map(<$to>::from)
                    .collect::<Vec<$to>>()
            };
        }
        let n = self.n;
        let var = &self.var;
        let check = |i: usize, v: Result<u64, String>| -> Result<u32, FormatError> {
            let row = first + i as u64 + 1;
            let v = v.map_err(|e| fail(format!("{var}({row}) {e}")))?;
            if v > n {
                return Err(fail(format!("{var}({row}) = {v} is larger than n = {n}")));
            }
            Ok(v as u32)
        };
        let ints = |v: Vec<i64>| -> Result<Vec<u32>, FormatError> {
            v.into_iter()
                .enumerate()
                .map(|(i, x)| check(i, super::mat5::nonneg(x)))
                .collect()
        };
        let uints = |v: Vec<u64>| -> Result<Vec<u32>, FormatError> {
            v.into_iter()
                .enumerate()
                .map(|(i, x)| check(i, Ok(x)))
                .collect()
        };
        let floats = |v: Vec<f64>| -> Result<Vec<u32>, FormatError> {
            v.into_iter()
                .enumerate()
                .map(|(i, x)| check(i, super::mat5::integral(x)))
                .collect()
        };
        match self.dtype {
            DType::U32 => {
                let v = read!(read_u32_rows, read_u32);
                if let Some(i) = v.iter().position(|&x| x as u64 > n) {
                    return Err(fail(format!(
                        "{var}({}) = {} is larger than n = {n}",
                        first + i as u64 + 1,
                        v[i]
                    )));
                }
                Ok(v)
            }
            DType::U8 => uints(read_as!(read_u8_rows, read_u8, u64)),
            DType::U16 => uints(read_as!(read_u16_rows, read_u16, u64)),
            DType::U64 => uints(read!(read_u64_rows, read_u64)),
            DType::I8 => ints(read_as!(read_i8_rows, read_i8, i64)),
            DType::I16 => ints(read_as!(read_i16_rows, read_i16, i64)),
            DType::I32 => ints(read_as!(read_i32_rows, read_i32, i64)),
            DType::I64 => ints(read!(read_i64_rows, read_i64)),
            DType::F32 => floats(read_as!(read_f32_rows, read_f32, f64)),
            _ => floats(read!(read_f64_rows, read_f64)),
        }
    }
}

/// Writes a v7.3 file with one `uint32` 1xN variable `Q`, uncompressed (the streaming
/// writer cannot compress: a block's size must be known before it is written). Rows are
/// spooled to a temporary file beside the destination, then streamed into the MAT file.
pub struct Mat73Writer {
    dest: PathBuf,
    n: u64,
    spool: std::io::BufWriter<tempfile::NamedTempFile>,
    written: u64,
}

impl Mat73Writer {
    /// Starts a file at `dest` for `n` rows.
    pub fn create(dest: &Path, n: u64) -> Result<Self, FormatError> {
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let spool = tempfile::Builder::new()
            .prefix(".nqueens-")
            .suffix(".spool")
            .tempfile_in(dir)
            .map_err(|e| FormatError::new(dest, Problem::Write(e)))?;
        Ok(Mat73Writer {
            dest: dest.to_path_buf(),
            n,
            spool: std::io::BufWriter::with_capacity(1 << 20, spool),
            written: 0,
        })
    }

    /// Appends rows.
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        self.written += rows.len() as u64;
        let bytes: Vec<u8> = rows.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.spool
            .write_all(&bytes)
            .map_err(|e| FormatError::new(&self.dest, Problem::Write(e)))
    }

    /// Writes the MAT file from the spooled rows; returns it unpublished.
    pub fn finish(self) -> Result<AtomicFile, FormatError> {
        let dest = self.dest.clone();
        let fail = |e: std::io::Error| FormatError::new(&dest, Problem::Write(e));
        if self.written != self.n {
            return Err(FormatError::new(
                &dest,
                Problem::Mismatch(format!("{} rows written for n = {}", self.written, self.n)),
            ));
        }
        let spool = self.spool.into_inner().map_err(|e| fail(e.into_error()))?;
        // SAFETY: the spool is this writer's own temporary file, not changed while mapped.
        let map = unsafe { memmap2::Mmap::map(spool.as_file()) }.map_err(fail)?;
        let map = std::sync::Arc::new(map);
        let mut options = Options::default();
        options.compression = hdf5_pure::mat::Compression::None;
        let mut mb = MatBuilder::new(options);
        let mat = |e: MatError| FormatError::new(&dest, Problem::Mat(format!("v7.3: {e}")));
        mb.write_blocks::<u32>("Q", &[1, self.n as usize], Box::new(Spooled(map)))
            .map_err(mat)?;
        let mut file = AtomicFile::create(&dest)?;
        let mut out =
            std::io::BufWriter::with_capacity(1 << 20, file.file().try_clone().map_err(fail)?);
        mb.finish_to(&mut out).map_err(mat)?;
        out.flush().map_err(fail)?;
        drop(out);
        Ok(file)
    }
}

/// Blocks of the file from the spooled rows.
struct Spooled(std::sync::Arc<memmap2::Mmap>);

impl DataProducer for Spooled {
    fn block_bytes(&self, block: Block, out: &mut Vec<u8>) -> Result<(), MatError> {
        let start = block.first_element as usize * 4;
        out.extend_from_slice(&self.0[start..start + block.elements as usize * 4]);
        Ok(())
    }
}
