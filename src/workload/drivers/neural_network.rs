//! `neural_network`: the first two layers of a convolutional network for
//! digit recognition (`kernels/ispass/neural_network.ptx`,
//! `executeFirstLayer` and `executeSecondLayer`; ISPASS-2009 "NN", LFWS
//! Table 2 "NN", after Mike O'Neill's network). Layer 1: a (6, images) grid
//! of 13 x 13 CTAs (6 warps), one per feature map and image, each thread a
//! 5 x 5 stride-2 window of the 29 x 29 image; layer 2: a (50, images) grid
//! of 5 x 5 CTAs (1 warp), each thread 6 such windows of the 13 x 13 maps.
//! Every sum goes through `1.7159 * tanhf(2/3 * sum)`. The LFWS paper
//! measures only these two kernels (the other two run one-thread CTAs).
//!
//! Input ([`input`]): `images` images of 28 x 28 bytes, 3/4 of them 0 (the
//! paper) and the rest uniform, framed in 29 x 29 as the original does and
//! mapped to `1 - byte / 256`; weights uniform in [-0.2, 0.2). Check: both
//! layers' outputs (`Layer2_Neurons`, `Layer3_Neurons`) exactly against
//! [`reference`], which does the kernels' f32 `fma` chains in their order
//! and nvcc's `tanhf` instruction by instruction ([`tanhf_nvcc`]: its
//! `ex2.approx.ftz` and `rcp.approx.ftz` are the simulator's: Rust's
//! `exp2` and a correctly rounded reciprocal).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Input image edge (28 x 28 pixels framed in 29 x 29).
pub const IMAGE: usize = 29;
/// Layer-1 feature maps per image (13 x 13 each).
pub const MAPS1: usize = 6;
/// Layer-2 feature maps per image (5 x 5 each).
pub const MAPS2: usize = 50;
/// Floats per image in layer 1's output (6 x 13 x 13).
pub const LAYER2_PER_IMAGE: usize = MAPS1 * 13 * 13;
/// Floats per image in layer 2's output (50 x 5 x 5).
pub const LAYER3_PER_IMAGE: usize = MAPS2 * 5 * 5;
/// Layer-1 weights: per map a bias and 25.
pub const WEIGHTS1: usize = MAPS1 * 26;
/// Layer-2 weights: per map a bias and 25 x 6.
pub const WEIGHTS2: usize = MAPS2 * 26 * 6;

/// Most images (the grid's y extent stays far below CUDA's 65535).
const MAX_IMAGES: u32 = 60000;

/// The `neural_network` workload.
pub struct NeuralNetwork {
    images: u32,
    seed: u64,
}

impl NeuralNetwork {
    /// Reads `images` (default 28, the paper's input; at most 60000) and
    /// `seed` (1). The launch shapes are the kernels' ((6, images) x
    /// (13, 13) and (50, images) x (5, 5)); the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<NeuralNetwork, WorkloadError> {
        let w = NeuralNetwork {
            images: args.count("images", 28)?,
            seed: args.u64("seed", 1)?,
        };
        if w.images > MAX_IMAGES {
            return Err(WorkloadError::Args(format!(
                "`images` = {} must be at most {MAX_IMAGES}",
                w.images
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "neural_network uses the kernels' launch shapes ((6, images) CTAs of 13 x 13, then (50, images) of 5 x 5): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// The network's input: layer-1 neurons (`images` x 29 x 29) and the two
/// layers' weights.
pub struct Input {
    /// Layer-1 neurons, 29 x 29 per image.
    pub neurons: Vec<f32>,
    /// Layer-1 weights (6 x 26).
    pub weights1: Vec<f32>,
    /// Layer-2 weights (50 x 156).
    pub weights2: Vec<f32>,
}

/// Seeded images and weights (see the module documentation).
pub fn input(images: usize, seed: u64) -> Input {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let mut neurons = Vec::with_capacity(images * IMAGE * IMAGE);
    for _ in 0..images {
        for row in 0..IMAGE {
            for col in 0..IMAGE {
                let byte = if row == IMAGE - 1 || col == IMAGE - 1 || rng.below(4) != 0 {
                    0
                } else {
                    rng.below(256)
                };
                neurons.push(1.0 - byte as f32 / 256.0);
            }
        }
    }
    let mut w = Rng::new(stream_seed(seed, 1));
    let weights1 = (0..WEIGHTS1).map(|_| w.range_f32(-0.2, 0.2)).collect();
    let weights2 = (0..WEIGHTS2).map(|_| w.range_f32(-0.2, 0.2)).collect();
    Input {
        neurons,
        weights1,
        weights2,
    }
}

/// Flushes a subnormal to a zero of its sign (`.ftz`).
fn ftz(v: f32) -> f32 {
    if v.is_subnormal() {
        0.0f32.copysign(v)
    } else {
        v
    }
}

/// `tanhf` as nvcc 13.5 inlines it (sm_75, `-O3`), step by step: for
/// |x| >= 0.6, `1 - 2 / (2^(2|x| log2 e) + 1)` with the sign of x (1 from
/// |x| >= 4.5); below, an odd polynomial.
pub fn tanhf_nvcc(x: f32) -> f32 {
    let a = x.abs();
    let e = ftz(ftz(a * f32::from_bits(0x4038_AA3B)).exp2());
    let r = ftz(1.0 / ftz(e + 1.0));
    let big = if a >= f32::from_bits(0x4110_2CB4) {
        1.0
    } else {
        r.mul_add(-2.0, 1.0)
    };
    let big = big.copysign(x);
    let x2 = x * x;
    let p = f32::from_bits(0x3C80_F082).mul_add(x2, f32::from_bits(0xBD56_3CAE));
    let p = p.mul_add(x2, f32::from_bits(0x3E08_5941));
    let p = p.mul_add(x2, f32::from_bits(0xBEAA_A9ED));
    let p = p.mul_add(x2, 0.0);
    let small = p.mul_add(x, x);
    if a >= f32::from_bits(0x3F19_999A) {
        big
    } else {
        small
    }
}

/// The kernels' activation: `1.7159 * tanhf(0.66666667 * sum)`.
fn activation(sum: f32) -> f32 {
    tanhf_nvcc(0.666_666_7 * sum) * 1.7159
}

/// Layer 1's window offsets (the kernel's `kernelTemplate`).
fn template(edge: usize) -> [usize; 25] {
    std::array::from_fn(|i| (i / 5) * edge + i % 5)
}

/// Both layers' outputs as the kernels compute them: (layer-2 neurons,
/// layer-3 neurons).
pub fn reference(inp: &Input, images: usize) -> (Vec<f32>, Vec<f32>) {
    let (t1, t2) = (template(IMAGE), template(13));
    let mut l2 = Vec::with_capacity(images * LAYER2_PER_IMAGE);
    for img in 0..images {
        let image = &inp.neurons[img * IMAGE * IMAGE..(img + 1) * IMAGE * IMAGE];
        for map in 0..MAPS1 {
            let w = &inp.weights1[map * 26..(map + 1) * 26];
            for y in 0..13 {
                for x in 0..13 {
                    let window = 2 * y * IMAGE + 2 * x;
                    let mut sum = w[0];
                    for i in 0..25 {
                        sum = image[window + t1[i]].mul_add(w[1 + i], sum);
                    }
                    l2.push(activation(sum));
                }
            }
        }
    }
    let mut l3 = Vec::with_capacity(images * LAYER3_PER_IMAGE);
    for img in 0..images {
        let maps = &l2[img * LAYER2_PER_IMAGE..(img + 1) * LAYER2_PER_IMAGE];
        for map in 0..MAPS2 {
            let w = &inp.weights2[map * 156..(map + 1) * 156];
            for y in 0..5 {
                for x in 0..5 {
                    let window = 2 * y * 13 + 2 * x;
                    let mut sum = w[0];
                    for i in 0..25 {
                        let at = window + t2[i];
                        for k in 0..6 {
                            sum = maps[169 * k + at].mul_add(w[1 + 6 * i + k], sum);
                        }
                    }
                    l3.push(activation(sum));
                }
            }
        }
    }
    (l2, l3)
}

impl Workload for NeuralNetwork {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.images as usize;
        let inp = input(n, self.seed);
        let dn1 = upload(host, "Layer1_Neurons", &inp.neurons)?;
        let dw1 = upload(host, "Layer1_Weights", &inp.weights1)?;
        let dn2 = upload(
            host,
            "Layer2_Neurons",
            &vec![f32::NAN; n * LAYER2_PER_IMAGE],
        )?;
        let dw2 = upload(host, "Layer2_Weights", &inp.weights2)?;
        let dn3 = upload(
            host,
            "Layer3_Neurons",
            &vec![f32::NAN; n * LAYER3_PER_IMAGE],
        )?;
        host.launch(
            Some("executeFirstLayer"),
            [MAPS1 as u32, self.images, 1],
            [13, 13, 1],
            &[ArgValue::U64(dn1), ArgValue::U64(dw1), ArgValue::U64(dn2)],
        )?;
        host.launch(
            Some("executeSecondLayer"),
            [MAPS2 as u32, self.images, 1],
            [5, 5, 1],
            &[ArgValue::U64(dn2), ArgValue::U64(dw2), ArgValue::U64(dn3)],
        )?;
        let got2: Vec<f32> = download(host, dn2, n * LAYER2_PER_IMAGE)?;
        let got3: Vec<f32> = download(host, dn3, n * LAYER3_PER_IMAGE)?;
        let (want2, want3) = reference(&inp, n);
        Ok(Check::all([
            check::exact("Layer2_Neurons", &want2, &got2),
            check::exact("Layer3_Neurons", &want3, &got3),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tanhf_follows_tanh_and_the_templates_are_the_kernels() {
        for x in [-6.0f32, -1.0, -0.3, 0.0, 0.1, 0.59, 0.61, 2.0, 5.0] {
            let (got, want) = (tanhf_nvcc(x), x.tanh());
            assert!(
                (got - want).abs() <= 2e-7 * want.abs().max(1e-3),
                "{x}: {got} vs {want}"
            );
        }
        assert_eq!(tanhf_nvcc(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(template(29)[5..10], [29, 30, 31, 32, 33]);
        assert_eq!(template(13)[24], 56);
        // One image of all-ones pixels: layer 1's sums are the bias plus the
        // sum of the map's weights (the last row and column are 1 - 0).
        let mut inp = input(1, 3);
        inp.neurons.iter_mut().for_each(|v| *v = 1.0);
        let (l2, _) = reference(&inp, 1);
        let w = &inp.weights1[26..52];
        let sum = w[1..].iter().fold(w[0], |s, &x| 1.0f32.mul_add(x, s));
        assert_eq!(l2[169 + 7], activation(sum));
    }
}
