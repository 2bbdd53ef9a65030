//! kanon's entity types under Presidio's names, where Presidio has one.
//!
//! | kanon (TAB) | Presidio | why |
//! | --- | --- | --- |
//! | `PERSON` | `PERSON` | the same |
//! | `LOC` | `LOCATION` | the same |
//! | `ORG` | `ORGANIZATION` | the name Presidio's spaCy and transformers configs give `ORG` |
//! | `DATETIME` | `DATE_TIME` | the same |
//! | `DEM` | `NRP` | Presidio's "nationality, religious or political group"; kanon's DEM also holds job titles, education and age |
//! | `CODE` | `CODE` | no generic Presidio type (Presidio names each kind: `US_SSN`, `PHONE_NUMBER`, …) |
//! | `QUANTITY` | `QUANTITY` | none in Presidio |
//! | `MISC` | `MISC` | none in Presidio; an untyped span (a tagger of the `mask` scheme) is MISC too |
//!
//! Requests may name either form (`LOC` or `LOCATION`); answers use the Presidio name.

use kanon_core::EntityType;

/// The Presidio name of a kanon type (`None`: an untyped span, `MISC`).
pub fn presidio_name(entity_type: Option<EntityType>) -> &'static str {
    match entity_type {
        Some(EntityType::Person) => "PERSON",
        Some(EntityType::Loc) => "LOCATION",
        Some(EntityType::Org) => "ORGANIZATION",
        Some(EntityType::Datetime) => "DATE_TIME",
        Some(EntityType::Dem) => "NRP",
        Some(EntityType::Code) => "CODE",
        Some(EntityType::Quantity) => "QUANTITY",
        Some(EntityType::Misc) | None => "MISC",
    }
}

/// Every entity the service reports, by its Presidio name, in kanon's type order.
pub fn supported() -> Vec<&'static str> {
    EntityType::ALL
        .iter()
        .map(|&t| presidio_name(Some(t)))
        .collect()
}

/// The kanon type of a requested name: Presidio's (`LOCATION`) or kanon's (`LOC`), any case.
pub fn parse(name: &str) -> Option<EntityType> {
    EntityType::ALL.iter().copied().find(|&t| {
        presidio_name(Some(t)).eq_ignore_ascii_case(name) || t.as_str().eq_ignore_ascii_case(name)
    })
}

/// The kanon type of an analyzer result another analyzer may have written: a name of
/// [`parse`], else MISC (`PHONE_NUMBER`, `EMAIL_ADDRESS`, … are masked as MISC would be, and
/// the sanitizer labels them `MISC`).
pub fn sanitizer_type(name: &str) -> EntityType {
    parse(name).unwrap_or(EntityType::Misc)
}

/// Checks a request's `entities`: each a name [`parse`] reads, or an error naming the unknown
/// ones and listing what is supported.
pub fn parse_all(names: &[String]) -> Result<Vec<EntityType>, String> {
    let mut types = Vec::with_capacity(names.len());
    let mut unknown = Vec::new();
    for name in names {
        match parse(name) {
            Some(t) => types.push(t),
            None => unknown.push(format!("{name:?}")),
        }
    }
    if unknown.is_empty() {
        Ok(types)
    } else {
        Err(format!(
            "unknown entity type {} (supported: {})",
            unknown.join(", "),
            supported().join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_reads_back_from_both_names() {
        for t in EntityType::ALL {
            assert_eq!(parse(presidio_name(Some(t))), Some(t));
            assert_eq!(parse(t.as_str()), Some(t));
        }
        assert_eq!(parse("date_time"), Some(EntityType::Datetime));
        assert_eq!(sanitizer_type("PHONE_NUMBER"), EntityType::Misc);
        let err = parse_all(&["PERSON".into(), "PHONE".into()]).unwrap_err();
        assert!(
            err.starts_with("unknown entity type \"PHONE\" (supported: PERSON, CODE, LOCATION"),
            "{err}"
        );
    }
}
