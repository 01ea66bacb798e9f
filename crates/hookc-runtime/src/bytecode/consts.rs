//! The constant pool of a [`Program`](super::Program): each constant a
//! `serde_json::Value`, except that a string constant, or a list constant
//! of strings only, read from an artifact is kept as text and made a
//! `Value` the first time it is used.
//!
//! Most constants are strings (the operands of `==`, `startsWith`,
//! `contains`, the parameters of actions: 9,096 of `guard-10000`'s 9,111),
//! and a load that built a `String` for each allocated once per constant,
//! and freed as often when the policy went, whether or not an evaluation
//! ever read it. Here the texts of a loaded pool are one
//! [`StringTable`] (two allocations); a constant's `Value` is built on its
//! first read ([`ConstPool::get`]), in a `OnceLock`, so a `Program` stays
//! `Sync` and a read after the first is one atomic load. Lists of strings
//! (a guard's program names, hosts, package names: 40 lists of 282 items
//! in the bundled Claude Code guard) are kept the same way, their items a
//! run of texts: a set of such a list is made from the texts
//! ([`ConstPool::text_list`]) without the `Value`. Other lists, objects,
//! numbers, booleans and `null` are built at load, and allocate nothing
//! but for their items (`docs/src/internals/performance.md`, "Loading in
//! proportion to what is used").

use super::strings::StringTable;
use serde_json::Value;
use std::fmt;
use std::sync::OnceLock;

/// A program's constants, by [`ConstIdx`](super::ConstIdx).
///
/// INVARIANT (slot text): a slot whose value is not yet built has a
/// `ConstTexts`, whose texts are below `texts.len()`; so [`ConstPool::get`]
/// answers for every index below [`ConstPool::len`]. Maintained by
/// [`ConstPool::push`] (built), [`ConstPool::push_text`] and
/// [`ConstPool::push_text_list`] (the texts pushed first), the only ways
/// to add a constant; texts are only ever removed by a `push_text_list`
/// that pushes no slot, and only its own.
#[derive(Clone, Default)]
pub struct ConstPool {
    slots: Vec<ConstSlot>,
    /// The texts of string constants added by [`ConstPool::push_text`].
    texts: StringTable,
}

/// One constant: its value, or the texts it is built from on first use.
#[derive(Clone)]
struct ConstSlot {
    value: OnceLock<Value>,
    /// Where a constant read as text is built from (`None`: built at once).
    source: Option<ConstTexts>,
}

/// The texts in [`ConstPool::texts`] of a constant kept as text.
#[derive(Clone, Copy)]
enum ConstTexts {
    /// A string: its text's index.
    Text(u32),
    /// A list of strings: texts `first..first + len`, in order.
    TextList { first: u32, len: u32 },
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
            source: None,
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
            source: Some(ConstTexts::Text(index)),
        });
    }

    /// Appends a list constant of `len` items, kept as texts until its
    /// first [`get`](Self::get), if each item `next` gives is a string
    /// (`Some`). At the first that is not (`None`), the texts taken so far
    /// are dropped, nothing is appended and the answer is `false`: the
    /// caller builds that list. An error of `next` is returned as it is.
    pub fn push_text_list<'t, E>(
        &mut self,
        len: usize,
        mut next: impl FnMut() -> Result<Option<&'t str>, E>,
    ) -> Result<bool, E> {
        let first = self.texts.len();
        let (Ok(first32), Ok(len32)) = (u32::try_from(first), u32::try_from(len)) else {
            return Ok(false);
        };
        if first32.checked_add(len32).is_none() {
            return Ok(false);
        }
        for _ in 0..len {
            match next()? {
                Some(text) => self.texts.push(text),
                None => {
                    self.texts.truncate(first);
                    return Ok(false);
                }
            }
        }
        // INVARIANT (slot text): the `len` texts just pushed.
        self.slots.push(ConstSlot {
            value: OnceLock::new(),
            source: Some(ConstTexts::TextList {
                first: first32,
                len: len32,
            }),
        });
        Ok(true)
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

    /// The value of a slot not yet built, from its texts.
    #[cold]
    fn build<'a>(&'a self, slot: &'a ConstSlot) -> Option<&'a Value> {
        let value = match slot.source? {
            ConstTexts::Text(i) => {
                Value::String(self.texts.get(usize::try_from(i).ok()?)?.to_owned())
            }
            ConstTexts::TextList { .. } => Value::Array(
                self.texts_of(slot)?
                    .map(|text| Value::String(text.to_owned()))
                    .collect(),
            ),
        };
        Some(slot.value.get_or_init(|| value))
    }

    /// The items of a list constant kept as texts, whether or not its value
    /// was built since; `None` for any other constant.
    pub fn text_list(&self, i: usize) -> Option<impl ExactSizeIterator<Item = &str> + '_> {
        self.texts_of(self.slots.get(i)?)
    }

    fn texts_of<'a>(
        &'a self,
        slot: &ConstSlot,
    ) -> Option<impl ExactSizeIterator<Item = &'a str> + 'a> {
        let Some(ConstTexts::TextList { first, len }) = slot.source else {
            return None;
        };
        let (first, len) = (usize::try_from(first).ok()?, usize::try_from(len).ok()?);
        // (Every text answers: INVARIANT (slot text).)
        Some((first..first + len).map(|t| self.texts.get(t).unwrap_or("")))
    }

    /// Whether constant `i` is a list, without building it.
    pub fn is_list(&self, i: usize) -> bool {
        self.slots.get(i).is_some_and(|slot| match slot.source {
            Some(ConstTexts::TextList { .. }) => true,
            Some(ConstTexts::Text(_)) => false,
            None => matches!(slot.value.get(), Some(Value::Array(_))),
        })
    }

    /// The constants in order (each built if it was not).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Value> + '_ {
        // (Every index answers: INVARIANT (slot text). `Null` is never seen.)
        (0..self.len()).map(|i| self.get(i).unwrap_or(&Value::Null))
    }

    /// The constants built so far, which include every object and every
    /// list but the lists of strings kept as texts: what a walk over nested
    /// values needs (a list of strings is two levels deep), without
    /// building the strings not yet used.
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
    fn lists_of_strings_are_texts_until_read_and_others_are_left_to_the_caller() {
        let mut pool = ConstPool::new();
        pool.push_text("s");
        let mut items = ["a", "é", ""].into_iter();
        let kept = pool.push_text_list::<()>(3, || Ok(items.next()));
        assert_eq!(kept, Ok(true));
        // An item that is not a string: its list's texts are dropped.
        let mut mixed = [Some("x"), None, Some("y")].into_iter();
        let kept = pool.push_text_list::<()>(3, || Ok(mixed.next().flatten()));
        assert_eq!(kept, Ok(false));
        assert_eq!(pool.len(), 2);
        // An error is the caller's, as it was given.
        assert_eq!(pool.push_text_list(1, || Err("short")), Err("short"));
        let mut none = std::iter::empty();
        assert_eq!(pool.push_text_list::<()>(0, || Ok(none.next())), Ok(true));
        pool.push(json!(["built"]));
        assert_eq!(pool.len(), 4);
        assert!(pool.is_list(1) && pool.is_list(2) && pool.is_list(3) && !pool.is_list(0));
        assert_eq!(pool.built().count(), 1);
        let texts: Vec<&str> = pool.text_list(1).unwrap().collect();
        assert_eq!(texts, ["a", "é", ""]);
        assert!(pool.text_list(0).is_none() && pool.text_list(3).is_none());
        assert_eq!(pool.get(0), Some(&json!("s")));
        assert_eq!(pool.get(1), Some(&json!(["a", "é", ""])));
        assert_eq!(pool.get(2), Some(&json!([])));
        // Still read as texts once built.
        assert_eq!(pool.text_list(1).map(|t| t.len()), Some(3));
        let values = vec![
            json!("s"),
            json!(["a", "é", ""]),
            json!([]),
            json!(["built"]),
        ];
        assert_eq!(pool, ConstPool::from(values));
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
