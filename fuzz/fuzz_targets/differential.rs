//! Fuzz target `differential`: the bytecode VM against the reference
//! evaluator, on fuzz-generated policies and contexts.
//!
//! The input's first byte splits the rest in two parts, decoded with
//! `arbitrary` into hooks and contexts. Up to 12 hooks
//! (layer, events among `e1`, `e2` and `"*"`, priority, enabled, an action
//! that may fill `${...}` templates) whose conditions come from a small
//! grammar over the paths of `tests/differential.rs` (`n`, `d`, `s`, `b`,
//! `l`, `o`, `a.b`, `o['k-1']`, `l[0]`, `a.b.c`) and literals of every kind
//! (ints at the `i64` edges, doubles from `-0.0` to `1e300`, unicode
//! strings, lists): condition trees (`all`/`any`/`not`, every tree
//! operator) written as YAML trees or as the equivalent `when` text, and
//! `when`-only forms (`?:`, `has`, `size`, arithmetic, list macros, string
//! functions, path-to-path comparisons). Contexts are arbitrary JSON over
//! the same roots, each root possibly missing or of the wrong kind (up to
//! six, after two fixed ones: `{}` and one of the schema's types).
//!
//! The policy is compiled through the real pipeline (a policy the checker
//! rejects is skipped); then for every context and each of `e1`, `e2`,
//! `e3` the runtime (`evaluate`, the `explain` winner, `evaluate_json` on
//! the serialized context, `evaluate_all`, and the policy reloaded from
//! its artifact) and [`hookc::testing::reference::first_match`] /
//! [`hookc::testing::reference::all_matches`] on the IR must name the same hooks
//! ([`hookc_fuzz::check_agreement`]).
//!
//! With `HOOKC_FUZZ_PRINT=1` in the environment, each input's policy YAML
//! and contexts are printed on standard error (to reproduce a finding).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use hookc::compile::{compile, Input};
use hookc_runtime::Policy;
use hookc_fuzz::check_agreement;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

/// Deepest condition rendered; anything deeper becomes `true`.
const MAX_DEPTH: usize = 8;

#[path = "../../crates/hookc/tests/common/interesting.rs"]
mod interesting;
use interesting::{
    leaf_when, literal, quote, schema_json, INTERESTING_DOUBLES, INTERESTING_INTS, PATTERNS,
    STRINGS,
};

fn pick<T: Copy>(items: &[T], i: u8) -> T {
    items[usize::from(i) % items.len()]
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum IntV {
    Small(i8),
    Interesting(u8),
    Raw(i64),
}

impl IntV {
    fn get(self) -> i64 {
        match self {
            IntV::Small(i) => i64::from(i % 11),
            IntV::Interesting(i) => pick(&INTERESTING_INTS, i),
            IntV::Raw(i) => i,
        }
    }
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum DoubleV {
    Interesting(u8),
    Raw(f64),
}

impl DoubleV {
    fn get(self) -> f64 {
        match self {
            DoubleV::Interesting(i) => pick(&INTERESTING_DOUBLES, i),
            DoubleV::Raw(f) if f.is_finite() => f,
            DoubleV::Raw(_) => 0.5,
        }
    }
}

#[derive(Debug, Clone, Arbitrary)]
enum StrV {
    Known(u8),
    Raw(String),
}

impl StrV {
    fn get(&self) -> String {
        match self {
            StrV::Known(i) => pick(&STRINGS, *i).to_owned(),
            StrV::Raw(s) => s.chars().take(8).collect(),
        }
    }
}

/// A literal of a condition.
#[derive(Debug, Clone, Arbitrary)]
enum Lit {
    Null,
    Bool(bool),
    Int(IntV),
    Double(DoubleV),
    Str(StrV),
    List(Vec<Lit>),
}

impl Lit {
    fn to_json(&self, depth: usize) -> Value {
        match self {
            Lit::Null => Value::Null,
            Lit::Bool(b) => Value::Bool(*b),
            Lit::Int(i) => Value::from(i.get()),
            Lit::Double(d) => Value::from(d.get()),
            Lit::Str(s) => Value::String(s.get()),
            Lit::List(items) if depth < 3 => Value::Array(
                items
                    .iter()
                    .take(14)
                    .map(|l| l.to_json(depth + 1))
                    .collect(),
            ),
            Lit::List(_) => Value::Array(Vec::new()),
        }
    }
}

/// The paths conditions read (those of `tests/differential.rs`).
#[derive(Debug, Clone, Copy, Arbitrary)]
enum P {
    N,
    D,
    S,
    B,
    L,
    O,
    AB,
    OK1,
    L0,
    Abc,
}

impl P {
    fn text(self) -> &'static str {
        match self {
            P::N => "n",
            P::D => "d",
            P::S => "s",
            P::B => "b",
            P::L => "l",
            P::O => "o",
            P::AB => "a.b",
            P::OK1 => "o['k-1']",
            P::L0 => "l[0]",
            P::Abc => "a.b.c",
        }
    }
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum TreeOp {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    In,
    Contains,
    StartsWith,
    EndsWith,
    Regex,
    Exists,
}

/// A condition-tree leaf: `{path, op, value}`.
#[derive(Debug, Clone, Arbitrary)]
struct Leaf {
    path: P,
    op: TreeOp,
    value: Lit,
    pick: u8,
}

impl Leaf {
    /// The operator's name and the value, coerced to what the operator
    /// takes (a list for `in`, a string for the string operators, a
    /// pattern for `regex`).
    fn parts(&self) -> (&'static str, Option<Value>) {
        let v = self.value.to_json(0);
        let string = || match &v {
            Value::String(_) => v.clone(),
            _ => Value::String(pick(&STRINGS, self.pick).to_owned()),
        };
        match self.op {
            TreeOp::Eq => ("eq", Some(v)),
            TreeOp::Ne => ("ne", Some(v)),
            TreeOp::Gt => ("gt", Some(v)),
            TreeOp::Gte => ("gte", Some(v)),
            TreeOp::Lt => ("lt", Some(v)),
            TreeOp::Lte => ("lte", Some(v)),
            TreeOp::In => match v {
                Value::Array(_) => ("in", Some(v)),
                other => ("in", Some(Value::Array(vec![other]))),
            },
            TreeOp::Contains => ("contains", Some(string())),
            TreeOp::StartsWith => ("starts_with", Some(string())),
            TreeOp::EndsWith => ("ends_with", Some(string())),
            TreeOp::Regex => (
                "regex",
                Some(Value::String(pick(&PATTERNS, self.pick).to_owned())),
            ),
            TreeOp::Exists => ("exists", None),
        }
    }

    fn to_yaml(&self) -> Value {
        let (op, value) = self.parts();
        let mut m = Map::new();
        m.insert("path".into(), json!(self.path.text()));
        m.insert("op".into(), json!(op));
        if let Some(v) = value {
            m.insert("value".into(), v);
        }
        Value::Object(m)
    }

    /// The `when` text of the same meaning (`docs/src/semantics.md#condition-trees`).
    fn to_when(&self) -> String {
        let path = self.path.text();
        let (op, value) = self.parts();
        let holds_null = match (op, &value) {
            ("in", Some(Value::Array(items))) => items.iter().any(Value::is_null),
            ("eq" | "ne", Some(v)) => v.is_null(),
            _ => false,
        };
        let v = value
            .as_ref()
            .and_then(literal)
            .unwrap_or_else(|| "null".to_owned());
        // Any `when` text serves: the VM and the reference evaluator run the
        // same IR. A string operator has no `when` form of a tree's meaning.
        leaf_when(path, op, &v, holds_null)
            .map(|(text, _)| text)
            .unwrap_or_else(|| format!("has({path}) && {path} != null"))
    }
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    fn text(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl ArithOp {
    fn text(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
        }
    }
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum StrFn {
    Contains,
    StartsWith,
    EndsWith,
    Matches,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum MacroK {
    Exists,
    All,
    ExistsOne,
}

/// The body of a list macro over the variable `x`.
#[derive(Debug, Clone, Arbitrary)]
enum Body {
    Cmp(CmpOp, Lit),
    Str(StrFn, StrV),
    Has,
    Outer(Box<E>),
    AndOuter(CmpOp, Lit, Box<E>),
}

/// A `when`-only condition (or a tree leaf written as text).
#[derive(Debug, Clone, Arbitrary)]
enum E {
    Leaf(Leaf),
    True,
    False,
    And(Box<E>, Box<E>),
    Or(Box<E>, Box<E>),
    Not(Box<E>),
    Ternary(Box<E>, Box<E>, Box<E>),
    Has(P),
    Size(P, CmpOp, IntV),
    Arith(P, ArithOp, Lit, CmpOp, Lit),
    Macro(P, MacroK, Body),
    Str(P, StrFn, StrV, u8),
    In(P, Lit),
    PathCmp(P, CmpOp, P),
}

impl E {
    fn to_when(&self, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return "true".to_owned();
        }
        let sub = |e: &E| e.to_when(depth + 1);
        let lit = |l: &Lit| literal(&l.to_json(0)).unwrap_or_else(|| "null".to_owned());
        match self {
            E::Leaf(l) => format!("({})", l.to_when()),
            E::True => "true".to_owned(),
            E::False => "false".to_owned(),
            E::And(a, b) => format!("({} && {})", sub(a), sub(b)),
            E::Or(a, b) => format!("({} || {})", sub(a), sub(b)),
            E::Not(a) => format!("!{}", sub(a)),
            E::Ternary(c, a, b) => format!("({} ? {} : {})", sub(c), sub(a), sub(b)),
            E::Has(p) => format!("has({})", p.text()),
            E::Size(p, op, i) => format!("size({}) {} {}", p.text(), op.text(), i.get()),
            E::Arith(p, a, l, op, r) => format!(
                "({} {} {}) {} {}",
                p.text(),
                a.text(),
                lit(l),
                op.text(),
                lit(r)
            ),
            E::Macro(p, k, body) => {
                let name = match k {
                    MacroK::Exists => "exists",
                    MacroK::All => "all",
                    MacroK::ExistsOne => "exists_one",
                };
                let body = match body {
                    Body::Cmp(op, l) => format!("x {} {}", op.text(), lit(l)),
                    Body::Str(f, s) => str_call("x", *f, s, 0),
                    Body::Has => "has(x.k)".to_owned(),
                    Body::Outer(e) => sub(e),
                    Body::AndOuter(op, l, e) => {
                        format!("(x {} {} && {})", op.text(), lit(l), sub(e))
                    }
                };
                format!("{}.{name}(x, {body})", p.text())
            }
            E::Str(p, f, s, i) => str_call(p.text(), *f, s, *i),
            E::In(p, l) => {
                let v = match l.to_json(0) {
                    Value::Array(items) => Value::Array(items),
                    other => Value::Array(vec![other]),
                };
                format!(
                    "{} in {}",
                    p.text(),
                    literal(&v).unwrap_or_else(|| "[]".to_owned())
                )
            }
            E::PathCmp(a, op, b) => format!("{} {} {}", a.text(), op.text(), b.text()),
        }
    }
}

fn str_call(target: &str, f: StrFn, s: &StrV, i: u8) -> String {
    match f {
        StrFn::Contains => format!("{target}.contains({})", quote(&s.get())),
        StrFn::StartsWith => format!("{target}.startsWith({})", quote(&s.get())),
        StrFn::EndsWith => format!("{target}.endsWith({})", quote(&s.get())),
        StrFn::Matches => format!("{target}.matches({})", quote(pick(&PATTERNS, i))),
    }
}

/// A hook's condition.
#[derive(Debug, Clone, Arbitrary)]
enum Cond {
    Leaf(Leaf),
    All(Vec<Cond>),
    Any(Vec<Cond>),
    Not(Box<Cond>),
    When(E),
}

impl Cond {
    /// The condition as a YAML tree, if it has no `when`-only part.
    fn to_yaml(&self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return Some(json!({"all": []}));
        }
        Some(match self {
            Cond::Leaf(l) => l.to_yaml(),
            Cond::All(items) => {
                json!({ "all": items.iter().take(4).map(|c| c.to_yaml(depth + 1)).collect::<Option<Vec<_>>>()? })
            }
            Cond::Any(items) => {
                json!({ "any": items.iter().take(4).map(|c| c.to_yaml(depth + 1)).collect::<Option<Vec<_>>>()? })
            }
            Cond::Not(c) => json!({ "not": c.to_yaml(depth + 1)? }),
            Cond::When(_) => return None,
        })
    }

    /// The condition as a `when` expression.
    fn to_when(&self, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return "true".to_owned();
        }
        let fold = |items: &[Cond], op: &str, empty: &str| {
            if items.is_empty() {
                return empty.to_owned();
            }
            let parts: Vec<String> = items
                .iter()
                .take(4)
                .map(|c| format!("({})", c.to_when(depth + 1)))
                .collect();
            parts.join(&format!(" {op} "))
        };
        match self {
            Cond::Leaf(l) => l.to_when(),
            Cond::All(items) => fold(items, "&&", "true"),
            Cond::Any(items) => fold(items, "||", "false"),
            Cond::Not(c) => format!("!({})", c.to_when(depth + 1)),
            Cond::When(e) => e.to_when(depth + 1),
        }
    }
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum EventSel {
    E1,
    E2,
    Both,
    Star,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum ActionSel {
    Abort,
    /// `emit_event` with templates: a whole reference (typed) and references
    /// inside a string (stringified).
    Emit,
}

#[derive(Debug, Clone, Arbitrary)]
struct HookSpec {
    builtin: bool,
    events: EventSel,
    priority: i8,
    enabled: bool,
    condition: Option<Cond>,
    as_tree: bool,
    action: ActionSel,
}

/// A JSON value of a context.
#[derive(Debug, Clone, Arbitrary)]
enum J {
    Null,
    Bool(bool),
    Int(IntV),
    Double(DoubleV),
    Str(StrV),
    Arr(Vec<J>),
    Obj(Vec<(u8, J)>),
}

const KEYS: [&str; 6] = ["b", "c", "k", "k-1", "x", ""];

impl J {
    fn to_json(&self, depth: usize) -> Value {
        match self {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Int(i) => Value::from(i.get()),
            J::Double(d) => Value::from(d.get()),
            J::Str(s) => Value::String(s.get()),
            J::Arr(items) if depth < 5 => Value::Array(
                items
                    .iter()
                    .take(24)
                    .map(|j| j.to_json(depth + 1))
                    .collect(),
            ),
            J::Obj(entries) if depth < 5 => Value::Object(
                entries
                    .iter()
                    .take(6)
                    .map(|(k, j)| (pick(&KEYS, *k).to_owned(), j.to_json(depth + 1)))
                    .collect(),
            ),
            J::Arr(_) | J::Obj(_) => Value::Null,
        }
    }
}

/// A context: each root present or missing, of any kind.
#[derive(Debug, Clone, Arbitrary)]
struct Ctx {
    a: Option<J>,
    n: Option<J>,
    d: Option<J>,
    s: Option<J>,
    b: Option<J>,
    l: Option<J>,
    o: Option<J>,
}

impl Ctx {
    fn to_json(&self) -> Value {
        let mut map = Map::new();
        for (k, v) in [
            ("a", &self.a),
            ("n", &self.n),
            ("d", &self.d),
            ("s", &self.s),
            ("b", &self.b),
            ("l", &self.l),
            ("o", &self.o),
        ] {
            if let Some(v) = v {
                map.insert(k.to_owned(), v.to_json(0));
            }
        }
        Value::Object(map)
    }
}

/// The policy as one YAML file (JSON flow values, which YAML reads as is).
fn policy_yaml(hooks: &[HookSpec]) -> String {
    let mut layers = [String::new(), String::new()];
    for (i, h) in hooks.iter().take(12).enumerate() {
        let events = match h.events {
            EventSel::E1 => json!(["e1"]),
            EventSel::E2 => json!("e2"),
            EventSel::Both => json!(["e1", "e2"]),
            EventSel::Star => json!("*"),
        };
        let action = match h.action {
            ActionSel::Abort => json!({"type": "abort"}),
            ActionSel::Emit => json!({
                "type": "emit_event",
                "event_type": "seen",
                "payload": {"n": "${n}", "text": "s=${s} ab=${a.b} l0=${l[0]} $${x}"}
            }),
        };
        let mut entry = format!(
            "  - id: h{i}\n    event: {events}\n    priority: {}\n    enabled: {}\n    action: {action}\n",
            h.priority, h.enabled
        );
        if let Some(c) = &h.condition {
            match c.to_yaml(0).filter(|_| h.as_tree) {
                Some(tree) => entry.push_str(&format!("    condition: {tree}\n")),
                None => entry.push_str(&format!("    when: {}\n", json!(c.to_when(0)))),
            }
        }
        layers[usize::from(h.builtin)].push_str(&entry);
    }
    let mut out = format!("event_context_schema: {}\n", schema_json());
    for (key, body) in ["hooks", "builtin_hooks"].iter().zip(&layers) {
        if !body.is_empty() {
            out.push_str(&format!("{key}:\n{body}"));
        }
    }
    out
}

/// Contexts every policy is evaluated on besides the fuzzed ones: empty,
/// and one with every root present and of its schema type.
fn fixed_contexts() -> [Value; 2] {
    [
        json!({}),
        json!({
            "a": {"b": {"c": 1, "k": "x"}}, "n": 3, "d": 2.5, "s": "abc", "b": true,
            "l": [1, "a", 2.5, null], "o": {"k-1": 2, "k": "v"}
        }),
    ]
}

/// Splits the input: the first byte says what share of the rest describes
/// the hooks; the remainder describes the contexts.
fn decode(data: &[u8]) -> (Vec<HookSpec>, Vec<Ctx>) {
    let Some((&share, rest)) = data.split_first() else {
        return (Vec::new(), Vec::new());
    };
    let cut = rest.len() - rest.len() * usize::from(share) / 256;
    let (hooks, contexts) = rest.split_at(cut);
    let hooks = Vec::<HookSpec>::arbitrary_take_rest(Unstructured::new(hooks)).unwrap_or_default();
    let contexts = Vec::<Ctx>::arbitrary_take_rest(Unstructured::new(contexts)).unwrap_or_default();
    (hooks, contexts)
}

fuzz_target!(|data: &[u8]| {
    let (hooks, contexts) = decode(data);
    let contexts: Vec<Value> = fixed_contexts()
        .into_iter()
        .chain(contexts.iter().take(6).map(Ctx::to_json))
        .collect();
    let yaml = policy_yaml(&hooks);
    if std::env::var_os("HOOKC_FUZZ_PRINT").is_some() {
        // For reproducing a finding: the policy and contexts as text.
        eprintln!("{yaml}");
        for ctx in &contexts {
            eprintln!("context: {ctx}");
        }
    }
    let c = compile(&[Input::new("policy.yaml", yaml.clone())]);
    let Some(ir) = c.policy.clone() else {
        return;
    };
    let rt = hookc::compile::Compilation::into_policy(c)
        .unwrap_or_else(|e| panic!("a checked policy fails to lower and verify: {e}\n{yaml}"));
    let reloaded = Policy::from_artifact(&rt.to_artifact())
        .unwrap_or_else(|e| panic!("the policy's own artifact does not load: {e}\n{yaml}"));
    for ctx in &contexts {
        for event in ["e1", "e2", "e3"] {
            check_agreement(Some(&ir), &rt, &reloaded, event, ctx, None);
        }
    }
});
