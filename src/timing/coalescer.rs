//! The LD/ST unit's address processing: merging a warp's lane addresses
//! into line-sized requests (global and local memory) and counting
//! shared-memory bank conflicts.

/// One coalesced request: a line and the bytes the warp touches in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRequest {
    /// Line address (byte address / line size).
    pub line: u64,
    /// Bytes of the line the active lanes access.
    pub bytes: u32,
    /// Which 32nds of the line they touch (bit *i*: bytes
    /// [*i* × line/32, (*i* + 1) × line/32); lines under 32 bytes use one
    /// bit per byte). The L2 derives the sectors a store writes from it.
    pub chunks: u32,
    /// For a vector store (`st.v2`, `st.v4`): each lane's vector and
    /// element size; scalar accesses and loads: [`VectorShape::SCALAR`].
    pub vector: VectorShape,
}

/// The shape of each lane's access of a vector store: its bytes and its
/// element's, as log2s packed into one byte (scalar: 0), so that it fits
/// in a [`Packet`](crate::timing::memsys::Packet) without growing it.
///
/// GPGPU-Sim 4.2 sizes a memory access by its element type
/// (`ptx_instruction::pre_decode`: `data_size = datatype2size(type)`,
/// whatever the vector width), so its coalescer marks only each lane's
/// first element in the request's byte mask; `l2.vector_store_first_element`
/// reproduces that in the L2's partial-write tracking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VectorShape(u8);

impl VectorShape {
    /// A scalar access (or a load).
    pub const SCALAR: VectorShape = VectorShape(0);

    /// Lanes accessing `vector_bytes` each in elements of `element_bytes`
    /// (both powers of two up to 2^15); [`VectorShape::SCALAR`] when the
    /// vector is one element.
    pub fn new(vector_bytes: u32, element_bytes: u32) -> VectorShape {
        if vector_bytes <= element_bytes || !vector_bytes.is_power_of_two() {
            return VectorShape::SCALAR;
        }
        let v = vector_bytes.trailing_zeros().min(15) as u8;
        let e = element_bytes.max(1).trailing_zeros().min(15) as u8;
        VectorShape(v << 4 | e)
    }

    /// True for a vector of more than one element.
    pub fn is_vector(self) -> bool {
        self.0 != 0
    }

    /// Bytes each lane accesses (1 for a scalar shape: unknown).
    pub fn bytes(self) -> u64 {
        1 << (self.0 >> 4)
    }

    /// Bytes of the vector's element.
    pub fn element_bytes(self) -> u64 {
        1 << (self.0 & 0xf)
    }
}

/// The [`LineRequest::chunks`] bits of bytes `[lo, hi)` of a line whose
/// 32nds are `1 << shift` bytes.
#[inline(always)]
pub fn chunk_bits(lo: u64, hi: u64, shift: u32) -> u32 {
    let c0 = (lo >> shift).min(31) as u32;
    let c1 = ((hi.max(lo + 1) - 1) >> shift).min(31) as u32;
    let upto = if c1 == 31 {
        u32::MAX
    } else {
        (1u32 << (c1 + 1)) - 1
    };
    upto & !((1u32 << c0) - 1)
}

/// Merges the addresses of the lanes in `mask` (each accessing `size`
/// bytes at `addr(lane)`) into line requests, in order of the first lane
/// touching each line. An access straddling a line boundary touches both.
/// Inlined into the LD/ST unit's accept: its closure `addr` then inlines too.
#[inline]
pub fn coalesce(
    mask: u64,
    size: u32,
    line_size: u32,
    addr: impl Fn(usize) -> u64,
    out: &mut Vec<LineRequest>,
) {
    out.clear();
    let ls = u64::from(line_size.max(1));
    // Line numbers by a shift when the line size is a power of two (it
    // always is in practice; a division per lane is slow).
    let shift = ls.trailing_zeros();
    let pow2 = ls.is_power_of_two();
    let line_of = |a: u64| if pow2 { a >> shift } else { a / ls };
    let chunk_shift = (ls / 32).max(1).trailing_zeros();
    let size = u64::from(size.max(1));
    let mut table: Option<LineTable> = None;
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addr(l);
        let first = line_of(a);
        let last = line_of(a + size - 1);
        if first == last {
            // The common case: the access lies within one line.
            let off = a - first * ls;
            let chunks = chunk_bits(off, off + size, chunk_shift);
            add_bytes(out, &mut table, first, size as u32, chunks, line_size);
            continue;
        }
        for line in first..=last {
            let lo = a.max(line * ls);
            let hi = (a + size).min((line + 1) * ls);
            let chunks = chunk_bits(lo - line * ls, hi - line * ls, chunk_shift);
            add_bytes(out, &mut table, line, (hi - lo) as u32, chunks, line_size);
        }
    }
}

/// The requests of an atomic instruction, as GPGPU-Sim's Fermi atomic
/// coalescing makes them (`memory_coalescing_arch_atomic`): one per
/// `segment`-byte segment the lanes touch and, within a segment, one per
/// group of lanes whose bytes do not overlap (lanes updating the same
/// word need separate requests), each lane joining the first group it
/// fits, in lane order. Requests carry their L1D line (`line_size`) and
/// chunks like [`coalesce`]'s.
pub fn coalesce_atomic(
    mask: u64,
    size: u32,
    line_size: u32,
    segment: u32,
    addr: impl Fn(usize) -> u64,
    out: &mut Vec<LineRequest>,
) {
    out.clear();
    let seg = u64::from(segment.clamp(1, 128));
    let ls = u64::from(line_size.max(1));
    let chunk_shift = (ls / 32).max(1).trailing_zeros();
    let size = u64::from(size.max(1)).min(seg);
    // Per request: its segment and the bytes of it taken.
    let mut groups: Vec<(u64, u128)> = Vec::new();
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addr(l);
        let s = a / seg;
        let off = a % seg;
        let bits: u128 = if size >= 128 {
            u128::MAX
        } else {
            ((1u128 << size) - 1) << off.min(127)
        };
        let line = a / ls;
        let lo = a - line * ls;
        let chunks = chunk_bits(lo, (lo + size).min(ls), chunk_shift);
        match groups
            .iter()
            .position(|&(gs, gb)| gs == s && gb & bits == 0)
        {
            Some(i) => {
                groups[i].1 |= bits;
                out[i].bytes += size as u32;
                out[i].chunks |= chunks;
            }
            None => {
                groups.push((s, bits));
                out.push(LineRequest {
                    line,
                    bytes: size as u32,
                    chunks,
                    vector: VectorShape::SCALAR,
                });
            }
        }
    }
}

/// Adds `bytes` of `line` to the request list `out`: to the request
/// already there for the line, else as a new request at the end. Past
/// `LINEAR` requests, lines are found through an open-addressed table of
/// positions (`table`, built on first need) instead of a scan, so a gather
/// of 32 distinct lines costs 32 probes, not 496 comparisons.
#[inline(always)]
fn add_bytes(
    out: &mut Vec<LineRequest>,
    table: &mut Option<LineTable>,
    line: u64,
    bytes: u32,
    chunks: u32,
    line_size: u32,
) {
    const LINEAR: usize = 8;
    // Neighbouring lanes usually share the line just added.
    if let Some(r) = out.last_mut().filter(|r| r.line == line) {
        r.bytes = (r.bytes + bytes).min(line_size);
        r.chunks |= chunks;
        return;
    }
    let found = match table {
        Some(t) if !t.full() => t.find(line, out),
        None if out.len() > LINEAR => {
            let mut t = LineTable::new();
            for (i, r) in out.iter().enumerate() {
                t.insert(r.line, i, out);
            }
            let found = t.find(line, out);
            *table = Some(t);
            found
        }
        _ => out.iter().position(|r| r.line == line),
    };
    match found {
        Some(i) => {
            out[i].bytes = (out[i].bytes + bytes).min(line_size);
            out[i].chunks |= chunks;
        }
        None => {
            out.push(LineRequest {
                line,
                bytes,
                chunks,
                vector: VectorShape::SCALAR,
            });
            if let Some(t) = table.as_mut().filter(|t| !t.full()) {
                t.insert(line, out.len() - 1, out);
            }
        }
    }
}

/// Positions of lines in a request list, open-addressed with linear
/// probing (for [`coalesce`] once a list grows past a few lines).
struct LineTable {
    /// Position + 1 of a request in the list, 0 for an empty slot.
    slots: [u16; LineTable::SLOTS],
    /// Entries in use.
    len: usize,
}

impl LineTable {
    const SLOTS: usize = 256;

    fn new() -> LineTable {
        LineTable {
            slots: [0; LineTable::SLOTS],
            len: 0,
        }
    }

    /// At most half full (so probes stay short); a larger list is scanned.
    fn full(&self) -> bool {
        self.len >= LineTable::SLOTS / 2
    }

    fn home(line: u64) -> usize {
        (line.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize
    }

    /// The position of `line` in `list`, if present.
    fn find(&self, line: u64, list: &[LineRequest]) -> Option<usize> {
        let mut h = LineTable::home(line);
        loop {
            match self.slots[h] {
                0 => return None,
                p if list[usize::from(p) - 1].line == line => return Some(usize::from(p) - 1),
                _ => h = (h + 1) % LineTable::SLOTS,
            }
        }
    }

    /// Records that `line` is at position `pos` of `list` (not yet present).
    fn insert(&mut self, line: u64, pos: usize, list: &[LineRequest]) {
        debug_assert!(self.find(line, list).is_none());
        let mut h = LineTable::home(line);
        while self.slots[h] != 0 {
            h = (h + 1) % LineTable::SLOTS;
        }
        self.slots[h] = (pos + 1) as u16;
        self.len += 1;
    }
}

/// The number of serialized passes a shared-memory access needs: the
/// largest number of distinct `width`-byte words any one bank must supply
/// (lanes reading the same word are served by one broadcast). 1 for a
/// conflict-free access, 0 for no active lane. Inlined like [`coalesce`].
#[inline]
pub fn bank_conflict_degree(
    mask: u64,
    size: u32,
    banks: u32,
    width: u32,
    addr: impl Fn(usize) -> u64,
) -> u32 {
    let width = u64::from(width.max(1));
    let banks = u64::from(banks.max(1));
    // The common case first: no bank is asked for two different words,
    // so the degree is 1 (0 without lanes). Any conflict (or more than 64
    // banks, or sizes not powers of two) takes the general count below.
    if banks <= 64 && width.is_power_of_two() && banks.is_power_of_two() {
        // Distinct words are found through an open-addressed table of
        // positions in `words` (a broadcast word is counted once), and
        // each new word adds one to its bank's count: a lane costs a probe
        // or two whatever the conflict degree. More than `CAP` distinct
        // words take the general count.
        const CAP: usize = 64;
        const SLOTS: usize = 2 * CAP;
        const NONE: u8 = u8::MAX;
        let shift = width.trailing_zeros();
        let bank_mask = banks - 1;
        let mut table = [NONE; SLOTS];
        let mut count = [0u8; 64];
        let mut words = [0u64; CAP];
        let mut n = 0usize;
        let mut degree = 0u32;
        let mut overflow = false;
        let mut m = mask;
        'lanes: while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = addr(l);
            // The lane's words, first to last (a plain loop: an inclusive
            // range costs an extra flag per step).
            let (mut w, last) = (a >> shift, (a + u64::from(size.max(1)) - 1) >> shift);
            loop {
                let mut h = (w.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 57) as usize;
                loop {
                    let i = table[h];
                    if i == NONE {
                        if n == CAP {
                            overflow = true;
                            break 'lanes;
                        }
                        words[n] = w;
                        table[h] = n as u8;
                        n += 1;
                        let b = (w & bank_mask) as usize;
                        count[b] += 1;
                        degree = degree.max(u32::from(count[b]));
                        break;
                    }
                    if words[usize::from(i)] == w {
                        break;
                    }
                    h = (h + 1) % SLOTS;
                }
                if w >= last {
                    break;
                }
                w += 1;
            }
        }
        if !overflow {
            return degree;
        }
    }
    // Every word of every lane (rare path: conflicts among more than 64
    // extra words, or banks/widths that are not powers of two).
    let mut words: Vec<u64> = Vec::with_capacity(128);
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addr(l);
        let first = a / width;
        let last = (a + u64::from(size.max(1)) - 1) / width;
        words.extend(first..=last);
    }
    words.sort_unstable();
    let mut per_bank = [0u32; 64];
    let mut big: Vec<u32> = Vec::new();
    let mut prev = None;
    for &w in words.iter() {
        if prev == Some(w) {
            continue;
        }
        prev = Some(w);
        let b = (w % banks) as usize;
        if b < per_bank.len() {
            per_bank[b] += 1;
        } else {
            if big.len() <= b {
                big.resize(b + 1, 0);
            }
            big[b] += 1;
        }
    }
    per_bank
        .iter()
        .chain(big.iter())
        .copied()
        .max()
        .unwrap_or(0)
}

/// The chunks (32nds of an L1D line, as `Packet::chunks` counts them) a
/// line read of `line` bytes (a texture- or constant-cache line) covers:
/// all of an L2 line when the line is that long.
pub fn line_chunks(cfg: &crate::config::GpuConfig, line: u32) -> u32 {
    let chunk = (cfg.l1d.line / 32).max(1);
    let n = line / chunk;
    if line >= cfg.l2.line || n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_stride_words_make_one_line() {
        let mut out = Vec::new();
        coalesce(
            u64::from(u32::MAX),
            4,
            128,
            |l| 0x1000 + 4 * l as u64,
            &mut out,
        );
        assert_eq!(
            out,
            vec![LineRequest {
                line: 0x1000 / 128,
                bytes: 128,
                chunks: u32::MAX,
                vector: VectorShape::SCALAR,
            }]
        );
        // Lane 0 reads bytes 0-3 (chunk 0 of 4-byte 32nds), lane 1 bytes
        // 64-67 (chunk 16).
        coalesce(0b11, 4, 128, |l| 0x1000 + 64 * l as u64, &mut out);
        assert_eq!(out[0].chunks, 1 | 1 << 16);
        // Stride 128: one line per lane.
        coalesce(0xff, 4, 128, |l| 128 * l as u64, &mut out);
        assert_eq!(out.len(), 8);
        assert!(out.iter().all(|r| r.bytes == 4));
        // Straddling access.
        coalesce(1, 8, 128, |_| 124, &mut out);
        assert_eq!(out.len(), 2);
    }

    /// The conflict degree of 32 banks of 4-byte words by brute force: the
    /// most distinct words any bank holds among the lanes in `mask`.
    fn brute_force_degree(mask: u64, size: u32, addr: impl Fn(usize) -> u64) -> u32 {
        let mut per_bank = std::collections::BTreeMap::<u64, Vec<u64>>::new();
        for l in (0..64).filter(|l| mask >> l & 1 == 1) {
            let a = addr(l);
            for w in a / 4..=(a + u64::from(size) - 1) / 4 {
                let words = per_bank.entry(w % 32).or_default();
                if !words.contains(&w) {
                    words.push(w);
                }
            }
        }
        per_bank.values().map(|s| s.len() as u32).max().unwrap_or(0)
    }

    #[test]
    fn bank_conflict_fast_path_agrees_with_the_general_count() {
        // Conflict-free patterns (the fast path) and conflicting ones (the
        // general count), both against distinct words per bank counted
        // by brute force.
        let full = u64::from(u32::MAX);
        type Lanes = fn(usize) -> u64;
        let patterns: [(u32, Lanes); 6] = [
            (4, |l| 4 * l as u64),
            (4, |_| 64),
            (8, |l| 8 * l as u64),
            (4, |l| 4 * (l as u64 ^ 5)),
            (4, |l| 128 * (l as u64 % 3) + 4 * l as u64),
            (16, |l| 16 * (l as u64 % 8)),
        ];
        for (size, f) in patterns {
            for mask in [full, 0x5555_5555, 1, 0x8000_0001, 0] {
                let d = bank_conflict_degree(mask, size, 32, 4, f);
                assert_eq!(
                    d,
                    brute_force_degree(mask, size, f),
                    "size {size} mask {mask:#x}"
                );
            }
        }
    }

    /// The line-table path and the conflict counting agree with plain
    /// definitions (a scan of the request list; distinct words per bank by
    /// brute force) over random lane addresses.
    #[test]
    fn random_accesses_agree_with_plain_definitions() {
        let mut rng = crate::workload::generate::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut rnd = |n: u64| rng.below(n);
        let mut out = Vec::new();
        for _ in 0..3000 {
            let lanes = if rnd(4) == 0 { 64 } else { 32 };
            let mask = match rnd(3) {
                0 => u64::MAX >> (64 - lanes),
                _ => rnd(u64::MAX) & (u64::MAX >> (64 - lanes)),
            };
            let size = [1u32, 2, 4, 8, 16][rnd(5) as usize];
            let spread = [64u64, 512, 4096, 1 << 20][rnd(4) as usize];
            let addrs: Vec<u64> = (0..64)
                .map(|_| rnd(spread) / u64::from(size) * u64::from(size) + rnd(2) * 3)
                .collect();
            let line = [32u32, 128][rnd(2) as usize];
            coalesce(mask, size, line, |l| addrs[l], &mut out);
            let mut want: Vec<LineRequest> = Vec::new();
            for l in (0..64).filter(|l| mask >> l & 1 == 1) {
                let a = addrs[l];
                let ls = u64::from(line);
                for ln in a / ls..=(a + u64::from(size) - 1) / ls {
                    let lo = a.max(ln * ls);
                    let hi = (a + u64::from(size)).min((ln + 1) * ls);
                    let chunks = (lo..hi).fold(0u32, |m, b| m | 1 << ((b - ln * ls) / (ls / 32)));
                    match want.iter_mut().find(|r| r.line == ln) {
                        Some(r) => {
                            r.bytes = (r.bytes + (hi - lo) as u32).min(line);
                            r.chunks |= chunks;
                        }
                        None => want.push(LineRequest {
                            line: ln,
                            bytes: (hi - lo) as u32,
                            chunks,
                            vector: VectorShape::SCALAR,
                        }),
                    }
                }
            }
            assert_eq!(out, want);
            let d = bank_conflict_degree(mask, size, 32, 4, |l| addrs[l]);
            let want = brute_force_degree(mask, size, |l| addrs[l]);
            assert_eq!(d, want, "size {size} mask {mask:#x}");
        }
    }

    #[test]
    fn bank_conflicts() {
        let full = u64::from(u32::MAX);
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |l| 4 * l as u64), 1);
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |_| 0), 1); // broadcast
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |l| 8 * l as u64), 2);
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |l| 128 * l as u64), 32);
        assert_eq!(bank_conflict_degree(full, 8, 32, 4, |l| 8 * l as u64), 2);
        assert_eq!(bank_conflict_degree(0, 4, 32, 4, |l| l as u64), 0);
    }

    #[test]
    fn atomics_split_by_segment_and_by_colliding_lanes() {
        let mut out = Vec::new();
        // 32 lanes, 4-byte atomics on 8 words (lane % 8): one 32-byte
        // segment, each word hit by 4 lanes: 4 requests of 8 words each.
        coalesce_atomic(
            u64::from(u32::MAX),
            4,
            128,
            32,
            |l| 0x1000 + 4 * (l as u64 % 8),
            &mut out,
        );
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|r| r.bytes == 32 && r.line == 0x1000 / 128));
        // Distinct words over two segments: 2 requests.
        coalesce_atomic(0xFFFF, 4, 128, 32, |l| 0x2000 + 4 * l as u64, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].bytes, 32);
        assert_eq!(out[1].bytes, 32);
        // All lanes on one word: one request per lane.
        coalesce_atomic(0xFF, 4, 128, 32, |_| 0x3000, &mut out);
        assert_eq!(out.len(), 8);
    }
}
