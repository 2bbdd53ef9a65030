//! Kinds of people (an occupation, a role) climbed through WordNet's hypernyms, which the
//! vocabulary keeps only where they are true of every sense the word has as a kind of person:
//! `songwriter` → `a composer` → `a musician` → `an artist`. A plural stays plural
//! (`footballers` → `athletes`); a kind with modifiers climbs from its head noun (`professional
//! footballer`, `Minister of State for …`), which it is a kind of.

use kanon_kg::vocab::Vocabulary;

use super::{Rung, RungSource, with_article};

/// The rungs of a kind of person, or none when WordNet gives none.
pub(super) fn hypernyms(vocabulary: &Vocabulary, surface: &str) -> Option<Vec<Rung>> {
    let lower = surface.trim().to_lowercase();
    // A word for a woman in a role is the role's (`fisherwoman` → `fisherman`, `chairwoman`);
    // `woman` alone, or after an adjective (`black woman`), is no role.
    let compound = |stem: &str| stem.ends_with(|c: char| c.is_alphabetic());
    let lower = match lower.strip_suffix("woman") {
        Some(stem) if compound(stem) => format!("{stem}man"),
        _ => match lower.strip_suffix("women") {
            Some(stem) if compound(stem) => format!("{stem}men"),
            _ => lower,
        },
    };
    let head = head_noun(&lower);
    for kind in [lower.as_str(), head] {
        if let Some(chain) = vocabulary.person_hypernyms(kind) {
            return Some(rungs(chain, false));
        }
        if let Some(singular) = singular(kind)
            && let Some(chain) = vocabulary.person_hypernyms(&singular)
        {
            return Some(rungs(chain, true));
        }
    }
    for kind in [lower.as_str(), head] {
        let (found, plural) = match biography_sense(kind) {
            Some(chain) => (chain, false),
            None => match singular(kind).as_deref().and_then(biography_sense) {
                Some(chain) => (chain, true),
                None => continue,
            },
        };
        let chain: Vec<String> = found.iter().map(|kind| (*kind).to_owned()).collect();
        let mut climbed = rungs(&chain, plural);
        for rung in &mut climbed {
            rung.source = RungSource::BiographySense;
        }
        return Some(climbed);
    }
    None
}

/// Offices and roles a title names with words that single its holder out (`38th president`,
/// `House Minority Leader`, `Speaker of the Parliament of Ghana`): general knowledge.
const OFFICES: &[&str] = &[
    "president",
    "chairman",
    "chairwoman",
    "chairperson",
    "commissioner",
    "leader",
    "commander",
    "ambassador",
    "speaker",
    "governor",
    "mayor",
    "senator",
    "secretary",
    "director",
    "officer",
    "judge",
    "chancellor",
    "treasurer",
    "consul",
    "envoy",
    "spokesperson",
    "spokesman",
    "spokeswoman",
    "representative",
    "councillor",
    "councilor",
    "coach",
    "manager",
    "editor",
    "chief",
    "head",
    "dean",
    "rector",
    "provost",
    "bishop",
    "archbishop",
    "general",
    "admiral",
    "marshal",
    "inspector",
    "superintendent",
    "registrar",
    "auditor",
    "ombudsman",
    "attorney",
    "prosecutor",
    "sheriff",
    "commissary",
    "delegate",
    "deputy",
];

/// Words that make an office another (`vice president` is no president): they stay with it.
const OFFICE_QUALIFIERS: &[&str] = &[
    "vice",
    "deputy",
    "assistant",
    "associate",
    "acting",
    "interim",
    "co",
    "lieutenant",
    "under",
    "sub",
    "honorary",
    "executive",
];

/// The office a title names once the words that single its holder out are left out: an ordinal,
/// a body, a place (`38th president` → `a president`, `Australian Public Service Commissioner` →
/// `a commissioner`, `Speaker of the Parliament of Ghana` → `a speaker`, `40th vice president`
/// → `a vice president`), then what WordNet says the office is. None for the office alone (it
/// would repeat the span) or a head that is no office.
pub(super) fn titled(vocabulary: &Vocabulary, surface: &str) -> Option<Vec<Rung>> {
    // A title is capitalised or ranked; a common noun phrase (`hockey coach`) keeps the text's
    // own determiner through its head noun instead.
    let ranked = surface
        .split_whitespace()
        .next()
        .is_some_and(|first| super::rank(first).is_some());
    if !ranked && !surface.chars().any(char::is_uppercase) {
        return None;
    }
    let words = kanon_core::text::words(surface);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let end = words
        .iter()
        .position(|word| matches!(*word, "of" | "for" | "to" | "at" | "in" | "on"))
        .unwrap_or(words.len());
    let at = end.checked_sub(1)?;
    let written = words[at];
    let head = if OFFICES.contains(&written) {
        written.to_owned()
    } else {
        let singular = singular(written)
            .or_else(|| written.strip_suffix("men").map(|stem| format!("{stem}man")))?;
        if !OFFICES.contains(&singular.as_str()) {
            return None;
        }
        singular
    };
    let qualifier = words[..at]
        .iter()
        .find(|word| OFFICE_QUALIFIERS.contains(word));
    let qualified = qualifier.is_some();
    let office = match qualifier {
        Some(qualifier) => format!("{qualifier} {head}"),
        None => head.clone(),
    };
    // Something must be left out, or the rung repeats the span.
    if office.split(' ').count() >= words.len() {
        return None;
    }
    let mut texts = vec![with_article(&office)];
    if !qualified {
        let chain: Vec<&str> = match vocabulary.person_hypernyms(&head) {
            Some(chain) => chain.iter().map(String::as_str).collect(),
            None => biography_sense(&head).unwrap_or_default().to_vec(),
        };
        texts.extend(chain.into_iter().map(with_article));
    }
    Some(Rung::all(RungSource::StatedKind, texts))
}

/// Kinds of people WordNet lists in several senses none of whose hypernyms they all share (so
/// its table keeps none), with the sense they have in a biography, where someone's occupation is
/// stated: `actor` is a theatrical performer there, not `a person who acts`; `painter` an artist,
/// not a house painter. From general knowledge; a kind whose senses a biography uses alike
/// (`director`, `minister`, `model`, `pilot`) is not listed, unless what all its senses are is
/// plain: a president heads a state, a firm or a society, and leads each.
fn biography_sense(kind: &str) -> Option<&'static [&'static str]> {
    let chain: &[&str] = match kind {
        "actor" => &["performer", "entertainer"],
        "politician" => &["public figure"],
        "journalist" | "author" => &["writer"],
        // WordNet's first `writer` is a communicator, its `compiler` a program too.
        "writer" => &["creator"],
        "compiler" => &["writer", "creator"],
        "king" | "queen" | "emperor" | "empress" => &["monarch", "head of state"],
        "musician" | "painter" | "sculptor" => &["artist"],
        "architect" => &["designer", "creator"],
        "philosopher" => &["scholar", "intellectual"],
        "diplomat" => &["official"],
        "nurse" => &["health professional", "professional"],
        "conductor" => &["musician", "artist"],
        "dancer" => &["performer", "entertainer"],
        "rapper" => &["musician", "performer"],
        "referee" | "umpire" => &["sports official", "official"],
        "banker" => &["financier", "businessperson"],
        "goalkeeper" | "goalie" => &["player", "athlete"],
        "presenter" | "newsreader" => &["broadcaster"],
        "president" => &["leader"],
        _ => return None,
    };
    Some(chain)
}

/// The rungs of a political office its title states, where WordNet's word for it is ambiguous
/// (`minister`: a clergyman or a member of a government): `Minister of State for …`, `Foreign
/// Minister` → `a government minister` → `a politician`; `Prime Minister` → `a head of
/// government`; `President of Finland` → `a head of state`; `Member of Parliament` → `a
/// legislator`; `Ambassador to Japan` → `a diplomat`. A minister of a church (`Baptist minister`,
/// `minister of religion`) states no office and gets nothing. The title words are general
/// knowledge.
pub(super) fn office(vocabulary: &Vocabulary, surface: &str) -> Option<Vec<Rung>> {
    let words = kanon_core::text::words(surface);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let at = |word: &str| words.iter().position(|w| *w == word);
    let texts: &[&str] = if let Some(i) = at("minister") {
        let before = i.checked_sub(1).map(|j| words[j]);
        let after: Vec<&str> = words[i + 1..].to_vec();
        let of_office = matches!(after.first(), Some(&"of" | &"for"))
            && !after.iter().any(|w| CHURCH_WORDS.contains(w));
        let deputy = words[..i].iter().any(|w| matches!(*w, "deputy" | "vice"));
        if matches!(before, Some("prime" | "chief")) && !deputy {
            &["a head of government", "a politician"]
        } else if of_office || before.is_some_and(|w| GOVERNMENT_PORTFOLIOS.contains(&w)) {
            &["a government minister", "a politician"]
        } else {
            return None;
        }
    } else if words.starts_with(&["secretary", "of", "state"]) {
        &["a government minister", "a politician"]
    } else if head_of_state(vocabulary, &words) {
        &["a head of state", "a politician"]
    } else if words.starts_with(&["member", "of"])
        && words[2..].iter().any(|w| {
            matches!(
                *w,
                "parliament" | "congress" | "assembly" | "house" | "senate"
            )
        })
        || matches!(
            words.as_slice(),
            ["mp"] | ["mla"] | ["mep"] | ["mpp"] | ["msp"] | ["td"] | ["teachta", "dála" | "dala"]
        )
    {
        &["a legislator", "a politician"]
    } else if words.first() == Some(&"ambassador") && words.get(1) == Some(&"to") {
        &["a diplomat", "an official"]
    } else {
        return None;
    };
    Some(Rung::all(
        RungSource::StatedKind,
        texts.iter().map(|text| (*text).to_owned()),
    ))
}

/// `President of Finland`, `President of the Republic`, `Finnish President`.
fn head_of_state(vocabulary: &Vocabulary, words: &[&str]) -> bool {
    match words {
        ["president", "of", rest @ ..] => {
            let rest = rest.join(" ");
            rest == "the republic" || vocabulary.country(&rest).is_some()
        }
        [demonym, "president"] => vocabulary.country_of_demonym(demonym).is_some(),
        _ => false,
    }
}

/// Words that make a `minister of …` a church's (`minister of religion`, `of the Gospel`).
const CHURCH_WORDS: &[&str] = &[
    "religion",
    "church",
    "god",
    "gospel",
    "christ",
    "word",
    "congregation",
    "parish",
];

/// Portfolios and ranks that, before `minister`, make it a government's (`Foreign Minister`).
const GOVERNMENT_PORTFOLIOS: &[&str] = &[
    "prime",
    "chief",
    "foreign",
    "finance",
    "defence",
    "defense",
    "interior",
    "justice",
    "health",
    "education",
    "cabinet",
    "deputy",
    "junior",
    "state",
    "home",
    "labour",
    "labor",
    "trade",
    "transport",
    "agriculture",
    "environment",
    "culture",
    "energy",
    "economy",
    "economic",
    "sports",
    "tourism",
    "information",
    "industry",
    "federal",
    "union",
    "railway",
    "railways",
    "commerce",
    "treasury",
    "government",
    "housing",
    "science",
    "communications",
    "fisheries",
    "immigration",
    "planning",
];

fn rungs(chain: &[String], plural: bool) -> Vec<Rung> {
    let texts = chain.iter().map(|kind| {
        if plural {
            pluralize(kind)
        } else {
            with_article(kind)
        }
    });
    Rung::all(RungSource::WordNet, texts)
}

/// The noun a kind phrase is a kind of: the word before `of` (`minister of state`), else the last
/// word (`professional footballer`).
fn head_noun(phrase: &str) -> &str {
    let before_of = phrase.split(" of ").next().unwrap_or(phrase);
    before_of.rsplit(' ').next().unwrap_or(before_of)
}

/// The singular of a regular English plural (`footballers`, `actresses`, `deputies`).
fn singular(word: &str) -> Option<String> {
    if let Some(stem) = word.strip_suffix("ies") {
        return Some(format!("{stem}y"));
    }
    if let Some(stem) = word.strip_suffix("sses") {
        return Some(format!("{stem}ss"));
    }
    word.strip_suffix('s')
        .filter(|stem| !stem.ends_with('s'))
        .map(str::to_owned)
}

/// The regular plural of a kind phrase's last word: `athlete` → `athletes`, `spiritual leader` →
/// `spiritual leaders`, `actress` → `actresses`.
fn pluralize(phrase: &str) -> String {
    let (head, last) = match phrase.rsplit_once(' ') {
        Some((head, last)) => (format!("{head} "), last),
        None => (String::new(), phrase),
    };
    let plural = if let Some(stem) = last.strip_suffix("person") {
        format!("{stem}people")
    } else if let Some(stem) = last.strip_suffix("man") {
        format!("{stem}men")
    } else if last.ends_with(['s', 'x']) || last.ends_with("ch") || last.ends_with("sh") {
        format!("{last}es")
    } else if let Some(stem) = last.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{last}s")
    };
    format!("{head}{plural}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(surface: &str) -> Vec<String> {
        hypernyms(Vocabulary::embedded(), surface)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn a_title_climbs_to_its_office_without_what_singles_its_holder_out() {
        let titled = |surface: &str| -> Vec<String> {
            titled(Vocabulary::embedded(), surface)
                .unwrap_or_default()
                .into_iter()
                .map(|rung| rung.text)
                .collect()
        };
        assert_eq!(titled("38th president"), ["a president", "a leader"]);
        assert_eq!(titled("2nd Chairmen")[0], "a chairman");
        assert_eq!(
            titled("Zorbland Public Service Commissioner"),
            ["a commissioner"]
        );
        assert_eq!(
            titled("Speaker of the Parliament of Zorbland"),
            ["a speaker"]
        );
        assert_eq!(titled("House Minority Leader"), ["a leader"]);
        // `vice` makes another office, and stays.
        assert_eq!(titled("40th vice president"), ["a vice president"]);
        assert_eq!(titled("Assistant Hockey Coach"), ["an assistant coach"]);
        // Not a title: the head noun serves (`assistant hockey coach` → `coach`).
        assert!(titled("assistant hockey coach").is_empty());
        // The office alone would repeat the span; a head that is no office gives nothing.
        assert!(titled("President").is_empty());
        assert!(titled("vice president").is_empty());
        assert!(titled("Commanding-in-Chief").is_empty());
        assert!(titled("third round").is_empty());
    }

    #[test]
    fn kinds_of_people_climb_wordnet() {
        assert_eq!(
            texts("singer"),
            ["a musician", "a performer", "an entertainer"]
        );
        assert_eq!(
            texts("songwriter"),
            ["a composer", "a musician", "an artist"]
        );
        assert_eq!(texts("Novelist"), ["a writer"]);
        // A modifier narrows the kind: the head noun's hypernyms are still true.
        assert_eq!(texts("professional footballer"), texts("footballer"));
        assert_eq!(texts("footballers"), ["athletes", "players", "contestants"]);
        // A clergyman or a government minister: nothing true of both.
        assert!(texts("minister").is_empty());
        assert!(texts("Minister of State for Women and Child Development").is_empty());
        assert!(texts("table").is_empty());
    }

    #[test]
    fn kinds_wordnet_leaves_ambiguous_take_their_biography_sense() {
        assert_eq!(texts("actor"), ["a performer", "an entertainer"]);
        assert_eq!(texts("film actors"), ["performers", "entertainers"]);
        assert_eq!(texts("Queen"), ["a monarch", "a head of state"]);
        assert_eq!(texts("painter"), ["an artist"]);
        assert_eq!(texts("banker"), ["a financier", "a businessperson"]);
        assert_eq!(texts("goalkeeper"), ["a player", "an athlete"]);
        assert_eq!(texts("radio presenter"), ["a broadcaster"]);
        assert_eq!(
            texts("Brazilian football referee"),
            ["a sports official", "an official"]
        );
        let sources: Vec<RungSource> = hypernyms(Vocabulary::embedded(), "politician")
            .unwrap()
            .into_iter()
            .map(|rung| rung.source)
            .collect();
        assert_eq!(sources, [RungSource::BiographySense]);
        // A president of a state, a firm or a society leads it.
        assert_eq!(texts("president"), ["a leader"]);
        assert_eq!(texts("writer"), ["a creator"]);
        assert_eq!(texts("compiler"), ["a writer", "a creator"]);
        // A woman's word for a role climbs as the role does.
        assert_eq!(texts("fisherwoman"), texts("fisherman"));
        assert!(!texts("fisherwoman").is_empty());
        assert_eq!(texts("sportswomen"), texts("sportsmen"));
        assert!(texts("woman").is_empty());
        let black_woman = texts("black woman");
        assert_eq!(black_woman[0], "a woman");
        assert!(
            !black_woman
                .iter()
                .any(|rung| rung == "a man" || rung == "a male")
        );
        // Senses a biography uses alike get nothing.
        assert!(texts("director").is_empty());
        assert!(texts("model").is_empty());
    }

    #[test]
    fn offices_a_title_states() {
        let office = |title| -> Vec<String> {
            office(Vocabulary::embedded(), title)
                .unwrap_or_default()
                .into_iter()
                .map(|rung| rung.text)
                .collect()
        };
        assert_eq!(
            office("Minister of State for Women and Child Development"),
            ["a government minister", "a politician"]
        );
        assert_eq!(
            office("foreign minister"),
            office("Minister of State for Women")
        );
        assert_eq!(office("Prime Minister")[0], "a head of government");
        assert_eq!(office("Deputy Prime Minister")[0], "a government minister");
        assert_eq!(office("President of Finland")[0], "a head of state");
        assert_eq!(office("member of parliament")[0], "a legislator");
        assert_eq!(office("TD")[0], "a legislator");
        assert_eq!(office("Teachta Dála")[0], "a legislator");
        // A church's minister holds no office; a company's president is no head of state.
        assert!(office("Baptist minister").is_empty());
        assert!(office("minister of religion").is_empty());
        assert!(office("minister").is_empty());
        assert!(office("President of Microsoft").is_empty());
    }

    #[test]
    fn plurals_are_regular() {
        assert_eq!(pluralize("enlisted person"), "enlisted people");
        assert_eq!(pluralize("businessman"), "businessmen");
        assert_eq!(pluralize("actress"), "actresses");
        assert_eq!(pluralize("deputy"), "deputies");
        assert_eq!(singular("deputies").as_deref(), Some("deputy"));
        assert_eq!(singular("actresses").as_deref(), Some("actress"));
        assert_eq!(singular("boss"), None);
    }
}
