//! Standard output that reports a closed or full stream as an error, never a panic or a
//! silent exit 0.
use super::Error;

/// Makes a standard output that was closed when the process started (`>&-`) fail every
/// write (EBADF: reported, exit 2), as it would in C, instead of throwing the answer away
/// with exit 0. Rust's runtime puts `/dev/null` in the place of a closed standard
/// descriptor before `main` (so that no file takes its number), which looks exactly like a
/// `/dev/null` the caller opened (Python's `subprocess.DEVNULL` opens it read-write too),
/// so whether descriptor 1 was closed is recorded before that runtime runs (see
/// [`CLOSED_AT_START`]); where it cannot be, nothing is refused.
pub fn guard_standard_output() {
    #[cfg(target_os = "linux")]
    {
        if !CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed) {
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

/// Whether descriptor 1 was closed when the process started: set by a function in
/// `.init_array`, which the C runtime calls before `main`, so before Rust's runtime
/// reopens closed standard descriptors on `/dev/null`.
#[cfg(target_os = "linux")]
static CLOSED_AT_START: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_CLOSED_AT_START: extern "C" fn() = record_closed_at_start;

#[cfg(target_os = "linux")]
extern "C" fn record_closed_at_start() {
    // SAFETY: F_GETFD only asks whether descriptor 1 is open.
    let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
    CLOSED_AT_START.store(closed, std::sync::atomic::Ordering::Relaxed);
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
