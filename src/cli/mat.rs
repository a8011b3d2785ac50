//! The shape of a MAT answer: `--mat-class`, `--mat-name`, `--mat-shape`, by default the
//! input's own variable (class, orientation, name), so that MATLAB gives back what the user
//! saved.

use super::Error;
use nqueens::format::{Input, MatClass, OutputFormat, VarName};

/// How to lay out the variable of a MAT output.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MatArgs {
    /// MAT output: the variable's class (double, single, int8 ... uint64); default the
    /// input variable's class when it holds every column up to n (else double), or uint32.
    #[arg(long, value_name = "CLASS", value_parser = class)]
    mat_class: Option<MatClass>,
    /// MAT output: the variable's name; default the input variable's name, or Q.
    #[arg(long, value_name = "NAME", value_parser = name)]
    mat_name: Option<VarName>,
    /// MAT output: a 1 x n row or an n x 1 column; default the input variable's, or row.
    #[arg(long, value_enum, value_name = "SHAPE")]
    mat_shape: Option<Shape>,
}

/// `--mat-shape` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Shape {
    /// A 1 x n row vector.
    Row,
    /// An n x 1 column vector.
    Column,
}

fn class(s: &str) -> Result<MatClass, String> {
    MatClass::from_name(s).ok_or_else(|| {
        let all: Vec<&str> = MatClass::ALL.iter().map(|c| c.name()).collect();
        format!("expected one of {}", all.join(", "))
    })
}

fn name(s: &str) -> Result<VarName, String> {
    VarName::new(s).ok_or_else(|| {
        "not a MATLAB variable name (a letter, then letters, digits or _, at most 63)".into()
    })
}

impl MatArgs {
    /// Whether any option was given.
    fn given(&self) -> bool {
        self.mat_class.is_some() || self.mat_name.is_some() || self.mat_shape.is_some()
    }

    /// `format` for an `n`-row answer to `input`, its variable laid out by the options, else
    /// like the input's MATLAB or Octave variable, else `Q`, uint32, a row; with the line
    /// that tells the user how it was written (`None` for other formats).
    pub fn apply(
        &self,
        format: OutputFormat,
        input: Option<&Input>,
        n: u64,
    ) -> Result<(OutputFormat, Option<String>), Error> {
        let Some(_) = format.mat_layout() else {
            if self.given() {
                return Err(Error::Usage(
                    "--mat-class, --mat-name and --mat-shape apply to MAT output only".into(),
                ));
            }
            return Ok((format, None));
        };
        let source = input.and_then(Input::mat_source);
        let inherited = source.as_ref().map(|s| s.layout);
        let mut layout = inherited.unwrap_or_default();
        if let Some(c) = self.mat_class {
            if let Some(why) = c.refusal(n) {
                return Err(Error::Usage(format!("--mat-class {why}")));
            }
            layout.class = c;
        }
        if let Some(name) = self.mat_name {
            layout.name = name;
        }
        if let Some(s) = self.mat_shape {
            layout.column = matches!(s, Shape::Column);
        }
        let (layout, widened) = layout.holding(n);
        let mut note = format!("written as {layout}");
        match inherited {
            Some(from) if widened => note.push_str(&format!(
                " (the input's {} cannot hold columns up to n = {n})",
                from.class
            )),
            Some(_) if !self.given() => note.push_str(", like the input's variable"),
            _ => {}
        }
        if let Some(source) = source {
            match source.others.len() {
                0 => {}
                1 => note.push_str(&format!(
                    "; the input's other variable, {}, is not copied",
                    source.others_listing()
                )),
                more => note.push_str(&format!(
                    "; the input's {more} other variables ({}) are not copied",
                    source.others_listing()
                )),
            }
        }
        Ok((format.with_mat_layout(layout), Some(note)))
    }
}
