//! The shell-program prefilter: a rewrite of a hook's folded condition
//! (`docs/src/semantics.md#shell-commands`) that lets a guard hook skip
//! the walk over the commands of a string that runs no program it names.
//!
//! A conjunct of the condition's top-level `&&` chain of the form
//!
//! ```text
//! shell.commands(P).exists(c, c.program == 'X' && REST)      (or 'X' == c.program,
//!                                                             or c.program in ['X', ...])
//! ```
//!
//! with `P` a context path becomes `shell.runs(P, 'X') && <the same>`.
//! The body's first conjunct may also be `c.argvPrefix(['W', ...])` (a
//! constant list of strings), which holds only for a command whose program
//! is `W`'s last path component (`argv[0]` is `W`, or a path ending in
//! `/W`; the program is always `argv[0]` without its directory), or a
//! disjunction `A || B` of such tests, whose names are the union of theirs
//! (`false || false` is `false`).
//! `shell.runs` reads the evaluation's one parse of `P` and compares
//! program names: a handful of instructions instead of a macro over every
//! command, with a field lookup and a comparison each.
//!
//! Exact, for every context:
//! - `P` a string: its commands are objects whose `program` is a string, so
//!   each body is `false && REST`, which is `false` whatever `REST` is (CEL
//!   absorption), for every command whose program is not `X`. When no
//!   command runs `X`, `exists` is `false`, and so is `shell.runs`: the
//!   conjunction is `false` either way. When one does, `shell.runs` is
//!   `true`, and `true && e` is `e` for the `exists`'s bool or error.
//! - `P` not a string, or missing: `shell.runs(P, ..)` and
//!   `shell.commands(P)` give the same error (`no such overload`, `no such
//!   key`), and so does the `exists` over it; `error && error` is that
//!   error.
//! - The iteration budget (`MAX_MACRO_ITERATIONS`, shared by the macros of a
//!   hook) is left to later macros unchanged only if there are none: a
//!   conjunct is rewritten only when no conjunct after it holds a macro.
//!
//! `crates/hookc/tests/suite/functions.rs` checks the rewritten programs
//! against the reference evaluator, which evaluates the condition as
//! written, on random guards and commands.

use super::fold::has_macro;
use crate::ir::{BinaryOp, Builtin, Const, IrExpr, IrExprKind, MacroKind};

/// `cond` with each qualifying conjunct of its top-level `&&` chain
/// prefixed by its `shell.runs` test (see the module docs).
pub(super) fn shell_programs(cond: IrExpr) -> IrExpr {
    // The chain is left-folded: `((c1 && c2) && c3) && c4`. Walk the left
    // spine iteratively (chains can be long), conjuncts last first.
    let mut rights: Vec<(IrExpr, crate::span::Span)> = Vec::new();
    let mut cur = cond;
    loop {
        match cur.kind {
            IrExprKind::And(a, b) => {
                rights.push((*b, cur.span));
                cur = *a;
            }
            kind => {
                cur = IrExpr::new(kind, cur.span);
                break;
            }
        }
    }
    // `rights` holds c_n .. c_2; `cur` is c_1.
    let mut macro_after = false;
    let mut rewritten: Vec<(IrExpr, crate::span::Span)> = Vec::with_capacity(rights.len());
    for (conjunct, span) in rights {
        let has = has_macro(&conjunct);
        let conjunct = if macro_after {
            conjunct
        } else {
            with_prefilter(conjunct)
        };
        macro_after |= has;
        rewritten.push((conjunct, span));
    }
    let mut out = if macro_after {
        cur
    } else {
        with_prefilter(cur)
    };
    for (conjunct, span) in rewritten.into_iter().rev() {
        out = IrExpr::new(IrExprKind::And(Box::new(out), Box::new(conjunct)), span);
    }
    out
}

/// `shell.runs(P, names) && e` when `e` qualifies, else `e`.
fn with_prefilter(e: IrExpr) -> IrExpr {
    let Some(test) = prefilter(&e) else {
        return e;
    };
    let span = e.span;
    IrExpr::new(IrExprKind::And(Box::new(test), Box::new(e)), span)
}

/// The `shell.runs(P, names)` test of a qualifying macro.
fn prefilter(e: &IrExpr) -> Option<IrExpr> {
    // A local name is its expression.
    let e = match &e.kind {
        IrExprKind::Local { body, .. } => body,
        _ => e,
    };
    let IrExprKind::Macro {
        kind: MacroKind::Exists,
        range,
        var,
        body,
    } = &e.kind
    else {
        return None;
    };
    let IrExprKind::Call(Builtin::ShellCommands, args) = &range.kind else {
        return None;
    };
    let [arg] = args.as_slice() else {
        return None;
    };
    if !matches!(arg.kind, IrExprKind::Path(_)) {
        return None;
    }
    let names = program_names(first_conjunct(body), var)?;
    Some(IrExpr::new(
        IrExprKind::Call(
            Builtin::ShellRuns,
            vec![arg.clone(), IrExpr::constant(names, e.span)],
        ),
        e.span,
    ))
}

/// The leftmost operand of a `&&` chain.
fn first_conjunct(mut e: &IrExpr) -> &IrExpr {
    while let IrExprKind::And(a, _) = &e.kind {
        e = a;
    }
    e
}

/// The names `e` tests the program against: `var.program == 'X'` (either
/// side) gives `'X'`, `var.program in ['X', 'Y']` the list of strings,
/// `var.argvPrefix(['W', ...])` the program `W` names, and `A || B` the
/// names of both (each side's first conjunct).
fn program_names(e: &IrExpr, var: &str) -> Option<Const> {
    let is_var = |x: &IrExpr| matches!(&x.kind, IrExprKind::Var { name, .. } if name == var);
    match &e.kind {
        IrExprKind::Or(a, b) => {
            let mut names = Vec::new();
            for side in [a, b] {
                match program_names(first_conjunct(side), var)? {
                    Const::List(items) => names.extend(items),
                    one => names.push(one),
                }
            }
            return Some(Const::List(names));
        }
        IrExprKind::Call(Builtin::ArgvPrefix, args) => {
            let [receiver, words] = args.as_slice() else {
                return None;
            };
            let IrExprKind::Const(Const::List(words)) = &words.kind else {
                return None;
            };
            if !is_var(receiver) || !words.iter().all(|w| matches!(w, Const::String(_))) {
                return None;
            }
            return match words.first() {
                Some(Const::String(first)) => Some(Const::String(
                    hookc_runtime::functions::shell::program_name(first).to_owned(),
                )),
                _ => None,
            };
        }
        _ => {}
    }
    let IrExprKind::Binary { op, lhs, rhs, .. } = &e.kind else {
        return None;
    };
    let is_program = |x: &IrExpr| matches!(&x.kind, IrExprKind::Field(base, field) if field == "program" && is_var(base));
    match (op, &lhs.kind, &rhs.kind) {
        (BinaryOp::Eq, _, IrExprKind::Const(c @ Const::String(_))) if is_program(lhs) => {
            Some(c.clone())
        }
        (BinaryOp::Eq, IrExprKind::Const(c @ Const::String(_)), _) if is_program(rhs) => {
            Some(c.clone())
        }
        (BinaryOp::In, _, IrExprKind::Const(c @ Const::List(items)))
            if is_program(lhs) && items.iter().all(|i| matches!(i, Const::String(_))) =>
        {
            Some(c.clone())
        }
        _ => None,
    }
}
