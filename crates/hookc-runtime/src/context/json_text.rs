//! Reading a context from JSON text in one pass, extracting only the paths a
//! program reads.
//!
//! The program's paths form a trie. A streaming `serde_json` deserializer walks
//! the text; at each object key or array position it either descends into the
//! trie node that asks for it, or skips the whole subtree (`Skip`) without
//! building anything. Where a path ends, the
//! value there is built (a `serde_json::Value`, usually a scalar), and the
//! paths that continue below it are resolved from that value afterwards.
//!
//! So evaluating from JSON text costs one scan of the text plus the values the
//! policy actually reads — not a `Value` tree of the whole context.

use crate::bytecode::path::{Path, Step};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// The paths of a program as a trie: what to extract from a document.
#[derive(Debug, Clone, Default)]
pub struct PathTrie {
    root: TrieNode,
    count: usize,
}

#[derive(Debug, Clone, Default)]
struct TrieNode {
    /// Paths (by program index) that end at this node.
    ends: Vec<u32>,
    /// Object keys to descend into, sorted by [`key_order`] for binary
    /// search.
    fields: Vec<(String, TrieNode)>,
    /// Array positions to descend into, sorted.
    indexes: Vec<(usize, TrieNode)>,
}

/// The order of a trie node's field names: by length, then bytewise.
// PERF: most of a context's keys differ in length from the one probed, so
// most steps of the search compare two lengths and no bytes (bytewise
// order alone called `memcmp` at every step: ~7% of an extraction).
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

impl TrieNode {
    fn is_leafless(&self) -> bool {
        self.fields.is_empty() && self.indexes.is_empty()
    }

    fn field(&self, key: &str) -> Option<&TrieNode> {
        self.fields
            .binary_search_by(|(k, _)| key_order(k, key))
            .ok()
            .and_then(|i| self.fields.get(i))
            .map(|(_, n)| n)
    }

    /// Forgets every value extracted at or below this node (a repeated key:
    /// as in `serde_json::Value`, the last occurrence wins whole).
    fn clear(&self, out: &mut [Option<Value>]) {
        for &e in &self.ends {
            if let Some(slot) = out.get_mut(e as usize) {
                *slot = None;
            }
        }
        for (_, child) in &self.fields {
            child.clear(out);
        }
        for (_, child) in &self.indexes {
            child.clear(out);
        }
    }

    fn index(&self, i: usize) -> Option<&TrieNode> {
        self.indexes
            .binary_search_by(|(k, _)| k.cmp(&i))
            .ok()
            .and_then(|j| self.indexes.get(j))
            .map(|(_, n)| n)
    }
}

impl PathTrie {
    /// The trie of `paths`; path `i` of the slice is reported as index `i`.
    /// Negative indexes never resolve and are left out.
    pub fn new(paths: &[Path]) -> PathTrie {
        let mut root = TrieNode::default();
        'paths: for (i, path) in paths.iter().enumerate() {
            let mut node = &mut root;
            for step in path.steps() {
                node = match step {
                    Step::Field(name) => {
                        let pos = match node.fields.binary_search_by(|(k, _)| key_order(k, name)) {
                            Ok(pos) => pos,
                            Err(pos) => {
                                node.fields
                                    .insert(pos, (name.to_owned(), TrieNode::default()));
                                pos
                            }
                        };
                        match node.fields.get_mut(pos) {
                            Some((_, n)) => n,
                            None => continue 'paths,
                        }
                    }
                    Step::Index(idx) => {
                        let Ok(idx) = usize::try_from(idx) else {
                            continue 'paths;
                        };
                        let pos = match node.indexes.binary_search_by(|(k, _)| k.cmp(&idx)) {
                            Ok(pos) => pos,
                            Err(pos) => {
                                node.indexes.insert(pos, (idx, TrieNode::default()));
                                pos
                            }
                        };
                        match node.indexes.get_mut(pos) {
                            Some((_, n)) => n,
                            None => continue 'paths,
                        }
                    }
                };
            }
            node.ends.push(u32::try_from(i).unwrap_or(u32::MAX));
        }
        PathTrie {
            root,
            count: paths.len(),
        }
    }

    /// Extracts every path's value from JSON text: one slot per path, `None`
    /// where the path does not resolve. `Err` when the text is not JSON (or
    /// nests past `serde_json`'s recursion limit of 128).
    pub fn extract(
        &self,
        paths: &[Path],
        text: &[u8],
    ) -> Result<Vec<Option<Value>>, serde_json::Error> {
        let mut out: Vec<Option<Value>> = vec![None; self.count];
        // UTF-8 first, for the whole text: `serde_json` validates UTF-8 only
        // in the strings it hands out, so a bad byte in a key or string the
        // policy does not read would pass here while `serde_json::from_slice`
        // rejects the text. Valid, it is then read as a `str`.
        let text = std::str::from_utf8(text).map_err(serde::de::Error::custom)?;
        let mut de = serde_json::Deserializer::from_str(text);
        let mut below = false;
        Seed {
            node: &self.root,
            out: &mut out,
            built_above_paths: &mut below,
        }
        .deserialize(&mut de)?;
        de.end()?;
        // Paths below a value that was built whole: resolve them from it.
        // (Rare: only when the program reads both `a` and `a.b`.)
        if below {
            for (i, path) in paths.iter().enumerate() {
                if out.get(i).is_some_and(Option::is_none) {
                    if let Some(v) = self.below_built(path, &out) {
                        if let Some(slot) = out.get_mut(i) {
                            *slot = Some(v);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// A path that continues below a node whose value was built whole: find
    /// the shallowest built prefix and resolve the rest inside it.
    fn below_built(&self, path: &Path, out: &[Option<Value>]) -> Option<Value> {
        let mut node = &self.root;
        let mut steps = path.steps();
        while let Some(step) = steps.next() {
            node = match step {
                Step::Field(name) => node.field(name)?,
                Step::Index(i) => node.index(usize::try_from(i).ok()?)?,
            };
            let built = node
                .ends
                .iter()
                .find_map(|&e| out.get(e as usize).and_then(Option::as_ref));
            if let Some(value) = built {
                let mut cur = value;
                for rest in steps {
                    cur = match (rest, cur) {
                        (Step::Field(name), Value::Object(map)) => map.get(name)?,
                        (Step::Index(i), Value::Array(items)) => {
                            items.get(usize::try_from(i).ok()?)?
                        }
                        _ => return None,
                    };
                }
                return Some(cur.clone());
            }
        }
        None
    }
}

/// A JSON value read and dropped: nothing is built, but everything
/// `serde_json::from_slice::<Value>` checks is checked, so the extractor
/// accepts exactly the texts it does.
// Not `serde::de::IgnoredAny`: `serde_json` skips those by scanning, which
// accepts numbers out of `f64`'s range (`1E400`, a 400-digit integer) that
// building a `Value` rejects (found by the `compile` fuzz target).
// `deserialize_any` parses each scalar as `Value` would (a string into a
// scratch buffer, no allocation per value).
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Skip, D::Error> {
        de.deserialize_any(Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
}

/// Deserializes one JSON value at a trie node.
struct Seed<'t, 'o> {
    node: &'t TrieNode,
    out: &'o mut Vec<Option<Value>>,
    /// Set when a value was built at a node that other paths continue below.
    built_above_paths: &'o mut bool,
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        if !self.node.ends.is_empty() {
            // A path ends here: build this value (paths below it are resolved
            // from it afterwards).
            let value = Value::deserialize(de)?;
            if !self.node.is_leafless() {
                *self.built_above_paths = true;
            }
            for &e in &self.node.ends {
                if let Some(slot) = self.out.get_mut(e as usize) {
                    *slot = Some(value.clone());
                }
            }
            return Ok(());
        }
        if self.node.is_leafless() {
            return Skip::deserialize(de).map(|_| ());
        }
        de.deserialize_any(self)
    }
}

use serde::Deserialize;

/// An object key, looked up among a trie node's fields as it is read: the
/// child to descend into, if any.
// PERF: the key is looked at where `serde_json` hands it over (borrowed
// from the text, or unescaped into its scratch buffer) and never kept:
// reading keys as `Cow<str>` allocated a `String` per key (serde's `Cow`
// impl always builds the owned form), ~45% of an extraction's
// instructions in malloc and free on the seed contexts (callgrind).
struct KeySeed<'t>(&'t TrieNode);

impl<'de, 't> DeserializeSeed<'de> for KeySeed<'t> {
    type Value = Option<&'t TrieNode>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de, 't> Visitor<'de> for KeySeed<'t> {
    type Value = Option<&'t TrieNode>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.field(key))
    }
}

impl<'de> Visitor<'de> for Seed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // Keys may repeat in JSON text; as in `serde_json::Value`, the last wins.
        while let Some(field) = map.next_key_seed(KeySeed(self.node))? {
            match field {
                Some(child) => {
                    child.clear(self.out);
                    map.next_value_seed(Seed {
                        node: child,
                        out: self.out,
                        built_above_paths: self.built_above_paths,
                    })?
                }
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            let more = match self.node.index(i) {
                Some(child) => seq
                    .next_element_seed(Seed {
                        node: child,
                        out: self.out,
                        built_above_paths: self.built_above_paths,
                    })?
                    .is_some(),
                None => seq.next_element::<Skip>()?.is_some(),
            };
            if !more {
                return Ok(());
            }
            i += 1;
        }
    }

    // Scalars where the trie expected a container: nothing below resolves.
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytecode::path::Segment;
    use serde_json::json;

    fn p(root: &str, rest: &[Segment]) -> Path {
        rest.iter()
            .fold(Path::root(root), |p, s| p.child(s.clone()))
    }

    #[test]
    fn extracts_exactly_what_document_resolution_gives() {
        let f = |s: &str| Segment::Field(s.to_owned());
        let paths = vec![
            p("error", &[f("code")]),
            p("error", &[f("headers"), f("retry-after")]),
            p("error", &[]),
            p("items", &[Segment::Index(1), f("a")]),
            p("items", &[Segment::Index(5)]),
            p("missing", &[f("x")]),
            p("n", &[f("x")]),
            p("s", &[]),
        ];
        let text = r#"{"n": 3, "error": {"code": "E1", "headers": {"retry-after": "30"}, "big": [1,2,3]},
                       "items": [0, {"a": [true]}], "s": "h\u00e9", "unrelated": {"deep": [[[{}]]]}}"#;
        let trie = PathTrie::new(&paths);
        let got = trie.extract(&paths, text.as_bytes()).unwrap();
        let doc: Value = serde_json::from_str(text).unwrap();
        for (i, path) in paths.iter().enumerate() {
            assert_eq!(
                got[i].as_ref(),
                crate::context::resolve(&doc, path),
                "path {path}"
            );
        }
    }

    #[test]
    fn escaped_keys_and_keys_of_every_length_are_found() {
        // Keys of equal length differing in bytes, prefixes of each other,
        // and keys written with escapes (unescaped by serde_json before the
        // trie sees them).
        let names = [
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "retry-after",
            "retry_after",
            "é",
            "",
        ];
        let paths: Vec<Path> = names.iter().map(|n| p(n, &[])).collect();
        let trie = PathTrie::new(&paths);
        let text = r#"{"a": 1, "b": 2, "ab": 3, "ba": 4, "abc": 5,
                       "retry-after": 6, "retry_after": 7, "é": 8, "": 9, "abcd": 10}"#;
        let got = trie.extract(&paths, text.as_bytes()).unwrap();
        let want: Vec<Option<Value>> = (1..=9).map(|i| Some(json!(i))).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn duplicate_keys_keep_the_last_like_value() {
        let paths = vec![p("a", &[])];
        let trie = PathTrie::new(&paths);
        let got = trie.extract(&paths, br#"{"a": 1, "a": 2}"#).unwrap();
        assert_eq!(got[0], Some(json!(2)));
        let paths = vec![p("e", &[Segment::Field("code".into())])];
        let trie = PathTrie::new(&paths);
        let got = trie
            .extract(&paths, br#"{"e": {"code": 1}, "e": {"type": 2}}"#)
            .unwrap();
        assert_eq!(got[0], None);
    }

    #[test]
    fn bad_text_is_an_error() {
        let paths = vec![p("a", &[])];
        let trie = PathTrie::new(&paths);
        assert!(trie.extract(&paths, b"{\"a\": ").is_err());
        assert!(trie.extract(&paths, b"{} x").is_err());
        // Nesting 100,000 deep, read or not: serde_json's recursion limit
        // makes it an error (as `from_slice::<Value>` does), never a stack
        // overflow.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        for text in [
            format!(r#"{{"b": {deep}, "a": 1}}"#),
            format!(r#"{{"a": {deep}}}"#),
        ] {
            assert!(trie.extract(&paths, text.as_bytes()).is_err());
        }
    }
}
