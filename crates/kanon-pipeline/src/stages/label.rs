//! The label stage: `kanon label` over the run's index and documents.

use std::path::{Path, PathBuf};

use kanon_core::shard::Shard;
use kanon_label::CorpusFormat;
use kanon_label::LabelJob;
use kanon_label::algorithm::LabelerConfig;
use serde::{Deserialize, Serialize};

use super::{
    Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve_opt,
};
use crate::error::{Error, Result};
use crate::record::StageHasher;
use crate::stage::Stage;

/// `kanon label`'s settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelStage {
    /// Documents JSONL `{"id","person","text"}` (default: the KG's own, `docs.jsonl` in its
    /// directory: a synthetic KG's biographies, an import's Google-RE snippets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
    /// k, the largest combination checked, which term to mask first, the seed.
    #[serde(default)]
    pub config: LabelerConfig,
    /// JSONL, or CoNLL beside it.
    #[serde(default)]
    pub format: CorpusFormat,
    /// Documents per shard (the unit of resumption; default 10,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard_size: Option<usize>,
    /// Only part `I/N` of the documents (a batch scheduler's array task): the run must stop
    /// after this stage (`--until`), and `kanon merge` joins the parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl PipelineStage for LabelStage {
    fn stage(&self) -> Stage {
        Stage::Label
    }

    fn check_inputs(&self, layout: &Layout) -> Result<()> {
        if !layout.has(Stage::Index) {
            return Err(missing(Stage::Label, "an [index] section"));
        }
        let kg_docs = layout
            .kg_dir
            .as_ref()
            .map(|dir| dir.join(kanon_kg::store::DOCS_FILE));
        if self.docs.is_none() && kg_docs.is_some_and(|docs| !docs.exists()) {
            return Err(missing(
                Stage::Label,
                "`label.docs` (the KG directory has no docs.jsonl of its own)",
            ));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.docs);
    }

    fn hash(
        &self,
        _: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()> {
        hasher.params(self)?;
        if let Some(docs) = &self.docs {
            hasher.path(docs)?;
        }
        hasher.upstream(&upstream.or_empty(Stage::Kg));
        hasher.upstream(&upstream.or_empty(Stage::Index));
        Ok(())
    }

    fn shard(&self) -> Option<Shard> {
        self.shard
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let paths = run.paths();
        let mut job = LabelJob::new(paths.index(), run.wiring.label_docs(), paths.made_corpus());
        job.config = self.config;
        job.format = self.format;
        if let Some(size) = self.shard_size {
            job.shard_size = size;
        }
        job.shard = self.shard;
        let summary = kanon_label::corpus::run(&job, run.progress).map_err(Error::Label)?;
        Ok(StageSummary::new(
            summary.headline(),
            &summary.manifest.stats,
        ))
    }
}
