//! The run's report: a table of the stages (what the run did with each, its time, peak memory
//! and summary), then the evaluation's table and plot. Written as `report.md` and `report.json`
//! in the run directory.

use std::io::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::paths::{RunPaths, SPAN_SCORES_MARKDOWN};
use crate::record::StageRecord;
use crate::stage::{Action, Stage};

/// One stage in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageRow {
    /// The stage.
    pub stage: Stage,
    /// What this invocation did with it.
    pub action: Action,
    /// Its record (from this invocation, or from the one that ran it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<StageRecord>,
}

/// The run's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The run's name (its config's).
    pub name: String,
    /// Every stage, in order, configured or not.
    pub stages: Vec<StageRow>,
    /// The detector's span scores against the gold annotations (Markdown), when the run detects
    /// and its eval stage has gold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detection: Option<String>,
    /// The release gate's table (Markdown), when the run has a certify stage that finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// The evaluation's table (Markdown), when the run has an eval stage that finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<String>,
    /// The privacy–utility plot, relative to the run directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plot: Option<String>,
}

impl RunReport {
    /// The report of the stages' rows, with the evaluation's tables and plot when the eval stage
    /// finished.
    pub fn new(name: String, stages: Vec<StageRow>, paths: &RunPaths) -> Self {
        let eval_dir = paths.stage_dir(Stage::Eval);
        let finished = stages
            .iter()
            .any(|row| row.stage == Stage::Eval && row.record.is_some());
        let evaluation = finished
            .then(|| std::fs::read_to_string(eval_dir.join(kanon_eval::report::REPORT_MARKDOWN)))
            .and_then(|read| read.ok());
        let detection = finished
            .then(|| std::fs::read_to_string(eval_dir.join(SPAN_SCORES_MARKDOWN)))
            .and_then(|read| read.ok());
        let plot = (finished && eval_dir.join(kanon_eval::report::REPORT_PLOT).exists())
            .then(|| format!("eval/{}", kanon_eval::report::REPORT_PLOT));
        let gate = stages
            .iter()
            .any(|row| row.stage == Stage::Certify && row.record.is_some())
            .then(|| std::fs::read_to_string(paths.gate_markdown()))
            .and_then(|read| read.ok());
        RunReport {
            name,
            stages,
            gate,
            detection,
            evaluation,
            plot,
        }
    }

    /// The report as Markdown.
    pub fn markdown(&self) -> String {
        let mut out = format!("# kanon run: {}\n\n", self.name);
        out += "| stage | this run | seconds | peak memory | summary |\n";
        out += "| --- | --- | --- | --- | --- |\n";
        for row in &self.stages {
            let (seconds, memory, summary) = match &row.record {
                Some(record) => (
                    format!("{:.1}", record.seconds),
                    record.peak_rss_bytes.map_or_else(
                        || "–".into(),
                        |b| format!("{:.0} MiB", b as f64 / 1048576.0),
                    ),
                    record.summary.replace('|', "\\|"),
                ),
                None => ("–".into(), "–".into(), String::new()),
            };
            out += &format!(
                "| {} | {} | {seconds} | {memory} | {summary} |\n",
                row.stage,
                row.action.describe()
            );
        }
        out += "\nSeconds and peak memory are those of the invocation that ran the stage.\n";
        if let Some(gate) = &self.gate {
            out += "\n## Release gate\n\n";
            out += gate;
        }
        if let Some(detection) = &self.detection {
            out += "\n## Detection against the gold annotations\n\n";
            out += detection;
        }
        if let Some(evaluation) = &self.evaluation {
            out += "\n## Evaluation\n\n";
            out += evaluation;
            if let Some(plot) = &self.plot {
                out += &format!("\n![privacy–utility]({plot})\n");
            }
        }
        out
    }

    /// Writes `report.json` and `report.md` into the run directory, atomically.
    pub fn write(&self, paths: &RunPaths) -> Result<()> {
        kanon_core::io::write_json(&paths.report_json(), self)?;
        let markdown = self.markdown();
        kanon_core::io::atomic_write(&paths.report_markdown(), |w| {
            w.write_all(markdown.as_bytes())
        })?;
        Ok(())
    }

    /// The stage table as a person reads it on a terminal, then where the report is.
    pub fn render(&self, markdown: &Path) -> String {
        let mut out = String::new();
        for row in &self.stages {
            if let Some(record) = &row.record {
                out += &format!(
                    "{:<9} {:<16} {:>8.1}s  {}\n",
                    row.stage.name(),
                    row.action.describe(),
                    record.seconds,
                    record.summary
                );
            }
        }
        out += &format!("report: {}\n", markdown.display());
        out
    }
}
