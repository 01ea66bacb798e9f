//! Compiling from JavaScript: files (in source order or by layer) or
//! source texts, through the shared layer. The result is a
//! `NativeCompiled` that `index.js` reads: the policy, or the report of a
//! compilation with errors (thrown there as a `CompileError` carrying its
//! diagnostics), and the warnings (emitted there as `PolicyWarning`s).

use crate::error::{fail, type_error};
use crate::policy::NativePolicy;
use hookc::files::PolicyFile;
use hookc_binding::compile::{compile_files, compile_texts, layered, Compiled, Report};
use hookc_binding::{BindingError, BoundPolicy};
use napi::bindgen_prelude::Env;
use napi_derive::napi;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// A compilation's outcome, read once by `index.js`.
#[napi]
pub struct NativeCompiled {
    policy: Option<Arc<BoundPolicy>>,
    report: Option<Report>,
}

impl NativeCompiled {
    fn of(result: Result<Compiled, BindingError>) -> napi::Result<NativeCompiled> {
        match result {
            Ok(c) => Ok(NativeCompiled {
                policy: Some(Arc::new(BoundPolicy::new(c.policy))),
                report: c.warnings,
            }),
            Err(BindingError::Compile(report)) => Ok(NativeCompiled {
                policy: None,
                report: Some(report),
            }),
            Err(e) => Err(fail(e)),
        }
    }
}

#[napi]
impl NativeCompiled {
    /// Whether the sources have errors (no policy).
    #[napi(getter)]
    pub fn failed(&self) -> bool {
        self.policy.is_none()
    }

    /// The rendered diagnostics, as `hookc check` prints them ('' if none).
    #[napi(getter)]
    pub fn text(&self) -> String {
        self.report
            .as_ref()
            .map_or_else(String::new, |r| r.text.clone())
    }

    /// The diagnostics as `hookc check --format json` prints them.
    #[napi(getter)]
    pub fn diagnostics(&self) -> Value {
        Value::Array(
            self.report
                .as_ref()
                .map_or_else(Vec::new, |r| r.diagnostics.clone()),
        )
    }

    /// The compiled policy, as an object of this thread.
    #[napi]
    pub fn policy(&self, env: Env) -> napi::Result<NativePolicy> {
        match &self.policy {
            Some(p) => NativePolicy::new(&env, Arc::clone(p)),
            None => Err(fail(BindingError::Compile(self.report.clone().unwrap_or(
                Report {
                    text: String::new(),
                    diagnostics: Vec::new(),
                },
            )))),
        }
    }
}

/// Compiles policy files in source order.
#[napi]
pub fn compile_paths(paths: Vec<String>) -> napi::Result<NativeCompiled> {
    let files: Vec<PolicyFile> = paths.into_iter().map(PolicyFile::new).collect();
    NativeCompiled::of(compile_files(&files))
}

/// Compiles policy files by layer: `[[name, [paths]], ...]`, lowest first.
#[napi]
pub fn compile_layers(layers: Vec<(String, Vec<String>)>) -> napi::Result<NativeCompiled> {
    if layers.is_empty() {
        return Err(type_error(
            "`layers` names at least one layer: {layers: {base: ['hooks.yaml']}}",
        ));
    }
    let files = layered(
        layers
            .into_iter()
            .map(|(name, paths)| (name, paths.into_iter().map(PathBuf::from).collect())),
    )
    .map_err(fail)?;
    NativeCompiled::of(compile_files(&files))
}

/// Compiles source texts: `[[name, text], ...]` in source order.
#[napi]
pub fn compile_sources(sources: Vec<(String, String)>) -> napi::Result<NativeCompiled> {
    NativeCompiled::of(compile_texts(sources))
}
