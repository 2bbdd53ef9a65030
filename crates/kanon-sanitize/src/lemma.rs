//! Lemmas for guess matching: kanon's one normalisation (folded words), a small table of irregular
//! forms, then the Snowball English stemmer as the approximation of a lemmatizer, so `studied`,
//! `studies` and `study` agree, and so do `women` and `woman`.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Very frequent content words (the most common nouns and adjectives of English, plus the generic
/// heads that generalizations are made of). An attacker who says `a large city` has not recovered
/// `Oslo` because the original was `the city of Oslo`.
const FREQUENT_WORDS: &[&str] = &[
    "area",
    "big",
    "body",
    "book",
    "business",
    "case",
    "century",
    "certain",
    "change",
    "child",
    "city",
    "community",
    "company",
    "country",
    "day",
    "different",
    "early",
    "end",
    "event",
    "example",
    "eye",
    "fact",
    "family",
    "first",
    "form",
    "friend",
    "general",
    "good",
    "great",
    "group",
    "hand",
    "head",
    "high",
    "history",
    "home",
    "hour",
    "house",
    "idea",
    "important",
    "information",
    "institution",
    "issue",
    "kind",
    "large",
    "last",
    "late",
    "level",
    "life",
    "line",
    "little",
    "local",
    "long",
    "lot",
    "major",
    "man",
    "member",
    "mid",
    "minute",
    "moment",
    "month",
    "name",
    "national",
    "new",
    "next",
    "night",
    "number",
    "office",
    "old",
    "organization",
    "organisation",
    "part",
    "people",
    "period",
    "person",
    "place",
    "point",
    "power",
    "problem",
    "public",
    "question",
    "reason",
    "region",
    "result",
    "right",
    "room",
    "second",
    "service",
    "side",
    "small",
    "social",
    "some",
    "specific",
    "state",
    "story",
    "system",
    "thing",
    "third",
    "time",
    "type",
    "unknown",
    "way",
    "week",
    "whole",
    "woman",
    "word",
    "work",
    "world",
    "year",
    "young",
];

/// Irregular forms the stemmer leaves apart from their lemma.
const IRREGULAR: &[(&str, &str)] = &[
    ("men", "man"),
    ("women", "woman"),
    ("children", "child"),
    ("people", "person"),
    ("feet", "foot"),
    ("teeth", "tooth"),
    ("mice", "mouse"),
    ("geese", "goose"),
    ("was", "be"),
    ("were", "be"),
    ("been", "be"),
    ("is", "be"),
    ("are", "be"),
    ("born", "bear"),
    ("bore", "bear"),
    ("went", "go"),
    ("gone", "go"),
    ("won", "win"),
    ("wrote", "write"),
    ("written", "write"),
    ("taught", "teach"),
    ("fought", "fight"),
    ("led", "lead"),
    ("held", "hold"),
    ("began", "begin"),
    ("begun", "begin"),
    ("became", "become"),
    ("left", "leave"),
    ("lost", "lose"),
    ("died", "die"),
    ("dead", "die"),
    ("better", "good"),
    ("best", "good"),
    ("worse", "bad"),
    ("worst", "bad"),
];

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// The lemma of one folded word.
pub fn lemma(word: &str) -> String {
    let base = IRREGULAR
        .iter()
        .find(|(form, _)| *form == word)
        .map_or(word, |(_, lemma)| lemma);
    stemmer().stem(base).into_owned()
}

/// Whether a lower-case word is a function word (`the`, `of`, `and`): never distinctive, never a
/// term of its own.
pub fn is_stopword(word: &str) -> bool {
    kanon_core::text::is_stopword(word)
}

/// Whether a folded word is among the very frequent content words (compared by lemma).
pub fn is_frequent(word: &str) -> bool {
    static FREQUENT: OnceLock<BTreeSet<String>> = OnceLock::new();
    let frequent = FREQUENT.get_or_init(|| FREQUENT_WORDS.iter().map(|w| lemma(w)).collect());
    frequent.contains(&lemma(word))
}

/// The folded words of a phrase, in order.
pub fn words(phrase: &str) -> Vec<String> {
    kanon_core::text::words(phrase)
}

/// The lemmas of a phrase's content words: alphabetic, not stopwords, not very frequent.
pub fn content_lemmas(phrase: &str) -> BTreeSet<String> {
    words(phrase)
        .iter()
        .filter(|word| is_content_word(word))
        .map(|word| lemma(word))
        .collect()
}

/// The lemmas of every word of a phrase, numbers included (dates compare on these).
pub fn all_lemmas(phrase: &str) -> BTreeSet<String> {
    words(phrase)
        .iter()
        .filter(|word| !is_stopword(word))
        .map(|word| lemma(word))
        .collect()
}

/// Alphabetic, at least two letters, not a stopword, not very frequent.
pub fn is_content_word(word: &str) -> bool {
    word.chars().count() >= 2
        && word.chars().all(char::is_alphabetic)
        && !is_stopword(word)
        && !is_frequent(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_share_a_lemma() {
        assert_eq!(lemma("studied"), lemma("study"));
        assert_eq!(lemma("studies"), lemma("study"));
        assert_eq!(lemma("women"), lemma("woman"));
        assert_eq!(lemma("universities"), lemma("university"));
    }

    #[test]
    fn content_lemmas_drop_function_numbers_and_frequent_words() {
        let lemmas = content_lemmas("The 3 largest cities of Norway in 2003");
        assert_eq!(lemmas, BTreeSet::from([lemma("largest"), lemma("norway")]));
    }
}
