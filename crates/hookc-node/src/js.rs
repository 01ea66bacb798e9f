//! The few N-API calls that read a JavaScript value, as safe functions: the
//! one module of the addon with `unsafe` code.
//!
//! napi-rs's own value types allocate a C string per property name and a
//! Rust `String` per string read; a context is read on every evaluation,
//! so this module calls N-API directly (`napi::sys`) with prepared keys
//! ([`Keys`]) and a reused buffer.
//!
//! Soundness: a [`Js`] is a `napi_value` handle, valid only during the
//! native call that received or created it; the lifetime `'s` of its
//! [`Scope`] is borrowed from the napi-rs `Env` of that call, so no handle
//! outlives it. Every N-API status is checked: a property read that throws
//! (a getter, a `Proxy` trap) leaves a pending JavaScript exception, which
//! [`Scope::take_exception`] clears and turns into a message, so nothing
//! a caller passes can leave the engine in a bad state.

#![allow(unsafe_code)]

use napi::sys;
use std::marker::PhantomData;
use std::ptr;

/// The N-API environment of one native call.
#[derive(Clone, Copy)]
pub struct Scope<'s> {
    env: sys::napi_env,
    life: PhantomData<&'s ()>,
}

/// A JavaScript value of the call of scope `'s`.
#[derive(Clone, Copy)]
pub struct Js<'s> {
    env: sys::napi_env,
    raw: sys::napi_value,
    life: PhantomData<&'s ()>,
}

/// What `typeof` says of a value (with `null` apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsKind {
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// A symbol.
    Symbol,
    /// An object (arrays included).
    Object,
    /// A function.
    Function,
    /// A native external.
    External,
    /// A BigInt.
    BigInt,
}

/// A JavaScript exception or a failed N-API call, as a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thrown(pub String);

impl<'s> Scope<'s> {
    /// The scope of the native call that got `env`.
    pub fn new(env: &'s napi::Env) -> Scope<'s> {
        Scope {
            env: env.raw(),
            life: PhantomData,
        }
    }

    /// The scope of the call `value` belongs to.
    pub fn of(value: Js<'s>) -> Scope<'s> {
        Scope {
            env: value.env,
            life: PhantomData,
        }
    }

    /// A value napi-rs handed to the call.
    pub fn value(self, raw: sys::napi_value) -> Js<'s> {
        Js {
            env: self.env,
            raw,
            life: PhantomData,
        }
    }

    /// A new JavaScript string.
    pub fn string(self, s: &str) -> Result<Js<'s>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: `s` is valid UTF-8 of the length given; `raw` is written
        // by the call.
        let status = unsafe {
            sys::napi_create_string_utf8(self.env, s.as_ptr().cast(), s.len() as isize, &mut raw)
        };
        self.checked(status, raw).map(|raw| self.value(raw))
    }

    /// A new JavaScript array of `items`.
    pub fn array(self, items: &[Js<'s>]) -> Result<Js<'s>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is written by the call.
        let status = unsafe { sys::napi_create_array_with_length(self.env, items.len(), &mut raw) };
        let array = self.value(self.checked(status, raw)?);
        for (i, item) in items.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| Thrown("array too long".to_owned()))?;
            array.set_element(i, *item)?;
        }
        Ok(array)
    }

    /// A new, empty JavaScript object.
    pub fn object(self) -> Result<Js<'s>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is written by the call.
        let status = unsafe { sys::napi_create_object(self.env, &mut raw) };
        self.checked(status, raw).map(|raw| self.value(raw))
    }

    /// `value` as a JavaScript value: objects, arrays, strings, numbers,
    /// booleans, null (what `JSON.parse` of its text gives; built directly,
    /// which measured faster than the text and `JSON.parse`). `depth`
    /// bounds the recursion: the answers the runtime builds nest no deeper
    /// than the contexts and constants it was given.
    pub fn json(self, value: &serde_json::Value, depth: usize) -> Result<Js<'s>, Thrown> {
        use serde_json::Value;
        if depth > crate::MAX_ANSWER_DEPTH {
            return Err(Thrown("an answer nested too deeply to return".to_owned()));
        }
        let mut raw = ptr::null_mut();
        let status = match value {
            // SAFETY (each arm): `raw` is written by the call.
            Value::Null => unsafe { sys::napi_get_null(self.env, &mut raw) },
            Value::Bool(b) => unsafe { sys::napi_get_boolean(self.env, *b, &mut raw) },
            Value::Number(n) => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                unsafe { sys::napi_create_double(self.env, f, &mut raw) }
            }
            Value::String(s) => return self.string(s),
            Value::Array(items) => {
                let array = self.array(&[])?;
                for (i, item) in items.iter().enumerate() {
                    let item = self.json(item, depth + 1)?;
                    let i = u32::try_from(i).map_err(|_| Thrown("array too long".to_owned()))?;
                    array.set_element(i, item)?;
                }
                return Ok(array);
            }
            Value::Object(members) => {
                let object = self.object()?;
                for (key, member) in members {
                    let member = self.json(member, depth + 1)?;
                    object.set(key, member)?;
                }
                return Ok(object);
            }
        };
        self.checked(status, raw).map(|raw| self.value(raw))
    }

    /// The global object.
    pub fn global(self) -> Result<Js<'s>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is written by the call.
        let status = unsafe { sys::napi_get_global(self.env, &mut raw) };
        self.checked(status, raw).map(|raw| self.value(raw))
    }

    /// A strong reference to `value`, to keep it past this call (released
    /// by [`Reference::delete`] in the same environment).
    pub fn reference(self, value: Js<'s>) -> Result<Reference, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: `value` belongs to this call's scope; `raw` is written.
        let status = unsafe { sys::napi_create_reference(self.env, value.raw, 1, &mut raw) };
        self.checked(status, ())?;
        Ok(Reference { raw })
    }

    /// The value `reference` holds.
    pub fn get_reference(self, reference: &Reference) -> Result<Js<'s>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: `reference` was created in this environment (a policy
        // object's references are its own environment's: see
        // `policy.rs`) and not deleted (deleting consumes it).
        let status = unsafe { sys::napi_get_reference_value(self.env, reference.raw, &mut raw) };
        self.checked(status, raw).map(|raw| self.value(raw))
    }

    /// `Ok(value)` when `status` is `napi_ok`; otherwise the pending
    /// exception, cleared, or the failed status.
    fn checked<T>(self, status: sys::napi_status, value: T) -> Result<T, Thrown> {
        if status == sys::Status::napi_ok {
            return Ok(value);
        }
        Err(self.take_exception().unwrap_or_else(|| {
            Thrown(format!(
                "a JavaScript engine call failed (N-API status {status})"
            ))
        }))
    }

    /// The pending JavaScript exception, cleared, as its message.
    pub fn take_exception(self) -> Option<Thrown> {
        let mut pending = false;
        // SAFETY: `pending` is written by the call.
        let status = unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
        if status != sys::Status::napi_ok || !pending {
            return None;
        }
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is written by the call, which clears the exception.
        let status = unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut raw) };
        if status != sys::Status::napi_ok {
            return Some(Thrown("an exception was thrown".to_owned()));
        }
        let error = self.value(raw);
        let read = |v: Js<'s>| {
            let mut s = String::new();
            v.read_string(&mut s).ok().map(|()| s)
        };
        // An Error's `message`; anything else thrown (a string, a number)
        // as `String(value)` would write it.
        let message = match error.kind() {
            JsKind::Object => self
                .string("message")
                .ok()
                .and_then(|key| error.get(key).ok().flatten())
                .filter(|m| m.kind() == JsKind::String)
                .and_then(read),
            JsKind::String => read(error).map(|s| format!("{s:?} was thrown")),
            JsKind::Number
            | JsKind::Boolean
            | JsKind::BigInt
            | JsKind::Null
            | JsKind::Undefined => {
                let mut raw = ptr::null_mut();
                // SAFETY: a value of this call; `raw` is written. Coercing
                // a primitive runs no JavaScript.
                let status = unsafe { sys::napi_coerce_to_string(self.env, error.raw, &mut raw) };
                (status == sys::Status::napi_ok)
                    .then(|| self.value(raw))
                    .and_then(read)
                    .map(|s| format!("{s} was thrown"))
            }
            _ => None,
        };
        Some(Thrown(
            message.unwrap_or_else(|| "an exception was thrown".to_owned()),
        ))
    }
}

impl<'s> Js<'s> {
    /// The raw handle, for napi-rs.
    pub fn raw(self) -> sys::napi_value {
        self.raw
    }

    fn scope(self) -> Scope<'s> {
        Scope::of(self)
    }

    /// What `typeof` says (`null` apart); `Undefined` if the engine cannot
    /// tell.
    pub fn kind(self) -> JsKind {
        let mut t = sys::ValueType::napi_undefined;
        // SAFETY: a handle of this call; `t` is written.
        let status = unsafe { sys::napi_typeof(self.env, self.raw, &mut t) };
        if status != sys::Status::napi_ok {
            return JsKind::Undefined;
        }
        match t {
            sys::ValueType::napi_null => JsKind::Null,
            sys::ValueType::napi_boolean => JsKind::Boolean,
            sys::ValueType::napi_number => JsKind::Number,
            sys::ValueType::napi_string => JsKind::String,
            sys::ValueType::napi_symbol => JsKind::Symbol,
            sys::ValueType::napi_object => JsKind::Object,
            sys::ValueType::napi_function => JsKind::Function,
            sys::ValueType::napi_external => JsKind::External,
            sys::ValueType::napi_bigint => JsKind::BigInt,
            _ => JsKind::Undefined,
        }
    }

    /// `self[key]` of an object (getters run; `Ok(None)` for `undefined`).
    pub fn get(self, key: Js<'s>) -> Result<Option<Js<'s>>, Thrown> {
        Ok(self.get_kind(key)?.map(|(v, _)| v))
    }

    /// `self[key]` of an object and its kind (`Ok(None)` for `undefined`).
    pub fn get_kind(self, key: Js<'s>) -> Result<Option<(Js<'s>, JsKind)>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: handles of this call; `raw` is written.
        let status = unsafe { sys::napi_get_property(self.env, self.raw, key.raw, &mut raw) };
        let v = self.scope().checked(status, raw)?;
        let v = self.scope().value(v);
        let kind = v.kind();
        Ok((kind != JsKind::Undefined).then_some((v, kind)))
    }

    /// Whether `key` is an own property of the object.
    pub fn has_own(self, key: Js<'s>) -> Result<bool, Thrown> {
        let mut yes = false;
        // SAFETY: handles of this call; `yes` is written.
        let status = unsafe { sys::napi_has_own_property(self.env, self.raw, key.raw, &mut yes) };
        self.scope().checked(status, yes)
    }

    /// `self instanceof constructor`.
    pub fn instance_of(self, constructor: Js<'s>) -> Result<bool, Thrown> {
        let mut yes = false;
        // SAFETY: handles of this call; `yes` is written.
        let status = unsafe { sys::napi_instanceof(self.env, self.raw, constructor.raw, &mut yes) };
        self.scope().checked(status, yes)
    }

    /// Calls the function `self` with `this` and `args`.
    pub fn call(self, this: Js<'s>, args: &[Js<'s>]) -> Result<Js<'s>, Thrown> {
        let argv: Vec<sys::napi_value> = args.iter().map(|a| a.raw).collect();
        let mut raw = ptr::null_mut();
        // SAFETY: handles of this call; `argv` holds `argv.len()` values;
        // `raw` is written.
        let status = unsafe {
            sys::napi_call_function(
                self.env,
                this.raw,
                self.raw,
                argv.len(),
                argv.as_ptr(),
                &mut raw,
            )
        };
        let raw = self.scope().checked(status, raw)?;
        Ok(self.scope().value(raw))
    }

    /// Sets `self[key] = value` on an object.
    pub fn set(self, key: &str, value: Js<'s>) -> Result<(), Thrown> {
        // PERF: a short key without NUL goes as a C string from the stack
        // (one call); any other is made a JavaScript string first.
        let mut buf = [0u8; 64];
        if key.len() < buf.len() && !key.as_bytes().contains(&0) {
            if let Some(slot) = buf.get_mut(..key.len()) {
                slot.copy_from_slice(key.as_bytes());
                // SAFETY: `buf` holds the key and at least one NUL after it;
                // both handles belong to this call.
                let status = unsafe {
                    sys::napi_set_named_property(self.env, self.raw, buf.as_ptr().cast(), value.raw)
                };
                return self.scope().checked(status, ());
            }
        }
        let key = self.scope().string(key)?;
        // SAFETY: handles of this call.
        let status = unsafe { sys::napi_set_property(self.env, self.raw, key.raw, value.raw) };
        self.scope().checked(status, ())
    }

    /// Whether the value is an array.
    pub fn is_array(self) -> bool {
        let mut yes = false;
        // SAFETY: a handle of this call; `yes` is written.
        let status = unsafe { sys::napi_is_array(self.env, self.raw, &mut yes) };
        status == sys::Status::napi_ok && yes
    }

    /// An array's length.
    pub fn array_len(self) -> Result<u32, Thrown> {
        let mut n = 0;
        // SAFETY: a handle of this call; `n` is written.
        let status = unsafe { sys::napi_get_array_length(self.env, self.raw, &mut n) };
        self.scope().checked(status, n)
    }

    /// Sets `self[i] = value` on an array.
    pub fn set_element(self, i: u32, value: Js<'s>) -> Result<(), Thrown> {
        // SAFETY: both handles belong to this call's scope.
        let status = unsafe { sys::napi_set_element(self.env, self.raw, i, value.raw) };
        self.scope().checked(status, ())
    }

    /// `self[i]` of an array.
    pub fn element(self, i: u32) -> Result<Js<'s>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: a handle of this call; `raw` is written.
        let status = unsafe { sys::napi_get_element(self.env, self.raw, i, &mut raw) };
        let raw = self.scope().checked(status, raw)?;
        Ok(self.scope().value(raw))
    }

    /// A boolean's value.
    pub fn boolean(self) -> Result<bool, Thrown> {
        let mut b = false;
        // SAFETY: a handle of this call; `b` is written.
        let status = unsafe { sys::napi_get_value_bool(self.env, self.raw, &mut b) };
        self.scope().checked(status, b)
    }

    /// A number's value.
    pub fn number(self) -> Result<f64, Thrown> {
        let mut n = 0.0;
        // SAFETY: a handle of this call; `n` is written.
        let status = unsafe { sys::napi_get_value_double(self.env, self.raw, &mut n) };
        self.scope().checked(status, n)
    }

    /// A BigInt's value as `i64` or `u64`, when it fits one of them.
    pub fn bigint(self) -> Result<Option<serde_json::Number>, Thrown> {
        let (mut i, mut lossless) = (0i64, false);
        // SAFETY: a handle of this call; both outputs are written.
        let status =
            unsafe { sys::napi_get_value_bigint_int64(self.env, self.raw, &mut i, &mut lossless) };
        self.scope().checked(status, ())?;
        if lossless {
            return Ok(Some(i.into()));
        }
        let mut u = 0u64;
        // SAFETY: as above.
        let status =
            unsafe { sys::napi_get_value_bigint_uint64(self.env, self.raw, &mut u, &mut lossless) };
        self.scope().checked(status, ())?;
        Ok(lossless.then(|| u.into()))
    }

    /// A string's UTF-8 text, written into `out` (cleared first). Lone
    /// surrogates become U+FFFD, as in `Buffer.from(s)`.
    pub fn read_string(self, out: &mut String) -> Result<(), Thrown> {
        out.clear();
        // PERF: most strings a policy reads are short: one call into a
        // stack buffer, and the length asked first only when it is full
        // (N-API writes whole characters, so a full buffer may be a cut).
        let mut small = [0u8; 256];
        let mut written = 0usize;
        // SAFETY: `small` has room for its length, the NUL included;
        // `written` is written.
        let status = unsafe {
            sys::napi_get_value_string_utf8(
                self.env,
                self.raw,
                small.as_mut_ptr().cast(),
                small.len(),
                &mut written,
            )
        };
        self.scope().checked(status, ())?;
        if written < small.len() - 1 {
            let text = small.get(..written).unwrap_or_default();
            // N-API writes UTF-8 (lone surrogates as U+FFFD); checked all
            // the same rather than trusted.
            out.push_str(std::str::from_utf8(text).map_err(|_| not_utf8())?);
            return Ok(());
        }
        let mut len = 0usize;
        // SAFETY: with a null buffer the call writes only the length.
        let status = unsafe {
            sys::napi_get_value_string_utf8(self.env, self.raw, ptr::null_mut(), 0, &mut len)
        };
        self.scope().checked(status, ())?;
        let mut bytes = std::mem::take(out).into_bytes();
        bytes.resize(len + 1, 0);
        // SAFETY: `bytes` has room for `len` bytes and the NUL the call
        // writes; `written` is written.
        let status = unsafe {
            sys::napi_get_value_string_utf8(
                self.env,
                self.raw,
                bytes.as_mut_ptr().cast(),
                bytes.len(),
                &mut written,
            )
        };
        self.scope().checked(status, ())?;
        bytes.truncate(written);
        *out = String::from_utf8(bytes).map_err(|_| not_utf8())?;
        Ok(())
    }

    /// The bytes of a `Uint8Array` (a `Buffer` is one); `None` for any
    /// other value. The bytes stay valid for the call: no JavaScript runs
    /// while a caller reads them (they are JSON text, parsed in Rust).
    pub fn uint8_bytes(self) -> Option<&'s [u8]> {
        let mut yes = false;
        // SAFETY: a handle of this call; `yes` is written.
        let status = unsafe { sys::napi_is_typedarray(self.env, self.raw, &mut yes) };
        if status != sys::Status::napi_ok || !yes {
            return None;
        }
        let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
        let (mut buffer, mut offset) = (ptr::null_mut(), 0usize);
        // SAFETY: a typed array of this call; every output is written.
        let status = unsafe {
            sys::napi_get_typedarray_info(
                self.env,
                self.raw,
                &mut kind,
                &mut len,
                &mut data,
                &mut buffer,
                &mut offset,
            )
        };
        if status != sys::Status::napi_ok || kind != sys::TypedarrayType::uint8_array {
            return None;
        }
        if len == 0 || data.is_null() {
            return Some(&[]);
        }
        // SAFETY: N-API gives the array's first element and its length in
        // elements (bytes, for a Uint8Array); the backing store lives at
        // least as long as the handle, which lives for the call `'s`, and
        // no JavaScript runs while the slice is read.
        Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) })
    }

    /// The object's own enumerable string keys, as `Object.keys` gives them.
    pub fn own_keys(self) -> Result<Js<'s>, Thrown> {
        let mut raw = ptr::null_mut();
        // SAFETY: a handle of this call; `raw` is written.
        let status = unsafe {
            sys::napi_get_all_property_names(
                self.env,
                self.raw,
                sys::KeyCollectionMode::own_only,
                sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                sys::KeyConversion::numbers_to_strings,
                &mut raw,
            )
        };
        let raw = self.scope().checked(status, raw)?;
        Ok(self.scope().value(raw))
    }
}

fn not_utf8() -> Thrown {
    Thrown("a string that is not valid UTF-8".to_owned())
}

/// A strong reference to a JavaScript value, kept by a policy object
/// across calls in its environment.
#[derive(Debug)]
pub struct Reference {
    raw: sys::napi_ref,
}

impl Reference {
    /// Releases the reference; `env` must be the environment it was made
    /// in (the policy object's own, at its finalization).
    pub fn delete(self, env: &napi::Env) {
        // SAFETY: the reference was created in `env` and is consumed here,
        // so it is deleted once. A failure leaves it to the environment's
        // teardown.
        let _ = unsafe { sys::napi_delete_reference(env.raw(), self.raw) };
    }
}
