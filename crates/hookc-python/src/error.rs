//! The module's exception classes (`hookc.CompileError`, `ArtifactError`,
//! `EvaluationError`, the `PolicyWarning` category) and [`py_err`], a
//! binding-layer failure as the Python exception for its kind.

use hookc::files::ReadError;
use hookc_binding::{BindingError, ErrorKind};
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyOSError, PyUserWarning, PyValueError};
use pyo3::PyErr;

pyo3::create_exception!(
    hookc,
    CompileError,
    PyException,
    "The policy sources have errors. `str(e)` is the rendered diagnostics \
     (as `hookc check` prints them); `e.diagnostics` is a list of dicts with \
     `code`, `severity`, `message` and, where known, `file`, `line`, `column`, \
     `end_line`, `end_column`, `node_path`, `label`, `help`, `notes` \
     (as `hookc check --format json` prints them), warnings included."
);
pyo3::create_exception!(
    hookc,
    ArtifactError,
    PyValueError,
    "Artifact bytes that do not load: damaged, from another format version, \
     or failing verification."
);
pyo3::create_exception!(
    hookc,
    EvaluationError,
    PyException,
    "An evaluation with no answer: the matched hook's action, its templates \
     filled, does not fit its declared parameter types (the message names \
     the hook, the parameter, the value and the expected type)."
);
pyo3::create_exception!(
    hookc,
    PolicyWarning,
    PyUserWarning,
    "A warning about compiled policy sources (a lint such as W0004), issued \
     by `compile` and `compile_sources`; the policy still compiled."
);

/// A failure of the binding layer as the Python exception for it.
pub fn py_err(e: BindingError) -> PyErr {
    match e.kind() {
        ErrorKind::FileNotFound => PyFileNotFoundError::new_err(e.to_string()),
        ErrorKind::Read if matches!(e, BindingError::Read(ReadError::Io { .. })) => {
            PyOSError::new_err(e.to_string())
        }
        ErrorKind::Read | ErrorKind::Context | ErrorKind::Argument => {
            PyValueError::new_err(e.to_string())
        }
        ErrorKind::Artifact => ArtifactError::new_err(e.to_string()),
        ErrorKind::Evaluation => EvaluationError::new_err(e.to_string()),
        ErrorKind::Compile => CompileError::new_err(e.to_string()),
        ErrorKind::Internal => PyException::new_err(e.to_string()),
    }
}
