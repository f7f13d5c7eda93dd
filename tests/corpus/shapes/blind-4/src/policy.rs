//! An actor-critic policy trained with PPO: orthogonal initialisation, log-probabilities of the
//! taken actions (`one_hot`, `gather`), generalised advantage estimation step by step, a clipped
//! surrogate (`clamp`, `mask_where`), value and behaviour-cloning losses.

use burn::module::Initializer;
use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig, HuberLoss, HuberLossConfig, MseLoss, Reduction};
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::{log_softmax, relu, softmax};

use crate::hparams::{CLIP, GAMMA, LAMBDA, N_ACTIONS, N_ENVS, OBS_DIM, ROLLOUT};

pub const HIDDEN_UNITS: usize = 64;

/// Class weights of the demonstrations; the last action is the no-op.
static ACTION_WEIGHTS: [f32; N_ACTIONS] = [1.0, 1.0, 1.0, 1.0, 1.0, 0.0];

#[derive(Debug, Clone)]
pub struct PpoConfig {
    pub hidden: usize,
    pub clip: f32,
    /// Range of the value clip, also the Huber delta of the value loss.
    pub value_clip: f32,
    pub entropy_coef: f32,
}

impl Default for PpoConfig {
    fn default() -> Self {
        Self { hidden: HIDDEN_UNITS, clip: CLIP, value_clip: 0.2, entropy_coef: 0.01 }
    }
}

impl PpoConfig {
    /// The usual "value clipping off" marker of PPO configs.
    pub const DISABLED: f32 = -1.0;

    pub fn unclipped() -> Self {
        Self { value_clip: Self::DISABLED, ..Default::default() }
    }

    pub fn value_loss(&self) -> HuberLoss {
        HuberLossConfig::new(self.value_clip).init() // expect: huber-delta-negative
    }

    pub fn init(&self, device: &Device) -> ActorCritic {
        let body_init = Initializer::Orthogonal { gain: 2f64.sqrt() };
        let head_init = Initializer::Orthogonal { gain: 0.01 };
        ActorCritic {
            body: LinearConfig::new(OBS_DIM, self.hidden).with_initializer(body_init).with_bias(false).init(device), // ok (no bias)
            actor: LinearConfig::new(self.hidden, N_ACTIONS).with_initializer(head_init).init(device), // expect: initializer-orthogonal-rank-below-2
            critic: LinearConfig::new(self.hidden, 1).init(device),
        }
    }
}

#[derive(Module, Debug)]
pub struct ActorCritic {
    body: Linear,
    actor: Linear,
    critic: Linear,
}

impl ActorCritic {
    /// Log-probabilities `[.., actions]` and values `[.., 1]`.
    pub fn forward<const D: usize>(&self, obs: Tensor<D>) -> (Tensor<D>, Tensor<D>) {
        let h = relu(self.body.forward(obs));
        let log_probs = log_softmax(self.actor.forward(h.clone()), D - 1);
        (log_probs, self.critic.forward(h))
    }

    pub fn act(&self, obs: Tensor<2>, invalid: Tensor<2, Bool>) -> Tensor<2, Int> {
        let (log_probs, _) = self.forward(obs);
        log_probs.mask_fill(invalid, f32::NEG_INFINITY).argmax(1)
    }
}

/// Advantages of a rollout, `values` holding the bootstrap row after the last step.
pub fn gae(rewards: Tensor<2>, values: Tensor<2>, dones: Tensor<2>) -> Tensor<2> {
    let [steps, envs] = rewards.dims();
    let device = rewards.device();
    let mut last = Tensor::<2>::zeros([1, envs], &device);
    let mut advantages = Vec::with_capacity(steps);

    for t in (0..steps).rev() {
        let next_value = values.clone().narrow(0, t + 1, 1); // expect: narrow-out-of-range (miss: a reversed range over a run-time step count: the last step is not an element the loop frames know)
        let value = values.clone().narrow(0, t, 1); // ok
        let reward = rewards.clone().narrow(0, t, 1); // ok
        let not_done = dones.clone().narrow(0, t, 1).neg().add_scalar(1.0);
        let delta = reward + next_value.mul_scalar(GAMMA) * not_done.clone() - value;
        last = delta + last.mul_scalar(GAMMA * LAMBDA) * not_done;
        advantages.push(last.clone());
    }
    advantages.reverse();
    Tensor::cat(advantages, 0)
}

/// Clipped PPO objective, to minimise.
pub fn surrogate(new_logp: Tensor<1>, old_logp: Tensor<1>, adv: Tensor<1>) -> Tensor<1> {
    let ratio = (new_logp - old_logp).exp();
    let clipped = ratio.clone().clamp(1.0 - CLIP, 1.0 + CLIP);
    let plain = ratio * adv.clone(); // ok
    let bounded = clipped * adv; // ok
    let pessimistic = bounded.clone().lower(plain.clone());
    plain.mask_where(pessimistic, bounded).mean().neg()
}

fn critic_loss(pred: Tensor<2>, target: Tensor<2>, reduction: Reduction) -> Tensor<1> {
    MseLoss::new().forward(pred, target, reduction) // expect: mse-reduction-batch-mean
}

pub fn imitation_losses(device: &Device) -> (CrossEntropyLoss, CrossEntropyLoss) {
    let uniform = CrossEntropyLossConfig::new().with_weights(Some(vec![1.0; N_ACTIONS])).with_smoothing(Some(0.1)).init(device); // ok
    let skip_noop = CrossEntropyLossConfig::new().with_weights(Some(ACTION_WEIGHTS.to_vec())).init(device); // expect: cross-entropy-weights-positive
    (uniform, skip_noop)
}

/// Probes run by the evaluation binary.
pub fn probe(device: &Device) {
    let cfg = PpoConfig::default();
    let model = cfg.init(device);
    let _clipped = cfg.value_loss();
    let _unclipped = PpoConfig::unclipped().value_loss();

    // Log-probabilities of the taken actions, for a head with an extra no-op output.
    let head = LinearConfig::new(HIDDEN_UNITS, N_ACTIONS + 1).init(device);
    let features = Tensor::<2>::zeros([N_ENVS, HIDDEN_UNITS], device);
    let log_probs = log_softmax(head.forward(features), 1);
    let actions = Tensor::<1, Int>::zeros([N_ENVS], device);
    let taken = log_probs.clone().gather(1, actions.clone().reshape([N_ENVS, 1])); // ok
    let _per_env = taken.clone().squeeze_dim::<1>(1); // ok
    let _flat = taken.squeeze_dim::<1>(0); // expect: squeeze-dim-not-one
    let onehot = actions.clone().one_hot::<2>(N_ACTIONS).float();
    let _picked = onehot * log_probs.clone(); // expect: binary-op-incompatible-shapes

    // Entropy bonus.
    let probs = softmax(log_probs.clone(), 1);
    let entropy = (probs * log_probs).sum_dim(1).neg();
    let _mean_entropy = entropy.clone().mean().into_scalar::<f32>(); // ok
    let _logged = entropy.into_scalar::<f32>(); // expect: into-scalar-multiple-elements

    // Greedy actions against the taken ones.
    let greedy = Tensor::<2>::zeros([N_ENVS, N_ACTIONS], device).argmax(1);
    let _agree = greedy.equal(actions.reshape([1, N_ENVS])); // ok ([4, 1] against [1, 4] broadcasts)

    // Dueling head: the state value spread over the actions.
    let value = Tensor::<2>::zeros([N_ENVS, 1], device);
    let _spread = value.clone().expand([N_ENVS, N_ACTIONS]); // ok
    let _swapped = value.expand([N_ACTIONS, N_ENVS]); // expect: expand-incompatible-shape

    // A rollout: observations per step and environment.
    let obs = Tensor::<3>::zeros([ROLLOUT, N_ENVS, OBS_DIM], device);
    let (_, values) = model.forward(obs);
    let values = values.reshape([ROLLOUT, N_ENVS]); // ok
    let rewards = Tensor::<2>::zeros([ROLLOUT, N_ENVS], device);
    let dones = Tensor::<2>::zeros([ROLLOUT, N_ENVS], device);
    let last_value = Tensor::<2>::zeros([1, N_ENVS], device);
    let with_bootstrap = Tensor::cat(vec![values.clone(), last_value], 0); // ok
    let _advantages = gae(rewards.clone(), with_bootstrap, dones.clone());
    let _short = gae(rewards.clone(), values.clone(), dones);

    let returns = rewards.clone() + values.clone(); // ok
    let _adv = returns.clone() - values.clone().reshape([N_ENVS, ROLLOUT]); // expect: binary-op-incompatible-shapes
    let _value_loss = critic_loss(values.clone(), returns.clone(), Reduction::Mean);
    let _per_batch = critic_loss(values, returns, Reduction::BatchMean);

    let _losses = imitation_losses(device);
}
