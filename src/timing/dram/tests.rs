//! Unit tests of the DRAM channels: analytic command timings on a
//! one-channel machine whose DRAM and core clocks are equal.

use super::*;

/// A one-channel gtx480 DRAM whose core and DRAM clocks are equal (one
/// DRAM clock per core cycle, clock k in cycle k) and no latency queue.
fn dram(sets: &[(&str, u32)]) -> Dram {
    let mut cfg = GpuConfig::gtx480();
    cfg.dram.channels = 1;
    cfg.l2.slices = 2;
    cfg.dram.latency = 0;
    cfg.dram.clock_mhz = cfg.core.clock_mhz;
    for &(k, v) in sets {
        cfg.set(k, crate::config::FieldValue::U32(v)).unwrap();
    }
    Dram::new(&cfg)
}

/// The byte address of (bank, row, column 128-byte line) on the
/// one-channel gtx480 mapping (rest = address): bank bits 8, 13-15,
/// row bits 16-27, line bit 7 and bits 9-12.
fn addr(bank: u64, row: u64, line: u64) -> u64 {
    let bank_bits = ((bank & 1) << 8) | ((bank >> 1) << 13);
    let line_bits = ((line & 1) << 7) | ((line >> 1) << 9);
    (row << 16) | bank_bits | line_bits
}

fn read(a: u64, tag: u64) -> DramRequest {
    DramRequest {
        addr: a,
        bytes: 64,
        write: false,
        slice: ((a >> 8) & 1) as u32,
        tag,
    }
}

/// Runs until idle; returns (core cycle, tag) of each read's delivery.
fn run(d: &mut Dram, reqs: &[DramRequest]) -> Vec<(u64, u64)> {
    for &r in reqs {
        d.push(r);
    }
    let mut out = Vec::new();
    let mut now = 0;
    while d.busy() && now < 100_000 {
        d.advance(now);
        while let Some(r) = d.pop_done(now) {
            out.push((now, r.tag));
        }
        now += 1;
    }
    assert!(!d.busy());
    out
}

#[test]
fn address_helper_matches_the_decoder() {
    let d = dram(&[]);
    let l = d.map().decode(addr(11, 7, 5));
    assert_eq!((l.bank, l.row), (11, 7));
}

/// An idle bank: activate at the clock the request is scheduled, read
/// `t_rcd` later, data `cl` after the read and one clock to the L2.
#[test]
fn a_row_miss_costs_activate_rcd_and_cl() {
    let mut d = dram(&[]);
    let got = run(&mut d, &[read(addr(0, 3, 0), 1)]);
    // Clock 0: into the latency queue; 0: into the scheduler (latency
    // 0); 1: scheduled + activate; 13: read; 25: data; 26: at the L2.
    assert_eq!(got, vec![(1 + 12 + 12 + 1, 1)]);
    assert_eq!(d.counts.activates, 1);
    assert_eq!(d.counts.reads, 1);
}

/// FR-FCFS serves the open row first: with row 3 open, a later request
/// to row 3 overtakes an older one to row 4 of the same bank.
#[test]
fn fr_fcfs_serves_row_hits_before_older_misses() {
    let mut d = dram(&[]);
    let reqs = [
        read(addr(0, 3, 0), 1),
        read(addr(0, 4, 0), 2),
        read(addr(0, 3, 1), 3),
    ];
    let got: Vec<u64> = run(&mut d, &reqs).iter().map(|x| x.1).collect();
    assert_eq!(got, vec![1, 3, 2]);
    assert_eq!(d.counts.activates, 2);
    assert_eq!(d.counts.precharges, 1);
    // FIFO keeps arrival order.
    let mut f = dram(&[("dram.scheduler", 0)]);
    let got: Vec<u64> = run(&mut f, &reqs).iter().map(|x| x.1).collect();
    assert_eq!(got, vec![1, 2, 3]);
    assert_eq!(f.counts.activates, 3);
}

/// Requests reach the scheduler one per clock (clocks 0, 1, 2, …), and
/// banks activate no closer than t_rrd (6) apart: activates at clocks
/// 1, 7, 13, so reads at 13, 19, 25 and data at the L2 at 26, 32, 38.
#[test]
fn activates_of_different_banks_are_t_rrd_apart() {
    let mut d = dram(&[]);
    let reqs = [
        read(addr(0, 1, 0), 1),
        read(addr(1, 1, 0), 2),
        read(addr(2, 1, 0), 3),
    ];
    let got = run(&mut d, &reqs);
    assert_eq!(got, vec![(26, 1), (32, 2), (38, 3)]);
}

/// Two rows of one bank: the second activate waits for t_rc (40) after
/// the first, not just t_ras (28) + t_rp (12) = 40 here; with t_ras 10
/// the precharge is early but the activate still waits for t_rc.
#[test]
fn activates_of_one_bank_are_t_rc_apart() {
    let mut d = dram(&[("dram.t_ras", 10)]);
    let got = run(&mut d, &[read(addr(0, 1, 0), 1), read(addr(0, 2, 0), 2)]);
    // Activate at 1 (row 1), read at 13; precharge at max(1 + 10,
    // 13 + 2 (read to precharge)) = 15; activate at max(15 + 12, 1 +
    // 40) = 41; read at 53, data at 65, L2 at 66.
    assert_eq!(got, vec![(26, 1), (66, 2)]);
}

/// Column commands are t_ccd (2) apart across bank groups and t_ccdl
/// (3) apart within one: two 128-byte reads (two atoms each) to open
/// rows of banks 0 and 1 (groups 0 and 1) interleave at t_ccd.
#[test]
fn column_commands_respect_t_ccd_and_t_ccdl() {
    // One request of 128 bytes in one bank: atoms at 13 and 16 (t_ccdl).
    let mut d = dram(&[]);
    let mut r = read(addr(0, 1, 0), 1);
    r.bytes = 128;
    let got = run(&mut d, &[r]);
    assert_eq!(got, vec![(16 + 12 + 1, 1)]);
    assert_eq!(d.counts.reads, 2);
    // Same bank group (banks 0 and 4 with low-bit groups): t_ccdl.
    let mut d = dram(&[]);
    let got = run(&mut d, &[read(addr(0, 1, 0), 1), read(addr(4, 1, 0), 2)]);
    // Activates at 1 and 7 (t_rrd); reads at 13 and 19.
    assert_eq!(got, vec![(26, 1), (32, 2)]);
    // With the rows already open, back-to-back reads: bank 0 then bank
    // 1 (another group) 2 apart; bank 0 then bank 4 (same group) 3.
    for (other, gap) in [(1, 2), (4, 3)] {
        let mut d = dram(&[]);
        run(
            &mut d,
            &[read(addr(0, 1, 0), 1), read(addr(other, 1, 0), 2)],
        );
        let got = run(
            &mut d,
            &[read(addr(0, 1, 1), 3), read(addr(other, 1, 1), 4)],
        );
        let (a, b) = (got[0].0, got[1].0);
        assert_eq!(b - a, gap, "bank 0 then bank {other}");
    }
}

/// A write after a read waits t_rtw = cl + BL/ratio + 2 − wl = 12.
#[test]
fn read_to_write_turnaround() {
    let mut d = dram(&[]);
    run(&mut d, &[read(addr(0, 1, 0), 1)]);
    // Row 1 open. Read at clock r, write to the same row: ≥ r + 12.
    let start = d.next_tick;
    let mut w = read(addr(0, 1, 1), 2);
    w.write = true;
    let before = d.counts;
    let got = run(&mut d, &[read(addr(0, 1, 2), 3), w]);
    assert_eq!(got.len(), 1);
    assert_eq!(d.counts.writes - before.writes, 1);
    // The read reaches the L2 at start + 1 (scheduled) + 12 + 1; the
    // write is issued 12 after the read; nothing returns for it, but
    // the channel stays busy until its data leaves (wl after it).
    assert_eq!(got[0].0, start + 1 + 12 + 1);
}

/// With the DRAM clock 924 and the core 700 MHz, DRAM clock k runs in
/// core cycle ⌈k × 700 / 924⌉: clocks 0-5 in cycles 0, 1, 2, 3, 4, 4
/// (5 × 700 = 3500 ≤ 4 × 924 = 3696).
#[test]
fn fractional_clock_is_exact() {
    let mut cfg = GpuConfig::gtx480();
    cfg.dram.channels = 1;
    cfg.l2.slices = 2;
    let d = Dram::new(&cfg);
    let cycles: Vec<u64> = (0..6).map(|k| d.core_cycle_of(k)).collect();
    assert_eq!(cycles, vec![0, 1, 2, 3, 4, 4]);
    // 924 clocks in exactly 700 cycles.
    assert_eq!(d.core_cycle_of(924), 700);
    assert_eq!(d.last_tick_of(700), 924);
}
