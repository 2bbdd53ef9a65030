use std::io::Write;

use anyhow::{Context, Result, bail};

use crate::cli::LabelExplainArgs;

pub fn run(args: &LabelExplainArgs, out: &mut dyn Write) -> Result<()> {
    let report = kanon_label::corpus::find_report(&args.corpus, &args.id)
        .with_context(|| format!("reading the risk reports of {}", args.corpus.display()))?;
    let Some(report) = report else {
        bail!(
            "no document {:?} in {}/report.jsonl",
            args.id,
            args.corpus.display()
        );
    };
    write!(out, "{}", kanon_label::explain::explain(&report))?;
    Ok(())
}
