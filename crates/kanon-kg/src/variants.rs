//! Term variants: every way a person's names and facts are commonly written in text, normalised,
//! typed, and filtered by a whitelist of generic words.

use std::path::Path;

use kanon_core::EntityType;
use kanon_core::PathContext;
use kanon_core::text::normalize_term;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::date::Date;
use crate::error::Result;
use crate::model::{Fact, Person, PropertySet};
use crate::vocab::Vocabulary;

/// Generic terms that are never indexed (born, man, woman, age, …), compared after normalisation.
#[derive(Debug, Clone, Default)]
pub struct Whitelist {
    terms: FxHashSet<String>,
}

const DEFAULT_WHITELIST: &str = include_str!("../../../kg/whitelist.txt");

impl Whitelist {
    /// The default English whitelist (`kg/whitelist.txt`).
    pub fn english() -> Self {
        Self::parse(DEFAULT_WHITELIST)
    }

    /// Reads a whitelist file: one term a line, `#` starts a comment line.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).with_path(path)?;
        Ok(Self::parse(&text))
    }

    /// A whitelist from the text of a whitelist file (see [`Whitelist::from_file`]).
    pub fn parse(text: &str) -> Self {
        let terms = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(normalize_term)
            .collect();
        Whitelist { terms }
    }

    /// Adds the terms of `other`.
    pub fn extend(&mut self, other: Whitelist) {
        self.terms.extend(other.terms);
    }

    /// How many distinct normalised terms the whitelist holds.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether the whitelist holds no term.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether a normalised term is generic.
    pub fn contains(&self, normalized_term: &str) -> bool {
        self.terms.contains(normalized_term)
    }
}

/// A normalised term and the entity category it has in text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypedTerm {
    /// The term, normalised ([`kanon_core::text::normalize_term`]).
    pub term: String,
    /// The TAB category of the fact (or name) the term writes.
    pub entity_type: EntityType,
    /// Every property of the person's the term writes (a name, an employer, a team…).
    pub properties: PropertySet,
}

/// Name particles that belong to a surname ("van Beethoven", "de la Halle").
pub const SURNAME_PARTICLES: &[&str] = &[
    "van", "von", "der", "den", "de", "del", "della", "di", "da", "das", "dos", "du", "la", "le",
    "ter", "ten", "bin", "ibn", "al", "el", "y", "zu", "af",
];

const NAME_SUFFIXES: &[&str] = &[
    "jr", "sr", "ii", "iii", "iv", "v", "phd", "md", "obe", "kbe", "cbe",
];

/// Generates the typed, normalised terms of a person.
#[derive(Debug, Clone, Copy)]
pub struct TermGenerator<'a> {
    vocabulary: &'a Vocabulary,
    whitelist: &'a Whitelist,
}

impl<'a> TermGenerator<'a> {
    /// A generator of terms from `vocabulary`'s variants, leaving out the terms of `whitelist`.
    pub fn new(vocabulary: &'a Vocabulary, whitelist: &'a Whitelist) -> Self {
        TermGenerator {
            vocabulary,
            whitelist,
        }
    }

    /// All terms of a person, deduplicated (first type wins, properties united), in a
    /// deterministic order.
    pub fn terms(&self, person: &Person) -> Vec<TypedTerm> {
        let mut out: Vec<TypedTerm> = Vec::new();
        let mut seen: FxHashMap<String, usize> = FxHashMap::default();
        let mut push = |surface: &str, entity_type: EntityType, properties: PropertySet| {
            let Some(term) = normalize_term(surface).filter(|term| self.is_indexable(term)) else {
                return;
            };
            match seen.get(&term) {
                Some(&at) => out[at].properties = out[at].properties.union(properties),
                None => {
                    seen.insert(term.clone(), out.len());
                    out.push(TypedTerm {
                        term,
                        entity_type,
                        properties,
                    });
                }
            }
        };
        for name in std::iter::once(&person.label).chain(&person.aliases) {
            for form in name_forms(name) {
                push(&form, EntityType::Person, PropertySet::name());
            }
        }
        for fact in &person.facts {
            let properties = PropertySet::of(&fact.property);
            self.fact_forms(fact, &mut |surface, entity_type| {
                push(surface, entity_type, properties)
            });
        }
        out
    }

    fn is_indexable(&self, term: &str) -> bool {
        term.chars().count() > 1 && !self.whitelist.contains(term)
    }

    fn fact_forms(&self, fact: &Fact, push: &mut impl FnMut(&str, EntityType)) {
        let entity_type = fact.property.entity_type();
        let values = std::iter::once(&fact.value).chain(&fact.alternates);
        if fact.property.is_date() {
            for value in values {
                match Date::parse(value) {
                    Some(date) => date
                        .surface_forms()
                        .iter()
                        .for_each(|f| push(f, entity_type)),
                    None => push(value, entity_type),
                }
            }
            return;
        }
        if entity_type == EntityType::Person {
            for value in values {
                name_forms(value).iter().for_each(|f| push(f, entity_type));
            }
            return;
        }
        for value in values {
            push(value, entity_type);
            if fact.property.is_country() || fact.property.is_place() {
                if let Some(country) = self.vocabulary.country(value) {
                    push(&country.name, EntityType::Loc);
                    country
                        .alternates
                        .iter()
                        .for_each(|a| push(a, EntityType::Loc));
                    if let Some(demonym) = &country.demonym {
                        push(demonym, EntityType::Dem);
                    }
                } else if let Some(city) = self.vocabulary.city(value) {
                    push(&city.name, EntityType::Loc);
                    city.alternates
                        .iter()
                        .for_each(|a| push(a, EntityType::Loc));
                }
            }
        }
    }
}

/// The ways a person's name is written: the full name, first + last (without middle names), initials
/// ("L. Albano", "L. M. Albano"), and the surname alone (with and without particles).
pub fn name_forms(name: &str) -> Vec<String> {
    let mut forms = vec![name.trim().to_owned()];
    // "John Smith (politician)" and "Smith, John" are written "John Smith" in running text.
    let base = name.split('(').next().unwrap_or(name).trim();
    let base = match base.split_once(',') {
        Some((last, first))
            if !first.trim().is_empty()
                && !NAME_SUFFIXES.contains(&normalize_term(first).unwrap_or_default().as_str()) =>
        {
            format!("{} {}", first.trim(), last.trim())
        }
        _ => base.to_owned(),
    };
    let mut words: Vec<&str> = base
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    while words.len() > 1
        && NAME_SUFFIXES.contains(
            &normalize_term(words[words.len() - 1])
                .unwrap_or_default()
                .as_str(),
        )
    {
        words.pop();
    }
    let joined = words.join(" ");
    if joined != forms[0] {
        forms.push(joined);
    }
    if words.len() < 2 {
        return forms;
    }
    let is_particle = |w: &str| SURNAME_PARTICLES.contains(&w) && w.chars().all(char::is_lowercase);
    let mut surname_start = words.len() - 1;
    while surname_start > 1 && is_particle(words[surname_start - 1]) {
        surname_start -= 1;
    }
    let given = &words[..surname_start];
    let surname = words[surname_start..].join(" ");
    let first = given[0];
    forms.push(format!("{first} {surname}"));
    let initial = |w: &str| w.chars().next().map(|c| format!("{c}."));
    if let Some(i) = initial(first) {
        forms.push(format!("{i} {surname}"));
    }
    if given.len() > 1 {
        let initials: Vec<String> = given.iter().filter_map(|w| initial(w)).collect();
        forms.push(format!("{} {surname}", initials.join(" ")));
    }
    forms.push(surname.clone());
    if surname_start < words.len() - 1 {
        forms.push(words[words.len() - 1].to_owned());
    }
    forms.dedup();
    forms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Property;

    fn normalized(forms: &[String]) -> Vec<String> {
        forms.iter().filter_map(|f| normalize_term(f)).collect()
    }

    #[test]
    fn name_forms_cover_initials_and_surname() {
        let forms = normalized(&name_forms("Lilian Marie Albano"));
        assert_eq!(
            forms,
            vec![
                "lilian marie albano",
                "lilian albano",
                "l albano",
                "l m albano",
                "albano"
            ]
        );
        let forms = normalized(&name_forms("Ludwig van Beethoven"));
        assert!(forms.contains(&"van beethoven".to_owned()), "{forms:?}");
        assert!(forms.contains(&"beethoven".to_owned()), "{forms:?}");
        assert!(forms.contains(&"l van beethoven".to_owned()), "{forms:?}");
        assert_eq!(normalized(&name_forms("Aristotle")), vec!["aristotle"]);
        let forms = normalized(&name_forms("Martin Luther King Jr."));
        assert!(
            forms.contains(&"martin king".to_owned()) && forms.contains(&"king".to_owned()),
            "{forms:?}"
        );
        let forms = normalized(&name_forms("Smith, John"));
        assert!(forms.contains(&"john smith".to_owned()), "{forms:?}");
    }

    fn typed_terms(person: &Person) -> Vec<TypedTerm> {
        let whitelist = Whitelist::english();
        TermGenerator::new(Vocabulary::embedded(), &whitelist).terms(person)
    }

    fn terms_of(person: &Person) -> Vec<(String, EntityType)> {
        typed_terms(person)
            .into_iter()
            .map(|t| (t.term, t.entity_type))
            .collect()
    }

    #[test]
    fn a_term_written_by_two_facts_has_both_properties() {
        let mut person = Person::new("Q1", "Lilian Albano");
        person.facts = vec![
            Fact::new(Property::Employer, "Nordvik Blå"),
            Fact::new(Property::Team, "Nordvik Blå"),
        ];
        let terms = typed_terms(&person);
        let key = normalize_term("Nordvik Blå").unwrap();
        let club = terms.iter().find(|t| t.term == key).unwrap();
        assert_eq!(club.entity_type, EntityType::Org);
        assert!(club.properties.contains(&Property::Employer));
        assert!(club.properties.contains(&Property::Team));
        let key = normalize_term("Lilian Albano").unwrap();
        let name = terms.iter().find(|t| t.term == key).unwrap();
        assert_eq!(name.properties, PropertySet::name());
    }

    #[test]
    fn facts_get_dates_demonyms_and_alternates() {
        let mut person = Person::new("Q1", "Lilian Albano");
        person.facts = vec![
            Fact::new(Property::BirthDate, "1992-08-05"),
            Fact::new(Property::Citizenship, "Austria"),
            Fact::new(Property::Occupation, "chemist"),
            Fact::new(Property::Sex, "female"),
            Fact::new(Property::BirthPlace, "Lebanon")
                .with_alternates(["Lebanese Republic".to_owned()]),
        ];
        let terms = terms_of(&person);
        let has = |t: &str, ty: EntityType| terms.contains(&(t.to_owned(), ty));
        assert!(has("5 august 1992", EntityType::Datetime));
        assert!(has("august 5 1992", EntityType::Datetime));
        assert!(has("1992", EntityType::Datetime));
        assert!(has("austria", EntityType::Loc));
        assert!(has("austrian", EntityType::Dem));
        assert!(has("chemist", EntityType::Dem));
        assert!(has("lebanese republic", EntityType::Loc));
        assert!(has("lebanese", EntityType::Dem));
        assert!(has("l albano", EntityType::Person));
        assert!(!terms.iter().any(|(t, _)| t == "female"), "whitelisted");
        let unique: FxHashSet<_> = terms.iter().map(|(t, _)| t).collect();
        assert_eq!(unique.len(), terms.len());
    }

    #[test]
    fn whitelist_is_normalised_and_configurable() {
        let mut w = Whitelist::parse("# comment\nBorn\n  WOMAN \n");
        assert!(w.contains("born") && w.contains("woman"));
        assert!(!w.contains("#"));
        w.extend(Whitelist::parse("Zoë"));
        assert!(w.contains("zoe"));
    }
}
