//! hookc: the policy compiler for agent hooks. It reads hook policies (YAML
//! hook files and directive XML), checks every condition, action and
//! template against the event-context schema with precise diagnostics, and
//! lowers them to the verified bytecode that the [`hookc_runtime`] crate
//! (re-exported as [`runtime`]) loads and evaluates.
//!
//! ```
//! use hookc::compile::{compile, Input};
//! use hookc::runtime::Policy;
//! let src = r#"
//! hooks:
//!   - event: error
//!     when: "classification.category == 'rate_limited'"
//!     action: {type: retry, max_attempts: 5}
//! "#;
//! let c = compile(&[Input::new("policy.yaml", src)]);
//! assert!(!c.diagnostics.has_errors());
//! // The runtime policy, lowered and verified (errors would be a
//! // `SourcesError::Invalid` with every diagnostic). Its artifact is what
//! // `hookc compile` writes, for an application to embed:
//! let bytes: Vec<u8> = c.into_policy()?.to_artifact();
//!
//! // In the application (which needs only `hookc-runtime`): load the
//! // artifact, decoded and verified, and evaluate a context.
//! let policy = Policy::from_artifact(&bytes)?;
//! let ctx = serde_json::json!({"classification": {"category": "rate_limited"}});
//! let decision = policy.evaluate("error", &ctx)?;
//! assert_eq!(decision.terminal.map(|m| m.hook), Some("policy.yaml#directive[0]"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The guide (`docs/`, an mdBook: `scripts/book` builds it) covers writing
//! policies, testing them, embedding ("The Rust runtime", "Build scripts")
//! and the reference (CLI, every diagnostic code, limits, the artifact
//! format).
//!
//! A build script compiles a folder of policies into `OUT_DIR` with
//! [`build_script::Builder`], so that a policy mistake fails `cargo build`;
//! the program itself then depends on `hookc-runtime` alone.
//!
//! # The pipeline
//!
//! The folders are the stages (the code map, with the types that flow
//! between them and the invariants, is `ARCHITECTURE.md`; the semantics are
//! in `docs/src/semantics.md`):
//!
//! 1. **Front ends** ([`frontend`]): YAML hook files and directive XML become
//!    [`frontend::SourceFile`]s: structure checked, conditions and actions
//!    still raw.
//! 2. **Resolution** into the IR ([`ir`]): `when` expressions are parsed
//!    ([`syntax`]) and resolved; YAML condition trees are resolved directly.
//!    Both give the same IR.
//! 3. **Checking** ([`check`]): conditions against the context schema,
//!    actions against their action types with defaults filled and `${...}`
//!    templates checked; hooks sorted into evaluation order, giving an
//!    [`check::policy::CheckedPolicy`] ([`compile`]), which [`normalize`] writes as normalized
//!    YAML or JSON.
//! 4. **Lints** ([`lint`]): shadowed hooks, constant conditions, unknown
//!    events, unguarded templates and duplicate conditions, as warnings.
//! 5. **Lowering** ([`lower`]): the checked IR becomes a
//!    [`runtime::bytecode::Program`], which the runtime verifies.
//!
//! Every finding is a [`diag::Diagnostic`] with a stable code, rendered by
//! [`diag::render`].
//!
//! # Input safety
//!
//! Every input is untrusted. Each bound is in [`runtime::limits`] and is
//! checked before any recursion over the input: expression nesting, YAML/XML
//! nesting, YAML alias expansion (alias bombs), file size, hook count, string
//! and list constant lengths, compiled regex size and nesting. No input makes
//! hookc panic (`clippy::unwrap_used`, `expect_used`, `panic` and
//! `indexing_slicing` are denied outside tests).

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::indexing_slicing)]

/// The runtime this compiler targets: load artifacts and evaluate events.
pub use hookc_runtime as runtime;

pub mod build_script;
pub mod cache;
pub mod check;
pub mod compile;
pub mod diag;
pub mod expr_program;
pub mod files;
pub mod frontend;
pub mod hosts;
pub mod ir;
pub mod lint;
pub mod lower;
pub mod normalize;
pub(crate) mod resolve;
pub mod span;
pub mod suggest;
pub mod syntax;
#[doc(hidden)]
pub mod testing;

/// The one-line summary after diagnostics: `3 files checked: 7 hooks, 1 error, 2 warnings`.
/// Files read for their declarations only are not counted.
pub fn summary(c: &compile::Compilation) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let files = (c.sources.files())
        .filter(|(id, _)| !c.declarations_only.contains(id))
        .count();
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
