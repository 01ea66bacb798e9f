//! A Python mapping as an evaluation's context, without converting it: the
//! runtime asks for each path a hook reads ([`hookc_runtime::PathLookup`]),
//! at most once per evaluation, and only that path is walked on the Python
//! objects and only the value found there is converted
//! ([`crate::convert`]). The Python counterpart of the runtime's JSON-text
//! extractor.
//!
//! A path resolves as it would on the context's JSON: a field of a mapping
//! (`dict`, or any `collections.abc.Mapping`), a non-negative index of a
//! `list` or `tuple`. Stepping into a JSON scalar, or a field of a list,
//! does not resolve (the hook sees a missing value). Stepping into, or
//! reading, a value with no JSON form is an error: the evaluation's answer
//! is dropped and the error raised.

use crate::convert::{describe, into_py_err, to_value, wrong_type};
use hookc_binding::context::FirstError;
use hookc_runtime::bytecode::path::{Path, Step};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde_json::Value;

/// One step of a policy path, prepared once per policy: field names as
/// interned Python strings, so a lookup creates no key objects.
#[derive(Debug)]
pub enum LookupStep {
    /// A mapping key.
    Field(Py<PyString>),
    /// A list or tuple position (negative ones never resolve).
    Index(i64),
}

/// The steps of every path of a program, by path index.
pub fn prepare(py: Python<'_>, paths: &[Path]) -> Vec<Vec<LookupStep>> {
    paths
        .iter()
        .map(|p| {
            p.steps()
                .map(|s| match s {
                    Step::Field(name) => LookupStep::Field(PyString::intern(py, name).unbind()),
                    Step::Index(i) => LookupStep::Index(i),
                })
                .collect()
        })
        .collect()
}

/// A Python context for one evaluation; remembers the first error.
pub struct MappingLookup<'a, 'py> {
    root: &'a Bound<'py, PyAny>,
    steps: &'a [Vec<LookupStep>],
    errors: FirstError<PyErr>,
}

impl<'a, 'py> MappingLookup<'a, 'py> {
    /// A lookup on `root` through the prepared `steps` of the policy's paths.
    pub fn new(root: &'a Bound<'py, PyAny>, steps: &'a [Vec<LookupStep>]) -> Self {
        MappingLookup {
            root,
            steps,
            errors: FirstError::default(),
        }
    }

    /// The first error a lookup met, if any.
    pub fn take_error(&self) -> Option<PyErr> {
        self.errors.take()
    }

    fn walk(&self, index: usize, path: &Path) -> PyResult<Option<Value>> {
        let Some(steps) = self.steps.get(index) else {
            return Ok(None);
        };
        let py = self.root.py();
        let mut cur = self.root.clone();
        for step in steps {
            let next = match step {
                LookupStep::Field(key) => field(&cur, key.bind(py))?,
                LookupStep::Index(i) => position(&cur, *i)?,
            };
            match next {
                Some(Ok(next)) => cur = next,
                Some(Err(())) => {
                    return Err(into_py_err(wrong_type(
                        &path.to_string(),
                        format!("inside {}", describe(&cur)),
                    )))
                }
                None => return Ok(None),
            }
        }
        to_value(&cur, &mut String::new(), steps.len())
            .map(Some)
            .map_err(|e| into_py_err(e.under(&path.to_string())))
    }
}

impl hookc_runtime::PathLookup for MappingLookup<'_, '_> {
    fn lookup(&self, index: usize, path: &Path) -> Option<Value> {
        self.errors.read(|| self.walk(index, path))
    }

    /// The whole mapping as JSON, for a transform or an awaited result to
    /// patch (converted only then); a value with no JSON form is the
    /// lookup's error.
    fn document(&self) -> Option<Value> {
        self.errors.read(|| {
            to_value(self.root, &mut String::new(), 0)
                .map(Some)
                .map_err(into_py_err)
        })
    }
}

/// A step's outcome: `None` does not resolve, `Some(Err(()))` steps into a
/// value with no JSON form.
type Stepped<'py> = Option<Result<Bound<'py, PyAny>, ()>>;

/// `cur[key]` for a mapping.
fn field<'py>(cur: &Bound<'py, PyAny>, key: &Bound<'py, PyString>) -> PyResult<Stepped<'py>> {
    // PERF: dicts first, with no Python-level call. (Subclasses too, read
    // as dicts: a `defaultdict`'s `__missing__` must not add keys.)
    if let Ok(dict) = cur.cast::<PyDict>() {
        return Ok(dict.get_item(key)?.map(Ok));
    }
    if is_json_non_mapping(cur) {
        return Ok(None);
    }
    if let Ok(mapping) = cur.cast::<PyMapping>() {
        return match mapping.get_item(key) {
            Ok(v) => Ok(Some(Ok(v))),
            Err(e) if e.is_instance_of::<PyKeyError>(cur.py()) => Ok(None),
            Err(e) => Err(e),
        };
    }
    Ok(Some(Err(())))
}

/// `cur[i]` for a list or tuple.
fn position<'py>(cur: &Bound<'py, PyAny>, i: i64) -> PyResult<Stepped<'py>> {
    let Ok(i) = usize::try_from(i) else {
        return Ok(None);
    };
    if let Ok(list) = cur.cast::<PyList>() {
        return Ok(list.get_item(i).ok().map(Ok));
    }
    if let Ok(tuple) = cur.cast::<PyTuple>() {
        return Ok(tuple.get_item(i).ok().map(Ok));
    }
    if is_json_non_mapping(cur) || cur.cast::<PyMapping>().is_ok() {
        return Ok(None);
    }
    Ok(Some(Err(())))
}

/// A JSON value that is not an object: a step of the wrong kind into it
/// simply does not resolve, as in JSON.
fn is_json_non_mapping(v: &Bound<'_, PyAny>) -> bool {
    v.is_none()
        || v.cast::<PyString>().is_ok()
        || v.cast::<PyBool>().is_ok()
        || v.cast::<PyInt>().is_ok()
        || v.cast::<PyFloat>().is_ok()
        || v.cast::<PyList>().is_ok()
        || v.cast::<PyTuple>().is_ok()
}
