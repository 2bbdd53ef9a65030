//! Quantities: a stated count or amount widened to bounds that hold it, the lower one first (more
//! specific), then the next power of ten above it: `87 films` → `more than 80 films` → `fewer
//! than a hundred films`; `$145 million` → `more than $100 million` → `less than $1 billion`;
//! `two` → `fewer than ten`; `45%` → `more than 40%`; `EUR 10,000` → `more than EUR 5,000`;
//! `2.5 billion` → `more than 2 billion`; a measure, like money, is bounded by `less` (`5 feet`
//! → `less than ten feet`); a range by bounds that hold both ends (`15–20 metres` → `more than
//! ten metres` → `less than a hundred metres`); an ordinal by the first ten, hundred or
//! thousand it is among (`fourth` → `among the first ten`); an amount after a hedge on the side
//! the hedge bounds (`over 200` → `more than 100`, `nearly 50` → `fewer than a hundred`);
//! `twice` → `more than once`, `three-time` → `multiple-time`, `two-thirds` → `more than half`;
//! a number below one in its decimals (`.117` → `more than .100` → `less than 1`); `a dozen` as
//! twelve. `one`, `half`, `dozen` without its article and what no rule reads surely (`1,5`,
//! `10.000`, either a decimal or thousands; `about 95`, perhaps above a hundred) give nothing.

use kanon_core::text::{ONE_TO_NINETEEN, TENS};

use super::{Rung, RungSource};

const SCALES: [&str; 4] = ["thousand", "million", "billion", "trillion"];

/// A quantity as stated: `$`, 145, `million`, `films`.
struct Stated<'a> {
    currency: &'a str,
    /// The whole part of the number.
    number: u64,
    /// Whether the number has a fraction (`2.5`): the whole part is then a strict lower bound.
    fraction: bool,
    scale: Option<usize>,
    percent: bool,
    /// Whether it is an amount of money (`less than`, not `fewer than`).
    money: bool,
    /// Whether it is a measure (`5 ft`, `30 years`): `less than` too.
    measure: bool,
    /// For a number below one (`.117`, `0.5`, `number` 0): its whole part as written (empty or
    /// `0`) and its decimals, which its bounds are written with.
    below_one: Option<(&'a str, &'a str)>,
    rest: Vec<&'a str>,
}

/// The rungs of a stated quantity, or none when it states no count of two or more.
pub(super) fn ladder(surface: &str) -> Option<Vec<Rung>> {
    // `(45)` in a table of statistics: the bounds, in brackets.
    if let Some(inner) = surface
        .trim()
        .strip_prefix('(')
        .and_then(|rest| rest.strip_suffix(')'))
    {
        return Some(rewritten(ladder(inner)?, |text| format!("({text})")));
    }
    if let Some(rungs) = ordinal(surface) {
        return Some(rungs);
    }
    if let Some(rungs) = range(surface) {
        return Some(rungs);
    }
    if let Some(rungs) = times_or_share(surface) {
        return Some(rungs);
    }
    if let Some(rungs) = hedged(surface) {
        return Some(rungs);
    }
    let stated = parse(surface)?;
    if let Some((whole, decimals)) = stated.below_one {
        return stated.below_one(whole, decimals);
    }
    if stated.number < 2 && !(stated.number == 1 && stated.fraction) {
        return None;
    }
    let mut texts = Vec::new();
    if let Some(lower) = stated.lower_bound(stated.number) {
        texts.push(format!("more than {}", stated.amount(lower, stated.scale)));
    }
    texts.extend(stated.upper_text(stated.number));
    texts.extend(stated.wider_upper_text(stated.number));
    texts.extend(stated.figures());
    Some(Rung::all(RungSource::Number, texts))
}

/// Digit counts as words, from two.
const FIGURES: &[&str] = &[
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen",
];

/// Units of time a duration counts.
const TIME_UNITS: &[&str] = &[
    "year", "years", "month", "months", "week", "weeks", "day", "days", "decade", "decades",
    "hour", "hours", "minute", "minutes",
];

/// The rungs of a duration a date span states (`25 years`, `nine months`, `seven years later`,
/// `twenty-eight years'`): the quantity ladder of its count of a unit of time. None for a date
/// or anything else.
pub(super) fn duration(surface: &str) -> Option<Vec<Rung>> {
    let surface = surface.trim();
    if let Some(rungs) = compound_duration(surface) {
        return Some(rungs);
    }
    let trimmed = surface.trim_end_matches(['\'', '’']);
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let unit_at = words
        .iter()
        .position(|word| TIME_UNITS.contains(&word.to_lowercase().as_str()))?;
    // A count and its unit, and at most `later`, `ago`, `old` or `long` after it.
    let after_ok = words[unit_at + 1..].iter().all(|word| {
        ["later", "ago", "old", "long", "earlier"].contains(&word.to_lowercase().as_str())
    });
    if unit_at == 0 || !after_ok {
        return None;
    }
    // `twenty-eight years' imprisonment` → `more than 20 years' imprisonment`.
    let apostrophe = &surface[trimmed.len()..];
    Some(rewritten(ladder(trimmed)?, |text| {
        format!("{text}{apostrophe}")
    }))
}

/// `rungs` with each text written as `write` gives it: the form of the span around its count.
fn rewritten(rungs: Vec<Rung>, write: impl Fn(&str) -> String) -> Vec<Rung> {
    rungs
        .into_iter()
        .map(|rung| Rung {
            text: write(&rung.text),
            ..rung
        })
        .collect()
}

/// `32-week`, `895-day-long`, `twenty-eight-year`: a count of a unit of time in one word, which
/// qualifies the noun after it. The bounds are one word with the unit too, their numbers in
/// digits (`a more than 30-week ban`, `a less than 100-week ban`).
fn compound_duration(word: &str) -> Option<Vec<Rung>> {
    let lower = word.to_lowercase();
    let parts: Vec<&str> = lower.split('-').collect();
    let unit_at = parts.iter().position(|part| TIME_UNITS.contains(part))?;
    if unit_at == 0 || !matches!(&parts[unit_at + 1..], [] | ["long"] | ["old"]) {
        return None;
    }
    let count = parts[..unit_at].join("-");
    let n = if count.bytes().all(|b| b.is_ascii_digit()) {
        count.parse::<u64>().ok()?
    } else {
        number_word(&count)?
    };
    if n < 2 {
        return None;
    }
    // From the hyphen before the unit, as written.
    let unit = word.get(count.len()..)?;
    let mut texts = Vec::new();
    if n >= 10
        && let Some(lower) = round_below(n).filter(|lower| *lower > 0)
    {
        texts.push(format!("more than {}{unit}", with_separators(lower)));
    }
    let upper = 10u64.checked_pow(n.ilog10() + 1)?;
    texts.push(format!("less than {}{unit}", with_separators(upper)));
    Some(Rung::all(RungSource::Number, texts))
}

/// Words before an amount that bound it from below (`over 200`: more than 200), from above
/// (`nearly 50`: fewer than 50) or on both sides loosely (`about 40`).
const AT_LEAST: &[&str] = &[
    "over",
    "more than",
    "at least",
    "in excess of",
    "upwards of",
    "above",
    "well over",
];
const AT_MOST: &[&str] = &[
    "under",
    "fewer than",
    "less than",
    "up to",
    "at most",
    "nearly",
    "almost",
    "below",
    "just under",
    "no more than",
];
const ABOUT: &[&str] = &[
    "about",
    "around",
    "approximately",
    "roughly",
    "some",
    "an estimated",
    "circa",
    "c.",
];

/// An amount after a hedge, bounded only on the side the hedge allows: `over 200` → `more than
/// 100`; `nearly 50` → `fewer than a hundred`; `about 40` → `fewer than a hundred`, and only when
/// the bound is at least half again the stated amount, so that `about 95` (perhaps 101) gets
/// none.
fn hedged(surface: &str) -> Option<Vec<Rung>> {
    let lower = surface.trim().to_lowercase();
    let strip = |hedges: &[&str]| {
        hedges.iter().find_map(|hedge| {
            lower
                .strip_prefix(hedge)
                .filter(|rest| rest.starts_with(' '))
                .map(|rest| surface.trim()[surface.trim().len() - rest.len()..].trim())
        })
    };
    // A number below one would be bounded by ten.
    let parse = |amount| parse(amount).filter(|stated| stated.below_one.is_none());
    let texts: Vec<String> = if let Some(amount) = strip(AT_LEAST) {
        let stated = parse(amount)?;
        let lower = stated.lower_bound(stated.number)?;
        vec![format!("more than {}", stated.amount(lower, stated.scale))]
    } else if let Some(amount) = strip(AT_MOST) {
        let stated = parse(amount)?;
        stated.upper_text(stated.number).into_iter().collect()
    } else if let Some(amount) = strip(ABOUT) {
        let stated = parse(amount)?;
        let order = 10u64.pow(stated.number.max(1).ilog10());
        // The bound `upper_text` names is the next power of ten above the amount.
        if stated.number.saturating_mul(3) > order * 10 * 2 {
            return None;
        }
        stated.upper_text(stated.number).into_iter().collect()
    } else {
        return None;
    };
    (!texts.is_empty()).then(|| Rung::all(RungSource::Number, texts))
}

/// `twice` → `more than once`; `a three-time` → `a multiple-time`; `two-thirds` → `more than
/// half`, `a quarter` → `less than half`.
fn times_or_share(surface: &str) -> Option<Vec<Rung>> {
    let lower = surface.trim().to_lowercase();
    let text = match lower.as_str() {
        "twice" | "thrice" => "more than once".to_owned(),
        "two-thirds" | "two thirds" | "three-quarters" | "three quarters" | "three-fourths" => {
            "more than half".to_owned()
        }
        "a third" | "one-third" | "one third" | "a quarter" | "one-quarter" | "one quarter"
        | "a fifth" | "one-fifth" => "less than half".to_owned(),
        _ => {
            let (article, rest) = match lower.strip_prefix("a ") {
                Some(rest) => ("a ", rest),
                None => ("", lower.as_str()),
            };
            let count = rest
                .strip_suffix("-time")
                .or_else(|| rest.strip_suffix("-times"))?;
            let n = if count.bytes().all(|b| b.is_ascii_digit()) {
                count.parse::<u64>().ok()?
            } else {
                number_word(count)?
            };
            if n < 2 {
                return None;
            }
            format!("{article}multiple-time")
        }
    };
    Some(vec![Rung::new(RungSource::Number, text)])
}

/// `5–10 years`, `5 to 10 years`, `between 5 and 10 years`: more than a bound below the first
/// end, fewer than a bound above the second, both written as the second end is.
fn range(surface: &str) -> Option<Vec<Rung>> {
    let surface = surface.trim();
    let inner = surface
        .strip_prefix("between ")
        .or_else(|| surface.strip_prefix("Between "));
    let (first, second) = match inner {
        Some(inner) => inner.split_once(" and ")?,
        None => surface
            .split_once(" to ")
            .or_else(|| surface.split_once('–'))
            .or_else(|| surface.split_once('-'))?,
    };
    let (first, second) = (first.trim(), second.trim());
    // The first end is a bare number (`5`, `$100`), the second carries the scale and the unit.
    let currency_len = currency_prefix(first);
    let low: u64 = {
        let digits = &first[currency_len..];
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit() || b == b',') {
            number_word(&digits.to_lowercase())?
        } else {
            grouped_digits(digits)?
        }
    };
    let mut stated = parse(second)?;
    if stated.currency.is_empty() && !stated.money && currency_len > 0 {
        // `$100–130 million`, `EUR 100-200`: the currency written once, before the first end.
        match currency_name(first[..currency_len].trim()) {
            Some(name) => stated.rest.insert(0, name),
            None => stated.currency = &first[..currency_len],
        }
        stated.money = true;
    }
    if stated.fraction || low >= stated.number || low < 1 {
        return None;
    }
    let mut texts = Vec::new();
    if let Some(lower) = stated.lower_bound(low).filter(|lower| *lower > 0) {
        texts.push(format!("more than {}", stated.amount(lower, stated.scale)));
    }
    texts.extend(stated.upper_text(stated.number));
    texts.extend(stated.wider_upper_text(stated.number));
    (!texts.is_empty()).then(|| Rung::all(RungSource::Number, texts))
}

/// `fourth`, `4th`, `twenty-first`, `21st`: the rank a span states, if it states one (`second`
/// is left out: it is also a unit of time).
pub(crate) fn rank(surface: &str) -> Option<u64> {
    let word = surface.trim().to_lowercase();
    let n = if let Some(digits) = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|suffix| word.strip_suffix(suffix))
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    {
        digits.parse::<u64>().ok()?
    } else {
        ordinal_word(&word)?
    };
    (n > 0).then_some(n)
}

/// A rank: among the first ten (a hundred, a thousand), and the next bound up; `among` reads
/// after a verb (`finished among the first ten`) and as a complement (`was among the first ten`).
fn ordinal(surface: &str) -> Option<Vec<Rung>> {
    let n = rank(surface)?;
    let bounds = [(10, "ten"), (100, "hundred"), (1000, "thousand")];
    let texts: Vec<String> = bounds
        .iter()
        .filter(|(bound, _)| n <= *bound)
        .take(2)
        .map(|(_, name)| format!("among the first {name}"))
        .collect();
    (!texts.is_empty()).then(|| Rung::all(RungSource::Number, texts))
}

/// `first` → 1, `twelfth` → 12, `twentieth` → 20, `forty-fifth` → 45 (not `second`).
fn ordinal_word(word: &str) -> Option<u64> {
    let (tens, unit) = match word.split_once('-') {
        Some((tens, unit)) => (Some(tens), unit),
        None => (None, word),
    };
    let cardinal = match unit {
        "first" => "one".to_owned(),
        "third" => "three".to_owned(),
        "fifth" => "five".to_owned(),
        "eighth" => "eight".to_owned(),
        "ninth" => "nine".to_owned(),
        "twelfth" => "twelve".to_owned(),
        _ => match unit.strip_suffix("ieth") {
            Some(stem) => format!("{stem}y"),
            None => unit.strip_suffix("th")?.to_owned(),
        },
    };
    let value = number_word(&cardinal)?;
    match tens {
        None => Some(value),
        Some(tens) if value < 10 => {
            let tens = TENS.iter().position(|w| *w == tens)? as u64 * 10 + 20;
            Some(tens + value)
        }
        Some(_) => None,
    }
}

/// The length of a currency written before the number: a sign (`$`, `€`) or an ISO 4217 code and
/// a space (`EUR 10,000`, `eur 10,000`).
fn currency_prefix(surface: &str) -> usize {
    if let Some(sign) = ["US$", "$", "€", "£", "¥", "₹"]
        .iter()
        .find(|c| surface.starts_with(**c))
    {
        return sign.len();
    }
    match surface.split_once(' ') {
        Some((code, _)) if currency_name(code).is_some() => code.len() + 1,
        _ => 0,
    }
}

/// ISO 4217 codes of current and former currencies a text may state amounts in, with what the
/// rungs call them: a code is a capitalised word of the span, which a rung may not repeat (general
/// knowledge: the euro area's former currencies among them, as court judgments give them).
const CURRENCY_CODES: &[(&str, &str)] = &[
    ("USD", "US dollars"),
    ("EUR", "euros"),
    ("GBP", "pounds sterling"),
    ("JPY", "yen"),
    ("CHF", "Swiss francs"),
    ("SEK", "Swedish kronor"),
    ("NOK", "Norwegian kroner"),
    ("DKK", "Danish kroner"),
    ("ISK", "Icelandic krónur"),
    ("PLN", "zlotys"),
    ("CZK", "Czech korunas"),
    ("SKK", "Slovak korunas"),
    ("HUF", "forints"),
    ("RON", "Romanian lei"),
    ("ROL", "Romanian lei"),
    ("BGN", "leva"),
    ("HRK", "kunas"),
    ("RUB", "roubles"),
    ("UAH", "hryvnias"),
    ("TRY", "Turkish lira"),
    ("TRL", "Turkish lira"),
    ("AUD", "Australian dollars"),
    ("NZD", "New Zealand dollars"),
    ("CAD", "Canadian dollars"),
    ("CNY", "yuan"),
    ("INR", "rupees"),
    ("PKR", "rupees"),
    ("BRL", "reais"),
    ("MXN", "Mexican pesos"),
    ("ARS", "Argentine pesos"),
    ("ZAR", "rand"),
    ("ILS", "shekels"),
    ("KRW", "won"),
    ("HKD", "Hong Kong dollars"),
    ("SGD", "Singapore dollars"),
    ("ATS", "Austrian schillings"),
    ("BEF", "Belgian francs"),
    ("DEM", "Deutsche Marks"),
    ("FIM", "markkas"),
    ("FRF", "French francs"),
    ("GRD", "drachmas"),
    ("IEP", "Irish pounds"),
    ("ITL", "Italian lire"),
    ("LUF", "Luxembourg francs"),
    ("NLG", "guilders"),
    ("PTE", "escudos"),
    ("ESP", "pesetas"),
    ("SIT", "tolars"),
    ("CYP", "Cypriot pounds"),
    ("MTL", "Maltese lira"),
    ("EEK", "kroons"),
    ("LVL", "lats"),
    ("LTL", "litai"),
    ("MDL", "Moldovan lei"),
    ("GEL", "lari"),
    ("AMD", "drams"),
    ("AZN", "manats"),
    ("BAM", "convertible marks"),
    ("MKD", "denars"),
    ("RSD", "Serbian dinars"),
    ("ALL", "leks"),
    ("Rs", "rupees"),
    ("Rs.", "rupees"),
];

/// What the rungs call the currency of an ISO 4217 code (`EUR`, `eur` → `euros`).
fn currency_name(code: &str) -> Option<&'static str> {
    CURRENCY_CODES
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(code))
        .map(|(_, name)| *name)
}

/// Units of length, area, volume, weight, time and speed: what they measure is an amount, so
/// its bounds say `less` (`less than ten feet`, `less than a hundred years`).
const MEASURE_UNITS: &[&str] = &[
    "mm",
    "cm",
    "m",
    "km",
    "in",
    "inch",
    "inches",
    "ft",
    "foot",
    "feet",
    "yd",
    "yard",
    "yards",
    "mi",
    "mile",
    "miles",
    "metre",
    "metres",
    "meter",
    "meters",
    "kilometre",
    "kilometres",
    "kilometer",
    "kilometers",
    "centimetre",
    "centimetres",
    "centimeter",
    "centimeters",
    "ha",
    "hectare",
    "hectares",
    "acre",
    "acres",
    "sq",
    "square",
    "l",
    "litre",
    "litres",
    "liter",
    "liters",
    "gallon",
    "gallons",
    "g",
    "kg",
    "gram",
    "grams",
    "kilogram",
    "kilograms",
    "t",
    "tonne",
    "tonnes",
    "ton",
    "tons",
    "lb",
    "lbs",
    "oz",
    "ounce",
    "ounces",
    "st",
    "stone",
    "second",
    "seconds",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "decade",
    "decades",
    "century",
    "centuries",
    "mph",
    "km/h",
    "knots",
];

/// Words of a currency stated after the amount (`10,000 euros`): the bounds say `less`.
const CURRENCY_WORDS: &[&str] = &[
    "euro",
    "euros",
    "dollar",
    "dollars",
    "pound",
    "pounds",
    "franc",
    "francs",
    "mark",
    "marks",
    "krone",
    "kroner",
    "krona",
    "kronor",
    "zloty",
    "zlotys",
    "lira",
    "lire",
    "liras",
    "rouble",
    "roubles",
    "ruble",
    "rubles",
    "hryvnia",
    "hryvnias",
    "forint",
    "forints",
    "koruna",
    "korunas",
    "yen",
    "rupee",
    "rupees",
    "peso",
    "pesos",
    "drachma",
    "drachmas",
    "schilling",
    "schillings",
    "lei",
    "leva",
    "dinar",
    "dinars",
    "eur",
    "usd",
    "gbp",
];

/// `4,312` → 4312; none for commas not grouping three digits (`1,5`, a decimal comma).
fn grouped_digits(text: &str) -> Option<u64> {
    let mut groups = text.split(',');
    let first = groups.next()?;
    if first.is_empty() || first.len() > 3 && text.contains(',') {
        return None;
    }
    let mut digits = first.to_owned();
    for group in groups {
        if group.len() != 3 {
            return None;
        }
        digits.push_str(group);
    }
    digits.parse().ok()
}

fn parse(surface: &str) -> Option<Stated<'_>> {
    let surface = surface.trim();
    let currency_len = currency_prefix(surface);
    let (mut currency, rest) = surface.split_at(currency_len);
    // A code before the amount is named after it: `EUR 10,000` → `… 5,000 euros`.
    let code_name = currency_name(currency.trim());
    if code_name.is_some() {
        currency = "";
    }
    let mut words = rest.split_whitespace();
    let first = words.next()?;
    let (first, percent_sign) = match first.strip_suffix('%') {
        Some(number) => (number, true),
        None => (first, false),
    };
    let (whole, decimals) = match first.split_once('.') {
        // `10.000` may be ten or ten thousand: not sure, no rung. `.117` and `0.117` are below
        // one either way.
        Some((whole, decimals))
            if !decimals.is_empty()
                && (decimals.len() != 3 || whole.is_empty() || whole == "0")
                && decimals.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (whole, decimals)
        }
        Some(_) => return None,
        None => (first, ""),
    };
    let fraction = decimals.bytes().any(|b| b != b'0');
    let below_one = (fraction && (whole.is_empty() || whole == "0")).then_some((whole, decimals));
    let mut rest: Vec<&str> = words.collect();
    let before = |word: &str| rest.first().is_some_and(|w| w.eq_ignore_ascii_case(word));
    let dozen = before("dozen");
    let mut number = if below_one.is_some() {
        0
    } else if whole.bytes().all(|b| b.is_ascii_digit() || b == b',') {
        grouped_digits(whole)?
    } else if fraction {
        return None;
    } else if dozen && whole.eq_ignore_ascii_case("a") {
        // `a dozen`: twelve. A span of `dozen` alone leaves its `a` in the text, after which
        // no count reads (`a more than ten plays`): it gets none.
        1
    } else {
        number_word(&whole.to_lowercase())?
    };
    if !fraction && number < 100 && before("hundred") {
        number *= 100;
        rest.remove(0);
    } else if !fraction && number < 100 && dozen {
        number *= 12;
        rest.remove(0);
    }
    let scale = rest
        .first()
        .and_then(|w| SCALES.iter().position(|s| w.eq_ignore_ascii_case(s)));
    if scale.is_some() {
        rest.remove(0);
    }
    let percent_word = rest.first().is_some_and(|w| {
        w.eq_ignore_ascii_case("percent") || *w == "%" || w.eq_ignore_ascii_case("per")
    });
    if percent_word {
        if rest.first().is_some_and(|w| w.eq_ignore_ascii_case("per")) {
            if !rest.get(1).is_some_and(|w| w.eq_ignore_ascii_case("cent")) {
                return None;
            }
            rest.remove(0);
        }
        rest.remove(0);
    }
    // `5 feet 10 inches`: the bounds hold the first unit alone (`less than ten feet`).
    if let Some(at) = rest
        .iter()
        .position(|w| w.bytes().any(|b| b.is_ascii_digit()))
    {
        rest.truncate(at);
    }
    if let Some(name) = code_name {
        rest.insert(0, name);
    }
    let money = !currency.is_empty()
        || code_name.is_some()
        || rest
            .iter()
            .any(|w| CURRENCY_WORDS.contains(&w.to_lowercase().as_str()));
    let measure = rest.first().is_some_and(|unit| {
        MEASURE_UNITS.contains(&unit.trim_end_matches('.').to_lowercase().as_str())
    });
    Some(Stated {
        currency,
        number,
        fraction,
        scale,
        percent: percent_sign || percent_word,
        money,
        measure,
        below_one,
        rest,
    })
}

/// `two` → 2, `forty-five` → 45.
fn number_word(word: &str) -> Option<u64> {
    if let Some(i) = ONE_TO_NINETEEN.iter().position(|w| *w == word) {
        return Some(i as u64 + 1);
    }
    let (tens, unit) = word.split_once('-').unwrap_or((word, ""));
    let tens = TENS.iter().position(|w| *w == tens)? as u64 * 10 + 20;
    let unit = match unit {
        "" => 0,
        unit => ONE_TO_NINETEEN[..9].iter().position(|w| *w == unit)? as u64 + 1,
    };
    Some(tens + unit)
}

impl Stated<'_> {
    /// A round number below `value` in its leading digit (`87` → 80, `80` → 70, `10` → 5), or
    /// for a fraction its whole part (`2.5` → 2); none below ten.
    fn lower_bound(&self, value: u64) -> Option<u64> {
        if self.fraction && value == self.number {
            return (value >= 1).then_some(value);
        }
        if value < 10 {
            return None;
        }
        round_below(value)
    }

    /// `.117` → `more than .100`, `less than 1`: a number below one bounded as a whole number is,
    /// in its decimals as written; the upper bound only for a number with no unit after it
    /// (`less than 1 miles` would not read) and no percentage.
    fn below_one(&self, whole: &str, decimals: &str) -> Option<Vec<Rung>> {
        let value: u64 = decimals.parse().ok()?;
        let width = decimals.len();
        let mut texts = Vec::new();
        if let Some(lower) = round_below(value).filter(|lower| *lower > 0) {
            texts.push(format!(
                "more than {}{whole}.{lower:0>width$}{}",
                self.currency,
                self.after_number(self.scale)
            ));
        }
        if self.rest.is_empty() && !self.percent {
            texts.push(format!(
                "less than {}1{}",
                self.currency,
                self.after_number(self.scale)
            ));
        }
        (!texts.is_empty()).then(|| Rung::all(RungSource::Number, texts))
    }

    /// `fewer than a hundred films`, `less than $1 billion`: the next power of ten above `value`
    /// (none for a percentage).
    /// For money, the bound one order of magnitude above [`Self::upper_text`]'s: a document
    /// that states several amounts often states the round one the first bound names (`EUR
    /// 4,000` beside `EUR 10,000`), which then reveals it.
    fn wider_upper_text(&self, value: u64) -> Option<String> {
        if !self.money || self.percent {
            return None;
        }
        let mut upper = 10u64.pow(value.max(1).ilog10()).saturating_mul(100);
        let mut scale = self.scale;
        while let Some(current) = scale
            && upper >= 1000
            && current + 1 < SCALES.len()
        {
            upper /= 1000;
            scale = Some(current + 1);
        }
        Some(format!("less than {}", self.amount(upper, scale)))
    }

    fn upper_text(&self, value: u64) -> Option<String> {
        if self.percent {
            return None;
        }
        let order = 10u64.pow(value.max(1).ilog10());
        let (upper, scale) = match self.scale {
            Some(scale) if order * 10 == 1000 && scale + 1 < SCALES.len() => (1, Some(scale + 1)),
            scale => (order * 10, scale),
        };
        let fewer = if self.money || self.measure {
            "less"
        } else {
            "fewer"
        };
        Some(format!("{fewer} than {}", self.amount(upper, scale)))
    }

    /// `a six-figure sum`: an amount of money by the digits of its whole part, its currency
    /// left out. The currency may name a country the document masks (`Turkish liras`), and a
    /// code after the number (`(EUR)`) is a capitalised word of the span no rung may repeat.
    fn figures(&self) -> Option<String> {
        if !self.money || self.percent {
            return None;
        }
        let zeros = self.scale.map_or(0, |scale| 3 * (scale as u32 + 1));
        let digits = self.number.checked_ilog10()? + 1 + zeros;
        let word = FIGURES.get(usize::try_from(digits).ok()?.checked_sub(2)?)?;
        Some(super::with_article(&format!("{word}-figure sum")))
    }

    /// `value` (in units of `scale`) written as the span writes its number: words for ten, a
    /// hundred and a thousand without a currency, digits with separators otherwise.
    fn amount(&self, value: u64, scale: Option<usize>) -> String {
        let number = match (value, self.currency.is_empty(), scale) {
            (10, true, _) => "ten".to_owned(),
            (100, true, _) => "a hundred".to_owned(),
            (1000, true, None) => "a thousand".to_owned(),
            (1, true, Some(_)) => "a".to_owned(),
            _ => with_separators(value),
        };
        format!("{}{number}{}", self.currency, self.after_number(scale))
    }

    /// What follows the number: its scale, `%` and the words after it (its unit).
    fn after_number(&self, scale: Option<usize>) -> String {
        let mut out = String::new();
        if let Some(scale) = scale {
            out.push(' ');
            out.push_str(SCALES[scale]);
        }
        if self.percent {
            out.push('%');
        }
        for word in &self.rest {
            out.push(' ');
            out.push_str(word);
        }
        out
    }
}

/// A round number below `value` in its leading digit (`87` → 80, `80` → 70, `10` → 5, `1` →
/// 0).
fn round_below(value: u64) -> Option<u64> {
    let order = 10u64.pow(value.checked_ilog10()?);
    let lead = value / order;
    Some(if lead * order < value {
        lead * order
    } else if lead > 1 {
        (lead - 1) * order
    } else {
        order / 2
    })
}

/// `4312` → `4,312`.
fn with_separators(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(surface: &str) -> Vec<String> {
        ladder(surface)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn hedged_amounts_are_bounded_only_where_the_hedge_allows() {
        assert_eq!(texts("over 200"), ["more than a hundred"]);
        assert_eq!(texts("more than 300 people"), ["more than 200 people"]);
        assert_eq!(texts("nearly 50"), ["fewer than a hundred"]);
        assert_eq!(texts("up to $3 million"), ["less than $10 million"]);
        assert_eq!(texts("about 40"), ["fewer than a hundred"]);
        assert_eq!(texts("some 20 films"), ["fewer than a hundred films"]);
        // `about 95` may be 101: no bound holds it surely.
        assert!(texts("about 95").is_empty());
        assert!(texts("over 5").is_empty());
    }

    #[test]
    fn repetitions_shares_and_units_read_surely() {
        assert_eq!(texts("twice"), ["more than once"]);
        assert_eq!(texts("a three-time"), ["a multiple-time"]);
        assert_eq!(texts("6-time"), ["multiple-time"]);
        assert!(texts("one-time").is_empty());
        assert_eq!(texts("two-thirds"), ["more than half"]);
        assert_eq!(texts("a quarter"), ["less than half"]);
        assert!(texts("half").is_empty());
        assert_eq!(texts("(38)"), ["(more than 30)", "(fewer than a hundred)"]);
        assert!(texts("(one)").is_empty());
        assert_eq!(texts("5 feet 10 inches"), ["less than ten feet"]);
        assert_eq!(texts("5 ft 11"), ["less than ten ft"]);
        assert_eq!(texts("1.80 m"), ["more than 1 m", "less than ten m"]);
        assert_eq!(
            texts("¥300"),
            [
                "more than ¥200",
                "less than ¥1,000",
                "less than ¥10,000",
                "a three-figure sum"
            ]
        );
        assert_eq!(
            texts("Rs 500"),
            [
                "more than 400 rupees",
                "less than a thousand rupees",
                "less than 10,000 rupees",
                "a three-figure sum"
            ]
        );
    }

    #[test]
    fn counts_widen_to_bounds_that_hold_them() {
        assert_eq!(
            texts("87 films"),
            ["more than 80 films", "fewer than a hundred films"]
        );
        assert_eq!(texts("80"), ["more than 70", "fewer than a hundred"]);
        assert_eq!(texts("two"), ["fewer than ten"]);
        assert_eq!(texts("eleven"), ["more than ten", "fewer than a hundred"]);
        assert_eq!(
            texts("forty-five"),
            ["more than 40", "fewer than a hundred"]
        );
        assert_eq!(
            texts("4,312 employees"),
            ["more than 4,000 employees", "fewer than 10,000 employees"]
        );
        assert_eq!(
            texts("1,200"),
            ["more than a thousand", "fewer than 10,000"]
        );
        assert_eq!(
            texts("$145 million"),
            [
                "more than $100 million",
                "less than $1 billion",
                "less than $10 billion",
                "a nine-figure sum"
            ]
        );
        assert_eq!(texts("45%"), ["more than 40%"]);
        assert_eq!(
            texts("12 million"),
            ["more than ten million", "fewer than a hundred million"]
        );
        assert_eq!(
            texts("300 million"),
            ["more than 200 million", "fewer than a billion"]
        );
    }

    #[test]
    fn money_decimals_ranges_and_ordinals() {
        // A code is a word of the span a rung may not repeat: the rungs name the currency.
        assert_eq!(
            texts("EUR 10,000"),
            [
                "more than 5,000 euros",
                "less than 100,000 euros",
                "less than 1,000,000 euros",
                "a five-figure sum"
            ]
        );
        assert_eq!(texts("eur 10,000"), texts("EUR 10,000"));
        // The last rung names no currency: a currency may name a country the document masks.
        assert_eq!(
            texts("54,525,000 Turkish Liras (TRL)").last().unwrap(),
            "an eight-figure sum"
        );
        assert_eq!(texts("$145 million").last().unwrap(), "a nine-figure sum");
        // Not for a count, a share or a single digit.
        assert!(!texts("87 films").concat().contains("figure"));
        assert!(!texts("45%").concat().contains("figure"));
        assert!(!texts("7 euros").concat().contains("figure"));
        assert_eq!(
            texts("EUR 100-200"),
            [
                "more than 50 euros",
                "less than a thousand euros",
                "less than 10,000 euros"
            ]
        );
        assert_eq!(
            texts("3,000 euros"),
            [
                "more than 2,000 euros",
                "less than 10,000 euros",
                "less than 100,000 euros",
                "a four-figure sum"
            ]
        );
        assert_eq!(
            texts("$2.5 billion"),
            [
                "more than $2 billion",
                "less than $10 billion",
                "less than $100 billion",
                "a ten-figure sum"
            ]
        );
        assert_eq!(texts("1.5"), ["more than 1", "fewer than ten"]);
        assert_eq!(texts("3.5%"), ["more than 3%"]);
        assert_eq!(texts("45 per cent"), ["more than 40%"]);
        assert_eq!(
            texts("two hundred"),
            ["more than a hundred", "fewer than a thousand"]
        );
        assert_eq!(texts("5–10 years"), ["less than a hundred years"]);
        assert_eq!(
            texts("between 15 and 20 metres"),
            ["more than ten metres", "less than a hundred metres"]
        );
        assert_eq!(
            texts("$100–130 million"),
            [
                "more than $50 million",
                "less than $1 billion",
                "less than $10 billion"
            ]
        );
        assert_eq!(
            texts("fourth"),
            ["among the first ten", "among the first hundred"]
        );
        assert_eq!(
            texts("21st"),
            ["among the first hundred", "among the first thousand"]
        );
        assert_eq!(texts("Twenty-First"), texts("21st"));
        assert_eq!(texts("twelfth"), texts("12th"));
    }

    #[test]
    fn what_states_no_count_gives_nothing() {
        for surface in [
            "one",
            "second",
            "dozen",
            "dozens",
            "over .250",
            ".000",
            ".",
            "0.",
            "1,5",
            "10.000",
            "10.000 euros",
            "5 per",
            "number 31",
            "",
            "1,2,",
        ] {
            assert!(texts(surface).is_empty(), "{surface}");
        }
    }

    #[test]
    fn a_number_below_one_is_bounded_in_its_decimals() {
        assert_eq!(texts(".347"), ["more than .300", "less than 1"]);
        assert_eq!(texts("0.347"), ["more than 0.300", "less than 1"]);
        assert_eq!(texts(".100"), ["more than .050", "less than 1"]);
        assert_eq!(texts(".06"), ["more than .05", "less than 1"]);
        assert_eq!(texts("0.5 kg"), ["more than 0.4 kg"]);
        assert_eq!(texts("0.7%"), ["more than 0.6%"]);
        assert_eq!(texts("$0.35"), ["more than $0.30", "less than $1"]);
        assert_eq!(texts("(.412)"), ["(more than .400)", "(less than 1)"]);
        // Below one, whatever the count of decimals; above it, three may be thousands.
        assert!(texts("2.347").is_empty());
    }

    #[test]
    fn a_dozen_is_twelve() {
        assert_eq!(texts("a dozen"), ["more than ten", "fewer than a hundred"]);
        assert_eq!(
            texts("three dozen eggs"),
            ["more than 30 eggs", "fewer than a hundred eggs"]
        );
        assert_eq!(texts("about a dozen"), ["fewer than a hundred"]);
    }

    #[test]
    fn measures_and_spelled_ordinals_read_as_written_ones() {
        assert_eq!(
            texts("60 kg"),
            ["more than 50 kg", "less than a hundred kg"]
        );
        assert_eq!(texts("ninth"), texts("9th"));
        assert_eq!(texts("sixty-third"), texts("63rd"));
    }

    fn durations(surface: &str) -> Vec<String> {
        duration(surface)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn a_possessive_duration_keeps_its_apostrophe() {
        assert_eq!(
            durations("twenty-eight years'"),
            ["more than 20 years'", "less than a hundred years'"]
        );
        assert_eq!(durations("three months’")[0], "less than ten months’");
    }

    #[test]
    fn a_duration_in_one_word_reads_as_written() {
        assert_eq!(
            durations("47 weeks"),
            ["more than 40 weeks", "less than a hundred weeks"]
        );
        assert_eq!(
            durations("47-week"),
            ["more than 40-week", "less than 100-week"]
        );
        assert_eq!(
            durations("612-day-long"),
            ["more than 600-day-long", "less than 1,000-day-long"]
        );
        assert_eq!(
            durations("thirty-six-month"),
            ["more than 30-month", "less than 100-month"]
        );
        assert_eq!(durations("three-Year"), ["less than 10-Year"]);
        for surface in [
            "one-year",
            "year-long",
            "12-week-ban",
            "3-time",
            "1 year’s",
            "-week",
        ] {
            assert!(durations(surface).is_empty(), "{surface}");
        }
    }

    #[test]
    fn every_bound_holds_the_stated_value() {
        for n in 2u64..5000 {
            for text in texts(&n.to_string()) {
                let (more, bound) = match text.strip_prefix("more than ") {
                    Some(bound) => (true, bound),
                    None => (false, text.strip_prefix("fewer than ").unwrap()),
                };
                let bound: u64 = match bound {
                    "ten" => 10,
                    "a hundred" => 100,
                    "a thousand" => 1000,
                    digits => digits.replace(',', "").parse().unwrap(),
                };
                assert!(if more { bound < n } else { bound > n }, "{n}: {text}");
            }
        }
    }
}
