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
//! `size(x) > 10` here, with one exception: string tests with a constant
//! needle (`endsWith`, `contains`, the globs `*s` and `*s*`) are registered
//! with their receiver and pattern (`strings`), and an inclusion check
//! derives their states from what a cube says about the receiver
//! (`x == 'sudo rm x'` makes `x.contains('rm')` true). That derivation only
//! removes states no context of the cube has. So what the domain does not
//! know can only make an inclusion harder to prove, never easier.
//!
//! The set algebra is in `dnf`, the analysis of conditions in `analyzer`;
//! this file holds the bounds they share.
//!
//! [`ValueSet`]: super::domain::ValueSet

mod analyzer;
mod dnf;
mod strings;

pub(crate) use analyzer::certain_error_paths;
pub use analyzer::Analyzer;
pub use dnf::{covered_by, Cube, Dnf, Prefixes};
pub use strings::{StrIndex, StrTests};

/// Index of a leaf expression in [`Analyzer::leaves`]: the reasons behind a
/// contradiction.
pub type LeafId = u32;

/// At most this many cubes in a DNF; past it an over-approximation becomes
/// its hull and an under-approximation drops cubes (both sound).
pub const MAX_CUBES: usize = 32;

/// At most this many candidate checks per compilation (`covered_by` gives
/// up past it: the analysis then proves less, never more).
pub const MAX_WORK: usize = 2_000_000;

/// At most this many candidate cubes (earlier cubes the index finds) for
/// one cube of a hook: past it the index stops looking and the hook is not
/// proved shadowed (no W0004; a hook repeating an earlier hook's condition
/// is still found by its hash, W0008). It bounds the proofs' work per hook,
/// so that it grows with the policy, not with its square: cubes the index
/// cannot key (a `!=`, a number range, a `matches`) are candidates for
/// every later cube, and 10,000 random hooks had 56 on average, growing
/// with the policy (issue 24, linear compile).
pub const MAX_CANDIDATES: usize = 64;

/// Covering sets up to this size are minimized for the message.
const MAX_MINIMIZE: usize = 16;

/// At most this many leaves named as the reason of one constraint.
const MAX_WHY: usize = 4;

/// Deeper expressions than this are not analyzed (treated as unknown).
/// Checked policies are far shallower ([`hookc_runtime::limits::MAX_EXPR_DEPTH`]).
const MAX_DEPTH: usize = 512;

#[cfg(test)]
mod tests;
