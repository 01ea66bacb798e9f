//! The lints' abstract domain: sets of *states* of one context path.
//!
//! A state is either "missing" (the path does not resolve) or the JSON value
//! found there. A [`ValueSet`] is a set of states, closed under union,
//! intersection and complement, and every operation on it is exact:
//!
//! - missing, `null`, `true`, `false`, "any list" and "any object" are one
//!   bit each;
//! - numbers are a [`NumSet`]: any finite union of points and open, closed or
//!   half-open intervals of the real line. Ints and doubles are not told
//!   apart, because the language does not tell them apart either (`1 == 1.0`,
//!   mixed ordering by value; see [`hookc_runtime::internals::value`]);
//! - strings are a [`StrSet`]: membership decided by exact strings and
//!   prefixes (`startsWith`), each overriding the shorter prefixes it
//!   extends.
//!
//! A state is a JSON value as `serde_json::Value` holds it, so a number is
//! finite: there is no NaN and no infinity in a context (which is why
//! `!(x > 5)` and `x <= 5` are the same set here).
//!
//! Emptiness and inclusion are decided over the real numbers and over all
//! strings. Runtime numbers are a subset of the reals, so "empty over the
//! reals" implies "empty at run time": the domain may fail to see that a set
//! is empty (an open interval between two adjacent doubles), never the other
//! way round.

use std::collections::BTreeMap;

mod pattern;
pub use pattern::StrPattern;

/// A set of real numbers: the line cut at finitely many points, each point
/// and each open segment between cuts in or out.
///
/// INVARIANT (canonical cuts): cuts are sorted, finite, distinct, never
/// `-0.0`, and no cut could be removed without changing the set (its point
/// and the segment after it have the value of the segment before it). Only
/// the constructors and `NumSet::combine` build sets, and both keep it.
#[derive(Debug, Clone, PartialEq)]
pub struct NumSet {
    /// The segment before the first cut (from minus infinity).
    first: bool,
    cuts: Vec<Cut>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Cut {
    at: f64,
    /// The point itself.
    on: bool,
    /// The open segment up to the next cut (or plus infinity).
    after: bool,
}

/// A comparison operator against a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    /// `c OP x` as `x OP' c`.
    pub fn flip(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
        }
    }

    /// The boolean of `x OP c` for an ordering of `x` against `c`.
    pub fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Greater, Less};
        match self {
            Cmp::Lt => ord == Less,
            Cmp::Le => ord != Greater,
            Cmp::Gt => ord == Greater,
            Cmp::Ge => ord != Less,
        }
    }
}

/// How two sets combine, bit by bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetOp {
    And,
    Or,
    AndNot,
}

impl SetOp {
    fn apply(self, a: bool, b: bool) -> bool {
        match self {
            SetOp::And => a && b,
            SetOp::Or => a || b,
            SetOp::AndNot => a && !b,
        }
    }
}

/// Largest magnitude (exclusive) of a number constant the domain takes:
/// below 2^53 every int is an exact double, and mixed int/double ordering
/// (which converts the int) agrees with ordering by value.
pub const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// A number constant as the domain's real, if it is one the domain takes
/// exactly (finite, magnitude below [`EXACT_LIMIT`]).
pub fn exact_number(c: &crate::ir::Const) -> Option<f64> {
    let v = match c {
        crate::ir::Const::Int(i) => {
            if i.unsigned_abs() >= 1u64 << 53 {
                return None;
            }
            *i as f64
        }
        crate::ir::Const::Double(d) => *d,
        _ => return None,
    };
    (v.is_finite() && v.abs() < EXACT_LIMIT).then_some(if v == 0.0 { 0.0 } else { v })
}

impl NumSet {
    /// No number.
    pub fn empty() -> NumSet {
        NumSet {
            first: false,
            cuts: Vec::new(),
        }
    }

    /// Every number.
    pub fn full() -> NumSet {
        NumSet {
            first: true,
            cuts: Vec::new(),
        }
    }

    /// `{x | x OP c}` for a finite `c`.
    pub fn compare(op: Cmp, c: f64) -> NumSet {
        let c = if c == 0.0 { 0.0 } else { c };
        if !c.is_finite() {
            return NumSet::empty();
        }
        let (first, on, after) = match op {
            Cmp::Lt => (true, false, false),
            Cmp::Le => (true, true, false),
            Cmp::Gt => (false, false, true),
            Cmp::Ge => (false, true, true),
        };
        NumSet {
            first,
            cuts: vec![Cut { at: c, on, after }],
        }
    }

    /// The finite set of these points (non-finite ones are ignored).
    pub fn points(values: impl IntoIterator<Item = f64>) -> NumSet {
        let mut v: Vec<f64> = values
            .into_iter()
            .filter(|x| x.is_finite())
            .map(|x| if x == 0.0 { 0.0 } else { x })
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        NumSet {
            first: false,
            cuts: v
                .into_iter()
                .map(|at| Cut {
                    at,
                    on: true,
                    after: false,
                })
                .collect(),
        }
    }

    /// The last cut at or before `x`.
    fn cut_at_or_before(&self, x: f64) -> Option<&Cut> {
        let n = self.cuts.partition_point(|c| c.at <= x);
        n.checked_sub(1).and_then(|i| self.cuts.get(i))
    }

    /// Whether `x` is in the set.
    pub fn contains(&self, x: f64) -> bool {
        match self.cut_at_or_before(x) {
            Some(c) if c.at == x => c.on,
            Some(c) => c.after,
            None => self.first,
        }
    }

    /// Whether the open segment right after `x` (up to the next cut of this
    /// set beyond `x`) is in the set.
    fn after(&self, x: f64) -> bool {
        self.cut_at_or_before(x).map_or(self.first, |c| c.after)
    }

    fn combine(&self, other: &NumSet, op: SetOp) -> NumSet {
        let mut at: Vec<f64> = self.cuts.iter().chain(&other.cuts).map(|c| c.at).collect();
        at.sort_by(f64::total_cmp);
        at.dedup();
        let first = op.apply(self.first, other.first);
        let mut cuts: Vec<Cut> = Vec::with_capacity(at.len());
        let mut prev = first;
        for x in at {
            let on = op.apply(self.contains(x), other.contains(x));
            let after = op.apply(self.after(x), other.after(x));
            if on == prev && after == prev {
                continue;
            }
            cuts.push(Cut { at: x, on, after });
            prev = after;
        }
        NumSet { first, cuts }
    }

    /// Whether `rel(a, b)` holds for the membership of some number in
    /// `self` (a) and `other` (b): checked at every cut of either set and on
    /// every segment between consecutive cuts, without building a set.
    fn exists(&self, other: &NumSet, rel: impl Fn(bool, bool) -> bool) -> bool {
        if rel(self.first, other.first) {
            return true;
        }
        let (mut i, mut j) = (self.cuts.iter().peekable(), other.cuts.iter().peekable());
        loop {
            let x = match (i.peek(), j.peek()) {
                (Some(a), Some(b)) => a.at.min(b.at),
                (Some(a), None) => a.at,
                (None, Some(b)) => b.at,
                (None, None) => return false,
            };
            i.next_if(|c| c.at == x);
            j.next_if(|c| c.at == x);
            if rel(self.contains(x), other.contains(x)) || rel(self.after(x), other.after(x)) {
                return true;
            }
        }
    }

    /// Whether no number is in the set.
    pub fn is_empty(&self) -> bool {
        !self.first && self.cuts.iter().all(|c| !c.on && !c.after)
    }

    /// Whether every number is in the set.
    pub fn is_full(&self) -> bool {
        self.first && self.cuts.iter().all(|c| c.on && c.after)
    }

    /// The points, when the set is a finite set of points.
    pub fn finite_points(&self) -> Option<Vec<f64>> {
        if self.first || self.cuts.iter().any(|c| c.after) {
            return None;
        }
        Some(self.cuts.iter().filter(|c| c.on).map(|c| c.at).collect())
    }

    /// The set as text (`(-inf, 5) ∪ {7}`), for tests.
    #[cfg(test)]
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let mut open_from: Option<(String, bool)> = self.first.then(|| ("-inf".to_owned(), false));
        for c in &self.cuts {
            match (&open_from, c.on, c.after) {
                (Some(_), true, true) => {}
                (Some((from, closed)), on, after) => {
                    let l = if *closed { "[" } else { "(" };
                    let r = if on { "]" } else { ")" };
                    parts.push(format!("{l}{from}, {}{r}", c.at));
                    open_from = after.then(|| (c.at.to_string(), false));
                }
                (None, true, true) => open_from = Some((c.at.to_string(), true)),
                (None, true, false) => parts.push(format!("{{{}}}", c.at)),
                (None, false, true) => open_from = Some((c.at.to_string(), false)),
                (None, false, false) => {}
            }
        }
        if let Some((from, closed)) = open_from {
            parts.push(format!("{}{from}, +inf)", if closed { "[" } else { "(" }));
        }
        if parts.is_empty() {
            "{}".to_owned()
        } else {
            parts.join(" ∪ ")
        }
    }
}

/// A set of strings decided by exact strings and prefixes: a string is in
/// the set per its exact entry if it has one, else per the longest prefix
/// entry it starts with, else per `root`.
///
/// INVARIANT (canonical entries): no prefix entry is empty, and no entry has
/// the value the set would give without it. Every constructor and
/// `StrSet::combine` keep this.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StrSet {
    root: bool,
    prefixes: BTreeMap<String, bool>,
    exact: BTreeMap<String, bool>,
}

impl StrSet {
    /// No string.
    pub fn empty() -> StrSet {
        StrSet::default()
    }

    /// Every string.
    pub fn full() -> StrSet {
        StrSet {
            root: true,
            ..StrSet::default()
        }
    }

    /// These strings.
    pub fn of<'a>(items: impl IntoIterator<Item = &'a str>) -> StrSet {
        StrSet {
            root: false,
            prefixes: BTreeMap::new(),
            exact: items.into_iter().map(|s| (s.to_owned(), true)).collect(),
        }
    }

    /// The strings starting with `p`.
    pub fn starting_with(p: &str) -> StrSet {
        if p.is_empty() {
            return StrSet::full();
        }
        StrSet {
            root: false,
            prefixes: [(p.to_owned(), true)].into_iter().collect(),
            exact: BTreeMap::new(),
        }
    }

    /// The value of the strings starting with `p` that no longer entry
    /// refines: the longest prefix entry `p` starts with (`p` itself
    /// included).
    fn prefix_value(&self, p: &str) -> bool {
        self.prefix_entry(p, true).unwrap_or(self.root)
    }

    /// The longest prefix entry that `p` starts with; `inclusive`: `p` itself counts.
    fn prefix_entry(&self, p: &str, inclusive: bool) -> Option<bool> {
        let mut best: Option<(usize, bool)> = None;
        for (q, v) in &self.prefixes {
            let fits = p.starts_with(q.as_str()) && (inclusive || q.len() < p.len());
            if fits && best.is_none_or(|(len, _)| q.len() > len) {
                best = Some((q.len(), *v));
            }
        }
        best.map(|(_, v)| v)
    }

    /// Whether `s` is in the set.
    pub fn contains(&self, s: &str) -> bool {
        match self.exact.get(s) {
            Some(v) => *v,
            None => self.prefix_value(s),
        }
    }

    fn combine(&self, other: &StrSet, op: SetOp) -> StrSet {
        let root = op.apply(self.root, other.root);
        let mut prefixes: BTreeMap<String, bool> = BTreeMap::new();
        for q in self.prefixes.keys().chain(other.prefixes.keys()) {
            if !prefixes.contains_key(q) {
                let v = op.apply(self.prefix_value(q), other.prefix_value(q));
                prefixes.insert(q.clone(), v);
            }
        }
        let mut exact: BTreeMap<String, bool> = BTreeMap::new();
        for s in self.exact.keys().chain(other.exact.keys()) {
            if !exact.contains_key(s) {
                let v = op.apply(self.contains(s), other.contains(s));
                exact.insert(s.clone(), v);
            }
        }
        let full = StrSet {
            root,
            prefixes,
            exact,
        };
        // Drop every entry that repeats what it would inherit. Deciding all
        // of them against the unpruned set is right: a dropped entry has its
        // parent's value, so what its own children inherit does not change.
        let prefixes = full
            .prefixes
            .iter()
            .filter(|(q, v)| full.prefix_entry(q, false).unwrap_or(full.root) != **v)
            .map(|(q, v)| (q.clone(), *v))
            .collect();
        let exact = full
            .exact
            .iter()
            .filter(|(s, v)| full.prefix_value(s) != **v)
            .map(|(s, v)| (s.clone(), *v))
            .collect();
        StrSet {
            root,
            prefixes,
            exact,
        }
    }

    /// The strings in `self` but not in `other`.
    pub fn minus(&self, other: &StrSet) -> StrSet {
        self.combine(other, SetOp::AndNot)
    }

    /// Whether `rel(a, b)` holds for the membership of some string in
    /// `self` (a) and `other` (b), without building a set: the entries of
    /// both sets decide every string (see [`StrSet::is_empty`]).
    fn exists(&self, other: &StrSet, rel: impl Fn(bool, bool) -> bool) -> bool {
        rel(self.root, other.root)
            || self
                .prefixes
                .keys()
                .chain(other.prefixes.keys())
                .any(|q| rel(self.prefix_value(q), other.prefix_value(q)))
            || self
                .exact
                .keys()
                .chain(other.exact.keys())
                .any(|s| rel(self.contains(s), other.contains(s)))
    }

    /// Whether no string is in the set. (An entry that is in adds at least
    /// one string: a prefix entry has infinitely many extensions and only
    /// finitely many entries refine it.)
    pub fn is_empty(&self) -> bool {
        !self.root
            && self
                .prefixes
                .values()
                .chain(self.exact.values())
                .all(|v| !v)
    }

    /// Whether every string is in the set.
    pub fn is_full(&self) -> bool {
        self.root
            && self
                .prefixes
                .values()
                .chain(self.exact.values())
                .all(|v| *v)
    }

    /// The strings, when the set is finite.
    pub fn finite(&self) -> Option<Vec<&str>> {
        if self.root || self.prefixes.values().any(|v| *v) {
            return None;
        }
        Some(
            self.exact
                .iter()
                .filter(|(_, v)| **v)
                .map(|(s, _)| s.as_str())
                .collect(),
        )
    }
}

/// One state bit of a [`ValueSet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits(u8);

impl Bits {
    /// The path does not resolve.
    pub const MISSING: Bits = Bits(1);
    /// `null`
    pub const NULL: Bits = Bits(1 << 1);
    /// `true`
    pub const TRUE: Bits = Bits(1 << 2);
    /// `false`
    pub const FALSE: Bits = Bits(1 << 3);
    /// Any list.
    pub const LIST: Bits = Bits(1 << 4);
    /// Any object.
    pub const OBJECT: Bits = Bits(1 << 5);
    /// No bit.
    pub const NONE: Bits = Bits(0);
    /// Every bit.
    pub const ALL: Bits = Bits(0x3f);

    /// Union.
    pub const fn or(self, other: Bits) -> Bits {
        Bits(self.0 | other.0)
    }

    fn combine(self, other: Bits, op: SetOp) -> Bits {
        Bits(match op {
            SetOp::And => self.0 & other.0,
            SetOp::Or => self.0 | other.0,
            SetOp::AndNot => self.0 & !other.0,
        })
    }

    /// Whether every bit of `other` is set.
    pub const fn has(self, other: Bits) -> bool {
        self.0 & other.0 == other.0
    }
}

/// A summary of a [`ValueSet`] that unions keep: see [`ValueSet::outline`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outline {
    bits: Bits,
    strs: bool,
    nums: bool,
}

impl Default for Outline {
    fn default() -> Self {
        Outline {
            bits: Bits::NONE,
            strs: false,
            nums: false,
        }
    }
}

impl Outline {
    /// The outline of the union.
    pub fn or(self, other: Outline) -> Outline {
        Outline {
            bits: self.bits.or(other.bits),
            strs: self.strs || other.strs,
            nums: self.nums || other.nums,
        }
    }
}

/// A set of states of one path: see the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueSet {
    bits: Bits,
    nums: NumSet,
    strs: StrSet,
}

/// One state, when a set is a finite set of states (the keys of the
/// shadowing index).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// `null`
    Null,
    /// A bool.
    Bool(bool),
    /// A number, by the bits of its (canonical, never `-0.0`) double.
    Num(u64),
    /// A string.
    Str(String),
}

impl ValueSet {
    /// No state.
    pub fn none() -> ValueSet {
        ValueSet {
            bits: Bits::NONE,
            nums: NumSet::empty(),
            strs: StrSet::empty(),
        }
    }

    /// Every state.
    pub fn all() -> ValueSet {
        ValueSet {
            bits: Bits::ALL,
            nums: NumSet::full(),
            strs: StrSet::full(),
        }
    }

    /// Only these bits.
    pub fn bits(bits: Bits) -> ValueSet {
        ValueSet {
            bits,
            ..ValueSet::none()
        }
    }

    /// Every value (every state but missing).
    pub fn present() -> ValueSet {
        ValueSet::all().minus(&ValueSet::bits(Bits::MISSING))
    }

    /// These numbers.
    pub fn numbers(nums: NumSet) -> ValueSet {
        ValueSet {
            nums,
            ..ValueSet::none()
        }
    }

    /// These strings.
    pub fn strings(strs: StrSet) -> ValueSet {
        ValueSet {
            strs,
            ..ValueSet::none()
        }
    }

    /// Every number.
    pub fn any_number() -> ValueSet {
        ValueSet::numbers(NumSet::full())
    }

    /// The one value of a scalar constant (`null`, a bool, a number the
    /// domain takes exactly, a string); `None` for anything else.
    pub fn of_const(c: &crate::ir::Const) -> Option<ValueSet> {
        use crate::ir::Const;
        Some(match c {
            Const::Null => ValueSet::bits(Bits::NULL),
            Const::Bool(true) => ValueSet::bits(Bits::TRUE),
            Const::Bool(false) => ValueSet::bits(Bits::FALSE),
            Const::Int(_) | Const::Double(_) => {
                ValueSet::numbers(NumSet::points([exact_number(c)?]))
            }
            Const::String(s) => ValueSet::strings(StrSet::of([s.as_str()])),
            Const::List(_) | Const::Object(_) => return None,
        })
    }

    /// The values of a list of scalar constants (what `x in [...]` is true
    /// for), built in one pass; `None` if one is not a scalar the domain takes.
    pub fn of_consts(items: &[crate::ir::Const]) -> Option<ValueSet> {
        use crate::ir::Const;
        let mut bits = Bits::NONE;
        let mut nums = Vec::new();
        let mut strs = Vec::new();
        for c in items {
            match c {
                Const::Null => bits = bits.or(Bits::NULL),
                Const::Bool(true) => bits = bits.or(Bits::TRUE),
                Const::Bool(false) => bits = bits.or(Bits::FALSE),
                Const::Int(_) | Const::Double(_) => nums.push(exact_number(c)?),
                Const::String(s) => strs.push(s.as_str()),
                Const::List(_) | Const::Object(_) => return None,
            }
        }
        Some(ValueSet {
            bits,
            nums: NumSet::points(nums),
            strs: StrSet::of(strs),
        })
    }

    fn combine(&self, other: &ValueSet, op: SetOp) -> ValueSet {
        ValueSet {
            bits: self.bits.combine(other.bits, op),
            nums: self.nums.combine(&other.nums, op),
            strs: self.strs.combine(&other.strs, op),
        }
    }

    /// Intersection.
    pub fn and(&self, other: &ValueSet) -> ValueSet {
        self.combine(other, SetOp::And)
    }

    /// Union.
    pub fn or(&self, other: &ValueSet) -> ValueSet {
        self.combine(other, SetOp::Or)
    }

    /// Difference.
    pub fn minus(&self, other: &ValueSet) -> ValueSet {
        self.combine(other, SetOp::AndNot)
    }

    /// Complement.
    pub fn not(&self) -> ValueSet {
        ValueSet::all().minus(self)
    }

    /// Whether no state is in the set.
    pub fn is_empty(&self) -> bool {
        self.bits == Bits::NONE && self.nums.is_empty() && self.strs.is_empty()
    }

    /// Whether every state is in the set.
    pub fn is_all(&self) -> bool {
        self.bits == Bits::ALL && self.nums.is_full() && self.strs.is_full()
    }

    /// Whether every state of `self` is in `other`.
    pub fn within(&self, other: &ValueSet) -> bool {
        let outside = |a: bool, b: bool| a && !b;
        self.bits.combine(other.bits, SetOp::AndNot) == Bits::NONE
            && !self.nums.exists(&other.nums, outside)
            && !self.strs.exists(&other.strs, outside)
    }

    /// Whether `self` may lie inside the union of `parts`, by a test far
    /// cheaper than building the union (see [`ValueSet::may_be_within`]).
    pub fn may_be_within_union(&self, parts: &[&ValueSet]) -> bool {
        let outline = parts
            .iter()
            .fold(Outline::default(), |o, s| o.or(s.outline()));
        self.may_be_within(outline)
    }

    /// What the set has beyond its entries and cuts: its state bits,
    /// whether it holds strings outside every entry, numbers below every cut.
    pub fn outline(&self) -> Outline {
        Outline {
            bits: self.bits,
            strs: self.strs.root,
            nums: self.nums.first,
        }
    }

    /// `false` when the set surely is not inside a set with this outline:
    /// it has a state bit, strings outside every entry (a set with none
    /// has only those of its finitely many entries) or numbers below every
    /// cut that the outline has not.
    pub fn may_be_within(&self, outline: Outline) -> bool {
        self.bits.combine(outline.bits, SetOp::AndNot) == Bits::NONE
            && (outline.strs || !self.strs.root)
            && (outline.nums || !self.nums.first)
    }

    /// Whether the sets share a state.
    pub fn meets(&self, other: &ValueSet) -> bool {
        let both = |a: bool, b: bool| a && b;
        self.bits.combine(other.bits, SetOp::And) != Bits::NONE
            || self.nums.exists(&other.nums, both)
            || self.strs.exists(&other.strs, both)
    }

    /// The union of many sets, in balanced rounds (each set is copied
    /// about log₂(n) times, not n times).
    pub fn union_all(mut sets: Vec<ValueSet>) -> ValueSet {
        while sets.len() > 1 {
            let mut next = Vec::with_capacity(sets.len().div_ceil(2));
            let mut iter = sets.into_iter();
            while let Some(a) = iter.next() {
                next.push(match iter.next() {
                    Some(b) => a.or(&b),
                    None => a,
                });
            }
            sets = next;
        }
        sets.pop().unwrap_or_else(ValueSet::none)
    }

    /// The strings of the set.
    pub fn strs(&self) -> &StrSet {
        &self.strs
    }

    /// Whether every state is a string.
    pub fn only_strings(&self) -> bool {
        self.bits == Bits::NONE && self.nums.is_empty()
    }

    /// Whether the path may be missing.
    pub fn may_be_missing(&self) -> bool {
        self.bits.has(Bits::MISSING)
    }

    /// The states, when the set is a finite set of values (no missing, no
    /// lists or objects, no intervals, no prefixes).
    pub fn finite(&self) -> Option<Vec<Scalar>> {
        if self.bits.has(Bits::MISSING) || self.bits.has(Bits::LIST) || self.bits.has(Bits::OBJECT)
        {
            return None;
        }
        let mut out = Vec::new();
        for (bit, s) in [
            (Bits::NULL, Scalar::Null),
            (Bits::TRUE, Scalar::Bool(true)),
            (Bits::FALSE, Scalar::Bool(false)),
        ] {
            if self.bits.has(bit) {
                out.push(s);
            }
        }
        out.extend(
            self.nums
                .finite_points()?
                .into_iter()
                .map(|x| Scalar::Num(x.to_bits())),
        );
        out.extend(
            self.strs
                .finite()?
                .into_iter()
                .map(|s| Scalar::Str(s.to_owned())),
        );
        Some(out)
    }
}

#[cfg(test)]
mod tests;
