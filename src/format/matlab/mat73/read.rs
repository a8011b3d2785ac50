//! Reading a v7.3 (or plain HDF5) numeric vector window by window, from the storage
//! located at open.

use super::chunks::{Storage, Stored, WORK, stored_size_covers};
use super::variables::{Var, Variables, class_of, hdf5_error, numeric_vector, octave_numeric};
use crate::format::matlab::hdf5_v1;
use crate::format::{ErrorKind, FormatError, IndexBase, clip};
use hdf5_pure::DType;
use std::path::{Path, PathBuf};

/// A numeric vector variable of a v7.3 file, read window by window.
pub struct Mat73File {
    pub(super) path: PathBuf,
    pub(super) file: hdf5_pure::File,
    /// The variable's name.
    pub(super) var: String,
    /// The path of its dataset (`Q`, or `Q/value` in Octave's layout).
    pub(super) dataset: String,
    pub(super) n: u64,
    pub(super) dtype: DType,
    /// Where the elements are, when stored outside the object header in a layout read
    /// here; `None`: read through the crate (compact data, unusual chunk shapes).
    pub(super) stored: Option<Stored>,
    /// How the file numbers its columns.
    pub(super) base: IndexBase,
    /// The variable's name, class and orientation.
    pub(super) layout: crate::format::matlab::MatLayout,
    /// The file's other variables.
    pub(super) others: Vec<String>,
    /// A plain HDF5 file (h5py, Octave's `-hdf5`), not a MAT v7.3 file (HDF5 behind
    /// MATLAB's 512-byte header).
    pub(super) plain: bool,
}

fn mat_err(path: &Path, detail: String) -> FormatError {
    FormatError::new(path, ErrorKind::Mat(detail))
}

impl Mat73File {
    /// Opens the variable `var` (default: the only numeric vector) of the v7.3 file at `path`.
    pub fn open(path: &Path, var: Option<&str>, base: IndexBase) -> Result<Self, FormatError> {
        // A plain HDF5 file (no MATLAB header before the superblock) is named as such.
        let plain = std::fs::File::open(path).is_ok_and(|mut f| {
            let mut magic = [0u8; 4];
            std::io::Read::read_exact(&mut f, &mut magic).is_ok() && magic == *b"\x89HDF"
        });
        let fail = |d: String| {
            if plain {
                FormatError::new(path, ErrorKind::Hdf5(d))
            } else {
                mat_err(path, format!("v7.3: {d}"))
            }
        };
        if let Ok(raw) = std::fs::File::open(path) {
            hdf5_v1::check_root_group(&raw).map_err(fail)?;
        }
        let file = hdf5_pure::File::open_streaming(path).map_err(|e| fail(hdf5_error(&e)))?;
        let vars = Variables::of(&file).map_err(fail)?;
        let var = vars.choose(&file, var).map_err(fail)?;
        let Var { ds, octave, .. } = vars.get(&var).expect("chosen among them");
        if octave.is_some() {
            octave_numeric(&file, &var).map_err(fail)?;
        }
        // As messages show it.
        let shown = clip(&var);
        let (dtype, shape, n) = numeric_vector(ds, &shown).map_err(fail)?;
        if n > crate::board::MAX_N {
            return Err(FormatError::new(path, ErrorKind::TooLarge(n)));
        }
        let axis = if shape[0] == n { 0 } else { 1 };
        let storage = Storage::of(path, ds, &vars.dataset_of(&var), &shape, axis)
            .map_err(|e| fail(format!("{shown}: {e}")))?;
        stored_size_covers(path, ds, &shape, n, &storage)
            .map_err(|e| fail(format!("{shown}: {e}")))?;
        // Plain HDF5 and Octave datasets carry no class: their element type names one.
        let class = class_of(ds)
            .and_then(|c| crate::format::matlab::MatClass::from_name(&c))
            .unwrap_or(match dtype {
                DType::F32 => crate::format::matlab::MatClass::Single,
                DType::I8 => crate::format::matlab::MatClass::Int8,
                DType::U8 => crate::format::matlab::MatClass::UInt8,
                DType::I16 => crate::format::matlab::MatClass::Int16,
                DType::U16 => crate::format::matlab::MatClass::UInt16,
                DType::I32 => crate::format::matlab::MatClass::Int32,
                DType::U32 => crate::format::matlab::MatClass::UInt32,
                DType::I64 => crate::format::matlab::MatClass::Int64,
                DType::U64 => crate::format::matlab::MatClass::UInt64,
                _ => crate::format::matlab::MatClass::Double,
            });
        // HDF5 lists MATLAB's dimensions in reverse: [N, 1] is a 1 x N row.
        let layout = if axis == 0 {
            crate::format::matlab::MatLayout::found(&var, class, 1, n)
        } else {
            crate::format::matlab::MatLayout::found(&var, class, n, 1)
        };
        let stored = Stored::locate(path, ds, n, axis, storage)
            .map_err(|e| fail(format!("{shown}: {e}")))?;
        let others = vars
            .vars
            .iter()
            .map(|v| &v.name)
            .chain(&vars.groups)
            .filter(|n| **n != var)
            .cloned()
            .collect();
        Ok(Mat73File {
            path: path.to_path_buf(),
            file,
            dataset: vars.dataset_of(&var),
            var,
            n,
            dtype,
            stored,
            base,
            layout,
            others,
            plain,
        })
    }

    /// Whether this is a plain HDF5 file rather than MATLAB's v7.3 (HDF5 behind its header).
    pub fn is_plain_hdf5(&self) -> bool {
        self.plain
    }

    /// Names the file `path` in messages (for a spooled copy of standard input).
    pub(crate) fn set_path(&mut self, path: &Path) {
        self.path = path.to_path_buf();
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of rows (elements).
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The variable's name, class and orientation, and the file's other variables.
    pub fn source(&self) -> crate::format::matlab::MatSource {
        crate::format::matlab::MatSource {
            layout: self.layout,
            others: self.others.clone(),
        }
    }

    /// Rows `first .. first + count` as validated row values.
    pub fn rows(&self, first: u64, count: u64) -> Result<Vec<u32>, FormatError> {
        let mut bytes = Vec::new();
        self.rows_le(first, count, &mut bytes)?;
        Ok(crate::format::le::to_rows(&bytes))
    }

    /// Rows `first .. first + count` as validated row values, into `out` as little-endian
    /// bytes (what the verifier's segments are).
    pub(crate) fn rows_le(
        &self,
        first: u64,
        count: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        let Some(stored) = &self.stored else {
            out.clear();
            let values = self
                .crate_values(first, count)
                .map_err(|e| self.read_error(first, e))?;
            crate::format::le::extend_bytes(out, &self.check(values, first)?);
            return Ok(());
        };
        let direct = self.dtype == DType::U32 && !stored.big_endian && self.base == IndexBase::One;
        WORK.with(|work| {
            // Never re-entered: nothing below reads another window.
            let mut work = work.borrow_mut();
            let bytes = count as usize * stored.size;
            if direct {
                // Every u32 is a row value (one above n is the verifier's to report).
                out.resize(bytes, 0);
                return stored
                    .bytes(first, out, &mut work)
                    .map_err(|e| self.read_error(first, e));
            }
            // Kept at its largest length between windows: only growth is zeroed.
            let mut elements = std::mem::take(&mut work.elements);
            if elements.len() < bytes {
                elements.resize(bytes, 0);
            }
            let elements_read = &mut elements[..bytes];
            let r = stored
                .bytes(first, elements_read, &mut work)
                .map_err(|e| self.read_error(first, e))
                .and_then(|()| {
                    let doubles = self.dtype == DType::F64
                        && !stored.big_endian
                        && self.base == IndexBase::One;
                    if doubles && doubles_to_rows(elements_read, out) {
                        return Ok(());
                    }
                    // Other types, and the message for a double that is no row value.
                    out.clear();
                    let values = Values::decode(elements_read, &self.dtype, stored.big_endian);
                    crate::format::le::extend_bytes(out, &self.check(values, first)?);
                    Ok(())
                });
            work.elements = elements;
            r
        })
    }

    pub(super) fn read_error(&self, first: u64, e: String) -> FormatError {
        mat_err(
            &self.path,
            format!(
                "v7.3: {}: reading elements {}..: {e}",
                clip(&self.var),
                first + 1
            ),
        )
    }

    /// Validates elements read from row `first` on as row values.
    pub(super) fn check(&self, values: Values, first: u64) -> Result<Vec<u32>, FormatError> {
        let fail = |d: String| mat_err(&self.path, format!("v7.3: {d}"));
        let var = &clip(&self.var);
        let check = |i: usize, v: Result<u64, String>| -> Result<u32, FormatError> {
            let row = first + i as u64 + 1;
            let v = v.map_err(|e| fail(format!("{var}({row}) {e}")))?;
            // A value above n is the verifier's to report (exit 1, as for every format);
            // only a value no row can hold is unreadable.
            u32::try_from(v)
                .map_err(|_| fail(format!("{var}({row}) = {v} does not fit a column number")))
        };
        let base = self.base;
        match values {
            Values::U32(v) if base == IndexBase::One => Ok(v),
            Values::U32(v) => v
                .into_iter()
                .enumerate()
                .map(|(i, x)| check(i, base.unsigned(x.into())))
                .collect(),
            Values::U(v) => v
                .into_iter()
                .enumerate()
                .map(|(i, x)| check(i, base.unsigned(x)))
                .collect(),
            Values::I(v) => v
                .into_iter()
                .enumerate()
                .map(|(i, x)| check(i, base.signed(x)))
                .collect(),
            Values::F(v) => v
                .into_iter()
                .enumerate()
                .map(|(i, x)| check(i, base.float(x)))
                .collect(),
        }
    }

    /// Elements `first .. first + count` read through the crate (compact data, chunks
    /// wider than the vector), widened to one of four types.
    pub(super) fn crate_values(&self, first: u64, count: u64) -> Result<Values, String> {
        let ds = self
            .file
            .dataset(&self.dataset)
            .map_err(|e| e.to_string())?;
        // A column vector read here is compact: small, read whole.
        let whole = ds.shape().map(|s| s[0] != self.n).unwrap_or(false);
        let window = (first as usize)..(first + count) as usize;
        macro_rules! read {
            ($rows:ident, $all:ident) => {
                if whole {
                    ds.$all().map(|v| v[window.clone()].to_vec())
                } else {
                    ds.$rows(first, count)
                }
                .map_err(|e| e.to_string())?
            };
        }
        // Reads as one type, widened to another.
        macro_rules! read_as {
            ($rows:ident, $all:ident, $to:ty) => {
                read!($rows, $all).into_iter().map(<$to>::from).collect()
            };
        }
        Ok(match self.dtype {
            DType::U32 => Values::U32(read!(read_u32_rows, read_u32)),
            DType::U8 => Values::U(read_as!(read_u8_rows, read_u8, u64)),
            DType::U16 => Values::U(read_as!(read_u16_rows, read_u16, u64)),
            DType::U64 => Values::U(read!(read_u64_rows, read_u64)),
            DType::I8 => Values::I(read_as!(read_i8_rows, read_i8, i64)),
            DType::I16 => Values::I(read_as!(read_i16_rows, read_i16, i64)),
            DType::I32 => Values::I(read_as!(read_i32_rows, read_i32, i64)),
            DType::I64 => Values::I(read!(read_i64_rows, read_i64)),
            DType::F32 => Values::F(read_as!(read_f32_rows, read_f32, f64)),
            _ => Values::F(read!(read_f64_rows, read_f64)),
        })
    }
}

/// Little-endian doubles as little-endian row values, into `out` (resized; a buffer kept
/// between windows is not zeroed again); `false` (and `out` unspecified) when one is not a
/// whole number from 0 to 2^32 - 1. The round trip through `u32` checks that in a loop the
/// compiler vectorises.
fn doubles_to_rows(elements: &[u8], out: &mut Vec<u8>) -> bool {
    let (doubles, _) = elements.as_chunks::<8>();
    out.resize(doubles.len() * 4, 0);
    let (rows, _) = out.as_chunks_mut::<4>();
    let mut whole = true;
    for (r, d) in rows.iter_mut().zip(doubles) {
        let x = f64::from_le_bytes(*d);
        let v = x as u32;
        whole &= v as f64 == x;
        *r = v.to_le_bytes();
    }
    whole
}

/// A window of elements, widened for checking.
pub(super) enum Values {
    U32(Vec<u32>),
    U(Vec<u64>),
    I(Vec<i64>),
    F(Vec<f64>),
}

impl Values {
    /// Elements of type `dtype` stored in `bytes`, in either byte order.
    fn decode(bytes: &[u8], dtype: &DType, big_endian: bool) -> Values {
        macro_rules! each {
            ($t:ty) => {
                bytes.chunks_exact(std::mem::size_of::<$t>()).map(|b| {
                    let b = b.try_into().expect("chunks_exact gives whole elements");
                    if big_endian {
                        <$t>::from_be_bytes(b)
                    } else {
                        <$t>::from_le_bytes(b)
                    }
                })
            };
        }
        match dtype {
            DType::U32 => Values::U32(each!(u32).collect()),
            DType::U8 => Values::U(each!(u8).map(u64::from).collect()),
            DType::U16 => Values::U(each!(u16).map(u64::from).collect()),
            DType::U64 => Values::U(each!(u64).collect()),
            DType::I8 => Values::I(each!(i8).map(i64::from).collect()),
            DType::I16 => Values::I(each!(i16).map(i64::from).collect()),
            DType::I32 => Values::I(each!(i32).map(i64::from).collect()),
            DType::I64 => Values::I(each!(i64).collect()),
            DType::F32 => Values::F(each!(f32).map(f64::from).collect()),
            _ => Values::F(each!(f64).collect()),
        }
    }
}
