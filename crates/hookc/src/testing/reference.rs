//! The reference evaluator: a small tree-walking interpreter of the IR, kept
//! obviously correct, used as the test oracle for the bytecode VM.
//!
//! Property and differential tests run random policies and contexts through
//! both this evaluator and the VM and require the same answers; the CEL
//! conformance test runs every case through both. It is kept apart from the
//! VM on purpose: the VM is optimized (lowering fuses instructions, hashes
//! constant sets, caches paths, runs macros as loops over a flat stack),
//! and an oracle sharing that machinery would share its bugs. This one walks
//! the IR directly, recursively, with an explicit variable environment.
//!
//! It adds no semantics of its own: every operation on values is the one of
//! [`hookc_runtime::internals::value`] (as in the VM), and only control flow lives here: the
//! order and short-circuiting of `&&`/`||`, which branch of `?:` runs, and
//! the iteration of the list macros (CEL's folds, with the shared
//! [`hookc_runtime::limits::MAX_MACRO_ITERATIONS`] budget per evaluation).
//!
//! Recursion depth is bounded by the IR's depth, which the parser and the
//! tree resolver bound ([`hookc_runtime::limits::MAX_EXPR_DEPTH`],
//! [`hookc_runtime::limits::MAX_DOC_DEPTH`]). Regexes are compiled on use (cached per
//! evaluation), which is fine for an oracle. Globs are matched directly
//! ([`crate::check::glob::Glob::is_match`]), not through the regex they are
//! compiled to, so that the VM's translation is checked against them.

use crate::check::actions::{ActionValue, TypeDef};
use crate::check::glob::Glob;
use crate::check::policy::{CheckedPolicy, Hook};
use crate::check::template::TemplatePiece;
use crate::ir::{BinaryOp, Const, IrExpr, IrExprKind, MacroKind, UnaryOp};
use hookc_runtime::bytecode::path::PathTable;
use hookc_runtime::functions::{self, Derived, Scratch};
use hookc_runtime::internals::context;
use hookc_runtime::internals::value::{self, Arith, EvalError, Order, PolicyRegex, Val};
use hookc_runtime::limits::MAX_MACRO_ITERATIONS;
use serde_json::Value;
use std::borrow::Cow;

/// The object constants of an expression, as JSON.
///
/// A [`Val`] can only borrow an object, and an object constant of the IR
/// (`Const::Object`, made only from a YAML `value:` mapping; the `when`
/// syntax has no map literals) is not a `serde_json::Map`. This holds each
/// one converted, for [`eval_with`] to borrow, as the VM borrows its
/// constant pool.
#[derive(Debug, Default)]
pub struct Constants<'e> {
    /// Each object constant of the expression (by identity) and its JSON.
    objects: Vec<(&'e Const, Value)>,
    /// The values the evaluation's functions derive (parsed shell commands).
    derived: Derived<'e>,
}

impl<'e> Constants<'e> {
    /// Collects the object constants of `expr` (also those inside list constants).
    pub fn new(expr: &'e IrExpr) -> Constants<'e> {
        let mut objects = Vec::new();
        let mut todo = vec![expr];
        while let Some(e) = todo.pop() {
            if let IrExprKind::Const(c) = &e.kind {
                collect_objects(c, &mut objects);
            }
            todo.extend(children(e));
        }
        Constants {
            objects,
            derived: Derived::new(),
        }
    }

    /// The JSON of an object constant of the expression.
    fn get(&self, c: &Const) -> Option<&Value> {
        self.objects
            .iter()
            .find(|(k, _)| std::ptr::eq(*k, c))
            .map(|(_, v)| v)
    }
}

fn collect_objects<'e>(c: &'e Const, out: &mut Vec<(&'e Const, Value)>) {
    match c {
        Const::Object(_) => out.push((c, c.to_json())),
        Const::List(items) => items.iter().for_each(|i| collect_objects(i, out)),
        _ => {}
    }
}

/// The direct sub-expressions of an expression.
fn children(e: &IrExpr) -> Vec<&IrExpr> {
    match &e.kind {
        IrExprKind::Const(_)
        | IrExprKind::Path(_)
        | IrExprKind::Var { .. }
        | IrExprKind::HasPath(_) => Vec::new(),
        IrExprKind::List(items)
        | IrExprKind::Call(_, items)
        | IrExprKind::PatternCall { args: items, .. } => items.iter().collect(),
        IrExprKind::Field(x, _)
        | IrExprKind::HasField(x, _)
        | IrExprKind::Unary(_, x)
        | IrExprKind::Matches(x, _)
        | IrExprKind::TypeIs(x, _)
        | IrExprKind::Local { body: x, .. } => vec![x],
        IrExprKind::SchemaMatch { check, .. } => vec![check],
        IrExprKind::Index(a, b) | IrExprKind::And(a, b) | IrExprKind::Or(a, b) => vec![a, b],
        IrExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        IrExprKind::Cond(c, a, b) => vec![c, a, b],
        IrExprKind::Macro { range, body, .. } => vec![range, body],
    }
}

/// Evaluates any expression against a context, its object constants taken
/// from `consts` (built by [`Constants::new`] from the same expression).
pub fn eval_with<'a>(
    expr: &'a IrExpr,
    paths: &'a PathTable,
    ctx: &'a Value,
    consts: &'a Constants<'a>,
) -> Val<'a> {
    let mut ev = Evaluator {
        paths,
        ctx,
        consts,
        env: Vec::new(),
        iterations: 0,
        regexes: Vec::new(),
        globs: Vec::new(),
        patterns: Vec::new(),
        scratch: Scratch::new(&consts.derived),
    };
    ev.eval(expr)
}

/// Whether a hook runs for `event` on `ctx`: enabled, listening to the
/// event, and its condition absent or evaluating to `true` (an error or a
/// non-bool does not match).
pub fn hook_matches(policy: &CheckedPolicy, hook: &Hook, event: &str, ctx: &Value) -> bool {
    if !hook.enabled || !hook.events.includes(event) || !table_holds(policy, hook, ctx) {
        return false;
    }
    match &hook.condition {
        None => true,
        Some(cond) => {
            let consts = Constants::new(cond);
            matches!(
                eval_with(cond, policy.paths(), ctx, &consts),
                Val::Bool(true)
            )
        }
    }
}

/// The first row of a hook's pattern table that matches the string at its
/// path, trying each row's regex in turn (the runtime scans once with all
/// of them): `None` when the hook has no table, the path is not a string,
/// or no row matches.
pub fn table_row<'h>(
    policy: &CheckedPolicy,
    hook: &'h Hook,
    ctx: &Value,
) -> Option<&'h serde_json::Map<String, Value>> {
    let table = hook.table.as_ref()?;
    let path = policy.paths().get(table.on)?;
    let text = context::resolve(ctx, path)?.as_str()?;
    table.rows.get(table.first_row(text)?)
}

/// Whether a hook's pattern table holds: it has none, or a row matches
/// (`docs/src/semantics.md#pattern-tables`). Never an error: a path that
/// is missing or not a string matches no row.
pub fn table_holds(policy: &CheckedPolicy, hook: &Hook, ctx: &Value) -> bool {
    hook.table.is_none() || table_row(policy, hook, ctx).is_some()
}

/// A matched hook's action filled ([`fill_action`]), its templates reading
/// the hook's table row as `row` (the context with `row` bound to it).
pub fn fill_hook_action(
    policy: &CheckedPolicy,
    hook: &Hook,
    ctx: &Value,
) -> Result<serde_json::Map<String, Value>, ParamMisfit> {
    match (table_row(policy, hook, ctx), ctx) {
        (Some(row), Value::Object(m)) => {
            let mut with_row = m.clone();
            with_row.insert(crate::ir::ROW_ROOT.to_owned(), Value::Object(row.clone()));
            fill_action(policy, &hook.action, &Value::Object(with_row))
        }
        _ => fill_action(policy, &hook.action, ctx),
    }
}

/// The reference semantics of deciding: the first hook with a terminal
/// action, in evaluation order ([`CheckedPolicy::hooks`]), that runs for
/// `event` on `ctx` (see [`hook_matches`]).
pub fn first_match<'p>(policy: &'p CheckedPolicy, event: &str, ctx: &Value) -> Option<&'p Hook> {
    decision(policy, event, ctx).1
}

/// The reference semantics of an evaluation (`docs/src/semantics.md#action-effects`):
/// walking the hooks in evaluation order, every matching hook with a
/// collected action is gathered, and the first matching hook with a
/// terminal action ends the walk; returns the gathered hooks and that one.
pub fn decision<'p>(
    policy: &'p CheckedPolicy,
    event: &str,
    ctx: &Value,
) -> (Vec<&'p Hook>, Option<&'p Hook>) {
    let mut collected = Vec::new();
    for hook in policy.hooks() {
        if !hook_matches(policy, hook, event, ctx) {
            continue;
        }
        match hook.action.effect {
            crate::ir::Effect::Collected => collected.push(hook),
            crate::ir::Effect::Terminal => return (collected, Some(hook)),
            // A first-match policy has neither; see `model` for the rest.
            crate::ir::Effect::Transform | crate::ir::Effect::Await => {}
        }
    }
    (collected, None)
}

/// Every hook that runs for `event` on `ctx`, in evaluation order.
pub fn all_matches<'p>(policy: &'p CheckedPolicy, event: &str, ctx: &Value) -> Vec<&'p Hook> {
    policy
        .hooks()
        .iter()
        .filter(|h| hook_matches(policy, h, event, ctx))
        .collect()
}

/// A filled parameter that does not fit its declaration, as the reference
/// evaluator finds it: the parameter (with the position of a failing item,
/// `tags[1]`) and the failing value.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamMisfit {
    /// The parameter, with the position of the failing item inside it.
    pub param: String,
    /// The failing value.
    pub value: Value,
}

/// The reference semantics of a match's action (`docs/src/semantics.md#templates`):
/// `{"type": KIND, ...params}` with templates filled by walking the checked
/// action, and every filled parameter held to its declaration in the
/// policy's action types (its type names, `enum` and `items`, read from the
/// definition, not from the bytecode's checks, so that the lowering's choice
/// of which parameters to check is itself checked). The first parameter
/// that does not fit, in declaration order, is the error.
pub fn fill_action(
    policy: &CheckedPolicy,
    action: &crate::check::actions::Action,
    ctx: &Value,
) -> Result<serde_json::Map<String, Value>, ParamMisfit> {
    let ty = policy.action_types().get(&action.kind);
    let mut out = serde_json::Map::new();
    out.insert("type".to_owned(), Value::String(action.kind.clone()));
    for (name, value) in &action.params {
        let filled = fill_value(policy.paths(), value, ctx);
        if let Some(def) = ty.and_then(|t| t.param(name)) {
            if let Some(at) = misfit(def.ty(), &filled) {
                return Err(ParamMisfit {
                    param: format!("{name}{}", at.0),
                    value: at.1.clone(),
                });
            }
        }
        out.insert(name.clone(), filled);
    }
    Ok(out)
}

/// The first part of a filled value that does not fit a definition: its
/// position and the part. The kind of a JSON value and the equality with an
/// `enum` value are the language's ([`Val::kind`], [`value::eq`]).
fn misfit<'v>(def: &TypeDef, v: &'v Value) -> Option<(String, &'v Value)> {
    let val = Val::from_json(v);
    let in_enum = |allowed: &[ActionValue]| {
        allowed
            .iter()
            .filter_map(ActionValue::const_json)
            .any(|a| value::eq(&Val::from_json(&a), &val))
    };
    if !val.kind().within(def.kinds()) || def.allowed().is_some_and(|a| !in_enum(a)) {
        return Some((String::new(), v));
    }
    let (Some(items), Value::Array(values)) = (def.items(), v) else {
        return None;
    };
    values
        .iter()
        .enumerate()
        .find_map(|(i, item)| misfit(items, item).map(|(at, part)| (format!("[{i}]{at}"), part)))
}

/// One parameter value with its templates filled: a whole template is the
/// value at its path or of its expression (`null` when the path does not
/// resolve or the expression is an error), a template with text is a string
/// (values stringified, strings as they are, nothing for a path that does
/// not resolve or an expression that is an error).
fn fill_value(paths: &PathTable, value: &ActionValue, ctx: &Value) -> Value {
    let piece = |p: &TemplatePiece| -> Option<Value> {
        match p {
            TemplatePiece::Lit(_) => None,
            TemplatePiece::Path(id) => paths
                .get(*id)
                .and_then(|p| context::resolve(ctx, p))
                .cloned(),
            TemplatePiece::Expr(e) => {
                let consts = Constants::new(&e.expr);
                eval_with(&e.expr, paths, ctx, &consts).to_json()
            }
        }
    };
    match value {
        ActionValue::Template(t) => match t.parts() {
            [whole] if t.is_whole() => piece(whole).unwrap_or(Value::Null),
            parts => {
                let mut text = String::new();
                for part in parts {
                    if let TemplatePiece::Lit(s) = part {
                        text.push_str(s);
                        continue;
                    }
                    match piece(part) {
                        Some(Value::String(s)) => text.push_str(&s),
                        Some(other) => text.push_str(&other.to_string()),
                        None => {}
                    }
                }
                Value::String(text)
            }
        },
        ActionValue::List(items) => {
            Value::Array(items.iter().map(|v| fill_value(paths, v, ctx)).collect())
        }
        ActionValue::Object(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), fill_value(paths, v, ctx)))
                .collect(),
        ),
        constant => constant.const_json().unwrap_or(Value::Null),
    }
}

/// Whether two evaluation results are the same, strictly, as differential
/// tests compare the VM with this evaluator: any two errors are the same
/// (which error is an explain detail); otherwise the same kind (an int is
/// not a double, although `1 == 1.0` in the language), doubles bit for bit
/// (`-0.0` is not `0.0`) except that NaN is NaN, strings equal, lists
/// elementwise (a context array and a built list alike), objects with the
/// same keys and the same values.
pub fn same_result(a: &Val<'_>, b: &Val<'_>) -> bool {
    fn items<'v>(v: &Val<'v>) -> Option<Vec<Val<'v>>> {
        match v {
            Val::Array(_) | Val::List(_) | Val::Words(_) | Val::Commands(_) => v.elements(),
            _ => None,
        }
    }
    fn map<'v>(v: &Val<'v>) -> Option<&'v serde_json::Map<String, Value>> {
        match v {
            Val::Object(m) => Some(m),
            Val::Command(c) => Some(c.to_map()),
            _ => None,
        }
    }
    match (a, b) {
        (Val::Error(_), Val::Error(_)) | (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Double(x), Val::Double(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (Val::Str(x), Val::Str(y)) => x == y,
        (x, y) if map(x).is_some() && map(y).is_some() => {
            let (Some(x), Some(y)) = (map(x), map(y)) else {
                return false;
            };
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.get(k)
                        .is_some_and(|w| same_result(&Val::from_json(v), &Val::from_json(w)))
                })
        }
        _ => match (items(a), items(b)) {
            (Some(x), Some(y)) => {
                x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same_result(p, q))
            }
            _ => false,
        },
    }
}

/// One evaluation's state.
struct Evaluator<'a> {
    paths: &'a PathTable,
    ctx: &'a Value,
    consts: &'a Constants<'a>,
    /// Macro variables in scope, outermost first (indexed by `Var::depth`).
    env: Vec<Val<'a>>,
    /// Macro body runs so far, over all macros of this evaluation.
    iterations: usize,
    /// Regexes compiled so far (`None`: does not compile).
    regexes: Vec<(&'a str, Option<hookc_runtime::verify::CompiledRegex>)>,
    /// Globs parsed so far (`None`: does not parse).
    globs: Vec<(&'a str, Option<Glob>)>,
    /// Patterns of function calls parsed so far (`None`: does not parse).
    patterns: Vec<(&'a str, Option<PolicyRegex>)>,
    /// What the functions derived.
    scratch: Scratch<'a>,
}

/// The entry of `key` in a small per-evaluation cache, made on first use.
fn cached<'c, 'a, T>(
    cache: &'c mut Vec<(&'a str, Option<T>)>,
    key: &'a str,
    make: impl FnOnce(&str) -> Option<T>,
) -> Option<&'c T> {
    let at = match cache.iter().position(|(k, _)| *k == key) {
        Some(at) => at,
        None => {
            cache.push((key, make(key)));
            cache.len() - 1
        }
    };
    cache.get(at).and_then(|(_, v)| v.as_ref())
}

impl<'a> Evaluator<'a> {
    fn eval(&mut self, e: &'a IrExpr) -> Val<'a> {
        match &e.kind {
            IrExprKind::Const(c) => self.constant(c),
            IrExprKind::List(items) => {
                // Every item is evaluated, then the first error (if any) is the result.
                let vals: Vec<Val<'a>> = items.iter().map(|i| self.eval(i)).collect();
                match vals.iter().find(|v| v.is_error()) {
                    Some(err) => err.clone(),
                    None => Val::List(vals),
                }
            }
            IrExprKind::Path(id) => self
                .paths
                .get(*id)
                .and_then(|p| context::resolve(self.ctx, p))
                .map_or(Val::Error(EvalError::NoSuchKey), Val::from_json),
            IrExprKind::Var { depth, .. } => self
                .env
                .get(*depth as usize)
                .cloned()
                .unwrap_or(Val::Error(EvalError::NoSuchKey)),
            // Its expression, with only its own macro variables.
            IrExprKind::Local { body, .. } => {
                let outer = std::mem::take(&mut self.env);
                let v = self.eval(body);
                self.env = outer;
                v
            }
            IrExprKind::Field(base, name) => value::field(&self.eval(base), name),
            IrExprKind::Index(base, index) => {
                let b = self.eval(base);
                let i = self.eval(index);
                value::index(&b, &i)
            }
            IrExprKind::HasPath(id) => Val::Bool(
                self.paths
                    .get(*id)
                    .and_then(|p| context::resolve(self.ctx, p))
                    .is_some(),
            ),
            IrExprKind::HasField(base, name) => Val::Bool(value::has_field(&self.eval(base), name)),
            IrExprKind::Unary(UnaryOp::Not, x) => value::not(&self.eval(x)),
            IrExprKind::Unary(UnaryOp::Neg, x) => value::negate(&self.eval(x)),
            IrExprKind::Binary { op, lhs, rhs, .. } => {
                let l = self.eval(lhs);
                let r = self.eval(rhs);
                binary(*op, l, r)
            }
            IrExprKind::And(a, b) => {
                let l = self.eval(a);
                if matches!(l, Val::Bool(false)) {
                    return l;
                }
                let r = self.eval(b);
                value::and(l, r)
            }
            IrExprKind::Or(a, b) => {
                let l = self.eval(a);
                if matches!(l, Val::Bool(true)) {
                    return l;
                }
                let r = self.eval(b);
                value::or(l, r)
            }
            IrExprKind::Cond(c, then, otherwise) => match self.eval(c) {
                Val::Bool(true) => self.eval(then),
                Val::Bool(false) => self.eval(otherwise),
                Val::Error(err) => Val::Error(err),
                _ => Val::Error(EvalError::NoSuchOverload),
            },
            IrExprKind::Call(func, args) => {
                let vals: Vec<Val<'a>> = args.iter().map(|a| self.eval(a)).collect();
                functions::call(*func, &vals, None, &mut self.scratch)
            }
            IrExprKind::PatternCall {
                func,
                args,
                pattern,
            } => {
                let vals: Vec<Val<'a>> = args.iter().map(|a| self.eval(a)).collect();
                match cached(&mut self.patterns, &pattern.pattern, |p| {
                    PolicyRegex::parse(p).ok()
                }) {
                    Some(re) => functions::call(*func, &vals, Some(re), &mut self.scratch),
                    None => Val::Error(EvalError::InvalidArgument),
                }
            }
            IrExprKind::Matches(x, re) => {
                let v = self.eval(x);
                // A glob is matched directly, not through its translation:
                // the differential tests then check the translation.
                let result = match &re.glob {
                    Some(g) => cached(&mut self.globs, g, |g| crate::check::glob::parse(g).ok())
                        .map(|g| value::pattern_test(&v, |s| g.is_match(s))),
                    None => cached(&mut self.regexes, &re.pattern, |p| {
                        hookc_runtime::verify::compile_regex(p).ok()
                    })
                    .map(|re| value::matches(&v, re)),
                };
                match result {
                    Some(r) => r,
                    None if v.is_error() => v,
                    None => Val::Error(EvalError::InvalidArgument),
                }
            }
            IrExprKind::Macro {
                kind, range, body, ..
            } => self.macro_fold(*kind, range, body),
            IrExprKind::TypeIs(x, kinds) => Val::Bool(value::type_is(&self.eval(x), *kinds)),
            IrExprKind::SchemaMatch { check, .. } => self.eval(check),
        }
    }

    fn constant(&self, c: &'a Const) -> Val<'a> {
        match c {
            Const::Null => Val::Null,
            Const::Bool(b) => Val::Bool(*b),
            Const::Int(i) => Val::Int(*i),
            Const::Double(d) => Val::Double(*d),
            Const::String(s) => Val::Str(Cow::Borrowed(s)),
            Const::List(items) => Val::List(items.iter().map(|i| self.constant(i)).collect()),
            Const::Object(_) => self
                .consts
                .get(c)
                .map_or(Val::Error(EvalError::InvalidArgument), Val::from_json),
        }
    }

    /// A list macro as CEL's fold: `exists` is `false || p(e1) || ...`
    /// stopping at the first `true`; `all` is `true && p(e1) && ...`
    /// stopping at the first `false`; `exists_one` counts `true`s and fails
    /// on the first error. A predicate value that is not a bool counts as an
    /// error. Each body run takes one unit of the evaluation's budget.
    fn macro_fold(&mut self, kind: MacroKind, range: &'a IrExpr, body: &'a IrExpr) -> Val<'a> {
        let r = self.eval(range);
        if let Val::Error(err) = r {
            return Val::Error(err);
        }
        let Some(n) = r.element_count() else {
            return Val::Error(EvalError::NoSuchOverload);
        };
        let mut acc = Val::Bool(kind == MacroKind::All);
        let mut trues = 0usize;
        let mut items = Vec::new();
        for i in 0..n {
            if self.iterations >= MAX_MACRO_ITERATIONS {
                return Val::Error(EvalError::IterationLimit);
            }
            self.iterations += 1;
            let Some(elem) = r.element(i) else {
                return Val::Error(EvalError::InvalidArgument);
            };
            self.env.push(elem);
            let v = self.eval(body);
            let elem = self.env.pop();
            let v = match (kind, v) {
                (MacroKind::Map | MacroKind::Filter, Val::Error(e)) => return Val::Error(e),
                (MacroKind::Map, v) => {
                    items.push(v);
                    continue;
                }
                (MacroKind::Filter, Val::Bool(true)) => {
                    items.extend(elem);
                    continue;
                }
                (MacroKind::Filter, Val::Bool(false)) => continue,
                (MacroKind::Filter, _) => return Val::Error(EvalError::NonBoolPredicate),
                (_, v) => v,
            };
            let v = match v {
                Val::Bool(_) | Val::Error(_) => v,
                _ => Val::Error(EvalError::NonBoolPredicate),
            };
            match kind {
                MacroKind::Exists => {
                    acc = value::or(acc, v);
                    if matches!(acc, Val::Bool(true)) {
                        return acc;
                    }
                }
                MacroKind::All => {
                    acc = value::and(acc, v);
                    if matches!(acc, Val::Bool(false)) {
                        return acc;
                    }
                }
                MacroKind::ExistsOne => match v {
                    Val::Bool(true) => trues += 1,
                    Val::Bool(false) => {}
                    err => return err,
                },
                // Decided above.
                MacroKind::Map | MacroKind::Filter => {}
            }
        }
        match kind {
            MacroKind::ExistsOne => Val::Bool(trues == 1),
            MacroKind::Map | MacroKind::Filter => Val::List(items),
            _ => acc,
        }
    }
}

/// An operator of [`IrExprKind::Binary`] on its two evaluated operands.
fn binary<'a>(op: BinaryOp, l: Val<'a>, r: Val<'a>) -> Val<'a> {
    match op {
        BinaryOp::Eq => value::equals(&l, &r),
        BinaryOp::Ne => value::not(&value::equals(&l, &r)),
        BinaryOp::Lt => value::compare(Order::Lt, &l, &r),
        BinaryOp::Le => value::compare(Order::Le, &l, &r),
        BinaryOp::Gt => value::compare(Order::Gt, &l, &r),
        BinaryOp::Ge => value::compare(Order::Ge, &l, &r),
        BinaryOp::In => value::contains_elem(&l, &r),
        BinaryOp::Add => value::arith(Arith::Add, &l, &r),
        BinaryOp::Sub => value::arith(Arith::Sub, &l, &r),
        BinaryOp::Mul => value::arith(Arith::Mul, &l, &r),
        BinaryOp::Div => value::arith(Arith::Div, &l, &r),
        BinaryOp::Rem => value::arith(Arith::Rem, &l, &r),
        // The IR uses `And`/`Or` nodes; a `Binary` of them is both sides known.
        BinaryOp::And => value::and(l, r),
        BinaryOp::Or => value::or(l, r),
        // The resolver rewrites `??`; were it here: `l` unless it is
        // `null` or an error.
        BinaryOp::Coalesce => {
            if l.is_error() || matches!(l, Val::Null) {
                r
            } else {
                l
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::resolve::ast_to_ir::Resolver;
    use crate::span::{FileId, Origin};
    use serde_json::json;

    fn run(text: &str, ctx: &Value) -> Option<Value> {
        let ast = crate::syntax::parse(
            text,
            Origin::Exact {
                file: FileId(0),
                base: 0,
            },
        )
        .unwrap();
        let mut paths = PathTable::new();
        let mut diags = Diagnostics::new();
        let ir = Resolver::new(&mut paths, &mut diags).resolve(&ast).unwrap();
        let consts = Constants::new(&ir);
        eval_with(&ir, &paths, ctx, &consts).to_json()
    }

    #[test]
    fn evaluates_operators_paths_and_errors() {
        let ctx = json!({"a": {"b": [1, 2, 3]}, "s": "héllo", "n": null});
        assert_eq!(run("a.b[1] + 1", &ctx), Some(json!(3)));
        assert_eq!(
            run("size(s) == 5 && s.startsWith('h')", &ctx),
            Some(json!(true))
        );
        assert_eq!(run("has(n) && !has(a.c)", &ctx), Some(json!(true)));
        assert_eq!(run("a.c", &ctx), None);
        assert_eq!(run("1 / 0 > 1 || true", &ctx), Some(json!(true)));
        assert_eq!(run("false && a.c", &ctx), Some(json!(false)));
        assert_eq!(run("a.c && false", &ctx), Some(json!(false)));
        assert_eq!(run("true ? 1 : 1 / 0", &ctx), Some(json!(1)));
        assert_eq!(run("'x' ? 1 : 2", &ctx), None);
        assert_eq!(run("s.matches('^h.l')", &ctx), Some(json!(true)));
        assert_eq!(run("[a.b[0], 2.5]", &ctx), Some(json!([1, 2.5])));
        assert_eq!(run("[a.c, 2]", &ctx), None);
    }

    #[test]
    fn macros_follow_cel_folds() {
        let ctx = json!({"l": [0, 1, 2], "o": {"x": 1, "y": 2}});
        assert_eq!(run("l.exists(e, 1 / e == 1)", &ctx), Some(json!(true)));
        assert_eq!(run("l.all(e, 1 / e == 1)", &ctx), Some(json!(false)));
        assert_eq!(run("l.all(e, 1 / e >= 0)", &ctx), None);
        assert_eq!(run("l.exists_one(e, e == 1)", &ctx), Some(json!(true)));
        assert_eq!(run("l.exists_one(e, e > 0)", &ctx), Some(json!(false)));
        assert_eq!(run("l.exists_one(e, 1 / e == 1)", &ctx), None);
        assert_eq!(run("l.exists(e, e)", &ctx), None);
        assert_eq!(run("o.all(k, k in ['x', 'y'])", &ctx), Some(json!(true)));
        assert_eq!(run("1.exists(e, true)", &ctx), None);
        // Nested: the inner variable shadows nothing, the outer stays visible.
        assert_eq!(
            run("l.exists(x, l.exists(y, x + y == 4 && x == y))", &ctx),
            Some(json!(true))
        );
        assert_eq!(
            run("l.all(x, l.exists(x, x == 2))", &ctx),
            Some(json!(true))
        );
    }

    #[test]
    fn the_iteration_budget_bounds_nested_macros() {
        let big: Vec<i64> = (0..1000).collect();
        let ctx = json!({ "l": big });
        // 1000 × 1000 body runs: past the budget.
        assert_eq!(run("l.all(x, l.all(y, true))", &ctx), None);
        assert_eq!(run("l.all(x, x >= 0)", &ctx), Some(json!(true)));
    }

    #[test]
    fn object_constants_come_from_the_constants() {
        let obj = Const::Object(vec![("k".into(), Const::Int(1))]);
        let span = crate::span::Span::new(FileId(0), 0, 0);
        let expr = IrExpr::new(
            IrExprKind::Binary {
                op: BinaryOp::Eq,
                op_span: span,
                lhs: Box::new(IrExpr::constant(obj.clone(), span)),
                rhs: Box::new(IrExpr::constant(
                    Const::Object(vec![("k".into(), Const::Double(1.0))]),
                    span,
                )),
            },
            span,
        );
        let paths = PathTable::new();
        let ctx = json!({});
        let consts = Constants::new(&expr);
        assert!(matches!(
            eval_with(&expr, &paths, &ctx, &consts),
            Val::Bool(true)
        ));
    }
}
