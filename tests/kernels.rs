//! The shipped kernels: every one passes the front end, and the control-flow
//! facts the simulator relies on hold for them. Facts are stated relative to
//! the kernels' own labels and opcodes, so they say what the source means.

use std::path::{Path, PathBuf};

use gpusim::Program;
use gpusim::analysis::BlockId;
use gpusim::ir::{BarKind, InstId, Kernel, Opcode, Space, flag};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn load(rel: &str) -> Program {
    gpusim::load(&root().join(rel)).unwrap_or_else(|d| panic!("{d}"))
}

fn label(k: &Kernel, name: &str) -> InstId {
    k.labels
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no label {name}"))
        .1
}

fn ptx_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_shipped_kernel_passes_the_front_end() {
    let files = ptx_files("kernels");
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in ["vector_add", "spmv_scalar", "fwt"] {
        assert!(
            names.iter().any(|n| n == want),
            "kernels/{want}.ptx missing"
        );
    }
    for f in files {
        let p = gpusim::load(&f).unwrap_or_else(|d| panic!("{d}"));
        assert!(!p.module.kernels.is_empty());
    }
}

#[test]
fn spmv_scalar_loop_and_reconvergence() {
    let p = load("kernels/spmv_scalar_global.ptx");
    let k = p.kernel(p.entry(Some("spmv_csr_scalar_kernel")).unwrap());
    let a = &p.analyses[0];
    // One loop: `for (j = start; j < end; j++)`.
    assert_eq!(a.loops.loops.len(), 1);
    let l = &a.loops.loops[0];
    assert_eq!(l.depth, 1);
    // It begins at the loop label and ends at the backward branch to it.
    let head = label(k, "$L__BB0_3");
    assert_eq!(l.begin, head);
    let end = &k.insts[l.end.0 as usize];
    assert_eq!(end.op, Opcode::Bra);
    assert!(end.guard.is_some(), "the loop back edge is conditional");
    assert_eq!(end.target(), Some(head));
    assert_eq!(a.loops.begins_at(head), Some(gpusim::analysis::LoopId(0)));
    // Inside: the three global loads cols[j], val[j], vec[col] and the fma.
    let body: Vec<&gpusim::ir::Inst> = (l.begin.0..=l.end.0)
        .map(|i| &k.insts[i as usize])
        .collect();
    let loads = body
        .iter()
        .filter(|i| i.op == Opcode::Ld && i.mods.space == Space::Global)
        .count();
    assert_eq!(loads, 3);
    assert!(body.iter().any(|i| i.op == Opcode::Fma));
    // `if (myRow < dim)` reconverges at the final `ret`; the loop guard
    // (start >= end skips the loop) reconverges at the store of out[myRow].
    let branches: Vec<InstId> = (0..k.insts.len())
        .filter(|&i| k.insts[i].op == Opcode::Bra)
        .map(|i| InstId(i as u32))
        .collect();
    assert_eq!(branches.len(), 3);
    let ret = InstId(k.insts.len() as u32 - 1);
    assert_eq!(k.insts[ret.0 as usize].op, Opcode::Ret);
    assert_eq!(a.reconvergence_pc(branches[0]), Some(ret));
    let store_block = label(k, "$L__BB0_4");
    assert_eq!(a.reconvergence_pc(branches[1]), Some(store_block));
    assert!((store_block.0..ret.0).any(|i| k.insts[i as usize].op == Opcode::St));
    // The back edge's divergent exit reconverges at the same store.
    assert_eq!(a.reconvergence_pc(branches[2]), Some(store_block));
}

#[test]
fn spmv_scalar_reads_vec_through_its_texture() {
    // The paper's SPMV-scalar: the same loop as spmv_scalar_global.ptx,
    // with cols[j] and val[j] global loads and vec[col] a fetch of
    // texture vecTex.
    let p = load("kernels/spmv_scalar.ptx");
    let k = p.kernel(p.entry(Some("spmv_csr_scalar_kernel")).unwrap());
    let a = &p.analyses[0];
    assert_eq!(a.loops.loops.len(), 1);
    let l = &a.loops.loops[0];
    assert_eq!(l.begin, label(k, "$L__BB0_3"));
    let body: Vec<&gpusim::ir::Inst> = (l.begin.0..=l.end.0)
        .map(|i| &k.insts[i as usize])
        .collect();
    let count = |op: Opcode| body.iter().filter(|i| i.op == op).count();
    assert_eq!(count(Opcode::Ld), 2);
    assert_eq!(count(Opcode::Tex), 1);
    assert_eq!(k.textures, vec!["vecTex".to_string()]);
}

#[test]
fn fwt_barriers_sit_where_the_algorithm_puts_them() {
    let p = load("kernels/fwt.ptx");
    let e1 = p.entry(Some("fwtBatch1Kernel")).unwrap();
    let k = p.kernel(e1);
    let a = &p.analyses[e1];
    let bars: Vec<usize> = (0..k.insts.len())
        .filter(|&i| k.insts[i].op == Opcode::Bar && k.insts[i].mods.bar == BarKind::Sync)
        .collect();
    assert_eq!(
        bars.len(),
        3,
        "radix-4 loop, odd-log2N radix-2 stage, before write-back"
    );
    // 1. Inside the radix-4 stage loop, at depth 1, together with the four
    //    shared loads and four shared stores of the butterfly.
    let b0 = a.cfg.block_of(InstId(bars[0] as u32));
    let l = a
        .loops
        .innermost(b0)
        .expect("first barrier is in the stage loop");
    let lp = a.loops.get(l);
    assert_eq!(lp.depth, 1);
    let in_loop = |op: Opcode| {
        (lp.begin.0..=lp.end.0)
            .filter(|&i| {
                k.insts[i as usize].op == op && k.insts[i as usize].mods.space == Space::Shared
            })
            .count()
    };
    assert_eq!(in_loop(Opcode::Ld), 4);
    assert_eq!(in_loop(Opcode::St), 4);
    assert!(
        bars[0]
            < (lp.begin.0..=lp.end.0)
                .find(|&i| k.insts[i as usize].op == Opcode::Ld)
                .unwrap() as usize
    );
    // 2 and 3 are outside every loop.
    for &b in &bars[1..] {
        assert_eq!(a.loops.depth(a.cfg.block_of(InstId(b as u32))), 0);
    }
    // The final barrier starts the block where the `log2N & 1` branch
    // reconverges: every thread meets it whatever the parity.
    let last = a.cfg.block_of(InstId(bars[2] as u32));
    assert_eq!(a.cfg.blocks[last.index()].start, InstId(bars[2] as u32));
    let parity_branch = (0..bars[1])
        .rev()
        .find(|&i| k.insts[i].op == Opcode::Bra)
        .unwrap();
    assert_eq!(
        a.reconvergence_pc(InstId(parity_branch as u32)),
        Some(InstId(bars[2] as u32))
    );
    // The global-memory pass has neither barriers nor loops.
    let e2 = p.entry(Some("fwtBatch2Kernel")).unwrap();
    assert!(p.kernel(e2).insts.iter().all(|i| i.op != Opcode::Bar));
    assert!(p.analyses[e2].loops.loops.is_empty());
}

#[test]
fn sync_kernels_use_the_waiting_extensions_inside_spin_loops() {
    // Every HeteroSync entry (kernels/sync/, global and local scope) and
    // every AWG kernel beside them (the ticket lock's two columns, hash
    // table, bank account) waits with a gpusim extension, always inside a
    // spin loop that re-checks.
    let files = ptx_files("kernels/sync");
    assert_eq!(files.len(), 9);
    for f in files {
        let p = gpusim::load(&f).unwrap_or_else(|d| panic!("{d}"));
        let stem = f.file_stem().unwrap().to_string_lossy();
        let entries = match stem.as_ref() {
            "hash_table" | "bank_account" => 1,
            _ => 2, // global and local scope; the ticket lock's two columns
        };
        assert_eq!(p.module.kernels.len(), entries, "{}", f.display());
        for (ki, k) in p.module.kernels.iter().enumerate() {
            let a = &p.analyses[ki];
            let waits: Vec<usize> = (0..k.insts.len())
                .filter(|&i| k.insts[i].mods.has(flag::WAIT) || k.insts[i].op == Opcode::Wait)
                .collect();
            assert!(!waits.is_empty(), "{}: no waiting instruction", k.name);
            for w in waits {
                let b: BlockId = a.cfg.block_of(InstId(w as u32));
                assert!(
                    a.loops.depth(b) >= 1,
                    "{}: waiting instruction {w} is not in a spin loop",
                    k.name
                );
                assert_eq!(k.insts[w].mods.space, Space::Global);
            }
            // Every spin iteration meets the CTA barrier (HeteroSync's pattern).
            assert!(k.insts.iter().any(|i| i.op == Opcode::Bar), "{}", k.name);
        }
    }
}

#[test]
fn clang_output_parses_and_lowers() {
    let files = ptx_files("kernels/cuda");
    assert!(files.len() >= 6, "at least 6 compiler-generated kernels");
    for f in &files {
        // Each .ptx has its CUDA source beside it.
        assert!(
            f.with_extension("cu").exists(),
            "{} has no .cu",
            f.display()
        );
        let text = std::fs::read_to_string(f).unwrap();
        // clang (gen.sh) or nvcc (gen_nvcc.sh: the `call_*` kernels).
        assert!(
            text.contains("Generated by LLVM NVPTX Back-End")
                || text.contains("Generated by NVIDIA NVVM Compiler"),
            "{} is not compiler output",
            f.display()
        );
        let p = gpusim::load(f).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(p.module.kernels.len(), 1, "{}", f.display());
        assert!(
            p.module.kernels[0].name.starts_with("_Z"),
            "mangled entry name"
        );
        assert!(p.module.kernels[0].insts.len() > 3);
    }
}
