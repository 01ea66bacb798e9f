//! Which local names a code keeps (`docs/src/semantics.md#local-names`):
//! a name is lowered where it is used, and the first use that runs keeps
//! its value in a slot (`LocalStore`) that later uses read instead of
//! computing it again (`LocalLoad`). Only names worth it are kept: used
//! more than once in the code (a use inside a macro body counts as many,
//! since the body runs per element), and whose expression does work a
//! slot saves (a function call, a macro, a regex search, a list built at
//! run time). Any other name is its code written in place, as before,
//! which keeps the fused context leaves the fast paths read.
//!
//! Keeping is exact: a local's expression sees no macro variable of the
//! code that uses it, and nothing it reads changes while one code runs,
//! so every use computes the same value; an error is not kept, so each
//! use meets it where it is.

use crate::ir::{IrExpr, IrExprKind};
use crate::span::Span;
use hookc_runtime::functions::Lowering;
use hookc_runtime::limits::MAX_LOCAL_SLOTS;
use std::collections::HashMap;

/// The local names of one code (a hook's condition or a template
/// expression) and the slots of those it keeps.
#[derive(Debug, Default)]
pub(super) struct KeptLocals {
    /// Uses of each local (by the span of its expression) in the code, a
    /// use in a macro body counted twice.
    uses: HashMap<Span, u32>,
    /// The kept names: their expression as lowered, and their slot (its
    /// index). Two uses whose expressions differ (a rewrite reached one
    /// and not the other) get two slots.
    slots: Vec<(Span, IrExpr)>,
}

impl KeptLocals {
    /// The locals of code `e`, counted before it is lowered.
    pub(super) fn of(e: &IrExpr) -> KeptLocals {
        let mut uses: HashMap<Span, u32> = HashMap::new();
        let mut todo: Vec<(&IrExpr, u32)> = vec![(e, 1)];
        while let Some((e, weight)) = todo.pop() {
            use IrExprKind as K;
            match &e.kind {
                K::Const(_) | K::Path(_) | K::Var { .. } | K::HasPath(_) => {}
                K::Local { body, .. } => {
                    let n = uses.entry(body.span).or_default();
                    *n = n.saturating_add(weight);
                    todo.push((body, weight));
                }
                K::Macro { range, body, .. } => {
                    todo.push((range, weight));
                    todo.push((body, 2));
                }
                K::List(items) | K::Call(_, items) | K::PatternCall { args: items, .. } => {
                    todo.extend(items.iter().map(|i| (i, weight)));
                }
                K::Field(x, _)
                | K::HasField(x, _)
                | K::Unary(_, x)
                | K::Matches(x, _)
                | K::TypeIs(x, _)
                | K::SchemaMatch { check: x, .. } => todo.push((x, weight)),
                K::Index(a, b) | K::And(a, b) | K::Or(a, b) => {
                    todo.extend([(&**a, weight), (&**b, weight)]);
                }
                K::Binary { lhs, rhs, .. } => todo.extend([(&**lhs, weight), (&**rhs, weight)]),
                K::Cond(c, a, b) => todo.extend([(&**c, weight), (&**a, weight), (&**b, weight)]),
            }
        }
        KeptLocals {
            uses,
            slots: Vec::new(),
        }
    }

    /// The slot of the local whose expression is `body`, when this code
    /// keeps it; `None` to lower it in place.
    pub(super) fn slot(&mut self, body: &IrExpr) -> Option<u16> {
        if self.uses.get(&body.span).copied().unwrap_or(0) < 2 || !does_work(body) {
            return None;
        }
        if let Some(i) = self
            .slots
            .iter()
            .position(|(span, kept)| *span == body.span && kept.same_as(body))
        {
            return u16::try_from(i).ok();
        }
        if self.slots.len() >= MAX_LOCAL_SLOTS {
            return None;
        }
        let slot = u16::try_from(self.slots.len()).ok()?;
        self.slots.push((body.span, body.clone()));
        Some(slot)
    }
}

/// Whether `e` does work that keeping its value saves: a function that is
/// no plain instruction, a macro, a regex search, a list built at run time.
fn does_work(e: &IrExpr) -> bool {
    use IrExprKind as K;
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match &e.kind {
            K::Macro { .. } | K::PatternCall { .. } | K::Matches(..) => return true,
            K::Call(f, args) => {
                if !matches!(f.def().lowering, Lowering::Instruction(_)) {
                    return true;
                }
                todo.extend(args);
            }
            K::List(items) => {
                if items.iter().any(|i| !matches!(i.kind, K::Const(_))) {
                    return true;
                }
            }
            K::Const(_) | K::Path(_) | K::Var { .. } | K::HasPath(_) => {}
            K::Field(x, _)
            | K::HasField(x, _)
            | K::Unary(_, x)
            | K::TypeIs(x, _)
            | K::SchemaMatch { check: x, .. }
            | K::Local { body: x, .. } => todo.push(x),
            K::Index(a, b) | K::And(a, b) | K::Or(a, b) => todo.extend([&**a, &**b]),
            K::Binary { lhs, rhs, .. } => todo.extend([&**lhs, &**rhs]),
            K::Cond(c, a, b) => todo.extend([&**c, &**a, &**b]),
        }
    }
    false
}
