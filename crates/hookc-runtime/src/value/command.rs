//! The command objects of `shell.commands(s)`, read without a map
//! (`docs/src/semantics.md#functions`, `shell.commands`).
//!
//! A guard reads a parsed command's members (`c.program`, `c.argv`,
//! `c.pipedFrom`) in every hook, once per command: a `serde_json` object per
//! command (an `IndexMap` with eleven owned, hashed keys) cost more to
//! build, search and drop than the parse itself, and a JSON string per
//! word as much again. A [`CommandRecord`] holds the parsed command
//! itself, a [`SimpleCommand`], whose words borrow from the command string
//! where no quote or escape was removed: a member is a match on its name,
//! the word lists (`argv`, `wrappers`, `paths`) are read in place as
//! [`Val::Words`], `env` and `redirects` are made JSON when first read, and
//! the whole JSON object only where a value must be one (equality with an
//! object, `strings(c)`, a template printing it): the policy language sees
//! the same object either way.
//!
//! The value layer knows the members' names and kinds, not how a command
//! is read: `functions::shell` parses command strings into
//! [`SimpleCommand`]s (and re-exports the type), whose `paths` (the one
//! member that is work to compute, made the first time it is read) it
//! also defines.

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cell::OnceCell;

use super::Val;

/// The members' names, in the order of [`CommandRecord::to_map`] (and of a
/// macro over the object's keys).
pub mod keys {
    /// The argument list, program first.
    pub const ARGV: &str = "argv";
    /// The program's name without its directory.
    pub const PROGRAM: &str = "program";
    /// The assignments, an object (a later assignment of a name wins).
    pub const ENV: &str = "env";
    /// The redirections, a list of objects.
    pub const REDIRECTS: &str = "redirects";
    /// A redirection's file descriptor, a number or null.
    pub const FD: &str = "fd";
    /// A redirection's operator, e.g. `">>"`.
    pub const OP: &str = "op";
    /// A redirection's target, quotes removed.
    pub const TARGET: &str = "target";
    /// The wrappers unwrapped, outermost first.
    pub const WRAPPERS: &str = "wrappers";
    /// The program reading this command's standard input through a pipe
    /// (`curl` for the `sh` of `curl x | sh`), `''` when none.
    pub const PIPED_FROM: &str = "pipedFrom";
    /// The code an interpreter or a shell is given (`python -c CODE`, a
    /// heredoc into `bash`), `''` when none or not known.
    pub const CODE: &str = "code";
    /// Where [`CODE`]'s program comes from (`argument`, `heredoc`,
    /// `herestring`, `pipe`, `stdin`, `''`).
    pub const CODE_FROM: &str = "codeFrom";
    /// Whether the program's name is only known when the command runs
    /// (`$X`, `$(...)`, a glob such as `/bin/r?`).
    pub const DYNAMIC: &str = "dynamic";
    /// The directory an earlier `cd` on the line moved to, `''` when none.
    pub const DIR: &str = "dir";
    /// The paths the command names, what `c.paths()` reads: made the first
    /// time they are read, once per parse however many hooks ask.
    pub const PATHS: &str = "paths";

    /// Every member, in order.
    pub const ALL: [&str; 11] = [
        ARGV, PROGRAM, ENV, REDIRECTS, WRAPPERS, PIPED_FROM, CODE, CODE_FROM, DYNAMIC, DIR, PATHS,
    ];
}

/// One simple command: a program and its arguments, after quote removal and
/// unwrapping.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand<'s> {
    /// The words, program first, quotes and escapes removed.
    pub argv: Vec<Cow<'s, str>>,
    /// `argv[0]` without its directory (`/usr/bin/rm` is `rm`); empty when
    /// the argv is (a command of assignments or redirections only).
    pub program: Cow<'s, str>,
    /// `NAME=VALUE` assignments before the program and those given to `env`
    /// or `sudo`, in order.
    pub env: Vec<(Cow<'s, str>, Cow<'s, str>)>,
    /// The redirections, in order.
    pub redirects: Vec<Redirect<'s>>,
    /// The wrappers unwrapped to reach this command, outermost first:
    /// `"sudo"`, `"env"`, `"bash -c"`, `"xargs"`, ...
    pub wrappers: Vec<Cow<'s, str>>,
    /// The program of the command before this one in a pipeline (`curl`
    /// for the `sh` of `curl x | sh`), empty when its input is no pipe.
    pub piped_from: Cow<'s, str>,
    /// The program an interpreter or a shell runs from its command line or
    /// its input: `python -c CODE`, `node -e CODE`, `awk PROGRAM`, a
    /// heredoc or here-string into `bash` or `python`. Empty when there is
    /// none or it is not known ([`CodeFrom::Pipe`]).
    pub code: Cow<'s, str>,
    /// Where the interpreter's program comes from.
    pub code_from: CodeFrom,
    /// Whether the program's name is computed when the command runs: a
    /// `$` or `` ` `` remains in it (a variable not set on the line, a
    /// substitution) or a glob character (`/bin/r?`).
    pub dynamic: bool,
    /// The directory an earlier `cd` or `pushd` of the line moved to
    /// (joined when relative: `cd ~; cd .ssh` gives `~/.ssh`), empty when
    /// none did or where it went is not known (`cd -`, `cd $(...)`).
    pub dir: Cow<'s, str>,
}

/// Where an interpreter's (or a shell's) program comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum CodeFrom {
    /// Not an interpreter, or one running a script file or a module.
    #[default]
    None,
    /// An argument: `python -c CODE`, `awk PROGRAM`.
    Argument,
    /// A here-document (`python <<EOF`).
    Heredoc,
    /// A here-string (`bash <<< CODE`).
    HereString,
    /// A pipe (`curl x | sh`): the code is whatever the command before it
    /// prints, never known.
    Pipe,
    /// Standard input as the command inherits it (`bash` alone).
    Stdin,
}

impl CodeFrom {
    /// The name a policy reads (`c.codeFrom`).
    pub fn as_str(self) -> &'static str {
        match self {
            CodeFrom::None => "",
            CodeFrom::Argument => "argument",
            CodeFrom::Heredoc => "heredoc",
            CodeFrom::HereString => "herestring",
            CodeFrom::Pipe => "pipe",
            CodeFrom::Stdin => "stdin",
        }
    }
}

/// One redirection of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect<'s> {
    /// The file descriptor written before the operator (`2>`), if any.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// The target word, quotes removed: a file, a descriptor (`2>&1` has
    /// `1`), a here-document's delimiter or a here-string.
    pub target: Cow<'s, str>,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedirectOp {
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `<`
    In,
    /// `<<`
    Heredoc,
    /// `<<-`
    HeredocStripTabs,
    /// `<<<`
    HereString,
    /// `>&`
    DupOut,
    /// `<&`
    DupIn,
    /// `&>`
    OutErr,
    /// `&>>`
    AppendOutErr,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
}

impl RedirectOp {
    /// The operator written `s` ([`RedirectOp::as_str`]'s inverse).
    pub fn parse(s: &str) -> Option<RedirectOp> {
        const ALL: [RedirectOp; 12] = [
            RedirectOp::Out,
            RedirectOp::Append,
            RedirectOp::In,
            RedirectOp::Heredoc,
            RedirectOp::HeredocStripTabs,
            RedirectOp::HereString,
            RedirectOp::DupOut,
            RedirectOp::DupIn,
            RedirectOp::OutErr,
            RedirectOp::AppendOutErr,
            RedirectOp::Clobber,
            RedirectOp::ReadWrite,
        ];
        ALL.into_iter().find(|op| op.as_str() == s)
    }

    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectOp::Out => ">",
            RedirectOp::Append => ">>",
            RedirectOp::In => "<",
            RedirectOp::Heredoc => "<<",
            RedirectOp::HeredocStripTabs => "<<-",
            RedirectOp::HereString => "<<<",
            RedirectOp::DupOut => ">&",
            RedirectOp::DupIn => "<&",
            RedirectOp::OutErr => "&>",
            RedirectOp::AppendOutErr => "&>>",
            RedirectOp::Clobber => ">|",
            RedirectOp::ReadWrite => "<>",
        }
    }
}

/// One command of `shell.commands(s)`, an object to the policy language
/// (see the module docs).
// PERF: the word lists (`argv`, `wrappers`, `paths`) are read in place as
// `Val::Words`, and `env` and `redirects` are made JSON only when read: a
// JSON tree per word cost more to build and drop than the parse itself
// (callgrind, bundled Claude Code guard on a 200-character command).
#[derive(Debug)]
pub struct CommandRecord<'a> {
    parts: SimpleCommand<'a>,
    paths: OnceCell<Vec<Cow<'a, str>>>,
    env: OnceCell<Map<String, Value>>,
    redirects: OnceCell<Vec<Value>>,
    /// The JSON object, made only where a value must be one.
    object: OnceCell<Map<String, Value>>,
}

impl<'a> CommandRecord<'a> {
    /// The record of a parsed command, its words moved in, not copied.
    pub fn new(parts: SimpleCommand<'a>) -> CommandRecord<'a> {
        CommandRecord {
            parts,
            paths: OnceCell::new(),
            env: OnceCell::new(),
            redirects: OnceCell::new(),
            object: OnceCell::new(),
        }
    }

    /// The members.
    pub fn parts(&self) -> &SimpleCommand<'a> {
        &self.parts
    }

    /// The `paths` member ([`SimpleCommand::paths`]), made on the first
    /// call.
    pub fn paths(&self) -> &[Cow<'a, str>] {
        self.paths
            .get_or_init(|| self.parts.paths().into_iter().map(Cow::Owned).collect())
    }

    /// The `env` member as JSON, made on the first call.
    fn env_map(&self) -> &Map<String, Value> {
        self.env.get_or_init(|| {
            let mut env = Map::with_capacity(self.parts.env.len());
            for (name, value) in &self.parts.env {
                env.insert(name.to_string(), Value::from(&**value));
            }
            env
        })
    }

    /// The `redirects` member as JSON, made on the first call.
    fn redirect_list(&self) -> &[Value] {
        self.redirects.get_or_init(|| {
            self.parts
                .redirects
                .iter()
                .map(|r| {
                    let mut o = Map::with_capacity(3);
                    o.insert(keys::FD.into(), r.fd.map_or(Value::Null, Value::from));
                    o.insert(keys::OP.into(), Value::from(r.op.as_str()));
                    o.insert(keys::TARGET.into(), Value::from(&*r.target));
                    Value::Object(o)
                })
                .collect()
        })
    }

    /// Member `name`, `None` when the object has none.
    #[inline]
    pub fn member(&self, name: &str) -> Option<Val<'_>> {
        let p = &self.parts;
        fn s(s: &str) -> Val<'_> {
            Val::Str(Cow::Borrowed(s))
        }
        Some(match name {
            keys::ARGV => Val::Words(&p.argv),
            keys::PROGRAM => s(&p.program),
            keys::ENV => Val::Object(self.env_map()),
            keys::REDIRECTS => Val::Array(self.redirect_list()),
            keys::WRAPPERS => Val::Words(&p.wrappers),
            keys::PIPED_FROM => s(&p.piped_from),
            keys::CODE => s(&p.code),
            keys::CODE_FROM => Val::Str(Cow::Borrowed(p.code_from.as_str())),
            keys::DYNAMIC => Val::Bool(p.dynamic),
            keys::DIR => s(&p.dir),
            keys::PATHS => Val::Words(self.paths()),
            _ => return None,
        })
    }

    /// Whether the object has member `name`.
    pub fn has(&self, name: &str) -> bool {
        keys::ALL.contains(&name)
    }

    /// The object as JSON, made once (equality with an object, `strings`,
    /// printing).
    pub fn to_map(&self) -> &Map<String, Value> {
        self.object.get_or_init(|| self.make_map())
    }

    /// The object as JSON, taken.
    pub fn into_map(mut self) -> Map<String, Value> {
        self.object.take().unwrap_or_else(|| self.make_map())
    }

    fn make_map(&self) -> Map<String, Value> {
        let mut o = Map::with_capacity(keys::ALL.len());
        for name in keys::ALL {
            if let Some(v) = self.member(name).and_then(|v| v.to_json()) {
                o.insert(name.into(), v);
            }
        }
        o
    }
}

/// The JSON list of `words`.
pub(crate) fn words_json(words: &[Cow<'_, str>]) -> Value {
    Value::Array(words.iter().map(|w| Value::from(&**w)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record() -> CommandRecord<'static> {
        let parts = SimpleCommand {
            argv: vec!["rm".into(), "-rf".into(), "x".into()],
            program: "rm".into(),
            env: vec![("A".into(), "1".into())],
            redirects: vec![Redirect {
                fd: Some(2),
                op: RedirectOp::Append,
                target: "log".into(),
            }],
            ..SimpleCommand::default()
        };
        CommandRecord::new(parts)
    }

    #[test]
    fn every_member_reads_as_the_object_holds_it() {
        let r = record();
        let map = r.to_map().clone();
        assert_eq!(map.len(), keys::ALL.len());
        for (i, (k, v)) in map.iter().enumerate() {
            assert_eq!(k, keys::ALL[i]);
            assert!(r.has(k));
            let member = r.member(k).and_then(|m| m.to_json());
            assert_eq!(member.as_ref(), Some(v), "{k}");
        }
        assert!(r.member("nope").is_none());
        assert!(!r.has("nope"));
        // The operand and the file appended to, not the option.
        assert_eq!(r.paths(), ["x", "log"]);
        assert_eq!(map[keys::ARGV], json!(["rm", "-rf", "x"]));
        assert_eq!(map[keys::ENV], json!({"A": "1"}));
        assert_eq!(
            map[keys::REDIRECTS],
            json!([{"fd": 2, "op": ">>", "target": "log"}])
        );
    }
}
