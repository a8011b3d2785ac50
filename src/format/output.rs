//! Output files that appear only when complete: data goes to a temporary file in the
//! destination's directory, which is renamed over the destination by [`AtomicFile::commit`].
//! Dropping an uncommitted `AtomicFile` deletes the temporary file.

use super::{FormatError, Problem};
use std::fs::File;
use std::path::{Path, PathBuf};

/// A file being written that becomes visible at its path only on [`AtomicFile::commit`].
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    dest: PathBuf,
    _tracked: crate::cleanup::Tracked,
}

impl AtomicFile {
    /// Starts writing `dest`; nothing exists at `dest` until `commit`.
    pub fn create(dest: &Path) -> Result<Self, FormatError> {
        let err = |e| FormatError::new(dest, Problem::Write(e));
        if dest.is_dir() {
            return Err(FormatError::new(dest, Problem::Directory));
        }
        let dir = match dest.parent() {
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

    /// Flushes to disk and renames the temporary file onto the destination.
    pub fn commit(self) -> Result<(), FormatError> {
        let dest = self.dest;
        let err = |e| FormatError::new(&dest, Problem::Write(e));
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
