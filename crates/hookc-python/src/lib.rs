//! The `hookc` Python module: compile hookc policies from files or strings
//! and evaluate agent-hook events against them in-process, with results
//! that are exactly what the `hookc` command prints (README "Python"; the
//! Python-facing reference is the stubs, `hookc.pyi`).
//!
//! - [`compile`] and [`compile_sources`]: the compiler crate's file reading
//!   and compilation, diagnostics as `CompileError`;
//! - [`policy`]: `hookc.Policy` (load, artifact bytes, evaluate, decide,
//!   evaluate_all, explain, hook_ids);
//! - [`lookup`]: a Python mapping as a context, read only at the paths the
//!   policy reads;
//! - [`convert`]: values between Python and JSON;
//! - [`action`]: the deciding action built straight into Python objects;
//! - [`error`]: the exception classes, and a failure as one of them.

use hookc::files::PolicyFile;
use hookc_binding::compile::{compile_files, compile_texts, layered, Compiled};
use hookc_binding::BindingError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyMapping, PyString};
use std::path::PathBuf;

mod action;
mod convert;
mod error;
mod lookup;
mod policy;

use convert::{describe, to_py};
use error::{py_err, ArtifactError, CompileError, EvaluationError, PolicyWarning};
use policy::PyPolicy;

/// Compiles policy files (YAML hook files, directive XML) in source order
/// into a `Policy`; `layers` instead maps layer names (lowest first) to
/// files. Raises `CompileError` for errors, `OSError` for unreadable files;
/// warnings are issued as `PolicyWarning`s.
#[pyfunction]
#[pyo3(signature = (paths = None, *, layers = None))]
fn compile(
    py: Python<'_>,
    paths: Option<&Bound<'_, PyAny>>,
    layers: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyPolicy> {
    let mut files = Vec::new();
    if let Some(paths) = paths {
        files.extend(path_list(paths, "paths")?.into_iter().map(PolicyFile::new));
    }
    if let Some(layers) = layers {
        if !files.is_empty() {
            return Err(PyValueError::new_err(
                "give either `paths` or `layers`: with layers, every file is in a layer",
            ));
        }
        let layers = layers.cast::<PyMapping>().map_err(|_| {
            PyTypeError::new_err(format!(
                "`layers` maps layer names to files (a dict), not {}",
                describe(layers)
            ))
        })?;
        let mut named = Vec::new();
        for item in layers.items()?.iter() {
            let (name, value): (String, Bound<'_, PyAny>) = item.extract()?;
            named.push((name, path_list(&value, "each layer")?));
        }
        files = layered(named).map_err(py_err)?;
    }
    if files.is_empty() {
        return Err(PyValueError::new_err(
            "no policy given: name its files, compile([\"hooks.yaml\"]), or its layers",
        ));
    }
    let compiled = py.detach(|| compile_files(&files));
    into_policy(py, compiled)
}

/// Compiles policy sources given as text, `{name: text}` in source order
/// (the names are what diagnostics and default hook ids use; the format is
/// detected from the name and text, as for files).
#[pyfunction]
fn compile_sources(py: Python<'_>, sources: &Bound<'_, PyAny>) -> PyResult<PyPolicy> {
    let sources = sources.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "`sources` maps names to policy texts (a dict), not {}",
            describe(sources)
        ))
    })?;
    let mut inputs = Vec::new();
    for item in sources.items()?.iter() {
        let (name, text): (String, String) = item.extract().map_err(|_| {
            PyTypeError::new_err("`sources` maps str names to str texts: {\"hooks.yaml\": \"...\"}")
        })?;
        inputs.push((name, text));
    }
    let compiled = py.detach(|| compile_texts(inputs));
    into_policy(py, compiled)
}

/// One path or a sequence of them (str or `os.PathLike`).
fn path_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<PathBuf>> {
    if obj.cast::<PyString>().is_ok() || obj.hasattr("__fspath__")? {
        return Ok(vec![obj.extract()?]);
    }
    obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} takes file paths (str or os.PathLike, or a list of them), not {}",
            describe(obj)
        ))
    })
}

/// The policy of a compilation, its warnings issued as `PolicyWarning`s;
/// its errors raised as `CompileError` with their diagnostics.
fn into_policy(py: Python<'_>, compiled: Result<Compiled, BindingError>) -> PyResult<PyPolicy> {
    let compiled = match compiled {
        Ok(c) => c,
        Err(BindingError::Compile(report)) => {
            let err = CompileError::new_err(report.text);
            let list = PyList::empty(py);
            for d in &report.diagnostics {
                list.append(to_py(py, d)?)?;
            }
            err.value(py).setattr("diagnostics", list)?;
            return Err(err);
        }
        Err(e) => return Err(py_err(e)),
    };
    if let Some(warnings) = &compiled.warnings {
        let category = py.get_type::<PolicyWarning>();
        let msg = std::ffi::CString::new(warnings.text.replace('\0', " "))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyErr::warn(py, &category, &msg, 1)?;
    }
    PyPolicy::new(py, compiled.policy)
}

/// hookc: compile agent-hook policies and evaluate events against them.
///
/// `compile(paths)` or `compile_sources({name: text})` gives a `Policy`;
/// `policy.evaluate(event, context)` answers what `hookc eval` prints, as
/// Python values. A context is a dict (read only at the paths the policy
/// reads) or JSON text as str or bytes (evaluated with the GIL released).
/// See the stubs (`hookc/__init__.pyi`) for every function and exception.
#[pymodule(name = "hookc")]
fn hookc_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(compile_sources, m)?)?;
    m.add_class::<PyPolicy>()?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("ArtifactError", py.get_type::<ArtifactError>())?;
    m.add("EvaluationError", py.get_type::<EvaluationError>())?;
    m.add("PolicyWarning", py.get_type::<PolicyWarning>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
