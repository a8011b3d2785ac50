//! The `nqueens` binary: the command line (`cli`, private to the binary) over the library.

#![deny(clippy::undocumented_unsafe_blocks)]

mod cli;

#[global_allocator]
static ALLOCATOR: cli::alloc::ExitOnFailure = cli::alloc::ExitOnFailure;

fn main() {
    cli::guard_standard_output();
    let (cli, files) = cli::parse();
    let code = match cli::run(cli, files) {
        Ok(code) => code,
        Err(e) if e.is_closed_pipe() => {
            nqueens::cleanup::remove_all();
            0
        }
        Err(e) => {
            // Not eprintln!: a terminal that hung up must not turn an error into a panic.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr().lock(), "nqueens: {e}");
            e.exit_code()
        }
    };
    std::process::exit(code);
}
