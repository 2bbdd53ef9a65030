use std::io::Write;

use anyhow::{Context, Result};
use kanon_index::IndexBuilder;
use kanon_kg::Whitelist;

use crate::cli::IndexBuildArgs;
use crate::progress::Bars;

pub fn run(args: &IndexBuildArgs, out: &mut dyn Write) -> Result<()> {
    let started = std::time::Instant::now();
    let (kg, _) = kanon_kg::store::read_kg_dir(&args.kg)
        .with_context(|| format!("reading KG {}", args.kg.display()))?;
    let read_seconds = started.elapsed().as_secs_f64();
    let mut whitelist = if args.replace_whitelist {
        Whitelist::default()
    } else {
        Whitelist::english()
    };
    if let Some(path) = &args.whitelist {
        whitelist.extend(Whitelist::from_file(path)?);
    }
    let bars = Bars::new();
    let meta = IndexBuilder::new()
        .whitelist(whitelist)
        .source(args.kg.display().to_string())
        .build(&kg, &args.out, &bars)
        .with_context(|| format!("building index {}", args.out.display()))?;
    bars.finish();
    writeln!(
        out,
        "indexed {} people: {} terms, {} postings in {:.1}s (KG read {:.1}s) -> {}",
        meta.people,
        meta.terms,
        meta.postings,
        meta.build_seconds + read_seconds,
        read_seconds,
        args.out.display()
    )?;
    Ok(())
}
