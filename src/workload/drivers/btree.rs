//! `btree`: Rodinia b+tree's two query kernels (`kernels/baws/btree.ptx`;
//! BAWS Table 2 "BT"): `findK` (one CTA per key query) and `findRangeK`
//! (one CTA per range query), each CTA a tree-order 256 threads (8 warps)
//! walking the tree one level per iteration with two `bar.sync` per level.
//!
//! Input ([`build_tree`], [`queries`]): `records` records with distinct,
//! increasing keys (gaps of 1..=4, so some queried keys are absent) and
//! random values; leaves of 128..=255 records and inner nodes of 128..=256
//! children (random, seeded: a half-to-full B+tree of order 256, as
//! Rodinia's insertions give), numbered level by level from the root
//! (node 0). Rodinia's `knode` layout: 517 words (`location`, 257
//! `indices`, 257 `keys`, `is_leaf`, `num_keys`); unused key slots hold
//! `i32::MAX`.
//!
//! Check: `findK`'s answers (`ansD`: the record's value, or the -1 the
//! buffer starts with when the key is absent), `findRangeK`'s `RecstartD`
//! (the first record's index) and `ReclenD` (last - first + 1), each
//! exactly against [`reference_find`] / [`reference_range`], which look
//! the keys up by binary search in the sorted records (not in the tree).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// The tree's order (key slots per node; threads per CTA).
pub const ORDER: usize = 256;
/// Words of one `knode`: location, ORDER + 1 indices, ORDER + 1 keys,
/// `is_leaf` (a `bool` padded to a word), `num_keys`.
pub const KNODE_WORDS: usize = 1 + 2 * (ORDER + 1) + 2;
const INDICES: usize = 1;
const KEYS: usize = 1 + ORDER + 1;
/// Value of a key slot no key uses.
const NO_KEY: i32 = i32::MAX;
/// The initial contents of the output buffers (kept where a key is absent).
const UNSET: i32 = -1;

/// A B+tree in Rodinia's flattened form.
pub struct Tree {
    /// The nodes, `KNODE_WORDS` words each, root first.
    pub knodes: Vec<i32>,
    /// Number of nodes.
    pub nodes: usize,
    /// Levels below the root (the kernels' `height` loop count).
    pub height: u32,
    /// Record keys, increasing.
    pub keys: Vec<i32>,
    /// Record values.
    pub values: Vec<i32>,
}

/// Cuts `n` items into consecutive groups of `lo..=hi` items (random),
/// the last group holding what remains (at least one).
fn groups(n: usize, lo: usize, hi: usize, rng: &mut Rng) -> Vec<std::ops::Range<usize>> {
    let mut v = Vec::new();
    let mut start = 0;
    while start < n {
        let size = lo + rng.below((hi - lo + 1) as u64) as usize;
        let end = (start + size).min(n);
        v.push(start..end);
        start = end;
    }
    v
}

/// Builds a tree over `records` records (see the module comment).
pub fn build_tree(records: usize, seed: u64) -> Tree {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let mut keys = Vec::with_capacity(records);
    let mut k = rng.below(4) as i32;
    for _ in 0..records {
        keys.push(k);
        k += 1 + rng.below(4) as i32;
    }
    let values: Vec<i32> = (0..records).map(|_| rng.below(1 << 30) as i32).collect();

    // Levels bottom-up; a node is (its min key, its entries as (key, index
    // into the level below or record index)).
    type Node = Vec<(i32, usize)>;
    let leaves: Vec<Node> = groups(records, ORDER / 2, ORDER - 1, &mut rng)
        .into_iter()
        .map(|g| g.map(|r| (keys[r], r)).collect())
        .collect();
    let mut levels: Vec<Vec<Node>> = vec![leaves];
    while levels.last().expect("one level").len() > 1 {
        let below = levels.last().expect("one level");
        let n = below.len();
        let level: Vec<Node> = if n <= ORDER {
            vec![(0..n).map(|c| (below[c][0].0, c)).collect()]
        } else {
            groups(n, ORDER / 2, ORDER, &mut rng)
                .into_iter()
                .map(|g| g.map(|c| (below[c][0].0, c)).collect())
                .collect()
        };
        levels.push(level);
    }
    levels.reverse(); // root first
    let height = (levels.len() - 1) as u32;
    let mut first = Vec::with_capacity(levels.len()); // node number of each level's first node
    let mut nodes = 0;
    for l in &levels {
        first.push(nodes);
        nodes += l.len();
    }
    let mut knodes = vec![0i32; nodes * KNODE_WORDS];
    for (depth, level) in levels.iter().enumerate() {
        let leaf = depth + 1 == levels.len();
        for (i, node) in level.iter().enumerate() {
            let number = first[depth] + i;
            let w = &mut knodes[number * KNODE_WORDS..(number + 1) * KNODE_WORDS];
            w[0] = number as i32;
            for slot in 0..=ORDER {
                w[KEYS + slot] = NO_KEY;
            }
            for (slot, &(key, index)) in node.iter().enumerate() {
                w[KEYS + slot] = key;
                w[INDICES + slot] = if leaf {
                    index as i32
                } else {
                    (first[depth + 1] + index) as i32
                };
            }
            w[KEYS + ORDER + 1] = i32::from(leaf);
            w[KEYS + ORDER + 2] = node.len() as i32;
        }
    }
    Tree {
        knodes,
        nodes,
        height,
        keys,
        values,
    }
}

/// `n` `findK` keys and `n` `findRangeK` ranges: mostly record keys (3 in 4
/// single keys, 7 in 8 range starts), the rest anything up to just past the
/// largest key; range ends `start + 0..range` (present or not).
pub fn queries(tree: &Tree, n: usize, range: u32, seed: u64) -> (Vec<i32>, Vec<i32>, Vec<i32>) {
    let mut rng = Rng::new(stream_seed(seed, 1));
    let top = *tree.keys.last().expect("at least one record") as u64 + 8;
    let records = tree.keys.len() as u64;
    let any_key = |rng: &mut Rng, present_in: u64| {
        if rng.below(present_in) != 0 {
            tree.keys[rng.below(records) as usize]
        } else {
            rng.below(top) as i32
        }
    };
    let find: Vec<i32> = (0..n).map(|_| any_key(&mut rng, 4)).collect();
    let start: Vec<i32> = (0..n).map(|_| any_key(&mut rng, 8)).collect();
    let end = start
        .iter()
        .map(|&s| s + rng.below(u64::from(range)) as i32)
        .collect();
    (find, start, end)
}

/// `findK`'s answers: the value of the record with each key, or -1.
pub fn reference_find(tree: &Tree, find: &[i32]) -> Vec<i32> {
    find.iter()
        .map(|k| tree.keys.binary_search(k).map_or(UNSET, |r| tree.values[r]))
        .collect()
}

/// `findRangeK`'s `RecstartD` and `ReclenD`: the record index of each start
/// key (-1 if absent), and (index of the end key) - start + 1 (-1 if the
/// end key is absent).
pub fn reference_range(tree: &Tree, start: &[i32], end: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let mut rec_start = Vec::with_capacity(start.len());
    let mut rec_len = Vec::with_capacity(start.len());
    for (s, e) in start.iter().zip(end) {
        let first = tree.keys.binary_search(s).map_or(UNSET, |r| r as i32);
        rec_start.push(first);
        rec_len.push(
            tree.keys
                .binary_search(e)
                .map_or(UNSET, |r| r as i32 - first + 1),
        );
    }
    (rec_start, rec_len)
}

/// The `btree` workload.
pub struct Btree {
    records: u32,
    queries: u32,
    range: u32,
    seed: u64,
}

impl Btree {
    /// Reads `records` (default 200000; at most 2^28 so keys fit an `int`),
    /// `queries` (300; one CTA per query in each kernel), `range` (200: a
    /// range query's end is its start plus `0..range`) and `seed` (1). The
    /// launch shape is Rodinia's (one CTA of `ORDER` threads per query);
    /// the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Btree, WorkloadError> {
        let w = Btree {
            records: args.count("records", 200_000)?,
            queries: args.count("queries", 300)?,
            range: args.count("range", 200)?,
            seed: args.u64("seed", 1)?,
        };
        if w.records > 1 << 28 || w.range > 1 << 28 {
            return Err(WorkloadError::Args(format!(
                "`records` = {} and `range` = {} must be at most 2^28 (keys are `int`s)",
                w.records, w.range
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "btree uses Rodinia's launch shape (one CTA of 256 threads per query): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

impl Workload for Btree {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let tree = build_tree(self.records as usize, self.seed);
        let n = self.queries as usize;
        let (find, start, end) = queries(&tree, n, self.range, self.seed);
        let knodes = upload(host, "knodesD", &tree.knodes)?;
        let records = upload(host, "recordsD", &tree.values)?;
        let zeros = vec![0i64; n];
        let grid = [self.queries, 1, 1];
        let block = [ORDER as u32, 1, 1];
        let height = ArgValue::S64(i64::from(tree.height));
        let elems = ArgValue::S64(tree.nodes as i64);

        let curr = upload(host, "currKnodeD", &zeros)?;
        let offset = upload(host, "offsetD", &zeros)?;
        let keys = upload(host, "keysD", &find)?;
        let ans = upload(host, "ansD", &vec![UNSET; n])?;
        host.launch(
            Some("findK"),
            grid,
            block,
            &[
                height,
                ArgValue::U64(knodes),
                elems,
                ArgValue::U64(records),
                ArgValue::U64(curr),
                ArgValue::U64(offset),
                ArgValue::U64(keys),
                ArgValue::U64(ans),
            ],
        )?;

        let curr2 = upload(host, "currKnodeD_range", &zeros)?;
        let offset2 = upload(host, "offsetD_range", &zeros)?;
        let last = upload(host, "lastKnodeD", &zeros)?;
        let offset_2 = upload(host, "offset_2D", &zeros)?;
        let dstart = upload(host, "startD", &start)?;
        let dend = upload(host, "endD", &end)?;
        let rec_start = upload(host, "RecstartD", &vec![UNSET; n])?;
        let rec_len = upload(host, "ReclenD", &vec![UNSET; n])?;
        host.launch(
            Some("findRangeK"),
            grid,
            block,
            &[
                height,
                ArgValue::U64(knodes),
                elems,
                ArgValue::U64(curr2),
                ArgValue::U64(offset2),
                ArgValue::U64(last),
                ArgValue::U64(offset_2),
                ArgValue::U64(dstart),
                ArgValue::U64(dend),
                ArgValue::U64(rec_start),
                ArgValue::U64(rec_len),
            ],
        )?;

        let got_ans: Vec<i32> = download(host, ans, n)?;
        let got_start: Vec<i32> = download(host, rec_start, n)?;
        let got_len: Vec<i32> = download(host, rec_len, n)?;
        let (want_start, want_len) = reference_range(&tree, &start, &end);
        Ok(Check::all([
            check::exact("ansD", &reference_find(&tree, &find), &got_ans),
            check::exact("RecstartD", &want_start, &got_start),
            check::exact("ReclenD", &want_len, &got_len),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernels' walk on the host: from the root, `height` times take
    /// the child whose key slot brackets `key`.
    fn walk(tree: &Tree, key: i32) -> usize {
        let mut cur = 0;
        for _ in 0..tree.height {
            let w = &tree.knodes[cur * KNODE_WORDS..];
            if let Some(t) = (0..ORDER).find(|&t| w[KEYS + t] <= key && w[KEYS + t + 1] > key) {
                cur = w[INDICES + t] as usize;
            }
        }
        cur
    }

    #[test]
    fn the_tree_walk_finds_every_record_in_a_leaf() {
        // The manifest's 200 000 records: ~1 000 leaves under a few inner
        // nodes under the root (2 levels walked, 4 / 5 barriers).
        assert_eq!(build_tree(200_000, 1).height, 2);
        assert_eq!(build_tree(100, 1).height, 0, "one leaf is the root");
        let tree = build_tree(70_000, 5);
        assert_eq!(
            tree.height, 2,
            "70000 records: leaves, one inner level, root"
        );
        for r in (0..tree.keys.len()).step_by(97) {
            let leaf = walk(&tree, tree.keys[r]);
            let w = &tree.knodes[leaf * KNODE_WORDS..(leaf + 1) * KNODE_WORDS];
            assert_eq!(w[KEYS + ORDER + 1], 1, "node {leaf} is a leaf");
            let slot = (0..ORDER).find(|&t| w[KEYS + t] == tree.keys[r]);
            assert_eq!(slot.map(|t| w[INDICES + t]), Some(r as i32));
        }
        let (find, start, end) = queries(&tree, 400, 50, 5);
        let ans = reference_find(&tree, &find);
        assert!(
            ans.iter().filter(|&&a| a == UNSET).count() > 10,
            "some misses"
        );
        assert!(
            ans.iter().filter(|&&a| a != UNSET).count() > 250,
            "mostly hits"
        );
        let (s, l) = reference_range(&tree, &start, &end);
        assert!(s.iter().zip(&l).any(|(&s, &l)| s >= 0 && l > 1));
    }
}
