//! Reading the event context: interned paths resolved at most once per
//! evaluation and shared by every hook of the event.
//!
//! A [`PathCache`] answers "the value at path `i`" for the VM and remembers
//! the answer for the rest of the evaluation. Its source is either a
//! `serde_json::Value` the caller built, or the values that
//! [`crate::context::json_text`] extracted from JSON text in one pass (only the paths
//! the program reads; everything else is skipped without building values).
//!
//! With a [`PathPlan`] (built once per program), resolution also shares
//! prefixes: `error.code` and `error.message` look `error` up once, in a slot
//! of its own, and walk one step each from there.
//!
//! A third source is a host's own objects ([`PathLookup`], for instance a
//! Python `dict` in the `hookc` Python package): the cache asks it for a
//! path's value the first time a hook reads that path and keeps the answer
//! in a [`LookedUp`] slot for the rest of the evaluation.

use crate::bytecode::path::{Path, Step};
use crate::bytecode::PathIdx;
use crate::functions::{Derived, Scratch};
use serde_json::Value;
use std::cell::OnceCell;
use std::fmt;

mod input;
pub mod json_text;

pub use input::Context;

/// How many path slots live on the stack before the cache spills to the
/// heap: policies reading more distinct paths (and shared prefixes) than this
/// allocate two buffers (slots and their looked-up bits) per evaluation.
/// (A stack buffer is cleared on every evaluation, 8 bytes a slot.)
pub const INLINE_PATHS: usize = 64;

/// The slots of the smaller stack buffer: a policy with at most this many
/// paths and shared prefixes clears 128 bytes per evaluation, not 512.
pub const SMALL_PATHS: usize = 16;

/// Declares `$cache`, a [`PathCache`] over `$plan` and `$source` whose slots
/// live on the caller's stack in a buffer sized for the plan: [`SMALL_PATHS`]
/// or [`INLINE_PATHS`] slots, or none (the cache spills to the heap).
// A macro, not a function: the buffer must live in the caller's frame.
macro_rules! path_cache {
    ($cache:ident, $plan:expr, $source:expr) => {
        let plan: &$crate::context::PathPlan = $plan;
        let source: $crate::context::Source<'_> = $source;
        let needed = plan.slots(source);
        let mut small = [None; $crate::context::SMALL_PATHS];
        let mut large;
        let buffer: &mut [Option<&serde_json::Value>] = if needed <= $crate::context::SMALL_PATHS {
            &mut small
        } else if needed <= $crate::context::INLINE_PATHS {
            large = [None; $crate::context::INLINE_PATHS];
            &mut large
        } else {
            &mut []
        };
        // PERF: a store only for a program that calls functions: declared
        // but not initialized otherwise, so a decision pays no drop for it.
        let derived;
        let store = if plan.derives() {
            derived = $crate::functions::Derived::new();
            Some(&derived)
        } else {
            None
        };
        let mut $cache =
            $crate::context::PathCache::with_plan_and_store(plan, source, buffer, store);
    };
}
pub(crate) use path_cache;

/// Where path values come from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A whole context document.
    Document(&'a Value),
    /// One pre-resolved value per program path (`None`: did not resolve).
    Extracted(&'a [Option<Value>]),
    /// A host's lookup, asked once per path the evaluation reads.
    LookedUp(&'a LookedUp<'a>),
}

/// A context held in a host's own objects rather than in a
/// `serde_json::Value` or JSON text: a Python mapping, a struct of the
/// application. The runtime asks for the value of each path an evaluation
/// reads, at most once per evaluation, and never for a path no hook of the
/// event reads; the whole context is never converted.
pub trait PathLookup {
    /// The value at `path` (path `index` of the policy's
    /// [`Program::paths`](crate::bytecode::Program::paths), so that a host
    /// can prepare per-path keys once per policy), or `None` when it does
    /// not resolve. It should resolve as [`resolve`] would on the context's
    /// JSON: fields of objects, non-negative indexes of arrays. A lookup
    /// that fails (a value with no JSON form) answers `None` and keeps its
    /// error for the host to report after the evaluation.
    fn lookup(&self, index: usize, path: &Path) -> Option<Value>;

    /// The whole context as JSON, asked for only when a transform or an
    /// awaited result must patch it (`docs/src/semantics.md#transforms`).
    /// `None` (the default) makes such an evaluation a
    /// [`QueryError::WholeContext`](crate::QueryError::WholeContext).
    fn document(&self) -> Option<Value> {
        None
    }
}

/// The values a [`PathLookup`] gave during one evaluation: one slot per
/// program path, each filled on first use. (A `OnceCell` per slot lets the
/// path cache hand out references to values looked up after it was built.)
/// The slots are a buffer on the caller's stack (the `looked_up!` macro) when the
/// program has at most [`SMALL_PATHS`] paths, so that a call from a host's
/// objects that matches nothing allocates nothing of the runtime's; past
/// that, one heap allocation per evaluation (ARCHITECTURE.md).
pub struct LookedUp<'a> {
    paths: &'a [Path],
    lookup: &'a dyn PathLookup,
    /// Every slot, when the caller's buffer holds them all.
    inline: &'a [OnceCell<Option<Value>>],
    /// Every slot otherwise (then `inline` is empty); not allocated when
    /// `inline` holds them.
    heap: Vec<OnceCell<Option<Value>>>,
}

/// Declares `$values`, the [`LookedUp`] of `$paths` and `$lookup`, its
/// slots in a buffer on the caller's stack when [`SMALL_PATHS`] hold them.
// A macro, not a function: the buffer must live in the caller's frame.
macro_rules! looked_up {
    ($values:ident, $paths:expr, $lookup:expr) => {
        let buffer = [const { ::std::cell::OnceCell::new() }; $crate::context::SMALL_PATHS];
        let $values = $crate::context::LookedUp::with_buffer($paths, $lookup, &buffer);
    };
}
pub(crate) use looked_up;

impl<'a> LookedUp<'a> {
    /// Empty slots for `paths`, filled from `lookup` on first use (on the
    /// heap; [`looked_up!`] puts them on the stack).
    pub fn new(paths: &'a [Path], lookup: &'a dyn PathLookup) -> LookedUp<'a> {
        LookedUp::with_buffer(paths, lookup, &[])
    }

    /// Empty slots for `paths`: `buffer`'s when it has that many (its
    /// slots must be empty), the heap's otherwise.
    pub fn with_buffer(
        paths: &'a [Path],
        lookup: &'a dyn PathLookup,
        buffer: &'a [OnceCell<Option<Value>>],
    ) -> LookedUp<'a> {
        let fits = paths.len() <= buffer.len();
        LookedUp {
            paths,
            lookup,
            inline: if fits { buffer } else { &[] },
            heap: if fits {
                Vec::new()
            } else {
                std::iter::repeat_with(OnceCell::new)
                    .take(paths.len())
                    .collect()
            },
        }
    }

    /// The value of path `id`, looked up the first time it is asked for.
    fn get(&self, id: usize) -> Option<&Value> {
        let path = self.paths.get(id)?;
        let slots = if self.heap.is_empty() {
            self.inline
        } else {
            &self.heap
        };
        slots
            .get(id)?
            .get_or_init(|| self.lookup.lookup(id, path))
            .as_ref()
    }
}

impl fmt::Debug for LookedUp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LookedUp")
            .field("inline", &self.inline)
            .field("heap", &self.heap)
            .finish_non_exhaustive()
    }
}

/// Path values of one evaluation: each slot's value once looked up
/// (`None`: does not resolve), and which slots have been looked up.
// PERF: the slots are a buffer the caller declares on its stack
// ([`path_cache!`]), sized for the policy: not a `SmallVec` or an enum, which
// cost two copies and one copy of the whole inline buffer per evaluation
// (callgrind), nor a fixed array, whose 512-byte clear was ~50 of a
// ~600-instruction seed evaluation.
#[derive(Debug)]
pub struct PathCache<'a> {
    layout: Layout<'a>,
    source: Source<'a>,
    /// Every slot, when the caller's buffer holds them all (at most 64).
    inline: &'a mut [Option<&'a Value>],
    /// Bit `i`: inline slot `i` has been looked up.
    inline_known: u64,
    /// Every slot when there are more (then `inline` is unused); empty, and
    /// not allocated, otherwise.
    heap: Vec<Option<&'a Value>>,
    /// Bit `i % 64` of word `i / 64`: heap slot `i` has been looked up.
    heap_known: Vec<u64>,
    /// What the evaluation's functions derived (parsed shell commands).
    scratch: Scratch<'a>,
}

/// How a document is walked.
#[derive(Debug, Clone, Copy)]
enum Layout<'a> {
    /// Every path from the document's root.
    Flat(&'a [Path]),
    /// Through shared prefixes.
    Shared(&'a PathPlan),
}

impl<'a> PathCache<'a> {
    /// A cache over a program's paths and a source; each path is walked from
    /// the document's root.
    /// (Its slots are on the heap; [`path_cache!`] puts them on the stack.)
    pub fn new(paths: &'a [Path], source: Source<'a>) -> PathCache<'a> {
        PathCache::with_layout(Layout::Flat(paths), paths.len(), source, &mut [], None)
    }

    /// A cache that walks through the shared prefixes of `plan` (its slots
    /// on the heap; [`path_cache!`] puts them on the stack).
    pub fn with_plan(plan: &'a PathPlan, source: Source<'a>) -> PathCache<'a> {
        PathCache::with_plan_in(plan, source, &mut [])
    }

    /// A cache that walks through the shared prefixes of `plan`, with its
    /// slots in `buffer` when that holds [`PathPlan::slots`] of them (and
    /// at most 64), on the heap otherwise.
    #[inline(always)]
    pub fn with_plan_in(
        plan: &'a PathPlan,
        source: Source<'a>,
        buffer: &'a mut [Option<&'a Value>],
    ) -> PathCache<'a> {
        PathCache::with_plan_and_store(plan, source, buffer, None)
    }

    /// [`PathCache::with_plan_in`], with `store` for the values the
    /// evaluation's functions derive ([`path_cache!`]'s constructor).
    #[inline(always)]
    pub fn with_plan_and_store(
        plan: &'a PathPlan,
        source: Source<'a>,
        buffer: &'a mut [Option<&'a Value>],
        store: Option<&'a Derived<'a>>,
    ) -> PathCache<'a> {
        PathCache::with_layout(
            Layout::Shared(plan),
            plan.slots(source),
            source,
            buffer,
            store,
        )
    }

    #[inline(always)]
    fn with_layout(
        layout: Layout<'a>,
        slots: usize,
        source: Source<'a>,
        buffer: &'a mut [Option<&'a Value>],
        store: Option<&'a Derived<'a>>,
    ) -> PathCache<'a> {
        let spill = slots > buffer.len().min(INLINE_PATHS);
        PathCache {
            layout,
            source,
            inline: if spill { &mut [] } else { buffer },
            inline_known: 0,
            heap: if spill { vec![None; slots] } else { Vec::new() },
            heap_known: if spill {
                vec![0; slots.div_ceil(64)]
            } else {
                Vec::new()
            },
            scratch: Scratch::over(store),
        }
    }

    /// The cache with `derived` as the store of the values its evaluation's
    /// functions derive ([`path_cache!`] gives every cache one); without
    /// one, such functions give `invalid argument`.
    #[inline(always)]
    pub fn with_derived(mut self, derived: &'a Derived<'a>) -> PathCache<'a> {
        self.scratch = Scratch::new(derived);
        self
    }

    /// The evaluation's derived values.
    #[inline(always)]
    pub fn scratch(&mut self) -> &mut Scratch<'a> {
        &mut self.scratch
    }

    /// The value at `path`, or `None` if it does not resolve (or `path` is
    /// not a path of the program).
    #[inline(always)]
    pub fn get(&mut self, path: PathIdx) -> Option<&'a Value> {
        self.slot(path.as_u32())
    }

    /// The value of slot `id`: path `id` for `id` below the path count;
    /// above it, a prefix that paths share (see [`PathPlan`]).
    fn slot(&mut self, id: u32) -> Option<&'a Value> {
        let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
        let spilled = !self.heap.is_empty();
        let known = match spilled {
            false if word == 0 => self.inline_known,
            false => return None,
            true => *self.heap_known.get(word)?,
        };
        if known & bit != 0 {
            let slots: &[Option<&'a Value>] = if spilled { &self.heap } else { self.inline };
            return slots.get(id as usize).copied().flatten();
        }
        let v = match (self.source, self.layout) {
            (Source::Extracted(values), _) => values.get(id as usize).and_then(Option::as_ref),
            (Source::LookedUp(values), _) => values.get(id as usize),
            (Source::Document(doc), Layout::Flat(paths)) => {
                paths.get(id as usize).and_then(|p| resolve(doc, p))
            }
            (Source::Document(doc), Layout::Shared(plan)) => {
                let node = plan.nodes.get(id as usize)?;
                // INVARIANT: a node's parent has a smaller depth, so this
                // recursion is bounded by the path's length.
                let base = match node.parent {
                    Some(parent) => self.slot(parent),
                    None => Some(doc),
                };
                base.and_then(|b| walk(b, &node.steps))
            }
        };
        let (slot, w) = if spilled {
            (
                self.heap.get_mut(id as usize),
                self.heap_known.get_mut(word),
            )
        } else {
            (
                self.inline.get_mut(id as usize),
                Some(&mut self.inline_known),
            )
        };
        if let (Some(slot), Some(w)) = (slot, w) {
            *slot = v;
            *w |= bit;
        }
        v
    }
}

/// One step of a path, owned.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum OwnedStep {
    Field(String),
    Index(i64),
}

/// The paths of a program arranged to share prefixes: node `i < n` is path
/// `i`; the nodes after them are prefixes that two or more paths share. Each
/// node is reached from its nearest kept ancestor (or the root) by a few
/// steps.
#[derive(Debug, Clone, Default)]
pub struct PathPlan {
    nodes: Vec<PlanNode>,
    path_count: usize,
    /// Whether the program calls functions that derive values (then each
    /// evaluation gets a store for them: [`path_cache!`]).
    derives: bool,
}

#[derive(Debug, Clone)]
struct PlanNode {
    parent: Option<u32>,
    steps: Vec<OwnedStep>,
}

impl PathPlan {
    /// The slots a cache over this plan needs for `source`: every node for
    /// a document (paths and shared prefixes), the paths alone for
    /// extracted values.
    #[inline]
    pub fn slots(&self, source: Source<'_>) -> usize {
        match source {
            Source::Document(_) => self.nodes.len(),
            Source::Extracted(_) | Source::LookedUp(_) => self.path_count,
        }
    }

    /// The same plan, for a program that calls functions (`derives`) or
    /// not: only then does [`path_cache!`] give an evaluation a store.
    pub fn deriving(mut self, derives: bool) -> PathPlan {
        self.derives = derives;
        self
    }

    /// Whether evaluations get a store of derived values.
    #[inline(always)]
    pub fn derives(&self) -> bool {
        self.derives
    }

    /// The plan of a program's paths.
    pub fn new(paths: &[Path]) -> PathPlan {
        // A trie of every path's steps.
        #[derive(Default)]
        struct Trie {
            children: Vec<(OwnedStep, usize)>,
            end: Option<u32>,
        }
        let mut trie: Vec<Trie> = vec![Trie::default()];
        let mut edges: crate::accel::fnv::FnvMap<(usize, OwnedStep), usize> =
            crate::accel::fnv::FnvMap::default();
        for (i, path) in paths.iter().enumerate() {
            let mut at = 0usize;
            for step in path.steps() {
                let owned = match step {
                    Step::Field(f) => OwnedStep::Field(f.to_owned()),
                    Step::Index(i) => OwnedStep::Index(i),
                };
                // Edges by (node, step): a node may have very many children
                // (100,000 hooks on distinct roots), so no linear search.
                let key = (at, owned);
                at = match edges.get(&key) {
                    Some(&c) => c,
                    None => {
                        trie.push(Trie::default());
                        let child = trie.len() - 1;
                        if let Some(t) = trie.get_mut(key.0) {
                            t.children.push((key.1.clone(), child));
                        }
                        edges.insert(key, child);
                        child
                    }
                };
            }
            if let Some(t) = trie.get_mut(at) {
                t.end = Some(u32::try_from(i).unwrap_or(u32::MAX));
            }
        }
        // Keep path ends and branching prefixes; everything else is a step.
        let mut nodes: Vec<Option<PlanNode>> = vec![None; paths.len()];
        let mut extra: Vec<PlanNode> = Vec::new();
        let mut stack: Vec<(usize, Option<u32>, Vec<OwnedStep>)> = Vec::new();
        if let Some(root) = trie.first() {
            for (step, child) in &root.children {
                stack.push((*child, None, vec![step.clone()]));
            }
        }
        while let Some((at, parent, steps)) = stack.pop() {
            let Some(t) = trie.get(at) else { continue };
            let kept = match t.end {
                Some(id) => Some(id),
                None if t.children.len() >= 2 => {
                    let id = u32::try_from(paths.len() + extra.len()).unwrap_or(u32::MAX);
                    extra.push(PlanNode {
                        parent,
                        steps: steps.clone(),
                    });
                    Some(id)
                }
                None => None,
            };
            let (next_parent, base) = match kept {
                Some(id) => {
                    if let Some(slot) = t.end.and_then(|e| nodes.get_mut(e as usize)) {
                        *slot = Some(PlanNode {
                            parent,
                            steps: steps.clone(),
                        });
                    }
                    (Some(id), Vec::new())
                }
                None => (parent, steps),
            };
            for (step, child) in &t.children {
                let mut s = base.clone();
                s.push(step.clone());
                stack.push((*child, next_parent, s));
            }
        }
        let mut all: Vec<PlanNode> = nodes
            .into_iter()
            .map(|n| {
                n.unwrap_or(PlanNode {
                    parent: None,
                    steps: Vec::new(),
                })
            })
            .collect();
        all.extend(extra);
        PathPlan {
            nodes: all,
            path_count: paths.len(),
            derives: true,
        }
    }
}

fn walk<'a>(mut cur: &'a Value, steps: &[OwnedStep]) -> Option<&'a Value> {
    for step in steps {
        cur = match (step, cur) {
            (OwnedStep::Field(name), Value::Object(map)) => crate::value::lookup(map, name)?,
            (OwnedStep::Index(i), Value::Array(items)) => items.get(usize::try_from(*i).ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Walks a path through a document: fields of objects, indexes of arrays.
pub fn resolve<'a>(doc: &'a Value, path: &Path) -> Option<&'a Value> {
    let mut cur = doc;
    for step in path.steps() {
        cur = match (step, cur) {
            (Step::Field(name), Value::Object(map)) => crate::value::lookup(map, name)?,
            (Step::Index(i), Value::Array(items)) => items.get(usize::try_from(i).ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytecode::path::Segment;
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
        assert_eq!(cache.get(PathIdx::new(0)), Some(&json!("30")));
        assert_eq!(cache.get(PathIdx::new(1)), Some(&json!(true)));
        assert_eq!(cache.get(PathIdx::new(2)), None);
        assert_eq!(cache.get(PathIdx::new(3)), None);
        assert_eq!(cache.get(PathIdx::new(9)), None);
        // Second lookups come from the slots.
        assert_eq!(cache.get(PathIdx::new(0)), Some(&json!("30")));
    }

    #[test]
    fn shared_prefixes_resolve_like_flat_paths() {
        let f = |s: &str| Segment::Field(s.to_owned());
        let paths = vec![
            Path::root("error").child(f("code")),
            Path::root("error")
                .child(f("headers"))
                .child(f("retry-after")),
            Path::root("error").child(f("headers")).child(f("x")),
            Path::root("error"),
            Path::root("items").child(Segment::Index(1)).child(f("a")),
            Path::root("items").child(Segment::Index(1)).child(f("b")),
            Path::root("n"),
            Path::root("n").child(f("deeper")),
        ];
        let plan = PathPlan::new(&paths);
        // `error.headers` and `items[1]` are shared prefixes with slots of their own.
        assert_eq!(plan.nodes.len(), paths.len() + 2);
        let docs = [
            json!({"error": {"code": 1, "headers": {"retry-after": "30", "x": null}}, "items": [0, {"a": 1, "b": 2}], "n": 3}),
            json!({"error": "flat", "items": [], "n": {"deeper": true}}),
            json!([1, 2]),
        ];
        for doc in &docs {
            let mut flat = PathCache::new(&paths, Source::Document(doc));
            let mut shared = PathCache::with_plan(&plan, Source::Document(doc));
            // Ask in both orders so prefixes are sometimes already cached.
            for id in (0..paths.len()).chain((0..paths.len()).rev()) {
                let path = PathIdx::from_usize(id);
                assert_eq!(flat.get(path), shared.get(path), "{doc} path {}", paths[id]);
            }
        }
    }

    #[test]
    fn stack_buffers_of_every_size_resolve_like_the_heap() {
        // Plans needing fewer slots than either stack buffer, exactly as
        // many, and more (spilled to the heap).
        for n in [
            1,
            SMALL_PATHS,
            SMALL_PATHS + 1,
            INLINE_PATHS,
            INLINE_PATHS + 1,
        ] {
            let paths: Vec<Path> = (0..n).map(|i| Path::root(format!("k{i}"))).collect();
            let doc = json!((0..n)
                .filter(|i| i % 2 == 0)
                .map(|i| (format!("k{i}"), json!(i)))
                .collect::<serde_json::Map<_, _>>());
            let plan = PathPlan::new(&paths);
            assert_eq!(plan.slots(Source::Document(&doc)), n);
            path_cache!(cache, &plan, Source::Document(&doc));
            for round in 0..2 {
                for i in 0..n {
                    let want = (i % 2 == 0).then(|| json!(i));
                    let got = cache.get(PathIdx::from_usize(i));
                    assert_eq!(got, want.as_ref(), "n={n} i={i} round={round}");
                }
            }
        }
    }

    #[test]
    fn extracted_values_are_used_as_given() {
        let paths = vec![Path::root("a"), Path::root("b")];
        let values = vec![Some(json!(1)), None];
        let mut cache = PathCache::new(&paths, Source::Extracted(&values));
        assert_eq!(cache.get(PathIdx::new(0)), Some(&json!(1)));
        assert_eq!(cache.get(PathIdx::new(1)), None);
    }

    #[test]
    fn looked_up_values_are_asked_for_once_and_only_when_read() {
        struct Counting(std::cell::RefCell<Vec<usize>>);
        impl PathLookup for Counting {
            fn lookup(&self, index: usize, path: &Path) -> Option<Value> {
                self.0.borrow_mut().push(index);
                (path.to_string() != "b").then(|| json!(index))
            }
        }
        let paths = vec![Path::root("a"), Path::root("b"), Path::root("c")];
        let plan = PathPlan::new(&paths);
        // Slots on the heap, in a buffer that holds them (with room to
        // spare), and past one too small for them (then on the heap).
        let buffers = [0, 3, 5, 2].map(|n| vec![OnceCell::new(); n]);
        for buffer in &buffers {
            let lookup = Counting(Default::default());
            let values = LookedUp::with_buffer(&paths, &lookup, buffer);
            let mut cache = PathCache::with_plan(&plan, Source::LookedUp(&values));
            for _ in 0..2 {
                assert_eq!(cache.get(PathIdx::new(1)), None);
                assert_eq!(cache.get(PathIdx::new(0)), Some(&json!(0)));
                assert_eq!(cache.get(PathIdx::new(7)), None);
            }
            // `c` was never read, so never asked for; `a` and `b` once each.
            assert_eq!(*lookup.0.borrow(), vec![1, 0]);
            assert_eq!(values.heap.is_empty(), buffer.len() >= paths.len());
        }
    }

    #[test]
    fn more_paths_than_inline_slots_spill_and_still_resolve_once() {
        // Around the boundary: all inline, exactly full, one over, many over.
        for n in [3, INLINE_PATHS, INLINE_PATHS + 1, 3 * INLINE_PATHS + 5] {
            let paths: Vec<Path> = (0..n)
                .map(|i| Path::root("r").child(Segment::Field(format!("k{i}"))))
                .collect();
            let doc = json!({"r": (0..n).filter(|i| i % 3 != 0)
                .map(|i| (format!("k{i}"), json!(i)))
                .collect::<serde_json::Map<_, _>>()});
            let plan = PathPlan::new(&paths);
            for mut cache in [
                PathCache::new(&paths, Source::Document(&doc)),
                PathCache::with_plan(&plan, Source::Document(&doc)),
            ] {
                for round in 0..2 {
                    for i in 0..n {
                        let want = (i % 3 != 0).then(|| json!(i));
                        let id = PathIdx::from_usize(i);
                        assert_eq!(cache.get(id), want.as_ref(), "n={n} i={i} round={round}");
                    }
                }
                assert_eq!(cache.get(PathIdx::from_usize(n + 1000)), None);
            }
        }
    }
}
