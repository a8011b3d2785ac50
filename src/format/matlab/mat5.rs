//! MATLAB Level 5 MAT files (MATLAB's `-v6` and `-v7`, SciPy's `savemat`, Octave's
//! `-mat`): read one numeric vector, write a `uint32` vector `Q`. The subset is documented in
//! `formats/mat.md`.
//!
//! Hand-written over flate2 because no maintained crate reads SciPy-written files correctly
//! and streams large variables; the format is small: a 128-byte header, then tagged elements
//! (u32 type, u32 byte count, data padded to 8 bytes; elements of at most 4 bytes are packed
//! into the tag), with miCOMPRESSED elements holding one zlib stream of a whole miMATRIX.

use crate::format::source::{Fault, FileBytes, MmapChoice, Pieces, Span, Window, skip};
use crate::format::{
    AtomicFile, ErrorKind, FormatError, IndexBase, clip, dims_text, listing, variables,
};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

/// The array flag that marks a logical array (`mxLOGICAL_FLAG`: MATLAB's `true`, scipy's
/// bool arrays), stored as uint8 values: true/false, never a board's columns.
const LOGICAL: u32 = 0x200;
/// The array flag of complex arrays.
const COMPLEX: u32 = 0x800;

/// Most bytes one byte of a deflate stream inflates to: a length/distance pair coded in two
/// bits stands for at most 258 bytes (about 1032:1). A compressed element declaring more
/// than its bytes can give is refused before anything is sized from it.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// The most a zlib stream of `len` bytes can inflate to (with slack for a stream's own
/// framing).
fn inflatable(len: usize) -> u64 {
    (len as u64)
        .saturating_mul(MAX_DEFLATE_RATIO)
        .saturating_add(1024)
}

/// Variables of at most this many values are read whole when the file is opened (and
/// their faults reported then); longer ones are read window by window, so that a
/// compressed variable of 2^30 values (1 MB of zlib) is never held whole.
pub(crate) const READ_WHOLE_ROWS: u64 = 1 << 22;

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

fn class_name(class: u8, flags: u32) -> &'static str {
    if flags & LOGICAL != 0 {
        return "logical";
    }
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
        (6..=15).contains(&self.class) && self.flags & (COMPLEX | LOGICAL) == 0
    }

    fn vector(&self) -> bool {
        self.dims.len() == 2 && (self.dims[0] == 1 || self.dims[1] == 1)
    }

    /// The name as messages show it.
    fn shown(&self) -> String {
        clip(&self.name)
    }

    fn describe(&self) -> String {
        let complex = if self.flags & COMPLEX != 0 {
            " complex"
        } else {
            ""
        };
        format!(
            "{} ({}{complex}, {})",
            self.shown(),
            class_name(self.class, self.flags),
            dims_text(&self.dims)
        )
    }

    /// The length and element size of a real numeric vector whose data is as long as its
    /// dimensions say, or why the variable is none.
    fn vector_shape(&self) -> Result<(u64, usize), String> {
        let name = self.shown();
        if !(6..=15).contains(&self.class) || self.flags & LOGICAL != 0 {
            return Err(format!(
                "variable {name} is a {} array, expected a numeric vector",
                class_name(self.class, self.flags)
            ));
        }
        if self.flags & COMPLEX != 0 {
            return Err(format!("variable {name} is complex, expected real values"));
        }
        if !self.vector() {
            return Err(format!(
                "variable {name} is a {} matrix, expected a 1xN or Nx1 vector",
                dims_text(&self.dims)
            ));
        }
        // A vector of i32 dimensions: the product is its one dimension other than 1.
        let n: u64 = self.dims.iter().product();
        if n == 0 {
            return Err(format!(
                "variable {name} is empty ({})",
                dims_text(&self.dims)
            ));
        }
        let size = match self.data_type {
            MI_INT8 | MI_UINT8 => 1,
            MI_INT16 | MI_UINT16 => 2,
            MI_INT32 | MI_UINT32 | MI_SINGLE => 4,
            MI_DOUBLE | MI_INT64 | MI_UINT64 => 8,
            t => {
                return Err(format!(
                    "variable {name}: unsupported element type {t} at {}",
                    self.offset
                ));
            }
        };
        let declared = self.data.range.len() as u64;
        if declared != n * size as u64 {
            return Err(format!(
                "variable {name}: data holds {declared} bytes at {}, but {n} values of {size} bytes need {}",
                self.offset,
                n * size as u64
            ));
        }
        if n > crate::board::MAX_N {
            return Err(format!(
                "variable {name}: {n} values, more than a board has"
            ));
        }
        Ok((n, size))
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
        let v = value.map_err(|e| format!("{}({i}) {e}", self.shown()))?;
        // A value above n is the verifier's to report (exit 1, as for every format); only
        // a value no row can hold is unreadable.
        u32::try_from(v)
            .map_err(|_| format!("{}({i}) = {v} does not fit a column number", self.shown()))
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
        // Its size is checked against its array's, which is checked against the file (or
        // against what the compressed element can inflate to).
        if data.end > range.end {
            return Err(format!(
                "the data element at {} runs past the end of its array ({} bytes)",
                c.at(pos),
                range.len()
            ));
        }
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

/// Every variable of a Level 5 file whose bytes are `bytes`. Compressed variables are
/// inflated only as far as their headers; their declared size is checked against what
/// their compressed bytes can inflate to.
fn variables(bytes: &[u8]) -> Result<Vec<Variable>, String> {
    if bytes.len() < 128 {
        return Err(format!("truncated header: {} of 128 bytes", bytes.len()));
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
        let (t, range, next) = file.element(pos, true)?;
        match t {
            MI_MATRIX => vars.push(parse_matrix(&file, range, 0..0)?),
            MI_COMPRESSED => {
                let mut head = Vec::new();
                flate2::read::ZlibDecoder::new(&bytes[range.clone()])
                    .take(HEADERS)
                    .read_to_end(&mut head)
                    .map_err(|e| corrupt(pos, e))?;
                let inner = Cursor {
                    bytes: &head,
                    big,
                    base: 0,
                    inside: Some(pos as u64),
                    partial: true,
                };
                let (t, r, _) = inner.element(0, true)?;
                let most = inflatable(range.len());
                if r.end as u64 > most {
                    return Err(format!(
                        "the compressed element at offset {pos} declares an element of {} bytes, but its {} bytes of zlib inflate to at most {most}",
                        r.len(),
                        range.len()
                    ));
                }
                if t == MI_MATRIX {
                    vars.push(parse_matrix(&inner, r, range.clone())?);
                }
                // Compressed elements are not padded.
                pos = range.end;
                continue;
            }
            _ => {}
        }
        pos = next;
    }
    Ok(vars)
}

/// The variable to read among `vars` ([`variables::choose`]): a numeric vector with
/// elements may be chosen without a name, never a logical or an empty array. The names are
/// indexed once: a file may hold 200,000 variables.
fn choose(vars: &[Variable], var: Option<&str>) -> Result<usize, String> {
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(vars.len());
    for (i, v) in vars.iter().enumerate() {
        if by_name.insert(&v.name, i).is_some() {
            return Err(variables::twice(&v.shown()));
        }
    }
    // An empty array (1x0) is no candidate: refused when chosen, never counted.
    variables::choose(
        vars.len(),
        |n| by_name.get(n).copied(),
        |i| vars[i].numeric() && vars[i].vector() && !vars[i].dims.contains(&0),
        || listing(vars.iter().map(Variable::describe)),
        var,
    )
}

/// The numeric vector a Level 5 file was read for, read window by window: from the file
/// (mapped or read, as the caller chose), or, for a compressed variable, inflated window by
/// window ([`Pieces`]), so that memory holds a few windows, never the variable.
pub struct Mat5File {
    path: PathBuf,
    bytes: Arc<FileBytes>,
    var: Variable,
    n: u64,
    /// Bytes per stored value.
    size: usize,
    base: IndexBase,
    source: super::MatSource,
    inflating: Pieces<flate2::read::ZlibDecoder<Span>>,
}

/// The rows of every window but the last that an [`crate::format::Input`] reads.
const WINDOW_ROWS: u64 = crate::format::nqb::DEFAULT_FRAME_ROWS;

impl Mat5File {
    /// Whether the file shrank under its map while it was read (see
    /// [`crate::format::fault`]).
    pub(crate) fn faulted(&self) -> bool {
        self.bytes.faulted()
    }

    /// Opens variable `var` (default: `Q`, else the only numeric vector) of the Level 5
    /// file `file` at `path`: every variable's headers are read and checked, the chosen
    /// one's values are not.
    pub(crate) fn open(
        path: &Path,
        file: &std::fs::File,
        mmap: MmapChoice,
        var: Option<&str>,
        base: IndexBase,
    ) -> Result<Mat5File, FormatError> {
        let fail = |m: String| FormatError::new(path, ErrorKind::Mat(m));
        let read = |e| FormatError::new(path, ErrorKind::Read(e));
        // Mapped when allowed: then only a window of values is ever held in memory.
        let bytes = Arc::new(FileBytes::open(file, mmap, path).map_err(read)?);
        let (var, names) = {
            let mut whole = Vec::new();
            let all = bytes
                .get(0, bytes.len() as usize, &mut whole)
                .map_err(read)?;
            let mut vars = variables(all).map_err(fail)?;
            let chosen = choose(&vars, var).map_err(fail)?;
            let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
            (vars.swap_remove(chosen), names)
        };
        let (n, size) = var.vector_shape().map_err(fail)?;
        // Read: a numeric class, 6 (double) to 15 (uint64) in MATLAB's order.
        let class = super::MatClass::ALL[var.class as usize - 6];
        let dim = |i: usize| var.dims.get(i).copied().unwrap_or(1);
        let layout = super::MatLayout::found(&var.name, class, dim(0), dim(1));
        let source = super::MatSource::among(layout, &var.name, &names);
        Ok(Mat5File {
            path: path.to_path_buf(),
            bytes,
            var,
            n,
            size,
            base,
            source,
            inflating: Pieces::new(1),
        })
    }

    /// Number of rows (values).
    pub(crate) fn n(&self) -> u64 {
        self.n
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Names the file `path` in messages (for a spooled copy of standard input).
    pub(crate) fn set_path(&mut self, path: &Path) {
        self.path = path.to_path_buf();
    }

    /// The variable's name, class and orientation, and the file's other variables.
    pub(crate) fn source(&self) -> super::MatSource {
        self.source.clone()
    }

    /// Rows `first .. first + count` (0-based) as little-endian `u32` row bytes into `out`,
    /// each checked to be a whole number a row can hold. The window of a compressed
    /// variable that ends it reads on to the end of the zlib stream, which checks the
    /// stream's Adler-32 checksum.
    pub(crate) fn rows_le(
        &self,
        first: u64,
        count: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        let fail = |m: String| FormatError::new(&self.path, ErrorKind::Mat(m));
        let v = &self.var;
        let (n, size) = (self.n, self.size);
        let short = |got: u64| {
            fail(format!(
                "variable {}: data holds {got} bytes at {}, but {n} values of {size} bytes need {}",
                v.shown(),
                v.offset,
                n * size as u64
            ))
        };
        out.clear();
        out.reserve(4 * count as usize);
        let per_step = (STEP_BYTES / size) as u64;
        let start = v.data.range.start as u64 + first * size as u64;
        let mut stored = Vec::new();
        let Some((pos, element)) = &v.data.compressed else {
            let mut i = 0;
            while i < count {
                let take = per_step.min(count - i);
                let bytes = self
                    .bytes
                    .get(start + i * size as u64, take as usize * size, &mut stored)
                    .map_err(|e| FormatError::new(&self.path, ErrorKind::Read(e)))?;
                self.convert(first + i, bytes, out).map_err(fail)?;
                i += take;
            }
            return Ok(());
        };
        let pos = *pos;
        let window = Window {
            stream: 0,
            origin: v.data.range.start as u64,
            at: start,
            len: count as usize * size,
            piece: WINDOW_ROWS as usize * size,
            last: first + count == n,
        };
        let open = || {
            let span = Span::new(self.bytes.clone(), element.start as u64..element.end as u64);
            Ok(flate2::read::ZlibDecoder::new(span))
        };
        // The stream's Adler-32 checksum is at its very end, and flate2 checks it only
        // when the stream is read to there.
        let finish = |z: &mut flate2::read::ZlibDecoder<Span>| {
            skip(z, u64::MAX).map(drop).map_err(Fault::Io)
        };
        match self.inflating.read(&window, open, finish, &mut stored) {
            Ok(()) => {}
            Err(Fault::Short(got)) => {
                return Err(short(got.saturating_sub(window.origin)));
            }
            Err(Fault::Io(e)) => return Err(fail(corrupt(pos, e))),
        }
        self.convert(first, &stored, out).map_err(fail)
    }

    /// Every row, as little-endian `u32` row bytes, read window by window.
    pub(crate) fn read_all(&self) -> Result<Vec<u8>, FormatError> {
        let mut all = Vec::with_capacity(4 * self.n as usize);
        let mut window = Vec::new();
        let mut first = 0;
        while first < self.n {
            let count = WINDOW_ROWS.min(self.n - first);
            self.rows_le(first, count, &mut window)?;
            all.extend_from_slice(&window);
            first += count;
        }
        Ok(all)
    }

    /// Values `bytes`, the first being row `first` (0-based), as row bytes onto `out`.
    fn convert(&self, first: u64, bytes: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        for (i, c) in bytes.chunks_exact(self.size).enumerate() {
            let row = self.var.row(first + i as u64 + 1, c, self.base)?;
            out.extend_from_slice(&row.to_le_bytes());
        }
        Ok(())
    }
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
