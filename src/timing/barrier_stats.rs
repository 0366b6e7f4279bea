//! Barrier-phase statistics (the BAWS paper, §3): warp-phases, their
//! execution disparity (RTRU, Eq. 1) and the time warps wait at barriers
//! (barrier intensity, Fig. 1 and §5's 15 % threshold).
//!
//! A *warp-phase* is the stretch of one warp between two barriers of its
//! CTA: the first starts when the CTA is placed, the warp's exit ends its
//! last. All times are inclusive cycle counts: a warp alive from cycle `s`
//! (the cycle after its CTA's placement) that issues its `bar.sync` at
//! cycle `a` spent `T = a + 1 − s` cycles in that phase; a barrier released
//! at cycle `r` (the cycle its last warp arrived) starts the next phase of
//! the warps it releases at `r + 1`, and each of them waited `r − a`
//! cycles. The CTA's *phases* are the groups of warp-phases closed
//! together: each barrier release closes one (the warps it releases), and
//! the exit of the CTA's last warp closes the final one (every warp: a
//! warp's last phase always ends with its exit, the implicit barrier of
//! Fig. 3). When every warp of a CTA takes part in every barrier (the
//! usual `bar.sync 0`), all warps of a phase share its start, and
//! `max T − T_i` is exactly warp *i*'s wait at the barrier.
//!
//! Nothing here is per cycle: the SM calls [`CtaPhases::arrive`],
//! [`CtaPhases::release`] and [`CtaPhases::exit`] when a warp issues a
//! barrier, when a barrier releases and when a warp exits; only the
//! current phase of each resident CTA is kept, finished phases are summed
//! into [`BarrierCounters`].

use serde::Serialize;

/// A kernel is *barrier-intensive* when its warps wait at barriers for
/// more than this fraction of their time (BAWS §5: "the fraction of stall
/// cycles of a warp due to barriers exceeds 15% of the total execution
/// time").
pub const BARRIER_INTENSIVE: f64 = 0.15;

/// One warp of a resident CTA: its current phase and its waits so far.
#[derive(Clone, Debug, Default)]
struct WarpPhase {
    /// First cycle of the warp's current phase.
    phase_start: u64,
    /// Cycle it issued the barrier it waits at (its current phase ended).
    arrival: Option<u64>,
    /// Cycle it exited.
    exit: Option<u64>,
    /// Cycles it waited at explicit barriers so far.
    barrier_wait: u64,
    /// The cycle each of its phases ended: its barrier arrivals, then
    /// its exit.
    ends: Vec<u64>,
}

/// The phase bookkeeping of one resident CTA.
#[derive(Clone, Debug, Default)]
pub struct CtaPhases {
    /// First cycle of the CTA's warps (the cycle after its placement).
    start: u64,
    /// Per warp of the CTA, by index within it.
    warps: Vec<WarpPhase>,
    /// Warps not yet exited.
    live: u32,
}

impl CtaPhases {
    /// Warp `i`'s phases: the cycle each ended (its barrier arrivals, then
    /// its exit) and the cycles it waited at barriers; taken (left empty).
    pub fn take_warp(&mut self, i: usize) -> (Vec<u64>, u64) {
        match self.warps.get_mut(i) {
            Some(w) => (std::mem::take(&mut w.ends), w.barrier_wait),
            None => (Vec::new(), 0),
        }
    }

    /// A CTA of `warps` warps alive from cycle `start`.
    pub fn new(warps: usize, start: u64) -> CtaPhases {
        CtaPhases {
            start,
            warps: vec![
                WarpPhase {
                    phase_start: start,
                    ..WarpPhase::default()
                };
                warps
            ],
            live: warps as u32,
        }
    }

    /// Warp `i` issued a barrier (`bar.sync`, `bar.red`) at cycle `now`:
    /// its current phase ends there.
    pub fn arrive(&mut self, i: usize, now: u64, c: &mut BarrierCounters) {
        if let Some(w) = self.warps.get_mut(i) {
            w.arrival = Some(now);
            w.ends.push(now);
            c.arrivals += 1;
        }
    }

    /// A barrier released warps `released` (indices within the CTA) at
    /// cycle `now`: closes their phase and starts the next at `now + 1`.
    pub fn release(
        &mut self,
        released: impl IntoIterator<Item = usize>,
        now: u64,
        c: &mut BarrierCounters,
    ) {
        let mut group = PhaseGroup::default();
        for i in released {
            let Some(w) = self.warps.get_mut(i) else {
                continue;
            };
            let Some(a) = w.arrival.take() else { continue };
            group.add(a + 1 - w.phase_start);
            w.barrier_wait += now - a;
            w.phase_start = now + 1;
        }
        if group.n > 0 {
            c.barrier_phases += 1;
            group.close(c, true);
        }
    }

    /// Warp `i` exited at cycle `now`. The exit of the CTA's last warp
    /// closes its final phase and sums every warp's waits into `c`.
    pub fn exit(&mut self, i: usize, now: u64, c: &mut BarrierCounters) {
        let Some(w) = self.warps.get_mut(i) else {
            return;
        };
        if w.exit.is_some() {
            return;
        }
        w.exit = Some(now);
        w.ends.push(now);
        self.live -= 1;
        if self.live > 0 {
            return;
        }
        // The implicit barrier at the CTA's end releases at `now`.
        let mut group = PhaseGroup::default();
        let whole = now + 1 - self.start;
        for w in &self.warps {
            let e = w.exit.unwrap_or(now);
            group.add(e + 1 - w.phase_start);
            let lived = e + 1 - self.start;
            c.warps += 1;
            c.lifetime_cycles += lived;
            c.cta_lifetime_cycles += whole;
            c.barrier_wait_cycles += w.barrier_wait;
            c.exit_wait_cycles += now - e;
            c.intensity_sum += w.barrier_wait as f64 / lived as f64;
            c.intensity_with_exit_sum += (w.barrier_wait + now - e) as f64 / whole as f64;
        }
        c.ctas += 1;
        group.close(c, false);
    }
}

/// The warp-phases of one (CTA, phase) pair being summed.
#[derive(Clone, Copy, Debug, Default)]
struct PhaseGroup {
    /// Warps (N).
    n: u64,
    /// Σ T_i.
    sum: u64,
    /// max T.
    max: u64,
}

impl PhaseGroup {
    fn add(&mut self, t: u64) {
        self.n += 1;
        self.sum += t;
        self.max = self.max.max(t);
    }

    /// Adds the finished phase to `c` (`explicit`: closed by a barrier
    /// release rather than the CTA's end).
    fn close(self, c: &mut BarrierCounters, explicit: bool) {
        c.phases += 1;
        let idle = self.n * self.max - self.sum;
        let held = self.n * self.max;
        c.idle_warp_cycles += idle;
        c.phase_warp_cycles += held;
        if explicit {
            c.explicit_idle_warp_cycles += idle;
            c.explicit_phase_warp_cycles += held;
        }
        if held > 0 {
            c.rtru_sum += idle as f64 / held as f64;
            c.rtru_phases += 1;
        }
    }
}

/// Sums over finished CTAs and phases (per SM during a launch; merged per
/// launch and per run). [`BarrierStats::of`] derives the reported figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BarrierCounters {
    /// CTAs whose warps all exited.
    pub ctas: u64,
    /// Their warps.
    pub warps: u64,
    /// (CTA, phase) pairs closed, the CTAs' final phases included.
    pub phases: u64,
    /// Phases closed by a barrier release (releases that let warps go).
    pub barrier_phases: u64,
    /// Barriers issued by warps (`bar.sync`, `bar.red`; one per warp).
    pub arrivals: u64,
    /// Σ over phases of Σ_i (max T − T_i).
    pub idle_warp_cycles: u64,
    /// Σ over phases of N · max T.
    pub phase_warp_cycles: u64,
    /// The same two sums over the phases closed by barrier releases only.
    pub explicit_idle_warp_cycles: u64,
    /// See `explicit_idle_warp_cycles`.
    pub explicit_phase_warp_cycles: u64,
    /// Σ over phases of their RTRU (phases with max T > 0).
    pub rtru_sum: f64,
    /// Phases in `rtru_sum`.
    pub rtru_phases: u64,
    /// Σ over warps of the cycles from placement to exit.
    pub lifetime_cycles: u64,
    /// Σ over warps of the cycles from placement to the CTA's last exit.
    pub cta_lifetime_cycles: u64,
    /// Σ over warps of the cycles waited at explicit barriers.
    pub barrier_wait_cycles: u64,
    /// Σ over warps of the cycles from their exit to the CTA's last exit.
    pub exit_wait_cycles: u64,
    /// Σ over warps of barrier wait / (placement to exit).
    pub intensity_sum: f64,
    /// Σ over warps of (barrier wait + exit wait) / (placement to the
    /// CTA's last exit).
    pub intensity_with_exit_sum: f64,
}

impl BarrierCounters {
    /// Adds another set of sums.
    pub fn merge(&mut self, o: &BarrierCounters) {
        self.ctas += o.ctas;
        self.warps += o.warps;
        self.phases += o.phases;
        self.barrier_phases += o.barrier_phases;
        self.arrivals += o.arrivals;
        self.idle_warp_cycles += o.idle_warp_cycles;
        self.phase_warp_cycles += o.phase_warp_cycles;
        self.explicit_idle_warp_cycles += o.explicit_idle_warp_cycles;
        self.explicit_phase_warp_cycles += o.explicit_phase_warp_cycles;
        self.rtru_sum += o.rtru_sum;
        self.rtru_phases += o.rtru_phases;
        self.lifetime_cycles += o.lifetime_cycles;
        self.cta_lifetime_cycles += o.cta_lifetime_cycles;
        self.barrier_wait_cycles += o.barrier_wait_cycles;
        self.exit_wait_cycles += o.exit_wait_cycles;
        self.intensity_sum += o.intensity_sum;
        self.intensity_with_exit_sum += o.intensity_with_exit_sum;
    }
}

fn ratio(n: f64, d: f64) -> f64 {
    if d > 0.0 { n / d } else { 0.0 }
}

/// Barrier-phase figures of a launch or a run (`barriers` in the JSON;
/// field names are stable, documented in docs/timing-model.md).
///
/// **RTRU.** Eq. 1 of the BAWS paper gives one (CTA, phase) pair's RTRU,
/// `Σ_i (max T − T_i) / (N · max T)`: the share of the warp-cycles the
/// phase holds (N warps for max T cycles) that its warps spend idle,
/// having finished before the slowest. The paper reports one RTRU per
/// benchmark (Fig. 5) without saying how phases are combined; its text
/// reads RTRU as "the number of stall cycles due to warp scheduling
/// disparity", a *ratio of temporal resource underutilization* (Xiang et
/// al.). `rtru` therefore pools the phases as resource-time: the idle
/// warp-cycles of all phases over the warp-cycles they hold,
/// `Σ_p Σ_i (max T_p − T_i) / Σ_p N_p · max T_p` — the mean of the
/// phases' RTRUs weighted by `N · max T`, so that a phase counts as much
/// as the time it takes (a 20-cycle phase between two adjacent barriers
/// does not weigh as much as a 4000-cycle one). The unweighted mean over
/// phases is `rtru_phase_mean`; `rtru_barrier_phases` pools only the
/// phases that end at an explicit barrier (not the CTAs' final phases,
/// which end at the exit point).
///
/// **Barrier intensity.** Per warp, the cycles it waited at explicit
/// barriers (from issuing `bar.sync` to the release, so the barrier's
/// fixed `barrier_latency` after the release is not counted) over its
/// lifetime from its CTA's placement to its own exit; the kernel's
/// barrier intensity is the mean over warps (BAWS Fig. 1 is "computed as
/// the average across all warps"). A kernel without barriers has 0.
/// `barrier_intensity_with_exit` adds the time from a warp's exit to the
/// exit of its CTA's last warp (Fig. 1 includes "the exit points of TBs")
/// and then divides by the time from placement to that last exit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct BarrierStats {
    /// CTAs that ran to completion.
    pub ctas: u64,
    /// Their warps.
    pub warps: u64,
    /// (CTA, phase) pairs, the CTAs' final phases (ended by the exit)
    /// included.
    pub phases: u64,
    /// Barrier releases (phases ended by an explicit barrier).
    pub barriers_released: u64,
    /// Barriers issued, one per warp and barrier.
    pub barrier_arrivals: u64,
    /// `phases / ctas`: explicit barriers per CTA + 1.
    pub phases_per_cta: f64,
    /// RTRU pooled over every phase, weighted by N · max T.
    pub rtru: f64,
    /// RTRU pooled over the phases ended by explicit barriers.
    pub rtru_barrier_phases: f64,
    /// Unweighted mean of the phases' RTRUs.
    pub rtru_phase_mean: f64,
    /// Mean over warps of barrier wait / (placement to exit).
    pub barrier_intensity: f64,
    /// `barrier_intensity` > [`BARRIER_INTENSIVE`].
    pub barrier_intensive: bool,
    /// Mean over warps of (barrier wait + wait from exit to the CTA's last
    /// exit) / (placement to the CTA's last exit).
    pub barrier_intensity_with_exit: f64,
    /// Σ over phases of Σ_i (max T − T_i): warp-cycles idle in phases.
    pub idle_warp_cycles: u64,
    /// Σ over phases of N · max T: warp-cycles phases hold.
    pub phase_warp_cycles: u64,
    /// Σ over warps of the cycles waited at explicit barriers.
    pub barrier_wait_cycles: u64,
    /// Σ over warps of the cycles from exit to the CTA's last exit.
    pub exit_wait_cycles: u64,
    /// Σ over warps of the cycles from placement to exit.
    pub warp_lifetime_cycles: u64,
}

impl BarrierStats {
    /// Derives the figures from the sums.
    pub fn of(c: &BarrierCounters) -> BarrierStats {
        let intensity = ratio(c.intensity_sum, c.warps as f64);
        BarrierStats {
            ctas: c.ctas,
            warps: c.warps,
            phases: c.phases,
            barriers_released: c.barrier_phases,
            barrier_arrivals: c.arrivals,
            phases_per_cta: ratio(c.phases as f64, c.ctas as f64),
            rtru: ratio(c.idle_warp_cycles as f64, c.phase_warp_cycles as f64),
            rtru_barrier_phases: ratio(
                c.explicit_idle_warp_cycles as f64,
                c.explicit_phase_warp_cycles as f64,
            ),
            rtru_phase_mean: ratio(c.rtru_sum, c.rtru_phases as f64),
            barrier_intensity: intensity,
            barrier_intensive: intensity > BARRIER_INTENSIVE,
            barrier_intensity_with_exit: ratio(c.intensity_with_exit_sum, c.warps as f64),
            idle_warp_cycles: c.idle_warp_cycles,
            phase_warp_cycles: c.phase_warp_cycles,
            barrier_wait_cycles: c.barrier_wait_cycles,
            exit_wait_cycles: c.exit_wait_cycles,
            warp_lifetime_cycles: c.lifetime_cycles,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four warps from cycle 10: arrivals at 19, 29, 39, 49 (T = 10, 20,
    /// 30, 40), release at 49; exits at 59, 60, 61, 62.
    #[test]
    fn one_barrier_by_hand() {
        let mut c = BarrierCounters::default();
        let mut p = CtaPhases::new(4, 10);
        for (i, a) in [19, 29, 39, 49].into_iter().enumerate() {
            p.arrive(i, a, &mut c);
        }
        p.release(0..4, 49, &mut c);
        for (i, e) in [59, 60, 61, 62].into_iter().enumerate() {
            p.exit(i, e, &mut c);
        }
        let s = BarrierStats::of(&c);
        assert_eq!(
            (s.ctas, s.warps, s.phases, s.barriers_released),
            (1, 4, 2, 1)
        );
        // Phase 0: max T 40, idle 30 + 20 + 10 + 0 = 60 of 160.
        // Phase 1 (from 50): T = 10, 11, 12, 13, idle 3 + 2 + 1 = 6 of 52.
        assert_eq!(s.idle_warp_cycles, 66);
        assert_eq!(s.phase_warp_cycles, 212);
        assert!((s.rtru - 66.0 / 212.0).abs() < 1e-12);
        assert!((s.rtru_barrier_phases - 60.0 / 160.0).abs() < 1e-12);
        assert!((s.rtru_phase_mean - (60.0 / 160.0 + 6.0 / 52.0) / 2.0).abs() < 1e-12);
        // Waits 30, 20, 10, 0 over lifetimes 50, 51, 52, 53.
        let want = (30.0 / 50.0 + 20.0 / 51.0 + 10.0 / 52.0) / 4.0;
        assert!((s.barrier_intensity - want).abs() < 1e-12);
        assert!(s.barrier_intensive);
        // With the exit: + 3, 2, 1, 0 over 53 each.
        let want = (33.0 + 22.0 + 11.0) / 53.0 / 4.0;
        assert!((s.barrier_intensity_with_exit - want).abs() < 1e-12);
        assert_eq!((s.barrier_wait_cycles, s.exit_wait_cycles), (60, 6));
    }

    #[test]
    fn no_barrier_is_one_phase_and_no_intensity() {
        let mut c = BarrierCounters::default();
        let mut p = CtaPhases::new(2, 0);
        p.exit(1, 9, &mut c);
        p.exit(0, 19, &mut c);
        let s = BarrierStats::of(&c);
        assert_eq!(
            (s.phases, s.barriers_released, s.phases_per_cta),
            (1, 0, 1.0)
        );
        assert_eq!(s.barrier_intensity, 0.0);
        assert!(!s.barrier_intensive);
        // T = 20 and 10: RTRU 10 / 40.
        assert!((s.rtru - 0.25).abs() < 1e-12);
        assert_eq!(s.rtru_barrier_phases, 0.0);
    }
}
