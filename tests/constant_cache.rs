//! The constant cache's port (`l1c.line`, GPGPU-Sim's L1C and
//! `ldst_unit::constant_cycle`) in isolation: one warp reads a `.const`
//! table at lane-dependent addresses that span 1, 2 or 32 lines of 64
//! bytes, then adds the value it read, then reads the table once more.
//! Every read hits; the port looks up one line per cycle, so a load of `n`
//! lines holds the LD/ST unit `n` cycles and its result comes `n − 1`
//! cycles later than a one-line load's. A `.const` load is not an L1D
//! access. Expected values come from the config and from the one-line run.

use std::path::{Path, PathBuf};

use gpusim::config::GpuConfig;

#[allow(dead_code)] // this file uses a part of the shared helpers
mod micro;

/// A one-warp kernel: lane `i` reads `tab[i * stride]` (instruction 6,
/// A), then, with `pair`, `tab[0]` (7, B); adds 1 to A's value (7, or 8
/// with `pair`) and B's (or 0) to that, and stores the sum.
fn ptx(stride: u32, pair: bool) -> String {
    let b = if pair {
        "ld.const.u32 %r5, [tab];\n"
    } else {
        "mov.u32 %r5, 0;\n"
    };
    let (first, second) = if pair { (b, "") } else { ("", b) };
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.const .align 4 .u32 tab[1024];\n\
         .visible .entry const_lines(.param .u64 out)\n{{\n\
         .reg .u32 %r<12>;\n.reg .u64 %rd<8>;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmul.lo.u32 %r2, %r1, {};\n\
         cvt.u64.u32 %rd2, %r2;\nmov.u64 %rd5, tab;\nadd.u64 %rd6, %rd5, %rd2;\n\
         ld.const.u32 %r3, [%rd6];\n{first}add.u32 %r4, %r3, 1;\n{second}add.u32 %r6, %r4, %r5;\n\
         mul.wide.u32 %rd3, %r1, 4;\nadd.u64 %rd4, %rd1, %rd3;\n\
         st.global.u32 [%rd4], %r6;\nret;\n}}\n",
        stride * 4
    )
}

/// Writes the kernel for `stride` (in words) and `pair` and a manifest
/// whose table holds `tab[i] = i`, expecting `out[i] = i * stride + 1`
/// (B reads `tab[0] = 0`), into a directory of test `test`'s own (tests
/// run in parallel threads).
fn kernel(test: &str, stride: u32, pair: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "gpusim-l1c-{}-{test}-{stride}-{pair}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("const_lines.ptx"), ptx(stride, pair)).unwrap();
    let expect: Vec<String> = (0..32).map(|i| (i * stride + 1).to_string()).collect();
    let path = dir.join("const_lines.toml");
    std::fs::write(
        &path,
        format!(
            "ptx = \"const_lines.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
             params = [\"out\"]\n\
             [[symbols]]\nname = \"tab\"\ntype = \"u32\"\ninit = \"iota\"\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 32\nexpect = [{}]\n",
            expect.join(", ")
        ),
    )
    .unwrap();
    path
}

/// Instruction indices: the loads, and A's add (after B with `pair`).
const LD_A: usize = 6;
const LD_B: usize = 7;
const ADD_A: usize = 7;

/// The issue cycle of each instruction, by index, and the run.
fn issues(m: &Path, cfg: &GpuConfig) -> (Vec<u64>, micro::Run) {
    let r = micro::run(m, cfg, "gto", &[], true);
    let mut at = vec![0; 14];
    for e in &r.log {
        at[e.pc as usize] = e.cycle;
    }
    (at, r)
}

fn gtx480(sets: &[&str]) -> GpuConfig {
    micro::config("gtx480", sets)
}

/// Strides (in words) and the 64-byte lines a warp's load then reads: 0
/// (every lane reads `tab[0]`), 1 (128 bytes) and 16 (64 bytes apart).
const CASES: [(u32, u64); 3] = [(0, 1), (1, 2), (16, 32)];

#[test]
fn a_load_of_n_lines_returns_n_minus_1_cycles_later() {
    let cfg = gtx480(&[]);
    assert_eq!(cfg.l1c.line, 64);
    let (one, _) = issues(&kernel("returns", 0, false), &cfg);
    for (stride, lines) in CASES {
        let (at, r) = issues(&kernel("returns", stride, false), &cfg);
        assert_eq!(
            at[LD_A], one[LD_A],
            "stride {stride}: the same run up to the load"
        );
        assert_eq!(
            (at[ADD_A] - at[LD_A]) - (one[ADD_A] - one[LD_A]),
            lines - 1,
            "stride {stride}: the add waits for the last line"
        );
        let t = &r.stats.total;
        assert_eq!(t.l1d.accesses, 0, "a .const read is no L1D access");
    }
}

#[test]
fn a_load_of_n_lines_holds_the_ldst_unit_n_cycles() {
    // Without the queue in front of the LD/ST unit (`opcoll.mem_queue =
    // 0`) a memory instruction issues only to an idle unit: B issues n
    // cycles after A.
    let cfg = gtx480(&["opcoll.mem_queue=0"]);
    for (stride, lines) in CASES {
        let (at, _) = issues(&kernel("holds", stride, true), &cfg);
        assert_eq!(at[LD_B] - at[LD_A], lines, "stride {stride}");
    }
}

#[test]
fn without_a_line_size_every_load_is_one_lookup() {
    let off = gtx480(&["l1c.line=0", "opcoll.mem_queue=0"]);
    for (stride, _) in CASES {
        let (at, _) = issues(&kernel("off", stride, false), &off);
        let (one, _) = issues(&kernel("off", 0, false), &off);
        assert_eq!(
            at[ADD_A] - at[LD_A],
            one[ADD_A] - one[LD_A],
            "stride {stride}"
        );
        let (at, _) = issues(&kernel("off", stride, true), &off);
        assert_eq!(at[LD_B] - at[LD_A], 1, "stride {stride}");
    }
}
