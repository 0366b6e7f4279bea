//! The two studies' kernels, setups and claims.

use super::{ClaimSpec, Kernel, Measure, Setup, Study, Subset};

const fn k(
    name: &'static str,
    file: &'static str,
    long_heavy: bool,
    paper_long_percent: Option<f64>,
    quick_args: &'static [(&'static str, &'static str)],
) -> Kernel {
    Kernel {
        name,
        file,
        long_heavy,
        paper_long_percent,
        quick_args,
    }
}

const fn setup(label: &'static str, sched: &'static str, cta: &'static str) -> Setup {
    Setup { label, sched, cta }
}

/// LFWS Table 2's kernels that gpusim has (15 of its 19 applications; AES, CP,
/// NQU and SC are not ported), in the table's order (BFS once: the paper runs two
/// inputs).
const LFWS_KERNELS: &[Kernel] = &[
    k("BFS", "bfs.toml", true, Some(9.09), &[("nodes", "8192")]),
    k("BP", "bp.toml", true, Some(8.50), &[("in", "2048")]),
    k(
        "EPP",
        "epp.toml",
        true,
        Some(19.88),
        &[("blocks", "16"), ("sims", "25000")],
    ),
    k("HSP", "hsp.toml", false, Some(0.83), &[("size", "96")]),
    k("LIB", "lib.toml", false, Some(10.49), &[("paths", "1024")]),
    k(
        "LPS",
        "lps.toml",
        false,
        Some(3.10),
        &[("nx", "64"), ("ny", "48")],
    ),
    k("MUM", "mum.toml", false, Some(1.97), &[("queries", "5760")]),
    k("NN", "nn.toml", true, Some(18.75), &[("images", "7")]),
    k(
        "NNEI",
        "nnei.toml",
        true,
        Some(10.31),
        &[("records", "500000")],
    ),
    k("NW", "nw.toml", false, Some(5.27), &[("n", "256")]),
    k("PF", "pf.toml", false, Some(1.82), &[("cols", "2048")]),
    k(
        "RAY",
        "ray.toml",
        false,
        Some(2.67),
        &[("width", "128"), ("height", "128")],
    ),
    k(
        "SAOP",
        "saop.toml",
        true,
        Some(10.72),
        &[("blocks", "15"), ("sims", "3840")],
    ),
    k("SP", "sp.toml", true, Some(9.49), &[("vectors", "24")]),
    k("STO", "sto.toml", false, Some(0.64), &[("chunks", "12288")]),
];

/// LFWS §3.2's comparison set; LRR first (the normalization).
const LFWS_SETUPS: &[Setup] = &[
    setup("LRR", "lrr", "rr"),
    setup("GTO", "gto", "rr"),
    setup("2-level", "two-level", "rr"),
    setup("2-level opt", "two-level-opt", "rr"),
    setup("LPI", "lpi", "rr"),
    setup("LLOS", "llos", "rr"),
    setup("LFWS", "lfws", "rr"),
];

const LFWS_CLAIMS: &[ClaimSpec] = &[
    ClaimSpec {
        what: "LFWS over LRR, all kernels (Fig. 4)",
        paper: "+10.60%",
        measure: Measure::Mean(Subset::All, "LFWS", "LRR"),
    },
    ClaimSpec {
        what: "LFWS over LRR, long-operation-heavy kernels",
        paper: "+18.17%",
        measure: Measure::Mean(Subset::LongHeavy, "LFWS", "LRR"),
    },
    ClaimSpec {
        what: "LFWS over LRR, GTO and 2-level (abstract)",
        paper: "+8.01%",
        measure: Measure::MeanOver("LFWS", &["LRR", "GTO", "2-level"]),
    },
    ClaimSpec {
        what: "LFWS over LPI and LLOS (abstract)",
        paper: "+5.09%",
        measure: Measure::MeanOver("LFWS", &["LPI", "LLOS"]),
    },
    ClaimSpec {
        what: "LPI over LRR",
        paper: "+5.34%",
        measure: Measure::Mean(Subset::All, "LPI", "LRR"),
    },
    ClaimSpec {
        what: "LLOS over LRR",
        paper: "+5.05%",
        measure: Measure::Mean(Subset::All, "LLOS", "LRR"),
    },
    ClaimSpec {
        what: "LFWS over LPI",
        paper: "+5.11%",
        measure: Measure::Mean(Subset::All, "LFWS", "LPI"),
    },
    ClaimSpec {
        what: "LFWS over LLOS",
        paper: "+5.06%",
        measure: Measure::Mean(Subset::All, "LFWS", "LLOS"),
    },
    ClaimSpec {
        what: "LFWS over LLOS, long-operation-heavy kernels",
        paper: "+8.72%",
        measure: Measure::Mean(Subset::LongHeavy, "LFWS", "LLOS"),
    },
    ClaimSpec {
        what: "2-level opt over 2-level",
        paper: "+1.88%",
        measure: Measure::Mean(Subset::All, "2-level opt", "2-level"),
    },
    ClaimSpec {
        what: "2-level opt over 2-level, long-operation-heavy",
        paper: "+4.27%",
        measure: Measure::Mean(Subset::LongHeavy, "2-level opt", "2-level"),
    },
    ClaimSpec {
        what: "2-level over LRR",
        paper: "no gain, some losses",
        measure: Measure::Mean(Subset::All, "2-level", "LRR"),
    },
];

/// The LFWS reproduction (Fig. 4, Table 2, Fig. 1).
pub const LFWS: Study = Study {
    name: "lfws",
    title: "LFWS (Liu et al., IEICE Trans. Fundamentals 2023)",
    config: "gtx480",
    dir: "repro/lfws",
    kernels: LFWS_KERNELS,
    setups: LFWS_SETUPS,
    claims: LFWS_CLAIMS,
};

/// BLWS Table 3's kernels, in its order.
const BLWS_KERNELS: &[Kernel] = &[
    k("VA", "vector_add.toml", false, None, &[("n", "12500")]),
    k(
        "SMG",
        "simple_multigpu.toml",
        false,
        None,
        &[("elements", "2097152")],
    ),
    k("MC", "monte_carlo.toml", false, None, &[("paths", "8192")]),
    k("MS", "merge_sort.toml", false, None, &[("keys", "46080")]),
    k("STO", "storegpu.toml", false, None, &[("chunks", "12288")]),
    k("MUM", "mummer.toml", false, None, &[("queries", "5760")]),
];

/// BLWS §6's setups; RR (`lrr`, GPGPU-Sim's round robin) first.
const BLWS_SETUPS: &[Setup] = &[
    setup("RR", "lrr", "rr"),
    setup("GTO", "gto", "rr"),
    setup("BLWS", "blws", "rr"),
    setup("BLWS+throttle", "blws", "throttle"),
];

const BLWS_CLAIMS: &[ClaimSpec] = &[
    ClaimSpec {
        what: "BLWS over RR (Fig. 3)",
        paper: "+7.5%",
        measure: Measure::Mean(Subset::All, "BLWS", "RR"),
    },
    ClaimSpec {
        what: "BLWS never below RR: worst kernel (Fig. 3)",
        paper: ">= 1.000",
        measure: Measure::Min("BLWS", "RR"),
    },
    ClaimSpec {
        what: "BLWS over RR: best kernel (MUM, Fig. 3)",
        paper: "1.21",
        measure: Measure::Max("BLWS", "RR"),
    },
    ClaimSpec {
        what: "BLWS over GTO (Fig. 3)",
        paper: "about +2%",
        measure: Measure::Mean(Subset::All, "BLWS", "GTO"),
    },
    ClaimSpec {
        what: "BLWS+throttle over RR (Fig. 4)",
        paper: "+8.9%",
        measure: Measure::Mean(Subset::All, "BLWS+throttle", "RR"),
    },
    ClaimSpec {
        what: "BLWS+throttle over GTO (Fig. 4)",
        paper: "+3.2%",
        measure: Measure::Mean(Subset::All, "BLWS+throttle", "GTO"),
    },
    ClaimSpec {
        what: "BLWS+throttle over BLWS",
        paper: "+1.3% (8.9 vs 7.5)",
        measure: Measure::Mean(Subset::All, "BLWS+throttle", "BLWS"),
    },
];

/// The BLWS reproduction (Figs. 3 and 4).
pub const BLWS: Study = Study {
    name: "blws",
    title: "BLWS (Vo, Luan, Kim, block-latency warp scheduling)",
    config: "gtx480",
    dir: "repro/blws",
    kernels: BLWS_KERNELS,
    setups: BLWS_SETUPS,
    claims: BLWS_CLAIMS,
};
