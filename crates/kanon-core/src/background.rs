//! The public texts an attacker knows about a population (`[{"name", "public_knowledge"}]`, the
//! wiki553 background): the re-identification attackers of the evaluation are trained on them,
//! and so is the re-identification model that guides the `reid-greedy` detector.
//!
//! ```
//! use kanon_core::background::Background;
//!
//! let background = Background::new(vec![
//!     ("lilian-albano".into(), Some("Lilian Albano is an Austrian chemist.".into())),
//!     ("nobody".into(), None),
//! ]);
//! assert_eq!(background.person("nobody"), Some(1));
//! assert_eq!(background.text(0), Some("Lilian Albano is an Austrian chemist."));
//! assert_eq!(background.without_text(), 1);
//! ```

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;

use crate::Error;

/// The people an attacker knows, with the public text about each (none for some).
#[derive(Debug, Clone, Default)]
pub struct Background {
    names: Vec<String>,
    texts: Vec<Option<String>>,
    by_name: HashMap<String, usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BackgroundEntry {
    name: String,
    /// Required, though it may be null: `deserialize_with` keeps serde from reading a missing
    /// key as null.
    #[serde(deserialize_with = "Option::deserialize")]
    public_knowledge: Option<String>,
}

impl Background {
    /// People by name (a key documents are matched against), each with its text if there is one.
    pub fn new(people: Vec<(String, Option<String>)>) -> Self {
        let mut background = Background::default();
        for (name, text) in people {
            background
                .by_name
                .insert(name.clone(), background.names.len());
            background.names.push(name);
            background.texts.push(text);
        }
        background
    }

    /// Reads `[{"name", "public_knowledge"}]` (the wiki553 background); an entry whose
    /// `public_knowledge` is null is a person the attacker knows nothing about.
    pub fn read(path: &Path) -> crate::Result<Self> {
        let entries: Vec<BackgroundEntry> = crate::config::load(path)?;
        if entries.is_empty() {
            return Err(Error::format(path, "no people in the background"));
        }
        let mut seen = HashSet::new();
        for entry in &entries {
            if !seen.insert(entry.name.as_str()) {
                return Err(Error::format(
                    path,
                    format!("person {:?} appears twice", entry.name),
                ));
            }
        }
        Ok(Background::new(
            entries
                .into_iter()
                .map(|e| (e.name, e.public_knowledge))
                .collect(),
        ))
    }

    /// How many people the attacker knows, with or without a text.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the background names nobody.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of the person at position `person` (as [`Background::person`] returns it); panics when
    /// it is out of range.
    pub fn name(&self, person: usize) -> &str {
        &self.names[person]
    }

    /// The person of a name.
    pub fn person(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The public text about a person, if there is one.
    pub fn text(&self, person: usize) -> Option<&str> {
        self.texts[person].as_deref()
    }

    /// People the attacker knows nothing about.
    pub fn without_text(&self) -> usize {
        self.texts.iter().filter(|t| t.is_none()).count()
    }
}
