//! NumPy `.npy` files (see `formats/npy.md`).
//!
//! Read: a vector of shape `(n,)`, `(n, 1)` or `(1, n)` of any integer or floating dtype in
//! either byte order, memory-mapped and converted segment by segment (`<u4`, what NumPy's
//! `np.uint32` and our writer give, is used in place). npyz parses the header; the data are
//! read here from the map, since npyz reads element by element through `Read`.
//! Written: `<u4`, shape `(n,)`, streamed.

use super::source::{FileBytes, MmapChoice};
use super::{ErrorKind, FormatError, IndexBase, clip, output::AtomicFile};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first bytes of every `.npy` file.
pub(crate) const MAGIC: &[u8] = b"\x93NUMPY";

/// The longest header read (NumPy's own `max_header_size`).
const MAX_HEADER: usize = 10_000;

/// Whether `head` starts like a `.npy` file.
pub(crate) fn sniff(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// How the file stores each value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unsigned,
    Signed,
    Float,
}

/// A `.npy` vector, mapped or read as the caller chose ([`MmapChoice`]).
pub struct NpyFile {
    path: PathBuf,
    bytes: FileBytes,
    offset: usize,
    kind: Kind,
    size: usize,
    big_endian: bool,
    n: u64,
    base: IndexBase,
    /// `(n,)`, `(1, n)` or `(n, 1)`.
    shape: NpyShape,
}

impl NpyFile {
    /// Opens the `.npy` file `file` (at `path`), checking its header, shape and length.
    pub fn open(
        path: &Path,
        file: &std::fs::File,
        mmap: MmapChoice,
        base: IndexBase,
    ) -> Result<NpyFile, FormatError> {
        let fail = |what: String| FormatError::new(path, ErrorKind::Npy(what));
        let read = |e| FormatError::new(path, ErrorKind::Read(e));
        let bytes = FileBytes::open(file, mmap, path).map_err(read)?;
        let file_len = bytes.len();
        let (header, offset) = read_header(&bytes).map_err(|e| match e {
            HeaderError::Read(e) => read(e),
            HeaderError::Bad(what) => fail(what),
        })?;
        let npyz::DType::Plain(ts) = header_dtype(&header) else {
            return Err(fail(format!(
                "dtype {} is a record or array type, expected a number per row",
                clip(&header_dtype(&header).descr())
            )));
        };
        let kind = match ts.type_char() {
            npyz::TypeChar::Uint => Kind::Unsigned,
            npyz::TypeChar::Int => Kind::Signed,
            npyz::TypeChar::Float => Kind::Float,
            npyz::TypeChar::Bool => {
                return Err(fail(format!(
                    "dtype {ts} is bool: a logical array, expected a numeric vector"
                )));
            }
            _ => {
                return Err(fail(format!(
                    "dtype {ts} is not an integer or floating type"
                )));
            }
        };
        let size = ts.size_field() as usize;
        let supported = match kind {
            Kind::Float => matches!(size, 4 | 8),
            _ => matches!(size, 1 | 2 | 4 | 8),
        };
        if !supported {
            return Err(fail(format!("dtype {ts}: {size}-byte values are not read")));
        }
        let shape = header_shape(&header);
        let (n, orientation) = match shape.as_slice() {
            [n] => (*n, NpyShape::Vector),
            [1, n] => (*n, NpyShape::Row),
            [n, 1] => (*n, NpyShape::Column),
            other => {
                return Err(fail(format!(
                    "shape {}, expected a vector (n,), (n, 1) or (1, n)",
                    clip(&format!("{other:?}"))
                )));
            }
        };
        if n == 0 {
            return Err(fail("no values: a board has at least one row".into()));
        }
        if n > crate::board::MAX_N {
            return Err(FormatError::new(path, ErrorKind::TooLarge(n)));
        }
        let need = n.checked_mul(size as u64).expect("n <= MAX_N");
        let have = file_len - offset as u64;
        if have != need {
            return Err(FormatError::new(
                path,
                ErrorKind::PayloadSize {
                    actual: have,
                    offset: offset as u64,
                    n,
                    expected: need,
                },
            ));
        }
        Ok(NpyFile {
            path: path.to_path_buf(),
            bytes,
            offset,
            kind,
            size,
            big_endian: ts.endianness() == npyz::Endianness::Big,
            n,
            base,
            shape: orientation,
        })
    }

    /// Whether the file shrank under its map while it was read (see
    /// [`crate::format::fault`]).
    pub(crate) fn faulted(&self) -> bool {
        self.bytes.faulted()
    }

    /// The file's path (as given).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Names the file `path` in messages.
    pub fn set_path(&mut self, path: &Path) {
        self.path = path.to_path_buf();
    }

    /// Number of rows.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The dtype as NumPy writes it, e.g. `<u4`.
    pub fn dtype(&self) -> String {
        descr(self.kind, self.size, self.big_endian)
    }

    /// Rows `first .. first + count` as little-endian `u32` bytes: for `<u4` borrowed from
    /// the map or read into `scratch`, else converted into `scratch`; a value that is no
    /// column number (negative, fractional, NaN, above 2^32 - 1) is an error naming its row.
    pub fn rows<'a>(
        &'a self,
        first: u64,
        count: u64,
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], FormatError> {
        let start = self.offset as u64 + first * self.size as u64;
        let len = count as usize * self.size;
        let read = |e| FormatError::new(&self.path, ErrorKind::Read(e));
        if self.kind == Kind::Unsigned
            && self.size == 4
            && !self.big_endian
            && self.base == IndexBase::One
        {
            return self.bytes.get(start, len, scratch).map_err(read);
        }
        let mut stored = Vec::new();
        let bytes = self.bytes.get(start, len, &mut stored).map_err(read)?;
        scratch.clear();
        scratch.reserve(4 * count as usize);
        for (i, v) in bytes.chunks_exact(self.size).enumerate() {
            let value = self.value(v).map_err(|what| {
                FormatError::new(
                    &self.path,
                    ErrorKind::Npy(format!("row {}: value {what}", first + i as u64 + 1)),
                )
            })?;
            scratch.extend_from_slice(&value.to_le_bytes());
        }
        Ok(scratch)
    }

    /// Drops this process's mapping of the pages of rows `first .. first + count` (see
    /// [`super::NqbFile::release`]).
    pub fn release(&self, first: u64, count: u64) {
        let size = self.size as u64;
        self.bytes
            .release(self.offset as u64 + first * size, count * size);
    }

    /// One stored value as a row value.
    fn value(&self, v: &[u8]) -> Result<u32, String> {
        let mut b = [0u8; 8];
        if self.big_endian {
            b[..self.size].copy_from_slice(v);
            b[..self.size].reverse();
        } else {
            b[..self.size].copy_from_slice(v);
        }
        let wide = match self.kind {
            Kind::Unsigned => self
                .base
                .unsigned(u64::from_le_bytes(b))
                .map_err(|e| e.trim_start_matches("= ").to_string())?,
            Kind::Signed => {
                // Sign-extend from `size` bytes.
                let shift = 64 - 8 * self.size as u32;
                let s = (i64::from_le_bytes(b) << shift) >> shift;
                self.base
                    .signed(s)
                    .map_err(|e| e.trim_start_matches("= ").to_string())?
            }
            Kind::Float => {
                let f = if self.size == 4 {
                    f32::from_le_bytes(b[..4].try_into().unwrap()) as f64
                } else {
                    f64::from_le_bytes(b)
                };
                self.base
                    .float(f)
                    .map_err(|e| e.trim_start_matches("= ").to_string())?
            }
        };
        u32::try_from(wide).map_err(|_| {
            // Named as stored: 0-based, the file's value is one less than the column.
            let stored = if self.base == IndexBase::Zero {
                wide - 1
            } else {
                wide
            };
            format!("{stored} is not a column number")
        })
    }
}

fn header_dtype(h: &npyz::NpyHeader) -> npyz::DType {
    // The header's fields are reached through a reader over no data.
    npyz::NpyFile::with_header(h.clone(), &[][..]).dtype()
}

fn header_shape(h: &npyz::NpyHeader) -> Vec<u64> {
    npyz::NpyFile::with_header(h.clone(), &[][..])
        .shape()
        .to_vec()
}

/// The header of an n-row vector: version 1.0, the dictionary padded with spaces to a
/// multiple of 64 bytes (NumPy's own alignment). Written here rather than by npyz, whose
/// writer cannot move between threads (the output pipeline writes from a worker); npyz reads
/// it back in the tests.
fn header(n: u64, layout: &NpyLayout) -> Vec<u8> {
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        layout.descr(),
        layout.shape_text(n)
    );
    let unpadded = MAGIC.len() + 2 + 2 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// The shape of a `.npy` vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NpyShape {
    /// `(n,)`.
    #[default]
    Vector,
    /// `(1, n)`.
    Row,
    /// `(n, 1)`.
    Column,
}

/// How a `.npy` answer stores its values: by default `<u4`, `(n,)`, 1-based; an answer to
/// a `.npy` input keeps the input's dtype, byte order, shape and index base (as NumPy code
/// reading it back expects), widened where the dtype cannot hold the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NpyLayout {
    kind: Kind,
    size: usize,
    big_endian: bool,
    shape: NpyShape,
    /// Columns 0..n-1, -1 for an empty row.
    zero_based: bool,
}

impl Default for NpyLayout {
    fn default() -> NpyLayout {
        NpyLayout {
            kind: Kind::Unsigned,
            size: 4,
            big_endian: false,
            shape: NpyShape::Vector,
            zero_based: false,
        }
    }
}

impl NpyLayout {
    /// The layout `n` rows written like `input` need: its dtype when that holds 1..n (or
    /// -1..n-1, 0-based), else the narrowest of its kind that does (signed for 0-based
    /// columns in an unsigned dtype, which cannot hold -1).
    pub(crate) fn of(input: &NpyFile, n: u64) -> NpyLayout {
        let zero_based = input.base == IndexBase::Zero;
        let mut kind = input.kind;
        if zero_based && kind == Kind::Unsigned {
            kind = Kind::Signed;
        }
        let fits = |size: usize| holds(kind, size, largest_value(n, zero_based));
        let sizes: &[usize] = match kind {
            Kind::Float => &[4, 8],
            _ => &[1, 2, 4, 8],
        };
        let size = sizes
            .iter()
            .copied()
            .filter(|&s| s >= input.size)
            .find(|&s| fits(s))
            .unwrap_or(8);
        NpyLayout {
            kind,
            size,
            big_endian: input.big_endian && size > 1,
            shape: input.shape,
            zero_based,
        }
    }

    /// Whether columns are written 0-based (-1 for an empty row).
    pub fn zero_based(&self) -> bool {
        self.zero_based
    }

    /// The same layout with the dtype NumPy calls `name` (`uint8` ... `uint64`, `int8` ...
    /// `int64`, `float32`, `float64`), in this machine's little-endian byte order; `None`
    /// for another name.
    ///
    /// ```
    /// use nqueens::format::NpyLayout;
    /// let layout = NpyLayout::default().with_dtype("int16").unwrap();
    /// assert_eq!(layout.descr(), "<i2");
    /// assert!(NpyLayout::default().with_dtype("complex64").is_none());
    /// ```
    pub fn with_dtype(self, name: &str) -> Option<NpyLayout> {
        let (kind, bits) = if let Some(b) = name.strip_prefix("uint") {
            (Kind::Unsigned, b)
        } else if let Some(b) = name.strip_prefix("int") {
            (Kind::Signed, b)
        } else if let Some(b) = name.strip_prefix("float") {
            (Kind::Float, b)
        } else {
            return None;
        };
        let size = match (kind, bits) {
            (Kind::Float, "32") => 4,
            (Kind::Float, "64") => 8,
            (Kind::Float, _) => return None,
            (_, "8") => 1,
            (_, "16") => 2,
            (_, "32") => 4,
            (_, "64") => 8,
            _ => return None,
        };
        Some(NpyLayout {
            kind,
            size,
            big_endian: false,
            ..self
        })
    }

    /// The same layout with this shape.
    pub fn with_shape(self, shape: NpyShape) -> NpyLayout {
        NpyLayout { shape, ..self }
    }

    /// The same layout, 0-based (-1 for an empty row) or 1-based (0 for an empty row).
    pub fn with_zero_based(self, zero_based: bool) -> NpyLayout {
        NpyLayout { zero_based, ..self }
    }

    /// Why this layout cannot hold the columns of an `n`-row board, if it cannot.
    pub fn refusal(&self, n: u64) -> Option<String> {
        let dtype = self.descr();
        if self.zero_based && self.kind == Kind::Unsigned {
            return Some(format!(
                "{dtype} is unsigned: 0-based columns need -1 for an empty row"
            ));
        }
        let fits = holds(self.kind, self.size, largest_value(n, self.zero_based));
        (!fits).then(|| format!("{dtype} cannot hold the columns of a board of {n} rows"))
    }

    /// The dtype as NumPy writes it (`<u4`, `>i8`, `|u1`).
    pub fn descr(&self) -> String {
        descr(self.kind, self.size, self.big_endian)
    }

    /// The shape of `n` rows, as the header writes it.
    fn shape_text(&self, n: u64) -> String {
        match self.shape {
            NpyShape::Vector => format!("({n},)"),
            NpyShape::Row => format!("(1, {n})"),
            NpyShape::Column => format!("({n}, 1)"),
        }
    }

    /// Row value `v` (1-based, 0 empty) as stored.
    fn encode(&self, v: u32, out: &mut Vec<u8>) {
        let x: i64 = if self.zero_based {
            v as i64 - 1
        } else {
            v as i64
        };
        let mut bytes = [0u8; 8];
        let le: &[u8] = match (self.kind, self.size) {
            (Kind::Float, 4) => {
                bytes[..4].copy_from_slice(&(x as f32).to_le_bytes());
                &bytes[..4]
            }
            (Kind::Float, _) => {
                bytes.copy_from_slice(&(x as f64).to_le_bytes());
                &bytes[..8]
            }
            (_, size) => {
                bytes.copy_from_slice(&x.to_le_bytes());
                &bytes[..size]
            }
        };
        if self.big_endian {
            out.extend(le.iter().rev());
        } else {
            out.extend_from_slice(le);
        }
    }
}

/// The largest column value an `n`-row answer holds: n, or n - 1 written 0-based.
fn largest_value(n: u64, zero_based: bool) -> u64 {
    if zero_based { n.saturating_sub(1) } else { n }
}

/// Whether a dtype of `kind` and `size` bytes holds every value up to `largest` (and -1,
/// for a signed or float one).
fn holds(kind: Kind, size: usize, largest: u64) -> bool {
    match kind {
        Kind::Unsigned => size >= 8 || largest < 1u64 << (8 * size),
        Kind::Signed => size >= 8 || largest < 1u64 << (8 * size - 1),
        // Exact integers up to 2^24 (f4) and 2^53 (f8).
        Kind::Float => largest <= 1 << if size >= 8 { 53 } else { 24 },
    }
}

/// A dtype as NumPy writes it in a header (`<u4`, `>i8`, `|u1`).
fn descr(kind: Kind, size: usize, big_endian: bool) -> String {
    let order = if size == 1 {
        '|'
    } else if big_endian {
        '>'
    } else {
        '<'
    };
    let c = match kind {
        Kind::Unsigned => 'u',
        Kind::Signed => 'i',
        Kind::Float => 'f',
    };
    format!("{order}{c}{size}")
}

/// Writes an n-row vector laid out as an [`NpyLayout`] says.
pub struct NpyWriter {
    file: AtomicFile,
    out: std::io::BufWriter<std::fs::File>,
    n: u64,
    written: u64,
    layout: NpyLayout,
    scratch: Vec<u8>,
}

impl NpyWriter {
    /// Starts a file at `dest` for `n` rows laid out as `layout` says.
    pub fn create(dest: &Path, n: u64, layout: NpyLayout) -> Result<NpyWriter, FormatError> {
        let fail = |e| FormatError::new(dest, ErrorKind::Write(e));
        let mut file = AtomicFile::create(dest)?;
        let mut out =
            std::io::BufWriter::with_capacity(1 << 20, file.file().try_clone().map_err(fail)?);
        out.write_all(&header(n, &layout)).map_err(fail)?;
        Ok(NpyWriter {
            file,
            out,
            n,
            written: 0,
            layout,
            scratch: Vec::new(),
        })
    }

    /// Appends rows.
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        self.written += rows.len() as u64;
        let fail = |e| FormatError::new(self.file.dest(), ErrorKind::Write(e));
        if self.layout == NpyLayout::default() {
            let bytes = super::le::to_bytes(rows);
            return self.out.write_all(&bytes).map_err(fail);
        }
        self.scratch.clear();
        for &v in rows {
            self.layout.encode(v, &mut self.scratch);
        }
        self.out.write_all(&self.scratch).map_err(fail)
    }

    /// Completes the file; returns it unpublished.
    pub fn finish(mut self) -> Result<AtomicFile, FormatError> {
        let dest = self.file.dest().to_path_buf();
        if self.written != self.n {
            return Err(FormatError::new(
                &dest,
                ErrorKind::Mismatch(format!("{} rows written for n = {}", self.written, self.n)),
            ));
        }
        self.out
            .flush()
            .map_err(|e| FormatError::new(&dest, ErrorKind::Write(e)))?;
        Ok(self.file)
    }
}

/// Why the header could not be read.
enum HeaderError {
    Read(std::io::Error),
    Bad(String),
}

/// Deepest nesting of brackets a header may have. A plain array's header is a dict holding
/// a shape tuple (depth 2); structured dtypes, which are refused anyway, go a little deeper.
/// npyz's parser takes time that doubles with each level of nested lists, and memory that
/// grows with nested dicts: a hostile header is refused before it sees it.
const MAX_NESTING: usize = 8;

/// Checks that brackets (`(`, `[`, `{`) outside string literals nest at most `max` deep.
fn nesting_within(text: &[u8], max: usize) -> Result<(), String> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    for (i, &b) in text.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    if depth > max {
                        return Err(format!(
                            "bad header: brackets nested deeper than {max} at header byte {i}"
                        ));
                    }
                }
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    Ok(())
}

/// The parsed header and where the data begins. npyz allocates the header length it reads
/// before reading the header: the length is checked against the file (and NumPy's own
/// limit) first, and npyz is given only the header's bytes.
fn read_header(bytes: &FileBytes) -> Result<(npyz::NpyHeader, usize), HeaderError> {
    let file_len = bytes.len();
    let map = bytes
        .to_vec(0, file_len.min(12) as usize)
        .map_err(HeaderError::Read)?;
    let bad = |what: String| HeaderError::Bad(what);
    let (preamble, len_bytes) = match map.get(6..8) {
        Some([1, 0]) => (10, 2),
        Some([2 | 3, 0]) => (12, 4),
        Some(v) => {
            return Err(bad(format!(
                "unknown format version {}.{} at offset 6",
                v[0], v[1]
            )));
        }
        None => return Err(bad(format!("truncated header: {file_len} bytes"))),
    };
    let Some(len) = map.get(8..8 + len_bytes) else {
        return Err(bad(format!("truncated header: {file_len} bytes")));
    };
    let mut le = [0u8; 4];
    le[..len_bytes].copy_from_slice(len);
    let header_len = u32::from_le_bytes(le) as usize;
    if header_len > MAX_HEADER {
        return Err(bad(format!(
            "header length {header_len} at offset 8 is above NumPy's limit ({MAX_HEADER})"
        )));
    }
    if (preamble + header_len) as u64 > file_len {
        return Err(bad(format!(
            "header length {header_len} at offset 8 runs past the file ({file_len} bytes)"
        )));
    }
    let offset = preamble + header_len;
    let head = bytes.to_vec(0, offset).map_err(HeaderError::Read)?;
    nesting_within(&head[preamble..], MAX_NESTING).map_err(bad)?;
    let mut rest: &[u8] = &head;
    let header = npyz::NpyHeader::from_reader(&mut rest).map_err(|e| {
        // npyz's parse errors span several lines (a caret under the text): one line here.
        let text = e.to_string();
        let text: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        // It may quote the header, up to 10,000 bytes: cut short, and its control bytes
        // (an escape, a vertical tab) escaped, so that none reaches a terminal.
        let text = super::escaped(&text.join(" "));
        let cut = text.char_indices().nth(160).map_or(text.len(), |(i, _)| i);
        let more = if cut < text.len() { "\u{2026}" } else { "" };
        bad(format!("bad header: {}{more}", &text[..cut]))
    })?;
    if !rest.is_empty() {
        return Err(bad("bad header: its length and its text disagree".into()));
    }
    Ok((header, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_header_is_what_npyz_reads_and_is_aligned() {
        for n in [1u64, 8, 1_000_000, 4_294_967_295] {
            let h = header(n, &NpyLayout::default());
            assert_eq!(h.len() % 64, 0, "{n}");
            let mut rest = &h[..];
            let parsed = npyz::NpyHeader::from_reader(&mut rest).unwrap();
            assert!(rest.is_empty());
            assert_eq!(header_shape(&parsed), vec![n]);
            assert_eq!(header_dtype(&parsed).descr(), "'<u4'");
        }
    }
}
