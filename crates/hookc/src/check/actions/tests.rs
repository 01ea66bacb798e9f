//! Tests of action types and action checking: the built-in vocabulary,
//! declarations merged over it, parameters, XML coercion, templates and enums.

use super::builtin::builtin_json;
use super::*;
use crate::check::schema::ContextSchema;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::Key;
use crate::frontend::RawAction;
use crate::span::{FileId, Span, Spanned};
use hookc_runtime::bytecode::path::{Path, Segment};

const F: FileId = FileId(0);

fn sp(start: usize, end: usize) -> Span {
    Span::new(F, start, end)
}

fn str_(s: &str) -> NodeKind {
    NodeKind::Str(s.to_owned())
}

fn text(s: &str) -> NodeKind {
    NodeKind::Text(s.to_owned())
}

fn map(entries: Vec<(&str, NodeKind)>) -> NodeKind {
    NodeKind::Map(
        entries
            .into_iter()
            .map(|(k, kind)| {
                (
                    Key {
                        name: k.to_owned(),
                        span: sp(0, 0),
                    },
                    Node {
                        kind,
                        span: sp(0, 0),
                    },
                )
            })
            .collect(),
    )
}

/// A YAML action at `hooks[1].action`: kind at 10.., the i-th parameter's
/// key at `20 + 20 i` and its value at `30 + 20 i .. 35 + 20 i`.
fn yaml(kind: &str, params: Vec<(&str, NodeKind)>) -> RawAction {
    let mut raw = RawAction {
        kind: Spanned::new(kind.to_owned(), sp(10, 10 + kind.len())),
        params: Vec::new(),
        xml_params: Vec::new(),
        span: sp(0, 500),
        node_path: Some("hooks[1].action".to_owned()),
    };
    for (i, (name, kind)) in params.into_iter().enumerate() {
        let at = 20 + 20 * i;
        raw.params.push((
            Spanned::new(name.to_owned(), sp(at, at + name.len())),
            Node {
                kind,
                span: sp(at + 10, at + 15),
            },
        ));
    }
    raw
}

/// An XML action: attributes as `Text`, and `<param>` children whose
/// i-th name is at `300 + 20 i`.
fn xml(kind: &str, attrs: Vec<(&str, &str)>, children: Vec<(&str, &str)>) -> RawAction {
    let mut raw = yaml(kind, attrs.into_iter().map(|(k, v)| (k, text(v))).collect());
    raw.node_path = None;
    for (i, (name, value)) in children.into_iter().enumerate() {
        let at = 300 + 20 * i;
        raw.xml_params.push((
            Spanned::new(name.to_owned(), sp(at, at + 4)),
            Node {
                kind: text(value),
                span: sp(at + 10, at + 15),
            },
        ));
    }
    raw
}

fn check_in(
    raw: &RawAction,
    types: &ActionTypes,
    schema: &ContextSchema,
    paths: &mut PathTable,
) -> (Option<Action>, Vec<Diagnostic>) {
    let mut diags = Diagnostics::new();
    let action = check_action(raw, "", types, schema, paths, [&[], &[]], &mut diags);
    (action, diags.into_vec())
}

fn check(raw: &RawAction) -> (Option<Action>, Vec<Diagnostic>) {
    check_in(
        raw,
        &ActionTypes::builtin(),
        &ContextSchema::builtin(),
        &mut PathTable::new(),
    )
}

/// Checks an action expected to be valid without any diagnostic.
fn ok(raw: &RawAction) -> Action {
    let (action, diags) = check(raw);
    assert!(diags.is_empty(), "{diags:#?}");
    action.unwrap()
}

/// Checks an action expected to have exactly one diagnostic.
fn one_error(raw: &RawAction) -> Diagnostic {
    let (action, diags) = check(raw);
    assert!(action.is_none());
    assert_eq!(diags.len(), 1, "{diags:#?}");
    diags.into_iter().next().unwrap()
}

fn s(v: &str) -> ActionValue {
    ActionValue::String(v.to_owned())
}

fn schema(json: serde_json::Value) -> ContextSchema {
    let mut diags = Diagnostics::new();
    let schema = ContextSchema::from_node(&Node::from_json(&json, sp(0, 0)), &mut diags);
    assert!(diags.is_empty());
    schema
}

fn declared(json: serde_json::Value) -> (ActionTypes, Vec<Diagnostic>) {
    let mut types = ActionTypes::builtin();
    let mut diags = Diagnostics::new();
    types.declare(&Node::from_json(&json, sp(0, 0)), &mut diags);
    (types, diags.into_vec())
}

fn messages(diags: &[Diagnostic]) -> Vec<&str> {
    diags.iter().map(|d| d.message.as_str()).collect()
}

// ---- built-in types -----------------------------------------------------

#[test]
fn builtin_types_are_seed_000s() {
    let mut diags = Diagnostics::new();
    let types = ActionTypes::from_builtin_json(&builtin_json(), &mut diags);
    assert!(diags.is_empty(), "{diags:#?}");
    let names: Vec<&str> = types.names().collect();
    assert_eq!(
        names,
        [
            "retry",
            "fail",
            "abort",
            "continue",
            "escalate",
            "call_directive",
            "suspend",
            "emit_event"
        ]
    );
    assert_eq!(types.custom_definitions().count(), 0);

    let retry = types.get("retry").unwrap();
    assert_eq!(retry.description(), Some("Retry the operation"));
    assert!(!retry.is_declared());
    let p: Vec<&str> = retry.params().iter().map(ParamDef::name).collect();
    assert_eq!(p, ["max_attempts", "backoff_policy", "delay"]);
    let backoff = retry.param("backoff_policy").unwrap();
    assert_eq!(backoff.ty().single(), Some(ParamType::String));
    assert_eq!(
        backoff.allowed().unwrap(),
        [s("exponential"), s("fixed"), s("inherit")]
    );
    assert_eq!(backoff.default(), Some(&s("inherit")));
    let delay = retry.param("delay").unwrap();
    assert_eq!(delay.ty().single(), Some(ParamType::Number));
    assert_eq!(delay.description(), Some("For fixed backoff"));
    assert!(!delay.is_required() && delay.default().is_none());

    let fail = types.get("fail").unwrap().param("error_message").unwrap();
    assert!(!fail.is_required());
    assert!(types.get("abort").unwrap().params().is_empty());
    assert!(types.get("continue").unwrap().params().is_empty());
    let escalate = types.get("escalate").unwrap();
    assert_eq!(
        escalate.param("target").unwrap().allowed().map(<[_]>::len),
        Some(3)
    );
    assert_eq!(
        escalate.param("timeout_seconds").unwrap().default(),
        Some(&ActionValue::Int(3600))
    );
    let call = types.get("call_directive").unwrap();
    assert!(call.param("directive").unwrap().is_required());
    assert_eq!(
        call.param("parameters").unwrap().default(),
        Some(&ActionValue::Object(vec![]))
    );
    assert_eq!(
        call.param("inherit_token").unwrap().default(),
        Some(&ActionValue::Bool(true))
    );
    let suspend = types
        .get("suspend")
        .unwrap()
        .param("suspend_reason")
        .unwrap();
    assert!(suspend.is_required());
    assert_eq!(suspend.allowed().map(<[_]>::len), Some(4));
    let emit = types.get("emit_event").unwrap();
    assert!(emit.param("event_type").unwrap().is_required());
    assert_eq!(
        emit.param("payload").unwrap().ty().single(),
        Some(ParamType::Object)
    );
}

// ---- defaults and order -------------------------------------------------

#[test]
fn defaults_are_filled_in_declaration_order() {
    let a = ok(&yaml(
        "retry",
        vec![
            ("backoff_policy", str_("fixed")),
            ("delay", NodeKind::Int(2)),
        ],
    ));
    assert_eq!(a.kind, "retry");
    assert_eq!(a.span, sp(0, 500));
    assert_eq!(
        a.params,
        [
            ("max_attempts".to_owned(), ActionValue::Int(3)),
            ("backoff_policy".to_owned(), s("fixed")),
            ("delay".to_owned(), ActionValue::Int(2)),
        ]
    );
    // `number` keeps ints as ints and takes floats.
    let a = ok(&yaml("retry", vec![("delay", NodeKind::Float(1.5))]));
    assert_eq!(a.param("delay"), Some(&ActionValue::Double(1.5)));
    assert_eq!(a.param("backoff_policy"), Some(&s("inherit")));

    let a = ok(&yaml(
        "call_directive",
        vec![
            ("inherit_token", NodeKind::Bool(false)),
            ("directive", str_("d")),
        ],
    ));
    let names: Vec<&str> = a.params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["directive", "parameters", "inherit_token"]);
    assert_eq!(a.param("parameters"), Some(&ActionValue::Object(vec![])));
    assert_eq!(a.param("inherit_token"), Some(&ActionValue::Bool(false)));

    // A parameter with neither value nor default is left out.
    assert!(ok(&yaml("fail", vec![])).params.is_empty());
    assert!(ok(&yaml("escalate", vec![])).param("target").is_none());
    assert!(ok(&yaml("abort", vec![])).params.is_empty());
}

// ---- each error code ----------------------------------------------------

#[test]
fn unknown_action_type() {
    let d = one_error(&yaml("retyr", vec![]));
    assert_eq!(d.code, Code::UnknownActionType);
    assert_eq!(d.message, "unknown action type `retyr`");
    assert_eq!(d.span, Some(sp(10, 15)));
    assert_eq!(d.node_path.as_deref(), Some("hooks[1].action.type"));
    assert_eq!(d.help.as_deref(), Some("did you mean `retry`?"));

    let d = one_error(&yaml("frobnicate", vec![]));
    assert_eq!(
        d.help.as_deref(),
        Some(
            "expected one of `retry`, `fail`, `abort`, `continue`, `escalate`, `call_directive`, `suspend`, `emit_event`"
        )
    );

    // The parameters' templates are still checked.
    let (_, diags) = check(&yaml("retyr", vec![("x", str_("${a"))]));
    let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::UnknownActionType, Code::BadTemplate]);
}

#[test]
fn unknown_parameter() {
    let d = one_error(&yaml(
        "escalate",
        vec![("target", str_("both")), ("targt", str_("both"))],
    ));
    assert_eq!(d.code, Code::UnknownParameter);
    assert_eq!(d.message, "action type `escalate` has no parameter `targt`");
    assert_eq!(d.span, Some(sp(40, 45)));
    assert_eq!(d.node_path.as_deref(), Some("hooks[1].action.targt"));
    assert_eq!(d.help.as_deref(), Some("did you mean `target`?"));

    let d = one_error(&yaml("escalate", vec![("zzzzzzzz", NodeKind::Int(1))]));
    assert_eq!(
        d.help.as_deref(),
        Some("expected one of `target`, `timeout_seconds`")
    );

    let d = one_error(&yaml("abort", vec![("reason", str_("x"))]));
    assert_eq!(d.message, "action type `abort` has no parameter `reason`");
    assert_eq!(d.help.as_deref(), Some("`abort` takes no parameters"));
}

#[test]
fn missing_parameter() {
    let d = one_error(&yaml(
        "call_directive",
        vec![("inherit_token", NodeKind::Bool(true))],
    ));
    assert_eq!(d.code, Code::MissingParameter);
    assert_eq!(
        d.message,
        "missing required parameter `directive` of `call_directive`"
    );
    assert_eq!(d.span, Some(sp(0, 500)));
    assert_eq!(d.node_path.as_deref(), Some("hooks[1].action"));
    assert_eq!(
        d.help.as_deref(),
        Some("add `directive: ...` to the action")
    );

    let d = one_error(&xml("suspend", vec![], vec![]));
    assert_eq!(
        d.message,
        "missing required parameter `suspend_reason` of `suspend`"
    );
    assert_eq!(d.node_path, None);
    assert_eq!(
        d.help.as_deref(),
        Some("add the attribute `suspend_reason=\"...\"`")
    );

    // A parameter given with a bad value is not also missing.
    let d = one_error(&yaml(
        "call_directive",
        vec![("directive", NodeKind::Int(1))],
    ));
    assert_eq!(d.code, Code::ParameterType);
}

#[test]
fn parameter_type() {
    let d = one_error(&yaml("escalate", vec![("timeout_seconds", str_("7200"))]));
    assert_eq!(d.code, Code::ParameterType);
    assert_eq!(
        d.message,
        "parameter `timeout_seconds` of `escalate` must be an integer, found a string"
    );
    assert_eq!(d.span, Some(sp(30, 35)));
    assert_eq!(
        d.node_path.as_deref(),
        Some("hooks[1].action.timeout_seconds")
    );
    assert_eq!(d.label.as_deref(), Some("expected an integer"));

    // An integral 3.0 is an integer (JSON Schema's `integer`), kept as
    // written; 3.5 and infinity are not.
    let a = ok(&yaml("retry", vec![("max_attempts", NodeKind::Float(3.0))]));
    assert_eq!(a.param("max_attempts"), Some(&ActionValue::Double(3.0)));
    for f in [3.5, f64::INFINITY] {
        let d = one_error(&yaml("retry", vec![("max_attempts", NodeKind::Float(f))]));
        assert_eq!(
            d.message,
            "parameter `max_attempts` of `retry` must be an integer, found a number"
        );
    }
    let d = one_error(&yaml("retry", vec![("max_attempts", NodeKind::Null)]));
    assert_eq!(
        d.message,
        "parameter `max_attempts` of `retry` must be an integer, found null"
    );
    let d = one_error(&yaml(
        "call_directive",
        vec![
            ("directive", str_("d")),
            ("parameters", NodeKind::Seq(vec![])),
        ],
    ));
    assert_eq!(
        d.message,
        "parameter `parameters` of `call_directive` must be an object, found an array"
    );
    let d = one_error(&yaml(
        "call_directive",
        vec![("directive", str_("d")), ("inherit_token", str_("false"))],
    ));
    assert_eq!(
        d.message,
        "parameter `inherit_token` of `call_directive` must be a boolean, found a string"
    );
    let d = one_error(&yaml("fail", vec![("error_message", NodeKind::Int(5))]));
    assert_eq!(
        d.message,
        "parameter `error_message` of `fail` must be a string, found an integer"
    );
}

#[test]
fn parameter_enum() {
    let d = one_error(&yaml("escalate", vec![("target", str_("usr_approval"))]));
    assert_eq!(d.code, Code::ParameterEnum);
    assert_eq!(
        d.message,
        "parameter `target` of `escalate` does not allow `usr_approval`"
    );
    assert_eq!(d.span, Some(sp(30, 35)));
    assert_eq!(d.node_path.as_deref(), Some("hooks[1].action.target"));
    assert_eq!(d.help.as_deref(), Some("did you mean `user_approval`?"));

    let d = one_error(&yaml("escalate", vec![("target", str_("nobody"))]));
    assert_eq!(
        d.help.as_deref(),
        Some("expected one of `user_approval`, `parent_notification`, `both`")
    );
}

#[test]
fn every_problem_is_reported() {
    let raw = yaml(
        "call_directive",
        vec![
            ("directve", str_("d")),
            ("inherit_token", NodeKind::Int(1)),
            ("parameters", map(vec![("a", str_("${}"))])),
        ],
    );
    let (action, diags) = check(&raw);
    assert!(action.is_none());
    let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            Code::UnknownParameter,
            Code::ParameterType,
            Code::BadTemplate,
            Code::MissingParameter
        ]
    );
    assert_eq!(
        diags[1].node_path.as_deref(),
        Some("hooks[1].action.inherit_token")
    );
    assert_eq!(
        diags[2].node_path.as_deref(),
        Some("hooks[1].action.parameters.a")
    );
}

// ---- XML ----------------------------------------------------------------

#[test]
fn xml_text_is_coerced_by_the_declared_type() {
    let a = ok(&xml(
        "escalate",
        vec![("target", "user_approval"), ("timeout_seconds", "7200")],
        vec![],
    ));
    assert_eq!(
        a.params,
        [
            ("target".to_owned(), s("user_approval")),
            ("timeout_seconds".to_owned(), ActionValue::Int(7200)),
        ]
    );
    let a = ok(&xml(
        "call_directive",
        vec![("directive", "my_app/backoff"), ("inherit_token", "false")],
        vec![],
    ));
    assert_eq!(a.param("inherit_token"), Some(&ActionValue::Bool(false)));
    assert_eq!(a.param("directive"), Some(&s("my_app/backoff")));
    let a = ok(&xml(
        "retry",
        vec![("delay", "1.5"), ("max_attempts", " 4 ")],
        vec![],
    ));
    assert_eq!(a.param("delay"), Some(&ActionValue::Double(1.5)));
    assert_eq!(a.param("max_attempts"), Some(&ActionValue::Int(4)));
    let a = ok(&xml("retry", vec![("delay", "2")], vec![]));
    assert_eq!(a.param("delay"), Some(&ActionValue::Int(2)));

    let d = one_error(&xml(
        "escalate",
        vec![("timeout_seconds", "two hours")],
        vec![],
    ));
    assert_eq!(d.code, Code::ParameterType);
    assert_eq!(
        d.message,
        "parameter `timeout_seconds` of `escalate` must be an integer, found `two hours`"
    );
    assert_eq!(d.span, Some(sp(30, 35)));
    let a = ok(&xml("retry", vec![("max_attempts", "3.0")], vec![]));
    assert_eq!(a.param("max_attempts"), Some(&ActionValue::Double(3.0)));
    let d = one_error(&xml("retry", vec![("max_attempts", "3.5")], vec![]));
    assert_eq!(
        d.message,
        "parameter `max_attempts` of `retry` must be an integer, found `3.5`"
    );
    let d = one_error(&xml("retry", vec![("delay", "inf")], vec![]));
    assert_eq!(
        d.message,
        "parameter `delay` of `retry` must be a number, found `inf`"
    );
    let d = one_error(&xml(
        "call_directive",
        vec![("directive", "d"), ("inherit_token", "yes")],
        vec![],
    ));
    assert_eq!(
        d.message,
        "parameter `inherit_token` of `call_directive` must be a boolean, found `yes`"
    );
    assert_eq!(d.help.as_deref(), Some("write `true` or `false`"));
    let d = one_error(&xml(
        "call_directive",
        vec![("directive", "d"), ("parameters", "x")],
        vec![],
    ));
    assert_eq!(
        d.message,
        "parameter `parameters` of `call_directive` must be an object, found `x`"
    );
    assert_eq!(
        d.help.as_deref(),
        Some("write its entries as `<param name=\"key\">value</param>` children")
    );
    // Enum checks apply after coercion.
    let d = one_error(&xml("suspend", vec![("suspend_reason", "budgett")], vec![]));
    assert_eq!(d.code, Code::ParameterEnum);
    assert_eq!(d.help.as_deref(), Some("did you mean `budget`?"));
}

#[test]
fn xml_params_fill_the_object_parameter() {
    let mut paths = PathTable::new();
    let raw = xml(
        "call_directive",
        vec![("directive", "my_app/backoff")],
        vec![
            ("retry_after", "${error.headers['retry-after']}"),
            ("mode", "slow"),
        ],
    );
    let (action, diags) = check_in(
        &raw,
        &ActionTypes::builtin(),
        &ContextSchema::builtin(),
        &mut paths,
    );
    // `error` lists its properties: `headers` is outside, a warning.
    assert_eq!(
        messages(&diags),
        ["`error.headers['retry-after']` is not in the schema: `error` has no key `headers`"]
    );
    assert_eq!(diags[0].code, Code::PathNotInSchema);
    let action = action.unwrap();
    let Some(ActionValue::Object(entries)) = action.param("parameters") else {
        panic!("{action:?}");
    };
    assert_eq!(entries.len(), 2);
    let (key, ActionValue::Template(t)) = &entries[0] else {
        panic!("{entries:?}");
    };
    assert_eq!(key, "retry_after");
    let expected = Path::root("error")
        .child(Segment::Field("headers".into()))
        .child(Segment::Field("retry-after".into()));
    assert_eq!(t.whole_path(), Some(paths.intern(expected)));
    assert_eq!(entries[1], ("mode".to_owned(), s("slow")));
    assert_eq!(
        action.to_json(&paths),
        serde_json::json!({"type": "call_directive", "directive": "my_app/backoff",
            "parameters": {"retry_after": "${error.headers['retry-after']}", "mode": "slow"},
            "inherit_token": true})
    );

    let a = ok(&xml(
        "emit_event",
        vec![("event_type", "e")],
        vec![("k", "v")],
    ));
    assert_eq!(
        a.param("payload"),
        Some(&ActionValue::Object(vec![("k".into(), s("v"))]))
    );
}

#[test]
fn xml_params_without_a_single_object_parameter() {
    let d = one_error(&xml(
        "escalate",
        vec![("target", "both")],
        vec![("k", "v"), ("j", "w")],
    ));
    assert_eq!(d.code, Code::UnknownParameter);
    assert_eq!(
        d.message,
        "action type `escalate` has no object parameter for `<param>` children to fill"
    );
    assert_eq!(d.span, Some(sp(300, 304)));
    assert_eq!(
        d.help.as_deref(),
        Some("give its parameters as attributes: `target`, `timeout_seconds`")
    );
    let d = one_error(&xml("abort", vec![], vec![("k", "v")]));
    assert_eq!(d.help.as_deref(), Some("`abort` takes no parameters"));

    let (types, diags) = declared(serde_json::json!({"two": {"parameters": {
        "a": {"type": "object"}, "b": {"type": "object"}}}}));
    assert!(diags.is_empty());
    let (_, diags) = check_in(
        &xml("two", vec![], vec![("k", "v")]),
        &types,
        &ContextSchema::builtin(),
        &mut PathTable::new(),
    );
    assert_eq!(
        messages(&diags),
        ["action type `two` has several object parameters (`a`, `b`), so `<param>` children are ambiguous"]
    );

    let d = one_error(&xml(
        "call_directive",
        vec![("directive", "d"), ("parameters", "x")],
        vec![("k", "v")],
    ));
    assert_eq!(d.code, Code::ParameterType);
    assert_eq!(
        d.message,
        "parameter `parameters` of `call_directive` is given both as an attribute and as `<param>` children"
    );
    assert_eq!(d.span, Some(sp(40, 50)));

    let d = one_error(&xml(
        "emit_event",
        vec![("event_type", "e")],
        vec![("k", "v"), ("k", "w")],
    ));
    assert_eq!(d.code, Code::DuplicateKey);
    assert_eq!(d.message, "`<param name=\"k\">` is given twice");
    assert_eq!(d.span, Some(sp(320, 324)));
}

// ---- templates ------------------------------------------------------------

#[test]
fn templates_in_typed_parameters() {
    // A whole template keeps the path's type.
    let a = ok(&yaml(
        "retry",
        vec![("max_attempts", str_("${turn_number}"))],
    ));
    assert!(matches!(a.param("max_attempts"), Some(ActionValue::Template(t)) if t.is_whole()));
    // Untyped (free-form) data fits anything.
    ok(&yaml(
        "retry",
        vec![("max_attempts", str_("${cost.retries}"))],
    ));
    // `number` accepts an integer path; XML text templates too.
    ok(&xml("retry", vec![("delay", "${tokens_used}")], vec![]));

    let d = one_error(&yaml(
        "retry",
        vec![("max_attempts", str_("${error.message}"))],
    ));
    assert_eq!(d.code, Code::ParameterType);
    assert_eq!(
        d.message,
        "`${error.message}` is a string but parameter `max_attempts` of `retry` must be an integer"
    );
    assert_eq!(d.node_path.as_deref(), Some("hooks[1].action.max_attempts"));
    // A `number` path may hold an integer: accepted.
    ok(&yaml(
        "retry",
        vec![("max_attempts", str_("${pressure_ratio}"))],
    ));
    let d = one_error(&yaml(
        "retry",
        vec![("max_attempts", str_("${classification.retryable}"))],
    ));
    assert_eq!(
        d.message,
        "`${classification.retryable}` is a boolean but parameter `max_attempts` of `retry` must be an integer"
    );
    let d = one_error(&xml(
        "call_directive",
        vec![
            ("directive", "d"),
            ("inherit_token", "${classification.category}"),
        ],
        vec![],
    ));
    assert_eq!(
        d.message,
        "`${classification.category}` is a string but parameter `inherit_token` of `call_directive` must be a boolean"
    );

    // Text around a reference makes a string.
    let d = one_error(&yaml(
        "retry",
        vec![("max_attempts", str_("n${turn_number}"))],
    ));
    assert_eq!(
        d.message,
        "`n${turn_number}` is a string but parameter `max_attempts` of `retry` must be an integer"
    );
    assert_eq!(
        d.help.as_deref(),
        Some("only a template that is exactly one `${path}` keeps the value's type")
    );
    ok(&yaml(
        "fail",
        vec![(
            "error_message",
            str_("failed: ${error.message} (${error.code})"),
        )],
    ));
}

#[test]
fn template_paths_are_checked_against_the_schema() {
    // The seed000 example's compaction hook: `event.*` is outside the open `event` object.
    let raw = yaml(
        "call_directive",
        vec![
            ("directive", str_("rye/agent/threads/default_compaction")),
            (
                "parameters",
                map(vec![
                    ("pressure_ratio", str_("${event.pressure_ratio}")),
                    (
                        "list",
                        NodeKind::Seq(vec![Node {
                            kind: str_("${event.max_tokens}"),
                            span: sp(7, 9),
                        }]),
                    ),
                ]),
            ),
        ],
    );
    let (action, diags) = check(&raw);
    assert!(action.is_some());
    assert_eq!(
        messages(&diags),
        [
            "`event.pressure_ratio` is not in the schema: `event` has no key `pressure_ratio`",
            "`event.max_tokens` is not in the schema: `event` has no key `max_tokens`",
        ]
    );
    assert!(diags.iter().all(|d| d.code == Code::PathNotInSchema));
    assert_eq!(
        diags[0].node_path.as_deref(),
        Some("hooks[1].action.parameters.pressure_ratio")
    );
    assert_eq!(
        diags[1].node_path.as_deref(),
        Some("hooks[1].action.parameters.list[0]")
    );
    assert_eq!(diags[1].span, Some(sp(7, 9)));

    // A closed schema makes it an error.
    let closed = schema(
        serde_json::json!({"type": "object", "additionalProperties": false,
        "properties": {"code": {"type": "string"}}}),
    );
    let (action, diags) = check_in(
        &yaml("fail", vec![("error_message", str_("${cdoe}"))]),
        &ActionTypes::builtin(),
        &closed,
        &mut PathTable::new(),
    );
    assert!(action.is_none());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, Code::UnknownPath);
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `code`?"));

    // Syntax errors inside a reference.
    let d = one_error(&yaml(
        "fail",
        vec![("error_message", str_("x ${error.code"))],
    ));
    assert_eq!(d.code, Code::BadTemplate);
    assert_eq!(d.span, Some(sp(30, 35)));
    assert_eq!(
        d.node_path.as_deref(),
        Some("hooks[1].action.error_message")
    );
}

#[test]
fn templates_in_enum_parameters() {
    // No schema enum: cannot be checked, accepted.
    ok(&yaml("escalate", vec![("target", str_("${error.code}"))]));

    let with_enum = |values: serde_json::Value| {
        schema(serde_json::json!({"type": "object", "properties": {
            "who": {"type": ["string", "null"], "enum": values}}}))
    };
    let types = ActionTypes::builtin();
    let raw = yaml("escalate", vec![("target", str_("${who}"))]);
    let (action, diags) = check_in(
        &raw,
        &types,
        &with_enum(serde_json::json!(["both", "user_approval", null])),
        &mut PathTable::new(),
    );
    assert!(action.is_some() && diags.is_empty(), "{diags:#?}");
    // Some schema values fit: the others are checked at run time.
    let (action, diags) = check_in(
        &raw,
        &types,
        &with_enum(serde_json::json!(["both", "admin", "root"])),
        &mut PathTable::new(),
    );
    assert!(action.is_some() && diags.is_empty(), "{diags:#?}");
    // None does: an error.
    let (action, diags) = check_in(
        &raw,
        &types,
        &with_enum(serde_json::json!(["admin", "root", null])),
        &mut PathTable::new(),
    );
    assert!(action.is_none());
    assert_eq!(
        messages(&diags),
        ["`${who}` may be `admin`, `root`, which parameter `target` of `escalate` does not allow"]
    );
    assert_eq!(diags[0].code, Code::ParameterEnum);

    let d = one_error(&yaml(
        "escalate",
        vec![("target", str_("user_${error.code}"))],
    ));
    assert_eq!(d.code, Code::ParameterEnum);
    assert_eq!(
        d.message,
        "parameter `target` of `escalate` does not allow the interpolated string `user_${error.code}`"
    );
}

#[test]
fn escaped_templates_are_literals() {
    let mut paths = PathTable::new();
    let (action, diags) = check_in(
        &yaml("fail", vec![("error_message", str_("cost $${amount}"))]),
        &ActionTypes::builtin(),
        &ContextSchema::builtin(),
        &mut paths,
    );
    assert!(diags.is_empty());
    let action = action.unwrap();
    assert_eq!(action.param("error_message"), Some(&s("cost ${amount}")));
    assert!(paths.is_empty());
    // Source form escapes again; the runtime value does not.
    assert_eq!(
        action.to_json(&paths),
        serde_json::json!({"type": "fail", "error_message": "cost $${amount}"})
    );
    let value = action.param("error_message").unwrap();
    assert_eq!(
        value.const_json(),
        Some(serde_json::json!("cost ${amount}"))
    );
    assert!(!value.has_templates());
}

#[test]
fn values_to_json() {
    let mut paths = PathTable::new();
    let (action, _) = check_in(
        &yaml(
            "emit_event",
            vec![
                ("event_type", str_("e")),
                (
                    "payload",
                    map(vec![
                        ("n", NodeKind::Float(0.5)),
                        ("t", str_("${ error.type }")),
                    ]),
                ),
            ],
        ),
        &ActionTypes::builtin(),
        &ContextSchema::builtin(),
        &mut paths,
    );
    let action = action.unwrap();
    let payload = action.param("payload").unwrap();
    assert!(payload.has_templates());
    assert_eq!(payload.const_json(), None);
    assert_eq!(
        payload.to_json(&paths),
        serde_json::json!({"n": 0.5, "t": "${error.type}"})
    );
    assert_eq!(
        ActionValue::from_json(&serde_json::json!({"a": [1, 2.5, null, true, "x"]})),
        ActionValue::Object(vec![(
            "a".into(),
            ActionValue::List(vec![
                ActionValue::Int(1),
                ActionValue::Double(2.5),
                ActionValue::Null,
                ActionValue::Bool(true),
                s("x"),
            ])
        )])
    );
}

// ---- declarations -----------------------------------------------------------

#[test]
fn declarations_merge_over_the_builtins() {
    let (mut types, diags) = declared(serde_json::json!({
        "notify": {"description": "Notify someone", "parameters": {
            "channel": {"type": "string", "enum": ["slack", "email"], "default": "slack"},
            "urgent": {"type": "boolean", "required": true}}},
        "retry": {"parameters": {"max_attempts": {"type": "integer", "default": 5}}},
    }));
    assert!(diags.is_empty(), "{diags:#?}");
    let custom: Vec<&str> = types.custom_definitions().map(|(n, _)| n).collect();
    assert_eq!(custom, ["notify", "retry"]);
    let (_, retry_src) = types.custom_definitions().nth(1).unwrap();
    assert_eq!(
        retry_src,
        &serde_json::json!({"parameters": {"max_attempts": {"type": "integer", "default": 5}}})
    );
    // The replacement has only its own parameters.
    let retry = types.get("retry").unwrap();
    assert!(retry.is_declared());
    assert_eq!(retry.params().len(), 1);
    assert_eq!(types.names().count(), 9);

    let schema = ContextSchema::builtin();
    let (a, diags) = check_in(
        &yaml("notify", vec![("urgent", NodeKind::Bool(true))]),
        &types,
        &schema,
        &mut PathTable::new(),
    );
    assert!(diags.is_empty());
    assert_eq!(
        a.unwrap().params,
        [
            ("channel".to_owned(), s("slack")),
            ("urgent".to_owned(), ActionValue::Bool(true))
        ]
    );
    let (a, _) = check_in(
        &yaml("retry", vec![]),
        &types,
        &schema,
        &mut PathTable::new(),
    );
    assert_eq!(
        a.unwrap().params,
        [("max_attempts".to_owned(), ActionValue::Int(5))]
    );

    // A second file: the same definition again is fine, another is not.
    let mut diags = Diagnostics::new();
    let again = serde_json::json!({"retry": {"parameters": {"max_attempts": {"type": "integer", "default": 5}}}});
    types.declare(&Node::from_json(&again, sp(0, 0)), &mut diags);
    assert!(diags.is_empty());
    let other = serde_json::json!({"notify": {"parameters": {}}});
    types.declare(&Node::from_json(&other, sp(0, 0)), &mut diags);
    let diags = diags.into_vec();
    assert_eq!(messages(&diags), ["action type `notify` is defined twice"]);
    assert_eq!(diags[0].code, Code::DuplicateDefinition);
    assert_eq!(diags[0].node_path.as_deref(), Some("action_types.notify"));
    assert_eq!(types.get("notify").unwrap().params().len(), 2);
    assert_eq!(types.custom_definitions().count(), 2);
}

#[test]
fn invalid_definitions() {
    let (types, diags) = declared(serde_json::json!({
        "a": {"descripton": "x", "parameters": {
            "p1": {"type": "float"},
            "p2": {"type": "integer", "default": "3"},
            "p3": {"type": "string", "enum": ["x", "y"], "default": "z"},
            "p4": {"type": "string", "required": true, "default": "x"},
            "p5": {"enum": "x"},
            "p6": {"requird": true},
            "p7": {"type": "string", "default": "${error.code}"},
            "p8": "string",
            "type": {"type": "string"},
            "p9": {"type": "integer", "enum": [1, "two"]},
            "p10": {"required": true, "optional": true},
            "p11": {"enum": []}
        }},
        "b": {"parameters": [1]},
    }));
    assert!(diags.iter().all(|d| d.code == Code::ActionTypeDef));
    assert_eq!(
        messages(&diags),
        [
            "action type `a` has unknown key `descripton`",
            "unknown parameter type `float` for parameter `p1` of `a`",
            "default of parameter `p2` of `a` must be an integer, found a string",
            "default `z` of parameter `p3` of `a` is not one of its `enum` values",
            "parameter `p4` of `a` is required and has a default",
            "`enum` of parameter `p5` of `a` must be a list of values, found a string",
            "parameter `p6` of `a` has unknown key `requird`",
            "`${error.code}` in the definition of parameter `p7` of `a` holds a `${...}` reference",
            "parameter `p8` of `a` must be a mapping, found a string",
            "action type `a` cannot have a parameter named `type`",
            "enum value `two` of parameter `p9` of `a` is not an integer",
            "parameter `p10` of `a` cannot be both required and optional",
            "`enum` of parameter `p11` of `a` is empty",
            "`parameters` of action type `b` must be a mapping from parameter names to definitions, found an array",
        ]
    );
    let helps: Vec<Option<&str>> = diags.iter().map(|d| d.help.as_deref()).collect();
    assert_eq!(helps[0], Some("did you mean `description`?"));
    assert_eq!(
        helps[1],
        Some("expected one of `string`, `integer`, `number`, `boolean`, `object`, `array`")
    );
    assert_eq!(helps[3], Some("expected one of `x`, `y`"));
    assert_eq!(helps[6], Some("did you mean `required`?"));
    assert_eq!(helps[7], Some("write `$${` for a literal `${`"));
    assert_eq!(
        diags[1].node_path.as_deref(),
        Some("action_types.a.parameters.p1.type")
    );
    assert_eq!(
        diags[0].node_path.as_deref(),
        Some("action_types.a.descripton")
    );

    // Bad parts are dropped; the type is still there.
    let a = types.get("a").unwrap();
    assert_eq!(a.param("p1").unwrap().ty().single(), None);
    assert_eq!(a.param("p2").unwrap().default(), None);
    assert!(a.param("type").is_none());
    assert!(types.get("b").unwrap().params().is_empty());

    // Escapes in defaults are resolved.
    let (types, diags) = declared(serde_json::json!({"c": {"parameters": {
        "m": {"type": "string", "default": "$${x}"},
        "n": {"type": "number", "enum": [1, 2.5], "default": 1.0}}}}));
    assert!(diags.is_empty(), "{diags:#?}");
    let c = types.get("c").unwrap();
    assert_eq!(c.param("m").unwrap().default(), Some(&s("${x}")));
    assert_eq!(
        c.param("n").unwrap().default(),
        Some(&ActionValue::Double(1.0))
    );

    let (_, diags) = declared(serde_json::json!(["x"]));
    assert_eq!(
        messages(&diags),
        ["`action_types` must be a mapping from action type names to definitions, found an array"]
    );
}

#[test]
fn enum_values_compare_numbers_across_kinds() {
    let (types, _) = declared(serde_json::json!({"n": {"parameters": {
        "level": {"type": "number", "enum": [1, 2.5]}}}}));
    let schema = ContextSchema::builtin();
    for (value, good) in [
        (NodeKind::Float(1.0), true),
        (NodeKind::Int(1), true),
        (NodeKind::Int(2), false),
    ] {
        let (a, diags) = check_in(
            &yaml("n", vec![("level", value)]),
            &types,
            &schema,
            &mut PathTable::new(),
        );
        assert_eq!(a.is_some(), good, "{diags:#?}");
    }
    let (_, diags) = check_in(
        &yaml("n", vec![("level", NodeKind::Int(2))]),
        &types,
        &schema,
        &mut PathTable::new(),
    );
    assert_eq!(
        messages(&diags),
        ["parameter `level` of `n` does not allow `2`"]
    );
    assert_eq!(diags[0].help.as_deref(), Some("expected one of `1`, `2.5`"));
}

#[test]
fn child_paths_quote_odd_keys() {
    assert_eq!(child_path("a", "b_1"), "a.b_1");
    assert_eq!(child_path("a", "retry-after"), "a['retry-after']");
    assert_eq!(child_path("a", ""), "a['']");
    assert_eq!(
        kinds_phrase(Kinds::NUMBER.or(Kinds::NULL)),
        "null or a number"
    );
    assert_eq!(kinds_phrase(Kinds::INT), "an integer");
}

#[test]
fn performed_by_names_hookc_or_the_host() {
    let (types, diags) = declared(serde_json::json!({
        "note": {"description": "x", "effect": "collected", "performed_by": "hookc", "parameters": {}},
        "ask": {"description": "x", "performed_by": "host", "parameters": {}},
        "bad": {"description": "x", "performed_by": "agent", "parameters": {}},
    }));
    assert_eq!(
        messages(&diags),
        ["`performed_by` of action type `bad` must be `host` or `hookc`, found `agent`"]
    );
    let performer = |name: &str| types.get(name).map(ActionType::performer);
    assert_eq!(performer("note"), Some(Performer::Hookc));
    assert_eq!(performer("ask"), Some(Performer::Host));
    assert_eq!(performer("retry"), Some(Performer::Host));
}

/// `bind: {parameter: k}` binds a result at the key `k` holds: a `k` that
/// may hold anything but a string (or `null`, which binds nowhere) would
/// drop the result (issue 35, defect 4).
#[test]
fn a_bound_parameter_holds_a_key() {
    let with = |k: serde_json::Value| {
        declared(serde_json::json!({
            "probe": {"effect": "await", "bind": {"parameter": "k"}, "parameters": {"k": k}}
        }))
        .1
    };
    for fine in [
        serde_json::json!({"type": "string", "required": true}),
        serde_json::json!({"type": "string", "default": "x"}),
        serde_json::json!({"type": ["string", "null"]}),
    ] {
        assert!(with(fine.clone()).is_empty(), "{fine}");
    }
    for (bad, says) in [
        (
            serde_json::json!({"type": "integer", "required": true}),
            "is of type `integer`",
        ),
        (serde_json::json!({"description": "any"}), "is of any type"),
        (
            serde_json::json!({"type": ["string", "array"]}),
            "is of type `string | array`",
        ),
        (
            serde_json::json!({"type": "string"}),
            "an action may leave `k` out",
        ),
    ] {
        let diags = with(bad.clone());
        assert_eq!(diags.len(), 1, "{bad}: {:?}", messages(&diags));
        assert_eq!(diags[0].code, Code::ActionTypeDef);
        assert!(
            diags[0].message.contains(says),
            "{bad}: {}",
            diags[0].message
        );
    }
}
