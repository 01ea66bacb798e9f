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
//! Per event, the index picks the columns that rule out the most hooks
//! (greedily, at most [`MAX_PATHS`]), keys each hook in the first of them it
//! is constrained in, and keeps the hooks keyed in none as always-candidates.
//! An evaluation looks each column's key up once and merges the candidate
//! lists (each in evaluation order) back into evaluation order; every
//! candidate runs in full, so the matches, collected hooks included, are
//! exactly those of evaluating the hooks one by one.
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
use crate::bytecode::{CmpOp, PathIdx, Program};
use serde_json::Value;

/// At most this many columns are looked up per evaluation.
pub const MAX_PATHS: usize = 4;

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

/// What an index column looks up: a path's value, or its first `prefix`
/// bytes (for hooks keyed by `path.startsWith(p)`, `p` of that length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The path.
    pub path: PathIdx,
    /// The prefix length, for a prefix column.
    pub prefix: Option<usize>,
}

impl Probe {
    /// The key of the path's value `v` (`None`: the path does not resolve,
    /// or its value is of a kind no hook of the column can match).
    #[inline]
    fn key(self, v: Option<&Value>) -> Option<IndexKey<'_>> {
        match (self.prefix, v?) {
            (None, v) => IndexKey::of(v),
            (Some(len), Value::String(s)) => s.get(..len).map(IndexKey::Str),
            (Some(_), _) => None,
        }
    }
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
    /// Positions of the hooks keyed on no indexed path.
    always: Vec<u32>,
    /// The index's columns, each with its table.
    paths: Vec<(Probe, KeyTable)>,
}

/// A hook's keys on one path: the constants one required leaf allows.
type Keys<'p> = Vec<IndexKey<'p>>;

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
    ) -> Option<HookIndex> {
        let constraints: Vec<Vec<(Probe, Keys<'_>)>> = hooks
            .iter()
            .map(|&h| {
                shapes
                    .get(h as usize)
                    .map_or_else(Vec::new, |shape| constraints(program, shape, sequenced))
            })
            .collect();
        let mut assigned = vec![false; hooks.len()];
        let mut paths: Vec<(Probe, KeyTable)> = Vec::new();
        while paths.len() < MAX_PATHS {
            let Some((path, table)) = best_path(&constraints, &assigned) else {
                break;
            };
            for (pos, cs) in constraints.iter().enumerate() {
                if cs.iter().any(|(p, _)| *p == path) {
                    if let Some(a) = assigned.get_mut(pos) {
                        *a = true;
                    }
                }
            }
            paths.push((path, table));
        }
        if paths.is_empty() {
            return None;
        }
        let always = (0..hooks.len())
            .filter(|&pos| !assigned.get(pos).copied().unwrap_or(false))
            .filter_map(|pos| u32::try_from(pos).ok())
            .collect();
        Some(HookIndex {
            hooks: hooks.to_vec(),
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
        self.hooks.len() - self.always.len()
    }

    /// The hooks keyed on no indexed path, which every evaluation tries.
    pub fn always(&self) -> usize {
        self.always.len()
    }

    /// The candidates for a context, `value` giving each indexed path's
    /// value: the hooks that can match, in evaluation order.
    #[inline]
    pub fn candidates<'i, 'v>(
        &'i self,
        mut value: impl FnMut(PathIdx) -> Option<&'v Value>,
    ) -> Candidates<'i> {
        let mut lists: [&'i [u32]; MAX_PATHS + 1] = [&[]; MAX_PATHS + 1];
        for (slot, (probe, table)) in lists.iter_mut().zip(&self.paths) {
            *slot = table.candidates(probe.key(value(probe.path)));
        }
        if let Some(last) = lists.last_mut() {
            *last = &self.always;
        }
        Candidates {
            hooks: &self.hooks,
            lists,
        }
    }
}

/// The candidate hooks of one evaluation, in evaluation order: the merge of
/// the ascending position lists (each position is in at most one).
#[derive(Debug)]
pub struct Candidates<'i> {
    hooks: &'i [u32],
    lists: [&'i [u32]; MAX_PATHS + 1],
}

impl Iterator for Candidates<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let mut best: Option<(usize, u32)> = None;
        for (i, list) in self.lists.iter().enumerate() {
            if let Some(&pos) = list.first() {
                if best.is_none_or(|(_, b)| pos < b) {
                    best = Some((i, pos));
                }
            }
        }
        let (i, pos) = best?;
        if let Some(list) = self.lists.get_mut(i) {
            *list = list.get(1..).unwrap_or(&[]);
        }
        self.hooks.get(pos as usize).copied()
    }
}

/// The path, of those constraining hooks not yet assigned, that rules out
/// the most of them, with its table over them; `None` below [`MIN_GAIN`].
fn best_path(
    constraints: &[Vec<(Probe, Keys<'_>)>],
    assigned: &[bool],
) -> Option<(Probe, KeyTable)> {
    let mut tables: Vec<(Probe, KeyTable, usize)> = Vec::new();
    for (pos, cs) in constraints.iter().enumerate() {
        if assigned.get(pos).copied().unwrap_or(true) {
            continue;
        }
        let Ok(pos) = u32::try_from(pos) else {
            continue;
        };
        for (path, keys) in cs {
            let at = match tables.iter().position(|(p, _, _)| p == path) {
                Some(at) => at,
                None => {
                    tables.push((*path, KeyTable::default(), 0));
                    tables.len() - 1
                }
            };
            if let Some((_, table, hooks)) = tables.get_mut(at) {
                for key in keys {
                    table.insert(*key, pos);
                }
                *hooks += 1;
            }
        }
    }
    tables
        .into_iter()
        .map(|(path, table, hooks)| {
            let gain = hooks.saturating_sub(table.largest());
            (gain, path, table)
        })
        .filter(|(gain, _, _)| *gain >= MIN_GAIN)
        // The first of equal gains: deterministic.
        .rev()
        .max_by_key(|(gain, _, _)| *gain)
        .map(|(_, path, table)| (path, table))
}

/// Hook `h`'s keyable required leaves: per path (the first leaf on it), the
/// constants its value must equal one of; its sequenced conjuncts too when
/// `sequenced`.
fn constraints<'p>(
    program: &'p Program,
    shape: &HookShape,
    sequenced: bool,
) -> Vec<(Probe, Keys<'p>)> {
    let mut out: Vec<(Probe, Keys<'_>)> = Vec::new();
    // The keys of each constant of a list; `None` if one has none.
    let list_keys = |list| match program.konst(list) {
        Some(Value::Array(items)) => items.iter().map(IndexKey::of).collect(),
        _ => None,
    };
    let value = |path| Probe { path, prefix: None };
    let later = if sequenced {
        shape.sequenced_conjuncts.as_slice()
    } else {
        &[]
    };
    for &conjunct in shape.conjuncts.iter().chain(later) {
        let (probe, keys) = match conjunct {
            Conjunct::Leaf(Leaf::Cmp {
                path,
                op: CmpOp::Eq,
                konst,
            }) => (
                value(path),
                program.konst(konst).and_then(IndexKey::of).map(|k| vec![k]),
            ),
            Conjunct::Leaf(Leaf::InSet { path, set }) => {
                (value(path), program.set(set).and_then(list_keys))
            }
            Conjunct::In { path, list } => (value(path), list_keys(list)),
            // `s.startsWith(p)` is `true` only for a string `s` whose
            // first `p.len()` bytes are `p`.
            Conjunct::StartsWith { path, prefix } => match program.konst(prefix) {
                Some(Value::String(p)) => (
                    Probe {
                        path,
                        prefix: Some(p.len()),
                    },
                    Some(vec![IndexKey::Str(p)]),
                ),
                _ => continue,
            },
            Conjunct::Leaf(Leaf::Cmp { .. } | Leaf::Matches { .. } | Leaf::Has { .. }) => continue,
        };
        if let Some(keys) = keys {
            if !out.iter().any(|(p, _)| *p == probe) {
                out.push((probe, keys));
            }
        }
    }
    out
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

    #[test]
    fn candidates_merge_in_order() {
        let mut a = KeyTable::default();
        for (key, pos) in [("x", 0), ("x", 4), ("y", 2)] {
            a.insert(IndexKey::Str(key), pos);
        }
        let index = HookIndex {
            hooks: vec![10, 11, 12, 13, 14, 15],
            always: vec![1, 5],
            paths: vec![(
                Probe {
                    path: PathIdx::new(0),
                    prefix: None,
                },
                a,
            )],
        };
        let x = json!("x");
        let got: Vec<u32> = index.candidates(|_| Some(&x)).collect();
        assert_eq!(got, [10, 11, 14, 15]);
        let got: Vec<u32> = index.candidates(|_| None).collect();
        assert_eq!(got, [11, 15]);
    }
}
