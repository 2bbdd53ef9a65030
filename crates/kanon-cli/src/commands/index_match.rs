use std::io::Write;

use anyhow::{Context, Result};
use kanon_index::Index;
use serde::Serialize;

use crate::cli::IndexMatchArgs;

#[derive(Serialize)]
struct MatchRow<'a> {
    start: usize,
    end: usize,
    text: &'a str,
    term: String,
    #[serde(rename = "type")]
    entity_type: String,
    postings: u64,
}

pub fn run(args: &IndexMatchArgs, out: &mut dyn Write) -> Result<()> {
    let index =
        Index::open(&args.index).with_context(|| format!("opening {}", args.index.display()))?;
    print_matches(&index, &args.text, args.all, args.json, out)
}

pub fn print_matches(
    index: &Index,
    text: &str,
    all: bool,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let matches = if all {
        index.gazetteer().find_all(text)
    } else {
        index.find_terms(text)
    };
    let char_starts: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    for m in matches {
        let row = MatchRow {
            start: m.start,
            end: m.end,
            text: &text[char_starts[m.start]..char_starts[m.end]],
            term: index.term_text(m.term).unwrap_or_default(),
            entity_type: index
                .term_type(m.term)
                .map(|t| t.to_string())
                .unwrap_or_default(),
            postings: index.posting_count(m.term),
        };
        if json {
            serde_json::to_writer(&mut *out, &row)?;
            writeln!(out)?;
        } else {
            let people = if row.postings == 1 {
                "person"
            } else {
                "people"
            };
            writeln!(
                out,
                "{:>5}..{:<5} {:<9} {:>8} {people:<6}  {:?}",
                row.start, row.end, row.entity_type, row.postings, row.text
            )?;
        }
    }
    Ok(())
}
