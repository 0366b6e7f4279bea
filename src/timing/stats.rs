//! What a timed run counts. Field names are stable: they are the JSON keys
//! (`--json`), documented in the README.

use serde::Serialize;

use crate::timing::barrier_stats::BarrierStats;
use crate::timing::memsys::MemStats;

/// Why a scheduler did (or did not) issue in a cycle, and the per-warp
/// state in a cycle (DESIGN §3 "Stall accounting").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stall {
    /// An instruction issued.
    Issued,
    /// The warp's I-buffer is empty after a taken branch or reconvergence
    /// (control hazard).
    Control,
    /// A source or destination register has a pending write (scoreboard).
    Data,
    /// The functional unit, the LD/ST unit (bank conflicts, MSHRs,
    /// interconnect) is busy.
    Structural,
    /// Waiting at a CTA barrier (or for its release latency).
    Barrier,
    /// The warp has exited; its CTA has not.
    Exit,
    /// The I-buffer is empty or its next instruction has not arrived
    /// (I-cache hit latency or miss).
    Fetch,
    /// The issue policy forbids the warp to issue.
    Throttled,
    /// Sleeping (`nanosleep`) or waiting on a waiting atomic.
    SyncWait,
    /// No warp is assigned to the scheduler.
    Idle,
}

impl Stall {
    /// Every category, in the order of the JSON fields.
    pub const ALL: [Stall; 10] = [
        Stall::Issued,
        Stall::Control,
        Stall::Data,
        Stall::Structural,
        Stall::Barrier,
        Stall::Exit,
        Stall::Fetch,
        Stall::Throttled,
        Stall::SyncWait,
        Stall::Idle,
    ];

    /// The JSON / table name.
    pub fn name(self) -> &'static str {
        match self {
            Stall::Issued => "issued",
            Stall::Control => "control",
            Stall::Data => "data",
            Stall::Structural => "structural",
            Stall::Barrier => "barrier",
            Stall::Exit => "exit",
            Stall::Fetch => "fetch",
            Stall::Throttled => "throttled",
            Stall::SyncWait => "sync_wait",
            Stall::Idle => "idle",
        }
    }
}

/// Cycles per category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StallCounts {
    /// See [`Stall::Issued`].
    pub issued: u64,
    /// See [`Stall::Control`].
    pub control: u64,
    /// See [`Stall::Data`].
    pub data: u64,
    /// See [`Stall::Structural`].
    pub structural: u64,
    /// See [`Stall::Barrier`].
    pub barrier: u64,
    /// See [`Stall::Exit`].
    pub exit: u64,
    /// See [`Stall::Fetch`].
    pub fetch: u64,
    /// See [`Stall::Throttled`].
    pub throttled: u64,
    /// See [`Stall::SyncWait`].
    pub sync_wait: u64,
    /// See [`Stall::Idle`].
    pub idle: u64,
}

impl StallCounts {
    /// Adds `n` cycles to category `s`.
    pub fn add(&mut self, s: Stall, n: u64) {
        *self.get_mut(s) += n;
    }

    fn get_mut(&mut self, s: Stall) -> &mut u64 {
        match s {
            Stall::Issued => &mut self.issued,
            Stall::Control => &mut self.control,
            Stall::Data => &mut self.data,
            Stall::Structural => &mut self.structural,
            Stall::Barrier => &mut self.barrier,
            Stall::Exit => &mut self.exit,
            Stall::Fetch => &mut self.fetch,
            Stall::Throttled => &mut self.throttled,
            Stall::SyncWait => &mut self.sync_wait,
            Stall::Idle => &mut self.idle,
        }
    }

    /// The count of category `s`.
    pub fn get(&self, s: Stall) -> u64 {
        let mut c = *self;
        *c.get_mut(s)
    }

    /// Sum over categories.
    pub fn total(&self) -> u64 {
        Stall::ALL.iter().map(|&s| self.get(s)).sum()
    }

    /// The counts since snapshot `before`.
    pub fn since(&self, before: &StallCounts) -> StallCounts {
        let mut d = StallCounts::default();
        for s in Stall::ALL {
            d.add(s, self.get(s) - before.get(s));
        }
        d
    }

    /// Adds another set of counts.
    pub fn merge(&mut self, o: &StallCounts) {
        for s in Stall::ALL {
            self.add(s, o.get(s));
        }
    }
}

/// L1 data-cache counters of one SM (or summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct L1dStats {
    /// Line requests of global/local loads looked up.
    pub accesses: u64,
    /// Hits on a line brought by the same warp.
    pub intra_warp_hits: u64,
    /// Hits on a line brought by another warp.
    pub inter_warp_hits: u64,
    /// Misses merged into an outstanding MSHR for the same line.
    pub mshr_merges: u64,
    /// Misses sent to L2.
    pub misses: u64,
    /// Misses (sent to L2) whose line was in the missing warp's victim
    /// tags: lost intra-warp locality (DAWS Fig. 11).
    pub vta_hits: u64,
    /// Lines evicted by fills.
    pub evictions: u64,
    /// Lines invalidated by global stores.
    pub write_evictions: u64,
    /// Store line requests (written through to L2, or, local ones with
    /// `l1d.local_write_back`, kept in a line they hit).
    pub stores: u64,
    /// Local store requests that hit their line and stayed in the L1D
    /// (`l1d.local_write_back`).
    pub local_write_hits: u64,
    /// Dirty lines written back to L2 when evicted.
    pub writebacks: u64,
    /// Cycles the LD/ST unit waited for a free MSHR.
    pub mshr_full: u64,
    /// Cycles the LD/ST unit waited for the interconnect port.
    pub icnt_stall: u64,
}

impl L1dStats {
    /// The counts since snapshot `before`.
    pub fn since(&self, b: &L1dStats) -> L1dStats {
        L1dStats {
            accesses: self.accesses - b.accesses,
            intra_warp_hits: self.intra_warp_hits - b.intra_warp_hits,
            inter_warp_hits: self.inter_warp_hits - b.inter_warp_hits,
            mshr_merges: self.mshr_merges - b.mshr_merges,
            misses: self.misses - b.misses,
            vta_hits: self.vta_hits - b.vta_hits,
            evictions: self.evictions - b.evictions,
            write_evictions: self.write_evictions - b.write_evictions,
            stores: self.stores - b.stores,
            local_write_hits: self.local_write_hits - b.local_write_hits,
            writebacks: self.writebacks - b.writebacks,
            mshr_full: self.mshr_full - b.mshr_full,
            icnt_stall: self.icnt_stall - b.icnt_stall,
        }
    }

    fn merge(&mut self, o: &L1dStats) {
        self.accesses += o.accesses;
        self.intra_warp_hits += o.intra_warp_hits;
        self.inter_warp_hits += o.inter_warp_hits;
        self.mshr_merges += o.mshr_merges;
        self.misses += o.misses;
        self.vta_hits += o.vta_hits;
        self.evictions += o.evictions;
        self.write_evictions += o.write_evictions;
        self.stores += o.stores;
        self.local_write_hits += o.local_write_hits;
        self.writebacks += o.writebacks;
        self.mshr_full += o.mshr_full;
        self.icnt_stall += o.icnt_stall;
    }
}

/// Counters of one SM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SmStats {
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Thread instructions (lanes that executed).
    pub thread_insts: u64,
    /// Warp instructions that are long operations in the LFWS paper's
    /// sense: `ld`/`st` to global or local memory, texture fetches (its
    /// Table 2 share is `long_ops / warp_insts`).
    pub long_ops: u64,
    /// CTAs run to completion.
    pub ctas: u64,
    /// Scheduler-cycles by category (summed over the SM's schedulers).
    pub stalls: StallCounts,
    /// Warp-cycles by state, summed over the warps resident on the SM
    /// (`issued` here counts cycles a warp issued; a ready warp that was
    /// not picked is counted in `ready`).
    pub warp_states: StallCounts,
    /// Warp-cycles a warp could have issued but another warp was picked.
    pub warp_ready: u64,
    /// L1D counters.
    pub l1d: L1dStats,
    /// Texture-cache line requests looked up (`l1t.sets` > 0; texture
    /// fetches are L1D loads without a texture cache).
    pub tex_accesses: u64,
    /// Texture-cache misses (line reads sent to L2).
    pub tex_misses: u64,
    /// Cycles the LD/ST unit waited for room in the texture cache's FIFO
    /// or for the interconnect to take a texture miss.
    pub tex_stall: u64,
    /// Constant-cache line requests looked up (`l1c.sets` > 0; one per
    /// distinct `l1c.line` of a `.const`/`.param` load).
    pub l1c_accesses: u64,
    /// Constant-cache misses (line reads sent to L2; requests merged into
    /// a miss in flight are neither hits nor misses).
    pub l1c_misses: u64,
    /// Constant-cache requests merged into a miss in flight.
    pub l1c_merges: u64,
    /// Cycles the LD/ST unit waited for a constant-cache MSHR or for the
    /// interconnect to take a constant-cache miss.
    pub l1c_stall: u64,
    /// I-cache hits.
    pub icache_hits: u64,
    /// I-cache misses.
    pub icache_misses: u64,
    /// I-buffer flushes (taken branches, reconvergence).
    pub ibuffer_flushes: u64,
    /// Shared-memory instructions.
    pub shared_accesses: u64,
    /// Extra LD/ST cycles spent on shared-memory bank conflicts.
    pub bank_conflict_cycles: u64,
    /// Scheduler-cycles by core activity (DAWS Fig. 12).
    pub activity: ActivityCounts,
    /// Warp instructions by active lanes, in eighths of the warp:
    /// `[0]` = 0–4 of 32 lanes, `[1]` = 5–8, …, `[7]` = 29–32 (DAWS Fig. 9).
    pub lane_histogram: [u64; 8],
}

impl SmStats {
    /// The counts since snapshot `before` (taken from the same counters).
    pub fn since(&self, b: &SmStats) -> SmStats {
        let mut lane_histogram = self.lane_histogram;
        for (a, x) in lane_histogram.iter_mut().zip(b.lane_histogram) {
            *a -= x;
        }
        SmStats {
            warp_insts: self.warp_insts - b.warp_insts,
            thread_insts: self.thread_insts - b.thread_insts,
            long_ops: self.long_ops - b.long_ops,
            ctas: self.ctas - b.ctas,
            stalls: self.stalls.since(&b.stalls),
            warp_states: self.warp_states.since(&b.warp_states),
            warp_ready: self.warp_ready - b.warp_ready,
            l1d: self.l1d.since(&b.l1d),
            tex_accesses: self.tex_accesses - b.tex_accesses,
            tex_misses: self.tex_misses - b.tex_misses,
            tex_stall: self.tex_stall - b.tex_stall,
            l1c_accesses: self.l1c_accesses - b.l1c_accesses,
            l1c_misses: self.l1c_misses - b.l1c_misses,
            l1c_merges: self.l1c_merges - b.l1c_merges,
            l1c_stall: self.l1c_stall - b.l1c_stall,
            icache_hits: self.icache_hits - b.icache_hits,
            icache_misses: self.icache_misses - b.icache_misses,
            ibuffer_flushes: self.ibuffer_flushes - b.ibuffer_flushes,
            shared_accesses: self.shared_accesses - b.shared_accesses,
            bank_conflict_cycles: self.bank_conflict_cycles - b.bank_conflict_cycles,
            activity: ActivityCounts {
                issue: self.activity.issue - b.activity.issue,
                no_ready: self.activity.no_ready - b.activity.no_ready,
                throttled: self.activity.throttled - b.activity.throttled,
            },
            lane_histogram,
        }
    }

    /// Adds another SM's counters.
    pub fn merge(&mut self, o: &SmStats) {
        self.warp_insts += o.warp_insts;
        self.thread_insts += o.thread_insts;
        self.long_ops += o.long_ops;
        self.ctas += o.ctas;
        self.stalls.merge(&o.stalls);
        self.warp_states.merge(&o.warp_states);
        self.warp_ready += o.warp_ready;
        self.l1d.merge(&o.l1d);
        self.tex_accesses += o.tex_accesses;
        self.tex_misses += o.tex_misses;
        self.tex_stall += o.tex_stall;
        self.l1c_accesses += o.l1c_accesses;
        self.l1c_misses += o.l1c_misses;
        self.l1c_merges += o.l1c_merges;
        self.l1c_stall += o.l1c_stall;
        self.activity.issue += o.activity.issue;
        self.activity.no_ready += o.activity.no_ready;
        self.activity.throttled += o.activity.throttled;
        for (a, b) in self.lane_histogram.iter_mut().zip(o.lane_histogram) {
            *a += b;
        }
        self.icache_hits += o.icache_hits;
        self.icache_misses += o.icache_misses;
        self.ibuffer_flushes += o.ibuffer_flushes;
        self.shared_accesses += o.shared_accesses;
        self.bank_conflict_cycles += o.bank_conflict_cycles;
    }
}

/// Scheduler-cycles by core activity, as DAWS Fig. 12 breaks them down:
/// an instruction issued; no warp could issue; or nothing issued although
/// a warp could have, had the policy not throttled it. Sums to
/// schedulers × cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ActivityCounts {
    /// An instruction issued.
    pub issue: u64,
    /// No warp was ready (and none was throttled).
    pub no_ready: u64,
    /// Nothing issued, but a throttled warp was otherwise ready.
    pub throttled: u64,
}

/// Figures of the DAWS paper's evaluation (§7.1), derived from the
/// counters: per thousand warp instructions (Figs. 10–11), the time warps
/// were kept from loading, core activity (Fig. 12) and lane activity
/// (Fig. 9).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LocalityStats {
    /// L1D misses (sent to L2) per thousand warp instructions.
    pub l1d_misses_pki: f64,
    /// L1D hits on the warp's own lines per thousand warp instructions.
    pub intra_warp_hits_pki: f64,
    /// L1D hits on other warps' lines per thousand warp instructions.
    pub inter_warp_hits_pki: f64,
    /// Victim-tag hits (lost intra-warp locality) per thousand warp
    /// instructions.
    pub vta_hits_pki: f64,
    /// Warp-cycles warps spent throttled (summed over warps).
    pub throttled_warp_cycles: u64,
    /// Scheduler-cycles by core activity.
    pub activity: ActivityCounts,
    /// Fraction of warp instructions per lane-activity bin
    /// (`total.lane_histogram` normalized).
    pub lane_fractions: [f64; 8],
}

impl LocalityStats {
    /// Derives the figures from an SM total.
    pub fn of(t: &SmStats) -> LocalityStats {
        let k = t.warp_insts.max(1) as f64 / 1000.0;
        let n: u64 = t.lane_histogram.iter().sum();
        let mut lane_fractions = [0.0; 8];
        for (f, &c) in lane_fractions.iter_mut().zip(&t.lane_histogram) {
            *f = c as f64 / n.max(1) as f64;
        }
        LocalityStats {
            l1d_misses_pki: t.l1d.misses as f64 / k,
            intra_warp_hits_pki: t.l1d.intra_warp_hits as f64 / k,
            inter_warp_hits_pki: t.l1d.inter_warp_hits as f64 / k,
            vta_hits_pki: t.l1d.vta_hits as f64 / k,
            throttled_warp_cycles: t.warp_states.throttled,
            activity: t.activity,
            lane_fractions,
        }
    }
}

/// Cycles one warp spent in each state, from its CTA's assignment to its
/// retirement (DESIGN §3: the per-warp counters BLWS uses).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WarpRecord {
    /// Launch index (0-based, in launch order).
    pub launch: u32,
    /// SM.
    pub sm: u32,
    /// CTA index.
    pub cta: [u32; 3],
    /// Warp within the CTA.
    pub warp: u32,
    /// First cycle it existed (the cycle after its CTA's assignment).
    pub start: u64,
    /// Cycle after its CTA retired.
    pub end: u64,
    /// Instructions it issued.
    pub insts: u64,
    /// Cycles per state (`issued` = cycles it issued).
    pub states: StallCounts,
    /// Cycles it could have issued but another warp was picked.
    pub ready: u64,
    /// The cycle each of its warp-phases ended: its arrival at each
    /// barrier, then its exit (BAWS §3).
    pub phase_ends: Vec<u64>,
    /// Cycles it waited at barriers (each arrival to its release).
    pub barrier_wait: u64,
    /// `barrier_wait` over its life from `start` to its exit: its share in
    /// the kernel's barrier intensity.
    pub barrier_fraction: f64,
}

/// One kernel launch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LaunchStats {
    /// Kernel name.
    pub kernel: String,
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Cycles from the first CTA assignment to the last CTA's retirement.
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Thread instructions executed.
    pub thread_insts: u64,
    /// CTAs run.
    pub ctas: u64,
    /// Bytes of dynamic shared memory per CTA.
    pub shared_bytes: u32,
    /// Registers per thread occupancy was computed with.
    pub regs_per_thread: u32,
    /// Where that number came from: `manifest`, `maxnreg` or `estimate`
    /// (empty when the launch was run directly on a [`crate::timing::Gpu`]).
    pub regs_source: String,
    /// Scheduler-cycles by category during this launch.
    pub stalls: StallCounts,
    /// L1D line requests of global/local loads.
    pub l1d_accesses: u64,
    /// L1D hits (intra- plus inter-warp).
    pub l1d_hits: u64,
    /// L1D misses sent to L2.
    pub l1d_misses: u64,
    /// L2 tag lookups.
    pub l2_accesses: u64,
    /// L2 hits.
    pub l2_hits: u64,
    /// L2 misses.
    pub l2_misses: u64,
    /// DRAM line reads.
    pub dram_reads: u64,
    /// DRAM line writes.
    pub dram_writes: u64,
    /// Shared-memory instructions.
    pub shared_accesses: u64,
    /// Barrier phases, RTRU and barrier intensity of this launch.
    pub barriers: BarrierStats,
    /// Warp instructions per cycle during this launch (whole GPU).
    pub ipc: f64,
    /// Thread instructions per cycle during this launch.
    pub thread_ipc: f64,
    /// Every SM counter of this launch, summed over the SMs (the shape of
    /// [`Stats::total`]).
    pub total: SmStats,
    /// The DAWS paper's figures derived from this launch's `total`.
    pub locality: LocalityStats,
    /// Memory-system counters of this launch.
    pub mem: MemStats,
    /// Per instruction of the kernel: issues, stall cycles by category,
    /// L1D outcomes and memory latency ([`crate::timing::pc_stats`]).
    pub pcs: Vec<crate::timing::pc_stats::PcStats>,
}

/// Everything a timed run reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Issue policy name.
    pub sched: String,
    /// Fetch policy name.
    pub fetch: String,
    /// Cycles summed over launches.
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Thread instructions executed.
    pub thread_insts: u64,
    /// Warp instructions per cycle (whole GPU).
    pub ipc: f64,
    /// Thread instructions per cycle (whole GPU).
    pub thread_ipc: f64,
    /// Schedulers per SM × SMs: `stalls` sums to this × `cycles`.
    pub schedulers: u64,
    /// Scheduler-cycles by category, all SMs.
    pub stalls: StallCounts,
    /// All SMs' counters summed.
    pub total: SmStats,
    /// The DAWS paper's figures derived from `total`.
    pub locality: LocalityStats,
    /// Barrier phases, RTRU and barrier intensity over every launch (the
    /// phases of all launches pooled).
    pub barriers: BarrierStats,
    /// Memory-system counters.
    pub mem: MemStats,
    /// Per launch.
    pub launches: Vec<LaunchStats>,
    /// The time series (`--sample N`), when recorded.
    pub samples: Option<crate::timing::sampling::Samples>,
    /// Per SM.
    pub sms: Vec<SmStats>,
    /// Per warp, in retirement order: the first
    /// [`MAX_WARP_RECORDS_PER_SM`] warps each SM retires (memory stays
    /// bounded however many CTAs a grid has).
    pub warps: Vec<WarpRecord>,
    /// Retired warps beyond [`MAX_WARP_RECORDS_PER_SM`] per SM, counted
    /// but not listed in `warps`.
    pub warps_omitted: u64,
    /// Work-group synchronization (`--sync`): waits, resumes, SyncMon,
    /// context switches, per-WG running and waiting cycles.
    pub sync: crate::timing::wg_sync::SyncStats,
}

/// Retired warps whose [`WarpRecord`] an SM keeps; later ones are only
/// counted ([`Stats::warps_omitted`]).
pub const MAX_WARP_RECORDS_PER_SM: usize = 8192;
