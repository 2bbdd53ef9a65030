//! The on-disk index round trip: everything built reads back exactly, and other format versions
//! are refused with a clear message.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::collections::{BTreeMap, BTreeSet};

use kanon_core::NoProgress;
use kanon_index::{INDEX_FORMAT_VERSION, Index, IndexBuilder};
use kanon_kg::synth::{SynthConfig, synthesize};
use kanon_kg::{PropertySet, TermGenerator, Vocabulary, Whitelist};

#[test]
fn postings_read_back_equal_a_brute_force_inverted_index() {
    let (kg, docs) = synthesize(&SynthConfig {
        people: 400,
        seed: 3,
        doc_rate: 0.2,
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    let meta = IndexBuilder::new().build(&kg, &path, &NoProgress).unwrap();
    assert_eq!(meta.index_format_version, INDEX_FORMAT_VERSION);
    let index = Index::open(&path).unwrap();

    let whitelist = Whitelist::english();
    let generator = TermGenerator::new(Vocabulary::embedded(), &whitelist);
    let mut expected: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut properties: BTreeMap<String, PropertySet> = BTreeMap::new();
    for (i, person) in kg.people.iter().enumerate() {
        for term in generator.terms(person) {
            let united = properties.entry(term.term.clone()).or_default();
            *united = united.union(term.properties);
            expected.entry(term.term).or_default().insert(i as u32);
        }
    }
    assert_eq!(index.num_terms() as usize, expected.len());
    assert_eq!(index.num_people() as usize, kg.len());
    for (term_id, (term, people)) in expected.iter().enumerate() {
        // Terms are sorted, so a term's id is its rank.
        assert_eq!(
            index.term_text(term_id as u32).as_deref(),
            Some(term.as_str())
        );
        let list = index.posting_list(term_id as u32).unwrap();
        assert_eq!(list.iter().collect::<BTreeSet<u32>>(), *people, "{term}");
        assert_eq!(
            index.term_properties(term_id as u32),
            properties[term],
            "{term}"
        );
        assert!(!properties[term].is_empty(), "{term}");
    }
    for (i, person) in kg.people.iter().enumerate() {
        assert_eq!(index.person_id(&person.id), Some(i as u32));
        assert_eq!(index.person(i as u32).unwrap().label, person.label);
    }
    // Every person's own biography names them.
    for doc in &docs {
        let person = index.person_id(doc.person.as_deref().unwrap()).unwrap();
        let found = index.find_terms(&doc.text);
        assert!(
            found
                .iter()
                .any(|m| index.posting_list(m.term).unwrap().contains(person)),
            "{}",
            doc.text
        );
    }
}

#[test]
fn lookups_by_prefix_and_edit_distance() {
    let (kg, _dir, path) = synthetic_index(200, 5);
    let index = Index::open(&path).unwrap();
    let label = &kg.people[0].label;
    let id = index.term_id(label).unwrap();
    let normalized = index.term_text(id).unwrap();
    let prefix: String = normalized.chars().take(3).collect();
    assert!(
        index
            .prefix(&prefix, 1000)
            .unwrap()
            .iter()
            .any(|(t, _)| *t == id)
    );
    // One letter dropped from the name is within distance 1.
    let mut typo: Vec<char> = normalized.chars().collect();
    typo.remove(1);
    let typo: String = typo.into_iter().collect();
    assert!(
        index
            .fuzzy(&typo, 1, 1000)
            .unwrap()
            .iter()
            .any(|(t, _)| *t == id),
        "{typo}"
    );
    assert!(index.fuzzy(&typo, 3, 10).is_err());
}

#[test]
fn other_format_versions_are_refused_with_a_rebuild_hint() {
    let (_, _dir, path) = synthetic_index(20, 1);
    let meta_path = path.join("meta.json");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    let bumped = meta.replace(
        &format!("\"index_format_version\": {INDEX_FORMAT_VERSION}"),
        "\"index_format_version\": 999",
    );
    assert_ne!(meta, bumped);
    std::fs::write(&meta_path, bumped).unwrap();
    let err = Index::open(&path).unwrap_err().to_string();
    assert!(err.contains("version 999 is not supported"), "{err}");
    assert!(err.contains("kanon index build"), "{err}");
}

#[test]
fn corrupt_files_are_errors_not_panics() {
    let (_, dir, path) = synthetic_index(20, 1);
    for file in [
        "postings.bin",
        "gazetteer.bin",
        "types.bin",
        "properties.bin",
    ] {
        let copy = dir.path().join(format!("copy-{file}"));
        copy_dir(&path, &copy);
        let bytes = std::fs::read(copy.join(file)).unwrap();
        std::fs::write(copy.join(file), &bytes[..bytes.len() / 2]).unwrap();
        let err = Index::open(&copy).unwrap_err().to_string();
        assert!(err.contains(file), "{file}: {err}");
    }
}

#[test]
fn an_index_without_properties_opens_and_knows_no_kinds() {
    let (_, _dir, path) = synthetic_index(20, 1);
    let index = Index::open(&path).unwrap();
    assert!(!index.term_properties(0).is_empty());
    let stats = index.stats();
    assert!(
        stats
            .terms_by_property
            .iter()
            .any(|&(p, n)| p == "name" && n > 0),
        "{stats:?}"
    );
    drop(index);
    std::fs::remove_file(path.join("properties.bin")).unwrap();
    let index = Index::open(&path).unwrap();
    assert!(index.term_properties(0).is_empty());
    assert!(index.posting_count(0) > 0);
    let stats = index.stats();
    assert!(stats.terms_by_property.is_empty());
    assert!(
        stats.render().contains("not recorded"),
        "{}",
        stats.render()
    );
}

/// A synthetic KG of `people` (no documents) and its index, built in a temporary directory.
fn synthetic_index(
    people: usize,
    seed: u64,
) -> (
    kanon_kg::KnowledgeGraph,
    tempfile::TempDir,
    std::path::PathBuf,
) {
    let (kg, _) = synthesize(&SynthConfig {
        people,
        seed,
        doc_rate: 0.0,
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    IndexBuilder::new().build(&kg, &path, &NoProgress).unwrap();
    (kg, dir, path)
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}
