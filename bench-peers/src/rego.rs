//! The Rego peer: the `regorus` crate, both its tree-walking interpreter
//! (`Engine::eval_rule`) and its register VM (the RVM: `Compiler::
//! compile_from_policy` into a `Program`, run by `RegoVM`).
//!
//! # Translation
//!
//! One module, `package hookc`, with one rule per event whose `else` chain
//! is the event's hooks in evaluation order, each yielding the hook's
//! position; the rule is undefined when no hook matches:
//!
//! ```rego
//! e0 := 0 if {
//!     input.classification.category == "rate_limited"
//! } else := 1 if {
//!     input.limit_code == "spend_exceeded"
//!     is_number(input.cost.spend)
//!     input.cost.spend > 10.0
//! }
//! ```
//!
//! Rego has no error value: a reference to a missing key is *undefined*, and
//! an undefined expression fails its body, which is hookc's "an error does
//! not match" in positive position. Where Rego's meaning differs from
//! hookc's, the translation adds a guard: ordering compares values of any
//! two types in Rego (`"abc" > 10` is true), so an ordering gets
//! `is_number`/`is_string`; `not` is negation as failure (true when its
//! operand is undefined), so negations are pushed down to the leaves, each
//! stated as "is false" exactly (`p != c` for a negated `p == c`,
//! `is_string(p); not startswith(p, s)` for a negated `startsWith`, `_ = p;
//! not p in {..}` for a negated `in`). A disjunction (`any`, or a negated
//! `all`) is a helper rule with one body per item. `c ? a : b` is the
//! disjunction of `c` is true and `a`, `c` is false and `b` (each stated
//! exactly, so an undefined `c`, hookc's error, takes neither; a body with a
//! constant `false` is left out). String builtins are
//! called with non-strict builtin errors (OPA's default): a non-string
//! argument makes the call undefined, which is hookc's error in positive
//! position.
//!
//! Not expressible: kind tests telling ints from doubles (Rego has one
//! number type); ordering against a constant that is neither a number nor
//! a string.
//!
//! # Context
//!
//! *Converted per call*: the `serde_json::Value` is deserialized into a
//! `regorus::Value` (its `Deserialize` impl, reading the JSON value in place)
//! and set as `input`. *Pre-converted*: a `regorus::Value` built once; the
//! call sets a clone of it (reference-counted) as `input`.

use crate::model::{
    CmpOp, Cond, CtxPath, KindSet, Model, Polarity, Step, StrOp, Test, Unsupported,
};
use regorus::languages::rego::compiler::Compiler;
use regorus::rvm::RegoVM;
use regorus::{PolicyLengthConfig, Value as RValue};
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::num::{NonZeroU32, NonZeroUsize};

/// Rego keywords: not usable after a `.` in a reference.
const KEYWORDS: [&str; 15] = [
    "as", "contains", "default", "else", "every", "false", "if", "import", "in", "not", "null",
    "package", "some", "true", "with",
];

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&s)
}

fn string_literal(s: &str) -> String {
    // JSON string escapes are Rego string escapes.
    Value::String(s.to_owned()).to_string()
}

fn literal(v: &Value) -> String {
    match v {
        Value::Number(n) => crate::model::number_literal(n),
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
        other => other.to_string(),
    }
}

fn set_literal(items: &[Value]) -> String {
    if items.is_empty() {
        "set()".into()
    } else {
        format!(
            "{{{}}}",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        )
    }
}

fn reference(p: &CtxPath) -> String {
    let mut out = String::from("input");
    for key in std::iter::once(Step::Field(p.root.clone())).chain(p.steps.iter().cloned()) {
        match key {
            Step::Field(f) if is_ident(&f) => {
                out.push('.');
                out.push_str(&f);
            }
            Step::Field(f) => {
                let _ = write!(out, "[{}]", string_literal(&f));
            }
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// A conjunction of Rego expressions (one rule body).
type Body = Vec<String>;

/// Builds the module: rules per event and the helper rules they call.
#[derive(Default)]
struct Translator {
    helpers: String,
    next_helper: usize,
}

impl Translator {
    /// A helper rule true when any of the bodies holds; its name.
    fn disjunction(&mut self, bodies: Vec<Body>) -> String {
        let name = format!("h{}", self.next_helper);
        self.next_helper += 1;
        for body in bodies {
            let _ = writeln!(self.helpers, "{name} if {{");
            for line in body_or_true(&body) {
                let _ = writeln!(self.helpers, "\t{line}");
            }
            self.helpers.push_str("}\n\n");
        }
        name
    }

    /// `not` of a body: a helper when it has several expressions.
    fn negation(&mut self, body: Body) -> Body {
        match body.as_slice() {
            [one] => vec![format!("not {one}")],
            _ => {
                let h = self.disjunction(vec![body]);
                vec![format!("not {h}")]
            }
        }
    }

    fn cond(&mut self, c: &Cond, pol: Polarity) -> Result<Body, String> {
        Ok(match (c, pol) {
            (Cond::Const(b), _) => {
                if *b == (pol == Polarity::Pos) {
                    vec![]
                } else {
                    vec!["false".into()]
                }
            }
            (Cond::All(items), Polarity::Pos) | (Cond::Any(items), Polarity::Neg) => {
                let mut body = Vec::new();
                for i in items {
                    body.extend(self.cond(i, pol)?);
                }
                body
            }
            (Cond::Any(items), Polarity::Pos) | (Cond::All(items), Polarity::Neg) => {
                let bodies = items
                    .iter()
                    .map(|i| self.cond(i, pol))
                    .collect::<Result<Vec<_>, _>>()?;
                match bodies.len() {
                    0 => vec!["false".into()],
                    1 => bodies.into_iter().next().unwrap_or_default(),
                    _ => vec![self.disjunction(bodies)],
                }
            }
            (Cond::Not(inner), _) => self.cond(inner, pol.flip())?,
            (Cond::Leaf(leaf), _) => self.leaf(&leaf.path, &leaf.test, pol)?,
            // A branch is taken when the condition is exactly true or
            // exactly false; an error condition takes neither.
            (Cond::If(c, then, otherwise), _) => {
                let mut taken = self.cond(c, Polarity::Pos)?;
                taken.extend(self.cond(then, pol)?);
                let mut other = self.cond(c, Polarity::Neg)?;
                other.extend(self.cond(otherwise, pol)?);
                let mut bodies: Vec<Body> = [taken, other]
                    .into_iter()
                    .filter(|b| !b.iter().any(|e| e == "false"))
                    .collect();
                match bodies.len() {
                    0 => vec!["false".into()],
                    1 => bodies.pop().unwrap_or_default(),
                    _ => vec![self.disjunction(bodies)],
                }
            }
        })
    }

    fn leaf(&mut self, p: &CtxPath, test: &Test, pol: Polarity) -> Result<Body, String> {
        let r = reference(p);
        let pos = pol == Polarity::Pos;
        Ok(match test {
            Test::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), c) => {
                let op = if pos { *op } else { op.negated() };
                vec![format!("{r} {} {}", op.symbol(), literal(c))]
            }
            Test::Cmp(op, c) => {
                let guard = match c {
                    Value::Number(_) => "is_number",
                    Value::String(_) => "is_string",
                    _ => {
                        return Err(
                            "ordering against a constant that is not a number or a string".into(),
                        )
                    }
                };
                let op = if pos { *op } else { op.negated() };
                vec![
                    format!("{guard}({r})"),
                    format!("{r} {} {}", op.symbol(), literal(c)),
                ]
            }
            Test::In(items) => {
                let member = format!("{r} in {}", set_literal(items));
                if pos {
                    vec![member]
                } else {
                    vec![format!("_ = {r}"), format!("not {member}")]
                }
            }
            Test::Str(op, s) => {
                let f = match op {
                    StrOp::Contains => "contains",
                    StrOp::StartsWith => "startswith",
                    StrOp::EndsWith => "endswith",
                };
                let call = format!("{f}({r}, {})", string_literal(s));
                if pos {
                    vec![call]
                } else {
                    vec![format!("is_string({r})"), format!("not {call}")]
                }
            }
            Test::Regex(re) => {
                let call = format!("regex.match({}, {r})", string_literal(re));
                if pos {
                    vec![call]
                } else {
                    vec![format!("is_string({r})"), format!("not {call}")]
                }
            }
            Test::IsTrue => vec![format!("{r} == {pos}")],
            Test::Has => {
                let has = vec![format!("_ = {r}")];
                if pos {
                    has
                } else {
                    let h = self.disjunction(vec![has]);
                    vec![format!("not {h}")]
                }
            }
            Test::Exists => {
                let e = format!("{r} != null");
                if pos {
                    vec![e]
                } else {
                    vec![format!("not {e}")]
                }
            }
            Test::TypeIs(k) => {
                let t = self.kinds(&r, k)?;
                if pos {
                    t
                } else {
                    self.negation(t)
                }
            }
        })
    }

    /// "present and of one of these kinds" (total).
    fn kinds(&mut self, r: &str, k: &KindSet) -> Result<Body, String> {
        if !k.numbers_together() {
            return Err("a kind test telling ints from doubles (Rego has one number type)".into());
        }
        let mut bodies: Vec<Body> = Vec::new();
        for (on, f) in [
            (k.null, "is_null"),
            (k.bool, "is_boolean"),
            (k.int, "is_number"),
            (k.string, "is_string"),
            (k.list, "is_array"),
            (k.object, "is_object"),
        ] {
            if on {
                bodies.push(vec![format!("{f}({r})")]);
            }
        }
        Ok(match bodies.len() {
            0 => vec!["false".into()],
            1 => bodies.into_iter().next().unwrap_or_default(),
            _ => vec![self.disjunction(bodies)],
        })
    }
}

/// An engine that accepts the module of a large policy: regorus rejects a
/// policy file over 1 MiB or 20,000 lines by default (the scale policy of
/// 10,000 hooks is about 5 MiB).
fn engine() -> regorus::Engine {
    let mut engine = regorus::Engine::new();
    let mut limits = PolicyLengthConfig::default();
    if let (Some(bytes), Some(lines)) = (NonZeroUsize::new(1 << 30), NonZeroUsize::new(1 << 24)) {
        limits.max_file_bytes = bytes;
        limits.max_lines = lines;
    }
    if let Some(col) = NonZeroU32::new(1 << 16) {
        limits.max_col = col;
    }
    engine.set_policy_length_config(limits);
    engine
}

fn body_or_true(body: &Body) -> Vec<String> {
    if body.is_empty() {
        vec!["true".into()]
    } else {
        body.clone()
    }
}

/// Writes `name := v if { body } else := ...` for `(v, body)` items.
fn else_chain(out: &mut String, name: &str, items: &[(String, Body)]) {
    for (i, (value, body)) in items.iter().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "{name} := {value} if {{");
        } else {
            let _ = writeln!(out, "}} else := {value} if {{");
        }
        for line in body_or_true(body) {
            let _ = writeln!(out, "\t{line}");
        }
    }
    if !items.is_empty() {
        out.push_str("}\n\n");
    }
}

/// Like [`else_chain`], but as a tree of chains of at most `width` items:
/// each group of items is a rule of its own (`name_1_0`, `name_1_1`, ...:
/// level 1, groups 0, 1, ...), and the groups are chained in turn
/// (`name_2_0 := name_1_0 if { name_1_0 >= 0 } else := ...`), level by
/// level, until one chain, `name`, remains.
fn chain_tree(out: &mut String, name: &str, mut items: Vec<(String, Body)>, width: usize) {
    let mut level = 1;
    while items.len() > width {
        let mut groups = Vec::new();
        let mut rest = items.into_iter().peekable();
        let mut g = 0;
        while rest.peek().is_some() {
            let group: Vec<_> = rest.by_ref().take(width).collect();
            let sub = format!("{name}_{level}_{g}");
            else_chain(out, &sub, &group);
            // Not `x := sub` in the body: the RVM of regorus 0.14.1 makes
            // the whole rule undefined when `sub` is, instead of trying the
            // next branch (the interpreter tries it).
            groups.push((sub.clone(), vec![format!("{sub} >= 0")]));
            g += 1;
        }
        items = groups;
        level += 1;
    }
    else_chain(out, name, &items);
}

/// The Rego module of a model: its text and, for each event, its rule's
/// path (`data.hookc.e0`). With `width`, each event's `else` chain is split
/// into a tree of chains of at most that many branches (see [`RegoRvm`]).
pub fn module(
    model: &Model,
    width: Option<usize>,
) -> Result<(String, Vec<(String, String)>), Unsupported> {
    let mut t = Translator::default();
    let mut rules = String::new();
    let mut entries = Vec::new();
    for (k, ev) in model.events.iter().enumerate() {
        let name = format!("e{k}");
        let mut items = Vec::new();
        for (i, hook) in ev.hooks.iter().enumerate() {
            let mut body = vec![format!("# {}", hook.id.replace('\n', " "))];
            if let Some(c) = &hook.cond {
                body.extend(t.cond(c, Polarity::Pos).map_err(|reason| Unsupported {
                    hook: hook.id.clone(),
                    reason,
                })?);
            }
            if body.len() == 1 {
                body.push("true".into());
            }
            items.push((i.to_string(), body));
        }
        let _ = writeln!(rules, "# event `{}`", ev.event);
        match width {
            Some(w) => chain_tree(&mut rules, &name, items, w.max(2)),
            None => else_chain(&mut rules, &name, &items),
        }
        entries.push((ev.event.clone(), format!("data.hookc.{name}")));
    }
    let text = format!("package hookc\n\n{rules}{}", t.helpers);
    Ok((text, entries))
}

/// A JSON value as a `regorus::Value` (the crate's `Deserialize` impl reading
/// the JSON value in place).
pub fn to_value(v: &Value) -> Result<RValue, serde_json::Error> {
    RValue::deserialize(v)
}

fn position(v: &RValue) -> Option<usize> {
    match v {
        RValue::Number(_) => v.as_u64().ok().and_then(|u| usize::try_from(u).ok()),
        _ => None,
    }
}

/// The Rego policy on regorus' interpreter.
pub struct RegoInterp {
    engine: regorus::Engine,
    entries: Vec<(String, String)>,
    text: String,
}

impl RegoInterp {
    /// Translates the model and loads the module.
    pub fn new(model: &Model) -> Result<RegoInterp, Unsupported> {
        let (text, entries) = module(model, None)?;
        let mut engine = engine();
        engine.set_strict_builtin_errors(false);
        engine
            .add_policy("hookc.rego".into(), text.clone())
            .map_err(|e| Unsupported {
                hook: String::new(),
                reason: format!("regorus rejects the module: {e}"),
            })?;
        Ok(RegoInterp {
            engine,
            entries,
            text,
        })
    }

    /// The module's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn entry(&self, event: &str) -> Option<String> {
        self.entries
            .iter()
            .find(|(e, _)| e == event)
            .map(|(_, r)| r.clone())
    }

    /// The first matching hook's position with `input` already set.
    fn eval(&mut self, event: &str) -> anyhow::Result<Option<usize>> {
        let Some(rule) = self.entry(event) else {
            return Ok(None);
        };
        Ok(position(&self.engine.eval_rule(rule)?))
    }

    /// The first matching hook's position, converting the context on the call.
    pub fn first(&mut self, event: &str, ctx: &Value) -> anyhow::Result<Option<usize>> {
        self.engine.set_input(to_value(ctx)?);
        self.eval(event)
    }

    /// The first matching hook's position with a pre-converted context.
    pub fn first_prepared(&mut self, event: &str, ctx: &RValue) -> anyhow::Result<Option<usize>> {
        self.engine.set_input(ctx.clone());
        self.eval(event)
    }
}

/// The longest `else` chains tried for the RVM compiler, longest first. It
/// allocates registers across a whole chain (about ten per branch of the
/// scale policy), and a chain of 24 of the scale policy's hooks already
/// overflows its 255-register window ("Register overflow"), so each event's
/// chain is split into a tree of chains ([`module`]) of the longest width
/// that compiles.
pub const RVM_CHAIN_WIDTHS: [usize; 4] = [16, 8, 4, 2];

/// The RVM's instruction limit per evaluation (its default, 25,000, is
/// reached by the scale policy of 1,000 hooks).
pub const RVM_MAX_INSTRUCTIONS: usize = 1 << 30;

/// The Rego policy on regorus' RVM: one compiled program (and VM) per event.
pub struct RegoRvm {
    vms: Vec<(String, String, RegoVM)>,
    width: usize,
}

impl RegoRvm {
    /// Translates the model and compiles each event's rule to an RVM program.
    pub fn new(model: &Model) -> Result<RegoRvm, Unsupported> {
        let mut last = None;
        for width in RVM_CHAIN_WIDTHS {
            match RegoRvm::with_width(model, width) {
                Ok(rvm) => return Ok(rvm),
                Err(e) if e.reason.contains("Register overflow") => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Unsupported {
            hook: String::new(),
            reason: "no chain width".into(),
        }))
    }

    /// With each event's `else` chain split into chains of at most `width`.
    pub fn with_width(model: &Model, width: usize) -> Result<RegoRvm, Unsupported> {
        let (text, entries) = module(model, Some(width))?;
        let fail = |what: &str, e: &dyn std::fmt::Display| Unsupported {
            hook: String::new(),
            reason: format!("regorus {what}: {e}"),
        };
        let mut vms = Vec::new();
        for (event, rule) in entries {
            let mut engine = engine();
            engine
                .add_policy("hookc.rego".into(), text.clone())
                .map_err(|e| fail("rejects the module", &e))?;
            let compiled = engine
                .compile_with_entrypoint(&rule.as_str().into())
                .map_err(|e| fail("cannot compile the entry point", &e))?;
            let program = Compiler::compile_from_policy(&compiled, &[rule.as_str()])
                .map_err(|e| fail("cannot compile the RVM program", &e))?;
            let mut vm = RegoVM::new_with_policy(compiled);
            vm.load_program(program);
            vm.set_strict_builtin_errors(false);
            // The default limit (25,000 instructions) stops the scale
            // policy of 1,000 hooks before its last hook.
            vm.set_max_instructions(RVM_MAX_INSTRUCTIONS);
            vms.push((event, rule, vm));
        }
        Ok(RegoRvm { vms, width })
    }

    /// The chain width used.
    pub fn width(&self) -> usize {
        self.width
    }

    fn run(&mut self, event: &str, input: RValue) -> anyhow::Result<Option<usize>> {
        let Some((_, rule, vm)) = self.vms.iter_mut().find(|(e, _, _)| e == event) else {
            return Ok(None);
        };
        vm.set_input(input);
        Ok(position(&vm.execute_entry_point_by_name(rule)?))
    }

    /// The first matching hook's position, converting the context on the call.
    pub fn first(&mut self, event: &str, ctx: &Value) -> anyhow::Result<Option<usize>> {
        self.run(event, to_value(ctx)?)
    }

    /// The first matching hook's position with a pre-converted context.
    pub fn first_prepared(&mut self, event: &str, ctx: &RValue) -> anyhow::Result<Option<usize>> {
        self.run(event, ctx.clone())
    }
}
