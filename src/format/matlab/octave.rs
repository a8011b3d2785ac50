//! Octave's text format, what Octave's plain `save FILE Q` writes: one block per variable,
//! a header of `# key: value` lines (`# name: Q`, `# type: matrix`, `# rows: 1`,
//! `# columns: 8`; integer classes instead `# type: uint32 matrix`, `# ndims: 2` and then
//! a line of dimensions such as ` 1 8`), then the values. See `formats/octave.md`.
//!
//! The dimensions line is part of the header, not data: reading it as rows was the bug
//! that made an 8-queens solution look like a 10-row board.

use crate::format::{
    ErrorKind, FormatError, IndexBase, clip, dims_text, listing, quote, variables,
};
use std::collections::HashMap;
use std::path::Path;

/// Whether `head` (the start of a file) is Octave's text format: its first line is
/// Octave's `# Created by Octave` banner or a `# name:` line.
pub(crate) fn sniff(head: &[u8]) -> bool {
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    first.starts_with(b"# Created by Octave") || first.starts_with(b"# name:")
}

/// One top-level variable of the file.
struct Variable<'a> {
    name: &'a str,
    /// Line of its `# name:` header, 1-based.
    line: u64,
    kind: &'a str,
    /// Dimensions, from `rows`/`columns`, the `ndims` dimensions line, or 1x1 for a
    /// scalar; empty for values that are not arrays of numbers (strings, cells, structs).
    dims: Vec<u64>,
    /// For the numeric types, the value lines (1-based line number, text).
    values: Vec<(u64, &'a str)>,
}

/// The rows of the variable `var` of an Octave text file (default: `Q` if there is one,
/// else the only numeric vector).
pub(crate) fn parse(
    path: &Path,
    bytes: &[u8],
    var: Option<&str>,
    base: IndexBase,
) -> Result<(Vec<u32>, super::MatSource), FormatError> {
    let text = crate::format::text::utf8(path, bytes)?;
    let fail = |line: u64, detail: String| FormatError::new(path, ErrorKind::Text { line, detail });
    let whole = |detail: String| {
        FormatError::new(
            path,
            ErrorKind::Octave(format!("Octave text file: {detail}")),
        )
    };
    let vars = variables(text).map_err(|(line, d)| fail(line, d))?;
    let numeric = |v: &Variable| is_numeric(v.kind);
    // 1xN or Nx1: not 1x1xN (the docs, and MATLAB's `isvector`, ask for two dimensions).
    let is_vector = |v: &Variable| v.dims.len() == 2 && v.dims.contains(&1);
    // What may be chosen without a name: a numeric vector with elements.
    let candidate = |v: &Variable| numeric(v) && is_vector(v) && !v.dims.contains(&0);
    let list = || {
        listing(vars.iter().map(|v| {
            format!(
                "{} ({}, {})",
                clip(v.name),
                clip(v.kind),
                dims_text(&v.dims)
            )
        }))
    };
    // Octave keeps the last of two variables of one name; other readers the first.
    // Neither is safe to guess. Indexed once: a file may hold 200,000 variables.
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(vars.len());
    for (i, v) in vars.iter().enumerate() {
        if let Some(first) = by_name.insert(v.name, i) {
            return Err(fail(
                v.line,
                format!(
                    "a second variable named {} (the first at line {}): which one is meant is ambiguous",
                    clip(v.name),
                    vars[first].line
                ),
            ));
        }
    }
    let chosen = variables::choose(
        vars.len(),
        |n| by_name.get(n).copied(),
        |i| candidate(&vars[i]),
        list,
        var,
    )
    .map_err(whole)?;
    let chosen = &vars[chosen];
    if !numeric(chosen) {
        return Err(whole(format!(
            "variable {} is of type {}, expected a numeric vector (double, single or an integer class)",
            clip(chosen.name),
            quote(chosen.kind)
        )));
    }
    if !is_vector(chosen) {
        return Err(whole(format!(
            "variable {} is a {} matrix, expected a 1xN or Nx1 vector",
            clip(chosen.name),
            dims_text(&chosen.dims)
        )));
    }
    // A vector: the product is its one dimension other than 1, and cannot overflow.
    let n: u64 = chosen.dims.iter().product();
    if n == 0 {
        return Err(whole(format!(
            "variable {} is empty ({})",
            clip(chosen.name),
            dims_text(&chosen.dims)
        )));
    }
    let mut rows = Vec::new();
    for &(line, text) in &chosen.values {
        for token in text.split_whitespace() {
            let v = crate::format::text::parse_value(token, base)
                .map_err(|d| fail(line, format!("{}: {d}", clip(chosen.name))))?;
            rows.push(v);
        }
    }
    debug_assert_eq!(rows.len() as u64, n, "the structure pass counted them");
    let class = chosen
        .kind
        .split_whitespace()
        .next()
        .and_then(super::MatClass::from_name)
        .unwrap_or(super::MatClass::Double);
    let dims = (
        chosen.dims.first().copied().unwrap_or(1),
        chosen.dims.get(1).copied().unwrap_or(1),
    );
    let layout = super::MatLayout::found(chosen.name, class, dims.0, dims.1);
    let names: Vec<String> = vars.iter().map(|v| v.name.to_string()).collect();
    Ok((rows, super::MatSource::among(layout, chosen.name, &names)))
}

/// The integer classes and single, as Octave names them before ` matrix`/` scalar`.
const NUMBER_CLASSES: [&str; 9] = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float",
];

/// Octave's numeric types: `matrix`, `scalar` and the integer classes (`uint32 matrix`,
/// `int8 scalar`, `float matrix`...); not `bool`, `complex`, `string`, `cell`, `struct`,
/// `range` or `sparse`.
pub(crate) fn is_numeric(kind: &str) -> bool {
    let base = kind
        .strip_suffix(" matrix")
        .or_else(|| kind.strip_suffix(" scalar"))
        .unwrap_or(kind);
    matches!(kind, "matrix" | "scalar") || NUMBER_CLASSES.contains(&base)
}

/// The file as lines with their 1-based numbers, read one at a time; strings are read by
/// their byte length, so the cursor is a byte offset.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    line: u64,
}

/// A parse error: the 1-based line and what is wrong.
type Fault = (u64, String);

/// A numeric value's dimensions and its value lines (1-based line number, text).
type Numbers<'a> = (Vec<u64>, Vec<(u64, &'a str)>);

impl<'a> Cursor<'a> {
    /// The next line, without its newline; `None` at the end.
    fn next_line(&mut self) -> Option<&'a str> {
        if self.at >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.at..];
        let len = rest.find('\n').unwrap_or(rest.len());
        self.at += (len + 1).min(rest.len());
        self.line += 1;
        Some(rest[..len].trim_end_matches('\r'))
    }

    /// The next line that is not blank.
    fn next_content(&mut self) -> Option<&'a str> {
        loop {
            let l = self.next_line()?;
            if !l.trim().is_empty() {
                return Some(l);
            }
        }
    }

    /// Looks at the next non-blank line without taking it.
    fn peek_content(&self) -> Option<&'a str> {
        let mut c = Cursor { ..*self };
        c.next_content()
    }

    /// The next non-blank line, which must be the header `# key: value`; returns value.
    fn header(&mut self, key: &str) -> Result<&'a str, Fault> {
        let line = self.next_content().ok_or_else(|| {
            (
                self.line,
                format!("the file ends where `# {key}:` was expected"),
            )
        })?;
        parse_header(line)
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v)
            .ok_or_else(|| {
                (
                    self.line,
                    format!("expected `# {key}:`, found {}", quote(line)),
                )
            })
    }

    /// A header holding a count.
    fn count(&mut self, key: &str) -> Result<u64, Fault> {
        let v = self.header(key)?;
        v.parse()
            .map_err(|_| (self.line, format!("# {key}: {} is not a count", quote(v))))
    }

    /// `# ndims: D` and the line of D dimensions that follows it.
    fn ndims(&mut self) -> Result<Vec<u64>, Fault> {
        let d = self.count("ndims")?;
        let line = self.next_content().ok_or_else(|| {
            (
                self.line,
                "the file ends before the dimensions line".to_string(),
            )
        })?;
        let dims: Vec<u64> = line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| {
                (
                    self.line,
                    format!("dimensions line {} is not counts", quote(line)),
                )
            })?;
        if dims.len() as u64 != d {
            return Err((
                self.line,
                format!("# ndims: {d} but {} dimensions", dims.len()),
            ));
        }
        Ok(dims)
    }

    /// `# rows:` and `# columns:`, or `# ndims:` and its dimensions line.
    fn dims(&mut self) -> Result<Vec<u64>, Fault> {
        match self.peek_content().and_then(parse_header) {
            Some(("ndims", _)) => self.ndims(),
            _ => Ok(vec![self.count("rows")?, self.count("columns")?]),
        }
    }

    /// Takes `count` whitespace-separated values, from as many lines as they fill; returns
    /// the lines they were on.
    /// `name` is the variable's name as messages show it ([`clip`]).
    fn values(&mut self, count: u64, name: &str) -> Result<Vec<(u64, &'a str)>, Fault> {
        let mut lines = Vec::new();
        let mut got = 0u64;
        while got < count {
            let start = self.line + 1;
            let Some(line) = self.next_content() else {
                return Err((
                    start,
                    format!(
                        "{name} declares {count} elements but holds {got}: the file is cut short"
                    ),
                ));
            };
            if line.trim_start().starts_with('#') {
                return Err((
                    self.line,
                    format!(
                        "{name} declares {count} elements but holds {got} before the next header"
                    ),
                ));
            }
            got += line.split_whitespace().count() as u64;
            if got > count {
                return Err((
                    self.line,
                    format!("more values than the {count} elements {name} declares"),
                ));
            }
            lines.push((self.line, line));
        }
        Ok(lines)
    }

    /// Skips `len` bytes of a string's text and the newline after it.
    /// `name` is the variable's name as messages show it ([`clip`]).
    fn skip_bytes(&mut self, len: u64, name: &str) -> Result<(), Fault> {
        let left = (self.text.len() - self.at) as u64;
        if len > left {
            return Err((
                self.line,
                format!("{name}: a string of {len} bytes, but the file ends first"),
            ));
        }
        let end = self.at + len as usize;
        let Some(skipped) = self.text.get(self.at..end) else {
            return Err((
                self.line,
                format!("{name}: a string length that splits a character"),
            ));
        };
        self.line += skipped.matches('\n').count() as u64;
        self.at = end;
        // The newline that ends the string's line.
        if self.text[self.at..].starts_with('\n') {
            self.at += 1;
            self.line += 1;
        }
        Ok(())
    }
}

fn parse_header(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.trim().strip_prefix('#')?.split_once(':')?;
    Some((key.trim(), value.trim()))
}

/// Nesting allowed for cells and structs: deeper files are refused rather than recursed
/// into without bound.
const MAX_DEPTH: u32 = 64;

/// Reads one value of type `kind` whose `# type:` line was just read: its dimensions and
/// numeric lines (for numeric arrays), or skips it whole (strings, logicals, complex
/// numbers, cells, structs), knowing exactly where it ends, so that text inside it
/// (a string's `# name:` line, a struct's fields) is never taken for a variable.
fn value<'a>(
    c: &mut Cursor<'a>,
    name: &str,
    kind: &'a str,
    depth: u32,
) -> Result<Numbers<'a>, Fault> {
    let name = &clip(name);
    if depth > MAX_DEPTH {
        return Err((
            c.line,
            format!("{name}: cells or structs nested deeper than {MAX_DEPTH}"),
        ));
    }
    let product = |dims: &[u64], line| {
        dims.iter().try_fold(1u64, |p, &d| p.checked_mul(d)).ok_or((
            line,
            format!("{name}: dimensions {} overflow", dims_text(dims)),
        ))
    };
    let base = kind
        .strip_suffix(" matrix")
        .or_else(|| kind.strip_suffix(" scalar"))
        .unwrap_or(kind);
    let scalar = kind.ends_with("scalar") || kind == "bool";
    match base {
        "matrix" | "scalar" | "bool" | "complex" | "float complex" => {}
        b if NUMBER_CLASSES.contains(&b) => {}
        "string" | "sq_string" => {
            let elements = c.count("elements")?;
            for _ in 0..elements {
                let len = c.count("length")?;
                c.skip_bytes(len, name)?;
            }
            return Ok((Vec::new(), Vec::new()));
        }
        "cell" => {
            let dims = c.dims()?;
            for _ in 0..product(&dims, c.line)? {
                let element = c.header("name")?;
                let kind = c.header("type")?;
                value(c, element, kind, depth + 1)?;
            }
            return Ok((Vec::new(), Vec::new()));
        }
        "struct" | "scalar struct" => {
            // A struct array always has its dimensions; a scalar struct has them in
            // files of Octave 4 and later.
            if kind == "struct"
                || matches!(c.peek_content().and_then(parse_header), Some(("ndims", _)))
            {
                c.ndims()?;
            }
            let fields = c.count("length")?;
            for _ in 0..fields {
                let field = c.header("name")?;
                let kind = c.header("type")?;
                value(c, field, kind, depth + 1)?;
            }
            return Ok((Vec::new(), Vec::new()));
        }
        other => {
            return Err((
                c.line,
                format!(
                    "{name} is of type {}, which this reader cannot read past; save the vector alone (save -text FILE Q) or with -v7",
                    quote(other)
                ),
            ));
        }
    }
    let dims = if scalar { vec![1, 1] } else { c.dims()? };
    let count = product(&dims, c.line)?;
    let lines = c.values(count, name)?;
    Ok((dims, lines))
}

/// Splits the file into its top-level variables. Errors carry a 1-based line number.
fn variables(text: &str) -> Result<Vec<Variable<'_>>, Fault> {
    let mut c = Cursor {
        text,
        at: 0,
        line: 0,
    };
    let mut vars = Vec::new();
    while let Some(line) = c.next_content() {
        let Some((key, name)) = parse_header(line) else {
            if line.trim_start().starts_with('#') {
                continue; // the banner and other comments
            }
            return Err((
                c.line,
                format!("a value outside any variable: {}", quote(line)),
            ));
        };
        if key != "name" {
            continue; // comments with a colon, such as the banner's time
        }
        let at = c.line;
        let kind = c.header("type")?;
        let (dims, values) = value(&mut c, name, kind, 0)?;
        vars.push(Variable {
            name,
            line: at,
            kind,
            dims,
            values,
        });
    }
    if vars.is_empty() {
        return Err((1, "no `# name:` header".into()));
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str, var: Option<&str>) -> Result<Vec<u32>, String> {
        parse(Path::new("f"), text.as_bytes(), var, IndexBase::One)
            .map(|(rows, _)| rows)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn integer_class_with_a_dimensions_line() {
        let f = "# Created by Octave 7.3.0\n# name: Q\n# type: uint32 matrix\n# ndims: 2\n 1 8\n 1\n 5\n 8\n 6\n 3\n 7\n 2\n 4\n\n\n";
        assert_eq!(p(f, None).unwrap(), vec![1, 5, 8, 6, 3, 7, 2, 4]);
    }

    #[test]
    fn double_matrix_rows_and_columns() {
        let f = "# name: Q\n# type: matrix\n# rows: 1\n# columns: 4\n 2 4 1 3\n";
        assert_eq!(p(f, None).unwrap(), vec![2, 4, 1, 3]);
        let col = "# name: Q\n# type: matrix\n# rows: 4\n# columns: 1\n 2\n 4\n 1\n 3\n";
        assert_eq!(p(col, None).unwrap(), vec![2, 4, 1, 3]);
    }

    #[test]
    fn q_is_chosen_among_several_variables() {
        let f = "# name: n\n# type: scalar\n4\n# name: P\n# type: matrix\n# rows: 1\n# columns: 2\n 1 2\n# name: Q\n# type: matrix\n# rows: 1\n# columns: 4\n 2 4 1 3\n";
        assert_eq!(p(f, None).unwrap(), vec![2, 4, 1, 3]);
        assert_eq!(p(f, Some("P")).unwrap(), vec![1, 2]);
        assert!(p(f, Some("R")).unwrap_err().contains("no variable named R"));
    }

    #[test]
    fn bad_files_name_the_problem() {
        let short = "# name: Q\n# type: matrix\n# rows: 1\n# columns: 4\n 2 4 1\n";
        assert!(
            p(short, None)
                .unwrap_err()
                .contains("declares 4 elements but holds 3")
        );
        let text = "# name: Q\n# type: string\n# elements: 1\n# length: 3\nabc\n";
        assert!(p(text, None).unwrap_err().contains("type \"string\""));
        let m = "# name: Q\n# type: matrix\n# rows: 2\n# columns: 2\n 1 2\n 3 4\n";
        assert!(p(m, None).unwrap_err().contains("2x2 matrix"));
    }

    /// Empty and 1x1xN arrays are never candidates (1xN or Nx1, with elements), and a
    /// 1x1xN array chosen is refused, not flattened.
    #[test]
    fn only_vectors_with_elements_are_candidates() {
        let x = "# name: x\n# type: matrix\n# rows: 1\n# columns: 4\n 2 4 1 3\n";
        let e = "# name: e\n# type: matrix\n# rows: 1\n# columns: 0\n";
        let nd = "# name: a\n# type: int8 matrix\n# ndims: 3\n 1 1 2\n 1\n 2\n";
        assert_eq!(p(&format!("{e}{x}"), None).unwrap(), vec![2, 4, 1, 3]);
        assert_eq!(p(&format!("{nd}{x}"), None).unwrap(), vec![2, 4, 1, 3]);
        assert!(
            p(e, None)
                .unwrap_err()
                .contains("variable e is empty (1x0)")
        );
        assert!(p(nd, None).unwrap_err().contains("1x1x2 matrix"));
        assert!(
            p(&format!("{e}{nd}"), None)
                .unwrap_err()
                .contains("no variable could be the board")
        );
    }
}
