//! The shipped manifests (`kernels/*.toml`) run functionally and pass their
//! checks; the checks can fail (a corrupted output element is reported as a
//! mismatch naming its buffer); bad arguments and shapes are rejected.
//!
//! `kernels/sync/` is not covered here (its kernels have their own tests).

use std::path::{Path, PathBuf};
use std::time::Instant;

use gpusim::workload::args::Args;
use gpusim::workload::check::Check;
use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, WorkloadError};
use gpusim::workload::runner::{Prepared, RunError, prepare, run_functional};
use gpusim::workload::{Launch, Workload, registry};

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

/// `kernels/*.toml` and the manifests of `kernels/sync/`, `kernels/micro/`
/// `kernels/rodinia/`, `kernels/sdk/`, `kernels/correlation/`,
/// `kernels/holdout/`, `kernels/baws/`, `kernels/lfws/`, `kernels/blws/`, `kernels/ispass/`
/// and `kernels/constant/`, sorted.
/// `kernels/baws/`, `kernels/lfws/`, `kernels/blws/`, `kernels/ispass/`
/// and `kernels/holdout/` (held-out correlation kernels of helper
/// holdout-b), sorted.
fn manifests() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    for dir in [
        kernels_dir(),
        kernels_dir().join("sync"),
        kernels_dir().join("micro"),
        kernels_dir().join("rodinia"),
        kernels_dir().join("sdk"),
        kernels_dir().join("correlation"),
        kernels_dir().join("holdout"),
        kernels_dir().join("baws"),
        kernels_dir().join("lfws"),
        kernels_dir().join("blws"),
        kernels_dir().join("ispass"),
        kernels_dir().join("holdout"),
        kernels_dir().join("constant"),
    ] {
        v.extend(
            std::fs::read_dir(&dir)
                .expect("kernels/")
                .map(|e| e.expect("dir entry").path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml")),
        );
    }
    v.sort();
    v
}

fn prepared(path: &Path) -> Prepared {
    match prepare(path, None) {
        Ok(p) => p,
        Err(RunError::Diagnostics(d)) => panic!("{}: {}", path.display(), d.render(false)),
        Err(RunError::Workload(e)) => panic!("{}: {e}", path.display()),
    }
}

fn manifest_named(name: &str) -> Prepared {
    prepared(&kernels_dir().join(format!("{name}.toml")))
}

#[test]
fn every_manifest_passes_functionally() {
    let all = manifests();
    assert!(
        all.len() >= 11,
        "expected the shipped manifests, found {all:?}"
    );
    let mut failures = Vec::new();
    for path in &all {
        let p = prepared(path);
        let start = Instant::now();
        let r = run_functional(&p, &[], FunctionalOptions::default(), None);
        let took = start.elapsed();
        match r {
            Ok(r) if r.check.passed() => eprintln!(
                "{}: PASS, {} launches, {} warp instructions, {:.0?}",
                path.display(),
                r.launches,
                r.warp_insts,
                took
            ),
            Ok(r) => failures.push(format!("{}: {}", path.display(), r.check)),
            Err(RunError::Workload(e)) => failures.push(format!("{}: {e}", path.display())),
            Err(RunError::Diagnostics(d)) => {
                failures.push(format!("{}: {}", path.display(), d.render(false)))
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_registered_workload_has_a_manifest_and_back() {
    let mut used: Vec<String> = manifests()
        .iter()
        .map(|p| prepared(p).manifest.manifest.workload)
        .collect();
    used.sort();
    used.dedup(); // the sync workloads serve two manifests each (global and local)
    let mut registered: Vec<String> = registry::WORKLOADS
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    registered.sort();
    assert_eq!(used, registered);
}

/// A host that flips one bit of one element of buffer `target` when the
/// workload downloads it (the element in the middle of the read).
struct CorruptingHost<'h> {
    inner: &'h mut dyn Host,
    target: &'h str,
    addr: Option<u64>,
    corrupted: usize,
}

impl Host for CorruptingHost<'_> {
    fn alloc(&mut self, name: &str, bytes: u64) -> u64 {
        let a = self.inner.alloc(name, bytes);
        if name == self.target {
            self.addr = Some(a);
        }
        a
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), WorkloadError> {
        self.inner.write_bytes(addr, data)
    }

    fn read_bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, WorkloadError> {
        let mut b = self.inner.read_bytes(addr, len)?;
        if Some(addr) == self.addr && len >= 4 {
            // Bit 30 of a little-endian 4-byte element: an f32's exponent
            // (so also beyond any tolerance), 2^30 for an integer.
            b[(len / 8) * 4 + 3] ^= 0x40;
            self.corrupted += 1;
        }
        Ok(b)
    }

    fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        self.inner.symbol(name)
    }

    fn bind_texture(
        &mut self,
        name: &str,
        desc: gpusim::func::texture::TextureDesc,
    ) -> Result<(), WorkloadError> {
        self.inner.bind_texture(name, desc)
    }

    fn launch(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
    ) -> Result<(), WorkloadError> {
        self.inner.launch(entry, grid, block, args)
    }

    fn launch_shared(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
        shared_bytes: u32,
    ) -> Result<(), WorkloadError> {
        self.inner
            .launch_shared(entry, grid, block, args, shared_bytes)
    }
}

/// The real workload of a manifest, seeing one corrupted output element.
struct CorruptOne {
    inner: Box<dyn Workload>,
    buffer: &'static str,
    corrupted: usize,
}

impl Workload for CorruptOne {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let mut h = CorruptingHost {
            inner: host,
            target: self.buffer,
            addr: None,
            corrupted: 0,
        };
        let c = self.inner.run(&mut h);
        self.corrupted = h.corrupted;
        c
    }
}

/// A FunctionalHost for a prepared manifest, as `run_functional` sets it up.
fn host_for(p: &Prepared) -> FunctionalHost<'_> {
    let mut host = FunctionalHost::new(&p.program, p.entry, FunctionalOptions::default());
    if !p.entry_named {
        host.require_named_entries();
    }
    host
}

fn workload_of(
    p: &Prepared,
    overrides: &[(&str, &str)],
) -> Result<Box<dyn Workload>, WorkloadError> {
    let m = &p.manifest.manifest;
    let mut args = Args::new(m.args.clone());
    for (k, v) in overrides {
        args.set_from_text(k, v);
    }
    registry::create(
        &m.workload,
        &mut args,
        Launch {
            grid: m.grid,
            block: m.block,
            ..Launch::default()
        },
    )
}

#[test]
fn a_corrupted_output_element_fails_the_check_naming_the_buffer() {
    // (manifest, the output buffer its check compares)
    let cases = [
        ("bfs", "cost"),
        ("fwt", "d_Data"),
        ("fwt", "d_Kernel"),
        ("gather", "out"),
        ("histogram256", "d_Histogram"),
        ("kmeans", "membership"),
        ("matmul", "C"),
        ("scalar_product", "d_C"),
        ("spmv_scalar", "out"),
        ("spmv_vector", "out"),
        ("stencil2d", "buf0"), // iterations = 4: the result is in buf0
        ("vector_add", "c"),
        ("rodinia/backprop", "input_hidden_cuda"),
        ("rodinia/bfs", "g_cost"),
        ("rodinia/gaussian", "a_cuda"),
        ("rodinia/hotspot", "MatrixTemp0"), // 4 launches: the result is in buffer 0
        ("rodinia/needle", "matrix_cuda"),
        ("rodinia/pathfinder", "gpuResult1"), // 5 launches: the result is in buffer 1
        ("rodinia/srad", "J_cuda"),
        ("sdk/scalar_product", "d_C"),
        ("sdk/histogram256", "d_Histogram"),
        ("baws/merge_sort", "d_DstKey"),
        ("baws/merge_sort", "d_DstVal"),
        ("baws/btree", "ansD"),
        ("baws/btree", "RecstartD"),
        ("baws/btree", "ReclenD"),
        ("baws/similarity_score", "sim"),
        ("baws/page_view_count", "d_ChunkUrl"),
        ("baws/page_view_count", "d_ChunkViews"),
        ("baws/page_view_count", "d_ChunkUrls"),
        ("baws/page_view_count", "d_Views"),
        ("baws/mri_gridding", "d_Grid"),
        ("baws/page_view_rank", "d_RankUrl"),
        ("baws/page_view_rank", "d_RankViews"),
        ("baws/page_view_rank", "d_Rank"),
        ("baws/octree_partition", "d_Src"),
        ("correlation/stream_triad", "a"),
        ("correlation/compute_fma", "out"),
        ("correlation/sfu_mix", "out"),
        ("correlation/divergent_loop", "steps"),
        ("correlation/reduce_tree", "partial"),
        ("correlation/transpose_naive", "out"),
        ("correlation/transpose_padded", "out"),
        ("correlation/atomic_hist", "bins"),
        ("correlation/matmul_tiled", "C"),
        ("correlation/gather_random", "out"),
        ("correlation/spmv_csr", "out"),
        ("holdout/stencil2d_shared", "out"),
        ("holdout/strided_copy", "out"),
        ("holdout/gemv_rowmajor", "y"),
        ("lfws/nearest_neighbor", "d_distances"),
        ("lfws/laplace3d", "d_u1"), // 2 launches: the last iterate is in d_u1
        ("lfws/laplace3d", "d_u2"), // the iterate before it
        ("lfws/estimate_pi", "d_states"),
        ("lfws/estimate_pi", "d_results"),
        ("lfws/asian_option", "d_states"),
        ("lfws/asian_option", "d_paths"),
        ("lfws/asian_option", "d_values"),
        ("blws/mummer", "d_MatchCoords"),
        ("blws/storegpu", "d_Hashes"),
        ("blws/simple_multigpu", "d_Result"),
        ("blws/monte_carlo", "d_CallValue"),
        ("ispass/libor", "d_v"),
        ("ispass/libor", "d_vGreeks"),
        ("ispass/libor", "d_Lb"),
        ("ispass/neural_network", "Layer2_Neurons"),
        ("ispass/neural_network", "Layer3_Neurons"),
        ("ispass/ray_tracing", "result"),
        ("holdout/block_scan", "out"),
        ("holdout/warp_shared_reduce", "result"),
        ("holdout/bitonic_sort_shared", "keys"),
        ("holdout/dp_axpby", "y"), // f64: bit 30 of the middle element's mantissa
        ("holdout/nbody_tiled", "acc"),
        ("holdout/kmeans_assign", "assign"),
        ("holdout/blackscholes", "call"),
        ("holdout/blackscholes", "put"),
    ];
    for (name, buffer) in cases {
        let p = manifest_named(name);
        let mut w = CorruptOne {
            inner: workload_of(&p, &[]).unwrap_or_else(|e| panic!("{name}: {e}")),
            buffer,
            corrupted: 0,
        };
        let mut host = host_for(&p);
        let check = w.run(&mut host).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            w.corrupted, 1,
            "{name}: `{buffer}` was downloaded {} times",
            w.corrupted
        );
        let Check::Fail(ms) = &check else {
            panic!("{name}: corrupting `{buffer}` still passed");
        };
        let m = ms
            .iter()
            .find(|m| m.buffer == buffer)
            .unwrap_or_else(|| panic!("{name}: no mismatch names `{buffer}`: {check}"));
        assert_eq!(m.wrong, 1, "{name}: {check}");
        assert!(
            check
                .to_string()
                .contains(&format!("MISMATCH in `{buffer}`: 1 of ")),
            "{name}: {check}"
        );
    }
}

/// A host that flips the bits `flip.1` of byte `flip.0` of input buffer
/// `target` when the workload uploads it, so the kernel computes on other
/// data than the reference.
struct InputCorrupter<'h> {
    inner: &'h mut dyn Host,
    target: &'h str,
    flip: (usize, u8),
    addr: Option<u64>,
}

impl Host for InputCorrupter<'_> {
    fn alloc(&mut self, name: &str, bytes: u64) -> u64 {
        let a = self.inner.alloc(name, bytes);
        if name == self.target {
            self.addr = Some(a);
        }
        a
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), WorkloadError> {
        if self.addr == Some(addr) && data.len() > self.flip.0 {
            self.addr = None; // the upload only
            let mut d = data.to_vec();
            d[self.flip.0] ^= self.flip.1;
            return self.inner.write_bytes(addr, &d);
        }
        self.inner.write_bytes(addr, data)
    }

    fn read_bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, WorkloadError> {
        self.inner.read_bytes(addr, len)
    }

    fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        self.inner.symbol(name)
    }

    fn bind_texture(
        &mut self,
        name: &str,
        desc: gpusim::func::texture::TextureDesc,
    ) -> Result<(), WorkloadError> {
        self.inner.bind_texture(name, desc)
    }

    fn launch(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
    ) -> Result<(), WorkloadError> {
        self.inner.launch(entry, grid, block, args)
    }

    fn launch_shared(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
        shared_bytes: u32,
    ) -> Result<(), WorkloadError> {
        self.inner
            .launch_shared(entry, grid, block, args, shared_bytes)
    }
}

#[test]
fn a_kernel_seeing_other_data_fails_the_check() {
    for (name, input, flip, output) in [
        ("spmv_scalar", "vec", (3, 0x40), "out"), // vec[0]'s exponent
        ("matmul", "A", (3, 0x40), "C"),          // A[0][0]'s exponent
        ("gather", "next", (0, 1), "out"),        // next[0] ^= 1: still in bounds
        // The last row's wall[99][0] += 64: every path ending there pays it.
        (
            "rodinia/pathfinder",
            "gpuWall",
            (98 * 4096 * 4, 0x40),
            "gpuResult1",
        ),
        // reference[512][512] (the last cell; its value for seed 1 is
        // non-negative) gains 2^30: the last cell's diagonal term wins.
        (
            "rodinia/needle",
            "referrence",
            (4 * (513 * 513 - 1) + 3, 0x40),
            "matrix_cuda",
        ),
        ("rodinia/hotspot", "MatrixPower", (3, 0x40), "MatrixTemp0"),
        ("correlation/stream_triad", "c", (3, 0x40), "a"), // c[0]'s exponent
        ("correlation/compute_fma", "in", (3, 0x40), "out"),
        ("correlation/sfu_mix", "in", (3, 0x40), "out"),
        ("correlation/divergent_loop", "start", (2, 1), "steps"), // start[0] += 65536
        ("correlation/reduce_tree", "in", (3, 0x40), "partial"),
        ("correlation/transpose_naive", "in", (3, 0x40), "out"),
        ("correlation/atomic_hist", "data", (0, 1), "bins"), // one word changes bin
        ("correlation/gather_random", "idx", (0, 1), "out"), // idx[0] ^= 1: in bounds
        ("correlation/spmv_csr", "vec", (3, 0x40), "out"),
        // in[1][1] (the first interior point; in [-1, 1], so the exponent's
        // top bit is clear) becomes huge: it and its four neighbours change.
        (
            "holdout/stencil2d_shared",
            "in",
            (4 * (1024 + 1) + 3, 0x40),
            "out",
        ),
        ("holdout/strided_copy", "in", (4 * 4 + 3, 0x40), "out"), // in[4] = out[1]
        ("holdout/gemv_rowmajor", "x", (3, 0x40), "y"),           // x[0]'s exponent: every row
        ("baws/merge_sort", "d_SrcKey", (1, 0x80), "d_DstKey"),   // key[0] += 32768
        ("baws/btree", "knodesD", (4, 1), "ansD"), // the root's first child becomes the root
        ("baws/similarity_score", "doc", (3, 0x40), "sim"),
        ("baws/page_view_count", "d_Log", (3, 0x04), "d_Views"), // entry 0's URL ^= 1024
        ("baws/mri_gridding", "d_Samples", (3, 0x40), "d_Grid"), // sample 0 leaves the grid
        ("baws/page_view_rank", "d_Views", (3, 0x40), "d_RankUrl"), // URL 0 of chunk 0 ranks first
        (
            "baws/octree_partition",
            "d_TaskCentre",
            (3, 0x40),
            "d_ChildCount",
        ), // node 0's centre x moves out
        // Record 0's latitude loses its exponent's top bit (to ~1e-37).
        (
            "lfws/nearest_neighbor",
            "d_locations",
            (3, 0x40),
            "d_distances",
        ),
        // Cell (1, 1, 1), interior, gains the exponent's top bit (in [0, 1)
        // that bit is clear): the steps average it into its neighbours.
        (
            "lfws/laplace3d",
            "d_u1",
            (4 * (1 + 100 + 100 * 100) + 3, 0x40),
            "d_u1",
        ),
        // Column 0 of J_0 changes: thread 1's state (and its draws) move.
        ("lfws/estimate_pi", "d_jumps", (0, 0x01), "d_states"),
        ("lfws/asian_option", "d_jumps", (0, 0x01), "d_paths"),
        ("lfws/asian_option", "d_option", (8 + 3, 0x40), "d_paths"), // r's exponent
        ("blws/mummer", "d_Ref", (1000, 0x02), "d_MatchCoords"), // a base the tree does not have
        ("blws/storegpu", "d_Input", (0, 1), "d_Hashes"),        // chunk 0's first byte
        ("blws/simple_multigpu", "d_Input", (3, 0x40), "d_Result"), // input[0]'s exponent
        ("blws/monte_carlo", "d_Samples", (3, 0x40), "d_CallValue"), // sample 0's exponent
        ("ispass/libor", "d_z", (3, 0x40), "d_v"),               // path 0's first increment
        ("ispass/libor", "d_z", (3, 0x40), "d_Lb"),
        // Image 0's pixel (0, 0) (a window corner of every layer-1 map).
        (
            "ispass/neural_network",
            "Layer1_Neurons",
            (3, 0x40),
            "Layer2_Neurons",
        ),
        (
            "ispass/neural_network",
            "Layer2_Weights",
            (3, 0x40),
            "Layer3_Neurons",
        ), // map 0's bias
        ("holdout/block_scan", "in", (0, 1), "out"), // in[0] ^= 1: every sum of block 0
        ("holdout/warp_shared_reduce", "in", (0, 1), "result"),
        ("holdout/bitonic_sort_shared", "keys", (0, 1), "keys"), // key 0 ^= 1
        ("holdout/dp_axpby", "x", (7, 0x40), "y"),               // x[0]'s exponent
        // Body 0's x (in [0.5, 2]) becomes huge or NaN: every sum of slice 0.
        ("holdout/nbody_tiled", "pos", (3, 0x40), "acc"),
        // Centroid 0's first feature (in [-1, 1]) becomes 2 or infinite:
        // the points nearest to it go elsewhere.
        ("holdout/kmeans_assign", "cent", (3, 0x40), "assign"),
        // price[0] (in [5, 30]) drops to ~1e-38: its put becomes X e^(-rT).
        ("holdout/blackscholes", "price", (3, 0x40), "put"),
    ] {
        let p = manifest_named(name);
        let mut w = workload_of(&p, &[]).unwrap();
        let mut host = host_for(&p);
        let mut h = InputCorrupter {
            inner: &mut host,
            target: input,
            flip,
            addr: None,
        };
        let check = w.run(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        let Check::Fail(ms) = &check else {
            panic!("{name}: corrupting input `{input}` still passed");
        };
        assert!(
            ms.iter().any(|m| m.buffer == output && m.wrong >= 1),
            "{name}: {check}"
        );
    }
}

fn create_err(name: &str, overrides: &[(&str, &str)], launch: Launch) -> String {
    let p = manifest_named(name);
    let m = &p.manifest.manifest;
    let mut args = Args::new(m.args.clone());
    for (k, v) in overrides {
        args.set_from_text(k, v);
    }
    match registry::create(&m.workload, &mut args, launch) {
        Ok(_) => panic!("{name} {overrides:?}: accepted"),
        Err(WorkloadError::Args(e)) => e,
        Err(e) => panic!("{name}: not an argument error: {e}"),
    }
}

#[test]
fn bad_shapes_and_arguments_are_argument_errors() {
    let l = |grid: Option<[u32; 3]>, block: Option<[u32; 3]>| Launch {
        grid,
        block,
        ..Launch::default()
    };
    let e = create_err("matmul", &[], l(None, Some([8, 8, 1])));
    assert!(e.contains("needs block [16, 16, 1]"), "{e}");
    let e = create_err("matmul", &[("n", "100")], l(Some([4, 4, 1]), None));
    assert!(e.contains("needs grid [7, 7, 1]"), "{e}");
    let e = create_err("stencil2d", &[], l(None, Some([16, 16, 1])));
    assert!(e.contains("needs block [32, 16, 1]"), "{e}");
    let e = create_err("spmv_vector", &[], l(None, Some([100, 1, 1])));
    assert!(e.contains("not a multiple of 32"), "{e}");
    let e = create_err("spmv_scalar", &[], l(Some([2, 1, 1]), Some([128, 1, 1])));
    assert!(
        e.contains("needs 8192 (one per row): use grid [64, 1, 1]"),
        "{e}"
    );
    let e = create_err("gather", &[], l(None, Some([256, 2, 1])));
    assert!(e.contains("1-D block"), "{e}");
    let e = create_err("kmeans", &[], l(Some([4, 2, 1]), Some([256, 1, 1])));
    assert!(e.contains("x * y >= 16"), "{e}");
    let e = create_err("histogram256", &[("bytes", "4001")], l(None, None));
    assert!(e.contains("multiple of 4"), "{e}");
    let e = create_err("bfs", &[("source", "4096")], l(None, None));
    assert!(e.contains("must be a node"), "{e}");
    let e = create_err("fwt", &[], l(Some([16, 1, 1]), None));
    assert!(e.contains("remove `grid`/`block`"), "{e}");
    let e = create_err("fwt", &[("elementary_log2", "12")], l(None, None));
    assert!(e.contains("2..=11"), "{e}");
    let e = create_err("fwt", &[("thread_n", "100")], l(None, None));
    assert!(e.contains("power of two"), "{e}");
    let e = create_err(
        "fwt",
        &[
            ("log2_data", "5"),
            ("log2_kernel", "3"),
            ("elementary_log2", "2"),
            ("thread_n", "2"),
        ],
        l(None, None),
    );
    assert!(e.contains("at least 4 points"), "{e}");
    let e = create_err("gather", &[("stepz", "3")], l(None, None));
    assert!(
        e.contains("unknown argument `stepz` (did you mean `steps`?)"),
        "{e}"
    );
    let e = create_err("spmv_scalar", &[("avg_nnz_per_row", "-2")], l(None, None));
    assert!(e.contains(">= 0"), "{e}");
    let e = create_err("rodinia/needle", &[("n", "100")], l(None, None));
    assert!(e.contains("multiple of 16"), "{e}");
    let e = create_err("rodinia/srad", &[("rows", "16")], l(None, None));
    assert!(e.contains("at least 32"), "{e}");
    let e = create_err("rodinia/srad", &[("r2", "200")], l(None, None));
    assert!(e.contains("inside the 128 x 128 image"), "{e}");
    let e = create_err(
        "rodinia/pathfinder",
        &[("pyramid_height", "200")],
        l(None, None),
    );
    assert!(e.contains("at most 127"), "{e}");
    let e = create_err("rodinia/hotspot", &[], l(Some([2, 2, 1]), None));
    assert!(e.contains("needs grid [6, 6, 1]"), "{e}");
    let e = create_err("rodinia/backprop", &[("in", "40")], l(None, None));
    assert!(e.contains("multiple of 16"), "{e}");
    let e = create_err("rodinia/gaussian", &[], l(None, Some([16, 1, 1])));
    assert!(e.contains("remove `grid`/`block`"), "{e}");
    let e = create_err(
        "correlation/transpose_naive",
        &[("rows", "100")],
        l(None, None),
    );
    assert!(e.contains("multiples of 32"), "{e}");
    let e = create_err(
        "correlation/transpose_padded",
        &[],
        l(Some([4, 4, 1]), None),
    );
    assert!(e.contains("needs grid [24, 24, 1]"), "{e}");
    let e = create_err("correlation/reduce_tree", &[], l(None, Some([128, 1, 1])));
    assert!(e.contains("needs block [256, 1, 1]"), "{e}");
    let e = create_err(
        "correlation/divergent_loop",
        &[("max_start", "1")],
        l(None, None),
    );
    assert!(e.contains("at least 2"), "{e}");
    let e = create_err("correlation/stream_triad", &[], l(Some([10, 1, 1]), None));
    assert!(e.contains("use grid [2048, 1, 1]"), "{e}");
    let e = create_err("correlation/compute_fma", &[("a", "1e39")], l(None, None));
    assert!(e.contains("not a finite f32"), "{e}");
    let e = create_err("holdout/stencil2d_shared", &[], l(Some([4, 4, 1]), None));
    assert!(e.contains("needs grid [64, 64, 1]"), "{e}");
    let e = create_err("holdout/stencil2d_shared", &[], l(None, Some([32, 8, 1])));
    assert!(e.contains("needs block [16, 16, 1]"), "{e}");
    let e = create_err(
        "holdout/strided_copy",
        &[("stride", "10000")],
        l(None, None),
    );
    assert!(e.contains("n * stride = 2621440000 does not fit"), "{e}");
    let e = create_err("holdout/strided_copy", &[("stride", "0")], l(None, None));
    assert!(e.contains("outside 1.."), "{e}");
    let e = create_err(
        "holdout/gemv_rowmajor",
        &[("cols", "300000")],
        l(None, None),
    );
    assert!(e.contains("at most 262144"), "{e}");
    let e = create_err("holdout/gemv_rowmajor", &[], l(Some([8, 1, 1]), None));
    assert!(e.contains("use grid [16, 1, 1]"), "{e}");
    let e = create_err("holdout/block_scan", &[], l(None, Some([256, 1, 1])));
    assert!(e.contains("needs block [512, 1, 1]"), "{e}");
    let e = create_err("holdout/block_scan", &[], l(Some([10, 1, 1]), None));
    assert!(e.contains("use grid [1024, 1, 1]"), "{e}");
    let e = create_err(
        "holdout/warp_shared_reduce",
        &[],
        l(None, Some([128, 1, 1])),
    );
    assert!(e.contains("needs block [256, 1, 1]"), "{e}");
    let e = create_err(
        "holdout/bitonic_sort_shared",
        &[("keys", "1000")],
        l(None, None),
    );
    assert!(e.contains("multiple of 512"), "{e}");
    let e = create_err(
        "holdout/bitonic_sort_shared",
        &[],
        l(Some([255, 1, 1]), None),
    );
    assert!(e.contains("needs grid [256, 1, 1]"), "{e}");
    let e = create_err("holdout/dp_axpby", &[("c", "0.9")], l(None, None));
    assert!(e.contains("multiple of 1/8 in [-2, 2]"), "{e}");
    let e = create_err("holdout/dp_axpby", &[("a", "2.5")], l(None, None));
    assert!(e.contains("multiple of 1/8 in [-2, 2]"), "{e}");
    let e = create_err("holdout/dp_axpby", &[], l(Some([8, 1, 1]), None));
    assert!(e.contains("use grid [3072, 1, 1]"), "{e}");
    let e = create_err("holdout/nbody_tiled", &[("n", "1000")], l(None, None));
    assert!(e.contains("multiple of slices * block = 256"), "{e}");
    let e = create_err("holdout/nbody_tiled", &[], l(Some([24, 1, 1]), None));
    assert!(e.contains("needs grid [24, 4, 1]"), "{e}");
    let e = create_err("holdout/nbody_tiled", &[("eps2", "0")], l(None, None));
    assert!(e.contains("finite f32 > 0"), "{e}");
    let e = create_err("holdout/kmeans_assign", &[], l(Some([255, 1, 1]), None));
    assert!(e.contains("use grid [256, 1, 1]"), "{e}");
    let e = create_err(
        "holdout/kmeans_assign",
        &[("n", "200000000")],
        l(None, None),
    );
    assert!(e.contains("does not fit"), "{e}");
    let e = create_err("holdout/blackscholes", &[("v", "0.05")], l(None, None));
    assert!(e.contains("must be in [0.15, 1]"), "{e}");
    let e = create_err("holdout/blackscholes", &[], l(None, Some([128, 2, 1])));
    assert!(e.contains("1-D block"), "{e}");
    let e = create_err("baws/merge_sort", &[("keys", "1000")], l(None, None));
    assert!(e.contains("multiple of 512"), "{e}");
    let e = create_err("baws/merge_sort", &[("length", "384")], l(None, None));
    assert!(e.contains("power of two at most 512"), "{e}");
    let e = create_err("baws/btree", &[], l(None, Some([128, 1, 1])));
    assert!(e.contains("remove `grid`/`block`"), "{e}");
    let e = create_err("baws/btree", &[("records", "300000000")], l(None, None));
    assert!(e.contains("at most 2^28"), "{e}");
    let e = create_err("baws/similarity_score", &[("docs", "40")], l(None, None));
    assert!(e.contains("multiple of 16"), "{e}");
    let e = create_err("baws/page_view_count", &[("urls", "65536")], l(None, None));
    assert!(e.contains("at most 65535"), "{e}");
    let e = create_err("baws/mri_gridding", &[("size", "100")], l(None, None));
    assert!(e.contains("multiple of 32"), "{e}");
    let e = create_err("baws/mri_gridding", &[("radius", "17")], l(None, None));
    assert!(e.contains("at most 16"), "{e}");
    let e = create_err(
        "baws/octree_partition",
        &[("host_levels", "7")],
        l(None, None),
    );
    assert!(e.contains("at most `max_levels` = 6"), "{e}");
    let e = create_err("baws/page_view_rank", &[], l(Some([4, 1, 1]), None));
    assert!(e.contains("remove `grid`/`block`"), "{e}");
    let e = create_err("lfws/nearest_neighbor", &[("k", "20000")], l(None, None));
    assert!(e.contains("at most `records` = 10691"), "{e}");
    let e = create_err("lfws/nearest_neighbor", &[("lat", "1e39")], l(None, None));
    assert!(e.contains("not a finite f32"), "{e}");
    let e = create_err("lfws/nearest_neighbor", &[], l(Some([4, 1, 1]), None));
    assert!(e.contains("remove `grid`"), "{e}");
    let e = create_err("lfws/nearest_neighbor", &[], l(None, Some([16, 16, 1])));
    assert!(e.contains("1-D block"), "{e}");
    let e = create_err("lfws/laplace3d", &[("nz", "2000")], l(None, None));
    assert!(e.contains("at most 2^24"), "{e}");
    let e = create_err("lfws/laplace3d", &[], l(None, Some([16, 16, 1])));
    assert!(e.contains("needs block [32, 4, 1]"), "{e}");
    let e = create_err("lfws/laplace3d", &[("iterations", "0")], l(None, None));
    assert!(e.contains("iterations"), "{e}");
    let e = create_err("lfws/estimate_pi", &[("blocks", "200000")], l(None, None));
    assert!(e.contains("at most 16384"), "{e}");
    let e = create_err("lfws/estimate_pi", &[], l(Some([8, 1, 1]), None));
    assert!(e.contains("remove `grid`"), "{e}");
    let e = create_err("lfws/asian_option", &[("steps", "100000")], l(None, None));
    assert!(e.contains("at most 2^24"), "{e}");
    let e = create_err(
        "lfws/laplace3d",
        &[("nx", "1"), ("ny", "300000"), ("nz", "1")],
        l(None, None),
    );
    assert!(e.contains("at most 65535"), "{e}");
    let e = create_err("lfws/asian_option", &[], l(None, Some([256, 1, 1])));
    assert!(e.contains("needs block [128, 1, 1]"), "{e}");
    let e = create_err("blws/mummer", &[("min_len", "30")], l(None, None));
    assert!(e.contains("at most `read_len` = 25"), "{e}");
    let e = create_err("blws/mummer", &[("mutation", "1.5")], l(None, None));
    assert!(e.contains("probability"), "{e}");
    let e = create_err(
        "blws/mummer",
        &[("read_len", "30"), ("ref_len", "20")],
        l(None, None),
    );
    assert!(e.contains("at most `ref_len` = 20"), "{e}");
    let e = create_err(
        "blws/mummer",
        &[
            ("queries", "16000000"),
            ("read_len", "100"),
            ("min_len", "10"),
        ],
        l(None, None),
    );
    assert!(e.contains("must fit in 2 GiB"), "{e}");
    let e = create_err("blws/mummer", &[], l(None, Some([128, 1, 1])));
    assert!(e.contains("remove `grid`/`block`"), "{e}");
    let e = create_err("blws/storegpu", &[("chunk_bytes", "250")], l(None, None));
    assert!(e.contains("multiple of 4"), "{e}");
    let e = create_err(
        "blws/storegpu",
        &[("chunks", "4000000"), ("chunk_bytes", "1000")],
        l(None, None),
    );
    assert!(e.contains("at most 1 GiB"), "{e}");
    let e = create_err("blws/simple_multigpu", &[], l(Some([32, 1, 1]), None));
    assert!(e.contains("remove `grid`/`block` (set `ctas`)"), "{e}");
    let e = create_err(
        "blws/simple_multigpu",
        &[("elements", "3000000000")],
        l(None, None),
    );
    assert!(e.contains("the kernel's `int N`"), "{e}");
    let e = create_err("blws/monte_carlo", &[("ctas", "70000")], l(None, None));
    assert!(e.contains("at most 65535"), "{e}");
    let e = create_err("blws/monte_carlo", &[("paths", "0")], l(None, None));
    assert!(e.contains("outside 1.."), "{e}");
    let e = create_err("ispass/libor", &[("steps", "41")], l(None, None));
    assert!(e.contains("`steps` = 41 must be at most 40"), "{e}");
    let e = create_err("ispass/libor", &[], l(Some([4, 2, 1]), None));
    assert!(e.contains("needs a 1-D grid"), "{e}");
    let e = create_err("ispass/libor", &[], l(None, Some([2048, 1, 1])));
    assert!(e.contains("1-D block"), "{e}");
    let e = create_err(
        "ispass/neural_network",
        &[("images", "60001")],
        l(None, None),
    );
    assert!(e.contains("at most 60000"), "{e}");
    let e = create_err("ispass/neural_network", &[], l(None, Some([13, 13, 1])));
    assert!(e.contains("remove `grid`/`block`"), "{e}");
    let e = create_err(
        "ispass/ray_tracing",
        &[("extra_spheres", "13")],
        l(None, None),
    );
    assert!(e.contains("at most 12"), "{e}");
    let e = create_err("ispass/ray_tracing", &[("width", "9000")], l(None, None));
    assert!(e.contains("at most 8192"), "{e}");
    let e = create_err("ispass/ray_tracing", &[("pas", "11.5")], l(None, None));
    assert!(e.contains("in [-10, 10]"), "{e}");
    let e = create_err("ispass/ray_tracing", &[], l(Some([2, 4, 1]), None));
    assert!(e.contains("remove `grid`/`block`"), "{e}");
}

#[test]
fn other_sizes_pass_too() {
    // Shapes derived from the arguments (no manifest grid/block), sizes that
    // are not multiples of the tile or block, several vectors per buffer.
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "spmv_scalar",
            &[
                ("rows", "100"),
                ("avg_nnz_per_row", "40"),
                ("stddev_nnz_per_row", "30"),
            ],
        ),
        (
            "spmv_vector",
            &[
                ("rows", "100"),
                ("avg_nnz_per_row", "40"),
                ("stddev_nnz_per_row", "30"),
            ],
        ),
        (
            "fwt",
            &[
                ("log2_data", "9"),
                ("log2_kernel", "3"),
                ("batch", "2"),
                ("elementary_log2", "5"),
                ("thread_n", "8"),
            ],
        ),
        ("scalar_product", &[("vectors", "5"), ("elements", "3000")]),
        ("matmul", &[("n", "37")]),
        ("histogram256", &[("bytes", "4000")]),
        (
            "stencil2d",
            &[("width", "45"), ("height", "37"), ("iterations", "3")],
        ),
        (
            "bfs",
            &[("nodes", "300"), ("mean_degree", "2"), ("source", "17")],
        ),
        (
            "kmeans",
            &[("points", "300"), ("features", "5"), ("clusters", "7")],
        ),
        ("gather", &[("n", "1000"), ("steps", "5")]),
        ("vector_add", &[("n", "1000")]),
        (
            "rodinia/pathfinder",
            &[("cols", "1000"), ("rows", "37"), ("pyramid_height", "7")],
        ),
        (
            "rodinia/hotspot",
            &[("size", "70"), ("pyramid_height", "3"), ("sim_time", "7")],
        ),
        ("rodinia/gaussian", &[("size", "37")]),
        ("rodinia/needle", &[("n", "48"), ("penalty", "3")]),
        (
            "rodinia/srad",
            &[
                ("rows", "48"),
                ("cols", "64"),
                ("r1", "3"),
                ("r2", "20"),
                ("c1", "5"),
                ("c2", "40"),
                ("niter", "3"),
            ],
        ),
        ("rodinia/backprop", &[("in", "48"), ("seed", "7")]),
        ("rodinia/bfs", &[("nodes", "1000"), ("source", "17")]),
        ("sdk/histogram256", &[("bytes", "4004"), ("seed", "5")]),
        (
            "baws/merge_sort",
            &[("keys", "1536"), ("length", "64"), ("key_range", "7")],
        ),
        ("baws/merge_sort", &[("keys", "512"), ("length", "1")]),
        (
            "baws/btree",
            &[("records", "100"), ("queries", "20"), ("range", "30")],
        ),
        ("baws/btree", &[("records", "70000"), ("queries", "9")]),
        (
            "baws/similarity_score",
            &[("docs", "48"), ("features", "32"), ("seed", "4")],
        ),
        (
            "baws/page_view_count",
            &[("entries", "1500"), ("urls", "5"), ("ips", "3")],
        ),
        (
            "baws/mri_gridding",
            &[("size", "64"), ("samples", "3000"), ("radius", "3")],
        ),
        (
            "baws/mri_gridding",
            &[("size", "32"), ("samples", "2000"), ("radius", "1")],
        ),
        (
            "baws/page_view_rank",
            &[("urls", "1300"), ("max_views", "3")],
        ),
        (
            "baws/octree_partition",
            &[
                ("particles", "3000"),
                ("leaf_size", "5"),
                ("host_levels", "0"),
            ],
        ),
        (
            "baws/octree_partition",
            &[("particles", "700"), ("leaf_size", "1000")],
        ),
        (
            "baws/page_view_count",
            &[("entries", "700"), ("urls", "65535"), ("ips", "65536")],
        ),
        ("correlation/stream_triad", &[("n", "1000"), ("s", "-0.5")]),
        (
            "correlation/compute_fma",
            &[("n", "1000"), ("iters", "7"), ("a", "1.5"), ("b", "-2")],
        ),
        ("correlation/sfu_mix", &[("n", "1000"), ("iters", "5")]),
        (
            "correlation/divergent_loop",
            &[("n", "1000"), ("max_steps", "50"), ("max_start", "100000")],
        ),
        ("correlation/reduce_tree", &[("n", "1000")]),
        (
            "correlation/transpose_naive",
            &[("rows", "64"), ("cols", "96")],
        ),
        (
            "correlation/transpose_padded",
            &[("rows", "96"), ("cols", "32")],
        ),
        ("correlation/atomic_hist", &[("n", "1001"), ("seed", "3")]),
        ("correlation/matmul_tiled", &[("n", "37")]),
        // A partial last block (1000 = 512 + 488).
        ("holdout/block_scan", &[("n", "1000"), ("seed", "4")]),
        // Fewer elements than threads: most lanes add nothing.
        (
            "holdout/warp_shared_reduce",
            &[("n", "1001"), ("seed", "3")],
        ),
        (
            "holdout/bitonic_sort_shared",
            &[("keys", "1536"), ("seed", "5")],
        ),
        (
            "correlation/gather_random",
            &[("n", "1000"), ("src_len", "77")],
        ),
        (
            "correlation/spmv_csr",
            &[("rows", "100"), ("avg_nnz_per_row", "40")],
        ),
        // Edges that are not multiples of the 16 x 16 CTA; a single row
        // and a single column (every point on the boundary).
        ("holdout/stencil2d_shared", &[("nx", "37"), ("ny", "21")]),
        ("holdout/stencil2d_shared", &[("nx", "50"), ("ny", "1")]),
        ("holdout/stencil2d_shared", &[("nx", "1"), ("ny", "40")]),
        (
            "holdout/strided_copy",
            &[("n", "1000"), ("stride", "1"), ("seed", "2")],
        ),
        ("holdout/strided_copy", &[("n", "1000"), ("stride", "33")]),
        (
            "holdout/gemv_rowmajor",
            &[("rows", "100"), ("cols", "37"), ("seed", "5")],
        ),
        ("holdout/gemv_rowmajor", &[("rows", "33"), ("cols", "1")]),
        // A partial last CTA; the extreme coefficients.
        (
            "holdout/dp_axpby",
            &[
                ("n", "1000"),
                ("a", "-2"),
                ("b", "2"),
                ("c", "-2"),
                ("seed", "3"),
            ],
        ),
        // c = 0: every result is 1/4 (pairs with y = 1/4 redrawn).
        ("holdout/dp_axpby", &[("n", "33"), ("c", "0")]),
        (
            "holdout/nbody_tiled",
            &[
                ("n", "256"),
                ("slices", "2"),
                ("eps2", "0.5"),
                ("seed", "2"),
            ],
        ),
        // One CTA, one tile, one slice.
        ("holdout/nbody_tiled", &[("n", "64"), ("slices", "1")]),
        ("holdout/kmeans_assign", &[("n", "1000"), ("seed", "2")]),
        ("holdout/kmeans_assign", &[("n", "1")]),
        (
            "holdout/blackscholes",
            &[("n", "1000"), ("r", "0"), ("v", "1"), ("seed", "4")],
        ),
        ("holdout/blackscholes", &[("n", "5000"), ("v", "0.15")]),
        (
            "lfws/nearest_neighbor",
            &[("records", "1000"), ("k", "1000"), ("lat", "-20.5")],
        ),
        ("lfws/nearest_neighbor", &[("records", "1"), ("k", "1")]),
        (
            "lfws/laplace3d",
            &[("nx", "37"), ("ny", "9"), ("nz", "5"), ("iterations", "3")],
        ),
        (
            "lfws/laplace3d",
            &[("nx", "2"), ("ny", "1"), ("nz", "1"), ("iterations", "1")],
        ),
        ("lfws/estimate_pi", &[("sims", "100"), ("seed", "9")]), // 1 CTA, most threads draw nothing
        ("lfws/estimate_pi", &[("sims", "5000"), ("blocks", "3")]),
        (
            "lfws/asian_option",
            &[("sims", "300"), ("steps", "5"), ("blocks", "3")],
        ),
        ("lfws/asian_option", &[("sims", "200"), ("steps", "1")]), // odd: one cached normal
        (
            "blws/mummer",
            &[
                ("ref_len", "300"),
                ("repeats", "3"),
                ("queries", "300"),
                ("read_len", "30"),
                ("min_len", "8"),
                ("mutation", "0.1"),
            ],
        ),
        (
            "blws/mummer",
            &[
                ("ref_len", "64"),
                ("repeats", "0"),
                ("queries", "40"),
                ("read_len", "6"),
                ("min_len", "1"),
                ("mutation", "0.5"),
            ],
        ),
        ("blws/storegpu", &[("chunks", "200"), ("chunk_bytes", "60")]),
        ("blws/storegpu", &[("chunks", "130"), ("chunk_bytes", "56")]),
        ("blws/storegpu", &[("chunks", "3"), ("chunk_bytes", "4")]),
        (
            "blws/simple_multigpu",
            &[("elements", "1000"), ("ctas", "3")],
        ),
        (
            "blws/simple_multigpu",
            &[("elements", "100"), ("ctas", "1")],
        ),
        (
            "blws/monte_carlo",
            &[("options", "5"), ("paths", "1000"), ("ctas", "2")],
        ),
        ("blws/monte_carlo", &[("options", "3"), ("paths", "100")]),
        // The original's 40 steps; more paths than the 4096 threads of the
        // default grid (the grid-stride loop), with 2 steps.
        ("ispass/libor", &[("paths", "70"), ("steps", "40")]),
        ("ispass/libor", &[("paths", "5000"), ("steps", "2")]),
        ("ispass/neural_network", &[("images", "3"), ("seed", "9")]),
        // Edges that are not multiples of the 16 x 8 CTA; a full scene.
        (
            "ispass/ray_tracing",
            &[
                ("width", "40"),
                ("height", "20"),
                ("extra_spheres", "12"),
                ("pas", "0.3"),
                ("seed", "5"),
            ],
        ),
    ];
    for (name, overrides) in cases {
        let p = manifest_named(name);
        let m = &p.manifest.manifest;
        let mut args = Args::new(m.args.clone());
        for (k, v) in *overrides {
            args.set_from_text(k, v);
        }
        // Derive the launch shape from the arguments.
        let mut w = registry::create(&m.workload, &mut args, Launch::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut host = host_for(&p);
        let check = w.run(&mut host).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(check.passed(), "{name} {overrides:?}: {check}");
    }
}

#[test]
fn a_multi_entry_module_without_a_named_entry_needs_named_launches() {
    let p = manifest_named("fwt");
    assert!(!p.entry_named);
    let mut host = host_for(&p);
    let d = host.alloc("d", 4096);
    let e = host
        .launch(
            None,
            [1, 1, 1],
            [256, 1, 1],
            &[ArgValue::U64(d), ArgValue::U64(d), ArgValue::S32(10)],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("names no entry"), "{e}");
}
