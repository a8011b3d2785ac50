//! MATLAB Level 5 MAT files (MATLAB's `-v6` and `-v7`, SciPy's `savemat`, Octave's
//! `-mat`): read one numeric vector, write a `uint32` vector `Q`. The subset is documented in
//! `formats/mat.md`.
//!
//! Hand-written over flate2 because no maintained crate reads SciPy-written files correctly
//! and streams large variables; the format is small: a 128-byte header, then tagged elements
//! (u32 type, u32 byte count, data padded to 8 bytes; elements of at most 4 bytes are packed
//! into the tag), with miCOMPRESSED elements holding one zlib stream of a whole miMATRIX.

use super::{AtomicFile, ErrorKind, FormatError, IndexBase};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

const MI_INT8: u32 = 1;
const MI_UINT8: u32 = 2;
const MI_INT16: u32 = 3;
const MI_UINT16: u32 = 4;
const MI_INT32: u32 = 5;
const MI_UINT32: u32 = 6;
const MI_SINGLE: u32 = 7;
const MI_DOUBLE: u32 = 9;
const MI_INT64: u32 = 12;
const MI_UINT64: u32 = 13;
const MI_MATRIX: u32 = 14;
const MI_COMPRESSED: u32 = 15;

/// The largest variable MATLAB writes in a v5/v7 file.
pub(crate) const MAX_VARIABLE_BYTES: u64 = (1 << 31) - 1;

/// What a file's first bytes say about MAT.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Sniff {
    /// A Level 5 file (v5/v6/v7).
    Level5,
    /// An HDF5-based v7.3 file.
    V73,
    /// The MAT header text, but fewer than 128 bytes.
    Truncated,
    /// Not MAT.
    No,
}

/// Recognises a MAT file from its first bytes (at least 128 when there are).
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    const HDF5_SIGNATURE: &[u8] = b"\x89HDF\r\n\x1a\n";
    if head.starts_with(HDF5_SIGNATURE) {
        // Plain HDF5 (Octave's `save -hdf5`, h5py): read like v7.3, which is HDF5 too.
        return Sniff::V73;
    }
    if head.len() < 128 {
        return if head.starts_with(b"MATLAB") {
            Sniff::Truncated
        } else {
            Sniff::No
        };
    }
    match (&head[124..126], &head[126..128]) {
        ([0x00, 0x01], b"IM") | ([0x01, 0x00], b"MI") => Sniff::Level5,
        ([0x00, 0x02], b"IM") | ([0x02, 0x00], b"MI") => Sniff::V73,
        _ if head.starts_with(HDF5_SIGNATURE) => Sniff::V73,
        _ if head.starts_with(b"MATLAB 5.0 MAT-file") => Sniff::Level5,
        _ => Sniff::No,
    }
}

/// A byte reader in the file's byte order, with offsets for error messages.
struct Cursor<'a> {
    bytes: &'a [u8],
    big: bool,
    /// Offset of `bytes[0]` in the file (or in the decompressed stream, with `inside`).
    base: u64,
    inside: Option<u64>,
    /// The bytes are only the first part of the stream (a compressed element's headers):
    /// elements may run past them, and are checked when their data is read.
    partial: bool,
}

impl Cursor<'_> {
    fn at(&self, pos: usize) -> String {
        match self.inside {
            Some(c) => format!(
                "offset {} of the compressed element at offset {c}",
                self.base + pos as u64
            ),
            None => format!("offset {}", self.base + pos as u64),
        }
    }

    fn u32(&self, pos: usize) -> Result<u32, String> {
        let b: [u8; 4] = self
            .bytes
            .get(pos..pos + 4)
            .ok_or_else(|| format!("truncated at {}", self.at(pos)))?
            .try_into()
            .unwrap();
        Ok(if self.big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }

    /// The element at `pos`: (type, data range, position after it).
    fn element(
        &self,
        pos: usize,
        padded: bool,
    ) -> Result<(u32, std::ops::Range<usize>, usize), String> {
        let first = self.u32(pos)?;
        if first >> 16 != 0 {
            // Small element: byte count in the upper half, data in the tag's second word.
            let len = (first >> 16) as usize;
            if len > 4 {
                return Err(format!(
                    "small element at {} claims {len} bytes (at most 4)",
                    self.at(pos)
                ));
            }
            return Ok((first & 0xffff, pos + 4..pos + 4 + len, pos + 8));
        }
        let len = self.u32(pos + 4)? as usize;
        let start = pos + 8;
        let remain = self.bytes.len().saturating_sub(start);
        if len > remain && !self.partial {
            return Err(format!(
                "element at {} claims {len} bytes but only {remain} remain",
                self.at(pos)
            ));
        }
        let end = start + len;
        let next = if padded { (end + 7) & !7 } else { end };
        Ok((first, start..end, next))
    }
}

/// One variable found in the file.
struct Variable {
    name: String,
    class: u8,
    flags: u32,
    dims: Vec<u64>,
    data_type: u32,
    data: DataSource,
    big: bool,
    offset: String,
}

/// The values of a compressed variable, then the rest of its zlib stream: the stream's
/// Adler-32 checksum is at its very end, and flate2 checks it only when the stream is read
/// to there. Reading stops at the values otherwise, leaving the checksum unchecked.
struct ToStreamEnd<'a> {
    values: std::io::Take<flate2::read::ZlibDecoder<&'a [u8]>>,
    drained: bool,
}

impl Read for ToStreamEnd<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let got = self.values.read(buf)?;
        if got == 0 && !buf.is_empty() && !self.drained {
            self.drained = true;
            std::io::copy(self.values.get_mut(), &mut std::io::sink())?;
        }
        Ok(got)
    }
}

/// Where a variable's values are: bytes `range` of the file, or of the inflated stream of
/// the compressed element at `compressed` (its offset and its bytes in the file).
#[derive(Clone)]
struct DataSource {
    compressed: Option<(usize, std::ops::Range<usize>)>,
    range: std::ops::Range<usize>,
}

/// Inflated bytes read from the front of a compressed element to find its headers.
const HEADERS: u64 = 1 << 16;

/// Values converted per step while streaming a variable.
const STEP_BYTES: usize = 1 << 20;

fn corrupt(pos: usize, e: std::io::Error) -> String {
    format!("corrupt zlib stream in the element at offset {pos}: {e}")
}

fn class_name(class: u8) -> &'static str {
    match class {
        1 => "cell",
        2 => "struct",
        3 => "object",
        4 => "char",
        5 => "sparse",
        6 => "double",
        7 => "single",
        8 => "int8",
        9 => "uint8",
        10 => "int16",
        11 => "uint16",
        12 => "int32",
        13 => "uint32",
        14 => "int64",
        15 => "uint64",
        _ => "unknown class",
    }
}

impl Variable {
    fn numeric(&self) -> bool {
        (6..=15).contains(&self.class) && self.flags & 0x800 == 0
    }

    fn vector(&self) -> bool {
        self.dims.len() == 2 && (self.dims[0] == 1 || self.dims[1] == 1)
    }

    fn describe(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        let complex = if self.flags & 0x800 != 0 {
            " complex"
        } else {
            ""
        };
        format!(
            "{} ({}{complex}, {})",
            self.name,
            class_name(self.class),
            dims.join("x")
        )
    }

    /// The values as little-endian `u32` row bytes, checked to be integers in 0..=n,
    /// streamed from `file` (inflated step by step for a compressed variable).
    fn rows(&self, file: &[u8], base: IndexBase) -> Result<Vec<u8>, String> {
        let (n, size) = self.vector_shape()?;
        let short = |got: u64| {
            format!(
                "variable {}: data holds {got} bytes at {}, but {n} values of {size} bytes need {}",
                self.name,
                self.offset,
                n * size as u64
            )
        };
        let mut reader = self.values(file, &short)?;
        let pos = self.data.compressed.as_ref().map_or(0, |c| c.0);
        // Grown as values arrive: the declared size of a compressed variable is unchecked.
        let mut out = Vec::with_capacity((4 * n as usize).min(1 << 26));
        let mut buf = vec![0u8; STEP_BYTES];
        let mut i = 0u64;
        while i < n {
            let want = ((n - i) as usize * size).min(STEP_BYTES);
            let mut got = 0;
            while got < want {
                match reader.read(&mut buf[got..want]) {
                    Ok(0) => return Err(short(i * size as u64 + got as u64)),
                    Ok(k) => got += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(corrupt(pos, e)),
                }
            }
            for c in buf[..want].chunks_exact(size) {
                i += 1;
                out.extend_from_slice(&self.row(i, c, base)?.to_le_bytes());
            }
        }
        // One more read reaches the end of a compressed variable's stream, which checks
        // its Adler-32 checksum (see ToStreamEnd).
        reader.read(&mut [0u8; 1]).map_err(|e| corrupt(pos, e))?;
        Ok(out)
    }

    /// The length and element size of a real numeric vector whose data is as long as its
    /// dimensions say, or why the variable is none.
    fn vector_shape(&self) -> Result<(u64, usize), String> {
        if !(6..=15).contains(&self.class) {
            return Err(format!(
                "variable {} is a {} array, expected a numeric vector",
                self.name,
                class_name(self.class)
            ));
        }
        if self.flags & 0x800 != 0 {
            return Err(format!(
                "variable {} is complex, expected real values",
                self.name
            ));
        }
        if !self.vector() {
            let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
            return Err(format!(
                "variable {} is a {} matrix, expected a 1xN or Nx1 vector",
                self.name,
                dims.join("x")
            ));
        }
        // A vector of i32 dimensions: the product is its one dimension other than 1.
        let n: u64 = self.dims.iter().product();
        if n == 0 {
            let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
            return Err(format!(
                "variable {} is empty ({})",
                self.name,
                dims.join("x")
            ));
        }
        let size = match self.data_type {
            MI_INT8 | MI_UINT8 => 1,
            MI_INT16 | MI_UINT16 => 2,
            MI_INT32 | MI_UINT32 | MI_SINGLE => 4,
            MI_DOUBLE | MI_INT64 | MI_UINT64 => 8,
            t => {
                return Err(format!(
                    "variable {}: unsupported element type {t} at {}",
                    self.name, self.offset
                ));
            }
        };
        let declared = self.data.range.len() as u64;
        if declared != n * size as u64 {
            return Err(format!(
                "variable {}: data holds {declared} bytes at {}, but {n} values of {size} bytes need {}",
                self.name,
                self.offset,
                n * size as u64
            ));
        }
        if n > crate::board::MAX_N {
            return Err(format!(
                "variable {}: {n} values, more than a board has",
                self.name
            ));
        }
        Ok((n, size))
    }

    /// A reader of the data's bytes: a slice of `file`, or the variable's part of its
    /// inflated element. `short` says how little there was when the element ends early.
    fn values<'f>(
        &self,
        file: &'f [u8],
        short: &dyn Fn(u64) -> String,
    ) -> Result<Box<dyn Read + 'f>, String> {
        Ok(match &self.data.compressed {
            None => Box::new(&file[self.data.range.clone()]),
            Some((pos, element)) => {
                let mut z = flate2::read::ZlibDecoder::new(&file[element.clone()]);
                let skip = self.data.range.start as u64;
                let skipped = std::io::copy(&mut (&mut z).take(skip), &mut std::io::sink())
                    .map_err(|e| corrupt(*pos, e))?;
                if skipped < skip {
                    return Err(short(0));
                }
                Box::new(ToStreamEnd {
                    values: z.take(self.data.range.len() as u64),
                    drained: false,
                })
            }
        })
    }

    /// Row `i`'s (1-based) column from its element bytes `c`.
    fn row(&self, i: u64, c: &[u8], base: IndexBase) -> Result<u32, String> {
        let mut b = [0u8; 8];
        let w = if self.big {
            b[8 - c.len()..].copy_from_slice(c);
            u64::from_be_bytes(b)
        } else {
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        };
        let value: Result<u64, String> = match self.data_type {
            MI_UINT8 | MI_UINT16 | MI_UINT32 | MI_UINT64 => base.unsigned(w),
            MI_INT8 => base.signed(w as u8 as i8 as i64),
            MI_INT16 => base.signed(w as u16 as i16 as i64),
            MI_INT32 => base.signed(w as u32 as i32 as i64),
            MI_INT64 => base.signed(w as i64),
            MI_SINGLE => base.float(f32::from_bits(w as u32) as f64),
            _ => base.float(f64::from_bits(w)),
        };
        let v = value.map_err(|e| format!("{}({i}) {e}", self.name))?;
        // A value above n is the verifier's to report (exit 1, as for every format); only
        // a value no row can hold is unreadable.
        u32::try_from(v)
            .map_err(|_| format!("{}({i}) = {v} does not fit a column number", self.name))
    }
}

/// The variable in the miMATRIX element at `range` of `c`; `compressed` is the file range
/// of the compressed element `c` was inflated from, if any.
fn parse_matrix(
    c: &Cursor,
    range: std::ops::Range<usize>,
    compressed: std::ops::Range<usize>,
) -> Result<Variable, String> {
    let (t, flags, mut pos) = c.element(range.start, true)?;
    if t != MI_UINT32 || flags.len() != 8 {
        return Err(format!("array flags missing at {}", c.at(range.start)));
    }
    let flags = c.u32(flags.start)?;
    let class = (flags & 0xff) as u8;
    let (t, dims_range, next) = c.element(pos, true)?;
    if t != MI_INT32 {
        return Err(format!("dimensions missing at {}", c.at(pos)));
    }
    // miINT32 dimensions: a negative one is malformed (found by AFL++: it wrapped to 2^64).
    let dims: Vec<u64> = dims_range
        .clone()
        .step_by(4)
        .map(|p| {
            let d = c.u32(p)? as i32;
            u64::try_from(d).map_err(|_| format!("negative dimension {d} at {}", c.at(p)))
        })
        .collect::<Result<_, _>>()?;
    pos = next;
    let (t, name_range, next) = c.element(pos, true)?;
    if t != MI_INT8 {
        return Err(format!("array name missing at {}", c.at(pos)));
    }
    let name = String::from_utf8_lossy(
        c.bytes
            .get(name_range)
            .ok_or_else(|| format!("array name runs past the headers at {}", c.at(pos)))?,
    )
    .into_owned();
    pos = next;
    let (data_type, data, offset) = if (6..=15).contains(&class) && pos < range.end {
        let (t, data, _) = c.element(pos, true)?;
        (t, data, c.at(pos))
    } else {
        (0, 0..0, c.at(pos))
    };
    let data = DataSource {
        compressed: c.inside.map(|p| (p as usize, compressed)),
        range: data,
    };
    Ok(Variable {
        name,
        class,
        flags,
        dims,
        data_type,
        data,
        big: c.big,
        offset,
    })
}

/// Reads the rows of variable `var` (or of the only numeric vector) from a Level 5 file, as
/// little-endian `u32` row bytes. Compressed variables are inflated twice: their headers
/// first, then the chosen one's values step by step, so memory holds the rows only.
pub(crate) fn read(
    path: &Path,
    bytes: &[u8],
    var: Option<&str>,
    base: IndexBase,
) -> Result<(Vec<u8>, super::MatSource), FormatError> {
    let fail = |m: String| FormatError::new(path, ErrorKind::Mat(m));
    if bytes.len() < 128 {
        return Err(fail(format!(
            "truncated header: {} of 128 bytes",
            bytes.len()
        )));
    }
    let big = &bytes[126..128] == b"MI";
    let file = Cursor {
        bytes,
        big,
        base: 0,
        inside: None,
        partial: false,
    };
    let mut vars = Vec::new();
    let mut pos = 128;
    while pos + 8 <= bytes.len() {
        let (t, range, next) = file.element(pos, true).map_err(&fail)?;
        match t {
            MI_MATRIX => vars.push(parse_matrix(&file, range, 0..0).map_err(&fail)?),
            MI_COMPRESSED => {
                let mut head = Vec::new();
                flate2::read::ZlibDecoder::new(&bytes[range.clone()])
                    .take(HEADERS)
                    .read_to_end(&mut head)
                    .map_err(|e| fail(corrupt(pos, e)))?;
                let inner = Cursor {
                    bytes: &head,
                    big,
                    base: 0,
                    inside: Some(pos as u64),
                    partial: true,
                };
                let (t, r, _) = inner.element(0, true).map_err(&fail)?;
                if t == MI_MATRIX {
                    vars.push(parse_matrix(&inner, r, range.clone()).map_err(&fail)?);
                }
                // Compressed elements are not padded.
                pos = range.end;
                continue;
            }
            _ => {}
        }
        pos = next;
    }
    // MATLAB and scipy keep the last of two variables of one name; a reader that keeps
    // the first reads another board. Neither is safe to guess.
    for (i, v) in vars.iter().enumerate() {
        if vars[..i].iter().any(|w| w.name == v.name) {
            return Err(fail(format!(
                "two variables named {}: which one is meant is ambiguous",
                v.name
            )));
        }
    }
    let chosen = match var {
        Some(name) => vars.iter().find(|v| v.name == name).ok_or_else(|| {
            fail(format!(
                "no variable named {name}; the file holds: {}",
                list(&vars)
            ))
        })?,
        // A workspace saved whole: the composition is conventionally `Q`.
        None if vars.iter().any(|v| v.name == "Q") => {
            vars.iter().find(|v| v.name == "Q").expect("just found")
        }
        None => {
            let vectors: Vec<&Variable> =
                vars.iter().filter(|v| v.numeric() && v.vector()).collect();
            match vectors.as_slice() {
                [one] => *one,
                [] if vars.len() == 1 => &vars[0],
                [] => {
                    return Err(fail(format!(
                        "no numeric vector; the file holds: {}",
                        list(&vars)
                    )));
                }
                _ => {
                    return Err(fail(format!(
                        "several numeric vectors, choose one with --var: {}",
                        list(&vars)
                    )));
                }
            }
        }
    };
    let rows = chosen.rows(bytes, base).map_err(fail)?;
    // Read: a numeric class, 6 (double) to 15 (uint64) in MATLAB's order.
    let class = super::MatClass::ALL[chosen.class as usize - 6];
    let dim = |i: usize| chosen.dims.get(i).copied().unwrap_or(1);
    let layout = super::MatLayout::found(&chosen.name, class, dim(0), dim(1));
    let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
    Ok((rows, super::MatSource::among(layout, &chosen.name, &names)))
}

fn list(vars: &[Variable]) -> String {
    if vars.is_empty() {
        return "no variables".into();
    }
    vars.iter()
        .map(Variable::describe)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether an n-row vector of `class` fits in a Level 5 variable.
pub(crate) fn fits(n: u64, class: super::MatClass) -> bool {
    (class.size() as u64).saturating_mul(n).saturating_add(64) <= MAX_VARIABLE_BYTES
}

/// The element type that stores a class's values.
fn data_type(class: super::MatClass) -> u32 {
    use super::MatClass as C;
    match class {
        C::Double => MI_DOUBLE,
        C::Single => MI_SINGLE,
        C::Int8 => MI_INT8,
        C::UInt8 => MI_UINT8,
        C::Int16 => MI_INT16,
        C::UInt16 => MI_UINT16,
        C::Int32 => MI_INT32,
        C::UInt32 => MI_UINT32,
        C::Int64 => MI_INT64,
        C::UInt64 => MI_UINT64,
    }
}

/// Writes one vector laid out as a [`MatLayout`](super::MatLayout) says in a Level 5 file,
/// row by row; with `compress`, as one miCOMPRESSED element (MATLAB's default `-v7`).
pub struct MatWriter {
    file: AtomicFile,
    body: Body,
    n: u64,
    written: u64,
    class: super::MatClass,
    bytes: Vec<u8>,
}

enum Body {
    Plain(std::io::BufWriter<std::fs::File>),
    Compressed(super::zlib::ZlibWriter<std::io::BufWriter<std::fs::File>>),
}

impl MatWriter {
    /// Starts a file at `dest` for `n` rows.
    pub fn create(
        dest: &Path,
        n: u64,
        layout: super::MatLayout,
        compress: bool,
    ) -> Result<MatWriter, FormatError> {
        let fail = |p| FormatError::new(dest, p);
        let class = layout.class;
        let data_bytes = class.size() as u64 * n;
        if !fits(n, class) {
            return Err(fail(ErrorKind::Mat(format!(
                "n = {n} needs {data_bytes} bytes as {class}, more than a v5/v7 variable holds (2^31); write v7.3 or NQB instead"
            ))));
        }
        if let Some(why) = class.refusal(n) {
            return Err(fail(ErrorKind::Mat(format!("class {why}"))));
        }
        let mut file = AtomicFile::create(dest)?;
        let mut header = format!(
            "MATLAB 5.0 MAT-file, Platform: nqueens {}, Created by: nqueens",
            env!("CARGO_PKG_VERSION")
        )
        .into_bytes();
        header.resize(116, b' ');
        header.extend_from_slice(&[0u8; 8]);
        header.extend_from_slice(&0x0100u16.to_le_bytes());
        header.extend_from_slice(b"IM");
        let mut matrix = Vec::new();
        let padded = (data_bytes + 7) & !7;
        let name_bytes = layout.name.as_str().as_bytes();
        let name_padded = (name_bytes.len().max(1) + 7) & !7;
        let body_len = 16 + 16 + 8 + name_padded as u64 + 8 + padded;
        put(&mut matrix, MI_MATRIX, body_len as u32);
        put(&mut matrix, MI_UINT32, 8);
        // Classes 6 (double) to 15 (uint64), in MATLAB's order.
        let class_code = super::MatClass::ALL
            .iter()
            .position(|&c| c == class)
            .expect("every class is listed") as u32
            + 6;
        put(&mut matrix, class_code, 0);
        put(&mut matrix, MI_INT32, 8);
        let [rows, columns] = layout.dims(n);
        put(&mut matrix, rows as u32, columns as u32);
        put(&mut matrix, MI_INT8, name_bytes.len() as u32);
        matrix.extend_from_slice(name_bytes);
        matrix.resize(matrix.len() + name_padded - name_bytes.len(), 0);
        put(&mut matrix, data_type(class), data_bytes as u32);
        let f = file
            .file()
            .try_clone()
            .map_err(|e| fail(ErrorKind::Write(e)))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
        out.write_all(&header)
            .map_err(|e| fail(ErrorKind::Write(e)))?;
        let body = if compress {
            // Tag with the length patched in `finish`.
            out.write_all(&[0u8; 8])
                .map_err(|e| fail(ErrorKind::Write(e)))?;
            let mut z = super::zlib::ZlibWriter::new(out);
            z.write_all(&matrix)
                .map_err(|e| fail(ErrorKind::Write(e)))?;
            Body::Compressed(z)
        } else {
            out.write_all(&matrix)
                .map_err(|e| fail(ErrorKind::Write(e)))?;
            Body::Plain(out)
        };
        Ok(MatWriter {
            file,
            body,
            n,
            written: 0,
            class,
            bytes: Vec::new(),
        })
    }

    /// Appends rows.
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        self.bytes.clear();
        self.class.extend_le(&mut self.bytes, rows);
        self.written += rows.len() as u64;
        let r = match &mut self.body {
            Body::Plain(w) => w.write_all(&self.bytes),
            Body::Compressed(w) => w.write_all(&self.bytes),
        };
        r.map_err(|e| FormatError::new(self.file.dest(), ErrorKind::Write(e)))
    }

    /// Pads and closes the element; returns the file unpublished.
    pub fn finish(self) -> Result<AtomicFile, FormatError> {
        let dest = self.file.dest().to_path_buf();
        let fail = |e| FormatError::new(&dest, ErrorKind::Write(e));
        if self.written != self.n {
            return Err(FormatError::new(
                &dest,
                ErrorKind::Mismatch(format!("{} rows written for n = {}", self.written, self.n)),
            ));
        }
        let data_bytes = self.class.size() as u64 * self.n;
        let pad = vec![0u8; (data_bytes.next_multiple_of(8) - data_bytes) as usize];
        match self.body {
            Body::Plain(mut w) => {
                w.write_all(&pad).map_err(fail)?;
                w.flush().map_err(fail)?;
            }
            Body::Compressed(mut z) => {
                z.write_all(&pad).map_err(fail)?;
                let mut w = z.finish().map_err(fail)?;
                w.flush().map_err(fail)?;
                let f = w.get_mut();
                let end = f.stream_position().map_err(fail)?;
                let mut tag = Vec::new();
                put(&mut tag, MI_COMPRESSED, (end - 136) as u32);
                f.seek(SeekFrom::Start(128)).map_err(fail)?;
                f.write_all(&tag).map_err(fail)?;
            }
        }
        Ok(self.file)
    }
}

fn put(out: &mut Vec<u8>, a: u32, b: u32) {
    out.extend_from_slice(&a.to_le_bytes());
    out.extend_from_slice(&b.to_le_bytes());
}
