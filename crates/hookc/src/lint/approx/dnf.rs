//! The set algebra: [`Cube`]s (conjunctions of per-path constraints), [`Dnf`]s
//! (unions of cubes) with their bounded `and`/`or`, the normalization of
//! paths against their prefixes ([`Prefixes`]), and the covering check
//! ([`covered_by`]) that proves shadowing.

use super::{LeafId, StrTests, MAX_CUBES, MAX_MINIMIZE, MAX_WHY, MAX_WORK};
use crate::lint::domain::{Bits, ValueSet};
use hookc_runtime::bytecode::path::{Path, PathId, PathTable, Segment};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One path's constraint in a cube, with the leaves that imposed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    /// The states allowed.
    pub set: ValueSet,
    /// The leaves that constrained it (for messages).
    pub why: Vec<LeafId>,
}

/// A conjunction of per-path constraints; a path not listed is
/// unconstrained. The empty cube is every context.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cube {
    paths: BTreeMap<PathId, Constraint>,
}

fn join_why(a: &[LeafId], b: &[LeafId]) -> Vec<LeafId> {
    let mut out: Vec<LeafId> = a.to_vec();
    for id in b {
        if out.len() >= MAX_WHY {
            break;
        }
        if !out.contains(id) {
            out.push(*id);
        }
    }
    out
}

impl Cube {
    /// The cube of one constraint (`None` when it is empty; the top cube when
    /// the set is everything).
    pub fn single(path: PathId, set: ValueSet, why: Vec<LeafId>) -> Option<Cube> {
        if set.is_empty() {
            return None;
        }
        let mut c = Cube::default();
        if !set.is_all() {
            c.paths.insert(path, Constraint { set, why });
        }
        Some(c)
    }

    /// Whether the cube constrains nothing (every context).
    pub fn is_top(&self) -> bool {
        self.paths.is_empty()
    }

    /// The constrained paths and their constraints.
    pub fn iter(&self) -> impl Iterator<Item = (PathId, &Constraint)> {
        self.paths.iter().map(|(p, c)| (*p, c))
    }

    /// The states a path may have in this cube.
    pub fn set_of(&self, path: PathId) -> ValueSet {
        self.paths
            .get(&path)
            .map_or_else(ValueSet::all, |c| c.set.clone())
    }

    /// Intersects one path's constraint; `Err` with the reasons when it
    /// becomes empty.
    pub fn restrict(
        &mut self,
        path: PathId,
        set: &ValueSet,
        why: &[LeafId],
    ) -> Result<(), Vec<LeafId>> {
        match self.paths.get_mut(&path) {
            Some(c) => {
                let next = c.set.and(set);
                c.why = join_why(&c.why, why);
                if next.is_empty() {
                    return Err(c.why.clone());
                }
                c.set = next;
            }
            None => {
                if set.is_empty() {
                    return Err(why.to_vec());
                }
                if !set.is_all() {
                    self.paths.insert(
                        path,
                        Constraint {
                            set: set.clone(),
                            why: why.to_vec(),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    /// The intersection; `Err` with the reasons when it is empty.
    pub fn and(&self, other: &Cube) -> Result<Cube, Vec<LeafId>> {
        let (mut out, small) = if self.paths.len() >= other.paths.len() {
            (self.clone(), other)
        } else {
            (other.clone(), self)
        };
        for (p, c) in &small.paths {
            out.restrict(*p, &c.set, &c.why)?;
        }
        Ok(out)
    }

    /// Whether every context of `other` is in `self` (sufficient: path by
    /// path, a string test's states as `tests` derive them in `other`).
    pub fn contains(&self, other: &Cube, tests: &StrTests) -> bool {
        self.contains_except(other, None, tests)
    }

    /// Whether `self` contains `other` on every path but `pivot`.
    pub fn contains_except(&self, other: &Cube, pivot: Option<PathId>, tests: &StrTests) -> bool {
        self.paths
            .iter()
            .filter(|(p, _)| Some(**p) != pivot)
            .all(|(p, c)| {
                if other.paths.contains_key(p) || tests.get(*p).is_some() {
                    tests.set_in(other, *p).within(&c.set)
                } else {
                    false
                }
            })
    }

    /// Whether the two cubes constrain the same paths to the same sets.
    fn same_sets(&self, other: &Cube) -> bool {
        self.paths.len() == other.paths.len()
            && self
                .paths
                .iter()
                .zip(&other.paths)
                .all(|((p, a), (q, b))| p == q && a.set == b.set)
    }

    /// If the cubes constrain the same paths and differ on at most one, their
    /// union as one cube (exact).
    fn merge(&self, other: &Cube) -> Option<Cube> {
        if self.paths.len() != other.paths.len() {
            return None;
        }
        let mut differing = None;
        for ((p, a), (q, b)) in self.paths.iter().zip(&other.paths) {
            if p != q {
                return None;
            }
            if a.set != b.set {
                if differing.is_some() {
                    return None;
                }
                differing = Some(*p);
            }
        }
        let mut out = self.clone();
        if let (Some(p), Some(theirs)) = (differing, differing.and_then(|p| other.paths.get(&p))) {
            let mine = out.paths.get_mut(&p)?;
            mine.set = mine.set.or(&theirs.set);
            mine.why = join_why(&mine.why, &theirs.why);
            if mine.set.is_all() {
                out.paths.remove(&p);
            }
        }
        Some(out)
    }
}

/// A union of cubes. No cube: no context (with the reasons, when known).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dnf {
    /// The cubes.
    pub cubes: Vec<Cube>,
    /// Why there is no cube: the leaves of a contradiction.
    pub empty_why: Option<Vec<LeafId>>,
}

impl Dnf {
    /// Every context.
    pub fn top() -> Dnf {
        Dnf {
            cubes: vec![Cube::default()],
            empty_why: None,
        }
    }

    /// No context.
    pub fn bottom(why: Option<Vec<LeafId>>) -> Dnf {
        Dnf {
            cubes: Vec::new(),
            empty_why: why,
        }
    }

    /// One cube, or nothing.
    pub(super) fn of(cube: Option<Cube>, why: Vec<LeafId>) -> Dnf {
        match cube {
            Some(c) => Dnf {
                cubes: vec![c],
                empty_why: None,
            },
            None => Dnf::bottom(Some(why)),
        }
    }

    /// Whether there is no cube.
    pub fn is_empty(&self) -> bool {
        self.cubes.is_empty()
    }

    /// Whether it is exactly every context.
    pub fn is_top(&self) -> bool {
        self.cubes.iter().any(Cube::is_top)
    }

    /// The smallest single cube containing all cubes: paths constrained by
    /// every cube, each the union of its sets.
    pub fn hull(&self) -> Dnf {
        let mut iter = self.cubes.iter();
        let Some(first) = iter.next() else {
            return self.clone();
        };
        let mut hull = first.clone();
        for c in iter {
            hull.paths.retain(|p, _| c.paths.contains_key(p));
            for (p, h) in hull.paths.iter_mut() {
                if let Some(o) = c.paths.get(p) {
                    h.set = h.set.or(&o.set);
                    h.why = join_why(&h.why, &o.why);
                }
            }
            hull.paths.retain(|_, h| !h.set.is_all());
        }
        Dnf {
            cubes: vec![hull],
            empty_why: None,
        }
    }

    /// Adds a cube, merging it into an equal-but-one-path cube when it can.
    fn push(&mut self, cube: Cube) {
        if self.is_top() {
            return;
        }
        if cube.is_top() {
            self.cubes = vec![cube];
            return;
        }
        for existing in self.cubes.iter_mut() {
            if existing.same_sets(&cube) {
                return;
            }
            if let Some(m) = existing.merge(&cube) {
                *existing = m;
                return;
            }
        }
        self.cubes.push(cube);
    }

    /// Keeps the size bound: an over-approximation becomes its hull, an
    /// under-approximation drops its last cubes.
    fn bound(mut self, over: bool) -> Dnf {
        if self.cubes.len() > MAX_CUBES {
            if over {
                return self.hull();
            }
            self.cubes.truncate(MAX_CUBES);
        }
        self
    }

    /// Intersection.
    pub fn and(a: Dnf, b: Dnf, over: bool) -> Dnf {
        if a.is_empty() {
            return a;
        }
        if b.is_empty() {
            return b;
        }
        if a.cubes.iter().all(Cube::is_top) {
            return b;
        }
        if b.cubes.iter().all(Cube::is_top) {
            return a;
        }
        let (a, b) = if over && a.cubes.len() * b.cubes.len() > MAX_CUBES {
            (a.hull(), b.hull())
        } else {
            (a, b)
        };
        let mut out = Dnf::bottom(None);
        for x in &a.cubes {
            for y in &b.cubes {
                match x.and(y) {
                    Ok(c) => {
                        if out.cubes.len() < MAX_CUBES {
                            out.push(c);
                        }
                    }
                    Err(why) => {
                        out.empty_why.get_or_insert(why);
                    }
                }
            }
        }
        if !out.is_empty() {
            out.empty_why = None;
        }
        out
    }

    /// Union.
    pub fn or(a: Dnf, b: Dnf, over: bool) -> Dnf {
        if a.is_empty() && b.is_empty() {
            return Dnf::bottom(a.empty_why.or(b.empty_why));
        }
        let mut out = a;
        out.empty_why = None;
        for c in b.cubes {
            out.push(c);
        }
        out.bound(over)
    }

    /// Restricts every cube by path implications (see [`Prefixes`]); drops
    /// the cubes that become empty, keeping the first reason.
    pub fn normalize(self, prefixes: &Prefixes) -> Dnf {
        let mut out = Dnf::bottom(self.empty_why);
        for c in self.cubes {
            match prefixes.normalize(c) {
                Ok(c) => out.cubes.push(c),
                Err(why) => {
                    out.empty_why.get_or_insert(why);
                }
            }
        }
        if !out.is_empty() {
            out.empty_why = None;
        }
        out
    }
}

/// The interned strict prefixes of every path, for the implication "a path
/// resolves ⇒ each prefix resolves to an object (before a field step) or a
/// list (before an index step)".
#[derive(Debug, Default)]
pub struct Prefixes {
    of: HashMap<PathId, Vec<(PathId, Bits)>>,
}

impl Prefixes {
    /// The prefixes among a table's paths.
    pub fn new(paths: &PathTable) -> Prefixes {
        let ids: HashMap<&Path, PathId> = paths.iter().map(|(id, p)| (p, id)).collect();
        let mut of = HashMap::new();
        for (id, path) in paths.iter() {
            let mut prefix = Path::root(path.root_name());
            let mut list = Vec::new();
            for seg in path.segments() {
                let container = match seg {
                    Segment::Field(_) => Bits::OBJECT,
                    Segment::Index(_) => Bits::LIST,
                };
                if let Some(pid) = ids.get(&prefix) {
                    list.push((*pid, container));
                }
                prefix = prefix.child(seg.clone());
            }
            if !list.is_empty() {
                of.insert(id, list);
            }
        }
        Prefixes { of }
    }

    /// Adds what the cube's constraints imply about prefixes and extensions:
    /// an extension that resolves makes each prefix a container; a prefix
    /// that cannot be the container makes the extension missing.
    pub fn normalize(&self, mut cube: Cube) -> Result<Cube, Vec<LeafId>> {
        let present: Vec<(PathId, Vec<LeafId>)> = cube
            .paths
            .iter()
            .filter(|(_, c)| !c.set.may_be_missing())
            .map(|(p, c)| (*p, c.why.clone()))
            .collect();
        for (p, why) in present {
            for (q, container) in self.of.get(&p).into_iter().flatten() {
                cube.restrict(*q, &ValueSet::bits(*container), &why)?;
            }
        }
        let constrained: Vec<PathId> = cube.paths.keys().copied().collect();
        for p in constrained {
            for (q, container) in self.of.get(&p).into_iter().flatten() {
                let Some(qc) = cube.paths.get(q) else {
                    continue;
                };
                if !qc.set.meets(&ValueSet::bits(*container)) {
                    let why = qc.why.clone();
                    cube.restrict(p, &ValueSet::bits(Bits::MISSING), &why)?;
                }
            }
        }
        Ok(cube)
    }
}

/// Whether `b` (a cube) lies inside the union of `cands`: inside one of
/// them, or inside the union of those that agree with it on every path but
/// one (the pivot), where unions of one path's sets are exact. What `b`
/// says about a string test's receiver counts for the test (`tests`).
/// Returns the
/// indexes of the candidates used. `work` counts candidate checks; past
/// [`MAX_WORK`] the answer is `None`.
pub fn covered_by(
    b: &Cube,
    cands: &[&Cube],
    tests: &StrTests,
    work: &mut usize,
) -> Option<Vec<usize>> {
    for (i, a) in cands.iter().enumerate() {
        *work += 1;
        if *work > MAX_WORK {
            return None;
        }
        if a.contains(b, tests) {
            return Some(vec![i]);
        }
    }
    let mut pivots: BTreeSet<PathId> = b.paths.keys().copied().collect();
    for a in cands {
        pivots.extend(a.paths.keys().copied());
    }
    for p in pivots {
        let bp = tests.set_in(b, p);
        let mut parts = Vec::new();
        let mut used = Vec::new();
        for (i, a) in cands.iter().enumerate() {
            *work += 1;
            if *work > MAX_WORK {
                return None;
            }
            let Some(ap) = a.paths.get(&p) else {
                continue;
            };
            if a.contains_except(b, Some(p), tests) && ap.set.meets(&bp) {
                parts.push(&ap.set);
                used.push(i);
            }
        }
        if !used.is_empty()
            && bp.may_be_within_union(&parts)
            && bp.within(&ValueSet::union_all(parts.into_iter().cloned().collect()))
        {
            if used.len() > MAX_MINIMIZE {
                return Some(used);
            }
            // Name few hooks: drop the later ones the others do without.
            let mut keep = used.clone();
            for i in used.iter().rev() {
                let rest: Vec<usize> = keep.iter().copied().filter(|j| j != i).collect();
                let mut u = ValueSet::none();
                for j in &rest {
                    if let Some(c) = cands.get(*j).and_then(|a| a.paths.get(&p)) {
                        u = u.or(&c.set);
                    }
                }
                *work += 1;
                if !rest.is_empty() && bp.within(&u) {
                    keep = rest;
                }
            }
            return Some(keep);
        }
    }
    None
}
