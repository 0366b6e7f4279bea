//! The parts of a run's JSON (`gpusim run --json F`, docs/cli.md) that the
//! charts and the HTML report read: totals, launches with their per-PC
//! statistics (`pcs`) and the time series (`samples`). Fields the file
//! lacks read as zero / empty, so older files still plot what they have.

use serde::Deserialize;

use super::PlotError;

/// Scheduler-cycles (or warp-cycles) per stall category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[allow(missing_docs)]
pub struct StallsJson {
    pub issued: u64,
    pub control: u64,
    pub data: u64,
    pub structural: u64,
    pub barrier: u64,
    pub exit: u64,
    pub fetch: u64,
    pub throttled: u64,
    pub sync_wait: u64,
    pub idle: u64,
}

impl StallsJson {
    /// The counts in [`crate::timing::Stall::ALL`] order.
    pub fn to_array(&self) -> [u64; 10] {
        [
            self.issued,
            self.control,
            self.data,
            self.structural,
            self.barrier,
            self.exit,
            self.fetch,
            self.throttled,
            self.sync_wait,
            self.idle,
        ]
    }
}

/// A whole run: `gpusim run --json` output.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct RunJson {
    /// Issue policy.
    pub sched: String,
    /// Fetch policy.
    pub fetch: String,
    /// `pass` / `fail` / …: the functional check.
    pub check: Option<String>,
    /// Cycles of all launches.
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Warp instructions per cycle.
    pub ipc: f64,
    /// Warp schedulers of the machine.
    pub schedulers: u64,
    /// Scheduler-cycles per stall category, over all launches.
    pub stalls: StallsJson,
    /// The SM counters summed over SMs.
    pub total: TotalJson,
    /// Memory-system counters.
    pub mem: MemJson,
    /// One entry per kernel launch.
    pub launches: Vec<LaunchJson>,
    /// The time series (`--sample N`), absent without it.
    pub samples: Option<SamplesJson>,
}

/// The SM counters summed over SMs (only what the report shows).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct TotalJson {
    /// L1 data cache counters.
    pub l1d: L1dJson,
}

/// L1D counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[allow(missing_docs)]
pub struct L1dJson {
    pub accesses: u64,
    pub misses: u64,
    pub intra_warp_hits: u64,
    pub inter_warp_hits: u64,
}

impl L1dJson {
    /// Hits (intra- plus inter-warp).
    pub fn hits(&self) -> u64 {
        self.intra_warp_hits + self.inter_warp_hits
    }
}

/// Memory-system counters (only what the report shows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[allow(missing_docs)]
pub struct MemJson {
    pub l2_accesses: u64,
    pub l2_hits: u64,
    pub dram_reads: u64,
    pub dram_writes: u64,
    pub dram_bytes: u64,
}

/// One kernel launch.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
#[allow(missing_docs)]
pub struct LaunchJson {
    pub kernel: String,
    pub cycles: u64,
    pub warp_insts: u64,
    pub stalls: StallsJson,
    /// Per-PC statistics (formats.md section 1), ascending `pc`.
    pub pcs: Vec<PcJson>,
}

/// Statistics of one instruction of a launch.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
#[allow(missing_docs)]
pub struct PcJson {
    pub pc: u64,
    /// 1-based line in the `.ptx` file.
    pub line: u64,
    pub text: String,
    pub issues: u64,
    /// Warp-cycles charged to this instruction, per category.
    pub stalls: StallsJson,
    pub ready: u64,
    pub l1d_hits: u64,
    pub l1d_misses: u64,
    pub mem_insts: u64,
    pub mem_latency_avg: f64,
}

/// The time series of `--sample N` (formats.md section 2).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SamplesJson {
    /// Window length in cycles.
    pub interval: u64,
    /// One record per (window, SM), ordered by (start, sm).
    pub sms: Vec<SmSampleJson>,
    /// One record per window, GPU-wide, ordered by start.
    pub gpu: Vec<GpuSampleJson>,
}

/// One SM in one window.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
#[allow(missing_docs)]
pub struct SmSampleJson {
    pub launch: u64,
    pub sm: u64,
    pub start: u64,
    pub end: u64,
    pub warp_insts: u64,
    pub ipc: f64,
    pub stalls: StallsJson,
    pub active_warps: u64,
    pub l1d_accesses: u64,
    pub l1d_misses: u64,
    pub l1d_miss_rate: f64,
}

/// The whole GPU in one window.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
#[allow(missing_docs)]
pub struct GpuSampleJson {
    pub launch: u64,
    pub start: u64,
    pub end: u64,
    pub warp_insts: u64,
    pub ipc: f64,
    pub dram_reads: u64,
    pub dram_writes: u64,
    pub dram_bytes_per_cycle: f64,
}

impl RunJson {
    /// Parses the JSON `text` of file `source`; the error names the file,
    /// line and column.
    pub fn parse(source: &str, text: &str) -> Result<RunJson, PlotError> {
        let run: RunJson = serde_json::from_str(text).map_err(|e| {
            PlotError(format!(
                "{source}: not the JSON of `gpusim run --json`: {e}"
            ))
        })?;
        if run.launches.is_empty() && run.cycles == 0 {
            return Err(PlotError(format!(
                "{source}: no `launches` and no `cycles`: not the JSON of a timed `gpusim run --json` (a --functional run has no timing)"
            )));
        }
        Ok(run)
    }

    /// The kernels of the run, each once, in launch order.
    pub fn kernels(&self) -> Vec<&str> {
        let mut ks: Vec<&str> = Vec::new();
        for l in &self.launches {
            if !ks.contains(&l.kernel.as_str()) {
                ks.push(&l.kernel);
            }
        }
        ks
    }
}
