//! The L2 slices' side of [`MemSys`]: tag lookups, fills and
//! write-backs, the sector misses (MSHRs) and their merge limit, the miss
//! queue towards DRAM, and the DRAM's returns filling the slices.

use super::*;

impl MemSys {
    /// Fills slice `slice`'s line `line` (its address within the slice);
    /// a dirty victim is written back to DRAM. Returns the cycles the
    /// write-back holds the slice's data port (0 without one).
    pub(super) fn fill_l2(&mut self, slice: usize, line: u64, valid: u32, dirty: u32) -> u64 {
        self.fill_l2_lru(slice, line, valid, dirty, true)
    }

    /// [`MemSys::fill_l2`]; `touch` false keeps a present line's LRU
    /// stamp (a fill from DRAM under `l2.lru_at_access`).
    pub(super) fn fill_l2_lru(
        &mut self,
        slice: usize,
        line: u64,
        valid: u32,
        dirty: u32,
        touch: bool,
    ) -> u64 {
        let Some(e) = self.slices[slice]
            .tags
            .fill_sectors(line, 0, valid, dirty, touch)
        else {
            return 0;
        };
        self.write_back(slice, e)
    }

    /// Writes evicted line `e` of slice `slice` back to DRAM if it has
    /// dirty sectors; returns the cycles it holds the slice's data port.
    pub(super) fn write_back(&mut self, slice: usize, e: Evicted) -> u64 {
        if e.dirty_sectors & self.all_sectors() == 0 {
            return 0;
        }
        // One write of the dirty sectors (GPGPU-Sim's modified size).
        self.stats.l2_writebacks += 1;
        let addr = self.dram.map().compose(slice as u32, e.line * self.l2_line);
        let dirty = (e.dirty_sectors & self.all_sectors()).count_ones();
        let bytes = u64::from(dirty) * self.sector_bytes;
        self.send_dram(DramRequest {
            addr,
            bytes: bytes as u32,
            write: true,
            slice: slice as u32,
            tag: e.line,
        });
        bytes.checked_div(self.l2_data_port).unwrap_or(0)
    }

    /// A write-back read `port` cycles out of slice `s`'s data array
    /// (GPGPU-Sim's `use_data_port` on a miss that evicts a dirty line):
    /// the slice's next lookup waits until the port is free, `port − 1`
    /// cycles after the cycle that took it (`from`: the lookup's end, or
    /// now for a fill), and so does the estimate of its input queue.
    pub(super) fn hold_data_port(&mut self, s: usize, from: u64, port: u64) {
        if port <= 1 {
            return;
        }
        let extra = port - 1;
        let sl = &mut self.slices[s];
        sl.next_lookup = sl.next_lookup.max(from) + extra;
        self.slice_busy[s] = self.slice_busy[s].max(from) + extra;
        self.refresh_lookup_due(s);
    }

    /// A host-to-device copy of `len` bytes at `addr`: each 32-byte
    /// sector it covers becomes a valid, clean L2 sector, in address order,
    /// without any timing (GPGPU-Sim's `-gpgpu_perf_sim_memcpy 1`: the copy
    /// engine writes through the L2 tags). A line it evicts is dropped, as
    /// GPGPU-Sim's tag update drops it.
    pub fn host_copy(&mut self, addr: u64, len: u64) {
        if len == 0 {
            return;
        }
        let sector = self.sector_bytes.max(1);
        let end = addr + len;
        // One tag update per line, with the sectors the copy covers.
        let mut a = addr - addr % self.l2_line;
        while a < end {
            let (s, line) = self.slice_of(a);
            let lo = addr.max(a) - a;
            let hi = end.min(a + self.l2_line) - a;
            let first = lo / sector;
            let last = (hi - 1) / sector;
            let bits = ((1u64 << (last + 1)) - (1u64 << first)) as u32;
            self.slices[s].tags.fill_sectors(line, 0, bits, 0, true);
            a += self.l2_line;
        }
    }

    pub(super) fn all_sectors(&self) -> u32 {
        if self.sectors >= 32 {
            u32::MAX
        } else {
            (1 << self.sectors) - 1
        }
    }

    /// The L2 sectors packet `p` reads or writes: all of the line for a
    /// whole-line read, else those its chunks fall in.
    pub(super) fn sectors_of(&self, p: &Packet) -> u32 {
        if p.chunks == u32::MAX {
            return self.all_sectors();
        }
        if self.store_transactions
            && p.kind == PacketKind::Write
            && u64::from(p.req_bytes) >= self.l2_line
        {
            // A line-sized write transaction: every sector of the line
            // is an access (GPGPU-Sim's breakdown of a 128-byte request),
            // those it has no bytes of written with none.
            return self.all_sectors();
        }
        let off = p.addr % self.l2_line;
        let mut m = p.chunks;
        let mut out = 0;
        while m != 0 {
            let i = u64::from(m.trailing_zeros());
            m &= m - 1;
            let byte = off + i * self.chunk_bytes;
            out |= 1 << ((byte / self.sector_bytes).min(31));
        }
        out & self.all_sectors()
    }

    /// The 32nds of the L2 line packet `p` writes (a granule counts as
    /// written when any of its bytes is: granules of 4 bytes on 128-byte
    /// lines, so narrower stores count whole words). With
    /// `l2.vector_store_first_element`, a vector store's lanes write only
    /// their first element: of each vector-sized, vector-aligned block of
    /// the line (a lane's vector; PTX aligns a vector access to its size),
    /// only the element's bytes at its start count.
    pub(super) fn l2_granules_of(&self, p: &Packet) -> u32 {
        // Bytes of each `vector`-byte block that count as written.
        let (vector, counted) = if self.l2_vector_first_element && p.vector.is_vector() {
            (p.vector.bytes(), p.vector.element_bytes())
        } else {
            (1, 1)
        };
        if p.chunks == u32::MAX && vector == 1 {
            return u32::MAX;
        }
        let granule = (self.l2_line / 32).max(1);
        let off = p.addr % self.l2_line;
        let mut m = p.chunks;
        let mut out = 0u32;
        while m != 0 {
            let i = u64::from(m.trailing_zeros());
            m &= m - 1;
            let lo = off + i * self.chunk_bytes;
            let mut hi = (lo + self.chunk_bytes).min(self.l2_line);
            if vector > 1 {
                // Only the chunk's bytes within its block's first element.
                hi = hi.min(lo - lo % vector + counted);
                if lo >= hi {
                    continue;
                }
            }
            let mut b = lo - lo % granule;
            while b < hi {
                out |= 1 << (b / granule).min(31);
                b += granule;
            }
        }
        out
    }

    pub(super) fn send_dram(&mut self, r: DramRequest) {
        #[cfg(test)]
        self.sent_dram.push(r);
        self.stats.dram_bytes += u64::from(r.bytes);
        if self.l2_missq_cap > 0 {
            // Into the slice's miss queue, which it leaves no earlier
            // than `send_at`.
            let at = self.send_at;
            let q = &mut self.slices[r.slice as usize].missq;
            if q.is_empty() {
                self.missq_busy += 1;
            }
            q.push_back((at, r));
        } else {
            self.dram.push(r);
        }
    }

    /// `l2.miss_queue`: the cycle after the last sector access of a
    /// lookup of slice `s` at `now` whose sectors `need` (one access per
    /// cycle, lowest first) include the non-hits `misses`, of which
    /// `fetch` queue a read (and the first miss a victim's write-back,
    /// with `victim_wb`); each sector's access cycle goes into
    /// `sector_at`. GPGPU-Sim looks each sector up in its own cycle, and
    /// a read that does not hit needs room for two requests in the miss
    /// queue (`miss_queue_full(1)`), a store that misses for one
    /// (`miss_queue_full(0)`): a sector without it waits, and so do the
    /// sectors after it, while the queue's head moves on, one per cycle.
    /// The first sector had room (the caller checked); the DRAM queue is
    /// taken to keep the room it has now. A later sector's waits count
    /// in `miss_queue_full` here.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn plan_sector_accesses(
        &mut self,
        s: usize,
        now: u64,
        need: u32,
        misses: u32,
        fetch: u32,
        write: bool,
        victim_wb: bool,
    ) -> u64 {
        let cap = self.l2_missq_cap;
        let wanted = usize::from(!write);
        let mut len = self.slices[s].missq.len();
        let mut wb = victim_wb;
        let mut t = now;
        let mut bits = need;
        let mut first = true;
        while bits != 0 {
            let sector = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if !first {
                t += 1;
                len = len.saturating_sub(1);
            }
            first = false;
            if misses >> sector & 1 == 1 {
                while len + wanted >= cap {
                    t += 1;
                    len -= 1;
                    self.stats.miss_queue_full += 1;
                }
                len += usize::from(fetch >> sector & 1 == 1) + usize::from(std::mem::take(&mut wb));
            }
            self.sector_at[sector] = t;
        }
        t + 1
    }

    /// `l2.miss_queue`: each slice's miss queue lets its head into the
    /// DRAM queue when that has room, one per cycle (before the cycle's
    /// lookups, as GPGPU-Sim's `m_L2cache->cycle()` runs before
    /// `access`). Returns true while any miss queue holds a request.
    pub(super) fn drain_miss_queues(&mut self, now: u64) -> bool {
        if self.missq_busy == 0 {
            return false;
        }
        for s in 0..self.slices.len() {
            let q = &mut self.slices[s].missq;
            if let Some(&(at, r)) = q.front()
                && at <= now
                && self.dram.can_accept_n(s as u32, 1)
            {
                q.pop_front();
                if q.is_empty() {
                    self.missq_busy -= 1;
                }
                #[cfg(test)]
                self.entered_dram.push((now, r));
                self.dram.push(r);
            }
        }
        self.missq_busy > 0
    }

    /// The DRAM clocks of this cycle and the reads whose data reached the
    /// L2: fills and their waiting packets' replies (step 2).
    pub(super) fn dram_returns(&mut self, now: u64) -> bool {
        let mut active = false;
        // 2. DRAM clocks up to this cycle, then reads whose data has
        //    reached the L2.
        active |= self.dram.advance(now);
        let c = self.dram.counts;
        self.stats.dram_reads = c.reads;
        self.stats.dram_writes = c.writes;
        self.stats.dram_activates = c.activates;
        self.stats.dram_precharges = c.precharges;
        self.stats.dram_busy_cycles = c.bus_clocks;
        while let Some(r) = self.dram.pop_done(now) {
            active = true;
            let s = r.slice as usize;
            let line = r.tag >> 5;
            let sl = &mut self.slices[s];
            let pos = *sl.mshr_of.get(&line).expect("a DRAM read has its L2 MSHR") as usize;
            let m = &mut sl.mshr[pos];
            debug_assert_eq!(m.line, line, "the L2 MSHR index names its line");
            m.arrived |= 1 << (r.tag & 31);
            if m.arrived & m.pending != m.pending {
                continue;
            }
            let (mut waiters, pending) = (std::mem::take(&mut m.waiters), m.pending);
            sl.mshr_of.remove(&line);
            sl.mshr_free.push(pos as u32);
            let dirty = waiters
                .iter()
                .filter(|p| p.kind == PacketKind::Atomic)
                .fold(0, |d, p| d | self.sectors_of(p));
            // Without `l2.allocate_on_miss` the victim is evicted here,
            // at the fill (GPGPU-Sim: at the miss), and its write-back
            // holds the slice's next lookups; with it the way was
            // reserved at the miss and nothing is evicted now.
            // `l2.lru_at_access`: the fill leaves the line where its
            // last access put it in the LRU order.
            let touch = !self.l2_lru_at_access;
            let port = self.fill_l2_lru(s, line, pending, dirty, touch);
            self.hold_data_port(s, now, port);
            for &p in &waiters {
                self.reply(now, s, p);
            }
            waiters.clear();
            self.slices[s].mshr[pos].waiters = waiters;
        }
        active
    }

    /// The slices' tag lookups, one per slice and cycle (step 4).
    pub(super) fn lookups(&mut self, now: u64) -> bool {
        let mut active = false;
        let missq = self.l2_missq_cap > 0;
        if missq {
            active |= self.drain_miss_queues(now);
        }
        // 4. Tag lookups, one per slice per cycle.
        for s in 0..self.slices.len() {
            if self.lookup_due[s] > now {
                continue;
            }
            self.send_at = now + 1;
            if self.crossbar.as_ref().is_some_and(|x| x.full(s)) {
                // The slice's reply buffer is full: the lookup waits.
                self.reply_blocked_now += 1;
                continue;
            }
            if missq && !self.dram.can_accept_n(s as u32, 1) {
                // `l2.miss_queue`: no lookup while the slice's DRAM queue
                // is full (GPGPU-Sim's `cache_cycle` looks up only then).
                self.blocked_now += 1;
                continue;
            }
            let Some(&RopEntry {
                packet: p,
                line,
                need,
                accesses: a,
                ..
            }) = self.slices[s].rop.front()
            else {
                continue;
            };
            let write = p.kind == PacketKind::Write;
            let way = self.slices[s].tags.way_of(line);
            let valid = way.map_or(0, |w| self.slices[s].tags.valid_at(w));
            // Sectors a read may hit: valid and, with
            // `l2.partial_write_miss`, not written in part only.
            let readable = match way {
                Some(w) if self.l2_partial_write_miss => self.slices[s].tags.readable_at(w),
                _ => valid,
            };
            let merged = self.slices[s].mshr_of.get(&line).map(|&i| i as usize);
            let pending = merged.map_or(0, |i| self.slices[s].mshr[i].pending);
            // Sectors to fetch: needed, not valid, not already on their way.
            let mut fetch = if write {
                0
            } else {
                need & !readable & !pending
            };
            // Sectors that join misses already on their way.
            let mut joins = if write { 0 } else { need & !readable & pending };
            // `l2.half_line_alias`: a 64-byte read's second sector has the
            // first's address, so while the first is not valid it joins
            // the first's miss (sent now or already on its way), is served
            // with it and stays invalid.
            let first = need & need.wrapping_neg();
            let mut alias = 0;
            if self.l2_half_line_alias
                && p.kind == PacketKind::Read
                && p.reply_bytes == 64
                && need.count_ones() == 2
                && first & !readable != 0
            {
                fetch &= first;
                joins &= first;
                alias = first;
            }
            // `l2.mshr_merge`: a sector miss holds that many requests; one
            // more waits (GPGPU-Sim's MSHR_MERGE_ENRTY_FAIL) until its
            // data arrives.
            if self.l2_mshr_merge > 0
                && let Some(i) = merged
                && self.merge_full(&self.slices[s].mshr[i], joins, alias)
            {
                self.merge_blocked_now += 1;
                continue;
            }
            let misses = need & !if write { valid } else { readable };
            if missq {
                // A read that does not hit needs room for two requests in
                // the miss queue, a store that misses for one (the later
                // sectors' room: `plan_sector_accesses`).
                let wanted = usize::from(!write);
                if misses != 0 && self.slices[s].missq.len() + wanted >= self.l2_missq_cap {
                    self.missq_blocked_now += 1;
                    continue;
                }
            } else if fetch != 0 && !self.dram.can_accept_n(s as u32, fetch.count_ones()) {
                // The DRAM queue is full: the lookup waits (counted stall).
                self.blocked_now += 1;
                continue;
            }
            // `l2.allocate_on_miss`: a read missing an absent line reserves
            // its way now, evicting the victim (GPGPU-Sim's tag_array::access,
            // MISS under ON_MISS); with every way of the set reserved the
            // lookup waits for a fill (a reservation failure).
            let mut evicted = None;
            if self.l2_allocate_on_miss && fetch != 0 && way.is_none() {
                match self.slices[s].tags.reserve(line, 0) {
                    Ok(e) => evicted = e,
                    Err(_) => continue,
                }
            }
            active = true;
            if self.l2_lru_at_access
                && !write
                && let Some(w) = way
                && need & !readable != 0
            {
                // A sector miss or a read joining a pending sector sets
                // the line's access time (GPGPU-Sim's tag_array::access:
                // SECTOR_MISS, HIT_RESERVED); a hit is touched below.
                self.slices[s].tags.touch(w);
            }
            let a = u64::from(a);
            if self.rop_transfer {
                self.update_moved(s, now);
                let sl = &mut self.slices[s];
                if sl.unmoved_idx == 0 {
                    // Sectors of this packet the ROP stage had not moved
                    // yet pass through the queue now, one per cycle.
                    let left = a - sl.unmoved_part.min(a);
                    sl.moved += left;
                    sl.unmoved_part = 0;
                    sl.move_free = sl.move_free.max(now + left);
                } else {
                    sl.unmoved_idx -= 1;
                }
                sl.looked += a;
            }
            self.slices[s].rop.pop_front();
            if self.slices[s].rop_ready > 0 {
                let sl = &mut self.slices[s];
                sl.rop_ready -= 1;
                sl.rop_ready_accesses -= a;
            }
            // The ejection buffer may let its head in next cycle.
            self.eject_wake[s] = self.eject_wake[s].min(now + 1);
            // One sector per cycle (GPGPU-Sim splits a line request into
            // sector requests, each an L2 access).
            let accesses = need.count_ones().max(1);
            self.slices[s].next_lookup = if missq && misses != 0 {
                // The victim a miss of an absent line evicts now (a read's,
                // reserved above, or a store's, at its fill below) is
                // written back through the miss queue with the first
                // sector.
                let all = self.all_sectors();
                let victim_wb = match evicted {
                    Some(e) => e.dirty_sectors & all != 0,
                    None => write && way.is_none() && self.slices[s].tags.victim_is_dirty(line),
                };
                self.plan_sector_accesses(s, now, need, misses, fetch, write, victim_wb)
            } else {
                now + u64::from(accesses)
            };
            self.refresh_lookup_due(s);
            self.stats.l2_accesses += u64::from(accesses);
            let hits = (need & if write { valid } else { readable }).count_ones();
            self.stats.l2_hits += u64::from(hits);
            self.stats.l2_misses += u64::from(accesses - hits.min(accesses));
            // Sectors already on their way: a read joins their miss, a
            // store writes into them.
            let on_way = if write {
                need & !valid & pending
            } else {
                joins
            };
            self.stats.l2_pending_hits += u64::from(on_way.count_ones());
            if write {
                // Write-allocate without fetching: the written sectors
                // become valid and dirty; the write is acknowledged at once
                // (a header-only reply).
                let port = self.fill_l2(s, line, 0, need);
                if self.l2_partial_write_miss {
                    // Sectors written in part while not valid are not
                    // readable until completed or fetched.
                    let granules = self.l2_granules_of(&p);
                    let per = (self.sector_bytes * 32 / self.l2_line).max(1) as u32;
                    self.slices[s]
                        .tags
                        .note_write(line, granules, need & !valid, per);
                }
                let end = self.slices[s].next_lookup;
                self.hold_data_port(s, end, port);
                self.reply(now, s, p);
                continue;
            }
            if need & !readable == 0 {
                // Present (every needed sector is valid): found above.
                if let Some(w) = way {
                    self.slices[s].tags.touch(w);
                }
                if p.kind == PacketKind::Atomic {
                    // A hit: nothing is evicted.
                    let _ = self.fill_l2(s, line, 0, need);
                }
                self.reply(now, s, p);
                continue;
            }
            let i = match merged {
                Some(i) => i,
                None => {
                    let sl = &mut self.slices[s];
                    let i = match sl.mshr_free.pop() {
                        Some(i) => {
                            let m = &mut sl.mshr[i as usize];
                            debug_assert!(m.waiters.is_empty());
                            (m.line, m.pending, m.arrived) = (line, 0, 0);
                            m.merges = [0; 32];
                            i as usize
                        }
                        None => {
                            sl.mshr.push(L2Miss {
                                line,
                                waiters: Vec::new(),
                                pending: 0,
                                arrived: 0,
                                merges: [0; 32],
                            });
                            sl.mshr.len() - 1
                        }
                    };
                    sl.mshr_of.insert(line, i as u32);
                    i
                }
            };
            let m = &mut self.slices[s].mshr[i];
            m.waiters.push(p);
            m.pending |= fetch;
            let mut f = fetch;
            while f != 0 {
                m.merges[f.trailing_zeros() as usize] = 1;
                f &= f - 1;
            }
            let mut j = joins;
            while j != 0 {
                let k = j.trailing_zeros() as usize;
                m.merges[k] = m.merges[k].saturating_add(1);
                j &= j - 1;
            }
            if alias != 0 {
                let k = alias.trailing_zeros() as usize;
                m.merges[k] = m.merges[k].saturating_add(1);
            }
            let base = p.addr - p.addr % self.l2_line;
            let mut f = fetch;
            while f != 0 {
                let sector = u64::from(f.trailing_zeros());
                f &= f - 1;
                // With the miss queue its read leaves it from the cycle
                // after the sector's access.
                if missq {
                    self.send_at = self.sector_at[sector as usize] + 1;
                }
                self.send_dram(DramRequest {
                    addr: base + sector * self.sector_bytes,
                    bytes: self.sector_bytes as u32,
                    write: false,
                    slice: s as u32,
                    tag: line << 5 | sector,
                });
                if let Some(e) = evicted.take() {
                    let port = self.write_back(s, e);
                    let end = self.slices[s].next_lookup;
                    self.hold_data_port(s, end, port);
                }
            }
        }
        active
    }

    /// True if miss `m` cannot take a packet whose sectors `joins` join
    /// their pending misses (and, with `alias`, whose second sector joins
    /// the miss of sector `alias` too): one of them already holds
    /// `l2.mshr_merge` requests.
    pub(super) fn merge_full(&self, m: &L2Miss, joins: u32, alias: u32) -> bool {
        let limit = self.l2_mshr_merge;
        let mut j = joins;
        while j != 0 {
            let k = j.trailing_zeros();
            j &= j - 1;
            let extra = 1 + u32::from(alias >> k & 1 == 1);
            if u32::from(m.merges[k as usize]) + extra > limit {
                return true;
            }
        }
        false
    }
}
