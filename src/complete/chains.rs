//! Chains of column exchanges: the free rows of an almost complete board (every free row
//! but a few holds a queen) make room for the rows left without one. A row left without
//! a queen takes a cell whose diagonals are free; that cell's column may be held by
//! another free row, which then takes another such cell, and so on until a row takes a
//! column no row holds. This is an augmenting path of a bipartite matching of rows to
//! columns, whose edges are the cells with both diagonals free.
//!
//! Two callers: the closed-form phase, for the rows an edited construction's moved queens
//! attack, and the search, for the rows the end games leave open (pairing's board with
//! every other free row placed).
//!
//! Why: an edited construction at n = 10^9 with 1 % of its rows cleared leaves a few
//! rows the form cannot place, and the columns they need far away on the board (rows
//! 17 M-524 M, columns 169 M-544 M). A neighbourhood grown cell by cell from both ends
//! (`closed_form::Reroute`) samples a few hundred of the millions of rows that could link
//! them and misses; a whole-board scan from each end finds chains of two or three rows at
//! once, because such a board has millions of cells with both diagonals free (the ones
//! on the diagonals the construction does not use). Where rows are tighter (0.01 %
//! cleared) the construction's diagonals of one direction are taken in residue classes
//! mod 3, which rules out every short chain between some rows and columns: the search
//! then goes on to longer ones.
//!
//! The search is breadth first from both ends at once: forward from the row without a
//! queen (the rows whose column it can take, the rows whose column those can take, ...)
//! and backward from the vacant columns (the rows that can take one, the rows that can
//! take the column of those, ...), each level one scan of every free column per row of
//! the frontier (FRONTIER rows of it at most, in pieces that stop at the first chain),
//! the smaller frontier expanded first, until the two meet.

use super::state::BoardState;
use crate::rng::Rng;
use crate::stop::Stop;
use rayon::prelude::*;

/// Cell checks a search may spend: on the chain of each row (checked between levels, so
/// a level may overrun it), and on all rows. Counts, not times, so that the answer does
/// not depend on the machine.
#[derive(Debug, Clone, Copy)]
pub(super) struct Checks {
    pub per_row: u64,
    pub total: u64,
}
/// Rows of a frontier expanded, at most: the rest are reached through them or not needed
/// (a frontier of thousands of rows already covers most free columns).
const FRONTIER: usize = 32;
/// Entries scanned at a time in one level, between looks for a chain: at first, and at
/// most (on every core).
const FIRST_PIECE: usize = 1 << 8;
const PIECE: usize = 1 << 14;
/// Rows moved by one chain, at most.
const LONGEST: usize = 8;

/// No row holds the column, or an entry is not reached.
const NONE: u32 = u32::MAX;
/// The row without a queen, as a forward parent.
const HOME: u32 = u32::MAX - 1;

/// What [`rehouse`] did.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Chains {
    /// Rows given a cell by a chain.
    pub rehoused: u64,
    /// Rows moved in all, the rehoused ones included.
    pub moved: u64,
}

/// Gives each row of `homeless` (free rows without a queen in `state`) a cell by a chain
/// of column exchanges, where one is found: `free` are the input's free rows (increasing)
/// and `columns` their columns, 0 for the homeless ones, updated as rows move. `state`
/// holds the given queens and a queen on every free row with a column. At most `checks`
/// cells are checked. Returns the rows still without one (increasing), and what
/// was done.
pub(super) fn rehouse(
    state: &mut BoardState,
    free: &[u64],
    columns: &mut [u64],
    homeless: &[u64],
    mut rng: Rng,
    checks: Checks,
    stop: &Stop,
) -> (Vec<u64>, Chains) {
    debug_assert!(2 * state.n < 1 << 32);
    // Every free column, with the free row holding it (NONE: vacant), increasing, so that
    // a scan for one row reads the diagonal bitmaps in order.
    let mut holders: Vec<u64> = free
        .iter()
        .zip(columns.iter())
        .filter(|&(_, &j)| j != 0)
        .map(|(&i, &j)| j << 32 | i)
        .collect();
    state.for_each_free_column(|j| {
        holders.push(j << 32 | u64::from(NONE));
        true
    });
    holders.par_sort_unstable();
    let len = holders.len();
    let mut board = Board {
        holders: holders
            .into_iter()
            .map(|e| ((e >> 32) as u32, e as u32))
            .collect(),
        fwd: vec![NONE; len],
        fwd_search: vec![0; len],
        search: 0,
        back: vec![NONE; len],
        back_front: Vec::new(),
        back_levels: 0,
        stale: true,
        budget: checks.total,
        per_row: checks.per_row,
    };
    let mut done = Chains::default();
    let mut left = Vec::new();
    for (k, &h) in homeless.iter().enumerate() {
        if stop.now() || board.budget == 0 {
            left.extend_from_slice(&homeless[k..]);
            break;
        }
        let mut chain = board.find(state, h, &mut rng, stop);
        if chain.is_none() && board.stale {
            // Backward levels found before the last chains may lead to columns no
            // longer vacant, or miss rows that moved.
            board.reset_back();
            chain = board.find(state, h, &mut rng, stop);
        }
        let Some(chain) = chain else {
            left.push(h);
            continue;
        };
        board.apply(state, &chain, free, columns);
        done.rehoused += 1;
        done.moved += chain.len() as u64;
    }
    (left, done)
}

/// A chain: (row, index in `holders` of the column it takes), the homeless row first and
/// the vacant column last.
type Chain = Vec<(u32, usize)>;

struct Board {
    /// (column, row holding it or NONE), increasing.
    holders: Vec<(u32, u32)>,
    /// Per entry, forward: the entry whose row takes this entry's column (HOME: the row
    /// without a queen does), valid in the search `fwd_search` names.
    fwd: Vec<u32>,
    fwd_search: Vec<u32>,
    /// The present search (one per row without a queen).
    search: u32,
    /// Per entry, backward: the entry whose column this entry's row takes on its way to a
    /// vacant column (itself for a vacant column), or NONE.
    back: Vec<u32>,
    /// The entries the last backward level reached, and how many levels there are.
    back_front: Vec<u32>,
    back_levels: usize,
    /// Whether chains were applied since the backward levels were found.
    stale: bool,
    /// Cell checks left for the chains of every row, and the most for one.
    budget: u64,
    per_row: u64,
}

impl Board {
    fn row(&self, entry: u32, h: u64) -> u64 {
        if entry == HOME {
            h
        } else {
            u64::from(self.holders[entry as usize].1)
        }
    }

    fn col(&self, entry: usize) -> u64 {
        u64::from(self.holders[entry].0)
    }

    /// Backward levels from the vacant columns as they are now.
    fn reset_back(&mut self) {
        let holders = &self.holders;
        self.back_front = self
            .back
            .par_iter_mut()
            .enumerate()
            .filter_map(|(k, b)| {
                let vacant = holders[k].1 == NONE;
                *b = if vacant { k as u32 } else { NONE };
                vacant.then_some(k as u32)
            })
            .collect();
        self.back_levels = 0;
        self.stale = false;
    }

    /// Up to FRONTIER entries of `front`, from a random one on.
    fn sample(front: &[u32], rng: &mut Rng) -> Vec<u32> {
        if front.len() <= FRONTIER {
            return front.to_vec();
        }
        let start = rng.index(front.len());
        (0..FRONTIER)
            .map(|t| front[(start + t) % front.len()])
            .collect()
    }

    /// The forward link of entry `k` in the present search, or NONE.
    fn fwd(&self, k: usize) -> u32 {
        if self.fwd_search[k] == self.search {
            self.fwd[k]
        } else {
            NONE
        }
    }

    /// A chain from the row `h`, which holds no queen, to a vacant column, or none.
    fn find(&mut self, state: &BoardState, h: u64, rng: &mut Rng, stop: &Stop) -> Option<Chain> {
        if self.back_front.is_empty() && self.back_levels == 0 {
            self.reset_back();
        }
        // A new search: the forward links of the last ones lapse (without a pass over
        // every entry, which would cost O(m) per row).
        self.search += 1;
        let len = self.holders.len();
        let lines = &state.lines;
        let mut fwd_front = vec![HOME];
        let mut fwd_levels = 0;
        let mut checks = 0;
        let allowed = self.per_row.min(self.budget);
        loop {
            let forward = fwd_front.len() <= self.back_front.len() || self.back_front.is_empty();
            let front = if forward {
                &fwd_front
            } else {
                &self.back_front
            };
            if front.is_empty() || fwd_levels + self.back_levels + 1 > LONGEST || checks > allowed {
                self.budget -= checks.min(self.budget);
                return None;
            }
            let sample = Self::sample(front, rng);
            // Rows (forward) or columns (backward) of the sample.
            let ends: Vec<u64> = sample
                .iter()
                .map(|&e| {
                    if forward {
                        self.row(e, h)
                    } else {
                        self.col(e as usize)
                    }
                })
                .collect();
            let start = rng.index(len);
            let mut reached = Vec::new();
            let mut chain = None;
            // In pieces, from a random entry on, so that a level stops at the first chain:
            // small ones first, on one core (most rows of a loose residual find one in the
            // first few hundred entries), then larger ones on every core.
            let mut from = 0;
            let mut piece = FIRST_PIECE;
            while from < len {
                if stop.now() {
                    self.budget -= checks.min(self.budget);
                    return None;
                }
                let to = (from + piece).min(len);
                checks += ((to - from) * sample.len()) as u64;
                let link = |t: usize| {
                    let k = (start + t) % len;
                    let (col, row) = self.holders[k];
                    let t = if forward {
                        // The entries whose column a row of the sample can take.
                        if self.fwd(k) != NONE {
                            return None;
                        }
                        ends.iter()
                            .position(|&r| lines.diagonals_free(r, col.into()))?
                    } else {
                        // The rows that can take the column of a row of the sample.
                        if self.back[k] != NONE || row == NONE {
                            return None;
                        }
                        ends.iter()
                            .position(|&c| lines.diagonals_free(row.into(), c))?
                    };
                    Some((k as u32, sample[t]))
                };
                let links: Vec<(u32, u32)> = if piece < PIECE {
                    (from..to).filter_map(link).collect()
                } else {
                    (from..to).into_par_iter().filter_map(link).collect()
                };
                from = to;
                piece = (2 * piece).min(PIECE);
                for &(k, link) in &links {
                    if forward {
                        self.fwd[k as usize] = link;
                        self.fwd_search[k as usize] = self.search;
                    } else {
                        self.back[k as usize] = link;
                    }
                }
                chain = links
                    .iter()
                    .map(|&(k, _)| k as usize)
                    .filter(|&k| self.fwd(k) != NONE && self.back[k] != NONE)
                    .find_map(|k| self.chain_through(state, h, k));
                reached.extend(links.iter().map(|&(k, _)| k));
                if chain.is_some() {
                    break;
                }
            }
            if forward {
                // A vacant column reached forward ends a chain or none: it leads nowhere.
                fwd_levels += 1;
                reached.retain(|&k| self.holders[k as usize].1 != NONE);
                fwd_front = reached;
            } else {
                self.back_levels += 1;
                self.back_front = reached;
            }
            if chain.is_some() {
                self.budget -= checks.min(self.budget);
                return chain;
            }
        }
    }

    /// The chain from `h` through the entry `k`, reached both ways, if it holds on the
    /// board as it is now: each row takes a cell whose diagonals are free and the column
    /// the next row leaves (the last a vacant one), no row twice, no two new queens on
    /// one diagonal.
    fn chain_through(&self, state: &BoardState, h: u64, k: usize) -> Option<Chain> {
        let mut chain = Vec::new();
        let mut at = k;
        loop {
            let parent = self.fwd(at);
            chain.push((self.row(parent, h) as u32, at));
            if parent == HOME {
                break;
            }
            at = parent as usize;
        }
        chain.reverse();
        let mut at = k;
        while self.back[at] as usize != at {
            let next = self.back[at] as usize;
            // A stale level may lead to a column that is no longer vacant.
            if next == NONE as usize || chain.len() == LONGEST {
                return None;
            }
            chain.push((self.holders[at].1, next));
            at = next;
        }
        let holds = |(row, entry): (u32, usize), next: Option<&(u32, usize)>| {
            self.holders[entry].1 == next.map_or(NONE, |n| n.0)
                && state.lines.diagonals_free(row.into(), self.col(entry))
        };
        let cells: Vec<(u64, u64)> = chain
            .iter()
            .map(|&(r, e)| (u64::from(r), self.col(e)))
            .collect();
        let valid = chain
            .iter()
            .enumerate()
            .all(|(a, &link)| holds(link, chain.get(a + 1)))
            && cells.iter().enumerate().all(|(a, &(i, j))| {
                cells[..a]
                    .iter()
                    .all(|&(r, c)| r != i && r + j != i + c && r + c != i + j)
            });
        valid.then_some(chain)
    }

    /// Moves the rows of `chain` onto their new columns.
    fn apply(&mut self, state: &mut BoardState, chain: &Chain, free: &[u64], columns: &mut [u64]) {
        for &(row, _) in &chain[1..] {
            state.unplace(row.into());
        }
        for &(row, k) in chain {
            let col = self.holders[k].0;
            state.place(row.into(), col.into());
            self.holders[k].1 = row;
            if let Ok(x) = free.binary_search(&u64::from(row)) {
                columns[x] = col.into();
            }
        }
        let (_, last) = chain[chain.len() - 1];
        self.back[last] = NONE;
        self.back_front.retain(|&e| e as usize != last);
        self.stale = true;
    }
}
