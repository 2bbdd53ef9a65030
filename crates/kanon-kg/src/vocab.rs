//! Real vocabularies embedded in the binary (see `kg/vocab/README.md` for sources and licences):
//! countries with demonyms and alternate names, cities with alternate names, person names,
//! occupations, awards, religions, organisations. They drive term variants and the synthetic
//! population.

use std::sync::OnceLock;

use kanon_core::text::normalize_term;
use rustc_hash::FxHashMap;

/// A country as the vocabulary knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Country {
    /// The usual English name: `Austria`.
    pub name: String,
    /// Its demonyms, `|`-separated, the usual one first: `Austrian`.
    pub demonym: Option<String>,
    /// Other names: `Republic of Austria`.
    pub alternates: Vec<String>,
    /// The UN M49 sub-region (`Northern Europe`) and region (`Europe`), when known.
    pub subregion: Option<String>,
    /// The UN M49 region: `Europe`.
    pub region: Option<String>,
}

/// A city as the vocabulary knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct City {
    /// The usual English name: `Vienna`.
    pub name: String,
    /// The name of its country, as in [`Country::name`].
    pub country: String,
    /// Its population (at least 1): weights the synthetic birthplaces.
    pub population: u64,
    /// Other names: `Wien`.
    pub alternates: Vec<String>,
    /// Its first-level region (a state, province or county: `Gujarat`), when GeoNames names one.
    pub region: Option<String>,
}

/// A first-level region (a US or Indian state, a Canadian province, a Norwegian county) as the
/// vocabulary knows it: through the cities it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstLevelRegion {
    /// Its name, GeoNames' ASCII form: `Gujarat`, `Sor-Trondelag`.
    pub name: String,
    /// The name of its country, as in [`Country::name`].
    pub country: String,
}

/// A town (a GeoNames place of at least 1,000 people that no listed city names,
/// `kg/vocab/towns.tsv`): one of the places a town's name may mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Town {
    /// Its name as GeoNames writes it: `Caerphilly`.
    pub name: String,
    /// The name of its country, as in [`Country::name`].
    pub country: String,
    /// Its first-level region (`Wales`), when GeoNames names one.
    pub region: Option<String>,
}

/// One sense of a name WordNet knows (`kg/vocab/wordnet_names.tsv`): what kind of thing it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedSense {
    /// What the sense names: `location`, `object` (a river, a mountain), `organization`,
    /// `institution` (a university), `group`, `act` (a war, a battle), `event`, `language`,
    /// `religion`, `communication`, `cognition`, `artifact`, `time`, or another WordNet
    /// lexicographer file (`person`, `animal`, …) for senses with no kinds.
    pub category: String,
    /// The kinds it is, nearest first, as rungs read (`a river`, `a stream`); a language's are its
    /// families as adjectives (`Indic`, `Indo-Iranian`).
    pub kinds: Vec<String>,
    /// The place WordNet says it is part of (`England` for the Thames), when it names one.
    pub part_of: Option<String>,
}

/// The gender a first name is given to, as the vocabulary records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gender {
    /// A name given to girls.
    Female,
    /// A name given to boys.
    Male,
}

/// A value with a relative frequency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weighted<T> {
    /// The value.
    pub value: T,
    /// How often it occurs, relative to the other values of its table (at least 1).
    pub weight: u64,
}

/// The embedded vocabularies, parsed, with indexes by normalised name.
#[derive(Debug)]
pub struct Vocabulary {
    /// Countries, in table order.
    pub countries: Vec<Country>,
    /// Cities, in table order.
    pub cities: Vec<City>,
    /// First names weighted by frequency, each with the gender it is given to.
    pub first_names: Vec<(Weighted<String>, Gender)>,
    /// Surnames weighted by frequency.
    pub last_names: Vec<Weighted<String>>,
    /// Occupations weighted by frequency.
    pub occupations: Vec<Weighted<String>>,
    /// Names of awards.
    pub awards: Vec<String>,
    /// Names of religions.
    pub religions: Vec<String>,
    /// `(name, kind)`, kind one of company, party, team, other.
    pub organizations: Vec<(String, String)>,
    /// Legal-form suffixes of company names (`Ltd`, `GmbH`).
    pub company_suffixes: Vec<String>,
    /// The first-level regions of the listed cities, each once, in order of first mention.
    pub first_level_regions: Vec<FirstLevelRegion>,
    /// Kinds of people (`singer`) with their WordNet hypernyms, nearest first (`musician`,
    /// `performer`, `entertainer`), true of every sense the word has as a kind of person.
    person_hypernyms: FxHashMap<String, Vec<String>>,
    /// Proper names WordNet knows, normalised, with every sense the name has.
    named: FxHashMap<String, Vec<NamedSense>>,
    religion_index: rustc_hash::FxHashSet<String>,
    /// One-word place names that are also common English words (`kg/vocab/common_word_places.tsv`).
    common_word_places: rustc_hash::FxHashSet<String>,
    /// Company suffixes, normalised (`ltd`, `gmbh`, `s a`).
    company_suffix_index: rustc_hash::FxHashSet<String>,
    /// A region's normalised name to its position; a name regions of two countries share (the
    /// Punjab) is left out, as neither reading is sure.
    region_index: FxHashMap<String, usize>,
    award_index: rustc_hash::FxHashSet<String>,
    country_index: FxHashMap<String, usize>,
    demonym_index: FxHashMap<String, usize>,
    city_index: FxHashMap<String, usize>,
    /// City names the index reads as one city although a city of another country has the same
    /// main name and at least half its people (`Waterford`: Michigan's and Ireland's).
    contested_city_names: rustc_hash::FxHashSet<String>,
    organization_index: FxHashMap<String, usize>,
    /// Towns by normalised name, every place of that name; parsed on first use (123,000 rows
    /// only the sanitizer's place hierarchy reads).
    towns: OnceLock<FxHashMap<String, Vec<Town>>>,
}

macro_rules! table {
    ($name:literal) => {
        ($name, include_str!(concat!("../../../kg/vocab/", $name)))
    };
}

/// Rows of an embedded TSV table, header skipped, fields split on tabs.
fn rows((name, text): (&'static str, &'static str)) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(move |line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert!(
                !fields[0].is_empty(),
                "kg/vocab/{name}: empty first field in {line:?}"
            );
            fields
        })
}

fn list(field: Option<&&str>) -> Vec<String> {
    field
        .map(|f| {
            f.split('|')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn weight(field: Option<&&str>) -> u64 {
    field
        .and_then(|w| w.trim().parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// Values with their weights: a table's first column, weighted by its second.
fn weighted(table: (&'static str, &'static str)) -> Vec<Weighted<String>> {
    rows(table)
        .map(|f| Weighted {
            value: f[0].to_owned(),
            weight: weight(f.get(1)),
        })
        .collect()
}

fn first_column(table: (&'static str, &'static str)) -> Vec<String> {
    rows(table).map(|f| f[0].to_owned()).collect()
}

/// The countries with their demonyms, alternate names and UN M49 regions.
fn parse_countries() -> Vec<Country> {
    let regions: FxHashMap<&str, (&str, &str)> = rows(table!("regions.tsv"))
        .map(|f| {
            (
                f[0],
                (
                    f.get(1).copied().unwrap_or(""),
                    f.get(2).copied().unwrap_or(""),
                ),
            )
        })
        .collect();
    let known = |field: &str| (!field.is_empty()).then(|| field.to_owned());
    rows(table!("countries.tsv"))
        .map(|f| {
            let (subregion, region) = regions.get(f[0]).copied().unwrap_or(("", ""));
            Country {
                name: f[0].to_owned(),
                demonym: f.get(1).filter(|d| !d.is_empty()).map(|d| (*d).to_owned()),
                alternates: list(f.get(2)),
                subregion: known(subregion),
                region: known(region),
            }
        })
        .collect()
}

/// Each country's name and alternate names, normalised, to its position; a name two countries
/// share stands for the first.
fn index_countries(countries: &[Country]) -> FxHashMap<String, usize> {
    let mut country_index = FxHashMap::default();
    for (i, country) in countries.iter().enumerate() {
        for name in std::iter::once(&country.name).chain(&country.alternates) {
            if let Some(key) = normalize_term(name) {
                country_index.entry(key).or_insert(i);
            }
        }
    }
    country_index
}

/// Each demonym, normalised, to the position of its country. A demonym shared by several
/// countries ("American": the United States and the Northern Mariana Islands) stands for the one
/// whose listed cities hold the most people.
fn index_demonyms(
    countries: &[Country],
    cities: &[City],
    country_index: &FxHashMap<String, usize>,
) -> FxHashMap<String, usize> {
    let mut city_population = vec![0u64; countries.len()];
    for city in cities {
        if let Some(key) = normalize_term(&city.country)
            && let Some(&i) = country_index.get(&key)
        {
            city_population[i] += city.population;
        }
    }
    let mut demonym_index: FxHashMap<String, usize> = FxHashMap::default();
    for (i, country) in countries.iter().enumerate() {
        for demonym in country.demonym.iter().flat_map(|d| d.split('|')) {
            if let Some(key) = normalize_term(demonym) {
                let slot = demonym_index.entry(key).or_insert(i);
                if city_population[i] > city_population[*slot] {
                    *slot = i;
                }
            }
        }
    }
    demonym_index
}

/// Each city name, normalised, to the position of its city. A shared name stands for its most
/// populous city; an alternate name ("München") finds a city only where no city has it as its main
/// name.
fn index_cities(cities: &[City]) -> FxHashMap<String, usize> {
    let mut city_index: FxHashMap<String, usize> = FxHashMap::default();
    let mut index_city_names = |alternates: bool| {
        let mut by_alternate: FxHashMap<String, usize> = FxHashMap::default();
        for (i, city) in cities.iter().enumerate() {
            let names: Vec<&String> = if alternates {
                city.alternates.iter().collect()
            } else {
                vec![&city.name]
            };
            for key in names.into_iter().filter_map(|n| normalize_term(n)) {
                if alternates && city_index.contains_key(&key) {
                    continue;
                }
                let target = if alternates {
                    &mut by_alternate
                } else {
                    &mut city_index
                };
                let entry = target.entry(key).or_insert(i);
                if cities[*entry].population < city.population {
                    *entry = i;
                }
            }
        }
        by_alternate
    };
    index_city_names(false);
    let by_alternate = index_city_names(true);
    city_index.extend(by_alternate);
    city_index
}

/// The main names [`index_cities`] reads as one city though a city of another country has that
/// main name too and at least half the chosen city's people.
fn contested_city_names(
    cities: &[City],
    city_index: &FxHashMap<String, usize>,
) -> rustc_hash::FxHashSet<String> {
    cities
        .iter()
        .filter_map(|city| {
            let key = normalize_term(&city.name)?;
            let chosen = &cities[*city_index.get(&key)?];
            (chosen.country != city.country && city.population * 2 >= chosen.population)
                .then_some(key)
        })
        .collect()
}

/// A first-level region's name as English prose writes it: GeoNames' names of China's divisions
/// carry their administrative kind (`Anhui Sheng`, `Chongqing Shi`, `Guangxi Zhuangzu
/// Zizhiqu`), which English leaves out (`Anhui`, `Chongqing`, `Guangxi`).
pub fn short_region_name(name: &str) -> &str {
    const KINDS: &[&str] = &[
        " Huizu Zizhiqu",
        " Zhuangzu Zizhiqu",
        " Uygur Zizhiqu",
        " Zizhiqu",
        " Sheng",
        " Shi",
    ];
    KINDS
        .iter()
        .find_map(|kind| name.strip_suffix(kind))
        .unwrap_or(name)
}

/// `towns.tsv` by normalised name.
fn parse_towns() -> FxHashMap<String, Vec<Town>> {
    let mut towns: FxHashMap<String, Vec<Town>> = FxHashMap::default();
    for fields in rows(table!("towns.tsv")) {
        let Some(key) = normalize_term(fields[0]) else {
            continue;
        };
        towns.entry(key).or_default().push(Town {
            name: fields[0].to_owned(),
            country: fields.get(1).copied().unwrap_or("").to_owned(),
            region: fields
                .get(2)
                .filter(|region| !region.is_empty())
                .map(|region| (*region).to_owned()),
        });
    }
    towns
}

/// The cities with their first-level regions (`city_regions.tsv`), the regions they name, and the
/// index of the regions by name.
fn with_regions(
    mut cities: Vec<City>,
) -> (Vec<City>, Vec<FirstLevelRegion>, FxHashMap<String, usize>) {
    let by_city: FxHashMap<(&str, &str), &str> = rows(table!("city_regions.tsv"))
        .filter_map(|f| Some(((f[0], *f.get(1)?), *f.get(2)?)))
        .collect();
    let mut regions: Vec<FirstLevelRegion> = Vec::new();
    let mut position: FxHashMap<(String, String), usize> = FxHashMap::default();
    for city in &mut cities {
        let Some(&region) = by_city.get(&(city.name.as_str(), city.country.as_str())) else {
            continue;
        };
        city.region = Some(region.to_owned());
        position
            .entry((region.to_owned(), city.country.clone()))
            .or_insert_with(|| {
                regions.push(FirstLevelRegion {
                    name: region.to_owned(),
                    country: city.country.clone(),
                });
                regions.len() - 1
            });
    }
    let mut region_index: FxHashMap<String, Option<usize>> = FxHashMap::default();
    for (i, region) in regions.iter().enumerate() {
        let short = short_region_name(&region.name);
        let names =
            std::iter::once(region.name.as_str()).chain((short != region.name).then_some(short));
        for key in names.filter_map(normalize_term) {
            region_index
                .entry(key)
                .and_modify(|slot| *slot = None)
                .or_insert(Some(i));
        }
    }
    let region_index = region_index
        .into_iter()
        .filter_map(|(key, i)| Some((key, i?)))
        .collect();
    (cities, regions, region_index)
}

impl Vocabulary {
    /// The embedded vocabulary, parsed once.
    pub fn embedded() -> &'static Vocabulary {
        static VOCABULARY: OnceLock<Vocabulary> = OnceLock::new();
        VOCABULARY.get_or_init(Vocabulary::parse_embedded)
    }

    fn parse_embedded() -> Vocabulary {
        let countries = parse_countries();
        let cities: Vec<City> = rows(table!("cities.tsv"))
            .map(|f| City {
                name: f[0].to_owned(),
                country: f.get(1).copied().unwrap_or_default().to_owned(),
                population: weight(f.get(2)),
                alternates: list(f.get(3)),
                region: None,
            })
            .collect();
        let (cities, first_level_regions, region_index) = with_regions(cities);
        let person_hypernyms = rows(table!("person_hypernyms.tsv"))
            .map(|f| (f[0].to_owned(), list(f.get(1))))
            .collect();
        let mut named: FxHashMap<String, Vec<NamedSense>> = FxHashMap::default();
        for f in rows(table!("wordnet_names.tsv")) {
            if let Some(key) = normalize_term(f[0]) {
                named.entry(key).or_default().push(NamedSense {
                    category: f.get(1).copied().unwrap_or_default().to_owned(),
                    kinds: list(f.get(2)),
                    part_of: f.get(3).filter(|p| !p.is_empty()).map(|p| (*p).to_owned()),
                });
            }
        }
        let religions = first_column(table!("religions.tsv"));
        let religion_index = religions
            .iter()
            .filter_map(|religion| normalize_term(religion))
            .collect();
        let common_word_places = first_column(table!("common_word_places.tsv"))
            .into_iter()
            .collect();
        let company_suffixes = first_column(table!("company_suffixes.tsv"));
        let company_suffix_index = company_suffixes
            .iter()
            .filter_map(|suffix| normalize_term(suffix))
            .collect();
        let first_names = rows(table!("first_names.tsv"))
            .map(|f| {
                let gender = if f.get(1) == Some(&"F") {
                    Gender::Female
                } else {
                    Gender::Male
                };
                (
                    Weighted {
                        value: f[0].to_owned(),
                        weight: weight(f.get(2)),
                    },
                    gender,
                )
            })
            .collect();
        let country_index = index_countries(&countries);
        let demonym_index = index_demonyms(&countries, &cities, &country_index);
        let city_index = index_cities(&cities);
        let contested_city_names = contested_city_names(&cities, &city_index);
        let organizations: Vec<(String, String)> = rows(table!("organizations.tsv"))
            .map(|f| {
                (
                    f[0].to_owned(),
                    f.get(1).copied().unwrap_or("other").to_owned(),
                )
            })
            .collect();
        let mut organization_index = FxHashMap::default();
        for (i, (name, _)) in organizations.iter().enumerate() {
            if let Some(key) = normalize_term(name) {
                organization_index.entry(key).or_insert(i);
            }
        }
        Vocabulary {
            countries,
            cities,
            first_names,
            last_names: weighted(table!("last_names.tsv")),
            occupations: weighted(table!("occupations.tsv")),
            award_index: first_column(table!("awards.tsv"))
                .iter()
                .filter_map(|award| normalize_term(award))
                .collect(),
            awards: first_column(table!("awards.tsv")),
            religions,
            religion_index,
            named,
            organizations,
            company_suffixes,
            company_suffix_index,
            common_word_places,
            first_level_regions,
            person_hypernyms,
            region_index,
            country_index,
            demonym_index,
            city_index,
            contested_city_names,
            organization_index,
            towns: OnceLock::new(),
        }
    }

    /// The country a name (or alternate name) stands for, case and diacritics ignored.
    pub fn country(&self, name: &str) -> Option<&Country> {
        normalize_term(name)
            .and_then(|key| self.country_index.get(&key))
            .map(|&i| &self.countries[i])
    }

    /// The country whose demonym this is (`Norwegian` → Norway), case and diacritics ignored.
    pub fn country_of_demonym(&self, demonym: &str) -> Option<&Country> {
        normalize_term(demonym)
            .and_then(|key| self.demonym_index.get(&key))
            .map(|&i| &self.countries[i])
    }

    /// The kind of a listed organisation (`company`, `party`, `team`, `other`).
    pub fn organization_kind(&self, name: &str) -> Option<&str> {
        normalize_term(name)
            .and_then(|key| self.organization_index.get(&key))
            .map(|&i| self.organizations[i].1.as_str())
    }

    /// The first-level region of that name (`Gujarat`, `Michigan`), case and diacritics ignored;
    /// none for a name regions of two countries share.
    pub fn first_level_region(&self, name: &str) -> Option<&FirstLevelRegion> {
        normalize_term(name)
            .and_then(|key| self.region_index.get(&key))
            .map(|&i| &self.first_level_regions[i])
    }

    /// Whether the awards table lists this award (`Nobel Prize in Literature`), case and
    /// diacritics ignored.
    pub fn is_award(&self, name: &str) -> bool {
        normalize_term(name).is_some_and(|key| self.award_index.contains(&key))
    }

    /// The WordNet hypernyms of a kind of person (`singer` → `musician`, `performer`,
    /// `entertainer`), nearest first; none for a word that is not only a kind of person, or whose
    /// person senses share no telling hypernym (`kg/vocab/README.md`).
    pub fn person_hypernyms(&self, kind: &str) -> Option<&[String]> {
        self.person_hypernyms
            .get(kind.trim().to_lowercase().as_str())
            .map(Vec::as_slice)
    }

    /// Every sense WordNet gives a proper name (`Thames`: a river, part of England), case and
    /// diacritics ignored; none for a name WordNet does not know as a proper name.
    pub fn named_senses(&self, name: &str) -> Option<&[NamedSense]> {
        normalize_term(name)
            .and_then(|key| self.named.get(&key))
            .map(Vec::as_slice)
    }

    /// Whether the religions table lists this name (`Sunni Islam`), case and diacritics ignored.
    pub fn is_religion(&self, name: &str) -> bool {
        normalize_term(name).is_some_and(|key| self.religion_index.contains(&key))
    }

    /// Whether a one-word place name is also a common English word (`Reading`, `Nice`,
    /// `Independence`), case and diacritics ignored: a name that holds it may not mean the place.
    pub fn is_common_word_place(&self, word: &str) -> bool {
        normalize_term(word).is_some_and(|key| self.common_word_places.contains(&key))
    }

    /// Whether these words are a company's legal form (`Ltd`, `GmbH`, `S.A.`), case, dots and
    /// diacritics ignored.
    pub fn is_company_suffix(&self, words: &str) -> bool {
        normalize_term(words).is_some_and(|key| self.company_suffix_index.contains(&key))
    }

    /// The most populous city of that name, case and diacritics ignored.
    pub fn city(&self, name: &str) -> Option<&City> {
        normalize_term(name)
            .and_then(|key| self.city_index.get(&key))
            .map(|&i| &self.cities[i])
    }

    /// Whether a city of another country than [`Vocabulary::city`]'s shares the name and at
    /// least half its people: which one a text means is not sure without more.
    pub fn is_contested_city_name(&self, name: &str) -> bool {
        normalize_term(name).is_some_and(|key| self.contested_city_names.contains(&key))
    }

    /// Every town of that name (case and diacritics ignored), in table order; empty when no
    /// town has it. A listed city's name is no town's.
    pub fn towns(&self, name: &str) -> &[Town] {
        let towns = self.towns.get_or_init(parse_towns);
        normalize_term(name)
            .and_then(|key| towns.get(&key))
            .map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_divisions_read_without_their_administrative_kind() {
        assert_eq!(short_region_name("Anhui Sheng"), "Anhui");
        assert_eq!(short_region_name("Guangxi Zhuangzu Zizhiqu"), "Guangxi");
        assert_eq!(short_region_name("Chongqing Shi"), "Chongqing");
        assert_eq!(short_region_name("Gujarat"), "Gujarat");
        let v = Vocabulary::embedded();
        assert_eq!(
            v.first_level_region("Anhui").map(|r| r.name.as_str()),
            Some("Anhui Sheng")
        );
    }

    #[test]
    fn embedded_tables_parse_and_join() {
        let v = Vocabulary::embedded();
        assert!(v.countries.len() > 150, "{}", v.countries.len());
        assert!(v.cities.len() > 1000);
        assert!(v.first_names.len() > 500 && v.last_names.len() > 500);
        assert!(v.occupations.len() > 100);
        assert!(v.cities.iter().filter(|c| c.region.is_some()).count() > 10_000);
        let gujarat = v.first_level_region("gujarat").expect("Gujarat");
        assert_eq!(
            (gujarat.name.as_str(), gujarat.country.as_str()),
            ("Gujarat", "India")
        );
        assert_eq!(
            v.city("Ahmedabad").unwrap().region.as_deref(),
            Some("Gujarat")
        );
        assert_eq!(
            v.person_hypernyms("Singer").unwrap(),
            ["musician", "performer", "entertainer"]
        );
        let thames = v
            .named_senses("the river thames")
            .or(v.named_senses("Thames"));
        assert_eq!(
            thames.unwrap()[0],
            NamedSense {
                category: "object".into(),
                kinds: vec![
                    "a river".into(),
                    "a stream".into(),
                    "a body of water".into()
                ],
                part_of: Some("England".into()),
            }
        );
        assert!(v.is_religion("sunni islam"));
        assert!(v.is_common_word_place("Reading") && !v.is_common_word_place("Oslo"));
        assert!(
            v.is_company_suffix("gmbh")
                && v.is_company_suffix("S.A.")
                && !v.is_company_suffix("Oslo")
        );
        // Two person senses that share no telling hypernym: no chain.
        assert_eq!(v.person_hypernyms("minister"), None);
        for city in &v.cities {
            assert!(
                v.country(&city.country).is_some(),
                "{} has unknown country {}",
                city.name,
                city.country
            );
        }
    }

    #[test]
    fn looks_up_countries_and_demonyms() {
        let v = Vocabulary::embedded();
        let austria = v.country("AUSTRIA").unwrap();
        assert_eq!(austria.demonym.as_deref(), Some("Austrian"));
        // Shared demonyms stand for the most populous of their countries.
        for (demonym, country) in [
            ("American", "United States"),
            ("French", "France"),
            ("Chinese", "China"),
            ("Norwegian", "Norway"),
        ] {
            assert_eq!(v.country_of_demonym(demonym).unwrap().name, country);
        }
        assert!(v.city("Vienna").is_some());
    }

    #[test]
    fn a_city_name_another_countrys_city_of_half_its_size_shares_is_contested() {
        let v = Vocabulary::embedded();
        // Cambridge: England's, Ontario's and Massachusetts' are of a size.
        assert!(v.is_contested_city_name("Cambridge"));
        // London, Ontario has a twentieth of London's people; Manchester, New Hampshire a
        // third of Manchester's.
        assert!(!v.is_contested_city_name("London"));
        assert!(!v.is_contested_city_name("Manchester"));
        assert!(!v.is_contested_city_name("Vienna"));
    }

    #[test]
    fn finds_cities_by_alternate_names() {
        let v = Vocabulary::embedded();
        let munich = v.city("München").unwrap();
        assert_eq!(munich.name, "Munich");
        assert_eq!(v.city("MUNCHEN").unwrap().name, "Munich");
        // A main name wins over another city's alternate name.
        for city in &v.cities {
            assert_eq!(
                normalize_term(&v.city(&city.name).unwrap().name),
                normalize_term(&city.name)
            );
        }
    }
}
