//! The papers `gpusim repro` reproduces: names, one-line descriptions
//! (the `repro` command's choices and `gpusim list repro`) and the default
//! directory of each one's manifests.

use crate::report::{repro, repro_awg, repro_baws, repro_latency};

/// A reproduction target of `gpusim repro`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReproTarget {
    /// DAWS (MICRO 2013): [`repro`].
    Daws,
    /// BAWS (ICS 2016): [`repro_baws`].
    Baws,
    /// LFWS (IEICE 2023): [`repro_latency::LFWS`].
    Lfws,
    /// BLWS: [`repro_latency::BLWS`].
    Blws,
    /// AWG (ISCA 2020): [`repro_awg`].
    Awg,
}

impl ReproTarget {
    /// Every target, in the order `gpusim repro --help` lists them.
    pub const ALL: [ReproTarget; 5] = [
        ReproTarget::Daws,
        ReproTarget::Baws,
        ReproTarget::Lfws,
        ReproTarget::Blws,
        ReproTarget::Awg,
    ];

    /// The command-line name (`gpusim repro NAME`).
    pub fn name(self) -> &'static str {
        match self {
            ReproTarget::Daws => "daws",
            ReproTarget::Baws => "baws",
            ReproTarget::Lfws => "lfws",
            ReproTarget::Blws => "blws",
            ReproTarget::Awg => "awg",
        }
    }

    /// One line: the paper, its figures and the setups compared.
    pub fn description(self) -> &'static str {
        match self {
            ReproTarget::Daws => {
                "DAWS (MICRO 2013) Figs. 8 and 13: GTO, Best-SWL, CCWS, Profiled-/Detected-DAWS on the daws preset"
            }
            ReproTarget::Baws => {
                "BAWS (ICS 2016) Figs. 8-12 and §6.4: LRR, GTO, TLS, MWF, BAWS, SAWS; LRR/CFF/FEF fetch; baws preset"
            }
            ReproTarget::Lfws => {
                "LFWS (IEICE 2023) Fig. 4, Table 2, Fig. 1: LRR, GTO, two-level(-opt), LPI, LLOS, LFWS on gtx480"
            }
            ReproTarget::Blws => {
                "BLWS Figs. 3 and 4: RR, GTO, BLWS, BLWS + throttle CTA policy, memory contention, on gtx480"
            }
            ReproTarget::Awg => {
                "AWG (ISCA 2020) Figs. 7-9, 14, 15: the --sync policies on HeteroSync and lock kernels, awg preset"
            }
        }
    }

    /// The directory of its manifests, relative to the repository root.
    pub fn default_dir(self) -> &'static str {
        match self {
            ReproTarget::Daws => repro::DEFAULT_DIR,
            ReproTarget::Baws => repro_baws::DEFAULT_DIR,
            ReproTarget::Lfws => repro_latency::LFWS.dir,
            ReproTarget::Blws => repro_latency::BLWS.dir,
            ReproTarget::Awg => repro_awg::DEFAULT_DIR,
        }
    }

    /// The target named `name`; the error names the choices.
    pub fn parse(name: &str) -> Result<ReproTarget, String> {
        ReproTarget::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = ReproTarget::ALL.iter().map(|t| t.name()).collect();
                format!(
                    "unknown reproduction `{name}` (choices: {})",
                    names.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_round_trips_and_has_a_description() {
        for t in ReproTarget::ALL {
            assert_eq!(ReproTarget::parse(t.name()), Ok(t));
            assert!(!t.description().is_empty() && !t.description().contains('\n'));
            assert!(t.default_dir().starts_with("repro/") || t == ReproTarget::Awg);
        }
        let e = ReproTarget::parse("DAWS").unwrap_err();
        assert!(e.contains("daws, baws, lfws, blws, awg"), "{e}");
    }
}
