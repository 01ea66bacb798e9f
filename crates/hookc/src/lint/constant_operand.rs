//! W0014: an operand of `&&` or `||` that is a constant: a literal
//! (`x && false`) or what folds to one (`x || 1 == 1`). A constant that
//! decides its operation (`&& false`, `|| true`, and `false && x`,
//! `true || x` on the left) makes the whole chain constant; one that does
//! not (`&& true`, `|| false`) has no effect.
//!
//! Constness is the constant folding's own
//! ([`crate::lower::fold::constant_operands`]): one fold of each condition,
//! bottom-up, linear in its size, and exactly what lowering will fold.
//! Operands in macro bodies and in `?:` branches count; code the fold skips
//! (the untaken branch of a constant `?:`) does not.
//!
//! W0005 (a condition always true or always false) says the same thing in
//! other words when a deciding operand makes the whole condition constant
//! (its chain is the whole condition: "`&& false` makes this condition
//! always false"): W0005 is then not reported for the hook, as W0014
//! points at the cause. Everywhere else both are reported, as they say
//! different things: a deciding operand of an inner chain
//! (`a || (b && false)`) or one with no effect leaves the hook's W0005,
//! if any, another cause.
//!
//! Only `when` conditions are linted (as W0011): a condition tree has no
//! literal `true` or `false` to write.

use super::report::HookOrigin;
use crate::check::policy::CheckedPolicy;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Const, IrExpr, IrExprKind};
use crate::lower::fold::{constant_operands, ConstantOperand};
use hookc_runtime::bytecode::path::PathTable;
use std::collections::HashSet;

/// Longest operand or chain shown in a message, in characters.
const MAX_SHOWN: usize = 48;

/// Reports W0014 for the enabled hooks whose condition is a `when`; returns
/// the hooks (by index in [`CheckedPolicy::hooks`]) whose whole condition
/// a deciding constant operand makes constant, whose W0005 is not reported.
pub fn report(
    policy: &CheckedPolicy,
    origins: &[HookOrigin],
    diags: &mut Diagnostics,
) -> HashSet<usize> {
    let mut decided = HashSet::new();
    let paths = policy.paths();
    for (i, hook) in policy.hooks().iter().enumerate() {
        let origin = origins.get(hook.source_order);
        let (Some(condition), Some(origin), true) = (&hook.condition, origin, hook.enabled) else {
            continue;
        };
        if origin.condition_key != "when" {
            continue;
        }
        for found in constant_operands(condition) {
            let deciding = found.value != found.and;
            if deciding && std::ptr::eq(found.chain, condition) {
                decided.insert(i);
            }
            let mut d = finding(&found, paths, condition);
            if let Some(at) = &origin.node_path {
                d = d.node(format!("{at}.when"));
            }
            diags.push(d);
        }
    }
    decided
}

/// Short source text of a node.
fn shown(e: &IrExpr, paths: &PathTable) -> String {
    let text = e.to_source(paths).unwrap_or_default();
    if text.chars().count() > MAX_SHOWN {
        let cut: String = text.chars().take(MAX_SHOWN - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// The warning for one constant operand of a condition at `whole`.
fn finding(found: &ConstantOperand<'_>, paths: &PathTable, whole: &IrExpr) -> Diagnostic {
    let op = if found.and { "&&" } else { "||" };
    let text = shown(found.operand, paths);
    let with_op = if found.left {
        format!("{text} {op}")
    } else {
        format!("{op} {text}")
    };
    let v = found.value;
    // `true`/`false` say their value; a folded operand is told.
    let folded = match &found.operand.kind {
        IrExprKind::Const(Const::Bool(_)) => String::new(),
        _ => format!(" (`{text}` is always {v})"),
    };
    let deciding = v != found.and;
    let d = if deciding {
        // The chain is the whole condition or a part of it.
        let what = if std::ptr::eq(found.chain, whole) {
            "this condition".to_owned()
        } else {
            format!("`{}`", shown(found.chain, paths))
        };
        Diagnostic::new(
            Code::ConstantOperand,
            format!("`{with_op}` makes {what} always {v}{folded}"),
        )
        .help(if v {
            "remove it: a hook without a condition already matches always"
        } else {
            "remove it: to turn a hook off, disable it (`enabled: false`)"
        })
    } else {
        Diagnostic::new(
            Code::ConstantOperand,
            format!("`{with_op}` has no effect{folded}: remove it"),
        )
    };
    d.at(found.operand.span).label(format!("always {v}"))
}

#[cfg(test)]
mod tests {
    use crate::compile::{compile, Input};
    use crate::diag::Code;

    /// The W0014 and W0005 messages for a policy with one hook `h` on
    /// `when`.
    fn lints(when: &str) -> Vec<(Code, String)> {
        let yaml = format!(
            "hooks:\n  - id: h\n    event: error\n    when: \"{when}\"\n    action: {{type: abort}}\n"
        );
        compile(&[Input::new("t.yaml", &yaml)])
            .diagnostics
            .into_vec()
            .into_iter()
            .filter(|d| matches!(d.code, Code::ConstantOperand | Code::ConstantCondition))
            .map(|d| (d.code, d.message))
            .collect()
    }

    #[test]
    fn a_deciding_false_replaces_w0005() {
        assert_eq!(
            lints("error.code == 'a' && false"),
            vec![(
                Code::ConstantOperand,
                "`&& false` makes this condition always false".to_owned()
            )]
        );
    }

    #[test]
    fn true_on_the_left_decides_an_or() {
        assert_eq!(
            lints("true || error.code == 'a'"),
            vec![(
                Code::ConstantOperand,
                "`true ||` makes this condition always true".to_owned()
            )]
        );
    }

    #[test]
    fn a_neutral_constant_has_no_effect() {
        assert_eq!(
            lints("error.code == 'a' && true"),
            vec![(
                Code::ConstantOperand,
                "`&& true` has no effect: remove it".to_owned()
            )]
        );
        assert_eq!(
            lints("false || error.code == 'a'"),
            vec![(
                Code::ConstantOperand,
                "`false ||` has no effect: remove it".to_owned()
            )]
        );
    }

    #[test]
    fn a_folded_operand_is_told() {
        assert_eq!(
            lints("error.code == 'a' && 1 == 1"),
            vec![(
                Code::ConstantOperand,
                "`&& 1 == 1` has no effect (`1 == 1` is always true): remove it".to_owned()
            )]
        );
    }

    #[test]
    fn a_part_of_the_condition_is_named() {
        let found = lints("error.code == 'b' || (error.code == 'a' && false)");
        assert_eq!(
            found,
            vec![(
                Code::ConstantOperand,
                "`&& false` makes `error.code == 'a' && false` always false".to_owned()
            )]
        );
    }

    #[test]
    fn macro_bodies_and_conditionals_count() {
        let found = lints("[1, 2].exists(x, x > 1 && true)");
        assert_eq!(found.len(), 1, "{found:?}");
        let found = lints("error.code == 'a' ? error.code != 'b' || false : false");
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn no_constant_no_warning() {
        assert_eq!(lints("error.code == 'a' && error.code != 'c'"), vec![]);
        assert_eq!(lints("error.code == 'a' || has(error.code)"), vec![]);
    }

    #[test]
    fn w0005_stays_where_w0014_does_not_explain_it() {
        // The inner `&& false` does not make the whole condition constant;
        // the contradiction of the other side does, and W0005 says so.
        let found =
            lints("(error.code == 'a' && false) || (error.code == 'b' && error.code == 'c')");
        let codes: Vec<Code> = found.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            codes,
            [Code::ConstantCondition, Code::ConstantOperand],
            "{found:?}"
        );
    }

    #[test]
    fn an_inner_constant_is_reported_once() {
        // `(x && false)` is constant because of its `false`: one warning.
        let found = lints("(error.code == 'a' && false) && error.code != 'c'");
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
