//! kanon's stages as one run (`kanon run`): KG → index → label → train → detect → sanitize →
//! eval from one config ([`RunConfig`], a section per stage holding that stage's own config),
//! each stage's output in the run directory with the hash of its inputs and parameters. A stage
//! whose hash matches a finished record is skipped, an interrupted one resumes (label shards,
//! training state and sanitize's partial output know how), a changed parameter reruns that stage
//! and every stage that reads it. One report closes the run.
//!
//! ```
//! use kanon_pipeline::{Action, Pipeline, RunConfig, RunOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let config_path = dir.path().join("corpus.toml");
//! std::fs::write(&config_path, r#"
//!     [kg]
//!     from = "synth"
//!     config = { people = 30, seed = 7, doc_rate = 1.0 }
//!     [index]
//!     [label]
//!     config = { k = 2 }
//! "#)?;
//! let config = RunConfig::load_with(&config_path, &[])?;
//! let pipeline = Pipeline::new(config, dir.path().join("runs/corpus"))?;
//! let options = RunOptions::default();
//!
//! let report = pipeline.run(&options, &kanon_core::NoProgress, &mut |_| {})?;
//! assert_eq!(report.stages[2].action, Action::Run);
//! // A second run finds every stage done with the same inputs and parameters.
//! let actions: Vec<Action> = pipeline.plan(&options)?.iter().map(|s| s.action).collect();
//! assert_eq!(&actions[..3], &[Action::Skip; 3]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod config;
pub mod error;
pub mod memory;
pub mod options;
pub mod paths;
pub mod record;
pub mod report;
pub mod run;
pub mod stage;
pub mod stages;

pub use config::RunConfig;
pub use error::{Error, Result};
pub use options::{Event, PlannedStage, RunOptions};
pub use paths::RunPaths;
pub use record::StageRecord;
pub use report::RunReport;
pub use run::Pipeline;
pub use stage::{Action, Stage};
pub use stages::StageSummary;
