//! Mentions of one entity get one replacement. Annotated `entity_id`s group mentions as given;
//! otherwise mentions of one type are grouped by their normalised words and longest common
//! subsequence, so `L. Trosterud`, `Lilian Trosterud` and `Trosterud, Lilian` are one person.

use std::collections::HashMap;

use kanon_core::{EntityType, Span};
use serde::{Deserialize, Serialize};

/// A span to sanitize.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mention {
    /// Character offsets into the document's text.
    #[serde(flatten)]
    pub span: Span,
    /// The detected (or annotated) type; it decides the replacement's path.
    #[serde(rename = "type")]
    pub entity_type: EntityType,
    /// Mentions with the same id are one entity (TAB's `entity_id`); `None`: decided by similarity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_id: Option<String>,
}

impl Mention {
    /// A span as a spans file records it (`kanon detect`'s output, a gold file): a span without
    /// a type is MISC.
    pub fn of_record(record: &kanon_core::spans::SpanRecord) -> Self {
        Mention {
            span: record.span(),
            entity_type: record.entity_type.unwrap_or(EntityType::Misc),
            entity_id: record.entity_id.clone(),
        }
    }

    /// The characters `start..end` of the text, grouped with others by similarity.
    pub fn new(start: usize, end: usize, entity_type: EntityType) -> Self {
        Mention {
            span: Span::new(start, end),
            entity_type,
            entity_id: None,
        }
    }

    /// Puts the mention in the entity `entity_id`, with every mention that has the same id.
    pub fn with_entity_id(mut self, entity_id: impl Into<String>) -> Self {
        self.entity_id = Some(entity_id.into());
        self
    }
}

/// The mentions of one entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityGroup {
    /// The type most of its mentions have.
    pub entity_type: EntityType,
    /// Indices into the mention list, in document order.
    pub mentions: Vec<usize>,
    /// 1-based, per type, in order of first mention: `PERSON 1` is the first person mentioned.
    pub number: usize,
}

impl EntityGroup {
    /// `PERSON 1`.
    pub fn label(&self) -> String {
        format!("{} {}", self.entity_type, self.number)
    }
}

/// Two mentions whose normalised text has at least this LCS similarity are one entity.
const LCS_SIMILARITY: f64 = 0.85;

/// Groups `mentions` (sorted by start, non-overlapping) of `text`. Returns the groups in order of
/// their first mention.
pub fn group_mentions(text: &str, mentions: &[Mention]) -> Vec<EntityGroup> {
    let surfaces: Vec<&str> = mentions
        .iter()
        .map(|mention| mention.span.slice(text).unwrap_or(""))
        .collect();
    let mut group_of: Vec<usize> = vec![usize::MAX; mentions.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for (index, mention) in mentions.iter().enumerate() {
        if let Some(id) = mention.entity_id.as_deref() {
            let group = *by_id.entry(id).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[group].push(index);
            group_of[index] = group;
        }
    }
    // Longest mentions first, so that full names found groups and short forms join them.
    let mut unnamed: Vec<usize> = (0..mentions.len())
        .filter(|&index| mentions[index].entity_id.is_none())
        .collect();
    unnamed.sort_by_key(|&index| {
        (
            std::cmp::Reverse(name_words(surfaces[index], mentions[index].entity_type).len()),
            index,
        )
    });
    let mut similarity_groups: Vec<usize> = Vec::new();
    for index in unnamed {
        let entity_type = mentions[index].entity_type;
        let joined = similarity_groups.iter().copied().find(|&group| {
            let representative = groups[group][0];
            mentions[representative].entity_type == entity_type
                && same_entity(surfaces[representative], surfaces[index], entity_type)
        });
        let group = joined.unwrap_or_else(|| {
            groups.push(Vec::new());
            similarity_groups.push(groups.len() - 1);
            groups.len() - 1
        });
        groups[group].push(index);
        group_of[index] = group;
    }
    for members in &mut groups {
        members.sort_unstable();
    }
    groups.sort_by_key(|members| members[0]);
    let mut groups: Vec<EntityGroup> = groups
        .into_iter()
        .map(|members| EntityGroup {
            entity_type: majority_type(mentions, &members),
            mentions: members,
            number: 0,
        })
        .collect();
    renumber(&mut groups);
    groups
}

/// The type most of the mentions have (annotators may disagree on one entity's mentions); a tie
/// goes to the type seen first.
fn majority_type(mentions: &[Mention], members: &[usize]) -> EntityType {
    let mut counts: Vec<(EntityType, usize)> = Vec::new();
    for &index in members {
        let entity_type = mentions[index].entity_type;
        match counts.iter_mut().find(|(seen, _)| *seen == entity_type) {
            Some((_, count)) => *count += 1,
            None => counts.push((entity_type, 1)),
        }
    }
    let best = counts.iter().map(|(_, count)| *count).max().unwrap_or(0);
    counts
        .into_iter()
        .find(|(_, count)| *count == best)
        .map_or(EntityType::Misc, |(entity_type, _)| entity_type)
}

/// Orders the groups by their first mention (indices into a mention list sorted by start) and
/// numbers them per type in that order: `ORG 1` is read before `ORG 2`.
pub fn renumber(groups: &mut [EntityGroup]) {
    for group in groups.iter_mut() {
        group.mentions.sort_unstable();
    }
    groups.sort_by_key(|group| group.mentions.first().copied().unwrap_or(usize::MAX));
    let mut numbers: HashMap<EntityType, usize> = HashMap::new();
    for group in groups {
        let number = numbers.entry(group.entity_type).or_insert(0);
        *number += 1;
        group.number = *number;
    }
}

/// The folded words of a mention; a person written `Last, First` is turned around.
fn name_words(surface: &str, entity_type: EntityType) -> Vec<String> {
    if entity_type == EntityType::Person
        && let Some((last, first)) = surface.split_once(',')
        && !first.contains(',')
        && !first.trim().is_empty()
    {
        let mut words = kanon_core::text::words(first);
        words.extend(kanon_core::text::words(last));
        return words;
    }
    kanon_core::text::words(surface)
}

/// Whether two mentions of one type name the same entity.
pub fn same_entity(a: &str, b: &str, entity_type: EntityType) -> bool {
    let a_words = name_words(a, entity_type);
    let b_words = name_words(b, entity_type);
    if a_words.is_empty() || b_words.is_empty() {
        return false;
    }
    if a_words == b_words {
        return true;
    }
    // Numbers must agree: `5 August 2003` is not `6 August 2003`, nor `Apollo 11` `Apollo 13`.
    let numbers = |words: &[String]| {
        let mut numbers: Vec<String> = words
            .iter()
            .filter(|word| word.chars().any(|c| c.is_ascii_digit()))
            .cloned()
            .collect();
        numbers.sort();
        numbers
    };
    if matches!(
        entity_type,
        EntityType::Datetime | EntityType::Quantity | EntityType::Code
    ) || numbers(&a_words) != numbers(&b_words)
    {
        return false;
    }
    let sorted = |words: &[String]| {
        let mut words = words.to_vec();
        words.sort();
        words.join(" ")
    };
    if lcs_similarity(&a_words.join(" "), &b_words.join(" ")) >= LCS_SIMILARITY
        || lcs_similarity(&sorted(&a_words), &sorted(&b_words)) >= LCS_SIMILARITY
    {
        return true;
    }
    entity_type == EntityType::Person && name_covers(&a_words, &b_words)
}

/// Every word of the shorter name is a word, an initial or a near spelling of a distinct word of
/// the longer one, and at least one is more than an initial: `L. Trosterud` ~ `Lilian Trosterud`,
/// `Kodnani` ~ `Maya Surendrakumar Kodnani`.
fn name_covers(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut used = vec![false; long.len()];
    let mut full_word = false;
    for word in short {
        let is_initial = word.chars().count() == 1;
        let found = long.iter().enumerate().find(|(index, other)| {
            !used[*index]
                && if is_initial {
                    other.starts_with(word.as_str())
                } else {
                    *other == word || lcs_similarity(word, other) >= LCS_SIMILARITY
                }
        });
        match found {
            Some((index, _)) => {
                used[index] = true;
                full_word |= !is_initial;
            }
            None => return false,
        }
    }
    full_word
}

/// `2 · LCS(a, b) / (|a| + |b|)` over characters, in [0, 1].
pub fn lcs_similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut previous = vec![0usize; b.len() + 1];
    let mut current = vec![0usize; b.len() + 1];
    for &ca in &a {
        for (j, &cb) in b.iter().enumerate() {
            current[j + 1] = if ca == cb {
                previous[j] + 1
            } else {
                previous[j + 1].max(current[j])
            };
        }
        std::mem::swap(&mut previous, &mut current);
    }
    2.0 * previous[b.len()] as f64 / (a.len() + b.len()) as f64
}
