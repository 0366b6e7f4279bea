//! Recording each warp's state over time on one SM (`gpusim timeline`, the
//! BAWS paper's Fig. 4): for the warps of the chosen CTAs of one launch,
//! the cycle each state starts, their start and end, and the cycles their
//! CTAs' barriers release.
//!
//! The recorder is off unless asked for ([`crate::timing::Gpu::enable_timeline`]).
//! With it on, the chosen SM runs the issue stage that visits every warp
//! each time it runs (`issue_every_warp`, like the issue log), which
//! computes the same states as the incremental stage: the run's cycles do
//! not change. A warp's state only changes when the issue stage runs, so
//! the changes `charge` sees are all of them.

/// Which warps a timeline shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineSelection {
    /// SM.
    pub sm: u32,
    /// Launch of the workload (0-based, in launch order).
    pub launch: u32,
    /// CTAs by linear index in the grid (`x + X·(y + Y·z)`), half-open;
    /// `None`: every CTA the SM runs.
    pub ctas: Option<(u64, u64)>,
}

/// One warp's row: where it ran and its states over time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpRow {
    /// CTA index.
    pub cta: [u32; 3],
    /// Linear CTA index in the grid.
    pub cta_linear: u64,
    /// Warp within the CTA.
    pub warp: u32,
    /// First cycle it existed (the cycle after its CTA's placement).
    pub start: u64,
    /// Cycle after its CTA retired (`start` until then).
    pub end: u64,
    /// (cycle, state code) each time its state changed, the first at
    /// `start`. A code is a [`crate::timing::Stall`] index, or 10 for a
    /// warp that could issue but was not picked.
    pub changes: Vec<(u64, u8)>,
}

/// A barrier release of a recorded CTA: its warps' next phase starts at
/// `cycle + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseMark {
    /// Cycle the barrier released.
    pub cycle: u64,
    /// Linear index of the CTA.
    pub cta_linear: u64,
}

/// A recorded timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// What was asked for.
    pub selection: TimelineSelection,
    /// Kernel of the launch (empty if the workload has fewer launches).
    pub kernel: String,
    /// Grid of the launch.
    pub grid: [u32; 3],
    /// First and one-past-last cycle of the launch.
    pub launch_cycles: (u64, u64),
    /// Rows, by placement then warp index.
    pub rows: Vec<WarpRow>,
    /// Barrier releases of the recorded CTAs, in order.
    pub marks: Vec<PhaseMark>,
    /// Linear indices of every CTA the SM ran in the launch, in placement
    /// order (the first [`MAX_LISTED_CTAS`]), for messages.
    pub ctas_on_sm: Vec<u64>,
    /// CTAs the SM ran in the launch.
    pub ctas_on_sm_total: u64,
    /// Warps of chosen CTAs not recorded: a CTA whose warps would take the
    /// rows past [`MAX_ROWS`] is left out whole.
    pub warps_omitted: u64,
}

/// Rows recorded at most (memory grows with rows × state changes).
pub const MAX_ROWS: usize = 1024;

/// CTAs listed in [`Timeline::ctas_on_sm`].
pub const MAX_LISTED_CTAS: usize = 4096;

/// The recorder an SM carries while a timeline is being recorded.
#[derive(Clone, Debug)]
pub struct TimelineRecorder {
    /// The result so far.
    pub timeline: Timeline,
    /// The current launch is the one asked for.
    pub active: bool,
    /// Row of each warp slot's current warp, if recorded.
    slot_row: Vec<Option<usize>>,
    /// Linear CTA index of each CTA slot's CTA, if recorded.
    cta_linear: Vec<Option<u64>>,
}

impl TimelineRecorder {
    /// A recorder for `sel` on an SM of `warp_slots` warp and `cta_slots`
    /// CTA slots.
    pub fn new(sel: TimelineSelection, warp_slots: usize, cta_slots: usize) -> TimelineRecorder {
        TimelineRecorder {
            timeline: Timeline {
                selection: sel,
                kernel: String::new(),
                grid: [0; 3],
                launch_cycles: (0, 0),
                rows: Vec::new(),
                marks: Vec::new(),
                ctas_on_sm: Vec::new(),
                ctas_on_sm_total: 0,
                warps_omitted: 0,
            },
            active: false,
            slot_row: vec![None; warp_slots],
            cta_linear: vec![None; cta_slots],
        }
    }

    /// Launch `index` of kernel `kernel` with grid `grid` starts at `now`.
    pub fn launch_start(&mut self, index: u32, kernel: &str, grid: [u32; 3], now: u64) {
        self.active = index == self.timeline.selection.launch;
        if self.active {
            self.timeline.kernel = kernel.to_string();
            self.timeline.grid = grid;
            self.timeline.launch_cycles = (now, now);
        }
    }

    /// The launch asked for ended at `now` (exclusive).
    pub fn launch_end(&mut self, now: u64) {
        if self.active {
            self.timeline.launch_cycles.1 = now;
            self.active = false;
        }
    }

    /// CTA `id` was placed in CTA slot `c` with its warps in `slots`,
    /// alive from `start`.
    pub fn cta_placed(&mut self, c: usize, id: [u32; 3], slots: &[u32], start: u64) {
        if !self.active {
            return;
        }
        let g = self.timeline.grid;
        let linear = u64::from(id[0])
            + u64::from(g[0]) * (u64::from(id[1]) + u64::from(g[1]) * u64::from(id[2]));
        let t = &mut self.timeline;
        t.ctas_on_sm_total += 1;
        if t.ctas_on_sm.len() < MAX_LISTED_CTAS {
            t.ctas_on_sm.push(linear);
        }
        let mut wanted = t
            .selection
            .ctas
            .is_none_or(|(a, b)| (a..b).contains(&linear));
        if wanted && t.rows.len() + slots.len() > MAX_ROWS {
            t.warps_omitted += slots.len() as u64;
            wanted = false;
        }
        if let Some(x) = self.cta_linear.get_mut(c) {
            *x = wanted.then_some(linear);
        }
        if !wanted {
            return;
        }
        for (w, &s) in slots.iter().enumerate() {
            if let Some(r) = self.slot_row.get_mut(s as usize) {
                *r = Some(t.rows.len());
            }
            t.rows.push(WarpRow {
                cta: id,
                cta_linear: linear,
                warp: w as u32,
                start,
                end: start,
                changes: vec![(start, crate::timing::Stall::Fetch as u8)],
            });
        }
    }

    /// Warp slot `slot` is charged state `code` from cycle `now`.
    #[inline]
    pub fn state(&mut self, slot: u32, now: u64, code: u8) {
        if let Some(Some(r)) = self.slot_row.get(slot as usize) {
            let changes = &mut self.timeline.rows[*r].changes;
            match changes.last_mut() {
                // Several changes within one cycle: the last holds.
                Some(last) if last.0 == now => last.1 = code,
                _ => changes.push((now, code)),
            }
        }
    }

    /// Warp slot `slot`'s CTA retired; the warp existed until `end`.
    pub fn retired(&mut self, slot: u32, end: u64) {
        if let Some(r) = self.slot_row.get_mut(slot as usize).and_then(Option::take) {
            self.timeline.rows[r].end = end;
        }
    }

    /// A barrier of CTA slot `c` released at `now`.
    pub fn released(&mut self, c: usize, now: u64) {
        if let Some(Some(linear)) = self.cta_linear.get(c) {
            self.timeline.marks.push(PhaseMark {
                cycle: now,
                cta_linear: *linear,
            });
        }
    }

    /// CTA slot `c` was vacated.
    pub fn cta_retired(&mut self, c: usize) {
        if let Some(x) = self.cta_linear.get_mut(c) {
            *x = None;
        }
    }
}
