//! `nqueens._native`: the library's entry points for Python, over NumPy arrays.
//!
//! The package `nqueens` (python/nqueens/__init__.py) wraps these functions in typed,
//! documented ones; this module converts arrays and errors, releases the GIL while the
//! library works, and stops long runs on Ctrl-C. Every answer comes from the library: no
//! logic of its own beyond argument checks and conversions.

use nqueens::complete::{Answer, Board, Certificate, Options, complete_board};
use nqueens::count::{CountError, Kind, Piece, Problem, Rules, Shard, count_until};
use nqueens::format::{
    Encoding, ErrorKind, FormatError, IndexBase, Input, MatLayout, OpenOptions, OutputFormat,
    RowWriter,
};
use nqueens::generate::{Clearing, Direction, GenerateError, Region, Shape, Source};
use nqueens::verify::{Report, Requirements, Verdict};
use numpy::{PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray};
use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyMemoryError, PyOSError, PyOverflowError,
    PyPermissionError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// Errors

/// A library file error as the Python exception a caller expects: `FileNotFoundError`,
/// `PermissionError`, `IsADirectoryError` or else `OSError` (`ValueError` for two boards of
/// different sizes), with the library's one line.
fn file_error(e: FormatError) -> PyErr {
    let msg = pythonic(e.to_string());
    let io = match &e.problem {
        ErrorKind::Open(io) | ErrorKind::Read(io) | ErrorKind::Write(io) => Some(io.kind()),
        ErrorKind::Directory => return PyIsADirectoryError::new_err(msg),
        ErrorKind::WorkMap { .. } => return PyMemoryError::new_err(msg),
        // Two boards that must agree and do not, or `zero_based` for a format that numbers
        // its own columns: the arguments, not a file, are wrong.
        ErrorKind::Mismatch(_) | ErrorKind::ZeroBasedRefused(_) => {
            return PyValueError::new_err(msg);
        }
        _ => None,
    };
    match io {
        Some(std::io::ErrorKind::NotFound) => PyFileNotFoundError::new_err(msg),
        Some(std::io::ErrorKind::PermissionDenied) => PyPermissionError::new_err(msg),
        Some(std::io::ErrorKind::IsADirectory) => PyIsADirectoryError::new_err(msg),
        _ => PyOSError::new_err(msg),
    }
}

fn generate_error(e: GenerateError) -> PyErr {
    match e {
        GenerateError::Format(f) => file_error(f),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn count_error(e: CountError) -> PyErr {
    PyValueError::new_err(pythonic(e.to_string()))
}

/// Room for `bytes` more of memory, asked before a call that needs about that much, as a
/// `MemoryError` naming `what` when the system refuses it. An allocation that fails inside
/// the library ends the process (Rust aborts; unwinding out of an allocator is undefined),
/// so the large ones are asked for first: the memory is reserved and given back at once,
/// which fails where a limit (`ulimit -v`, `RLIMIT_AS`) or the machine cannot give it.
/// A probe, not a guarantee: memory taken by others in between is not counted.
fn room_for(what: &str, bytes: u64) -> PyResult<()> {
    let mut probe: Vec<u8> = Vec::new();
    usize::try_from(bytes)
        .ok()
        .and_then(|b| probe.try_reserve_exact(b).ok())
        .ok_or_else(|| {
            PyMemoryError::new_err(format!(
                "{what}: cannot allocate the {bytes} bytes of memory it needs"
            ))
        })
}

/// What a run over a board of `n` rows allocates at most, about: its rows twice (the
/// input's copy and the answer) and the line bitmaps, one set per thread.
fn board_bytes(n: u64) -> u64 {
    let sets = rayon::current_num_threads().max(1) as u64;
    n.saturating_mul(8)
        .saturating_add(n.saturating_mul(5).div_ceil(8).saturating_mul(sets))
}

/// A `Vec` of room for `n` values, or a `MemoryError` naming `what`.
fn vec_for<T>(what: &str, n: usize) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        PyMemoryError::new_err(format!("{what}: cannot allocate memory for {n} values"))
    })?;
    Ok(v)
}

/// The library's one line with the command line's options named as this module's
/// arguments (the library says what to do in the command line's words).
fn pythonic(msg: String) -> String {
    const WORDS: [(&str, &str); 3] = [
        ("name one with --var", "name one with var="),
        ("--zero-based applies", "zero_based=True applies"),
        (
            "preplace queens (--place, --from) or find one placement (--first)",
            "preplace queens (place=)",
        ),
    ];
    WORDS.iter().fold(msg, |m, (cli, py)| m.replace(cli, py))
}

/// The verifier's report on an invalid board as a `ValueError`: its first problem.
fn invalid(report: &Report, what: &str) -> PyErr {
    PyValueError::new_err(format!(
        "{what} is not a valid composition: {}",
        report.first_problem().unwrap_or_else(|| "invalid".into())
    ))
}

// ---------------------------------------------------------------------------------------
// Arrays in and out

/// The integer dtypes a board may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dtype {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
}

/// Runs `$body` with `$t` the Rust type of `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            Dtype::U8 => {
                type $t = u8;
                $body
            }
            Dtype::U16 => {
                type $t = u16;
                $body
            }
            Dtype::U32 => {
                type $t = u32;
                $body
            }
            Dtype::U64 => {
                type $t = u64;
                $body
            }
            Dtype::I8 => {
                type $t = i8;
                $body
            }
            Dtype::I16 => {
                type $t = i16;
                $body
            }
            Dtype::I32 => {
                type $t = i32;
                $body
            }
            Dtype::I64 => {
                type $t = i64;
                $body
            }
        }
    };
}

impl Dtype {
    const ALL: [Dtype; 8] = [
        Dtype::U32,
        Dtype::I64,
        Dtype::U64,
        Dtype::I32,
        Dtype::U16,
        Dtype::I16,
        Dtype::U8,
        Dtype::I8,
    ];

    /// The dtype of `arr`, when it is one of ours (native byte order).
    fn of(arr: &Bound<'_, PyUntypedArray>) -> Option<Dtype> {
        let py = arr.py();
        let d = arr.dtype();
        Dtype::ALL
            .into_iter()
            .find(|t| with_dtype!(*t, T => d.is_equiv_to(&numpy::dtype::<T>(py))))
    }
}

/// A board value of the caller's convention as a 1-based row value, or why not.
fn to_row(v: i128, zero_based: bool) -> Result<u32, String> {
    let one = match (zero_based, v) {
        (true, -1) => 0,
        (true, v) if v < 0 => {
            return Err(format!(
                "value {v} is negative (0-based: -1 marks an empty row)"
            ));
        }
        (true, v) => v + 1,
        (false, v) if v < 0 => {
            return Err(format!(
                "value {v} is negative (1-based: 0 marks an empty row)"
            ));
        }
        (false, v) => v,
    };
    u32::try_from(one).map_err(|_| format!("value {v} is not a column number"))
}

/// A 1-based row value in the caller's convention.
fn from_row(v: u32, zero_based: bool) -> i128 {
    match (zero_based, v) {
        (true, 0) => -1,
        (true, v) => v as i128 - 1,
        (false, v) => v as i128,
    }
}

/// The rows of a board given as an array: borrowed from a C-contiguous `uint32` 1-based
/// array, else converted.
enum Rows<'py> {
    Borrowed(PyReadonlyArrayDyn<'py, u32>),
    Owned(Vec<u32>),
}

/// A board from Python: its rows (1-based) and what its array looked like, so that
/// answers come back alike.
struct BoardIn<'py> {
    rows: Rows<'py>,
    dtype: Dtype,
    shape: Vec<usize>,
    zero_based: bool,
}

impl BoardIn<'_> {
    fn rows(&self) -> &[u32] {
        match &self.rows {
            Rows::Borrowed(a) => a.as_slice().expect("checked contiguous"),
            Rows::Owned(v) => v,
        }
    }

    fn n(&self) -> u64 {
        self.rows().len() as u64
    }

    /// Refuses a board whose answers its dtype cannot hold: every column 1..=n (or
    /// 0..n-1), before any work is done.
    fn check_holds_columns(&self, empty_rows: bool) -> PyResult<()> {
        let n = self.n();
        let (low, high): (i128, i128) = match self.zero_based {
            true => (if empty_rows { -1 } else { 0 }, n as i128 - 1),
            false => (0, n as i128),
        };
        let fits =
            with_dtype!(self.dtype, T => T::try_from(low).is_ok() && T::try_from(high).is_ok());
        if !fits {
            return Err(PyOverflowError::new_err(format!(
                "a board of n = {n} has values {low}..={high}, which dtype {} cannot hold",
                dtype_name(self.dtype)
            )));
        }
        Ok(())
    }

    /// `rows` (1-based) as an array of this board's dtype, shape and index base.
    fn like<'py>(&self, py: Python<'py>, rows: Vec<u32>) -> PyResult<Bound<'py, PyAny>> {
        array_like(py, rows, self.dtype, &self.shape, self.zero_based)
    }
}

fn dtype_name(d: Dtype) -> &'static str {
    match d {
        Dtype::U8 => "uint8",
        Dtype::U16 => "uint16",
        Dtype::U32 => "uint32",
        Dtype::U64 => "uint64",
        Dtype::I8 => "int8",
        Dtype::I16 => "int16",
        Dtype::I32 => "int32",
        Dtype::I64 => "int64",
    }
}

/// `rows` (1-based) as an array of `dtype` and `shape`, 0-based when asked.
fn array_like<'py>(
    py: Python<'py>,
    rows: Vec<u32>,
    dtype: Dtype,
    shape: &[usize],
    zero_based: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let flat = if dtype == Dtype::U32 && !zero_based {
        PyArray1::from_vec(py, rows).into_any()
    } else {
        with_dtype!(dtype, T => {
            let mut out: Vec<T> = vec_for("the answer", rows.len())?;
            for (i, &v) in rows.iter().enumerate() {
                let x = from_row(v, zero_based);
                out.push(T::try_from(x).map_err(|_| {
                    PyOverflowError::new_err(format!(
                        "row {}: value {x} does not fit dtype {}",
                        i + 1,
                        dtype_name(dtype)
                    ))
                })?);
            }
            PyArray1::from_vec(py, out).into_any()
        })
    };
    if shape.len() == 1 {
        return Ok(flat);
    }
    flat.call_method1("reshape", (shape.to_vec(),))
}

/// Boards of at least this many rows are borrowed rather than copied when they can be. A
/// borrow is checked by rust-numpy against every borrow held of the same array, so
/// `complete_many` of the rows of one 2-D array, borrowed, was quadratic: 10,000 boards of
/// 100 rows spent 37 % of their time there (BENCHMARKS.md, "Python package"). Below this, a
/// copy costs less than the check would for a few boards.
const BORROW_MIN_ROWS: usize = 1 << 16;

/// Reads a board from any array-like of integers: 1-D, (1, n) or (n, 1), any integer
/// dtype, any order. A C-contiguous `uint32` array of 1-based values of at least
/// [`BORROW_MIN_ROWS`] rows is borrowed, not copied.
fn board_in<'py>(q: &Bound<'py, PyAny>, zero_based: bool, what: &str) -> PyResult<BoardIn<'py>> {
    let py = q.py();
    let np = py.import("numpy")?;
    let arr = match q.cast::<PyUntypedArray>() {
        Ok(a) => a.clone(),
        Err(_) => np
            .call_method1("asarray", (q,))?
            .cast_into::<PyUntypedArray>()
            .map_err(|e| PyTypeError::new_err(e.to_string()))?,
    };
    let kind = arr.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected an array of integers, got dtype {}",
            arr.dtype()
        )));
    }
    // Integers in the other byte order: the same values in this machine's.
    let arr = match Dtype::of(&arr) {
        Some(_) => arr,
        None => arr
            .call_method1(
                "astype",
                (arr.dtype().call_method1("newbyteorder", ("=",))?,),
            )?
            .cast_into::<PyUntypedArray>()
            .map_err(|e| PyTypeError::new_err(e.to_string()))?,
    };
    let dtype = Dtype::of(&arr).ok_or_else(|| {
        PyTypeError::new_err(format!("{what}: unsupported dtype {}", arr.dtype()))
    })?;
    let shape = arr.shape().to_vec();
    let n = match shape[..] {
        [n] => n,
        [1, n] | [n, 1] => n,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{what}: expected a vector of shape (n,), (1, n) or (n, 1), got shape {shape:?}"
            )));
        }
    };
    if n == 0 {
        return Err(PyValueError::new_err(format!(
            "{what}: an empty array is no board (n must be at least 1)"
        )));
    }
    let rows = with_dtype!(dtype, T => {
        let typed = arr.cast::<PyArrayDyn<T>>().map_err(|e| PyTypeError::new_err(e.to_string()))?;
        let ro = typed.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))?;
        if dtype == Dtype::U32 && !zero_based && n >= BORROW_MIN_ROWS && ro.as_slice().is_ok() {
            let ro: PyReadonlyArrayDyn<'py, u32> = arr
                .cast::<PyArrayDyn<u32>>()
                .map_err(|e| PyTypeError::new_err(e.to_string()))?
                .try_readonly()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Rows::Borrowed(ro)
        } else {
            let mut out = vec_for(what, n)?;
            for (i, &v) in ro.as_array().iter().enumerate() {
                out.push(to_row(v as i128, zero_based).map_err(|why| {
                    PyValueError::new_err(format!("{what}: row {}: {why}", i + 1))
                })?);
            }
            Rows::Owned(out)
        }
    });
    Ok(BoardIn {
        rows,
        dtype,
        shape,
        zero_based,
    })
}

/// A board or a file: paths (`str`, `os.PathLike`) are read by the library.
enum Given<'py> {
    Path(PathBuf),
    Array(BoardIn<'py>),
}

fn given<'py>(q: &Bound<'py, PyAny>, zero_based: bool, what: &str) -> PyResult<Given<'py>> {
    if q.cast::<pyo3::types::PyString>().is_ok() || q.hasattr("__fspath__")? {
        return Ok(Given::Path(q.extract()?));
    }
    Ok(Given::Array(board_in(q, zero_based, what)?))
}

fn open(path: &Path, var: Option<String>, diags: Option<u64>, zero_based: bool) -> PyResult<Input> {
    let opts = OpenOptions {
        var,
        diags,
        index_base: if zero_based {
            IndexBase::Zero
        } else {
            IndexBase::One
        },
        ..Default::default()
    };
    Input::open_with(path, &opts).map_err(file_error)
}

fn memory_input(rows: &[u32], name: &str) -> PyResult<Input> {
    Input::from_rows(Path::new(name), "memory", rows).map_err(file_error)
}

// ---------------------------------------------------------------------------------------
// Running with the GIL released, stopped by Ctrl-C

/// A local rayon pool of `threads` threads (None or 0: the global pool, every core).
fn pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
    match threads {
        None | Some(0) => Ok(None),
        Some(t) if t > 4096 => Err(PyValueError::new_err(format!(
            "threads = {t}: at most 4096"
        ))),
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map(Some)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start {t} threads: {e}"))),
    }
}

/// How often the caller's thread looks for signals while the library works.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Waits for `done` with the GIL released, checking for signals every [`SIGNAL_POLL`]:
/// `Err` with the exception of a signal handler that raised (Ctrl-C: `KeyboardInterrupt`).
fn wait_for(py: Python<'_>, done: std::sync::mpsc::Receiver<()>) -> PyResult<()> {
    let mut rx = done;
    loop {
        let (got, back) = py.detach(move || (rx.recv_timeout(SIGNAL_POLL), rx));
        rx = back;
        match got {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            // Done, or the worker panicked (then joining it says so).
            _ => return Ok(()),
        }
    }
}

/// Runs `f` in `pool` when there is one.
fn in_pool<T: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// Runs `work` on a worker thread (in a pool of `threads` when given) with the GIL
/// released, while this thread checks for signals: a signal whose handler raises (Ctrl-C:
/// `KeyboardInterrupt`) raises the flag `work` is given, waits for `work` to return (the
/// engines poll the flag, and `work` may borrow the caller's arrays), and raises that
/// exception.
fn run_stoppable<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    work: impl FnOnce(Arc<AtomicBool>) -> T + Send,
) -> PyResult<T> {
    let pool = pool(threads)?;
    let flag = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
        let worker_flag = flag.clone();
        let pool = pool.as_ref();
        let handle = worker()
            .spawn_scoped(s, move || {
                let out = in_pool(pool, || work(worker_flag));
                let _ = tx.send(());
                out
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        let waited = wait_for(py, rx);
        if waited.is_err() {
            flag.store(true, Ordering::SeqCst);
        }
        let out = py.detach(move || handle.join());
        waited?;
        out.map_err(|panic| std::panic::resume_unwind(panic))
    })
}

/// [`run_stoppable`] for work that owns its data: on a signal it raises at once, leaving
/// the work to stop by itself (a count finishes the work items under way, which take
/// seconds each in the largest counts) and to free its threads then.
fn run_detached<T: Send + 'static>(
    py: Python<'_>,
    threads: Option<usize>,
    work: impl FnOnce(Arc<AtomicBool>) -> T + Send + 'static,
) -> PyResult<T> {
    let pool = pool(threads)?;
    let flag = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
    let worker_flag = flag.clone();
    let handle = worker()
        .spawn(move || {
            let out = in_pool(pool.as_ref(), || work(worker_flag));
            let _ = tx.send(());
            out
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    if let Err(e) = wait_for(py, rx) {
        flag.store(true, Ordering::SeqCst);
        return Err(e);
    }
    py.detach(move || handle.join())
        .map_err(|panic| std::panic::resume_unwind(panic))
}

/// The worker thread of a call.
fn worker() -> std::thread::Builder {
    std::thread::Builder::new()
        .name("nqueens".into())
        // The command line's engines run on a main thread's stack; so do these.
        .stack_size(16 << 20)
}

/// A seed given, or a fresh one.
fn seed_or_random(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(rand::random)
}

fn time_limit(seconds: Option<f64>) -> PyResult<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(t) if !(t > 0.0 && t.is_finite()) => Err(PyValueError::new_err(format!(
            "time_limit = {t}: expected a positive number of seconds"
        ))),
        // Beyond what a Duration holds: no limit in practice.
        Some(t) => Ok(Duration::try_from_secs_f64(t).ok()),
    }
}

// ---------------------------------------------------------------------------------------
// complete

/// What one completion gives Python: status, solution (1-based rows), certificate and
/// statistics as JSON, the reason of an UNKNOWN answer.
struct Done {
    status: &'static str,
    solution: Option<Vec<u32>>,
    certificate: Option<String>,
    stats: String,
    reason: Option<String>,
}

/// The document the command line writes with `--certificate`, less what only a file has
/// (the input's path and the CNF written beside it).
fn certificate_json(cert: &Certificate, n: u64, free_rows: u64) -> String {
    let versions = nqueens::json::Versions::current();
    serde_json::json!({
        "schema_version": versions.schema_version,
        "nqueens_version": versions.nqueens_version,
        "n": n,
        "free_rows": free_rows,
        "certificate": cert,
        "explanation": cert.to_string(),
    })
    .to_string()
}

/// Completes one board; `Err` carries the verifier's report of an invalid board.
fn complete_one(rows: &[u32], opts: &Options) -> Result<Result<Done, Report>, FormatError> {
    Ok(match complete_board(rows, opts)? {
        Board::Invalid(report) => Err(report),
        Board::Ran {
            answer,
            rows,
            stats,
        } => {
            let stats_json = serde_json::to_string(&*stats).expect("records serialize");
            Ok(match answer {
                Answer::Solved => Done {
                    status: "SOLVED",
                    solution: Some(rows),
                    certificate: None,
                    stats: stats_json,
                    reason: None,
                },
                Answer::Infeasible(cert) => Done {
                    status: "INFEASIBLE",
                    solution: None,
                    certificate: Some(certificate_json(&cert, stats.n, stats.free_rows)),
                    stats: stats_json,
                    reason: None,
                },
                Answer::Unknown(stopped) => Done {
                    status: "UNKNOWN",
                    solution: None,
                    certificate: None,
                    stats: stats_json,
                    reason: Some(stopped.to_string()),
                },
            })
        }
    })
}

type DoneTuple<'py> = (
    &'static str,
    Option<Bound<'py, PyAny>>,
    Option<String>,
    String,
    u64,
    Option<String>,
);

fn done_tuple<'py>(
    py: Python<'py>,
    done: Done,
    board: &BoardIn<'py>,
    seed: u64,
) -> PyResult<DoneTuple<'py>> {
    let solution = match done.solution {
        Some(rows) => Some(board.like(py, rows)?),
        None => None,
    };
    Ok((
        done.status,
        solution,
        done.certificate,
        done.stats,
        seed,
        done.reason,
    ))
}

fn options(seed: u64, limit: Option<Duration>, flag: &Arc<AtomicBool>) -> Options {
    Options {
        seed,
        time_limit: limit,
        since: Instant::now(),
        interrupt: flag.clone(),
        closed_forms: true,
    }
}

#[pyfunction]
#[pyo3(signature = (q, seed, time_limit_s, threads, zero_based))]
fn complete<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    seed: Option<u64>,
    time_limit_s: Option<f64>,
    threads: Option<usize>,
    zero_based: bool,
) -> PyResult<DoneTuple<'py>> {
    let board = board_in(q, zero_based, "q")?;
    board.check_holds_columns(false)?;
    room_for("q", board_bytes(board.n()))?;
    let limit = time_limit(time_limit_s)?;
    let seed = seed_or_random(seed);
    let rows = board.rows();
    // Ctrl-C raises the flag and makes `run_stoppable` raise: an answer is never UNKNOWN
    // because of it.
    let result = run_stoppable(py, threads, |flag| {
        complete_one(rows, &options(seed, limit, &flag))
    })?;
    let done = result.map_err(file_error)?.map_err(|r| invalid(&r, "q"))?;
    done_tuple(py, done, &board, seed)
}

#[pyfunction]
#[pyo3(signature = (boards, seed, time_limit_s, threads, zero_based))]
fn complete_many<'py>(
    py: Python<'py>,
    boards: Vec<Bound<'py, PyAny>>,
    seed: Option<u64>,
    time_limit_s: Option<f64>,
    threads: Option<usize>,
    zero_based: bool,
) -> PyResult<Vec<DoneTuple<'py>>> {
    let boards: Vec<BoardIn> = boards
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let b = board_in(q, zero_based, &format!("board {i}"))?;
            b.check_holds_columns(false)?;
            Ok(b)
        })
        .collect::<PyResult<_>>()?;
    if let Some(largest) = boards.iter().map(BoardIn::n).max() {
        room_for("the largest board", board_bytes(largest))?;
    }
    let limit = time_limit(time_limit_s)?;
    let seed = seed_or_random(seed);
    let rows: Vec<&[u32]> = boards.iter().map(BoardIn::rows).collect();
    let results = run_stoppable(py, threads, |flag| {
        use rayon::prelude::*;
        rows.par_iter()
            .map(|rows| {
                // After Ctrl-C, boards not started are left (`run_stoppable` raises).
                if flag.load(Ordering::Relaxed) {
                    return None;
                }
                Some(complete_one(rows, &options(seed, limit, &flag)))
            })
            .collect::<Vec<_>>()
    })?;
    results
        .into_iter()
        .zip(&boards)
        .enumerate()
        .map(|(i, (r, board))| {
            let r = r.expect("every board ran unless interrupted");
            let done = r
                .map_err(file_error)?
                .map_err(|rep| invalid(&rep, &format!("board {i}")))?;
            done_tuple(py, done, board, seed)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// verify

#[pyfunction]
#[pyo3(signature = (q, base, require_complete, zero_based, var))]
fn verify<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    base: Option<&Bound<'py, PyAny>>,
    require_complete: bool,
    zero_based: bool,
    var: Option<String>,
) -> PyResult<(String, Option<String>)> {
    let input = match given(q, zero_based, "q")? {
        Given::Path(p) => open(&p, var.clone(), None, zero_based)?,
        Given::Array(b) => {
            room_for("q", board_bytes(b.n()))?;
            memory_input(b.rows(), "(array)")?
        }
    };
    let base = match base.map(|b| given(b, zero_based, "base")).transpose()? {
        None => None,
        Some(Given::Path(p)) => Some(open(&p, var, None, zero_based)?),
        Some(Given::Array(b)) => Some(memory_input(b.rows(), "(base array)")?),
    };
    let report = run_stoppable(py, None, |_| {
        // The base is read by random access while `q` is checked, so it is checked whole
        // first, checksums included, as `nqueens verify --base` does: a base file whose
        // payload was damaged was used as read (a queen zeroed on disk went unmissed).
        if let Some(b) = &base {
            let checked = nqueens::verify::verify(b, Requirements::default())?;
            if let Some(why) = checked.first_problem() {
                return Ok(Err(why));
            }
        }
        let mut req = Requirements::default();
        if require_complete {
            req = req.require_complete();
        }
        if let Some(b) = &base {
            req = req.keeping(b);
        }
        nqueens::verify::verify(&input, req).map(Ok)
    })?
    .map_err(file_error)?
    .map_err(|why| PyValueError::new_err(format!("base is not a valid composition: {why}")))?;
    let first = match report.verdict {
        Verdict::Solution | Verdict::Composition => None,
        _ => report.first_problem(),
    };
    Ok((
        serde_json::to_string(&report).expect("records serialize"),
        first,
    ))
}

// ---------------------------------------------------------------------------------------
// read and write

/// Reads `path`: `(n, None, identity)` for a raw NQB regular file, whose header (and its
/// checksum) and size the library checked (the caller maps it, and checks that the file it
/// maps has that identity), else `(n, rows, None)`.
#[pyfunction]
#[pyo3(signature = (path, var, diags, zero_based, check))]
fn read<'py>(
    py: Python<'py>,
    path: PathBuf,
    var: Option<String>,
    diags: Option<u64>,
    zero_based: bool,
    check: bool,
) -> PyResult<ReadAnswer<'py>> {
    use std::os::unix::fs::OpenOptionsExt;
    // The file the path names before it is read, by identity, for the caller that maps it
    // after: a file replaced in between (an atomic rename) would otherwise be mapped with
    // the first one's n. Opened without blocking, so that a FIFO is not waited on here.
    let pinned = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&path)
        .and_then(|f| f.metadata())
        .ok()
        .filter(|m| m.is_file());
    let input = run_stoppable(py, None, |_| open_plain(&path, var, diags, zero_based))??;
    let n = input.n();
    if let Some(pinned) = pinned
        && input.encoding() == Some(Encoding::Raw)
    {
        let same = std::fs::metadata(&path).is_ok_and(|now| identity(&now) == identity(&pinned));
        if !same {
            return Err(PyOSError::new_err(format!(
                "{}: the file was replaced while it was read; read it again",
                path.display()
            )));
        }
        if check {
            run_stoppable(py, None, |_| input.check_integrity())?.map_err(file_error)?;
        }
        return Ok((n, None, Some(identity(&pinned))));
    }
    room_for(&path.display().to_string(), n.saturating_mul(4))?;
    let rows = run_stoppable(py, None, |_| input.to_vec())?.map_err(file_error)?;
    Ok((n, Some(PyArray1::from_vec(py, rows).into_any()), None))
}

/// What [`read`] gives: n, the rows unless the caller maps the file, and then the file's
/// identity that the caller checks on the file it maps: device, inode, size, and the
/// modification and change times in nanoseconds (Python's `os.stat_result` fields).
type ReadAnswer<'py> = (
    u64,
    Option<Bound<'py, PyAny>>,
    Option<(u64, u64, u64, i128, i128)>,
);

/// A file's identity as [`ReadAnswer`] gives it: device and inode, and size and times (a
/// file renamed onto the path may get the inode number the replaced one freed).
fn identity(m: &std::fs::Metadata) -> (u64, u64, u64, i128, i128) {
    use std::os::unix::fs::MetadataExt;
    let ns = |s: i64, ns: i64| i128::from(s) * 1_000_000_000 + i128::from(ns);
    (
        m.dev(),
        m.ino(),
        m.size(),
        ns(m.mtime(), m.mtime_nsec()),
        ns(m.ctime(), m.ctime_nsec()),
    )
}

fn open_plain(
    path: &Path,
    var: Option<String>,
    diags: Option<u64>,
    zero_based: bool,
) -> PyResult<Input> {
    open(path, var, diags, zero_based)
}

/// The output format named `name` (None: from the path's extension, as the command line).
fn output_format(name: Option<&str>, path: &Path) -> PyResult<OutputFormat> {
    let frame_rows = nqueens::format::nqb::DEFAULT_FRAME_ROWS;
    Ok(match name {
        None => OutputFormat::from_path(path),
        Some("nqb" | "raw") => OutputFormat::Nqb(Encoding::Raw),
        Some("zstd" | "nqbz") => OutputFormat::Nqb(Encoding::Zstd { frame_rows }),
        Some("text" | "txt") => OutputFormat::Text,
        Some("mat") => OutputFormat::Mat {
            compressed: true,
            layout: MatLayout::default(),
        },
        Some("mat-v6") => OutputFormat::Mat {
            compressed: false,
            layout: MatLayout::default(),
        },
        Some("mat-v73") => OutputFormat::Mat73 {
            layout: MatLayout::default(),
        },
        Some("csplib") => OutputFormat::Csplib,
        Some("npy") => OutputFormat::Npy(nqueens::format::NpyLayout::default()),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "format {other:?}: expected one of nqb, zstd, text, mat, mat-v6, mat-v73, csplib, npy"
            )));
        }
    })
}

#[pyfunction]
#[pyo3(signature = (path, q, format, zero_based))]
fn write<'py>(
    py: Python<'py>,
    path: PathBuf,
    q: &Bound<'py, PyAny>,
    format: Option<String>,
    zero_based: bool,
) -> PyResult<()> {
    let board = board_in(q, zero_based, "q")?;
    // The writers hold the rows encoded whole (borrowed boards were never copied before).
    room_for("q", board.n().saturating_mul(8))?;
    let format = output_format(format.as_deref(), &path)?;
    let rows = board.rows();
    run_stoppable(py, None, |_| -> Result<(), FormatError> {
        RowWriter::all(&path, rows, format)?.commit()
    })?
    .map_err(|e| match e.problem {
        // The board, not the file, is wrong.
        ErrorKind::OffBoard { .. } => PyValueError::new_err(format!("q is not a composition: {e}")),
        _ => file_error(e),
    })
}

// ---------------------------------------------------------------------------------------
// count

fn piece(name: &str) -> PyResult<Piece> {
    Ok(match name {
        "queen" => Piece::Queen,
        "rook" => Piece::Rook,
        "bishop" => Piece::Bishop,
        other => {
            return Err(PyValueError::new_err(format!(
                "piece {other:?}: expected queen, rook or bishop"
            )));
        }
    })
}

fn kind(name: &str) -> PyResult<Kind> {
    Ok(match name {
        "regular" => Kind::Regular,
        "super" => Kind::Super,
        "awesome" => Kind::Awesome,
        other => {
            return Err(PyValueError::new_err(format!(
                "kind {other:?}: expected regular, super or awesome"
            )));
        }
    })
}

/// Counts; the placements (and the distinct ones) as decimal strings, for Python's ints.
#[pyfunction]
#[pyo3(signature = (n, piece_name, kind_name, distinct, place, threads))]
fn count<'py>(
    py: Python<'py>,
    n: u32,
    piece_name: &str,
    kind_name: &str,
    distinct: bool,
    place: Vec<(u64, u64)>,
    threads: Option<usize>,
) -> PyResult<(Vec<u8>, Option<Vec<u8>>)> {
    let rules = Rules::new(piece(piece_name)?, kind(kind_name)?);
    let mut placed = Vec::with_capacity(place.len());
    for (r, c) in place {
        if r == 0 || c == 0 || r > n as u64 || c > n as u64 {
            return Err(PyValueError::new_err(format!(
                "place ({r}, {c}) is off the {n} x {n} board (rows and columns are 1..={n})"
            )));
        }
        placed.push((r as u32 - 1, c as u32 - 1));
    }
    let problem = Problem::new(n, rules, placed).map_err(count_error)?;
    let tally = run_detached(py, threads, move |flag| {
        let stop = nqueens::stop::Stop::new(None, Some(flag));
        count_until(&problem, distinct, Shard::WHOLE, &stop)
    })?
    .map_err(count_error)?;
    // Only Ctrl-C stops a count, and then `run_stoppable` raised.
    let tally = tally.expect("a count is stopped by Ctrl-C alone");
    // Big-endian bytes, not decimal text: Python's `int(text)` refuses more than 4,300
    // digits, and regular rooks count 456,574 digits at n = 100,000.
    Ok((
        tally.count.to_bytes_be(),
        tally.distinct.map(|d| d.to_bytes_be()),
    ))
}

// ---------------------------------------------------------------------------------------
// generate

#[pyfunction]
#[pyo3(signature = (n, source, a, seed, zero_based))]
fn generate_solution<'py>(
    py: Python<'py>,
    n: u64,
    source: &str,
    a: u64,
    seed: Option<u64>,
    zero_based: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let source = match source {
        "construction" => Some(Source::Construction),
        "transposed" => Some(Source::Transposed),
        "mirrored" => Some(Source::Mirrored),
        "linear" => Some(Source::Linear { a }),
        "random" => None,
        other => {
            return Err(PyValueError::new_err(format!(
                "source {other:?}: expected construction, transposed, mirrored, linear or random"
            )));
        }
    };
    if source.is_some() && seed.is_some() {
        return Err(PyValueError::new_err(
            "seed applies to source=\"random\" only: the other sources are fixed",
        ));
    }
    nqueens::generate::check_solvable(n).map_err(generate_error)?;
    room_for(&format!("n = {n}"), board_bytes(n))?;
    let rows = match source {
        Some(source) => run_stoppable(py, None, |_| nqueens::generate::solution_rows(source, n))?
            .map_err(generate_error)?,
        None => {
            // The completion engine on the empty board, as `generate solution --source random`.
            let seed = seed_or_random(seed);
            let empty = vec![0u32; n as usize];
            let done = run_stoppable(py, None, |flag| {
                let mut opts = options(seed, None, &flag);
                opts.closed_forms = false;
                complete_one(&empty, &opts)
            })?;
            let done = done
                .map_err(file_error)?
                .map_err(|r| invalid(&r, "the empty board"))?;
            done.solution
                .ok_or_else(|| PyRuntimeError::new_err(format!("n = {n}: no solution found")))?
        }
    };
    let dtype = if zero_based { Dtype::I64 } else { Dtype::U32 };
    array_like(py, rows, dtype, &[n as usize], zero_based)
}

#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (solution, clear, k, free_count, free_fraction, at, direction, moves, seed, zero_based))]
fn generate_composition<'py>(
    py: Python<'py>,
    solution: &Bound<'py, PyAny>,
    clear: &str,
    k: Option<u64>,
    free_count: Option<u64>,
    free_fraction: Option<f64>,
    at: Option<u64>,
    direction: &str,
    moves: u64,
    seed: Option<u64>,
    zero_based: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let board = board_in(solution, zero_based, "solution")?;
    board.check_holds_columns(true)?;
    let n = board.n();
    room_for("solution", board_bytes(n))?;
    let source = memory_input(board.rows(), "(solution)")?;
    let report = nqueens::verify::verify(&source, Requirements::default()).map_err(file_error)?;
    if report.verdict == Verdict::Invalid {
        return Err(invalid(&report, "solution"));
    }
    let seed = seed_or_random(seed);
    let free = match (free_count, free_fraction) {
        (Some(c), _) => Some(c),
        (None, Some(f)) if f > 0.0 && f <= 1.0 => {
            Some(((f * n as f64).round() as u64).clamp(1, n.max(1)))
        }
        (None, Some(f)) => {
            return Err(PyValueError::new_err(format!(
                "free = {f}: a fraction of n must lie in (0, 1]"
            )));
        }
        (None, None) => None,
    };
    let direction = match direction {
        "d1" => Direction::D1,
        "d2" => Direction::D2,
        other => {
            return Err(PyValueError::new_err(format!(
                "direction {other:?}: expected d1 or d2"
            )));
        }
    };
    let shape = match clear {
        "random" => None,
        "block" => Some(Shape::Block),
        "stride" => Some(Shape::Stride),
        "columns" => Some(Shape::Columns),
        "diagonals" => Some(Shape::Diagonals(direction)),
        "region" => Some(Shape::Square),
        other => {
            return Err(PyValueError::new_err(format!(
                "clear {other:?}: expected random, block, stride, columns, diagonals or region"
            )));
        }
    };
    let clearing = match shape {
        None => {
            if at.is_some() {
                return Err(PyValueError::new_err(
                    "at applies to structured clearings only",
                ));
            }
            let keep = match (k, free) {
                (Some(k), _) => Some(k),
                (None, Some(free)) => Some(report.k.saturating_sub(free.min(report.k))),
                (None, None) => None,
            };
            Clearing::Random {
                have: report.k,
                keep,
            }
        }
        Some(shape) => {
            if k.is_some() {
                return Err(PyValueError::new_err(
                    "k applies to clear=\"random\"; give the part's size with free",
                ));
            }
            let Some(size) = free else {
                return Err(PyValueError::new_err(format!(
                    "clear={clear:?} needs free (a count, or a fraction of n such as 0.02)"
                )));
            };
            let region = match (shape, at) {
                // A square placed at random would often hold no queen of a constructed
                // solution: centred on a random queen instead, as the command line does.
                (Shape::Square, None) => {
                    let (row, col) = nqueens::generate::random_queen(&source, seed)
                        .map_err(generate_error)?
                        .ok_or_else(|| PyValueError::new_err("the board has no queen to clear"))?;
                    Region::square_around(n, size, row, col)
                }
                _ => shape.region(n, size, at, seed).map_err(generate_error)?,
            };
            Clearing::Region(region)
        }
    };
    let (rows, _made) = run_stoppable(py, None, |_| {
        nqueens::generate::composition_rows(&source, clearing, moves, seed)
    })?
    .map_err(generate_error)?;
    board.like(py, rows)
}

// ---------------------------------------------------------------------------------------
// For the tests

/// The address of the rows the library would read for `q`: the array's own buffer when
/// it is borrowed, not copied.
#[pyfunction]
#[pyo3(signature = (q, zero_based=false))]
fn _rows_address(q: &Bound<'_, PyAny>, zero_based: bool) -> PyResult<usize> {
    let board = board_in(q, zero_based, "q")?;
    Ok(board.rows().as_ptr() as usize)
}

/// The library's version.
#[pyfunction]
fn version() -> String {
    nqueens::json::Versions::current().nqueens_version
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(complete, m)?)?;
    m.add_function(wrap_pyfunction!(complete_many, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(write, m)?)?;
    m.add_function(wrap_pyfunction!(count, m)?)?;
    m.add_function(wrap_pyfunction!(generate_solution, m)?)?;
    m.add_function(wrap_pyfunction!(generate_composition, m)?)?;
    m.add_function(wrap_pyfunction!(_rows_address, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
