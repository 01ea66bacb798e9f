//! The constant pool of a [`Program`](super::Program): each constant a
//! `serde_json::Value`, except that a string constant read from an
//! artifact is kept as text and made a `Value` the first time it is used.
//!
//! Most constants are strings (the operands of `==`, `startsWith`,
//! `contains`, the parameters of actions: 9,096 of `guard-10000`'s 9,111),
//! and a load that built a `String` for each allocated once per constant,
//! and freed as often when the policy went, whether or not an evaluation
//! ever read it. Here the texts of a loaded pool are one
//! [`StringTable`] (two allocations); a constant's `Value` is built on its
//! first read ([`ConstPool::get`]), in a `OnceLock`, so a `Program` stays
//! `Sync` and a read after the first is one atomic load. Lists, objects,
//! numbers, booleans and `null` are built at load: a list is hashed at load
//! when `in` uses it, and the others allocate nothing
//! (`docs/src/internals/performance.md`, "Loading in proportion to what is
//! used").

use super::strings::StringTable;
use serde_json::Value;
use std::fmt;
use std::sync::OnceLock;

/// A program's constants, by [`ConstIdx`](super::ConstIdx).
///
/// INVARIANT (slot text): a slot whose value is not yet built has a text,
/// and that text's index is below `texts.len()`; so [`ConstPool::get`]
/// answers for every index below [`ConstPool::len`]. Maintained by
/// [`ConstPool::push`] (built) and [`ConstPool::push_text`] (the text
/// pushed first), the only ways to add a constant.
#[derive(Clone, Default)]
pub struct ConstPool {
    slots: Vec<ConstSlot>,
    /// The texts of string constants added by [`ConstPool::push_text`].
    texts: StringTable,
}

/// One constant: its value, or the text it is built from on first use.
#[derive(Clone)]
struct ConstSlot {
    value: OnceLock<Value>,
    /// The index in [`ConstPool::texts`] of a string constant's text.
    text: Option<u32>,
}

impl ConstPool {
    /// An empty pool.
    pub fn new() -> ConstPool {
        ConstPool::default()
    }

    /// An empty pool with room for `count` constants whose texts take
    /// about `bytes` bytes.
    pub fn with_capacity(count: usize, bytes: usize) -> ConstPool {
        ConstPool {
            slots: Vec::with_capacity(count),
            texts: StringTable::with_capacity(count, bytes),
        }
    }

    /// Appends `value`; its index is the old [`len`](Self::len).
    pub fn push(&mut self, value: Value) {
        self.slots.push(ConstSlot {
            value: OnceLock::from(value),
            text: None,
        });
    }

    /// Appends the string constant `text`, kept as text until its first
    /// [`get`](Self::get).
    pub fn push_text(&mut self, text: &str) {
        let Ok(index) = u32::try_from(self.texts.len()) else {
            // Past four billion texts (never, in a verified program): built now.
            return self.push(Value::String(text.to_owned()));
        };
        self.texts.push(text);
        // INVARIANT (slot text): `index` is the text just pushed.
        self.slots.push(ConstSlot {
            value: OnceLock::new(),
            text: Some(index),
        });
    }

    /// How many constants.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the pool has no constant.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Constant `i`, if the pool has it: built now if it is a string read
    /// from an artifact and not yet used.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Value> {
        let slot = self.slots.get(i)?;
        match slot.value.get() {
            Some(value) => Some(value),
            None => self.build(slot),
        }
    }

    /// The value of a slot not yet built, from its text.
    #[cold]
    fn build<'a>(&'a self, slot: &'a ConstSlot) -> Option<&'a Value> {
        let text = self.texts.get(usize::try_from(slot.text?).ok()?)?;
        Some(slot.value.get_or_init(|| Value::String(text.to_owned())))
    }

    /// The constants in order (each built if it was not).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Value> + '_ {
        // (Every index answers: INVARIANT (slot text). `Null` is never seen.)
        (0..self.len()).map(|i| self.get(i).unwrap_or(&Value::Null))
    }

    /// The constants built so far, which include every list and object:
    /// what a walk over nested values needs, without building the strings
    /// not yet used.
    pub fn built(&self) -> impl Iterator<Item = (usize, &Value)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, slot)| Some((i, slot.value.get()?)))
    }
}

impl PartialEq for ConstPool {
    /// Equal constants, however each is held.
    fn eq(&self, other: &ConstPool) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for ConstPool {
    /// As a list of values (what the `Vec<Value>` it replaces printed).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl FromIterator<Value> for ConstPool {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> ConstPool {
        let mut pool = ConstPool::new();
        pool.extend(iter);
        pool
    }
}

impl Extend<Value> for ConstPool {
    fn extend<I: IntoIterator<Item = Value>>(&mut self, iter: I) {
        for value in iter {
            self.push(value);
        }
    }
}

impl From<Vec<Value>> for ConstPool {
    fn from(values: Vec<Value>) -> ConstPool {
        values.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::ConstPool;
    use serde_json::{json, Value};

    #[test]
    fn texts_are_built_on_first_use_and_equal_built_values() {
        let mut pool = ConstPool::with_capacity(4, 8);
        pool.push_text("ab");
        pool.push(json!([1, "x"]));
        pool.push_text("");
        pool.push(json!(2.5));
        assert_eq!(pool.len(), 4);
        // Only the list and the number are built at first.
        let built: Vec<usize> = pool.built().map(|(i, _)| i).collect();
        assert_eq!(built, [1, 3]);
        assert_eq!(pool.get(0), Some(&json!("ab")));
        assert_eq!(pool.get(2), Some(&json!("")));
        assert_eq!(pool.get(4), None);
        assert_eq!(pool.built().count(), 4);
        let values = vec![json!("ab"), json!([1, "x"]), json!(""), json!(2.5)];
        assert_eq!(pool, ConstPool::from(values.clone()));
        assert_eq!(pool.iter().cloned().collect::<Vec<Value>>(), values);
        assert_eq!(format!("{pool:?}"), format!("{values:?}"));
        assert_ne!(pool, ConstPool::from(vec![json!("ab")]));
        // A clone of a pool with texts not yet built builds its own.
        let mut lazy = ConstPool::new();
        lazy.push_text("é");
        let copy = lazy.clone();
        assert_eq!(copy.get(0), Some(&json!("é")));
        assert_eq!(lazy.built().count(), 0);
    }

    #[test]
    fn a_pool_read_from_two_threads_answers_every_constant() {
        let mut pool = ConstPool::new();
        for i in 0..64 {
            pool.push_text(&format!("c{i}"));
        }
        let pool = &pool;
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(move || {
                    for i in 0..64 {
                        assert_eq!(pool.get(i), Some(&json!(format!("c{i}"))));
                    }
                });
            }
        });
    }
}
