//! Unit tests of the memory system.

use super::*;

fn packet(kind: PacketKind, addr: u64, chunks: u32) -> Packet {
    Packet {
        kind,
        sm: 0,
        addr,
        req_bytes: if kind == PacketKind::Write { 4 } else { 0 },
        reply_bytes: if kind == PacketKind::Write { 0 } else { 128 },
        chunks,
        tag: 0,
        perform: false,
        vector: VectorShape::SCALAR,
    }
}

/// Sends `p` and runs until the memory system is idle; returns the
/// number of replies.
fn send(m: &mut MemSys, now: &mut u64, p: Packet) -> usize {
    m.inject(*now, 0, p);
    let (mut atomics, mut replies, mut n) = (Vec::new(), Vec::new(), 0);
    while m.busy() && *now < 1_000_000 {
        replies.clear();
        m.cycle(*now, &mut atomics, &mut replies);
        n += replies.len();
        *now += 1;
    }
    n
}

/// GPGPU-Sim's sector L2: a 128-byte read miss is four 32-byte sector
/// accesses and four DRAM reads (one 64-byte column command each); a
/// second read hits all four.
#[test]
fn a_line_miss_reads_its_four_sectors() {
    let cfg = GpuConfig::tiny();
    let mut m = MemSys::new(&cfg);
    let mut now = 0;
    assert_eq!(
        send(&mut m, &mut now, packet(PacketKind::Read, 0x4000, u32::MAX)),
        1
    );
    let s = m.stats.clone();
    assert_eq!((s.l2_accesses, s.l2_misses, s.dram_reads), (4, 4, 4));
    assert_eq!(s.dram_bytes, 128);
    assert_eq!(
        send(&mut m, &mut now, packet(PacketKind::Read, 0x4000, u32::MAX)),
        1
    );
    assert_eq!((m.stats.l2_hits, m.stats.dram_reads), (4, 4));
}

/// A 4-byte store allocates its sector without fetching; a read of the
/// line then fetches only the three other sectors.
#[test]
fn a_read_after_a_partial_write_fetches_the_missing_sectors() {
    let cfg = GpuConfig::tiny();
    let mut m = MemSys::new(&cfg);
    let mut now = 0;
    // Chunk 9 of 32 (4-byte chunks): bytes 36-39, sector 1.
    send(&mut m, &mut now, packet(PacketKind::Write, 0x8000, 1 << 9));
    assert_eq!((m.stats.l2_accesses, m.stats.dram_reads), (1, 0));
    send(&mut m, &mut now, packet(PacketKind::Read, 0x8000, u32::MAX));
    assert_eq!(m.stats.l2_hits, 1);
    assert_eq!(m.stats.dram_reads, 3);
}

/// Evicting a line with one dirty sector writes back 32 bytes (one
/// column command); unsectored (sector = line), the whole 128-byte line
/// (two commands).
#[test]
fn write_backs_carry_the_dirty_sectors() {
    for (sector, bytes, commands) in [(32, 32, 1), (128, 128, 2)] {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.sector_bytes = sector;
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        // tiny: one channel, so the address is the channel's; bit 8
        // picks the slice, the slice drops it: addresses 16 KB apart
        // are 64 of a slice's lines apart, one set of its 4 ways.
        for i in 0..5u64 {
            send(&mut m, &mut now, packet(PacketKind::Write, i * 16384, 1));
        }
        assert_eq!(m.stats.l2_writebacks, 1, "sector {sector}");
        assert_eq!(m.stats.dram_bytes, bytes, "sector {sector}");
        assert_eq!(m.stats.dram_writes, commands, "sector {sector}");
    }
}

/// Four full-line writes fill one set of slice 0 (4 ways on `tiny`:
/// addresses 16 KB apart), dirty, nothing fetched.
fn fill_a_set_dirty(m: &mut MemSys, now: &mut u64) {
    for i in 0..4u64 {
        send(m, now, packet(PacketKind::Write, i * 16384, u32::MAX));
    }
}

/// A read miss that evicts a dirty line (allocate on miss) sends its
/// first sector's read, then the victim's write-back, then the other
/// sectors' reads: GPGPU-Sim's sector L2 looks the line's sectors up
/// one by one, and the first, a MISS, queues its read before the
/// write-back (`data_cache::rd_miss_base`); the others are SECTOR_MISSes.
#[test]
fn a_read_miss_sends_its_first_sector_before_the_victims_write_back() {
    let mut cfg = GpuConfig::tiny();
    cfg.l2.allocate_on_miss = true;
    let mut m = MemSys::new(&cfg);
    let mut now = 0;
    // A read of a fifth line of the filled set evicts the LRU one.
    fill_a_set_dirty(&mut m, &mut now);
    assert!(m.sent_dram.is_empty());
    send(
        &mut m,
        &mut now,
        packet(PacketKind::Read, 4 * 16384, u32::MAX),
    );
    let got: Vec<(bool, u32)> = m.sent_dram.iter().map(|r| (r.write, r.bytes)).collect();
    assert_eq!(
        got,
        vec![
            (false, 32),
            (true, 128),
            (false, 32),
            (false, 32),
            (false, 32)
        ]
    );
    // The reads are the line's sectors in order; the write-back is the
    // first line written (the set's LRU way).
    let reads: Vec<u64> = m
        .sent_dram
        .iter()
        .filter(|r| !r.write)
        .map(|r| r.tag & 31)
        .collect();
    assert_eq!(reads, vec![0, 1, 2, 3]);
    assert_eq!(m.stats.l2_writebacks, 1);
}

/// The cycles at which slice 0 looks up two writes that arrive
/// together, the first evicting a fully dirty line of its set (four
/// full-line writes filled the set's 4 ways), the second to another set.
fn lookups_after_a_dirty_eviction(cfg: &GpuConfig) -> (u64, u64) {
    let mut m = MemSys::new(cfg);
    let mut now = 0;
    fill_a_set_dirty(&mut m, &mut now);
    assert_eq!(m.stats.l2_writebacks, 0);
    m.inject(now, 0, packet(PacketKind::Write, 4 * 16384, u32::MAX));
    m.inject(now, 0, packet(PacketKind::Write, 128, u32::MAX));
    let (mut atomics, mut replies) = (Vec::new(), Vec::new());
    let mut looked_up = Vec::new();
    while m.busy() && now < 1_000_000 {
        let queued = m.slices[0].rop.len();
        m.cycle(now, &mut atomics, &mut replies);
        for _ in m.slices[0].rop.len()..queued {
            looked_up.push(now);
        }
        now += 1;
    }
    assert_eq!(m.stats.l2_writebacks, 1);
    assert_eq!(m.stats.dram_bytes, 128);
    assert_eq!(looked_up.len(), 2);
    (looked_up[0], looked_up[1])
}

/// GPGPU-Sim's L2 data port (`use_data_port`): a miss that writes back
/// a dirty line reads it out of the data array at 32 bytes per cycle,
/// and the slice's next access waits for the port: 128 dirty bytes hold
/// it 4 cycles, the miss's own cycle included. Sectored, the evicting
/// write's four sector accesses then take 1 + 3 + 3 = 7 cycles instead
/// of 4; unsectored (one access), 4 instead of 1. Width 0: no cost.
#[test]
fn a_dirty_eviction_holds_the_slice_data_port() {
    for (sector, free, held) in [(32, 4, 7), (128, 1, 4)] {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.sector_bytes = sector;
        assert_eq!(cfg.l2.data_port_width, 32);
        let (a, b) = lookups_after_a_dirty_eviction(&cfg);
        assert_eq!(b - a, held, "sector {sector}, port 32");
        cfg.l2.data_port_width = 0;
        let (a, b) = lookups_after_a_dirty_eviction(&cfg);
        assert_eq!(b - a, free, "sector {sector}, port 0");
    }
}

/// The cycles at which slices 0 and 1 let each packet into their ROP
/// queues, with six line reads for slice 0 (all hits) sent by SM 0
/// before one for slice 1, on `tiny` without ROP or interconnect delay,
/// an input queue of 8 sector accesses and an ejection buffer of
/// `eject` flits.
fn rop_entries(eject: u32) -> (Vec<u64>, Vec<u64>) {
    let mut cfg = GpuConfig::tiny();
    cfg.l2.latency = 0;
    cfg.icnt.latency = 0;
    cfg.l2.input_queue = 8;
    cfg.icnt.eject_buffer = eject;
    assert!(cfg.icnt.request_crossbar);
    let mut m = MemSys::new(&cfg);
    // Bit 8 picks the slice: these six lines are slice 0's.
    let lines = [0u64, 128, 512, 640, 1024, 1152];
    for &a in lines.iter().chain(&[256]) {
        m.host_copy(a, 128);
    }
    for &a in lines.iter().chain(&[256]) {
        assert!(m.can_inject(0, 0, 0));
        m.inject(0, 0, packet(PacketKind::Read, a, u32::MAX));
    }
    let (mut atomics, mut replies) = (Vec::new(), Vec::new());
    let mut now = 0;
    while m.busy() && now < 10_000 {
        m.cycle(now, &mut atomics, &mut replies);
        now += 1;
    }
    assert_eq!(m.stats.l2_hits, 28);
    (m.slices[0].entered.clone(), m.slices[1].entered.clone())
}

/// GPGPU-Sim's request path (`memory_sub_partition::full`, intersim2's
/// ejection and router buffers). Sent at cycle 0, the reads join SM 0's
/// crossbar input at 1 and are granted one per cycle (one flit each),
/// reaching slice 0 at 2, 3, …; it looks each up in 4 cycles (4
/// sectors), so it lets a packet into its input queue only while that
/// holds at most 8 − 4 accesses. Reads 0-2 enter at 2, 3, 4; read 3
/// waits until read 1's lookup (cycle 6) leaves room: 7; then 11, 15
/// (lookups at 2, 6, 10, 14, …). With a 2-flit ejection buffer (two
/// reads granted and not yet in the queue) the crossbar grants slice 0
/// nothing at 6 and 7, read 5 at 8, so SM 0's read for the idle slice
/// 1, queued behind them, is granted at 9 and enters at 10 (head-of-
/// line blocking); with 80 flits every read is granted at once (1-6)
/// and slice 1's at 7, entering at 8.
#[test]
fn a_full_slice_queue_holds_up_its_sms_later_requests() {
    let (s0, s1) = rop_entries(2);
    assert_eq!(s0, vec![2, 3, 4, 7, 11, 15]);
    assert_eq!(s1, vec![10]);
    let (s0, s1) = rop_entries(80);
    assert_eq!(s0, vec![2, 3, 4, 7, 11, 15]);
    assert_eq!(s1, vec![8]);
}

/// Sends the packets `ps` in one cycle and runs until the memory
/// system is idle; returns each packet's reply cycle, by tag.
fn send_all(m: &mut MemSys, now: &mut u64, ps: &[Packet]) -> Vec<u64> {
    for &p in ps {
        m.inject(*now, 0, p);
    }
    let (mut atomics, mut replies) = (Vec::new(), Vec::new());
    let mut at = vec![0; ps.len()];
    while m.busy() && *now < 1_000_000 {
        replies.clear();
        m.cycle(*now, &mut atomics, &mut replies);
        m.account(1);
        for r in &replies {
            at[r.tag as usize] = *now;
        }
        *now += 1;
    }
    at
}

/// The constant cache's miss: a 64-byte read of the half line at
/// `addr` (its 16 four-byte chunks).
fn half_line(addr: u64) -> Packet {
    Packet {
        reply_bytes: 64,
        ..packet(PacketKind::Read, addr, (1 << 16) - 1)
    }
}

/// `l2.half_line_alias` (GPGPU-Sim 4.2 gives both sector requests of a
/// 64-byte read the read's address): the first read of a cold half
/// line fetches only its first sector, the second joining that miss
/// and staying invalid; the next read fetches the second sector (a
/// DRAM trip again), the one after hits. Without the alias the first
/// read fetches both sectors and the second hits.
#[test]
fn a_64_byte_reads_second_sector_joins_the_first_miss() {
    let mut lat = Vec::new();
    for alias in [true, false] {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.half_line_alias = alias;
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        let mut reads = Vec::new();
        let mut l = Vec::new();
        for _ in 0..3 {
            let start = now;
            l.push(send_all(&mut m, &mut now, &[half_line(0x4040)])[0] - start);
            reads.push(m.stats.dram_reads);
        }
        assert_eq!(m.stats.l2_accesses, 6, "two sectors a read");
        if alias {
            assert_eq!(reads, vec![1, 2, 2]);
            assert_eq!(
                m.stats.l2_hits,
                1 + 2,
                "the second read hits its first sector"
            );
        } else {
            assert_eq!(reads, vec![2, 2, 2]);
            assert_eq!(m.stats.l2_hits, 2 + 2);
        }
        lat.push(l);
    }
    let (on, off) = (&lat[0], &lat[1]);
    assert_eq!(on[2], off[1], "both sectors valid: an L2 hit");
    assert_eq!(off[2], off[1]);
    assert!(on[1] > on[2], "the second read waits for DRAM");
    // A 128-byte read is not split so: every sector misses on its own.
    let mut cfg = GpuConfig::tiny();
    cfg.l2.half_line_alias = true;
    let mut m = MemSys::new(&cfg);
    let mut now = 0;
    send_all(
        &mut m,
        &mut now,
        &[packet(PacketKind::Read, 0x4000, u32::MAX)],
    );
    assert_eq!(m.stats.dram_reads, 4);
}

/// `l2.mshr_merge` (GPGPU-Sim's L2 MSHRs, `A:256:4`: four requests per
/// sector miss): five reads of one cold line arrive together; the
/// first misses on its four sectors, the next three join those
/// misses, the fifth finds each sector's miss full and waits (counted
/// in `merge_full`) until the data arrives, then hits. Unbounded, the
/// fifth joins too and is answered with the others.
/// `l2.lru_at_access` (allocate on miss, one set of two ways): line P
/// holds sector 0, Q all four, P older. A read of P's sector 1 (a
/// sector miss, sent to DRAM) then a read of Q (a hit) before P's fill:
/// when the lookup sets P's place and the fill keeps it, P is the
/// least recently used and a new line R evicts it, so Q hits after;
/// when the fill refreshes P, R evicts Q and Q misses.
#[test]
fn a_sector_miss_lookup_not_its_fill_sets_the_lines_lru_place() {
    for lru_at_access in [true, false] {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.allocate_on_miss = true;
        cfg.l2.lru_at_access = lru_at_access;
        cfg.l2.sets = 1;
        cfg.l2.ways = 2;
        let mut m = MemSys::new(&cfg);
        // Three lines of one slice.
        let base = 0x10_0000;
        let lines: Vec<u64> = (0..64)
            .map(|k| base + k * 128)
            .filter(|&a| m.slice_of(a).0 == m.slice_of(base).0)
            .take(3)
            .collect();
        let (p, q, r) = (lines[0], lines[1], lines[2]);
        let mut now = 0;
        let sector = |s: u32| 0xffu32 << (8 * s);
        send(&mut m, &mut now, packet(PacketKind::Read, p, sector(0)));
        send(&mut m, &mut now, packet(PacketKind::Read, q, u32::MAX));
        let p1 = Packet {
            tag: 0,
            ..packet(PacketKind::Read, p, sector(1))
        };
        let q2 = Packet {
            tag: 1,
            ..packet(PacketKind::Read, q, u32::MAX)
        };
        send_all(&mut m, &mut now, &[p1, q2]);
        assert_eq!(m.stats.dram_reads, 6, "P0, Q's four, P1");
        send(&mut m, &mut now, packet(PacketKind::Read, r, u32::MAX));
        let hits = m.stats.l2_hits;
        send(&mut m, &mut now, packet(PacketKind::Read, q, u32::MAX));
        let q_hits = m.stats.l2_hits - hits;
        assert_eq!(
            q_hits,
            if lru_at_access { 4 } else { 0 },
            "lru_at_access {lru_at_access}: R evicted {}",
            if q_hits == 4 { "P" } else { "Q" }
        );
    }
}

#[test]
fn a_sector_miss_holds_at_most_mshr_merge_requests() {
    for limit in [4, 0] {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.mshr_merge = limit;
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        let ps: Vec<Packet> = (0..5)
            .map(|tag| Packet {
                tag,
                ..packet(PacketKind::Read, 0x4000, u32::MAX)
            })
            .collect();
        let at = send_all(&mut m, &mut now, &ps);
        let s = &m.stats;
        assert_eq!(s.dram_reads, 4, "limit {limit}: one fetch per sector");
        assert_eq!(s.l2_accesses, 20, "limit {limit}");
        // Replies leave in order; the first four together with the fill.
        assert!(at.windows(2).all(|w| w[0] < w[1]), "limit {limit}: {at:?}");
        if limit == 4 {
            assert_eq!(s.l2_hits, 4, "the fifth read hits after the fill");
            assert!(s.merge_full > 0);
        } else {
            assert_eq!(s.l2_hits, 0);
            assert_eq!(s.merge_full, 0);
        }
    }
}

/// Runs until idle; returns the cycles at which slice 0 looked its
/// queued packets up (its ROP queue shrank).
fn run_recording_lookups(m: &mut MemSys, now: &mut u64) -> Vec<u64> {
    let (mut atomics, mut replies) = (Vec::new(), Vec::new());
    let mut looked_up = Vec::new();
    while m.busy() && *now < 1_000_000 {
        let queued = m.slices[0].rop.len();
        m.cycle(*now, &mut atomics, &mut replies);
        for _ in m.slices[0].rop.len()..queued {
            looked_up.push(*now);
        }
        *now += 1;
    }
    looked_up
}

/// `l2.miss_queue`: a read miss that evicts a dirty line queues its
/// first sector's read and the write-back at its lookup (cycle L),
/// then one read per sector access (L+1, L+2, L+3); the queue's head
/// enters the DRAM queue one per cycle from the cycle after its
/// access: the first read at L+1, the write-back at L+2, the other
/// reads at L+3, L+4, L+5 (GPGPU-Sim: `baseline_cache::cycle` moves
/// one, then the next sector's `access` queues its read). Without the
/// miss queue all five enter at L.
#[test]
fn the_miss_queue_passes_one_request_a_cycle_into_the_dram_queue() {
    for cap in [4, 0] {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.allocate_on_miss = true;
        cfg.l2.miss_queue = cap;
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        fill_a_set_dirty(&mut m, &mut now);
        m.inject(now, 0, packet(PacketKind::Read, 4 * 16384, u32::MAX));
        let looked_up = run_recording_lookups(&mut m, &mut now);
        assert_eq!(looked_up.len(), 1);
        let l = looked_up[0];
        let order: Vec<(bool, u64)> = m
            .sent_dram
            .iter()
            .map(|r| (r.write, if r.write { 0 } else { r.tag & 31 }))
            .collect();
        assert_eq!(
            order,
            vec![(false, 0), (true, 0), (false, 1), (false, 2), (false, 3)]
        );
        if cap == 0 {
            assert!(m.entered_dram.is_empty(), "no miss queue: sent at once");
            continue;
        }
        let entered: Vec<(u64, bool)> = m.entered_dram.iter().map(|&(t, r)| (t, r.write)).collect();
        assert_eq!(
            entered,
            vec![
                (l + 1, false),
                (l + 2, true),
                (l + 3, false),
                (l + 4, false),
                (l + 5, false)
            ]
        );
    }
}

/// `l2.miss_queue`: no lookup while the slice's DRAM queue is full,
/// not even a hit (GPGPU-Sim's `cache_cycle` looks up only while
/// `m_L2_dram_queue` has room). With one DRAM-queue entry and three
/// credits (`dram.queue` 1 + `dram.return_queue` 1 + 1), a line miss
/// A (lookup at L, four sectors) fills the DRAM queue with its fourth
/// sector at L+4, so a hit B queued behind A waits from L+4 until a
/// credit returns and the channel takes that sector: B is looked up
/// in the first cycle that ends with the queue empty, after
/// `dram.latency`. Without the miss queue B, a hit, goes at L+4.
#[test]
fn no_lookup_while_the_dram_queue_is_full() {
    for cap in [4, 0] {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.miss_queue = cap;
        cfg.dram.queue = 1;
        cfg.dram.return_queue = 1;
        cfg.dram.l2_queue = 1;
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        // B's line is resident (both lines in slice 0: address bit 8
        // clear).
        send(&mut m, &mut now, packet(PacketKind::Read, 0x8000, u32::MAX));
        m.inject(now, 0, packet(PacketKind::Read, 0x4000, u32::MAX));
        m.inject(now, 0, packet(PacketKind::Read, 0x8000, u32::MAX));
        let (mut atomics, mut replies) = (Vec::new(), Vec::new());
        let (mut looked_up, mut room_after) = (Vec::new(), Vec::new());
        while m.busy() && now < 1_000_000 {
            let queued = m.slices[0].rop.len();
            m.cycle(now, &mut atomics, &mut replies);
            for _ in m.slices[0].rop.len()..queued {
                looked_up.push(now);
            }
            if m.dram.can_accept_n(0, 1) {
                room_after.push(now);
            }
            now += 1;
        }
        assert_eq!(looked_up.len(), 2);
        let (l, b) = (looked_up[0], looked_up[1]);
        if cap == 0 {
            assert_eq!(b, l + 4, "a hit is looked up whatever the DRAM queue holds");
            continue;
        }
        let first_room = *room_after.iter().find(|&&t| t >= l + 4).unwrap();
        assert!(first_room > l + 4 + u64::from(cfg.dram.latency));
        assert_eq!(b, first_room);
        assert_eq!(
            m.stats.l2_hits, 4,
            "B hits (the warm-up and A miss): its wait is the queue's"
        );
    }
}

/// Accesses that find their sector already on its way from DRAM are
/// pending hits (GPGPU-Sim's `HIT_RESERVED`): they stay misses in
/// `l2_misses` and are counted again in `l2_pending_hits`. Two reads of
/// an absent line sent together: the first misses its four sectors and
/// fetches them, the second joins all four (8 misses, 4 pending, 4 DRAM
/// reads). A read of another line and a store into its sector 2 sent
/// together: the store writes into a sector on its way (one more
/// pending hit); a read of a third line alone has none.
#[test]
fn reads_and_stores_into_sectors_on_their_way_are_pending_hits() {
    let cfg = GpuConfig::tiny();
    let mut m = MemSys::new(&cfg);
    let mut now = 0;
    // Every packet answered (`send_all` gives each tag's reply cycle).
    let mut run = |m: &mut MemSys, ps: &mut [Packet]| {
        for (i, p) in ps.iter_mut().enumerate() {
            p.tag = i as u32;
        }
        let start = now;
        send_all(m, &mut now, ps)
            .iter()
            .filter(|&&t| t > start)
            .count()
    };
    let read = |addr| packet(PacketKind::Read, addr, u32::MAX);
    assert_eq!(run(&mut m, &mut [read(0x4000), read(0x4000)]), 2);
    let s = m.stats.clone();
    assert_eq!((s.l2_accesses, s.l2_misses, s.l2_pending_hits), (8, 8, 4));
    assert_eq!(s.dram_reads, 4);
    // Chunk 17 of 32: bytes 68-71, sector 2.
    let store = packet(PacketKind::Write, 0x8000, 1 << 17);
    assert_eq!(run(&mut m, &mut [read(0x8000), store]), 2);
    let d = m.stats.since(&s);
    assert_eq!((d.l2_accesses, d.l2_pending_hits), (5, 1));
    let s = m.stats.clone();
    assert_eq!(run(&mut m, &mut [read(0xc000)]), 1);
    assert_eq!(m.stats.since(&s).l2_pending_hits, 0);
}
