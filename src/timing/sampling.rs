//! Time series (`gpusim run --sample N`): every `N` cycles, per SM, the
//! warp instructions issued, the scheduler-cycles by stall category, the
//! resident warps and the L1D traffic of the window, and GPU-wide the DRAM
//! traffic — what AerialVision plots from GPGPU-Sim's visualizer log.
//!
//! Windows are aligned to multiples of `N` in the run's cycle count (which
//! continues across launches) and cut at each launch's end, so a launch's
//! last window may be shorter. The cycle loop stops at every window
//! boundary (idle skipping never jumps over one) and charges every SM's
//! pending cycles before the counters are read; doing so changes no
//! statistic (charging an unchanged state in two parts adds the same).

use serde::Serialize;

use crate::timing::memsys::MemStats;
use crate::timing::sm::Sm;
use crate::timing::stats::{Stall, StallCounts};

/// One window of one SM.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SmSample {
    /// Launch index.
    pub launch: u32,
    /// SM.
    pub sm: u32,
    /// First cycle of the window.
    pub start: u64,
    /// Cycle after the window.
    pub end: u64,
    /// Warp instructions issued in the window.
    pub warp_insts: u64,
    /// `warp_insts` per cycle of the window.
    pub ipc: f64,
    /// Scheduler-cycles by category in the window.
    pub stalls: StallCounts,
    /// Warps resident on the SM at `end`.
    pub active_warps: u32,
    /// L1D line requests of loads in the window.
    pub l1d_accesses: u64,
    /// Of those, misses sent to the L2.
    pub l1d_misses: u64,
    /// `l1d_misses / l1d_accesses` (0 without accesses).
    pub l1d_miss_rate: f64,
}

/// One window of the whole GPU.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuSample {
    /// Launch index.
    pub launch: u32,
    /// First cycle of the window.
    pub start: u64,
    /// Cycle after the window.
    pub end: u64,
    /// Warp instructions issued in the window, all SMs.
    pub warp_insts: u64,
    /// `warp_insts` per cycle of the window.
    pub ipc: f64,
    /// DRAM read column commands in the window.
    pub dram_reads: u64,
    /// DRAM write column commands in the window.
    pub dram_writes: u64,
    /// Bytes read from and written to DRAM in the window.
    pub dram_bytes: u64,
    /// `dram_bytes` per cycle of the window.
    pub dram_bytes_per_cycle: f64,
}

/// The time series of a run (JSON `samples`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Samples {
    /// Window length in cycles.
    pub interval: u64,
    /// Per SM, ordered by window then SM.
    pub sms: Vec<SmSample>,
    /// Per window.
    pub gpu: Vec<GpuSample>,
}

impl Samples {
    /// The `--sample-csv` table: one row per [`SmSample`], the GPU-wide
    /// DRAM figures of its window in the last columns.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "launch,sm,start,end,warp_insts,ipc,active_warps,l1d_accesses,l1d_misses,l1d_miss_rate",
        );
        for s in Stall::ALL {
            out.push(',');
            out.push_str(s.name());
        }
        out.push_str(",dram_reads,dram_writes,dram_bytes_per_cycle\n");
        let mut g = self.gpu.iter().peekable();
        for s in &self.sms {
            while g
                .peek()
                .is_some_and(|w| (w.launch, w.start) < (s.launch, s.start))
            {
                g.next();
            }
            let w = g
                .peek()
                .filter(|w| (w.launch, w.start) == (s.launch, s.start));
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{}",
                s.launch,
                s.sm,
                s.start,
                s.end,
                s.warp_insts,
                s.ipc,
                s.active_warps,
                s.l1d_accesses,
                s.l1d_misses,
                s.l1d_miss_rate
            ));
            for c in Stall::ALL {
                out.push_str(&format!(",{}", s.stalls.get(c)));
            }
            match w {
                Some(w) => out.push_str(&format!(
                    ",{},{},{}\n",
                    w.dram_reads, w.dram_writes, w.dram_bytes_per_cycle
                )),
                None => out.push_str(",,,\n"),
            }
        }
        out
    }
}

/// The counters of one SM at the last window boundary.
#[derive(Clone, Copy, Debug, Default)]
struct SmSnapshot {
    warp_insts: u64,
    stalls: StallCounts,
    l1d_accesses: u64,
    l1d_misses: u64,
}

impl SmSnapshot {
    fn of(sm: &Sm) -> SmSnapshot {
        SmSnapshot {
            warp_insts: sm.stats.warp_insts,
            stalls: sm.stats.stalls,
            l1d_accesses: sm.stats.l1d.accesses,
            l1d_misses: sm.stats.l1d.misses,
        }
    }
}

/// Records the windows of a run.
#[derive(Clone, Debug)]
pub struct Sampler {
    /// The windows so far.
    pub samples: Samples,
    /// The next window boundary.
    next: u64,
    /// The current window's first cycle.
    start: u64,
    /// The current launch.
    launch: u32,
    sms: Vec<SmSnapshot>,
    mem: MemStats,
}

impl Sampler {
    /// A sampler with windows of `interval` cycles (at least 1).
    pub fn new(interval: u64) -> Sampler {
        let interval = interval.max(1);
        Sampler {
            samples: Samples {
                interval,
                ..Samples::default()
            },
            next: interval,
            start: 0,
            launch: 0,
            sms: Vec::new(),
            mem: MemStats::default(),
        }
    }

    /// The next cycle the cycle loop must stop at.
    pub fn next_boundary(&self) -> u64 {
        self.next
    }

    /// Starts launch `launch` at cycle `now`: the first window begins.
    pub fn start_launch(&mut self, launch: u32, now: u64, sms: &[Sm], mem: &MemStats) {
        self.launch = launch;
        self.start = now;
        let i = self.samples.interval;
        self.next = (now / i + 1) * i;
        self.snapshot(sms, mem);
    }

    /// Ends the current window at cycle `now` (every SM's cycles charged up
    /// to `now`), if it is not empty, and starts the next one.
    pub fn end_window(&mut self, now: u64, sms: &[Sm], mem: &MemStats) {
        if now > self.start {
            let cycles = (now - self.start) as f64;
            let mut total = 0;
            for (sm, before) in sms.iter().zip(&self.sms) {
                let after = SmSnapshot::of(sm);
                let warp_insts = after.warp_insts - before.warp_insts;
                total += warp_insts;
                let l1d_accesses = after.l1d_accesses - before.l1d_accesses;
                let l1d_misses = after.l1d_misses - before.l1d_misses;
                self.samples.sms.push(SmSample {
                    launch: self.launch,
                    sm: sm.id,
                    start: self.start,
                    end: now,
                    warp_insts,
                    ipc: warp_insts as f64 / cycles,
                    stalls: after.stalls.since(&before.stalls),
                    active_warps: sm.live_slots.len() as u32,
                    l1d_accesses,
                    l1d_misses,
                    l1d_miss_rate: if l1d_accesses == 0 {
                        0.0
                    } else {
                        l1d_misses as f64 / l1d_accesses as f64
                    },
                });
            }
            let d = mem.since(&self.mem);
            self.samples.gpu.push(GpuSample {
                launch: self.launch,
                start: self.start,
                end: now,
                warp_insts: total,
                ipc: total as f64 / cycles,
                dram_reads: d.dram_reads,
                dram_writes: d.dram_writes,
                dram_bytes: d.dram_bytes,
                dram_bytes_per_cycle: d.dram_bytes as f64 / cycles,
            });
        }
        self.start = now;
        let i = self.samples.interval;
        self.next = (now / i + 1) * i;
        self.snapshot(sms, mem);
    }

    fn snapshot(&mut self, sms: &[Sm], mem: &MemStats) {
        self.sms.clear();
        self.sms.extend(sms.iter().map(SmSnapshot::of));
        self.mem = mem.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_carry_their_windows_dram() {
        let mut s = Samples {
            interval: 10,
            ..Samples::default()
        };
        for (start, end) in [(0, 10), (10, 13)] {
            for sm in 0..2 {
                s.sms.push(SmSample {
                    launch: 0,
                    sm,
                    start,
                    end,
                    warp_insts: 5,
                    ipc: 5.0 / (end - start) as f64,
                    stalls: StallCounts {
                        data: 3,
                        ..StallCounts::default()
                    },
                    active_warps: 4,
                    l1d_accesses: 4,
                    l1d_misses: 1,
                    l1d_miss_rate: 0.25,
                });
            }
            s.gpu.push(GpuSample {
                launch: 0,
                start,
                end,
                warp_insts: 10,
                ipc: 10.0 / (end - start) as f64,
                dram_reads: start,
                dram_writes: 1,
                dram_bytes: 64,
                dram_bytes_per_cycle: 64.0 / (end - start) as f64,
            });
        }
        let csv = s.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 5);
        let header: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(header.len(), 23);
        assert_eq!(header[12], "data");
        let last: Vec<&str> = lines[4].split(',').collect();
        assert_eq!(&last[..4], ["0", "1", "10", "13"]);
        assert_eq!(last[12], "3");
        assert_eq!(&last[20..], ["10", "1", &(64.0f64 / 3.0).to_string()]);
    }
}
