//! Named things WordNet knows (`kg/vocab/wordnet_names.tsv`): a river, a war, a university, a
//! language, a religion, climbed through the kinds WordNet says they are (`Thames` → `a river in
//! England` → … → `a river` → `a stream`; `World War II` → `a world war` → `a war`; `Hindi` →
//! `a Sanskritic language` → `an Indic language`).
//!
//! True by construction, as far as WordNet is: a name has every sense WordNet gives it, and a rung
//! is given only when every sense the span's type allows shares it (`Mississippi`, a river and a
//! state, gives a LOC nothing; `English`, a language and a school subject, gives a MISC
//! nothing). Which senses a type allows:
//!
//! - LOC: places, geographic objects and buildings;
//! - ORG: organisations, institutions, other groups and buildings (`White House`, an executive
//!   department and a residence, gives nothing: a building is a reading an ORG may mean);
//! - MISC: everything but people and places; and since the title of a work is often a name
//!   WordNet knows for something else (a film called `Titanic` is no ship), a MISC span gets
//!   rungs only when they are a language's or a religion's, or when its own words state one of
//!   its kinds (`Vietnam War` → `a war`, not `Waterloo` → `a battle`);
//! - DEM: languages, where WordNet knows no people of that name (`Hindi`; not `Tamil` or
//!   `English`, which also name peoples), as family adjectives (`Indic`), the way a demonym's
//!   rungs read.

use kanon_core::EntityType;
use kanon_kg::vocab::{NamedSense, Vocabulary};

use super::places::climb;
use super::{Rung, RungSource, with_article};

/// The rungs WordNet gives a name of this type, or none.
pub(super) fn rungs(
    vocabulary: &Vocabulary,
    entity_type: EntityType,
    name: &str,
) -> Option<Vec<Rung>> {
    let senses = vocabulary.named_senses(name)?;
    let readings: Vec<&NamedSense> = senses
        .iter()
        .filter(|sense| plausible(entity_type, &sense.category))
        .collect();
    if readings.is_empty() {
        return None;
    }
    if entity_type == EntityType::Dem
        && (senses.iter().any(|sense| sense.category == "person")
            || readings.iter().any(|sense| sense.category != "language"))
    {
        return None;
    }
    let mut shared = sense_rungs(vocabulary, entity_type, readings[0]);
    for sense in &readings[1..] {
        let others = sense_rungs(vocabulary, entity_type, sense);
        shared.retain(|rung| others.iter().any(|other| other.text == rung.text));
    }
    if shared.is_empty() {
        return None;
    }
    if entity_type == EntityType::Misc
        && readings
            .iter()
            .any(|sense| !matches!(sense.category.as_str(), "language" | "religion"))
        && !states_a_kind(name, &shared)
    {
        return None;
    }
    Some(shared)
}

/// Whether a sense of this category is a reading a span of this type may mean.
fn plausible(entity_type: EntityType, category: &str) -> bool {
    match entity_type {
        EntityType::Loc => matches!(category, "location" | "object" | "artifact"),
        EntityType::Org => matches!(
            category,
            "organization" | "institution" | "group" | "artifact"
        ),
        EntityType::Misc => matches!(
            category,
            "language"
                | "religion"
                | "act"
                | "event"
                | "communication"
                | "cognition"
                | "time"
                | "artifact"
                | "organization"
                | "institution"
                | "group"
        ),
        EntityType::Dem => matches!(category, "language" | "religion"),
        _ => false,
    }
}

/// One sense's rungs: a language's families (`an Indic language`, or `Indic` for a DEM), or the
/// kinds placed where WordNet says the thing is (`a river in England`), then the kinds.
fn sense_rungs(vocabulary: &Vocabulary, entity_type: EntityType, sense: &NamedSense) -> Vec<Rung> {
    if sense.category == "language" {
        if entity_type == EntityType::Dem {
            return Rung::all(RungSource::WordNetNames, sense.kinds.iter().cloned());
        }
        let families = sense
            .kinds
            .iter()
            .map(|family| with_article(&format!("{family} language")))
            .chain(["a language".to_owned()]);
        return Rung::all(RungSource::WordNetNames, families);
    }
    let mut rungs = Vec::new();
    if let (Some(kind), Some(whole)) = (sense.kinds.first(), &sense.part_of) {
        rungs.extend(placed(vocabulary, kind, whole));
    }
    rungs.extend(Rung::all(
        RungSource::WordNetNames,
        sense.kinds.iter().cloned(),
    ));
    if sense.category == "religion" {
        rungs.push(Rung::new(RungSource::WordNetNames, "a religion"));
    }
    let mut seen = std::collections::HashSet::new();
    rungs.retain(|rung| seen.insert(rung.text.clone()));
    rungs
}

/// `a river in England`, `a river in the United Kingdom`, … for a thing part of a country or a
/// first-level region (a city name is not taken: which city WordNet means is not sure).
fn placed(vocabulary: &Vocabulary, kind: &str, whole: &str) -> Vec<Rung> {
    if let Some(country) = vocabulary.country(whole) {
        return Rung::all(RungSource::UnM49, climb(kind, country, true));
    }
    let Some(region) = vocabulary.first_level_region(whole) else {
        return Vec::new();
    };
    let Some(country) = vocabulary.country(&region.country) else {
        return Vec::new();
    };
    let mut rungs = vec![Rung::new(
        RungSource::WordNetNames,
        format!("{kind} in {}", super::places::place_name(&region.name)),
    )];
    rungs.extend(Rung::all(RungSource::UnM49, climb(kind, country, true)));
    rungs.pop(); // the bare kind comes with the kinds
    rungs
}

/// Whether the name's own words state one of the kinds its rungs give (`Vietnam War`: `a war`).
fn states_a_kind(name: &str, rungs: &[Rung]) -> bool {
    let words: Vec<String> = kanon_core::text::words(name);
    rungs.iter().any(|rung| {
        rung.text.rsplit(' ').next().is_some_and(|head| {
            let head = head.to_lowercase();
            words
                .iter()
                .any(|word| *word == head || word.strip_suffix('s') == Some(head.as_str()))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(entity_type: EntityType, name: &str) -> Vec<String> {
        rungs(Vocabulary::embedded(), entity_type, name)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn places_climb_their_kind_and_where_they_are() {
        let thames = texts(EntityType::Loc, "Thames");
        assert_eq!(thames[0], "a river in England");
        assert!(thames.contains(&"a river in the United Kingdom".to_owned()));
        assert_eq!(
            thames[thames.len() - 3..],
            ["a river", "a stream", "a body of water"]
        );
        // A river and a state: nothing true of both.
        assert!(texts(EntityType::Loc, "Mississippi").is_empty());
        // Lower case reads the same.
        assert_eq!(texts(EntityType::Loc, "thames"), thames);
    }

    #[test]
    fn a_misc_span_must_state_its_kind_unless_a_language_or_religion() {
        assert_eq!(
            texts(EntityType::Misc, "World War II"),
            ["a world war", "a war", "a military action"]
        );
        assert_eq!(texts(EntityType::Misc, "vietnam war")[0], "a war");
        // A film may be called Titanic; a ship's name states no kind.
        assert!(texts(EntityType::Misc, "Titanic").is_empty());
        assert_eq!(
            texts(EntityType::Misc, "Hindi"),
            [
                "a Sanskritic language",
                "an Indic language",
                "an Indo-Iranian language",
                "a language"
            ]
        );
        // A language and a school subject.
        assert!(texts(EntityType::Misc, "English").is_empty());
        assert_eq!(
            texts(EntityType::Misc, "Catholicism"),
            ["Christianity", "a religion"]
        );
    }

    #[test]
    fn organisations_and_demonyms() {
        assert_eq!(texts(EntityType::Org, "Harvard")[0], "a university");
        // An executive department, and a residence: no rung true of both.
        assert!(texts(EntityType::Org, "White House").is_empty());
        assert_eq!(texts(EntityType::Dem, "Hindi")[0], "Sanskritic");
        // Tamil names a people as well as a language.
        assert!(texts(EntityType::Dem, "Tamil").is_empty());
        assert!(texts(EntityType::Person, "Thames").is_empty());
    }
}
