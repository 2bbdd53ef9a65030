use std::io::Write;

use anyhow::{Context, Result};
use kanon_index::Index;

use crate::cli::IndexStatsArgs;

pub fn run(args: &IndexStatsArgs, out: &mut dyn Write) -> Result<()> {
    let index =
        Index::open(&args.index).with_context(|| format!("opening {}", args.index.display()))?;
    stats(&index, args.json, out)
}

pub fn stats(index: &Index, json: bool, out: &mut dyn Write) -> Result<()> {
    let stats = index.stats();
    if json {
        serde_json::to_writer_pretty(&mut *out, &stats)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "people: {}", stats.people)?;
    writeln!(out, "terms: {}", stats.terms)?;
    writeln!(out, "postings: {}", stats.postings)?;
    writeln!(out, "terms held by one person only: {}", stats.unique_terms)?;
    for (entity_type, n) in &stats.terms_by_type {
        writeln!(out, "  {entity_type} terms: {n}")?;
    }
    Ok(())
}
