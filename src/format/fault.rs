//! Memory-mapped files that fault: an input truncated by another process while it is
//! mapped, or an output whose disk filled under a map. The kernel raises SIGBUS on the
//! access; the binary's handler asks [`recover`] which file the address belongs to.
//!
//! For an input, the missing page is replaced by a page of zeros and the file is marked,
//! so the process goes on: every reader that used the map checks the mark before
//! concluding anything (`Input::check_unchanged`, [`first_faulted_input`]), so zeros are never
//! taken for the file's content, and a multi-file `verify` reports that one file and goes on
//! with the others. For an output there is nothing to go on with: the handler names it
//! and exits.
//!
//! Written by hand: the table is read from a signal handler, which may only touch atomics
//! and make async-signal-safe system calls; no crate offers that.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

/// Maps watched at once; beyond this, a map is simply not watched (SIGBUS then ends the
/// process, as it did before). `verify` maps at most one file per thread at a time.
const SLOTS: usize = 512;

struct Slot {
    /// Taken by a registration.
    busy: AtomicBool,
    /// First byte of the map; 0 while the slot is being filled or emptied.
    start: AtomicUsize,
    len: AtomicUsize,
    /// The file's path (leaked: freed memory must never be read by the handler).
    name: AtomicPtr<u8>,
    name_len: AtomicUsize,
    output: AtomicBool,
    faulted: AtomicBool,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            busy: AtomicBool::new(false),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            name: AtomicPtr::new(std::ptr::null_mut()),
            name_len: AtomicUsize::new(0),
            output: AtomicBool::new(false),
            faulted: AtomicBool::new(false),
        }
    }

    fn name(&self) -> &'static [u8] {
        let p = self.name.load(Ordering::Acquire);
        if p.is_null() {
            return b"";
        }
        // SAFETY: `name` points to a leaked, never freed allocation of `name_len` bytes,
        // written before the pointer was published.
        unsafe { std::slice::from_raw_parts(p, self.name_len.load(Ordering::Acquire)) }
    }
}

static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

/// A watched map; the watch ends when this is dropped (before the map is unmapped).
#[derive(Debug)]
pub(crate) struct Watch(usize);

impl Watch {
    /// Whether an access to the map faulted (the file shrank while mapped): bytes read
    /// from it since may be zeros that the file never held.
    pub(crate) fn faulted(&self) -> bool {
        TABLE[self.0].faulted.load(Ordering::Acquire)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let slot = &TABLE[self.0];
        slot.start.store(0, Ordering::Release);
        // A slot that faulted stays taken, so that `first_faulted_input` still names it.
        if !slot.faulted.load(Ordering::Acquire) {
            slot.busy.store(false, Ordering::Release);
        }
    }
}

/// Watches the map `bytes` of the file at `path` (`output`: a file being written).
pub(crate) fn watch(bytes: &[u8], path: &Path, output: bool) -> Option<Watch> {
    if bytes.is_empty() {
        return None;
    }
    let name: &'static [u8] = Box::leak(
        path.as_os_str()
            .as_encoded_bytes()
            .to_vec()
            .into_boxed_slice(),
    );
    let i = TABLE.iter().position(|s| {
        s.busy
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    })?;
    let slot = &TABLE[i];
    slot.faulted.store(false, Ordering::Release);
    slot.output.store(output, Ordering::Release);
    slot.name_len.store(name.len(), Ordering::Release);
    slot.name.store(name.as_ptr() as *mut u8, Ordering::Release);
    slot.len.store(bytes.len(), Ordering::Release);
    slot.start.store(bytes.as_ptr() as usize, Ordering::Release);
    Some(Watch(i))
}

/// What a SIGBUS at an address was.
pub enum Fault {
    /// A watched input: the page now reads as zeros and the file is marked; execution may
    /// go on.
    Input(&'static [u8]),
    /// A watched output (its disk is full): the process must end.
    Output(&'static [u8]),
}

/// From a SIGBUS handler, for the faulting address `addr`: which watched file it lies in,
/// after replacing an input's missing page by zeros. `None`: no watched file, or the page
/// could not be replaced. Async-signal-safe: atomics and `mmap` only.
pub fn recover(addr: usize) -> Option<Fault> {
    let slot = TABLE.iter().find(|s| {
        let start = s.start.load(Ordering::Acquire);
        start != 0 && addr >= start && addr - start < s.len.load(Ordering::Acquire)
    })?;
    if slot.output.load(Ordering::Acquire) {
        return Some(Fault::Output(slot.name()));
    }
    #[cfg(unix)]
    {
        // SAFETY: sysconf is async-signal-safe.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let page = usize::try_from(page).ok().filter(|&p| p > 0)?;
        let at = addr & !(page - 1);
        // SAFETY: the page lies inside a read-only map of ours (found in the table); a
        // private anonymous page fixed over it reads as zeros, and the map's owner unmaps
        // the whole range as before.
        let p = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        slot.faulted.store(true, Ordering::Release);
        Some(Fault::Input(slot.name()))
    }
    #[cfg(not(unix))]
    None
}

/// The first input of this process whose map faulted, if any: nothing read from it may be
/// concluded or written.
pub fn first_faulted_input() -> Option<std::path::PathBuf> {
    let slot = TABLE.iter().find(|s| s.faulted.load(Ordering::Acquire))?;
    // SAFETY: the name was made from an `OsStr`'s encoded bytes.
    Some(unsafe { std::ffi::OsStr::from_encoded_bytes_unchecked(slot.name()) }.into())
}
