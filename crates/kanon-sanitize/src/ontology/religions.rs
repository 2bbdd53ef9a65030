//! Religions and beliefs kanon's table lists (`kg/vocab/religions.tsv`, from Wikidata's
//! religions): `Sunni Islam` → `a religion or belief`; a listed church is also `a church`. The
//! table holds beliefs that are no religion (`atheism`, `secular humanism`), so the rung says
//! `religion or belief`, the phrase equality law uses for both.

use kanon_kg::vocab::Vocabulary;

use super::{Rung, RungSource};

/// The rungs of a listed religion or belief, or none.
pub(super) fn rungs(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    if !vocabulary.is_religion(name) {
        return None;
    }
    let church = kanon_core::text::words(name)
        .last()
        .is_some_and(|word| word == "church");
    let texts = church
        .then_some("a church")
        .into_iter()
        .chain(["a religion or belief"])
        .map(str::to_owned);
    Some(Rung::all(RungSource::ReligionList, texts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_religions_and_churches() {
        let v = Vocabulary::embedded();
        let texts = |name| -> Vec<String> {
            rungs(v, name)
                .unwrap_or_default()
                .into_iter()
                .map(|rung| rung.text)
                .collect()
        };
        assert_eq!(texts("Sunni Islam"), ["a religion or belief"]);
        assert_eq!(
            texts("eastern orthodox church"),
            ["a church", "a religion or belief"]
        );
        assert!(texts("Chelsea").is_empty());
    }
}
