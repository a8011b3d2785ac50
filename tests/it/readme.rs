//! The command blocks of README.md, run as written. Every ```sh block of the README carries
//! a marker on the line before it, so that none is skipped silently:
//!
//! - `<!-- run -->` or `<!-- run: exit C -->`: run here, in order, each block by `bash -e`
//!   in one scratch directory that looks like a built checkout (`tests/` of this
//!   repository, an empty `target/`), with the binary under test first on PATH; the block
//!   must exit 0 (or C). Full-line comments in such a block (`# ...`) are the output it
//!   shows: each must appear in one line of the block's standard output or error, spaces
//!   compared loosely and `...` standing for anything.
//! - `<!-- recipe: NAME -->`: a cluster recipe, run by `hpc_recipes.rs`.
//! - `<!-- not run: why -->`: shown, not run (installing, the test suite itself, a SAT
//!   solver: each says why, and which test covers it where one does).
//!
//! The From Python blocks are run by `python/tests/test_readme.py` and the Rust block is
//! the crate's doctested example (`src/lib.rs`).

use std::path::Path;
use std::process::Command;

/// A ```sh block of the README and the marker before it.
struct Block {
    line: usize,
    marker: String,
    script: String,
}

fn blocks() -> Vec<Block> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_start();
        if !fence.starts_with("```") {
            i += 1;
            continue;
        }
        let indent = lines[i].len() - fence.len();
        let lang = fence.trim_start_matches('`').trim();
        let start = i;
        i += 1;
        let mut body = Vec::new();
        while i < lines.len() && lines[i].trim_start() != "```" {
            body.push(lines[i].get(indent..).unwrap_or("").to_string());
            i += 1;
        }
        i += 1;
        if lang != "sh" {
            continue;
        }
        let marker = lines[..start]
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string();
        out.push(Block {
            line: start + 1,
            marker,
            script: body.join("\n") + "\n",
        });
    }
    out
}

/// What a marker asks: `Some(exit code)` to run the block, `None` not to.
fn expected_exit(b: &Block) -> Option<i32> {
    let m = &b.marker;
    if m == "<!-- run -->" {
        return Some(0);
    }
    if let Some(code) = m
        .strip_prefix("<!-- run: exit ")
        .and_then(|r| r.strip_suffix(" -->"))
    {
        return Some(code.parse().expect("a number after `run: exit`"));
    }
    let covered =
        (m.starts_with("<!-- recipe: ") || m.starts_with("<!-- not run: ")) && m.ends_with(" -->");
    assert!(
        covered,
        "README.md line {}: a ```sh block without a marker (<!-- run -->, <!-- run: exit C -->, \
         <!-- recipe: NAME --> or <!-- not run: why -->) on the line before it; found {m:?}",
        b.line
    );
    None
}

/// Words of `s` joined by single spaces.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether one line of `output` shows `expected`: its pieces between `...`, in order.
fn shows(output: &str, expected: &str) -> bool {
    let pieces: Vec<String> = expected
        .split("...")
        .map(squeeze)
        .filter(|p| !p.is_empty())
        .collect();
    output.lines().map(squeeze).any(|line| {
        let mut at = 0;
        pieces.iter().all(|p| match line[at..].find(p.as_str()) {
            Some(i) => {
                at += i + p.len();
                true
            }
            None => false,
        })
    })
}

#[test]
fn every_shell_block_is_marked_and_the_marked_ones_run_as_shown() {
    let blocks = blocks();
    assert!(
        blocks.len() >= 10,
        "README.md has {} sh blocks",
        blocks.len()
    );
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        dir.path().join("tests"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("target")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_nqueens"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for b in &blocks {
        let Some(code) = expected_exit(b) else {
            continue;
        };
        let out = Command::new("bash")
            .arg("-e")
            .arg("-c")
            .arg(&b.script)
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            out.status.code(),
            Some(code),
            "README.md line {}:\n{}\ngave:\n{text}",
            b.line,
            b.script
        );
        for shown in b.script.lines().filter_map(|l| l.strip_prefix("# ")) {
            assert!(
                shows(&text, shown),
                "README.md line {}: the output does not show {shown:?}:\n{text}",
                b.line
            );
        }
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} README blocks ran");
}

#[test]
fn shown_output_matches_loosely_but_not_anything() {
    let out = "  10                       724       0.000\nplacements: 2\n";
    assert!(shows(out, " 10 724 ..."));
    assert!(shows(out, "placements: 2"));
    assert!(shows(out, "... 724 ... 0.000"));
    assert!(!shows(out, "placements: 3"));
    assert!(!shows(out, "724 ... 10"));
}
