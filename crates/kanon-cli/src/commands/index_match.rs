use std::io::Write;

use anyhow::Result;
use kanon_index::{Index, MatchRow};

use crate::cli::IndexMatchArgs;

pub fn run(args: &IndexMatchArgs, out: &mut dyn Write) -> Result<()> {
    let index = Index::open(&args.index)?;
    for row in MatchRow::find(&index, &args.text, args.all) {
        if args.json {
            serde_json::to_writer(&mut *out, &row)?;
            writeln!(out)?;
        } else {
            write!(out, "{}", row.render())?;
        }
    }
    Ok(())
}
