//! Which of a language model's generalizations the sanitizer may print. A small model's
//! candidates are mostly false (docs/results/sanitization.md: SmolLM2-135M's were confirmed true
//! for 3.4 % of the entities kanon's hierarchies resolve; `Najafgarh Institute of Technology` →
//! `a European university`), and a sanitized text that states falsehoods misleads its reader
//! however private it is. So by default a model's candidate is printed only when one of the
//! entity's rungs (true by construction) confirms it: it says what the rung says in other words
//! (`a Norwegian city` for `a city in Norway`). Where the hierarchies know nothing of the entity
//! nothing can confirm a candidate.
//!
//! ```
//! use kanon_sanitize::verify::{ModelCandidates, Verdict, verdict};
//!
//! let rungs = ["a city in Attica", "a city in Greece", "a city in Southern Europe"];
//! assert_eq!(verdict(ModelCandidates::Verified, "a Greek city", &rungs), Verdict::Confirmed(1));
//! assert_eq!(verdict(ModelCandidates::Verified, "a European capital", &rungs), Verdict::Unconfirmed);
//! let unknown: [&str; 0] = [];
//! assert_eq!(verdict(ModelCandidates::Checked, "the most famous city", &unknown), Verdict::Judgement);
//! assert_eq!(verdict(ModelCandidates::Checked, "a port city", &unknown), Verdict::Kept);
//! ```

use std::collections::BTreeSet;

use kanon_kg::vocab::Vocabulary;
use serde::{Deserialize, Serialize};

use crate::lemma::{all_lemmas, is_stopword, lemma, words};

/// Which of the model's candidates the sanitizer may use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelCandidates {
    /// Only those kanon's hierarchies confirm: each word a word of one of the entity's rungs,
    /// or the demonym or adjective of a country or region a rung names. None where the
    /// hierarchies know nothing of the entity (the model is then not asked).
    #[default]
    Verified,
    /// Confirmed where the hierarchies know the entity; elsewhere any candidate that makes no
    /// claim a generalization cannot make (a superlative or a judgement: `the most prestigious
    /// university`). For a model strong enough to be trusted where nothing can check it.
    Checked,
    /// Every candidate that passes the other filters: INTACT as published.
    Any,
}

kanon_core::named_choices!(
    ModelCandidates,
    "model candidates",
    [Verified = "verified", Checked = "checked", Any = "any"]
);

/// What the policy makes of one model candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It says what this rung (an index into the rungs given) says, in other words: it may be
    /// used, and it stands for the rung's people with the KG attacker.
    Confirmed(usize),
    /// It may be used unchecked (`checked` where no hierarchy knows the entity, or `any`).
    Kept,
    /// The hierarchies do not confirm it (or know nothing of the entity).
    Unconfirmed,
    /// It judges or ranks rather than generalizes.
    Judgement,
}

/// The policy's verdict on `candidate`, given the texts of the entity's rungs (empty: the
/// hierarchies know nothing of it).
pub fn verdict(policy: ModelCandidates, candidate: &str, rungs: &[impl AsRef<str>]) -> Verdict {
    match policy {
        ModelCandidates::Any => Verdict::Kept,
        _ if !rungs.is_empty() => match confirming_rung(candidate, rungs) {
            Some(rung) => Verdict::Confirmed(rung),
            None => Verdict::Unconfirmed,
        },
        ModelCandidates::Verified => Verdict::Unconfirmed,
        ModelCandidates::Checked if judges(candidate) => Verdict::Judgement,
        ModelCandidates::Checked => Verdict::Kept,
    }
}

/// The rung (an index into `rungs`) that says what `candidate` says in other words: the same
/// content words by lemma, a demonym or region adjective read as its place (`a Norwegian city`
/// is `a city in Norway`). A candidate that mixes words of two rungs (`a city in northern
/// Norway`, from `a city in Norway` and `a city in Northern Europe`) says more than either, and
/// may be false (Bergen is in western Norway): no rung confirms it.
pub fn confirming_rung(candidate: &str, rungs: &[impl AsRef<str>]) -> Option<usize> {
    let said = meaning(candidate);
    if said.is_empty() {
        return None;
    }
    rungs.iter().position(|rung| meaning(rung.as_ref()) == said)
}

/// The lemmas of a phrase's words, function words aside, each demonym or region adjective read
/// as the lemmas of its place's name.
fn meaning(phrase: &str) -> BTreeSet<String> {
    let mut lemmas = BTreeSet::new();
    for word in words(phrase) {
        if is_stopword(&word) {
            continue;
        }
        let word = compass_adjective(&word);
        let place = Vocabulary::embedded()
            .country_of_demonym(word)
            .map(|country| country.name.as_str())
            .or_else(|| {
                REGION_ADJECTIVES
                    .iter()
                    .find(|(adjective, _)| *adjective == word)
                    .map(|(_, region)| *region)
            });
        match place {
            Some(place) => lemmas.extend(all_lemmas(place)),
            None => {
                lemmas.insert(lemma(word));
            }
        }
    }
    lemmas
}

/// `West African` names the UN's `Western Africa`.
fn compass_adjective(word: &str) -> &str {
    match word {
        "west" => "western",
        "east" => "eastern",
        "north" => "northern",
        "south" => "southern",
        other => other,
    }
}

/// Adjectives of the continents and parts of them that rungs name (`a city in Eastern Europe`).
const REGION_ADJECTIVES: &[(&str, &str)] = &[
    ("european", "Europe"),
    ("asian", "Asia"),
    ("african", "Africa"),
    ("american", "America"),
    ("caribbean", "Caribbean"),
    ("oceanian", "Oceania"),
    ("australasian", "Australia"),
    ("polynesian", "Polynesia"),
    ("micronesian", "Micronesia"),
    ("melanesian", "Melanesia"),
];

/// Whether the phrase ranks or praises rather than generalizes: `the most prestigious
/// university`, `a leading company`, `the largest city` — a claim about the original that no
/// broader class of things makes.
fn judges(candidate: &str) -> bool {
    const JUDGING: &[&str] = &[
        "most",
        "least",
        "best",
        "worst",
        "largest",
        "biggest",
        "smallest",
        "greatest",
        "oldest",
        "newest",
        "youngest",
        "highest",
        "lowest",
        "leading",
        "foremost",
        "top",
        "premier",
        "prestigious",
        "famous",
        "renowned",
        "celebrated",
        "notable",
        "prominent",
        "popular",
        "influential",
        "important",
        "iconic",
        "legendary",
        "elite",
        "acclaimed",
    ];
    words(candidate)
        .iter()
        .any(|word| JUDGING.contains(&word.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ATHENS_SUBURB: [&str; 4] = [
        "a city in Attica",
        "a city in Greece",
        "a city in Southern Europe",
        "a city in Europe",
    ];

    #[test]
    fn a_candidate_saying_what_one_rung_says_is_confirmed_by_it() {
        for (candidate, rung) in [
            ("a city in Greece", 1),
            ("a Greek city", 1),
            ("a Southern European city", 2),
            ("a south European city", 2),
            ("cities in Europe", 3),
            ("a European city", 3),
        ] {
            assert_eq!(
                verdict(ModelCandidates::Verified, candidate, &ATHENS_SUBURB),
                Verdict::Confirmed(rung),
                "{candidate}"
            );
        }
    }

    #[test]
    fn a_word_no_rung_states_or_a_mix_of_two_rungs_is_unconfirmed() {
        for candidate in [
            "a European capital",
            "a city in Italy",
            "an Italian city",
            "a Western European city",
            "a city in southern Greece",
            "the most prestigious university",
            "",
        ] {
            assert_eq!(
                verdict(ModelCandidates::Verified, candidate, &ATHENS_SUBURB),
                Verdict::Unconfirmed,
                "{candidate}"
            );
            assert_eq!(
                verdict(ModelCandidates::Checked, candidate, &ATHENS_SUBURB),
                Verdict::Unconfirmed,
                "{candidate}"
            );
        }
    }

    #[test]
    fn kinds_of_people_are_confirmed_by_their_hypernyms_only() {
        let singer = ["a musician", "a performer", "an entertainer"];
        assert_eq!(
            verdict(ModelCandidates::Verified, "musicians", &singer),
            Verdict::Confirmed(0)
        );
        for candidate in ["a Musical", "a Conservative", "an Indian subcontinent"] {
            assert_eq!(
                verdict(ModelCandidates::Verified, candidate, &singer),
                Verdict::Unconfirmed,
                "{candidate}"
            );
        }
    }

    #[test]
    fn without_rungs_verified_keeps_nothing_checked_drops_judgements_any_keeps_all() {
        let none: [&str; 0] = [];
        let plain = "a military conflict in the first half of the 1900s";
        assert_eq!(
            verdict(ModelCandidates::Verified, plain, &none),
            Verdict::Unconfirmed
        );
        assert_eq!(
            verdict(ModelCandidates::Checked, plain, &none),
            Verdict::Kept
        );
        for judging in [
            "the most prestigious university in Sweden",
            "a leading company",
            "the largest city in China",
            "a famous diamond",
        ] {
            assert_eq!(
                verdict(ModelCandidates::Checked, judging, &none),
                Verdict::Judgement,
                "{judging}"
            );
            assert_eq!(verdict(ModelCandidates::Any, judging, &none), Verdict::Kept);
        }
        assert_eq!(
            verdict(ModelCandidates::Any, "an Italian city", &ATHENS_SUBURB),
            Verdict::Kept
        );
    }
}
