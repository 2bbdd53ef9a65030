//! AdamW as burn's, in one pass over each parameter.
//!
//! burn's AdamW updates a parameter with a dozen tensor operations (moments, bias corrections,
//! square root, decay, update), each a pass over memory that allocates its result: on the CPU a
//! fifth of a MiniLM training step. [`FusedAdamW`] does the same arithmetic, operation for
//! operation in f32 (so the weights and moments are bit-identical to burn's), in one parallel,
//! vectorised loop, and keeps burn's state type, so resume files written by either load into the
//! other. Off the CPU, or in another precision, it hands the step to burn's own AdamW.
//!
//! ```
//! use burn::optim::AdamWConfig;
//! use kanon_tagger::optim::FusedAdamW;
//!
//! // Either optimiser from the same settings; the fused one on the CPU, burn's elsewhere.
//! let optimizer = FusedAdamW::new(0.01).init();
//! let reference = AdamWConfig::new().with_weight_decay(0.01).init();
//! ```

use burn::optim::{AdamW, AdamWConfig, AdamWState, AdaptiveMomentumState, LearningRate};
use burn::optim::{ModuleOptimizer, Optimizer};
use burn::tensor::{DType, Device, Tensor, TensorData};
use rayon::prelude::*;

use crate::kernels::host_values;

/// Elements per parallel task.
const CHUNK: usize = 1 << 14;

/// AdamW with burn's defaults (β₁ 0.9, β₂ 0.999, ε 1e-5, no AMSGrad, plain weight decay) and a
/// fused CPU step.
#[derive(Clone)]
#[allow(missing_debug_implementations)] // burn's `AdamW` inside has no `Debug`
pub struct FusedAdamW {
    beta_1: f32,
    beta_2: f32,
    epsilon: f32,
    weight_decay: f32,
    /// burn's AdamW with the same settings: the step off the CPU.
    reference: AdamW,
}

impl FusedAdamW {
    /// burn's `AdamWConfig::new().with_weight_decay(weight_decay)`.
    pub fn new(weight_decay: f32) -> Self {
        let (beta_1, beta_2, epsilon) = (0.9, 0.999, 1e-5);
        let reference = AdamWConfig::new()
            .with_beta_1(beta_1)
            .with_beta_2(beta_2)
            .with_epsilon(epsilon)
            .with_weight_decay(weight_decay)
            .build();
        Self {
            beta_1,
            beta_2,
            epsilon,
            weight_decay,
            reference,
        }
    }

    /// The optimiser for a whole module (as `AdamWConfig::init`).
    pub fn init(self) -> ModuleOptimizer {
        ModuleOptimizer::from(self)
    }
}

/// What one step does to every element, the scalars of burn's AdamW computed once.
#[derive(Clone, Copy)]
struct Update {
    beta_1: f32,
    beta_2: f32,
    factor_1: f32,
    factor_2: f32,
    correction_1: f32,
    correction_2: f32,
    epsilon: f32,
    /// `1 − lr · weight_decay`, or `None` when there is no decay (burn skips the multiply).
    keep: Option<f32>,
    learning_rate: f32,
    /// The first step: the moments start from the gradient alone.
    first: bool,
}

impl Update {
    /// One element: burn's operations in burn's order (`AdaptiveMomentumW::transform`, then
    /// `AdamW::step`), each rounded to f32 as its tensor op would be.
    #[inline(always)]
    fn apply(&self, param: &mut f32, moment_1: &mut f32, moment_2: &mut f32, grad: f32) {
        let square = grad * grad;
        if self.first {
            *moment_1 = grad * self.factor_1;
            *moment_2 = square * self.factor_2;
        } else {
            *moment_1 = *moment_1 * self.beta_1 + grad * self.factor_1;
            *moment_2 = *moment_2 * self.beta_2 + square * self.factor_2;
        }
        let corrected_1 = *moment_1 / self.correction_1;
        let corrected_2 = *moment_2 / self.correction_2;
        let delta = corrected_1 / (corrected_2.sqrt() + self.epsilon);
        let decayed = match self.keep {
            Some(keep) => *param * keep,
            None => *param,
        };
        *param = decayed - delta * self.learning_rate;
    }

    // Inlined into the function pulp compiles for the CPU's vector unit.
    #[inline(always)]
    fn apply_chunk(
        &self,
        params: &mut [f32],
        moments_1: &mut [f32],
        moments_2: &mut [f32],
        grads: &[f32],
    ) {
        for (((param, moment_1), moment_2), grad) in
            params.iter_mut().zip(moments_1).zip(moments_2).zip(grads)
        {
            self.apply(param, moment_1, moment_2, *grad);
        }
    }
}

impl Optimizer for FusedAdamW {
    type State<const D: usize> = AdamWState<D>;

    fn step<const D: usize>(
        &self,
        lr: LearningRate,
        tensor: Tensor<D>,
        grad: Tensor<D>,
        state: Option<Self::State<D>>,
    ) -> (Tensor<D>, Option<Self::State<D>>) {
        let fused = tensor.dtype() == DType::F32
            && grad.dtype() == DType::F32
            && crate::device::is_cpu(&tensor.device())
            && state
                .as_ref()
                .is_none_or(|s| s.momentum.max_moment_2.is_none());
        if !fused {
            return self.reference.step(lr, tensor, grad, state);
        }
        let device = tensor.device();
        let shape = tensor.shape();
        let mut params = host_values(tensor);
        let grads = host_values(grad);
        let (time, mut moments_1, mut moments_2) = match state {
            Some(state) => (
                state.momentum.time + 1,
                host_values(state.momentum.moment_1),
                host_values(state.momentum.moment_2),
            ),
            None => (1, vec![0.0; params.len()], vec![0.0; params.len()]),
        };
        // As burn: the corrections in f32 from `powi` of the step count, the decay rate in f64.
        let steps = time as i32;
        let decay_rate = lr * f64::from(self.weight_decay);
        let update = Update {
            beta_1: self.beta_1,
            beta_2: self.beta_2,
            factor_1: 1.0 - self.beta_1,
            factor_2: 1.0 - self.beta_2,
            correction_1: 1f32 - self.beta_1.powi(steps),
            correction_2: 1f32 - self.beta_2.powi(steps),
            epsilon: self.epsilon,
            keep: (decay_rate != 0.0).then_some((1.0 - decay_rate) as f32),
            learning_rate: lr as f32,
            first: time == 1,
        };
        let arch = pulp::Arch::new();
        params
            .par_chunks_mut(CHUNK)
            .zip(moments_1.par_chunks_mut(CHUNK))
            .zip(moments_2.par_chunks_mut(CHUNK))
            .zip(grads.par_chunks(CHUNK))
            .for_each(|(((params, moments_1), moments_2), grads)| {
                arch.dispatch(|| update.apply_chunk(params, moments_1, moments_2, grads))
            });
        let tensor =
            |values: Vec<f32>| Tensor::from_data(TensorData::new(values, shape.clone()), &device);
        let momentum = AdaptiveMomentumState::new(time, tensor(moments_1), tensor(moments_2));
        (tensor(params), Some(AdamWState::new(momentum)))
    }

    fn to_device<const D: usize>(state: Self::State<D>, device: &Device) -> Self::State<D> {
        <AdamW as Optimizer>::to_device(state, device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::module::{Module, Param};
    use burn::nn::{Linear, LinearConfig};
    use burn::optim::GradientsParams;
    use rand::SeedableRng;
    use rand_chacha::ChaChaRng;

    fn weights(linear: &Linear) -> Vec<f32> {
        let mut values = host_values(linear.weight.val());
        values.extend(host_values(linear.bias.as_ref().unwrap().val()));
        values
    }

    /// Values drawn from a local generator: tests run side by side, and the device's generator
    /// is shared by them all.
    fn normal(shape: [usize; 2], seed: u64) -> Tensor<2> {
        use rand::Rng;
        let mut rng = ChaChaRng::seed_from_u64(seed);
        let values = (0..shape[0] * shape[1])
            .map(|_| rng.random_range(-1.0f32..1.0))
            .collect();
        Tensor::from_data(TensorData::new(values, shape), &Device::flex().autodiff())
    }

    /// `steps` AdamW steps on a random regression, the learning rate changing each step.
    fn train(
        mut model: Linear,
        optimizer: &mut ModuleOptimizer,
        first: usize,
        steps: usize,
    ) -> Linear {
        for step in first..first + steps {
            let input = normal([16, 40], 100 + step as u64);
            let target = normal([16, 24], 200 + step as u64);
            let loss = (model.forward(input) - target).square().mean();
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            model = optimizer.step(1e-2 / (1 + step) as f64, model, grads);
        }
        model
    }

    fn fresh() -> Linear {
        let mut linear = LinearConfig::new(40, 24).init(&Device::flex().autodiff());
        linear.weight = Param::from_tensor(normal([40, 24], 3).mul_scalar(0.2));
        linear.bias = Some(Param::from_tensor(normal([1, 24], 4).reshape([24])));
        linear
    }

    /// How many weights differ, and the largest difference (so a failure says how far apart).
    fn difference(a: &[f32], b: &[f32]) -> (usize, f32) {
        let differing = a
            .iter()
            .zip(b)
            .filter(|(x, y)| x.to_bits() != y.to_bits())
            .count();
        let largest = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max);
        (differing, largest)
    }

    #[test]
    fn training_here_is_deterministic() {
        let run = || weights(&train(fresh(), &mut AdamWConfig::new().init(), 0, 3));
        assert_eq!(difference(&run(), &run()), (0, 0.0));
    }

    #[test]
    fn fused_steps_equal_burns_bit_for_bit() {
        for (weight_decay, steps) in [(0.0, 6), (0.01, 6)] {
            let ours = train(fresh(), &mut FusedAdamW::new(weight_decay).init(), 0, steps);
            let mut reference = AdamWConfig::new().with_weight_decay(weight_decay).init();
            let theirs = train(fresh(), &mut reference, 0, steps);
            let gap = difference(&weights(&ours), &weights(&theirs));
            assert_eq!(gap, (0, 0.0), "weight decay {weight_decay}, {steps} steps");
        }
    }

    #[test]
    fn resume_files_cross_between_fused_and_burns() {
        let mut reference = AdamWConfig::new().with_weight_decay(0.01).init();
        let uninterrupted = weights(&train(fresh(), &mut reference, 0, 6));
        // Three steps with one optimiser, its state through bytes into the other, three more.
        let mut burns = AdamWConfig::new().with_weight_decay(0.01).init();
        let halfway = train(fresh(), &mut burns, 0, 3);
        let mut fused = FusedAdamW::new(0.01)
            .init()
            .from_bytes(burns.into_bytes().unwrap())
            .unwrap();
        let resumed = weights(&train(halfway, &mut fused, 3, 3));
        assert_eq!(difference(&resumed, &uninterrupted), (0, 0.0));

        let mut fused = FusedAdamW::new(0.01).init();
        let halfway = train(fresh(), &mut fused, 0, 3);
        let mut burns = AdamWConfig::new()
            .with_weight_decay(0.01)
            .init()
            .from_bytes(fused.into_bytes().unwrap())
            .unwrap();
        let resumed = weights(&train(halfway, &mut burns, 3, 3));
        assert_eq!(difference(&resumed, &uninterrupted), (0, 0.0));
    }

    #[test]
    fn a_module_keeps_its_shape_through_a_step() {
        let model = train(fresh(), &mut FusedAdamW::new(0.01).init(), 0, 1);
        assert_eq!(model.weight.val().dims(), [40, 24]);
        assert!(model.devices().iter().all(|d| d.is_autodiff()));
    }
}
