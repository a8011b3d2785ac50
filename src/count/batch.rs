//! The constellation engine's work as batches of search nodes over flat tables: the shape a
//! data-parallel backend takes, one node per thread. A batch holds, per item, its table
//! (free rows, the row its nodes sit on, the squares each row may take, the row gaps) as
//! plain `u32` words, and the nodes of all its items as four words each (the columns and
//! both diagonals taken, as seen from the node's row, and the row's free squares); each
//! node's placements are found by a search of the rows below it that reads nothing but
//! its item's table ([`count_node`], written as a GPU thread would run it: fixed-size
//! stacks, no allocation, no data-dependent memory beyond the table). The CPU engine
//! expands the same nodes breadth first (`constellations::Bottom`); both give the same
//! totals, checked for every item of n = 5..13. `batch.cu` beside this file is the same
//! search as a CUDA kernel; the tests compile it with the host's C++ compiler and compare
//! its count of every node with [`count_node`]'s.

use super::constellations::Item;

/// Words of one item's table: free rows, the nodes' row, then 32 words of allowed squares
/// and 32 of row gaps.
pub const TABLE_WORDS: usize = 66;

/// Search nodes of some items with their tables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeBatch {
    /// [`TABLE_WORDS`] words per item: `levels`, `row` (the free row the item's nodes sit
    /// on), `allowed[32]`, `gap[32]`.
    pub tables: Vec<u32>,
    /// Per item: the class size its placements count for.
    pub weights: Vec<u64>,
    /// Per node: columns, down-left and down-right diagonals taken as seen from its row,
    /// and the row's squares still free.
    pub nodes: Vec<[u32; 4]>,
    /// Per node: its item's position in the batch.
    pub owners: Vec<u32>,
}

impl NodeBatch {
    /// Adds `item`'s nodes on its free row `depth` (its last when it has fewer; row 0 is
    /// the item itself): its search down to that row, the nodes left there.
    pub(super) fn push(&mut self, item: &Item, depth: usize) {
        let owner = self.weights.len() as u32;
        let row = depth.min(item.levels.saturating_sub(1));
        self.tables.push(item.levels as u32);
        self.tables.push(row as u32);
        self.tables.extend_from_slice(&item.allowed);
        self.tables.extend_from_slice(&item.gap);
        self.weights.push(item.weight);
        let mut emit = |node: [u32; 4]| {
            self.nodes.push(node);
            self.owners.push(owner);
        };
        if row == 0 {
            emit([0, 0, 0, item.allowed[0]]);
            return;
        }
        let (mut l, mut d, mut r, mut todo) = ([0u32; 32], [0u32; 32], [0u32; 32], [0u32; 32]);
        let mut k = 0usize;
        todo[0] = item.allowed[0];
        loop {
            if todo[k] == 0 {
                if k == 0 {
                    return;
                }
                k -= 1;
                continue;
            }
            let bit = todo[k] & todo[k].wrapping_neg();
            todo[k] ^= bit;
            let g = item.gap[k];
            let (nl, nd, nr) = ((l[k] | bit) << g, d[k] | bit, (r[k] | bit) >> g);
            let free = item.allowed[k + 1] & !(nl | nd | nr);
            if free == 0 {
                continue;
            }
            if k + 1 == row {
                emit([nl, nd, nr, free]);
                continue;
            }
            k += 1;
            (l[k], d[k], r[k], todo[k]) = (nl, nd, nr, free);
        }
    }

    /// Empties the batch, keeping its memory.
    pub fn clear(&mut self) {
        self.tables.clear();
        self.weights.clear();
        self.nodes.clear();
        self.owners.clear();
    }

    /// Adds `other`'s items and nodes after this batch's.
    pub fn append(&mut self, other: &NodeBatch) {
        let offset = self.weights.len() as u32;
        self.tables.extend_from_slice(&other.tables);
        self.weights.extend_from_slice(&other.weights);
        self.nodes.extend_from_slice(&other.nodes);
        self.owners.extend(other.owners.iter().map(|&o| o + offset));
    }

    /// The placements of all the batch's items, each times its weight.
    pub fn count(&self) -> u64 {
        self.node_counts()
            .iter()
            .zip(&self.owners)
            .map(|(&c, &o)| c * self.weights[o as usize])
            .sum()
    }

    /// Each node's placements (unweighted), as a data-parallel backend returns them.
    pub fn node_counts(&self) -> Vec<u64> {
        self.nodes
            .iter()
            .zip(&self.owners)
            .map(|(&node, &o)| {
                let at = o as usize * TABLE_WORDS;
                count_node(&self.tables[at..at + TABLE_WORDS], node)
            })
            .collect()
    }
}

/// The placements below one node: a depth-first search from its row to the item's last
/// free row over the item's `table` ([`TABLE_WORDS`] words), counting the free squares of
/// the last row.
pub fn count_node(table: &[u32], node: [u32; 4]) -> u64 {
    let (levels, row) = (table[0] as usize, table[1] as usize);
    let (allowed, gap) = (&table[2..34], &table[34..66]);
    let last = levels - 1;
    if row == last {
        return node[3].count_ones() as u64;
    }
    let (mut l, mut d, mut r, mut todo) = ([0u32; 32], [0u32; 32], [0u32; 32], [0u32; 32]);
    let mut k = row;
    (l[k], d[k], r[k], todo[k]) = (node[0], node[1], node[2], node[3]);
    let mut found = 0u64;
    loop {
        if todo[k] == 0 {
            if k == row {
                return found;
            }
            k -= 1;
            continue;
        }
        let bit = todo[k] & todo[k].wrapping_neg();
        todo[k] ^= bit;
        let g = gap[k];
        let (nl, nd, nr) = ((l[k] | bit) << g, d[k] | bit, (r[k] | bit) >> g);
        let free = allowed[k + 1] & !(nl | nd | nr);
        if k + 1 == last {
            found += free.count_ones() as u64;
            continue;
        }
        if free == 0 {
            continue;
        }
        k += 1;
        (l[k], d[k], r[k], todo[k]) = (nl, nd, nr, free);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::constellations::WorkItems;

    /// OEIS A000170 from n = 5.
    const TOTALS: [u64; 10] = [10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596];

    /// The CUDA kernel's text (`batch.cu`), built for the host by the C++ compiler (`c++`,
    /// which .ci/run's machines have), counts every node of the batches of n = 5..14 (the
    /// nodes `count --gpu` sends by default, on free row 4; and on rows 0, 1, 3 and past
    /// the last) as [`count_node`] does, and their weighted sums are the OEIS counts.
    #[test]
    fn the_cuda_kernel_built_for_the_host_counts_every_node_alike() {
        let dir = tempfile::tempdir().unwrap();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/count/batch.cu");
        // Built with the stack size `count --gpu` would give it (the host build aborts on
        // a stack or row table too small for a node).
        let build = |stack_depth: usize| {
            let exe = dir.path().join(format!("kernel-{stack_depth}"));
            if exe.exists() {
                return exe;
            }
            let built = std::process::Command::new("c++")
                .args([
                    "-O2",
                    "-x",
                    "c++",
                    "-DNQUEENS_HOST_MAIN",
                    "-Wall",
                    "-Werror",
                ])
                .arg(format!("-DSTACK_DEPTH={stack_depth}"))
                .arg("-o")
                .arg(&exe)
                .arg(&src)
                .output()
                .expect("a C++ compiler (c++) on PATH");
            assert!(
                built.status.success(),
                "{}",
                String::from_utf8_lossy(&built.stderr)
            );
            exe
        };
        let cases = (5..=14u32)
            .map(|n| (n, 4usize))
            .chain([(12, 3), (13, 0), (14, 1), (11, 40)]);
        for (n, depth) in cases {
            let settings = super::super::share::Settings {
                depth,
                block: 128,
                shared: true,
                batch_nodes: 1,
                cpu_threads: 0,
            };
            let exe = build(settings.stack_depth(n));
            let work = WorkItems::new(n);
            let mut batch = NodeBatch::default();
            for i in 0..work.len() {
                batch.push(&work.get(i), depth);
            }
            let mut input = Vec::new();
            let mut word = |w: u32| input.extend_from_slice(&w.to_le_bytes());
            word(batch.weights.len() as u32);
            word(batch.nodes.len() as u32);
            batch.tables.iter().for_each(|&w| word(w));
            batch.nodes.iter().flatten().for_each(|&w| word(w));
            batch.owners.iter().for_each(|&w| word(w));
            let mut child = std::process::Command::new(&exe)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let writer = std::thread::spawn(move || {
                std::io::Write::write_all(&mut stdin, &input).unwrap();
            });
            let out = child.wait_with_output().unwrap();
            writer.join().unwrap();
            assert!(out.status.success(), "n = {n}");
            let counts: Vec<u64> = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(|l| l.parse().unwrap())
                .collect();
            assert_eq!(counts, batch.node_counts(), "n = {n}, depth {depth}");
            let total: u64 = counts
                .iter()
                .zip(&batch.owners)
                .map(|(&c, &o)| c * batch.weights[o as usize])
                .sum();
            let oeis = [
                10u64, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
            ];
            assert_eq!(total, oeis[n as usize - 5], "n = {n}");
        }
    }

    #[test]
    fn batches_give_every_item_its_count_at_every_split() {
        for n in 5..=13u32 {
            let work = WorkItems::new(n);
            for depth in [0, 1, 3, 8, 40] {
                let mut whole = NodeBatch::default();
                for i in 0..work.len() {
                    let item = work.get(i);
                    let mut one = NodeBatch::default();
                    one.push(&item, depth);
                    assert_eq!(
                        one.count(),
                        item.count(),
                        "n = {n}, item {i}, depth {depth}"
                    );
                    whole.push(&item, depth);
                }
                assert_eq!(
                    whole.count(),
                    TOTALS[n as usize - 5],
                    "n = {n}, depth {depth}"
                );
                assert_eq!(whole.tables.len(), work.len() * TABLE_WORDS);
                // Built in parts and appended: the same batch.
                let mut parts = NodeBatch::default();
                for chunk in (0..work.len()).collect::<Vec<_>>().chunks(7) {
                    let mut part = NodeBatch::default();
                    chunk.iter().for_each(|&i| part.push(&work.get(i), depth));
                    parts.append(&part);
                }
                assert_eq!(parts, whole, "n = {n}, depth {depth}");
            }
        }
    }
}
