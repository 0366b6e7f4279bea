//! Local memory as the caches see it (`core.local_mem_map`, GPGPU-Sim's
//! `shader_core_ctx::translate_local_memaddr` with `-gpgpu_local_mem_map
//! 1`): word `D` of every thread the GPU can hold at once is one
//! contiguous region, a CTA's threads adjacent, and an access of 8 bytes or
//! more is one 4-byte access per word, of a vector access its first
//! element's only. Without it each warp's words are a block of their own
//! and a lane's access is its bytes. Counted in L1D requests, which follow
//! from the layout alone.

use std::path::PathBuf;

use gpusim::config::GpuConfig;
use gpusim::timing::ldst::{LOCAL_GENERIC_START, LOCAL_TIMING_BASE, LocalMap};

#[allow(dead_code)] // this file uses a part of the shared helpers
mod micro;

/// A kernel of `threads` threads in one CTA: each stores its thread index
/// into the four words of a 16-byte local buffer with `st` (`.v4.u32`) and
/// as a `.u64` (`wide`), loads them back likewise, and stores the sum of
/// the first and last word read (2 × index) to `out`.
fn kernel(tag: &str, threads: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-local-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .visible .entry local_lines(.param .u64 out)\n{\n\
        .local .align 16 .b8 buf[16];\n.reg .u32 %r<10>;\n.reg .u64 %rd<6>;\n\
        mov.u32 %r1, %tid.x;\n\
        st.local.v4.u32 [buf], {%r1, %r1, %r1, %r1};\n\
        ld.local.v4.u32 {%r2, %r3, %r4, %r5}, [buf];\n\
        cvt.u64.u32 %rd4, %r1;\nst.local.u64 [buf+8], %rd4;\nld.local.u64 %rd5, [buf+8];\n\
        cvt.u32.u64 %r7, %rd5;\nadd.u32 %r6, %r2, %r7;\n\
        ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\n\
        st.global.u32 [%rd3], %r6;\nret;\n}\n";
    std::fs::write(dir.join("local_lines.ptx"), ptx).unwrap();
    let expect: Vec<String> = (0..threads).map(|i| (2 * i).to_string()).collect();
    let path = dir.join("local_lines.toml");
    std::fs::write(
        &path,
        format!(
            "ptx = \"local_lines.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\n\
             block = [{threads}, 1, 1]\nparams = [\"out\"]\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = {threads}\nexpect = [{}]\n",
            expect.join(", ")
        ),
    )
    .unwrap();
    path
}

fn gtx480(sets: &[&str]) -> GpuConfig {
    micro::config("gtx480", sets)
}

#[test]
fn gpgpusims_formula_places_each_word_of_all_resident_threads_together() {
    // 100-thread CTAs (padded to 128), 3 per SM, 15 SMs: 5 760 threads.
    let m = LocalMap::new(100, 32, 3, 15);
    assert_eq!((m.padded, m.concurrent, m.sms), (128, 5760, 15));
    let base = LOCAL_TIMING_BASE + LOCAL_GENERIC_START;
    // Thread 0 of CTA slot 0 on SM 0, word 0.
    assert_eq!(m.addr(0, 0, 0, 0), base);
    // The next thread is the next word; SM 1's slot 0 follows SM 0's CTA.
    assert_eq!(m.addr(0, 0, 1, 0), base + 4);
    assert_eq!(m.addr(1, 0, 0, 0), base + 4 * 128);
    // Slot 1 comes after slot 0 of all 15 SMs.
    assert_eq!(m.addr(0, 1, 0, 0), base + 4 * 128 * 15);
    // Word 1 is one region (all resident threads) further; bytes within a
    // word stay in it.
    assert_eq!(m.addr(0, 0, 0, 4), base + 4 * 5760);
    assert_eq!(
        m.addr(2, 1, 5, 6),
        base + 4 * 5760 + 4 * (128 * (2 + 15) + 5) + 2
    );
}

/// `m` on `gtx480` under `gto`, with the local-memory layout and without.
fn with_and_without_layout(m: &std::path::Path) -> (micro::Run, micro::Run) {
    let on = micro::run(m, &gtx480(&[]), "gto", &[], false);
    let off = micro::run(m, &gtx480(&["core.local_mem_map=false"]), "gto", &[], false);
    (on, off)
}

#[test]
fn a_warps_word_is_one_line_and_a_wide_access_one_line_per_word() {
    // One warp. With the layout: the v4 store and load are one request
    // each (their first element's word: 32 lanes × 4 bytes = one line), the
    // u64 store and load two each (two words, each a line). Without it a
    // lane's 16 (8) bytes start 4 bytes after the previous lane's, so each
    // access spans 140 (132) bytes: two lines.
    let m = kernel("warp", 32);
    let (on, off) = with_and_without_layout(&m);
    let (a, b) = (&on.stats.total.l1d, &off.stats.total.l1d);
    assert_eq!(a.accesses, 1 + 2);
    assert_eq!(b.accesses, 2 + 2);
    // Stores: the local ones and the global store of `out` (one line).
    assert_eq!(a.stores, 1 + 2 + 1);
    assert_eq!(b.stores, 2 + 2 + 1);
}

#[test]
fn four_warps_make_four_times_the_requests() {
    // Four warps: the same requests per warp; every request is to its own
    // line either way (a warp's 32 words fill one), so the counts scale by
    // four and every load misses (stores do not allocate).
    let m = kernel("cta", 128);
    let (on, off) = with_and_without_layout(&m);
    assert_eq!(on.stats.total.l1d.accesses, 4 * 3);
    assert_eq!(off.stats.total.l1d.accesses, 4 * 4);
    assert_eq!(on.stats.total.l1d.misses, 4 * 3);
}
