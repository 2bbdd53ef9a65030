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
    None
}

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
