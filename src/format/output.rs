//! Output files that appear only when complete: data goes to a temporary file in the
//! destination's directory, which is renamed over the destination by [`AtomicFile::commit`].
//! Dropping an uncommitted `AtomicFile` deletes the temporary file.
//!
//! A destination that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a named
//! pipe) is never renamed over: that would replace the system's null device with a regular
//! file, and every later reader of `/dev/null` would read our output. The data is then
//! staged in the system's temporary directory and copied into the destination on commit.

use super::{FormatError, Problem};
use std::fs::File;
use std::path::{Path, PathBuf};

/// A file being written that becomes visible at its path only on [`AtomicFile::commit`].
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    dest: PathBuf,
    /// The destination is a device or pipe: copy into it instead of renaming over it.
    stream_into_dest: bool,
    _tracked: crate::cleanup::Tracked,
}

impl AtomicFile {
    /// Starts writing `dest`; nothing exists at `dest` until `commit`.
    pub fn create(dest: &Path) -> Result<Self, FormatError> {
        let err = |e| FormatError::new(dest, Problem::Write(e));
        if dest.is_dir() {
            return Err(FormatError::new(dest, Problem::Directory));
        }
        let stream_into_dest = std::fs::metadata(dest).is_ok_and(|m| !m.is_file());
        let dir = match dest.parent() {
            _ if stream_into_dest => std::env::temp_dir(),
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".nqueens-")
            .suffix(".partial")
            .tempfile_in(&dir)
            .map_err(err)?;
        Ok(AtomicFile {
            _tracked: crate::cleanup::track(tmp.path()),
            tmp,
            dest: dest.to_path_buf(),
            stream_into_dest,
        })
    }

    /// The destination path.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes the buffered writer a text format wrote through; returns the file.
    pub fn unbuffer(out: std::io::BufWriter<AtomicFile>) -> Result<AtomicFile, FormatError> {
        let dest = out.get_ref().dest().to_path_buf();
        out.into_inner()
            .map_err(|e| FormatError::new(&dest, Problem::Write(e.into_error())))
    }

    /// Where the data is until `commit`: a complete file can be read back from here first.
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The temporary file, for writing and seeking.
    pub fn file(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// Flushes to disk and renames the temporary file onto the destination (or, for a
    /// device or pipe, copies it into the destination).
    pub fn commit(mut self) -> Result<(), FormatError> {
        let dest = self.dest;
        let err = |e| FormatError::new(&dest, Problem::Write(e));
        if self.stream_into_dest {
            use std::io::{Seek, SeekFrom};
            let staged = self.tmp.as_file_mut();
            staged.seek(SeekFrom::Start(0)).map_err(err)?;
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(&dest)
                .map_err(err)?;
            std::io::copy(staged, &mut out).map_err(err)?;
            return Ok(());
        }
        self.tmp.as_file().sync_all().map_err(err)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // tempfile creates 0600; results are ordinary data files.
            self.tmp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
                .map_err(err)?;
        }
        self.tmp.persist(&dest).map_err(|e| err(e.error))?;
        Ok(())
    }
}
