//! Verifying many files: which go in parallel and which alone.

use super::{Report, Requirements, verify};
use crate::format::{FormatError, Input, OpenOptions};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Files of at most this many bytes are verified several at a time; larger ones one at a
/// time (each with all threads), so that at most one large set of bitmaps is in memory.
pub const SMALL_FILE: u64 = 64 << 20;

/// Verifies `files` and hands each result to `report` in the order given, as soon as its
/// batch is done: a run of consecutive small files (at most [`SMALL_FILE`] bytes) is
/// checked in parallel, a larger file alone, its single pass using every thread. Stops at
/// the first error `report` returns.
pub fn verify_files<E>(
    files: &[PathBuf],
    opts: &OpenOptions,
    req: Requirements,
    report: impl FnMut(&Path, Result<Report, FormatError>) -> Result<(), E>,
) -> Result<(), E> {
    in_batches(files, SMALL_FILE, opts, req, report)
}

fn in_batches<E>(
    files: &[PathBuf],
    small: u64,
    opts: &OpenOptions,
    req: Requirements,
    mut report: impl FnMut(&Path, Result<Report, FormatError>) -> Result<(), E>,
) -> Result<(), E> {
    let is_small = |path: &PathBuf| std::fs::metadata(path).is_ok_and(|m| m.len() <= small);
    let check = |path: &PathBuf| Input::open_with(path, opts).and_then(|input| verify(&input, req));
    let mut i = 0;
    while i < files.len() {
        let mut j = i;
        while j < files.len() && is_small(&files[j]) {
            j += 1;
        }
        let j = j.max(i + 1);
        let results: Vec<_> = files[i..j].par_iter().map(check).collect();
        for (path, result) in files[i..j].iter().zip(results) {
            report(path, result)?;
        }
        i = j;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results come back in the order given, small and large files mixed, errors included.
    #[test]
    fn results_come_in_the_order_given() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.txt");
        std::fs::write(&small, "2\n4\n1\n3\n").unwrap();
        // Above the limit of 10 bytes this test gives: verified alone.
        let large = dir.path().join("large.txt");
        std::fs::write(&large, "0\n0\n0\n0\n0\n0\n0\n").unwrap();
        let missing = dir.path().join("missing.txt");
        let files = vec![
            small.clone(),
            large.clone(),
            small.clone(),
            missing.clone(),
            small,
        ];
        let mut seen = Vec::new();
        let opts = OpenOptions::default();
        in_batches::<()>(&files, 10, &opts, Requirements::default(), |p, r| {
            seen.push((p.to_path_buf(), r.map(|r| r.n).ok()));
            Ok(())
        })
        .unwrap();
        let paths: Vec<_> = seen.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(paths, files);
        assert_eq!(seen[0].1, Some(4));
        assert_eq!(seen[1].1, Some(7));
        assert_eq!(seen[2].1, Some(4));
        assert_eq!(seen[3].1, None);
    }
}
