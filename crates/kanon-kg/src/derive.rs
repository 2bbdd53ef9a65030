//! Facts read from a biography's own conventional parts, for people no KG source knows.
//!
//! Encyclopaedic biographies open the same way: the full name, a parenthetical with the birth
//! (and death) dates and places, then "is an American actor and singer". Later sentences say
//! where the person was born, studied, worked, which awards they won and whom they married. A
//! [`Deriver`] reads those parts into the facts a Wikidata entry would hold: birth and death dates
//! and places, citizenship (from demonyms, through kanon's country vocabulary), occupations (from
//! kanon's occupation vocabularies), education, employer, membership, awards and spouses, and the
//! names the text gives the person (birth name, full name, stage name).
//!
//! Rules read the text's shape only (capitalisation, dates, the vocabularies' demonyms and
//! occupations); nothing is learned from annotated data. What they miss stays unlabeled, and
//! what they wrongly read becomes a term of the person that the labeler may mask: both are
//! distant-supervision noise, measured in docs/results/detector.md ("Actor abstracts").
//!
//! ```
//! use kanon_kg::derive::Deriver;
//! use kanon_kg::Property;
//!
//! let derived = Deriver::embedded().derive(
//!     "Lee Aaker",
//!     "Lee William Aaker (born September 25, 1943 in Los Angeles, California) is an American \
//!      former child actor. He attended the University of Michigan.",
//! );
//! let value = |p: Property| derived.facts.iter().find(|f| f.property == p).map(|f| f.value.clone());
//! assert_eq!(value(Property::BirthDate).as_deref(), Some("1943-09-25"));
//! assert_eq!(value(Property::BirthPlace).as_deref(), Some("Los Angeles"));
//! assert_eq!(value(Property::Citizenship).as_deref(), Some("United States"));
//! assert_eq!(value(Property::Occupation).as_deref(), Some("child actor"));
//! assert_eq!(value(Property::EducatedAt).as_deref(), Some("University of Michigan"));
//! assert_eq!(derived.aliases, ["Lee William Aaker"]);
//! ```

use kanon_core::text::normalize_term;
use rustc_hash::FxHashSet;

use crate::date::{Date, day_of_month, month_number};
use crate::import::labels::bundled_labels_of_kind;
use crate::model::{Fact, Property};
use crate::variants::SURNAME_PARTICLES;
use crate::vocab::Vocabulary;

/// What a biography says about its person.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Derived {
    /// Other names of the person (full name, birth name, stage name), never the label itself.
    pub aliases: Vec<String>,
    /// Facts, each (property, value) once, in the order read.
    pub facts: Vec<Fact>,
}

impl Derived {
    fn add(&mut self, fact: Fact) {
        let key = normalize_term(&fact.value);
        if key.is_none() {
            return;
        }
        if !self
            .facts
            .iter()
            .any(|f| f.property == fact.property && normalize_term(&f.value) == key)
        {
            self.facts.push(fact);
        }
    }

    fn add_alias(&mut self, label: &str, alias: &str) {
        let alias = alias.trim();
        let key = normalize_term(alias);
        if key.is_some()
            && key != normalize_term(label)
            && alias.split_whitespace().count() >= 2
            && !self.aliases.iter().any(|a| normalize_term(a) == key)
        {
            self.aliases.push(alias.to_owned());
        }
    }
}

/// Reads facts from biographies with kanon's vocabularies.
#[derive(Debug)]
pub struct Deriver {
    vocabulary: &'static Vocabulary,
    /// Normalised occupation names.
    occupations: FxHashSet<String>,
}

/// Words that start a phrase the descriptor ("is an American actor …") does not continue into.
const DESCRIPTOR_STOPS: &[&str] = &[
    "who",
    "whose",
    "whom",
    "which",
    "that",
    "known",
    "best",
    "born",
    "from",
    "with",
    "in",
    "on",
    "for",
    "of",
    "at",
    "by",
    "as",
    "since",
    "during",
    "until",
    "between",
    "to",
    "is",
    "was",
    "has",
    "had",
    "most",
    "perhaps",
    "notable",
    "noted",
    "famous",
    "primarily",
    "mainly",
    "mostly",
    "whom",
    "appearing",
    "starring",
    "working",
    "where",
    "when",
    "having",
    "after",
    "before",
];

/// Lower-case words allowed inside a capitalised name ("University of Oslo", "Order of the Bath").
const NAME_CONNECTORS: &[&str] = &["of", "for", "and", "the", "de", "&", "y"];

/// Words ending an award's name; a capitalised phrase after "won" without one is not an award.
const AWARD_HEADS: &[&str] = &[
    "award", "awards", "prize", "prizes", "medal", "oscar", "oscars", "emmy", "emmys", "globe",
    "globes", "bafta", "baftas", "tony", "tonys", "trophy", "cross", "order", "honour", "honor",
    "grammy", "grammys", "césar", "cesar", "goya", "bear", "lion", "palme",
];

/// Demonyms of the United Kingdom's constituent countries, which the country vocabulary (one
/// demonym per country) does not hold; Wikidata gives these people British citizenship.
const CONSTITUENT_DEMONYMS: &[(&str, &str)] = &[
    ("English", "United Kingdom"),
    ("Scottish", "United Kingdom"),
    ("Welsh", "United Kingdom"),
];

/// Triggers and the property of the capitalised phrase they introduce.
const ORGANISATION_TRIGGERS: &[(&[&str], Property)] = &[
    (&["graduated", "from"], Property::EducatedAt),
    (&["graduate", "of"], Property::EducatedAt),
    (&["attended"], Property::EducatedAt),
    (&["studied", "at"], Property::EducatedAt),
    (&["educated", "at"], Property::EducatedAt),
    (&["trained", "at"], Property::EducatedAt),
    (&["enrolled", "at"], Property::EducatedAt),
    (&["enrolled", "in"], Property::EducatedAt),
    (&["alumnus", "of"], Property::EducatedAt),
    (&["alumna", "of"], Property::EducatedAt),
    (&["degree", "from"], Property::EducatedAt),
    (&["student", "at"], Property::EducatedAt),
    (&["worked", "for"], Property::Employer),
    (&["worked", "at"], Property::Employer),
    (&["employed", "by"], Property::Employer),
    (&["signed", "with"], Property::Employer),
    (&["contract", "with"], Property::Employer),
    (&["joined"], Property::Employer),
    (&["member", "of"], Property::MemberOf),
];

const PLACE_TRIGGERS: &[(&[&str], Property)] = &[
    (&["born", "in"], Property::BirthPlace),
    (&["raised", "in"], Property::Residence),
    (&["grew", "up", "in"], Property::Residence),
    (&["died", "in"], Property::DeathPlace),
    (&["lives", "in"], Property::Residence),
    (&["resides", "in"], Property::Residence),
];

const AWARD_TRIGGERS: &[&[&str]] = &[
    &["won"],
    &["received"],
    &["awarded"],
    &["recipient", "of"],
    &["winner", "of"],
];

/// Words between "won" and an award's name ("won two Golden Globe Awards").
const AWARD_QUANTIFIERS: &[&str] = &[
    "the", "a", "an", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "several", "numerous", "many", "multiple", "his", "her", "their", "first", "second", "third",
];

/// Role words between "married" and a spouse's name ("married actress Jane Doe").
const SPOUSE_ROLES: &[&str] = &[
    "actor",
    "actress",
    "director",
    "producer",
    "singer",
    "writer",
    "screenwriter",
    "musician",
    "dancer",
    "model",
    "author",
    "composer",
    "photographer",
    "journalist",
    "businessman",
    "businesswoman",
    "comedian",
    "playwright",
    "film",
    "fellow",
    "former",
    "co-star",
    "costar",
    "television",
    "stage",
    "theatre",
    "theater",
    "record",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Punct,
}

#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    kind: Kind,
}

impl Tok<'_> {
    fn is(&self, word: &str) -> bool {
        self.text.eq_ignore_ascii_case(word)
    }

    fn is_word(&self) -> bool {
        self.kind == Kind::Word
    }

    fn is_capitalised(&self) -> bool {
        self.is_word() && self.text.chars().next().is_some_and(char::is_uppercase)
    }

    fn is_lowercase_word(&self) -> bool {
        self.is_word() && self.text.chars().next().is_some_and(char::is_lowercase)
    }

    fn is_dash(&self) -> bool {
        matches!(self.text, "–" | "—" | "-" | "−")
    }
}

/// Words (letters and digits, with inner apostrophes, hyphens and dots between letters kept) and
/// single punctuation marks.
fn tokenize(text: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_alphanumeric() {
            let mut j = i + 1;
            while j < chars.len() {
                let c = chars[j].1;
                // A dot joins initials ("U.S.", "D.C.") but not sentences that lost their
                // space ("Texas.She").
                let single_letter_before =
                    j >= 1 && (j == i + 1 || chars.get(j - 2).is_some_and(|(_, p)| *p == '.'));
                let joins = matches!(c, '\'' | '’' | '-' | '.')
                    && chars.get(j + 1).is_some_and(|(_, n)| n.is_alphanumeric())
                    && (c != '.' || (single_letter_before && chars[j - 1].1.is_alphabetic()));
                if c.is_alphanumeric() || joins {
                    j += 1;
                } else {
                    break;
                }
            }
            let end = chars.get(j).map_or(text.len(), |(b, _)| *b);
            out.push(Tok {
                text: &text[start..end],
                start,
                end,
                kind: Kind::Word,
            });
            i = j;
        } else {
            let end = chars.get(i + 1).map_or(text.len(), |(b, _)| *b);
            out.push(Tok {
                text: &text[start..end],
                start,
                end,
                kind: Kind::Punct,
            });
            i += 1;
        }
    }
    out
}

fn year_of(word: &str) -> Option<i32> {
    if !(3..=4).contains(&word.len()) || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: i32 = word.parse().ok()?;
    (100..=2100).contains(&year).then_some(year)
}

/// A date written at `toks[i..]`: "September 25, 1943", "25 September 1943", "September 1943",
/// "1943" (years only when `bare_years`). Returns the date and the index after it.
fn date_at(toks: &[Tok<'_>], i: usize, bare_years: bool) -> Option<(Date, usize)> {
    let word = |k: usize| toks.get(k).filter(|t| t.is_word()).map(|t| t.text);
    let skip_dot = |k: usize| {
        if toks.get(k).is_some_and(|t| t.text == ".") {
            k + 1
        } else {
            k
        }
    };
    let skip_comma = |k: usize| {
        if toks.get(k).is_some_and(|t| t.text == ",") {
            k + 1
        } else {
            k
        }
    };
    let complete = |year: i32, month: Option<u8>, day: Option<u8>, next: usize| {
        let date = Date { year, month, day };
        Date::parse(&date.to_string()).map(|d| (d, next))
    };
    let first = word(i)?;
    if let Some(month) = month_number(first) {
        let k = skip_dot(i + 1);
        if let Some(day) = word(k).and_then(day_of_month) {
            let y = skip_comma(k + 1);
            if let Some(year) = word(y).and_then(year_of) {
                return complete(year, Some(month), Some(day), y + 1);
            }
        }
        if let Some(year) = word(k).and_then(year_of) {
            return complete(year, Some(month), None, k + 1);
        }
        return None;
    }
    if let Some(day) = day_of_month(first)
        && let Some(month) = word(i + 1).and_then(month_number)
    {
        let y = skip_comma(skip_dot(i + 2));
        if let Some(year) = word(y).and_then(year_of) {
            return complete(year, Some(month), Some(day), y + 1);
        }
    }
    if bare_years && let Some(year) = year_of(first) {
        return complete(year, None, None, i + 1);
    }
    None
}

fn is_connector(tok: &Tok<'_>) -> bool {
    tok.is_word() && NAME_CONNECTORS.contains(&tok.text) || tok.text == "&"
}

/// The capitalised name starting at `toks[i]` ("University of Michigan", "St. Thomas High
/// School"): its token range, at most `max_words` words, connectors only between capitals.
fn name_at(toks: &[Tok<'_>], i: usize, max_words: usize) -> Option<(usize, usize)> {
    let first = toks.get(i)?;
    if !first.is_capitalised() || month_number(first.text).is_some() {
        return None;
    }
    let mut last = i;
    let mut j = i + 1;
    let mut words = 1;
    while j < toks.len() && words < max_words {
        let tok = &toks[j];
        if tok.is_capitalised() {
            last = j;
            words += 1;
            j += 1;
        } else if is_connector(tok) {
            // "Order of the British Empire", "Arts and Sciences"; not "Company and of the …".
            let capital_at = |k: usize| toks.get(k).is_some_and(Tok::is_capitalised);
            let continues = capital_at(j + 1)
                || (!(tok.is("and") || tok.text == "&")
                    && toks.get(j + 1).is_some_and(|t| t.is("the"))
                    && capital_at(j + 2));
            if !continues {
                break;
            }
            j += 1;
        } else if tok.text == "."
            && j == last + 1
            && toks[last].text.chars().count() <= 3
            && toks.get(j + 1).is_some_and(Tok::is_capitalised)
        {
            // "St. Thomas", "Mt. Sinai": an abbreviation inside the name.
            j += 1;
        } else {
            break;
        }
    }
    Some((i, last + 1))
}

fn span_text<'a>(text: &'a str, toks: &[Tok<'_>], range: (usize, usize)) -> &'a str {
    &text[toks[range.0].start..toks[range.1 - 1].end]
}

/// Whether `toks[i..]` starts with `words` (case ignored); the index after them.
fn starts_with(toks: &[Tok<'_>], i: usize, words: &[&str]) -> Option<usize> {
    words
        .iter()
        .enumerate()
        .all(|(k, w)| toks.get(i + k).is_some_and(|t| t.is(w)))
        .then_some(i + words.len())
}

impl Deriver {
    /// A deriver with kanon's embedded vocabularies: countries and demonyms, occupations (the
    /// occupation table and the bundled Wikidata occupation labels).
    pub fn embedded() -> &'static Deriver {
        static DERIVER: std::sync::OnceLock<Deriver> = std::sync::OnceLock::new();
        DERIVER.get_or_init(|| {
            let vocabulary = Vocabulary::embedded();
            let occupations = vocabulary
                .occupations
                .iter()
                .map(|o| o.value.as_str())
                .chain(bundled_labels_of_kind("occupation"))
                .filter_map(normalize_term)
                .collect();
            Deriver {
                vocabulary,
                occupations,
            }
        })
    }

    /// The facts and other names that `text`, a biography of the person called `label`, gives.
    pub fn derive(&self, label: &str, text: &str) -> Derived {
        let toks = tokenize(text);
        let mut derived = Derived::default();
        let paren = self.opening(label, text, &toks, &mut derived);
        self.descriptor(&toks, paren, &mut derived);
        self.places(text, &toks, &mut derived);
        self.organisations(text, &toks, &mut derived);
        self.awards(text, &toks, &mut derived);
        self.spouses(text, &toks, &mut derived);
        derived
    }

    /// The lead name and the first parenthetical: "Edward Laurence Heimberger (February 20, 1951 –
    /// September 22, 2006), known professionally as Edward Albert". Returns the index after the
    /// parenthetical (0 when there is none).
    fn opening(&self, label: &str, text: &str, toks: &[Tok<'_>], derived: &mut Derived) -> usize {
        let Some(open) = toks.iter().take(30).position(|t| t.text == "(") else {
            return 0;
        };
        let lead_is_name = open > 0
            && toks[..open].iter().all(|t| {
                t.is_capitalised()
                    || t.text == "\""
                    || t.text == "."
                    || SURNAME_PARTICLES.contains(&t.text)
            });
        if lead_is_name {
            let lead = &text[toks[0].start..toks[open - 1].end];
            if !lead.contains('"') {
                derived.add_alias(label, lead);
            }
        }
        let mut depth = 0;
        let mut close = toks.len();
        for (k, tok) in toks.iter().enumerate().skip(open) {
            match tok.text {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let inside = &toks[open + 1..close.min(toks.len())];
        for segment in inside.split(|t| t.text == ";") {
            self.life_segment(label, text, segment, derived);
        }
        // ", known professionally as Edward Albert" / "known by her stage name Paz de la Huerta".
        let after = (close + 1).min(toks.len());
        for k in after..(after + 12).min(toks.len()) {
            if toks[k].is("as") || toks[k].is("name") {
                if let Some(range) = name_at(toks, k + 1, 5) {
                    derived.add_alias(label, span_text(text, toks, range));
                }
                break;
            }
            if toks[k].is("is") || toks[k].is("was") {
                break;
            }
        }
        (close + 1).min(toks.len())
    }

    /// One `;`-separated part of the opening parenthetical: "born September 25, 1943 in Los
    /// Angeles", "1911–1977", "born Albert William Upton on July 15, 1960".
    fn life_segment(&self, label: &str, text: &str, seg: &[Tok<'_>], derived: &mut Derived) {
        let Some(first) = seg.first() else { return };
        if first.is("née") || first.is("nee") || first.is("formerly") || first.is("pronounced") {
            return;
        }
        let dash = seg.iter().position(|t| t.is_dash() || t.is("to"));
        let (birth, death) = match dash {
            Some(d) => (&seg[..d], &seg[d + 1..]),
            None if seg.iter().any(|t| t.is("died") || t.is("d")) => (&seg[..0], seg),
            None => (seg, &seg[..0]),
        };
        for (part, date_property, place_property) in [
            (birth, Property::BirthDate, Property::BirthPlace),
            (death, Property::DeathDate, Property::DeathPlace),
        ] {
            let mut k = 0;
            if part.first().is_some_and(|t| t.is("born")) {
                k = 1;
                // "born Albert William Upton on July 15, 1960": a birth name.
                if let Some(range) = name_at(part, 1, 6)
                    && part.get(range.1).is_some_and(|t| t.is("on") || t.is("in"))
                {
                    derived.add_alias(label, span_text(text, part, range));
                    k = range.1;
                }
            }
            if part.get(k).is_some_and(|t| t.is("died") || t.is("d")) {
                k += 1;
            }
            while k < part.len() {
                if let Some((date, next)) = date_at(part, k, true) {
                    derived.add(Fact::new(date_property.clone(), date.to_string()));
                    k = next;
                    // The place: "… 1943 in Los Angeles" or "… 1943, Los Angeles".
                    let place_start = match part.get(k) {
                        Some(t) if t.is("in") || t.text == "," => k + 1,
                        _ => continue,
                    };
                    self.add_place(text, part, place_start, place_property.clone(), derived);
                    break;
                }
                k += 1;
            }
        }
    }

    /// A place at `toks[i..]`, "Parnell, Michigan" → `Parnell` and the region `Michigan`, each a
    /// fact of `property` (countries become the birth country when `property` is the birthplace).
    fn add_place(
        &self,
        text: &str,
        toks: &[Tok<'_>],
        mut i: usize,
        property: Property,
        derived: &mut Derived,
    ) {
        if toks.get(i).is_some_and(|t| t.is("the")) {
            i += 1;
        }
        let mut parts = Vec::new();
        while let Some(range) = name_at(toks, i, 4) {
            if toks[range.0..range.1]
                .iter()
                .any(|t| year_of(t.text).is_some())
            {
                break;
            }
            parts.push(span_text(text, toks, range));
            if parts.len() == 3
                || toks.get(range.1).is_none_or(|t| t.text != ",")
                || !toks.get(range.1 + 1).is_some_and(Tok::is_capitalised)
            {
                break;
            }
            i = range.1 + 1;
        }
        for part in parts {
            let property = if self.vocabulary.country(part).is_some() {
                match property {
                    Property::BirthPlace => Property::BirthCountry,
                    _ => property.clone(),
                }
            } else {
                property.clone()
            };
            derived.add(Fact::new(property, part));
        }
    }

    /// "is an American former child actor and singer": citizenship by demonym, occupations.
    fn descriptor(&self, toks: &[Tok<'_>], from: usize, derived: &mut Derived) {
        let end = (from + 60).min(toks.len());
        let Some(verb) = (from..end).find(|&k| {
            (toks[k].is("is") || toks[k].is("was"))
                && toks
                    .get(k + 1)
                    .is_some_and(|t| t.is("a") || t.is("an") || t.is("the"))
        }) else {
            return;
        };
        let mut items: Vec<Vec<&str>> = vec![Vec::new()];
        for tok in &toks[verb + 2..] {
            let lower = tok.text.to_lowercase();
            if tok.text == "," || tok.is("and") || tok.text == "&" || tok.text == "/" {
                items.push(Vec::new());
                continue;
            }
            if !tok.is_word() || DESCRIPTOR_STOPS.contains(&lower.as_str()) {
                break;
            }
            items.last_mut().expect("one item").push(tok.text);
        }
        for item in items {
            let mut rest: Vec<String> = Vec::new();
            for word in item {
                let pieces: Vec<&str> = word.split('-').collect();
                let countries: Vec<Fact> = pieces
                    .iter()
                    .filter_map(|piece| self.citizenship(piece))
                    .collect();
                if word.starts_with(char::is_uppercase) && countries.len() == pieces.len() {
                    for country in countries {
                        derived.add(country);
                    }
                } else {
                    rest.push(word.to_lowercase());
                }
            }
            // The longest occupation the item ends with: "former child actor" → "child actor".
            for n in (1..=rest.len().min(3)).rev() {
                let candidate = rest[rest.len() - n..].join(" ");
                if let Some(key) = normalize_term(&candidate)
                    && self.occupations.contains(&key)
                {
                    derived.add(Fact::new(Property::Occupation, candidate));
                    break;
                }
            }
        }
    }

    /// The citizenship a demonym says: `Norwegian` → Norway; `English` → United Kingdom, written
    /// "English" too.
    fn citizenship(&self, demonym: &str) -> Option<Fact> {
        if let Some(country) = self.vocabulary.country_of_demonym(demonym) {
            return Some(Fact::new(Property::Citizenship, country.name.as_str()));
        }
        CONSTITUENT_DEMONYMS
            .iter()
            .find(|(d, _)| d.eq_ignore_ascii_case(demonym))
            .map(|(d, country)| {
                Fact::new(Property::Citizenship, *country).with_alternates([d.to_string()])
            })
    }

    /// "born in X", "raised in X", "died in X" anywhere in the text.
    fn places(&self, text: &str, toks: &[Tok<'_>], derived: &mut Derived) {
        for k in 0..toks.len() {
            for (trigger, property) in PLACE_TRIGGERS {
                if let Some(next) = starts_with(toks, k, trigger) {
                    self.add_place(text, toks, next, property.clone(), derived);
                }
            }
        }
    }

    /// Education, employers and memberships: "attended the University of Michigan".
    fn organisations(&self, text: &str, toks: &[Tok<'_>], derived: &mut Derived) {
        for k in 0..toks.len() {
            for (trigger, property) in ORGANISATION_TRIGGERS {
                let Some(mut next) = starts_with(toks, k, trigger) else {
                    continue;
                };
                if toks.get(next).is_some_and(|t| t.is("the")) {
                    next += 1;
                }
                if let Some(range) = name_at(toks, next, 8) {
                    let name = span_text(text, toks, range);
                    let is_place_or_people = self.vocabulary.country(name).is_some()
                        || self.vocabulary.country_of_demonym(name).is_some();
                    // "a member of the Redgrave family", "New York's theatre scene".
                    let is_modifier = toks.get(range.1).is_some_and(|t| {
                        t.is("family") || t.is("dynasty") || t.is("'") || t.is("’")
                    }) || name.ends_with("'s")
                        || name.ends_with("’s");
                    if !is_place_or_people && !is_modifier {
                        derived.add(Fact::new(property.clone(), name));
                    }
                }
            }
        }
    }

    /// "won two Golden Globe Awards", "recipient of the Order of Canada".
    fn awards(&self, text: &str, toks: &[Tok<'_>], derived: &mut Derived) {
        for k in 0..toks.len() {
            for trigger in AWARD_TRIGGERS {
                let Some(mut next) = starts_with(toks, k, trigger) else {
                    continue;
                };
                while toks
                    .get(next)
                    .is_some_and(|t| AWARD_QUANTIFIERS.iter().any(|q| t.is(q)))
                {
                    next += 1;
                }
                let Some(range) = name_at(toks, next, 8) else {
                    continue;
                };
                let name = span_text(text, toks, range);
                let words: Vec<String> =
                    name.split_whitespace().map(|w| w.to_lowercase()).collect();
                if !words.iter().any(|w| AWARD_HEADS.contains(&w.as_str())) {
                    continue;
                }
                // "two Golden Globe Awards" → "Golden Globe Award".
                let singular = match name.strip_suffix('s') {
                    Some(stem) if words.last().is_some_and(|w| w.ends_with("ards")) => stem,
                    _ => name,
                };
                derived.add(Fact::new(Property::Award, singular));
            }
        }
    }

    /// Whether a word says what a spouse is ("actress", "physicist", "fellow").
    fn is_role(&self, word: &str) -> bool {
        SPOUSE_ROLES.iter().any(|r| r.eq_ignore_ascii_case(word))
            || normalize_term(word).is_some_and(|w| self.occupations.contains(&w))
    }

    /// "married actress Jane Doe", "married to John Smith".
    fn spouses(&self, text: &str, toks: &[Tok<'_>], derived: &mut Derived) {
        for k in 0..toks.len() {
            if !(toks[k].is("married") || toks[k].is("marrying")) {
                continue;
            }
            let mut next = k + 1;
            if toks.get(next).is_some_and(|t| t.is("to")) {
                next += 1;
            }
            while toks
                .get(next)
                .is_some_and(|t| t.is_lowercase_word() && self.is_role(t.text))
            {
                next += 1;
            }
            let Some(range) = name_at(toks, next, 4) else {
                continue;
            };
            let words = range.1 - range.0;
            let all_capitalised = toks[range.0..range.1].iter().all(Tok::is_capitalised);
            let name = span_text(text, toks, range);
            let is_name = (2..=4).contains(&words)
                && all_capitalised
                && self.vocabulary.country(name).is_none()
                && self.vocabulary.city(name).is_none()
                && date_at(toks, range.0, true).is_none();
            if is_name {
                derived.add(Fact::new(Property::Spouse, name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(derived: &Derived, property: Property) -> Vec<&str> {
        derived
            .facts
            .iter()
            .filter(|f| f.property == property)
            .map(|f| f.value.as_str())
            .collect()
    }

    fn derive(label: &str, text: &str) -> Derived {
        Deriver::embedded().derive(label, text)
    }

    #[test]
    fn reads_life_dates_from_the_parenthetical() {
        let d = derive(
            "Hal Le Roy",
            "Hal Le Roy (December 10, 1913 – May 2, 1985) was an American dancer, actor, and \
             singer appearing on stage, in film, and on television.",
        );
        assert_eq!(facts(&d, Property::BirthDate), ["1913-12-10"]);
        assert_eq!(facts(&d, Property::DeathDate), ["1985-05-02"]);
        assert_eq!(facts(&d, Property::Citizenship), ["United States"]);
        assert_eq!(
            facts(&d, Property::Occupation),
            ["dancer", "actor", "singer"]
        );
        assert!(d.aliases.is_empty(), "{:?}", d.aliases);
    }

    #[test]
    fn reads_years_day_month_dates_and_died_forms() {
        let d = derive(
            "John Edward McCarthy",
            "John Edward McCarthy (1911–1977) was a radio actor and announcer. Born on a farm \
             near Parnell, Michigan, he attended St. Thomas High School in Ann Arbor, and \
             attended the University of Michigan.",
        );
        assert_eq!(facts(&d, Property::BirthDate), ["1911"]);
        assert_eq!(facts(&d, Property::DeathDate), ["1977"]);
        // "radio actor" is in no occupation vocabulary: the longest occupation it ends with.
        assert_eq!(facts(&d, Property::Occupation), ["actor", "announcer"]);
        assert_eq!(
            facts(&d, Property::EducatedAt),
            ["St. Thomas High School", "University of Michigan"]
        );
        let d = derive(
            "Bartlett Mullins",
            "Bartlett Mullins (born 13 August 1904 – died 15 May 1992) was a British actor.",
        );
        assert_eq!(facts(&d, Property::BirthDate), ["1904-08-13"]);
        assert_eq!(facts(&d, Property::DeathDate), ["1992-05-15"]);
        assert_eq!(facts(&d, Property::Citizenship), ["United Kingdom"]);
    }

    #[test]
    fn reads_names_the_text_gives() {
        let d = derive(
            "Willie Aames",
            "Willie Aames (born Albert William Upton on July 15, 1960) is an American actor, film \
             and television director, television producer, and screenwriter.",
        );
        assert_eq!(d.aliases, ["Albert William Upton"]);
        assert_eq!(facts(&d, Property::BirthDate), ["1960-07-15"]);
        let d = derive(
            "Edward Albert",
            "Edward Laurence Heimberger (February 20, 1951 – September 22, 2006), known \
             professionally as Edward Albert, was an American film and television actor.",
        );
        assert_eq!(d.aliases, ["Edward Laurence Heimberger"]);
        assert_eq!(facts(&d, Property::DeathDate), ["2006-09-22"]);
        assert_eq!(facts(&d, Property::Occupation), ["actor"]);
    }

    #[test]
    fn reads_places_with_their_regions_and_multiple_demonyms() {
        let d = derive(
            "Emilie de Ravin",
            "Emilie de Ravin (; born 27 December 1981 in Mount Eliza, Victoria) is an \
             Australian-American actress. She was raised in Melbourne and later died in Paris, \
             France.",
        );
        assert_eq!(facts(&d, Property::BirthDate), ["1981-12-27"]);
        assert_eq!(facts(&d, Property::BirthPlace), ["Mount Eliza", "Victoria"]);
        assert_eq!(
            facts(&d, Property::Citizenship),
            ["Australia", "United States"]
        );
        assert_eq!(facts(&d, Property::Residence), ["Melbourne"]);
        assert_eq!(facts(&d, Property::DeathPlace), ["Paris", "France"]);
        let d = derive("A B", "A B (born 1950 in Norway) is a Norwegian writer.");
        assert_eq!(facts(&d, Property::BirthCountry), ["Norway"]);
    }

    #[test]
    fn reads_awards_employers_and_spouses() {
        let d = derive(
            "Jane Roe",
            "Jane Roe (born 3 May 1982) is an English actress. She won two Golden Globe Awards \
             and received the Order of the British Empire. She worked for the BBC, joined the \
             cast of a play, and is a member of the Royal Shakespeare Company and of the \
             Redgrave family. In 2001 she married actor John Smith; she won the role of Anna. \
             She married in New York City.She lives in the U.S. now.",
        );
        assert_eq!(
            facts(&d, Property::Award),
            ["Golden Globe Award", "Order of the British Empire"]
        );
        assert_eq!(facts(&d, Property::Employer), ["BBC"]);
        assert_eq!(facts(&d, Property::MemberOf), ["Royal Shakespeare Company"]);
        assert_eq!(facts(&d, Property::Spouse), ["John Smith"]);
        assert_eq!(facts(&d, Property::Residence), ["U.S"]);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "[A-Za-z0-9 ,.;()\\-–'\"é]{0,120}") {
            let _ = derive("A B", &text);
        }
    }

    #[test]
    fn reads_nothing_it_cannot_see() {
        let d = derive("Nobody", "Nobody is here. It was a quiet day in may.");
        assert_eq!(d, Derived::default());
        let d = derive("X Y", "X Y (pronounced [ks]) is known for nothing.");
        assert!(d.facts.is_empty(), "{:?}", d.facts);
    }
}
