//! Where the records of a chunked dataset's index lie in an HDF5 file of the original
//! format: superblock 0 or 1, symbol-table groups, version-1 object headers, a version-3
//! layout message and a version-1 B-tree of chunks. That is what MATLAB's `save -v7.3`
//! and h5py's default write. `hdf5-pure` reads these structures but does not say where
//! they are, and an answer written as its input with a few chunks replaced
//! (`mat73::patch`) must rewrite their records in place. Only what that needs is read;
//! every read is checked against the file's size and every walk is bounded, and anything
//! else is refused with a reason (the caller then writes the answer the ordinary way).
//! The structures are specified in "HDF5 File Format Specification Version 3.0",
//! sections II.A (superblock), III.A.1 (B-trees), III.B-D (groups, symbol tables, local
//! heaps) and IV.A (object headers, messages 0x0008, 0x0010, 0x0011).

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;

const SIGNATURE: &[u8; 8] = b"\x89HDF\r\n\x1a\n";
/// Object header message types.
const LAYOUT: u16 = 0x0008;
const CONTINUATION: u16 = 0x0010;
const SYMBOL_TABLE: u16 = 0x0011;
/// Bounds on walks, against loops in a damaged file.
const MAX_DEPTH: u8 = 64;
const MAX_HEADER_BLOCKS: usize = 1024;
const MAX_HEAP: u64 = 1 << 26;
/// Group B-tree nodes read per lookup: a node that lists itself as its children many
/// times over would otherwise be walked a number of times exponential in the depth.
const MAX_GROUP_NODES: usize = 1 << 16;
/// Group B-tree nodes allowed per member of the root, beyond [`MAX_GROUP_NODES`], when
/// the members' own groups are walked too: an Octave variable is a group of one node, and
/// a file of 70,000 of them must not be taken for a tree of shared nodes.
const GROUP_NODES_PER_MEMBER: usize = 4;

/// The index of one chunked dataset.
pub(crate) struct ChunkIndex {
    /// File offset of the superblock; the file's addresses count from it.
    pub base: u64,
    /// File offset of the superblock's end-of-file address.
    pub eof_at: u64,
    /// That address.
    pub eof: u64,
    /// Per chunk number along the vector, its record in a leaf of the B-tree.
    pub chunks: Vec<Option<Record>>,
    /// By chunk number, the other keys that name it, with the size and filter mask each
    /// holds: an internal node's key for a subtree is a copy of its first leaf key, and a
    /// node's last key a copy of the next one's first. HDF5 keeps the copies equal.
    pub copies: HashMap<u64, Vec<(u64, u32, u32)>>,
}

/// A chunk's record in a leaf of the B-tree: its key (stored size, filter mask, offsets)
/// and its address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// File offset of the key (the size, then the filter mask, 4 bytes each).
    pub key_at: u64,
    /// File offset of the chunk's address.
    pub address_at: u64,
    /// The chunk's file offset (absolute, the base added).
    pub address: u64,
    /// Stored bytes.
    pub size: u32,
    /// Filters skipped.
    pub mask: u32,
}

/// Reads checked against the file's size.
struct Reader<'a> {
    file: &'a File,
    len: u64,
}

impl Reader<'_> {
    fn read(&self, at: u64, n: u64) -> Result<Vec<u8>, String> {
        if at.checked_add(n).is_none_or(|end| end > self.len) || n > MAX_HEAP {
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
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes(b[i..i + 2].try_into().expect("2 bytes"))
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

/// The file's structures, read from its superblock.
struct Layout<'a> {
    reader: Reader<'a>,
    base: u64,
    /// Group B-tree nodes read so far, and how many may be.
    group_nodes: std::cell::Cell<usize>,
    max_group_nodes: std::cell::Cell<usize>,
}

impl Layout<'_> {
    /// The absolute file offset of address `a`.
    fn at(&self, a: u64) -> Result<u64, String> {
        self.base
            .checked_add(a)
            .filter(|&o| o < self.reader.len)
            .ok_or_else(|| format!("address {a} is past the end of the file"))
    }

    /// The messages of the version-1 object header at address `a`: (type, data).
    fn messages(&self, a: u64) -> Result<Vec<(u16, Vec<u8>)>, String> {
        let head = self.reader.read(self.at(a)?, 16)?;
        if head[0] != 1 {
            return Err(format!(
                "object header version {} (only 1 is read here)",
                head[0]
            ));
        }
        let mut blocks = vec![(self.at(a)? + 16, u32_at(&head, 8) as u64)];
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(&(start, len)) = blocks.get(i) {
            i += 1;
            if i > MAX_HEADER_BLOCKS {
                return Err("object header continues too often".into());
            }
            let block = self.reader.read(start, len)?;
            let mut p = 0;
            while p + 8 <= block.len() {
                let kind = u16_at(&block, p);
                let size = u16_at(&block, p + 2) as usize;
                let data = block
                    .get(p + 8..p + 8 + size)
                    .ok_or("an object header message runs past its block")?
                    .to_vec();
                if kind == CONTINUATION {
                    if data.len() < 16 {
                        return Err("short continuation message".into());
                    }
                    blocks.push((self.at(u64_at(&data, 0))?, u64_at(&data, 8)));
                }
                out.push((kind, data));
                p += 8 + size;
            }
        }
        Ok(out)
    }

    /// The object header address of `name` in the group whose object header is at `group`.
    fn member(&self, group: u64, name: &str) -> Result<u64, String> {
        let table = self
            .messages(group)?
            .into_iter()
            .find(|(k, d)| *k == SYMBOL_TABLE && d.len() >= 16)
            .map(|(_, d)| d)
            .ok_or("a group without a symbol table (a newer-format group)")?;
        let heap = self.reader.read(self.at(u64_at(&table, 8))?, 32)?;
        if &heap[..4] != b"HEAP" {
            return Err("local heap signature missing".into());
        }
        let names = self
            .reader
            .read(self.at(u64_at(&heap, 24))?, u64_at(&heap, 8))?;
        let mut found = None;
        self.group_node(u64_at(&table, 0), 0, &mut |entry: &[u8]| {
            let at = u64_at(entry, 0) as usize;
            let end = names
                .get(at..)
                .and_then(|s| s.iter().position(|&b| b == 0))
                .map(|e| at + e);
            if end.is_some_and(|e| &names[at..e] == name.as_bytes()) {
                found = Some(u64_at(entry, 8));
            }
        })?;
        found.ok_or_else(|| format!("no member {name}"))
    }

    /// Appends the object header addresses of the members of the group whose object
    /// header is at `group` (nothing for an object that is not such a group).
    fn group_members(&self, group: u64, out: &mut Vec<u64>) -> Result<(), String> {
        let Some(table) = self
            .messages(group)?
            .into_iter()
            .find(|(k, d)| *k == SYMBOL_TABLE && d.len() >= 16)
        else {
            return Ok(());
        };
        self.group_node(u64_at(&table.1, 0), 0, &mut |entry: &[u8]| {
            out.push(u64_at(entry, 8))
        })
    }

    /// Calls `each` with every symbol table entry (40 bytes) under the group B-tree node at
    /// address `a`.
    fn group_node(&self, a: u64, depth: u8, each: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        self.group_nodes.set(self.group_nodes.get() + 1);
        if depth > MAX_DEPTH || self.group_nodes.get() > self.max_group_nodes.get() {
            return Err("group B-tree too deep or too large".into());
        }
        let head = self.reader.read(self.at(a)?, 24)?;
        if &head[..4] != b"TREE" || head[4] != 0 {
            return Err("group B-tree node expected".into());
        }
        let (level, entries) = (head[5], u16_at(&head, 6) as u64);
        let body = self.reader.read(self.at(a)? + 24, entries * 16 + 8)?;
        for i in 0..entries as usize {
            let child = u64_at(&body, 8 + i * 16);
            if level > 0 {
                self.group_node(child, depth + 1, each)?;
                continue;
            }
            let node = self.reader.read(self.at(child)?, 8)?;
            if &node[..4] != b"SNOD" {
                return Err("symbol table node expected".into());
            }
            let count = u16_at(&node, 6) as u64;
            let symbols = self.reader.read(self.at(child)? + 8, count * 40)?;
            symbols.chunks_exact(40).for_each(&mut *each);
        }
        Ok(())
    }
}

/// Checks that the root group's B-tree of a file in HDF5's original format can be walked
/// in bounded work: hdf5-pure walks it path by path, so a tree whose nodes share children
/// (a few kilobytes) would hold it for hours. `Err` names that; every other file, and
/// every other fault, is left to the library to read and report.
pub(crate) fn check_root_group(file: &File) -> Result<(), String> {
    let Ok(size) = file.metadata().map(|m| m.len()) else {
        return Ok(());
    };
    let reader = Reader { file, len: size };
    let Ok((sb, base)) = superblock(&reader) else {
        return Ok(());
    };
    let extra = if sb[8] == 1 { 4 } else { 0 };
    if sb[8] > 1 || sb[13] != 8 || sb[14] != 8 {
        return Ok(());
    }
    let layout = Layout {
        reader,
        base,
        group_nodes: Default::default(),
        max_group_nodes: MAX_GROUP_NODES.into(),
    };
    // The root group's members, and theirs one level down (Octave keeps a variable as a
    // group): every node read counts against one bound.
    let mut members = Vec::new();
    let root = layout.group_members(u64_at(&sb, 56 + extra + 8), &mut members);
    // Linear in the members: a bound on the work, not on the number of variables.
    layout
        .max_group_nodes
        .set(MAX_GROUP_NODES.saturating_add(GROUP_NODES_PER_MEMBER.saturating_mul(members.len())));
    let mut walks = vec![root];
    for m in members {
        walks.push(layout.group_members(m, &mut Vec::new()));
    }
    match walks.into_iter().find_map(Result::err) {
        Some(why) if why.contains("too deep or too large") => Err(format!(
            "a group's B-tree is {}",
            why.trim_start_matches("group B-tree ")
        )),
        _ => Ok(()),
    }
}

/// The superblock's first 100 bytes and its offset: at 0, 512, 1024, 2048, ... (MATLAB's
/// is at 512, after its header).
fn superblock(reader: &Reader) -> Result<(Vec<u8>, u64), String> {
    let mut base = 0;
    loop {
        let b = reader.read(base, 8).map_err(|_| "no HDF5 superblock")?;
        if b == SIGNATURE {
            return Ok((reader.read(base, 100)?, base));
        }
        base = if base == 0 { 512 } else { base * 2 };
    }
}

/// Locates the chunk index of the dataset at `path` (`Q`, or `Q/value`) in `file`: a
/// vector along dimension `axis` of its `rank` + 1 chunk dimensions, cut in chunks of
/// `len` elements, `count` of them.
pub(crate) fn locate(
    file: &File,
    path: &str,
    axis: usize,
    len: u64,
    count: usize,
) -> Result<ChunkIndex, String> {
    let size = file.metadata().map_err(|e| e.to_string())?.len();
    let reader = Reader { file, len: size };
    let (sb, base) = superblock(&reader)?;
    let version = sb[8];
    if version > 1 {
        return Err(format!(
            "superblock version {version} (only 0 and 1 are read here)"
        ));
    }
    if sb[13] != 8 || sb[14] != 8 {
        return Err("addresses or lengths other than 8 bytes".into());
    }
    // Version 1 adds 4 bytes (indexed storage K) before the base address.
    let extra = if version == 1 { 4 } else { 0 };
    if u64_at(&sb, 24 + extra) != base {
        return Err("a base address other than the superblock's own offset".into());
    }
    let layout = Layout {
        reader,
        base,
        group_nodes: Default::default(),
        max_group_nodes: MAX_GROUP_NODES.into(),
    };
    let mut object = u64_at(&sb, 56 + extra + 8);
    for name in path.split('/').filter(|s| !s.is_empty()) {
        object = layout.member(object, name)?;
    }
    let message = layout
        .messages(object)?
        .into_iter()
        .find(|(k, _)| *k == LAYOUT)
        .map(|(_, d)| d)
        .ok_or("no layout message")?;
    if message.len() < 11 || message[0] != 3 || message[1] != 2 {
        return Err("not a chunked layout of version 3".into());
    }
    let dims = message[2] as usize;
    if axis + 1 >= dims {
        return Err("chunk dimensions do not match the dataset".into());
    }
    let mut index = ChunkIndex {
        base,
        eof_at: base + 40 + extra as u64,
        eof: u64_at(&sb, 40 + extra),
        chunks: vec![None; count],
        copies: HashMap::new(),
    };
    let mut nodes = 0;
    walk(
        &layout,
        u64_at(&message, 3),
        dims,
        axis,
        len,
        0,
        &mut nodes,
        &mut index,
    )?;
    Ok(index)
}

/// Reads the chunk B-tree node at address `a` and its subtree into `index`.
#[allow(clippy::too_many_arguments)]
fn walk(
    layout: &Layout,
    a: u64,
    dims: usize,
    axis: usize,
    len: u64,
    depth: u8,
    nodes: &mut usize,
    index: &mut ChunkIndex,
) -> Result<(), String> {
    *nodes += 1;
    if depth > MAX_DEPTH || *nodes > 2 * index.chunks.len() + 64 {
        return Err("chunk B-tree too deep or too large".into());
    }
    let at = layout.at(a)?;
    let head = layout.reader.read(at, 24)?;
    if &head[..4] != b"TREE" || head[4] != 1 {
        return Err("chunk B-tree node expected".into());
    }
    let (level, entries) = (head[5], u16_at(&head, 6) as u64);
    let key = 8 + 8 * dims as u64;
    let body = layout.reader.read(at + 24, entries * (key + 8) + key)?;
    // The chunk a key names, if it names one of the vector's (its other offsets 0).
    let chunk_of = |k: usize| -> Option<u64> {
        let offsets: Vec<u64> = (0..dims).map(|d| u64_at(&body, k + 8 + 8 * d)).collect();
        let along = offsets[axis];
        (along.is_multiple_of(len)
            && offsets
                .iter()
                .enumerate()
                .all(|(d, &o)| d == axis || o == 0))
        .then_some(along / len)
    };
    let copy = |index: &mut ChunkIndex, chunk: Option<u64>, k: usize| {
        if let Some(c) = chunk {
            index.copies.entry(c).or_default().push((
                at + 24 + k as u64,
                u32_at(&body, k),
                u32_at(&body, k + 4),
            ));
        }
    };
    for i in 0..entries as usize {
        let k = i * (key as usize + 8);
        let child = u64_at(&body, k + key as usize);
        let chunk = chunk_of(k);
        if level == 0 {
            let c = chunk
                .filter(|&c| c < index.chunks.len() as u64)
                .ok_or("a chunk off the vector's chunk grid")?;
            let slot = &mut index.chunks[c as usize];
            if slot.is_some() {
                return Err(format!("chunk {c} is indexed twice"));
            }
            *slot = Some(Record {
                key_at: at + 24 + k as u64,
                address_at: at + 24 + (k as u64 + key),
                address: layout.at(child)?,
                size: u32_at(&body, k),
                mask: u32_at(&body, k + 4),
            });
        } else {
            copy(index, chunk, k);
            walk(layout, child, dims, axis, len, depth + 1, nodes, index)?;
        }
    }
    copy(
        index,
        chunk_of(entries as usize * (key as usize + 8)),
        entries as usize * (key as usize + 8),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::matlab::mat73::tests::fixture;
    use proptest::prelude::*;

    #[test]
    fn the_records_are_the_ones_the_library_reads() {
        for (name, axis) in [
            ("h5py-v73-patchable.mat", 0),
            ("h5py-v73-patchable-col.mat", 1),
        ] {
            let path = fixture(name);
            let library = hdf5_pure::File::open(&path).unwrap();
            let chunks = library.dataset("Q").unwrap().chunks().unwrap();
            let file = File::open(&path).unwrap();
            let index = locate(&file, "Q", axis, 16, 126).unwrap();
            assert_eq!(index.base, 512);
            assert_eq!(index.eof, file.metadata().unwrap().len());
            for c in &chunks {
                let r = index.chunks[(c.offset[axis] / 16) as usize].unwrap();
                assert_eq!(
                    (r.address, r.size as u64, r.mask),
                    (c.address, c.storage_size, c.filter_mask)
                );
            }
            assert_eq!(index.chunks.iter().flatten().count(), chunks.len());
            // Another variable's name, or none.
            assert!(locate(&file, "nothing", axis, 16, 126).is_err());
        }
        // A file that is no HDF5 file.
        let nqb = fixture("../grigoryan-n100-k47.txt");
        assert!(locate(&File::open(nqb).unwrap(), "Q", 0, 16, 7).is_err());
    }

    /// A group B-tree whose nodes each list the next twice (30 levels: 2^30 paths to the
    /// one leaf) is refused after a bounded number of nodes, not walked path by path.
    #[test]
    fn a_group_tree_with_shared_children_is_refused() {
        let mut bytes = std::fs::read(fixture("h5py-v73-patchable.mat")).unwrap();
        let node = {
            let file = File::open(fixture("h5py-v73-patchable.mat")).unwrap();
            let len = file.metadata().unwrap().len();
            let layout = Layout {
                reader: Reader { file: &file, len },
                base: 512,
                group_nodes: Default::default(),
                max_group_nodes: MAX_GROUP_NODES.into(),
            };
            let root = u64_at(&bytes, 512 + 64);
            let table = layout
                .messages(root)
                .unwrap()
                .into_iter()
                .find(|(k, _)| *k == SYMBOL_TABLE)
                .unwrap()
                .1;
            u64_at(&table, 0)
        };
        let at = 512 + node as usize;
        assert_eq!(&bytes[at..at + 6], b"TREE\0\0", "a leaf node");
        // The leaf moves to the end; above it, nodes of two children each.
        let entries = u16::from_le_bytes([bytes[at + 6], bytes[at + 7]]) as usize;
        let leaf = bytes[at..at + 24 + entries * 16 + 8].to_vec();
        let mut below = (bytes.len() - 512) as u64;
        bytes.extend_from_slice(&leaf);
        let inner = |below: u64| {
            let mut n = b"TREE\0\x01".to_vec();
            n.extend_from_slice(&2u16.to_le_bytes());
            n.extend_from_slice(&[0xff; 16]);
            for _ in 0..2 {
                n.extend_from_slice(&0u64.to_le_bytes());
                n.extend_from_slice(&below.to_le_bytes());
            }
            n.extend_from_slice(&0u64.to_le_bytes());
            n
        };
        for _ in 0..29 {
            let n = inner(below);
            below = (bytes.len() - 512) as u64;
            bytes.extend_from_slice(&n);
        }
        let top = inner(below);
        bytes[at..at + top.len()].copy_from_slice(&top);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.mat");
        std::fs::write(&path, &bytes).unwrap();
        let why = locate(&File::open(&path).unwrap(), "Q", 0, 16, 126)
            .err()
            .unwrap();
        assert!(why.contains("too deep or too large"), "{why}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// A damaged file is refused or read, never a panic or a hang.
        #[test]
        fn damaged_files_are_refused_without_a_panic(
            flips in prop::collection::vec((0usize..4096, any::<u8>()), 1..8),
            cut in prop::option::of(0u64..20_000),
        ) {
            let mut bytes = std::fs::read(fixture("h5py-v73-patchable.mat")).unwrap();
            // The structures are in the first few kilobytes.
            for (at, x) in flips {
                bytes[at] ^= x;
            }
            if let Some(cut) = cut {
                bytes.truncate(cut as usize);
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("damaged.mat");
            std::fs::write(&path, &bytes).unwrap();
            let _ = locate(&File::open(&path).unwrap(), "Q", 0, 16, 126);
        }
    }
}
