//! Reading action type definitions (a file's `action_types` section, and the
//! built-in ones): every key checked, defaults and `enum` values read as fixed
//! values, and each definition merged over the types already known.

use super::{found, list, render, same, value_phrase};
use super::{ActionType, ActionTypes, ActionValue, ParamDef, ParamType, PARAM_KEYS, TYPE_KEYS};
use crate::check::template;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{child_path, Key, Node, NodeKind};
use crate::ir::{Effect, Spelled};
use crate::span::Span;
use crate::suggest;

impl ActionTypes {
    /// Reads one file's `action_types` mapping and merges it over what is
    /// there: a type with a built-in's name replaces the built-in. A type that
    /// another file already declared differently is
    /// [`Code::DuplicateDefinition`] (the first declaration stays); the same
    /// definition again is accepted. Invalid definitions are reported
    /// ([`Code::ActionTypeDef`]) and kept without their bad parts, so that
    /// actions using them are still checked.
    pub fn declare(&mut self, node: &Node, diags: &mut Diagnostics) {
        let Some(entries) = node.as_map() else {
            diags.push(
                Diagnostic::new(
                    Code::ActionTypeDef,
                    format!(
                        "`action_types` must be a mapping from action type names to definitions, found {}",
                        found(node)
                    ),
                )
                .at(node.span)
                .node("action_types"),
            );
            return;
        };
        for (key, def) in entries {
            let mut ty = read_type(key, def, diags);
            ty.source = Some(def.to_json());
            match self.types.iter().position(|t| t.name == key.name) {
                None => {
                    self.declared.push(self.types.len());
                    self.types.push(ty);
                }
                Some(i) => {
                    let Some(slot) = self.types.get_mut(i) else {
                        continue;
                    };
                    match &slot.source {
                        None => {
                            *slot = ty;
                            self.declared.push(i);
                        }
                        Some(prev) if Some(prev) == ty.source.as_ref() => {}
                        Some(_) => diags.push(
                            Diagnostic::new(
                                Code::DuplicateDefinition,
                                format!("action type `{}` is defined twice", key.name),
                            )
                            .at(key.span)
                            .node(child_path("action_types", &key.name))
                            .label("defined again here")
                            .help("declare each action type in one file only; the first definition is used")),
                    }
                }
            }
        }
    }
}

/// Reads one action type definition, `{description, parameters}`.
pub(super) fn read_type(key: &Key, def: &Node, diags: &mut Diagnostics) -> ActionType {
    let name = key.name.as_str();
    let np = child_path("action_types", name);
    let mut out = ActionType {
        name: name.to_owned(),
        description: None,
        effect: Effect::default(),
        params: Vec::new(),
        source: None,
    };
    let bad = |msg: String, span: Span, np: &str| {
        Diagnostic::new(Code::ActionTypeDef, msg).at(span).node(np)
    };
    if name.is_empty() {
        diags.push(bad(
            "an action type needs a non-empty name".into(),
            key.span,
            &np,
        ));
    }
    let Some(entries) = def.as_map() else {
        diags.push(bad(
            format!(
                "action type `{name}` must be a mapping with `description` and `parameters`, found {}",
                found(def)
            ),
            def.span,
            &np,
        ));
        return out;
    };
    for (k, v) in entries {
        match k.name.as_str() {
            "description" => match v.as_str() {
                Some(s) => out.description = Some(s.to_owned()),
                None => diags.push(bad(
                    format!("`description` of action type `{name}` must be a string, found {}", found(v)),
                    v.span,
                    &child_path(&np, "description"),
                )),
            },
            "effect" => match v.as_str().map(|s| (s, Effect::from_name(s))) {
                Some((_, Some(effect))) => out.effect = effect,
                Some((s, None)) => diags.push(
                    bad(
                        format!("`effect` of action type `{name}` must be one of `{}`, found `{s}`", Effect::names().collect::<Vec<_>>().join("`, `")),
                        v.span,
                        &child_path(&np, "effect"),
                    )
                    .maybe_help(suggest::help_for(s, Effect::names())),
                ),
                None => diags.push(bad(
                    format!("`effect` of action type `{name}` must be one of `{}`, found {}", Effect::names().collect::<Vec<_>>().join("`, `"), found(v)),
                    v.span,
                    &child_path(&np, "effect"),
                )),
            },
            "parameters" => match &v.kind {
                NodeKind::Map(params) => {
                    let pnp = child_path(&np, "parameters");
                    for (pk, pv) in params {
                        if out.params.iter().any(|p| p.name == pk.name) {
                            // A repeated YAML key: the front end reports it.
                            continue;
                        }
                        if let Some(p) = read_param(name, pk, pv, &pnp, diags) {
                            out.params.push(p);
                        }
                    }
                }
                NodeKind::Null => {}
                _ => diags.push(bad(
                    format!(
                        "`parameters` of action type `{name}` must be a mapping from parameter names to definitions, found {}",
                        found(v)
                    ),
                    v.span,
                    &child_path(&np, "parameters"),
                )),
            },
            other => diags.push(
                bad(
                    format!("action type `{name}` has unknown key `{other}`"),
                    k.span,
                    &child_path(&np, other),
                )
                .maybe_help(suggest::help_for(other, TYPE_KEYS)),
            ),
        }
    }
    out
}

/// Reads one parameter definition, `{type, enum, default, required, optional,
/// description}`; `None` when the parameter cannot exist at all.
fn read_param(
    type_name: &str,
    key: &Key,
    def: &Node,
    np: &str,
    diags: &mut Diagnostics,
) -> Option<ParamDef> {
    let name = key.name.as_str();
    let np = child_path(np, name);
    let bad = |msg: String, span: Span, np: &str| {
        Diagnostic::new(Code::ActionTypeDef, msg).at(span).node(np)
    };
    if name == "type" {
        diags.push(
            bad(
                format!("action type `{type_name}` cannot have a parameter named `type`"),
                key.span,
                &np,
            )
            .help("an action's `type` key names its action type; choose another name"),
        );
        return None;
    }
    if name.is_empty() {
        diags.push(bad(
            format!("action type `{type_name}` has a parameter with an empty name"),
            key.span,
            &np,
        ));
        return None;
    }
    let what = format!("parameter `{name}` of `{type_name}`");
    let mut p = ParamDef {
        name: name.to_owned(),
        ty: None,
        allowed: None,
        default: None,
        required: false,
        description: None,
    };
    let Some(entries) = def.as_map() else {
        diags.push(
            bad(
                format!("{what} must be a mapping, found {}", found(def)),
                def.span,
                &np,
            )
            .help("write a definition such as `{type: string, required: true}`"),
        );
        return Some(p);
    };
    let mut enum_items: Vec<(&Node, ActionValue)> = Vec::new();
    let mut default = None;
    let mut optional = false;
    for (k, v) in entries {
        let knp = child_path(&np, &k.name);
        let flag = |v: &Node, diags: &mut Diagnostics| match v.kind {
            NodeKind::Bool(b) => Some(b),
            _ => {
                diags.push(bad(
                    format!(
                        "`{}` of {what} must be `true` or `false`, found {}",
                        k.name,
                        found(v)
                    ),
                    v.span,
                    &knp,
                ));
                None
            }
        };
        match k.name.as_str() {
            "type" => match v.as_str() {
                Some(t) => match ParamType::from_name(t) {
                    Some(ty) => p.ty = Some(ty),
                    None => diags.push(
                        bad(
                            format!("unknown parameter type `{t}` for {what}"),
                            v.span,
                            &knp,
                        )
                        .maybe_help(suggest::help_for(t, ParamType::ALL.map(ParamType::name))),
                    ),
                },
                None => diags.push(bad(
                    format!("`type` of {what} must be a type name, found {}", found(v)),
                    v.span,
                    &knp,
                )),
            },
            "enum" => match v.as_seq() {
                Some([]) => diags.push(
                    bad(format!("`enum` of {what} is empty"), v.span, &knp)
                        .help("list the values the parameter may take, or drop `enum`"),
                ),
                Some(items) if items.len() > hookc_runtime::limits::MAX_LIST_ITEMS => {
                    if let Some(d) = v.too_large(&format!("the `enum` of {what}")) {
                        diags.push(d.node(knp.clone()));
                    }
                }
                Some(items) => {
                    let mut ok = true;
                    for item in items {
                        match fixed_value(item, &what, &knp, 0, diags) {
                            Some(value) => enum_items.push((item, value)),
                            None => ok = false,
                        }
                    }
                    if !ok {
                        enum_items.clear();
                    }
                }
                None => diags.push(bad(
                    format!(
                        "`enum` of {what} must be a list of values, found {}",
                        found(v)
                    ),
                    v.span,
                    &knp,
                )),
            },
            "default" => default = Some((v, knp)),
            "required" => p.required = flag(v, diags).unwrap_or(false),
            "optional" => optional = flag(v, diags).unwrap_or(false),
            "description" => match v.as_str() {
                Some(s) => p.description = Some(s.to_owned()),
                None => diags.push(bad(
                    format!(
                        "`description` of {what} must be a string, found {}",
                        found(v)
                    ),
                    v.span,
                    &knp,
                )),
            },
            other => diags.push(
                bad(format!("{what} has unknown key `{other}`"), k.span, &knp)
                    .maybe_help(suggest::help_for(other, PARAM_KEYS)),
            ),
        }
    }
    if p.required && optional {
        diags.push(bad(
            format!("{what} cannot be both required and optional"),
            def.span,
            &np,
        ));
    }
    // Enum values must fit the type.
    if !enum_items.is_empty() {
        let mut ok = true;
        if let Some(ty) = p.ty {
            for (item, value) in &enum_items {
                if !ty.fits(value) {
                    ok = false;
                    diags.push(bad(
                        format!(
                            "enum value `{}` of {what} is not {}",
                            render(value),
                            ty.phrase()
                        ),
                        item.span,
                        &child_path(&np, "enum"),
                    ));
                }
            }
        }
        if ok {
            p.allowed = Some(enum_items.into_iter().map(|(_, v)| v).collect());
        }
    }
    if let Some((node, dnp)) = default {
        if let Some(value) = fixed_value(node, &what, &dnp, 0, diags) {
            if p.required {
                diags.push(
                    bad(format!("{what} is required and has a default"), node.span, &dnp)
                        .help("a parameter with a default is never missing: drop `required: true` or the default"),
                );
            } else if let Some(ty) = p.ty.filter(|ty| !ty.fits(&value)) {
                diags.push(
                    bad(
                        format!(
                            "default of {what} must be {}, found {}",
                            ty.phrase(),
                            value_phrase(&value)
                        ),
                        node.span,
                        &dnp,
                    )
                    .label(format!("expected {}", ty.phrase())),
                );
            } else if let Some(allowed) = p
                .allowed
                .as_ref()
                .filter(|a| !a.iter().any(|x| same(x, &value)))
            {
                diags.push(
                    bad(
                        format!(
                            "default `{}` of {what} is not one of its `enum` values",
                            render(&value)
                        ),
                        node.span,
                        &dnp,
                    )
                    .help(format!("expected one of {}", list(allowed))),
                );
            } else {
                p.default = Some(value);
            }
        }
    }
    Some(p)
}

/// A value in an action type definition (a default, an enum value): like a
/// parameter value, but without templates.
fn fixed_value(
    node: &Node,
    what: &str,
    np: &str,
    depth: usize,
    diags: &mut Diagnostics,
) -> Option<ActionValue> {
    if depth > hookc_runtime::limits::MAX_DOC_DEPTH {
        diags.push(
            Diagnostic::new(
                Code::TooDeep,
                format!("a value in the definition of {what} is nested too deeply"),
            )
            .at(node.span)
            .node(np),
        );
        return None;
    }
    if depth == 0 {
        if let Some(d) = node.too_large(&format!("the definition of {what}")) {
            diags.push(d.node(np));
            return None;
        }
    }
    Some(match &node.kind {
        NodeKind::Null => ActionValue::Null,
        NodeKind::Bool(b) => ActionValue::Bool(*b),
        NodeKind::Int(i) => ActionValue::Int(*i),
        NodeKind::Float(f) if f.is_finite() => ActionValue::Double(*f),
        NodeKind::Float(f) => {
            diags.push(
                Diagnostic::new(
                    Code::ActionTypeDef,
                    format!("`{f}` in the definition of {what} is not a finite number"),
                )
                .at(node.span)
                .node(np),
            );
            return None;
        }
        NodeKind::Str(s) | NodeKind::Text(s) => match template::literal_text(s) {
            Some(text) => ActionValue::String(text),
            None => {
                diags.push(
                    Diagnostic::new(
                        Code::ActionTypeDef,
                        format!("`{s}` in the definition of {what} holds a `${{...}}` reference"),
                    )
                    .at(node.span)
                    .node(np)
                    .label("defaults and enum values are fixed")
                    .help("write `$${` for a literal `${`"),
                );
                return None;
            }
        },
        NodeKind::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            let mut ok = true;
            for (i, item) in items.iter().enumerate() {
                match fixed_value(item, what, &format!("{np}[{i}]"), depth + 1, diags) {
                    Some(v) => out.push(v),
                    None => ok = false,
                }
            }
            if !ok {
                return None;
            }
            ActionValue::List(out)
        }
        NodeKind::Map(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            let mut ok = true;
            for (k, v) in entries {
                match fixed_value(v, what, &child_path(np, &k.name), depth + 1, diags) {
                    Some(v) => out.push((k.name.clone(), v)),
                    None => ok = false,
                }
            }
            if !ok {
                return None;
            }
            ActionValue::Object(out)
        }
    })
}
