//! W0011: a negation in a `when` condition that reads a path which may be
//! absent (`docs/src/semantics.md#paths-and-missing-values`).
//!
//! In the `when` language an absent path is an error, not `null`, so
//! `p != 'x'` and `!(p == 'x')` are errors where `p` is absent, and the hook
//! does not match; a reader (and a porter from seed 000, whose condition
//! trees read an absent path as `None`, so that there the same test is true)
//! expects them to be true. The lint reports each `!=` and `!` whose operands
//! read a context path that nothing guarantees: not a `has(p)` operand of an
//! `&&` chain around it (nor `!has(p)` of an `||` chain, nor `has(p)` as the
//! test of a `?:` around its first branch), nor another operand of the `&&`
//! chain that is no negation and reads `p` (`p == 'x' && p != 'y'` is not
//! expected to be true where `p` is absent), and not `required` all the way
//! down in the context schema of every event the hook listens to.
//! `p != null` is left alone: it is not expected to be true where `p` is
//! absent. Condition trees are not linted: they read an absent path as
//! `null` (`docs/src/semantics.md#condition-trees`). What the error does is
//! the policy's `on_error`: the hook does not match, or the evaluation fails,
//! or the error action decides; the message says which.
//!
//! W0023, under `on_error: fail` or an error action: a path whose absence
//! makes the whole condition an error for certain
//! ([`crate::lint::approx::certain_error_paths`]: an `&&` or `||` absorbs an
//! error of one side), that the schema does not guarantee: there the
//! evaluation fails (or the error action decides) where the reader of a
//! plain `p == 'x'` expects no match.
//!
//! One walk over each condition, visiting each node once, with the
//! guaranteed paths counted on the way down and uncounted on the way back:
//! linear in the size of the policy.

use super::report::HookOrigin;
use crate::check::policy::CheckedPolicy;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{BinaryOp, Const, IrExpr, IrExprKind, UnaryOp};
use hookc_runtime::bytecode::path::PathId;
use std::collections::{HashMap, HashSet};

/// Reports W0011 (and W0023) for the enabled hooks whose condition is a
/// `when`. `origins` are by [`crate::check::policy::Hook::source_order`].
pub fn report(policy: &CheckedPolicy, origins: &[HookOrigin], diags: &mut Diagnostics) {
    let mut walk = Walk {
        policy,
        schemas: Vec::new(),
        guarded: HashMap::new(),
        required: HashMap::new(),
        negation: None,
        found: Vec::new(),
        seen: HashSet::new(),
    };
    let paths = policy.paths();
    let outcome = ErrorOutcome::of(policy);
    for hook in policy.hooks().iter().filter(|h| h.enabled) {
        let origin = origins.get(hook.source_order);
        let (Some(condition), Some(origin)) = (&hook.condition, origin) else {
            continue;
        };
        if origin.condition_key != "when" {
            continue;
        }
        walk.listen(&hook.events);
        walk.expr(condition);
        let at = |d: Diagnostic| match &origin.node_path {
            Some(at) => d.node(format!("{at}.when")),
            None => d,
        };
        let found = std::mem::take(&mut walk.found);
        for (negation, path) in &found {
            let (Some(p), Some(text)) = (paths.get(*path), negation.to_source(paths)) else {
                continue;
            };
            diags.push(at(finding(&p.to_string(), &text, outcome).at(negation.span)));
        }
        if outcome != ErrorOutcome::NoMatch {
            for path in crate::lint::approx::certain_error_paths(condition) {
                // A negation's W0011 says it already.
                if walk.guaranteed(path) || found.iter().any(|(_, p)| *p == path) {
                    continue;
                }
                let Some(p) = paths.get(path) else { continue };
                diags.push(at(failing_read(&p.to_string(), outcome).at(condition.span)));
            }
        }
    }
}

/// What a hook whose condition is an error does, by the policy's
/// `on_error` (`docs/src/semantics.md#hook-errors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ErrorOutcome {
    /// `skip`: the hook does not match.
    NoMatch,
    /// `fail`: the evaluation fails.
    Fails,
    /// `{action: ...}`: the error action decides.
    ErrorAction,
}

impl ErrorOutcome {
    fn of(policy: &CheckedPolicy) -> ErrorOutcome {
        match policy.on_error() {
            crate::check::policy::OnErrorPolicy::Skip => ErrorOutcome::NoMatch,
            crate::check::policy::OnErrorPolicy::Fail => ErrorOutcome::Fails,
            crate::check::policy::OnErrorPolicy::Action(_) => ErrorOutcome::ErrorAction,
        }
    }

    /// What happens then, as a message ends: `the hook does not match`.
    fn said(self) -> &'static str {
        match self {
            ErrorOutcome::NoMatch => "the hook does not match",
            ErrorOutcome::Fails => "the evaluation fails (`on_error: fail`)",
            ErrorOutcome::ErrorAction => "the policy's `on_error` action decides",
        }
    }
}

/// The warning for `text`, a negation reading `p`.
fn finding(p: &str, text: &str, outcome: ErrorOutcome) -> Diagnostic {
    Diagnostic::new(
        Code::NegationOfAbsent,
        format!(
            "`{text}` is an error, not true, when `{p}` is absent: {}",
            outcome.said()
        ),
    )
    .label(format!("an error when `{p}` is absent"))
    .help(format!(
        "to make it true when `{p}` is absent, write `!has({p}) || {text}`"
    ))
    .note("condition trees read an absent path as `null`; `when` conditions do not")
    .once_per_file("absent")
}

/// W0023: the condition is an error where `p` is absent, under an error
/// policy that does more than not match.
fn failing_read(p: &str, outcome: ErrorOutcome) -> Diagnostic {
    Diagnostic::new(
        Code::AbsentFailsEvaluation,
        format!(
            "the condition is an error wherever `{p}` is absent, and then {}, where a \
             reader expects no match",
            outcome.said()
        ),
    )
    .label(format!("an error when `{p}` is absent"))
    .help(format!(
        "test it first, `has({p}) && ...`, or mark `{p}` `required` in the schema if the \
         payload always has it"
    ))
    .once_per_file("absent fails")
}

struct Walk<'p> {
    policy: &'p CheckedPolicy,
    /// The context schemas of the events the current hook listens to.
    schemas: Vec<&'p crate::check::schema::ContextSchema>,
    /// Paths a guard around the current node makes present, with how many
    /// guards do.
    guarded: HashMap<PathId, u32>,
    /// Whether the current hook's schemas say a path is always present,
    /// by path.
    required: HashMap<PathId, bool>,
    /// The innermost `!` or `!=` around the current node.
    negation: Option<&'p IrExpr>,
    /// Each negation of the current hook with a path it reads unguarded,
    /// once per pair, in the order found.
    found: Vec<(&'p IrExpr, PathId)>,
    /// The pairs of `found` so far (every hook's).
    seen: HashSet<(usize, PathId)>,
}

impl<'p> Walk<'p> {
    fn expr(&mut self, e: &'p IrExpr) {
        use IrExprKind as K;
        match &e.kind {
            K::Path(p) => self.read(*p),
            K::And(..) | K::Or(..) => self.chain(e),
            K::Cond(c, a, b) => {
                self.expr(c);
                // `has(p) ? a : b`: `a` runs only where `p` is present.
                let guards = match &c.kind {
                    K::HasPath(p) => vec![*p],
                    _ => Vec::new(),
                };
                self.guarded_by(&guards, |w| w.expr(a));
                self.expr(b);
            }
            K::Unary(UnaryOp::Not, inner) => self.negated(e, |w| w.expr(inner)),
            K::Binary {
                op: BinaryOp::Ne,
                lhs,
                rhs,
                ..
            } => {
                let is_null = |x: &IrExpr| matches!(x.kind, K::Const(Const::Null));
                if is_null(lhs) || is_null(rhs) {
                    self.expr(lhs);
                    self.expr(rhs);
                } else {
                    self.negated(e, |w| {
                        w.expr(lhs);
                        w.expr(rhs);
                    });
                }
            }
            K::Binary { lhs, rhs, .. } | K::Index(lhs, rhs) => {
                self.expr(lhs);
                self.expr(rhs);
            }
            K::Unary(_, x) | K::Field(x, _) | K::HasField(x, _) | K::Matches(x, _) => self.expr(x),
            K::TypeIs(x, _) | K::Local { body: x, .. } => self.expr(x),
            K::List(items) | K::Call(_, items) | K::PatternCall { args: items, .. } => {
                for item in items {
                    self.expr(item);
                }
            }
            K::Macro { range, body, .. } => {
                self.expr(range);
                self.expr(body);
            }
            K::SchemaMatch { check, .. } => self.expr(check),
            K::Const(_) | K::Var { .. } | K::HasPath(_) => {}
        }
    }

    /// An `&&` (`||`) chain: its `has(p)` (`!has(p)`) operands guard every
    /// operand, whatever their order (where `p` is absent the chain is
    /// `false` (`true`), errors or not: CEL's commutative absorption).
    fn chain(&mut self, e: &'p IrExpr) {
        let is_and = matches!(e.kind, IrExprKind::And(..));
        let mut operands = Vec::new();
        flatten(e, is_and, &mut operands);
        let mut guards: Vec<PathId> = operands
            .iter()
            .filter_map(|o| match (&o.kind, is_and) {
                (IrExprKind::HasPath(p), true) => Some(*p),
                (IrExprKind::Unary(UnaryOp::Not, inner), false) => match inner.kind {
                    IrExprKind::HasPath(p) => Some(p),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        // An operand of an `&&` that is no negation and is an error without
        // `p` (`p == 'x'`): where `p` is absent nobody expects the chain
        // true, so a negation beside it reading `p` is not reported.
        if is_and {
            for o in &operands {
                let negation = matches!(
                    o.kind,
                    IrExprKind::Unary(UnaryOp::Not, _)
                        | IrExprKind::Binary {
                            op: BinaryOp::Ne,
                            ..
                        }
                );
                if !negation {
                    guards.extend(crate::lint::approx::certain_error_paths(o));
                }
            }
        }
        self.guarded_by(&guards, |w| {
            for o in operands {
                w.expr(o);
            }
        });
    }

    /// Starts a hook listening to `events`: their schemas (the shared one
    /// for an event not declared; every declared one for `"*"`).
    fn listen(&mut self, events: &crate::check::policy::Events) {
        let policy = self.policy;
        let (shared, declared) = (policy.schema(), policy.events());
        self.schemas = match events {
            crate::check::policy::Events::Named(names) => names
                .iter()
                .map(|n| declared.schema_of(n, shared))
                .collect(),
            crate::check::policy::Events::Any => std::iter::once(shared)
                .chain(declared.iter().filter_map(|e| e.schema()))
                .collect(),
        };
        self.required.clear();
    }

    /// Whether every schema of the current hook says `p` is present.
    fn guaranteed(&mut self, p: PathId) -> bool {
        let (policy, schemas) = (self.policy, &self.schemas);
        *self.required.entry(p).or_insert_with(|| {
            policy
                .paths()
                .get(p)
                .is_some_and(|path| schemas.iter().all(|s| s.guarantees(path)))
        })
    }

    fn guarded_by(&mut self, guards: &[PathId], f: impl FnOnce(&mut Self)) {
        for g in guards {
            *self.guarded.entry(*g).or_default() += 1;
        }
        f(self);
        for g in guards {
            if let Some(n) = self.guarded.get_mut(g) {
                *n = n.saturating_sub(1);
            }
        }
    }

    fn negated(&mut self, e: &'p IrExpr, f: impl FnOnce(&mut Self)) {
        let outer = self.negation.replace(e);
        f(self);
        self.negation = outer;
    }

    fn read(&mut self, p: PathId) {
        let Some(negation) = self.negation else {
            return;
        };
        if self.guarded.get(&p).is_some_and(|n| *n > 0) {
            return;
        }
        let required = self.guaranteed(p);
        // By address: one IR node is one negation.
        let key = (std::ptr::from_ref(negation) as usize, p);
        if !required && self.seen.insert(key) {
            self.found.push((negation, p));
        }
    }
}

/// The operands of a run of `&&` (or `||`), left to right.
fn flatten<'e>(e: &'e IrExpr, is_and: bool, out: &mut Vec<&'e IrExpr>) {
    match (&e.kind, is_and) {
        (IrExprKind::And(a, b), true) | (IrExprKind::Or(a, b), false) => {
            flatten(a, is_and, out);
            flatten(b, is_and, out);
        }
        _ => out.push(e),
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::{compile, Input};
    use crate::diag::Code;

    /// The W0011 messages of a one-hook policy with this `when` (and schema).
    fn findings(when: &str, schema: &str) -> Vec<String> {
        let src = format!(
            "{schema}hooks:\n  - id: h\n    event: error\n    when: {when:?}\n    action: {{type: abort}}\n"
        );
        let c = compile(&[Input::new("p.yaml", src)]);
        assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
        c.diagnostics
            .iter()
            .filter(|d| d.code == Code::NegationOfAbsent)
            .map(|d| d.message.clone())
            .collect()
    }

    #[test]
    fn unguarded_negations_are_reported() {
        assert_eq!(
            findings("error.code != 'E42'", ""),
            ["`error.code != 'E42'` is an error, not true, when `error.code` is absent: the hook does not match"]
        );
        assert_eq!(findings("!(error.code == 'E42')", "").len(), 1);
        assert_eq!(findings("!error.message.contains('x')", "").len(), 1);
        // Two paths of one negation: two findings, folded into one line.
        assert_eq!(
            findings("!(error.code == 'a' || error.type == 'b')", ""),
            ["`!(error.code == 'a' || error.type == 'b')` is an error, not true, when `error.code` is absent: the hook does not match (and 1 more use in this file)"]
        );
    }

    #[test]
    fn guarded_and_required_paths_are_not() {
        for when in [
            "!has(error.code) || error.code != 'E42'",
            "has(error.code) && error.code != 'E42'",
            "error.code != 'E42' && has(error.code)",
            "has(error.code) ? error.code != 'E42' : true",
            "!(has(error.code) && error.code == 'E42')",
            "error.code != null",
            "!has(error.code)",
            "error.code == 'E42'",
        ] {
            assert!(findings(when, "").is_empty(), "{when}");
        }
        let schema = "event_context_schema:\n  type: object\n  required: [error]\n  properties:\n    error:\n      type: object\n      required: [code]\n      properties: {code: {type: string}}\n";
        assert!(findings("error.code != 'E42'", schema).is_empty());
        // `required` must hold at every step.
        let outer_only = "event_context_schema:\n  type: object\n  required: [error]\n  properties:\n    error:\n      type: object\n      properties: {code: {type: string}}\n";
        assert_eq!(findings("error.code != 'E42'", outer_only).len(), 1);
    }

    /// The warnings of `code` for a one-hook policy with this `when`, on
    /// Claude Code's PreToolUse (whose context requires `tool_name` and
    /// `tool_input`), under `on_error`.
    fn host_findings(when: &str, on_error: &str, code: Code) -> Vec<String> {
        let src = format!(
            "host: claude-code\non_error: {on_error}\nhooks:\n  - id: h\n    event: PreToolUse\n    when: {when:?}\n    action: {{type: deny}}\n"
        );
        let c = compile(&[Input::new("p.yaml", src)]);
        assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
        c.diagnostics
            .iter()
            .filter(|d| d.code == code)
            .map(|d| d.message.clone())
            .collect()
    }

    #[test]
    fn an_events_required_members_and_an_earlier_conjunct_guard_a_negation() {
        // `tool_name` is required by PreToolUse's own schema.
        assert!(host_findings("tool_name != 'Bash'", "skip", Code::NegationOfAbsent).is_empty());
        // `tool_input.command` is not.
        assert_eq!(
            host_findings("tool_input.command != 'ls'", "skip", Code::NegationOfAbsent).len(),
            1
        );
        // Where `error.code == 'a'` is an error, nobody expects the chain true.
        assert!(findings("error.code == 'a' && error.code != 'b'", "").is_empty());
        assert!(findings("error.code.startsWith('E') && !(error.code == 'E4')", "").is_empty());
        // Two negations guard nothing.
        assert_eq!(
            findings("error.code != 'a' && error.code != 'b'", "").len(),
            1
        );
    }

    #[test]
    fn the_message_says_what_the_error_policy_does() {
        let when = "tool_input.command != 'ls'";
        let skip = host_findings(when, "skip", Code::NegationOfAbsent);
        assert!(skip[0].ends_with("the hook does not match"), "{skip:?}");
        let fail = host_findings(when, "fail", Code::NegationOfAbsent);
        assert!(
            fail[0].ends_with("the evaluation fails (`on_error: fail`)"),
            "{fail:?}"
        );
        let action = host_findings(when, "{action: {type: deny}}", Code::NegationOfAbsent);
        assert!(
            action[0].ends_with("the policy's `on_error` action decides"),
            "{action:?}"
        );
    }

    #[test]
    fn a_read_that_fails_the_evaluation_is_reported_under_fail_only() {
        let when = "tool_input.command == 'ls'";
        assert!(host_findings(when, "skip", Code::AbsentFailsEvaluation).is_empty());
        assert_eq!(
            host_findings(when, "fail", Code::AbsentFailsEvaluation),
            [
                "the condition is an error wherever `tool_input.command` is absent, and then the \
              evaluation fails (`on_error: fail`), where a reader expects no match"
            ]
        );
        // Absorbed: `false && error` is false, so no certain error.
        for absorbed in [
            "tool_name == 'Bash' && tool_input.command == 'ls'",
            "has(tool_input.command) && tool_input.command == 'ls'",
            "tool_name == 'Read' || tool_input.command == 'ls'",
        ] {
            assert!(
                host_findings(absorbed, "fail", Code::AbsentFailsEvaluation).is_empty(),
                "{absorbed}"
            );
        }
        // A required path fails nothing.
        assert!(
            host_findings("tool_name == 'Bash'", "fail", Code::AbsentFailsEvaluation).is_empty()
        );
    }

    #[test]
    fn trees_are_not_linted() {
        let src = "hooks:\n  - id: h\n    event: error\n    condition: {not: {path: turn_number, op: lt, value: 5}}\n    action: {type: abort}\n";
        let c = compile(&[Input::new("p.yaml", src)]);
        assert!(c
            .diagnostics
            .iter()
            .all(|d| d.code != Code::NegationOfAbsent));
    }
}
