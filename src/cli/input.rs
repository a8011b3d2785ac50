//! The input options every reading subcommand shares, and opening an input.

use super::Error;
use super::alloc;
use nqueens::format::nqb::DEFAULT_FRAME_ROWS;
use nqueens::format::{Encoding, MmapChoice, OpenOptions, OutputFormat};
/// The input choices every subcommand that reads compositions takes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct InputArgs {
    /// The MAT variable to read (default: the only numeric vector).
    #[arg(long, value_name = "NAME")]
    var: Option<String>,
    /// From a CSPLib Excluded Diagonals file, take the first D diagonals of `diags`
    /// (default: `numdiags`).
    #[arg(long, value_name = "D")]
    diags: Option<u64>,
    /// The file's columns are 0-based (0..n-1) with -1 for an empty row, as NumPy code
    /// often holds them; they are read as 1..n with 0 (text, NumPy, MAT, Octave, HDF5).
    /// Outputs are written 1-based, except a `.npy` answer to a `.npy` input, which keeps
    /// that input's dtype and index base (formats/npy.md).
    #[arg(long)]
    zero_based: bool,
}

impl InputArgs {
    /// As the format layer takes them.
    pub(super) fn options(&self) -> OpenOptions {
        OpenOptions {
            var: self.var.clone(),
            diags: self.diags,
            mmap: mapped(),
            index_base: if self.zero_based {
                nqueens::format::IndexBase::Zero
            } else {
                nqueens::format::IndexBase::One
            },
        }
    }
}

/// The `--encoding` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum EncodingArg {
    /// NQB, one little-endian u32 per row.
    Raw,
    /// NQB, zstd seekable frames.
    Zstd,
    /// One value per line.
    Text,
    /// MAT v7 (Level 5, compressed), one uint32 vector `Q`.
    Mat,
    /// CSPLib 079 completion parameter file.
    Csplib,
    /// NumPy .npy, one uint32 vector.
    Npy,
}

impl EncodingArg {
    /// The output format this choice names.
    pub fn format(self) -> OutputFormat {
        match self {
            EncodingArg::Raw => OutputFormat::Nqb(Encoding::Raw),
            EncodingArg::Zstd => OutputFormat::Nqb(Encoding::Zstd {
                frame_rows: DEFAULT_FRAME_ROWS,
            }),
            EncodingArg::Text => OutputFormat::Text,
            EncodingArg::Mat => OutputFormat::Mat {
                compressed: true,
                layout: Default::default(),
            },
            EncodingArg::Csplib => OutputFormat::Csplib,
            EncodingArg::Npy => OutputFormat::Npy(Default::default()),
        }
    }
}

/// Inputs are memory-mapped: a pass over a 4 GB file then costs no copy and no buffer.
pub(super) fn mapped() -> MmapChoice {
    // SAFETY: README's "Files" section asks users not to change an input while nqueens
    // reads it; if one is truncated anyway, the SIGBUS handler (`install_bus_error_handler`)
    // turns the fault into a one-line error and exit code 2, removing temporary files.
    unsafe { MmapChoice::auto() }
}

/// Refuses to write a binary format to standard output when it is a terminal, as zstd
/// does: the bytes would garble the screen and be lost.
pub(super) fn refuse_binary_on_terminal(
    path: &std::path::Path,
    format: nqueens::format::OutputFormat,
) -> Result<(), Error> {
    use nqueens::format::OutputFormat::{Csplib, Text};
    use std::io::IsTerminal;
    if nqueens::format::writes_stdout(path)
        && !matches!(format, Text | Csplib)
        && std::io::stdout().is_terminal()
    {
        return Err(Error::Usage(
            "-: the output is binary and standard output is a terminal: redirect it (> FILE), pipe it, or name a file".into(),
        ));
    }
    Ok(())
}

/// Opens an input, naming it in an out-of-memory message from now on (see [`alloc`]).
pub(super) fn open_input(
    path: impl AsRef<std::path::Path>,
    opts: &nqueens::format::OpenOptions,
) -> Result<nqueens::format::Input, nqueens::format::FormatError> {
    alloc::working_on(path.as_ref());
    nqueens::format::Input::open_with(path.as_ref(), opts)
}
