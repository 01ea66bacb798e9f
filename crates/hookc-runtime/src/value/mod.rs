//! Runtime values and the operations of the `when` language on them (`docs/src/semantics.md#values`):
//! the one definition of the semantics, shared by the VM and the reference
//! evaluator.
//!
//! This is the runtime's floor just above [`crate::bytecode`], the one part
//! of the crate it imports (with the constants of [`crate::limits`]), so
//! the verifier (constant sets, [`check`], regexes), the path cache
//! (`lookup`), the dispatch tables (`same_str`) and the evaluator all
//! import it downward. [`check`] holds filled action parameters to their
//! declared types.
//!
//! Values borrow from the context wherever they can: a path load yields the
//! context's own `serde_json::Value`, viewed as a [`Val`] without copying.
//! Errors are values ([`Val::Error`]) that propagate through operations,
//! except where CEL absorbs them (`&&`, `||`, the macros, the untaken branch
//! of `?:`); evaluation never panics.
//!
//! Numbers: ints and doubles are distinct kinds that compare and test equal
//! across kinds (`1 == 1.0`); mixed ordering converts the int to double, as
//! CEL does. Arithmetic follows CEL on ints (overflow, division and modulus
//! by zero are errors) and IEEE on doubles, except that mixing an int and a
//! double promotes to double instead of failing (`docs/src/semantics.md#arithmetic`). `%` on doubles is
//! an error, as in CEL. A JSON number that does not fit `i64` is a double.

use crate::bytecode::Kinds;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

mod ascii_groups;
pub(crate) mod check;
pub mod command;
pub mod policy_regex;
pub mod table_matcher;

pub(crate) use command::words_json;
pub use command::CommandRecord;
pub use policy_regex::{CompiledRegex, Matcher, PolicyRegex};

/// Why an evaluation produced an error value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvalError {
    /// A selected key is missing, or a path does not resolve.
    NoSuchKey,
    /// An operator applied to kinds it does not take.
    NoSuchOverload,
    /// Int division or modulus by zero.
    DivisionByZero,
    /// Int overflow.
    Overflow,
    /// A list index outside the list.
    IndexOutOfRange,
    /// A double list index that is not integral, or similar bad argument.
    InvalidArgument,
    /// A macro ran past [`crate::limits::MAX_MACRO_ITERATIONS`].
    IterationLimit,
    /// `exists_one`, `all` or `exists` received a non-bool predicate value.
    NonBoolPredicate,
    /// A regex search on the backtracking engine (a pattern with
    /// look-around or a backreference) passed
    /// [`crate::limits::MAX_REGEX_BACKTRACK_STEPS`].
    RegexStepLimit,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EvalError::NoSuchKey => "no such key",
            EvalError::NoSuchOverload => "no such overload",
            EvalError::DivisionByZero => "division by zero",
            EvalError::Overflow => "integer overflow",
            EvalError::IndexOutOfRange => "index out of range",
            EvalError::InvalidArgument => "invalid argument",
            EvalError::IterationLimit => "macro iteration limit exceeded",
            EvalError::NonBoolPredicate => "predicate is not a bool",
            EvalError::RegexStepLimit => {
                "regex step limit exceeded (the pattern backtracks too much on this text: \
                 anchor it, or avoid nested repetitions around look-around and backreferences)"
            }
        })
    }
}

/// A runtime value, borrowing from the context (and the constant pool) for `'a`.
#[derive(Debug, Clone)]
pub enum Val<'a> {
    /// `null`
    Null,
    /// A bool.
    Bool(bool),
    /// A 64-bit int.
    Int(i64),
    /// A double.
    Double(f64),
    /// A string, borrowed or built (by `+`).
    Str(Cow<'a, str>),
    /// A JSON array from the context or the constant pool.
    Array(&'a [Value]),
    /// A list built at evaluation (a list literal with computed items, `+`).
    List(Vec<Val<'a>>),
    /// A list of strings read in place: a parsed command's `argv`,
    /// `wrappers` and `paths` ([`command`]).
    Words(&'a [Cow<'a, str>]),
    /// A JSON object.
    Object(&'a Map<String, Value>),
    /// A command of `shell.commands(s)`: an object whose members are
    /// fields ([`command`]).
    Command(&'a CommandRecord<'a>),
    /// The list `shell.commands(s)` gives: its items are [`Val::Command`]s.
    Commands(&'a [CommandRecord<'a>]),
    /// An error value.
    Error(EvalError),
}

impl<'a> Val<'a> {
    /// Views a JSON value.
    pub fn from_json(v: &'a Value) -> Val<'a> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => Val::from_number(n),
            Value::String(s) => Val::Str(Cow::Borrowed(s)),
            Value::Array(items) => Val::Array(items),
            Value::Object(map) => Val::Object(map),
        }
    }

    /// Views a JSON number: an int when it fits `i64`, else a double.
    #[inline(always)]
    pub fn from_number(n: &serde_json::Number) -> Val<'a> {
        match Num::of(n) {
            Num::Int(i) => Val::Int(i),
            Num::Double(d) => Val::Double(d),
        }
    }

    /// The kind of this value (`NONE` for an error).
    pub fn kind(&self) -> Kinds {
        match self {
            Val::Null => Kinds::NULL,
            Val::Bool(_) => Kinds::BOOL,
            Val::Int(_) => Kinds::INT,
            Val::Double(_) => Kinds::DOUBLE,
            Val::Str(_) => Kinds::STRING,
            Val::Array(_) | Val::List(_) | Val::Words(_) | Val::Commands(_) => Kinds::LIST,
            Val::Object(_) | Val::Command(_) => Kinds::OBJECT,
            Val::Error(_) => Kinds::NONE,
        }
    }

    /// Whether this is an error value.
    pub fn is_error(&self) -> bool {
        matches!(self, Val::Error(_))
    }

    /// The value as JSON (errors have no JSON form: `None`; non-finite
    /// doubles become `null`).
    pub fn to_json(&self) -> Option<Value> {
        Some(match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Int(i) => Value::from(*i),
            Val::Double(d) => serde_json::Number::from_f64(*d).map_or(Value::Null, Value::Number),
            Val::Str(s) => Value::String(s.to_string()),
            Val::Array(items) => Value::Array(items.to_vec()),
            Val::List(items) => {
                Value::Array(items.iter().map(Val::to_json).collect::<Option<_>>()?)
            }
            Val::Words(words) => command::words_json(words),
            Val::Object(map) => Value::Object((*map).clone()),
            Val::Command(c) => Value::Object(c.to_map().clone()),
            Val::Commands(cs) => Value::Array(
                cs.iter()
                    .map(|c| Value::Object(c.to_map().clone()))
                    .collect(),
            ),
            Val::Error(_) => return None,
        })
    }

    /// The number of list items, for both list forms.
    fn list_len(&self) -> Option<usize> {
        match self {
            Val::Array(a) => Some(a.len()),
            Val::List(l) => Some(l.len()),
            Val::Words(w) => Some(w.len()),
            Val::Commands(c) => Some(c.len()),
            _ => None,
        }
    }

    /// Item `i` of a list.
    fn list_item(&self, i: usize) -> Option<Val<'a>> {
        match self {
            Val::Array(a) => a.get(i).map(Val::from_json),
            Val::List(l) => l.get(i).cloned(),
            Val::Words(w) => w.get(i).map(|w| Val::Str(Cow::Borrowed(w))),
            Val::Commands(c) => c.get(i).map(Val::Command),
            _ => None,
        }
    }

    /// The items of a list, or the keys of an object (what a macro ranges over).
    pub fn elements(&self) -> Option<Vec<Val<'a>>> {
        match self {
            Val::Array(a) => Some(a.iter().map(Val::from_json).collect()),
            Val::List(l) => Some(l.clone()),
            Val::Words(w) => Some(w.iter().map(|w| Val::Str(Cow::Borrowed(&**w))).collect()),
            Val::Commands(c) => Some(c.iter().map(Val::Command).collect()),
            Val::Object(m) => Some(
                m.keys()
                    .map(|k| Val::Str(Cow::Borrowed(k.as_str())))
                    .collect(),
            ),
            Val::Command(_) => Some(
                command::keys::ALL
                    .iter()
                    .map(|k| Val::Str(Cow::Borrowed(*k)))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// How many elements [`Val::elements`] would give, without building them.
    pub fn element_count(&self) -> Option<usize> {
        match self {
            Val::Object(m) => Some(m.len()),
            Val::Command(_) => Some(command::keys::ALL.len()),
            other => other.list_len(),
        }
    }

    /// Element `i` of a list, or key `i` of an object.
    pub fn element(&self, i: usize) -> Option<Val<'a>> {
        match self {
            Val::Object(m) => m.keys().nth(i).map(|k| Val::Str(Cow::Borrowed(k.as_str()))),
            Val::Command(_) => command::keys::ALL
                .get(i)
                .map(|k| Val::Str(Cow::Borrowed(*k))),
            other => other.list_item(i),
        }
    }
}

/// Objects with at most this many keys are searched key by key: comparing a
/// name with each key (lengths first, which mostly differ) costs less than
/// hashing it with the map's SipHash.
// PERF: callgrind on the seed contexts (15 top-level keys): a SipHash
// lookup was ~260 instructions, a scan of the keys well under half that.
const SMALL_OBJECT: usize = 32;

/// String equality for the short strings of keys, event names and
/// constants: lengths first, then at most two 8-byte words for strings of
/// 8–16 bytes, a byte loop below 8, and `==` above 16.
// PERF: `==` on slices is a call to libc's `memcmp`, ~25–40 instructions
// with its setup (callgrind), where most keys here are under 16 bytes.
#[inline(always)]
pub(crate) fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    match (a.first_chunk::<8>(), b.first_chunk::<8>()) {
        (Some(a0), Some(b0)) if a.len() <= 16 => {
            a0 == b0 && a.last_chunk::<8>() == b.last_chunk::<8>()
        }
        (Some(_), Some(_)) => a == b,
        _ => a.iter().zip(b).all(|(x, y)| x == y),
    }
}

/// The value of key `name` in an object (the one lookup every field access,
/// path step and `has` goes through).
#[inline]
pub fn lookup<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    if map.len() <= SMALL_OBJECT {
        map.iter().find(|(k, _)| same_str(k, name)).map(|(_, v)| v)
    } else {
        map.get(name)
    }
}

/// Equality as in CEL: heterogeneous (different kinds are unequal, never an
/// error), ints and doubles numerically, NaN unequal to everything, lists
/// elementwise, objects by keys and values. Errors propagate.
pub fn equals<'a>(a: &Val<'a>, b: &Val<'a>) -> Val<'a> {
    if let Val::Error(e) = a {
        return Val::Error(*e);
    }
    if let Val::Error(e) = b {
        return Val::Error(*e);
    }
    Val::Bool(eq(a, b))
}

/// The boolean part of [`equals`] for two non-error values.
pub fn eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Object(x), Val::Object(y)) => maps_eq(x, y),
        (Val::Command(x), Val::Command(y)) => {
            std::ptr::addr_eq(*x, *y) || maps_eq(x.to_map(), y.to_map())
        }
        (Val::Command(x), Val::Object(y)) => maps_eq(x.to_map(), y),
        (Val::Object(x), Val::Command(y)) => maps_eq(x, y.to_map()),
        (x, y) if x.list_len().is_some() && y.list_len().is_some() => {
            let n = x.list_len().unwrap_or(0);
            n == y.list_len().unwrap_or(usize::MAX)
                && (0..n).all(|i| match (x.list_item(i), y.list_item(i)) {
                    (Some(p), Some(q)) => eq(&p, &q),
                    _ => false,
                })
        }
        (x, y) => num_cmp(x, y) == Some(Ordering::Equal),
    }
}

/// Object equality: the same keys, each value [`eq`].
fn maps_eq(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    x.len() == y.len()
        && x.iter().all(|(k, v)| {
            y.get(k)
                .is_some_and(|w| eq(&Val::from_json(v), &Val::from_json(w)))
        })
}

/// Numeric comparison across int and double: int/int exactly, otherwise as
/// doubles (CEL converts the int). `None` for NaN or non-numbers.
fn num_cmp(a: &Val<'_>, b: &Val<'_>) -> Option<Ordering> {
    Num::of_val(a)?.order(Num::of_val(b)?)
}

/// A number as CEL sees it: an int when the JSON number is one, else a
/// double. Unlike [`Val`] it has nothing to drop, so the comparison leaves
/// that read numbers from the context stay free of drop glue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// A 64-bit int.
    Int(i64),
    /// A double.
    Double(f64),
}

impl Num {
    /// A JSON number (NaN if it is neither an `i64` nor an `f64`, which
    /// serde_json's numbers always are one of).
    #[inline]
    pub fn of(n: &serde_json::Number) -> Num {
        match n.as_i64() {
            Some(i) => Num::Int(i),
            None => Num::Double(n.as_f64().unwrap_or(f64::NAN)),
        }
    }

    /// The number a value is, if it is one.
    #[inline]
    fn of_val(v: &Val<'_>) -> Option<Num> {
        match v {
            Val::Int(i) => Some(Num::Int(*i)),
            Val::Double(d) => Some(Num::Double(*d)),
            _ => None,
        }
    }

    /// Numeric order across int and double: int/int exactly, otherwise as
    /// doubles (CEL converts the int). `None` when a NaN is involved.
    #[inline]
    pub fn order(self, other: Num) -> Option<Ordering> {
        match (self, other) {
            (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
            (Num::Int(x), Num::Double(y)) => (x as f64).partial_cmp(&y),
            (Num::Double(x), Num::Int(y)) => x.partial_cmp(&(y as f64)),
            (Num::Double(x), Num::Double(y)) => x.partial_cmp(&y),
        }
    }
}

/// The ordering operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// `a < b` etc.: numbers (mixed too), strings by code point, bools
/// (`false < true`); any other pair is an error. NaN compares false.
pub fn compare<'a>(op: Order, a: &Val<'a>, b: &Val<'a>) -> Val<'a> {
    let ord = match (a, b) {
        (Val::Error(e), _) | (_, Val::Error(e)) => return Val::Error(*e),
        (Val::Str(x), Val::Str(y)) => Some(x.as_ref().cmp(y.as_ref())),
        (Val::Bool(x), Val::Bool(y)) => Some(x.cmp(y)),
        (x, y) if is_number(x) && is_number(y) => num_cmp(x, y),
        _ => return Val::Error(EvalError::NoSuchOverload),
    };
    Val::Bool(op.holds(ord))
}

impl Order {
    /// Whether an ordering (`None`: unordered, as with NaN) satisfies the
    /// operator; unordered satisfies none.
    #[inline]
    pub fn holds(self, ord: Option<Ordering>) -> bool {
        match (self, ord) {
            (_, None) => false,
            (Order::Lt, Some(o)) => o == Ordering::Less,
            (Order::Le, Some(o)) => o != Ordering::Greater,
            (Order::Gt, Some(o)) => o == Ordering::Greater,
            (Order::Ge, Some(o)) => o != Ordering::Less,
        }
    }
}

fn is_number(v: &Val<'_>) -> bool {
    matches!(v, Val::Int(_) | Val::Double(_))
}

/// The arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

/// `a OP b`: ints with overflow checks, doubles by IEEE, mixed promoted to
/// double; `+` also joins strings and lists.
pub fn arith<'a>(op: Arith, a: &Val<'a>, b: &Val<'a>) -> Val<'a> {
    use Val::{Double, Int};
    let err = Val::Error;
    match (a, b) {
        (Val::Error(e), _) | (_, Val::Error(e)) => err(*e),
        (Int(x), Int(y)) => {
            let r = match op {
                Arith::Add => x.checked_add(*y),
                Arith::Sub => x.checked_sub(*y),
                Arith::Mul => x.checked_mul(*y),
                Arith::Div | Arith::Rem if *y == 0 => return err(EvalError::DivisionByZero),
                Arith::Div => x.checked_div(*y),
                Arith::Rem => x.checked_rem(*y),
            };
            r.map_or(err(EvalError::Overflow), Int)
        }
        (x, y) if is_number(x) && is_number(y) => {
            let (x, y) = (as_f64(x), as_f64(y));
            match op {
                Arith::Add => Double(x + y),
                Arith::Sub => Double(x - y),
                Arith::Mul => Double(x * y),
                Arith::Div => Double(x / y),
                Arith::Rem => err(EvalError::NoSuchOverload),
            }
        }
        (Val::Str(x), Val::Str(y)) if op == Arith::Add => {
            let mut s = String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Val::Str(Cow::Owned(s))
        }
        (x, y) if op == Arith::Add && x.list_len().is_some() && y.list_len().is_some() => {
            let mut items = Vec::new();
            for v in [x, y] {
                for i in 0..v.list_len().unwrap_or(0) {
                    if let Some(item) = v.list_item(i) {
                        items.push(item);
                    }
                }
            }
            Val::List(items)
        }
        _ => err(EvalError::NoSuchOverload),
    }
}

fn as_f64(v: &Val<'_>) -> f64 {
    match v {
        Val::Int(i) => *i as f64,
        Val::Double(d) => *d,
        _ => f64::NAN,
    }
}

/// Unary `-`.
pub fn negate<'a>(a: &Val<'a>) -> Val<'a> {
    match a {
        Val::Int(i) => i
            .checked_neg()
            .map_or(Val::Error(EvalError::Overflow), Val::Int),
        Val::Double(d) => Val::Double(-d),
        Val::Error(e) => Val::Error(*e),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// `!`.
pub fn not<'a>(a: &Val<'a>) -> Val<'a> {
    match a {
        Val::Bool(b) => Val::Bool(!b),
        Val::Error(e) => Val::Error(*e),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// `a && b` once both sides are known, commutative in errors: a `false` on
/// either side decides; otherwise an error (or a non-bool) on either side is
/// the result.
pub fn and<'a>(a: Val<'a>, b: Val<'a>) -> Val<'a> {
    logic(a, b, false)
}

/// `a || b` once both sides are known: a `true` on either side decides.
pub fn or<'a>(a: Val<'a>, b: Val<'a>) -> Val<'a> {
    logic(a, b, true)
}

fn logic<'a>(a: Val<'a>, b: Val<'a>, decider: bool) -> Val<'a> {
    match (&a, &b) {
        (Val::Bool(x), _) if *x == decider => a,
        (_, Val::Bool(y)) if *y == decider => b,
        (Val::Bool(_), Val::Bool(_)) => b,
        (Val::Error(_), _) => a,
        (_, Val::Error(_)) => b,
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// `a in b`: list membership by [`eq`], or key presence in an object.
pub fn contains_elem<'a>(a: &Val<'a>, b: &Val<'a>) -> Val<'a> {
    match (a, b) {
        (Val::Error(e), _) | (_, Val::Error(e)) => Val::Error(*e),
        (x, Val::Object(m)) => match x {
            Val::Str(k) => Val::Bool(lookup(m, k.as_ref()).is_some()),
            _ => Val::Bool(false),
        },
        (x, Val::Command(c)) => match x {
            Val::Str(k) => Val::Bool(c.has(k)),
            _ => Val::Bool(false),
        },
        // PERF: a string in a list of the policy's or of a command's words
        // (`c.program in ['tee', 'cp']`, `'-rf' in c.argv`), the commonest
        // `in`, compares the strings where they lie: `eq`'s rule for two
        // strings, and for a string and any other item (unequal), without
        // a value made per item (callgrind, bundled Claude Code guard on a
        // 200-character command).
        (Val::Str(x), Val::Array(items)) => Val::Bool(items.iter().any(|item| match item {
            Value::String(y) => same_str(x, y),
            other => eq(a, &Val::from_json(other)),
        })),
        (Val::Str(x), Val::Words(words)) => Val::Bool(words.iter().any(|y| same_str(x, y))),
        (x, list) if list.list_len().is_some() => {
            let n = list.list_len().unwrap_or(0);
            Val::Bool((0..n).any(|i| list.list_item(i).is_some_and(|item| eq(x, &item))))
        }
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// `size(x)`: code points of a string, items of a list, keys of an object.
pub fn size<'a>(a: &Val<'a>) -> Val<'a> {
    let n = match a {
        Val::Str(s) => s.chars().count(),
        Val::Object(m) => m.len(),
        Val::Command(_) => command::keys::ALL.len(),
        Val::Error(e) => return Val::Error(*e),
        other => match other.list_len() {
            Some(n) => n,
            None => return Val::Error(EvalError::NoSuchOverload),
        },
    };
    i64::try_from(n).map_or(Val::Error(EvalError::Overflow), Val::Int)
}

/// The string predicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrPred {
    /// `s.contains(t)`
    Contains,
    /// `s.startsWith(t)`
    StartsWith,
    /// `s.endsWith(t)`
    EndsWith,
}

/// `s.contains(t)`, `s.startsWith(t)`, `s.endsWith(t)`; both strings.
pub fn str_pred<'a>(op: StrPred, s: &Val<'a>, t: &Val<'a>) -> Val<'a> {
    match (s, t) {
        (Val::Error(e), _) | (_, Val::Error(e)) => Val::Error(*e),
        (Val::Str(s), Val::Str(t)) => Val::Bool(match op {
            StrPred::Contains => s.contains(t.as_ref()),
            StrPred::StartsWith => s.starts_with(t.as_ref()),
            StrPred::EndsWith => s.ends_with(t.as_ref()),
        }),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// `s.matches(re)`: unanchored search.
#[inline]
pub fn matches<'a>(s: &Val<'a>, re: &impl Matcher) -> Val<'a> {
    match s {
        Val::Str(s) => re.test(s).map_or_else(Val::Error, Val::Bool),
        Val::Error(e) => Val::Error(*e),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// A pattern test of a string: an error on anything else. The reference
/// evaluator matches globs through here with its own matcher.
pub fn pattern_test<'a>(s: &Val<'a>, test: impl FnOnce(&str) -> bool) -> Val<'a> {
    match s {
        Val::Str(s) => Val::Bool(test(s)),
        Val::Error(e) => Val::Error(*e),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// `base.name`: a key of an object; missing keys and non-objects are errors.
pub fn field<'a>(base: &Val<'a>, name: &str) -> Val<'a> {
    match base {
        // PERF: matched, not `map_or`/`unwrap_or`, whose default value was
        // made and dropped (a drop-glue call) on every read that found
        // the member (callgrind, bundled Claude Code guard: 154 a decision).
        Val::Object(m) => match lookup(m, name) {
            Some(v) => Val::from_json(v),
            None => Val::Error(EvalError::NoSuchKey),
        },
        Val::Command(c) => match c.member(name) {
            Some(v) => v,
            None => Val::Error(EvalError::NoSuchKey),
        },
        Val::Error(e) => Val::Error(*e),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// `has(base.name)`: whether `base` is an object with the key. Never an error.
pub fn has_field(base: &Val<'_>, name: &str) -> bool {
    match base {
        Val::Object(m) => lookup(m, name).is_some(),
        Val::Command(c) => c.has(name),
        _ => false,
    }
}

/// `base[index]`: a list by int (or integral double) index, an object by key.
pub fn index<'a>(base: &Val<'a>, idx: &Val<'a>) -> Val<'a> {
    match (base, idx) {
        (Val::Error(e), _) | (_, Val::Error(e)) => Val::Error(*e),
        (Val::Object(m), Val::Str(k)) => {
            lookup(m, k).map_or(Val::Error(EvalError::NoSuchKey), Val::from_json)
        }
        (Val::Command(c), Val::Str(k)) => c.member(k).unwrap_or(Val::Error(EvalError::NoSuchKey)),
        (list, i) if list.list_len().is_some() => {
            let i = match i {
                Val::Int(i) => *i,
                Val::Double(d) if d.fract() == 0.0 && d.is_finite() => {
                    if *d < i64::MIN as f64 || *d >= i64::MAX as f64 {
                        return Val::Error(EvalError::IndexOutOfRange);
                    }
                    *d as i64
                }
                Val::Double(_) => return Val::Error(EvalError::InvalidArgument),
                _ => return Val::Error(EvalError::NoSuchOverload),
            };
            usize::try_from(i)
                .ok()
                .and_then(|i| list.list_item(i))
                .unwrap_or(Val::Error(EvalError::IndexOutOfRange))
        }
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// Whether the value's kind is in `kinds` (false for errors).
pub fn type_is(v: &Val<'_>, kinds: Kinds) -> bool {
    !v.is_error() && v.kind().intersects(kinds)
}

/// A constant list hashed for `in` (built at load from the constant pool):
/// membership with exactly the semantics of [`contains_elem`] on the list.
#[derive(Debug, Clone, Default)]
pub struct ConstSet {
    /// Without repeats, sorted by length: a probe is compared with the
    /// members of its length only.
    // PERF: searched by halving rather than hashed: a policy's sets are
    // small (a guard's program lists: 8 to 20 names), and hashing each
    // probe with `SipHash` cost more than the few length comparisons that
    // rule most probes out (callgrind, bundled Claude Code guard on a
    // 200-character command: 55 probes a decision, 476,092 -> 468,000
    // instructions).
    strings: Box<[Box<str>]>,
    ints: std::collections::HashSet<i64>,
    doubles: Vec<f64>,
    /// Nulls, bools, lists and objects: compared one by one.
    others: Vec<Value>,
}

/// Below this magnitude every double with an integral value is exactly one
/// `i64` (2^53), so a hashed int lookup finds every equal int.
const EXACT_INT_DOUBLE: f64 = 9_007_199_254_740_992.0;

impl ConstSet {
    /// The set of a list's items.
    pub fn new(items: &[Value]) -> ConstSet {
        let mut set = ConstSet::default();
        let mut strings: Vec<Box<str>> = Vec::new();
        for item in items {
            match Val::from_json(item) {
                Val::Str(s) => strings.push(s.into()),
                Val::Int(i) => {
                    set.ints.insert(i);
                }
                Val::Double(d) => set.doubles.push(d),
                _ => set.others.push(item.clone()),
            }
        }
        set.with_strings(strings)
    }

    /// The set of a list of strings' items, the list not built
    /// ([`ConstPool::text_list`](crate::bytecode::ConstPool::text_list)).
    pub fn of_strs<'s>(items: impl IntoIterator<Item = &'s str>) -> ConstSet {
        ConstSet::default().with_strings(items.into_iter().map(Box::from).collect())
    }

    /// The set with these strings (in any order, repeats allowed).
    fn with_strings(mut self, mut strings: Vec<Box<str>>) -> ConstSet {
        let set = &mut self;
        strings.sort_unstable();
        strings.dedup();
        // By length (stable: equal lengths stay sorted), so that the
        // members of one length are one run.
        strings.sort_by_key(|s| s.len());
        set.strings = strings.into_boxed_slice();
        self
    }

    /// `v in set`.
    pub fn contains<'a>(&self, v: &Val<'a>) -> Val<'a> {
        Val::Bool(match v {
            Val::Error(e) => return Val::Error(*e),
            Val::Str(s) => {
                // The members of the probe's length, then each compared.
                let from = self.strings.partition_point(|k| k.len() < s.len());
                self.strings
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|k| k.len() == s.len())
                    .any(|k| same_str(k, s))
            }
            Val::Int(i) => self.ints.contains(i) || self.doubles.contains(&(*i as f64)),
            Val::Double(d) => {
                let as_int = if d.fract() == 0.0 && d.abs() < EXACT_INT_DOUBLE {
                    self.ints.contains(&(*d as i64))
                } else {
                    d.fract() == 0.0 && self.ints.iter().any(|i| *i as f64 == *d)
                };
                as_int || self.doubles.contains(d)
            }
            other => self.others.iter().any(|o| eq(other, &Val::from_json(o))),
        })
    }
}

#[cfg(test)]
mod tests;
