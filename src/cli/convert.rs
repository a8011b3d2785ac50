//! `nqueens convert`: one composition file to another format, streamed.

use super::{Error, Progress, exit};
use crate::format::{Encoding, Input, OutputFormat, RowWriter, nqb::DEFAULT_FRAME_ROWS};
use std::path::PathBuf;

/// Arguments of `convert`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The input (NQB raw or zstd, MAT v5/v7, text), recognised by content.
    input: PathBuf,
    /// The output file; written under a temporary name and renamed when complete.
    output: PathBuf,
    /// Output format; by default from OUT's extension (.txt/.csv/.dat text, .mat MAT v7,
    /// .zst/.nqbz NQB zstd, anything else NQB raw).
    #[arg(long, value_enum)]
    to: Option<Target>,
    /// The MAT variable to read (default: the only numeric vector).
    #[arg(long)]
    var: Option<String>,
    /// NQB payload encoding.
    #[arg(long, value_enum)]
    encoding: Option<NqbEncoding>,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

/// `--to` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Target {
    /// NQB (raw unless --encoding zstd).
    Nqb,
    /// One value per line.
    Text,
    /// MAT v7: Level 5 with the variable zlib-compressed (MATLAB's default `save`).
    Mat,
    /// MAT v6: Level 5 uncompressed.
    MatV6,
}

/// `--encoding` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum NqbEncoding {
    /// One little-endian u32 per row.
    Raw,
    /// zstd seekable frames.
    Zstd,
}

/// Runs `convert`.
pub fn run(a: Args) -> Result<i32, Error> {
    if same_file(&a.input, &a.output) {
        return Err(Error::Usage(format!(
            "convert: {}: the output would overwrite the input",
            a.output.display()
        )));
    }
    let nqb = |e: Option<NqbEncoding>| match e {
        Some(NqbEncoding::Zstd) => OutputFormat::Nqb(Encoding::Zstd {
            frame_rows: DEFAULT_FRAME_ROWS,
        }),
        _ => OutputFormat::Nqb(Encoding::Raw),
    };
    let format = match (a.to, a.encoding) {
        (Some(Target::Nqb), e) => nqb(e),
        (None, Some(e)) => nqb(Some(e)),
        (Some(_), Some(_)) => {
            return Err(Error::Usage(
                "convert: --encoding applies to NQB output only".into(),
            ));
        }
        (Some(Target::Text), None) => OutputFormat::Text,
        (Some(Target::Mat), None) => OutputFormat::Mat { compressed: true },
        (Some(Target::MatV6), None) => OutputFormat::Mat { compressed: false },
        (None, None) => OutputFormat::from_path(&a.output),
    };
    let input = Input::open_var(&a.input, a.var.as_deref())?;
    let progress = Progress::start(a.quiet, format!("converting {} rows", input.n()));
    let file = RowWriter::copy(&input, &a.output, format)?;
    file.commit()?;
    progress.finish();
    Ok(exit::OK)
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
