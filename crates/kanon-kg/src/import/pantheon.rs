//! Pantheon 1.0 (`pantheon.tsv`): notable people with birth city, country, year, gender and
//! occupation. Ids are `pantheon:{en_curid}`.

use std::path::PathBuf;

use super::source::{ImportOptions, InvalidLines, SourceData};
use crate::error::{Error, Result};
use crate::model::{Fact, Person, Property};

/// Pantheon's placeholders for "not known".
fn known(value: &str) -> Option<&str> {
    let v = value.trim();
    (!v.is_empty()
        && !matches!(
            v.to_ascii_lowercase().as_str(),
            "unknown" | "other" | "unk" | "none"
        ))
    .then_some(v)
}

/// Birth years: `1809`, `-384`, `1237?` (uncertain, kept), `530s` (a decade, kept as written).
fn birth_year(value: &str) -> Option<String> {
    let v = known(value)?.trim_end_matches('?');
    let digits = v.trim_start_matches('-').trim_end_matches('s');
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(v.to_owned())
}

/// Imports Pantheon files: a person per row with their birth, country, gender and occupation.
pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let mut invalid = InvalidLines::new(options);
    let mut people = Vec::new();
    for path in inputs {
        let reader = super::source::open_maybe_compressed(path)?;
        let mut tsv = csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .quoting(false)
            .flexible(true)
            .from_reader(reader);
        let headers = tsv
            .headers()
            .map_err(|e| Error::invalid(path, 1, "header", e.to_string()))?
            .clone();
        let column = |name: &str| headers.iter().position(|h| h == name);
        let id_col = column("en_curid").ok_or_else(|| {
            Error::invalid(
                path,
                1,
                "en_curid",
                "missing column (is this pantheon.tsv?)",
            )
        })?;
        let name_col = column("name").ok_or_else(|| {
            Error::invalid(path, 1, "name", "missing column (is this pantheon.tsv?)")
        })?;
        let optional = [
            (column("birthcity"), Property::BirthPlace),
            (column("countryName"), Property::BirthCountry),
            (column("gender"), Property::Sex),
            (column("occupation"), Property::Occupation),
        ];
        let year_col = column("birthyear");
        for (i, record) in tsv.records().enumerate() {
            let line = i as u64 + 2;
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    invalid.handle(Error::invalid(path, line, "record", e.to_string()))?;
                    continue;
                }
            };
            let (Some(id), Some(name)) = (
                record.get(id_col).and_then(known),
                record.get(name_col).and_then(known),
            ) else {
                let field = if record.get(id_col).and_then(known).is_none() {
                    "en_curid"
                } else {
                    "name"
                };
                invalid.handle(Error::invalid(path, line, field, "empty or missing"))?;
                continue;
            };
            if !id.bytes().all(|b| b.is_ascii_digit()) {
                invalid.handle(Error::invalid(
                    path,
                    line,
                    "en_curid",
                    format!("not a number: {id:?}"),
                ))?;
                continue;
            }
            let mut person = Person::new(format!("pantheon:{id}"), name);
            if let Some(year) = year_col.and_then(|c| record.get(c)).and_then(birth_year) {
                person.facts.push(Fact::new(Property::BirthDate, year));
            }
            for (col, property) in &optional {
                if let Some(value) = col.and_then(|c| record.get(c)).and_then(known) {
                    let value = if *property == Property::Occupation {
                        value.to_lowercase()
                    } else {
                        value.to_owned()
                    };
                    person.facts.push(Fact::new(property.clone(), value));
                }
            }
            people.push(person);
        }
    }
    let mut data = SourceData {
        people,
        ..SourceData::default()
    };
    data.report.skipped_invalid = invalid.count;
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn birth_years_handle_pantheon_quirks() {
        assert_eq!(birth_year("1809").as_deref(), Some("1809"));
        assert_eq!(birth_year("-384").as_deref(), Some("-384"));
        assert_eq!(birth_year("1237?").as_deref(), Some("1237"));
        assert_eq!(birth_year("530s").as_deref(), Some("530s"));
        assert_eq!(birth_year("Unknown"), None);
        assert_eq!(birth_year("c. 1200"), None);
    }
}
