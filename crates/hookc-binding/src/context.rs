//! Why a host language's value in a context has no JSON form, said once for
//! every binding in that language's words (`None` and `dict` for Python,
//! `null` and plain objects for JavaScript).
//!
//! A binding reads its language's objects path by path (Python's
//! `lookup.rs`, Node's `lookup.rs`) and converts only the values a policy
//! reads; what it cannot convert is a [`NotJson`] naming the context path.

use hookc_runtime::limits::{MAX_CONTEXT_DEPTH, MAX_HOST_VALUES};
use std::fmt;

/// The host language whose values a binding converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// Python (`hookc-python`).
    Python,
    /// JavaScript (`hookc-node`).
    JavaScript,
}

impl Language {
    /// The values of the language that have a JSON form.
    fn json_values(self) -> &'static str {
        match self {
            Language::Python => "None, bool, int, float, str, list, tuple or a dict with str keys",
            Language::JavaScript => {
                "null, booleans, numbers, strings, arrays or plain objects (a `toJSON` method is not called)"
            }
        }
    }

    /// The numbers of the language JSON cannot hold.
    fn unholdable_numbers(self) -> &'static str {
        match self {
            Language::Python => "no NaN or infinity; integers up to a double's range",
            Language::JavaScript => "no NaN or infinity; a BigInt only up to 2^64",
        }
    }

    /// What the language calls the containers a context nests.
    fn containers(self) -> &'static str {
        match self {
            Language::Python => "lists and mappings",
            Language::JavaScript => "arrays and objects",
        }
    }
}

/// A value in a context with no JSON form, found at `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotJson {
    /// Where, as a context path (`error.headers[2]`).
    pub path: String,
    /// What is wrong there.
    pub problem: Problem,
    /// The language whose value it is.
    pub language: Language,
}

/// What is wrong with a [`NotJson`] value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A type JSON does not have (a `set`, a function, a `Date`...), or a
    /// mapping key that is not a string; `found` says what it is.
    Type {
        /// What was found (`a set`, `a function`).
        found: String,
    },
    /// A number JSON cannot hold (NaN, an infinity, too large an integer);
    /// `repr` is how the language prints it.
    Number {
        /// The number as the language writes it.
        repr: String,
    },
    /// Containers nested deeper than [`MAX_CONTEXT_DEPTH`].
    TooDeep,
    /// An array or object of more than [`MAX_HOST_VALUES`] elements or
    /// members; `len` says how many.
    TooLarge {
        /// Its length.
        len: u64,
    },
}

impl NotJson {
    /// The same error at `base` + its path: a converter names where it
    /// found the value relative to the value it was given (`.key[2]`), so
    /// no path is spelled out unless there is an error.
    pub fn under(mut self, base: &str) -> NotJson {
        self.path.insert_str(0, base);
        self
    }

    /// Whether the value's type is wrong (Python raises `TypeError`), not
    /// its value (`ValueError`).
    pub fn is_type(&self) -> bool {
        matches!(self.problem, Problem::Type { .. })
    }
}

impl fmt::Display for NotJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (path, lang) = (&self.path, self.language);
        match &self.problem {
            Problem::Type { found } => write!(
                f,
                "the context value at `{path}` is {found}, which has no JSON form: use {}",
                lang.json_values()
            ),
            Problem::Number { repr } => write!(
                f,
                "the context value at `{path}` is {repr}, which JSON cannot hold ({})",
                lang.unholdable_numbers()
            ),
            Problem::TooDeep => write!(
                f,
                "the context nests deeper than {MAX_CONTEXT_DEPTH} {} at `{path}` \
                 (as JSON text it would be refused too)",
                lang.containers()
            ),
            Problem::TooLarge { len } => write!(
                f,
                "the context value at `{path}` has {len} elements or members, more than the \
                 {MAX_HOST_VALUES} a context may hold"
            ),
        }
    }
}

impl std::error::Error for NotJson {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_names_its_own_values() {
        let e = |language| NotJson {
            path: ".b".to_owned(),
            problem: Problem::Type {
                found: "a set".to_owned(),
            },
            language,
        };
        let py = e(Language::Python).under("a").to_string();
        assert_eq!(
            py,
            "the context value at `a.b` is a set, which has no JSON form: use None, bool, int, \
             float, str, list, tuple or a dict with str keys"
        );
        assert!(e(Language::JavaScript)
            .to_string()
            .contains("null, booleans, numbers"));
        assert!(e(Language::Python).is_type());
    }
}
