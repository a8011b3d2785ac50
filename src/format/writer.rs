//! Writing any output format through one atomic row writer.

use super::input::{CSPLIB, MAT5, MAT73, NPY};
use super::matlab::{mat5, mat73};
use super::*;
use std::path::Path;

/// The formats a composition can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// NQB with the given encoding.
    Nqb(Encoding),
    /// One value per line.
    Text,
    /// A Level 5 MAT file with one vector, zlib-compressed (MATLAB `-v7`) or not.
    Mat {
        /// Whether the variable is one miCOMPRESSED element.
        compressed: bool,
        /// The variable's name, class and orientation.
        layout: MatLayout,
    },
    /// A MAT v7.3 (HDF5) file with one vector, for any n.
    Mat73 {
        /// The variable's name, class and orientation.
        layout: MatLayout,
    },
    /// A CSPLib 079 completion parameter file.
    Csplib,
    /// A NumPy `.npy` vector (`<u4`, `(n,)`, 1-based by default).
    Npy(npy::NpyLayout),
}

impl OutputFormat {
    /// The format an input is in, for writing results like it.
    pub fn like(input: &Input) -> OutputFormat {
        match input.encoding() {
            Some(e) => OutputFormat::Nqb(match e {
                Encoding::Raw => Encoding::Raw,
                Encoding::Zstd { .. } => Encoding::Zstd {
                    frame_rows: nqb::DEFAULT_FRAME_ROWS,
                },
            }),
            None if input.format_name() == MAT5 => OutputFormat::Mat {
                compressed: true,
                layout: input.mat_layout().unwrap_or_default(),
            },
            None if input.format_name() == MAT73 => OutputFormat::Mat73 {
                layout: input.mat_layout().unwrap_or_default(),
            },
            None if input.format_name().starts_with(NPY) => {
                OutputFormat::Npy(input.npy_layout().unwrap_or_default())
            }
            None if input.format_name().starts_with(CSPLIB) => OutputFormat::Csplib,
            None => OutputFormat::Text,
        }
    }

    /// Whether an `n`-row result in this format is a MAT v7.3 file (asked for, or a `.mat`
    /// too large for Level 5).
    pub fn is_mat73(self, n: u64) -> bool {
        match self {
            OutputFormat::Mat73 { .. } => true,
            OutputFormat::Mat { layout, .. } => !mat5::fits(n, layout.class),
            _ => false,
        }
    }

    /// How the format numbers columns: 0-based for a `.npy` answer to a 0-based `.npy`
    /// input, else 1-based.
    pub fn index_base(self) -> super::IndexBase {
        match self {
            OutputFormat::Npy(layout) if layout.zero_based() => super::IndexBase::Zero,
            _ => super::IndexBase::One,
        }
    }

    /// For MAT formats, how the variable is laid out.
    pub fn mat_layout(self) -> Option<MatLayout> {
        match self {
            OutputFormat::Mat { layout, .. } | OutputFormat::Mat73 { layout } => Some(layout),
            _ => None,
        }
    }

    /// This format with its MAT variable laid out `layout` (other formats unchanged).
    pub fn with_mat_layout(self, layout: MatLayout) -> OutputFormat {
        match self {
            OutputFormat::Mat { compressed, .. } => OutputFormat::Mat { compressed, layout },
            OutputFormat::Mat73 { .. } => OutputFormat::Mat73 { layout },
            other => other,
        }
    }

    /// The format a path's extension names, when it names one: `.txt`, `.csv`, `.dat`
    /// text, `.mat` MAT v7, `.param` and `.essence` CSPLib, `.npy` NumPy, `.zst` and `.nqbz` compressed NQB,
    /// `.nqb` raw NQB.
    pub fn from_extension(path: &Path) -> Option<OutputFormat> {
        Some(
            match path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .as_deref()?
            {
                "txt" | "csv" | "dat" => OutputFormat::Text,
                "mat" => OutputFormat::Mat {
                    compressed: true,
                    layout: MatLayout::default(),
                },
                "param" | "essence" => OutputFormat::Csplib,
                "npy" => OutputFormat::Npy(Default::default()),
                "zst" | "nqbz" => OutputFormat::Nqb(Encoding::Zstd {
                    frame_rows: nqb::DEFAULT_FRAME_ROWS,
                }),
                "nqb" => OutputFormat::Nqb(Encoding::Raw),
                _ => return None,
            },
        )
    }

    /// The format a path's extension asks for ([`OutputFormat::from_extension`]), raw NQB
    /// when it names none.
    pub fn from_path(path: &Path) -> OutputFormat {
        if is_stdio(path) {
            return OutputFormat::Text;
        }
        Self::from_extension(path).unwrap_or(OutputFormat::Nqb(Encoding::Raw))
    }

    /// The format of a result of `input` written to `path`: the input's own, unless the
    /// extension names another format (`.nqb` keeps an NQB input's encoding, `.mat` a MAT
    /// input's version). A MAT result lays its variable out like the input's MATLAB or
    /// Octave variable, if it has one.
    pub fn for_result(path: &Path, input: &Input) -> OutputFormat {
        let like = Self::like(input);
        let format = match Self::from_extension(path) {
            Some(OutputFormat::Nqb(Encoding::Raw)) if matches!(like, OutputFormat::Nqb(_)) => like,
            Some(OutputFormat::Mat { .. }) if matches!(like, OutputFormat::Mat73 { .. }) => like,
            // An answer to a `.npy` input keeps its dtype, shape and index base.
            Some(OutputFormat::Npy(_)) if matches!(like, OutputFormat::Npy(_)) => like,
            Some(f) => f,
            None => like,
        };
        match input.mat_layout() {
            Some(layout) => format.with_mat_layout(layout),
            None => format,
        }
    }
}

/// A composition being written in any output format; the file appears only on `finish`.
pub enum RowWriter {
    /// NQB output.
    Nqb(Box<NqbWriter>),
    /// Text output.
    Text(text::TextWriter),
    /// MAT v5 output.
    Mat(mat5::MatWriter),
    /// MAT v7.3 output.
    Mat73(mat73::Mat73Writer),
    /// CSPLib completion parameter file.
    Csplib(csplib::CsplibWriter),
    /// NumPy `.npy` output.
    Npy(npy::NpyWriter),
}

impl RowWriter {
    /// Starts writing an `n`-row composition to `dest`.
    pub fn create(dest: &Path, n: u64, format: OutputFormat) -> Result<Self, FormatError> {
        Ok(match format {
            OutputFormat::Nqb(e) => RowWriter::Nqb(Box::new(NqbWriter::create(dest, n, e)?)),
            OutputFormat::Text => RowWriter::Text(text::TextWriter::create(dest)?),
            // Level 5 variables end at 2^31 bytes; MATLAB saves larger ones as v7.3 too.
            format if format.is_mat73(n) => RowWriter::Mat73(mat73::Mat73Writer::create(
                dest,
                n,
                format.mat_layout().expect("a MAT format"),
            )?),
            OutputFormat::Mat { compressed, layout } => {
                RowWriter::Mat(mat5::MatWriter::create(dest, n, layout, compressed)?)
            }
            OutputFormat::Mat73 { .. } => unreachable!("matched above"),
            OutputFormat::Csplib => RowWriter::Csplib(csplib::CsplibWriter::create(dest, n)?),
            OutputFormat::Npy(layout) => RowWriter::Npy(npy::NpyWriter::create(dest, n, layout)?),
        })
    }

    /// Appends rows.
    pub fn write_rows(&mut self, rows: &[u32]) -> Result<(), FormatError> {
        crate::progress::meter().add_written(rows.len() as u64);
        match self {
            RowWriter::Nqb(w) => w.write_rows(rows),
            RowWriter::Text(w) => w.write_rows(rows),
            RowWriter::Mat(w) => w.write_rows(rows),
            RowWriter::Mat73(w) => w.write_rows(rows),
            RowWriter::Csplib(w) => w.write_rows(rows),
            RowWriter::Npy(w) => w.write_rows(rows),
        }
    }

    /// Completes the file; returns it still unpublished ([`AtomicFile::commit`] publishes).
    pub fn finish(self) -> Result<AtomicFile, FormatError> {
        match self {
            RowWriter::Nqb(w) => w.finish().map(|(_, f)| f),
            RowWriter::Text(w) => w.finish(),
            RowWriter::Mat(w) => w.finish(),
            RowWriter::Mat73(w) => w.finish(),
            RowWriter::Csplib(w) => w.finish(),
            RowWriter::Npy(w) => w.finish(),
        }
    }

    /// Writes the rows held in memory (`rows[i - 1]` = column of row i) to a new file at
    /// `dest`; returns it unpublished.
    /// A value off the board is refused before anything is written, as by [`RowWriter::copy`]
    /// (the error names `dest`: the rows have no file).
    pub fn all(dest: &Path, rows: &[u32], format: OutputFormat) -> Result<AtomicFile, FormatError> {
        let n = rows.len() as u64;
        if let Some(i) = rows.iter().position(|&v| u64::from(v) > n) {
            let (row, value) = (i as u64 + 1, rows[i]);
            return Err(FormatError::new(
                dest,
                ErrorKind::OffBoard { row, value, n },
            ));
        }
        let mut w = RowWriter::create(dest, n, format)?;
        w.write_rows(rows)?;
        w.finish()
    }

    /// Streams every row of `input` into a new file at `dest`; returns it unpublished.
    /// Segments are decoded a batch at a time on all threads while the previous batch is
    /// written, so decoding (zstd frames, MAT windows) does not hold back the writer.
    pub fn copy(
        input: &Input,
        dest: &Path,
        format: OutputFormat,
    ) -> Result<AtomicFile, FormatError> {
        use rayon::prelude::*;
        let mut w = RowWriter::create(dest, input.n(), format)?;
        let count = input.segment_count();
        let batch = 2 * rayon::current_num_threads() as u64;
        let n = input.n();
        // Each segment's rows, its summary for the header's checks, and the first row
        // whose value is off the board.
        type Decoded = (Vec<u32>, SegmentSum, Option<(u64, u32)>);
        let decode = |first: u64| -> Result<Vec<Decoded>, FormatError> {
            (first..(first + batch).min(count))
                .into_par_iter()
                .map(|s| {
                    let mut scratch = Vec::new();
                    let bytes = input.segment(s, &mut scratch)?;
                    let rows = le::to_rows(bytes);
                    let off = rows
                        .iter()
                        .position(|&v| v as u64 > n)
                        .map(|i| (s * input.segment_rows() + i as u64 + 1, rows[i]));
                    let sum = SegmentSum::of(bytes);
                    input.release(s);
                    Ok((rows, sum, off))
                })
                .collect()
        };
        let mut sums = Vec::with_capacity(count as usize);
        let mut first = 0;
        let mut current = decode(0)?;
        loop {
            // A value off the board is refused before it is written: no format we write
            // would be read back as the same composition by our own readers.
            if let Some((row, value)) = current.iter().find_map(|d| d.2) {
                return Err(FormatError::new(
                    input.path(),
                    ErrorKind::OffBoard { row, value, n },
                ));
            }
            let next_first = first + batch;
            let (written, next) = rayon::join(
                || {
                    current
                        .iter()
                        .try_for_each(|(rows, _, _)| w.write_rows(rows))
                },
                || (next_first < count).then(|| decode(next_first)),
            );
            written?;
            sums.extend(current.drain(..).map(|d| d.1));
            match next {
                None => break,
                Some(next) => {
                    current = next?;
                    first = next_first;
                }
            }
        }
        // Nothing is published from a payload that fails its checksum or queen count.
        input.check_sums(sums)?;
        w.finish()
    }
}
