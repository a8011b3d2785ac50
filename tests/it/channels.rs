//! Every channel of every command, from `formats/channels.json` (the list the command
//! line's own description gives, kept current by a unit test of `cli/channels.rs`):
//! every file a command reads is given hostile files (`/dev/zero`, `/dev/full`, `/dev/urandom`, a named
//! pipe with no writer, a directory, an endless pipe) under a 1 GiB address-space limit,
//! and must end with exit 2 and one line naming it, within seconds; every file it writes
//! is given each of its inputs, standard output included, and must be refused with the
//! input unchanged. A new argument that takes a path appears in the list by itself, and
//! the first test fails until it has a template here.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(serde::Deserialize, Debug)]
struct Channel {
    command: String,
    flag: String,
    role: String,
    stdio: bool,
}

fn channels() -> Vec<Channel> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formats/channels.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A command line with one `{KEY}` per channel: the flag, or `IN`/`OUT` for the files of
/// `convert IN OUT`.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "complete",
        "complete {INPUT} -q -o {-o} --certificate {--certificate} --trace {--trace} --plot {--plot}",
    ),
    ("verify", "verify --base {--base} {FILES}"),
    ("info", "info {FILES}"),
    ("convert", "convert {IN} {OUT}"),
    ("convert", "convert --model {--model} --base {--base} {OUT}"),
    ("count", "count --from {--from} --first -o {-o}"),
    ("count", "count 8 --checkpoint {--checkpoint}"),
    (
        "count",
        "count 8 --plan 2 --estimate-seconds 0 --seed 1 -o {-o}",
    ),
    (
        "count",
        "count --plan-file {--plan-file} --shard 0/2 --checkpoint {--checkpoint}",
    ),
    ("count merge", "count merge {FILES}"),
    ("generate solution", "generate solution --n 8 -o {-o}"),
    (
        "generate composition",
        "generate composition --from {--from} --seed 1 -o {-o}",
    ),
    (
        "generate excluded",
        "generate excluded --n 10 --seed 1 -o {-o}",
    ),
    ("man", "man --dir {--dir}"),
];

/// How a template's channel is used: read, written, or both (a checkpoint).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Use {
    Read,
    Write,
    ReadWrite,
    Dir,
}

/// The keys of a template with their use and whether `-` is accepted.
fn keys(command: &str, line: &str, all: &[Channel]) -> Vec<(String, Use, bool)> {
    let mut out = Vec::new();
    for word in line.split_whitespace() {
        let Some(key) = word.strip_prefix('{').and_then(|w| w.strip_suffix('}')) else {
            continue;
        };
        let channel = all
            .iter()
            .find(|c| {
                c.command == command
                    && (c.flag == key
                        || (c.role == "read-then-write" && ["IN", "OUT"].contains(&key)))
            })
            .unwrap_or_else(|| {
                panic!("{command}: {{{key}}} is no channel of formats/channels.json")
            });
        let how = match (channel.role.as_str(), key) {
            ("read", _) | ("read-then-write", "IN") => Use::Read,
            ("write", _) | ("write-each", _) | ("read-then-write", _) => Use::Write,
            ("read-write", _) => Use::ReadWrite,
            ("write-dir", _) => Use::Dir,
            (other, _) => panic!("unknown role {other}"),
        };
        out.push((key.to_string(), how, channel.stdio));
    }
    out
}

/// Files the templates are filled with where the test does not put its own.
struct Fills {
    dir: tempfile::TempDir,
}

impl Fills {
    fn new() -> Fills {
        let dir = tempfile::tempdir().unwrap();
        // A solution of the 8-queens board: every command that reads a composition takes it.
        std::fs::write(dir.path().join("solution.txt"), "1 5 8 6 3 7 2 4\n").unwrap();
        let shard = nqueens()
            .args(["count", "8", "--json"])
            .output()
            .unwrap()
            .stdout;
        std::fs::write(dir.path().join("shard.json"), shard).unwrap();
        let plan = nqueens()
            .args([
                "count",
                "8",
                "--plan",
                "2",
                "--estimate-seconds",
                "0",
                "--seed",
                "1",
            ])
            .output()
            .unwrap()
            .stdout;
        std::fs::write(dir.path().join("plan.json"), plan).unwrap();
        // The solver's answer for a board with no free cell: no variable.
        std::fs::write(dir.path().join("model.txt"), "s SATISFIABLE\nv 0\n").unwrap();
        std::fs::create_dir(dir.path().join("man")).unwrap();
        Fills { dir }
    }

    /// A valid file for reading channel `key` of `command`, or a fresh path for writing.
    fn default(&self, command: &str, key: &str, how: Use) -> PathBuf {
        let p = |name: &str| self.dir.path().join(name);
        match (how, command, key) {
            (Use::Read, "count merge", _) => p("shard.json"),
            (Use::Read, "count", "--plan-file") => p("plan.json"),
            (Use::Read, "convert", "--model") => p("model.txt"),
            (Use::Read, _, _) => p("solution.txt"),
            (Use::Dir, _, _) => p("man"),
            (_, _, "--certificate") => p("new-certificate.json"),
            (_, _, "--trace") => p("new-trace.csv"),
            (_, _, "--plot") => p("new-plot.svg"),
            (_, _, "--checkpoint") => p("new-checkpoint.json"),
            (_, _, key) => p(&format!("new-{}.txt", key.trim_start_matches('-'))),
        }
    }

    /// The template's words with `given` in place of its keys and defaults elsewhere.
    fn fill(&self, command: &str, line: &str, given: &[(&str, &Path)]) -> Vec<String> {
        let all = channels();
        let uses = keys(command, line, &all);
        line.split_whitespace()
            .map(|word| {
                let Some(key) = word.strip_prefix('{').and_then(|w| w.strip_suffix('}')) else {
                    return word.to_string();
                };
                let how = uses.iter().find(|(k, ..)| k == key).unwrap().1;
                match given.iter().find(|(k, _)| *k == key) {
                    Some((_, path)) => path.to_str().unwrap().to_string(),
                    None => self
                        .default(command, key, how)
                        .to_str()
                        .unwrap()
                        .to_string(),
                }
            })
            .collect()
    }
}

/// Runs nqueens with `args` under a 1 GiB address-space limit, killing it after `limit`:
/// (exit code, or None when it had to be killed; standard error).
fn run_limited(
    args: &[String],
    stdin: Stdio,
    stdout: Stdio,
    limit: Duration,
) -> (Option<i32>, String) {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("nqueens"));
    cmd.args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
        text
    });
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (code, reader.join().unwrap())
}

#[test]
fn every_channel_has_a_template_and_every_template_runs() {
    let all = channels();
    for c in &all {
        let keys: Vec<&str> = if c.role == "read-then-write" {
            vec!["IN", "OUT"]
        } else {
            vec![c.flag.as_str()]
        };
        for key in keys {
            assert!(
                TEMPLATES
                    .iter()
                    .any(|(cmd, line)| *cmd == c.command && line.contains(&format!("{{{key}}}"))),
                "{} {key}: no template in tests/it/channels.rs TEMPLATES",
                c.command
            );
        }
    }
    // With its default files each template succeeds, so that a hostile file given to one
    // channel is the only thing wrong in the tests below.
    let fills = Fills::new();
    for (command, line) in TEMPLATES {
        let args = fills.fill(command, line, &[]);
        let out = nqueens().args(&args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Leave no output behind for the next template.
        for (key, how, _) in keys(command, line, &all) {
            if matches!(how, Use::Write | Use::ReadWrite) {
                let p = fills.default(command, &key, how);
                let _ = std::fs::remove_file(&p);
                let _ = std::fs::remove_file(p.with_extension("cnf"));
            }
        }
    }
}

/// A hostile file for a read channel: its path, and what standard input is.
enum Hostile {
    Path(&'static str),
    NamedPipe,
    Directory,
    /// `yes` on standard input, named as `/dev/stdin` or `-`.
    Endless(&'static str),
}

#[test]
fn every_read_channel_refuses_hostile_files_in_bounded_time_and_memory() {
    let all = channels();
    let fills = Fills::new();
    let pipe = fills.dir.path().join("no-writer");
    let c = std::ffi::CString::new(pipe.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let directory = fills.dir.path().join("a-directory");
    std::fs::create_dir(&directory).unwrap();
    let mut cases = Vec::new();
    for (command, line) in TEMPLATES {
        for (key, how, stdio) in keys(command, line, &all) {
            if !matches!(how, Use::Read | Use::ReadWrite) {
                continue;
            }
            let mut hostile = vec![
                Hostile::Path("/dev/zero"),
                Hostile::Path("/dev/full"),
                Hostile::Path("/dev/urandom"),
                Hostile::NamedPipe,
                Hostile::Directory,
                Hostile::Endless("/dev/stdin"),
            ];
            if stdio {
                hostile.push(Hostile::Endless("-"));
            }
            for h in hostile {
                cases.push((*command, *line, key.clone(), h));
            }
        }
    }
    assert!(cases.len() >= 70, "only {} cases", cases.len());
    let failures = std::sync::Mutex::new(Vec::new());
    // The named pipe's case waits 5 s for a writer: the cases run side by side.
    std::thread::scope(|scope| {
        for chunk in cases.chunks(cases.len().div_ceil(8)) {
            let (fills, failures, pipe, directory) = (&fills, &failures, &pipe, &directory);
            scope.spawn(move || {
                for (command, line, key, h) in chunk {
                    let (path, endless) = match h {
                        Hostile::Path(p) => (PathBuf::from(p), false),
                        Hostile::NamedPipe => (pipe.clone(), false),
                        Hostile::Directory => (directory.clone(), false),
                        Hostile::Endless(p) => (PathBuf::from(p), true),
                    };
                    let args = fills.fill(command, line, &[(key, &path)]);
                    let stdin = if endless {
                        Stdio::piped()
                    } else {
                        Stdio::null()
                    };
                    let (code, err) = if endless {
                        run_with_endless_stdin(&args)
                    } else {
                        run_limited(&args, stdin, Stdio::null(), Duration::from_secs(30))
                    };
                    let shown = path.to_str().unwrap();
                    let ok = code == Some(2)
                        && err.lines().count() == 1
                        && err.starts_with(&format!("nqueens: {shown}"))
                        && err.len() < 400;
                    if !ok {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{args:?}: exit {code:?}: {err}"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs with `yes` writing into standard input until the command stops reading.
fn run_with_endless_stdin(args: &[String]) -> (Option<i32>, String) {
    let mut yes = Command::new("yes")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = yes.stdout.take().unwrap();
    let result = run_limited(
        args,
        Stdio::from(out),
        Stdio::null(),
        Duration::from_secs(30),
    );
    let _ = yes.kill();
    let _ = yes.wait();
    result
}

#[test]
fn no_output_may_be_an_input_standard_output_included() {
    let all = channels();
    let fills = Fills::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (command, line) in TEMPLATES {
        let uses = keys(command, line, &all);
        let reads: Vec<&(String, Use, bool)> = uses
            .iter()
            .filter(|(_, h, _)| matches!(h, Use::Read | Use::ReadWrite))
            .collect();
        let writes: Vec<&(String, Use, bool)> = uses
            .iter()
            .filter(|(_, h, _)| matches!(h, Use::Write | Use::ReadWrite))
            .collect();
        for (read, read_use, read_stdio) in &reads {
            // The input this command reads through `read`: a valid one, copied so that a
            // change shows.
            let input = fills
                .dir
                .path()
                .join(format!("input-{}", read.trim_start_matches('-')));
            let content =
                std::fs::read(fills.default(command, read, *read_use)).unwrap_or_default();
            let mut expect_refused =
                |args: Vec<String>, stdin: Stdio, stdout: Stdio, what: &str| {
                    checked += 1;
                    let (code, err) = run_limited(&args, stdin, stdout, Duration::from_secs(30));
                    let kept = std::fs::read(&input).unwrap() == content;
                    if code != Some(2) || !kept || err.lines().count() != 1 {
                        failures.push(format!(
                            "{what}: {args:?}: exit {code:?}, input kept {kept}: {err}"
                        ));
                    }
                };
            let reset = || std::fs::write(&input, &content).unwrap();
            // Every output named as the input.
            for (write, _, _) in writes.iter().filter(|(w, ..)| w != read) {
                reset();
                let args = fills.fill(command, line, &[(read, &input), (write, &input)]);
                expect_refused(args, Stdio::null(), Stdio::null(), "output = input");
            }
            // Standard output appended onto the input, `-` named or not.
            reset();
            let args = fills.fill(command, line, &[(read, &input)]);
            let append = std::fs::OpenOptions::new()
                .append(true)
                .open(&input)
                .unwrap();
            expect_refused(args, Stdio::null(), Stdio::from(append), "stdout >> input");
            for (write, _, write_stdio) in &writes {
                if !write_stdio || write == read {
                    continue;
                }
                reset();
                let dash = Path::new("-");
                let args = fills.fill(command, line, &[(read, &input), (write, dash)]);
                let rw = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&input)
                    .unwrap();
                expect_refused(args, Stdio::null(), Stdio::from(rw), "- 1<> input");
            }
            // Standard input redirected from a file that an output names.
            if *read_stdio {
                for (write, _, _) in writes.iter().filter(|(w, ..)| w != read) {
                    reset();
                    let dash = Path::new("-");
                    let args = fills.fill(command, line, &[(read, dash), (write, &input)]);
                    let from = std::fs::File::open(&input).unwrap();
                    expect_refused(
                        args,
                        Stdio::from(from),
                        Stdio::null(),
                        "output = stdin's file",
                    );
                }
            }
        }
    }
    assert!(checked > 30, "only {checked} cases");
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `-` is standard input, read once: named twice, by one argument or two, it is refused.
#[test]
fn standard_input_named_twice_is_refused() {
    let fills = Fills::new();
    let s = fills.default("verify", "FILES", Use::Read);
    let s = s.to_str().unwrap();
    for args in [
        vec!["count", "merge", "-", "-"],
        vec!["verify", "-", "-"],
        vec!["verify", "--base", "-", "-"],
        vec!["convert", "--model", "-", "--base", "-", "out.txt"],
        vec!["info", s, "-", "-"],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains("named more than once"), "{args:?}: {err}");
    }
}

/// The sweep of abandoned temporary files never removes a file it did not make: an input
/// that carries a name like ours, a file whose name only starts like ours, or the file of
/// a live run in another PID namespace (its owner's PID means nothing here, but it holds
/// the file's lock).
#[test]
fn the_cleanup_removes_only_abandoned_files_of_ours() {
    let d = tempfile::tempdir().unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let host: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let make = |name: &str, content: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, content).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
        p
    };
    let input = make(
        &format!(".nqueens-2@{host}~AbCdEf.partial"),
        "1 5 8 6 3 7 2 4\n",
    );
    let lookalike = make(&format!(".nqueens-3@{host}~my notes.txt"), "mine");
    let live = make(&format!(".nqueens-work-4@{host}~L1ve00"), "a live run's");
    let abandoned = make(&format!(".nqueens-work-5@{host}~Ab4nd0"), "left by kill -9");
    let holder = std::fs::File::open(&live).unwrap();
    holder.try_lock().unwrap();
    let out = d.path().join("out.zst");
    nq(&["convert", input.to_str().unwrap(), out.to_str().unwrap()]).ok();
    assert!(input.exists(), "the input was removed");
    assert!(lookalike.exists() && live.exists());
    assert!(!abandoned.exists(), "an abandoned file of ours stays");
    drop(holder);
}

/// The README's cluster recipe with shards that run for seconds: their records carry
/// seconds printed with up to 17 digits, and must merge as written, and after another
/// JSON tool (Python's) has read and written them again.
#[test]
fn shards_that_run_for_seconds_merge_as_written_and_rewritten() {
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for i in 0..2 {
        let out = nqueens()
            .args([
                "--threads",
                "1",
                "count",
                "16",
                "--shard",
                &format!("{i}/2"),
                "--json",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        let f = d.path().join(format!("s{i}.json"));
        std::fs::write(&f, &out.stdout).unwrap();
        files.push(f);
    }
    let merged = |files: &[PathBuf]| {
        let mut args = vec!["count".to_string(), "merge".into()];
        args.extend(files.iter().map(|f| f.to_str().unwrap().to_string()));
        let out = nqueens().args(&args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = merged(&files);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("placements: 14772512"), "{out}");
    // Rewritten by another JSON library (Python's): keys reordered, spacing changed,
    // floats as it prints them.
    let rewritten: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            let g = f.with_extension("rewritten.json");
            let status = Command::new("python3")
                .args([
                    "-c",
                    "import json,sys; r=json.load(open(sys.argv[1])); open(sys.argv[2],'w').write(json.dumps(r, sort_keys=True, indent=None, separators=(', ', ': ')))",
                    f.to_str().unwrap(),
                    g.to_str().unwrap(),
                ])
                .status()
                .expect("python3");
            assert!(status.success());
            g
        })
        .collect();
    let (code, out, err) = merged(&rewritten);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("placements: 14772512"), "{out}");
    // An empty input, or one of blank lines, is not a shard.
    for content in ["", "\n\n  \n"] {
        let empty = d.path().join("empty.json");
        std::fs::write(&empty, content).unwrap();
        let (code, _, err) = merged(&[files[0].clone(), files[1].clone(), empty]);
        assert_eq!(code, Some(2));
        assert!(err.contains("holds no result of `count --json`"), "{err}");
    }
}

/// A checkpoint edited and sealed with a new checksum passes the checksum; its sum is
/// still checked against the published total, on reading and when the count finishes.
#[test]
fn a_resealed_checkpoint_with_a_wrong_sum_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let ck = d.path().join("c.json");
    let ck_s = ck.to_str().unwrap();
    nq(&["count", "12", "--checkpoint", ck_s]).ok();
    let text = std::fs::read_to_string(&ck).unwrap();
    let reseal = |text: &str| {
        let body = &text[..text.rfind(",\"xxh3\":").unwrap()];
        let sum = twox_hash::XxHash3_64::oneshot(body.as_bytes());
        std::fs::write(&ck, format!("{body},\"xxh3\":\"{sum:016x}\"}}\n")).unwrap();
    };
    // Every item done, one placement more than Q(12) = 14200.
    reseal(&text.replace("\"sum\":\"14200\"", "\"sum\":\"14201\""));
    let (code, out, err) = run(&["count", "12", "--checkpoint", ck_s]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("the whole count of n = 12 is 14200"), "{err}");
    // Half the items undone and the sum lowered: plausible on reading, wrong at the end.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let done = v["done"].as_str().unwrap();
    let half = format!(
        "{}{}",
        &done[..done.len() / 2],
        "0".repeat(done.len() - done.len() / 2)
    );
    let counted: u32 = half
        .as_bytes()
        .chunks(16)
        .map(|w| {
            u64::from_str_radix(std::str::from_utf8(w).unwrap(), 16)
                .unwrap()
                .count_ones()
        })
        .sum();
    let edited = text
        .replace(done, &half)
        .replace(
            &format!("\"counted\":{}", v["counted"]),
            &format!("\"counted\":{counted}"),
        )
        .replace("\"sum\":\"14200\"", "\"sum\":\"1\"");
    reseal(&edited);
    let (code, out, err) = run(&["count", "12", "--checkpoint", ck_s]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.starts_with(&format!("nqueens: {ck_s}: ")) && err.contains("was edited"),
        "{err}"
    );
    assert!(!out.contains("placements"), "no total printed: {out}");
}

/// A shard edited and sealed with a new digest passes the digest; the merged total is
/// still checked against the published one.
#[test]
fn a_resealed_shard_with_a_wrong_count_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for i in 0..2 {
        let out = nqueens()
            .args(["count", "10", "--shard", &format!("{i}/2"), "--json"])
            .output()
            .unwrap();
        let f = d.path().join(format!("s{i}.json"));
        std::fs::write(&f, &out.stdout).unwrap();
        files.push(f);
    }
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let r: nqueens::json::CountRecord = serde_json::from_str(text.trim()).unwrap();
    let placements = (r.placements.parse::<u64>().unwrap() + 1).to_string();
    let forged = nqueens::json::CountRecord {
        placements,
        digest: None,
        ..r
    }
    .sealed();
    std::fs::write(&files[1], serde_json::to_string(&forged).unwrap()).unwrap();
    let (code, out, err) = run(&[
        "count",
        "merge",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("add up to 725 placements, but the count of 10 queens is 724"),
        "{err}"
    );
}

/// Every output given a named pipe that no process reads ends with exit 2 and one line
/// naming it, within seconds (it once blocked forever); given `/dev/stdout` redirected
/// with `>>` into a file, it is written into that file after what it held, never renamed
/// over it.
#[test]
fn every_write_channel_handles_a_pipe_without_reader_and_stdout_by_name() {
    let all = channels();
    let fills = Fills::new();
    let pipe = fills.dir.path().join("no-reader");
    let c = std::ffi::CString::new(pipe.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let writes: Vec<(&str, &str, String, bool)> = TEMPLATES
        .iter()
        .flat_map(|(command, line)| {
            keys(command, line, &all)
                .into_iter()
                .filter(|(_, how, _)| *how == Use::Write)
                .map(|(key, _, stdio)| (*command, *line, key, stdio))
        })
        .collect();
    assert!(writes.len() >= 10, "only {} cases", writes.len());
    // Each waits 5 s for a reader: side by side.
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for (command, line, key, _) in &writes {
            let (fills, pipe, failures) = (&fills, &pipe, &failures);
            scope.spawn(move || {
                let args = fills.fill(command, line, &[(key, pipe)]);
                let (code, err) =
                    run_limited(&args, Stdio::null(), Stdio::null(), Duration::from_secs(30));
                let shown = pipe.to_str().unwrap();
                if code != Some(2) || err.lines().count() != 1 || !err.contains(shown) {
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{args:?}: exit {code:?}: {err}"));
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    for (command, line, key, stdio) in &writes {
        if !stdio {
            continue;
        }
        let log = fills.dir.path().join("log.txt");
        std::fs::write(&log, "first line\n").unwrap();
        let append = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let args = fills.fill(command, line, &[(key, Path::new("/dev/stdout"))]);
        let (code, err) = run_limited(
            &args,
            Stdio::null(),
            Stdio::from(append),
            Duration::from_secs(30),
        );
        let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
        if code != Some(0) || !text.starts_with("first line\n") || text.len() <= 11 {
            failures.push(format!(
                "{args:?} >> log: exit {code:?}: {err}; log {:?}",
                &text[..text.len().min(60)]
            ));
        }
        // Leave no output behind for the next case.
        for (key, how, _) in keys(command, line, &all) {
            if how == Use::Write {
                let p = fills.default(command, &key, how);
                let _ = std::fs::remove_file(&p);
                let _ = std::fs::remove_file(p.with_extension("cnf"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A board whose work file cannot be mapped under the address-space limit (n = 2^28: a
/// 1 GiB file, the limit 1 GiB) is refused as that, not as "cannot write" the input.
#[test]
fn a_work_file_beyond_the_address_space_is_said_to_be_that() {
    let dir = tempfile::tempdir().unwrap();
    let param = dir.path().join("big.param");
    std::fs::write(&param, "letting n = 268435456\nletting init = [[0,1]]\n").unwrap();
    let (out, trace, plot) = (
        dir.path().join("out.nqb"),
        dir.path().join("t.csv"),
        dir.path().join("p.svg"),
    );
    // The trace and plot of a run that failed are not written either.
    let args: Vec<String> = [
        "complete",
        param.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    let (code, err) = run_limited(&args, Stdio::null(), Stdio::null(), Duration::from_secs(60));
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot map the board's work file"), "{err}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

/// Every channel given a path that names a descriptor of the process that is not open
/// (`/dev/fd/9` without `9>FILE`): refused before anything is opened, with exit 2 and one
/// line naming it. Opened later, it named the command's own first temporary file: the
/// output went into it, was removed with it, and the command exited 0.
#[test]
fn every_channel_refuses_a_descriptor_that_is_not_open() {
    let all = channels();
    let fills = Fills::new();
    let mut failures = Vec::new();
    let mut cases = 0;
    for (command, line) in TEMPLATES {
        for (key, how, _) in keys(command, line, &all) {
            if how == Use::Dir {
                continue;
            }
            for closed in ["/dev/fd/9", "/proc/self/fd/9", "/dev/fd//9", "/dev/./fd/9"] {
                cases += 1;
                let args = fills.fill(command, line, &[(&key, Path::new(closed))]);
                // Standard streams only: the child holds no descriptor 9.
                let (code, err) =
                    run_limited(&args, Stdio::null(), Stdio::null(), Duration::from_secs(30));
                // Refused as a descriptor, or for what the channel needs (a named file).
                if code != Some(2) || err.lines().count() != 1 || !err.contains(closed) {
                    failures.push(format!("{args:?}: exit {code:?}: {err}"));
                }
            }
        }
    }
    assert!(cases >= 40, "only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Two outputs naming one new file through a bind mount of its directory: the same file
/// (the directory's device and inode), refused.
#[test]
#[ignore = "bind-mounts a directory: needs root (tools/test.sh runs it as root)"]
fn two_outputs_through_a_bind_mount_are_one_file() {
    let d = tempfile::tempdir().unwrap();
    let (src, mnt) = (d.path().join("src"), d.path().join("mnt"));
    std::fs::create_dir(&src).unwrap();
    std::fs::create_dir(&mnt).unwrap();
    let ok = Command::new("mount")
        .args(["--bind", src.to_str().unwrap(), mnt.to_str().unwrap()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mount --bind failed: this test needs root");
    let input = src.join("in.txt");
    std::fs::write(&input, "0 0 0 0 0 0 0 0\n").unwrap();
    let (code, _, err) = run(&[
        "complete",
        input.to_str().unwrap(),
        "-o",
        src.join("o.txt").to_str().unwrap(),
        "--trace",
        mnt.join("o.txt").to_str().unwrap(),
    ]);
    let _ = Command::new("umount").arg(&mnt).status();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("names the same file as"), "{err}");
}

/// Standard error redirected into a file a command reads (`2>> in.txt`): every command,
/// every channel it reads, refuses with exit 2 before it prints anything (any message
/// would land in the input), also when its command line does not parse.
#[test]
fn standard_error_into_an_input_is_refused_before_anything_is_written() {
    let fills = Fills::new();
    let all = channels();
    let mut tried = 0;
    for (command, line) in TEMPLATES {
        for (key, how, _) in keys(command, line, &all) {
            if !matches!(how, Use::Read | Use::ReadWrite) {
                continue;
            }
            let input = fills.dir.path().join(format!("stderr-input-{tried}"));
            let content = match how {
                Use::ReadWrite => b"not a checkpoint\n".to_vec(),
                _ => std::fs::read(fills.default(command, &key, how)).unwrap(),
            };
            std::fs::write(&input, &content).unwrap();
            let words = fills.fill(command, line, &[(key.as_str(), &input)]);
            for extra in [None, Some("--no-such-flag")] {
                let stderr = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&input)
                    .unwrap();
                let out = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
                    .args(&words)
                    .args(extra)
                    .current_dir(fills.dir.path())
                    .stdout(Stdio::null())
                    .stderr(stderr)
                    .status()
                    .unwrap();
                assert_eq!(out.code(), Some(2), "{words:?} {extra:?}");
                assert_eq!(
                    std::fs::read(&input).unwrap(),
                    content,
                    "{words:?} {extra:?}: the input was written into"
                );
            }
            tried += 1;
        }
    }
    assert!(tried >= 10, "only {tried} read channels");
    // The lone file of `convert IN` (OUT missing) counts as an input too.
    let input = fills.dir.path().join("lone.txt");
    std::fs::write(&input, "1 5 8 6 3 7 2 4\n").unwrap();
    let stderr = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["convert", input.to_str().unwrap()])
        .stderr(stderr)
        .status()
        .unwrap();
    assert_eq!(out.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), b"1 5 8 6 3 7 2 4\n");
}

/// With `--json`, standard output holds the records: every channel a command with `--json`
/// writes, named `-` or `/dev/stdout`, is refused (exit 2, one line) before anything is
/// written, where without `--json` it is accepted.
#[test]
fn with_json_no_output_may_be_standard_output() {
    let all = channels();
    let fills = Fills::new();
    let mut failures = Vec::new();
    let mut cases = 0;
    for (command, line) in TEMPLATES {
        let (code, help, _) =
            run(&[command.split(' ').collect::<Vec<_>>(), vec!["--help"]].concat());
        assert_eq!(code, 0, "{command} --help");
        if !help.contains("--json") {
            continue;
        }
        for (key, how, stdio) in keys(command, line, &all) {
            if how != Use::Write || !stdio {
                continue;
            }
            for name in ["-", "/dev/stdout"] {
                cases += 1;
                let mut args = fills.fill(command, line, &[(&key, Path::new(name))]);
                args.push("--json".into());
                let (code, err) =
                    run_limited(&args, Stdio::null(), Stdio::null(), Duration::from_secs(30));
                if code != Some(2) || err.lines().count() != 1 || !err.contains("--json") {
                    failures.push(format!("{args:?}: exit {code:?}: {err}"));
                }
            }
        }
    }
    assert!(cases >= 6, "only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
