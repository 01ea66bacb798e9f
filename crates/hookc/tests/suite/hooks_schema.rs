//! `grammar/hooks.schema.json`, the JSON Schema editors use for hook YAML
//! files: it is a valid draft-07 schema, every example YAML file passes it,
//! documents that hookc rejects for their structure fail it, and it is
//! complete: every key, operator, keyword, action type and parameter that
//! hookc's own tables declare is in it (and nothing they do not), so an
//! addition to the code without the schema fails here.

use crate::walk;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use boon::{Compiler, Draft, SchemaIndex, Schemas};
use serde_json::Value;

const SCHEMA: &str = "grammar/hooks.schema.json";

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn schema_json() -> Value {
    let text = std::fs::read_to_string(root().join(SCHEMA)).expect("read the schema");
    serde_json::from_str(&text).expect("the schema is JSON")
}

/// The compiled schema (compiling checks it against the draft-07 metaschema).
fn compiled() -> (Schemas, SchemaIndex) {
    let mut schemas = Schemas::new();
    let mut compiler = Compiler::new();
    compiler.set_default_draft(Draft::V7);
    let path = root().join(SCHEMA);
    let loc = path.to_str().expect("a UTF-8 path");
    compiler.add_resource(loc, schema_json()).unwrap();
    let index = compiler
        .compile(loc, &mut schemas)
        .unwrap_or_else(|e| panic!("the schema does not compile: {e:#}"));
    (schemas, index)
}

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("bad test YAML: {e}\n{text}"))
}

fn check(schemas: &Schemas, index: SchemaIndex, doc: &Value) -> Result<(), String> {
    schemas.validate(doc, index).map_err(|e| format!("{e}"))
}

/// Every `*.yaml` / `*.yml` under `dir`, recursively, sorted, but for
/// `*.test.yaml` (`hookc test` files, not hook files).
fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(walk::files_under(dir, &|name| {
        (name.ends_with(".yaml") || name.ends_with(".yml")) && !name.ends_with(".test.yaml")
    }));
}

#[test]
fn schema_is_valid_draft_07() {
    let schema = schema_json();
    assert_eq!(
        schema["$schema"], "http://json-schema.org/draft-07/schema#",
        "the schema declares draft-07"
    );
    // Explicitly against the metaschema, in addition to what `compile` checks.
    let mut schemas = Schemas::new();
    let mut compiler = Compiler::new();
    let meta = compiler
        .compile("http://json-schema.org/draft-07/schema", &mut schemas)
        .unwrap();
    if let Err(e) = schemas.validate(&schema, meta) {
        panic!("not a valid draft-07 schema: {e:#}");
    }
    compiled();
}

#[test]
fn schema_documents_every_property() {
    // Editors show `description` on hover: every named property has one
    // (or is a `$ref` to a documented definition).
    fn walk(schema: &Value, at: &str, missing: &mut Vec<String>) {
        let Value::Object(map) = schema else {
            return;
        };
        for (key, child) in map {
            let here = format!("{at}/{key}");
            match key.as_str() {
                "properties" | "definitions" => {
                    for (name, prop) in child.as_object().into_iter().flatten() {
                        let documented = prop.as_object().is_some_and(|p| {
                            p.contains_key("description") || p.contains_key("$ref")
                        });
                        // `true`, and the `if` tests of conditional rules, need no docs.
                        if !documented && prop != &Value::Bool(true) && !at.ends_with("/if") {
                            missing.push(format!("{here}/{name}"));
                        }
                        walk(prop, &format!("{here}/{name}"), missing);
                    }
                }
                "allOf" | "anyOf" | "oneOf" => {
                    for (i, item) in child.as_array().into_iter().flatten().enumerate() {
                        walk(item, &format!("{here}/{i}"), missing);
                    }
                }
                "items" | "additionalProperties" | "not" | "if" | "then" | "else" => {
                    walk(child, &here, missing);
                }
                _ => {}
            }
        }
    }
    let mut missing = Vec::new();
    walk(&schema_json(), "#", &mut missing);
    assert!(
        missing.is_empty(),
        "properties without a description: {missing:#?}"
    );
}

#[test]
fn every_example_passes() {
    let (schemas, index) = compiled();
    let mut files = Vec::new();
    yaml_files(&root().join("examples"), &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("thread-hooks/hooks.yaml")),
        "the seed examples are found: {files:?}"
    );
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let doc = yaml(&text);
        if let Err(e) = check(&schemas, index, &doc) {
            panic!("{} does not pass the schema:\n{e}", file.display());
        }
    }
}

#[test]
fn valid_documents_pass() {
    let (schemas, index) = compiled();
    let docs = [
        // Every hook field, an event list, nested combinators.
        r#"
schema_version: "1.2.0"
hooks:
  - id: h1
    event: [error, limit]
    priority: -5
    enabled: false
    description: everything at once
    condition:
      all:
        - any:
            - {path: error.code, op: in, value: [E1, E2]}
            - not: {path: "error.headers['retry-after']", op: exists}
        - {path: error.message, op: regex, value: "time(d )?out"}
        - {path: event, op: matches, value: {type: object, required: [type]}}
        - {all: []}
    action: {type: retry, max_attempts: 5, backoff_policy: fixed, delay: 1.5}
  - event: "*"
    when: "has(event.thread_id) && turn_number > 3"
    action: {type: continue}
"#,
        // A custom action type takes any parameters.
        r#"
action_types:
  notify_slack:
    description: Post to a channel
    parameters:
      channel: {type: string, required: true}
      mention: {type: boolean, default: false, description: "ping @here"}
      inject_as: {type: [string, "null"], default: null}
      levels: {type: array, items: {type: array, items: {type: integer, enum: [1, 2]}}}
builtin_hooks:
  - event: error
    action: {type: notify_slack, channel: ops, anything: [1, 2]}
"#,
        // Declared events and the default priority.
        r#"
default_priority: 100
events:
  PreToolUse:
    description: before a tool runs
    context: {properties: {tool_input: {type: object}}, required: [tool_input]}
    effects: [terminal, collected, transform, await]
  PostToolUse: {effects: [collected]}
  Stop: {}
hooks:
  - {event: PreToolUse, action: {type: abort}}
"#,
        // The context schema subset, with ignored annotations.
        r#"
event_context_schema:
  type: object
  additionalProperties: false
  required: [event]
  properties:
    event: {type: object, properties: {type: {type: string, enum: [error, limit]}}}
    tags: {type: array, items: {type: string}, minItems: 1}
    extra: {type: object, additionalProperties: {type: [string, "null"]}}
    level: {const: 3, title: Level, default: 3}
"#,
    ];
    for doc in docs {
        if let Err(e) = check(&schemas, index, &yaml(doc)) {
            panic!("a valid document fails:\n{doc}\n{e}");
        }
    }
}

#[test]
fn invalid_documents_fail() {
    let (schemas, index) = compiled();
    // (what is wrong, the document, a piece of the validator's reason)
    let cases = [
        (
            "unknown hook key",
            "hooks: [{event: error, evnt: limit, action: {type: abort}}]",
            "'evnt' not allowed",
        ),
        (
            "bad op",
            "hooks: [{event: error, condition: {path: a, op: equals, value: 1}, action: {type: abort}}]",
            "at '/hooks/0/condition/op'",
        ),
        ("missing action", "hooks: [{event: error}]", "missing properties 'action'"),
        ("missing event", "hooks: [{action: {type: abort}}]", "missing properties 'event'"),
        (
            "bad escalate target",
            "hooks: [{event: limit, action: {type: escalate, target: the_user}}]",
            "at '/hooks/0/action/target'",
        ),
        ("schema_version 2.0.0", "schema_version: \"2.0.0\"", "does not match pattern"),
        ("schema_version 1.0", "schema_version: \"1.0\"", "does not match pattern"),
        ("unknown top-level key", "hook: []", "'hook' not allowed"),
        (
            "condition and when",
            "hooks: [{event: error, when: 'true', condition: {path: a, op: exists}, action: {type: abort}}]",
            "at '/hooks/0': not failed",
        ),
        (
            "leaf without value",
            "hooks: [{event: error, condition: {path: a, op: eq}, action: {type: abort}}]",
            "missing properties 'value'",
        ),
        (
            "exists with a value",
            "hooks: [{event: error, condition: {path: a, op: exists, value: 1}, action: {type: abort}}]",
            "at '/hooks/0/condition': not failed",
        ),
        (
            "in with a scalar",
            "hooks: [{event: error, condition: {path: a, op: in, value: x}, action: {type: abort}}]",
            "at '/hooks/0/condition/value': want array",
        ),
        (
            "unknown key in a leaf",
            "hooks: [{event: error, condition: {path: a, op: eq, value: 1, vlaue: 2}, action: {type: abort}}]",
            "'vlaue' not allowed",
        ),
        (
            "empty event list",
            "hooks: [{event: [], action: {type: abort}}]",
            "minimum 1 items",
        ),
        (
            "priority not an integer",
            "hooks: [{event: error, priority: high, action: {type: abort}}]",
            "at '/hooks/0/priority': want integer",
        ),
        (
            "action without a type",
            "hooks: [{event: error, action: {max_attempts: 3}}]",
            "missing properties 'type'",
        ),
        (
            "unknown retry parameter",
            "hooks: [{event: error, action: {type: retry, max_attemps: 3}}]",
            "'max_attemps' not allowed",
        ),
        (
            "retry count not an integer",
            "hooks: [{event: error, action: {type: retry, max_attempts: three}}]",
            "at '/hooks/0/action/max_attempts': want integer",
        ),
        (
            "call_directive without directive",
            "hooks: [{event: error, action: {type: call_directive, parameters: {}}}]",
            "missing properties 'directive'",
        ),
        (
            "suspend without a reason",
            "hooks: [{event: error, action: {type: suspend}}]",
            "missing properties 'suspend_reason'",
        ),
        (
            "abort with a parameter",
            "hooks: [{event: error, action: {type: abort, now: true}}]",
            "'now' not allowed",
        ),
        (
            "unsupported context schema keyword",
            "event_context_schema: {type: object, oneOf: [{type: object}]}",
            "'oneOf' not allowed",
        ),
        (
            "bad context schema type",
            "event_context_schema: {type: map}",
            "at '/event_context_schema/type'",
        ),
        (
            "unknown effect of an event",
            "events: {PostToolUse: {effects: [block]}}",
            "at '/events/PostToolUse/effects/0'",
        ),
        (
            "unknown key of an event",
            "events: {PostToolUse: {efects: [collected]}}",
            "'efects' not allowed",
        ),
        (
            "default_priority not an integer",
            "default_priority: high",
            "at '/default_priority': want integer",
        ),
        (
            "unknown parameter definition key",
            "action_types: {x: {parameters: {p: {type: string, requried: true}}}}",
            "'requried' not allowed",
        ),
        (
            "unknown items definition key",
            "action_types: {x: {parameters: {p: {type: array, items: {type: string, default: a}}}}}",
            "'default' not allowed",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, doc, reason) in cases {
        match check(&schemas, index, &yaml(doc)) {
            Ok(()) => wrong.push(format!("{name}: passes")),
            Err(e) if !e.contains(reason) => {
                wrong.push(format!("{name}: fails, but not with `{reason}`:\n{e}"));
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The names under `properties` at a JSON pointer of the schema.
fn property_names(schema: &Value, pointer: &str) -> BTreeSet<String> {
    schema
        .pointer(pointer)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("the schema has no object at `{pointer}`"))
        .keys()
        .cloned()
        .collect()
}

/// The strings of an array at a JSON pointer of the schema.
fn strings_at(schema: &Value, pointer: &str) -> BTreeSet<String> {
    schema
        .pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("the schema has no array at `{pointer}`"))
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// Records how the schema's set differs from the code's.
fn same<'a>(
    what: &str,
    code: impl IntoIterator<Item = &'a str>,
    schema: &BTreeSet<String>,
    problems: &mut Vec<String>,
) {
    let code: BTreeSet<String> = code.into_iter().map(str::to_owned).collect();
    let missing: Vec<_> = code.difference(schema).collect();
    let extra: Vec<_> = schema.difference(&code).collect();
    if !missing.is_empty() {
        problems.push(format!("{what}: missing from the schema: {missing:?}"));
    }
    if !extra.is_empty() {
        problems.push(format!("{what}: in the schema but not in hookc: {extra:?}"));
    }
}

#[test]
fn schema_has_every_key_operator_and_keyword_of_the_code() {
    use hookc::check::{actions, schema};
    use hookc::frontend::yaml;
    use hookc::testing as tree_to_ir;
    let s = schema_json();
    let mut problems = Vec::new();
    same(
        "top-level keys (frontend::yaml::TOP_LEVEL_KEYS)",
        yaml::TOP_LEVEL_KEYS.iter().copied(),
        &property_names(&s, "/properties"),
        &mut problems,
    );
    same(
        "hook keys (frontend::yaml::HOOK_KEYS)",
        yaml::HOOK_KEYS.iter().copied(),
        &property_names(&s, "/definitions/hook/properties"),
        &mut problems,
    );
    same(
        "pattern table keys (check::table::TABLE_KEYS)",
        hookc::check::table::TABLE_KEYS.iter().copied(),
        &property_names(&s, "/definitions/patternTable/properties"),
        &mut problems,
    );
    let mut node_keys = BTreeSet::new();
    for def in ["all", "any", "not", "leaf"] {
        node_keys.extend(property_names(
            &s,
            &format!("/definitions/{def}/properties"),
        ));
    }
    same(
        "condition tree keys (tree_to_ir::NODE_KEYS)",
        tree_to_ir::NODE_KEYS.iter().copied(),
        &node_keys,
        &mut problems,
    );
    same(
        "leaf operators (tree_to_ir::OPERATORS)",
        tree_to_ir::OPERATORS.iter().copied(),
        &strings_at(&s, "/definitions/leaf/properties/op/enum"),
        &mut problems,
    );
    same(
        "`matches` keywords (tree_to_ir::SCHEMA_KEYWORDS)",
        tree_to_ir::SCHEMA_KEYWORDS.iter().copied(),
        &property_names(&s, "/definitions/matchesSchema/properties"),
        &mut problems,
    );
    same(
        "context schema keywords (schema::SUPPORTED and schema::IGNORED)",
        schema::SUPPORTED.iter().chain(schema::IGNORED).copied(),
        &property_names(&s, "/definitions/contextSchema/properties"),
        &mut problems,
    );
    same(
        "action type definition keys (actions::TYPE_KEYS)",
        actions::TYPE_KEYS,
        &property_names(&s, "/definitions/actionType/properties"),
        &mut problems,
    );
    same(
        "action parameter definition keys (actions::PARAM_KEYS)",
        actions::PARAM_KEYS,
        &property_names(&s, "/definitions/parameter/properties"),
        &mut problems,
    );
    same(
        "items definition keys (actions::ITEM_KEYS)",
        actions::ITEM_KEYS,
        &property_names(&s, "/definitions/itemsType/properties"),
        &mut problems,
    );
    same(
        "action parameter types (actions::ParamType::ALL)",
        actions::ParamType::ALL.iter().map(|t| t.name()),
        &strings_at(&s, "/definitions/paramType/enum"),
        &mut problems,
    );
    same(
        "action effects (ir::Effect::ALL)",
        <hookc::ir::Effect as hookc::ir::Spelled>::names(),
        &strings_at(&s, "/definitions/actionType/properties/effect/enum"),
        &mut problems,
    );
    same(
        "event declaration keys (events::EVENT_KEYS)",
        hookc::check::events::EVENT_KEYS.iter().copied(),
        &property_names(&s, "/definitions/event/properties"),
        &mut problems,
    );
    same(
        "event effects (events::EFFECT_WORDS)",
        hookc::check::events::EFFECT_WORDS.iter().copied(),
        &strings_at(&s, "/definitions/event/properties/effects/items/enum"),
        &mut problems,
    );
    // Schema type names: the standard seven, as far as hookc accepts them.
    let standard = [
        "null", "boolean", "integer", "number", "string", "array", "object",
    ];
    same(
        "schema type names (ty::Kinds::from_schema_name)",
        standard
            .into_iter()
            .filter(|n| hookc::check::ty::Kinds::from_schema_name(n).is_some()),
        &strings_at(&s, "/definitions/jsonType/enum"),
        &mut problems,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn schema_has_every_built_in_action_type_with_its_parameters() {
    let s = schema_json();
    let types = hookc::check::actions::ActionTypes::builtin();
    let branches = s
        .pointer("/definitions/action/allOf")
        .and_then(Value::as_array)
        .unwrap();
    let mut problems = Vec::new();
    same(
        "action types with a parameters branch (actions::ActionTypes::builtin)",
        types.names(),
        &branches
            .iter()
            .filter_map(|b| b.pointer("/if/properties/type/const")?.as_str())
            .map(str::to_owned)
            .collect(),
        &mut problems,
    );
    same(
        "action types offered for `type` (actions::ActionTypes::builtin)",
        types.names(),
        &strings_at(&s, "/definitions/action/properties/type/examples"),
        &mut problems,
    );
    for t in types.iter() {
        let name = t.name();
        let Some(then) = branches
            .iter()
            .find(|b| b.pointer("/if/properties/type/const") == Some(&Value::from(name)))
            .map(|b| &b["then"])
        else {
            continue;
        };
        let mut params = property_names(then, "/properties");
        params.remove("type");
        same(
            &format!("parameters of `{name}`"),
            t.params().iter().map(|p| p.name()),
            &params,
            &mut problems,
        );
        if then["additionalProperties"] != Value::Bool(false) {
            problems.push(format!("`{name}` allows parameters it does not have"));
        }
        let required: BTreeSet<String> = then
            .get("required")
            .map(|_| strings_at(then, "/required"))
            .unwrap_or_default();
        same(
            &format!("required parameters of `{name}`"),
            t.params()
                .iter()
                .filter(|p| p.is_required())
                .map(|p| p.name()),
            &required,
            &mut problems,
        );
        for p in t.params() {
            let Some(sp) = then["properties"].get(p.name()) else {
                continue;
            };
            let at = format!("`{name}.{}`", p.name());
            let want_type = match p.ty().types() {
                [] => None,
                [t] => Some(Value::from(t.name())),
                ts => Some(Value::from(ts.iter().map(|t| t.name()).collect::<Vec<_>>())),
            };
            if sp.get("type") != want_type.as_ref() {
                problems.push(format!(
                    "{at}: type {:?} in the schema, {want_type:?} in hookc",
                    sp.get("type")
                ));
            }
            let want_enum = p
                .allowed()
                .map(|vs| Value::Array(vs.iter().filter_map(|v| v.const_json()).collect()));
            if sp.get("enum") != want_enum.as_ref() {
                problems.push(format!(
                    "{at}: enum {:?} in the schema, {want_enum:?} in hookc",
                    sp.get("enum")
                ));
            }
            let want_default = p.default().and_then(|d| d.const_json());
            if sp.get("default") != want_default.as_ref() {
                problems.push(format!(
                    "{at}: default {:?} in the schema, {want_default:?} in hookc",
                    sp.get("default")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn matches_values_are_checked_against_the_keywords() {
    let (schemas, index) = compiled();
    let ok = "hooks: [{event: error, condition: {path: error, op: matches, value: {type: [object, 'null'], required: [code], properties: {code: {type: string, pattern: '^E', maxLength: 9}}}}, action: {type: abort}}]";
    check(&schemas, index, &yaml(ok)).unwrap();
    let bad = "hooks: [{event: error, condition: {path: error, op: matches, value: {properties: {code: {typ: string}}}}, action: {type: abort}}]";
    let e = check(&schemas, index, &yaml(bad)).unwrap_err();
    assert!(e.contains("'typ' not allowed"), "{e}");
}

/// The description of `when` names every function of the function table,
/// so an editor's hover lists what the language has.
#[test]
fn the_when_description_names_every_function() {
    let s = schema_json();
    let when = s
        .pointer("/definitions/hook/properties/when/description")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no description of `when` in {SCHEMA}"));
    let missing: Vec<String> = hookc_runtime::functions::Builtin::ALL
        .iter()
        .map(|f| f.def())
        .map(|d| match d.namespace {
            Some(_) => format!("`{}`", d.qualified_name()),
            None => format!(".{}`", d.name),
        })
        .filter(|name| !when.contains(name.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{SCHEMA}: `when` does not name {missing:?}"
    );
}
