//! The deciding action built straight into Python objects: an
//! [`ActionSink`] for the runtime's one action filling
//! ([`hookc_runtime::Query::first_with`]), so that `evaluate` from a mapping
//! makes each dict, list and str of its answer once, instead of filling a
//! `serde_json` map, converting it ([`crate::convert::to_py`]) and freeing
//! it (callgrind, `error_rate_limited`: about 4,900 instructions filling,
//! 6,200 converting and 2,300 freeing, of 20,100 per call).
//!
//! The policy's names (the `type` key, parameter names, the action type)
//! are made into Python strs once per policy and kept by their
//! [`Name::id`]: an answer's keys are shared objects whose hashes Python
//! has already computed. So are its constants that Python cannot change
//! (strs, numbers), by their ids.

use crate::convert::to_py;
use hookc_runtime::{ActionSink, Name};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Mutex, MutexGuard};

/// A policy's names and immutable constants as Python objects, made on
/// first use.
#[derive(Debug, Default)]
pub struct PyNames(Mutex<Kept>);

/// What [`PyNames`] keeps: the names by [`Name::id`], the constants by
/// their ids ([`ActionSink::constant`]).
#[derive(Debug, Default)]
struct Kept {
    names: Vec<Option<Py<PyString>>>,
    constants: Vec<Option<Py<PyAny>>>,
}

/// Builds an action's Python objects; keeps the first Python error (an
/// exception while building: out of memory) for its caller, which must
/// raise it ([`PySink::finish`]).
pub struct PySink<'a, 'py> {
    py: Python<'py>,
    /// The policy's kept objects; `None` when another evaluation of this thread
    /// holds them (a finalizer that evaluates, run by a garbage collection
    /// while this one builds): then names are made afresh, not waited for.
    kept: Option<MutexGuard<'a, Kept>>,
    error: Option<PyErr>,
}

impl<'a, 'py> PySink<'a, 'py> {
    /// A sink keeping `names` (a policy's) while it builds.
    pub fn new(py: Python<'py>, names: &'a PyNames) -> PySink<'a, 'py> {
        PySink {
            py,
            // (A poisoned lock only means a panic elsewhere while it was
            // held; the strs it holds are whole.)
            kept: match names.0.try_lock() {
                Ok(guard) => Some(guard),
                Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            },
            error: None,
        }
    }

    /// `value`, or the first error met while building it.
    pub fn finish<T>(mut self, value: T) -> PyResult<T> {
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }

    fn fail(&mut self, e: PyErr) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// The policy's str of `name`, made the first time it is asked for.
    fn name_str(&mut self, name: Name<'_>) -> Bound<'py, PyString> {
        let py = self.py;
        let Some(kept) = self.kept.as_mut() else {
            return PyString::new(py, name.text());
        };
        let id = name.id();
        if let Some(Some(s)) = kept.names.get(id) {
            return s.bind(py).clone();
        }
        let s = PyString::new(py, name.text());
        keep(&mut kept.names, id, s.clone().unbind());
        s
    }
}

/// Keeps `object` at `id` in `table`, which grows to hold it: ids are
/// below the count of the policy's strings or constants (plus one), so a
/// table stays that small.
fn keep<T>(table: &mut Vec<Option<T>>, id: usize, object: T) {
    if table.len() <= id {
        table.resize_with(id + 1, || None);
    }
    if let Some(slot) = table.get_mut(id) {
        *slot = Some(object);
    }
}

impl<'py> ActionSink for PySink<'_, 'py> {
    type Value = Bound<'py, PyAny>;
    type Object = Bound<'py, PyDict>;
    type List = Bound<'py, PyList>;

    fn object(&mut self, _len: usize) -> Bound<'py, PyDict> {
        PyDict::new(self.py)
    }

    fn insert(&mut self, object: &mut Bound<'py, PyDict>, key: Name<'_>, value: Bound<'py, PyAny>) {
        let key = self.name_str(key);
        if let Err(e) = object.set_item(key, value) {
            self.fail(e);
        }
    }

    fn end_object(&mut self, object: Bound<'py, PyDict>) -> Bound<'py, PyAny> {
        object.into_any()
    }

    fn list(&mut self, _len: usize) -> Bound<'py, PyList> {
        PyList::empty(self.py)
    }

    fn push(&mut self, list: &mut Bound<'py, PyList>, item: Bound<'py, PyAny>) {
        if let Err(e) = list.append(item) {
            self.fail(e);
        }
    }

    fn end_list(&mut self, list: Bound<'py, PyList>) -> Bound<'py, PyAny> {
        list.into_any()
    }

    fn json(&mut self, value: Cow<'_, Value>) -> Bound<'py, PyAny> {
        match to_py(self.py, &value) {
            Ok(v) => v,
            Err(e) => {
                self.fail(e);
                self.py.None().into_bound(self.py)
            }
        }
    }

    fn constant(&mut self, value: &Value, id: usize) -> Bound<'py, PyAny> {
        // Lists and dicts are made afresh: the caller may change them.
        let immutable = matches!(value, Value::String(_) | Value::Number(_));
        if let (true, Some(kept)) = (immutable, self.kept.as_ref()) {
            if let Some(Some(v)) = kept.constants.get(id) {
                return v.bind(self.py).clone();
            }
        }
        match to_py(self.py, value) {
            Ok(v) => {
                // Only a conversion that succeeded is kept: a failed one
                // (out of memory) must fail again, not answer `None` later.
                if let (true, Some(kept)) = (immutable, self.kept.as_mut()) {
                    keep(&mut kept.constants, id, v.clone().unbind());
                }
                v
            }
            Err(e) => {
                self.fail(e);
                self.py.None().into_bound(self.py)
            }
        }
    }

    fn string(&mut self, text: String) -> Bound<'py, PyAny> {
        PyString::new(self.py, &text).into_any()
    }

    fn name(&mut self, name: Name<'_>) -> Bound<'py, PyAny> {
        self.name_str(name).into_any()
    }

    fn null(&mut self) -> Bound<'py, PyAny> {
        self.py.None().into_bound(self.py)
    }
}
