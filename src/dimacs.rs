//! DIMACS CNF export of a completion instance, and SAT models read back into solutions.
//!
//! Only the residual is encoded (free rows x free columns, cells on no taken diagonal):
//! one variable per free cell, numbered row by row (rows, then columns, increasing), then
//! auxiliary variables. Every free row and column gets exactly one queen (a clause over
//! its cells plus an at-most-one), every diagonal at most one; at-most-one over more than
//! [`PAIRWISE_MAX`] cells uses the sequential counter of Sinz (2005), so the formula stays
//! linear in the number of cells. See `formats/dimacs.md`.

use crate::complete::{Prepared, prepare};
use crate::exact::proof::{AtLeastOne, Direction, Format, Layout};
use crate::exact::{Residual, ones};
use crate::format::nqb::row_store::RowStore;
use crate::format::{AtomicFile, ErrorKind, FormatError, Input, quote};
use crate::verify::{Report, Requirements, verify};
use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// At-most-one over at most this many literals is written pairwise.
pub const PAIRWISE_MAX: usize = 5;

/// Largest residual (free rows) this build exports: its bitset has `m^2` bits.
pub const MAX_FREE_ROWS: usize = 1 << 15;

/// What a CNF export holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CnfSummary {
    /// Free rows (= free columns) of the instance.
    pub free_rows: u64,
    /// Cell variables (numbered 1 ..= cells).
    pub cells: u64,
    /// All variables.
    pub variables: u64,
    /// Clauses.
    pub clauses: u64,
}

/// Why an export or a read-back failed.
#[derive(Debug, thiserror::Error)]
pub enum DimacsError {
    /// A file could not be read or written, or is malformed.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The instance is not a valid composition.
    #[error(
        "{}: not a valid composition ({}), so there is no instance to encode",
        .0.display(),
        .1.first_problem().unwrap_or_default()
    )]
    Invalid(std::path::PathBuf, Box<Report>),
}

/// The residual of `input`, or why there is none.
pub(crate) fn residual_of(input: &Input) -> Result<Residual, DimacsError> {
    let store = RowStore::anonymous(input.n())
        .map_err(|e| FormatError::new(input.path(), ErrorKind::Read(e)))?;
    match prepare(input, store)? {
        Prepared::Invalid(report) => Err(DimacsError::Invalid(
            input.path().to_path_buf(),
            Box::new(report),
        )),
        Prepared::Ready(state, ..) => {
            let free = state.free();
            if free > MAX_FREE_ROWS as u64 {
                return Err(FormatError::new(
                    input.path(),
                    ErrorKind::Dimacs(format!(
                        "{free} free rows: CNF export takes at most {MAX_FREE_ROWS} (its size grows with their square)"
                    )),
                )
                .into());
            }
            Ok(state.residual())
        }
    }
}

/// Clauses being collected before the header (which states their count) is written, and
/// where each constraint went, for LRAT hints.
struct Clauses {
    text: Vec<u8>,
    count: u64,
    next_var: u64,
    layout: Layout,
}

/// A free row or column (residual order), whose at-least-one clause is recorded.
#[derive(Clone, Copy)]
enum Free {
    Row(usize),
    Column(usize),
}

impl Clauses {
    fn clause(&mut self, lits: impl IntoIterator<Item = i64>) {
        for l in lits {
            self.text.extend_from_slice(l.to_string().as_bytes());
            self.text.push(b' ');
        }
        self.text.extend_from_slice(b"0\n");
        self.count += 1;
    }

    fn fresh(&mut self) -> i64 {
        self.next_var += 1;
        self.next_var as i64
    }

    /// At most one of `vars` true, along a line in direction `dir`.
    fn at_most_one(&mut self, dir: Direction, vars: &[i64]) {
        let k = vars.len();
        let counter = k > PAIRWISE_MAX;
        self.layout.line(dir, vars, self.count + 1, counter);
        if !counter {
            for i in 0..k {
                for j in i + 1..k {
                    self.clause([-vars[i], -vars[j]]);
                }
            }
            return;
        }
        // s_i: some of x_1..x_i is true.
        let mut prev = self.fresh();
        self.clause([-vars[0], prev]);
        for &x in &vars[1..k - 1] {
            let s = self.fresh();
            self.clause([-x, s]);
            self.clause([-prev, s]);
            self.clause([-x, -prev]);
            prev = s;
        }
        self.clause([-vars[k - 1], -prev]);
    }

    /// Exactly one of `vars` true (an empty list makes the formula unsatisfiable): the
    /// cells of `line`.
    fn exactly_one(&mut self, line: Free, vars: &[i64]) {
        let alo = if vars.is_empty() {
            AtLeastOne::Empty(self.count + 1, self.count + 2)
        } else {
            AtLeastOne::Clause(self.count + 1)
        };
        match line {
            Free::Row(r) => self.layout.row(r, alo),
            Free::Column(c) => self.layout.column(c, alo),
        }
        if vars.is_empty() {
            let x = self.fresh();
            self.clause([x]);
            self.clause([-x]);
            return;
        }
        self.clause(vars.iter().copied());
        let dir = match line {
            Free::Row(_) => Direction::Row,
            Free::Column(_) => Direction::Column,
        };
        self.at_most_one(dir, vars);
    }
}

/// Writes the completion instance `input` as CNF to `dest`; returns the file unpublished.
pub fn write_cnf(input: &Input, dest: &Path) -> Result<(AtomicFile, CnfSummary), DimacsError> {
    let res = residual_of(input)?;
    let (file, summary, _) = write_residual_cnf(&res, input.n(), dest)?;
    Ok((file, summary))
}

/// Writes the completion instance whose residual (free rows x free columns of an n-board)
/// is `res` as CNF to `dest`, without reading the board again; returns the file
/// unpublished, what it holds, and the SHA-256 of its bytes (lowercase hex), by which a
/// certificate's document names it.
pub(crate) fn write_residual_cnf(
    res: &Residual,
    n: u64,
    dest: &Path,
) -> Result<(AtomicFile, CnfSummary, String), DimacsError> {
    if res.size() > MAX_FREE_ROWS {
        return Err(FormatError::new(
            dest,
            ErrorKind::Dimacs(format!(
                "{} free rows: CNF export takes at most {MAX_FREE_ROWS} (its size grows with their square)",
                res.size()
            )),
        )
        .into());
    }
    let (cl, summary) = encode(res, n);
    write_clauses(&cl, &summary, n, dest)
}

/// The format of a proof that a CNF is unsatisfiable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProofFormat {
    /// DRAT, text: the clauses alone (`rate`, `drat-trim`).
    #[default]
    Drat,
    /// LRAT, text: numbered clauses, each with the clauses unit propagation derives it
    /// from (`lrat-trim`, `lrat-check`, cake_lpr), checked many times faster.
    Lrat,
    /// LRAT, binary: the same proof in half the bytes, checked a quarter faster again
    /// (`lrat-trim`; `lrat-check` reads text only).
    LratBinary,
}

impl ProofFormat {
    /// The proof file's extension.
    pub fn extension(self) -> &'static str {
        match self {
            ProofFormat::Drat => "drat",
            ProofFormat::Lrat | ProofFormat::LratBinary => "lrat",
        }
    }

    /// The format's name, as `--proof` and the certificate's document give it.
    pub fn name(self) -> &'static str {
        match self {
            ProofFormat::Drat => "drat",
            ProofFormat::Lrat => "lrat",
            ProofFormat::LratBinary => "lrat-binary",
        }
    }
}

/// Where the pieces of a certificate's proof go, beside its document `C.json`: a proof in
/// one piece is `C.drat` or `C.lrat`; one split into parts (cube and conquer:
/// `exact::proof::Piece`) is its top, `C.top.lrat`, and its parts,
/// `C.part0001.lrat` on (formats/certificate.md).
#[derive(Debug, Clone)]
pub struct ProofPaths {
    certificate: PathBuf,
    format: ProofFormat,
}

impl ProofPaths {
    /// The proof's files beside the certificate `certificate`, in `format`.
    pub fn new(certificate: &Path, format: ProofFormat) -> ProofPaths {
        ProofPaths {
            certificate: certificate.to_path_buf(),
            format,
        }
    }

    /// A proof in one piece.
    pub fn whole(&self) -> PathBuf {
        self.certificate.with_extension(self.format.extension())
    }

    /// The top of a split proof.
    pub fn top(&self) -> PathBuf {
        self.certificate
            .with_extension(format!("top.{}", self.format.extension()))
    }

    /// Part `k` (from 1) of a split proof.
    pub fn part(&self, k: usize) -> PathBuf {
        self.certificate
            .with_extension(format!("part{k:04}.{}", self.format.extension()))
    }

    /// The certificate (its file name without extension, as text) of whose split proof a
    /// proof beside `certificate`, whole, would be a piece: `c.top.json` or
    /// `c.part0001.json` gives `c`.
    pub fn piece_of(certificate: &Path) -> Option<String> {
        let stem = certificate.file_stem()?.as_encoded_bytes();
        let (other, piece) = stem.split_at(stem.iter().rposition(|&b| b == b'.')?);
        let piece = &piece[1..];
        let part = piece
            .strip_prefix(b"part")
            .is_some_and(|d| d.len() >= 4 && d.iter().all(u8::is_ascii_digit));
        // A hidden name (`.top.json`) has no certificate before it.
        (!other.is_empty() && (piece == b"top" || part))
            .then(|| String::from_utf8_lossy(other).into_owned())
    }

    /// Whether the file name `name` is one a proof beside the certificate could have, in
    /// any format: whole, top or part.
    pub fn is_piece_name(certificate: &Path, name: &std::ffi::OsStr) -> bool {
        let Some(stem) = certificate.file_stem() else {
            return false;
        };
        let (stem, name) = (stem.as_encoded_bytes(), name.as_encoded_bytes());
        let Some(rest) = name.strip_prefix(stem).and_then(|r| r.strip_prefix(b".")) else {
            return false;
        };
        [ProofFormat::Drat, ProofFormat::Lrat].iter().any(|f| {
            let ext = f.extension().as_bytes();
            if rest == ext {
                return true;
            }
            let Some(piece) = rest.strip_suffix(ext).and_then(|r| r.strip_suffix(b".")) else {
                return false;
            };
            piece == b"top"
                || piece.strip_prefix(b"part").is_some_and(|digits| {
                    digits.len() >= 4 && digits.iter().all(u8::is_ascii_digit)
                })
        })
    }
}

/// A proof beside a CNF, or why there is none.
pub enum Proof {
    /// Written, unpublished: `lemmas` clauses added (the last of each piece the empty
    /// clause), `deletions` deleted.
    Written {
        /// The proof's files, to commit: the whole proof, or the top and then the parts
        /// (those of the shard asked for).
        files: Vec<AtomicFile>,
        /// The pieces written, one per file in the same order: 0 for the whole proof or
        /// the top, k for part k.
        pieces: Vec<usize>,
        /// A split proof's cubes, part by part (CNF variables: the part's unit clauses,
        /// and the literals, negated, of one clause of the top's); none in one piece.
        cubes: Vec<Vec<u32>>,
        /// Clauses added, by the pieces written.
        lemmas: u64,
        /// Clauses deleted, by the pieces written.
        deletions: u64,
        /// Nodes of the proof's search, all pieces written together.
        nodes: u64,
    },
    /// Not written, for this reason.
    Missing(String),
    /// Stopped from outside before it was complete (nothing written).
    Stopped,
}

/// Nodes at most in the search of a certificate's proof, unless the caller says otherwise:
/// each is a clause or three, 100-150 bytes each.
pub const PROOF_NODES: u64 = crate::exact::proof::MAX_NODES;

/// Parts at most a proof is split into: each is a file held open until all are written.
pub const MAX_PROOF_PARTS: usize = 1000;

/// Nodes of the engine's search from which `--proof-parts auto` splits a proof.
pub const AUTO_SPLIT_NODES: u64 = 1 << 22;

/// Parts (about) of a split by `--proof-parts auto`: enough for the cores of a large
/// machine, and for uneven parts to even out on a small one.
pub const AUTO_PARTS: usize = 64;

/// How a certificate's proof is searched and written: its format, the nodes its search
/// may take, and about how many parts it is split into (1: one piece; more: the nodes that
/// branch at the depth whose count of them is nearest, written at once on the threads of
/// the current pool; `exact::proof::plan`).
#[derive(Debug, Clone, Copy)]
pub struct ProofOptions {
    /// The format.
    pub format: ProofFormat,
    /// Nodes at most, all pieces together.
    pub max_nodes: u64,
    /// Parts, about (see above).
    pub parts: usize,
    /// The pieces to write: all, or one shard's.
    pub shard: ProofShard,
}

/// Which pieces of a proof one run writes (`complete --proof-shard I/S`): piece 0 (the
/// whole proof, or the top of a split one) and part k are shard `0 % S` and `k % S`. The
/// pieces of every shard together are the proof, the same files as one run writes
/// whole: the split is the proof's own search, the same on every run. It bounds the disk a
/// proof needs to one shard's share, for a proof larger than the disk that is checked a
/// shard at a time (tools/prove_in_shards.py).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofShard {
    /// This shard, from 0.
    pub index: usize,
    /// Shards in all, from 1.
    pub of: usize,
}

impl ProofShard {
    /// Every piece: one shard of one.
    pub const ALL: ProofShard = ProofShard { index: 0, of: 1 };

    /// Whether piece `piece` (0: the whole proof or the top; k: part k) is this shard's.
    pub fn holds(self, piece: usize) -> bool {
        piece % self.of == self.index
    }
}

/// Writes to `paths` a proof that the CNF of residual `res` on an `n`-board
/// ([`write_residual_cnf`]) is unsatisfiable, if one exists by the proof search of
/// [`crate::exact::proof`] within `opts.max_nodes` nodes; returns the files unpublished, or
/// why there is no proof (the partial files are removed).
pub(crate) fn write_residual_proof(
    res: &Residual,
    n: u64,
    opts: ProofOptions,
    paths: &ProofPaths,
    stop: &crate::stop::Stop,
) -> Result<Proof, DimacsError> {
    use crate::exact::proof::{Budget, Piece, Plan, ProofEnd, plan, write_piece};
    use rayon::prelude::*;
    if opts.max_nodes == 0 {
        return Ok(Proof::Missing(
            "no proof was asked for (--proof-limit 0)".into(),
        ));
    }
    let layout;
    let format = match opts.format {
        ProofFormat::Drat => Format::Drat,
        ProofFormat::Lrat | ProofFormat::LratBinary => {
            layout = encode(res, n).0.layout;
            Format::Lrat {
                layout: &layout,
                binary: opts.format == ProofFormat::LratBinary,
            }
        }
    };
    let budget = Budget::new(opts.max_nodes);
    let piece = |dest: &Path, piece: Piece| -> Result<(AtomicFile, ProofEnd), DimacsError> {
        let file = AtomicFile::create(dest)?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let end = write_piece(res, format, piece, &budget, stop, &mut out)
            .map_err(|e| FormatError::new(dest, ErrorKind::Write(e)))?;
        Ok((AtomicFile::unbuffer(out)?, end))
    };
    let planned = plan(res, format, opts.parts, opts.max_nodes, stop)
        .map_err(|e| FormatError::new(&paths.top(), ErrorKind::Write(e)))?;
    let shard = opts.shard;
    let (written, cubes) = match planned {
        Plan::Ended(end) => (vec![], Err(end)),
        Plan::Whole if shard.holds(0) => (
            vec![(0, piece(&paths.whole(), Piece::Whole)?)],
            Ok(Vec::new()),
        ),
        // Another shard's: nothing of the proof is searched here.
        Plan::Whole => (vec![], Ok(Vec::new())),
        Plan::Split { depth, cubes } => {
            let mine: Vec<usize> = (1..=cubes.len()).filter(|&k| shard.holds(k)).collect();
            // Every piece is a file held open until all are published.
            let needed = mine.len() as u64 + crate::format::open_files() + 64;
            if let Err(limit) = crate::format::raise_open_files(needed) {
                let why = format!(
                    "{} parts need as many files open at once, and this process may open {limit} (ulimit -n): ask for fewer --proof-parts, or more --proof-shard shards",
                    mine.len()
                );
                return Err(FormatError::new(
                    &paths.top(),
                    ErrorKind::Write(std::io::Error::other(why)),
                )
                .into());
            }
            // The parts at once (each its own search and file), then the top, which is
            // small: the tree above the cubes.
            let mut parts = mine
                .par_iter()
                .map(|&k| {
                    let cube = &cubes[k - 1];
                    Ok((k, piece(&paths.part(k), Piece::Part { cube })?))
                })
                .collect::<Result<Vec<_>, DimacsError>>()?;
            if shard.holds(0) {
                let top = Piece::Top {
                    depth,
                    cubes: &cubes,
                };
                parts.insert(0, (0, piece(&paths.top(), top)?));
            }
            (parts, Ok(cubes))
        }
    };
    // The pieces' ends as one: any stopped from outside stops the proof; else more nodes
    // than the limit, all pieces together, make it too large, whatever piece saw it first;
    // else the first that did not prove its part, or all proved, their clauses summed.
    let ends: Vec<ProofEnd> = written.iter().map(|(_, (_, end))| *end).collect();
    let end = match cubes {
        Err(end) => end,
        Ok(_) if ends.contains(&ProofEnd::Stopped) => ProofEnd::Stopped,
        Ok(_) if budget.exceeded() => ProofEnd::TooLarge {
            limit: budget.limit(),
        },
        Ok(_) => ends
            .iter()
            .try_fold((0, 0), |(l, d), end| match *end {
                ProofEnd::Proved { lemmas, deletions } => Ok((l + lemmas, d + deletions)),
                other => Err(other),
            })
            .map_or_else(
                |other| other,
                |(lemmas, deletions)| ProofEnd::Proved { lemmas, deletions },
            ),
    };
    match end {
        ProofEnd::Proved { lemmas, deletions } => {
            let (pieces, files) = written.into_iter().map(|(k, (file, _))| (k, file)).unzip();
            Ok(Proof::Written {
                files,
                pieces,
                cubes: cubes.expect("proved"),
                lemmas,
                deletions,
                nodes: budget.spent(),
            })
        }
        ProofEnd::TooLarge { limit } => Ok(Proof::Missing(format!(
            "the proof search of the {} free rows needs more than {limit} node{} (--proof-limit)",
            res.size(),
            if limit == 1 { "" } else { "s" }
        ))),
        // The deadline (the command's time limit) ends only the proof: the answer stands.
        ProofEnd::Stopped if !stop.raised() => Ok(Proof::Missing(
            "the time limit ran out during the proof search".into(),
        )),
        ProofEnd::Stopped => Ok(Proof::Stopped),
        ProofEnd::Satisfiable => Ok(Proof::Missing(
            "the proof search found a completion: the residual is satisfiable (a bug: please report it)"
                .into(),
        )),
    }
}

/// The clauses of the completion instance with residual `res` on an `n`-board, and their
/// sizes.
fn encode(res: &Residual, n: u64) -> (Clauses, CnfSummary) {
    let m = res.size();
    let mut var_of = vec![0i64; m * res.words() * 64];
    let mut cells = 0u64;
    for r in 0..m {
        for c in ones(res.row_bits(r)) {
            cells += 1;
            var_of[r * m + c] = cells as i64;
        }
    }
    let mut cl = Clauses {
        text: Vec::new(),
        count: 0,
        next_var: cells,
        layout: Layout::new(cells as usize),
    };
    let mut cols: Vec<Vec<i64>> = vec![Vec::new(); m];
    let mut d1: BTreeMap<u64, Vec<i64>> = BTreeMap::new();
    let mut d2: BTreeMap<u64, Vec<i64>> = BTreeMap::new();
    for r in 0..m {
        let mut row = Vec::new();
        for c in ones(res.row_bits(r)) {
            let v = var_of[r * m + c];
            row.push(v);
            cols[c].push(v);
            d1.entry(n + res.cols[c] - res.rows[r]).or_default().push(v);
            d2.entry(res.rows[r] + res.cols[c]).or_default().push(v);
        }
        cl.exactly_one(Free::Row(r), &row);
    }
    for (c, col) in cols.iter().enumerate() {
        cl.exactly_one(Free::Column(c), col);
    }
    for diag in d1.values() {
        cl.at_most_one(Direction::D1, diag);
    }
    for diag in d2.values() {
        cl.at_most_one(Direction::D2, diag);
    }
    cl.layout.finish(cl.count);
    let summary = CnfSummary {
        free_rows: m as u64,
        cells,
        variables: cl.next_var,
        clauses: cl.count,
    };
    (cl, summary)
}

fn write_clauses(
    cl: &Clauses,
    summary: &CnfSummary,
    n: u64,
    dest: &Path,
) -> Result<(AtomicFile, CnfSummary, String), DimacsError> {
    use sha2::{Digest, Sha256};
    let (m, cells) = (summary.free_rows, summary.cells);
    let file = AtomicFile::create(dest)?;
    let fail = |e| FormatError::new(dest, ErrorKind::Write(e));
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let header = format!(
        "c nqueens completion instance, formats/dimacs.md\n\
         c nqueens n {n}\nc nqueens free-rows {m}\nc nqueens cells {cells}\n\
         c variable v <= cells is the queen at the v-th free cell: free rows increasing, then\n\
         c free columns increasing; read a model back with\n\
         c   nqueens convert --model MODEL --base INSTANCE OUT\n\
         p cnf {} {}\n",
        summary.variables, summary.clauses
    );
    out.write_all(header.as_bytes()).map_err(fail)?;
    out.write_all(&cl.text).map_err(fail)?;
    let file = AtomicFile::unbuffer(out)?;
    let digest = Sha256::new()
        .chain_update(header.as_bytes())
        .chain_update(&cl.text)
        .finalize();
    let hex = digest.iter().map(|b| format!("{b:02x}")).collect();
    Ok((file, *summary, hex))
}

/// What a SAT solver's output says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Model {
    /// The solution: the base with the model's queens added, checked in full.
    Solution(Vec<u32>),
    /// The solver proved the formula unsatisfiable: the instance has no completion.
    Unsatisfiable,
}

/// Reads the solver output at `model` (competition format: `s` and `v` lines; a bare list
/// of literals ending in 0 is also accepted) for the instance `base`.
pub fn read_model(model: &Path, base: &Input) -> Result<Model, DimacsError> {
    let fail = |detail: String| FormatError::new(model, ErrorKind::Dimacs(detail));
    // Literals are checked against the instance's own variable count before anything is
    // sized from them: a stray huge literal is an error, not an allocation.
    let res = residual_of(base)?;
    let variables = encode(&res, base.n()).1.variables;
    // A model lists each variable once, as at most 21 characters and a space, beside the
    // solver's comments (a few kilobytes): more than that is not a model of this instance.
    let limit = (1u64 << 20).saturating_add(variables.saturating_mul(22));
    let text = crate::format::read_bounded(model, limit, "a SAT model of this instance")?;
    let text = String::from_utf8_lossy(&text);
    let (status, values) = parse_solver_output(&text, variables, base).map_err(fail)?;
    match status.as_deref() {
        Some("UNSATISFIABLE") => return Ok(Model::Unsatisfiable),
        Some("SATISFIABLE") | None => {}
        Some(other) => {
            return Err(fail(format!(
                "the solver's status is {}, not SATISFIABLE",
                quote(other)
            ))
            .into());
        }
    }
    let mut rows = base.to_vec()?;
    let mut var = 0usize;
    let mut row_var = vec![0usize; res.size()];
    for r in 0..res.size() {
        for c in ones(res.row_bits(r)) {
            var += 1;
            match values.get(var - 1).copied().flatten() {
                None => {
                    return Err(fail(format!(
                        "variable {var} (row {}, column {}) has no value: the model is for another instance or cut short",
                        res.rows[r], res.cols[c]
                    ))
                    .into());
                }
                Some(false) => {}
                Some(true) if row_var[r] != 0 => {
                    return Err(fail(format!(
                        "variables {} and {var} both put a queen in row {}: the model contradicts the instance",
                        row_var[r], res.rows[r]
                    ))
                    .into());
                }
                Some(true) => {
                    row_var[r] = var;
                    rows[res.rows[r] as usize - 1] = res.cols[c] as u32;
                }
            }
        }
    }
    // An instance with no variable (a board with no free row) has the empty model, which
    // solvers print as `s SATISFIABLE` and `v 0`; without a status line, an empty file is
    // no model at all.
    if values.is_empty() && status.is_none() {
        return Err(fail("no model: no `v` lines and no literals".into()).into());
    }
    let solution = Input::from_rows(model, "model", &rows)?;
    let report = verify(
        &solution,
        Requirements {
            complete: true,
            base: Some(base),
            kept: None,
        },
    )?;
    if let Some(why) = report.first_problem() {
        return Err(fail(format!("the model contradicts the instance: {why}")).into());
    }
    Ok(Model::Solution(rows))
}

/// A SAT solver's status line and the value of each variable it printed, from its output
/// in the SAT competition's format (`s` and `v` lines) or MiniSat's (a bare status line,
/// then the literals).
fn parse_solver_output(
    text: &str,
    variables: u64,
    base: &Input,
) -> Result<(Option<String>, Vec<Option<bool>>), String> {
    let mut values: Vec<Option<bool>> = vec![None; variables as usize];
    let mut status: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        let mut set_status = |s: &str| match &status {
            // Two answers in one output (two runs appended, or an edited file): which one
            // holds is not ours to guess.
            Some(old) if old != s => Err(format!(
                "line {}: a second status line {} after {}: the output holds two answers",
                i + 1,
                quote(s),
                quote(old)
            )),
            _ => {
                status = Some(s.to_string());
                Ok(())
            }
        };
        let lits = if let Some(s) = line.strip_prefix("s ") {
            set_status(s.trim())?;
            continue;
        } else if let Some(v) = line.strip_prefix("v ") {
            v
        } else if line.is_empty() || line.starts_with('c') {
            continue;
        } else if let Some(s) = match line {
            // MiniSat's result file: a bare status line, then the literals.
            "SAT" | "SATISFIABLE" => Some("SATISFIABLE"),
            "UNSAT" | "UNSATISFIABLE" => Some("UNSATISFIABLE"),
            _ => None,
        } {
            set_status(s)?;
            continue;
        } else {
            line
        };
        for tok in lits.split_whitespace() {
            let lit: i64 = tok
                .parse()
                .map_err(|_| format!("line {}: {} is not a literal", i + 1, quote(tok)))?;
            if lit == 0 {
                continue;
            }
            let v = lit.unsigned_abs();
            if v > variables {
                return Err(format!(
                    "line {}: literal {lit} names no variable: the CNF of {} has {variables}",
                    i + 1,
                    base.path().display()
                ));
            }
            let slot = &mut values[v as usize - 1];
            if slot.is_some_and(|was| was != (lit > 0)) {
                return Err(format!(
                    "line {}: variable {v} is given both signs: not a model",
                    i + 1
                ));
            }
            *slot = Some(lit > 0);
        }
    }
    Ok((status, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every assignment of the cell variables that extends to a model of the formula,
    /// by brute force over the cells and a unit-propagation-free check of the auxiliaries.
    fn satisfiable_cells(cnf: &str, cells: usize) -> Vec<Vec<bool>> {
        let (mut vars, mut clauses) = (0usize, Vec::new());
        for line in cnf.lines() {
            if let Some(p) = line.strip_prefix("p cnf ") {
                vars = p.split_whitespace().next().unwrap().parse().unwrap();
            } else if !line.starts_with('c') {
                let c: Vec<i64> = line
                    .split_whitespace()
                    .map(|t| t.parse().unwrap())
                    .collect();
                clauses.push(c[..c.len() - 1].to_vec());
            }
        }
        let mut out = Vec::new();
        for mask in 0u64..1 << cells {
            let aux = vars - cells;
            let sat = (0u64..1 << aux).any(|a| {
                let val = |l: i64| {
                    let v = l.unsigned_abs() as usize - 1;
                    let b = if v < cells {
                        mask >> v & 1
                    } else {
                        a >> (v - cells) & 1
                    };
                    (b == 1) == (l > 0)
                };
                clauses.iter().all(|c| c.iter().any(|&l| val(l)))
            });
            if sat {
                out.push((0..cells).map(|v| mask >> v & 1 == 1).collect());
            }
        }
        out
    }

    #[test]
    fn models_are_exactly_the_completions() {
        let dir = tempfile::tempdir().unwrap();
        let mut with_completions = 0;
        // Residuals of 3 free rows (small enough to enumerate every assignment), one of
        // them without completion (the 4-board's solutions have no queen in a corner).
        for (k, rows) in [
            vec![2, 4, 6, 0, 0, 0],
            vec![1, 5, 8, 6, 3, 0, 0, 0],
            vec![1, 0, 5, 0, 2, 0, 6],
            vec![1, 0, 0, 0],
        ]
        .iter()
        .enumerate()
        {
            let input = Input::from_rows(Path::new("i"), "memory", rows).unwrap();
            let dest = dir.path().join(format!("{k}.cnf"));
            let (file, s) = write_cnf(&input, &dest).unwrap();
            file.commit().unwrap();
            let cnf = std::fs::read_to_string(&dest).unwrap();
            assert!(
                s.cells <= 16 && s.variables - s.cells <= 12,
                "{rows:?}: too big"
            );
            let models = satisfiable_cells(&cnf, s.cells as usize);
            // Each model, read back, is a full solution; their number is the completions'.
            let mut solutions = Vec::new();
            for m in &models {
                let lits: Vec<String> = m
                    .iter()
                    .enumerate()
                    .map(|(v, &b)| format!("{}{}", if b { "" } else { "-" }, v + 1))
                    .collect();
                let mf = dir.path().join("model");
                std::fs::write(&mf, format!("s SATISFIABLE\nv {} 0\n", lits.join(" "))).unwrap();
                match read_model(&mf, &input).unwrap() {
                    Model::Solution(s) => solutions.push(s),
                    Model::Unsatisfiable => unreachable!(),
                }
            }
            let want = crate::oracle::completions(rows);
            solutions.sort();
            assert_eq!(solutions, want, "{rows:?}");
            with_completions += !want.is_empty() as usize;
        }
        // Not vacuous: three instances have completions, the corner one none.
        assert_eq!(with_completions, 3);
    }

    #[test]
    fn at_most_one_by_counter_is_exact() {
        for k in 1..=9usize {
            let mut cl = Clauses {
                text: Vec::new(),
                count: 0,
                next_var: k as u64,
                layout: Layout::new(k),
            };
            let vars: Vec<i64> = (1..=k as i64).collect();
            cl.at_most_one(Direction::Row, &vars);
            let text = format!(
                "p cnf {} {}\n{}",
                cl.next_var,
                cl.count,
                String::from_utf8(cl.text).unwrap()
            );
            let ok = satisfiable_cells(&text, k);
            assert!(ok.iter().all(|m| m.iter().filter(|&&b| b).count() <= 1));
            assert_eq!(ok.len(), k + 1, "k = {k}");
        }
    }

    /// A binary LRAT proof written out as text: a deletion line takes the number of the
    /// clause added last, as the text writer gives it.
    fn binary_as_text(bytes: &[u8]) -> String {
        fn number(bytes: &[u8], at: &mut usize) -> i64 {
            let (mut u, mut shift) = (0u64, 0);
            loop {
                let b = bytes[*at];
                *at += 1;
                u |= ((b & 127) as u64) << shift;
                shift += 7;
                if b < 128 {
                    break;
                }
            }
            let v = (u >> 1) as i64;
            if u & 1 == 1 { -v } else { v }
        }
        let mut at = 0;
        let mut text = String::new();
        let mut last = 0;
        while let Some(&tag) = bytes.get(at) {
            at += 1;
            let mut fields: Vec<i64> = Vec::new();
            let zeros = if tag == b'a' {
                last = number(bytes, &mut at);
                fields.push(last);
                2
            } else {
                assert_eq!(tag, b'd');
                fields.push(last);
                1
            };
            let mut seen = 0;
            while seen < zeros {
                let v = number(bytes, &mut at);
                fields.push(v);
                seen += (v == 0) as usize;
            }
            let mut words: Vec<String> = fields.iter().map(i64::to_string).collect();
            if tag == b'd' {
                words.insert(1, "d".into());
            }
            text.push_str(&words.join(" "));
            text.push('\n');
        }
        text
    }

    /// Checks an LRAT proof (text) of the CNF `cnf` (text) as an LRAT checker does, but
    /// strictly: every hint unit or falsified, the last falsified, clause numbers
    /// increasing; the proof must end in the empty clause.
    fn lrat_verified(cnf: &str, proof: &str) -> Result<(), String> {
        let mut clauses = std::collections::HashMap::new();
        let mut last = 0u64;
        for line in cnf.lines().filter(|l| !l.starts_with(['c', 'p'])) {
            let lits: Vec<i64> = line
                .split_whitespace()
                .map(|t| t.parse().unwrap())
                .collect();
            last += 1;
            clauses.insert(last, lits[..lits.len() - 1].to_vec());
        }
        for line in proof.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            if w[1] == "d" {
                for id in &w[2..w.len() - 1] {
                    clauses.remove(&id.parse::<u64>().unwrap()).ok_or(line)?;
                }
                continue;
            }
            let id: u64 = w[0].parse().unwrap();
            let nums: Vec<i64> = w[1..].iter().map(|t| t.parse().unwrap()).collect();
            let z = nums.iter().position(|&x| x == 0).unwrap();
            let (lits, hints) = (&nums[..z], &nums[z + 1..nums.len() - 1]);
            if id <= last {
                return Err(format!("{line}: number does not increase"));
            }
            let mut truth: std::collections::HashSet<i64> = lits.iter().map(|l| -l).collect();
            let mut conflict = false;
            for &h in hints {
                let c = clauses
                    .get(&(h as u64))
                    .ok_or(format!("{line}: hint {h}"))?;
                let open: Vec<i64> = c.iter().copied().filter(|l| !truth.contains(&-l)).collect();
                match open[..] {
                    [] => {
                        conflict = true;
                        break;
                    }
                    [l] if !truth.contains(&l) => {
                        truth.insert(l);
                    }
                    _ => return Err(format!("{line}: hint {h} is not unit")),
                }
            }
            if !conflict {
                return Err(format!("{line}: no conflict"));
            }
            clauses.insert(id, lits.to_vec());
            last = id;
            if lits.is_empty() {
                return Ok(());
            }
        }
        Err("no empty clause".into())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// On boards of 5 to 11 with random queens kept (2,000 cases: one of 1,600 once found a
        /// hint repeated), the LRAT proof of every residual
        /// without completion checks (lines of up to 11 cells: pairwise and counter
        /// at-most-ones both); a residual with one gets none.
        #[test]
        fn lrat_proofs_check_exactly_when_no_completion_exists(
            n in 5usize..=11,
            keep in proptest::collection::vec(0u32..=12, 11),
        ) {
            // Rows in turn keep their drawn column when no earlier queen attacks it.
            let mut rows = vec![0u32; n];
            for i in 0..n {
                if keep[i] as usize <= n && crate::oracle::free_cell(&rows, i, keep[i]) {
                    rows[i] = keep[i];
                }
            }
            let input = Input::from_rows(Path::new("i"), "memory", &rows).unwrap();
            let res = residual_of(&input).unwrap();
            let (cl, _) = encode(&res, n as u64);
            let cnf = String::from_utf8(cl.text.clone()).unwrap();
            let write = |binary| {
                let mut out = Vec::new();
                let format = Format::Lrat { layout: &cl.layout, binary };
                let stop = crate::stop::Stop::never();
                let end = crate::exact::proof::write_proof(&res, format, 1_000_000, &stop, &mut out);
                (end.unwrap(), out)
            };
            let (end, proof) = write(false);
            let proof = String::from_utf8(proof).unwrap();
            // The binary proof is the same proof, encoded otherwise.
            proptest::prop_assert_eq!(binary_as_text(&write(true).1), proof.clone());
            use crate::exact::proof::ProofEnd;
            if crate::oracle::completable(&rows) {
                proptest::prop_assert_eq!(end, ProofEnd::Satisfiable);
            } else {
                proptest::prop_assert!(matches!(end, ProofEnd::Proved { .. }), "{:?}", end);
                if let Err(e) = lrat_verified(&cnf, &proof) {
                    return Err(proptest::test_runner::TestCaseError::fail(format!("{rows:?}: {e}\n{proof}")));
                }
                // A proof without its last line (the empty clause) proves nothing.
                let cut: Vec<&str> = proof.lines().filter(|l| !l.contains(" d ")).collect();
                proptest::prop_assert!(lrat_verified(&cnf, &cut[..cut.len() - 1].join("\n")).is_err());
                // Split into parts, every piece checks against its own CNF.
                for parts in [2, 5] {
                    if let Err(e) = split_verified(&res, &cl, &cnf, parts) {
                        return Err(proptest::test_runner::TestCaseError::fail(format!("{rows:?}, {parts} parts: {e}")));
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(120))]
        /// Excluded Diagonals instances of 8 to 11 rows (their reduced boards: the frontier's
        /// residuals, whose searches are deep): every piece of the proof of each without
        /// completion checks, split into 2, 3 and 8 parts, and (one case in eight) into as
        /// many as the tree has at its widest depth when asked for more than any has.
        #[test]
        fn split_lrat_proofs_check_piece_by_piece(
            m in 8u64..=11,
            extra in 0usize..=3,
            seed in 0u64..1_000_000,
        ) {
            let diagonals = crate::excluded::generate(m, seed, 4);
            let d = (m as usize - 1 + extra).min(diagonals.len());
            let ed = crate::excluded::ExcludedDiagonals::new(m, &diagonals[..d]);
            let board = ed.reduce();
            let input = Input::from_rows(Path::new("i"), "memory", &board.rows).unwrap();
            let res = residual_of(&input).unwrap();
            let (cl, _) = encode(&res, board.n);
            let cnf = String::from_utf8(cl.text.clone()).unwrap();
            let stop = crate::stop::Stop::never();
            let format = Format::Lrat { layout: &cl.layout, binary: false };
            let whole = crate::exact::proof::write_proof(&res, format, 1_000_000, &stop, &mut std::io::sink());
            proptest::prop_assume!(whole.unwrap() != crate::exact::proof::ProofEnd::Satisfiable);
            // Asked for more than any depth has: one case in eight (each scans every depth).
            let widest = (seed % 8 == 0).then_some(100_000);
            for parts in [2, 3, 8].into_iter().chain(widest) {
                if let Err(e) = split_verified(&res, &cl, &cnf, parts) {
                    return Err(proptest::test_runner::TestCaseError::fail(format!("m {m}, d {d}, seed {seed}, {parts} parts: {e}")));
                }
            }
        }
    }

    /// Writes the proof of `res` split into at least `parts` parts (LRAT, text) and checks
    /// each piece against the CNF `cnf` with the clauses the piece assumes: a part, its
    /// cube's unit clauses; the top, each cube's clause.
    fn split_verified(res: &Residual, cl: &Clauses, cnf: &str, parts: usize) -> Result<(), String> {
        use crate::exact::proof::{Budget, Piece, Plan, ProofEnd, plan, write_piece};
        let format = Format::Lrat {
            layout: &cl.layout,
            binary: false,
        };
        let stop = crate::stop::Stop::never();
        let (depth, cubes) = match plan(res, format, parts, 1_000_000, &stop).unwrap() {
            Plan::Split { depth, cubes } => (depth, cubes),
            Plan::Whole => return Ok(()),
            Plan::Ended(end) => return Err(format!("plan: {end:?}")),
        };
        assert!(cubes.len() >= 2);
        assert!(cubes.iter().all(|c| c.len() == depth));
        let budget = Budget::new(1_000_000);
        let piece = |piece| {
            let mut out = Vec::new();
            let end = write_piece(res, format, piece, &budget, &stop, &mut out).unwrap();
            assert!(matches!(end, ProofEnd::Proved { .. }), "{end:?}");
            String::from_utf8(out).unwrap()
        };
        let top_cnf: String = cubes
            .iter()
            .map(|c| c.iter().map(|v| format!("-{v} ")).collect::<String>() + "0\n")
            .collect();
        lrat_verified(
            &format!("{cnf}{top_cnf}"),
            &piece(Piece::Top {
                depth,
                cubes: &cubes,
            }),
        )
        .map_err(|e| format!("top: {e}"))?;
        for (k, cube) in cubes.iter().enumerate() {
            let units: String = cube.iter().map(|v| format!("{v} 0\n")).collect();
            let proof = piece(Piece::Part { cube });
            lrat_verified(&format!("{cnf}{units}"), &proof)
                .map_err(|e| format!("part {k}: {e}"))?;
            // A part whose last clause names its cube's units proves nothing without them.
            let units: Vec<String> = (1..=cube.len() as u64)
                .map(|k| (cl.count + k).to_string())
                .collect();
            let last = proof.lines().last().unwrap_or_default();
            let hints = last.split(" 0 ").nth(1).unwrap_or_default();
            if hints
                .split_whitespace()
                .any(|h| units.iter().any(|u| u == h))
            {
                let without: String = (0..cube.len()).map(|_| "1 -1 0\n").collect();
                if lrat_verified(&format!("{cnf}{without}"), &proof).is_ok() {
                    return Err(format!("part {k} checks without its cube"));
                }
            }
        }
        Ok(())
    }

    /// A deadline (the command's time limit) ends only the proof, which is then missing
    /// with that reason; a raised flag (a signal) stops the whole certificate.
    #[test]
    fn a_deadline_leaves_the_proof_missing_and_a_signal_stops_it() {
        let dir = tempfile::tempdir().unwrap();
        let res = Residual::from_queens(4, &[(1, 1)]);
        let past = std::time::Instant::now();
        let deadline = crate::stop::Stop::new(Some(past), None);
        for format in [
            ProofFormat::Drat,
            ProofFormat::Lrat,
            ProofFormat::LratBinary,
        ] {
            for parts in [1, 4] {
                let opts = ProofOptions {
                    format,
                    max_nodes: PROOF_NODES,
                    parts,
                    shard: ProofShard::ALL,
                };
                let paths = ProofPaths::new(&dir.path().join("p.json"), format);
                match write_residual_proof(&res, 4, opts, &paths, &deadline).unwrap() {
                    Proof::Missing(why) => assert!(why.contains("time limit"), "{why}"),
                    _ => panic!("a proof past its deadline"),
                }
                let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
                let signal = crate::stop::Stop::new(None, Some(flag));
                assert!(matches!(
                    write_residual_proof(&res, 4, opts, &paths, &signal).unwrap(),
                    Proof::Stopped
                ));
            }
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// The residual of a random `n`-board without completion: each row given a queen with
    /// probability `p` where its random column is free, drawn again until none exists.
    fn random_infeasible(rng: &mut rand::rngs::StdRng, n: usize, p: f64) -> Residual {
        use rand::RngExt;
        loop {
            let mut rows = vec![0u32; n];
            for i in 0..n {
                let j = rng.random_range(1..=n as u32);
                if rng.random_bool(p) && crate::oracle::free_cell(&rows, i, j) {
                    rows[i] = j;
                }
            }
            if !crate::oracle::completable(&rows) {
                let input = Input::from_rows(Path::new("i"), "memory", &rows).unwrap();
                return residual_of(&input).unwrap();
            }
        }
    }

    /// A split proof's nodes are those of all its pieces: one fewer than they take leaves
    /// the proof missing, and nothing written; as many gives every piece.
    #[test]
    fn a_split_proof_counts_the_nodes_of_all_its_pieces() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let stop = crate::stop::Stop::never();
        let n = 12;
        let (res, nodes, pieces) = loop {
            let res = random_infeasible(&mut rng, n, 0.25);
            let dir = tempfile::tempdir().unwrap();
            let paths = ProofPaths::new(&dir.path().join("p.json"), ProofFormat::Lrat);
            let opts = ProofOptions {
                format: ProofFormat::Lrat,
                max_nodes: PROOF_NODES,
                parts: 3,
                shard: ProofShard::ALL,
            };
            if let Proof::Written { files, nodes, .. } =
                write_residual_proof(&res, n as u64, opts, &paths, &stop).unwrap()
                && files.len() > 1
            {
                break (res, nodes, files.len());
            }
        };
        for (limit, written) in [(nodes - 1, 0), (nodes, pieces)] {
            let dir = tempfile::tempdir().unwrap();
            let paths = ProofPaths::new(&dir.path().join("p.json"), ProofFormat::LratBinary);
            let opts = ProofOptions {
                format: ProofFormat::LratBinary,
                max_nodes: limit,
                parts: 3,
                shard: ProofShard::ALL,
            };
            match write_residual_proof(&res, n as u64, opts, &paths, &stop).unwrap() {
                Proof::Written { files, .. } => {
                    assert_eq!(files.len(), written);
                    for f in files {
                        f.commit().unwrap();
                    }
                }
                Proof::Missing(why) => {
                    assert_eq!(written, 0);
                    assert!(why.contains("more than"), "{why}");
                }
                Proof::Stopped => panic!("stopped"),
            }
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), written);
        }
    }

    /// The pieces of every shard of a proof, together, are the pieces one run writes,
    /// byte for byte, with the same cubes; each shard writes only its own, and a proof
    /// written whole is shard 0's.
    #[test]
    fn the_shards_of_a_proof_are_its_pieces() {
        let stop = crate::stop::Stop::never();
        // A random infeasible 13-board with some hundreds of nodes to prove.
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let n = 13;
        let res = loop {
            let res = random_infeasible(&mut rng, n, 0.2);
            if res.size() >= 9 {
                break res;
            }
        };
        let write = |parts: usize, shard: ProofShard| {
            let dir = tempfile::tempdir().unwrap();
            let paths = ProofPaths::new(&dir.path().join("p.json"), ProofFormat::LratBinary);
            let opts = ProofOptions {
                format: ProofFormat::LratBinary,
                max_nodes: PROOF_NODES,
                parts,
                shard,
            };
            match write_residual_proof(&res, n as u64, opts, &paths, &stop).unwrap() {
                Proof::Written {
                    files,
                    pieces,
                    cubes,
                    ..
                } => {
                    let mut bytes = std::collections::BTreeMap::new();
                    for (k, f) in pieces.iter().zip(files) {
                        let dest = f.dest().to_path_buf();
                        f.commit().unwrap();
                        bytes.insert(*k, std::fs::read(dest).unwrap());
                    }
                    (cubes, bytes)
                }
                _ => panic!("no proof"),
            }
        };
        for parts in [1, 6] {
            let (cubes, all) = write(parts, ProofShard::ALL);
            assert_eq!(all.len(), cubes.len() + 1);
            assert!(parts == 1 || cubes.len() > 3, "{}", cubes.len());
            for of in [2, 3, 50] {
                let mut together = std::collections::BTreeMap::new();
                for index in 0..of {
                    let (c, mine) = write(parts, ProofShard { index, of });
                    assert_eq!(c, cubes);
                    assert!(mine.keys().all(|k| k % of == index));
                    together.extend(mine);
                }
                assert!(together == all, "{parts} parts, {of} shards");
            }
        }
    }
}
