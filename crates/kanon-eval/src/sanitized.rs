//! Sanitized documents read against their originals: which original each one is, and which of
//! the original's characters its edits replaced. Shared by the utility figures and TPS.

use std::collections::{HashMap, HashSet};

use kanon_core::Document;
use kanon_sanitize::SanitizedDocument;

use crate::error::{Error, Result};

/// Each sanitized document with its original (by id): an id that is not an original's, or that
/// appears twice, is an error.
pub(crate) fn paired<'a>(
    originals: &'a [Document],
    sanitized: &'a [SanitizedDocument],
) -> Result<Vec<(&'a Document, &'a SanitizedDocument)>> {
    let by_id: HashMap<&str, &Document> = originals.iter().map(|d| (d.id.as_str(), d)).collect();
    let mut seen = HashSet::new();
    sanitized
        .iter()
        .map(|doc| {
            let original = by_id
                .get(doc.id.as_str())
                .ok_or_else(|| Error::UnknownSanitized { id: doc.id.clone() })?;
            if !seen.insert(doc.id.as_str()) {
                return Err(Error::Sanitized {
                    id: doc.id.clone(),
                    problem: "appears twice".into(),
                });
            }
            Ok((*original, doc))
        })
        .collect()
}

/// Which of the original's `length` characters the document's edits replaced; an edit that is
/// not a span of the original is an error.
pub(crate) fn replaced_characters(doc: &SanitizedDocument, length: usize) -> Result<Vec<bool>> {
    let mut replaced = vec![false; length];
    for edit in &doc.edits {
        if edit.start > edit.end || edit.end > length {
            return Err(Error::Sanitized {
                id: doc.id.clone(),
                problem: format!(
                    "edit {}..{} is not a span of the {length}-character original: the original is not the sanitized text's",
                    edit.start, edit.end,
                ),
            });
        }
        replaced[edit.start..edit.end]
            .iter_mut()
            .for_each(|r| *r = true);
    }
    Ok(replaced)
}
