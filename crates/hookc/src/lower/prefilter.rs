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
//! The body's first conjunct may also be `c.argvPrefix(['W'])` (a
//! constant list of one string), which holds only for a command whose
//! program is `W`'s last path component (`argv[0]` is `W`, or a path ending
//! in `/W`; the program is always `argv[0]` without its directory), or a
//! disjunction `A || B` of such tests, whose names are the union of theirs
//! (`false || false` is `false`). A constant prefix of two words or more
//! (`c.argvPrefix(['git', 'push'])`, a subcommand rule) gives
//! `shell.runsPrefix(P, [['git', 'push']])` instead, and a disjunction of
//! prefixes the list of them: `shell.runsPrefix` runs the same
//! `argv_prefix` on the same words for each command, so it is `true`
//! exactly where some body's first conjunct is. A disjunction of a prefix
//! and a program test takes the prefix's program name, as above.
//! `shell.runs` and `shell.runsPrefix` read the evaluation's one parse of
//! `P` and compare program names or words: a handful of instructions
//! instead of a macro over every command, with a field lookup and a
//! comparison each.
//!
//! Exact, for every context:
//! - `P` a string: its commands are objects whose `program` is a string
//!   and whose `argv` a list of strings, so each body is `false && REST`,
//!   which is `false` whatever `REST` is (CEL absorption), for every
//!   command whose program is not `X` (whose argv does not begin with the
//!   prefix). When no command runs `X`, `exists` is `false`, and so is
//!   `shell.runs`: the conjunction is `false` either way. When one does,
//!   `shell.runs` is `true`, and `true && e` is `e` for the `exists`'s bool
//!   or error. The same holds of `shell.runsPrefix`.
//! - `P` not a string, or missing: `shell.runs(P, ..)`, `shell.runsPrefix(P, ..)` and
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
/// prefixed by its `shell.runs` or `shell.runsPrefix` test (see the module
/// docs).
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

/// `shell.runs(P, names) && e` (or `shell.runsPrefix`) when `e` qualifies,
/// else `e`.
fn with_prefilter(e: IrExpr) -> IrExpr {
    let Some(test) = prefilter(&e) else {
        return e;
    };
    let span = e.span;
    IrExpr::new(IrExprKind::And(Box::new(test), Box::new(e)), span)
}

/// The `shell.runs(P, names)` or `shell.runsPrefix(P, prefixes)` test of
/// a qualifying macro.
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
    let (test, wanted) = match runs(first_conjunct(body), var)? {
        Runs::Names(mut names) if names.len() == 1 => {
            (Builtin::ShellRuns, names.pop().unwrap_or(Const::Null))
        }
        Runs::Names(names) => (Builtin::ShellRuns, Const::List(names)),
        Runs::Prefixes(prefixes) => (
            Builtin::ShellRunsPrefix,
            Const::List(prefixes.into_iter().map(Const::List).collect()),
        ),
    };
    Some(IrExpr::new(
        IrExprKind::Call(test, vec![arg.clone(), IrExpr::constant(wanted, e.span)]),
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

/// What a test of the macro's variable requires of a command.
enum Runs {
    /// A program among these names (strings).
    Names(Vec<Const>),
    /// An argv beginning with one of these prefixes (each two or more
    /// strings: `c.argvPrefix` of one word is a program test).
    Prefixes(Vec<Vec<Const>>),
}

impl Runs {
    /// The programs these tests require: a prefix's, the program its
    /// first word names.
    fn into_names(self) -> Vec<Const> {
        match self {
            Runs::Names(names) => names,
            Runs::Prefixes(prefixes) => prefixes
                .into_iter()
                .filter_map(|words| match words.first() {
                    Some(Const::String(first)) => Some(Const::String(
                        hookc_runtime::functions::shell::program_name(first).to_owned(),
                    )),
                    _ => None,
                })
                .collect(),
        }
    }
}

/// What `e` requires of a command: `var.program == 'X'` (either side) the
/// name `'X'`, `var.program in ['X', 'Y']` the list's names,
/// `var.argvPrefix(['W'])` the program `W` names, `var.argvPrefix(['W',
/// 'V', ...])` that prefix, and `A || B` either side's (each side's first
/// conjunct): names, or prefixes when both sides have only prefixes.
fn runs(e: &IrExpr, var: &str) -> Option<Runs> {
    let is_var = |x: &IrExpr| matches!(&x.kind, IrExprKind::Var { name, .. } if name == var);
    match &e.kind {
        IrExprKind::Or(a, b) => {
            let (a, b) = (runs(first_conjunct(a), var)?, runs(first_conjunct(b), var)?);
            return Some(match (a, b) {
                (Runs::Prefixes(mut a), Runs::Prefixes(b)) => {
                    a.extend(b);
                    Runs::Prefixes(a)
                }
                (a, b) => {
                    let mut names = a.into_names();
                    names.extend(b.into_names());
                    Runs::Names(names)
                }
            });
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
            return match words.as_slice() {
                [] => None,
                [_] => Some(Runs::Names(
                    Runs::Prefixes(vec![words.clone()]).into_names(),
                )),
                _ => Some(Runs::Prefixes(vec![words.clone()])),
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
            Some(Runs::Names(vec![c.clone()]))
        }
        (BinaryOp::Eq, IrExprKind::Const(c @ Const::String(_)), _) if is_program(rhs) => {
            Some(Runs::Names(vec![c.clone()]))
        }
        (BinaryOp::In, _, IrExprKind::Const(Const::List(items)))
            if is_program(lhs) && items.iter().all(|i| matches!(i, Const::String(_))) =>
        {
            Some(Runs::Names(items.clone()))
        }
        _ => None,
    }
}
