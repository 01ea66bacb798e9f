//! Tests of the lints: shadowing (W0004), constant conditions (W0005), unknown
//! events (W0006), unguarded templates (W0007) and duplicate conditions (W0008),
//! and their diagnostics.

use super::*;
use crate::compile::{compile, Input};

fn findings(src: &str) -> (CheckedPolicy, Vec<Finding>) {
    let c = compile(&[Input::new("t.yaml", src)]);
    let p = c.policy.unwrap_or_else(|| panic!("{:?}", c.diagnostics));
    let f = analyze(&p);
    (p, f)
}

/// Ids of hooks shadowed on all their events (W0004 or W0008).
fn shadowed(src: &str) -> Vec<String> {
    let (p, f) = findings(src);
    f.iter()
        .filter_map(|f| match f {
            Finding::Shadowed { hook, events, .. } if events.is_empty() => {
                Some(p.hooks()[*hook].id.clone())
            }
            _ => None,
        })
        .collect()
}

fn hooks(list: &[(&str, &str, &str, i64)]) -> String {
    let mut s = String::from("hooks:\n");
    for (id, event, when, prio) in list {
        s.push_str(&format!(
            "  - id: {id}\n    event: {event}\n    priority: {prio}\n"
        ));
        if !when.is_empty() {
            s.push_str(&format!("    when: \"{when}\"\n"));
        }
        s.push_str("    action: {type: abort}\n");
    }
    s
}

#[test]
fn unconditional_shadows_later_hooks_of_its_event() {
    let src = hooks(&[
        ("a", "error", "", 10),
        ("b", "error", "error.code == 'E1'", 5),
        ("c", "limit", "limit_code == 'x'", 5),
    ]);
    assert_eq!(shadowed(&src), ["b"]);
}

#[test]
fn weaker_condition_shadows() {
    let src = hooks(&[
        ("a", "limit", "limit_value > 5", 10),
        ("b", "limit", "limit_value > 10", 5),
        ("c", "limit", "limit_value > 1", 1),
    ]);
    assert_eq!(shadowed(&src), ["b"]);
}

#[test]
fn multi_event_hooks_need_every_event_covered() {
    let src = hooks(&[("a", "error", "", 10), ("b", "[error, limit]", "", 5)]);
    let (p, f) = findings(&src);
    assert!(f.iter().any(|f| matches!(f,
        Finding::Shadowed { hook, events, .. }
            if p.hooks()[*hook].id == "b" && events == &["error".to_owned()])));
    assert!(shadowed(&src).is_empty());
}

#[test]
fn star_hooks_only_fall_to_star_hooks() {
    let src = hooks(&[
        ("a", "error", "", 10),
        ("b", "'*'", "", 5),
        ("c", "'*'", "has(error)", 10),
        ("d", "limit", "error.code == 'x'", 1),
    ]);
    assert_eq!(shadowed(&src), ["d"]);
}

#[test]
fn disabled_hooks_shadow_nothing() {
    let src = "hooks:\n  - {id: a, event: error, enabled: false, action: {type: abort}}\n  - {id: b, event: error, action: {type: abort}}\n";
    assert!(shadowed(src).is_empty());
}

#[test]
fn duplicates_are_w0008() {
    let src = hooks(&[
        ("a", "error", "error.message.matches('x')", 10),
        ("b", "error", "error.message.matches('x')", 5),
    ]);
    let (_, f) = findings(&src);
    assert!(f.iter().any(|f| matches!(f,
        Finding::Shadowed { hook: 1, duplicate: true, events, .. } if events.is_empty())));
}

#[test]
fn contradictions_and_tautologies() {
    let src = hooks(&[
        ("a", "error", "error.code == 'a' && error.code == 'b'", 0),
        ("b", "limit", "has(limit_code) || !has(limit_code)", 0),
    ]);
    let (_, f) = findings(&src);
    assert!(f.contains(&Finding::AlwaysFalse {
        hook: 0,
        why: vec!["error.code == 'a'".into(), "error.code == 'b'".into()],
        contradiction: true,
    }));
    assert!(f.contains(&Finding::AlwaysTrue { hook: 1 }));
}

/// W0007's findings for `src`: each path read, and how.
fn unguarded_templates(src: &str) -> Vec<(String, super::TemplateHole)> {
    let (p, f) = findings(src);
    f.iter()
        .filter_map(|f| match f {
            Finding::UnguardedTemplate { path, hole, .. } => {
                Some((p.paths().get(*path)?.to_string(), *hole))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn template_expressions_are_followed_through_macros() {
    // The macro's range is read for certain; its body's paths only when
    // the range has elements, so they are not reported.
    let src = r#"
hooks:
  - id: t
    event: error
    when: "has(error.code)"
    action: {type: fail, error_message: "${error.codes.map(c, c + error.base).size()} ${error.code}"}
  - id: guarded
    event: limit
    when: "has(limit.items) && size(limit.items) > 0"
    action: {type: fail, error_message: "n=${limit.items.filter(i, i > 1).size()}"}
"#;
    assert_eq!(
        unguarded_templates(src),
        [("error.codes".to_owned(), super::TemplateHole::Expr)]
    );
}

#[test]
fn templates_guarded_by_condition_or_earlier_hook() {
    let src = r#"
hooks:
  - id: guard
    event: "*"
    priority: 100
    when: "!has(event.thread_id)"
    action: {type: abort}
  - id: t
    event: error
    when: "has(error.code)"
    action: {type: fail, error_message: "${error.code} ${error.message} ${event.thread_id}"}
"#;
    assert_eq!(
        unguarded_templates(src),
        [("error.message".to_owned(), super::TemplateHole::Part)]
    );
}

#[test]
fn unknown_events_with_suggestions() {
    let src = hooks(&[
        ("a", "eror", "", 0),
        ("b", "custom", "", 0),
        ("c", "custom", "", 0),
    ]);
    let (_, mut f) = findings(&src);
    f.retain(|f| matches!(f, Finding::UnknownEvent { .. }));
    assert_eq!(
        f,
        vec![Finding::UnknownEvent {
            hook: 0,
            event: "eror".into(),
            suggestion: Some("error".into())
        }]
    );
}

/// An earlier hook with a pattern table matches only where a row does, so
/// the same condition after it is no duplicate (issue 35, defect 5: W0008
/// said the later hook could never match); without the table it is.
#[test]
fn a_pattern_table_hook_shadows_no_duplicate_condition() {
    let src = |table: &str| {
        format!(
            "hooks:\n  - id: rows\n    event: e\n    when: \"has(cmd)\"\n{table}    action: {{type: abort}}\n  \
             - id: rest\n    event: e\n    when: \"has(cmd)\"\n    action: {{type: abort}}\n"
        )
    };
    let with_table = src("    table: {on: cmd, rows: [{pattern: a}]}\n");
    assert!(shadowed(&with_table).is_empty(), "{with_table}");
    assert_eq!(shadowed(&src("")), ["rest"]);
}

/// A hook with a pattern table matches only where its `on` path holds a
/// string, so a template reading that path (or a prefix of it) is guarded
/// (the guide's guard reads `${tool_input.command.truncate(60)}` there).
#[test]
fn a_pattern_table_guards_its_path_for_templates() {
    let src = |table: &str| {
        format!(
            "hooks:\n  - id: rows\n    event: e\n    when: \"true\"\n{table}    \
             action: {{type: fail, error_message: \"x ${{cmd.text.truncate(5)}} ${{cmd}}\"}}\n"
        )
    };
    assert!(
        unguarded_templates(&src("    table: {on: cmd.text, rows: [{pattern: a}]}\n")).is_empty()
    );
    let paths: Vec<String> = unguarded_templates(&src(""))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(paths, ["cmd", "cmd.text"]);
}
