//! What an attacker who holds the KG knows, as the background texts the re-identification
//! attacks read: one text per person (its name, aliases and facts), named by the person's KG id,
//! which the documents' `person` field holds.

use std::path::Path;

use serde_json::json;

use crate::error::{Error, Result};

/// Writes the KG directory `kg` as background texts (`[{"name", "public_knowledge"}]`) to `out`.
pub fn write_kg_background(kg: &Path, out: &Path) -> Result<()> {
    let (graph, _) = kanon_kg::store::read_kg_dir(kg).map_err(Error::Kg)?;
    let entries: Vec<serde_json::Value> = graph
        .people
        .iter()
        .map(|person| {
            let mut text = person.label.clone();
            for alias in &person.aliases {
                text += &format!(". {alias}");
            }
            for fact in &person.facts {
                text += &format!(". {}: {}", fact.property, fact.value);
            }
            json!({"name": person.id, "public_knowledge": text})
        })
        .collect();
    Ok(kanon_core::io::write_json(out, &entries)?)
}
