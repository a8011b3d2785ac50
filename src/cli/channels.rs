//! Every file a command reads or writes, found from the command line's own description:
//! each argument whose value is a path (clap knows them all) has a role in [`TABLE`], and
//! [`check`] applies the same rules to every command before it runs: standard input read
//! at most once, no output that is an input or another output (standard output
//! included, compared by device and inode as `cat` does), and no input removed by the
//! sweep of abandoned temporary files. A test fails when an argument that takes a path
//! has no role, so a new one cannot be forgotten; the same table, as
//! `formats/channels.json`, drives the integration test that runs every channel against
//! hostile files.

use super::Error;
use clap::ArgMatches;
use nqueens::format::{OutputPath, is_stdio, own_descriptor, reads_stdin, writes_stdout};
use std::path::{Path, PathBuf};

/// What a command does with the file an argument names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Reads it.
    Read,
    /// Writes it (replacing it when complete; `-` is standard output).
    Write,
    /// Reads it if it exists, then replaces it (a checkpoint).
    ReadWrite,
    /// Of a list, reads every file but the last, and writes the last (`convert IN OUT`).
    ReadThenWrite,
    /// Writes files into this directory.
    WriteDir,
    /// Writes it once per input of a command given several: a directory (the input's
    /// name in it) or a pattern (`{stem}`, `{name}`) is resolved by the command, which
    /// checks what it derives with [`check_derived`]; any other path is written as by
    /// [`Role::Write`].
    WriteEach,
}

/// Whether `path` names one file per input: a pattern with `{stem}` or `{name}`, or an
/// existing directory (the input's name in it).
pub fn is_per_input(path: &Path) -> bool {
    let text = path.to_string_lossy();
    text.contains("{stem}") || text.contains("{name}") || path.is_dir()
}

/// Whether `-` is accepted, and why not when it is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdio {
    /// `-` is standard input or output.
    Yes,
    /// `-` is refused, for this reason.
    No(&'static str),
}

/// One argument that takes a path: the subcommand (words after `nqueens`), the argument's
/// id (its field name), its role, whether `-` is accepted, and the extension of a second
/// file written beside it, if any.
pub struct Entry {
    /// The subcommand, as typed (`count merge`).
    pub command: &'static str,
    /// The argument's id.
    pub arg: &'static str,
    /// What the command does with the file.
    pub role: Role,
    /// Whether `-` is accepted.
    pub stdio: Stdio,
    /// Files written beside it: the path with each of these extensions.
    pub siblings: &'static [&'static str],
}

const fn entry(command: &'static str, arg: &'static str, role: Role) -> Entry {
    Entry {
        command,
        arg,
        role,
        stdio: Stdio::Yes,
        siblings: &[],
    }
}

/// The role of every argument that takes a path.
pub const TABLE: &[Entry] = &[
    entry("complete", "input", Role::Read),
    entry("complete", "output", Role::WriteEach),
    Entry {
        stdio: Stdio::No("a certificate is three files or more (JSON, CNF and proof); name a file"),
        // And a split proof's parts, `.part0001.lrat` on: see `Files::certificates`.
        siblings: &["cnf", "drat", "lrat", "top.drat", "top.lrat"],
        ..entry("complete", "certificate", Role::WriteEach)
    },
    entry("complete", "trace", Role::WriteEach),
    entry("complete", "plot", Role::WriteEach),
    entry("verify", "files", Role::Read),
    entry("verify", "base", Role::Read),
    entry("info", "files", Role::Read),
    entry("convert", "files", Role::ReadThenWrite),
    entry("convert", "model", Role::Read),
    entry("convert", "base", Role::Read),
    entry("count", "from", Role::Read),
    entry("count", "output", Role::Write),
    Entry {
        stdio: Stdio::No("a checkpoint is read back and replaced: name a file"),
        ..entry("count", "checkpoint", Role::ReadWrite)
    },
    Entry {
        stdio: Stdio::No(
            "each shard's result names its plan file, to rerun a lost shard from it: name a file",
        ),
        ..entry("count", "plan_file", Role::Read)
    },
    entry("count merge", "files", Role::Read),
    entry("generate solution", "output", Role::Write),
    entry("generate composition", "from", Role::Read),
    entry("generate composition", "output", Role::Write),
    entry("generate excluded", "output", Role::Write),
    Entry {
        stdio: Stdio::No("the manual pages are files: name a directory"),
        ..entry("man", "dir", Role::WriteDir)
    },
];

/// One argument that takes a path, as the command line describes it: a row of
/// `formats/channels.json`.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Channel {
    /// The subcommand, as typed (`count merge`).
    pub command: String,
    /// The argument's id.
    pub arg: String,
    /// How a user names it: `--base`, `-o`, or a positional's value name.
    pub flag: String,
    /// What the command does with the file.
    pub role: Role,
    /// Whether the argument takes several paths.
    pub multiple: bool,
    /// Whether `-` (standard input or output) is accepted.
    pub stdio: bool,
    /// Extensions of the files written beside it.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub siblings: &'static [&'static str],
}

/// Whether an argument's values are paths.
fn takes_path(arg: &clap::Arg) -> bool {
    arg.get_value_parser().type_id() == std::any::TypeId::of::<PathBuf>()
}

fn flag(arg: &clap::Arg) -> String {
    match (arg.get_short(), arg.get_long()) {
        (Some(short), _) => format!("-{short}"),
        (None, Some(long)) => format!("--{long}"),
        (None, None) => arg.get_value_names().and_then(|v| v.first()).map_or_else(
            || arg.get_id().to_string().to_uppercase(),
            |v| v.to_string(),
        ),
    }
}

fn lookup(command: &str, arg: &str) -> Option<&'static Entry> {
    TABLE.iter().find(|e| e.command == command && e.arg == arg)
}

/// Every argument that takes a path in the command tree `root`, in the tree's order;
/// an argument missing from [`TABLE`] is listed with no role (`Err`).
#[cfg(test)]
pub fn all(root: &clap::Command) -> Vec<Result<Channel, (String, String)>> {
    fn walk(
        cmd: &clap::Command,
        words: &mut Vec<String>,
        out: &mut Vec<Result<Channel, (String, String)>>,
    ) {
        let command = words.join(" ");
        for arg in cmd.get_arguments().filter(|a| takes_path(a)) {
            let id = arg.get_id().as_str();
            out.push(match lookup(&command, id) {
                Some(e) => Ok(Channel {
                    command: command.clone(),
                    arg: id.to_string(),
                    flag: flag(arg),
                    role: e.role,
                    multiple: arg.get_num_args().is_some_and(|n| n.max_values() > 1),
                    stdio: e.stdio == Stdio::Yes,
                    siblings: e.siblings,
                }),
                None => Err((command.clone(), id.to_string())),
            });
        }
        for sub in cmd.get_subcommands() {
            words.push(sub.get_name().to_string());
            walk(sub, words, out);
            words.pop();
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), &mut out);
    out
}

/// The files one command line names, by role.
#[derive(Debug, Default)]
pub struct Files {
    /// Files read, with the flag that names each.
    pub reads: Vec<(String, PathBuf)>,
    /// Files written.
    pub writes: Vec<(String, PathBuf)>,
    /// Certificates written, with the flag that names each: beside each, a split proof's
    /// parts too, as many as the proof needs ([`nqueens::dimacs::ProofPaths`]), so no
    /// input may have the name of one.
    pub certificates: Vec<(String, PathBuf)>,
    /// Files read, then replaced (among `writes` too).
    pub rewrites: Vec<PathBuf>,
    /// The lone file of a list whose last is written (`convert OUT` after `--model`, or an
    /// IN whose OUT is missing): among `writes`, and kept out of standard error as an input
    /// would be.
    lone: Vec<PathBuf>,
    /// Why the command line cannot run as it names its files.
    refused: Vec<String>,
}

impl Files {
    /// The files named by the parsed command line `matches` of the command tree `root`.
    pub fn of(root: &clap::Command, matches: &ArgMatches) -> Files {
        let mut files = Files::default();
        let (mut cmd, mut m, mut words) = (root, matches, Vec::<&str>::new());
        let mut json = false;
        loop {
            let command = words.join(" ");
            json |= matches!(m.try_get_one::<bool>("json"), Ok(Some(true)));
            for arg in cmd.get_arguments().filter(|a| takes_path(a)) {
                let id = arg.get_id().as_str();
                let Some(entry) = lookup(&command, id) else {
                    continue; // a test keeps the table complete
                };
                let Some(values) = m.get_many::<PathBuf>(id) else {
                    continue;
                };
                let values: Vec<PathBuf> = values.cloned().collect();
                files.add(entry, &flag(arg), values);
            }
            match m.subcommand() {
                Some((name, sub_m)) => {
                    let Some(sub) = cmd.find_subcommand(name) else {
                        break;
                    };
                    words.push(sub.get_name());
                    (cmd, m) = (sub, sub_m);
                }
                None => break,
            }
        }
        // `--json` fills standard output with its records, one per line: an output written
        // there too would be mixed into them, and neither could be read back.
        if json {
            for (flag, path) in &files.writes {
                if writes_stdout(path) {
                    files.refused.push(format!(
                        "{}: {flag}: --json prints its records to standard output: name a file",
                        path.display()
                    ));
                }
            }
        }
        files
    }

    fn add(&mut self, entry: &Entry, flag: &str, values: Vec<PathBuf>) {
        if let Stdio::No(why) = entry.stdio
            && let Some(p) = values
                .iter()
                .find(|p| is_stdio(p) || own_descriptor(p).is_some())
        {
            self.refused.push(format!("{}: {flag}: {why}", p.display()));
        }
        let last = values.len().saturating_sub(1);
        for (i, path) in values.into_iter().enumerate() {
            match entry.role {
                Role::Read => self.reads.push((flag.to_string(), path)),
                // Resolved and checked per input by the command.
                Role::WriteEach if is_per_input(&path) => {}
                Role::Write | Role::WriteEach => {
                    self.refused
                        .extend(set_problems(flag, &path, entry.siblings));
                    if entry.siblings.contains(&"top.lrat") {
                        self.certificates.push((flag.to_string(), path.clone()));
                    }
                    for ext in entry.siblings {
                        let beside = path.with_extension(ext);
                        self.writes
                            .push((format!("{flag}'s {}", ext.to_uppercase()), beside));
                    }
                    self.writes.push((flag.to_string(), path));
                }
                Role::ReadWrite => {
                    self.rewrites.push(path.clone());
                    self.writes.push((flag.to_string(), path));
                }
                Role::ReadThenWrite if i == last => {
                    if last == 0 {
                        self.lone.push(path.clone());
                    }
                    self.writes.push(("OUT".into(), path))
                }
                Role::ReadThenWrite => self.reads.push(("IN".into(), path)),
                // A directory of new files: nothing in it is read by the command.
                Role::WriteDir => {}
            }
        }
    }
}

/// [`check`] for the files a command derives from its command line: `reads`, and
/// `writes` (flag, path) with the files beside each certificate already listed, and the
/// certificates (flag, path) among them.
pub fn check_derived(
    reads: &[PathBuf],
    writes: Vec<(String, PathBuf)>,
    certificates: Vec<(String, PathBuf)>,
) -> Result<(), Error> {
    check(&Files {
        reads: reads
            .iter()
            .map(|p| ("INPUT".to_string(), p.clone()))
            .collect(),
        writes,
        certificates,
        ..Files::default()
    })
}

/// The files written beside a certificate given as `path`, each with its flag: the
/// siblings [`TABLE`] names.
pub fn certificate_siblings(flag: &str, path: &Path) -> Vec<(String, PathBuf)> {
    lookup("complete", "certificate")
        .map_or(&[][..], |e| e.siblings)
        .iter()
        .map(|ext| {
            (
                format!("{flag}'s {}", ext.to_uppercase()),
                path.with_extension(ext),
            )
        })
        .collect()
}

/// An input, or another output of the command, named as a piece of the proof beside one
/// of `certificates`, or that is an existing piece under another name (a link either way,
/// a hard link), would be replaced by a piece or removed as a stale one: refused, as an
/// output that is an input or another output is; and so is a pipe, socket or device with
/// a piece's name, which would take the piece (or block for a reader) instead of the
/// rename that publishes the set at once. `writes`: the command's outputs (flag, path),
/// those of the certificates' own sets among them.
fn check_proof_parts(
    certificates: &[(String, PathBuf)],
    inputs: &[&Path],
    writes: &[(String, PathBuf)],
) -> Result<(), Error> {
    use nqueens::format::{ErrorKind, FormatError};
    let dir = |p: &Path| {
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::canonicalize(parent).ok()
    };
    // What may not be a piece: an input (no flag), or another output (its flag).
    let mut others: Vec<(&Path, Option<&str>)> = inputs
        .iter()
        .filter(|p| !is_stdio(p))
        .map(|p| (*p, None))
        .collect();
    for (flag, _) in certificates {
        others.extend(
            writes
                .iter()
                .filter(|(f, p)| !f.starts_with(flag.as_str()) && !is_stdio(p))
                .map(|(f, p)| (p.as_path(), Some(f.as_str()))),
        );
    }
    let refused = |piece: &Path, path: &Path, output: Option<&str>, flag: &str| -> Error {
        let kind = match output {
            None => ErrorKind::OverwritesInput(path.to_path_buf()),
            Some(other) => ErrorKind::SameOutput {
                flag: format!("{flag}'s proof"),
                other: other.to_string(),
            },
        };
        FormatError::new(piece, kind).into()
    };
    for (flag, cert) in certificates {
        let Some(cert_dir) = dir(cert) else { continue };
        for &(path, output) in &others {
            if let Some(name) = path.file_name()
                && nqueens::dimacs::ProofPaths::is_piece_name(cert, name)
                && dir(path).as_ref() == Some(&cert_dir)
            {
                return Err(refused(&cert.with_file_name(name), path, output, flag));
            }
        }
        for entry in std::fs::read_dir(&cert_dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if !nqueens::dimacs::ProofPaths::is_piece_name(cert, &name) {
                continue;
            }
            let piece = cert.with_file_name(&name);
            match std::fs::metadata(entry.path()) {
                Ok(m) if !m.is_file() && !m.is_dir() => {
                    return Err(Error::Usage(format!(
                        "{}: {flag}'s proof: not a regular file (a pipe, socket or device); the files of a certificate are renamed into place together",
                        piece.display()
                    )));
                }
                // This file under another name: writing the piece, or removing a stale
                // one, would change it.
                Ok(m) if m.is_file() => {
                    if let Some(&(path, output)) = others.iter().find(|(p, _)| same_file(&m, p)) {
                        return Err(refused(&piece, path, output, flag));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Whether the file at `path` (links followed) is the file `meta` describes.
fn same_file(meta: &std::fs::Metadata, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (meta, path);
        false
    }
}

/// Why `path` (given as `flag`) cannot head a set of files written together beside it,
/// with the extensions `siblings`; nothing when it can (or has no siblings).
fn set_problems(flag: &str, path: &Path, siblings: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    if siblings.is_empty() {
        return problems;
    }
    // Files written together must all be renamed into place: a name that only a directory
    // can have ("c.json/") would fail last, after its siblings were published.
    let text = path.as_os_str().as_encoded_bytes();
    if text.ends_with(b"/") || text.ends_with(b"/.") || text == b"." {
        problems.push(format!(
            "{}: {flag}: names a directory; name a file (e.g. cert.json)",
            path.display()
        ));
    }
    // The document names its files in JSON, which holds text only.
    if siblings.contains(&"top.lrat") && path.to_str().is_none() {
        problems.push(format!(
            "{}: {flag}: the certificate's document names its files, and JSON holds only UTF-8 text: name it in UTF-8",
            path.display()
        ));
    }
    // A certificate `c.top.json` or `c.part0001.json` would write its proof whole as
    // `c.top.lrat` or `c.part0001.lrat`, a piece of `c.json`'s split proof.
    if siblings.contains(&"top.lrat")
        && let Some(other) = nqueens::dimacs::ProofPaths::piece_of(path)
    {
        problems.push(format!(
            "{}: {flag}: its proof would have the name of a piece of the proof of a certificate {other}; name it otherwise",
            path.display(),
        ));
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        problems.push(format!(
            "{}: {flag}: not a regular file: the files of its set are written beside it; name a file",
            path.display()
        ));
    }
    for ext in siblings {
        let beside = path.with_extension(ext);
        // A pipe or a device beside it would take the file (or block for a reader)
        // instead of the rename that publishes the set at once.
        if std::fs::metadata(&beside).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            problems.push(format!(
                "{}: {flag}'s {}: not a regular file (a pipe, socket or device); the files of a certificate are renamed into place together",
                beside.display(),
                ext.to_uppercase()
            ));
        }
        if beside == path {
            problems.push(format!(
                "{}: {flag}: the {} goes beside it with the extension .{ext}; name it otherwise (e.g. .json)",
                path.display(),
                ext.to_uppercase()
            ));
        }
    }
    problems
}

/// [`set_problems`] of `path` as an output of `command`'s `arg`, made per input from a
/// pattern (`{stem}`): the checks a literal name gets when the command line is read.
pub fn check_set(command: &str, arg: &str, flag: &str, path: &Path) -> Result<(), Error> {
    let siblings = TABLE
        .iter()
        .find(|e| e.command == command && e.arg == arg)
        .map_or(&[][..], |e| e.siblings);
    match set_problems(flag, path, siblings).into_iter().next() {
        Some(why) => Err(Error::Usage(why)),
        None => Ok(()),
    }
}

/// The rules every command line obeys, checked before the command runs (see the module
/// documentation). Inputs are also kept out of the sweep of abandoned temporary files.
pub fn check(files: &Files) -> Result<(), Error> {
    // First: standard error redirected into an input (`2>> in.txt`) would take every
    // message below into that input.
    let read: Vec<&Path> = files
        .reads
        .iter()
        .map(|(_, p)| p.as_path())
        .chain(
            files
                .rewrites
                .iter()
                .chain(&files.lone)
                .map(PathBuf::as_path),
        )
        .collect();
    if let Some(input) = nqueens::format::redirected_into(2, &read) {
        return Err(Error::StderrIsInput(input.to_path_buf()));
    }
    if let Some(why) = files.refused.first() {
        return Err(Error::Usage(why.clone()));
    }
    // Before anything is opened: a path naming a descriptor that is not open (`-o
    // /dev/fd/3` without `3>FILE`) would name the first file the command opens.
    let all = files.reads.iter().chain(&files.writes).map(|(_, p)| p);
    for path in all.chain(&files.rewrites).chain(&files.lone) {
        if let Some(fd) = nqueens::format::closed_descriptor(path) {
            return Err(Error::Usage(format!(
                "{}: names descriptor {fd} of this process, which is not open (a shell \
redirection such as {fd}>FILE opens it)",
                path.display()
            )));
        }
    }
    // Every command prints: to a standard output closed at start, nothing could be, and
    // finding out after the work would leave its outputs written and its answer lost.
    if super::STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Error::StdoutClosed);
    }
    let stdin_reads = files.reads.iter().filter(|(_, p)| reads_stdin(p)).count();
    if stdin_reads > 1 {
        return Err(Error::Usage(
            "`-` (standard input) is named more than once: it can be read only once; save it to a file".into(),
        ));
    }
    for path in files.reads.iter().map(|(_, p)| p).chain(&files.rewrites) {
        nqueens::cleanup::protect(path);
    }
    let outputs: Vec<OutputPath> = files
        .writes
        .iter()
        .map(|(flag, path)| OutputPath { flag, path })
        .collect();
    let inputs: Vec<&Path> = files.reads.iter().map(|(_, p)| p.as_path()).collect();
    nqueens::format::check_outputs(&outputs, &inputs)?;
    check_proof_parts(&files.certificates, &inputs, &files.writes)?;
    // Every command prints to standard output: redirected into a file (`>> f`), that file
    // is written whether or not `-` is named, and the checkpoint is an input too.
    let read: Vec<&Path> = inputs
        .iter()
        .copied()
        .chain(files.rewrites.iter().map(PathBuf::as_path))
        .collect();
    nqueens::format::check_stdout(&read)?;
    Ok(())
}

/// Says, on standard error, that the output `path` was not written by this run (`why`)
/// where a file from before is there: an INFEASIBLE answer leaves the solution of an earlier
/// run at its `-o`, a SOLVED one the certificate of an earlier run at its `--certificate`,
/// and a careless reader would take either for this run's. (The file is left: it is the
/// user's, and an output is only ever replaced whole by one that was written.)
pub(super) fn note_not_written(path: &Path, why: &str) {
    if !writes_stdout(path) && std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        errln!(
            "nqueens: {}: not written ({why}); the file there is from before",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::CommandFactory;

    /// Every argument that takes a path has a role, and every role names an argument that
    /// exists; `formats/channels.json` is the list (`NQUEENS_BLESS=1` rewrites it).
    #[test]
    fn every_path_argument_has_a_role_and_the_list_is_current() {
        let all = all(&Cli::command());
        let missing: Vec<_> = all.iter().filter_map(|c| c.as_ref().err()).collect();
        assert!(
            missing.is_empty(),
            "arguments that take a path with no role in cli/channels.rs TABLE: {missing:?}"
        );
        let channels: Vec<Channel> = all.into_iter().map(Result::unwrap).collect();
        for e in TABLE {
            assert!(
                channels
                    .iter()
                    .any(|c| c.command == e.command && c.arg == e.arg),
                "TABLE names {} {}, which takes no path",
                e.command,
                e.arg
            );
        }
        let text = serde_json::to_string_pretty(&channels).unwrap() + "\n";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("formats/channels.json");
        if std::env::var_os("NQUEENS_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "formats/channels.json is stale: run NQUEENS_BLESS=1 cargo test every_path_argument"
        );
    }

    fn files(line: &str) -> Files {
        let words: Vec<&str> = line.split_whitespace().collect();
        let m = Cli::command().try_get_matches_from(words).unwrap();
        Files::of(&Cli::command(), &m)
    }

    #[test]
    fn a_command_line_gives_its_files_by_role() {
        let f = files("nqueens convert a.txt b.nqb");
        assert_eq!(f.reads, [("IN".to_string(), PathBuf::from("a.txt"))]);
        assert_eq!(f.writes, [("OUT".to_string(), PathBuf::from("b.nqb"))]);
        let f = files("nqueens complete a.txt -o s.txt --certificate c.json");
        let writes: Vec<_> = f.writes.iter().map(|(_, p)| p.to_str().unwrap()).collect();
        assert_eq!(
            writes,
            [
                "s.txt",
                "c.cnf",
                "c.drat",
                "c.lrat",
                "c.top.drat",
                "c.top.lrat",
                "c.json"
            ]
        );
        let f = files("nqueens count 12 --checkpoint c.json");
        assert_eq!((f.reads.len(), f.rewrites.len(), f.writes.len()), (0, 1, 1));
        let f = files("nqueens count merge a b -");
        assert_eq!(f.reads.len(), 3);
        assert!(check(&files("nqueens count merge - -")).is_err());
        assert!(check(&files("nqueens count 10 --checkpoint -")).is_err());
    }
}
