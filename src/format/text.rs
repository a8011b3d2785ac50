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
    let mut rows = Vec::new();
    each_value(path, text, base, |v| rows.push(v))?;
    Ok(rows)
}

/// [`parse_based`]'s rows as little-endian bytes, the form a board read into memory is
/// held in: parsed straight into it, not through a vector of rows and a copy (a board of
/// 2^27 rows: 1.3 GB at its peak that way, the text's 256 MB and two copies of the rows).
pub(crate) fn parse_le_bytes(
    path: &Path,
    text: &[u8],
    base: IndexBase,
) -> Result<Vec<u8>, FormatError> {
    let mut bytes = Vec::new();
    each_value(path, text, base, |v| {
        bytes.extend_from_slice(&v.to_le_bytes())
    })?;
    Ok(bytes)
}

/// Calls `push` with each row value of a text file, in order; none is an error.
fn each_value(
    path: &Path,
    text: &[u8],
    base: IndexBase,
    mut push: impl FnMut(u32),
) -> Result<(), FormatError> {
    let fail = |line, detail| FormatError::new(path, ErrorKind::Text { line, detail });
    utf8(path, text)?;
    let mut any = false;
    // Lines as `str::lines` gives them (split at `\n`, a `\r` before it dropped), found by
    // bytes: with a value a line, finding each line through `str::lines` cost a fifth of
    // the reading.
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line_no = i as u64 + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_ascii() {
            // The same separators as below, byte by byte: the ASCII ones of
            // `char::is_whitespace`, with `,` and `;` (a board of 2^27 rows read in 10.3 s
            // through the `char` split, most of it spent there and in `parse_value`).
            let separates = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c | b',' | b';');
            let blank = |b: &u8| *b != b',' && *b != b';' && separates(b);
            if line.iter().find(|b| !blank(b)) == Some(&b'#') {
                continue;
            }
            for token in line.split(separates).filter(|t| !t.is_empty()) {
                let value = match small_whole(token) {
                    Some(v) if base == IndexBase::One => v,
                    // An ASCII line's bytes, split at ASCII bytes, are UTF-8.
                    _ => parse_value(std::str::from_utf8(token).expect("ASCII"), base)
                        .map_err(|d| fail(line_no, d))?,
                };
                push(value);
                any = true;
            }
            continue;
        }
        // The whole text is UTF-8, and a line ends before an ASCII byte.
        let line = std::str::from_utf8(line).expect("checked above");
        if line.trim_start().starts_with('#') {
            continue;
        }
        for token in line
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
            .filter(|t| !t.is_empty())
        {
            push(parse_value(token, base).map_err(|d| fail(line_no, d))?);
            any = true;
        }
    }
    if !any {
        return Err(FormatError::new(path, ErrorKind::Empty));
    }
    Ok(())
}

/// A token of one to nine decimal digits, its value: what nearly every row of a text board
/// (and of an Octave text file) is, read without [`decimal`]'s exact handling of points
/// and exponents, which allocates.
fn small_whole(token: &[u8]) -> Option<u32> {
    if token.is_empty() || token.len() > 9 || !token.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(token.iter().fold(0, |v, &b| v * 10 + (b - b'0') as u32))
}

/// One row value: a non-negative integer, also written as an integral float
/// (`3`, `3.0`, `3.000000000000000000e+00`).
pub(crate) fn parse_value(token: &str, base: IndexBase) -> Result<u32, String> {
    let v = match small_whole(token.as_bytes()) {
        Some(v) => Decimal::Whole(v.into()),
        None => decimal(token),
    };
    let v = match v {
        Decimal::Whole(v) => v,
        Decimal::Fraction => {
            return Err(format!(
                "value {} is not a whole number in 0..=4294967295",
                clip(token)
            ));
        }
        Decimal::Huge => return Err(format!("value {} exceeds 4294967295", clip(token))),
        Decimal::NotANumber => return Err(format!("{} is not a number", quote(token))),
    };
    if base == IndexBase::Zero {
        let v = i64::try_from(v)
            .map_err(|_| format!("value {} exceeds 4294967294", clip(token)))
            .and_then(|v| {
                base.signed(v)
                    .map_err(|e| format!("value {} {e}", clip(token)))
            })?;
        return u32::try_from(v).map_err(|_| format!("value {} exceeds 4294967294", clip(token)));
    }
    match v {
        -1 => Err(
            "negative value -1: 0-based columns with -1 for an empty row? read them with --zero-based"
                .into(),
        ),
        v if v < 0 => Err(format!("negative value {}", clip(token))),
        v => u32::try_from(v).map_err(|_| format!("value {} exceeds 4294967295", clip(token))),
    }
}

/// What a decimal token denotes, read exactly.
#[derive(Debug, PartialEq, Eq)]
enum Decimal {
    /// A whole number (`-0` and `-0.0` are 0).
    Whole(i128),
    /// A number with a fractional part (`2.5`, `2.9999999999999999`: read as a float it
    /// would round to 3, and a row value that is not whole is an error, not a guess).
    Fraction,
    /// A whole number of more than 20 digits (beyond 2^64 in size).
    Huge,
    /// Not a decimal number (`inf` and `nan` included).
    NotANumber,
}

/// Reads `[+-]digits[.digits][(e|E)[+-]digits]` exactly: by hand, since a float parse
/// rounds to 53 bits (`2.9999999999999999` became 3) and Rust's integer parse takes no
/// point or exponent. The digits are only counted and checked, never accumulated past
/// what a whole row value can hold, so a token of any length costs its length.
fn decimal(token: &str) -> Decimal {
    let t = token.as_bytes();
    let (negative, t) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exponent) = match t.iter().position(|&b| b == b'e' || b == b'E') {
        Some(k) => (&t[..k], Some(&t[k + 1..])),
        None => (t, None),
    };
    let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
        Some(k) => (&mantissa[..k], &mantissa[k + 1..]),
        None => (mantissa, &mantissa[mantissa.len()..]),
    };
    let digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    if int.len() + frac.len() == 0 || !digits(int) || !digits(frac) {
        return Decimal::NotANumber;
    }
    // The exponent, clamped: beyond +-10^6 it decides alone (a digit string that long is
    // all zeros, or the value is huge or fractional either way).
    let exp: i64 = match exponent {
        None => 0,
        Some(e) => {
            let (sign, e) = match e.first() {
                Some(b'-') => (-1, &e[1..]),
                Some(b'+') => (1, &e[1..]),
                _ => (1, e),
            };
            if e.is_empty() || !digits(e) {
                return Decimal::NotANumber;
            }
            let e = e.iter().skip_while(|&&b| b == b'0').collect::<Vec<_>>();
            if e.len() > 7 {
                sign * 10_000_000
            } else {
                sign * e.iter().fold(0i64, |a, &&b| a * 10 + (b - b'0') as i64)
            }
        }
    };
    // All digits as one string D, the value being D x 10^(exp - |frac|); leading zeros
    // and trailing zeros do not change whether it is whole.
    let all: Vec<u8> = int.iter().chain(frac).copied().collect();
    let Some(first) = all.iter().position(|&b| b != b'0') else {
        return Decimal::Whole(0);
    };
    let last = all
        .iter()
        .rposition(|&b| b != b'0')
        .expect("a nonzero digit");
    let significant = &all[first..=last];
    // The power of ten of the last significant digit.
    let scale = exp - frac.len() as i64 + (all.len() - 1 - last) as i64;
    if scale < 0 {
        return Decimal::Fraction;
    }
    if significant.len() as i64 + scale > 20 {
        return Decimal::Huge;
    }
    let mut v: i128 = 0;
    for &b in significant {
        v = v * 10 + (b - b'0') as i128;
    }
    for _ in 0..scale {
        v *= 10;
    }
    Decimal::Whole(if negative { -v } else { v })
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
    use proptest::prelude::*;

    /// The reading of every line through the `char` split, which the byte split must agree
    /// with on ASCII lines.
    fn by_chars(text: &str, base: IndexBase) -> Result<Vec<u32>, (u64, String)> {
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with('#') {
                continue;
            }
            for token in line
                .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
                .filter(|t| !t.is_empty())
            {
                rows.push(parse_value(token, base).map_err(|d| (i as u64 + 1, d))?);
            }
        }
        Ok(rows)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The fast path reads what the exact reading does, where it reads at all.
        #[test]
        fn small_whole_numbers_read_as_decimal_reads_them(
            token in "[0-9+.e-]{0,12}",
            digits in "[0-9]{1,12}",
        ) {
            for t in [token, digits] {
                if let Some(v) = small_whole(t.as_bytes()) {
                    prop_assert_eq!(decimal(&t), Decimal::Whole(v.into()));
                }
            }
        }

        /// Text of digits, signs, points, exponents, every separator, comments, and a few
        /// characters beyond ASCII (a no-break space separates; `é` is no number).
        #[test]
        fn the_byte_split_reads_as_the_char_split(
            text in proptest::collection::vec(
                prop_oneof![
                    8 => proptest::char::range('0', '9'),
                    1 => proptest::sample::select(vec![
                        ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', ',', ';', '#', '.', 'e',
                        '-', '+', '\u{a0}', '\u{85}', 'é', '\u{1c}',
                    ]),
                ],
                0..80,
            ).prop_map(|c| c.into_iter().collect::<String>()),
            zero_based in any::<bool>(),
        ) {
            let base = if zero_based { IndexBase::Zero } else { IndexBase::One };
            let p = Path::new("x");
            let got = parse_based(p, text.as_bytes(), base);
            match by_chars(&text, base) {
                Ok(rows) if rows.is_empty() => {
                    prop_assert!(matches!(got.unwrap_err().problem, ErrorKind::Empty));
                }
                Ok(rows) => {
                    prop_assert_eq!(&got.unwrap(), &rows);
                    let bytes = parse_le_bytes(p, text.as_bytes(), base).unwrap();
                    prop_assert_eq!(crate::format::le::to_rows(&bytes), rows);
                }
                Err((line, detail)) => {
                    let e = got.unwrap_err();
                    prop_assert!(
                        matches!(&e.problem, ErrorKind::Text { line: l, detail: d } if *l == line && *d == detail),
                        "{:?}", e.problem
                    );
                }
            }
        }
    }

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
    fn decimals_are_read_exactly() {
        use Decimal::*;
        for (t, want) in [
            ("3", Whole(3)),
            ("3.0", Whole(3)),
            ("+3.", Whole(3)),
            (".3e1", Whole(3)),
            ("30e-1", Whole(3)),
            ("3.000000000000000000e+00", Whole(3)),
            ("0.003e3", Whole(3)),
            ("-0", Whole(0)),
            ("-0.0e-9", Whole(0)),
            ("000", Whole(0)),
            ("-1", Whole(-1)),
            ("-1.0", Whole(-1)),
            ("2.9999999999999999", Fraction),
            ("3.0000000000000001", Fraction),
            ("2.5", Fraction),
            ("31e-1", Fraction),
            ("1e-10000000000000", Fraction),
            ("4294967295", Whole(4294967295)),
            ("4.294967295e9", Whole(4294967295)),
            ("1e19", Whole(10_000_000_000_000_000_000)),
            ("1e20", Huge),
            ("1e99999999999999999999", Huge),
            ("0e99999999999999999999", Whole(0)),
            ("123456789012345678901", Huge),
            ("", NotANumber),
            (".", NotANumber),
            ("e5", NotANumber),
            ("1e", NotANumber),
            ("1.2.3", NotANumber),
            ("--1", NotANumber),
            ("inf", NotANumber),
            ("nan", NotANumber),
            ("0x10", NotANumber),
            ("1_000", NotANumber),
        ] {
            assert_eq!(decimal(t), want, "{t:?}");
        }
    }

    #[test]
    fn values_that_round_to_whole_as_floats_are_refused() {
        let p = Path::new("x");
        let err = parse(p, b"2\n4\n1\n2.9999999999999999\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 4") && err.contains("not a whole number"),
            "{err}"
        );
        let err = parse_based(p, b"1\n-0.99999999999999999\n", IndexBase::Zero).unwrap_err();
        assert!(err.to_string().contains("not a whole number"), "{err}");
        assert_eq!(
            parse_based(p, b"1\n-1.0\n-0\n", IndexBase::Zero).unwrap(),
            vec![2, 0, 1]
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
