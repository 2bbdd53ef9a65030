//! `kanon eval spans` as a job: gold and predictions in, a [`SpanReport`] out.

use std::path::PathBuf;

use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::io::{read_gold, read_predictions};
use crate::spans::{SpanReport, evaluate_spans};

/// Which files to score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSpansJob {
    /// TAB-schema JSON (its DIRECT and QUASI mentions are the spans to mask) or TAB's system
    /// format `{doc_id: [[start, end], …]}`.
    pub gold: PathBuf,
    /// Spans JSONL (`kanon detect`, a kanon corpus split) or TAB's system format.
    pub pred: PathBuf,
}

impl ConfigFile for EvalSpansJob {}

/// Scores the predictions against the gold.
pub fn run(job: &EvalSpansJob) -> Result<SpanReport> {
    let gold = read_gold(&job.gold)?;
    let predicted = read_predictions(&job.pred)?;
    Ok(evaluate_spans(&gold, &predicted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let job = EvalSpansJob {
            gold: "gold.json".into(),
            pred: "spans.jsonl".into(),
        };
        for name in ["eval.toml", "eval.json"] {
            let path = dir.path().join(name);
            job.save(&path).unwrap();
            assert_eq!(EvalSpansJob::load(&path).unwrap(), job);
        }
        std::fs::write(
            dir.path().join("bad.toml"),
            "gold = \"g\"\npred = \"p\"\nprd = 1\n",
        )
        .unwrap();
        let err = EvalSpansJob::load(&dir.path().join("bad.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.toml:3: unknown field `prd`"), "{err}");
    }
}
