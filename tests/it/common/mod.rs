//! Helpers shared by the integration tests.
#![allow(dead_code)]

#[path = "../../../src/oracle.rs"]
pub mod oracle;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The `nqueens` binary under test.
pub fn nqueens() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

/// A committed fixture.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Runs nqueens, returning (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    run_env(&[], args)
}

/// Runs nqueens with environment variables set, returning (exit code, stdout, stderr).
pub fn run_env(vars: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let out = nqueens()
        .envs(vars.iter().copied())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().expect("exited normally, not by a signal"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A command line of the binary under test, built up and then run: `nq(["verify", f])
/// .code(0)` runs it and asserts its exit code, naming both streams when it differs.
pub struct Nq {
    cmd: Command,
    shown: String,
}

/// What a run of [`Nq`] printed.
#[derive(Debug)]
pub struct Out {
    /// The exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// The command line `nqueens ARGS...`.
pub fn nq(args: &[&str]) -> Nq {
    let mut cmd = nqueens();
    cmd.args(args);
    Nq {
        cmd,
        shown: args.join(" "),
    }
}

impl Nq {
    /// With an environment variable set.
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Nq {
        self.cmd.env(key, value);
        self
    }

    /// Run in `dir`.
    pub fn current_dir(mut self, dir: &Path) -> Nq {
        self.cmd.current_dir(dir);
        self
    }

    /// With these bytes on standard input.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Nq {
        self.cmd.write_stdin(bytes);
        self
    }

    /// Runs it, whatever its exit code.
    pub fn output(mut self) -> Out {
        let out = self.cmd.output().unwrap();
        Out {
            code: out.status.code().expect("exited normally, not by a signal"),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }

    /// Runs it and asserts its exit code.
    #[track_caller]
    pub fn code(self, expected: i32) -> Out {
        let shown = self.shown.clone();
        let out = self.output();
        assert_eq!(
            out.code, expected,
            "nqueens {shown}\n--- stdout:\n{}--- stderr:\n{}",
            out.stdout, out.stderr
        );
        out
    }

    /// Runs it and asserts success.
    #[track_caller]
    pub fn ok(self) -> Out {
        self.code(0)
    }
}

/// Writes the constructed solution of size `n` to `path`; returns the path.
#[track_caller]
pub fn constructed(path: &str, n: &str) -> String {
    nq(&["generate", "solution", "--n", n, "-o", path]).ok();
    path.to_string()
}

/// Runs `generate composition --from FROM ARGS -o OUT`, which must succeed; returns its
/// standard error (what it cleared and moved).
#[track_caller]
pub fn compose(from: &str, args: &[&str], out: &str) -> String {
    let mut all = vec!["generate", "composition", "--from", from];
    all.extend_from_slice(args);
    all.extend(["-o", out]);
    nq(&all).ok().stderr
}

/// The file names in a directory, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Writes a raw NQB file by hand from `rows`, independently of the library's writer.
pub fn write_raw_nqb(path: &Path, n: u64, rows: &[u32]) {
    let payload: Vec<u8> = rows.iter().flat_map(|v| v.to_le_bytes()).collect();
    let k = rows.iter().filter(|&&v| v != 0).count() as u64;
    let header = nqueens::format::Header {
        n,
        k,
        payload_checksum: nqueens::format::nqb::payload_checksum(&payload),
    };
    let mut bytes = header.to_bytes().to_vec();
    bytes.extend_from_slice(&payload);
    std::fs::write(path, bytes).unwrap();
}

/// Recomputes the header checksum after a test edited header bytes.
pub fn reseal_header(bytes: &mut [u8]) {
    let h = twox_hash::XxHash3_64::oneshot(&bytes[..56]);
    bytes[56..64].copy_from_slice(&h.to_le_bytes());
}

/// Starts nqueens with `args` in `dir`, sends SIGTERM after `after`, returns its exit code
/// (the process must exit by itself, not be killed by the signal).
#[cfg(unix)]
pub fn terminated(dir: &Path, args: &[&str], after: std::time::Duration) -> i32 {
    terminated_env(dir, &[], args, after)
}

/// [`terminated`] with environment variables set.
#[cfg(unix)]
pub fn terminated_env(
    dir: &Path,
    vars: &[(&str, &str)],
    args: &[&str],
    after: std::time::Duration,
) -> i32 {
    let child = spawn_quiet(dir, vars, args);
    std::thread::sleep(after);
    terminate(child)
}

/// The binary started in `dir`, its output discarded.
fn spawn_quiet(dir: &Path, vars: &[(&str, &str)], args: &[&str]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .envs(vars.iter().copied())
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Sends `child` SIGTERM; its exit code (it must exit by itself, not be killed by the
/// signal).
fn terminate(mut child: std::process::Child) -> i32 {
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child
        .wait()
        .unwrap()
        .code()
        .expect("exited by itself, not killed by the signal")
}

/// Runs the binary in `dir` and sends it SIGTERM as soon as the checkpoint file `saved`
/// (relative to `dir`) records some counted items; its exit code (0 when it finished
/// first). Waits on the work, not on the clock, so a loaded machine cannot make the stop
/// land too early or too late.
pub fn terminated_once_saved(dir: &Path, vars: &[(&str, &str)], args: &[&str], saved: &str) -> i32 {
    let mut child = spawn_quiet(dir, vars, args);
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().expect("exited by itself");
        }
        let text = std::fs::read_to_string(dir.join(saved)).unwrap_or_default();
        if text.starts_with("{\"counted\":") && !text.starts_with("{\"counted\":0,") {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 120,
            "no checkpoint within 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    terminate(child)
}

/// A new pseudo-terminal: (master, slave). A child given the slave as a stream sees a
/// terminal there.
pub fn pty() -> (std::fs::File, std::fs::File) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors into the given integers; the other arguments
    // may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty failed");
    // SAFETY: both descriptors were just opened and are owned here alone.
    unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    }
}

/// How a child run by [`run_bounded`] ended.
pub struct Bounded {
    /// Its exit code; `None` when a signal ended it (or it was killed for taking too long).
    pub code: Option<i32>,
    /// Standard output and error.
    pub stdout: String,
    pub stderr: String,
    /// The child's own peak resident memory in KiB (see [`run_bounded`]).
    pub peak_kib: i64,
    /// Whether it was still running after the allowed time and was killed.
    pub killed: bool,
}

/// The peak resident memory (`VmHWM`, KiB) of process `pid`, if it still runs.
fn peak_of(pid: u32) -> Option<i64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs the binary with `args` (and environment `vars`), killing it if it still runs after
/// `limit`: a generous bound that catches a hang (a quadratic reader), never a timing.
///
/// Its peak memory is its own: `VmHWM` read every few milliseconds while it runs. Not
/// `wait4`'s `ru_maxrss`, which also holds the peak of the memory it was started from:
/// exec records the old address space's peak, and a child spawned by vfork shares this
/// test process's, which other tests' inputs made 320 MB.
pub fn run_bounded(args: &[&str], vars: &[(&str, &str)], limit: std::time::Duration) -> Bounded {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .envs(vars.iter().copied())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    // `spawn` returns once the child has exec'd: what /proc shows is the binary's own.
    let started = std::time::Instant::now();
    let mut peak = 0;
    let mut killed = false;
    let status = loop {
        if let Some(p) = peak_of(child.id()) {
            peak = peak.max(p);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit && !killed {
            child.kill().unwrap();
            killed = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let read =
        |p: &std::path::Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    Bounded {
        code: status.code(),
        stdout: read(&out),
        stderr: read(&err),
        peak_kib: peak,
        killed,
    }
}

/// A bash script run in `dir` with the binary under test first on PATH (after `dir/bin`,
/// where a test may put stand-ins such as `sbatch`): its exit code, standard output and
/// standard error. What the README's recipes and the `rerun:` lines of `count merge` are
/// run with.
pub fn shell(dir: &Path, script: &str, env: &[(&str, &str)]) -> (i32, String, String) {
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let path = format!(
        "{}:{}:{}",
        dir.join("bin").display(),
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
