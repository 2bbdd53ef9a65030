//! `kanon merge`: the parts of a sharded `label`, `detect` or `sanitize` run joined into the
//! output of one run, after checking from their shard records that they belong together.

use std::io::Write;

use anyhow::Result;
use kanon_core::shard::{OutputKind, ShardSet, merge_jsonl};

use crate::cli::MergeArgs;

pub fn run(args: &MergeArgs, out: &mut dyn Write) -> Result<()> {
    let set = ShardSet::open(&args.parts)?;
    let documents = match set.kind {
        OutputKind::Corpus => {
            let manifest = kanon_label::corpus::merge(&set, &args.out)?;
            manifest.stats.documents
        }
        OutputKind::Spans | OutputKind::Sanitized | OutputKind::Audit => {
            merge_jsonl(&set, &args.out)?
        }
        OutputKind::SpansTab => kanon_core::spans::merge_system_format(&set, &args.out)?,
    };
    writeln!(
        out,
        "merged {} shards ({documents} documents) -> {}",
        set.parts.len(),
        args.out.display()
    )?;
    Ok(())
}
