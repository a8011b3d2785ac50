//! Tests of the format layer as a whole.

use super::*;
use std::path::{Path, PathBuf};

/// Every input opened twice, mapped and read, gives the same rows or the same error.
fn open_both(path: &Path) -> [Result<Vec<u32>, String>; 2] {
    let open = |mmap| {
        let opts = OpenOptions {
            mmap,
            ..Default::default()
        };
        Input::open_with(path, &opts)
            .and_then(|input| input.to_vec())
            .map_err(|e| e.to_string())
    };
    // SAFETY: the test's files are not changed while open.
    [
        open(unsafe { MmapChoice::auto() }),
        open(MmapChoice::never()),
    ]
}

/// Fixtures in the formats read through `FileBytes`; text formats never map.
fn binary_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if path.is_dir() {
            binary_files_under(&path, out);
        } else if ["nqb", "nqbz", "npy", "mat", "h5"].contains(&ext) {
            out.push(path);
        }
    }
}

/// Files in every mapped format (raw and compressed NQB, `.npy`), whole and damaged.
fn written_and_damaged(dir: &Path) -> Vec<PathBuf> {
    let n = nqb::CHECKSUM_BLOCK_ROWS + 5_000;
    let rows: Vec<u32> = (0..n as u32)
        .map(|i| if i % 3 == 0 { 0 } else { i + 1 })
        .collect();
    let mut made = Vec::new();
    let small = Encoding::Zstd {
        frame_rows: nqb::CHECKSUM_BLOCK_ROWS,
    };
    for (name, format) in [
        ("raw.nqb", OutputFormat::Nqb(Encoding::Raw)),
        ("frames.nqbz", OutputFormat::Nqb(small)),
        ("rows.npy", OutputFormat::Npy(Default::default())),
    ] {
        let path = dir.join(name);
        let mut w = RowWriter::create(&path, n, format).unwrap();
        w.write_rows(&rows).unwrap();
        w.finish().unwrap().commit().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        for cut in [0, 5, 63, 64, 65, bytes.len() / 2, bytes.len() - 1] {
            let damaged = dir.join(format!("cut-{cut}-{name}"));
            std::fs::write(&damaged, &bytes[..cut]).unwrap();
            made.push(damaged);
        }
        for at in [
            10,
            60,
            200,
            bytes.len() / 3,
            bytes.len() - 20,
            bytes.len() - 3,
        ] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x41;
            let damaged = dir.join(format!("flip-{at}-{name}"));
            std::fs::write(&damaged, &flipped).unwrap();
            made.push(damaged);
        }
        made.push(path);
    }
    made
}

#[test]
fn mapped_and_read_inputs_agree_on_every_fixture_and_damaged_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = written_and_damaged(dir.path());
    binary_files_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
        &mut files,
    );
    let mut read = 0;
    for path in &files {
        let [mapped, unmapped] = open_both(path);
        assert_eq!(mapped, unmapped, "{}", path.display());
        read += mapped.is_ok() as usize;
    }
    // The comparison is not vacuous: whole files are read, damaged ones refused.
    assert!(read >= 10, "{read} of {} files read", files.len());
    assert!(
        files.len() - read >= 30,
        "{read} of {} files read",
        files.len()
    );
}

/// Every separator the text reader takes is also taken where the format is recognised
/// (the first 512 bytes): a vertical tab there made the file "unrecognized", though the
/// same byte later in the file separated values.
#[test]
fn every_text_separator_is_text_in_the_first_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (k, sep) in [" ", "\t", "\r", "\u{b}", "\u{c}", ",", ";", "\u{a0}"]
        .into_iter()
        .enumerate()
    {
        let path = dir.path().join(format!("b{k}.txt"));
        std::fs::write(&path, format!("2{sep}4{sep}1{sep}3\n")).unwrap();
        for got in open_both(&path) {
            assert_eq!(got, Ok(vec![2, 4, 1, 3]), "separator {sep:?}");
        }
    }
}
