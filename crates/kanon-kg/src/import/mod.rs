//! Importers: each reads one source format into people (and, for Google-RE and T-REx, documents
//! about them).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::Result;

pub mod biographies;
pub mod google_re;
pub mod labels;
pub mod pantheon;
mod source;
pub mod trex;
pub mod triples;
pub mod wikidata;

pub use source::{ImportOptions, Resolution, SourceData, SourceReport, open_maybe_compressed};

/// A source format `kanon kg import --format` understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// The native CSV ([`triples`]).
    Triples,
    /// A Wikidata JSON dump ([`wikidata`]).
    Wikidata,
    /// Pantheon 1.0's TSV ([`pantheon`]).
    Pantheon,
    /// Google-RE as packaged by LAMA ([`google_re`]).
    GoogleRe,
    /// T-REx as packaged by LAMA ([`trex`]).
    Trex,
    /// Biographies without a KG, their facts read from the texts ([`biographies`]).
    Biographies,
}

kanon_core::named_choices!(
    Format,
    "KG format",
    [
        Triples = "triples",
        Wikidata = "wikidata",
        Pantheon = "pantheon",
        GoogleRe = "google-re",
        Trex = "trex",
        Biographies = "biographies"
    ]
);

/// Imports several inputs of one format.
pub fn import(format: Format, inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let mut data = match format {
        Format::Triples => triples::import(inputs, options)?,
        Format::Wikidata => wikidata::import(inputs, options)?,
        Format::Pantheon => pantheon::import(inputs, options)?,
        Format::GoogleRe => google_re::import(inputs, options)?,
        Format::Trex => trex::import(inputs, options)?,
        Format::Biographies => biographies::import(inputs, options)?,
    };
    data.report.format = format.as_str().to_owned();
    data.report.inputs = inputs.to_vec();
    data.report.people = data.people.len();
    data.report.facts = data.people.iter().map(|p| p.facts.len()).sum();
    data.report.docs = data.docs.len();
    Ok(data)
}
