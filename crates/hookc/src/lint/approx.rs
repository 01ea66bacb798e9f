//! Conditions as sets of contexts, approximated from above and below.
//!
//! A [`Cube`] is a conjunction of per-path constraints (each a
//! [`ValueSet`] of the path's states); a [`Dnf`] is a union of cubes. For
//! every condition the [`Analyzer`] computes four of them ([`Approx`]): an
//! over- and an under-approximation of the contexts where the condition is
//! `true`, and the same for `false`. CEL's error rules are followed exactly:
//! reading a missing path is an error, an error is neither true nor false,
//! `&&`/`||` absorb an error when the other side decides, so
//!
//! - `a && b` is true ⇔ both are true; false ⇔ either is false;
//! - `a || b` is true ⇔ either is true; false ⇔ both are false;
//! - `!a` swaps true and false; `c ? x : y` is true ⇔ (c ∧ x) ∨ (¬c ∧ y).
//!
//! Leaves of the domain (a path compared with a constant, `in` a constant
//! list, `startsWith`, a glob that is a literal or a literal then `*`, `has`,
//! a bool path, the type tests of `matches`) are exact. Any other leaf
//! (`matches`, other globs, `size(x) > 3`, arithmetic, macros) is
//! an *atom*: a pseudo-path of its own whose state is the leaf's value
//! (`true`, `false`, or "missing" for an error). A leaf has no free variable
//! (variables are bound inside macros, which are leaves whole), so it is a
//! function of the context, and two identical leaves always agree: `a && m`
//! implies `m` for any `m`. Whenever an atom is true or false, every path it
//! reads strictly (not under `has` or an absorbing operator) is present, and
//! the receiver of a string method is a string; that is added to its cube.
//! Two different atoms are unrelated: `size(x) > 20` does not imply
//! `size(x) > 10` here. So what the domain does not know can only make an
//! inclusion harder to prove, never easier.

use super::domain::{Bits, Cmp, NumSet, StrSet, ValueSet};
use crate::check::ty::Kinds;
use crate::ir::{BinaryOp, Const, Expr, ExprKind, Func, UnaryOp};
use hookc_runtime::bytecode::path::{Path, PathId, PathTable, Segment};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Index of a leaf expression in [`Analyzer::leaves`]: the reasons behind a
/// contradiction.
pub type LeafId = u32;

/// At most this many cubes in a DNF; past it an over-approximation becomes
/// its hull and an under-approximation drops cubes (both sound).
pub const MAX_CUBES: usize = 32;

/// At most this many candidate checks per compilation ([`covered_by`] gives
/// up past it: the analysis then proves less, never more).
pub const MAX_WORK: usize = 2_000_000;

/// Covering sets up to this size are minimized for the message.
const MAX_MINIMIZE: usize = 16;

/// At most this many leaves named as the reason of one constraint.
const MAX_WHY: usize = 4;

/// Deeper expressions than this are not analyzed (treated as unknown).
/// Checked policies are far shallower ([`hookc_runtime::limits::MAX_EXPR_DEPTH`]).
const MAX_DEPTH: usize = 512;

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

    /// The constraint on a path, if any.
    pub fn get(&self, path: PathId) -> Option<&Constraint> {
        self.paths.get(&path)
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

    /// Whether every context of `other` is in `self` (sufficient: path by path).
    pub fn contains(&self, other: &Cube) -> bool {
        self.paths.iter().all(|(p, c)| match other.paths.get(p) {
            Some(o) => o.set.within(&c.set),
            None => false,
        })
    }

    /// Whether `self` contains `other` on every path but `pivot`.
    pub fn contains_except(&self, other: &Cube, pivot: PathId) -> bool {
        self.paths
            .iter()
            .filter(|(p, _)| **p != pivot)
            .all(|(p, c)| match other.paths.get(p) {
                Some(o) => o.set.within(&c.set),
                None => false,
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
    fn of(cube: Option<Cube>, why: Vec<LeafId>) -> Dnf {
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

/// Over- and under-approximation of one set of contexts.
#[derive(Debug, Clone, Default)]
pub struct Bounds {
    /// Contains the set.
    pub over: Dnf,
    /// Inside the set.
    pub under: Dnf,
}

impl Bounds {
    fn exact(d: Dnf) -> Bounds {
        Bounds {
            over: d.clone(),
            under: d,
        }
    }

    fn and(a: Bounds, b: Bounds) -> Bounds {
        Bounds {
            over: Dnf::and(a.over, b.over, true),
            under: Dnf::and(a.under, b.under, false),
        }
    }

    fn or(a: Bounds, b: Bounds) -> Bounds {
        Bounds {
            over: Dnf::or(a.over, b.over, true),
            under: Dnf::or(a.under, b.under, false),
        }
    }
}

/// Where a condition is `true` and where it is `false` (elsewhere: an error).
#[derive(Debug, Clone, Default)]
pub struct Approx {
    /// Contexts where it evaluates to `true`.
    pub t: Bounds,
    /// Contexts where it evaluates to `false`.
    pub f: Bounds,
}

impl Approx {
    fn not(self) -> Approx {
        Approx {
            t: self.f,
            f: self.t,
        }
    }
}

/// The four sets of a single-path leaf.
struct LeafSets {
    t_over: ValueSet,
    t_under: ValueSet,
    f_over: ValueSet,
    f_under: ValueSet,
}

impl LeafSets {
    fn exact(t: ValueSet, f: ValueSet) -> LeafSets {
        LeafSets {
            t_over: t.clone(),
            t_under: t,
            f_over: f.clone(),
            f_under: f,
        }
    }
}

/// Builds [`Approx`]es of conditions, remembering their leaves.
#[derive(Debug)]
pub struct Analyzer<'a> {
    /// The leaves seen, by [`LeafId`].
    pub leaves: Vec<&'a Expr>,
    paths: &'a PathTable,
    /// Atoms by canonical text (confirmed with `same_as`).
    atoms: HashMap<String, Vec<(&'a Expr, PathId)>>,
    /// Atom ids count down from the top of the id space, far above any
    /// interned path ([`hookc_runtime::limits`] bounds those).
    next_atom: u32,
}

impl<'a> Analyzer<'a> {
    /// An analyzer for conditions over `paths`, with no leaves yet.
    pub fn new(paths: &'a PathTable) -> Analyzer<'a> {
        Analyzer {
            leaves: Vec::new(),
            paths,
            atoms: HashMap::new(),
            next_atom: u32::MAX,
        }
    }

    /// The atom of an opaque leaf: the same id for identical leaves.
    fn atom(&mut self, e: &'a Expr) -> Option<PathId> {
        let key = e.to_source(self.paths)?;
        let list = self.atoms.entry(key).or_default();
        if let Some((_, id)) = list.iter().find(|(x, _)| x.same_as(e)) {
            return Some(*id);
        }
        let id = PathId(self.next_atom);
        self.next_atom = self.next_atom.checked_sub(1)?;
        list.push((e, id));
        Some(id)
    }

    /// The approximations of a condition.
    pub fn condition(&mut self, e: &'a Expr) -> Approx {
        self.expr(e, 0)
    }

    fn leaf_id(&mut self, e: &'a Expr) -> LeafId {
        let id = LeafId::try_from(self.leaves.len()).unwrap_or(LeafId::MAX);
        self.leaves.push(e);
        id
    }

    fn expr(&mut self, e: &'a Expr, depth: usize) -> Approx {
        if depth > MAX_DEPTH {
            return unknown(BTreeSet::new(), Vec::new());
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Const(Const::Bool(b)) => {
                let id = self.leaf_id(e);
                let yes = Bounds::exact(Dnf::top());
                let no = Bounds::exact(Dnf::bottom(Some(vec![id])));
                if *b {
                    Approx { t: yes, f: no }
                } else {
                    Approx { t: no, f: yes }
                }
            }
            ExprKind::Const(_) => {
                // Not a bool: the condition is neither true nor false.
                let id = self.leaf_id(e);
                let none = Bounds::exact(Dnf::bottom(Some(vec![id])));
                Approx {
                    t: none.clone(),
                    f: none,
                }
            }
            ExprKind::And(a, b) => {
                let (a, b) = (self.expr(a, d), self.expr(b, d));
                Approx {
                    t: Bounds::and(a.t, b.t),
                    f: Bounds::or(a.f, b.f),
                }
            }
            ExprKind::Or(a, b) => {
                let (a, b) = (self.expr(a, d), self.expr(b, d));
                Approx {
                    t: Bounds::or(a.t, b.t),
                    f: Bounds::and(a.f, b.f),
                }
            }
            ExprKind::Unary(UnaryOp::Not, a) => self.expr(a, d).not(),
            ExprKind::Cond(c, x, y) => {
                let (c, x, y) = (self.expr(c, d), self.expr(x, d), self.expr(y, d));
                Approx {
                    t: Bounds::or(Bounds::and(c.t.clone(), x.t), Bounds::and(c.f.clone(), y.t)),
                    f: Bounds::or(Bounds::and(c.t, x.f), Bounds::and(c.f, y.f)),
                }
            }
            ExprKind::SchemaMatch { check, .. } => self.expr(check, d),
            _ => self.leaf(e),
        }
    }

    fn leaf(&mut self, e: &'a Expr) -> Approx {
        let id = self.leaf_id(e);
        match exact_leaf(e) {
            Some((path, sets)) => {
                let cube = |set: ValueSet| Dnf::of(Cube::single(path, set, vec![id]), vec![id]);
                Approx {
                    t: Bounds {
                        over: cube(sets.t_over),
                        under: cube(sets.t_under),
                    },
                    f: Bounds {
                        over: cube(sets.f_over),
                        under: cube(sets.f_under),
                    },
                }
            }
            None => {
                let mut strict = BTreeSet::new();
                strict_paths(e, &mut strict, 0);
                let Some(atom) = self.atom(e) else {
                    return unknown(strict, vec![id]);
                };
                let why = vec![id];
                let mut base = Cube::default();
                for p in strict {
                    // Cannot fail: `present` is not empty and `base` is fresh.
                    let _ = base.restrict(p, &ValueSet::present(), &why);
                }
                if let Some(p) = string_receiver(e) {
                    let _ = base.restrict(p, &ValueSet::strings(StrSet::full()), &why);
                }
                let with = |bit: Bits| {
                    let mut c = base.clone();
                    match c.restrict(atom, &ValueSet::bits(bit), &why) {
                        Ok(()) => Bounds::exact(Dnf::of(Some(c), why.clone())),
                        Err(w) => Bounds::exact(Dnf::bottom(Some(w))),
                    }
                };
                Approx {
                    t: with(Bits::TRUE),
                    f: with(Bits::FALSE),
                }
            }
        }
    }
}

/// The path a string method or a string ordering is applied to: a string
/// whenever the leaf is true or false.
fn string_receiver(e: &Expr) -> Option<PathId> {
    match &e.kind {
        ExprKind::Matches(recv, _) => match recv.kind {
            ExprKind::Path(p) => Some(p),
            _ => None,
        },
        ExprKind::Call(Func::Contains | Func::StartsWith | Func::EndsWith, args) => {
            match args.first().map(|a| &a.kind) {
                Some(ExprKind::Path(p)) => Some(*p),
                _ => None,
            }
        }
        ExprKind::Binary {
            op: BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
            lhs,
            rhs,
            ..
        } => match path_and_const(lhs, rhs) {
            Some((p, Const::String(_), _)) => Some(p),
            _ => None,
        },
        _ => None,
    }
}

/// An expression outside the domain: true or false only where its strict
/// paths are present; nothing certain.
fn unknown(strict: BTreeSet<PathId>, why: Vec<LeafId>) -> Approx {
    let mut cube = Cube::default();
    for p in strict {
        // Cannot fail: `present` is not empty.
        let _ = cube.restrict(p, &ValueSet::present(), &why);
    }
    let over = Dnf {
        cubes: vec![cube],
        empty_why: None,
    };
    let b = Bounds {
        over,
        under: Dnf::bottom(None),
    };
    Approx { t: b.clone(), f: b }
}

/// Paths whose absence makes `e` an error for certain.
fn strict_paths(e: &Expr, out: &mut BTreeSet<PathId>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Path(p) => {
            out.insert(*p);
        }
        ExprKind::Unary(_, a)
        | ExprKind::Matches(a, _)
        | ExprKind::Field(a, _)
        | ExprKind::Macro { range: a, .. } => strict_paths(a, out, d),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Index(lhs, rhs) => {
            strict_paths(lhs, out, d);
            strict_paths(rhs, out, d);
        }
        ExprKind::Call(_, args) => {
            for a in args {
                strict_paths(a, out, d);
            }
        }
        ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            let (mut x, mut y) = (BTreeSet::new(), BTreeSet::new());
            strict_paths(a, &mut x, d);
            strict_paths(b, &mut y, d);
            out.extend(x.intersection(&y));
        }
        ExprKind::Cond(c, a, b) => {
            strict_paths(c, out, d);
            let (mut x, mut y) = (BTreeSet::new(), BTreeSet::new());
            strict_paths(a, &mut x, d);
            strict_paths(b, &mut y, d);
            out.extend(x.intersection(&y));
        }
        ExprKind::Const(_)
        | ExprKind::List(_)
        | ExprKind::Var { .. }
        | ExprKind::HasPath(_)
        | ExprKind::HasField(..)
        | ExprKind::TypeIs(..)
        | ExprKind::SchemaMatch { .. } => {}
    }
}

/// The states of each kind set: (certainly of these kinds, possibly).
/// Ints and doubles are one number line in the domain, so `int` alone (or
/// `double` alone) is only known from above.
fn kinds_sets(k: Kinds) -> (ValueSet, ValueSet) {
    let mut bits = Bits::NONE;
    for (kind, bit) in [
        (Kinds::NULL, Bits::NULL),
        (Kinds::BOOL, Bits::TRUE.or(Bits::FALSE)),
        (Kinds::LIST, Bits::LIST),
        (Kinds::OBJECT, Bits::OBJECT),
    ] {
        if k.intersects(kind) {
            bits = bits.or(bit);
        }
    }
    let mut base = ValueSet::bits(bits);
    if k.intersects(Kinds::STRING) {
        base = base.or(&ValueSet::strings(StrSet::full()));
    }
    let numbers = ValueSet::numbers(NumSet::full());
    let over = if k.intersects(Kinds::NUMBER) {
        base.or(&numbers)
    } else {
        base.clone()
    };
    let under = if Kinds::NUMBER.within(k) {
        base.or(&numbers)
    } else {
        base
    };
    (under, over)
}

/// A path compared with a constant, either way round: the path, the
/// constant, and whether the constant is on the left.
fn path_and_const<'e>(lhs: &'e Expr, rhs: &'e Expr) -> Option<(PathId, &'e Const, bool)> {
    match (&lhs.kind, &rhs.kind) {
        (ExprKind::Path(p), ExprKind::Const(c)) => Some((*p, c, false)),
        (ExprKind::Const(c), ExprKind::Path(p)) => Some((*p, c, true)),
        _ => None,
    }
}

/// The exact (or kind-bounded) sets of a single-path leaf.
fn exact_leaf(e: &Expr) -> Option<(PathId, LeafSets)> {
    let bools = || ValueSet::bits(Bits::TRUE.or(Bits::FALSE));
    match &e.kind {
        ExprKind::Path(p) => Some((
            *p,
            LeafSets::exact(ValueSet::bits(Bits::TRUE), ValueSet::bits(Bits::FALSE)),
        )),
        ExprKind::HasPath(p) => Some((
            *p,
            LeafSets::exact(ValueSet::present(), ValueSet::bits(Bits::MISSING)),
        )),
        ExprKind::TypeIs(inner, k) => {
            let ExprKind::Path(p) = inner.kind else {
                return None;
            };
            let (under, over) = kinds_sets(*k);
            Some((
                p,
                LeafSets {
                    f_over: under.not(),
                    f_under: over.not(),
                    t_over: over,
                    t_under: under,
                },
            ))
        }
        ExprKind::Binary { op, lhs, rhs, .. } => {
            let (p, c, flipped) = path_and_const(lhs, rhs)?;
            let sets = match op {
                BinaryOp::Eq | BinaryOp::Ne => {
                    let s = ValueSet::of_const(c)?;
                    let rest = ValueSet::present().minus(&s);
                    if *op == BinaryOp::Eq {
                        LeafSets::exact(s, rest)
                    } else {
                        LeafSets::exact(rest, s)
                    }
                }
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                    let cmp = match op {
                        BinaryOp::Lt => Cmp::Lt,
                        BinaryOp::Le => Cmp::Le,
                        BinaryOp::Gt => Cmp::Gt,
                        _ => Cmp::Ge,
                    };
                    let cmp = if flipped { cmp.flip() } else { cmp };
                    ordering_leaf(cmp, c, bools())?
                }
                BinaryOp::In if !flipped => {
                    let Const::List(items) = c else {
                        return None;
                    };
                    let s = ValueSet::of_consts(items)?;
                    let rest = ValueSet::present().minus(&s);
                    LeafSets::exact(s, rest)
                }
                _ => return None,
            };
            Some((p, sets))
        }
        ExprKind::Call(f, args) => {
            let [recv, arg] = args.as_slice() else {
                return None;
            };
            let (ExprKind::Path(p), ExprKind::Const(Const::String(s))) = (&recv.kind, &arg.kind)
            else {
                return None;
            };
            if *f != Func::StartsWith {
                return None;
            }
            Some((*p, string_leaf(StrSet::starting_with(s))))
        }
        ExprKind::Matches(recv, re) => {
            // A glob without wildcards or classes is an equality on strings,
            // one that is literal up to its only `*` (at the end) a
            // `startsWith`. Any other glob, and every regex, is an atom.
            let ExprKind::Path(p) = recv.kind else {
                return None;
            };
            let g = crate::check::glob::parse(re.glob.as_deref()?).ok()?;
            let yes = match g.as_literal() {
                Some(lit) => StrSet::of([lit.as_str()]),
                None => StrSet::starting_with(&g.as_prefix()?),
            };
            Some((p, string_leaf(yes)))
        }
        _ => None,
    }
}

/// A string test that is true on the strings of `yes`, false on the other
/// strings, and an error (neither) on every other state: `startsWith` and
/// the globs read exactly. Unlike `==`, which is false on other kinds.
fn string_leaf(yes: StrSet) -> LeafSets {
    let no = StrSet::full().minus(&yes);
    LeafSets::exact(ValueSet::strings(yes), ValueSet::strings(no))
}

/// `x OP c` for an ordering operator: numbers by value, bools
/// (`false < true`), `null` never (an error). Strings (lexicographic order)
/// are outside the domain: `None`, an atom.
fn ordering_leaf(cmp: Cmp, c: &Const, bools: ValueSet) -> Option<LeafSets> {
    Some(match c {
        Const::Int(_) | Const::Double(_) => {
            let v = super::domain::exact_number(c)?;
            let t = ValueSet::numbers(NumSet::compare(cmp, v));
            let f = ValueSet::any_number().minus(&t);
            LeafSets::exact(t, f)
        }
        Const::Bool(b) => {
            let mut t = Bits::NONE;
            for (x, bit) in [(false, Bits::FALSE), (true, Bits::TRUE)] {
                if cmp.holds(x.cmp(b)) {
                    t = t.or(bit);
                }
            }
            let t = ValueSet::bits(t);
            let f = bools.minus(&t);
            LeafSets::exact(t, f)
        }
        Const::String(_) => return None,
        Const::Null | Const::List(_) | Const::Object(_) => {
            LeafSets::exact(ValueSet::none(), ValueSet::none())
        }
    })
}

/// Whether `b` (a cube) lies inside the union of `cands`: inside one of
/// them, or inside the union of those that agree with it on every path but
/// one (the pivot), where unions of one path's sets are exact. Returns the
/// indexes of the candidates used. `work` counts candidate checks; past
/// [`MAX_WORK`] the answer is `None`.
pub fn covered_by(b: &Cube, cands: &[&Cube], work: &mut usize) -> Option<Vec<usize>> {
    for (i, a) in cands.iter().enumerate() {
        *work += 1;
        if *work > MAX_WORK {
            return None;
        }
        if a.contains(b) {
            return Some(vec![i]);
        }
    }
    let mut pivots: BTreeSet<PathId> = b.paths.keys().copied().collect();
    for a in cands {
        pivots.extend(a.paths.keys().copied());
    }
    for p in pivots {
        let bp = b.set_of(p);
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
            if a.contains_except(b, p) && ap.set.meets(&bp) {
                parts.push(ap.set.clone());
                used.push(i);
            }
        }
        if !used.is_empty() && bp.within(&ValueSet::union_all(parts)) {
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

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::resolve::ast_to_ir::Resolver;
    use crate::span::{FileId, Origin};

    fn parse(src: &str, paths: &mut PathTable) -> Expr {
        let mut diags = Diagnostics::new();
        let ast = crate::syntax::parse(src, Origin::file_start(FileId(0))).unwrap();
        Resolver::new(paths, &mut diags).resolve(&ast).unwrap()
    }

    /// `true` when `b` true ⇒ `a` true is proved.
    fn implies(b: &str, a: &str) -> bool {
        let mut paths = PathTable::new();
        let (eb, ea) = (parse(b, &mut paths), parse(a, &mut paths));
        let prefixes = Prefixes::new(&paths);
        let mut an = Analyzer::new(&paths);
        let tb = an.condition(&eb).t.over.normalize(&prefixes);
        let ta = an.condition(&ea).t.under;
        let cands: Vec<&Cube> = ta.cubes.iter().collect();
        let mut work = 0;
        tb.cubes
            .iter()
            .all(|c| covered_by(c, &cands, &mut work).is_some())
    }

    fn never_true(src: &str) -> bool {
        let mut paths = PathTable::new();
        let e = parse(src, &mut paths);
        let prefixes = Prefixes::new(&paths);
        Analyzer::new(&paths)
            .condition(&e)
            .t
            .over
            .normalize(&prefixes)
            .is_empty()
    }

    #[test]
    fn implications_of_the_brief() {
        assert!(implies("x > 10", "x > 5"));
        assert!(!implies("x > 5", "x > 10"));
        assert!(implies("x == 'a'", "has(x)"));
        assert!(implies("x == 'b'", "x != 'a'"));
        assert!(!implies("x != 'a'", "x == 'b'"));
        // A missing x is an error, not false: `x != 'a'` does not cover `!has(x)`.
        assert!(!implies("!has(x)", "x != 'a'"));
    }

    #[test]
    fn int_and_double_bounds() {
        assert!(implies("x >= 2", "x > 1"));
        assert!(!implies("x > 1", "x >= 2"));
        assert!(implies("x == 1", "x == 1.0"));
        assert!(implies("x > 1.5", "x > 1"));
        assert!(!implies("x > 1", "x > 1.5"));
    }

    #[test]
    fn unions_and_prefixes() {
        assert!(implies("x in ['a', 'b']", "x == 'a' || x == 'b'"));
        assert!(!implies("x in ['a', 'b', 'c']", "x == 'a' || x == 'b'"));
        assert!(implies("x.startsWith('AUTH_X')", "x.startsWith('AUTH_')"));
        assert!(implies("x == 'AUTH_1'", "x.startsWith('AUTH_')"));
        assert!(implies("x < 3 || x >= 3", "x < 3 || x >= 3"));
        assert!(implies("has(x)", "x == null || x != null"));
        assert!(!implies("y == 1", "has(x) || x == 2"));
        assert!(implies("y == 1", "has(x) || !has(x)"));
        // Nested paths: a resolving extension makes its prefix present.
        assert!(implies("a.b == 1", "has(a)"));
        assert!(implies("a.b.c == 1", "has(a.b)"));
        // Unknown leaves still require what they read.
        assert!(implies("x.matches('^a')", "has(x)"));
        assert!(implies("x + 1 > y", "has(x) && has(y)"));
        assert!(!implies("x + 1 > y || z", "has(x)"));
        // ... and never prove more than that.
        assert!(!implies("size(x) > 3", "size(x) > 2"));
        assert!(!implies("x.matches('time')", "x.matches('timeout')"));
        // Identical opaque leaves agree.
        assert!(implies("x.matches('^a') && y == 1", "x.matches('^a')"));
        assert!(implies("size(x) > 3", "size(x) > 3 || y"));
        assert!(!implies("true", "x.matches('a') || !x.matches('a')"));
        assert!(implies(
            "has(x)",
            "x.contains('a') || !x.contains('a') || x == 1 || x != 1"
        ));
    }

    #[test]
    fn errors_are_neither_true_nor_false() {
        // `!(x > 5)` is true only for numbers <= 5 (a string makes it an error).
        assert!(implies("!(x > 5)", "x <= 5"));
        assert!(implies("x <= 5", "!(x > 5)"));
        // `x > 5 || x <= 5` is not every context: x may be missing or a string.
        assert!(!implies("true", "x > 5 || x <= 5"));
        // Conditional.
        assert!(implies("c ? x == 1 : x == 2", "x == 1 || x == 2"));
    }

    #[test]
    fn contradictions() {
        assert!(never_true("x == 'a' && x == 'b'"));
        assert!(never_true("x > 10 && x < 5"));
        assert!(never_true("x == 'a' && x > 5"));
        assert!(never_true("!has(a) && a.b == 1"));
        assert!(never_true("x in []"));
        assert!(never_true("false"));
        assert!(!never_true("x > 10 && x < 10.5"));
        assert!(!never_true("x == 'a' || x == 'b'"));
        assert!(!never_true("x.matches('a') && x.matches('b')"));
        assert!(never_true("x.matches('a') && !x.matches('a')"));
        assert!(never_true("x.matches('a') && x == 1"));
    }

    #[test]
    fn literal_and_prefix_globs_are_exact() {
        // A literal glob is `==` on strings, a trailing `*` a `startsWith`.
        assert!(implies("x.glob('Bash')", "x == 'Bash'"));
        assert!(implies("x == 'Bash'", "x.glob('Bash')"));
        assert!(implies(
            "x.glob('Bash(git:status)')",
            "x.glob('Bash(git:*')"
        ));
        assert!(implies("x.glob('Bash(git:*')", "x.startsWith('Bash(git:')"));
        assert!(implies("x.glob('ab*')", "x.glob('a*')"));
        assert!(!implies("x.glob('a*')", "x.glob('ab*')"));
        assert!(implies("x.glob('Read')", "x.glob('*')"));
        assert!(never_true("x.glob('Bash') && x.glob('Read')"));
        assert!(never_true("x.glob('Bash') && x == 1"));
        // On a non-string a glob is an error, not false (unlike `!=`).
        assert!(!implies("x == 1", "!x.glob('Bash')"));
        assert!(implies("x == 'Read'", "!x.glob('Bash')"));
        assert!(!implies("true", "x.glob('*')"));
        assert!(implies("x.startsWith('')", "x.glob('*')"));
        // Other globs are atoms: only identical ones are related.
        assert!(!implies(
            "x.glob('Bash(git:status)')",
            "x.glob('Bash(git:*)')"
        ));
        assert!(!implies("x.glob('Bash(git:*)')", "x.glob('Bash(*)')"));
        assert!(implies("x.glob('a?') && y", "x.glob('a?')"));
        assert!(implies("x.glob('a?')", "has(x)"));
        assert!(never_true("x.glob('a?') && x == 1"));
        // A glob is not the regex of its text.
        assert!(!implies("x.matches('Bash')", "x.glob('Bash')"));
    }

    #[test]
    fn long_disjunctions_stay_one_cube() {
        let mut paths = PathTable::new();
        // Built by folding: the parser's depth limit allows 128 links.
        let leaf = parse("x == 'c0'", &mut paths);
        let mut e = leaf.clone();
        for i in 1..200 {
            let l = parse(&format!("x == 'c{i}'"), &mut paths);
            e = Expr::new(ExprKind::Or(Box::new(e), Box::new(l)), leaf.span);
        }
        let a = Analyzer::new(&paths).condition(&e);
        assert_eq!(a.t.under.cubes.len(), 1);
        assert_eq!(a.t.over, a.t.under);
    }
}
