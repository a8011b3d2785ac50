//! Inputs found by black-box testing (issue 43) that every reader of their kind must bound:
//! logical arrays read as boards, files of many variables read in quadratic time, containers
//! (zstd frames, gzip, MAT v7 zlib) decoded without a bound, and errors that echoed a
//! 200 MB token. The inputs are made here, byte by byte, so that no test needs SciPy,
//! Octave or h5py; hangs are caught by killing the child after a generous time, never by
//! timing it.

use crate::common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Long enough for any of these runs on a slow, shared machine; a quadratic reader of the
/// files below runs for many minutes.
const HANG: Duration = Duration::from_secs(60);

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs the binary, expecting it to end by itself; its exit code and its output.
fn finish(args: &[&str]) -> Bounded {
    let r = run_bounded(args, &[], HANG);
    assert!(!r.killed, "{args:?} still ran after {HANG:?}");
    r
}

/// Expects exit 2 and one short line naming `file` and holding `needle`.
fn refused(args: &[&str], file: &Path, needle: &str) {
    let r = finish(args);
    assert_eq!(r.code, Some(2), "{args:?}: {}{}", r.stdout, r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
    assert!(
        r.stderr.len() < 400,
        "{args:?}: a long message: {}",
        r.stderr
    );
    assert!(
        r.stderr.contains(s(file)) && r.stderr.contains(needle),
        "{args:?}: {}",
        r.stderr
    );
}

/// Expects exit 0 and `needle` in standard output.
fn read_as(args: &[&str], needle: &str) {
    let r = finish(args);
    assert_eq!(r.code, Some(0), "{args:?}: {}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains(needle), "{args:?}: {}", r.stdout);
}

// ---------------------------------------------------------------------------------------
// MAT v5/v7 files, written by hand (formats/mat.md).

const MI_INT8: u32 = 1;
const MI_UINT8: u32 = 2;
const MI_INT32: u32 = 5;
const MI_UINT32: u32 = 6;
const MI_DOUBLE: u32 = 9;
const MI_MATRIX: u32 = 14;
const MI_COMPRESSED: u32 = 15;
const DOUBLE: u32 = 6;
const UINT8: u32 = 9;
const UINT32: u32 = 13;
/// mxLOGICAL_FLAG in the array flags.
const LOGICAL: u32 = 0x200;

/// A tagged element, padded to 8 bytes.
fn element(t: u32, data: &[u8]) -> Vec<u8> {
    let mut e = t.to_le_bytes().to_vec();
    e.extend_from_slice(&(data.len() as u32).to_le_bytes());
    e.extend_from_slice(data);
    e.resize(e.len().next_multiple_of(8), 0);
    e
}

/// The headers of a miMATRIX element of `name`, `class | flags`, `rows x columns`, up to
/// and including the tag of its data (of type `data_type`, `data_len` bytes); the
/// matrix's own length counts `data_len` data bytes, padded.
fn matrix_head(
    name: &[u8],
    class: u32,
    rows: i32,
    columns: i32,
    data_type: u32,
    data_len: u32,
) -> Vec<u8> {
    let mut body = element(MI_UINT32, &[class.to_le_bytes(), [0; 4]].concat());
    body.extend(element(
        MI_INT32,
        &[rows.to_le_bytes(), columns.to_le_bytes()].concat(),
    ));
    body.extend(element(MI_INT8, name));
    body.extend_from_slice(&data_type.to_le_bytes());
    body.extend_from_slice(&data_len.to_le_bytes());
    let len = body.len() as u64 + (data_len as u64).next_multiple_of(8);
    let mut m = MI_MATRIX.to_le_bytes().to_vec();
    m.extend_from_slice(&(len as u32).to_le_bytes());
    m.extend(body);
    m
}

/// A whole miMATRIX element holding `data`.
fn matrix(name: &str, class: u32, rows: i32, columns: i32, data_type: u32, data: &[u8]) -> Vec<u8> {
    let mut m = matrix_head(
        name.as_bytes(),
        class,
        rows,
        columns,
        data_type,
        data.len() as u32,
    );
    m.extend_from_slice(data);
    m.resize(m.len().next_multiple_of(8), 0);
    m
}

/// `element` as a miCOMPRESSED element (MATLAB's `-v7`).
fn compressed(element: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(element).unwrap();
    compressed_stream(&z.finish().unwrap())
}

/// A miCOMPRESSED element around the zlib stream `zlib`.
fn compressed_stream(zlib: &[u8]) -> Vec<u8> {
    let mut e = MI_COMPRESSED.to_le_bytes().to_vec();
    e.extend_from_slice(&(zlib.len() as u32).to_le_bytes());
    e.extend_from_slice(zlib);
    e
}

/// A Level 5 file of `elements`.
fn mat5(elements: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut f = format!("{:<116}", "MATLAB 5.0 MAT-file, written by a test").into_bytes();
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&0x100u16.to_le_bytes());
    f.extend_from_slice(b"IM");
    elements.into_iter().for_each(|e| f.extend(e));
    f
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f64s(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The 4-queens solution as a uint32 row `name`.
fn four(name: &str) -> Vec<u8> {
    matrix(name, UINT32, 1, 4, MI_UINT32, &u32s(&[2, 4, 1, 3]))
}

/// MATLAB's `true`, scipy's `np.array(True)`, `[true false true]`: uint8 values with the
/// logical flag, in plain and compressed variables, were read as boards ("VALID SOLUTION
/// (n = 1)"). They are refused, and never chosen when the variable is not named.
#[test]
fn logical_arrays_are_not_boards() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let t = matrix("Q", UINT8 | LOGICAL, 1, 1, MI_UINT8, &[1]);
    let v = matrix("Q", UINT8 | LOGICAL, 1, 3, MI_UINT8, &[1, 0, 1]);
    for (name, bytes) in [
        ("true-v6.mat", mat5([t.clone()])),
        ("true-v7.mat", mat5([compressed(&t)])),
        ("vector-v7.mat", mat5([compressed(&v)])),
    ] {
        let p = write(name, bytes);
        refused(
            &["verify", s(&p)],
            &p,
            "variable Q is a logical array, expected a numeric vector",
        );
    }
    // Among other variables: not chosen, and refused when named.
    let l = matrix("L", UINT8 | LOGICAL, 1, 2, MI_UINT8, &[1, 1]);
    for (name, bytes) in [
        ("mixed-v6.mat", mat5([l.clone(), four("P")])),
        (
            "mixed-v7.mat",
            mat5([compressed(&l), compressed(&four("P"))]),
        ),
    ] {
        let p = write(name, bytes);
        read_as(&["verify", s(&p)], "VALID SOLUTION (n = 4)");
        refused(
            &["verify", s(&p), "--var", "L"],
            &p,
            "variable L is a logical array, expected a numeric vector",
        );
    }
    let only = write(
        "logical-and-matrix.mat",
        mat5([l, matrix("M", DOUBLE, 2, 2, MI_DOUBLE, &f64s(&[1.0; 4]))]),
    );
    refused(
        &["verify", s(&only)],
        &only,
        "no variable could be the board; the file holds: L (logical, 1x2), M (double, 2x2)",
    );
    // Octave's text format: `bool matrix` is not chosen either.
    let octave = write(
        "logical.txt",
        "# name: L\n# type: bool matrix\n# rows: 1\n# columns: 2\n 1 1\n\n\n# name: P\n# type: matrix\n# rows: 1\n# columns: 4\n 2 4 1 3\n"
            .into(),
    );
    read_as(&["verify", s(&octave)], "VALID SOLUTION (n = 4)");
    refused(
        &["verify", s(&octave), "--var", "L"],
        &octave,
        "variable L is of type \"bool matrix\", expected a numeric vector",
    );
}

/// Files of many variables: every reader indexes the names once (a duplicate check over
/// all earlier names made 200,000 MAT v5 variables take 94 s), and messages list a few.
#[test]
fn many_variables_are_read_in_linear_time() {
    const MANY: usize = 200_000;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let names = || (0..MANY).map(|i| format!("v{i}"));
    // MAT v5: scalars, then Q.
    let mut elements: Vec<Vec<u8>> = names()
        .map(|n| matrix(&n, DOUBLE, 1, 1, MI_DOUBLE, &f64s(&[1.0])))
        .collect();
    let without_q = d.join("many-without-q.mat");
    std::fs::write(&without_q, mat5(elements.clone())).unwrap();
    elements.push(four("Q"));
    let v5 = d.join("many.mat");
    std::fs::write(&v5, mat5(elements)).unwrap();
    // MAT v4: a 20-byte header, the name, the doubles.
    let mut v4 = Vec::new();
    for (name, values) in names()
        .map(|n| (n, vec![1.0]))
        .chain([("Q".to_string(), vec![2.0, 4.0, 1.0, 3.0])])
    {
        let head = [0i32, 1, values.len() as i32, 0, name.len() as i32 + 1];
        head.iter()
            .for_each(|w| v4.extend_from_slice(&w.to_le_bytes()));
        v4.extend_from_slice(name.as_bytes());
        v4.push(0);
        v4.extend(f64s(&values));
    }
    let v4_path = d.join("many-v4.mat");
    std::fs::write(&v4_path, v4).unwrap();
    // Octave's text format.
    let mut text = String::from("# Created by Octave 7.3.0\n");
    for n in names() {
        text.push_str(&format!("# name: {n}\n# type: scalar\n1\n\n\n"));
    }
    text.push_str("# name: Q\n# type: matrix\n# rows: 1\n# columns: 4\n 2 4 1 3\n");
    let octave = d.join("many.txt");
    std::fs::write(&octave, text).unwrap();
    // Octave's binary format.
    let mut binary = b"Octave-1-L\0".to_vec();
    let string = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend_from_slice(&(s.len() as i32).to_le_bytes());
        out.extend_from_slice(s);
    };
    for (name, values) in names()
        .map(|n| (n, vec![1.0]))
        .chain([("Q".to_string(), vec![2.0, 4.0, 1.0, 3.0])])
    {
        string(&mut binary, name.as_bytes());
        string(&mut binary, b"");
        binary.extend_from_slice(&[0, 255]);
        string(&mut binary, b"matrix");
        for w in [-2i32, 1, values.len() as i32] {
            binary.extend_from_slice(&w.to_le_bytes());
        }
        binary.push(7);
        binary.extend(f64s(&values));
    }
    let binary_path = d.join("many-binary.mat");
    std::fs::write(&binary_path, binary).unwrap();
    for p in [&v5, &v4_path, &octave, &binary_path] {
        read_as(&["verify", s(p)], "VALID SOLUTION (n = 4)");
    }
    // Without Q: which vector is meant is asked, listing a few names, on one line.
    refused(
        &["verify", s(&without_q)],
        &without_q,
        "v7 (double, 1x1) and 199992 more",
    );
    refused(
        &["verify", s(&v5), "--var", "R"],
        &v5,
        "no variable named R; the file holds: v0 (double, 1x1)",
    );
}

/// A dataset of doubles (name, shape, values), or an empty group (name alone).
type Hdf5Object = (String, Option<(Vec<u64>, Vec<f64>)>);

/// An HDF5 file in the original format (superblock 0, version-1 object headers, groups
/// with symbol tables), as MATLAB's `save -v7.3` and h5py write it, with `objects` at its
/// root (datasets compact). Written here: hdf5-pure writes only the newer format, whose
/// groups its lookups do not enumerate.
fn hdf5_v0(objects_in: &[Hdf5Object]) -> Vec<u8> {
    const UNDEF: u64 = u64::MAX;
    const LEAF_K: usize = 4; // symbols per symbol-table node: 2K
    let mut sorted: Vec<&Hdf5Object> = objects_in.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let nodes = sorted.len().div_ceil(2 * LEAF_K);
    // Children per B-tree node: up to 2K; the root's tree is one node.
    let tree_k = nodes.div_ceil(2).max(16);
    assert!(tree_k < 1 << 15);
    // The local heap's names: "" first, each 8-aligned.
    let mut heap = vec![0u8; 8];
    let mut name_at = Vec::new();
    for (name, ..) in &sorted {
        name_at.push(heap.len() as u64);
        heap.extend_from_slice(name.as_bytes());
        heap.push(0);
        heap.resize(heap.len().next_multiple_of(8), 0);
    }
    let header = |messages: &[(u16, Vec<u8>)]| {
        let mut body = Vec::new();
        for (t, data) in messages {
            let mut data = data.clone();
            data.resize(data.len().next_multiple_of(8), 0);
            body.extend_from_slice(&t.to_le_bytes());
            body.extend_from_slice(&(data.len() as u16).to_le_bytes());
            body.extend_from_slice(&[0; 4]);
            body.extend(data);
        }
        let mut h = vec![1, 0];
        h.extend_from_slice(&(messages.len() as u16).to_le_bytes());
        h.extend_from_slice(&1u32.to_le_bytes());
        h.extend_from_slice(&(body.len() as u32).to_le_bytes());
        h.extend_from_slice(&[0; 4]);
        h.extend(body);
        h
    };
    let u64s = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    // Addresses: superblock, root header, heap, heap data, B-tree, symbol nodes, datasets.
    let root_at = 96u64;
    let root_len = 16 + 8 + 16;
    let heap_at = root_at + root_len;
    let heap_data_at = heap_at + 32;
    let tree_at = heap_data_at + heap.len() as u64;
    let tree_len = 24 + 16 * 2 * tree_k as u64 + 8;
    let snod_len = 8 + 40 * 2 * LEAF_K as u64;
    let snods_at = tree_at + tree_len;
    let mut data_at = snods_at + snod_len * nodes as u64;
    let mut objects = Vec::new();
    let mut object_at = Vec::new();
    for (_, dataset) in &sorted {
        object_at.push(data_at);
        let Some((shape, values)) = dataset else {
            // An empty group: its header, then its heap (holding "") and its B-tree.
            let (heap, tree) = (data_at + 40, data_at + 80);
            let mut g = header(&[(0x11, u64s(&[tree, heap]))]);
            g.extend_from_slice(b"HEAP\0\0\0\0");
            g.extend(u64s(&[8, UNDEF, heap + 32, 0]));
            g.extend_from_slice(b"TREE\0\0\0\0");
            g.extend(u64s(&[UNDEF, UNDEF, 0]));
            assert_eq!(g.len(), 112);
            data_at += g.len() as u64;
            objects.extend(g);
            continue;
        };
        let mut space = vec![1, shape.len() as u8, 0, 0, 0, 0, 0, 0];
        space.extend(u64s(shape));
        let mut float = vec![0x11, 0x20, 63, 0];
        float.extend_from_slice(&8u32.to_le_bytes());
        float.extend_from_slice(&0u16.to_le_bytes());
        float.extend_from_slice(&64u16.to_le_bytes());
        float.extend_from_slice(&[52, 11, 0, 52]);
        float.extend_from_slice(&1023u32.to_le_bytes());
        let raw = f64s(values);
        let mut layout = vec![3, 0];
        layout.extend_from_slice(&(raw.len() as u16).to_le_bytes());
        layout.extend(raw);
        let h = header(&[(1, space), (3, float), (8, layout)]);
        data_at += h.len() as u64;
        objects.extend(h);
    }
    let eof = data_at;
    let mut f = b"\x89HDF\r\n\x1a\n".to_vec();
    f.extend_from_slice(&[0, 0, 0, 0, 0, 8, 8, 0]);
    f.extend_from_slice(&(LEAF_K as u16).to_le_bytes());
    f.extend_from_slice(&(tree_k as u16).to_le_bytes());
    f.extend_from_slice(&0u32.to_le_bytes());
    f.extend(u64s(&[0, UNDEF, eof, UNDEF]));
    // The root's symbol table entry, its B-tree and heap cached in the scratch pad.
    f.extend(u64s(&[0, root_at]));
    f.extend_from_slice(&1u32.to_le_bytes());
    f.extend_from_slice(&0u32.to_le_bytes());
    f.extend(u64s(&[tree_at, heap_at]));
    assert_eq!(f.len() as u64, root_at);
    f.extend(header(&[(0x11, u64s(&[tree_at, heap_at]))]));
    assert_eq!(f.len() as u64, heap_at);
    f.extend_from_slice(b"HEAP\0\0\0\0");
    f.extend(u64s(&[heap.len() as u64, UNDEF, heap_data_at]));
    f.extend(heap);
    assert_eq!(f.len() as u64, tree_at);
    // One leaf node of the group B-tree: key i is the last name left of it.
    f.extend_from_slice(b"TREE\0\0");
    f.extend_from_slice(&(nodes as u16).to_le_bytes());
    f.extend(u64s(&[UNDEF, UNDEF, 0]));
    for k in 0..nodes {
        let last = ((k + 1) * 2 * LEAF_K).min(sorted.len()) - 1;
        f.extend(u64s(&[snods_at + k as u64 * snod_len, name_at[last]]));
    }
    f.resize((tree_at + tree_len) as usize, 0);
    for k in 0..nodes {
        let members = k * 2 * LEAF_K..((k + 1) * 2 * LEAF_K).min(sorted.len());
        f.extend_from_slice(b"SNOD\x01\0");
        f.extend_from_slice(&(members.len() as u16).to_le_bytes());
        for i in members {
            f.extend(u64s(&[name_at[i], object_at[i]]));
            f.extend_from_slice(&[0; 24]);
        }
        f.resize((snods_at + (k as u64 + 1) * snod_len) as usize, 0);
    }
    f.extend(objects);
    assert_eq!(f.len() as u64, eof);
    f
}

/// HDF5 (MAT v7.3, Octave's -hdf5, h5py): hdf5-pure finds a name by enumerating its
/// group, so a lookup per variable took 20 s for 4,000 datasets and more than 5 minutes
/// for 20,000. The root is walked once.
#[test]
fn many_hdf5_datasets_are_read_in_linear_time() {
    const MANY: usize = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let mut datasets: Vec<Hdf5Object> = (0..MANY)
        .map(|i| {
            (
                format!("v{i}"),
                Some((vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])),
            )
        })
        .collect();
    datasets.push(("P".into(), Some((vec![4], vec![2.0, 4.0, 1.0, 3.0]))));
    let path = dir.path().join("many.h5");
    std::fs::write(&path, hdf5_v0(&datasets)).unwrap();
    // No Q: the only vector among 20,001 variables is chosen.
    read_as(&["verify", s(&path)], "VALID SOLUTION (n = 4)");
    refused(&["verify", s(&path), "--var", "R"], &path, "and 19993 more");
}

/// Octave's `save -hdf5` keeps each variable as a group: the bound on the group B-tree
/// nodes walked before the library reads the file (against trees of shared nodes) grows
/// with the root's members, so 70,000 of them are not "a group's B-tree too large".
#[test]
fn many_hdf5_groups_are_not_a_tree_too_large() {
    const MANY: usize = 70_000;
    let dir = tempfile::tempdir().unwrap();
    let mut objects: Vec<Hdf5Object> = (0..MANY).map(|i| (format!("g{i}"), None)).collect();
    objects.push(("P".into(), Some((vec![4], vec![2.0, 4.0, 1.0, 3.0]))));
    let path = dir.path().join("groups.h5");
    std::fs::write(&path, hdf5_v0(&objects)).unwrap();
    read_as(&["verify", s(&path)], "VALID SOLUTION (n = 4)");
}

// ---------------------------------------------------------------------------------------
// Containers.

/// A seekable zstd NQB file of n = 2^26 rows in one frame (256 MiB, spec-legal; a few KB
/// stored): the frame was decoded whole by every thread (1.7 GB each for 2^28 rows). It is
/// decoded in pieces, each continuing where the last ended; the queens placed in every
/// piece are all found, which the payload checksum and k confirm.
#[test]
fn a_large_zstd_frame_is_decoded_in_pieces() {
    use nqueens::format::nqb::PayloadHasher;
    let n: u64 = 1 << 26;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one-frame.nqbz");
    // Row j * 2^20 + 5 holds column j + 1: 64 queens, one per piece, none attacking.
    let queens = 64;
    let block = 1usize << 20; // checksum blocks of 2^18 rows
    let mut hasher = PayloadHasher::new();
    let mut frame = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    frame.include_checksum(true).unwrap();
    frame.set_pledged_src_size(Some(4 * n)).unwrap();
    let mut buf = vec![0u8; block];
    for b in 0..(4 * n as usize / block) {
        buf.fill(0);
        let first_row = b * block / 4;
        for j in 0..queens {
            let row = j * (1 << 20) + 5;
            if (first_row..first_row + block / 4).contains(&row) {
                let at = 4 * (row - first_row);
                buf[at..at + 4].copy_from_slice(&(j as u32 + 1).to_le_bytes());
            }
        }
        PayloadHasher::block_hashes(&buf)
            .into_iter()
            .for_each(|h| hasher.push(h));
        frame.write_all(&buf).unwrap();
    }
    let frame = frame.finish().unwrap();
    let header = nqueens::format::Header {
        n,
        k: queens as u64,
        payload_checksum: hasher.finish(),
    }
    .to_bytes();
    let mut head = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    head.include_checksum(true).unwrap();
    head.write_all(&header).unwrap();
    let head = head.finish().unwrap();
    let mut file = head.clone();
    file.extend_from_slice(&frame);
    // The seek table: a skippable frame of (compressed, decompressed) sizes, then the footer.
    let mut table = Vec::new();
    for (c, d) in [
        (head.len() as u32, 64u32),
        (frame.len() as u32, 4 * n as u32),
    ] {
        table.extend_from_slice(&c.to_le_bytes());
        table.extend_from_slice(&d.to_le_bytes());
    }
    table.extend_from_slice(&2u32.to_le_bytes());
    table.push(0);
    table.extend_from_slice(&0x8F92_EAB1u32.to_le_bytes());
    file.extend_from_slice(&0x184D_2A5Eu32.to_le_bytes());
    file.extend_from_slice(&(table.len() as u32).to_le_bytes());
    file.extend(table);
    std::fs::write(&path, file).unwrap();
    let r = finish(&["verify", s(&path)]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("VALID COMPOSITION (64 of 67108864)"),
        "{}",
        r.stdout
    );
    // The frame alone is 256 MiB; each thread held it whole, twice over.
    assert!(r.peak_kib < 200 * 1024, "peaked at {} KiB", r.peak_kib);
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// gzip inputs: one inside another is refused (three levels of 759 bytes wrote 1 GiB to
/// TMPDIR), and what one inflates to is bounded by what it can hold (here the size its raw
/// NQB header declares). Nothing is left in TMPDIR.
#[test]
fn gzip_is_read_one_level_deep_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let env = [("TMPDIR", s(tmp.path()))];
    let d = dir.path();
    let text = b"2\n4\n1\n3\n";
    let once = d.join("four.txt.gz");
    std::fs::write(&once, gzip(text)).unwrap();
    let r = run_bounded(&["verify", s(&once)], &env, HANG);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let twice = d.join("four.txt.gz.gz");
    std::fs::write(&twice, gzip(&gzip(text))).unwrap();
    // An NQB file of n = 4 followed by 8 MB it cannot hold.
    let mut nqb = nqueens::format::Header {
        n: 4,
        k: 4,
        payload_checksum: nqueens::format::nqb::payload_checksum(&u32s(&[2, 4, 1, 3])),
    }
    .to_bytes()
    .to_vec();
    nqb.extend(u32s(&[2, 4, 1, 3]));
    nqb.resize(8 << 20, 0);
    let padded = d.join("padded.nqb.gz");
    std::fs::write(&padded, gzip(&nqb)).unwrap();
    for (p, needle) in [
        (
            &twice,
            "gzip: it holds another gzip file: only one level is read",
        ),
        (
            &padded,
            "gzip: it inflates to more than 81 bytes, more than the raw NQB file its header declares",
        ),
    ] {
        let r = run_bounded(&["verify", s(p)], &env, HANG);
        assert!(!r.killed);
        assert_eq!(r.code, Some(2), "{}{}", r.stdout, r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(
            r.stderr.contains(s(p)) && r.stderr.contains(needle),
            "{}",
            r.stderr
        );
    }
    assert!(listing(tmp.path()).is_empty(), "left in TMPDIR");
}

/// Bits written least significant first, as deflate packs them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    len: u32,
}

impl Bits {
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.len;
        self.len += bits;
        while self.len >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.len -= 8;
        }
    }

    /// A Huffman code, which deflate packs most significant bit first.
    fn code(&mut self, code: u64, bits: u32) {
        let reversed = (0..bits).fold(0, |r, i| r | ((code >> i) & 1) << (bits - 1 - i));
        self.put(reversed, bits);
    }

    /// A literal byte in the fixed Huffman code.
    fn literal(&mut self, b: u8) {
        match b {
            0..=143 => self.code(0x30 + b as u64, 8),
            _ => self.code(0x190 + (b - 144) as u64, 9),
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.len > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// A zlib stream of `head` then `zeros` zero bytes, written directly (one fixed-Huffman
/// block, the zeros as copies of 258 bytes): a compressor takes seconds per 100 MB in a
/// debug build, this takes none.
fn zlib_zeros(head: &[u8], zeros: u64) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(0x0178, 16); // zlib header 78 01, little end first
    bits.put(1, 1); // the final block
    bits.put(1, 2); // fixed Huffman codes
    head.iter().for_each(|&b| bits.literal(b));
    let mut left = zeros;
    if left > 0 {
        bits.literal(0);
        left -= 1;
    }
    while left >= 258 {
        bits.code(0b1100_0101, 8); // length 258
        bits.put(0, 5); // distance 1
        left -= 258;
    }
    (0..left).for_each(|_| bits.literal(0));
    bits.code(0, 7); // end of block
    let mut z = bits.finish();
    // Adler-32 of head then the zeros: `a` does not move over zeros, `b` gains `a` each.
    let (mut a, mut b) = (1u64, 0u64);
    for &x in head {
        a = (a + x as u64) % 65521;
        b = (b + a) % 65521;
    }
    b = (b + a * (zeros % 65521)) % 65521;
    z.extend_from_slice(&((b << 16 | a) as u32).to_be_bytes());
    z
}

/// MAT v7: a compressed element whose declared size its bytes cannot inflate to is refused
/// before anything is sized from it; a data element larger than its array likewise; and
/// a variable of 2^26 values in one compressed element (a few hundred KB of zlib) is read
/// window by window, not held whole (a 1 MB file of 2^30 values took 5.5 GB).
#[test]
fn compressed_mat_variables_are_bounded_and_streamed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Declares 2^30 uint8 values; holds its headers only.
    let n: i32 = 1 << 30;
    let head = matrix_head(b"Q", UINT8, 1, n, MI_UINT8, n as u32);
    let lie = d.join("lie.mat");
    std::fs::write(&lie, mat5([compressed_stream(&zlib_zeros(&head, 0))])).unwrap();
    refused(
        &["verify", s(&lie)],
        &lie,
        "the compressed element at offset 128 declares an element of 1073741880 bytes, but its",
    );
    // A plain variable whose data element runs past the end of its array.
    let mut m = matrix("Q", UINT32, 1, 4, MI_UINT32, &u32s(&[2, 4, 1, 3]));
    let short = m.len() as u32 - 16;
    m[4..8].copy_from_slice(&short.to_le_bytes());
    m.extend_from_slice(&[0; 8]);
    let past = d.join("past.mat");
    std::fs::write(&past, mat5([m])).unwrap();
    refused(
        &["verify", s(&past)],
        &past,
        "runs past the end of its array",
    );
    // 2^26 zeros: a valid empty board of 64 Mi rows, 256 MiB as rows.
    let n: i32 = 1 << 26;
    let head = matrix_head(b"Q", UINT8, 1, n, MI_UINT8, n as u32);
    let big = d.join("big.mat");
    std::fs::write(
        &big,
        mat5([compressed_stream(&zlib_zeros(&head, n as u64))]),
    )
    .unwrap();
    let r = finish(&["verify", s(&big)]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("VALID COMPOSITION (0 of 67108864)"),
        "{}",
        r.stdout
    );
    assert!(r.peak_kib < 200 * 1024, "peaked at {} KiB", r.peak_kib);
    // Its Adler-32 checksum is still checked, at the end of the stream.
    let mut z = zlib_zeros(&head, n as u64);
    let last = z.len() - 1;
    z[last] ^= 1;
    let bad = d.join("bad-adler.mat");
    std::fs::write(&bad, mat5([compressed_stream(&z)])).unwrap();
    refused(
        &["verify", s(&bad)],
        &bad,
        "corrupt zlib stream in the element at offset 128",
    );
}

/// Every message that quotes a file's text stays one short line: a 200 MB token was
/// echoed whole. Names, words, numbers and lines are cut to a few dozen characters.
#[test]
fn quoted_input_is_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = |c: &str| c.repeat(10 << 20);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "digits.txt",
            format!("1\n{}\n", long("7")).into(),
            "line 2: value 7777777777",
        ),
        (
            "word.txt",
            format!("1\n{}\n", long("x")).into(),
            "line 2: \"xxxxxxxxxx",
        ),
        (
            "zero-based.txt",
            format!("1\n{}\n", long("x")).into(),
            "is not a number",
        ),
        (
            "csplib-int.param",
            format!("letting n = {}\n", long("7")).into(),
            "is not an integer in range",
        ),
        (
            "csplib-name.param",
            format!("letting n = 4\nletting {} = 3\n", long("y")).into(),
            "unknown parameter `yyyyyyyyyy",
        ),
        (
            "octave-type.txt",
            format!("# name: Q\n# type: {}\n", long("z")).into(),
            "Q is of type \"zzzzzzzzzz",
        ),
        (
            "octave-name.txt",
            format!(
                "# name: {}\n# type: bool matrix\n# rows: 1\n# columns: 1\n 1\n",
                long("n")
            )
            .into(),
            "is of type \"bool matrix\"",
        ),
        (
            "long-name.mat",
            mat5([matrix(&long("q"), UINT8 | LOGICAL, 1, 1, MI_UINT8, &[1])]),
            "is a logical array",
        ),
        (
            "newline-name.mat",
            mat5([matrix(
                "Q\nfake: line",
                UINT8 | LOGICAL,
                1,
                1,
                MI_UINT8,
                &[1],
            )]),
            "variable Q\\nfake: line is a logical array",
        ),
    ];
    for (name, bytes, needle) in cases {
        let p: PathBuf = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        let mut args = vec!["verify", s(&p)];
        if name.starts_with("zero-based") {
            args.push("--zero-based");
        }
        refused(&args, &p, needle);
    }
    // A SAT solver's model: a literal and a status line (half a megabyte: a model of this
    // instance is read only up to about a megabyte, see `convert --model`).
    let long = |c: &str| c.repeat(1 << 19);
    let base = data("grigoryan-n100-k47.txt");
    for (name, text, needle) in [
        (
            "literal.sat",
            format!("s SATISFIABLE\nv {} 0\n", long("7")),
            "is not a literal",
        ),
        (
            "status.sat",
            format!("s {}\n", long("S")),
            "the solver's status is \"SSSSSSSSSS",
        ),
    ] {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        let out = d.join("s.txt");
        refused(
            &["convert", "--model", s(&p), "--base", s(&base), s(&out)],
            &p,
            needle,
        );
    }
}
