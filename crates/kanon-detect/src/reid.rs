//! The re-identification model: a BERT classifier over the people of a background (those with a
//! public text), fine-tuned on windows of their texts with random masking. The evaluation's
//! neural attacker is one; trained with whole-word masks ([`ClassifierConfig::word_masks`]) it is
//! the model that guides the `reid-greedy` detector.

use std::path::PathBuf;

use kanon_core::Progress;
use kanon_core::background::Background;
use kanon_core::config::ConfigFile;
use kanon_tagger::checkpoint::Precision;
use kanon_tagger::classifier::{
    self, CLASSES_FILE, ClassifierConfig, ClassifierTrainJob, LabeledText, TextClassifier,
};
use kanon_tagger::train::TrainOptions;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A re-identification model's checkpoint and how to train it when there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReidModelJob {
    /// The trained model: reused when it exists (it must have been trained on the same
    /// background with the same config), else trained here (resuming an interrupted training).
    pub checkpoint: PathBuf,
    /// The encoder to fine-tune: a model of kanon's cache or a BERT checkpoint directory.
    #[serde(default = "default_pretrained")]
    pub pretrained: String,
    /// The classifier's training knobs.
    #[serde(default)]
    pub config: ClassifierConfig,
    /// The arithmetic it reads texts with (`int8`: the encoder's linear maps in 8-bit
    /// integers on the CPU, about twice as fast; training is f32 either way).
    #[serde(default, skip_serializing_if = "is_f32")]
    pub precision: Precision,
}

fn is_f32(precision: &Precision) -> bool {
    *precision == Precision::F32
}

fn default_pretrained() -> String {
    kanon_models::DEFAULT_ENCODER.into()
}

/// A fine-tuned classifier over the background's people; a document's score for a person is the
/// sum of its windows' log-probabilities.
#[derive(Debug)]
pub struct ReidModel {
    classifier: TextClassifier,
    /// The background index of each class.
    person_of_class: Vec<usize>,
    /// The class of each background person (none for those without a text).
    class_of_person: Vec<Option<usize>>,
}

/// The classes (people with a background text, in background order) and their texts.
fn training_set(background: &Background) -> (Vec<String>, Vec<usize>, Vec<LabeledText>) {
    let mut classes = Vec::new();
    let mut people = Vec::new();
    let mut texts = Vec::new();
    for person in 0..background.len() {
        if let Some(text) = background.text(person) {
            texts.push(LabeledText {
                class: classes.len(),
                text: text.to_owned(),
            });
            classes.push(background.name(person).to_owned());
            people.push(person);
        }
    }
    (classes, people, texts)
}

impl ReidModel {
    /// Loads the job's checkpoint when it exists, else trains it (resuming an interrupted run).
    pub fn load_or_train(
        background: &Background,
        job: &ReidModelJob,
        progress: &dyn Progress,
    ) -> Result<Self> {
        let (classes, people, texts) = training_set(background);
        if !job.checkpoint.join(CLASSES_FILE).exists() {
            let train_job = ClassifierTrainJob {
                pretrained: job.pretrained.clone(),
                out: job.checkpoint.clone(),
                config: job.config.clone(),
            };
            let options = TrainOptions {
                resume: true,
                ..TrainOptions::default()
            };
            classifier::train(&train_job, &classes, &texts, &options, progress)
                .map_err(Error::Model)?;
        }
        let classifier = TextClassifier::load(&job.checkpoint, &burn::tensor::Device::flex())
            .map_err(Error::Model)?
            .with_precision(job.precision);
        if classifier.classes() != classes.as_slice() {
            return Err(kanon_core::Error::format(
                job.checkpoint.join(CLASSES_FILE),
                "the model was trained on another background (its people differ): delete the \
                 checkpoint or name another one",
            )
            .into());
        }
        let saved = job
            .checkpoint
            .join(kanon_tagger::checkpoint::TRAIN_CONFIG_FILE);
        let trained_with = ClassifierConfig::load(&saved)?;
        if trained_with != job.config {
            return Err(kanon_core::Error::format(
                saved,
                "the model was trained with other settings: delete the checkpoint or name another one",
            )
            .into());
        }
        let mut class_of_person = vec![None; background.len()];
        for (class, &person) in people.iter().enumerate() {
            class_of_person[person] = Some(class);
        }
        Ok(ReidModel {
            classifier,
            person_of_class: people,
            class_of_person,
        })
    }

    /// The fine-tuned classifier.
    pub fn classifier(&self) -> &TextClassifier {
        &self.classifier
    }

    /// The class of a background person; none when the background has no text about them.
    pub fn class_of(&self, person: usize) -> Option<usize> {
        self.class_of_person.get(person).copied().flatten()
    }

    /// The background person of a class.
    pub fn person_of(&self, class: usize) -> usize {
        self.person_of_class[class]
    }

    /// For each text, the `k` background people it most likely is about, best first.
    pub fn rank_many(&self, texts: &[&str], k: usize) -> Result<Vec<Vec<usize>>> {
        let scores = self.classifier.scores(texts).map_err(Error::Model)?;
        Ok(scores
            .into_iter()
            .map(|row| {
                let mut order: Vec<usize> = (0..row.len()).collect();
                // Best first; ties by class order, so the ranking is deterministic.
                order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
                order
                    .into_iter()
                    .take(k)
                    .map(|class| self.person_of_class[class])
                    .collect()
            })
            .collect())
    }
}

/// The background person a document is about (its `person`), or an error naming the document.
pub fn person_of(background: &Background, doc: &kanon_core::Document) -> Result<usize> {
    let Some(name) = &doc.person else {
        return Err(Error::Document {
            id: doc.id.clone(),
            problem: "no `person`: this method needs to know whom each document is about".into(),
        });
    };
    background.person(name).ok_or_else(|| Error::Document {
        id: doc.id.clone(),
        problem: format!("its person {name:?} is not in the background"),
    })
}
