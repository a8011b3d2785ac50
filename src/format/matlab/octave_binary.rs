//! Octave's binary format, what `save -binary FILE Q` writes (see `formats/octave.md`):
//! the magic `Octave-1-L` (little-endian) or `Octave-1-B`, one byte naming the float
//! format, then per variable its name, its doc string, a global flag, its type name and
//! its data. The numeric types are read (`matrix`, `scalar`, `float ...` and the integer
//! classes); the other types Octave saves (strings, logicals, complex numbers, ranges,
//! sparse and diagonal matrices, cells and structs, nested up to 64 levels) are walked past
//! by their declared sizes, each checked against the bytes left before it is trusted, so
//! that the variable asked for is found wherever it lies. A type whose extent is not known
//! (function handles, permutation matrices, objects) refuses the file by its name.

use crate::format::IndexBase;
use crate::format::{ErrorKind, FormatError, clip, dims_text, quote, variables};
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
    fn value_at(&mut self, width: usize, stored: Stored, base: IndexBase) -> Result<u64, String> {
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

/// What a record of the file holds, as far as this reader needs to know.
enum Held {
    /// A real numeric array (double, single or an integer class).
    Numbers(Numbers),
    /// Any other value, walked past: its type name.
    Other(String),
}

/// A real numeric array: its class, dimensions and where its values lie.
struct Numbers {
    class: super::MatClass,
    dims: Vec<u64>,
    width: usize,
    stored: Stored,
    /// File offset of the values.
    at: usize,
    count: u64,
}

impl Numbers {
    /// A 1xN or Nx1 array (not 1x1xN: the docs, and MATLAB's `isvector`, ask for two
    /// dimensions).
    fn vector(&self) -> bool {
        self.dims.len() == 2 && self.dims.contains(&1)
    }
}

/// Nesting allowed for cells and structs: deeper files are refused rather than recursed
/// into without bound.
const MAX_DEPTH: u32 = 64;

/// The fewest bytes a nested record takes: its name's and doc string's lengths, the
/// global flag, the type byte and the type name's length.
const MIN_RECORD: u64 = 4 + 4 + 1 + 1 + 4;

impl Cursor<'_> {
    fn left(&self) -> u64 {
        (self.bytes.len() - self.at) as u64
    }

    /// A count or dimension, which may not be negative.
    fn count(&mut self, what: &str) -> Result<u64, String> {
        let n = self.i32(what)?;
        u64::try_from(n).map_err(|_| format!("{what}: negative value {n}"))
    }

    /// The length of `count` items of `width` bytes, when the bytes left hold them.
    fn fits(&self, count: u64, width: u64, what: &str) -> Result<u64, String> {
        let left = self.left();
        count
            .checked_mul(width)
            .filter(|&len| len <= left)
            .ok_or_else(|| {
                format!(
                    "{what} at offset {}: {count} x {width} bytes need more than the {left} bytes left",
                    self.at
                )
            })
    }

    /// Skips `count` items of `width` bytes, checked against the bytes left before any is
    /// taken.
    fn skip(&mut self, count: u64, width: u64, what: &str) -> Result<(), String> {
        let len = self.fits(count, width, what)?;
        self.take(len, what).map(|_| ())
    }

    /// A record's header: its name, doc string, global flag and type name.
    fn header(&mut self) -> Result<(String, String), String> {
        let name = String::from_utf8_lossy(self.string("a name")?).into_owned();
        self.string("a doc string")?;
        self.u8("the global flag")?;
        let code = self.u8("the type")?;
        if code != 255 {
            return Err(format!(
                "variable {} has the old type code {code}: save with a current Octave",
                clip(&name)
            ));
        }
        let kind = String::from_utf8_lossy(self.string("a type name")?).into_owned();
        Ok((name, kind))
    }

    /// `count` nested records (a cell's elements, a struct's fields), each walked whole.
    /// `path` names the value that holds them; `label` names the i-th record, of the given
    /// name, in messages.
    fn records(
        &mut self,
        count: u64,
        path: &str,
        label: impl Fn(u64, &str) -> String,
        depth: u32,
    ) -> Result<(), String> {
        if depth >= MAX_DEPTH {
            return Err(format!(
                "{path}: cells or structs nested deeper than {MAX_DEPTH}"
            ));
        }
        self.fits(
            count,
            MIN_RECORD,
            &format!("{path}'s {count} elements or fields"),
        )?;
        for i in 1..=count {
            let (name, kind) = self.header().map_err(|e| format!("{path}: {e}"))?;
            self.value(&label(i, &name), &kind, depth + 1)?;
        }
        Ok(())
    }

    /// The storage byte of a double or single array, then its `count` values times `per`
    /// (complex numbers hold two): their width and kind and where they start.
    fn stored(
        &mut self,
        path: &str,
        count: u64,
        per: u64,
    ) -> Result<(usize, Stored, usize), String> {
        let code = self.u8("the storage type")?;
        let Some((width, stored)) = stored_width(code) else {
            if count == 0 {
                // Octave writes the byte of an empty array only when it stores doubles:
                // `save -float-binary` leaves it out, and Octave cannot load such a file.
                return Err(format!(
                    "{path}: an empty array without its storage byte (as save -float-binary writes it, which Octave itself cannot load back)"
                ));
            }
            return Err(format!("{path}: unknown storage type {code}"));
        };
        let at = self.at;
        let values = count
            .checked_mul(per)
            .ok_or_else(|| format!("{path}: {count} complex elements overflow"))?;
        self.skip(values, width as u64, &format!("{path}'s values"))?;
        Ok((width, stored, at))
    }

    /// The value of a record of type `kind` whose header was just read: a real numeric
    /// array's extent, or any other value walked past by its declared sizes (as Octave's
    /// `save_binary` of each type writes it). `path` names it in messages (`s.a`, `c{2}`).
    fn value(&mut self, path: &str, kind: &str, depth: u32) -> Result<Held, String> {
        let product = |dims: &[u64]| {
            dims.iter()
                .try_fold(1u64, |p, &d| p.checked_mul(d))
                .ok_or_else(|| format!("{path}: dimensions {} overflow", dims_text(dims)))
        };
        let other = || Held::Other(kind.to_string());
        let base = kind
            .strip_suffix(" matrix")
            .or_else(|| kind.strip_suffix(" scalar"))
            .unwrap_or(kind);
        let scalar = kind.ends_with("scalar");
        let dims = |c: &mut Self| -> Result<Vec<u64>, String> {
            if scalar {
                return Ok(vec![1, 1]);
            }
            c.dims().map_err(|e| format!("{path}: {e}"))
        };
        let values = format!("{path}'s values");
        match base {
            "matrix" | "scalar" | "float" => {
                let dims = dims(self)?;
                let count = product(&dims)?;
                let (width, stored, at) = self.stored(path, count, 1)?;
                let class = if base == "float" {
                    super::MatClass::Single
                } else {
                    super::MatClass::Double
                };
                Ok(Held::Numbers(Numbers {
                    class,
                    dims,
                    width,
                    stored,
                    at,
                    count,
                }))
            }
            "complex" | "float complex" => {
                let count = product(&dims(self)?)?;
                self.stored(path, count, 2)?;
                Ok(other())
            }
            b if integer_class(b).is_some() => {
                let (width, stored) = integer_class(b).expect("an integer class");
                let dims = dims(self)?;
                let count = product(&dims)?;
                let at = self.at;
                self.skip(count, width as u64, &values)?;
                let class = super::MatClass::from_name(b).unwrap_or(super::MatClass::Double);
                Ok(Held::Numbers(Numbers {
                    class,
                    dims,
                    width,
                    stored,
                    at,
                    count,
                }))
            }
            // A logical: one byte (0 or 1) per element.
            "bool" if kind == "bool" => self.skip(1, 1, &values).map(|_| other()),
            "bool" => {
                let count = product(&dims(self)?)?;
                self.skip(count, 1, &values).map(|_| other())
            }
            // A char array: its dimensions and one byte per element; before Octave 3, the
            // number of rows, then each row's length and bytes.
            "string" | "sq_string" => {
                let first = self.i32("the dimensions")?;
                if first < 0 {
                    self.at -= 4;
                    let count = product(&dims(self)?)?;
                    self.skip(count, 1, &values)?;
                } else {
                    let rows = u64::try_from(first).expect("not negative");
                    self.fits(rows, 4, &format!("{path}'s rows"))?;
                    for _ in 0..rows {
                        self.string("a row of characters")
                            .map_err(|e| format!("{path}: {e}"))?;
                    }
                }
                Ok(other())
            }
            // Its dimensions, then each element as a record named `<cell-element>`.
            "cell" => {
                let count = product(&dims(self)?)?;
                self.records(count, path, |i, _| format!("{path}{{{i}}}"), depth)?;
                Ok(other())
            }
            // The number of fields, then each field as a record of its name.
            "scalar struct" => {
                let fields = self.count("the number of fields")?;
                self.records(fields, path, |_, f| format!("{path}.{}", clip(f)), depth)?;
                Ok(other())
            }
            // Its dimensions and number of fields (older files: the number of fields
            // alone), then each field as a record of its name holding a cell of the
            // struct's dimensions.
            "struct" => {
                let first = self.i32("the dimensions")?;
                let fields = if first < 0 {
                    self.at -= 4;
                    dims(self)?;
                    self.count("the number of fields")?
                } else {
                    u64::try_from(first).expect("not negative")
                };
                self.records(fields, path, |_, f| format!("{path}.{}", clip(f)), depth)?;
                Ok(other())
            }
            // The storage byte, then the base, limit and increment as doubles.
            "range" | "double_range" => self.skip(1 + 3 * 8, 1, &values).map(|_| other()),
            // -2, rows, columns and the number of nonzeros, the column starts and the row
            // indices (32-bit), then the values (a storage byte and doubles, two per
            // complex element, or one byte per logical).
            "sparse" | "sparse complex" | "sparse bool" => {
                let two = self.i32("the dimensions")?;
                if two != -2 {
                    return Err(format!(
                        "{path}: a sparse matrix whose dimension count is {two}, expected -2"
                    ));
                }
                self.count("the rows")?;
                let columns = self.count("the columns")?;
                let nonzeros = self.count("the number of nonzeros")?;
                self.skip(columns + 1, 4, &format!("{path}'s column starts"))?;
                self.skip(nonzeros, 4, &format!("{path}'s row indices"))?;
                match base {
                    "sparse" => self.stored(path, nonzeros, 1).map(|_| other()),
                    "sparse complex" => self.stored(path, nonzeros, 2).map(|_| other()),
                    _ => self.skip(nonzeros, 1, &values).map(|_| other()),
                }
            }
            // Rows and columns, then the diagonal's min(rows, columns) values after a
            // storage byte (two per complex element).
            "diagonal" | "complex diagonal" | "float diagonal" | "float complex diagonal" => {
                let rows = self.count("the rows")?;
                let columns = self.count("the columns")?;
                let per = if base.contains("complex") { 2 } else { 1 };
                self.stored(path, rows.min(columns), per).map(|_| other())
            }
            // Function handles, permutation matrices (their width depends on how Octave
            // was built), objects, ...
            _ => Err(format!(
                "{path} is of type {}, which this reader cannot read past; save the vector alone (save -binary FILE Q) or with -v7",
                quote(kind)
            )),
        }
    }
}

/// The rows of variable `var` (default `Q`, else the only numeric vector) of an Octave
/// binary file. Every variable is walked by its declared sizes (a type whose extent this
/// reader does not know refuses the file, since what follows it cannot be found); only the
/// chosen variable's values are read and checked.
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
    let mut vars: Vec<Held> = Vec::new();
    while c.at < bytes.len() {
        let (name, kind) = c.header().map_err(fail)?;
        // As messages show it.
        let shown = clip(&name);
        if index.insert(name.clone(), names.len()).is_some() {
            return Err(fail(variables::twice(&shown)));
        }
        vars.push(c.value(&shown, &kind, 0).map_err(fail)?);
        names.push(name);
    }
    let chosen = variables::choose(
        names.len(),
        |n| index.get(n).copied(),
        |i| matches!(&vars[i], Held::Numbers(v) if v.vector() && v.count > 0),
        || variables::names(names.iter().map(String::as_str)),
        var,
    )
    .map_err(fail)?;
    let name = &names[chosen];
    let shown = clip(name);
    let v = match &vars[chosen] {
        Held::Numbers(v) => v,
        Held::Other(kind) => {
            return Err(fail(format!(
                "variable {shown} is of type {}, expected a numeric vector (double, single or an integer class)",
                quote(kind)
            )));
        }
    };
    if !v.vector() {
        return Err(fail(format!(
            "variable {shown} is a {} matrix, expected a 1xN or Nx1 vector",
            dims_text(&v.dims)
        )));
    }
    if v.count == 0 {
        return Err(fail(format!(
            "variable {shown} is empty ({})",
            dims_text(&v.dims)
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
            .value_at(v.width, v.stored, base)
            .map_err(|e| fail(format!("{shown}({i}) {e}")))?;
        rows.push(
            u32::try_from(x)
                .map_err(|_| fail(format!("{shown}({i}) = {x} does not fit a column number")))?,
        );
    }
    let layout = super::MatLayout::found(name, v.class, v.dims[0], v.dims[1]);
    Ok((rows, super::MatSource::among(layout, name, &names)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Octave binary file in either byte order, built record by record.
    struct File {
        bytes: Vec<u8>,
        big: bool,
    }

    impl File {
        fn new(big: bool) -> File {
            let mut bytes = if big {
                b"Octave-1-B".to_vec()
            } else {
                b"Octave-1-L".to_vec()
            };
            bytes.push(u8::from(big));
            File { bytes, big }
        }

        fn i32(&mut self, v: i32) -> &mut File {
            let b = if self.big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            self.bytes.extend_from_slice(&b);
            self
        }

        fn raw(&mut self, b: &[u8]) -> &mut File {
            self.bytes.extend_from_slice(b);
            self
        }

        fn string(&mut self, s: &str) -> &mut File {
            self.i32(s.len() as i32).raw(s.as_bytes())
        }

        /// A record's header: name, empty doc string, global flag, 255, type name.
        fn header(&mut self, name: &str, kind: &str) -> &mut File {
            self.string(name).string("").raw(&[0, 255]).string(kind)
        }

        fn dims(&mut self, dims: &[i32]) -> &mut File {
            self.i32(-(dims.len() as i32));
            for &d in dims {
                self.i32(d);
            }
            self
        }

        /// A 1xN double row.
        fn doubles(&mut self, name: &str, values: &[f64]) -> &mut File {
            self.header(name, "matrix")
                .dims(&[1, values.len() as i32])
                .raw(&[7]);
            for v in values {
                let b = if self.big {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                };
                self.raw(&b);
            }
            self
        }

        fn text(&mut self, name: &str, s: &str) -> &mut File {
            self.header(name, "string")
                .dims(&[1, s.len() as i32])
                .raw(s.as_bytes())
        }

        fn parse(&self, var: Option<&str>) -> Result<Vec<u32>, String> {
            parse(Path::new("f"), &self.bytes, var, IndexBase::One)
                .map(|(rows, _)| rows)
                .map_err(|e| e.to_string())
        }
    }

    #[test]
    fn strings_cells_and_structs_are_walked_past_in_both_byte_orders() {
        for big in [false, true] {
            let mut f = File::new(big);
            f.text("name", "hello");
            // c = {"x", s} with s a scalar struct holding a string and a struct array.
            f.header("c", "cell").dims(&[1, 2]);
            f.text("<cell-element>", "x");
            f.header("<cell-element>", "scalar struct").i32(2);
            f.text("t", "Q");
            f.header("arr", "struct").dims(&[1, 2]).i32(1);
            f.header("z", "cell").dims(&[1, 2]);
            f.doubles("<cell-element>", &[9.0]);
            f.header("<cell-element>", "bool matrix")
                .dims(&[1, 3])
                .raw(&[1, 0, 1]);
            // A range, a sparse matrix and a complex diagonal matrix.
            f.header("r", "double_range").raw(&[7]).raw(&[0; 24]);
            f.header("sp", "sparse matrix").i32(-2).i32(1).i32(3).i32(2);
            f.i32(0)
                .i32(1)
                .i32(1)
                .i32(2)
                .i32(0)
                .i32(0)
                .raw(&[7])
                .raw(&[0; 16]);
            f.header("cd", "complex diagonal matrix")
                .i32(2)
                .i32(3)
                .raw(&[7])
                .raw(&[0; 32]);
            f.doubles("Q", &[2.0, 4.0, 1.0, 3.0]);
            assert_eq!(f.parse(None), Ok(vec![2, 4, 1, 3]), "big-endian {big}");
            assert_eq!(f.parse(Some("Q")), Ok(vec![2, 4, 1, 3]));
            let e = f.parse(Some("name")).unwrap_err();
            assert!(
                e.contains("variable name is of type \"string\", expected a numeric vector"),
                "{e}"
            );
            let e = f.parse(Some("c")).unwrap_err();
            assert!(e.contains("variable c is of type \"cell\""), "{e}");
        }
    }

    #[test]
    fn without_q_the_only_numeric_vector_is_chosen() {
        let mut f = File::new(false);
        f.text("name", "hello").doubles("P", &[2.0, 4.0, 1.0, 3.0]);
        assert_eq!(f.parse(None), Ok(vec![2, 4, 1, 3]));
        let mut f = File::new(false);
        f.text("name", "hello");
        let e = f.parse(None).unwrap_err();
        assert!(e.contains("variable name is of type \"string\""), "{e}");
    }

    #[test]
    fn declared_sizes_are_checked_against_the_bytes_left() {
        // A string that declares more characters than the file holds.
        let mut f = File::new(false);
        f.header("name", "string").dims(&[1, 100]).raw(b"hello");
        f.doubles("Q", &[1.0]);
        let e = f.parse(Some("Q")).unwrap_err();
        assert!(
            e.contains("name's values at offset") && e.contains("bytes left"),
            "{e}"
        );
        // A cell of 2^62 elements, a struct of 2^31 - 1 fields: refused before any loop.
        for kind in ["cell", "scalar struct"] {
            let mut f = File::new(false);
            f.header("c", kind);
            if kind == "cell" {
                f.dims(&[i32::MAX, i32::MAX]);
            } else {
                f.i32(i32::MAX);
            }
            let e = f.parse(Some("Q")).unwrap_err();
            assert!(e.contains("elements or fields at offset"), "{kind}: {e}");
        }
        // An old-format string of many rows, each row's length read before it is trusted.
        let mut f = File::new(false);
        f.header("s", "string").i32(1000).i32(2).raw(b"ab");
        assert!(f.parse(Some("Q")).unwrap_err().contains("s's rows"));
        let mut f = File::new(false);
        f.header("s", "string").i32(1).i32(i32::MAX).raw(b"ab");
        assert!(
            f.parse(Some("Q"))
                .unwrap_err()
                .contains("a row of characters")
        );
        // A negative dimension, a sparse matrix of three dimensions.
        let mut f = File::new(false);
        f.header("s", "string").dims(&[1, -5]);
        assert!(
            f.parse(Some("Q"))
                .unwrap_err()
                .contains("negative dimension -5")
        );
        let mut f = File::new(false);
        f.header("s", "sparse matrix").i32(-3);
        let e = f.parse(Some("Q")).unwrap_err();
        assert!(
            e.contains("s: a sparse matrix whose dimension count is -3"),
            "{e}"
        );
    }

    #[test]
    fn nesting_is_bounded_and_unknown_types_are_refused_by_name() {
        let mut f = File::new(false);
        f.header("c", "cell").dims(&[1, 1]);
        for _ in 0..100 {
            f.header("<cell-element>", "cell").dims(&[1, 1]);
        }
        let e = f.parse(Some("Q")).unwrap_err();
        assert!(e.contains("nested deeper than 64"), "{e}");
        let mut f = File::new(false);
        f.header("s", "scalar struct").i32(1);
        f.header("p", "permutation matrix")
            .i32(2)
            .raw(&[1])
            .raw(&[0; 16]);
        f.doubles("Q", &[1.0]);
        let e = f.parse(Some("Q")).unwrap_err();
        assert!(
            e.contains("s.p is of type \"permutation matrix\", which this reader cannot read past"),
            "{e}"
        );
    }
}
