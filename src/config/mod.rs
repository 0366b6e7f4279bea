//! Machine configuration: every parameter of the timing model (DESIGN §3–§4).
//!
//! A config is TOML; presets ship in the binary (`presets/*.toml`, each
//! field commented with its source). Field names here are the TOML keys
//! (`[core] num_sms = 15`, `--set l1d.ways=8`). [`load_config`] resolves a
//! preset name or a (possibly partial) file plus `--set` overrides and
//! reports every problem as a [`Diagnostics`](crate::Diagnostics) with spans;
//! [`GpuConfig::validate`] checks that the numbers make a machine.

use serde::{Deserialize, Serialize};

mod load;
mod schema;
mod validate;

pub use load::{load_config, parse_config};
pub use schema::{FieldInfo, FieldKind, FieldValue, SECTIONS, SectionInfo, field, fields, section};
pub use validate::Problem;

/// The presets that ship in the binary, default first.
pub const PRESETS: &[&str] = &["gtx480", "daws", "baws", "awg", "tiny", "lfws-fig1"];

/// Every shipped preset: name, one-line description (`gpusim list
/// presets`) and TOML text, in [`PRESETS`] order. [`preset_text`] reads
/// only this table, so a preset cannot ship without a description.
pub const PRESET_TABLE: &[(&str, &str, &str)] = &[
    (
        "gtx480",
        "NVIDIA Fermi GTX480 as GPGPU-Sim 4.2 models it, calibrated: 15 SMs (the default)",
        include_str!("presets/gtx480.toml"),
    ),
    (
        "daws",
        "the GPGPU-Sim 3.1.0 machine of DAWS (MICRO 2013) Table 1: 30 SMs, 8-wide SIMD",
        include_str!("presets/daws.toml"),
    ),
    (
        "baws",
        "the GTX480 of BAWS (ICS 2016) §5, 2-entry I-buffer per warp",
        include_str!("presets/baws.toml"),
    ),
    (
        "awg",
        "the gem5 APU GPU of AWG (ISCA 2020) Table 1: 8 CUs, wavefronts of 64, SyncMon",
        include_str!("presets/awg.toml"),
    ),
    (
        "tiny",
        "a small machine for fast tests: one SM, 16 warp slots, one scheduler",
        include_str!("presets/tiny.toml"),
    ),
    (
        "lfws-fig1",
        "tiny with an 8-entry I-buffer and a 4-cycle L1D hit: the LFWS Fig. 1 worked example",
        include_str!("presets/lfws-fig1.toml"),
    ),
];

/// The TOML text of a shipped preset, with its comments.
pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESET_TABLE
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, _, text)| *text)
}

/// The one-line description of a shipped preset.
pub fn preset_description(name: &str) -> Option<&'static str> {
    PRESET_TABLE
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, d, _)| *d)
}

/// The whole machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// SM count, occupancy limits, pipeline widths.
    pub core: CoreConfig,
    /// Functional-unit latencies and initiation intervals.
    pub latency: LatencyConfig,
    /// Operand collector and register banks.
    pub opcoll: OpcollConfig,
    /// Instruction cache (per SM).
    pub icache: CacheConfig,
    /// L1 data cache (per SM).
    pub l1d: L1dConfig,
    /// Texture cache (per SM).
    pub l1t: TexCacheConfig,
    /// Constant cache (per SM).
    pub l1c: ConstCacheConfig,
    /// Shared memory (per SM).
    pub shared: SharedConfig,
    /// Interconnect between SMs and L2 slices.
    pub icnt: IcntConfig,
    /// L2 slices.
    pub l2: L2Config,
    /// DRAM channels.
    pub dram: DramConfig,
    /// Policy parameters.
    pub sched: SchedConfig,
    /// Work-group synchronization (AWG): SyncMon, context switching,
    /// oversubscription events.
    pub sync: SyncConfig,
    /// Simulation controls.
    pub sim: SimConfig,
}

/// SM count, occupancy limits and pipeline widths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreConfig {
    /// Streaming multiprocessors.
    pub num_sms: u32,
    /// Threads per warp (32, or 64 for AWG wavefronts).
    pub warp_size: u32,
    /// Warp slots per SM.
    pub max_warps_per_sm: u32,
    /// Threads per SM.
    pub max_threads_per_sm: u32,
    /// CTAs per SM.
    pub max_ctas_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// A CTA's registers per thread are rounded up to a multiple of this
    /// when counted against `registers_per_sm` (GPGPU-Sim's `max_cta`
    /// rounds them up to a multiple of 4); 1: counted exactly.
    pub reg_alloc_unit: u32,
    /// Local memory laid out as GPGPU-Sim's `translate_local_memaddr`
    /// (`-gpgpu_local_mem_map 1`) for the caches and DRAM: word `D` of
    /// every thread that can be resident on the GPU at once forms one
    /// contiguous region, threads of a CTA adjacent, then CTAs of successive
    /// SMs, then successive CTA slots; an access of 8 bytes or more is one
    /// 4-byte access per word (a vector access, its first element's). Off:
    /// each warp's local memory is its own block, word by word.
    pub local_mem_map: bool,
    /// The LD/ST unit takes a warp instruction's memory transactions
    /// (its lines) in descending address order, as GPGPU-Sim does: its
    /// coalescer fills the access queue from an address-ordered
    /// `std::map` and the unit takes `accessq_back()` first
    /// (`warp_inst_t::memory_coalescing_arch`, `ldst_unit::memory_cycle`).
    /// false: ascending. Texture fetches keep their order.
    pub accesses_descending: bool,
    /// Registers per thread assumed when a manifest gives no
    /// `regs_per_thread`.
    pub default_regs_per_thread: u32,
    /// Bytes of shared memory per SM.
    pub shared_mem_per_sm: u32,
    /// Warp schedulers per SM (warp w belongs to scheduler w % n).
    pub schedulers_per_sm: u32,
    /// Instructions each scheduler may issue per cycle.
    pub issue_width: u32,
    /// The schedulers take turns going first (scheduler `now` mod n runs
    /// first in cycle `now`), as GPGPU-Sim's `Issue_Prio`; otherwise
    /// scheduler 0 always goes first at the ports they share.
    pub rotate_sched_priority: bool,
    /// Fetch goes on past a control instruction and a warp's next fetch is
    /// always the fall-through of the instruction it issued; a taken branch
    /// (or a divergence or reconvergence that moves the PC elsewhere) is
    /// noticed when the scheduler next looks at the warp with a valid
    /// I-buffer head, which it then flushes and refetches from the real PC
    /// (GPGPU-Sim's `issue_warp` / `scheduler_unit::cycle`). Otherwise fetch
    /// stops after a control instruction and the target is fetched in the
    /// cycle it issues.
    pub branch_redirect: bool,
    /// The kernels of a module take consecutive instruction addresses in
    /// file order (GPGPU-Sim's `function_info::ptx_assemble`, which
    /// numbers every function's instructions from the global
    /// `g_assemble_code_next_pc`): a kernel starts at the byte after the
    /// previous kernel's last instruction, so its first I-cache line may
    /// be that kernel's last. Otherwise each kernel's code starts on a
    /// line of its own, 2^32 bytes from the previous kernel's.
    pub contiguous_code: bool,
    /// I-buffer slots per warp.
    pub ibuffer_entries: u32,
    /// SP (integer and fp32) units per SM.
    pub sp_units: u32,
    /// SFU units per SM.
    pub sfu_units: u32,
    /// Double-precision units per SM (0: fp64 runs on the SFU units).
    pub dp_units: u32,
    /// Cycles from the last warp's arrival at a barrier to the waiting
    /// warps becoming issuable.
    pub barrier_latency: u32,
    /// Core clock in MHz: one cycle of the model is one core clock; the
    /// DRAM clock (`dram.clock_mhz`) runs at its own rate relative to it.
    pub clock_mhz: u32,
}

/// Latencies (cycles from issue to result) and initiation intervals
/// (cycles before the unit accepts the next instruction). Arrays are
/// `[add, max, mul, mad, div]` as in GPGPU-Sim's `-ptx_opcode_latency_*`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencyConfig {
    /// Integer latencies `[add, max, mul, mad, div]`.
    pub int: [u32; 5],
    /// Integer initiation intervals.
    pub int_initiation: [u32; 5],
    /// fp32 latencies `[add, max, mul, mad, div]`.
    pub fp32: [u32; 5],
    /// fp32 initiation intervals.
    pub fp32_initiation: [u32; 5],
    /// fp64 latencies `[add, max, mul, mad, div]`.
    pub fp64: [u32; 5],
    /// fp64 initiation intervals.
    pub fp64_initiation: [u32; 5],
    /// SFU (transcendentals, sqrt, rcp) latency.
    pub sfu: u32,
    /// SFU initiation interval.
    pub sfu_initiation: u32,
    /// Branch / control instructions (SP pipeline).
    pub control: u32,
    /// Warp-level operations (`shfl`, `vote`).
    pub warp_op: u32,
    /// `.param` and `.const` loads (constant cache hit).
    pub const_load: u32,
    /// Every other instruction: moves, logic, shifts, comparisons,
    /// conversions, selects, `vote` (GPGPU-Sim's default latency).
    pub other: u32,
}

/// A set-associative cache's geometry and hit latency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Sets.
    pub sets: u32,
    /// Ways per set.
    pub ways: u32,
    /// Line size in bytes.
    pub line: u32,
    /// Hit latency in cycles.
    pub hit_latency: u32,
}

/// The texture cache of an SM (GPGPU-Sim's L1T, `tex_cache`): a read-only
/// cache that `tex` fetches go through instead of the L1D. A miss
/// allocates its line at once (evicting the least recently used one) and
/// reads it from L2; fetches leave in the order they were looked up, one
/// per cycle, each no earlier than `hit_latency` cycles after its lookup
/// and, behind a miss, not before the miss's data (GPGPU-Sim's fragment
/// FIFO and reorder buffer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TexCacheConfig {
    /// Sets; 0: no texture cache (texture fetches are global loads through
    /// the L1D).
    pub sets: u32,
    /// Ways per set.
    pub ways: u32,
    /// Line size in bytes (the coalescing granularity of a fetch).
    pub line: u32,
    /// Cycles from a hit's lookup to its result.
    pub hit_latency: u32,
    /// Line requests looked up and not yet returned that the cache holds
    /// (GPGPU-Sim's fragment FIFO); full, the LD/ST unit waits.
    pub fifo: u32,
}

/// The constant cache (GPGPU-Sim's L1C), which `.const` and `.param` loads
/// read ([`crate::timing::const_cache`]). Its port looks up one line per
/// cycle, so a load whose lanes read `n` distinct lines holds the LD/ST
/// unit `n` cycles (`ldst_unit::constant_cycle`); with `sets` > 0 a line
/// that is not present is fetched from L2 through one of `mshrs` MSHRs,
/// else every read hits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstCacheConfig {
    /// Line size in bytes; 0: one lookup per load whatever its addresses
    /// (and every read hits).
    pub line: u32,
    /// Sets (indexed by line address mod sets); 0: every read hits (the
    /// capacity and misses are not modelled).
    pub sets: u32,
    /// Ways per set (LRU, allocated when a miss's data arrives).
    pub ways: u32,
    /// Misses in flight at once (lines being fetched).
    pub mshrs: u32,
    /// Requests one MSHR holds (the miss and those merged into it).
    pub mshr_merge: u32,
}

/// The L1 data cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L1dConfig {
    /// Sets.
    pub sets: u32,
    /// Ways per set.
    pub ways: u32,
    /// Line size in bytes (also the coalescing granularity).
    pub line: u32,
    /// Hit latency in cycles.
    pub hit_latency: u32,
    /// Miss status holding registers (outstanding missed lines).
    pub mshrs: u32,
    /// Requests one MSHR can merge (the first included).
    pub mshr_merge: u32,
    /// Cycles a missing load or a store spends in the L1D pipeline before
    /// it leaves for L2 (GPGPU-Sim's L1 latency queue, which every access
    /// passes before its tag lookup).
    pub miss_latency: u32,
    /// Index sets with the Fermi L1 hash (32 or 64 sets) instead of line
    /// address mod sets.
    pub hash_sets: bool,
    /// Reserve a way for a missing line when the miss is sent (evicting
    /// then), not when its data arrives; a miss finding every way of its
    /// set reserved waits.
    pub allocate_on_miss: bool,
    /// With `allocate_on_miss`: a line's place in the LRU order is its
    /// last access (the miss that reserved it, a hit, or a miss merged
    /// into its pending fill); its fill does not move it (GPGPU-Sim's
    /// `tag_array::access` sets the access time, `tag_array::fill` under
    /// ON_MISS does not). false: the fill makes it most recently used.
    pub lru_at_access: bool,
    /// Global atomics make one request per segment of this many bytes and
    /// per group of lanes touching distinct bytes in it.
    pub atomic_segment: u32,
    /// A store's line requests are GPGPU-Sim's Fermi write transactions
    /// (`warp_inst_t::memory_coalescing_arch` with `-gpgpu_coalesce_arch
    /// 20` and the L1D not skipped, then
    /// `memory_coalescing_arch_reduce_and_send`): for 4-, 8- and 16-byte
    /// accesses to 128-byte lines, a request whose bytes fall in both
    /// 64-byte halves of its line is one 128-byte transaction, else the
    /// half (64 bytes) or quarter (32 bytes) holding them. The
    /// transaction's size is the request's payload in the interconnect,
    /// and the L2 splits a 128-byte one into all four sectors of its line
    /// (`memory_sub_partition::breakdown_request_to_sector_requests`),
    /// so the sectors it holds no bytes of are accesses too, written with
    /// no bytes: they become dirty. false: a store's payload is the bytes
    /// its lanes write and it accesses only the sectors they fall in.
    pub store_transactions: bool,
    /// Stages of the L1D latency queue that loads and stores pass before
    /// their tag lookup (GPGPU-Sim's `l1_latency_queue`, one bank): one
    /// access enters per cycle while the queue holds fewer than this many,
    /// is looked up when it reaches the head, at the earliest this many
    /// cycles after entering, and a reservation failure there (no MSHR, no
    /// way to reserve, no room in the interconnect) holds the head while
    /// the accesses behind it close up. A hit then completes
    /// `hit_latency` − `latency_queue` cycles later, a miss or store leaves
    /// for L2 `miss_latency` − `latency_queue` cycles later (0 each when
    /// they are equal). 0: the lookup is made when the LD/ST unit
    /// processes the access, and a reservation failure stalls the unit.
    #[serde(default)]
    pub latency_queue: u32,
    /// With `latency_queue` > 0: misses and stores looked up at the queue's
    /// head wait in a FIFO of this many packets (GPGPU-Sim's L1D miss
    /// queue) that sends its oldest into the interconnect when the SM's
    /// input has room, one per cycle; a store finding it full, or a miss
    /// or merge finding fewer than two free entries, is a reservation
    /// failure (counted in `icnt_stall`). 0: the head's lookup sends
    /// straight into the interconnect.
    #[serde(default)]
    pub miss_queue: u32,
    /// Local stores write back (GPGPU-Sim's `LOCAL_WB_GLOBAL_WT`, `L:L` in
    /// `-gpgpu_cache:dl1`): a local store hitting a line marks it dirty and
    /// is done (no L2 write, no acknowledgement); a dirty line evicted is
    /// written to L2 whole. Off: local stores write through and evict the
    /// line, as global ones.
    pub local_write_back: bool,
}

/// The operand collector between issue and the functional units (see
/// `timing::opcoll`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpcollConfig {
    /// Register-file banks; a register is in bank `(reg + warp) % banks`.
    pub reg_banks: u32,
    /// Collector units in front of the SP units.
    pub sp_collectors: u32,
    /// Collector units in front of the SFU (and DP) units.
    pub sfu_collectors: u32,
    /// Instructions the SP collector units dispatch per cycle.
    pub sp_dispatch: u32,
    /// Instructions the SFU collector units dispatch per cycle.
    pub sfu_dispatch: u32,
    /// Memory instructions that may wait in front of a busy LD/ST unit,
    /// in issue order (GPGPU-Sim: the ID_OC_MEM register, the memory
    /// collector units and the OC_EX_MEM register); 0: a memory
    /// instruction issues only to an idle LD/ST unit.
    pub mem_queue: u32,
    /// Bank a register by the number in its PTX name (`%f40` -> 40, as
    /// GPGPU-Sim's `arch_reg_num`, which `register_bank()` uses) instead of
    /// its index in order of first use; a name without a digit takes no
    /// bank read or write.
    pub bank_by_name: bool,
    /// One result per functional unit per cycle: a unit accepts an
    /// instruction of latency `L` at cycle `e` only if no instruction it
    /// accepted earlier finishes at `e + L`, and the oldest instruction
    /// dispatched to a set's units goes first, holding younger ones back
    /// (GPGPU-Sim's `simd_function_unit::occupied` and the OC_EX
    /// register's oldest-first `get_ready`).
    pub unit_result_slots: bool,
    /// Predicate operands and predicate destinations (not the guard) take
    /// register-bank reads and writes like registers (GPGPU-Sim: a PTX
    /// predicate is a register operand, in `arch_reg.src`/`dst`).
    pub predicate_banks: bool,
}

/// Shared memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedConfig {
    /// Banks.
    pub banks: u32,
    /// Bytes per bank word.
    pub bank_width: u32,
    /// Latency of a conflict-free access.
    pub latency: u32,
}

/// The interconnect (one port per SM and per L2 slice, each direction).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IcntConfig {
    /// Cycles a packet spends in flight after leaving its port.
    pub latency: u32,
    /// Bytes per flit.
    pub flit_bytes: u32,
    /// Flits a port sends per cycle.
    pub flits_per_cycle: u32,
    /// Packets waiting at an SM's injection port before it refuses more
    /// (an `icnt_stall`).
    pub queue: u32,
    /// Bytes of a packet header (a read request is one header).
    pub header_bytes: u32,
    /// Replies cross a crossbar with head-of-line blocking, one packet per
    /// L2 sector ([`crate::timing::crossbar`]); false: each slice's port
    /// sends one packet per reply at `flits_per_cycle`, whatever its SM.
    pub reply_crossbar: bool,
    /// Reply packets a slice holds for the crossbar before its L2 stops
    /// looking up (with `reply_crossbar`).
    pub reply_buffer: u32,
    /// Requests cross a crossbar too ([`crate::timing::crossbar`]): each
    /// SM's packets queue in order (head-of-line blocking), each slice
    /// takes one packet per cycle into an ejection buffer, and a slice
    /// lets one packet per cycle out of it only while its input queue past
    /// the ROP delay has room for a line's sectors (GPGPU-Sim's
    /// `memory_sub_partition::full`); false: packets leave the SM's port at
    /// once and wait only by an estimate of the slice's queue.
    pub request_crossbar: bool,
    /// Flits an SM's requests may occupy in the crossbar's input before the
    /// SM stops sending (with `request_crossbar`).
    pub request_buffer: u32,
    /// Flits a slice's ejection buffer holds (with `request_crossbar`).
    pub eject_buffer: u32,
}

/// L2 slices (address-interleaved by line).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L2Config {
    /// Slices in total (each DRAM channel owns `slices / dram.channels`).
    pub slices: u32,
    /// Sets per slice.
    pub sets: u32,
    /// Ways per set.
    pub ways: u32,
    /// Line size in bytes.
    pub line: u32,
    /// Cycles from a request's arrival to its tag lookup (ROP latency).
    pub latency: u32,
    /// Bytes per sector: a line's sectors are fetched, validated and
    /// written back separately (GPGPU-Sim's sector cache); `line` makes
    /// the cache unsectored.
    pub sector_bytes: u32,
    /// Host-to-device copies fill the L2 (valid, clean sectors), as
    /// GPGPU-Sim's `-gpgpu_perf_sim_memcpy 1`.
    pub fill_on_copy: bool,
    /// Sector accesses a slice's input queue holds after the ROP delay; a
    /// full queue holds requests in the interconnect and blocks their
    /// SM's port.
    pub input_queue: u32,
    /// With the request crossbar: the input queue holds only the sectors
    /// moved into it from the ROP stage, one per cycle, while it has room
    /// (GPGPU-Sim: `m_rop` is unbounded, `cache_cycle` moves one request
    /// per cycle into `m_icnt_L2_queue`, and the slice takes a packet
    /// while that queue has room for a line's sectors,
    /// `memory_sub_partition::full(SECTOR_CHUNCK_SIZE)`). Ready sectors
    /// the lookups keep up with never fill it. false: every sector past
    /// the ROP delay and not looked up counts against `input_queue`.
    pub rop_transfer: bool,
    /// A read miss whose line is absent reserves a way at the miss,
    /// evicting its victim (and writing it back if dirty) then, as
    /// GPGPU-Sim's allocate-on-miss L2 (`m` in `-gpgpu_cache:dl2`;
    /// `tag_array::access`, `MISS` with `ON_MISS`); a reserved way is no
    /// victim until its fill, and a miss whose set has every way reserved
    /// waits (a reservation failure). false: the victim is evicted at the
    /// fill.
    pub allocate_on_miss: bool,
    /// With `allocate_on_miss`: a line's place in the LRU order is its
    /// last access (the miss that reserved it, a hit, a sector miss or a
    /// read joining a pending sector); the fill from DRAM does not move
    /// it (GPGPU-Sim's `tag_array::access` sets the access time,
    /// `tag_array::fill` under ON_MISS does not). false: the fill makes
    /// it most recently used.
    pub lru_at_access: bool,
    /// A sector a store wrote only in part while it was not valid holds
    /// no readable data until stores have written all of it (since its
    /// line was allocated) or a read has fetched it: a read of it misses
    /// and fetches the sector from DRAM, as GPGPU-Sim's lazy-fetch-on-read
    /// L2 (`L` in `-gpgpu_cache:dl2 ...,L:B:m:L:L`;
    /// `wr_miss_wa_lazy_fetch_on_read` clears the sector's `m_readable`
    /// unless the store covers its 32 bytes, `update_m_readable` sets it
    /// once the line's byte mask covers them, and `tag_array::probe`
    /// answers `SECTOR_MISS` for a modified sector not readable). Written
    /// bytes are tracked in 32nds of the line (4 bytes on 128-byte
    /// lines). false: any store makes its sectors readable.
    pub partial_write_miss: bool,
    /// With `partial_write_miss`: a vector store (`st.v2`, `st.v4`) counts
    /// only each lane's first element as written, as GPGPU-Sim 4.2 does
    /// (it sizes a memory access by its element type,
    /// `ptx_instruction::pre_decode`'s `datatype2size`, so the coalescer's
    /// byte mask covers one element per lane): the sectors such a store
    /// writes into a line allocated by stores never become readable, and
    /// reads of them fetch from DRAM. false: every byte a store writes
    /// counts. No effect without `partial_write_miss`.
    pub vector_store_first_element: bool,
    /// A 64-byte read (what the constant cache sends on a miss) splits
    /// into its two sectors as GPGPU-Sim 4.2 splits it
    /// (`memory_sub_partition::breakdown_request_to_sector_requests`, the
    /// branch for the constant cache), giving the second sector the
    /// first's address: while the first is not valid the second merges
    /// into the first's miss, is served with its data and stays invalid,
    /// so the next read of the pair fetches it then. false: each sector
    /// misses and fills on its own.
    pub half_line_alias: bool,
    /// Requests one sector miss holds, the one that sent it included
    /// (GPGPU-Sim's L2 MSHR merge limit, the 4 of `A:256:4` in
    /// `-gpgpu_cache:dl2`): a lookup that would join a miss already
    /// holding that many waits until its data arrives. 0: unbounded.
    pub mshr_merge: u32,
    /// Requests a slice's miss queue holds between its lookups and the
    /// channel's L2-to-DRAM queue (GPGPU-Sim's L2 `m_miss_queue`, the 4
    /// of `4:0` in `-gpgpu_cache:dl2`): a miss's sector reads and a
    /// victim's write-back enter it, and its head moves into the DRAM
    /// queue one per cycle, from the cycle after its sector's access,
    /// while that queue has room (`baseline_cache::cycle`). A read that
    /// does not hit needs room for two (`miss_queue_full(1)`), a store
    /// that misses for one, and no lookup happens while the DRAM queue is
    /// full (`memory_sub_partition::cache_cycle`). 0: misses go straight
    /// into the DRAM queue, a lookup waits only when that has no room for
    /// its sectors.
    pub miss_queue: u32,
    /// Bytes per cycle a slice's data array reads out for a write-back
    /// (GPGPU-Sim's L2 data port width, the last field of
    /// `-gpgpu_cache:dl2`): a lookup or fill that evicts a dirty line
    /// holds the slice's lookups for dirty bytes / width cycles, the
    /// lookup's own cycle included. 0: write-backs cost no lookup time.
    pub data_port_width: u32,
}

/// DRAM channels (GPGPU-Sim's `dram_t`, see `src/timing/dram.rs`): banks
/// with row buffers and GDDR timing constraints, counted in DRAM command
/// clocks (`clock_mhz`), behind a latency queue and an FR-FCFS scheduler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    /// Channels (memory controllers).
    pub channels: u32,
    /// Core cycles a request spends in the latency queue between the L2
    /// and the DRAM scheduler (`-dram_latency`).
    pub latency: u32,
    /// Requests the scheduler queue of a channel holds
    /// (`-gpgpu_frfcfs_dram_sched_queue_size`).
    pub queue: u32,
    /// Requests an L2 slice's queue towards DRAM holds; a full queue makes
    /// the slice's lookup wait (a `dram_full` stall).
    pub l2_queue: u32,
    /// Entries of a channel's return queue (`-gpgpu_dram_return_queue_size`);
    /// with `queue` it bounds the requests a channel has in flight.
    pub return_queue: u32,
    /// Scheduler: 0 = FIFO, 1 = FR-FCFS (`-gpgpu_dram_scheduler`).
    pub scheduler: u32,
    /// DRAM command clock in MHz.
    pub clock_mhz: u32,
    /// Banks per channel (`nbk`).
    pub banks: u32,
    /// Bank groups per channel (`nbkgrp`; 1 = none).
    pub bank_groups: u32,
    /// Bank-group index: 0 = the bank number's high bits, 1 = its low bits
    /// (`-dram_bnkgrp_indexing_policy`).
    pub bank_group_indexing: u32,
    /// Bytes per chip per data-bus beat (`-gpgpu_dram_buswidth`).
    pub bus_width: u32,
    /// Chips per channel (`-gpgpu_n_mem_per_ctrlr`).
    pub chips: u32,
    /// Data beats per burst (`-gpgpu_dram_burst_length`).
    pub burst_length: u32,
    /// Data beats per command clock (`-dram_data_command_freq_ratio`).
    pub data_command_ratio: u32,
    /// Column to column, any bank (`tCCD`).
    pub t_ccd: u32,
    /// Column to column, same bank group (`tCCDL`).
    pub t_ccdl: u32,
    /// Activate to activate, different banks (`tRRD`).
    pub t_rrd: u32,
    /// Activate to read (`tRCD`).
    pub t_rcd: u32,
    /// Activate to precharge (`tRAS`).
    pub t_ras: u32,
    /// Precharge to activate (`tRP`).
    pub t_rp: u32,
    /// Activate to activate, same bank (`tRC`).
    pub t_rc: u32,
    /// Read (CAS) latency (`CL`).
    pub cl: u32,
    /// Write latency (`WL`).
    pub wl: u32,
    /// Last write data to read command (`tCDLR`).
    pub t_cdlr: u32,
    /// Last write data to precharge (`tWR`).
    pub t_wr: u32,
    /// Read to precharge, same bank group (`tRTPL`).
    pub t_rtpl: u32,
    /// First address bit of the channel number (`dramid@N`): the channel
    /// is (address >> N) mod channels, removed from the address before the
    /// masks below apply.
    pub channel_bit: u32,
    /// Address bits of the bank number (the `B`s of
    /// `-gpgpu_mem_addr_mapping`), low bit first; the lowest ones also pick
    /// the L2 slice within the channel.
    pub bank_mask: u64,
    /// Address bits of the row (the `R`s).
    pub row_mask: u64,
    /// Address bits of the column (the `C`s and `S`s).
    pub col_mask: u64,
}

/// Policy parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedConfig {
    /// Active-set size of `two-level`.
    pub two_level_active: u32,
    /// CCWS: a warp's base lost-locality score.
    pub ccws_base_score: u32,
    /// CCWS: `KThrottle`, the scale of a victim-tag hit's score increase.
    pub ccws_k_throttle: u32,
    /// CCWS: points a score above the base loses per cycle.
    pub ccws_decay: u32,
    /// Victim tags per warp (CCWS, DAWS and the `vta_hits` statistic).
    pub vta_entries: u32,
    /// Victim-tag associativity.
    pub vta_ways: u32,
    /// DAWS: `kAssocFactor` in percent (`EffCacheSize` = this % of the
    /// L1D's lines).
    pub daws_assoc_percent: u32,
    /// DAWS: intra-loop repetition detector entries per SM.
    pub daws_ilrd_entries: u32,
    /// DAWS: intra-loop repetition detector associativity.
    pub daws_ilrd_ways: u32,
}

/// Work-group synchronization (the `--sync` policies, AWG ISCA 2020 §IV–§V):
/// SyncMon geometry, the command processor, context switching and the
/// oversubscription event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncConfig {
    /// SyncMon condition-cache sets (AWG §V.C: 256).
    pub syncmon_sets: u32,
    /// SyncMon condition-cache ways (AWG §V.C: 4).
    pub syncmon_ways: u32,
    /// Waiting-WG list entries shared by the conditions (AWG §V.C: 512).
    pub syncmon_wg_entries: u32,
    /// Monitor Log entries (in memory); a waiter that finds it full does
    /// not wait (its WG retries, Mesa semantics).
    pub monitor_log_entries: u32,
    /// Counting Bloom filters, one per monitored address (AWG §V.C: 512).
    pub bloom_filters: u32,
    /// Counters per Bloom filter (AWG §V.C: 24).
    pub bloom_bits: u32,
    /// Hash functions per Bloom filter (AWG §V.C: 6).
    pub bloom_hashes: u32,
    /// Cycles from the SyncMon's decision (a write meeting a condition, a
    /// failed wait) to the WG's CU acting on it.
    pub syncmon_latency: u32,
    /// `sleep:MAX`: the first sleep interval, doubled per failed wait.
    pub sleep_initial: u32,
    /// MonNR-One and AWG: a waiter no condition event resumed resumes
    /// after this many cycles.
    pub resume_timeout: u64,
    /// Cycles between the command processor's scans of the Monitor Log.
    pub cp_scan_interval: u64,
    /// Cycles the command processor and dispatcher spend to start a WG
    /// context save or restore (besides the traffic).
    pub context_switch_latency: u32,
    /// Context bytes per wavefront besides its vector registers and the
    /// WG's shared memory (scalar registers, PC, masks, SIMT stack).
    pub wavefront_state_bytes: u32,
    /// Cycle at which `remove_sms` SMs (the highest ids) leave the kernel
    /// and their WGs are context-switched out (0: never).
    pub remove_sms_at: u64,
    /// SMs the event at `remove_sms_at` removes.
    pub remove_sms: u32,
    /// Cycle at which the removed SMs come back (0: never).
    pub return_sms_at: u64,
}

/// Simulation controls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Jump over cycles in which nothing can change (never changes results).
    pub idle_skip: bool,
    /// Stop with an error after this many cycles per launch.
    pub max_cycles: u64,
    /// Stop with an error when no warp exits and no CTA retires for this
    /// many cycles (a livelock).
    pub progress_window: u64,
    /// Stop with an error after this many warp instructions per launch
    /// (timing and functional runs).
    pub max_insts: u64,
    /// Address of the host's first device allocation, a multiple of 256;
    /// 0: right after the module's variables. GPGPU-Sim's `cudaMalloc`
    /// starts at `0xC0000000` (`GLOBAL_HEAP_START`).
    pub alloc_base: u64,
    /// Unmapped bytes after each device allocation before the next one
    /// (rounded up to 256 bytes) starts; 0: consecutive, as GPGPU-Sim's
    /// `cudaMalloc` (which rounds each size up to 256 bytes).
    pub alloc_guard: u32,
}

impl SimConfig {
    /// Where the host's allocations go.
    pub fn alloc_layout(&self) -> crate::func::memory::AllocLayout {
        crate::func::memory::AllocLayout {
            base: self.alloc_base,
            guard: u64::from(self.alloc_guard),
        }
    }
}

impl GpuConfig {
    /// A shipped preset by name (see [`PRESETS`]), parsed from its embedded
    /// TOML file; `None` for an unknown name.
    pub fn preset(name: &str) -> Option<GpuConfig> {
        toml::from_str(preset_text(name)?).ok()
    }

    /// The GTX480 preset (GPGPU-Sim's tested configuration; DESIGN §4).
    /// Equal to `presets/gtx480.toml` (a test checks); built in Rust so it
    /// cannot fail.
    pub fn gtx480() -> GpuConfig {
        GpuConfig {
            core: CoreConfig {
                num_sms: 15,
                warp_size: 32,
                max_warps_per_sm: 48,
                max_threads_per_sm: 1536,
                max_ctas_per_sm: 8,
                registers_per_sm: 32768,
                reg_alloc_unit: 4,
                local_mem_map: true,
                accesses_descending: true,
                default_regs_per_thread: 16,
                shared_mem_per_sm: 49152,
                schedulers_per_sm: 2,
                issue_width: 1,
                rotate_sched_priority: true,
                branch_redirect: true,
                contiguous_code: true,
                ibuffer_entries: 2,
                sp_units: 2,
                sfu_units: 1,
                dp_units: 0,
                barrier_latency: 1,
                clock_mhz: 700,
            },
            latency: LatencyConfig {
                int: [4, 13, 4, 5, 145],
                int_initiation: [1, 2, 2, 1, 8],
                fp32: [4, 13, 4, 5, 39],
                fp32_initiation: [1, 2, 1, 1, 4],
                fp64: [8, 19, 8, 8, 330],
                fp64_initiation: [8, 16, 8, 8, 130],
                sfu: 8,
                sfu_initiation: 8,
                control: 1,
                warp_op: 32,
                const_load: 4,
                other: 1,
            },
            opcoll: OpcollConfig {
                reg_banks: 16,
                sp_collectors: 6,
                sfu_collectors: 8,
                sp_dispatch: 2,
                sfu_dispatch: 1,
                mem_queue: 4,
                bank_by_name: false,
                unit_result_slots: true,
                predicate_banks: true,
            },
            icache: CacheConfig {
                sets: 4,
                ways: 4,
                line: 128,
                hit_latency: 2,
            },
            l1d: L1dConfig {
                sets: 32,
                ways: 4,
                line: 128,
                hit_latency: 35,
                mshrs: 64,
                mshr_merge: 8,
                miss_latency: 35,
                hash_sets: true,
                allocate_on_miss: true,
                lru_at_access: true,
                atomic_segment: 32,
                store_transactions: true,
                latency_queue: 35,
                miss_queue: 8,
                local_write_back: true,
            },
            l1t: TexCacheConfig {
                sets: 4,
                ways: 24,
                line: 128,
                hit_latency: 2,
                fifo: 128,
            },
            l1c: ConstCacheConfig {
                line: 64,
                sets: 64,
                ways: 2,
                mshrs: 2,
                mshr_merge: 32,
            },
            shared: SharedConfig {
                banks: 32,
                bank_width: 4,
                latency: 26,
            },
            icnt: IcntConfig {
                latency: 8,
                flit_bytes: 40,
                flits_per_cycle: 1,
                queue: 16,
                header_bytes: 8,
                reply_crossbar: true,
                reply_buffer: 137,
                request_crossbar: true,
                request_buffer: 73,
                eject_buffer: 80,
            },
            l2: L2Config {
                slices: 12,
                sets: 64,
                ways: 8,
                line: 128,
                latency: 120,
                sector_bytes: 32,
                fill_on_copy: true,
                input_queue: 64,
                rop_transfer: true,
                allocate_on_miss: true,
                lru_at_access: true,
                partial_write_miss: true,
                vector_store_first_element: true,
                half_line_alias: true,
                mshr_merge: 4,
                miss_queue: 4,
                data_port_width: 32,
            },
            dram: DramConfig {
                channels: 6,
                latency: 100,
                queue: 64,
                l2_queue: 64,
                return_queue: 116,
                scheduler: 1,
                clock_mhz: 924,
                banks: 16,
                bank_groups: 4,
                bank_group_indexing: 1,
                bus_width: 4,
                chips: 2,
                burst_length: 8,
                data_command_ratio: 4,
                t_ccd: 2,
                t_ccdl: 3,
                t_rrd: 6,
                t_rcd: 12,
                t_ras: 28,
                t_rp: 12,
                t_rc: 40,
                cl: 12,
                wl: 4,
                t_cdlr: 5,
                t_wr: 12,
                t_rtpl: 2,
                channel_bit: 8,
                bank_mask: 0xE100,
                row_mask: 0x0FFF_0000,
                col_mask: 0x1EFF,
            },
            sched: SchedConfig {
                two_level_active: 8,
                ccws_base_score: 100,
                ccws_k_throttle: 8,
                ccws_decay: 1,
                vta_entries: 16,
                vta_ways: 8,
                daws_assoc_percent: 60,
                daws_ilrd_entries: 64,
                daws_ilrd_ways: 8,
            },
            sync: SyncConfig {
                syncmon_sets: 256,
                syncmon_ways: 4,
                syncmon_wg_entries: 512,
                monitor_log_entries: 4096,
                bloom_filters: 512,
                bloom_bits: 24,
                bloom_hashes: 6,
                syncmon_latency: 8,
                sleep_initial: 64,
                resume_timeout: 10_000,
                cp_scan_interval: 10_000,
                context_switch_latency: 100,
                wavefront_state_bytes: 512,
                remove_sms_at: 0,
                remove_sms: 0,
                return_sms_at: 0,
            },
            sim: SimConfig {
                idle_skip: true,
                max_cycles: 2_000_000_000,
                progress_window: 20_000_000,
                max_insts: 2_000_000_000,
                alloc_base: 0xC000_0000,
                alloc_guard: 0,
            },
        }
    }

    /// The `tiny` preset for fast tests: one SM, 16 warp slots, small caches.
    /// Equal to `presets/tiny.toml` (a test checks).
    pub fn tiny() -> GpuConfig {
        let mut c = GpuConfig::gtx480();
        c.core.num_sms = 1;
        c.core.max_warps_per_sm = 16;
        c.core.max_threads_per_sm = 512;
        c.core.schedulers_per_sm = 1;
        c.core.reg_alloc_unit = 1; // occupancy from the exact register count
        c.core.local_mem_map = false; // each warp's local words in their own block
        c.l1d.local_write_back = false; // local stores write through
        c.l1d.sets = 8; // 8 × 4 × 128 B = 4 KB
        c.l1d.hash_sets = false; // the Fermi hash needs 32 or 64 sets
        c.l2.slices = 2;
        c.l2.sets = 64; // 2 × 64 × 4 × 128 B = 64 KB
        c.l2.ways = 4;
        c.dram.channels = 1;
        c.l1t.sets = 0; // no texture cache: tex fetches go through the L1D
        // The six GPGPU-Sim mechanisms `gtx480` turned on in session 16
        // stay off: the tests' analytic counts were made without them.
        c.core.rotate_sched_priority = false;
        c.core.branch_redirect = false;
        c.core.contiguous_code = false;
        c.opcoll.unit_result_slots = false;
        c.opcoll.predicate_banks = false;
        c.l2.rop_transfer = false;
        c.l2.allocate_on_miss = false;
        c.l2.lru_at_access = false;
        c.l1d.lru_at_access = false;
        c.core.accesses_descending = false;
        c.l2.partial_write_miss = false;
        c.l2.vector_store_first_element = false;
        c.l2.half_line_alias = false;
        c.l2.mshr_merge = 0;
        c.l2.miss_queue = 0;
        c.l1d.store_transactions = false;
        // Buffers after the module's variables with 256-byte guards
        // (overruns are errors), as before `sim.alloc_base` existed.
        c.sim.alloc_base = 0;
        c.sim.alloc_guard = 256;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_name_has_a_description_and_text_and_loads() {
        let table: Vec<&str> = PRESET_TABLE.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(table, PRESETS, "PRESET_TABLE and PRESETS disagree");
        for (name, desc, text) in PRESET_TABLE {
            assert!(!desc.trim().is_empty() && !desc.contains('\n'), "{name}");
            assert_eq!(preset_text(name), Some(*text));
            assert_eq!(preset_description(name), Some(*desc));
            // The text's header names the preset it is.
            assert!(text.starts_with(&format!("# {name}: ")), "{name}");
            assert!(GpuConfig::preset(name).is_some(), "{name} does not parse");
        }
        assert_eq!(preset_text("gtx-480"), None);
        assert_eq!(preset_description(""), None);
    }
}
