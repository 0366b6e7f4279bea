//! The constant cache (GPGPU-Sim's L1C, `ldst_unit::constant_cycle`).
//!
//! Its port in isolation (`l1c.sets = 0`: every read hits): one warp
//! reads a `.const` table at lane-dependent addresses that span 1, 2 or 32
//! lines of 64 bytes, then adds the value it read, then reads the table
//! once more. The port looks up one line per cycle, so a load of `n` lines
//! holds the LD/ST unit `n` cycles and its result comes `n − 1` cycles
//! later than a one-line load's. A `.const` load is not an L1D access.
//! Expected values come from the config and from the one-line run.
//!
//! Its misses (`l1c.sets` > 0, the presets' 64 sets × 2 ways, LRU,
//! allocated on fill): one warp walks a chain of dependent loads over `n`
//! lines of one set (4 KB apart), so each load is looked up after the
//! previous one's data arrived; the expected counts follow from LRU over
//! 2 ways, and every line missing in the L1C reads its two 32-byte
//! sectors from DRAM once (a symbol copy leaves the L2 cold).

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

/// Writes PTX `ptx` (entry `name`, one `.u64 out` parameter, a `.const`
/// table `tab`) and a manifest for one CTA of `threads` threads whose
/// table holds `tab[i] = i` and whose `out` must equal `expect`, into
/// directory `dir` of the temporary directory (one per test and case:
/// tests run in parallel threads); returns the manifest's path.
fn one_cta_kernel(dir: &str, name: &str, ptx: &str, threads: usize, expect: &[String]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-l1c-{}-{dir}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.ptx")), ptx).unwrap();
    assert_eq!(expect.len(), threads);
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            "ptx = \"{name}.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\nblock = [{threads}, 1, 1]\n\
             params = [\"out\"]\n\
             [[symbols]]\nname = \"tab\"\ntype = \"u32\"\ninit = \"iota\"\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = {threads}\nexpect = [{}]\n",
            expect.join(", ")
        ),
    )
    .unwrap();
    path
}

/// The kernel for `stride` (in words) and `pair`, expecting `out[i] =
/// i * stride + 1` (B reads `tab[0] = 0`).
fn kernel(test: &str, stride: u32, pair: bool) -> PathBuf {
    let expect: Vec<String> = (0..32).map(|i| (i * stride + 1).to_string()).collect();
    one_cta_kernel(
        &format!("{test}-{stride}-{pair}"),
        "const_lines",
        &ptx(stride, pair),
        32,
        &expect,
    )
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
    let cfg = gtx480(&["l1c.sets=0"]);
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
    let cfg = gtx480(&["opcoll.mem_queue=0", "l1c.sets=0"]);
    for (stride, lines) in CASES {
        let (at, _) = issues(&kernel("holds", stride, true), &cfg);
        assert_eq!(at[LD_B] - at[LD_A], lines, "stride {stride}");
    }
}

#[test]
fn without_a_line_size_every_load_is_one_lookup() {
    let off = gtx480(&["l1c.line=0", "l1c.sets=0", "opcoll.mem_queue=0"]);
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

/// The walk: `k` dependent loads of `tab[(i % n) * 1024]` (line `i % n`
/// of `n` lines 4 KB apart: 64 lines of 64 bytes, so one set of 64), each
/// address depending on the previous load's value; the warp stores the
/// sum. `launches` launches of it in one run.
fn walk(test: &str, n: u32, k: u32, launches: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "gpusim-l1c-walk-{}-{test}-{n}-{k}-{launches}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n.const .align 4 .u32 tab[3072];\n\
        .visible .entry walk(.param .u64 out, .param .u32 n, .param .u32 k)\n{\n\
        .reg .pred %p<2>;\n.reg .u32 %r<16>;\n.reg .u64 %rd<8>;\n\
        ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [n];\nld.param.u32 %r2, [k];\n\
        mov.u32 %r3, 0;\nmov.u32 %r4, 0;\nmov.u64 %rd5, tab;\n\
        LOOP:\nrem.u32 %r5, %r3, %r1;\nshl.b32 %r6, %r5, 12;\nand.b32 %r7, %r4, 0;\n\
        add.u32 %r6, %r6, %r7;\ncvt.u64.u32 %rd2, %r6;\nadd.u64 %rd3, %rd5, %rd2;\n\
        ld.const.u32 %r8, [%rd3];\nadd.u32 %r4, %r4, %r8;\nadd.u32 %r3, %r3, 1;\n\
        setp.lt.u32 %p1, %r3, %r2;\n@%p1 bra LOOP;\n\
        mov.u32 %r9, %tid.x;\nmul.wide.u32 %rd4, %r9, 4;\nadd.u64 %rd6, %rd1, %rd4;\n\
        st.global.u32 [%rd6], %r4;\nret;\n}\n";
    std::fs::write(dir.join("walk.ptx"), ptx).unwrap();
    // tab[i] = i: line j's first word is j * 1024.
    let sum: u32 = (0..k).map(|i| (i % n) * 1024).sum();
    let expect = vec![sum.to_string(); 32].join(", ");
    let launch = format!("[[launch]]\nparams = [\"out\", {{ u32 = {n} }}, {{ u32 = {k} }}]\n");
    let path = dir.join("walk.toml");
    std::fs::write(
        &path,
        format!(
            "ptx = \"walk.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
             {}\
             [[symbols]]\nname = \"tab\"\ntype = \"u32\"\ninit = \"iota\"\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 32\nexpect = [{expect}]\n",
            launch.repeat(launches as usize)
        ),
    )
    .unwrap();
    path
}

/// The kernel's three parameter loads: the first misses on the parameter
/// line, the other two (issued right behind it) merge into its MSHR.
const PARAM_LOADS: u64 = 3;

#[test]
fn lru_over_two_ways_decides_the_misses() {
    let k = 12;
    // DRAM reads of the walk over n lines, with `l2.half_line_alias` on
    // (the preset) or off.
    let reads = |alias: bool| {
        let cfg = gtx480(&[&format!("l2.half_line_alias={alias}")]);
        assert_eq!((cfg.l1c.sets, cfg.l1c.ways, cfg.l1c.line), (64, 2, 64));
        // n lines of one set: 1 and 2 fit its 2 ways (each line misses
        // once), 3 do not: under LRU each load evicts the line the next
        // one needs. (The parameter line may share the set; it is never
        // read again.)
        let mut reads = Vec::new();
        for (n, table_misses) in [(1, 1), (2, 2), (3, k)] {
            let r = micro::run(&walk("lru", n, k as u32, 1), &cfg, "gto", &[], false);
            let t = &r.stats.total;
            assert_eq!(
                t.l1c_accesses,
                PARAM_LOADS + k,
                "n = {n}: one line per load"
            );
            assert_eq!(t.l1c_merges, PARAM_LOADS - 1, "n = {n}");
            assert_eq!(t.l1c_misses, 1 + table_misses, "n = {n}");
            assert_eq!(t.l1d.accesses, 0, "n = {n}: the L1D is not used");
            reads.push(r.stats.mem.dram_reads);
        }
        reads
    };
    // Each L1C miss reads the line's two 32-byte sectors through the L2;
    // the other reads (the parameter line, the instruction lines) are the
    // same for every n. (Were the symbol's copy to fill the L2, as an
    // allocation's does, no table line would be read from DRAM.) Without
    // the alias a line's first miss reads both sectors from DRAM and its
    // later misses hit the L2.
    let r = reads(false);
    assert_eq!(r[1] - r[0], 2, "one more table line, two sectors");
    assert_eq!(r[2] - r[0], 4, "two more table lines");
    // GPGPU-Sim gives a 64-byte read's second sector the first's address:
    // a line's first miss reads only its first sector from DRAM (the
    // second joins that miss and stays invalid), its second miss reads
    // the second sector, later misses hit. With n = 1 and 2 each line
    // misses once; with n = 3 each of the three misses four times.
    let r = reads(true);
    assert_eq!(r[1] - r[0], 1, "one more table line, its first sector");
    assert_eq!(r[2] - r[0], 3 * 2 - 1, "three lines, both sectors each");
}

#[test]
fn hits_keep_the_port_timing_and_misses_wait_for_an_mshr() {
    // After the first miss every load of one line hits: each further
    // load costs what it costs with every read a hit.
    let on = gtx480(&[]);
    let off = gtx480(&["l1c.sets=0"]);
    let cycles = |cfg: &GpuConfig, n: u32, k: u32| {
        micro::run(&walk("port", n, k, 1), cfg, "gto", &[], false)
            .stats
            .cycles
    };
    assert_eq!(
        cycles(&on, 1, 16) - cycles(&on, 1, 8),
        cycles(&off, 1, 16) - cycles(&off, 1, 8),
        "8 more hits cost the same as 8 more loads of a cache that always hits"
    );
    // The misses cost time: the first parameter load and the first
    // table load each wait for a fill.
    assert!(cycles(&on, 1, 8) > cycles(&off, 1, 8));
    // One MSHR: the merges of the parameter loads still merge, the walk's
    // misses (one in flight at a time, being dependent) are unchanged.
    let one = gtx480(&["l1c.mshrs=1"]);
    assert_eq!(cycles(&one, 3, 8), cycles(&on, 3, 8));
    // A merge limit of 1: the second and third parameter loads find the
    // line's MSHR full and hold the LD/ST unit until the fill, after which
    // they hit; the run is longer and counts the wait.
    let no_merge = gtx480(&["l1c.mshr_merge=1"]);
    let r = micro::run(&walk("merge", 1, 8, 1), &no_merge, "gto", &[], false);
    assert_eq!(r.stats.total.l1c_merges, 0);
    assert_eq!(
        r.stats.total.l1c_misses, 2,
        "the parameter line and the table line"
    );
    assert!(r.stats.total.l1c_stall > 0);
}

#[test]
fn lines_stay_from_one_launch_to_the_next() {
    // GPGPU-Sim never invalidates its L1C: the second launch of the walk
    // on the same SM finds the parameter line and the table line present.
    let cfg = gtx480(&[]);
    let r = micro::run(&walk("launches", 1, 8, 2), &cfg, "gto", &[], false);
    let (first, second) = (&r.stats.launches[0], &r.stats.launches[1]);
    assert_eq!(first.total.l1c_misses, 2);
    assert_eq!(second.total.l1c_misses, 0);
    assert_eq!(second.total.l1c_merges, 0);
    // So the second launch runs as with a cache that always hits.
    let off = gtx480(&["l1c.sets=0"]);
    let r_off = micro::run(&walk("launches", 1, 8, 2), &off, "gto", &[], false);
    assert_eq!(second.cycles, r_off.stats.launches[1].cycles);
}

/// `warps` warps read one `.const` word each: every warp but the last
/// `tab[0]` (line 0), the last `tab[1024]` (line 64, the same set), all
/// at the same instruction (8), then add 1 (9) and store (`out[i]` =
/// 1 or 1025). The kernel reads its parameter first, and needs it
/// (the store's address) before the loads, so the parameter line's miss
/// has been drained when they are looked up.
fn drain_kernel(warps: u32) -> PathBuf {
    let last = warps - 1;
    let ptx = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.const .align 4 .u32 tab[2048];\n\
         .visible .entry drain(.param .u64 out)\n{{\n\
         .reg .pred %p<2>;\n.reg .u32 %r<12>;\n.reg .u64 %rd<8>;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r5, %tid.x;\nmul.wide.u32 %rd4, %r5, 4;\n\
         add.u64 %rd6, %rd1, %rd4;\nshr.u32 %r6, %r5, 5;\nsetp.eq.u32 %p1, %r6, {last};\n\
         mov.u64 %rd5, tab;\n@%p1 add.u64 %rd5, %rd5, 4096;\nld.const.u32 %r1, [%rd5];\n\
         add.u32 %r3, %r1, 1;\nst.global.u32 [%rd6], %r3;\nret;\n}}\n"
    );
    let n = 32 * warps as usize;
    let expect: Vec<String> = (0..n)
        .map(|i| if i / 32 == last as usize { "1025" } else { "1" }.to_string())
        .collect();
    one_cta_kernel(&format!("drain-{warps}"), "drain", &ptx, n, &expect)
}

/// Instruction indices of the drain kernel: the load and the add.
const DRAIN_LD: u32 = 8;
const DRAIN_ADD: u32 = 9;

#[test]
fn a_filled_mshr_is_held_until_its_requests_are_drained() {
    // GPGPU-Sim's L1C keeps a filled MSHR until the writeback stage has
    // drained its merged requests, one per cycle, the oldest first
    // (`mshr_table::next_access` erases the entry with its last). With one
    // MSHR, the w warps whose loads of line 0 are looked up before the
    // last warp's load of line 64 share line 0's miss; line 64's lookup
    // finds no MSHR until line 0's fill (cycle F) has been drained, at
    // F + w − 1, and holds the LD/ST unit (later loads of line 0 then
    // hit). Warp 0's add issues d cycles after F (it is drained first),
    // the last warp's d cycles after line 64's fill, L cycles after its
    // miss. With the DRAM clocked as the core every miss takes the same
    // L, so the span between the two adds is w − 1 + L: one cycle per
    // request drained. The LD/ST unit takes loads in issue order, so w
    // is the number of other warps that issued their load before the
    // last warp did.
    let core = gtx480(&[]).core.clock_mhz;
    let clock = format!("dram.clock_mhz={core}");
    let span = |warps: u32, mshrs: u32| {
        let cfg = gtx480(&[&format!("l1c.mshrs={mshrs}"), &clock]);
        let r = micro::run(&drain_kernel(warps), &cfg, "gto", &[], true);
        let at = |slot: u32, pc: u32| {
            r.log
                .iter()
                .find(|e| e.slot == slot && e.pc == pc)
                .map(|e| e.cycle)
                .expect("the warp issues it")
        };
        let last = warps - 1;
        let before = (0..last)
            .filter(|&w| at(w, DRAIN_LD) < at(last, DRAIN_LD))
            .count() as u64;
        // The parameter line, line 0 and line 64 miss once each.
        assert_eq!(r.stats.total.l1c_misses, 3, "{warps} warps");
        (at(last, DRAIN_ADD) - at(0, DRAIN_ADD), before)
    };
    let (s4, w4) = span(4, 1);
    let (s8, w8) = span(8, 1);
    let (s16, w16) = span(16, 1);
    assert_eq!((w4, w8), (3, 7), "in warp order");
    assert!(w16 >= 8, "most warps issue before the last");
    assert_eq!(s8 - w8, s4 - w4, "one cycle per request drained");
    assert_eq!(s16 - w16, s4 - w4, "one cycle per request drained");
    // With two MSHRs line 64's miss is sent at once and its fill does
    // not wait for line 0's: the span is shorter.
    let (t4, _) = span(4, 2);
    let (t8, _) = span(8, 2);
    assert!(t4 < s4 && t8 < s8);
}
