use std::io::Write;

use anyhow::Result;
use kanon_index::Index;

use crate::cli::IndexLookupArgs;

pub fn run(args: &IndexLookupArgs, out: &mut dyn Write) -> Result<()> {
    let index = Index::open(&args.index)?;
    let found = match (args.prefix, args.fuzzy) {
        (true, _) => index.prefix(&args.term, args.limit)?,
        (false, Some(distance)) => index.fuzzy(&args.term, distance, args.limit)?,
        (false, None) => index
            .term_id(&args.term)
            .map(|id| (id, index.term_text(id).unwrap_or_default()))
            .into_iter()
            .collect(),
    };
    for (id, term) in found {
        writeln!(out, "{term}\t{}", index.posting_count(id))?;
    }
    Ok(())
}
