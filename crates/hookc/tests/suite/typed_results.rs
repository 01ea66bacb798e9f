//! Typed results, always (`docs/src/semantics.md#templates`): a property test
//! that evaluation never returns an action outside its declarations.
//!
//! Random policies declare an action type with random parameter types
//! (single types, unions with `null`, enums, arrays with nested `items`),
//! and one hook fills it with random templates (whole `${path}`, text
//! around a reference, lists of them) over context paths the schema
//! declares (typed, with an enum, an array of strings) or does not. Policies
//! the compiler rejects are skipped (and counted). Each policy is evaluated
//! on random contexts (missing keys, nulls, every JSON kind), from a
//! `Value` and from JSON text, and:
//!
//! - every parameter of every returned action fits its declaration, read
//!   from the compilation's `ActionTypes` (not from the bytecode) and
//!   checked here by JSON type names, independently of the runtime;
//! - a filled value that does not fit is always an `QueryError::Action`
//!   naming that parameter, never an action;
//! - the VM and the reference evaluator (`reference::fill_action`, which
//!   holds filled values to the declarations itself) agree on the action or
//!   on the failing parameter.

use hookc::check::actions::TypeDef;
use hookc::compile::{compile, Input};
use hookc::testing::reference;
use hookc_runtime::{Context, JsonSink, Policy, QueryError};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};
use std::cell::Cell;

/// The context schema: declared paths of each kind, one with an enum, an
/// array of strings; `x` and `y` are not declared (typed `any`).
const SCHEMA: &str = "event_context_schema:
  type: object
  properties:
    s: {type: string}
    i: {type: integer}
    n: {type: number}
    b: {type: boolean}
    e: {type: string, enum: [a, b, zz]}
    l: {type: array, items: {type: string}}
";

/// Every path a template may read.
const PATHS: [&str; 9] = ["s", "i", "n", "b", "e", "l", "x", "y", "x.k"];

/// Values a context holds at a path, and enum values are drawn from.
fn pool() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(1),
        json!(2),
        json!(2.5),
        json!("a"),
        json!("b"),
        json!("zz"),
        json!([]),
        json!(["a", "b"]),
        json!([1, 2]),
        json!([[1], [2, "a"]]),
        json!({"k": 1}),
    ]
}

const TYPE_NAMES: [&str; 7] = [
    "string", "integer", "number", "boolean", "object", "array", "null",
];

/// Whether a JSON value has a parameter type, by its name: the plain JSON
/// reading of the type names, written apart from the compiler's and the
/// runtime's tables.
fn has_type(name: &str, v: &Value) -> bool {
    match name {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => false,
    }
}

/// Equality as an `enum` compares: numbers by value, the rest as JSON.
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Whether a value fits a declaration (its types, enum and items).
fn fits(def: &TypeDef, v: &Value) -> bool {
    let typed = def.types().is_empty() || def.types().iter().any(|t| has_type(t.name(), v));
    let allowed = def.allowed().is_none_or(|values| {
        values
            .iter()
            .filter_map(|a| a.const_json())
            .any(|a| same(&a, v))
    });
    let items = match (def.items(), v) {
        (Some(items), Value::Array(values)) => values.iter().all(|x| fits(items, x)),
        _ => true,
    };
    typed && allowed && items
}

/// A random type definition as YAML flow text, `depth` levels of `items`
/// at most.
fn type_def(depth: u32) -> BoxedStrategy<String> {
    let names = proptest::sample::subsequence(TYPE_NAMES.to_vec(), 1..=2);
    let enum_values = proptest::option::weighted(0.3, proptest::sample::subsequence(pool(), 1..=3));
    let items = if depth == 0 {
        Just(None).boxed()
    } else {
        proptest::option::weighted(0.5, type_def(depth - 1)).boxed()
    };
    (proptest::option::weighted(0.85, names), enum_values, items)
        .prop_map(|(names, values, items)| {
            let mut keys = Vec::new();
            let mut names = names.unwrap_or_default();
            if items.is_some() && !names.is_empty() && !names.contains(&"array") {
                names.push("array");
            }
            match names.as_slice() {
                [] => {}
                [one] => keys.push(format!("type: {}", quoted(one))),
                many => keys.push(format!(
                    "type: [{}]",
                    many.iter()
                        .map(|n| quoted(n))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
            if let Some(values) = values {
                keys.push(format!("enum: {}", Value::Array(values)));
            }
            if let Some(items) = items {
                keys.push(format!("items: {items}"));
            }
            format!("{{{}}}", keys.join(", "))
        })
        .boxed()
}

fn quoted(name: &str) -> String {
    format!("\"{name}\"")
}

/// A random parameter value: templates over the paths, or a list of them.
fn param_value() -> BoxedStrategy<String> {
    let path = select(PATHS.to_vec());
    prop_oneof![
        4 => path.clone().prop_map(|p| format!("\"${{{p}}}\"")),
        1 => path.clone().prop_map(|p| format!("\"v=${{{p}}}\"")),
        2 => proptest::collection::vec(path, 0..3).prop_map(|ps| format!(
            "[{}]",
            ps.iter().map(|p| format!("\"${{{p}}}\"")).collect::<Vec<_>>().join(", ")
        )),
    ]
    .boxed()
}

/// A random policy: its YAML text.
fn policy() -> BoxedStrategy<String> {
    let params = proptest::collection::vec((type_def(2), param_value()), 1..4);
    (params, any::<bool>())
        .prop_map(|(params, with_schema)| {
            let mut text = if with_schema {
                SCHEMA.to_owned()
            } else {
                String::new()
            };
            text.push_str("action_types:\n  t:\n    parameters:\n");
            for (i, (def, _)) in params.iter().enumerate() {
                text.push_str(&format!("      p{i}: {def}\n"));
            }
            text.push_str("hooks:\n  - id: h\n    event: e\n    action:\n      type: t\n");
            for (i, (_, value)) in params.iter().enumerate() {
                text.push_str(&format!("      p{i}: {value}\n"));
            }
            text
        })
        .boxed()
}

/// A random context: each path missing or a value of the pool.
fn context() -> BoxedStrategy<Value> {
    let slot = proptest::option::weighted(0.8, select(pool()));
    (
        proptest::collection::vec(slot, PATHS.len()),
        proptest::option::of(select(pool())),
    )
        .prop_map(|(values, xk)| {
            let mut map = serde_json::Map::new();
            for (path, value) in PATHS.iter().zip(values) {
                if let Some(v) = value.filter(|_| !path.contains('.')) {
                    map.insert((*path).to_owned(), v);
                }
            }
            if let Some(v) = xk {
                // `x` as an object with `k`, sometimes.
                if map.get("x").is_none_or(Value::is_null) {
                    map.insert("x".to_owned(), json!({ "k": v }));
                }
            }
            Value::Object(map)
        })
        .boxed()
}

#[test]
fn evaluation_returns_only_declared_values() {
    let config = Config {
        cases: 1000,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]));
    let (compiled, rejected, returned, failed) =
        (Cell::new(0), Cell::new(0), Cell::new(0), Cell::new(0));
    let contexts = proptest::collection::vec(context(), 8);
    runner
        .run(&(policy(), contexts), |(text, contexts)| {
            let c = compile(&[Input::new("p.yaml", text.clone())]);
            let Some(ir) = c.policy else {
                rejected.set(rejected.get() + 1);
                return Ok(());
            };
            compiled.set(compiled.get() + 1);
            let types = ir.action_types().get("t").expect("declared");
            let policy = Policy::from_program(hookc::lower::lower(&ir)).expect("verifies");
            let hook = &ir.hooks()[0];
            for ctx in &contexts {
                let got = policy.evaluate("e", ctx).map(|d| d.terminal);
                let json = serde_json::to_vec(ctx).unwrap();
                let from_text = policy.query("e", Context::json(&json)).first();
                let want = reference::fill_action(&ir, &hook.action, ctx);
                // Built through a sink, the action is the same, or fails
                // on the same parameter.
                let built = policy.query("e", ctx).first_with(&mut JsonSink);
                match (&got, &built) {
                    (Ok(m), Ok(b)) => prop_assert_eq!(
                        m.as_ref()
                            .map(|m| (0, m.hook, Value::Object(m.action.clone()))),
                        b.clone()
                    ),
                    (Err(QueryError::Action(a)), Err(QueryError::Action(b))) => {
                        prop_assert_eq!(a.param(), b.param())
                    }
                    (got, built) => {
                        return Err(TestCaseError::fail(format!(
                            "first {got:?}, first_with {built:?}\n{text}\ncontext {ctx}"
                        )))
                    }
                }
                match (&got, &want) {
                    (Ok(Some(m)), Ok(action)) => {
                        returned.set(returned.get() + 1);
                        prop_assert_eq!(
                            &m.action,
                            action,
                            "VM and reference fill differently\n{}",
                            text
                        );
                        for (name, value) in m.action.iter().filter(|(k, _)| *k != "type") {
                            let def = types.param(name).expect("declared param").ty();
                            prop_assert!(
                                fits(def, value),
                                "`{}` = {} does not fit {:?}\n{}\ncontext {}",
                                name,
                                value,
                                def,
                                text,
                                ctx
                            );
                        }
                        prop_assert_eq!(
                            from_text.ok().flatten().map(|m| m.action),
                            Some(m.action.clone())
                        );
                    }
                    (Err(QueryError::Action(e)), Err(misfit)) => {
                        failed.set(failed.get() + 1);
                        prop_assert_eq!(
                            e.param(),
                            misfit.param.as_str(),
                            "\n{}\ncontext {}",
                            text,
                            ctx
                        );
                        prop_assert!(matches!(from_text, Err(QueryError::Action(_))));
                        // The failing value really does not fit.
                        let name = e.param().split('[').next().unwrap_or_default();
                        let def = types.param(name).expect("declared param").ty();
                        prop_assert!(!fits_at(def, &misfit.value, e.param()), "{e}");
                    }
                    (got, want) => {
                        return Err(TestCaseError::fail(format!(
                            "VM {got:?}, reference {want:?}\n{text}\ncontext {ctx}"
                        )))
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    println!(
        "typed results: {} policies compiled, {} rejected; {} actions returned, {} action errors",
        compiled.get(),
        rejected.get(),
        returned.get(),
        failed.get()
    );
    assert!(compiled.get() > 150, "too few policies compile");
    assert!(returned.get() > 100 && failed.get() > 100);
}

/// Whether the value at position `param` (`p0`, `p0[1][0]`) fits the
/// declaration there: the declaration's `items`, one level per index.
fn fits_at(def: &TypeDef, value: &Value, param: &str) -> bool {
    let depth = param.matches('[').count();
    let mut def = def;
    for _ in 0..depth {
        match def.items() {
            Some(items) => def = items,
            None => return true,
        }
    }
    fits(def, value)
}

/// The issue's example: a template into an enum parameter and one into an
/// integer parameter, with a context outside both.
#[test]
fn values_outside_the_declarations_are_evaluation_errors() {
    let src = r#"
hooks:
  - id: escalate_budget
    event: limit
    action: {type: escalate, target: "${limit_code}", timeout_seconds: "${limit_max}"}
  - id: inject
    event: note
    action: {type: notify, inject_as: "${note}", tags: ["${tag}", "fixed"]}
action_types:
  notify:
    parameters:
      inject_as: {type: [string, "null"], default: null}
      tags: {type: array, items: {type: string, enum: [fixed, urgent]}}
"#;
    let c = compile(&[Input::new("p.yaml", src)]);
    assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
    let policy = c.into_policy().unwrap();
    let err = |event: &str, ctx: Value| match policy.evaluate(event, &ctx).map(|d| d.terminal) {
        Err(QueryError::Action(e)) => e.to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        err(
            "limit",
            json!({"limit_code": "nuke_everything", "limit_max": 60})
        ),
        "hook `escalate_budget`: parameter `target` of action `escalate` is \"nuke_everything\", \
         not one of \"user_approval\", \"parent_notification\", \"both\""
    );
    assert_eq!(
        err("limit", json!({"limit_code": "both", "limit_max": "60"})),
        "hook `escalate_budget`: parameter `timeout_seconds` of action `escalate` is \"60\", not an integer"
    );
    // A missing path fills `null`, which only a nullable parameter takes.
    assert_eq!(
        err("limit", json!({"limit_max": 60})),
        "hook `escalate_budget`: parameter `target` of action `escalate` is null, \
         not one of \"user_approval\", \"parent_notification\", \"both\""
    );
    let ok = policy
        .evaluate("limit", &json!({"limit_code": "both", "limit_max": 60}))
        .unwrap()
        .terminal
        .unwrap();
    assert_eq!(
        Value::Object(ok.action),
        json!({"type": "escalate", "target": "both", "timeout_seconds": 60})
    );
    let ok = policy
        .evaluate("note", &json!({"tag": "urgent"}))
        .unwrap()
        .terminal
        .unwrap();
    assert_eq!(
        Value::Object(ok.action),
        json!({"type": "notify", "inject_as": null, "tags": ["urgent", "fixed"]})
    );
    assert_eq!(
        err("note", json!({"tag": "later", "note": "n"})),
        "hook `inject`: parameter `tags[0]` of action `notify` is \"later\", not one of \"fixed\", \"urgent\""
    );
    // `decide` builds no action, so it still names the hook.
    let ctx = json!({"limit_code": "nuke_everything"});
    assert_eq!(
        policy.query("limit", &ctx).decide().unwrap(),
        Some("escalate_budget")
    );
    assert!(policy.query("limit", &ctx).all().is_err());
}
