//! A small hand-built knowledge graph of 12 fictional people and its index, shared by the end-to-end
//! tests.
//!
//! Who shares what (people per term):
//!
//! | term        | people                          |
//! |-------------|---------------------------------|
//! | albano      | Q1, Q2                          |
//! | marrowgate  | Q1, Q2, Q3, Q4, Q5, Q9, Q12 (7) |
//! | dunmere     | Q6, Q7, Q8, Q10, Q11 (5)        |
//! | 1961        | Q1, Q3, Q4, Q6, Q7, Q10 (6)     |
//! | 1958        | Q2, Q9, Q11 (3)                 |
//! | 1970        | Q5, Q12 (2)                     |
//! | 1975        | Q8 (1)                          |
//! | chemist     | Q1, Q2, Q5, Q6, Q8 (5)          |
//! | glassblower | Q3, Q4, Q7, Q12 (4)             |
//! | ferrier     | Q9, Q10, Q11 (3)                |

use std::path::Path;

use kanon_core::{Document, NoProgress};
use kanon_index::{Index, IndexBuilder};
use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
use kanon_label::document::{Labeled, label_document};
use kanon_label::{LabelerConfig, MaskStrategy};

const PEOPLE: [(&str, &str, &str, &str, &str); 12] = [
    ("Q1", "Lilian Albano", "1961-03-14", "Marrowgate", "chemist"),
    ("Q2", "Tomas Albano", "1958-07-02", "Marrowgate", "chemist"),
    ("Q3", "Zoë Ølund", "1961-11-30", "Marrowgate", "glassblower"),
    (
        "Q4",
        "Henrik Saltov",
        "1961-05-05",
        "Marrowgate",
        "glassblower",
    ),
    (
        "Q5",
        "Mira Castellane",
        "1970-01-20",
        "Marrowgate",
        "chemist",
    ),
    ("Q6", "Oren Vask", "1961-09-09", "Dunmere", "chemist"),
    (
        "Q7",
        "Petra Lindqvar",
        "1961-02-02",
        "Dunmere",
        "glassblower",
    ),
    ("Q8", "Ivo Brannock", "1975-04-04", "Dunmere", "chemist"),
    ("Q9", "Selma Quist", "1958-12-12", "Marrowgate", "ferrier"),
    ("Q10", "Anders Rook", "1961-06-06", "Dunmere", "ferrier"),
    ("Q11", "Beatrix Holmvik", "1958-08-08", "Dunmere", "ferrier"),
    (
        "Q12",
        "Caspar Wend",
        "1970-10-10",
        "Marrowgate",
        "glassblower",
    ),
];

pub fn kg() -> KnowledgeGraph {
    let people = PEOPLE
        .iter()
        .map(|&(id, name, born, place, occupation)| {
            let mut person = Person::new(id, name);
            person.facts = vec![
                Fact::new(Property::BirthDate, born),
                Fact::new(Property::BirthPlace, place),
                Fact::new(Property::Occupation, occupation),
            ];
            person
        })
        .collect();
    KnowledgeGraph { people }
}

/// Builds the index of [`kg`] under `dir` and opens it.
pub fn index(dir: &Path) -> Index {
    let path = dir.join("index");
    IndexBuilder::new()
        .build(&kg(), &path, &NoProgress)
        .expect("building the test index");
    Index::open(&path).expect("opening the test index")
}

pub fn config(k: u64) -> LabelerConfig {
    LabelerConfig {
        k,
        max_arity: 3,
        strategy: MaskStrategy::Greedy,
        seed: 0,
        ..LabelerConfig::default()
    }
}

/// Labels `text` as a document about `person` (a KG id).
pub fn label(index: &Index, id: &str, person: &str, text: &str, config: &LabelerConfig) -> Labeled {
    let doc = Document {
        id: id.to_owned(),
        person: Some(person.to_owned()),
        text: text.to_owned(),
        split: None,
    };
    let dense = index.person_id(person).expect("a person of the test KG");
    label_document(index, &doc, person, dense, "train", config)
}
