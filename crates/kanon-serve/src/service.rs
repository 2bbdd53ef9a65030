//! The service without HTTP: the detector behind its batcher, the sanitizer's models, the
//! release gate's attackers — opened once — and the work a request asks of them. The HTTP
//! layer ([`crate::server`]) only parses, limits and answers.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use kanon_core::background::Background;
use kanon_core::spans::{SpanRecord, SpansRecord};
use kanon_core::{Document, NoProgress};
use kanon_detect::Detector;
use kanon_detect::tagger::TaggerDetector;
use kanon_gate::reid::{Bm25Attacker, NeuralScorer, ReidAttacker};
use kanon_gate::{AttackerKind, Certificate, Gate, GateInput};
use kanon_sanitize::job::SanitizerModels;
use kanon_sanitize::{Mention, SanitizedDocument, Sanitizer, Strategy};
use serde::{Deserialize, Serialize};

use crate::batcher::{BatchStats, Batcher};
use crate::config::{GateSettings, ServiceConfig};
use crate::error::{Error, Result};

/// A document of a `/v1` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentIn {
    /// Unique within the request; the answer's documents carry it.
    pub id: String,
    /// The text.
    pub text: String,
    /// Who it is about, by the gate's background name (for the BM25 and neural attackers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// `/v1/sanitize`: the spans to replace (`kanon detect`'s records); detected when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spans: Option<Vec<SpanRecord>>,
}

/// A sanitized document: `kanon sanitize`'s output line, and the gate's certificate when the
/// gate ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SanitizedOut {
    /// `{"id","text","edits"}`, as `kanon sanitize` (or `kanon certify`) writes it.
    #[serde(flatten)]
    pub document: SanitizedDocument,
    /// What the gate found and did (no original string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<Certificate>,
}

/// The gate's attackers, opened once.
struct GateParts {
    settings: GateSettings,
    index: Option<kanon_index::Index>,
    background: Option<Background>,
    lexicon: Option<Bm25Attacker>,
    neural: Option<NeuralScorer>,
}

impl GateParts {
    fn open(settings: &GateSettings) -> Result<Self> {
        let config = &settings.config;
        let index = match (&settings.index, config.runs(AttackerKind::Kg)) {
            (Some(dir), true) => {
                Some(kanon_index::Index::open(dir).map_err(kanon_gate::Error::Index)?)
            }
            (None, true) => {
                return Err(Error::Setting(
                    "the gate's KG attacker needs the KG's index (`[sanitize] index`)".into(),
                ));
            }
            _ => None,
        };
        let reid = config.runs(AttackerKind::Bm25) || config.runs(AttackerKind::Neural);
        let background = match (&settings.background, reid) {
            (Some(path), true) => Some(Background::read(path)?),
            (None, true) => {
                return Err(Error::Setting(
                    "the gate's BM25 and neural attackers need a background (`[certify] background`)"
                        .into(),
                ));
            }
            _ => None,
        };
        let lexicon = background.as_ref().map(Bm25Attacker::new).transpose()?;
        let neural = match (
            &background,
            &settings.neural,
            config.runs(AttackerKind::Neural),
        ) {
            (Some(background), Some(job), true) => Some(NeuralScorer::new(
                kanon_detect::reid::ReidModel::load_or_train(background, job, &NoProgress)
                    .map_err(kanon_gate::Error::Neural)?,
                background,
            )),
            (_, None, true) => {
                return Err(Error::Setting(
                    "the gate's neural attacker needs its checkpoint (`[certify.neural]`)".into(),
                ));
            }
            _ => None,
        };
        Ok(GateParts {
            settings: settings.clone(),
            index,
            background,
            lexicon,
            neural,
        })
    }
}

/// The loaded service.
pub struct Service {
    config: ServiceConfig,
    batcher: Batcher,
    models: SanitizerModels,
    gate: Option<GateParts>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("config", &self.config)
            .field("batcher", &self.batcher)
            .field("gate", &self.gate.is_some())
            .finish_non_exhaustive()
    }
}

/// A request's problem, answered 400 (the client's input) or 500 (the service's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The request is wrong: the message says how.
    BadRequest(String),
    /// The service failed.
    Failed(String),
}

impl Service {
    /// Loads the tagger (on the CPU) and opens the sanitizer's models and the gate's
    /// attackers.
    pub fn open(config: ServiceConfig) -> Result<Service> {
        config.validate()?;
        let model = config.model.clone().ok_or(Error::NoModel)?;
        if !model.is_dir() {
            return Err(Error::Missing {
                what: "the tagger's checkpoint directory",
                path: model,
            });
        }
        let detect = config.detect;
        Self::start(
            config,
            Box::new(move || -> Result<Box<dyn Detector>> {
                let device = kanon_tagger::device::cpu();
                Ok(Box::new(TaggerDetector::load(&model, &detect, &device)?))
            }),
        )
    }

    /// [`Service::open`] with another detector, which `open` makes on the detector's own
    /// thread (tests, or a detector without a KG).
    pub fn with_detector<D, F>(config: ServiceConfig, open: F) -> Result<Service>
    where
        D: Detector + 'static,
        F: FnOnce() -> Result<D> + Send + 'static,
    {
        Self::start(
            config,
            Box::new(move || open().map(|detector| Box::new(detector) as Box<dyn Detector>)),
        )
    }

    fn start(
        config: ServiceConfig,
        open_detector: crate::batcher::OpenDetector,
    ) -> Result<Service> {
        config.validate()?;
        let models = SanitizerModels::open(&config.sanitize)?;
        let gate = config.gate.as_ref().map(GateParts::open).transpose()?;
        let batcher = Batcher::start(
            open_detector,
            Duration::from_millis(config.serve.batch_wait_ms),
            config.serve.batch_tokens,
        )?;
        Ok(Service {
            config,
            batcher,
            models,
            gate,
        })
    }

    /// Its settings.
    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// What the batcher did so far.
    pub fn stats(&self) -> BatchStats {
        self.batcher.stats()
    }

    /// Whether the release gate runs on `/v1/sanitize`.
    pub fn has_gate(&self) -> bool {
        self.gate.is_some()
    }

    /// Each document's spans, as `kanon detect` writes them (through the batcher).
    pub async fn detect(&self, docs: Vec<Document>) -> Result<Vec<SpansRecord>> {
        let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
        let spans = self.batcher.detect(docs).await?;
        Ok(ids
            .into_iter()
            .zip(spans)
            .map(|(id, spans)| SpansRecord { id, spans })
            .collect())
    }

    /// Detects from a thread outside the runtime.
    pub fn detect_blocking(&self, docs: Vec<Document>) -> Result<Vec<SpansRecord>> {
        let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
        let spans = self.batcher.detect_blocking(docs)?;
        Ok(ids
            .into_iter()
            .zip(spans)
            .map(|(id, spans)| SpansRecord { id, spans })
            .collect())
    }

    /// The strategy a request names (default: the configured one), refused when it needs a
    /// model the service did not open.
    pub fn strategy(&self, name: Option<&str>) -> std::result::Result<Strategy, Refusal> {
        let configured = self.config.sanitize.sanitizer.strategy;
        let Some(name) = name else {
            return Ok(configured);
        };
        let strategy: Strategy = name
            .parse()
            .map_err(|e| Refusal::BadRequest(format!("strategy: {e}")))?;
        if strategy == configured {
            return Ok(strategy);
        }
        if strategy.generalizes() || strategy == Strategy::Substitute {
            return Err(Refusal::BadRequest(format!(
                "strategy {strategy} needs models the service opens only when it is the configured strategy ({configured}); the masking strategies (suppress, placeholder, label, numbered-label) need none"
            )));
        }
        Ok(strategy)
    }

    fn sanitizer(&self, strategy: Strategy) -> std::result::Result<Sanitizer<'_>, Refusal> {
        let mut config = self.config.sanitize.sanitizer.clone();
        config.strategy = strategy;
        self.models
            .sanitizer(&config)
            .map_err(|e| Refusal::Failed(format!("{e}")))
    }

    /// Sanitizes documents whose spans are known (`mentions[i]` for `docs[i]`), through the
    /// gate when it is configured and `certify` asks for it. Blocking: run it off the runtime.
    pub fn sanitize(
        &self,
        docs: &[DocumentIn],
        mentions: &[Vec<Mention>],
        strategy: Strategy,
        certify: bool,
    ) -> std::result::Result<Vec<SanitizedOut>, Refusal> {
        let sanitizer = self.sanitizer(strategy)?;
        match (&self.gate, certify) {
            (Some(gate), true) => self.certify(gate, &sanitizer, docs, mentions),
            _ => docs
                .iter()
                .zip(mentions)
                .map(|(doc, mentions)| {
                    sanitizer
                        .sanitize(&doc.id, &doc.text, mentions)
                        .map(|sanitized| SanitizedOut {
                            document: sanitized.document,
                            certificate: None,
                        })
                        .map_err(|e| Refusal::Failed(format!("sanitizing {:?}: {e}", doc.id)))
                })
                .collect(),
        }
    }

    /// One document sanitized without the gate: the output and where each edit's replacement
    /// stands in it (character ranges, edit order). Blocking.
    pub fn sanitize_rendered(
        &self,
        doc: &DocumentIn,
        mentions: &[Mention],
        strategy: Strategy,
    ) -> std::result::Result<(SanitizedDocument, Vec<std::ops::Range<usize>>), Refusal> {
        let sanitizer = self.sanitizer(strategy)?;
        let sanitized = sanitizer
            .sanitize(&doc.id, &doc.text, mentions)
            .map_err(|e| Refusal::Failed(format!("sanitizing: {e}")))?;
        Ok((sanitized.document, sanitized.replaced))
    }

    fn certify(
        &self,
        parts: &GateParts,
        sanitizer: &Sanitizer<'_>,
        docs: &[DocumentIn],
        mentions: &[Vec<Mention>],
    ) -> std::result::Result<Vec<SanitizedOut>, Refusal> {
        if sanitizer.config().strategy == Strategy::Substitute {
            return Err(Refusal::BadRequest(
                "the gate re-renders through the sanitizer, and `substitute` draws at random: certify another strategy".into(),
            ));
        }
        let config = &parts.settings.config;
        let mut attackers: Vec<&dyn ReidAttacker> = Vec::new();
        for kind in &config.attackers {
            match kind {
                AttackerKind::Bm25 => {
                    attackers.extend(parts.lexicon.as_ref().map(|a| a as &dyn ReidAttacker))
                }
                AttackerKind::Neural => {
                    attackers.extend(parts.neural.as_ref().map(|a| a as &dyn ReidAttacker))
                }
                AttackerKind::Kg => {}
            }
        }
        let kg = parts
            .index
            .as_ref()
            .filter(|_| config.runs(AttackerKind::Kg))
            .map(|index| kanon_gate::KgAttacker::new(index, config.labeler()));
        let gate = Gate::new(
            config.clone(),
            sanitizer,
            kg,
            attackers,
            parts.lexicon.as_ref(),
        )
        .map_err(|e| Refusal::Failed(format!("{e}")))?;
        let inputs: Vec<GateInput<'_>> = docs
            .iter()
            .zip(mentions)
            .map(|(doc, mentions)| GateInput {
                id: &doc.id,
                text: &doc.text,
                mentions,
                person: parts
                    .background
                    .as_ref()
                    .and_then(|b| b.person(doc.person.as_deref()?)),
            })
            .collect();
        let mut out = Vec::with_capacity(docs.len());
        for batch in inputs.chunks(config.batch.max(1)) {
            for gated in gate
                .certify(batch)
                .map_err(|e| Refusal::Failed(format!("certifying: {e}")))?
            {
                out.push(SanitizedOut {
                    document: gated.document,
                    certificate: Some(gated.certificate),
                });
            }
        }
        Ok(out)
    }
}

/// Checks a request's documents: some, at most `max`, ids unique, spans inside their texts.
pub fn check_documents(docs: &[DocumentIn], max: usize) -> std::result::Result<(), Refusal> {
    if docs.is_empty() {
        return Err(Refusal::BadRequest("documents: none given".into()));
    }
    if docs.len() > max {
        return Err(Refusal::BadRequest(format!(
            "documents: {} given, at most {max} per request",
            docs.len()
        )));
    }
    let mut seen = HashSet::new();
    for (i, doc) in docs.iter().enumerate() {
        if !seen.insert(doc.id.as_str()) {
            return Err(Refusal::BadRequest(format!(
                "documents[{i}]: id {:?} repeats an earlier document's",
                doc.id
            )));
        }
        if let Some(spans) = &doc.spans {
            let chars = doc.text.chars().count();
            for (j, span) in spans.iter().enumerate() {
                if !span.fits(chars) {
                    return Err(Refusal::BadRequest(format!(
                        "documents[{i}].spans[{j}]: start {} and end {} are not a span of the {chars}-character text",
                        span.start, span.end
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The sanitizer's mentions of spans records, as `kanon sanitize` reads a spans file (a span
/// without a type is MISC).
pub fn mentions_of(spans: &[SpanRecord]) -> Vec<Mention> {
    spans.iter().map(Mention::of_record).collect()
}

/// The documents of a request as kanon's records.
pub fn documents_of(docs: &[DocumentIn]) -> Vec<Document> {
    docs.iter()
        .map(|doc| Document {
            id: doc.id.clone(),
            person: doc.person.clone(),
            text: doc.text.clone(),
            split: None,
        })
        .collect()
}

/// Whether `path` is a tagger checkpoint directory (`labels.json` beside the weights).
pub fn is_checkpoint(path: &Path) -> bool {
    path.join("labels.json").is_file()
}
