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
    /// A noun phrase after it describes it (`founded ⟨Alpha⟩, a rock band from Oslo`): left out
    /// from character `start` to `end`, with the comma after it (and an article before it), the
    /// description stands in its place. Or a noun before it names its kind (`the festival of
    /// ⟨Alpha⟩`, `another song of his, ⟨Alpha⟩, was`): left out with `of` or its commas, the
    /// noun stands in its place.
    Described {
        /// Where what is left out starts: the mention, an article or a comma before it, or the
        /// space before `of`.
        start: usize,
        /// Where it ends: the start of the description, past the comma; or past the mention, its
        /// closing quote and a comma after it.
        end: usize,
    },
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
    /// Whether it is a member of a list its kind heads in the plural (`the films ⟨Alpha⟩, Beta
    /// and Gamma`): the names after it, one list separator apart, are of that kind too.
    pub listed: bool,
}

/// The kind the verbs that say no more than that a name is an organisation imply.
const AN_ORGANIZATION: &str = "an organization";

/// What a role or a voice is played on (`a recurring role on ⟨…⟩`): a television or radio show;
/// a film's roles are played in it.
const A_SHOW: &str = "a show";

/// What a team is relegated to or from: a division of its league, the lower or the higher.
const A_DIVISION: &str = "a division";

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
    (EntityType::Org, &["coach", "for"], "a team"),
    (EntityType::Org, &["debut", "for"], "a team"),
    (EntityType::Org, &["appearances", "for"], "a team"),
    (EntityType::Org, &["appearance", "for"], "a team"),
    (EntityType::Org, &["traded", "to"], "a team"),
    (EntityType::Org, &["pitched", "for"], "a team"),
    (EntityType::Org, &["pitching", "for"], "a team"),
    (EntityType::Org, &["rides", "for"], "a team"),
    (EntityType::Org, &["rode", "for"], "a team"),
    (EntityType::Org, &["riding", "for"], "a team"),
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
    (EntityType::Misc, &["co-produced"], "a production"),
    (EntityType::Misc, &["executive-produced"], "a production"),
    (EntityType::Misc, &["recorded"], "a recording"),
    (EntityType::Misc, &["co-wrote"], "a written work"),
    (EntityType::Misc, &["published"], "a publication"),
    (EntityType::Misc, &["wrote"], "a written work"),
    (EntityType::Misc, &["authored"], "a written work"),
    (EntityType::Misc, &["awarded"], "an award"),
    (EntityType::Misc, &["recipient", "of"], "an award"),
    (EntityType::Misc, &["role", "of"], "a character"),
    (EntityType::Misc, &["role", "on"], A_SHOW),
    (EntityType::Misc, &["roles", "on"], A_SHOW),
    (EntityType::Misc, &["voice", "of"], "a character"),
    (EntityType::Misc, &["appeared", "in"], "a production"),
    (EntityType::Misc, &["author", "of"], "a written work"),
    (EntityType::Misc, &["sang"], "a song"),
    (EntityType::Misc, &["sings"], "a song"),
    (EntityType::Misc, &["sentenced", "to"], "a sentence"),
    (EntityType::Misc, &["convicted", "of"], "an offence"),
    (EntityType::Misc, &["accused", "of"], "an offence"),
    (EntityType::Misc, &["charged", "with"], "an offence"),
    (EntityType::Misc, &["guilty", "of"], "an offence"),
    (EntityType::Misc, &["complicity", "in"], "an offence"),
    (EntityType::Misc, &["died", "of"], "a condition"),
    (EntityType::Misc, &["died", "from"], "a condition"),
    (EntityType::Misc, &["complications", "from"], "a condition"),
    (EntityType::Misc, &["suffering", "from"], "a condition"),
    (EntityType::Misc, &["suffered", "from"], "a condition"),
    (EntityType::Misc, &["diagnosed", "with"], "a condition"),
    (EntityType::Dem, &["died", "of"], "a condition"),
    (EntityType::Dem, &["died", "from"], "a condition"),
    (EntityType::Dem, &["complications", "from"], "a condition"),
    (EntityType::Dem, &["suffering", "from"], "a condition"),
    (EntityType::Dem, &["suffered", "from"], "a condition"),
    (EntityType::Dem, &["diagnosed", "with"], "a condition"),
    (EntityType::Misc, &["death", "from"], "a condition"),
    // What one studies, majors or takes a degree in is a subject.
    (EntityType::Misc, &["studied"], "a subject"),
    (EntityType::Misc, &["majored", "in"], "a subject"),
    (EntityType::Misc, &["degree", "in"], "a subject"),
    (EntityType::Dem, &["studied"], "a subject"),
    (EntityType::Dem, &["majored", "in"], "a subject"),
    (EntityType::Dem, &["degree", "in"], "a subject"),
    (EntityType::Dem, &["death", "from"], "a condition"),
    // A team is relegated to, from or (loosely) in a division of its league.
    (EntityType::Misc, &["relegated", "to"], A_DIVISION),
    (EntityType::Misc, &["relegated", "from"], A_DIVISION),
    (EntityType::Misc, &["relegated", "in"], A_DIVISION),
    (EntityType::Org, &["relegated", "to"], A_DIVISION),
    (EntityType::Org, &["relegated", "from"], A_DIVISION),
    (EntityType::Org, &["relegated", "in"], A_DIVISION),
    (EntityType::Org, &["member", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["joined"], AN_ORGANIZATION),
    (EntityType::Org, &["worked", "for"], AN_ORGANIZATION),
    (EntityType::Org, &["working", "for"], AN_ORGANIZATION),
    (EntityType::Org, &["works", "for"], AN_ORGANIZATION),
    (EntityType::Org, &["employed", "by"], AN_ORGANIZATION),
    (EntityType::Org, &["founded"], AN_ORGANIZATION),
    (EntityType::Org, &["co-founded"], AN_ORGANIZATION),
    (EntityType::Org, &["founder", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["co-founder", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["signed", "with"], AN_ORGANIZATION),
    (EntityType::Org, &["signed", "to"], AN_ORGANIZATION),
    (EntityType::Org, &["issued", "by"], AN_ORGANIZATION),
    // Whatever one chairs, presides over or makes a career at is a body of some kind.
    (EntityType::Org, &["chairman", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["chairwoman", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["chairperson", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["vice-chairman", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["president", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["vice-president", "of"], AN_ORGANIZATION),
    (EntityType::Org, &["career", "at"], AN_ORGANIZATION),
];

/// Whether a kind the sentence implies is a sports side (`a team`, `a college team`): what a
/// place's name stands for after `played for`, never the place itself.
pub(crate) fn is_a_team(kind: &str) -> bool {
    kind.ends_with(" team")
}

/// Verbs of playing a sport that, with a position after `as`, make the name after `for` a team
/// (`plays as a goalkeeper for ⟨…⟩`).
const PLAYING: &[&str] = &["plays", "played", "playing"];

/// Whether the words before a name (nearest first, lower-cased, past a determiner) play a
/// position for it: `for`, the position in at most three words, `as`, a verb of playing.
fn plays_as_for(before: &[String]) -> bool {
    let [preposition, position @ ..] = before else {
        return false;
    };
    preposition == "for"
        && position.iter().take(4).enumerate().any(|(at, word)| {
            at >= 1
                && word == "as"
                && position
                    .get(at + 1)
                    .is_some_and(|verb| PLAYING.contains(&verb.as_str()))
        })
}

/// Sports whose name before `for` makes a name a team (`plays basketball for ⟨…⟩`), and after
/// `college`, before `at` too (`played college football at ⟨…⟩`: a college's team).
const SPORTS: &[&str] = &[
    "football",
    "basketball",
    "baseball",
    "hockey",
    "cricket",
    "rugby",
    "soccer",
    "volleyball",
];

/// The team the words before a name (nearest first, lower-cased, past a determiner) imply it
/// is, by the sport they name.
fn sports_team(before: &[String]) -> Option<&'static str> {
    let [preposition, sport, rest @ ..] = before else {
        return None;
    };
    if !SPORTS.contains(&sport.as_str()) {
        return None;
    }
    match (preposition.as_str(), rest.first().map(String::as_str)) {
        ("for" | "at", Some("college")) => Some("a college team"),
        ("for", _) => Some("a team"),
        _ => None,
    }
}

/// Words that show a document is about sport.
const SPORTS_WORDS: &[&str] = &[
    "league",
    "season",
    "seasons",
    "coach",
    "championship",
    "draft",
];

/// Whether a document speaks of sport (a league, a season, a coach).
fn speaks_of_sport_in(chars: &[char]) -> bool {
    let text: String = chars.iter().collect();
    kanon_core::text::words(&text)
        .iter()
        .any(|word| SPORTS_WORDS.contains(&word.as_str()))
}

/// Whether an organisation's name is a city's or a region's followed by a plural nickname
/// (`Oslo Vikings`, `New York Comets`): how North American sports franchises and many clubs
/// elsewhere are named, read as one only in a document that speaks of sport. A newspaper (`…
/// Times`) or another kind the name states is read by the hierarchies first.
fn sports_franchise(surface: &str) -> bool {
    let words: Vec<&str> = surface.split_whitespace().collect();
    if !words.last().is_some_and(|last| plural_nickname(last)) || words.len() < 2 {
        return false;
    }
    let vocabulary = kanon_kg::vocab::Vocabulary::embedded();
    (1..words.len()).any(|cut| {
        let place = words[..cut].join(" ");
        words[cut..]
            .iter()
            .all(|word| word.starts_with(char::is_uppercase))
            && (vocabulary.city(&place).is_some()
                || vocabulary.first_level_region(&place).is_some())
    })
}

/// A capitalised word in the plural, as teams' nicknames are (`Vikings`, `Packers`; not
/// `Express`, `Rus`, `Paris`).
fn plural_nickname(word: &str) -> bool {
    word.len() > 3
        && word.starts_with(char::is_uppercase)
        && word.ends_with('s')
        && !["ss", "us", "is"]
            .iter()
            .any(|suffix| word.ends_with(suffix))
}

/// Abbreviations of a sports club in its name (`Alpha FC`, `FK Beta`).
const CLUB_ABBREVIATIONS: &[&str] = &["FC", "AFC", "CF", "FK", "SV", "BK", "RFC", "SC"];

/// Whether an organisation's name reads as a club's in a document about sport: a place's name
/// alone or with a number (`Genoa`, `Hannover 96`: a city is no organisation, its club is), a
/// club's abbreviation (`Alpha FC`), or one capitalised plural nickname (`the Packers`). A
/// place's name the document also writes as a place (`born in Genoa`) is not read so: its
/// mentions share one replacement.
fn sports_club_name(chars: &[char], surface: &str) -> bool {
    let words: Vec<&str> = surface.split_whitespace().collect();
    if words
        .iter()
        .any(|word| CLUB_ABBREVIATIONS.contains(&word.trim_matches('.')))
    {
        return true;
    }
    let place = match words.as_slice() {
        [.., number] if words.len() > 1 && number.chars().all(|c| c.is_ascii_digit()) => {
            words[..words.len() - 1].join(" ")
        }
        _ => words.join(" "),
    };
    let vocabulary = kanon_kg::vocab::Vocabulary::embedded();
    let capitalised = place.starts_with(char::is_uppercase);
    let names_a_place = vocabulary.city(&place).is_some()
        || vocabulary.first_level_region(&place).is_some()
        || !vocabulary.towns(&place).is_empty();
    let nickname = matches!(words.as_slice(), [word] if plural_nickname(word));
    let written_as_a_place = || {
        let text: String = chars.iter().collect();
        ["in ", "near ", "from ", "of "]
            .iter()
            .any(|preposition| text.contains(&format!("{preposition}{place}")))
    };
    nickname || capitalised && names_a_place && !written_as_a_place()
}

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
    "blog",
    "epic",
    "videogame",
    "game",
    "play",
    "drama",
    "show",
    "single",
    "track",
    "record",
    "picture",
    "cartoon",
    "episode",
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
    "hotline",
    "venture",
    "startup",
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
    "township",
    "hotel",
    "cemetery",
    "settlement",
    "colony",
    "hamlet",
    "locality",
    "commune",
    "territory",
    "site",
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
    "spacecraft",
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
    "stage",
    "feature",
    "motion",
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
    "other",
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
    read_in(chars, start, end, entity_type, &std::cell::OnceCell::new())
}

/// [`read`], with whether the document speaks of sport found once for all its mentions.
fn read_in(
    chars: &[char],
    start: usize,
    end: usize,
    entity_type: EntityType,
    speaks_of_sport: &std::cell::OnceCell<bool>,
) -> Reading {
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
    let names_something = written_as_a_name(surface)
        && !KIND_NOUNS.contains(&first_word.as_str())
        && !INSTITUTION_WORDS.contains(&first_word.as_str());
    let kinds_read = matches!(
        entity_type,
        EntityType::Org | EntityType::Misc | EntityType::Loc
    ) && !possessive;
    // What is left out with a name whose kind a noun before a comma or `of` names: the commas
    // around it (`another song of his, ⟨…⟩, was` → `another song of his was`), `of` before it
    // (`the festival of ⟨…⟩` → `the festival`).
    let mut left_out = None;
    let mut of_kind = None;
    let (kind, listed) = if kinds_read && names_something {
        let stated = stated_kind(chars, start).or_else(|| {
            let found = kind_apposed_before(chars, start, end)?;
            left_out = Some(commas_around(chars, start, end));
            Some(found)
        });
        // `the province of ⟨Alpha⟩` names the province, where `in ⟨Alpha⟩` may name its city:
        // what the kind says is true of this mention, and of the entity only where no hierarchy
        // knows the name.
        if stated.is_none()
            && let Some((kind, from)) = kind_before_of(chars, start, end, entity_type)
        {
            left_out = Some((from, end));
            of_kind = Some(kind);
        }
        match stated {
            // `series` is singular too: it heads a list only where one follows.
            Some(StatedKind { kind, plural }) if kind.ends_with(" series") => {
                let list_follows = [", ", " and "]
                    .iter()
                    .any(|separator| after_quote(chars, end, 5).starts_with(separator));
                (Some(kind), plural && list_follows)
            }
            Some(StatedKind { kind, plural }) => (Some(kind), plural),
            None => (None, false),
        }
    } else if kinds_read && lower_case_name(surface) {
        (kind_of_lower_case_name(chars, start, end), false)
    } else {
        (None, false)
    };
    let described = (kind.is_none() && names_something && !possessive)
        .then(|| described_after(chars, end, entity_type))
        .flatten();
    let slot = if let Some((start, end)) = left_out {
        Slot::Described { start, end }
    } else if kind.is_some() && !closed_by_comma_list(chars, end) {
        Slot::Apposition
    } else if !possessive && modifies_next_noun(chars, start, end, entity_type) {
        Slot::Modifier
    } else if let Some((_, description)) = &described
        && let Some(from) = object_starts_at(chars, start)
    {
        Slot::Described {
            start: from,
            end: *description,
        }
    } else {
        Slot::Head
    };
    let implied = if kind.is_none() && names_something && !possessive {
        // What the document says of the name itself first, then what its verb implies; a verb
        // that implies no more than an organisation (`joined ⟨…⟩`) comes last.
        let (framed, only_an_organization) = match implied_kind(chars, start, entity_type) {
            Some(kind) if kind == AN_ORGANIZATION => (None, Some(kind)),
            framed => (framed, None),
        };
        (entity_type == EntityType::Org && slot == Slot::Modifier)
            .then(|| named_kind_after(chars, end))
            .flatten()
            .or(of_kind)
            .or_else(|| described.map(|(kind, _)| kind))
            .or(framed)
            .or_else(|| dated_title(chars, end, entity_type).then(|| "a creative work".to_owned()))
            .or_else(|| {
                (entity_type == EntityType::Org
                    && (sports_franchise(surface) || sports_club_name(chars, surface))
                    && *speaks_of_sport.get_or_init(|| speaks_of_sport_in(chars)))
                .then(|| "a sports team".to_owned())
            })
            .or(only_an_organization)
    } else if kind.is_none() && !possessive && !names_something {
        // A common noun names nothing, but what a verb says its object is holds of it too:
        // `died of ⟨poisoning⟩`, `complicity in ⟨fraud⟩`. A gerund with its own object
        // (`complicity in ⟨defrauding⟩ the state`) is a verb phrase no noun can stand for.
        let gerund_with_object =
            surface.ends_with("ing") && object_follows(&chars[past_closing_quote(chars, end)..]);
        implied_kind(chars, start, entity_type)
            .filter(|kind| COMMON_NOUN_FRAME_KINDS.contains(&kind.as_str()) && !gerund_with_object)
    } else {
        None
    };
    Reading {
        slot,
        kind,
        implied,
        listed,
    }
}

/// What the sentence says of each of `mentions` (character ranges and types): [`read`], and a
/// name that follows a list member after one list separator (`, `, ` and `, `, and `, quotes
/// aside) is a member too, of the same kind and left out like it (`the films Alpha, ⟨Beta⟩ and
/// ⟨Gamma⟩`). Members are left out only when the whole list is: every name in it a member, and
/// nothing after the last but the end of the list (`the films Alpha (1997), …` keeps its
/// names, each read as `a film`). The renderer drops the separators of consecutive left-out
/// members.
pub fn read_all(chars: &[char], mentions: &[(usize, usize, EntityType)]) -> Vec<Reading> {
    let speaks_of_sport = std::cell::OnceCell::new();
    let mut readings: Vec<Reading> = mentions
        .iter()
        .map(|&(start, end, entity_type)| read_in(chars, start, end, entity_type, &speaks_of_sport))
        .collect();
    // A description left out with its name may not take another mention with it.
    for (index, reading) in readings.iter_mut().enumerate() {
        if let Slot::Described { start, end } = reading.slot
            && mentions
                .iter()
                .enumerate()
                .any(|(other, &(from, to, _))| other != index && from < end && start < to)
        {
            reading.slot = Slot::Head;
        }
    }
    let mut order: Vec<usize> = (0..mentions.len()).collect();
    order.sort_by_key(|&index| (mentions[index].0, mentions[index].1));
    // A bracketed aside after a member of a list its kind heads (`the novels Alpha (1990) and
    // ⟨Beta⟩`, `Alpha (adapted twice: in 1990 and 2012), ⟨Beta⟩`) is about that member: it
    // ends neither the list nor the member's place in it, and the names inside it are no members.
    let separated = |previous: usize, current: usize| {
        let (previous_end, start) = (mentions[previous].1, mentions[current].0);
        previous_end <= start && {
            let between: String = chars[previous_end.min(chars.len())..start.min(chars.len())]
                .iter()
                .filter(|c| !is_quote(**c))
                .collect();
            is_list_separator(past_bracketed_aside(&between))
        }
    };
    let mut list: Vec<usize> = Vec::new();
    let mut previous: Option<usize> = None;
    for &current in &order {
        if let Some(&last) = list.last()
            && in_aside_after(chars, mentions[last].1, mentions[current])
        {
            continue;
        }
        let previous = previous.replace(current);
        let continues = previous
            .is_some_and(|previous| list.last() == Some(&previous) && separated(previous, current));
        let (start, end, entity_type) = mentions[current];
        if continues
            && readings[current].kind.is_none()
            && matches!(
                entity_type,
                EntityType::Org | EntityType::Misc | EntityType::Loc
            )
            // A member written in lower case is still one where a separator sets it in the
            // list (`cities like Alpha, beta and Gamma`).
            && chars.get(start..end).is_some_and(|span| {
                let span: String = span.iter().filter(|c| !is_quote(**c)).collect();
                written_as_a_name(&span) || lower_case_name(&span)
            })
        {
            let kind = readings[previous.unwrap_or(current)].kind.clone();
            let reading = &mut readings[current];
            reading.kind = kind;
            reading.slot = Slot::Apposition;
            reading.implied = None;
            reading.listed = true;
            list.push(current);
            continue;
        }
        // The list before this name ended with the name before it, or went on with this one.
        keep_an_unfinished_list(chars, &list, continues, mentions, &mut readings);
        list.clear();
        if readings[current].listed {
            list.push(current);
        }
    }
    keep_an_unfinished_list(chars, &list, false, mentions, &mut readings);
    // What a verb implies of its first object it implies of the names listed after it
    // (`played for Alpha, ⟨Beta⟩ and ⟨Gamma⟩`: three teams).
    for pair in order.windows(2) {
        let (first, next) = (pair[0], pair[1]);
        if mentions[first].2 == mentions[next].2
            && readings[next].kind.is_none()
            && readings[next].implied.is_none()
            && readings[next].slot == Slot::Head
            && separated(first, next)
            && chars
                .get(mentions[next].0..mentions[next].1)
                .is_some_and(|span| written_as_a_name(&span.iter().collect::<String>()))
            && let Some(implied) = readings[first].implied.clone()
        {
            readings[next].implied = Some(implied);
        }
    }
    // A title right before a person's name (`former ⟨President⟩ John Doe`) can go: the name
    // stays as its label.
    for pair in order.windows(2) {
        let (title, name) = (pair[0], pair[1]);
        if mentions[title].2 == EntityType::Dem
            && mentions[name].2 == EntityType::Person
            && mentions[title].1 + 1 == mentions[name].0
            && chars.get(mentions[title].1) == Some(&' ')
        {
            readings[title].slot = Slot::Modifier;
        }
    }
    readings
}

/// Longest a bracketed aside after a list's member may be, in characters.
const ASIDE_LENGTH: usize = 60;

/// Whether a mention lies inside brackets opened right after character `end` and closed after
/// it, with no other bracket between: `Alpha (⟨1997⟩)`, `Alpha (adapted in ⟨1990⟩)`.
fn in_aside_after(
    chars: &[char],
    end: usize,
    (start, stop, _): (usize, usize, EntityType),
) -> bool {
    let (end, start, stop) = (
        end.min(chars.len()),
        start.min(chars.len()),
        stop.min(chars.len()),
    );
    if end + 2 > start || chars[end..end + 2] != [' ', '('] {
        return false;
    }
    let bracket = |c: &char| *c == '(' || *c == ')';
    if chars[end + 2..start].iter().any(bracket) {
        return false;
    }
    chars[stop..]
        .iter()
        .take(ASIDE_LENGTH)
        .position(bracket)
        .is_some_and(|at| chars[stop + at] == ')' && stop + at - end <= ASIDE_LENGTH)
}

/// The text between two members of a list past an aside in brackets after the first (` (1997)
/// and ` → ` and `; ` (adapted twice: in 1990 and 2012), ` → `, `).
fn past_bracketed_aside(between: &str) -> &str {
    between
        .strip_prefix(" (")
        .and_then(|rest| rest.split_once(')'))
        .filter(|(aside, _)| {
            !aside.is_empty() && aside.chars().count() <= ASIDE_LENGTH && !aside.contains('(')
        })
        .map_or(between, |(_, after)| after)
}

/// The members of `list` stay noun phrases of their own unless the list ended after its last:
/// no further name (`went_on`) and nothing but the end of a list after it; after a list opener
/// (`albums, including`, `townships:`), punctuation, which the opener goes before.
fn keep_an_unfinished_list(
    chars: &[char],
    list: &[usize],
    went_on: bool,
    mentions: &[(usize, usize, EntityType)],
    readings: &mut [Reading],
) {
    let Some(&last) = list.last() else {
        return;
    };
    let first = before_opening_quote(chars, mentions[list[0]].0);
    let opened = list_opened_at(chars, first).is_some()
        || first >= 2 && chars[first - 2..first] == [',', ' ']
        || first >= 4 && chars[first - 4..first] == [' ', 'a', 's', ' '];
    let closed =
        after_quote(chars, mentions[last].1, 1).starts_with(|c: char| ",.;:!?)".contains(c));
    // `Popular films include ⟨…⟩.`: left out, the verb would lose its object.
    let after_a_verb = include_before(chars, first).is_some();
    if !went_on && !after_a_verb && ends_a_list(chars, mentions[last].1) && (!opened || closed) {
        return;
    }
    for &member in list {
        readings[member].slot = Slot::Head;
    }
}

/// Whether the text after character `end` (past a closing quote) ends a list: punctuation that
/// closes a clause, or a comma or `and` before a lower-case word (`…, and directed`).
fn ends_a_list(chars: &[char], end: usize) -> bool {
    let rest = after_quote(chars, end, 24);
    let Some(first) = rest.chars().next() else {
        return true;
    };
    if ".;:!?)".contains(first) {
        return true;
    }
    [", and ", ", or ", " and ", " or ", ", "]
        .iter()
        .find_map(|separator| rest.strip_prefix(separator))
        .filter(|after| {
            // `…, B and dozens of others`: the list goes on without names.
            let word = after.split([' ', ',', '.']).next().unwrap_or("");
            !LIST_CONTINUATIONS.contains(&word)
        })
        .and_then(|after| after.chars().next())
        .is_some_and(char::is_lowercase)
}

/// Words after a list's last `and` that go on with the list rather than a new clause (`A, B
/// and many others`).
const LIST_CONTINUATIONS: &[&str] = &[
    "dozens",
    "many",
    "several",
    "others",
    "other",
    "more",
    "some",
    "numerous",
    "various",
    "hundreds",
    "countless",
];

/// Whether the text between two names (quotes removed) separates members of one list.
pub(crate) fn is_list_separator(between: &str) -> bool {
    matches!(between, ", " | " and " | ", and " | " or " | ", or ")
}

/// What FRAMES say of their object whether it is a name or a common noun: a state or a deed,
/// not a thing one names.
const COMMON_NOUN_FRAME_KINDS: &[&str] = &["a condition", "an offence"];

/// The kind the words before the name imply it is (`played for the ⟨…⟩` → `a team`), past one
/// determiner.
fn implied_kind(chars: &[char], start: usize, entity_type: EntityType) -> Option<String> {
    let mut before: Vec<String> = words_before(chars, start, 7)
        .into_iter()
        .map(|word| word.to_lowercase())
        .collect();
    if before
        .first()
        .is_some_and(|word| ["the", "a", "an", "his", "her", "their"].contains(&word.as_str()))
    {
        before.remove(0);
    }
    // `played for ⟨Southampton⟩`, `his debut for ⟨Brazil⟩`: a club or a national side named
    // after its place, whatever type the span was given.
    let may_be_a_team = matches!(entity_type, EntityType::Org | EntityType::Loc);
    if may_be_a_team && let Some(team) = sports_team(&before) {
        return Some(team.to_owned());
    }
    if may_be_a_team && plays_as_for(&before) {
        return Some("a team".to_owned());
    }
    if entity_type == EntityType::Misc && character_on(chars, start) {
        return Some(A_SHOW.to_owned());
    }
    if entity_type == EntityType::Misc && debut_in(&before) {
        return Some("a production".to_owned());
    }
    FRAMES
        .iter()
        .find(|(frame_type, words, kind)| {
            (*frame_type == entity_type
                || entity_type == EntityType::Loc
                    && *frame_type == EntityType::Org
                    && is_a_team(kind))
                && words.len() <= before.len()
                && words.iter().rev().zip(&before).all(|(a, b)| a == b)
        })
        .map(|(_, _, kind)| (*kind).to_owned())
}

/// Words before `debut` that say where a performer first appeared: on a stage or a screen, in a
/// production (`her Broadway debut came in ⟨…⟩`). A debut alone may be in a league.
const DEBUT_KINDS: &[&str] = &["stage", "screen", "film", "movie", "broadway", "television"];

/// Whether the words before a name (nearest first, lower-cased, past a determiner) say a stage
/// or screen debut was in it: `stage debut in`, `film debut was in`, `screen debut came in`.
fn debut_in(before: &[String]) -> bool {
    let [preposition, rest @ ..] = before else {
        return false;
    };
    let rest = match rest {
        [verb, rest @ ..] if ["was", "came"].contains(&verb.as_str()) => rest,
        rest => rest,
    };
    preposition == "in"
        && matches!(rest, [debut, kind, ..] if debut == "debut" && DEBUT_KINDS.contains(&kind.as_str()))
}

/// Words before a character's name that say a role or a voice is played (`the role of`, `her
/// role was`, `voiced`), nearest first.
const ROLE_CUES: &[&[&str]] = &[
    &["of", "role"],
    &["of", "roles"],
    &["of", "voice"],
    &["of", "part"],
    &["was", "role"],
    &["as", "role"],
    &["as", "roles"],
    &["as", "starred"],
    &["as", "cast"],
    &["voiced"],
    &["voices"],
    &["portrayed"],
    &["portrays"],
];

/// Whether the name is what a character is played on: `the role of Alpha Beta (Father) on
/// ⟨…⟩`, `voiced Alpha on the ⟨…⟩`. The character's name is one to four words in capitals, a
/// bracketed aside after it.
fn character_on(chars: &[char], start: usize) -> bool {
    let mut at = before_opening_quote(chars, start);
    let ends_with = |at: usize, text: &str| {
        let text: Vec<char> = text.chars().collect();
        at >= text.len() && chars[at - text.len()..at] == text[..]
    };
    if ends_with(at, " on the ") {
        at -= 4;
    }
    if !ends_with(at, " on ") {
        return false;
    }
    at -= 4;
    // `(Father)` after the character.
    if at > 0 && chars[at - 1] == ')' {
        let Some(open) = (at.saturating_sub(30)..at).rev().find(|&i| chars[i] == '(') else {
            return false;
        };
        if open == 0 || chars[open - 1] != ' ' {
            return false;
        }
        at = open - 1;
    }
    let words = words_ending_at(chars, at, 6);
    let name = words
        .iter()
        .take_while(|word| word.starts_with(char::is_uppercase))
        .count();
    if !(1..=4).contains(&name) {
        return false;
    }
    let cue: Vec<String> = words[name..]
        .iter()
        .take(2)
        .map(|word| word.to_lowercase())
        .collect();
    ROLE_CUES
        .iter()
        .any(|words| words.len() <= cue.len() && words.iter().zip(&cue).all(|(a, b)| a == b))
}

/// Words that end the noun phrase of an apposition after a name (`⟨…⟩, a rock band from Oslo`):
/// prepositions, relative words and the participles that open a clause after a noun.
const APPOSITION_ENDS: &[&str] = &[
    "in",
    "of",
    "from",
    "for",
    "with",
    "that",
    "which",
    "who",
    "whose",
    "where",
    "based",
    "founded",
    "formed",
    "owned",
    "run",
    "located",
    "known",
    "and",
    "or",
    "by",
    "on",
    "at",
    "to",
    "since",
    "until",
    "belonging",
    "built",
    "designed",
    "named",
    "operated",
    "launched",
    "dedicated",
];

/// Nouns that head a description after a name (`⟨…⟩, a permanent display at …`) but not a kind
/// before one, where they may be verbs (`the museum displays ⟨…⟩`).
const DESCRIBED_KIND_NOUNS: &[&str] = &["display", "exhibit", "exhibition", "collection"];

/// Possessive determiners before a kind noun that a comma and a name follow (`its second album,
/// ⟨…⟩`): the name is that thing, not the subject of a new clause (`After the election, ⟨…⟩
/// won`).
const POSSESSIVES: &[&str] = &["its", "his", "her", "their"];

/// The kind a noun phrase right after the name, set off by a comma, says it is: `⟨…⟩, a
/// championship hockey team in …` → `a hockey team`; `⟨…⟩, one of the two great epics` → `an
/// epic`. The phrase's head is its last word before punctuation or a word that ends it (`in`,
/// `that`, …); it must be a kind noun (in the plural after `one of the`), not a possessive.
/// Also gives where the description starts, past the comma.
fn described_after(chars: &[char], end: usize, entity_type: EntityType) -> Option<(String, usize)> {
    if !matches!(
        entity_type,
        EntityType::Org | EntityType::Misc | EntityType::Loc
    ) {
        return None;
    }
    let at = past_closing_quote(chars, end);
    // An abbreviation in brackets may come between (`Joint Services Wing (JSW), a …`).
    let window: String = chars[at..].iter().take(160).collect();
    let rest = match window.strip_prefix(" (") {
        Some(bracketed) => bracketed.split_once(')').map_or("", |(_, after)| after),
        None => window.as_str(),
    };
    // After a colon, what explains the name may be definite (`⟨…⟩: the spacecraft that …`);
    // after a comma, `the` more often opens the next member of a list.
    let (phrase, colon) = match rest.strip_prefix(", ") {
        Some(phrase) => (phrase, false),
        None => (rest.strip_prefix(": ")?, true),
    };
    let description = at + window.chars().count() - phrase.chars().count();
    let mut words = phrase.split(' ');
    let (plural, first) = match words.next()? {
        "a" | "an" => (false, None),
        "the" if colon => (false, None),
        "one" if !colon => {
            if words.next()? != "of" || words.next()? != "the" {
                return None;
            }
            (true, None)
        }
        _ => return None,
    };
    let mut noun_phrase: Vec<&str> = first.into_iter().collect();
    for word in words.take(6) {
        let bare = word.trim_end_matches(|c: char| ",.;:!?)".contains(c));
        if APPOSITION_ENDS.contains(&bare) {
            break;
        }
        if bare.is_empty()
            || !bare
                .chars()
                .all(|c| c.is_alphanumeric() || "-'’".contains(c))
        {
            return None;
        }
        noun_phrase.push(bare);
        if bare.len() < word.len() {
            break;
        }
    }
    let head = *noun_phrase.last()?;
    let (noun, was_plural) = kind_noun(head).or_else(|| {
        let singular = head.strip_suffix('s').unwrap_or(head);
        DESCRIBED_KIND_NOUNS
            .contains(&singular)
            .then(|| (singular.to_owned(), singular.len() < head.len()))
    })?;
    if was_plural != plural {
        return None;
    }
    let precise = noun_phrase
        .len()
        .checked_sub(2)
        .map(|at| noun_phrase[at].to_lowercase())
        .filter(|word| KIND_MODIFIERS.contains(&word.as_str()));
    Some((kind_phrase(precise.as_deref(), &noun), description))
}

/// Where a name the object of a verb or a preposition starts once left out with its
/// description: at the name, or at `the` before it (`author of the ⟨…⟩, one of …`). None when
/// the words before would be left without their noun: a determiner, a possessive, a number, a
/// capitalised word or the start of a sentence (`the 1947–48 ⟨…⟩, a team`).
fn object_starts_at(chars: &[char], start: usize) -> Option<usize> {
    let at = before_opening_quote(chars, start);
    let before = words_before(chars, at, 2);
    let (word, from) = match before.first().map(String::as_str) {
        Some("the" | "The") => (before.get(1)?, at - 4),
        Some(_) => (before.first()?, at),
        None => return None,
    };
    let function_word = DETERMINERS.contains(&word.as_str())
        || POSSESSIVES.contains(&word.as_str())
        || ["and", "or", "than"].contains(&word.as_str());
    (word.starts_with(char::is_lowercase)
        && word.chars().all(|c| c.is_alphabetic() || c == '-')
        && !function_word
        && !crate::render::counts_alone(word))
    .then_some(from)
}

/// Verbs after which a comma would part a subject from its verb (`another song of his, was`).
const SUBJECT_VERBS: &[&str] = &[
    "is", "was", "are", "were", "has", "had", "have", "became", "becomes", "remains", "will",
    "would",
];

/// Where a name in apposition after a comma is left out from and to: the comma before it and
/// its closing quote; the comma after it too where a verb follows, which the noun before is the
/// subject of (`his, "⟨…⟩", was` → `his was`; `its album, ⟨…⟩, which` → `its album, which`).
fn commas_around(chars: &[char], start: usize, end: usize) -> (usize, usize) {
    let from = before_opening_quote(chars, start).saturating_sub(2);
    let to = past_closing_quote(chars, end);
    let verb = chars.get(to..to + 2) == Some(&[',', ' '][..]) && {
        let next: String = chars[to + 2..]
            .iter()
            .take_while(|c| c.is_alphabetic())
            .collect();
        SUBJECT_VERBS.contains(&next.as_str())
    };
    (from, to + usize::from(verb))
}

/// The kind a possessive's noun before a comma names (`released its second album, ⟨…⟩.`), where
/// nothing but punctuation follows the name: the name stands in apposition to that noun.
fn kind_apposed_before(chars: &[char], start: usize, end: usize) -> Option<StatedKind> {
    let at = before_opening_quote(chars, start);
    if at < 2 || chars[at - 1] != ' ' || chars[at - 2] != ',' {
        return None;
    }
    let closes = after_quote(chars, end, 1)
        .chars()
        .next()
        .is_none_or(|c| ",.;:!?(".contains(c));
    if !closes {
        return None;
    }
    let before = words_ending_at(chars, at - 2, 6);
    // `another song of his, ⟨…⟩`: the possessive after `of` owns the noun before it.
    if let [pronoun, of, rest @ ..] = before.as_slice()
        && of == "of"
        && ["his", "hers", "theirs"].contains(&pronoun.as_str())
    {
        return kind_from_words(rest).filter(|found| !found.plural);
    }
    // `her Zorblax Records debut, ⟨…⟩`: someone's debut on a record label is a record.
    if let [debut, records, label @ ..] = before.as_slice()
        && debut == "debut"
        && records == "Records"
        && let Some(owner) = label
            .iter()
            .position(|word| POSSESSIVES.contains(&word.as_str()))
        && owner > 0
        && label[..owner]
            .iter()
            .all(|word| word.starts_with(char::is_uppercase))
    {
        return Some(StatedKind {
            kind: "a record".to_owned(),
            plural: false,
        });
    }
    let owner = before
        .iter()
        .skip(1)
        .position(|word| POSSESSIVES.contains(&word.to_lowercase().as_str()))?;
    // Only modifiers between the possessive and the noun (`its second studio album`).
    if before[1..=owner]
        .iter()
        .any(|word| !word.starts_with(char::is_lowercase))
    {
        return None;
    }
    kind_from_words(&before).filter(|found| !found.plural)
}

/// Whether a miscellany's name is followed by a year in brackets (`Alpha Beta (1997)`): how a
/// film, a record or a book is cited with its year of release.
fn dated_title(chars: &[char], end: usize, entity_type: EntityType) -> bool {
    let rest = after_quote(chars, end, 7);
    let bytes = rest.as_bytes();
    entity_type == EntityType::Misc
        && bytes.len() == 7
        && rest.starts_with(" (")
        && rest.ends_with(')')
        && bytes[2..6].iter().all(u8::is_ascii_digit)
}

/// The text after character `end`, past a closing quote.
fn after(chars: &[char], end: usize) -> String {
    after_quote(chars, end, 3)
}

/// The first `count` characters after character `end`, past a closing quote.
fn after_quote(chars: &[char], end: usize, count: usize) -> String {
    chars[past_closing_quote(chars, end)..]
        .iter()
        .take(count)
        .collect()
}

/// Character `end`, or the one after it where a closing quote stands there.
fn past_closing_quote(chars: &[char], end: usize) -> usize {
    let at = end.min(chars.len());
    at + usize::from(chars.get(at).is_some_and(|c| is_quote(*c)))
}

/// Character `start`, or the one before it where an opening quote stands there.
fn before_opening_quote(chars: &[char], start: usize) -> usize {
    let at = start.min(chars.len());
    at - usize::from(at > 0 && is_quote(chars[at - 1]))
}

pub(crate) fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '“' | '”' | '‘' | '’' | '«' | '»')
}

/// Whether the name is the first of a list the kind noun heads (`the films Alpha, Beta and
/// Gamma` would leave `the films , Beta`): then it stays a noun phrase of its own.
fn closed_by_comma_list(chars: &[char], end: usize) -> bool {
    let rest: String = chars[end.min(chars.len())..].iter().take(2).collect();
    rest.starts_with(',') && !rest.starts_with(", ")
}

/// The words before character `at`, nearest first, as written, across single spaces and an
/// opening quote right before `at`; stops at punctuation.
fn words_before(chars: &[char], at: usize, count: usize) -> Vec<String> {
    let cursor = before_opening_quote(chars, at);
    if cursor == 0 || chars[cursor - 1] != ' ' {
        return Vec::new();
    }
    words_ending_at(chars, cursor - 1, count)
}

/// The word that ends at character `at` and those before it across single spaces, nearest
/// first, as written; stops at punctuation.
fn words_ending_at(chars: &[char], at: usize, count: usize) -> Vec<String> {
    let mut words = Vec::with_capacity(count);
    let mut cursor = at.min(chars.len());
    while words.len() < count {
        let end = cursor;
        while cursor > 0 && (chars[cursor - 1].is_alphanumeric() || chars[cursor - 1] == '-') {
            cursor -= 1;
        }
        if cursor == end {
            break;
        }
        words.push(chars[cursor..end].iter().collect::<String>());
        if cursor == 0 || chars[cursor - 1] != ' ' {
            break;
        }
        cursor -= 1;
    }
    words
}

/// Whether a span is written as names are: it opens with a capital, a digit, or a letter of a
/// script without capitals (`微光`).
fn written_as_a_name(surface: &str) -> bool {
    surface.starts_with(|c: char| {
        c.is_uppercase() || c.is_ascii_digit() || c.is_alphabetic() && !c.is_lowercase()
    })
}

/// Whether a span is one word in lower case, as some brands are written (`odatv`, `$pent`).
fn lower_case_name(surface: &str) -> bool {
    !surface.contains(char::is_whitespace)
        && surface
            .chars()
            .find(|c| c.is_alphanumeric())
            .is_some_and(char::is_lowercase)
        && !KIND_NOUNS.contains(&surface)
        && !KIND_MODIFIERS.contains(&surface)
}

/// The kind a singular noun right before a name in lower case names (`the news website
/// ⟨odatv⟩,` → `a news website`), where punctuation or a bracket follows the name: a common noun
/// after a kind noun is the head it modifies (`the film industry awards`), and a span that holds
/// it alone is rare; one that more words follow is read as nothing.
fn kind_of_lower_case_name(chars: &[char], start: usize, end: usize) -> Option<String> {
    let rest = after_quote(chars, end, 2);
    let closes =
        rest.is_empty() || rest.starts_with(|c: char| ",.;:!?)".contains(c)) || rest == " (";
    let before = words_before(chars, before_opening_quote(chars, start), 4);
    closes
        .then(|| kind_from_words(&before))
        .flatten()
        .filter(|found| !found.plural)
        .map(|found| found.kind)
}

/// Nouns of places that name the place a name after `the … of` is (`the city of ⟨Rome⟩`), and
/// of occasions that name the occasion (`the festival of ⟨Holi⟩`), by the name's type. Not a
/// place's part or what a place holds (`the port of Hamburg`, `the capital of France`), nor a
/// role (`the president of Acme`).
const OF_KINDS: &[(EntityType, &[&str])] = &[
    (
        EntityType::Loc,
        &[
            "city",
            "town",
            "village",
            "hamlet",
            "municipality",
            "commune",
            "county",
            "province",
            "state",
            "region",
            "district",
            "parish",
            "borough",
            "township",
            "neighbourhood",
            "neighborhood",
            "suburb",
            "island",
            "peninsula",
            "kingdom",
            "emirate",
            "republic",
            "colony",
            "settlement",
            "territory",
        ],
    ),
    (EntityType::Misc, &["festival", "feast", "holiday", "game"]),
];

/// The kind `the` and a noun before `of` name (`the festival of ⟨Holi⟩` → `a festival`), where
/// the name ends there (no word in capitals follows it, as in `the city of ⟨Alpha⟩ Falls`), and
/// where what is left out starts: the space before `of`. Only right after `the`: `the largest
/// city of ⟨Italy⟩` and `a town of ⟨Norway⟩` name a part of it.
fn kind_before_of(
    chars: &[char],
    start: usize,
    end: usize,
    entity_type: EntityType,
) -> Option<(String, usize)> {
    let start = start.min(chars.len());
    if start < 4 || chars[start - 4..start] != [' ', 'o', 'f', ' '] {
        return None;
    }
    let before = words_ending_at(chars, start - 4, 3);
    let [noun, article, ..] = before.as_slice() else {
        return None;
    };
    if !article.eq_ignore_ascii_case("the") {
        return None;
    }
    let (_, nouns) = OF_KINDS
        .iter()
        .find(|(kind_type, _)| *kind_type == entity_type)?;
    if !nouns.contains(&noun.as_str()) {
        return None;
    }
    let rest: String = chars[end.min(chars.len())..].iter().take(2).collect();
    let mut rest = rest.chars();
    if rest.next() == Some(' ') && rest.next().is_some_and(char::is_uppercase) {
        return None;
    }
    Some((crate::ontology::with_article(noun), start - 4))
}

/// A kind the sentence names for a name, and whether it named it in the plural (a list follows).
struct StatedKind {
    kind: String,
    plural: bool,
}

/// Words between a kind noun and the name it introduces (`an album titled ⟨…⟩`), which go with
/// the name when it is left out.
pub(crate) const NAMING_WORDS: &[&str] = &["titled", "entitled", "called"];

/// Words between a kind noun in the plural and the first member of the list it heads (`albums
/// including ⟨…⟩`, `cities like ⟨…⟩`, after an optional comma), which go when every member is
/// left out.
pub(crate) const LIST_OPENERS: &[&str] = &["including", "like", "such as"];

/// Kind nouns written in capitals (`the EP ⟨…⟩`).
const CAPITAL_KIND_NOUNS: &[&str] = &["EP", "LP"];

/// The kind the noun right before the name names (`the rock band ⟨Queen⟩` → `a rock band`): a
/// lower-case kind noun, with a word that makes it more precise, after a word that makes it a
/// noun (not `to play ⟨Hamlet⟩`); past a naming word (`an album titled ⟨…⟩`), and a time or a
/// short phrase between the two (`an EP in 2004 titled ⟨…⟩`). A noun in the plural heads a
/// list, which may open with a bracket, a colon or a list opener (`the albums (⟨…⟩`, `albums,
/// including ⟨…⟩`), after a participle clause too (`plays produced in 1900: ⟨…⟩`); or with a
/// comma after such a clause, where the count before the noun is the number of titles to the
/// end of the sentence (`two records released on Acme, ⟨…⟩ and …`); or as the subject of
/// `include` (`popular films based on his works include ⟨…⟩`). Two plural kinds joined by `and`
/// name what is true of both (`series and films` → `a production`).
fn stated_kind(chars: &[char], start: usize) -> Option<StatedKind> {
    let at = before_opening_quote(chars, start);
    let before = words_before(chars, at, 9);
    let named = before
        .first()
        .is_some_and(|word| NAMING_WORDS.contains(&word.as_str()))
        || before.len() >= 2 && before[0] == "as" && before[1] == "known";
    if named {
        let skip = if before[0] == "as" { 2 } else { 1 };
        let rest = &before[skip..];
        // `called` and `known as` may name a person or a thing the phrase speaks of (`a film
        // about a dog called ⟨…⟩`); `titled` names a work.
        let titled = ["titled", "entitled"].contains(&before[0].as_str());
        return kind_from_words(rest).or_else(|| {
            let past = time_between(rest).or_else(|| titled.then(|| phrase_between(rest))?)?;
            kind_from_words(&rest[past..])
        });
    }
    if let Some(found) = kind_from_words(&before) {
        return Some(found);
    }
    if let Some((found, _)) = pair_kind(&before) {
        return Some(found);
    }
    if let Some(subject) = include_before(chars, at) {
        return kind_of_subject(&subject);
    }
    // A list opened after the noun: `albums (`, `townships: `, `albums, including `.
    if let Some(opened_at) = list_opened_at(chars, at) {
        let words = words_ending_at(chars, opened_at, 12);
        return kind_from_words(&words)
            .filter(|found| found.plural)
            .or_else(|| pair_kind(&words).map(|(found, _)| found))
            .or_else(|| kind_before_clause(&words).map(|(found, _)| found));
    }
    if at >= 2 && chars[at - 2..at] == [',', ' '] {
        return counted_list(chars, at);
    }
    // `such radio programs as ⟨…⟩`.
    let before: String = chars[at.saturating_sub(4)..at].iter().collect();
    if before != " as " {
        return None;
    }
    let words = words_ending_at(chars, at - 4, 5);
    let such = words
        .iter()
        .skip(1)
        .position(|word| word.eq_ignore_ascii_case("such"))?;
    if words[1..=such]
        .iter()
        .any(|word| VERB_CUES.contains(&word.as_str()))
    {
        return None;
    }
    kind_from_words(&words).filter(|found| found.plural)
}

/// Kinds whose plurals joined by `and` head a list (`animated series and films ⟨…⟩`), and the
/// phrase true of a member, which is one or the other.
const KIND_PAIRS: &[(&[&str], &str)] = &[
    (
        &[
            "film",
            "movie",
            "documentary",
            "series",
            "miniseries",
            "sitcom",
            "serial",
            "programme",
            "program",
            "show",
            "play",
            "musical",
            "drama",
            "cartoon",
            "anime",
        ],
        "a production",
    ),
    (
        &[
            "novel",
            "novella",
            "book",
            "memoir",
            "autobiography",
            "biography",
            "poem",
        ],
        "a written work",
    ),
    (
        &["album", "single", "EP", "LP", "mixtape", "soundtrack"],
        "a recording",
    ),
    (&["city", "town", "village", "hamlet"], "a settlement"),
];

/// The kind two plural kind nouns joined by `and` name (the words before a name, nearest first:
/// `films and series` → `a production`), after a word that makes them nouns, and how many words
/// they and a modifier before them take.
fn pair_kind(words: &[String]) -> Option<(StatedKind, usize)> {
    let [second, and, first, ..] = words else {
        return None;
    };
    if and != "and" {
        return None;
    }
    let (second, true) = kind_noun(second)? else {
        return None;
    };
    let (first, true) = kind_noun(first)? else {
        return None;
    };
    let taken = if words
        .get(3)
        .is_some_and(|word| KIND_MODIFIERS.contains(&word.to_lowercase().as_str()))
    {
        4
    } else {
        3
    };
    if VERB_CUES.contains(&words.get(taken)?.to_lowercase().as_str()) {
        return None;
    }
    let (_, kind) = KIND_PAIRS.iter().find(|(nouns, _)| {
        first != second && nouns.contains(&first.as_str()) && nouns.contains(&second.as_str())
    })?;
    Some((
        StatedKind {
            kind: (*kind).to_owned(),
            plural: true,
        },
        taken,
    ))
}

/// Forms of `include` whose subject, a plural kind, names the kind of each name of its object
/// (`Popular films based on his works include ⟨…⟩, …`).
const INCLUDE: &[&str] = &["include", "includes", "included"];

/// Longest the subject of `include` is read back to the start of its clause, in characters.
const SUBJECT_LENGTH: usize = 120;

/// The subject of a form of `include` right before character `at`, back to the start of its
/// clause, as words nearest first, a possessive's `'s` dropped (`Popular films based on Dick's
/// works include ⟨…⟩` → `works, Dick, on, based, films, Popular`); None where no such verb is
/// there or the clause starts too far back to read.
fn include_before(chars: &[char], at: usize) -> Option<Vec<String>> {
    let at = at.min(chars.len());
    let from = at.saturating_sub(SUBJECT_LENGTH);
    let text: String = chars[from..at].iter().collect();
    let (subject, verb) = text.trim_end_matches(' ').rsplit_once(' ')?;
    if !INCLUDE.contains(&verb) {
        return None;
    }
    let clause = match subject.rfind(|c: char| ".,;:!?()\n".contains(c)) {
        Some(boundary) => &subject[boundary + 1..],
        None if from == 0 => subject,
        None => return None,
    };
    let words: Vec<String> = clause
        .split_whitespace()
        .rev()
        .map(|word| {
            word.strip_suffix("'s")
                .or_else(|| word.strip_suffix("’s"))
                .unwrap_or(word)
                .to_owned()
        })
        .collect();
    (!words.is_empty()).then_some(words)
}

/// Nouns whose plural after `his` or `her` stands for the works they were in (`his roles in
/// animated films include ⟨…⟩`: each name is a film).
const ROLE_NOUNS: &[&str] = &["roles", "appearances", "credits", "parts"];

/// Prepositions, which put a kind noun in a phrase that modifies the subject's head (`awards
/// given to films include ⟨…⟩` are awards).
const PREPOSITIONS: &[&str] = &[
    "of", "in", "on", "at", "to", "for", "from", "by", "with", "about", "as", "than", "into",
    "over", "under", "after", "before", "between", "through", "during", "without", "against",
    "among", "like",
];

/// The kind the subject of `include` (words nearest first) names for the names it includes: a
/// plural kind, two joined by `and` or one before a participle clause, that heads the subject
/// (only determiners and modifiers before it), or whose works the roles in it are.
fn kind_of_subject(words: &[String]) -> Option<StatedKind> {
    let (found, rest) = match kind_from_words(words).filter(|found| found.plural) {
        Some(found) => (found, 1),
        None => pair_kind(words)
            .or_else(|| kind_before_clause(words).map(|(found, noun)| (found, noun + 1)))?,
    };
    let mut before = &words[rest..];
    if let [preposition, role, more @ ..] = before
        && preposition == "in"
        && ROLE_NOUNS.contains(&role.to_lowercase().as_str())
    {
        before = more;
    }
    let modifier = |word: &String| {
        let word = word.to_lowercase();
        ![PREPOSITIONS, VERB_CUES, CLAUSE_WORDS]
            .iter()
            .any(|words| words.contains(&word.as_str()))
    };
    (before.len() <= 4 && before.iter().all(modifier)).then_some(found)
}

/// The kind a counted plural noun before a participle clause and a comma names for the titles
/// from character `at` (`two records released on Acme, ⟨…⟩ (1997) and …`), where the count is
/// the number of titles to the end of the sentence: each of them is one.
fn counted_list(chars: &[char], at: usize) -> Option<StatedKind> {
    if at < 2 || chars.get(at - 2..at) != Some(&[',', ' '][..]) {
        return None;
    }
    let words = words_ending_at(chars, at - 2, 12);
    let (found, noun) = kind_before_clause(&words)?;
    let count = words[noun + 1..]
        .iter()
        .take(3)
        .find_map(|word| count_of(word))?;
    (titles_to_the_end(chars, at) == count).then_some(found)
}

/// How many of the words before a naming word (nearest first) are a time (`in 2004`, `in May
/// 2004`), which says when the thing was made, not what it is.
fn time_between(words: &[String]) -> Option<usize> {
    let year = words.first()?;
    if year.len() != 4 || !year.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let past_month = usize::from(
        words
            .get(1)
            .is_some_and(|word| kanon_kg::date::MONTHS.contains(&word.as_str())),
    );
    (words.get(1 + past_month)? == "in").then_some(2 + past_month)
}

/// Prepositions that open a phrase between a work's kind noun and `titled` (`an album to his
/// father titled ⟨…⟩`).
const PHRASE_PREPOSITIONS: &[&str] = &["to", "for", "by", "about", "with", "of", "from", "on"];

/// How many of the words before a naming word (nearest first) are a preposition and its object
/// of at most three words (`to his father`): none a kind noun, which the naming word would name
/// (`an album with a song titled ⟨…⟩` names a song), nor a word of a clause.
fn phrase_between(words: &[String]) -> Option<usize> {
    let preposition = words
        .iter()
        .take(4)
        .position(|word| PHRASE_PREPOSITIONS.contains(&word.as_str()))?;
    let object = &words[..preposition];
    let plain = |word: &String| {
        kind_noun(word).is_none()
            && !VERB_CUES.contains(&word.to_lowercase().as_str())
            && !NAMING_WORDS.contains(&word.as_str())
    };
    (!object.is_empty() && object.iter().all(plain)).then_some(preposition + 1)
}

/// Past participles that do not end in `-ed` and open a clause after a noun (`songs written by
/// …`).
const IRREGULAR_PARTICIPLES: &[&str] = &[
    "written", "made", "built", "shown", "drawn", "sung", "held", "set", "won", "given", "taken",
    "done", "seen", "known", "sold", "told", "brought", "bought", "taught", "found", "put", "kept",
    "spoken", "chosen", "broken", "grown", "thrown", "shot", "begun", "sent", "read", "heard",
    "cast", "composed",
];

/// Words that show a clause has a subject, a tense or a mood of its own (`plays he wrote`,
/// `songs that were sung`): no participle clause that only says which things they are.
const CLAUSE_WORDS: &[&str] = &[
    "will", "would", "can", "could", "shall", "should", "may", "might", "must", "did", "does",
    "do", "not", "never", "he", "she", "they", "it", "i", "we", "you", "who", "which", "that",
    "is", "was", "are", "were", "be", "been", "has", "have", "had",
];

/// Whether a word is a past participle (`produced`, `written`).
fn is_participle(word: &str) -> bool {
    word.len() >= 5 && word.ends_with("ed") || IRREGULAR_PARTICIPLES.contains(&word)
}

/// The kind a plural noun names before a participle clause of at most six words, the words
/// before a list's opener (nearest first): `three stage plays produced between 1897 and 1906`
/// → `a stage play`; and where the noun is in the words.
fn kind_before_clause(words: &[String]) -> Option<(StatedKind, usize)> {
    (0..words.len().min(6)).find_map(|participle| {
        let clause = &words[..=participle];
        if !is_participle(&words[participle])
            || clause
                .iter()
                .any(|word| CLAUSE_WORDS.contains(&word.to_lowercase().as_str()))
        {
            return None;
        }
        kind_from_words(&words[participle + 1..])
            .filter(|found| found.plural)
            .map(|found| (found, participle + 1))
    })
}

/// The number a count word or numeral says (`two`, `3`).
fn count_of(word: &str) -> Option<usize> {
    const COUNTS: &[&str] = &[
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    COUNTS
        .iter()
        .position(|count| word.eq_ignore_ascii_case(count))
        .map(|at| at + 2)
        .or_else(|| word.parse().ok())
}

/// Lower-case words a title may hold (`The Fall of Rome`).
const TITLE_FUNCTION_WORDS: &[&str] = &[
    "of", "the", "a", "an", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or",
];

/// How many titles the text from character `at` to the end of its sentence lists (`Alpha
/// (1997) and Beta Gamma (2000).` → 2), quotes and bracketed asides aside; 0 where anything
/// else is there (`Alpha and Beta split.`: a word no title holds).
fn titles_to_the_end(chars: &[char], at: usize) -> usize {
    let at = at.min(chars.len());
    let rest: String = chars[at..].iter().take(240).collect();
    let Some(sentence) = rest.split(['.', ';', '!', '?', '\n']).next() else {
        return 0;
    };
    // Where the sentence goes on past what was read, its titles are not all known.
    if sentence.len() == rest.len() && chars.len() - at > 240 {
        return 0;
    }
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in sentence.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 && !is_quote(c) => plain.push(c),
            _ => {}
        }
    }
    let plain = plain.replace(", and ", ", ").replace(" and ", ", ");
    let items: Vec<&str> = plain.split(", ").map(str::trim).collect();
    let title = |item: &&str| {
        let mut words = item.split_whitespace();
        words.next().is_some_and(written_as_a_name)
            && words.all(|word| written_as_a_name(word) || TITLE_FUNCTION_WORDS.contains(&word))
    };
    if items.iter().all(title) {
        items.len()
    } else {
        0
    }
}

/// Where the kind noun before a list opener ends: `albums (⟨…⟩` and `townships: ⟨…⟩` give the
/// end of the noun; `albums, including ⟨…⟩`, `cities like ⟨…⟩` too.
fn list_opened_at(chars: &[char], at: usize) -> Option<usize> {
    let at = at.min(chars.len());
    let before: String = chars[at.saturating_sub(16)..at].iter().collect();
    let mut suffixes = vec![" (".to_owned(), ": ".to_owned()];
    for opener in LIST_OPENERS {
        suffixes.push(format!(", {opener} "));
        suffixes.push(format!(" {opener} "));
    }
    suffixes
        .iter()
        .find(|suffix| before.ends_with(suffix.as_str()))
        .map(|suffix| at - suffix.chars().count())
}

/// The kind the words before a name (nearest first, lower-cased as written) name: a kind noun,
/// singular or plural, with a word that makes it more precise, after a word that makes it a noun.
fn kind_from_words(before: &[String]) -> Option<StatedKind> {
    let written = before.first()?;
    let (noun, plural) = kind_noun(written)?;
    let mut precise = before
        .get(1)
        .filter(|word| KIND_MODIFIERS.contains(&word.to_lowercase().as_str()))
        .cloned();
    let mut cue_at = if precise.is_some() { 2 } else { 1 };
    // `science fiction` makes a kind precise as one.
    if precise.as_deref() == Some("fiction") && before.get(2).is_some_and(|word| word == "science")
    {
        precise = Some("science fiction".to_owned());
        cue_at = 3;
    }
    let cue = before.get(cue_at)?.to_lowercase();
    if VERB_CUES.contains(&cue.as_str()) {
        return None;
    }
    // `a single Grammy` is a count, not a record.
    if noun == "single" && ["a", "an", "one"].contains(&cue.as_str()) {
        return None;
    }
    Some(StatedKind {
        kind: kind_phrase(precise.as_deref(), &noun),
        plural,
    })
}

/// A kind noun with the word that makes it precise and its article (`a rock band`): `TV` and
/// `Catholic` kept as written, a common word in a name's capitals (`such CBC Radio programs`) in
/// lower case.
fn kind_phrase(precise: Option<&str>, noun: &str) -> String {
    let phrase = match precise {
        Some(word) => {
            let proper = word.chars().all(|c| c.is_uppercase())
                || [
                    "catholic",
                    "christian",
                    "islamic",
                    "jewish",
                    "buddhist",
                    "hindu",
                ]
                .contains(&word.to_lowercase().as_str());
            let word = if proper {
                word.to_owned()
            } else {
                word.to_lowercase()
            };
            format!("{word} {noun}")
        }
        None => noun.to_owned(),
    };
    crate::ontology::with_article(&phrase)
}

/// A kind noun as written (`film`, `films`, `EP`) in the singular, and whether it was plural.
/// `series` is both; it reads as a list's head.
pub(crate) fn kind_noun(written: &str) -> Option<(String, bool)> {
    if CAPITAL_KIND_NOUNS.contains(&written) {
        return Some((written.to_owned(), false));
    }
    if let Some(singular) = written.strip_suffix('s')
        && CAPITAL_KIND_NOUNS.contains(&singular)
    {
        return Some((singular.to_owned(), true));
    }
    if !written.starts_with(char::is_lowercase) {
        return None;
    }
    if written == "series" {
        return Some((written.to_owned(), true));
    }
    if KIND_NOUNS.contains(&written) {
        return Some((written.to_owned(), false));
    }
    let singular = if let Some(stem) = written.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = ["ches", "shes", "sses", "xes"]
        .iter()
        .find_map(|suffix| written.strip_suffix(suffix).map(|stem| (stem, suffix)))
        .map(|(stem, suffix)| format!("{stem}{}", &suffix[..suffix.len() - 2]))
    {
        stem
    } else {
        written.strip_suffix('s')?.to_owned()
    };
    KIND_NOUNS
        .contains(&singular.as_str())
        .then_some((singular, true))
}

/// Whether the word after a span (past one space) reads as a past tense, a present tense that
/// takes a subject, or an adverb (`the BBC reported`, `Acme owns`, `quickly`): the span is then
/// its subject, not a modifier of it.
pub(crate) fn followed_by_verb(rest: &[char]) -> bool {
    let next: String = rest
        .iter()
        .skip(1)
        .take_while(|c| c.is_alphabetic() || **c == '-')
        .collect();
    next.ends_with("ly")
        || next.ends_with("ed")
        || IRREGULAR_PAST.contains(&next.as_str())
        || participle_with_object(rest, &next)
}

/// Determiners that open an object after a verb.
const OBJECT_DETERMINERS: &[&str] = &[
    "a", "an", "the", "his", "her", "their", "its", "our", "my", "your",
];

/// Whether an object opens after the one space `rest` starts with: a determiner, whatever its
/// case, and a space after it (`⟨…⟩ leading a crew`, `complicity in ⟨defrauding⟩ the state`).
fn object_follows(rest: &[char]) -> bool {
    let object: String = rest.iter().take(8).collect::<String>().to_lowercase();
    object
        .strip_prefix(' ')
        .and_then(|object| object.split_once(' '))
        .is_some_and(|(word, _)| OBJECT_DETERMINERS.contains(&word))
}

/// Whether the word after a span, `next`, is a present participle with an object after it
/// (`⟨…⟩ leading a crew`): a verb of its own, where a noun in `-ing` the span would modify
/// (`the ⟨Oslo⟩ meeting`) is not followed by a determiner.
fn participle_with_object(rest: &[char], next: &str) -> bool {
    next.ends_with("ing")
        && rest
            .get(1 + next.chars().count()..)
            .is_some_and(object_follows)
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
    if followed_by_verb(rest) {
        return false;
    }
    if entity_type == EntityType::Dem {
        return true;
    }
    // A count determines the noun too (`three Oslo cafés`), and a determiner may come before
    // an adjective (`the nascent Fox network`).
    let before = words_before(chars, start, 2);
    let determiner = |word: &String| DETERMINERS.contains(&word.to_lowercase().as_str());
    before
        .first()
        .is_some_and(|word| determiner(word) || crate::render::counts_alone(word) && !ordinal)
        || entity_type == EntityType::Org
            && before.first().is_some_and(|word| {
                word.starts_with(char::is_lowercase) && !VERB_CUES.contains(&word.as_str())
            })
            && before.get(1).is_some_and(determiner)
            && named_kind_after(chars, end).is_some()
}

/// Kinds an organisation's name names when it modifies them (`the Fox television network`, `the
/// Alpha party`): the organisation is one. Not `team` or `board` (`the Google team` is a team
/// at Google), nor places (`an Oslo suburb` is a suburb of Oslo).
const NAMED_KINDS: &[&str] = &[
    "party",
    "network",
    "band",
    "movement",
    "company",
    "corporation",
    "firm",
    "newspaper",
    "magazine",
    "channel",
    "station",
    "label",
    "unit",
    "units",
    "regiment",
    "brigade",
    "militia",
    "league",
    "federation",
    "union",
    "club",
    "broadcaster",
    "airline",
    "bank",
    "publisher",
];

/// The kind an organisation's name modifies (`the ⟨Fox⟩ television network` → `a television
/// network`): a named kind right after it, past at most one kind modifier.
fn named_kind_after(chars: &[char], end: usize) -> Option<String> {
    let rest: String = chars[end.min(chars.len())..].iter().take(40).collect();
    let mut words = rest.strip_prefix(' ')?.split(' ');
    let first = words.next()?;
    let (modifier, noun) = if KIND_MODIFIERS.contains(&first) {
        (Some(first), words.next()?)
    } else {
        (None, first)
    };
    let noun = noun.trim_end_matches(|c: char| ",.;:!?)".contains(c));
    if !NAMED_KINDS.contains(&noun) {
        return None;
    }
    let singular = noun.strip_suffix("units").map_or(noun, |_| "unit");
    Some(kind_phrase(modifier, singular))
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
        for (text, kind) in [
            ("He played college football at Zorblax.", "a college team"),
            (
                "He played college basketball for Zorblax.",
                "a college team",
            ),
            ("She plays hockey for Zorblax.", "a team"),
            ("She made 17 appearances for Zorblax.", "a team"),
        ] {
            assert_eq!(
                implied(text, "Zorblax", EntityType::Org).as_deref(),
                Some(kind),
                "{text}"
            );
        }
        // What the verb implies of a miscellany or a condition, and of an organisation no
        // more than that it is one, read after what the document says of the name itself.
        for (text, entity_type, kind) in [
            (
                "She plays the role of Zorblax on a show.",
                EntityType::Misc,
                "a character",
            ),
            ("He sang \"Zorblax\" at a game.", EntityType::Misc, "a song"),
            (
                "He was convicted of Zorblax in 1990.",
                EntityType::Misc,
                "an offence",
            ),
            (
                "He died of a Zorblax in 1990.",
                EntityType::Dem,
                "a condition",
            ),
            (
                "She later joined Zorblax.",
                EntityType::Org,
                "an organization",
            ),
            (
                "She founded Zorblax, a rock band.",
                EntityType::Org,
                "a rock band",
            ),
        ] {
            assert_eq!(
                implied(text, "Zorblax", entity_type).as_deref(),
                Some(kind),
                "{text}"
            );
        }
        // A common noun is no name, but a state or a deed the verb types is still one.
        for (text, span, entity_type, kind) in [
            (
                "He died of zorbosis at 70.",
                "zorbosis",
                EntityType::Misc,
                Some("a condition"),
            ),
            (
                "His death from quarnitis moved her.",
                "quarnitis",
                EntityType::Dem,
                Some("a condition"),
            ),
            (
                "complicity in vexing, and fraud",
                "vexing",
                EntityType::Misc,
                Some("an offence"),
            ),
            // A gerund with its object is a verb phrase.
            (
                "complicity in vexing the state",
                "vexing",
                EntityType::Misc,
                None,
            ),
            (
                "She then studied Zorbology at Oslo.",
                "Zorbology",
                EntityType::Dem,
                Some("a subject"),
            ),
            (
                "a degree in Zorbology",
                "Zorbology",
                EntityType::Misc,
                Some("a subject"),
            ),
            // Nothing a common noun is a name of: no song, no organisation.
            ("He sang ballads.", "ballads", EntityType::Misc, None),
            ("She later joined forces.", "forces", EntityType::Org, None),
        ] {
            assert_eq!(implied(text, span, entity_type).as_deref(), kind, "{text}");
        }
        assert_eq!(
            implied(
                "That season he joined the Oslo Vikings.",
                "Oslo Vikings",
                EntityType::Org
            )
            .as_deref(),
            Some("a sports team")
        );
        // A city and a plural nickname, where the document speaks of sport.
        assert_eq!(
            implied(
                "He joined the Oslo Vikings before the 1990 season.",
                "Oslo Vikings",
                EntityType::Org
            )
            .as_deref(),
            Some("a sports team")
        );
        for (text, span) in [
            ("He sang with the Oslo Vikings in 1990.", "Oslo Vikings"),
            ("the Zorblax Vikings won the league.", "Zorblax Vikings"),
            ("the Oslo Express won the league.", "Oslo Express"),
        ] {
            assert_eq!(implied(text, span, EntityType::Org), None, "{text}");
        }
        assert_eq!(
            implied("She played hockey at Zorblax.", "Zorblax", EntityType::Org),
            None
        );
        // In a document about sport: a city's name, a city and a number, a club's abbreviation,
        // a plural nickname alone.
        for (text, span) in [
            ("That season he scored against Bergen twice.", "Bergen"),
            ("That season he moved to Bergen 96.", "Bergen 96"),
            ("That season he moved to Zorblax FC.", "Zorblax FC"),
            ("He coached the Zorblaxers for a season.", "Zorblaxers"),
        ] {
            assert_eq!(
                implied(text, span, EntityType::Org).as_deref(),
                Some("a sports team"),
                "{text}"
            );
        }
        // Not where the document writes the city as a place, nor outside sport.
        for (text, span) in [
            (
                "Born in Bergen, that season he scored against Bergen.",
                "Bergen",
            ),
            ("He scored against Bergen twice.", "Bergen"),
        ] {
            assert_eq!(implied(text, span, EntityType::Org), None, "{text}");
        }
        // Another type, or a named kind, takes precedence over nothing: none implied.
        assert_eq!(
            implied("He played for Alpha.", "Alpha", EntityType::Misc),
            None
        );
        // A place's name after a team's frame is the club or the national side; after any
        // other frame it stays a place.
        for text in [
            "He played for Velt.",
            "He made his debut for Velt.",
            "She plays basketball for Velt.",
            "He played as a goalkeeper for Velt.",
        ] {
            assert_eq!(
                implied(text, "Velt", EntityType::Loc).as_deref(),
                Some("a team"),
                "{text}"
            );
        }
        assert_eq!(
            implied("He was mayor of Velt.", "Velt", EntityType::Loc).as_deref(),
            Some("a municipality")
        );
        assert_eq!(implied("He joined Velt.", "Velt", EntityType::Loc), None);
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
    /// Every reading of `text` whose mentions are `spans` (each found after the previous one).
    fn readings(text: &str, spans: &[(&str, EntityType)]) -> Vec<Reading> {
        let chars: Vec<char> = text.chars().collect();
        let mut from = 0;
        let mut mentions = Vec::new();
        for &(span, entity_type) in spans {
            let byte = from + text[from..].find(span).expect("span in text");
            from = byte + span.len();
            let start = text[..byte].chars().count();
            mentions.push((start, start + span.chars().count(), entity_type));
        }
        read_all(&chars, &mentions)
    }

    #[test]
    fn a_description_after_a_name_says_its_kind() {
        // The object of a verb or a preposition: left out with its comma and article.
        for (text, span, entity_type, kind, extent) in [
            (
                "She co-founded Zorblax, a crisis hotline for victims.",
                "Zorblax",
                EntityType::Misc,
                "a hotline",
                "Zorblax, ",
            ),
            (
                "He is a member of Quibblespor, a club of the ministry.",
                "Quibblespor",
                EntityType::Org,
                "a club",
                "Quibblespor, ",
            ),
            (
                "the author of the Vexiliad, one of the two great epics of old.",
                "Vexiliad",
                EntityType::Misc,
                "an epic",
                "the Vexiliad, ",
            ),
            (
                "He trained at the Joint Krell Wing (JKW), a military academy.",
                "Joint Krell Wing",
                EntityType::Org,
                "a military academy",
                "the Joint Krell Wing (JKW), ",
            ),
            (
                "He played in their Krell Royals, a hockey team.",
                "Krell Royals",
                EntityType::Org,
                "a hockey team",
                "",
            ),
        ] {
            let got = reading(text, span, entity_type);
            assert_eq!(got.implied.as_deref(), Some(kind), "{text}");
            let chars: Vec<char> = text.chars().collect();
            match got.slot {
                Slot::Described { start, end } => {
                    let left_out: String = chars[start..end].iter().collect();
                    assert_eq!(left_out, extent, "{text}");
                }
                // `their` would be left without its noun.
                slot => {
                    assert!(extent.is_empty(), "{text}");
                    assert_eq!(slot, Slot::Head, "{text}");
                }
            }
        }
        // A year before the name, or a description whose head is no kind: a noun phrase of its
        // own, the kind (if any) its replacement.
        let team = reading(
            "playing for the 1950 Krell Royals, a senior men's hockey team in Ontario.",
            "Krell Royals",
            EntityType::Org,
        );
        assert_eq!(team.slot, Slot::Head);
        assert_eq!(team.implied.as_deref(), Some("a hockey team"));
        let member = reading(
            "He met Zorblax, a member of the league.",
            "Zorblax",
            EntityType::Org,
        );
        assert_eq!(member.implied, None);
        assert_eq!(member.slot, Slot::Head);
    }

    #[test]
    fn a_possessive_noun_and_a_comma_before_a_name_say_its_kind() {
        // (text, name, type, the kind read and what is left without the name and its commas;
        // none where a new clause's subject may follow the comma, or the name does not end the
        // apposition).
        for (text, name, entity_type, kind) in [
            (
                "In 2016 the band released its second album, \"Zorblax\", on a small label.",
                "Zorblax",
                EntityType::Misc,
                Some((
                    "an album",
                    "In 2016 the band released its second album, on a small label.",
                )),
            ),
            (
                "He wrote songs for his punk rock band, Vexil.",
                "Vexil",
                EntityType::Org,
                Some(("a rock band", "He wrote songs for his punk rock band.")),
            ),
            (
                "After the election, Krellpartiet won.",
                "Krellpartiet",
                EntityType::Org,
                None,
            ),
            (
                "After his album, Zorblax Records dropped him.",
                "Zorblax Records",
                EntityType::Org,
                None,
            ),
        ] {
            let got = reading(text, name, entity_type);
            assert_eq!(got.kind.as_deref(), kind.map(|(kind, _)| kind), "{text}");
            match kind {
                Some((_, left)) => assert_eq!(without(text, &got), left),
                None => assert_eq!(got.slot, Slot::Head, "{text}"),
            }
        }
    }

    #[test]
    fn an_organisation_that_modifies_its_kind_is_one() {
        let fox = reading(
            "launching a hit on the nascent Zorbvision television network.",
            "Zorbvision",
            EntityType::Org,
        );
        assert_eq!(fox.slot, Slot::Modifier);
        assert_eq!(fox.implied.as_deref(), Some("a television network"));
        let party = reading(
            "He led the Krell Home party.",
            "Krell Home",
            EntityType::Org,
        );
        assert_eq!(party.implied.as_deref(), Some("a party"));
        // A team at an organisation is no organisation that is a team, nor a suburb a city.
        let team = reading("She met the Zorbcorp team.", "Zorbcorp", EntityType::Org);
        assert_eq!(team.implied, None);
        let suburb = reading("He lived in an Oslo suburb.", "Oslo", EntityType::Loc);
        assert_eq!(suburb.implied, None);
    }

    #[test]
    fn such_kinds_as_head_a_list() {
        let got = readings(
            "guest roles on such Krell Radio programs as Alpha, Beta Gamma and dozens of others.",
            &[
                ("Alpha", EntityType::Misc),
                ("Beta Gamma", EntityType::Misc),
            ],
        );
        for reading in &got {
            assert_eq!(reading.kind.as_deref(), Some("a radio program"));
            // The list goes on after its names: each keeps a place of its own.
            assert_eq!(reading.slot, Slot::Head);
        }
        let verb = readings(
            "such that they sang as Alpha.",
            &[("Alpha", EntityType::Org)],
        );
        assert_eq!(verb[0].kind, None);
    }

    #[test]
    fn the_names_of_a_list_a_plural_kind_heads_are_of_that_kind() {
        use EntityType::{Datetime, Loc, Misc};
        for (text, spans, kind) in [
            (
                "He wrote the films Alpha, Beta Gamma, and Delta, and directed Omega.",
                &[("Alpha", Misc), ("Beta Gamma", Misc), ("Delta", Misc)][..],
                "a film",
            ),
            (
                "on her two latest albums (Alpha, Beta and Gamma).",
                &[("Alpha", Misc), ("Beta", Misc), ("Gamma", Misc)][..],
                "an album",
            ),
            (
                "He has recorded six albums, including Alpha and Beta; he tours.",
                &[("Alpha", Misc), ("Beta", Misc)][..],
                "an album",
            ),
            (
                "the tracks \"Alpha\", \"Beta\" and \"Gamma\".",
                &[("Alpha", Misc), ("Beta", Misc), ("Gamma", Misc)][..],
                "a track",
            ),
            (
                "four villages: Alpha, Beta and Gamma.",
                &[("Alpha", Loc), ("Beta", Loc), ("Gamma", Loc)][..],
                "a village",
            ),
        ] {
            let got = readings(text, spans);
            for reading in &got {
                assert_eq!(reading.kind.as_deref(), Some(kind), "{text}");
                assert_eq!(reading.slot, Slot::Apposition, "{text}");
            }
        }
        // A name of the list that is no member, a year after a member, or more of the list
        // after the last: each member keeps a place of its own, read as the kind.
        for (text, spans) in [
            (
                "in cities like Alpha, Beta, 1990 and Delta.",
                &[
                    ("Alpha", Loc),
                    ("Beta", Loc),
                    ("1990", Datetime),
                    ("Delta", Loc),
                ][..],
            ),
            (
                "in films such as Alpha (2004), Beta (2007).",
                &[("Alpha", Misc), ("2004", Datetime), ("Beta", Misc)][..],
            ),
            (
                "the films Alpha, Beta, Gamma and Delta.",
                &[("Alpha", Misc), ("Beta", Misc)][..],
            ),
        ] {
            let got = readings(text, spans);
            assert_eq!(
                got[0].kind.as_deref().map(|kind| kind.starts_with("a ")),
                Some(true),
                "{text}"
            );
            assert!(
                got.iter().all(|reading| reading.slot == Slot::Head),
                "{text}"
            );
        }
        // A member in lower case is one where separators set it in the list.
        let lower = readings(
            "hotels in cities like Alpha, beta and Gamma.",
            &[("Alpha", Loc), ("beta", Loc), ("Gamma", Loc)],
        );
        assert!(
            lower
                .iter()
                .all(|reading| reading.listed && reading.kind.as_deref() == Some("a city")),
            "{lower:?}"
        );
        // A title right before a name, and a name after a count, modify what follows.
        let titled = readings(
            "He lost to former President Alpha Beta in 2016, and owns three Oslo cafés.",
            &[
                ("President", EntityType::Dem),
                ("Alpha Beta", EntityType::Person),
                ("Oslo", Loc),
            ],
        );
        assert_eq!(titled[0].slot, Slot::Modifier);
        assert_eq!(titled[2].slot, Slot::Modifier);
        // `series` is singular too: alone, its name is an apposition as any kind's.
        let alone = readings(
            "the comedy series Alpha Beta, which ran for years",
            &[("Alpha Beta", Misc)],
        );
        assert_eq!(alone[0].slot, Slot::Apposition);
        // A singular kind heads no list.
        let singular = readings(
            "In the film Alpha, Beta plays a spy.",
            &[("Alpha", Misc), ("Beta", Misc)],
        );
        assert_eq!(singular[0].slot, Slot::Apposition);
        assert_eq!(singular[1].kind, None);
    }

    #[test]
    fn a_kind_noun_names_what_follows_a_naming_word() {
        for (text, span, kind) in [
            ("a second album entitled Alpha, which", "Alpha", "an album"),
            (
                "a five-track EP titled \"Alpha\" and a tour",
                "Alpha",
                "an EP",
            ),
            (
                "a three-piece punk band called Alpha in 1981",
                "Alpha",
                "a punk band",
            ),
            (
                "in a village known as Alpha Beta.",
                "Alpha Beta",
                "a village",
            ),
            (
                "wrote science fiction novels such as Alpha.",
                "Alpha",
                "a science fiction novel",
            ),
        ] {
            let got = reading(text, span, EntityType::Misc);
            assert_eq!(got.kind.as_deref(), Some(kind), "{text}");
        }
        assert_eq!(
            reading(
                "a tribute to his father titled Alpha",
                "Alpha",
                EntityType::Misc
            )
            .kind,
            None
        );
    }

    /// The text with what a described reading leaves out taken out.
    fn without(text: &str, reading: &Reading) -> String {
        let Slot::Described { start, end } = reading.slot else {
            panic!("{text}: {:?}", reading.slot);
        };
        let chars: Vec<char> = text.chars().collect();
        chars[..start].iter().chain(&chars[end..]).collect()
    }

    #[test]
    fn a_time_or_a_short_phrase_may_stand_before_a_naming_word() {
        for (text, span, kind) in [
            (
                "They issued a mixtape in 2011 titled Zorbl.",
                "Zorbl",
                "a mixtape",
            ),
            (
                "a novella in March 1931 entitled Velt Road",
                "Velt Road",
                "a novella",
            ),
            (
                "the 1999 tribute album to her mother titled Velt Songs: A Life",
                "Velt Songs: A Life",
                "an album",
            ),
            (
                "a short film by Krell titled Quill.",
                "Quill",
                "a short film",
            ),
            ("an album with a song titled Quill.", "Quill", "a song"),
        ] {
            let got = reading(text, span, EntityType::Misc);
            assert_eq!(got.kind.as_deref(), Some(kind), "{text}");
        }
        // `called` may name what the phrase speaks of; a phrase that holds a clause is none.
        for (text, span) in [
            ("a film about a dog called Rex.", "Rex"),
            ("an album he made in 1990 titled Quill.", "Quill"),
        ] {
            assert_eq!(reading(text, span, EntityType::Misc).kind, None, "{text}");
        }
    }

    #[test]
    fn a_plural_kind_before_a_participle_clause_heads_the_list_after_it() {
        use EntityType::{Datetime, Misc, Org};
        let text = "She wrote four radio plays staged between 1950 and 1961: Zorba Nights, Velt \
                    and The Return of Quill. Of the four, Velt ran longest.";
        let got = readings(
            text,
            &[
                ("Zorba Nights", Misc),
                ("Velt", Misc),
                ("The Return of Quill", Misc),
            ],
        );
        for reading in &got {
            assert_eq!(reading.kind.as_deref(), Some("a radio play"), "{text}");
            assert_eq!(reading.slot, Slot::Apposition, "{text}");
        }
        // After a comma, where the count is the number of titles to the end of the sentence:
        // each read, and each keeps its place beside its year.
        let text = "the band's two studio albums issued by Krell Records, Alpha (1990) and Beta \
                    Gamma (1992).";
        let got = readings(
            text,
            &[
                ("Krell Records", Org),
                ("Alpha", Misc),
                ("1990", Datetime),
                ("Beta Gamma", Misc),
                ("1992", Datetime),
            ],
        );
        for reading in [&got[1], &got[3]] {
            assert_eq!(reading.kind.as_deref(), Some("a studio album"), "{text}");
            assert_eq!(reading.slot, Slot::Head, "{text}");
        }
        for text in [
            // A clause of its own, a subject after the comma, a count that does not match.
            "the plays he wrote in 1950: Zorba was the first.",
            "After two albums released on Krell, Zorba split.",
            "After two albums released on Krell, Zorba and Velt split.",
            "the three albums released on Krell, Zorba and Velt.",
        ] {
            let got = reading(text, "Zorba", Misc);
            assert_eq!(got.kind, None, "{text}");
        }
    }

    #[test]
    fn a_list_after_an_opener_is_left_out_only_before_punctuation() {
        let open = readings(
            "He played on sites such as Zorbnet and then moved on.",
            &[("Zorbnet", EntityType::Misc)],
        );
        assert_eq!(open[0].kind.as_deref(), Some("a site"));
        assert_eq!(open[0].slot, Slot::Head);
        let closed = readings(
            "He played on sites such as Zorbnet, and then moved on.",
            &[("Zorbnet", EntityType::Misc)],
        );
        assert_eq!(closed[0].slot, Slot::Apposition);
    }

    #[test]
    fn a_name_in_lower_case_or_without_capitals_follows_its_kind() {
        for (text, span, kind) in [
            ("the short film zorbl (2003).", "zorbl", "a short film"),
            ("the news blog $velt, she wrote", "$velt", "a news blog"),
            ("she released the EP \"星光\" under", "星光", "an EP"),
            (
                "the music company 銀河音樂 which",
                "銀河音樂",
                "a music company",
            ),
        ] {
            let got = reading(text, span, EntityType::Misc);
            assert_eq!(got.kind.as_deref(), Some(kind), "{text}");
            assert_eq!(got.slot, Slot::Apposition, "{text}");
        }
        for (text, span) in [
            ("the film industry awards", "industry"),
            ("the films zorbl, velt.", "zorbl"),
            ("to record zorbl.", "zorbl"),
        ] {
            assert_eq!(reading(text, span, EntityType::Misc).kind, None, "{text}");
        }
        // A name in lower case modifies the noun after `other`, as any name does.
        assert_eq!(
            reading("along with other zorbl writers", "zorbl", EntityType::Org).slot,
            Slot::Modifier
        );
    }

    #[test]
    fn a_kind_of_his_before_a_comma_names_the_name_after_it() {
        let text = "A novel of hers, \"Quill Road\", was adapted for radio.";
        let got = reading(text, "Quill Road", EntityType::Misc);
        assert_eq!(got.kind.as_deref(), Some("a novel"));
        assert_eq!(
            without(text, &got),
            "A novel of hers was adapted for radio."
        );
        let text = "He wrote a song of his, Velt, which sold well.";
        let got = reading(text, "Velt", EntityType::Misc);
        assert_eq!(
            without(text, &got),
            "He wrote a song of his, which sold well."
        );
        let text = "He sang on his Zorblax Records debut, Velt.";
        let got = reading(text, "Velt", EntityType::Misc);
        assert_eq!(got.kind.as_deref(), Some("a record"));
        assert_eq!(without(text, &got), "He sang on his Zorblax Records debut.");
        for text in [
            "A friend of hers, Velt, was there.",
            "After the debut, Velt Records grew.",
            "on his own Records debut, Velt.",
        ] {
            assert_eq!(reading(text, "Velt", EntityType::Misc).kind, None, "{text}");
        }
    }

    #[test]
    fn the_kind_before_of_names_the_name_after_it() {
        // What it says is true of the mention, left out with `of`; of the entity only where no
        // hierarchy knows the name (`the province of ⟨…⟩` may share its name with a city).
        for (text, span, entity_type, kind, left) in [
            (
                "The festival of Zorbfest is held in May.",
                "Zorbfest",
                EntityType::Misc,
                "a festival",
                "The festival is held in May.",
            ),
            (
                "She moved to the town of Velt, where",
                "Velt",
                EntityType::Loc,
                "a town",
                "She moved to the town, where",
            ),
        ] {
            let got = reading(text, span, entity_type);
            assert_eq!(got.kind, None, "{text}");
            assert_eq!(got.implied.as_deref(), Some(kind), "{text}");
            assert_eq!(without(text, &got), left, "{text}");
        }
        assert_eq!(
            reading(
                "a colony known as Nova Zorbia.",
                "Nova Zorbia",
                EntityType::Loc
            )
            .kind
            .as_deref(),
            Some("a colony")
        );
        // A role, a part or a place's part, a noun after another word, or another type.
        for (text, span, entity_type) in [
            ("the president of Zorbia", "Zorbia", EntityType::Loc),
            ("the capital of Zorbia", "Zorbia", EntityType::Loc),
            ("the largest city of Zorbia", "Zorbia", EntityType::Loc),
            ("a town of Zorbia", "Zorbia", EntityType::Loc),
            ("the festival of Zorbia", "Zorbia", EntityType::Loc),
            ("the city of Velt Falls", "Velt", EntityType::Loc),
        ] {
            let got = reading(text, span, entity_type);
            assert_eq!(got.kind, None, "{text}");
            assert_eq!(got.implied, None, "{text}");
            assert_eq!(got.slot, Slot::Head, "{text}");
        }
    }

    #[test]
    fn a_role_or_a_voice_on_a_title_makes_it_a_show() {
        for text in [
            "She voiced Captain Zorb on Krell Patrol.",
            "He plays the role of Quill Amber on Krell Patrol",
            "Her best known role was Quill Amber (Mother) on Krell Patrol.",
            "a recurring role on Krell Patrol.",
        ] {
            assert_eq!(
                reading(text, "Krell Patrol", EntityType::Misc)
                    .implied
                    .as_deref(),
                Some("a show"),
                "{text}"
            );
        }
        for text in [
            "He played Bach on the Krell Patrol.",
            "the role of the Zorb on Krell Patrol.",
        ] {
            assert_eq!(
                reading(text, "Krell Patrol", EntityType::Misc).implied,
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn an_aside_in_brackets_ends_no_list_a_plural_kind_heads() {
        use EntityType::{Datetime, Misc, Org};
        let text = "She wrote the novels Quorn (1990), Velt Road (set in Oslo in 1920) and Brisk \
                    (with Zorb Press).";
        let got = readings(
            text,
            &[
                ("Quorn", Misc),
                ("1990", Datetime),
                ("Velt Road", Misc),
                ("1920", Datetime),
                ("Brisk", Misc),
                ("Zorb Press", Org),
            ],
        );
        for reading in [&got[0], &got[2], &got[4]] {
            assert_eq!(reading.kind.as_deref(), Some("a novel"), "{text}");
            assert_eq!(reading.slot, Slot::Head, "{text}");
        }
        // A name in the aside is no member.
        assert_eq!(got[5].kind, None);
        // What follows an aside is a member only after a list separator; a singular kind heads
        // no list.
        for (text, spans) in [
            (
                "the films Quorn (1997) with Velt in it.",
                &[("Quorn", Misc), ("1997", Datetime), ("Velt", Misc)][..],
            ),
            (
                "the film Quorn (1997), Velt and Brisk.",
                &[("Quorn", Misc), ("1997", Datetime), ("Velt", Misc)][..],
            ),
        ] {
            let got = readings(text, spans);
            assert_eq!(got[2].kind, None, "{text}");
        }
    }

    #[test]
    fn a_plural_kind_that_includes_names_is_their_kind() {
        use EntityType::{Datetime, Misc};
        for (text, spans, kind) in [
            (
                "Notable films based on Quill's stories include  Zorba Nights (1981), Velt and \
                 Brisk.",
                &[
                    ("Zorba Nights", Misc),
                    ("1981", Datetime),
                    ("Velt", Misc),
                    ("Brisk", Misc),
                ][..],
                "a film",
            ),
            (
                "Her later albums included Zorba.",
                &[("Zorba", Misc)][..],
                "an album",
            ),
            (
                "His other roles in animated series and films included Zorba, Velt and Brisk.",
                &[("Zorba", Misc), ("Velt", Misc), ("Brisk", Misc)][..],
                "a production",
            ),
        ] {
            let got = readings(text, spans);
            for reading in got.iter().filter(|reading| reading.listed) {
                assert_eq!(reading.kind.as_deref(), Some(kind), "{text}");
                // Left out, `include` would lose its object.
                assert_eq!(reading.slot, Slot::Head, "{text}");
            }
            assert_eq!(
                got.iter().filter(|reading| reading.listed).count(),
                spans.len() - usize::from(spans.len() == 4),
                "{text}"
            );
        }
        for text in [
            // The subject's head is no kind noun, nor a plural one; a clause of its own.
            "Awards given to films include Zorba.",
            "His best film includes Zorba.",
            "He says films include Zorba.",
            // Two kinds with no phrase true of both.
            "His films and albums include Zorba.",
        ] {
            assert_eq!(reading(text, "Zorba", Misc).kind, None, "{text}");
        }
    }

    #[test]
    fn two_plural_kinds_name_what_is_true_of_both() {
        for (text, entity_type, kind) in [
            (
                "in towns and villages such as Zorbholm.",
                EntityType::Loc,
                "a settlement",
            ),
            (
                "She wrote novels and memoirs, including Zorbholm.",
                EntityType::Misc,
                "a written work",
            ),
        ] {
            assert_eq!(
                reading(text, "Zorbholm", entity_type).kind.as_deref(),
                Some(kind),
                "{text}"
            );
        }
        for text in [
            "in films and towns such as Zorbholm.",
            "He sold films and films such as Zorbholm.",
        ] {
            assert_eq!(
                reading(text, "Zorbholm", EntityType::Misc).kind,
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn a_debut_on_a_stage_or_a_screen_is_in_a_production() {
        for text in [
            "Her Broadway debut came in Zorba Nights at the Velt Theatre.",
            "His screen debut was in Zorba Nights (1990).",
            "She made her stage debut in the Zorba Nights.",
        ] {
            assert_eq!(
                reading(text, "Zorba Nights", EntityType::Misc)
                    .implied
                    .as_deref(),
                Some("a production"),
                "{text}"
            );
        }
        for text in [
            "He made his debut in Zorba Nights.",
            "His league debut came in Zorba Nights.",
        ] {
            assert_eq!(
                reading(text, "Zorba Nights", EntityType::Misc).implied,
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn a_display_or_a_craft_described_after_a_name_is_its_kind() {
        for (text, kind, left) in [
            (
                "She became part of Zorba Nights, a permanent display at the museum.",
                "a display",
                "She became part of a permanent display at the museum.",
            ),
            (
                "a computer that ran the Zorba Nights: the fast interplanetary spacecraft \
                 belonging to Velt.",
                "a spacecraft",
                "a computer that ran the fast interplanetary spacecraft belonging to Velt.",
            ),
        ] {
            let got = reading(text, "Zorba Nights", EntityType::Misc);
            assert_eq!(got.implied.as_deref(), Some(kind), "{text}");
            assert_eq!(without(text, &got), left, "{text}");
        }
        for text in [
            // A verb after a colon, `the` after a comma (the next member of a list), a verb
            // before the name.
            "He joined Zorba Nights: the band toured Europe.",
            "He sailed on Zorba Nights, the ship of the line.",
            "The museum displays Zorba Nights.",
        ] {
            let got = reading(text, "Zorba Nights", EntityType::Misc);
            assert_eq!(got.kind, None, "{text}");
            assert_eq!(got.implied, None, "{text}");
        }
    }

    #[test]
    fn a_participle_with_an_object_is_a_verb_after_a_name() {
        let chars = |text: &str| text.chars().collect::<Vec<char>>();
        assert!(followed_by_verb(&chars(" leading a crew")));
        assert!(followed_by_verb(&chars(" claiming the payment")));
        assert!(!followed_by_verb(&chars(" building was sold")));
        assert!(!followed_by_verb(&chars(" meeting in May")));
        for text in [
            "In 1990 she created and executive produced Zorba Nights leading a crew.",
            "She co-produced Zorba Nights.",
        ] {
            let got = reading(text, "Zorba Nights", EntityType::Misc);
            assert_eq!(got.implied.as_deref(), Some("a production"), "{text}");
            assert_eq!(got.slot, Slot::Head, "{text}");
        }
        assert_eq!(
            reading("the Velt meeting", "Velt", EntityType::Org).slot,
            Slot::Modifier
        );
    }

    #[test]
    fn what_a_team_is_relegated_to_is_a_division() {
        for (text, entity_type) in [
            (
                "That season Velt was relegated to Zorb Two.",
                EntityType::Misc,
            ),
            (
                "At the end of it Velt was relegated in Zorb Two.",
                EntityType::Misc,
            ),
            ("The club was relegated from the Zorb Two.", EntityType::Org),
        ] {
            assert_eq!(
                reading(text, "Zorb Two", entity_type).implied.as_deref(),
                Some("a division"),
                "{text}"
            );
        }
        for text in [
            "He was promoted to Zorb Two.",
            "He was relegated by Zorb Two.",
        ] {
            assert_eq!(
                reading(text, "Zorb Two", EntityType::Misc).implied,
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn chairing_a_body_or_a_career_at_it_makes_it_an_organization() {
        for text in [
            "She was elected Chairman of Zorb Holdings in 2004.",
            "He was the Vice-Chairman of the Zorb Holdings until 2015.",
            "She began her career at Zorb Holdings in Oslo.",
            "He served as president of the Zorb Holdings.",
        ] {
            assert_eq!(
                reading(text, "Zorb Holdings", EntityType::Org)
                    .implied
                    .as_deref(),
                Some("an organization"),
                "{text}"
            );
        }
    }

    #[test]
    fn playing_a_position_for_a_name_makes_it_a_team() {
        for text in [
            "He is a footballer who plays as a goalkeeper for Velt 96.",
            "She played as defensive midfielder for the Velt 96.",
        ] {
            assert_eq!(
                reading(text, "Velt 96", EntityType::Org).implied.as_deref(),
                Some("a team"),
                "{text}"
            );
        }
        // `as` too far from `for`, or no verb of playing before it.
        for text in [
            "He is known as the best player in the whole league for Velt 96.",
            "She worked as a nurse for Velt 96.",
        ] {
            assert_ne!(
                reading(text, "Velt 96", EntityType::Org).implied.as_deref(),
                Some("a team"),
                "{text}"
            );
        }
    }

    #[test]
    fn the_names_listed_after_a_verbs_object_are_of_its_kind() {
        let read = readings(
            "He played for Velt, Zorb Rovers and Alpha Town in Oslo.",
            &[
                ("Velt", EntityType::Org),
                ("Zorb Rovers", EntityType::Org),
                ("Alpha Town", EntityType::Org),
                ("Oslo", EntityType::Loc),
            ],
        );
        let implied: Vec<Option<&str>> = read
            .iter()
            .map(|reading| reading.implied.as_deref())
            .collect();
        assert_eq!(
            implied,
            [Some("a team"), Some("a team"), Some("a team"), None]
        );
        // Not past a word that ends the list.
        let read = readings(
            "He played for Velt when Zorb Rovers won.",
            &[("Velt", EntityType::Org), ("Zorb Rovers", EntityType::Org)],
        );
        assert_eq!(read[1].implied, None);
    }
}
