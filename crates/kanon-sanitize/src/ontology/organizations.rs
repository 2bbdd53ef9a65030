//! Organisations: a listed one's kind (`kg/vocab/organizations.tsv`), or the kind its own name
//! states, placed where the name says (`University of Michigan` → `a university in the United
//! States` → `a university in Northern America` → `a university in the Americas` → `a
//! university`; `Republican Party` → `a political party`).

use kanon_kg::vocab::{Country, Vocabulary};

use super::places::climb;
use super::{Rung, RungSource};

/// A listed organisation's rungs: its kind, then `an organization`.
pub(super) fn listed(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let kind = match vocabulary.organization_kind(name)? {
        "party" => Some("a political party"),
        "company" => Some("a company"),
        "team" => Some("a sports team"),
        _ => None,
    };
    let texts = kind
        .into_iter()
        .map(str::to_owned)
        .chain(["an organization".to_owned()]);
    Some(Rung::all(RungSource::OrganizationList, texts))
}

/// The rungs an organisation's name gives: the kind its head word names, placed in the country of
/// a place the name holds.
pub(super) fn by_name(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let head = match words.iter().position(|w| *w == "of") {
        Some(of) if of > 0 => words[of - 1],
        _ => words.last()?,
    };
    let kind = kind_of(head)?;
    let texts = match place_in(vocabulary, &words) {
        Some(country) => climb(kind, country, true),
        None => vec![kind.to_owned()],
    };
    Some(Rung::all(RungSource::StatedKind, texts))
}

/// The kind an organisation's head word names, with its article: only words that say what the organisation is (`Union` may be a country, `Congress` a
/// party, so neither is here).
fn kind_of(head: &str) -> Option<&'static str> {
    let head = head
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    Some(match head.as_str() {
        "university" => "a university",
        "college" => "a college",
        "school" => "a school",
        "academy" => "an academy",
        "institute" => "an institute",
        "conservatory" | "conservatoire" => "a conservatory",
        "seminary" => "a seminary",
        "party" => "a political party",
        "club" => "a club",
        "league" => "a league",
        "federation" => "a federation",
        "association" => "an association",
        "society" => "a society",
        "foundation" => "a foundation",
        "committee" => "a committee",
        "commission" => "a commission",
        "council" => "a council",
        "agency" => "an agency",
        "assembly" => "an assembly",
        "parliament" => "a parliament",
        "senate" => "a senate",
        "court" => "a court",
        "ministry" => "a ministry",
        "government" => "a government",
        "department" => "a department",
        "army" => "an army",
        "navy" => "a navy",
        "police" => "a police force",
        "bank" => "a bank",
        "hospital" => "a hospital",
        "museum" => "a museum",
        "church" => "a church",
        "orchestra" => "an orchestra",
        "choir" => "a choir",
        "records" => "a record label",
        "radio" => "a radio broadcaster",
        "television" | "tv" => "a television broadcaster",
        "company" => "a company",
        "corporation" => "a corporation",
        _ => return None,
    })
}

/// The country of the first place the name's words hold (longest first at each position): a
/// country, a first-level region or a city.
fn place_in<'v>(vocabulary: &'v Vocabulary, words: &[&str]) -> Option<&'v Country> {
    for start in 0..words.len() {
        for len in (1..=3.min(words.len() - start)).rev() {
            let candidate = words[start..start + len].join(" ");
            let candidate = candidate.trim_matches(|c: char| !c.is_alphanumeric());
            if !candidate.starts_with(char::is_uppercase) || kind_of(candidate).is_some() {
                continue;
            }
            let country_name = if let Some(country) = vocabulary.country(candidate) {
                Some(country.name.as_str())
            } else if let Some(region) = vocabulary.first_level_region(candidate) {
                Some(region.country.as_str())
            } else {
                vocabulary.city(candidate).map(|city| city.country.as_str())
            };
            if let Some(country) = country_name.and_then(|name| vocabulary.country(name)) {
                return Some(country);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(name: &str) -> Vec<String> {
        by_name(Vocabulary::embedded(), name)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn a_name_states_its_kind_and_place() {
        assert_eq!(
            texts("University of Michigan"),
            [
                "a university in the United States",
                "a university in Northern America",
                "a university in the Americas",
                "a university"
            ]
        );
        assert_eq!(texts("University of Oslo")[0], "a university in Norway");
        assert_eq!(texts("Republican Party"), ["a political party"]);
        assert_eq!(
            texts("Tamil Nadu Legislative Assembly")[0],
            "an assembly in India"
        );
        assert_eq!(texts("CBC Radio"), ["a radio broadcaster"]);
        // No kind word: nothing, even with a place in the name.
        assert!(texts("Dallas Cowboys").is_empty());
        assert!(texts("Soviet Union").is_empty());
    }
}
