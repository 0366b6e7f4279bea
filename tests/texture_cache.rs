//! The texture cache (`l1t`, GPGPU-Sim's L1T `tex_cache`) in isolation:
//! one warp whose lanes all fetch one texel, so every fetch is one line
//! request, on `gtx480` with and without the cache (`l1t.sets = 0`: a
//! texture fetch is a global load through the L1D). Every expected value
//! is computed from the config or from another run of the same kernel.

use std::path::{Path, PathBuf};

use gpusim::config::GpuConfig;

#[allow(dead_code)] // this file uses a part of the shared helpers
mod micro;

/// A one-warp kernel `entry`: the parameters, a warm-up fetch of texel
/// `y` and an add using it (instructions 0–4), then `body`, then the
/// store of `%r17` and `ret`.
fn ptx(entry: &str, body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.global .texref lut;\n\
         .visible .entry {entry}(.param .u64 out, .param .s32 x, .param .s32 y)\n{{\n\
         .reg .s32 %r<20>;\n.reg .u64 %rd<3>;\n\
         ld.param.s32 %r1, [x];\nld.param.s32 %r2, [y];\nld.param.u64 %rd1, [out];\n\
         tex.1d.v4.s32.s32 {{%r3, %r4, %r5, %r6}}, [lut, {{%r2}}];\nadd.s32 %r7, %r3, 1;\n\
         {body}st.global.s32 [%rd1], %r17;\nret;\n}}\n"
    )
}

/// After the warm-up, the measured pair: texel `x` (A), texel `y` again
/// (B, a hit on the warmed line); the add that uses B comes before the add
/// that uses A.
const ORDER_BODY: &str = "tex.1d.v4.s32.s32 {%r8, %r9, %r10, %r11}, [lut, {%r1}];\n\
    tex.1d.v4.s32.s32 {%r12, %r13, %r14, %r15}, [lut, {%r2}];\n\
    add.s32 %r16, %r12, %r7;\nadd.s32 %r17, %r8, %r16;\n";

/// After the warm-up, A alone, with A's add.
const ALONE_BODY: &str = "tex.1d.v4.s32.s32 {%r8, %r9, %r10, %r11}, [lut, {%r1}];\n\
    add.s32 %r17, %r8, %r7;\n";

/// Texel `y` of the warm-up; texel 2048 (8 KB on) is on another line.
const Y: u32 = 3;
const FAR: u32 = 2048;

/// Writes [`ptx`]`(entry, body)` and a manifest running it with `x` into a fresh
/// temporary directory. The lookup table's texel i is i, so the kernel
/// stores x + y + (y + 1) (`tex_order`) or x + y + 1 (`tex_alone`). The
/// directory is test `test`'s own: tests run in parallel threads, and one
/// must not read a file another is rewriting.
fn kernel(test: &str, entry: &str, body: &str, x: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "gpusim-tex-{}-{test}-{entry}-{x}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{entry}.ptx")), ptx(entry, body)).unwrap();
    let expect = if entry == "tex_order" {
        x + Y + Y + 1
    } else {
        x + Y + 1
    };
    let path = dir.join(format!("{entry}.toml"));
    std::fs::write(
        &path,
        format!(
            "ptx = \"{entry}.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
             params = [\"out\", {{ s32 = {x} }}, {{ s32 = {Y} }}]\n\
             [[buffers]]\nname = \"lut\"\ntype = \"i32\"\nlen = 4096\ninit = \"iota\"\n\
             [[buffers]]\nname = \"out\"\ntype = \"i32\"\nlen = 1\nexpect = [{expect}]\n\
             [[textures]]\nname = \"lut\"\nbuffer = \"lut\"\ntype = \"s32\"\nwidth = 4096\n"
        ),
    )
    .unwrap();
    path
}

/// `gtx480` with the texture cache (`on`) or without it.
fn config(on: bool) -> GpuConfig {
    micro::config("gtx480", if on { &[] } else { &["l1t.sets=0"] })
}

/// The issue cycle of each instruction of the (one-warp) kernel, by
/// instruction index: `tex_order` has its fetches at 3 (warm-up), 5 (A)
/// and 6 (B) and the adds using B and A at 7 and 8; `tex_alone` its
/// fetches at 3 and 5 and A's add at 6.
fn issues(m: &Path, cfg: &GpuConfig) -> (Vec<u64>, micro::Run) {
    let r = micro::run(m, cfg, "gto", &[], true);
    let mut at = vec![0; 11];
    for e in &r.log {
        at[e.pc as usize] = e.cycle;
    }
    (at, r)
}

/// Instruction indices (see [`issues`]).
const TEX_A: usize = 5;
const TEX_B: usize = 6;
const ADD_B: usize = 7;
const ADD_A_ALONE: usize = 6;

#[test]
fn a_hit_returns_after_the_texture_latency_not_the_l1d_latency() {
    let m = kernel("latency", "tex_order", ORDER_BODY, Y);
    let (on, off) = (config(true), config(false));
    let (at, r) = issues(&m, &on);
    let (at0, r0) = issues(&m, &off);
    // B hits in both runs (as does A).
    let gap_on = at[ADD_B] - at[TEX_B];
    let gap_off = at0[ADD_B] - at0[TEX_B];
    assert_eq!(
        gap_off - gap_on,
        u64::from(off.l1d.hit_latency - on.l1t.hit_latency),
        "the same pipeline around a {}-cycle texture hit instead of a {}-cycle L1D hit",
        on.l1t.hit_latency,
        off.l1d.hit_latency
    );
    // Three fetches, the warm-up the only miss; none in the L1D.
    let t = &r.stats.total;
    assert_eq!((t.tex_accesses, t.tex_misses), (3, 1));
    assert_eq!(t.l1d.accesses, 0);
    let t0 = &r0.stats.total;
    assert_eq!((t0.tex_accesses, t0.l1d.accesses, t0.l1d.misses), (0, 3, 1));
}

#[test]
fn fetches_return_in_order_so_a_hit_waits_behind_a_miss() {
    let (on, off) = (config(true), config(false));
    let order = kernel("order", "tex_order", ORDER_BODY, FAR);
    let alone = kernel("order", "tex_alone", ALONE_BODY, FAR);
    let hits = kernel("order", "tex_order", ORDER_BODY, Y);
    // A misses (its line is 8 KB from the warm-up's), B hits behind it:
    // B leaves the FIFO the cycle after A's data is back, so B's add
    // issues one cycle after A's add does when A is alone.
    let (at, r) = issues(&order, &on);
    let (at_a, _) = issues(&alone, &on);
    assert_eq!(at[TEX_A], at_a[TEX_A], "the same run up to A");
    assert_eq!(at[ADD_B] - at[TEX_A], at_a[ADD_A_ALONE] - at_a[TEX_A] + 1);
    assert_eq!(
        (r.stats.total.tex_accesses, r.stats.total.tex_misses),
        (3, 2)
    );
    // B's hit alone (A a hit too) returns long before.
    let (at_h, _) = issues(&hits, &on);
    assert!(at_h[ADD_B] - at_h[TEX_B] < at[ADD_B] - at[TEX_B]);
    // Through the L1D, B's hit does not wait for A's miss.
    let (at0, _) = issues(&order, &off);
    let (at0_h, _) = issues(&hits, &off);
    assert_eq!(at0[ADD_B] - at0[TEX_B], at0_h[ADD_B] - at0_h[TEX_B]);
}

#[test]
fn a_full_fifo_holds_the_ldst_unit() {
    // With room for one request, B's lookup waits until A has left the
    // FIFO: the LD/ST unit stalls (tex_stall) and B's add issues later
    // than with the GTX480's 128 entries, one cycle after A's data.
    let order = kernel("fifo", "tex_order", ORDER_BODY, FAR);
    let (at, r) = issues(&order, &config(true));
    let (at1, r1) = issues(&order, &micro::config("gtx480", &["l1t.fifo=1"]));
    assert_eq!(at[TEX_A], at1[TEX_A]);
    assert_eq!(r.stats.total.tex_stall, 0);
    assert!(r1.stats.total.tex_stall > 0);
    assert!(at1[ADD_B] > at[ADD_B]);
}
