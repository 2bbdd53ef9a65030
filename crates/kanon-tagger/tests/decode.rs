//! From word-piece predictions to the spans a person would mark: the decision rule and the tidying
//! of decoded spans (whole words, neighbours joined).
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_core::{EntityType, Span};
use kanon_tagger::data::{tidy_spans, widen_names_leftwards};
use kanon_tagger::inference::{Decision, LowercaseWords, retype_unsure_people, sure_enough};

fn find(text: &str, needle: &str) -> Span {
    let byte = text.find(needle).unwrap();
    let start = text[..byte].chars().count();
    Span::new(start, start + needle.chars().count())
}

fn texts(text: &str, spans: &[(Span, Option<EntityType>, f32)]) -> Vec<String> {
    spans
        .iter()
        .map(|(s, _, _)| s.slice(text).unwrap().to_owned())
        .collect()
}

#[test]
fn argmax_and_mask_probability() {
    let distribution = [0.6, 0.3, 0.1];
    assert_eq!(Decision::Argmax.decide(&distribution), (0, 0.6));
    assert_eq!(
        Decision::MaskProbability { threshold: 0.5 }.decide(&distribution),
        (0, 0.6)
    );
    let (label, p) = Decision::MaskProbability { threshold: 0.35 }.decide(&distribution);
    assert_eq!(label, 1);
    assert!((p - 0.4).abs() < 1e-6, "B + I of the type: {p}");
    // The type is chosen by B + I: PERSON's B (0.2) is the single most probable label, but
    // DATETIME's pieces (0.15 + 0.1) outweigh PERSON's (0.2 + 0.0).
    let mut typed = [0.0f32; 17];
    typed[0] = 0.55;
    typed[1] = 0.2; // B-PERSON
    typed[11] = 0.1; // B-DATETIME
    typed[12] = 0.15; // I-DATETIME
    let (label, p) = Decision::MaskProbability { threshold: 0.1 }.decide(&typed);
    assert_eq!(label, 12, "I-DATETIME");
    assert!((p - 0.25).abs() < 1e-6);
    // Argmax still takes the single most probable label.
    assert_eq!(Decision::Argmax.decide(&typed).0, 0);
    // A lone `O` label can only be `O`.
    assert_eq!(
        Decision::MaskProbability { threshold: 0.0 }.decide(&[1.0]),
        (0, 1.0)
    );
}

#[test]
fn pieces_widen_to_words_and_neighbours_join() {
    let text = "Mahmoud Ahmadinejad read the Mahabharata on June 5, 1965 in Zürich, Schweiz.";
    let loc = Some(EntityType::Loc);
    let person = Some(EntityType::Person);
    let date = Some(EntityType::Datetime);
    let spans = vec![
        (find(text, "Mahmoud"), person, 0.9),
        (find(text, "Ahmadinejad"), person, 0.7),
        (find(text, "Maha"), Some(EntityType::Misc), 0.5),
        (find(text, "June 5"), date, 0.8),
        (find(text, "1965"), date, 0.6),
        (find(text, "ürich"), loc, 0.9),
        (find(text, "Schweiz"), loc, 0.9),
    ];
    let tidy = tidy_spans(text, spans);
    assert_eq!(
        texts(text, &tidy),
        [
            "Mahmoud Ahmadinejad",
            "Mahabharata",
            "June 5, 1965",
            "Zürich",
            "Schweiz"
        ]
    );
    // Joined spans: the longest part's type, the length-weighted mean score.
    assert_eq!(tidy[0].1, person);
    assert!((tidy[0].2 - (0.9 * 7.0 + 0.7 * 11.0) / 18.0).abs() < 1e-6);
    assert_eq!(tidy[2].1, date);
}

#[test]
fn tidying_keeps_neighbours_of_different_types_apart() {
    let text = "the American politician John Smith said";
    let spans = vec![
        (find(text, "American"), Some(EntityType::Dem), 0.9),
        (find(text, "politician"), Some(EntityType::Dem), 0.6),
        (find(text, "John"), Some(EntityType::Person), 0.9),
        (find(text, "Smith"), Some(EntityType::Person), 0.9),
    ];
    let tidy = tidy_spans(text, spans);
    assert_eq!(texts(text, &tidy), ["American politician", "John Smith"]);
    assert_eq!(tidy[1].1, Some(EntityType::Person));
    // Untyped spans (the mask scheme) join whatever their neighbour.
    let untyped = vec![
        (find(text, "American"), None, 0.6),
        (find(text, "politician"), None, 0.9),
    ];
    assert_eq!(
        texts(text, &tidy_spans(text, untyped)),
        ["American politician"]
    );
}

#[test]
fn tidying_drops_the_punctuation_pieces_drag_in() {
    let text = "born in Baltimore, then (briefly) the U.S. for $145 million; Ariel.";
    let loc = Some(EntityType::Loc);
    let spans = vec![
        (find(text, "Baltimore,"), loc, 0.9),
        (find(text, "(briefly"), Some(EntityType::Misc), 0.5),
        (find(text, "U.S"), loc, 0.9),
        (find(text, "145 million;"), Some(EntityType::Quantity), 0.5),
        (find(text, "; Ariel."), Some(EntityType::Person), 0.5),
    ];
    assert_eq!(
        texts(text, &tidy_spans(text, spans)),
        ["Baltimore", "briefly", "U.S.", "$145 million", "Ariel"]
    );
    // Nothing but punctuation: no span.
    let only = vec![(find(text, "; "), Some(EntityType::Misc), 0.5)];
    assert!(tidy_spans(text, only).is_empty());
}

#[test]
fn tidying_keeps_numbers_with_their_units_and_titles_with_their_words() {
    let text = "The Doon School taught him. Sold for $100\u{2013}130 million, it ran 1919\u{2013}20, then \
                1885\u{2013}1962, hit .983 and 67.1 in seven years and 108 games at 1.80 m. Dr. Donald \
                Blake and Gerald Ford Jr. starred in The Adjustment Bureau.";
    let quantity = Some(EntityType::Quantity);
    let date = Some(EntityType::Datetime);
    let person = Some(EntityType::Person);
    let pieces = [
        ("Doon School", Some(EntityType::Org)),
        ("130", quantity),
        ("1919", date),
        ("1885", date),
        ("1962", date),
        ("983", quantity),
        ("67", quantity),
        ("seven", date),
        ("108", quantity),
        ("80 m", quantity),
        ("Dr", person),
        ("Donald Blake", person),
        ("Gerald Ford Jr", person),
        ("Adjustment Bureau", Some(EntityType::Misc)),
    ];
    let spans = pieces
        .iter()
        .map(|(needle, ty)| (find(text, needle), *ty, 0.5))
        .collect();
    assert_eq!(
        texts(text, &tidy_spans(text, spans)),
        [
            // A sentence's first "The" is not told from a title's.
            "Doon School",
            "$100\u{2013}130 million",
            // A season is one mention, two full years are two dates.
            "1919\u{2013}20",
            "1885",
            "1962",
            ".983",
            "67.1",
            "seven years",
            // Counted things are no unit.
            "108",
            "1.80 m",
            "Dr. Donald Blake",
            "Gerald Ford Jr.",
            "The Adjustment Bureau",
        ]
    );
}

#[test]
fn tidying_keeps_a_word_s_combining_marks() {
    // Offsets from the word-piece tokenizer, which strips marks, can end before a final virama
    // (Devanagari) or asat (Burmese); the mask must not leave them showing.
    let text = "Krishna (\u{0915}\u{0943}\u{0937}\u{094D}\u{0923}) and \u{1021}\u{1031}\u{102C}\u{1004}\u{103A} sang.";
    let person = Some(EntityType::Person);
    let spans = vec![
        (find(text, "\u{0915}\u{0943}\u{0937}"), person, 0.9),
        (find(text, "\u{1021}\u{1031}\u{102C}\u{1004}"), person, 0.9),
    ];
    assert_eq!(
        texts(text, &tidy_spans(text, spans)),
        [
            "\u{0915}\u{0943}\u{0937}\u{094D}\u{0923}",
            "\u{1021}\u{1031}\u{102C}\u{1004}\u{103A}"
        ]
    );
}

#[test]
fn names_widen_over_the_capitalised_words_before_them() {
    let text = "She won the Best Supporting Actress award at Sony Music Taiwan. Jon Wurster and \
                Wilco's John Stirratt left Kuwait City.In Rome, A Smith met \"Set Me\" and 1990 Nations.\n\
                Grand Prize";
    let misc = Some(EntityType::Misc);
    let spans = vec![
        (find(text, "Actress"), misc, 0.4),
        (find(text, "Sony Music"), Some(EntityType::Org), 0.6),
        (find(text, "Taiwan"), Some(EntityType::Loc), 0.9),
        (find(text, "John Stirratt"), Some(EntityType::Person), 0.9),
        (find(text, "Rome"), Some(EntityType::Loc), 0.9),
        (find(text, "Smith"), Some(EntityType::Person), 0.9),
        (find(text, "Me"), misc, 0.3),
        (find(text, "Nations"), misc, 0.3),
        (find(text, "Prize"), misc, 0.3),
    ];
    let widened = widen_names_leftwards(text, spans);
    assert_eq!(
        texts(text, &widened),
        [
            "Best Supporting Actress",
            // Overlapping after widening: one span, typed by the longer scored part.
            "Sony Music Taiwan",
            // A possessive is another entity.
            "John Stirratt",
            // Not across a sentence break without its space, nor a single letter.
            "Rome",
            "Smith",
            // Not across a quote, nor a number, nor a line's first word.
            "Me",
            "Nations",
            "Prize",
        ]
    );
    assert_eq!(widened[1].1, Some(EntityType::Org));
    // Weighted by what the model scored: "Sony Music" and "Taiwan", not the words taken over.
    assert!((widened[1].2 - (0.6 * 10.0 + 0.9 * 6.0) / 16.0).abs() < 1e-6);
}

#[test]
fn tidying_cuts_lists_ranges_and_a_noun_before_a_name() {
    let text = "(27 October 1888 – 8 May 1952) lived in Vichy, Allier, Auvergne on June 5, 1965 with \
                the British actor Charles Quartermaine and a rock band";
    let person = Some(EntityType::Person);
    let date = Some(EntityType::Datetime);
    let spans = vec![
        (find(text, "27 October 1888 – 8 May 1952"), date, 0.9),
        (
            find(text, "Vichy, Allier, Auvergne"),
            Some(EntityType::Loc),
            0.9,
        ),
        (find(text, "June 5, 1965"), date, 0.9),
        (
            find(text, "British actor Charles Quartermaine"),
            person,
            0.9,
        ),
        (find(text, "rock band"), person, 0.9),
    ];
    let tidy = tidy_spans(text, spans);
    assert_eq!(
        texts(text, &tidy),
        [
            "27 October 1888",
            "8 May 1952",
            "Vichy",
            "Allier",
            "Auvergne",
            "June 5, 1965",
            "British actor",
            "Charles Quartermaine",
            "rock band"
        ]
    );
    // Parts of a PERSON span with a common noun in them are masked as MISC, the name stays
    // PERSON; a capitalised word before a common noun, or a particle inside a name, does not cut.
    let misc = Some(EntityType::Misc);
    let types: Vec<_> = tidy[6..].iter().map(|s| s.1).collect();
    assert_eq!(types, [misc, person, misc]);
    let text = "Minister of Diaspora Affairs, France and Germany";
    let spans = vec![
        (find(text, "Minister"), Some(EntityType::Dem), 0.5),
        (find(text, "Diaspora Affairs"), Some(EntityType::Org), 0.5),
        (find(text, "France"), Some(EntityType::Loc), 0.5),
        (find(text, "Germany"), Some(EntityType::Loc), 0.5),
    ];
    let tidy = tidy_spans(text, spans);
    assert_eq!(
        texts(text, &tidy),
        ["Minister of Diaspora Affairs", "France", "Germany"]
    );
    assert_eq!(tidy[0].1, Some(EntityType::Org), "the longest part's type");
    let text = "the University of Oslo and Ludwig van Beethoven";
    let org = Some(EntityType::Org);
    let spans = vec![
        (find(text, "University of Oslo"), org, 0.9),
        (find(text, "Ludwig van Beethoven"), person, 0.9),
    ];
    assert_eq!(
        texts(text, &tidy_spans(text, spans)),
        ["University of Oslo", "Ludwig van Beethoven"]
    );
}

#[test]
fn tidying_keeps_apart_what_a_comma_or_a_line_separates() {
    let text = "Oslo, Norway\nBergen";
    let loc = Some(EntityType::Loc);
    let spans = vec![
        (find(text, "Oslo"), loc, 1.0),
        (find(text, "Norway"), loc, 1.0),
        (find(text, "Bergen"), loc, 1.0),
    ];
    assert_eq!(
        texts(text, &tidy_spans(text, spans)),
        ["Oslo", "Norway", "Bergen"]
    );
    // Out-of-range or empty spans are dropped, not a panic.
    let broken = vec![(Span::new(3, 99), loc, 1.0), (Span::new(2, 2), loc, 1.0)];
    assert!(tidy_spans(text, broken).is_empty());
}

#[test]
fn unsure_people_are_typed_misc_and_stay_masked() {
    let person = Some(EntityType::Person);
    let spans = vec![
        (Span::new(0, 5), person, 0.9),
        (Span::new(6, 13), person, 0.12),
        (Span::new(14, 20), Some(EntityType::Loc), 0.1),
    ];
    let retyped = retype_unsure_people(spans.clone(), 0.3);
    let types: Vec<_> = retyped.iter().map(|s| s.1).collect();
    assert_eq!(
        types,
        [person, Some(EntityType::Misc), Some(EntityType::Loc)]
    );
    assert_eq!(retyped.len(), spans.len(), "retyped, not dropped");
    assert_eq!(retype_unsure_people(spans.clone(), 0.0), spans);
}

#[test]
fn lower_case_spans_need_their_own_min_score() {
    let text = "Oslo politician 黄义达 O'neil";
    let oslo = find(text, "Oslo");
    let politician = find(text, "politician");
    let cjk = find(text, "黄义达");
    let keeps = |span, score| sure_enough(text, span, score, 0.1, 0.5, LowercaseWords::All);
    assert!(keeps(oslo, 0.2));
    assert!(!keeps(oslo, 0.05), "below the min score of every span");
    assert!(
        !keeps(politician, 0.2),
        "a common noun needs the lower-case min score"
    );
    assert!(keeps(politician, 0.6));
    assert!(keeps(cjk, 0.2), "a script without case is no common noun");
    assert!(keeps(find(text, "O'neil"), 0.2));
    assert!(
        sure_enough(text, politician, 0.2, 0.1, 0.0, LowercaseWords::All),
        "0 keeps them"
    );
    assert!(
        !sure_enough(text, politician, 1.0, 0.0, 1.5, LowercaseWords::All),
        "above 1 drops them all"
    );
}

#[test]
fn lower_case_by_the_last_word_reads_a_phrase_by_its_head() {
    let text = "an Italian football goalkeeper at the University of Oslo from 23 February 1955, \
                Watergate scandal, seven years, 黄义达";
    let last = |words: &str| LowercaseWords::Last.is_lowercase(words);
    let all = |words: &str| LowercaseWords::All.is_lowercase(words);
    assert!(last("Italian football goalkeeper"));
    assert!(
        !all("Italian football goalkeeper"),
        "a capital anywhere is enough for `all`"
    );
    assert!(last("Watergate scandal"));
    assert!(last("seven years") && all("seven years"));
    for name in ["University of Oslo", "23 February 1955", "黄义达", "1955"] {
        assert!(!last(name), "{name}");
        assert!(!all(name), "{name}");
    }
    let goalkeeper = find(text, "Italian football goalkeeper");
    assert!(sure_enough(
        text,
        goalkeeper,
        0.2,
        0.1,
        0.5,
        LowercaseWords::All
    ));
    assert!(!sure_enough(
        text,
        goalkeeper,
        0.2,
        0.1,
        0.5,
        LowercaseWords::Last
    ));
    assert!(sure_enough(
        text,
        goalkeeper,
        0.6,
        0.1,
        0.5,
        LowercaseWords::Last
    ));
}
