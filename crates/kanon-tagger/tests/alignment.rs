//! Spans → word-piece labels → spans, with the real MiniLM tokenizer when it is cached (else a small
//! WordPiece tokenizer built here), on tricky Unicode and on documents longer than one window.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_core::{EntityType, Span};
use kanon_tagger::LabelScheme;
use kanon_tagger::data::{TaggerTokenizer, align_labels, decode_spans, merge_windows, windows};
use tokenizers::Tokenizer;

const TEXT: &str = "Zoë Ølund (née Łukasiewicz) 🙂 was born in Zürich on 5 Aug 1992; later in 東京 she met O'Brien-Smith.";

/// `(span text, type)` of the spans in `TEXT`.
const SPANS: &[(&str, EntityType)] = &[
    ("Zoë Ølund", EntityType::Person),
    ("Łukasiewicz", EntityType::Person),
    ("Zürich", EntityType::Loc),
    ("5 Aug 1992", EntityType::Datetime),
    ("東京", EntityType::Loc),
    ("O'Brien-Smith", EntityType::Person),
];

fn char_span(text: &str, needle: &str) -> Span {
    let byte = text.find(needle).unwrap();
    let start = text[..byte].chars().count();
    Span::new(start, start + needle.chars().count())
}

/// A small BERT-style tokenizer, written as a `tokenizer.json` like the real one.
fn small_tokenizer() -> TaggerTokenizer {
    let mut vocab: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for word in
        "zoe olund nee lukasiewicz was born in zurich on 5 aug 1992 later she met o brien smith"
            .split(' ')
    {
        vocab.push(word.to_owned());
    }
    for piece in ["(", ")", ";", ".", "'", "-", "東", "京", "##ich", "zur"] {
        vocab.push(piece.to_owned());
    }
    let vocab: serde_json::Map<String, serde_json::Value> = vocab
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t, i.into()))
        .collect();
    let json = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": null, "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab}
    });
    let tokenizer: Tokenizer = json.to_string().parse().unwrap();
    TaggerTokenizer::new(tokenizer).unwrap()
}

/// The real tokenizer when cached, and always the small one.
fn tokenizers() -> Vec<(&'static str, TaggerTokenizer)> {
    let mut out = vec![("small", small_tokenizer())];
    let cache = kanon_models::Cache::from_env();
    match kanon_models::spec("all-minilm-l6-v2")
        .ok()
        .and_then(|s| cache.find(s))
    {
        Some(dir) => out.push((
            "all-minilm-l6-v2",
            TaggerTokenizer::from_file(&dir.join("tokenizer.json")).unwrap(),
        )),
        None => {
            kanon_core::testing::skip(kanon_core::testing::Requirement::Model("all-minilm-l6-v2"))
        }
    }
    out
}

fn gold(text: &str) -> Vec<(Span, Option<EntityType>)> {
    SPANS
        .iter()
        .map(|(s, t)| (char_span(text, s), Some(*t)))
        .collect()
}

#[test]
fn spans_survive_the_round_trip_through_word_pieces() {
    for (name, tokenizer) in tokenizers() {
        let pieces = tokenizer.tokenize(TEXT).unwrap();
        let chars: Vec<char> = TEXT.chars().collect();
        for piece in &pieces.offsets {
            assert!(piece.end <= chars.len(), "{name}: piece beyond the text");
        }
        for scheme in [LabelScheme::Typed, LabelScheme::Mask] {
            let labels = align_labels(&pieces.offsets, &gold(TEXT), scheme);
            let decoded: Vec<(Span, Option<EntityType>)> =
                decode_spans(&pieces.offsets, &labels, &[], scheme)
                    .into_iter()
                    .map(|(s, t, _)| (s, t))
                    .collect();
            let expected: Vec<(Span, Option<EntityType>)> = gold(TEXT)
                .into_iter()
                .map(|(s, t)| {
                    (
                        s,
                        if scheme == LabelScheme::Typed {
                            t
                        } else {
                            None
                        },
                    )
                })
                .collect();
            assert_eq!(decoded, expected, "{name} {scheme:?}");
        }
    }
}

#[test]
fn a_span_inside_a_word_widens_to_its_pieces() {
    let tokenizer = small_tokenizer();
    let text = "born in zurich";
    let pieces = tokenizer.tokenize(text).unwrap();
    // "zur" + "##ich": a span on "ric" covers both pieces.
    let labels = align_labels(
        &pieces.offsets,
        &[(Span::new(10, 13), None)],
        LabelScheme::Mask,
    );
    let decoded = decode_spans(&pieces.offsets, &labels, &[], LabelScheme::Mask);
    assert_eq!(decoded, vec![(Span::new(8, 14), None, 1.0)]);
}

#[test]
fn long_documents_are_windowed_and_merged_back() {
    for (name, tokenizer) in tokenizers() {
        let sentence = format!("{TEXT} ");
        let text = sentence.repeat(60);
        let per_sentence = TEXT.chars().count() + 1;
        let spans: Vec<(Span, Option<EntityType>)> = (0..60)
            .flat_map(|k| {
                gold(TEXT).into_iter().map(move |(s, t)| {
                    (
                        Span::new(s.start + k * per_sentence, s.end + k * per_sentence),
                        t,
                    )
                })
            })
            .collect();
        let pieces = tokenizer.tokenize(&text).unwrap();
        assert!(pieces.len() > 1000, "{name}: {} pieces", pieces.len());
        let labels = align_labels(&pieces.offsets, &spans, LabelScheme::Typed);
        let ranges = windows(pieces.len(), 126, 32);
        assert!(ranges.len() > 8);
        // A model that is right in the middle of each window and wrong near its edges.
        let predictions: Vec<Vec<(u32, f32)>> = ranges
            .iter()
            .map(|w| {
                w.clone()
                    .enumerate()
                    .map(|(offset, token)| {
                        let near_edge = offset < 8 || w.len() - offset <= 8;
                        let first_or_last = w.start == 0 && offset < 8
                            || w.end == pieces.len() && w.len() - offset <= 8;
                        if near_edge && !first_or_last {
                            (0, 0.1)
                        } else {
                            (labels[token], 0.9)
                        }
                    })
                    .collect()
            })
            .collect();
        let merged = merge_windows(pieces.len(), &ranges, &predictions);
        let merged_labels: Vec<u32> = merged.iter().map(|(l, _)| *l).collect();
        assert_eq!(
            merged_labels, labels,
            "{name}: each piece takes its most central window's label"
        );
        let decoded: Vec<(Span, Option<EntityType>)> =
            decode_spans(&pieces.offsets, &merged_labels, &[], LabelScheme::Typed)
                .into_iter()
                .map(|(s, t, _)| (s, t))
                .collect();
        assert_eq!(decoded, spans, "{name}");
    }
}

proptest::proptest! {
    #[test]
    fn windows_cover_every_token_with_the_given_overlap(n in 0usize..3000, max in 1usize..600, overlap in 0usize..700) {
        let ranges = windows(n, max, overlap);
        proptest::prop_assert_eq!(ranges.first().map(|r| r.start), Some(0));
        proptest::prop_assert_eq!(ranges.last().map(|r| r.end), Some(n));
        for pair in ranges.windows(2) {
            proptest::prop_assert!(pair[1].start > pair[0].start, "progress");
            proptest::prop_assert!(pair[1].start <= pair[0].end, "no gap");
            if overlap < max {
                proptest::prop_assert_eq!(pair[0].end - pair[1].start, overlap.min(pair[0].len()));
            }
        }
        for r in &ranges {
            proptest::prop_assert!(r.len() <= max);
        }
    }
}
