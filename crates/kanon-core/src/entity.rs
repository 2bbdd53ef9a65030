//! [`EntityType`]: the eight TAB categories a span to mask belongs to.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The eight entity categories of the Text Anonymization Benchmark (TAB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum EntityType {
    /// Names of people, including initials and nicknames.
    Person,
    /// Identifying numbers and codes: case and application numbers, phone numbers, licence plates.
    Code,
    /// Places: cities, countries, addresses, named landmarks.
    Loc,
    /// Organisations: companies, institutions, parties, schools, courts.
    Org,
    /// Demographic attributes: nationality, ethnicity, religion, job title, education, age.
    Dem,
    /// Dates, times and durations at any precision (`1992`, `5 August 1992`).
    Datetime,
    /// Meaningful quantities: amounts of money, percentages.
    Quantity,
    /// Identifying information of no other type (products, events, titles of works).
    Misc,
}

impl EntityType {
    /// Every type, in the order of their [`EntityType::to_u8`] codes.
    pub const ALL: [EntityType; 8] = [
        EntityType::Person,
        EntityType::Code,
        EntityType::Loc,
        EntityType::Org,
        EntityType::Dem,
        EntityType::Datetime,
        EntityType::Quantity,
        EntityType::Misc,
    ];

    /// The TAB name of the type (`PERSON`, `DATETIME`), as serialized and parsed.
    pub fn as_str(self) -> &'static str {
        match self {
            EntityType::Person => "PERSON",
            EntityType::Code => "CODE",
            EntityType::Loc => "LOC",
            EntityType::Org => "ORG",
            EntityType::Dem => "DEM",
            EntityType::Datetime => "DATETIME",
            EntityType::Quantity => "QUANTITY",
            EntityType::Misc => "MISC",
        }
    }

    /// A compact code for on-disk tables.
    pub fn to_u8(self) -> u8 {
        self as u8
    }

    /// The type of an [`EntityType::to_u8`] code; `None` for a code past the last type.
    pub fn from_u8(value: u8) -> Option<Self> {
        Self::ALL.get(usize::from(value)).copied()
    }
}

impl fmt::Display for EntityType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EntityType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|t| t.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown entity type {s:?} (expected one of PERSON, CODE, LOC, ORG, DEM, DATETIME, QUANTITY, MISC)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_u8_and_str() {
        for t in EntityType::ALL {
            assert_eq!(EntityType::from_u8(t.to_u8()), Some(t));
            assert_eq!(t.as_str().parse::<EntityType>(), Ok(t));
        }
        assert_eq!(EntityType::from_u8(8), None);
        assert!("PLACE".parse::<EntityType>().is_err());
    }

    #[test]
    fn serializes_as_tab_names() {
        assert_eq!(
            serde_json::to_string(&EntityType::Datetime).unwrap(),
            "\"DATETIME\""
        );
    }
}
