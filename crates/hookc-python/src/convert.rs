//! Values between Python and JSON: results (`serde_json::Value`, as the
//! CLI prints them) into Python objects, and the context values a policy
//! reads from a Python mapping into `Value`s.
//!
//! The conversion of a Python value is JSON's: `None`, `bool`, `int`,
//! `float`, `str`, `list` and `tuple`, `dict` and other mappings with `str`
//! keys. Anything else (a `set`, `bytes`, a `datetime`, an object), a
//! non-`str` key, a `float` that is NaN or infinite (JSON has no such
//! numbers) or an `int` too large for a double has no JSON form: a
//! [`NotJson`] (the binding layer's, shared with the Node package) naming
//! the path where it was found, raised as `TypeError` or `ValueError`. Only the values at the paths the policy reads are ever
//! converted.

use hookc_binding::context::{Language, NotJson, Problem};
use hookc_runtime::limits::MAX_CONTEXT_DEPTH;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use std::fmt::Write;

/// The error for a value of the wrong type at `path`.
pub fn wrong_type(path: &str, found: String) -> NotJson {
    NotJson {
        path: path.to_owned(),
        problem: Problem::Type { found },
        language: Language::Python,
    }
}

/// The Python exception: `TypeError` for a type, `ValueError` for a value.
pub fn into_py_err(e: NotJson) -> PyErr {
    if e.is_type() {
        PyTypeError::new_err(e.to_string())
    } else {
        PyValueError::new_err(e.to_string())
    }
}

/// What a Python object is, for messages: `a set`, `an object of type Foo`.
pub fn describe(obj: &Bound<'_, PyAny>) -> String {
    let name = obj
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    match name.as_str() {
        "set" | "frozenset" | "bytes" | "bytearray" | "complex" | "datetime" | "date" => {
            format!("a {name}")
        }
        _ => format!("an object of type `{name}`"),
    }
}

/// A Python value as JSON. `path` names where it is, relative to the value
/// first given (`.key[2]`; for errors), `depth` how many lists and mappings
/// enclose it.
pub fn to_value(obj: &Bound<'_, PyAny>, path: &mut String, depth: usize) -> Result<Value, NotJson> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_cow()
            .map(|s| Value::String(s.into_owned()))
            .map_err(|_| {
                wrong_type(
                    path,
                    "a str that is not valid Unicode (a lone surrogate)".to_owned(),
                )
            });
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        // As `serde_json` reads such an integer from text: a double.
        return float(obj, obj.extract::<f64>().ok(), path);
    }
    if obj.cast::<PyFloat>().is_ok() {
        return float(obj, obj.extract::<f64>().ok(), path);
    }
    if depth >= MAX_CONTEXT_DEPTH {
        return Err(NotJson {
            path: path.clone(),
            problem: Problem::TooDeep,
            language: Language::Python,
        });
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return items(list.iter(), path, depth);
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return items(tuple.iter(), path, depth);
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        return entries(dict.iter().map(Ok), path, depth);
    }
    if let Ok(mapping) = obj.cast::<PyMapping>() {
        let found = || wrong_type(path, describe(obj));
        let pairs = mapping.items().map_err(|_| found())?;
        let pairs: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> =
            pairs.extract().map_err(|_| found())?;
        return entries(pairs.into_iter().map(Ok), path, depth);
    }
    Err(wrong_type(path, describe(obj)))
}

/// A finite double, or what JSON cannot hold.
fn float(obj: &Bound<'_, PyAny>, f: Option<f64>, path: &str) -> Result<Value, NotJson> {
    match f.and_then(Number::from_f64) {
        Some(n) => Ok(Value::Number(n)),
        None => Err(NotJson {
            path: path.to_owned(),
            problem: Problem::Number {
                repr: obj
                    .repr()
                    .map_or_else(|_| "a number".to_owned(), |r| r.to_string()),
            },
            language: Language::Python,
        }),
    }
}

fn items<'py>(
    iter: impl Iterator<Item = Bound<'py, PyAny>>,
    path: &mut String,
    depth: usize,
) -> Result<Value, NotJson> {
    let mut out = Vec::new();
    for (i, item) in iter.enumerate() {
        let len = path.len();
        // Writing to a String cannot fail.
        let _ = write!(path, "[{i}]");
        let v = to_value(&item, path, depth + 1);
        path.truncate(len);
        out.push(v?);
    }
    Ok(Value::Array(out))
}

fn entries<'py>(
    iter: impl Iterator<Item = Result<(Bound<'py, PyAny>, Bound<'py, PyAny>), NotJson>>,
    path: &mut String,
    depth: usize,
) -> Result<Value, NotJson> {
    let mut out = Map::new();
    for pair in iter {
        let (key, value) = pair?;
        let Ok(key) = key
            .cast::<PyString>()
            .map(|k| k.to_string_lossy().into_owned())
        else {
            return Err(wrong_type(
                path,
                format!("a mapping with a key that is {}", describe(&key)),
            ));
        };
        let len = path.len();
        path.push('.');
        path.push_str(&key);
        let v = to_value(&value, path, depth + 1);
        path.truncate(len);
        out.insert(key, v?);
    }
    Ok(Value::Object(out))
}

/// A JSON value as Python objects: `dict` (in the value's key order),
/// `list`, `str`, `int`, `float`, `bool`, `None`.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
