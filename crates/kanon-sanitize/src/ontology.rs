//! Generalizations climbed from kanon's own hierarchies, true by construction: a city to its
//! country and the country's sub-region and region (GeoNames and the UN M49 regions of kanon's
//! vocabularies: `Bergen` → `a city in Norway` → `a city in Northern Europe` → `a city in Europe`
//! → `a city`), a country to its sub-region and region, a demonym to its sub-region's and
//! region's adjectives, a listed organisation to its kind. Ambiguous names take the vocabulary's
//! reading (the most populous city of that name).

use kanon_core::EntityType;
use kanon_kg::vocab::{Country, Vocabulary};

/// The candidates the hierarchies give for a mention, most specific first (none when the mention
/// is in no hierarchy).
pub fn kg_candidates(entity_type: EntityType, surface: &str) -> Vec<String> {
    let vocabulary = Vocabulary::embedded();
    let surface = surface.trim();
    let surface = surface
        .strip_prefix("the ")
        .or_else(|| surface.strip_prefix("The "))
        .unwrap_or(surface);
    match entity_type {
        EntityType::Loc | EntityType::Misc | EntityType::Org => {
            if let Some(country) = vocabulary.country(surface) {
                return climb("a country", country, false);
            }
            if let Some(city) = vocabulary.city(surface)
                && let Some(country) = vocabulary.country(&city.country)
            {
                return climb("a city", country, true);
            }
            if entity_type != EntityType::Loc
                && let Some(kind) = vocabulary.organization_kind(surface)
            {
                let kind = match kind {
                    "party" => Some("a political party"),
                    "company" => Some("a company"),
                    "team" => Some("a sports team"),
                    _ => None,
                };
                return kind
                    .into_iter()
                    .map(str::to_owned)
                    .chain(["an organization".to_owned()])
                    .collect();
            }
            Vec::new()
        }
        EntityType::Dem => match vocabulary.country_of_demonym(surface) {
            Some(country) => [country.subregion.as_deref(), country.region.as_deref()]
                .into_iter()
                .flatten()
                .filter_map(adjective)
                .collect(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `a city in Norway`, `a city in Northern Europe`, `a city in Europe`, `a city`.
fn climb(what: &str, country: &Country, name_the_country: bool) -> Vec<String> {
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
fn place_name(name: &str) -> String {
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
fn adjective(area: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cities_countries_demonyms_and_organisations_climb() {
        assert_eq!(
            kg_candidates(EntityType::Loc, "Bergen"),
            [
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
            kg_candidates(EntityType::Dem, "Norwegian"),
            ["Northern European", "European"]
        );
        assert_eq!(
            kg_candidates(EntityType::Loc, "Lima"),
            [
                "a city in Peru",
                "a city in Latin America and the Caribbean",
                "a city in the Americas",
                "a city"
            ]
        );
        assert!(kg_candidates(EntityType::Loc, "Nowhereville").is_empty());
        assert!(kg_candidates(EntityType::Datetime, "Norway").is_empty());
    }
}
