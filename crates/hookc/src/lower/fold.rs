//! Constant folding: [`fold`] rewrites the checked IR bottom-up before
//! emission. Each rule is exact: the folded expression gives the same value
//! (errors included) for every context. The rules:
//!
//! 1. Closed operations: an operation whose operands all folded to constants
//!    is computed with the VM's own functions (`vm::unary`, `vm::binary`,
//!    `value::*`), and replaced by the result only when that is a non-error
//!    value with every double finite. Errors (`1 / 0`) and non-finite results
//!    (`0.0 / 0.0`, `1.0 / 0.0`) stay as code, so they keep their CEL
//!    behaviour (absorption by `&&`/`||`, error sites in explain output).
//! 2. A list literal of constants is a constant list.
//! 3. `false && x` → `false`, `true || x` → `true` (the VM would not evaluate
//!    `x` either).
//! 4. `x && false` → `false`, `x || true` → `true`: CEL's commutative
//!    absorption decides whatever `x` is (error, non-bool). Only when `x` holds
//!    no macro: dropping a macro would change the per-hook iteration budget
//!    left to the macros after it.
//! 5. `true && x` → `x`, `x && true` → `x`, `false || x` → `x`,
//!    `x || false` → `x`: only when `x` always yields a bool or an error
//!    (`bool_or_error`), because `true && 'a'` is an error, not `'a'`.
//! 6. `true ? a : b` → `a`, `false ? a : b` → `b` (the untaken branch is
//!    never evaluated). A non-bool constant condition stays (an error).
//! 7. `!!x` → `x` when `x` always yields a bool or an error.
//! 8. A macro over a constant empty list: `exists`/`exists_one` → `false`,
//!    `all` → `true` (the body never runs).
//! 9. A `matches` schema leaf is its compiled check.
//!
//! Not folded: `true && x` for a non-bool `x` (CEL: error), anything reading
//! a path or a macro variable, and dead hooks (a hook whose condition folds to
//! `false` stays, so explain output still lists it; one that folds to `true`
//! gets the empty code range, which means exactly "always matches").

use super::parts::{arith_op, cmp_op, drop_chains, exact, left_spine, logic_parts};
use crate::ir::{BinaryOp, Builtin, Const, IrExpr, IrExprKind, MacroKind, UnaryOp};
use crate::span::Span;
use hookc_runtime::bytecode::Op;
use hookc_runtime::functions::{self, Derived, Scratch};
use hookc_runtime::internals::value::{self, PolicyRegex, Val};
use serde_json::Value;

/// The instruction computing `a OP b` for an operator other than `&&`/`||`.
fn binary_instr(op: BinaryOp) -> Option<Op> {
    match op {
        BinaryOp::In => Some(Op::In),
        other => cmp_op(other).map(Op::Cmp).or_else(|| arith_op(other)),
    }
}

/// Folds constant sub-expressions (see the rules above).
pub(super) fn fold(e: &IrExpr) -> IrExpr {
    Folder { seen: None }.fold(e)
}

/// An operand of `&&` or `||` that folds to a bool constant, as
/// [`constant_operands`] finds it (for lint W0014).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ConstantOperand<'e> {
    /// The operand, as written (before folding).
    pub operand: &'e IrExpr,
    /// Its value.
    pub value: bool,
    /// An operand of `&&` (else of `||`).
    pub and: bool,
    /// The left operand (else the right).
    pub left: bool,
    /// The whole chain of `&&` (or `||`) it is an operand of.
    pub chain: &'e IrExpr,
}

/// Every operand of `&&` and `||` in `e` that folds to a bool constant, in
/// one fold of `e` (linear in its size), inner operations first. An operand
/// that is itself an `&&` or `||` is not listed: its own constant operand
/// made it constant, and is listed. Code that folding skips (the untaken
/// branch of a constant `?:`, the body of a macro over `[]`) is not looked
/// at.
pub(crate) fn constant_operands(e: &IrExpr) -> Vec<ConstantOperand<'_>> {
    let mut seen = Vec::new();
    Folder {
        seen: Some(&mut seen),
    }
    .fold(e);
    seen
}

/// One fold; `seen` collects [`ConstantOperand`]s when given.
struct Folder<'s, 'e> {
    seen: Option<&'s mut Vec<ConstantOperand<'e>>>,
}

impl<'e> Folder<'_, 'e> {
    /// Folds constant sub-expressions (see the rules above).
    fn fold(&mut self, e: &'e IrExpr) -> IrExpr {
        use IrExprKind as K;
        let span = e.span;
        let konst = |c: Const| IrExpr::new(K::Const(c), span);
        match &e.kind {
            K::Const(_) | K::Path(_) | K::Var { .. } | K::HasPath(_) => e.clone(),
            // A constant local is its constant; otherwise it stays a local,
            // its expression folded.
            K::Local { name, body } => {
                let body = self.fold(body);
                if let K::Const(c) = &body.kind {
                    return konst(c.clone());
                }
                IrExpr::new(
                    K::Local {
                        name: name.clone(),
                        body: Box::new(body),
                    },
                    span,
                )
            }
            K::List(items) => {
                let items: Vec<IrExpr> = items.iter().map(|i| self.fold(i)).collect();
                let consts: Option<Vec<Const>> = items
                    .iter()
                    .map(|i| match &i.kind {
                        K::Const(c) => Some(c.clone()),
                        _ => None,
                    })
                    .collect();
                match consts {
                    Some(c) => konst(Const::List(c)),
                    None => IrExpr::new(K::List(items), span),
                }
            }
            K::Field(base, name) => {
                let base = self.fold(base);
                if let Some(r) = as_const(&base).and_then(|b| eval1(b, &|v| value::field(v, name)))
                {
                    return konst(r);
                }
                IrExpr::new(K::Field(Box::new(base), name.clone()), span)
            }
            K::HasField(base, name) => {
                let base = self.fold(base);
                if let Some(r) = as_const(&base)
                    .and_then(|b| eval1(b, &|v| Val::Bool(value::has_field(v, name))))
                {
                    return konst(r);
                }
                IrExpr::new(K::HasField(Box::new(base), name.clone()), span)
            }
            K::Index(base, index) => {
                let (base, index) = (self.fold(base), self.fold(index));
                if let (Some(b), Some(i)) = (as_const(&base), as_const(&index)) {
                    if let Some(r) = eval2(b, i, &|x, y| value::index(x, y)) {
                        return konst(r);
                    }
                }
                IrExpr::new(K::Index(Box::new(base), Box::new(index)), span)
            }
            K::Unary(op, operand) => {
                let operand = self.fold(operand);
                let instr = match op {
                    UnaryOp::Not => Op::Not,
                    UnaryOp::Neg => Op::Neg,
                };
                if let Some(r) = as_const(&operand).and_then(|c| {
                    eval1(c, &|v| {
                        hookc_runtime::internals::vm::unary(&instr, v).unwrap_or(invalid())
                    })
                }) {
                    return konst(r);
                }
                if *op == UnaryOp::Not {
                    if let K::Unary(UnaryOp::Not, inner) = &operand.kind {
                        if bool_or_error(inner) {
                            return (**inner).clone();
                        }
                    }
                }
                IrExpr::new(K::Unary(*op, Box::new(operand)), span)
            }
            K::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                if matches!(op, BinaryOp::And | BinaryOp::Or) {
                    return self.fold_chain(e);
                }
                let (lhs, rhs) = (self.fold(lhs), self.fold(rhs));
                if let (Some(a), Some(b), Some(instr)) =
                    (as_const(&lhs), as_const(&rhs), binary_instr(*op))
                {
                    if let Some(r) = eval2(a, b, &|x, y| {
                        hookc_runtime::internals::vm::binary(&instr, x, y).unwrap_or(invalid())
                    }) {
                        return konst(r);
                    }
                }
                IrExpr::new(
                    K::Binary {
                        op: *op,
                        op_span: *op_span,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    },
                    span,
                )
            }
            K::And(..) | K::Or(..) => self.fold_chain(e),
            K::Cond(c, a, b) => {
                let c = self.fold(c);
                match c.kind {
                    K::Const(Const::Bool(true)) => self.fold(a),
                    K::Const(Const::Bool(false)) => self.fold(b),
                    _ => IrExpr::new(
                        K::Cond(Box::new(c), Box::new(self.fold(a)), Box::new(self.fold(b))),
                        span,
                    ),
                }
            }
            K::Call(f, args) => {
                let args: Vec<IrExpr> = args.iter().map(|i| self.fold(i)).collect();
                match call(*f, &args, None) {
                    Some(r) => konst(r),
                    None => IrExpr::new(K::Call(*f, args), span),
                }
            }
            K::PatternCall {
                func,
                args,
                pattern,
            } => {
                let args: Vec<IrExpr> = args.iter().map(|i| self.fold(i)).collect();
                let re = PolicyRegex::parse(&pattern.pattern).ok();
                match re.and_then(|re| call(*func, &args, Some(&re))) {
                    Some(r) => konst(r),
                    None => IrExpr::new(
                        K::PatternCall {
                            func: *func,
                            args,
                            pattern: pattern.clone(),
                        },
                        span,
                    ),
                }
            }
            K::Matches(recv, re) => {
                let recv = self.fold(recv);
                if let Some(c) = as_const(&recv) {
                    if let Ok(compiled) = hookc_runtime::verify::compile_regex(&re.pattern) {
                        if let Some(r) = eval1(c, &|v| value::matches(v, &compiled)) {
                            return konst(r);
                        }
                    }
                }
                IrExpr::new(K::Matches(Box::new(recv), re.clone()), span)
            }
            K::Macro {
                kind,
                range,
                var,
                body,
            } => {
                let range = self.fold(range);
                if let K::Const(Const::List(items)) = &range.kind {
                    if items.is_empty() {
                        return konst(match kind {
                            MacroKind::Map | MacroKind::Filter => Const::List(Vec::new()),
                            other => Const::Bool(*other == MacroKind::All),
                        });
                    }
                }
                IrExpr::new(
                    K::Macro {
                        kind: *kind,
                        range: Box::new(range),
                        var: var.clone(),
                        body: Box::new(self.fold(body)),
                    },
                    span,
                )
            }
            K::TypeIs(operand, kinds) => {
                let operand = self.fold(operand);
                let instr = Op::TypeIs(kinds.bits());
                if let Some(r) = as_const(&operand).and_then(|c| {
                    eval1(c, &|v| {
                        hookc_runtime::internals::vm::unary(&instr, v).unwrap_or(invalid())
                    })
                }) {
                    return konst(r);
                }
                IrExpr::new(K::TypeIs(Box::new(operand), *kinds), span)
            }
            K::SchemaMatch { check, .. } => self.fold(check),
        }
    }

    /// A chain of `&&` (or of `||`), folded node by node from the bottom of its
    /// left spine up, in a loop (see [`Lowerer::logic_chain`] for why).
    fn fold_chain(&mut self, e: &'e IrExpr) -> IrExpr {
        let Some((_, _, and)) = logic_parts(e) else {
            return self.fold(e);
        };
        let (leaf, rights) = left_spine(e, and);
        let mut acc = self.fold(leaf);
        // The left operand as written, until it is the chain folded so far.
        let mut left = Some(leaf);
        for (b, span) in rights.into_iter().rev() {
            let folded = self.fold(b);
            self.observe(left.take(), &acc, and, true, e);
            self.observe(Some(b), &folded, and, false, e);
            acc = self.fold_logic(span, acc, folded, !and);
        }
        acc
    }

    /// Notes an operand of `&&` (`and`) or `||` of the chain at `chain`
    /// that folded to a bool, unless it is itself an `&&` or `||` (its own
    /// operand was noted) or the chain folded so far (`written` is `None`).
    fn observe(
        &mut self,
        written: Option<&'e IrExpr>,
        folded: &IrExpr,
        and: bool,
        left: bool,
        chain: &'e IrExpr,
    ) {
        let (Some(seen), Some(written)) = (self.seen.as_deref_mut(), written) else {
            return;
        };
        if let (IrExprKind::Const(Const::Bool(value)), false) =
            (&folded.kind, logic_parts(written).is_some())
        {
            seen.push(ConstantOperand {
                operand: written,
                value: *value,
                and,
                left,
                chain,
            });
        }
    }

    /// `a && b` (`decider` false) or `a || b` (`decider` true) of folded
    /// operands: rules 1 and 3–5.
    fn fold_logic(&mut self, span: Span, a: IrExpr, b: IrExpr, decider: bool) -> IrExpr {
        use IrExprKind as K;
        let is = |x: &IrExpr, v: bool| matches!(x.kind, K::Const(Const::Bool(y)) if y == v);
        let decided = IrExpr::new(K::Const(Const::Bool(decider)), span);
        if is(&a, decider) || (is(&b, decider) && !has_macro(&a)) {
            // `a` may be a long chain: no recursive drop.
            drop_chains(a);
            drop_chains(b);
            return decided;
        }
        if let (Some(x), Some(y)) = (as_const(&a), as_const(&b)) {
            let r = if decider {
                eval2(x, y, &|p, q| value::or(p.clone(), q.clone()))
            } else {
                eval2(x, y, &|p, q| value::and(p.clone(), q.clone()))
            };
            if let Some(r) = r {
                return IrExpr::new(K::Const(r), span);
            }
        }
        if is(&a, !decider) && bool_or_error(&b) {
            return b;
        }
        if is(&b, !decider) && bool_or_error(&a) {
            return a;
        }
        let kind = if decider {
            K::Or(Box::new(a), Box::new(b))
        } else {
            K::And(Box::new(a), Box::new(b))
        };
        IrExpr::new(kind, span)
    }
}

fn invalid<'a>() -> Val<'a> {
    Val::Error(value::EvalError::InvalidArgument)
}

fn as_const(e: &IrExpr) -> Option<&Const> {
    match &e.kind {
        IrExprKind::Const(c) => Some(c),
        _ => None,
    }
}

/// A builtin on constant arguments, through the function table's own
/// implementation, when every argument is a constant and so is the result
/// (rule 1).
fn call(f: Builtin, args: &[IrExpr], pattern: Option<&PolicyRegex>) -> Option<Const> {
    let consts: Vec<&Const> = args.iter().map(as_const).collect::<Option<_>>()?;
    if !consts.iter().all(|c| exact(c)) {
        return None;
    }
    let json: Vec<Value> = consts.iter().map(|c| c.to_json()).collect();
    let vals: Vec<Val<'_>> = json.iter().map(Val::from_json).collect();
    let derived = Derived::new();
    let mut scratch = Scratch::new(&derived);
    to_const(&functions::call(f, &vals, pattern, &mut scratch))
}

/// `f(c)` on a constant, when the result is a constant (rule 1).
fn eval1(c: &Const, f: &dyn for<'v> Fn(&Val<'v>) -> Val<'v>) -> Option<Const> {
    if !exact(c) {
        return None;
    }
    let j = c.to_json();
    to_const(&f(&Val::from_json(&j)))
}

/// `f(a, b)` on constants, when the result is a constant (rule 1).
fn eval2(a: &Const, b: &Const, f: &dyn for<'v> Fn(&Val<'v>, &Val<'v>) -> Val<'v>) -> Option<Const> {
    if !exact(a) || !exact(b) {
        return None;
    }
    let (ja, jb) = (a.to_json(), b.to_json());
    to_const(&f(&Val::from_json(&ja), &Val::from_json(&jb)))
}

/// A runtime value as a constant: `None` for errors and non-finite doubles.
fn to_const(v: &Val<'_>) -> Option<Const> {
    let c = match v {
        Val::Null => Const::Null,
        Val::Bool(b) => Const::Bool(*b),
        Val::Int(i) => Const::Int(*i),
        Val::Double(d) if d.is_finite() => Const::Double(*d),
        Val::Double(_) | Val::Error(_) => return None,
        Val::Str(s) => Const::String(s.to_string()),
        Val::Array(items) => Const::List(items.iter().map(Const::from_json).collect()),
        Val::List(items) => Const::List(items.iter().map(to_const).collect::<Option<_>>()?),
        Val::Object(m) => Const::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), Const::from_json(v)))
                .collect(),
        ),
        // A parse is derived at run time, never folded (no store here).
        Val::Command(_) | Val::Commands(_) | Val::Words(_) => return None,
    };
    exact(&c).then_some(c)
}

/// Whether `e` always yields a bool or an error value, whatever the context
/// (rules 5 and 7). Each case is a [`value`] function (or VM behaviour) that
/// returns only `Bool` or `Error`.
fn bool_or_error(e: &IrExpr) -> bool {
    use IrExprKind as K;
    match &e.kind {
        K::Const(Const::Bool(_)) => true,
        K::HasPath(_) | K::HasField(..) | K::TypeIs(..) | K::Matches(..) | K::Macro { .. } => true,
        K::And(..) | K::Or(..) | K::Unary(UnaryOp::Not, _) => true,
        K::Binary { op, .. } => !matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
        ),
        K::Call(f, _) | K::PatternCall { func: f, .. } => {
            f.def().result == hookc_runtime::bytecode::Kinds::BOOL
        }
        K::Cond(_, a, b) => bool_or_error(a) && bool_or_error(b),
        K::SchemaMatch { check, .. } | K::Local { body: check, .. } => bool_or_error(check),
        _ => false,
    }
}

/// Whether a macro occurs in `e` (rule 4). A worklist, not recursion: `e`
/// may be a long chain.
pub(super) fn has_macro(e: &IrExpr) -> bool {
    use IrExprKind as K;
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match &e.kind {
            K::Macro { .. } => return true,
            K::Const(_) | K::Path(_) | K::Var { .. } | K::HasPath(_) => {}
            K::List(items) | K::Call(_, items) | K::PatternCall { args: items, .. } => {
                todo.extend(items)
            }
            K::Field(x, _)
            | K::HasField(x, _)
            | K::Unary(_, x)
            | K::Matches(x, _)
            | K::TypeIs(x, _)
            | K::Local { body: x, .. } => todo.push(x),
            K::Index(a, b) | K::And(a, b) | K::Or(a, b) => todo.extend([&**a, &**b]),
            K::Binary { lhs, rhs, .. } => todo.extend([&**lhs, &**rhs]),
            K::Cond(c, a, b) => todo.extend([&**c, &**a, &**b]),
            K::SchemaMatch { check, .. } => todo.push(check),
        }
    }
    false
}
