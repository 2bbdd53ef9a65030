//! Organisations: a listed one's kind (`kg/vocab/organizations.tsv`), or the kind its own name
//! states, placed where the name says (`University of Michigan` → `a university in the United
//! States` → `a university in Northern America` → `a university in the Americas` → `a
//! university`; `Republican Party` → `a political party`).

use kanon_kg::vocab::{Country, Vocabulary};

use super::places::{climb, place_name};
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

/// The rungs an organisation's name gives: the kind it states (its head word, a legal form, or a
/// phrase such as `house of commons`), placed in the country of the places the name holds, then
/// what that kind of organisation is (`a bank` → `a financial institution`). Case plays no part:
/// `university of oslo` reads as `University of Oslo` does.
pub(super) fn by_name(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    if let Some(rungs) = firm_or_station(name) {
        return Some(rungs);
    }
    let words: Vec<String> = kanon_core::text::words(name);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (kind, head) = stated_kind(vocabulary, &words)?;
    if kind.needs_a_place && !place_before(vocabulary, &words, &head) {
        return None;
    }
    let mut texts = Vec::new();
    let rest: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, _)| !head.contains(i))
        .map(|(_, word)| *word)
        .collect();
    let place = kind.placed.then(|| place_in(vocabulary, &rest)).flatten();
    match place {
        Some(Place {
            country,
            region: Some(region),
        }) => {
            texts.push(format!("{} in {}", kind.kind, place_name(&region)));
            texts.extend(climb(kind.kind, country, true));
        }
        Some(Place {
            country,
            region: None,
        }) => texts.extend(climb(kind.kind, country, true)),
        None => texts.push(kind.kind.to_owned()),
    }
    texts.extend(kind.parents.iter().map(|parent| (*parent).to_owned()));
    Some(Rung::all(RungSource::StatedKind, texts))
}

/// A family firm (`Harlow & Sons`, `Vik & Co.`) or a broadcaster's numbered radio station
/// (`NRK Radio 3`, `Radio 1`): what the name's form, not its head word, states.
fn firm_or_station(name: &str) -> Option<Vec<Rung>> {
    let trimmed = name.trim().trim_end_matches('.');
    let firm = ["& son", "& sons", "and sons", "& co", "and co", "& company"]
        .iter()
        .any(|ending| {
            trimmed.len() > ending.len()
                && trimmed
                    .get(trimmed.len() - ending.len()..)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(ending))
        });
    if firm {
        return Some(vec![Rung::new(RungSource::StatedKind, "a company")]);
    }
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let station = words
        .windows(2)
        .any(|pair| pair[0] == "Radio" && pair[1].chars().all(|c| c.is_ascii_digit()));
    station.then(|| {
        Rung::all(
            RungSource::StatedKind,
            ["a radio station".to_owned(), "a broadcaster".to_owned()],
        )
    })
}

/// [`by_name`] for a miscellany: a title may borrow an organisation's kind (a film called `The
/// Club`), so only a name that also holds a place states it (`Guelph Sports Hall of Fame`, `LXI
/// Legislature of the Mexican Congress`), or one that names a league or a hall of fame, which
/// annotators often mark as a miscellany and few works are titled as (`the St. Lawrence
/// League`).
pub(super) fn miscellany_by_name(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let rungs = by_name(vocabulary, name)?;
    let placed = rungs.first()?.text.contains(" in ");
    (placed || names_a_league_or_hall_of_fame(name, &rungs)).then_some(rungs)
}

/// Whether `rungs`, `name`'s, climb to a league or a hall of fame, and `name` says more than the
/// kind (`The League` is a title, no league).
fn names_a_league_or_hall_of_fame(name: &str, rungs: &[Rung]) -> bool {
    let lower = name.trim().to_lowercase();
    let kind_alone = lower.strip_prefix("the ").unwrap_or(&lower);
    !["league", "hall of fame"].contains(&kind_alone)
        && rungs
            .last()
            .is_some_and(|top| top.text == "a league" || top.text == "a hall of fame")
}

/// A North American broadcaster's call sign with its band (`KABC-AM`, `WXYZ-TV`): the letters a
/// licence gives a station, `K` or `W` and two or three more, then the band.
pub(super) fn call_sign(name: &str) -> Option<Vec<Rung>> {
    let (letters, band) = name.trim().split_once('-')?;
    let licensed = (3..=4).contains(&letters.len())
        && letters.starts_with(['K', 'W'])
        && letters.chars().all(|c| c.is_ascii_uppercase());
    let kind = match band {
        "AM" | "FM" => "a radio station",
        "TV" | "DT" => "a television station",
        _ => return None,
    };
    licensed.then(|| {
        Rung::all(
            RungSource::StatedKind,
            [kind.to_owned(), "a broadcaster".to_owned()],
        )
    })
}

/// A kind of organisation a name can state, and what that kind is.
struct Kind {
    /// `a university`.
    kind: &'static str,
    /// Less specific kinds, nearest first: `an educational institution`.
    parents: &'static [&'static str],
    /// Whether the name states it only after a place (`Manchester United`: a club; `Americans
    /// United`, an advocacy group, names no place).
    needs_a_place: bool,
    /// Whether a place in the name says where it is: an order is named for a saint or a patron
    /// as often as for a place (`Order of Santiago`, for Saint James).
    placed: bool,
}

const fn kind(kind: &'static str, parents: &'static [&'static str]) -> Kind {
    Kind {
        kind,
        parents,
        needs_a_place: false,
        placed: true,
    }
}

const EDUCATION: &[&str] = &["an educational institution"];
const GOVERNMENT: &[&str] = &["a government body"];
const LEGISLATURE: &[&str] = &["a legislature"];
const JUDICIARY: &[&str] = &["a judicial body"];
const COMPANY: &[&str] = &["a company"];
const PUBLICATION: &[&str] = &["a publication"];
const ELECTORAL_DISTRICT: &[&str] = &["an electoral district"];
const FOOTBALL_CLUB: Kind = Kind {
    kind: "a football club",
    parents: &["a sports club"],
    needs_a_place: true,
    placed: true,
};

/// The kind a name states, and the positions of the words that state it. Checked in turn: a
/// phrase naming a body (`house of commons`, `air force`), a company's legal form at the end
/// (`GmbH`, `S.A.`; not forms that are English words or associations: `Group`, `e.V.`), then the
/// head word: the last word before `of`, `for`, `on`, `at` or `in`, else the last word.
fn stated_kind(vocabulary: &Vocabulary, words: &[&str]) -> Option<(Kind, Vec<usize>)> {
    const PHRASES: &[(&[&str], Kind)] = &[
        (
            &["house", "of", "commons"],
            kind("a legislative chamber", LEGISLATURE),
        ),
        (
            &["house", "of", "lords"],
            kind("a legislative chamber", LEGISLATURE),
        ),
        (
            &["house", "of", "representatives"],
            kind("a legislative chamber", LEGISLATURE),
        ),
        (
            &["house", "of", "delegates"],
            kind("a legislative chamber", LEGISLATURE),
        ),
        (
            &["chamber", "of", "deputies"],
            kind("a legislative chamber", LEGISLATURE),
        ),
        (
            &["chamber", "of", "commerce"],
            kind("a chamber of commerce", &[]),
        ),
        (
            &["legislative", "assembly"],
            kind("a legislative assembly", LEGISLATURE),
        ),
        (
            &["national", "assembly"],
            kind("a national assembly", LEGISLATURE),
        ),
        (
            &["air", "force"],
            kind("an air force", &["a military branch"]),
        ),
        (&["stock", "exchange"], kind("a stock exchange", &[])),
        (&["broadcasting", "corporation"], kind("a broadcaster", &[])),
        (&["broadcasting", "company"], kind("a broadcaster", &[])),
        (&["record", "label"], kind("a record label", COMPANY)),
        (&["football", "club"], FOOTBALL_CLUB),
        (&["hall", "of", "fame"], kind("a hall of fame", &[])),
        (
            &["electoral", "district"],
            kind("an electoral district", &[]),
        ),
        (
            &["congressional", "district"],
            kind("a congressional district", ELECTORAL_DISTRICT),
        ),
        (
            &["peace", "keeping", "force"],
            kind("a peacekeeping force", &["an armed force"]),
        ),
        (
            &["peacekeeping", "force"],
            kind("a peacekeeping force", &["an armed force"]),
        ),
        (
            &["naval", "reserve"],
            kind("a naval reserve", &["a military branch"]),
        ),
        (
            &["general", "staff"],
            kind("a general staff", &["a military command"]),
        ),
        (&["defense", "forces"], kind("an armed force", &[])),
        (&["defence", "forces"], kind("an armed force", &[])),
        (&["armed", "forces"], kind("an armed force", &[])),
        (
            &["public", "prosecutor"],
            kind("a prosecution service", GOVERNMENT),
        ),
    ];
    for (phrase, kind) in PHRASES {
        if let Some(at) = words
            .windows(phrase.len())
            .position(|window| window == *phrase)
        {
            return Some((clone(kind), (at..at + phrase.len()).collect()));
        }
    }
    for len in (1..=4.min(words.len().saturating_sub(1))).rev() {
        let tail = words[words.len() - len..].join(" ");
        if vocabulary.is_company_suffix(&tail) && !NOT_LEGAL_FORMS.contains(&tail.as_str()) {
            return Some((
                kind("a company", &[]),
                (words.len() - len..words.len()).collect(),
            ));
        }
    }
    // A club's abbreviation before the place it is from (`FC Magdeburg`, `1. FC Köln`).
    let first = usize::from(words.len() > 2 && words[0].parse::<u32>().is_ok());
    if words.len() > first + 1 && CLUB_PREFIXES.contains(&words[first]) {
        // The place follows: checked here, not before the head.
        let club = Kind {
            needs_a_place: false,
            ..clone(&FOOTBALL_CLUB)
        };
        return place_in(vocabulary, &words[first + 1..])
            .is_some()
            .then_some((club, vec![first]));
    }
    let cut = words
        .iter()
        .position(|w| matches!(*w, "of" | "for" | "on" | "at" | "in"));
    let at = match cut {
        Some(0) => return None,
        Some(cut) => cut - 1,
        None => words.len().checked_sub(1)?,
    };
    // `the state of Wei`: a polity, where `Ohio State` is a university.
    if cut == Some(at + 1) && words[at] == "state" {
        return Some((kind("a state", &[]), vec![at]));
    }
    // A one-word name is its own head only where that word is a kind (`Parliament`), never a
    // club's (`United`) or an abbreviation (`RFC` is also the Royal Flying Corps).
    let kind = head_kind(words[at])?;
    if (kind.needs_a_place || ABBREVIATED_KINDS.contains(&words[at])) && words.len() < 2 {
        return None;
    }
    Some((kind, vec![at]))
}

/// Abbreviations of a football club written before its place.
const CLUB_PREFIXES: &[&str] = &["fc", "afc", "cf"];

/// Head words that abbreviate a kind, and so name it only after another word.
const ABBREVIATED_KINDS: &[&str] = &["rfc", "fc", "afc", "cf"];

/// Legal forms in the suffix table that are English words, abbreviations of other things or
/// associations rather than companies: a name ending in them states no company.
const NOT_LEGAL_FORMS: &[&str] = &[
    "group", "groep", "gruppen", "as", "ad", "me", "et", "ba", "ra", "ep", "con", "loc", "url",
    "epic", "san", "ei", "sd", "tic", "og", "ry", "e v", "e g", "ky", "osk", "tmi", "pfa", "ca",
];

fn clone(kind: &Kind) -> Kind {
    Kind { ..*kind }
}

/// The kind a head word names (lower-cased): only words that say what the organisation is
/// (`Union` may be a country, `Congress` a party or a legislature, `Brothers` a band or a bank,
/// so none of them is here). The kind words and their parents are general knowledge.
fn head_kind(head: &str) -> Option<Kind> {
    Some(match head {
        "university" | "universities" => kind("a university", EDUCATION),
        "college" => kind("a college", EDUCATION),
        "school" => kind("a school", EDUCATION),
        "polytechnic" => kind("a polytechnic", EDUCATION),
        "conservatory" | "conservatoire" => kind("a conservatory", EDUCATION),
        "seminary" => kind("a seminary", EDUCATION),
        "academy" => kind("an academy", &[]),
        "institute" => kind("an institute", &[]),
        "laboratory" | "laboratories" => kind("a laboratory", &[]),
        "observatory" => kind("an observatory", &[]),
        "party" => kind("a political party", &[]),
        "club" => kind("a club", &[]),
        "league" => kind("a league", &[]),
        "federation" => kind("a federation", &[]),
        "association" => kind("an association", &[]),
        "society" => kind("a society", &[]),
        "foundation" => kind("a foundation", &[]),
        "fund" => kind("a fund", &[]),
        "trust" => kind("a trust", &[]),
        "committee" => kind("a committee", &[]),
        "commission" => kind("a commission", &[]),
        "council" => kind("a council", &[]),
        "movement" => kind("a movement", &[]),
        "alliance" => kind("an alliance", &[]),
        "coalition" => kind("a coalition", &[]),
        "agency" => kind("an agency", &[]),
        "bureau" => kind("a bureau", &[]),
        "office" => kind("an office", &[]),
        "directorate" => kind("a directorate", GOVERNMENT),
        "inspectorate" => kind("an inspectorate", GOVERNMENT),
        "authority" => kind("an authority", &[]),
        "ministry" => kind("a ministry", GOVERNMENT),
        "government" => kind("a government", &[]),
        "cabinet" => kind("a cabinet", GOVERNMENT),
        "department" => kind("a department", &[]),
        "municipality" => kind("a municipality", &[]),
        "assembly" => kind("an assembly", &[]),
        "parliament" => kind("a parliament", LEGISLATURE),
        "legislature" => kind("a legislature", &[]),
        "senate" => kind("a senate", LEGISLATURE),
        "court" => kind("a court", JUDICIARY),
        "tribunal" => kind("a tribunal", JUDICIARY),
        "prosecutor's" => kind("a prosecution service", GOVERNMENT),
        "army" => kind("an army", &[]),
        "navy" => kind("a navy", &["a military branch"]),
        "regiment" | "battalion" => kind("a military unit", &[]),
        // Regiments named for their arm (`Royal Welch Fusiliers`, `Gurkha Rifles`).
        "rifles" | "fusiliers" | "hussars" | "lancers" | "dragoons" => {
            kind("a regiment", &["a military unit"])
        }
        "police" => kind("a police force", &[]),
        "gendarmerie" => kind("a gendarmerie", &[]),
        "prison" => kind("a prison", &[]),
        "bank" => kind("a bank", &["a financial institution"]),
        "hospital" => kind("a hospital", &[]),
        "clinic" => kind("a clinic", &[]),
        "museum" => kind("a museum", &[]),
        "gallery" => kind("a gallery", &[]),
        "library" => kind("a library", &[]),
        "theatre" | "theater" => kind("a theatre", &[]),
        "church" => kind("a church", &[]),
        "diocese" | "archdiocese" => kind("a diocese", &[]),
        "orchestra" | "philharmonic" => kind("an orchestra", &["a musical ensemble"]),
        "choir" => kind("a choir", &["a musical ensemble"]),
        "band" => kind("a band", &["a musical ensemble"]),
        "ballet" => kind("a ballet company", &[]),
        "records" => kind("a record label", COMPANY),
        "radio" => kind("a radio broadcaster", &[]),
        "television" | "tv" => kind("a television broadcaster", &[]),
        "news" => kind("a news organization", &[]),
        "times" | "herald" | "tribune" | "gazette" | "chronicle" | "telegraph" | "courier"
        | "post" | "guardian" | "observer" => kind("a newspaper", PUBLICATION),
        "magazine" => kind("a magazine", PUBLICATION),
        "journal" | "review" => kind("a periodical", PUBLICATION),
        "press" | "publishing" | "publishers" | "books" => kind("a publisher", &[]),
        "pictures" | "studios" => kind("a film studio", COMPANY),
        "productions" => kind("a production company", COMPANY),
        "entertainment" => kind("an entertainment company", COMPANY),
        "comics" => kind("a comic book publisher", &["a publisher"]),
        "company" | "corporation" | "corp" | "inc" | "incorporated" | "limited" | "ltd" | "plc"
        | "llc" => kind("a company", &[]),
        "industries" | "enterprises" => kind("a company", &[]),
        "holdings" => kind("a holding company", COMPANY),
        "airlines" | "airline" | "airways" => kind("an airline", COMPANY),
        "motors" => kind("a vehicle manufacturer", COMPANY),
        "pharmaceuticals" => kind("a pharmaceutical company", COMPANY),
        "railway" | "railways" | "railroad" => kind("a railway", &[]),
        "team" => kind("a team", &[]),
        "rfc" => kind("a rugby club", &["a sports club"]),
        "constituency" => kind("a constituency", ELECTORAL_DISTRICT),
        "district" => kind("a district", &[]),
        "board" => kind("a board", &[]),
        "guild" => kind("a guild", &[]),
        "organization" | "organisation" => kind("an organization", &[]),
        "clan" => kind("a clan", &[]),
        "kingdom" => kind("a kingdom", &[]),
        "empire" => kind("an empire", &[]),
        "duchy" => kind("a duchy", &[]),
        "sultanate" => kind("a sultanate", &[]),
        "dynasty" => kind("a dynasty", &[]),
        "corps" => kind("a corps", &[]),
        "command" | "commandership" => kind("a military command", &[]),
        // Parts of a body: `Ninth Chamber of the … Court`, `Faculty of Medicine of …`.
        "chamber" => kind("a chamber", &[]),
        "division" => kind("a division", &[]),
        "section" => kind("a section", &[]),
        "faculty" => kind("a faculty", EDUCATION),
        "borough" => kind("a borough", &[]),
        "consulate" => kind("a consulate", &["a diplomatic mission"]),
        "embassy" => kind("an embassy", &["a diplomatic mission"]),
        "hotel" => kind("a hotel", &[]),
        "port" => kind("a port", &[]),
        // Orders of chivalry and religious orders (`Order of the Garter`, `Dominican Order`).
        "order" => Kind {
            placed: false,
            ..kind("an order", &[])
        },
        "gym" => kind("a gym", &[]),
        "raceway" | "racecourse" | "racetrack" => kind("a racetrack", &[]),
        "centre" => kind("a centre", &[]),
        "center" => kind("a center", &[]),
        "fc" | "afc" | "cf" | "united" | "city" | "rovers" | "wanderers" | "albion" | "hotspur" => {
            FOOTBALL_CLUB
        }
        _ => return None,
    })
}

/// Whether a place stands right before the head (`Manchester United`), for kinds that need one.
fn place_before(vocabulary: &Vocabulary, words: &[&str], head: &[usize]) -> bool {
    let Some(&first) = head.first() else {
        return false;
    };
    // The whole name is a place itself (`Kansas City`, `Mexico City`): no club.
    let name = words.join(" ");
    if vocabulary.city(&name).is_some() || vocabulary.first_level_region(&name).is_some() {
        return false;
    }
    (1..=3.min(first)).any(|len| {
        let from = first - len;
        let before = &words[from..first];
        !follows_a_name_opener(words, from) && place_in(vocabulary, before).is_some()
    })
}

/// Where a name's places are: their one country, and the first-level region where one is named.
struct Place<'v> {
    country: &'v Country,
    region: Option<String>,
}

/// Words that open a place's name of two words (`St. Lawrence`, `Port Talbot`, `North
/// Grenville`): the word after one is not a city of its own name.
const NAME_OPENERS: &[&str] = &[
    "st", "saint", "ste", "sainte", "san", "santa", "fort", "mount", "port", "lake", "new",
    "north", "south", "east", "west", "upper", "lower", "great", "little", "old",
];

/// Whether the word at `at` follows one of the [`NAME_OPENERS`].
fn follows_a_name_opener(words: &[&str], at: usize) -> bool {
    at.checked_sub(1)
        .is_some_and(|before| NAME_OPENERS.contains(&words[before]))
}

/// The country of the places the name's words hold (longest first at each position): countries,
/// their demonyms, first-level regions and cities. None when they disagree (`Victoria University
/// of Wellington`: a Victoria elsewhere and Wellington). A one-word place that is also a common
/// word (`Reading`, `Independence`) and a city name cities of two countries share (`Port of
/// Waterford`: Ireland's or Michigan's) are passed over: which the name means is not sure.
fn place_in<'v>(vocabulary: &'v Vocabulary, words: &[&str]) -> Option<Place<'v>> {
    let mut found: Option<Place<'v>> = None;
    let mut start = 0;
    while start < words.len() {
        let mut matched = 0;
        for len in (1..=3.min(words.len() - start)).rev() {
            let span = &words[start..start + len];
            if span
                .iter()
                .any(|w| FUNCTION_WORDS.contains(w) || head_kind(w).is_some())
            {
                continue;
            }
            let candidate = span.join(" ");
            if len == 1 && vocabulary.is_common_word_place(&candidate) {
                continue;
            }
            // `St. Lawrence League` names no Lawrence, nor `North Grenville` a Grenville.
            let in_a_longer_name = follows_a_name_opener(words, start);
            let (country_name, region) = if let Some(country) = vocabulary.country(&candidate) {
                (country.name.as_str(), None)
            } else if let Some(country) = vocabulary.country_of_demonym(&candidate) {
                (country.name.as_str(), None)
            } else if let Some(region) = vocabulary.first_level_region(&candidate) {
                (region.country.as_str(), Some(region.name.clone()))
            } else if let Some(city) = vocabulary
                .city(&candidate)
                .filter(|_| !in_a_longer_name && !vocabulary.is_contested_city_name(&candidate))
            {
                (city.country.as_str(), None)
            } else {
                continue;
            };
            let country = vocabulary.country(country_name)?;
            match &mut found {
                Some(place) if place.country.name != country.name => return None,
                Some(place) => place.region = place.region.take().or(region),
                None => found = Some(Place { country, region }),
            }
            matched = len;
            break;
        }
        start += matched.max(1);
    }
    found
}

const FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "for", "on", "at", "in", "de", "la", "le",
];

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
                "a university in Michigan",
                "a university in the United States",
                "a university in Northern America",
                "a university in the Americas",
                "a university",
                "an educational institution"
            ]
        );
        assert_eq!(texts("University of Oslo")[0], "a university in Norway");
        // Case plays no part.
        assert_eq!(texts("university of oslo"), texts("University of Oslo"));
        assert_eq!(texts("Republican Party"), ["a political party"]);
        assert_eq!(
            texts("Tamil Nadu Legislative Assembly")[..2],
            [
                "a legislative assembly in Tamil Nadu",
                "a legislative assembly in India"
            ]
        );
        assert_eq!(texts("CBC Radio"), ["a radio broadcaster"]);
        assert_eq!(
            texts("Norwegian Labour Party")[0],
            "a political party in Norway"
        );
        assert_eq!(texts("Bank of England")[0], "a bank in England");
        assert_eq!(
            texts("the House of Commons"),
            ["a legislative chamber", "a legislature"]
        );
        // No kind word: nothing, even with a place in the name.
        assert!(texts("Dallas Cowboys").is_empty());
        assert!(texts("Soviet Union").is_empty());
    }

    #[test]
    fn regiments_orders_ports_and_companies_of_comics_and_entertainment() {
        assert_eq!(
            texts("3rd Zorvian Fusiliers"),
            ["a regiment", "a military unit"]
        );
        assert_eq!(texts("Order of the Silver Stag"), ["an order"]);
        assert_eq!(texts("Order of Trondheim"), ["an order"]);
        assert_eq!(texts("Harlow & Sons"), ["a company"]);
        assert_eq!(texts("Vik & Co."), ["a company"]);
        assert_eq!(texts("ZBC Radio 7"), ["a radio station", "a broadcaster"]);
        assert_eq!(texts("state of Zorvia"), ["a state"]);
        assert!(texts("Zorvia State").is_empty());
        assert_eq!(texts("Kingdom of Zorvia"), ["a kingdom"]);
        assert_eq!(
            texts("Third Chamber of the Oslo Court")[0],
            "a chamber in Norway"
        );
        assert_eq!(
            texts("Ruritanian Consulate"),
            ["a consulate", "a diplomatic mission"]
        );
        assert_eq!(
            texts("Ruritanian General Staff"),
            ["a general staff", "a military command"]
        );
        // Cambridge is England's, Ontario's and Massachusetts': no country is sure.
        assert_eq!(texts("Port of Cambridge"), ["a port"]);
        assert_eq!(texts("Port of Stavanger")[0], "a port in Norway");
        assert_eq!(
            texts("Bluefin Comics"),
            ["a comic book publisher", "a publisher"]
        );
        assert_eq!(
            texts("Northwind Entertainment"),
            ["an entertainment company", "a company"]
        );
        assert_eq!(
            texts("Ruritanian Peace Keeping Force"),
            ["a peacekeeping force", "an armed force"]
        );
        assert_eq!(
            texts("Ruritanian Naval Reserve"),
            ["a naval reserve", "a military branch"]
        );
    }

    #[test]
    fn constituencies_boards_clubs_and_other_kinds_a_name_states() {
        assert_eq!(
            texts("Bergen North Constituency")[..2],
            [
                "a constituency in Norway",
                "a constituency in Northern Europe"
            ]
        );
        assert_eq!(
            texts("Bergen North Constituency").last().unwrap(),
            "an electoral district"
        );
        assert_eq!(texts("Poets Guild of Norway")[0], "a guild in Norway");
        assert_eq!(texts("Northern Forestry Board"), ["a board"]);
        assert_eq!(texts("Zorblax clan"), ["a clan"]);
        // An order is named for a saint as often as for a place: the saint is no place.
        assert_eq!(texts("Order of Saint Olav"), ["an order"]);
        assert_eq!(
            texts("Ohio's 9th congressional district")[0],
            "a congressional district in Ohio"
        );
        assert_eq!(
            texts("Finnish Defence Forces")[0],
            "an armed force in Finland"
        );
        assert_eq!(texts("Zorbton RFC"), ["a rugby club", "a sports club"]);
        assert_eq!(
            texts("1. FC Dresden")[..2],
            [
                "a football club in Germany",
                "a football club in Western Europe"
            ]
        );
        // An abbreviation alone names no kind: `RFC` is also the Royal Flying Corps.
        assert!(texts("RFC").is_empty());
        assert!(texts("FC").is_empty());
        // The place after a club's prefix must be one.
        assert!(texts("FC Zorblax").is_empty());
    }

    #[test]
    fn a_miscellany_states_an_organisations_kind_only_with_a_place_or_as_a_league() {
        let placed = |name: &str| -> Vec<String> {
            miscellany_by_name(Vocabulary::embedded(), name)
                .unwrap_or_default()
                .into_iter()
                .map(|rung| rung.text)
                .collect()
        };
        assert_eq!(
            placed("Oslo Sports Hall of Fame")[..2],
            [
                "a hall of fame in Norway",
                "a hall of fame in Northern Europe"
            ]
        );
        assert_eq!(
            placed("IV Federal Electoral District of Sonora")[..2],
            [
                "an electoral district in Sonora",
                "an electoral district in Mexico"
            ]
        );
        assert_eq!(
            placed("XII Legislature of the Mexican Congress")[0],
            "a legislature in Mexico"
        );
        // A film may be called `The Club`.
        assert!(placed("The Breakfast Club").is_empty());
    }

    #[test]
    fn a_call_sign_and_its_band_name_a_station() {
        let texts = |name: &str| -> Vec<String> {
            call_sign(name)
                .unwrap_or_default()
                .into_iter()
                .map(|rung| rung.text)
                .collect()
        };
        assert_eq!(texts("KXYZ-AM"), ["a radio station", "a broadcaster"]);
        assert_eq!(texts("WQX-TV")[0], "a television station");
        // No band, or letters no licence gives.
        assert!(texts("KXYZ").is_empty());
        assert!(texts("ABCD-FM").is_empty());
        assert!(texts("Kxyz-AM").is_empty());
    }

    #[test]
    fn a_word_of_a_longer_place_name_is_no_city() {
        // `St. Lawrence` is no Lawrence, Kansas; `West Bergen` no Bergen.
        assert_eq!(texts("St. Lawrence League"), ["a league"]);
        assert!(texts("West Bergen Rovers").is_empty());
        assert_eq!(texts("West Bergen Council"), ["a council"]);
        assert_eq!(texts("Bergen Council")[0], "a council in Norway");
    }

    #[test]
    fn places_that_disagree_or_are_common_words_place_nothing() {
        // A Victoria elsewhere, and Wellington in New Zealand.
        assert_eq!(
            texts("Victoria University of Wellington"),
            ["a university", "an educational institution"]
        );
        // Reading is a word before it is a town.
        assert_eq!(texts("University of Reading")[0], "a university");
    }

    #[test]
    fn companies_by_legal_form_and_clubs_by_place() {
        assert_eq!(texts("Siemens AG"), ["a company"]);
        assert_eq!(texts("acme gmbh"), ["a company"]);
        // `Group` is a legal form in some lists and a band's word in others.
        assert!(texts("Bilderberg Group").is_empty());
        assert_eq!(
            texts("Manchester United")[..2],
            [
                "a football club in the United Kingdom",
                "a football club in Northern Europe"
            ]
        );
        assert_eq!(texts("Manchester United").last().unwrap(), "a sports club");
        // Not a place before `United`, and a city called `… City`.
        assert!(texts("Americans United").is_empty());
        assert!(texts("Kansas City").is_empty());
        assert!(texts("United").is_empty());
    }
}
