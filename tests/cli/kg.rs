//! `kanon kg import`: sources merged, bad lines named or skipped, the real sources when present.

use crate::common::{kanon, ok, p, repo_root, shared};

#[test]
fn import_merges_repeated_formats_and_reports_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = repo_root().join("crates/kanon-kg/tests/fixtures");
    let triples = dir.path().join("extra.csv");
    std::fs::write(
        &triples,
        "subject,property,value\nX1,label,Ilse Varnholt\nX1,birth_date,1931\nX1,occupation,botanist\n",
    )
    .unwrap();
    let kg = dir.path().join("kg");
    let out = ok(&[
        "kg",
        "import",
        "--format",
        "pantheon",
        p(&fixtures.join("pantheon_sample.tsv")),
        "--format",
        "google-re",
        p(&fixtures.join("google_re_sample.jsonl")),
        "--format",
        "triples",
        p(&triples),
        "--out",
        p(&kg),
    ]);
    assert!(out.contains("pantheon: "), "{out}");
    assert!(out.contains("google-re: "), "{out}");
    assert!(out.contains("triples: 1 people"), "{out}");
    assert!(out.contains("by name and birth year"), "{out}");
    assert!(kg.join("triples.csv").exists() && kg.join("docs.jsonl").exists());

    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "subject,property,value\nX1,label,A B\nX1,Birth Date,1990\n",
    )
    .unwrap();
    let out = kanon(&[
        "kg",
        "import",
        "--format",
        "triples",
        p(&bad),
        "--out",
        p(&dir.path().join("kg2")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.csv:3: field `property`"), "{err}");
    assert!(
        !dir.path().join("kg2").exists(),
        "no partial KG is left behind"
    );
    let out = ok(&[
        "kg",
        "import",
        "--format",
        "triples",
        p(&bad),
        "--skip-invalid",
        "--out",
        p(&dir.path().join("kg3")),
    ]);
    assert!(out.contains("1 invalid lines skipped"), "{out}");
}

#[test]
fn imports_the_real_kg_sources_when_present() {
    let Some(sources) = shared("data/kg-sources").filter(|dir| dir.join("pantheon.tsv").exists())
    else {
        kanon_core::testing::skip(kanon_core::testing::Requirement::SharedData(
            "kg-sources/pantheon.tsv",
        ));
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let kg = dir.path().join("kg");
    let gre = |f: &str| sources.join("google-re").join(f);
    let out = ok(&[
        "kg",
        "import",
        "--format",
        "pantheon",
        p(&sources.join("pantheon.tsv")),
        "--format",
        "google-re",
        p(&gre("date_of_birth_test.jsonl")),
        p(&gre("place_of_birth_test.jsonl")),
        p(&gre("place_of_death_test.jsonl")),
        "--out",
        p(&kg),
    ]);
    assert!(out.contains("pantheon: 11341 people"), "{out}");
    let index = dir.path().join("index");
    ok(&["index", "build", "--kg", p(&kg), "--out", p(&index)]);
    let stats = ok(&["index", "stats", "--index", p(&index)]);
    let people: u64 = stats
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("people: ")
        .parse()
        .unwrap();
    assert!(people > 15_000 && people < 16_900, "{stats}");
    let query = ok(&[
        "index",
        "query",
        "--index",
        p(&index),
        "Abraham Lincoln",
        "Hodgenville",
    ]);
    assert!(query.ends_with("intersection: 1\n"), "{query}");
}

#[test]
fn derive_shows_facts_read_from_hand_written_biographies() {
    let fixture = repo_root().join("crates/kanon-kg/tests/fixtures/biographies_sample.jsonl");
    insta::assert_snapshot!("kg_derive", ok(&["kg", "derive", p(&fixture)]));
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&[
        "kg",
        "import",
        "--format",
        "biographies",
        p(&fixture),
        "--out",
        p(&dir.path().join("kg")),
    ]);
    assert!(out.contains("biographies: 3 people"), "{out}");
    assert!(out.contains("derived per person: "), "{out}");
}
