//! String tests the domain's [`StrSet`] does not represent (`endsWith`,
//! `contains`): [`StrPattern`], what one implies about another, and whether
//! every string of a [`StrSet`] passes (or fails) one.
//!
//! Sets of strings stay exact and closed (exact strings and prefixes); these
//! tests are atoms of the analysis (`approx`), and this file holds only
//! *facts* about them. Every answer here is exact or errs towards "not
//! known": `implies` and [`StrSet::all_pass`] return `true` only when the
//! implication holds for every string.

use super::StrSet;

/// A string test with a constant needle.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StrPattern {
    /// `s.endsWith(needle)` (and the glob `*needle`).
    Suffix(String),
    /// `s.contains(needle)` (and the glob `*needle*`).
    Contains(String),
}

impl StrPattern {
    /// The needle.
    pub fn needle(&self) -> &str {
        match self {
            StrPattern::Suffix(n) | StrPattern::Contains(n) => n,
        }
    }

    /// Whether `s` passes the test.
    pub fn test(&self, s: &str) -> bool {
        match self {
            StrPattern::Suffix(n) => s.ends_with(n.as_str()),
            StrPattern::Contains(n) => s.contains(n.as_str()),
        }
    }

    /// Whether every string passing `self` passes `other`.
    pub fn implies(&self, other: &StrPattern) -> bool {
        match (self, other) {
            (_, StrPattern::Contains(b)) => self.needle().contains(b.as_str()),
            (StrPattern::Suffix(a), StrPattern::Suffix(b)) => a.ends_with(b.as_str()),
            (StrPattern::Contains(_), StrPattern::Suffix(b)) => b.is_empty(),
        }
    }

    /// The one answer of the test on every string starting with `prefix`,
    /// if they all agree. A non-empty suffix never has one; a needle inside
    /// the prefix makes every extension contain it; otherwise some
    /// extension (the prefix then a character the needle does not have)
    /// fails, and the prefix then the needle passes.
    fn on_extensions(&self, prefix: &str) -> Option<bool> {
        if self.needle().is_empty() {
            return Some(true);
        }
        match self {
            StrPattern::Contains(n) if prefix.contains(n.as_str()) => Some(true),
            _ => None,
        }
    }
}

impl StrSet {
    /// Whether every string of the set gives `expect` on the test. Exact:
    /// the strings that only the root or a prefix entry decides include
    /// every long enough extension of that prefix that no entry refines.
    pub fn all_pass(&self, test: &StrPattern, expect: bool) -> bool {
        (!self.root || test.on_extensions("") == Some(expect))
            && self
                .prefixes
                .iter()
                .all(|(q, v)| !*v || test.on_extensions(q) == Some(expect))
            && self
                .exact
                .iter()
                .all(|(s, v)| !*v || test.test(s) == expect)
    }

    /// The entries that are in the set, exact strings then prefixes; `None`
    /// when the root is (the set holds strings no entry names).
    pub fn entries_in(&self) -> Option<(Vec<&str>, Vec<&str>)> {
        if self.root {
            return None;
        }
        Some((
            self.exact
                .iter()
                .filter(|(_, v)| **v)
                .map(|(s, _)| s.as_str())
                .collect(),
            self.prefixes
                .iter()
                .filter(|(_, v)| **v)
                .map(|(s, _)| s.as_str())
                .collect(),
        ))
    }
}
