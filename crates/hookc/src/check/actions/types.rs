//! The action type model: parameter types, parameter definitions, action
//! types and the set of them one compilation knows. Building them is in
//! [`super::builtin`] (the built-in vocabulary) and [`super::define`] (files'
//! `action_types` sections).

use super::ActionValue;
use crate::check::ty::Kinds;
use crate::frontend::doc::{Node, NodeKind};
use crate::ir::Effect;

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
    pub(super) fn phrase(self) -> &'static str {
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
    pub(super) fn fits(self, value: &ActionValue) -> bool {
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
    pub(super) fn fits_node(self, node: &Node) -> bool {
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
    pub(super) name: String,
    pub(super) ty: Option<ParamType>,
    pub(super) allowed: Option<Vec<ActionValue>>,
    pub(super) default: Option<ActionValue>,
    pub(super) required: bool,
    pub(super) description: Option<String>,
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
    pub(super) name: String,
    pub(super) description: Option<String>,
    pub(super) effect: Effect,
    pub(super) params: Vec<ParamDef>,
    /// The definition as written, when a file declared it.
    pub(super) source: Option<serde_json::Value>,
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

    /// Whether a match of it ends evaluation or is collected (`effect:`;
    /// terminal unless declared).
    pub fn effect(&self) -> Effect {
        self.effect
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
    pub(super) types: Vec<ActionType>,
    /// Indexes into `types` of the declared ones, in declaration order.
    pub(super) declared: Vec<usize>,
}

/// The keys of an action type definition.
pub const TYPE_KEYS: [&str; 3] = ["description", "effect", "parameters"];
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
