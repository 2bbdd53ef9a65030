//! Importers on the real KG sources of `../shared/data/kg-sources` (outside the repository): the
//! Wikidata sample, T-REx, and Pantheon + Google-RE + T-REx merged. Each test skips, saying so,
//! when the data is absent. Run with `--nocapture` to see the figures.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::PathBuf;

use kanon_kg::import::{self, Format, ImportOptions, SourceData};
use kanon_kg::{KnowledgeGraph, Property};

fn kg_sources() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/kg-sources");
    if path.exists() {
        Some(path)
    } else {
        kanon_core::testing::skip(kanon_core::testing::Requirement::SharedData("kg-sources"));
        None
    }
}

fn trex_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("trex"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn import_all(format: Format, inputs: Vec<PathBuf>) -> SourceData {
    import::import(format, &inputs, &ImportOptions::default()).unwrap()
}

#[test]
fn wikidata_sample_imports_every_human_of_both_vintages() {
    let Some(dir) = kg_sources() else { return };
    let data = import_all(Format::Wikidata, vec![dir.join("wikidata-sample.json.gz")]);
    let report = &data.report;
    eprintln!(
        "wikidata sample: {} people ({} named in another language, {} without any name), {} facts, {} values without a label",
        report.people,
        report.people_named_in_other_language,
        report.people_without_label,
        report.facts,
        report.unresolved_values
    );
    for (pid, r) in &report.resolution {
        eprintln!(
            "  {pid}: {} values, {} named by the dump, {} by --labels, {} by the bundled table, {} unresolved ({:.1} % named)",
            r.values,
            r.from_input,
            r.from_labels,
            r.from_vocab,
            r.unresolved,
            100.0 * r.rate()
        );
    }
    // 353 humans (P31 = Q5), 72 of them in the 2014 format (`numeric-id` only).
    assert_eq!(report.people, 353);
    assert_eq!(report.skipped_invalid, 0);
    // George W. Bush (Q207) is in the 2014 format: 11-digit years, numeric ids only.
    let bush = data.people.iter().find(|p| p.id == "Q207").unwrap();
    assert!(
        bush.facts
            .iter()
            .any(|f| f.property == Property::BirthDate && f.value == "1946-07-06"),
        "{:?}",
        bush.facts
    );
    // Q30 is in the dump (its own label wins over the bundled table's "United States").
    assert!(
        bush.facts
            .iter()
            .any(|f| f.property == Property::Citizenship && f.value == "United States of America"),
        "{:?}",
        bush.facts
    );
    let rate = |pid: &str| report.resolution.get(pid).map_or(0.0, |r| r.rate());
    // Occupations, citizenships and sexes are named by the bundled table where the dump does not
    // name them; places, schools and employers only by the dump (no such table is bundled).
    assert!(rate("P106") > 0.7, "{}", rate("P106"));
    assert!(rate("P27") > 0.75, "{}", rate("P27"));
    assert!(rate("P21") > 0.99, "{}", rate("P21"));
}

#[test]
fn trex_imports_people_facts_and_sentences() {
    let Some(dir) = kg_sources() else { return };
    let data = import_all(Format::Trex, trex_files(&dir));
    let report = &data.report;
    let with_two = data.people.iter().filter(|p| p.facts.len() >= 2).count();
    eprintln!(
        "trex: {} people, {} facts ({:.3} per person; {} people with two or more), {} documents",
        report.people,
        report.facts,
        report.facts as f64 / report.people as f64,
        with_two,
        report.docs
    );
    assert_eq!(report.skipped_invalid, 0);
    assert!(report.people > 10_000, "{}", report.people);
    assert!(report.facts >= report.people);
    assert!(report.docs > report.people);
    assert!(data.docs.iter().all(|d| !d.text.contains("[MASK]")));
}

#[test]
fn pantheon_google_re_and_trex_merge_by_wikidata_id_and_by_name_and_birth_date() {
    let Some(dir) = kg_sources() else { return };
    let pantheon = import_all(Format::Pantheon, vec![dir.join("pantheon.tsv")]);
    let gre_dir = dir.join("google-re");
    let google_re = import_all(
        Format::GoogleRe,
        ["date_of_birth", "place_of_birth", "place_of_death"]
            .iter()
            .map(|n| gre_dir.join(format!("{n}_test.jsonl")))
            .collect(),
    );
    let trex = import_all(Format::Trex, trex_files(&dir));
    let counts = [
        pantheon.people.len(),
        google_re.people.len(),
        trex.people.len(),
    ];
    let (kg, stats) = KnowledgeGraph::merge([pantheon.people, google_re.people, trex.people]);
    let total: usize = counts.iter().sum();
    eprintln!(
        "pantheon {} + google-re {} + trex {} = {total} records -> {} people: {} merged by identifier, {} by name and birth year, {} kept apart (same name and birth year, different Wikidata ids or dates), {} facts",
        counts[0],
        counts[1],
        counts[2],
        kg.len(),
        stats.by_identifier,
        stats.by_name_and_birth_year,
        stats.kept_apart,
        kg.num_facts()
    );
    assert_eq!(
        kg.len() + stats.by_identifier + stats.by_name_and_birth_year,
        total
    );
    assert!(stats.by_identifier > 0 && stats.by_name_and_birth_year > 0);
}
