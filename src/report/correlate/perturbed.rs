//! The lrr/gto order under one-cycle perturbations.
//!
//! On a kernel whose two schedulers finish within a few percent of each
//! other, which one wins can hang on a single cycle: moving one latency
//! (the L2's ROP delay, the DRAM latency) by a cycle changes the
//! interleaving of every later memory access, and with it cache and row
//! hits. GPGPU-Sim is as sensitive as gpusim. The reference file can
//! carry GPGPU-Sim's cycles under a few such changes
//! ([`super::reference::Perturbation`]); gpusim runs the same changes, and
//! [`PerturbedOrder`] compares the order of the two sides' means over the
//! nominal and perturbed runs, which says whether the order is the
//! machine's or one draw's.

use serde::Serialize;

use super::stats::Faster;

/// One perturbed run pair (lrr and gto) on both sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerturbedRun {
    /// The option appended to GPGPU-Sim's configuration.
    pub gpgpusim: String,
    /// gpusim's change, `key=value`.
    pub set: String,
    /// GPGPU-Sim's cycles, lrr and gto.
    pub reference: [u64; 2],
    /// gpusim's cycles, lrr and gto, when both runs succeeded.
    pub gpusim: Option<[u64; 2]>,
    /// Why there is no gpusim side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// lrr cycles / gto cycles: below 1, lrr had the higher IPC (both run the
/// same instructions).
pub fn ratio(c: [u64; 2]) -> f64 {
    c[0] as f64 / c[1].max(1) as f64
}

/// The order the mean ratio `r` gives (lrr faster when below 1).
fn order_of(r: f64) -> Faster {
    Faster::of(1.0, r)
}

/// One run pair's cycles on both sides: (GPGPU-Sim's, gpusim's), each
/// `[lrr, gto]`.
type Pair = ([u64; 2], [u64; 2]);

/// A kernel's lrr/gto order over its nominal and perturbed runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PerturbedOrder {
    /// Run pairs averaged per side (the nominal one and each perturbed
    /// one with a gpusim side).
    pub samples: usize,
    /// GPGPU-Sim's mean of lrr / gto cycles.
    pub reference_mean: f64,
    /// gpusim's mean of lrr / gto cycles.
    pub gpusim_mean: f64,
    /// Pairs in which lrr had the higher IPC, in GPGPU-Sim.
    pub reference_lrr_faster: usize,
    /// Pairs in which lrr had the higher IPC, in gpusim.
    pub gpusim_lrr_faster: usize,
    /// The higher IPC by GPGPU-Sim's mean.
    pub reference: Faster,
    /// The higher IPC by gpusim's mean.
    pub gpusim: Faster,
    /// The two means give the same order.
    pub matches: bool,
}

impl PerturbedOrder {
    /// The order over the nominal pair (`nominal`: GPGPU-Sim's and
    /// gpusim's lrr and gto cycles) and the perturbed pairs with a gpusim
    /// side; `None` when there is no perturbed pair with one.
    pub fn of(nominal: Pair, runs: &[PerturbedRun]) -> Option<PerturbedOrder> {
        let mut pairs: Vec<Pair> = vec![nominal];
        pairs.extend(
            runs.iter()
                .filter_map(|r| r.gpusim.map(|g| (r.reference, g))),
        );
        if pairs.len() < 2 {
            return None;
        }
        let n = pairs.len();
        let mean =
            |f: fn(&Pair) -> [u64; 2]| pairs.iter().map(|p| ratio(f(p))).sum::<f64>() / n as f64;
        let lrr_faster =
            |f: fn(&Pair) -> [u64; 2]| pairs.iter().filter(|p| ratio(f(p)) < 1.0).count();
        let (reference_mean, gpusim_mean) = (mean(|p| p.0), mean(|p| p.1));
        let (reference, gpusim) = (order_of(reference_mean), order_of(gpusim_mean));
        Some(PerturbedOrder {
            samples: n,
            reference_mean,
            gpusim_mean,
            reference_lrr_faster: lrr_faster(|p| p.0),
            gpusim_lrr_faster: lrr_faster(|p| p.1),
            reference,
            gpusim,
            matches: reference == gpusim,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(reference: [u64; 2], gpusim: Option<[u64; 2]>) -> PerturbedRun {
        PerturbedRun {
            gpgpusim: "-x 1".into(),
            set: "x=1".into(),
            reference,
            gpusim,
            error: None,
        }
    }

    /// Means of the ratios, counts of lrr wins, and the order of the
    /// means: the nominal pair's order (lrr faster on both sides) is
    /// outvoted on the reference side by two perturbed pairs where gto is
    /// faster by more.
    #[test]
    fn the_means_decide_the_order() {
        let nominal = ([99, 100], [98, 100]);
        let runs = [
            run([110, 100], Some([97, 100])),
            run([105, 100], Some([99, 100])),
            run([50, 100], None),
        ];
        let o = PerturbedOrder::of(nominal, &runs).unwrap();
        assert_eq!(o.samples, 3);
        assert!((o.reference_mean - (0.99 + 1.10 + 1.05) / 3.0).abs() < 1e-12);
        assert!((o.gpusim_mean - (0.98 + 0.97 + 0.99) / 3.0).abs() < 1e-12);
        assert_eq!((o.reference_lrr_faster, o.gpusim_lrr_faster), (1, 3));
        assert_eq!((o.reference, o.gpusim), (Faster::Second, Faster::First));
        assert!(!o.matches);
    }

    #[test]
    fn no_perturbed_pair_gives_no_order() {
        assert_eq!(PerturbedOrder::of(([1, 1], [1, 1]), &[]), None);
        assert_eq!(
            PerturbedOrder::of(([1, 1], [1, 1]), &[run([1, 2], None)]),
            None
        );
    }
}
