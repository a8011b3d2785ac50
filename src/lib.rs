//! nqueens: n-queens compositions and solutions at every scale.
//!
//! The library reads and writes the project's file formats ([`format`](mod@format), with CNF export in
//! [`dimacs`]), checks compositions and solutions ([`verify`]), completes compositions
//! ([`complete`]), counts placements of queens, rooks and bishops ([`count`]), builds
//! solutions and compositions ([`generate`]), and makes and reduces Excluded Diagonals
//! instances ([`excluded`]). [`json`] holds the records the command line prints with
//! `--json`, from which the published JSON Schemas are made. [`cleanup`] and [`progress`]
//! are process plumbing (temporary files removed on a signal, how far a long run has got).
//!
//! # In ten lines
//!
//! Read a composition from any format the command line reads, complete it, check the
//! answer and write it:
//!
//! ```
//! use nqueens::complete::{Answer, Options, complete_rows};
//! use nqueens::format::{Input, OutputFormat, RowWriter};
//! # let dir = std::env::temp_dir().join(format!("nqueens-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let board = dir.join("board.txt");
//! # std::fs::write(&board, "0 0 0 4 0 0 0 0\n")?;
//! let rows = Input::open(&board)?.to_vec()?; // NQB, MAT, .npy, CSPLib, text...
//! let Some((Answer::Solved, solution, _stats)) = complete_rows(&rows, &Options::new(7)) else {
//!     panic!("no completion");
//! };
//! assert!(nqueens::verify::verify_rows(&solution, Default::default())?.is_solution());
//! let out = dir.join("solved.nqb");
//! let mut w = RowWriter::create(&out, solution.len() as u64, OutputFormat::from_path(&out))?;
//! w.write_rows(&solution)?;
//! w.finish()?.commit()?; // appears at `out` only now, complete
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Compositions of millions of rows are better completed from the file, without an array:
//! [`complete::run_job`] (what `nqueens complete` runs) streams the input into a
//! memory-mapped row store and writes the answer atomically.
//!
//! # Features
//!
//! - `cli` (default): the `nqueens` binary and its crates (clap, clap_complete,
//!   clap_mangen, ctrlc, indicatif, plotters). A program that uses the library only
//!   depends on `nqueens = { version = "0.1", default-features = false }` and builds none
//!   of them.
//!
//! Private to the crate: `board` (the line bitmaps every part shares), `exact` (the exact
//! search of a residual, the end game of `complete` and the engine of `count --from`),
//! `memory` (resident memory) and, in tests, `oracle` (the brute-force checks every test
//! compares against). The `nqueens` binary is a thin layer over this surface: its command
//! line (`src/cli/`) is private to the binary.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub(crate) mod board;
pub mod cleanup;
pub(crate) mod closed_form;
pub mod complete;
pub mod count;
pub mod dimacs;
pub(crate) mod exact;
pub mod excluded;
pub mod format;
pub mod generate;
pub mod json;
pub(crate) mod memory;
#[cfg(test)]
mod oracle;
pub mod progress;
pub mod publish;
pub(crate) mod rng;
pub(crate) mod simd;
pub mod stop;
pub mod verify;

/// README.md's Rust blocks are this crate's example: a test keeps them the same.
#[cfg(test)]
mod readme {
    #[test]
    fn the_readme_shows_the_crate_example() {
        let readme = include_str!("../README.md");
        let lib = include_str!("lib.rs");
        let example: Vec<&str> = lib
            .lines()
            .filter_map(|l| l.strip_prefix("//! "))
            .skip_while(|l| *l != "```")
            .skip(1)
            .take_while(|l| *l != "```")
            .filter(|l| !l.starts_with("# "))
            .collect();
        let blocks: Vec<&str> = readme.split("```rust\n").skip(1).collect();
        assert!(!blocks.is_empty(), "README.md has no Rust block");
        for block in blocks {
            let block = &block[..block.find("```").unwrap()];
            let shown: Vec<&str> = block.lines().collect();
            assert_eq!(
                shown, example,
                "README.md's Rust block is not lib.rs's doctested example"
            );
        }
    }
}
