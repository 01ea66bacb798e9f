//! The interpreter: runs one hook's condition code of a [`VerifiedProgram`]
//! against a [`PathCache`], and fills a matched hook's action templates.
//!
//! The hot loop ([`eval_hook`]) is a flat `match` over the hook's `&[Op]`
//! with an explicit operand stack and an explicit stack of macro frames, both
//! [`SmallVec`]s: no recursion, and no heap allocation for programs whose
//! operand stack stays within [`INLINE_STACK`] values and whose macros nest
//! at most [`INLINE_FRAMES`] deep (only list literals with computed items and
//! `+` on strings or lists build values on the heap, as they must). One
//! exception outside the VM's control: the `regex` crate allocates a search
//! cache the first time a thread runs each regex, so an allocation count
//! should be taken after a warm-up evaluation.
//!
//! Every operation is one of [`crate::value`]'s functions: the VM decides
//! control flow only (short circuits, `?:`, macro iteration), so it agrees
//! with the reference evaluator by construction. `binary` and `unary`
//! map the pure instructions to those functions; the compiler's constant
//! folding (`hookc::lower`) uses the same two functions, so a folded constant is
//! exactly what the instruction would have computed.
//!
//! Termination and cost: every jump is forward (checked again here, so a bad
//! target ends evaluation instead of looping), and the one backward transfer,
//! `MacroNext` jumping back to its body, happens only after taking one
//! iteration from a budget of [`MAX_MACRO_ITERATIONS`] per hook evaluation,
//! shared by all macros of the hook at every nesting level. Between two
//! backward transfers the instruction pointer only grows, so at most `L`
//! instructions run, `L` the hook's code length: one evaluation of one hook
//! executes at most `L × (1 + MAX_MACRO_ITERATIONS)` instructions
//! ([`ErrorSite::steps`] counts them when tracing;
//! `crates/hookc/tests/suite/limits.rs` checks
//! the bound). Each instruction costs time linear in the size of the values
//! it reads and makes ([`crate::value`]: string predicates, `==`, `in`,
//! `size`, `+`, list literals; `matches` runs the `regex` crate's searches,
//! linear in the haystack for a compiled regex of bounded size).
//!
//! Robustness: the verifier guarantees every index, jump target and stack
//! depth, but the VM still never panics or indexes unchecked: a state that a
//! verified program cannot reach (an empty stack, a bad index, running off
//! the end of the code) ends the evaluation with
//! `Val::Error(EvalError::InvalidArgument)`.

use crate::bytecode::shape::Leaf;
use crate::bytecode::Kinds;
use crate::bytecode::{
    ActionIdx, CmpOp, JumpTarget, MacroOp, Op, ParamValue, PathIdx, TableIdx, TemplatePart,
};
use crate::context::PathCache;
use crate::limits::{MAX_LOCAL_SLOTS, MAX_MACRO_ITERATIONS};
use crate::value::check::{self, ActionError};
use crate::value::{self, Arith, EvalError, Num, Order, StrPred, Val};
use crate::verify::VerifiedProgram;
use serde_json::{Map, Value};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::cmp::Ordering;

mod fill;
mod fused;

pub use fill::*;
use fused::{join_bools, or_matches};

/// Operand-stack values held inline before the stack spills to the heap.
pub const INLINE_STACK: usize = 16;

/// Macro nesting held inline before the frame stack spills to the heap.
pub const INLINE_FRAMES: usize = 4;

/// Where the first error value of an evaluation came from, for explain output.
///
/// `op` is the absolute code index (into [`Program::code`](crate::bytecode::Program::code)) of the first
/// instruction, in execution order, whose result was an error value. Errors
/// are created at one instruction and then only propagate, so this is where
/// an error originated. It is recorded whether or not the error was absorbed
/// later (`err || true`); consult it when the hook's result is an error.
/// Only the first is kept: an `ErrorSite` that already holds a site is not
/// overwritten.
///
/// It also counts the instructions executed (`steps`), which makes the cost
/// bound testable without timing: one evaluation of one hook executes at most
/// `L × (1 + MAX_MACRO_ITERATIONS)` instructions, `L` the hook's code length
/// (see the module documentation).
///
/// Explain traces also set `watch`: the code indexes of sub-conditions'
/// last instructions ([`crate::bytecode::Mark::op`], ascending). Right
/// after one of them runs, the value on top of the stack is appended to
/// `values` (a `MacroNext` that runs again replaces its own entry: its last
/// run gives the macro's value).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ErrorSite {
    /// Code index of the first instruction that produced an error value.
    pub op: Option<u32>,
    /// Instructions executed, added up over every evaluation traced into this
    /// site (counted only when tracing, so the normal path pays nothing).
    pub steps: u64,
    /// Instructions whose result to record, ascending.
    pub watch: Vec<u32>,
    /// `(instruction, its result)` for each watched instruction run, in
    /// execution order.
    pub values: Vec<(u32, Result<Value, EvalError>)>,
}

/// The operand stack.
type Stack<'a> = SmallVec<[Val<'a>; INLINE_STACK]>;

/// One running macro (`exists`, `all`, `exists_one`).
// INVARIANT (frames): `frames` holds one frame per macro whose body is
// running, innermost last: `MacroStart` pushes one only when it runs the body,
// and the `MacroNext` that decides pops it. `Var(d)` reads `frames[len-1-d]`.
struct MacroFrame<'a> {
    /// Which macro.
    kind: MacroOp,
    /// Local index of the body's first instruction (just after `MacroStart`).
    body: usize,
    /// The range value (kept so that borrowed elements stay valid).
    range: Val<'a>,
    /// For an object range: its keys, walked once (an object has no O(1)
    /// access to its `i`th key, so indexing would make iteration quadratic).
    keys: Option<serde_json::map::Keys<'a>>,
    /// For a list range: the index of the next element to bind.
    next: usize,
    /// The variable's current value.
    elem: Val<'a>,
    /// `exists_one`: how many elements gave `true` so far.
    trues: usize,
    /// `exists` / `all`: the first error (or non-bool) seen so far, which is
    /// the result unless a deciding element comes later.
    error: Option<EvalError>,
    /// `map` / `filter`: the result's items so far (empty, and not
    /// allocated, for the other macros).
    items: Vec<Val<'a>>,
}

impl<'a> MacroFrame<'a> {
    /// The next element of the range, or `None` when it is exhausted (or
    /// not iterable).
    fn advance(&mut self) -> Option<Val<'a>> {
        if let Some(keys) = &mut self.keys {
            return keys.next().map(|k| Val::Str(Cow::Borrowed(k.as_str())));
        }
        let v = self.range.element(self.next)?;
        self.next += 1;
        Some(v)
    }

    /// Drops the frame, its range and element through [`discard`]: most
    /// own nothing (a list or a command borrowed from the context or the
    /// parse, a string of it), and the drop glue was two calls a macro
    /// (callgrind, bundled Claude Code guard on a 200-character command).
    fn retire(self) {
        let MacroFrame {
            range, elem, items, ..
        } = self;
        discard(range);
        discard(elem);
        drop(items);
    }

    /// The result once every element has run without deciding.
    fn exhausted(&mut self) -> Val<'a> {
        match self.kind {
            MacroOp::Exists => self.error.map_or(Val::Bool(false), Val::Error),
            MacroOp::All => self.error.map_or(Val::Bool(true), Val::Error),
            MacroOp::ExistsOne => Val::Bool(self.trues == 1),
            MacroOp::Map | MacroOp::Filter => Val::List(std::mem::take(&mut self.items)),
        }
    }
}

/// The value of an impossible state (unreachable for verified programs).
#[cold]
#[inline(never)]
fn invalid<'a>() -> Val<'a> {
    Val::Error(EvalError::InvalidArgument)
}

/// The value at path `i`, or the error a path that does not resolve gives.
/// Shared by `Path` and the fused `Path*` instructions.
#[inline(always)]
fn path_val<'a>(paths: &mut PathCache<'a>, i: PathIdx) -> Val<'a> {
    paths
        .get(i)
        .map_or(Val::Error(EvalError::NoSuchKey), Val::from_json)
}

/// `a OP b` for the comparison instructions (`Cmp` and `PathCmpConst`).
#[inline(always)]
pub(crate) fn cmp<'a>(op: CmpOp, a: &Val<'a>, b: &Val<'a>) -> Val<'a> {
    match op {
        CmpOp::Eq => value::equals(a, b),
        CmpOp::Ne => value::not(&value::equals(a, b)),
        CmpOp::Lt => value::compare(Order::Lt, a, b),
        CmpOp::Le => value::compare(Order::Le, a, b),
        CmpOp::Gt => value::compare(Order::Gt, a, b),
        CmpOp::Ge => value::compare(Order::Ge, a, b),
    }
}

/// `paths[path] OP k` for a fused leaf. String (in)equality, the commonest
/// leaf, is answered on the JSON values directly; everything else goes
/// through [`cmp`] with the same result.
#[inline(always)]
fn cmp_leaf<'a>(
    paths: &mut PathCache<'a>,
    path: PathIdx,
    op: CmpOp,
    k: &'a serde_json::Value,
) -> Val<'a> {
    use serde_json::Value;
    // PERF: the common pairs are answered on the JSON values, building no
    // `Val` (whose drop glue is a call per temporary: the compiler cannot
    // see that a `from_json` result holds nothing to free). Each arm is
    // `cmp`'s own rule for that pair: equality across kinds is `false`,
    // numbers are ordered as `Num`, NaN is unordered and unequal.
    match (paths.get(path), k, op) {
        (Some(Value::String(a)), Value::String(b), CmpOp::Eq) => Val::Bool(value::same_str(a, b)),
        (Some(Value::String(a)), Value::String(b), CmpOp::Ne) => Val::Bool(!value::same_str(a, b)),
        (Some(a), Value::Null, CmpOp::Eq) => Val::Bool(a.is_null()),
        (Some(a), Value::Null, CmpOp::Ne) => Val::Bool(!a.is_null()),
        (Some(Value::Number(a)), Value::Number(b), _) => {
            let ord = Num::of(a).order(Num::of(b));
            Val::Bool(match op {
                CmpOp::Eq => ord == Some(Ordering::Equal),
                CmpOp::Ne => ord != Some(Ordering::Equal),
                CmpOp::Lt => Order::Lt.holds(ord),
                CmpOp::Le => Order::Le.holds(ord),
                CmpOp::Gt => Order::Gt.holds(ord),
                CmpOp::Ge => Order::Ge.holds(ord),
            })
        }
        (Some(a), _, _) => cmp(op, &Val::from_json(a), &Val::from_json(k)),
        (None, _, _) => Val::Error(EvalError::NoSuchKey),
    }
}

/// The value of a context leaf; `None` for a bad table index (impossible
/// in a verified program).
#[inline(always)]
fn leaf_value<'a>(
    prog: &'a VerifiedProgram,
    leaf: Leaf,
    paths: &mut PathCache<'a>,
) -> Option<Val<'a>> {
    Some(match leaf {
        Leaf::Cmp { path, op, konst } => cmp_leaf(paths, path, op, prog.program().konst(konst)?),
        Leaf::InSet { path, set } => prog.set(set)?.contains(&path_val(paths, path)),
        Leaf::Matches { path, regex } => value::matches(&path_val(paths, path), prog.regex(regex)?),
        Leaf::Has { path } => Val::Bool(paths.get(path).is_some()),
    })
}

/// The `0 -> 1` instructions that read the context: the context leaves
/// ([`Leaf`]: `PathCmpConst`, `PathInSet`, `PathMatches`, `HasPath`).
/// `None` for any other op, or a bad table index (impossible in a verified
/// program).
#[inline(always)]
pub(crate) fn context_leaf<'a>(
    prog: &'a VerifiedProgram,
    op: &Op,
    paths: &mut PathCache<'a>,
) -> Option<Val<'a>> {
    leaf_value(prog, Leaf::from_op(op)?, paths)
}

/// Whether a hook's flat conjunction (`HookShape::conjunction`: the leaves
/// of a condition that is a left-folded `&&` chain of context leaves)
/// matches, that is its code would give `Bool(true)`: exactly when every
/// leaf gives `true` (a `false` makes `&&` false, an error or a non-bool
/// makes it an error or false), so the first leaf that does not ends the
/// test. Leaves are evaluated left to right, as the code runs them.
#[inline]
pub fn conjunction_holds<'a>(
    prog: &'a VerifiedProgram,
    leaves: &[Leaf],
    paths: &mut PathCache<'a>,
) -> bool {
    leaves
        .iter()
        .all(|&leaf| leaf_value(prog, leaf, paths).is_some_and(is_true))
}

/// Drops a value the interpreter is done with. PERF: the kinds that own
/// nothing (all but a built string or list: most of what a condition
/// computes) are let go without the out-of-line drop glue, which was 8% of
/// a random 10-hook policy's decision (callgrind).
#[inline(always)]
fn discard(v: Val<'_>) {
    match v {
        Val::Str(Cow::Owned(_)) | Val::List(_) => drop(v),
        // Own nothing (borrowed, or `Copy`): forgetting them frees nothing
        // there was to free. Listed one by one, so that a variant added
        // later must be placed here, not leaked by a catch-all.
        Val::Null
        | Val::Bool(_)
        | Val::Int(_)
        | Val::Double(_)
        | Val::Str(Cow::Borrowed(_))
        | Val::Array(_)
        | Val::Words(_)
        | Val::Object(_)
        | Val::Command(_)
        | Val::Commands(_)
        | Val::Error(_) => std::mem::forget(v),
    }
}

/// `v == Bool(true)`, taking `v`.
// PERF: by value and matched first, so a leaf answered on the JSON values
// (a `Bool` the compiler can see) costs no out-of-line drop-glue call; only
// the arm for other values drops one.
#[inline(always)]
fn is_true(v: Val<'_>) -> bool {
    match v {
        Val::Bool(b) => b,
        _ => false,
    }
}

/// A builtin on the top `arity` values of the stack, which it pops (an
/// impossible short stack is an `invalid argument` value).
#[inline(never)]
fn call<'a>(
    f: crate::bytecode::FuncId,
    pattern: Option<&crate::value::PolicyRegex>,
    stack: &mut Stack<'a>,
    paths: &mut PathCache<'a>,
) -> Val<'a> {
    // Verified: the id is a builtin's, and the arity its own.
    let Some(builtin) = crate::functions::Builtin::of(f) else {
        return invalid();
    };
    let Some(at) = stack.len().checked_sub(f.arity() as usize) else {
        return invalid();
    };
    // PERF: the arguments are read where they lie and dropped there:
    // draining them into a vector of their own cost 5% of a bundled
    // guard's decision (callgrind, `decide_count`: 539k -> 515k).
    let result = match stack.get(at..) {
        Some(args) => crate::functions::call(builtin, args, pattern, paths.scratch()),
        None => invalid(),
    };
    // One by one through `discard`: most arguments own nothing.
    while stack.len() > at {
        if let Some(v) = stack.pop() {
            discard(v);
        }
    }
    result
}

/// `Row(t)`: the first row of pattern table `t` matching the string at its
/// path, as its object; `null` when none matches; `no such key` when the
/// path does not resolve, `no such overload` when it is not a string.
/// `None` for a bad index (impossible in a verified program).
fn row<'a>(prog: &'a VerifiedProgram, t: TableIdx, paths: &mut PathCache<'a>) -> Option<Val<'a>> {
    let table = prog.program().table(t)?;
    Some(match paths.get(table.on) {
        None => Val::Error(EvalError::NoSuchKey),
        Some(Value::String(s)) => match prog.first_row(t, s) {
            Ok(Some(i)) => match prog.program().konst(table.rows)? {
                Value::Array(rows) => Val::from_json(rows.get(i)?),
                _ => return None,
            },
            Ok(None) => Val::Null,
            Err(e) => Val::Error(e),
        },
        Some(_) => Val::Error(EvalError::NoSuchOverload),
    })
}

/// The pure `2 -> 1` instructions: `a OP b`. `None` for any other op.
#[inline(always)]
pub fn binary<'a>(op: &Op, a: &Val<'a>, b: &Val<'a>) -> Option<Val<'a>> {
    Some(match op {
        Op::Index => value::index(a, b),
        Op::Add => value::arith(Arith::Add, a, b),
        Op::Sub => value::arith(Arith::Sub, a, b),
        Op::Mul => value::arith(Arith::Mul, a, b),
        Op::Div => value::arith(Arith::Div, a, b),
        Op::Rem => value::arith(Arith::Rem, a, b),
        Op::Cmp(c) => cmp(*c, a, b),
        Op::In => value::contains_elem(a, b),
        Op::Contains => value::str_pred(StrPred::Contains, a, b),
        Op::StartsWith => value::str_pred(StrPred::StartsWith, a, b),
        Op::EndsWith => value::str_pred(StrPred::EndsWith, a, b),
        _ => return None,
    })
}

/// The pure `1 -> 1` instructions that need no table: `OP a`. `None` for
/// any other op.
#[inline(always)]
pub fn unary<'a>(op: &Op, a: &Val<'a>) -> Option<Val<'a>> {
    Some(match op {
        Op::Not => value::not(a),
        Op::Neg => value::negate(a),
        Op::Size => value::size(a),
        Op::TypeIs(bits) => Val::Bool(value::type_is(a, Kinds::from_bits(*bits))),
        _ => return None,
    })
}

/// Evaluates hook `hook`'s condition: its value (`Val::Bool(true)` for a
/// hook without a condition). The hook matches when this is `Bool(true)`;
/// an error value or a non-bool does not match.
///
/// `paths` must be a cache over this program's paths; values it resolves are
/// shared with the other hooks of the same evaluation. With `trace`, the
/// first instruction that produced an error value is recorded in it (see
/// [`ErrorSite`]); without, tracing costs nothing.
#[inline(never)]
pub fn eval_hook<'a>(
    prog: &'a VerifiedProgram,
    hook: u32,
    paths: &mut PathCache<'a>,
    trace: Option<&mut ErrorSite>,
) -> Val<'a> {
    let program = prog.program();
    let Some(entry) = program.hooks.get(hook as usize) else {
        return invalid();
    };
    let (start, end) = (entry.code.0 as usize, entry.code.1 as usize);
    if start == end {
        return Val::Bool(true);
    }
    let Some(code) = program.code.get(start..end) else {
        return invalid();
    };
    match trace {
        // PERF: no site at all untraced: a default one (two `Vec`s) cost an
        // out-of-line drop per hook run.
        None => run::<false>(prog, code, start, paths, None),
        Some(site) => run::<true>(prog, code, start, paths, Some(site)),
    }
}

/// The interpreter loop over one hook's code (`base` is its absolute start),
/// specialised on whether errors are traced.
#[inline(always)]
fn run<'a, const TRACE: bool>(
    prog: &'a VerifiedProgram,
    code: &[Op],
    base: usize,
    paths: &mut PathCache<'a>,
    mut site: Option<&mut ErrorSite>,
) -> Val<'a> {
    let program = prog.program();
    let mut stack: Stack<'a> = SmallVec::new();
    let mut frames: SmallVec<[MacroFrame<'a>; INLINE_FRAMES]> = SmallVec::new();
    let mut budget = MAX_MACRO_ITERATIONS;
    // Local names' values kept for their later uses in this code (`None`:
    // not computed yet, or an error). Allocated by the first `LocalStore`.
    let mut locals: Vec<Option<Val<'a>>> = Vec::new();
    let mut ip = 0usize;

    // A jump target as a local index; `None` unless strictly forward and
    // inside the hook (past its last instruction counts as inside: the
    // missing `Return` is then reported as an impossible state).
    let forward = |target: JumpTarget, ip: usize| -> Option<usize> {
        target
            .as_usize()
            .checked_sub(base)
            .filter(|&t| t > ip && t <= code.len())
    };

    macro_rules! bail {
        () => {
            return invalid()
        };
    }
    macro_rules! pop {
        () => {
            match stack.pop() {
                Some(v) => v,
                None => bail!(),
            }
        };
    }
    macro_rules! top {
        () => {
            match stack.last_mut() {
                Some(v) => v,
                None => bail!(),
            }
        };
    }
    macro_rules! target {
        ($t:expr) => {
            match forward($t, ip) {
                Some(t) => t,
                None => bail!(),
            }
        };
    }

    loop {
        let Some(op) = code.get(ip) else { bail!() };
        if let (true, Some(site)) = (TRACE, site.as_deref_mut()) {
            site.steps = site.steps.saturating_add(1);
        }
        let mut next = ip + 1;
        match *op {
            Op::Const(i) => match program.konst(i) {
                Some(v) => stack.push(Val::from_json(v)),
                None => bail!(),
            },
            Op::True => stack.push(Val::Bool(true)),
            Op::False => stack.push(Val::Bool(false)),
            Op::Null => stack.push(Val::Null),
            Op::Path(i) => stack.push(path_val(paths, i)),
            Op::Var(d) => {
                let frame = frames
                    .len()
                    .checked_sub(1 + usize::from(d))
                    .and_then(|k| frames.get(k));
                let Some(f) = frame else { bail!() };
                // PERF: `Var; Field` (`c.program`, `c.argv`) reads the
                // member of the element in place: the same `value::field`
                // on the same value, without the copy that `Field` would
                // replace and drop (untraced: a traced run steps through
                // both). A bad name is left to `Field`, which fails.
                let member = match code.get(next) {
                    Some(Op::Field(s)) if !TRACE => program.get_string(*s),
                    _ => None,
                };
                match member {
                    Some(name) => {
                        stack.push(value::field(&f.elem, name));
                        next += 1;
                    }
                    None => stack.push(f.elem.clone()),
                }
            }
            Op::HasPath(_) => match context_leaf(prog, op, paths) {
                Some(v) => stack.push(v),
                None => bail!(),
            },
            Op::Field(s) => {
                let Some(name) = program.get_string(s) else {
                    bail!()
                };
                let a = top!();
                let r = value::field(a, name);
                discard(std::mem::replace(a, r));
            }
            Op::HasField(s) => {
                let Some(name) = program.get_string(s) else {
                    bail!()
                };
                let a = top!();
                let r = Val::Bool(value::has_field(a, name));
                discard(std::mem::replace(a, r));
            }
            Op::Not | Op::Neg | Op::Size | Op::TypeIs(_) => {
                let a = top!();
                match unary(op, a) {
                    Some(r) => discard(std::mem::replace(a, r)),
                    None => bail!(),
                }
            }
            Op::Index
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Rem
            | Op::Cmp(_)
            | Op::In
            | Op::Contains
            | Op::StartsWith
            | Op::EndsWith => {
                let b = pop!();
                let a = top!();
                match binary(op, a, &b) {
                    Some(r) => discard(std::mem::replace(a, r)),
                    None => bail!(),
                }
                discard(b);
            }
            Op::InSet(i) => {
                let Some(set) = prog.set(i) else { bail!() };
                let a = top!();
                let r = set.contains(a);
                discard(std::mem::replace(a, r));
            }
            Op::Matches(i) => {
                let Some(re) = prog.regex(i) else { bail!() };
                let a = top!();
                let r = value::matches(a, re);
                discard(std::mem::replace(a, r));
                // A traced run steps through every instruction (its count
                // and its watched values).
                if !TRACE && matches!(code.get(next), Some(Op::OrShort(_))) {
                    next = or_matches(prog, code, base, next, a, &frames);
                }
            }
            Op::Call(f) => {
                let r = call(f, None, &mut stack, paths);
                stack.push(r);
            }
            Op::Row(t) => match row(prog, t, paths) {
                Some(v) => stack.push(v),
                None => bail!(),
            },
            Op::CallRegex { func, regex } => {
                let Some(re) = prog.regex(regex) else { bail!() };
                let r = call(func, Some(re), &mut stack, paths);
                stack.push(r);
            }
            Op::MakeList(n) => {
                let Some(at) = stack.len().checked_sub(n as usize) else {
                    bail!()
                };
                // CEL: a list literal with an error item is that error (the first).
                let error = stack.get(at..).and_then(|items| {
                    items.iter().find_map(|v| match v {
                        Val::Error(e) => Some(*e),
                        _ => None,
                    })
                });
                let list = match error {
                    Some(e) => {
                        stack.truncate(at);
                        Val::Error(e)
                    }
                    None => Val::List(stack.drain(at..).collect()),
                };
                stack.push(list);
            }
            Op::PathCmpConst { .. } | Op::PathInSet { .. } | Op::PathMatches { .. } => {
                match context_leaf(prog, op, paths) {
                    Some(v) => stack.push(v),
                    None => bail!(),
                }
            }
            Op::AndShort(t) => match stack.last() {
                Some(Val::Bool(false)) => next = target!(t),
                Some(_) => {}
                None => bail!(),
            },
            Op::OrShort(t) => match stack.last() {
                Some(Val::Bool(true)) => next = target!(t),
                Some(_) => {}
                None => bail!(),
            },
            Op::AndJoin => {
                let b = pop!();
                join_bools(top!(), b, false);
            }
            Op::OrJoin => {
                let b = pop!();
                join_bools(top!(), b, true);
            }
            Op::Branch { otherwise, end } => match pop!() {
                Val::Bool(true) => {}
                Val::Bool(false) => next = target!(otherwise),
                Val::Error(e) => {
                    stack.push(Val::Error(e));
                    next = target!(end);
                }
                _ => {
                    stack.push(Val::Error(EvalError::NoSuchOverload));
                    next = target!(end);
                }
            },
            Op::Jump(t) => next = target!(t),
            Op::MacroStart { kind, end } => {
                let range = pop!();
                let end = target!(end);
                let keys = match &range {
                    Val::Object(m) => {
                        let m: &'a Map<String, Value> = m;
                        Some(m.keys())
                    }
                    _ => None,
                };
                let mut frame = MacroFrame {
                    kind,
                    body: ip + 1,
                    range,
                    keys,
                    next: 0,
                    elem: Val::Null,
                    trues: 0,
                    error: None,
                    items: Vec::new(),
                };
                match frame.advance() {
                    None => {
                        let result = match &frame.range {
                            Val::Error(e) => Val::Error(*e),
                            r if r.element_count().is_none() => {
                                Val::Error(EvalError::NoSuchOverload)
                            }
                            _ => frame.exhausted(),
                        };
                        stack.push(result);
                        next = end;
                    }
                    Some(_) if budget == 0 => {
                        stack.push(Val::Error(EvalError::IterationLimit));
                        next = end;
                    }
                    Some(first) => {
                        budget -= 1;
                        discard(std::mem::replace(&mut frame.elem, first));
                        frames.push(frame);
                    }
                }
            }
            Op::MacroNext => {
                let v = pop!();
                let Some(frame) = frames.last_mut() else {
                    bail!()
                };
                // PERF: the body's value is read by reference and let go
                // with `discard` (it is a `Bool` nearly always): dropping
                // it, and the element replaced below, through the drop
                // glue was a call each per iteration (callgrind, bundled
                // Claude Code guard on a 200-character command).
                let decided = match (frame.kind, &v) {
                    (MacroOp::Map, Val::Error(e)) => {
                        let e = *e;
                        discard(v);
                        Some(Val::Error(e))
                    }
                    (MacroOp::Map, _) => {
                        frame.items.push(v);
                        None
                    }
                    (kind, body) => {
                        let decided = match (kind, body) {
                            (MacroOp::Exists, Val::Bool(true)) => Some(Val::Bool(true)),
                            (MacroOp::All, Val::Bool(false)) => Some(Val::Bool(false)),
                            (MacroOp::Exists | MacroOp::All, Val::Bool(_)) => None,
                            (MacroOp::Exists | MacroOp::All, Val::Error(e)) => {
                                frame.error.get_or_insert(*e);
                                None
                            }
                            (MacroOp::Exists | MacroOp::All, _) => {
                                frame.error.get_or_insert(EvalError::NonBoolPredicate);
                                None
                            }
                            (MacroOp::ExistsOne, Val::Bool(b)) => {
                                frame.trues += usize::from(*b);
                                None
                            }
                            (MacroOp::ExistsOne | MacroOp::Filter, Val::Error(e)) => {
                                Some(Val::Error(*e))
                            }
                            (MacroOp::ExistsOne, _) => {
                                Some(Val::Error(EvalError::NonBoolPredicate))
                            }
                            (MacroOp::Filter, Val::Bool(keep)) => {
                                if *keep {
                                    frame.items.push(frame.elem.clone());
                                }
                                None
                            }
                            (MacroOp::Filter, _) => Some(Val::Error(EvalError::NonBoolPredicate)),
                            // Taken by the arms above.
                            (MacroOp::Map, _) => None,
                        };
                        discard(v);
                        decided
                    }
                };
                let result = match decided {
                    Some(r) => Some(r),
                    None => match frame.advance() {
                        Some(_) if budget == 0 => Some(Val::Error(EvalError::IterationLimit)),
                        Some(elem) => {
                            budget -= 1;
                            discard(std::mem::replace(&mut frame.elem, elem));
                            next = frame.body;
                            None
                        }
                        None => Some(frame.exhausted()),
                    },
                };
                if let Some(r) = result {
                    if let Some(done) = frames.pop() {
                        done.retire();
                    }
                    stack.push(r);
                }
            }
            Op::LocalLoad { slot, end } => {
                if let Some(v) = kept(&locals, slot) {
                    stack.push(v);
                    next = target!(end);
                    // Explain watches the name's last instruction, the
                    // `LocalStore` just before `end`, which this skips.
                    if let (true, Some(site)) = (TRACE, site.as_deref_mut()) {
                        trace_step(site, base + next - 1, &stack);
                    }
                }
            }
            Op::LocalStore(slot) => {
                if !keep(&mut locals, slot, top!()) {
                    bail!()
                }
            }
            Op::Return => return pop!(),
        }
        let traced = if TRACE { site.as_deref_mut() } else { None };
        if let Some(site) = traced {
            trace_step(site, base + ip, &stack);
        }
        ip = next;
    }
}

/// `LocalLoad`'s read: a copy of the value kept in `slot`, if any.
// PERF: out of line, as `keep`: the interpreter loop of a code that keeps
// no local stays as it was (8% more instructions per decision of the
// bundled guard with these arms inline, callgrind).
#[inline(never)]
fn kept<'a>(locals: &[Option<Val<'a>>], slot: u16) -> Option<Val<'a>> {
    locals.get(usize::from(slot))?.clone()
}

/// `LocalStore`: keeps a copy of `v` in `slot`, unless it is an error;
/// `false` for a slot over the limit (impossible in a verified program).
#[inline(never)]
fn keep<'a>(locals: &mut Vec<Option<Val<'a>>>, slot: u16, v: &Val<'a>) -> bool {
    if matches!(v, Val::Error(_)) {
        return true;
    }
    let slot = usize::from(slot);
    if slot >= MAX_LOCAL_SLOTS {
        return false;
    }
    if locals.len() <= slot {
        locals.resize(slot + 1, None);
    }
    if let Some(kept) = locals.get_mut(slot) {
        *kept = Some(v.clone());
    }
    true
}

/// Records, after the instruction at `at` ran, its result when it is
/// watched and, the first time an error is on top, where it came from.
#[cold]
#[inline(never)]
fn trace_step(site: &mut ErrorSite, at: usize, stack: &Stack<'_>) {
    let pos = u32::try_from(at).ok();
    let at = pos.unwrap_or(u32::MAX);
    if !site.watch.is_empty() && site.watch.binary_search(&at).is_ok() {
        let value = match stack.last() {
            Some(Val::Error(e)) => Err(*e),
            Some(v) => Ok(v.to_json().unwrap_or(Value::Null)),
            None => Ok(Value::Null),
        };
        match site.values.last_mut() {
            Some(last) if last.0 == at => last.1 = value,
            _ => site.values.push((at, value)),
        }
    }
    // Every error on the stack was on top right after the instruction that
    // produced it, so the first time one is seen here is its origin.
    if site.op.is_none() {
        if let Some(Val::Error(_)) = stack.last() {
            site.op = pos;
        }
    }
}
