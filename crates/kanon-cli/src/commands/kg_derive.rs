use std::io::Write;

use anyhow::Result;
use kanon_kg::import::{self, Format, ImportOptions};

use crate::cli::KgDeriveArgs;

/// Prints what `--format biographies` would import: each person's names and derived facts, then
/// the facts per person by property. Reads only; writes nothing.
pub fn run(args: &KgDeriveArgs, out: &mut dyn Write) -> Result<()> {
    let options = ImportOptions {
        skip_invalid: args.skip_invalid,
        ..ImportOptions::default()
    };
    let data = import::import(Format::Biographies, &args.inputs, &options)?;
    let shown = if args.limit == 0 {
        data.people.len()
    } else {
        args.limit.min(data.people.len())
    };
    for person in &data.people[..shown] {
        writeln!(out, "{}  {}", person.id, person.label)?;
        for alias in &person.aliases {
            writeln!(out, "  alias: {alias}")?;
        }
        for fact in &person.facts {
            write!(out, "  {}: {}", fact.property, fact.value)?;
            if !fact.alternates.is_empty() {
                write!(out, " (also {})", fact.alternates.join(", "))?;
            }
            writeln!(out)?;
        }
    }
    if shown < data.people.len() {
        writeln!(
            out,
            "… {} more (--limit 0 shows all)",
            data.people.len() - shown
        )?;
    }
    let report = &data.report;
    let people = report.people.max(1) as f64;
    writeln!(
        out,
        "{} people, {} facts ({:.2} per person){}",
        report.people,
        report.facts,
        report.facts as f64 / people,
        if report.skipped_invalid > 0 {
            format!(", {} invalid lines skipped", report.skipped_invalid)
        } else {
            String::new()
        }
    )?;
    for (property, n) in &report.derived {
        writeln!(
            out,
            "  {property:<14} {n:>7}  {:.2} per person",
            *n as f64 / people
        )?;
    }
    Ok(())
}
