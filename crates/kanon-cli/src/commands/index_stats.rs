use std::io::Write;

use anyhow::Result;
use kanon_index::Index;

use crate::cli::IndexStatsArgs;

pub fn run(args: &IndexStatsArgs, out: &mut dyn Write) -> Result<()> {
    let stats = Index::open(&args.index)?.stats();
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &stats)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", stats.render())?;
    }
    Ok(())
}
