//! The `nqueens` binary: the command line (`cli`, private to the binary) over the library.

#![deny(clippy::undocumented_unsafe_blocks)]

mod cli;

#[global_allocator]
static ALLOCATOR: cli::alloc::ExitOnFailure = cli::alloc::ExitOnFailure;

fn main() {
    cli::guard_standard_output();
    // Bytes read twice from a map whose file shrank in between may disagree (a value
    // checked, then read again as zero): a check that then fails is that file's fault,
    // not a bug, and is reported as such.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Some(input) = nqueens::format::fault::first_faulted_input() {
            let e = nqueens::format::FormatError::new(&input, nqueens::format::ErrorKind::Shrank);
            nqueens::cleanup::remove_all();
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr().lock(), "nqueens: {e}");
            std::process::exit(cli::exit::ERROR);
        }
        default_hook(info)
    }));
    let (cli, files) = cli::parse();
    let code = match cli::run(cli, files) {
        // A mapped input that shrank was reported where it was read; whatever the command
        // concluded otherwise, it cannot end in success.
        Ok(code)
            if code != cli::exit::ERROR
                && nqueens::format::fault::first_faulted_input().is_some() =>
        {
            let input = nqueens::format::fault::first_faulted_input().unwrap_or_default();
            let e = nqueens::format::FormatError::new(&input, nqueens::format::ErrorKind::Shrank);
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr().lock(), "nqueens: {e}");
            cli::exit::ERROR
        }
        Ok(code) => code,
        // Standard error is an input: the message would be written into it.
        Err(e @ cli::Error::StderrIsInput(_)) => e.exit_code(),
        Err(e) if e.is_closed_pipe() => {
            nqueens::cleanup::remove_all();
            0
        }
        Err(e) => {
            // Not eprintln!: a terminal that hung up must not turn an error into a panic.
            use std::io::Write as _;
            // An input that shrank under its map is the cause of whatever a reader then
            // found wrong in it (a corrupt frame, a short stream): say that.
            match nqueens::format::fault::first_faulted_input() {
                Some(input) => {
                    let shrank = nqueens::format::FormatError::new(
                        &input,
                        nqueens::format::ErrorKind::Shrank,
                    );
                    let _ = writeln!(std::io::stderr().lock(), "nqueens: {shrank}");
                    cli::exit::ERROR
                }
                None => {
                    let _ = writeln!(std::io::stderr().lock(), "nqueens: {}", cli::one_line(&e));
                    e.exit_code()
                }
            }
        }
    };
    std::process::exit(code);
}
