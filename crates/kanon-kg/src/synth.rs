//! A synthetic population with realistic distributions (real names, cities, occupations and
//! organisations from the embedded vocabularies, weighted by frequency and population) and short
//! biographies that mention a random subset of each person's facts in varied surface forms.
//!
//! Every person is generated from its own random stream (seed, person number), so a population is
//! the same whatever the thread count, and person `i` is the same in populations of any size.

use kanon_core::Document;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::date::{Date, MONTH_ABBREVIATIONS, MONTHS};
use crate::model::{Fact, KnowledgeGraph, Person, Property};
use crate::vocab::{Gender, Vocabulary};

/// What to generate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SynthConfig {
    /// People to generate.
    pub people: usize,
    /// The seed of every person's random stream: the same seed gives the same population.
    pub seed: u64,
    /// Probability that a person gets a biography.
    pub doc_rate: f64,
}

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            people: 1000,
            seed: 0,
            doc_rate: 1.0,
        }
    }
}

/// The samplers, built once per population.
#[derive(Debug)]
struct Samplers<'v> {
    vocabulary: &'v Vocabulary,
    female_names: Vec<&'v str>,
    female_weights: WeightedIndex<u64>,
    male_names: Vec<&'v str>,
    male_weights: WeightedIndex<u64>,
    last_names: WeightedIndex<u64>,
    cities: WeightedIndex<f64>,
    occupations: WeightedIndex<u64>,
    companies: Vec<&'v str>,
    parties: Vec<&'v str>,
    religions: Vec<&'v str>,
}

const COMMON_RELIGIONS: &[&str] = &[
    "Catholicism",
    "Protestantism",
    "Islam",
    "Judaism",
    "Buddhism",
    "Hinduism",
    "Sikhism",
    "Eastern Orthodoxy",
    "Anglicanism",
    "Lutheranism",
    "Methodism",
    "Quakers",
];

impl<'v> Samplers<'v> {
    fn new(vocabulary: &'v Vocabulary) -> Self {
        let by_gender = |gender: Gender| {
            let rows: Vec<_> = vocabulary
                .first_names
                .iter()
                .filter(|(_, g)| *g == gender)
                .collect();
            let names = rows
                .iter()
                .map(|(w, _)| w.value.as_str())
                .collect::<Vec<_>>();
            let weights = WeightedIndex::new(rows.iter().map(|(w, _)| w.weight))
                .expect("first_names.tsv has names of each gender");
            (names, weights)
        };
        let (female_names, female_weights) = by_gender(Gender::Female);
        let (male_names, male_weights) = by_gender(Gender::Male);
        let mut companies = Vec::new();
        let mut parties = Vec::new();
        for (name, kind) in &vocabulary.organizations {
            match kind.as_str() {
                "party" => parties.push(name.as_str()),
                _ => companies.push(name.as_str()),
            }
        }
        let religions: Vec<&str> = vocabulary
            .religions
            .iter()
            .map(String::as_str)
            .filter(|r| COMMON_RELIGIONS.iter().any(|c| c.eq_ignore_ascii_case(r)))
            .collect();
        Samplers {
            vocabulary,
            female_names,
            female_weights,
            male_names,
            male_weights,
            last_names: WeightedIndex::new(vocabulary.last_names.iter().map(|w| w.weight))
                .expect("last_names.tsv is not empty"),
            // Flattened by a square root: big cities are more likely, not overwhelmingly so.
            cities: WeightedIndex::new(
                vocabulary
                    .cities
                    .iter()
                    .map(|c| (c.population as f64).sqrt()),
            )
            .expect("cities.tsv is not empty"),
            occupations: WeightedIndex::new(vocabulary.occupations.iter().map(|w| w.weight))
                .expect("occupations.tsv is not empty"),
            companies,
            parties,
            religions: if religions.is_empty() {
                COMMON_RELIGIONS.to_vec()
            } else {
                religions
            },
        }
    }
}

/// Generates a population and biographies.
pub fn synthesize(config: &SynthConfig) -> (KnowledgeGraph, Vec<Document>) {
    let samplers = Samplers::new(Vocabulary::embedded());
    let generated: Vec<(Person, Option<Document>)> = (0..config.people)
        .into_par_iter()
        .map(|i| {
            let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
            rng.set_stream(i as u64);
            let (person, profile) = person(&samplers, &mut rng, i);
            let doc = rng
                .random_bool(config.doc_rate.clamp(0.0, 1.0))
                .then(|| Document {
                    id: format!("syn-{i:07}"),
                    person: Some(person.id.clone()),
                    text: biography(&samplers, &mut rng, &person, &profile),
                    split: None,
                });
            (person, doc)
        })
        .collect();
    let mut people = Vec::with_capacity(generated.len());
    let mut docs = Vec::new();
    for (person, doc) in generated {
        people.push(person);
        docs.extend(doc);
    }
    (KnowledgeGraph { people }, docs)
}

/// What the biography writer needs beyond the facts.
#[derive(Debug)]
struct Profile {
    gender: Gender,
    first: String,
    surname: String,
    birth: Date,
    birth_place: String,
    birth_country: String,
}

/// Person `i` and what their biography needs. Draws, in order: the name, the birth date, the
/// birthplace and citizenship, the occupation, places and work, affiliations, death.
fn person(s: &Samplers<'_>, rng: &mut ChaCha8Rng, i: usize) -> (Person, Profile) {
    let v = s.vocabulary;
    let (mut person, gender, first, surname) = named_person(s, rng, i);
    let birth = birth_date(rng);
    person
        .facts
        .push(Fact::new(Property::BirthDate, birth.to_string()));
    let city = &v.cities[s.cities.sample(rng)];
    person
        .facts
        .push(Fact::new(Property::BirthPlace, city.name.clone()));
    let citizenship = if rng.random_bool(0.9) {
        city.country.clone()
    } else {
        v.countries
            .choose(rng)
            .map(|c| c.name.clone())
            .unwrap_or_default()
    };
    person
        .facts
        .push(Fact::new(Property::Citizenship, citizenship));
    person.facts.push(Fact::new(
        Property::Sex,
        if gender == Gender::Female {
            "female"
        } else {
            "male"
        },
    ));
    person.facts.push(Fact::new(
        Property::Occupation,
        v.occupations[s.occupations.sample(rng)].value.clone(),
    ));
    add_residence_and_work(s, rng, &mut person);
    add_affiliations(s, rng, &mut person);
    add_death(s, rng, &mut person, birth.year);
    let profile = Profile {
        gender,
        first,
        surname,
        birth,
        birth_place: city.name.clone(),
        birth_country: city.country.clone(),
    };
    (person, profile)
}

/// A person with a name (a middle name at times, a nickname at times) and no facts yet, their
/// gender, first name and surname.
fn named_person(
    s: &Samplers<'_>,
    rng: &mut ChaCha8Rng,
    i: usize,
) -> (Person, Gender, String, String) {
    let gender = if rng.random_bool(0.5) {
        Gender::Female
    } else {
        Gender::Male
    };
    let (names, weights) = match gender {
        Gender::Female => (&s.female_names, &s.female_weights),
        Gender::Male => (&s.male_names, &s.male_weights),
    };
    let first = names[weights.sample(rng)].to_owned();
    let surname = s.vocabulary.last_names[s.last_names.sample(rng)]
        .value
        .clone();
    let label = if rng.random_bool(0.3) {
        let middle = names[weights.sample(rng)];
        format!("{first} {middle} {surname}")
    } else {
        format!("{first} {surname}")
    };
    let mut person = Person::new(format!("S{i:07}"), label);
    if rng.random_bool(0.1) {
        // A nickname: a short form of the first name.
        let short: String = first
            .chars()
            .take(3.max(first.chars().count() / 2))
            .collect();
        if short != first {
            person.aliases.push(format!("{short} {surname}"));
        }
    }
    (person, gender, first, surname)
}

/// A birth date from 1925 to 2004 (later years likelier), known to the day in 70% of people, to
/// the month in 15%, to the year in the rest.
fn birth_date(rng: &mut ChaCha8Rng) -> Date {
    let year = 1925 + (rng.random::<f64>().powf(0.8) * 80.0) as i32;
    let month = rng.random_range(1..=12u8);
    let day = rng.random_range(1..=crate::date::days_in_month(year, month));
    let precision: f64 = rng.random();
    Date {
        year,
        month: (precision < 0.85).then_some(month),
        day: (precision < 0.7).then_some(day),
    }
}

/// A residence at times, an employer at times (a company of the vocabulary or one named after a
/// founder), a school at times.
fn add_residence_and_work(s: &Samplers<'_>, rng: &mut ChaCha8Rng, person: &mut Person) {
    let v = s.vocabulary;
    if rng.random_bool(0.5) {
        let residence = &v.cities[s.cities.sample(rng)];
        person
            .facts
            .push(Fact::new(Property::Residence, residence.name.clone()));
    }
    if rng.random_bool(0.6) {
        let employer = if rng.random_bool(0.5) && !s.companies.is_empty() {
            (*s.companies.choose(rng).expect("not empty")).to_owned()
        } else {
            let founder = &v.last_names[s.last_names.sample(rng)].value;
            let suffix = v.company_suffixes.choose(rng).map_or("Ltd", String::as_str);
            format!("{founder} {suffix}")
        };
        person.facts.push(Fact::new(Property::Employer, employer));
    }
    if rng.random_bool(0.55) {
        let town = &v.cities[s.cities.sample(rng)].name;
        let school = match rng.random_range(0..4) {
            0 => format!("University of {town}"),
            1 => format!("{town} Institute of Technology"),
            2 => format!("{town} State University"),
            _ => format!("{town} School of Economics"),
        };
        person.facts.push(Fact::new(Property::EducatedAt, school));
    }
}

/// Rarer facts: an award, a religion, a party.
fn add_affiliations(s: &Samplers<'_>, rng: &mut ChaCha8Rng, person: &mut Person) {
    if rng.random_bool(0.1)
        && let Some(award) = s.vocabulary.awards.choose(rng)
    {
        person.facts.push(Fact::new(Property::Award, award.clone()));
    }
    if rng.random_bool(0.08)
        && let Some(religion) = s.religions.choose(rng)
    {
        person.facts.push(Fact::new(Property::Religion, *religion));
    }
    if rng.random_bool(0.05)
        && let Some(party) = s.parties.choose(rng)
    {
        person.facts.push(Fact::new(Property::Party, *party));
    }
}

/// For some of the people born before 1950, a death date (by 2024) and often a place of death.
fn add_death(s: &Samplers<'_>, rng: &mut ChaCha8Rng, person: &mut Person, birth_year: i32) {
    if birth_year < 1950 && rng.random_bool(0.45) {
        let death_year = (birth_year + rng.random_range(45..=95)).min(2024);
        let death_month = rng.random_range(1..=12u8);
        let death = Date {
            year: death_year,
            month: Some(death_month),
            day: Some(rng.random_range(1..=crate::date::days_in_month(death_year, death_month))),
        };
        person
            .facts
            .push(Fact::new(Property::DeathDate, death.to_string()));
        if rng.random_bool(0.7) {
            let place = &s.vocabulary.cities[s.cities.sample(rng)];
            person
                .facts
                .push(Fact::new(Property::DeathPlace, place.name.clone()));
        }
    }
}

fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// A date as a text writes it: varied forms, at the date's precision.
fn date_phrase(rng: &mut ChaCha8Rng, date: &Date) -> String {
    match (date.month, date.day) {
        (Some(m), Some(d)) => {
            let full = MONTHS[usize::from(m - 1)];
            let abbr = MONTH_ABBREVIATIONS[usize::from(m - 1)];
            match rng.random_range(0..4) {
                0 => format!("on {d} {full} {}", date.year),
                1 => format!("on {full} {d}, {}", date.year),
                2 => format!("on {d} {abbr} {}", date.year),
                _ => format!("in {full} {}", date.year),
            }
        }
        (Some(m), None) => format!("in {} {}", MONTHS[usize::from(m - 1)], date.year),
        _ => format!("in {}", date.year),
    }
}

fn bare_date(rng: &mut ChaCha8Rng, date: &Date) -> String {
    let phrase = date_phrase(rng, date);
    phrase
        .split_once(' ')
        .map_or(phrase.clone(), |(_, rest)| rest.to_owned())
}

const FILLERS: &[&str] = &[
    "{P} is known among colleagues for a careful, patient way of working.",
    "Over the years {p} has given many public talks.",
    "{P} enjoys hiking and reading in {pos} spare time.",
    "{Pos} early work attracted little attention at first.",
    "Friends describe {o} as generous and quietly ambitious.",
    "{P} later said that the experience changed {pos} outlook on life.",
    "{Pos} approach has been discussed in several newspaper articles.",
];

/// The biography of a person: an opening sentence, then some of their facts in varied forms, and
/// at times a sentence that names no fact.
fn biography(s: &Samplers<'_>, rng: &mut ChaCha8Rng, person: &Person, profile: &Profile) -> String {
    let writer = Biographer::new(person, profile);
    let mut sentences = vec![writer.opening(rng, s.vocabulary)];
    sentences.extend(writer.birth(rng));
    writer.career(rng, &mut sentences);
    writer.affiliations(rng, &mut sentences);
    sentences.extend(writer.death(rng));
    if let Some(filler) = writer.filler(rng) {
        sentences.insert(1.min(sentences.len()), filler);
    }
    sentences.join(" ")
}

/// The word with its first letter upper-cased.
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or(String::new(), |f| f.to_uppercase().chain(chars).collect())
}

/// Writes the sentences of one person's biography. Each method draws from the person's stream in
/// the order the biography is written, so the same seed writes the same text.
struct Biographer<'a> {
    person: &'a Person,
    profile: &'a Profile,
    /// The subject, object and possessive pronouns of the person's gender.
    p: &'static str,
    o: &'static str,
    pos: &'static str,
}

impl<'a> Biographer<'a> {
    fn new(person: &'a Person, profile: &'a Profile) -> Self {
        let (p, o, pos) = match profile.gender {
            Gender::Female => ("she", "her", "her"),
            Gender::Male => ("he", "him", "his"),
        };
        Biographer {
            person,
            profile,
            p,
            o,
            pos,
        }
    }

    /// The value of the person's first fact of `property`.
    fn fact(&self, property: Property) -> Option<String> {
        self.person
            .facts
            .iter()
            .find(|f| f.property == property)
            .map(|f| f.value.clone())
    }

    /// The person as a sentence names them: surname, initial and surname, pronoun, or full name.
    fn mention(&self, rng: &mut ChaCha8Rng) -> String {
        let profile = self.profile;
        match rng.random_range(0..4) {
            0 => profile.surname.clone(),
            1 => format!(
                "{}. {}",
                profile.first.chars().next().unwrap_or('X'),
                profile.surname
            ),
            2 => capitalised(self.p),
            _ => format!("{} {}", profile.first, profile.surname),
        }
    }

    /// The first sentence: the full name with the occupation, and the nationality, birthplace or
    /// birth date at times.
    fn opening(&self, rng: &mut ChaCha8Rng, v: &Vocabulary) -> String {
        let profile = self.profile;
        let occupation = self
            .fact(Property::Occupation)
            .unwrap_or_else(|| "professional".into());
        let country = v.country(&profile.birth_country);
        let nationality = country
            .and_then(|c| c.demonym.clone())
            .map(|d| d.split('|').next().unwrap_or_default().to_owned());
        let name = &self.person.label;
        match (rng.random_range(0..4), &nationality) {
            (0, Some(nat)) => format!(
                "{name} (born {}) is {} {nat} {occupation}.",
                bare_date(rng, &profile.birth),
                article(nat)
            ),
            (1, _) => format!(
                "{name} is {} {occupation} from {}.",
                article(&occupation),
                profile.birth_place
            ),
            (2, _) => format!(
                "Born in {} {}, {name} became {} {occupation}.",
                profile.birth_place,
                date_phrase(rng, &profile.birth),
                article(&occupation)
            ),
            _ => format!("{name} is {} {occupation}.", article(&occupation)),
        }
    }

    /// At times, a sentence on where or when the person was born.
    fn birth(&self, rng: &mut ChaCha8Rng) -> Option<String> {
        let profile = self.profile;
        if !rng.random_bool(0.6) {
            return None;
        }
        Some(match rng.random_range(0..3) {
            0 => format!(
                "{} was born in {}, {}.",
                self.mention(rng),
                profile.birth_place,
                profile.birth_country
            ),
            1 => format!("{} grew up in {}.", self.mention(rng), profile.birth_place),
            _ => format!(
                "{} was born {}.",
                self.mention(rng),
                date_phrase(rng, &profile.birth)
            ),
        })
    }

    /// Sentences on most of the person's school, employer and residence.
    fn career(&self, rng: &mut ChaCha8Rng, sentences: &mut Vec<String>) {
        let p = self.p;
        if let Some(school) = self
            .fact(Property::EducatedAt)
            .filter(|_| rng.random_bool(0.75))
        {
            sentences.push(match rng.random_range(0..3) {
                0 => format!("{} studied at {school}.", self.mention(rng)),
                1 => format!("After graduating from {school}, {p} moved abroad for a few years."),
                _ => format!("{} holds a degree from {school}.", self.mention(rng)),
            });
        }
        if let Some(employer) = self
            .fact(Property::Employer)
            .filter(|_| rng.random_bool(0.75))
        {
            let since = self.profile.birth.year + rng.random_range(22..40);
            sentences.push(match rng.random_range(0..3) {
                0 => format!(
                    "{} has worked for {employer} since {since}.",
                    self.mention(rng)
                ),
                1 => format!("In {since}, {p} joined {employer}."),
                _ => format!("{} is employed by {employer}.", self.mention(rng)),
            });
        }
        if let Some(residence) = self
            .fact(Property::Residence)
            .filter(|_| rng.random_bool(0.6))
        {
            sentences.push(format!(
                "{} currently lives in {residence}.",
                self.mention(rng)
            ));
        }
    }

    /// Sentences on most of the person's award, party and religion.
    fn affiliations(&self, rng: &mut ChaCha8Rng, sentences: &mut Vec<String>) {
        let p = self.p;
        if let Some(award) = self.fact(Property::Award).filter(|_| rng.random_bool(0.8)) {
            let year = self.profile.birth.year + rng.random_range(30..60);
            sentences.push(format!("In {year}, {p} received the {award}."));
        }
        if let Some(party) = self.fact(Property::Party).filter(|_| rng.random_bool(0.8)) {
            sentences.push(format!("{} is a member of the {party}.", self.mention(rng)));
        }
        if let Some(religion) = self
            .fact(Property::Religion)
            .filter(|_| rng.random_bool(0.6))
        {
            sentences.push(format!("{} was raised in {religion}.", capitalised(p)));
        }
    }

    /// A sentence on the person's death, when they died: when, and often where.
    fn death(&self, rng: &mut ChaCha8Rng) -> Option<String> {
        let death = self
            .fact(Property::DeathDate)
            .and_then(|d| Date::parse(&d))?;
        let place = self.fact(Property::DeathPlace);
        Some(match place {
            Some(place) if rng.random_bool(0.7) => {
                format!(
                    "{} died in {place} {}.",
                    self.mention(rng),
                    date_phrase(rng, &death)
                )
            }
            _ => format!("{} died {}.", self.mention(rng), date_phrase(rng, &death)),
        })
    }

    /// At times, one of the [`FILLERS`] in the person's pronouns.
    fn filler(&self, rng: &mut ChaCha8Rng) -> Option<String> {
        if !rng.random_bool(0.5) {
            return None;
        }
        let filler = FILLERS.choose(rng).expect("fillers");
        Some(
            filler
                .replace("{P}", &capitalised(self.p))
                .replace("{p}", self.p)
                .replace("{Pos}", &capitalised(self.pos))
                .replace("{pos}", self.pos)
                .replace("{o}", self.o),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_prefix_stable() {
        let small = SynthConfig {
            people: 50,
            seed: 7,
            doc_rate: 1.0,
        };
        let big = SynthConfig {
            people: 200,
            ..small.clone()
        };
        let (kg_a, docs_a) = synthesize(&small);
        let (kg_b, docs_b) = synthesize(&small);
        let (kg_c, docs_c) = synthesize(&big);
        assert_eq!(kg_a, kg_b);
        assert_eq!(docs_a, docs_b);
        assert_eq!(kg_a.people[..], kg_c.people[..50]);
        assert_eq!(docs_a[..], docs_c[..50]);
        let (kg_other, _) = synthesize(&SynthConfig { seed: 8, ..small });
        assert_ne!(kg_a, kg_other);
    }

    #[test]
    fn biographies_mention_their_person() {
        let (kg, docs) = synthesize(&SynthConfig {
            people: 100,
            seed: 1,
            doc_rate: 1.0,
        });
        assert_eq!(docs.len(), 100);
        for (person, doc) in kg.people.iter().zip(&docs) {
            assert_eq!(doc.person.as_deref(), Some(person.id.as_str()));
            assert!(
                doc.text.starts_with(&person.label) || doc.text.contains(&person.label),
                "{}",
                doc.text
            );
            assert!(person.facts.len() >= 5);
        }
        let distinct: std::collections::HashSet<_> =
            docs.iter().map(|d| d.text.split(' ').nth(3)).collect();
        assert!(distinct.len() > 10, "sentence patterns vary");
    }
}
