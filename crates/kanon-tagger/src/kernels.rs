//! Elementwise kernels the CPU backend runs one scalar `libm` call at a time, one thread: the
//! exact GELU (`erf`). At inference (no autodiff) on the CPU build they run here instead,
//! vectorisable and on every core; training keeps burn's differentiable ops. (A host softmax the
//! same way was slower than burn's: the copy of the `[batch, heads, seq, seq]` scores costs more
//! than its `exp` saves.)

use burn::tensor::activation;
use burn::tensor::{DType, Tensor, TensorData};
use rayon::prelude::*;

/// Elements per parallel task: large enough to amortise scheduling, small enough to share.
const CHUNK: usize = 1 << 14;

/// The exact GELU, `x · Φ(x) = ½ x (1 + erf(x / √2))`, any shape.
///
/// At inference on the CPU build, `erf` is Abramowitz & Stegun's 7.1.26 (absolute error below
/// 1.5e-7, the form PyTorch's vectorised CPU GELU uses) over all cores; under autodiff, or on a
/// GPU, burn's own `gelu`.
pub fn gelu<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    // A half-precision model, a GPU or autodiff: burn's own op.
    if x.is_autodiff() || x.dtype() != DType::F32 || !crate::device::is_cpu(&x.device()) {
        return activation::gelu(x);
    }
    let device = x.device();
    let shape = x.shape();
    // `x` is moved, not cloned, so that its buffer is taken rather than copied when unshared.
    let mut values = x
        .into_data()
        .try_into_vec::<f32>()
        .expect("an f32 tensor of the CPU backend reads back as f32 values");
    // pulp compiles the loop for the widest vector unit the CPU has (AVX-512, AVX2 + FMA…),
    // chosen at run time, so the binary stays portable.
    let arch = pulp::Arch::new();
    values
        .par_chunks_mut(CHUNK)
        .for_each(|chunk| arch.dispatch(|| gelu_chunk(chunk)));
    Tensor::from_data(TensorData::new(values, shape), &device)
}

#[inline(always)]
fn gelu_chunk(chunk: &mut [f32]) {
    chunk.iter_mut().for_each(|v| *v = gelu_scalar(*v));
}

#[inline(always)]
fn gelu_scalar(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf by Abramowitz & Stegun 7.1.26: `1 − (a₁t + … + a₅t⁵) e^(−x²)`, `t = 1 / (1 + p|x|)`,
/// branch-free so that loops over it vectorise.
#[inline(always)]
fn erf(x: f32) -> f32 {
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
    let magnitude = 1.0 - poly * exp_non_positive(-ax * ax);
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
    let x = x.max(-87.0);
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    let scale = f32::from_bits(((n as i32 + 127) << 23) as u32);
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
