//! The sanitizer end to end with a scripted model: selection order and fallback, what the attacker
//! sees, the strategies, grammar, offsets in non-ASCII text, and the edit log.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::sync::Mutex;

use kanon_core::EntityType;
use kanon_llm::{ChatModel, ChatRequest, ChatResponse, ModelId, Role, ScriptedModel};
use kanon_sanitize::verify::ModelCandidates;
use kanon_sanitize::{
    DirectStyle, MatchRule, Mention, Reason, SanitizedDocument, Sanitizer, SanitizerConfig,
    Strategy,
};

const TEXT: &str = "Zoë Ølund was born in Tromsø on 5 August 2003. Ølund studied at the \
                    University of Tromsø and joined the Labour Party in 2021.";

/// Mentions of `(phrase, type)` in order: each phrase is found after the previous one.
fn mentions(text: &str, phrases: &[(&str, EntityType)]) -> Vec<Mention> {
    let mut from = 0;
    let mut out = Vec::new();
    for &(phrase, entity_type) in phrases {
        let byte = from + text[from..].find(phrase).unwrap();
        from = byte + phrase.len();
        let start = text[..byte].chars().count();
        out.push(Mention::new(
            start,
            start + phrase.chars().count(),
            entity_type,
        ));
    }
    out
}

fn biography_mentions() -> Vec<Mention> {
    use EntityType::*;
    mentions(
        TEXT,
        &[
            ("Zoë Ølund", Person),
            ("Tromsø", Loc),
            ("5 August 2003", Datetime),
            ("Ølund", Person),
            ("University of Tromsø", Org),
            ("Labour Party", Org),
            ("2021", Datetime),
        ],
    )
}

/// The generalizer and the attacker of the biography: Tromsø's first candidate is guessed, the
/// university's first two candidates reveal originals and are dropped, the party is always guessed.
fn biography_model() -> ScriptedModel {
    ScriptedModel::new("biography")
        .reply(
            "Phrase: Tromsø",
            "1. a city in northern Norway\n2. a Norwegian city\n3. a Scandinavian city\n4. a European city\n5. a city",
        )
        .reply(
            "Phrase: University of Tromsø",
            "Here are the generalizations:\n1. the University of Tromsø\n2. a university in Tromsø\n3. a Norwegian university\n4. a university",
        )
        .reply(
            "Phrase: Labour Party",
            "1. a Norwegian social democratic party\n2. a political party\n3. an organization",
        )
        .reply("[[a city in northern Norway]]", "1. Tromsø\n2. Bodø")
        .reply("[[a Norwegian city]]", "1. Bergen\n2. Oslo")
        .reply("[[August 2003]]", "1. 5 August 2003\n2. 12 August 2003")
        .reply("[[a Norwegian university]]", "1. University of Tromso\n2. UiT")
        .reply("[[a university]]", "1. University of Bergen\n2. NTNU")
        .reply("[[a Norwegian social democratic party]]", "- Labour Party")
        .reply("[[a political party]]", "- Labour")
        .reply("[[an organization]]", "- the Labour Party")
        .fallback("1. Oslo\n2. 1999")
}

/// kanon's variants of INTACT (greedy, the one-shot generation prompt, the zero-shot attack, the
/// longest mention, strict guesses, candidate words ignored, Dice ≥ 0.6): the tests of this file
/// pin them down; `the_paper_defaults` below tests INTACT's own.
fn kanon() -> SanitizerConfig {
    SanitizerConfig::builder().kanon_variants().build().unwrap()
}

fn sanitize(config: SanitizerConfig, model: &dyn ChatModel) -> kanon_sanitize::Sanitized {
    Sanitizer::new(config)
        .unwrap()
        .with_model(model)
        .sanitize("bio", TEXT, &biography_mentions())
        .unwrap()
}

#[test]
fn intact_takes_the_first_unguessed_candidate_and_falls_back_to_the_label() {
    let model = biography_model();
    let sanitized = sanitize(kanon(), &model);
    assert_eq!(
        sanitized.document.text,
        "PERSON 1 was born in a Norwegian city in summer 2003. PERSON 1 studied at a \
         university and joined the ORG 2 in the early 2020s."
    );
    let stats = &sanitized.stats;
    assert_eq!((stats.spans, stats.entities, stats.direct_spans), (7, 6, 2));
    assert_eq!(
        stats.chosen,
        vec![1, 3],
        "2021 took candidate 1; three took candidate 2"
    );
    assert_eq!(stats.all_guessed_spans, 1);
    assert_eq!(stats.ladder_entities, 2);
    assert_eq!(stats.rejected_candidates, 2);
    assert_eq!((stats.generation_calls, stats.attack_calls), (3, 10));
    assert_eq!(model.calls(), 13);
    let party = sanitized
        .document
        .edits
        .iter()
        .find(|edit| edit.entity == "ORG 2")
        .unwrap();
    assert_eq!(party.reason, Reason::AllGuessed);
    // The attacks on the party are in the audit, never in the shareable edits.
    let party = sanitized
        .audit
        .entities
        .iter()
        .find(|entity| entity.entity == "ORG 2")
        .unwrap();
    assert_eq!(party.attacks.len(), 3);
    assert!(party.attacks.iter().all(|attack| attack.recovered));
    assert_eq!(party.attacks[1].guesses[0].text, "Labour");
    assert_eq!(party.attacks[1].guesses[0].matched, Some(MatchRule::Lemma));
}

#[test]
fn the_edit_log_reads_well() {
    let sanitized = sanitize(kanon(), &biography_model());
    insta::assert_json_snapshot!("biography_intact", sanitized.document);
    insta::assert_json_snapshot!("biography_intact_audit", sanitized.audit);
}

/// Every word of the originals, the candidates and the guesses, as the audit holds them.
fn audited_strings(audit: &kanon_sanitize::AuditDocument) -> Vec<String> {
    let mut strings = Vec::new();
    for entity in &audit.entities {
        strings.extend(entity.mentions.iter().map(|m| m.text.clone()));
        strings.extend(entity.candidates.iter().map(|c| c.text.clone()));
        for attack in &entity.attacks {
            strings.extend(attack.guesses.iter().map(|g| g.text.clone()));
        }
    }
    strings
}

#[test]
fn the_shareable_output_holds_no_original_candidate_or_guess() {
    for strategy in [
        Strategy::Intact,
        Strategy::MostSpecific,
        Strategy::LeastSpecific,
    ] {
        let config = SanitizerConfig::builder()
            .kanon_variants()
            .strategy(strategy)
            .build()
            .unwrap();
        let sanitized = sanitize(config, &biography_model());
        let json = serde_json::to_string(&sanitized.document).unwrap();
        let shown: Vec<&str> = sanitized
            .document
            .edits
            .iter()
            .map(|edit| edit.replacement.as_str())
            .collect();
        for string in audited_strings(&sanitized.audit) {
            // A chosen candidate is the text itself; anything else must not appear.
            if shown.iter().any(|s| s.eq_ignore_ascii_case(&string)) {
                continue;
            }
            assert!(
                !json.contains(&format!("\"{string}\"")),
                "{strategy}: {string:?} in {json}"
            );
        }
        for name in ["Tromsø", "Ølund", "UiT", "Labour", "Bodø", "Bergen", "NTNU"] {
            assert!(!json.contains(name), "{strategy}: {name} in {json}");
        }
    }
}

/// Records the last user message of every request, then answers like `inner`.
struct Recording<M> {
    inner: M,
    prompts: Mutex<Vec<String>>,
}

impl<M: ChatModel> ChatModel for Recording<M> {
    fn id(&self) -> ModelId {
        self.inner.id()
    }
    fn chat(&self, request: &ChatRequest) -> kanon_llm::Result<ChatResponse> {
        let prompt = request.last_user_message().to_owned();
        self.prompts.lock().unwrap().push(prompt);
        self.inner.chat(request)
    }
}

fn data_section(prompt: &str) -> &str {
    let start = prompt.find("<data>\n").unwrap() + "<data>\n".len();
    let end = prompt.find("\n</data>").unwrap();
    &prompt[start..end]
}

#[test]
fn the_attacker_sees_chosen_replacements_before_and_most_specific_candidates_after() {
    let model = Recording {
        inner: biography_model(),
        prompts: Mutex::new(Vec::new()),
    };
    sanitize(kanon(), &model);
    let prompts = model.prompts.lock().unwrap();
    let attacks: Vec<&str> = prompts
        .iter()
        .filter(|prompt| prompt.contains("[["))
        .map(|prompt| data_section(prompt))
        .collect();
    assert_eq!(attacks.len(), 10);
    // The first attack: Tromsø's first candidate; later entities show their most specific one.
    assert_eq!(
        attacks[0],
        "PERSON 1 was born in [[a city in northern Norway]] in August 2003. PERSON 1 studied at a \
         Norwegian university and joined a Norwegian social democratic party in the early 2020s."
    );
    // The date's second candidate: Tromsø already has its chosen replacement.
    assert_eq!(
        attacks[3],
        "PERSON 1 was born in a Norwegian city in [[summer 2003]]. PERSON 1 studied at a \
         Norwegian university and joined a Norwegian social democratic party in the early 2020s."
    );
    // Every attack shows exactly one bracketed phrase per mention of the entity under attack.
    for attack in &attacks {
        assert_eq!(attack.matches("[[").count(), 1, "{attack}");
    }
}

#[test]
fn baseline_strategies() {
    let model = biography_model();
    let expected = [
        (
            Strategy::Suppress,
            "was born in on. studied at the and joined the in.",
        ),
        (
            Strategy::Placeholder,
            "*** was born in *** on ***. *** studied at the *** and joined the *** in ***.",
        ),
        (
            Strategy::Label,
            "PERSON was born in LOC on DATETIME. PERSON studied at the ORG and joined the ORG in DATETIME.",
        ),
        (
            Strategy::NumberedLabel,
            "PERSON 1 was born in LOC 1 on DATETIME 1. PERSON 1 studied at the ORG 1 and joined the ORG 2 in DATETIME 2.",
        ),
        (
            Strategy::MostSpecific,
            "PERSON 1 was born in a city in northern Norway in August 2003. PERSON 1 studied at a \
             Norwegian university and joined a Norwegian social democratic party in the early 2020s.",
        ),
        (
            Strategy::LeastSpecific,
            "PERSON 1 was born in a city in the 21st century. PERSON 1 studied at a university and \
             joined an organization in the late 20th or early 21st century.",
        ),
    ];
    for (strategy, text) in expected {
        let config = SanitizerConfig::builder()
            .kanon_variants()
            .strategy(strategy)
            .build()
            .unwrap();
        let sanitized = sanitize(config, &model);
        assert_eq!(sanitized.document.text, text, "{strategy}");
        assert_eq!(sanitized.stats.attack_calls, 0, "{strategy}");
    }
}

#[test]
fn masking_strategies_need_no_model_and_generalizing_ones_say_so() {
    let config = SanitizerConfig::builder()
        .kanon_variants()
        .strategy(Strategy::NumberedLabel)
        .build()
        .unwrap();
    let sanitizer = Sanitizer::new(config).unwrap();
    assert!(
        sanitizer
            .sanitize("bio", TEXT, &biography_mentions())
            .is_ok()
    );
    let err = Sanitizer::new(kanon())
        .unwrap()
        .sanitize("bio", TEXT, &biography_mentions())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("needs a language model") && err.contains("LOC"),
        "{err}"
    );
    // Dates and people alone need none.
    let dates_only: Vec<Mention> = biography_mentions()
        .into_iter()
        .filter(|m| matches!(m.entity_type, EntityType::Person | EntityType::Datetime))
        .collect();
    let config = SanitizerConfig::builder()
        .kanon_variants()
        .strategy(Strategy::MostSpecific)
        .build()
        .unwrap();
    let text = Sanitizer::new(config)
        .unwrap()
        .sanitize("bio", TEXT, &dates_only)
        .unwrap()
        .document
        .text;
    assert!(
        text.starts_with("PERSON 1 was born in Tromsø in August 2003."),
        "{text}"
    );
}

#[test]
fn direct_identifier_styles() {
    let model = biography_model();
    for (style, opening) in [
        (DirectStyle::NumberedLabel, "PERSON 1 was born"),
        (DirectStyle::Placeholder, "*** was born"),
        (DirectStyle::Description, "The person was born"),
    ] {
        let config = SanitizerConfig::builder()
            .kanon_variants()
            .strategy(Strategy::MostSpecific)
            .direct_style(style)
            .build()
            .unwrap();
        let text = sanitize(config, &model).document.text;
        assert!(text.starts_with(opening), "{style:?}: {text}");
    }
}

#[test]
fn grammar_articles_and_prepositions() {
    let text = "She moved to a Oslo suburb in 1999 and became an Bergen resident.";
    let phrases = [
        ("Oslo", EntityType::Loc),
        ("in 1999", EntityType::Datetime),
        ("Bergen", EntityType::Loc),
    ];
    let model = ScriptedModel::new("grammar")
        .reply("Phrase: Oslo", "1. eastern Norwegian")
        .reply("Phrase: Bergen", "1. Norwegian")
        .fallback("1. nothing");
    let config = SanitizerConfig::builder()
        .kanon_variants()
        .strategy(Strategy::MostSpecific)
        .build()
        .unwrap();
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .with_model(&model)
        .sanitize("g", text, &mentions(text, &phrases))
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "She moved to an eastern Norwegian suburb in the late 1990s and became a Norwegian resident."
    );
    // A candidate that repeats the preposition before the span: "born in in northern Norway".
    let doubled = "He was born in Tromsø.";
    let model = ScriptedModel::new("doubled").fallback("1. in northern Norway");
    let sanitized = Sanitizer::new(
        SanitizerConfig::builder()
            .kanon_variants()
            .strategy(Strategy::MostSpecific)
            .build()
            .unwrap(),
    )
    .unwrap()
    .with_model(&model)
    .sanitize(
        "d",
        doubled,
        &mentions(doubled, &[("Tromsø", EntityType::Loc)]),
    )
    .unwrap();
    assert_eq!(sanitized.document.text, "He was born in northern Norway.");
}

#[test]
fn offsets_are_characters_in_non_ascii_text() {
    let text = "👩‍🔬 Zoë Ølund (née Øster) lived in Zürich — then São Paulo.";
    let phrases = [
        ("Zoë Ølund", EntityType::Person),
        ("Øster", EntityType::Person),
        ("Zürich", EntityType::Loc),
        ("São Paulo", EntityType::Loc),
    ];
    let config = SanitizerConfig::builder()
        .kanon_variants()
        .strategy(Strategy::NumberedLabel)
        .build()
        .unwrap();
    let spans = mentions(text, &phrases);
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .sanitize("u", text, &spans)
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "👩‍🔬 PERSON 1 (née PERSON 2) lived in LOC 1 — then LOC 2."
    );
    for (edit, (phrase, _)) in sanitized.document.edits.iter().zip(phrases) {
        let original: String = text
            .chars()
            .skip(edit.start)
            .take(edit.end - edit.start)
            .collect();
        assert_eq!(original, phrase);
    }
    assert_eq!(
        sanitized.document.edits[0].start, 4,
        "the emoji is 3 characters, then a space"
    );
}

#[test]
fn invalid_and_overlapping_spans() {
    let sanitizer = Sanitizer::new(
        SanitizerConfig::builder()
            .kanon_variants()
            .strategy(Strategy::Label)
            .build()
            .unwrap(),
    )
    .unwrap();
    let err = sanitizer
        .sanitize("x", "Zoë", &[Mention::new(0, 4, EntityType::Person)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("document \"x\"") && err.contains("0..4"),
        "{err}"
    );
    let sanitized = sanitizer
        .sanitize(
            "x",
            "Zoë Ølund",
            &[
                Mention::new(4, 9, EntityType::Person),
                Mention::new(0, 9, EntityType::Person),
            ],
        )
        .unwrap();
    assert_eq!(sanitized.document.text, "PERSON");
    assert_eq!(sanitized.stats.merged_spans, 1);
    // A later span reaching past the kept one is merged, not dropped: its tail is masked too.
    let sanitized = sanitizer
        .sanitize(
            "x",
            "The University of Oslo Hospital opened.",
            &[
                Mention::new(4, 22, EntityType::Org),
                Mention::new(18, 31, EntityType::Org),
            ],
        )
        .unwrap();
    assert_eq!(sanitized.document.text, "The ORG opened.");
    assert_eq!(sanitized.document.edits.len(), 1);
    assert_eq!(
        (
            sanitized.document.edits[0].start,
            sanitized.document.edits[0].end
        ),
        (4, 31)
    );
}

#[test]
fn empty_or_useless_answers_fall_back_to_the_label() {
    let text = "She lives in Tromsø.";
    let model = ScriptedModel::new("useless")
        .fallback("Sure! Here you go:\n1. Tromsø\n2. the city of Tromsø");
    let sanitized = Sanitizer::new(kanon())
        .unwrap()
        .with_model(&model)
        .sanitize("t", text, &mentions(text, &[("Tromsø", EntityType::Loc)]))
        .unwrap();
    assert_eq!(sanitized.document.text, "She lives in LOC 1.");
    assert_eq!(sanitized.document.edits[0].reason, Reason::NoCandidates);
    assert_eq!(sanitized.stats.no_candidate_spans, 1);
    assert_eq!(sanitized.stats.rejected_candidates, 2);
}

#[test]
fn sanitized_documents_round_trip_through_json() {
    let sanitized = sanitize(kanon(), &biography_model()).document;
    let json = serde_json::to_string(&sanitized).unwrap();
    let back: SanitizedDocument = serde_json::from_str(&json).unwrap();
    assert_eq!(back, sanitized);
    assert!(
        json.starts_with(r#"{"id":"bio","text":"PERSON 1 was born"#),
        "{json}"
    );
}

#[test]
fn copies_of_the_example_and_unfinished_phrases_are_dropped() {
    let text = "She studied at Ohio State University.";
    let model = ScriptedModel::new("copycat").fallback(
        "1. the oldest university in Sweden\n2. The head of the university of\n3. A public university in Ohio\n4. a university",
    );
    let config = SanitizerConfig::builder()
        .kanon_variants()
        .strategy(Strategy::MostSpecific)
        .build()
        .unwrap();
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .with_model(&model)
        .sanitize(
            "o",
            text,
            &mentions(text, &[("Ohio State University", EntityType::Org)]),
        )
        .unwrap();
    // `Ohio` is a distinctive word of the span: the candidate naming it is dropped too.
    assert_eq!(sanitized.document.text, "She studied at a university.");
    let kept: Vec<&str> = sanitized.audit.entities[0]
        .candidates
        .iter()
        .filter(|c| c.rejected.is_none())
        .map(|c| c.text.as_str())
        .collect();
    assert_eq!(kept, ["a university"]);
    assert_eq!(sanitized.stats.rejected_candidates, 3);
}

/// Records every request whole, then answers like `inner`.
struct RecordingRequests<M> {
    inner: M,
    requests: Mutex<Vec<ChatRequest>>,
}

impl<M: ChatModel> ChatModel for RecordingRequests<M> {
    fn id(&self) -> ModelId {
        self.inner.id()
    }
    fn chat(&self, request: &ChatRequest) -> kanon_llm::Result<ChatResponse> {
        self.requests.lock().unwrap().push(request.clone());
        self.inner.chat(request)
    }
}

/// The defaults with every model candidate allowed: INTACT's settings (kanon's default prints a
/// model's candidate only where its hierarchies confirm it).
fn paper_as_published() -> SanitizerConfig {
    SanitizerConfig::builder()
        .model_candidates(ModelCandidates::Any)
        .build()
        .unwrap()
}

#[test]
fn the_paper_defaults() {
    let model = RecordingRequests {
        inner: ScriptedModel::new("paper")
            .reply(
                "Phrase: University of Tromsø",
                "1. a university in northern Norway\n2. a Norwegian university\n3. a university",
            )
            .reply(
                "[[a university in northern Norway]]",
                "1. the University of Tromsø in the far north of the country, founded in 1968",
            )
            .reply("[[a Norwegian university]]", "1. University of Oslo")
            .reply("[[a university]]", "1. NTNU")
            .fallback("1. a place\n2. somewhere"),
        requests: Mutex::new(Vec::new()),
    };
    let mentions = mentions(TEXT, &[("University of Tromsø", EntityType::Org)]);
    let sanitized = Sanitizer::new(paper_as_published())
        .unwrap()
        .with_model(&model)
        .sanitize("bio", TEXT, &mentions)
        .unwrap();
    // The first candidate's only guess is long prose: kept and matched (INTACT); the second
    // candidate's guess shares the lemma `university` with the original, which the candidate
    // itself shows — INTACT counts it; the third is not recovered.
    assert_eq!(
        sanitized.document.text,
        "Zoë Ølund was born in Tromsø on 5 August 2003. Ølund studied at a university and \
         joined the Labour Party in 2021."
    );
    assert_eq!(sanitized.document.edits[0].choice, Some(3));
    let requests = model.requests.lock().unwrap();
    assert!(
        requests
            .iter()
            .all(|r| (r.temperature, r.max_tokens, r.seed) == (0.3, 512, 0))
    );
    let generation = &requests[0].messages.last().unwrap().content;
    assert!(
        generation.contains("Text: Ølund studied at the [[University of Tromsø]] and joined")
            && generation.contains("hypernym")
            && generation.contains("never a near-synonym")
            && generation.contains("grammatically"),
        "{generation}"
    );
    // The attack: one worked example first, exact dates asked for.
    let attack = &requests[1].messages;
    assert_eq!(attack.len(), 4, "system, example, its answer, the document");
    assert_eq!(attack[2].role, Role::Assistant);
    assert!(attack[3].content.contains("guess exact dates"));
    drop(requests);

    // Under the strict filter, the prose guess is dropped — and counts as a recovery.
    let config = SanitizerConfig::builder()
        .model_candidates(ModelCandidates::Any)
        .guess_filter(kanon_sanitize::config::GuessFilter::Strict)
        .build()
        .unwrap();
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .with_model(&model)
        .sanitize("bio", TEXT, &mentions)
        .unwrap();
    let attacks = &sanitized.audit.entities[0].attacks;
    assert!(attacks[0].recovered && attacks[0].guesses[0].filtered);
    assert_eq!(sanitized.document.edits[0].choice, Some(3));
}

#[test]
fn the_first_mention_is_the_representative_unless_the_config_says_longest() {
    let text = "Labour won in Tromsø. The Labour Party of Norway governs.";
    let spans = mentions(
        text,
        &[
            ("Labour", EntityType::Org),
            ("Labour Party of Norway", EntityType::Org),
        ],
    )
    .into_iter()
    .map(|m| m.with_entity_id("party"))
    .collect::<Vec<_>>();
    for (representative, phrase) in [
        (
            kanon_sanitize::config::Representative::First,
            "Phrase: Labour\n",
        ),
        (
            kanon_sanitize::config::Representative::Longest,
            "Phrase: Labour Party of Norway\n",
        ),
    ] {
        let model = RecordingRequests {
            inner: ScriptedModel::new("first").fallback("1. a political party"),
            requests: Mutex::new(Vec::new()),
        };
        let config = SanitizerConfig::builder()
            .strategy(Strategy::MostSpecific)
            .representative(representative)
            .model_candidates(ModelCandidates::Any)
            .build()
            .unwrap();
        Sanitizer::new(config)
            .unwrap()
            .with_model(&model)
            .sanitize("p", text, &spans)
            .unwrap();
        let requests = model.requests.lock().unwrap();
        let prompt = &requests[0].messages.last().unwrap().content;
        assert!(prompt.contains(phrase), "{representative:?}: {prompt}");
    }
}

#[test]
fn a_separate_attacker_answers_the_attacks() {
    let generator = ScriptedModel::new("generator")
        .reply(
            "Phrase: Zorbhavn",
            "1. a city in northern Norway\n2. a city",
        )
        .fallback("1. something");
    let attacker = ScriptedModel::new("attacker").fallback("1. Zorbhavn");
    let text = "She lives in Zorbhavn.";
    let sanitized = Sanitizer::new(paper_as_published())
        .unwrap()
        .with_model(&generator)
        .with_attacker(&attacker)
        .sanitize("t", text, &mentions(text, &[("Zorbhavn", EntityType::Loc)]))
        .unwrap();
    assert_eq!((generator.calls(), attacker.calls()), (1, 2));
    assert_eq!(sanitized.document.text, "She lives in LOC 1.");
    assert_eq!(sanitized.document.edits[0].reason, Reason::AllGuessed);
}

#[test]
fn a_place_name_the_sentence_makes_a_team_is_no_city() {
    let text =
        "Born in Bergen, he played as a goalkeeper for Bergen and made his debut for Norway.";
    let mut spans = mentions(
        text,
        &[
            ("Bergen", EntityType::Loc),
            ("Bergen", EntityType::Loc),
            ("Norway", EntityType::Loc),
        ],
    );
    // The city and the club share a name, not an entity.
    for (mention, id) in spans.iter_mut().zip(["city", "club", "country"]) {
        mention.entity_id = Some(id.into());
    }
    let sanitized = most_specific(text, &spans);
    assert_eq!(
        sanitized.document.text,
        "Born in a city in Hordaland, he played as a goalkeeper for a team and made his debut \
         for a team."
    );
}

#[test]
fn knowledge_graph_candidates_come_first_and_need_no_model() {
    use kanon_sanitize::audit::CandidateSource;
    use kanon_sanitize::config::CandidateSources;
    let text = "The Norwegian painter was born in Bergen and died in Oslo.";
    let spans = mentions(
        text,
        &[
            ("Norwegian", EntityType::Dem),
            ("Bergen", EntityType::Loc),
            ("Oslo", EntityType::Loc),
        ],
    );
    // No model: the hierarchies alone, true by construction.
    let sanitized = most_specific(text, &spans);
    assert_eq!(
        sanitized.document.text,
        "The Northern European painter was born in a city in Hordaland and died in a city in Norway."
    );
    assert_eq!(sanitized.stats.kg_entities, 3);
    assert!(sanitized.audit.entities.iter().all(|entity| {
        entity
            .candidates
            .iter()
            .all(|c| c.source == CandidateSource::KnowledgeGraph)
    }));
    // The audit names each rung's table: GeoNames for Bergen's region, UN M49 for the demonym.
    use kanon_sanitize::ontology::RungSource;
    let hierarchies: Vec<Option<RungSource>> = sanitized
        .audit
        .entities
        .iter()
        .map(|entity| entity.candidates[0].hierarchy)
        .collect();
    assert_eq!(
        hierarchies,
        [
            Some(RungSource::UnM49),
            Some(RungSource::GeoNames),
            Some(RungSource::GeoNames)
        ]
    );
    // With a model: both sources in one order from most to least specific, the model's two
    // candidates at relative depths 1/2 and 1 among the hierarchy's rungs, whose root (`a city`)
    // stays last — and is what `least-specific` takes.
    let rungs = kanon_sanitize::ontology::kg_candidates(EntityType::Loc, "Bergen");
    assert!(rungs.len() >= 3, "{rungs:?}");
    let model = ScriptedModel::new("kg").fallback("1. a coastal city\n2. a place");
    // By default the model is not asked where a hierarchy's rungs are the candidates: beside
    // them it could only add what they say in other words, or what nothing confirms.
    let sanitized = Sanitizer::new(
        SanitizerConfig::builder()
            .strategy(Strategy::MostSpecific)
            .build()
            .unwrap(),
    )
    .unwrap()
    .with_model(&model)
    .sanitize("kg", text, &spans[1..2])
    .unwrap();
    assert_eq!(sanitized.stats.generation_calls, 0);
    assert_eq!(&sanitized.document.edits[0].replacement, &rungs[0]);
    for (strategy, expected) in [
        (Strategy::LeastSpecific, rungs.last().unwrap()),
        (Strategy::MostSpecific, &rungs[0]),
    ] {
        let config = SanitizerConfig::builder()
            .strategy(strategy)
            .model_candidates(ModelCandidates::Any)
            .build()
            .unwrap();
        let sanitized = Sanitizer::new(config)
            .unwrap()
            .with_model(&model)
            .sanitize("kg", text, &spans[1..2])
            .unwrap();
        assert_eq!(&sanitized.document.edits[0].replacement, expected);
        let candidates = &sanitized.audit.entities[0].candidates;
        let proposed: Vec<&str> = candidates.iter().map(|c| c.text.as_str()).collect();
        let at = |phrase: &str| proposed.iter().position(|p| *p == phrase).unwrap();
        assert_eq!(proposed.len(), rungs.len() + 2);
        assert_eq!(proposed[0], rungs[0]);
        assert_eq!(
            proposed[proposed.len() - 2..],
            ["a place", rungs.last().unwrap()]
        );
        for (i, rung) in rungs.iter().enumerate() {
            // Rung i stands at (i + 1) / n; `a coastal city` at 1/2, ties to the model.
            assert_eq!(
                at(rung) < at("a coastal city"),
                2 * (i + 1) < rungs.len(),
                "{rung}"
            );
        }
        assert_eq!(
            candidates[at("a coastal city")].source,
            CandidateSource::Model
        );
        // At most `candidates` kept: the most specific ones and the least specific.
        let kept: Vec<&str> = candidates
            .iter()
            .filter(|c| c.rejected.is_none())
            .map(|c| c.text.as_str())
            .collect();
        assert!(kept.len() <= 5);
        assert_eq!(kept.last(), Some(&rungs.last().unwrap().as_str()));
    }
    // INTACT as published: the model only.
    let config = SanitizerConfig::builder()
        .strategy(Strategy::MostSpecific)
        .candidate_sources(CandidateSources::Model)
        .build()
        .unwrap();
    let err = Sanitizer::new(config)
        .unwrap()
        .sanitize("kg", text, &spans)
        .unwrap_err()
        .to_string();
    assert!(err.contains("needs a language model"), "{err}");
}

#[test]
fn copies_of_the_example_are_dropped_only_where_they_are_untrue() {
    // INTACT's prompt shows the demonym example (`Norwegian` → `Scandinavian`, …): for `Danish`
    // the model's `Scandinavian` is true and kept, for `Ghanaian` it is a copy and dropped.
    let text = "The Danish painter met a Ghanaian poet.";
    let model = ScriptedModel::new("copies")
        .reply(
            "Phrase: Danish\n",
            "1. Scandinavian\n2. Nordic\n3. European",
        )
        .reply(
            "Phrase: Ghanaian\n",
            "1. Scandinavian\n2. West African\n3. African",
        );
    let config = SanitizerConfig::builder()
        .strategy(Strategy::MostSpecific)
        .candidate_sources(kanon_sanitize::config::CandidateSources::Model)
        .model_candidates(ModelCandidates::Any)
        .build()
        .unwrap();
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .with_model(&model)
        .sanitize(
            "d",
            text,
            &mentions(
                text,
                &[("Danish", EntityType::Dem), ("Ghanaian", EntityType::Dem)],
            ),
        )
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "The Scandinavian painter met a West African poet."
    );
    let ghanaian = &sanitized.audit.entities[1].candidates[0];
    assert_eq!(
        (ghanaian.text.as_str(), ghanaian.rejected),
        (
            "Scandinavian",
            Some(kanon_sanitize::audit::Rejection::CopiesExample)
        )
    );
    assert_eq!(sanitized.stats.rejected_candidates, 1);
}

#[test]
fn a_long_description_is_a_phrase_and_prose_is_not() {
    // INTACT's own example of a generalization has ten words; the word limit is for prose.
    let text = "He fought in World War I.";
    let model = ScriptedModel::new("long").fallback(
        "1. he was a soldier in a war that began in 1914\n\
         2. a military conflict in the first half of the 1900s\n\
         3. a war",
    );
    let config = SanitizerConfig::builder()
        .strategy(Strategy::MostSpecific)
        .candidate_sources(kanon_sanitize::config::CandidateSources::Model)
        .model_candidates(ModelCandidates::Any)
        .build()
        .unwrap();
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .with_model(&model)
        .sanitize(
            "w",
            text,
            &mentions(text, &[("World War I", EntityType::Misc)]),
        )
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "He fought in a military conflict in the first half of the 1900s."
    );
}

#[test]
fn where_no_hierarchy_knows_the_entity_verified_keeps_its_label_and_checked_drops_judgements() {
    let text = "She sang with Zorblax Quartet for years.";
    let spans = mentions(text, &[("Zorblax Quartet", EntityType::Misc)]);
    let model = ScriptedModel::new("band")
        .reply(
            "Phrase: Zorblax Quartet",
            "1. the most famous band in Norway\n2. a vocal ensemble",
        )
        .fallback("1. ABBA");
    let run = |policy: ModelCandidates| {
        let config = SanitizerConfig::builder()
            .model_candidates(policy)
            .build()
            .unwrap();
        Sanitizer::new(config)
            .unwrap()
            .with_model(&model)
            .sanitize("b", text, &spans)
            .unwrap()
    };
    let verified = run(ModelCandidates::Verified);
    assert_eq!(verified.document.text, "She sang with MISC 1 for years.");
    assert_eq!(
        verified.stats.generation_calls, 0,
        "nothing could confirm it"
    );
    let checked = run(ModelCandidates::Checked);
    assert_eq!(
        checked.document.text,
        "She sang with a vocal ensemble for years."
    );
    let fates: Vec<_> = checked.audit.entities[0]
        .candidates
        .iter()
        .map(|candidate| candidate.rejected)
        .collect();
    assert_eq!(
        fates,
        [Some(kanon_sanitize::audit::Rejection::Judgement), None]
    );
}

/// `text` sanitized at `spans` with the hierarchies' most specific rungs, no model.
fn most_specific(text: &str, spans: &[Mention]) -> kanon_sanitize::Sanitized {
    let config = SanitizerConfig::builder()
        .strategy(Strategy::MostSpecific)
        .build()
        .unwrap();
    Sanitizer::new(config)
        .unwrap()
        .sanitize("doc", text, spans)
        .unwrap()
}

#[test]
fn a_list_a_plural_kind_heads_is_left_out_whole_or_read_as_that_kind() {
    use kanon_sanitize::ontology::RungSource;
    let text = "He directed the films Zorblax, Quibble Days and Omega Nine, and wrote the \
                albums (Fjordhavn and Krellstar). He also wrote the novels Vexil (1990) and \
                Moravane (1994). Zorblax won an award.";
    let spans = mentions(
        text,
        &[
            ("Zorblax", EntityType::Misc),
            ("Quibble Days", EntityType::Misc),
            ("Omega Nine", EntityType::Misc),
            ("Fjordhavn", EntityType::Misc),
            ("Krellstar", EntityType::Misc),
            ("Vexil", EntityType::Misc),
            ("1990", EntityType::Datetime),
            ("Moravane", EntityType::Misc),
            ("1994", EntityType::Datetime),
            ("Zorblax", EntityType::Misc),
        ],
    );
    let sanitized = most_specific(text, &spans);
    // A year after a member keeps every name of its list, each read as the kind: the year is
    // about the member and ends no list; the list of films is left out where it stands, and its
    // first name, mentioned again, reads as a film.
    assert_eq!(
        sanitized.document.text,
        "He directed the films, and wrote the albums. He also wrote the novels a novel (the early \
         1990s) and a novel (the mid-1990s). A film won an award."
    );
    let entities = &sanitized.audit.entities;
    let quibble = entities
        .iter()
        .find(|entity| entity.mentions[0].text == "Quibble Days")
        .unwrap();
    assert_eq!(quibble.reason, Reason::Dropped);
    let zorblax = &entities[0];
    assert_eq!(zorblax.replacement, "a film");
    assert_eq!(zorblax.candidates[0].hierarchy, Some(RungSource::Context));
}

#[test]
fn a_common_noun_phrase_keeps_its_head_and_a_count_its_bounds() {
    let text = "He studied tropical medicine, granted a royal pardon and has two sons. He died at \
                the age of 47, she at age 81.";
    let spans = mentions(
        text,
        &[
            ("tropical medicine", EntityType::Misc),
            ("royal pardon", EntityType::Misc),
            ("two", EntityType::Quantity),
            ("age of 47", EntityType::Datetime),
            ("81", EntityType::Datetime),
        ],
    );
    let sanitized = most_specific(text, &spans);
    assert_eq!(
        sanitized.document.text,
        "He studied medicine, granted a pardon and has fewer than ten sons. He died at the age \
         of more than 40, she at age more than 80."
    );
}

#[test]
fn the_sentence_names_a_kind_and_lets_a_modifier_or_an_apposition_go() {
    use kanon_sanitize::ontology::RungSource;
    let text = "She sang with the rock band Zorblax. Zorblax toured widely. She lives in an \
                Oslo suburb. He starred in the film Chicago. Chicago won six awards. He directed \
                87 films. He played for Fjordhavn.";
    let spans = mentions(
        text,
        &[
            ("Zorblax", EntityType::Org),
            ("Zorblax", EntityType::Org),
            ("Oslo", EntityType::Loc),
            ("Chicago", EntityType::Misc),
            ("Chicago", EntityType::Misc),
            ("87", EntityType::Quantity),
            ("Fjordhavn", EntityType::Org),
        ],
    );
    let config = SanitizerConfig::builder()
        .strategy(Strategy::MostSpecific)
        .build()
        .unwrap();
    let sanitized = Sanitizer::new(config.clone())
        .unwrap()
        .sanitize("context", text, &spans)
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "She sang with the rock band. A rock band toured widely. She lives in a suburb. He \
         starred in the film. A film won six awards. He directed more than 80 films. He played \
         for a team."
    );
    let band = &sanitized.audit.entities[0];
    assert_eq!(band.replacement, "a rock band");
    assert_eq!(band.candidates[0].hierarchy, Some(RungSource::Context));
    assert_eq!(sanitized.audit.entities[1].reason, Reason::Dropped);
    // The document says Chicago is a film: the city's rungs are not its reading here.
    let film = &sanitized.audit.entities[2];
    let candidates: Vec<&str> = film.candidates.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(candidates, ["a film"]);
    assert_eq!(
        (
            sanitized.stats.context_entities,
            sanitized.stats.dropped_spans
        ),
        (3, 3)
    );
    // Off: every mention takes its entity's replacement, a modifier its label.
    let off = Sanitizer::new(
        SanitizerConfig::builder()
            .strategy(Strategy::MostSpecific)
            .candidate_sources(kanon_sanitize::config::CandidateSources::KnowledgeGraph)
            .read_context(false)
            .build()
            .unwrap(),
    )
    .unwrap()
    .sanitize("context", text, &spans)
    .unwrap();
    assert_eq!(
        off.document.text,
        "She sang with the rock band ORG 1. ORG 1 toured widely. She lives in a LOC 1 suburb. \
         He starred in the film city in Illinois. A city in Illinois won six awards. He directed \
         a number of films. He played for ORG 2."
    );
}

#[test]
fn a_name_a_description_follows_is_left_out_with_its_comma() {
    let text = "She co-founded Zorblax, a crisis hotline for victims, and later joined the 1990 \
                Krell Royals, a senior hockey team in the north. She also played hockey.";
    let spans = mentions(
        text,
        &[
            ("Zorblax", EntityType::Misc),
            ("Krell Royals", EntityType::Org),
            ("hockey", EntityType::Misc),
        ],
    );
    let sanitized = most_specific(text, &spans);
    // The hotline is left out with its comma; the team, after a year, reads as its kind, the
    // precise `a hockey team` refused because `hockey` is masked.
    assert_eq!(
        sanitized.document.text,
        "She co-founded a crisis hotline for victims, and later joined the 1990 team, a senior \
         MISC 2 team in the north. She also played MISC 2."
    );
}
