use clap::Parser;

fn main() {
    let cli = nqueens::cli::Cli::parse();
    let code = match nqueens::cli::run(cli) {
        Ok(code) => code,
        Err(e) if e.is_closed_pipe() => {
            nqueens::cleanup::remove_all();
            0
        }
        Err(e) => {
            eprintln!("nqueens: {e}");
            e.exit_code()
        }
    };
    std::process::exit(code);
}
