//! Values an evaluation derives from its context, kept for the whole
//! evaluation: [`Derived`] owns them, [`Scratch`] finds them again.
//!
//! A function whose result is structured JSON (`shell.commands(s)`: a list
//! of objects) puts it in [`Derived`] and hands out a borrow, so field
//! access, indexing and the macros read it exactly as they read the
//! context, with no copy per access. [`Scratch`] remembers what was
//! derived from which input, so one command string is parsed once per
//! evaluation however many hooks read it.
//!
//! Neither allocates until a function derives something: an evaluation
//! that calls none pays two words on its stack.

use serde_json::Value;
use std::borrow::Cow;
use std::cell::OnceCell;
use typed_arena::Arena;

/// The owner of an evaluation's derived values: declare one next to the
/// evaluation's path cache, so its values live as long as the context's.
#[derive(Default)]
pub struct Derived {
    arena: OnceCell<Arena<Value>>,
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Derived")
            .field("used", &self.arena.get().is_some())
            .finish()
    }
}

impl Derived {
    /// An empty store (allocates nothing).
    pub const fn new() -> Derived {
        Derived {
            arena: OnceCell::new(),
        }
    }

    /// Keeps `value` for as long as the store lives.
    pub fn keep(&self, value: Value) -> &Value {
        self.arena.get_or_init(Arena::new).alloc(value)
    }
}

/// What one function derived from one input.
#[derive(Debug)]
struct Memo<'a> {
    /// Which function.
    function: super::Builtin,
    /// Its input.
    input: Cow<'a, str>,
    /// Its result, in the store.
    output: &'a Value,
}

/// An evaluation's view of its [`Derived`] store, with what was derived
/// from which input. Without a store (an evaluation set up by hand, with
/// `PathCache::new`), derived values are not available and the functions
/// that need one give `invalid argument`.
#[derive(Debug, Default)]
pub struct Scratch<'a> {
    store: Option<&'a Derived>,
    memos: Vec<Memo<'a>>,
}

impl<'a> Scratch<'a> {
    /// A scratch over `store`.
    pub fn new(store: &'a Derived) -> Scratch<'a> {
        Scratch {
            store: Some(store),
            memos: Vec::new(),
        }
    }

    /// The value `function` derives from `input`: remembered, or made by
    /// `derive`, kept, and remembered. `None` without a store.
    pub fn memo(
        &mut self,
        function: super::Builtin,
        input: &Cow<'a, str>,
        derive: impl FnOnce(&str) -> Value,
    ) -> Option<&'a Value> {
        // PERF: a linear scan: an evaluation derives from a handful of
        // strings (a command, a path), and a pointer test answers the
        // common case, the same context string read again.
        let same = |m: &&Memo<'a>| {
            m.function == function
                && (std::ptr::eq(m.input.as_ptr(), input.as_ptr()) && m.input.len() == input.len()
                    || m.input == *input)
        };
        if let Some(m) = self.memos.iter().find(same) {
            return Some(m.output);
        }
        let store = self.store?;
        let output: &'a Value = store.keep(derive(input));
        self.memos.push(Memo {
            function,
            input: input.clone(),
            output,
        });
        Some(output)
    }

    /// What was derived, in the order it was first asked for: the
    /// function, its input and the value kept (explain traces list them).
    pub fn derivations(&self) -> impl Iterator<Item = (super::Builtin, &str, &'a Value)> + '_ {
        self.memos
            .iter()
            .map(|m| (m.function, m.input.as_ref(), m.output))
    }
}
