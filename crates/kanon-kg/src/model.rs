//! The knowledge-graph model: people, their names and their facts.

use std::fmt;
use std::str::FromStr;

use kanon_core::EntityType;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::date::Date;

/// A property of a person. Names (`label`, `alias`) are not properties: they live on [`Person`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Property {
    /// A date (`1992-08-05`, `1992-08` or `1992`).
    BirthDate,
    /// A date, as for the birth date.
    DeathDate,
    /// A place of birth, usually a city.
    BirthPlace,
    /// A place of death, usually a city.
    DeathPlace,
    /// The country of birth (Pantheon's `countryName`).
    BirthCountry,
    /// A place the person lives or lived in (P551).
    Residence,
    /// A country of citizenship (P27); its demonym is a variant.
    Citizenship,
    /// An occupation (P106): `chemist`.
    Occupation,
    /// An organisation the person works or worked for (P108).
    Employer,
    /// A school or university the person attended (P69).
    EducatedAt,
    /// An award received (P166).
    Award,
    /// A position held (P39): `Mayor of Oslo`.
    Position,
    /// A sports team the person played for (P54).
    Team,
    /// An organisation the person is a member of (P463).
    MemberOf,
    /// A political party (P102).
    Party,
    /// Sex or gender (P21): `female`, `male`.
    Sex,
    /// A religion or worldview (P140).
    Religion,
    /// An ethnic group (P172).
    Ethnicity,
    /// A field of work (P101): `chemistry`.
    FieldOfWork,
    /// A language the person speaks, writes or signs (P1412), or their native language (P103).
    Language,
    /// Where the person worked (P937): a place, like a residence.
    WorkLocation,
    /// A spouse (P26), by name.
    Spouse,
    /// A relative (P1038), by name.
    Relative,
    /// An identifying number or code of the person (typed CODE).
    Identifier,
    /// A quantity about the person (typed QUANTITY).
    Quantity,
    /// Any other property, written in snake_case; typed MISC.
    Other(String),
}

impl Property {
    /// `(property, kanon name, Wikidata id)`. A property may have two Wikidata ids (P1412 and P103
    /// are both `language`); its name is the first row's.
    const NAMED: [(Property, &'static str, &'static str); 26] = [
        (Property::BirthDate, "birth_date", "P569"),
        (Property::DeathDate, "death_date", "P570"),
        (Property::BirthPlace, "birth_place", "P19"),
        (Property::DeathPlace, "death_place", "P20"),
        (Property::BirthCountry, "birth_country", ""),
        (Property::Residence, "residence", "P551"),
        (Property::Citizenship, "citizenship", "P27"),
        (Property::Occupation, "occupation", "P106"),
        (Property::Employer, "employer", "P108"),
        (Property::EducatedAt, "educated_at", "P69"),
        (Property::Award, "award", "P166"),
        (Property::Position, "position", "P39"),
        (Property::Team, "team", "P54"),
        (Property::MemberOf, "member_of", "P463"),
        (Property::Party, "party", "P102"),
        (Property::Sex, "sex", "P21"),
        (Property::Religion, "religion", "P140"),
        (Property::Ethnicity, "ethnicity", "P172"),
        (Property::FieldOfWork, "field_of_work", "P101"),
        (Property::Spouse, "spouse", "P26"),
        (Property::Relative, "relative", "P1038"),
        (Property::Identifier, "identifier", ""),
        (Property::Quantity, "quantity", ""),
        (Property::Language, "language", "P1412"),
        (Property::Language, "language", "P103"),
        (Property::WorkLocation, "work_location", "P937"),
    ];

    /// The property's snake_case name in the triples format (`birth_date`); an `Other` property's own
    /// name.
    pub fn name(&self) -> &str {
        match self {
            Property::Other(name) => name,
            known => Self::NAMED
                .iter()
                .find(|(p, _, _)| p == known)
                .map(|(_, name, _)| *name)
                .unwrap_or("other"),
        }
    }

    /// The property for a Wikidata property id (`P27`), if kanon imports it.
    pub fn from_wikidata(pid: &str) -> Option<Property> {
        Self::NAMED
            .iter()
            .find(|(_, _, id)| !id.is_empty() && *id == pid)
            .map(|(p, _, _)| p.clone())
    }

    /// The Wikidata property ids the importer keeps.
    pub fn wikidata_ids() -> impl Iterator<Item = (&'static str, Property)> {
        Self::NAMED
            .iter()
            .filter(|(_, _, id)| !id.is_empty())
            .map(|(p, _, id)| (*id, p.clone()))
    }

    /// The property's bit in a [`PropertySet`]: each named property its own (its first row's
    /// place), every `Other` property the last.
    pub fn bit(&self) -> u32 {
        match self {
            Property::Other(_) => 31,
            known => Self::NAMED
                .iter()
                .position(|(p, _, _)| p == known)
                .map_or(31, |i| i as u32),
        }
    }

    /// Whether values are dates ([`Date`] values, which get date variants).
    pub fn is_date(&self) -> bool {
        matches!(self, Property::BirthDate | Property::DeathDate)
    }

    /// Whether values are places (cities, regions…), which get place alternates.
    pub fn is_place(&self) -> bool {
        matches!(
            self,
            Property::BirthPlace
                | Property::DeathPlace
                | Property::Residence
                | Property::WorkLocation
        )
    }

    /// Whether values are countries, which get demonyms (Austria ↔ Austrian).
    pub fn is_country(&self) -> bool {
        matches!(self, Property::Citizenship | Property::BirthCountry)
    }

    /// The TAB entity category of a value of this property, as written in text.
    pub fn entity_type(&self) -> EntityType {
        match self {
            Property::Spouse | Property::Relative => EntityType::Person,
            Property::BirthDate | Property::DeathDate => EntityType::Datetime,
            Property::BirthPlace
            | Property::DeathPlace
            | Property::BirthCountry
            | Property::Residence
            | Property::WorkLocation
            | Property::Citizenship => EntityType::Loc,
            Property::Employer
            | Property::EducatedAt
            | Property::Team
            | Property::MemberOf
            | Property::Party => EntityType::Org,
            Property::Occupation
            | Property::Sex
            | Property::Religion
            | Property::Ethnicity
            | Property::Language => EntityType::Dem,
            Property::Identifier => EntityType::Code,
            Property::Quantity => EntityType::Quantity,
            Property::Award | Property::Position | Property::FieldOfWork | Property::Other(_) => {
                EntityType::Misc
            }
        }
    }
}

/// The properties a term is the value of, across the people who have it: one bit per named
/// property ([`Property::bit`]), one for the person's own name, one for every other property.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PropertySet(pub u32);

impl PropertySet {
    /// The bit of a person's own name (label, alias).
    pub const NAME_BIT: u32 = 30;

    /// The set of one property.
    pub fn of(property: &Property) -> Self {
        PropertySet(1 << property.bit())
    }

    /// The set of a person's own name.
    pub fn name() -> Self {
        PropertySet(1 << Self::NAME_BIT)
    }

    /// Whether it holds `property`.
    pub fn contains(self, property: &Property) -> bool {
        self.0 & (1 << property.bit()) != 0
    }

    /// Whether it holds nothing (an index built before properties were recorded).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Both sets' properties.
    pub fn union(self, other: PropertySet) -> Self {
        PropertySet(self.0 | other.0)
    }

    /// The names of the properties it holds (`name` for a person's own name, `other` for any
    /// other property), in bit order.
    pub fn names(self) -> Vec<&'static str> {
        (0..32)
            .filter(|bit| self.0 & (1 << bit) != 0)
            .map(|bit| match bit {
                Self::NAME_BIT => "name",
                // A named property's bit is its row in the table.
                bit => Property::NAMED
                    .get(bit as usize)
                    .map_or("other", |(_, name, _)| *name),
            })
            .collect()
    }

    /// Whether every property it holds is one of `allowed`.
    pub fn only<'p>(self, allowed: impl IntoIterator<Item = &'p Property>) -> bool {
        let allowed = allowed.into_iter().fold(0, |mask, p| mask | (1 << p.bit()));
        self.0 & !allowed == 0
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Property {
    type Err = String;

    /// Accepts kanon's snake_case names and Wikidata ids (`P569`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if let Some((p, _, _)) = Self::NAMED.iter().find(|(_, name, _)| *name == s) {
            return Ok(p.clone());
        }
        if let Some(p) = Property::from_wikidata(s) {
            return Ok(p);
        }
        let valid = !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if valid && !matches!(s, "label" | "alias" | "type" | "same_as") {
            Ok(Property::Other(s.to_owned()))
        } else {
            Err(format!(
                "invalid property {s:?}: use a snake_case name such as birth_date, or a Wikidata id such as P569"
            ))
        }
    }
}

impl From<Property> for String {
    fn from(p: Property) -> String {
        p.name().to_owned()
    }
}

impl TryFrom<String> for Property {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// One fact: a property and its value as it is usually written, plus other ways of writing the value
/// (from the source's aliases of the value entity: "Lebanon" / "Lebanese Republic").
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fact {
    /// What the value is of.
    pub property: Property,
    /// The value as usually written (`Austria`, `1992-08-05`): dates in the KG's ISO form.
    pub value: String,
    /// Other ways of writing the value, from the source.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<String>,
}

impl Fact {
    /// A fact without alternates.
    pub fn new(property: Property, value: impl Into<String>) -> Self {
        Fact {
            property,
            value: value.into(),
            alternates: Vec::new(),
        }
    }

    /// The fact with `alternates` added after its own.
    pub fn with_alternates(mut self, alternates: impl IntoIterator<Item = String>) -> Self {
        self.alternates.extend(alternates);
        self
    }
}

/// A person: a stable id, a name (label), other names (aliases), ids of the same person in other
/// sources, and facts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// The id the person's first source gave (`Q42`, `pantheon:123`, `S0000001`), unique in a KG.
    pub id: String,
    /// The person's name as usually written.
    pub label: String,
    /// Other names of the person (nicknames, birth names, other spellings).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The person's ids in other sources, joined by a merge.
    #[serde(default)]
    pub same_as: Vec<String>,
    /// The person's facts, in source order.
    #[serde(default)]
    pub facts: Vec<Fact>,
}

impl Person {
    /// A person with a name and no other names, ids or facts.
    pub fn new(id: impl Into<String>, label: impl Into<String>) -> Self {
        Person {
            id: id.into(),
            label: label.into(),
            ..Person::default()
        }
    }

    /// The year of birth, when a birth date is known.
    pub fn birth_year(&self) -> Option<i32> {
        self.birth_date().map(|d| d.year)
    }

    /// The most precise birth date known (day before month before year; the first of equals).
    pub fn birth_date(&self) -> Option<Date> {
        let precision = |d: &Date| u8::from(d.month.is_some()) + u8::from(d.day.is_some());
        self.facts
            .iter()
            .filter(|f| f.property == Property::BirthDate)
            .filter_map(|f| Date::parse(&f.value))
            .fold(None, |best: Option<Date>, d| match best {
                Some(b) if precision(&b) >= precision(&d) => Some(b),
                _ => Some(d),
            })
    }

    /// The person's Wikidata ids (`Q…`) among its id and `same_as` ids.
    pub fn wikidata_ids(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&self.id)
            .chain(&self.same_as)
            .map(String::as_str)
            .filter(|id| is_wikidata_id(id))
    }

    /// Absorbs another record of the same person: names, ids and facts not already known.
    pub fn absorb(&mut self, other: Person) {
        if self.label.is_empty() {
            self.label = other.label;
        } else if other.label != self.label && !self.aliases.contains(&other.label) {
            self.aliases.push(other.label);
        }
        for alias in other.aliases {
            if alias != self.label && !self.aliases.contains(&alias) {
                self.aliases.push(alias);
            }
        }
        for id in std::iter::once(other.id).chain(other.same_as) {
            if id != self.id && !self.same_as.contains(&id) {
                self.same_as.push(id);
            }
        }
        for fact in other.facts {
            match self
                .facts
                .iter_mut()
                .find(|f| f.property == fact.property && f.value == fact.value)
            {
                Some(existing) => {
                    for alt in fact.alternates {
                        if !existing.alternates.contains(&alt) {
                            existing.alternates.push(alt);
                        }
                    }
                }
                None => self.facts.push(fact),
            }
        }
    }
}

/// A knowledge graph of people.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KnowledgeGraph {
    /// The people; their position is the dense id the index gives them.
    pub people: Vec<Person>,
}

/// Whether an id is a Wikidata item id (`Q` and digits).
pub fn is_wikidata_id(id: &str) -> bool {
    id.len() > 1 && id.starts_with('Q') && id[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Whether two birth dates may be the same: the same year, and the same month and day where both
/// know them (`1931` fits `1931-03-12`; `1931-03-12` does not fit `1931-07`).
fn dates_agree(a: Date, b: Date) -> bool {
    a.year == b.year
        && match (a.month, b.month) {
            (Some(x), Some(y)) => x == y && a.day.zip(b.day).is_none_or(|(x, y)| x == y),
            _ => true,
        }
}

/// Whether a record may join a person found by name and birth year: their birth dates agree and
/// they do not both have Wikidata ids, none shared (then they are two people of one name).
fn same_by_name_and_birth(a: &Person, b: &Person) -> bool {
    let dates = match (a.birth_date(), b.birth_date()) {
        (Some(x), Some(y)) => dates_agree(x, y),
        _ => false,
    };
    let (qa, qb): (Vec<&str>, Vec<&str>) = (a.wikidata_ids().collect(), b.wikidata_ids().collect());
    let conflict = !qa.is_empty() && !qb.is_empty() && !qa.iter().any(|q| qb.contains(q));
    dates && !conflict
}

/// How many records a merge folded into existing people, and by which rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeStats {
    /// Joined because an id (`id` or `same_as`: a Wikidata id, a Freebase id…) was already known.
    pub by_identifier: usize,
    /// Joined by normalised name and birth date (the same year; month and day equal where both
    /// records know them).
    pub by_name_and_birth_year: usize,
    /// Records with an earlier person's name and birth year kept apart: different Wikidata ids, or
    /// birth dates that disagree on the month or day.
    #[serde(default)]
    pub kept_apart: usize,
}

impl KnowledgeGraph {
    /// How many people the KG holds.
    pub fn len(&self) -> usize {
        self.people.len()
    }

    /// Whether the KG holds nobody.
    pub fn is_empty(&self) -> bool {
        self.people.is_empty()
    }

    /// Facts of all people together.
    pub fn num_facts(&self) -> usize {
        self.people.iter().map(|p| p.facts.len()).sum()
    }

    /// Merges people from several sources, in order. A record joins an earlier person when one of its
    /// identifiers (id or `same_as`, e.g. a Wikidata id) is already known, or else when its
    /// normalised name and birth date agree with an earlier person's (same year; month and day
    /// equal where both know them) and they do not have different Wikidata ids; the earlier id is
    /// kept, so ids are stable for a given order of sources.
    pub fn merge(sources: impl IntoIterator<Item = Vec<Person>>) -> (KnowledgeGraph, MergeStats) {
        let mut people: Vec<Person> = Vec::new();
        let mut by_id: FxHashMap<String, usize> = FxHashMap::default();
        let mut by_name_year: FxHashMap<(String, i32), Vec<usize>> = FxHashMap::default();
        let mut stats = MergeStats::default();
        let name_year = |p: &Person| kanon_core::text::normalize_term(&p.label).zip(p.birth_year());
        for source in sources {
            for person in source {
                let ids: Vec<String> = std::iter::once(person.id.clone())
                    .chain(person.same_as.iter().cloned())
                    .collect();
                let key = name_year(&person);
                let target = if let Some(&i) = ids.iter().find_map(|id| by_id.get(id)) {
                    stats.by_identifier += 1;
                    Some(i)
                } else if let Some(candidates) = key.as_ref().and_then(|k| by_name_year.get(k)) {
                    let found = candidates
                        .iter()
                        .copied()
                        .find(|&i| same_by_name_and_birth(&people[i], &person));
                    match found {
                        Some(_) => stats.by_name_and_birth_year += 1,
                        None => stats.kept_apart += 1,
                    }
                    found
                } else {
                    None
                };
                let index = match target {
                    Some(i) => {
                        people[i].absorb(person);
                        i
                    }
                    None => {
                        people.push(person);
                        people.len() - 1
                    }
                };
                for id in ids {
                    by_id.entry(id).or_insert(index);
                }
                // The merged record may have learnt a birth year: register it under that too.
                for key in [name_year(&people[index]), key].into_iter().flatten() {
                    let entry = by_name_year.entry(key).or_default();
                    if !entry.contains(&index) {
                        entry.push(index);
                    }
                }
            }
        }
        (KnowledgeGraph { people }, stats)
    }

    /// The id that a source id now goes by after merging (itself, or the person it was merged into).
    pub fn id_map(&self) -> FxHashMap<&str, &str> {
        let mut map = FxHashMap::default();
        for person in &self.people {
            map.insert(person.id.as_str(), person.id.as_str());
            for id in &person.same_as {
                map.entry(id.as_str()).or_insert(person.id.as_str());
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_property_has_its_own_bit_and_others_share_the_last() {
        let mut seen = std::collections::BTreeMap::new();
        for (property, _, _) in Property::NAMED {
            let bit = property.bit();
            assert!(bit < PropertySet::NAME_BIT, "{property}");
            assert_eq!(*seen.entry(bit).or_insert(property.clone()), property);
        }
        assert_eq!(seen.len(), 25);
        assert_eq!(Property::Other("x".into()).bit(), 31);
        let set = PropertySet::of(&Property::Team).union(PropertySet::of(&Property::Employer));
        assert!(set.contains(&Property::Team) && !set.contains(&Property::Party));
        assert!(set.only(&[Property::Team, Property::Employer, Property::Award]));
        assert!(!set.only(&[Property::Team]));
        assert!(!PropertySet::name().only(&[Property::Team]));
        assert_eq!(set.names(), ["employer", "team"]);
        assert_eq!(
            PropertySet::name()
                .union(PropertySet::of(&Property::Other("x".into())))
                .names(),
            ["name", "other"]
        );
    }

    fn person(id: &str, label: &str, facts: &[(Property, &str)]) -> Person {
        let mut p = Person::new(id, label);
        p.facts = facts
            .iter()
            .map(|(k, v)| Fact::new(k.clone(), *v))
            .collect();
        p
    }

    #[test]
    fn property_names_and_wikidata_ids_parse() {
        assert_eq!("birth_date".parse::<Property>(), Ok(Property::BirthDate));
        assert_eq!("P27".parse::<Property>(), Ok(Property::Citizenship));
        assert_eq!(
            "hair_colour".parse::<Property>(),
            Ok(Property::Other("hair_colour".into()))
        );
        assert!("Hair Colour".parse::<Property>().is_err());
        assert!("label".parse::<Property>().is_err());
        for (_, p) in Property::wikidata_ids() {
            assert_eq!(p.name().parse::<Property>(), Ok(p));
        }
    }

    #[test]
    fn merges_by_identifier_then_by_name_and_birth_year() {
        let a = person(
            "pantheon:1",
            "Lilian Albano",
            &[(Property::BirthDate, "1950")],
        );
        let mut b = person(
            "gre:/m/1",
            "Lilian Albano",
            &[(Property::BirthPlace, "Vienna")],
        );
        b.same_as.push("Q9".into());
        let c = person(
            "gre:/m/1",
            "Lilian Albano",
            &[(Property::BirthDate, "1950")],
        );
        let d = person("Q9", "L. Albano", &[(Property::Occupation, "chemist")]);
        let e = person(
            "gre:/m/2",
            "LILIAN ALBANO",
            &[(Property::BirthDate, "1950")],
        );
        let f = person(
            "gre:/m/3",
            "Lilian Albano",
            &[(Property::BirthDate, "1961")],
        );
        let (kg, stats) = KnowledgeGraph::merge([vec![a], vec![b, c, d, e, f]]);
        // b has no birth year (no merge with a); c joins b by id and gives it 1950; d joins b by Q9;
        // e joins a by (name, year); f stays apart.
        assert_eq!(kg.len(), 3);
        assert_eq!(stats.by_identifier, 2);
        assert_eq!(stats.by_name_and_birth_year, 1);
        assert_eq!(kg.people[0].same_as, vec!["gre:/m/2".to_owned()]);
        assert_eq!(kg.people[1].id, "gre:/m/1");
        assert_eq!(kg.people[1].aliases, vec!["L. Albano".to_owned()]);
        assert_eq!(kg.people[1].facts.len(), 3);
        let ids = kg.id_map();
        assert_eq!(ids["Q9"], "gre:/m/1");
        assert_eq!(ids["gre:/m/2"], "pantheon:1");
    }

    #[test]
    fn name_and_birth_merges_need_agreeing_dates_and_wikidata_ids() {
        let born =
            |id: &str, date: &str| person(id, "Lilian Albano", &[(Property::BirthDate, date)]);
        let mut wd = born("Q1", "1950-03-12");
        wd.same_as.push("freebase:/m/1".into());
        // A year fits a day of that year: joined.
        let year_only = born("pantheon:1", "1950");
        // Another Wikidata id: two people of one name and birth year.
        let other_q = born("Q2", "1950");
        // Another record whose same_as is Q1: joined by identifier, whatever its name.
        let mut gre = born("freebase:/m/9", "1950");
        gre.same_as.push("Q1".into());
        // The same year, another day: kept apart.
        let other_day = born("pantheon:2", "1950-03-13");
        // The same year and month, no day: joined.
        let month = born("pantheon:3", "1950-03");
        let (kg, stats) =
            KnowledgeGraph::merge([vec![wd.clone()], vec![year_only, other_day, gre, month]]);
        // The month-only record fits Q1 (March), not pantheon:2 (kept apart for its day).
        assert_eq!(
            stats,
            MergeStats {
                by_identifier: 1,
                by_name_and_birth_year: 2,
                kept_apart: 1,
            }
        );
        let ids: Vec<&str> = kg.people.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["Q1", "pantheon:2"]);
        assert_eq!(
            kg.people[0].birth_date().map(|d| d.to_string()).as_deref(),
            Some("1950-03-12")
        );
        let (kg, stats) = KnowledgeGraph::merge([vec![wd], vec![other_q]]);
        assert_eq!((kg.len(), stats.kept_apart), (2, 1));
        assert!(is_wikidata_id("Q42") && !is_wikidata_id("Q") && !is_wikidata_id("q42"));
    }
}
