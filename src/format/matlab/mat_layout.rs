//! How a MATLAB-family answer is laid out: the variable's name, its class and whether it is
//! a row or a column. An answer to a MAT or Octave input is written like the input's
//! variable by default, so that a user's `load` gives back what they saved.

/// A MATLAB numeric class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatClass {
    /// `double`, MATLAB's default.
    Double,
    /// `single`.
    Single,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
}

impl MatClass {
    /// Every class, in MATLAB's order.
    pub const ALL: [MatClass; 10] = [
        MatClass::Double,
        MatClass::Single,
        MatClass::Int8,
        MatClass::UInt8,
        MatClass::Int16,
        MatClass::UInt16,
        MatClass::Int32,
        MatClass::UInt32,
        MatClass::Int64,
        MatClass::UInt64,
    ];

    /// The class's MATLAB name.
    pub fn name(self) -> &'static str {
        match self {
            MatClass::Double => "double",
            MatClass::Single => "single",
            MatClass::Int8 => "int8",
            MatClass::UInt8 => "uint8",
            MatClass::Int16 => "int16",
            MatClass::UInt16 => "uint16",
            MatClass::Int32 => "int32",
            MatClass::UInt32 => "uint32",
            MatClass::Int64 => "int64",
            MatClass::UInt64 => "uint64",
        }
    }

    /// The class a MATLAB or Octave type name names (`float` is Octave's `single`).
    pub fn from_name(name: &str) -> Option<MatClass> {
        match name {
            "float" => Some(MatClass::Single),
            _ => Self::ALL.into_iter().find(|c| c.name() == name),
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            MatClass::Int8 | MatClass::UInt8 => 1,
            MatClass::Int16 | MatClass::UInt16 => 2,
            MatClass::Single | MatClass::Int32 | MatClass::UInt32 => 4,
            MatClass::Double | MatClass::Int64 | MatClass::UInt64 => 8,
        }
    }

    /// The largest column number every value up to which the class holds exactly.
    pub fn largest(self) -> u64 {
        match self {
            MatClass::Int8 => i8::MAX as u64,
            MatClass::UInt8 => u8::MAX as u64,
            MatClass::Int16 => i16::MAX as u64,
            MatClass::UInt16 => u16::MAX as u64,
            MatClass::Single => 1 << 24,
            MatClass::Int32 => i32::MAX as u64,
            MatClass::UInt32 => u32::MAX as u64,
            MatClass::Double => 1 << 53,
            MatClass::Int64 => i64::MAX as u64,
            MatClass::UInt64 => u64::MAX,
        }
    }

    /// Why this class cannot hold every column of an `n`-board, if it cannot.
    pub fn refusal(self, n: u64) -> Option<String> {
        (self.largest() < n).then(|| {
            format!(
                "{self} holds columns up to {}, not up to n = {n}",
                self.largest()
            )
        })
    }

    /// Appends `rows` (1-based columns, 0 = empty) as elements of this class in
    /// little-endian order; every value must be at most [`MatClass::largest`].
    pub(crate) fn extend_le(self, out: &mut Vec<u8>, rows: &[u32]) {
        macro_rules! each {
            ($t:ty) => {
                for &r in rows {
                    out.extend_from_slice(&(r as $t).to_le_bytes());
                }
            };
        }
        match self {
            MatClass::Double => each!(f64),
            MatClass::Single => each!(f32),
            MatClass::Int8 => each!(i8),
            MatClass::UInt8 => each!(u8),
            MatClass::Int16 => each!(i16),
            MatClass::UInt16 => each!(u16),
            MatClass::Int32 => each!(i32),
            MatClass::UInt32 => each!(u32),
            MatClass::Int64 => each!(i64),
            MatClass::UInt64 => each!(u64),
        }
    }
}

impl std::fmt::Display for MatClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The longest variable name MATLAB takes (`namelengthmax`).
const NAME_MAX: usize = 63;

/// A MATLAB variable name: a letter, then letters, digits and underscores, at most 63.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct VarName {
    bytes: [u8; NAME_MAX],
    len: u8,
}

impl VarName {
    /// `name` when it is a valid MATLAB variable name.
    pub fn new(name: &str) -> Option<VarName> {
        let b = name.as_bytes();
        let valid = !b.is_empty()
            && b.len() <= NAME_MAX
            && b[0].is_ascii_alphabetic()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
        valid.then(|| {
            let mut bytes = [0; NAME_MAX];
            bytes[..b.len()].copy_from_slice(b);
            VarName {
                bytes,
                len: b.len() as u8,
            }
        })
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize]).expect("ASCII by construction")
    }
}

impl std::fmt::Debug for VarName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// How a MATLAB-family answer is written: variable name, class, row or column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatLayout {
    /// The variable's name.
    pub name: VarName,
    /// Its class.
    pub class: MatClass,
    /// Whether it is an n x 1 column (else a 1 x n row).
    pub column: bool,
}

/// The variable a MATLAB or Octave file was read from: its layout, and the file's other
/// variables (which an answer does not copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatSource {
    /// Name, class and orientation.
    pub layout: MatLayout,
    /// The names of the file's other variables.
    pub others: Vec<String>,
}

impl MatSource {
    /// The variable `layout` of a file whose variables are `names`.
    pub(crate) fn among(layout: MatLayout, chosen: &str, names: &[String]) -> MatSource {
        MatSource {
            layout,
            others: names.iter().filter(|n| *n != chosen).cloned().collect(),
        }
    }

    /// The other variables' names for a message: the first few, then how many more (a
    /// file may hold 200,000), each cut short and escaped.
    pub fn others_listing(&self) -> String {
        crate::format::listing(self.others.iter().map(|n| crate::format::clip(n)))
    }
}

impl Default for MatLayout {
    /// `Q`, `uint32`, a row: the seed program's `zeros(1, n, 'uint32')`.
    fn default() -> Self {
        MatLayout {
            name: VarName::new("Q").expect("a valid name"),
            class: MatClass::UInt32,
            column: false,
        }
    }
}

impl MatLayout {
    /// The layout of a vector a reader found: its name (or `Q` when MATLAB would not take
    /// it), class and orientation (a column when it has more than one row).
    pub(crate) fn found(name: &str, class: MatClass, rows: u64, columns: u64) -> MatLayout {
        MatLayout {
            name: VarName::new(name).unwrap_or(MatLayout::default().name),
            class,
            column: rows > 1 && columns == 1,
        }
    }

    /// MATLAB's dimensions of an n-element vector laid out this way.
    pub fn dims(&self, n: u64) -> [u64; 2] {
        if self.column { [n, 1] } else { [1, n] }
    }

    /// This layout for an n-row answer: its class when that holds every column up to n,
    /// else `double` (which holds every n), and whether the class was changed.
    pub fn holding(self, n: u64) -> (MatLayout, bool) {
        if self.class.largest() >= n {
            (self, false)
        } else {
            (
                MatLayout {
                    class: MatClass::Double,
                    ..self
                },
                true,
            )
        }
    }
}

impl std::fmt::Display for MatLayout {
    /// `Q, a 1 x n double row` or `P, an n x 1 uint32 column`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.name.as_str();
        match self.column {
            false => write!(f, "{name}, a 1 x n {} row", self.class),
            true => write!(f, "{name}, an n x 1 {} column", self.class),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_classes_and_holding() {
        assert!(VarName::new("Q_2").is_some());
        for bad in ["", "2Q", "Q-1", "a b", &"x".repeat(64)] {
            assert!(VarName::new(bad).is_none(), "{bad:?}");
        }
        assert_eq!(VarName::new(&"x".repeat(63)).unwrap().as_str().len(), 63);
        for c in MatClass::ALL {
            assert_eq!(MatClass::from_name(c.name()), Some(c));
        }
        assert_eq!(MatClass::from_name("float"), Some(MatClass::Single));
        let l = MatLayout::found("P", MatClass::UInt8, 300, 1);
        assert!(l.column);
        assert_eq!(l.holding(255), (l, false));
        let (wide, changed) = l.holding(256);
        assert!(changed && wide.class == MatClass::Double && wide.column);
        assert_eq!(
            MatLayout::found("1bad", MatClass::Double, 1, 5)
                .name
                .as_str(),
            "Q"
        );
        assert_eq!(MatLayout::default().to_string(), "Q, a 1 x n uint32 row");
        let mut out = Vec::new();
        MatClass::Int16.extend_le(&mut out, &[1, 300]);
        assert_eq!(out, [1, 0, 44, 1]);
    }
}
