//! Generalizations climbed from kanon's own hierarchies, true by construction, most specific
//! first, each rung a phrase that reads in prose and names its source:
//!
//! - places ([`places`]): a city to its first-level region, country, sub-region and region
//!   (GeoNames, UN M49); a first-level region to its country; a country to its sub-region and
//!   region; a place qualified by its region or country (`Austin, Texas`, `Jefferson County,
//!   Kentucky`); a name that is a city and a region elsewhere to what both share; a division
//!   whose name states its kind (`Lagos State`); a demonym to its sub-region's and region's
//!   adjectives;
//! - kinds of people ([`people`]): WordNet's hypernyms (`singer` → `a musician` → `a performer`),
//!   and the office a title states (`Minister of Finance` → `a government minister` → `a
//!   politician`);
//! - organisations ([`organizations`]): a listed organisation's kind, or the kind its own name,
//!   legal form or club name says, with the place it names (`the University of Oslo` → `a
//!   university in Norway`; `Siemens AG` → `a company`);
//! - named things WordNet knows ([`named`]): rivers, mountains, wars, languages, religions,
//!   universities (`Thames` → `a river in England`; `Hindi` → `an Indic language`);
//! - events, agreements and laws ([`events`]): the kind the name states and the period its year
//!   gives (`2008 Summer Olympics` → `an Olympic Games in the 2000s`);
//! - religions ([`religions`]): listed religions and beliefs;
//! - titles of works ([`works`]) whose head states their kind (`… Movie II` → `a film`);
//! - awards ([`awards`]): the kind a listed or self-describing award is (`Nobel Prize in
//!   Literature` → `a prize` → `an award`);
//! - quantities ([`quantities`]): bounds of a widening range (`87 films` → `more than 80 films`
//!   → `fewer than a hundred films`), money, decimals, ranges and ordinals.
//!
//! Dates have their own ladder (`crate::date`). Every hierarchy reads a name the same whatever
//! its case (`university of oslo` as `University of Oslo`): the KG attacker maps the lower-cased
//! terms of its index through [`kg_rungs`] to learn whom each rung covers, and a rung must cover
//! the same people there as in the text. Each is hash lookups on tables parsed once.
//!
//! ```
//! use kanon_core::EntityType;
//! use kanon_sanitize::ontology::kg_candidates;
//!
//! assert_eq!(
//!     kg_candidates(EntityType::Loc, "Ahmedabad")[..2],
//!     ["a city in Gujarat", "a city in India"]
//! );
//! assert_eq!(kg_candidates(EntityType::Dem, "singer")[0], "a musician");
//! ```

mod awards;
mod events;
mod named;
mod organizations;
mod people;
mod places;
mod quantities;
mod religions;
mod works;

pub(crate) use quantities::rank;

use kanon_core::EntityType;
use kanon_kg::vocab::Vocabulary;
use kanon_kg::{Property, PropertySet};
use serde::{Deserialize, Serialize};

/// Where a rung comes from: the table or rule that makes it true.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RungSource {
    /// GeoNames' cities and first-level regions (`kg/vocab/cities.tsv`, `city_regions.tsv`).
    #[serde(rename = "geonames")]
    GeoNames,
    /// The UN M49 sub-regions and regions of countries (`kg/vocab/regions.tsv`).
    #[serde(rename = "un-m49")]
    UnM49,
    /// WordNet 3.0's hypernyms of kinds of people (`kg/vocab/person_hypernyms.tsv`).
    #[serde(rename = "wordnet")]
    WordNet,
    /// kanon's list of organisations and their kinds (`kg/vocab/organizations.tsv`).
    OrganizationList,
    /// kanon's list of awards (`kg/vocab/awards.tsv`).
    AwardList,
    /// WordNet 3.0's proper names and the kinds it says they are (`kg/vocab/wordnet_names.tsv`):
    /// `Thames` → `a river`, `Hindi` → `an Indic language`.
    WordNetNames,
    /// kanon's list of religions and beliefs (`kg/vocab/religions.tsv`).
    ReligionList,
    /// The kind a name itself states (`… University`, `… Party`, `… Prize`).
    StatedKind,
    /// A range around a number the span states.
    Number,
    /// The KG's facts: the property a name is the value of for everyone who has it (a team, a
    /// party, an employer), from the index's `properties.bin`.
    KgFacts,
    /// kanon's list of the sense a kind of person has in a biography where WordNet lists
    /// several (`actor` → `a performer`).
    BiographySense,
    /// The kind the document itself names right before a mention (`the rock band …`), read by
    /// [`crate::context`].
    Context,
    /// The head noun of a common noun phrase, its modifiers left out (`credit card fraud` →
    /// `fraud`): an endocentric compound is a kind of its head.
    HeadNoun,
}

/// One generalization of a span, with where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rung {
    /// The phrase that stands in the span's place: `a city in Norway`.
    pub text: String,
    /// What makes it true of the span.
    pub source: RungSource,
}

impl Rung {
    pub(crate) fn new(source: RungSource, text: impl Into<String>) -> Rung {
        Rung {
            text: text.into(),
            source,
        }
    }

    fn all(source: RungSource, texts: impl IntoIterator<Item = String>) -> Vec<Rung> {
        texts
            .into_iter()
            .map(|text| Rung::new(source, text))
            .collect()
    }
}

/// The rungs the hierarchies give for a mention of `entity_type`, most specific first (none when
/// the mention is in no hierarchy). A place name tagged as an organisation (a club, a council) is
/// not climbed as a city or region: `a city in Italy` is not true of Genoa's football club. A
/// country is, as `a country` (`represented the United States`).
pub fn kg_rungs(entity_type: EntityType, surface: &str) -> Vec<Rung> {
    let surface = surface.trim();
    let found = rungs_as_written(entity_type, surface);
    if !found.is_empty() {
        return found;
    }
    // A name's own-language form or abbreviation in brackets after it (`Warsaw Regional Court
    // (Sąd Okręgowy)`) and a possessive the span holds (`the Party of China's congress`, which
    // the renderer keeps after the replacement) are no part of the name. A name that ends in
    // either (`Macy's`) was read first.
    let unbracketed = surface
        .strip_suffix(')')
        .and_then(|inner| inner.rsplit_once(" ("))
        .map_or(surface, |(name, _)| name.trim_end());
    let name = unbracketed
        .strip_suffix("'s")
        .or_else(|| unbracketed.strip_suffix("\u{2019}s"))
        .unwrap_or(unbracketed);
    if name.len() == surface.len() || name.trim().is_empty() {
        return found;
    }
    rungs_as_written(entity_type, name)
}

fn rungs_as_written(entity_type: EntityType, surface: &str) -> Vec<Rung> {
    let vocabulary = Vocabulary::embedded();
    let bare = bare_name(surface);
    let found = match entity_type {
        // A town's name is read last: towns are many, and their names are also other things'.
        EntityType::Loc => place(vocabulary, bare)
            .or_else(|| named::rungs(vocabulary, entity_type, bare))
            .or_else(|| places::town(vocabulary, bare)),
        // A detector's miscellany that names a place is most likely a mistyped place.
        EntityType::Misc => organizations::listed(vocabulary, bare)
            .or_else(|| awards::rungs(vocabulary, bare))
            .or_else(|| awards::degree(bare))
            .or_else(|| events::rungs(vocabulary, bare))
            .or_else(|| religions::rungs(vocabulary, bare))
            .or_else(|| people::office(vocabulary, bare))
            .or_else(|| named::rungs(vocabulary, entity_type, bare))
            .or_else(|| place(vocabulary, bare))
            .or_else(|| people::titled(vocabulary, bare))
            .or_else(|| organizations::miscellany_by_name(vocabulary, bare))
            .or_else(|| works::rungs(bare))
            .or_else(|| head_noun(entity_type, surface)),
        EntityType::Org => organizations::listed(vocabulary, bare)
            .or_else(|| vocabulary.country(bare).map(places::country))
            .or_else(|| places::division_named(vocabulary, bare))
            .or_else(|| organizations::by_name(vocabulary, bare))
            // An office annotated as the body it heads (`Chief Minister of …`).
            .or_else(|| people::office(vocabulary, bare))
            .or_else(|| organizations::call_sign(bare))
            // An event is often annotated or detected as its organiser (`1962 FIFA World Cup`).
            .or_else(|| events::rungs(vocabulary, bare))
            .or_else(|| named::rungs(vocabulary, entity_type, bare))
            .or_else(|| head_noun(entity_type, surface)),
        // A title's office (`2nd President` → `a president`) is more than its head's kind.
        EntityType::Dem => places::demonym(vocabulary, bare)
            .or_else(|| people::office(vocabulary, bare))
            .or_else(|| people::titled(vocabulary, bare))
            .or_else(|| people::hypernyms(vocabulary, bare))
            .or_else(|| named::rungs(vocabulary, entity_type, bare))
            .or_else(|| head_noun(entity_type, surface))
            .or_else(|| roles_held_together(bare)),
        EntityType::Quantity => quantities::ladder(surface),
        // A date the ladder reads never comes here; a duration does.
        EntityType::Datetime => quantities::duration(surface),
        EntityType::Person | EntityType::Code => None,
    };
    found.unwrap_or_default()
}

/// The rungs of the places that contain a place the KG names, read as [`kg_rungs`] reads it
/// ([`places::containing`]), and the other form of a country's: its demonym's area adjectives
/// for a country (`Norway` → `Northern European`), its country's rungs for a demonym
/// (`Norwegian` → `a country in Northern Europe`). What the KG attacker adds to the people a
/// rung stands for: `Northern European` describes everyone the KG ties to a Northern European
/// country, whichever form its fact takes. Nothing for other types, or a place name read as a
/// river, a mountain or another named thing.
pub fn containing_rungs(entity_type: EntityType, surface: &str) -> Vec<String> {
    let vocabulary = Vocabulary::embedded();
    let bare = bare_name(surface);
    match entity_type {
        EntityType::Loc => {}
        EntityType::Dem => {
            return vocabulary
                .country_of_demonym(bare)
                .map(places::country_texts)
                .unwrap_or_default();
        }
        _ => return Vec::new(),
    }
    if let Some(country) = vocabulary.country(bare) {
        return places::area_adjectives(country);
    }
    let read_as_named =
        place(vocabulary, bare).is_none() && named::rungs(vocabulary, entity_type, bare).is_some();
    if read_as_named {
        return Vec::new();
    }
    places::containing(vocabulary, bare).unwrap_or_default()
}

/// Roles one person holds together, written with a slash (`Founder/CEO`, `writer/director`):
/// each is true of them, so the first that climbs gives the rungs.
fn roles_held_together(surface: &str) -> Option<Vec<Rung>> {
    let parts: Vec<&str> = surface.split('/').map(str::trim).collect();
    if parts.len() < 2 || parts.iter().any(|part| part.is_empty()) {
        return None;
    }
    parts
        .into_iter()
        .map(|part| kg_rungs(EntityType::Dem, part))
        .find(|rungs| !rungs.is_empty())
}

/// The KG properties whose values have a kind, and that kind, most specific first.
const FACT_KINDS: [(Property, &[&str]); 6] = [
    (Property::Team, &["a sports team", "an organization"]),
    (Property::Party, &["a political party", "an organization"]),
    (
        Property::EducatedAt,
        &["an educational institution", "an organization"],
    ),
    (Property::Employer, &["an organization"]),
    (Property::MemberOf, &["an organization"]),
    (Property::Award, &["an award"]),
];

/// The rungs the KG's facts give a name of `entity_type` (an organisation or a miscellany) that is
/// the value of `properties` for the people who have it: what all their kinds share, most
/// specific first (`a sports team` → `an organisation`; a team that is also someone's employer:
/// `an organisation`). None where a property has no kind (a name that is also a birthplace or
/// a person's name may be read either way) or the kinds share nothing.
pub fn fact_kind_rungs(entity_type: EntityType, properties: PropertySet) -> Vec<Rung> {
    if !matches!(entity_type, EntityType::Org | EntityType::Misc)
        || properties.is_empty()
        || !properties.only(FACT_KINDS.iter().map(|(property, _)| property))
    {
        return Vec::new();
    }
    let mut shared: Option<Vec<&str>> = None;
    for (_, chain) in FACT_KINDS.iter().filter(|(p, _)| properties.contains(p)) {
        shared = Some(match shared {
            None => chain.to_vec(),
            // Chains end in their most general kind: keep the common tail.
            Some(so_far) => {
                let common = so_far
                    .iter()
                    .rev()
                    .zip(chain.iter().rev())
                    .take_while(|(a, b)| a == b)
                    .count();
                so_far[so_far.len() - common..].to_vec()
            }
        });
    }
    shared
        .unwrap_or_default()
        .into_iter()
        .map(|text| Rung::new(RungSource::KgFacts, text))
        .collect()
}

/// A country's, a qualified place's (`Austin, Texas`), a city's or a first-level region's rungs,
/// in that order of readings; a name that is both a city and a region gets what both readings
/// share; a name that states its kind of division (`Jefferson County`), that kind.
fn place(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    if let Some(country) = vocabulary.country(name) {
        return Some(places::country(country));
    }
    if let Some(rungs) = name
        .split_once(", ")
        .and_then(|(head, qualifier)| places::qualified(vocabulary, head, qualifier))
    {
        return Some(rungs);
    }
    places::city_or_region(vocabulary, name)
        .or_else(|| places::city(vocabulary, name))
        .or_else(|| places::first_level_region(vocabulary, name))
        .or_else(|| places::division_named(vocabulary, name))
        .or_else(|| {
            places::stated_kind(name)
                .map(|kind| Rung::all(RungSource::StatedKind, [kind.to_owned(), "a place".into()]))
        })
}

/// Words that make a span more than a noun phrase of modifiers and a head: determiners,
/// prepositions, conjunctions, pronouns, auxiliaries.
const NOT_IN_A_COMPOUND: &[&str] = &[
    "a", "an", "the", "of", "for", "to", "in", "on", "at", "by", "with", "from", "into", "and",
    "or", "but", "his", "her", "their", "its", "our", "my", "your", "this", "that", "these",
    "those", "who", "which", "as", "is", "was", "are", "were", "be", "been", "has", "had", "have",
    "not", "one", "ever",
];

/// The head noun of a common noun phrase of two to four words (`fire station` → `station`,
/// `Jacobite cause` → `cause`, `assistant hockey coach` → `coach`): a compound noun names a kind of
/// what its head names, so the head alone is true of it. The head must be a lower-case word
/// that reads as a noun (not a participle or an adverb); a name (`Best Original Score`), a
/// clause (`water pipes froze in winter`) or a rank (`third round`) gives nothing. The head stands
/// bare, so that the text's own determiner, or none before a mass noun (`studying medicine`),
/// stays with it.
fn head_noun(entity_type: EntityType, surface: &str) -> Option<Vec<Rung>> {
    // `non‑commissioned` with a non-breaking hyphen is a compound word as much as with `-`.
    let surface = surface
        .trim_end_matches(['.', ',', ';', ':'])
        .replace(['\u{2010}', '\u{2011}'], "-");
    let mut words: Vec<&str> = surface.split_whitespace().collect();
    // An article the span holds goes with the head (`a retired officer` → `an officer`).
    let article = words
        .first()
        .is_some_and(|first| ["a", "an"].contains(&first.to_lowercase().as_str()));
    if article {
        words.remove(0);
    }
    if !(2..=4).contains(&words.len()) {
        return None;
    }
    let head = *words.last()?;
    let reads_as_noun = head.len() >= 3
        && head.chars().all(|c| c.is_lowercase() || c == '-')
        && !head.starts_with('-')
        && !["ly", "ed"].iter().any(|suffix| head.ends_with(suffix));
    let compound = words
        .iter()
        .all(|word| !NOT_IN_A_COMPOUND.contains(&word.to_lowercase().as_str()))
        && words[..words.len() - 1].iter().all(|word| {
            word.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '.'))
        });
    // A rank is no kind (`third round` → `round` would read as the only one), and a count
    // makes a measure, not a compound (`23 years old`).
    let ranked = rank(words[0]).is_some();
    let counted = words
        .iter()
        .any(|word| word.chars().any(|c| c.is_ascii_digit()) || crate::render::counts_alone(word));
    if !reads_as_noun || !compound || ranked || counted || entity_type == EntityType::Loc {
        return None;
    }
    let rung = if article {
        with_article(head)
    } else {
        head.to_owned()
    };
    Some(vec![Rung::new(RungSource::HeadNoun, rung)])
}

/// The phrases of [`kg_rungs`].
pub fn kg_candidates(entity_type: EntityType, surface: &str) -> Vec<String> {
    kg_rungs(entity_type, surface)
        .into_iter()
        .map(|rung| rung.text)
        .collect()
}

/// A name without its leading article: `the Netherlands` → `Netherlands`.
pub(crate) fn bare_name(name: &str) -> &str {
    let name = name.trim();
    name.strip_prefix("the ")
        .or_else(|| name.strip_prefix("The "))
        .unwrap_or(name)
}

/// `a` or `an` before a phrase, by its sound.
pub(crate) fn with_article(phrase: &str) -> String {
    let article = if crate::render::takes_an(phrase) {
        "an"
    } else {
        "a"
    };
    format!("{article} {phrase}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kgs_facts_give_the_kind_all_their_properties_share() {
        let set = |properties: &[Property]| {
            properties.iter().fold(PropertySet::default(), |set, p| {
                set.union(PropertySet::of(p))
            })
        };
        let texts = |entity_type, properties: &[Property]| -> Vec<String> {
            fact_kind_rungs(entity_type, set(properties))
                .into_iter()
                .map(|rung| {
                    assert_eq!(rung.source, RungSource::KgFacts);
                    rung.text
                })
                .collect()
        };
        assert_eq!(
            texts(EntityType::Org, &[Property::Team]),
            ["a sports team", "an organization"]
        );
        assert_eq!(
            texts(EntityType::Org, &[Property::Team, Property::Employer]),
            ["an organization"]
        );
        assert_eq!(texts(EntityType::Misc, &[Property::Award]), ["an award"]);
        // Kinds that share nothing, a property with no kind, a person's name: no rung.
        assert!(texts(EntityType::Misc, &[Property::Award, Property::Employer]).is_empty());
        assert!(texts(EntityType::Org, &[Property::Employer, Property::BirthPlace]).is_empty());
        assert!(
            fact_kind_rungs(
                EntityType::Org,
                PropertySet::of(&Property::Employer).union(PropertySet::name())
            )
            .is_empty()
        );
        // Only names and miscellanies; an index without properties knows no kinds.
        assert!(texts(EntityType::Loc, &[Property::Employer]).is_empty());
        assert!(texts(EntityType::Org, &[]).is_empty());
    }

    #[test]
    fn cities_countries_regions_and_demonyms_climb() {
        assert_eq!(
            kg_candidates(EntityType::Loc, "Bergen"),
            [
                "a city in Hordaland",
                "a city in Norway",
                "a city in Northern Europe",
                "a city in Europe",
                "a city"
            ]
        );
        assert_eq!(
            kg_candidates(EntityType::Loc, "Norway"),
            [
                "a country in Northern Europe",
                "a country in Europe",
                "a country"
            ]
        );
        assert_eq!(
            kg_candidates(EntityType::Loc, "Michigan"),
            [
                "a state in the United States",
                "a state in Northern America",
                "a state in the Americas",
                "a state"
            ]
        );
        assert_eq!(
            kg_candidates(EntityType::Dem, "Norwegian"),
            ["Northern European", "European"]
        );
        assert_eq!(
            // Lima's region is named Lima: no rung names it.
            kg_candidates(EntityType::Loc, "Lima"),
            [
                "a city in Peru",
                "a city in Latin America and the Caribbean",
                "a city in the Americas",
                "a city"
            ]
        );
        assert!(kg_candidates(EntityType::Loc, "Nowhereville").is_empty());
        // Qualified by its region or country: the city, or a place there.
        assert_eq!(
            kg_candidates(EntityType::Loc, "Austin, Texas")[..2],
            ["a city in Texas", "a city in the United States"]
        );
        assert_eq!(
            kg_candidates(EntityType::Loc, "Jefferson County, Kentucky")[..2],
            ["a county in Kentucky", "a county in the United States"]
        );
        assert_eq!(
            kg_candidates(EntityType::Loc, "Nowhereville, Norway")[..2],
            ["a place in Norway", "a place in Northern Europe"]
        );
        assert!(kg_candidates(EntityType::Loc, "Nowhereville, Atlantis").is_empty());
        // A province of Canada and a city in California share only the continent.
        assert_eq!(
            kg_candidates(EntityType::Loc, "Ontario"),
            [
                "a place in Northern America",
                "a place in the Americas",
                "a place"
            ]
        );
        // A place whose name states its kind of division.
        assert_eq!(
            kg_candidates(EntityType::Loc, "Lagos State"),
            ["a state", "a place"]
        );
        assert_eq!(
            kg_candidates(EntityType::Loc, "County Kerry"),
            ["a county", "a place"]
        );
        for (name, kind) in [
            ("Fjordvik Bay", "a bay"),
            ("Elm Grove Cemetery", "a cemetery"),
            ("Lower East Region", "a region"),
            ("Zorblax Cantonment", "a cantonment"),
        ] {
            assert_eq!(kg_candidates(EntityType::Loc, name), [kind, "a place"]);
        }
        // A duration climbs the quantity ladder, a date nothing here.
        for (span, first) in [
            ("25 years", "more than 20 years"),
            ("nine months", "less than ten months"),
            ("thirty-one years'", "more than 30 years'"),
            ("six years later", "less than ten years later"),
        ] {
            assert_eq!(
                kg_candidates(EntityType::Datetime, span)[0],
                first,
                "{span}"
            );
        }
        for span in ["1995", "May 2003", "258", "years ago", "the 1990s"] {
            assert!(
                kg_candidates(EntityType::Datetime, span).is_empty(),
                "{span}"
            );
        }
        // A common noun phrase climbs to its head noun.
        for (entity_type, span, head) in [
            (EntityType::Misc, "credit card fraud", "fraud"),
            (EntityType::Misc, "Jacobite cause", "cause"),
            (EntityType::Dem, "assistant hockey coach", "coach"),
            (EntityType::Org, "Turin youth teams", "teams"),
            // A non-breaking hyphen joins a compound too, and a full stop the span took is
            // no part of its head.
            (
                EntityType::Dem,
                "retired non\u{2011}commissioned officer",
                "officer",
            ),
            (EntityType::Dem, "housing officer.", "officer"),
            // An article the span holds goes with its head.
            (EntityType::Dem, "a non-commissioned officer", "an officer"),
        ] {
            let rungs = kg_rungs(entity_type, span);
            assert_eq!(rungs.len(), 1, "{span}");
            assert_eq!(rungs[0].text, head, "{span}");
            assert_eq!(rungs[0].source, RungSource::HeadNoun);
        }
        for span in [
            "the roof fell in",
            "third round",
            "23 years",
            "twenty-three years old",
            "ever recorded",
            "his death",
            "phishing",
            "one of the three",
            "Most Goals in a season",
        ] {
            assert!(kg_candidates(EntityType::Misc, span).is_empty(), "{span}");
        }
        // An event annotated as its organiser reads as the event.
        assert_eq!(
            kg_candidates(EntityType::Org, "1962 FIFA World Cup")[0],
            "a world cup in the 1960s"
        );
        assert!(kg_candidates(EntityType::Datetime, "Norway").is_empty());
    }

    #[test]
    fn a_place_named_organisation_is_not_climbed_as_a_place() {
        // Genoa's football club is not a city in Italy.
        assert!(kg_candidates(EntityType::Org, "Genoa").is_empty());
        assert_eq!(
            kg_candidates(EntityType::Org, "the United States")[0],
            "a country in Northern America"
        );
    }

    #[test]
    fn a_town_climbs_what_every_town_of_its_name_shares() {
        assert_eq!(
            kg_candidates(EntityType::Loc, "Caerphilly"),
            [
                "a town in Wales",
                "a town in the United Kingdom",
                "a town in Northern Europe",
                "a town in Europe",
                "a town"
            ]
        );
        // A Clarkston in Scotland and three in US states: nothing but `a town` is true of all.
        assert_eq!(kg_candidates(EntityType::Loc, "Clarkston"), ["a town"]);
        // An abbreviation is no town (`Us` is one in France), and a miscellany or an
        // organisation is never read as a town.
        assert!(
            kg_candidates(EntityType::Loc, "US")
                .iter()
                .all(|rung| !rung.contains("town"))
        );
        assert!(kg_candidates(EntityType::Misc, "Caerphilly").is_empty());
        assert!(kg_candidates(EntityType::Org, "Caerphilly").is_empty());
        // A name that states its kind keeps it (`… County`), and a city stays a city.
        assert_eq!(
            kg_candidates(EntityType::Loc, "Bergen")[0],
            "a city in Hordaland"
        );
    }

    #[test]
    fn a_possessive_or_a_bracketed_form_the_span_holds_is_no_part_of_the_name() {
        assert_eq!(
            kg_candidates(EntityType::Org, "University of Oslo's"),
            kg_candidates(EntityType::Org, "University of Oslo")
        );
        assert_eq!(
            kg_candidates(EntityType::Loc, "Norway\u{2019}s"),
            kg_candidates(EntityType::Loc, "Norway")
        );
        assert!(kg_candidates(EntityType::Org, "'s").is_empty());
        assert_eq!(
            kg_candidates(EntityType::Org, "Bergen District Court (Bergen tingrett)"),
            kg_candidates(EntityType::Org, "Bergen District Court")
        );
        assert_eq!(
            kg_candidates(EntityType::Org, "Bergen District Court\u{2019}s"),
            kg_candidates(EntityType::Org, "Bergen District Court")
        );
        assert!(kg_candidates(EntityType::Org, "(Bergen tingrett)").is_empty());
    }

    #[test]
    fn a_region_after_its_kind_climbs_as_the_region() {
        let michigan = kg_candidates(EntityType::Loc, "Michigan");
        assert_eq!(michigan[0], "a state in the United States");
        assert_eq!(
            kg_candidates(EntityType::Loc, "the state of Michigan"),
            michigan
        );
        assert_eq!(
            kg_candidates(EntityType::Org, "U.S. state of Michigan"),
            michigan
        );
        // A country that is not the region's makes no such reading: only the kind is sure.
        assert_eq!(
            kg_candidates(EntityType::Org, "Canadian state of Michigan"),
            ["a state"]
        );
        assert_eq!(
            kg_candidates(EntityType::Org, "Chief Minister of Zorbland")[0],
            "a head of government"
        );
    }

    #[test]
    fn roles_held_together_climb_as_the_first_that_climbs() {
        assert_eq!(
            kg_candidates(EntityType::Dem, "Founder/CEO"),
            kg_candidates(EntityType::Dem, "CEO")
        );
        assert!(kg_candidates(EntityType::Dem, "CEO/").is_empty());
    }

    #[test]
    fn awards_climb_to_their_kind() {
        assert_eq!(
            kg_candidates(EntityType::Misc, "Nobel Prize in Literature"),
            ["a prize", "an award"]
        );
        assert_eq!(
            kg_candidates(EntityType::Misc, "bronze medal"),
            ["a medal", "an award"]
        );
        assert_eq!(
            kg_rungs(EntityType::Misc, "Grammy Award")[0].source,
            RungSource::AwardList
        );
        assert!(kg_candidates(EntityType::Misc, "Titanic").is_empty());
    }

    #[test]
    fn a_miscellany_that_names_a_league_or_a_hall_of_fame_is_one() {
        assert_eq!(
            kg_candidates(EntityType::Misc, "Zorbian Sports Hall of Fame"),
            ["a hall of fame"]
        );
        assert_eq!(
            kg_candidates(EntityType::Misc, "Velt A-League"),
            ["a league"]
        );
        // The kind alone is a title, and other kinds of body are left to their own rules.
        assert!(kg_candidates(EntityType::Misc, "The League").is_empty());
        assert!(kg_candidates(EntityType::Misc, "Velt Company").is_empty());
    }

    /// The KG attacker maps its index's lower-cased terms through `kg_rungs`: a name must climb
    /// the same way however it is written.
    #[test]
    fn case_plays_no_part() {
        for (entity_type, surface) in [
            (EntityType::Loc, "Bergen"),
            (EntityType::Loc, "Thames"),
            (EntityType::Org, "University of Oslo"),
            (EntityType::Org, "Norwegian Labour Party"),
            (EntityType::Org, "Siemens AG"),
            (EntityType::Org, "Manchester United"),
            (EntityType::Org, "Harvard"),
            (EntityType::Misc, "World War II"),
            (EntityType::Misc, "2008 Summer Olympics"),
            (EntityType::Misc, "Sunni Islam"),
            (EntityType::Misc, "Hindi"),
            (EntityType::Dem, "Singer"),
            (EntityType::Dem, "Prime Minister"),
            (EntityType::Dem, "Minister of Finance"),
            (EntityType::Quantity, "EUR 10,000"),
            (EntityType::Quantity, "Fourth"),
        ] {
            let written = kg_candidates(entity_type, surface);
            assert!(!written.is_empty(), "{surface}");
            assert_eq!(
                kg_candidates(entity_type, &surface.to_lowercase()),
                written,
                "{surface}"
            );
        }
    }

    /// Every term of a KG index goes through `kg_rungs` once: it must be hash lookups, not
    /// parsing (a loose bound, for a loaded machine running tests in debug builds).
    #[test]
    fn a_hundred_thousand_terms_take_seconds_at_most() {
        let terms = [
            "university of oslo",
            "5 august 1992",
            "chemist",
            "bergen",
            "nowhere in particular",
        ];
        let _ = kg_rungs(EntityType::Loc, "warm up the vocabulary");
        let started = std::time::Instant::now();
        for i in 0..100_000 {
            let term = terms[i % terms.len()];
            for entity_type in [EntityType::Loc, EntityType::Org, EntityType::Misc] {
                std::hint::black_box(kg_rungs(entity_type, term));
            }
        }
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    }

    #[test]
    fn every_rung_names_its_source() {
        let rungs = kg_rungs(EntityType::Loc, "Ahmedabad");
        assert_eq!(rungs[0].source, RungSource::GeoNames);
        assert_eq!(
            kg_rungs(EntityType::Loc, "India")[0].source,
            RungSource::UnM49
        );
        assert_eq!(
            kg_rungs(EntityType::Dem, "singer")[0].source,
            RungSource::WordNet
        );
        assert_eq!(
            kg_rungs(EntityType::Quantity, "87 films")[0].source,
            RungSource::Number
        );
    }
}
