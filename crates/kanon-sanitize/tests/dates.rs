//! The rule-based date ladder: parsing the common forms and climbing one rung at a time.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_sanitize::date::{DateValue, DecadePart, parse_date, same_date};

fn ladder(text: &str) -> Vec<String> {
    parse_date(text)
        .unwrap_or_else(|| panic!("{text:?} parses"))
        .ladder(5)
}

#[test]
fn a_day_climbs_the_issue_ladder() {
    let expected = [
        "August 2003",
        "summer 2003",
        "2003",
        "the early 2000s",
        "the 21st century",
    ];
    for form in [
        "5 August 2003",
        "5th August 2003",
        "August 5, 2003",
        "August 5th, 2003",
        "2003-08-05",
        "the 5th of August 2003",
        "5 Aug. 2003",
    ] {
        assert_eq!(ladder(form), expected, "{form}");
    }
}

#[test]
fn each_precision_starts_one_rung_above() {
    assert_eq!(
        ladder("August 2003"),
        [
            "summer 2003",
            "2003",
            "the early 2000s",
            "the 2000s",
            "the 21st century"
        ]
    );
    assert_eq!(ladder("2003-08"), ladder("August 2003"));
    assert_eq!(ladder("December 1999")[0], "winter 1999");
    assert_eq!(
        ladder("1987"),
        [
            "the late 1980s",
            "the 1980s",
            "the 20th century",
            "the late 20th or early 21st century"
        ]
    );
    assert_eq!(ladder("1995")[0], "the mid-1990s");
    assert_eq!(
        ladder("the 1990s"),
        ["the 20th century", "the late 20th or early 21st century"]
    );
    assert_eq!(
        ladder("1990s"),
        ["the 20th century", "the late 20th or early 21st century"]
    );
    assert_eq!(
        ladder("the early 1990s"),
        [
            "the 1990s",
            "the 20th century",
            "the late 20th or early 21st century"
        ]
    );
    assert_eq!(
        ladder("mid-1970s"),
        [
            "the 1970s",
            "the 20th century",
            "the late 20th or early 21st century"
        ]
    );
    assert_eq!(ladder("summer of 2003")[0], "2003");
    assert_eq!(ladder("19th century"), Vec::<String>::new());
    assert_eq!(ladder("August"), ["summer"]);
    assert_eq!(ladder("5 August"), ["August", "summer"]);
    assert_eq!(ladder("March 3"), ["March", "spring"]);
}

#[test]
fn prepositions_are_kept_and_on_becomes_in() {
    assert_eq!(ladder("on 5 August 2003")[0], "in August 2003");
    assert_eq!(ladder("On 5 August 2003")[4], "In the 21st century");
    assert_eq!(ladder("since 2003")[0], "since the early 2000s");
}

#[test]
fn fewer_rungs_keep_the_century() {
    let date = parse_date("5 August 2003").unwrap();
    assert_eq!(date.ladder(2), ["August 2003", "the 21st century"]);
    assert_eq!(date.ladder(1), ["August 2003"]);
}

#[test]
fn what_no_rule_parses() {
    for text in [
        "twenty-eight years'",
        "three months",
        "yesterday",
        "5/8/2003",
        "32 August 2003",
        "2003-13-01",
        "12345",
    ] {
        assert_eq!(parse_date(text), None, "{text}");
    }
}

#[test]
fn values_and_sameness() {
    assert_eq!(
        parse_date("the 19th century").unwrap().value,
        DateValue::Century(19)
    );
    assert_eq!(
        parse_date("twentieth century").unwrap().value,
        DateValue::Century(20)
    );
    assert_eq!(same_date("5 August 2003", "2003-08-05"), Some(true));
    assert_eq!(same_date("5 August 2003", "August 2003"), Some(false));
    assert_eq!(same_date("5 August 2003", "long ago"), None);
}

#[test]
fn a_span_of_years_climbs_from_the_finest_period_that_holds_both_ends() {
    assert_eq!(
        ladder("1981/82"),
        [
            "the early 1980s",
            "the 1980s",
            "the 20th century",
            "the late 20th or early 21st century"
        ]
    );
    assert_eq!(
        ladder("1986/87"),
        [
            "the 1980s",
            "the 20th century",
            "the late 20th or early 21st century"
        ]
    );
    assert_eq!(
        ladder("1975-6"),
        [
            "the mid-1970s",
            "the 1970s",
            "the 20th century",
            "the late 20th or early 21st century"
        ]
    );
    assert_eq!(ladder("1909–10"), ["the 20th century"]);
    assert_eq!(ladder("1999/00"), Vec::<String>::new());
    assert_eq!(
        ladder("the 1961–62 season"),
        [
            "a season in the early 1960s",
            "a season in the 1960s",
            "a season in the 20th century",
            "a season in the late 20th or early 21st century"
        ]
    );
    assert_eq!(
        parse_date("1921–1958").unwrap().value,
        DateValue::Years {
            from: 1921,
            to: 1958
        }
    );
    // Not a span: backwards, or a part of a decade.
    assert_eq!(parse_date("1999–1990"), None);
    assert_eq!(
        parse_date("mid-1990s").unwrap().value,
        DateValue::DecadePart {
            decade: 1990,
            part: DecadePart::Mid
        }
    );
}
