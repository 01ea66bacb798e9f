//! The deciding action built straight into JavaScript values: an
//! [`ActionSink`] for the runtime's one action filling
//! ([`hookc_runtime::Query::first_with`]), so that `evaluate` from an
//! object makes each object, array and string of its answer once, instead
//! of filling a `serde_json` map, converting it ([`Scope::json`]) and
//! freeing it. (The Python package's sink, `crates/hookc-python/src/action.rs`,
//! does the same with Python objects.)

use crate::js::{Js, Scope, Thrown};
use hookc_runtime::{ActionSink, Name};
use serde_json::Value;
use std::borrow::Cow;

/// Builds an action's JavaScript values in one call's scope; keeps the
/// first failure of N-API (a value is then `None`) for its caller
/// ([`JsSink::finish`]).
pub struct JsSink<'s> {
    scope: Scope<'s>,
    /// How many objects and arrays enclose what is built now (answers nest
    /// at most [`crate::MAX_ANSWER_DEPTH`] deep, as [`Scope::json`] holds
    /// them).
    depth: usize,
    error: Option<Thrown>,
}

impl<'s> JsSink<'s> {
    /// A sink building in `scope`, its values `depth` levels down in the
    /// answer.
    pub fn new(scope: Scope<'s>, depth: usize) -> JsSink<'s> {
        JsSink {
            scope,
            depth,
            error: None,
        }
    }

    /// `value`, or the first failure met while building it.
    pub fn finish<T>(mut self, value: Option<T>) -> Result<T, Thrown> {
        match (self.error.take(), value) {
            (Some(e), _) => Err(e),
            (None, Some(v)) => Ok(v),
            (None, None) => Err(Thrown("an action was not built".to_owned())),
        }
    }

    /// `r`'s value, its failure kept.
    fn kept<T>(&mut self, r: Result<T, Thrown>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e);
                }
                None
            }
        }
    }
}

impl<'s> ActionSink for JsSink<'s> {
    type Value = Option<Js<'s>>;
    type Object = Option<Js<'s>>;
    /// The array and its length so far.
    type List = Option<(Js<'s>, u32)>;

    fn object(&mut self, _len: usize) -> Option<Js<'s>> {
        self.depth += 1;
        let r = self.scope.object();
        self.kept(r)
    }

    fn insert(&mut self, object: &mut Option<Js<'s>>, key: Name<'_>, value: Option<Js<'s>>) {
        if let (Some(object), Some(value)) = (*object, value) {
            let r = object.set(key.text(), value);
            self.kept(r);
        }
    }

    fn end_object(&mut self, object: Option<Js<'s>>) -> Option<Js<'s>> {
        self.depth = self.depth.saturating_sub(1);
        object
    }

    fn list(&mut self, _len: usize) -> Option<(Js<'s>, u32)> {
        self.depth += 1;
        let r = self.scope.array(&[]);
        self.kept(r).map(|array| (array, 0))
    }

    fn push(&mut self, list: &mut Option<(Js<'s>, u32)>, item: Option<Js<'s>>) {
        if let (Some((array, len)), Some(item)) = (list.as_mut(), item) {
            let r = array.set_element(*len, item);
            *len = len.saturating_add(1);
            self.kept(r);
        }
    }

    fn end_list(&mut self, list: Option<(Js<'s>, u32)>) -> Option<Js<'s>> {
        self.depth = self.depth.saturating_sub(1);
        list.map(|(array, _)| array)
    }

    fn json(&mut self, value: Cow<'_, Value>) -> Option<Js<'s>> {
        let r = self.scope.json(&value, self.depth);
        self.kept(r)
    }

    fn string(&mut self, text: String) -> Option<Js<'s>> {
        let r = self.scope.string(&text);
        self.kept(r)
    }

    fn name(&mut self, name: Name<'_>) -> Option<Js<'s>> {
        let r = self.scope.string(name.text());
        self.kept(r)
    }

    fn null(&mut self) -> Option<Js<'s>> {
        let r = self.scope.json(&Value::Null, 0);
        self.kept(r)
    }
}
