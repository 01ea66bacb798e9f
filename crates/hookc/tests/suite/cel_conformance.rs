//! CEL conformance, evaluation part: every case of `tests/data/cel/`
//! (`bool.json`, `error.json`, `value.json`; see its README) runs through the
//! real pipeline: parsed, resolved, type-checked against a free-form context
//! schema (`{"type": "object"}`), then evaluated on the case's context by
//! both the reference evaluator and the VM (the expression lowered as the
//! condition of a one-hook policy and verified, like any policy).
//!
//! How a case passes:
//!
//! - The expression is checked as a *condition* for `bool.json` (its value
//!   is a bool, so it must pass as a `when`), and as a *value* for the other
//!   two (every check except "a condition must be a bool", E0302).
//! - Both evaluators must give the expected result: an error for `"error"`,
//!   else the expected value compared strictly (ints and doubles apart, so
//!   `1` is not `1.0`; doubles bit for bit, so `-0.0` is not `0.0`; lists
//!   elementwise; objects by keys), and the same result as each other
//!   ([`reference::same_result`]).
//! - A case the checker rejects passes only if it expects `"error"`: hookc
//!   reports at compile time what CEL reports at run time (`'foo' < 1024` is
//!   E0301). It is still evaluated, unchecked (a program loaded from an
//!   artifact is verified, not type-checked, so the VM must handle it), and
//!   must give an error at run time too.
//!
//! Deliberate deviations are listed under `eval` in
//! `tests/data/cel/deviations.json`, each with its reason; a listed case
//! must fail (so the list never goes stale) and every other case must pass.
//! Every deviation listed today is the checker's: a case CEL evaluates only
//! with its own checker disabled (or bypassed with `dyn`), which hookc
//! rejects at compile time; unchecked, it still evaluates as CEL says, and
//! the test requires that too.
//! Run with `--nocapture` for a summary line per file.

use hookc::check::schema::ContextSchema;
use hookc::expr_program::{compile_expr, CompiledExpr, ExprMode};
use hookc::frontend::doc::Node;
use hookc::span::{FileId, Span};
use hookc::testing::reference;
use hookc_runtime::internals::context::{PathCache, Source};
use hookc_runtime::internals::value::Val;
use hookc_runtime::internals::vm::eval_hook;
use serde_json::{json, Value};
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
    context: Value,
    expected: Value,
}

fn text(v: &Value, field: &str) -> String {
    v.get(field)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("missing string field `{field}` in {v}"))
        .to_owned()
}

fn cases(data: &str, json: &str) -> Vec<Case> {
    let list: Vec<Value> = serde_json::from_str(json).unwrap();
    list.into_iter()
        .map(|c| Case {
            key: (
                data.to_owned(),
                text(&c, "file"),
                text(&c, "section"),
                text(&c, "name"),
            ),
            expr: text(&c, "expr"),
            context: c.get("context").cloned().unwrap_or_else(|| json!({})),
            expected: c.get("expected").cloned().unwrap_or(Value::Null),
        })
        .collect()
}

/// The `eval` deviations: key to reason.
fn deviations() -> BTreeMap<Key, String> {
    let doc: Value = serde_json::from_str(DEVIATIONS).unwrap();
    let list = doc
        .get("eval")
        .and_then(Value::as_array)
        .expect("deviations.json has an `eval` array");
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

fn free_form_schema() -> ContextSchema {
    let mut diags = hookc::diag::Diagnostics::new();
    let node = Node::from_json(&json!({"type": "object"}), Span::new(FileId(0), 0, 0));
    let schema = ContextSchema::from_node(&node, &mut diags);
    assert!(!diags.has_errors());
    schema
}

/// Whether a value is the expected JSON, strictly: ints and doubles apart,
/// doubles bit for bit (so `-0.0` is not `0.0`), lists elementwise, objects
/// by keys in any order. An error is never a value.
fn is_expected(v: &Val<'_>, expected: &Value) -> bool {
    match (v, expected) {
        (Val::Null, Value::Null) => true,
        (Val::Bool(a), Value::Bool(b)) => a == b,
        (Val::Int(a), Value::Number(n)) => !n.is_f64() && n.as_i64() == Some(*a),
        (Val::Double(a), Value::Number(n)) => {
            n.is_f64() && n.as_f64().map(f64::to_bits) == Some(a.to_bits())
        }
        (Val::Str(a), Value::String(b)) => a == b,
        (Val::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| is_expected(&Val::from_json(x), y)))
        }
        (Val::Array(_) | Val::List(_), Value::Array(b)) => v.elements().is_some_and(|items| {
            items.len() == b.len() && items.iter().zip(b).all(|(x, y)| is_expected(x, y))
        }),
        _ => false,
    }
}

fn show(v: &Val<'_>) -> String {
    match v {
        Val::Error(e) => format!("error ({e})"),
        Val::Double(d) => format!("{d:?} (double)"),
        Val::Int(i) => format!("{i} (int)"),
        other => other
            .to_json()
            .map_or_else(|| format!("{other:?}"), |j| j.to_string()),
    }
}

/// Runs the expression on the VM (lowered as hook 0 of a one-hook policy,
/// verified) and checks its value with `ok`, and against the reference
/// evaluator's, strictly.
fn vm_check(
    compiled: &CompiledExpr,
    ctx: &Value,
    by_reference: &Val<'_>,
    ok: impl Fn(&Val<'_>) -> bool,
) -> Result<(), String> {
    let program = hookc_runtime::verify::verify(hookc::lower::lower(&compiled.policy()))
        .map_err(|e| format!("the program fails verification: {e}"))?;
    let mut cache = PathCache::new(&program.program().paths, Source::Document(ctx));
    let by_vm = eval_hook(&program, 0, &mut cache, None);
    if !ok(&by_vm) {
        return Err(format!("the VM gives {}", show(&by_vm)));
    }
    if !reference::same_result(&by_vm, by_reference) {
        return Err(format!(
            "the VM gives {} but the reference evaluator {}",
            show(&by_vm),
            show(by_reference)
        ));
    }
    Ok(())
}

/// What happened to one case.
struct Outcome {
    /// The checker's verdict: `Ok` (accepted) or the errors it reported.
    checked: Result<(), String>,
    /// Whether the evaluators give CEL's result (and agree), on the checked
    /// expression or, when the checker rejected it, on the unchecked one.
    runtime: Result<(), String>,
}

impl Outcome {
    /// Passing: the checker accepts and the evaluators give CEL's result;
    /// or the checker rejects a case whose result is an error (hookc
    /// reports at compile time what CEL reports at run time), and the
    /// evaluators give an error too.
    fn passes(&self, expects_error: bool) -> bool {
        self.runtime.is_ok() && (self.checked.is_ok() || expects_error)
    }

    fn why(&self) -> String {
        let mut parts = Vec::new();
        if let Err(e) = &self.checked {
            parts.push(format!("rejected by the checker: {e}"));
        }
        match &self.runtime {
            Err(e) => parts.push(e.clone()),
            Ok(()) if self.checked.is_err() => {
                parts.push("(unchecked, it evaluates as CEL says)".to_owned());
            }
            Ok(()) => {}
        }
        parts.join(" ")
    }
}

fn expects_error(case: &Case) -> bool {
    case.key.0 == "error.json" && case.expected == json!("error")
}

fn run_case(case: &Case, schema: &ContextSchema, mode: ExprMode) -> Outcome {
    let (checked, compiled) = match compile_expr(&case.expr, schema, mode) {
        Ok(c) => (Ok(()), c),
        Err(diags) => {
            let errors: Vec<String> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            let checked = Err(errors.join("; "));
            match compile_expr(&case.expr, schema, ExprMode::Unchecked) {
                Ok(c) => (checked, c),
                Err(_) => {
                    return Outcome {
                        checked,
                        runtime: Err("does not even resolve".to_owned()),
                    }
                }
            }
        }
    };
    let expects_error = expects_error(case);
    let ok = |v: &Val<'_>| {
        if expects_error {
            v.is_error()
        } else {
            is_expected(v, &case.expected)
        }
    };
    let consts = reference::Constants::new(compiled.expr());
    let by_reference =
        reference::eval_with(compiled.expr(), compiled.paths(), &case.context, &consts);
    let mut problems = Vec::new();
    if !ok(&by_reference) {
        problems.push(format!(
            "the reference evaluator gives {}",
            show(&by_reference)
        ));
    }
    if let Err(e) = vm_check(&compiled, &case.context, &by_reference, ok) {
        problems.push(e);
    }
    Outcome {
        checked,
        runtime: if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join(", "))
        },
    }
}

#[test]
fn conformance_cases_evaluate_as_cel_says_except_listed_deviations() {
    let deviations = deviations();
    let schema = free_form_schema();
    let mut failures = Vec::new();
    let mut below_bar = Vec::new();
    let mut seen = Vec::new();
    for (data, json) in FILES {
        let mode = if data == "bool.json" {
            ExprMode::Condition
        } else {
            ExprMode::Value
        };
        let all = cases(data, json);
        let (mut passed, mut statically, mut deviating) = (0, 0, 0);
        for case in &all {
            seen.push(case.key.clone());
            let outcome = run_case(case, &schema, mode);
            let passes = outcome.passes(expects_error(case));
            let shown = || {
                format!(
                    "{:?}: `{}` with context {}, expected {}",
                    case.key, case.expr, case.context, case.expected
                )
            };
            match deviations.get(&case.key) {
                None if passes => {
                    passed += 1;
                    statically += usize::from(outcome.checked.is_err());
                }
                None => failures.push(format!("{}: {}", shown(), outcome.why())),
                Some(reason) if passes => failures.push(format!(
                    "{}: passes now: remove it from the `eval` deviations ({reason})",
                    shown()
                )),
                Some(_) => {
                    deviating += 1;
                    println!("  deviation {:?}: {}", case.key, outcome.why());
                    // Every listed deviation is the checker's (see the
                    // reasons): at run time hookc still gives CEL's result.
                    if let Err(e) = &outcome.runtime {
                        failures.push(format!(
                            "{}: a listed deviation, but also wrong at run time: {e}",
                            shown()
                        ));
                    }
                }
            }
        }
        let total = all.len();
        println!(
            "{data}: {passed}/{total} pass ({statically} of them by a compile-time error), {deviating} listed deviation(s)"
        );
        // The bar: at least 95% of each file passes.
        if passed * 100 < total * 95 {
            below_bar.push(format!("{data}: only {passed}/{total} pass"));
        }
    }
    for key in deviations.keys() {
        if !seen.contains(key) {
            failures.push(format!("deviation {key:?} names no case"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(below_bar.is_empty(), "{}", below_bar.join("\n"));
}
