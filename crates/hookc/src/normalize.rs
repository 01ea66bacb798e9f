//! The normalized policy (`hookc compile --emit yaml|json`): the
//! "compiled to this YAML format".
//!
//! Every hook with its id, events, priority, condition and complete action
//! (defaults filled in), each layer's list in evaluation order (named layers:
//! one `hooks:` list in evaluation order); disabled and replaced hooks
//! are left out, and a replacing hook keeps `replace: true`. A condition
//! tree is written as the tree it was (normalized), a `when` as its canonical
//! `when` text. The output is itself a valid input that compiles to the same policy (tested).

use crate::check::policy::{CheckedPolicy, Hook};
use crate::compile::DEFAULT_LAYERS;
use crate::frontend::Layer;
use crate::ir::{Attribution, PriorityOrder, Spelled};
use hookc_runtime::bytecode::path::PathTable;
use serde_json::{Map, Value};

/// The schema version written into normalized output.
pub const SCHEMA_VERSION: &str = "1.0.0";

/// The normalized document as JSON.
pub fn normalized(policy: &CheckedPolicy) -> Value {
    let mut doc = Map::new();
    doc.insert("schema_version".into(), SCHEMA_VERSION.into());
    if policy.priority_order() != PriorityOrder::default() {
        doc.insert(
            "priority_order".into(),
            policy.priority_order().name().into(),
        );
    }
    if policy.attribution() != Attribution::default() {
        doc.insert("attribution".into(), policy.attribution().name().into());
    }
    if policy.environment().is_declared() {
        doc.insert("env".into(), policy.environment().to_json());
    }
    if !policy.sensitive().is_empty() {
        let members: Vec<Value> = policy
            .sensitive()
            .iter()
            .filter_map(|&id| policy.paths().get(id))
            .map(|path| Value::from(path.to_string()))
            .collect();
        doc.insert("sensitive".into(), Value::Array(members));
    }
    if let Some(schema) = policy.schema().source() {
        doc.insert("event_context_schema".into(), schema.clone());
    }
    if policy.events().is_declared() {
        let events: Map<String, Value> = policy
            .events()
            .iter()
            .map(|e| (e.name().to_owned(), e.to_json()))
            .collect();
        doc.insert("events".into(), Value::Object(events));
    }
    let custom: Map<String, Value> = policy
        .action_types()
        .custom_definitions()
        .map(|(name, def)| (name.to_owned(), def.clone()))
        .collect();
    if !custom.is_empty() {
        doc.insert("action_types".into(), Value::Object(custom));
    }
    // The default layers are the two YAML sections. Named layers have no
    // YAML form: every hook goes under `hooks:` in evaluation order, which
    // compiles to the same order (priority in the written direction, then
    // source order).
    let default = policy.layers() == DEFAULT_LAYERS;
    let sections = [(1, Layer::Directive), (0, Layer::Builtin)];
    for (rank, section) in sections {
        let hooks: Vec<Value> = policy
            .hooks()
            .iter()
            .filter(|h| h.enabled && (!default || h.layer == rank))
            .map(|h| hook(h, policy.paths()))
            .collect();
        if !hooks.is_empty() {
            doc.insert(section.yaml_key().into(), Value::Array(hooks));
        }
        if !default {
            break;
        }
    }
    Value::Object(doc)
}

/// The normalized document as YAML text.
pub fn to_yaml(policy: &CheckedPolicy) -> Result<String, serde_yaml::Error> {
    serde_yaml::to_string(&normalized(policy))
}

fn hook(h: &Hook, paths: &PathTable) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), h.id.clone().into());
    let event = match &h.events {
        crate::check::policy::Events::Any => Value::from("*"),
        crate::check::policy::Events::Named(names) => match names.as_slice() {
            [only] => Value::from(only.clone()),
            _ => Value::from(names.clone()),
        },
    };
    m.insert("event".into(), event);
    m.insert("priority".into(), h.priority.into());
    if h.replace {
        // Kept for layering at run time; the hooks it replaced here are
        // left out like disabled ones.
        m.insert("replace".into(), true.into());
    }
    // A tree is written back as written (normalized); a `when` as its
    // canonical text: the two mean different things on absent paths
    // (`docs/src/semantics.md#condition-trees`), so a `when` is never
    // rewritten as a tree, nor a tree as a `when`.
    match (&h.condition_tree, &h.condition) {
        (Some(tree), _) => {
            m.insert("condition".into(), tree.clone());
        }
        (None, Some(c)) => {
            if let Some(text) = c.to_source(paths) {
                m.insert("when".into(), text.into());
            }
        }
        (None, None) => {}
    }
    if let Some(t) = &h.table {
        // Every row with every field (`null` where it gave none): the same
        // table.
        let rows = t
            .patterns
            .iter()
            .zip(&t.rows)
            .map(|(pattern, fields)| {
                let mut row = Map::new();
                row.insert("pattern".into(), pattern.clone().into());
                row.extend(fields.clone());
                Value::Object(row)
            })
            .collect();
        let mut table = Map::new();
        let on = paths
            .get(t.on)
            .map_or_else(String::new, ToString::to_string);
        table.insert("on".into(), on.into());
        table.insert("rows".into(), Value::Array(rows));
        m.insert("table".into(), Value::Object(table));
    }
    let mut action = Map::new();
    action.insert("type".into(), h.action.kind.clone().into());
    for (name, value) in &h.action.params {
        action.insert(name.clone(), value.to_json(paths));
    }
    m.insert("action".into(), Value::Object(action));
    if let Some(d) = &h.description {
        m.insert("description".into(), d.clone().into());
    }
    Value::Object(m)
}
