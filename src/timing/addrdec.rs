//! GPGPU-Sim's address decoder (`addrdec.cc`, `-gpgpu_mem_addr_mapping
//! dramid@N;…`): a byte address becomes a DRAM channel, an L2 slice (a
//! sub-partition of the channel), a bank, a row and a column.
//!
//! The channel is `(addr >> N) mod channels`; the rest of the address is
//! `(addr >> N) / channels` shifted back above the low `N` bits. From that
//! rest the bank, row and column are the bits named by `dram.bank_mask`,
//! `dram.row_mask` and `dram.col_mask`, packed low bit first. The lowest
//! bank bits (log2 of the slices per channel) pick the slice within the
//! channel, and the slice indexes its cache with the rest minus those bits
//! (GPGPU-Sim's `partition_address`), so every slice uses all its sets.

use crate::config::GpuConfig;

/// Where an address lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// DRAM channel.
    pub channel: u32,
    /// L2 slice, numbered over all channels (channel × slices per channel
    /// + sub-partition).
    pub slice: u32,
    /// Bank within the channel.
    pub bank: u32,
    /// Row within the bank.
    pub row: u64,
    /// Column (byte offset within the row, packed).
    pub col: u64,
    /// The address within its slice (GPGPU-Sim's partition address): the
    /// channel and sub-partition bits removed.
    pub local: u64,
}

/// [`pack_bits`] for one mask, its runs of adjacent bits found once: up
/// to [`BitGather::RUNS`] runs are kept (GPGPU-Sim's masks have one to
/// three); a mask with more falls back to [`pack_bits`].
#[derive(Clone, Copy, Debug)]
struct BitGather {
    mask: u64,
    /// (lowest bit, position in the result, ones) of each run.
    runs: [(u32, u32, u64); BitGather::RUNS],
    /// Runs in `runs`, or `u8::MAX` when the mask has more.
    n: u8,
}

impl BitGather {
    const RUNS: usize = 4;

    fn new(mask: u64) -> BitGather {
        let mut runs = [(0, 0, 0); BitGather::RUNS];
        let mut n = 0;
        for run in bit_runs(mask) {
            if n == BitGather::RUNS {
                return BitGather {
                    mask,
                    runs,
                    n: u8::MAX,
                };
            }
            runs[n] = run;
            n += 1;
        }
        BitGather {
            mask,
            runs,
            n: n as u8,
        }
    }

    /// `pack_bits(mask, value)`.
    #[inline]
    fn gather(&self, value: u64) -> u64 {
        if self.n == u8::MAX {
            return pack_bits(self.mask, value);
        }
        let mut out = 0;
        for &(lo, pos, ones) in &self.runs[..self.n as usize] {
            out |= ((value >> lo) & ones) << pos;
        }
        out
    }
}

/// The address decoder of one machine.
#[derive(Clone, Debug)]
pub struct AddrMap {
    channels: u64,
    channel_bit: u32,
    col_mask: u64,
    bank_gather: BitGather,
    row_gather: BitGather,
    sub_gather: BitGather,
    /// Slices per channel (a power of two).
    per_channel: u32,
    /// The bank bits that pick the slice within the channel.
    sub_mask: u64,
}

/// The bits of `value` at the positions set in `mask`, packed low first.
pub fn pack_bits(mask: u64, value: u64) -> u64 {
    // One step per run of adjacent mask bits (GPGPU-Sim's masks have one
    // to three runs).
    bit_runs(mask).fold(0, |out, (lo, pos, ones)| {
        out | ((value >> lo) & ones) << pos
    })
}

/// The runs of adjacent bits set in `mask`, lowest first: each run's lowest
/// bit, its position once the runs are packed together, and a mask of as
/// many ones as it is long.
fn bit_runs(mask: u64) -> impl Iterator<Item = (u32, u32, u64)> {
    let mut m = mask;
    let mut pos = 0;
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let lo = m.trailing_zeros();
        let run = (m >> lo).trailing_ones();
        let ones = if run >= 64 {
            u64::MAX
        } else {
            (1u64 << run) - 1
        };
        let at = pos;
        pos += run;
        m &= !(ones << lo);
        Some((lo, at, ones))
    })
}

/// The inverse of [`pack_bits`]: spreads the low bits of `packed` over the
/// positions set in `mask`.
pub fn deposit_bits(mask: u64, packed: u64) -> u64 {
    let mut out = 0;
    let mut pos = 0;
    let mut m = mask;
    while m != 0 {
        let bit = m.trailing_zeros();
        out |= ((packed >> pos) & 1) << bit;
        pos += 1;
        m &= m - 1;
    }
    out
}

/// Removes the bits of `mask` from `value`, closing the gaps (one step per
/// bit of `mask`, highest first, so the lower positions stay put).
fn remove_bits(mask: u64, value: u64) -> u64 {
    let mut v = value;
    let mut m = mask;
    while m != 0 {
        let b = 63 - m.leading_zeros();
        let low = v & ((1u64 << b) - 1);
        v = low | ((v >> b) >> 1) << b;
        m &= !(1u64 << b);
    }
    v
}

/// Inserts the low bits of `bits` at the positions of `mask` into `value`
/// (the inverse of [`remove_bits`]; one step per bit of `mask`, lowest
/// first).
fn insert_bits(mask: u64, value: u64, bits: u64) -> u64 {
    let mut v = value;
    let mut m = mask;
    let mut i = 0;
    while m != 0 {
        let b = m.trailing_zeros();
        let low = v & ((1u64 << b) - 1);
        v = low | (((bits >> i) & 1) << b) | ((v >> b) << 1) << b;
        m &= m - 1;
        i += 1;
    }
    v
}

impl AddrMap {
    /// The decoder `cfg` describes (`dram.channels`, `dram.channel_bit`,
    /// the masks, `l2.slices`).
    pub fn new(cfg: &GpuConfig) -> AddrMap {
        let channels = cfg.dram.channels.max(1);
        let per_channel = (cfg.l2.slices / channels).max(1);
        let sub_bits = per_channel.trailing_zeros();
        let mut sub_mask = 0;
        let mut m = cfg.dram.bank_mask;
        for _ in 0..sub_bits {
            if m == 0 {
                break;
            }
            sub_mask |= m & m.wrapping_neg();
            m &= m - 1;
        }
        AddrMap {
            channels: u64::from(channels),
            channel_bit: cfg.dram.channel_bit.min(63),
            col_mask: cfg.dram.col_mask,
            bank_gather: BitGather::new(cfg.dram.bank_mask),
            row_gather: BitGather::new(cfg.dram.row_mask),
            sub_gather: BitGather::new(sub_mask),
            per_channel,
            sub_mask,
        }
    }

    /// Decodes a byte address.
    pub fn decode(&self, addr: u64) -> Location {
        let s = self.channel_bit;
        let low = addr & ((1u64 << s) - 1);
        let high = addr >> s;
        let channel = (high % self.channels) as u32;
        let rest = ((high / self.channels) << s) | low;
        let bank = self.bank_gather.gather(rest) as u32;
        let sub = bank & (self.per_channel - 1);
        Location {
            channel,
            slice: channel * self.per_channel + sub,
            bank,
            row: self.row_gather.gather(rest),
            col: pack_bits(self.col_mask, rest),
            local: remove_bits(self.sub_mask, rest),
        }
    }

    /// The bank and row of byte address `addr` ([`AddrMap::decode`]'s
    /// `bank` and `row`, without the other fields: what a DRAM channel
    /// needs of each request).
    pub fn bank_row(&self, addr: u64) -> (u32, u64) {
        let s = self.channel_bit;
        let low = addr & ((1u64 << s) - 1);
        let high = addr >> s;
        let rest = ((high / self.channels) << s) | low;
        (
            self.bank_gather.gather(rest) as u32,
            self.row_gather.gather(rest),
        )
    }

    /// The slice of a byte address and the address within the slice (what
    /// [`AddrMap::decode`] gives as `slice` and `local`, without the bank,
    /// row and column).
    pub fn slice_local(&self, addr: u64) -> (u32, u64) {
        let s = self.channel_bit;
        let low = addr & ((1u64 << s) - 1);
        let high = addr >> s;
        let channel = (high % self.channels) as u32;
        let rest = ((high / self.channels) << s) | low;
        let sub = self.sub_gather.gather(rest) as u32;
        (
            channel * self.per_channel + sub,
            remove_bits(self.sub_mask, rest),
        )
    }

    /// The byte address whose slice is `slice` and whose address within
    /// the slice is `local` (the inverse of [`AddrMap::decode`]).
    pub fn compose(&self, slice: u32, local: u64) -> u64 {
        let channel = u64::from(slice / self.per_channel);
        let sub = u64::from(slice % self.per_channel);
        let rest = insert_bits(self.sub_mask, local, sub);
        let s = self.channel_bit;
        let low = rest & ((1u64 << s) - 1);
        ((((rest >> s) * self.channels) + channel) << s) | low
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gtx480() -> AddrMap {
        AddrMap::new(&GpuConfig::gtx480())
    }

    /// Hand-decoded against `dramid@8;…0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS`
    /// with 6 channels and 2 sub-partitions.
    #[test]
    fn gtx480_mapping_matches_hand_decoding() {
        let m = gtx480();
        // 0: everything zero.
        let l = m.decode(0);
        assert_eq!((l.channel, l.slice, l.bank, l.row, l.col), (0, 0, 0, 0, 0));
        // 256-byte chunks go round the 6 channels.
        for c in 0..6u64 {
            let l = m.decode(c * 256 + 0x80);
            assert_eq!(l.channel, c as u32);
            assert_eq!(l.slice, 2 * c as u32);
            assert_eq!(l.bank, 0);
            // Byte 0x80: S bits 0-5 are 0, C bits 6-7 = 0b10.
            assert_eq!(l.col, 0x80);
        }
        // The 7th chunk is channel 0 again, rest = 0x100: bank bit 0, slice 1.
        let l = m.decode(6 * 256);
        assert_eq!((l.channel, l.slice, l.bank, l.col), (0, 1, 1, 0));
        // rest = 0x0003_A200 on channel 5: addr = ((rest >> 8) * 6 + 5) << 8.
        // Bits: row = 0x3 (bits 16-17), bank = bit 8 (0) | bits 13-15
        // (0b101) << 1 = 10, column = bits 9-12 (0b0001) << 8 = 0x100.
        let rest: u64 = 0x0003_A200;
        let addr = (((rest >> 8) * 6 + 5) << 8) | (rest & 0xFF);
        let l = m.decode(addr);
        assert_eq!(l.channel, 5);
        assert_eq!(l.row, 3);
        assert_eq!(l.bank, 10);
        assert_eq!(l.slice, 10); // channel 5, sub-partition = bank bit 0 = 0
        assert_eq!(l.col, 0x100);
        // The slice's address drops bit 8: 0x3A200 -> 0x1D100 | 0x00.
        assert_eq!(l.local, 0x1D100);
    }

    #[test]
    fn bank_row_agrees_with_decode() {
        for m in [gtx480(), AddrMap::new(&GpuConfig::tiny())] {
            let mut addr: u64 = 0x7_0000;
            for i in 0..5000u64 {
                addr = addr.wrapping_add(i * 0x9E37 + 0x20) & 0xFFFF_FFFF_FFE0;
                let l = m.decode(addr);
                assert_eq!(m.bank_row(addr), (l.bank, l.row), "{addr:#x}");
            }
        }
    }

    #[test]
    fn compose_inverts_decode() {
        let m = gtx480();
        let mut addr: u64 = 0x1000_0000;
        for i in 0..5000u64 {
            addr = addr.wrapping_add(i * 0x9E37 + 0x80) & 0xFFFF_FFFF_FF80;
            let l = m.decode(addr);
            assert_eq!(m.compose(l.slice, l.local), addr, "{addr:#x}");
        }
        let tiny = AddrMap::new(&GpuConfig::tiny());
        for addr in (0..1 << 20).step_by(128) {
            let l = tiny.decode(addr);
            assert_eq!(l.channel, 0);
            assert_eq!(l.slice, ((addr >> 8) & 1) as u32);
            assert_eq!(tiny.compose(l.slice, l.local), addr);
        }
    }

    #[test]
    fn bit_gather_agrees_with_pack_bits() {
        // Masks of one to many runs (0x5555… has 32: the fallback).
        let masks = [
            0u64,
            0xE100,
            0x0FFF_0000,
            0x1EFF,
            0x8000_0000_0000_0001,
            u64::MAX,
            0x5555_5555_5555_5555,
            0xF0F0_F00F,
            0x00F0_F0F0_F00F,
        ];
        let mut v = 0x9E37_79B9_7F4A_7C15u64;
        for &m in &masks {
            let g = BitGather::new(m);
            for _ in 0..64 {
                v = v.rotate_left(7).wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x1234_5678;
                assert_eq!(g.gather(v), pack_bits(m, v), "mask {m:#x} value {v:#x}");
            }
        }
    }

    #[test]
    fn pack_and_deposit_are_inverse() {
        assert_eq!(pack_bits(0xE100, 0xA100), 0b1011);
        assert_eq!(deposit_bits(0xE100, 0b1011), 0xA100);
        assert_eq!(pack_bits(0, 0xFFFF), 0);
    }

    #[test]
    fn bit_removal_and_insertion_invert_each_other() {
        for (mask, value) in [
            (0x100u64, 0x1234_5678u64),
            (0xE100, 0xFFFF_FFFF),
            (0x6, 0x5),
            (0, 77),
        ] {
            let removed = remove_bits(mask, value);
            assert_eq!(removed, pack_bits(!mask, value), "{mask:#x} {value:#x}");
            let back = insert_bits(mask, removed, pack_bits(mask, value));
            assert_eq!(back, value, "{mask:#x} {value:#x}");
        }
        let m = gtx480();
        for addr in [0u64, 0x80, 0x1234_5600, 0x00de_adbe_ef00] {
            let l = m.decode(addr);
            assert_eq!(m.slice_local(addr), (l.slice, l.local));
        }
    }
}
