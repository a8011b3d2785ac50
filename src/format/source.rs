//! The bytes of an input file, memory-mapped or read with ordinary reads, as the caller
//! chose with [`MmapChoice`].

use memmap2::Mmap;
use std::fs::File;
use std::io;
use std::sync::Arc;

/// Whether input files may be memory-mapped, as ripgrep's `MmapChoice`.
///
/// Mapping is what makes a pass over a 4 GB file cost no copy and no buffer, but it is
/// unsafe in Rust's sense: if another process truncates or rewrites the file while it is
/// mapped, the bytes a reader holds change under it, or the process receives SIGBUS. So it
/// is a choice the caller makes and answers for; the default reads with `pread`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MmapChoice {
    map: bool,
}

impl MmapChoice {
    /// Never map: every byte is read into a buffer. Always safe.
    pub fn never() -> MmapChoice {
        MmapChoice { map: false }
    }

    /// Map input files whenever the platform can.
    ///
    /// # Safety
    ///
    /// The caller promises that no file opened with this choice is truncated or modified
    /// while it is open, or accepts the consequences: changed bytes seen by a reader, or
    /// SIGBUS (the `nqueens` binary turns SIGBUS into a one-line error and exit code).
    pub unsafe fn auto() -> MmapChoice {
        MmapChoice { map: true }
    }

    /// Whether files are mapped.
    pub fn maps(self) -> bool {
        self.map
    }
}

/// An open input file's bytes.
pub(crate) struct FileBytes {
    /// Dropped before the map: the SIGBUS handler must not find an address unmapped.
    watch: Option<super::fault::Watch>,
    inner: Inner,
    len: u64,
}

enum Inner {
    Mapped(Mmap),
    Read(File),
}

impl FileBytes {
    /// Gives access to `file`'s bytes (the file at `path`, named if it is truncated while
    /// mapped) as `choice` allows.
    pub(crate) fn open(
        file: &File,
        choice: MmapChoice,
        path: &std::path::Path,
    ) -> io::Result<FileBytes> {
        if choice.maps() {
            // SAFETY: the caller chose mapping through `MmapChoice::auto`, whose contract
            // is that the file is not changed while open; the map is read-only.
            let map = unsafe { Mmap::map(file) }?;
            let len = map.len() as u64;
            return Ok(FileBytes {
                watch: super::fault::watch(&map, path, false),
                inner: Inner::Mapped(map),
                len,
            });
        }
        let len = file.metadata()?.len();
        Ok(FileBytes {
            watch: None,
            inner: Inner::Read(file.try_clone()?),
            len,
        })
    }

    /// Whether the file shrank under its map (see [`super::fault`]): what was read from it
    /// since may be zeros it never held, and must not be concluded from.
    pub(crate) fn faulted(&self) -> bool {
        self.watch
            .as_ref()
            .is_some_and(super::fault::Watch::faulted)
    }

    /// The file's length in bytes when it was opened.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Bytes `offset .. offset + len`, borrowed from the map or read into `scratch`. A range
    /// past the end of the file (the file shrank since it was opened) is an error, never a
    /// short slice.
    pub(crate) fn get<'a>(
        &'a self,
        offset: u64,
        len: usize,
        scratch: &'a mut Vec<u8>,
    ) -> io::Result<&'a [u8]> {
        let end = offset.checked_add(len as u64).filter(|&e| e <= self.len);
        let Some(end) = end else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "bytes {offset}..{} lie past the end of the file ({} bytes)",
                    offset.saturating_add(len as u64),
                    self.len
                ),
            ));
        };
        match &self.inner {
            Inner::Mapped(map) => Ok(&map[offset as usize..end as usize]),
            Inner::Read(file) => {
                scratch.clear();
                scratch.resize(len, 0);
                read_exact_at(file, scratch, offset)?;
                Ok(scratch)
            }
        }
    }

    /// Bytes `offset .. offset + len` as an owned buffer.
    pub(crate) fn to_vec(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        self.get(offset, len, &mut Vec::new()).map(<[u8]>::to_vec)
    }

    /// Tells the kernel the file will be read front to back (mapped files only).
    pub(crate) fn advise_sequential(&self) {
        #[cfg(unix)]
        if let Inner::Mapped(map) = &self.inner {
            let _ = map.advise(memmap2::Advice::Sequential);
        }
    }

    /// Drops this process's mapping of the whole pages inside `offset .. offset + len`, so
    /// that the resident set of a pass over a huge file stays bounded; nothing to do for
    /// files that are read. The data stays in the page cache and the file is unchanged.
    pub(crate) fn release(&self, offset: u64, len: u64) {
        let Inner::Mapped(map) = &self.inner else {
            return;
        };
        let page = 4096;
        let from = offset.next_multiple_of(page);
        let to = (offset + len).min(self.len) / page * page;
        if to > from {
            #[cfg(unix)]
            // SAFETY: the map is a read-only shared mapping of a file: MADV_DONTNEED only
            // drops page-table entries, and later accesses read the same file bytes back, so
            // no reference ever observes changed data.
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    from as usize,
                    (to - from) as usize,
                )
            };
        }
        #[cfg(not(unix))]
        let _ = (map, from, to);
    }
}

/// Bytes `at .. end` of a file as a reader, for a decoder that streams a compressed part of
/// it (a zstd frame, a zlib element) and outlives the call that made it.
pub(crate) struct Span {
    bytes: Arc<FileBytes>,
    at: u64,
    end: u64,
    scratch: Vec<u8>,
}

impl Span {
    /// Bytes `range` of `bytes`.
    pub(crate) fn new(bytes: Arc<FileBytes>, range: std::ops::Range<u64>) -> Span {
        Span {
            bytes,
            at: range.start,
            end: range.end,
            scratch: Vec::new(),
        }
    }
}

impl io::Read for Span {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = (self.end - self.at).min(buf.len() as u64).min(1 << 16) as usize;
        if len == 0 {
            return Ok(0);
        }
        let got = self.bytes.get(self.at, len, &mut self.scratch)?;
        buf[..len].copy_from_slice(got);
        self.at += len as u64;
        Ok(len)
    }
}

/// Compressed streams of one file (a zstd frame, a zlib element) read in windows, each
/// decoded once in the usual case, by decoders kept where they stopped. A stream can only
/// be decoded from its start, and the readers of an input ask for windows in any order,
/// from every thread (a batch of consecutive windows at once, or one run of windows per
/// thread), so:
/// - each stream is decoded by one thread at a time (its lock), which is no loss, since
///   one stream is decoded sequentially whatever happens;
/// - a window is decoded by the decoder stopped nearest before it, which decodes the
///   windows in between on its way and keeps them (a bounded number, for all streams
///   together) for the threads that will ask for them next;
/// - decoders are kept at the end of the window they decoded, one per thread and a few more.
///
/// That is what lets a stream be decoded in bounded pieces (a 1 GiB zstd frame, a
/// compressed MAT variable of 2^30 values) without being held whole, nor decoded again from
/// its start for every window.
pub(crate) struct Pieces<D> {
    streams: Vec<std::sync::Mutex<Stream<D>>>,
    /// Windows kept, in all streams.
    kept: std::sync::atomic::AtomicUsize,
}

struct Stream<D> {
    /// Decoders, each with the stream offset it has decoded up to.
    decoders: Vec<(u64, D)>,
    /// Windows decoded on the way to another, by their stream offset.
    kept: std::collections::BTreeMap<u64, Vec<u8>>,
}

/// One window of a stream read through [`Pieces`].
pub(crate) struct Window {
    /// Which stream.
    pub(crate) stream: usize,
    /// Where windows start counting in the stream: every window starts `origin` plus a
    /// multiple of `piece`.
    pub(crate) origin: u64,
    /// The window: `len` bytes from stream offset `at`.
    pub(crate) at: u64,
    pub(crate) len: usize,
    /// The length of every window but the last.
    pub(crate) piece: usize,
    /// Whether the window is the stream's last: its decoder is then finished, not kept.
    pub(crate) last: bool,
}

/// Why a window could not be read.
#[derive(Debug)]
pub(crate) enum Fault {
    /// The stream ends after this many bytes.
    Short(u64),
    /// The decoder's own error (corrupt data, a checksum mismatch) or a read error.
    Io(io::Error),
}

impl From<io::Error> for Fault {
    fn from(e: io::Error) -> Fault {
        Fault::Io(e)
    }
}

impl<D: io::Read> Pieces<D> {
    /// Reading `streams` streams.
    pub(crate) fn new(streams: usize) -> Pieces<D> {
        Pieces {
            streams: (0..streams)
                .map(|_| {
                    std::sync::Mutex::new(Stream {
                        decoders: Vec::new(),
                        kept: Default::default(),
                    })
                })
                .collect(),
            kept: Default::default(),
        }
    }

    /// The most windows kept, and the most decoders kept per stream.
    fn most() -> usize {
        2 * rayon::current_num_threads() + 2
    }

    /// Reads window `w` into `out`. `open` starts a decoder at the stream's start;
    /// `finish` checks a decoder that has read the stream's last window (that the stream
    /// ends there, its checksum).
    pub(crate) fn read(
        &self,
        w: &Window,
        open: impl FnOnce() -> io::Result<D>,
        finish: impl FnOnce(&mut D) -> Result<(), Fault>,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        use std::sync::atomic::Ordering::Relaxed;
        let mut stream = self.streams[w.stream]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(bytes) = stream.kept.remove(&w.at) {
            self.kept.fetch_sub(1, Relaxed);
            if bytes.len() == w.len {
                *out = bytes;
                return Ok(());
            }
        }
        let nearest = (stream.decoders.iter().enumerate())
            .filter(|(_, d)| d.0 <= w.at)
            .max_by_key(|(_, d)| d.0)
            .map(|(i, _)| i);
        let (mut at, mut decoder) = match nearest {
            Some(i) => stream.decoders.swap_remove(i),
            None => {
                let mut d = open()?;
                let skipped = skip(&mut d, w.origin)?;
                if skipped < w.origin {
                    return Err(Fault::Short(skipped));
                }
                (w.origin, d)
            }
        };
        while at < w.at {
            let step = (w.piece as u64).min(w.at - at) as usize;
            let mut bytes = vec![0; step];
            fill(&mut decoder, &mut bytes).map_err(|got| got.at(at))?;
            if step == w.piece && self.kept.load(Relaxed) < Self::most() {
                self.kept.fetch_add(1, Relaxed);
                if stream.kept.insert(at, bytes).is_some() {
                    self.kept.fetch_sub(1, Relaxed);
                }
            }
            at += step as u64;
        }
        out.clear();
        out.resize(w.len, 0);
        fill(&mut decoder, out).map_err(|got| got.at(at))?;
        if w.last {
            // Windows still kept here are no longer asked for (and read again if they are).
            self.kept.fetch_sub(stream.kept.len(), Relaxed);
            stream.kept.clear();
            return finish(&mut decoder);
        }
        stream.decoders.push((at + w.len as u64, decoder));
        if stream.decoders.len() > Self::most() {
            stream.decoders.remove(0);
        }
        Ok(())
    }
}

/// How far [`fill`] got.
enum Filled {
    /// The stream ended after this many bytes of the buffer.
    Short(u64),
    Io(io::Error),
}

impl Filled {
    /// As a [`Fault`] of a window read from stream offset `at`.
    fn at(self, at: u64) -> Fault {
        match self {
            Filled::Short(got) => Fault::Short(at + got),
            Filled::Io(e) => Fault::Io(e),
        }
    }
}

/// Fills `buf` from `r`.
fn fill(r: &mut impl io::Read, buf: &mut [u8]) -> Result<(), Filled> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => return Err(Filled::Short(got as u64)),
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Filled::Io(e)),
        }
    }
    Ok(())
}

/// Reads and drops the next `len` bytes of `r`; the count actually there, if fewer.
pub(crate) fn skip(r: &mut dyn io::Read, len: u64) -> io::Result<u64> {
    io::copy(&mut io::Read::take(r, len), &mut io::sink())
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            k => {
                buf = &mut buf[k..];
                offset += k as u64;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::Path;

    fn both(bytes: &[u8]) -> [FileBytes; 2] {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        // SAFETY: the temporary file is this test's own and is not changed while open.
        let mapped = FileBytes::open(&f, unsafe { MmapChoice::auto() }, Path::new("t")).unwrap();
        [
            mapped,
            FileBytes::open(&f, MmapChoice::never(), Path::new("t")).unwrap(),
        ]
    }

    #[test]
    fn mapped_and_read_bytes_agree() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        for b in both(&data) {
            assert_eq!(b.len(), 10_000);
            let mut scratch = Vec::new();
            assert_eq!(b.get(100, 50, &mut scratch).unwrap(), &data[100..150]);
            assert_eq!(b.to_vec(9_990, 10).unwrap(), &data[9_990..]);
            assert_eq!(b.get(10_000, 0, &mut scratch).unwrap(), &[] as &[u8]);
            b.release(0, 10_000);
            b.advise_sequential();
        }
    }

    #[test]
    fn a_range_past_the_end_is_an_error() {
        for b in both(&[1, 2, 3]) {
            let err = b.get(2, 2, &mut Vec::new()).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
            assert!(err.to_string().contains("past the end"), "{err}");
            assert!(b.get(u64::MAX, 2, &mut Vec::new()).is_err());
        }
    }
}
