//! The layout of a `.npy` answer: `--npy-dtype`, `--npy-shape`, `--npy-base`, by default
//! the input's own when it is a `.npy` file (dtype, shape, index base), else `<u4`, `(n,)`,
//! 1-based.

use super::Error;
use nqueens::format::{NpyShape, OutputFormat};

/// How to lay out a `.npy` answer.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct NpyArgs {
    /// `.npy` output: the dtype (uint8 ... uint64, int8 ... int64, float32, float64);
    /// default the input's when it is a `.npy` file that holds every column, else uint32.
    #[arg(long, value_name = "DTYPE")]
    npy_dtype: Option<String>,
    /// `.npy` output: a vector (n,), a row (1, n) or a column (n, 1); default the input's
    /// when it is a `.npy` file, else a vector.
    #[arg(long, value_enum, value_name = "SHAPE")]
    npy_shape: Option<Shape>,
    /// `.npy` output: columns 1..n with 0 for an empty row (1), or 0..n-1 with -1 (0);
    /// default the input's when it is a `.npy` file, else 1.
    #[arg(long, value_name = "BASE", value_parser = clap::value_parser!(u8).range(0..=1))]
    npy_base: Option<u8>,
}

/// `--npy-shape` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Shape {
    /// `(n,)`.
    Vector,
    /// `(1, n)`.
    Row,
    /// `(n, 1)`.
    Column,
}

impl NpyArgs {
    /// `format` for an `n`-row answer with the options applied (an error when they ask
    /// for a layout that cannot hold the columns, or when the output is not `.npy`).
    pub fn apply(&self, format: OutputFormat, n: u64) -> Result<OutputFormat, Error> {
        let given = self.npy_dtype.is_some() || self.npy_shape.is_some() || self.npy_base.is_some();
        let OutputFormat::Npy(mut layout) = format else {
            if given {
                return Err(Error::Usage(
                    "--npy-dtype, --npy-shape and --npy-base apply to .npy output only".into(),
                ));
            }
            return Ok(format);
        };
        if let Some(name) = &self.npy_dtype {
            layout = layout.with_dtype(name).ok_or_else(|| {
                Error::Usage(format!(
                    "--npy-dtype {name}: expected uint8, uint16, uint32, uint64, int8, int16, int32, int64, float32 or float64"
                ))
            })?;
        }
        if let Some(shape) = self.npy_shape {
            layout = layout.with_shape(match shape {
                Shape::Vector => NpyShape::Vector,
                Shape::Row => NpyShape::Row,
                Shape::Column => NpyShape::Column,
            });
        }
        if let Some(base) = self.npy_base {
            layout = layout.with_zero_based(base == 0);
        }
        if given && let Some(why) = layout.refusal(n) {
            return Err(Error::Usage(format!("--npy-dtype/--npy-base: {why}")));
        }
        Ok(OutputFormat::Npy(layout))
    }
}
