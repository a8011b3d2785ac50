//! LRAT: the proof's clauses with, for each, the clauses that unit propagation uses to
//! derive it, in order, so that a checker (`lrat-check`, cake_lpr) follows the hints and
//! searches for nothing.
//!
//! The hints name clauses of the residual's CNF by number, so the prover needs to know
//! where `dimacs` put each constraint: [`Layout`], filled by the encoder as it writes.
//! Cells of a line under Sinz's sequential counter have no binary clause between them;
//! the first time a hint needs one, [`Lrat::binary`] adds it as a lemma of its own (a chain
//! through the counter's variables) and remembers its number.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Write};

/// The at-least-one clause of a free row or column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AtLeastOne {
    /// The clause over the line's cells.
    Clause(u64),
    /// The line has no cell: the clauses `x` and `-x` of a fresh variable.
    Empty(u64, u64),
}

/// An at-most-one constraint of the CNF: its first clause and how it is written.
#[derive(Debug, Clone, Copy)]
struct Line {
    first: u64,
    len: u32,
    /// Sinz's sequential counter; else every pair has its clause.
    counter: bool,
}

/// Which line of a cell: its row, its column, or one of its diagonals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Row = 0,
    Column = 1,
    D1 = 2,
    D2 = 3,
}

/// Where the residual's CNF keeps each constraint, by clause number (1-based, file order).
#[derive(Debug, Default)]
pub(crate) struct Layout {
    rows: Vec<AtLeastOne>,
    cols: Vec<AtLeastOne>,
    lines: Vec<Line>,
    /// Per cell variable (index `v - 1`): its line and place in it, per [`Direction`].
    places: Vec<[(u32, u32); 4]>,
    clauses: u64,
}

impl Layout {
    /// An empty layout for a CNF of `cells` cell variables.
    pub(crate) fn new(cells: usize) -> Layout {
        Layout {
            places: vec![[(u32::MAX, 0); 4]; cells],
            ..Layout::default()
        }
    }

    /// Records the at-least-one clause of free row `r` (residual order).
    pub(crate) fn row(&mut self, r: usize, alo: AtLeastOne) {
        if self.rows.len() <= r {
            self.rows.resize(r + 1, alo);
        }
        self.rows[r] = alo;
    }

    /// Records the at-least-one clause of free column `c` (residual order).
    pub(crate) fn column(&mut self, c: usize, alo: AtLeastOne) {
        if self.cols.len() <= c {
            self.cols.resize(c + 1, alo);
        }
        self.cols[c] = alo;
    }

    /// Records the at-most-one constraint over the cell variables `vars` (in the order it
    /// was written), whose clauses start at number `first`: pairwise, or by the counter.
    pub(crate) fn line(&mut self, dir: Direction, vars: &[i64], first: u64, counter: bool) {
        let id = self.lines.len() as u32;
        self.lines.push(Line {
            first,
            len: vars.len() as u32,
            counter,
        });
        for (k, &v) in vars.iter().enumerate() {
            self.places[v as usize - 1][dir as usize] = (id, k as u32);
        }
    }

    /// Records the number of clauses of the CNF: the proof's own start after them.
    pub(crate) fn finish(&mut self, clauses: u64) {
        self.clauses = clauses;
    }

    pub(super) fn row_alo(&self, r: usize) -> AtLeastOne {
        self.rows[r]
    }

    pub(super) fn column_alo(&self, c: usize) -> AtLeastOne {
        self.cols[c]
    }
}

/// Clause `-a -b` of two cells of one line: a clause of the CNF, or one to derive
/// through the counter of line `line`, whose cells `i < j` (0-based places) they are.
enum Binary {
    Given(u64),
    Counter { line: u32, i: u64, j: u64 },
}

impl Layout {
    fn binary(&self, a: u32, b: u32) -> Binary {
        let (pa, pb) = (&self.places[a as usize - 1], &self.places[b as usize - 1]);
        let Some(k) = (0..4).find(|&k| pa[k].0 != u32::MAX && pa[k].0 == pb[k].0) else {
            panic!("cells {a} and {b} share no line")
        };
        let line = self.lines[pa[k].0 as usize];
        let (i, j) = (pa[k].1.min(pb[k].1) as u64, pa[k].1.max(pb[k].1) as u64);
        let len = line.len as u64;
        if !line.counter {
            // Pairs (i, j), i < j, in order: i's come after those of every smaller i.
            return Binary::Given(line.first + i * (2 * len - i - 1) / 2 + (j - i - 1));
        }
        Binary::Counter {
            line: pa[k].0,
            i,
            j,
        }
    }

    /// The clauses of line `line`'s counter that derive `-x_i -x_j` (0-based, i < j), in
    /// order.
    fn chain(&self, line: u32, i: u64, j: u64) -> Vec<u64> {
        let line = self.lines[line as usize];
        let len = line.len as u64;
        // Sinz, 1-based x_1..x_k with counter s_1..s_(k-1): (-x_1 s_1) at `first`; then
        // per t = 2..k-1 the clauses (-x_t s_t), (-s_(t-1) s_t), (-x_t -s_(t-1)); last
        // (-x_k -s_(k-1)). With x_i and x_j true (i < j): s_i, s_(i+1), ..., s_(j-1),
        // then x_j's clause against s_(j-1) is false.
        let (i, j) = (i + 1, j + 1);
        let set = |t: u64| {
            if t == 1 {
                line.first
            } else {
                line.first + 1 + 3 * (t - 2)
            }
        };
        let carry = |t: u64| line.first + 2 + 3 * (t - 2);
        let clash = |t: u64| line.first + 3 + 3 * (t - 2);
        let last = |t: u64| {
            if t == len {
                line.first + 1 + 3 * (len - 2)
            } else {
                clash(t)
            }
        };
        let mut chain = vec![set(i)];
        chain.extend((i + 1..j).map(carry));
        chain.push(last(j));
        chain
    }

    /// Pairs of cells of lines under the counter, all lines together.
    fn counter_pairs(&self) -> u64 {
        self.lines
            .iter()
            .filter(|l| l.counter)
            .map(|l| l.len as u64 * (l.len as u64 - 1) / 2)
            .sum()
    }
}

/// The binary clauses derived through counters, by line and pair: a dense table of every
/// pair where they are few enough (a hash lookup per hint was an eighth of a proof's
/// writing time), else a map of those derived.
enum Derived {
    /// Per line, where its pairs start; per pair (`start + j (j - 1) / 2 + i`), its clause
    /// or 0.
    Dense {
        start: Vec<u64>,
        ids: Vec<u64>,
    },
    Sparse(HashMap<u64, u64, BuildHasherDefault<PairHasher>>),
}

/// Most pairs the dense table holds (32 MB).
const DENSE_PAIRS: u64 = 1 << 22;

impl Derived {
    fn new(layout: &Layout) -> Derived {
        if layout.counter_pairs() > DENSE_PAIRS {
            return Derived::Sparse(HashMap::default());
        }
        let mut start = Vec::with_capacity(layout.lines.len());
        let mut total = 0;
        for l in &layout.lines {
            start.push(total);
            if l.counter {
                total += l.len as u64 * (l.len as u64 - 1) / 2;
            }
        }
        Derived::Dense {
            start,
            ids: vec![0; total as usize],
        }
    }

    fn get(&self, line: u32, i: u64, j: u64) -> Option<u64> {
        match self {
            Derived::Dense { start, ids } => {
                Some(ids[(start[line as usize] + j * (j - 1) / 2 + i) as usize])
                    .filter(|&id| id != 0)
            }
            Derived::Sparse(map) => map.get(&Self::key(line, i, j)).copied(),
        }
    }

    fn insert(&mut self, line: u32, i: u64, j: u64, id: u64) {
        match self {
            Derived::Dense { start, ids } => {
                ids[(start[line as usize] + j * (j - 1) / 2 + i) as usize] = id;
            }
            Derived::Sparse(map) => {
                map.insert(Self::key(line, i, j), id);
            }
        }
    }

    /// Lines and places fit in 32 and 16 bits: a line holds at most the residual's 1,024
    /// rows' cells.
    fn key(line: u32, i: u64, j: u64) -> u64 {
        (line as u64) << 32 | i << 16 | j
    }
}

/// Clauses deleted per deletion line. lrat-check compacts its clause table whenever the
/// clauses deleted since it last did outnumber a fifth of the live ones, scanning every
/// block of clause numbers that holds a live clause; a node's few deletions at a time made
/// that a fifth of its time, and batches of 1,024 or 65,536 take it the same time.
/// lrat-trim checks a proof of 1,024 to a line a tenth faster than one of 65,536 (its
/// clauses' memory is reused sooner: 2.52 -> 2.26 s at n 25 d 25 seed 2).
const DELETE_BATCH: usize = 1 << 10;

/// Pairs of cells under counters whose binary clauses are derived at the proof's start
/// ([`Lrat::derive_pairs`]); beyond it, each when a hint first needs it.
const EAGER_PAIRS: u64 = 100_000;

/// The LRAT writer: clause numbers, the derived binary clauses, the text.
pub(super) struct Lrat<'a> {
    layout: &'a Layout,
    /// The number the next added clause gets.
    next: u64,
    /// Binary clauses derived through counters.
    derived: Derived,
    text: Vec<u8>,
    /// Binary LRAT (bytes; numbers as variable-length integers) instead of text.
    binary: bool,
    /// Clauses no longer needed, not yet deleted in the proof.
    unused: Vec<u64>,
    /// Clauses added (the empty clause included).
    pub(super) lemmas: u64,
    /// Clauses deleted.
    pub(super) deletions: u64,
}

impl<'a> Lrat<'a> {
    /// A writer of a proof against the CNF of `layout` with `inputs` clauses more after
    /// its own (a split proof's cubes).
    pub(super) fn new(layout: &'a Layout, binary: bool, inputs: u64) -> Lrat<'a> {
        Lrat {
            layout,
            next: layout.clauses + inputs + 1,
            derived: Derived::new(layout),
            text: Vec::with_capacity(256),
            binary,
            unused: Vec::new(),
            lemmas: 0,
            deletions: 0,
        }
    }

    pub(super) fn layout(&self) -> &'a Layout {
        self.layout
    }

    /// The number of the `k`-th clause after the CNF's (0-based).
    pub(super) fn input(&self, k: u64) -> u64 {
        self.layout.clauses + 1 + k
    }

    /// Adds, before anything else, the binary clauses of every pair of cells on a line
    /// under the counter, when there are at most [`EAGER_PAIRS`]: numbered right after
    /// the CNF's, the hints naming them (most hints) are shorter by two or three digits,
    /// and the checker reads a tenth less.
    pub(super) fn derive_pairs(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let layout = self.layout;
        if layout.counter_pairs() > EAGER_PAIRS {
            return Ok(());
        }
        let mut members: Vec<Vec<u32>> = layout
            .lines
            .iter()
            .map(|l| vec![0; if l.counter { l.len as usize } else { 0 }])
            .collect();
        for (v, places) in layout.places.iter().enumerate() {
            for &(line, at) in places {
                if let Some(slot) = members
                    .get_mut(line as usize)
                    .and_then(|m| m.get_mut(at as usize))
                {
                    *slot = v as u32 + 1;
                }
            }
        }
        for m in &members {
            for (i, &a) in m.iter().enumerate() {
                for &b in &m[i + 1..] {
                    self.binary(a, b, out)?;
                }
            }
        }
        Ok(())
    }

    /// The number of the clause `-a -b` for cells `a` and `b` of one line, adding it
    /// first when the CNF has it only through a counter.
    pub(super) fn binary(&mut self, a: u32, b: u32, out: &mut dyn Write) -> io::Result<u64> {
        match self.layout.binary(a, b) {
            Binary::Given(id) => Ok(id),
            Binary::Counter { line, i, j } => {
                if let Some(id) = self.derived.get(line, i, j) {
                    return Ok(id);
                }
                let hints = self.layout.chain(line, i, j);
                let id = self.add([-(a as i64), -(b as i64)].into_iter(), &hints, out)?;
                self.derived.insert(line, i, j, id);
                Ok(id)
            }
        }
    }

    /// Adds the clause `lits`, derived by unit propagation through `hints`; returns its
    /// number.
    pub(super) fn add(
        &mut self,
        lits: impl Iterator<Item = i64>,
        hints: &[u64],
        out: &mut dyn Write,
    ) -> io::Result<u64> {
        let id = self.next;
        self.next += 1;
        self.lemmas += 1;
        self.text.clear();
        if self.binary {
            self.text.push(b'a');
            push_varint(&mut self.text, id as i64);
            for l in lits {
                push_varint(&mut self.text, l);
            }
            self.text.push(0);
            for &h in hints {
                push_varint(&mut self.text, h as i64);
            }
            self.text.push(0);
            out.write_all(&self.text)?;
            return Ok(id);
        }
        push_int(&mut self.text, id as i64);
        for l in lits {
            push_int(&mut self.text, l);
        }
        self.text.extend_from_slice(b" 0");
        for &h in hints {
            push_int(&mut self.text, h as i64);
        }
        self.text.extend_from_slice(b" 0\n");
        out.write_all(&self.text[1..])?;
        Ok(id)
    }

    /// Deletes the clauses numbered `ids`: [`DELETE_BATCH`] to a line, once there are as many.
    /// Those still waiting when the proof ends are not written: the empty clause is the
    /// proof's last line.
    pub(super) fn delete(&mut self, ids: &[u64], out: &mut dyn Write) -> io::Result<()> {
        self.unused.extend_from_slice(ids);
        while self.unused.len() >= DELETE_BATCH {
            self.deletions += DELETE_BATCH as u64;
            self.text.clear();
            if self.binary {
                // Binary deletions carry no number of their own.
                self.text.push(b'd');
                for id in self.unused.drain(..DELETE_BATCH) {
                    push_varint(&mut self.text, id as i64);
                }
                self.text.push(0);
                out.write_all(&self.text)?;
                continue;
            }
            // The line's own number: that of the last clause added, as checkers expect.
            push_int(&mut self.text, self.next as i64 - 1);
            self.text.extend_from_slice(b" d");
            for id in self.unused.drain(..DELETE_BATCH) {
                push_int(&mut self.text, id as i64);
            }
            self.text.extend_from_slice(b" 0\n");
            out.write_all(&self.text[1..])?;
        }
        Ok(())
    }
}

/// The hash of a pair of variables for [`Lrat::binary`]'s table, looked up once per hint:
/// one multiplication (SipHash, the default, took a tenth of a proof's writing time). The
/// keys are the proof's own, not an adversary's.
#[derive(Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ v >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Appends `" {v}"` (decimal): the proof's hot path, without `fmt`'s machinery. A line
/// is written from its second byte.
fn push_int(buf: &mut Vec<u8>, v: i64) {
    let mut digits = [0u8; 20];
    let mut u = v.unsigned_abs();
    let mut k = digits.len();
    loop {
        k -= 1;
        digits[k] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    buf.push(b' ');
    if v < 0 {
        buf.push(b'-');
    }
    buf.extend_from_slice(&digits[k..]);
}

/// Appends `v` as binary DRAT and LRAT write a number: `2|v| + (v < 0)`, seven bits a
/// byte, lowest first, the high bit set on every byte but the last.
fn push_varint(buf: &mut Vec<u8>, v: i64) {
    let mut u = 2 * v.unsigned_abs() + (v < 0) as u64;
    while u > 127 {
        buf.push(128 | (u & 127) as u8);
        u >>= 7;
    }
    buf.push(u as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_numbers_are_sign_folded_seven_bits_a_byte() {
        let mut b = Vec::new();
        for v in [1, -1, 63, 64, -8192] {
            push_varint(&mut b, v);
        }
        // 1 -> 2; -1 -> 3; 63 -> 126; 64 -> 128 = 0x80 0x01; -8192 -> 16385 = 0x81 0x80 0x01.
        assert_eq!(b, [2, 3, 126, 0x80, 0x01, 0x81, 0x80, 0x01]);
    }

    #[test]
    fn numbers_are_written_with_a_space_before() {
        let mut b = Vec::new();
        for v in [0, 7, -12, 1_234_567_890_123] {
            push_int(&mut b, v);
        }
        assert_eq!(b, b" 0 7 -12 1234567890123");
    }

    /// The dense table and the map (for layouts with more pairs than the table holds)
    /// give every pair of every counter line the clause recorded for it, and none before.
    #[test]
    fn derived_pairs_are_found_alike_in_the_table_and_the_map() {
        let mut layout = Layout::new(40);
        let vars: Vec<i64> = (1..=40).collect();
        // Two counter lines of 25 and 15 cells around a pairwise one of 3.
        layout.line(Direction::Row, &vars[..25], 10, true);
        layout.line(Direction::Column, &vars[..3], 200, false);
        layout.line(Direction::D1, &vars[25..], 300, true);
        let mut dense = Derived::new(&layout);
        assert!(matches!(dense, Derived::Dense { .. }));
        let mut sparse = Derived::Sparse(HashMap::default());
        let pairs = [(0u32, 25u64), (2, 15)];
        let mut id = 1000;
        for &(line, len) in &pairs {
            for j in 1..len {
                for i in 0..j {
                    assert_eq!(dense.get(line, i, j), None);
                    assert_eq!(sparse.get(line, i, j), None);
                    if (i + j) % 3 == 0 {
                        dense.insert(line, i, j, id);
                        sparse.insert(line, i, j, id);
                    }
                    id += 1;
                }
            }
        }
        let mut id = 1000;
        for &(line, len) in &pairs {
            for j in 1..len {
                for i in 0..j {
                    let want = ((i + j) % 3 == 0).then_some(id);
                    assert_eq!(dense.get(line, i, j), want, "line {line} pair ({i}, {j})");
                    assert_eq!(sparse.get(line, i, j), want, "line {line} pair ({i}, {j})");
                    id += 1;
                }
            }
        }
        assert_eq!(layout.counter_pairs(), 25 * 24 / 2 + 15 * 14 / 2);
    }
}
