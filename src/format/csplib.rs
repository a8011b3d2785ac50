//! CSPLib problem 079 parameter files: n-queens completion instances (`letting n = 8`,
//! `letting init = [[0,3],[5,1]]`, rows and columns 0-based) and Excluded Diagonals
//! instances (`n = 10`, `numdiags = 12`, `diags = [[d,t],...]`). See `formats/csplib.md`.

use super::{AtomicFile, ErrorKind, FormatError, clip, quote};
use crate::excluded::{Diagonal, ExcludedDiagonals};
use std::io::{BufWriter, Write};
use std::path::Path;

/// What a parameter file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamFile {
    /// A completion instance: the composition, `rows[i]` = 1-based column of row i + 1.
    Completion(Placed),
    /// An Excluded Diagonals instance.
    Excluded(ExcludedDiagonals),
}

/// Whether `head` (a file's first bytes) looks like a parameter file: text whose first
/// line, after comments, is `language ...`, `letting ...`, `name = ...` or `name be ...`.
pub fn sniff(head: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(utf8_prefix(head)) else {
        return false;
    };
    let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('$') && !l.starts_with('#'))
    else {
        return false;
    };
    let word_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    let (word, rest) = line.split_at(word_end);
    word.starts_with(|c: char| c.is_ascii_alphabetic())
        && (matches!(word, "language" | "letting")
            || rest.trim_start().starts_with('=')
            || (rest.starts_with(char::is_whitespace)
                && rest
                    .trim_start()
                    .strip_prefix("be")
                    .is_some_and(|t| t.starts_with(char::is_whitespace))))
}

/// The longest prefix of `b` that does not end inside a UTF-8 sequence.
fn utf8_prefix(b: &[u8]) -> &[u8] {
    match std::str::from_utf8(b) {
        Ok(_) => b,
        Err(e) if e.error_len().is_none() => &b[..e.valid_up_to()],
        Err(_) => b,
    }
}

/// A value on the right of `=`: an integer or a list.
#[derive(Debug, Clone)]
enum Value {
    Int(i64),
    List(Vec<Value>),
}

/// One `name = value` statement and the line it starts on.
struct Statement {
    name: String,
    line: u64,
    value: Value,
}

/// The largest parameter file read: a completion instance of n = 10^6 with every queen
/// given is about 16 MB.
pub const MAX_BYTES: u64 = 64 << 20;

/// Reads the parameter file at `path`; `diags` as in [`parse`].
pub fn read_file(path: &Path, diags: Option<u64>) -> Result<ParamFile, FormatError> {
    let text = super::read_bounded(path, MAX_BYTES, "a CSPLib parameter file")?;
    if !sniff(&text[..text.len().min(512)]) {
        return Err(FormatError::new(
            path,
            ErrorKind::Csplib(
                "not a CSPLib parameter file (expected `n = ...` or `letting n = ...`)".into(),
            ),
        ));
    }
    parse(path, &text, diags)
}

/// Parses `text`; `diags` overrides `numdiags` of an Excluded Diagonals file.
pub fn parse(path: &Path, text: &[u8], diags: Option<u64>) -> Result<ParamFile, FormatError> {
    let fail = |line, detail| FormatError::new(path, ErrorKind::Text { line, detail });
    let whole = |detail: String| FormatError::new(path, ErrorKind::Csplib(detail));
    let text = super::text::utf8(path, text)?;
    let statements = Parser::new(text)
        .statements()
        .map_err(|(l, d)| fail(l, d))?;
    let get = |name: &str| statements.iter().find(|s| s.name == name);
    for s in &statements {
        if !matches!(s.name.as_str(), "n" | "init" | "numdiags" | "diags") {
            return Err(fail(
                s.line,
                format!(
                    "unknown parameter `{}` (expected n, init, numdiags, diags)",
                    clip(&s.name)
                ),
            ));
        }
        if statements.iter().filter(|t| t.name == s.name).count() > 1 {
            return Err(fail(s.line, format!("`{}` is given twice", s.name)));
        }
    }
    let n_stmt = get("n").ok_or_else(|| whole("no `n` (board size) given".into()))?;
    let n = match n_stmt.value {
        Value::Int(v) if v >= 1 && v <= crate::board::MAX_N as i64 => v as u64,
        _ => {
            return Err(fail(
                n_stmt.line,
                "n must be an integer in 1..=4294967295".into(),
            ));
        }
    };
    match (get("init"), get("diags")) {
        (Some(init), None) => {
            if let Some(s) = get("numdiags") {
                return Err(fail(s.line, "`numdiags` belongs to Excluded Diagonals files, which have no `init`".into()));
            }
            let pairs = pairs(&init.value).map_err(|d| fail(init.line, format!("init: {d}")))?;
            completion(n, &pairs).map_err(|d| fail(init.line, d)).map(ParamFile::Completion)
        }
        (None, Some(ds)) => {
            if n > MAX_EXCLUDED_N {
                return Err(fail(n_stmt.line, format!(
                    "n = {n}: Excluded Diagonals instances are reduced in memory (about 266n rows), up to n = {MAX_EXCLUDED_N}"
                )));
            }
            let pairs = pairs(&ds.value).map_err(|d| fail(ds.line, format!("diags: {d}")))?;
            let declared = match get("numdiags") {
                Some(s) => match s.value {
                    Value::Int(v) if v >= 0 => Some((v as u64, s.line)),
                    _ => return Err(fail(s.line, "numdiags must be a non-negative integer".into())),
                },
                None => None,
            };
            let take = match (diags, declared) {
                (Some(d), _) => d,
                (None, Some((d, _))) => d,
                (None, None) => pairs.len() as u64,
            };
            if take > pairs.len() as u64 {
                let line = declared.map_or(ds.line, |d| d.1);
                return Err(fail(line, format!("{take} diagonals asked for, but diags lists {}", pairs.len())));
            }
            let mut chosen = Vec::with_capacity(take as usize);
            for (i, &(d, t)) in pairs.iter().take(take as usize).enumerate() {
                if d < 0 || d as u64 > 2 * n - 2 || !(0..=1).contains(&t) {
                    return Err(fail(ds.line, format!(
                        "diags[{i}] = [{d},{t}]: expected d in 0..={} and t 0 (difference) or 1 (sum)",
                        2 * n - 2
                    )));
                }
                chosen.push(Diagonal { d: d as u64, is_sum: t == 1 });
            }
            Ok(ParamFile::Excluded(ExcludedDiagonals::new(n, &chosen)))
        }
        (Some(_), Some(_)) => Err(whole("both `init` and `diags`: a file is a completion or an excluded-diagonals instance, not both".into())),
        (None, None) => Err(whole("neither `init` (completion) nor `diags` (excluded diagonals) given".into())),
    }
}

/// The largest Excluded Diagonals board read: its reduction (about 266n rows, see
/// [`ExcludedDiagonals::reduce`]) is built in memory, about 100 MB at this n.
pub const MAX_EXCLUDED_N: u64 = 100_000;

/// The queens of a completion instance: memory grows with the queens listed, not with n,
/// so a few bytes declaring a huge board cost nothing until the board is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// Board size.
    pub n: u64,
    /// (0-based row, 1-based column), by increasing row, one per row at most.
    pub queens: Vec<(u64, u32)>,
}

impl Placed {
    /// Every row: for small boards and tests.
    pub fn rows(&self) -> Vec<u32> {
        let mut rows = vec![0; self.n as usize];
        for &(r, c) in &self.queens {
            rows[r as usize] = c;
        }
        rows
    }
}

/// The composition of a completion instance from its 0-based `[row, col]` pairs.
fn completion(n: u64, pairs: &[(i64, i64)]) -> Result<Placed, String> {
    let mut queens = Vec::with_capacity(pairs.len());
    for (i, &(r, c)) in pairs.iter().enumerate() {
        if r < 0 || c < 0 || r as u64 >= n || c as u64 >= n {
            return Err(format!(
                "init[{i}] = [{r},{c}] is off the board: rows and columns are 0..={}",
                n - 1
            ));
        }
        queens.push((r as u64, c as u32 + 1, i));
    }
    queens.sort_unstable();
    if let Some(w) = queens.windows(2).find(|w| w[0].0 == w[1].0) {
        let (a, b) = (w[0].2.min(w[1].2), w[0].2.max(w[1].2));
        return Err(format!(
            "init[{a}] and init[{b}] are both in row {}",
            w[0].0
        ));
    }
    Ok(Placed {
        n,
        queens: queens.into_iter().map(|(r, c, _)| (r, c)).collect(),
    })
}

/// A list of integer pairs.
fn pairs(v: &Value) -> Result<Vec<(i64, i64)>, String> {
    let Value::List(items) = v else {
        return Err("expected a list of pairs like [[0,3],[5,1]]".into());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::List(p) => match p.as_slice() {
                [Value::Int(a), Value::Int(b)] => Ok((*a, *b)),
                _ => Err(format!("item {i} is not a pair of integers")),
            },
            Value::Int(_) => Err(format!("item {i} is a number, not a pair")),
        })
        .collect()
}

/// A recursive-descent reader of `[letting] name (=|be) value` statements, skipping
/// `$` and `#` comments and the `language` line.
struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    line: u64,
}

type Parsed<T> = Result<T, (u64, String)>;

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            s: text.as_bytes(),
            pos: 0,
            line: 1,
        }
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.s.get(self.pos) {
            match b {
                b'\n' => {
                    self.line += 1;
                    self.pos += 1;
                }
                b'$' | b'#' => {
                    while self.s.get(self.pos).is_some_and(|&b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                b if b.is_ascii_whitespace() => self.pos += 1,
                _ => break,
            }
        }
    }

    fn word(&mut self) -> Option<String> {
        self.skip_space();
        let start = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.pos += 1;
        }
        (self.pos > start).then(|| String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
    }

    fn error<T>(&self, what: &str) -> Parsed<T> {
        let found = match self.s.get(self.pos) {
            None => "the end of the file".to_string(),
            Some(&b) => format!("{:?}", b as char),
        };
        Err((self.line, format!("expected {what}, found {found}")))
    }

    fn statements(mut self) -> Parsed<Vec<Statement>> {
        let mut out = Vec::new();
        loop {
            self.skip_space();
            if self.pos >= self.s.len() {
                return Ok(out);
            }
            let line = self.line;
            let mut name = match self.word() {
                Some(w) => w,
                None => return self.error("a parameter name"),
            };
            if name == "language" {
                while self.s.get(self.pos).is_some_and(|&b| b != b'\n') {
                    self.pos += 1;
                }
                continue;
            }
            if name == "letting" {
                name = match self.word() {
                    Some(w) => w,
                    None => return self.error("a parameter name after `letting`"),
                };
            }
            self.skip_space();
            if self.s.get(self.pos) == Some(&b'=') {
                self.pos += 1;
            } else if self.word().as_deref() != Some("be") {
                return self.error("`=` or `be`");
            }
            let value = self.value(0)?;
            out.push(Statement { name, line, value });
        }
    }

    fn value(&mut self, depth: u32) -> Parsed<Value> {
        self.skip_space();
        if depth > 4 {
            return Err((self.line, "lists nested too deeply".into()));
        }
        match self.s.get(self.pos) {
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_space();
                if self.s.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Ok(Value::List(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_space();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Value::List(items));
                        }
                        _ => return self.error("`,` or `]`"),
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                self.pos += 1;
                while self.s.get(self.pos).is_some_and(u8::is_ascii_digit) {
                    self.pos += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.pos]).unwrap();
                t.parse().map(Value::Int).map_err(|_| {
                    (
                        self.line,
                        format!("{} is not an integer in range", quote(t)),
                    )
                })
            }
            _ => self.error("a number or a list"),
        }
    }
}

/// Writes a completion instance (`letting n`, `letting init`), appearing only on
/// [`CsplibWriter::finish`].
pub struct CsplibWriter {
    out: BufWriter<AtomicFile>,
    row: u64,
    first: bool,
}

impl CsplibWriter {
    /// Starts a parameter file for an `n`-board at `dest`.
    pub fn create(dest: &Path, n: u64) -> Result<Self, FormatError> {
        let mut w = CsplibWriter {
            out: BufWriter::with_capacity(1 << 16, AtomicFile::create(dest)?),
            row: 0,
            first: true,
        };
        write!(w.out, "letting n = {n}\nletting init = [").map_err(|e| w.fail(e))?;
        Ok(w)
    }

    /// Appends rows; each queen becomes a 0-based `[row,col]` pair.
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        for &c in rows {
            if c != 0 {
                let sep = if std::mem::take(&mut self.first) {
                    ""
                } else {
                    ","
                };
                write!(self.out, "{sep}[{},{}]", self.row, c - 1).map_err(|e| self.fail(e))?;
            }
            self.row += 1;
        }
        Ok(())
    }

    fn fail(&self, e: std::io::Error) -> FormatError {
        FormatError::new(self.out.get_ref().dest(), ErrorKind::Write(e))
    }

    /// Closes the list; returns the complete file, still unpublished.
    pub fn finish(mut self) -> Result<AtomicFile, FormatError> {
        writeln!(self.out, "]").map_err(|e| self.fail(e))?;
        AtomicFile::unbuffer(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<ParamFile, String> {
        parse(Path::new("f"), text.as_bytes(), None).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_completion_files() {
        let f =
            "language ESSENCE' 1.0\n$ Nauck 1850\nletting n = 8\nletting init = [[0,3],[5,1]]\n";
        let mut rows = vec![0; 8];
        rows[0] = 4;
        rows[5] = 2;
        let ParamFile::Completion(got) = p(f).unwrap() else {
            panic!("a completion file")
        };
        assert_eq!(got.rows(), rows);
        assert_eq!(
            p("letting n be 3\nletting init be []").unwrap(),
            ParamFile::Completion(Placed {
                n: 3,
                queens: vec![]
            })
        );
        assert!(sniff(f.as_bytes()) && sniff(b"n = 3") && !sniff(b"# c\n1\n2\n"));
        // `[letting] NAME be VALUE`: `letting` may be left out with `be` too.
        assert!(sniff(b"n be 5\n") && !sniff(b"nbe 5") && !sniff(b"n bee 5"));
    }

    #[test]
    fn reads_excluded_diagonals_files() {
        let f = "n = 4\nnumdiags = 2\ndiags = [[3,1],[0,0],[6,1]]\n";
        let want = ExcludedDiagonals::new(
            4,
            &[
                Diagonal { d: 3, is_sum: true },
                Diagonal {
                    d: 0,
                    is_sum: false,
                },
            ],
        );
        assert_eq!(p(f).unwrap(), ParamFile::Excluded(want));
        let all = parse(Path::new("f"), f.as_bytes(), Some(3)).unwrap();
        let ParamFile::Excluded(e) = all else {
            panic!()
        };
        assert!(e.sum[6]);
    }

    #[test]
    fn rejects_with_reasons() {
        let e = p("letting n = 4\nletting init = [[0,1],[4,0]]").unwrap_err();
        assert_eq!(
            e,
            "f: line 2: init[1] = [4,0] is off the board: rows and columns are 0..=3"
        );
        assert!(
            p("letting n = 4\nletting init = [[1,1],[1,2]]")
                .unwrap_err()
                .contains("both in row 1")
        );
        assert!(
            p("n = 4\nnumdiags = 3\ndiags = [[1,1]]")
                .unwrap_err()
                .contains("line 2")
        );
        assert!(
            p("n = 4\ndiags = [[7,1]]")
                .unwrap_err()
                .contains("diags[0] = [7,1]")
        );
        assert!(
            p("n = 4\ninit = [[0,1]\n")
                .unwrap_err()
                .contains("expected `,` or `]`, found the end of the file")
        );
        assert!(
            p("n = 4\nint = []")
                .unwrap_err()
                .contains("unknown parameter `int`")
        );
        assert!(p("init = []").unwrap_err().contains("no `n`"));
        assert!(p("n = 0\ninit = []").unwrap_err().contains("n must be"));
    }
}
