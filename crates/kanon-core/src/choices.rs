//! Names for the choices kanon offers (a strategy, a format, a scheme): what the command line and
//! config files spell, defined once per enum by [`named_choices!`](crate::named_choices).
//!
//! ```
//! #[derive(Debug, Clone, Copy, PartialEq, Eq)]
//! enum Shape { Round, Square }
//! kanon_core::named_choices!(Shape, "shape", [Round = "round", Square = "square"]);
//!
//! assert_eq!("square".parse::<Shape>(), Ok(Shape::Square));
//! assert_eq!(Shape::Round.to_string(), "round");
//! assert_eq!(Shape::ALL, [Shape::Round, Shape::Square]);
//! assert_eq!(
//!     "oval".parse::<Shape>().unwrap_err(),
//!     "unknown shape \"oval\" (expected round or square)"
//! );
//! ```

/// `a`, `a or b`, `a, b or c`.
pub fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Gives a unit enum its names: `ALL` (every variant, in order), `as_str`, `Display` and
/// `FromStr`, whose error names what was asked for and lists the names.
#[macro_export]
macro_rules! named_choices {
    ($ty:ident, $what:literal, [$($variant:ident = $name:literal),+ $(,)?]) => {
        impl $ty {
            /// Every choice, in order.
            pub const ALL: [$ty; <[&str]>::len(&[$($name),+])] = [$($ty::$variant),+];

            /// The name the command line and config files spell.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = String;

            fn from_str(name: &str) -> ::std::result::Result<Self, String> {
                Self::ALL
                    .into_iter()
                    .find(|choice| choice.as_str() == name)
                    .ok_or_else(|| {
                        format!(
                            "unknown {} {name:?} (expected {})",
                            $what,
                            $crate::choices::one_of(&[$($name),+])
                        )
                    })
            }
        }
    };
}
