//! The bytes of an input file, memory-mapped or read with ordinary reads, as the caller
//! chose with [`MmapChoice`].

use memmap2::Mmap;
use std::fs::File;
use std::io;

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
