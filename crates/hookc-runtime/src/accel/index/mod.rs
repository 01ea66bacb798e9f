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

mod tables;

pub use tables::*;

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
mod tests;
