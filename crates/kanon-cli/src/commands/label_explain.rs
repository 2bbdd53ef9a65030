use std::io::Write;

use anyhow::{Result, bail};

use crate::cli::LabelExplainArgs;

pub fn run(args: &LabelExplainArgs, out: &mut dyn Write) -> Result<()> {
    let Some(report) = kanon_label::corpus::find_report(&args.corpus, &args.id)? else {
        bail!(
            "no document {:?} in {}/report.jsonl",
            args.id,
            args.corpus.display()
        );
    };
    write!(out, "{}", kanon_label::explain::explain(&report))?;
    Ok(())
}
