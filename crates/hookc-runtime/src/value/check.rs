//! The run-time check of filled action parameters
//! (`docs/src/semantics.md#templates`): a parameter whose value holds a
//! template carries its declared type as a [`ValueCheck`], and a filled
//! value that does not pass it is an [`ActionError`], never an action.
//!
//! The VM checks filled values ([`crate::eval::vm::fill_action`]); the verifier
//! checks constant values with the same function ([`violation`]), so a
//! verified program never returns a value outside its declarations.

use crate::bytecode::{Program, ValueCheck};
use crate::value::{self, Val};
use serde_json::Value;
use thiserror::Error;

/// How many characters of a value an [`ActionError`] shows.
const SHOWN_CHARS: usize = 120;

/// A matched hook's action has a parameter whose filled value does not fit
/// the parameter's declared type: the evaluation fails rather than return
/// an action outside the policy's vocabulary. (Boxed, so that results
/// holding it stay small.)
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "hook `{}`: parameter `{}` of action `{}` is {}, not {}",
    .0.hook, .0.param, .0.action, .0.value, .0.expected
)]
pub struct ActionError(Box<Details>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Details {
    hook: String,
    action: String,
    param: String,
    value: String,
    expected: String,
}

impl ActionError {
    /// The matched hook's id.
    pub fn hook(&self) -> &str {
        &self.0.hook
    }

    /// The action type.
    pub fn action(&self) -> &str {
        &self.0.action
    }

    /// The parameter, with the position of the offending item for an item
    /// of a list (`tags[2]`).
    pub fn param(&self) -> &str {
        &self.0.param
    }

    /// The offending value as compact JSON, cut after 120 characters
    /// (marked `…`).
    pub fn value(&self) -> &str {
        &self.0.value
    }

    /// What the value must be: `an integer`, `null or a string`, `one of
    /// "a", "b"`.
    pub fn expected(&self) -> &str {
        &self.0.expected
    }
}

/// Where a value fails a check: the position inside it (`""` for the value
/// itself, `[2]` for an item), the failing part, and the check it fails.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation<'v, 'c> {
    /// The position inside the checked value (`""`, `[2]`, `[2][0]`).
    pub at: String,
    /// The failing part of the value.
    pub value: &'v Value,
    /// The check it fails.
    pub check: &'c ValueCheck,
}

/// The first part of `value` that fails `check`, outermost first, items in
/// order; `None` when the value passes. An `allowed` index that is not a
/// list constant allows nothing (the verifier rejects such programs).
///
/// Recursion follows the check's `items`, whose depth the decoder and the
/// verifier bound ([`crate::limits::MAX_VALUE_DEPTH`]), not the value's.
pub fn violation<'v, 'c>(
    program: &Program,
    check: &'c ValueCheck,
    value: &'v Value,
) -> Option<Violation<'v, 'c>> {
    let val = Val::from_json(value);
    let integral = matches!(val, Val::Double(f) if crate::bytecode::is_integral(f));
    let fits_kind = check.kinds.admits(val.kind(), integral) && !val.kind().is_empty();
    let allowed = || match check.allowed.map(|i| program.konst(i)) {
        None => true,
        Some(Some(Value::Array(items))) => items
            .iter()
            .any(|item| value::eq(&Val::from_json(item), &val)),
        Some(_) => false,
    };
    if !fits_kind || !allowed() {
        return Some(Violation {
            at: String::new(),
            value,
            check,
        });
    }
    if let (Some(items_check), Value::Array(items)) = (&check.items, value) {
        for (i, item) in items.iter().enumerate() {
            if let Some(mut v) = violation(program, items_check, item) {
                v.at.insert_str(0, &format!("[{i}]"));
                return Some(v);
            }
        }
    }
    None
}

/// What a check asks for, for messages: `one of "a", "b"` when it has an
/// enum, else its kinds (`an integer`, `null or a string`, `an array`).
pub fn expected(program: &Program, check: &ValueCheck) -> String {
    match check.allowed.map(|i| program.konst(i)) {
        Some(Some(Value::Array(items))) => {
            let shown: Vec<String> = items.iter().map(shown).collect();
            format!("one of {}", shown.join(", "))
        }
        Some(_) => "a value of an invalid enum".to_owned(),
        None => check.kinds.json_phrase(),
    }
}

/// A value as compact JSON, cut after [`SHOWN_CHARS`] characters.
pub fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", text.get(..cut).unwrap_or_default()),
        None => text,
    }
}

impl ActionError {
    /// The error for a violation of parameter `param` of action type
    /// `action` of hook `hook`.
    pub(crate) fn new(
        program: &Program,
        hook: &str,
        action: &str,
        param: &str,
        violation: &Violation<'_, '_>,
    ) -> ActionError {
        ActionError(Box::new(Details {
            hook: hook.to_owned(),
            action: action.to_owned(),
            param: format!("{param}{}", violation.at),
            value: shown(violation.value),
            expected: expected(program, violation.check),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytecode::{ConstIdx, Kinds};
    use serde_json::json;

    fn program(consts: Vec<Value>) -> Program {
        Program {
            consts: consts.into(),
            ..Program::default()
        }
    }

    #[test]
    fn kinds_enums_and_items() {
        let p = program(vec![json!(["a", "b"]), json!([1, 2])]);
        let int = ValueCheck {
            kinds: Kinds::INT,
            allowed: None,
            items: None,
        };
        assert!(violation(&p, &int, &json!(3)).is_none());
        assert!(violation(&p, &int, &json!(3.5)).is_some());
        // JSON Schema's `integer`: an integral double fits.
        assert!(violation(&p, &int, &json!(3.0)).is_none());
        assert!(violation(&p, &int, &json!(-1e300)).is_none());
        assert!(violation(&p, &int, &json!("3")).is_some());
        let nullable = ValueCheck {
            kinds: Kinds::STRING.or(Kinds::NULL),
            allowed: Some(ConstIdx::new(0)),
            items: None,
        };
        assert!(violation(&p, &nullable, &json!("a")).is_none());
        assert!(violation(&p, &nullable, &json!("c")).is_some());
        // `null` is of an allowed kind but not in the enum.
        assert!(violation(&p, &nullable, &json!(null)).is_some());
        let numbers = ValueCheck {
            kinds: Kinds::LIST,
            allowed: None,
            items: Some(Box::new(ValueCheck {
                kinds: Kinds::NUMBER,
                allowed: Some(ConstIdx::new(1)),
                items: None,
            })),
        };
        assert!(violation(&p, &numbers, &json!([1, 2.0, 2])).is_none());
        let value = json!([1, 3]);
        let v = violation(&p, &numbers, &value).unwrap();
        assert_eq!(v.at, "[1]");
        let err = ActionError::new(&p, "h", "notify", "levels", &v);
        assert_eq!(
            err.to_string(),
            "hook `h`: parameter `levels[1]` of action `notify` is 3, not one of 1, 2"
        );
        assert_eq!(expected(&p, &nullable), r#"one of "a", "b""#);
        assert_eq!(expected(&p, &int), "an integer");
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("é".repeat(500));
        let text = shown(&long);
        assert_eq!(text.chars().count(), SHOWN_CHARS + 1);
        assert!(text.ends_with('…'));
    }
}
