//! Local stores written back (`l1d.local_write_back`, GPGPU-Sim's
//! `LOCAL_WB_GLOBAL_WT` L1D write policy, `L:L` in `-gpgpu_cache:dl1`): a
//! local store that hits its line keeps it, dirty, and is done; the line
//! goes to L2 when evicted. Without, a store hit evicts the line and writes
//! through, as a global store does. One warp on `gtx480` with a one-line
//! L1D (1 set, 1 way), so every count follows from the kernel's order.

use std::path::PathBuf;

use gpusim::config::GpuConfig;
use gpusim::timing::stats::L1dStats;

#[allow(dead_code)] // this file uses a part of the shared helpers
mod micro;

/// One warp: stores 5 to local word 1 and its index to word 0 (both miss,
/// written through); loads word 0 (miss, fills its line); stores index + 1
/// to word 0 (hits that line); loads it again; loads word 1 (another line:
/// a miss that evicts word 0's); stores index + 1 + 5 to `out`. Written
/// into a directory of its own per `on` (the tests run in parallel).
fn kernel(on: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-localwb-{}-{on}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .visible .entry local_wb(.param .u64 out)\n{\n\
        .local .align 8 .b8 buf[8];\n.reg .u32 %r<10>;\n.reg .u64 %rd<4>;\n\
        mov.u32 %r1, %tid.x;\n\
        st.local.u32 [buf+4], 5;\nst.local.u32 [buf], %r1;\nld.local.u32 %r2, [buf];\n\
        add.u32 %r5, %r2, 1;\nst.local.u32 [buf], %r5;\nld.local.u32 %r3, [buf];\n\
        ld.local.u32 %r4, [buf+4];\nadd.u32 %r6, %r3, %r4;\n\
        ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\n\
        st.global.u32 [%rd3], %r6;\nret;\n}\n";
    std::fs::write(dir.join("local_wb.ptx"), ptx).unwrap();
    let expect: Vec<String> = (0..32).map(|i: u32| (i + 6).to_string()).collect();
    let path = dir.join("local_wb.toml");
    std::fs::write(
        &path,
        format!(
            "ptx = \"local_wb.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
             params = [\"out\"]\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 32\nexpect = [{}]\n",
            expect.join(", ")
        ),
    )
    .unwrap();
    path
}

/// `gtx480` with a one-line L1D, local write-back `on` or off.
fn l1d(on: bool) -> L1dStats {
    let wb = format!("l1d.local_write_back={on}");
    let cfg: GpuConfig = micro::config(
        "gtx480",
        &["l1d.sets=1", "l1d.ways=1", "l1d.hash_sets=false", &wb],
    );
    micro::run(&kernel(on), &cfg, "gto", &[], false)
        .stats
        .total
        .l1d
}

#[test]
fn a_local_store_hit_stays_in_the_line_and_is_written_back_on_eviction() {
    assert!(GpuConfig::gtx480().l1d.local_write_back);
    let on = l1d(true);
    // Loads: word 0 (miss), word 0 after the store (hit), word 1 (miss).
    assert_eq!((on.accesses, on.misses), (3, 2));
    // Stores: three local (the third a hit kept in the line) and `out`.
    assert_eq!(on.stores, 4);
    assert_eq!(on.local_write_hits, 1);
    assert_eq!(on.write_evictions, 0);
    // Word 1's miss evicted the dirty line.
    assert_eq!(on.writebacks, 1);
}

#[test]
fn without_write_back_a_local_store_hit_evicts_the_line() {
    let off = l1d(false);
    // The store hit evicts word 0's line: the next load misses too.
    assert_eq!((off.accesses, off.misses), (3, 3));
    assert_eq!(off.stores, 4);
    assert_eq!(off.write_evictions, 1);
    assert_eq!((off.local_write_hits, off.writebacks), (0, 0));
}
