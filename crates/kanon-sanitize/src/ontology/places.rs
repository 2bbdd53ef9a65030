//! Places: a city to its first-level region, its country and the country's UN M49 sub-region
//! and region (GeoNames and the M49 regions of kanon's vocabularies: `Ahmedabad` → `a city in
//! Gujarat` → `a city in India` → `a city in Southern Asia` → `a city in Asia` → `a city`); a
//! first-level region to its country (`Michigan` → `a state in the United States` → …); a country
//! to its sub-region and region; a demonym to its sub-region's and region's adjectives.
//! Ambiguous names take the vocabulary's reading (the most populous city of that name; a region
//! name two countries share gives nothing).

use kanon_kg::vocab::{Country, FirstLevelRegion, Vocabulary};

use super::{Rung, RungSource};

/// A country's rungs: `a country in Northern Europe`, `a country in Europe`, `a country`.
pub(super) fn country(country: &Country) -> Vec<Rung> {
    Rung::all(RungSource::UnM49, country_texts(country))
}

/// The texts of [`country`]'s rungs.
pub(super) fn country_texts(country: &Country) -> Vec<String> {
    climb("a country", country, false)
}

/// A city's rungs: its first-level region, its country, the country's sub-region and region.
pub(super) fn city(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let city = vocabulary.city(name)?;
    let country = vocabulary.country(&city.country)?;
    let mut rungs = Vec::new();
    if let Some(region) = &city.region {
        rungs.push(Rung::new(
            RungSource::GeoNames,
            format!("a city in {}", place_name(region)),
        ));
    }
    rungs.extend(Rung::all(
        RungSource::GeoNames,
        climb("a city", country, true),
    ));
    Some(rungs)
}

/// A town's rungs (`Caerphilly` → `a town in Wales` → `a town in the United Kingdom` → …):
/// what every town of that name shares, its region and country where they are one, else the
/// sub-region or region all their countries lie in (`Clarkston`, in Scotland and three US
/// states: `a town in Northern Europe or Northern America` is nothing, so only `a town`).
pub(super) fn town(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    // `US` is also a town in France: an abbreviation is read as none.
    let letters = name.chars().filter(|c| c.is_alphabetic()).count();
    if letters < 3 || name.chars().all(|c| !c.is_lowercase()) {
        return None;
    }
    let towns = vocabulary.towns(name);
    let first = towns.first()?;
    let countries: Vec<&Country> = towns
        .iter()
        .map(|town| vocabulary.country(&town.country))
        .collect::<Option<_>>()?;
    let mut rungs = Vec::new();
    if let Some(region) = &first.region
        && towns
            .iter()
            .all(|town| town.country == first.country && town.region.as_ref() == Some(region))
    {
        rungs.push(format!("a town in {}", place_name(region)));
    }
    rungs.extend(
        shared_areas(&countries)
            .iter()
            .map(|area| format!("a town in {}", place_name(area))),
    );
    rungs.push("a town".to_owned());
    Some(Rung::all(RungSource::GeoNames, rungs))
}

/// The rungs of the places that contain a city, a first-level region or a town, as the KG
/// attacker reads whom a rung stands for: a city's or a town's first-level region's rungs and
/// its country's; a region's country's. Someone the KG places in Louisville was born in a state
/// of the United States, so `a state in the United States` stands for them as much as for
/// someone it places in Kentucky. Only a name read as one place has them: `None` for a name
/// that is both a city and a region elsewhere, a qualified or a self-describing name, and towns
/// of one name in several regions (their country, where they share it). A country is its
/// caller's to read ([`super::containing_rungs`]: its demonym's adjectives).
pub(super) fn containing(vocabulary: &Vocabulary, name: &str) -> Option<Vec<String>> {
    if name.contains(", ") || city_or_region(vocabulary, name).is_some() {
        return None;
    }
    let region_rungs = |region: &str, country: &Country| -> Vec<String> {
        vocabulary
            .first_level_region(region)
            .filter(|found| found.country == country.name)
            .and_then(|found| region_texts(found, country))
            .unwrap_or_default()
    };
    if let Some(city) = vocabulary.city(name) {
        let country = vocabulary.country(&city.country)?;
        let mut rungs = city
            .region
            .as_deref()
            .map(|region| region_rungs(region, country))
            .unwrap_or_default();
        rungs.extend(country_texts(country));
        return Some(rungs);
    }
    if let Some(region) = vocabulary.first_level_region(name) {
        return Some(country_texts(vocabulary.country(&region.country)?));
    }
    let towns = vocabulary.towns(name);
    let first = towns.first()?;
    if towns.iter().any(|town| town.country != first.country) {
        return None;
    }
    let country = vocabulary.country(&first.country)?;
    let mut rungs = match &first.region {
        Some(region)
            if towns
                .iter()
                .all(|town| town.region.as_ref() == Some(region)) =>
        {
            region_rungs(region, country)
        }
        _ => Vec::new(),
    };
    rungs.extend(country_texts(country));
    Some(rungs)
}

/// A first-level region's rungs: `a state in India`, `a state in Southern Asia`, …, named by the
/// word its country uses for its first-level divisions.
pub(super) fn first_level_region(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let region: &FirstLevelRegion = vocabulary.first_level_region(name)?;
    let country = vocabulary.country(&region.country)?;
    Some(Rung::all(
        RungSource::GeoNames,
        region_texts(region, country)?,
    ))
}

/// The texts of a region's rungs in its `country`, named by the word the country uses for its
/// first-level divisions; none where no one word is true of all of them.
fn region_texts(region: &FirstLevelRegion, country: &Country) -> Option<Vec<String>> {
    let kind = first_level_kind(&country.name, &region.name)?;
    Some(climb(kind, country, true))
}

/// A demonym's rungs: the adjectives of its country's sub-region and region.
pub(super) fn demonym(vocabulary: &Vocabulary, demonym: &str) -> Option<Vec<Rung>> {
    let country = vocabulary.country_of_demonym(demonym)?;
    Some(Rung::all(RungSource::UnM49, area_adjectives(country)))
}

/// The adjectives of a country's sub-region and region: `Northern European`, `European`.
pub(super) fn area_adjectives(country: &Country) -> Vec<String> {
    [country.subregion.as_deref(), country.region.as_deref()]
        .into_iter()
        .flatten()
        .filter_map(adjective)
        .collect()
}

/// `Austin, Texas`, `Berlin, Germany`, `Jefferson County, Kentucky`: a place qualified by its
/// first-level region or country. A city the vocabulary places there climbs as that city; any
/// other head is `a place` (or the kind its name states: `a county`) in the qualifier, and up
/// from it. None when the qualifier is no region or country.
pub(super) fn qualified(vocabulary: &Vocabulary, head: &str, qualifier: &str) -> Option<Vec<Rung>> {
    let qualifier = qualifier.trim();
    let (country, region) = match vocabulary.country(qualifier) {
        Some(country) => (country, None),
        None => {
            let region = vocabulary.first_level_region(qualifier)?;
            (vocabulary.country(&region.country)?, Some(region))
        }
    };
    if let Some(city) = vocabulary.city(head.trim()).filter(|city| {
        city.country == country.name
            && region.is_none_or(|region| city.region.as_deref() == Some(region.name.as_str()))
    }) {
        return self::city(vocabulary, &city.name);
    }
    let what = stated_kind(head).unwrap_or("a place");
    let mut rungs = Vec::new();
    if let Some(region) = region {
        rungs.push(format!("{what} in {}", place_name(&region.name)));
    }
    rungs.extend(climb(what, country, true));
    Some(Rung::all(RungSource::GeoNames, rungs))
}

/// A name that is both a city and a first-level region the city is not in (`Ontario`, a
/// province of Canada and a city in California; `St. Petersburg`, a city in Florida and
/// Russia's federal city): only what both readings share, as `a place in …`. A city inside the
/// region of its name (`Quebec`, `Lima`) keeps the city's reading, as the vocabulary's.
pub(super) fn city_or_region(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let city = vocabulary.city(name)?;
    // Its vocabulary gives a city no region where the region has the city's name (`Lima`).
    let region = vocabulary.first_level_region(name).filter(|region| {
        !(region.country == city.country
            && city
                .region
                .as_deref()
                .is_none_or(|inside| inside == region.name))
    })?;
    let city_country = vocabulary.country(&city.country)?;
    let region_country = vocabulary.country(&region.country)?;
    let mut rungs: Vec<String> = shared_areas(&[region_country, city_country])
        .iter()
        .map(|area| format!("a place in {}", place_name(area)))
        .collect();
    rungs.push("a place".to_owned());
    Some(Rung::all(RungSource::GeoNames, rungs))
}

/// The country, sub-region and region (most specific first, each once) that every one of
/// `countries` lies in: all three for one country, `Northern America` and `Americas` for the
/// United States and Canada.
fn shared_areas(countries: &[&Country]) -> Vec<String> {
    let areas = |country: &Country| -> Vec<String> {
        let mut areas: Vec<String> = Vec::new();
        for area in [
            Some(&country.name),
            country.subregion.as_ref(),
            country.region.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            if !areas.contains(area) {
                areas.push(area.clone());
            }
        }
        areas
    };
    let Some((first, rest)) = countries.split_first() else {
        return Vec::new();
    };
    let others: Vec<Vec<String>> = rest.iter().map(|country| areas(country)).collect();
    areas(first)
        .into_iter()
        .filter(|area| others.iter().all(|of| of.contains(area)))
        .collect()
}

/// A first-level region written after its kind (`the state of Michigan`, `the U.S. state of
/// Michigan`, `the province of Ontario`): the region's own rungs. The words before the kind, if
/// any, must name the region's country.
pub(super) fn division_named(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let lower = name.to_lowercase();
    let (at, kind) = ["state of ", "province of ", "region of "]
        .iter()
        .find_map(|kind| lower.find(kind).map(|at| (at, kind.len())))?;
    let region_name = name.get(at + kind..)?.trim();
    let region = vocabulary.first_level_region(region_name)?;
    let before = name.get(..at)?.trim();
    let before = before
        .strip_prefix("the ")
        .or_else(|| before.strip_prefix("The "))
        .unwrap_or(before)
        .trim();
    // `U.S.`, `UK`: a country's initials.
    let initials: String = region
        .country
        .split_whitespace()
        .filter(|word| !["of", "the", "and"].contains(word))
        .filter_map(|word| word.chars().next())
        .collect();
    let country_named = before.is_empty()
        || vocabulary
            .country(before)
            .or_else(|| vocabulary.country_of_demonym(before))
            .is_some_and(|country| country.name == region.country)
        || initials.len() >= 2 && before.replace('.', "") == initials;
    if !country_named {
        return None;
    }
    first_level_region(vocabulary, &region.name)
}

/// The kind of division a place's own name states: `Jefferson County` → `a county`, `Lagos
/// State` → `a state`, `County Kerry` → `a county`.
pub(super) fn stated_kind(name: &str) -> Option<&'static str> {
    const KINDS: &[(&str, &str)] = &[
        ("county", "a county"),
        ("province", "a province"),
        ("district", "a district"),
        ("state", "a state"),
        ("prefecture", "a prefecture"),
        ("borough", "a borough"),
        ("township", "a township"),
        ("parish", "a parish"),
        ("municipality", "a municipality"),
        ("oblast", "an oblast"),
        ("governorate", "a governorate"),
        ("canton", "a canton"),
        ("constituency", "a constituency"),
        ("region", "a region"),
        ("area", "an area"),
        ("bay", "a bay"),
        ("valley", "a valley"),
        ("cemetery", "a cemetery"),
        ("cantonment", "a cantonment"),
        ("stadium", "a stadium"),
        ("airport", "an airport"),
        ("island", "an island"),
        ("river", "a river"),
    ];
    let words: Vec<String> = name
        .split_whitespace()
        .map(|word| word.to_lowercase())
        .collect();
    if words.len() < 2 {
        return None;
    }
    let (first, last) = (words.first()?, words.last()?);
    KINDS
        .iter()
        .find(|(word, _)| last == word || (first == word && *word == "county"))
        .map(|(_, kind)| *kind)
}

/// What a country calls its first-level divisions (`a state`, `a province`), where every one of
/// them is such (Germany's city-states are states; the United States' capital district is not, and
/// has no rung); `a region` elsewhere.
fn first_level_kind(country: &str, region: &str) -> Option<&'static str> {
    Some(match country {
        "United States" if region.contains("D.C.") || region.contains("Columbia") => return None,
        "United States" | "Germany" | "Austria" => "a state",
        "India" => "a state or union territory",
        "Australia" => "a state or territory",
        "Canada" => "a province or territory",
        "Netherlands" | "Turkey" | "Iran" | "Cuba" | "Afghanistan" | "Zambia" | "Zimbabwe"
        | "Sri Lanka" | "South Africa" | "Ireland" => "a province",
        "Norway" | "Sweden" | "Estonia" | "Lithuania" => "a county",
        "Japan" => "a prefecture",
        "Switzerland" => "a canton",
        _ => "a region",
    })
}

/// `a city in Norway`, `a city in Northern Europe`, `a city in Europe`, `a city`.
pub(super) fn climb(what: &str, country: &Country, name_the_country: bool) -> Vec<String> {
    let mut rungs = Vec::new();
    if name_the_country {
        rungs.push(format!("{what} in {}", place_name(&country.name)));
    }
    for area in [country.subregion.as_deref(), country.region.as_deref()]
        .into_iter()
        .flatten()
    {
        let rung = format!("{what} in {}", place_name(area));
        if !rungs.contains(&rung) {
            rungs.push(rung);
        }
    }
    rungs.push(what.to_owned());
    rungs
}

/// A place name as it reads after `in`: `the Americas`, `the United States`.
pub(super) fn place_name(name: &str) -> String {
    let name = kanon_kg::vocab::short_region_name(name);
    const WITH_THE: &[&str] = &[
        "Americas",
        "Caribbean",
        "United ",
        "Netherlands",
        "Philippines",
    ];
    if WITH_THE.iter().any(|prefix| name.starts_with(prefix))
        || name.contains(" Republic")
        || name.contains("Islands")
    {
        format!("the {name}")
    } else {
        name.to_owned()
    }
}

/// The adjective of a sub-region or region: `Northern Europe` → `Northern European`.
pub(super) fn adjective(area: &str) -> Option<String> {
    let special = match area {
        "Americas" => return None,
        "Latin America and the Caribbean" => Some("Latin American or Caribbean"),
        "Australia and New Zealand" => Some("Australasian"),
        "Oceania" => Some("Oceanian"),
        _ => None,
    };
    if let Some(special) = special {
        return Some(special.to_owned());
    }
    let (head, last) = match area.rsplit_once(' ') {
        Some((head, last)) => (Some(head), last),
        None => (None, area),
    };
    let last = match last {
        "Europe" => "European",
        "Asia" => "Asian",
        "Africa" => "African",
        "America" => "American",
        "Polynesia" => "Polynesian",
        "Micronesia" => "Micronesian",
        "Melanesia" => "Melanesian",
        _ => return None,
    };
    Some(match head {
        Some(head) => format!("{head} {last}"),
        None => last.to_owned(),
    })
}
