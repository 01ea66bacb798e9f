//! The CEL peer: the `cel` crate (cel-rust), an interpreter of CEL programs
//! over a `Context` of variables.
//!
//! # Translation
//!
//! Each hook's condition becomes one CEL expression, written exactly as
//! hookc's own `when` language would write it (hookc's expression language
//! is CEL's syntax): `classification.category == "rate_limited" &&
//! cost.spend > 10.0`. Every top-level key of the context is bound as a CEL
//! variable, as hookc resolves roots. cel-rust has CEL's error semantics,
//! which are hookc's: a missing key is an error, `&&`/`||` absorb an error
//! when the other side decides (in either order), `!` keeps an error, a
//! comparison across kinds that have no ordering is an error. So the
//! expression is translated node for node, with no guards.
//!
//! The policy of an event is its hooks' programs in evaluation order; the
//! host loop runs them in turn and stops at the first that returns
//! `Ok(true)` (an error or a non-bool does not match), as hookc does. CEL has
//! no construct that turns an error into "no match" inside an expression, so
//! a single `c1 ? 'id1' : c2 ? 'id2' : ...` expression would fail whenever an
//! earlier hook's condition errors.
//!
//! Presence: in positive position `has(a.b)` is `has(a.b)` (an error where
//! hookc says `false` is fine there: both do not match). Where the exact
//! `false` matters (under a negation, or in the condition of `?:`, whose
//! error hookc keeps where `false` picks the other branch), and for a bare
//! root, CEL cannot ask whether a *variable* is bound, so the whole context
//! is also bound as one map variable, [`CTX`], and presence is stated step
//! by step: `"a" in __ctx__ && type(a) == map && "b" in a` (`&&` absorbs
//! the errors of the steps after the first that is `false`). `exists` and
//! the kind tests of `matches` schemas are that presence `&&` their test.
//! [`CTX`] is bound only for policies that use it. Roots that are CEL
//! reserved words, or [`CTX`] itself, are not expressible.
//!
//! `?:` is CEL's `?:`, which has hookc's meaning (an error condition gives
//! its error).
//!
//! # Context
//!
//! *Converted per call*: each top-level value of the `serde_json::Value` is
//! turned into cel-rust's value types (`CelMap`, `CelList`, `CelString`
//! borrowing the JSON's strings, ...) and bound in a child scope of a root
//! context that holds the standard library, built once. *Pre-converted*: a
//! context with the variables already bound, built once per context. In
//! both, a policy that reads [`CTX`] also gets the whole context bound so.

use crate::model::{Cond, CtxPath, KindSet, Model, Polarity, Step, StrOp, Test};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString,
};
use cel::common::value::Val;
use cel::{Context, Env, Program};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

use crate::model::Unsupported;

/// CEL's reserved words: not usable as identifiers.
const RESERVED: [&str; 21] = [
    "false",
    "in",
    "null",
    "true",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&s)
}

/// A CEL string literal (double-quoted, escaped).
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A constant as a CEL literal.
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => crate::model::number_literal(n),
        Value::String(s) => string_literal(s),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", string_literal(k), literal(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn step(s: &Step) -> Result<String, String> {
    match s {
        Step::Field(f) if is_ident(f) => Ok(format!(".{f}")),
        Step::Field(f) => Ok(format!("[{}]", string_literal(f))),
        Step::Index(i) if *i >= 0 => Ok(format!("[{i}]")),
        Step::Index(_) => Err("a negative list index".into()),
    }
}

/// The path as a CEL expression.
fn path(p: &CtxPath) -> Result<String, String> {
    if !is_ident(&p.root) || p.root == CTX {
        return Err(format!(
            "the context root `{}` is not a CEL identifier",
            p.root
        ));
    }
    let mut out = p.root.clone();
    for s in &p.steps {
        out.push_str(&step(s)?);
    }
    Ok(out)
}

/// The variable bound to the whole context, for exact presence tests.
pub const CTX: &str = "__ctx__";

/// `has(p)` in positive position (an error where hookc says `false` is fine
/// there; a wrong `true` never is).
fn has(p: &CtxPath) -> Result<String, String> {
    let Some((last, init)) = p.steps.split_last() else {
        return present(p);
    };
    let parent = path(&CtxPath {
        root: p.root.clone(),
        steps: init.to_vec(),
        text: String::new(),
    })?;
    Ok(match last {
        Step::Field(f) if is_ident(f) => format!("has({parent}.{f})"),
        Step::Field(f) => format!(
            "(type({parent}) == map && {} in {parent})",
            string_literal(f)
        ),
        Step::Index(i) if *i >= 0 => format!("(type({parent}) == list && size({parent}) > {i})"),
        Step::Index(_) => return Err("a negative list index".into()),
    })
}

/// `has(p)` exactly: `true` or `false`, never an error (reads [`CTX`]).
fn present(p: &CtxPath) -> Result<String, String> {
    path(p)?;
    let mut parts = vec![format!("{} in {CTX}", string_literal(&p.root))];
    let mut prefix = p.root.clone();
    for s in &p.steps {
        parts.push(match s {
            Step::Field(f) => format!("type({prefix}) == map && {} in {prefix}", string_literal(f)),
            Step::Index(i) => format!("type({prefix}) == list && size({prefix}) > {i}"),
        });
        prefix.push_str(&step(s)?);
    }
    Ok(format!("({})", parts.join(" && ")))
}

fn kind_test(p: &str, k: &KindSet) -> String {
    let mut names = Vec::new();
    for (on, name) in [
        (k.null, "null_type"),
        (k.bool, "bool"),
        (k.int, "int"),
        (k.double, "double"),
        (k.string, "string"),
        (k.list, "list"),
        (k.object, "map"),
    ] {
        if on {
            names.push(name);
        }
    }
    match names.as_slice() {
        [] => "false".into(),
        [one] => format!("type({p}) == {one}"),
        many => format!("type({p}) in [{}]", many.join(", ")),
    }
}

/// The condition as a CEL expression. CEL's meaning is hookc's node for
/// node; `pol` says only where a presence test may be an error for `false`
/// ([`Polarity::Pos`]) and where it must be exact ([`Polarity::Neg`]).
pub fn translate(c: &Cond, pol: Polarity) -> Result<String, String> {
    Ok(match c {
        Cond::Const(b) => b.to_string(),
        Cond::All(items) if items.is_empty() => "true".into(),
        Cond::Any(items) if items.is_empty() => "false".into(),
        Cond::All(items) | Cond::Any(items) => {
            let op = if matches!(c, Cond::All(_)) {
                " && "
            } else {
                " || "
            };
            let parts = items
                .iter()
                .map(|i| translate(i, pol).map(|s| format!("({s})")))
                .collect::<Result<Vec<_>, _>>()?;
            parts.join(op)
        }
        Cond::Not(inner) => format!("!({})", translate(inner, pol.flip())?),
        // The condition's `false` picks a branch: it must be exact.
        Cond::If(c, then, otherwise) => format!(
            "({}) ? ({}) : ({})",
            translate(c, Polarity::Neg)?,
            translate(then, pol)?,
            translate(otherwise, pol)?
        ),
        Cond::Leaf(leaf) => {
            let p = path(&leaf.path)?;
            match &leaf.test {
                Test::Cmp(op, v) => format!("{p} {} {}", op.symbol(), literal(v)),
                Test::In(items) => format!("{p} in {}", literal(&Value::Array(items.clone()))),
                Test::Str(op, s) => {
                    let m = match op {
                        StrOp::Contains => "contains",
                        StrOp::StartsWith => "startsWith",
                        StrOp::EndsWith => "endsWith",
                    };
                    format!("{p}.{m}({})", string_literal(s))
                }
                Test::Regex(re) => format!("{p}.matches({})", string_literal(re)),
                Test::IsTrue => p,
                Test::Has | Test::Exists | Test::TypeIs(_) => {
                    let has = match pol {
                        Polarity::Pos => has(&leaf.path)?,
                        Polarity::Neg => present(&leaf.path)?,
                    };
                    match &leaf.test {
                        Test::Exists => format!("{has} && {p} != null"),
                        Test::TypeIs(k) if pol == Polarity::Pos => kind_test(&p, k),
                        Test::TypeIs(k) => format!("{has} && {}", kind_test(&p, k)),
                        _ => has,
                    }
                }
            }
        }
    })
}

/// An event's programs, in evaluation order, with each hook's position.
struct EventPrograms {
    event: String,
    programs: Vec<(usize, Program)>,
}

/// The CEL policy.
pub struct CelPeer {
    env: Arc<Env>,
    root: Context<'static, 'static>,
    events: Vec<EventPrograms>,
    sources: Vec<(String, Vec<String>)>,
    /// Whether a program reads [`CTX`].
    needs_ctx: bool,
}

/// A context already bound as CEL variables.
pub struct Prepared(Context<'static, 'static>);

/// A JSON value as cel-rust values, borrowing the JSON's strings.
pub fn to_val(v: &Value) -> Box<dyn Val + '_> {
    match v {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Box::new(CelInt::from(i)),
            None => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        Value::Array(items) => {
            Box::new(CelList::from(items.iter().map(to_val).collect::<Vec<_>>()))
        }
        Value::Object(m) => Box::new(CelMap::from(
            m.iter()
                .map(|(k, v)| (CelMapKey::from(k.as_str()), to_val(v)))
                .collect::<HashMap<_, _>>(),
        )),
    }
}

/// A JSON value as owned cel-rust values.
fn to_owned_val(v: &Value) -> Box<dyn Val + 'static> {
    match v {
        Value::String(s) => Box::new(CelString::from(s.clone())),
        Value::Array(items) => Box::new(CelList::from(
            items.iter().map(to_owned_val).collect::<Vec<_>>(),
        )),
        Value::Object(m) => Box::new(CelMap::from(
            m.iter()
                .map(|(k, v)| (CelMapKey::from(k.clone()), to_owned_val(v)))
                .collect::<HashMap<_, _>>(),
        )),
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Box::new(CelInt::from(i)),
            None => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
    }
}

fn first_in(programs: &[(usize, Program)], ctx: &Context<'_, '_>) -> Option<usize> {
    programs
        .iter()
        .find(|(_, p)| matches!(p.execute(ctx), Ok(cel::Value::Bool(true))))
        .map(|(i, _)| *i)
}

impl CelPeer {
    /// Translates and compiles every hook of the model.
    pub fn new(model: &Model) -> Result<CelPeer, Unsupported> {
        let env = Arc::new(Env::stdlib());
        let mut events = Vec::new();
        let mut sources = Vec::new();
        for ev in &model.events {
            let mut programs = Vec::new();
            let mut texts = Vec::new();
            for (i, hook) in ev.hooks.iter().enumerate() {
                let text = match &hook.cond {
                    Some(c) => translate(c, Polarity::Pos).map_err(|reason| Unsupported {
                        hook: hook.id.clone(),
                        reason,
                    })?,
                    None => "true".to_owned(),
                };
                let program = env.compile(&text).map_err(|e| Unsupported {
                    hook: hook.id.clone(),
                    reason: format!("cel-rust does not parse `{text}`: {e}"),
                })?;
                programs.push((i, program));
                texts.push(text);
            }
            events.push(EventPrograms {
                event: ev.event.clone(),
                programs,
            });
            sources.push((ev.event.clone(), texts));
        }
        let needs_ctx = sources
            .iter()
            .any(|(_, texts)| texts.iter().any(|t| t.contains(CTX)));
        Ok(CelPeer {
            needs_ctx,
            root: Context::with_env(Arc::clone(&env)),
            env,
            events,
            sources,
        })
    }

    /// The CEL text of each hook, by event.
    pub fn sources(&self) -> &[(String, Vec<String>)] {
        &self.sources
    }

    fn programs(&self, event: &str) -> &[(usize, Program)] {
        self.events
            .iter()
            .find(|e| e.event == event)
            .map_or(&[], |e| e.programs.as_slice())
    }

    /// The first matching hook's position, converting the context on the call.
    pub fn first(&self, event: &str, ctx: &Value) -> Option<usize> {
        let mut scope = self.root.new_inner_scope();
        if let Value::Object(m) = ctx {
            for (k, v) in m {
                scope.add_variable_as_val(k.as_str(), to_val(v));
            }
        }
        if self.needs_ctx {
            scope.add_variable_as_val(CTX, to_val(ctx));
        }
        first_in(self.programs(event), &scope)
    }

    /// The context bound once as CEL variables.
    pub fn prepare(&self, ctx: &Value) -> Prepared {
        let mut c = Context::with_env(Arc::clone(&self.env));
        if let Value::Object(m) = ctx {
            for (k, v) in m {
                c.add_variable_as_val(k.as_str(), to_owned_val(v));
            }
        }
        if self.needs_ctx {
            c.add_variable_as_val(CTX, to_owned_val(ctx));
        }
        Prepared(c)
    }

    /// The first matching hook's position with a prepared context.
    pub fn first_prepared(&self, event: &str, ctx: &Prepared) -> Option<usize> {
        first_in(self.programs(event), &ctx.0)
    }
}
