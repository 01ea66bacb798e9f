//! JSON kinds as a bitset: the checker's types and the `IsKind` test of the
//! bytecode both speak in them.

use std::fmt;

/// A set of JSON kinds. Ints and doubles are kept apart, as in CEL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kinds(u8);

impl Kinds {
    /// No kind: the type of nothing (an expression that always errors).
    pub const NONE: Kinds = Kinds(0);
    /// `null`
    pub const NULL: Kinds = Kinds(1);
    /// `bool`
    pub const BOOL: Kinds = Kinds(1 << 1);
    /// `int`
    pub const INT: Kinds = Kinds(1 << 2);
    /// `double`
    pub const DOUBLE: Kinds = Kinds(1 << 3);
    /// `string`
    pub const STRING: Kinds = Kinds(1 << 4);
    /// `list`
    pub const LIST: Kinds = Kinds(1 << 5);
    /// `object`
    pub const OBJECT: Kinds = Kinds(1 << 6);
    /// `int` or `double` (JSON Schema's `number`).
    pub const NUMBER: Kinds = Kinds(Self::INT.0 | Self::DOUBLE.0);
    /// Every kind.
    pub const ANY: Kinds = Kinds(0x7f);

    const NAMES: [(Kinds, &'static str); 7] = [
        (Kinds::NULL, "null"),
        (Kinds::BOOL, "bool"),
        (Kinds::INT, "int"),
        (Kinds::DOUBLE, "double"),
        (Kinds::STRING, "string"),
        (Kinds::LIST, "list"),
        (Kinds::OBJECT, "object"),
    ];

    /// Union.
    pub const fn or(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    /// Intersection.
    pub const fn and(self, other: Kinds) -> Kinds {
        Kinds(self.0 & other.0)
    }

    /// Whether the sets share a kind.
    pub const fn intersects(self, other: Kinds) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether every kind of `self` is in `other`.
    pub const fn within(self, other: Kinds) -> bool {
        self.0 & !other.0 == 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether this is every kind.
    pub const fn is_any(self) -> bool {
        self.0 == Self::ANY.0
    }

    /// The raw bits (stable: used in the artifact by later stages).
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// From raw bits; unknown bits are dropped.
    pub const fn from_bits(bits: u8) -> Kinds {
        Kinds(bits & Self::ANY.0)
    }

    /// Whether a value of kind `kind` (one kind) fits a declared type of
    /// these kinds, where an int-only type is JSON Schema's `integer`: an
    /// integral double (`2.0`, `integral`) fits it as well as an int
    /// (`docs/src/semantics.md#actions`). The value is kept as it is.
    pub const fn admits(self, kind: Kinds, integral: bool) -> bool {
        kind.within(self) || (integral && kind.0 == Self::DOUBLE.0 && self.intersects(Self::INT))
    }

    /// The kind named as in JSON Schema's `type` (`number` = int or double,
    /// `integer` = int, `array` = list).
    pub fn from_schema_name(name: &str) -> Option<Kinds> {
        Some(match name {
            "null" => Kinds::NULL,
            "boolean" => Kinds::BOOL,
            "integer" => Kinds::INT,
            "number" => Kinds::NUMBER,
            "string" => Kinds::STRING,
            "array" => Kinds::LIST,
            "object" => Kinds::OBJECT,
            _ => return None,
        })
    }
}

/// Whether a double is a whole number (JSON Schema's `integer`): finite,
/// with no fractional part.
pub fn is_integral(f: f64) -> bool {
    f.is_finite() && f.fract() == 0.0
}

impl Kinds {
    /// The set in the words of JSON and of action parameter types, for
    /// messages: `a string`, `an integer`, `a number` (int or double),
    /// `null or a string`; `nothing` for the empty set.
    pub fn json_phrase(self) -> String {
        let mut parts = Vec::new();
        for (k, phrase) in [
            (Kinds::NULL, "null"),
            (Kinds::BOOL, "a boolean"),
            (Kinds::INT, "an integer"),
            (Kinds::DOUBLE, "a number"),
            (Kinds::STRING, "a string"),
            (Kinds::LIST, "an array"),
            (Kinds::OBJECT, "an object"),
        ] {
            // An int-or-double set is one "number".
            if self.intersects(k) && !(k == Kinds::INT && self.intersects(Kinds::DOUBLE)) {
                parts.push(phrase);
            }
        }
        if parts.is_empty() {
            return "nothing".to_owned();
        }
        parts.join(" or ")
    }

    /// The set as a noun phrase: `a string`, `an int`, `a number`, `null`,
    /// `of type null | string`.
    pub fn with_article(self) -> String {
        let single = [
            (Kinds::NULL, "null"),
            (Kinds::BOOL, "a bool"),
            (Kinds::INT, "an int"),
            (Kinds::DOUBLE, "a double"),
            (Kinds::NUMBER, "a number"),
            (Kinds::STRING, "a string"),
            (Kinds::LIST, "a list"),
            (Kinds::OBJECT, "an object"),
        ];
        single
            .iter()
            .find(|(k, _)| *k == self)
            .map_or_else(|| format!("of type {self}"), |(_, n)| (*n).to_owned())
    }
}

impl fmt::Display for Kinds {
    /// `string`, `int | double`, `any`, `nothing`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_any() {
            return f.write_str("any");
        }
        if self.is_empty() {
            return f.write_str("nothing");
        }
        if *self == Kinds::NUMBER {
            return f.write_str("number");
        }
        let mut first = true;
        for (k, name) in Kinds::NAMES {
            if self.intersects(k) {
                if !first {
                    f.write_str(" | ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_display_names_the_set() {
        assert_eq!(Kinds::STRING.to_string(), "string");
        assert_eq!(Kinds::NUMBER.to_string(), "number");
        assert_eq!(Kinds::STRING.or(Kinds::NULL).to_string(), "null | string");
        assert_eq!(Kinds::ANY.to_string(), "any");
        assert_eq!(Kinds::INT.with_article(), "an int");
        assert_eq!(Kinds::INT.json_phrase(), "an integer");
        assert_eq!(Kinds::NUMBER.json_phrase(), "a number");
        assert_eq!(
            Kinds::STRING.or(Kinds::NULL).json_phrase(),
            "null or a string"
        );
        assert_eq!(Kinds::NONE.json_phrase(), "nothing");
        assert_eq!(
            Kinds::STRING.or(Kinds::NULL).with_article(),
            "of type null | string"
        );
    }

    #[test]
    fn schema_names_map_to_kinds() {
        assert_eq!(Kinds::from_schema_name("integer"), Some(Kinds::INT));
        assert_eq!(Kinds::from_schema_name("array"), Some(Kinds::LIST));
        assert_eq!(Kinds::from_schema_name("float"), None);
    }
}
