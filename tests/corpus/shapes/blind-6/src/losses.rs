//! Losses of a multi-task trainer: a classifier with label smoothing and class weights, a tagger
//! with binary cross-entropy, a regression head (Huber, smooth L1, Lp, MSE), a ranking head
//! (margin ranking, multi-margin), a count head (Poisson NLL) and a CTC speech head. The losses
//! are built from burn's configs and by `new()`/`Default`, kept in module fields and used in
//! training steps.

use burn::nn::loss::{
    BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig, CTCLoss, CTCLossConfig,
    CrossEntropyLoss, CrossEntropyLossConfig, HuberLoss, HuberLossConfig, LpLoss, LpLossConfig,
    MarginRankingLoss, MarginRankingLossConfig, MseLoss, MultiMarginLoss, MultiMarginLossConfig,
    PoissonNllLoss, PoissonNllLossConfig, Reduction, SmoothL1Loss, SmoothL1LossConfig,
};
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

use crate::hparams::loss::{
    ALPHABET, ENCODER_DIM, HUBER_DELTA, LABEL_SMOOTHING, N_TAGS, P_NORM, RANKING_MARGIN,
    SMOOTHING_PERCENT,
};

// ---------------------------------------------------------------------------------------------
// Classifier: a hand-written settings struct with `impl Default`.
// ---------------------------------------------------------------------------------------------

/// What the classifier's loss is built from.
#[derive(Clone, Debug)]
pub struct LossSettings {
    pub smoothing: f32,
    pub huber_delta: f32,
    pub margin: f64,
}

impl Default for LossSettings {
    fn default() -> Self {
        Self {
            // the paper's table gives 10 (%)
            smoothing: SMOOTHING_PERCENT,
            huber_delta: HUBER_DELTA,
            margin: RANKING_MARGIN,
        }
    }
}

pub fn classifier_loss(device: &Device) -> CrossEntropyLoss {
    let settings = LossSettings::default();
    CrossEntropyLossConfig::new().with_smoothing(Some(settings.smoothing)).init(device) // expect: cross-entropy-smoothing-range
}

pub fn fine_tune_loss(device: &Device) -> CrossEntropyLoss {
    let settings = LossSettings {
        smoothing: LABEL_SMOOTHING,
        ..Default::default()
    };
    CrossEntropyLossConfig::new().with_smoothing(Some(settings.smoothing)).init(device) // ok (0.1 over the default's 10)
}

/// Per-class weights of the 4 sentiment classes; "mixed" (index 2) is switched off.
const CLASS_WEIGHTS: [f32; 4] = [1.0, 3.0, 0.0, 8.0];

fn weighted_config() -> CrossEntropyLossConfig {
    CrossEntropyLossConfig::new().with_weights(Some(CLASS_WEIGHTS.to_vec()))
}

pub fn sentiment_loss(device: &Device) -> CrossEntropyLoss {
    weighted_config().init(device) // expect: cross-entropy-weights-positive
}

pub fn sentiment_loss_padded(device: &Device) -> CrossEntropyLoss {
    // the class to ignore is a pad token; every weight stays positive
    CrossEntropyLossConfig::new().with_pad_tokens(Some(vec![2])).with_weights(Some(vec![1.0, 3.0, 0.5, 8.0])).init(device) // ok
}

// ---------------------------------------------------------------------------------------------
// Tagger: binary cross-entropy built by a helper.
// ---------------------------------------------------------------------------------------------

fn tag_loss(smoothing: f32, device: &Device) -> BinaryCrossEntropyLoss {
    BinaryCrossEntropyLossConfig::new().with_logits(true).with_smoothing(Some(smoothing)).init(device) // expect: binary-cross-entropy-smoothing-range
}

/// One loss for the clean tags, one for the noisy ones.
pub fn tagger_losses(device: &Device) -> [BinaryCrossEntropyLoss; 2] {
    [tag_loss(LABEL_SMOOTHING, device), tag_loss(SMOOTHING_PERCENT, device)]
}

pub fn tagger_weighted(device: &Device) -> BinaryCrossEntropyLoss {
    let mut weights = vec![1.0f32; N_TAGS];
    // the "other" tag does not count
    weights[N_TAGS - 1] = 0.0;
    BinaryCrossEntropyLossConfig::new().with_weights(Some(weights)).init(device) // expect: derived-binary-cross-entropy-loss-config-weights-have-positive
}

pub fn tagger_reweighted(device: &Device) -> BinaryCrossEntropyLoss {
    let mut weights = vec![0.0f32; N_TAGS];
    for w in weights.iter_mut() {
        *w = 1.0;
    }
    BinaryCrossEntropyLossConfig::new().with_weights(Some(weights)).init(device) // ok (every weight set to 1 before init)
}

// ---------------------------------------------------------------------------------------------
// Regression head: the crate's `#[derive(Config)]` config, losses held in fields.
// ---------------------------------------------------------------------------------------------

/// The regression head's settings; a negative delta used to mean "plain MSE".
#[derive(Config, Debug)]
pub struct RegressionConfig {
    pub d_input: usize,
    #[config(default = -1.0)]
    pub huber_delta: f32,
    #[config(default = 0.0)]
    pub smooth_l1_beta: f32,
    #[config(default = 2.0)]
    pub lp: f64,
}

#[derive(Module, Debug)]
pub struct RegressionHead {
    output: Linear,
    huber: HuberLoss,
    smooth: SmoothL1Loss,
    lp: LpLoss,
    mse: MseLoss,
}

/// The reduction reported per epoch.
pub const EPOCH_REDUCTION: Reduction = Reduction::BatchMean;

impl RegressionConfig {
    pub fn init(&self, device: &Device) -> RegressionHead {
        RegressionHead {
            output: LinearConfig::new(self.d_input, 1).init(device),
            huber: HuberLossConfig::new(self.huber_delta).init(), // expect: huber-delta-negative
            smooth: SmoothL1LossConfig::new().with_beta(self.smooth_l1_beta).init(), // expect: derived-smooth-l1-loss-config-beta-parameter-positive
            lp: LpLossConfig::new(self.lp).init(), // ok (2.0 by default)
            mse: MseLoss::default(),
        }
    }
}

impl RegressionHead {
    pub fn step(&self, features: Tensor<2>, targets: Tensor<2>) -> [Tensor<1>; 3] {
        let predictions = self.output.forward(features);
        let huber = self.huber.forward(predictions.clone(), targets.clone(), Reduction::Mean);
        let mse = self.mse.forward(predictions.clone(), targets.clone(), Reduction::Auto); // ok
        let per_epoch = self.mse.forward(predictions, targets, EPOCH_REDUCTION); // expect: mse-reduction-batch-mean
        [huber, mse, per_epoch]
    }

    pub fn step_from_env(&self, features: Tensor<2>, targets: Tensor<2>) -> Tensor<1> {
        let reduction = if std::env::var("SUM_LOSS").is_ok() {
            Reduction::Sum
        } else {
            Reduction::Mean
        };
        let predictions = self.output.forward(features);
        self.mse.forward(predictions, targets, reduction) // ok (Sum or Mean)
    }

    pub fn step_overridden(&self, features: Tensor<2>, targets: Tensor<2>) -> Tensor<1> {
        let mut reduction = EPOCH_REDUCTION;
        if !matches!(reduction, Reduction::Mean | Reduction::Sum | Reduction::Auto) {
            // MseLoss reduces by Mean or Sum only
            reduction = Reduction::Sum;
        }
        let predictions = self.output.forward(features);
        self.mse.forward(predictions, targets, reduction) // ok (replaced by Sum on every path)
    }
}

pub fn default_regression(device: &Device) -> RegressionHead {
    RegressionConfig::new(64).init(device)
}

pub fn tuned_huber() -> HuberLoss {
    let config = RegressionConfig::new(64).with_huber_delta(0.5);
    HuberLossConfig::new(config.huber_delta).init() // ok (0.5)
}

pub fn exact_huber() -> HuberLoss {
    HuberLossConfig::new(0.0).init() // ok (a delta of 0 is accepted)
}

pub fn mae_loss() -> LpLoss {
    LpLossConfig::new(P_NORM - 1.0).init() // expect: derived-lp-loss-config-p-order-norm-positive
}

pub fn smooth_default() -> SmoothL1Loss {
    SmoothL1LossConfig::new().init() // ok (beta 1.0)
}

// ---------------------------------------------------------------------------------------------
// Ranking head: losses built in `new`.
// ---------------------------------------------------------------------------------------------

#[derive(Module, Debug)]
pub struct RankingHead {
    scorer: Linear,
    ranking: MarginRankingLoss,
    hinge: MultiMarginLoss,
}

impl RankingHead {
    pub fn new(device: &Device) -> Self {
        Self {
            scorer: LinearConfig::new(64, 1).init(device),
            // the margin is measured from the 0.5 decision threshold
            ranking: MarginRankingLossConfig::new().with_margin(RANKING_MARGIN - 0.5).init(), // expect: derived-margin-ranking-loss-config-non-negative-number
            // cubic hinge, as in the reference implementation
            hinge: MultiMarginLossConfig::new().with_p(3).init(), // expect: multi-margin-p-unsupported
        }
    }

    pub fn new_squared(device: &Device) -> Self {
        Self {
            scorer: LinearConfig::new(64, 1).init(device),
            ranking: MarginRankingLossConfig::new().init(), // ok (margin 0.0)
            hinge: MultiMarginLossConfig::new().with_margin(0.0).with_p(2).init(), // ok
        }
    }

    pub fn step(&self, a: Tensor<2>, b: Tensor<2>, order: Tensor<2>, logits: Tensor<2>, classes: Tensor<1, Int>) -> Tensor<1> {
        let sa = self.scorer.forward(a);
        let sb = self.scorer.forward(b);
        let ranking = self.ranking.forward(sa, sb, order, Reduction::Mean);
        ranking + self.hinge.forward(logits, classes, Reduction::Mean)
    }
}

// ---------------------------------------------------------------------------------------------
// Count head: a `match` on the crate's enum.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    Counts,
    Ranks,
    Robust,
}

fn poisson_for(objective: Objective) -> PoissonNllLoss {
    let eps = match objective {
        Objective::Counts => 1e-8,
        // ranks are never 0: no epsilon needed
        Objective::Ranks => 0.0,
        Objective::Robust => 1e-6,
    };
    PoissonNllLossConfig::new().with_log_input(false).with_eps(eps).init() // expect: derived-poisson-nll-loss-config-eps-poissonnllloss-positive-number
}

pub fn rank_count_loss() -> PoissonNllLoss {
    poisson_for(Objective::Ranks)
}

pub fn count_loss() -> PoissonNllLoss {
    poisson_for(Objective::Counts)
}

fn lp_order(objective: Objective) -> f64 {
    match objective {
        Objective::Counts => 1.0,
        Objective::Ranks => 2.0,
        Objective::Robust => 0.5,
    }
}

pub fn lp_for(objective: Objective) -> LpLoss {
    LpLossConfig::new(lp_order(objective)).init() // ok (every arm is positive)
}

pub fn poisson_from_cli() -> PoissonNllLoss {
    let eps: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1e-8);
    PoissonNllLossConfig::new().with_eps(eps).init() // ok (eps from the command line)
}

// ---------------------------------------------------------------------------------------------
// CTC speech head.
// ---------------------------------------------------------------------------------------------

#[derive(Module, Debug)]
pub struct SpeechHead {
    proj: Linear,
    ctc: CTCLoss,
}

impl SpeechHead {
    /// The blank goes after the alphabet.
    pub fn new(device: &Device) -> Self {
        Self {
            proj: LinearConfig::new(ENCODER_DIM, ALPHABET).init(device),
            ctc: CTCLossConfig::new().with_blank(ALPHABET).init(),
        }
    }

    /// The output also holds the blank.
    pub fn with_blank_class(device: &Device) -> Self {
        Self {
            proj: LinearConfig::new(ENCODER_DIM, ALPHABET + 1).init(device),
            ctc: CTCLossConfig::new().with_blank(ALPHABET).init(),
        }
    }

    /// `encoded`: [time, batch, ENCODER_DIM].
    pub fn step(
        &self,
        encoded: Tensor<3>,
        targets: Tensor<2, Int>,
        input_lengths: Tensor<1, Int>,
        target_lengths: Tensor<1, Int>,
    ) -> Tensor<1> {
        let log_probs = log_softmax(self.proj.forward(encoded), 2);
        self.ctc.forward_with_reduction(log_probs, targets, input_lengths, target_lengths, Reduction::Mean) // ok (a head from with_blank_class has the blank's class)
    }
}

pub fn ctc_step_narrow(
    device: &Device,
    encoded: Tensor<3>,
    targets: Tensor<2, Int>,
    input_lengths: Tensor<1, Int>,
    target_lengths: Tensor<1, Int>,
) -> Tensor<1> {
    let proj = LinearConfig::new(ENCODER_DIM, ALPHABET).init(device);
    let ctc = CTCLossConfig::new().with_blank(ALPHABET).init();
    let log_probs = log_softmax(proj.forward(encoded), 2);
    ctc.forward(log_probs, targets, input_lengths, target_lengths) // expect: ctc-blank-out-of-range
}

pub fn ctc_step_wide(
    device: &Device,
    encoded: Tensor<3>,
    targets: Tensor<2, Int>,
    input_lengths: Tensor<1, Int>,
    target_lengths: Tensor<1, Int>,
) -> Tensor<1> {
    let proj = LinearConfig::new(ENCODER_DIM, ALPHABET + 1).init(device);
    let ctc = CTCLossConfig::new().with_blank(ALPHABET).init();
    let log_probs = log_softmax(proj.forward(encoded), 2);
    ctc.forward(log_probs, targets, input_lengths, target_lengths) // ok (29 classes, blank 28)
}

// ---------------------------------------------------------------------------------------------
// The crate's own loss config, named like burn's.
// ---------------------------------------------------------------------------------------------

pub mod own {
    /// A Huber loss whose negative delta means "use MSE".
    pub struct HuberLossConfig {
        pub delta: f32,
    }

    pub struct HuberLoss {
        pub delta: Option<f32>,
    }

    impl HuberLossConfig {
        pub fn new(delta: f32) -> Self {
            Self { delta }
        }

        pub fn init(&self) -> HuberLoss {
            HuberLoss {
                delta: (self.delta >= 0.0).then_some(self.delta),
            }
        }
    }
}

pub fn own_huber() -> own::HuberLoss {
    own::HuberLossConfig::new(-1.0).init() // ok (the crate's own config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic]
    fn percent_smoothing_is_rejected() {
        let device = Default::default();
        let _ = CrossEntropyLossConfig::new().with_smoothing(Some(10.0)).init(&device);
    }

    #[test]
    #[should_panic]
    fn negative_delta_is_rejected() {
        let _ = HuberLossConfig::new(-0.5).init(); // ok (a should_panic test)
    }
}
