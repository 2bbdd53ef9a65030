//! Elementwise kernels the CPU backend runs one scalar call at a time on one thread: the exact
//! GELU (`libm` `erf`, forward and backward) and dropout (one ChaCha draw and one sampler call per
//! element). On the CPU they run here instead, vectorisable and on every core, at inference and
//! under autodiff alike; on a GPU, burn's own ops. (A host softmax the same way was slower than
//! burn's: the copy of the `[batch, heads, seq, seq]` scores costs more than its `exp` saves; at
//! inference burn's fused attention op does the softmax instead.)

use burn::nn::Dropout;
use burn::tensor::activation;
use burn::tensor::{DType, Distribution, Tensor, TensorData};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Runs `work` on a thread of rayon's pool (inline when called from one), and waits for it.
///
/// A forward or training pass is hundreds of operations, most of them parallel loops (burn's
/// kernels, `gemm`'s, ours). Started from a thread outside the pool, each loop is handed to the
/// pool while the caller sleeps until it ends: a futex round trip per operation, with a core idle
/// meanwhile. Started from a worker, the worker takes its own share at once. The whole pass is
/// one hand-over instead: 10–20 % faster inference (docs/benchmarks.md, "Speed against PyTorch"). `work`
/// must not wait on other rayon tasks through anything but rayon itself (a channel, a lock held
/// across a parallel loop), which a tensor computation does not.
pub fn on_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| work())
}

/// Elements per parallel task: large enough to amortise scheduling, small enough to share.
const CHUNK: usize = 1 << 14;

/// The exact GELU, `x · Φ(x) = ½ x (1 + erf(x / √2))`, any shape.
///
/// On the CPU, `erf` is Abramowitz & Stegun's 7.1.26 (absolute error below 1.5e-7, the form
/// PyTorch's vectorised CPU GELU uses) over all cores. Under autodiff the same pass also writes
/// the derivative `Φ(x) + x φ(x)` (the `e^(−x²/2)` of `erf` serves `φ` too), and the result is
/// `(x − detach(x)) · gelu′(x) + gelu(x)`: exactly `gelu(x)` forward (the first term is 0), with
/// `gelu′(x)` as its gradient — burn's autodiff graph has no hook for a custom backward pass
/// without a backend of our own. On a GPU, or in half precision, burn's own `gelu`.
pub fn gelu<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    if x.dtype() != DType::F32 || !crate::device::is_cpu(&x.device()) {
        return activation::gelu(x);
    }
    let device = x.device();
    let shape = x.shape();
    let arch = pulp::Arch::new();
    if x.is_autodiff() {
        let mut values = host_values(x.clone().detach());
        let mut slopes = vec![0.0f32; values.len()];
        // pulp compiles the loops for the widest vector unit the CPU has (AVX-512, AVX2 + FMA…),
        // chosen at run time, so the binary stays portable.
        values
            .par_chunks_mut(CHUNK)
            .zip(slopes.par_chunks_mut(CHUNK))
            .for_each(|(chunk, slope)| arch.dispatch(|| gelu_and_slope_chunk(chunk, slope)));
        let value = Tensor::from_data(TensorData::new(values, shape.clone()), &device);
        let slope = Tensor::from_data(TensorData::new(slopes, shape), &device);
        return (x.clone() - x.detach()) * slope + value;
    }
    // `x` is moved, not cloned, so that its buffer is taken rather than copied when unshared.
    let mut values = host_values(x);
    values
        .par_chunks_mut(CHUNK)
        .for_each(|chunk| arch.dispatch(|| gelu_chunk(chunk)));
    Tensor::from_data(TensorData::new(values, shape), &device)
}

/// The exact GELU of `values` in place, on this thread (for kernels that write their own
/// outputs in parallel, such as [`crate::int8`]'s).
pub(crate) fn gelu_in_place(values: &mut [f32]) {
    pulp::Arch::new().dispatch(|| gelu_chunk(values));
}

/// Dropout as `burn::nn::Dropout::forward` (same module, probability and on/off rules: only
/// while training, under autodiff), its mask drawn on the host: ChaCha8 streams seeded by one
/// value drawn from the device's generator (so `Device::seed` governs it as before), one stream
/// per chunk of elements, so the mask does not depend on the thread count. The kept elements are
/// scaled by `1 / (1 − p)` in the same multiply. On a GPU, burn's own dropout.
pub fn dropout<const D: usize>(module: &Dropout, x: Tensor<D>) -> Tensor<D> {
    if !module.training.is_enabled() || !x.device().is_autodiff() || module.prob == 0.0 {
        return x;
    }
    if x.dtype() != DType::F32 || !crate::device::is_cpu(&x.device()) {
        return module.forward(x);
    }
    let device = x.device();
    let shape = x.shape();
    let keep = 1.0 - module.prob;
    let seed = draw_seed(&device);
    // Keep an element when its 32 random bits fall below keep · 2³².
    let threshold = (keep * 4_294_967_296.0).min(u32::MAX as f64) as u32;
    let scale = (1.0 / keep) as f32;
    let mut mask = vec![0.0f32; shape.num_elements()];
    mask.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(index, chunk)| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(index as u64);
            for value in chunk {
                *value = if rng.next_u32() < threshold {
                    scale
                } else {
                    0.0
                };
            }
        });
    x * Tensor::from_data(TensorData::new(mask, shape), &device)
}

/// 64 random bits from the device's own generator (two uniform draws of 24 bits each and their
/// bit patterns), so that seeding the device seeds the host masks too.
fn draw_seed(device: &burn::tensor::Device) -> u64 {
    let draws = host_values(Tensor::<1>::random([2], Distribution::Default, device));
    (u64::from(draws[0].to_bits()) << 32) | u64::from(draws[1].to_bits())
}

/// An f32 tensor of the CPU backend as its values (taking the buffer when the tensor is unshared).
pub(crate) fn host_values<const D: usize>(x: Tensor<D>) -> Vec<f32> {
    x.into_data()
        .try_into_vec::<f32>()
        .expect("an f32 tensor of the CPU backend reads back as f32 values")
}

#[inline(always)]
fn gelu_chunk(chunk: &mut [f32]) {
    chunk.iter_mut().for_each(|v| *v = gelu_scalar(*v));
}

#[inline(always)]
fn gelu_and_slope_chunk(values: &mut [f32], slopes: &mut [f32]) {
    values.iter_mut().zip(slopes).for_each(|(v, slope)| {
        let (value, derivative) = gelu_and_slope_scalar(*v);
        *v = value;
        *slope = derivative;
    });
}

/// `(gelu(x), gelu′(x))`: `Φ(x) = ½ (1 + erf(x / √2))`, `gelu′(x) = Φ(x) + x φ(x)` with
/// `φ(x) = e^(−x²/2) / √(2π)`, one exponential for both.
#[inline(always)]
fn gelu_and_slope_scalar(x: f32) -> (f32, f32) {
    const INV_SQRT_2PI: f32 = 0.398_942_3;
    let half_square = -0.5 * x * x;
    let gaussian = exp_non_positive(half_square);
    let cdf = 0.5 * (1.0 + erf_with_exp(x * std::f32::consts::FRAC_1_SQRT_2, gaussian));
    (x * cdf, cdf + x * INV_SQRT_2PI * gaussian)
}

#[inline(always)]
fn gelu_scalar(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf by Abramowitz & Stegun 7.1.26: `1 − (a₁t + … + a₅t⁵) e^(−x²)`, `t = 1 / (1 + p|x|)`,
/// branch-free so that loops over it vectorise.
#[inline(always)]
fn erf(x: f32) -> f32 {
    erf_with_exp(x, exp_non_positive(-x * x))
}

/// [`erf`] given `e^(−x²)`, for callers that need that exponential too.
#[inline(always)]
fn erf_with_exp(x: f32, exp_minus_square: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [
        0.254_829_6,
        -0.284_496_74,
        1.421_413_8,
        -1.453_152,
        1.061_405_4,
    ];
    let ax = x.abs();
    let t = 1.0 / (1.0 + P * ax);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    let magnitude = 1.0 - poly * exp_minus_square;
    magnitude.copysign(x)
}

/// `e^x` for `x ≤ 0` (relative error ~1e-7): `2^n · e^r` with `n = round(x / ln 2)`, `|r| ≤ ln 2 / 2`
/// and a degree-6 polynomial for `e^r`; branch-free. Below −87 it stays at e^−87 (~1.6e-38).
#[inline(always)]
fn exp_non_positive(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding and subtracting 1.5·2²³ rounds to the nearest integer in f32 arithmetic.
    const ROUND: f32 = 12_582_912.0;
    // A select, not `f32::max` (whose NaN rule keeps the loop from vectorising).
    let x = if x < -87.0 { -87.0 } else { x };
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // 2ⁿ from the integer n that the rounding left in `shifted`'s low mantissa bits
    // (`shifted` = 1.5·2²³ + n exactly, for −126 ≤ n ≤ 0): shifting its bits by 23 puts n in the
    // exponent field (the constant's own bits shift out), then the exponent bias. Integer
    // lane operations only: an `as i32` cast would be a saturating scalar conversion per lane.
    let scale = f32::from_bits((shifted.to_bits() << 23).wrapping_add(127 << 23));
    p * scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::Device;

    /// erf in f64 by its Maclaurin series, 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1)) (exact to ~1e-12
    /// for |x| ≤ 4; beyond, erf is ±1 in f32).
    fn erf_reference(x: f64) -> f64 {
        if x.abs() > 4.0 {
            return x.signum();
        }
        let mut sum = 0.0;
        let mut term = x;
        let mut n = 0.0;
        while n < 200.0 {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn erf_and_exp_are_accurate() {
        let mut worst_erf: f64 = 0.0;
        let mut worst_exp: f64 = 0.0;
        for i in -6000..=6000 {
            let x = i as f32 / 1000.0;
            worst_erf = worst_erf.max((erf(x) as f64 - erf_reference(x as f64)).abs());
            if x <= 0.0 {
                let exact = (x as f64).exp();
                worst_exp = worst_exp.max((exp_non_positive(x) as f64 - exact).abs() / exact);
            }
        }
        // 1.5e-7 of the formula, the rest f32 rounding.
        assert!(worst_erf < 5e-7, "erf error {worst_erf:e}");
        assert!(worst_exp < 3e-7, "exp relative error {worst_exp:e}");
        assert!(exp_non_positive(-200.0) < 1e-37);
        assert_eq!(erf(0.0), 0.0);
    }

    #[test]
    fn gelu_matches_burns_exact_gelu() {
        let device = Device::flex();
        let values: Vec<f32> = (0..40_000)
            .map(|i| (i as f32 - 20_000.0) / 2_000.0)
            .collect();
        let x = Tensor::<2>::from_data(TensorData::new(values, [200, 200]), &device);
        let ours = gelu(x.clone()).into_data().try_into_vec::<f32>().unwrap();
        let burns = activation::gelu(x)
            .into_data()
            .try_into_vec::<f32>()
            .unwrap();
        let worst = ours
            .iter()
            .zip(&burns)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 2e-6, "largest difference {worst:e}");
    }
}
