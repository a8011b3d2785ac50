//! Octave's text format, what Octave's plain `save FILE Q` writes: one block per variable,
//! a header of `# key: value` lines (`# name: Q`, `# type: matrix`, `# rows: 1`,
//! `# columns: 8`; integer classes instead `# type: uint32 matrix`, `# ndims: 2` and then
//! a line of dimensions such as ` 1 8`), then the values. See `formats/octave.md`.
//!
//! The dimensions line is part of the header, not data: reading it as rows was the bug
//! that made an 8-queens solution look like a 10-row board.

use super::{ErrorKind, FormatError};
use std::path::Path;

/// Whether `head` (the start of a file) is Octave's text format: its first line is
/// Octave's `# Created by Octave` banner or a `# name:` line.
pub(crate) fn sniff(head: &[u8]) -> bool {
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    first.starts_with(b"# Created by Octave") || first.starts_with(b"# name:")
}

/// One variable of the file.
struct Variable<'a> {
    name: &'a str,
    /// Line of its `# name:` header, 1-based.
    line: u64,
    kind: &'a str,
    /// Dimensions, from `rows`/`columns` or the `ndims` dimensions line.
    dims: Vec<u64>,
    /// The value lines (1-based line number, text).
    values: Vec<(u64, &'a str)>,
}

/// The rows of the variable `var` of an Octave text file (default: `Q` if there is one,
/// else the only numeric vector).
pub(crate) fn parse(path: &Path, bytes: &[u8], var: Option<&str>) -> Result<Vec<u32>, FormatError> {
    let text = super::text::utf8(path, bytes)?;
    let fail = |line: u64, detail: String| FormatError::new(path, ErrorKind::Text { line, detail });
    let whole = |detail: String| FormatError::new(path, ErrorKind::Octave(detail));
    let vars = variables(text).map_err(|(line, d)| fail(line, d))?;
    let numeric = |v: &Variable| is_numeric(v.kind);
    let is_vector = |v: &Variable| v.dims.iter().filter(|&&d| d != 1).count() <= 1;
    let list = || {
        vars.iter()
            .map(|v| format!("{} ({}, {})", v.name, v.kind, dims_text(&v.dims)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match var {
        Some(name) => vars.iter().find(|v| v.name == name).ok_or_else(|| {
            whole(format!(
                "no variable named {name}; the file holds: {}",
                list()
            ))
        })?,
        None => match vars.iter().find(|v| v.name == "Q") {
            Some(q) => q,
            None => {
                let vectors: Vec<&Variable> =
                    vars.iter().filter(|v| numeric(v) && is_vector(v)).collect();
                match (vectors.as_slice(), vars.as_slice()) {
                    ([one], _) => one,
                    ([], [only]) => only,
                    _ => {
                        return Err(whole(format!(
                            "{} numeric vectors, choose one with --var; the file holds: {}",
                            vectors.len(),
                            list()
                        )));
                    }
                }
            }
        },
    };
    if !numeric(chosen) {
        return Err(whole(format!(
            "variable {} is of type {:?}, expected a numeric vector",
            chosen.name, chosen.kind
        )));
    }
    if !is_vector(chosen) {
        return Err(whole(format!(
            "variable {} is a {} matrix, expected a 1xN or Nx1 vector",
            chosen.name,
            dims_text(&chosen.dims)
        )));
    }
    // A vector: the product is its one dimension other than 1, and cannot overflow.
    let n: u64 = chosen.dims.iter().product();
    if n == 0 {
        return Err(whole(format!("variable {} is empty", chosen.name)));
    }
    let mut rows = Vec::new();
    for &(line, text) in &chosen.values {
        for token in text.split_whitespace() {
            if rows.len() as u64 == n {
                return Err(fail(
                    line,
                    format!(
                        "more values than the {} elements {} declares",
                        n, chosen.name
                    ),
                ));
            }
            let v = super::text::parse_value(token)
                .map_err(|d| fail(line, format!("{}: {d}", chosen.name)))?;
            rows.push(v);
        }
    }
    if rows.len() as u64 != n {
        return Err(fail(
            chosen.line,
            format!(
                "variable {} declares {n} elements but holds {}: the file is cut short",
                chosen.name,
                rows.len()
            ),
        ));
    }
    Ok(rows)
}

fn dims_text(dims: &[u64]) -> String {
    dims.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// Octave's numeric types: `matrix`, `scalar` and the integer classes (`uint32 matrix`,
/// `int8 scalar`, ...); not `bool`, `complex`, `string`, `cell`, `struct` or `sparse`.
fn is_numeric(kind: &str) -> bool {
    let base = kind
        .strip_suffix(" matrix")
        .or_else(|| kind.strip_suffix(" scalar"))
        .unwrap_or(kind);
    matches!(kind, "matrix" | "scalar")
        || matches!(
            base,
            "int8"
                | "int16"
                | "int32"
                | "int64"
                | "uint8"
                | "uint16"
                | "uint32"
                | "uint64"
                | "float"
        )
}

/// Splits the file into variables. Errors carry a 1-based line number.
fn variables(text: &str) -> Result<Vec<Variable<'_>>, (u64, String)> {
    let mut vars: Vec<Variable> = Vec::new();
    // Header lines still expected before the values: an `ndims` header is followed by
    // one dimensions line.
    let mut dims_line_due = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = raw.trim();
        if let Some(header) = line.strip_prefix('#') {
            let Some((key, value)) = header.split_once(':') else {
                continue;
            };
            let (key, value) = (key.trim(), value.trim());
            if key == "name" {
                vars.push(Variable {
                    name: value,
                    line: line_no,
                    kind: "",
                    dims: Vec::new(),
                    values: Vec::new(),
                });
                dims_line_due = false;
                continue;
            }
            let Some(v) = vars.last_mut() else {
                continue; // the banner and other comments before the first variable
            };
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|_| (line_no, format!("# {key}: {value:?} is not a count")))
            };
            match key {
                "type" => {
                    v.kind = value;
                    if value.ends_with("scalar") {
                        v.dims = vec![1, 1];
                    }
                }
                "rows" => v.dims = vec![number()?, v.dims.get(1).copied().unwrap_or(1)],
                "columns" => {
                    let rows = v.dims.first().copied().unwrap_or(1);
                    v.dims = vec![rows, number()?];
                }
                "ndims" => {
                    number()?;
                    dims_line_due = true;
                }
                _ => {}
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let Some(v) = vars.last_mut() else {
            return Err((line_no, "a value before any `# name:` header".into()));
        };
        if dims_line_due {
            v.dims = line
                .split_whitespace()
                .map(|t| t.parse::<u64>())
                .collect::<Result<_, _>>()
                .map_err(|_| (line_no, format!("dimensions line {line:?} is not counts")))?;
            dims_line_due = false;
            continue;
        }
        v.values.push((line_no, line));
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
        parse(Path::new("f"), text.as_bytes(), var).map_err(|e| e.to_string())
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
}
