//! A mutation fuzzer for every reader of nqueens, run on the stable toolchain.
//!
//! ```text
//! cargo run --release --example fuzz -- TARGET SECONDS [SEED]
//! cargo run --release --example fuzz -- list
//! cargo run --release --example fuzz -- replay TARGET FILE
//! ```
//!
//! Why in-tree: libFuzzer needs a nightly toolchain, which cannot be installed here, and
//! a driver of our own can watch what a coverage-guided tool does not: every single
//! allocation is capped (a small file that makes us allocate gigabytes is a finding), and
//! a worker process that aborts or hangs is caught by its parent.
//!
//! The parent spawns a worker that mutates seed files (bit flips, interesting integers,
//! truncation, splices, and for text formats interesting numbers in place of numbers),
//! writes each input to a file, and reads it the way the binary does (open, then a full
//! verifying pass). Before each run the worker saves the input as `last-input`; a panic is
//! caught and saved in the worker, an abort or a hang (10 s without progress) is saved by
//! the parent, which then starts a new worker for the rest of the time. Findings go to
//! `target/fuzz/TARGET/findings/`; a reader error (a one-line `FormatError`) is the expected
//! outcome for a bad input and is only counted.

use nqueens::format::{Encoding, Input, NqbWriter};
use nqueens::verify::{Requirements, verify};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The largest single allocation a fuzz input may cause: inputs are at most a few MB.
const MAX_ALLOCATION: usize = 512 << 20;
/// The largest board a CSPLib input is verified at (see `read`).
const SPARSE_BOARD_LIMIT: u64 = 1 << 26;
/// The most memory live at once.
const MAX_LIVE: usize = 2 << 30;

/// The system allocator, refusing allocations above the caps (which aborts the worker:
/// the parent records the input as an unbounded allocation).
struct Capped;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static REPORTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says where a refused allocation came from (once), for `fuzz replay`.
fn report_refusal(size: usize) {
    if std::env::var_os("FUZZ_BACKTRACE").is_some() && !REPORTING.swap(true, Ordering::SeqCst) {
        eprintln!(
            "refused an allocation of {size} bytes at\n{}",
            std::backtrace::Backtrace::force_capture()
        );
    }
}

/// Counts `size` more bytes as live, or refuses (and counts nothing) above the caps.
fn admit(size: usize) -> bool {
    if size > MAX_ALLOCATION {
        report_refusal(size);
        return false;
    }
    if LIVE.fetch_add(size, Ordering::Relaxed) + size > MAX_LIVE {
        LIVE.fetch_sub(size, Ordering::Relaxed);
        report_refusal(size);
        return false;
    }
    true
}

// SAFETY: forwards to the system allocator; refusing (null) is allowed by the contract.
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let more = new_size - layout.size();
            if new_size > MAX_ALLOCATION || !admit(more) {
                report_refusal(new_size);
                return std::ptr::null_mut();
            }
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Capped = Capped;

/// One reader under test.
struct Target {
    name: &'static str,
    /// File extension of the inputs (some readers look at it).
    ext: &'static str,
    /// Whether the format is text: numbers are then also mutated as numbers.
    text: bool,
    seeds: fn(&Path) -> Vec<Vec<u8>>,
}

const TARGETS: &[Target] = &[
    Target {
        name: "nqb-raw",
        ext: "nqb",
        text: false,
        seeds: nqb_raw_seeds,
    },
    Target {
        name: "nqb-zstd",
        ext: "nqbz",
        text: false,
        seeds: nqb_zstd_seeds,
    },
    Target {
        name: "text",
        ext: "txt",
        text: true,
        seeds: |d| files(d, "", &["grigoryan-n100-k47.txt", "grigoryan-n100-k92.txt"]),
    },
    Target {
        name: "octave-text",
        ext: "txt",
        text: true,
        seeds: |d| {
            let mut v = files(
                d,
                "octave",
                &[
                    "octave-text-uint32.txt",
                    "octave-text-workspace.txt",
                    "octave-text-column.txt",
                ],
            );
            // Structs, cells and strings around Q, as Octave writes them.
            v.extend(files(
                d,
                "bad",
                &[
                    "octave-struct-then-q.txt",
                    "octave-struct-array-then-q.txt",
                    "octave-string-then-q.txt",
                    "octave-nested-then-q.txt",
                ],
            ));
            v
        },
    },
    Target {
        name: "octave-binary",
        ext: "mat",
        text: false,
        seeds: |d| {
            files(
                d,
                "octave",
                &[
                    "octave-binary-double.mat",
                    "octave-binary-uint32.mat",
                    "octave-binary-int8-column.mat",
                    "octave-zip-binary.mat",
                    "octave-zip-text.mat",
                ],
            )
        },
    },
    Target {
        name: "mat4",
        ext: "mat",
        text: false,
        seeds: |d| {
            files(
                d,
                "octave",
                &[
                    "octave-v4.mat",
                    "scipy-v4-double.mat",
                    "scipy-v4-column-int.mat",
                ],
            )
        },
    },
    Target {
        name: "mat5",
        ext: "mat",
        text: false,
        seeds: |d| {
            files(
                d,
                "mat",
                &[
                    "scipy-double-row-v5.mat",
                    "scipy-double-row-v7.mat",
                    "scipy-uint32-col-v7.mat",
                    "scipy-named-var.mat",
                    "bigendian-double.mat",
                    "octave-v7.mat",
                ],
            )
        },
    },
    Target {
        name: "mat73",
        ext: "mat",
        text: false,
        seeds: |d| {
            let mut v = files(
                d,
                "mat",
                &[
                    "h5py-v73-uint32-row.mat",
                    "h5py-v73-double-chunked.mat",
                    "h5py-v73-double-col-chunked.mat",
                    "h5py-v73-int16-col-fletcher.mat",
                    "h5py-v73-unaligned-named.mat",
                ],
            );
            v.extend(files(
                d,
                "octave",
                &["octave-hdf5-workspace.h5", "hdf5-plain-1d.h5"],
            ));
            // Octave's logicals and empty matrices, HDF5's unusual number layouts.
            v.extend(files(
                d,
                "bad",
                &[
                    "octave-logical.h5",
                    "octave-empty.h5",
                    "hdf5-float-ebias.h5",
                    "hdf5-uint-offset-col.h5",
                ],
            ));
            v
        },
    },
    Target {
        name: "npy",
        ext: "npy",
        text: false,
        seeds: |d| {
            files(
                d,
                "npy",
                &[
                    "u4.npy",
                    "i8-column.npy",
                    "f8-row.npy",
                    "be-i4.npy",
                    "f4-fortran.npy",
                    "composition-u2.npy",
                ],
            )
        },
    },
    Target {
        name: "csplib",
        ext: "param",
        text: true,
        seeds: |d| files(d, "csplib", &["nauck-1850.param", "bad-attacking.param"]),
    },
    Target {
        name: "excluded",
        ext: "txt",
        text: true,
        seeds: |d| {
            files(
                d,
                "csplib",
                &["ed-10-infeasible-1.txt", "ed-10-infeasible-2.txt"],
            )
        },
    },
    Target {
        name: "dimacs-model",
        ext: "sat",
        text: true,
        seeds: |_| {
            vec![
                b"s SATISFIABLE\nv 1 -2 3 -4 5 -6 7 -8 0\n".to_vec(),
                b"s UNSATISFIABLE\n".to_vec(),
                b"SAT\n1 -2 3 0\n".to_vec(),
                b"c comment\ns SATISFIABLE\nv -1 2 0\nv 3 0\n".to_vec(),
            ]
        },
    },
    Target {
        name: "count-records",
        ext: "json",
        text: true,
        seeds: |_| {
            let record = |i: u64, of: u64, placements: &str| {
                let r = nqueens::json::CountRecord {
                    versions: nqueens::json::Versions::current(),
                    n: 12,
                    piece: nqueens::count::Piece::Queen,
                    kind: nqueens::count::Kind::Regular,
                    placed: vec![],
                    shard: [i, of],
                    placements: placements.into(),
                    distinct: Some("7".into()),
                    orders: None,
                    engine: "half-boards".into(),
                    items: 30,
                    seconds: 0.5,
                    conflict: None,
                    resumed_items: None,
                    gpu_items: None,
                    plan: None,
                    digest: None,
                };
                serde_json::to_string(&r.sealed()).unwrap()
            };
            vec![
                format!("{}\n{}\n", record(0, 2, "100"), record(1, 2, "23")).into_bytes(),
                format!("{}\n", record(0, 1, "14200")).into_bytes(),
            ]
        },
    },
];

fn files(data: &Path, dir: &str, names: &[&str]) -> Vec<Vec<u8>> {
    names
        .iter()
        .filter_map(|n| std::fs::read(data.join(dir).join(n)).ok())
        .collect()
}

fn nqb_bytes(rows: &[u32], encoding: Encoding) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("seed");
    let mut w = NqbWriter::create(&p, rows.len() as u64, encoding).unwrap();
    w.write_rows(rows).unwrap();
    w.finish().unwrap().1.commit().unwrap();
    std::fs::read(&p).unwrap()
}

fn solution(n: u32) -> Vec<u32> {
    // A simple explicit solution for n = 1 mod 6 (and a valid composition otherwise).
    (0..n)
        .map(|i| {
            let c = (2 * i) % n + 1;
            if n % 6 == 1 || n % 6 == 5 { c } else { 0 }
        })
        .collect()
}

fn nqb_raw_seeds(_: &Path) -> Vec<Vec<u8>> {
    vec![
        nqb_bytes(&[2, 4, 1, 3], Encoding::Raw),
        nqb_bytes(&solution(13), Encoding::Raw),
        nqb_bytes(&solution(601), Encoding::Raw),
    ]
}

fn nqb_zstd_seeds(_: &Path) -> Vec<Vec<u8>> {
    let frames = Encoding::Zstd {
        frame_rows: nqueens::format::nqb::CHECKSUM_BLOCK_ROWS,
    };
    vec![
        nqb_bytes(&[2, 4, 1, 3], frames),
        nqb_bytes(&solution(601), frames),
        nqb_bytes(&solution(600_001), frames),
    ]
}

/// Reads `path` the way the binary does: open, then one full verifying pass.
fn read(target: &Target, path: &Path, base: &Input) -> Result<(), String> {
    if target.name == "dimacs-model" {
        return nqueens::dimacs::read_model(path, base)
            .map(|_| ())
            .map_err(|e| format!("{e:?}"));
    }
    if target.name == "count-records" {
        // As `count merge` reads them: one record per line, then the merge.
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let records = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str::<nqueens::json::CountRecord>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        return nqueens::publish::merge::merge(records)
            .map(|_| ())
            .map_err(|e| e.to_string());
    }
    let input = Input::open(path).map_err(|e| e.to_string())?;
    // A CSPLib file may declare any n in a few bytes, legitimately: verifying that board
    // then needs bitmaps of n bits, which the allocation caps would flag. Such boards are
    // opened (the reader is what is fuzzed here) but not verified.
    if target.name == "csplib" && input.n() > SPARSE_BOARD_LIMIT {
        return Err(format!("n = {}: opened, not verified", input.n()));
    }
    verify(&input, Requirements::default()).map_err(|e| e.to_string())?;
    Ok(())
}

const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    7,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    u64::MAX,
];

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "4294967295",
    "4294967296",
    "-9223372036854775808",
    "18446744073709551615",
    "3000000000",
    "1e300",
    "nan",
    "100000",
    "1000000",
    "2.5",
];

fn mutate(rng: &mut ChaCha8Rng, seeds: &[Vec<u8>], text: bool) -> Vec<u8> {
    let mut b = seeds[rng.random_range(0..seeds.len())].clone();
    for _ in 0..rng.random_range(1..=4) {
        if b.is_empty() {
            b.push(rng.random());
        }
        let at = rng.random_range(0..b.len());
        match rng.random_range(0..if text { 9 } else { 8 }) {
            0 => b[at] ^= 1 << rng.random_range(0..8),
            1 => b[at] = rng.random(),
            2 | 3 => {
                let v = INTERESTING[rng.random_range(0..INTERESTING.len())];
                let width = [1, 2, 4, 8][rng.random_range(0..4)];
                let bytes = if rng.random() {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                };
                let src = if bytes[0] == 0 && width < 8 && v.to_le_bytes() == bytes {
                    &bytes[..width]
                } else {
                    &bytes[8 - width..]
                };
                for (i, x) in src.iter().enumerate() {
                    if let Some(y) = b.get_mut(at + i) {
                        *y = *x;
                    }
                }
            }
            4 => b.truncate(at),
            5 => {
                let len = rng.random_range(1..=64.min(b.len() - at));
                let chunk = b[at..at + len].to_vec();
                let to = rng.random_range(0..=b.len());
                b.splice(to..to, chunk);
            }
            6 => {
                let len = rng.random_range(1..=64.min(b.len() - at));
                b.drain(at..at + len);
            }
            7 => {
                let other = &seeds[rng.random_range(0..seeds.len())];
                let from = rng.random_range(0..other.len().max(1));
                let len = rng.random_range(0..=256.min(other.len() - from.min(other.len())));
                b.splice(at..at, other[from..from + len].iter().copied());
            }
            _ => {
                // A number in the text replaced by an interesting one.
                let start = (at..b.len()).find(|&i| b[i].is_ascii_digit());
                if let Some(s) = start {
                    let e = (s..b.len())
                        .find(|&i| !b[i].is_ascii_digit())
                        .unwrap_or(b.len());
                    let n = NUMBERS[rng.random_range(0..NUMBERS.len())];
                    b.splice(s..e, n.bytes());
                }
            }
        }
    }
    b
}

fn work_dir(target: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/fuzz")
        .join(target);
    std::fs::create_dir_all(root.join("findings")).unwrap();
    root
}

fn save_finding(dir: &Path, kind: &str, bytes: &[u8], ext: &str) -> PathBuf {
    let h = twox_hash::XxHash3_64::oneshot(bytes);
    let p = dir.join("findings").join(format!("{kind}-{h:016x}.{ext}"));
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The worker: mutates and reads for `seconds`, printing progress lines for the parent.
fn worker(target: &Target, seconds: f64, seed: u64) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let dir = work_dir(target.name);
    let seeds = (target.seeds)(&data);
    assert!(!seeds.is_empty(), "no seeds for {}", target.name);
    let base = Input::open(&data.join("grigoryan-n100-k47.txt")).unwrap();
    let input_path = dir.join(format!("input.{}", target.ext));
    let last = dir.join("last-input");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let panic_message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = panic_message.clone();
    std::panic::set_hook(Box::new(move |info| {
        *sink.lock().unwrap() = info.to_string();
    }));
    let start = Instant::now();
    let (mut execs, mut errors, mut panics) = (0u64, 0u64, 0u64);
    let mut out = std::io::stdout().lock();
    while start.elapsed().as_secs_f64() < seconds {
        let bytes = mutate(&mut rng, &seeds, target.text);
        std::fs::write(&last, &bytes).unwrap();
        std::fs::write(&input_path, &bytes).unwrap();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read(target, &input_path, &base)
        })) {
            Ok(Ok(())) => {}
            Ok(Err(_)) => errors += 1,
            Err(_) => {
                panics += 1;
                let p = save_finding(&dir, "panic", &bytes, target.ext);
                let msg = panic_message.lock().unwrap().clone();
                writeln!(
                    out,
                    "finding panic {} {}",
                    p.display(),
                    msg.replace('\n', " ")
                )
                .ok();
            }
        }
        execs += 1;
        if execs % 200 == 0 {
            writeln!(out, "progress {execs} {errors} {panics}").ok();
            out.flush().ok();
        }
    }
    writeln!(out, "progress {execs} {errors} {panics}").ok();
}

/// The parent: runs workers for `seconds` in all, saving the input of any that dies.
fn parent(target: &Target, seconds: f64, seed: u64) {
    let dir = work_dir(target.name);
    let start = Instant::now();
    let (mut execs, mut errors, mut panics, mut deaths) = (0u64, 0u64, 0u64, 0u64);
    let mut round = 0;
    while start.elapsed().as_secs_f64() < seconds {
        let left = seconds - start.elapsed().as_secs_f64();
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--worker",
                target.name,
                &format!("{left}"),
                &format!("{}", seed + round),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        round += 1;
        let stdout = child.stdout.take().unwrap();
        // Progress lines arrive on a thread; no line for 10 s is a hang.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                if tx.send(line.unwrap_or_default()).is_err() {
                    break;
                }
            }
        });
        let (mut e, mut r, mut p) = (0, 0, 0);
        let hung = loop {
            match rx.recv_timeout(Duration::from_secs(10)) {
                Ok(line) => {
                    let f: Vec<&str> = line.split_whitespace().collect();
                    if f.first() == Some(&"progress") && f.len() == 4 {
                        (e, r, p) = (
                            f[1].parse().unwrap(),
                            f[2].parse().unwrap(),
                            f[3].parse().unwrap(),
                        );
                    } else {
                        println!("{}: {line}", target.name);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break false,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break true,
            }
        };
        if hung {
            child.kill().ok();
        }
        let status = child.wait().unwrap();
        execs += e;
        errors += r;
        panics += p;
        if hung || !status.success() {
            deaths += 1;
            let bytes = std::fs::read(dir.join("last-input")).unwrap_or_default();
            let kind = if hung { "hang" } else { "abort" };
            let path = save_finding(&dir, kind, &bytes, target.ext);
            println!(
                "{}: finding {kind} ({status}) {}",
                target.name,
                path.display()
            );
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{}: {execs} inputs in {secs:.0} s ({:.0}/s), {errors} rejected with an error, {panics} panics, {deaths} aborts or hangs",
        target.name,
        execs as f64 / secs
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let find = |name: &str| {
        TARGETS
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("unknown target {name}; try `list`"))
    };
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["list"] => TARGETS.iter().for_each(|t| println!("{}", t.name)),
        ["replay", name, file] => {
            // One input, under the same allocation caps (FUZZ_BACKTRACE=1 says where a
            // refused allocation came from).
            let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
            let base = Input::open(&data.join("grigoryan-n100-k47.txt")).unwrap();
            println!("{:?}", read(find(name), Path::new(file), &base));
        }
        ["--worker", name, secs, seed] => {
            worker(find(name), secs.parse().unwrap(), seed.parse().unwrap())
        }
        [name, secs] => parent(find(name), secs.parse().unwrap(), 1),
        [name, secs, seed] => parent(find(name), secs.parse().unwrap(), seed.parse().unwrap()),
        _ => eprintln!("usage: fuzz TARGET SECONDS [SEED] | fuzz list"),
    }
}
