use std::io::Write;

use anyhow::Result;
use kanon_eval::UtilityReport;
use kanon_eval::job::{UtilityJob, utility};

use crate::cli::EvalUtilityArgs;

pub fn run(args: &EvalUtilityArgs, out: &mut dyn Write) -> Result<()> {
    let tps = if args.tps {
        Some(super::shared::tps_models(&args.tps_models)?)
    } else {
        None
    };
    let report = utility(&UtilityJob {
        docs: args.docs.clone(),
        sanitized: args.sanitized.clone(),
        tps,
    })?;
    super::shared::print_report(out, args.json, &report, UtilityReport::render)
}
