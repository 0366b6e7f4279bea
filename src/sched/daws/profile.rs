//! Profiled-DAWS's load classification table as a file [DAWS 5.1]:
//! `gpusim profile K.ptx -o table.json` records it from a run (on one
//! input), `--sched daws-profiled --profile table.json` loads it for runs
//! on others.
//!
//! Recording runs Detected-DAWS's classifier (`classify.rs`) on every SM
//! beside the chosen scheduler, without throttling, and merges the SMs'
//! verdicts at the end of each launch: a loop has locality if the sum of
//! the SMs' locality counters is positive; a load is diverged if more SMs
//! classified it diverged than converged; two loads share a repetition id
//! if any SM saw them repeat. Launches of the same kernel add up.
//!
//! The file lists, per kernel, the loops with intra-warp locality and
//! their loads (PCs are instruction indices in the kernel; `line` is the
//! PTX source line, for the reader):
//!
//! ```json
//! { "format": "gpusim-daws-profile", "version": 1, "kernels": [
//!   { "kernel": "spmv_csr_scalar", "loops": [
//!     { "begin_pc": 14, "end_pc": 31, "line": 40, "loads": [
//!       { "pc": 17, "line": 43, "diverged": true, "rep": 17 } ] } ] } ] }
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::ir::Kernel;
use crate::sched::daws::classify::{ClassificationTable, LoadClass, LoadClassifier};
use crate::sched::daws::loops::LoopTable;

/// The `format` value of a profile file.
pub const PROFILE_FORMAT: &str = "gpusim-daws-profile";

/// A load classification table for every profiled kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DawsProfile {
    /// Always [`PROFILE_FORMAT`].
    pub format: String,
    /// Format version (1).
    pub version: u32,
    /// Per kernel.
    pub kernels: Vec<KernelProfile>,
}

/// The loops with intra-warp locality of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelProfile {
    /// Kernel (`.entry`) name.
    pub kernel: String,
    /// Loops with intra-warp locality.
    pub loops: Vec<LoopProfile>,
}

/// One loop with intra-warp locality.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopProfile {
    /// PC of its first instruction.
    pub begin_pc: u32,
    /// PC of its last instruction.
    pub end_pc: u32,
    /// Source line of its first instruction.
    pub line: u32,
    /// Its classified loads.
    pub loads: Vec<LoadProfile>,
}

/// One classified load.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadProfile {
    /// Its PC.
    pub pc: u32,
    /// Its source line.
    pub line: u32,
    /// Diverged (one line per active lane) or converged.
    pub diverged: bool,
    /// Repetition id (loads sharing one count once).
    pub rep: u32,
}

impl DawsProfile {
    /// Parses a profile file's text; `name` names it in errors.
    pub fn parse(name: &str, text: &str) -> Result<DawsProfile, String> {
        let p: DawsProfile =
            serde_json::from_str(text).map_err(|e| format!("{name}: not a DAWS profile: {e}"))?;
        if p.format != PROFILE_FORMAT || p.version != 1 {
            return Err(format!(
                "{name}: expected format \"{PROFILE_FORMAT}\" version 1, found \"{}\" version {}",
                p.format, p.version
            ));
        }
        Ok(p)
    }

    /// Checks that every profiled kernel, loop and load exists in
    /// `kernels` (name, loop table); `name` names the file in errors.
    pub fn check(&self, name: &str, kernels: &[(&Kernel, LoopTable)]) -> Result<(), String> {
        for kp in &self.kernels {
            let Some((k, loops)) = kernels.iter().find(|(k, _)| k.name == kp.kernel) else {
                return Err(format!(
                    "{name}: kernel `{}` is not in the program",
                    kp.kernel
                ));
            };
            for lp in &kp.loops {
                let Some(l) = loops.begins_at(lp.begin_pc) else {
                    return Err(format!(
                        "{name}: kernel `{}`: no loop begins at pc {} (profile of another version of the kernel?)",
                        k.name, lp.begin_pc
                    ));
                };
                for ld in &lp.loads {
                    if !loops.loops[l as usize].loads.contains(&ld.pc) {
                        return Err(format!(
                            "{name}: kernel `{}`: pc {} is not a global/local load or texture fetch of the loop at pc {}",
                            k.name, ld.pc, lp.begin_pc
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// [`DawsProfile::check`] against every kernel of `program`.
    pub fn check_program(&self, name: &str, program: &crate::Program) -> Result<(), String> {
        let tables: Vec<(&Kernel, LoopTable)> = program
            .module
            .kernels
            .iter()
            .zip(&program.analyses)
            // Texture fetches count: a profile recorded on a machine
            // without a texture cache throttles them too.
            .map(|(k, a)| (k, LoopTable::new(k, a, true)))
            .collect();
        self.check(name, &tables)
    }

    /// The classification table for `kernel` (empty if not profiled).
    pub fn table(&self, kernel: &str, loops: &LoopTable, insts: usize) -> ClassificationTable {
        let mut t = ClassificationTable::new(insts, loops.loops.len());
        let Some(kp) = self.kernels.iter().find(|k| k.kernel == kernel) else {
            return t;
        };
        for lp in &kp.loops {
            let Some(l) = loops.begins_at(lp.begin_pc) else {
                continue;
            };
            t.set_locality(l, true);
            for ld in &lp.loads {
                t.set(
                    ld.pc,
                    LoadClass {
                        loop_id: l,
                        diverged: ld.diverged,
                        rep: ld.rep,
                    },
                );
            }
        }
        t
    }
}

/// Votes of one kernel's launches.
#[derive(Clone, Debug, Default)]
struct KernelVotes {
    /// Loop begin PC → (end PC, source line, summed locality counters).
    loops: BTreeMap<u32, (u32, u32, i64)>,
    /// Load PC → (begin PC of its loop, source line, diverged votes −
    /// converged votes).
    loads: BTreeMap<u32, (u32, u32, i64)>,
    /// Load PCs seen repeating each other.
    reps: BTreeSet<(u32, u32)>,
}

/// Collects the SMs' classifier verdicts during a recording run.
#[derive(Clone, Debug, Default)]
pub struct ProfileRecorder {
    kernels: BTreeMap<String, KernelVotes>,
}

impl ProfileRecorder {
    /// Adds one SM's verdicts for a launch of `kernel`.
    pub fn add(&mut self, kernel: &Kernel, loops: &LoopTable, c: &LoadClassifier) {
        let v = self.kernels.entry(kernel.name.clone()).or_default();
        let line = |pc: u32| kernel.insts.get(pc as usize).map_or(0, |i| i.line);
        for (l, lf) in loops.loops.iter().enumerate() {
            let e = v
                .loops
                .entry(lf.begin)
                .or_insert((lf.end, line(lf.begin), 0));
            e.2 += i64::from(c.locality(l as u32));
        }
        let seen: Vec<u32> = c.seen().collect();
        for &pc in &seen {
            let Some(l) = loops.innermost(pc) else {
                continue;
            };
            let e = v
                .loads
                .entry(pc)
                .or_insert((loops.loops[l as usize].begin, line(pc), 0));
            e.2 += if c.diverged(pc) { 1 } else { -1 };
        }
        for &a in &seen {
            for &b in &seen {
                if a < b && c.rep(a) == c.rep(b) {
                    v.reps.insert((a, b));
                }
            }
        }
    }

    /// The merged profile.
    pub fn finish(&self) -> DawsProfile {
        let mut kernels = Vec::new();
        for (name, v) in &self.kernels {
            // Repetition ids: the smallest PC of each group.
            let mut rep: BTreeMap<u32, u32> = v.loads.keys().map(|&pc| (pc, pc)).collect();
            let mut changed = true;
            while changed {
                changed = false;
                for &(a, b) in &v.reps {
                    let (ra, rb) = (rep[&a], rep[&b]);
                    if ra != rb {
                        let m = ra.min(rb);
                        rep.insert(a, m);
                        rep.insert(b, m);
                        changed = true;
                    }
                }
            }
            let mut loops = Vec::new();
            for (&begin, &(end, line, locality)) in &v.loops {
                if locality <= 0 {
                    continue;
                }
                let loads: Vec<LoadProfile> = v
                    .loads
                    .iter()
                    .filter(|(_, (b, _, _))| *b == begin)
                    .map(|(&pc, &(_, line, votes))| LoadProfile {
                        pc,
                        line,
                        diverged: votes > 0,
                        rep: rep[&pc],
                    })
                    .collect();
                loops.push(LoopProfile {
                    begin_pc: begin,
                    end_pc: end,
                    line,
                    loads,
                });
            }
            kernels.push(KernelProfile {
                kernel: name.clone(),
                loops,
            });
        }
        DawsProfile {
            format: PROFILE_FORMAT.to_string(),
            version: 1,
            kernels,
        }
    }
}
