//! NumPy's `.npz` (`np.savez`, `np.savez_compressed`): a zip archive of `.npy` arrays, one
//! per name. The board is the array `--var` names, else `Q`, else the only array; it is
//! extracted to a temporary file (bounded by what its compressed bytes can hold) and read as
//! any `.npy` file. The zip container is read by the `zip` crate.

use super::{ErrorKind, FormatError, Input, OpenOptions, quote};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Whether `head` starts like a zip archive (a local file header, or an empty archive's
/// end record).
pub(crate) fn sniff(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
}

/// Deflate's largest ratio (a run of one byte) and then some: what a compressed entry can
/// inflate to, per compressed byte.
const MAX_RATIO: u64 = 1032;

/// Opens the board in the `.npz` archive `file` (at `path`).
pub(crate) fn open(path: &Path, file: File, opts: &OpenOptions) -> Result<Input, FormatError> {
    let fail = |what: String| FormatError::new(path, ErrorKind::Npy(what));
    let mut zip = zip::ZipArchive::new(file).map_err(|e| {
        fail(format!(
            "not a readable .npz archive: {}",
            quote(&e.to_string())
        ))
    })?;
    // As NumPy's `np.load` keys them: every member, named without its `.npy` suffix.
    let members: Vec<String> = zip
        .file_names()
        .filter_map(|name| name.ok().map(|n| n.to_string()))
        .collect();
    let arrays: Vec<String> = members
        .iter()
        .map(|m| m.strip_suffix(".npy").unwrap_or(m).to_string())
        .collect();
    // Every array may be the board: its shape is read once it is chosen.
    let chosen = super::variables::choose(
        arrays.len(),
        |name| arrays.iter().position(|a| a == name),
        |_| true,
        || super::variables::names(arrays.iter().map(String::as_str)),
        opts.var.as_deref(),
    )
    .map_err(|m| fail(format!(".npz archive: {m}")))?;
    let (member, chosen) = (&members[chosen], &arrays[chosen]);
    let mut entry = zip.by_name(member).map_err(|e| {
        fail(format!(
            "array {}: {}",
            quote(chosen),
            quote(&e.to_string())
        ))
    })?;
    // The declared size is the archive's word: checked against what the compressed bytes
    // can hold, and against the bytes that come out.
    let size = entry.size();
    let stored = entry.compression() == zip::CompressionMethod::Stored;
    let most = if stored {
        entry.compressed_size()
    } else {
        entry
            .compressed_size()
            .saturating_mul(MAX_RATIO)
            .saturating_add(1024)
    };
    let largest = 1024 + 8 * crate::board::MAX_N;
    if size > most {
        return Err(fail(format!(
            "array {}: declares {size} bytes, more than its {} stored bytes can hold",
            quote(chosen),
            entry.compressed_size()
        )));
    }
    if size > largest {
        return Err(fail(format!(
            "array {}: declares {size} bytes, more than a board of at most {} rows needs",
            quote(chosen),
            crate::board::MAX_N
        )));
    }
    // Only a .npy array is extracted: an archive or a compressed file in the archive
    // would be a second level of container (each level multiplies what a small file can
    // inflate to), which NumPy does not read as an array either.
    let read_failed = |e: std::io::Error| {
        fail(format!(
            "array {}: {}",
            quote(chosen),
            quote(&e.to_string())
        ))
    };
    let mut head = Vec::with_capacity(super::npy::MAGIC.len());
    (&mut entry)
        .take(super::npy::MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(read_failed)?;
    if !super::npy::sniff(&head) {
        return Err(fail(format!(
            "array {} is not a .npy array (it starts {}); an archive or compressed file \
             inside the archive is not read",
            quote(chosen),
            super::hex(&head)
        )));
    }
    let mut spool = super::Destination::temp(path).scratch("stdin-", "")?;
    let copied = std::io::copy(
        &mut std::io::Read::chain(head.as_slice(), (&mut entry).take(size + 1)),
        &mut spool,
    )
    .map_err(read_failed)?;
    if copied != size {
        return Err(fail(format!(
            "array {}: {copied} bytes, the archive declares {size}",
            quote(chosen)
        )));
    }
    let mut input = Input::open_with(spool.path(), opts).map_err(|mut e| {
        e.path = path.to_path_buf();
        e
    })?;
    if !matches!(input, Input::Npy(_)) {
        return Err(fail(format!("array {} is not a .npy array", quote(chosen))));
    }
    input.set_path(path);
    Ok(input)
}
