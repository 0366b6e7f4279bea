//! The human summary of a timed run.

use std::fmt::Write;

use crate::timing::barrier_stats::BarrierStats;
use crate::timing::stats::{Stall, Stats};

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// Launches listed one per line in the text summary (the JSON has all).
pub const LAUNCHES_SHOWN: usize = 32;

/// Renders `s` as the text `gpusim run` prints (after the check line).
pub fn timing_summary(s: &Stats) -> String {
    let mut o = String::new();
    let t = &s.total;
    let _ = writeln!(o, "scheduler {} (fetch {})", s.sched, s.fetch);
    let _ = writeln!(
        o,
        "cycles    {} ({} launch{})",
        s.cycles,
        s.launches.len(),
        if s.launches.len() == 1 { "" } else { "es" }
    );
    // Registers per thread of each kernel launched, and their source.
    let mut seen: Vec<&str> = Vec::new();
    for l in &s.launches {
        if l.regs_source.is_empty() || seen.contains(&l.kernel.as_str()) {
            continue;
        }
        seen.push(&l.kernel);
        let _ = writeln!(
            o,
            "registers {}: {}/thread ({})",
            l.kernel, l.regs_per_thread, l.regs_source
        );
    }
    if s.launches.len() > 1 {
        for (i, l) in s.launches.iter().enumerate().take(LAUNCHES_SHOWN) {
            let _ = writeln!(
                o,
                "launch {i:<3}{} [{},{},{}]x[{},{},{}]{}: {} cycles, {} warp insts, L1D {} misses, L2 {}/{} hits, DRAM {} reads {} writes",
                l.kernel,
                l.grid[0],
                l.grid[1],
                l.grid[2],
                l.block[0],
                l.block[1],
                l.block[2],
                if l.shared_bytes > 0 {
                    format!(" +{} B shared", l.shared_bytes)
                } else {
                    String::new()
                },
                l.cycles,
                l.warp_insts,
                l.l1d_misses,
                l.l2_hits,
                l.l2_accesses,
                l.dram_reads,
                l.dram_writes
            );
        }
        if s.launches.len() > LAUNCHES_SHOWN {
            let _ = writeln!(
                o,
                "          … {} more launches (every launch in --json `launches`)",
                s.launches.len() - LAUNCHES_SHOWN
            );
        }
    }
    let _ = writeln!(
        o,
        "issued    {} warp instructions, {} thread instructions",
        s.warp_insts, s.thread_insts
    );
    let _ = writeln!(o, "IPC       {:.3} warp, {:.2} thread", s.ipc, s.thread_ipc);
    let sc = s.stalls.total();
    let _ = writeln!(
        o,
        "stalls    scheduler-cycles ({} schedulers × {} cycles = {sc})",
        s.schedulers, s.cycles
    );
    for c in Stall::ALL {
        let n = s.stalls.get(c);
        let _ = writeln!(o, "  {:<11} {:>12}  {:5.1}%", c.name(), n, pct(n, sc));
    }
    let l = &t.l1d;
    let hits = l.intra_warp_hits + l.inter_warp_hits;
    let _ = writeln!(
        o,
        "L1D       {} accesses: {} hits ({:.1}%; {} intra-warp, {} inter-warp), {} misses, {} MSHR merges, {} evictions",
        l.accesses,
        hits,
        pct(hits, l.accesses),
        l.intra_warp_hits,
        l.inter_warp_hits,
        l.misses,
        l.mshr_merges,
        l.evictions
    );
    let _ = writeln!(
        o,
        "          {} stores, {} write evictions, {} MSHR-full cycles, {} icnt-stall cycles",
        l.stores, l.write_evictions, l.mshr_full, l.icnt_stall
    );
    if l.local_write_hits + l.writebacks > 0 {
        let _ = writeln!(
            o,
            "          {} local stores kept in their line, {} dirty lines written back",
            l.local_write_hits, l.writebacks
        );
    }
    if t.tex_accesses > 0 {
        let _ = writeln!(
            o,
            "texture   {} accesses: {} hits ({:.1}%), {} misses, {} stall cycles",
            t.tex_accesses,
            t.tex_accesses - t.tex_misses,
            pct(t.tex_accesses - t.tex_misses, t.tex_accesses),
            t.tex_misses,
            t.tex_stall
        );
    }
    if t.l1c_accesses > 0 {
        let hits = t.l1c_accesses - t.l1c_misses - t.l1c_merges;
        let _ = writeln!(
            o,
            "constant  {} accesses: {} hits ({:.1}%), {} misses, {} merged into a miss, {} stall cycles",
            t.l1c_accesses,
            hits,
            pct(hits, t.l1c_accesses),
            t.l1c_misses,
            t.l1c_merges,
            t.l1c_stall
        );
    }
    let q = &s.locality;
    let _ = writeln!(
        o,
        "locality  per 1000 warp instructions: {:.1} L1D misses, {:.1} intra-warp hits, {:.1} inter-warp hits, {:.1} victim-tag hits",
        q.l1d_misses_pki, q.intra_warp_hits_pki, q.inter_warp_hits_pki, q.vta_hits_pki
    );
    let a = &q.activity;
    let _ = writeln!(
        o,
        "activity  issue {:.1}%, no warp ready {:.1}%, throttled {:.1}% of scheduler-cycles; {} warp-cycles throttled",
        pct(a.issue, sc),
        pct(a.no_ready, sc),
        pct(a.throttled, sc),
        q.throttled_warp_cycles
    );
    let bins = [
        "0:4", "5:8", "9:12", "13:16", "17:20", "21:24", "25:28", "29:32",
    ];
    let lanes: Vec<String> = bins
        .iter()
        .zip(q.lane_fractions)
        .map(|(b, f)| format!("W[{b}] {:.1}%", 100.0 * f))
        .collect();
    let _ = writeln!(o, "lanes     {}", lanes.join("  "));
    let _ = writeln!(o, "{}", barrier_line(&s.barriers));
    let m = &s.mem;
    let _ = writeln!(
        o,
        "L2        {} accesses: {} hits ({:.1}%), {} misses, {} writebacks, {} atomics, {} merge-full stalls, {} miss-queue-full stalls",
        m.l2_accesses,
        m.l2_hits,
        pct(m.l2_hits, m.l2_accesses),
        m.l2_misses,
        m.l2_writebacks,
        m.atomics,
        m.merge_full,
        m.miss_queue_full
    );
    let bw = if s.cycles == 0 {
        0.0
    } else {
        m.dram_bytes as f64 / s.cycles as f64
    };
    let _ = writeln!(
        o,
        "DRAM      {} reads, {} writes, {} bytes ({bw:.1} B/cycle), {} queue-full stalls; {} reply-buffer-full stalls",
        m.dram_reads, m.dram_writes, m.dram_bytes, m.dram_full, m.reply_full
    );
    if let Some(line) = sync_line(&s.sync) {
        let _ = writeln!(o, "{line}");
    }
    let _ = writeln!(
        o,
        "shared    {} accesses, {} bank-conflict cycles; I-cache {} hits, {} misses; {} I-buffer flushes",
        t.shared_accesses,
        t.bank_conflict_cycles,
        t.icache_hits,
        t.icache_misses,
        t.ibuffer_flushes
    );
    o
}

/// The summary's `sync` lines (when the kernel ran a waiting instruction
/// or WGs were switched): waits and acquires, how WGs waited, the SyncMon,
/// context switches.
pub fn sync_line(y: &crate::timing::wg_sync::SyncStats) -> Option<String> {
    if y.wait_insts == 0 && y.switches_out == 0 {
        return None;
    }
    let mut line = format!(
        "sync      {}: {} waiting instructions, {} acquires ({:.2} per acquire); {} blocks, {} resumes, {} timeouts; WGs {} cycles waiting, {} running",
        y.policy,
        y.wait_insts,
        y.acquires,
        y.wait_insts_per_acquire,
        y.blocks,
        y.resumes,
        y.timeouts,
        y.wg_waiting_cycles,
        y.wg_running_cycles
    );
    let m = &y.syncmon;
    if m.armed_cache + m.spilled + m.log_full > 0 {
        line.push_str(&format!(
            "\n          SyncMon {} armed, {} spilled to the Monitor Log, {} turned away, {} conditions met, {} resumed",
            m.armed_cache, m.spilled, m.log_full, m.conditions_met, m.resumed
        ));
    }
    if y.switches_out + y.switches_in > 0 {
        line.push_str(&format!(
            "\n          context switches {} out, {} in, {} bytes; WGs {} cycles switched out",
            y.switches_out, y.switches_in, y.context_bytes, y.wg_switched_out_cycles
        ));
    }
    Some(line)
}

/// The summary's `barriers` line: phases per CTA (and barrier releases),
/// RTRU pooled over all phases and over the `bar.sync` phases alone,
/// barrier intensity and whether it makes the kernel barrier-intensive,
/// and the intensity counting the wait at the CTAs' exits
/// ([`BarrierStats`] defines each).
pub fn barrier_line(b: &BarrierStats) -> String {
    format!(
        "barriers  {:.1} phases/CTA ({} release{}), RTRU {:.1}% ({:.1}% in bar.sync phases), barrier intensity {:.1}% ({}barrier-intensive; {:.1}% with exits)",
        b.phases_per_cta,
        b.barriers_released,
        if b.barriers_released == 1 { "" } else { "s" },
        100.0 * b.rtru,
        100.0 * b.rtru_barrier_phases,
        100.0 * b.barrier_intensity,
        if b.barrier_intensive { "" } else { "not " },
        100.0 * b.barrier_intensity_with_exit
    )
}
