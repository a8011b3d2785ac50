//! MAT Level 4, MATLAB's format before version 5 (`save -v4`, scipy's
//! `savemat(..., format='4')`; see `formats/mat.md`). It has no magic: each variable is a
//! 20-byte header of five 32-bit integers (type `MOPT`, rows, columns, imaginary flag,
//! name length), the NUL-terminated name, then rows x columns values in column order.
//! `M` is the byte order (0 little-, 1 big-endian), `P` the value type, `T` 0 for a
//! numeric matrix (1 text, 2 sparse: refused by name).

use crate::format::IndexBase;
use crate::format::{ErrorKind, FormatError, clip, variables};
use std::collections::HashMap;
use std::path::Path;

/// One variable's header.
struct Header {
    big: bool,
    precision: u32,
    kind: u32,
    rows: u64,
    cols: u64,
    complex: bool,
    name_len: u64,
}

fn header(b: &[u8]) -> Option<Header> {
    let word = |i: usize, big: bool| {
        let w: [u8; 4] = b.get(4 * i..4 * i + 4)?.try_into().ok()?;
        Some(if big {
            i32::from_be_bytes(w)
        } else {
            i32::from_le_bytes(w)
        })
    };
    // The type word tells the byte order: read both ways, one gives M = 0 or 1.
    let big = match (word(0, false)?, word(0, true)?) {
        (t, _) if (0..=52).contains(&t) => false,
        (_, t) if (1000..=1052).contains(&t) => true,
        _ => return None,
    };
    let t = word(0, big)? % 1000;
    let (o, p, kind) = (t / 100, (t / 10) % 10, t % 10);
    let dim = |i| word(i, big).and_then(|d| u64::try_from(d).ok());
    let h = Header {
        big,
        precision: p as u32,
        kind: kind as u32,
        rows: dim(1)?,
        cols: dim(2)?,
        complex: match word(3, big)? {
            0 => false,
            1 => true,
            _ => return None,
        },
        name_len: dim(4)?,
    };
    (o == 0 && p <= 5 && kind <= 2 && (1..=64).contains(&h.name_len)).then_some(h)
}

/// Whether `head` starts like a MAT v4 file: a plausible first header followed by its
/// NUL-terminated, printable name.
pub(crate) fn sniff(head: &[u8]) -> bool {
    let Some(h) = header(head) else {
        return false;
    };
    let Some(name) = head.get(20..20 + h.name_len as usize) else {
        return false;
    };
    let (last, text) = name.split_last().expect("name_len >= 1");
    *last == 0 && !text.is_empty() && text.iter().all(|b| b.is_ascii_graphic())
}

/// One variable as its header places it: the header, and where its values lie.
struct Variable {
    h: Header,
    data: std::ops::Range<usize>,
}

impl Variable {
    /// Why it is not a numeric vector (text, sparse, complex, matrix), if it is not.
    fn refusal(&self) -> Option<&'static str> {
        let h = &self.h;
        match (h.kind, h.complex) {
            (1, _) => Some("text"),
            (2, _) => Some("sparse"),
            (_, true) => Some("complex"),
            _ if h.rows != 1 && h.cols != 1 => Some("matrix"),
            _ => None,
        }
    }

    /// Whether it may be chosen without a name: a real numeric vector with elements.
    fn candidate(&self) -> bool {
        self.refusal().is_none() && self.h.rows > 0 && self.h.cols > 0
    }
}

/// The rows and layout of variable `var` (default `Q`, else the only numeric vector).
/// Every variable's header is read and its extent checked; only the chosen variable's
/// values are, so that a bad variable beside it does not refuse the file.
pub(crate) fn parse(
    path: &Path,
    bytes: &[u8],
    var: Option<&str>,
    base: IndexBase,
) -> Result<(Vec<u32>, super::MatSource), FormatError> {
    let fail = |d: String| FormatError::new(path, ErrorKind::Mat(format!("v4: {d}")));
    let mut at = 0usize;
    // Every name, in order, and indexed: a file may hold 200,000 variables.
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut vars = Vec::new();
    while at < bytes.len() {
        let h = header(&bytes[at..])
            .ok_or_else(|| fail(format!("no variable header at offset {at}")))?;
        let name_at = at + 20;
        let name = bytes
            .get(name_at..name_at + h.name_len as usize)
            .ok_or_else(|| fail(format!("the name at offset {name_at} runs past the file")))?;
        let name = String::from_utf8_lossy(name.strip_suffix(&[0]).unwrap_or(name)).into_owned();
        // As messages show it.
        let shown = clip(&name);
        let count = h.rows.checked_mul(h.cols);
        let parts = if h.complex { 2 } else { 1 };
        let data_at = name_at + h.name_len as usize;
        let data_len = count
            .and_then(|c| c.checked_mul(width(&h) * parts))
            .filter(|&l| l <= (bytes.len() - data_at.min(bytes.len())) as u64)
            .ok_or_else(|| {
                fail(format!(
                    "variable {shown} ({} x {}) needs more bytes than the file holds",
                    h.rows, h.cols
                ))
            })?;
        if index.insert(name.clone(), names.len()).is_some() {
            return Err(fail(variables::twice(&shown)));
        }
        names.push(name);
        at = data_at + data_len as usize;
        vars.push(Variable {
            h,
            data: data_at..at,
        });
    }
    let chosen = variables::choose(
        names.len(),
        |n| index.get(n).copied(),
        |i| vars[i].candidate(),
        || variables::names(names.iter().map(String::as_str)),
        var,
    )
    .map_err(fail)?;
    let (v, name) = (&vars[chosen], &names[chosen]);
    let (h, shown) = (&v.h, clip(name));
    if let Some(what) = v.refusal() {
        return Err(fail(format!(
            "variable {shown} is a {what} array ({} x {}), expected a numeric 1xN or Nx1 vector",
            h.rows, h.cols
        )));
    }
    if h.rows == 0 || h.cols == 0 {
        return Err(fail(format!(
            "variable {shown} is empty ({} x {})",
            h.rows, h.cols
        )));
    }
    let mut rows = Vec::with_capacity(v.data.len() / width(h) as usize);
    for (i, b) in bytes[v.data.clone()]
        .chunks_exact(width(h) as usize)
        .enumerate()
    {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        if h.big {
            w[..b.len()].reverse();
        }
        let raw = u64::from_le_bytes(w);
        let v = match h.precision {
            0 => base.float(f64::from_bits(raw)),
            1 => base.float(f32::from_bits(raw as u32) as f64),
            2 => base.signed(raw as u32 as i32 as i64),
            3 => base.signed(raw as u16 as i16 as i64),
            _ => base.unsigned(raw),
        }
        .map_err(|e| fail(format!("{shown}({}) {e}", i + 1)))?;
        rows.push(u32::try_from(v).map_err(|_| {
            fail(format!(
                "{shown}({}) = {v} does not fit a column number",
                i + 1
            ))
        })?);
    }
    // MAT v4 stores a precision, not a class: doubles load as double, the rest as
    // the class of their width.
    let class = match h.precision {
        0 => super::MatClass::Double,
        1 => super::MatClass::Single,
        2 => super::MatClass::Int32,
        3 => super::MatClass::Int16,
        4 => super::MatClass::UInt16,
        _ => super::MatClass::UInt8,
    };
    let layout = super::MatLayout::found(name, class, h.rows, h.cols);
    Ok((rows, super::MatSource::among(layout, name, &names)))
}

/// Bytes per stored value.
fn width(h: &Header) -> u64 {
    match h.precision {
        0 => 8,
        1 | 2 => 4,
        3 | 4 => 2,
        _ => 1,
    }
}
