//! The reply crossbar from the L2 slices to the SMs, as GPGPU-Sim 4.2's
//! GTX480 interconnect behaves (intersim2 `fly` topology: one 27-port
//! router, one virtual channel per port, FIFO input buffers, iSLIP
//! allocation with `internal_speedup 2` and one cycle each of VC and
//! switch allocation, so each port starts at most one packet per cycle).
//!
//! Each slice (input) queues its replies in order; a reply is split into
//! *parts*, the packets GPGPU-Sim sends (one per L2 sector a read returns
//! or a write acknowledges, one per atomic). Every cycle each free SM
//! (output) grants one of the free slices whose head part is for it,
//! round robin from the slice after the one it granted last; a granted
//! part holds its input and output for its flits. Only the head of a
//! slice's queue can be granted (head-of-line blocking): a reply for an
//! idle SM waits behind one for a busy SM, which is what limits the reply
//! bandwidth of gather-heavy kernels in GPGPU-Sim. A reply leaves when
//! its last part has been granted.
//!
//! A slice holds at most `icnt.reply_buffer` parts (GPGPU-Sim's L2-to-
//! interconnect queue, injection buffer and router input buffer); while
//! it holds that many its L2 looks nothing up ([`Crossbar::full`]).
//!
//! The same switch carries requests the other way (`icnt.request_crossbar`:
//! inputs are the SMs, outputs the slices, one part per packet, a part
//! holding its ports for its flits). There an input's capacity counts
//! flits (each part weighs its flits: GPGPU-Sim's 9-flit injection queue
//! and 64-flit router input buffer, `icnt.request_buffer`), and an output
//! takes a head only when [`Crossbar::step_gated`]'s gate says so (the
//! slice's ejection buffer has room for its flits).

use std::collections::VecDeque;

/// A reply in a slice's queue.
#[derive(Clone, Copy, Debug)]
struct Queued<T> {
    packet: T,
    /// The SM it goes to.
    output: u32,
    /// Parts not yet granted.
    parts: u32,
    /// Cycles each part holds its input and output.
    part_cycles: u64,
    /// Capacity units each part takes (1 for replies, flits for requests).
    units: u32,
}

/// What arbitration needs of an input, kept dense (one small record per
/// input) so a cycle's scan touches no queue.
#[derive(Clone, Copy, Debug)]
struct Head {
    /// The output of the input's head part (`NONE` with nothing queued).
    output: u32,
    /// Capacity units of the head part (what a gate looks at).
    units: u32,
    /// The first cycle the input may start its next part.
    free_at: u64,
}

/// [`Head::output`] of an empty input.
const NONE: u32 = u32::MAX;

/// The slices' reply queues (of `T`, the reply) and the SMs' arbiters.
#[derive(Clone, Debug)]
pub struct Crossbar<T> {
    queues: Vec<VecDeque<Queued<T>>>,
    /// Per input: its head part's output and units, and when it is free.
    heads: Vec<Head>,
    /// Capacity units (parts, or flits) queued per input.
    parts: Vec<u32>,
    /// Units an input may hold.
    capacity: u32,
    /// Per SM: the first cycle it may take its next part.
    output_free: Vec<u64>,
    /// Per SM: the slice its round robin starts from.
    next_input: Vec<u32>,
    /// Per SM, rebuilt each cycle: the requesting slice the round robin
    /// picks, as distance from `next_input` << 32 | slice (`u64::MAX`:
    /// none), so the nearest is the smallest key.
    pick: Vec<u64>,
    /// Scratch of one cycle: bit `o % 64` of word `o / 64` set for each SM
    /// `o` with a pick (so a grant visits only those, in SM order).
    picked: Vec<u64>,
    /// Slices with queued replies.
    busy_inputs: usize,
}

impl<T: Copy> Crossbar<T> {
    /// An empty crossbar from `inputs` slices to `outputs` SMs, each slice
    /// holding at most `capacity` parts.
    pub fn new(inputs: usize, outputs: usize, capacity: u32) -> Crossbar<T> {
        Crossbar {
            queues: vec![VecDeque::new(); inputs],
            heads: vec![
                Head {
                    output: NONE,
                    units: 0,
                    free_at: 0,
                };
                inputs
            ],
            parts: vec![0; inputs],
            capacity: capacity.max(1),
            output_free: vec![0; outputs],
            next_input: vec![0; outputs],
            pick: vec![u64::MAX; outputs],
            picked: vec![0; outputs.div_ceil(64).max(1)],
            busy_inputs: 0,
        }
    }

    /// Queues `packet` for SM `output` at slice `input`, as `parts` parts
    /// of `part_cycles` cycles each (one capacity unit each).
    pub fn push(&mut self, input: usize, output: u32, packet: T, parts: u32, part_cycles: u64) {
        self.push_weighted(input, output, packet, parts, part_cycles, 1);
    }

    /// Queues `packet` for `output` at `input` as `parts` parts of
    /// `part_cycles` cycles, each taking `units` of the input's capacity.
    pub fn push_weighted(
        &mut self,
        input: usize,
        output: u32,
        packet: T,
        parts: u32,
        part_cycles: u64,
        units: u32,
    ) {
        if self.queues[input].is_empty() {
            self.busy_inputs += 1;
            let h = &mut self.heads[input];
            h.output = output;
            h.units = units;
        }
        let parts = parts.max(1);
        self.parts[input] += parts * units;
        self.queues[input].push_back(Queued {
            packet,
            output,
            parts,
            part_cycles: part_cycles.max(1),
            units,
        });
    }

    /// True when slice `input` holds its capacity of parts.
    pub fn full(&self, input: usize) -> bool {
        self.parts[input] >= self.capacity
    }

    /// True when `input`, holding `held` capacity units besides its queue
    /// (packets on their way to it), has room for `units` more. An empty
    /// input takes a packet larger than its capacity: its flits stream
    /// through the buffer (wormhole), so a small buffer slows large
    /// packets down but never holds them forever.
    pub fn has_room(&self, input: usize, held: u32, units: u32) -> bool {
        let used = self.parts[input] + held;
        used == 0 || used + units <= self.capacity
    }

    /// The first cycle after `now` at which an input with a queued part
    /// and the output of its head part are both free (`u64::MAX` if every
    /// such pair is free already, so only a gate can hold them, or nothing
    /// is queued): before then a [`Crossbar::step_gated`] that granted
    /// nothing at `now` grants nothing, unless a gate opens.
    pub fn next_grant_at(&self, now: u64) -> u64 {
        let mut next = u64::MAX;
        for h in &self.heads {
            if h.output != NONE {
                let t = h.free_at.max(self.output_free[h.output as usize]);
                if t > now {
                    next = next.min(t);
                }
            }
        }
        next
    }

    /// True when no reply is queued.
    pub fn is_empty(&self) -> bool {
        self.busy_inputs == 0
    }

    /// One cycle of arbitration at `now`: grants at most one part per SM
    /// and per slice, and calls `sent(packet, done)` for each reply whose
    /// last part is granted, `done` being the cycle its last part has left
    /// the slice. Returns true if anything was granted.
    pub fn step(&mut self, now: u64, sent: impl FnMut(T, u64)) -> bool {
        self.step_gated(now, |_, _| true, sent)
    }

    /// [`Crossbar::step`] where output `o` considers a head part of
    /// `units` capacity units only when `open(o, units)` (evaluated once
    /// per free input and cycle; an output grants at most one part per
    /// cycle, so a gate that checks room for one part stays true for the
    /// grant).
    pub fn step_gated(
        &mut self,
        now: u64,
        mut open: impl FnMut(usize, u32) -> bool,
        mut sent: impl FnMut(T, u64),
    ) -> bool {
        if self.busy_inputs == 0 {
            return false;
        }
        let n = self.heads.len() as u32;
        // Each free slice requests the SM of its head part; each free SM
        // keeps the requester nearest after its round-robin position.
        let mut any = false;
        for (s, h) in self.heads.iter().enumerate() {
            if h.output == NONE || h.free_at > now {
                continue;
            }
            let o = h.output as usize;
            if self.output_free[o] > now || !open(o, h.units) {
                continue;
            }
            // (s − next_input[o]) mod n, both below n.
            let ahead = s as u32 + n - self.next_input[o];
            let dist = if ahead >= n { ahead - n } else { ahead };
            let key = u64::from(dist) << 32 | s as u64;
            let p = &mut self.pick[o];
            if key < *p {
                if *p == u64::MAX {
                    self.picked[o / 64] |= 1 << (o % 64);
                    any = true;
                }
                *p = key;
            }
        }
        if !any {
            return false;
        }
        for word in 0..self.picked.len() {
            let mut bits = std::mem::take(&mut self.picked[word]);
            while bits != 0 {
                let o = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let s = std::mem::replace(&mut self.pick[o], u64::MAX) as u32;
                self.grant(now, o, s as usize, &mut sent);
            }
        }
        true
    }

    /// Grants output `o` the head part of input `s` at `now`.
    fn grant(&mut self, now: u64, o: usize, s: usize, sent: &mut impl FnMut(T, u64)) {
        let n = self.heads.len() as u32;
        let next = s as u32 + 1;
        self.next_input[o] = if next == n { 0 } else { next };
        let q = &mut self.queues[s];
        let head = q.front_mut().expect("a requesting slice");
        let cycles = head.part_cycles;
        head.parts -= 1;
        self.parts[s] -= head.units;
        self.heads[s].free_at = now + cycles;
        self.output_free[o] = now + cycles;
        if head.parts == 0 {
            let packet = head.packet;
            q.pop_front();
            let h = &mut self.heads[s];
            match q.front() {
                Some(next) => {
                    h.output = next.output;
                    h.units = next.units;
                }
                None => {
                    h.output = NONE;
                    self.busy_inputs -= 1;
                }
            }
            sent(packet, now + cycles);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues reply `tag` for SM `sm` at slice `s`.
    fn push(x: &mut Crossbar<u32>, s: usize, sm: u32, tag: u32, parts: u32, cycles: u64) {
        x.push(s, sm, tag, parts, cycles);
    }

    /// Runs until empty; returns (tag, cycle its last part left).
    fn drain(x: &mut Crossbar<u32>) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        let mut now = 0;
        while !x.is_empty() && now < 10_000 {
            x.step(now, |tag, done| out.push((tag, done)));
            now += 1;
        }
        out
    }

    /// One slice, one SM: a 4-part reply leaves after 4 cycles, the next
    /// 4 cycles later.
    #[test]
    fn parts_are_granted_one_per_cycle() {
        let mut x = Crossbar::new(1, 1, 100);
        push(&mut x, 0, 0, 1, 4, 1);
        push(&mut x, 0, 0, 2, 4, 1);
        assert_eq!(x.parts[0], 8);
        assert_eq!(drain(&mut x), vec![(1, 4), (2, 8)]);
        // Two-flit parts hold the ports twice as long.
        let mut x = Crossbar::new(1, 1, 100);
        push(&mut x, 0, 0, 1, 4, 2);
        assert_eq!(drain(&mut x), vec![(1, 8)]);
    }

    /// Two slices to one SM alternate part by part (round robin), so each
    /// 4-part reply takes 8 cycles; a reply for an idle SM queued behind
    /// slice 0's waits for it (head-of-line blocking): it leaves at 11
    /// (granted at 7, 8, 9, 10) instead of 4.
    #[test]
    fn head_of_line_blocking() {
        let mut x = Crossbar::new(2, 2, 100);
        push(&mut x, 0, 0, 1, 4, 1);
        push(&mut x, 0, 1, 3, 4, 1);
        push(&mut x, 1, 0, 2, 4, 1);
        let got = drain(&mut x);
        // Cycles 0..8 alternate slice 0, 1 at SM 0: slice 0's parts at 0,
        // 2, 4, 6 (done 7), slice 1's at 1, 3, 5, 7 (done 8); slice 0's
        // reply for SM 1 takes cycles 7..10 (done 11).
        assert_eq!(got, vec![(1, 7), (2, 8), (3, 11)]);
    }

    /// A slice is full at its capacity of parts.
    #[test]
    fn capacity_in_parts() {
        let mut x = Crossbar::new(1, 1, 8);
        push(&mut x, 0, 0, 1, 4, 1);
        assert!(!x.full(0));
        push(&mut x, 0, 0, 2, 4, 1);
        assert!(x.full(0));
        x.step(0, |_, _| {});
        assert!(!x.full(0));
    }

    /// Requests: an input's capacity counts flits (a 4-flit packet takes 4),
    /// and a closed gate keeps an output from granting while the other
    /// output still grants its own head.
    #[test]
    fn weighted_capacity_and_gated_outputs() {
        let mut x = Crossbar::new(2, 2, 9);
        x.push_weighted(0, 0, 1u32, 1, 4, 4);
        x.push_weighted(0, 0, 2, 1, 4, 4);
        assert!(x.has_room(0, 0, 1));
        assert!(!x.has_room(0, 0, 2));
        assert!(!x.has_room(0, 1, 1), "a packet on its way counts");
        x.push_weighted(1, 1, 3, 1, 1, 1);
        let mut out = Vec::new();
        // Output 0 closed for cycles 0-5: only input 1's packet leaves.
        for now in 0..20 {
            x.step_gated(
                now,
                |o, _| o != 0 || now >= 6,
                |t, done| out.push((t, done)),
            );
        }
        assert_eq!(out, vec![(3, 1), (1, 10), (2, 14)]);
        assert!(x.has_room(0, 0, 9));
        assert!(x.has_room(0, 0, 10), "an empty input takes any packet");
        assert!(!x.has_room(0, 1, 9));
    }
}
