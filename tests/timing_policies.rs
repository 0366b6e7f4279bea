//! Timing never changes results: every shipped kernel passes its reference
//! check under every issue policy, and every run's stall categories sum to
//! schedulers × cycles (DESIGN §3).

use std::path::{Path, PathBuf};

use gpusim::config::GpuConfig;
use std::sync::Arc;

use gpusim::sched::registry::ISSUE_POLICIES;
use gpusim::timing::Stall;
use gpusim::timing::{Policies, run_timed_with};
use gpusim::workload::runner::prepare;

fn manifests() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let mut v: Vec<PathBuf> = Vec::new();
    for dir in [root.clone(), root.join("sync"), root.join("micro")] {
        v.extend(
            std::fs::read_dir(&dir)
                .expect("kernels/")
                .map(|e| e.expect("dir entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml")),
        );
    }
    v.sort();
    v
}

#[test]
fn every_kernel_passes_under_every_policy() {
    let cfg = GpuConfig::gtx480();
    let mut failures = Vec::new();
    let mut runs = 0;
    for m in manifests() {
        let p = prepare(&m, None).unwrap_or_else(|_| panic!("{}", m.display()));
        // A DAWS profile of this workload for `daws-profiled`.
        let rec = Policies {
            record_profile: true,
            ..Policies::sched("gto")
        };
        let profile = run_timed_with(&p, &[], &cfg, &rec, false)
            .expect("profiling run")
            .profile
            .map(Arc::new);
        for (name, _) in ISSUE_POLICIES {
            // `best-swl` is a sweep of `swl:N` runs (tested in daws.rs).
            let sched = match *name {
                "best-swl" => continue,
                "swl:N" => "swl:2",
                s => s,
            };
            runs += 1;
            let pol = Policies {
                profile: profile.clone(),
                ..Policies::sched(sched)
            };
            match run_timed_with(&p, &[], &cfg, &pol, false) {
                Ok(r) => {
                    if !r.check.passed() {
                        failures.push(format!("{} {sched}: {}", m.display(), r.check));
                    }
                    let s = &r.stats;
                    let total = s.stalls.total();
                    if total != s.schedulers * s.cycles {
                        failures.push(format!(
                            "{} {sched}: stalls sum to {total}, not {} × {}",
                            m.display(),
                            s.schedulers,
                            s.cycles
                        ));
                    }
                    // Core activity (DAWS Fig. 12) splits the same
                    // scheduler-cycles: issue cycles are the issued ones,
                    // throttled ones only where the policy throttles.
                    let a = s.locality.activity;
                    if a.issue + a.no_ready + a.throttled != s.schedulers * s.cycles
                        || a.issue != s.stalls.issued
                        || (a.throttled > 0 && s.total.warp_states.throttled == 0)
                    {
                        failures.push(format!("{} {sched}: activity {a:?}", m.display()));
                    }
                    // Lane histogram: one entry per warp instruction.
                    if s.total.lane_histogram.iter().sum::<u64>() != s.warp_insts {
                        failures.push(format!("{} {sched}: lane histogram", m.display()));
                    }
                    // Per-warp counters: every warp is charged one state
                    // per cycle of its life, and they add up to the SMs'.
                    let mut sum = gpusim::timing::StallCounts::default();
                    let mut ready = 0;
                    for w in &s.warps {
                        if w.states.total() + w.ready != w.end - w.start {
                            failures.push(format!(
                                "{} {sched}: warp {:?}/{} charged {} + {} cycles over {}..{}",
                                m.display(),
                                w.cta,
                                w.warp,
                                w.states.total(),
                                w.ready,
                                w.start,
                                w.end
                            ));
                            break;
                        }
                        sum.merge(&w.states);
                        ready += w.ready;
                    }
                    if sum != s.total.warp_states || ready != s.total.warp_ready {
                        failures.push(format!(
                            "{} {sched}: per-warp states {sum:?} + {ready} differ from the SM totals {:?} + {}",
                            m.display(),
                            s.total.warp_states,
                            s.total.warp_ready
                        ));
                    }
                    let insts: u64 = s.warps.iter().map(|w| w.insts).sum();
                    if insts != s.warp_insts || sum.issued != s.warp_insts {
                        failures.push(format!("{} {sched}: per-warp instructions", m.display()));
                    }
                    if s.stalls.get(Stall::Issued) != s.warp_insts {
                        failures.push(format!(
                            "{} {sched}: {} issue cycles for {} instructions (issue width 1)",
                            m.display(),
                            s.stalls.issued,
                            s.warp_insts
                        ));
                    }
                }
                Err(e) => failures.push(format!("{} {sched}: {e:?}", m.display())),
            }
        }
    }
    assert!(runs > 150, "{runs} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
