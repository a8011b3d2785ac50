//! `nqueens convert`: one composition file to another format, streamed; also a CNF export
//! for SAT solvers, a SAT model back to a solution, and a solution of a reduced Excluded
//! Diagonals board back to the instance's own board.

use super::{Error, InputArgs, Progress, exit};
use nqueens::dimacs::{self, Model};
use nqueens::format::csplib::{self, ParamFile};
use nqueens::format::{
    AtomicFile, Encoding, ErrorKind, FormatError, OutputFormat, RowWriter, nqb::DEFAULT_FRAME_ROWS,
};
use std::path::{Path, PathBuf};

/// Arguments of `convert`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = super::EXIT_CODES,
    after_long_help = examples!(
        "nqueens convert Q.mat Q.nqb",
        "nqueens convert solved.nqb solved.mat",
        "nqueens convert big.nqb big.zst",
        "nqueens convert board.txt board.cnf && cadical board.cnf > model.txt",
        "nqueens convert --model model.txt --base board.txt solved.nqb"
    )
)]
pub struct Args {
    /// IN OUT: the input (any format nqueens reads: NQB raw or zstd, MAT v4/v5/v7/v7.3,
    /// Octave text or binary, HDF5, NumPy .npy, CSPLib, text, gzipped too; recognised by content)
    /// and the output, written under a temporary name and renamed when complete. With
    /// --model, only OUT.
    #[arg(required = true, num_args = 1..=2, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format; by default from OUT's extension (.txt/.csv/.dat text, .mat MAT v7,
    /// .param/.essence CSPLib, .cnf DIMACS, .zst/.nqbz NQB zstd, anything else NQB raw).
    #[arg(long, value_enum)]
    to: Option<Target>,
    #[command(flatten)]
    input_args: InputArgs,
    /// NQB payload encoding.
    #[arg(long, value_enum)]
    encoding: Option<NqbEncoding>,
    #[command(flatten)]
    mat: super::mat::MatArgs,
    #[command(flatten)]
    npy: super::npy::NpyArgs,
    /// A SAT solver's output (`s`/`v` lines) for the CNF of --base: written to OUT as the
    /// solution it describes, after a full check.
    #[arg(long, value_name = "SAT_OUTPUT", requires = "base")]
    model: Option<PathBuf>,
    /// With --model: the instance the CNF was made from. Without: a CSPLib Excluded
    /// Diagonals file, whose reduced board IN solves; OUT gets the instance's own solution.
    #[arg(long, value_name = "FILE")]
    base: Option<PathBuf>,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

/// `--to` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// NQB (raw unless --encoding zstd).
    Nqb,
    /// One value per line.
    Text,
    /// MAT v7: Level 5 with the variable zlib-compressed (MATLAB's default `save`).
    Mat,
    /// MAT v6: Level 5 uncompressed.
    MatV6,
    /// MAT v7.3: HDF5 (uncompressed), for any n; `mat` switches to it when v7 cannot hold n.
    MatV73,
    /// CSPLib 079 completion parameter file (`letting n`, `letting init`).
    Csplib,
    /// NumPy .npy, one uint32 vector (`np.load`, or `np.load(f, mmap_mode='r')`).
    Npy,
    /// DIMACS CNF of the completion instance, for SAT solvers.
    Cnf,
}

/// `--encoding` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum NqbEncoding {
    /// One little-endian u32 per row.
    Raw,
    /// zstd seekable frames.
    Zstd,
}

/// What `convert` writes.
enum Output {
    Rows(OutputFormat),
    Cnf,
}

/// Runs `convert`.
pub fn run(a: Args) -> Result<i32, Error> {
    let (input_path, output) = match (&a.model, a.files.as_slice()) {
        (Some(_), [out]) => (None, out.clone()),
        (None, [input, out]) => (Some(input.clone()), out.clone()),
        (Some(_), _) => {
            return Err(Error::Usage(
                "convert --model SAT_OUTPUT --base INSTANCE OUT: give only OUT".into(),
            ));
        }
        (None, _) => return Err(Error::Usage("convert: give IN and OUT".into())),
    };
    let target = output_format(&a, &output)?;
    if let Output::Rows(format) = target {
        super::refuse_binary_on_terminal(&output, format)?;
    }
    let opts = a.input_args.options();
    // How a MAT output's variable was laid out, said once the file is written.
    let mut mat_note = None;
    let file = match (&a.model, input_path) {
        (Some(model), _) => {
            let Output::Rows(format) = target else {
                return Err(Error::Usage(
                    "convert --model: OUT is a solution, not a CNF".into(),
                ));
            };
            let base = super::open_input(a.base.as_deref().expect("clap requires it"), &opts)?;
            let (format, _) = a.mat.apply(format, Some(&base), base.n())?;
            let format = a.npy.apply(format, base.n())?;
            match dimacs::read_model(model, &base)? {
                // The solver's word, which nothing here checks: no INFEASIBLE (exit 3) on
                // it, only that the file holds no model (a careless or broken solver, or
                // the output of another instance, would otherwise pass as a proof).
                Model::Unsatisfiable => {
                    errln!(
                        "nqueens: {}: the SAT solver says UNSATISFIABLE, so there is no model to \
convert (its claim, not checked here: `nqueens complete {}` decides it, with a certificate)",
                        model.display(),
                        base.path().display()
                    );
                    return Ok(exit::INVALID);
                }
                Model::Solution(rows) => RowWriter::all(&output, &rows, format)?,
            }
        }
        (None, Some(input)) => {
            if let Some(base) = &a.base {
                let Output::Rows(format) = target else {
                    return Err(Error::Usage(
                        "convert --base: OUT is a solution, not a CNF".into(),
                    ));
                };
                excluded_solution(&input, base, &opts, &output, format, (&a.mat, &a.npy))?
            } else {
                let input = super::open_input(&input, &opts)?;
                let target = match target {
                    Output::Rows(format) => {
                        let (format, note) = a.mat.apply(format, Some(&input), input.n())?;
                        let format = a.npy.apply(format, input.n())?;
                        // Said when the input had a variable of its own to copy.
                        let inherited = input.mat_layout().is_some();
                        mat_note = note.filter(|_| inherited && !a.quiet);
                        Output::Rows(format)
                    }
                    cnf => cnf,
                };
                let progress = Progress::rows(
                    a.quiet,
                    input.n(),
                    format!("converting {}", input.path().display()),
                    || nqueens::progress::meter().rows_read(),
                );
                let file = match target {
                    Output::Rows(format) => RowWriter::copy(&input, &output, format)?,
                    Output::Cnf => {
                        let (file, s) = dimacs::write_cnf(&input, &output)?;
                        if !a.quiet {
                            errln!(
                                "CNF: {} free rows, {} cell variables, {} variables, {} clauses",
                                s.free_rows,
                                s.cells,
                                s.variables,
                                s.clauses
                            );
                        }
                        file
                    }
                };
                progress.finish();
                file
            }
        }
        (None, None) => unreachable!("checked above"),
    };
    file.commit()?;
    if let Some(note) = mat_note {
        errln!("{}: {note}", output.display());
    }
    Ok(exit::OK)
}

/// The output format from --to, --encoding and OUT's extension.
fn output_format(a: &Args, output: &Path) -> Result<Output, Error> {
    let nqb = |e: Option<NqbEncoding>| match e {
        Some(NqbEncoding::Zstd) => OutputFormat::Nqb(Encoding::Zstd {
            frame_rows: DEFAULT_FRAME_ROWS,
        }),
        _ => OutputFormat::Nqb(Encoding::Raw),
    };
    let is_cnf = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cnf"));
    Ok(Output::Rows(match (a.to, a.encoding) {
        (Some(Target::Nqb), e) => nqb(e),
        (None, Some(e)) => nqb(Some(e)),
        (Some(_), Some(_)) => {
            return Err(Error::Usage(
                "convert: --encoding applies to NQB output only".into(),
            ));
        }
        (Some(Target::Text), None) => OutputFormat::Text,
        (Some(Target::Mat), None) => OutputFormat::Mat {
            compressed: true,
            layout: Default::default(),
        },
        (Some(Target::MatV6), None) => OutputFormat::Mat {
            compressed: false,
            layout: Default::default(),
        },
        (Some(Target::MatV73), None) => OutputFormat::Mat73 {
            layout: Default::default(),
        },
        (Some(Target::Csplib), None) => OutputFormat::Csplib,
        (Some(Target::Npy), None) => OutputFormat::Npy(Default::default()),
        (Some(Target::Cnf), None) => return Ok(Output::Cnf),
        (None, None) if is_cnf => return Ok(Output::Cnf),
        (None, None) => OutputFormat::from_path(output),
    }))
}

/// Writes the Excluded Diagonals solution inside `input`, a solution of the board that
/// the instance at `base` reduces to.
fn excluded_solution(
    input: &Path,
    base: &Path,
    opts: &nqueens::format::OpenOptions,
    output: &Path,
    format: OutputFormat,
    (mat, npy): (&super::mat::MatArgs, &super::npy::NpyArgs),
) -> Result<AtomicFile, Error> {
    let ParamFile::Excluded(ed) = csplib::read_file(base, opts.diags)? else {
        return Err(Error::Usage(format!(
            "convert --base {}: without --model, the base must be an Excluded Diagonals file",
            base.display()
        )));
    };
    let rows = super::open_input(input, opts)?.to_vec()?;
    let solution = ed.solution_from_reduced(&rows).map_err(|d| {
        FormatError::new(
            input,
            ErrorKind::Mismatch(format!("not a solution of {}'s board: {d}", base.display())),
        )
    })?;
    let (format, _) = mat.apply(format, None, solution.len() as u64)?;
    let format = npy.apply(format, solution.len() as u64)?;
    Ok(RowWriter::all(output, &solution, format)?)
}
