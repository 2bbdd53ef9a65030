//! Nothing masked survives: over every wiki553 dev document with its gold spans and every
//! strategy — the generalizing ones with a model that tries hard to leak (its candidates repeat
//! the phrase and name the capitalised words of its sentence, its attacker never recovers
//! anything, so the leakiest candidate is chosen) — no masked string stands as a word in the
//! shareable output, but a masked year inside a coarser date of the ladder.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::PathBuf;

use kanon_core::EntityType;
use kanon_llm::{ChatModel, ChatRequest, ChatResponse, Choice, ModelId, Usage};
use kanon_sanitize::coverage::surviving_masked_strings;
use kanon_sanitize::{Mention, Reason, Sanitizer, SanitizerConfig, Strategy};

/// Proposes the phrase itself, then phrases naming each capitalised word of the sentence; as the
/// attacker, guesses nothing of use.
struct LeakyModel;

impl ChatModel for LeakyModel {
    fn id(&self) -> ModelId {
        ModelId::new("scripted", "leaky")
    }

    fn chat(&self, request: &ChatRequest) -> kanon_llm::Result<ChatResponse> {
        let prompt = request.last_user_message();
        let line = |key: &str| {
            prompt
                .lines()
                .find_map(|line| line.strip_prefix(key))
                .unwrap_or("")
                .to_owned()
        };
        let text = if prompt.contains("Phrase: ") {
            let phrase = line("Phrase: ");
            let sentence = line("Sentence: ");
            let mut candidates = vec![phrase.clone(), format!("the {phrase}")];
            for word in phrase.split_whitespace().chain(sentence.split_whitespace()) {
                let word = word.trim_matches(|c: char| !c.is_alphanumeric());
                if word.starts_with(char::is_uppercase) || word.chars().any(|c| c.is_ascii_digit())
                {
                    candidates.push(format!("a place near {word}"));
                }
                if candidates.len() >= 8 {
                    break;
                }
            }
            candidates.push("something".to_owned());
            candidates
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{}. {c}", i + 1))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            "1. nobody knows".to_owned()
        };
        Ok(ChatResponse {
            choices: vec![Choice {
                text,
                logprobs: None,
            }],
            usage: Usage::default(),
        })
    }
}

fn wiki553() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/wiki553/dev_100_tab_schema.json");
    path.exists().then_some(path)
}

#[test]
fn no_masked_string_survives_on_wiki553_for_any_strategy() {
    let Some(path) = wiki553() else {
        kanon_core::testing::skip(kanon_core::testing::Requirement::SharedData("wiki553"));
        return;
    };
    let docs = kanon_core::tab::read_tab(&path).unwrap();
    let model = LeakyModel;
    let strategies = [
        Strategy::Suppress,
        Strategy::Placeholder,
        Strategy::Label,
        Strategy::NumberedLabel,
        Strategy::MostSpecific,
        Strategy::LeastSpecific,
        Strategy::Intact,
    ];
    let mut checked = 0;
    let mut propagated = 0;
    for strategy in strategies {
        let config = SanitizerConfig::builder()
            .strategy(strategy)
            .build()
            .unwrap();
        let sanitizer = Sanitizer::new(config).unwrap().with_model(&model);
        for doc in &docs {
            let mentions: Vec<Mention> = doc
                .masked_mentions()
                .into_iter()
                .map(|m| {
                    Mention::new(m.span.start, m.span.end, m.entity_type).with_entity_id(m.entity)
                })
                .collect();
            let sanitized = sanitizer
                .sanitize(&doc.doc_id, &doc.text, &mentions)
                .unwrap();
            propagated += sanitized.stats.propagated_spans;
            let edits = &sanitized.document.edits;
            for survivor in surviving_masked_strings(
                &doc.text,
                &mentions,
                &sanitized.document.text,
                &sanitized.replaced,
            ) {
                let masked = mentions[survivor.mention].span.slice(&doc.text).unwrap();
                assert!(
                    survivor.in_replacement,
                    "{strategy} {}: {masked:?} survives at {} of {:?}",
                    doc.doc_id, survivor.at, sanitized.document.text
                );
                let edit = edits
                    .iter()
                    .zip(&sanitized.replaced)
                    .find(|(_, range)| range.contains(&survivor.at))
                    .map(|(edit, _)| edit)
                    .unwrap();
                let label_written_by_kanon = matches!(
                    edit.reason,
                    Reason::Label
                        | Reason::NumberedLabel
                        | Reason::DirectIdentifier
                        | Reason::AllGuessed
                        | Reason::NoCandidates
                );
                let date_in_date = edit.original_type == EntityType::Datetime
                    && mentions[survivor.mention].entity_type == EntityType::Datetime;
                assert!(
                    label_written_by_kanon || date_in_date,
                    "{strategy} {}: {masked:?} inside the replacement {:?}",
                    doc.doc_id,
                    edit.replacement
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 7 * docs.len());
    assert!(propagated > 0, "the gold leaves repeats unannotated");
}
