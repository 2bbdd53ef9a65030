//! One run's config: a section per stage, each holding that stage's own config type (the one its
//! command reads), plus the inputs a stage takes when the stage before it is not part of the run.
//! A missing section skips its stage. Relative paths are relative to the config file, so a run
//! works from any working directory.

use std::path::{Path, PathBuf};

use kanon_core::config::ConfigFile;
use kanon_core::shard::Shard;
use kanon_eval::job::{TpsModels, Truth};
use kanon_eval::privacy::NeuralAttackerJob;
use kanon_kg::Source;
use kanon_kg::synth::SynthConfig;
use kanon_label::CorpusFormat;
use kanon_label::algorithm::LabelerConfig;
use kanon_llm::{LlmConfig, ResponseCache};
use kanon_sanitize::{SanitizerConfig, Strategy};
use kanon_tagger::{DetectConfig, TrainConfig};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::stage::Stage;

/// Every stage of a run; a stage without its section is not run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The run's name: its directory is `runs/<name>/` unless `--out` says otherwise (default:
    /// the config file's name without its extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kg: Option<KgStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<LabelStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<TrainStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detect: Option<DetectStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanitize: Option<SanitizeStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<EvalStage>,
}

/// Where the knowledge graph comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case", deny_unknown_fields)]
pub enum KgStage {
    /// A KG directory made earlier (`kanon kg import`, `kanon kg synth`, the bundled `kg/sample`).
    Dir { path: PathBuf },
    /// Sources imported and merged (`kanon kg import`).
    Import {
        sources: Vec<Source>,
        #[serde(default = "default_lang")]
        lang: String,
        #[serde(default)]
        skip_invalid: bool,
    },
    /// A synthetic population with biographies (`kanon kg synth`), kept in the KG directory.
    Synth {
        #[serde(default)]
        config: SynthConfig,
    },
}

fn default_lang() -> String {
    "en".into()
}

/// `kanon index build`'s settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexStage {
    /// Extra generic terms never to index (one a line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whitelist: Option<PathBuf>,
    /// Use only `whitelist`, not the default one.
    #[serde(default)]
    pub replace_whitelist: bool,
}

/// `kanon label`'s settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelStage {
    /// Documents JSONL `{"id","person","text"}` (default: the KG's own, `docs.jsonl` in its
    /// directory: a synthetic KG's biographies, an import's Google-RE snippets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
    #[serde(default)]
    pub config: LabelerConfig,
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
    #[serde(default)]
    pub config: TrainConfig,
}

fn default_pretrained() -> String {
    "all-minilm-l6-v2".into()
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

/// `kanon sanitize`'s settings, and the baselines compared with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SanitizeStage {
    /// Documents, when the run has no detect stage (default: the detect stage's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
    /// A spans file, when the run has no detect stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spans: Option<PathBuf>,
    /// Replace the gold DIRECT and QUASI mentions of TAB-schema `docs` instead.
    #[serde(default)]
    pub gold_spans: bool,
    /// Only the first N documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub config: SanitizerConfig,
    /// The generator (default: the embedded model, when the strategy generalizes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmConfig>,
    /// INTACT's attacker, when it is not `llm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacker_llm: Option<LlmConfig>,
    /// Where model answers are kept (default: `$KANON_LLM_CACHE`, else `~/.cache/kanon/llm`).
    #[serde(default)]
    pub cache: ResponseCache,
    /// Also write the audit (originals, candidates, guesses): as sensitive as the input.
    #[serde(default)]
    pub audit: bool,
    /// Other strategies run on the same spans, for the evaluation to compare (`label`,
    /// `suppress`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub baselines: Vec<String>,
    /// Documents sanitized at once (default 1): more for an HTTP server or pool that answers in
    /// parallel; the output is the same for any number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<usize>,
    /// Only part `I/N` of the documents (a batch scheduler's array task): the run must stop
    /// after this stage (`--until`), and `kanon merge` joins the parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

/// The evaluation of the sanitized output (`kanon eval report`, and `kanon eval spans` when
/// there is gold and a detector).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalStage {
    /// TAB-schema gold: masking recall of every sanitization, span scores of the detector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<PathBuf>,
    /// Public background texts `[{"name","public_knowledge"}]` for the re-identification attacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
    /// Instead of `background`: the KG's facts, one text per person, as what the attacker knows
    /// (documents are then matched to people by their `person` field).
    #[serde(default)]
    pub background_from_kg: bool,
    #[serde(default)]
    pub truth: Truth,
    /// Also attack with a fine-tuned BERT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neural: Option<NeuralAttackerJob>,
    /// Measure TPS with these models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tps: Option<TpsModels>,
}

impl ConfigFile for RunConfig {
    fn check(&self) -> std::result::Result<(), String> {
        if let Some(sanitize) = &self.sanitize {
            sanitize
                .config
                .check()
                .map_err(|problem| format!("sanitize.config.{problem}"))?;
            for baseline in &sanitize.baselines {
                baseline
                    .parse::<Strategy>()
                    .map_err(|e| format!("sanitize.baselines = {baseline:?} ({e})"))?;
            }
        }
        if let Some(detect) = &self.detect {
            detect
                .config
                .validate()
                .map_err(|problem| format!("detect.config: {problem}"))?;
            if detect.docs.is_some() == detect.corpus_split.is_some() {
                return Err("detect: give exactly one of `docs` and `corpus_split`".into());
            }
        }
        Ok(())
    }
}

impl RunConfig {
    /// Reads a run config, applies `overrides` (`key.path=value`, the value in TOML: `5`,
    /// `"text"`, `true`), checks it and makes its relative paths relative to the file.
    pub fn load_with(path: &Path, overrides: &[String]) -> Result<RunConfig> {
        let mut config = if overrides.is_empty() {
            RunConfig::load(path)?
        } else {
            let text = std::fs::read_to_string(path).map_err(|e| kanon_core::Error::io(path, e))?;
            let mut table: toml::Table = kanon_core::config::from_toml(path, &text)?;
            for assignment in overrides {
                apply_override(&mut table, assignment)?;
            }
            let text = toml::to_string(&table).map_err(|e| {
                Error::Setting(format!("the config with its overrides is not TOML: {e}"))
            })?;
            let config: RunConfig = kanon_core::config::from_toml(path, &text)?;
            config
                .check()
                .map_err(|problem| kanon_core::Error::format(path, problem))?;
            config
        };
        let base = path.parent().unwrap_or(Path::new(""));
        config.resolve_paths(base);
        if config.name.is_none() {
            config.name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        }
        Ok(config)
    }

    /// The stages the config has a section for.
    pub fn has(&self, stage: Stage) -> bool {
        match stage {
            Stage::Kg => self.kg.is_some(),
            Stage::Index => self.index.is_some(),
            Stage::Label => self.label.is_some(),
            Stage::Train => self.train.is_some(),
            Stage::Detect => self.detect.is_some(),
            Stage::Sanitize => self.sanitize.is_some(),
            Stage::Eval => self.eval.is_some(),
        }
    }

    /// Makes every relative path relative to `base` (the config file's directory).
    pub fn resolve_paths(&mut self, base: &Path) {
        let fix = |path: &mut PathBuf| {
            if path.is_relative() {
                *path = normalize(&base.join(&*path));
            }
        };
        let fix_opt = |path: &mut Option<PathBuf>| {
            if let Some(path) = path {
                fix(path);
            }
        };
        match &mut self.kg {
            Some(KgStage::Dir { path }) => fix(path),
            Some(KgStage::Import { sources, .. }) => {
                sources.iter_mut().flat_map(|s| &mut s.inputs).for_each(fix);
            }
            Some(KgStage::Synth { .. }) | None => {}
        }
        if let Some(index) = &mut self.index {
            fix_opt(&mut index.whitelist);
        }
        if let Some(label) = &mut self.label {
            fix_opt(&mut label.docs);
        }
        if let Some(train) = &mut self.train {
            fix_opt(&mut train.corpus);
            // A checkpoint directory rather than a name of the model cache.
            let local = normalize(&base.join(&train.pretrained));
            if kanon_models::spec(&train.pretrained).is_err() && local.exists() {
                train.pretrained = local.to_string_lossy().into_owned();
            }
        }
        if let Some(detect) = &mut self.detect {
            fix_opt(&mut detect.docs);
            fix_opt(&mut detect.model);
            fix_opt(&mut detect.background);
            if let Some(kanon_detect::job::Method::ReidGreedy { model, .. }) = &mut detect.method {
                fix(&mut model.checkpoint);
            }
        }
        if let Some(sanitize) = &mut self.sanitize {
            fix_opt(&mut sanitize.docs);
            fix_opt(&mut sanitize.spans);
            if let ResponseCache::Dir(path) = &mut sanitize.cache {
                fix(path);
            }
        }
        if let Some(eval) = &mut self.eval {
            fix_opt(&mut eval.gold);
            fix_opt(&mut eval.background);
            if let Truth::Map { path } = &mut eval.truth {
                fix(path);
            }
            if let Some(neural) = &mut eval.neural {
                fix(&mut neural.checkpoint);
            }
        }
    }
}

/// `a/b/../c` → `a/c`, without touching the file system (a `..` at the start stays).
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Sets `a.b.c = value` in a TOML table, creating the tables on the way.
fn apply_override(table: &mut toml::Table, assignment: &str) -> Result<()> {
    let bad = |why: &str| Error::Setting(format!("--set {assignment:?}: {why}"));
    let (key, value) = assignment
        .split_once('=')
        .ok_or_else(|| bad("expected KEY=VALUE, e.g. train.config.max_steps=50"))?;
    let value: toml::Value = match format!("v = {}", value.trim()).parse::<toml::Table>() {
        Ok(mut parsed) => parsed.remove("v").unwrap_or(toml::Value::Boolean(false)),
        // A bare word is a string: `sanitize.config.strategy.type=label`.
        Err(_) => toml::Value::String(value.trim().to_owned()),
    };
    let parts: Vec<&str> = key.trim().split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad("empty key"));
    }
    let (last, parents) = parts.split_last().ok_or_else(|| bad("empty key"))?;
    let mut current = table;
    for part in parents {
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = entry
            .as_table_mut()
            .ok_or_else(|| bad(&format!("`{part}` is not a table")))?;
    }
    current.insert(last.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_resolves_paths_relative_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let config = RunConfig {
            name: Some("t".into()),
            kg: Some(KgStage::Dir {
                path: "kg/sample".into(),
            }),
            index: Some(IndexStage::default()),
            label: Some(LabelStage {
                docs: Some("docs.jsonl".into()),
                ..LabelStage::default()
            }),
            train: Some(TrainStage::default()),
            detect: Some(DetectStage {
                corpus_split: Some("test".into()),
                limit: Some(5),
                ..DetectStage::default()
            }),
            sanitize: Some(SanitizeStage {
                baselines: vec!["label".into()],
                ..SanitizeStage::default()
            }),
            eval: Some(EvalStage {
                background_from_kg: true,
                ..EvalStage::default()
            }),
        };
        for name in ["run.toml", "run.json"] {
            let path = dir.path().join(name);
            config.save(&path).unwrap();
            let loaded = RunConfig::load_with(&path, &[]).unwrap();
            let mut expected = config.clone();
            expected.resolve_paths(dir.path());
            assert_eq!(loaded, expected);
            assert_eq!(
                loaded.label.unwrap().docs.unwrap(),
                dir.path().join("docs.jsonl")
            );
        }
    }

    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(
            normalize(Path::new("a/configs/../kg/./sample")),
            Path::new("a/kg/sample")
        );
        assert_eq!(
            normalize(Path::new("../../shared/x")),
            Path::new("../../shared/x")
        );
        assert_eq!(normalize(Path::new("/w/configs/../../s")), Path::new("/s"));
    }

    #[test]
    fn overrides_replace_values_and_bad_keys_name_the_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.toml");
        std::fs::write(
            &path,
            "[train]\n[train.config]\nmax_steps = 10\n[sanitize.config.strategy]\ntype = \"intact\"\n",
        )
        .unwrap();
        let config = RunConfig::load_with(
            &path,
            &[
                "train.config.max_steps=3".into(),
                "sanitize.config.strategy.type=label".into(),
            ],
        )
        .unwrap();
        assert_eq!(config.train.unwrap().config.max_steps, Some(3));
        assert_eq!(config.sanitize.unwrap().config.strategy, Strategy::Label);
        assert_eq!(config.name.as_deref(), Some("run"));

        std::fs::write(&path, "[train]\nepochs = 2\n").unwrap();
        let err = RunConfig::load_with(&path, &[]).unwrap_err().to_string();
        assert!(
            err.contains("run.toml:2: key `train`: unknown field `epochs`"),
            "{err}"
        );
        std::fs::write(&path, "[train.config]\nepochs = \"two\"\n").unwrap();
        let err = RunConfig::load_with(&path, &[]).unwrap_err().to_string();
        assert!(
            err.contains("run.toml:2: key `train.config.epochs`"),
            "{err}"
        );
        std::fs::write(&path, "[sanitize]\nbaselines = [\"lable\"]\n").unwrap();
        let err = RunConfig::load_with(&path, &[]).unwrap_err().to_string();
        assert!(err.contains("sanitize.baselines = \"lable\""), "{err}");
        let err = RunConfig::load_with(&path, &["nonsense".into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected KEY=VALUE"), "{err}");
    }
}
