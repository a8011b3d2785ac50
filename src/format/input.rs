//! Reading any input: recognising a file's format, then its rows segment by segment.

use super::matlab::{mat4, mat5, mat73, octave, octave_binary};
use super::*;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// An opened composition or solution file, read segment by segment.
pub enum Input {
    /// An NQB file, raw or compressed, memory-mapped.
    Nqb(NqbFile),
    /// A small file parsed into memory (text), held as little-endian row bytes.
    Memory {
        /// Where it came from.
        path: PathBuf,
        /// Format name for reports.
        format: &'static str,
        /// Payload as little-endian `u32` rows.
        bytes: Vec<u8>,
        /// For a variable of a MATLAB or Octave file: its name, class and orientation.
        layout: Option<MatSource>,
        /// For a CSPLib Excluded Diagonals instance: the instance, whose reduced board the
        /// rows are (a solution of them maps back to the instance's own rows).
        excluded: Option<Box<crate::excluded::ExcludedDiagonals>>,
    },
    /// A numeric vector of a MAT v7.3 (HDF5) file, read by windows.
    Mat73(Box<mat73::Mat73File>),
    /// A long numeric vector of a MAT v5/v7 file, read by windows (a short one is read
    /// whole, as [`Input::Memory`]).
    Mat5(Box<mat5::Mat5File>),
    /// A NumPy `.npy` vector, memory-mapped.
    Npy(Box<npy::NpyFile>),
    /// A board given by its queens alone (CSPLib completion files): rows are made on the
    /// fly, so memory grows with the queens, not with n.
    Sparse {
        /// Where it came from.
        path: PathBuf,
        /// The queens and n.
        placed: csplib::Placed,
    },
    /// The empty n-board (no queens), read as zeros without storage.
    Empty {
        /// Board size.
        n: u64,
    },
}

/// The format name of inputs read from Level 5 MAT files.
pub(super) const MAT5: &str = "MAT v5";
/// The format name of inputs read from MAT v7.3 files.
pub(super) const MAT73: &str = "MAT v7.3";
/// The format name of NumPy files (followed by the dtype).
pub(super) const NPY: &str = "NumPy .npy";
/// The format name of Octave's text format (plain `save`).
pub(super) const OCTAVE: &str = "Octave text";
/// The format name of Octave's binary files.
pub(super) const OCTAVE_BINARY: &str = "Octave binary";
/// The format name of MAT Level 4 files.
pub(super) const MAT4: &str = "MAT v4";
/// The format name of CSPLib completion instances.
pub(super) const CSPLIB: &str = "CSPLib";
/// The format name of CSPLib Excluded Diagonals instances (read through the reduction).
pub const EXCLUDED: &str = "CSPLib excluded diagonals";

/// How to read an input: which MAT variable, how many diagonals of an Excluded Diagonals
/// file, and whether the file may be memory-mapped.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// The MAT variable to read (default: the only numeric vector).
    pub var: Option<String>,
    /// Excluded diagonals to take from the front of `diags` (default: `numdiags`).
    pub diags: Option<u64>,
    /// Whether the file may be mapped (default: never; see [`MmapChoice::auto`]).
    pub mmap: MmapChoice,
    /// How the file numbers its columns (default: 1-based). Only files of plain numbers
    /// (text, NumPy, MAT, Octave, HDF5) may be 0-based; NQB and CSPLib have their own rule.
    pub index_base: IndexBase,
}

/// Rows per segment of in-memory inputs.
const MEMORY_SEGMENT_ROWS: u64 = nqb::DEFAULT_FRAME_ROWS;

impl Input {
    /// Opens `path`, detecting the format from its first bytes, then its extension, and
    /// reading it without memory maps ([`MmapChoice::never`]; choose with [`Input::open_with`]).
    pub fn open(path: &Path) -> Result<Input, FormatError> {
        Self::open_with(path, &OpenOptions::default())
    }

    /// Opens `path` like [`Input::open`], with the choices in `opts`.
    /// `-` is standard input; it and every other input that is not a regular file (a pipe,
    /// `/dev/stdin`, `<(...)`) is first spooled to a temporary file, so that binary formats
    /// can be mapped and read in any order: bounded by the disk, not by memory.
    pub fn open_with(path: &Path, opts: &OpenOptions) -> Result<Input, FormatError> {
        let fail = |p| FormatError::new(path, p);
        if is_stdio(path) {
            return Self::open_spooled(path, &mut std::io::stdin().lock(), opts);
        }
        crate::cleanup::protect(path);
        let mut opened = super::open::open(path)?;
        let is_file = opened
            .file
            .metadata()
            .map_err(|e| fail(ErrorKind::Open(e)))?
            .is_file();
        if !is_file {
            return Self::open_spooled(path, &mut opened.reader(), opts);
        }
        let mut file = opened.file;
        let mut head = [0u8; 512];
        let got = read_up_to(&mut file, &mut head).map_err(|e| fail(ErrorKind::Read(e)))?;
        let head = &head[..got];
        if head.is_empty() {
            return Err(fail(ErrorKind::Empty));
        }
        if nqb::sniff(head) {
            refuse_zero_based(path, opts, "NQB")?;
            return Ok(Input::Nqb(NqbFile::open(path, &file, opts.mmap)?));
        }
        if npy::sniff(head) {
            let npy = npy::NpyFile::open(path, &file, opts.mmap, opts.index_base)?;
            return Ok(Input::Npy(Box::new(npy)));
        }
        if npz::sniff(head) {
            return npz::open(path, file, opts);
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match mat5::sniff(head) {
            mat5::Sniff::Level5 => {
                let f = mat5::Mat5File::open(
                    path,
                    &file,
                    opts.mmap,
                    opts.var.as_deref(),
                    opts.index_base,
                )?;
                if f.n() > mat5::READ_WHOLE_ROWS {
                    return Ok(Input::Mat5(Box::new(f)));
                }
                // Short: read at once, so that a bad value is reported when opening.
                let bytes = f.read_all()?;
                if f.faulted() {
                    return Err(fail(ErrorKind::Shrank));
                }
                return Ok(Input::Memory {
                    path: path.to_path_buf(),
                    format: MAT5,
                    bytes,
                    layout: Some(f.source()),
                    excluded: None,
                });
            }
            mat5::Sniff::V73 => {
                let f = mat73::Mat73File::open(path, opts.var.as_deref(), opts.index_base)?;
                return Ok(Input::Mat73(Box::new(f)));
            }
            mat5::Sniff::Truncated => {
                return Err(fail(ErrorKind::Mat(format!(
                    "truncated header: {} of 128 bytes",
                    head.len()
                ))));
            }
            mat5::Sniff::No => {}
        }
        // gzip: Octave's `save -zip` (of its text or binary format), or a gzipped file of
        // any other format; inflated to a temporary file and read as what it holds.
        if head.starts_with(&[0x1f, 0x8b]) {
            let gz = flate2::read::MultiGzDecoder::new(file_at_start(path, &mut file)?);
            return Self::open_inflated(path, gz, opts);
        }
        // Octave's own formats, whatever the name: its default `save('x.mat', 'Q')` is
        // text, and `-binary` starts with its magic.
        if octave_binary::sniff(head) {
            let bytes = read_rest(path, head, &mut file)?;
            let (rows, layout) =
                octave_binary::parse(path, &bytes, opts.var.as_deref(), opts.index_base)?;
            return Self::from_variable(path, OCTAVE_BINARY, &rows, layout);
        }
        if octave::sniff(head) && looks_like_text(head) {
            let bytes = read_rest(path, head, &mut file)?;
            let (rows, layout) = octave::parse(path, &bytes, opts.var.as_deref(), opts.index_base)?;
            return Self::from_variable(path, OCTAVE, &rows, layout);
        }
        if mat4::sniff(head) {
            let bytes = read_rest(path, head, &mut file)?;
            let (rows, layout) = mat4::parse(path, &bytes, opts.var.as_deref(), opts.index_base)?;
            return Self::from_variable(path, MAT4, &rows, layout);
        }
        if matches!(ext.as_deref(), Some("nqb" | "zst" | "nqbz" | "mat" | "npy")) {
            return Err(fail(ErrorKind::BadMagic(hex(&head[..head.len().min(8)]))));
        }
        if looks_like_text(head) {
            let text = read_rest(path, head, &mut file)?;
            if octave::sniff(head) {
                let (rows, layout) =
                    octave::parse(path, &text, opts.var.as_deref(), opts.index_base)?;
                return Self::from_variable(path, OCTAVE, &rows, layout);
            }
            if csplib::sniff(head) {
                refuse_zero_based(path, opts, "CSPLib")?;
                return match csplib::parse(path, &text, opts.diags)? {
                    csplib::ParamFile::Completion(placed) => Ok(Input::Sparse {
                        path: path.to_path_buf(),
                        placed,
                    }),
                    csplib::ParamFile::Excluded(ed) => {
                        let mut input = Self::from_rows(path, EXCLUDED, &ed.reduce().rows)?;
                        if let Input::Memory { excluded, .. } = &mut input {
                            *excluded = Some(Box::new(ed));
                        }
                        Ok(input)
                    }
                };
            }
            let bytes = text::parse_le_bytes(path, &text, opts.index_base)?;
            drop(text);
            return Self::from_le_bytes(path, "text", bytes);
        }
        Err(fail(ErrorKind::Unrecognized(hex(
            &head[..head.len().min(8)]
        ))))
    }

    /// Inflates the gzip stream `gz` of the file `path` to a temporary file and opens that
    /// (see [`Input::open_spooled`]). One level only: a gzip file inside it is refused, not
    /// inflated in turn (three levels of 759 bytes once wrote 1 GiB), and what it inflates
    /// to is bounded: by the size its NQB header declares when it holds raw NQB, else by
    /// [`MAX_INFLATED`].
    fn open_inflated(
        path: &Path,
        gz: flate2::read::MultiGzDecoder<&mut File>,
        opts: &OpenOptions,
    ) -> Result<Input, FormatError> {
        let fail = |p| FormatError::new(path, p);
        let mut gz = Bounded {
            inner: gz,
            left: MAX_INFLATED,
            over: false,
        };
        let mut head = [0u8; 512];
        let got = read_up_to(&mut gz, &mut head).map_err(|e| fail(ErrorKind::Read(e)))?;
        let head = &head[..got];
        if head.starts_with(&[0x1f, 0x8b]) {
            return Err(fail(ErrorKind::Gzip(
                "it holds another gzip file: only one level is read; gunzip it first".into(),
            )));
        }
        if npz::sniff(head) {
            return Err(fail(ErrorKind::Gzip(
                "it holds a zip archive (.npz): only one level of container is read; gunzip it first".into(),
            )));
        }
        let limit = match nqb::Header::parse(head) {
            // Raw NQB is exactly its header and 4 bytes a row: a byte more is refused by
            // its reader, so no more than that is inflated.
            Ok(h) => HEADER_LEN_U64 + 4 * h.n + 1,
            Err(_) => MAX_INFLATED,
        };
        gz.left = limit.saturating_sub(got as u64);
        let mut source = std::io::Read::chain(head, &mut gz);
        let r = Self::open_spooled(path, &mut source, opts);
        if gz.over {
            return Err(fail(ErrorKind::Gzip(format!(
                "it inflates to more than {limit} bytes, {}",
                if limit == MAX_INFLATED {
                    "more than any input this program reads"
                } else {
                    "more than the raw NQB file its header declares"
                }
            ))));
        }
        r
    }

    /// Copies `source` to a temporary file, opens that, and names the input `path` in every
    /// message. The temporary file is removed at once: the open input keeps its data.
    fn open_spooled(
        path: &Path,
        source: &mut dyn Read,
        opts: &OpenOptions,
    ) -> Result<Input, FormatError> {
        let fail = |p| FormatError::new(path, p);
        // The first bytes decide whether this can be any input at all before anything is
        // spooled: `/dev/zero` or `/dev/urandom` would otherwise fill the disk.
        let mut head = [0u8; 512];
        let got = read_up_to(source, &mut head).map_err(|e| fail(ErrorKind::Read(e)))?;
        let head = &head[..got];
        if head.is_empty() {
            return Err(fail(ErrorKind::Empty));
        }
        if !(nqb::sniff(head)
            || npy::sniff(head)
            || npz::sniff(head)
            || mat5::sniff(head) != mat5::Sniff::No
            || head.starts_with(&[0x1f, 0x8b])
            || octave_binary::sniff(head)
            || mat4::sniff(head)
            || looks_like_text(head))
        {
            return Err(fail(ErrorKind::Unrecognized(hex(
                &head[..head.len().min(8)]
            ))));
        }
        // A stream of plain numbers shows a bad value in its first lines before an endless
        // one (`yes |`) fills the disk: its complete lines are parsed now.
        if looks_like_text(head)
            && !octave::sniff(head)
            && !csplib::sniff(head)
            && let Some(end) = head.iter().rposition(|&b| b == b'\n')
        {
            match text::parse_based(path, &head[..end], opts.index_base) {
                Err(e) if !matches!(e.problem, ErrorKind::Empty) => return Err(e),
                _ => {}
            }
        }
        let mut spool = Destination::temp(path).scratch("stdin-", "")?;
        spool
            .write_all(head)
            .and_then(|()| std::io::copy(source, &mut spool).map(drop))
            .map_err(|e| fail(ErrorKind::Read(e)))?;
        let mut input = Self::open_with(spool.path(), opts).map_err(|mut e| {
            e.path = path.to_path_buf();
            e
        })?;
        input.set_path(path);
        Ok(input)
    }

    /// Names the input `path` in messages.
    pub(super) fn set_path(&mut self, path: &Path) {
        match self {
            Input::Nqb(f) => f.set_path(path),
            Input::Memory { path: p, .. } => *p = path.to_path_buf(),
            Input::Mat73(f) => f.set_path(path),
            Input::Mat5(f) => f.set_path(path),
            Input::Npy(f) => f.set_path(path),
            Input::Sparse { path: p, .. } => *p = path.to_path_buf(),
            Input::Empty { .. } => {}
        }
    }

    /// An input held in memory, for formats parsed whole.
    pub fn from_rows(
        path: &Path,
        format: &'static str,
        rows: &[u32],
    ) -> Result<Input, FormatError> {
        // Checked before the copy is made.
        if rows.len() as u64 > crate::board::MAX_N {
            return Err(FormatError::new(
                path,
                ErrorKind::TooLarge(rows.len() as u64),
            ));
        }
        Self::from_le_bytes(path, format, le::to_bytes(rows))
    }

    /// [`Input::from_rows`] of rows already as little-endian bytes.
    fn from_le_bytes(
        path: &Path,
        format: &'static str,
        bytes: Vec<u8>,
    ) -> Result<Input, FormatError> {
        let n = bytes.len() as u64 / 4;
        if n > crate::board::MAX_N {
            return Err(FormatError::new(path, ErrorKind::TooLarge(n)));
        }
        Ok(Input::Memory {
            path: path.to_path_buf(),
            format,
            bytes,
            layout: None,
            excluded: None,
        })
    }

    /// [`Input::from_rows`] for a variable of a MATLAB or Octave file laid out `layout`.
    fn from_variable(
        path: &Path,
        format: &'static str,
        rows: &[u32],
        layout: MatSource,
    ) -> Result<Input, FormatError> {
        let mut input = Self::from_rows(path, format, rows)?;
        if let Input::Memory { layout: l, .. } = &mut input {
            *l = Some(layout);
        }
        Ok(input)
    }

    /// For a variable of a MATLAB or Octave file: its name, class and orientation, which
    /// a MAT answer takes by default.
    pub fn mat_layout(&self) -> Option<MatLayout> {
        self.mat_source().map(|s| s.layout)
    }

    /// For a variable of a MATLAB or Octave file: its layout and the file's other
    /// variables.
    pub fn mat_source(&self) -> Option<MatSource> {
        match self {
            Input::Memory { layout, .. } => layout.clone(),
            Input::Mat73(f) => Some(f.source()),
            Input::Mat5(f) => Some(f.source()),
            _ => None,
        }
    }

    /// For a CSPLib Excluded Diagonals instance (read as its reduced board): the
    /// instance.
    pub fn excluded_diagonals(&self) -> Option<&crate::excluded::ExcludedDiagonals> {
        match self {
            Input::Memory { excluded, .. } => excluded.as_deref(),
            _ => None,
        }
    }

    /// The file this input was read from.
    pub fn path(&self) -> &Path {
        match self {
            Input::Nqb(f) => f.path(),
            Input::Memory { path, .. } => path,
            Input::Mat73(f) => f.path(),
            Input::Mat5(f) => f.path(),
            Input::Npy(f) => f.path(),
            Input::Sparse { path, .. } => path,
            Input::Empty { .. } => Path::new("(empty board)"),
        }
    }

    /// Board size.
    pub fn n(&self) -> u64 {
        match self {
            Input::Nqb(f) => f.header().n,
            Input::Memory { bytes, .. } => bytes.len() as u64 / 4,
            Input::Mat73(f) => f.n(),
            Input::Mat5(f) => f.n(),
            Input::Npy(f) => f.n(),
            Input::Sparse { placed, .. } => placed.n,
            Input::Empty { n } => *n,
        }
    }

    /// The NQB header, when the input has one.
    pub fn header(&self) -> Option<&Header> {
        match self {
            Input::Nqb(f) => Some(f.header()),
            _ => None,
        }
    }

    /// How an NQB input stores its rows.
    pub fn encoding(&self) -> Option<Encoding> {
        match self {
            Input::Nqb(f) => Some(f.encoding()),
            _ => None,
        }
    }

    /// For a `.npy` input, how an answer like it stores its values (see
    /// [`super::npy::NpyLayout`]).
    pub fn npy_layout(&self) -> Option<super::npy::NpyLayout> {
        match self {
            Input::Npy(f) => Some(super::npy::NpyLayout::of(f, f.n())),
            _ => None,
        }
    }

    /// A short name of the format and encoding, e.g. `NQB raw`, `NQB zstd`, `text`.
    pub fn format_name(&self) -> String {
        match self {
            Input::Nqb(f) => format!("NQB {}", f.encoding()),
            Input::Memory { format, .. } => format.to_string(),
            Input::Mat73(f) if f.is_plain_hdf5() => "HDF5".to_string(),
            Input::Mat73(_) => MAT73.to_string(),
            Input::Mat5(_) => MAT5.to_string(),
            Input::Npy(f) => format!("{NPY} {}", f.dtype()),
            Input::Sparse { .. } => CSPLIB.to_string(),
            Input::Empty { .. } => "empty board".to_string(),
        }
    }

    /// Rows per segment; every segment but the last has this many.
    pub fn segment_rows(&self) -> u64 {
        match self {
            Input::Nqb(f) => f.segment_rows(),
            _ => MEMORY_SEGMENT_ROWS,
        }
    }

    /// Number of segments.
    pub fn segment_count(&self) -> u64 {
        self.n().div_ceil(self.segment_rows())
    }

    /// The little-endian row bytes of segment `i`, borrowed where possible, else decoded
    /// into `scratch`.
    pub fn segment<'a>(
        &'a self,
        i: u64,
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], FormatError> {
        match self {
            Input::Nqb(f) => f.segment(i, scratch),
            Input::Memory { bytes, .. } => {
                let seg = MEMORY_SEGMENT_ROWS as usize * 4;
                let start = i as usize * seg;
                Ok(&bytes[start..(start + seg).min(bytes.len())])
            }
            Input::Npy(f) => {
                let first = i * MEMORY_SEGMENT_ROWS;
                f.rows(first, MEMORY_SEGMENT_ROWS.min(f.n() - first), scratch)
            }
            Input::Mat73(f) => {
                let first = i * MEMORY_SEGMENT_ROWS;
                f.rows_le(first, MEMORY_SEGMENT_ROWS.min(f.n() - first), scratch)?;
                Ok(scratch)
            }
            Input::Mat5(f) => {
                let first = i * MEMORY_SEGMENT_ROWS;
                f.rows_le(first, MEMORY_SEGMENT_ROWS.min(f.n() - first), scratch)?;
                Ok(scratch)
            }
            Input::Empty { n } => {
                let first = i * MEMORY_SEGMENT_ROWS;
                let rows = MEMORY_SEGMENT_ROWS.min(n - first) as usize;
                scratch.clear();
                scratch.resize(4 * rows, 0);
                Ok(scratch)
            }
            Input::Sparse { placed, .. } => {
                let first = i * MEMORY_SEGMENT_ROWS;
                let end = (first + MEMORY_SEGMENT_ROWS).min(placed.n);
                scratch.clear();
                scratch.resize(4 * (end - first) as usize, 0);
                let from = placed.queens.partition_point(|q| q.0 < first);
                for &(r, c) in placed.queens[from..].iter().take_while(|q| q.0 < end) {
                    let at = 4 * (r - first) as usize;
                    scratch[at..at + 4].copy_from_slice(&c.to_le_bytes());
                }
                Ok(scratch)
            }
        }
    }

    /// Tells the input that segment `i` will not be read again soon (see
    /// [`NqbFile::release`]); a no-op for inputs held in memory.
    /// Rows released count as read for the process's [`crate::progress::meter`].
    pub fn release(&self, i: u64) {
        let first = i * self.segment_rows();
        crate::progress::meter().add_read(self.segment_rows().min(self.n().saturating_sub(first)));
        self.unmap(i);
    }

    /// [`Input::release`] without counting the rows as read.
    fn unmap(&self, i: u64) {
        match self {
            Input::Nqb(f) => f.release(i),
            Input::Npy(f) => {
                let first = i * MEMORY_SEGMENT_ROWS;
                f.release(first, MEMORY_SEGMENT_ROWS.min(f.n() - first));
            }
            _ => {}
        }
    }

    /// Rows `first .. first + out.len()` (0-based) into `out`, through a one-segment cache
    /// that the caller keeps between calls.
    pub fn read_rows(
        &self,
        first: u64,
        out: &mut [u32],
        cache: &mut SegmentCache,
    ) -> Result<(), FormatError> {
        let seg = self.segment_rows();
        let mut row = first;
        let mut done = 0;
        while done < out.len() {
            let s = row / seg;
            if cache.index != Some(s) {
                let mut scratch = Vec::new();
                let bytes = self.segment(s, &mut scratch)?;
                cache.rows = le::to_rows(bytes);
                cache.index = Some(s);
                // The rows are copied: a pass over a huge file (a base beside the file
                // verified, say) keeps only the cache resident, not the whole mapping.
                self.unmap(s);
            }
            let offset = (row - s * seg) as usize;
            let take = (cache.rows.len() - offset).min(out.len() - done);
            out[done..done + take].copy_from_slice(&cache.rows[offset..offset + take]);
            done += take;
            row += take as u64;
        }
        Ok(())
    }

    /// All rows in memory, checked against the header's checksum and queen count: for
    /// small boards and tests only.
    pub fn to_vec(&self) -> Result<Vec<u32>, FormatError> {
        let mut rows = vec![0; self.n() as usize];
        self.read_rows(0, &mut rows, &mut SegmentCache::default())?;
        if self.header().is_some() {
            let bytes = le::to_bytes(&rows);
            self.check_sums([SegmentSum::of(&bytes)])?;
        }
        Ok(rows)
    }

    /// Refuses an input whose memory map faulted (another process truncated the file
    /// while it was read: see [`super::fault`]): what was read from it may be zeros the
    /// file never held. Every conclusion drawn from a mapped input checks this last.
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        let faulted = match self {
            Input::Nqb(f) => f.faulted(),
            Input::Npy(f) => f.faulted(),
            Input::Mat5(f) => f.faulted(),
            _ => false,
        };
        if faulted {
            return Err(FormatError::new(self.path(), ErrorKind::Shrank));
        }
        Ok(())
    }

    /// Reads every segment (in parallel) and checks the payload against the NQB header's
    /// checksum and queen count; inputs without a header pass.
    pub fn check_integrity(&self) -> Result<(), FormatError> {
        use rayon::prelude::*;
        if self.header().is_none() {
            return Ok(());
        }
        let sums: Vec<SegmentSum> = (0..self.segment_count())
            .into_par_iter()
            .map_init(Vec::new, |scratch, s| {
                let sum = SegmentSum::of(self.segment(s, scratch)?);
                self.release(s);
                Ok(sum)
            })
            .collect::<Result<_, FormatError>>()?;
        self.check_sums(sums)
    }

    /// Checks the summaries of every segment, in order, against the NQB header (a no-op
    /// for inputs without one): the one place a payload checksum or a queen count is
    /// compared, so that no reader forgets to.
    pub fn check_sums(
        &self,
        sums: impl IntoIterator<Item = SegmentSum>,
    ) -> Result<(), FormatError> {
        // Zeros read from a file that shrank under its map are not the file's content:
        // say so, rather than that the checksum does not match.
        self.check_unchanged()?;
        let Some(h) = self.header() else {
            return Ok(());
        };
        let mut hasher = nqb::PayloadHasher::new();
        let mut k = 0;
        for s in sums {
            k += s.k;
            s.block_hashes.into_iter().for_each(|b| hasher.push(b));
        }
        let computed = hasher.finish();
        if computed != h.payload_checksum {
            return Err(FormatError::new(
                self.path(),
                ErrorKind::Checksum {
                    stored: h.payload_checksum,
                    computed,
                },
            ));
        }
        if k != h.k {
            return Err(FormatError::new(
                self.path(),
                ErrorKind::QueenCount {
                    declared: h.k,
                    counted: k,
                },
            ));
        }
        Ok(())
    }
}

/// What a segment contributes to the header's checks: its queens and the hashes of its
/// checksum blocks (segments start on block boundaries).
#[derive(Debug, Default)]
pub struct SegmentSum {
    /// Non-zero rows.
    pub k: u64,
    /// [`nqb::PayloadHasher::block_hashes`] of the segment's bytes.
    pub block_hashes: Vec<u64>,
}

impl SegmentSum {
    /// The summary of one segment's little-endian row bytes.
    pub fn of(bytes: &[u8]) -> SegmentSum {
        SegmentSum {
            k: bytes.chunks_exact(4).filter(|c| c != &[0; 4]).count() as u64,
            block_hashes: nqb::PayloadHasher::block_hashes(bytes),
        }
    }
}

/// The last segment decoded by [`Input::read_rows`].
#[derive(Default)]
pub struct SegmentCache {
    index: Option<u64>,
    rows: Vec<u32>,
}

/// Refuses `--zero-based` for a format whose numbering is its own (NQB: 1-based by its
/// specification; CSPLib: 0-based by its own, already converted).
fn refuse_zero_based(
    path: &Path,
    opts: &OpenOptions,
    format: &'static str,
) -> Result<(), FormatError> {
    if opts.index_base == IndexBase::Zero {
        return Err(FormatError::new(path, ErrorKind::ZeroBasedRefused(format)));
    }
    Ok(())
}

/// The whole file, of which `head` was read already: no more than its size when the rest
/// is read (a file another process keeps appending to was read for as long as it grew,
/// memory with it), and refused if it grew past that or was cut short meanwhile.
fn read_rest(path: &Path, head: &[u8], file: &mut File) -> Result<Vec<u8>, FormatError> {
    let size = file
        .metadata()
        .map_err(|e| FormatError::new(path, ErrorKind::Read(e)))?;
    if size.len() == 0 && !head.is_empty() {
        // A file that says it is empty and is not (`/proc/self/status`) has no size to go
        // by: read to its end, as such files have one.
        let mut bytes = head.to_vec();
        file.read_to_end(&mut bytes)
            .map_err(|e| FormatError::new(path, ErrorKind::Read(e)))?;
        return Ok(bytes);
    }
    read_rest_of(path, head, file, size.len())
}

/// [`read_rest`] of a file that had `size` bytes.
fn read_rest_of(
    path: &Path,
    head: &[u8],
    file: &mut File,
    size: u64,
) -> Result<Vec<u8>, FormatError> {
    let fail = |k| FormatError::new(path, k);
    let rest = size.saturating_sub(head.len() as u64);
    let mut bytes = head.to_vec();
    bytes.reserve(usize::try_from(rest).unwrap_or(0));
    file.take(rest + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(ErrorKind::Read(e)))?;
    if bytes.len() as u64 > size.max(head.len() as u64) {
        return Err(fail(ErrorKind::Grew));
    }
    // Cut short meanwhile: what was read is no file that ever was.
    if (bytes.len() as u64) < size {
        return Err(fail(ErrorKind::Shrank));
    }
    Ok(bytes)
}

/// `file` rewound to its start (its head was read to recognise it).
fn file_at_start<'a>(path: &Path, file: &'a mut File) -> Result<&'a mut File, FormatError> {
    use std::io::Seek;
    file.seek(std::io::SeekFrom::Start(0))
        .map_err(|e| FormatError::new(path, ErrorKind::Read(e)))?;
    Ok(file)
}

/// The most one gzip file is inflated to: the largest raw NQB file (n = 2^32 - 1), the
/// largest input a reader streams, with room for a format's own headers.
const MAX_INFLATED: u64 = HEADER_LEN_U64 + 4 * crate::board::MAX_N + (1 << 20);

const HEADER_LEN_U64: u64 = nqb::HEADER_LEN as u64;

/// A reader that ends with an error once it has given `left` bytes and would give more;
/// `over` then says so.
struct Bounded<R> {
    inner: R,
    left: u64,
    over: bool,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // One byte more than allowed is enough to know.
            let got = self.inner.read(&mut [0u8; 1])?;
            if got == 0 {
                return Ok(0);
            }
            self.over = true;
            return Err(std::io::Error::other("inflates past its bound"));
        }
        let take = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let got = self.inner.read(&mut buf[..take])?;
        self.left -= got as u64;
        Ok(got)
    }
}

/// Whether the first bytes of a file could start one of the text formats.
fn looks_like_text(head: &[u8]) -> bool {
    // `is_ascii_whitespace` leaves out the vertical tab, which the text reader takes as
    // a separator (as `char::is_whitespace` and NumPy do).
    head.iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace() || b == 0x0b || b >= 0x80)
}

fn read_up_to(file: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..])? {
            0 => break,
            r => got += r,
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file longer than its size when it was measured (another process appending) is
    /// refused, not read for as long as it grows; one that stayed put is read whole.
    #[test]
    fn the_rest_of_a_file_is_read_up_to_its_size_and_refused_if_it_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grow.txt");
        std::fs::File::create(&path)
            .unwrap()
            .write_all(b"0\n0\n0\n0\n")
            .unwrap();
        let mut file = File::open(&path).unwrap();
        let mut head = [0u8; 2];
        file.read_exact(&mut head).unwrap();
        let err = read_rest_of(&path, &head, &mut file, 6).unwrap_err();
        assert!(err.to_string().contains("grew while being read"), "{err}");
        let mut file = File::open(&path).unwrap();
        file.read_exact(&mut head).unwrap();
        assert_eq!(read_rest(&path, &head, &mut file).unwrap(), b"0\n0\n0\n0\n");
        // Shorter than its size: cut short by another process.
        let mut file = File::open(&path).unwrap();
        file.read_exact(&mut head).unwrap();
        let err = read_rest_of(&path, &head, &mut file, 12).unwrap_err();
        assert!(err.to_string().contains("shrank while being read"), "{err}");
        // A file that says it is empty and is not (/proc) is read to its end.
        let status = Path::new("/proc/self/status");
        let mut file = File::open(status).unwrap();
        file.read_exact(&mut head).unwrap();
        assert!(read_rest(status, &head, &mut file).unwrap().len() > 100);
    }
}
