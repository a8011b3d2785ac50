//! Where the elements of a vector lie in an HDF5 file of the newer format, for the two
//! layouts hdf5-pure 0.47 does not read: a data layout message of version 5 (HDF5 2.0
//! writes it for filtered chunked datasets when the newest format is asked for, h5py's
//! `libver='latest'`), and a version 2 B-tree chunk index (a dataset extensible in more
//! than one dimension, HDF5 1.10 on). The crate reads everything else of such a file (the
//! names, types, shapes, filters and attributes); this finds the dataset's object header
//! and its chunks, and the caller reads and undoes them as it does any chunk.
//!
//! The structures are those of "HDF5 File Format Specification Version 3.0" (2.0 adds
//! layout version 5): the superblock of version 2 or 3 (II.A), version 2 object headers and
//! their continuation blocks (IV.A), link and link info messages (IV.A.2.g, IV.A.2.r),
//! dense link storage (a fractal heap, III.G, named by a version 2 B-tree, III.A.2), the
//! data layout message (IV.A.2.i) and the chunk indices: single chunk, fixed array (VII.A),
//! extensible array (VII.B) and version 2 B-tree (records of type 10 and 11). Version 5 of
//! the layout message differs from version 4 only in the filtered entries of the indices,
//! whose chunk size field is as wide as a length instead of as wide as the chunk's size
//! needs; the width is read here from the entry or record size each index's header
//! declares, so both versions read alike. Only what locating one dataset's chunks needs is
//! read: every read is checked against the file's size, every walk is bounded, and
//! anything else is refused with the structure's name.

use std::fs::File;
use std::os::unix::fs::FileExt;

/// The undefined address.
const UNDEF: u64 = u64::MAX;
/// Bounds on walks, against loops in a damaged file.
const MAX_DEPTH: usize = 64;
const MAX_HEADER_BLOCKS: usize = 1024;

/// Message types.
const LINK_INFO: u8 = 0x02;
const LINK: u8 = 0x06;
const LAYOUT: u8 = 0x08;
const CONTINUATION: u8 = 0x10;
const SYMBOL_TABLE: u8 = 0x11;

/// Where a vector's elements are.
#[derive(Debug)]
pub(crate) enum Storage {
    /// One run of bytes at this absolute file offset (`None`: never written), this long.
    Contiguous { address: Option<u64>, size: u64 },
    /// Chunks of `shape` (one entry per dataset dimension).
    Chunked {
        shape: Vec<u64>,
        chunks: Vec<ChunkAt>,
        /// The layout, for messages ("layout version 5, fixed array index").
        what: String,
    },
}

/// One stored chunk of a vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkAt {
    /// Its first element's offset along the vector.
    pub first: u64,
    /// Absolute file offset of its stored bytes.
    pub address: u64,
    /// Stored bytes.
    pub size: u64,
    /// Filters skipped.
    pub mask: u32,
}

/// Reads checked against the file's size; addresses count from the superblock.
struct Reader<'a> {
    file: &'a File,
    len: u64,
    base: u64,
}

impl Reader<'_> {
    /// `n` bytes at absolute file offset `at`.
    fn raw(&self, at: u64, n: u64) -> Result<Vec<u8>, String> {
        if at.checked_add(n).is_none_or(|end| end > self.len) {
            return Err(format!(
                "{n} bytes at offset {at} are past the end of the file"
            ));
        }
        let mut buf = vec![0; n as usize];
        self.file
            .read_exact_at(&mut buf, at)
            .map_err(|e| format!("{n} bytes at offset {at}: {e}"))?;
        Ok(buf)
    }

    /// The absolute file offset of address `a`.
    fn abs(&self, a: u64) -> Result<u64, String> {
        self.base
            .checked_add(a)
            .filter(|&o| a != UNDEF && o < self.len)
            .ok_or_else(|| format!("address {a} is past the end of the file"))
    }

    /// `n` bytes at address `a`.
    fn at(&self, a: u64, n: u64) -> Result<Vec<u8>, String> {
        self.raw(self.abs(a)?, n)
    }

    /// `n` bytes at address `a`, which must start with `sig`.
    fn block(&self, a: u64, n: u64, sig: &[u8; 4], what: &str) -> Result<Vec<u8>, String> {
        let b = self.at(a, n)?;
        if &b[..4] != sig {
            return Err(format!("{what} expected at address {a}"));
        }
        Ok(b)
    }
}

/// A little-endian unsigned integer of up to 8 bytes.
fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |a, &x| a << 8 | x as u64)
}

/// Reads fields from a structure's bytes in order.
struct Fields<'a> {
    b: &'a [u8],
    p: usize,
}

impl<'a> Fields<'a> {
    fn new(b: &'a [u8], p: usize) -> Self {
        Fields { b, p }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let s = self
            .b
            .get(self.p..self.p.saturating_add(n))
            .ok_or("a structure ends early")?;
        self.p += n;
        Ok(s)
    }

    /// An unsigned integer of `n` bytes (at most 8).
    fn u(&mut self, n: usize) -> Result<u64, String> {
        if n > 8 {
            return Err(format!("a field of {n} bytes"));
        }
        self.take(n).map(le)
    }
}

/// floor(log2(n)), 0 for 0 (HDF5's `H5VM_log2_gen`).
fn log2(n: u64) -> u32 {
    63u32.saturating_sub(n.leading_zeros())
}

/// Bytes that encode numbers up to `n` (HDF5's `H5VM_limit_enc_size`).
fn enc_size(n: u64) -> usize {
    (log2(n) / 8 + 1) as usize
}

/// The storage of the dataset at `path` (`Q`, or `Q/value`) in `file`: a vector of `dims`
/// (HDF5's order) along dimension `axis`.
pub(crate) fn locate(
    file: &File,
    path: &str,
    dims: &[u64],
    axis: usize,
) -> Result<Storage, String> {
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let mut r = Reader { file, len, base: 0 };
    // The superblock: at 0, 512, 1024, ... (MATLAB's is at 512, after its header).
    let mut base = 0u64;
    let sb = loop {
        let b = r.raw(base, 8).map_err(|_| "no HDF5 superblock")?;
        if b == *b"\x89HDF\r\n\x1a\n" {
            break r.raw(base, 48)?;
        }
        base = if base == 0 { 512 } else { base * 2 };
    };
    if !(2..=3).contains(&sb[8]) || sb[9] != 8 || sb[10] != 8 {
        return Err(format!(
            "superblock version {} with {}-byte addresses",
            sb[8], sb[9]
        ));
    }
    r.base = base;
    let mut object = le(&sb[36..44]);
    for name in path.split('/') {
        object = member(&r, object, name)?;
    }
    let layout = header_messages(&r, object)?
        .into_iter()
        .find(|(t, _)| *t == LAYOUT)
        .map(|(_, d)| d)
        .ok_or("no data layout message")?;
    storage(&r, &layout, dims, axis)
}

/// The messages of the version 2 object header at address `a`: (type, data).
fn header_messages(r: &Reader, a: u64) -> Result<Vec<(u8, Vec<u8>)>, String> {
    let head = r.at(a, 6)?;
    if &head[..4] != b"OHDR" || head[4] != 2 {
        return Err(format!("a version 2 object header expected at address {a}"));
    }
    let flags = head[5];
    let mut skip = 6;
    if flags & 0x20 != 0 {
        skip += 16; // times
    }
    if flags & 0x10 != 0 {
        skip += 4; // attribute storage phase change
    }
    let width = 1u64 << (flags & 3);
    let size = le(&r.at(a + skip, width)?);
    let order = flags & 0x04 != 0;
    let mut blocks = vec![(a + skip + width, size)];
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&(start, len)) = blocks.get(i) {
        i += 1;
        if i > MAX_HEADER_BLOCKS {
            return Err("an object header continues too often".into());
        }
        let block = r.at(start, len)?;
        let prefix = if order { 6 } else { 4 };
        let mut p = 0;
        while p + prefix <= block.len() {
            let kind = block[p];
            let size = u16::from_le_bytes([block[p + 1], block[p + 2]]) as usize;
            let data = block
                .get(p + prefix..p + prefix + size)
                .ok_or("an object header message runs past its block")?;
            if kind == CONTINUATION {
                let mut f = Fields::new(data, 0);
                let (at, n) = (f.u(8)?, f.u(8)?);
                if n < 8 || &r.at(at, 4)?[..] != b"OCHK" {
                    return Err(format!("a continuation block expected at address {at}"));
                }
                // The signature before the messages, the checksum after.
                blocks.push((at + 4, n - 8));
            }
            out.push((kind, data.to_vec()));
            p += prefix + size;
        }
    }
    Ok(out)
}

/// A link message: its name and, for a hard link, the object's address (`None` for a
/// soft or external link).
fn link(d: &[u8]) -> Result<(&[u8], Option<u64>), String> {
    let mut f = Fields::new(d, 0);
    let (version, flags) = (f.u(1)?, f.u(1)?);
    if version != 1 {
        return Err(format!("link message version {version}"));
    }
    let kind = if flags & 0x08 != 0 { f.u(1)? } else { 0 };
    if flags & 0x04 != 0 {
        f.u(8)?; // creation order
    }
    if flags & 0x10 != 0 {
        f.u(1)?; // character set
    }
    let n = f.u(1 << (flags & 3))? as usize;
    let name = f.take(n)?;
    Ok((name, if kind == 0 { Some(f.u(8)?) } else { None }))
}

/// The object header address of the member `name` of the group whose object header is at
/// `group`: a link message in its header, or one in its dense storage.
fn member(r: &Reader, group: u64, name: &str) -> Result<u64, String> {
    let messages = header_messages(r, group)?;
    let hard = |found: Option<u64>| {
        found.ok_or_else(|| format!("{name} is a soft or external link, which is not followed"))
    };
    for (_, d) in messages.iter().filter(|(t, _)| *t == LINK) {
        let (n, a) = link(d)?;
        if n == name.as_bytes() {
            return hard(a);
        }
    }
    if let Some((_, info)) = messages.iter().find(|(t, _)| *t == LINK_INFO) {
        let mut f = Fields::new(info, 0);
        let (_version, flags) = (f.u(1)?, f.u(1)?);
        if flags & 1 != 0 {
            f.u(8)?; // maximum creation index
        }
        let (heap, names) = (f.u(8)?, f.u(8)?);
        if heap != UNDEF {
            let heap = Heap::open(r, heap)?;
            let mut found = None;
            bt2_records(r, names, &mut |rec| {
                // A name index record: the name's hash, then the link's heap ID. A link
                // is short: read a few hundred bytes of it, all of it if it is longer.
                let id = rec.get(4..).ok_or("a short record")?;
                let mut object = heap.object(r, id, 512)?;
                if link(&object).is_err() {
                    object = heap.object(r, id, u64::MAX)?;
                }
                let (n, a) = link(&object)?;
                if n == name.as_bytes() {
                    found = Some(a);
                }
                Ok(())
            })?;
            if let Some(a) = found {
                return hard(a);
            }
        }
    }
    if messages.iter().any(|(t, _)| *t == SYMBOL_TABLE) {
        return Err("a group of the original format inside a file of the newer one".into());
    }
    Err(format!("no member {name}"))
}

/// A fractal heap (managed objects only, unfiltered: what holds a group's links).
struct Heap {
    /// Bytes of a heap offset.
    offset_size: usize,
    width: u64,
    start: u64,
    max_direct: u64,
    root: u64,
    /// Rows of the root indirect block; 0: the root is a direct block.
    rows: u64,
}

impl Heap {
    fn open(r: &Reader, a: u64) -> Result<Heap, String> {
        let h = r.block(a, 142, b"FRHP", "a fractal heap header")?;
        let mut f = Fields::new(&h, 7);
        if f.u(2)? != 0 {
            return Err("a filtered fractal heap".into());
        }
        let mut f = Fields::new(&h, 110);
        let width = f.u(2)?;
        let (start, max_direct) = (f.u(8)?, f.u(8)?);
        let bits = f.u(2)?;
        f.u(2)?; // starting rows
        let (root, rows) = (f.u(8)?, f.u(2)?);
        if width == 0
            || !start.is_power_of_two()
            || !max_direct.is_power_of_two()
            || max_direct < start
            || !(1..=64).contains(&bits)
            || rows > 64
        {
            return Err("a fractal heap of impossible dimensions".into());
        }
        Ok(Heap {
            offset_size: bits.div_ceil(8) as usize,
            width,
            start,
            max_direct,
            root,
            rows,
        })
    }

    /// The bytes of the managed object whose heap ID is `id`: the first `window` at most
    /// (to the end of its block).
    fn object(&self, r: &Reader, id: &[u8], window: u64) -> Result<Vec<u8>, String> {
        if id.first().is_none_or(|&b| b & 0xf0 != 0) {
            return Err("a huge or tiny fractal heap object".into());
        }
        let offset = le(id.get(1..1 + self.offset_size).ok_or("a short heap ID")?);
        if self.rows == 0 {
            return self.direct(r, self.root, (0, self.start), offset, window);
        }
        let mut block = self.root;
        let mut rows = self.rows;
        let mut block_offset = 0u64;
        for _ in 0..MAX_DEPTH {
            if &r.at(block, 4)?[..] != b"FHIB" {
                return Err("a fractal heap indirect block expected".into());
            }
            // Rows of direct blocks: every row up to the largest direct block size.
            let direct_rows = (log2(self.max_direct) - log2(self.start) + 2) as u64;
            let head = 4 + 1 + 8 + self.offset_size as u64;
            let mut pos = block_offset;
            let mut next = None;
            'rows: for row in 0..rows {
                let size = self.start << row.saturating_sub(1);
                for col in 0..self.width {
                    if offset < pos.saturating_add(size) {
                        let k = row * self.width + col;
                        let entry = r.at(block.saturating_add(head + 8 * k), 8)?;
                        let child = le(&entry);
                        if child == UNDEF {
                            return Err(format!("heap offset {offset} is in no block"));
                        }
                        if row < direct_rows {
                            return self.direct(r, child, (pos, size), offset, window);
                        }
                        // An indirect block covering `size` bytes.
                        let rows = (log2(size) as u64 + 1)
                            .checked_sub(log2(self.start.saturating_mul(self.width)) as u64)
                            .filter(|&r| (1..=64).contains(&r))
                            .ok_or("a fractal heap indirect block of impossible size")?;
                        next = Some((child, rows, pos));
                        break 'rows;
                    }
                    pos = pos.saturating_add(size);
                }
            }
            let (child, child_rows, at) = next.ok_or("a heap offset past the heap")?;
            (block, rows, block_offset) = (child, child_rows, at);
        }
        Err("a fractal heap too deep".into())
    }

    /// The object at heap offset `offset` of the direct block at `a`, which holds heap
    /// offsets `from .. from + size`: the first `window` bytes from it at most (to the
    /// block's end).
    fn direct(
        &self,
        r: &Reader,
        a: u64,
        (from, size): (u64, u64),
        offset: u64,
        window: u64,
    ) -> Result<Vec<u8>, String> {
        if &r.at(a, 4)?[..] != b"FHDB" {
            return Err("a fractal heap direct block expected".into());
        }
        let within = offset - from;
        if within >= size {
            return Err(format!("heap offset {offset} is past its block"));
        }
        r.at(a.saturating_add(within), window.min(size - within))
    }
}

/// Calls `each` with every record of the version 2 B-tree whose header is at `a`.
fn bt2_records(
    r: &Reader,
    a: u64,
    each: &mut dyn FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let h = r.block(a, 38, b"BTHD", "a version 2 B-tree header")?;
    let mut f = Fields::new(&h, 6);
    let (node_size, record, depth) = (f.u(4)?, f.u(2)? as usize, f.u(2)? as usize);
    f.u(2)?; // split and merge percentages
    let (root, root_records) = (f.u(8)?, f.u(2)?);
    if record == 0 || !(16..=1 << 20).contains(&node_size) || depth > MAX_DEPTH {
        return Err("a version 2 B-tree of impossible dimensions".into());
    }
    // Per depth: the most records a node holds, and the bytes of a child's record count
    // and of its subtree's (HDF5's `H5B2__hdr_init`).
    let leaf_max = (node_size - 10) / record as u64;
    let count_size = enc_size(leaf_max);
    let mut max = vec![leaf_max];
    let mut total_max = vec![leaf_max];
    let mut total_size = vec![0usize];
    for d in 1..=depth {
        let pointer = 8 + count_size + if d > 1 { total_size[d - 1] } else { 0 };
        let m = (node_size - 10).saturating_sub(pointer as u64) / (record + pointer) as u64;
        let total = m
            .saturating_add(1)
            .saturating_mul(total_max[d - 1])
            .saturating_add(m);
        max.push(m);
        total_max.push(total);
        total_size.push(enc_size(total));
    }
    if max.contains(&0) {
        return Err("a version 2 B-tree of impossible dimensions".into());
    }
    // Nodes read, against a tree whose nodes share children.
    let mut budget = r.len / node_size + 1;
    let mut stack = vec![(root, root_records, depth)];
    while let Some((node, records, d)) = stack.pop() {
        if node == UNDEF || records == 0 {
            continue;
        }
        budget = budget
            .checked_sub(1)
            .ok_or("a version 2 B-tree larger than its file")?;
        if records > max[d] {
            return Err(format!("a version 2 B-tree node of {records} records"));
        }
        let (sig, what) = if d == 0 {
            (b"BTLF", "a version 2 B-tree leaf")
        } else {
            (b"BTIN", "a version 2 B-tree internal node")
        };
        let b = r.block(node, node_size, sig, what)?;
        let mut f = Fields::new(&b, 6);
        for _ in 0..records {
            each(f.take(record)?)?;
        }
        if d > 0 {
            for _ in 0..=records {
                let child = f.u(8)?;
                let n = f.u(count_size)?;
                if d > 1 {
                    f.u(total_size[d - 1])?;
                }
                stack.push((child, n, d - 1));
            }
        }
    }
    Ok(())
}

/// Chunk index types of a version 4 or 5 layout message.
const SINGLE: u8 = 1;
const IMPLICIT: u8 = 2;
const FIXED_ARRAY: u8 = 3;
const EXTENSIBLE_ARRAY: u8 = 4;
const BTREE_V2: u8 = 5;

/// The storage a data layout message of version 4 or 5 describes, for a vector of `dims`
/// along `axis`.
fn storage(r: &Reader, d: &[u8], dims: &[u64], axis: usize) -> Result<Storage, String> {
    let mut f = Fields::new(d, 0);
    let (version, class) = (f.u(1)?, f.u(1)?);
    if !(3..=5).contains(&version) {
        return Err(format!("data layout message version {version}"));
    }
    match class {
        1 => {
            let (address, size) = (f.u(8)?, f.u(8)?);
            let address = if address == UNDEF {
                None
            } else {
                Some(r.abs(address)?)
            };
            return Ok(Storage::Contiguous { address, size });
        }
        2 if version >= 4 => {}
        _ => {
            return Err(format!(
                "data layout message version {version} of class {class}"
            ));
        }
    }
    let flags = f.u(1)?;
    let rank = f.u(1)? as usize;
    let width = f.u(1)? as usize;
    if rank != dims.len() + 1 {
        return Err(format!("chunks of {} dimensions", rank.saturating_sub(1)));
    }
    let mut shape = (0..rank)
        .map(|_| f.u(width))
        .collect::<Result<Vec<_>, _>>()?;
    let element = shape.pop().unwrap_or(0);
    let len = shape[axis];
    // What an unfiltered chunk stores.
    let bytes = shape
        .iter()
        .try_fold(element, |a, &c| a.checked_mul(c))
        .filter(|&b| len > 0 && b > 0)
        .ok_or("an impossible chunk shape")?;
    let index = f.u(1)? as u8;
    let name = match index {
        SINGLE => "single chunk",
        IMPLICIT => "implicit",
        FIXED_ARRAY => "fixed array",
        EXTENSIBLE_ARRAY => "extensible array",
        BTREE_V2 => "version 2 B-tree",
        _ => "unknown",
    };
    let what = format!("data layout message version {version}, {name} chunk index");
    let count = dims[axis].div_ceil(len);
    let chunks = match index {
        SINGLE => {
            let (size, mask) = if flags & 0x02 != 0 {
                (f.u(8)?, f.u(4)? as u32)
            } else {
                (bytes, 0)
            };
            let a = f.u(8)?;
            if a == UNDEF {
                vec![]
            } else {
                vec![ChunkAt {
                    first: 0,
                    address: r.abs(a)?,
                    size,
                    mask,
                }]
            }
        }
        FIXED_ARRAY => {
            f.u(1)?; // page bits, repeated in the array's header
            fixed_array(r, f.u(8)?, count, bytes)?
        }
        EXTENSIBLE_ARRAY => {
            f.u(5)?; // the parameters, repeated in the array's header
            extensible_array(r, f.u(8)?, count, bytes)?
        }
        BTREE_V2 => {
            f.u(6)?; // node size and split and merge percentages, repeated in the header
            let a = f.u(8)?;
            let mut chunks = Vec::new();
            if a != UNDEF {
                bt2_chunks(r, a, dims.len(), axis, bytes, &mut chunks)?;
            }
            chunks
        }
        _ => return Err(format!("{what} is not read")),
    };
    // Chunks past the extent (a dataset shrunk) are never read. The indices number the
    // chunks; the caller places them by their first element.
    let chunks: Vec<ChunkAt> = chunks
        .into_iter()
        .filter(|c| c.first < count)
        .map(|c| ChunkAt {
            first: c.first * len,
            ..c
        })
        .collect();
    Ok(Storage::Chunked {
        shape,
        chunks,
        what,
    })
}

/// An index entry: the chunk's address and, for filtered chunks (`filtered`), its stored
/// size (as wide as the entry leaves it) and filter mask; an unfiltered chunk stores
/// `bytes`. `None`: not allocated.
fn entry(
    r: &Reader,
    e: &[u8],
    (filtered, bytes): (bool, u64),
    number: u64,
) -> Result<Option<ChunkAt>, String> {
    let mut f = Fields::new(e, 0);
    let a = f.u(8)?;
    let (size, mask) = if filtered {
        (f.u(e.len().saturating_sub(12))?, f.u(4)? as u32)
    } else {
        (bytes, 0)
    };
    if a == UNDEF {
        return Ok(None);
    }
    Ok(Some(ChunkAt {
        first: number,
        address: r.abs(a)?,
        size,
        mask,
    }))
}

/// The chunks of the fixed array whose header is at `a`, of `count` chunks at most.
fn fixed_array(r: &Reader, a: u64, count: u64, bytes: u64) -> Result<Vec<ChunkAt>, String> {
    let h = r.block(a, 28, b"FAHD", "a fixed array header")?;
    let mut f = Fields::new(&h, 5);
    let filtered = f.u(1)? == 1;
    let size = f.u(1)? as usize;
    let page_bits = f.u(1)?;
    let n = f.u(8)?;
    let kind = (filtered, bytes);
    let block = f.u(8)?;
    if size < if filtered { 13 } else { 8 } || n > count || page_bits > 32 {
        return Err(format!("a fixed array of {n} entries of {size} bytes"));
    }
    let mut out = Vec::new();
    if block == UNDEF {
        return Ok(out);
    }
    // The data block: its prefix, then the entries whole or in pages, each page followed
    // by its checksum and the pages preceded by a bitmap of those written.
    let prefix = 4 + 1 + 1 + 8;
    let page = 1u64 << page_bits;
    if n <= page {
        let b = r.block(
            block,
            prefix + n * size as u64,
            b"FADB",
            "a fixed array data block",
        )?;
        for (k, e) in b[prefix as usize..].chunks_exact(size).enumerate() {
            out.extend(entry(r, e, kind, k as u64)?);
        }
        return Ok(out);
    }
    let pages = n.div_ceil(page);
    let bitmap = r.block(
        block,
        prefix + pages.div_ceil(8),
        b"FADB",
        "a fixed array data block",
    )?;
    let mut at = block + prefix + pages.div_ceil(8) + 4;
    for p in 0..pages {
        let entries = page.min(n - p * page);
        let bytes = entries * size as u64;
        if bitmap[(prefix + p / 8) as usize] & (0x80 >> (p % 8)) != 0 {
            let b = r.at(at, bytes)?;
            for (k, e) in b.chunks_exact(size).enumerate() {
                out.extend(entry(r, e, kind, p * page + k as u64)?);
            }
        }
        at += bytes + 4;
    }
    Ok(out)
}

/// The chunks of the extensible array whose header is at `a`, of `count` chunks at most.
fn extensible_array(r: &Reader, a: u64, count: u64, bytes: u64) -> Result<Vec<ChunkAt>, String> {
    let h = r.block(a, 68, b"EAHD", "an extensible array header")?;
    let mut f = Fields::new(&h, 5);
    let filtered = f.u(1)? == 1;
    let size = f.u(1)? as usize;
    let max_bits = f.u(1)?;
    let index_elements = f.u(1)?;
    let block_min = f.u(1)?;
    let super_min = f.u(1)?;
    let page_bits = f.u(1)?;
    // Super and data blocks made and their sizes, then the largest index set plus one,
    // the elements made and the index block's address.
    let mut f = Fields::new(&h, 44);
    let set = f.u(8)?.min(count);
    f.u(8)?;
    let iblock = f.u(8)?;
    let kind = (filtered, bytes);
    if size < if filtered { 13 } else { 8 }
        || !(1..=64).contains(&max_bits)
        || !block_min.is_power_of_two()
        || !super_min.is_power_of_two()
        || log2(block_min) as u64 > max_bits
        || page_bits > 32
    {
        return Err("an extensible array of impossible dimensions".into());
    }
    let mut out = Vec::new();
    if iblock == UNDEF || set == 0 {
        return Ok(out);
    }
    // The super blocks' sizes (HDF5's `H5EA__hdr_init`): super block u holds 2^(u/2) data
    // blocks of 2^((u+1)/2) * block_min elements.
    let supers = 1 + max_bits - log2(block_min) as u64;
    let in_index = (2 * log2(super_min) as u64).min(supers);
    let index_blocks = 2 * (super_min - 1);
    let offset_size = max_bits.div_ceil(8);
    let head = 4 + 1 + 1 + 8;
    let ib = r.block(
        iblock,
        head + index_elements * size as u64 + 8 * (index_blocks + supers - in_index),
        b"EAIB",
        "an extensible array index block",
    )?;
    let mut f = Fields::new(&ib, head as usize);
    let mut elements = |f: &mut Fields, first: u64, n: u64| -> Result<(), String> {
        for k in 0..n {
            if first + k >= set {
                break;
            }
            out.extend(entry(r, f.take(size)?, kind, first + k)?);
        }
        Ok(())
    };
    elements(&mut f, 0, index_elements)?;
    let mut f = Fields::new(&ib, (head + index_elements * size as u64) as usize);
    let direct: Vec<u64> = (0..index_blocks)
        .map(|_| f.u(8))
        .collect::<Result<_, _>>()?;
    let indirect: Vec<u64> = (in_index..supers)
        .map(|_| f.u(8))
        .collect::<Result<_, _>>()?;
    let mut first = index_elements;
    let mut direct = direct.into_iter();
    for u in 0..supers {
        if first >= set {
            break;
        }
        let blocks = 1u64 << (u / 2);
        let per = (1u64 << u.div_ceil(2)) * block_min;
        if per > 1 << page_bits {
            return Err("an extensible array of paged data blocks is not read".into());
        }
        let addresses: Vec<u64> = if u < in_index {
            (0..blocks)
                .map(|_| direct.next().unwrap_or(UNDEF))
                .collect()
        } else {
            let s = indirect[(u - in_index) as usize];
            if s == UNDEF {
                // A super block never written: none of its chunks are stored.
                first = first.saturating_add(blocks.saturating_mul(per));
                continue;
            } else {
                let b = r.block(
                    s,
                    head + offset_size + 8 * blocks,
                    b"EASB",
                    "an extensible array super block",
                )?;
                let mut f = Fields::new(&b, (head + offset_size) as usize);
                (0..blocks).map(|_| f.u(8)).collect::<Result<_, _>>()?
            }
        };
        for d in addresses {
            if first >= set {
                break;
            }
            if d != UNDEF {
                let at = head + offset_size;
                let b = r.block(
                    d,
                    at + per * size as u64,
                    b"EADB",
                    "an extensible array data block",
                )?;
                elements(&mut Fields::new(&b, at as usize), first, per)?;
            }
            first = first.saturating_add(per);
        }
    }
    Ok(out)
}

/// Appends the chunks of the version 2 B-tree chunk index whose header is at `a`: records
/// of type 10 (the address, then a scaled offset per dimension) or 11 (the address, the
/// stored size, the filter mask, then the offsets).
fn bt2_chunks(
    r: &Reader,
    a: u64,
    rank: usize,
    axis: usize,
    bytes: u64,
    out: &mut Vec<ChunkAt>,
) -> Result<(), String> {
    let kind = r.block(a, 6, b"BTHD", "a version 2 B-tree header")?[5];
    if kind != 10 && kind != 11 {
        return Err(format!("a version 2 B-tree of record type {kind}"));
    }
    bt2_records(r, a, &mut |rec| {
        let mut f = Fields::new(rec, 0);
        let address = f.u(8)?;
        let (size, mask) = if kind == 11 {
            let width = rec.len().saturating_sub(8 + 4 + 8 * rank);
            (f.u(width)?, f.u(4)? as u32)
        } else {
            (bytes, 0)
        };
        let scaled = (0..rank).map(|_| f.u(8)).collect::<Result<Vec<_>, _>>()?;
        if scaled.iter().enumerate().any(|(i, &s)| i != axis && s != 0) {
            return Err("a chunk off the vector".into());
        }
        if address != UNDEF {
            out.push(ChunkAt {
                first: scaled[axis],
                address: r.abs(address)?,
                size,
                mask,
            });
        }
        Ok(())
    })
}
