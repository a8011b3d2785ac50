//! Output files that appear only when complete: data goes to a temporary file in the
//! destination's directory, which is renamed over the destination by [`AtomicFile::commit`].
//! Dropping an uncommitted `AtomicFile` deletes the temporary file.
//!
//! Where the bytes go is decided once, by [`Destination::resolve`]:
//! - a symbolic link is followed, and its target is replaced atomically (like `cp`), so the
//!   link itself survives;
//! - a destination that exists and is not a regular file (`/dev/null`, a terminal, a named
//!   pipe, `/proc/self/fd/1`) is never renamed over: that would replace the system's null
//!   device with a regular file. The data is staged in the system's temporary directory and
//!   copied into the destination on commit;
//! - `-` is standard output, staged the same way, so that nothing is printed unless the
//!   whole result was made.

use super::{ErrorKind, FormatError};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The path that names standard input or standard output.
pub const STDIO: &str = "-";

/// Whether `path` is `-`, standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// Whether an output at `path` goes to standard output: `-`, or a name of descriptor 1
/// (`/dev/stdout`, `/proc/self/fd/1`).
pub fn writes_stdout(path: &Path) -> bool {
    is_stdio(path) || own_descriptor(path) == Some(1)
}

/// Whether an input at `path` is standard input: `-`, or a name of descriptor 0.
pub fn reads_stdin(path: &Path) -> bool {
    is_stdio(path) || own_descriptor(path) == Some(0)
}

/// The descriptor of this process that `path` names, if it names one: `/dev/stdin`,
/// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` or `/proc/PID/fd/N` with
/// this process's PID. Opening such a path opens the file anew (for a regular file, at
/// offset 0, without the shell's `>>`), and renaming over it replaces the file the
/// descriptor is redirected to: an output there is written into the descriptor itself.
pub fn own_descriptor(path: &Path) -> Option<i32> {
    // Spelled as the system reads it: `/dev/fd//3` and `/dev/./fd/3` are `/dev/fd/3`.
    let spelled: PathBuf = path.components().collect();
    let s = spelled.to_str()?;
    match s {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let own = format!("/proc/{}/fd/", std::process::id());
    let n = [
        "/dev/fd/",
        "/proc/self/fd/",
        "/proc/thread-self/fd/",
        own.as_str(),
    ]
    .iter()
    .find_map(|prefix| s.strip_prefix(prefix))?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten()
}

/// The descriptor that `path` names ([`own_descriptor`]) when it is not open: opening such
/// a path later would find whatever the process opened there in the meantime (its own
/// temporary file: the output was written into it, removed, and the command said it
/// succeeded), so a command refuses it before it opens anything.
pub fn closed_descriptor(path: &Path) -> Option<i32> {
    let fd = own_descriptor(path)?;
    #[cfg(unix)]
    {
        // SAFETY: F_GETFD only asks whether the descriptor is open.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1;
        closed.then_some(fd)
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        None
    }
}

/// Where an output's bytes end up, and where its temporary files go.
#[derive(Debug, Clone)]
pub(crate) struct Destination {
    /// The path the user gave, for messages.
    pub given: PathBuf,
    /// The file that is replaced or written into (a symbolic link's target).
    pub target: PathBuf,
    /// The directory for temporary and work files: beside the target, or the system's
    /// temporary directory for a device, a pipe or standard output.
    pub dir: PathBuf,
    /// The target is a device, a pipe or standard output: copied into, not renamed over.
    pub stream: bool,
}

impl Destination {
    /// Decides where an output at `dest` is written (see the module documentation).
    pub(crate) fn resolve(dest: &Path) -> Result<Destination, FormatError> {
        let fail = |p| FormatError::new(dest, p);
        if is_stdio(dest) {
            return Ok(Destination::temp(dest));
        }
        // A descriptor of ours (`/dev/stderr`, `/proc/self/fd/3`) is written into, never
        // replaced, even when it is redirected to a regular file.
        if own_descriptor(dest).is_some() {
            return Ok(Destination::temp(dest));
        }
        let target = match std::fs::metadata(dest) {
            Ok(m) if m.is_dir() => return Err(fail(ErrorKind::Directory)),
            // Devices, pipes, and /proc/self/fd links to them: opened through the path as
            // given, which the kernel resolves (their link text is no path).
            Ok(m) if !m.is_file() => {
                return Ok(Destination {
                    given: dest.to_path_buf(),
                    target: dest.to_path_buf(),
                    dir: std::env::temp_dir(),
                    stream: true,
                });
            }
            Ok(_) => std::fs::canonicalize(dest).map_err(|e| fail(ErrorKind::Write(e)))?,
            Err(_) => dangling_target(dest).map_err(|e| fail(ErrorKind::Write(e)))?,
        };
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok(Destination {
            given: dest.to_path_buf(),
            target,
            dir,
            stream: false,
        })
    }

    /// The system's temporary directory, for work files and spools of a run that has no
    /// destination on disk (no `-o`, or standard input).
    pub(crate) fn temp(given: &Path) -> Destination {
        Destination {
            given: given.to_path_buf(),
            target: given.to_path_buf(),
            dir: std::env::temp_dir(),
            stream: true,
        }
    }

    /// A new temporary file in [`Destination::dir`], removed when dropped or when a signal
    /// ends the process.
    /// Its name is `.nqueens-KIND` + owner + random + `suffix` (see [`crate::cleanup::owner`]):
    /// a later run removes it if this process dies without doing so.
    pub(crate) fn scratch(&self, kind: &str, suffix: &str) -> Result<Scratch, FormatError> {
        crate::cleanup::sweep(&self.dir);
        let prefix = format!(
            "{}{kind}{}~",
            crate::cleanup::TEMP_PREFIX,
            crate::cleanup::owner()
        );
        let file = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(suffix)
            .tempfile_in(&self.dir)
            .map_err(|e| FormatError::new(&self.given, unwritable_dir(&self.dir, e)))?;
        crate::cleanup::hold(file.as_file());
        Ok(Scratch {
            _tracked: crate::cleanup::track(file.path()),
            file,
        })
    }
}

/// An I/O error without the path a library wrapped into its message.
fn without_path(e: std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::from(e.kind()),
    }
}

/// Why no file can be created in `dir`, in the user's terms: the directory is missing, is
/// not a directory, or is not writable; otherwise the system's reason, without the
/// temporary file's name (which the user never chose).
fn unwritable_dir(dir: &Path, e: std::io::Error) -> ErrorKind {
    let shown = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let why = match std::fs::metadata(dir) {
        Err(_) => format!("directory {} does not exist", shown.display()),
        Ok(m) if !m.is_dir() => format!("{} is not a directory", shown.display()),
        Ok(_) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            format!("directory {} is not writable", shown.display())
        }
        Ok(_) => {
            // tempfile appends " at path <temporary>"; the user named another path.
            let text = e.to_string();
            let text = text.split(" at path ").next().unwrap_or(&text).to_string();
            return ErrorKind::Write(std::io::Error::new(e.kind(), text));
        }
    };
    ErrorKind::Write(std::io::Error::new(e.kind(), why))
}

/// Whether this process may create files in `dir` (a directory, writable and searchable).
fn writable_dir(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: a valid NUL-terminated path.
        dir.is_dir() && unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0
    }
    #[cfg(not(unix))]
    dir.is_dir()
}

/// The file a path that does not exist yet will create: itself, or where its dangling
/// symbolic links lead (followed one by one, at most 40 like the kernel).
fn dangling_target(dest: &Path) -> std::io::Result<PathBuf> {
    let mut target = dest.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&target)?;
                target = match target.parent() {
                    Some(p) if link.is_relative() => p.join(link),
                    _ => link,
                };
            }
            _ => return Ok(target),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// A temporary file of this process (a work file or a spool), deleted when dropped.
pub(crate) struct Scratch {
    file: tempfile::NamedTempFile,
    _tracked: crate::cleanup::Tracked,
}

impl Scratch {
    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    /// The open file.
    pub(crate) fn as_file(&self) -> &File {
        self.file.as_file()
    }

    /// The open file, for writing and seeking.
    pub(crate) fn as_file_mut(&mut self) -> &mut File {
        self.file.as_file_mut()
    }
}

impl Write for Scratch {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Reserves `len` bytes of disk for `file`, so that writing through a memory map cannot
/// run out of space (which the kernel reports as SIGBUS, not as an error): a full disk is
/// then reported here, as ENOSPC. Filesystems without preallocation fall back to a sparse
/// file of that size.
pub(crate) fn reserve(file: &File, len: u64) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        let len = libc::off_t::try_from(len).map_err(std::io::Error::other)?;
        // SAFETY: plain system call on an open descriptor.
        let r = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) };
        match r {
            0 => return Ok(()),
            libc::EOPNOTSUPP | libc::EINVAL => {}
            e => return Err(std::io::Error::from_raw_os_error(e)),
        }
    }
    file.set_len(len)
}

/// A file being written that becomes visible at its path only on [`AtomicFile::commit`].
pub struct AtomicFile {
    tmp: Scratch,
    dest: Destination,
    /// On disk, with its final mode, by [`AtomicFile::prepare`]: commit only renames it.
    prepared: bool,
}

impl AtomicFile {
    /// Starts writing `dest`; nothing exists at `dest` until `commit`.
    pub fn create(dest: &Path) -> Result<Self, FormatError> {
        let dest = Destination::resolve(dest)?;
        Ok(AtomicFile {
            tmp: dest.scratch("", ".partial")?,
            dest,
            prepared: false,
        })
    }

    /// The destination path, as given.
    pub fn dest(&self) -> &Path {
        &self.dest.given
    }

    /// The file [`AtomicFile::commit`] renames onto (a symbolic link's target), when it
    /// renames one: none for a device, a pipe or standard output.
    pub fn target(&self) -> Option<&Path> {
        (!self.dest.stream).then_some(self.dest.target.as_path())
    }

    /// Flushes the buffered writer a text format wrote through; returns the file.
    pub fn unbuffer(out: std::io::BufWriter<AtomicFile>) -> Result<AtomicFile, FormatError> {
        let dest = out.get_ref().dest().to_path_buf();
        out.into_inner()
            .map_err(|e| FormatError::new(&dest, ErrorKind::Write(e.into_error())))
    }

    /// Where the data is until `commit`: a complete file can be read back from here first.
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The temporary file, for writing and seeking.
    pub fn file(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// Starts writing what the file holds so far to disk, without waiting: the check that
    /// reads a written answer back then overlaps the disk, and [`AtomicFile::commit`]'s
    /// flush waits for less (a 800 MB answer's flush took 0.24 s after the check).
    /// Best effort: an error here is reported by `commit`'s flush.
    pub fn start_writeback(&self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::io::AsRawFd;
            // SAFETY: plain system call on an open descriptor; offset 0 and length 0 mean
            // the whole file.
            unsafe {
                libc::sync_file_range(
                    self.tmp.as_file().as_raw_fd(),
                    0,
                    0,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
    }

    /// Flushes to disk (unless [`AtomicFile::prepare`] did) and renames the temporary file
    /// onto the destination (or, for a device, a pipe or standard output, copies it into
    /// the destination).
    pub fn commit(mut self) -> Result<(), FormatError> {
        self.prepare()?;
        let err = |e| FormatError::new(&self.dest.given, ErrorKind::Write(e));
        // Made from an input that shrank under its map: its bytes may be zeros the input
        // never held.
        if let Some(input) = super::fault::first_faulted_input() {
            return Err(FormatError::new(&input, ErrorKind::Shrank));
        }
        if self.dest.stream {
            use std::io::{Seek, SeekFrom};
            let staged = self.tmp.as_file_mut();
            staged.seek(SeekFrom::Start(0)).map_err(err)?;
            if is_stdio(&self.dest.target) {
                let mut out = std::io::stdout().lock();
                std::io::copy(staged, &mut out).map_err(err)?;
                out.flush().map_err(err)?;
            } else if let Some(fd) = own_descriptor(&self.dest.target) {
                // Into the open descriptor: at its offset, with its `>>`, as the shell set
                // it up.
                let mut out = borrowed_descriptor(fd).map_err(err)?;
                std::io::copy(staged, &mut out).map_err(err)?;
            } else {
                let mut out = open_for_writing(&self.dest.target)
                    .map_err(|e| FormatError::new(&self.dest.given, e))?;
                std::io::copy(staged, &mut out).map_err(err)?;
            }
            return Ok(());
        }
        let Scratch { file, _tracked } = self.tmp;
        // tempfile's error names the temporary file, which the user never chose (and which
        // is gone): keep only the system's reason.
        file.persist(&self.dest.target)
            .map_err(|e| err(without_path(e.error)))?;
        Ok(())
    }
}

impl AtomicFile {
    /// Puts the file on disk with the mode it will have, so that [`AtomicFile::commit`]
    /// only renames it: a set of files published together (a certificate and the pieces
    /// of its proof) is then renamed into place in moments, not over the seconds that
    /// flushing gigabytes takes. For a device, a pipe or standard output, nothing.
    pub fn prepare(&mut self) -> Result<(), FormatError> {
        if self.dest.stream || self.prepared {
            return Ok(());
        }
        let err = |e| FormatError::new(&self.dest.given, ErrorKind::Write(e));
        self.tmp.as_file().sync_all().map_err(err)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // tempfile creates 0600. Like `cp`, a file replaced keeps its mode; a new one
            // gets the ordinary mode of new files (0666 less the umask).
            let mode = match std::fs::metadata(&self.dest.target) {
                Ok(m) => m.permissions().mode() & 0o7777,
                Err(_) => 0o666 & !umask(),
            };
            self.tmp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))
                .map_err(err)?;
        }
        self.prepared = true;
        Ok(())
    }
}

/// The files this process has open (Linux: its descriptors; elsewhere 0, not counted).
pub(crate) fn open_files() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64)
}

/// Raises this process's limit of open files (its soft limit, as far as the hard one) to
/// `needed` if it is lower: the pieces of a split proof are written at once, each a file
/// held open (and locked, so that no sweep takes it) until all are published. Returns
/// the limit when it cannot be raised that far.
// rlim_t is u64 on Linux, not on every Unix.
#[allow(clippy::unnecessary_cast)]
pub(crate) fn raise_open_files(needed: u64) -> Result<(), u64> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write the struct passed.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
            return Ok(());
        }
        if lim.rlim_cur as u64 >= needed {
            return Ok(());
        }
        let raised = libc::rlimit {
            rlim_cur: (needed as libc::rlim_t).min(lim.rlim_max),
            rlim_max: lim.rlim_max,
        };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0
            && raised.rlim_cur as u64 >= needed
        {
            return Ok(());
        }
        Err(lim.rlim_max.min(raised.rlim_cur.max(lim.rlim_cur)) as u64)
    }
    #[cfg(not(unix))]
    {
        let _ = needed;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file().flush()
    }
}

/// Opens a device or a named pipe to write into it. A named pipe that no process reads
/// would block the open forever: it is tried without blocking until a reader comes, for
/// at most [`super::WRITER_WAIT`], then refused.
fn open_for_writing(target: &Path) -> Result<File, ErrorKind> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let fifo = std::fs::metadata(target).is_ok_and(|m| m.file_type().is_fifo());
        if fifo {
            let deadline = std::time::Instant::now() + super::WRITER_WAIT;
            loop {
                match std::fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(target)
                {
                    Ok(file) => {
                        super::open::set_blocking(&file).map_err(ErrorKind::Write)?;
                        return Ok(file);
                    }
                    // No reader yet.
                    Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                        if std::time::Instant::now() >= deadline {
                            return Err(ErrorKind::NoReader(super::WRITER_WAIT.as_secs()));
                        }
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                    Err(e) => return Err(ErrorKind::Write(e)),
                }
            }
        }
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(target)
        .map_err(ErrorKind::Write)
}

/// A new descriptor for this process's descriptor `fd` (closed when dropped; `fd` stays).
fn borrowed_descriptor(fd: i32) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::io::FromRawFd;
        // SAFETY: dup on a descriptor number; the result, when valid, is ours to own.
        let copy = unsafe { libc::dup(fd) };
        if copy < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `copy` is a fresh descriptor that nothing else owns.
        Ok(unsafe { File::from_raw_fd(copy) })
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

/// This process's file mode creation mask, read from `/proc/self/status` (setting it to
/// read it, the only other way, would race with threads creating files); 022 if unknown.
#[cfg(unix)]
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

/// Where one output of a command goes, as the user named it: `flag` says which option
/// (`-o`, `--trace`, ...) for messages.
#[derive(Debug, Clone, Copy)]
pub struct OutputPath<'a> {
    /// The option that names it, as the user typed it (`-o`, `--trace`, `OUT`).
    pub flag: &'a str,
    /// The path.
    pub path: &'a Path,
}

/// The identity of the file a path names: an existing regular file (device and inode, so
/// hard links and other spellings match), or, for a file that does not exist yet, its
/// absolute path after following symbolic links. Devices and pipes are written into,
/// never replaced, and have no identity here: two outputs to `/dev/null` are fine.
/// Standard output (`-`) is the regular file it is redirected to, if it is one.
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    Stdout,
    Inode(u64, u64),
    /// A file not created yet: its directory's device and inode (one directory reached
    /// through a bind mount or another spelling is the same) and its name.
    New(u64, u64, std::ffi::OsString),
    Path(PathBuf),
}

fn file_id(p: &Path) -> Option<FileId> {
    match std::fs::metadata(p) {
        #[cfg(unix)]
        Ok(m) if m.is_file() => {
            use std::os::unix::fs::MetadataExt;
            Some(FileId::Inode(m.dev(), m.ino()))
        }
        Ok(_) => None,
        Err(_) => {
            let target = dangling_target(p).ok()?;
            let name = target.file_name()?;
            let dir = match target.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            #[cfg(unix)]
            if let Ok(m) = std::fs::metadata(dir) {
                use std::os::unix::fs::MetadataExt;
                return Some(FileId::New(m.dev(), m.ino(), name.to_os_string()));
            }
            // A directory that does not exist either: compare the paths as given, made
            // absolute, which still catches the same name typed twice.
            let dir = std::fs::canonicalize(dir)
                .or_else(|_| std::path::absolute(dir))
                .ok()?;
            Some(FileId::Path(dir.join(name)))
        }
    }
}

/// The regular file open as descriptor `fd` (`< f`, `> f`, `>> f`, `1<> f`), if it is one.
fn descriptor_id(fd: i32) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::FromRawFd;
        // SAFETY: the descriptor is only borrowed for fstat; ManuallyDrop keeps it open.
        let file = std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
        let m = file.metadata().ok()?;
        m.is_file().then(|| FileId::Inode(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        None
    }
}

/// What an output path writes: `-` is standard output, which is the file it is
/// redirected to when that is a regular file.
fn output_id(p: &Path) -> Option<FileId> {
    match own_descriptor(p) {
        _ if is_stdio(p) => Some(descriptor_id(1).unwrap_or(FileId::Stdout)),
        Some(1) => Some(descriptor_id(1).unwrap_or(FileId::Stdout)),
        Some(fd) => descriptor_id(fd),
        None => file_id(p),
    }
}

/// What an input path reads: `-` is standard input, a regular file when redirected from one.
fn input_id(p: &Path) -> Option<FileId> {
    match own_descriptor(p) {
        _ if is_stdio(p) => descriptor_id(0),
        Some(fd) => descriptor_id(fd),
        None => file_id(p),
    }
}

/// Refuses to run when one file would be written twice, an input overwritten, or an
/// output's directory is missing or not writable: every output is compared with every
/// other output of the command (so `-o x --trace x` cannot leave the trace where the
/// answer was) and with every input, by identity (see `FileId`). Standard output counts
/// as the file it is redirected to, as `cat` does: `convert in.txt - >> in.txt` is refused,
/// and so is standard input redirected from an output. Standard output may take one
/// output only.
pub fn check_outputs(outputs: &[OutputPath<'_>], inputs: &[&Path]) -> Result<(), FormatError> {
    let ids: Vec<_> = outputs.iter().map(|o| output_id(o.path)).collect();
    let input_ids: Vec<_> = inputs.iter().map(|p| input_id(p)).collect();
    for (i, out) in outputs.iter().enumerate() {
        let Some(id) = &ids[i] else { continue };
        if let Some(j) = (0..i).find(|&j| ids[j].as_ref() == Some(id)) {
            return Err(FormatError::new(
                out.path,
                ErrorKind::SameOutput {
                    flag: out.flag.to_string(),
                    other: outputs[j].flag.to_string(),
                },
            ));
        }
        if let Some(k) = input_ids.iter().position(|p| p.as_ref() == Some(id)) {
            return Err(FormatError::new(
                out.path,
                ErrorKind::OverwritesInput(inputs[k].to_path_buf()),
            ));
        }
        if is_stdio(out.path) || own_descriptor(out.path).is_some() {
            continue;
        }
        // Every output's directory is checked before the command runs, so that a trace
        // in a missing directory is not discovered after an hour's answer was written.
        let dest = Destination::resolve(out.path)?;
        if !dest.stream && !writable_dir(&dest.dir) {
            let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
            return Err(FormatError::new(out.path, unwritable_dir(&dest.dir, e)));
        }
    }
    Ok(())
}

/// The input among `inputs` that this process's descriptor `fd` is redirected to (`>>
/// in.txt`, `1<> in.nqb`, `2>> in.txt`), if any: what is written there would be written
/// into a file the command reads.
pub fn redirected_into<'a>(fd: i32, inputs: &[&'a Path]) -> Option<&'a Path> {
    let out = descriptor_id(fd)?;
    inputs
        .iter()
        .find(|p| input_id(p).as_ref() == Some(&out))
        .copied()
}

/// Refuses to run when standard output is redirected into one of `inputs` (`>> in.txt`,
/// `1<> in.nqb`), as `cat` does: whatever the command prints would be written into a
/// file it reads. For commands that print to standard output without naming `-`.
pub fn check_stdout(inputs: &[&Path]) -> Result<(), FormatError> {
    match redirected_into(1, inputs) {
        Some(input) => Err(FormatError::new(
            Path::new("(standard output)"),
            ErrorKind::OverwritesInput(input.to_path_buf()),
        )),
        None => Ok(()),
    }
}
