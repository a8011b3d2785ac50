//! The binary's allocator: the system's, except that an allocation the system refuses (a
//! memory limit such as `ulimit -v`, a cgroup, or the machine's RAM) ends the process with
//! a one-line message and exit code 2 instead of Rust's abort (SIGABRT, exit 134, and the
//! temporary files left behind). The message names the file being worked on, set with
//! [`working_on`].

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// The system allocator, with a clean exit when it fails.
pub struct ExitOnFailure;

// SAFETY: every call is forwarded to `System`; only a null result is acted on.
unsafe impl GlobalAlloc for ExitOnFailure {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }
}

/// The path of the file being worked on, for the message (leaked: a few per run).
static CONTEXT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static CONTEXT_LEN: AtomicUsize = AtomicUsize::new(0);

/// Names `path` in an out-of-memory message from now on.
pub fn working_on(path: &std::path::Path) {
    let bytes: &'static [u8] = Box::leak(
        path.as_os_str()
            .as_encoded_bytes()
            .to_vec()
            .into_boxed_slice(),
    );
    CONTEXT_LEN.store(0, Ordering::SeqCst);
    CONTEXT.store(bytes.as_ptr().cast_mut(), Ordering::SeqCst);
    CONTEXT_LEN.store(bytes.len(), Ordering::SeqCst);
}

/// Writes the message without allocating, removes this process's temporary files and
/// exits with 2.
#[cold]
fn out_of_memory(size: usize) -> ! {
    // The cleanup allocates a little; if even that fails, exit without it.
    static ONCE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if ONCE.swap(true, Ordering::SeqCst) {
        // SAFETY: as below.
        unsafe { libc::_exit(super::exit::ERROR) }
    }
    fn write(bytes: &[u8]) {
        // SAFETY: write(2) on standard error from a valid buffer; errors are ignored.
        unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
    }
    write(b"nqueens: ");
    let len = CONTEXT_LEN.load(Ordering::SeqCst);
    let ptr = CONTEXT.load(Ordering::SeqCst);
    if len > 0 && !ptr.is_null() {
        // SAFETY: a leaked, never freed slice of this length was stored at this address.
        write(unsafe { std::slice::from_raw_parts(ptr, len) });
        write(b": ");
    }
    write(b"out of memory: the system refused ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = size;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    write(&digits[i..]);
    write(b" bytes (a memory limit such as ulimit -v, or the machine's memory); temporary files removed\n");
    nqueens::cleanup::remove_all_in_signal_handler();
    // SAFETY: _exit(2) runs no destructors and allocates nothing.
    unsafe { libc::_exit(super::exit::ERROR) }
}
