use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use kanon_kg::KnowledgeGraph;
use kanon_kg::import::{self, Format, ImportOptions};

use crate::cli::KgImportArgs;

pub fn run(args: &KgImportArgs, out: &mut dyn Write) -> Result<()> {
    let options = ImportOptions {
        lang: args.lang.clone(),
        skip_invalid: args.skip_invalid,
    };
    let mut people_by_source = Vec::new();
    let mut docs = Vec::new();
    let mut reports = Vec::new();
    for group in &args.sources {
        let Some((format, inputs)) = group.split_first() else {
            bail!("--format needs a format and at least one input");
        };
        let format: Format = format.parse().map_err(anyhow::Error::msg)?;
        let inputs: Vec<PathBuf> = inputs.iter().map(PathBuf::from).collect();
        let data = import::import(format, &inputs, &options)
            .with_context(|| format!("importing {format} from {} input(s)", inputs.len()))?;
        let report = &data.report;
        let mut notes = String::new();
        if report.skipped_invalid > 0 {
            notes += &format!(", {} invalid lines skipped", report.skipped_invalid);
        }
        if report.unresolved_values > 0 {
            notes += &format!(
                ", {} values without a label dropped",
                report.unresolved_values
            );
        }
        if report.people_without_label > 0 {
            notes += &format!(
                ", {} people without a {:?} name skipped",
                report.people_without_label, options.lang
            );
        }
        writeln!(
            out,
            "{format}: {} people, {} facts, {} docs from {} file(s){notes}",
            report.people,
            report.facts,
            report.docs,
            inputs.len(),
        )?;
        people_by_source.push(data.people);
        docs.extend(data.docs);
        reports.push(data.report);
    }
    let (kg, merge) = KnowledgeGraph::merge(people_by_source);
    // Documents follow their person into the merged record.
    let ids = kg.id_map();
    for doc in &mut docs {
        if let Some(person) = doc.person.as_deref().and_then(|p| ids.get(p)) {
            doc.person = Some((*person).to_owned());
        }
    }
    let meta = kanon_kg::store::write_kg_dir(&args.out, &kg, &docs, reports, merge)
        .with_context(|| format!("writing {}", args.out.display()))?;
    writeln!(
        out,
        "merged: {} people ({} by identifier, {} by name and birth year), {} facts, {} docs -> {}",
        meta.people,
        merge.by_identifier,
        merge.by_name_and_birth_year,
        meta.facts,
        meta.docs,
        args.out.display()
    )?;
    Ok(())
}
