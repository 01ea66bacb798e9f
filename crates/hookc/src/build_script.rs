//! Build-script integration: compile a folder of policies into a verified
//! artifact in `OUT_DIR`, with the diagnostics shown by cargo, so a Rust
//! program can embed its policy with `include_bytes!` and a policy mistake
//! fails `cargo build` like a type error.
//!
//! ```no_run
//! // In `fn main` of build.rs, with `hookc` under [build-dependencies]:
//! println!("cargo::rerun-if-changed=build.rs");
//! // Every problem is printed as `cargo::error=` lines, which fail the
//! // build once the script ends: the error needs no other handling.
//! hookc::build_script::Builder::new("policies").out_name("policy.hkb").compile().ok();
//! ```
//!
//! and in the program:
//!
//! ```ignore
//! static POLICY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/policy.hkb"));
//! let policy = hookc_runtime::Policy::from_artifact(POLICY)?; // verified at start-up
//! ```
//!
//! What [`Builder::compile`] does:
//! - prints `cargo::rerun-if-changed=` for the folder (cargo then watches
//!   everything in it, so a new file triggers a rebuild) and for every policy
//!   file, before compiling, so that fixing a broken policy reruns the build;
//! - compiles every `*.yaml`, `*.yml` and `*.xml` file under the folder
//!   (recursively, in the order of their paths, which is the source order;
//!   `*.test.yaml` test files for `hookc test` are skipped). Files are named
//!   by their path relative to the folder, so hooks without an `id` get ids
//!   like `hooks.yaml#directive[0]`, as `hookc test` names them from a test
//!   file in the same folder;
//! - prints every diagnostic, line by line, as `cargo::warning=` (warnings)
//!   or `cargo::error=` (errors; warnings too with
//!   [`Builder::deny_warnings`]), then the summary line;
//! - writes the artifact after loading it back (decoded and verified), as
//!   `hookc compile` does, and returns its path;
//! - on any error, prints it as `cargo::error=` lines too (diagnostics as
//!   above, anything else as one line), so cargo fails the build after the
//!   script ends, without the script having to exit with an error.

use crate::compile::{compile, ArtifactDebug, Compilation};
use crate::diag::{render, Diagnostic};
use crate::files::{self, PolicyFile, ReadError};
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why the policies could not be built.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// No output folder: `OUT_DIR` is unset and none was given.
    #[error("`OUT_DIR` is not set: call `compile` from a build script, or give the folder with `out_dir`")]
    NoOutDir,
    /// The policy folder cannot be listed.
    #[error("cannot read the policy folder `{}`: {source}", .dir.display())]
    ReadDir {
        /// The folder.
        dir: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The folder holds no policy file.
    #[error("the policy folder `{}` has no policy files (`*.yaml`, `*.yml`, `*.xml`)", .dir.display())]
    NoPolicies {
        /// The folder.
        dir: PathBuf,
    },
    /// A policy file cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The policies have errors (or warnings, with `deny_warnings`); they
    /// were printed as `cargo::error=` lines.
    #[error(
        "the policies in `{}` have {errors} error(s) and {warnings} warning(s){}",
        .dir.display(),
        if *.denied_warnings { ", and warnings are denied" } else { "" }
    )]
    Policy {
        /// The folder.
        dir: PathBuf,
        /// How many errors.
        errors: usize,
        /// How many warnings.
        warnings: usize,
        /// Whether the build failed for warnings alone.
        denied_warnings: bool,
        /// The diagnostics as people read them (source snippets).
        rendered: String,
    },
    /// The compiled artifact does not load (a bug in hookc).
    #[error("the compiled artifact does not load ({0}); this is a bug in hookc")]
    Load(#[source] crate::compile::SourcesError),
    /// The artifact cannot be written.
    #[error("cannot write `{}`: {source}", .path.display())]
    Write {
        /// Where.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The cargo instructions cannot be printed.
    #[error("cannot print cargo instructions: {0}")]
    Output(#[source] std::io::Error),
}

/// Compiles a folder of policies into an artifact; see the module docs.
#[derive(Debug, Clone)]
pub struct Builder {
    dir: PathBuf,
    out_name: String,
    out_dir: Option<PathBuf>,
    deny_warnings: bool,
}

impl Builder {
    /// A builder for the policies under `dir` (relative to the package, where
    /// build scripts run).
    pub fn new(dir: impl Into<PathBuf>) -> Builder {
        Builder {
            dir: dir.into(),
            out_name: "policy.hkb".to_owned(),
            out_dir: None,
            deny_warnings: false,
        }
    }

    /// The artifact's file name in the output folder (default `policy.hkb`).
    pub fn out_name(mut self, name: impl Into<String>) -> Builder {
        self.out_name = name.into();
        self
    }

    /// The output folder (default: the `OUT_DIR` cargo gives build scripts).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Builder {
        self.out_dir = Some(dir.into());
        self
    }

    /// Fail the build on warnings too (like `hookc compile --deny-warnings`).
    pub fn deny_warnings(mut self, deny: bool) -> Builder {
        self.deny_warnings = deny;
        self
    }

    /// Compiles, printing cargo instructions on standard output (what cargo
    /// reads from a build script); returns the artifact's path. Errors are
    /// printed as `cargo::error=` lines as well as returned.
    pub fn compile(&self) -> Result<PathBuf, BuildError> {
        self.compile_with(&mut std::io::stdout().lock())
    }

    /// [`Builder::compile`], printing the cargo instructions to `out`.
    pub fn compile_with(&self, out: &mut dyn Write) -> Result<PathBuf, BuildError> {
        let result = self.build(out);
        match &result {
            // Printed already, diagnostic by diagnostic; or printing is what failed.
            Ok(_) | Err(BuildError::Policy { .. } | BuildError::Output(_)) => {}
            Err(e) => writeln!(out, "cargo::error=hookc: {e}").map_err(BuildError::Output)?,
        }
        result
    }

    fn build(&self, out: &mut dyn Write) -> Result<PathBuf, BuildError> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::NoOutDir)?,
        };
        let files = self.policy_files()?;
        let mut emit = |line: String| writeln!(out, "{line}").map_err(BuildError::Output);
        emit(format!("cargo::rerun-if-changed={}", self.dir.display()))?;
        for f in &files {
            emit(format!("cargo::rerun-if-changed={}", f.path.display()))?;
        }
        if files.is_empty() {
            return Err(BuildError::NoPolicies {
                dir: self.dir.clone(),
            });
        }
        let inputs = files
            .iter()
            .map(files::read_input)
            .collect::<Result<Vec<_>, _>>()?;
        let c = compile(&inputs);
        let errors = c.diagnostics.error_count();
        let warnings = c.diagnostics.warning_count();
        let failed = errors > 0 || (self.deny_warnings && warnings > 0);
        for line in self.cargo_lines(&c, failed) {
            emit(line)?;
        }
        if failed {
            let all: Vec<&Diagnostic> = c.diagnostics.iter().collect();
            return Err(BuildError::Policy {
                dir: self.dir.clone(),
                errors,
                warnings,
                denied_warnings: errors == 0,
                rendered: render::human(&all, &c.sources),
            });
        }
        let bytes = c
            .into_artifact(ArtifactDebug::Keep)
            .map_err(BuildError::Load)?;
        let path = out_dir.join(&self.out_name);
        std::fs::write(&path, bytes).map_err(|source| BuildError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Every diagnostic, line by line, as cargo warnings or errors, then
    /// the summary.
    fn cargo_lines(&self, c: &Compilation, failed: bool) -> Vec<String> {
        let mut lines = Vec::new();
        for d in c.diagnostics.iter() {
            // Cargo takes one line per instruction; a warning is an error
            // when warnings are denied.
            let kind = if d.is_error() || (failed && self.deny_warnings) {
                "error"
            } else {
                "warning"
            };
            let text = render::human(&[d], &c.sources);
            lines.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| format!("cargo::{kind}={l}")),
            );
        }
        if !c.diagnostics.is_empty() {
            let kind = if failed { "error" } else { "warning" };
            lines.push(format!(
                "cargo::{kind}=hookc: `{}`: {}",
                self.dir.display(),
                crate::summary(c)
            ));
        }
        lines
    }

    /// The policy files under the folder, sorted by path, named relative to
    /// it. A walk with an explicit stack; symbolic links to folders are not
    /// followed (no cycles).
    fn policy_files(&self) -> Result<Vec<PolicyFile>, BuildError> {
        let read_dir = |dir: &Path| {
            std::fs::read_dir(dir).map_err(|source| BuildError::ReadDir {
                dir: dir.to_path_buf(),
                source,
            })
        };
        let mut found = Vec::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            let dir = self.dir.join(&rel);
            for entry in read_dir(&dir)? {
                let entry = entry.map_err(|source| BuildError::ReadDir {
                    dir: dir.clone(),
                    source,
                })?;
                let rel = rel.join(entry.file_name());
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir {
                    stack.push(rel);
                } else if is_policy_file(&rel) {
                    found.push(rel);
                }
            }
        }
        found.sort();
        Ok(found
            .into_iter()
            .map(|rel| PolicyFile::named(rel.display().to_string(), self.dir.join(&rel)))
            .collect())
    }
}

/// `*.yaml`, `*.yml` or `*.xml`, but not a `*.test.yaml` test file.
fn is_policy_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let policy = [".yaml", ".yml", ".xml"].iter().any(|x| name.ends_with(x));
    let test = [".test.yaml", ".test.yml"]
        .iter()
        .any(|x| name.ends_with(x));
    policy && !test
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_files_are_yaml_and_xml_but_not_tests() {
        for (name, yes) in [
            ("hooks.yaml", true),
            ("a/b.YML", true),
            ("directive.xml", true),
            ("hooks.test.yaml", false),
            ("notes.md", false),
            ("yaml", false),
        ] {
            assert_eq!(is_policy_file(Path::new(name)), yes, "{name}");
        }
    }
}
