//! `nqueens completions SHELL` and `nqueens man`: shell completions and manual pages,
//! generated from the command-line definition itself so that they never go stale.

use super::{Cli, Error, exit};
use clap::CommandFactory;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `completions`.
#[derive(clap::Args, Debug)]
pub struct CompletionArgs {
    /// The shell (bash, zsh, fish, elvish, powershell).
    shell: clap_complete::Shell,
}

/// Arguments of `man`.
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write nqueens.1 and one page per subcommand (nqueens-count.1, ...) into DIR instead
    /// of printing nqueens.1.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script for a shell on standard output.
pub fn completions(args: CompletionArgs) -> Result<i32, Error> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "nqueens", &mut out);
    write_stdout(&out)
}

/// Prints the manual page, or writes every page into a directory.
pub fn man(args: ManArgs) -> Result<i32, Error> {
    // Without `help` as a subcommand: its page would be listed as nqueens-help(1) but
    // clap_mangen writes none (`nqueens help X` is `nqueens X --help`).
    let cmd = Cli::command().disable_help_subcommand(true);
    if let Some(dir) = args.dir {
        let err = |source| Error::System {
            what: format!("man --dir {}", dir.display()),
            source,
        };
        if std::fs::metadata(&dir).is_ok_and(|m| !m.is_dir()) {
            return Err(Error::Usage(format!(
                "man --dir {}: not a directory",
                dir.display()
            )));
        }
        std::fs::create_dir_all(&dir).map_err(err)?;
        // Every page rendered first, then each written like any output (beside its place,
        // named in its own error), as clap_mangen's generate_to would not; renamed into
        // place only when all are written, so that a full disk leaves none of them.
        let mut pages = Vec::new();
        let mut cmd = cmd;
        cmd.build();
        render_pages(cmd, &mut pages).map_err(err)?;
        let mut written = Vec::with_capacity(pages.len());
        for (name, roff) in pages {
            let path = dir.join(name);
            let mut page = nqueens::format::AtomicFile::create(&path)?;
            page.write_all(&roff).map_err(|e| {
                nqueens::format::FormatError::new(&path, nqueens::format::ErrorKind::Write(e))
            })?;
            written.push(page);
        }
        for page in written {
            page.commit()?;
        }
        return Ok(exit::OK);
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .map_err(Error::Stdout)?;
    write_stdout(&out)
}

/// The pages of `cmd` and its subcommands (file name, roff), as clap_mangen names them.
fn render_pages(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        render_pages(sub, pages)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let mut roff = Vec::new();
    man.render(&mut roff)?;
    pages.push((man.get_filename(), roff));
    Ok(())
}

fn write_stdout(bytes: &[u8]) -> Result<i32, Error> {
    let mut stdout = super::stdout();
    stdout
        .write_all(bytes)
        .and_then(|_| stdout.flush())
        .map_err(Error::Stdout)?;
    Ok(exit::OK)
}
