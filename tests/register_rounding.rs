//! Occupancy with registers allocated in units (`core.reg_alloc_unit`,
//! GPGPU-Sim's `shader_core_config::max_cta`, which rounds a kernel's
//! registers per thread up to a multiple of 4): 42 registers × 128
//! threads is 5 376 registers per CTA, six of which fit in 32 768; rounded
//! to 44, a CTA takes 5 632 and only five fit. Six CTAs on one SM then run
//! at once or in two waves.

use std::path::PathBuf;

use gpusim::config::GpuConfig;

#[allow(dead_code)] // this file uses a part of the shared helpers
mod micro;

/// Six 128-thread CTAs, 42 registers per thread, each thread counting to
/// 200 and storing the count.
fn kernel() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-regs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .visible .entry count(.param .u64 out)\n{\n\
        .reg .pred %p<2>;\n.reg .u32 %r<6>;\n.reg .u64 %rd<4>;\n\
        mov.u32 %r1, 0;\n$L_loop:\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 200;\n@%p1 bra $L_loop;\n\
        mov.u32 %r2, %tid.x;\nmov.u32 %r3, %ctaid.x;\nmad.lo.u32 %r4, %r3, 128, %r2;\n\
        ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r4, 4;\nadd.u64 %rd3, %rd1, %rd2;\n\
        st.global.u32 [%rd3], %r1;\nret;\n}\n";
    std::fs::write(dir.join("count.ptx"), ptx).unwrap();
    let path = dir.join("count.toml");
    std::fs::write(
        &path,
        "ptx = \"count.ptx\"\nworkload = \"buffers\"\ngrid = [6, 1, 1]\nblock = [128, 1, 1]\n\
         regs_per_thread = 42\nparams = [\"out\"]\n\
         [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 768\nexpect = { value = 200 }\n",
    )
    .unwrap();
    path
}

/// `gtx480` on one SM with `reg_alloc_unit` = `unit`.
fn config(unit: u32) -> GpuConfig {
    let unit = format!("core.reg_alloc_unit={unit}");
    micro::config("gtx480", &["core.num_sms=1", &unit])
}

/// The CTAs that started before the first one retired.
fn first_wave(unit: u32) -> usize {
    let r = micro::run(&kernel(), &config(unit), "gto", &[], false);
    let w = &r.stats.warps;
    assert_eq!(w.len(), 6 * 4, "every warp recorded");
    let first_end = w.iter().map(|w| w.end).min().unwrap();
    let mut ctas: Vec<u32> = w
        .iter()
        .filter(|w| w.start < first_end)
        .map(|w| w.cta[0])
        .collect();
    ctas.sort_unstable();
    ctas.dedup();
    ctas.len()
}

#[test]
fn rounding_registers_to_four_leaves_room_for_five_ctas_not_six() {
    assert_eq!(GpuConfig::gtx480().core.reg_alloc_unit, 4);
    assert_eq!(first_wave(1), 6);
    assert_eq!(first_wave(4), 5);
    // 42 is already a multiple of 2: the same six.
    assert_eq!(first_wave(2), 6);
}
