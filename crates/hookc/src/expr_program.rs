//! One `when` expression compiled on its own, outside any policy file: for
//! the conformance and differential tests, which run single expressions
//! through the real pipeline (parse, resolve, type-check) and then evaluate
//! them with both the reference evaluator ([`crate::testing::reference`]) and the VM
//! (through the one-hook [`CheckedPolicy`] of [`CompiledExpr::policy`], lowered like
//! any policy).
//!
//! An expression is checked as a condition ([`ExprMode::Condition`]: it must be
//! a bool, as a `when` must) or as a value ([`ExprMode::Value`]: any type, as a
//! conformance case's expression may have), against a given context schema;
//! or not type-checked at all ([`ExprMode::Unchecked`]).

use crate::check::actions::{Action, ActionTypes};
use crate::check::policy::{CheckedPolicy, Events, Hook};
use crate::check::schema::ContextSchema;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::IrExpr;
use crate::resolve::ast_to_ir::Resolver;
use crate::span::{FileId, Origin, SourceMap};
use hookc_runtime::bytecode::path::PathTable;
use hookc_runtime::internals::context::{PathCache, Source};
use hookc_runtime::internals::value::{EvalError, Val};
use hookc_runtime::internals::vm;
use serde_json::Value;
use thiserror::Error;

/// How the expression's own type is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprMode {
    /// A `when` condition: a non-bool result type is an error (E0302).
    Condition,
    /// A value of any type: every check but the condition's bool-ness.
    Value,
    /// Parsed and resolved, not type-checked: for testing the evaluators on
    /// expressions the checker rejects (a program loaded from an artifact is
    /// verified, not type-checked, so the VM must evaluate those too).
    Unchecked,
}

/// An expression that parsed, resolved and type-checked without error.
#[derive(Debug, Clone)]
pub struct CompiledExpr {
    expr: IrExpr,
    paths: PathTable,
    schema: ContextSchema,
    warnings: Vec<Diagnostic>,
}

/// The file id the expression's spans refer to (register the text first in
/// a [`crate::span::SourceMap`] to render diagnostics).
pub const EXPR_FILE: FileId = FileId(0);

/// The id of the one hook of [`CompiledExpr::policy`].
pub const EXPR_HOOK_ID: &str = "expr";

/// Parses, resolves and (unless [`ExprMode::Unchecked`]) type-checks `text`
/// against `schema`. The error holds
/// every diagnostic (warnings too) when any is an error.
pub fn compile_expr(
    text: &str,
    schema: &ContextSchema,
    mode: ExprMode,
) -> Result<CompiledExpr, Vec<Diagnostic>> {
    let mut diags = Diagnostics::new();
    let mut paths = PathTable::new();
    let expr = match crate::syntax::parse(text, Origin::file_start(EXPR_FILE)) {
        Ok(ast) => Resolver::new(&mut paths, &mut diags).resolve(&ast),
        Err(d) => {
            diags.push(d);
            None
        }
    };
    if let (Some(e), ExprMode::Condition | ExprMode::Value) = (&expr, mode) {
        let mut found = Diagnostics::new();
        let mut regexes = crate::check::typeck::RegexMemo::default();
        crate::check::typeck::check_condition(e, schema, &paths, &mut regexes, &mut found, false);
        for d in found.into_vec() {
            if mode == ExprMode::Condition || d.code != Code::NonBoolCondition {
                diags.push(d);
            }
        }
    }
    match expr {
        Some(expr) if !diags.has_errors() => Ok(CompiledExpr {
            expr,
            paths,
            schema: schema.clone(),
            warnings: diags.into_vec(),
        }),
        _ => Err(diags.into_vec()),
    }
}

impl CompiledExpr {
    /// The expression's IR.
    pub fn expr(&self) -> &IrExpr {
        &self.expr
    }

    /// The paths it reads.
    pub fn paths(&self) -> &PathTable {
        &self.paths
    }

    /// The warnings the checker gave.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// A policy of one enabled hook, [`EXPR_HOOK_ID`], listening to every
    /// event, whose condition is the expression and whose action is
    /// `continue`: lowering it gives a program whose hook 0 evaluates the
    /// expression. (In [`ExprMode::Value`] the condition may be a non-bool: such
    /// a hook never matches, but the VM still computes its value.)
    pub fn policy(&self) -> CheckedPolicy {
        let span = self.expr.span;
        let hook = Hook {
            id: EXPR_HOOK_ID.to_owned(),
            events: Events::Any,
            priority: 0,
            layer: 1,
            condition: Some(self.expr.clone()),
            condition_tree: None,
            table: None,
            action: Action {
                kind: "continue".to_owned(),
                effect: crate::ir::Effect::Terminal,
                params: Vec::new(),
                span,
            },
            enabled: true,
            replace: false,
            replaced: false,
            description: None,
            source_order: 0,
            span,
        };
        CheckedPolicy {
            combine: crate::ir::Combine::default(),
            on_error: crate::check::policy::OnErrorPolicy::default(),
            priority_order: crate::ir::PriorityOrder::default(),
            attribution: crate::ir::Attribution::default(),
            environment: crate::check::environment::DeclaredEnvironment::default(),
            hooks: vec![hook],
            paths: self.paths.clone(),
            schema: self.schema.clone(),
            action_types: ActionTypes::builtin(),
            events: crate::check::events::DeclaredEvents::default(),
            layers: crate::compile::DEFAULT_LAYERS.map(String::from).to_vec(),
            sensitive: Vec::new(),
        }
    }
}

/// Why `--expr` could not evaluate an expression.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExprError {
    /// The expression does not parse or type-check.
    #[error("the expression has errors")]
    Invalid {
        /// Every diagnostic.
        diagnostics: Vec<Diagnostic>,
        /// The expression as a source, for rendering them.
        sources: Box<SourceMap>,
    },
    /// Its program failed verification (a compiler bug: please report it).
    #[error("the compiled expression failed verification: {0}")]
    Verify(#[from] hookc_runtime::verify::VerifyError),
}

/// Evaluates one expression against a context (for `hookc eval --expr`):
/// parsed, resolved and type-checked against a free-form schema (any result
/// type is allowed), lowered and verified like a policy, then run. The inner
/// `Err` is the evaluation's error value.
pub fn eval_expr(text: &str, ctx: &Value) -> Result<Result<Value, EvalError>, ExprError> {
    use crate::expr_program::{compile_expr, ExprMode};
    let mut sources = SourceMap::new();
    let file = sources.add("<expr>", text);
    debug_assert_eq!(file, crate::expr_program::EXPR_FILE);
    let mut sink = crate::diag::Diagnostics::new();
    let free_form = crate::frontend::doc::Node::from_json(
        &serde_json::json!({"type": "object"}),
        crate::span::Span::new(file, 0, 0),
    );
    let schema = crate::check::schema::ContextSchema::from_node(&free_form, &mut sink);
    let compiled =
        compile_expr(text, &schema, ExprMode::Value).map_err(|diagnostics| ExprError::Invalid {
            diagnostics,
            sources: Box::new(sources),
        })?;
    let verified = hookc_runtime::verify::verify(crate::lower::lower(&compiled.policy()))?;
    let derived = hookc_runtime::functions::Derived::new();
    let mut cache =
        PathCache::new(&verified.program().paths, Source::Document(ctx)).with_derived(&derived);
    Ok(match vm::eval_hook(&verified, 0, &mut cache, None) {
        Val::Error(e) => Err(e),
        v => Ok(v.to_json().unwrap_or(Value::Null)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_conditions_are_checked_as_asked() {
        let schema = ContextSchema::builtin();
        assert!(compile_expr("1 + 2", &schema, ExprMode::Value).is_ok());
        let errs = compile_expr("1 + 2", &schema, ExprMode::Condition).unwrap_err();
        assert!(errs.iter().any(|d| d.code == Code::NonBoolCondition));
        let errs = compile_expr("'foo' < 1024", &schema, ExprMode::Value).unwrap_err();
        assert!(errs.iter().any(|d| d.code == Code::TypeMismatch));
        assert!(compile_expr("1 +", &schema, ExprMode::Value).is_err());
        assert!(compile_expr("'foo' < 1024", &schema, ExprMode::Unchecked).is_ok());
        assert!(compile_expr("1 +", &schema, ExprMode::Unchecked).is_err());
        let c = compile_expr("turn_number > 3", &schema, ExprMode::Condition).unwrap();
        assert!(c.warnings().is_empty());
        let policy = c.policy();
        assert_eq!(policy.hooks().len(), 1);
        assert_eq!(policy.hooks()[0].id, EXPR_HOOK_ID);
        assert!(policy.hooks()[0]
            .condition
            .as_ref()
            .unwrap()
            .same_as(c.expr()));
    }
}
