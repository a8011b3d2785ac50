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

/// The start of every temporary file's name; what follows is its kind (`work-`,
/// `stdin-`, or nothing), then [`owner`], then `~` and a random part.
pub(crate) const TEMP_PREFIX: &str = ".nqueens-";

/// This process as the owner of a temporary file: `PID@HOST`, so that a later run on the
/// same host can tell a file left by a process that died (kill -9, power loss: no
/// destructor or signal handler runs) from one a live run is writing. Runs on other hosts
/// sharing the directory are never judged.
pub(crate) fn owner() -> String {
    format!("{}@{}", std::process::id(), host())
}

fn host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname NUL-terminates or truncates.
        let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let name = if r == 0 { &buf[..len] } else { b"localhost" };
        String::from_utf8_lossy(name)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    })
}

/// Whether a process with this PID exists on this host.
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The PID that left a temporary file named `name`, if the name is one of ours from
/// this host.
fn dead_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let rest = ["work-", "stdin-"]
        .iter()
        .find_map(|k| rest.strip_prefix(k))
        .unwrap_or(rest);
    let (owner, _) = rest.split_once('~')?;
    let (pid, h) = owner.split_once('@')?;
    let pid: u32 = pid.parse().ok()?;
    (h == host() && pid != std::process::id() && !alive(pid)).then_some(pid)
}

/// Removes from `dir` the temporary files that runs on this host left when they died
/// without cleaning up (their PID no longer exists): work files of hundreds of
/// megabytes, spools of standard input, partial outputs. Each directory is swept once per
/// process; errors (a file another run removed first, a directory we cannot list) are
/// ignored, as the sweep is a courtesy, not part of the command.
pub(crate) fn sweep(dir: &Path) {
    static SWEPT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if swept.iter().any(|d| d == dir) {
            return;
        }
        swept.push(dir.to_path_buf());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if dead_owner(name).is_some() && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
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

    #[test]
    fn sweep_removes_only_files_of_dead_owners_on_this_host() {
        let dir = tempfile::tempdir().unwrap();
        // PIDs above the kernel's maximum (4194304) never exist.
        let dead = format!(".nqueens-work-999999999@{}~abc", host());
        let dead_partial = format!(".nqueens-999999999@{}~abc.partial", host());
        let mine = format!(".nqueens-{}~abc.partial", owner());
        let other_host = ".nqueens-999999999@elsewhere.example~abc".to_string();
        let live = format!(".nqueens-stdin-1@{}~abc", host());
        let unrelated = "nqueens-999999999@x~y".to_string();
        for n in [&dead, &dead_partial, &mine, &other_host, &live, &unrelated] {
            std::fs::write(dir.path().join(n), "x").unwrap();
        }
        sweep(dir.path());
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut want = vec![mine, other_host, live, unrelated];
        want.sort();
        assert_eq!(left, want);
    }
}
