use std::io::Write;

use anyhow::Result;
use kanon_index::{Index, IndexStats};

use crate::cli::IndexStatsArgs;

pub fn run(args: &IndexStatsArgs, out: &mut dyn Write) -> Result<()> {
    let stats = Index::open(&args.index)?.stats();
    super::shared::print_report(out, args.json, &stats, IndexStats::render)
}
