//! Where a v7.3 vector's elements lie in the file (contiguous, or chunks located through
//! the crate or `hdf5_latest`), and the undoing of a chunk's filters: deflate, shuffle,
//! Fletcher-32.

use crate::format::clip;
use crate::format::matlab::hdf5_latest;
use std::cell::RefCell;
use std::path::Path;

/// The bytes of a vector's elements, located once at open.
pub(super) struct Stored {
    pub(super) raw: std::fs::File,
    /// Bytes per element.
    pub(super) size: usize,
    pub(super) big_endian: bool,
    pub(super) layout: StoredLayout,
}

pub(super) enum StoredLayout {
    /// One run of bytes at this file offset.
    Contiguous(u64),
    /// Chunks of `len` elements along the vector (`elements` in all, the vector's first):
    /// per chunk number, (file offset, stored size, filter mask).
    Chunked {
        len: u64,
        elements: u64,
        chunks: Vec<Option<(u64, u64, u32)>>,
        filters: Vec<u16>,
        /// The chunk decoded last, for windows that end inside one: consecutive windows
        /// usually share it.
        last: std::sync::Mutex<Option<(u64, std::sync::Arc<Vec<u8>>)>>,
        /// Per chunk, a digest (XXH3) of its stored bytes as first read: an answer that
        /// copies a chunk must copy the bytes the rows were read from, even if the file
        /// changed since (`patch`).
        digests: Vec<std::sync::OnceLock<u64>>,
    },
}

/// HDF5 filter numbers the chunks may use.
pub(super) const DEFLATE: u16 = 1;
pub(super) const SHUFFLE: u16 = 2;
pub(super) const FLETCHER32: u16 = 3;

/// Per thread: an inflater (its 32 KiB window allocated once) and buffers for a chunk's
/// stored bytes and a window's elements.
#[derive(Default)]
pub(super) struct Work {
    pub(super) inflater: Option<libdeflater::Decompressor>,
    pub(super) stored: Vec<u8>,
    pub(super) elements: Vec<u8>,
}

thread_local! {
    pub(super) static WORK: RefCell<Work> = RefCell::default();
}

impl Stored {
    /// Locates the elements of `ds` (`n` of them along dimension `axis`, stored as
    /// `storage` says), or `None` when the crate must read them: compact data, or row
    /// vectors whose chunks are wider than the vector or whose filters are not read here.
    pub(super) fn locate(
        path: &Path,
        ds: &hdf5_pure::Dataset,
        n: u64,
        axis: usize,
        storage: Storage,
    ) -> Result<Option<Stored>, String> {
        let e = |e: hdf5_pure::Error| e.to_string();
        let (size, big_endian) = match ds.datatype().map_err(e)? {
            hdf5_pure::Datatype::FixedPoint {
                size, byte_order, ..
            }
            | hdf5_pure::Datatype::FloatingPoint {
                size, byte_order, ..
            } => (
                size as usize,
                byte_order == hdf5_pure::DatatypeByteOrder::BigEndian,
            ),
            other => {
                return Err(format!(
                    "unexpected element type {}",
                    clip(&format!("{other:?}"))
                ));
            }
        };
        let layout = match storage {
            Storage::Compact(_) => return Ok(None),
            Storage::Contiguous {
                address: Some(a), ..
            } => StoredLayout::Contiguous(a),
            Storage::Contiguous { address: None, .. } => {
                return Err("no data stored".into());
            }
            Storage::Chunked {
                shape,
                chunks: stored,
                by_hand,
            } => {
                // The crate reads what is not read here, except the layouts it cannot.
                let by_crate = |why: String| match &by_hand {
                    None => Ok(None),
                    Some(what) => Err(format!("{why} in a {what}: not read")),
                };
                let len = shape
                    .get(axis)
                    .copied()
                    .filter(|&l| l > 0)
                    .ok_or("bad chunk shape")?;
                // A chunk's elements along the vector are its first `len` only when the
                // chunk spans no more than the vector across it (row-major chunks); a
                // single element is first in its chunk whatever the chunk's shape.
                if axis == 0 && n > 1 && shape.get(1).is_some_and(|&w| w != 1) {
                    return by_crate("chunks wider than the vector".into());
                }
                let elements = product(&shape).ok_or("bad chunk shape")?;
                let mut chunks = vec![None; n.div_ceil(len) as usize];
                for c in stored {
                    if c.first % len != 0 || c.first >= n {
                        return Err(format!(
                            "chunk at element {} is off the chunk grid",
                            c.first.saturating_add(1)
                        ));
                    }
                    chunks[(c.first / len) as usize] = Some((c.address, c.size, c.mask));
                }
                let filters = ds.filters();
                if let Some(f) = filters
                    .iter()
                    .find(|f| ![DEFLATE, SHUFFLE, FLETCHER32].contains(f))
                {
                    // Row vectors: the crate may know it.
                    if axis == 0 {
                        return by_crate(format!("HDF5 filter {f}"));
                    }
                    return Err(format!(
                        "HDF5 filter {f} is not supported for column vectors"
                    ));
                }
                StoredLayout::Chunked {
                    len,
                    elements,
                    chunks,
                    filters,
                    last: Default::default(),
                    digests: (0..n.div_ceil(len)).map(|_| Default::default()).collect(),
                }
            }
        };
        let raw = std::fs::File::open(path).map_err(|e| e.to_string())?;
        Ok(Some(Stored {
            raw,
            size,
            big_endian,
            layout,
        }))
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        use std::os::unix::fs::FileExt;
        self.raw
            .read_exact_at(buf, offset)
            .map_err(|e| format!("{} bytes at offset {offset}: {e}", buf.len()))
    }

    /// Fills `dst` with the bytes of elements `first ..` (as many as fit), as stored.
    pub(super) fn bytes(&self, first: u64, dst: &mut [u8], work: &mut Work) -> Result<(), String> {
        let size = self.size as u64;
        let count = (dst.len() / self.size) as u64;
        match &self.layout {
            StoredLayout::Contiguous(at) => self.read_at(at + first * size, dst),
            StoredLayout::Chunked { len, elements, .. } => {
                let mut i = first;
                let mut at = 0;
                while i < first + count {
                    let k = i / len;
                    let take = (len - i % len).min(first + count - i);
                    let piece = &mut dst[at..at + take as usize * self.size];
                    if i.is_multiple_of(*len) && take == *len && elements == len {
                        // A whole chunk: undone straight into place.
                        self.chunk_into(k, piece, work)?;
                    } else {
                        let chunk = self.cached_chunk(k, work)?;
                        let from = (i % len) as usize * self.size;
                        piece.copy_from_slice(&chunk[from..from + piece.len()]);
                    }
                    at += piece.len();
                    i += take;
                }
                Ok(())
            }
        }
    }

    /// Chunk `k` whole, through the one-chunk cache.
    fn cached_chunk(&self, k: u64, work: &mut Work) -> Result<std::sync::Arc<Vec<u8>>, String> {
        let StoredLayout::Chunked { last, elements, .. } = &self.layout else {
            unreachable!("only chunked storage has chunks")
        };
        if let Some((_, bytes)) = last
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .filter(|(at, _)| *at == k)
        {
            return Ok(bytes.clone());
        }
        let mut data = vec![0; *elements as usize * self.size];
        self.chunk_into(k, &mut data, work)?;
        let data = std::sync::Arc::new(data);
        *last.lock().unwrap_or_else(|p| p.into_inner()) = Some((k, data.clone()));
        Ok(data)
    }

    /// Chunk number `k`, undone through its filters, into `dst` (its size exactly).
    pub(super) fn chunk_into(&self, k: u64, dst: &mut [u8], work: &mut Work) -> Result<(), String> {
        let StoredLayout::Chunked {
            len,
            chunks,
            filters,
            digests,
            ..
        } = &self.layout
        else {
            unreachable!("only chunked storage has chunks")
        };
        let element = k * len + 1;
        let (address, stored, mask) = chunks[k as usize]
            .ok_or_else(|| format!("the chunk holding element {element} is not stored"))?;
        let mut data = std::mem::take(&mut work.stored);
        data.resize(stored as usize, 0);
        let r = self
            .read_at(address, &mut data)
            .and_then(|()| {
                digests[k as usize].get_or_init(|| twox_hash::XxHash3_64::oneshot(&data));
                undo_filters(filters, mask, &mut data, dst, work, self.size)
            })
            .map_err(|e| format!("the chunk holding element {element}{e}"));
        work.stored = data;
        r
    }
}

/// Undoes `filters` (those `mask` does not skip) on a chunk's stored bytes `data`, the
/// last step writing into `dst`, which the result must fill exactly. Errors start with
/// what follows "the chunk holding element K".
fn undo_filters(
    filters: &[u16],
    mask: u32,
    data: &mut Vec<u8>,
    dst: &mut [u8],
    work: &mut Work,
    size: usize,
) -> Result<(), String> {
    let expect = dst.len();
    let active: Vec<u16> = filters
        .iter()
        .enumerate()
        .rev()
        .filter(|&(i, _)| mask >> i & 1 == 0)
        .map(|(_, &f)| f)
        .collect();
    let mut in_dst = false;
    for (step, &f) in active.iter().enumerate() {
        let last = step + 1 == active.len();
        match f {
            DEFLATE => {
                let inflater = work
                    .inflater
                    .get_or_insert_with(libdeflater::Decompressor::new);
                if last {
                    inflate(inflater, data, dst).map_err(|e| format!(": deflate: {e}"))?;
                    in_dst = true;
                } else {
                    let mut to = vec![0; expect];
                    inflate(inflater, data, &mut to).map_err(|e| format!(": deflate: {e}"))?;
                    *data = to;
                }
            }
            SHUFFLE => {
                if data.is_empty() {
                    return Err(": empty before unshuffling".into());
                }
                if !data.len().is_multiple_of(size) {
                    return Err(format!(
                        ": unshuffles {} bytes, not whole elements of {size}",
                        data.len()
                    ));
                }
                if last && data.len() == expect {
                    unshuffle(data, size, dst);
                    in_dst = true;
                } else {
                    let mut to = vec![0; data.len()];
                    unshuffle(data, size, &mut to);
                    *data = to;
                }
            }
            _ => check_fletcher32(data).map_err(|e| format!(": {e}"))?,
        }
    }
    if !in_dst {
        if data.len() != expect {
            return Err(format!(" holds {} bytes, expected {expect}", data.len()));
        }
        dst.copy_from_slice(data);
    }
    Ok(())
}

/// Inflates the zlib stream `data` into `out`, which it must fill exactly; its Adler-32
/// checksum is checked. libdeflate, because a chunk is one whole buffer of known size,
/// which it inflates faster than streaming inflaters (BENCHMARKS.md, "The seed's route").
fn inflate(
    inflater: &mut libdeflater::Decompressor,
    data: &[u8],
    out: &mut [u8],
) -> Result<(), String> {
    use libdeflater::DecompressionError as E;
    match inflater.zlib_decompress(data, out) {
        Ok(got) if got == out.len() => Ok(()),
        Ok(got) => Err(format!("holds {got} bytes, expected {}", out.len())),
        Err(E::InsufficientSpace) => Err(format!(
            "holds more than the {} bytes of a chunk",
            out.len()
        )),
        Err(E::BadData) => Err("corrupt zlib stream or checksum mismatch".into()),
    }
}

/// Undoes HDF5's shuffle filter (byte planes back into elements of `size` bytes) from
/// `data` into `out` (of its length).
fn unshuffle(data: &[u8], size: usize, out: &mut [u8]) {
    let per = data.len() / size;
    for (b, plane) in data.chunks_exact(per).enumerate().take(size) {
        for (j, &x) in plane.iter().enumerate() {
            out[j * size + b] = x;
        }
    }
}

/// Checks and strips a chunk's Fletcher-32 checksum, as every checksum a format carries
/// is checked.
fn check_fletcher32(data: &mut Vec<u8>) -> Result<(), String> {
    if data.len() < 4 {
        return Err("too short for its Fletcher-32 checksum".into());
    }
    let at = data.len() - 4;
    let stored = u32::from_le_bytes(data[at..].try_into().expect("4 bytes"));
    let computed = fletcher32(&data[..at]);
    if stored != computed {
        return Err(format!(
            "Fletcher-32 checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
        ));
    }
    data.truncate(at);
    Ok(())
}

/// Checks, before anything is sized from the dimensions, that the file really stores
/// `n` elements: dimensions within their declared maxima, and storage (contiguous, compact
/// or chunks) large enough and inside the file. HDF5 reads missing storage as the fill
/// value, so without this a few bytes could declare a board of 2^31 empty rows.
pub(super) fn stored_size_covers(
    path: &Path,
    ds: &hdf5_pure::Dataset,
    shape: &[u64],
    n: u64,
    storage: &Storage,
) -> Result<(), String> {
    let e = |e: hdf5_pure::Error| e.to_string();
    if let Some(max) = ds.maxshape().map_err(e)? {
        for (d, (&dim, m)) in shape.iter().zip(&max).enumerate() {
            if let hdf5_pure::MaxExtent::Fixed(m) = *m
                && dim > m
            {
                return Err(format!(
                    "dimension {} is {dim}, beyond its declared maximum {m}",
                    d + 1
                ));
            }
        }
    }
    let elem = ds.element_size().map_err(e)?;
    let need = n.saturating_mul(elem);
    let file_len = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    match storage {
        &Storage::Compact(size) if size >= need => Ok(()),
        &Storage::Contiguous {
            address: Some(a),
            size,
        } if size >= need && a.saturating_add(need) <= file_len => Ok(()),
        Storage::Contiguous { address: None, .. } => {
            Err(format!("{n} elements declared but no data stored"))
        }
        Storage::Chunked { shape, chunks, .. } => {
            let per = product(shape).unwrap_or(u64::MAX);
            let stored = chunks.len() as u64;
            if per == 0 || stored.saturating_mul(per) < n {
                return Err(format!(
                    "{n} elements declared but only {stored} chunks of {per} stored"
                ));
            }
            // A chunk is decoded whole: its size must fit what the data needs.
            if per.saturating_mul(elem) > need.max(MAX_SPARE_CHUNK_BYTES) {
                return Err(format!(
                    "chunks of {per} elements, larger than the {n} elements of the data"
                ));
            }
            if let Some(c) = chunks
                .iter()
                .find(|c| c.address.saturating_add(c.size) > file_len)
            {
                return Err(format!(
                    "a chunk of {} bytes at offset {} runs past the end of the file ({file_len} bytes)",
                    c.size, c.address
                ));
            }
            // A chunk is read whole before it is decoded: its stored size must be one its
            // elements can take, through any filter (deflate adds at most 5 bytes per
            // 64 KiB stored and its framing, Fletcher-32 4 bytes, shuffle none).
            let raw = per.saturating_mul(elem);
            let most = raw.saturating_add(raw / 64).saturating_add(1024);
            if let Some(c) = chunks.iter().find(|c| c.size > most) {
                return Err(format!(
                    "a chunk of {} bytes at offset {}, more than its {per} elements of {elem} bytes can be stored in",
                    c.size, c.address
                ));
            }
            Ok(())
        }
        &Storage::Compact(size) | &Storage::Contiguous { size, .. } => Err(format!(
            "{n} elements of {elem} bytes declared but {size} bytes stored (the file has {file_len})"
        )),
    }
}

/// Where a dataset's elements are: as the crate reports it, or, for the layouts it does
/// not read (a data layout message of version 5, a version 2 B-tree chunk index), as
/// [`hdf5_latest`] finds it in the file.
pub(super) enum Storage {
    /// Inside the object header, this many bytes.
    Compact(u64),
    /// One run of bytes at this absolute offset (`None`: never written), this long.
    Contiguous { address: Option<u64>, size: u64 },
    /// Chunks of `shape`, those stored; `by_hand`: the layout, when found here (the crate
    /// cannot read it either).
    Chunked {
        shape: Vec<u64>,
        chunks: Vec<hdf5_latest::ChunkAt>,
        by_hand: Option<String>,
    },
}

impl Storage {
    /// The storage of `ds`, the dataset at `dataset` (`Q`, `Q/value`) of the file at
    /// `path`, a vector of `dims` (HDF5's order) along dimension `axis`.
    pub(super) fn of(
        path: &Path,
        ds: &hdf5_pure::Dataset,
        dataset: &str,
        dims: &[u64],
        axis: usize,
    ) -> Result<Storage, String> {
        let e = |e: hdf5_pure::Error| e.to_string();
        let by_hand = || -> Result<Storage, String> {
            let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
            Ok(match hdf5_latest::locate(&file, dataset, dims, axis)? {
                hdf5_latest::Storage::Contiguous { address, size } => {
                    Storage::Contiguous { address, size }
                }
                hdf5_latest::Storage::Chunked {
                    shape,
                    chunks,
                    what,
                } => Storage::Chunked {
                    shape,
                    chunks,
                    by_hand: Some(what),
                },
            })
        };
        let layout = match ds.layout() {
            Err(hdf5_pure::Error::Format(hdf5_pure::FormatError::InvalidLayoutVersion(5))) => {
                return by_hand();
            }
            other => other.map_err(e)?,
        };
        Ok(match layout {
            hdf5_pure::Layout::Compact { size } => Storage::Compact(size),
            hdf5_pure::Layout::Contiguous { address, size } => {
                Storage::Contiguous { address, size }
            }
            hdf5_pure::Layout::Chunked {
                index: hdf5_pure::ChunkIndex::BTreeV2,
                ..
            } => return by_hand(),
            hdf5_pure::Layout::Chunked { chunk_shape, .. } => {
                let chunks = ds
                    .chunks()
                    .map_err(e)?
                    .into_iter()
                    .map(|c| hdf5_latest::ChunkAt {
                        first: c.offset.get(axis).copied().unwrap_or(0),
                        address: c.address,
                        size: c.storage_size,
                        mask: c.filter_mask,
                    })
                    .collect();
                Storage::Chunked {
                    shape: chunk_shape,
                    chunks,
                    by_hand: None,
                }
            }
            other => {
                return Err(format!(
                    "storage {} is not supported",
                    clip(&format!("{other:?}"))
                ));
            }
        })
    }
}

/// HDF5's Fletcher-32 (`H5_checksum_fletcher32`): big-endian 16-bit words (an odd last
/// byte the high byte of a word whose low byte is 0), sums folded to 16 bits every 360
/// words and twice at the end. The filter appends it to a chunk little-endian. Checked
/// against h5py's chunks of odd and even lengths around the 720-byte blocks, and of all
/// 0xff bytes (`fletcher32_as_hdf5_computes_it`). hdf5-pure has it, but not public.
pub(super) fn fletcher32(data: &[u8]) -> u32 {
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let fold = |s: u32| (s & 0xffff) + (s >> 16);
    for block in data.chunks(720) {
        for w in block.chunks(2) {
            sum1 += (w[0] as u32) << 8 | w.get(1).copied().unwrap_or(0) as u32;
            sum2 += sum1;
        }
        sum1 = fold(sum1);
        sum2 = fold(sum2);
    }
    (fold(sum2) << 16) | fold(sum1)
}

/// The product of dimensions, `None` on overflow.
pub(super) fn product(dims: &[u64]) -> Option<u64> {
    dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
}

/// The largest chunk accepted beyond the data's own size (h5py sizes chunks of extensible
/// datasets up to about 1 MiB).
const MAX_SPARE_CHUNK_BYTES: u64 = 16 << 20;

#[cfg(test)]
mod tests {
    /// Checksums h5py (HDF5 1.14) stored after uncompressed chunks of `len` bytes: `seq`,
    /// byte i = (7 i + 3) mod 256, and `ff`, every byte 0xff.
    #[test]
    fn fletcher32_as_hdf5_computes_it() {
        let stored = [
            ("seq", 1, 0x03000300),
            ("seq", 2, 0x030a030a),
            ("seq", 3, 0x1714140a),
            ("seq", 5, 0x4a4e3322),
            ("seq", 719, 0xacc6d0fe),
            ("seq", 720, 0xad72d1aa),
            ("seq", 721, 0x321e84ab),
            ("seq", 722, 0x32d88565),
            ("seq", 1439, 0x3c2f247b),
            ("seq", 1441, 0xc46287d7),
            ("seq", 4097, 0xf5deff03),
            ("ff", 1, 0xff00ff00),
            ("ff", 2, 0xffffffff),
            ("ff", 3, 0xff00ff00),
            ("ff", 5, 0xff00ff00),
            ("ff", 719, 0xff00ff00),
            ("ff", 720, 0xffffffff),
            ("ff", 721, 0xff00ff00),
            ("ff", 722, 0xffffffff),
            ("ff", 1439, 0xff00ff00),
            ("ff", 1441, 0xff00ff00),
            ("ff", 4097, 0xff00ff00),
        ];
        for (pattern, len, want) in stored {
            let data: Vec<u8> = (0..len)
                .map(|i: usize| {
                    if pattern == "ff" {
                        0xff
                    } else {
                        (i * 7 + 3) as u8
                    }
                })
                .collect();
            assert_eq!(super::fletcher32(&data), want, "{pattern} {len}");
        }
    }
}
