//! The proof's search: the engine's propagation and branching, each node's clause written
//! after its subtree, with its LRAT hints when the format has them (see the module above).

use super::Format;
use super::lrat::{AtLeastOne, Lrat};
use crate::exact::bits::Bits;
use crate::exact::residual::{Residual, ones};
use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// Nodes at most in a proof's search, each with its clause: 10^6 lines of up to a few
/// hundred bytes (the proof search repeats the engine's on one thread; a larger one would
/// take as long again and hundreds of megabytes).
pub(crate) const MAX_NODES: u64 = 1_000_000;

/// How a proof search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProofEnd {
    /// The proof is written: it ends in the empty clause.
    Proved {
        /// Clauses added (the empty clause included).
        lemmas: u64,
        /// Clauses deleted.
        deletions: u64,
    },
    /// More than the limit of nodes would be needed; what was written is no proof.
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// The search found a completion: the residual is satisfiable (no proof exists).
    Satisfiable,
    /// Stopped from outside (a signal): what was written is no proof.
    Stopped,
}

/// The nodes all pieces of one proof may search together, and those they have: each
/// piece adds its count every [`POLL_NODES`] nodes and at its end, so that a proof split
/// into parts searched at once stops as one proof does, and the answer (within the limit
/// or not) is the total's, whatever the order in which the parts ran.
pub(crate) struct Budget {
    limit: u64,
    spent: AtomicU64,
}

impl Budget {
    /// A budget of `limit` nodes.
    pub(crate) fn new(limit: u64) -> Budget {
        Budget {
            limit,
            spent: AtomicU64::new(0),
        }
    }

    /// Whether the pieces, all ended, searched more nodes than the limit.
    pub(crate) fn exceeded(&self) -> bool {
        self.spent.load(Ordering::Relaxed) > self.limit
    }

    /// The limit.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// The nodes of the pieces so far.
    pub(crate) fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }
}

/// One piece of a proof: the whole of it, or, for a proof split into cubes (cube and
/// conquer: the search's nodes a number of decisions deep that branch), the tree above
/// the cubes or the subtree of one. A cube is the decisions on the path to its node (CNF
/// variables, in the order placed); its part proves that the CNF and those decisions as
/// unit clauses have no model, and the top proves that the CNF and each cube's clause
/// "not all of these decisions" have none: together, that the CNF has none, each piece
/// checked on its own.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Piece<'c> {
    /// The whole proof, against the CNF alone.
    Whole,
    /// The tree above `cubes`, the nodes `depth` decisions deep that branch, in the order
    /// the search meets them: the CNF beside it has each cube's clause after its own, in
    /// that order.
    Top {
        /// Decisions on the path to each cube's node.
        depth: usize,
        /// The cubes ([`plan`]'s).
        cubes: &'c [Vec<u32>],
    },
    /// The subtree of one cube: the CNF beside it has the cube's decisions as unit
    /// clauses after its own, in order.
    Part {
        /// The cube.
        cube: &'c [u32],
    },
}

/// How [`plan`] would split a proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// In one piece: too few nodes branch deep enough for the parts asked.
    Whole,
    /// Cubes at `depth` decisions ([`Piece::Top`]).
    Split { depth: usize, cubes: Vec<Vec<u32>> },
    /// The search ended before a plan, as the proof's would.
    Ended(ProofEnd),
}

/// Writes to `out` a proof in `format` that the CNF of `res` (`dimacs::encode`: variable
/// v is the v-th free cell, free rows increasing, then free columns increasing) is
/// unsatisfiable, from a search of at most `max_nodes` nodes.
#[cfg(test)]
pub(crate) fn write_proof(
    res: &Residual,
    format: Format,
    max_nodes: u64,
    stop: &crate::stop::Stop,
    out: &mut dyn Write,
) -> io::Result<ProofEnd> {
    let budget = Budget::new(max_nodes);
    write_piece(res, format, Piece::Whole, &budget, stop, out)
}

/// The cubes of a split into about `parts` parts: the nodes that branch at the depth
/// whose count of them is nearest `parts` (by ratio: of the first depth with at least as
/// many and the one above it), from searches of the tree above each depth in turn (in
/// `format`, whose hints decide where the search backjumps); when no depth has as many,
/// the depth with the most (asked 45, a tree of 41 at most gives those 41), and
/// [`Plan::Whole`] when none has two. Counts grow several times a level, and every part costs the clauses
/// of the path to its cube again (a few thousand at n = 23): 318 parts asked 64 took
/// 1.8x the clauses of the whole proof, where the 40 of the depth above cost a fifth.
pub(crate) fn plan(
    res: &Residual,
    format: Format,
    parts: usize,
    max_nodes: u64,
    stop: &crate::stop::Stop,
) -> io::Result<Plan> {
    if parts <= 1 {
        return Ok(Plan::Whole);
    }
    let mut above: Option<(usize, Vec<Vec<u32>>)> = None;
    // The depth with the most cubes so far, for a tree with no depth of `parts`.
    let mut most: Option<(usize, Vec<Vec<u32>>)> = None;
    let fewer_than_asked = |most: Option<(usize, Vec<Vec<u32>>)>| match most {
        Some((depth, cubes)) if cubes.len() >= 2 => Plan::Split { depth, cubes },
        _ => Plan::Whole,
    };
    for depth in 1..=res.size() {
        let budget = Budget::new(max_nodes);
        let mut cubes = Vec::new();
        let mode = Mode::Top {
            depth,
            given: None,
            met: &mut cubes,
        };
        match with_width(res, format, mode, &budget, stop, &mut io::sink())? {
            ProofEnd::Proved { .. } if cubes.is_empty() => return Ok(fewer_than_asked(most)),
            ProofEnd::Proved { .. } if cubes.len() >= parts => {
                return Ok(match above {
                    Some((depth, fewer))
                        if fewer.len() >= 2 && parts * parts < fewer.len() * cubes.len() =>
                    {
                        Plan::Split {
                            depth,
                            cubes: fewer,
                        }
                    }
                    _ => Plan::Split { depth, cubes },
                });
            }
            ProofEnd::Proved { .. } => {
                if most.as_ref().is_none_or(|(_, m)| m.len() < cubes.len()) {
                    most = Some((depth, cubes.clone()));
                }
                above = Some((depth, cubes));
            }
            end => return Ok(Plan::Ended(end)),
        }
    }
    Ok(fewer_than_asked(most))
}

/// Writes to `out` one piece of a proof in `format` that the CNF of `res` is
/// unsatisfiable (see [`Piece`] for the CNF each piece is checked against), its nodes
/// counted in `budget`.
pub(crate) fn write_piece(
    res: &Residual,
    format: Format,
    piece: Piece,
    budget: &Budget,
    stop: &crate::stop::Stop,
    out: &mut dyn Write,
) -> io::Result<ProofEnd> {
    let mut met = Vec::new();
    let mode = match piece {
        Piece::Whole => Mode::Whole,
        Piece::Top { depth, cubes } => Mode::Top {
            depth,
            given: Some(cubes),
            met: &mut met,
        },
        Piece::Part { cube } => Mode::Part { cube },
    };
    with_width(res, format, mode, budget, stop, out)
}

/// [`prove`] with word sets as wide as the residual.
fn with_width(
    res: &Residual,
    format: Format,
    mode: Mode,
    budget: &Budget,
    stop: &crate::stop::Stop,
    out: &mut dyn Write,
) -> io::Result<ProofEnd> {
    let m = res.size();
    if m <= 64 {
        prove::<u64>(res, format, mode, budget, stop, out)
    } else if m <= 128 {
        prove::<[u64; 2]>(res, format, mode, budget, stop, out)
    } else if m <= 256 {
        prove::<[u64; 4]>(res, format, mode, budget, stop, out)
    } else if m <= 512 {
        prove::<[u64; 8]>(res, format, mode, budget, stop, out)
    } else if m <= 1024 {
        prove::<[u64; 16]>(res, format, mode, budget, stop, out)
    } else {
        // Wider residuals than the engine's cell matrices: the proof would be as long as
        // a search of them, which is more than any limit here.
        Ok(ProofEnd::TooLarge {
            limit: budget.limit,
        })
    }
}

/// What the prover's search covers ([`Piece`], and the cubes a plan meets).
enum Mode<'c> {
    Whole,
    /// The tree above the nodes `depth` decisions deep that branch, each appended to
    /// `met`; `given`: the cubes whose clauses the CNF has (none while planning).
    Top {
        depth: usize,
        given: Option<&'c [Vec<u32>]>,
        met: &'c mut Vec<Vec<u32>>,
    },
    Part {
        cube: &'c [u32],
    },
}

/// Why a search stopped before the root's clause.
enum Stop {
    Io(io::Error),
    TooLarge,
    Satisfiable,
    Halted,
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}

/// A row (by label) or a column: where a node ends, or what forced a queen.
#[derive(Debug, Clone, Copy)]
enum Line {
    Row(usize),
    Column(usize),
}

/// A queen on the path from the root.
#[derive(Debug, Clone, Copy)]
struct Placed<B> {
    label: usize,
    col: usize,
    var: u32,
    /// Placed by branching (a decision), or forced by this line.
    forced_by: Option<Line>,
    /// Its LRAT clause "not all of the decisions `cone`, or this queen", once written.
    lemma: Option<u64>,
    /// The row labels of the decisions it follows from: its own for a decision; for a
    /// forced queen, those its clause names (set when the clause is written).
    cone: B,
}

struct Prover<'a, B> {
    m: usize,
    /// The piece of the proof this search writes.
    mode: Mode<'a>,
    /// Row label and column of each cell variable (index `v - 1`), for a part's cube.
    cell_of: Vec<(usize, usize)>,
    /// Board row of each row label (residual rows, nearest the middle first) and board
    /// column of each residual column.
    rows: Vec<u64>,
    cols: &'a [u64],
    /// Residual row of each row label.
    row_of: Vec<usize>,
    /// `var[r * m + c]`: the CNF variable of free cell (r, c) (row label r).
    var: Vec<u32>,
    /// The CNF's cells per row label.
    cells: Vec<B>,
    /// How many there are per row label and per column.
    row_cells: Vec<u32>,
    column_cells: Vec<u32>,
    /// Per free cell (`r * m + c`): its diagonals, numbered densely over the free cells.
    diagonals: Vec<(u32, u32)>,
    /// The place in `placed` of the queen on each row label, column and diagonal, if any
    /// ([`NONE`]): a closed cell has at most four queens on the path that attack it.
    on_row: Vec<usize>,
    on_column: Vec<usize>,
    on_d1: Vec<usize>,
    on_d2: Vec<usize>,
    /// Residual column of each board column from the first free one, when they span few
    /// enough for a table (else a binary search finds it).
    column_at: Vec<u32>,
    /// `(r * m + c) * m + r2`: the cells of row label `r2` a queen on free cell `(r, c)`
    /// attacks (its column and two diagonal partners), where the table is at most
    /// [`ATTACK_TABLE_BYTES`] (else found per placement: a seventh of the writing time).
    attack: Vec<B>,
    /// Decision variables on the path from the root.
    decisions: Vec<u32>,
    /// Every queen on the path, decisions and forced, in the order placed.
    placed: Vec<Placed<B>>,
    out: &'a mut dyn Write,
    lrat: Option<Lrat<'a>>,
    /// Spent lists, for reuse: one node's worth of each is made per node, and allocation
    /// took a sixth of a proof's writing time.
    spare_ids: Vec<Vec<u64>>,
    spare_cells: Vec<Vec<(usize, usize)>>,
    spare_open: Vec<Vec<B>>,
    falsified: Falsified,
    line: Vec<u8>,
    lemmas: u64,
    deletions: u64,
    /// The nodes of every piece of the proof: those of this search are added to it every
    /// [`POLL_NODES`], and `seen` is its total then.
    budget: &'a Budget,
    seen: u64,
    /// Asked from outside to stop; polled every [`POLL_NODES`] nodes.
    stop: &'a crate::stop::Stop,
    /// Nodes searched, and those of them added to the budget.
    nodes: u64,
    counted: u64,
}

/// No queen on this line.
const NONE: usize = usize::MAX;

/// The cell variables a clause's hints have made false so far: a bit per variable for
/// the test (a list's linear scan was a sixth of a proof's writing time) and the list,
/// to clear only those bits afterwards.
#[derive(Default)]
struct Falsified {
    bits: Vec<u64>,
    list: Vec<u32>,
}

impl Falsified {
    fn for_variables(vars: usize) -> Falsified {
        Falsified {
            bits: vec![0; vars / 64 + 1],
            list: Vec::new(),
        }
    }

    fn contains(&self, v: u32) -> bool {
        self.bits[v as usize / 64] >> (v % 64) & 1 == 1
    }

    fn insert(&mut self, v: u32) {
        self.bits[v as usize / 64] |= 1 << (v % 64);
        self.list.push(v);
    }

    fn clear(&mut self) {
        for v in self.list.drain(..) {
            self.bits[v as usize / 64] &= !(1 << (v % 64));
        }
    }
}

/// Largest attack table a proof's search builds (each piece of a split proof its own).
const ATTACK_TABLE_BYTES: usize = 8 << 20;

/// Board columns at most spanned by a table of residual columns (16 MB).
const COLUMN_TABLE: u64 = 1 << 22;

/// Numbers the values densely: each value's rank among the distinct ones.
fn dense(values: &[i64]) -> Vec<u32> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    values
        .iter()
        .map(|v| sorted.binary_search(v).expect("present") as u32)
        .collect()
}

/// Nodes between two looks at the stop.
const POLL_NODES: u64 = 4096;

fn prove<'a, B: Bits>(
    res: &'a Residual,
    format: Format<'a>,
    mode: Mode<'a>,
    budget: &'a Budget,
    stop: &'a crate::stop::Stop,
    out: &'a mut dyn Write,
) -> io::Result<ProofEnd> {
    let m = res.size();
    // Variables are numbered in residual order (the CNF's); the search sees rows by label.
    let mut first_var = vec![0u32; m];
    for r in 1..m {
        first_var[r] = first_var[r - 1]
            + res
                .row_bits(r - 1)
                .iter()
                .map(|w| w.count_ones())
                .sum::<u32>();
    }
    let mut row_of: Vec<usize> = (0..m).collect();
    res.middle_first(&mut row_of);
    let mut var = vec![0u32; m * m];
    let mut open = vec![B::zero(); m];
    for (l, &r) in row_of.iter().enumerate() {
        for (k, c) in ones(res.row_bits(r)).enumerate() {
            var[l * m + c] = first_var[r] + k as u32 + 1;
            open[l] = open[l].with(c);
        }
    }
    let rows: Vec<u64> = row_of.iter().map(|&r| res.rows[r]).collect();
    let cols = &res.cols;
    let mut free = Vec::new();
    for (l, o) in open.iter().enumerate() {
        o.each(|c| free.push((l, c)));
    }
    let d1 = dense(
        &free
            .iter()
            .map(|&(l, c)| rows[l] as i64 - cols[c] as i64)
            .collect::<Vec<_>>(),
    );
    let d2 = dense(
        &free
            .iter()
            .map(|&(l, c)| (rows[l] + cols[c]) as i64)
            .collect::<Vec<_>>(),
    );
    let mut diagonals = vec![(u32::MAX, u32::MAX); m * m];
    for (k, &(l, c)) in free.iter().enumerate() {
        diagonals[l * m + c] = (d1[k], d2[k]);
    }
    let lines = |d: &[u32]| vec![NONE; d.iter().max().map_or(0, |&x| x as usize + 1)];
    let (on_d1, on_d2) = (lines(&d1), lines(&d2));
    let column_at = match (cols.first(), cols.last()) {
        (Some(&lo), Some(&hi)) if hi - lo < COLUMN_TABLE => {
            let mut t = vec![u32::MAX; (hi - lo + 1) as usize];
            for (c, &j) in cols.iter().enumerate() {
                t[(j - lo) as usize] = c as u32;
            }
            t
        }
        _ => Vec::new(),
    };
    let mut cell_of = vec![(0, 0); free.len()];
    for &(l, c) in &free {
        cell_of[var[l * m + c] as usize - 1] = (l, c);
    }
    // Clauses beside the CNF's, before the proof's own: a part's cube as unit clauses, or
    // the top's clauses of the cubes.
    let inputs = match &mode {
        Mode::Whole => 0,
        Mode::Top { given, .. } => given.map_or(0, |c| c.len()),
        Mode::Part { cube } => cube.len(),
    } as u64;
    let mut p = Prover::<B> {
        m,
        mode,
        cell_of,
        diagonals,
        on_row: vec![NONE; m],
        on_column: vec![NONE; m],
        on_d1,
        on_d2,
        column_at,
        attack: Vec::new(),
        rows,
        cols,
        row_of,
        var,
        row_cells: open.iter().map(|o| o.count()).collect(),
        column_cells: (0..m)
            .map(|c| open.iter().filter(|o| o.has(c)).count() as u32)
            .collect(),
        cells: open.clone(),
        decisions: Vec::with_capacity(m),
        placed: Vec::with_capacity(m),
        out,
        lrat: match format {
            Format::Drat => None,
            Format::Lrat { layout, binary } => Some(Lrat::new(layout, binary, inputs)),
        },
        spare_ids: Vec::new(),
        spare_cells: Vec::new(),
        spare_open: Vec::new(),
        falsified: Falsified::default(),
        line: Vec::with_capacity(64),
        lemmas: 0,
        deletions: 0,
        budget,
        seen: 0,
        stop,
        nodes: 0,
        counted: 0,
    };
    if m.saturating_mul(m * m)
        .saturating_mul(std::mem::size_of::<B>())
        <= ATTACK_TABLE_BYTES
    {
        p.attack =
            crate::exact::search::attack_table(&p.rows, p.cols, &p.cells, p.rows.len(), |j| {
                p.column_of(j)
            });
    }
    // A piece of a split proof derives the pairs its hints need as they come: all of them
    // in each of 64 parts or more would add more clauses than many parts have.
    if let (Some(lrat), Mode::Whole) = (&mut p.lrat, &p.mode) {
        lrat.derive_pairs(p.out)?;
    }
    let searched = p
        .node(open, B::below(m), B::below(m), None)
        .and_then(|done| p.end_part(done));
    p.count_nodes();
    match searched {
        Ok(()) => {
            p.out.flush()?;
            let (lemmas, deletions) = match &p.lrat {
                Some(l) => (l.lemmas, l.deletions),
                None => (p.lemmas, p.deletions),
            };
            Ok(ProofEnd::Proved { lemmas, deletions })
        }
        Err(Stop::Io(e)) => Err(e),
        Err(Stop::TooLarge) => Ok(ProofEnd::TooLarge {
            limit: budget.limit,
        }),
        Err(Stop::Satisfiable) => Ok(ProofEnd::Satisfiable),
        Err(Stop::Halted) => Ok(ProofEnd::Stopped),
    }
}

/// How a node's propagation ended: a line with no free cell, or branches on a line.
enum End {
    Dead(Line),
    Branch(Line, Vec<(usize, usize)>),
}

/// The branch node above its last child (LRAT only). When that child is a dead end, it
/// writes the node's clause instead of its own: the node's hints (the line's closed cells
/// false, the other children's clauses, then the line's at-least-one clause, which makes
/// the last child's queen true) followed by the dead end's. Its own clause would serve
/// only the node's: a quarter fewer clauses for the checker to store, check and delete,
/// a tenth fewer bytes (BENCHMARKS.md).
struct Above<'x, B> {
    line: Line,
    open: &'x [B],
    rows_left: B,
    /// The place in `placed` of the node's first forced queen, and of its last child's
    /// queen.
    start: usize,
    limit: usize,
    /// The other children's clauses, and the variables of their cells, which those make
    /// false.
    children: &'x [u64],
    refuted: &'x [(usize, usize)],
    /// The row labels of the decisions the other children's clauses name, theirs left out.
    cone: B,
}

impl<B: Bits> Prover<'_, B> {
    /// The set of falsified variables for one clause's hints, empty (one per prover,
    /// taken and put back: a fresh one per clause would clear every bit).
    fn take_falsified(&mut self) -> Falsified {
        let mut f = std::mem::take(&mut self.falsified);
        if f.bits.is_empty() {
            f = Falsified::for_variables(self.cell_of.len() + 1);
        }
        f
    }

    fn put_falsified(&mut self, mut f: Falsified) {
        f.clear();
        self.falsified = f;
    }

    fn ids(&mut self) -> Vec<u64> {
        let mut v = self.spare_ids.pop().unwrap_or_default();
        v.clear();
        v
    }

    fn cells_list(&mut self) -> Vec<(usize, usize)> {
        let mut v = self.spare_cells.pop().unwrap_or_default();
        v.clear();
        v
    }

    /// Places a queen on (r, c): closes its row and column and clears the cells it
    /// attacks in the other open rows; `forced_by`: the line that forced it, if any.
    fn place(
        &mut self,
        open: &mut [B],
        rows_left: &mut B,
        cols_left: &mut B,
        (r, c): (usize, usize),
        forced_by: Option<Line>,
    ) {
        let at = self.placed.len();
        let (d1, d2) = self.diagonals[r * self.m + c];
        self.on_row[r] = at;
        self.on_column[c] = at;
        self.on_d1[d1 as usize] = at;
        self.on_d2[d2 as usize] = at;
        self.placed.push(Placed {
            label: r,
            col: c,
            var: self.var[r * self.m + c],
            forced_by,
            lemma: None,
            cone: match forced_by {
                None => B::zero().with(r),
                Some(_) => B::zero(),
            },
        });
        *rows_left = rows_left.without(r);
        *cols_left = cols_left.without(c);
        if !self.attack.is_empty() {
            let masks = &self.attack[(r * self.m + c) * self.m..][..self.m];
            let mut left = *rows_left;
            while !left.is_zero() {
                let r2 = left.lowest();
                left = left.without(r2);
                open[r2] = open[r2].and_not(masks[r2]);
            }
            return;
        }
        let (i, j) = (self.rows[r] as i128, self.cols[c] as i128);
        let mut left = *rows_left;
        while !left.is_zero() {
            let r2 = left.lowest();
            left = left.without(r2);
            let delta = self.rows[r2] as i128 - i;
            let mut mask = B::zero().with(c);
            for j2 in [j + delta, j - delta] {
                if let Some(c2) = self.column_of(j2) {
                    mask = mask.with(c2);
                }
            }
            open[r2] = open[r2].and_not(mask);
        }
    }

    /// Takes the queens from `placed[len..]` off the path.
    fn unplace(&mut self, len: usize) {
        for p in &self.placed[len..] {
            let (d1, d2) = self.diagonals[p.label * self.m + p.col];
            self.on_row[p.label] = NONE;
            self.on_column[p.col] = NONE;
            self.on_d1[d1 as usize] = NONE;
            self.on_d2[d2 as usize] = NONE;
        }
        self.placed.truncate(len);
    }

    /// The residual column of board column `j`, if it is one.
    fn column_of(&self, j: i128) -> Option<usize> {
        let lo = *self.cols.first()? as i128;
        if !self.column_at.is_empty() {
            let k = usize::try_from(j - lo).ok()?;
            return self
                .column_at
                .get(k)
                .filter(|&&c| c != u32::MAX)
                .map(|&c| c as usize);
        }
        let j = u64::try_from(j).ok()?;
        self.cols.binary_search(&j).ok()
    }

    /// Writes `d`-prefixed or plain the DRAT clause of the decisions and `extra`.
    fn drat_clause(&mut self, delete: bool, extra: Option<u32>) -> io::Result<()> {
        self.line.clear();
        if delete {
            self.line.extend_from_slice(b"d ");
            self.deletions += 1;
        } else {
            self.lemmas += 1;
        }
        for &v in self.decisions.iter().chain(&extra) {
            self.line.push(b'-');
            self.line.extend_from_slice(v.to_string().as_bytes());
            self.line.push(b' ');
        }
        self.line.extend_from_slice(b"0\n");
        self.out.write_all(&self.line)
    }

    /// Searches the subtree of the node with free cells `open` per row; when it holds no
    /// solution, writes the clause of the node's decisions (after its children's) and
    /// returns its LRAT number (0 in DRAT) and the row labels of the decisions it names.
    ///
    /// In LRAT a clause names only the decisions its hints need, so a child's clause may
    /// leave out the child's own decision: then it refutes this node as it is, and the
    /// node's other branches are not searched (backjumping).
    fn node(
        &mut self,
        mut open: Vec<B>,
        mut rows_left: B,
        mut cols_left: B,
        above: Option<&Above<'_, B>>,
    ) -> Result<(u64, B), Stop> {
        self.nodes += 1;
        if self.seen + (self.nodes - self.counted) > self.budget.limit {
            return Err(Stop::TooLarge);
        }
        // From the first node on: a deadline already passed ends the search at once.
        if (self.nodes - 1).is_multiple_of(POLL_NODES) {
            self.count_nodes();
            if self.stop.now() {
                return Err(Stop::Halted);
            }
        }
        let start = self.placed.len();
        // Propagation to a fixpoint, then the branches.
        let end = loop {
            if rows_left.is_zero() {
                return Err(Stop::Satisfiable);
            }
            let (mut t1, mut t2, mut t3) = (B::zero(), B::zero(), B::zero());
            let (mut best, mut best_row) = (u32::MAX, 0);
            let mut forced_rows = B::zero();
            // Of the lines with no free cell, the one with the fewest cells in the CNF:
            // its clause's hints falsify each (a quarter fewer hints than the first found).
            let (mut dead, mut dead_cells) = (None, u32::MAX);
            let mut left = rows_left;
            while !left.is_zero() {
                let r = left.lowest();
                left = left.without(r);
                let a = open[r];
                let k = a.count();
                if k == 0 {
                    if self.row_cells[r] < dead_cells {
                        (dead, dead_cells) = (Some(Line::Row(r)), self.row_cells[r]);
                    }
                    continue;
                }
                if k == 1 {
                    forced_rows = forced_rows.with(r);
                }
                t3 = t3.or(t2.and(a));
                t2 = t2.or(t1.and(a));
                t1 = t1.or(a);
                if k < best {
                    best = k;
                    best_row = r;
                }
            }
            cols_left.and_not(t1).each(|c| {
                if self.column_cells[c] < dead_cells {
                    (dead, dead_cells) = (Some(Line::Column(c)), self.column_cells[c]);
                }
            });
            if let Some(line) = dead {
                break End::Dead(line);
            }
            if !forced_rows.is_zero() {
                // Every row found with one cell is placed before the next scan (as the
                // engine does); one a placement emptied ends the batch, and the next
                // scan finds it dead.
                while !forced_rows.is_zero() {
                    let r = forced_rows.lowest();
                    forced_rows = forced_rows.without(r);
                    let a = open[r];
                    if a.is_zero() {
                        break;
                    }
                    let cell = (r, a.lowest());
                    self.place(
                        &mut open,
                        &mut rows_left,
                        &mut cols_left,
                        cell,
                        Some(Line::Row(r)),
                    );
                }
                continue;
            }
            let once = cols_left.and_not(t2);
            if !once.is_zero() {
                let c = once.lowest();
                let mut left = rows_left;
                while !open[left.lowest()].has(c) {
                    left = left.without(left.lowest());
                }
                let cell = (left.lowest(), c);
                self.place(
                    &mut open,
                    &mut rows_left,
                    &mut cols_left,
                    cell,
                    Some(Line::Column(c)),
                );
                continue;
            }
            let pairs = t2.and_not(t3);
            let mut alts = self.cells_list();
            if best > 2 && !pairs.is_zero() {
                let c = pairs.lowest();
                rows_left.each(|r| {
                    if open[r].has(c) {
                        alts.push((r, c));
                    }
                });
                break End::Branch(Line::Column(c), alts);
            }
            open[best_row].each(|c| alts.push((best_row, c)));
            break End::Branch(Line::Row(best_row), alts);
        };
        let done = match end {
            End::Dead(line) => match above {
                Some(above) if matches!(self.at_least_one(line), AtLeastOne::Clause(_)) => {
                    self.lemma_with_above(line, &open, rows_left, above)?
                }
                _ => self.lemma(line, &open, (rows_left, start), &[], B::zero())?,
            },
            // The top of a split: this node's subtree is a cube's part.
            End::Branch(_, alts) if self.at_cube() => {
                self.spare_cells.push(alts);
                self.cube_clause()?
            }
            // A part: the path to its cube, each decision the cube's (a node above it needs
            // no clause: the cube's units stand for the path).
            End::Branch(_, alts) if self.on_cube_path() => {
                let Mode::Part { cube } = self.mode else {
                    unreachable!("on a cube's path")
                };
                let v = cube[self.decisions.len()];
                let (r, c) = self.cell_of[v as usize - 1];
                if !alts.contains(&(r, c)) {
                    return Err(Stop::Io(io::Error::other(
                        "a part's cube is not a path of its proof's search",
                    )));
                }
                self.spare_cells.push(alts);
                self.child(&open, (rows_left, cols_left), (r, c), None)?
            }
            End::Branch(line, alts) => {
                let mut children = self.ids();
                let mut cone = B::zero();
                let mut refuted = None;
                for (k, &(r, c)) in alts.iter().enumerate() {
                    let above = (self.lrat.is_some() && k + 1 == alts.len()).then(|| Above {
                        line,
                        open: &open,
                        rows_left,
                        start,
                        limit: self.placed.len(),
                        children: &children,
                        refuted: &alts[..k],
                        cone,
                    });
                    let (id, child) =
                        self.child(&open, (rows_left, cols_left), (r, c), above.as_ref())?;
                    if self.lrat.is_some() && !child.has(r) {
                        refuted = Some((id, child));
                        break;
                    }
                    children.push(id);
                    cone = cone.or(child.without(r));
                }
                let done = match refuted {
                    Some(done) => done,
                    None => self.lemma(line, &open, (rows_left, start), &children, cone)?,
                };
                if !self.decisions.is_empty() {
                    match self.lrat {
                        Some(ref mut lrat) => lrat.delete(&children, self.out)?,
                        None => {
                            for &(r, c) in &alts {
                                let v = self.var[r * self.m + c];
                                self.drat_clause(true, Some(v))?;
                            }
                        }
                    }
                }
                self.spare_ids.push(children);
                self.spare_cells.push(alts);
                done
            }
        };
        // The clauses of the queens this node forced hold only below it.
        if !self.decisions.is_empty()
            && let Some(ref mut lrat) = self.lrat
        {
            let mut forced = self.spare_ids.pop().unwrap_or_default();
            forced.clear();
            forced.extend(self.placed[start..].iter().filter_map(|p| p.lemma));
            lrat.delete(&forced, self.out)?;
            self.spare_ids.push(forced);
        }
        self.unplace(start);
        self.spare_open.push(open);
        Ok(done)
    }

    /// Searches the child of the node with free cells `open` and open lines `left` (rows,
    /// columns) that places a queen on `cell` by branching: [`Prover::node`]'s answer.
    fn child(
        &mut self,
        open: &[B],
        (rows_left, cols_left): (B, B),
        (r, c): (usize, usize),
        above: Option<&Above<'_, B>>,
    ) -> Result<(u64, B), Stop> {
        let mut o = self.spare_open.pop().unwrap_or_default();
        o.clear();
        o.extend_from_slice(open);
        let (mut rl, mut cl) = (rows_left, cols_left);
        self.place(&mut o, &mut rl, &mut cl, (r, c), None);
        self.decisions.push(self.var[r * self.m + c]);
        let done = self.node(o, rl, cl, above);
        self.decisions.pop();
        self.unplace(self.placed.len() - 1);
        done
    }

    /// Adds this search's nodes since it last did to the budget's count.
    fn count_nodes(&mut self) {
        let new = self.nodes - self.counted;
        self.counted = self.nodes;
        self.seen = self.budget.spent.fetch_add(new, Ordering::Relaxed) + new;
    }

    /// Whether this node is one of the top's cubes.
    fn at_cube(&self) -> bool {
        matches!(self.mode, Mode::Top { depth, .. } if depth == self.decisions.len())
    }

    /// Whether this node lies above a part's cube.
    fn on_cube_path(&self) -> bool {
        matches!(self.mode, Mode::Part { cube } if self.decisions.len() < cube.len())
    }

    /// The number of the CNF's clause of the cube at this node (the top's), and the row
    /// labels of its decisions (all on the path): the cube is recorded as met, and must
    /// be the plan's.
    fn cube_clause(&mut self) -> Result<(u64, B), Stop> {
        let Mode::Top { given, met, .. } = &mut self.mode else {
            unreachable!("a cube of the top")
        };
        let k = met.len();
        if given.is_some_and(|g| g.get(k) != Some(&self.decisions)) {
            return Err(Stop::Io(io::Error::other(
                "the top of a split proof met other cubes than its plan",
            )));
        }
        met.push(self.decisions.clone());
        let cone = self
            .placed
            .iter()
            .filter(|q| q.forced_by.is_none())
            .fold(B::zero(), |b, q| b.with(q.label));
        let id = self.lrat.as_ref().map_or(0, |l| l.input(k as u64));
        Ok((id, cone))
    }

    /// Ends a part's proof: the empty clause, from the cube's unit clauses that the
    /// clause of its node (`done`: number and decisions named) names; none when that was
    /// the empty clause already. Nothing for another piece.
    fn end_part(&mut self, (id, cone): (u64, B)) -> Result<(), Stop> {
        let Mode::Part { cube } = self.mode else {
            return Ok(());
        };
        let Some(ref mut lrat) = self.lrat else {
            self.lemmas += 1;
            self.out.write_all(b"0\n")?;
            return Ok(());
        };
        if cone.is_zero() {
            return Ok(());
        }
        let mut hints: Vec<u64> = (0..cube.len() as u64)
            .filter(|&k| cone.has(self.cell_of[cube[k as usize] as usize - 1].0))
            .map(|k| lrat.input(k))
            .collect();
        hints.push(id);
        lrat.add(std::iter::empty(), &hints, self.out)?;
        Ok(())
    }

    /// Writes the clause of the node's decisions, which ends on `line`: no free cell left
    /// there but the children's (`children`: their clauses' numbers, in the order of the
    /// line's free cells; `cone`: the row labels of the decisions their clauses name, their
    /// own left out; `start`: the place in `placed` of the node's first forced queen).
    /// Returns its LRAT number and the row labels of the decisions it names.
    fn lemma(
        &mut self,
        line: Line,
        open: &[B],
        (rows_left, start): (B, usize),
        children: &[u64],
        cone: B,
    ) -> Result<(u64, B), Stop> {
        if self.lrat.is_none() {
            self.drat_clause(false, None)?;
            return Ok((0, B::zero()));
        }
        let closed = self.closed_cells(line, open, rows_left);
        let alo = self.at_least_one(line);
        let mut hints = self.ids();
        let mut cone = cone;
        match alo {
            AtLeastOne::Empty(pos, neg) => hints.extend([pos, neg]),
            AtLeastOne::Clause(id) => {
                // The node's own forced queens without a clause are needed by no other
                // clause after this one: derived in its hints.
                let (mut named, mut falsified) = (B::zero(), self.take_falsified());
                let limit = self.placed.len();
                let known = (&mut named, &mut falsified);
                cone = cone.or(self.closures(&closed, limit, start, &mut hints, known)?);
                self.put_falsified(falsified);
                hints.extend_from_slice(children);
                hints.push(id);
            }
        }
        let id = self.decisions_clause(cone, hints)?;
        self.spare_cells.push(closed);
        Ok((id, cone))
    }

    /// Writes the clause "not all of the decisions on the path with row labels `cone`"
    /// with `hints` (spent); returns its number.
    fn decisions_clause(&mut self, cone: B, hints: Vec<u64>) -> Result<u64, Stop> {
        let Prover {
            placed, lrat, out, ..
        } = self;
        let lits = placed
            .iter()
            .filter(|q| q.forced_by.is_none() && cone.has(q.label))
            .map(|q| -(q.var as i64));
        let id = lrat.as_mut().expect("LRAT").add(lits, &hints, &mut **out)?;
        self.spare_ids.push(hints);
        Ok(id)
    }

    /// Writes the clause of the node `above` with the dead end on `line` (free cells
    /// `open`, open rows `rows_left`) of its last child: see [`Above`]. One hint list, so
    /// that each cell is made false once in it (a second hint on a false cell would be no
    /// unit). Returns that clause's number and the row labels of the decisions it names,
    /// the last child's own left out.
    fn lemma_with_above(
        &mut self,
        line: Line,
        open: &[B],
        rows_left: B,
        above: &Above<'_, B>,
    ) -> Result<(u64, B), Stop> {
        let (AtLeastOne::Clause(alo_above), AtLeastOne::Clause(alo)) =
            (self.at_least_one(above.line), self.at_least_one(line))
        else {
            unreachable!("a branch's line and a dead end's (checked) have cells")
        };
        let closed_above = self.closed_cells(above.line, above.open, above.rows_left);
        let closed = self.closed_cells(line, open, rows_left);
        let mut hints = self.ids();
        let (mut named, mut falsified) = (B::zero(), self.take_falsified());
        // The node's clause is the last to need its queens, and the dead end's theirs.
        let inline_from = above.start;
        let known = (&mut named, &mut falsified);
        let mut cone = above.cone.or(self.closures(
            &closed_above,
            above.limit,
            inline_from,
            &mut hints,
            known,
        )?);
        hints.extend_from_slice(above.children);
        for &(r, c) in above.refuted {
            falsified.insert(self.var[r * self.m + c]);
        }
        hints.push(alo_above);
        let limit = self.placed.len();
        let known = (&mut named, &mut falsified);
        let below = self.closures(&closed, limit, inline_from, &mut hints, known)?;
        self.put_falsified(falsified);
        hints.push(alo);
        // The last child's queen is no decision of this clause: the hints above made it true.
        cone = cone.or(below.without(self.placed[above.limit].label));
        let id = self.decisions_clause(cone, hints)?;
        self.spare_cells.push(closed);
        self.spare_cells.push(closed_above);
        Ok((id, cone))
    }

    /// The CNF's cells of `line` that are not free (`open`, open rows `rows_left`).
    fn closed_cells(&mut self, line: Line, open: &[B], rows_left: B) -> Vec<(usize, usize)> {
        let mut closed = self.cells_list();
        match line {
            Line::Row(r) => self.cells[r].and_not(open[r]).each(|c| closed.push((r, c))),
            Line::Column(c) => closed.extend(
                (0..self.m)
                    .filter(|&r| self.cells[r].has(c) && !(rows_left.has(r) && open[r].has(c)))
                    .map(|r| (r, c)),
            ),
        }
        closed
    }

    fn at_least_one(&self, line: Line) -> AtLeastOne {
        let layout = self.lrat.as_ref().expect("LRAT").layout();
        match line {
            Line::Row(r) => layout.row_alo(self.row_of[r]),
            Line::Column(c) => layout.column_alo(c),
        }
    }

    /// Appends to `hints` what makes every cell of `cells` false under the decisions:
    /// for each, the binary clause with a queen among the first `limit` placed that
    /// attacks it, preceded (the first time in the list, `named`: places in `placed`) by
    /// what makes that queen true when it was forced: its clause, or, for a queen at
    /// `inline_from` or later without one, its own derivation written into the list
    /// (the node's clause is the last to need the node's queens: a clause of their own
    /// would cost more than the hints it saves). A cell the list made false already
    /// (`falsified`: variables) needs nothing: a hint on it again would be no unit. Returns
    /// the row labels of the decisions those queens follow from.
    fn closures(
        &mut self,
        cells: &[(usize, usize)],
        limit: usize,
        inline_from: usize,
        hints: &mut Vec<u64>,
        (named, falsified): (&mut B, &mut Falsified),
    ) -> Result<B, Stop> {
        let mut cone = B::zero();
        for &(r, c) in cells {
            let v = self.var[r * self.m + c];
            if falsified.contains(v) {
                continue;
            }
            let j = self.closer(r, c, limit, *named, inline_from);
            if self.placed[j].forced_by.is_some() && !named.has(j) {
                match self.placed[j].lemma {
                    Some(id) => hints.push(id),
                    None if j >= inline_from => {
                        self.derive_inline(j, inline_from, hints, (named, falsified))?;
                    }
                    None => hints.push(self.forced_lemma(j)?),
                }
                *named = named.with(j);
            }
            let q = self.placed[j];
            cone = cone.or(q.cone);
            // The queen's own derivation may have made this cell false already.
            if falsified.contains(v) {
                continue;
            }
            let lrat = self.lrat.as_mut().expect("LRAT");
            hints.push(lrat.binary(q.var, v, self.out)?);
            falsified.insert(v);
        }
        Ok(cone)
    }

    /// Appends to `hints` the derivation of forced queen `placed[j]`: the other cells of
    /// the line that forced it made false, then the line's at-least-one clause.
    fn derive_inline(
        &mut self,
        j: usize,
        inline_from: usize,
        hints: &mut Vec<u64>,
        (named, falsified): (&mut B, &mut Falsified),
    ) -> Result<(), Stop> {
        let line = self.placed[j].forced_by.expect("a forced queen");
        let others = self.line_cells(line, j);
        let cone = self.closures(&others, j, inline_from, hints, (named, falsified))?;
        self.spare_cells.push(others);
        let AtLeastOne::Clause(alo) = self.at_least_one(line) else {
            unreachable!("the line holds the queen's cell")
        };
        hints.push(alo);
        self.placed[j].cone = cone;
        Ok(())
    }

    /// The CNF's cells of the line that forced `placed[i]`, but its own.
    fn line_cells(&mut self, line: Line, i: usize) -> Vec<(usize, usize)> {
        let p = self.placed[i];
        let mut others = self.cells_list();
        match line {
            Line::Row(r) => self.cells[r].without(p.col).each(|c| others.push((r, c))),
            Line::Column(c) => others.extend(
                (0..self.m)
                    .filter(|&r| r != p.label && self.cells[r].has(c))
                    .map(|r| (r, c)),
            ),
        }
        others
    }

    /// The place in `placed[..limit]` of a queen attacking cell (r, c), the one whose
    /// hints cost least: a decision (its binary clause alone), else a forced queen the
    /// list already names (`named`: places), else one whose clause is written, else one
    /// to derive in the list (from `inline_from`), else the first forced one.
    fn closer(&self, r: usize, c: usize, limit: usize, named: B, inline_from: usize) -> usize {
        let mut best = (u8::MAX, 0);
        // The queens on its row, column and diagonals: earliest first, as a scan of the
        // path would meet them.
        let (d1, d2) = self.diagonals[r * self.m + c];
        let mut on = [
            self.on_row[r],
            self.on_column[c],
            self.on_d1[d1 as usize],
            self.on_d2[d2 as usize],
        ];
        on.sort_unstable();
        for j in on {
            if j >= limit {
                break;
            }
            let p = &self.placed[j];
            let cost = match (p.forced_by, p.lemma) {
                (None, _) => return j,
                _ if named.has(j) => 1,
                (_, Some(_)) => 2,
                _ if j >= inline_from => 3,
                (_, None) => 4,
            };
            if cost < best.0 {
                best = (cost, j);
            }
        }
        assert!(
            best.0 < u8::MAX,
            "every closed cell has a queen on the path that attacks it"
        );
        best.1
    }

    /// Writes the clause of forced queen `placed[i]`: not all of the decisions it follows
    /// from, or this queen (every other cell of the line that forced it is closed).
    fn forced_lemma(&mut self, i: usize) -> Result<u64, Stop> {
        let p = self.placed[i];
        if let Some(id) = p.lemma {
            return Ok(id);
        }
        // Its hints are its derivation, as a clause's list would hold it, with no queen of
        // its own derived inside (each gets its clause, for the later nodes that need it).
        let mut hints = self.ids();
        let (mut named, mut falsified) = (B::zero(), self.take_falsified());
        self.derive_inline(i, usize::MAX, &mut hints, (&mut named, &mut falsified))?;
        self.put_falsified(falsified);
        let cone = self.placed[i].cone;
        let Prover {
            placed, lrat, out, ..
        } = self;
        let lits = placed[..i]
            .iter()
            .filter(|q| q.forced_by.is_none() && cone.has(q.label))
            .map(|q| -(q.var as i64))
            .chain([p.var as i64]);
        let id = lrat.as_mut().expect("LRAT").add(lits, &hints, &mut **out)?;
        self.spare_ids.push(hints);
        self.placed[i].lemma = Some(id);
        Ok(id)
    }
}
