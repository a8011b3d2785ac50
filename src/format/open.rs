//! Opening an input file, and reading a small one whole, the same way for every reader:
//! a directory is refused, a named pipe that no process writes into is refused after
//! [`WRITER_WAIT`] instead of blocking forever, and a whole-file read stops at a bound the
//! caller derives from what the file can legitimately hold, so that `/dev/zero`,
//! `/dev/urandom` or an endless pipe end in a one-line error, not in memory exhaustion.

use super::{ErrorKind, FormatError, is_stdio};
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a named pipe may wait for a process to open it for writing.
pub const WRITER_WAIT: Duration = Duration::from_secs(5);

/// An input opened for reading, with the bytes already taken from it (only a pipe, whose
/// first byte may be read to learn whether a writer is there).
pub(crate) struct Opened {
    /// The open file, in blocking mode.
    pub file: File,
    /// Bytes read from it already, which come before what `file` reads.
    pub taken: Vec<u8>,
}

impl Opened {
    /// The file's bytes from the start: what was taken, then the rest.
    pub fn reader(&mut self) -> impl Read + '_ {
        std::io::Read::chain(&self.taken[..], &mut self.file)
    }
}

/// Opens `path` for reading (not `-`). A directory is an error; a named pipe with no
/// writer waits [`WRITER_WAIT`] for one, then is an error.
pub(crate) fn open(path: &Path) -> Result<Opened, FormatError> {
    let fail = |k| FormatError::new(path, k);
    let meta = std::fs::metadata(path).map_err(|e| fail(ErrorKind::Open(e)))?;
    if meta.is_dir() {
        return Err(fail(ErrorKind::Directory));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        if meta.file_type().is_fifo() {
            // Opened without blocking: a plain open waits for a writer, forever if none
            // comes.
            let file = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)
                .map_err(|e| fail(ErrorKind::Open(e)))?;
            let taken = await_writer(&file).map_err(|e| fail(ErrorKind::Read(e)))?;
            let Some(taken) = taken else {
                return Err(fail(ErrorKind::NoWriter(WRITER_WAIT.as_secs())));
            };
            set_blocking(&file).map_err(|e| fail(ErrorKind::Read(e)))?;
            return Ok(Opened { file, taken });
        }
    }
    let file = File::open(path).map_err(|e| fail(ErrorKind::Open(e)))?;
    Ok(Opened {
        file,
        taken: Vec::new(),
    })
}

/// Waits for a writer on a named pipe opened without blocking: `Some(bytes read)` once a
/// process has opened it for writing (or has written and closed it), `None` when none did
/// within [`WRITER_WAIT`]. A read that finds no data says which: no writer reads as end of
/// file, a writer with nothing written yet as "would block".
#[cfg(unix)]
fn await_writer(file: &File) -> std::io::Result<Option<Vec<u8>>> {
    use std::os::unix::io::AsRawFd;
    let deadline = Instant::now() + WRITER_WAIT;
    loop {
        let mut poll = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call.
        let ready = unsafe { libc::poll(&mut poll, 1, 50) };
        if ready > 0 {
            // Data, or a writer that came and went (POLLHUP): the reader sees which.
            return Ok(Some(Vec::new()));
        }
        let mut byte = [0u8; 1];
        match (&*file).read(&mut byte) {
            Ok(1) => return Ok(Some(byte.to_vec())),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(Some(Vec::new())),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
            Ok(_) => {} // no writer yet
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
    }
}

/// Clears `O_NONBLOCK` on an open file.
#[cfg(unix)]
pub(crate) fn set_blocking(file: &File) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on an open descriptor, reading then writing its status flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// `path` (`-`: standard input) opened for a streaming read, as [`Input::open`] opens
/// inputs: a directory refused, a named pipe without a writer refused after
/// [`WRITER_WAIT`].
///
/// [`Input::open`]: super::Input::open
pub fn open_stream(path: &Path) -> Result<Box<dyn Read>, FormatError> {
    if is_stdio(path) {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let Opened { file, taken } = open(path)?;
    Ok(Box::new(std::io::Cursor::new(taken).chain(file)))
}

/// The whole of a small input (a SAT model, a CSPLib file, a checkpoint), `-` being
/// standard input, refused when it holds more than `limit` bytes: the reader's own bound
/// on what such a file can hold (`what` names it in the message). Never reads more than
/// `limit + 1` bytes.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, FormatError> {
    let fail = |k| FormatError::new(path, k);
    let mut bytes = Vec::new();
    let got = if is_stdio(path) {
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut bytes)
    } else {
        let mut opened = open(path)?;
        opened.reader().take(limit + 1).read_to_end(&mut bytes)
    };
    got.map_err(|e| fail(ErrorKind::Read(e)))?;
    if bytes.len() as u64 > limit {
        return Err(fail(ErrorKind::Oversized {
            limit,
            what: what.to_string(),
        }));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_stops_at_its_bound() {
        let err = read_bounded(Path::new("/dev/zero"), 1000, "a test file").unwrap_err();
        assert_eq!(
            err.to_string(),
            "/dev/zero: more than 1000 bytes, more than a test file can hold"
        );
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_bounded(&p, 5, "x").unwrap(), b"12345");
        assert!(read_bounded(&p, 4, "x").is_err());
        assert!(matches!(
            read_bounded(d.path(), 4, "x").unwrap_err().problem,
            ErrorKind::Directory
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_without_a_writer_is_refused_and_one_with_a_writer_is_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("pipe");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let started = Instant::now();
        let err = read_bounded(&p, 100, "x").unwrap_err();
        assert!(matches!(err.problem, ErrorKind::NoWriter(_)), "{err}");
        assert!(started.elapsed() < WRITER_WAIT + Duration::from_secs(5));
        // A writer that comes late (within the wait) and writes slowly is read whole.
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                let mut f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                std::thread::sleep(Duration::from_millis(300));
                std::io::Write::write_all(&mut f, b"12 34").unwrap();
            })
        };
        assert_eq!(read_bounded(&p, 100, "x").unwrap(), b"12 34");
        writer.join().unwrap();
    }
}
