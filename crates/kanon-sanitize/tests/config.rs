//! The sanitizer config: one JSON file, serde-tagged strategies, a validating builder.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_core::config::ConfigFile;
use kanon_sanitize::{DirectStyle, SanitizerConfig, Strategy};

#[test]
fn round_trips_through_one_json_file() {
    let config = SanitizerConfig::builder()
        .strategy(Strategy::MostSpecific)
        .direct_style(DirectStyle::Description)
        .candidates(4)
        .attacker_guesses(3)
        .temperature(0.7)
        .seed(42)
        .max_tokens(64)
        .ignore_candidate_words(false)
        .attack_context_chars(2_000)
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sanitize.json");
    config.save(&path).unwrap();
    assert_eq!(SanitizerConfig::load(&path).unwrap(), config);
    let json = std::fs::read_to_string(&path).unwrap();
    assert!(
        json.contains(r#""strategy": {"#) && json.contains(r#""type": "most-specific""#),
        "{json}"
    );
    assert!(json.contains(r#""direct_style": "description""#), "{json}");
}

#[test]
fn missing_fields_default_and_unknown_ones_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sanitize.json");
    std::fs::write(&path, r#"{"strategy": {"type": "suppress"}, "seed": 7}"#).unwrap();
    let config = SanitizerConfig::load(&path).unwrap();
    assert_eq!(config.strategy, Strategy::Suppress);
    assert_eq!((config.seed, config.candidates), (7, 5));
    std::fs::write(&path, r#"{"candidate": 3}"#).unwrap();
    let err = SanitizerConfig::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("sanitize.json") && err.contains("unknown field `candidate`"),
        "{err}"
    );
    std::fs::write(&path, r#"{"candidates": 0}"#).unwrap();
    let err = SanitizerConfig::load(&path).unwrap_err().to_string();
    assert!(err.contains("candidates = 0"), "{err}");
}

#[test]
fn the_builder_validates() {
    assert!(SanitizerConfig::builder().candidates(11).build().is_err());
    assert!(
        SanitizerConfig::builder()
            .attacker_guesses(0)
            .build()
            .is_err()
    );
    assert!(
        SanitizerConfig::builder()
            .temperature(-1.0)
            .build()
            .is_err()
    );
    assert!(SanitizerConfig::builder().max_tokens(0).build().is_err());
    assert!(
        SanitizerConfig::builder()
            .placeholder("a\nb")
            .build()
            .is_err()
    );
    assert_eq!(
        SanitizerConfig::builder().build().unwrap(),
        SanitizerConfig::default()
    );
}

#[test]
fn strategies_by_name() {
    for strategy in Strategy::ALL {
        assert_eq!(strategy.as_str().parse::<Strategy>().unwrap(), strategy);
        let json = serde_json::to_string(&strategy).unwrap();
        assert_eq!(json, format!(r#"{{"type":"{strategy}"}}"#));
    }
    let err = "greedy".parse::<Strategy>().unwrap_err().to_string();
    assert!(
        err.contains("intact") && err.contains("numbered-label"),
        "{err}"
    );
    assert_eq!(Strategy::default(), Strategy::Intact);
}

#[test]
fn paper_defaults_and_kanon_variants_round_trip_through_toml_and_json() {
    use kanon_sanitize::config::{
        AttackPrompt, GenerationPrompt, GuessFilter, NgramMatch, Representative,
    };
    let paper = SanitizerConfig::default();
    assert_eq!(
        (
            paper.temperature,
            paper.max_tokens,
            paper.generation_prompt,
            paper.attack_prompt,
            paper.representative,
            paper.guess_filter,
            paper.ignore_candidate_words,
            paper.ngram_match,
        ),
        (
            0.3,
            512,
            GenerationPrompt::Paper,
            AttackPrompt::Paper,
            Representative::First,
            GuessFilter::KeepAll,
            false,
            NgramMatch::AnyShared,
        )
    );
    let kanon = SanitizerConfig::builder().kanon_variants().build().unwrap();
    assert_eq!(
        (
            kanon.temperature,
            kanon.max_tokens,
            kanon.generation_prompt,
            kanon.attack_prompt,
            kanon.representative,
            kanon.guess_filter,
            kanon.ignore_candidate_words,
            kanon.ngram_match,
        ),
        (
            0.0,
            48,
            GenerationPrompt::OneShotExample,
            AttackPrompt::ZeroShot,
            Representative::Longest,
            GuessFilter::Strict,
            true,
            NgramMatch::Dice { threshold: 0.6 },
        )
    );
    let dir = tempfile::tempdir().unwrap();
    for config in [paper, kanon] {
        for name in ["sanitize.toml", "sanitize.json"] {
            let path = dir.path().join(name);
            config.save(&path).unwrap();
            assert_eq!(SanitizerConfig::load(&path).unwrap(), config, "{name}");
        }
    }
    let path = dir.path().join("kanon.toml");
    std::fs::write(
        &path,
        "generation_prompt = \"one-shot-example\"\nattack_prompt = \"zero-shot\"\n\
         representative = \"longest\"\nguess_filter = \"strict\"\n\
         [ngram_match]\ntype = \"dice\"\nthreshold = 0.6\n",
    )
    .unwrap();
    let read = SanitizerConfig::load(&path).unwrap();
    assert_eq!(read.ngram_match, NgramMatch::Dice { threshold: 0.6 });
    assert_eq!(read.guess_filter, GuessFilter::Strict);
    std::fs::write(&path, "[ngram_match]\ntype = \"dice\"\nthreshold = 0.0\n").unwrap();
    let err = SanitizerConfig::load(&path).unwrap_err().to_string();
    assert!(err.contains("ngram_match.threshold = 0"), "{err}");
}
