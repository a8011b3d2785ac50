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

/// Set while a set of files is renamed into place together (a certificate, its CNF and
/// the pieces of its proof): a signal that would end the process waits for the set
/// instead, so that no mix of an earlier set and this one is left.
static PUBLISHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a set of files is being renamed into place ([`publishing`]): a signal handler
/// lets the process finish it rather than end it now.
pub fn publishing() -> bool {
    PUBLISHING.load(std::sync::atomic::Ordering::SeqCst)
}

/// Marks a set of files as being renamed into place, for as long as the guard lives.
#[must_use = "the set is marked only while the guard lives"]
pub(crate) struct Publishing(());

/// Starts publishing a set of files ([`publishing`]).
pub(crate) fn start_publishing() -> Publishing {
    PUBLISHING.store(true, std::sync::atomic::Ordering::SeqCst);
    Publishing(())
}

impl Drop for Publishing {
    fn drop(&mut self) {
        PUBLISHING.store(false, std::sync::atomic::Ordering::SeqCst);
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
/// `stdin-`, or nothing), then [`owner`], then `~`, [`RANDOM_LEN`] random letters and
/// digits, and the kind's suffix (see [`KINDS`]).
pub(crate) const TEMP_PREFIX: &str = ".nqueens-";

/// Every kind of temporary file and its suffix: the sweep removes only names of exactly
/// this shape.
pub(crate) const KINDS: [(&str, &str); 4] = [
    ("", ".partial"),
    ("", ".spool"),
    ("work-", ""),
    ("stdin-", ""),
];

/// Length of the random part of a temporary file's name (tempfile's default).
pub(crate) const RANDOM_LEN: usize = 6;

/// This process as the owner of a temporary file: `PID@HOST`, for people reading a
/// directory listing, and so that runs on other hosts sharing the directory are never
/// judged. Whether the owner is alive is proven by its lock (see [`hold`]), not by the
/// PID, which another PID namespace on the same host (a container sharing the volume)
/// may reuse or not see at all.
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

/// Marks a temporary file this process just created as owned by a live process: an
/// exclusive `flock` on it, which the kernel releases when the last descriptor (or memory
/// map) of the file goes away, that is, when the owner dies however it dies. A sweep
/// elsewhere, in this PID namespace or another, sees the lock and leaves the file alone.
pub(crate) fn hold(file: &std::fs::File) {
    // A file that cannot be locked (a filesystem without flock) is left unprotected, as
    // every file was before locks.
    let _ = file.try_lock();
}

/// Files this command reads, by device and inode: the sweep never removes one, whatever
/// its name (a user may well read a file that looks like a temporary file of ours).
static PROTECTED: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());

/// Keeps the file at `path` (an input of the running command) out of every sweep.
/// Standard input is protected as `-`, when it is a regular file.
pub fn protect(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = if path.as_os_str() == "-" {
            // SAFETY: `fd 0` is only borrowed for the call; ManuallyDrop keeps it open.
            let stdin = std::mem::ManuallyDrop::new(unsafe {
                <std::fs::File as std::os::unix::io::FromRawFd>::from_raw_fd(0)
            });
            stdin.metadata()
        } else {
            std::fs::metadata(path)
        };
        if let Ok(m) = meta
            && m.is_file()
        {
            PROTECTED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((m.dev(), m.ino()));
        }
    }
}

/// Whether `name` is exactly the name of one of our temporary files made on this host,
/// by another process than this one.
fn ours_from_elsewhere(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(TEMP_PREFIX) else {
        return false;
    };
    KINDS.iter().any(|(kind, suffix)| {
        let Some(rest) = rest.strip_prefix(kind) else {
            return false;
        };
        let Some(rest) = rest.strip_suffix(suffix) else {
            return false;
        };
        let Some((owner, random)) = rest.split_once('~') else {
            return false;
        };
        let Some((pid, h)) = owner.split_once('@') else {
            return false;
        };
        random.len() == RANDOM_LEN
            && random.bytes().all(|b| b.is_ascii_alphanumeric())
            && possible_pid(pid)
            && pid.parse() != Ok(std::process::id())
            && h == host()
    })
}

/// Whether `pid` is a PID as `owner` writes one: decimal without a leading zero, from 1
/// to the kernel's largest (`/proc/sys/kernel/pid_max`, 2^22 where it cannot be read).
fn possible_pid(pid: &str) -> bool {
    static MAX: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let max = *MAX.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1 << 22)
    });
    !pid.is_empty()
        && !pid.starts_with('0')
        && pid.bytes().all(|b| b.is_ascii_digit())
        && pid.parse::<u64>().is_ok_and(|p| (1..=max).contains(&p))
}

/// Files younger than this are never swept: between creating a file and locking it, its
/// owner holds no lock yet.
const GRACE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes from `dir` the temporary files that runs on this host left when they died
/// without cleaning up (kill -9, power loss: no destructor or signal handler runs): work
/// files of hundreds of megabytes, spools of standard input, partial outputs.
///
/// A file is removed only when all of these hold: its name is exactly one of ours
/// ([`KINDS`], this host), it is a regular file, no input of this command is that file
/// ([`protect`]), it is over a minute old, and no process holds its lock ([`hold`]): the
/// sweep takes the lock itself before removing it. Each directory is swept once per
/// process; errors are ignored, as the sweep is a courtesy, not part of the command.
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
        if name.to_str().is_some_and(ours_from_elsewhere) {
            remove_if_abandoned(&e.path());
        }
    }
}

#[cfg(unix)]
fn remove_if_abandoned(path: &Path) {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    // Not following a link, and not blocking on a named pipe someone gave our name.
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    else {
        return;
    };
    let Ok(meta) = file.metadata() else { return };
    let young = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .is_none_or(|age| age < GRACE);
    let protected = PROTECTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&(meta.dev(), meta.ino()));
    if !meta.is_file() || young || protected {
        return;
    }
    if file.try_lock().is_err() {
        return; // its owner is alive
    }
    // Still the file we locked (not replaced since it was opened)?
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(not(unix))]
fn remove_if_abandoned(_: &Path) {}

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

    fn aged(path: &Path) {
        let old = std::time::SystemTime::now() - 2 * GRACE;
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    fn left(dir: &Path) -> Vec<String> {
        let mut left: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        left
    }

    #[test]
    fn sweep_removes_only_abandoned_files_of_our_exact_names() {
        let dir = tempfile::tempdir().unwrap();
        let h = host();
        let dead = format!(".nqueens-work-7@{h}~abcDE1");
        let dead_partial = format!(".nqueens-7@{h}~abcDE1.partial");
        let dead_spool = format!(".nqueens-1@{h}~Zz9zz9.spool");
        let mine = format!(".nqueens-{}~abcDE1.partial", owner());
        let other_host = ".nqueens-999999999@elsewhere.example~abcDE1".to_string();
        // Names no run of ours writes: PID 0, a leading zero, beyond the largest PID.
        let pid0 = format!(".nqueens-0@{h}~abcDE1.partial");
        let zero_led = format!(".nqueens-007@{h}~abcDE1.partial");
        let beyond = format!(".nqueens-999999999997@{h}~abcDE1.partial");
        // Names that only start like ours: never ours.
        let longer = format!(".nqueens-7@{h}~AbCdEf.partial.bak");
        let any = format!(".nqueens-7@{h}~my notes.txt");
        let wrong_kind = format!(".nqueens-spool-7@{h}~abcDE1");
        let unrelated = "nqueens-999999999@x~y".to_string();
        // Ours, abandoned, but an input of this command.
        let input = format!(".nqueens-3@{h}~AbCdEf.partial");
        // Ours, but its owner holds the lock: alive in another PID namespace.
        let locked = format!(".nqueens-stdin-7@{h}~lock3d");
        // Ours, abandoned a moment ago: maybe not locked yet.
        let young = format!(".nqueens-work-7@{h}~young1");
        let all = [
            &pid0,
            &zero_led,
            &beyond,
            &dead,
            &dead_partial,
            &dead_spool,
            &mine,
            &other_host,
            &longer,
            &any,
            &wrong_kind,
            &unrelated,
            &input,
            &locked,
            &young,
        ];
        for n in all {
            let p = dir.path().join(n);
            std::fs::write(&p, "x").unwrap();
            if n != &young {
                aged(&p);
            }
        }
        protect(&dir.path().join(&input));
        let holder = std::fs::File::open(dir.path().join(&locked)).unwrap();
        hold(&holder);
        sweep(dir.path());
        let mut want: Vec<String> = all
            .iter()
            .filter(|n| ![&dead, &dead_partial, &dead_spool].contains(n))
            .map(|n| n.to_string())
            .collect();
        want.sort();
        assert_eq!(left(dir.path()), want);
        drop(holder);
    }
}
