//! `kanon quantize`: a tagger checkpoint written again at another precision.

use std::io::Write;

use anyhow::Result;
use kanon_tagger::Tagger;

use crate::cli::QuantizeArgs;

pub fn run(args: &QuantizeArgs, out: &mut dyn Write) -> Result<()> {
    let tagger = Tagger::convert_checkpoint(&args.model, &args.out, args.precision)?;
    writeln!(
        out,
        "tagger ({}) -> {}",
        tagger.describe(),
        args.out.display()
    )?;
    Ok(())
}
