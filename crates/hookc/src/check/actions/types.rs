//! The action type model: parameter types, parameter definitions, action
//! types and the set of them one compilation knows. Building them is in
//! [`super::builtin`] (the built-in vocabulary) and [`super::define`] (files'
//! `action_types` sections).

use super::ActionValue;
use crate::check::ty::Kinds;
use crate::frontend::doc::{Node, NodeKind};
use hookc_runtime::bytecode::is_integral;
use hookc_runtime::bytecode::Effect;

/// A JSON type name an action parameter's `type` may list (`type: string`,
/// or a union such as `type: [string, "null"]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `string`
    String,
    /// `integer`: a whole number (YAML `3`, or `3.0`, kept a double, as
    /// JSON Schema's `integer`).
    Integer,
    /// `number`: an integer or a float; integers stay integers.
    Number,
    /// `boolean`
    Boolean,
    /// `object`: a mapping of any values.
    Object,
    /// `array`: a list (of any values, unless `items` says).
    Array,
    /// `null`: in a union, makes the parameter nullable.
    Null,
}

impl ParamType {
    /// Every type name, with its kinds: the one table of type names.
    const TABLE: [(ParamType, &'static str, Kinds); 7] = [
        (ParamType::String, "string", Kinds::STRING),
        (ParamType::Integer, "integer", Kinds::INT),
        (ParamType::Number, "number", Kinds::NUMBER),
        (ParamType::Boolean, "boolean", Kinds::BOOL),
        (ParamType::Object, "object", Kinds::OBJECT),
        (ParamType::Array, "array", Kinds::LIST),
        (ParamType::Null, "null", Kinds::NULL),
    ];

    /// Every type, in the order their names are listed in help texts.
    pub const ALL: [ParamType; 7] = [
        ParamType::String,
        ParamType::Integer,
        ParamType::Number,
        ParamType::Boolean,
        ParamType::Object,
        ParamType::Array,
        ParamType::Null,
    ];

    /// The types of values (every type but `null`, which only makes sense
    /// in a union): what the help of an unknown type name lists.
    pub fn value_types() -> impl Iterator<Item = ParamType> + Clone {
        ParamType::ALL.into_iter().filter(|t| *t != ParamType::Null)
    }

    /// The type of a `type:` name.
    pub fn from_name(name: &str) -> Option<ParamType> {
        ParamType::ALL.into_iter().find(|t| t.name() == name)
    }

    fn entry(self) -> (ParamType, &'static str, Kinds) {
        ParamType::TABLE
            .into_iter()
            .find(|(t, _, _)| *t == self)
            .unwrap_or((self, "", Kinds::NONE))
    }

    /// The name as written in `type:`.
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// The value kinds the type admits.
    pub fn kinds(self) -> Kinds {
        self.entry().2
    }
}

/// A type definition: a parameter's `type`, `enum` and `items`, or an
/// `items` definition (which is one itself, so arrays nest).
///
/// A value fits when its kind is one the `type` names allow (all when none
/// is named), it is one of the `enum` values (if any), and, when it is a
/// list and `items` is given, every item fits `items`.
///
/// INVARIANT (type def): the `enum` values hold no template and fit the
/// rest of the definition; `items` is only given when the types allow
/// arrays. [`ActionTypes`] only builds definitions that hold it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TypeDef {
    /// The type names, deduplicated, in the order written; empty: any.
    pub(super) types: Vec<ParamType>,
    pub(super) allowed: Option<Vec<ActionValue>>,
    pub(super) items: Option<Box<TypeDef>>,
}

/// Where and why a fixed value does not fit a [`TypeDef`].
#[derive(Debug, Clone, PartialEq)]
pub struct Misfit<'v, 'd> {
    /// The position inside the value: `""` for the value itself, `[1]` for
    /// an item, `[1][0]` for an item of an item.
    pub at: String,
    /// The part that does not fit.
    pub value: &'v ActionValue,
    /// The definition it does not fit.
    pub def: &'d TypeDef,
    /// Whether its kind fits and only the `enum` excludes it.
    pub enum_only: bool,
}

impl TypeDef {
    /// The type names, in the order written; empty when any type is allowed.
    pub fn types(&self) -> &[ParamType] {
        &self.types
    }

    /// The one type name, when exactly one is declared.
    pub fn single(&self) -> Option<ParamType> {
        match self.types.as_slice() {
            [t] => Some(*t),
            _ => None,
        }
    }

    /// The `enum` values, if restricted.
    pub fn allowed(&self) -> Option<&[ActionValue]> {
        self.allowed.as_deref()
    }

    /// The definition of a list's items, if given.
    pub fn items(&self) -> Option<&TypeDef> {
        self.items.as_deref()
    }

    /// The kinds the types allow ([`Kinds::ANY`] when none is named).
    pub fn kinds(&self) -> Kinds {
        if self.types.is_empty() {
            return Kinds::ANY;
        }
        self.types.iter().fold(Kinds::NONE, |k, t| k.or(t.kinds()))
    }

    /// Whether any value fits.
    pub fn is_any(&self) -> bool {
        self.kinds().is_any() && self.allowed.is_none() && self.items.is_none()
    }

    /// `a string`, `null or a string`, ... for messages.
    pub(super) fn phrase(&self) -> String {
        self.kinds().json_phrase()
    }

    /// Whether the kind of a value fits the types (a template counts as a
    /// string).
    pub(super) fn admits(&self, value: &ActionValue) -> bool {
        let integral = matches!(value, ActionValue::Double(f) if is_integral(*f));
        self.kinds().admits(value_kinds(value), integral)
    }

    /// Whether a non-string document node's kind fits the types.
    pub(super) fn admits_node(&self, node: &Node) -> bool {
        let integral = matches!(node.kind, NodeKind::Float(f) if is_integral(f));
        let kinds = match &node.kind {
            NodeKind::Null => Kinds::NULL,
            NodeKind::Bool(_) => Kinds::BOOL,
            NodeKind::Int(_) => Kinds::INT,
            NodeKind::Float(_) => Kinds::DOUBLE,
            NodeKind::Str(_) | NodeKind::Text(_) => Kinds::STRING,
            NodeKind::Seq(_) => Kinds::LIST,
            NodeKind::Map(_) => Kinds::OBJECT,
        };
        self.kinds().admits(kinds, integral)
    }

    /// The first part of a value that does not fit, outermost
    /// first, items in order; `None` when it fits. A whole template
    /// (`"${path}"`) fits here; a template with text around its references
    /// counts as a string and is not compared with the `enum`. Recursion follows
    /// the definition's `items`, as deep as the document it was read from.
    pub fn misfit<'v, 'd>(&'d self, value: &'v ActionValue) -> Option<Misfit<'v, 'd>> {
        if matches!(value, ActionValue::Template(t) if t.is_whole()) {
            // Could be anything: checked against the schema, and at run time.
            return None;
        }
        let misfit = |enum_only| Misfit {
            at: String::new(),
            value,
            def: self,
            enum_only,
        };
        if !self.admits(value) {
            return Some(misfit(false));
        }
        if let Some(allowed) = &self.allowed {
            if !value.has_templates() && !allowed.iter().any(|a| super::same(a, value)) {
                return Some(misfit(true));
            }
        }
        if let (Some(items), ActionValue::List(values)) = (&self.items, value) {
            for (i, item) in values.iter().enumerate() {
                if let Some(mut m) = items.misfit(item) {
                    m.at.insert_str(0, &format!("[{i}]"));
                    return Some(m);
                }
            }
        }
        None
    }

    /// Whether the value, once its templates are filled, may not fit: then
    /// it needs a run-time check. A template-free value was checked when
    /// the action was; a template with text around its references is a
    /// string (it fails only a type without `string`, or an `enum`); a whole
    /// template can be anything; an item of a list is held to `items`.
    pub fn may_misfit(&self, value: &ActionValue) -> bool {
        if !value.has_templates() {
            return false;
        }
        match value {
            ActionValue::Template(t) if t.is_whole() => !self.is_any(),
            ActionValue::Template(_) => {
                !self.kinds().intersects(Kinds::STRING) || self.allowed.is_some()
            }
            ActionValue::List(values) => {
                self.allowed.is_some()
                    || self
                        .items
                        .as_deref()
                        .is_some_and(|items| values.iter().any(|v| items.may_misfit(v)))
            }
            _ => self.allowed.is_some(),
        }
    }
}

/// The kind of a value (a template counts as a string).
pub(super) fn value_kinds(value: &ActionValue) -> Kinds {
    match value {
        ActionValue::Null => Kinds::NULL,
        ActionValue::Bool(_) => Kinds::BOOL,
        ActionValue::Int(_) => Kinds::INT,
        ActionValue::Double(_) => Kinds::DOUBLE,
        ActionValue::String(_) | ActionValue::Template(_) => Kinds::STRING,
        ActionValue::List(_) => Kinds::LIST,
        ActionValue::Object(_) => Kinds::OBJECT,
    }
}

/// One parameter of an action type.
///
/// INVARIANT (param def): a required parameter has no default; the default
/// holds no template and fits the type definition (see [`TypeDef`]).
/// [`ActionTypes`] only builds definitions that hold it (a definition with
/// an error loses the bad part).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDef {
    pub(super) name: String,
    pub(super) ty: TypeDef,
    pub(super) default: Option<ActionValue>,
    pub(super) required: bool,
    pub(super) description: Option<String>,
}

impl ParamDef {
    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The type definition (`type`, `enum`, `items`).
    pub fn ty(&self) -> &TypeDef {
        &self.ty
    }

    /// The `enum` values, if restricted.
    pub fn allowed(&self) -> Option<&[ActionValue]> {
        self.ty.allowed()
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
    pub(super) name: String,
    pub(super) description: Option<String>,
    pub(super) effect: Effect,
    /// `severity:` (0 when not declared): under `combine: strictest` the
    /// terminal match of highest severity decides.
    pub(super) severity: i64,
    /// `bind:` of an awaited type: where the host's result goes (`None`:
    /// `results.<hook id>`).
    pub(super) bind: Option<TypeBinding>,
    /// `performed_by:`: who carries a match out.
    pub(super) performer: Performer,
    pub(super) params: Vec<ParamDef>,
    /// The definition as written, when a file declared it.
    pub(super) source: Option<serde_json::Value>,
}

/// Who carries out a match of an action type (`performed_by:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Performer {
    /// The host (or the embedding runtime), from the decision: the
    /// default. What an event lets a host answer limits it (E0406).
    #[default]
    Host,
    /// hookc's hook call itself (`remember`), which the host never sees:
    /// no event's answer limits it.
    Hookc,
}

impl ActionType {
    /// Who carries out a match of it (`performed_by:`; the host unless
    /// declared).
    pub fn performer(&self) -> Performer {
        self.performer
    }

    /// The type's name (`retry`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Whether a match of it ends evaluation or is collected (`effect:`;
    /// terminal unless declared).
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// Its `severity` (0 when not declared).
    pub fn severity(&self) -> i64 {
        self.severity
    }

    /// Where an awaited action's result is bound, when the type says
    /// (`bind:`); else `results.<hook id>`.
    pub fn bind(&self) -> Option<&TypeBinding> {
        self.bind.as_ref()
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

/// An awaited type's `bind:` (`docs/src/semantics.md#resumable-decisions`).
#[derive(Debug, Clone, PartialEq)]
pub enum TypeBinding {
    /// `bind: git.branch`: at this path of fields.
    Path(hookc_runtime::bytecode::Path),
    /// `bind: {parameter: inject_as}`: at the top-level key that the
    /// action's parameter holds (nowhere when it is `null`).
    Parameter(String),
}

/// The action types of one compilation: the built-in ones, with the files'
/// declarations merged over them.
#[derive(Debug, Clone)]
pub struct ActionTypes {
    /// Built-in types first (seed order), then new declared ones; a declared
    /// type with a built-in's name takes the built-in's place.
    pub(super) types: Vec<ActionType>,
    /// Indexes into `types` of the declared ones, in declaration order.
    pub(super) declared: Vec<usize>,
}

/// The keys of an action type definition.
pub const TYPE_KEYS: [&str; 6] = [
    "description",
    "effect",
    "severity",
    "bind",
    "performed_by",
    "parameters",
];
/// The keys of an `items` definition (a type definition of its own).
pub const ITEM_KEYS: [&str; 4] = ["type", "enum", "items", "description"];
/// The keys of an action parameter definition.
pub const PARAM_KEYS: [&str; 7] = [
    "type",
    "enum",
    "items",
    "default",
    "required",
    "optional",
    "description",
];

impl ActionTypes {
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
