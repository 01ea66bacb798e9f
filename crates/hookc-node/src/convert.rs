//! JavaScript values as JSON, read as `JSON.stringify` would write them:
//! `undefined`, functions and symbols are left out of objects and are
//! `null` in arrays; an object is its own enumerable string keys, in
//! their order; an array its elements.
//!
//! As `JSON.stringify`, a boxed primitive (`new String('a')`) is its
//! primitive and a `Proxy` of an array is an array.
//!
//! Where `JSON.stringify` would quietly change a value, this refuses it
//! ([`NotJson`], in JavaScript's words): NaN and the infinities (which
//! `JSON.stringify` writes as `null`, so a comparison would silently read
//! null), an object with a `toJSON` method such as a `Date` (not called:
//! convert it first), a BigInt beyond 64 bits. A BigInt that fits is a
//! number (`JSON.stringify` throws on every BigInt). A number that is an
//! integer of an `i64` or `u64` is an integer, as its `JSON.stringify`
//! text is, so that results print as the CLI prints them. An array or
//! object longer than [`MAX_HOST_VALUES`] is refused before it is read.

use crate::js::{Js, JsKind, Scope, Thrown};
use hookc_binding::context::{Language, NotJson, Problem};
use hookc_runtime::limits::{MAX_CONTEXT_DEPTH, MAX_HOST_VALUES};
use serde_json::{Map, Number, Value};
use std::fmt::Write;

/// Why a value could not be read.
#[derive(Debug)]
pub enum Unreadable {
    /// It has no JSON form.
    NotJson(NotJson),
    /// Reading it threw (a getter, a `Proxy` trap), at `path`.
    Threw {
        /// Where, as a context path.
        path: String,
        /// The exception's message.
        thrown: Thrown,
    },
}

impl Unreadable {
    /// The same error at `base` + its path.
    pub fn under(self, base: &str) -> Unreadable {
        match self {
            Unreadable::NotJson(e) => Unreadable::NotJson(e.under(base)),
            Unreadable::Threw { path, thrown } => Unreadable::Threw {
                path: format!("{base}{path}"),
                thrown,
            },
        }
    }

    /// The message a `ContextError` carries.
    pub fn message(&self) -> String {
        match self {
            Unreadable::NotJson(e) => e.to_string(),
            Unreadable::Threw { path, thrown } => {
                format!("reading the context at `{path}` threw: {}", thrown.0)
            }
        }
    }
}

fn not_json(path: &str, problem: Problem) -> Unreadable {
    Unreadable::NotJson(NotJson {
        path: path.to_owned(),
        problem,
        language: Language::JavaScript,
    })
}

fn threw(path: &str) -> impl FnOnce(Thrown) -> Unreadable + '_ {
    move |thrown| Unreadable::Threw {
        path: path.to_owned(),
        thrown,
    }
}

/// A JavaScript number as JSON, as `JSON.stringify` writes it and JSON
/// text reads back: an integer when it is one that an `i64` or a `u64`
/// holds; beyond 2^53 the integer of its shortest decimal digits (2^60 is
/// written `1152921504606847000`), which Rust's `Display` for `f64` gives as
/// JavaScript's `Number.prototype.toString` does.
pub fn number(n: f64) -> Option<Number> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    const I64_MIN: f64 = -9_223_372_036_854_775_808.0; // -2^63
    const U64_END: f64 = 18_446_744_073_709_551_616.0; // 2^64
    if n.fract() != 0.0 || !(I64_MIN..U64_END).contains(&n) {
        return Number::from_f64(n);
    }
    if n.abs() < EXACT {
        // Exact: an integral double below 2^53 converts without loss.
        #[allow(clippy::cast_possible_truncation)]
        return Some(Number::from(n as i64));
    }
    let digits = n.to_string();
    digits
        .parse::<i64>()
        .map(Number::from)
        .or_else(|_| digits.parse::<u64>().map(Number::from))
        .ok()
        .or_else(|| Number::from_f64(n))
}

/// `value` as JSON; `None` for what `JSON.stringify` leaves out
/// (`undefined`, a function, a symbol). `path` names where it is,
/// relative to the value first given (`.key[2]`; for errors), `depth`
/// how many arrays and objects enclose it.
pub fn to_value(
    value: Js<'_>,
    path: &mut String,
    depth: usize,
) -> Result<Option<Value>, Unreadable> {
    Ok(Some(match value.kind() {
        JsKind::Undefined | JsKind::Function | JsKind::Symbol => return Ok(None),
        JsKind::Null => Value::Null,
        JsKind::Boolean => Value::Bool(value.boolean().map_err(threw(path))?),
        JsKind::Number => {
            let n = value.number().map_err(threw(path))?;
            match number(n) {
                Some(n) => Value::Number(n),
                None => {
                    let repr = if n.is_nan() {
                        "NaN"
                    } else if n > 0.0 {
                        "Infinity"
                    } else {
                        "-Infinity"
                    };
                    return Err(not_json(
                        path,
                        Problem::Number {
                            repr: repr.to_owned(),
                        },
                    ));
                }
            }
        }
        JsKind::String => {
            let mut s = String::new();
            value.read_string(&mut s).map_err(threw(path))?;
            Value::String(s)
        }
        JsKind::BigInt => match value.bigint().map_err(threw(path))? {
            Some(n) => Value::Number(n),
            None => {
                return Err(not_json(
                    path,
                    Problem::Number {
                        repr: "a BigInt beyond 64 bits".to_owned(),
                    },
                ))
            }
        },
        JsKind::External => {
            return Err(not_json(
                path,
                Problem::Type {
                    found: "a native external value".to_owned(),
                },
            ))
        }
        JsKind::Object => {
            if depth >= MAX_CONTEXT_DEPTH {
                return Err(not_json(path, Problem::TooDeep));
            }
            if is_array(value).map_err(threw(path))? {
                array(value, path, depth)?
            } else if let Some(primitive) = unboxed(value).map_err(threw(path))? {
                return to_value(primitive, path, depth);
            } else {
                object(value, path, depth)?
            }
        }
    }))
}

/// `Array.isArray(value)`: true for a `Proxy` of an array too (N-API's
/// own test is not).
pub fn is_array(value: Js<'_>) -> Result<bool, Thrown> {
    if value.is_array() {
        return Ok(true);
    }
    let scope = Scope::of(value);
    let array = global(scope, "Array")?;
    let is_array = value_key(array, "isArray")?;
    match is_array {
        Some(f) if f.kind() == JsKind::Function => {
            let yes = f.call(array, &[value])?;
            Ok(yes.kind() == JsKind::Boolean && yes.boolean()?)
        }
        _ => Ok(false),
    }
}

/// The primitive of a `String`, `Number` or `Boolean` object (what
/// `JSON.stringify` writes for it), through its prototype's `valueOf`.
fn unboxed<'s>(value: Js<'s>) -> Result<Option<Js<'s>>, Thrown> {
    let scope = Scope::of(value);
    for name in ["String", "Number", "Boolean"] {
        let constructor = global(scope, name)?;
        if constructor.kind() != JsKind::Function || !value.instance_of(constructor)? {
            continue;
        }
        let Some(prototype) = value_key(constructor, "prototype")? else {
            continue;
        };
        if let Some(value_of) = value_key(prototype, "valueOf")? {
            if value_of.kind() == JsKind::Function {
                return value_of.call(value, &[]).map(Some);
            }
        }
    }
    Ok(None)
}

/// `globalThis[name]`.
fn global<'s>(scope: Scope<'s>, name: &str) -> Result<Js<'s>, Thrown> {
    let global = scope.global()?;
    Ok(value_key(global, name)?.unwrap_or(global))
}

/// The error for an array or object longer than a context may hold.
fn too_large(path: &str, len: u64) -> Result<(), Unreadable> {
    if len > MAX_HOST_VALUES as u64 {
        return Err(not_json(path, Problem::TooLarge { len }));
    }
    Ok(())
}

fn array(value: Js<'_>, path: &mut String, depth: usize) -> Result<Value, Unreadable> {
    let len = array_length(value).map_err(threw(path))?;
    too_large(path, u64::from(len))?;
    let mut out = Vec::with_capacity(len.min(1024) as usize);
    for i in 0..len {
        let item = value.element(i).map_err(threw(path))?;
        let at = path.len();
        // Writing to a String cannot fail.
        let _ = write!(path, "[{i}]");
        let v = to_value(item, path, depth + 1);
        path.truncate(at);
        out.push(v?.unwrap_or(Value::Null));
    }
    Ok(Value::Array(out))
}

fn object(value: Js<'_>, path: &mut String, depth: usize) -> Result<Value, Unreadable> {
    let scope_key = |name: &str| value_key(value, name);
    if let Some(to_json) = scope_key("toJSON").map_err(threw(path))? {
        if to_json.kind() == JsKind::Function {
            return Err(not_json(
                path,
                Problem::Type {
                    found:
                        "an object with a `toJSON` method (a Date?), which hookc does not call: \
                            convert it first"
                            .to_owned(),
                },
            ));
        }
    }
    let keys = value.own_keys().map_err(threw(path))?;
    let n = keys.array_len().map_err(threw(path))?;
    too_large(path, u64::from(n))?;
    let mut out = Map::new();
    let mut name = String::new();
    for i in 0..n {
        let key = keys.element(i).map_err(threw(path))?;
        key.read_string(&mut name).map_err(threw(path))?;
        let Some(member) = value.get(key).map_err(threw(path))? else {
            continue;
        };
        let at = path.len();
        path.push('.');
        path.push_str(&name);
        let v = to_value(member, path, depth + 1);
        path.truncate(at);
        if let Some(v) = v? {
            out.insert(name.clone(), v);
        }
    }
    Ok(Value::Object(out))
}

/// `value[name]`, with the key made for the call.
fn value_key<'s>(value: Js<'s>, name: &str) -> Result<Option<Js<'s>>, Thrown> {
    let key = Scope::of(value).string(name)?;
    value.get(key)
}

/// An array's `length`: N-API's for an array, the `length` property for a
/// `Proxy` of one.
pub fn array_length(value: Js<'_>) -> Result<u32, Thrown> {
    if value.is_array() {
        return value.array_len();
    }
    match value_key(value, "length")? {
        Some(len) if len.kind() == JsKind::Number => {
            let n = len.number()?;
            // An array's length is an integer below 2^32.
            Ok(if (0.0..4_294_967_296.0).contains(&n) {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let n = n as u32;
                n
            } else {
                0
            })
        }
        _ => Ok(0),
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn integers_stay_integers() {
        assert_eq!(number(3.0).map(|n| n.to_string()), Some("3".to_owned()));
        assert_eq!(number(-0.0).map(|n| n.to_string()), Some("0".to_owned()));
        assert_eq!(number(0.5).map(|n| n.to_string()), Some("0.5".to_owned()));
        assert_eq!(
            number(1e300).map(|n| n.to_string()),
            Some("1e+300".to_owned())
        );
        assert!(number(f64::NAN).is_none() && number(f64::INFINITY).is_none());
    }
}
