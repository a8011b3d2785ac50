//! Temporary files and directories of this process, so that a signal that ends it (Ctrl-C,
//! `kill`) removes them instead of leaving partial files behind: a process killed by a
//! signal runs no destructors.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static LIVE: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());
static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A temporary path registered for removal on a signal, for as long as the guard lives.
/// The owner removes the path itself in the normal course (this only forgets it).
#[must_use = "the path is tracked only while the guard lives"]
pub(crate) struct Tracked(u64);

/// Registers `path` (a file or a directory) until the returned guard is dropped.
pub(crate) fn track(path: &Path) -> Tracked {
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    lock().push((id, path.to_path_buf()));
    Tracked(id)
}

impl Drop for Tracked {
    fn drop(&mut self) {
        lock().retain(|(id, _)| *id != self.0);
    }
}

/// Removes every tracked path; for a signal handler about to end the process.
pub fn remove_all() {
    for (_, path) in lock().drain(..) {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(&path);
        } else {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// [`remove_all`] from a signal handler: never waits for the lock (the interrupted thread
/// may hold it), and leaves the paths alone if it cannot take it at once.
pub fn remove_all_in_signal_handler() {
    if let Ok(mut live) = LIVE.try_lock() {
        for (_, path) in live.drain(..) {
            let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir_all(&path));
        }
    }
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(u64, PathBuf)>> {
    // A panic while holding the lock leaves a valid list; keep using it.
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_all_removes_only_live_paths() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "x").unwrap();
        std::fs::write(&b, "y").unwrap();
        let _live = track(&a);
        drop(track(&b));
        remove_all();
        assert!(!a.exists());
        assert!(b.exists(), "a dropped guard no longer tracks its path");
    }
}
