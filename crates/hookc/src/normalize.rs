//! The normalized policy (`hookc compile --emit yaml|json`): the
//! "compiled to this YAML format".
//!
//! Every hook with its id, events, priority, condition and complete action
//! (defaults filled in), each layer's list in evaluation order (named layers:
//! one `hooks:` list in evaluation order); disabled and replaced hooks
//! are left out, and a replacing hook keeps `replace: true`. Conditions are written as YAML condition trees where the
//! tree forms can say them, else as a canonical `when` expression. The output
//! is itself a valid input that compiles to the same policy (tested).

use crate::compile::DEFAULT_LAYERS;
use crate::frontend::Layer;
use crate::ir::{
    BinaryOp, CheckedPolicy, Const, Func, Hook, IrExpr, IrExprKind, PriorityOrder, Spelled, UnaryOp,
};
use hookc_runtime::bytecode::path::PathTable;
use serde_json::{json, Map, Value};

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
        crate::ir::Events::Any => Value::from("*"),
        crate::ir::Events::Named(names) => match names.as_slice() {
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
    if let Some(c) = &h.condition {
        match tree(c, paths) {
            Some(t) => {
                m.insert("condition".into(), t);
            }
            None => {
                if let Some(text) = c.to_source(paths) {
                    m.insert("when".into(), text.into());
                }
            }
        }
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

/// The condition as a YAML tree, if every node has a tree form.
fn tree(e: &IrExpr, paths: &PathTable) -> Option<Value> {
    let path_of = |e: &IrExpr| match &e.kind {
        IrExprKind::Path(id) => paths.get(*id).map(ToString::to_string),
        _ => None,
    };
    let leaf = |p: &IrExpr, op: &str, value: Option<&Const>| {
        let mut m = Map::new();
        m.insert("path".into(), path_of(p)?.into());
        m.insert("op".into(), op.into());
        if let Some(v) = value {
            m.insert("value".into(), v.to_json());
        }
        Some(Value::Object(m))
    };
    match &e.kind {
        IrExprKind::Const(Const::Bool(true)) => Some(json!({"all": []})),
        IrExprKind::Const(Const::Bool(false)) => Some(json!({"any": []})),
        // `exists` is `has(p) && p != null`.
        IrExprKind::And(a, b) if is_exists(a, b) => match &b.kind {
            IrExprKind::Binary { lhs, .. } => leaf(lhs, "exists", None),
            _ => None,
        },
        IrExprKind::And(..) | IrExprKind::Or(..) => {
            let is_and = matches!(e.kind, IrExprKind::And(..));
            // One list for a whole run of the same operator, however it is
            // nested: `all` lists re-read into the same chains, so the
            // output is stable.
            let mut items = Vec::new();
            flatten(e, is_and, &mut items);
            let items = items
                .into_iter()
                .map(|i| tree(i, paths))
                .collect::<Option<Vec<_>>>()?;
            let key = if is_and { "all" } else { "any" };
            Some(json!({ key: items }))
        }
        IrExprKind::Unary(UnaryOp::Not, inner) => Some(json!({"not": tree(inner, paths)?})),
        IrExprKind::Binary { op, lhs, rhs, .. } => {
            let IrExprKind::Const(c) = &rhs.kind else {
                return None;
            };
            let name = match op {
                BinaryOp::Eq => "eq",
                BinaryOp::Ne => "ne",
                BinaryOp::Gt => "gt",
                BinaryOp::Ge => "gte",
                BinaryOp::Lt => "lt",
                BinaryOp::Le => "lte",
                BinaryOp::In => "in",
                _ => return None,
            };
            leaf(lhs, name, Some(c))
        }
        IrExprKind::Call(func, args) => {
            let name = match func {
                Func::Contains => "contains",
                Func::StartsWith => "starts_with",
                Func::EndsWith => "ends_with",
                Func::Size => return None,
            };
            let [subject, value] = args.as_slice() else {
                return None;
            };
            let IrExprKind::Const(c) = &value.kind else {
                return None;
            };
            leaf(subject, name, Some(c))
        }
        IrExprKind::Matches(subject, re) => {
            let op = if re.glob.is_some() { "glob" } else { "regex" };
            leaf(subject, op, Some(&Const::String(re.source().to_owned())))
        }
        IrExprKind::SchemaMatch { path, schema, .. } => {
            Some(json!({"path": paths.get(*path)?.to_string(), "op": "matches", "value": schema}))
        }
        _ => None,
    }
}

/// The operands of a run of `&&` (or `||`), left to right; an `exists`
/// (`has(p) && p != null`) is one operand, not two.
fn flatten<'e>(e: &'e IrExpr, is_and: bool, out: &mut Vec<&'e IrExpr>) {
    match (&e.kind, is_and) {
        (IrExprKind::And(a, b), true) if !is_exists(a, b) => {
            flatten(a, is_and, out);
            flatten(b, is_and, out);
        }
        (IrExprKind::Or(a, b), false) => {
            flatten(a, is_and, out);
            flatten(b, is_and, out);
        }
        _ => out.push(e),
    }
}

/// Whether `a && b` is the IR of `exists`: `has(p) && p != null`.
fn is_exists(a: &IrExpr, b: &IrExpr) -> bool {
    let IrExprKind::HasPath(id) = a.kind else {
        return false;
    };
    matches!(&b.kind, IrExprKind::Binary { op: BinaryOp::Ne, lhs, rhs, .. }
        if matches!(lhs.kind, IrExprKind::Path(p) if p == id)
            && matches!(rhs.kind, IrExprKind::Const(Const::Null)))
}
