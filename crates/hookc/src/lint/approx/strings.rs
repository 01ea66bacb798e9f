//! String tests as atoms that know about each other: `x.endsWith('s')`,
//! `x.contains('s')` and the globs that are one of them (`*s`, `*s*`).
//!
//! Such a test is an atom of the analysis (a pseudo-path whose state is
//! `true`, `false`, or missing for an error), registered here with its
//! receiver path and its [`StrPattern`]. [`StrTests::set_in`] then answers
//! "which states can this atom have in a cube?" from what the cube says
//! about the receiver and about the other tests of the same receiver, so
//! that `cmd.contains('rm')` is known to be true wherever `cmd == 'sudo rm
//! x'`, `cmd.startsWith('rm ')` or `cmd.contains('rm -rf')` is. Each state
//! is removed only when no context of the cube can have it: a test is an
//! error exactly when its receiver is not a string, and otherwise true or
//! false as the pattern says.
//!
//! [`StrIndex`] finds the earlier cubes that require a test to be true from
//! what a later cube says, without looking at every earlier test: by the
//! needles that are substrings (or suffixes) of the later cube's strings.

use super::Cube;
use crate::lint::domain::{Bits, StrPattern, ValueSet};
use hookc_runtime::bytecode::path::PathId;
use std::collections::{BTreeSet, HashMap};

/// One registered test: the path it reads and what it checks.
#[derive(Debug, Clone)]
pub struct StrTest {
    /// The string tested.
    pub receiver: PathId,
    /// The test.
    pub pattern: StrPattern,
}

/// The string tests among the atoms, by atom id.
#[derive(Debug, Default)]
pub struct StrTests {
    by_atom: HashMap<PathId, StrTest>,
}

/// The states an atom can have: a bool or an error (missing).
fn atom_states() -> ValueSet {
    ValueSet::bits(Bits::TRUE.or(Bits::FALSE).or(Bits::MISSING))
}

impl StrTests {
    /// Records that `atom` is `receiver` tested with `pattern`.
    pub fn insert(&mut self, atom: PathId, receiver: PathId, pattern: StrPattern) {
        self.by_atom.insert(atom, StrTest { receiver, pattern });
    }

    /// The test an atom stands for.
    pub fn get(&self, atom: PathId) -> Option<&StrTest> {
        self.by_atom.get(&atom)
    }

    /// The states `path` can have in `cube`: its constraint, narrowed, for
    /// a string test, by what the cube says about the receiver and the
    /// receiver's other tests.
    pub fn set_in(&self, cube: &Cube, path: PathId) -> ValueSet {
        let own = cube.set_of(path);
        let Some(test) = self.get(path) else {
            return own;
        };
        let mut d = own.and(&atom_states());
        let receiver = cube.set_of(test.receiver);
        let mut no = |bits: Bits| d = d.minus(&ValueSet::bits(bits));
        if receiver.only_strings() {
            no(Bits::MISSING);
        }
        if receiver.strs().all_pass(&test.pattern, true) {
            no(Bits::FALSE);
        }
        if receiver.strs().all_pass(&test.pattern, false) {
            no(Bits::TRUE);
        }
        for (q, c) in cube.iter() {
            let Some(other) = self
                .get(q)
                .filter(|o| q != path && o.receiver == test.receiver)
            else {
                continue;
            };
            if c.set.within(&ValueSet::bits(Bits::TRUE)) {
                // The receiver is a string passing `other`.
                no(Bits::MISSING);
                if other.pattern.implies(&test.pattern) {
                    no(Bits::FALSE);
                }
            } else if c.set.within(&ValueSet::bits(Bits::FALSE)) {
                // The receiver is a string failing `other`.
                no(Bits::MISSING);
                if test.pattern.implies(&other.pattern) {
                    no(Bits::TRUE);
                }
            } else if c.set.within(&ValueSet::bits(Bits::TRUE.or(Bits::FALSE))) {
                no(Bits::MISSING);
            }
        }
        d
    }
}

/// Earlier cubes that require a string test to be true, by receiver and
/// needle, for finding the ones a later cube may lie inside.
#[derive(Debug, Default)]
pub struct StrIndex<R> {
    by_receiver: HashMap<PathId, Needles<R>>,
}

/// One receiver's required tests.
#[derive(Debug)]
struct Needles<R> {
    contains: HashMap<String, Vec<R>>,
    suffix: HashMap<String, Vec<R>>,
    /// The cubes that require a test false: every later cube reading the
    /// receiver gets them all.
    fails: Vec<R>,
    /// The needles' lengths in bytes.
    lens: BTreeSet<usize>,
}

impl<R> Default for Needles<R> {
    fn default() -> Self {
        Needles {
            contains: HashMap::new(),
            suffix: HashMap::new(),
            fails: Vec::new(),
            lens: BTreeSet::new(),
        }
    }
}

impl<R: Copy> Needles<R> {
    /// The refs whose needle `s` has: `contains` needles anywhere in it,
    /// `suffix` needles at its end when `with_suffix`. Returns the number of
    /// lookups.
    fn lookup(&self, s: &str, with_suffix: bool, out: &mut Vec<R>) -> usize {
        let mut work = 0;
        for len in self.lens.range(..=s.len()) {
            let last = s.len() - len;
            // The empty needle is everywhere: look it up once, as a suffix.
            let first = if *len == 0 { last } else { 0 };
            for start in first..=last {
                let Some(sub) = s.get(start..start + len) else {
                    continue;
                };
                work += 1;
                if let Some(refs) = self.contains.get(sub) {
                    out.extend(refs.iter().copied());
                }
                if with_suffix && start == last {
                    if let Some(refs) = self.suffix.get(sub) {
                        out.extend(refs.iter().copied());
                    }
                }
            }
        }
        work
    }
}

impl<R: Copy> StrIndex<R> {
    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.by_receiver.is_empty()
    }

    /// Indexes `r`, a cube that requires `test` to be `expect`.
    pub fn insert(&mut self, test: &StrTest, expect: bool, r: R) {
        let n = self.by_receiver.entry(test.receiver).or_default();
        if !expect {
            n.fails.push(r);
            return;
        }
        let needle = test.pattern.needle().to_owned();
        n.lens.insert(needle.len());
        let map = match test.pattern {
            StrPattern::Suffix(_) => &mut n.suffix,
            StrPattern::Contains(_) => &mut n.contains,
        };
        map.entry(needle).or_default().push(r);
    }

    /// The indexed cubes whose test every context of `b` may pass, as far
    /// as needles tell: tested against `b`'s strings of each receiver and
    /// `b`'s tests required true; and the cubes requiring a test of a
    /// receiver `b` reads to fail. Returns the number of lookups.
    pub fn candidates(&self, b: &Cube, tests: &StrTests, out: &mut Vec<R>) -> usize {
        let mut work = 0;
        let mut failing = BTreeSet::new();
        for (p, c) in b.iter() {
            if let Some(n) = self.by_receiver.get(&p) {
                failing.insert(p);
                if let Some((exact, prefixes)) = c.set.strs().entries_in() {
                    for s in exact {
                        work += n.lookup(s, true, out);
                    }
                    for q in prefixes {
                        work += n.lookup(q, false, out);
                    }
                }
            }
            let Some(t) = tests.get(p) else { continue };
            failing.insert(t.receiver);
            if !c.set.within(&ValueSet::bits(Bits::TRUE)) {
                continue;
            }
            if let Some(n) = self.by_receiver.get(&t.receiver) {
                let with_suffix = matches!(t.pattern, StrPattern::Suffix(_));
                work += n.lookup(t.pattern.needle(), with_suffix, out);
            }
        }
        for r in failing {
            if let Some(n) = self.by_receiver.get(&r) {
                work += n.fails.len();
                out.extend(n.fails.iter().copied());
            }
        }
        work
    }
}
