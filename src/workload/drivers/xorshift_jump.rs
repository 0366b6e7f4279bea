//! The random number generator of the Monte Carlo kernels
//! (`kernels/lfws/xorshift_jump.cuh`, used by [`super::estimate_pi`] and
//! [`super::asian_option`]): Marsaglia's xorshift128, with per-thread
//! subsequences reached by skip-ahead as cuRAND's `curand_init` does.
//! Thread `tid` starts from the seed state advanced by `tid * 2^64` steps:
//! for every set bit `b` of `tid` the state is multiplied (over GF(2)) by
//! the jump matrix `J_b = A^(2^(64 + b))`, `A` being one step. The host
//! builds the matrices ([`jump_matrices`]), uploads them, and the kernel
//! `initRNG` performs the products, reading the matrices' columns from
//! global memory.

use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, upload};

/// A generator state `(x, y, z, w)`.
pub type State = [u32; 4];

/// A 128 × 128 bit matrix as 128 columns: column `c` is the image of
/// state bit `c` (word `c / 32`, bit `c % 32`).
pub type Matrix = Vec<State>;

/// Words of one matrix in the kernel's layout (128 columns of 4 words).
pub const MATRIX_WORDS: usize = 128 * 4;

/// The jump distance between consecutive threads' subsequences, log2.
pub const JUMP_LOG2: u32 = 64;

/// Advances `s` one step and returns the new `w` (the kernel's `xs128_next`).
pub fn next(s: &mut State) -> u32 {
    let t = s[0] ^ (s[0] << 11);
    s[0] = s[1];
    s[1] = s[2];
    s[2] = s[3];
    s[3] = s[3] ^ (s[3] >> 19) ^ t ^ (t >> 8);
    s[3]
}

/// A uniform float in (0, 1] as the kernel makes it: `cvt.rn.f32.u32` of
/// the top 24 bits plus one, times 2^-24.
pub fn uniform(s: &mut State) -> f32 {
    ((next(s) >> 8) + 1) as f32 * f32::from_bits(0x3380_0000)
}

/// `m s`: the XOR of the columns of `m` at the set bits of `s`.
pub fn apply(m: &[State], s: &State) -> State {
    let mut r = [0u32; 4];
    for (c, col) in m.iter().enumerate() {
        if (s[c / 32] >> (c % 32)) & 1 == 1 {
            for k in 0..4 {
                r[k] ^= col[k];
            }
        }
    }
    r
}

/// `m * m`.
fn square(m: &[State]) -> Matrix {
    m.iter().map(|col| apply(m, col)).collect()
}

/// `A^(2^k)`: one step's matrix squared `k` times.
pub fn step_power_of_two(k: u32) -> Matrix {
    let mut m: Matrix = (0..128)
        .map(|c| {
            let mut s = [0u32; 4];
            s[c / 32] = 1 << (c % 32);
            next(&mut s);
            s
        })
        .collect();
    for _ in 0..k {
        m = square(&m);
    }
    m
}

/// The `count` jump matrices `J_b = A^(2^(64 + b))` in the kernel's
/// layout, `MATRIX_WORDS` words each.
pub fn jump_matrices(count: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(count as usize * MATRIX_WORDS);
    let mut m = step_power_of_two(JUMP_LOG2);
    for b in 0..count {
        if b > 0 {
            m = square(&m);
        }
        out.extend(m.iter().flatten());
    }
    out
}

/// Jump matrices needed for thread numbers below `threads`.
pub fn jump_count(threads: u32) -> u32 {
    32 - threads.saturating_sub(1).leading_zeros()
}

/// The seed state: four words from `seed` (never all zero, a fixed point).
pub fn seed_state(seed: u64) -> State {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let mut s = [
        rng.next_u32(),
        rng.next_u32(),
        rng.next_u32(),
        rng.next_u32(),
    ];
    if s == [0; 4] {
        s[3] = 1;
    }
    s
}

/// Every thread's start state, as `initRNG` computes it.
pub fn thread_states(seed: State, jumps: &[u32], threads: u32) -> Vec<State> {
    let mats: Vec<Matrix> = jumps
        .chunks_exact(MATRIX_WORDS)
        .map(|m| {
            m.chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect()
        })
        .collect();
    (0..threads)
        .map(|tid| {
            let mut s = seed;
            for (b, m) in mats.iter().enumerate() {
                if (tid >> b) & 1 == 1 {
                    s = apply(m, &s);
                }
            }
            s
        })
        .collect()
}

/// Uploads the jump matrices (`d_jumps`) and an uninitialised state array
/// (`d_states`, one 16-byte state per thread), launches `initRNG` on
/// `grid` CTAs of `block` threads, and returns the states' address and
/// the states the CPU expects there.
pub fn init_rng(
    host: &mut dyn Host,
    grid: u32,
    block: u32,
    seed: u64,
) -> Result<(u64, Vec<State>), WorkloadError> {
    let threads = grid * block;
    let count = jump_count(threads);
    let jumps = jump_matrices(count);
    // An empty buffer still needs an address: give it one matrix's room.
    let djumps = if jumps.is_empty() {
        upload(host, "d_jumps", &[0u32; MATRIX_WORDS])?
    } else {
        upload(host, "d_jumps", &jumps)?
    };
    let dstates = upload(host, "d_states", &vec![0u32; 4 * threads as usize])?;
    let s = seed_state(seed);
    host.launch(
        Some("initRNG"),
        [grid, 1, 1],
        [block, 1, 1],
        &[
            ArgValue::U64(dstates),
            ArgValue::U64(djumps),
            ArgValue::S32(count as i32),
            ArgValue::U32(s[0]),
            ArgValue::U32(s[1]),
            ArgValue::U32(s[2]),
            ArgValue::U32(s[3]),
        ],
    )?;
    Ok((dstates, thread_states(s, &jumps, threads)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_matrix_equals_stepping() {
        // A^(2^5) applied to a state = 32 steps.
        let m = step_power_of_two(5);
        let start = [0x1234_5678, 0x9abc_def0, 0x0f0f_0f0f, 0xdead_beef];
        let mut s = start;
        for _ in 0..32 {
            next(&mut s);
        }
        assert_eq!(apply(&m, &start), s);
        // Marsaglia's published first output for his default seed
        // (123456789, 362436069, 521288629, 88675123).
        let mut m0 = [123_456_789, 362_436_069, 521_288_629, 88_675_123];
        assert_eq!(next(&mut m0), 3_701_687_786);
    }

    #[test]
    fn thread_states_are_jumps_of_the_seed() {
        // With J_b = A^(2^(64+b)), thread 3's state is J_1 J_0 seed, and
        // thread 2's is J_1 seed; J_1 = J_0^2.
        let jumps = jump_matrices(2);
        let seed = seed_state(7);
        let st = thread_states(seed, &jumps, 4);
        assert_eq!(st[0], seed);
        let j0: Matrix = jumps[..MATRIX_WORDS]
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        assert_eq!(st[1], apply(&j0, &seed));
        assert_eq!(st[2], apply(&j0, &apply(&j0, &seed)));
        assert_eq!(st[3], apply(&j0, &st[2]));
        assert_eq!(jump_count(1), 0);
        assert_eq!(jump_count(2), 1);
        assert_eq!(jump_count(256), 8);
        assert_eq!(jump_count(257), 9);
    }

    #[test]
    fn uniform_is_in_the_half_open_unit_interval() {
        // x = 0 and w = 0x80: the next w is 0x80, whose top 24 bits are 0.
        let mut lo = [0, 0, 0, 0x80];
        assert_eq!(uniform(&mut lo), f32::from_bits(0x3380_0000)); // 2^-24
        assert_eq!(
            ((u32::MAX >> 8) + 1) as f32 * f32::from_bits(0x3380_0000),
            1.0
        );
    }
}
