//! The JSON Logic peer: the `datalogic-rs` crate (5.4, the last release
//! that builds with this toolchain; 5.5 and later need Rust 1.98), with its
//! `ext-string` (`starts_with`, `ends_with`) and `ext-control` (`type`,
//! `exists`) operator families. `datetime` is left off, so strings are
//! strings.
//!
//! # Translation
//!
//! An event's policy is one rule: `{"if": [T1, 0, T2, 1, ..., null]}`, the
//! hooks' conditions in evaluation order, each returning the hook's position.
//! JSON Logic has no error value: a missing `var` is `null`, `<` coerces
//! (`null` to 0, numeric strings to numbers), and ordering a number against
//! a non-numeric string aborts the whole rule. So each condition is stated
//! as a plain boolean that is true exactly when hookc's is `true`, and, under
//! a negation, exactly when hookc's is `false` (negations are pushed down to
//! the leaves; an error is neither):
//!
//! | hookc | is true | is false |
//! |---|---|---|
//! | `p == c` (c a scalar, not null) | `{"===": [V, c]}` | `{"and": [PRESENT, {"!==": [V, c]}]}` |
//! | `p == null` | `{"and": [PRESENT, {"===": [V, null]}]}` | `{"!==": [V, null]}` |
//! | `p > c` (c a number) | `{"and": [{"===": [{"type": V}, "number"]}, {">": [V, c]}]}` | same with `<=` |
//! | `p in [..]` | `{"in": [V, [..]]}` (with PRESENT if the list holds null) | `{"and": [PRESENT, {"!": {"in": ..}}]}` |
//! | `p.contains(s)` | `{"in": [s, V]}` | `{"and": [TYPE string, {"!": {"in": [s, V]}}]}` |
//! | `p.startsWith(s)` | `{"and": [TYPE string, {"starts_with": [V, s]}]}` | with `!` |
//! | `p.matches(re)` | `{"re_N": [V]}` (a custom operator per pattern) | `{"and": [TYPE string, {"!": {"re_N": [V]}}]}` |
//! | `exists` | `{"!==": [V, null]}` | `{"===": [V, null]}` |
//! | `has(p)` | PRESENT = `{"exists": ["a", "b"]}` | `{"!": PRESENT}` |
//! | bare bool path | `{"===": [V, true]}` | `{"===": [V, false]}` |
//! | `c ? a : b` | `{"or": [{"and": [T(c), T(a)]}, {"and": [F(c), T(b)]}]}` | same with `F(a)`, `F(b)` |
//!
//! with `V` = `{"var": "a.b"}`, `T(x)`/`F(x)` the "is true"/"is false" forms
//! of `x` (constant items of `and`/`or` are folded away). JSON Logic has no regular expressions: the
//! `regex` leaf is a custom operator (`CustomOperator`, the crate's
//! extension point) holding the pattern compiled once with the `regex`
//! crate. Not expressible: paths with list indexes or keys containing `.`
//! (`var` paths are dotted, and `exists` walks object keys only),
//! equality with a list or object constant (`===` compares numbers of
//! different kinds inside them apart), kind tests that tell ints from
//! doubles (JSON Logic has one number type), ordering against a constant
//! that is not a number or a string.
//!
//! # Context
//!
//! *Converted per call*: `Engine::evaluate` with the `&serde_json::Value`
//! (the crate builds the value's spine in the arena, borrowing strings).
//! *Pre-converted*: a `ParsedData` (the crate's parse-once handle), passed
//! through at no cost. Both evaluate into a caller-owned `Bump` that is
//! reset after every call.

use crate::model::{CmpOp, Cond, CtxPath, KindSet, Model, Polarity, StrOp, Test, Unsupported};
use datalogic_rs::bumpalo::Bump;
use datalogic_rs::operator::EvalContext;
use datalogic_rs::{ArenaExt, CustomOperator, DataValue, Engine, Logic, ParsedData};
use serde_json::{json, Value};

/// The custom `regex` operator: true when its argument is a string in which
/// the pattern is found.
struct RegexOp(regex::Regex);

impl CustomOperator for RegexOp {
    fn evaluate<'a>(
        &self,
        args: &[&'a DataValue<'a>],
        _ctx: &mut EvalContext<'_, 'a>,
        arena: &'a Bump,
    ) -> datalogic_rs::Result<&'a DataValue<'a>> {
        let found = args
            .first()
            .and_then(|v| v.as_str())
            .is_some_and(|s| self.0.is_match(s));
        Ok(arena.bool(found))
    }
}

/// Collects the regex patterns the rules use.
#[derive(Default)]
struct Translator {
    patterns: Vec<String>,
}

fn var(p: &CtxPath) -> Result<Value, String> {
    Ok(json!({ "var": keys(p)?.join(".") }))
}

fn keys(p: &CtxPath) -> Result<Vec<&str>, String> {
    let keys = p.keys().ok_or_else(|| {
        format!(
            "the path `{}` has a list index (JSON Logic's `exists` walks object keys only)",
            p.text
        )
    })?;
    if keys.iter().any(|k| k.contains('.') || k.is_empty()) {
        return Err(format!(
            "the path `{}` has a key that a dotted `var` path cannot name",
            p.text
        ));
    }
    Ok(keys)
}

fn present(p: &CtxPath) -> Result<Value, String> {
    Ok(json!({ "exists": keys(p)? }))
}

fn type_is(v: &Value, name: &str) -> Value {
    json!({"===": [{"type": v}, name]})
}

/// `{op: items}`, with nested `{op: ...}` items spliced in and a single item
/// standing alone (`empty` when there is none); a constant `empty` item is
/// dropped, a constant `!empty` one decides.
fn junction(op: &str, items: Vec<Value>, empty: bool) -> Value {
    let mut flat = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::Bool(b) if b == empty => {}
            Value::Bool(b) => return Value::Bool(b),
            Value::Object(mut m) if m.len() == 1 && m.contains_key(op) => match m.remove(op) {
                Some(Value::Array(inner)) => flat.extend(inner),
                Some(other) => flat.push(json!({ op: other })),
                None => {}
            },
            other => flat.push(other),
        }
    }
    match flat.len() {
        0 => Value::Bool(empty),
        1 => flat.pop().unwrap_or(Value::Bool(empty)),
        _ => json!({ op: flat }),
    }
}

fn and(items: Vec<Value>) -> Value {
    junction("and", items, true)
}

fn or(items: Vec<Value>) -> Value {
    junction("or", items, false)
}

fn not(v: Value) -> Value {
    json!({ "!": v })
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

fn cmp_symbol(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "===",
        CmpOp::Ne => "!==",
        other => other.symbol(),
    }
}

impl Translator {
    fn cond(&mut self, c: &Cond, pol: Polarity) -> Result<Value, String> {
        Ok(match (c, pol) {
            (Cond::Const(b), Polarity::Pos) => Value::Bool(*b),
            (Cond::Const(b), Polarity::Neg) => Value::Bool(!*b),
            (Cond::All(items), Polarity::Pos) | (Cond::Any(items), Polarity::Neg) => and(items
                .iter()
                .map(|i| self.cond(i, pol))
                .collect::<Result<_, _>>()?),
            (Cond::Any(items), Polarity::Pos) | (Cond::All(items), Polarity::Neg) => or(items
                .iter()
                .map(|i| self.cond(i, pol))
                .collect::<Result<_, _>>()?),
            (Cond::Not(inner), _) => self.cond(inner, pol.flip())?,
            (Cond::Leaf(leaf), _) => self.leaf(&leaf.path, &leaf.test, pol)?,
            // The condition is exactly true or exactly false for a branch
            // to be taken; an error condition is neither, so neither side.
            (Cond::If(c, then, otherwise), _) => or(vec![
                and(vec![self.cond(c, Polarity::Pos)?, self.cond(then, pol)?]),
                and(vec![
                    self.cond(c, Polarity::Neg)?,
                    self.cond(otherwise, pol)?,
                ]),
            ]),
        })
    }

    fn leaf(&mut self, p: &CtxPath, test: &Test, pol: Polarity) -> Result<Value, String> {
        let v = var(p)?;
        let pos = pol == Polarity::Pos;
        Ok(match test {
            Test::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), c) => {
                if !is_scalar(c) {
                    return Err("equality with a list or object constant".into());
                }
                // Whether the leaf, in this polarity, asks for equality.
                let want_equal = (*op == CmpOp::Eq) == pos;
                match (want_equal, c.is_null()) {
                    (true, false) => json!({"===": [v, c]}),
                    (true, true) => and(vec![present(p)?, json!({"===": [v, null]})]),
                    (false, false) => and(vec![present(p)?, json!({"!==": [v, c]})]),
                    (false, true) => json!({"!==": [v, null]}),
                }
            }
            Test::Cmp(op, c) => {
                let kind = match c {
                    Value::Number(_) => "number",
                    Value::String(_) => "string",
                    _ => {
                        return Err(
                            "ordering against a constant that is not a number or a string".into(),
                        )
                    }
                };
                let op = if pos { *op } else { op.negated() };
                and(vec![type_is(&v, kind), json!({ cmp_symbol(op): [v, c] })])
            }
            Test::In(items) => {
                if !items.iter().all(is_scalar) {
                    return Err("`in` a list holding lists or objects".into());
                }
                let member = json!({"in": [v, items]});
                if pos {
                    if items.iter().any(Value::is_null) {
                        and(vec![present(p)?, member])
                    } else {
                        member
                    }
                } else {
                    and(vec![present(p)?, not(member)])
                }
            }
            Test::Str(op, s) => {
                let holds = match op {
                    StrOp::Contains => json!({"in": [s, v]}),
                    StrOp::StartsWith => json!({"starts_with": [v, s]}),
                    StrOp::EndsWith => json!({"ends_with": [v, s]}),
                };
                match (pos, op) {
                    // `in` with a string haystack is false for a non-string.
                    (true, StrOp::Contains) => holds,
                    (true, _) => and(vec![type_is(&v, "string"), holds]),
                    (false, _) => and(vec![type_is(&v, "string"), not(holds)]),
                }
            }
            Test::Regex(re) => {
                let n = match self.patterns.iter().position(|x| x == re) {
                    Some(n) => n,
                    None => {
                        self.patterns.push(re.clone());
                        self.patterns.len() - 1
                    }
                };
                let holds = json!({ format!("re_{n}"): [v] });
                if pos {
                    holds
                } else {
                    and(vec![type_is(&v, "string"), not(holds)])
                }
            }
            Test::IsTrue => json!({"===": [v, pos]}),
            Test::Has => {
                let has = present(p)?;
                if pos {
                    has
                } else {
                    not(has)
                }
            }
            Test::Exists => json!({ if pos { "!==" } else { "===" }: [v, null] }),
            Test::TypeIs(k) => {
                let t = kinds(p, &v, k)?;
                if pos {
                    t
                } else {
                    not(t)
                }
            }
        })
    }
}

/// "present and of one of these kinds", total.
fn kinds(p: &CtxPath, v: &Value, k: &KindSet) -> Result<Value, String> {
    if !k.numbers_together() {
        return Err(
            "a kind test telling ints from doubles (JSON Logic has one number type)".into(),
        );
    }
    let mut names = Vec::new();
    for (on, name) in [
        (k.null, "null"),
        (k.bool, "boolean"),
        (k.int, "number"),
        (k.string, "string"),
        (k.list, "array"),
        (k.object, "object"),
    ] {
        if on {
            names.push(name);
        }
    }
    let test = match names.as_slice() {
        [] => return Ok(Value::Bool(false)),
        [one] => type_is(v, one),
        _ => json!({"in": [{"type": v}, names]}),
    };
    // A missing `var` is null: only a present null is of kind null.
    Ok(if k.null {
        and(vec![present(p)?, test])
    } else {
        test
    })
}

/// One event's compiled rule.
struct EventRule {
    event: String,
    logic: Logic,
}

/// The JSON Logic policy.
pub struct JsonLogicPeer {
    engine: Engine,
    rules: Vec<EventRule>,
    sources: Vec<(String, Value)>,
}

/// A context parsed once into the crate's own value type.
pub struct Prepared(ParsedData);

/// The rule's result as a hook position.
fn position(v: &DataValue<'_>) -> Option<usize> {
    v.as_i64().and_then(|i| usize::try_from(i).ok())
}

impl JsonLogicPeer {
    /// Translates and compiles every event's rule.
    pub fn new(model: &Model) -> Result<JsonLogicPeer, Unsupported> {
        let mut t = Translator::default();
        let mut sources = Vec::new();
        for ev in &model.events {
            let mut args = Vec::new();
            for (i, hook) in ev.hooks.iter().enumerate() {
                let cond = match &hook.cond {
                    Some(c) => t.cond(c, Polarity::Pos).map_err(|reason| Unsupported {
                        hook: hook.id.clone(),
                        reason,
                    })?,
                    None => Value::Bool(true),
                };
                args.push(cond);
                args.push(Value::from(i));
            }
            args.push(Value::Null);
            sources.push((ev.event.clone(), json!({ "if": args })));
        }
        let mut builder = Engine::builder();
        for (n, pattern) in t.patterns.iter().enumerate() {
            let re = regex::Regex::new(pattern).map_err(|e| Unsupported {
                hook: String::new(),
                reason: format!("the pattern `{pattern}` does not compile: {e}"),
            })?;
            builder = builder.add_operator(format!("re_{n}"), RegexOp(re));
        }
        let engine = builder.build();
        let mut rules = Vec::new();
        for (event, rule) in &sources {
            let logic = engine
                .compile(rule.to_string().as_str())
                .map_err(|e| Unsupported {
                    hook: String::new(),
                    reason: format!("datalogic-rs rejects the rule of `{event}`: {e}"),
                })?;
            rules.push(EventRule {
                event: event.clone(),
                logic,
            });
        }
        Ok(JsonLogicPeer {
            engine,
            rules,
            sources,
        })
    }

    /// Each event's rule.
    pub fn sources(&self) -> &[(String, Value)] {
        &self.sources
    }

    fn logic(&self, event: &str) -> Option<&Logic> {
        self.rules
            .iter()
            .find(|r| r.event == event)
            .map(|r| &r.logic)
    }

    /// The first matching hook's position, converting the context on the
    /// call. `arena` is reset before returning.
    pub fn first(
        &self,
        event: &str,
        ctx: &Value,
        arena: &mut Bump,
    ) -> Result<Option<usize>, datalogic_rs::Error> {
        let Some(logic) = self.logic(event) else {
            return Ok(None);
        };
        let out = self.engine.evaluate(logic, ctx, arena).map(position);
        arena.reset();
        out
    }

    /// The context parsed once (from its JSON text).
    pub fn prepare(&self, ctx: &Value) -> Result<Prepared, datalogic_rs::Error> {
        Ok(Prepared(ParsedData::from_json(&ctx.to_string())?))
    }

    /// The first matching hook's position with a prepared context.
    pub fn first_prepared(
        &self,
        event: &str,
        ctx: &Prepared,
        arena: &mut Bump,
    ) -> Result<Option<usize>, datalogic_rs::Error> {
        let Some(logic) = self.logic(event) else {
            return Ok(None);
        };
        let out = self.engine.evaluate(logic, &ctx.0, arena).map(position);
        arena.reset();
        out
    }
}
