//! What is masked once is masked everywhere: overlapping spans are merged into their union, every
//! further occurrence of a masked mention's text (and of the other surface forms its entity is
//! known by) becomes a mention of that entity, and a check after rendering finds any masked string
//! that still stands as a word in what would be shared.

use kanon_core::EntityType;

use crate::group::{EntityGroup, Mention};

/// Merges overlapping mentions into their union: a span one source marked is masked even where
/// another source marked less. The union takes the type and entity of its longest part (the
/// earliest on a tie). Returns the mentions sorted by start and how many were merged away.
pub fn merge_overlaps(mentions: &[Mention]) -> (Vec<Mention>, u64) {
    let mut sorted = mentions.to_vec();
    sorted.sort_by_key(|mention| (mention.span.start, std::cmp::Reverse(mention.span.end)));
    let mut merged: Vec<(Mention, usize)> = Vec::with_capacity(sorted.len());
    let mut merged_away = 0;
    for mention in sorted {
        let length = mention.span.end - mention.span.start;
        match merged.last_mut() {
            Some((last, longest)) if mention.span.start < last.span.end => {
                merged_away += 1;
                if length > *longest {
                    *longest = length;
                    last.entity_type = mention.entity_type;
                    last.entity_id = mention.entity_id.clone();
                }
                last.span.end = last.span.end.max(mention.span.end);
            }
            _ => merged.push((mention, length)),
        }
    }
    (merged.into_iter().map(|(m, _)| m).collect(), merged_away)
}

/// Words that are no name on their own, though they stand capitalised inside one.
const NAME_PARTICLES: &[&str] = &[
    "mr", "mrs", "ms", "miss", "dr", "sir", "lord", "lady", "jr", "sr", "von", "van", "der", "den",
    "de", "del", "della", "di", "da", "du", "la", "le", "bin", "ibn", "al", "el",
];

/// The forms an entity is known by: its mentions' texts and, for a person, each name word of
/// them (a surname alone, `Hollenbach` for `Todd Hollenbach`; not initials or particles).
fn surface_forms(text: &[char], mentions: &[Mention], group: &EntityGroup) -> Vec<String> {
    let mut forms: Vec<String> = Vec::new();
    for &index in &group.mentions {
        let span = mentions[index].span;
        let surface: String = text[span.start..span.end].iter().collect();
        let surface = surface.trim().to_owned();
        if !surface.chars().any(char::is_alphanumeric) {
            continue;
        }
        if group.entity_type == EntityType::Person {
            for word in surface.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-') {
                let lower = word.to_lowercase();
                if word.chars().count() >= 3
                    && word.starts_with(char::is_uppercase)
                    && !NAME_PARTICLES.contains(&lower.as_str())
                    && !crate::lemma::is_stopword(&lower)
                {
                    forms.push(word.to_owned());
                }
            }
        }
        forms.push(surface);
    }
    forms.sort();
    forms.dedup();
    forms
}

/// Character offsets of every occurrence of `form` in `text` that stands as whole words (no letter
/// or digit touches either end).
fn occurrences(text: &[char], form: &[char]) -> Vec<usize> {
    let is_word = |c: char| c.is_alphanumeric();
    let mut found = Vec::new();
    if form.is_empty() || form.len() > text.len() {
        return found;
    }
    for start in 0..=text.len() - form.len() {
        let end = start + form.len();
        if text[start..end] == *form
            && (start == 0 || !is_word(text[start - 1]) || !is_word(form[0]))
            && (end == text.len() || !is_word(text[end]) || !is_word(form[form.len() - 1]))
        {
            found.push(start);
        }
    }
    found
}

/// Adds, as mentions of their entity, the occurrences of each entity's surface forms that no
/// mention covers yet, longest forms first (`Todd Hollenbach` before `Hollenbach`); a form two
/// entities share goes to the first. `mentions` and the groups' indices are rebuilt in document
/// order and the groups renumbered; the returned flags mark the propagated mentions.
pub fn propagate(
    text: &str,
    mentions: Vec<Mention>,
    mut groups: Vec<EntityGroup>,
) -> (Vec<Mention>, Vec<EntityGroup>, Vec<bool>) {
    let chars: Vec<char> = text.chars().collect();
    let mut covered = vec![false; chars.len()];
    for mention in &mentions {
        covered[mention.span.start..mention.span.end]
            .iter_mut()
            .for_each(|c| *c = true);
    }
    let mut forms: Vec<(Vec<char>, usize)> = Vec::new();
    for (group_index, group) in groups.iter().enumerate() {
        for form in surface_forms(&chars, &mentions, group) {
            forms.push((form.chars().collect(), group_index));
        }
    }
    forms.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
    // (mention, group, propagated)
    let mut all: Vec<(Mention, usize, bool)> = Vec::with_capacity(mentions.len());
    for (group_index, group) in groups.iter().enumerate() {
        for &index in &group.mentions {
            all.push((mentions[index].clone(), group_index, false));
        }
    }
    for (form, group_index) in &forms {
        for start in occurrences(&chars, form) {
            let end = start + form.len();
            if covered[start..end].iter().any(|c| *c) {
                continue;
            }
            covered[start..end].iter_mut().for_each(|c| *c = true);
            let mut mention = Mention::new(start, end, groups[*group_index].entity_type);
            mention.entity_id = None;
            all.push((mention, *group_index, true));
        }
    }
    all.sort_by_key(|(mention, _, _)| mention.span.start);
    for group in &mut groups {
        group.mentions.clear();
    }
    let mut propagated = Vec::with_capacity(all.len());
    let mut rebuilt = Vec::with_capacity(all.len());
    for (index, (mention, group_index, is_propagated)) in all.into_iter().enumerate() {
        groups[group_index].mentions.push(index);
        rebuilt.push(mention);
        propagated.push(is_propagated);
    }
    crate::group::renumber(&mut groups);
    (rebuilt, groups, propagated)
}

/// One masked string still standing as a word in a rendered text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Survivor {
    /// Index of the mention whose text survives.
    pub mention: usize,
    /// Character offset in the rendered text.
    pub at: usize,
    /// Whether it stands inside a replacement (a date rung naming a masked year) rather than in
    /// the text kept from the original.
    pub in_replacement: bool,
}

/// Every masked mention's text that stands as whole words in `rendered`, outside the replacements
/// (`replaced`: character ranges of `rendered`) or inside one. Function words (`in`, `the`) are
/// not checked: the renderer writes them itself. Masked strings are compared case-sensitively,
/// as written in the original.
pub fn surviving_masked_strings(
    original: &str,
    mentions: &[Mention],
    rendered: &str,
    replaced: &[std::ops::Range<usize>],
) -> Vec<Survivor> {
    let original: Vec<char> = original.chars().collect();
    let rendered: Vec<char> = rendered.chars().collect();
    let mut in_replacement = vec![false; rendered.len()];
    for range in replaced {
        in_replacement[range.start.min(rendered.len())..range.end.min(rendered.len())]
            .iter_mut()
            .for_each(|c| *c = true);
    }
    let mut seen: Vec<Vec<char>> = Vec::new();
    let mut survivors = Vec::new();
    for (index, mention) in mentions.iter().enumerate() {
        let form: Vec<char> = original[mention.span.start..mention.span.end].to_vec();
        let trimmed: String = form.iter().collect::<String>().trim().to_owned();
        if !trimmed.chars().any(char::is_alphanumeric)
            || crate::lemma::is_stopword(&trimmed.to_lowercase())
        {
            continue;
        }
        let form: Vec<char> = trimmed.chars().collect();
        if seen.contains(&form) {
            continue;
        }
        for at in occurrences(&rendered, &form) {
            survivors.push(Survivor {
                mention: index,
                at,
                in_replacement: in_replacement[at..at + form.len()].iter().any(|c| *c),
            });
        }
        seen.push(form);
    }
    survivors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::group_mentions;

    fn mention(text: &str, phrase: &str, entity_type: EntityType) -> Mention {
        let byte = text.find(phrase).unwrap();
        let start = text[..byte].chars().count();
        Mention::new(start, start + phrase.chars().count(), entity_type)
    }

    #[test]
    fn overlapping_spans_become_their_union_with_the_longest_parts_type() {
        let (merged, away) = merge_overlaps(&[
            Mention::new(14, 18, EntityType::Loc).with_entity_id("oslo"),
            Mention::new(0, 16, EntityType::Org).with_entity_id("uni"),
            Mention::new(17, 22, EntityType::Misc),
            Mention::new(30, 34, EntityType::Datetime),
        ]);
        assert_eq!(away, 2);
        assert_eq!(merged.len(), 2);
        assert_eq!((merged[0].span.start, merged[0].span.end), (0, 22));
        assert_eq!(merged[0].entity_type, EntityType::Org);
        assert_eq!(merged[0].entity_id.as_deref(), Some("uni"));
        assert_eq!((merged[1].span.start, merged[1].span.end), (30, 34));
    }

    #[test]
    fn repeats_and_surnames_are_propagated_on_word_boundaries() {
        let text = "Todd Hollenbach was elected in 2015. Hollenbach left in 2015; \
                    the Hollenbachs and 20150 stayed. Todd Hollenbach Jr. spoke.";
        let mentions = vec![
            mention(text, "Todd Hollenbach", EntityType::Person),
            mention(text, "2015", EntityType::Datetime),
        ];
        let groups = group_mentions(text, &mentions);
        let (mentions, groups, propagated) = propagate(text, mentions, groups);
        let found: Vec<(String, bool)> = mentions
            .iter()
            .zip(&propagated)
            .map(|(m, p)| (m.span.slice(text).unwrap().to_owned(), *p))
            .collect();
        let found: Vec<(&str, bool)> = found.iter().map(|(s, p)| (s.as_str(), *p)).collect();
        assert_eq!(
            found,
            [
                ("Todd Hollenbach", false),
                ("2015", false),
                ("Hollenbach", true),
                ("2015", true),
                ("Todd Hollenbach", true),
            ],
            "`Hollenbachs` and `20150` are other words"
        );
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].mentions, [0, 2, 4]);
        assert_eq!(groups[1].mentions, [1, 3]);
    }

    #[test]
    fn survivors_are_found_outside_and_inside_replacements() {
        let original = "Born in 2003 in Oslo.";
        let mentions = vec![
            mention(original, "2003", EntityType::Datetime),
            mention(original, "Oslo", EntityType::Loc),
        ];
        let rendered = "Born in 2003 in a city near Oslo.";
        let replaced = vec![std::ops::Range { start: 8, end: 12 }];
        let survivors = surviving_masked_strings(original, &mentions, rendered, &replaced);
        assert_eq!(
            survivors,
            [
                Survivor {
                    mention: 0,
                    at: 8,
                    in_replacement: true
                },
                Survivor {
                    mention: 1,
                    at: 28,
                    in_replacement: false
                }
            ]
        );
    }
}
