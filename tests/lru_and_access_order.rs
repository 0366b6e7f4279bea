//! Two GPGPU-Sim details of the L1D path, each on a one-warp kernel over
//! an L1D of one set of two ways (the `tiny` preset, allocate on miss):
//!
//! * `l1d.lru_at_access`: a line's place in the LRU order is its last
//!   access, not its fill (GPGPU-Sim's `tag_array::fill` under ON_MISS sets
//!   no access time). Loads of lines A then B miss together; B is in the
//!   L2, A is not, so B's fill comes first. The next miss evicts A (the
//!   older access) with the option on, B (the older fill) with it off, so
//!   a last load of B hits only with it on.
//! * `core.accesses_descending`: the LD/ST unit takes a warp's lines in
//!   descending address order (GPGPU-Sim's `accessq_back()` of an
//!   address-ordered queue). One load touches lines 0, 1 and 2: the first
//!   two reserve both ways, the third waits for the first one's fill and
//!   evicts it. Descending, line 0 is the one left waiting and stays; a
//!   next load of line 0 hits only then.
//!
//! The L2 starts cold (`l2.fill_on_copy = false`). Expected counts
//! follow from LRU over two ways; the values are checked
//! against the buffer's contents (`buf[i] = i`).

use std::path::PathBuf;

#[allow(dead_code)] // this file uses a part of the shared helpers
mod micro;

const HEAD: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// Writes PTX `body` (entry `name`, parameters `buf` and `out`) and a
/// manifest for one warp whose 1024-word `buf` holds `i` and whose `out`
/// must equal `expect`, into a fresh temporary directory; returns the
/// manifest's path.
fn kernel(name: &str, body: &str, expect: &[u32]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-lru-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = format!(
        "{HEAD}.visible .entry {name}(.param .u64 buf, .param .u64 out)\n{{\n\
         .reg .u32 %r<40>;\n.reg .u64 %rd<40>;\n\
         ld.param.u64 %rd1, [buf];\nld.param.u64 %rd2, [out];\n{body}\
         mov.u32 %r30, %tid.x;\nmul.wide.u32 %rd30, %r30, 4;\nadd.u64 %rd31, %rd2, %rd30;\n\
         st.global.u32 [%rd31], %r29;\nret;\n}}\n"
    );
    std::fs::write(dir.join(format!("{name}.ptx")), ptx).unwrap();
    let expect: Vec<String> = expect.iter().map(u32::to_string).collect();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            "ptx = \"{name}.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
             params = [\"buf\", \"out\"]\n\
             [[buffers]]\nname = \"buf\"\ntype = \"u32\"\nlen = 1024\ninit = \"iota\"\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 32\nexpect = [{}]\n",
            expect.join(", ")
        ),
    )
    .unwrap();
    path
}

/// `%rdN` = `buf` + 0 × `%rK` (the address waits for load K's value).
fn after(n: u32, k: u32) -> String {
    format!(
        "and.b32 %r{a}, %r{k}, 0;\ncvt.u64.u32 %rd{a}, %r{a};\nadd.u64 %rd{n}, %rd1, %rd{a};\n",
        a = 10 + n
    )
}

/// One L1D set of two ways on `tiny`, with `sets` on top.
fn two_ways(sets: &[&str]) -> gpusim::config::GpuConfig {
    // A cold L2: the host's copy of `buf` leaves no line there.
    let mut all = vec![
        "l1d.sets=1",
        "l1d.ways=2",
        "l1d.hash_sets=false",
        "l2.fill_on_copy=false",
    ];
    all.extend_from_slice(sets);
    let cfg = micro::config("tiny", &all);
    assert!(cfg.l1d.allocate_on_miss);
    assert_eq!(cfg.l1d.line, 128);
    cfg
}

/// Lines (128 bytes = 32 words): B 0, X 1, Y 2, A 3, C 4. B, X, Y in turn
/// (Y evicts B from the L1D; the L2 keeps it), then A and B together (A
/// evicts X, B evicts Y; A goes to DRAM, B hits the L2), then C after
/// both, then B after C.
#[test]
fn the_next_miss_evicts_the_older_access_not_the_older_fill() {
    let body = [
        "ld.global.u32 %r1, [%rd1];\n".to_string(),
        after(3, 1),
        "ld.global.u32 %r2, [%rd3+128];\n".to_string(),
        after(4, 2),
        "ld.global.u32 %r3, [%rd4+256];\n".to_string(),
        after(5, 3),
        "ld.global.u32 %r4, [%rd5+384];\nld.global.u32 %r5, [%rd5];\nadd.u32 %r9, %r4, %r5;\n"
            .to_string(),
        after(6, 9),
        "ld.global.u32 %r6, [%rd6+512];\n".to_string(),
        after(7, 6),
        "ld.global.u32 %r7, [%rd7];\n".to_string(),
        "add.u32 %r29, %r1, %r2;\nadd.u32 %r29, %r29, %r3;\nadd.u32 %r29, %r29, %r4;\n\
         add.u32 %r29, %r29, %r5;\nadd.u32 %r29, %r29, %r6;\nadd.u32 %r29, %r29, %r7;\n"
            .to_string(),
    ]
    .concat();
    // B + X + Y + A + B + C + B = 0 + 32 + 64 + 96 + 0 + 128 + 0.
    let m = kernel("lru", &body, &[320; 32]);
    let mut cycles = Vec::new();
    for (on, hits) in [(true, 1), (false, 0)] {
        let set = format!("l1d.lru_at_access={on}");
        let r = micro::run(&m, &two_ways(&[&set]), "gto", &[], false);
        let l1 = &r.stats.total.l1d;
        assert_eq!(l1.accesses, 7, "lru_at_access {on}");
        assert_eq!(
            l1.intra_warp_hits + l1.inter_warp_hits,
            hits,
            "lru_at_access {on}: the last load of B"
        );
        assert_eq!(l1.misses, 7 - hits, "lru_at_access {on}");
        cycles.push(r.stats.cycles);
    }
    assert!(cycles[0] < cycles[1], "a hit is faster: {cycles:?}");
}

/// Lane `i` reads word `(i % 3) × 32` (lines 0, 1, 2 in one load), then,
/// after it, word 0.
#[test]
fn descending_order_leaves_the_lowest_line_for_last() {
    let body = [
        "mov.u32 %r20, %tid.x;\nrem.u32 %r21, %r20, 3;\nmul.wide.u32 %rd20, %r21, 128;\n\
         add.u64 %rd21, %rd1, %rd20;\nld.global.u32 %r1, [%rd21];\n"
            .to_string(),
        after(3, 1),
        "ld.global.u32 %r2, [%rd3];\nadd.u32 %r29, %r1, %r2;\n".to_string(),
    ]
    .concat();
    let expect: Vec<u32> = (0..32).map(|i| (i % 3) * 32).collect();
    let m = kernel("order", &body, &expect);
    for (descending, hits) in [(true, 1), (false, 0)] {
        let set = format!("core.accesses_descending={descending}");
        let r = micro::run(&m, &two_ways(&[&set]), "gto", &[], false);
        let l1 = &r.stats.total.l1d;
        assert_eq!(
            l1.accesses, 4,
            "descending {descending}: three lines, then one"
        );
        assert_eq!(
            l1.intra_warp_hits + l1.inter_warp_hits,
            hits,
            "descending {descending}: the load of line 0"
        );
    }
}
