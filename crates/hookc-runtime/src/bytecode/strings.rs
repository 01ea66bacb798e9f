//! The string table of a [`Program`](super::Program): every string of the
//! table in one buffer, with the end offset of each.
//!
//! A program of 10,000 hooks has tens of thousands of strings (ids,
//! descriptions, field names, template text, debug locations); as a
//! `Vec<String>` that was one allocation per string on every load and one
//! free per string on every drop, a third of the decoding time. Here a
//! loaded table is two allocations, and [`StringTable::get`] is two bounds
//! checked reads and a slice.

use std::fmt;

/// Strings indexed by position ([`StrIdx`](super::StrIdx) is the index).
///
/// INVARIANT (string ends): `ends` is non-decreasing, its last entry (if
/// any) is `text.len()`, and every entry is a `char` boundary of `text`:
/// string `i` is `text[ends[i - 1]..ends[i]]` (from 0 for the first).
/// Maintained by [`StringTable::push`], the only way to add a string.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct StringTable {
    text: String,
    ends: Vec<usize>,
}

impl StringTable {
    /// An empty table.
    pub fn new() -> StringTable {
        StringTable::default()
    }

    /// An empty table with room for `count` strings of `bytes` bytes in all.
    pub fn with_capacity(count: usize, bytes: usize) -> StringTable {
        StringTable {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(count),
        }
    }

    /// Appends `s` as the last string; its index is the old [`len`](Self::len).
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        // INVARIANT (string ends): the new end is `text.len()`, a boundary.
        self.ends.push(self.text.len());
    }

    /// Keeps the first `len` strings (all of them if there are fewer).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.ends.len() {
            return;
        }
        let end = match len.checked_sub(1) {
            Some(last) => self.ends.get(last).copied().unwrap_or(0),
            None => 0,
        };
        // INVARIANT (string ends): `end` is the end of string `len - 1`, a
        // boundary, and becomes the last end.
        self.text.truncate(end);
        self.ends.truncate(len);
    }

    /// The table of `text` cut at `ends` (string `i` ends at `ends[i]`),
    /// if that is a table: `ends` non-decreasing, each a `char` boundary,
    /// the last `text.len()` (none for empty `text`). Checked in one pass
    /// over `ends`: cheaper than validating each string's UTF-8 apart.
    pub fn from_parts(text: String, ends: Vec<usize>) -> Option<StringTable> {
        let mut prev = 0;
        for &end in &ends {
            if end < prev || !text.is_char_boundary(end) {
                return None;
            }
            prev = end;
        }
        if prev != text.len() {
            return None;
        }
        // INVARIANT (string ends): just checked.
        Some(StringTable { text, ends })
    }

    /// How many strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the table has no string.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i`, if the table has it.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = match i.checked_sub(1) {
            Some(prev) => *self.ends.get(prev)?,
            None => 0,
        };
        self.text.get(start..end)
    }

    /// The strings in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or(""))
    }
}

impl fmt::Debug for StringTable {
    /// As a list of strings (what the `Vec<String>` it replaces printed).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<S> for StringTable {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> StringTable {
        let mut table = StringTable::new();
        for s in iter {
            table.push(s.as_ref());
        }
        table
    }
}

impl<S: AsRef<str>> From<Vec<S>> for StringTable {
    fn from(strings: Vec<S>) -> StringTable {
        strings.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::StringTable;

    #[test]
    fn strings_by_index() {
        let t: StringTable = ["", "ab", "é", ""].into_iter().collect();
        assert_eq!(t.len(), 4);
        assert_eq!(t.get(0), Some(""));
        assert_eq!(t.get(1), Some("ab"));
        assert_eq!(t.get(2), Some("é"));
        assert_eq!(t.get(3), Some(""));
        assert_eq!(t.get(4), None);
        assert_eq!(t.iter().collect::<Vec<_>>(), ["", "ab", "é", ""]);
        assert_eq!(format!("{t:?}"), r#"["", "ab", "é", ""]"#);
        assert_eq!(t, StringTable::from(vec!["", "ab", "é", ""]));
        assert!(StringTable::new().is_empty());
        let parts = StringTable::from_parts("abé".to_owned(), vec![0, 2, 4]);
        assert_eq!(parts, Some(["", "ab", "é"].into_iter().collect()));
        assert_eq!(StringTable::from_parts("abé".to_owned(), vec![3, 4]), None);
        assert_eq!(StringTable::from_parts("ab".to_owned(), vec![2, 1]), None);
        assert_eq!(StringTable::from_parts("ab".to_owned(), vec![1]), None);
        assert_eq!(
            StringTable::from_parts(String::new(), vec![]),
            Some(StringTable::new())
        );
        let mut cut = t.clone();
        cut.truncate(9);
        assert_eq!(cut, t);
        cut.truncate(3);
        assert_eq!(cut, StringTable::from(vec!["", "ab", "é"]));
        cut.push("z");
        assert_eq!(cut.get(3), Some("z"));
        cut.truncate(0);
        assert_eq!(cut, StringTable::new());
    }
}
