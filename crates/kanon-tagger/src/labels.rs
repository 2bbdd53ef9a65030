//! Label schemes: typed BIO labels (`B-PERSON`, `I-DATETIME`, …, so the sanitizer knows what it
//! replaces) or the paper's plain `O / B-MASK / I-MASK`.

use kanon_core::EntityType;
use serde::{Deserialize, Serialize};

/// Which labels a tagger's pieces get: the label ids are the indices of [`LabelScheme::names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelScheme {
    /// `O`, then `B-`/`I-` for each of TAB's eight entity types.
    #[default]
    Typed,
    /// `O`, `B-MASK`, `I-MASK`.
    Mask,
}

kanon_core::named_choices!(LabelScheme, "scheme", [Typed = "typed", Mask = "mask"]);

/// A BIO label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    /// `O`: not part of a span.
    Outside,
    /// `B-`: a span's first piece, of a type (`None` in the mask scheme).
    Begin(Option<EntityType>),
    /// `I-`: a later piece of the span begun before it.
    Inside(Option<EntityType>),
}

impl LabelScheme {
    /// How many labels the scheme has: the width of the tagger's head.
    pub fn num_labels(self) -> usize {
        match self {
            LabelScheme::Typed => 1 + 2 * EntityType::ALL.len(),
            LabelScheme::Mask => 3,
        }
    }

    /// The label of an id; `None` when out of range.
    pub fn label(self, id: u32) -> Option<Label> {
        let id = id as usize;
        if id == 0 {
            return Some(Label::Outside);
        }
        if id >= self.num_labels() {
            return None;
        }
        let entity_type = match self {
            LabelScheme::Typed => Some(EntityType::ALL[(id - 1) / 2]),
            LabelScheme::Mask => None,
        };
        Some(if (id - 1).is_multiple_of(2) {
            Label::Begin(entity_type)
        } else {
            Label::Inside(entity_type)
        })
    }

    /// The id of a label; in the mask scheme every type is MASK.
    pub fn id(self, label: Label) -> u32 {
        let (inside, entity_type) = match label {
            Label::Outside => return 0,
            Label::Begin(t) => (false, t),
            Label::Inside(t) => (true, t),
        };
        let base = match self {
            LabelScheme::Typed => {
                1 + 2 * u32::from(entity_type.unwrap_or(EntityType::Misc).to_u8())
            }
            LabelScheme::Mask => 1,
        };
        base + u32::from(inside)
    }

    /// Label names by id: `O`, `B-PERSON`, … (saved beside a model so inference reads them back).
    pub fn names(self) -> Vec<String> {
        (0..self.num_labels() as u32)
            .map(|id| match self.label(id).expect("in range") {
                Label::Outside => "O".to_owned(),
                Label::Begin(t) => format!("B-{}", t.map_or("MASK", EntityType::as_str)),
                Label::Inside(t) => format!("I-{}", t.map_or("MASK", EntityType::as_str)),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_labels_round_trip() {
        for scheme in [LabelScheme::Typed, LabelScheme::Mask] {
            for id in 0..scheme.num_labels() as u32 {
                assert_eq!(scheme.id(scheme.label(id).unwrap()), id);
            }
            assert_eq!(scheme.label(scheme.num_labels() as u32), None);
        }
        assert_eq!(
            LabelScheme::Typed.names()[1..5],
            ["B-PERSON", "I-PERSON", "B-CODE", "I-CODE"]
        );
        assert_eq!(LabelScheme::Mask.names(), ["O", "B-MASK", "I-MASK"]);
        assert_eq!(LabelScheme::Mask.id(Label::Begin(Some(EntityType::Loc))), 1);
    }
}
