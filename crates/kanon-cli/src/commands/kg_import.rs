use std::io::Write;

use anyhow::{Result, bail};
use kanon_kg::import::Format;
use kanon_kg::job::{ImportJob, import};

use crate::cli::KgImportArgs;
use crate::progress::Bars;

pub fn run(args: &KgImportArgs, out: &mut dyn Write) -> Result<()> {
    let mut sources = args.sources.clone();
    if !args.labels.is_empty() {
        let mut wikidata = 0;
        for source in sources.iter_mut().filter(|s| s.format == Format::Wikidata) {
            source.labels = args.labels.clone();
            wikidata += 1;
        }
        if wikidata == 0 {
            bail!("--labels names the item values of --format wikidata sources, and there is none");
        }
    }
    let job = ImportJob {
        sources,
        out: args.out.clone(),
        lang: args.lang.clone(),
        skip_invalid: args.skip_invalid,
    };
    let bars = Bars::new();
    let summary = import(&job, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}
