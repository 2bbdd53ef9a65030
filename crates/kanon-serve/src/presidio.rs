//! Presidio's REST bodies and its anonymizer's operators, so that a Presidio client switches to
//! kanon by changing the URL. Offsets are Python `str` indices — Unicode code points — as
//! Presidio's and kanon's own ([`kanon_core::Span`]) are.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sha2::Digest;

/// `POST /analyze`'s body (fields Presidio takes that kanon does not use — `correlation_id`,
/// `return_decision_process`, `context`, … — are accepted and ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct AnalyzeRequest {
    /// The text.
    pub text: String,
    /// Its language: kanon's tagger reads English (`en`).
    pub language: String,
    /// Only these entity types (Presidio's or kanon's names); all when absent.
    #[serde(default)]
    pub entities: Option<Vec<String>>,
    /// Only results scored at least this.
    #[serde(default)]
    pub score_threshold: Option<f32>,
}

/// One detected entity, as Presidio's analyzer answers it and its anonymizer reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecognizerResult {
    /// Presidio's name of the type ([`crate::entities`]).
    pub entity_type: String,
    /// First code point.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// The detector's confidence (the mean probability of the span's pieces).
    pub score: f32,
}

/// `POST /anonymize`'s body.
#[derive(Debug, Clone, Deserialize)]
pub struct AnonymizeRequest {
    /// The text.
    pub text: String,
    /// What to replace (an analyzer's results).
    pub analyzer_results: Vec<RecognizerResult>,
    /// An operator per entity type; `DEFAULT` for the others (default: `replace` with
    /// `<ENTITY_TYPE>`).
    #[serde(default)]
    pub anonymizers: HashMap<String, Operator>,
}

/// An anonymizer operator, tagged by `type` as Presidio's are.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Operator {
    /// `new_value` in place of the entity (default `<ENTITY_TYPE>`).
    Replace {
        /// The replacement.
        #[serde(default)]
        new_value: Option<String>,
    },
    /// The entity removed.
    Redact {},
    /// `chars_to_mask` characters replaced by `masking_char`, from the start or the end.
    Mask {
        /// The character written (one character).
        masking_char: String,
        /// How many characters.
        chars_to_mask: usize,
        /// From the end.
        #[serde(default)]
        from_end: bool,
    },
    /// The hex digest of the entity's text (`sha256` or `sha512`; unsalted, so equal entities
    /// hash alike across requests).
    Hash {
        /// `sha256` (default) or `sha512`.
        #[serde(default)]
        hash_type: Option<String>,
    },
    /// The entity left as it is.
    Keep {},
    /// kanon's sanitizer over the whole text: consistent numbered labels per entity,
    /// generalizations (INTACT), … (`strategy`, default the service's). Alone in a request:
    /// it decides every entity together.
    Kanon {
        /// A `kanon sanitize --strategy` name.
        #[serde(default)]
        strategy: Option<String>,
    },
}

impl Operator {
    /// Its name in the answer's items.
    pub fn name(&self) -> &'static str {
        match self {
            Operator::Replace { .. } => "replace",
            Operator::Redact {} => "redact",
            Operator::Mask { .. } => "mask",
            Operator::Hash { .. } => "hash",
            Operator::Keep {} => "keep",
            Operator::Kanon { .. } => "kanon",
        }
    }

    /// Checks its parameters (Presidio's checks).
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Operator::Mask { masking_char, .. } if masking_char.chars().count() != 1 => Err(
                format!("mask: masking_char {masking_char:?} is not one character"),
            ),
            Operator::Hash {
                hash_type: Some(hash),
            } if hash != "sha256" && hash != "sha512" => {
                Err(format!("hash: hash_type {hash:?} is not sha256 or sha512"))
            }
            _ => Ok(()),
        }
    }

    /// What replaces `original`, an entity of type `entity_type`.
    fn apply(&self, original: &str, entity_type: &str) -> String {
        match self {
            Operator::Replace { new_value } => match new_value.as_deref() {
                Some(value) if !value.is_empty() => value.to_owned(),
                _ => format!("<{entity_type}>"),
            },
            Operator::Redact {} => String::new(),
            Operator::Mask {
                masking_char,
                chars_to_mask,
                from_end,
            } => {
                let chars: Vec<char> = original.chars().collect();
                let n = (*chars_to_mask).min(chars.len());
                let (from, to) = if *from_end {
                    (chars.len() - n, chars.len())
                } else {
                    (0, n)
                };
                chars
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| {
                        if (from..to).contains(&i) {
                            masking_char.as_str().to_owned()
                        } else {
                            c.to_string()
                        }
                    })
                    .collect()
            }
            Operator::Hash { hash_type } => {
                let bytes = original.as_bytes();
                let digest: Vec<u8> = match hash_type.as_deref() {
                    Some("sha512") => sha2::Sha512::digest(bytes).to_vec(),
                    _ => sha2::Sha256::digest(bytes).to_vec(),
                };
                digest.iter().map(|b| format!("{b:02x}")).collect()
            }
            Operator::Keep {} | Operator::Kanon { .. } => original.to_owned(),
        }
    }
}

/// One replacement in `POST /anonymize`'s answer: where it stands in the *output* text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// First code point in the output.
    pub start: usize,
    /// One past the last.
    pub end: usize,
    /// The entity's type, as given.
    pub entity_type: String,
    /// What stands there.
    pub text: String,
    /// The operator's name.
    pub operator: String,
    /// The result's score (absent for the kanon operator, whose edits may be repeats of a
    /// result rather than a result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// `POST /anonymize`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnonymizeResponse {
    /// The anonymized text.
    pub text: String,
    /// The replacements, last in the text first (Presidio's order).
    pub items: Vec<Item>,
}

/// Checks that each result is a span of a text of `chars` code points.
pub fn check_results(results: &[RecognizerResult], chars: usize) -> Result<(), String> {
    for (i, result) in results.iter().enumerate() {
        if result.start >= result.end || result.end > chars {
            return Err(format!(
                "analyzer_results[{i}]: start {} and end {} are not a span of the {chars}-character text",
                result.start, result.end
            ));
        }
    }
    Ok(())
}

/// Presidio's default conflict resolution (`merge_similar_or_contained`): overlapping results
/// of one type merged (the wider extent, the higher score); then a result dropped when another
/// contains it, or covers the same characters with a score at least as high.
pub fn resolve_conflicts(results: &[RecognizerResult]) -> Vec<RecognizerResult> {
    // Presidio's loops over shared objects, by index: a merge widens the entry that a later
    // iteration (or the kept list) sees.
    let mut items: Vec<RecognizerResult> = results.to_vec();
    let mut others: Vec<usize> = (0..items.len()).collect();
    let mut kept: Vec<usize> = Vec::new();
    for i in 0..items.len() {
        others.retain(|&o| o != i);
        let (start, end, score) = (items[i].start, items[i].end, items[i].score);
        let target = others.iter().copied().find(|&o| {
            items[o].entity_type == items[i].entity_type
                && start.max(items[o].start) < end.min(items[o].end)
        });
        match target {
            Some(o) => {
                let other = &mut items[o];
                other.start = other.start.min(start);
                other.end = other.end.max(end);
                other.score = other.score.max(score);
            }
            None => {
                others.push(i);
                kept.push(i);
            }
        }
    }
    let mut unique: Vec<usize> = Vec::new();
    let mut others = kept.clone();
    for &i in &kept {
        others.retain(|&o| o != i);
        let result = &items[i];
        let conflicted = others.iter().any(|&o| {
            let other = &items[o];
            if other.start == result.start && other.end == result.end {
                result.score <= other.score
            } else {
                other.start <= result.start && result.end <= other.end
            }
        });
        if !conflicted {
            others.push(i);
            unique.push(i);
        }
    }
    unique.into_iter().map(|i| items[i].clone()).collect()
}

/// Joins results of one type separated only by whitespace (Presidio does before operating).
fn merge_whitespace_separated(
    chars: &[char],
    mut results: Vec<RecognizerResult>,
) -> Vec<RecognizerResult> {
    results.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<RecognizerResult> = Vec::new();
    for result in results {
        if let Some(last) = merged.last_mut()
            && last.entity_type == result.entity_type
            && last.end <= result.start
            && chars[last.end..result.start]
                .iter()
                .all(|c| c.is_whitespace())
        {
            last.end = result.end;
            last.score = last.score.max(result.score);
            continue;
        }
        merged.push(result);
    }
    merged
}

/// Presidio's anonymizer with its own operators: conflicts resolved, neighbours of one type
/// joined, each result replaced by its type's operator (`DEFAULT`'s, else `replace`).
pub fn anonymize(
    text: &str,
    results: &[RecognizerResult],
    operators: &HashMap<String, Operator>,
) -> AnonymizeResponse {
    let chars: Vec<char> = text.chars().collect();
    let results = merge_whitespace_separated(&chars, resolve_conflicts(results));
    let default = Operator::Replace { new_value: None };
    let mut out = String::with_capacity(text.len());
    let mut items = Vec::with_capacity(results.len());
    let mut at = 0usize;
    let mut out_chars = 0usize;
    for result in &results {
        if result.start < at {
            // Overlaps of different types that neither contains: Presidio applies both and
            // garbles the text; kanon keeps the first.
            continue;
        }
        let before: String = chars[at..result.start].iter().collect();
        out_chars += result.start - at;
        out.push_str(&before);
        let original: String = chars[result.start..result.end].iter().collect();
        let operator = operators
            .get(&result.entity_type)
            .or_else(|| operators.get("DEFAULT"))
            .unwrap_or(&default);
        let replacement = operator.apply(&original, &result.entity_type);
        let length = replacement.chars().count();
        items.push(Item {
            start: out_chars,
            end: out_chars + length,
            entity_type: result.entity_type.clone(),
            text: replacement.clone(),
            operator: operator.name().into(),
            score: Some(result.score),
        });
        out.push_str(&replacement);
        out_chars += length;
        at = result.end;
    }
    out.extend(chars[at..].iter());
    items.reverse();
    AnonymizeResponse { text: out, items }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(entity_type: &str, start: usize, end: usize, score: f32) -> RecognizerResult {
        RecognizerResult {
            entity_type: entity_type.into(),
            start,
            end,
            score,
        }
    }

    #[test]
    fn presidio_readme_example() {
        // Presidio's own example: "My name is Bond, James Bond", both PERSON, replaced by BIP.
        let text = "My name is Bond, James Bond";
        let operators = HashMap::from([(
            "PERSON".to_owned(),
            Operator::Replace {
                new_value: Some("BIP".into()),
            },
        )]);
        let out = anonymize(
            text,
            &[result("PERSON", 11, 15, 0.8), result("PERSON", 17, 27, 0.8)],
            &operators,
        );
        assert_eq!(out.text, "My name is BIP, BIP");
        assert_eq!(
            out.items
                .iter()
                .map(|i| (i.start, i.end))
                .collect::<Vec<_>>(),
            vec![(16, 19), (11, 14)]
        );
    }

    #[test]
    fn operators_and_conflicts() {
        let text = "Zoë Müller phoned 555-0199 from Zürich.";
        let operators = HashMap::from([
            (
                "CODE".to_owned(),
                Operator::Mask {
                    masking_char: "*".into(),
                    chars_to_mask: 4,
                    from_end: true,
                },
            ),
            ("LOCATION".to_owned(), Operator::Redact {}),
            ("PERSON".to_owned(), Operator::Hash { hash_type: None }),
        ]);
        let out = anonymize(
            text,
            &[
                result("PERSON", 0, 10, 0.9),
                result("PERSON", 4, 10, 0.5), // contained: dropped
                result("CODE", 18, 26, 0.9),
                result("LOCATION", 32, 38, 0.9),
            ],
            &operators,
        );
        let digest: String = sha2::Sha256::digest("Zoë Müller".as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(out.text, format!("{digest} phoned 555-**** from ."));
        assert_eq!(out.items.len(), 3);
        assert_eq!(out.items[2].end, 64);
        // Same type, overlapping: merged into their union.
        let merged =
            resolve_conflicts(&[result("PERSON", 0, 6, 0.4), result("PERSON", 4, 10, 0.7)]);
        assert_eq!(merged, vec![result("PERSON", 0, 10, 0.7)]);
    }
}
