//! Names → policy constructors (the `--sched` and `--fetch` values).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::config::GpuConfig;
use crate::sched::baseline::{FetchLrr, Gto, Gtrr, Lrr, Oldest, Srr};
use crate::sched::blws::Blws;
use crate::sched::ccws::{Ccws, CcwsScores};
use crate::sched::cta_rr::CtaRoundRobin;
use crate::sched::cta_throttle::CtaThrottle;
use crate::sched::daws::profile::{DawsProfile, ProfileRecorder};
use crate::sched::daws::{Daws, DawsCore, DawsMode};
use crate::sched::fetch_cff::FetchCff;
use crate::sched::fetch_fef::FetchFef;
use crate::sched::lfws::Lfws;
use crate::sched::llos::Llos;
use crate::sched::mwf::{Mwf, WithinCta};
use crate::sched::saws::Saws;
use crate::sched::swl::Swl;
use crate::sched::two_level::TwoLevel;
use crate::sched::{CtaPolicy, FetchPolicy, IssuePolicy};

/// Issue policies: name and one-line description.
pub const ISSUE_POLICIES: &[(&str, &str)] = &[
    (
        "lrr",
        "loose round robin from the warp after the last issued",
    ),
    ("srr", "strict round robin: only the warp in turn may issue"),
    ("gto", "greedy then oldest (default)"),
    ("gtrr", "greedy then round robin"),
    ("oldest", "oldest first"),
    (
        "two-level",
        "active set of sched.two_level_active warps, LRR; long ops demote",
    ),
    (
        "two-level-opt",
        "two-level with the active set ordered long-operation-first (LFWS)",
    ),
    (
        "lpi",
        "two-level sets with pending warps interleaved between active ones by id",
    ),
    (
        "llos",
        "guiding queue (global reads the scoreboard held) first, then the rest, round robin",
    ),
    (
        "lfws",
        "long-operation-first: warps next to run a global/local ld/st first, greedy then id",
    ),
    (
        "blws",
        "block-latency: CTAs round robin, inside a CTA most-stalled warps first",
    ),
    (
        "mwf-lrr",
        "most waiting first: CTAs with most warps at a barrier first, LRR inside a CTA",
    ),
    (
        "mwf-gto",
        "most waiting first: CTAs with most warps at a barrier first, GTO inside a CTA",
    ),
    (
        "baws",
        "barrier-aware: mwf-gto with the cff fetch policy (its default --fetch)",
    ),
    (
        "saws",
        "CTAs waiting at a barrier first by first-hit cycle, the rest GTO",
    ),
    (
        "swl:N",
        "static warp limiting: GTO over only the N oldest warps of the SM",
    ),
    (
        "best-swl",
        "runs swl:N for N = 1..core.max_warps_per_sm and reports the best",
    ),
    (
        "ccws",
        "cache-conscious wavefront scheduling: victim-tag lost-locality scores limit loads",
    ),
    (
        "daws",
        "divergence-aware (detected): footprint predictions limit loads in loops",
    ),
    (
        "daws-profiled",
        "divergence-aware with the load classification of --profile FILE",
    ),
];

/// Inputs some policies need besides the config.
#[derive(Clone, Debug, Default)]
pub struct PolicyEnv {
    /// The load classification for `daws-profiled`.
    pub profile: Option<Arc<DawsProfile>>,
    /// Record a DAWS profile (any issue policy; see `daws::profile`).
    pub recorder: Option<Rc<RefCell<ProfileRecorder>>>,
}

/// Why no issue policy could be built for a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyError {
    /// Not a policy name.
    Unknown,
    /// A known policy that cannot be built: the reason.
    Invalid(String),
}

/// The `N` of `swl:N`, if `name` has that form.
pub fn swl_limit(name: &str) -> Option<Result<u32, String>> {
    let n = name.strip_prefix("swl:")?;
    Some(match n.parse::<u32>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(format!(
            "`{name}`: the warp limit must be a whole number from 1 (as in `swl:4`)"
        )),
    })
}

/// The issue policies of one SM's `n` schedulers (cache-aware policies
/// share one per-SM state among them).
pub fn issue_policies(
    name: &str,
    cfg: &GpuConfig,
    n: usize,
    env: &PolicyEnv,
) -> Result<Vec<Box<dyn IssuePolicy>>, PolicyError> {
    if !is_listed_issue_policy(name) {
        return Err(PolicyError::Unknown);
    }
    let slots = cfg.core.max_warps_per_sm as usize;
    let mut pols: Vec<Box<dyn IssuePolicy>> = match name {
        "ccws" => {
            let scores = Rc::new(RefCell::new(CcwsScores::new(cfg, slots)));
            (0..n)
                .map(|_| Box::new(Ccws::new(scores.clone())) as Box<dyn IssuePolicy>)
                .collect()
        }
        "daws" | "daws-profiled" => {
            let mode = if name == "daws" {
                DawsMode::Detected
            } else {
                let Some(p) = env.profile.clone() else {
                    return Err(PolicyError::Invalid(
                        "`daws-profiled` needs a load classification profile: --profile FILE (made by `gpusim profile`)".into(),
                    ));
                };
                DawsMode::Profiled(p)
            };
            let core = Rc::new(RefCell::new(DawsCore::new(cfg, slots, mode)));
            (0..n)
                .map(|_| Box::new(Daws::new(core.clone())) as Box<dyn IssuePolicy>)
                .collect()
        }
        _ => {
            if let Some(limit) = swl_limit(name) {
                let limit = limit.map_err(PolicyError::Invalid)?;
                (0..n)
                    .map(|_| Box::new(Swl::new(limit)) as Box<dyn IssuePolicy>)
                    .collect()
            } else if name == "best-swl" {
                return Err(PolicyError::Invalid(
                    "`best-swl` is a sweep of `swl:N` runs, not one policy (use it with `gpusim run`)".into(),
                ));
            } else {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(issue_policy(name, cfg).ok_or(PolicyError::Unknown)?);
                }
                v
            }
        }
    };
    if let Some(r) = &env.recorder {
        let core = Rc::new(RefCell::new(DawsCore::new(
            cfg,
            slots,
            DawsMode::Record(r.clone()),
        )));
        pols = pols
            .into_iter()
            .map(|p| Box::new(Daws::recording(core.clone(), p)) as Box<dyn IssuePolicy>)
            .collect();
    }
    Ok(pols)
}

/// `name` is an entry of [`ISSUE_POLICIES`] (`swl:…` stands for the
/// `swl:N` entry, whatever follows the colon). The constructors accept only
/// listed names, so every policy has a description for `gpusim list`.
pub fn is_listed_issue_policy(name: &str) -> bool {
    let family = if name.starts_with("swl:") {
        "swl:N"
    } else {
        name
    };
    ISSUE_POLICIES.iter().any(|(n, _)| *n == family)
}

/// `name` is an entry of `table` (a `(name, description)` registry).
fn listed(table: &[(&str, &str)], name: &str) -> bool {
    table.iter().any(|(n, _)| *n == name)
}

/// Fetch policies: name and description.
pub const FETCH_POLICIES: &[(&str, &str)] = &[
    ("lrr", "round robin over warps with an empty I-buffer"),
    (
        "cff",
        "critical fetch first: the warp the issue policy ranks first among those with an empty I-buffer",
    ),
    (
        "fef",
        "fewest I-buffer entries first (tops up I-buffers with room)",
    ),
];

/// The fetch policy `--sched NAME` runs with when `--fetch` is not given:
/// `cff` for `baws` (the paper's design), else `lrr`.
pub fn default_fetch(sched: &str) -> &'static str {
    match sched {
        "baws" => "cff",
        _ => "lrr",
    }
}

/// A fresh baseline issue policy for one scheduler (the policies without
/// per-SM state), or `None` for other names.
pub fn issue_policy(name: &str, cfg: &GpuConfig) -> Option<Box<dyn IssuePolicy>> {
    if !is_listed_issue_policy(name) {
        return None;
    }
    Some(match name {
        "lrr" => Box::new(Lrr::default()),
        "srr" => Box::new(Srr::default()),
        "gto" => Box::new(Gto::default()),
        "gtrr" => Box::new(Gtrr::default()),
        "oldest" => Box::new(Oldest),
        "two-level" => Box::new(TwoLevel::new(cfg.sched.two_level_active)),
        "two-level-opt" => Box::new(TwoLevel::long_first(cfg.sched.two_level_active)),
        "lpi" => Box::new(TwoLevel::interleaved(cfg.sched.two_level_active)),
        "llos" => Box::new(Llos::default()),
        "lfws" => Box::new(Lfws::default()),
        "blws" => Box::new(Blws::default()),
        "mwf-lrr" => Box::new(Mwf::new(WithinCta::Lrr)),
        "mwf-gto" | "baws" => Box::new(Mwf::new(WithinCta::Gto)),
        "saws" => Box::new(Saws::default()),
        _ => return None,
    })
}

/// A fresh fetch policy for one SM.
pub fn fetch_policy(name: &str) -> Option<Box<dyn FetchPolicy>> {
    if !listed(FETCH_POLICIES, name) {
        return None;
    }
    match name {
        "lrr" => Some(Box::new(FetchLrr::default())),
        "cff" => Some(Box::new(FetchCff)),
        "fef" => Some(Box::new(FetchFef)),
        _ => None,
    }
}

/// CTA policies: name and description.
pub const CTA_POLICIES: &[(&str, &str)] = &[
    (
        "rr",
        "round robin over SMs, one CTA per SM per cycle while it fits",
    ),
    (
        "throttle",
        "BLWS SM throttling: fewer SMs take new CTAs while DRAM-full + icnt stalls rise",
    ),
];

/// A fresh CTA policy for one GPU.
pub fn cta_policy(name: &str) -> Option<Box<dyn CtaPolicy>> {
    if !listed(CTA_POLICIES, name) {
        return None;
    }
    match name {
        "rr" => Some(Box::new(CtaRoundRobin::default())),
        "throttle" => Some(Box::new(CtaThrottle::default())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listed name made concrete (`swl:N` -> `swl:3`).
    fn concrete(name: &str) -> String {
        name.replace(":N", ":3")
    }

    #[test]
    fn every_listed_issue_policy_builds_and_has_a_description() {
        let cfg = GpuConfig::tiny();
        let env = PolicyEnv {
            profile: Some(Arc::new(DawsProfile::default())),
            recorder: None,
        };
        for (name, desc) in ISSUE_POLICIES {
            assert!(!desc.trim().is_empty(), "`{name}` has no description");
            assert!(!desc.contains('\n'), "`{name}`: not one line");
            let n = concrete(name);
            match issue_policies(&n, &cfg, 2, &env) {
                Ok(p) => assert_eq!(p.len(), 2, "{n}"),
                // The one listed name that is a sweep, not a policy.
                Err(PolicyError::Invalid(e)) if *name == "best-swl" => {
                    assert!(e.contains("sweep"), "{e}")
                }
                Err(e) => panic!("listed `{n}` is not accepted: {e:?}"),
            }
        }
    }

    #[test]
    fn unlisted_names_are_refused_by_every_constructor() {
        let cfg = GpuConfig::tiny();
        for bad in ["", "GTO", "gto ", "swl", "mwf", "daws-detected", "rr"] {
            assert_eq!(
                issue_policies(bad, &cfg, 1, &PolicyEnv::default()).err(),
                Some(PolicyError::Unknown),
                "`{bad}`"
            );
            assert!(issue_policy(bad, &cfg).is_none(), "`{bad}`");
        }
        // `swl:` with a bad limit is the listed `swl:N` with a reason.
        assert!(matches!(
            issue_policies("swl:0", &cfg, 1, &PolicyEnv::default()),
            Err(PolicyError::Invalid(_))
        ));
        for bad in ["", "LRR", "gto", "rr"] {
            assert!(fetch_policy(bad).is_none(), "fetch `{bad}`");
        }
        for bad in ["", "RR", "lrr", "throttle:2"] {
            assert!(cta_policy(bad).is_none(), "cta `{bad}`");
        }
    }

    #[test]
    fn every_listed_fetch_and_cta_policy_builds() {
        for (name, desc) in FETCH_POLICIES {
            assert!(!desc.trim().is_empty(), "fetch `{name}`");
            assert!(fetch_policy(name).is_some(), "fetch `{name}`");
        }
        for (name, desc) in CTA_POLICIES {
            assert!(!desc.trim().is_empty(), "cta `{name}`");
            assert!(cta_policy(name).is_some(), "cta `{name}`");
        }
        // The defaults are listed.
        for s in ["baws", "gto"] {
            assert!(listed(FETCH_POLICIES, default_fetch(s)));
        }
    }
}
