//! The cycle-level timing model (DESIGN §3): per SM, fetch → I-buffer →
//! issue (schedulers with pluggable policies) → scoreboard → SP/SFU/DP
//! units and the LD/ST unit (coalescer, shared-memory banks, L1D with
//! MSHRs) → interconnect → L2 slices → DRAM channels; CTA barriers and a
//! round-robin CTA scheduler. It decides *when* each warp issues and calls
//! the functional core to execute the instruction at issue.

pub mod addrdec;
pub mod barrier_stats;
pub mod cache;
pub mod coalescer;
pub mod const_cache;
pub mod crossbar;
pub mod cta;
pub mod cta_residency;
pub mod dram;
pub mod event_queue;
pub mod fetch;
pub mod gpu;
pub mod host;
pub mod issue;
pub mod l1q;
pub mod ldst;
pub mod ldst_const;
pub mod ldst_tex;
pub mod memsys;
pub mod mshr_index;
pub mod opcoll;
pub mod pc_stats;
pub mod sampling;
pub mod scoreboard;
pub mod sm;
pub mod sm_sync;
pub mod stats;
pub mod sweep;
pub mod tex_cache;
pub mod timeline;
pub mod units;
pub mod victim_tags;
pub mod warp_charge;
pub mod wg_sync;

pub use gpu::Gpu;
pub use host::{
    Policies, Recording, TimedRun, TimingHost, run_timed, run_timed_recording, run_timed_timeline,
    run_timed_with,
};
pub use sm::IssueRecord;
pub use stats::{Stall, StallCounts, Stats};
