//! `storegpu`: StoreGPU's direct hashing (`kernels/blws/storegpu.ptx`,
//! `md5Chunks`; BLWS Table 3 "StoreGPU", ISPASS 2009 "STO"). The input
//! buffer is cut into `chunks` chunks of `chunk_bytes` bytes and one thread
//! computes the MD5 digest of one chunk, staging two 64-byte blocks at a
//! time in shared memory (16 KB per CTA of 128 threads, 4 warps); loads
//! are strided by the chunk size (uncoalesced, as in StoreGPU).
//!
//! Input ([`input`]): random bytes. Check: `d_Hashes` (four little-endian
//! words per chunk: the digest's 16 bytes in order) exactly against
//! [`md5`] of every chunk, an independent RFC 1321 implementation.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Threads per CTA (the kernel's `THREADS`).
pub const THREADS: u32 = 128;

/// The `storegpu` workload.
pub struct StoreGpu {
    chunks: u32,
    chunk_bytes: u32,
    seed: u64,
}

impl StoreGpu {
    /// Reads `chunks` (default 49152 = 384 CTAs of 128), `chunk_bytes`
    /// (244 = 4 · 64 − 12, StoreGPU's sizes; a multiple of 4) and `seed`
    /// (1). The input must stay below 1 GiB. One thread per chunk: the
    /// manifest gives no `grid`/`block`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<StoreGpu, WorkloadError> {
        let w = StoreGpu {
            chunks: args.count("chunks", 384 * THREADS)?,
            chunk_bytes: args.count("chunk_bytes", 244)?,
            seed: args.u64("seed", 1)?,
        };
        if !w.chunk_bytes.is_multiple_of(4) {
            return Err(WorkloadError::Args(format!(
                "`chunk_bytes` = {} must be a multiple of 4 (the kernel reads words)",
                w.chunk_bytes
            )));
        }
        if u64::from(w.chunks) * u64::from(w.chunk_bytes) > 1 << 30 {
            return Err(WorkloadError::Args(format!(
                "`chunks` × `chunk_bytes` = {} × {} must be at most 1 GiB",
                w.chunks, w.chunk_bytes
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "storegpu uses one thread per chunk (CTAs of 128 threads): remove `grid`/`block`"
                    .into(),
            ));
        }
        Ok(w)
    }
}

/// `words` random little-endian words (the buffer to hash).
pub fn input(words: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(stream_seed(seed, 0));
    (0..words).map(|_| rng.next_u32()).collect()
}

/// The MD5 digest (RFC 1321) of `msg`, as four little-endian words.
pub fn md5(msg: &[u8]) -> [u32; 4] {
    const S: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
    // RFC 1321's table: K[i] = floor(2^32 · |sin(i + 1)|).
    const K: [u32; 64] = [
        0xd76a_a478,
        0xe8c7_b756,
        0x2420_70db,
        0xc1bd_ceee,
        0xf57c_0faf,
        0x4787_c62a,
        0xa830_4613,
        0xfd46_9501,
        0x6980_98d8,
        0x8b44_f7af,
        0xffff_5bb1,
        0x895c_d7be,
        0x6b90_1122,
        0xfd98_7193,
        0xa679_438e,
        0x49b4_0821,
        0xf61e_2562,
        0xc040_b340,
        0x265e_5a51,
        0xe9b6_c7aa,
        0xd62f_105d,
        0x0244_1453,
        0xd8a1_e681,
        0xe7d3_fbc8,
        0x21e1_cde6,
        0xc337_07d6,
        0xf4d5_0d87,
        0x455a_14ed,
        0xa9e3_e905,
        0xfcef_a3f8,
        0x676f_02d9,
        0x8d2a_4c8a,
        0xfffa_3942,
        0x8771_f681,
        0x6d9d_6122,
        0xfde5_380c,
        0xa4be_ea44,
        0x4bde_cfa9,
        0xf6bb_4b60,
        0xbebf_bc70,
        0x289b_7ec6,
        0xeaa1_27fa,
        0xd4ef_3085,
        0x0488_1d05,
        0xd9d4_d039,
        0xe6db_99e5,
        0x1fa2_7cf8,
        0xc4ac_5665,
        0xf429_2244,
        0x432a_ff97,
        0xab94_23a7,
        0xfc93_a039,
        0x655b_59c3,
        0x8f0c_cc92,
        0xffef_f47d,
        0x8584_5dd1,
        0x6fa8_7e4f,
        0xfe2c_e6e0,
        0xa301_4314,
        0x4e08_11a1,
        0xf753_7e82,
        0xbd3a_f235,
        0x2ad7_d2bb,
        0xeb86_d391,
    ];
    let mut data = msg.to_vec();
    data.push(0x80);
    while data.len() % 64 != 56 {
        data.push(0);
    }
    data.extend_from_slice(&((msg.len() as u64).wrapping_mul(8)).to_le_bytes());
    let mut h = [0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    for block in data.chunks_exact(64) {
        let x: Vec<u32> = block
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let [mut a, mut b, mut c, mut d] = h;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((b & d) | (c & !d), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let s = S[(i / 16) * 4 + i % 4];
            let t = a.wrapping_add(f).wrapping_add(x[g]).wrapping_add(K[i]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(t.rotate_left(s));
        }
        h = [
            h[0].wrapping_add(a),
            h[1].wrapping_add(b),
            h[2].wrapping_add(c),
            h[3].wrapping_add(d),
        ];
    }
    h
}

/// The digests of the `chunk_words`-word chunks of `data`, concatenated.
pub fn reference(data: &[u32], chunk_words: usize) -> Vec<u32> {
    data.chunks(chunk_words)
        .flat_map(|c| {
            let bytes: Vec<u8> = c.iter().flat_map(|w| w.to_le_bytes()).collect();
            md5(&bytes)
        })
        .collect()
}

impl Workload for StoreGpu {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let chunk_words = (self.chunk_bytes / 4) as usize;
        let n = self.chunks as usize;
        let data = input(n * chunk_words, self.seed);
        let dinput = upload(host, "d_Input", &data)?;
        let dhashes = upload(host, "d_Hashes", &vec![0u32; 4 * n])?;
        host.launch(
            None,
            [self.chunks.div_ceil(THREADS), 1, 1],
            [THREADS, 1, 1],
            &[
                ArgValue::U64(dinput),
                ArgValue::U32(chunk_words as u32),
                ArgValue::U32(self.chunks),
                ArgValue::U64(dhashes),
            ],
        )?;
        let got: Vec<u32> = download(host, dhashes, 4 * n)?;
        Ok(check::exact(
            "d_Hashes",
            &reference(&data, chunk_words),
            &got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(h: [u32; 4]) -> String {
        h.iter()
            .flat_map(|w| w.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn md5_matches_the_rfc_1321_test_suite() {
        // RFC 1321, appendix A.5.
        assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(md5(b"a")), "0cc175b9c0f1b6a831c399e269772661");
        assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(md5(b"message digest")),
            "f96b697d7cb7938d525a2f31aaf161d0"
        );
        assert_eq!(
            hex(md5(b"abcdefghijklmnopqrstuvwxyz")),
            "c3fcd3d76192e4007dfb496cca67e13b"
        );
        assert_eq!(
            hex(md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    #[test]
    fn chunks_are_hashed_separately() {
        // "abc" + padding to a word is not "abc": the chunk's bytes are hashed as they are.
        let data = [u32::from_le_bytes(*b"abcd"), u32::from_le_bytes(*b"efgh")];
        let r = reference(&data, 1);
        assert_eq!(hex([r[0], r[1], r[2], r[3]]), hex(md5(b"abcd")));
        assert_eq!(hex([r[4], r[5], r[6], r[7]]), hex(md5(b"efgh")));
    }
}
