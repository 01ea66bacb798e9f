//! The language's builtin functions, declared once
//! (`docs/src/semantics.md#functions`; adding one: `ARCHITECTURE.md`,
//! "How to add a function").
//!
//! `table.rs` holds one row per function in the style of the instruction
//! table (`for_each_op!`): its stable id (the artifact's operand), its
//! spelling (a method `s.trim()`, a global `size(x)`, or a namespaced
//! `path.base(p)`), its parameters' kinds (and which must be a literal
//! pattern), its result's kinds, its YAML leaf operator where it has one,
//! how it lowers (a dedicated instruction, or the generic `Call`), and its
//! implementation. The `functions!` macro generates [`Builtin`] and
//! [`Builtin::def`] from it, and [`call`] runs a row's implementation: the
//! VM's `Call` instruction, the compiler's constant folding and the
//! reference evaluator all go through [`call`], so they agree by
//! construction. The resolver, the type checker, the lowering, the YAML
//! front end, the editor schema and the docs read [`Builtin::def`].
//!
//! Implementations are pure functions of their arguments: the same
//! arguments give the same value, on every thread, at compile time and at
//! run time. The one state they see is [`Scratch`], the evaluation's store
//! of derived values (a parsed shell command is parsed once per evaluation
//! however many hooks read it, and its result is borrowed like a context
//! value).

use crate::bytecode::{Kinds, Op};
use crate::value::{EvalError, Val};
use std::borrow::Cow;

mod derived;
pub mod paths;
pub mod shell;
pub mod strings;
mod table;
pub mod urls;

pub use derived::{Derived, DerivedValue, ParsedScript, Scratch};
pub use table::Builtin;

/// How a function is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `recv.name(args)`: the receiver is the first parameter.
    Method,
    /// `name(args)`, or `ns.name(args)` for a namespaced function.
    Global,
    /// Either (`size(x)` and `x.size()`).
    Both,
}

/// One parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// Its name, for signatures and diagnostics.
    pub name: &'static str,
    /// The kinds it takes; another kind is `no such overload`.
    pub kinds: Kinds,
    /// Whether it must be a string literal that is compiled at compile
    /// time (a regex or a glob): such a parameter becomes a regex table
    /// entry, not a stack value.
    pub pattern: Option<PatternKind>,
}

/// What a literal pattern parameter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternKind {
    /// A regular expression (`docs/src/semantics.md#regular-expressions`).
    Regex,
    /// A path glob (`**` crosses `/`, `*` does not), translated into a regex
    /// at compile time.
    PathGlob,
}

/// What a function's result is, beyond its kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Nothing more is known.
    Plain,
    /// A list of strings.
    Strings,
    /// A list of parsed shell commands (objects with the fields of
    /// [`shell::keys`]).
    ShellCommands,
}

/// How a call lowers to bytecode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lowering {
    /// A dedicated instruction that the fast paths and indexes recognise
    /// (`Size`, `Contains`, ...); its stack effect pops the arguments in
    /// order.
    Instruction(Op),
    /// The generic `Call` instruction (`CallRegex` when a parameter is a
    /// pattern).
    Call,
    /// The `Matches` instruction on the pattern's regex, for a function
    /// whose result is whether its one string argument matches its pattern
    /// (`path.match(p, glob)`: a glob is a regex in the artifact), so that
    /// the VM tests it without a call and the fast paths and the hook index
    /// read it as they read `s.matches(re)`.
    RegexTest,
}

/// One row of the function table.
#[derive(Debug, Clone, Copy)]
pub struct FunctionDef {
    /// The namespace of a namespaced global (`path` of `path.base`).
    pub namespace: Option<&'static str>,
    /// The name as written.
    pub name: &'static str,
    /// How it is written.
    pub form: Form,
    /// Its parameters, the receiver first for a method.
    pub params: &'static [Param],
    /// Its result's kinds (besides an error).
    pub result: Kinds,
    /// What else is known of the result.
    pub shape: Shape,
    /// Its YAML leaf operator (`op: starts_with`), whose `value:` is the
    /// second parameter.
    pub yaml: Option<&'static str>,
    /// How it lowers.
    pub lowering: Lowering,
    /// One line for signatures, did-you-mean and the editor schema.
    pub summary: &'static str,
}

impl FunctionDef {
    /// The name as a user writes it: `ns.name` or `name`.
    pub fn qualified_name(&self) -> String {
        match self.namespace {
            Some(ns) => format!("{ns}.{}", self.name),
            None => self.name.to_owned(),
        }
    }

    /// How many values a call pops: its parameters that are not patterns.
    pub fn stack_arity(&self) -> u32 {
        self.params.iter().filter(|p| p.pattern.is_none()).count() as u32
    }

    /// The pattern parameter, if the function has one (always its last).
    pub fn pattern(&self) -> Option<PatternKind> {
        self.params.last().and_then(|p| p.pattern)
    }

    /// How a call is written, with the parameters' names: `s.split(sep)`,
    /// `path.base(p)`, `size(x)`.
    pub fn usage(&self) -> String {
        let (head, rest) = match (self.form, self.params.split_first()) {
            (Form::Method, Some((r, rest))) => (format!("{}.{}", r.name, self.name), rest),
            _ => (self.qualified_name(), self.params),
        };
        let names: Vec<&str> = rest.iter().map(|p| p.name).collect();
        format!("{head}({})", names.join(", "))
    }

    /// The signature as documented: `s.trim() -> string`,
    /// `path.base(p: string) -> string`.
    pub fn signature(&self) -> String {
        let kinds = |k: Kinds| k.to_string();
        let (recv, rest) = match (self.form, self.params.split_first()) {
            (Form::Method, Some((r, rest))) => (Some(r), rest),
            _ => (None, self.params),
        };
        let args: Vec<String> = rest
            .iter()
            .map(|p| format!("{}: {}", p.name, kinds(p.kinds)))
            .collect();
        let head = match recv {
            Some(r) => format!("{}.{}", r.name, self.name),
            None => self.qualified_name(),
        };
        format!("{head}({}) -> {}", args.join(", "), kinds(self.result))
    }
}

impl Builtin {
    /// The function of a YAML leaf operator (`op: starts_with`).
    pub fn by_yaml(op: &str) -> Option<Builtin> {
        Builtin::ALL
            .iter()
            .copied()
            .find(|f| f.def().yaml == Some(op))
    }
}

/// Runs `f` on `args` (its stack arguments, receiver first) and, for a
/// function with a pattern parameter, the compiled pattern. An error
/// argument is the result (the first, left to right); a kind the function
/// does not take is `no such overload`.
#[inline]
pub fn call<'a>(
    f: Builtin,
    args: &[Val<'a>],
    pattern: Option<&crate::value::PolicyRegex>,
    scratch: &mut Scratch<'a>,
) -> Val<'a> {
    if let Some(e) = args.iter().find_map(|a| match a {
        Val::Error(e) => Some(*e),
        _ => None,
    }) {
        return Val::Error(e);
    }
    let def = f.def();
    let typed = def
        .params
        .iter()
        .filter(|p| p.pattern.is_none())
        .zip(args)
        .all(|(p, a)| p.kinds.intersects(a.kind()));
    if !typed || args.len() != def.stack_arity() as usize {
        return Val::Error(EvalError::NoSuchOverload);
    }
    f.run(args, pattern, scratch)
}

/// The string of a string value (callers have checked its kind).
fn str_of<'v>(v: &'v Val<'_>) -> Result<&'v str, EvalError> {
    match v {
        Val::Str(s) => Ok(s),
        _ => Err(EvalError::NoSuchOverload),
    }
}

/// A part of a string value, borrowed for as long as the value is (`part`
/// returns a slice of its argument).
fn str_part<'a>(v: &Val<'a>, part: impl for<'s> Fn(&'s str) -> &'s str) -> Val<'a> {
    match v {
        Val::Str(Cow::Borrowed(s)) => Val::Str(Cow::Borrowed(part(s))),
        Val::Str(Cow::Owned(s)) => Val::Str(Cow::Owned(part(s).to_owned())),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// A part of a string value computed by `part`, which may fail.
fn try_part<'a>(
    v: &Val<'a>,
    part: impl for<'s> Fn(&'s str) -> Result<&'s str, EvalError>,
) -> Result<Val<'a>, EvalError> {
    Ok(match v {
        Val::Str(Cow::Borrowed(s)) => Val::Str(Cow::Borrowed(part(s)?)),
        Val::Str(Cow::Owned(s)) => Val::Str(Cow::Owned(part(s)?.to_owned())),
        _ => return Err(EvalError::NoSuchOverload),
    })
}

/// A string made from a string value by `make`, borrowed for as long as
/// the value is when `make` borrows.
fn str_cow<'a>(v: &Val<'a>, make: impl for<'s> Fn(&'s str) -> Cow<'s, str>) -> Val<'a> {
    match v {
        Val::Str(Cow::Borrowed(s)) => Val::Str(make(s)),
        Val::Str(Cow::Owned(s)) => Val::Str(Cow::Owned(make(s).into_owned())),
        _ => Val::Error(EvalError::NoSuchOverload),
    }
}

/// An int argument (callers have checked its kind; a double is not taken).
fn int_of(v: &Val<'_>) -> Result<i64, EvalError> {
    match v {
        Val::Int(i) => Ok(*i),
        _ => Err(EvalError::NoSuchOverload),
    }
}

/// A list of strings as a value, each item owned.
fn string_list<'a>(items: impl IntoIterator<Item = impl Into<String>>) -> Val<'a> {
    Val::List(
        items
            .into_iter()
            .map(|s| Val::Str(Cow::Owned(s.into())))
            .collect(),
    )
}

/// The strings of a list value; `no such overload` if an item is not one.
fn string_items<'v, 'a>(v: &'v Val<'a>) -> Result<Vec<Cow<'v, str>>, EvalError> {
    let n = v.element_count().ok_or(EvalError::NoSuchOverload)?;
    let mut out = Vec::with_capacity(n);
    match v {
        Val::Array(items) => {
            for item in *items {
                out.push(Cow::Borrowed(
                    item.as_str().ok_or(EvalError::NoSuchOverload)?,
                ));
            }
        }
        Val::List(items) => {
            for item in items {
                out.push(Cow::Borrowed(str_of(item)?));
            }
        }
        Val::Words(words) => out.extend(words.iter().map(|w| Cow::Borrowed(&**w))),
        _ => return Err(EvalError::NoSuchOverload),
    }
    Ok(out)
}

/// A string result, or the error past [`crate::limits::MAX_RESULT_BYTES`].
fn built<'a>(s: String) -> Val<'a> {
    if s.len() > crate::limits::MAX_RESULT_BYTES {
        Val::Error(EvalError::InvalidArgument)
    } else {
        Val::Str(Cow::Owned(s))
    }
}

/// A `Result` as a value.
fn lift<'a>(r: Result<Val<'a>, EvalError>) -> Val<'a> {
    r.unwrap_or_else(Val::Error)
}

#[cfg(test)]
mod tests;
