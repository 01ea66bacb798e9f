//! Tests of the YAML hook-file front end: the seed files, both layers, every
//! hook and action key, node paths and spans, and structural errors.

use super::*;
use crate::span::{Origin, Span};

const F: FileId = FileId(3);

fn read_ok(text: &str) -> SourceFile {
    let mut diags = Diagnostics::new();
    let file = read(text, F, "hooks.yaml", &mut diags);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics: {:#?}",
        diags.into_vec()
    );
    file
}

fn read_err(text: &str) -> (SourceFile, Vec<Diagnostic>) {
    let mut diags = Diagnostics::new();
    let file = read(text, F, "hooks.yaml", &mut diags);
    let diags = diags.into_vec();
    assert!(!diags.is_empty(), "expected diagnostics for {text:?}");
    (file, diags)
}

/// The only diagnostic of `text`: code, node path, message, spanned source.
fn one(text: &str) -> (Code, String, String, String, Option<String>) {
    let (_, diags) = read_err(text);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = diags.into_iter().next().unwrap();
    let src = d
        .span
        .map(|s| text[s.range()].to_owned())
        .unwrap_or_default();
    (
        d.code,
        d.node_path.unwrap_or_default(),
        d.message,
        src,
        d.help,
    )
}

fn names(params: &[(Spanned<String>, Node)]) -> Vec<&str> {
    params.iter().map(|(k, _)| k.value.as_str()).collect()
}

#[test]
fn seed_builtin_hooks_read_cleanly() {
    let text = include_str!("../../../../../examples/thread-hooks/hooks.yaml");
    let file = read_ok(text);
    assert_eq!(file.schema_version.as_ref().unwrap().value, "1.0.0");
    assert!(file.context_schema.is_some());
    assert!(file.action_types.is_some());
    assert!(file.operators_doc.is_some());
    assert_eq!(file.hooks.len(), 3);
    assert!(file.hooks.iter().all(|h| h.layer == Layer::Builtin));
    let summary: Vec<(&str, &str, i64, &str, Vec<&str>)> = file
        .hooks
        .iter()
        .map(|h| {
            (
                h.id.as_ref().unwrap().value.as_str(),
                h.events[0].value.as_str(),
                h.priority.as_ref().unwrap().value,
                h.action.kind.value.as_str(),
                names(&h.action.params),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "default_limit_escalation",
                "limit",
                0,
                "escalate",
                vec!["target"]
            ),
            (
                "default_transient_retry",
                "error",
                0,
                "retry",
                vec!["max_attempts"]
            ),
            (
                "default_compaction",
                "context_window_pressure",
                0,
                "call_directive",
                vec!["directive", "parameters"]
            ),
        ]
    );
    for (i, h) in file.hooks.iter().enumerate() {
        assert_eq!(h.index, i);
        assert_eq!(
            h.node_path.as_deref(),
            Some(format!("builtin_hooks[{i}]").as_str())
        );
        assert_eq!(
            h.action.node_path.as_deref(),
            Some(format!("builtin_hooks[{i}].action").as_str())
        );
        assert!(h.enabled);
        assert!(matches!(h.condition, Some(RawCondition::Tree(_))));
        assert_eq!(h.events.len(), 1);
        assert_eq!(
            &text[h.events[0].span.range()],
            format!("\"{}\"", h.events[0].value)
        );
    }
    let max = &file.hooks[1].action.params[0].1;
    assert_eq!(max.kind, NodeKind::Int(3));
}

#[test]
fn seed_directive_hooks_read_cleanly() {
    let text = include_str!("../../../../../examples/thread-hooks/directive_hooks.yaml");
    let file = read_ok(text);
    assert!(file.schema_version.is_none());
    assert_eq!(file.hooks.len(), 4);
    let summary: Vec<(Layer, usize, &str, &str, Vec<&str>)> = file
        .hooks
        .iter()
        .map(|h| {
            assert!(h.id.is_none() && h.priority.is_none());
            (
                h.layer,
                h.index,
                h.events[0].value.as_str(),
                h.action.kind.value.as_str(),
                names(&h.action.params),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                Layer::Directive,
                0,
                "error",
                "call_directive",
                vec!["directive", "parameters"]
            ),
            (
                Layer::Directive,
                1,
                "limit",
                "escalate",
                vec!["target", "timeout_seconds"]
            ),
            (
                Layer::Directive,
                2,
                "context_window_pressure",
                "call_directive",
                vec!["directive"]
            ),
            (
                Layer::Directive,
                3,
                "error",
                "emit_event",
                vec!["event_type", "payload"]
            ),
        ]
    );
    let Some(RawCondition::Tree(tree)) = &file.hooks[1].condition else {
        panic!("no condition tree");
    };
    assert_eq!(tree.get("all").unwrap().as_seq().unwrap().len(), 2);
    let timeout = &file.hooks[1].action.params[1].1;
    assert_eq!(timeout.kind, NodeKind::Int(7200));
}

#[test]
fn full_hook() {
    let text = "\
schema_version: 1.2.3
hooks:
  - id: h1
    event: [error, limit]
    priority: -5
    when: classification.category == 'x'
    action: {type: fail, error_message: boom}
    enabled: false
    description: a hook
builtin_hooks: []
combinators: [anything]
return_schema: 7
";
    let file = read_ok(text);
    assert_eq!(file.schema_version.unwrap().value, "1.2.3");
    let h = &file.hooks[0];
    assert_eq!(h.id.as_ref().unwrap().value, "h1");
    let events: Vec<&str> = h.events.iter().map(|e| e.value.as_str()).collect();
    assert_eq!(events, ["error", "limit"]);
    assert_eq!(h.priority.as_ref().unwrap().value, -5);
    assert!(!h.enabled);
    assert_eq!(h.description.as_deref(), Some("a hook"));
    assert_eq!(&text[h.span.range()].lines().next(), &Some("id: h1"));
    let Some(RawCondition::When {
        text: expr,
        origin,
        span,
    }) = &h.condition
    else {
        panic!("no when");
    };
    assert_eq!(expr, "classification.category == 'x'");
    let Origin::Exact { base, .. } = origin else {
        panic!("inexact origin");
    };
    assert_eq!(&text[*base as usize..span.end as usize], expr);
    assert_eq!(h.action.kind.value, "fail");
    assert_eq!(names(&h.action.params), ["error_message"]);
    assert!(h.action.xml_params.is_empty());
    assert_eq!(
        &text[h.action.span.range()],
        "{type: fail, error_message: boom}"
    );
}

#[test]
fn empty_and_null_inputs() {
    assert!(read_ok("").hooks.is_empty());
    assert!(read_ok("# nothing\n").hooks.is_empty());
    assert!(read_ok("hooks: []\nbuiltin_hooks: []\n").hooks.is_empty());
}

#[test]
fn when_as_quoted_string_and_bool() {
    let text = "hooks:\n  - event: e\n    when: \"a > 1\"\n    action: {type: abort}\n  - event: e\n    when: true\n    action: {type: abort}\n";
    let file = read_ok(text);
    let Some(RawCondition::When { origin, .. }) = &file.hooks[0].condition else {
        panic!()
    };
    let base = u32::try_from(text.find("a > 1").unwrap()).unwrap();
    assert_eq!(*origin, Origin::Exact { file: F, base });
    let Some(RawCondition::When { text: t, .. }) = &file.hooks[1].condition else {
        panic!()
    };
    assert_eq!(t, "true");
}

#[test]
fn yaml_errors_give_an_empty_file() {
    let (file, diags) = read_err("hooks: [\n");
    assert!(file.hooks.is_empty());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, Code::YamlSyntax);
}

#[test]
fn top_level_errors() {
    let (code, path, msg, src, help) = one("- a\n- b\n");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (
            Code::WrongShape,
            "",
            "expected a mapping of top-level keys, found a list"
        )
    );
    assert_eq!(src, "- a\n- b");
    assert!(help.unwrap().contains("hooks.yaml"));

    let (code, path, msg, src, help) = one("hook:\n  - event: e\n");
    assert_eq!(code, Code::UnknownKey);
    assert_eq!(path, "hook");
    assert_eq!(msg, "unknown top-level key `hook`");
    assert_eq!(src, "hook");
    assert_eq!(help.as_deref(), Some("did you mean `hooks`?"));

    let (code, _, _, _, help) = one("zzzzzzzzzzzzzz: 1\n");
    assert_eq!(code, Code::UnknownKey);
    assert!(help
        .unwrap()
        .starts_with("expected one of `schema_version`"));
}

#[test]
fn schema_version_errors() {
    let (code, path, msg, src, help) = one("schema_version: 1.0\n");
    assert_eq!(code, Code::WrongShape);
    assert_eq!(path, "schema_version");
    assert_eq!(msg, "expected a version string, found a number");
    assert_eq!(src, "1.0");
    assert_eq!(help.as_deref(), Some("quote it: \"1.0.0\""));

    let (code, _, msg, src, help) = one("schema_version: \"2.0.0\"\n");
    assert_eq!(code, Code::SchemaVersion);
    assert_eq!(msg, "schema_version `2.0.0` is not supported");
    assert_eq!(src, "\"2.0.0\"");
    assert_eq!(help.as_deref(), Some("hookc reads schema_version 1.x.y"));

    for bad in ["'1.0'", "1.0.x", "v1.0.0", "1..0", "1.0.0.0"] {
        let (code, path, msg, _, _) = one(&format!("schema_version: {bad}\n"));
        assert_eq!(
            (code, path.as_str()),
            (Code::SchemaVersion, "schema_version"),
            "{bad}"
        );
        assert!(msg.starts_with("malformed schema_version"), "{msg}");
    }
    assert!(read_ok("schema_version: '1.99.0'\n")
        .schema_version
        .is_some());
}

#[test]
fn hook_list_shapes() {
    let (code, path, msg, src, _) = one("hooks: {a: 1}\n");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (
            Code::WrongShape,
            "hooks",
            "expected a list of hooks, found a mapping"
        )
    );
    assert_eq!(src, "{a: 1}");
    // A host's settings file given as a policy says what it is (issue 35,
    // defect 6).
    let (_, _, _, _, help) = one("hooks: {PreToolUse: [{matcher: Bash, hooks: []}]}\n");
    let help = help.unwrap_or_default();
    assert!(
        help.contains(
            "keyed by event names (`PreToolUse`) is the shape of an agent host's settings"
        ),
        "{help}"
    );
    assert!(help.contains("hookc init --host HOST"), "{help}");

    // A file cut short after `hooks:` (a guard truncated on disk) is not a
    // policy with no hooks: that is `hooks: []`.
    let (code, path, msg, _, _) = one("host: claude-code\nhooks:\n  # the rules\n");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (
            Code::WrongShape,
            "hooks",
            "expected a list of hooks, found null"
        )
    );
    assert!(read_ok("hooks: []\n").hooks.is_empty());

    let (code, path, msg, src, _) = one("builtin_hooks:\n  - just a string\n");
    assert_eq!(code, Code::WrongShape);
    assert_eq!(path, "builtin_hooks[0]");
    assert_eq!(msg, "expected a hook mapping, found a string");
    assert_eq!(src, "just a string");
}

fn hook(body: &str) -> String {
    format!("hooks:\n  - event: e\n    action: {{type: abort}}\n  - {body}\n")
}

type OneError = (Code, String, String, String, Option<String>);

/// The one error of a hook without events or action: the good hook is kept,
/// the bad one skipped.
fn hook_error(body: &str) -> OneError {
    hook_error_keeping(body, false)
}

/// The one error of a hook with events and action (`kept`: the hook is
/// still handed on, so that its condition and action are checked).
fn hook_error_keeping(body: &str, kept: bool) -> OneError {
    let text = hook(body);
    let (file, diags) = read_err(&text);
    assert_eq!(
        file.hooks.len(),
        1 + usize::from(kept),
        "the good hook is kept; the bad one only if it can be checked"
    );
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = diags.into_iter().next().unwrap();
    let src = d
        .span
        .map(|s| text[s.range()].to_owned())
        .unwrap_or_default();
    (
        d.code,
        d.node_path.unwrap_or_default(),
        d.message,
        src,
        d.help,
    )
}

#[test]
fn unknown_hook_key() {
    let (code, path, msg, src, help) =
        hook_error_keeping("evnt: e\n    event: e\n    action: {type: abort}", true);
    assert_eq!(code, Code::UnknownKey);
    assert_eq!(path, "hooks[1].evnt");
    assert_eq!(msg, "unknown hook key `evnt`");
    assert_eq!(src, "evnt");
    assert_eq!(help.as_deref(), Some("did you mean `event`?"));
}

#[test]
fn missing_keys() {
    let (code, path, msg, src, _) = hook_error("event: e");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (Code::MissingKey, "hooks[1]", "hook has no `action`")
    );
    assert_eq!(src, "event: e");
    let (code, path, msg, _, _) = hook_error("action: {type: abort}");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (Code::MissingKey, "hooks[1]", "hook has no `event`")
    );
    let (code, path, msg, src, _) = hook_error("event: e\n    action: {target: x}");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (Code::MissingKey, "hooks[1].action", "action has no `type`")
    );
    assert_eq!(src, "{target: x}");
}

#[test]
fn event_errors() {
    for (body, msg, src) in [
        ("event: ''", "hook has an empty event name", "''"),
        ("event: []", "hook has an empty `event` list", "[]"),
        ("event:", "hook has no event", ""),
    ] {
        let (code, path, m, s, _) = hook_error(&format!("{body}\n    action: {{type: abort}}"));
        assert_eq!(
            (code, path.as_str(), m.as_str(), s.as_str()),
            (Code::NoEvent, "hooks[1].event", msg, src)
        );
    }
    let (code, path, msg, _, _) = hook_error("event: [a, '']\n    action: {type: abort}");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (
            Code::NoEvent,
            "hooks[1].event[1]",
            "hook has an empty event name"
        )
    );
    let (code, path, msg, src, _) = hook_error("event: [a, 7]\n    action: {type: abort}");
    assert_eq!(
        (code, path.as_str(), msg.as_str(), src.as_str()),
        (
            Code::WrongShape,
            "hooks[1].event[1]",
            "expected an event name, found an integer",
            "7"
        )
    );
    let (code, path, msg, _, _) = hook_error("event: {a: b}\n    action: {type: abort}");
    assert_eq!(
        (code, path.as_str(), msg.as_str()),
        (
            Code::WrongShape,
            "hooks[1].event",
            "expected an event name or a list of event names, found a mapping"
        )
    );
}

#[test]
fn field_shape_errors() {
    let cases: [(&str, &str, &str, &str, Option<&str>); 9] = [
        (
            "id: 42",
            "hooks[1].id",
            "expected a string for `id`, found an integer",
            "42",
            Some("quote it"),
        ),
        (
            "priority: 1.5",
            "hooks[1].priority",
            "expected an integer for `priority`, found a number",
            "1.5",
            None,
        ),
        (
            "priority: 2.0",
            "hooks[1].priority",
            "expected an integer for `priority`, found a number",
            "2.0",
            Some("priorities are integers: `priority: 2`"),
        ),
        (
            "priority: '10'",
            "hooks[1].priority",
            "expected an integer for `priority`, found a string",
            "'10'",
            Some("remove the quotes: `priority: 10`"),
        ),
        (
            "enabled: 'true'",
            "hooks[1].enabled",
            "expected `true` or `false` for `enabled`, found a string",
            "'true'",
            Some("remove the quotes"),
        ),
        (
            "description: [a]",
            "hooks[1].description",
            "expected a string for `description`, found a list",
            "[a]",
            None,
        ),
        (
            "when: 3",
            "hooks[1].when",
            "expected an expression string for `when`, found an integer",
            "3",
            Some("quote the expression: `when: \"...\"`"),
        ),
        (
            "when: {path: a, op: exists}",
            "hooks[1].when",
            "expected an expression string for `when`, found a mapping",
            "{path: a, op: exists}",
            Some("use `condition:` for a condition tree"),
        ),
        (
            "action: retry",
            "hooks[1].action",
            "expected an action mapping for `action`, found a string",
            "retry",
            Some("write `action: {type: retry}`"),
        ),
    ];
    for (field, path, msg, src, help) in cases {
        let body = if field.starts_with("action") {
            format!("event: e\n    {field}")
        } else {
            format!("event: e\n    action: {{type: abort}}\n    {field}")
        };
        let got = hook_error_keeping(&body, !field.starts_with("action"));
        assert_eq!(
            (
                got.0,
                got.1.as_str(),
                got.2.as_str(),
                got.3.as_str(),
                got.4.as_deref()
            ),
            (Code::WrongShape, path, msg, src, help),
            "{field}"
        );
    }
    let (code, path, msg, src, _) = hook_error("event: e\n    action: {type: [retry]}");
    assert_eq!(
        (code, path.as_str(), msg.as_str(), src.as_str()),
        (
            Code::WrongShape,
            "hooks[1].action.type",
            "expected an action type name for `type`, found a list",
            "[retry]"
        )
    );
}

#[test]
fn condition_and_when() {
    let (code, path, msg, src, help) = hook_error_keeping(
        "event: e\n    condition: {path: a, op: exists}\n    when: a\n    action: {type: abort}",
        true,
    );
    assert_eq!(code, Code::ConditionAndWhen);
    assert_eq!(path, "hooks[1].when");
    assert_eq!(msg, "hook has both `condition` and `when`");
    assert_eq!(src, "when");
    assert_eq!(help.as_deref(), Some("use one of them"));
}

#[test]
fn all_errors_are_reported() {
    let text = "\
schema_version: 3.0.0
hookz: []
hooks:
  - event: ''
    priority: x
    bogus: 1
  - 12
  - event: ok
    action: {type: abort}
builtin_hooks: nope
";
    let (file, diags) = read_err(text);
    let got: Vec<(Code, &str)> = diags
        .iter()
        .map(|d| (d.code, d.node_path.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [
            (Code::SchemaVersion, "schema_version"),
            (Code::UnknownKey, "hookz"),
            (Code::NoEvent, "hooks[0].event"),
            (Code::WrongShape, "hooks[0].priority"),
            (Code::UnknownKey, "hooks[0].bogus"),
            (Code::MissingKey, "hooks[0]"),
            (Code::WrongShape, "hooks[1]"),
            (Code::WrongShape, "builtin_hooks"),
        ]
    );
    assert!(diags.iter().all(|d| d.span.is_some_and(|s| s.file == F)));
    assert_eq!(file.hooks.len(), 1);
    assert_eq!(file.hooks[0].index, 2);
    assert_eq!(file.hooks[0].node_path.as_deref(), Some("hooks[2]"));
}

#[test]
fn spans_point_into_the_file() {
    let text = "hooks:\n  - event: é\n    action: {type: abort}\n";
    let file = read_ok(text);
    let h = &file.hooks[0];
    assert_eq!(
        h.span,
        Span::new(F, text.find("event").unwrap(), text.len() - 1)
    );
    assert_eq!(&text[h.events[0].span.range()], "é");
}
