//! Compiling for a binding: policy files (in source order, or by layer) or
//! source texts to a [`Policy`], with the compilation's diagnostics as one
//! [`Report`]: an error is [`BindingError::Compile`], warnings come with
//! the policy for the binding to surface (Python's `PolicyWarning`,
//! Node's `process.emitWarning`).

pub use crate::error::Report;

use crate::error::BindingError;
use hookc::compile::{Compilation, Input, LayerName};
use hookc::diag::render;
use hookc::files::PolicyFile;
use hookc_runtime::Policy;
use serde_json::{json, Value};
use std::path::PathBuf;

/// A policy compiled, with its warnings.
#[derive(Debug)]
pub struct Compiled {
    /// The policy, verified.
    pub policy: Policy,
    /// The warnings, if any (the policy compiled all the same).
    pub warnings: Option<Report>,
}

/// Compiles policy files; layered files (from [`layered`]) are ordered by
/// their layers. An unchanged policy is loaded from the artifact cache
/// (`docs/src/reference/cache.md`), with the warnings its compilation gave.
pub fn compile_files(files: &[PolicyFile]) -> Result<Compiled, BindingError> {
    if files.is_empty() {
        return Err(BindingError::Argument(
            "no policy given: name its files, or its layers".to_owned(),
        ));
    }
    let cached = hookc::cache::load_through_cache(files, None, |c| {
        let compiled = finish(c)?;
        let notes = compiled.warnings.as_ref().map_or(
            Value::Null,
            |r| json!({"text": r.text, "diagnostics": r.diagnostics}),
        );
        Ok::<_, BindingError>((compiled.policy, notes))
    })?;
    let warnings = match &cached.notes {
        Value::Object(o) => Some(Report {
            text: o
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            diagnostics: o
                .get("diagnostics")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        }),
        _ => None,
    };
    Ok(Compiled {
        policy: cached.policy,
        warnings,
    })
}

/// Compiles policy sources given as `(name, text)`, in source order (the
/// names are what diagnostics and default hook ids use; the format is
/// detected from the name and text, as for files).
pub fn compile_texts(
    sources: impl IntoIterator<Item = (String, String)>,
) -> Result<Compiled, BindingError> {
    let inputs: Vec<Input> = sources
        .into_iter()
        .map(|(name, text)| Input::new(name, text))
        .collect();
    if inputs.is_empty() {
        return Err(BindingError::Argument(
            "no policy given: give at least one source text".to_owned(),
        ));
    }
    finish(hookc::compile::compile(&inputs))
}

/// The files of `layers`, each `(layer name, its files)`, lowest layer
/// first: what [`compile_files`] compiles by layer.
pub fn layered(
    layers: impl IntoIterator<Item = (String, Vec<PathBuf>)>,
) -> Result<Vec<PolicyFile>, BindingError> {
    let mut files = Vec::new();
    for (name, paths) in layers {
        let layer = LayerName::new(&name).map_err(|e| BindingError::Argument(e.to_string()))?;
        files.extend(
            paths
                .into_iter()
                .map(|path| PolicyFile::in_layer(layer.clone(), path)),
        );
    }
    Ok(files)
}

/// The policy of a compilation and its warnings, or its errors.
fn finish(c: Compilation) -> Result<Compiled, BindingError> {
    let diags: Vec<_> = c.diagnostics.iter().collect();
    let report = (!diags.is_empty()).then(|| Report {
        text: format!(
            "{}{}",
            render::human(&diags, &c.sources),
            hookc::summary(&c)
        ),
        diagnostics: diags.iter().map(|d| render::json(d, &c.sources)).collect(),
    });
    if c.diagnostics.has_errors() {
        // `report` is `Some`: there is at least one diagnostic.
        return Err(BindingError::Compile(report.unwrap_or(Report {
            text: String::new(),
            diagnostics: Vec::new(),
        })));
    }
    let policy = c
        .into_policy()
        .map_err(|e| BindingError::Internal(e.to_string()))?;
    Ok(Compiled {
        policy,
        warnings: report,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    const HOOK: &str = "hooks:\n  - id: big\n    event: error\n    condition: {path: cost.spend, op: gt, value: 5}\n    action: {type: retry, max_attempts: 2}\n";

    #[test]
    fn texts_compile_and_errors_carry_their_diagnostics() {
        let ok = compile_texts([("hooks.yaml".to_owned(), HOOK.to_owned())]);
        assert!(ok.is_ok_and(|c| c.policy.hook_count() == 1 && c.warnings.is_none()));
        let bad = HOOK.replace("op: gt", "op: gtt");
        let Err(e) = compile_texts([("hooks.yaml".to_owned(), bad)]) else {
            panic!("a misspelt operator compiled");
        };
        assert_eq!(e.kind(), ErrorKind::Compile);
        let diags = e.diagnostics().unwrap_or_default();
        assert_eq!(diags.len(), 1, "{e}");
        assert_eq!(diags[0]["file"], "hooks.yaml");
        assert!(e.to_string().contains("gtt"), "{e}");
    }

    /// Files compiled twice: the second time from the artifact cache
    /// beside them, with the warnings the first compilation gave.
    #[test]
    fn files_load_from_the_cache_with_their_warnings() {
        let dir = std::env::temp_dir().join(format!("hookc-binding-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("hooks.yaml");
        // `unused` is never used: W0022.
        std::fs::write(&file, format!("let:\n  unused: \"1 == 1\"\n{HOOK}")).unwrap();
        let files = [PolicyFile::new(&file)];
        let first = compile_files(&files).unwrap();
        let cache = dir.join(".hookc/cache");
        let entries = || std::fs::read_dir(&cache).map_or(0, |d| d.count());
        assert_eq!(entries(), 2, "the entry and its .gitignore");
        let second = compile_files(&files).unwrap();
        let (a, b) = (first.warnings.unwrap(), second.warnings.unwrap());
        assert!(a.text.contains("W0022"), "{}", a.text);
        assert_eq!(a, b);
        assert_eq!(second.policy.to_artifact(), first.policy.to_artifact());
        assert_eq!(entries(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nothing_to_compile_is_an_argument_error() {
        let e = compile_files(&[]).err().map(|e| e.kind());
        assert_eq!(e, Some(ErrorKind::Argument));
        let e = layered([("not a layer!".to_owned(), vec![])])
            .err()
            .map(|e| e.kind());
        assert_eq!(e, Some(ErrorKind::Argument));
    }
}
