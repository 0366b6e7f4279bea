//! Names → policy constructors (the `--sched` and `--fetch` values).

use crate::config::GpuConfig;
use crate::sched::baseline::{FetchLrr, Gto, Gtrr, Lrr, Oldest, Srr};
use crate::sched::cta_rr::CtaRoundRobin;
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
];

/// Fetch policies: name and description.
pub const FETCH_POLICIES: &[(&str, &str)] =
    &[("lrr", "round robin over warps with an empty I-buffer")];

/// A fresh issue policy for one scheduler, or `None` for an unknown name.
pub fn issue_policy(name: &str, cfg: &GpuConfig) -> Option<Box<dyn IssuePolicy>> {
    Some(match name {
        "lrr" => Box::new(Lrr::default()),
        "srr" => Box::new(Srr::default()),
        "gto" => Box::new(Gto::default()),
        "gtrr" => Box::new(Gtrr::default()),
        "oldest" => Box::new(Oldest),
        "two-level" => Box::new(TwoLevel::new(cfg.sched.two_level_active)),
        _ => return None,
    })
}

/// A fresh fetch policy for one SM.
pub fn fetch_policy(name: &str) -> Option<Box<dyn FetchPolicy>> {
    match name {
        "lrr" => Some(Box::new(FetchLrr::default())),
        _ => None,
    }
}

/// CTA policies: name and description.
pub const CTA_POLICIES: &[(&str, &str)] = &[(
    "rr",
    "round robin over SMs, one CTA per SM per cycle while it fits",
)];

/// A fresh CTA policy for one GPU.
pub fn cta_policy(name: &str) -> Option<Box<dyn CtaPolicy>> {
    match name {
        "rr" => Some(Box::new(CtaRoundRobin::default())),
        _ => None,
    }
}
