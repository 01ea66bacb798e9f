//! Values an evaluation derives from its context, kept for the whole
//! evaluation: [`Derived`] owns them, [`Scratch`] finds them again.
//!
//! A function whose result is structured (`shell.commands(s)`: a list of
//! command objects) puts it in [`Derived`] and hands out a borrow, so field
//! access, indexing and the macros read it exactly as they read the
//! context, with no copy per access. [`Scratch`] remembers what was
//! derived from which input, so one command string is parsed once per
//! evaluation however many hooks read it.
//!
//! Neither allocates until a function derives something: an evaluation
//! that calls none pays two words on its stack.

use crate::value::CommandRecord;
use serde_json::Value;
use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use typed_arena::Arena;

/// The owner of an evaluation's derived values, and the record of what was
/// derived from what: declare one next to the evaluation's path cache, so
/// its values live as long as the context's. `'a` is that lifetime: the
/// record borrows the store's own values.
#[derive(Default)]
pub struct Derived<'a> {
    arena: OnceCell<Arena<DerivedValue<'a>>>,
    /// What each function derived from each input, first asked first.
    // PERF: kept here rather than in the path cache, so that a cache (and
    // its drop) is one word larger, not four: an evaluation that calls no
    // function pays nothing for it (callgrind, seed contexts).
    memos: RefCell<Vec<Memo<'a>>>,
}

impl std::fmt::Debug for Derived<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Derived")
            .field("used", &self.arena.get().is_some())
            .field("memos", &self.memos.borrow().len())
            .finish()
    }
}

impl<'a> Derived<'a> {
    /// An empty store (allocates nothing).
    pub const fn new() -> Derived<'a> {
        Derived {
            arena: OnceCell::new(),
            memos: RefCell::new(Vec::new()),
        }
    }

    /// Keeps `value` for as long as the store lives.
    pub fn keep(&self, value: DerivedValue<'a>) -> &DerivedValue<'a> {
        self.arena.get_or_init(Arena::new).alloc(value)
    }
}

/// A value derived from the context. `'a` is the evaluation's lifetime:
/// a parse borrows the words of its command string, which the context or
/// the store holds.
#[derive(Debug)]
pub enum DerivedValue<'a> {
    /// JSON: a list of paths, a copy of an input string.
    Json(Value),
    /// A command string read by `shell::parse`.
    Script(ParsedScript<'a>),
    /// Strings, most borrowed from another derived value (`shell.paths`:
    /// its commands' paths).
    Words(Vec<Cow<'a, str>>),
}

impl<'a> DerivedValue<'a> {
    /// The JSON value, for what is one.
    pub fn as_json(&self) -> Option<&Value> {
        match self {
            DerivedValue::Json(v) => Some(v),
            DerivedValue::Script(_) | DerivedValue::Words(_) => None,
        }
    }

    /// The parse, for what is one.
    pub fn as_script(&self) -> Option<&ParsedScript<'a>> {
        match self {
            DerivedValue::Script(s) => Some(s),
            DerivedValue::Json(_) | DerivedValue::Words(_) => None,
        }
    }

    /// The strings, for what are.
    pub fn as_words(&self) -> Option<&[Cow<'a, str>]> {
        match self {
            DerivedValue::Words(w) => Some(w),
            DerivedValue::Json(_) | DerivedValue::Script(_) => None,
        }
    }

    /// The value as JSON (what an explain trace shows): a parse is
    /// `{"commands": [...], "error": null | "why"}`.
    pub fn to_json(&self) -> Value {
        match self {
            DerivedValue::Json(v) => v.clone(),
            DerivedValue::Words(w) => crate::value::words_json(w),
            DerivedValue::Script(s) => serde_json::json!({
                "commands": s.commands.iter().map(|c| Value::Object(c.to_map().clone())).collect::<Vec<_>>(),
                "error": s.error,
            }),
        }
    }
}

/// What `shell.commands`, `shell.valid` and `shell.error` read from a
/// command string.
#[derive(Debug)]
pub struct ParsedScript<'a> {
    /// The commands, as objects of the policy language.
    pub commands: Vec<CommandRecord<'a>>,
    /// Why the string does not parse, if it does not.
    pub error: Option<String>,
}

/// What one function derived from one input.
#[derive(Debug, Clone, Copy)]
struct Memo<'a> {
    /// Which function.
    function: super::Builtin,
    /// Its input (a context string, or a copy kept in the store).
    input: &'a str,
    /// Its result, in the store.
    output: &'a DerivedValue<'a>,
}

/// An evaluation's view of its [`Derived`] store. Without a store (an
/// evaluation set up by hand, with `PathCache::new`), derived values are
/// not available and the functions that need one give `invalid argument`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Scratch<'a> {
    store: Option<&'a Derived<'a>>,
}

impl<'a> Scratch<'a> {
    /// A scratch over `store`.
    pub fn new(store: &'a Derived<'a>) -> Scratch<'a> {
        Scratch::over(Some(store))
    }

    /// A scratch over `store`, or without one.
    #[inline(always)]
    pub(crate) const fn over(store: Option<&'a Derived<'a>>) -> Scratch<'a> {
        Scratch { store }
    }

    /// The value `function` derives from `input`: remembered, or made by
    /// `derive`, kept, and remembered. `None` without a store. `derive` is
    /// given the input for as long as the store lives (a built string is
    /// copied into the store first), so its value may borrow from it.
    pub fn memo(
        &mut self,
        function: super::Builtin,
        input: &Cow<'a, str>,
        derive: impl FnOnce(&'a str) -> DerivedValue<'a>,
    ) -> Option<&'a DerivedValue<'a>> {
        let store = self.store?;
        // PERF: a linear scan: an evaluation derives from a handful of
        // strings (a command, a path), and a pointer test answers the
        // common case, the same context string read again.
        let same = |m: &&Memo<'a>| {
            m.function == function
                && (std::ptr::eq(m.input.as_ptr(), input.as_ptr()) && m.input.len() == input.len()
                    || m.input == input.as_ref())
        };
        if let Some(m) = store.memos.borrow().iter().find(same) {
            return Some(m.output);
        }
        let input: &'a str = match input {
            Cow::Borrowed(s) => s,
            Cow::Owned(s) => store
                .keep(DerivedValue::Json(Value::String(s.clone())))
                .as_json()
                .and_then(Value::as_str)
                .unwrap_or_default(),
        };
        let output: &'a DerivedValue<'a> = store.keep(derive(input));
        store.memos.borrow_mut().push(Memo {
            function,
            input,
            output,
        });
        Some(output)
    }

    /// What was derived, in the order it was first asked for: the
    /// function, its input and the value kept (explain traces list them).
    pub fn derivations(&self) -> Vec<(super::Builtin, &'a str, &'a DerivedValue<'a>)> {
        self.store.map_or_else(Vec::new, |store| {
            store
                .memos
                .borrow()
                .iter()
                .map(|m| (m.function, m.input, m.output))
                .collect()
        })
    }
}
