//! The earlier hooks' true-sets (their under-approximations' cubes),
//! indexed so that a later cube meets only the cubes that can take part in
//! proving it covered, not every earlier hook.
//!
//! A cube `a` takes part in `covered_by` for a cube `b` only if it contains
//! `b`, or contains `b` on every path but one (the pivot `k`) and meets it
//! at `k`, where the union of such cubes' sets must cover `b`'s. The index
//! leaves out cubes that can do neither, and nothing else (a cube found
//! before the index was partitioned is still found whenever it can take
//! part), so the findings do not change:
//!
//! - a cube with a finite path is keyed by it (the smallest such set): `b`
//!   gets it when it constrains that path, by value when `b`'s set there is
//!   finite;
//! - a cube with no finite path but a non-atom path `k` it requires
//!   present is keyed by `k` (the first such path). Where `b`
//!   requires `k` present, a cube whose strings at `k` all start with one of
//!   its entries ("bounded") is found by those entries against `b`'s
//!   (disjoint prefixes never meet). Where `b` may have `k` missing
//!   ([`Need::Missing`]), or holds strings at `k` no entry names while the
//!   cube is bounded ([`Need::Root`]), the cube cannot contain `b` on `k`,
//!   so it can only share in a union at pivot `k`, and such a union needs a
//!   part that has that state at `k`, a cube found otherwise. So these
//!   cubes are deferred, and added only when one of the cubes found
//!   otherwise has the state at `k` and contains `b` on every other path
//!   ([`needed`]);
//! - any other cube is `general`: every `b` gets it.

use crate::lint::approx::{Cube, StrIndex, StrTests};
use crate::lint::domain::{Scalar, ValueSet};
use hookc_runtime::bytecode::path::PathId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A cube of an earlier hook: the hook and the cube's position in its
/// under-approximation.
pub type Ref = (usize, usize);

/// Why a key path's cubes were deferred for a later cube `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// `b` may have the path missing: all the cubes keyed by it.
    Missing,
    /// `b` holds strings at the path that no entry names: the bounded ones.
    Root,
}

/// The cubes keyed by one path that they do not hold to finitely many values.
#[derive(Debug, Default)]
struct Keyed {
    /// Cubes whose set there is not bounded by string entries.
    loose: Vec<Ref>,
    /// The bounded ones.
    bounded: Bounded<Ref>,
}

/// Items whose set at one path holds only strings, each starting with (or
/// being) one of the set's entries, by those entries: the ones a set can
/// share a string with are found by its own entries.
#[derive(Debug)]
pub struct Bounded<R> {
    /// By each entry that is in the item's set (exact or prefix).
    by_entry: BTreeMap<String, Vec<R>>,
    /// Every item.
    all: Vec<R>,
}

impl<R> Default for Bounded<R> {
    fn default() -> Self {
        Bounded {
            by_entry: BTreeMap::new(),
            all: Vec::new(),
        }
    }
}

impl<R: Copy + Ord> Bounded<R> {
    /// Adds `r` if `set` is bounded; whether it is.
    pub fn insert(&mut self, set: &ValueSet, r: R) -> bool {
        let Some(entries) = bounded_entries(set) else {
            return false;
        };
        for e in entries {
            self.by_entry.entry(e.to_owned()).or_default().push(r);
        }
        self.all.push(r);
        true
    }

    /// Every item.
    pub fn all(&self) -> &[R] {
        &self.all
    }

    /// The items whose set may share a string with `set`: all of them when
    /// `set` holds strings no entry names.
    pub fn meeting(&self, set: &ValueSet, out: &mut BTreeSet<R>) {
        match set.strs().entries_in() {
            None => out.extend(self.all.iter().copied()),
            Some((exact, prefixes)) => {
                for q in exact {
                    self.meeting_entry(q, false, out);
                }
                for q in prefixes {
                    self.meeting_entry(q, true, out);
                }
            }
        }
    }

    /// The items with an entry that can share a string with the entry `q`:
    /// an entry `q` starts with, or (`prefix`: `q` is a prefix entry) one
    /// that starts with `q`.
    fn meeting_entry(&self, q: &str, prefix: bool, out: &mut BTreeSet<R>) {
        let ends = q
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .chain(std::iter::once(q.len()));
        for end in ends {
            if let Some(refs) = q.get(..end).and_then(|e| self.by_entry.get(e)) {
                out.extend(refs.iter().copied());
            }
        }
        if prefix {
            let longer = self
                .by_entry
                .range::<str, _>((std::ops::Bound::Excluded(q), std::ops::Bound::Unbounded))
                .take_while(|(e, _)| e.starts_with(q));
            for (_, refs) in longer {
                out.extend(refs.iter().copied());
            }
        }
    }
}

/// Earlier hooks' true-sets, indexed for candidate lookup.
#[derive(Default)]
pub struct Index {
    /// The first hook that is always true.
    pub top: Option<usize>,
    /// Cubes keyed by one path's finite set of values.
    keyed: HashMap<(PathId, Scalar), Vec<Ref>>,
    /// The same cubes by their key path.
    by_path: HashMap<PathId, Vec<Ref>>,
    /// Cubes with no finite path, by a non-atom path they require present.
    infinite: HashMap<PathId, Keyed>,
    /// Cubes with neither.
    general: Vec<Ref>,
    /// The cubes keyed by a string test, by receiver and needle too.
    strs: StrIndex<Ref>,
}

/// The entries of a set that holds only strings, each starting (or being)
/// one of them; `None` for any other set.
fn bounded_entries(set: &ValueSet) -> Option<Vec<&str>> {
    if !set.only_strings() {
        return None;
    }
    let (mut exact, prefixes) = set.strs().entries_in()?;
    exact.extend(prefixes);
    Some(exact)
}

impl Index {
    /// Adds the cubes of hook `hook`.
    pub fn insert(&mut self, hook: usize, cubes: &[Cube], tests: &StrTests) {
        for (i, c) in cubes.iter().enumerate() {
            if c.is_top() {
                self.top.get_or_insert(hook);
                continue;
            }
            let key = c
                .iter()
                .filter_map(|(p, con)| con.set.finite().map(|v| (p, v)))
                .min_by_key(|(_, v)| v.len());
            if let Some((p, values)) = key {
                if let (Some(t), [Scalar::Bool(expect)]) = (tests.get(p), values.as_slice()) {
                    self.strs.insert(t, *expect, (hook, i));
                }
                for v in values {
                    self.keyed.entry((p, v)).or_default().push((hook, i));
                }
                self.by_path.entry(p).or_default().push((hook, i));
                continue;
            }
            let present = c
                .iter()
                .find(|(p, con)| tests.get(*p).is_none() && !con.set.may_be_missing());
            let Some((p, con)) = present else {
                self.general.push((hook, i));
                continue;
            };
            let k = self.infinite.entry(p).or_default();
            if !k.bounded.insert(&con.set, (hook, i)) {
                k.loose.push((hook, i));
            }
        }
    }

    /// Candidate cubes that may contain `b` or share in covering it, into
    /// `out`; the key paths `b` constrains whose cubes are deferred, into
    /// `deferred` (see the module documentation; the caller adds the paths
    /// `b` leaves free that a found cube allows missing). Returns the
    /// number of string-needle lookups it took; `None` (and `out`
    /// incomplete) when there would be more than
    /// [`MAX_CANDIDATES`](crate::lint::MAX_CANDIDATES) candidates.
    pub fn candidates(
        &self,
        b: &Cube,
        tests: &StrTests,
        out: &mut BTreeSet<Ref>,
        deferred: &mut Vec<(PathId, Need)>,
    ) -> Option<usize> {
        for (p, c) in b.iter() {
            match c.set.finite() {
                Some(values) => {
                    for v in values {
                        if let Some(refs) = self.keyed.get(&(p, v)) {
                            within(out, refs)?;
                        }
                    }
                }
                None => {
                    if let Some(refs) = self.by_path.get(&p) {
                        within(out, refs)?;
                    }
                }
            }
            let Some(k) = self.infinite.get(&p).filter(|_| tests.get(p).is_none()) else {
                continue;
            };
            if c.set.may_be_missing() {
                deferred.push((p, Need::Missing));
                continue;
            }
            within(out, &k.loose)?;
            if c.set.strs().entries_in().is_none() {
                deferred.push((p, Need::Root));
            } else {
                k.bounded.meeting(&c.set, out);
                within(out, &[])?;
            }
        }
        within(out, &self.general)?;
        if self.strs.is_empty() {
            return Some(0);
        }
        let mut found = Vec::new();
        let work = self.strs.candidates(b, tests, &mut found);
        within(out, &found)?;
        Some(work)
    }

    /// The cubes deferred for key path `k` and `need`, into `out`; `None`
    /// past [`MAX_CANDIDATES`](crate::lint::MAX_CANDIDATES), as for
    /// [`Index::candidates`].
    pub fn deferred(&self, k: PathId, need: Need, out: &mut BTreeSet<Ref>) -> Option<()> {
        let Some(keyed) = self.infinite.get(&k) else {
            return Some(());
        };
        within(out, keyed.bounded.all())?;
        if need == Need::Missing {
            within(out, &keyed.loose)?;
        }
        Some(())
    }
}

/// Adds `refs` to `out`, unless that could take it past
/// [`MAX_CANDIDATES`](crate::lint::MAX_CANDIDATES) (`None`, with
/// nothing added): the check costs nothing, so the lookups of one cube stay
/// bounded whatever the policy's size.
fn within(out: &mut BTreeSet<Ref>, refs: &[Ref]) -> Option<()> {
    if out.len().saturating_add(refs.len()) > crate::lint::approx::MAX_CANDIDATES {
        return None;
    }
    out.extend(refs.iter().copied());
    Some(())
}

/// Whether the cubes deferred for `k` can take part for `b`: some cube
/// found otherwise (`found`) has, at `k`, the state that made them
/// deferred (missing, or strings no entry names) and contains `b` on every
/// other path, as a union at pivot `k` needs.
pub fn needed(b: &Cube, k: PathId, need: Need, found: &[&Cube], tests: &StrTests) -> bool {
    found.iter().any(|a| {
        a.iter().any(|(p, c)| {
            p == k
                && match need {
                    Need::Missing => c.set.may_be_missing(),
                    Need::Root => c.set.strs().entries_in().is_none(),
                }
        }) && a.contains_except(b, Some(k), tests)
    })
}
