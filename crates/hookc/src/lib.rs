//! hookc: a policy compiler and bytecode evaluator for agent hooks.
//!
//! Agent runtimes raise events (`error`, `limit`, `context_window_pressure`,
//! ...) with a JSON context; hook policies say what to do about them. hookc
//! compiles policies once and checks them thoroughly, so that mistakes surface
//! in the build, with a precise diagnostic, instead of in production.
//!
//! # The pipeline
//!
//! 1. **Front ends** ([`frontend`]): YAML hook files ([`frontend::yaml`], read
//!    with positions by [`frontend::yaml_doc`]) and directive XML
//!    ([`frontend::xml`]) become [`frontend::SourceFile`]s: structure checked,
//!    conditions and actions still raw.
//! 2. **Resolution** into the IR ([`ir`]): `when` expressions are lexed and
//!    parsed ([`syntax`]) and resolved ([`ast_to_ir`]); YAML condition trees
//!    are resolved directly ([`tree_to_ir`]). Both give the same IR. Paths are
//!    interned ([`path`]).
//! 3. **Checking**: conditions against the context schema ([`schema`],
//!    [`typeck`], types in [`ty`]), actions against their action types with
//!    defaults filled and `${...}` templates checked ([`actions`],
//!    [`template`]).
//! 4. **Ordering**: hooks sorted into evaluation order, giving a [`ir::Policy`]
//!    ([`compile`]), which [`emit`] writes as normalized YAML or JSON.
//! 5. **Lints** ([`lint`]): shadowed hooks, constant conditions, unknown
//!    events, unguarded templates and duplicate conditions, as warnings.
//!
//! Every finding is a [`diag::Diagnostic`] with a stable code, rendered by
//! [`diag::render`].
//!
//! # Input safety
//!
//! Every input is untrusted. Each bound is in [`limits`] and is checked before
//! any recursion over the input: expression nesting, YAML/XML nesting, YAML
//! alias expansion (alias bombs), file size, hook count, string and list
//! constant lengths, compiled regex size and nesting, macro iterations per
//! evaluation, and every table and nesting of an artifact. No input makes
//! hookc panic (`clippy::unwrap_used`, `expect_used`, `panic` and
//! `indexing_slicing` are denied outside tests), and one evaluation of one
//! hook runs at most `code length × (1 + MAX_MACRO_ITERATIONS)` instructions
//! (see [`vm`]).
//!
//! # Example
//!
//! ```
//! use hookc::compile::{compile, Input};
//! let src = r#"
//! hooks:
//!   - event: error
//!     when: "classification.category == 'rate_limited'"
//!     action: {type: retry, max_attempts: 5}
//! "#;
//! let c = compile(&[Input::new("policy.yaml", src)]);
//! assert!(!c.diagnostics.has_errors());
//! let policy = c.policy.expect("checked");
//! assert_eq!(policy.hooks()[0].action.kind, "retry");
//! ```

#![forbid(unsafe_code)]
#![deny(clippy::indexing_slicing)]

/// The runtime this compiler targets: load artifacts and evaluate events.
pub use hookc_runtime as runtime;

pub mod build_script;
pub mod check;
pub mod compile;
pub mod diag;
pub mod expr_program;
pub mod files;
pub mod frontend;
pub mod ir;
pub mod lint;
pub mod lower;
pub mod normalize;
pub mod resolve;
pub mod span;
pub mod suggest;
pub mod syntax;
pub mod testing;

/// The one-line summary after diagnostics: `3 files checked: 7 hooks, 1 error, 2 warnings`.
pub fn summary(c: &compile::Compilation) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let files = c.sources.files().count();
    let hooks = c.policy.as_ref().map_or(0, |p| p.hooks().len());
    let errors = c.diagnostics.error_count();
    let warnings = c.diagnostics.warning_count();
    if errors > 0 {
        format!(
            "{} checked: {}, {}",
            plural(files, "file"),
            plural(errors, "error"),
            plural(warnings, "warning")
        )
    } else {
        format!(
            "{} checked: {}, {}",
            plural(files, "file"),
            plural(hooks, "hook"),
            plural(warnings, "warning")
        )
    }
}
