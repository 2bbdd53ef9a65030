//! The detect stage: one detector (the run's tagger, or one that needs no KG) over the documents,
//! through `kanon_detect::job::run` as `kanon detect` runs it.

use std::path::{Path, PathBuf};

use kanon_core::shard::Shard;
use kanon_core::{Document, PathContext};
use kanon_detect::job::{Method, MethodJob};
use kanon_tagger::SpansFormat;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve, resolve_opt,
};
use crate::error::{Error, Result};
use crate::record::StageHasher;
use crate::stage::Stage;

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
    /// The detector and its settings: `[detect.method]`, whose `name` is `"tagger"` (the
    /// default, so a tagger's table needs none: `model`, a checkpoint directory when the run has
    /// no train stage, and the keys of `detect.toml`), `"reid-greedy"`, `"ic-threshold"`, `"idf"`
    /// or `"ner-lexical"`. `[detect.config]`, its name before it named any detector, still reads.
    #[serde(default, alias = "config")]
    pub method: Method,
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
        self.method
            .validate()
            .map_err(|problem| format!("detect.method: {problem}"))?;
        if self.docs.is_some() == self.corpus_split.is_some() {
            return Err("detect: give exactly one of `docs` and `corpus_split`".into());
        }
        Ok(())
    }

    fn check_inputs(&self, layout: &Layout) -> Result<()> {
        if let Method::Tagger { model: None, .. } = self.method
            && !layout.has(Stage::Train)
        {
            return Err(missing(
                Stage::Detect,
                "a [train] section or `detect.method.model`",
            ));
        }
        if self.corpus_split.is_some() && !layout.has(Stage::Label) {
            return Err(missing(
                Stage::Detect,
                "a [label] section for `corpus_split`",
            ));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.docs);
        resolve_opt(base, &mut self.background);
        match &mut self.method {
            Method::Tagger { model, .. } => resolve_opt(base, model),
            Method::ReidGreedy { model, .. } => resolve(base, &mut model.checkpoint),
            _ => {}
        }
    }

    fn hash(
        &self,
        wiring: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()> {
        hasher.params(self)?;
        if self.method.uses_device() {
            // The tagger: its checkpoint, trained by the run or named.
            match upstream.get(Stage::Train) {
                Some(train) => hasher.upstream(&train),
                None => hasher.path(&wiring.model())?,
            };
        } else if let Some(background) = &self.background {
            hasher.path(background)?;
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
        self.detect(run)
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

    /// The checkpoint directory the config names for the tagger (a run without a train stage).
    pub(crate) fn named_model(&self) -> Option<&PathBuf> {
        match &self.method {
            Method::Tagger { model, .. } => model.as_ref(),
            _ => None,
        }
    }

    fn detect(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let stage = Stage::Detect;
        let paths = run.paths();
        let mut method = self.method.clone();
        if let Method::Tagger { model, .. } = &mut method {
            *model = Some(run.wiring.model());
        }
        let device = if method.uses_device() {
            run.options
                .device
                .resolve()
                .map_err(|source| Error::Tagger { stage, source })?
        } else {
            kanon_tagger::device::cpu()
        };
        let job = MethodJob {
            docs: paths.detect_docs(),
            out: paths.spans(),
            background: self.background.clone(),
            method,
            trace: None,
            format: SpansFormat::Jsonl,
            shard: self.shard,
        };
        let summary = kanon_detect::job::run(&job, &device, run.progress).map_err(Error::Detect)?;
        let mut figures = json!({"documents": summary.documents, "spans": summary.spans, "seconds": summary.seconds, "masked_words": summary.masked_words, "words": summary.words});
        if !summary.stopped_short.is_empty() {
            figures["stopped_short"] = json!(summary.stopped_short);
        }
        Ok(StageSummary::new(summary.headline(), &figures))
    }
}
