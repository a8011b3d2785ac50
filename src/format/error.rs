//! The one error type of the format layer: which file, and what is wrong with it.

use std::path::{Path, PathBuf};

/// A file that could not be read or written, with the reason.
///
/// Displayed as one line, `FILE: problem`, ready for the user.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct FormatError {
    /// The file concerned.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: ErrorKind,
}

impl FormatError {
    /// An error about `path`.
    pub fn new(path: &Path, problem: ErrorKind) -> Self {
        FormatError {
            path: path.to_path_buf(),
            problem,
        }
    }
}

/// What can be wrong with an input or output file (named `ErrorKind` after
/// `std::io::ErrorKind`, and so as not to collide with the count module's `Problem`).
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// The file could not be opened (missing, no permission, ...).
    #[error("cannot open: {0}")]
    Open(std::io::Error),
    /// A directory was given where a file was expected.
    #[error("is a directory, not a file")]
    Directory,
    /// Zero bytes.
    #[error("empty file")]
    Empty,
    /// A mapped input truncated by another process while it was read.
    #[error(
        "the file shrank while being read (another process truncated it): nothing was concluded from it; run again on a file that stays put"
    )]
    Shrank,
    /// An input that another process went on writing while it was read (a text file
    /// being appended to): read up to the size it had, it would never end.
    #[error(
        "the file grew while being read (another process is writing it): nothing was concluded from it; run again on a finished file"
    )]
    Grew,
    /// The rows' work file could not be mapped (its size past the address space a
    /// limit such as `ulimit -v` leaves): a write error would blame the file named.
    #[error(
        "out of memory: cannot map the board's work file of {bytes} bytes ({source}); a limit on the address space, such as ulimit -v, is below what the board needs"
    )]
    WorkMap {
        /// The work file's size.
        bytes: u64,
        /// Why the map failed.
        source: std::io::Error,
    },
    /// A named pipe output that no process opened for reading.
    #[error(
        "a named pipe that no process reads from (waited {0} s for a reader); nothing was written"
    )]
    NoReader(u64),
    /// A named pipe that no process opened for writing.
    #[error("a named pipe that no process writes into (waited {0} s for a writer)")]
    NoWriter(u64),
    /// More bytes than a file of its kind can hold (`/dev/zero`, an endless pipe).
    #[error("more than {limit} bytes, more than {what} can hold")]
    Oversized {
        /// The bound, in bytes.
        limit: u64,
        /// What the file was read as.
        what: String,
    },
    /// The content is none of the formats this build reads.
    #[error(
        "unrecognized format (first bytes {0}): expected NQB, NQB+zstd, MAT v4/v5/v7/v7.3, Octave text or binary (gzipped too), HDF5, NumPy .npy, CSPLib or text"
    )]
    Unrecognized(String),
    /// The file is shorter than its header.
    #[error("truncated header: {got} of {need} bytes")]
    TruncatedHeader {
        /// Bytes present.
        got: u64,
        /// Bytes the header needs.
        need: u64,
    },
    /// The first bytes are not the NQB magic.
    #[error("bad magic bytes {0} at offset 0: not an NQB file")]
    BadMagic(String),
    /// A version this build does not read.
    #[error("unsupported NQB version {0} at offset 8 (this build reads version 1)")]
    Version(u16),
    /// An unknown payload encoding code.
    #[error("unknown payload encoding {0} at offset 10")]
    Encoding(u16),
    /// The header's own checksum does not match.
    #[error("header checksum mismatch at offset 56: the header is corrupt")]
    HeaderChecksum,
    /// n = 0.
    #[error("n = 0 at offset 16: a board has at least one row")]
    ZeroN,
    /// n beyond the supported range.
    #[error("n = {0} is too large: the largest supported board is n = 4294967295")]
    TooLarge(u64),
    /// The header is inconsistent in itself (k > n, bad frame size, ...).
    #[error("bad header: {0}")]
    BadHeader(String),
    /// The payload size disagrees with n.
    #[error("payload is {actual} bytes from offset {offset}, but n = {n} needs {expected}")]
    PayloadSize {
        /// Offset of the payload.
        offset: u64,
        /// Bytes present.
        actual: u64,
        /// Bytes needed.
        expected: u64,
        /// Board size from the header.
        n: u64,
    },
    /// The payload checksum does not match the header.
    #[error(
        "payload checksum mismatch: header says {stored:#018x}, payload hashes to {computed:#018x}"
    )]
    Checksum {
        /// Stored in the header.
        stored: u64,
        /// Computed from the payload.
        computed: u64,
    },
    /// The header's queen count disagrees with the payload.
    #[error("header says k = {declared} queens but the payload holds {counted}")]
    QueenCount {
        /// From the header.
        declared: u64,
        /// Counted.
        counted: u64,
    },
    /// The zstd seek table is missing or inconsistent.
    #[error("bad zstd seek table: {0}")]
    SeekTable(String),
    /// One compressed frame does not decode.
    #[error(
        "corrupt zstd frame {frame} (rows {first_row}..={last_row}) at byte offset {offset}: {detail}"
    )]
    CorruptFrame {
        /// Frame index in the seek table (0 is the header frame).
        frame: u64,
        /// First row (1-based) the frame holds.
        first_row: u64,
        /// Last row (1-based) the frame holds.
        last_row: u64,
        /// Byte offset of the frame in the file.
        offset: u64,
        /// What the decoder said.
        detail: String,
    },
    /// A text file with something that is not a row value.
    #[error("line {line}: {detail}")]
    Text {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        detail: String,
    },
    /// A CSPLib parameter file that is incomplete or inconsistent as a whole.
    #[error("CSPLib file: {0}")]
    Csplib(String),
    /// A DIMACS CNF or SAT model file that cannot be used.
    #[error("DIMACS: {0}")]
    Dimacs(String),
    /// A MAT file that is malformed or holds no usable composition.
    #[error("MAT file: {0}")]
    Mat(String),
    /// A NumPy `.npy` file that is malformed or holds no usable composition.
    #[error("NumPy file: {0}")]
    Npy(String),
    /// A plain HDF5 file (Octave's `save -hdf5`, h5py) that holds no usable composition.
    #[error("HDF5 file (not MATLAB v7.3): {0}")]
    Hdf5(String),
    /// An Octave text or binary file that is malformed or holds no usable composition
    /// (the text names which).
    #[error("{0}")]
    Octave(String),
    /// Two files that must describe the same board do not.
    #[error("{0}")]
    Mismatch(String),
    /// `--zero-based` given for a format that numbers its columns by its own
    /// specification (this one).
    #[error(
        "--zero-based applies to files of plain numbers (text, NumPy, MAT, Octave, HDF5); {0} numbers its columns by its own specification"
    )]
    ZeroBasedRefused(&'static str),
    /// A row whose column is beyond the board: not a composition.
    #[error("row {row}: column {value} is off the {n} x {n} board: not a composition")]
    OffBoard {
        /// 1-based row.
        row: u64,
        /// Its value.
        value: u32,
        /// Board size.
        n: u64,
    },
    /// An output that is one of the command's inputs.
    #[error("is the input {} (the same file): refusing to overwrite an input", .0.display())]
    OverwritesInput(PathBuf),
    /// Two outputs of one command that are the same file.
    #[error("{flag} names the same file as {other}: each output needs its own file")]
    SameOutput {
        /// The option naming this output.
        flag: String,
        /// The option naming the output it collides with.
        other: String,
    },
    /// A gzip file that is not read: one inside another, or one that inflates to more
    /// than any input holds.
    #[error("gzip: {0}")]
    Gzip(String),
    /// Reading failed part way.
    #[error("read error: {0}")]
    Read(std::io::Error),
    /// The output could not be created or written.
    #[error("cannot write: {0}")]
    Write(std::io::Error),
}
