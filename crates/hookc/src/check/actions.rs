//! Action types (SPEC §4) and the checking of actions against them.
//!
//! Action types are data: [`ActionTypes::builtin`] holds seed 000's eight
//! (`retry`, `fail`, `abort`, `continue`, `escalate`, `call_directive`,
//! `suspend`, `emit_event`), and each file's `action_types` section is merged
//! over them with [`ActionTypes::declare`]. [`check_action`] turns a
//! [`RawAction`] into an [`Action`]: every parameter typed, `${path}` templates
//! parsed and checked against the context schema, defaults filled in.
//!
//! Decisions (also in the README):
//! - `required` absent means optional; `optional: true` is the seed's way of
//!   saying so and changes nothing. `required: true` with a default is an error.
//! - A type declared by two files with the same definition is accepted once;
//!   with different definitions it is [`Code::DuplicateDefinition`].
//! - Defaults and `enum` values are fixed values: they follow the template
//!   escaping (`$${` is a literal `${`) but may not hold a `${path}` reference.
//! - YAML values are typed strictly: `3.0` is not an `integer`, `"7"` is not an
//!   `integer`. XML attribute and `<param>` text is untyped and coerced by the
//!   declared type (`"7200"` is an integer for an `integer` parameter).
//! - Templates in enum parameters: see [`check_action`].

use crate::check::schema::ContextSchema;
use crate::check::template::{self, Parsed, Template};
use crate::check::ty::{Kinds, Type};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{child_path, Key, Node, NodeKind};
use crate::frontend::RawAction;
use crate::span::{FileId, Span, Spanned};
use crate::suggest;
use hookc_runtime::bytecode::path::PathTable;
use std::collections::HashSet;

/// The JSON type an action parameter declares (its definition's `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `string`
    String,
    /// `integer`: a whole number (YAML `3`, not `3.0`).
    Integer,
    /// `number`: an integer or a float; integers stay integers.
    Number,
    /// `boolean`
    Boolean,
    /// `object`: a mapping of any values.
    Object,
    /// `array`: a list of any values.
    Array,
}

impl ParamType {
    /// Every type, in the order their names are listed in help texts.
    pub const ALL: [ParamType; 6] = [
        ParamType::String,
        ParamType::Integer,
        ParamType::Number,
        ParamType::Boolean,
        ParamType::Object,
        ParamType::Array,
    ];

    /// The type of a `type:` name.
    pub fn from_name(name: &str) -> Option<ParamType> {
        ParamType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The name as written in `type:`.
    pub fn name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Object => "object",
            ParamType::Array => "array",
        }
    }

    /// The value kinds the type admits.
    pub fn kinds(self) -> Kinds {
        match self {
            ParamType::String => Kinds::STRING,
            ParamType::Integer => Kinds::INT,
            ParamType::Number => Kinds::NUMBER,
            ParamType::Boolean => Kinds::BOOL,
            ParamType::Object => Kinds::OBJECT,
            ParamType::Array => Kinds::LIST,
        }
    }

    /// `a string`, `an integer`, ... for messages.
    fn phrase(self) -> &'static str {
        match self {
            ParamType::String => "a string",
            ParamType::Integer => "an integer",
            ParamType::Number => "a number",
            ParamType::Boolean => "a boolean",
            ParamType::Object => "an object",
            ParamType::Array => "an array",
        }
    }

    /// Whether a value has this type (a template counts as a string).
    fn fits(self, value: &ActionValue) -> bool {
        matches!(
            (self, value),
            (
                ParamType::String,
                ActionValue::String(_) | ActionValue::Template(_)
            ) | (ParamType::Integer, ActionValue::Int(_))
                | (
                    ParamType::Number,
                    ActionValue::Int(_) | ActionValue::Double(_)
                )
                | (ParamType::Boolean, ActionValue::Bool(_))
                | (ParamType::Object, ActionValue::Object(_))
                | (ParamType::Array, ActionValue::List(_))
        )
    }

    /// Whether a non-string document node has this type.
    fn fits_node(self, node: &Node) -> bool {
        matches!(
            (self, &node.kind),
            (ParamType::Integer, NodeKind::Int(_))
                | (ParamType::Number, NodeKind::Int(_) | NodeKind::Float(_))
                | (ParamType::Boolean, NodeKind::Bool(_))
                | (ParamType::Object, NodeKind::Map(_))
                | (ParamType::Array, NodeKind::Seq(_))
        )
    }
}

/// One parameter of an action type.
///
/// INVARIANT (param def): a required parameter has no default; the default
/// and the `enum` values hold no template and fit the declared type; the
/// default is one of the `enum` values. [`ActionTypes`] only builds
/// definitions that hold it (a definition with an error loses the bad part).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDef {
    name: String,
    ty: Option<ParamType>,
    allowed: Option<Vec<ActionValue>>,
    default: Option<ActionValue>,
    required: bool,
    description: Option<String>,
}

impl ParamDef {
    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The declared type; `None` = any value.
    pub fn ty(&self) -> Option<ParamType> {
        self.ty
    }

    /// The `enum` values, if restricted.
    pub fn allowed(&self) -> Option<&[ActionValue]> {
        self.allowed.as_deref()
    }

    /// The default, filled in when the parameter is not given.
    pub fn default(&self) -> Option<&ActionValue> {
        self.default.as_ref()
    }

    /// Whether an action must give it.
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// The `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
}

/// One action type: its name and parameters in declaration order.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionType {
    name: String,
    description: Option<String>,
    params: Vec<ParamDef>,
    /// The definition as written, when a file declared it.
    source: Option<serde_json::Value>,
}

impl ActionType {
    /// The type's name (`retry`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The parameters in declaration order.
    pub fn params(&self) -> &[ParamDef] {
        &self.params
    }

    /// A parameter by name.
    pub fn param(&self, name: &str) -> Option<&ParamDef> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Whether a file declared this type (rather than it being built in).
    pub fn is_declared(&self) -> bool {
        self.source.is_some()
    }

    /// The definition as written (`{description, parameters}`), when a file
    /// declared it.
    pub fn source(&self) -> Option<&serde_json::Value> {
        self.source.as_ref()
    }
}

/// The action types of one compilation: the built-in ones, with the files'
/// declarations merged over them.
#[derive(Debug, Clone)]
pub struct ActionTypes {
    /// Built-in types first (seed order), then new declared ones; a declared
    /// type with a built-in's name takes the built-in's place.
    types: Vec<ActionType>,
    /// Indexes into `types` of the declared ones, in declaration order.
    declared: Vec<usize>,
}

/// The keys of an action type definition.
pub const TYPE_KEYS: [&str; 2] = ["description", "parameters"];
/// The keys of an action parameter definition.
pub const PARAM_KEYS: [&str; 6] = [
    "type",
    "enum",
    "default",
    "required",
    "optional",
    "description",
];

impl ActionTypes {
    /// Seed 000's action types, used when no file declares `action_types`.
    pub fn builtin() -> ActionTypes {
        // The built-in definitions are fixed and known valid (tested below); a
        // diagnostic here would be a bug, and is dropped rather than shown.
        ActionTypes::from_builtin_json(&builtin_json(), &mut Diagnostics::new())
    }

    /// Action types read from definitions that count as built in.
    fn from_builtin_json(json: &serde_json::Value, diags: &mut Diagnostics) -> ActionTypes {
        let node = Node::from_json(json, Span::new(FileId(u32::MAX), 0, 0));
        let types = node
            .as_map()
            .unwrap_or_default()
            .iter()
            .map(|(key, def)| read_type(key, def, diags))
            .collect();
        ActionTypes {
            types,
            declared: Vec::new(),
        }
    }

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

    /// An action type by name.
    pub fn get(&self, name: &str) -> Option<&ActionType> {
        self.types.iter().find(|t| t.name == name)
    }

    /// Every action type.
    pub fn iter(&self) -> impl Iterator<Item = &ActionType> {
        self.types.iter()
    }

    /// Every action type's name.
    pub fn names(&self) -> impl Iterator<Item = &str> + Clone {
        self.types.iter().map(|t| t.name.as_str())
    }

    /// The types declared by files, in declaration order, with their
    /// definitions as written (for the normalized `--emit` output).
    pub fn custom_definitions(&self) -> impl Iterator<Item = (&str, &serde_json::Value)> {
        self.declared
            .iter()
            .filter_map(|&i| self.types.get(i))
            .filter_map(|t| Some((t.name.as_str(), t.source.as_ref()?)))
    }
}

/// Seed 000's `action_types` section, verbatim.
fn builtin_json() -> serde_json::Value {
    serde_json::json!({
        "retry": {
            "description": "Retry the operation",
            "parameters": {
                "max_attempts": {"type": "integer", "default": 3},
                "backoff_policy": {
                    "type": "string",
                    "enum": ["exponential", "fixed", "inherit"],
                    "default": "inherit"
                },
                "delay": {"type": "number", "description": "For fixed backoff"}
            }
        },
        "fail": {
            "description": "Fail the thread",
            "parameters": {
                "error_message": {"type": "string", "optional": true}
            }
        },
        "abort": {
            "description": "Abort immediately (no cleanup)",
            "parameters": {}
        },
        "continue": {
            "description": "Continue to next/default behavior",
            "parameters": {}
        },
        "escalate": {
            "description": "Escalate to user/parent for approval",
            "parameters": {
                "target": {
                    "type": "string",
                    "enum": ["user_approval", "parent_notification", "both"]
                },
                "timeout_seconds": {"type": "integer", "default": 3600}
            }
        },
        "call_directive": {
            "description": "Execute another directive",
            "parameters": {
                "directive": {"type": "string", "required": true},
                "parameters": {"type": "object", "default": {}},
                "inherit_token": {"type": "boolean", "default": true}
            }
        },
        "suspend": {
            "description": "Suspend thread awaiting resume",
            "parameters": {
                "suspend_reason": {
                    "type": "string",
                    "enum": ["limit", "error", "budget", "approval"],
                    "required": true
                }
            }
        },
        "emit_event": {
            "description": "Emit custom transcript event",
            "parameters": {
                "event_type": {"type": "string", "required": true},
                "payload": {"type": "object", "default": {}}
            }
        }
    })
}

/// Reads one action type definition, `{description, parameters}`.
fn read_type(key: &Key, def: &Node, diags: &mut Diagnostics) -> ActionType {
    let name = key.name.as_str();
    let np = child_path("action_types", name);
    let mut out = ActionType {
        name: name.to_owned(),
        description: None,
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

/// A checked action: the action type's name and its complete parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    /// The action type's name.
    pub kind: String,
    /// The parameters in the action type's declaration order, defaults filled
    /// in; a parameter that is neither given nor defaulted is absent.
    pub params: Vec<(String, ActionValue)>,
    /// The action as written.
    pub span: Span,
}

impl Action {
    /// A parameter's value by name.
    pub fn param(&self, name: &str) -> Option<&ActionValue> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The action in source form, `{"type": KIND, ...params}` (see
    /// [`ActionValue::to_json`]).
    pub fn to_json(&self, paths: &PathTable) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        map.insert(
            "type".to_owned(),
            serde_json::Value::String(self.kind.clone()),
        );
        for (name, value) in &self.params {
            map.insert(name.clone(), value.to_json(paths));
        }
        serde_json::Value::Object(map)
    }
}

/// A checked parameter value: JSON, plus templates.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionValue {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A finite float.
    Double(f64),
    /// A string without references (escapes resolved: `$${` is `${` here).
    String(String),
    /// A string with `${path}` references, filled in at evaluation.
    Template(Template),
    /// A list.
    List(Vec<ActionValue>),
    /// An object, entries in source order.
    Object(Vec<(String, ActionValue)>),
}

impl ActionValue {
    /// The value in source form, as the normalized `--emit` output writes it:
    /// a template as its [`Template::source_text`], and a literal string with
    /// `${` escaped as `$${`, so that reading the output back gives the same
    /// value. For the value an evaluation returns, see
    /// [`ActionValue::const_json`].
    pub fn to_json(&self, paths: &PathTable) -> serde_json::Value {
        self.json(
            &|t| Some(serde_json::Value::String(t.source_text(paths))),
            true,
        )
        .unwrap_or(serde_json::Value::Null)
    }

    /// The runtime value when the value holds no template (strings as they
    /// are, unescaped); `None` when it holds one.
    pub fn const_json(&self) -> Option<serde_json::Value> {
        self.json(&|_| None, false)
    }

    /// Whether a template occurs anywhere in the value.
    pub fn has_templates(&self) -> bool {
        match self {
            ActionValue::Template(_) => true,
            ActionValue::List(items) => items.iter().any(ActionValue::has_templates),
            ActionValue::Object(entries) => entries.iter().any(|(_, v)| v.has_templates()),
            _ => false,
        }
    }

    /// A value from JSON; strings stay literal strings.
    pub fn from_json(value: &serde_json::Value) -> ActionValue {
        use serde_json::Value;
        match value {
            Value::Null => ActionValue::Null,
            Value::Bool(b) => ActionValue::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => ActionValue::Int(i),
                None => ActionValue::Double(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => ActionValue::String(s.clone()),
            Value::Array(items) => {
                ActionValue::List(items.iter().map(ActionValue::from_json).collect())
            }
            Value::Object(map) => ActionValue::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), ActionValue::from_json(v)))
                    .collect(),
            ),
        }
    }

    fn json(
        &self,
        template: &dyn Fn(&Template) -> Option<serde_json::Value>,
        escape: bool,
    ) -> Option<serde_json::Value> {
        use serde_json::Value;
        Some(match self {
            ActionValue::Null => Value::Null,
            ActionValue::Bool(b) => Value::Bool(*b),
            ActionValue::Int(i) => Value::from(*i),
            ActionValue::Double(f) => {
                serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
            }
            ActionValue::String(s) if escape => Value::String(template::escape_literal(s)),
            ActionValue::String(s) => Value::String(s.clone()),
            ActionValue::Template(t) => template(t)?,
            ActionValue::List(items) => Value::Array(
                items
                    .iter()
                    .map(|v| v.json(template, escape))
                    .collect::<Option<_>>()?,
            ),
            ActionValue::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| Some((k.clone(), v.json(template, escape)?)))
                    .collect::<Option<_>>()?,
            ),
        })
    }
}

/// Checks an action against its action type and returns it complete, or
/// `None` when it has errors (all of them reported, each at the most precise
/// span, with the YAML node path when `raw.node_path` is given).
///
/// Every string anywhere in the parameters is read as a template
/// ([`template::parse`]) and each referenced path is checked against the
/// context schema ([`ContextSchema::type_of_path`]: a warning outside an open
/// schema, an error outside a closed one).
///
/// Templates and types: a whole template (`"${event.tokens_used}"`) keeps the
/// value's type, so it is accepted for a typed parameter when the path's kinds
/// meet the parameter's (an untyped path always does); a template inside a
/// longer string is a string.
///
/// Templates and enums: a whole template is accepted for an enum parameter
/// unless the path's schema `enum` lists a value (other than `null`, which any
/// missing path yields) outside the parameter's enum; a path without a schema
/// enum cannot be checked and is accepted. A template inside a longer string
/// is rejected: text around a reference makes an enum value only by accident.
pub fn check_action(
    raw: &RawAction,
    source: &str,
    types: &ActionTypes,
    schema: &ContextSchema,
    paths: &mut PathTable,
    diags: &mut Diagnostics,
) -> Option<Action> {
    let errors_before = diags.error_count();
    let np = raw.node_path.as_deref();
    let kind = raw.kind.value.as_str();
    let mut cx = Checker {
        kind,
        source,
        schema,
        paths,
        diags,
    };
    // Strings and lists past the limits, before anything reads them.
    let mut too_large = false;
    for (key, value) in raw.params.iter().chain(&raw.xml_params) {
        let what = format!("parameter `{}` of `{kind}`", key.value);
        if let Some(d) = value.too_large(&what) {
            cx.push(d, child(np, &key.value).as_deref());
            too_large = true;
        }
    }
    if too_large {
        return None;
    }
    let Some(ty) = types.get(kind) else {
        let d = Diagnostic::new(
            Code::UnknownActionType,
            format!("unknown action type `{kind}`"),
        )
        .at(raw.kind.span)
        .label("not an action type")
        .maybe_help(suggest::help_for(kind, types.names()));
        cx.push(d, child(np, "type").as_deref());
        // The parameters cannot be typed, but their templates can be checked.
        for (key, value) in raw.params.iter().chain(&raw.xml_params) {
            let _ = cx.untyped(value, child(np, &key.value).as_deref(), 0);
        }
        return None;
    };

    let mut slots: Vec<Slot<'_>> = ty
        .params
        .iter()
        .map(|def| Slot {
            def,
            given: false,
            value: None,
        })
        .collect();
    let xml_target = if raw.xml_params.is_empty() {
        None
    } else {
        cx.xml_target(ty, &raw.xml_params)
    };

    for (key, value) in &raw.params {
        let name = key.value.as_str();
        let pnp = child(np, name);
        let Some((index, slot)) = slots
            .iter_mut()
            .enumerate()
            .find(|(_, s)| s.def.name == name)
        else {
            cx.unknown_param(ty, key, pnp.as_deref());
            continue;
        };
        if slot.given {
            // A repeated key: the front end reports it.
            continue;
        }
        slot.given = true;
        if xml_target == Some(index) {
            let d = Diagnostic::new(
                Code::ParameterType,
                format!(
                    "parameter `{name}` of `{kind}` is given both as an attribute and as `<param>` children"
                ),
            )
            .at(key.span)
            .label("given here too")
            .help("drop the attribute: the `<param>` children fill it");
            cx.push(d, pnp.as_deref());
            continue;
        }
        slot.value = cx.param(slot.def, value, pnp.as_deref());
    }

    if let Some(slot) = xml_target
        .and_then(|i| slots.get_mut(i))
        .filter(|s| !s.given)
    {
        slot.given = true;
        slot.value = cx.xml_object(slot.def, &raw.xml_params, np);
    }

    for slot in &slots {
        if slot.def.required && !slot.given {
            let name = slot.def.name.as_str();
            let help = match (np, slot.def.ty) {
                (Some(_), _) => format!("add `{name}: ...` to the action"),
                (None, Some(ParamType::Object)) => "add `<param name=\"...\">` children".to_owned(),
                (None, _) => format!("add the attribute `{name}=\"...\"`"),
            };
            let d = Diagnostic::new(
                Code::MissingParameter,
                format!("missing required parameter `{name}` of `{kind}`"),
            )
            .at(raw.span)
            .label(format!("`{name}` is required"))
            .help(help);
            cx.push(d, np);
        }
    }

    if cx.diags.error_count() > errors_before {
        return None;
    }
    let params = slots
        .into_iter()
        .filter_map(|slot| {
            let value = slot.value.or_else(|| slot.def.default.clone())?;
            Some((slot.def.name.clone(), value))
        })
        .collect();
    Some(Action {
        kind: kind.to_owned(),
        params,
        span: raw.span,
    })
}

/// One parameter of the action type while an action is checked.
struct Slot<'t> {
    def: &'t ParamDef,
    /// Whether the action gives it (even with an invalid value).
    given: bool,
    /// Its checked value.
    value: Option<ActionValue>,
}

/// What checking one action needs.
struct Checker<'a> {
    /// The action type's name.
    kind: &'a str,
    /// The text of the file the action is in, so that a template's spans
    /// point inside its string when the string is written verbatim.
    source: &'a str,
    schema: &'a ContextSchema,
    paths: &'a mut PathTable,
    diags: &'a mut Diagnostics,
}

impl Checker<'_> {
    fn push(&mut self, d: Diagnostic, np: Option<&str>) {
        self.diags.push(match np {
            Some(np) => d.node(np),
            None => d,
        });
    }

    fn unknown_param(&mut self, ty: &ActionType, key: &Spanned<String>, np: Option<&str>) {
        let kind = self.kind;
        let name = key.value.as_str();
        let help = if ty.params.is_empty() {
            Some(format!("`{kind}` takes no parameters"))
        } else {
            suggest::help_for(name, ty.params.iter().map(|p| p.name.as_str()))
        };
        let d = Diagnostic::new(
            Code::UnknownParameter,
            format!("action type `{kind}` has no parameter `{name}`"),
        )
        .at(key.span)
        .label("unknown parameter")
        .maybe_help(help);
        self.push(d, np);
    }

    /// The object parameter that XML `<param>` children fill, reporting when
    /// the action type has none or several.
    fn xml_target(&mut self, ty: &ActionType, xml: &[(Spanned<String>, Node)]) -> Option<usize> {
        let kind = self.kind;
        let objects: Vec<(usize, &str)> = ty
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ty == Some(ParamType::Object))
            .map(|(i, p)| (i, p.name.as_str()))
            .collect();
        let span = xml.first().map(|(k, _)| k.span)?;
        match objects.as_slice() {
            [(i, _)] => return Some(*i),
            [] => {
                let help = if ty.params.is_empty() {
                    format!("`{kind}` takes no parameters")
                } else {
                    let names: Vec<&str> = ty.params.iter().map(|p| p.name.as_str()).collect();
                    format!("give its parameters as attributes: {}", backticked(&names))
                };
                let d = Diagnostic::new(
                    Code::UnknownParameter,
                    format!("action type `{kind}` has no object parameter for `<param>` children to fill"),
                )
                .at(span)
                .label("`<param>` not allowed here")
                .help(help);
                self.push(d, None);
            }
            several => {
                let names: Vec<&str> = several.iter().map(|(_, n)| *n).collect();
                let d = Diagnostic::new(
                    Code::UnknownParameter,
                    format!(
                        "action type `{kind}` has several object parameters ({}), so `<param>` children are ambiguous",
                        backticked(&names)
                    ),
                )
                .at(span)
                .label("which parameter does this fill?")
                .help("write the action in a YAML hook file, where each object parameter is a mapping");
                self.push(d, None);
            }
        }
        None
    }

    /// The object built from XML `<param name="k">v</param>` children.
    fn xml_object(
        &mut self,
        def: &ParamDef,
        xml: &[(Spanned<String>, Node)],
        np: Option<&str>,
    ) -> Option<ActionValue> {
        let mut seen = HashSet::new();
        let mut entries = Vec::with_capacity(xml.len());
        let mut ok = true;
        for (name, node) in xml {
            let pnp = child(np, &def.name).and_then(|p| child(Some(&p), &name.value));
            if !seen.insert(name.value.as_str()) {
                let d = Diagnostic::new(
                    Code::DuplicateKey,
                    format!("`<param name=\"{}\">` is given twice", name.value),
                )
                .at(name.span)
                .label("given again here");
                self.push(d, pnp.as_deref());
                ok = false;
                continue;
            }
            match self.untyped(node, pnp.as_deref(), 1) {
                Some(v) => entries.push((name.value.clone(), v)),
                None => ok = false,
            }
        }
        let value = ActionValue::Object(entries);
        let span = xml
            .first()
            .map_or(Span::new(FileId(0), 0, 0), |(k, _)| k.span);
        (ok && self.check_enum(def, &value, span, np)).then_some(value)
    }

    /// A parameter value checked against its definition.
    fn param(&mut self, def: &ParamDef, node: &Node, np: Option<&str>) -> Option<ActionValue> {
        let value = match &node.kind {
            NodeKind::Str(text) | NodeKind::Text(text) => match self.string(text, node, np)? {
                Parsed::Template(t) => return self.template_param(def, text, t, node.span, np),
                Parsed::Literal(lit) => match (&node.kind, def.ty) {
                    (NodeKind::Text(_), Some(ty)) => self.coerce(def, ty, lit, node, np)?,
                    (_, None | Some(ParamType::String)) => ActionValue::String(lit),
                    (_, Some(ty)) => {
                        self.type_error(def, ty, "a string", node.span, np);
                        return None;
                    }
                },
            },
            _ => {
                if let Some(ty) = def.ty.filter(|ty| !ty.fits_node(node)) {
                    self.type_error(def, ty, found(node), node.span, np);
                    return None;
                }
                self.untyped(node, np, 1)?
            }
        };
        self.check_enum(def, &value, node.span, np).then_some(value)
    }

    fn type_error(
        &mut self,
        def: &ParamDef,
        ty: ParamType,
        found: &str,
        span: Span,
        np: Option<&str>,
    ) {
        let d = Diagnostic::new(
            Code::ParameterType,
            format!(
                "parameter `{}` of `{}` must be {}, found {found}",
                def.name,
                self.kind,
                ty.phrase()
            ),
        )
        .at(span)
        .label(format!("expected {}", ty.phrase()));
        self.push(d, np);
    }

    /// An XML text literal read as the declared type.
    fn coerce(
        &mut self,
        def: &ParamDef,
        ty: ParamType,
        lit: String,
        node: &Node,
        np: Option<&str>,
    ) -> Option<ActionValue> {
        let text = lit.trim();
        let value = match ty {
            ParamType::String => Some(ActionValue::String(lit.clone())),
            ParamType::Integer => text.parse::<i64>().ok().map(ActionValue::Int),
            ParamType::Number => text.parse::<i64>().ok().map(ActionValue::Int).or_else(|| {
                text.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .map(ActionValue::Double)
            }),
            ParamType::Boolean => match text {
                "true" => Some(ActionValue::Bool(true)),
                "false" => Some(ActionValue::Bool(false)),
                _ => None,
            },
            ParamType::Object | ParamType::Array => None,
        };
        if value.is_some() {
            return value;
        }
        let help = match ty {
            ParamType::Boolean => Some("write `true` or `false`".to_owned()),
            ParamType::Object => {
                Some("write its entries as `<param name=\"key\">value</param>` children".to_owned())
            }
            ParamType::Array => Some(
                "an array cannot be written as an XML attribute; use a YAML hook file".to_owned(),
            ),
            _ => None,
        };
        let d = Diagnostic::new(
            Code::ParameterType,
            format!(
                "parameter `{}` of `{}` must be {}, found `{lit}`",
                def.name,
                self.kind,
                ty.phrase()
            ),
        )
        .at(node.span)
        .label(format!("expected {}", ty.phrase()))
        .maybe_help(help);
        self.push(d, np);
        None
    }

    /// Checks a literal value against the definition's `enum`.
    fn check_enum(
        &mut self,
        def: &ParamDef,
        value: &ActionValue,
        span: Span,
        np: Option<&str>,
    ) -> bool {
        let Some(allowed) = &def.allowed else {
            return true;
        };
        if allowed.iter().any(|a| same(a, value)) {
            return true;
        }
        let names: Vec<String> = allowed.iter().map(render).collect();
        let help = match value {
            ActionValue::String(s) => suggest::did_you_mean(s, names.iter().map(String::as_str))
                .map(|best| format!("did you mean `{best}`?")),
            _ => None,
        }
        .unwrap_or_else(|| format!("expected one of {}", list(allowed)));
        let d = Diagnostic::new(
            Code::ParameterEnum,
            format!(
                "parameter `{}` of `{}` does not allow `{}`",
                def.name,
                self.kind,
                render(value)
            ),
        )
        .at(span)
        .label("not one of its values")
        .help(help);
        self.push(d, np);
        false
    }

    /// A template given for a parameter: its paths checked, then its type and
    /// enum against the definition (see [`check_action`]).
    fn template_param(
        &mut self,
        def: &ParamDef,
        text: &str,
        t: Template,
        span: Span,
        np: Option<&str>,
    ) -> Option<ActionValue> {
        let types = self.check_refs(&t, np);
        let kind = self.kind;
        let name = def.name.as_str();
        match types.first().filter(|_| t.is_whole()) {
            Some(path_ty) => {
                if let Some(ty) = def.ty {
                    if !path_ty.kinds.is_empty() && !path_ty.kinds.intersects(ty.kinds()) {
                        let d = Diagnostic::new(
                            Code::ParameterType,
                            format!(
                                "`{text}` is {} but parameter `{name}` of `{kind}` must be {}",
                                kinds_phrase(path_ty.kinds),
                                ty.phrase()
                            ),
                        )
                        .at(span)
                        .label(format!("expected {}", ty.phrase()));
                        self.push(d, np);
                        return None;
                    }
                }
                if let (Some(allowed), Some(schema_enum)) =
                    (&def.allowed, self.schema.allowed(path_ty.schema))
                {
                    let outside: Vec<ActionValue> = schema_enum
                        .iter()
                        .map(ActionValue::from_json)
                        .filter(|v| *v != ActionValue::Null && !allowed.iter().any(|a| same(a, v)))
                        .collect();
                    if !outside.is_empty() {
                        let d = Diagnostic::new(
                            Code::ParameterEnum,
                            format!(
                                "`{text}` may be {}, which parameter `{name}` of `{kind}` does not allow",
                                list(&outside)
                            ),
                        )
                        .at(span)
                        .label("the schema allows other values")
                        .help(format!("expected one of {}", list(allowed)));
                        self.push(d, np);
                        return None;
                    }
                }
            }
            None => {
                if let Some(ty) = def.ty.filter(|ty| *ty != ParamType::String) {
                    let d = Diagnostic::new(
                        Code::ParameterType,
                        format!(
                            "`{text}` is a string but parameter `{name}` of `{kind}` must be {}",
                            ty.phrase()
                        ),
                    )
                    .at(span)
                    .label(format!("expected {}", ty.phrase()))
                    .help("only a template that is exactly one `${path}` keeps the value's type");
                    self.push(d, np);
                    return None;
                }
                if let Some(allowed) = &def.allowed {
                    let d = Diagnostic::new(
                        Code::ParameterEnum,
                        format!("parameter `{name}` of `{kind}` does not allow the interpolated string `{text}`"),
                    )
                    .at(span)
                    .label("not one of its values")
                    .help(format!("write one of {}, or a template that is exactly one `${{path}}`", list(allowed)));
                    self.push(d, np);
                    return None;
                }
            }
        }
        Some(ActionValue::Template(t))
    }

    /// Checks every path of a template against the schema; their types in order.
    fn check_refs(&mut self, t: &Template, np: Option<&str>) -> Vec<Type> {
        let mut out = Vec::new();
        for (id, span) in t.refs() {
            let Some(path) = self.paths.get(id).cloned() else {
                continue;
            };
            let mut found = Diagnostics::new();
            out.push(self.schema.type_of_path(&path, span, &mut found));
            for d in found.into_vec() {
                self.push(d, np);
            }
        }
        out
    }

    /// A string read as a template; `None` (reported) when it does not parse.
    fn string(&mut self, text: &str, node: &Node, np: Option<&str>) -> Option<Parsed> {
        let origin = crate::frontend::yaml_doc::origin_of(self.source, node);
        match template::parse(text, origin, self.paths) {
            Ok(parsed) => Some(parsed),
            Err(d) => {
                self.push(d, np);
                None
            }
        }
    }

    /// A value of no declared type (inside an object or array parameter, or of
    /// an untyped parameter): strings are templates, everything else as is.
    fn untyped(&mut self, node: &Node, np: Option<&str>, depth: usize) -> Option<ActionValue> {
        if depth > hookc_runtime::limits::MAX_DOC_DEPTH {
            let d = Diagnostic::new(Code::TooDeep, "action parameter value is nested too deeply")
                .at(node.span);
            self.push(d, np);
            return None;
        }
        Some(match &node.kind {
            NodeKind::Null => ActionValue::Null,
            NodeKind::Bool(b) => ActionValue::Bool(*b),
            NodeKind::Int(i) => ActionValue::Int(*i),
            NodeKind::Float(f) if f.is_finite() => ActionValue::Double(*f),
            NodeKind::Float(f) => {
                let d = Diagnostic::new(
                    Code::ParameterType,
                    format!(
                        "`{f}` in a parameter of `{}` is not a finite number",
                        self.kind
                    ),
                )
                .at(node.span)
                .label("JSON has no such number");
                self.push(d, np);
                return None;
            }
            NodeKind::Str(text) | NodeKind::Text(text) => match self.string(text, node, np)? {
                Parsed::Literal(s) => ActionValue::String(s),
                Parsed::Template(t) => {
                    self.check_refs(&t, np);
                    ActionValue::Template(t)
                }
            },
            NodeKind::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                let mut ok = true;
                for (i, item) in items.iter().enumerate() {
                    let inp = np.map(|p| format!("{p}[{i}]"));
                    match self.untyped(item, inp.as_deref(), depth + 1) {
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
                    match self.untyped(v, child(np, &k.name).as_deref(), depth + 1) {
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
}

/// Equality of values as JSON compares them, except that an integer and a
/// float with the same value are equal and object key order does not matter.
fn same(a: &ActionValue, b: &ActionValue) -> bool {
    use ActionValue as V;
    match (a, b) {
        (V::Int(i), V::Double(f)) | (V::Double(f), V::Int(i)) => {
            // `i64::MIN as f64` is exactly -2^63; the range check keeps the
            // saturating cast from equating huge floats with the extremes.
            let bound = -(i64::MIN as f64);
            f.fract() == 0.0 && *f >= -bound && *f < bound && *f as i64 == *i
        }
        (V::List(x), V::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && same(v, v2)))
        }
        _ => a == b,
    }
}

/// A value for a message: a string as its text, anything else as JSON.
fn render(value: &ActionValue) -> String {
    match value {
        ActionValue::String(s) => s.clone(),
        other => other.to_json(&PathTable::new()).to_string(),
    }
}

/// `` `a`, `b`, `c` ``
fn list(values: &[ActionValue]) -> String {
    let names: Vec<String> = values.iter().map(render).collect();
    backticked(&names)
}

fn backticked<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a document node is, for "found ..." in messages.
fn found(node: &Node) -> &'static str {
    match node.kind {
        NodeKind::Null => "null",
        NodeKind::Bool(_) => "a boolean",
        NodeKind::Int(_) => "an integer",
        NodeKind::Float(_) => "a number",
        NodeKind::Str(_) | NodeKind::Text(_) => "a string",
        NodeKind::Seq(_) => "an array",
        NodeKind::Map(_) => "an object",
    }
}

/// What a value is, for "found ..." in messages.
fn value_phrase(value: &ActionValue) -> &'static str {
    match value {
        ActionValue::Null => "null",
        ActionValue::Bool(_) => "a boolean",
        ActionValue::Int(_) => "an integer",
        ActionValue::Double(_) => "a number",
        ActionValue::String(_) | ActionValue::Template(_) => "a string",
        ActionValue::List(_) => "an array",
        ActionValue::Object(_) => "an object",
    }
}

/// `a string`, `null or a string`, ... for the kinds of a path.
fn kinds_phrase(kinds: Kinds) -> String {
    let mut parts = Vec::new();
    for (k, phrase) in [
        (Kinds::NULL, "null"),
        (Kinds::BOOL, "a boolean"),
        (Kinds::INT, "an integer"),
        (Kinds::DOUBLE, "a number"),
        (Kinds::STRING, "a string"),
        (Kinds::LIST, "an array"),
        (Kinds::OBJECT, "an object"),
    ] {
        // An int-or-double set is one "number".
        if kinds.intersects(k) && !(k == Kinds::INT && kinds.intersects(Kinds::DOUBLE)) {
            parts.push(phrase);
        }
    }
    parts.join(" or ")
}

fn child(np: Option<&str>, key: &str) -> Option<String> {
    np.map(|np| child_path(np, key))
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
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
        let action = check_action(raw, "", types, schema, paths, &mut diags);
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
        assert_eq!(backoff.ty(), Some(ParamType::String));
        assert_eq!(
            backoff.allowed().unwrap(),
            [s("exponential"), s("fixed"), s("inherit")]
        );
        assert_eq!(backoff.default(), Some(&s("inherit")));
        let delay = retry.param("delay").unwrap();
        assert_eq!(delay.ty(), Some(ParamType::Number));
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
        assert_eq!(emit.param("payload").unwrap().ty(), Some(ParamType::Object));
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

        // Strict: 3.0 is not an integer.
        let d = one_error(&yaml("retry", vec![("max_attempts", NodeKind::Float(3.0))]));
        assert_eq!(
            d.message,
            "parameter `max_attempts` of `retry` must be an integer, found a number"
        );
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
        let d = one_error(&xml("retry", vec![("max_attempts", "3.0")], vec![]));
        assert_eq!(
            d.message,
            "parameter `max_attempts` of `retry` must be an integer, found `3.0`"
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
        // Seed 000's compaction hook: `event.*` is outside the open `event` object.
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
        let (action, diags) = check_in(
            &raw,
            &types,
            &with_enum(serde_json::json!(["both", "admin", "root"])),
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
        assert_eq!(a.param("p1").unwrap().ty(), None);
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
}
