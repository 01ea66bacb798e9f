//! Reading the event context: interned paths resolved at most once per
//! evaluation and shared by every hook of the event.
//!
//! A [`PathCache`] answers "the value at path `i`" for the VM and remembers
//! the answer for the rest of the evaluation. Its source is either a
//! `serde_json::Value` the caller built, or the values that
//! [`crate::json_text`] extracted from JSON text in one pass (only the paths
//! the program reads; everything else is skipped without building values).

use crate::path::{Path, Step};
use serde_json::Value;
use smallvec::SmallVec;

/// How many path slots live on the stack before the cache spills to the
/// heap. Policies with more distinct paths than this allocate one buffer per
/// evaluation.
pub const INLINE_PATHS: usize = 64;

/// Where path values come from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A whole context document.
    Document(&'a Value),
    /// One pre-resolved value per program path (`None`: did not resolve).
    Extracted(&'a [Option<Value>]),
}

/// One path's state in a [`PathCache`].
#[derive(Debug, Clone, Copy, Default)]
enum Slot<'a> {
    /// Not looked up yet.
    #[default]
    Unknown,
    /// Looked up: the value, or `None` when some segment did not resolve.
    Known(Option<&'a Value>),
}

/// Path values of one evaluation.
#[derive(Debug)]
pub struct PathCache<'a> {
    paths: &'a [Path],
    source: Source<'a>,
    slots: SmallVec<[Slot<'a>; INLINE_PATHS]>,
}

impl<'a> PathCache<'a> {
    /// A cache over a program's paths and a source.
    pub fn new(paths: &'a [Path], source: Source<'a>) -> PathCache<'a> {
        let mut slots = SmallVec::new();
        slots.resize(paths.len(), Slot::Unknown);
        PathCache {
            paths,
            source,
            slots,
        }
    }

    /// The value at path `id`, or `None` if it does not resolve (or `id` is
    /// not a path of the program).
    pub fn get(&mut self, id: u32) -> Option<&'a Value> {
        let slot = self.slots.get_mut(id as usize)?;
        if let Slot::Known(v) = slot {
            return *v;
        }
        let v = match self.source {
            Source::Document(doc) => self.paths.get(id as usize).and_then(|p| resolve(doc, p)),
            Source::Extracted(values) => values.get(id as usize).and_then(Option::as_ref),
        };
        *slot = Slot::Known(v);
        v
    }
}

/// Walks a path through a document: fields of objects, indexes of arrays.
pub fn resolve<'a>(doc: &'a Value, path: &Path) -> Option<&'a Value> {
    let mut cur = doc;
    for step in path.steps() {
        cur = match (step, cur) {
            (Step::Field(name), Value::Object(map)) => map.get(name)?,
            (Step::Index(i), Value::Array(items)) => items.get(usize::try_from(i).ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::path::Segment;
    use serde_json::json;

    #[test]
    fn resolves_fields_and_indexes_once() {
        let doc = json!({"error": {"headers": {"retry-after": "30"}}, "items": [1, {"a": true}]});
        let paths = vec![
            Path::root("error")
                .child(Segment::Field("headers".into()))
                .child(Segment::Field("retry-after".into())),
            Path::root("items")
                .child(Segment::Index(1))
                .child(Segment::Field("a".into())),
            Path::root("items").child(Segment::Index(-1)),
            Path::root("error").child(Segment::Field("code".into())),
        ];
        let mut cache = PathCache::new(&paths, Source::Document(&doc));
        assert_eq!(cache.get(0), Some(&json!("30")));
        assert_eq!(cache.get(1), Some(&json!(true)));
        assert_eq!(cache.get(2), None);
        assert_eq!(cache.get(3), None);
        assert_eq!(cache.get(9), None);
        // Second lookups come from the slots.
        assert_eq!(cache.get(0), Some(&json!("30")));
    }

    #[test]
    fn extracted_values_are_used_as_given() {
        let paths = vec![Path::root("a"), Path::root("b")];
        let values = vec![Some(json!(1)), None];
        let mut cache = PathCache::new(&paths, Source::Extracted(&values));
        assert_eq!(cache.get(0), Some(&json!(1)));
        assert_eq!(cache.get(1), None);
    }
}
