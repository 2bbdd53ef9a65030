//! The KG stage: a KG directory made earlier, sources imported and merged, or a synthetic
//! population.

use std::path::{Path, PathBuf};

use kanon_kg::synth::SynthConfig;
use kanon_kg::{ImportJob, Source, SynthJob};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, resolve};
use crate::error::{Error, Result};
use crate::record::StageHasher;
use crate::stage::Stage;

/// Where the knowledge graph comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case", deny_unknown_fields)]
pub enum KgStage {
    /// A KG directory made earlier (`kanon kg import`, `kanon kg synth`, the bundled `kg/sample`).
    Dir {
        /// The KG directory.
        path: PathBuf,
    },
    /// Sources imported and merged (`kanon kg import`).
    Import {
        /// Each source's format and input files.
        sources: Vec<Source>,
        /// Language of labels and aliases (Wikidata).
        #[serde(default = "default_lang")]
        lang: String,
        /// Skip malformed lines and count them, instead of stopping at the first.
        #[serde(default)]
        skip_invalid: bool,
    },
    /// A synthetic population with biographies (`kanon kg synth`), kept in the KG directory.
    Synth {
        /// Its size and seed.
        #[serde(default)]
        config: SynthConfig,
    },
}

fn default_lang() -> String {
    "en".into()
}

impl PipelineStage for KgStage {
    fn stage(&self) -> Stage {
        Stage::Kg
    }

    fn check_inputs(&self, _: &Layout) -> Result<()> {
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        match self {
            KgStage::Dir { path } => resolve(base, path),
            KgStage::Import { sources, .. } => sources
                .iter_mut()
                .flat_map(|s| &mut s.inputs)
                .for_each(|input| resolve(base, input)),
            KgStage::Synth { .. } => {}
        }
    }

    fn hash(&self, _: &Wiring<'_>, _: &Upstream<'_>, hasher: &mut StageHasher) -> Result<()> {
        hasher.params(self)?;
        match self {
            KgStage::Dir { path } => {
                hasher.path(path)?;
            }
            KgStage::Import { sources, .. } => {
                for input in sources.iter().flat_map(|s| &s.inputs) {
                    hasher.path(input)?;
                }
            }
            KgStage::Synth { .. } => {}
        }
        Ok(())
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        match self {
            KgStage::Dir { path } => {
                let meta = kanon_kg::store::read_meta(path).map_err(Error::Kg)?;
                let headline = format!(
                    "KG directory {}: {} people, {} facts",
                    path.display(),
                    meta.people,
                    meta.facts
                );
                Ok(StageSummary::new(headline, &meta))
            }
            KgStage::Import {
                sources,
                lang,
                skip_invalid,
            } => {
                let job = ImportJob {
                    sources: sources.clone(),
                    out: run.paths().made_kg(),
                    lang: lang.clone(),
                    skip_invalid: *skip_invalid,
                };
                let summary = kanon_kg::job::import(&job, run.progress).map_err(Error::Kg)?;
                Ok(StageSummary::new(summary.headline(), &summary.meta))
            }
            KgStage::Synth { config } => {
                let job = SynthJob {
                    config: config.clone(),
                    out: run.paths().made_kg(),
                    docs: None,
                };
                let summary = kanon_kg::job::synth(&job).map_err(Error::Kg)?;
                let figures = json!({"people": summary.people, "facts": summary.facts, "biographies": summary.biographies});
                Ok(StageSummary::new(summary.headline(), &figures))
            }
        }
    }
}
