//! TPS on toy documents with a scripted language model and scripted similarities, every figure
//! worked out by hand.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};

use kanon_core::Document;
use kanon_eval::Error;
use kanon_eval::tps::{TermSimilarity, TpsEvaluator};
use kanon_llm::score::SpanInformation;
use kanon_llm::{ModelId, ScoredToken, TextScorer};
use kanon_sanitize::SanitizedDocument;

/// Words are tokens; a capitalised word costs 3 nats, any other 1; a token for the space before
/// each word costs 0.5 and is glued to the word ("␣Vienna"), as BPE tokenizers do.
struct Scripted {
    calls: AtomicUsize,
}

impl TextScorer for Scripted {
    fn id(&self) -> ModelId {
        ModelId::new("scripted", "words")
    }
    fn token_logprobs(&self, text: &str) -> kanon_llm::Result<Vec<ScoredToken>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let chars: Vec<char> = text.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let start = i;
            // A token: leading spaces, then a run of non-spaces.
            while i < chars.len() && chars[i] == ' ' {
                i += 1;
            }
            let word_start = i;
            while i < chars.len() && chars[i] != ' ' {
                i += 1;
            }
            let cost = if chars.get(word_start).is_some_and(|c| c.is_uppercase()) {
                3.0
            } else {
                1.0
            };
            let spaces = (word_start - start) as f32 * 0.5;
            tokens.push(ScoredToken {
                start,
                end: i,
                logprob: -(cost + spaces),
            });
        }
        Ok(tokens)
    }
}

/// "a city" is 0.5 like what it replaced, "PERSON" 0.25, anything else 0.9.
struct Table;

impl TermSimilarity for Table {
    fn id(&self) -> String {
        "table".into()
    }
    fn similarities(&self, pairs: &[(&str, &str)]) -> kanon_eval::Result<Vec<f64>> {
        Ok(pairs
            .iter()
            .map(|(_, replacement)| match *replacement {
                "a city" => 0.5,
                "PERSON" => 0.25,
                _ => 0.9,
            })
            .collect())
    }
}

fn original(id: &str, text: &str) -> Document {
    Document {
        id: id.into(),
        person: None,
        text: text.into(),
        split: None,
    }
}

fn sanitized(id: &str, edits: &[(usize, usize, &str, &str)]) -> SanitizedDocument {
    let edits: Vec<serde_json::Value> = edits
        .iter()
        .map(|(start, end, replacement, reason)| {
            serde_json::json!({"start": start, "end": end, "original_type": "MISC", "entity": "MISC 1",
                "replacement": replacement, "reason": reason})
        })
        .collect();
    serde_json::from_value(serde_json::json!({"id": id, "text": "(not read)", "edits": edits}))
        .unwrap()
}

#[test]
fn tps_weighs_each_term_by_its_information_content() {
    // Tokens: "Lilian" 3, " sang" 1.5, " in" 1.5, " Vienna" 3.5, " with" 1.5, " Tomas" 3.5.
    let text = "Lilian sang in Vienna with Tomas";
    let originals = [original("d", text)];
    let scorer = Scripted {
        calls: AtomicUsize::new(0),
    };
    let evaluator = TpsEvaluator::new(&scorer, &Table);

    // Nothing replaced: every term kept.
    let report = evaluator
        .evaluate(&originals, &[sanitized("d", &[])])
        .unwrap();
    assert_eq!(report.tps, 1.0);
    // Terms: Lilian, sang, Vienna, Tomas ("in" and "with" are stopwords).
    assert_eq!((report.terms, report.replaced_terms), (4, 0));

    // Vienna [15, 21) → "a city" (0.5), Tomas [27, 32) → "PERSON" (0.25). The tokens " Vienna"
    // and " Tomas" begin with a space outside the term: whitespace is not content, so each counts
    // whole.
    let vienna = 3.5;
    let tomas = 3.5;
    let (lilian, sang) = (3.0, 1.5);
    let total = lilian + sang + vienna + tomas;
    let report = evaluator
        .evaluate(
            &originals,
            &[sanitized(
                "d",
                &[
                    (15, 21, "a city", "not-guessed"),
                    (27, 32, "PERSON", "label"),
                ],
            )],
        )
        .unwrap();
    let expected = (lilian + sang + 0.5 * vienna + 0.25 * tomas) / total;
    assert!(
        (report.tps - expected).abs() < 1e-9,
        "{} vs {expected}",
        report.tps
    );
    assert_eq!((report.terms, report.replaced_terms), (4, 2));

    // Suppressed and placeholder spans keep nothing, whatever the similarity model says.
    let report = evaluator
        .evaluate(
            &originals,
            &[sanitized(
                "d",
                &[(15, 21, "", "suppressed"), (27, 32, "***", "placeholder")],
            )],
        )
        .unwrap();
    let expected = (lilian + sang) / total;
    assert!((report.tps - expected).abs() < 1e-9);
    assert!(report.information_content.contains("scripted words"));
    assert_eq!(report.similarity, "table");

    // The original was scored once for all three evaluations.
    assert_eq!(scorer.calls.load(Ordering::SeqCst), 1);
}

#[test]
fn tps_takes_the_sum_of_a_term_s_surprisals_or_the_paper_s_least_probable_token() {
    let text = "Lilian sang in Vienna with Tomas";
    let originals = [original("d", text)];
    let scorer = Scripted {
        calls: AtomicUsize::new(0),
    };
    // One replaced term of three tokens, " Vienna" 3.5, " with" 1.5, " Tomas" 3.5, → "a city"
    // (0.5); kept: Lilian 3, sang 1.5.
    let edits = [sanitized("d", &[(15, 32, "a city", "not-guessed")])];
    let sum = TpsEvaluator::new(&scorer, &Table)
        .evaluate(&originals, &edits)
        .unwrap();
    let expected = (3.0 + 1.5 + 0.5 * 8.5) / (3.0 + 1.5 + 8.5);
    assert!(
        (sum.tps - expected).abs() < 1e-9,
        "{} vs {expected}",
        sum.tps
    );
    assert!(
        sum.information_content.contains("sum"),
        "{}",
        sum.information_content
    );
    let paper = TpsEvaluator::new(&scorer, &Table)
        .information(SpanInformation::MinProbability)
        .evaluate(&originals, &edits)
        .unwrap();
    let expected = (3.0 + 1.5 + 0.5 * 3.5) / (3.0 + 1.5 + 3.5);
    assert!(
        (paper.tps - expected).abs() < 1e-9,
        "{} vs {expected}",
        paper.tps
    );
    assert!(
        paper.information_content.contains("least probable"),
        "{}",
        paper.information_content
    );
}

#[test]
fn tps_is_the_mean_over_documents_and_skips_documents_without_terms() {
    let originals = [
        original("a", "Vienna"),
        original("b", "Tomas"),
        original("c", "the of"),
    ];
    let scorer = Scripted {
        calls: AtomicUsize::new(0),
    };
    let evaluator = TpsEvaluator::new(&scorer, &Table);
    let report = evaluator
        .evaluate(
            &originals,
            &[
                sanitized("a", &[(0, 6, "a city", "not-guessed")]),
                sanitized("b", &[]),
                sanitized("c", &[]),
            ],
        )
        .unwrap();
    assert_eq!((report.documents, report.documents_without_terms), (2, 1));
    assert!((report.tps - (0.5 + 1.0) / 2.0).abs() < 1e-9);
}

#[test]
fn sanitized_documents_that_do_not_fit_are_errors() {
    let originals = [original("d", "Lilian sang")];
    let scorer = Scripted {
        calls: AtomicUsize::new(0),
    };
    let evaluator = TpsEvaluator::new(&scorer, &Table);
    let unknown = evaluator.evaluate(&originals, &[sanitized("x", &[])]);
    assert!(matches!(unknown, Err(Error::UnknownSanitized { id }) if id == "x"));
    let outside = evaluator.evaluate(&originals, &[sanitized("d", &[(5, 40, "PERSON", "label")])]);
    let message = outside.unwrap_err().to_string();
    assert!(
        message.contains("5..40") && message.contains("11-character"),
        "{message}"
    );
    let twice = evaluator.evaluate(&originals, &[sanitized("d", &[]), sanitized("d", &[])]);
    assert!(twice.unwrap_err().to_string().contains("appears twice"));
    assert_eq!(evaluator.evaluate(&originals, &[]).unwrap().documents, 0);
}

#[test]
fn the_definition_is_a_setting_left_out_of_the_settings_when_default() {
    use kanon_eval::job::TpsModels;
    let paper: TpsModels = serde_json::from_str(r#"{"information": "min-probability"}"#).unwrap();
    assert_eq!(paper.information, SpanInformation::MinProbability);
    assert_eq!(paper.encoder, TpsModels::default().encoder);
    let json = serde_json::to_value(&paper).unwrap();
    assert_eq!(json["information"], "min-probability");
    // kanon's default serializes as before, so a run's eval stage keeps its hash.
    let default = serde_json::to_value(TpsModels::default()).unwrap();
    assert!(default.get("information").is_none(), "{default}");
    assert_eq!(
        serde_json::from_value::<TpsModels>(default).unwrap(),
        TpsModels::default()
    );
    assert!(serde_json::from_str::<TpsModels>(r#"{"information": "max"}"#).is_err());
}
