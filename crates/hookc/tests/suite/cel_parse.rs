//! CEL conformance, syntax part: every expression of the CEL conformance
//! cases in `tests/data/cel/` (see its README) must parse with
//! `hookc::syntax::parse`, except the cases listed under `parse` in
//! `tests/data/cel/deviations.json`, which must fail to parse (so that the
//! list never goes stale).
//!
//! Where a case's whole expression is one literal (`'\x41'`, `-0x55`, `.99`),
//! the parsed value is also compared with the case's expected result: this
//! checks escapes and number syntax against CEL's own answers.
//!
//! The data is compiled in, so the test reads nothing at run time.

use hookc::span::{FileId, Origin};
use hookc::syntax::ast::{Expr, ExprKind};
use hookc::syntax::parse;
use serde_json::Value;
use std::collections::BTreeMap;

/// The three case files, by name.
const FILES: [(&str, &str); 3] = [
    ("bool.json", include_str!("../data/cel/bool.json")),
    ("error.json", include_str!("../data/cel/error.json")),
    ("value.json", include_str!("../data/cel/value.json")),
];

const DEVIATIONS: &str = include_str!("../data/cel/deviations.json");

/// (data file, source file, section, name): unique across all cases.
type Key = (String, String, String, String);

struct Case {
    key: Key,
    expr: String,
    expected: Value,
}

fn text(v: &Value, field: &str) -> String {
    v.get(field)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("missing string field `{field}` in {v}"))
        .to_owned()
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (data, json) in FILES {
        let list: Vec<Value> = serde_json::from_str(json).unwrap();
        for c in list {
            out.push(Case {
                key: (
                    data.to_owned(),
                    text(&c, "file"),
                    text(&c, "section"),
                    text(&c, "name"),
                ),
                expr: text(&c, "expr"),
                expected: c.get("expected").cloned().unwrap_or(Value::Null),
            });
        }
    }
    out
}

/// The `parse` deviations: key to reason.
fn deviations() -> BTreeMap<Key, String> {
    let doc: Value = serde_json::from_str(DEVIATIONS).unwrap();
    let list = doc
        .get("parse")
        .and_then(Value::as_array)
        .expect("deviations.json has a `parse` array");
    let mut out = BTreeMap::new();
    for d in list {
        let key = (
            text(d, "data"),
            text(d, "file"),
            text(d, "section"),
            text(d, "name"),
        );
        let reason = text(d, "reason");
        assert!(
            !reason.trim().is_empty(),
            "deviation {key:?} gives no reason"
        );
        assert!(
            out.insert(key.clone(), reason).is_none(),
            "deviation {key:?} listed twice"
        );
    }
    out
}

fn origin() -> Origin {
    Origin::Exact {
        file: FileId(0),
        base: 0,
    }
}

#[test]
fn the_data_is_complete_and_keys_are_unique() {
    let all = cases();
    let count = |f: &str| all.iter().filter(|c| c.key.0 == f).count();
    // The counts of tests/data/cel/README.md.
    assert_eq!(
        (count("bool.json"), count("error.json"), count("value.json")),
        (273, 51, 189)
    );
    let mut keys: Vec<&Key> = all.iter().map(|c| &c.key).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(
        keys.len(),
        all.len(),
        "duplicate (file, section, name) keys"
    );
}

#[test]
fn every_conformance_expression_parses_except_listed_deviations() {
    let deviations = deviations();
    let all = cases();
    let mut failures = Vec::new();
    for case in &all {
        let result = parse(&case.expr, origin());
        match (result, deviations.contains_key(&case.key)) {
            (Ok(_), false) | (Err(_), true) => {}
            (Err(d), false) => failures.push(format!(
                "{:?}: `{}` does not parse: {} ({})",
                case.key, case.expr, d.message, d.code
            )),
            (Ok(_), true) => failures.push(format!(
                "{:?}: `{}` parses now: remove it from deviations.json",
                case.key, case.expr
            )),
        }
    }
    for key in deviations.keys() {
        if !all.iter().any(|c| &c.key == key) {
            failures.push(format!("deviation {key:?} names no case"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The value of an expression that is one literal, as JSON.
fn literal_value(e: &Expr) -> Option<Value> {
    Some(match &e.kind {
        ExprKind::Null => Value::Null,
        ExprKind::Bool(b) => Value::Bool(*b),
        ExprKind::Int(i) => Value::from(*i),
        ExprKind::Double(d) => Value::from(*d),
        ExprKind::String(s, _) => Value::String(s.clone()),
        _ => return None,
    })
}

#[test]
fn literal_expressions_have_the_expected_values() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases() {
        if case.key.0 == "error.json" {
            continue;
        }
        let Ok(expr) = parse(&case.expr, origin()) else {
            continue;
        };
        let Some(value) = literal_value(&expr) else {
            continue;
        };
        checked += 1;
        // Compare ints as ints and doubles as doubles (bit for bit, so that
        // `-0.0` is not `0.0`).
        let same = match (&value, &case.expected) {
            (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => x == y,
                (None, None) => a.as_f64().map(f64::to_bits) == b.as_f64().map(f64::to_bits),
                _ => false,
            },
            (a, b) => a == b,
        };
        if !same {
            failures.push(format!(
                "{:?}: `{}` gives {value}, expected {}",
                case.key, case.expr, case.expected
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most of parse.textproto's string_literals section and basic.textproto's
    // self-evaluating literals.
    assert!(checked >= 100, "only {checked} literal cases checked");
}
