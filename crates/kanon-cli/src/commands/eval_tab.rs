use std::io::Write;

use anyhow::Result;
use kanon_eval::TabReport;
use kanon_eval::job::{EvalJob, tab};

use crate::cli::EvalTabArgs;

pub fn run(args: &EvalTabArgs, out: &mut dyn Write) -> Result<()> {
    let weighting = if args.weighted {
        let llm = kanon_llm::LlmConfig::resolve(&args.llm, args.model.as_deref())?;
        Some(match args.llm_threads {
            Some(threads) => llm.with_threads(threads),
            None => llm,
        })
    } else {
        None
    };
    let report = tab(&EvalJob {
        gold: args.gold.clone(),
        pred: args.pred.clone(),
        weighting,
    })?;
    super::print_report(out, args.json, &report, TabReport::render)
}
