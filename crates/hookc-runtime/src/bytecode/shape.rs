//! The code shapes the runtime's fast paths rely on, written and read in
//! one place.
//!
//! Equality dispatch (`accel::dispatch`) and the flat-conjunction path of
//! the VM are derived at load from the verified code, so the artifact
//! carries nothing for them and its format does not change. They fire only
//! on code of the shapes the lowering writes; were the two to drift apart,
//! the fast paths would silently stop applying. So both sides live here:
//! the lowering writes every conjunct (a context leaf, a short `in` list,
//! a `startsWith` or `contains` of a constant) with [`Conjunct::write`] and every `&&`
//! and `||` link with [`Link`], and the runtime reads hooks back with
//! [`HookShape::decode`]. The unit tests round-trip the two, and
//! `crates/hookc/tests/suite/fast_paths.rs` pins how many hooks of the bench
//! policies take each fast path.
//!
//! (The alternative, the lowering recording each hook's shape in the
//! program, would change the artifact format, and the verifier would have
//! to check the record against the code anyway: which is this decoding.)
//!
//! ```text
//! leaf          PathCmpConst | PathInSet | PathMatches | HasPath  (one instruction)
//! a && b        [a] AndShort(L) [b] AndJoin  L:
//! a || b        [a] OrShort(L)  [b] OrJoin   L:
//! a ? b : false [a] Branch{otherwise: E, end: L} [b] Jump(L) E: False L:
//! hook          [condition] Return
//! ```
//!
//! A condition tree's `all` joins its items with `? : false` after an item
//! that can be an error (`docs/src/semantics.md#condition-trees`): such a
//! condition is `true` only where its leading `&&` chain is, so the chain's
//! operands are still required (dispatch, the hook index), but there is no
//! flat conjunction. It is also `true` only where each `b` is, so the
//! operands of each `b`'s own `&&` chain are required too, but in a weaker
//! sense: where one of them is `false` the condition is `false` *or an
//! error* (the error of a chain before it), where a false operand of the
//! leading chain makes it `false` (CEL's `&&` absorbs the error). They are
//! recorded apart ([`HookShape::sequenced_conjuncts`]), for the readers
//! whose answers do not tell an error from `false`.
//!
//! A chain `a && b && c` is left-nested, so its code is the leftmost operand
//! followed by one link per further operand, each short circuit jumping just
//! past its own join, where the next link (or `Return`) starts.

use super::{CmpOp, ConstIdx, JumpTarget, Op, Operand, PathIdx, RegexIdx, SetIdx};
use smallvec::SmallVec;
use std::ops::Range;

/// The code positions of a chain's operands. PERF: inline up to eight, so
/// decoding a hook's shape at load allocates only what the shape keeps
/// (a 10,000-hook load decoded shapes with seven allocations a hook).
type Operands = SmallVec<[Range<usize>; 8]>;

/// A context leaf: one instruction that reads one path, compares it with
/// the program's tables, and pushes a bool or an error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Leaf {
    /// `paths[path] OP consts[konst]`.
    Cmp {
        /// The path.
        path: PathIdx,
        /// The comparison.
        op: CmpOp,
        /// The constant.
        konst: ConstIdx,
    },
    /// `paths[path] in sets[set]`.
    InSet {
        /// The path.
        path: PathIdx,
        /// The set.
        set: SetIdx,
    },
    /// `paths[path].matches(regexes[regex])`.
    Matches {
        /// The path.
        path: PathIdx,
        /// The regex.
        regex: RegexIdx,
    },
    /// `has(paths[path])`.
    Has {
        /// The path.
        path: PathIdx,
    },
}

impl Leaf {
    /// The instruction that computes the leaf.
    pub fn op(self) -> Op {
        match self {
            Leaf::Cmp { path, op, konst } => Op::PathCmpConst { path, konst, op },
            Leaf::InSet { path, set } => Op::PathInSet { path, set },
            Leaf::Matches { path, regex } => Op::PathMatches { path, regex },
            Leaf::Has { path } => Op::HasPath(path),
        }
    }

    /// The leaf an instruction computes, if it computes one.
    #[inline(always)]
    pub fn from_op(op: &Op) -> Option<Leaf> {
        Some(match *op {
            Op::PathCmpConst { path, konst, op } => Leaf::Cmp { path, op, konst },
            Op::PathInSet { path, set } => Leaf::InSet { path, set },
            Op::PathMatches { path, regex } => Leaf::Matches { path, regex },
            Op::HasPath(path) => Leaf::Has { path },
            _ => return None,
        })
    }

    /// The path the leaf reads.
    pub fn path(self) -> PathIdx {
        match self {
            Leaf::Cmp { path, .. }
            | Leaf::InSet { path, .. }
            | Leaf::Matches { path, .. }
            | Leaf::Has { path } => path,
        }
    }
}

/// Where code is written: the lowering's program under construction.
pub trait CodeSink {
    /// Appends an instruction; returns its position.
    fn emit(&mut self, op: Op) -> u32;
    /// The position the next instruction will have.
    fn here(&self) -> u32;
    /// The instruction at `at`, to point a jump written earlier.
    fn op_mut(&mut self, at: u32) -> Option<&mut Op>;
}

/// One link of an `&&` or `||` chain being written: [`Link::open`] writes
/// the short circuit after the left operand, then the caller writes the
/// right operand, then [`Link::close`] writes the join and points the short
/// circuit just past it.
#[derive(Debug)]
#[must_use = "a link's short circuit points nowhere until it is closed"]
pub struct Link {
    /// The short circuit's position.
    short: u32,
    /// `&&` (else `||`).
    and: bool,
}

impl Link {
    /// Writes the short circuit of an `&&` (`and`) or `||` link.
    pub fn open(sink: &mut impl CodeSink, and: bool) -> Link {
        // Pointed by `close`, once the target exists.
        let placeholder = JumpTarget::default();
        let short = sink.emit(if and {
            Op::AndShort(placeholder)
        } else {
            Op::OrShort(placeholder)
        });
        Link { short, and }
    }

    /// Writes the join after the right operand and points the short circuit
    /// just past it.
    pub fn close(self, sink: &mut impl CodeSink) {
        sink.emit(if self.and { Op::AndJoin } else { Op::OrJoin });
        let end = JumpTarget::new(sink.here());
        if let Some(Op::AndShort(target) | Op::OrShort(target)) = sink.op_mut(self.short) {
            *target = end;
        }
    }
}

/// What the fast paths need to know of a hook's condition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookShape {
    /// The leftmost operand of the condition's top-level `&&` chain (the
    /// whole condition when it has no `&&`), when that is a leaf. The
    /// condition can be `true` only if this leaf is: CEL's `&&` is `false`
    /// when either side is `false`, and an error or a non-bool otherwise,
    /// never `true`.
    pub required: Option<Leaf>,
    /// Every operand of that chain, left to right, when each is a leaf (the
    /// condition is exactly `L1 && ... && Ln`), less each `has(p)` that
    /// another leaf of the chain reading `p` implies: the condition is `true`
    /// exactly when every leaf listed is. (Any leaf reading `p` is an error,
    /// not `true`, where `p` does not resolve; so a condition tree's
    /// `p == v && has(p)` is one leaf here, `docs/src/semantics.md#condition-trees`.)
    pub conjunction: Option<Vec<Leaf>>,
    /// The operands of that chain that are [`Conjunct`]s, left to right,
    /// whatever the other operands are (each a self-contained block: its
    /// jumps land within it or on its join). The condition can be `true`
    /// only if every one of them is (`a && b` is `true` only when both sides
    /// are), so the hook index (`accel::index`) may key a hook by any of
    /// them. The chain is read forward when its leftmost operand is a
    /// conjunct (or an `||` chain that starts with one), else back from its
    /// `Return`; a chain that ends in a `? b : false` link and starts with
    /// anything else has none recorded (its end is not known without a full
    /// decoding).
    pub conjuncts: Vec<Conjunct>,
    /// **Required when errors are no-matches.** The operands of the
    /// top-level `&&` chain of each `b` of the `? b : false` links that
    /// follow the leading chain (a condition tree's `all` after an item that
    /// can be an error), that are [`Conjunct`]s, left to right. The
    /// condition `a ? b : false` is `true` exactly when `a` and `b` both are,
    /// so it can be `true` only if every one of them is, as with
    /// [`HookShape::conjuncts`]. But where one of them is `false` the
    /// condition may still be an error (`a`'s, which `?:` passes on) rather
    /// than `false`: so a reader may skip a hook by one of them only where
    /// an error in the hook's condition is indistinguishable from `false` in
    /// every answer it serves (the plans of a program without the decision
    /// model, `accel::dispatch`), never where a condition error is reported,
    /// fails the evaluation or is traced. Empty when there is no such link
    /// (a `b` whose leftmost operand is no `Conjunct` is read back from its
    /// end, as a top-level chain is).
    pub sequenced_conjuncts: Vec<Conjunct>,
    /// The operands of the top-level `&&` chain that are `||` chains of
    /// [`Conjunct`]s (`a || b || c`, each a conjunct), left to right: the
    /// condition can be `true` only if one conjunct of each is (CEL's `||`
    /// is `true` exactly when one side is), so the hook index may key a
    /// hook by the union of one such operand's keys.
    pub any_of: Vec<Box<[Conjunct]>>,
    /// **Required when errors are no-matches.** The same of each `b`'s
    /// chain, as [`HookShape::sequenced_conjuncts`] are to
    /// [`HookShape::conjuncts`].
    pub sequenced_any_of: Vec<Box<[Conjunct]>>,
}

/// An operand of a condition's top-level `&&` chain that the hook index
/// reads: a context leaf, or the lowering's code for a test of a path
/// against a constant that has no fused instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Conjunct {
    /// A context leaf.
    Leaf(Leaf),
    /// `paths[path] in consts[list]` (`Path; Const; In`: the lowering's code
    /// for a list too short to hash as a set).
    In {
        /// The path.
        path: PathIdx,
        /// The list (or whatever constant the program holds there).
        list: ConstIdx,
    },
    /// `paths[path].startsWith(consts[prefix])` (`Path; Const; StartsWith`).
    StartsWith {
        /// The path.
        path: PathIdx,
        /// The prefix (or whatever constant the program holds there).
        prefix: ConstIdx,
    },
    /// `paths[path].contains(consts[needle])` (`Path; Const; Contains`).
    Contains {
        /// The path.
        path: PathIdx,
        /// The substring (or whatever constant the program holds there).
        needle: ConstIdx,
    },
}

impl Conjunct {
    /// Writes the conjunct's code: the lowering writes every conjunct the
    /// fast paths read back ([`Conjunct::from_code`]) through here.
    pub fn write(self, sink: &mut impl CodeSink) {
        match self {
            Conjunct::Leaf(leaf) => {
                sink.emit(leaf.op());
            }
            Conjunct::In { path, list } => {
                for op in [Op::Path(path), Op::Const(list), Op::In] {
                    sink.emit(op);
                }
            }
            Conjunct::StartsWith { path, prefix } => {
                for op in [Op::Path(path), Op::Const(prefix), Op::StartsWith] {
                    sink.emit(op);
                }
            }
            Conjunct::Contains { path, needle } => {
                for op in [Op::Path(path), Op::Const(needle), Op::Contains] {
                    sink.emit(op);
                }
            }
        }
    }

    /// The conjunct an operand's code computes, if it is one.
    pub fn from_code(code: &[Op]) -> Option<Conjunct> {
        Some(match *code {
            [ref one] => Conjunct::Leaf(Leaf::from_op(one)?),
            [Op::Path(path), Op::Const(list), Op::In] => Conjunct::In { path, list },
            [Op::Path(path), Op::Const(prefix), Op::StartsWith] => {
                Conjunct::StartsWith { path, prefix }
            }
            [Op::Path(path), Op::Const(needle), Op::Contains] => {
                Conjunct::Contains { path, needle }
            }
            _ => return None,
        })
    }
}

impl HookShape {
    /// Reads the shape of a hook's code, `code` being the program's code
    /// from `start` (jump targets are absolute) to the hook's end. Code of
    /// any other shape, or no code at all, has neither fast path.
    pub fn decode(code: &[Op], start: u32) -> HookShape {
        let Some(chain) = Chain::decode(code, start, 0, None) else {
            return HookShape::default();
        };
        let required = chain.first_leaf;
        match code.get(chain.end) {
            Some(Op::Return) if chain.end + 1 == code.len() => HookShape {
                required,
                conjunction: chain.leaves.map(implied_has_dropped),
                conjuncts: chain.conjuncts,
                sequenced_conjuncts: Vec::new(),
                any_of: chain.any_of,
                sequenced_any_of: Vec::new(),
            },
            // `chain ? b : false`: `true` only where the chain is, so its
            // conjuncts are still required; but `b` runs after it, so there
            // is no flat conjunction.
            Some(Op::Branch { .. }) => match sequenced(code, start, chain.end) {
                Some(later) => HookShape {
                    required,
                    conjunction: None,
                    conjuncts: chain.conjuncts,
                    sequenced_conjuncts: later.conjuncts,
                    any_of: chain.any_of,
                    sequenced_any_of: later.any_of,
                },
                None => HookShape::default(),
            },
            _ => HookShape::default(),
        }
    }

    /// The shape of every hook of a program, by hook position: each hook's
    /// code decoded once, for every load-time reader (dispatch runs, the
    /// hook index, the evaluator's flat conjunctions) to share.
    pub fn of_hooks(program: &crate::bytecode::Program) -> Vec<HookShape> {
        program
            .hooks
            .iter()
            .map(|entry| {
                program
                    .code
                    .get(entry.code.0 as usize..entry.code.1 as usize)
                    .map_or_else(HookShape::default, |code| {
                        HookShape::decode(code, entry.code.0)
                    })
            })
            .collect()
    }
}

/// The leaves less each `has(p)` that another leaf reading `p` implies:
/// every other leaf is an error where its path does not resolve
/// (`eval::vm`'s leaves read a missing path as `no such key`), so it is
/// `true` only where `has(p)` is.
fn implied_has_dropped(mut leaves: Vec<Leaf>) -> Vec<Leaf> {
    let is_has = |l: &Leaf| matches!(l, Leaf::Has { .. });
    // Most conjunctions have no `has` leaf: nothing to look at, nothing
    // allocated.
    if !leaves.iter().any(is_has) {
        return leaves;
    }
    // The paths the other leaves read, sorted: each `has` is then one
    // binary search, not a scan of the chain (a hostile artifact's chain
    // of thousands of `has` leaves stays n log n).
    let mut read: Vec<PathIdx> = leaves
        .iter()
        .filter(|l| !is_has(l))
        .map(|l| l.path())
        .collect();
    read.sort_unstable();
    read.dedup();
    leaves.retain(|l| !matches!(l, Leaf::Has { path } if read.binary_search(path).is_ok()));
    leaves
}

/// A top-level `&&` chain: its code is the leftmost operand, then one link
/// per further operand,
///
/// ```text
/// [first] AndShort(N1) [operand] AndJoin N1: AndShort(N2) ... AndJoin Nk:
/// ```
///
/// each operand a self-contained block (its jumps land within it or on its
/// join).
#[derive(Debug, Default)]
struct Chain {
    /// The operands that are conjuncts, left to right.
    conjuncts: Vec<Conjunct>,
    /// The operands that are `||` chains of conjuncts, left to right.
    any_of: Vec<Box<[Conjunct]>>,
    /// The leftmost operand, when it is a leaf.
    first_leaf: Option<Leaf>,
    /// Every operand, when each is a leaf.
    leaves: Option<Vec<Leaf>>,
    /// The position just past the chain's last join.
    end: usize,
}

/// What one operand of an `&&` chain is, to the fast paths.
enum ChainOperand {
    One(Conjunct),
    AnyOf(Box<[Conjunct]>),
    Other,
}

impl Chain {
    /// Reads the chain starting at position `from` of `code` (which starts
    /// at `start`: jump targets are absolute). It ends at the first
    /// instruction that starts no link: at position `end` when given (the
    /// chain fills `from..end` exactly, or there is no chain), otherwise at a
    /// `Return` or `Branch`.
    fn decode(code: &[Op], start: u32, from: usize, end: Option<usize>) -> Option<Chain> {
        // Read forward when the leftmost operand's end is known (it is a
        // conjunct, or an `||` chain that starts with one); else backward
        // from the chain's end, where that is known (a `Return`).
        let returns = || match code.last() {
            Some(Op::Return) => code.len().checked_sub(1),
            _ => None,
        };
        let (operands, chain_end) = forward(code, start, from, end)
            .or_else(|| backward(code, start, from, end.or_else(returns)?))?;
        let mut chain = Chain {
            conjuncts: Vec::with_capacity(operands.len()),
            leaves: Some(Vec::with_capacity(operands.len())),
            ..Chain::default()
        };
        for (i, range) in operands.into_iter().enumerate() {
            let operand = operand(code, start, range);
            let leaf = match operand {
                ChainOperand::One(Conjunct::Leaf(leaf)) => Some(leaf),
                _ => None,
            };
            if i == 0 {
                chain.first_leaf = leaf;
            }
            chain.leaves = chain.leaves.zip(leaf).map(|(mut leaves, leaf)| {
                leaves.push(leaf);
                leaves
            });
            match operand {
                ChainOperand::One(c) => chain.conjuncts.push(c),
                ChainOperand::AnyOf(cs) => chain.any_of.push(cs),
                ChainOperand::Other => {}
            }
        }
        chain.end = chain_end;
        Some(chain)
    }
}

/// The operands of the `&&` chain from `from`, read forward from its
/// leftmost operand, which must be a conjunct or an `||` chain that starts
/// with one (its length is then known), and the chain's end (see
/// [`Chain::decode`]).
fn forward(code: &[Op], start: u32, from: usize, end: Option<usize>) -> Option<(Operands, usize)> {
    let first_len = [1, 3].into_iter().find(|&len| {
        from.checked_add(len)
            .and_then(|after| code.get(from..after))
            .and_then(Conjunct::from_code)
            .is_some()
    })?;
    let (_, first_end) = links(code, start, from, first_len, false, None)?;
    let (operands, chain_end) = links(code, start, from, first_end - from, true, end)?;
    if end.is_none() && !matches!(code.get(chain_end), Some(Op::Return | Op::Branch { .. })) {
        return None;
    }
    Some((operands, chain_end))
}

/// The operands of the `&&` chain filling `from..end`, read backward: the
/// last link is the `AndShort` whose target is `end` (an operand's own
/// jumps land within it, so it is the nearest one before `end`), then the
/// link before it ends where that one starts, and so on; what is left is
/// the leftmost operand, whatever its code. Each operand is read once.
fn backward(code: &[Op], start: u32, from: usize, end: usize) -> Option<(Operands, usize)> {
    let local = |t: JumpTarget| t.as_usize().checked_sub(start as usize);
    let mut operands = Operands::new();
    let mut e = end;
    while e >= from + 3 && matches!(code.get(e - 1), Some(Op::AndJoin)) {
        let Some(s) = (from + 1..e - 1)
            .rev()
            .find(|&s| matches!(code.get(s), Some(Op::AndShort(t)) if local(*t) == Some(e)))
        else {
            break;
        };
        let join = (start as usize).saturating_add(e - 1);
        if !jumps_within(code.get(s + 1..e - 1)?, join) {
            return None;
        }
        operands.push(s + 1..e - 1);
        e = s;
    }
    let first = code.get(from..e).filter(|first| !first.is_empty())?;
    if !jumps_within(first, (start as usize).saturating_add(e)) {
        return None;
    }
    operands.push(from..e);
    operands.reverse();
    Some((operands, end))
}

/// The operand whose code is `range`: a conjunct, an `||` chain of
/// conjuncts that fills it exactly, or neither.
fn operand(code: &[Op], start: u32, range: Range<usize>) -> ChainOperand {
    let Some(slice) = code.get(range.clone()) else {
        return ChainOperand::Other;
    };
    if let Some(c) = Conjunct::from_code(slice) {
        return ChainOperand::One(c);
    }
    let first = [1, 3]
        .into_iter()
        .find(|&len| slice.get(..len).and_then(Conjunct::from_code).is_some());
    match first.and_then(|len| links(code, start, range.start, len, false, Some(range.end))) {
        Some((alternatives, _)) if alternatives.len() > 1 => any_of(code, &alternatives),
        _ => ChainOperand::Other,
    }
}

/// The `||` chain whose operands' code is `alternatives`, when each is a
/// conjunct.
fn any_of(code: &[Op], alternatives: &[Range<usize>]) -> ChainOperand {
    let conjuncts: Option<Box<[Conjunct]>> = alternatives
        .iter()
        .map(|r| code.get(r.clone()).and_then(Conjunct::from_code))
        .collect();
    conjuncts.map_or(ChainOperand::Other, ChainOperand::AnyOf)
}

/// The operands (their code's positions) of the left-nested chain of `&&`
/// (`and`) or `||` links starting at `from`, whose leftmost operand is
/// `first` instructions long, and the position just past its last join:
///
/// ```text
/// [first] Short(N1) [operand] Join N1: Short(N2) ... Join Nk:
/// ```
///
/// The chain ends at the first instruction that starts no such link, or,
/// when `end` is given, exactly at `end` (else there is no chain). Each
/// operand is a self-contained block: a link whose operand jumps past its
/// join is no link.
fn links(
    code: &[Op],
    start: u32,
    from: usize,
    first: usize,
    and: bool,
    end: Option<usize>,
) -> Option<(Operands, usize)> {
    let mut ip = from.checked_add(first)?;
    let mut operands = Operands::new();
    operands.push(from..ip);
    loop {
        if end.is_some_and(|end| ip >= end) {
            return (Some(ip) == end).then_some((operands, ip));
        }
        let target = match code.get(ip) {
            Some(Op::AndShort(t)) if and => *t,
            Some(Op::OrShort(t)) if !and => *t,
            _ if end.is_none() => return Some((operands, ip)),
            _ => return None,
        };
        // The link's operand runs from just after the short circuit to
        // just before the join its target follows, within the chain.
        let next = target
            .as_usize()
            .checked_sub(start as usize)
            .filter(|&next| next >= ip + 3 && end.is_none_or(|end| next <= end))?;
        let joined = match code.get(next - 1) {
            Some(Op::AndJoin) => and,
            Some(Op::OrJoin) => !and,
            _ => false,
        };
        // The join sits just before `next`; an operand that jumps past it
        // is no operand of this chain.
        let join = (start as usize).saturating_add(next - 1);
        if !joined || !jumps_within(code.get(ip + 1..next - 1)?, join) {
            return None;
        }
        operands.push(ip + 1..next - 1);
        // `next >= ip + 3`: the walk only moves forward.
        ip = next;
    }
}

/// When the code from `ip` to the hook's end is a run of `? b : false`
/// links and then `Return`,
///
/// ```text
/// Branch{otherwise: E, end: L} [b] Jump(L) E: False L: ...
/// ```
///
/// (the lowering's code for `c ? b : false`, which condition trees use to
/// join operands left to right without CEL's error absorption,
/// `docs/src/semantics.md#condition-trees`): the conjuncts and `||` chains
/// of conjuncts of each `b`'s top-level `&&` chain, left to right
/// ([`HookShape::sequenced_conjuncts`], [`HookShape::sequenced_any_of`]).
/// Such a condition is `true` only where the code before `ip` leaves
/// `true`, and each `b` is.
fn sequenced(code: &[Op], start: u32, mut ip: usize) -> Option<Chain> {
    let local = |t: JumpTarget| t.as_usize().checked_sub(start as usize);
    let mut later = Chain::default();
    loop {
        match code.get(ip) {
            Some(Op::Return) if ip + 1 == code.len() => return Some(later),
            Some(Op::Branch { otherwise, end }) => {
                let (e, l) = (local(*otherwise)?, local(*end)?);
                // `[b] Jump(L)` between the branch and `E`, then `False`.
                let jump = e.checked_sub(1).filter(|&j| j > ip)?;
                let then = code.get(ip + 1..jump)?;
                let jump_ok = matches!(code.get(jump), Some(Op::Jump(t)) if local(*t) == Some(l));
                let last = (start as usize).saturating_add(jump);
                if !jump_ok
                    || l != e + 1
                    || !matches!(code.get(e), Some(Op::False))
                    || !jumps_within(then, last)
                {
                    return None;
                }
                if let Some(b) = Chain::decode(code, start, ip + 1, Some(jump)) {
                    later.conjuncts.extend(b.conjuncts);
                    later.any_of.extend(b.any_of);
                }
                ip = l;
            }
            _ => return None,
        }
    }
}

/// Whether every jump of `code` lands at or before position `last`.
fn jumps_within(code: &[Op], last: usize) -> bool {
    code.iter().all(|op| {
        let mut within = true;
        op.for_each_operand(|operand| {
            if let Operand::Jump(t) | Operand::Exit(t) = operand {
                within &= t.as_usize() <= last;
            }
        });
        within
    })
}

#[cfg(test)]
mod tests;
