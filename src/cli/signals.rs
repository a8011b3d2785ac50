//! Ctrl-C, SIGTERM, SIGHUP and SIGBUS: stop cleanly, remove temporary files, exit with
//! a documented code.
use super::exit;

pub(super) static INTERRUPT: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
    std::sync::OnceLock::new();

/// Set while a command polls the interrupt flag and stops by itself.
pub(super) static POLLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A signal this soon after the first that a polling command was given is the same one
/// delivered twice, not a second.
const SAME_SIGNAL: std::time::Duration = std::time::Duration::from_millis(500);

/// Installs the handler of Ctrl-C, SIGTERM and SIGHUP. A command that polls the flag (see
/// [`interrupt_flag`]) is asked to stop and answers for itself; any other command, or a
/// second signal (at least [`SAME_SIGNAL`] after the first), removes this process's
/// temporary files and exits with [`exit::INTERRUPTED`] at once, so that no partial file
/// is left behind, unless a set of files is being renamed into place
/// ([`nqueens::cleanup::publishing`]), which it lets finish.
pub(super) fn install_signal_handler() {
    let flag = INTERRUPT
        .get_or_init(|| std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)))
        .clone();
    // Without a handler a signal still stops the process, only less tidily.
    // When the first signal came, for telling a second signal from the same one twice.
    let first: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);
    let _ = ctrlc::set_handler(move || {
        use std::sync::atomic::Ordering::SeqCst;
        let mut first = first.lock().unwrap_or_else(|e| e.into_inner());
        // A command that polls, unless it is where it polls nothing (writing its answer).
        if POLLED.load(SeqCst) && nqueens::stop::polled_now() {
            if !flag.swap(true, SeqCst) {
                *first = Some(std::time::Instant::now());
                return;
            }
            // One signal can arrive twice: timeout(1) signals the process and then its
            // group, and a second one pending before the first is handled is not merged
            // with it. Taken for a second, it ended the run before it answered, so that
            // `complete --json` printed its record or not by a race (RELIABILITY.md,
            // round 20). A person signalling again does so later than this.
            if first.is_some_and(|t| t.elapsed() < SAME_SIGNAL) {
                return;
            }
        }
        // A set of files half renamed into place would be a mix of two runs: it is done
        // in moments (every file is on disk before), and the command answers after.
        if nqueens::cleanup::publishing() {
            flag.store(true, SeqCst);
            return;
        }
        nqueens::cleanup::remove_all();
        errln!("nqueens: interrupted");
        std::process::exit(exit::INTERRUPTED);
    });
}

/// Turns SIGBUS into an error exit. The kernel raises it when a memory-mapped file cannot
/// back a page: an input truncated by another process while we read it, or an output
/// whose disk filled although its space was reserved (a filesystem that cannot
/// preallocate). The handler says so in one line, removes this process's temporary files
/// and exits with [`exit::ERROR`], instead of dying with no message and leaving them.
pub(super) fn install_bus_error_handler() {
    #[cfg(unix)]
    {
        static FIRST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
        extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
            // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO.
            let addr = unsafe { (*info).si_addr() } as usize;
            use nqueens::format::fault::{Fault, recover};
            let name = match recover(addr) {
                // An input that shrank: the page now reads as zeros and the file is
                // marked; the readers report it and the process goes on.
                Some(Fault::Input(_)) => return,
                Some(Fault::Output(name)) => Some(name),
                None => None,
            };
            // Several threads may fault at once: one reports and exits, the others wait.
            if !FIRST.swap(false, std::sync::atomic::Ordering::SeqCst) {
                loop {
                    // SAFETY: pause(2) is async-signal-safe.
                    unsafe { libc::pause() };
                }
            }
            let write = |bytes: &[u8]| {
                // SAFETY: write(2) is async-signal-safe.
                unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
            };
            match name {
                Some(name) => {
                    write(b"nqueens: ");
                    write(name);
                    write(b": bus error writing the memory-mapped output: its disk is full; temporary files removed\n");
                }
                None => write(
                    b"nqueens: bus error on a memory-mapped file: an input was truncated while being read, or an output's disk is full; temporary files removed\n",
                ),
            }
            nqueens::cleanup::remove_all_in_signal_handler();
            // SAFETY: _exit(2) is async-signal-safe and runs no destructors.
            unsafe { libc::_exit(exit::ERROR) }
        }
        // SAFETY: installs a handler for one signal with an empty mask; the handler only
        // makes async-signal-safe calls apart from the non-blocking cleanup.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    }
}

/// The flag a signal sets, for a command that polls it and stops cleanly by itself.
pub(super) fn interrupt_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    POLLED.store(true, std::sync::atomic::Ordering::SeqCst);
    INTERRUPT
        .get_or_init(|| std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)))
        .clone()
}
