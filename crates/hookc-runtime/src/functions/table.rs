//! The function table: one row per builtin function of the `when`
//! language (see the [module docs](super) for what reads it, and
//! `ARCHITECTURE.md`, "How to add a function").
//!
//! # Row syntax
//!
//! ```text
//! /// docs (the first line is the summary)
//! 0xNNNN Name {
//!     [ns: "path",] name: "base", form: Method|Global|Both,
//!     params: [p: KINDS, re: KINDS => Regex|PathGlob],
//!     result: KINDS, [shape: Strings|ShellCommands,]
//!     yaml: Some("op") | None, lower: Instruction(Op::X) | Call,
//!     run: |[stack args], pattern, scratch| body,
//! }
//! ```
//!
//! The id is the artifact's operand of `Call`: never reuse or renumber
//! one. `run` receives the stack arguments (the receiver first), already
//! checked for errors and kinds by [`super::call`].

use super::{
    built, int_of, lift, paths, str_cow, str_of, str_part, string_items, string_list, strings,
    try_part, urls, Form, FunctionDef, Lowering, Param, PatternKind, Shape,
};
use super::{shell, DerivedValue, ParsedScript, Scratch};
use crate::bytecode::{Kinds, Op};
use crate::value::{self, EvalError, PolicyRegex, StrPred, Val};
use serde_json::Value;
use smallvec::SmallVec;
use std::borrow::Cow;

const STR: Kinds = Kinds::STRING;
const INT: Kinds = Kinds::INT;
const BOOL: Kinds = Kinds::BOOL;
const LIST: Kinds = Kinds::LIST;
const OBJECT: Kinds = Kinds::OBJECT;
const ANY: Kinds = Kinds::ANY;

/// The parse of the command string `s`, kept in the evaluation's store,
/// made once per evaluation for each string however many hooks and
/// functions read it. `None` without a store.
fn parsed<'a>(s: &Val<'a>, scratch: &mut Scratch<'a>) -> Option<&'a ParsedScript<'a>> {
    let Val::Str(text) = s else { return None };
    scratch
        .memo(Builtin::ShellCommands, text, |text| {
            let script = shell::parse(text);
            DerivedValue::Script(ParsedScript {
                commands: script
                    .commands
                    .into_iter()
                    .map(value::CommandRecord::new)
                    .collect(),
                error: script.error.map(|e| e.to_string()),
            })
        })?
        .as_script()
}

/// [`shell::record_paths`] of an object shaped as a command of
/// `shell.commands` (one a policy or a test case wrote).
fn command_paths(c: &serde_json::Map<String, Value>) -> Result<Vec<String>, EvalError> {
    let list = |key: &str| {
        value::lookup(c, key)
            .and_then(Value::as_array)
            .ok_or(EvalError::NoSuchKey)
    };
    let dir = value::lookup(c, shell::keys::DIR)
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(shell::record_paths(
        list(shell::keys::ARGV)?,
        list(shell::keys::REDIRECTS)?,
        dir,
    ))
}

/// Appends every string of `v` to `out` (see `strings(v)`).
fn every_string<'a>(v: &Val<'a>, out: &mut Vec<Val<'a>>) {
    fn json<'a>(v: &'a Value, out: &mut Vec<Val<'a>>) {
        match v {
            Value::String(s) => out.push(Val::Str(Cow::Borrowed(s))),
            Value::Array(items) => items.iter().for_each(|i| json(i, out)),
            Value::Object(m) => m.values().for_each(|i| json(i, out)),
            _ => {}
        }
    }
    match v {
        Val::Str(s) => out.push(Val::Str(s.clone())),
        Val::Array(items) => items.iter().for_each(|i| json(i, out)),
        Val::Object(m) => m.values().for_each(|i| json(i, out)),
        Val::Command(c) => c.to_map().values().for_each(|i| json(i, out)),
        Val::Commands(cs) => cs
            .iter()
            .for_each(|c| c.to_map().values().for_each(|i| json(i, out))),
        Val::List(items) => items.iter().for_each(|i| every_string(i, out)),
        Val::Words(words) => out.extend(words.iter().map(|w| Val::Str(Cow::Borrowed(&**w)))),
        _ => {}
    }
}

/// The argv of an object shaped as a command of `shell.commands` (one a
/// policy or a test case wrote; a parsed command's is read in place),
/// without copying its words.
fn argv_of<'v>(c: &'v Val<'_>) -> Result<SmallVec<[&'v str; 16]>, EvalError> {
    let argv = match c {
        Val::Command(c) => return Ok(c.parts().argv.iter().map(|w| &**w).collect()),
        Val::Object(map) => value::lookup(map, shell::keys::ARGV)
            .and_then(Value::as_array)
            .ok_or(EvalError::NoSuchKey)?,
        _ => return Err(EvalError::NoSuchOverload),
    };
    argv.iter()
        .map(|w| w.as_str().ok_or(EvalError::NoSuchOverload))
        .collect()
}

/// `list.join(sep)`, refused before it is built when the result would
/// pass [`crate::limits::MAX_RESULT_BYTES`] (100,000 items joined by a
/// 1 MiB separator would be 100 GB).
fn join<'a>(items: &[Cow<'_, str>], sep: &str) -> Result<Val<'a>, EvalError> {
    let len = items
        .iter()
        .map(|i| i.len())
        .fold(0usize, usize::saturating_add)
        .saturating_add(sep.len().saturating_mul(items.len().saturating_sub(1)));
    if len > crate::limits::MAX_RESULT_BYTES {
        return Err(EvalError::InvalidArgument);
    }
    Ok(built(strings::join(items, sep)))
}

/// `s.replace(old, new[, n])`, refused before it is built when the result
/// would pass [`crate::limits::MAX_RESULT_BYTES`] (a result can be the
/// product of two inputs' sizes: `'ab'.replace('', big)`).
fn replace<'a>(s: &str, old: &str, new: &str, limit: Option<i64>) -> Result<Val<'a>, EvalError> {
    if new.len() > old.len() {
        let occurrences = if old.is_empty() {
            s.chars().count() + 1
        } else {
            s.matches(old).count()
        };
        let replaced = match limit {
            Some(n) if n >= 0 => occurrences.min(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => occurrences,
        };
        let grows = replaced.saturating_mul(new.len() - old.len());
        if s.len().saturating_add(grows) > crate::limits::MAX_RESULT_BYTES {
            return Err(EvalError::InvalidArgument);
        }
    }
    Ok(built(strings::replace(s, old, new, limit).into_owned()))
}

/// Generates [`Builtin`] and its table-driven methods from the rows.
macro_rules! functions {
    ($(
        $(#[doc = $doc:literal])*
        $id:literal $name:ident {
            $( ns: $ns:literal, )?
            name: $fname:literal, form: $form:ident,
            params: [ $( $pname:ident : $pkinds:expr $( => $pat:ident )? ),* $(,)? ],
            result: $result:expr, $( shape: $shape:ident, )?
            yaml: $yaml:expr, lower: $lower:expr,
            run: |[ $( $arg:ident ),* ], $pattern:pat_param, $scratch:pat_param| $body:expr $(,)?
        }
    )+) => {
        /// A builtin function: one row of the function table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Builtin {
            $( $(#[doc = $doc])* $name, )+
        }

        impl Builtin {
            /// Every builtin, in table order.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$name),+];

            /// Its stable id (the artifact's operand).
            pub const fn id(self) -> u16 {
                match self {
                    $( Builtin::$name => $id, )+
                }
            }

            /// Its operand in a call instruction.
            pub fn func_id(self) -> crate::bytecode::FuncId {
                crate::bytecode::FuncId::new(self.id(), self.def().stack_arity())
            }

            /// The builtin a call instruction names, if its id is one.
            pub fn of(f: crate::bytecode::FuncId) -> Option<Builtin> {
                Builtin::from_id(f.id())
            }

            /// The builtin with this id.
            pub fn from_id(id: u16) -> Option<Builtin> {
                match id {
                    $( $id => Some(Builtin::$name), )+
                    _ => None,
                }
            }

            /// Its row.
            pub fn def(self) -> &'static FunctionDef {
                match self {
                    $(
                        Builtin::$name => {
                            const DEF: FunctionDef = FunctionDef {
                                namespace: first_of!($($ns)?),
                                name: $fname,
                                form: Form::$form,
                                params: &[$(Param {
                                    name: stringify!($pname),
                                    kinds: $pkinds,
                                    pattern: first_of!($(PatternKind::$pat)?),
                                }),*],
                                result: $result,
                                shape: shape_or_plain!($($shape)?),
                                yaml: $yaml,
                                lowering: { use Lowering::*; $lower },
                                summary: first_doc!($($doc)*),
                            };
                            &DEF
                        }
                    )+
                }
            }

            /// Runs the row's implementation (through [`super::call`]).
            #[allow(unused_variables)]
            pub(super) fn run<'a>(
                self,
                args: &[Val<'a>],
                pattern: Option<&PolicyRegex>,
                scratch: &mut super::Scratch<'a>,
            ) -> Val<'a> {
                match self {
                    $(
                        Builtin::$name => match args {
                            [$($arg),*] => {
                                let $pattern = pattern;
                                let $scratch = scratch;
                                $body
                            }
                            _ => Val::Error(EvalError::InvalidArgument),
                        },
                    )+
                }
            }
        }
    };
}

/// `Some(x)` for one token tree, `None` for none.
macro_rules! first_of {
    () => {
        None
    };
    ($x:expr) => {
        Some($x)
    };
}

/// The shape named, or [`Shape::Plain`].
macro_rules! shape_or_plain {
    () => {
        Shape::Plain
    };
    ($s:ident) => {
        Shape::$s
    };
}

/// The first doc line of a row (its summary).
macro_rules! first_doc {
    () => {
        ""
    };
    ($d:literal $($rest:literal)*) => {
        $d.trim_ascii()
    };
}

functions! {
    /// `size(x)`, `x.size()`: the code points of a string, the items of a list, the keys of an object.
    0x0001 Size {
        name: "size", form: Both,
        params: [x: STR.or(LIST).or(OBJECT)],
        result: INT,
        yaml: None, lower: Instruction(Op::Size),
        run: |[x], _, _| value::size(x),
    }
    /// `s.contains(t)`: whether `t` occurs in `s`.
    0x0002 Contains {
        name: "contains", form: Method,
        params: [s: STR, t: STR],
        result: BOOL,
        yaml: Some("contains"), lower: Instruction(Op::Contains),
        run: |[s, t], _, _| value::str_pred(StrPred::Contains, s, t),
    }
    /// `s.startsWith(t)`: whether `s` begins with `t`.
    0x0003 StartsWith {
        name: "startsWith", form: Method,
        params: [s: STR, t: STR],
        result: BOOL,
        yaml: Some("starts_with"), lower: Instruction(Op::StartsWith),
        run: |[s, t], _, _| value::str_pred(StrPred::StartsWith, s, t),
    }
    /// `s.endsWith(t)`: whether `s` ends with `t`.
    0x0004 EndsWith {
        name: "endsWith", form: Method,
        params: [s: STR, t: STR],
        result: BOOL,
        yaml: Some("ends_with"), lower: Instruction(Op::EndsWith),
        run: |[s, t], _, _| value::str_pred(StrPred::EndsWith, s, t),
    }
    /// `list.join()`, `list.join(sep)`: the strings of a list, separated by `sep` (none by default).
    0x0010 Join {
        name: "join", form: Method,
        params: [list: LIST],
        result: STR,
        yaml: None, lower: Call,
        run: |[list], _, _| lift((|| join(&string_items(list)?, ""))()),
    }
    /// `list.join(sep)`: the strings of a list, separated by `sep`.
    0x0011 JoinSep {
        name: "join", form: Method,
        params: [list: LIST, sep: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[list, sep], _, _| lift((|| join(&string_items(list)?, str_of(sep)?))()),
    }
    /// `s.lowerAscii()`: `s` with ASCII letters lowercased (others unchanged).
    0x0012 LowerAscii {
        name: "lowerAscii", form: Method,
        params: [s: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[s], _, _| str_cow(s, strings::lower_ascii),
    }
    /// `s.upperAscii()`: `s` with ASCII letters uppercased (others unchanged).
    0x0013 UpperAscii {
        name: "upperAscii", form: Method,
        params: [s: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[s], _, _| str_cow(s, strings::upper_ascii),
    }
    /// `s.trim()`: `s` without Unicode white space at either end.
    0x0014 Trim {
        name: "trim", form: Method,
        params: [s: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[s], _, _| str_part(s, strings::trim),
    }
    /// `s.split(sep)`: the parts of `s` between occurrences of `sep` (code points when `sep` is empty).
    0x0015 Split {
        name: "split", form: Method,
        params: [s: STR, sep: STR],
        result: LIST, shape: Strings,
        yaml: None, lower: Call,
        run: |[s, sep], _, _| lift((|| Ok(string_list(strings::split(str_of(s)?, str_of(sep)?, None))))()),
    }
    /// `s.split(sep, n)`: at most `n` parts (the last holds the rest; `n < 0`: all; `0`: none).
    0x0016 SplitN {
        name: "split", form: Method,
        params: [s: STR, sep: STR, n: INT],
        result: LIST, shape: Strings,
        yaml: None, lower: Call,
        run: |[s, sep, n], _, _| lift((|| {
            Ok(string_list(strings::split(str_of(s)?, str_of(sep)?, Some(int_of(n)?))))
        })()),
    }
    /// `s.replace(old, new)`: `s` with every `old` replaced by `new`.
    0x0017 Replace {
        name: "replace", form: Method,
        params: [s: STR, old: STR, new: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[s, old, new], _, _| lift((|| replace(str_of(s)?, str_of(old)?, str_of(new)?, None))()),
    }
    /// `s.replace(old, new, n)`: the first `n` occurrences replaced (`n < 0`: all).
    0x0018 ReplaceN {
        name: "replace", form: Method,
        params: [s: STR, old: STR, new: STR, n: INT],
        result: STR,
        yaml: None, lower: Call,
        run: |[s, old, new, n], _, _| lift((|| {
            replace(str_of(s)?, str_of(old)?, str_of(new)?, Some(int_of(n)?))
        })()),
    }
    /// `s.substring(start)`: the code points of `s` from `start` on.
    0x0019 Substring {
        name: "substring", form: Method,
        params: [s: STR, start: INT],
        result: STR,
        yaml: None, lower: Call,
        run: |[s, start], _, _| lift((|| {
            let start = int_of(start)?;
            try_part(s, |s| strings::substring(s, start, None))
        })()),
    }
    /// `s.substring(start, end)`: the code points of `s` from `start` up to `end`.
    0x001a SubstringRange {
        name: "substring", form: Method,
        params: [s: STR, start: INT, end: INT],
        result: STR,
        yaml: None, lower: Call,
        run: |[s, start, end], _, _| lift((|| {
            let (start, end) = (int_of(start)?, int_of(end)?);
            try_part(s, |s| strings::substring(s, start, Some(end)))
        })()),
    }
    /// `s.indexOf(t)`: the code-point index of the first `t` in `s`, `-1` when none.
    0x001b IndexOf {
        name: "indexOf", form: Method,
        params: [s: STR, t: STR],
        result: INT,
        yaml: None, lower: Call,
        run: |[s, t], _, _| lift((|| Ok(Val::Int(strings::index_of(str_of(s)?, str_of(t)?, None)?)))()),
    }
    /// `s.indexOf(t, from)`: the first `t` at or after code point `from`, `-1` when none.
    0x001c IndexOfFrom {
        name: "indexOf", form: Method,
        params: [s: STR, t: STR, from: INT],
        result: INT,
        yaml: None, lower: Call,
        run: |[s, t, from], _, _| lift((|| {
            Ok(Val::Int(strings::index_of(str_of(s)?, str_of(t)?, Some(int_of(from)?))?))
        })()),
    }
    /// `s.lastIndexOf(t)`: the code-point index of the last `t` in `s`, `-1` when none.
    0x001d LastIndexOf {
        name: "lastIndexOf", form: Method,
        params: [s: STR, t: STR],
        result: INT,
        yaml: None, lower: Call,
        run: |[s, t], _, _| lift((|| {
            Ok(Val::Int(strings::last_index_of(str_of(s)?, str_of(t)?, None)?))
        })()),
    }
    /// `s.lastIndexOf(t, from)`: the last `t` at or before code point `from`, `-1` when none.
    0x001e LastIndexOfFrom {
        name: "lastIndexOf", form: Method,
        params: [s: STR, t: STR, from: INT],
        result: INT,
        yaml: None, lower: Call,
        run: |[s, t, from], _, _| lift((|| {
            Ok(Val::Int(strings::last_index_of(str_of(s)?, str_of(t)?, Some(int_of(from)?))?))
        })()),
    }
    /// `s.truncate(n)`: the first `n` code points of `s` (all of it when shorter), for messages.
    0x001f Truncate {
        name: "truncate", form: Method,
        params: [s: STR, n: INT],
        result: STR,
        yaml: None, lower: Call,
        run: |[s, n], _, _| lift((|| {
            let n = int_of(n)?;
            try_part(s, |s| strings::truncate(s, n))
        })()),
    }
    /// `s.closest(list, max)`: the string of `list` nearest to `s` within `max` edits (a character inserted, removed, replaced, or two neighbours swapped), the first of the nearest; `''` when none is (and when `s` is longer than 256 code points). A name one typo from a known one: `a.closest(known, 1) != a && a.closest(known, 1) != ''`.
    0x0023 Closest {
        name: "closest", form: Method,
        params: [s: STR, list: LIST, max: INT],
        result: STR,
        yaml: None, lower: Call,
        run: |[s, list, max], _, _| lift((|| {
            let max = int_of(max)?;
            let items = string_items(list)?;
            let found = strings::closest(str_of(s)?, items.iter().map(|i| i.as_ref()), max)?;
            Ok(built(found.unwrap_or_default().to_owned()))
        })()),
    }
    /// `path.base(p)`: the last element of the path `p` (`.` for an empty path).
    0x0030 PathBase {
        ns: "path", name: "base", form: Global,
        params: [p: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[p], _, _| str_part(p, paths::base),
    }
    /// `path.ext(p)`: the extension of `p`'s last element with its dot (`''` when none; a dotfile has none).
    0x0031 PathExt {
        ns: "path", name: "ext", form: Global,
        params: [p: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[p], _, _| str_part(p, paths::ext),
    }
    /// `path.dir(p)`: all of the path `p` but its last element, cleaned.
    0x0032 PathDir {
        ns: "path", name: "dir", form: Global,
        params: [p: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[p], _, _| str_cow(p, paths::dir),
    }
    /// `path.clean(p)`: the shortest lexically equal path (`//`, `.` and `..` resolved, never touching the disk).
    0x0033 PathClean {
        ns: "path", name: "clean", form: Global,
        params: [p: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[p], _, _| str_cow(p, paths::clean),
    }
    /// `path.within(p, root)`: whether `p`, cleaned (and taken relative to `root` when relative), is `root` or inside it.
    0x0034 PathWithin {
        ns: "path", name: "within", form: Global,
        params: [p: STR, root: STR],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[p, root], _, _| lift((|| Ok(Val::Bool(paths::within(str_of(p)?, str_of(root)?))))()),
    }
    /// `path.join(a, b)`: `b` appended to `a` with one `/`, cleaned.
    0x0035 PathJoin {
        ns: "path", name: "join", form: Global,
        params: [a: STR, b: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[a, b], _, _| lift((|| Ok(built(paths::join(str_of(a)?, str_of(b)?))))()),
    }
    /// `path.match(p, glob)`: whether the whole path `p` matches the glob (`*`, `?`, `[...]` within an element, `**` any number of elements).
    0x0036 PathMatch {
        ns: "path", name: "match", form: Global,
        params: [p: STR, glob: STR => PathGlob],
        result: BOOL,
        yaml: Some("path_match"), lower: RegexTest,
        run: |[p], re, _| match re {
            Some(re) => value::matches(p, re),
            None => Val::Error(EvalError::InvalidArgument),
        },
    }
    /// `path.normal(p)`: `p` as guards compare it: a `file:` scheme removed, a leading `$HOME`/`${HOME}` written `~`, cleaned.
    0x0037 PathNormal {
        ns: "path", name: "normal", form: Global,
        params: [p: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[p], _, _| str_cow(p, paths::normal),
    }
    /// `path.secret(p)`: whether the path `p` names a file that holds credentials (`~/.ssh/...`, `.env` but its templates, `.aws`, `.netrc`, private keys, ...: the list is in the semantics chapter).
    0x0038 PathSecret {
        ns: "path", name: "secret", form: Global,
        params: [p: STR],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[p], _, _| lift((|| Ok(Val::Bool(paths::secret(str_of(p)?))))()),
    }
    /// `path.startup(p)`: whether the path `p` is a file that runs by itself later: a shell start-up file (`.bashrc`, `.zshrc`, `.profile`, ...), a LaunchAgent, a systemd unit, autostart or cron entry.
    0x0039 PathStartup {
        ns: "path", name: "startup", form: Global,
        params: [p: STR],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[p], _, _| lift((|| Ok(Val::Bool(paths::startup(str_of(p)?))))()),
    }
    /// `path.resolve(base, p)`: `p` as `path.normal` gives it, joined to `base` when it is relative (an absolute or `~` path stays as it is): one spelling for the same file named from a folder (`path.resolve(cwd, 'a.py')` and `'/proj/a.py'`).
    0x003A PathResolve {
        ns: "path", name: "resolve", form: Global,
        params: [base: STR, p: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[base, p], _, _| lift((|| Ok(built(paths::resolve(str_of(base)?, str_of(p)?))))()),
    }
    /// `strings(v)` (also `v.strings()`): every string in the value `v`, itself or nested in lists and objects at any depth (an MCP tool's arguments, whatever their shape), in document order.
    0x0022 Strings {
        name: "strings", form: Both,
        params: [v: ANY],
        result: LIST, shape: Strings,
        yaml: None, lower: Call,
        run: |[v], _, _| {
            let mut out = Vec::new();
            every_string(v, &mut out);
            Val::List(out)
        },
    }
    /// `url.host(u)`: the host of the URL `u`, lowercased, without user, port or brackets (`''` when it has none).
    0x0040 UrlHost {
        ns: "url", name: "host", form: Global,
        params: [u: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[u], _, _| str_cow(u, |u| urls::host(u).unwrap_or_default()),
    }
    /// `url.scheme(u)`: the scheme of the URL `u`, lowercased (`''` when it has none).
    0x0041 UrlScheme {
        ns: "url", name: "scheme", form: Global,
        params: [u: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[u], _, _| str_cow(u, |u| urls::scheme(u).unwrap_or_default()),
    }
    /// `url.path(u)`: the path of the URL `u` (`''` when it has none).
    0x0042 UrlPath {
        ns: "url", name: "path", form: Global,
        params: [u: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[u], _, _| str_cow(u, |u| urls::path(u).unwrap_or_default()),
    }
    /// `shell.commands(s)`: the simple commands the Bash command string `s` runs, each an object with `argv`, `program`, `env`, `redirects` and `wrappers` (parsed once per evaluation).
    0x0050 ShellCommands {
        ns: "shell", name: "commands", form: Global,
        params: [s: STR],
        result: LIST, shape: ShellCommands,
        yaml: None, lower: Call,
        run: |[s], _, scratch| match parsed(s, scratch) {
            Some(script) => Val::Commands(&script.commands),
            None => Val::Error(EvalError::InvalidArgument),
        },
    }
    /// `shell.valid(s)`: whether the Bash command string `s` parses (a guard can deny what it cannot read).
    0x0051 ShellValid {
        ns: "shell", name: "valid", form: Global,
        params: [s: STR],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[s], _, scratch| match parsed(s, scratch) {
            Some(script) => Val::Bool(script.error.is_none()),
            None => Val::Error(EvalError::InvalidArgument),
        },
    }
    /// `shell.error(s)`: why the Bash command string `s` does not parse (`''` when it does), for a deny reason.
    0x0052 ShellError {
        ns: "shell", name: "error", form: Global,
        params: [s: STR],
        result: STR,
        yaml: None, lower: Call,
        run: |[s], _, scratch| match parsed(s, scratch) {
            Some(script) => Val::Str(Cow::Borrowed(script.error.as_deref().unwrap_or(""))),
            None => Val::Error(EvalError::InvalidArgument),
        },
    }
    /// `shell.runs(s, programs)`: whether a command of the Bash command string `s` runs the program `programs` names (a name, or a list of names): `shell.commands(s).exists(c, c.program == programs)`, without the walk.
    0x0056 ShellRuns {
        ns: "shell", name: "runs", form: Global,
        params: [s: STR, programs: STR.or(LIST)],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[s, programs], _, scratch| lift((|| {
            let names: SmallVec<[Cow<'_, str>; 4]> = match programs {
                Val::Str(name) => SmallVec::from_iter([Cow::Borrowed(name.as_ref())]),
                list => string_items(list)?.into_iter().collect(),
            };
            let script = parsed(s, scratch).ok_or(EvalError::InvalidArgument)?;
            Ok(Val::Bool(script.commands.iter().any(|c| {
                let program = &c.parts().program;
                names.iter().any(|n| value::same_str(program, n))
            })))
        })()),
    }
    /// `shell.runsPrefix(s, prefixes)`: whether a command of the Bash command string `s` begins with one of `prefixes`, each a list of words as `c.argvPrefix` reads it (`[['git', 'push'], ['git', 'reset']]`): `shell.commands(s).exists(c, prefixes.exists(w, c.argvPrefix(w)))` without the walk (a prefix that is not a list of strings is an error).
    0x0059 ShellRunsPrefix {
        ns: "shell", name: "runsPrefix", form: Global,
        params: [s: STR, prefixes: LIST],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[s, prefixes], _, scratch| lift((|| {
            // A constant list (the gate the compiler's shell prefilter
            // writes) is read in place; any other list of lists of strings
            // is copied to words first.
            let wanted: SmallVec<[Cow<'_, [Value]>; 2]> = match prefixes {
                Val::Array(items) => items
                    .iter()
                    .map(|w| match w {
                        Value::Array(words) if words.iter().all(Value::is_string) => {
                            Ok(Cow::Borrowed(words.as_slice()))
                        }
                        _ => Err(EvalError::NoSuchOverload),
                    })
                    .collect::<Result<_, _>>()?,
                list => {
                    let n = list.element_count().ok_or(EvalError::NoSuchOverload)?;
                    (0..n)
                        .map(|i| {
                            let prefix = list.element(i).ok_or(EvalError::NoSuchOverload)?;
                            let words = string_items(&prefix)?;
                            Ok(Cow::Owned(words.iter().map(|w| Value::from(&**w)).collect()))
                        })
                        .collect::<Result<_, _>>()?
                }
            };
            // PERF: `argv_prefix` holds only where `argv[0]` runs the
            // program the first word names, and for a word without a `/`
            // that is the command's `program` (its `argv[0]`'s last path
            // component): a command of another program is passed over by
            // one comparison (callgrind, bundled Claude Code guard on a
            // 200-character command: 3.6k -> 1.2k instructions a gate).
            let named: SmallVec<[Option<&str>; 2]> = wanted
                .iter()
                .map(|w| w.first().and_then(Value::as_str).filter(|n| !n.contains('/')))
                .collect();
            let script = parsed(s, scratch).ok_or(EvalError::InvalidArgument)?;
            Ok(Val::Bool(script.commands.iter().any(|c| {
                let parts = c.parts();
                wanted.iter().zip(&named).any(|(w, named)| {
                    named.is_none_or(|n| parts.program == n) && shell::argv_prefix(&parts.argv, w)
                })
            })))
        })()),
    }
    /// `c.hasFlag(flag)`: whether the command `c` (of `shell.commands`) is given the flag: `-x` alone or in a cluster (`-rx`, `-i.bak`: letters up to an attached value) for one letter, `--flag`/`--flag=v` for a word.
    0x0053 HasFlag {
        name: "hasFlag", form: Method,
        params: [c: OBJECT, flag: STR],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[c, flag], _, _| lift((|| {
            let flag = str_of(flag)?;
            let (short, long) = if flag.chars().count() == 1 { (flag, "") } else { ("", flag) };
            Ok(Val::Bool(match c {
                Val::Command(c) => shell::has_flag(&c.parts().argv, short, long),
                c => shell::has_flag(&argv_of(c)?, short, long),
            }))
        })()),
    }
    /// `c.hasFlag(short, long)`: whether the command `c` is given the flag in any spelling: `-r`, `-rf`, `-fr`, `-r -f` or `--recursive` (`''` for a spelling it has not).
    0x0054 HasFlagEither {
        name: "hasFlag", form: Method,
        params: [c: OBJECT, short: STR, long: STR],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[c, short, long], _, _| lift((|| {
            let (short, long) = (str_of(short)?, str_of(long)?);
            Ok(Val::Bool(match c {
                Val::Command(c) => shell::has_flag(&c.parts().argv, short, long),
                c => shell::has_flag(&argv_of(c)?, short, long),
            }))
        })()),
    }
    /// `c.argvPrefix(words)`: whether the command `c`'s argv starts with the list of strings `words` (Codex's `prefix_rule`: `c.argvPrefix(['git', 'push'])`), the first word naming the program however it is run (`/usr/bin/git push`), for `git` also past its global options (`git -C dir push`).
    0x0055 ArgvPrefix {
        name: "argvPrefix", form: Method,
        params: [c: OBJECT, words: LIST],
        result: BOOL,
        yaml: None, lower: Call,
        run: |[c, words], _, _| lift((|| {
            // PERF: a parsed command against a list of the policy's
            // (`['git', 'push']`) is compared in place, once every word is
            // known to be a string (else `string_items` gives its error
            // below), without collecting the words (callgrind, bundled
            // Claude Code guard on a 200-character command: 36 calls a
            // decision).
            if let (Val::Command(c), Val::Array(items)) = (c, words) {
                if items.iter().all(Value::is_string) {
                    return Ok(Val::Bool(shell::argv_prefix(&c.parts().argv, items)));
                }
            }
            let words = string_items(words)?;
            Ok(Val::Bool(match c {
                Val::Command(c) => shell::argv_prefix(&c.parts().argv, &words),
                c => shell::argv_prefix(&argv_of(c)?, &words),
            }))
        })()),
    }
    /// `shell.paths(s)`: the paths the Bash command string `s` names, each normalised (`path.normal`) and joined to where an earlier `cd` went: every operand, `--opt=VALUE` and `KEY=VALUE` values, `@file`s and redirection files (see `c.paths()`).
    0x0057 ShellPaths {
        ns: "shell", name: "paths", form: Global,
        params: [s: STR],
        result: LIST, shape: Strings,
        yaml: None, lower: Call,
        run: |[s], _, scratch| lift((|| {
            let Val::Str(text) = s else { return Err(EvalError::InvalidArgument) };
            let script = parsed(s, scratch).ok_or(EvalError::InvalidArgument)?;
            // Kept with the parse: one list per evaluation.
            let all = scratch.memo(Builtin::ShellPaths, text, |_| {
                DerivedValue::Words(
                    script.commands.iter().flat_map(|c| c.paths().iter().map(|p| Cow::Borrowed(&**p))).collect(),
                )
            });
            all.and_then(DerivedValue::as_words).map(Val::Words).ok_or(EvalError::InvalidArgument)
        })()),
    }
    /// `c.paths()`: the paths the command `c` (of `shell.commands`) names: its operands (not the program), `--opt=VALUE`/`KEY=VALUE` values, `@file`s and redirection files, normalised and joined to `c.dir`.
    0x0058 CommandPaths {
        name: "paths", form: Method,
        params: [c: OBJECT],
        result: LIST, shape: Strings,
        yaml: None, lower: Call,
        run: |[c], _, _| lift((|| match c {
            // A command of `shell.commands` keeps its paths.
            Val::Command(c) => Ok(Val::Words(c.paths())),
            Val::Object(c) => match value::lookup(c, shell::keys::PATHS) {
                Some(paths @ Value::Array(_)) => Ok(Val::from_json(paths)),
                _ => Ok(string_list(command_paths(c)?)),
            },
            _ => Err(EvalError::NoSuchOverload),
        })()),
    }
    /// `m.get(key, default)`: the value of `key` in the object `m` (a map literal: a lookup table), `default` when it has none.
    0x0021 Get {
        name: "get", form: Method,
        params: [m: OBJECT, key: STR, default: ANY],
        result: ANY,
        yaml: None, lower: Call,
        run: |[m, key, default], _, _| match (m, key) {
            (Val::Object(map), Val::Str(k)) => value::lookup(map, k).map_or_else(|| default.clone(), Val::from_json),
            (Val::Command(c), Val::Str(k)) => c.member(k).unwrap_or_else(|| default.clone()),
            _ => Val::Error(EvalError::NoSuchOverload),
        },
    }
    /// `s.capture(re)`: the groups of the first match of `re` in `s`, group 0 the whole match (`''` for a group that took no part); `[]` when nothing matches.
    0x0020 Capture {
        name: "capture", form: Method,
        params: [s: STR, re: STR => Regex],
        result: LIST, shape: Strings,
        yaml: None, lower: Call,
        run: |[s], re, _| lift((|| {
            let re = re.ok_or(EvalError::InvalidArgument)?;
            Ok(match re.captures(str_of(s)?)? {
                Some(groups) => string_list(groups.into_iter().map(|g| g.unwrap_or(""))),
                None => Val::List(Vec::new()),
            })
        })()),
    }
}
