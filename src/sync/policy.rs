//! The work-group synchronization policies of the AWG paper (Duţu et al.,
//! "Independent Forward Progress of Work-groups", ISCA 2020, §IV.C–§V):
//! what a work-group (CTA) does after a waiting instruction fails its
//! comparison. The instruction itself always returns the value it read
//! (Mesa semantics: the kernel re-checks in a loop); the policy only
//! decides whether and how long the work-group stops issuing, whether the
//! SyncMon watches for its condition, and whether it gives up its slot.

use std::fmt;

/// How a monitor policy resumes the waiters of a met condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Every waiter at once (MonRS-All, MonR-All, MonNR-All).
    All,
    /// The oldest waiter; the others on a later event or a timeout
    /// (MonNR-One).
    One,
    /// AWG's prediction: all when more than one WG waits and the address
    /// saw more than two unique updates, else one (§V.A).
    Predict,
}

/// A `--sync` policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncPolicy {
    /// The HeteroSync baseline: a failed wait changes nothing; the WG
    /// keeps spinning (waiting instructions are the plain loads and CASes
    /// they extend).
    Busy,
    /// `sleep:MAX`: exponential backoff with `s_sleep` (§IV.C.i, Fig. 7):
    /// the WG sleeps, holding its slot, an interval that starts at
    /// `sync.sleep_initial` and doubles after each failed wait up to `max`
    /// cycles; a successful wait resets it.
    Sleep {
        /// The largest interval, in cycles.
        max: u64,
    },
    /// `timeout:T`: fixed timeout (§IV.C.ii, Fig. 8): the WG stalls `t`
    /// cycles; when the GPU is oversubscribed it is context-switched out
    /// for `t` instead.
    Timeout {
        /// The interval, in cycles.
        t: u64,
    },
    /// MonRS-All (§IV.C.iii): a separate wait arms the SyncMon on the
    /// address; any later access to it resumes every waiter (sporadic
    /// notifications, no condition check).
    MonRsAll,
    /// MonR-All (§IV.C.iv): the SyncMon checks the condition on each write
    /// and resumes every waiter when it holds; armed by a separate wait
    /// instruction, so a write between the failed check and the arming is
    /// missed (the lost-update window of Fig. 10).
    MonRAll,
    /// MonNR-All (§IV.D): the waiting atomic arms the SyncMon itself,
    /// atomically with its comparison (no window); resume all.
    MonNrAll,
    /// MonNR-One (§IV.E): as MonNR-All but one waiter per condition-met
    /// event; the others on a later event or after `sync.resume_timeout`.
    MonNrOne,
    /// AWG (§V): MonNR with the resume count predicted per address by a
    /// counting Bloom filter of unique updates, the SyncMon's Monitor Log
    /// on overflow, and a stall for the predicted wait before a waiting
    /// WG is context-switched out.
    Awg,
}

/// Every policy name with a one-line description (`gpusim list`, help).
pub const SYNC_POLICIES: &[(&str, &str)] = &[
    (
        "busy",
        "a failed wait changes nothing: the WG spins (HeteroSync baseline)",
    ),
    (
        "sleep:MAX",
        "the WG sleeps, holding its slot, an interval doubling per failed wait up to MAX cycles",
    ),
    (
        "timeout:T",
        "the WG stalls T cycles, or is switched out for T when the GPU is oversubscribed",
    ),
    (
        "monrs-all",
        "SyncMon resumes every waiter on any access to the address (sporadic)",
    ),
    (
        "monr-all",
        "SyncMon checks the condition, resumes all; armed late (lost-update window)",
    ),
    (
        "monnr-all",
        "the waiting atomic arms the SyncMon (no window); resume all when the condition holds",
    ),
    (
        "monnr-one",
        "as monnr-all, one waiter per condition-met event; the rest later or on timeout",
    ),
    (
        "awg",
        "AWG: SyncMon + Bloom-filter resume prediction + Monitor Log + predicted stall before switching out",
    ),
];

impl SyncPolicy {
    /// Parses a `--sync` value (`busy`, `sleep:4000`, `timeout:10000`,
    /// `monrs-all`, `monr-all`, `monnr-all`, `monnr-one`, `awg`); the error
    /// names the choices.
    pub fn parse(s: &str) -> Result<SyncPolicy, String> {
        let number = |name: &str, v: &str| -> Result<u64, String> {
            let v = v.replace('_', "");
            let (digits, scale) = match v.strip_suffix(['k', 'K']) {
                Some(d) => (d.to_string(), 1000),
                None => (v.clone(), 1),
            };
            match digits.parse::<u64>() {
                Ok(n) if n > 0 => Ok(n * scale),
                _ => Err(format!(
                    "`{s}`: {name} takes a positive number of cycles (`{name}:4000` or `{name}:4k`)"
                )),
            }
        };
        Ok(match s {
            "busy" => SyncPolicy::Busy,
            "monrs-all" => SyncPolicy::MonRsAll,
            "monr-all" => SyncPolicy::MonRAll,
            "monnr-all" => SyncPolicy::MonNrAll,
            "monnr-one" => SyncPolicy::MonNrOne,
            "awg" => SyncPolicy::Awg,
            _ => {
                if let Some(v) = s.strip_prefix("sleep:") {
                    SyncPolicy::Sleep {
                        max: number("sleep", v)?,
                    }
                } else if let Some(v) = s.strip_prefix("timeout:") {
                    SyncPolicy::Timeout {
                        t: number("timeout", v)?,
                    }
                } else {
                    let names: Vec<&str> = SYNC_POLICIES.iter().map(|p| p.0).collect();
                    return Err(format!(
                        "unknown sync policy `{s}` (choices: {})",
                        names.join(", ")
                    ));
                }
            }
        })
    }

    /// Waiting loads are performed at the L2 as compare-and-wait atomics
    /// (every policy but `busy`, where they are plain loads).
    pub fn waits_at_l2(self) -> bool {
        self != SyncPolicy::Busy
    }

    /// The SyncMon watches waiting WGs' addresses.
    pub fn monitors(self) -> bool {
        matches!(
            self,
            SyncPolicy::MonRsAll
                | SyncPolicy::MonRAll
                | SyncPolicy::MonNrAll
                | SyncPolicy::MonNrOne
                | SyncPolicy::Awg
        )
    }

    /// The waiting atomic arms the monitor atomically with its comparison
    /// (MonNR, AWG); otherwise a separate wait arms it a round trip later,
    /// without re-checking.
    pub fn armed_by_atomic(self) -> bool {
        matches!(
            self,
            SyncPolicy::MonNrAll | SyncPolicy::MonNrOne | SyncPolicy::Awg
        )
    }

    /// The SyncMon checks the waiting value (all monitors but MonRS-All,
    /// whose notifications are sporadic).
    pub fn checks_condition(self) -> bool {
        self.monitors() && self != SyncPolicy::MonRsAll
    }

    /// How a met condition's waiters resume.
    pub fn resume(self) -> Resume {
        match self {
            SyncPolicy::MonNrOne => Resume::One,
            SyncPolicy::Awg => Resume::Predict,
            _ => Resume::All,
        }
    }

    /// Waiters left waiting by a resume-one event come back after
    /// `sync.resume_timeout` (MonNR-One, AWG).
    pub fn resume_times_out(self) -> bool {
        matches!(self, SyncPolicy::MonNrOne | SyncPolicy::Awg)
    }

    /// A waiting WG may be context-switched out when the GPU is
    /// oversubscribed (every policy but `busy` and `sleep`, which hold
    /// their slots).
    pub fn switches_out(self) -> bool {
        !matches!(self, SyncPolicy::Busy | SyncPolicy::Sleep { .. })
    }
}

impl fmt::Display for SyncPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncPolicy::Busy => f.write_str("busy"),
            SyncPolicy::Sleep { max } => write!(f, "sleep:{max}"),
            SyncPolicy::Timeout { t } => write!(f, "timeout:{t}"),
            SyncPolicy::MonRsAll => f.write_str("monrs-all"),
            SyncPolicy::MonRAll => f.write_str("monr-all"),
            SyncPolicy::MonNrAll => f.write_str("monnr-all"),
            SyncPolicy::MonNrOne => f.write_str("monnr-one"),
            SyncPolicy::Awg => f.write_str("awg"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_parses_and_prints_back() {
        for (name, _) in SYNC_POLICIES {
            let s = name.replace("MAX", "4000").replace(":T", ":1000");
            let p = SyncPolicy::parse(&s).unwrap();
            assert_eq!(p.to_string(), s);
        }
        assert_eq!(
            SyncPolicy::parse("sleep:4k").unwrap(),
            SyncPolicy::Sleep { max: 4000 }
        );
        assert_eq!(
            SyncPolicy::parse("timeout:10_000").unwrap(),
            SyncPolicy::Timeout { t: 10_000 }
        );
    }

    /// The `SYNC_POLICIES` entry of a policy. An exhaustive match: a new
    /// variant does not compile here until it is given its entry.
    fn listed_name(p: SyncPolicy) -> &'static str {
        match p {
            SyncPolicy::Busy => "busy",
            SyncPolicy::Sleep { .. } => "sleep:MAX",
            SyncPolicy::Timeout { .. } => "timeout:T",
            SyncPolicy::MonRsAll => "monrs-all",
            SyncPolicy::MonRAll => "monr-all",
            SyncPolicy::MonNrAll => "monnr-all",
            SyncPolicy::MonNrOne => "monnr-one",
            SyncPolicy::Awg => "awg",
        }
    }

    #[test]
    fn every_policy_is_listed_once_with_a_description() {
        let mut seen = Vec::new();
        for (name, desc) in SYNC_POLICIES {
            assert!(!desc.trim().is_empty() && !desc.contains('\n'), "{name}");
            let s = name.replace("MAX", "4000").replace(":T", ":1000");
            let p = SyncPolicy::parse(&s).unwrap();
            // Parsing the listed name gives the policy listed under it.
            assert_eq!(listed_name(p), *name);
            seen.push(*name);
        }
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), SYNC_POLICIES.len(), "a name listed twice");
        // Every variant (add a new one here as well as in `listed_name`)
        // is listed and prints as something that parses back to it.
        for p in [
            SyncPolicy::Busy,
            SyncPolicy::Sleep { max: 7 },
            SyncPolicy::Timeout { t: 9 },
            SyncPolicy::MonRsAll,
            SyncPolicy::MonRAll,
            SyncPolicy::MonNrAll,
            SyncPolicy::MonNrOne,
            SyncPolicy::Awg,
        ] {
            assert!(seen.contains(&listed_name(p)), "{p} is not listed");
            assert_eq!(SyncPolicy::parse(&p.to_string()), Ok(p));
        }
    }

    #[test]
    fn bad_values_name_the_problem() {
        assert!(
            SyncPolicy::parse("sleep:0")
                .unwrap_err()
                .contains("positive")
        );
        assert!(
            SyncPolicy::parse("timeout:x")
                .unwrap_err()
                .contains("positive")
        );
        let e = SyncPolicy::parse("mwait").unwrap_err();
        assert!(e.contains("choices") && e.contains("monnr-one"), "{e}");
    }

    #[test]
    fn the_family_differs_where_the_paper_says() {
        use SyncPolicy::*;
        // Only the MonNR family and AWG close the lost-update window.
        let all = [
            Busy,
            Sleep { max: 1 },
            Timeout { t: 1 },
            MonRsAll,
            MonRAll,
            MonNrAll,
            MonNrOne,
            Awg,
        ];
        let armed: Vec<_> = all.iter().filter(|p| p.armed_by_atomic()).collect();
        assert_eq!(armed, [&MonNrAll, &MonNrOne, &Awg]);
        let monitors = all.iter().filter(|p| p.monitors()).count();
        assert_eq!(monitors, 5);
        assert!(!MonRsAll.checks_condition() && MonRAll.checks_condition());
        assert_eq!(MonNrOne.resume(), Resume::One);
        assert_eq!(Awg.resume(), Resume::Predict);
        assert!(!Busy.switches_out() && !Sleep { max: 9 }.switches_out());
        assert!(Timeout { t: 9 }.switches_out() && Awg.switches_out());
    }
}
