//! `backprop`: one training pass of Rodinia's back-propagation network
//! (`kernels/rodinia/backprop.ptx`), with Rodinia's host code
//! `bpnn_train_cuda` around the two kernels:
//!
//! 1. `bpnn_layerforward_CUDA` (grid 1 x in/16, 16 x 16 CTAs): per-CTA
//!    column sums of `input * weight` into `hidden_partial_sum`;
//! 2. host: hidden unit `j` = `1 / (1 + exp(-(sum of its partial sums +
//!    bias weight)))`, the output layer (one unit), the output and hidden
//!    deltas (Rodinia's `bpnn_layerforward`, `bpnn_output_error`,
//!    `bpnn_hidden_error`);
//! 3. the input weights are uploaded again (the forward kernel overwrote
//!    them with its reduction tree, as in Rodinia) with the previous
//!    changes, then `bpnn_adjust_weights_cuda` (same shape).
//!
//! Input ([`input`]): `in` input units and all weights uniform in [0, 1)
//! as Rodinia's `drnd`; the previous weight changes uniform in
//! [-0.05, 0.05] (Rodinia starts them at zero, which would leave the
//! momentum term untested); target 0.1. Hidden layer: 16 units (the
//! kernels' `WIDTH`). Check: `hidden_partial_sum`, the adjusted weights
//! `input_hidden_cuda` and the changes `input_prev_weights_cuda` exactly
//! against [`reference`] (the kernels' operations in nvcc's order; the host
//! step in between is the same function for both sides, so it sees the
//! same partial sums when the kernel is right).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate};

/// Hidden units (the kernels' `WIDTH` = `HEIGHT` = 16).
const HID: usize = 16;
/// Output units (Rodinia's 1).
const OUT: usize = 1;
/// Learning rate and momentum (Rodinia's `ETA`, `MOMENTUM`; doubles).
const ETA: f64 = 0.3;
const MOMENTUM: f64 = 0.3;

/// The `backprop` workload.
pub struct Backprop {
    input_n: u32,
    seed: u64,
}

impl Backprop {
    /// Reads `in` (input units, default 4096, a multiple of 16) and `seed`
    /// (1). The launch shape is Rodinia's (grid `[1, in/16, 1]`, block
    /// `[16, 16, 1]`); the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Backprop, WorkloadError> {
        let w = Backprop {
            input_n: args.count("in", 4096)?,
            seed: args.u64("seed", 1)?,
        };
        if !w.input_n.is_multiple_of(16) {
            return Err(WorkloadError::Args(format!(
                "`in` = {} must be a multiple of 16 (one 16 x 16 CTA per 16 input units)",
                w.input_n
            )));
        }
        int_arg("(in + 1) * 17", (u64::from(w.input_n) + 1) * 17)?;
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "backprop uses Rodinia's launch shape (grid [1, in/16, 1], block [16, 16, 1]): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// The network's starting state.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// `in + 1` input units (index 0 is the bias unit, 1.0).
    pub input: Vec<f32>,
    /// `(in + 1) x (HID + 1)` input-to-hidden weights, row-major.
    pub w: Vec<f32>,
    /// Their previous changes, same shape.
    pub oldw: Vec<f32>,
    /// `(HID + 1) x (OUT + 1)` hidden-to-output weights.
    pub who: Vec<f32>,
}

/// A network with `n` input units: streams 0..=3 of `seed`.
pub fn input(n: usize, seed: u64) -> Net {
    let s = |k| generate::stream_seed(seed, k);
    let mut input = generate::uniform_f32(n + 1, 0.0, 1.0, s(0));
    input[0] = 1.0;
    let unit = |len, k| {
        let mut r = generate::Rng::new(s(k));
        (0..len).map(|_| r.unit_f32()).collect::<Vec<f32>>()
    };
    Net {
        input,
        w: unit((n + 1) * (HID + 1), 1),
        oldw: generate::uniform_f32((n + 1) * (HID + 1), -0.05, 0.05, s(2)),
        who: unit((HID + 1) * (OUT + 1), 3),
    }
}

/// `bpnn_layerforward_CUDA`'s `hidden_partial_sum`: for CTA `by` and
/// hidden unit `j`, the 16 products `w[k][j + 1] * input[k]` for `k = 16 by
/// + r + 1`, summed by the kernel's tree (`v[r] += v[r + p/2]` for
/// `p` = 2, 4, 8, 16). Exact.
pub fn partial_sums(net: &Net) -> Vec<f32> {
    let blocks = (net.input.len() - 1) / 16;
    let mut out = vec![0.0f32; blocks * HID];
    for by in 0..blocks {
        for j in 0..HID {
            let mut v: Vec<f32> = (0..16)
                .map(|r| {
                    let k = 16 * by + r + 1;
                    net.w[k * (HID + 1) + j + 1] * net.input[k]
                })
                .collect();
            for p in [2usize, 4, 8, 16] {
                for r in (0..16).step_by(p) {
                    v[r] += v[r + p / 2];
                }
            }
            out[by * HID + j] = v[0];
        }
    }
    out
}

fn squash(x: f32) -> f32 {
    (1.0 / (1.0 + (-f64::from(x)).exp())) as f32
}

/// Rodinia's host step between the kernels: hidden units from the partial
/// sums, the output layer, and the hidden deltas `hidden_delta[1..=HID]`
/// (index 0 unused, 0). Float accumulations as in Rodinia's C.
pub fn hidden_delta(net: &Net, partial: &[f32]) -> Vec<f32> {
    let blocks = partial.len() / HID;
    let mut hidden = [1.0f32; HID + 1];
    for j in 1..=HID {
        let mut sum = 0.0f32;
        for k in 0..blocks {
            sum += partial[k * HID + j - 1];
        }
        sum += net.w[j];
        hidden[j] = squash(sum);
    }
    let mut output = [0.0f32; OUT + 1];
    for (j, o) in output.iter_mut().enumerate().skip(1) {
        let mut sum = 0.0f32;
        for (k, h) in hidden.iter().enumerate() {
            sum += net.who[k * (OUT + 1) + j] * h;
        }
        *o = squash(sum);
    }
    let target = 0.1f32;
    let delta_o: Vec<f32> = output
        .iter()
        .map(|&o| o * (1.0 - o) * (target - o))
        .collect();
    let mut delta_h = vec![0.0f32; HID + 1];
    for j in 1..=HID {
        let mut sum = 0.0f32;
        for (k, d) in delta_o.iter().enumerate().skip(1) {
            sum += d * net.who[j * (OUT + 1) + k];
        }
        delta_h[j] = hidden[j] * (1.0 - hidden[j]) * sum;
    }
    delta_h
}

/// `bpnn_adjust_weights_cuda`: returns the new `(w, oldw)`. Each change is
/// `fma(ETA * delta, x, MOMENTUM * oldw)` in f64 (`x` = 1 for the bias row
/// 0), `w` gets `(f32)(change + w)`, `oldw` gets `(f32)change`. Exact.
pub fn adjust(net: &Net, delta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut w, mut oldw) = (net.w.clone(), net.oldw.clone());
    for k in 0..net.input.len() {
        for (j, &dj) in delta.iter().enumerate().take(HID + 1).skip(1) {
            let i = k * (HID + 1) + j;
            let old = f64::from(net.oldw[i]) * MOMENTUM;
            let change = if k == 0 {
                f64::from(dj).mul_add(ETA, old)
            } else {
                (f64::from(dj) * ETA).mul_add(f64::from(net.input[k]), old)
            };
            w[i] = (change + f64::from(net.w[i])) as f32;
            oldw[i] = change as f32;
        }
    }
    (w, oldw)
}

/// The whole pass: `(hidden_partial_sum, w, oldw)`.
pub fn reference(net: &Net) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let partial = partial_sums(net);
    let (w, oldw) = adjust(net, &hidden_delta(net, &partial));
    (partial, w, oldw)
}

impl Workload for Backprop {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.input_n as usize;
        let net = input(n, self.seed);
        let blocks = self.input_n / 16;
        let grid = [1, blocks, 1];
        let block = [16, 16, 1];
        let din = upload(host, "input_cuda", &net.input)?;
        let dout = upload(host, "output_hidden_cuda", &[0.0f32; HID + 1])?;
        let dw = upload(host, "input_hidden_cuda", &net.w)?;
        let dpartial = upload(
            host,
            "hidden_partial_sum",
            &vec![f32::NAN; blocks as usize * HID],
        )?;
        let (inn, hid) = (ArgValue::S32(n as i32), ArgValue::S32(HID as i32));
        host.launch(
            Some("bpnn_layerforward_CUDA"),
            grid,
            block,
            &[
                ArgValue::U64(din),
                ArgValue::U64(dout),
                ArgValue::U64(dw),
                ArgValue::U64(dpartial),
                inn,
                hid,
            ],
        )?;
        let partial: Vec<f32> = download(host, dpartial, blocks as usize * HID)?;
        let delta = hidden_delta(&net, &partial);
        let ddelta = upload(host, "hidden_delta_cuda", &delta)?;
        let doldw = upload(host, "input_prev_weights_cuda", &net.oldw)?;
        crate::workload::host::overwrite(host, dw, &net.w)?;
        host.launch(
            Some("bpnn_adjust_weights_cuda"),
            grid,
            block,
            &[
                ArgValue::U64(ddelta),
                hid,
                ArgValue::U64(din),
                inn,
                ArgValue::U64(dw),
                ArgValue::U64(doldw),
            ],
        )?;
        let got_w: Vec<f32> = download(host, dw, net.w.len())?;
        let got_oldw: Vec<f32> = download(host, doldw, net.oldw.len())?;
        let (want_p, want_w, want_oldw) = reference(&net);
        Ok(Check::all([
            check::exact("hidden_partial_sum", &want_p, &partial),
            check::exact("input_hidden_cuda", &want_w, &got_w),
            check::exact("input_prev_weights_cuda", &want_oldw, &got_oldw),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_sums_of_ones_count_the_rows() {
        let n = 32;
        let net = Net {
            input: vec![1.0; n + 1],
            w: vec![1.0; (n + 1) * (HID + 1)],
            oldw: vec![0.0; (n + 1) * (HID + 1)],
            who: vec![0.0; (HID + 1) * (OUT + 1)],
        };
        assert_eq!(partial_sums(&net), vec![16.0; 2 * HID]);
        // delta 0: only the momentum term, which is 0: nothing moves.
        let (w, oldw) = adjust(&net, &[0.0; HID + 1]);
        assert_eq!((w, oldw), (net.w.clone(), net.oldw.clone()));
    }
}
