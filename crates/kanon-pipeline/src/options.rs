//! What a run is told (its options) and what it tells (its events): shared by the loop over the
//! stages and by the stages themselves.

use std::path::Path;

use serde::Serialize;

use crate::record::StageRecord;
use crate::stage::{Action, Stage};

/// How a run goes.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Rerun this stage and every stage after it; the stages before it must be done.
    pub from: Option<Stage>,
    /// Stop after this stage.
    pub until: Option<Stage>,
    /// Rerun every stage in range, done or not.
    pub force: bool,
    /// Asked between training steps and between sanitized documents: `true` stops the run, the
    /// training state saved and the finished documents kept (the other stages are short and
    /// atomic). A rerun resumes.
    pub should_stop: Option<&'a (dyn Fn() -> bool + Sync)>,
    /// Where the tagger trains and detects (`auto`: a GPU when the build and the machine have
    /// one). Not part of a stage's hash: a model trained on a GPU is the same stage's output.
    pub device: kanon_tagger::device::DeviceChoice,
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("from", &self.from)
            .field("until", &self.until)
            .field("force", &self.force)
            .field("should_stop", &self.should_stop.is_some())
            .field("device", &self.device)
            .finish()
    }
}

impl RunOptions<'_> {
    /// Whether the user asked the run to stop.
    pub(crate) fn stop_requested(&self) -> bool {
        self.should_stop.is_some_and(|stop| stop())
    }

    pub(crate) fn in_range(&self, stage: Stage) -> bool {
        self.from.is_none_or(|from| stage >= from) && self.until.is_none_or(|until| stage <= until)
    }
}

/// A stage and what the run will do with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedStage {
    /// The stage.
    pub stage: Stage,
    /// What this run does with it.
    pub action: Action,
    /// The hash of its parameters and inputs, when the config has the stage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// What a run tells whoever shows it, besides the progress of each stage.
#[derive(Debug)]
pub enum Event<'a> {
    /// Before anything runs: every stage and what will happen to it.
    Plan(&'a [PlannedStage]),
    /// A model is not cached yet and is being fetched.
    Fetching {
        /// The model's name in the cache.
        model: &'a str,
    },
    /// A stage starts.
    Started {
        /// The stage.
        stage: Stage,
        /// Run, resume or rerun.
        action: Action,
    },
    /// A stage finished.
    Finished {
        /// The stage.
        stage: Stage,
        /// Its record, as written to its directory.
        record: &'a StageRecord,
    },
    /// The run's report is written.
    Reported {
        /// The report's Markdown file.
        markdown: &'a Path,
    },
}
