//! DAWS's static load classification table and the dynamic load
//! classifier of Detected-DAWS [DAWS 5.1, 5.2, Fig. 7 (C), (E), (F), (G)].
//!
//! * The **classification table** holds, per static load in a loop with
//!   intra-warp locality, whether it is diverged and its intra-loop
//!   repetition id; [`ClassificationTable::footprint`] turns it into a
//!   warp's predicted cache footprint for one loop iteration (5.1.1).
//! * The **classifier** follows one *sampling warp* per loop (the first to
//!   enter it with more than two active lanes; replaced when it leaves).
//!   For each load of a sampling warp it updates:
//!   - the loop's *locality counter*: +1 if the load showed intra-warp
//!     locality (a hit on a line the warp brought in, or a victim-tag hit),
//!     −1 otherwise; saturating in [−8, 7] (gpusim's choice: the paper
//!     gives no width). Loops with a positive counter have locality;
//!   - the load PC's *divergence counter*: when more than two lanes are
//!     active, +1 if the coalescer made more than two requests, else −1;
//!     saturating in [0, 3]; the load is diverged while it is above 1;
//!   - the *intra-loop repetition detector* (ILRD): a set-associative LRU
//!     tag array (`sched.daws_ilrd_entries`, 64, `sched.daws_ilrd_ways`,
//!     8) of (line, load PC, warp). A line already there for the same warp
//!     but another PC gives both PCs one repetition id. A sampling warp's
//!     entries are cleared when it branches back to its loop's start (and
//!     when it leaves the loop).
//!
//!   Loads of loops with locality are then entered (or updated) in the
//!   classification table.

use crate::sched::LoadFeedback;
use crate::sched::daws::loops::LoopTable;

/// One entry of the static load classification table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadClass {
    /// The loop (innermost) the load is in.
    pub loop_id: u32,
    /// Diverged (one line per active lane) rather than converged.
    pub diverged: bool,
    /// Intra-loop repetition id: loads with the same id touch the same
    /// lines in an iteration and count once.
    pub rep: u32,
}

/// The static load classification table of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassificationTable {
    /// Entry per PC.
    entries: Vec<Option<LoadClass>>,
    /// Per loop: it has intra-warp locality (predictions are made for it).
    locality: Vec<bool>,
}

impl ClassificationTable {
    /// An empty table for a kernel of `insts` instructions and `loops`
    /// loops.
    pub fn new(insts: usize, loops: usize) -> ClassificationTable {
        ClassificationTable {
            entries: vec![None; insts],
            locality: vec![false; loops],
        }
    }

    /// Enters or updates the load at `pc`.
    pub fn set(&mut self, pc: u32, class: LoadClass) {
        if let Some(e) = self.entries.get_mut(pc as usize) {
            *e = Some(class);
        }
    }

    /// The entry of the load at `pc`.
    pub fn get(&self, pc: u32) -> Option<LoadClass> {
        self.entries.get(pc as usize).copied().flatten()
    }

    /// Marks loop `l` as having (or not having) intra-warp locality.
    pub fn set_locality(&mut self, l: u32, yes: bool) {
        if let Some(x) = self.locality.get_mut(l as usize) {
            *x = yes;
        }
    }

    /// Loop `l` has intra-warp locality.
    pub fn has_locality(&self, l: u32) -> bool {
        self.locality.get(l as usize).copied().unwrap_or(false)
    }

    /// Every entry, by PC.
    pub fn entries(&self) -> impl Iterator<Item = (u32, LoadClass)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(pc, e)| e.map(|c| (pc as u32, c)))
    }

    /// Predicted cache lines one iteration of loop `l` touches for a warp
    /// with `lanes` active lanes [DAWS 5.1.1]: each repetition group of the
    /// loop's classified loads counts once — as many lines as active lanes
    /// if any load of the group is diverged, else 2 — and 1 line when one
    /// lane is active. 0 for a loop without intra-warp locality.
    pub fn footprint(&self, loops: &LoopTable, l: u32, lanes: u32) -> u32 {
        if !self.has_locality(l) || lanes == 0 {
            return 0;
        }
        let mut groups: Vec<(u32, bool)> = Vec::new();
        for &pc in &loops.loops[l as usize].loads {
            if let Some(c) = self.get(pc) {
                match groups.iter_mut().find(|g| g.0 == c.rep) {
                    Some(g) => g.1 |= c.diverged,
                    None => groups.push((c.rep, c.diverged)),
                }
            }
        }
        groups
            .iter()
            .map(|&(_, diverged)| {
                if lanes <= 1 {
                    1
                } else if diverged {
                    lanes
                } else {
                    2
                }
            })
            .sum()
    }
}

/// One ILRD entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct IlrdEntry {
    valid: bool,
    line: u64,
    pc: u32,
    warp: u32,
    stamp: u64,
}

/// The intra-loop repetition detector: a set-associative LRU tag array.
#[derive(Clone, Debug)]
pub struct Ilrd {
    sets: usize,
    ways: usize,
    entries: Vec<IlrdEntry>,
    clock: u64,
}

impl Ilrd {
    /// `entries` entries in sets of `ways`.
    pub fn new(entries: u32, ways: u32) -> Ilrd {
        let ways = ways.max(1) as usize;
        let sets = (entries as usize / ways).max(1);
        Ilrd {
            sets,
            ways,
            entries: vec![IlrdEntry::default(); sets * ways],
            clock: 0,
        }
    }

    /// Probes `line` for `warp`: returns the PC already recorded for it,
    /// or records (`line`, `pc`, `warp`), evicting the set's LRU entry.
    pub fn probe(&mut self, line: u64, pc: u32, warp: u32) -> Option<u32> {
        self.clock += 1;
        let s = (line % self.sets as u64) as usize * self.ways;
        let set = &mut self.entries[s..s + self.ways];
        if let Some(e) = set
            .iter_mut()
            .find(|e| e.valid && e.line == line && e.warp == warp)
        {
            e.stamp = self.clock;
            return Some(e.pc);
        }
        let victim = set
            .iter_mut()
            .min_by_key(|e| (e.valid, e.stamp))
            .expect("ways ≥ 1");
        *victim = IlrdEntry {
            valid: true,
            line,
            pc,
            warp,
            stamp: self.clock,
        };
        None
    }

    /// Forgets every entry of `warp`.
    pub fn clear_warp(&mut self, warp: u32) {
        for e in &mut self.entries {
            if e.warp == warp {
                e.valid = false;
            }
        }
    }
}

/// The dynamic load classifier of one SM.
#[derive(Clone, Debug)]
pub struct LoadClassifier {
    /// Sampling warp per loop.
    sampler: Vec<Option<u32>>,
    /// Locality counter per loop.
    locality: Vec<i32>,
    /// Divergence counter per PC.
    divergence: Vec<i32>,
    /// Repetition id per PC (initially the PC itself).
    rep: Vec<u32>,
    /// Loads (PCs) a sampling warp executed.
    seen: Vec<bool>,
    ilrd: Ilrd,
}

/// Saturation bounds of the locality counter.
const LOCALITY_RANGE: (i32, i32) = (-8, 7);
/// Saturation bounds of the divergence counter.
const DIVERGENCE_RANGE: (i32, i32) = (0, 3);

impl LoadClassifier {
    /// A classifier for a kernel of `insts` instructions and `loops` loops.
    pub fn new(insts: usize, loops: usize, ilrd_entries: u32, ilrd_ways: u32) -> LoadClassifier {
        LoadClassifier {
            sampler: vec![None; loops],
            locality: vec![0; loops],
            divergence: vec![0; insts],
            rep: (0..insts as u32).collect(),
            seen: vec![false; insts],
            ilrd: Ilrd::new(ilrd_entries, ilrd_ways),
        }
    }

    /// The sampling warp of loop `l`.
    pub fn sampler(&self, l: u32) -> Option<u32> {
        self.sampler[l as usize]
    }

    /// Loop `l`'s locality counter.
    pub fn locality(&self, l: u32) -> i32 {
        self.locality[l as usize]
    }

    /// The load at `pc` is classified diverged.
    pub fn diverged(&self, pc: u32) -> bool {
        self.divergence[pc as usize] > 1
    }

    /// The load at `pc`'s repetition id.
    pub fn rep(&self, pc: u32) -> u32 {
        self.rep[pc as usize]
    }

    /// Loads a sampling warp executed.
    pub fn seen(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.seen.len() as u32).filter(|&pc| self.seen[pc as usize])
    }

    /// `warp` issued the first instruction of loop `l` with `lanes` active:
    /// `entering` the loop, or starting another iteration.
    pub fn loop_begin(&mut self, warp: u32, l: u32, lanes: u32, entering: bool) {
        let s = &mut self.sampler[l as usize];
        if entering {
            if s.is_none() && lanes > 2 {
                *s = Some(warp);
            }
        } else if *s == Some(warp) {
            self.ilrd.clear_warp(warp);
        }
    }

    /// `warp` left loop `l` (or exited).
    pub fn left(&mut self, warp: u32, l: u32) {
        if self.sampler[l as usize] == Some(warp) {
            self.sampler[l as usize] = None;
            self.ilrd.clear_warp(warp);
        }
    }

    /// Feedback on a load of `warp`; updates `table` for loops with
    /// locality. Loads of non-sampling warps are ignored.
    pub fn load(
        &mut self,
        warp: u32,
        fb: &LoadFeedback<'_>,
        loops: &LoopTable,
        table: &mut ClassificationTable,
    ) {
        let Some(l) = loops.innermost(fb.pc) else {
            return;
        };
        if self.sampler[l as usize] != Some(warp) {
            return;
        }
        let pc = fb.pc as usize;
        self.seen[pc] = true;
        let loc = &mut self.locality[l as usize];
        *loc = if fb.has_intra_warp_locality() {
            *loc + 1
        } else {
            *loc - 1
        }
        .clamp(LOCALITY_RANGE.0, LOCALITY_RANGE.1);
        if fb.lanes > 2 {
            let d = &mut self.divergence[pc];
            *d = if fb.lines.len() > 2 { *d + 1 } else { *d - 1 }
                .clamp(DIVERGENCE_RANGE.0, DIVERGENCE_RANGE.1);
        }
        let mut merged = false;
        for &line in fb.lines {
            if let Some(other) = self.ilrd.probe(line, fb.pc, warp)
                && other != fb.pc
            {
                merged |= self.merge(other, fb.pc);
            }
        }
        let has = self.locality[l as usize] > 0;
        table.set_locality(l, has);
        if has {
            table.set(
                fb.pc,
                LoadClass {
                    loop_id: l,
                    diverged: self.diverged(fb.pc),
                    rep: self.rep(fb.pc),
                },
            );
        }
        if merged {
            // Repetition ids changed: refresh the entries they touch.
            let updates: Vec<(u32, LoadClass)> = table
                .entries()
                .map(|(p, c)| {
                    (
                        p,
                        LoadClass {
                            rep: self.rep(p),
                            ..c
                        },
                    )
                })
                .collect();
            for (p, c) in updates {
                table.set(p, c);
            }
        }
    }

    /// Gives the loads at `a` and `b` one repetition id (the smaller);
    /// true if anything changed.
    pub fn merge(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.rep[a as usize], self.rep[b as usize]);
        if ra == rb {
            return false;
        }
        let (keep, drop) = (ra.min(rb), ra.max(rb));
        for r in &mut self.rep {
            if *r == drop {
                *r = keep;
            }
        }
        true
    }
}
