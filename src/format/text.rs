//! Plain text compositions: one row value per entry, entries separated by newlines,
//! spaces, tabs or commas (as MATLAB's `dlmwrite`/`writematrix` and NumPy's `savetxt`
//! write them); lines starting with `#` are comments. Meant for small boards.

use super::{AtomicFile, ErrorKind, FormatError, IndexBase, clip, quote};
use std::io::{BufWriter, Write};
use std::path::Path;

/// `bytes` as text, or an error naming the first line that is not UTF-8.
pub fn utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, FormatError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        FormatError::new(
            path,
            ErrorKind::Text {
                line,
                detail: "not UTF-8 text".into(),
            },
        )
    })
}

/// Parses the row values of a text file (1-based columns, 0 for an empty row).
pub fn parse(path: &Path, text: &[u8]) -> Result<Vec<u32>, FormatError> {
    parse_based(path, text, IndexBase::One)
}

/// Parses the row values of a text file numbered as `base` says.
pub(crate) fn parse_based(
    path: &Path,
    text: &[u8],
    base: IndexBase,
) -> Result<Vec<u32>, FormatError> {
    let fail = |line, detail| FormatError::new(path, ErrorKind::Text { line, detail });
    let text = utf8(path, text)?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        if line.trim_start().starts_with('#') {
            continue;
        }
        for token in line
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
            .filter(|t| !t.is_empty())
        {
            rows.push(parse_value(token, base).map_err(|d| fail(line_no, d))?);
        }
    }
    if rows.is_empty() {
        return Err(FormatError::new(path, ErrorKind::Empty));
    }
    Ok(rows)
}

/// One row value: a non-negative integer, also written as an integral float
/// (`3`, `3.0`, `3.000000000000000000e+00`).
pub(crate) fn parse_value(token: &str, base: IndexBase) -> Result<u32, String> {
    if base == IndexBase::Zero {
        let v = match token.parse::<i64>() {
            Ok(v) => base.signed(v),
            Err(_) => match token.parse::<f64>() {
                Ok(f) => base.float(f),
                Err(_) => return Err(format!("{} is not a number", quote(token))),
            },
        }
        .map_err(|e| format!("value {} {e}", clip(token)))?;
        return u32::try_from(v).map_err(|_| format!("value {} exceeds 4294967294", clip(token)));
    }
    if let Ok(v) = token.parse::<u64>() {
        return u32::try_from(v).map_err(|_| format!("value {} exceeds 4294967295", clip(token)));
    }
    match token.parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= u32::MAX as f64 => {
            Ok(f as u32)
        }
        Ok(-1.0) => Err(
            "negative value -1: 0-based columns with -1 for an empty row? read them with --zero-based"
                .into(),
        ),
        Ok(f) if f < 0.0 => Err(format!("negative value {}", clip(token))),
        Ok(_) => Err(format!(
            "value {} is not a whole number in 0..=4294967295",
            clip(token)
        )),
        Err(_) => Err(format!("{} is not a number", quote(token))),
    }
}

/// Writes a text composition, one value per line, appearing only on [`TextWriter::finish`].
pub struct TextWriter {
    out: BufWriter<AtomicFile>,
}

impl TextWriter {
    /// Starts a text file at `dest`.
    pub fn create(dest: &Path) -> Result<Self, FormatError> {
        Ok(TextWriter {
            out: BufWriter::with_capacity(1 << 16, AtomicFile::create(dest)?),
        })
    }

    /// Appends rows.
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        for v in rows {
            writeln!(self.out, "{v}").map_err(|e| self.fail(e))?;
        }
        Ok(())
    }

    fn fail(&self, e: std::io::Error) -> FormatError {
        FormatError::new(self.out.get_ref().dest(), ErrorKind::Write(e))
    }

    /// Flushes; returns the complete file, still unpublished.
    pub fn finish(self) -> Result<AtomicFile, FormatError> {
        AtomicFile::unbuffer(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_usual_exports() {
        let p = Path::new("x");
        assert_eq!(parse(p, b"1\n0\n3\n").unwrap(), vec![1, 0, 3]);
        assert_eq!(parse(p, b"# Q\n1,0, 3\r\n").unwrap(), vec![1, 0, 3]);
        assert_eq!(
            parse(p, b"1.000000000000000000e+00 0.0\n").unwrap(),
            vec![1, 0]
        );
    }

    #[test]
    fn rejects_with_line_numbers() {
        let p = Path::new("x");
        let e = parse(p, b"1\n2\n-3\n").unwrap_err().to_string();
        assert_eq!(e, "x: line 3: negative value -3");
        assert!(
            parse(p, b"1\nx\n")
                .unwrap_err()
                .to_string()
                .contains("line 2")
        );
        assert!(parse(p, b"2.5").is_err());
        assert!(parse(p, b"4294967296").is_err());
        assert!(matches!(
            parse(p, b"\n# c\n").unwrap_err().problem,
            ErrorKind::Empty
        ));
    }
}
