//! The detect stage: the run's tagger, or a detector that needs no KG, over the documents.

use std::path::{Path, PathBuf};

use kanon_core::shard::Shard;
use kanon_core::{Document, PathContext};
use kanon_tagger::{DetectConfig, DetectJob, SpansFormat};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve, resolve_opt,
};
use crate::config::RunConfig;
use crate::error::{Error, Result};
use crate::stage::{Stage, StageHasher};

/// `kanon detect`'s settings, and which documents it reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectStage {
    /// Documents: JSONL `{"id","text"}` or a TAB-schema JSON array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
    /// Instead of `docs`: a split of the label stage's corpus (`test` holds documents the
    /// detector was not trained on), read from the label stage's documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus_split: Option<String>,
    /// Only the first N documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// A checkpoint directory, when the run has no train stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<PathBuf>,
    /// The tagger's decoding: threshold, tidying, min scores, token budget.
    #[serde(default)]
    pub config: DetectConfig,
    /// A detector that needs no KG instead of the tagger: `[detect.method]` with `name =
    /// "reid-greedy"`, `"ic-threshold"`, `"idf"` or `"ner-lexical"` and its settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<kanon_detect::job::Method>,
    /// Public texts about the population (`[{"name", "public_knowledge"}]`) for `reid-greedy`
    /// and `ner-lexical` (and `idf`'s word counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
    /// Only part `I/N` of the documents (a batch scheduler's array task): the run must stop
    /// after this stage (`--until`), and `kanon merge` joins the parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl PipelineStage for DetectStage {
    fn stage(&self) -> Stage {
        Stage::Detect
    }

    fn validate(&self) -> std::result::Result<(), String> {
        self.config
            .validate()
            .map_err(|problem| format!("detect.config: {problem}"))?;
        if self.docs.is_some() == self.corpus_split.is_some() {
            return Err("detect: give exactly one of `docs` and `corpus_split`".into());
        }
        Ok(())
    }

    fn check_inputs(&self, config: &RunConfig) -> Result<()> {
        if self.method.is_none() && config.train.is_none() && self.model.is_none() {
            return Err(missing(
                Stage::Detect,
                "a [train] section or `detect.model`",
            ));
        }
        if self.corpus_split.is_some() && config.label.is_none() {
            return Err(missing(
                Stage::Detect,
                "a [label] section for `corpus_split`",
            ));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.docs);
        resolve_opt(base, &mut self.model);
        resolve_opt(base, &mut self.background);
        if let Some(kanon_detect::job::Method::ReidGreedy { model, .. }) = &mut self.method {
            resolve(base, &mut model.checkpoint);
        }
    }

    fn hash(
        &self,
        wiring: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()> {
        hasher.params(self)?;
        if self.method.is_some() {
            if let Some(background) = &self.background {
                hasher.path(background)?;
            }
        } else {
            match upstream.get(Stage::Train) {
                Some(train) => hasher.upstream(&train),
                None => hasher.path(&wiring.model())?,
            };
        }
        match &self.docs {
            Some(docs) => hasher.path(docs)?,
            None => hasher.upstream(&upstream.or_empty(Stage::Label)),
        };
        Ok(())
    }

    fn shard(&self) -> Option<Shard> {
        self.shard
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let paths = run.paths();
        let docs = self.documents(&run.wiring)?;
        let dir = paths.stage_dir(Stage::Detect);
        std::fs::create_dir_all(&dir).with_path(&dir)?;
        kanon_core::io::atomic_write(&paths.detect_docs(), |w| {
            kanon_core::io::write_jsonl(w, docs.iter())
        })?;
        match &self.method {
            Some(method) => self.run_method(method, run),
            None => self.run_tagger(run),
        }
    }
}

impl DetectStage {
    /// The documents: a file, or a split of the corpus (whose lines name each document's
    /// person); at most `limit`.
    fn documents(&self, wiring: &Wiring<'_>) -> Result<Vec<Document>> {
        let mut docs = match (&self.docs, &self.corpus_split) {
            (Some(path), _) => kanon_core::io::read_documents(path)?.docs,
            (None, Some(split)) => kanon_core::corpus::read_split(&wiring.corpus(), split)?
                .into_iter()
                .map(|doc| Document {
                    id: doc.id,
                    person: doc.person,
                    text: doc.text,
                    split: None,
                })
                .collect(),
            (None, None) => Vec::new(),
        };
        if let Some(limit) = self.limit {
            docs.truncate(limit);
        }
        Ok(docs)
    }

    fn run_method(
        &self,
        method: &kanon_detect::job::Method,
        run: &mut StageRun<'_>,
    ) -> Result<StageSummary> {
        let paths = run.paths();
        let job = kanon_detect::job::MethodJob {
            docs: paths.detect_docs(),
            out: paths.spans(),
            background: self.background.clone(),
            method: method.clone(),
            trace: None,
        };
        let summary = kanon_detect::job::run(&job, run.progress).map_err(Error::Detect)?;
        let figures = json!({"documents": summary.documents, "spans": summary.spans, "seconds": summary.seconds, "masked_words": summary.masked_words, "words": summary.words});
        Ok(StageSummary::new(summary.headline(), &figures))
    }

    fn run_tagger(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let stage = Stage::Detect;
        let paths = run.paths();
        let job = DetectJob {
            model: run.wiring.model(),
            docs: paths.detect_docs(),
            out: paths.spans(),
            format: SpansFormat::Jsonl,
            config: self.config,
            shard: self.shard,
        };
        let device = run
            .options
            .device
            .resolve()
            .map_err(|source| Error::Tagger { stage, source })?;
        let summary = kanon_tagger::detect::run(&job, &device, run.progress)
            .map_err(|source| Error::Tagger { stage, source })?;
        let figures = json!({"documents": summary.documents, "spans": summary.spans, "seconds": summary.seconds});
        Ok(StageSummary::new(summary.headline(), &figures))
    }
}
