//! AFL++ harness: one reader per run, named by `NQUEENS_FUZZ_TARGET` (nqb, mat, text,
//! octave, csplib, dimacs, npy, merge, answer). The input is written to a file (the readers map files) and read
//! the way the binary reads it: open, then a full verifying pass. `answer` completes a MAT
//! input of at most 4,096 rows into a v7.3 answer laid out like it, as `complete` does (for
//! a deflated v7.3 input: the input patched, its chunk index located by hand). Errors are
//! the expected outcome for bad input; AFL records panics and aborts.

use nqueens::format::Input;
use nqueens::verify::{Requirements, verify};

fn main() {
    let target = std::env::var("NQUEENS_FUZZ_TARGET").unwrap_or_else(|_| "nqb".into());
    let ext = match target.as_str() {
        "mat" | "answer" => "mat",
        "csplib" => "param",
        "dimacs" => "sat",
        "nqb" => "nqb",
        "npy" => "npy",
        "merge" => "json",
        _ => "txt",
    };
    let dir = tempfile_dir();
    let path = dir.join(format!("input.{ext}"));
    let base = {
        let p = dir.join("base.txt");
        std::fs::write(&p, "0\n0\n0\n0\n0\n0\n0\n0\n").unwrap();
        // Read only; AFL's unwind boundary cannot see that through the HDF5 handle types.
        std::panic::AssertUnwindSafe(Input::open(&p).unwrap())
    };
    afl::fuzz!(|data: &[u8]| {
        std::fs::write(&path, data).unwrap();
        if target == "merge" {
            // As `count merge` reads its files: one record per line, then the merge.
            let text = String::from_utf8_lossy(data);
            let records: Result<Vec<nqueens::json::CountRecord>, _> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(serde_json::from_str)
                .collect();
            if let Ok(records) = records {
                let _ = nqueens::publish::merge::merge(records);
            }
            return;
        }
        if target == "answer" {
            answer(&path, &dir);
            return;
        }
        if target == "dimacs" {
            let _ = nqueens::dimacs::read_model(&path, &*base);
            return;
        }
        if let Ok(input) = Input::open(&path) {
            if target == "csplib" && input.n() > 1 << 26 {
                return;
            }
            let _ = verify(&input, Requirements::default());
        }
    });
}

/// Completes the MAT input at `path` into a v7.3 answer laid out like its variable.
fn answer(path: &std::path::Path, dir: &std::path::Path) {
    use nqueens::complete::{Options, run_job};
    use nqueens::format::OutputFormat;
    let Ok(input) = Input::open(path) else { return };
    let Some(layout) = input.mat_layout().filter(|_| input.n() <= 4096) else {
        return;
    };
    let opts = Options {
        seed: 1,
        time_limit: Some(std::time::Duration::from_millis(200)),
        since: std::time::Instant::now(),
        interrupt: Default::default(),
        closed_forms: true,
    };
    let out = dir.join("answer.mat");
    let _ = run_job(&input, Some((&out, OutputFormat::Mat73 { layout })), &opts);
    let _ = std::fs::remove_file(&out);
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nqueens-afl-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
