//! Every file format behind one interface: [`Input::open`] recognises a file by its
//! content (then its extension) and reads it by segments; [`RowWriter`] writes any output
//! format atomically.

pub mod csplib;
mod error;
pub mod fault;
mod hdf5_latest;
mod hdf5_v1;
mod input;
pub(crate) mod le;
pub(crate) mod mat4;
pub(crate) mod mat5;
pub(crate) mod mat73;
mod mat_layout;
pub(crate) mod npy;
mod npz;
pub mod nqb;
pub(crate) mod octave;
pub(crate) mod octave_binary;
mod open;
mod output;
mod source;
pub mod text;
mod writer;
mod zlib;

pub use error::{ErrorKind, FormatError};
pub(crate) use error::{clip, listing, quote};
pub use input::{EXCLUDED, Input, OpenOptions, SegmentCache, SegmentSum};
pub use mat_layout::{MatClass, MatLayout, MatSource, VarName};
pub use npy::{NpyLayout, NpyShape};
pub use nqb::{Encoding, Header, NqbFile, NqbWriter};
pub use open::{WRITER_WAIT, open_stream, read_bounded};
pub use output::{
    AtomicFile, OutputPath, STDIO, check_outputs, check_stdout, is_stdio, own_descriptor,
    reads_stdin, redirected_into, writes_stdout,
};
pub(crate) use output::{Destination, Scratch, reserve};
pub use source::MmapChoice;
pub use writer::{OutputFormat, RowWriter};

/// A negative value read as 1-based: -1 is how 0-based code marks an empty row, so it gets
/// the way to read such a file.
fn negative(v: i64) -> String {
    if v == -1 {
        "= -1 is negative: 0-based columns with -1 for an empty row? read them with --zero-based"
            .into()
    } else {
        format!("= {v} is negative")
    }
}

/// How a file numbers its columns: 1..n with 0 for an empty row (this project's convention,
/// MATLAB's and the seed paper's), or 0..n-1 with -1 for an empty row (as NumPy code often
/// holds them). Every reader of numbers turns the file's values into 1-based ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexBase {
    /// Columns 1..n, 0 for an empty row.
    #[default]
    One,
    /// Columns 0..n-1, -1 for an empty row.
    Zero,
}

impl IndexBase {
    /// A stored unsigned value as a 1-based row value.
    pub(crate) fn unsigned(self, v: u64) -> Result<u64, String> {
        match self {
            IndexBase::One => Ok(v),
            IndexBase::Zero => v
                .checked_add(1)
                .ok_or_else(|| format!("= {v} does not fit a column number")),
        }
    }

    /// A stored signed value as a 1-based row value.
    pub(crate) fn signed(self, v: i64) -> Result<u64, String> {
        match self {
            IndexBase::One => u64::try_from(v).map_err(|_| negative(v)),
            IndexBase::Zero if v == -1 => Ok(0),
            IndexBase::Zero => u64::try_from(v)
                .map(|v| v + 1)
                .map_err(|_| format!("= {v} is negative (0-based: -1 marks an empty row)")),
        }
    }

    /// A stored float as a 1-based row value: integral, not NaN, in range.
    pub(crate) fn float(self, v: f64) -> Result<u64, String> {
        if v.is_nan() {
            return Err("is NaN".into());
        }
        if self == IndexBase::Zero && v == -1.0 {
            return Ok(0);
        }
        if v < 0.0 {
            return Err(match self {
                IndexBase::One if v == -1.0 => negative(-1),
                IndexBase::One => format!("= {v} is negative"),
                IndexBase::Zero => format!("= {v} is negative (0-based: -1 marks an empty row)"),
            });
        }
        if v.fract() != 0.0 || !v.is_finite() || v > u32::MAX as f64 {
            return Err(format!("= {v} is not an integer column number"));
        }
        self.unsigned(v as u64)
    }
}

/// The variable a reader of a workspace file reads, by its index in `names` (every
/// variable's name, in the file's order, none twice; `index` maps each to its place):
/// `var` when given, else `Q`, else the only variable `candidate` says is a real numeric
/// vector with elements, else the only variable (so that what is wrong with it is said);
/// otherwise why none, as a message. Only the chosen variable is then checked: a bad
/// variable beside it does not refuse the file.
fn choose_variable(
    names: &[String],
    index: &std::collections::HashMap<String, usize>,
    var: Option<&str>,
    candidate: impl Fn(usize) -> bool,
) -> Result<usize, String> {
    let holds = || listing(names.iter().map(|n| clip(n)));
    if let Some(v) = var {
        return index
            .get(v)
            .copied()
            .ok_or_else(|| format!("no variable named {}; the file holds: {}", clip(v), holds()));
    }
    // A workspace saved whole: the composition is conventionally `Q`.
    if let Some(&q) = index.get("Q") {
        return Ok(q);
    }
    let mut vectors = (0..names.len()).filter(|&i| candidate(i));
    match (vectors.next(), vectors.next()) {
        (Some(one), None) => Ok(one),
        (None, _) if names.len() == 1 => Ok(0),
        (None, _) => Err(format!("no numeric vector; the file holds: {}", holds())),
        (Some(_), Some(_)) => Err(format!(
            "{} numeric vectors, choose one with --var; the file holds: {}",
            2 + vectors.count(),
            holds()
        )),
    }
}

/// Dimensions for messages, `2x3` (`-` for none); cut short when a file lists thousands.
pub(crate) fn dims_text(dims: &[u64]) -> String {
    if dims.is_empty() {
        return "-".into();
    }
    let text = dims
        .iter()
        .take(16)
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join("x");
    if dims.len() > 16 {
        return format!("{text}x\u{2026} ({} dimensions)", dims.len());
    }
    text
}

/// Bytes as space-separated hexadecimal pairs, for messages about a file's first bytes.
fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
