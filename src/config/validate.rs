//! Semantic checks: the numbers of a config must describe a machine the
//! timing model can run (no zero-sized structures, power-of-two lines,
//! consistent geometry).

use std::fmt;

use super::GpuConfig;
use super::schema::{FieldValue, fields};

/// One reason a config cannot describe a machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The dotted keys involved, the one to blame first.
    pub keys: Vec<&'static str>,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Fields that may be zero: a zero there still makes sense.
const MAY_BE_ZERO: &[&str] = &[
    "core.shared_mem_per_sm", // a machine without shared memory runs kernels that use none
    "core.barrier_latency",   // release in the cycle of the last arrival
    "l1d.miss_latency",       // misses leave for L2 in the cycle of their lookup
    "l1d.latency_queue",      // tags looked up when the LD/ST unit processes the access
    "l1d.miss_queue",         // the latency queue's head sends straight into the interconnect
    "core.dp_units",          // fp64 runs on the SFU units
    "l1t.sets",               // no texture cache (checked below with the other l1t fields)
    "l1t.ways",
    "l1t.line",
    "l1t.hit_latency",
    "l1t.fifo",
    "l1c.line", // one constant-cache lookup per load
    "l1c.sets", // every constant read hits (checked below with the other l1c fields)
    "l1c.ways",
    "l1c.mshrs",
    "l1c.mshr_merge",
    "opcoll.mem_queue",   // memory instructions issue only to an idle LD/ST unit
    "l2.data_port_width", // write-backs cost no lookup time
    "l2.mshr_merge",      // 0 = unbounded
    "l2.miss_queue",      // misses go straight into the DRAM queue
    "dram.scheduler",     // 0 = FIFO
    "dram.bank_group_indexing", // 0 = high bits
    "dram.t_ccdl",        // no bank-group constraint (GPGPU-Sim's default)
    "dram.t_rtpl",        // no bank-group constraint (GPGPU-Sim's default)
    "dram.t_cdlr",        // timings of 0 impose nothing
    "dram.t_wr",
    "dram.channel_bit",            // channels interleaved from bit 0
    "dram.col_mask",               // the column is not used for timing
    "dram.bank_mask",              // one bank needs no bank bits (checked below)
    "dram.row_mask",               // one row per bank
    "sync.monitor_log_entries",    // no Monitor Log: a full SyncMon turns waiters away
    "sync.syncmon_latency",        // resume orders act at once
    "sync.context_switch_latency", // only the traffic
    "sync.wavefront_state_bytes",  // registers and shared memory only
    "sync.remove_sms_at",          // no oversubscription event
    "sync.remove_sms",
    "sync.return_sms_at",
    "sim.alloc_base",  // right after the module's variables
    "sim.alloc_guard", // consecutive allocations (GPGPU-Sim's cudaMalloc)
];

/// The most lines one per-SM cache (instruction cache, L1D) may have.
pub const MAX_LINES_PER_CACHE: u64 = 1 << 20;
/// The most lines the L2 slices together, the per-SM caches of all SMs
/// together, and all warps' victim tags together may have.
pub const MAX_L2_LINES: u64 = 1 << 24;

impl GpuConfig {
    /// Checks that the config describes a machine the timing model can run:
    /// every count, size and latency non-zero (except
    /// `core.shared_mem_per_sm`, `core.barrier_latency`, `core.dp_units` and `l1d.miss_latency`), `warp_size` in
    /// 1..=64, line sizes, cache sets and bank widths powers of two,
    /// `l2.slices` a multiple of `dram.channels`, the thread limit reachable
    /// with the warp slots, at least one warp's registers, lines at least
    /// one instruction or word and no L1 line larger than an L2 line; every
    /// field at most its schema limit ([`FieldInfo::max`](super::FieldInfo))
    /// and cache geometries within [`MAX_LINES_PER_CACHE`] and
    /// [`MAX_L2_LINES`]. Returns every problem found.
    pub fn validate(&self) -> Result<(), Vec<Problem>> {
        let mut p = Vec::new();
        let mut bad = |keys: &[&'static str], message: String| {
            p.push(Problem {
                keys: keys.to_vec(),
                message,
            })
        };

        // Zeros, field by field (arrays element by element).
        for f in fields() {
            if MAY_BE_ZERO.contains(&f.key) {
                continue;
            }
            match self.get(f.key) {
                Some(FieldValue::U32(0)) | Some(FieldValue::U64(0)) => {
                    bad(&[f.key], format!("`{}` must not be 0 ({})", f.key, f.doc))
                }
                Some(FieldValue::U32x5(a)) if a.contains(&0) => {
                    let names = ["add", "max", "mul", "mad", "div"];
                    let zeros: Vec<&str> = a
                        .iter()
                        .zip(names)
                        .filter(|(v, _)| **v == 0)
                        .map(|(_, n)| n)
                        .collect();
                    bad(
                        &[f.key],
                        format!(
                            "`{}` must not contain 0 (zero for {}): every operation takes at least one cycle",
                            f.key,
                            zeros.join(", ")
                        ),
                    )
                }
                _ => {}
            }
        }

        // A miss queue of one entry could never take a read miss, which
        // needs room for two (its request and a victim's write-back).
        for key in ["l1d.miss_queue", "l2.miss_queue"] {
            if let Some(FieldValue::U32(1)) = self.get(key) {
                bad(
                    &[key],
                    format!(
                        "`{key}` = 1 leaves no room for a read miss, which needs two entries (its request and a write-back): use 0 (no miss queue) or at least 2"
                    ),
                );
            }
        }

        // Upper bounds, field by field (arrays element by element): sizes and
        // counts the timing model allocates from must not exhaust memory.
        let mut any_too_big = false;
        for f in fields() {
            let too_big = match self.get(f.key) {
                Some(FieldValue::U32(v)) => u64::from(v) > f.max,
                Some(FieldValue::U64(v)) => v > f.max,
                Some(FieldValue::U32x5(a)) => a.iter().any(|&v| u64::from(v) > f.max),
                _ => false,
            };
            if too_big && f.key != "core.warp_size" {
                any_too_big = true;
                bad(
                    &[f.key],
                    format!(
                        "`{}` = {} exceeds its limit of {} ({})",
                        f.key,
                        self.get(f.key).map_or(String::new(), |v| v.to_string()),
                        f.max,
                        f.doc
                    ),
                );
            }
        }
        // Products of bounded fields that size one allocation.
        let products: [(&[&'static str], u64, u64, &str); 5] = [
            (
                &["icache.sets", "icache.ways"],
                u64::from(self.icache.sets) * u64::from(self.icache.ways),
                MAX_LINES_PER_CACHE,
                "instruction-cache lines per SM",
            ),
            (
                &["l1d.sets", "l1d.ways"],
                u64::from(self.l1d.sets) * u64::from(self.l1d.ways),
                MAX_LINES_PER_CACHE,
                "L1D lines per SM",
            ),
            (
                &["l2.slices", "l2.sets", "l2.ways"],
                u64::from(self.l2.slices) * u64::from(self.l2.sets) * u64::from(self.l2.ways),
                MAX_L2_LINES,
                "L2 lines in all slices",
            ),
            (
                &[
                    "core.num_sms",
                    "l1d.sets",
                    "l1d.ways",
                    "icache.sets",
                    "icache.ways",
                ],
                u64::from(self.core.num_sms)
                    * (u64::from(self.l1d.sets) * u64::from(self.l1d.ways)
                        + u64::from(self.icache.sets) * u64::from(self.icache.ways)),
                MAX_L2_LINES,
                "L1D and instruction-cache lines of all SMs",
            ),
            (
                &["core.num_sms", "core.max_warps_per_sm", "sched.vta_entries"],
                u64::from(self.core.num_sms)
                    * u64::from(self.core.max_warps_per_sm)
                    * u64::from(self.sched.vta_entries),
                MAX_L2_LINES,
                "victim tags of all warps of all SMs",
            ),
        ];
        for (keys, value, limit, what) in products {
            if value > limit && !any_too_big {
                let named: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                bad(
                    keys,
                    format!(
                        "{} make {value} {what}, more than the limit of {limit}",
                        named.join(" × ")
                    ),
                );
            }
        }

        let c = &self.core;
        if c.warp_size > 64 {
            bad(
                &["core.warp_size"],
                format!(
                    "`core.warp_size` = {} is too large: warps have at most 64 threads",
                    c.warp_size
                ),
            );
        }
        let warp_threads = u64::from(c.max_warps_per_sm) * u64::from(c.warp_size);
        if c.warp_size != 0
            && c.max_warps_per_sm != 0
            && warp_threads < u64::from(c.max_threads_per_sm)
        {
            bad(
                &[
                    "core.max_threads_per_sm",
                    "core.max_warps_per_sm",
                    "core.warp_size",
                ],
                format!(
                    "`core.max_threads_per_sm` = {} cannot be reached with {} warp slots of {} threads ({} threads)",
                    c.max_threads_per_sm, c.max_warps_per_sm, c.warp_size, warp_threads
                ),
            );
        }
        if c.schedulers_per_sm > c.max_warps_per_sm && c.max_warps_per_sm != 0 {
            bad(
                &["core.schedulers_per_sm", "core.max_warps_per_sm"],
                format!(
                    "`core.schedulers_per_sm` = {} exceeds the {} warp slots: some schedulers would have no warps",
                    c.schedulers_per_sm, c.max_warps_per_sm
                ),
            );
        }
        let warp_regs = u64::from(c.default_regs_per_thread) * u64::from(c.warp_size);
        if warp_regs > u64::from(c.registers_per_sm) && c.registers_per_sm != 0 {
            bad(
                &[
                    "core.registers_per_sm",
                    "core.default_regs_per_thread",
                    "core.warp_size",
                ],
                format!(
                    "`core.registers_per_sm` = {} cannot hold one warp of {} threads at {} registers each ({} registers)",
                    c.registers_per_sm, c.warp_size, c.default_regs_per_thread, warp_regs
                ),
            );
        }

        // Set-associative policy tables: whole sets.
        let s = &self.sched;
        for (keys, entries, ways) in [
            (
                ["sched.vta_entries", "sched.vta_ways"],
                s.vta_entries,
                s.vta_ways,
            ),
            (
                ["sched.daws_ilrd_entries", "sched.daws_ilrd_ways"],
                s.daws_ilrd_entries,
                s.daws_ilrd_ways,
            ),
        ] {
            if ways != 0 && entries % ways != 0 {
                bad(
                    &keys,
                    format!(
                        "`{}` = {entries} is not a multiple of `{}` = {ways} (whole sets)",
                        keys[0], keys[1]
                    ),
                );
            }
        }

        // Cache geometry: power-of-two sets and lines.
        let caches: [(&'static str, &'static str, u32, u32); 3] = [
            (
                "icache.sets",
                "icache.line",
                self.icache.sets,
                self.icache.line,
            ),
            ("l1d.sets", "l1d.line", self.l1d.sets, self.l1d.line),
            ("l2.sets", "l2.line", self.l2.sets, self.l2.line),
        ];
        for (sets_key, line_key, sets, line) in caches {
            if sets != 0 && !sets.is_power_of_two() {
                bad(
                    &[sets_key],
                    format!(
                        "`{sets_key}` = {sets} is not a power of two (sets are indexed by address bits)"
                    ),
                );
            }
            if line != 0 && !line.is_power_of_two() {
                bad(
                    &[line_key],
                    format!("`{line_key}` = {line} is not a power of two"),
                );
            }
        }
        // The texture cache: off with 0 sets, else a real geometry.
        let t = &self.l1t;
        if t.sets != 0 {
            check_read_only_cache(
                "the texture cache",
                ("l1t.sets", t.sets),
                ("l1t.ways", t.ways),
                ("l1t.line", t.line),
                &[
                    ("l1t.ways", t.ways),
                    ("l1t.line", t.line),
                    ("l1t.fifo", t.fifo),
                ],
                self.l2.line,
                &mut bad,
            );
            if !t.sets.is_power_of_two() {
                bad(
                    &["l1t.sets"],
                    format!(
                        "`l1t.sets` = {} is not a power of two (sets are indexed by address bits)",
                        t.sets
                    ),
                );
            }
        }
        // The constant cache's misses: off with 0 sets, else a real geometry.
        let c = &self.l1c;
        if c.sets != 0 {
            check_read_only_cache(
                "the constant cache",
                ("l1c.sets", c.sets),
                ("l1c.ways", c.ways),
                ("l1c.line", c.line),
                &[
                    ("l1c.line", c.line),
                    ("l1c.ways", c.ways),
                    ("l1c.mshrs", c.mshrs),
                    ("l1c.mshr_merge", c.mshr_merge),
                ],
                self.l2.line,
                &mut bad,
            );
        }
        if !self.sim.alloc_base.is_multiple_of(256) {
            bad(
                &["sim.alloc_base"],
                format!(
                    "`sim.alloc_base` = {:#x} is not a multiple of 256 (allocations are 256-byte aligned)",
                    self.sim.alloc_base
                ),
            );
        }
        if self.icache.line != 0 && self.icache.line < 8 {
            bad(
                &["icache.line"],
                format!(
                    "`icache.line` = {} is smaller than one instruction (8 bytes)",
                    self.icache.line
                ),
            );
        }
        for (key, line) in [("l1d.line", self.l1d.line), ("l2.line", self.l2.line)] {
            if line != 0 && line < 4 {
                bad(
                    &[key],
                    format!("`{key}` = {line} is smaller than a 4-byte word"),
                );
            }
        }
        for (key, line) in [
            ("l1d.line", self.l1d.line),
            ("icache.line", self.icache.line),
        ] {
            if line > self.l2.line && self.l2.line != 0 {
                bad(
                    &[key, "l2.line"],
                    format!(
                        "`{key}` = {line} is larger than `l2.line` = {}: a miss must be one L2 request",
                        self.l2.line
                    ),
                );
            }
        }
        if self.shared.bank_width != 0 && !self.shared.bank_width.is_power_of_two() {
            bad(
                &["shared.bank_width"],
                format!(
                    "`shared.bank_width` = {} is not a power of two",
                    self.shared.bank_width
                ),
            );
        }
        if self.dram.channels != 0 && !self.l2.slices.is_multiple_of(self.dram.channels) {
            bad(
                &["l2.slices", "dram.channels"],
                format!(
                    "`l2.slices` = {} is not a multiple of `dram.channels` = {}: each channel owns the same number of slices",
                    self.l2.slices, self.dram.channels
                ),
            );
        }

        dram_problems(self, &mut bad);

        if p.is_empty() { Ok(()) } else { Err(p) }
    }
}

/// The DRAM's geometry: power-of-two banks and groups, an address mapping
/// whose bank bits name every bank and whose fields do not overlap, slices
/// per channel chosen by bank bits, and a write row-to-column delay
/// (`t_rcd − wl − 1`, GPGPU-Sim's `tRCDWR`) that is not negative.
fn dram_problems(c: &GpuConfig, bad: &mut impl FnMut(&[&'static str], String)) {
    let (line, sector) = (c.l2.line, c.l2.sector_bytes);
    if sector != 0
        && line != 0
        && (!sector.is_power_of_two() || sector > line || line / sector > 32)
    {
        bad(
            &["l2.sector_bytes", "l2.line"],
            format!(
                "`l2.sector_bytes` = {sector} must be a power of two dividing `l2.line` = {line} into at most 32 sectors"
            ),
        );
    }
    let d = &c.dram;
    if d.banks != 0 && !d.banks.is_power_of_two() {
        bad(
            &["dram.banks"],
            format!(
                "`dram.banks` = {} is not a power of two (banks are named by address bits)",
                d.banks
            ),
        );
    }
    if d.bank_groups != 0 && (!d.bank_groups.is_power_of_two() || d.bank_groups > d.banks) {
        bad(
            &["dram.bank_groups", "dram.banks"],
            format!(
                "`dram.bank_groups` = {} must be a power of two no larger than `dram.banks` = {}",
                d.bank_groups, d.banks
            ),
        );
    }
    if d.banks.is_power_of_two() && d.bank_mask.count_ones() != d.banks.trailing_zeros() {
        bad(
            &["dram.bank_mask", "dram.banks"],
            format!(
                "`dram.bank_mask` = {:#x} has {} bits but {} banks need {}",
                d.bank_mask,
                d.bank_mask.count_ones(),
                d.banks,
                d.banks.trailing_zeros()
            ),
        );
    }
    if d.bank_mask & d.row_mask != 0
        || d.bank_mask & d.col_mask != 0
        || d.row_mask & d.col_mask != 0
    {
        bad(
            &["dram.bank_mask", "dram.row_mask", "dram.col_mask"],
            format!(
                "the address masks overlap (bank {:#x}, row {:#x}, column {:#x}): each address bit names one thing",
                d.bank_mask, d.row_mask, d.col_mask
            ),
        );
    }
    if d.channels != 0 && c.l2.slices.is_multiple_of(d.channels) {
        let per = c.l2.slices / d.channels;
        if per != 0 && (!per.is_power_of_two() || per > d.banks) {
            bad(
                &["l2.slices", "dram.channels", "dram.banks"],
                format!(
                    "{per} L2 slices per DRAM channel: must be a power of two no larger than `dram.banks` = {} (the low bank bits pick the slice)",
                    d.banks
                ),
            );
        }
    }
    if d.t_rcd < d.wl.saturating_add(1) {
        bad(
            &["dram.t_rcd", "dram.wl"],
            format!(
                "`dram.t_rcd` = {} is less than `dram.wl` + 1 = {}: the write row-to-column delay t_rcd − wl − 1 would be negative",
                d.t_rcd,
                u64::from(d.wl) + 1
            ),
        );
    }
    if d.burst_length < d.data_command_ratio {
        bad(
            &["dram.burst_length", "dram.data_command_ratio"],
            format!(
                "`dram.burst_length` = {} is shorter than `dram.data_command_ratio` = {}: a burst must occupy the bus at least one DRAM clock",
                d.burst_length, d.data_command_ratio
            ),
        );
    }
}

/// The problems of a read-only per-SM cache turned on (`sets` > 0):
/// a `required` field of 0, a line that is not a power of two of at least
/// 4 bytes or is longer than an L2 line (`l2_line`; a miss must be one L2
/// request), or more than [`MAX_LINES_PER_CACHE`] lines. `what` names the
/// cache in messages; each pair is a field's key and value.
fn check_read_only_cache(
    what: &str,
    (sets_key, sets): (&'static str, u32),
    (ways_key, ways): (&'static str, u32),
    (line_key, line): (&'static str, u32),
    required: &[(&'static str, u32)],
    l2_line: u32,
    bad: &mut impl FnMut(&[&'static str], String),
) {
    for &(key, v) in required {
        if v == 0 {
            bad(
                &[key, sets_key],
                format!("`{key}` is 0 but `{sets_key}` = {sets} turns {what} on"),
            );
        }
    }
    if line != 0 && (!line.is_power_of_two() || line < 4) {
        bad(
            &[line_key],
            format!("`{line_key}` = {line} is not a power of two of at least 4 bytes"),
        );
    }
    if line > l2_line && l2_line != 0 {
        bad(
            &[line_key, "l2.line"],
            format!(
                "`{line_key}` = {line} is larger than `l2.line` = {l2_line}: a miss must be one L2 request"
            ),
        );
    }
    let lines = u64::from(sets) * u64::from(ways);
    if lines > MAX_LINES_PER_CACHE {
        bad(
            &[sets_key, ways_key],
            format!("{what} has {lines} lines, more than {MAX_LINES_PER_CACHE}"),
        );
    }
}
