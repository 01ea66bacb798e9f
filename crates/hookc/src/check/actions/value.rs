//! Checked actions and their parameter values (JSON plus `${path}`
//! templates), and their JSON forms.

use crate::check::template::{self, Template};
use crate::span::Span;
use hookc_runtime::bytecode::path::PathTable;
use hookc_runtime::bytecode::Effect;

/// A checked action: the action type's name and its complete parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    /// The action type's name.
    pub kind: String,
    /// Whether a match of it ends evaluation or is collected (its type's).
    pub effect: Effect,
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
