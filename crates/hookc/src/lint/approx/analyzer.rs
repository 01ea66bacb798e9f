//! The [`Analyzer`]: a condition's IR into its four approximations
//! ([`Approx`]), following CEL's error rules through `&&`, `||`, `!` and
//! `?:`, with exact leaves where the domain knows them and atoms elsewhere.

use super::{Cube, Dnf, LeafId, StrTests, MAX_DEPTH};
use crate::check::ty::Kinds;
use crate::ir::{BinaryOp, Builtin, Const, IrExpr, IrExprKind, UnaryOp};
use crate::lint::domain::{Bits, Cmp, NumSet, StrPattern, StrSet, ValueSet};
use hookc_runtime::bytecode::path::{PathId, PathTable};
use std::collections::{BTreeSet, HashMap};

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
    pub leaves: Vec<&'a IrExpr>,
    paths: &'a PathTable,
    /// Atoms by canonical text (confirmed with `same_as`).
    atoms: HashMap<String, Vec<(&'a IrExpr, PathId)>>,
    /// Atom ids count down from the top of the id space, far above any
    /// interned path ([`hookc_runtime::limits`] bounds those).
    next_atom: u32,
    /// The atoms that are string tests with a constant needle.
    pub tests: StrTests,
}

impl<'a> Analyzer<'a> {
    /// An analyzer for conditions over `paths`, with no leaves yet.
    pub fn new(paths: &'a PathTable) -> Analyzer<'a> {
        Analyzer {
            leaves: Vec::new(),
            paths,
            atoms: HashMap::new(),
            next_atom: u32::MAX,
            tests: StrTests::default(),
        }
    }

    /// The atom of an opaque leaf: the same id for identical leaves.
    fn atom(&mut self, e: &'a IrExpr) -> Option<PathId> {
        let key = e.to_source(self.paths)?;
        let list = self.atoms.entry(key).or_default();
        if let Some((_, id)) = list.iter().find(|(x, _)| x.same_as(e)) {
            return Some(*id);
        }
        let id = PathId(self.next_atom);
        self.next_atom = self.next_atom.checked_sub(1)?;
        list.push((e, id));
        if let Some((receiver, pattern)) = string_test(e) {
            self.tests.insert(id, receiver, pattern);
        }
        Some(id)
    }

    /// The approximations of a condition.
    pub fn condition(&mut self, e: &'a IrExpr) -> Approx {
        self.expr(e, 0)
    }

    fn leaf_id(&mut self, e: &'a IrExpr) -> LeafId {
        let id = LeafId::try_from(self.leaves.len()).unwrap_or(LeafId::MAX);
        self.leaves.push(e);
        id
    }

    fn expr(&mut self, e: &'a IrExpr, depth: usize) -> Approx {
        if depth > MAX_DEPTH {
            return unknown(BTreeSet::new(), Vec::new());
        }
        let d = depth + 1;
        match &e.kind {
            IrExprKind::Const(Const::Bool(b)) => {
                let id = self.leaf_id(e);
                let yes = Bounds::exact(Dnf::top());
                let no = Bounds::exact(Dnf::bottom(Some(vec![id])));
                if *b {
                    Approx { t: yes, f: no }
                } else {
                    Approx { t: no, f: yes }
                }
            }
            IrExprKind::Const(_) => {
                // Not a bool: the condition is neither true nor false.
                let id = self.leaf_id(e);
                let none = Bounds::exact(Dnf::bottom(Some(vec![id])));
                Approx {
                    t: none.clone(),
                    f: none,
                }
            }
            IrExprKind::And(a, b) => {
                let (a, b) = (self.expr(a, d), self.expr(b, d));
                Approx {
                    t: Bounds::and(a.t, b.t),
                    f: Bounds::or(a.f, b.f),
                }
            }
            IrExprKind::Or(a, b) => {
                let (a, b) = (self.expr(a, d), self.expr(b, d));
                Approx {
                    t: Bounds::or(a.t, b.t),
                    f: Bounds::and(a.f, b.f),
                }
            }
            IrExprKind::Unary(UnaryOp::Not, a) => self.expr(a, d).not(),
            IrExprKind::Cond(c, x, y) => {
                let (c, x, y) = (self.expr(c, d), self.expr(x, d), self.expr(y, d));
                Approx {
                    t: Bounds::or(Bounds::and(c.t.clone(), x.t), Bounds::and(c.f.clone(), y.t)),
                    f: Bounds::or(Bounds::and(c.t, x.f), Bounds::and(c.f, y.f)),
                }
            }
            IrExprKind::SchemaMatch { check, .. } => self.expr(check, d),
            _ => self.leaf(e),
        }
    }

    fn leaf(&mut self, e: &'a IrExpr) -> Approx {
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
fn string_receiver(e: &IrExpr) -> Option<PathId> {
    match &e.kind {
        IrExprKind::Matches(recv, _) => match recv.kind {
            IrExprKind::Path(p) => Some(p),
            _ => None,
        },
        IrExprKind::Call(Builtin::Contains | Builtin::StartsWith | Builtin::EndsWith, args) => {
            match args.first().map(|a| &a.kind) {
                Some(IrExprKind::Path(p)) => Some(*p),
                _ => None,
            }
        }
        IrExprKind::Binary {
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

/// A string method of a path with a constant string argument
/// (`x.startsWith('a')`): the method, the path and the string.
fn path_method(e: &IrExpr) -> Option<(Builtin, PathId, &str)> {
    let IrExprKind::Call(f, args) = &e.kind else {
        return None;
    };
    let [recv, arg] = args.as_slice() else {
        return None;
    };
    match (&recv.kind, &arg.kind) {
        (IrExprKind::Path(p), IrExprKind::Const(Const::String(s))) => Some((*f, *p, s)),
        _ => None,
    }
}

/// A glob applied to a path: the path and the parsed glob.
fn path_glob(e: &IrExpr) -> Option<(PathId, crate::check::glob::Glob)> {
    let IrExprKind::Matches(recv, re) = &e.kind else {
        return None;
    };
    let IrExprKind::Path(p) = recv.kind else {
        return None;
    };
    Some((p, crate::check::glob::parse(re.glob.as_deref()?).ok()?))
}

/// A string test with a constant needle that the domain's sets do not
/// represent: `x.endsWith(s)`, `x.contains(s)`, the globs `*s` and `*s*`.
fn string_test(e: &IrExpr) -> Option<(PathId, StrPattern)> {
    if let Some((f, p, s)) = path_method(e) {
        return match f {
            Builtin::Contains => Some((p, StrPattern::Contains(s.to_owned()))),
            Builtin::EndsWith => Some((p, StrPattern::Suffix(s.to_owned()))),
            _ => None,
        };
    }
    let (p, g) = path_glob(e)?;
    let pattern = match g.as_infix() {
        Some(needle) => StrPattern::Contains(needle),
        None => StrPattern::Suffix(g.as_suffix()?),
    };
    Some((p, pattern))
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

/// The paths whose absence makes `e` an error for certain, whatever the
/// rest of the context (an `&&` or `||` absorbs an error of one side, so
/// only what both sides need counts).
pub(crate) fn certain_error_paths(e: &IrExpr) -> BTreeSet<PathId> {
    let mut out = BTreeSet::new();
    strict_paths(e, &mut out, 0);
    out
}

/// Paths whose absence makes `e` an error for certain.
fn strict_paths(e: &IrExpr, out: &mut BTreeSet<PathId>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    match &e.kind {
        IrExprKind::Path(p) => {
            out.insert(*p);
        }
        IrExprKind::Unary(_, a)
        | IrExprKind::Matches(a, _)
        | IrExprKind::Field(a, _)
        | IrExprKind::Macro { range: a, .. }
        | IrExprKind::Local { body: a, .. } => strict_paths(a, out, d),
        IrExprKind::Binary { lhs, rhs, .. } | IrExprKind::Index(lhs, rhs) => {
            strict_paths(lhs, out, d);
            strict_paths(rhs, out, d);
        }
        IrExprKind::Call(_, args) | IrExprKind::PatternCall { args, .. } => {
            for a in args {
                strict_paths(a, out, d);
            }
        }
        IrExprKind::And(a, b) | IrExprKind::Or(a, b) => {
            let (mut x, mut y) = (BTreeSet::new(), BTreeSet::new());
            strict_paths(a, &mut x, d);
            strict_paths(b, &mut y, d);
            out.extend(x.intersection(&y));
        }
        IrExprKind::Cond(c, a, b) => {
            strict_paths(c, out, d);
            let (mut x, mut y) = (BTreeSet::new(), BTreeSet::new());
            strict_paths(a, &mut x, d);
            strict_paths(b, &mut y, d);
            out.extend(x.intersection(&y));
        }
        IrExprKind::Const(_)
        | IrExprKind::List(_)
        | IrExprKind::Var { .. }
        | IrExprKind::HasPath(_)
        | IrExprKind::HasField(..)
        | IrExprKind::TypeIs(..)
        | IrExprKind::SchemaMatch { .. } => {}
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
fn path_and_const<'e>(lhs: &'e IrExpr, rhs: &'e IrExpr) -> Option<(PathId, &'e Const, bool)> {
    match (&lhs.kind, &rhs.kind) {
        (IrExprKind::Path(p), IrExprKind::Const(c)) => Some((*p, c, false)),
        (IrExprKind::Const(c), IrExprKind::Path(p)) => Some((*p, c, true)),
        _ => None,
    }
}

/// The exact (or kind-bounded) sets of a single-path leaf.
fn exact_leaf(e: &IrExpr) -> Option<(PathId, LeafSets)> {
    let bools = || ValueSet::bits(Bits::TRUE.or(Bits::FALSE));
    match &e.kind {
        IrExprKind::Path(p) => Some((
            *p,
            LeafSets::exact(ValueSet::bits(Bits::TRUE), ValueSet::bits(Bits::FALSE)),
        )),
        IrExprKind::HasPath(p) => Some((
            *p,
            LeafSets::exact(ValueSet::present(), ValueSet::bits(Bits::MISSING)),
        )),
        IrExprKind::TypeIs(inner, k) => {
            let IrExprKind::Path(p) = inner.kind else {
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
        IrExprKind::Binary { op, lhs, rhs, .. } => {
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
        IrExprKind::Call(..) => match path_method(e)? {
            (Builtin::StartsWith, p, s) => Some((p, string_leaf(StrSet::starting_with(s)))),
            _ => None,
        },
        IrExprKind::Matches(..) => {
            // A glob without wildcards or classes is an equality on strings,
            // one that is literal up to its only `*` (at the end) a
            // `startsWith`. Any other glob, and every regex, is an atom.
            let (p, g) = path_glob(e)?;
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
            let v = crate::lint::domain::exact_number(c)?;
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
