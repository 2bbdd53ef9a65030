//! One run's config: a section per stage, each the stage's own type ([`crate::stages`]),
//! holding that stage's config type (the one its command reads) plus the inputs a stage takes
//! when the stage before it is not part of the run. A missing section skips its stage.
//! Relative paths are relative to the config file, so a run works from any working directory.

use std::path::Path;

use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::stage::Stage;
pub use crate::stages::certify::CertifyStage;
pub use crate::stages::detect::DetectStage;
pub use crate::stages::eval::EvalStage;
pub use crate::stages::index::IndexStage;
pub use crate::stages::kg::KgStage;
pub use crate::stages::label::LabelStage;
pub use crate::stages::sanitize::SanitizeStage;
pub use crate::stages::train::TrainStage;
use crate::stages::{Layout, PipelineStage};

/// Every stage of a run; a stage without its section is not run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The run's name: its directory is `runs/<name>/` unless `--out` says otherwise (default:
    /// the config file's name without its extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Where the knowledge graph comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kg: Option<KgStage>,
    /// The inverted index over the KG.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexStage>,
    /// k-anonymity distant labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<LabelStage>,
    /// The tagger's fine-tuning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<TrainStage>,
    /// Detection of the spans to mask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detect: Option<DetectStage>,
    /// Sanitization of the spans, and its baselines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanitize: Option<SanitizeStage>,
    /// The release gate on the sanitized documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certify: Option<CertifyStage>,
    /// The evaluation of every sanitization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<EvalStage>,
}

impl ConfigFile for RunConfig {
    fn check(&self) -> std::result::Result<(), String> {
        self.sections()
            .into_iter()
            .flatten()
            .try_for_each(PipelineStage::validate)
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
        self.section(stage).is_some()
    }

    /// A stage's section, when the config has one.
    pub(crate) fn section(&self, stage: Stage) -> Option<&dyn PipelineStage> {
        self.sections()
            .into_iter()
            .flatten()
            .find(|section| section.stage() == stage)
    }

    /// Every stage's section, in the order data flows through them.
    pub(crate) fn sections(&self) -> [Option<&dyn PipelineStage>; 8] {
        fn dyn_section<S: PipelineStage>(section: &Option<S>) -> Option<&dyn PipelineStage> {
            section.as_ref().map(|s| s as &dyn PipelineStage)
        }
        [
            dyn_section(&self.kg),
            dyn_section(&self.index),
            dyn_section(&self.label),
            dyn_section(&self.train),
            dyn_section(&self.detect),
            dyn_section(&self.sanitize),
            dyn_section(&self.certify),
            dyn_section(&self.eval),
        ]
    }

    fn sections_mut(&mut self) -> [Option<&mut dyn PipelineStage>; 8] {
        fn dyn_section<S: PipelineStage>(
            section: &mut Option<S>,
        ) -> Option<&mut dyn PipelineStage> {
            section.as_mut().map(|s| s as &mut dyn PipelineStage)
        }
        [
            dyn_section(&mut self.kg),
            dyn_section(&mut self.index),
            dyn_section(&mut self.label),
            dyn_section(&mut self.train),
            dyn_section(&mut self.detect),
            dyn_section(&mut self.sanitize),
            dyn_section(&mut self.certify),
            dyn_section(&mut self.eval),
        ]
    }

    /// Which stages the config has, and the files it names in place of the outputs of those it
    /// has not: all that a stage reads of the rest of the config.
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            present: self
                .sections()
                .into_iter()
                .flatten()
                .map(|section| section.stage())
                .collect(),
            kg_dir: match &self.kg {
                Some(KgStage::Dir { path }) => Some(path.clone()),
                _ => None,
            },
            label_docs: self.label.as_ref().and_then(|label| label.docs.clone()),
            train_corpus: self.train.as_ref().and_then(|train| train.corpus.clone()),
            detect_model: self
                .detect
                .as_ref()
                .and_then(|detect| detect.named_model().cloned()),
            sanitize_docs: self
                .sanitize
                .as_ref()
                .and_then(|sanitize| sanitize.docs.clone()),
            sanitizations: self
                .sanitize
                .as_ref()
                .map(|sanitize| {
                    std::iter::once(sanitize.settings.sanitizer.strategy)
                        .chain(sanitize.baselines.iter().copied())
                        .collect()
                })
                .unwrap_or_default(),
            sanitize_spans: self
                .sanitize
                .as_ref()
                .and_then(|sanitize| sanitize.spans.clone()),
            sanitize_settings: self
                .sanitize
                .as_ref()
                .map(|sanitize| sanitize.settings.clone()),
            certified: self
                .certify
                .as_ref()
                .map(|certify| certify.certified(self.sanitize.as_ref()))
                .unwrap_or_default(),
        }
    }

    /// Makes every relative path relative to `base` (the config file's directory).
    pub fn resolve_paths(&mut self, base: &Path) {
        for section in self.sections_mut().into_iter().flatten() {
            section.resolve_paths(base);
        }
    }
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
    use crate::stages::normalize;
    use kanon_sanitize::Strategy;

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
                baselines: vec![Strategy::Label],
                ..SanitizeStage::default()
            }),
            certify: Some(CertifyStage::default()),
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
        assert_eq!(
            config.sanitize.unwrap().settings.sanitizer.strategy,
            Strategy::Label
        );
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
        assert!(
            err.contains("sanitize.baselines") && err.contains("\"lable\""),
            "{err}"
        );
        // The section is `kanon sanitize`'s settings (flattened) plus the stage's inputs: both
        // read, and a key of neither is named.
        std::fs::write(
            &path,
            "[sanitize]\ndocs = \"tab.json\"\nspans = { from = \"gold\" }\nlimit = 3\nworkers = 2\n\
             [sanitize.config]\ncandidates = 4\n",
        )
        .unwrap();
        let sanitize = RunConfig::load_with(&path, &[]).unwrap().sanitize.unwrap();
        assert_eq!(sanitize.spans, Some(kanon_sanitize::SpanSource::Gold));
        assert_eq!(sanitize.settings.limit, Some(3));
        assert_eq!(sanitize.settings.workers, 2);
        assert_eq!(sanitize.settings.sanitizer.candidates, 4);
        std::fs::write(
            &path,
            "[sanitize]\ndocs = \"tab.json\"\ngold_spans = true\n",
        )
        .unwrap();
        let err = format!("{:#}", RunConfig::load_with(&path, &[]).unwrap_err());
        assert!(
            err.contains("run.toml") && err.contains("gold_spans"),
            "{err}"
        );
        let err = RunConfig::load_with(&path, &["nonsense".into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected KEY=VALUE"), "{err}");
    }
}
