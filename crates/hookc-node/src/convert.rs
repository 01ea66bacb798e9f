//! JavaScript values as JSON, read as `JSON.stringify` would write them:
//! `undefined`, functions and symbols are left out of objects and are
//! `null` in arrays; an object is its own enumerable string keys, in
//! their order; an array its elements.
//!
//! Where `JSON.stringify` would quietly change a value, this refuses it
//! ([`NotJson`], in JavaScript's words): NaN and the infinities (which
//! `JSON.stringify` writes as `null`, so a comparison would silently read
//! null), an object with a `toJSON` method such as a `Date` (not called:
//! convert it first), a BigInt beyond 64 bits. A BigInt that fits is a
//! number (`JSON.stringify` throws on every BigInt). A number that is an
//! integer below 2^53 is an integer, as the JSON text `3` is, so that
//! results print as the CLI prints them.

use crate::js::{Js, Kind, Thrown};
use hookc_binding::context::{Language, NotJson, Problem};
use hookc_runtime::limits::MAX_CONTEXT_DEPTH;
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

/// A JavaScript number as JSON: an integer when it is one below 2^53.
pub fn number(n: f64) -> Option<Number> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if n.fract() == 0.0 && n.abs() < EXACT {
        // Exact: |n| < 2^53 fits an i64 and is an integer.
        #[allow(clippy::cast_possible_truncation)]
        return Some(Number::from(n as i64));
    }
    Number::from_f64(n)
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
        Kind::Undefined | Kind::Function | Kind::Symbol => return Ok(None),
        Kind::Null => Value::Null,
        Kind::Boolean => Value::Bool(value.boolean().map_err(threw(path))?),
        Kind::Number => {
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
        Kind::String => {
            let mut s = String::new();
            value.read_string(&mut s).map_err(threw(path))?;
            Value::String(s)
        }
        Kind::BigInt => match value.bigint().map_err(threw(path))? {
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
        Kind::External => {
            return Err(not_json(
                path,
                Problem::Type {
                    found: "a native external value".to_owned(),
                },
            ))
        }
        Kind::Object => {
            if depth >= MAX_CONTEXT_DEPTH {
                return Err(not_json(path, Problem::TooDeep));
            }
            if value.is_array() {
                array(value, path, depth)?
            } else {
                object(value, path, depth)?
            }
        }
    }))
}

fn array(value: Js<'_>, path: &mut String, depth: usize) -> Result<Value, Unreadable> {
    let len = value.array_len().map_err(threw(path))?;
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
        if to_json.kind() == Kind::Function {
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
    let key = crate::js::Scope::of(value).string(name)?;
    value.get(key)
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
            Some("1e300".to_owned())
        );
        assert!(number(f64::NAN).is_none() && number(f64::INFINITY).is_none());
    }
}
