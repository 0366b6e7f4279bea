//! The config schema: every section and field of [`GpuConfig`] by its TOML
//! name, with its type and a one-line description. The loader, `--set`,
//! [`GpuConfig::to_toml`] and the "did you mean" suggestions all read this
//! table, so a key is spelled in one place; a compile-time check below
//! makes sure it names every struct field.

use std::fmt;

use super::{
    CacheConfig, ConstCacheConfig, CoreConfig, DramConfig, GpuConfig, IcntConfig, L1dConfig,
    L2Config, LatencyConfig, OpcollConfig, SchedConfig, SharedConfig, SimConfig, SyncConfig,
    TexCacheConfig,
};

/// The type of a field's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// An unsigned 32-bit integer.
    U32,
    /// An unsigned 64-bit integer (TOML integers stop at 2^63 − 1).
    U64,
    /// `true` or `false`.
    Bool,
    /// An array of five unsigned 32-bit integers `[add, max, mul, mad, div]`.
    U32x5,
}

impl FieldKind {
    /// How the type reads in an error message.
    pub fn describe(self) -> &'static str {
        match self {
            FieldKind::U32 => "an integer from 0 to 4294967295",
            FieldKind::U64 => "an integer from 0 to 9223372036854775807",
            FieldKind::Bool => "`true` or `false`",
            FieldKind::U32x5 => "an array of 5 integers [add, max, mul, mad, div]",
        }
    }
}

/// A field's value, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValue {
    /// A `u32` field.
    U32(u32),
    /// A `u64` field.
    U64(u64),
    /// A `bool` field.
    Bool(bool),
    /// A `[u32; 5]` field.
    U32x5([u32; 5]),
}

impl FieldValue {
    /// The value's type.
    pub fn kind(&self) -> FieldKind {
        match self {
            FieldValue::U32(_) => FieldKind::U32,
            FieldValue::U64(_) => FieldKind::U64,
            FieldValue::Bool(_) => FieldKind::Bool,
            FieldValue::U32x5(_) => FieldKind::U32x5,
        }
    }
}

/// TOML syntax: `15`, `2_000_000_000`, `true`, `[4, 13, 4, 5, 145]`.
impl fmt::Display for FieldValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldValue::U32(v) => write!(f, "{v}"),
            FieldValue::U64(v) => {
                let digits = v.to_string();
                if digits.len() <= 4 {
                    return f.write_str(&digits);
                }
                // Thousands separated by `_` (valid TOML) for readability.
                let mut out = String::new();
                for (i, c) in digits.chars().enumerate() {
                    if i > 0 && (digits.len() - i) % 3 == 0 {
                        out.push('_');
                    }
                    out.push(c);
                }
                f.write_str(&out)
            }
            FieldValue::Bool(v) => write!(f, "{v}"),
            FieldValue::U32x5(a) => write!(f, "[{}, {}, {}, {}, {}]", a[0], a[1], a[2], a[3], a[4]),
        }
    }
}

/// One field of the schema.
#[derive(Debug)]
pub struct FieldInfo {
    /// The section's TOML name (`l1d`).
    pub section: &'static str,
    /// The field's TOML name within its section (`ways`).
    pub name: &'static str,
    /// The dotted key `--set` takes (`l1d.ways`).
    pub key: &'static str,
    /// The value's type.
    pub kind: FieldKind,
    /// The largest value validation accepts (for arrays: each element;
    /// 1 for booleans). Sizes and counts are bounded so that nothing the
    /// timing model allocates from them can exhaust memory.
    pub max: u64,
    /// What the field is, in one line (the comment `to_toml` prints).
    pub doc: &'static str,
}

/// One section (TOML table) of the schema.
#[derive(Debug)]
pub struct SectionInfo {
    /// The TOML table name (`l1d`).
    pub name: &'static str,
    /// What the section describes, in one line.
    pub doc: &'static str,
    /// Its fields, in file order.
    pub fields: &'static [FieldInfo],
}

/// A mutable reference to one field, typed.
enum FieldMut<'a> {
    U32(&'a mut u32),
    U64(&'a mut u64),
    Bool(&'a mut bool),
    U32x5(&'a mut [u32; 5]),
}

macro_rules! schema {
    ($( $sec:ident : $Ty:ident, $sdoc:literal {
        $( $f:ident : $kind:ident <= $max:literal, $fdoc:literal; )*
    } )*) => {
        /// Every section of the config, in file order, with its fields.
        pub static SECTIONS: &[SectionInfo] = &[ $(
            SectionInfo {
                name: stringify!($sec),
                doc: $sdoc,
                fields: &[ $(
                    FieldInfo {
                        section: stringify!($sec),
                        name: stringify!($f),
                        key: concat!(stringify!($sec), ".", stringify!($f)),
                        kind: FieldKind::$kind,
                        max: $max,
                        doc: $fdoc,
                    },
                )* ],
            },
        )* ];

        fn field_mut<'a>(c: &'a mut GpuConfig, key: &str) -> Option<FieldMut<'a>> {
            match key {
                $( $( concat!(stringify!($sec), ".", stringify!($f)) =>
                    Some(FieldMut::$kind(&mut c.$sec.$f)), )* )*
                _ => None,
            }
        }

        fn field_get(c: &GpuConfig, key: &str) -> Option<FieldValue> {
            match key {
                $( $( concat!(stringify!($sec), ".", stringify!($f)) =>
                    Some(FieldValue::$kind(c.$sec.$f)), )* )*
                _ => None,
            }
        }

        /// Fails to compile when a struct gains a field the schema lacks
        /// (the patterns have no `..`).
        #[allow(dead_code)]
        fn schema_is_exhaustive(c: &GpuConfig) {
            let GpuConfig { $( $sec: _, )* } = c;
            $( let $Ty { $( $f: _, )* } = &c.$sec; )*
        }
    };
}

schema! {
    core: CoreConfig, "SM count, occupancy limits and pipeline widths" {
        num_sms: U32 <= 1_024, "streaming multiprocessors (AMD: compute units)";
        warp_size: U32 <= 64, "threads per warp (32; 64 for AMD wavefronts)";
        max_warps_per_sm: U32 <= 1_024, "warp slots per SM";
        max_threads_per_sm: U32 <= 65_536, "resident threads per SM";
        max_ctas_per_sm: U32 <= 1_024, "resident CTAs (thread blocks, work-groups) per SM";
        registers_per_sm: U32 <= 16_777_216, "32-bit registers per SM";
        reg_alloc_unit: U32 <= 1_024, "a CTA's registers per thread are rounded up to a multiple of this for occupancy (GPGPU-Sim's max_cta: 4); 1 = exact";
        accesses_descending: Bool <= 1, "the LD/ST unit takes a warp instruction's memory transactions in descending address order (GPGPU-Sim's coalescer fills m_accessq from an address-ordered std::map, the unit takes accessq_back() first); false: ascending; texture fetches keep their order";
        local_mem_map: Bool <= 1, "local memory laid out for the caches as GPGPU-Sim's translate_local_memaddr (-gpgpu_local_mem_map 1): word D of all threads resident on the GPU contiguous, CTA by CTA across SMs; false: each warp's words in its own block";
        default_regs_per_thread: U32 <= 65_536, "registers per thread when a manifest gives no regs_per_thread";
        shared_mem_per_sm: U32 <= 16_777_216, "bytes of shared memory per SM";
        schedulers_per_sm: U32 <= 64, "warp schedulers per SM (warp w belongs to scheduler w % n)";
        issue_width: U32 <= 64, "instructions each scheduler may issue per cycle";
        rotate_sched_priority: Bool <= 1, "schedulers take turns going first at the ports they share (scheduler now % n first, GPGPU-Sim's Issue_Prio); false: scheduler 0 always first";
        contiguous_code: Bool <= 1, "the kernels of a PTX module share one instruction address space in file order, each starting at the byte after the previous kernel's last instruction (GPGPU-Sim's function_info::ptx_assemble, g_assemble_code_next_pc; fetched at PROGRAM_MEM_START + PC), so a later kernel's first I-cache line may be the previous kernel's last one; false: each kernel's code starts on a line of its own, 2^32 bytes apart";
        branch_redirect: Bool <= 1, "fetch goes past branches (next fetch = fall-through of the issued instruction); the scheduler flushes a wrong-path I-buffer head and refetches (GPGPU-Sim's scheduler_unit::cycle control hazard); false: fetch stops after a control instruction";
        ibuffer_entries: U32 <= 1_024, "I-buffer slots per warp";
        sp_units: U32 <= 1_024, "SP units (integer and fp32) per SM";
        sfu_units: U32 <= 1_024, "SFU units per SM";
        dp_units: U32 <= 1_024, "double-precision units per SM (0: fp64 runs on the SFU units, as on Fermi)";
        barrier_latency: U32 <= 1_000_000, "cycles from the last warp's arrival at a barrier to the release";
        clock_mhz: U32 <= 1_000_000, "core clock in MHz (one cycle of the model)";
    }
    latency: LatencyConfig, "functional-unit latencies and initiation intervals in cycles; arrays are [add, max, mul, mad, div]" {
        int: U32x5 <= 1_000_000, "integer latencies";
        int_initiation: U32x5 <= 1_000_000, "integer initiation intervals";
        fp32: U32x5 <= 1_000_000, "fp32 latencies";
        fp32_initiation: U32x5 <= 1_000_000, "fp32 initiation intervals";
        fp64: U32x5 <= 1_000_000, "fp64 latencies";
        fp64_initiation: U32x5 <= 1_000_000, "fp64 initiation intervals";
        sfu: U32 <= 1_000_000, "SFU latency (transcendentals, sqrt, rcp)";
        sfu_initiation: U32 <= 1_000_000, "SFU initiation interval";
        control: U32 <= 1_000_000, "branch and other control instructions (SP pipeline)";
        warp_op: U32 <= 1_000_000, "warp-level operations (shfl, vote)";
        const_load: U32 <= 1_000_000, ".param and .const loads (constant cache hit)";
        other: U32 <= 1_000_000, "every other instruction: moves, logic, shifts, comparisons, conversions, selects, vote";
    }
    opcoll: OpcollConfig, "operand collector between issue and the functional units; register-file banks" {
        reg_banks: U32 <= 1_024, "register-file banks; register r of warp slot w is in bank (r + w) % reg_banks, one read per bank per cycle";
        sp_collectors: U32 <= 1_024, "collector units in front of the SP units (an instruction holds one from issue to dispatch)";
        sfu_collectors: U32 <= 1_024, "collector units in front of the SFU and DP units";
        sp_dispatch: U32 <= 1_024, "instructions the SP collector units dispatch per cycle";
        sfu_dispatch: U32 <= 1_024, "instructions the SFU collector units dispatch per cycle";
        mem_queue: U32 <= 1_024, "memory instructions that may wait in front of a busy LD/ST unit, in issue order (GPGPU-Sim: ID_OC_MEM + memory collector units + OC_EX_MEM); 0: issue only to an idle LD/ST unit";
        bank_by_name: Bool <= 1, "a register's bank number is the number in its PTX name (%f40 -> 40, GPGPU-Sim's arch_reg_num in register_bank()); false: its index in order of first use";
        unit_result_slots: Bool <= 1, "one result per functional unit per cycle: a unit takes an instruction of latency L at e only if none it took before finishes at e + L, and the oldest dispatched instruction goes first (GPGPU-Sim's simd_function_unit::occupied, OC_EX get_ready); false: a unit takes one instruction per initiation interval";
        predicate_banks: Bool <= 1, "predicate operands and destinations (not the guard) take register-bank reads and writes like registers (GPGPU-Sim: arch_reg src/dst); false: predicates take no bank access";
    }
    icache: CacheConfig, "instruction cache, per SM (instructions are 8 bytes)" {
        sets: U32 <= 65_536, "sets";
        ways: U32 <= 1_024, "ways per set";
        line: U32 <= 65_536, "line size in bytes";
        hit_latency: U32 <= 1_000_000, "hit latency in cycles";
    }
    l1d: L1dConfig, "L1 data cache, per SM (LRU, allocate on read miss, evict on global write)" {
        sets: U32 <= 65_536, "sets";
        ways: U32 <= 1_024, "ways per set";
        line: U32 <= 65_536, "line size in bytes (also the coalescing granularity)";
        hit_latency: U32 <= 1_000_000, "hit latency in cycles";
        mshrs: U32 <= 65_536, "miss status holding registers (outstanding missed lines)";
        mshr_merge: U32 <= 65_536, "requests one MSHR can merge, the first included";
        miss_latency: U32 <= 1_000_000, "cycles a missing load or a store spends in the L1D pipeline before leaving for L2";
        allocate_on_miss: Bool <= 1, "reserve (and evict for) a missing line's way when the miss is sent; a miss finding every way of its set reserved waits (a reservation failure, counted in mshr_full)";
        lru_at_access: Bool <= 1, "with allocate_on_miss: a line's LRU position is its last access (the reserving miss, a hit, a miss merged into its MSHR), not its fill (GPGPU-Sim's tag_array::fill under ON_MISS sets no access time); false: the fill makes it most recently used";
        atomic_segment: U32 <= 128, "global atomics: one request per segment of this many bytes and per group of lanes touching distinct bytes of it (lanes updating one word go in separate requests)";
        store_transactions: Bool <= 1, "stores of 4-16-byte lanes to 128-byte lines make GPGPU-Sim's Fermi write transactions: 128 bytes when they touch both halves of the line, else the 64- or 32-byte part holding them; that size is the request's payload, and a 128-byte one accesses (and dirties) all four L2 sectors of its line (breakdown_request_to_sector_requests); false: payload = bytes written, only their sectors";
        hash_sets: Bool <= 1, "index sets with GPGPU-Sim's Fermi L1 hash (bits 7-11 xor 13,14,15,17,19; needs 32 or 64 sets) instead of line mod sets";
        latency_queue: U32 <= 4_096, "stages of the L1D latency queue loads and stores pass before their tag lookup (GPGPU-Sim's l1_latency_queue: one entry per cycle, lookup at the head, a reservation failure holds the head, not the LD/ST unit); 0: look up when the LD/ST unit processes the access";
        miss_queue: U32 <= 4_096, "with latency_queue > 0: packets of the L1D miss queue between the queue head's lookup and the interconnect (GPGPU-Sim's miss queue, one sent per cycle when the SM's input has room; full = a reservation failure); 0: send straight into the interconnect";
        local_write_back: Bool <= 1, "local stores write back (GPGPU-Sim's LOCAL_WB_GLOBAL_WT, L:L in -gpgpu_cache:dl1): a local store hitting a line marks it dirty and is done; an evicted dirty line is written to L2 whole; false: local stores write through and evict the line, as global ones";
    }
    l1t: TexCacheConfig, "texture cache, per SM (read-only; tex fetches go through it instead of the L1D; fetches complete in lookup order)" {
        sets: U32 <= 65_536, "sets; 0 = no texture cache: tex fetches are global loads through the L1D";
        ways: U32 <= 1_024, "ways per set";
        line: U32 <= 65_536, "line size in bytes (the coalescing granularity of a fetch)";
        hit_latency: U32 <= 1_000_000, "cycles from a fetch's lookup to its result when it hits and nothing ahead of it waits";
        fifo: U32 <= 65_536, "line requests looked up and not yet returned (GPGPU-Sim's fragment FIFO); full, the LD/ST unit waits";
    }
    l1c: ConstCacheConfig, "constant cache, per SM (.const and .param loads; its port takes one line per cycle; with sets > 0 absent lines are fetched from L2)" {
        line: U32 <= 65_536, "line size in bytes: a load whose lanes read n distinct lines holds the LD/ST unit n cycles and its result comes n - 1 cycles later; 0 = one lookup per load (every read hits)";
        sets: U32 <= 65_536, "sets, indexed by line address mod sets; 0 = every read hits (capacity and misses not modelled)";
        ways: U32 <= 1_024, "ways per set (LRU; a missing line is allocated when its data arrives, evicting without write-back)";
        mshrs: U32 <= 1_024, "misses in flight at once; a miss finding none free holds the LD/ST unit (l1c_stall) until a fill";
        mshr_merge: U32 <= 65_536, "requests one MSHR holds, its miss included; a request for a line whose MSHR is full holds the unit too";
    }
    shared: SharedConfig, "shared memory, per SM" {
        banks: U32 <= 1_024, "banks";
        bank_width: U32 <= 1_024, "bytes per bank word";
        latency: U32 <= 1_000_000, "cycles of a conflict-free access";
    }
    icnt: IcntConfig, "interconnect between SMs and L2 slices (one port per SM and per slice, each direction)" {
        latency: U32 <= 1_000_000, "cycles a packet spends in flight after leaving its port";
        flit_bytes: U32 <= 65_536, "bytes per flit";
        flits_per_cycle: U32 <= 1_024, "flits a port sends per cycle";
        queue: U32 <= 65_536, "packets an SM's injection port holds before refusing more (icnt_stall; only with request_crossbar = false)";
        header_bytes: U32 <= 65_536, "bytes of a packet header (a read request is one header)";
        reply_crossbar: Bool <= 1, "replies cross a crossbar with head-of-line blocking, one packet per L2 sector (GPGPU-Sim's 1-VC iSLIP router); false: one packet per reply at the slice's port rate";
        reply_buffer: U32 <= 65_536, "reply packets a slice holds for the crossbar before its L2 stops looking up";
        request_crossbar: Bool <= 1, "requests cross a crossbar with head-of-line blocking, one packet per cycle into each slice's ejection buffer, which lets one per cycle into the L2 while its input queue has room for a line's sectors (GPGPU-Sim's 1-VC iSLIP router); false: requests wait by an estimate of the slice's queue";
        request_buffer: U32 <= 65_536, "flits an SM's requests occupy in the crossbar's input before the SM stops sending (with request_crossbar; an empty input takes a larger packet)";
        eject_buffer: U32 <= 65_536, "flits a slice's ejection buffer holds (with request_crossbar; an empty buffer takes a larger packet)";
    }
    l2: L2Config, "L2 cache slices, address-interleaved by line" {
        slices: U32 <= 1_024, "slices in total (each DRAM channel owns slices / dram.channels)";
        sets: U32 <= 65_536, "sets per slice";
        ways: U32 <= 1_024, "ways per set";
        line: U32 <= 65_536, "line size in bytes";
        latency: U32 <= 1_000_000, "cycles from a request's arrival at a slice to its tag lookup (ROP latency)";
        sector_bytes: U32 <= 65_536, "bytes per sector, fetched and written back separately (= line: unsectored)";
        input_queue: U32 <= 65_536, "sector accesses a slice's input queue holds past the ROP delay; when full, requests wait in the interconnect and block their SM's port";
        rop_transfer: Bool <= 1, "with the request crossbar, the input queue fills only by one sector per cycle from the ROP stage and empties by lookups (GPGPU-Sim's unbounded m_rop and m_icnt_L2_queue); false: every sector past the ROP delay counts against input_queue";
        allocate_on_miss: Bool <= 1, "a read miss reserves its way and evicts the victim at the miss (GPGPU-Sim's allocate-on-miss L2, m in -gpgpu_cache:dl2); a set with every way reserved holds the miss; false: the victim is evicted at the fill";
        lru_at_access: Bool <= 1, "with allocate_on_miss: a line's LRU position is its last access (the reserving miss, a hit, a sector miss, a read joining a pending sector), not its fill from DRAM (GPGPU-Sim's tag_array::fill under ON_MISS sets no access time); false: the fill makes it most recently used";
        mshr_merge: U32 <= 255, "requests one sector miss holds, its own included (GPGPU-Sim's L2 MSHR merge limit); one more waits until the data arrives (counted in mem.merge_full); 0: unbounded";
        miss_queue: U32 <= 65_536, "DRAM requests (sector reads, write-backs) a slice's miss queue holds before the L2-to-DRAM queue, moved into it one per cycle while it has room (GPGPU-Sim's L2 m_miss_queue); a read that does not hit needs room for two, a store that misses for one, and no lookup happens while the DRAM queue is full; 0: misses go straight to the DRAM queue";
        half_line_alias: Bool <= 1, "a 64-byte read (the constant cache's miss) splits into two sectors that share the first's address, as GPGPU-Sim 4.2's breakdown_request_to_sector_requests: while the first sector is not valid the second merges into its miss, is served with its data and stays invalid (the next read of the pair fetches it); false: each sector misses and fills on its own";
        partial_write_miss: Bool <= 1, "a sector a store wrote only in part while not valid is not readable until stores complete it or a read fetches it: reads of it miss to DRAM (GPGPU-Sim's lazy-fetch-on-read L2, m_readable); false: any store makes its sectors readable";
        vector_store_first_element: Bool <= 1, "with partial_write_miss: a vector store (st.v2, st.v4) counts only each lane's first element as written (GPGPU-Sim 4.2 sizes an access by its element type, so its byte mask covers one element per lane): the sectors it writes stay unreadable and reads of them fetch from DRAM; false: every byte a store writes counts";
        data_port_width: U32 <= 65_536, "bytes per cycle a slice reads out of its data array for a write-back (GPGPU-Sim's L2 data port width): a lookup or fill evicting a dirty line holds the slice's lookups dirty bytes / width cycles; 0 = no cost";
        fill_on_copy: Bool <= 1, "host-to-device copies into allocations leave their sectors valid and clean in L2 (GPGPU-Sim's -gpgpu_perf_sim_memcpy 1); copies into module variables (symbols) never do";
    }
    dram: DramConfig, "DRAM channels: banks, row buffers and GDDR timings in DRAM clocks" {
        channels: U32 <= 1_024, "channels (memory controllers)";
        latency: U32 <= 1_000_000, "core cycles a request spends in the latency queue before the scheduler (-dram_latency)";
        queue: U32 <= 65_536, "scheduler queue entries per channel (-gpgpu_frfcfs_dram_sched_queue_size)";
        l2_queue: U32 <= 65_536, "entries of a slice's queue towards DRAM (full: a dram_full stall at the L2)";
        return_queue: U32 <= 65_536, "return queue entries per channel; with queue it bounds requests in flight";
        scheduler: U32 <= 1, "0 = FIFO, 1 = FR-FCFS (row hits first, then oldest) (-gpgpu_dram_scheduler)";
        clock_mhz: U32 <= 1_000_000, "DRAM command clock in MHz";
        banks: U32 <= 64, "banks per channel (nbk; at most 64: a channel keeps its banks in 64-bit masks)";
        bank_groups: U32 <= 64, "bank groups per channel (nbkgrp; 1 = none)";
        bank_group_indexing: U32 <= 1, "bank group from the bank number's 0 = high bits, 1 = low bits";
        bus_width: U32 <= 1_024, "bytes per chip per data beat (-gpgpu_dram_buswidth)";
        chips: U32 <= 1_024, "chips per channel (-gpgpu_n_mem_per_ctrlr)";
        burst_length: U32 <= 1_024, "data beats per burst (-gpgpu_dram_burst_length)";
        data_command_ratio: U32 <= 64, "data beats per command clock (-dram_data_command_freq_ratio)";
        t_ccd: U32 <= 100_000, "column to column, any bank (tCCD), DRAM clocks";
        t_ccdl: U32 <= 100_000, "column to column, same bank group (tCCDL)";
        t_rrd: U32 <= 100_000, "activate to activate, different banks (tRRD)";
        t_rcd: U32 <= 100_000, "activate to read (tRCD)";
        t_ras: U32 <= 100_000, "activate to precharge (tRAS)";
        t_rp: U32 <= 100_000, "precharge to activate (tRP)";
        t_rc: U32 <= 100_000, "activate to activate, same bank (tRC)";
        cl: U32 <= 100_000, "read (CAS) latency (CL)";
        wl: U32 <= 100_000, "write latency (WL)";
        t_cdlr: U32 <= 100_000, "last write data to read command (tCDLR)";
        t_wr: U32 <= 100_000, "last write data to precharge (tWR)";
        t_rtpl: U32 <= 100_000, "read to precharge, same bank group (tRTPL)";
        channel_bit: U32 <= 40, "channel = (address >> channel_bit) mod channels (dramid@N)";
        bank_mask: U64 <= 9_223_372_036_854_775_807, "address bits of the bank (B) after the channel is removed";
        row_mask: U64 <= 9_223_372_036_854_775_807, "address bits of the row (R)";
        col_mask: U64 <= 9_223_372_036_854_775_807, "address bits of the column (C and S)";
    }
    sched: SchedConfig, "scheduling-policy parameters" {
        two_level_active: U32 <= 1_024, "active-set size of the two-level scheduler";
        ccws_base_score: U32 <= 1_000_000, "CCWS: a warp's base lost-locality score (DAWS Table 3: 100)";
        ccws_k_throttle: U32 <= 1_000_000, "CCWS: KThrottle, scale of a victim-tag hit's score increase (DAWS Table 3: 8)";
        ccws_decay: U32 <= 1_000_000, "CCWS: points a score above the base loses per cycle";
        vta_entries: U32 <= 65_536, "victim tags per warp (DAWS Table 3: 16)";
        vta_ways: U32 <= 1_024, "victim-tag associativity (DAWS Table 3: 8-way)";
        daws_assoc_percent: U32 <= 100, "DAWS: kAssocFactor in percent; EffCacheSize = this % of L1D lines (DAWS Table 4: 0.6)";
        daws_ilrd_entries: U32 <= 65_536, "DAWS: intra-loop repetition detector entries per SM (DAWS Table 4: 64)";
        daws_ilrd_ways: U32 <= 1_024, "DAWS: intra-loop repetition detector associativity (DAWS Table 4: 8-way)";
    }
    sync: SyncConfig, "work-group synchronization (--sync policies, AWG): SyncMon, command processor, context switches, oversubscription" {
        syncmon_sets: U32 <= 65_536, "SyncMon condition-cache sets (AWG: 256)";
        syncmon_ways: U32 <= 1_024, "SyncMon condition-cache ways (AWG: 4)";
        syncmon_wg_entries: U32 <= 1_048_576, "waiting-WG list entries shared by the SyncMon's conditions (AWG: 512)";
        monitor_log_entries: U32 <= 16_777_216, "Monitor Log entries in memory for waiters the SyncMon cannot hold; a waiter finding it full does not wait";
        bloom_filters: U32 <= 65_536, "counting Bloom filters of unique updates, one per monitored address (AWG: 512)";
        bloom_bits: U32 <= 65_536, "counters per Bloom filter (AWG: 24)";
        bloom_hashes: U32 <= 64, "hash functions per Bloom filter (AWG: 6)";
        syncmon_latency: U32 <= 1_000_000, "cycles from a SyncMon decision (condition met, failed wait) to the WG's CU acting on it";
        sleep_initial: U32 <= 1_000_000_000, "sleep:MAX: first sleep interval in cycles, doubled per failed wait up to MAX";
        resume_timeout: U64 <= 9_223_372_036_854_775_807, "monnr-one and awg: cycles after which a waiter no condition event resumed resumes anyway";
        cp_scan_interval: U64 <= 9_223_372_036_854_775_807, "cycles between the command processor's scans of the Monitor Log";
        context_switch_latency: U32 <= 1_000_000, "cycles the command processor needs to start a WG context save or restore, besides the traffic";
        wavefront_state_bytes: U32 <= 1_048_576, "context bytes per wavefront besides vector registers and shared memory (scalar registers, PC, masks)";
        remove_sms_at: U64 <= 9_223_372_036_854_775_807, "cycle at which remove_sms SMs (highest ids) leave the kernel and their WGs are switched out (0: never)";
        remove_sms: U32 <= 1_024, "SMs removed at remove_sms_at";
        return_sms_at: U64 <= 9_223_372_036_854_775_807, "cycle at which the removed SMs come back (0: never)";
    }
    sim: SimConfig, "simulation controls" {
        idle_skip: Bool <= 1, "jump over cycles in which nothing can change (never changes results)";
        max_cycles: U64 <= 9_223_372_036_854_775_807, "stop with an error after this many cycles per launch";
        progress_window: U64 <= 9_223_372_036_854_775_807, "error when no warp exits, no CTA retires or is placed and no waiting instruction succeeds for this many cycles (livelock, deadlock)";
        max_insts: U64 <= 9_223_372_036_854_775_807, "stop with an error after this many warp instructions per launch (timing and --functional)";
        alloc_base: U64 <= 1_099_511_627_520, "address of the host's first device allocation, a multiple of 256 (GPGPU-Sim's cudaMalloc: 0xC0000000); 0: right after the module's variables (from 0x10000000)";
        alloc_guard: U32 <= 1_048_576, "unmapped bytes after each device allocation before the next (rounded up to 256 bytes) starts; an access there is an error. 0: consecutive buffers, as GPGPU-Sim's cudaMalloc";
    }
}

/// The field with this dotted key (`l1d.ways`), if there is one.
pub fn field(key: &str) -> Option<&'static FieldInfo> {
    fields().find(|f| f.key == key)
}

/// The section with this name, if there is one.
pub fn section(name: &str) -> Option<&'static SectionInfo> {
    SECTIONS.iter().find(|s| s.name == name)
}

/// Every field of every section, in file order.
pub fn fields() -> impl Iterator<Item = &'static FieldInfo> {
    SECTIONS.iter().flat_map(|s| s.fields.iter())
}

impl GpuConfig {
    /// The value of the field with this dotted key (`l1d.ways`), or `None`
    /// for an unknown key.
    pub fn get(&self, key: &str) -> Option<FieldValue> {
        field_get(self, key)
    }

    /// Sets the field with this dotted key. Fails (changing nothing) on an
    /// unknown key or a value of the wrong type; does not validate.
    pub fn set(&mut self, key: &str, value: FieldValue) -> Result<(), String> {
        let Some(slot) = field_mut(self, key) else {
            return Err(format!("unknown config key `{key}`"));
        };
        match (slot, value) {
            (FieldMut::U32(s), FieldValue::U32(v)) => *s = v,
            (FieldMut::U64(s), FieldValue::U64(v)) => *s = v,
            (FieldMut::Bool(s), FieldValue::Bool(v)) => *s = v,
            (FieldMut::U32x5(s), FieldValue::U32x5(v)) => *s = v,
            (_, v) => {
                let want = field(key).map_or("?", |f| f.kind.describe());
                return Err(format!(
                    "`{key}` expects {want}, not {}",
                    v.kind().describe()
                ));
            }
        }
        Ok(())
    }

    /// The full config as TOML: every section and field, each with a
    /// comment saying what it is. Loading the text gives back an equal
    /// config.
    pub fn to_toml(&self) -> String {
        let mut out = String::from(
            "# gpusim machine configuration: every field of every section.\n\
             # A config file may instead name only the fields it changes: it starts\n\
             # from the preset named by `base = \"PRESET\"` (gtx480 when absent).\n",
        );
        for s in SECTIONS {
            out.push('\n');
            out.push_str("# ");
            out.push_str(&capitalise(s.doc));
            out.push_str(".\n[");
            out.push_str(s.name);
            out.push_str("]\n");
            let lines: Vec<String> = s
                .fields
                .iter()
                .map(|f| match self.get(f.key) {
                    Some(v) => format!("{} = {v}", f.name),
                    None => String::new(), // cannot happen: the key is in the schema
                })
                .collect();
            let width = lines.iter().map(String::len).max().unwrap_or(0).max(30);
            for (f, line) in s.fields.iter().zip(&lines) {
                out.push_str(&format!("{line:<width$}  # {}\n", f.doc));
            }
        }
        out
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
