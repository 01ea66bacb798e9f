//! Unit tests of `check/schema.rs`: reading schemas, resolving paths, guarantees.

use super::*;
use hookc_runtime::bytecode::path::Segment;

fn path(root: &str, fields: &[&str]) -> Path {
    fields.iter().fold(Path::root(root), |p, f| {
        p.child(Segment::Field((*f).to_owned()))
    })
}

#[test]
fn builtin_schema_reads_without_diagnostics() {
    let json = serde_json::json!({"type": "object"});
    let mut diags = Diagnostics::new();
    let node = Node::from_json(&json, Span::new(crate::span::FileId(0), 0, 0));
    let _ = ContextSchema::from_node(&node, &mut diags);
    assert!(diags.is_empty());
    let s = ContextSchema::builtin();
    let r = s.resolve(&path("classification", &["category"])).unwrap();
    assert_eq!(r.ty.kinds, Kinds::STRING);
    assert!(r.outside.is_none());
}

#[test]
fn open_free_form_and_closed_objects() {
    let s = ContextSchema::builtin();
    // `event` lists properties: `limit_code` is outside, open.
    let r = s.resolve(&path("event", &["limit_code"])).unwrap();
    let out = r.outside.unwrap();
    assert!(!out.closed);
    assert_eq!(out.known_prefix, "event");
    // `cost` is free-form.
    let r = s.resolve(&path("cost", &["spend"])).unwrap();
    assert!(r.outside.is_none());
    assert!(r.ty.kinds.is_any());
    // A field of a string.
    let err = s.resolve(&path("error", &["code", "x"])).unwrap_err();
    assert_eq!(err.prefix, "error.code");

    let json = serde_json::json!({"type": "object", "additionalProperties": false,
            "properties": {"a": {"type": ["string", "null"], "enum": ["x", null]}}});
    let mut diags = Diagnostics::new();
    let node = Node::from_json(&json, Span::new(crate::span::FileId(0), 0, 0));
    let s = ContextSchema::from_node(&node, &mut diags);
    assert!(diags.is_empty());
    let out = s.resolve(&path("b", &[])).unwrap().outside.unwrap();
    assert!(out.closed);
    let a = s.resolve(&path("a", &[])).unwrap();
    assert_eq!(a.ty.kinds, Kinds::STRING.or(Kinds::NULL));
    assert_eq!(s.allowed(a.ty.schema).map(<[_]>::len), Some(2));
}

fn read(json: serde_json::Value) -> ContextSchema {
    let mut diags = Diagnostics::new();
    let node = Node::from_json(&json, Span::new(crate::span::FileId(0), 0, 0));
    let s = ContextSchema::from_node(&node, &mut diags);
    assert!(diags.is_empty(), "{diags:?}");
    s
}

#[test]
fn required_steps_guarantee_a_path() {
    let s = read(serde_json::json!({"type": "object", "required": ["a", "l"],
            "properties": {"a": {"type": "object", "required": ["b"],
                "properties": {"b": {"type": "object"}, "c": {"type": "string"}}},
                "l": {"type": "array", "items": {"type": "object", "required": ["x"]}}}}));
    assert!(s.guarantees(&path("a", &[])));
    assert!(s.guarantees(&path("a", &["b"])));
    assert!(!s.guarantees(&path("a", &["c"])));
    // Past what the schema describes, nothing is guaranteed.
    assert!(!s.guarantees(&path("a", &["b", "z"])));
    assert!(!s.guarantees(&path("z", &[])));
    // An index never is.
    let item = Path::root("l").child(Segment::Index(0));
    assert!(!s.guarantees(&item));
}

#[test]
fn an_event_context_extends_the_root() {
    let shared = read(serde_json::json!({"type": "object", "required": ["s"],
            "properties": {"s": {"type": "string"}, "t": {"type": "string"}}}));
    let mut diags = Diagnostics::new();
    let fragment = serde_json::json!({"required": ["t"],
            "properties": {"t": {"type": "object"}, "u": {"type": "integer"}}});
    let node = Node::from_json(&fragment, Span::new(crate::span::FileId(0), 0, 0));
    let ext = shared.extended(&node, &mut diags);
    assert!(diags.is_empty(), "{diags:?}");
    // Added, refined, required; the shared schema is unchanged.
    assert_eq!(ext.resolve(&path("u", &[])).unwrap().ty.kinds, Kinds::INT);
    assert_eq!(
        ext.resolve(&path("t", &[])).unwrap().ty.kinds,
        Kinds::OBJECT
    );
    assert_eq!(
        shared.resolve(&path("t", &[])).unwrap().ty.kinds,
        Kinds::STRING
    );
    assert!(ext.guarantees(&path("s", &[])) && ext.guarantees(&path("t", &[])));
    assert!(!shared.guarantees(&path("t", &[])));
    // Still open: another key is outside, not closed.
    assert!(
        !ext.resolve(&path("v", &[]))
            .unwrap()
            .outside
            .unwrap()
            .closed
    );
    // `additionalProperties: false` closes it.
    let closed = serde_json::json!({"additionalProperties": false});
    let node = Node::from_json(&closed, Span::new(crate::span::FileId(0), 0, 0));
    let ext = shared.extended(&node, &mut diags);
    assert!(
        ext.resolve(&path("v", &[]))
            .unwrap()
            .outside
            .unwrap()
            .closed
    );
    assert!(ext.resolve(&path("s", &[])).unwrap().outside.is_none());
}

#[test]
fn unsupported_keywords_are_reported() {
    let json = serde_json::json!({"type": "object", "propertes": {}, "oneOf": [], "title": "x",
            "properties": {"a": {"type": "float"}}});
    let mut diags = Diagnostics::new();
    let node = Node::from_json(&json, Span::new(crate::span::FileId(0), 0, 0));
    let _ = ContextSchema::from_node(&node, &mut diags);
    let msgs: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
    assert_eq!(msgs.len(), 3, "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("`propertes`")));
    assert!(msgs.iter().any(|m| m.contains("`oneOf`")));
    assert!(msgs.iter().any(|m| m.contains("`float`")));
}
