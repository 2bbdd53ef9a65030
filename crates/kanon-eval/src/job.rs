//! `kanon eval spans|tab` as a job: gold and predictions in, a report out.

use std::path::PathBuf;

use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::io::{read_gold, read_predictions};
use crate::spans::{SpanReport, evaluate_spans};
use crate::tab::{TabReport, evaluate_tab};

/// Which files to score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalJob {
    /// TAB-schema JSON (its DIRECT and QUASI mentions are the spans to mask); for span scores
    /// also TAB's system format `{doc_id: [[start, end], …]}`.
    pub gold: PathBuf,
    /// Spans JSONL (`kanon detect`, a kanon corpus split) or TAB's system format.
    pub pred: PathBuf,
}

impl ConfigFile for EvalJob {}

/// Span scores: exact, partial and character-level, recall by identifier type.
pub fn spans(job: &EvalJob) -> Result<SpanReport> {
    let gold = read_gold(&job.gold)?;
    let predicted = read_predictions(&job.pred)?;
    Ok(evaluate_spans(&gold, &predicted))
}

/// TAB's own metrics (entity-level recall on direct and quasi identifiers, token and mention
/// recall, uniform precision); the gold must be TAB-schema JSON.
pub fn tab(job: &EvalJob) -> Result<TabReport> {
    let gold = kanon_core::tab::read_tab(&job.gold)?;
    let predicted = read_predictions(&job.pred)?;
    evaluate_tab(&gold, &predicted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let job = EvalJob {
            gold: "gold.json".into(),
            pred: "spans.jsonl".into(),
        };
        for name in ["eval.toml", "eval.json"] {
            let path = dir.path().join(name);
            job.save(&path).unwrap();
            assert_eq!(EvalJob::load(&path).unwrap(), job);
        }
        std::fs::write(
            dir.path().join("bad.toml"),
            "gold = \"g\"\npred = \"p\"\nprd = 1\n",
        )
        .unwrap();
        let err = EvalJob::load(&dir.path().join("bad.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.toml:3: unknown field `prd`"), "{err}");
    }
}
