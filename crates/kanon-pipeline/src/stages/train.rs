//! The train stage: `kanon train` on the run's labeled corpus.

use std::path::{Path, PathBuf};

use kanon_tagger::TrainConfig;
use kanon_tagger::train::{TrainJob, TrainOptions};
use serde::{Deserialize, Serialize};

use super::{
    Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, normalize,
    resolve_opt,
};
use crate::error::{Error, Result};
use crate::record::StageHasher;
use crate::stage::{Action, Stage};

/// `kanon train`'s settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainStage {
    /// A model of the cache (fetched on first use) or a BERT checkpoint directory.
    #[serde(default = "default_pretrained")]
    pub pretrained: String,
    /// A labeled corpus directory, when the run has no label stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<PathBuf>,
    /// Epochs, steps, learning rate, windows, seed (configs/train.toml lists every key).
    #[serde(default)]
    pub config: TrainConfig,
}

fn default_pretrained() -> String {
    kanon_models::DEFAULT_ENCODER.into()
}

impl Default for TrainStage {
    fn default() -> Self {
        TrainStage {
            pretrained: default_pretrained(),
            corpus: None,
            config: TrainConfig::default(),
        }
    }
}

impl PipelineStage for TrainStage {
    fn stage(&self) -> Stage {
        Stage::Train
    }

    fn check_inputs(&self, layout: &Layout) -> Result<()> {
        if !layout.has(Stage::Label) && self.corpus.is_none() {
            return Err(missing(Stage::Train, "a [label] section or `train.corpus`"));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.corpus);
        // A checkpoint directory rather than a name of the model cache.
        let local = normalize(&base.join(&self.pretrained));
        if kanon_models::spec(&self.pretrained).is_err() && local.exists() {
            self.pretrained = local.to_string_lossy().into_owned();
        }
    }

    fn hash(
        &self,
        wiring: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()> {
        hasher.params(self)?;
        match upstream.get(Stage::Label) {
            Some(label) => hasher.upstream(&label),
            None => hasher.path(&wiring.corpus())?,
        };
        Ok(())
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let stage = Stage::Train;
        run.fetch(&self.pretrained)?;
        let job = TrainJob {
            pretrained: self.pretrained.clone(),
            corpus: run.wiring.corpus(),
            out: run.paths().trained_model(),
            config: self.config.clone(),
        };
        let options = run.options;
        let should_stop = |_step: usize| options.stop_requested();
        let device = run
            .options
            .device
            .resolve()
            .map_err(|source| Error::Tagger { stage, source })?;
        let train_options = TrainOptions {
            device,
            resume: run.action == Action::Resume,
            should_stop: Some(&should_stop),
        };
        let report = kanon_tagger::train::run(&job, &train_options, run.progress)
            .map_err(|source| Error::Tagger { stage, source })?;
        if report.interrupted {
            return Err(Error::Interrupted { stage });
        }
        Ok(StageSummary::new(report.headline(&job.out), &report))
    }
}
