//! Divergence-aware warp scheduling, `daws` and `daws-profiled` [Rogers,
//! O'Connor, Aamodt, "Divergence-Aware Warp Scheduling", MICRO'13, §5].
//!
//! Issue priority is GTO. On top of it, each SM keeps a *cache footprint
//! prediction* per warp (Fig. 7 (D)):
//!
//! * When a warp issues the first instruction of a loop (the loop-begin
//!   marker), its prediction becomes the loop's footprint for its active
//!   lanes ([`ClassificationTable::footprint`]), remembered with the loop.
//!   It is recomputed at every iteration, so lanes that left the loop free
//!   their share.
//! * Inner loops [5.1.3]: a warp entering an inner loop takes the inner
//!   loop's prediction; leaving the inner loop for the outer loop's body
//!   keeps it, and when the outer loop begins its next iteration the
//!   prediction is recomputed *for the inner loop*. The prediction is
//!   cleared when the warp leaves the outermost loop around it.
//! * A warp waiting at a barrier, or exited, has no prediction.
//! * Warps outside loops [5.1.2]: while some warp has an in-loop
//!   prediction, a warp outside every loop that is about to issue a load
//!   is predicted as executing the next loop in program order (kept until
//!   it reaches a loop, a barrier or its end).
//! * Throttling: the predictions are summed in age order (oldest first,
//!   ties by slot); a warp whose running sum exceeds `EffCacheSize` =
//!   `kAssocFactor × L1D lines` (`sched.daws_assoc_percent`, 60 %) may not
//!   issue global/local loads. A loop for which one warp's prediction
//!   alone exceeds `EffCacheSize` is left unthrottled for the launch
//!   (its predictions count 0) [5.1].
//!
//! The classification table comes from the dynamic classifier following
//! sampling warps (`daws`, Detected-DAWS, 5.2) or from a profile file
//! (`daws-profiled`, Profiled-DAWS, 5.1; see [`profile`]).
//!
//! The predictor is per SM: the schedulers of one SM share one
//! [`DawsCore`].

pub mod classify;
pub mod loops;
pub mod profile;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::config::GpuConfig;
use crate::ir::Kernel;
use crate::sched::baseline::Gto;
use crate::sched::{IssuePolicy, Issued, LaunchInfo, LoadFeedback, SchedView};
use crate::timing::units::TimingInst;
use classify::{ClassificationTable, LoadClassifier};
use loops::LoopTable;
use profile::{DawsProfile, ProfileRecorder};

/// Where the classification table comes from.
#[derive(Clone, Debug)]
pub enum DawsMode {
    /// Detected-DAWS: the dynamic classifier fills it.
    Detected,
    /// Profiled-DAWS: a profile file fills it at each launch.
    Profiled(Arc<DawsProfile>),
    /// Record a profile: the classifier runs, nothing is throttled.
    Record(Rc<RefCell<ProfileRecorder>>),
}

/// One warp's footprint prediction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prediction {
    /// The loop it was made for.
    pub loop_id: Option<u32>,
    /// Predicted cache lines.
    pub lines: u32,
    /// Made for a warp outside loops (its next loop).
    pub outside: bool,
}

/// The DAWS state of one SM.
#[derive(Debug)]
pub struct DawsCore {
    mode: DawsMode,
    /// `EffCacheSize` in lines.
    eff_lines: u32,
    ilrd: (u32, u32),
    loops: LoopTable,
    table: ClassificationTable,
    classifier: LoadClassifier,
    /// Per PC: a global/local load.
    is_load: Vec<bool>,
    /// Per slot.
    preds: Vec<Prediction>,
    /// Per slot: innermost loop of the last issued instruction.
    cur_loop: Vec<Option<u32>>,
    /// Per loop: a single prediction exceeded `EffCacheSize`.
    unthrottled: Vec<bool>,
    /// Per slot: may issue loads (as of `computed_for`).
    allowed: Vec<bool>,
    computed_for: Option<(u64, u64)>,
    version: u64,
    scratch: Vec<u32>,
    /// The launch's kernel, for the recorder.
    kernel: Option<Kernel>,
}

impl DawsCore {
    /// An SM's predictor with `slots` warp slots.
    pub fn new(cfg: &GpuConfig, slots: usize, mode: DawsMode) -> DawsCore {
        let lines = cfg.l1d.sets * cfg.l1d.ways;
        DawsCore {
            mode,
            eff_lines: (u64::from(lines) * u64::from(cfg.sched.daws_assoc_percent) / 100) as u32,
            ilrd: (cfg.sched.daws_ilrd_entries, cfg.sched.daws_ilrd_ways),
            loops: LoopTable::default(),
            table: ClassificationTable::default(),
            classifier: LoadClassifier::new(0, 0, 1, 1),
            is_load: Vec::new(),
            preds: vec![Prediction::default(); slots],
            cur_loop: vec![None; slots],
            unthrottled: Vec::new(),
            allowed: vec![true; slots],
            computed_for: None,
            version: 0,
            scratch: Vec::new(),
            kernel: None,
        }
    }

    /// `EffCacheSize` in lines.
    pub fn eff_lines(&self) -> u32 {
        self.eff_lines
    }

    /// Starts a launch with `loops` (and, for tests, an explicit table).
    pub fn begin_launch(&mut self, kernel: &Kernel, loops: LoopTable, is_load: Vec<bool>) {
        let n = kernel.insts.len();
        self.table = match &self.mode {
            DawsMode::Profiled(p) => p.table(&kernel.name, &loops, n),
            _ => ClassificationTable::new(n, loops.loops.len()),
        };
        self.classifier = LoadClassifier::new(n, loops.loops.len(), self.ilrd.0, self.ilrd.1);
        self.unthrottled = vec![false; loops.loops.len()];
        self.loops = loops;
        self.is_load = is_load;
        self.preds
            .iter_mut()
            .for_each(|p| *p = Prediction::default());
        self.cur_loop.iter_mut().for_each(|c| *c = None);
        self.kernel = matches!(self.mode, DawsMode::Record(_)).then(|| kernel.clone());
        self.version += 1;
    }

    /// Replaces the classification table (unit tests).
    pub fn set_table(&mut self, table: ClassificationTable) {
        self.table = table;
    }

    /// The classification table.
    pub fn table(&self) -> &ClassificationTable {
        &self.table
    }

    /// The classifier.
    pub fn classifier(&self) -> &LoadClassifier {
        &self.classifier
    }

    /// `slot`'s prediction.
    pub fn prediction(&self, slot: u32) -> Prediction {
        self.preds[slot as usize]
    }

    /// Ends the launch (a recording run hands its verdicts over).
    pub fn end_launch(&mut self) {
        if let (DawsMode::Record(r), Some(k)) = (&self.mode, self.kernel.take()) {
            r.borrow_mut().add(&k, &self.loops, &self.classifier);
        }
    }

    fn predict(&mut self, l: u32, lanes: u32) -> u32 {
        let f = self.table.footprint(&self.loops, l, lanes);
        if f > self.eff_lines {
            self.unthrottled[l as usize] = true;
        }
        f
    }

    fn clear(&mut self, slot: u32) {
        self.preds[slot as usize] = Prediction::default();
        self.version += 1;
    }

    /// A warp was placed in `slot`.
    pub fn warp_start(&mut self, slot: u32) {
        self.clear(slot);
        self.cur_loop[slot as usize] = None;
    }

    /// `slot` left every loop it was in (exit).
    fn leave_all(&mut self, slot: u32) {
        let mut cur = self.cur_loop[slot as usize].take();
        while let Some(l) = cur {
            self.classifier.left(slot, l);
            cur = self.loops.loops[l as usize].parent;
        }
    }

    /// `slot` issued `what`.
    pub fn issued(&mut self, slot: u32, what: &Issued) {
        let s = slot as usize;
        let pc = what.pc;
        // Loops left: those around the previous instruction that do not
        // contain this one.
        let mut cur = self.cur_loop[s];
        while let Some(l) = cur {
            if !self.loops.contains(l, pc) {
                self.classifier.left(slot, l);
            }
            cur = self.loops.loops[l as usize].parent;
        }
        if let Some(l) = self.loops.begins_at(pc) {
            let entering = self.cur_loop[s].is_none_or(|o| !self.loops.nested_in(o, l));
            self.classifier.loop_begin(slot, l, what.lanes, entering);
            let p = self.preds[s];
            let target = match p.loop_id {
                // The outer loop's next iteration: keep predicting for the
                // inner loop the warp was in.
                Some(m) if !p.outside && m != l && self.loops.nested_in(m, l) => m,
                _ => l,
            };
            let lines = self.predict(target, what.lanes);
            self.preds[s] = Prediction {
                loop_id: Some(target),
                lines,
                outside: false,
            };
            self.version += 1;
        } else if let Some(m) = self.preds[s].loop_id
            && !self.preds[s].outside
            && !self.loops.contains(self.loops.outermost(m), pc)
        {
            self.clear(slot);
        }
        self.cur_loop[s] = self.loops.innermost(pc);
        if what.next_pc.is_none() {
            self.leave_all(slot);
            self.clear(slot);
        } else if what.barrier {
            self.clear(slot);
        }
    }

    /// Memory-system feedback on a load of `slot`.
    pub fn load(&mut self, slot: u32, fb: &LoadFeedback<'_>) {
        if matches!(self.mode, DawsMode::Profiled(_)) {
            return;
        }
        self.classifier.load(slot, fb, &self.loops, &mut self.table);
        self.version += 1;
    }

    /// The warp in `slot` exited.
    pub fn warp_exit(&mut self, slot: u32) {
        self.leave_all(slot);
        self.clear(slot);
    }

    /// Recomputes which warps may issue loads at `view.now`.
    pub fn evaluate(&mut self, view: &SchedView<'_>) {
        if matches!(self.mode, DawsMode::Record(_)) {
            return;
        }
        let now = view.now;
        if self.computed_for == Some((now, self.version)) {
            return;
        }
        // Warps outside loops about to load, while some warp is in a loop.
        let in_loop = self
            .preds
            .iter()
            .any(|p| p.loop_id.is_some() && !p.outside && p.lines > 0);
        if in_loop {
            for (s, i) in view.info.iter().enumerate() {
                if !i.live || i.done || i.at_barrier || self.preds[s].loop_id.is_some() {
                    continue;
                }
                if self.loops.innermost(i.pc).is_none()
                    && self.is_load.get(i.pc as usize).copied().unwrap_or(false)
                    && let Some(next) = self.loops.next_after(i.pc)
                {
                    let lines = self.predict(next, i.lanes);
                    self.preds[s] = Prediction {
                        loop_id: Some(next),
                        lines,
                        outside: true,
                    };
                    self.version += 1;
                }
            }
        }
        self.computed_for = Some((now, self.version));
        let mut order = std::mem::take(&mut self.scratch);
        order.clear();
        order.extend((0..view.info.len() as u32).filter(|&s| {
            let i = &view.info[s as usize];
            i.live && !i.done
        }));
        order.sort_by_key(|&s| (view.info[s as usize].age, s));
        self.allowed.iter_mut().for_each(|a| *a = true);
        let mut sum = 0u64;
        for &s in &order {
            let p = self.preds[s as usize];
            let lines = match p.loop_id {
                Some(l) if !self.unthrottled[l as usize] => p.lines,
                _ => 0,
            };
            if lines == 0 {
                continue;
            }
            sum += u64::from(lines);
            self.allowed[s as usize] = sum <= u64::from(self.eff_lines);
        }
        self.scratch = order;
    }

    /// May `slot` issue a load (as of the last [`DawsCore::evaluate`])?
    pub fn may_load(&self, slot: u32) -> bool {
        self.allowed[slot as usize]
    }

    fn launch(&mut self, launch: &LaunchInfo<'_>) {
        // A texture fetch is one of the L1D's loads on a machine without
        // a texture cache (`TimingInst::l1d_load`).
        let tex_via_l1d = launch.cfg.l1t.sets == 0;
        let loops = LoopTable::new(launch.kernel, launch.analysis, tex_via_l1d);
        let is_load = (0..launch.kernel.insts.len() as u32)
            .map(|pc| loops::is_l1d_load(launch.kernel, pc, tex_via_l1d))
            .collect();
        self.begin_launch(launch.kernel, loops, is_load);
    }
}

/// The `daws` / `daws-profiled` policy of one scheduler (and, in a
/// recording run, the observer wrapped around another policy).
pub struct Daws {
    core: Rc<RefCell<DawsCore>>,
    /// GTO priority (DAWS's base), or the wrapped policy when recording.
    inner: Box<dyn IssuePolicy>,
    throttles: bool,
}

impl Daws {
    /// A scheduler sharing `core` with the other schedulers of its SM,
    /// prioritizing with GTO.
    pub fn new(core: Rc<RefCell<DawsCore>>) -> Daws {
        Daws {
            core,
            inner: Box::new(Gto::default()),
            throttles: true,
        }
    }

    /// `inner` unchanged, with `core` (in [`DawsMode::Record`]) watching.
    pub fn recording(core: Rc<RefCell<DawsCore>>, inner: Box<dyn IssuePolicy>) -> Daws {
        Daws {
            core,
            inner,
            throttles: false,
        }
    }
}

impl IssuePolicy for Daws {
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        self.core.borrow_mut().evaluate(view);
        self.inner.order(view, out);
    }
    fn throttles(&self) -> bool {
        self.throttles || self.inner.throttles()
    }
    fn orders_every_warp(&self) -> bool {
        // Recording only watches: the wrapped policy's order is the order.
        !self.throttles && self.inner.orders_every_warp()
    }
    fn first_in_order(&self, view: &SchedView<'_>) -> Option<Option<u32>> {
        if self.throttles {
            None
        } else {
            self.inner.first_in_order(view)
        }
    }
    fn can_issue(&self, slot: u32, view: &SchedView<'_>, next: &TimingInst) -> bool {
        if !self.throttles {
            return self.inner.can_issue(slot, view, next);
        }
        !next.l1d_load || self.core.borrow().may_load(slot)
    }
    fn on_issue(&mut self, slot: u32, view: &SchedView<'_>, inst: &TimingInst, what: &Issued) {
        self.core.borrow_mut().issued(slot, what);
        self.inner.on_issue(slot, view, inst, what);
    }
    fn on_launch(&mut self, launch: &LaunchInfo<'_>) {
        self.core.borrow_mut().launch(launch);
        self.inner.on_launch(launch);
    }
    fn on_launch_end(&mut self) {
        self.core.borrow_mut().end_launch();
        self.inner.on_launch_end();
    }
    fn on_warp_start(&mut self, slot: u32) {
        self.core.borrow_mut().warp_start(slot);
        self.inner.on_warp_start(slot);
    }
    fn on_warp_exit(&mut self, slot: u32) {
        self.core.borrow_mut().warp_exit(slot);
        self.inner.on_warp_exit(slot);
    }
    fn on_load(&mut self, slot: u32, feedback: &LoadFeedback<'_>) {
        self.core.borrow_mut().load(slot, feedback);
        self.inner.on_load(slot, feedback);
    }
    fn next_change(&self, now: u64) -> Option<u64> {
        self.inner.next_change(now)
    }
}
