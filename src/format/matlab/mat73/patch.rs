//! An answer written as its v7.3 input with the chunks that held free rows replaced.
//!
//! MATLAB's `save -v7.3` of a double vector deflates it in chunks. The answer's given rows
//! are the input's, so every chunk without a free row is the input's chunk, byte for
//! byte: the answer is the input file copied (in the kernel), the few chunks that held
//! free rows deflated anew and appended, and their index records and the file's end
//! rewritten in place. The user gets back the file they saved, with its other variables,
//! chunking and compression, at the size MATLAB made it (an uncompressed double answer is
//! 2.3 times the seed's deflated input), and nothing is inflated to check the copied
//! chunks: their bytes must match a digest of the bytes their rows were read from.

use super::chunks::{DEFLATE, FLETCHER32, SHUFFLE, StoredLayout, WORK, fletcher32};
use super::read::Mat73File;
use crate::board::Bitmap;
use crate::format::matlab::hdf5_v1::{self, ChunkIndex};
use crate::format::{AtomicFile, ErrorKind, FormatError, IndexBase, MatLayout};
use rayon::prelude::*;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// A patch replaces at most one chunk in this many: each replaced chunk is deflated anew,
/// which for many chunks costs more than writing the whole answer uncompressed.
const MAX_SHARE: u64 = 8;

/// libdeflate's level for replaced chunks: 262 MB/s on the seed's doubles, against 180
/// MB/s at 3 (MATLAB deflates at zlib's 3), for chunks 2 % larger.
const LEVEL: i32 = 1;

/// An answer written as its input patched, not yet published.
pub(crate) struct Patched {
    /// The file.
    pub(crate) file: AtomicFile,
    /// The chunks replaced: number, file offset, stored size.
    replaced: Vec<(u64, u64, u64)>,
}

impl Patched {
    /// How many chunks were replaced.
    pub(crate) fn replaced(&self) -> u64 {
        self.replaced.len() as u64
    }
}

impl Mat73File {
    /// Writes the solution `rows` (all n rows as little-endian `u32`; the rows `given`
    /// marks are this file's) to `dest` as this file with every chunk that holds a row
    /// `given` lacks replaced; returns it unpublished. `None` (nothing written) unless
    /// `layout` is this variable's own and the file allows it: a chunked vector in HDF5's
    /// original format (what MATLAB, h5py and hdf5storage write), deflated, shuffled and
    /// Fletcher-32 checksummed at most (a replaced chunk gets its own checksum, as the
    /// HDF5 library computes it), little-endian, 1-based, with few chunks to replace.
    pub(crate) fn write_patched(
        &self,
        dest: &Path,
        layout: MatLayout,
        rows: &[u8],
        given: &Bitmap,
    ) -> Result<Option<Patched>, FormatError> {
        let Some((index, replace)) = self.patch_plan(layout, given) else {
            return Ok(None);
        };
        let stored = self.stored.as_ref().expect("a plan needs stored chunks");
        let StoredLayout::Chunked { len, filters, .. } = &stored.layout else {
            unreachable!("a plan needs chunks")
        };
        let mut file = AtomicFile::create(dest)?;
        let fail = |e: std::io::Error| FormatError::new(dest, ErrorKind::Write(e));
        let input_len = stored
            .raw
            .metadata()
            .map_err(|e| self.read_error(0, e.to_string()))?
            .len();
        let copied = copy_file(&stored.raw, file.file(), input_len).map_err(fail)?;
        if copied != input_len {
            return Err(self.read_error(0, format!("copied {copied} of {input_len} bytes")));
        }
        let out = file.file();
        let mut text = [0; 20];
        out.read_exact_at(&mut text, 0).map_err(fail)?;
        if &text == b"MATLAB 7.3 MAT-file," {
            out.write_all_at(&super::write::header_text(), 0)
                .map_err(fail)?;
        }
        let chunks: Vec<Vec<u8>> = replace
            .par_iter()
            .map(|&k| self.replaced_chunk(k, *len, filters, rows))
            .collect::<Result<_, _>>()?;
        let mut end = input_len;
        let mut replaced = Vec::with_capacity(replace.len());
        for (&k, bytes) in replace.iter().zip(&chunks) {
            let record = index.chunks[k as usize].expect("a plan has every record");
            out.write_all_at(bytes, end).map_err(fail)?;
            let size = u32::try_from(bytes.len())
                .map_err(std::io::Error::other)
                .map_err(fail)?;
            let mut key = size.to_le_bytes().to_vec();
            key.extend_from_slice(&0u32.to_le_bytes());
            out.write_all_at(&key, record.key_at).map_err(fail)?;
            for &(at, old_size, old_mask) in index.copies.get(&k).into_iter().flatten() {
                if (old_size, old_mask) == (record.size, record.mask) {
                    out.write_all_at(&key, at).map_err(fail)?;
                }
            }
            out.write_all_at(&(end - index.base).to_le_bytes(), record.address_at)
                .map_err(fail)?;
            replaced.push((k, end, bytes.len() as u64));
            end += bytes.len() as u64;
        }
        // The end-of-file address as the input wrote it: the HDF5 library stores the
        // file's length, the base included, though the specification counts addresses
        // from the base.
        let eof = end - (input_len - index.eof);
        out.write_all_at(&eof.to_le_bytes(), index.eof_at)
            .map_err(fail)?;
        Ok(Some(Patched { file, replaced }))
    }

    /// The index and the chunks to replace, if this file can be patched into an answer
    /// laid out `layout`.
    fn patch_plan(&self, layout: MatLayout, given: &Bitmap) -> Option<(ChunkIndex, Vec<u64>)> {
        let stored = self.stored.as_ref()?;
        let StoredLayout::Chunked {
            len,
            elements,
            chunks,
            filters,
            ..
        } = &stored.layout
        else {
            return None;
        };
        let plain = filters
            .iter()
            .all(|f| [DEFLATE, SHUFFLE, FLETCHER32].contains(f))
            && [DEFLATE, SHUFFLE, FLETCHER32]
                .iter()
                .all(|g| filters.iter().filter(|&f| f == g).count() <= 1);
        if layout != self.layout
            || self.base != IndexBase::One
            || stored.big_endian
            || elements != len
            || !plain
        {
            return None;
        }
        let mut replace: Vec<u64> = Vec::new();
        given.for_each_clear(1, self.n + 1, |row| {
            let k = (row - 1) / len;
            if replace.last() != Some(&k) {
                replace.push(k);
            }
            true
        });
        if replace.len() as u64 > (chunks.len() as u64).div_ceil(MAX_SHARE) {
            return None;
        }
        let axis = usize::from(self.layout.column);
        let index = hdf5_v1::locate(&stored.raw, &self.dataset, axis, *len, chunks.len()).ok()?;
        // The file must end where its superblock says (counted from the file's start, or
        // from the base): the end moves with the chunks appended.
        let len = stored.raw.metadata().ok()?.len();
        if index.eof != len && index.eof.checked_add(index.base) != Some(len) {
            return None;
        }
        // The records found by hand must be the ones the library read.
        let agree = index.chunks.iter().zip(chunks).all(|(found, read)| {
            matches!((found, read), (Some(f), Some((address, size, mask)))
                if f.address == *address && f.size as u64 == *size && f.mask == *mask && *mask == 0)
        });
        agree.then_some((index, replace))
    }

    /// Chunk `k` with the rows of `rows` in it, through `filters`. A chunk that runs past
    /// the vector's end (the last) keeps the elements there as they were.
    fn replaced_chunk(
        &self,
        k: u64,
        len: u64,
        filters: &[u16],
        rows: &[u8],
    ) -> Result<Vec<u8>, FormatError> {
        let stored = self.stored.as_ref().expect("stored chunks");
        let size = stored.size;
        let first = k * len;
        let count = len.min(self.n - first) as usize;
        let values =
            crate::format::le::to_rows(&rows[4 * first as usize..4 * (first as usize + count)]);
        let mut data = Vec::with_capacity(len as usize * size);
        self.layout.class.extend_le(&mut data, &values);
        if count < len as usize {
            let mut old = vec![0; len as usize * size];
            WORK.with(|w| stored.chunk_into(k, &mut old, &mut w.borrow_mut()))
                .map_err(|e| self.read_error(first, e))?;
            data.extend_from_slice(&old[data.len()..]);
        }
        for &f in filters {
            data = match f {
                SHUFFLE => shuffle(&data, size),
                // The checksum of the bytes so far, appended little-endian.
                FLETCHER32 => {
                    let sum = fletcher32(&data);
                    data.extend_from_slice(&sum.to_le_bytes());
                    data
                }
                _ => {
                    let mut deflater = libdeflater::Compressor::new(
                        libdeflater::CompressionLvl::new(LEVEL).expect("a valid level"),
                    );
                    let mut out = vec![0; deflater.zlib_compress_bound(data.len())];
                    let got = deflater
                        .zlib_compress(&data, &mut out)
                        .expect("the bound holds the stream");
                    out.truncate(got);
                    out
                }
            };
        }
        Ok(data)
    }

    /// Checks that `patched`, written from this file and `rows` (a verified solution whose
    /// given rows are this file's), holds exactly `rows`: the same variable, every chunk
    /// not replaced the same record and the same bytes as this file's, every replaced
    /// chunk where it was written and decoding to the solution's rows.
    pub(crate) fn check_patched(&self, patched: &Patched, rows: &[u8]) -> Result<(), String> {
        let path = patched.file.temp_path();
        let written =
            Mat73File::open(path, Some(&self.var), self.base).map_err(|e| e.to_string())?;
        let (Some(mine), Some(theirs)) = (&self.stored, &written.stored) else {
            return Err("the written variable is not stored in chunks".into());
        };
        let (
            StoredLayout::Chunked { chunks: before, .. },
            StoredLayout::Chunked {
                chunks: after, len, ..
            },
        ) = (&mine.layout, &theirs.layout)
        else {
            return Err("the written variable is not stored in chunks".into());
        };
        if written.n != self.n || written.layout != self.layout || before.len() != after.len() {
            return Err("the written variable is not the input's".into());
        }
        let mut expected = before.clone();
        for &(k, at, size) in &patched.replaced {
            expected[k as usize] = Some((at, size, 0));
        }
        if let Some(k) = (0..after.len()).find(|&k| after[k] != expected[k]) {
            return Err(format!("chunk {k}'s record is not the one written"));
        }
        // Copied chunks are compared with the bytes their rows were read from (the
        // input may have changed since: then they differ).
        let StoredLayout::Chunked { digests, .. } = &mine.layout else {
            unreachable!("chunked above")
        };
        // SAFETY: the written file is this run's own, no longer changed.
        let b = unsafe { memmap2::Mmap::map(&theirs.raw) }.map_err(|e| e.to_string())?;
        let replaced: std::collections::HashSet<u64> =
            patched.replaced.iter().map(|r| r.0).collect();
        let differs = (0..before.len()).into_par_iter().find_any(|&k| {
            !replaced.contains(&(k as u64))
                && !after[k].is_some_and(|(at, size, _)| {
                    let bytes = b.get(at as usize..(at + size) as usize);
                    let read = digests[k].get();
                    bytes.is_some_and(|x| Some(&twox_hash::XxHash3_64::oneshot(x)) == read)
                })
        });
        if let Some(k) = differs {
            return Err(format!(
                "chunk {k} copied from the input differs from the bytes its rows were read from"
            ));
        }
        let mut got = Vec::new();
        for &(k, _, _) in &patched.replaced {
            let first = k * len;
            let count = (*len).min(self.n - first);
            got.clear();
            written
                .rows_le(first, count, &mut got)
                .map_err(|e| e.to_string())?;
            if got[..] != rows[4 * first as usize..4 * (first + count) as usize] {
                return Err(format!(
                    "replaced chunk {k} does not hold the solution's rows"
                ));
            }
        }
        Ok(())
    }
}

/// HDF5's shuffle filter: the elements' bytes regrouped by position (all first bytes,
/// then all second bytes, ...).
fn shuffle(data: &[u8], size: usize) -> Vec<u8> {
    let per = data.len() / size;
    let mut out = vec![0; data.len()];
    for (j, element) in data.chunks_exact(size).enumerate() {
        for (b, &x) in element.iter().enumerate() {
            out[b * per + j] = x;
        }
    }
    out
}

/// Copies the first `len` bytes of `from` into the empty `to`, in the kernel where it can
/// (`copy_file_range`), whatever either file's position; returns the bytes copied.
fn copy_file(from: &std::fs::File, to: &mut std::fs::File, len: u64) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut from = from.try_clone()?;
    from.seek(SeekFrom::Start(0))?;
    to.seek(SeekFrom::Start(0))?;
    std::io::copy(&mut (&mut from).take(len), to)
}

#[cfg(test)]
mod tests {
    use super::super::tests::fixture;
    use super::*;
    use crate::format::MatClass;

    fn numbers(name: &str) -> Vec<u32> {
        std::fs::read_to_string(fixture(name))
            .unwrap()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }

    /// The fixture `name` (its rows read, as the completion engine reads them), its
    /// solution as little-endian bytes, and its given rows.
    fn case(name: &str) -> (Mat73File, Vec<u8>, Bitmap) {
        open_read(&fixture(&format!("{name}.mat")), name)
    }

    fn open_read(path: &Path, name: &str) -> (Mat73File, Vec<u8>, Bitmap) {
        let mat = Mat73File::open(path, None, IndexBase::One).unwrap();
        let mut read = Vec::new();
        mat.rows_le(0, mat.n(), &mut read).unwrap();
        let rows: Vec<u8> = numbers(&format!("{name}.solution.txt"))
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .collect();
        let mut given = Bitmap::new(mat.n() + 1);
        for (i, &r) in numbers(&format!("{name}.expected.txt")).iter().enumerate() {
            if r != 0 {
                given.set(i as u64 + 1);
            }
        }
        (mat, rows, given)
    }

    fn flip(path: &Path, at: u64) {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap();
        let mut b = [0u8];
        file.read_exact_at(&mut b, at).unwrap();
        file.write_all_at(&[b[0] ^ 0x5a], at).unwrap();
    }

    #[test]
    fn a_patched_answer_is_checked_chunk_by_chunk() {
        for name in ["h5py-v73-patchable", "h5py-v73-patchable-col"] {
            let (mat, rows, given) = case(name);
            let dir = tempfile::tempdir().unwrap();
            let dest = dir.path().join("out.mat");
            let layout = mat.source().layout;
            let patched = mat
                .write_patched(&dest, layout, &rows, &given)
                .unwrap()
                .expect("the fixture can be patched");
            // Rows 1, 18, 501, 1002, 2000 and 2002 were cleared: six chunks of 16.
            assert_eq!(patched.replaced(), 6, "{name}");
            mat.check_patched(&patched, &rows).unwrap();
            let written = Mat73File::open(patched.file.temp_path(), None, IndexBase::One).unwrap();
            let mut got = Vec::new();
            written.rows_le(0, written.n(), &mut got).unwrap();
            assert_eq!(got, rows, "{name}");
            // A byte changed in a replaced chunk, then in a copied one, is found.
            let (_, at, _) = patched.replaced[2];
            flip(patched.file.temp_path(), at + 5);
            assert!(mat.check_patched(&patched, &rows).is_err(), "{name}");
            flip(patched.file.temp_path(), at + 5);
            mat.check_patched(&patched, &rows).unwrap();
            let StoredLayout::Chunked { chunks, .. } = &mat.stored.as_ref().unwrap().layout else {
                unreachable!()
            };
            let (copied, _, _) = chunks[3].unwrap();
            flip(patched.file.temp_path(), copied + 3);
            assert!(mat.check_patched(&patched, &rows).is_err(), "{name}");
        }
    }

    /// hdf5storage's v7.3 (Fletcher-32 after shuffle and deflate): the replaced chunk
    /// carries its own checksum, which the reader checks when the answer is read back.
    #[test]
    fn a_fletcher32_chunk_is_replaced_with_its_checksum() {
        let (mat, rows, given) = case("hdf5storage-v73-fletcher");
        let StoredLayout::Chunked { filters, .. } = &mat.stored.as_ref().unwrap().layout else {
            unreachable!()
        };
        assert_eq!(filters, &[SHUFFLE, DEFLATE, FLETCHER32]);
        let dir = tempfile::tempdir().unwrap();
        let layout = mat.source().layout;
        let patched = mat
            .write_patched(&dir.path().join("out.mat"), layout, &rows, &given)
            .unwrap()
            .expect("the fixture can be patched");
        assert_eq!(patched.replaced(), 1);
        mat.check_patched(&patched, &rows).unwrap();
        let (_, at, size) = patched.replaced[0];
        let mut chunk = vec![0; size as usize];
        std::fs::File::open(patched.file.temp_path())
            .unwrap()
            .read_exact_at(&mut chunk, at)
            .unwrap();
        let (body, sum) = chunk.split_at(chunk.len() - 4);
        assert_eq!(sum, fletcher32(body).to_le_bytes());
        // A changed checksum byte is found on reading back.
        flip(patched.file.temp_path(), at + size - 1);
        let why = mat.check_patched(&patched, &rows).unwrap_err();
        assert!(why.contains("Fletcher-32 checksum mismatch"), "{why}");
    }

    #[test]
    fn an_input_changed_after_it_was_read_is_not_copied_unnoticed() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.mat");
        std::fs::copy(fixture("h5py-v73-patchable.mat"), &input).unwrap();
        let (mat, rows, given) = open_read(&input, "h5py-v73-patchable");
        let StoredLayout::Chunked { chunks, .. } = &mat.stored.as_ref().unwrap().layout else {
            unreachable!()
        };
        let (at, _, _) = chunks[3].unwrap();
        flip(&input, at + 3);
        let layout = mat.source().layout;
        let patched = mat
            .write_patched(&dir.path().join("out.mat"), layout, &rows, &given)
            .unwrap()
            .unwrap();
        let why = mat.check_patched(&patched, &rows).unwrap_err();
        assert!(
            why.contains("chunk 3 copied from the input differs"),
            "{why}"
        );
    }

    #[test]
    fn a_patch_is_declined_where_it_cannot_be_the_answer() {
        let (mat, rows, given) = case("h5py-v73-patchable");
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.mat");
        let mut other = mat.source().layout;
        other.class = MatClass::UInt32;
        assert!(
            mat.write_patched(&dest, other, &rows, &given)
                .unwrap()
                .is_none()
        );
        // Every row free: every chunk would be deflated anew.
        let none = Bitmap::new(mat.n() + 1);
        let layout = mat.source().layout;
        assert!(
            mat.write_patched(&dest, layout, &rows, &none)
                .unwrap()
                .is_none()
        );
        // Contiguous storage; every chunk to replace (Fletcher-32 checksums or not).
        for name in ["h5py-v73-uint32-row.mat", "h5py-v73-int16-col-fletcher.mat"] {
            let mat = Mat73File::open(&fixture(name), None, IndexBase::One).unwrap();
            let rows = vec![0u8; 4 * mat.n() as usize];
            let given = Bitmap::new(mat.n() + 1);
            let layout = mat.source().layout;
            assert!(mat.patch_plan(layout, &given).is_none(), "{name}");
            assert!(
                mat.write_patched(&dest, layout, &rows, &given)
                    .unwrap()
                    .is_none()
            );
        }
        assert!(!dest.exists());
    }
}
