//! `nqueens info FILE...`

use super::{Error, exit, print_json};
use nqueens::format::Encoding;
use nqueens::json::InfoRecord;
use nqueens::verify::{Requirements, verify};
use std::path::{Path, PathBuf};

/// Arguments of `info`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens info solved.nqb",
        "nqueens info --json runs/*.nqb",
        "nqueens info Q.mat"
    )
)]
pub struct Args {
    /// The files to describe.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    input_args: super::InputArgs,
    /// One JSON object on standard output.
    #[arg(long)]
    json: bool,
}

/// Runs `info` on each file in turn. A file that cannot be read is reported in one line and
/// the others are still described; the exit code is the worst of all.
pub fn run(args: Args) -> Result<i32, Error> {
    if let [only] = &args.files[..] {
        return describe(only, &args);
    }
    let mut code = exit::OK;
    for (i, file) in args.files.iter().enumerate() {
        match describe(file, &args) {
            Ok(c) => {
                code = code.max(c);
                if !args.json && i + 1 < args.files.len() {
                    outln!()?;
                }
            }
            Err(e) if e.is_closed_pipe() => return Err(e),
            Err(e) => {
                errln!("nqueens: {e}");
                code = code.max(e.exit_code());
            }
        }
    }
    Ok(code)
}

/// Describes one file: the header as stored, then the checksum and queen count as computed.
fn describe(file: &Path, args: &Args) -> Result<i32, Error> {
    let input = super::open_input(file, &args.input_args.options())?;
    let file_size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    let n = input.n();
    let mut record = InfoRecord {
        file: file.display().to_string(),
        format: input.format_name(),
        n,
        file_size,
        payload_bytes: 4 * n,
        ..InfoRecord::default()
    };
    if let Some(l) = input.mat_layout() {
        let [r, c] = l.dims(n);
        record.variable = Some(format!("{}, {r}x{c} {}", l.name.as_str(), l.class));
    }
    if let Some(h) = input.header() {
        record.version = Some(nqueens::format::nqb::VERSION.into());
        record.k = Some(h.k);
        record.checksum = Some(format!("{:#018x}", h.payload_checksum));
    }
    if let Some(encoding) = input.encoding() {
        record.encoding = Some(encoding.to_string());
        if let Encoding::Zstd { frame_rows } = encoding {
            record.frame_rows = Some(frame_rows);
            record.frames = Some(n.div_ceil(frame_rows));
        }
    }
    // Reading the payload checks the checksum and the queen count; a mismatch is an error.
    let report = match verify(&input, Requirements::default()) {
        Ok(r) => r,
        Err(e) => {
            record.checksum_status = format!("error: {}", e.problem);
            emit(&record, args.json)?;
            return Err(e.into());
        }
    };
    record.k = Some(report.k);
    record.checksum_status = if report.checksum_verified {
        "ok"
    } else {
        "none"
    }
    .into();
    record.valid = Some(report.verdict != nqueens::verify::Verdict::Invalid);
    emit(&record, args.json)?;
    Ok(exit::OK)
}

fn emit(record: &InfoRecord, json: bool) -> Result<(), Error> {
    if json {
        return print_json(record);
    }
    let v = serde_json::to_value(record).expect("records serialize");
    let get = |k: &str| {
        v.get(k)
            .map(|x| x.to_string().trim_matches('"').to_string())
    };
    for (label, key) in [
        ("file", "file"),
        ("format", "format"),
        ("variable", "variable"),
        ("version", "version"),
        ("encoding", "encoding"),
        ("frame rows", "frame_rows"),
        ("frames", "frames"),
        ("n", "n"),
        ("k (queens)", "k"),
        ("file size", "file_size"),
        ("payload bytes", "payload_bytes"),
        ("checksum", "checksum"),
        ("checksum status", "checksum_status"),
        ("valid composition", "valid"),
    ] {
        if let Some(mut value) = get(key) {
            // The reason is the error line that follows, once, on standard error.
            if key == "checksum_status" && value.starts_with("error") {
                value = "FAILED (the error follows)".into();
            }
            outln!("{label:<18}{value}")?;
        }
    }
    Ok(())
}
