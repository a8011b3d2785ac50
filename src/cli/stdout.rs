//! Standard output that reports a closed or full stream as an error, never a panic or a
//! silent exit 0.
use super::Error;

/// Makes a standard output that was closed when the process started (`>&-`) fail every
/// write (EBADF: reported, exit 2), as it would in C, instead of throwing the answer away
/// with exit 0. Rust's runtime puts `/dev/null` in the place of a closed standard
/// descriptor before `main` (so that no file takes its number), opened read-write; a
/// shell's `> /dev/null` opens it write-only. A read-write `/dev/null` as standard output is
/// therefore taken for a closed one and reopened read-only.
pub fn guard_standard_output() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        use std::os::unix::io::FromRawFd;
        // SAFETY: descriptor 1 is only borrowed for fstat; ManuallyDrop keeps it open.
        let out = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
        let Ok(meta) = out.metadata() else { return };
        let null = std::fs::metadata("/dev/null").map(|m| m.rdev()).ok();
        // SAFETY: F_GETFL reads the descriptor's status flags.
        let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
        let is_null = meta.file_type().is_char_device() && Some(meta.rdev()) == null;
        if !is_null || flags < 0 || flags & libc::O_ACCMODE != libc::O_RDWR {
            return;
        }
        STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
        // Writes that bypass `stdout()` (a copy into descriptor 1) fail the same way.
        // SAFETY: open and dup2 on a constant NUL-terminated path and descriptor numbers.
        unsafe {
            let read_only = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            if read_only > 1 {
                libc::dup2(read_only, 1);
                libc::close(read_only);
            }
        }
    }
}

/// Set when standard output was closed as the process started.
pub(super) static STDOUT_CLOSED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Standard output as every command writes it: std's, except that when it was closed as
/// the process started, every write fails with EBADF (std's own handle reports success).
pub(crate) fn stdout() -> Stdout {
    Stdout(std::io::stdout().lock())
}

/// See [`stdout`].
pub(crate) struct Stdout(std::io::StdoutLock<'static>);

impl Stdout {
    fn closed() -> std::io::Result<()> {
        if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::from_raw_os_error(libc::EBADF));
        }
        Ok(())
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Self::closed()?;
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Self::closed()?;
        self.0.flush()
    }
}

/// Prints one JSON record on its own line.
pub(super) fn print_json(record: &impl serde::Serialize) -> Result<(), Error> {
    let line = serde_json::to_string(record).expect("records serialize");
    outln!("{line}")
}
