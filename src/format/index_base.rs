//! How a file numbers its columns (1-based or 0-based), and the turning of its stored
//! values into 1-based row values.

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
