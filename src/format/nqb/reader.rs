//! Opening an NQB file, raw or compressed, and reading its rows.

use super::layout::*;
use super::*;
use crate::format::source::{Fault, FileBytes, MmapChoice, Pieces, Span, Window, skip};
use crate::format::{ErrorKind, FormatError};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An NQB file opened for reading: header checked, payload mapped or read as the caller
/// chose ([`MmapChoice`]).
pub struct NqbFile {
    path: PathBuf,
    header: Header,
    encoding: Encoding,
    bytes: Arc<FileBytes>,
    layout: Layout,
}

enum Layout {
    Raw,
    /// The row frames, read in segments of `piece_rows` (a divisor of the frame's rows):
    /// the whole frame when it is small enough to decode at once, else pieces of at most
    /// [`DEFAULT_FRAME_ROWS`], each frame a stream of `pieces`. A frame of 2^28 rows (1 GiB,
    /// spec-legal, 32 KiB of zstd) was once decoded whole by every thread: 1.7 GB each.
    Zstd {
        frames: Vec<FrameEntry>,
        piece_rows: u64,
        pieces: Pieces<FrameDecoder>,
    },
}

/// A streaming decoder of one row frame.
type FrameDecoder = zstd::stream::read::Decoder<'static, std::io::BufReader<Span>>;

/// Where one row frame of a compressed file lies.
#[derive(Debug, Clone, Copy)]
struct FrameEntry {
    offset: u64,
    len: u64,
}

impl NqbFile {
    /// Opens `path` (already known to start like NQB, see [`sniff`]) and checks the header,
    /// the payload size and, for compressed files, the seek table.
    pub fn open(path: &Path, file: &File, mmap: MmapChoice) -> Result<NqbFile, FormatError> {
        let fail = |p| FormatError::new(path, p);
        let read = |e| fail(ErrorKind::Read(e));
        let bytes = Arc::new(FileBytes::open(file, mmap, path).map_err(read)?);
        let head = bytes
            .to_vec(0, bytes.len().min(HEADER_LEN as u64) as usize)
            .map_err(read)?;
        if head.len() >= 4 && head[..4] == ZSTD_MAGIC {
            return Self::open_zstd(path, bytes);
        }
        let header = Header::parse(&head).map_err(fail)?;
        let actual = bytes.len() - HEADER_LEN as u64;
        if actual != 4 * header.n {
            return Err(fail(ErrorKind::PayloadSize {
                offset: HEADER_LEN as u64,
                actual,
                expected: 4 * header.n,
                n: header.n,
            }));
        }
        bytes.advise_sequential();
        Ok(NqbFile {
            path: path.to_path_buf(),
            header,
            encoding: Encoding::Raw,
            bytes,
            layout: Layout::Raw,
        })
    }

    fn open_zstd(path: &Path, bytes: Arc<FileBytes>) -> Result<NqbFile, FormatError> {
        let fail = |p| FormatError::new(path, p);
        let (table, frames_end) = seek_table(&bytes).map_err(fail)?;
        let frames = table.num_frames();
        let entry = |i: u32| -> Result<(FrameEntry, u64), FormatError> {
            let bad = |e: zeekstd::Error| fail(ErrorKind::SeekTable(e.to_string()));
            let offset = table.frame_start_comp(i).map_err(bad)?;
            let len = table.frame_size_comp(i).map_err(bad)?;
            let dlen = table.frame_size_decomp(i).map_err(bad)?;
            if offset.saturating_add(len) > frames_end {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "frame {i} ends at byte {} past the end of the file's frames ({frames_end} bytes)",
                    offset.saturating_add(len),
                ))));
            }
            // No zstd frame expands more than MAX_ZSTD_RATIO times (one 4-byte RLE block
            // per 128 KiB), so a larger claim is a lie and nothing is sized from it.
            if dlen > len.saturating_mul(MAX_ZSTD_RATIO) {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "frame {i} claims {dlen} bytes from {len} compressed: more than zstd can expand"
                ))));
            }
            Ok((FrameEntry { offset, len }, dlen))
        };
        if frames == 0 {
            return Err(fail(ErrorKind::SeekTable("no frames".into())));
        }
        let (first, first_dlen) = entry(0)?;
        if first_dlen != HEADER_LEN as u64 {
            return Err(fail(ErrorKind::SeekTable(format!(
                "frame 0 holds {first_dlen} bytes, an NQB header frame holds {HEADER_LEN}"
            ))));
        }
        let mut header_bytes = Vec::new();
        decompress(&bytes, first, HEADER_LEN, &mut header_bytes).map_err(|detail| {
            fail(ErrorKind::CorruptFrame {
                frame: 0,
                first_row: 0,
                last_row: 0,
                offset: 0,
                detail,
            })
        })?;
        let header = Header::parse(&header_bytes).map_err(fail)?;
        let n = header.n;
        // All row frames but the last hold the same number of rows, read from frame 1; a
        // single row frame may hold any number.
        let frame_rows = match frames {
            1 => 0,
            2 if n > MAX_FRAME_ROWS => {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "one row frame of {n} rows: a frame holds at most {MAX_FRAME_ROWS}"
                ))));
            }
            2 => n.next_multiple_of(CHECKSUM_BLOCK_ROWS),
            _ => {
                let rows = entry(1)?.1 / 4;
                if rows == 0 || rows % CHECKSUM_BLOCK_ROWS != 0 || rows > MAX_FRAME_ROWS {
                    return Err(fail(ErrorKind::SeekTable(format!(
                        "frames of {rows} rows: not a multiple of {CHECKSUM_BLOCK_ROWS} rows up to {MAX_FRAME_ROWS}"
                    ))));
                }
                rows
            }
        };
        if frame_rows == 0 {
            return Err(fail(ErrorKind::SeekTable("no row frames".into())));
        }
        let expected_frames = n.div_ceil(frame_rows);
        if frames as u64 != expected_frames + 1 {
            return Err(fail(ErrorKind::SeekTable(format!(
                "{} row frames, but n = {n} in frames of {frame_rows} rows needs {expected_frames}",
                frames - 1
            ))));
        }
        let mut entries = Vec::with_capacity(frames as usize - 1);
        for i in 1..frames {
            let (e, dlen) = entry(i)?;
            let first_row = (i as u64 - 1) * frame_rows;
            let rows = frame_rows.min(n - first_row);
            if dlen != rows * 4 {
                return Err(fail(ErrorKind::SeekTable(format!(
                    "frame {i} holds {dlen} bytes, expected {} for rows {}..={}",
                    rows * 4,
                    first_row + 1,
                    first_row + rows
                ))));
            }
            entries.push(e);
        }
        let piece_rows = if 4 * frame_rows > DECODE_RESERVE as u64 {
            // The largest power of two up to DEFAULT_FRAME_ROWS that divides the frame
            // (frames are multiples of CHECKSUM_BLOCK_ROWS, so pieces are too).
            1 << frame_rows
                .trailing_zeros()
                .min(DEFAULT_FRAME_ROWS.trailing_zeros())
        } else {
            frame_rows
        };
        Ok(NqbFile {
            path: path.to_path_buf(),
            header,
            encoding: Encoding::Zstd { frame_rows },
            bytes,
            layout: Layout::Zstd {
                pieces: Pieces::new(entries.len()),
                frames: entries,
                piece_rows,
            },
        })
    }

    /// Names the file `path` in messages (for a spooled copy of standard input).
    pub(crate) fn set_path(&mut self, path: &Path) {
        self.path = path.to_path_buf();
    }

    /// Whether the file shrank under its map while it was read (see
    /// [`crate::format::fault`]).
    pub(crate) fn faulted(&self) -> bool {
        self.bytes.faulted()
    }

    /// The file this was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The checked header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// How the rows are stored in this file.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Rows per segment, the unit of parallel work; every segment but the last has this many.
    pub fn segment_rows(&self) -> u64 {
        match &self.layout {
            Layout::Raw => DEFAULT_FRAME_ROWS,
            Layout::Zstd { piece_rows, .. } => *piece_rows,
        }
    }

    /// For a compressed file, the frame that holds segment `i`: (its number among the row
    /// frames, its first row, its rows, and whether `i` is its last segment).
    fn frame_of(&self, i: u64) -> (u64, u64, u64, bool) {
        let Encoding::Zstd { frame_rows } = self.encoding else {
            unreachable!("only compressed files have frames")
        };
        let f = i * self.segment_rows() / frame_rows;
        let first = f * frame_rows;
        let rows = frame_rows.min(self.header.n - first);
        let last = (i + 1) * self.segment_rows() >= first + rows;
        (f, first, rows, last)
    }

    /// The payload bytes of segment `i` (rows `i * segment_rows ..`): for raw files borrowed
    /// from the map or read into `scratch`, for compressed ones decoded into `scratch`.
    pub fn segment<'a>(
        &'a self,
        i: u64,
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], FormatError> {
        let seg = self.segment_rows();
        let first = i * seg;
        let rows = seg.min(self.header.n - first);
        match &self.layout {
            Layout::Raw => self
                .bytes
                .get(HEADER_LEN as u64 + 4 * first, 4 * rows as usize, scratch)
                .map_err(|e| FormatError::new(&self.path, ErrorKind::Read(e))),
            Layout::Zstd {
                frames,
                pieces,
                piece_rows,
            } => {
                let (f, frame_first, frame_rows, last) = self.frame_of(i);
                let e = frames[f as usize];
                let fail = |detail| {
                    FormatError::new(
                        &self.path,
                        ErrorKind::CorruptFrame {
                            frame: f + 1,
                            first_row: frame_first + 1,
                            last_row: frame_first + frame_rows,
                            offset: e.offset,
                            detail,
                        },
                    )
                };
                if rows == frame_rows {
                    decompress(&self.bytes, e, 4 * rows as usize, scratch).map_err(fail)?;
                    return Ok(scratch);
                }
                let frame_len = 4 * frame_rows;
                let window = Window {
                    stream: f as usize,
                    origin: 0,
                    at: 4 * (first - frame_first),
                    len: 4 * rows as usize,
                    piece: 4 * *piece_rows as usize,
                    last,
                };
                let open = || {
                    let span = Span::new(self.bytes.clone(), e.offset..e.offset + e.len);
                    Ok(zstd::stream::read::Decoder::new(span)?.single_frame())
                };
                // Reading on past the last piece reaches the frame's end, which checks
                // its content checksum, and must find nothing more.
                let finish = |d: &mut FrameDecoder| match skip(d, 1)? {
                    0 => Ok(()),
                    _ => Err(Fault::Io(std::io::Error::other(format!(
                        "decodes to more than {frame_len} bytes"
                    )))),
                };
                pieces
                    .read(&window, open, finish, scratch)
                    .map_err(|f| match f {
                        Fault::Short(got) => {
                            format!("decodes to {got} bytes, expected {frame_len}")
                        }
                        Fault::Io(e) => e.to_string(),
                    })
                    .map_err(fail)?;
                Ok(scratch)
            }
        }
    }

    /// Drops this process's mapping of the pages wholly inside segment `i`'s stored bytes,
    /// so that the resident set of a pass over a huge file stays bounded. The data stays in
    /// the page cache and the file is unchanged; a later read maps the same bytes again.
    pub fn release(&self, i: u64) {
        let (start, len) = match &self.layout {
            Layout::Raw => {
                let seg = self.segment_rows();
                let first = i * seg;
                let rows = seg.min(self.header.n - first);
                (HEADER_LEN as u64 + 4 * first, 4 * rows)
            }
            Layout::Zstd { frames, .. } => match self.frame_of(i) {
                // Its other pieces may still be decoding.
                (_, _, _, false) => return,
                (f, ..) => (frames[f as usize].offset, frames[f as usize].len),
            },
        };
        self.bytes.release(start, len);
    }
}

/// The seek table of a compressed file, and where its frames end (where the table
/// begins). The table's frame count is checked against the file before the table is parsed
/// (the parser sizes its table from that count), and the table is parsed from the file's
/// tail alone: it is the last thing in the file, and frame offsets are sums of the sizes
/// it lists.
fn seek_table(bytes: &FileBytes) -> Result<(zeekstd::SeekTable, u64), ErrorKind> {
    let file_len = bytes.len();
    let mut tail_len = file_len;
    if file_len >= 9 {
        let foot = bytes.to_vec(file_len - 9, 9).map_err(ErrorKind::Read)?;
        // The seekable format ends with this magic number; a plain `zstd FILE` does not.
        if foot[5..9] != 0x8F92_EAB1u32.to_le_bytes() {
            return Err(ErrorKind::SeekTable(
                "no seek table at the end: this is a plain zstd stream (as `zstd FILE` writes), not NQB+zstd, which is zstd's seekable format; decompress it with `zstd -d` and read the result, or write NQB+zstd with `nqueens convert`".into(),
            ));
        }
        let frames = u32::from_le_bytes(foot[..4].try_into().unwrap()) as u64;
        let entry = if foot[4] & 0x80 != 0 { 12 } else { 8 };
        let table = 8 + frames * entry + 9;
        if table > file_len {
            return Err(ErrorKind::SeekTable(format!(
                "the footer claims {frames} frames, a table of {table} bytes, but the file has {file_len}"
            )));
        }
        tail_len = table;
    }
    let tail = bytes
        .to_vec(file_len - tail_len, tail_len as usize)
        .map_err(ErrorKind::Read)?;
    let table =
        zeekstd::SeekTable::from_seekable(&mut zeekstd::BytesWrapper::new(&tail)).map_err(|e| {
            ErrorKind::SeekTable(format!(
                "{e} (the file may be truncated, or compressed without a seek table)"
            ))
        })?;
    Ok((table, file_len - tail_len))
}

/// Decodes one zstd frame that must hold exactly `len` bytes (at most `DECODE_RESERVE`:
/// larger frames are read in pieces, see [`Layout::Zstd`]) into `out`, in one call into a buffer
/// of the frame's size: no window copied out piece by piece, no output zero-filled first.
/// A frame that decodes to more is an error.
fn decompress(
    bytes: &FileBytes,
    e: FrameEntry,
    len: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    thread_local! {
        // One decoding context per thread, kept: a fresh one per frame costs its own
        // allocations, a good part of decoding a 4 MB frame.
        static DECODER: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    debug_assert!(len <= DECODE_RESERVE, "larger frames are read in pieces");
    let mut compressed = Vec::new();
    let src = bytes
        .get(e.offset, e.len as usize, &mut compressed)
        .map_err(|e| e.to_string())?;
    out.clear();
    out.reserve(len);
    DECODER.with_borrow_mut(|decoder| {
        let decoder = match decoder {
            Some(d) => d,
            None => decoder.insert(zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?),
        };
        decoder
            .decompress_to_buffer(src, out)
            .map_err(|e| e.to_string())
    })?;
    let got = out.len();
    if got != len {
        return Err(format!("decodes to {got} bytes, expected {len}"));
    }
    Ok(())
}
