//! A JavaScript object as an evaluation's context, without converting it:
//! the runtime asks for each path a hook reads ([`PathLookup`]), at most
//! once per evaluation, and only that path is walked on the JavaScript
//! object and only the value found there converted ([`crate::convert`]).
//! The Node counterpart of the Python package's mapping lookup and of the
//! runtime's JSON-text extractor.
//!
//! A path resolves as it would on the object's `JSON.stringify` text: an
//! own property of an object that is not an array (`obj[key]`, getters
//! run; an inherited property is missing), a non-negative index of an
//! array (or a `Proxy` of one) below its length. Stepping into a scalar, a
//! field of an array or an index of a non-array does not resolve;
//! `undefined`, a function or a symbol found at the end is missing as an
//! object's member and `null` as an array's element, as `JSON.stringify`
//! writes them. A value with no JSON
//! form, or a read that throws, is an error: the evaluation's answer is
//! dropped and the error thrown as a `ContextError`.

use crate::convert::{array_length, is_array, to_value, Unreadable};
use crate::js::{Js, JsKind, Scope, Thrown};
use hookc_runtime::bytecode::path::{Path, Step};
use hookc_runtime::PathLookup;
use serde_json::Value;
use std::cell::RefCell;

/// One step of a policy path, prepared once per policy object: a field
/// name as a position in the policy's array of key strings (made in its
/// environment), so that a lookup creates no strings.
#[derive(Debug, Clone, Copy)]
pub enum KeyStep {
    /// An object key: the position of its string in the key array.
    Field(u32),
    /// An array position (negative ones never resolve).
    Index(i64),
}

/// The steps of every path of a policy, by path index, and the distinct
/// field names they use, in key-array order.
#[derive(Debug, Default)]
pub struct PreparedPaths {
    /// Per path index, its steps.
    pub steps: Vec<Vec<KeyStep>>,
    /// The key strings to make, once, in the policy object's environment.
    pub names: Vec<String>,
}

impl PreparedPaths {
    /// Prepares `paths` (the policy's context paths, by index).
    pub fn new(paths: &[Path]) -> PreparedPaths {
        let mut names: Vec<String> = Vec::new();
        let mut position = std::collections::HashMap::<String, u32>::new();
        let steps = paths
            .iter()
            .map(|p| {
                p.steps()
                    .map(|s| match s {
                        Step::Field(name) => {
                            let next = u32::try_from(names.len()).unwrap_or(u32::MAX);
                            let at = *position.entry(name.to_owned()).or_insert_with(|| {
                                names.push(name.to_owned());
                                next
                            });
                            KeyStep::Field(at)
                        }
                        Step::Index(i) => KeyStep::Index(i),
                    })
                    .collect()
            })
            .collect();
        PreparedPaths { steps, names }
    }
}

/// A JavaScript object as the context of one evaluation; remembers the
/// first error.
pub struct ObjectLookup<'a, 's> {
    root: Js<'s>,
    /// The policy's key strings (a JavaScript array).
    keys: Js<'s>,
    steps: &'a [Vec<KeyStep>],
    error: RefCell<Option<Unreadable>>,
}

impl<'a, 's> ObjectLookup<'a, 's> {
    /// A lookup on `root` through `steps`, whose field keys are in `keys`.
    pub fn new(root: Js<'s>, keys: Js<'s>, steps: &'a [Vec<KeyStep>]) -> Self {
        ObjectLookup {
            root,
            keys,
            steps,
            error: RefCell::new(None),
        }
    }

    /// The first error a lookup met, if any.
    pub fn take_error(&self) -> Option<Unreadable> {
        self.error.borrow_mut().take()
    }

    fn walk(&self, index: usize, path: &Path) -> Result<Option<Value>, Unreadable> {
        let Some(steps) = self.steps.get(index) else {
            return Ok(None);
        };
        let thrown = |thrown: Thrown| Unreadable::Threw {
            path: path.to_string(),
            thrown,
        };
        // The kind of `cur`, known from the read that found it (the root
        // is an object: `fast.rs` checked).
        let (mut cur, mut kind) = (self.root, JsKind::Object);
        let mut from_array = false;
        for step in steps {
            if kind != JsKind::Object {
                return Ok(None);
            }
            let next = match *step {
                KeyStep::Field(at) => {
                    if cur.is_array() {
                        return Ok(None);
                    }
                    let key = self.keys.element(at).map_err(thrown)?;
                    match cur.get_kind(key).map_err(thrown)? {
                        // Only own properties, as `JSON.stringify` writes
                        // (asked only of what was found: a miss is common).
                        Some(found) if cur.has_own(key).map_err(thrown)? => Some(found),
                        _ => None,
                    }
                }
                KeyStep::Index(i) => {
                    let Ok(i) = u32::try_from(i) else {
                        return Ok(None);
                    };
                    // N-API's array test first; `Array.isArray` (a `Proxy`
                    // of an array) only when that fails.
                    let array = cur.is_array() || is_array(cur).map_err(thrown)?;
                    if !array || i >= array_length(cur).map_err(thrown)? {
                        return Ok(None);
                    }
                    let v = cur.element(i).map_err(thrown)?;
                    Some((v, v.kind()))
                }
            };
            from_array = matches!(step, KeyStep::Index(_));
            match next {
                Some(next) => (cur, kind) = next,
                None => return Ok(None),
            }
        }
        let value = to_value(cur, &mut String::new(), steps.len())
            .map_err(|e| e.under(&path.to_string()))?;
        // An array element `JSON.stringify` cannot write (a hole,
        // `undefined`, a function, a symbol) is `null` there.
        Ok(match value {
            None if from_array => Some(Value::Null),
            other => other,
        })
    }
}

impl PathLookup for ObjectLookup<'_, '_> {
    fn lookup(&self, index: usize, path: &Path) -> Option<Value> {
        if self.error.borrow().is_some() {
            return None;
        }
        match self.walk(index, path) {
            Ok(v) => v,
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                None
            }
        }
    }

    /// The whole object as JSON, for a transform or an awaited result to
    /// patch (converted only then).
    fn document(&self) -> Option<Value> {
        if self.error.borrow().is_some() {
            return None;
        }
        match to_value(self.root, &mut String::new(), 0) {
            Ok(v) => Some(v.unwrap_or(Value::Null)),
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                None
            }
        }
    }
}

/// The key strings of `names`, made in `scope`, as one JavaScript array.
pub fn key_array<'s>(scope: Scope<'s>, names: &[String]) -> Result<Js<'s>, Thrown> {
    let strings = names
        .iter()
        .map(|n| scope.string(n))
        .collect::<Result<Vec<_>, _>>()?;
    scope.array(&strings)
}
