//! The hook index: an event's hooks found through the constants their
//! conditions require, whatever the position of the test in the condition
//! and whatever the shapes of the hooks around it.
//!
//! A hook's condition *requires* an operand of its top-level `&&` chain
//! ([`HookShape::conjuncts`]): the condition is `true` only if every operand
//! is. So it does each operand of the `&&` chain of a `b` in `a ? b : false`
//! ([`HookShape::sequenced_conjuncts`]), which the index keys by only when
//! asked to (`sequenced`: in a program whose condition errors are
//! no-matches, [`super::dispatch::errors_are_no_matches`]), since where
//! such an operand is `false` the condition may be an error rather than
//! `false`. Of those the index uses `path == c` (for a string, number or bool
//! `c`), `path in [c1, ...]` (a list of such constants, hashed as a set or
//! not) and `path.startsWith('p')`: the first two are `true` only when the
//! path's value equals one of a few constants (`docs/src/semantics.md#equality`),
//! the last only when it is a string whose first `p.len()` bytes are `p`. A
//! *column* of the index ([`Probe`]) reads one path's value, or its first
//! bytes, and a hook keyed in a column by such an operand is a *candidate*
//! only when the context's key there is one of its keys.
//!
//! Three more kinds of column serve other required operands:
//!
//! - a *range* column keys `path < c`, `path >= c` and the like (numbers
//!   only: an ordering of another kind is an error or `false`), meeting
//!   the bounds a hook puts on one path into an interval; the number line
//!   is cut at the hooks' bounds (at most [`MAX_CUTS`], fewer where the
//!   intervals are wide) and a number finds its cell's hooks;
//! - a *substring* column keys `path.contains('s')` and `path.matches(re)`
//!   by a literal every match of `re` contains (`value::policy_regex`),
//!   and finds every literal of a string in one Aho-Corasick scan;
//! - an `||` of such operands on one path ([`HookShape::any_of`]) is keyed
//!   by the union of what each allows: `a || b` is `true` only where one
//!   side is (prefixes of different lengths at the shortest, an equality
//!   with a long enough string by its first bytes, intervals by their
//!   hull).
//!
//! Each is a superset of the hooks that can match, never fewer, so the
//! answers are exactly those of running the hooks one by one
//! (`crates/hookc/tests/suite/hook_index.rs` compares them on random
//! policies of every kind of column).
//!
//! Per event, the index picks the columns that rule out the most hooks
//! (greedily, at most [`MAX_PATHS`]), keys each hook by the requirement
//! whose columns were chosen first (an `||` across paths in each of its
//! columns, once all of them are chosen), and keeps the hooks keyed by none
//! as always-candidates. An evaluation looks each column up once and gathers
//! the candidates into a bit set on the stack, read in evaluation order
//! ([`HookIndex::find_candidate`]); every candidate runs in full, so the
//! matches, collected hooks included, are exactly those of evaluating the
//! hooks one by one.
//!
//! Numbers are keyed by their value as a double, `-0.0` as `0.0`: equal
//! numbers (`1 == 1.0`; an int is compared with a double by converting it)
//! have one key. Ints beyond 2^53 may share a key without being equal, which
//! only adds candidates. A NaN constant, or a list holding a constant of
//! another kind (null, list, object), keys nothing: that test is left to the
//! hook's own run.
//!
//! Like the equality dispatch of [`super::dispatch`], the index is derived
//! at load from the verified bytecode through the code-shape decoder the
//! lowering writes with ([`crate::bytecode::shape`]); the artifact carries
//! nothing for it.

use crate::accel::fnv::FnvMap;
use crate::bytecode::shape::{Conjunct, HookShape, Leaf};
use crate::bytecode::{CmpOp, PathIdx, Program, RegexIdx};
use serde_json::Value;
use smallvec::SmallVec;

/// At most this many columns are looked up per evaluation.
pub const MAX_PATHS: usize = 16;

/// A column is indexed only if it rules out at least this many hooks on the
/// worst-case value (its hooks, less the most shared key's).
pub const MIN_GAIN: usize = 2;

/// The key of a constant, or of a context value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum IndexKey<'a> {
    Str(&'a str),
    /// A number's value as a double (see the module doc), by bits.
    Num(u64),
    Bool(bool),
}

impl IndexKey<'_> {
    /// The key of a JSON value: `None` for a kind the index does not key
    /// (null, list, object) and for NaN.
    fn of(v: &Value) -> Option<IndexKey<'_>> {
        match v {
            Value::String(s) => Some(IndexKey::Str(s)),
            Value::Bool(b) => Some(IndexKey::Bool(*b)),
            Value::Number(n) => {
                // As `Val::from_number` reads it: an int when it fits, then
                // converted to a double as `==` converts it.
                #[allow(clippy::cast_precision_loss, reason = "equality converts the same way")]
                let d = match n.as_i64() {
                    Some(i) => i as f64,
                    None => n.as_f64()?,
                };
                match d {
                    d if d.is_nan() => None,
                    0.0 => Some(IndexKey::Num(0)),
                    d => Some(IndexKey::Num(d.to_bits())),
                }
            }
            Value::Null | Value::Array(_) | Value::Object(_) => None,
        }
    }
}

/// What an index column reads of its path's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    /// The value, for hooks keyed by the constants it must equal.
    Value,
    /// A string's first bytes, for hooks keyed by `path.startsWith(p)`, `p`
    /// of this length.
    Prefix(usize),
    /// A number's place among the bounds of the hooks' ranges, for hooks
    /// keyed by `path < c`, `path >= c` and the like.
    Range,
    /// The literals a string contains, found in one scan, for hooks keyed
    /// by `path.contains(s)` and by a literal every match of
    /// `path.matches(re)` contains.
    Substring,
}

/// What an index column looks up: a path, read as [`ProbeKind`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The path.
    pub path: PathIdx,
    /// How its value is read.
    pub kind: ProbeKind,
}

impl Probe {
    /// The key of the path's value `v` in a key column (`None`: the path
    /// does not resolve, or its value is of a kind no hook of the column
    /// can match).
    #[inline]
    fn key(self, v: Option<&Value>) -> Option<IndexKey<'_>> {
        match (self.kind, v?) {
            (ProbeKind::Value, v) => IndexKey::of(v),
            (ProbeKind::Prefix(len), Value::String(s)) => s.get(..len).map(IndexKey::Str),
            (ProbeKind::Prefix(_) | ProbeKind::Range | ProbeKind::Substring, _) => None,
        }
    }
}

/// A column's hooks by what its probe reads.
#[derive(Debug, Clone, PartialEq)]
enum Column {
    Keys(KeyTable),
    Ranges(RangeTable),
    Substrings(SubstringTable),
}

impl Column {
    /// The positions that can match where the path's value is `v`.
    #[inline]
    fn candidates(&self, probe: Probe, v: Option<&Value>) -> CandidateList<'_> {
        match self {
            Column::Keys(table) => CandidateList::all(table.candidates(probe.key(v))),
            Column::Ranges(table) => CandidateList::all(match v {
                Some(Value::Number(n)) => n.as_f64().map_or(&[], |x| table.candidates(x)),
                _ => &[],
            }),
            Column::Substrings(table) => match v {
                Some(Value::String(s)) => table.candidates(s),
                _ => CandidateList::all(&[]),
            },
        }
    }
}

/// A substring column's literals, numbered in order of first use, and each
/// hook's mask of them (numbers modulo 64): what choosing the column needs,
/// without building its scanner.
struct SubstringKeys {
    literals: Vec<Box<str>>,
    masks: Vec<u64>,
    /// The most hooks one bit of the masks lists ([`Gathered::largest`]).
    largest: usize,
}

impl SubstringKeys {
    fn of(hooks: &[(u32, Vec<Box<str>>)]) -> SubstringKeys {
        let mut literals: Vec<Box<str>> = Vec::new();
        let mut ids: FnvMap<&str, usize> = FnvMap::default();
        let mut masks = Vec::with_capacity(hooks.len());
        let mut per_bit = [0usize; 64];
        for (_, keys) in hooks {
            let mut mask = 0u64;
            for key in keys {
                let id = *ids.entry(key).or_insert_with(|| {
                    literals.push(key.clone());
                    literals.len() - 1
                });
                mask |= 1 << (id % 64);
            }
            for (bit, count) in per_bit.iter_mut().enumerate() {
                *count += usize::from(mask & (1 << bit) != 0);
            }
            masks.push(mask);
        }
        SubstringKeys {
            literals,
            masks,
            largest: per_bit.into_iter().max().unwrap_or(0),
        }
    }
}

/// A substring column: the literals its hooks require, found in a string
/// by one Aho-Corasick scan, and its hooks (ascending) each with the
/// literals it is keyed by, as a mask of literal numbers modulo 64 (so a
/// column of more than 64 literals makes a few hooks candidates for a
/// literal they do not require, never the reverse).
#[derive(Debug, Clone)]
pub struct SubstringTable {
    literals: Vec<Box<str>>,
    finder: aho_corasick::AhoCorasick,
    hooks: Vec<u32>,
    masks: Vec<u64>,
}

impl PartialEq for SubstringTable {
    /// The finder is made from the literals.
    fn eq(&self, other: &SubstringTable) -> bool {
        (&self.literals, &self.hooks, &self.masks) == (&other.literals, &other.hooks, &other.masks)
    }
}

impl SubstringTable {
    /// The table of `hooks` (position, the literals it is keyed by;
    /// ascending positions); `None` when the scanner cannot be built.
    fn new(hooks: &[(u32, Vec<Box<str>>)]) -> Option<SubstringTable> {
        let keyed = SubstringKeys::of(hooks);
        let finder =
            aho_corasick::AhoCorasick::new(keyed.literals.iter().map(|l| l.as_bytes())).ok()?;
        Some(SubstringTable {
            literals: keyed.literals,
            finder,
            hooks: hooks.iter().map(|(pos, _)| *pos).collect(),
            masks: keyed.masks,
        })
    }

    /// The hooks one of whose literals `s` contains.
    #[inline]
    fn candidates(&self, s: &str) -> CandidateList<'_> {
        let mut found = 0u64;
        for m in self.finder.find_overlapping_iter(s) {
            found |= 1 << (m.pattern().as_usize() % 64);
        }
        if found == 0 {
            return CandidateList::all(&[]);
        }
        CandidateList {
            list: &self.hooks,
            masks: &self.masks,
            found,
        }
    }
}

/// The closed interval a hook's ranges on one path allow (an endpoint may
/// be infinite): a superset of what they allow, since a strict bound is
/// taken as closed. Numbers are compared as doubles: an int is converted
/// by rounding to the nearest double, which never reverses an order (`a <
/// b` gives `a as f64 <= b as f64`), so a number its range allows is
/// always in the interval.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Interval {
    lo: f64,
    hi: f64,
}

impl Interval {
    const ALL: Interval = Interval {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// The interval `path OP c` allows, for an ordering `OP`.
    fn of(op: CmpOp, c: f64) -> Option<Interval> {
        match op {
            CmpOp::Lt | CmpOp::Le => Some(Interval {
                hi: c,
                ..Interval::ALL
            }),
            CmpOp::Gt | CmpOp::Ge => Some(Interval {
                lo: c,
                ..Interval::ALL
            }),
            CmpOp::Eq | CmpOp::Ne => None,
        }
    }

    fn meet(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    fn hull(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// A range column: the number line cut at some of the hooks' bounds into
/// cells `[cuts[i - 1], cuts[i])` (the first from minus infinity, the last
/// to infinity), each listing the hooks whose interval meets it. A number
/// looks up its one cell: every hook whose range allows it is there (with
/// some whose range does not, where a cell holds more than one bound).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RangeTable {
    cuts: Vec<f64>,
    cells: Vec<Vec<u32>>,
}

/// At most this many cuts per range column: a lookup is a binary search
/// over them.
pub const MAX_CUTS: usize = 64;

impl RangeTable {
    /// The table of `hooks` (position, interval; ascending positions),
    /// holding at most about [`RANGE_ENTRIES_PER_HOOK`] entries a hook:
    /// fewer cuts where the intervals are wide.
    fn new(hooks: &[(u32, Interval)]) -> RangeTable {
        let mut bounds: Vec<f64> = hooks
            .iter()
            .flat_map(|(_, i)| [i.lo, i.hi])
            .filter(|b| b.is_finite())
            .collect();
        bounds.sort_by(f64::total_cmp);
        // `-0.0` and `0.0` are one cut: they compare equal.
        bounds.dedup_by(|a, b| a == b);
        let mut cuts = thin(&bounds, MAX_CUTS);
        let budget = hooks.len().saturating_mul(RANGE_ENTRIES_PER_HOOK) + MAX_CUTS;
        loop {
            let spans: Vec<(usize, usize)> = hooks
                .iter()
                .map(|(_, i)| (cell_of(&cuts, i.lo), cell_of(&cuts, i.hi)))
                .collect();
            let entries: usize = spans.iter().map(|&(a, b)| (b + 1).saturating_sub(a)).sum();
            if entries > budget && cuts.len() > 1 {
                cuts = thin(&cuts, cuts.len() / 2);
                continue;
            }
            let mut cells = vec![Vec::new(); cuts.len() + 1];
            for (&(pos, interval), (a, b)) in hooks.iter().zip(spans) {
                // An empty interval (`x > 5 && x < 3`) allows no number.
                if interval.lo <= interval.hi {
                    for cell in cells.iter_mut().take(b + 1).skip(a) {
                        cell.push(pos);
                    }
                }
            }
            return RangeTable { cuts, cells };
        }
    }

    /// The positions whose interval can hold `x`.
    #[inline]
    fn candidates(&self, x: f64) -> &[u32] {
        self.cells
            .get(cell_of(&self.cuts, x))
            .map_or(&[], Vec::as_slice)
    }

    fn largest(&self) -> usize {
        self.cells.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// A range column lists a hook in at most about this many cells on
/// average (it cuts the line at fewer bounds until it does).
pub const RANGE_ENTRIES_PER_HOOK: usize = 8;

/// The cell of `x` (or of an interval's endpoint): how many cuts are at or
/// below it.
#[inline]
fn cell_of(cuts: &[f64], x: f64) -> usize {
    cuts.partition_point(|&c| c <= x)
}

/// At most `n` of the sorted `bounds`, evenly spread.
fn thin(bounds: &[f64], n: usize) -> Vec<f64> {
    if bounds.len() <= n {
        return bounds.to_vec();
    }
    let n = n.max(1);
    (0..n)
        .filter_map(|i| bounds.get(i * bounds.len() / n).copied())
        .collect()
}

/// One indexed path's hooks (positions in the event's hook list, ascending),
/// by key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyTable {
    strings: FnvMap<String, Vec<u32>>,
    numbers: FnvMap<u64, Vec<u32>>,
    bools: [Vec<u32>; 2],
}

impl KeyTable {
    fn insert(&mut self, key: IndexKey<'_>, pos: u32) {
        let list = match key {
            IndexKey::Str(s) => self.strings.entry(s.to_owned()).or_default(),
            IndexKey::Num(n) => self.numbers.entry(n).or_default(),
            IndexKey::Bool(b) => match self.bools.get_mut(usize::from(b)) {
                Some(list) => list,
                None => return,
            },
        };
        // A hook listing a value twice is one candidate.
        if list.last() != Some(&pos) {
            list.push(pos);
        }
    }

    /// The positions keyed by `key` (`None`: no keyed hook can match).
    #[inline]
    fn candidates(&self, key: Option<IndexKey<'_>>) -> &[u32] {
        let found = match key {
            Some(IndexKey::Str(s)) => self.strings.get(s),
            Some(IndexKey::Num(n)) => self.numbers.get(&n),
            Some(IndexKey::Bool(b)) => self.bools.get(usize::from(b)),
            None => None,
        };
        found.map_or(&[], Vec::as_slice)
    }

    fn largest(&self) -> usize {
        let lens = self.strings.values().chain(self.numbers.values());
        lens.chain(&self.bools).map(Vec::len).max().unwrap_or(0)
    }
}

/// The index of one event's hooks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookIndex {
    /// The event's hooks, in evaluation order: candidate lists hold
    /// positions in this list.
    hooks: Vec<u32>,
    /// The hooks keyed on no indexed path, as a set of positions (bit `i`
    /// of word `i / 64`).
    always: Vec<u64>,
    /// Whether `always` holds a hook.
    has_always: bool,
    /// The index's columns, each with its table.
    paths: Vec<(Probe, Column)>,
}

/// What a hook's required tests on one probe allow: the constants the
/// value (or its prefix) must be one of, the interval a number must fall
/// in, or the literals one of which the string must contain.
#[derive(Debug, Clone, PartialEq)]
enum Allowed<'p> {
    Keys(Vec<IndexKey<'p>>),
    Range(Interval),
    /// One of these literals (none empty) must be in the string.
    Literals(Vec<Box<str>>),
}

impl HookIndex {
    /// The index of `hooks` (an event's hooks of a verified program, in
    /// evaluation order), or `None` when no path is worth indexing. With
    /// `sequenced`, hooks are keyed by their
    /// [`HookShape::sequenced_conjuncts`] too: only for a program whose
    /// condition errors are no-matches (see the module doc).
    pub fn new(
        program: &Program,
        shapes: &[HookShape],
        hooks: &[u32],
        sequenced: bool,
        literal: &RegexLiteral<'_>,
    ) -> Option<HookIndex> {
        let requirements: Vec<Vec<Requirement<'_>>> = hooks
            .iter()
            .map(|&h| {
                shapes.get(h as usize).map_or_else(Vec::new, |shape| {
                    requirements(program, shape, sequenced, literal)
                })
            })
            .collect();
        // Columns, greedily: each rules out the most of the hooks not yet
        // keyed. A hook is keyed once every probe of one of its
        // requirements is a column.
        let mut assigned = vec![false; hooks.len()];
        let mut probes: Vec<Probe> = Vec::new();
        while probes.len() < MAX_PATHS {
            let Some(probe) = best_probe(&requirements, &assigned, &probes) else {
                break;
            };
            probes.push(probe);
            for (a, rs) in assigned.iter_mut().zip(&requirements) {
                *a = *a || rs.iter().any(|r| covered(r, &probes));
            }
        }
        if probes.is_empty() {
            return None;
        }
        // Each hook in the columns of its covered requirement whose
        // columns were chosen first (the greedy choice rules out the most),
        // with what each alternative allows; the rest always run.
        let mut gathered: Vec<Gathered> = probes.iter().map(|p| Gathered::new(p.kind)).collect();
        let mut always = vec![0u64; hooks.len().div_ceil(64)];
        let rank = |r: &Requirement<'_>| {
            r.iter()
                .filter_map(|(p, _)| probes.iter().position(|c| c == p))
                .max()
                .map(|last| (last, r.len()))
        };
        for (pos, rs) in requirements.iter().enumerate() {
            let best = rs
                .iter()
                .filter(|r| covered(r, &probes))
                .min_by_key(|r| rank(r));
            // A hook is in every column of its requirement, or runs always:
            // never neither (it would never be tried).
            let keyed = match (best, u32::try_from(pos)) {
                (Some(r), Ok(at_pos)) => r.iter().all(|(probe, allowed)| {
                    let at = probes.iter().position(|p| p == probe);
                    at.and_then(|at| gathered.get_mut(at))
                        .is_some_and(|g| g.add(at_pos, allowed))
                }),
                _ => false,
            };
            if !keyed {
                if let Some(word) = always.get_mut(pos / 64) {
                    *word |= 1 << (pos % 64);
                }
            }
        }
        // A column that cannot be built (a substring scanner refused): no
        // index, rather than hooks keyed in a column no lookup reads.
        let paths = probes
            .into_iter()
            .zip(gathered)
            .map(|(probe, g)| Some((probe, g.column()?)))
            .collect::<Option<Vec<_>>>()?;
        Some(HookIndex {
            hooks: hooks.to_vec(),
            has_always: always.iter().any(|&w| w != 0),
            always,
            paths,
        })
    }

    /// The columns the index looks up.
    pub fn paths(&self) -> impl Iterator<Item = Probe> + '_ {
        self.paths.iter().map(|(p, _)| *p)
    }

    /// The hooks keyed on some indexed path (for tests and tools).
    pub fn keyed_hooks(&self) -> usize {
        self.hooks.len() - self.always()
    }

    /// The hooks keyed on no indexed path, which every evaluation tries.
    pub fn always(&self) -> usize {
        self.always.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The first candidate for a context, in evaluation order, for which
    /// `pred` holds (`value` gives each indexed path's value): the hooks
    /// that can match are tried in order until one is taken.
    ///
    /// The candidates are gathered a window of `64 * WINDOW_WORDS`
    /// positions at a time into a set on the stack (the always-candidates'
    /// words, then each column's positions in the window), which is read in
    /// order: a position keyed in several columns (an `||` across paths) is
    /// tried once, and nothing is allocated.
    #[inline]
    pub fn find_candidate<'v, C>(
        &self,
        cx: &mut C,
        mut value: impl FnMut(&mut C, PathIdx) -> Option<&'v Value>,
        mut pred: impl FnMut(&mut C, u32) -> bool,
    ) -> Option<u32> {
        // PERF: not an array of `MAX_PATHS`: only the columns in use are
        // written (an evaluation that finds no candidate is mostly this).
        let mut lists: SmallVec<[CandidateList<'_>; MAX_PATHS]> = self
            .paths
            .iter()
            .map(|(probe, column)| column.candidates(*probe, value(cx, probe.path)))
            .filter(|list| !list.list.is_empty())
            .collect();
        match (lists.as_slice(), self.has_always) {
            ([], false) => return None,
            // One column's list, no one else: it is the candidates, in order.
            ([one], false) if one.masks.is_empty() => {
                let hooks = one
                    .list
                    .iter()
                    .filter_map(|&pos| self.hooks.get(pos as usize));
                return hooks.copied().find(|&h| pred(cx, h));
            }
            _ => {}
        }
        let mut base = 0;
        while base < self.hooks.len() {
            let mut window = [0u64; WINDOW_WORDS];
            let words = WINDOW_WORDS.min((self.hooks.len() - base).div_ceil(64));
            let first = base / 64;
            for (i, w) in window.iter_mut().enumerate().take(words) {
                *w = self.always.get(first + i).copied().unwrap_or(0);
            }
            let end = base + 64 * WINDOW_WORDS;
            for list in &mut lists {
                list.take_into(&mut window, base, end);
            }
            for (i, &word) in window.iter().enumerate().take(words) {
                let mut bits = word;
                while bits != 0 {
                    let pos = base + i * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if let Some(&h) = self.hooks.get(pos) {
                        if pred(cx, h) {
                            return Some(h);
                        }
                    }
                }
            }
            base = end;
        }
        None
    }

    /// Every candidate for a context, in evaluation order (for tests and
    /// tools: [`HookIndex::find_candidate`] taking none).
    pub fn candidates<'v>(&self, mut value: impl FnMut(PathIdx) -> Option<&'v Value>) -> Vec<u32> {
        let mut out = Vec::new();
        self.find_candidate(
            &mut out,
            |_, path| value(path),
            |out, h| {
                out.push(h);
                false
            },
        );
        out
    }
}

/// One column's candidates: the positions of `list` (ascending) whose mask
/// meets `found`, or all of them when there are no masks.
#[derive(Debug, Clone, Copy)]
struct CandidateList<'i> {
    list: &'i [u32],
    /// Parallel to `list`, or empty.
    masks: &'i [u64],
    found: u64,
}

impl<'i> CandidateList<'i> {
    const fn all(list: &'i [u32]) -> CandidateList<'i> {
        CandidateList {
            list,
            masks: &[],
            found: 0,
        }
    }
}

/// Candidates are gathered this many words of positions at a time.
const WINDOW_WORDS: usize = 16;

impl CandidateList<'_> {
    /// Moves the positions below `end` into `window` (positions from
    /// `base`), those whose mask meets `found`.
    #[inline]
    fn take_into(&mut self, window: &mut [u64; WINDOW_WORDS], base: usize, end: usize) {
        while let Some(&pos) = self.list.first() {
            let pos = pos as usize;
            if pos >= end {
                break;
            }
            if self.masks.first().is_none_or(|m| m & self.found != 0) {
                let at = pos.saturating_sub(base);
                if let Some(w) = window.get_mut(at / 64) {
                    *w |= 1 << (at % 64);
                }
            }
            self.list = self.list.get(1..).unwrap_or(&[]);
            self.masks = self.masks.get(1..).unwrap_or(&[]);
        }
    }
}

/// A column being gathered: keys, or each hook's interval or literals.
enum Gathered {
    Keys(KeyTable),
    Ranges(Vec<(u32, Interval)>),
    Substrings(Vec<(u32, Vec<Box<str>>)>),
}

impl Gathered {
    fn new(kind: ProbeKind) -> Gathered {
        match kind {
            ProbeKind::Range => Gathered::Ranges(Vec::new()),
            ProbeKind::Substring => Gathered::Substrings(Vec::new()),
            ProbeKind::Value | ProbeKind::Prefix(_) => Gathered::Keys(KeyTable::default()),
        }
    }

    /// Adds the hook at `pos` (positions ascending), with what it allows;
    /// `false` when that is not of the column's kind (a probe's kind fixes
    /// what it allows, so never: the caller then runs the hook always).
    fn add(&mut self, pos: u32, allowed: &Allowed<'_>) -> bool {
        match (self, allowed) {
            (Gathered::Keys(table), Allowed::Keys(keys)) => {
                for key in keys {
                    table.insert(*key, pos);
                }
            }
            (Gathered::Ranges(list), Allowed::Range(interval)) => list.push((pos, *interval)),
            (Gathered::Substrings(list), Allowed::Literals(literals)) => {
                list.push((pos, literals.clone()));
            }
            _ => return false,
        }
        true
    }

    /// The most candidates one lookup of the column would give (for a
    /// substring column, one literal's hooks: a string holding several gives
    /// their union), without building a substring scanner.
    fn largest(&self) -> usize {
        match self {
            Gathered::Keys(table) => table.largest(),
            Gathered::Ranges(list) => RangeTable::new(list).largest(),
            Gathered::Substrings(list) => SubstringKeys::of(list).largest,
        }
    }

    /// The column (`None` when a substring scanner cannot be built).
    fn column(self) -> Option<Column> {
        Some(match self {
            Gathered::Keys(table) => Column::Keys(table),
            Gathered::Ranges(list) => Column::Ranges(RangeTable::new(&list)),
            Gathered::Substrings(list) => Column::Substrings(SubstringTable::new(&list)?),
        })
    }
}

/// Whether every probe of requirement `r` is one of `probes`.
fn covered(r: &Requirement<'_>, probes: &[Probe]) -> bool {
    r.iter().all(|(p, _)| probes.contains(p))
}

/// The probe, not yet a column, that rules out the most of the hooks not
/// yet keyed (each counted on the probe that would complete one of its
/// requirements); `None` below [`MIN_GAIN`].
fn best_probe(
    requirements: &[Vec<Requirement<'_>>],
    assigned: &[bool],
    chosen: &[Probe],
) -> Option<Probe> {
    let mut gathered: Vec<(Probe, Gathered, usize)> = Vec::new();
    for (pos, rs) in requirements.iter().enumerate() {
        if assigned.get(pos).copied().unwrap_or(true) {
            continue;
        }
        let Ok(pos) = u32::try_from(pos) else {
            continue;
        };
        // A requirement counts on its one probe that is not yet a column
        // (a hook keyed by an `||` across paths once all but one are).
        let last_missing = rs.iter().filter_map(|r| {
            let mut missing = r.iter().filter(|(p, _)| !chosen.contains(p));
            let one = missing.next()?;
            missing.next().is_none().then_some(one)
        });
        for (probe, allowed) in last_missing {
            let at = match gathered.iter().position(|(p, _, _)| p == probe) {
                Some(at) => at,
                None => {
                    gathered.push((*probe, Gathered::new(probe.kind), 0));
                    gathered.len() - 1
                }
            };
            if let Some((_, column, hooks)) = gathered.get_mut(at) {
                column.add(pos, allowed);
                *hooks += 1;
            }
        }
    }
    gathered
        .into_iter()
        .map(|(probe, column, hooks)| (hooks.saturating_sub(column.largest()), probe))
        .filter(|(gain, _)| *gain >= MIN_GAIN)
        // The first of equal gains: deterministic.
        .rev()
        .max_by_key(|(gain, _)| *gain)
        .map(|(_, probe)| probe)
}

/// What a hook's condition requires, on the probes that read it: it is
/// `true` only if one alternative of each requirement holds (an operand of
/// its `&&` chain is one alternative; an `||` chain of keyable tests one
/// per probe it reads, what each probe allows unioned).
type Requirement<'p> = Vec<(Probe, Allowed<'p>)>;

/// Hook `h`'s keyable requirements: its conjuncts (per probe, the first
/// keyed test; ranges on one path meet) and its `||` chains of conjuncts;
/// its sequenced ones too when `sequenced`.
fn requirements<'p>(
    program: &'p Program,
    shape: &HookShape,
    sequenced: bool,
    literal: &RegexLiteral<'_>,
) -> Vec<Requirement<'p>> {
    let mut singles: Vec<(Probe, Allowed<'_>)> = Vec::new();
    let (later, later_any): (&[Conjunct], &[Box<[Conjunct]>]) = if sequenced {
        (&shape.sequenced_conjuncts, &shape.sequenced_any_of)
    } else {
        (&[], &[])
    };
    let ones = shape.conjuncts.iter().chain(later);
    for (probe, allowed) in ones.filter_map(|&c| allowed(program, c, literal)) {
        match singles.iter_mut().find(|(p, _)| *p == probe) {
            None => singles.push((probe, allowed)),
            Some((_, Allowed::Range(have))) => {
                if let Allowed::Range(more) = allowed {
                    *have = have.meet(more);
                }
            }
            Some((_, Allowed::Keys(_) | Allowed::Literals(_))) => {}
        }
    }
    let mut out: Vec<Requirement<'_>> = singles.into_iter().map(|one| vec![one]).collect();
    for alternatives in shape.any_of.iter().chain(later_any) {
        let each: Option<Vec<(Probe, Allowed<'_>)>> = alternatives
            .iter()
            .map(|&c| allowed(program, c, literal))
            .collect();
        out.extend(each.and_then(by_path));
    }
    out
}

/// The alternatives of an `||`, one per path where [`union`] can join
/// them, else one per probe.
fn by_path(each: Vec<(Probe, Allowed<'_>)>) -> Option<Requirement<'_>> {
    let mut out: Requirement<'_> = Vec::new();
    let mut rest = each;
    while let Some((first, _)) = rest.first() {
        let path = first.path;
        let (group, others): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(p, _)| p.path == path);
        rest = others;
        match union(group.clone()) {
            Some(one) => out.push(one),
            None => {
                let mut group = group;
                while let Some((probe, _)) = group.first() {
                    let probe = *probe;
                    let (same, others): (Vec<_>, Vec<_>) =
                        group.into_iter().partition(|(p, _)| *p == probe);
                    group = others;
                    out.push(union(same)?);
                }
            }
        }
    }
    Some(out)
}

/// A literal every match of regex `i` contains (its longest), if it has
/// one: the hook index keys `path.matches(re)` by it.
pub type RegexLiteral<'r> = dyn Fn(RegexIdx) -> Option<&'r str> + 'r;

/// What a conjunct allows, on the probe that reads it.
fn allowed<'p>(
    program: &'p Program,
    conjunct: Conjunct,
    literal: &RegexLiteral<'_>,
) -> Option<(Probe, Allowed<'p>)> {
    let substring = |path, s: &str| {
        // The empty string is in every string: it rules nothing out.
        (!s.is_empty()).then(|| {
            (
                Probe {
                    path,
                    kind: ProbeKind::Substring,
                },
                Allowed::Literals(vec![Box::from(s)]),
            )
        })
    };
    let value = |path| Probe {
        path,
        kind: ProbeKind::Value,
    };
    // The keys of each constant of a list; `None` if one has none.
    let list_keys = |list| match program.konst(list) {
        Some(Value::Array(items)) => items
            .iter()
            .map(IndexKey::of)
            .collect::<Option<Vec<_>>>()
            .map(Allowed::Keys),
        _ => None,
    };
    match conjunct {
        Conjunct::Leaf(Leaf::Cmp { path, op, konst }) => match (op, program.konst(konst)?) {
            (CmpOp::Eq, k) => Some((value(path), Allowed::Keys(vec![IndexKey::of(k)?]))),
            // An ordering is `true` only of a number (another kind is an
            // error or `false`), and only within its bound.
            (op, Value::Number(n)) => Some((
                Probe {
                    path,
                    kind: ProbeKind::Range,
                },
                Allowed::Range(Interval::of(op, n.as_f64()?)?),
            )),
            _ => None,
        },
        Conjunct::Leaf(Leaf::InSet { path, set }) => {
            Some((value(path), program.set(set).and_then(list_keys)?))
        }
        Conjunct::In { path, list } => Some((value(path), list_keys(list)?)),
        // `s.startsWith(p)` is `true` only for a string `s` whose first
        // `p.len()` bytes are `p`.
        Conjunct::StartsWith { path, prefix } => match program.konst(prefix)? {
            Value::String(p) => Some((
                Probe {
                    path,
                    kind: ProbeKind::Prefix(p.len()),
                },
                Allowed::Keys(vec![IndexKey::Str(p)]),
            )),
            _ => None,
        },
        // `s.contains(t)` is `true` only for a string `s` holding `t`, and
        // `s.matches(re)` only for one holding each literal every match of
        // `re` contains (`value::policy_regex`).
        Conjunct::Contains { path, needle } => match program.konst(needle)? {
            Value::String(t) => substring(path, t),
            _ => None,
        },
        Conjunct::Leaf(Leaf::Matches { path, regex }) => substring(path, literal(regex)?),
        Conjunct::Leaf(Leaf::Has { .. }) => None,
    }
}

/// What an `||` of tests allows, on one probe: `true` only where one of
/// them is, so the union of what each allows, when all read one path the
/// same way. Prefixes of different lengths are read at the shortest, and
/// an equality with a string that long or longer by its first bytes;
/// intervals by their hull.
fn union(each: Vec<(Probe, Allowed<'_>)>) -> Option<(Probe, Allowed<'_>)> {
    let path = each.first()?.0.path;
    if each.iter().any(|(p, _)| p.path != path) {
        return None;
    }
    let shortest = each
        .iter()
        .filter_map(|(p, _)| match p.kind {
            ProbeKind::Prefix(len) => Some(len),
            ProbeKind::Value | ProbeKind::Range | ProbeKind::Substring => None,
        })
        .min();
    let kind = match shortest {
        Some(len) => ProbeKind::Prefix(len),
        None => each.first()?.0.kind,
    };
    let mut keys = Vec::new();
    let mut literals = Vec::new();
    let mut hull: Option<Interval> = None;
    for (probe, allowed) in each {
        match (kind, probe.kind, allowed) {
            (ProbeKind::Range, ProbeKind::Range, Allowed::Range(i)) => {
                hull = Some(hull.map_or(i, |h| h.hull(i)));
            }
            (ProbeKind::Value, ProbeKind::Value, Allowed::Keys(ks)) => keys.extend(ks),
            (ProbeKind::Substring, ProbeKind::Substring, Allowed::Literals(ls)) => {
                literals.extend(ls);
            }
            (
                ProbeKind::Prefix(len),
                ProbeKind::Value | ProbeKind::Prefix(_),
                Allowed::Keys(ks),
            ) => {
                for k in ks {
                    match k {
                        IndexKey::Str(s) => keys.push(IndexKey::Str(s.get(..len)?)),
                        IndexKey::Num(_) | IndexKey::Bool(_) => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    let probe = Probe { path, kind };
    Some(match (kind, hull) {
        (_, Some(interval)) => (probe, Allowed::Range(interval)),
        (ProbeKind::Substring, None) => (probe, Allowed::Literals(literals)),
        (_, None) => (probe, Allowed::Keys(keys)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_numbers_share_a_key() {
        let k = |v: Value| IndexKey::of(&v).map(|k| format!("{k:?}"));
        assert_eq!(k(json!(1)), k(json!(1.0)));
        assert_eq!(k(json!(0)), k(json!(-0.0)));
        assert_ne!(k(json!(1)), k(json!(1.5)));
        assert_ne!(k(json!(1)), k(json!("1")));
        assert_eq!(k(json!(null)), None);
        assert_eq!(k(json!(u64::MAX)), k(json!(u64::MAX as f64)));
    }

    fn interval(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi }
    }

    #[test]
    fn a_number_finds_every_range_that_allows_it() {
        let inf = f64::INFINITY;
        let hooks = [
            (0, interval(-inf, 1.0)),
            (1, interval(1.0, 1.0)),
            (2, interval(2.0, 5.0)),
            (3, interval(5.0, inf)),
            (4, interval(3.0, 2.0)),
        ];
        let table = RangeTable::new(&hooks);
        assert_eq!(table.cuts, [1.0, 2.0, 3.0, 5.0]);
        for x in [
            -10.0, 0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, inf, -inf,
        ] {
            let got = table.candidates(x);
            for &(pos, i) in &hooks {
                if i.lo <= x && x <= i.hi {
                    assert!(got.contains(&pos), "{x}: {pos} missing from {got:?}");
                }
            }
            assert!(got.windows(2).all(|w| w[0] < w[1]), "{x}: {got:?}");
            // The empty interval is in no cell.
            assert!(!got.contains(&4), "{x}");
        }
        assert_eq!(table.candidates(0.0), [0]);
        // 5 and 6 share a cell: the hook ending at 5 is a candidate.
        assert_eq!(table.candidates(6.0), [2, 3]);
    }

    #[test]
    fn wide_ranges_get_fewer_cuts() {
        // 1,000 one-sided ranges with distinct bounds: each spans about half
        // the cells, so the table thins its cuts to stay in budget.
        let hooks: Vec<(u32, Interval)> = (0..1000)
            .map(|i| (i, interval(f64::from(i), f64::INFINITY)))
            .collect();
        let table = RangeTable::new(&hooks);
        let entries: usize = table.cells.iter().map(Vec::len).sum();
        assert!(table.cuts.len() <= MAX_CUTS);
        assert!(
            entries <= hooks.len() * RANGE_ENTRIES_PER_HOOK + MAX_CUTS,
            "{entries} entries"
        );
        for x in [0.0, 10.5, 500.0, 999.0, 1e9] {
            let got = table.candidates(x);
            let want = hooks.iter().filter(|(_, i)| i.lo <= x).count();
            assert!(got.len() >= want, "{x}");
        }
    }

    #[test]
    fn or_chains_key_by_the_union_on_one_probe() {
        let p = PathIdx::new(0);
        let probe = |kind| Probe { path: p, kind };
        let keys =
            |ks: &[&'static str]| Allowed::Keys(ks.iter().map(|k| IndexKey::Str(k)).collect());
        // Prefixes at the shortest; an equality by its first bytes.
        let got = union(vec![
            (probe(ProbeKind::Prefix(3)), keys(&["abc"])),
            (probe(ProbeKind::Prefix(1)), keys(&["x"])),
            (probe(ProbeKind::Value), keys(&["yz"])),
        ]);
        assert_eq!(
            got,
            Some((probe(ProbeKind::Prefix(1)), keys(&["a", "x", "y"])))
        );
        // A string shorter than the prefix, or cut inside a character.
        let short = union(vec![
            (probe(ProbeKind::Prefix(2)), keys(&["ab"])),
            (probe(ProbeKind::Value), keys(&["a"])),
        ]);
        assert_eq!(short, None);
        let split = union(vec![
            (probe(ProbeKind::Prefix(1)), keys(&["a"])),
            (probe(ProbeKind::Prefix(2)), keys(&["é"])),
        ]);
        assert_eq!(split, None);
        // Intervals by their hull; no mixing of kinds or paths.
        let got = union(vec![
            (probe(ProbeKind::Range), Allowed::Range(interval(1.0, 2.0))),
            (probe(ProbeKind::Range), Allowed::Range(interval(5.0, 6.0))),
        ]);
        assert_eq!(
            got,
            Some((probe(ProbeKind::Range), Allowed::Range(interval(1.0, 6.0))))
        );
        let mixed = union(vec![
            (probe(ProbeKind::Range), Allowed::Range(interval(1.0, 2.0))),
            (probe(ProbeKind::Value), keys(&["a"])),
        ]);
        assert_eq!(mixed, None);
        let other = Probe {
            path: PathIdx::new(1),
            kind: ProbeKind::Value,
        };
        assert_eq!(
            union(vec![
                (probe(ProbeKind::Value), keys(&["a"])),
                (other, keys(&["b"]))
            ]),
            None
        );
    }

    #[test]
    fn candidates_span_windows_in_order_once_each() {
        // 5,000 hooks: windows of 1,024 positions; two columns listing
        // some positions twice (an `||` across paths), always-candidates
        // in every window.
        let n = 5000u32;
        let hooks: Vec<u32> = (0..n).map(|h| h + 100).collect();
        let mut a = KeyTable::default();
        let mut b = KeyTable::default();
        let mut always = vec![0u64; (n as usize).div_ceil(64)];
        let mut want = Vec::new();
        for pos in 0..n {
            let (in_a, in_b, alw) = (pos % 7 == 0, pos % 11 == 0, pos % 13 == 5);
            if in_a {
                a.insert(IndexKey::Str("x"), pos);
            }
            if in_b {
                b.insert(IndexKey::Str("x"), pos);
            }
            if alw {
                always[pos as usize / 64] |= 1 << (pos % 64);
            }
            if in_a || in_b || alw {
                want.push(pos + 100);
            }
        }
        let probe = |i| Probe {
            path: PathIdx::new(i),
            kind: ProbeKind::Value,
        };
        let index = HookIndex {
            hooks,
            has_always: true,
            always,
            paths: vec![(probe(0), Column::Keys(a)), (probe(1), Column::Keys(b))],
        };
        let x = json!("x");
        let got: Vec<u32> = index.candidates(|_| Some(&x));
        assert_eq!(got, want);
        let got: Vec<u32> = index.candidates(|_| None);
        let only_always: Vec<u32> = (0..n).filter(|p| p % 13 == 5).map(|p| p + 100).collect();
        assert_eq!(got, only_always);
    }

    #[test]
    fn a_substring_column_of_more_than_64_literals_lists_a_superset() {
        // 200 hooks, each keyed by its own literal: masks fold literal
        // numbers modulo 64, so a literal's lookup lists its hook and a
        // few that share its bit (numbers 64 apart), never fewer.
        let keyed: Vec<(u32, Vec<Box<str>>)> = (0..200)
            .map(|i| (i, vec![format!("<{i}>").into()]))
            .collect();
        let table = SubstringTable::new(&keyed).unwrap();
        let index = HookIndex {
            hooks: (0..200).collect(),
            always: vec![0; 4],
            has_always: false,
            paths: vec![(
                Probe {
                    path: PathIdx::new(0),
                    kind: ProbeKind::Substring,
                },
                Column::Substrings(table),
            )],
        };
        for i in 0..200u32 {
            let s = json!(format!("a <{i}> b"));
            let got: Vec<u32> = index.candidates(|_| Some(&s));
            let want: Vec<u32> = (0..200).filter(|j| j % 64 == i % 64).collect();
            assert_eq!(got, want, "<{i}>");
        }
        let two = json!("<3><130>");
        let got: Vec<u32> = index.candidates(|_| Some(&two));
        let want: Vec<u32> = (0..200).filter(|j| j % 64 == 3 || j % 64 == 2).collect();
        assert_eq!(got, want);
        let none = json!("no literal here");
        assert!(index.candidates(|_| Some(&none)).is_empty());
    }

    #[test]
    fn candidates_merge_in_order() {
        let mut a = KeyTable::default();
        for (key, pos) in [("x", 0), ("x", 4), ("y", 2)] {
            a.insert(IndexKey::Str(key), pos);
        }
        let index = HookIndex {
            hooks: vec![10, 11, 12, 13, 14, 15],
            always: vec![1 << 1 | 1 << 5],
            has_always: true,
            paths: vec![(
                Probe {
                    path: PathIdx::new(0),
                    kind: ProbeKind::Value,
                },
                Column::Keys(a),
            )],
        };
        let x = json!("x");
        let got: Vec<u32> = index.candidates(|_| Some(&x));
        assert_eq!(got, [10, 11, 14, 15]);
        let got: Vec<u32> = index.candidates(|_| None);
        assert_eq!(got, [11, 15]);
    }
}
