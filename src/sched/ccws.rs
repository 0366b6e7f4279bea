//! Cache-conscious wavefront scheduling, `ccws` [Rogers, O'Connor, Aamodt,
//! "Cache-Conscious Wavefront Scheduling", MICRO'12 §4; DAWS 3.3, Table 3].
//!
//! Every warp has a lost-locality score, starting at `BaseScore`
//! (`sched.ccws_base_score`, 100). A load miss whose line is still in the
//! warp's own victim tags (`timing::victim_tags`) is lost intra-warp
//! locality: the warp's score rises by
//!
//! ```text
//! LLDS = VTAHits_total / Insts_total × KThrottle × CumLLSCutoff
//! ```
//!
//! (both totals on the SM since the launch began; `KThrottle` is
//! `sched.ccws_k_throttle`, 8), and every cycle a score above the base
//! falls by `sched.ccws_decay` (1) until it is back at the base.
//! `CumLLSCutoff` = live warps × `BaseScore`. Each cycle the warps are
//! sorted by score, highest first (ties: smaller slot), and their scores
//! summed; the warps taken before the sum reaches the cutoff may issue
//! loads, the rest may not (other instructions issue freely). With every
//! score at the base the last warp reaches the cutoff exactly, so nobody
//! is limited. Issue priority is GTO.
//!
//! The scores are per SM (the L1D is): the schedulers of one SM share one
//! [`CcwsScores`].

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::GpuConfig;
use crate::sched::baseline::Gto;
use crate::sched::{IssuePolicy, Issued, LaunchInfo, LoadFeedback, SchedView};
use crate::timing::units::TimingInst;

/// One warp's score, decaying lazily: worth `value` at cycle `at`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Score {
    value: u64,
    at: u64,
}

/// The lost-locality scores of one SM's warps and the load-exclusion list
/// they imply.
#[derive(Debug)]
pub struct CcwsScores {
    base: u64,
    k_throttle: u64,
    decay: u64,
    scores: Vec<Score>,
    vta_hits: u64,
    insts: u64,
    /// Per slot: may issue loads (as of `computed_for`).
    allowed: Vec<bool>,
    /// Some warp is kept from issuing loads.
    limited: bool,
    /// `(cycle, version)` the list was computed for.
    computed_for: Option<(u64, u64)>,
    /// Bumped by every score change.
    version: u64,
    /// Scratch: live slots with their scores.
    sorted: Vec<(u64, u32)>,
}

impl CcwsScores {
    /// Scores for `slots` warp slots with `cfg.sched`'s CCWS parameters.
    pub fn new(cfg: &GpuConfig, slots: usize) -> CcwsScores {
        CcwsScores {
            base: u64::from(cfg.sched.ccws_base_score),
            k_throttle: u64::from(cfg.sched.ccws_k_throttle),
            decay: u64::from(cfg.sched.ccws_decay),
            scores: vec![Score::default(); slots],
            vta_hits: 0,
            insts: 0,
            allowed: vec![true; slots],
            limited: false,
            computed_for: None,
            version: 0,
            sorted: Vec::new(),
        }
    }

    /// `slot`'s score at cycle `now`.
    pub fn score(&self, slot: u32, now: u64) -> u64 {
        let s = self.scores[slot as usize];
        let fallen = self.decay.saturating_mul(now.saturating_sub(s.at));
        s.value.saturating_sub(fallen).max(self.base)
    }

    /// The cutoff for `live` warps.
    pub fn cutoff(&self, live: u64) -> u64 {
        (live * self.base).max(1)
    }

    /// A new warp in `slot` starts at the base score.
    pub fn start(&mut self, slot: u32, now: u64) {
        self.scores[slot as usize] = Score {
            value: self.base,
            at: now,
        };
        self.version += 1;
    }

    /// Counts an issued instruction.
    pub fn issued(&mut self) {
        self.insts += 1;
    }

    /// `slot` lost intra-warp locality `hits` times at `now` with `live`
    /// warps on the SM.
    pub fn victim_hits(&mut self, slot: u32, hits: u32, now: u64, live: u64) {
        for _ in 0..hits {
            self.vta_hits += 1;
            let cutoff = self.cutoff(live);
            let llds = self.vta_hits * self.k_throttle * cutoff / self.insts.max(1);
            let v = self.score(slot, now) + llds;
            self.scores[slot as usize] = Score { value: v, at: now };
        }
        self.version += 1;
    }

    /// Recomputes which warps may issue loads at `now` (once per cycle and
    /// score change).
    pub fn evaluate(&mut self, view: &SchedView<'_>) {
        let now = view.now;
        if self.computed_for == Some((now, self.version)) {
            return;
        }
        self.computed_for = Some((now, self.version));
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        for (s, i) in view.info.iter().enumerate() {
            if i.live && !i.done {
                sorted.push((self.score(s as u32, now), s as u32));
            }
        }
        sorted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let cutoff = self.cutoff(sorted.len() as u64);
        self.allowed.iter_mut().for_each(|a| *a = false);
        let mut sum = 0;
        self.limited = false;
        for &(score, s) in &sorted {
            if sum >= cutoff {
                self.limited = true;
                break;
            }
            sum += score;
            self.allowed[s as usize] = true;
        }
        // Warps not live (or exited) are never asked about.
        for (s, i) in view.info.iter().enumerate() {
            if !i.live || i.done {
                self.allowed[s] = true;
            }
        }
        self.sorted = sorted;
    }

    /// May `slot` issue a load (as of the last [`CcwsScores::evaluate`])?
    pub fn may_load(&self, slot: u32) -> bool {
        self.allowed[slot as usize]
    }

    /// Some warp is kept from issuing loads.
    pub fn limited(&self) -> bool {
        self.limited
    }

    /// Some live warp's score is above the base at `now` (scores will
    /// still fall).
    fn decaying(&self, view_live: impl Iterator<Item = u32>, now: u64) -> bool {
        view_live
            .into_iter()
            .any(|s| self.score(s, now) > self.base)
    }
}

/// The `ccws` policy of one scheduler.
#[derive(Debug)]
pub struct Ccws {
    scores: Rc<RefCell<CcwsScores>>,
    gto: Gto,
    /// Live slots of the SM as last seen (for `next_change`).
    live: Vec<u32>,
    now: u64,
}

impl Ccws {
    /// A scheduler sharing `scores` with the other schedulers of its SM.
    pub fn new(scores: Rc<RefCell<CcwsScores>>) -> Ccws {
        Ccws {
            scores,
            gto: Gto::default(),
            live: Vec::new(),
            now: 0,
        }
    }
}

impl IssuePolicy for Ccws {
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        self.now = view.now;
        self.scores.borrow_mut().evaluate(view);
        self.live.clear();
        self.live.extend(
            (0..view.info.len() as u32)
                .filter(|&s| view.info[s as usize].live && !view.info[s as usize].done),
        );
        self.gto.order(view, out);
    }
    fn throttles(&self) -> bool {
        true
    }
    fn can_issue(&self, slot: u32, _view: &SchedView<'_>, next: &TimingInst) -> bool {
        !next.l1d_load || self.scores.borrow().may_load(slot)
    }
    fn on_issue(&mut self, slot: u32, view: &SchedView<'_>, inst: &TimingInst, what: &Issued) {
        self.scores.borrow_mut().issued();
        self.gto.on_issue(slot, view, inst, what);
    }
    fn on_launch(&mut self, _launch: &LaunchInfo<'_>) {
        let mut s = self.scores.borrow_mut();
        s.vta_hits = 0;
        s.insts = 0;
        s.version += 1;
    }
    fn on_warp_start(&mut self, slot: u32) {
        let now = self.now;
        self.scores.borrow_mut().start(slot, now);
    }
    fn on_load(&mut self, slot: u32, feedback: &LoadFeedback<'_>) {
        if feedback.vta_hits > 0 {
            let live = self.live.len().max(1) as u64;
            let now = self.now;
            self.scores
                .borrow_mut()
                .victim_hits(slot, feedback.vta_hits, now, live);
        }
    }
    fn next_change(&self, now: u64) -> Option<u64> {
        let s = self.scores.borrow();
        (s.limited() && s.decaying(self.live.iter().copied(), now)).then_some(now + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::WarpView;

    fn cfg() -> GpuConfig {
        GpuConfig::gtx480()
    }

    fn views(n: usize) -> Vec<WarpView> {
        (0..n)
            .map(|i| WarpView {
                live: true,
                age: i as u64,
                ..WarpView::default()
            })
            .collect()
    }

    fn eval(s: &mut CcwsScores, info: &[WarpView], now: u64) {
        let all: Vec<u32> = (0..info.len() as u32).collect();
        s.evaluate(&SchedView {
            now,
            warps: &all,
            by_slot: &all,
            info,
            cta_barrier: &[],
            detail: &[],
        });
    }

    #[test]
    fn score_rises_on_victim_hits_decays_and_cuts_off() {
        let c = cfg();
        let base = u64::from(c.sched.ccws_base_score);
        let k = u64::from(c.sched.ccws_k_throttle);
        let info = views(4);
        let allowed = |s: &CcwsScores| (0..4).map(|w| s.may_load(w)).collect::<Vec<bool>>();
        let mut s = CcwsScores::new(&c, 4);
        for w in 0..4 {
            s.start(w, 0);
        }
        // Everyone at the base: the last warp reaches the cutoff exactly,
        // nobody is limited.
        eval(&mut s, &info, 0);
        assert!(!s.limited());
        assert_eq!(allowed(&s), vec![true; 4]);
        // 10 instructions, then one victim hit by warp 2 at cycle 10:
        // LLDS = 1/10 × K × (4 × base).
        for _ in 0..10 {
            s.issued();
        }
        s.victim_hits(2, 1, 10, 4);
        let llds = k * 4 * base / 10;
        assert!(llds > base, "the test wants a score above the cutoff");
        assert_eq!(s.score(2, 10), base + llds);
        // Decays by one per cycle, never below the base.
        assert_eq!(s.score(2, 15), base + llds - 5);
        assert_eq!(s.score(2, 10 + llds + 1000), base);
        // Warp 2 alone reaches the cutoff 4 × base: only it may load.
        eval(&mut s, &info, 10);
        assert!(s.limited());
        assert_eq!(allowed(&s), vec![false, false, true, false]);
        // Until its score falls below the cutoff: then warp 0 (oldest of
        // the base-score warps, ties by slot) joins.
        let below = 10 + (base + llds - 4 * base) + 1;
        eval(&mut s, &info, below - 1);
        assert_eq!(allowed(&s), vec![false, false, true, false]);
        eval(&mut s, &info, below);
        assert_eq!(allowed(&s), vec![true, false, true, false]);
        assert!(s.limited());
        // Once the score is back at the base, nobody is limited.
        eval(&mut s, &info, 10 + llds);
        assert!(!s.limited());
        assert_eq!(allowed(&s), vec![true; 4]);
    }

    #[test]
    fn big_scores_leave_only_the_top_warp() {
        let c = cfg();
        let info = views(4);
        let mut s = CcwsScores::new(&c, 4);
        for w in 0..4 {
            s.start(w, 0);
        }
        s.issued();
        // One instruction, one hit: LLDS = K × cutoff, far above the cutoff.
        s.victim_hits(1, 1, 0, 4);
        eval(&mut s, &info, 0);
        let allowed: Vec<bool> = (0..4).map(|w| s.may_load(w)).collect();
        assert_eq!(allowed, vec![false, true, false, false]);
    }
}
