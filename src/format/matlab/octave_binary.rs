//! Octave's binary format, what `save -binary FILE Q` writes (see `formats/octave.md`):
//! the magic `Octave-1-L` (little-endian) or `Octave-1-B`, one byte naming the float
//! format, then per variable its name, its doc string, a global flag, its type name and
//! its data. The numeric types are read (`matrix`, `scalar`, `float ...` and the integer
//! classes); the layout of other types (strings, cells, structs, logicals) is not, and a
//! file that holds one before the variable asked for is refused by that type's name.

use crate::format::IndexBase;
use crate::format::{ErrorKind, FormatError, clip, quote, variables};
use std::collections::HashMap;
use std::path::Path;

/// The magic of little- and big-endian files.
pub(crate) fn sniff(head: &[u8]) -> bool {
    head.starts_with(b"Octave-1-L") || head.starts_with(b"Octave-1-B")
}

/// Octave's codes for how a double array's values are stored (`save_type`).
fn stored_width(code: u8) -> Option<(usize, Stored)> {
    Some(match code {
        0 => (1, Stored::Unsigned),
        1 => (2, Stored::Unsigned),
        2 => (4, Stored::Unsigned),
        3 => (1, Stored::Signed),
        4 => (2, Stored::Signed),
        5 => (4, Stored::Signed),
        6 => (4, Stored::Float),
        7 => (8, Stored::Float),
        8 => (8, Stored::Unsigned),
        9 => (8, Stored::Signed),
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum Stored {
    Unsigned,
    Signed,
    Float,
}

/// A reader over the file's bytes in its byte order.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    big: bool,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, len: u64, what: &str) -> Result<&'a [u8], String> {
        let left = (self.bytes.len() - self.at) as u64;
        if len > left {
            return Err(format!(
                "{what} at offset {} needs {len} bytes, but {left} remain",
                self.at
            ));
        }
        let s = &self.bytes[self.at..self.at + len as usize];
        self.at += len as usize;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    fn i32(&mut self, what: &str) -> Result<i32, String> {
        let b: [u8; 4] = self.take(4, what)?.try_into().expect("4 bytes");
        Ok(if self.big {
            i32::from_be_bytes(b)
        } else {
            i32::from_le_bytes(b)
        })
    }

    /// A length-prefixed string.
    fn string(&mut self, what: &str) -> Result<&'a [u8], String> {
        let len = self.i32(what)?;
        let len = u64::try_from(len).map_err(|_| format!("{what}: negative length {len}"))?;
        self.take(len, what)
    }

    /// An unsigned or signed integer, or a float, of `width` bytes, as a row value.
    fn value(&mut self, width: usize, stored: Stored, base: IndexBase) -> Result<u64, String> {
        let b = self.take(width as u64, "a value")?;
        let mut w = [0u8; 8];
        if self.big {
            w[8 - width..].copy_from_slice(b);
            w.reverse();
        } else {
            w[..width].copy_from_slice(b);
        }
        // `w` now holds the value little-endian in its low `width` bytes.
        let raw = u64::from_le_bytes(w);
        let sign_extend = |bits: u32| ((raw << (64 - bits)) as i64) >> (64 - bits);
        match stored {
            Stored::Unsigned => base.unsigned(raw),
            Stored::Signed => base.signed(sign_extend(8 * width as u32)),
            Stored::Float if width == 4 => base.float(f32::from_bits(raw as u32) as f64),
            Stored::Float => base.float(f64::from_bits(raw)),
        }
    }

    /// `-ndims` then the dimensions (Octave 3 and later), or rows then columns (older).
    fn dims(&mut self) -> Result<Vec<u64>, String> {
        let first = self.i32("the dimensions")?;
        let dims: Vec<i32> = if first < 0 {
            let d = first.unsigned_abs();
            if d > 64 {
                return Err(format!("{d} dimensions"));
            }
            (0..d)
                .map(|_| self.i32("a dimension"))
                .collect::<Result<_, _>>()?
        } else {
            vec![first, self.i32("the columns")?]
        };
        dims.iter()
            .map(|&d| u64::try_from(d).map_err(|_| format!("negative dimension {d}")))
            .collect()
    }
}

/// The integer classes as Octave names them, with their width and signedness.
fn integer_class(base: &str) -> Option<(usize, Stored)> {
    Some(match base {
        "int8" => (1, Stored::Signed),
        "int16" => (2, Stored::Signed),
        "int32" => (4, Stored::Signed),
        "int64" => (8, Stored::Signed),
        "uint8" => (1, Stored::Unsigned),
        "uint16" => (2, Stored::Unsigned),
        "uint32" => (4, Stored::Unsigned),
        "uint64" => (8, Stored::Unsigned),
        _ => return None,
    })
}

/// One numeric variable of the file: its class, dimensions and where its values lie.
struct Variable {
    class: super::MatClass,
    dims: Vec<u64>,
    width: usize,
    stored: Stored,
    /// File offset of the values.
    at: usize,
    count: u64,
}

impl Variable {
    /// A 1xN or Nx1 array (not 1x1xN: the docs, and MATLAB's `isvector`, ask for two
    /// dimensions).
    fn vector(&self) -> bool {
        self.dims.len() == 2 && self.dims.contains(&1)
    }
}

/// The rows of variable `var` (default `Q`, else the only numeric vector) of an Octave
/// binary file. Every variable is walked (a type whose layout this reader does not know
/// refuses the file, since what follows it cannot be found); only the chosen variable's
/// values are read and checked.
pub(crate) fn parse(
    path: &Path,
    bytes: &[u8],
    var: Option<&str>,
    base: IndexBase,
) -> Result<(Vec<u32>, super::MatSource), FormatError> {
    let fail =
        |d: String| FormatError::new(path, ErrorKind::Octave(format!("Octave binary file: {d}")));
    let mut c = Cursor {
        bytes,
        at: 10,
        big: bytes.get(9) == Some(&b'B'),
    };
    let float_format = c.u8("the float format").map_err(fail)?;
    if float_format > 1 {
        return Err(fail(format!(
            "float format {float_format}: only IEEE little- and big-endian are read"
        )));
    }
    // Every name, in order, and indexed: a file may hold 200,000 variables.
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut vars: Vec<Variable> = Vec::new();
    while c.at < bytes.len() {
        let name = String::from_utf8_lossy(c.string("a name").map_err(fail)?).into_owned();
        // As messages show it.
        let shown = clip(&name);
        c.string("a doc string").map_err(fail)?;
        c.u8("the global flag").map_err(fail)?;
        let code = c.u8("the type").map_err(fail)?;
        if code != 255 {
            return Err(fail(format!(
                "variable {shown} has the old type code {code}: save with a current Octave"
            )));
        }
        let kind = String::from_utf8_lossy(c.string("a type name").map_err(fail)?).into_owned();
        if index.insert(name.clone(), names.len()).is_some() {
            return Err(fail(variables::twice(&shown)));
        }
        let class = kind
            .strip_suffix(" matrix")
            .or_else(|| kind.strip_suffix(" scalar"))
            .unwrap_or(&kind);
        let scalar = kind.ends_with("scalar");
        let mut dims = || -> Result<Vec<u64>, FormatError> {
            if scalar {
                return Ok(vec![1, 1]);
            }
            c.dims().map_err(|e| fail(format!("{shown}: {e}")))
        };
        let (dims, (width, stored)) = match class {
            "matrix" | "scalar" | "float" => {
                let dims = dims()?;
                let code = c.u8("the storage type").map_err(fail)?;
                let Some(e) = stored_width(code) else {
                    return Err(fail(format!("{shown}: unknown storage type {code}")));
                };
                (dims, e)
            }
            b => match integer_class(b) {
                Some(e) => (dims()?, e),
                None => {
                    return Err(fail(format!(
                        "variable {shown} is of type {}, expected a numeric vector: this reader reads only numeric arrays (double, single, integer classes) of Octave's binary format; save with -v7 or -text",
                        quote(&kind)
                    )));
                }
            },
        };
        let count = dims
            .iter()
            .try_fold(1u64, |p, &d| p.checked_mul(d))
            .filter(|&n| {
                n.checked_mul(width as u64)
                    .is_some_and(|b| b <= (bytes.len() - c.at) as u64)
            })
            .ok_or_else(|| {
                fail(format!(
                    "{shown}: dimensions {dims:?} need more bytes than the file holds"
                ))
            })?;
        let at = c.at;
        c.take(count * width as u64, "values").map_err(fail)?;
        names.push(name);
        vars.push(Variable {
            class: match class {
                "matrix" | "scalar" => super::MatClass::Double,
                other => super::MatClass::from_name(other).unwrap_or(super::MatClass::Double),
            },
            dims,
            width,
            stored,
            at,
            count,
        });
    }
    let chosen = variables::choose(
        names.len(),
        |n| index.get(n).copied(),
        |i| vars[i].vector() && vars[i].count > 0,
        || variables::names(names.iter().map(String::as_str)),
        var,
    )
    .map_err(fail)?;
    let (v, name) = (&vars[chosen], &names[chosen]);
    let shown = clip(name);
    if !v.vector() {
        return Err(fail(format!(
            "variable {shown} is a {} matrix, expected a 1xN or Nx1 vector",
            crate::format::dims_text(&v.dims)
        )));
    }
    if v.count == 0 {
        return Err(fail(format!(
            "variable {shown} is empty ({})",
            crate::format::dims_text(&v.dims)
        )));
    }
    let mut c = Cursor {
        bytes,
        at: v.at,
        big: c.big,
    };
    let mut rows = Vec::with_capacity(v.count as usize);
    for i in 1..=v.count {
        let x = c
            .value(v.width, v.stored, base)
            .map_err(|e| fail(format!("{shown}({i}) {e}")))?;
        rows.push(
            u32::try_from(x)
                .map_err(|_| fail(format!("{shown}({i}) = {x} does not fit a column number")))?,
        );
    }
    let layout = super::MatLayout::found(name, v.class, v.dims[0], v.dims[1]);
    Ok((rows, super::MatSource::among(layout, name, &names)))
}
