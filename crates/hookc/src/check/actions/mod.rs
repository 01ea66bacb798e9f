//! Action types (`docs/src/semantics.md#actions`) and the checking of actions against them.
//!
//! Action types are data: [`ActionTypes::builtin`] holds the eight built-in
//! (`retry`, `fail`, `abort`, `continue`, `escalate`, `call_directive`,
//! `suspend`, `emit_event`), and each file's `action_types` section is merged
//! over them with [`ActionTypes::declare`]. [`check_action`] turns a
//! [`RawAction`] into an [`Action`]: every parameter typed, `${path}` templates
//! parsed and checked against the context schema, defaults filled in.
//!
//! Decisions (also in the guide, `docs/src/policies/actions.md` and `docs/src/policies/choices.md`):
//! - `required` absent means optional; `optional: true` is the seed's way of
//!   saying so and changes nothing. `required: true` with a default is an error.
//! - A type declared by two files with the same definition is accepted once;
//!   with different definitions it is [`Code::DuplicateDefinition`].
//! - Defaults and `enum` values are fixed values: they follow the template
//!   escaping (`$${` is a literal `${`) but may not hold a `${path}` reference.
//! - YAML values are typed strictly: `"7"` is not an `integer`; `3.0` is
//!   (an integral number, as in JSON Schema), and stays `3.0`. XML attribute and `<param>` text is untyped and coerced by the
//!   declared type (`"7200"` is an integer for an `integer` parameter).
//! - Templates in enum parameters: see [`check_action`].
//!
//! The files, in pipeline order: `types` (the model), `builtin` (the built-in
//! vocabulary), `define` (reading definitions), `value` (checked actions and
//! their values), `params` (checking an action). This file holds the value
//! comparison and the message phrases they share.
//!
//! [`RawAction`]: crate::frontend::RawAction
//! [`Code::DuplicateDefinition`]: crate::diag::Code::DuplicateDefinition

mod builtin;
mod define;
mod params;
mod types;
mod value;

pub use params::check_action;
pub use types::{
    ActionType, ActionTypes, Misfit, ParamDef, ParamType, Performer, TypeBinding, TypeDef,
    ITEM_KEYS, PARAM_KEYS, TYPE_KEYS,
};
pub use value::{Action, ActionValue};

use crate::check::ty::Kinds;
use crate::frontend::doc::{child_path, Node, NodeKind};
use hookc_runtime::bytecode::path::PathTable;

/// Every item's value, reading them all even after one fails (so that each
/// failure is reported); `None` if any failed.
fn all_or_none<T>(items: impl Iterator<Item = Option<T>>) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(items.size_hint().0);
    let mut ok = true;
    for item in items {
        match item {
            Some(v) => out.push(v),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Equality of values as JSON compares them, except that an integer and a
/// float with the same value are equal and object key order does not matter.
fn same(a: &ActionValue, b: &ActionValue) -> bool {
    use ActionValue as V;
    match (a, b) {
        (V::Int(i), V::Double(f)) | (V::Double(f), V::Int(i)) => {
            // `i64::MIN as f64` is exactly -2^63; the range check keeps the
            // saturating cast from equating huge floats with the extremes.
            let bound = -(i64::MIN as f64);
            f.fract() == 0.0 && *f >= -bound && *f < bound && *f as i64 == *i
        }
        (V::List(x), V::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && same(v, v2)))
        }
        _ => a == b,
    }
}

/// A value for a message: a string as its text, anything else as JSON.
fn render(value: &ActionValue) -> String {
    match value {
        ActionValue::String(s) => s.clone(),
        other => other.to_json(&PathTable::new()).to_string(),
    }
}

/// `` `a`, `b`, `c` ``
fn list(values: &[ActionValue]) -> String {
    let names: Vec<String> = values.iter().map(render).collect();
    backticked(&names)
}

fn backticked<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a document node is, for "found ..." in messages.
fn found(node: &Node) -> &'static str {
    match node.kind {
        NodeKind::Null => "null",
        NodeKind::Bool(_) => "a boolean",
        NodeKind::Int(_) => "an integer",
        NodeKind::Float(_) => "a number",
        NodeKind::Str(_) | NodeKind::Text(_) => "a string",
        NodeKind::Seq(_) => "an array",
        NodeKind::Map(_) => "an object",
    }
}

/// What a value is, for "found ..." in messages.
fn value_phrase(value: &ActionValue) -> &'static str {
    match value {
        ActionValue::Null => "null",
        ActionValue::Bool(_) => "a boolean",
        ActionValue::Int(_) => "an integer",
        ActionValue::Double(_) => "a number",
        ActionValue::String(_) | ActionValue::Template(_) => "a string",
        ActionValue::List(_) => "an array",
        ActionValue::Object(_) => "an object",
    }
}

/// `a string`, `null or a string`, ... for the kinds of a path.
fn kinds_phrase(kinds: Kinds) -> String {
    kinds.json_phrase()
}

fn child(np: Option<&str>, key: &str) -> Option<String> {
    np.map(|np| child_path(np, key))
}

#[cfg(test)]
mod tests;
