//! What a mention's own sentence says of it. Two readings, both true by construction because the
//! document itself states them, and both kept out of the hierarchies (which read a name alone):
//!
//! - **its kind, named beside it**: `the rock band Queen`, `the 1997 film Titanic`, `the river
//!   Thames` — the noun right before a name says what the name is, so `a rock band` is a
//!   generalization of it wherever else it is mentioned (audit source `context`);
//! - **where it stands**: a name that modifies the noun after it (`an Oslo suburb`, `a Microsoft
//!   engineer`) or that follows the noun naming its kind (`the rock band Queen`) can be left out:
//!   what remains is a noun phrase true of the same thing and more general (`a suburb`, `an
//!   engineer`, `the rock band`). Generalization by dropping a restrictive modifier, the top rung
//!   of every hierarchy, where dropping still reads as prose.
//!
//! The word lists are kanon's own, from general English (kinds of works, organisations, places
//! and events; the words that make a kind more precise, `rock`, `football`; the past tenses that
//! show a name is a verb's subject, not a modifier); no dev text was read to write them.
//!
//! ```
//! use kanon_core::EntityType;
//! use kanon_sanitize::context::{Slot, read};
//!
//! let text = "She sang with the rock band Queen in an Oslo suburb.";
//! let chars: Vec<char> = text.chars().collect();
//! let queen = read(&chars, 28, 33, EntityType::Org);
//! assert_eq!(queen.slot, Slot::Apposition);
//! assert_eq!(queen.kind.as_deref(), Some("a rock band"));
//! assert_eq!(read(&chars, 40, 44, EntityType::Loc).slot, Slot::Modifier);
//! ```

use kanon_core::EntityType;

/// How a mention stands in its sentence, as far as its replacement goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A noun phrase of its own: whatever stands in its place must be one.
    Head,
    /// It modifies the noun after it (`an Oslo suburb`): left out, the rest is true of it.
    Modifier,
    /// It follows the noun that names its kind (`the rock band Queen`): left out, the rest is
    /// true of it.
    Apposition,
}

impl Slot {
    /// Whether the mention can be left out and the sentence still reads.
    pub fn droppable(self) -> bool {
        self != Slot::Head
    }
}

/// What the sentence says of one mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// Where it stands.
    pub slot: Slot,
    /// The kind the sentence names for it, as a noun phrase (`a rock band`).
    pub kind: Option<String>,
    /// The kind the words it is the object of imply (`starred in ⟨…⟩` → `a production`): weaker
    /// than a named kind, used only where no hierarchy knows the name.
    pub implied: Option<String>,
}

/// Words a name is the object of, and the kind they imply it is, by the name's type.
const FRAMES: &[(EntityType, &[&str], &str)] = &[
    (
        EntityType::Org,
        &["graduated", "from"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["graduating", "from"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["studied", "at"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["educated", "at"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["enrolled", "at"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["alumnus", "of"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["alumna", "of"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["studying", "at"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["professor", "at"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["lecturer", "at"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["taught", "at"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["degree", "from"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["doctorate", "from"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["phd", "from"],
        "an educational institution",
    ),
    (
        EntityType::Org,
        &["diploma", "from"],
        "an educational institution",
    ),
    (EntityType::Org, &["drafted", "by"], "a team"),
    (EntityType::Org, &["coach", "of"], "a team"),
    (EntityType::Org, &["ceo", "of"], "a company"),
    (EntityType::Org, &["singer", "of"], "a band"),
    (EntityType::Org, &["vocalist", "of"], "a band"),
    (EntityType::Org, &["frontman", "of"], "a band"),
    (EntityType::Org, &["frontwoman", "of"], "a band"),
    (EntityType::Org, &["guitarist", "of"], "a band"),
    (EntityType::Org, &["bassist", "of"], "a band"),
    (EntityType::Org, &["drummer", "of"], "a band"),
    (EntityType::Org, &["keyboardist", "of"], "a band"),
    (EntityType::Loc, &["mayor", "of"], "a municipality"),
    (EntityType::Org, &["played", "for"], "a team"),
    (EntityType::Org, &["plays", "for"], "a team"),
    (EntityType::Org, &["playing", "for"], "a team"),
    (EntityType::Org, &["captained"], "a team"),
    (EntityType::Misc, &["starred", "in"], "a production"),
    (EntityType::Misc, &["stars", "in"], "a production"),
    (EntityType::Misc, &["starring", "in"], "a production"),
    (EntityType::Misc, &["co-starred", "in"], "a production"),
    (EntityType::Misc, &["role", "in"], "a production"),
    (EntityType::Misc, &["roles", "in"], "a production"),
    (EntityType::Misc, &["cast", "in"], "a production"),
    (EntityType::Misc, &["directed"], "a production"),
    (EntityType::Misc, &["co-directed"], "a production"),
    (EntityType::Misc, &["produced"], "a production"),
    (EntityType::Misc, &["recorded"], "a recording"),
    (EntityType::Misc, &["co-wrote"], "a written work"),
    (EntityType::Misc, &["published"], "a publication"),
    (EntityType::Misc, &["wrote"], "a written work"),
    (EntityType::Misc, &["authored"], "a written work"),
    (EntityType::Misc, &["awarded"], "an award"),
    (EntityType::Misc, &["recipient", "of"], "an award"),
];

/// Nouns that name a kind of work, organisation, place, event or thing a name may follow.
const KIND_NOUNS: &[&str] = &[
    // works
    "film",
    "movie",
    "documentary",
    "series",
    "miniseries",
    "sitcom",
    "serial",
    "programme",
    "program",
    "album",
    "song",
    "soundtrack",
    "mixtape",
    "opera",
    "operetta",
    "musical",
    "ballet",
    "symphony",
    "concerto",
    "oratorio",
    "novel",
    "novella",
    "book",
    "memoir",
    "autobiography",
    "biography",
    "poem",
    "comic",
    "manga",
    "anime",
    "magazine",
    "newspaper",
    "journal",
    "tabloid",
    "periodical",
    "painting",
    "sculpture",
    "franchise",
    "podcast",
    "website",
    "videogame",
    "game",
    "play",
    "drama",
    "show",
    "single",
    // organisations
    "band",
    "group",
    "duo",
    "trio",
    "quartet",
    "quintet",
    "orchestra",
    "choir",
    "ensemble",
    "club",
    "team",
    "party",
    "company",
    "corporation",
    "firm",
    "conglomerate",
    "bank",
    "label",
    "publisher",
    "studio",
    "network",
    "channel",
    "station",
    "broadcaster",
    "agency",
    "ministry",
    "committee",
    "council",
    "commission",
    "court",
    "tribunal",
    "university",
    "college",
    "school",
    "academy",
    "institute",
    "hospital",
    "charity",
    "foundation",
    "organisation",
    "organization",
    "association",
    "federation",
    "league",
    "movement",
    "church",
    "monastery",
    "regiment",
    "brigade",
    "division",
    "militia",
    "airline",
    "brand",
    "newspaper",
    "retailer",
    "manufacturer",
    "think-tank",
    "union",
    // places
    "river",
    "lake",
    "mountain",
    "island",
    "city",
    "town",
    "village",
    "county",
    "province",
    "district",
    "region",
    "valley",
    "neighbourhood",
    "neighborhood",
    "suburb",
    "borough",
    "municipality",
    "parish",
    "street",
    "avenue",
    "square",
    "park",
    "bay",
    "sea",
    "desert",
    "peninsula",
    "kingdom",
    "republic",
    "emirate",
    "port",
    "stadium",
    "arena",
    "theatre",
    "theater",
    "museum",
    "palace",
    "castle",
    "cathedral",
    "temple",
    "mosque",
    "prison",
    // events and awards
    "festival",
    "tournament",
    "championship",
    "competition",
    "contest",
    "election",
    "referendum",
    "war",
    "battle",
    "campaign",
    "conference",
    "summit",
    "expedition",
    "operation",
    "award",
    "prize",
    "medal",
    "trophy",
    // other things with names
    "language",
    "dialect",
    "ship",
    "vessel",
    "aircraft",
    "software",
    "app",
];

/// Words that open the name of an institution a kind noun may modify (`the state Senate`, `the
/// city Council`): after one, the kind noun is no apposition.
const INSTITUTION_WORDS: &[&str] = &[
    "senate",
    "council",
    "board",
    "government",
    "assembly",
    "parliament",
    "congress",
    "legislature",
    "department",
    "committee",
    "court",
    "police",
    "army",
    "navy",
    "cabinet",
    "house",
    "chamber",
    "ministry",
    "office",
    "bureau",
    "service",
    "authority",
    "administration",
    "election",
    "elections",
    "championship",
    "championships",
    "cup",
    "games",
    "open",
];

/// Words that make a kind more precise and stay with it (`a rock band`, `a football club`).
const KIND_MODIFIERS: &[&str] = &[
    "rock",
    "pop",
    "punk",
    "metal",
    "jazz",
    "folk",
    "indie",
    "country",
    "blues",
    "soul",
    "dance",
    "boy",
    "girl",
    "studio",
    "live",
    "compilation",
    "tv",
    "television",
    "radio",
    "video",
    "computer",
    "record",
    "football",
    "soccer",
    "basketball",
    "baseball",
    "hockey",
    "cricket",
    "rugby",
    "tennis",
    "volleyball",
    "handball",
    "political",
    "short",
    "feature",
    "animated",
    "documentary",
    "reality",
    "talk",
    "soap",
    "comic",
    "daily",
    "weekly",
    "monthly",
    "news",
    "sports",
    "film",
    "music",
    "theatre",
    "theater",
    "opera",
    "law",
    "investment",
    "production",
    "insurance",
    "oil",
    "steel",
    "software",
    "technology",
    "fashion",
    "art",
    "science",
    "fiction",
    "horror",
    "comedy",
    "crime",
    "war",
    "spy",
    "action",
    "detective",
    "fantasy",
    "literary",
    "medical",
    "military",
    "naval",
    "national",
    "regional",
    "provincial",
    "municipal",
    "federal",
    "state",
    "supreme",
    "appeals",
    "district",
    "high",
    "criminal",
    "civil",
    "administrative",
    "constitutional",
    "public",
    "private",
    "catholic",
    "christian",
    "islamic",
    "jewish",
    "buddhist",
    "hindu",
];

/// Words after which a kind noun would be a verb (`to play Hamlet`, `they record Abbey Road`).
const VERB_CUES: &[&str] = &[
    "to", "will", "would", "can", "could", "shall", "should", "may", "might", "must", "did",
    "does", "do", "not", "never", "he", "she", "they", "it", "i", "we", "you", "also", "and", "or",
    "who", "which", "that",
];

/// Determiners after which a name followed by a noun modifies that noun (`an Oslo suburb`).
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "his", "her", "their", "its", "our", "my", "your", "this", "that", "former",
];

/// Past tenses that show a name after a determiner is a subject (`the BBC won`), not a modifier.
const IRREGULAR_PAST: &[&str] = &[
    "became",
    "began",
    "bought",
    "brought",
    "built",
    "came",
    "chose",
    "did",
    "drew",
    "drove",
    "fell",
    "fought",
    "found",
    "forbade",
    "gave",
    "got",
    "grew",
    "had",
    "held",
    "hid",
    "kept",
    "knew",
    "laid",
    "led",
    "left",
    "lent",
    "let",
    "lost",
    "made",
    "meant",
    "met",
    "paid",
    "put",
    "ran",
    "rang",
    "read",
    "rose",
    "said",
    "sang",
    "sank",
    "sat",
    "saw",
    "sent",
    "set",
    "shook",
    "shot",
    "showed",
    "shut",
    "sold",
    "sought",
    "spent",
    "spoke",
    "stood",
    "stole",
    "struck",
    "swore",
    "taught",
    "thought",
    "threw",
    "told",
    "took",
    "tore",
    "underwent",
    "understood",
    "went",
    "withdrew",
    "won",
    "wore",
    "wrote",
    "says",
    "has",
    "holds",
    "owns",
    "remains",
    "includes",
    "operates",
    "publishes",
    "runs",
    "plays",
    "produces",
    "releases",
];

/// What the sentence of `chars` says of the mention at `start..end` (characters), of
/// `entity_type`: its slot, and the kind a noun right before it names.
pub fn read(chars: &[char], start: usize, end: usize, entity_type: EntityType) -> Reading {
    let start = start.min(chars.len());
    let end = end.clamp(start, chars.len());
    let surface: String = chars[start..end].iter().collect();
    let surface = surface.trim();
    let next: String = chars[end..].iter().take(2).collect();
    let possessive = surface.ends_with("'s")
        || surface.ends_with("’s")
        || next == "'s"
        || next == "’s"
        || after(chars, end).starts_with("'s")
        || after(chars, end).starts_with("’s");
    let first_word = surface
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase();
    // A name, not a common noun capitalised (`the state Senate`).
    let names_something = surface.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
        && !KIND_NOUNS.contains(&first_word.as_str())
        && !INSTITUTION_WORDS.contains(&first_word.as_str());
    let kind = if matches!(
        entity_type,
        EntityType::Org | EntityType::Misc | EntityType::Loc
    ) && names_something
        && !possessive
    {
        stated_kind(chars, start)
    } else {
        None
    };
    let slot = if kind.is_some() && !closed_by_comma_list(chars, end) {
        Slot::Apposition
    } else if !possessive && modifies_next_noun(chars, start, end, entity_type) {
        Slot::Modifier
    } else {
        Slot::Head
    };
    let implied = if kind.is_none() && names_something && !possessive {
        implied_kind(chars, start, entity_type)
            .or_else(|| dated_title(chars, end, entity_type).then(|| "a creative work".to_owned()))
    } else {
        None
    };
    Reading {
        slot,
        kind,
        implied,
    }
}

/// The kind the words before the name imply it is (`played for the ⟨…⟩` → `a team`), past one
/// determiner.
fn implied_kind(chars: &[char], start: usize, entity_type: EntityType) -> Option<String> {
    let mut before: Vec<String> = words_before(chars, start, 3)
        .into_iter()
        .map(|word| word.to_lowercase())
        .collect();
    if before
        .first()
        .is_some_and(|word| ["the", "a", "an", "his", "her", "their"].contains(&word.as_str()))
    {
        before.remove(0);
    }
    FRAMES
        .iter()
        .find(|(frame_type, words, _)| {
            *frame_type == entity_type
                && words.len() <= before.len()
                && words.iter().rev().zip(&before).all(|(a, b)| a == b)
        })
        .map(|(_, _, kind)| (*kind).to_owned())
}

/// Whether a miscellany's name is followed by a year in brackets (`Alpha Beta (1997)`): how a
/// film, a record or a book is cited with its year of release.
fn dated_title(chars: &[char], end: usize, entity_type: EntityType) -> bool {
    let mut at = end;
    if chars.get(at).is_some_and(|c| is_quote(*c)) {
        at += 1;
    }
    let rest: String = chars[at.min(chars.len())..].iter().take(7).collect();
    let bytes = rest.as_bytes();
    entity_type == EntityType::Misc
        && bytes.len() == 7
        && rest.starts_with(" (")
        && rest.ends_with(')')
        && bytes[2..6].iter().all(u8::is_ascii_digit)
}

/// The text after character `end`, past a closing quote.
fn after(chars: &[char], end: usize) -> String {
    let mut at = end;
    if chars.get(at).is_some_and(|c| is_quote(*c)) {
        at += 1;
    }
    chars[at.min(chars.len())..].iter().take(3).collect()
}

fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '“' | '”' | '‘' | '’' | '«' | '»')
}

/// Whether the name is the first of a list the kind noun heads (`the films Alpha, Beta and
/// Gamma` would leave `the films , Beta`): then it stays a noun phrase of its own.
fn closed_by_comma_list(chars: &[char], end: usize) -> bool {
    let rest: String = chars[end.min(chars.len())..].iter().take(2).collect();
    rest.starts_with(',') && !rest.starts_with(", ")
}

/// The words before character `at`, nearest first, each lower-cased, across single spaces and an
/// opening quote right before `at`; stops at punctuation.
fn words_before(chars: &[char], at: usize, count: usize) -> Vec<String> {
    let mut words = Vec::with_capacity(count);
    let mut cursor = at.min(chars.len());
    if cursor > 0 && is_quote(chars[cursor - 1]) {
        cursor -= 1;
    }
    while words.len() < count {
        if cursor == 0 || chars[cursor - 1] != ' ' {
            break;
        }
        cursor -= 1;
        let end = cursor;
        while cursor > 0 && (chars[cursor - 1].is_alphanumeric() || chars[cursor - 1] == '-') {
            cursor -= 1;
        }
        if cursor == end {
            break;
        }
        words.push(chars[cursor..end].iter().collect::<String>());
    }
    words
}

/// The kind the noun right before the name names (`the rock band ⟨Queen⟩` → `a rock band`): a
/// lower-case kind noun, with a word that makes it more precise, after a word that makes it a
/// noun (not `to play ⟨Hamlet⟩`).
fn stated_kind(chars: &[char], start: usize) -> Option<String> {
    let before = words_before(chars, start, 3);
    let noun = before.first()?;
    if !noun.starts_with(char::is_lowercase) || !KIND_NOUNS.contains(&noun.as_str()) {
        return None;
    }
    let precise = before
        .get(1)
        .filter(|word| KIND_MODIFIERS.contains(&word.to_lowercase().as_str()));
    let cue_at = if precise.is_some() { 2 } else { 1 };
    let cue = before.get(cue_at)?.to_lowercase();
    if VERB_CUES.contains(&cue.as_str()) {
        return None;
    }
    // `a single Grammy` is a count, not a record.
    if noun == "single" && ["a", "an", "one"].contains(&cue.as_str()) {
        return None;
    }
    // `TV`, `Catholic` kept as written.
    let phrase = match precise {
        Some(word) => format!("{word} {noun}"),
        None => noun.clone(),
    };
    let article = if crate::render::takes_an(&phrase) {
        "an"
    } else {
        "a"
    };
    Some(format!("{article} {phrase}"))
}

/// Whether the mention modifies the noun after it: a lower-case content word follows after one
/// space (not an adverb or a past tense, which would make the name a subject), and a determiner
/// comes before it (any word for a demonym, which is an adjective).
fn modifies_next_noun(chars: &[char], start: usize, end: usize, entity_type: EntityType) -> bool {
    let surface: String = chars[start.min(end)..end.min(chars.len())].iter().collect();
    let ordinal = entity_type == EntityType::Quantity && crate::ontology::rank(&surface).is_some();
    if !ordinal
        && !matches!(
            entity_type,
            EntityType::Org | EntityType::Misc | EntityType::Loc | EntityType::Dem
        )
    {
        return false;
    }
    let rest = &chars[end.min(chars.len())..];
    // An ordinal also ranks a name (`the 18th Party Congress`).
    let followed = crate::render::followed_by_content_word(rest)
        || ordinal && rest.first() == Some(&' ') && rest.get(1).is_some_and(|c| c.is_uppercase());
    if !followed {
        return false;
    }
    let next: String = rest[1..]
        .iter()
        .take_while(|c| c.is_alphabetic() || **c == '-')
        .collect();
    if next.ends_with("ly") || next.ends_with("ed") || IRREGULAR_PAST.contains(&next.as_str()) {
        return false;
    }
    if entity_type == EntityType::Dem {
        return true;
    }
    words_before(chars, start, 1)
        .first()
        .is_some_and(|word| DETERMINERS.contains(&word.to_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(text: &str, span: &str, entity_type: EntityType) -> Reading {
        let chars: Vec<char> = text.chars().collect();
        let byte = text.find(span).expect("span in text");
        let start = text[..byte].chars().count();
        read(&chars, start, start + span.chars().count(), entity_type)
    }

    #[test]
    fn a_kind_noun_before_a_name_is_its_kind() {
        let film = reading(
            "He starred in the 1997 film Titanic.",
            "Titanic",
            EntityType::Misc,
        );
        assert_eq!(film.kind.as_deref(), Some("a film"));
        assert_eq!(film.slot, Slot::Apposition);
        let band = reading(
            "She joined the American rock band Queen.",
            "Queen",
            EntityType::Org,
        );
        assert_eq!(band.kind.as_deref(), Some("a rock band"));
        let quoted = reading("the album \"Thriller\" sold", "Thriller", EntityType::Misc);
        assert_eq!(quoted.kind.as_deref(), Some("an album"));
        let tv = reading("in the TV series Friends", "Friends", EntityType::Misc);
        assert_eq!(tv.kind.as_deref(), Some("a TV series"));
    }

    #[test]
    fn a_verb_or_a_possessive_states_no_kind() {
        for (text, span) in [
            ("He wanted to play Hamlet.", "Hamlet"),
            ("They record Abbey Road.", "Abbey Road"),
            ("the film Titanic's sequel", "Titanic"),
            ("He founded Acme.", "Acme"),
            ("the Film Festival", "Festival"),
            ("in the state Senate", "Senate"),
            ("He won a single Grammy", "Grammy"),
        ] {
            let got = reading(text, span, EntityType::Misc);
            assert_eq!(got.kind, None, "{text}");
            assert_ne!(got.slot, Slot::Apposition, "{text}");
        }
    }

    #[test]
    fn the_words_a_name_is_the_object_of_imply_its_kind() {
        let implied =
            |text: &str, span: &str, entity_type| reading(text, span, entity_type).implied;
        assert_eq!(
            implied("She starred in Alpha Beta.", "Alpha Beta", EntityType::Misc).as_deref(),
            Some("a production")
        );
        assert_eq!(
            implied(
                "He played for the Dallas Rangers.",
                "Dallas Rangers",
                EntityType::Org
            )
            .as_deref(),
            Some("a team")
        );
        assert_eq!(
            implied("He graduated from Eton.", "Eton", EntityType::Org).as_deref(),
            Some("an educational institution")
        );
        assert_eq!(
            implied("She holds a PhD from Acme.", "Acme", EntityType::Org).as_deref(),
            Some("an educational institution")
        );
        assert_eq!(
            implied("the lead singer of Zorblax", "Zorblax", EntityType::Org).as_deref(),
            Some("a band")
        );
        // Another type, or a named kind, takes precedence over nothing: none implied.
        assert_eq!(
            implied("He played for Alpha.", "Alpha", EntityType::Misc),
            None
        );
        assert_eq!(
            implied(
                "He is known for Alpha Beta (1997).",
                "Alpha Beta",
                EntityType::Misc
            )
            .as_deref(),
            Some("a creative work")
        );
        assert_eq!(
            implied("the Alpha (1997–2001)", "Alpha", EntityType::Misc),
            None
        );
        assert_eq!(
            implied("She starred in the film Alpha.", "Alpha", EntityType::Misc),
            None
        );
        assert_eq!(
            reading("She starred in Alpha.", "Alpha", EntityType::Misc).slot,
            Slot::Head
        );
    }

    #[test]
    fn a_name_before_a_noun_after_a_determiner_modifies_it() {
        assert_eq!(
            reading("an Oslo suburb", "Oslo", EntityType::Loc).slot,
            Slot::Modifier
        );
        assert_eq!(
            reading("a former Microsoft engineer", "Microsoft", EntityType::Org).slot,
            Slot::Modifier
        );
        assert_eq!(
            reading("a Tamil actor", "Tamil", EntityType::Dem).slot,
            Slot::Modifier
        );
        assert_eq!(
            reading("Tamil actor", "Tamil", EntityType::Dem).slot,
            Slot::Modifier
        );
        for (text, span, entity_type) in [
            ("the BBC reported it", "BBC", EntityType::Org),
            ("the BBC won awards", "BBC", EntityType::Org),
            ("the BBC in London", "BBC", EntityType::Org),
            ("Oslo suburbs grew", "Oslo", EntityType::Loc),
            ("Oslo's suburbs", "Oslo's", EntityType::Loc),
            ("the 87 films", "87", EntityType::Quantity),
            ("in 1995 elections", "1995", EntityType::Datetime),
            ("the 18th of May", "18th", EntityType::Quantity),
            ("he came 3rd in it", "3rd", EntityType::Quantity),
            ("the north wing", "north", EntityType::Quantity),
        ] {
            assert_eq!(reading(text, span, entity_type).slot, Slot::Head, "{text}");
        }
    }

    #[test]
    fn a_rank_before_a_noun_or_a_name_modifies_it() {
        for (text, span) in [
            ("after the 18th Party Congress", "18th"),
            ("his twenty-first album", "twenty-first"),
            ("the fifth season", "fifth"),
        ] {
            assert_eq!(
                reading(text, span, EntityType::Quantity).slot,
                Slot::Modifier,
                "{text}"
            );
        }
    }
}
