//! The tables a column of the index looks candidates up in: hooks by
//! exact key (`KeyTable`), by a substring the value must contain
//! (`SubstringTable`), by the numeric range the value falls in
//! (`RangeTable`).

use super::*;

/// A substring column's literals, numbered in order of first use, and each
/// hook's mask of them (numbers modulo 64): what choosing the column needs,
/// without building its scanner.
pub(super) struct SubstringKeys {
    pub(super) literals: Vec<Box<str>>,
    pub(super) masks: Vec<u64>,
    /// The most hooks one bit of the masks lists ([`Gathered::largest`]).
    pub(super) largest: usize,
}

impl SubstringKeys {
    pub(super) fn of(hooks: &[(u32, Vec<Box<str>>)]) -> SubstringKeys {
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
    pub(super) literals: Vec<Box<str>>,
    pub(super) finder: aho_corasick::AhoCorasick,
    pub(super) hooks: Vec<u32>,
    pub(super) masks: Vec<u64>,
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
    pub(super) fn new(hooks: &[(u32, Vec<Box<str>>)]) -> Option<SubstringTable> {
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
    pub(super) fn candidates(&self, s: &str) -> CandidateList<'_> {
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
pub(super) struct Interval {
    pub(super) lo: f64,
    pub(super) hi: f64,
}

impl Interval {
    const ALL: Interval = Interval {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// The interval `path OP c` allows, for an ordering `OP`.
    pub(super) fn of(op: CmpOp, c: f64) -> Option<Interval> {
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

    pub(super) fn meet(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    pub(super) fn hull(self, other: Interval) -> Interval {
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
    pub(super) cuts: Vec<f64>,
    pub(super) cells: Vec<Vec<u32>>,
}

/// At most this many cuts per range column: a lookup is a binary search
/// over them.
pub const MAX_CUTS: usize = 64;

impl RangeTable {
    /// The table of `hooks` (position, interval; ascending positions),
    /// holding at most about [`RANGE_ENTRIES_PER_HOOK`] entries a hook:
    /// fewer cuts where the intervals are wide.
    pub(super) fn new(hooks: &[(u32, Interval)]) -> RangeTable {
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
    pub(super) fn candidates(&self, x: f64) -> &[u32] {
        self.cells
            .get(cell_of(&self.cuts, x))
            .map_or(&[], Vec::as_slice)
    }

    pub(super) fn largest(&self) -> usize {
        self.cells.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// A range column lists a hook in at most about this many cells on
/// average (it cuts the line at fewer bounds until it does).
pub const RANGE_ENTRIES_PER_HOOK: usize = 8;

/// The cell of `x` (or of an interval's endpoint): how many cuts are at or
/// below it.
#[inline]
pub(super) fn cell_of(cuts: &[f64], x: f64) -> usize {
    cuts.partition_point(|&c| c <= x)
}

/// At most `n` of the sorted `bounds`, evenly spread.
pub(super) fn thin(bounds: &[f64], n: usize) -> Vec<f64> {
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
    pub(super) strings: FnvMap<String, Vec<u32>>,
    pub(super) numbers: FnvMap<u64, Vec<u32>>,
    pub(super) bools: [Vec<u32>; 2],
}

impl KeyTable {
    pub(super) fn insert(&mut self, key: IndexKey<'_>, pos: u32) {
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
    pub(super) fn candidates(&self, key: Option<IndexKey<'_>>) -> &[u32] {
        let found = match key {
            Some(IndexKey::Str(s)) => self.strings.get(s),
            Some(IndexKey::Num(n)) => self.numbers.get(&n),
            Some(IndexKey::Bool(b)) => self.bools.get(usize::from(b)),
            None => None,
        };
        found.map_or(&[], Vec::as_slice)
    }

    pub(super) fn largest(&self) -> usize {
        let lens = self.strings.values().chain(self.numbers.values());
        lens.chain(&self.bools).map(Vec::len).max().unwrap_or(0)
    }
}
