//! `mummer`: MUMmerGPU's exact matching of short reads against a reference
//! (`kernels/blws/mummer.ptx`, `mummergpuKernel`; BLWS Table 3
//! "Mummer-GPU", ISPASS 2009 "MUM"). The host builds the suffix tree of the
//! reference ([`SuffixTree::build`]); one thread per query read walks it
//! from every start position `i = 0 ..= len − min_len`, moving from one
//! position to the next through suffix links, and records the longest
//! prefix of `read[i..]` found in the reference when it has at least
//! `min_len` characters: (its first position in the reference, its
//! length). CTAs of 256 threads (8 warps).
//!
//! Input ([`input`]): a reference of `ref_len` uniform bases with
//! `repeats` segments of 50–249 bases copied from elsewhere in it (so
//! matches can occur several times), and `queries` reads of `read_len`
//! bases taken from uniform positions of the reference, each base replaced
//! by another with probability `mutation` (sequencing errors: matches end
//! there). Check: `d_MatchCoords` (one (position, length) pair per start
//! position; positions without a match keep the host's
//! `(0xFFFFFFFF, 0)`) exactly against [`reference`], which finds the
//! matches by binary search in a sorted suffix array instead of a tree.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Threads per CTA (one query each).
pub const THREADS: u32 = 256;
/// A result slot without a match.
pub const NO_MATCH: [u32; 2] = [u32::MAX, 0];
const BASES: [u8; 4] = *b"ACGT";

/// The `mummer` workload.
pub struct Mummer {
    ref_len: u32,
    repeats: u32,
    queries: u32,
    read_len: u32,
    min_len: u32,
    mutation: f64,
    seed: u64,
}

impl Mummer {
    /// Reads `ref_len` (default 20000, MUMmerGPU's ISPASS reference; at
    /// most 2^22), `repeats` (8), `queries` (50000: 196 CTAs; at most
    /// 2^24), `read_len` (25; at most `ref_len`), `min_len` (20, at most
    /// `read_len`), `mutation` (0.02, a probability) and `seed` (1). One
    /// thread per query: the manifest gives no `grid`/`block`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Mummer, WorkloadError> {
        let w = Mummer {
            ref_len: args.count("ref_len", 20000)?,
            repeats: args.u32("repeats", 8)?,
            queries: args.count("queries", 50000)?,
            read_len: args.count("read_len", 25)?,
            min_len: args.count("min_len", 20)?,
            mutation: args.f64("mutation", 0.02)?,
            seed: args.u64("seed", 1)?,
        };
        if w.ref_len > 1 << 22 || w.queries > 1 << 24 {
            return Err(WorkloadError::Args(format!(
                "`ref_len` = {} must be at most 2^22 and `queries` = {} at most 2^24",
                w.ref_len, w.queries
            )));
        }
        if w.read_len > w.ref_len || w.read_len > 4096 {
            return Err(WorkloadError::Args(format!(
                "`read_len` = {} must be at most `ref_len` = {} and at most 4096 (reads are taken from the reference)",
                w.read_len, w.ref_len
            )));
        }
        if w.min_len > w.read_len {
            return Err(WorkloadError::Args(format!(
                "`min_len` = {} must be at most `read_len` = {}",
                w.min_len, w.read_len
            )));
        }
        if !(0.0..=1.0).contains(&w.mutation) {
            return Err(WorkloadError::Args(format!(
                "`mutation` = {} must be a probability in [0, 1]",
                w.mutation
            )));
        }
        if u64::from(w.queries) * (u64::from(w.read_len) + 1) > 1 << 31 {
            return Err(WorkloadError::Args(format!(
                "`queries` × (`read_len` + 1) = {} × {} must be at most 2^31 bytes",
                w.queries,
                w.read_len + 1
            )));
        }
        let slots = u64::from(w.queries) * u64::from(w.read_len - w.min_len + 1);
        if slots * 8 > 1 << 31 {
            return Err(WorkloadError::Args(format!(
                "{slots} match slots (`queries` × (`read_len` − `min_len` + 1)) of 8 bytes must fit in 2 GiB"
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "mummer uses one thread per query (CTAs of 256 threads): remove `grid`/`block`"
                    .into(),
            ));
        }
        Ok(w)
    }
}

/// The reference (bases, without terminator) and the reads (see the
/// module comment).
pub fn input(
    ref_len: usize,
    repeats: u32,
    queries: usize,
    read_len: usize,
    mutation: f64,
    seed: u64,
) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let mut r: Vec<u8> = (0..ref_len).map(|_| BASES[rng.below(4) as usize]).collect();
    for _ in 0..repeats {
        let len = (50 + rng.below(200) as usize).min(ref_len / 2);
        if len == 0 {
            break;
        }
        let src = rng.below((ref_len - len + 1) as u64) as usize;
        let dst = rng.below((ref_len - len + 1) as u64) as usize;
        let seg = r[src..src + len].to_vec();
        r[dst..dst + len].copy_from_slice(&seg);
    }
    let mut rng = Rng::new(stream_seed(seed, 1));
    let reads = (0..queries)
        .map(|_| {
            let at = rng.below((ref_len - read_len + 1) as u64) as usize;
            r[at..at + read_len]
                .iter()
                .map(|&b| {
                    if rng.unit_f64() < mutation {
                        let old = BASES.iter().position(|&x| x == b).unwrap_or(0) as u64;
                        BASES[((old + 1 + rng.below(3)) % 4) as usize]
                    } else {
                        b
                    }
                })
                .collect()
        })
        .collect();
    (r, reads)
}

/// A suffix tree as the kernel reads it: per node `[edge start, edge end
/// (exclusive), suffix link, first reference position below the node]`
/// and `[child A, C, G, T]` (0: none). Node 0 is the root.
pub struct SuffixTree {
    /// `d_Nodes`.
    pub nodes: Vec<[u32; 4]>,
    /// `d_Children`.
    pub children: Vec<[u32; 4]>,
}

fn code(c: u8) -> usize {
    match c {
        b'A' => 0,
        b'C' => 1,
        b'G' => 2,
        b'T' => 3,
        _ => 4,
    }
}

impl SuffixTree {
    /// The suffix tree of `text` (the reference followed by one 0 byte,
    /// which occurs nowhere else), built by inserting the suffixes one by
    /// one and splitting edges (fast for references without long repeats),
    /// with suffix links found by walking each internal node's label minus
    /// its first character down from the root. Nodes are numbered in the
    /// order they are created.
    pub fn build(text: &[u8]) -> Result<SuffixTree, String> {
        let n = text.len();
        if text.last() != Some(&0) || text[..n - 1].contains(&0) {
            return Err("the reference must end with its only 0 byte".into());
        }
        let at = |i: usize| text.get(i).copied().unwrap_or(0);
        let mut start = vec![0u32];
        let mut end = vec![0u32];
        let mut kids = vec![[0u32; 5]];
        let mut suffix = vec![u32::MAX];
        for s in 0..n {
            let (mut v, mut pos) = (0usize, s);
            loop {
                let c = code(at(pos));
                let w = kids[v][c] as usize;
                if w == 0 {
                    kids[v][c] = start.len() as u32;
                    start.push(pos as u32);
                    end.push(n as u32);
                    kids.push([0; 5]);
                    suffix.push(s as u32);
                    break;
                }
                let (ws, we) = (start[w] as usize, end[w] as usize);
                let mut k = 1;
                while ws + k < we && at(ws + k) == at(pos + k) {
                    k += 1;
                }
                if ws + k == we {
                    v = w;
                    pos += k;
                    if pos >= n {
                        return Err(format!("suffix {s} occurs twice"));
                    }
                    continue;
                }
                let u = start.len();
                start.push(ws as u32);
                end.push((ws + k) as u32);
                let mut uk = [0u32; 5];
                uk[code(at(ws + k))] = w as u32;
                uk[code(at(pos + k))] = u as u32 + 1;
                kids.push(uk);
                suffix.push(u32::MAX);
                start[w] = (ws + k) as u32;
                kids[v][c] = u as u32;
                start.push((pos + k) as u32);
                end.push(n as u32);
                kids.push([0; 5]);
                suffix.push(s as u32);
                break;
            }
        }
        let count = start.len();
        // Depths top-down (preorder), first positions bottom-up.
        let mut depth = vec![0u32; count];
        let mut order = Vec::with_capacity(count);
        let mut stack = vec![0usize];
        while let Some(v) = stack.pop() {
            order.push(v);
            for &w in kids[v].iter().filter(|&&w| w != 0) {
                depth[w as usize] = depth[v] + end[w as usize] - start[w as usize];
                stack.push(w as usize);
            }
        }
        let mut first = suffix.clone();
        for &v in order.iter().rev() {
            for &w in kids[v].iter().filter(|&&w| w != 0) {
                first[v] = first[v].min(first[w as usize]);
            }
        }
        let mut link = vec![0u32; count];
        for u in 1..count {
            if suffix[u] != u32::MAX || depth[u] <= 1 {
                continue; // leaves need no link; depth-1 nodes link to the root
            }
            let (mut x, mut p, mut rem) = (0usize, first[u] as usize + 1, depth[u] as usize - 1);
            while rem > 0 {
                let w = kids[x][code(at(p))] as usize;
                let elen = (end[w] - start[w]) as usize;
                if w == 0 || elen > rem {
                    return Err(format!("internal node {u} has no suffix link target"));
                }
                x = w;
                p += elen;
                rem -= elen;
            }
            link[u] = x as u32;
        }
        Ok(SuffixTree {
            nodes: (0..count)
                .map(|v| [start[v], end[v], link[v], first[v]])
                .collect(),
            children: kids.iter().map(|k| [k[0], k[1], k[2], k[3]]).collect(),
        })
    }
}

/// For every read and start position `i = 0 ..= len − min_len`, the
/// longest prefix of `read[i..]` occurring in `reference`: `[its smallest
/// position, its length]` when the length is at least `min_len`, else
/// [`NO_MATCH`]. Uses a suffix array (every suffix of the reference,
/// sorted) and binary search.
pub fn reference(reference: &[u8], reads: &[Vec<u8>], min_len: usize) -> Vec<[u32; 2]> {
    let mut sa: Vec<usize> = (0..reference.len()).collect();
    sa.sort_unstable_by(|&a, &b| reference[a..].cmp(&reference[b..]));
    let lcp = |p: &[u8], j: usize| {
        p.iter()
            .zip(&reference[j..])
            .take_while(|(a, b)| a == b)
            .count()
    };
    let mut out = Vec::new();
    for read in reads {
        for i in 0..=read.len().saturating_sub(min_len) {
            let p = &read[i..];
            let at = sa.partition_point(|&j| &reference[j..] < p);
            let len = [at.checked_sub(1), Some(at)]
                .into_iter()
                .flatten()
                .filter_map(|k| sa.get(k))
                .map(|&j| lcp(p, j))
                .max()
                .unwrap_or(0);
            if len < min_len || len == 0 {
                out.push(NO_MATCH);
                continue;
            }
            let q = &p[..len];
            let lo = sa.partition_point(|&j| &reference[j..] < q);
            let first = sa[lo..]
                .iter()
                .take_while(|&&j| reference[j..].starts_with(q))
                .min()
                .copied()
                .unwrap_or(usize::MAX);
            out.push([first as u32, len as u32]);
        }
    }
    out
}

impl Workload for Mummer {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (refr, reads) = input(
            self.ref_len as usize,
            self.repeats,
            self.queries as usize,
            self.read_len as usize,
            self.mutation,
            self.seed,
        );
        let mut text = refr.clone();
        text.push(0);
        let tree = SuffixTree::build(&text).map_err(WorkloadError::Args)?;
        let mut qbytes = Vec::new();
        let mut addrs = Vec::with_capacity(reads.len());
        for r in &reads {
            addrs.push(qbytes.len() as u32);
            qbytes.extend_from_slice(r);
            qbytes.push(0);
        }
        let lengths = vec![self.read_len; reads.len()];
        let slots = reads.len() * (self.read_len - self.min_len + 1) as usize;
        let flat = |v: &[[u32; 4]]| v.iter().flatten().copied().collect::<Vec<u32>>();
        let dmatch = upload(host, "d_MatchCoords", &NO_MATCH.repeat(slots))?;
        let dnodes = upload(host, "d_Nodes", &flat(&tree.nodes))?;
        let dchildren = upload(host, "d_Children", &flat(&tree.children))?;
        let dref = upload(host, "d_Ref", &text)?;
        let dqueries = upload(host, "d_Queries", &qbytes)?;
        let daddrs = upload(host, "d_QueryAddrs", &addrs)?;
        let dlengths = upload(host, "d_QueryLengths", &lengths)?;
        host.launch(
            None,
            [self.queries.div_ceil(THREADS), 1, 1],
            [THREADS, 1, 1],
            &[
                ArgValue::U64(dmatch),
                ArgValue::U64(dnodes),
                ArgValue::U64(dchildren),
                ArgValue::U64(dref),
                ArgValue::U64(dqueries),
                ArgValue::U64(daddrs),
                ArgValue::U64(dlengths),
                ArgValue::U32(self.queries),
                ArgValue::U32(self.min_len),
            ],
        )?;
        let words: Vec<u32> = download(host, dmatch, 2 * slots)?;
        let got: Vec<[u32; 2]> = words.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
        Ok(check::exact(
            "d_MatchCoords",
            &reference(&refr, &reads, self.min_len as usize),
            &got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every start position's longest match by comparing with every
    /// reference position.
    fn brute_force(r: &[u8], reads: &[Vec<u8>], min_len: usize) -> Vec<[u32; 2]> {
        let mut out = Vec::new();
        for read in reads {
            for i in 0..=read.len() - min_len {
                let best = (0..r.len())
                    .map(|j| {
                        let l = read[i..]
                            .iter()
                            .zip(&r[j..])
                            .take_while(|(a, b)| a == b)
                            .count();
                        (l, std::cmp::Reverse(j))
                    })
                    .max()
                    .unwrap_or((0, std::cmp::Reverse(0)));
                out.push(if best.0 >= min_len && best.0 > 0 {
                    [best.1.0 as u32, best.0 as u32]
                } else {
                    NO_MATCH
                });
            }
        }
        out
    }

    #[test]
    fn the_suffix_array_reference_agrees_with_brute_force() {
        for seed in 0..4 {
            let (r, reads) = input(300, 3, 40, 12, 0.1, seed);
            for min_len in [1, 5, 9] {
                assert_eq!(
                    reference(&r, &reads, min_len),
                    brute_force(&r, &reads, min_len),
                    "seed {seed}, min_len {min_len}"
                );
            }
        }
        // A repetitive reference: the first of several occurrences.
        let r = b"ACGACGACGT".to_vec();
        let reads = vec![b"CGACGT".to_vec(), b"GACT".to_vec()];
        assert_eq!(
            reference(&r, &reads, 2),
            [
                [4, 6],
                [5, 5],
                [6, 4],
                [7, 3],
                [8, 2],
                [2, 3],
                [0, 2],
                NO_MATCH
            ]
        );
    }

    #[test]
    fn every_node_spells_its_label_and_links_to_the_label_without_its_first_base() {
        let (r, _) = input(500, 4, 0, 10, 0.0, 7);
        let mut text = r.clone();
        text.push(0);
        let t = SuffixTree::build(&text).unwrap();
        // Labels by walking down from the root.
        let mut label: Vec<Vec<u8>> = vec![Vec::new(); t.nodes.len()];
        let mut stack = vec![0usize];
        let mut leaves = 0;
        while let Some(v) = stack.pop() {
            let kids: Vec<usize> = t.children[v]
                .iter()
                .map(|&w| w as usize)
                .filter(|&w| w != 0)
                .collect();
            if kids.is_empty() {
                leaves += 1;
            }
            for w in kids {
                let [s, e, _, _] = t.nodes[w];
                let mut l = label[v].clone();
                l.extend_from_slice(&text[s as usize..e as usize]);
                // The first position below w spells w's label.
                let f = t.nodes[w][3] as usize;
                assert_eq!(&text[f..f + l.len()], &l[..]);
                label[w] = l;
                stack.push(w);
            }
        }
        assert!(leaves > 0 && t.nodes.len() <= 2 * text.len());
        for v in 1..t.nodes.len() {
            let internal = t.children[v].iter().any(|&w| w != 0);
            if internal {
                let link = t.nodes[v][2] as usize;
                assert_eq!(label[link], label[v][1..], "node {v}");
            }
        }
    }
}
