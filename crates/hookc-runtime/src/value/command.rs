//! The command objects of `shell.commands(s)`, read without a map
//! (`docs/src/semantics.md#functions`, `shell.commands`).
//!
//! A guard reads a parsed command's members (`c.program`, `c.argv`,
//! `c.pipedFrom`) in every hook, once per command: a `serde_json` object per
//! command (an `IndexMap` with eleven owned, hashed keys) cost more to
//! build, search and drop than the parse itself. A [`CommandRecord`] holds
//! the members in fields, so that a member is a match on its name, and
//! makes the JSON object only when a value must be one (equality with an
//! object, `strings(c)`, a template printing it): the policy language sees
//! the same object either way.
//!
//! The value layer knows the members' names and kinds, not how a command
//! is read: `functions::shell` builds the records, and gives the one member
//! that is work to compute (`paths`) as a function the record calls the
//! first time the member is read.

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

/// What a [`CommandRecord`] is made of: the members as the policy
/// language reads them. Lists hold strings (`redirects`: objects `{fd, op,
/// target}`), which the builder in `functions::shell` guarantees.
#[derive(Debug, Clone, Default)]
pub struct CommandParts {
    /// `argv`: strings.
    pub argv: Vec<Value>,
    /// `program`.
    pub program: String,
    /// `env`.
    pub env: Map<String, Value>,
    /// `redirects`: objects.
    pub redirects: Vec<Value>,
    /// `wrappers`: strings.
    pub wrappers: Vec<Value>,
    /// `pipedFrom`.
    pub piped_from: String,
    /// `code`.
    pub code: String,
    /// `codeFrom`.
    pub code_from: &'static str,
    /// `dynamic`.
    pub dynamic: bool,
    /// `dir`.
    pub dir: String,
}

/// How a record's `paths` member is made from its other members.
pub type PathsOf = fn(&CommandParts) -> Vec<Value>;

/// One command of `shell.commands(s)`, an object to the policy language
/// (see the module docs).
#[derive(Debug)]
pub struct CommandRecord {
    parts: CommandParts,
    paths_of: PathsOf,
    paths: OnceCell<Vec<Value>>,
    /// The JSON object, made only where a value must be one.
    object: OnceCell<Map<String, Value>>,
}

impl CommandRecord {
    /// A record of `parts`, whose `paths` member `paths_of` makes when it
    /// is first read.
    pub fn new(parts: CommandParts, paths_of: PathsOf) -> CommandRecord {
        CommandRecord {
            parts,
            paths_of,
            paths: OnceCell::new(),
            object: OnceCell::new(),
        }
    }

    /// The members.
    pub fn parts(&self) -> &CommandParts {
        &self.parts
    }

    /// The `paths` member, made on the first call.
    pub fn paths(&self) -> &[Value] {
        self.paths.get_or_init(|| (self.paths_of)(&self.parts))
    }

    /// Member `name`, `None` when the object has none.
    #[inline]
    pub fn member(&self, name: &str) -> Option<Val<'_>> {
        let p = &self.parts;
        fn s(s: &str) -> Val<'_> {
            Val::Str(Cow::Borrowed(s))
        }
        Some(match name {
            keys::ARGV => Val::Array(&p.argv),
            keys::PROGRAM => s(&p.program),
            keys::ENV => Val::Object(&p.env),
            keys::REDIRECTS => Val::Array(&p.redirects),
            keys::WRAPPERS => Val::Array(&p.wrappers),
            keys::PIPED_FROM => s(&p.piped_from),
            keys::CODE => s(&p.code),
            keys::CODE_FROM => Val::Str(Cow::Borrowed(p.code_from)),
            keys::DYNAMIC => Val::Bool(p.dynamic),
            keys::DIR => s(&p.dir),
            keys::PATHS => Val::Array(self.paths()),
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
        {
            let p = &self.parts;
            let mut o = Map::with_capacity(keys::ALL.len());
            o.insert(keys::ARGV.into(), Value::Array(p.argv.clone()));
            o.insert(keys::PROGRAM.into(), Value::from(p.program.as_str()));
            o.insert(keys::ENV.into(), Value::Object(p.env.clone()));
            o.insert(keys::REDIRECTS.into(), Value::Array(p.redirects.clone()));
            o.insert(keys::WRAPPERS.into(), Value::Array(p.wrappers.clone()));
            o.insert(keys::PIPED_FROM.into(), Value::from(p.piped_from.as_str()));
            o.insert(keys::CODE.into(), Value::from(p.code.as_str()));
            o.insert(keys::CODE_FROM.into(), Value::from(p.code_from));
            o.insert(keys::DYNAMIC.into(), Value::Bool(p.dynamic));
            o.insert(keys::DIR.into(), Value::from(p.dir.as_str()));
            o.insert(keys::PATHS.into(), Value::Array(self.paths().to_vec()));
            o
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record() -> CommandRecord {
        let parts = CommandParts {
            argv: vec![json!("rm"), json!("-rf"), json!("x")],
            program: "rm".into(),
            code_from: "",
            ..CommandParts::default()
        };
        CommandRecord::new(parts, |p| p.argv.iter().skip(2).cloned().collect())
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
        assert_eq!(r.paths(), [json!("x")]);
    }
}
