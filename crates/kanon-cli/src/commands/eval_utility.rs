use std::io::Write;

use anyhow::Result;
use kanon_eval::UtilityReport;
use kanon_eval::job::{TpsModels, UtilityJob, utility};
use kanon_llm::LlmConfig;

use crate::cli::{EvalUtilityArgs, TpsModelArgs};

pub fn run(args: &EvalUtilityArgs, out: &mut dyn Write) -> Result<()> {
    let tps = if args.tps {
        Some(tps_models(&args.tps_models)?)
    } else {
        None
    };
    let report = utility(&UtilityJob {
        docs: args.docs.clone(),
        sanitized: args.sanitized.clone(),
        tps,
    })?;
    super::print_report(out, args.json, &report, UtilityReport::render)
}

/// The TPS models the options name.
pub fn tps_models(args: &TpsModelArgs) -> Result<TpsModels> {
    let llm = LlmConfig::resolve(&args.llm, args.model.as_deref())?;
    Ok(TpsModels {
        llm: match args.llm_threads {
            Some(threads) => llm.with_threads(threads),
            None => llm,
        },
        encoder: args.encoder.clone(),
    })
}
