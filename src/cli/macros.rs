//! The printing macros every subcommand uses, and the exit-code table every help ends
//! with; declared first so that the modules after them see them.

/// `println!` that returns a [`Error::Stdout`] instead of panicking when standard output
/// is closed (`| head`) or full (`> /dev/full`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!($crate::cli::stdout(), $($arg)*).map_err($crate::cli::Error::Stdout)
    }};
}

/// `eprintln!` that never panics: after a terminal hangs up, writing to it fails (EIO),
/// and a panic in the signal handler's thread once left `count` running and deaf to
/// every later signal. A message that cannot be shown is dropped.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // One line whatever a file's name or bytes hold (control characters escaped).
        let text = $crate::cli::one_line(&format_args!($($arg)*));
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }};
}

/// `writeln!` to a report stream (standard output, or standard error when the result
/// itself goes to standard output), failing like [`outln!`].
macro_rules! wln {
    ($w:expr, $($arg:tt)*) => {{
        writeln!($w, $($arg)*).map_err($crate::cli::Error::Stdout)
    }};
}

/// The exit-code table, as a literal so that each subcommand's long help can append it
/// to its examples with `concat!`.
macro_rules! exit_codes {
    () => {
        "Exit codes:
  0    success (every file valid; complete: SOLVED)
  1    some file is not a valid composition or solution, or lacks what was required
  2    unreadable or corrupt input, unwritable output, or bad arguments
  3    complete: INFEASIBLE, no completion exists (with a certificate);
       count --first: no placement exists
  4    complete: UNKNOWN, the time limit ran out first
  5    internal error: a result failed its own re-verification; nothing was written
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP); no output or temporary file was left
       (count --checkpoint saves its checkpoint first)"
    };
}

/// A subcommand's long help: its examples, then the exit codes.
macro_rules! examples {
    ($($line:literal),+ $(,)?) => {
        concat!("Examples:\n", $("  ", $line, "\n",)+ "\n", exit_codes!())
    };
}
