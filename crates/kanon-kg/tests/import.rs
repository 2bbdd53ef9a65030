//! Importers end to end, on hand-written fixtures in the exact formats of the real sources
//! (`tests/fixtures/`: fictional people, places and organisations only).
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::io::Write;
use std::path::{Path, PathBuf};

use kanon_kg::import::{self, Format, ImportOptions, SourceData, SourceReport};
use kanon_kg::store::{read_kg_dir, write_kg_dir};
use kanon_kg::{Fact, ImportJob, KnowledgeGraph, MergeStats, Person, Property, Source};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn options(lang: &str, skip_invalid: bool) -> ImportOptions {
    ImportOptions {
        lang: lang.to_owned(),
        skip_invalid,
        ..ImportOptions::default()
    }
}

fn import_one(
    format: Format,
    path: PathBuf,
    options: &ImportOptions,
) -> kanon_kg::Result<SourceData> {
    import::import(format, &[path], options)
}

fn import_fixture(format: Format, name: &str) -> SourceData {
    import_one(format, fixture(name), &ImportOptions::default())
        .unwrap_or_else(|e| panic!("importing {name}: {e}"))
}

fn person<'a>(people: &'a [Person], id: &str) -> &'a Person {
    people
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no person {id}"))
}

fn fact(property: Property, value: &str, alternates: &[&str]) -> Fact {
    Fact::new(property, value).with_alternates(alternates.iter().map(|a| (*a).to_owned()))
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// The report without its input paths, to compare imports of the same data from different files.
fn counts(report: &SourceReport) -> SourceReport {
    SourceReport {
        inputs: Vec::new(),
        ..report.clone()
    }
}

/// The fixture with its 1-based line `line_no` replaced by `replacement`, written to `dir/name`.
fn fixture_with_line(
    name: &str,
    line_no: usize,
    replacement: &str,
    dir: &Path,
    out_name: &str,
) -> PathBuf {
    let text = std::fs::read_to_string(fixture(name)).expect("fixture");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[line_no - 1] = replacement;
    let path = dir.join(out_name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("temporary copy");
    path
}

// ---------------------------------------------------------------------------------------------------
// Wikidata JSON dump

const AURELIA: &str = "Q99000001";
const PAVEL: &str = "Q99000002";
const MAREN: &str = "Q99000003";

#[test]
fn wikidata_dump_keeps_humans_only() {
    let data = import_fixture(Format::Wikidata, "wikidata_dump.json");
    let ids: Vec<&str> = data.people.iter().map(|p| p.id.as_str()).collect();
    // The company (Q99000401) has claims, a founder and an inception date, but is no human (P31 ≠ Q5);
    // places, occupations, awards and the sex items are only there to name fact values.
    assert_eq!(ids, [AURELIA, PAVEL, MAREN]);
    assert_eq!(data.report.format, "wikidata");
    assert_eq!(data.report.people, 3);
    assert_eq!(data.report.facts, 8 + 10 + 7);
    assert_eq!(data.report.docs, 0);
    assert_eq!(data.report.skipped_invalid, 0);
}

#[test]
fn wikidata_dump_resolves_claims_to_english_labels_and_alternates() {
    let data = import_fixture(Format::Wikidata, "wikidata_dump.json");

    let aurelia = person(&data.people, AURELIA);
    assert_eq!(aurelia.label, "Aurelia Vantz");
    assert_eq!(aurelia.aliases, strings(&["Lia Vantz", "Aurelia M. Vantz"]));
    assert!(aurelia.same_as.is_empty());
    // In the importer's property order (P569, P570, P19, P20, P27, P106, P108, P69, P166, P21, P26);
    // the deprecated birth date (1991-08-05) is ignored; the native-name (monolingual text) and VIAF
    // (external id) claims are not imported. Alternates are the value item's aliases without codes
    // ("VD") or flags (🇻🇩).
    assert_eq!(
        aurelia.facts,
        vec![
            fact(Property::BirthDate, "1992-08-05", &[]),
            fact(Property::BirthPlace, "Port Ilvane", &["Ilvane"]),
            fact(Property::Citizenship, "Veldoria", &["Republic of Veldoria"]),
            fact(Property::Occupation, "chemist", &["chemical scientist"]),
            fact(
                Property::Employer,
                "Norrvik Instruments",
                &["Norrvik Instruments AG", "NIAG"]
            ),
            fact(
                Property::EducatedAt,
                "University of Dunmere",
                &["Dunmere University"]
            ),
            fact(Property::Award, "Halvorsen Medal", &["Halvorsen Prize"]),
            fact(Property::Sex, "female", &["woman"]),
        ]
    );

    let pavel = person(&data.people, PAVEL);
    assert_eq!(pavel.label, "Pavel Dunaj");
    assert_eq!(pavel.aliases, strings(&["Pasha Dunaj"]));
    // Month precision; a death place whose item has only a `mul` label (used when there is no `en`
    // one); a 3-letter code alias ("KSL") dropped; the award item has no English label (dropped);
    // the spouse is another human of the dump, named by its label.
    assert_eq!(
        pavel.facts,
        vec![
            fact(Property::BirthDate, "1992-08", &[]),
            fact(Property::DeathDate, "2021-02-14", &[]),
            fact(Property::BirthPlace, "Dunmere", &[]),
            fact(Property::DeathPlace, "Halvik", &["Halvik by"]),
            fact(Property::Citizenship, "Karsland", &["Kingdom of Karsland"]),
            fact(
                Property::Occupation,
                "cartographer",
                &["mapmaker", "map maker"]
            ),
            fact(Property::Occupation, "violinist", &["fiddler"]),
            fact(
                Property::EducatedAt,
                "University of Dunmere",
                &["Dunmere University"]
            ),
            fact(Property::Sex, "male", &["man"]),
            fact(Property::Spouse, "Maren Osterkamp", &["M. Osterkamp"]),
        ]
    );

    let maren = person(&data.people, MAREN);
    assert_eq!(maren.label, "Maren Osterkamp");
    assert_eq!(maren.aliases, strings(&["M. Osterkamp"]));
    // Year precision; two citizenships; an unknown death place ("somevalue" snak, no value) and a
    // deprecated employer are skipped.
    assert_eq!(
        maren.facts,
        vec![
            fact(Property::BirthDate, "1992", &[]),
            fact(Property::BirthPlace, "Dunmere", &[]),
            fact(Property::Citizenship, "Veldoria", &["Republic of Veldoria"]),
            fact(Property::Citizenship, "Karsland", &["Kingdom of Karsland"]),
            fact(Property::Occupation, "violinist", &["fiddler"]),
            fact(Property::Award, "Halvorsen Medal", &["Halvorsen Prize"]),
            fact(Property::Sex, "female", &["woman"]),
        ]
    );

    // Pavel's award: Q99000602 is labelled in German only.
    assert_eq!(data.report.unresolved_values, 1);
}

#[test]
fn wikidata_dump_in_german_picks_german_labels_and_aliases() {
    let data = import_one(
        Format::Wikidata,
        fixture("wikidata_dump.json"),
        &options("de", false),
    )
    .unwrap();
    assert_eq!(data.people.len(), 3);

    let pavel = person(&data.people, PAVEL);
    assert_eq!(pavel.label, "Pawel Dunaj");
    assert_eq!(pavel.aliases, strings(&["Pawel Dunai"]));
    // "violinist" has no German label: dropped in German. The award labelled in German only is now
    // resolved; Halvik has a German label and its `mul` aliases still count.
    assert_eq!(
        pavel.facts,
        vec![
            fact(Property::BirthDate, "1992-08", &[]),
            fact(Property::DeathDate, "2021-02-14", &[]),
            fact(Property::BirthPlace, "Dunmere", &[]),
            fact(Property::DeathPlace, "Halvik", &["Halvik by"]),
            fact(Property::Citizenship, "Karsland", &[]),
            fact(Property::Occupation, "Kartograf", &[]),
            fact(Property::EducatedAt, "Universität Dunmere", &[]),
            fact(
                Property::Award,
                "Orden des Silbernen Ankers",
                &["Silberner Anker"]
            ),
            fact(Property::Sex, "männlich", &[]),
            fact(Property::Spouse, "Maren Osterkamp", &[]),
        ]
    );

    let aurelia = person(&data.people, AURELIA);
    assert_eq!(aurelia.label, "Aurelia Vantz");
    assert!(
        aurelia.aliases.is_empty(),
        "English aliases leak into German: {:?}",
        aurelia.aliases
    );
    assert!(aurelia.facts.contains(&fact(
        Property::Citizenship,
        "Veldorien",
        &["Republik Veldorien"]
    )));
    assert!(
        aurelia
            .facts
            .contains(&fact(Property::Occupation, "Chemiker", &["Chemikerin"]))
    );
    assert!(
        aurelia
            .facts
            .contains(&fact(Property::Award, "Halvorsen-Medaille", &[]))
    );

    let maren = person(&data.people, MAREN);
    assert!(
        maren
            .facts
            .iter()
            .all(|f| f.property != Property::Occupation)
    );

    // "violinist" for Pavel and for Maren.
    assert_eq!(data.report.unresolved_values, 2);
}

#[test]
fn wikidata_dump_reads_the_same_gzip_and_bzip2_compressed() {
    let plain = import_fixture(Format::Wikidata, "wikidata_dump.json");
    let bytes = std::fs::read(fixture("wikidata_dump.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();

    let gz = dir.path().join("wikidata_dump.json.gz");
    let file = std::fs::File::create(&gz).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    encoder.write_all(&bytes).unwrap();
    encoder.finish().unwrap();

    let bz2 = dir.path().join("wikidata_dump.json.bz2");
    let file = std::fs::File::create(&bz2).unwrap();
    let mut encoder = bzip2::write::BzEncoder::new(file, bzip2::Compression::default());
    encoder.write_all(&bytes).unwrap();
    encoder.finish().unwrap();

    for path in [gz, bz2] {
        assert_ne!(
            std::fs::read(&path).unwrap(),
            bytes,
            "{} is not compressed",
            path.display()
        );
        let data = import_one(Format::Wikidata, path.clone(), &ImportOptions::default()).unwrap();
        assert_eq!(data.people, plain.people, "{}", path.display());
        assert_eq!(
            counts(&data.report),
            counts(&plain.report),
            "{}",
            path.display()
        );
        assert_eq!(data.report.inputs, vec![path]);
    }
}

#[test]
fn wikidata_truncated_line_is_an_error_naming_file_and_line_or_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    // Line 8 is Port Ilvane (Q99000201), Aurelia's birth place: cut it off mid-entity.
    let original = std::fs::read_to_string(fixture("wikidata_dump.json")).unwrap();
    let line = original.lines().nth(7).unwrap();
    assert!(line.starts_with(r#"{"type":"item","id":"Q99000201""#));
    let path = fixture_with_line(
        "wikidata_dump.json",
        8,
        &line[..line.len() / 2],
        dir.path(),
        "dump.json",
    );

    let err = import_one(Format::Wikidata, path.clone(), &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("dump.json:8:"), "{err}");
    assert!(err.contains("field `entity`"), "{err}");

    let data = import_one(Format::Wikidata, path, &options("en", true)).unwrap();
    // Counted once, although the line is read by both passes (people, then the names of values).
    assert_eq!(data.report.skipped_invalid, 1);
    assert_eq!(data.people.len(), 3);
    // Aurelia's birth place can no longer be named; the rest is as in the intact dump.
    let aurelia = person(&data.people, AURELIA);
    assert!(
        aurelia
            .facts
            .iter()
            .all(|f| f.property != Property::BirthPlace)
    );
    assert_eq!(aurelia.facts.len(), 7);
    assert_eq!(data.report.unresolved_values, 2);
}

#[test]
fn wikidata_truncated_human_is_skipped_once() {
    let dir = tempfile::tempdir().unwrap();
    // Line 4 is Maren (Q99000003), a human that Pavel's spouse claim names.
    let original = std::fs::read_to_string(fixture("wikidata_dump.json")).unwrap();
    let line = original.lines().nth(3).unwrap();
    let path = fixture_with_line(
        "wikidata_dump.json",
        4,
        &line[..200],
        dir.path(),
        "dump.json",
    );

    let err = import_one(Format::Wikidata, path.clone(), &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("dump.json:4:"), "{err}");

    let data = import_one(Format::Wikidata, path, &options("en", true)).unwrap();
    assert_eq!(data.report.skipped_invalid, 1);
    let ids: Vec<&str> = data.people.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, [AURELIA, PAVEL]);
    // Pavel's spouse and award.
    assert_eq!(data.report.unresolved_values, 2);
}

// ---------------------------------------------------------------------------------------------------
// Pantheon

#[test]
fn pantheon_sample_imports_rows_and_skips_placeholders() {
    let data = import_fixture(Format::Pantheon, "pantheon_sample.tsv");
    let ids: Vec<&str> = data.people.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "pantheon:90000101",
            "pantheon:90000102",
            "pantheon:90000103",
            "pantheon:90000104",
            "pantheon:90000105",
            "pantheon:90000106",
        ]
    );
    assert_eq!(data.report.format, "pantheon");
    assert_eq!(data.report.skipped_invalid, 0);
    assert_eq!(data.report.docs, 0);

    let ilse = person(&data.people, "pantheon:90000101");
    assert_eq!(ilse.label, "Ilse Varnholt");
    assert!(ilse.aliases.is_empty() && ilse.same_as.is_empty());
    // Occupations are lower-cased; other values are kept as written (countries in capitals too).
    assert_eq!(
        ilse.facts,
        vec![
            fact(Property::BirthDate, "1931", &[]),
            fact(Property::BirthPlace, "Halvik", &[]),
            fact(Property::BirthCountry, "KARSLAND", &[]),
            fact(Property::Sex, "Female", &[]),
            fact(Property::Occupation, "physicist", &[]),
        ]
    );

    // A decade as birth year is kept; birth city `Other` and country `Unknown` are placeholders.
    let odo = person(&data.people, "pantheon:90000102");
    assert_eq!(
        odo.facts,
        vec![
            fact(Property::BirthDate, "530s", &[]),
            fact(Property::Sex, "Male", &[]),
            fact(Property::Occupation, "religious figure", &[]),
        ]
    );

    // An uncertain year (`1237?`) is kept without its question mark.
    let gerlach = person(&data.people, "pantheon:90000103");
    assert_eq!(gerlach.facts[0], fact(Property::BirthDate, "1237", &[]));
    assert_eq!(gerlach.birth_year(), Some(1237));

    // `Unknown` birth year: no birth date at all.
    let sabeth = person(&data.people, "pantheon:90000104");
    assert!(
        sabeth
            .facts
            .iter()
            .all(|f| f.property != Property::BirthDate)
    );
    assert_eq!(
        sabeth.facts[0],
        fact(Property::BirthPlace, "Port Ilvane", &[])
    );

    // Years before the common era are negative.
    let cornelius = person(&data.people, "pantheon:90000105");
    assert_eq!(cornelius.birth_year(), Some(-212));
    assert!(
        person(&data.people, "pantheon:90000106")
            .facts
            .contains(&fact(Property::Occupation, "tennis player", &[]))
    );

    assert_eq!(data.report.facts, 5 + 3 + 5 + 4 + 5 + 5);
}

#[test]
fn pantheon_row_without_name_is_an_error_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(fixture("pantheon_sample.tsv")).unwrap();
    text.push_str(
        "90000107\t\t12\tDunmere\t\tKarsland\tKL\tKLD\t59.3\t11.8\tEurope\t1877\tMale\tPAINTER\t\
         FINE ARTS\tARTS\t90210\t3.2\t700.5\t40100\t50110\t1503.5\t17.9\n",
    );
    let path = dir.path().join("pantheon.tsv");
    std::fs::write(&path, text).unwrap();

    let err = import_one(Format::Pantheon, path.clone(), &ImportOptions::default())
        .unwrap_err()
        .to_string();
    // Header on line 1, six rows, the nameless one on line 8.
    assert!(err.contains("pantheon.tsv:8: field `name`"), "{err}");

    let data = import_one(Format::Pantheon, path, &options("en", true)).unwrap();
    assert_eq!(data.report.skipped_invalid, 1);
    assert_eq!(data.people.len(), 6);
    assert!(data.people.iter().all(|p| p.id != "pantheon:90000107"));
}

// ---------------------------------------------------------------------------------------------------
// Google-RE

const ILSE_GRE: &str = "freebase:/m/0ivx9k2";
const TOBIAH_GRE: &str = "freebase:/m/0trnw7q";
const HEDDA_GRE: &str = "freebase:/m/0hdlq55";

#[test]
fn google_re_sample_imports_people_facts_and_documents() {
    let data = import_fixture(Format::GoogleRe, "google_re_sample.jsonl");
    let ids: Vec<&str> = data.people.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, [ILSE_GRE, TOBIAH_GRE, HEDDA_GRE]);
    assert_eq!(data.report.format, "google-re");
    assert_eq!(
        (data.report.people, data.report.facts, data.report.docs),
        (3, 5, 4)
    );
    assert_eq!(data.report.skipped_invalid, 0);

    // Two lines (date and place of birth) about one person make one person; `sub_w` is a same-as id.
    let ilse = person(&data.people, ILSE_GRE);
    assert_eq!(ilse.label, "Ilse Varnholt");
    assert_eq!(ilse.aliases, strings(&["Ilse M. Varnholt"]));
    assert_eq!(ilse.same_as, strings(&["Q99000010"]));
    assert_eq!(
        ilse.facts,
        vec![
            fact(Property::BirthDate, "1931", &[]),
            fact(Property::BirthPlace, "Halvik", &["Halvik by"]),
        ]
    );

    // `sub_w: null` gives no same-as id. The object's aliases lose the 2-letter code ("vd"), the
    // 3-letter code ("VDA") and the flag (🇻🇩). A full date object (`obj`: 1958-03-12) is imported
    // as its label, the year.
    let tobiah = person(&data.people, TOBIAH_GRE);
    assert!(tobiah.same_as.is_empty() && tobiah.aliases.is_empty());
    assert_eq!(
        tobiah.facts,
        vec![
            fact(Property::BirthPlace, "Veldoria", &["Republic of Veldoria"]),
            fact(Property::BirthDate, "1958", &[]),
        ]
    );

    let hedda = person(&data.people, HEDDA_GRE);
    assert_eq!(hedda.same_as, strings(&["Q99000030"]));
    assert_eq!(
        hedda.facts,
        vec![fact(Property::DeathPlace, "Port Ilvane", &["Ilvane"])]
    );

    // Ilse's two lines share their snippet: one document. Tobiah's two snippets: two documents,
    // numbered per person.
    let docs: Vec<(&str, Option<&str>)> = data
        .docs
        .iter()
        .map(|d| (d.id.as_str(), d.person.as_deref()))
        .collect();
    assert_eq!(
        docs,
        [
            ("gre:0ivx9k2:1", Some(ILSE_GRE)),
            ("gre:0trnw7q:1", Some(TOBIAH_GRE)),
            ("gre:0trnw7q:2", Some(TOBIAH_GRE)),
            ("gre:0hdlq55:1", Some(HEDDA_GRE)),
        ]
    );
    assert!(
        data.docs[0]
            .text
            .starts_with("Ilse Varnholt (born 1931 in Halvik) is a Karslandic physicist")
    );
    assert!(
        data.docs[2]
            .text
            .starts_with("Tobiah Renwick (born 12 March 1958)")
    );
    assert!(data.docs.iter().all(|d| d.split.is_none()));
}

// ---------------------------------------------------------------------------------------------------
// Merging sources

#[test]
fn merge_joins_pantheon_and_google_re_by_name_and_birth_year() {
    let pantheon = import_fixture(Format::Pantheon, "pantheon_sample.tsv");
    let gre = import_fixture(Format::GoogleRe, "google_re_sample.jsonl");
    let (kg, stats) = KnowledgeGraph::merge([pantheon.people.clone(), gre.people.clone()]);

    // Ilse Varnholt, born 1931, is in both: one person under the first source's id.
    assert_eq!(
        stats,
        MergeStats {
            by_identifier: 0,
            by_name_and_birth_year: 1,
            kept_apart: 0,
        }
    );
    assert_eq!(kg.len(), 6 + 3 - 1);
    let ids: Vec<&str> = kg.people.iter().map(|p| p.id.as_str()).collect();
    let mut expected: Vec<&str> = pantheon.people.iter().map(|p| p.id.as_str()).collect();
    expected.extend([TOBIAH_GRE, HEDDA_GRE]);
    assert_eq!(ids, expected);

    let ilse = &kg.people[0];
    assert_eq!(ilse.id, "pantheon:90000101");
    assert_eq!(ilse.label, "Ilse Varnholt");
    assert_eq!(ilse.aliases, strings(&["Ilse M. Varnholt"]));
    assert_eq!(ilse.same_as, strings(&[ILSE_GRE, "Q99000010"]));
    // The shared birth place gains Google-RE's alternates; the shared birth year is not repeated.
    assert_eq!(
        ilse.facts,
        vec![
            fact(Property::BirthDate, "1931", &[]),
            fact(Property::BirthPlace, "Halvik", &["Halvik by"]),
            fact(Property::BirthCountry, "KARSLAND", &[]),
            fact(Property::Sex, "Female", &[]),
            fact(Property::Occupation, "physicist", &[]),
        ]
    );
    // The people only one source knows are untouched.
    assert_eq!(
        person(&kg.people, TOBIAH_GRE),
        person(&gre.people, TOBIAH_GRE)
    );
    assert_eq!(
        person(&kg.people, "pantheon:90000102"),
        person(&pantheon.people, "pantheon:90000102")
    );

    // The documents follow their person to the merged id.
    let id_map = kg.id_map();
    let remapped: Vec<(&str, &str)> = gre
        .docs
        .iter()
        .map(|d| (d.id.as_str(), id_map[d.person.as_deref().unwrap()]))
        .collect();
    assert_eq!(
        remapped,
        [
            ("gre:0ivx9k2:1", "pantheon:90000101"),
            ("gre:0trnw7q:1", TOBIAH_GRE),
            ("gre:0trnw7q:2", TOBIAH_GRE),
            ("gre:0hdlq55:1", HEDDA_GRE),
        ]
    );
    assert_eq!(id_map["Q99000010"], "pantheon:90000101");

    // Ids are stable: the same sources in the same order give the same graph.
    let (again, _) = KnowledgeGraph::merge([pantheon.people.clone(), gre.people.clone()]);
    assert_eq!(again, kg);
    // In the other order, the Google-RE id is the one kept.
    let (reversed, stats) = KnowledgeGraph::merge([gre.people.clone(), pantheon.people.clone()]);
    assert_eq!(stats.by_name_and_birth_year, 1);
    assert_eq!(reversed.people[0].id, ILSE_GRE);
    assert!(
        reversed.people[0]
            .same_as
            .contains(&"pantheon:90000101".to_owned())
    );
    assert_eq!(reversed.id_map()["pantheon:90000101"], ILSE_GRE);
}

// ---------------------------------------------------------------------------------------------------
// KG directories

#[test]
fn wikidata_import_round_trips_through_a_kg_dir() {
    let data = import_fixture(Format::Wikidata, "wikidata_dump.json");
    let kg = KnowledgeGraph {
        people: data.people,
    };
    let dir = tempfile::tempdir().unwrap();
    let kg_dir = dir.path().join("kg");
    let meta = write_kg_dir(
        &kg_dir,
        &kg,
        &[],
        vec![data.report.clone()],
        MergeStats::default(),
    )
    .unwrap();
    assert_eq!((meta.people, meta.facts, meta.docs), (3, 25, 0));

    let (read, read_meta) = read_kg_dir(&kg_dir).unwrap();
    assert_eq!(read, kg);
    assert_eq!(read_meta, meta);
    assert_eq!(read_meta.sources, vec![data.report]);
    assert!(kanon_kg::store::docs_path(&kg_dir).is_none());
}

#[test]
fn merged_sources_with_documents_round_trip_through_a_kg_dir() {
    let pantheon = import_fixture(Format::Pantheon, "pantheon_sample.tsv");
    let gre = import_fixture(Format::GoogleRe, "google_re_sample.jsonl");
    let (kg, stats) = KnowledgeGraph::merge([pantheon.people, gre.people]);
    let dir = tempfile::tempdir().unwrap();
    let kg_dir = dir.path().join("kg");
    let meta = write_kg_dir(
        &kg_dir,
        &kg,
        &gre.docs,
        vec![pantheon.report, gre.report],
        stats,
    )
    .unwrap();

    let (read, read_meta) = read_kg_dir(&kg_dir).unwrap();
    assert_eq!(read, kg);
    assert_eq!(read_meta, meta);
    assert_eq!(read_meta.merge, stats);
    let docs_file = kanon_kg::store::docs_path(&kg_dir).expect("docs.jsonl");
    assert_eq!(
        std::fs::read_to_string(docs_file).unwrap().lines().count(),
        4
    );
}

#[test]
fn wikidata_humans_without_a_name_in_the_language_are_named_in_another() {
    // No entity of the fixture has a Finnish label (nor a `mul` one on its humans): the people are
    // kept under their English names, and counted.
    let data = import_one(
        Format::Wikidata,
        fixture("wikidata_dump.json"),
        &options("fi", false),
    )
    .unwrap();
    let names: Vec<&str> = data.people.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(names, ["Aurelia Vantz", "Pavel Dunaj", "Maren Osterkamp"]);
    assert_eq!(data.report.people_named_in_other_language, 3);
    assert_eq!(data.report.people_without_label, 0);
    assert_eq!(data.report.skipped_invalid, 0);
    // No Finnish aliases either; the values are Finnish-less too, except Halvik's `mul` label.
    assert!(data.people.iter().all(|p| p.aliases.is_empty()));
    let pavel = person(&data.people, PAVEL);
    assert!(
        pavel
            .facts
            .contains(&fact(Property::DeathPlace, "Halvik", &["Halvik by"]))
    );
}

// ---------------------------------------------------------------------------------------------------
// Wikidata, 2014 format, and label tables

const ORTWIN: &str = "Q99000011";
const ZOFIA: &str = "Q99000012";

#[test]
fn wikidata_2014_dump_reads_numeric_ids_long_years_and_zero_days() {
    let data = import_fixture(Format::Wikidata, "wikidata_dump_2014.json");
    let ids: Vec<&str> = data.people.iter().map(|p| p.id.as_str()).collect();
    // The harbour (P31 = Q515, a numeric id) and the language are not humans.
    assert_eq!(ids, [ORTWIN, ZOFIA]);
    assert_eq!(data.report.skipped_invalid, 0);

    // Item values with only `numeric-id`; 11-digit years; a death date with a zero month and day at
    // day precision is its year. The birth place is an entity of the dump (2014 format, `[]` for
    // its empty descriptions); politician and male are named by kanon's bundled table; the
    // citizenship (Q99000191) and the employer (Q99000591) are named nowhere: dropped.
    let ortwin = person(&data.people, ORTWIN);
    assert_eq!(ortwin.label, "Ortwin Kessel");
    assert!(ortwin.aliases.is_empty());
    assert_eq!(
        ortwin.facts,
        vec![
            fact(Property::BirthDate, "1952-03-11", &[]),
            fact(Property::DeathDate, "2003", &[]),
            fact(Property::BirthPlace, "Dunmere Harbour", &["Dunmere Port"]),
            fact(Property::Occupation, "politician", &[]),
            fact(Property::Sex, "male", &[]),
        ]
    );

    // No English (nor `mul`) label: named by the label most languages share (pl, nl, ast), not the
    // Russian one; Polish aliases are not English ones. A zero day at day precision: the month.
    let zofia = person(&data.people, ZOFIA);
    assert_eq!(zofia.label, "Zofia Brandt-Kulesza");
    assert!(zofia.aliases.is_empty());
    assert_eq!(
        zofia.facts,
        vec![
            fact(Property::BirthDate, "1961-07", &[]),
            fact(Property::Occupation, "writer", &[]),
            fact(Property::Sex, "female", &[]),
            fact(Property::Language, "Karslandic", &[]),
        ]
    );
    assert_eq!(data.report.people_named_in_other_language, 1);

    let r = &data.report.resolution;
    let row = |pid: &str| {
        let x = r[pid];
        (
            x.values,
            x.from_input,
            x.from_labels,
            x.from_vocab,
            x.unresolved,
        )
    };
    assert_eq!(row("P19"), (1, 1, 0, 0, 0));
    assert_eq!(row("P27"), (2, 0, 0, 0, 2));
    assert_eq!(row("P106"), (2, 0, 0, 2, 0));
    assert_eq!(row("P108"), (1, 0, 0, 0, 1));
    assert_eq!(row("P21"), (2, 0, 0, 2, 0));
    assert_eq!(row("P1412"), (1, 1, 0, 0, 0));
    assert_eq!(r.len(), 6, "{r:?}");
    assert_eq!(data.report.unresolved_values, 3);
}

#[test]
fn wikidata_label_tables_name_what_the_dump_does_not() {
    let options = ImportOptions {
        labels: vec![
            fixture("wikidata_labels.tsv"),
            fixture("wikidata_labels.jsonl"),
        ],
        ..ImportOptions::default()
    };
    let data = import_one(
        Format::Wikidata,
        fixture("wikidata_dump_2014.json"),
        &options,
    )
    .unwrap();
    // Q99000191 is in both tables: the first (TSV) names it. Q82955 is in the JSON lines table
    // (with aliases) and in the bundled table: the user's table wins. The employer stays unnamed.
    let ortwin = person(&data.people, ORTWIN);
    assert!(
        ortwin
            .facts
            .contains(&fact(Property::Citizenship, "Harnmark", &[]))
    );
    assert!(ortwin.facts.contains(&fact(
        Property::Occupation,
        "statesperson",
        &["statesman", "stateswoman"]
    )));
    assert!(person(&data.people, ZOFIA).facts.contains(&fact(
        Property::Citizenship,
        "Harnmark",
        &[]
    )));
    let r = &data.report.resolution;
    assert_eq!((r["P27"].from_labels, r["P27"].unresolved), (2, 0));
    assert_eq!((r["P106"].from_labels, r["P106"].from_vocab), (1, 1));
    assert_eq!(data.report.unresolved_values, 1);
    assert!((r["P27"].rate() - 1.0).abs() < 1e-9 && r["P108"].rate() < 1e-9);

    // A bad row names the table's file, line and field.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("labels.tsv");
    std::fs::write(&bad, "Q99000191\tHarnmark\nHarnmark\tQ99000191\n").unwrap();
    let options = ImportOptions {
        labels: vec![bad],
        ..ImportOptions::default()
    };
    let err = import_one(
        Format::Wikidata,
        fixture("wikidata_dump_2014.json"),
        &options,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("labels.tsv:2: field `id`"), "{err}");
}

#[test]
fn label_tables_are_refused_for_other_formats() {
    let dir = tempfile::tempdir().unwrap();
    let job = ImportJob {
        sources: vec![Source {
            format: Format::Pantheon,
            inputs: vec![fixture("pantheon_sample.tsv")],
            labels: vec![fixture("wikidata_labels.tsv")],
        }],
        out: dir.path().join("kg"),
        lang: "en".into(),
        skip_invalid: false,
    };
    let err = kanon_kg::job::import(&job, &kanon_core::NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("wikidata sources only"), "{err}");
    assert!(!dir.path().join("kg").exists());
}

// ---------------------------------------------------------------------------------------------------
// T-REx

const AURELIA_TREX: &str = AURELIA;
const ILSE_Q: &str = "Q99000010";
const BRYNJA: &str = "Q99000020";

fn trex_fixtures() -> Vec<PathBuf> {
    ["P19.jsonl", "P106.jsonl", "P1412.jsonl"]
        .iter()
        .map(|n| fixture("trex").join(n))
        .collect()
}

#[test]
fn trex_imports_people_facts_aliases_and_sentences() {
    let data = import::import(Format::Trex, &trex_fixtures(), &ImportOptions::default()).unwrap();
    let ids: Vec<&str> = data.people.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, [AURELIA_TREX, ILSE_Q, BRYNJA]);
    assert_eq!(data.report.format, "trex");
    assert_eq!(
        (data.report.people, data.report.facts, data.report.docs),
        (3, 5, 6)
    );
    assert_eq!(data.report.skipped_invalid, 0);

    // Lines of two relations about one person make one person. A sentence's other way of writing
    // the object ("Ilvane") is an alternate; its other way of writing the person, when of two words
    // or more, an alias.
    let aurelia = person(&data.people, AURELIA_TREX);
    assert_eq!(aurelia.label, "Aurelia Vantz");
    assert_eq!(aurelia.aliases, strings(&["Aurelia M. Vantz"]));
    assert!(aurelia.same_as.is_empty());
    assert_eq!(
        aurelia.facts,
        vec![
            fact(Property::BirthPlace, "Port Ilvane", &["Ilvane"]),
            fact(Property::Occupation, "chemist", &[]),
        ]
    );
    // A surname alone ("Varnholt") is no alias: the variants make it from the label anyway.
    let ilse = person(&data.people, ILSE_Q);
    assert!(ilse.aliases.is_empty());
    assert_eq!(ilse.facts, vec![fact(Property::BirthPlace, "Halvik", &[])]);
    // Languages (P1412) are a fact kind of their own.
    let brynja = person(&data.people, BRYNJA);
    assert_eq!(
        brynja.facts,
        vec![
            fact(Property::Occupation, "actor", &["actress"]),
            fact(Property::Language, "Karslandic", &[]),
        ]
    );

    // Sentences with [MASK] filled back, each once per person: Aurelia's first sentence is in two
    // evidences of P19 and (filled) in P106.
    let docs: Vec<(&str, &str, &str)> = data
        .docs
        .iter()
        .map(|d| (d.id.as_str(), d.person.as_deref().unwrap(), d.text.as_str()))
        .collect();
    assert_eq!(
        docs,
        [
            (
                "trex:Q99000001:1",
                AURELIA_TREX,
                "Aurelia Vantz (born 5 August 1992 in Port Ilvane) is a Veldorian chemist."
            ),
            (
                "trex:Q99000001:2",
                AURELIA_TREX,
                "An Ilvane native, Aurelia M. Vantz studied at the University of Dunmere."
            ),
            (
                "trex:Q99000010:1",
                ILSE_Q,
                "Varnholt was born in Halvik, a fishing town in Karsland."
            ),
            (
                "trex:Q99000020:1",
                BRYNJA,
                "Brynja Solvik is a Karslandic stage actress and director."
            ),
            (
                "trex:Q99000020:2",
                BRYNJA,
                "In 2004 Solvik became the youngest actress of the Halvik Theatre."
            ),
            (
                "trex:Q99000020:3",
                BRYNJA,
                "Brynja Solvik writes her plays in Karslandic and Veldorian."
            ),
        ]
    );
}

#[test]
fn trex_bad_lines_name_file_line_and_field_or_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(fixture("trex").join("P19.jsonl")).unwrap();
    let second = original.lines().nth(1).unwrap();
    let cases = [
        (
            second.replace("\"P19\"", "\"P36\""),
            "field `predicate_id`: unsupported relation \"P36\"",
        ),
        (
            second.replace("\"Q99000010\"", "\"ilse\""),
            "field `sub_uri`",
        ),
        (
            second.replace("\"obj_surface\": \"Halvik\"", "\"obj_surface\": \"\""),
            "field `evidences[0].obj_surface`",
        ),
        (
            second.replace("\"sub_label\": \"Ilse Varnholt\"", "\"sub_label\": \" \""),
            "field `sub_label`",
        ),
        (second[..second.len() / 2].to_owned(), "field `record`"),
    ];
    for (replacement, expected) in cases {
        let path = fixture_with_line("trex/P19.jsonl", 2, &replacement, dir.path(), "P19.jsonl");
        let err = import_one(Format::Trex, path.clone(), &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("P19.jsonl:2: "), "{err}");
        assert!(err.contains(expected), "{expected} not in {err}");
        let data = import_one(Format::Trex, path, &options("en", true)).unwrap();
        assert_eq!(data.report.skipped_invalid, 1);
        let ids: Vec<&str> = data.people.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, [AURELIA_TREX]);
    }
}

// ---------------------------------------------------------------------------------------------------
// Four sources in one KG

#[test]
fn pantheon_google_re_trex_and_wikidata_merge_by_wikidata_id_then_name_and_birth_date() {
    let dir = tempfile::tempdir().unwrap();
    let job = ImportJob {
        sources: vec![
            Source {
                format: Format::Pantheon,
                inputs: vec![fixture("pantheon_sample.tsv")],
                labels: vec![],
            },
            Source {
                format: Format::GoogleRe,
                inputs: vec![fixture("google_re_sample.jsonl")],
                labels: vec![],
            },
            Source {
                format: Format::Trex,
                inputs: trex_fixtures(),
                labels: vec![],
            },
            Source {
                format: Format::Wikidata,
                inputs: vec![fixture("wikidata_dump.json")],
                labels: vec![],
            },
        ],
        out: dir.path().join("kg"),
        lang: "en".into(),
        skip_invalid: false,
    };
    let summary = kanon_kg::job::import(&job, &kanon_core::NoProgress).unwrap();
    // Google-RE's Ilse joins Pantheon's by name and birth year (1931) and brings her Wikidata id
    // (`sub_w`); T-REx's Ilse joins by that id; the dump's Aurelia joins T-REx's by hers.
    assert_eq!(
        summary.merge,
        MergeStats {
            by_identifier: 2,
            by_name_and_birth_year: 1,
            kept_apart: 0,
        }
    );
    // 6 + 3 + 3 + 3 records, 3 merged.
    assert_eq!(summary.meta.people, 12);
    assert_eq!(summary.meta.docs, 4 + 6);
    let rendered = summary.render();
    assert!(
        rendered.contains("trex: 3 people, 5 facts, 6 docs from 3 file(s)"),
        "{rendered}"
    );
    assert!(
        rendered.contains("merged: 12 people (2 by identifier, 1 by name and birth year)"),
        "{rendered}"
    );

    let (kg, meta) = read_kg_dir(&job.out).unwrap();
    assert_eq!(meta.sources.len(), 4);
    let ilse = person(&kg.people, "pantheon:90000101");
    assert_eq!(ilse.same_as, strings(&[ILSE_GRE, ILSE_Q]));
    assert!(
        ilse.facts
            .contains(&fact(Property::BirthPlace, "Halvik", &["Halvik by"]))
    );
    let aurelia = person(&kg.people, AURELIA_TREX);
    // T-REx's facts first, then the dump's that T-REx lacks (the shared occupation once, with the
    // dump's alternates).
    assert_eq!(
        aurelia.facts[0],
        fact(Property::BirthPlace, "Port Ilvane", &["Ilvane"])
    );
    assert_eq!(
        aurelia.facts[1],
        fact(Property::Occupation, "chemist", &["chemical scientist"])
    );
    assert_eq!(aurelia.facts.len(), 8);
    // The documents follow their people: T-REx's Ilse sentence is Pantheon's Ilse's now.
    let docs = std::fs::read_to_string(kanon_kg::store::docs_path(&job.out).unwrap()).unwrap();
    let docs: Vec<kanon_core::Document> = docs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ilse_docs: Vec<&str> = docs
        .iter()
        .filter(|d| d.person.as_deref() == Some("pantheon:90000101"))
        .map(|d| d.id.as_str())
        .collect();
    assert_eq!(ilse_docs, ["gre:0ivx9k2:1", "trex:Q99000010:1"]);
}

fn import_triples(text: &str, skip_invalid: bool) -> kanon_kg::Result<SourceData> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kg.csv");
    std::fs::write(&path, text).unwrap();
    let options = ImportOptions {
        skip_invalid,
        ..ImportOptions::default()
    };
    import::import(Format::Triples, &[path], &options)
}

#[test]
fn triples_resolve_entity_values_to_labels_and_alternates() {
    let data = import_triples(
        "subject,property,value\n\
         Q1,label,Lilian Albano\nQ1,alias,Lily Albano\nQ1,birth_date,1992-08-05\nQ1,P27,Q40\n\
         Q1,occupation,chemist\nQ40,label,Austria\nQ40,alias,Republic of Austria\n\
         Q2,type,person\nQ2,label,Nameless Facts\n",
        false,
    )
    .unwrap();
    assert_eq!(data.people.len(), 2);
    let p = &data.people[0];
    assert_eq!((p.id.as_str(), p.label.as_str()), ("Q1", "Lilian Albano"));
    assert_eq!(p.aliases, vec!["Lily Albano"]);
    assert_eq!(p.facts[1].property, Property::Citizenship);
    assert_eq!(p.facts[1].value, "Austria");
    assert_eq!(p.facts[1].alternates, vec!["Republic of Austria"]);
    assert_eq!(data.report.facts, 3);
}

#[test]
fn triples_malformed_lines_name_file_line_and_field() {
    let text = "subject,property,value\nQ1,label,A B\nQ1,occupation,chemist\nQ1,Birth Date,1990\nQ1,birth_date,\n";
    let err = import_triples(text, false).unwrap_err().to_string();
    assert!(err.contains("kg.csv:4: field `property`"), "{err}");
    let data = import_triples(text, true).unwrap();
    assert_eq!(data.report.skipped_invalid, 2);
    assert_eq!(data.people.len(), 1);
    let err = import_triples("subject,prop,value\n", false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("kg.csv:1: field `property`: missing column"),
        "{err}"
    );
}
