use std::io::Write;

use anyhow::{Context, Result};
use kanon_index::Index;

use crate::cli::IndexQueryArgs;

pub fn run(args: &IndexQueryArgs, out: &mut dyn Write) -> Result<()> {
    let index =
        Index::open(&args.index).with_context(|| format!("opening {}", args.index.display()))?;
    query(&index, &args.terms, out)
}

/// One line per term (`TERM: N`), then `intersection: N`.
pub fn query(index: &Index, terms: &[String], out: &mut dyn Write) -> Result<()> {
    let mut ids = Vec::new();
    let mut missing = false;
    for term in terms {
        match index.term_id(term) {
            Some(id) => {
                writeln!(out, "{term}: {}", index.posting_count(id))?;
                ids.push(id);
            }
            None => {
                writeln!(out, "{term}: 0 (not indexed)")?;
                missing = true;
            }
        }
    }
    let intersection = if missing {
        0
    } else {
        index.intersection_count(&ids, u64::MAX)
    };
    writeln!(out, "intersection: {intersection}")?;
    Ok(())
}
