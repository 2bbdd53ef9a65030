use std::io::Write;

use anyhow::Result;
use kanon_index::{Index, QueryReport};

use crate::cli::IndexQueryArgs;

pub fn run(args: &IndexQueryArgs, out: &mut dyn Write) -> Result<()> {
    let index = Index::open(&args.index)?;
    write!(out, "{}", QueryReport::new(&index, &args.terms).render())?;
    Ok(())
}
