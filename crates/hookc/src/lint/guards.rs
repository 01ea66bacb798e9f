//! W0007's guards, indexed: each earlier terminal hook whose condition is
//! one path in one set `S` guards the later hooks with "not `S`" (when a
//! later hook runs, that hook did not match). A later hook's cube is
//! restricted by the guards before its template paths are checked; this
//! index gives only the guards that can change that check.
//!
//! A guard whose `S` has none of the states missing, list and object
//! ("weak") removes none of them: it never makes a path present, never
//! keeps it from being a container, so the path implications
//! ([`Prefixes`](super::approx::Prefixes)) and the template check come out
//! the same with or without it. It can only empty the cube, where the
//! cube's set at its path lies inside the union of the weak guards' sets
//! there: so a cube gets the weak guards of a path only when it constrains
//! the path to a set with none of those states that may lie inside their
//! union, and of those the ones whose `S` meets its set (the others remove
//! nothing). The other guards ("strong"), and every guard at a path with a
//! strong one, apply to every cube.

use super::index::Bounded;
use crate::lint::approx::Cube;
use crate::lint::domain::{Bits, Outline, Scalar, ValueSet};
use hookc_runtime::bytecode::path::PathId;
use std::collections::{BTreeSet, HashMap, HashSet};

/// One guard: the hook, its path, and where it did not match ("not `S`").
pub type Guard = (usize, PathId, ValueSet);

/// The guards in hook order, indexed by path and by what they exclude.
#[derive(Default)]
pub struct Guards {
    /// Every guard, in order.
    all: Vec<Guard>,
    /// Guards with a finite `S`, by path and value.
    by_value: HashMap<(PathId, Scalar), Vec<usize>>,
    /// The same guards by path.
    finite_at: HashMap<PathId, Vec<usize>>,
    /// Every guard but the strong ones, by path.
    at: HashMap<PathId, Vec<usize>>,
    /// Guards with an infinite `S` bounded by string entries, by path.
    bounded: HashMap<PathId, Bounded<usize>>,
    /// The other guards with an infinite `S`, by path.
    loose: HashMap<PathId, Vec<usize>>,
    /// Guards whose `S` has a missing, list or object state.
    strong: Vec<usize>,
    /// The paths of the strong guards.
    strong_at: HashSet<PathId>,
    /// The outline of the union of the weak guards' `S`, by path.
    outline: HashMap<PathId, Outline>,
}

impl Guards {
    /// Adds the guard of hook `hook`, whose condition is `path` in `set`.
    pub fn push(&mut self, hook: usize, path: PathId, set: &ValueSet) {
        let i = self.all.len();
        self.all.push((hook, path, set.not()));
        let container = Bits::MISSING.or(Bits::LIST).or(Bits::OBJECT);
        if set.meets(&ValueSet::bits(container)) {
            self.strong.push(i);
            self.strong_at.insert(path);
            return;
        }
        self.at.entry(path).or_default().push(i);
        let o = self.outline.entry(path).or_default();
        *o = o.or(set.outline());
        if let Some(values) = set.finite() {
            for v in values {
                self.by_value.entry((path, v)).or_default().push(i);
            }
            self.finite_at.entry(path).or_default().push(i);
        } else if !self.bounded.entry(path).or_default().insert(set, i) {
            self.loose.entry(path).or_default().push(i);
        }
    }

    /// The guards that can change what `cube` says about any path, in
    /// order (see the module documentation); `None` when there are more
    /// than [`MAX_GUARDS`] (the caller then checks nothing: W0007 is not
    /// reported for the hook, as without guards it could be wrongly).
    pub fn relevant(&self, cube: &Cube) -> Option<Vec<&Guard>> {
        let mut out: BTreeSet<usize> = BTreeSet::new();
        within(&mut out, &self.strong)?;
        for (p, c) in cube.iter() {
            if self.strong_at.contains(&p) {
                within(&mut out, self.at.get(&p).map_or(&[], Vec::as_slice))?;
                continue;
            }
            // (The outline has none of the three states: a set with one is
            // never emptied.)
            let may_empty = self
                .outline
                .get(&p)
                .is_some_and(|o| c.set.may_be_within(*o));
            if !may_empty {
                continue;
            }
            match c.set.finite() {
                Some(values) => {
                    for v in values {
                        within(
                            &mut out,
                            self.by_value.get(&(p, v)).map_or(&[], Vec::as_slice),
                        )?;
                    }
                }
                None => within(&mut out, self.finite_at.get(&p).map_or(&[], Vec::as_slice))?,
            }
            if let Some(b) = self.bounded.get(&p) {
                b.meeting(&c.set, &mut out);
                within(&mut out, &[])?;
            }
            within(&mut out, self.loose.get(&p).map_or(&[], Vec::as_slice))?;
        }
        Some(out.iter().filter_map(|i| self.all.get(*i)).collect())
    }
}

/// At most this many guards for one cube of a hook's condition: past it,
/// W0007 is not checked for the hook. Guards the index cannot narrow (a
/// single-path `exists`, `!=`, or number range) apply to every later hook
/// reading their path, so without a bound the check grows with the square
/// of the policy (issue 24, linear compile).
pub const MAX_GUARDS: usize = 64;

/// Adds `guards` to `out`, unless that could take it past [`MAX_GUARDS`]
/// (`None`, with nothing added).
fn within(out: &mut BTreeSet<usize>, guards: &[usize]) -> Option<()> {
    if out.len().saturating_add(guards.len()) > MAX_GUARDS {
        return None;
    }
    out.extend(guards.iter().copied());
    Some(())
}
