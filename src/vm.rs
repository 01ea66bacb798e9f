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
//! map the pure instructions to those functions; constant folding in
//! [`crate::lower`] uses the same two functions, so a folded constant is
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
//! ([`ErrorSite::steps`] counts them when tracing; `tests/limits.rs` checks
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

use crate::bytecode::{CmpOp, MacroOp, Op, ParamValue, Program, TemplatePart};
use crate::context::PathCache;
use crate::limits::MAX_MACRO_ITERATIONS;
use crate::ty::Kinds;
use crate::value::{self, Arith, EvalError, Order, StrPred, Val};
use crate::verify::VerifiedProgram;
use serde_json::{Map, Value};
use smallvec::SmallVec;
use std::borrow::Cow;

/// Operand-stack values held inline before the stack spills to the heap.
pub const INLINE_STACK: usize = 16;

/// Macro nesting held inline before the frame stack spills to the heap.
pub const INLINE_FRAMES: usize = 4;

/// Where the first error value of an evaluation came from, for explain output.
///
/// `op` is the absolute code index (into [`Program::code`]) of the first
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
struct Frame<'a> {
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
}

impl<'a> Frame<'a> {
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

    /// The result once every element has run without deciding.
    fn exhausted(&self) -> Val<'a> {
        match self.kind {
            MacroOp::Exists => self.error.map_or(Val::Bool(false), Val::Error),
            MacroOp::All => self.error.map_or(Val::Bool(true), Val::Error),
            MacroOp::ExistsOne => Val::Bool(self.trues == 1),
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
fn path_val<'a>(paths: &mut PathCache<'a>, i: u32) -> Val<'a> {
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
fn leaf<'a>(paths: &mut PathCache<'a>, path: u32, op: CmpOp, k: &'a serde_json::Value) -> Val<'a> {
    use serde_json::Value;
    match (paths.get(path), k, op) {
        (Some(Value::String(a)), Value::String(b), CmpOp::Eq) => Val::Bool(a == b),
        (Some(Value::String(a)), Value::String(b), CmpOp::Ne) => Val::Bool(a != b),
        // PERF: numbers viewed as numbers, whose drop the compiler sees is a
        // no-op (`from_json`'s result could be a string or a list).
        (Some(Value::Number(a)), Value::Number(b), _) => {
            cmp(op, &Val::from_number(a), &Val::from_number(b))
        }
        (Some(a), _, _) => cmp(op, &Val::from_json(a), &Val::from_json(k)),
        (None, _, _) => Val::Error(EvalError::NoSuchKey),
    }
}

/// The `0 -> 1` instructions that read the context: a fused leaf
/// (`PathCmpConst`, `PathInSet`, `PathMatches`) or `HasPath`. `None` for any
/// other op, or a bad table index (impossible in a verified program).
#[inline(always)]
pub(crate) fn context_leaf<'a>(
    prog: &'a VerifiedProgram,
    op: &Op,
    paths: &mut PathCache<'a>,
) -> Option<Val<'a>> {
    Some(match *op {
        Op::PathCmpConst { path, konst, op } => {
            leaf(paths, path, op, prog.program().consts.get(konst as usize)?)
        }
        Op::PathInSet { path, set } => prog.set(set)?.contains(&path_val(paths, path)),
        Op::PathMatches { path, regex } => {
            value::matches(&path_val(paths, path), prog.regex(regex)?)
        }
        Op::HasPath(i) => Val::Bool(paths.get(i).is_some()),
        _ => return None,
    })
}

/// The leaves of a hook whose whole condition is a left-folded `&&` chain of
/// context leaves (`L1 && L2 && …`, each one instruction), as lowered:
/// `L1 (AndShort L AndJoin)* Return`. `None` for any other code.
pub fn flat_conjunction(code: &[Op]) -> Option<Vec<Op>> {
    let (first, mut rest) = code.split_first()?;
    let is_leaf = |op: &Op| {
        matches!(
            op,
            Op::PathCmpConst { .. }
                | Op::PathInSet { .. }
                | Op::PathMatches { .. }
                | Op::HasPath(_)
        )
    };
    if !is_leaf(first) {
        return None;
    }
    let mut leaves = vec![*first];
    loop {
        match rest {
            [Op::Return] => return Some(leaves),
            [Op::AndShort(_), l, Op::AndJoin, tail @ ..] if is_leaf(l) => {
                leaves.push(*l);
                rest = tail;
            }
            _ => return None,
        }
    }
}

/// Evaluates a flat conjunction (see [`flat_conjunction`]) exactly as the
/// interpreter runs its code: left to right, a `false` ends it, otherwise
/// `&&`'s combination (errors absorbed by a later `false`).
#[inline]
pub fn eval_conjunction<'a>(
    prog: &'a VerifiedProgram,
    leaves: &[Op],
    paths: &mut PathCache<'a>,
) -> Val<'a> {
    // PERF: context leaves give bools or errors, and over those `&&` is:
    // the first `false`, else the first error, else `true`. Tracking that
    // needs no `Val` kept and dropped per leaf. Any other value (none is
    // known) takes the general fold, which `&&` defines.
    let mut first_error = None;
    for op in leaves {
        match context_leaf(prog, op, paths) {
            Some(Val::Bool(true)) => {}
            Some(Val::Bool(false)) => return Val::Bool(false),
            Some(Val::Error(e)) => {
                first_error.get_or_insert(e);
            }
            Some(_) => return fold_conjunction(prog, leaves, paths),
            None => return invalid(),
        }
    }
    first_error.map_or(Val::Bool(true), Val::Error)
}

/// [`eval_conjunction`] by `value::and`, for any leaf values.
#[cold]
fn fold_conjunction<'a>(
    prog: &'a VerifiedProgram,
    leaves: &[Op],
    paths: &mut PathCache<'a>,
) -> Val<'a> {
    let mut acc: Option<Val<'a>> = None;
    for op in leaves {
        if matches!(acc, Some(Val::Bool(false))) {
            break;
        }
        let Some(v) = context_leaf(prog, op, paths) else {
            return invalid();
        };
        acc = Some(match acc {
            None => v,
            Some(a) => value::and(a, v),
        });
    }
    acc.unwrap_or_else(invalid)
}

/// The pure `2 -> 1` instructions: `a OP b`. `None` for any other op.
#[inline(always)]
pub(crate) fn binary<'a>(op: &Op, a: &Val<'a>, b: &Val<'a>) -> Option<Val<'a>> {
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
pub(crate) fn unary<'a>(op: &Op, a: &Val<'a>) -> Option<Val<'a>> {
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
    // PERF: the commonest condition is one fused leaf (`path OP constant`);
    // answer it without setting up the interpreter. Same helper, same
    // result as the loop below.
    if let (None, [single, Op::Return]) = (&trace, code) {
        if let Some(v) = context_leaf(prog, single, paths) {
            return v;
        }
    }
    match trace {
        None => run::<false>(prog, code, start, paths, &mut ErrorSite::default()),
        Some(site) => run::<true>(prog, code, start, paths, site),
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
    site: &mut ErrorSite,
) -> Val<'a> {
    let program = prog.program();
    let mut stack: Stack<'a> = SmallVec::new();
    let mut frames: SmallVec<[Frame<'a>; INLINE_FRAMES]> = SmallVec::new();
    let mut budget = MAX_MACRO_ITERATIONS;
    let mut ip = 0usize;

    // A jump target as a local index; `None` unless strictly forward and
    // inside the hook (past its last instruction counts as inside: the
    // missing `Return` is then reported as an impossible state).
    let forward = |target: u32, ip: usize| -> Option<usize> {
        (target as usize)
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
        if TRACE {
            site.steps = site.steps.saturating_add(1);
        }
        let mut next = ip + 1;
        match *op {
            Op::Const(i) => match program.consts.get(i as usize) {
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
                match frame {
                    Some(f) => stack.push(f.elem.clone()),
                    None => bail!(),
                }
            }
            Op::HasPath(_) => match context_leaf(prog, op, paths) {
                Some(v) => stack.push(v),
                None => bail!(),
            },
            Op::Field(s) => {
                let Some(name) = program.strings.get(s as usize) else {
                    bail!()
                };
                let a = top!();
                *a = value::field(a, name);
            }
            Op::HasField(s) => {
                let Some(name) = program.strings.get(s as usize) else {
                    bail!()
                };
                let a = top!();
                *a = Val::Bool(value::has_field(a, name));
            }
            Op::Not | Op::Neg | Op::Size | Op::TypeIs(_) => {
                let a = top!();
                match unary(op, a) {
                    Some(r) => *a = r,
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
                    Some(r) => *a = r,
                    None => bail!(),
                }
            }
            Op::InSet(i) => {
                let Some(set) = prog.set(i) else { bail!() };
                let a = top!();
                *a = set.contains(a);
            }
            Op::Matches(i) => {
                let Some(re) = prog.regex(i) else { bail!() };
                let a = top!();
                *a = value::matches(a, re);
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
                let a = top!();
                *a = value::and(std::mem::replace(a, Val::Null), b);
            }
            Op::OrJoin => {
                let b = pop!();
                let a = top!();
                *a = value::or(std::mem::replace(a, Val::Null), b);
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
                let mut frame = Frame {
                    kind,
                    body: ip + 1,
                    range,
                    keys,
                    next: 0,
                    elem: Val::Null,
                    trues: 0,
                    error: None,
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
                        frame.elem = first;
                        frames.push(frame);
                    }
                }
            }
            Op::MacroNext => {
                let v = pop!();
                let Some(frame) = frames.last_mut() else {
                    bail!()
                };
                let decided = match (frame.kind, v) {
                    (MacroOp::Exists, Val::Bool(true)) => Some(Val::Bool(true)),
                    (MacroOp::All, Val::Bool(false)) => Some(Val::Bool(false)),
                    (MacroOp::Exists | MacroOp::All, Val::Bool(_)) => None,
                    (MacroOp::Exists | MacroOp::All, Val::Error(e)) => {
                        frame.error.get_or_insert(e);
                        None
                    }
                    (MacroOp::Exists | MacroOp::All, _) => {
                        frame.error.get_or_insert(EvalError::NonBoolPredicate);
                        None
                    }
                    (MacroOp::ExistsOne, Val::Bool(b)) => {
                        frame.trues += usize::from(b);
                        None
                    }
                    (MacroOp::ExistsOne, Val::Error(e)) => Some(Val::Error(e)),
                    (MacroOp::ExistsOne, _) => Some(Val::Error(EvalError::NonBoolPredicate)),
                };
                let result = match decided {
                    Some(r) => Some(r),
                    None => match frame.advance() {
                        Some(_) if budget == 0 => Some(Val::Error(EvalError::IterationLimit)),
                        Some(elem) => {
                            budget -= 1;
                            frame.elem = elem;
                            next = frame.body;
                            None
                        }
                        None => Some(frame.exhausted()),
                    },
                };
                if let Some(r) = result {
                    frames.pop();
                    stack.push(r);
                }
            }
            Op::Return => return pop!(),
        }
        if TRACE && !site.watch.is_empty() {
            let at = u32::try_from(base + ip).unwrap_or(u32::MAX);
            if site.watch.binary_search(&at).is_ok() {
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
        }
        if TRACE && site.op.is_none() {
            // Every error on the stack was on top right after the instruction
            // that produced it, so the first time one is seen here is its origin.
            if let Some(Val::Error(_)) = stack.last() {
                site.op = u32::try_from(base + ip).ok();
            }
        }
        ip = next;
    }
}

/// A matched hook's action as the runtime returns it: `{"type": KIND,
/// ...params}` with every template filled in (SPEC §4).
///
/// A whole template (`"${path}"`) keeps the referenced value's JSON type and
/// is `null` when the path does not resolve; references inside a longer
/// string are stringified (strings as they are; numbers, bools, `null`,
/// arrays and objects as compact JSON) and are the empty string when they do
/// not resolve. A bad action index (impossible for verified programs) gives
/// an empty map.
pub fn fill_action(
    prog: &VerifiedProgram,
    action: u32,
    paths: &mut PathCache<'_>,
) -> Map<String, Value> {
    let program = prog.program();
    let mut out = Map::new();
    let Some(entry) = program.actions.get(action as usize) else {
        return out;
    };
    out.insert(
        "type".to_owned(),
        Value::String(program.string(entry.kind).to_owned()),
    );
    for (name, value) in &entry.params {
        out.insert(
            program.string(*name).to_owned(),
            fill(program, value, paths),
        );
    }
    out
}

/// One parameter value with its templates filled.
fn fill(program: &Program, value: &ParamValue, paths: &mut PathCache<'_>) -> Value {
    match value {
        ParamValue::Const(i) => program
            .consts
            .get(*i as usize)
            .cloned()
            .unwrap_or(Value::Null),
        ParamValue::Template(parts) => match parts.as_slice() {
            [TemplatePart::Path(p)] => paths.get(*p).cloned().unwrap_or(Value::Null),
            parts => {
                let mut text = String::new();
                for part in parts {
                    match part {
                        TemplatePart::Lit(s) => text.push_str(program.string(*s)),
                        TemplatePart::Path(p) => match paths.get(*p) {
                            Some(Value::String(s)) => text.push_str(s),
                            Some(other) => text.push_str(&other.to_string()),
                            None => {}
                        },
                    }
                }
                Value::String(text)
            }
        },
        ParamValue::List(items) => {
            Value::Array(items.iter().map(|v| fill(program, v, paths)).collect())
        }
        ParamValue::Object(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (program.string(*k).to_owned(), fill(program, v, paths)))
                .collect(),
        ),
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use crate::compile::{compile, Input};
    use crate::context::Source;
    use crate::expr_program::{compile_expr, Mode};
    use crate::ir::Policy;
    use crate::reference;
    use crate::schema::ContextSchema;
    use crate::verify::verify;
    use serde_json::json;

    type Outcome = Result<Value, EvalError>;

    fn outcome(v: Val<'_>) -> Outcome {
        match v {
            Val::Error(e) => Err(e),
            v => Ok(v.to_json().unwrap()),
        }
    }

    fn policy(src: &str) -> Policy {
        let c = compile(&[Input::new("t.yaml", src)]);
        assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
        c.policy.unwrap()
    }

    fn when(expr: &str) -> String {
        format!(
            "hooks:\n  - id: h\n    event: e\n    when: {}\n    action: {{type: continue}}\n",
            serde_json::to_string(expr).unwrap()
        )
    }

    /// Runs every enabled hook of the policy on `ctx` with the VM (with and
    /// without tracing), checks each against the reference evaluator, and
    /// returns the outcomes in order.
    fn run_policy(policy: &Policy, ctx: &Value) -> Vec<Outcome> {
        let prog = verify(crate::lower::lower(policy)).unwrap();
        let mut cache = PathCache::new(&prog.program().paths, Source::Document(ctx));
        let enabled = policy.hooks().iter().filter(|h| h.enabled);
        let mut out = Vec::new();
        for (k, hook) in enabled.enumerate() {
            let k = u32::try_from(k).unwrap();
            let vm = outcome(eval_hook(&prog, k, &mut cache, None));
            let mut site = ErrorSite::default();
            let traced = outcome(eval_hook(&prog, k, &mut cache, Some(&mut site)));
            assert_eq!(vm, traced);
            // An error result always has a site (an absorbed error may leave one too).
            assert!(vm.is_ok() || site.op.is_some());
            let expected = match &hook.condition {
                None => Ok(Value::Bool(true)),
                Some(c) => {
                    let consts = reference::Constants::new(c);
                    outcome(reference::eval_with(c, policy.paths(), ctx, &consts))
                }
            };
            assert_eq!(vm, expected, "hook {} on {ctx}", hook.id);
            out.push(vm);
        }
        out
    }

    /// A `when` condition (type-checked) on a context.
    fn eval(expr: &str, ctx: &Value) -> Outcome {
        run_policy(&policy(&when(expr)), ctx).remove(0)
    }

    /// Any expression (not type-checked) on a context.
    fn value(expr: &str, ctx: &Value) -> Outcome {
        let c = compile_expr(expr, &ContextSchema::builtin(), Mode::Unchecked).unwrap();
        run_policy(&c.policy(), ctx).remove(0)
    }

    fn ctx() -> Value {
        json!({"x": {
            "a": 2, "d": 2.5, "s": "abc", "t": true, "f": false, "n": null,
            "o": {"k": 1, "j": "v"},
            "l": [{"k": 1}, {"k": 2}, {}],
            "nums": [1, 2, 3], "i": 1,
            "m": [[1, 2], [3, 4]]
        }})
    }

    #[test]
    fn every_operation_computes_as_value_rs_does() {
        let c = ctx();
        let t = Ok(json!(true));
        for e in [
            "x.a + 1 == 3",
            "x.a - 1 == 1",
            "x.a * x.d == 5.0",
            "x.a / 2 == 1",
            "x.a % 2 == 0",
            "-x.a == -2",
            "!x.f",
            "x.a < 3 && x.a <= 2 && x.a > 1 && x.a >= 2 && x.a != 3",
            "x.a < x.d",
            "x.s in ['a', 'abc']",
            "'k' in x.o",
            "x.a in x.nums",
            "size(x.s) == 3 && x.nums.size() == 3 && size(x.o) == 2",
            "x.s.contains('b') && x.s.startsWith('a') && x.s.endsWith('c')",
            "x.s.matches('^a.c$')",
            "(x.s + 'd').matches('d$')",
            "has(x.o.k) && !has(x.o.zz) && has(x.n)",
            "x.l[0].k == 1 && x.l[x.i].k == 2",
            "x.l.exists(e, has(e.k) && e.k == 2)",
            "[x.a, 1] == [2, 1]",
            "[x.a, x.d][1] == 2.5",
            "x.t ? x.a == 2 : x.a == 3",
            "x.f ? false : true",
            "x.m.exists(r, r.exists(c, c == r[0] + 1 && r[0] == 3))",
            "x.o.exists(k, k == 'j')",
        ] {
            assert_eq!(eval(e, &c), t, "{e}");
        }
        assert_eq!(value("x.a + x.d", &c), Ok(json!(4.5)));
        assert_eq!(value("x.s + 'd'", &c), Ok(json!("abcd")));
        assert_eq!(value("x.nums + [4]", &c), Ok(json!([1, 2, 3, 4])));
        assert_eq!(value("[x.a, 'y']", &c), Ok(json!([2, "y"])));
        assert_eq!(value("x.o.j", &c), Ok(json!("v")));
        assert_eq!(value("x.l[1]", &c), Ok(json!({"k": 2})));
        assert_eq!(value("x.a / 0", &c), Err(EvalError::DivisionByZero));
        assert_eq!(value("x.d % 2.0", &c), Err(EvalError::NoSuchOverload));
        assert_eq!(
            value("x.nums[x.i + 2]", &c),
            Err(EvalError::IndexOutOfRange)
        );
        assert_eq!(value("x.nums[3]", &c), Err(EvalError::NoSuchKey));
        assert_eq!(value("x.o.zz", &c), Err(EvalError::NoSuchKey));
        assert_eq!(value("x.zz", &c), Err(EvalError::NoSuchKey));
        assert_eq!(value("x.s < 1", &c), Err(EvalError::NoSuchOverload));
        assert_eq!(value("[x.a, x.zz, x.s < 1]", &c), Err(EvalError::NoSuchKey));
    }

    #[test]
    fn yaml_trees_and_matches_schemas_evaluate_too() {
        let src = r#"
hooks:
  - id: h
    event: e
    condition:
      all:
        - {path: x.s, op: regex, value: "^ab"}
        - {path: x.n, op: exists}
        - path: x.o
          op: matches
          value:
            type: object
            required: [k]
            properties:
              k: {type: integer, minimum: 1}
    action: {type: continue}
  - id: g
    event: e
    condition:
      any:
        - {path: x.a, op: in, value: [5, 6, 7, 8, 9, 10, 11, 12, 2.0]}
        - not: {path: x.zz, op: exists}
    action: {type: continue}
"#;
        let out = run_policy(&policy(src), &ctx());
        // `exists` is false for null: `has(p) && p != null`.
        assert_eq!(out, vec![Ok(json!(false)), Ok(json!(true))]);
        let mut c = ctx();
        c["x"]["n"] = json!(0);
        assert_eq!(run_policy(&policy(src), &c)[0], Ok(json!(true)));
        c["x"]["o"]["k"] = json!(0);
        assert_eq!(run_policy(&policy(src), &c)[0], Ok(json!(false)));
    }

    #[test]
    fn and_or_absorb_errors_in_both_orders() {
        let c = ctx();
        // x.zz is missing: an error value.
        assert_eq!(eval("x.f && x.zz == 1", &c), Ok(json!(false)));
        assert_eq!(eval("x.zz == 1 && x.f", &c), Ok(json!(false)));
        assert_eq!(eval("x.t || x.zz == 1", &c), Ok(json!(true)));
        assert_eq!(eval("x.zz == 1 || x.t", &c), Ok(json!(true)));
        assert_eq!(eval("x.zz == 1 && x.t", &c), Err(EvalError::NoSuchKey));
        assert_eq!(eval("x.t && x.zz == 1", &c), Err(EvalError::NoSuchKey));
        assert_eq!(eval("x.zz == 1 || x.f", &c), Err(EvalError::NoSuchKey));
        assert_eq!(eval("x.f || x.zz == 1", &c), Err(EvalError::NoSuchKey));
        // Literal sides (folded) agree.
        assert_eq!(eval("false && x.zz == 1", &c), Ok(json!(false)));
        assert_eq!(eval("x.zz == 1 && false", &c), Ok(json!(false)));
        assert_eq!(eval("true || x.zz == 1", &c), Ok(json!(true)));
        assert_eq!(eval("x.zz == 1 || true", &c), Ok(json!(true)));
        assert_eq!(eval("x.zz == 1 && true", &c), Err(EvalError::NoSuchKey));
        // The first error of two.
        assert_eq!(eval("x.zz == 1 && x.s < 1", &c), Err(EvalError::NoSuchKey));
        assert_eq!(
            value("x.s < 1 && x.zz == 1", &c),
            Err(EvalError::NoSuchOverload)
        );
        // Non-bools: decided by the other side, else an error.
        assert_eq!(value("x.s && x.f", &c), Ok(json!(false)));
        assert_eq!(value("x.s && x.t", &c), Err(EvalError::NoSuchOverload));
        assert_eq!(value("x.s || x.t", &c), Ok(json!(true)));
        assert_eq!(value("true && x.s", &c), Err(EvalError::NoSuchOverload));
        assert_eq!(value("x.s && false", &c), Ok(json!(false)));
    }

    #[test]
    fn conditional_on_an_error_or_non_bool_is_an_error() {
        let c = ctx();
        assert_eq!(value("x.t ? x.a : x.zz", &c), Ok(json!(2)));
        assert_eq!(value("x.f ? x.zz : x.s", &c), Ok(json!("abc")));
        assert_eq!(value("x.zz ? 1 : 2", &c), Err(EvalError::NoSuchKey));
        assert_eq!(value("x.s ? 1 : 2", &c), Err(EvalError::NoSuchOverload));
        assert_eq!(
            eval("(x.zz == 1 ? true : false) || x.t", &c),
            Ok(json!(true))
        );
    }

    #[test]
    fn macros_follow_cel_including_errors() {
        let c = json!({"x": {
            "err_then_true": [{}, {"k": 1}],
            "err_then_false": [{}, {"k": 2}],
            "ones": [1, 2, 3], "twos": [2, 2], "empty": [], "mixed": [1, true],
            "obj": {"a": 1, "b": 2}, "num": 5
        }});
        let e = |s: &str| value(s, &c);
        assert_eq!(e("x.err_then_true.exists(v, v.k == 1)"), Ok(json!(true)));
        assert_eq!(
            e("x.err_then_false.exists(v, v.k == 1)"),
            Err(EvalError::NoSuchKey)
        );
        assert_eq!(e("x.err_then_false.all(v, v.k == 1)"), Ok(json!(false)));
        assert_eq!(
            e("x.err_then_true.all(v, v.k == 1)"),
            Err(EvalError::NoSuchKey)
        );
        assert_eq!(e("x.ones.all(v, v > 0)"), Ok(json!(true)));
        assert_eq!(e("x.ones.exists_one(v, v == 2)"), Ok(json!(true)));
        assert_eq!(e("x.twos.exists_one(v, v == 2)"), Ok(json!(false)));
        assert_eq!(e("x.ones.exists_one(v, v > 5)"), Ok(json!(false)));
        assert_eq!(
            e("x.err_then_true.exists_one(v, v.k == 1)"),
            Err(EvalError::NoSuchKey)
        );
        // Non-bool predicate values.
        assert_eq!(e("x.ones.exists(v, v)"), Err(EvalError::NonBoolPredicate));
        assert_eq!(e("x.mixed.exists(v, v)"), Ok(json!(true)));
        assert_eq!(e("x.ones.all(v, v)"), Err(EvalError::NonBoolPredicate));
        assert_eq!(
            e("x.ones.exists_one(v, v)"),
            Err(EvalError::NonBoolPredicate)
        );
        // Empty, non-iterable and missing ranges.
        assert_eq!(e("x.empty.exists(v, v == 1)"), Ok(json!(false)));
        assert_eq!(e("x.empty.all(v, v == 1)"), Ok(json!(true)));
        assert_eq!(e("x.empty.exists_one(v, v == 1)"), Ok(json!(false)));
        assert_eq!(e("x.num.exists(v, v == 1)"), Err(EvalError::NoSuchOverload));
        assert_eq!(e("x.zz.all(v, v == 1)"), Err(EvalError::NoSuchKey));
        // Objects range over their keys; lists built at evaluation work too.
        assert_eq!(e("x.obj.all(k, k in ['a', 'b'])"), Ok(json!(true)));
        assert_eq!(e("x.obj.exists_one(k, x.obj[k] == 2)"), Ok(json!(true)));
        assert_eq!(e("[x.num, 6].exists(v, v == 6)"), Ok(json!(true)));
        // Nested, with the outer variable in the inner body and range.
        assert_eq!(
            e("[[1, 2], [3, 4]].all(r, r.exists_one(v, v >= r[0]))"),
            Ok(json!(false))
        );
        assert_eq!(
            e("[[1, 2], [3, 4]].all(r, r.exists(v, v == r[0] + 1))"),
            Ok(json!(true))
        );
        assert_eq!(
            e("x.ones.exists(a, x.ones.exists(b, x.ones.exists(c, a + b + c == 9)))"),
            Ok(json!(true))
        );
    }

    #[test]
    fn macros_stop_at_the_iteration_budget() {
        let big: Vec<u8> = vec![0; MAX_MACRO_ITERATIONS + 1];
        let c = json!({"x": {"big": big, "l": vec![0; 400]}});
        assert_eq!(
            value("x.big.all(v, v == 0)", &c),
            Err(EvalError::IterationLimit)
        );
        assert_eq!(value("x.big.exists(v, v == 0)", &c), Ok(json!(true)));
        // Nested: 400 + 400 * 400 runs over all levels.
        assert_eq!(
            value("x.l.all(a, x.l.all(b, b == 0))", &c),
            Err(EvalError::IterationLimit)
        );
        // Each evaluation has its own budget.
        let c = json!({"x": {"l": vec![0; 300]}});
        assert_eq!(value("x.l.all(a, x.l.all(b, b == 0))", &c), Ok(json!(true)));
    }

    /// Builds a one-hook program around `code` from a policy reading `x.a`
    /// (path 0), with its own tables.
    fn hand_made(
        code: Vec<Op>,
        consts: Vec<Value>,
        sets: Vec<u32>,
        regexes: Vec<&str>,
    ) -> VerifiedProgram {
        let mut prog = crate::lower::lower(&policy(&when("x.a == 1")));
        assert_eq!(prog.paths.len(), 1);
        prog.hooks[0].code = (0, u32::try_from(code.len()).unwrap());
        prog.hooks[0].max_stack = 2;
        prog.code = code;
        prog.consts.extend(consts);
        prog.sets = sets;
        prog.regexes = regexes.into_iter().map(str::to_owned).collect();
        verify(prog).unwrap()
    }

    fn probes() -> Vec<Value> {
        let values = [
            json!(1),
            json!(1.0),
            json!(2),
            json!(2.5),
            json!(-0.0),
            json!("a"),
            json!("b"),
            json!(""),
            json!(null),
            json!(true),
            json!(false),
            json!([1]),
            json!([1.0]),
            json!([2]),
            json!({"k": true}),
            json!({"k": 1}),
            json!(9007199254740993_i64),
            json!(9007199254740992.0),
            json!(u64::MAX),
            json!(i64::MIN),
        ];
        let mut out: Vec<Value> = values.iter().map(|v| json!({"x": {"a": v}})).collect();
        out.push(json!({"x": {}}));
        out.push(json!({"x": 5}));
        out.push(json!({}));
        out
    }

    fn run_hand(prog: &VerifiedProgram, ctx: &Value) -> (Outcome, Option<u32>) {
        let mut cache = PathCache::new(&prog.program().paths, Source::Document(ctx));
        let mut site = ErrorSite::default();
        let v = outcome(eval_hook(prog, 0, &mut cache, Some(&mut site)));
        (v, site.op)
    }

    #[test]
    fn fused_comparisons_equal_the_unfused_sequence() {
        let ops = [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ];
        let konsts = [
            json!(1),
            json!(1.0),
            json!(2.5),
            json!(-0.0),
            json!("a"),
            json!(null),
            json!(true),
            json!([1]),
            json!({"k": 1}),
            json!(9007199254740992_i64),
        ];
        for op in ops {
            for k in &konsts {
                let base = 2; // `x.a == 1` already holds constant 0 (`1`); ours is after it
                let fused = hand_made(
                    vec![
                        Op::PathCmpConst {
                            path: 0,
                            konst: base - 1,
                            op,
                        },
                        Op::Return,
                    ],
                    vec![k.clone()],
                    vec![],
                    vec![],
                );
                let plain = hand_made(
                    vec![Op::Path(0), Op::Const(base - 1), Op::Cmp(op), Op::Return],
                    vec![k.clone()],
                    vec![],
                    vec![],
                );
                for ctx in probes() {
                    let (a, sa) = run_hand(&fused, &ctx);
                    let (b, sb) = run_hand(&plain, &ctx);
                    assert_eq!(a, b, "{op:?} {k} on {ctx}");
                    assert_eq!(sa.is_some(), sb.is_some());
                }
            }
        }
        // A missing path gives the error `Op::Path` gives.
        let fused = hand_made(
            vec![
                Op::PathCmpConst {
                    path: 0,
                    konst: 0,
                    op: CmpOp::Ne,
                },
                Op::Return,
            ],
            vec![],
            vec![],
            vec![],
        );
        assert_eq!(
            run_hand(&fused, &json!({})),
            (Err(EvalError::NoSuchKey), Some(0))
        );
    }

    #[test]
    fn sets_equal_list_membership() {
        let list =
            json!(["a", 1, 2.0, 2.5, null, [1], {"k": true}, true, 9007199254740993_i64, -0.0]);
        let k = 1; // after `x.a == 1`'s constant
        let fused = hand_made(
            vec![Op::PathInSet { path: 0, set: 0 }, Op::Return],
            vec![list.clone()],
            vec![k],
            vec![],
        );
        let set = hand_made(
            vec![Op::Path(0), Op::InSet(0), Op::Return],
            vec![list.clone()],
            vec![k],
            vec![],
        );
        let plain = hand_made(
            vec![Op::Path(0), Op::Const(k), Op::In, Op::Return],
            vec![list],
            vec![],
            vec![],
        );
        for ctx in probes() {
            let (a, _) = run_hand(&fused, &ctx);
            let (b, _) = run_hand(&set, &ctx);
            let (c, _) = run_hand(&plain, &ctx);
            assert_eq!(a, c, "on {ctx}");
            assert_eq!(b, c, "on {ctx}");
        }
        // Through the compiler: `in` a big literal list, and the reference agrees.
        let c = ctx();
        assert_eq!(
            eval("x.s in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'abc'] && x.d in [1, 2, 3, 4, 5, 6, 7, 2.5]", &c),
            Ok(json!(true))
        );
        assert_eq!(
            eval("x.a in [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]", &c),
            Ok(json!(true))
        );
        assert_eq!(
            eval("x.zz in [1, 2, 3, 4, 5, 6, 7, 8]", &c),
            Err(EvalError::NoSuchKey)
        );
    }

    #[test]
    fn fused_matches_equals_the_unfused_sequence() {
        let fused = hand_made(
            vec![Op::PathMatches { path: 0, regex: 0 }, Op::Return],
            vec![],
            vec![],
            vec!["^a"],
        );
        let plain = hand_made(
            vec![Op::Path(0), Op::Matches(0), Op::Return],
            vec![],
            vec![],
            vec!["^a"],
        );
        for ctx in probes() {
            let (a, sa) = run_hand(&fused, &ctx);
            let (b, sb) = run_hand(&plain, &ctx);
            assert_eq!(a, b, "on {ctx}");
            assert_eq!(sa.is_some(), sb.is_some());
        }
    }

    #[test]
    fn error_sites_point_at_the_first_error() {
        let p = policy(&when("x.f || x.zz.k > 1"));
        let prog = verify(crate::lower::lower(&p)).unwrap();
        let c = ctx();
        let mut cache = PathCache::new(&prog.program().paths, Source::Document(&c));
        let mut site = ErrorSite::default();
        let v = eval_hook(&prog, 0, &mut cache, Some(&mut site));
        assert!(matches!(v, Val::Error(EvalError::NoSuchKey)));
        let at = site.op.unwrap() as usize;
        assert!(matches!(prog.program().code[at], Op::PathCmpConst { .. }));
        // An existing site is kept.
        let mut site = ErrorSite {
            op: Some(99),
            ..ErrorSite::default()
        };
        eval_hook(&prog, 0, &mut cache, Some(&mut site));
        assert_eq!(site.op, Some(99));
        // No error, no site.
        let ok = json!({"x": {"f": true}});
        let mut cache = PathCache::new(&prog.program().paths, Source::Document(&ok));
        let mut site = ErrorSite::default();
        assert!(matches!(
            eval_hook(&prog, 0, &mut cache, Some(&mut site)),
            Val::Bool(true)
        ));
        assert_eq!(site.op, None);
        // A bad hook index is an error value, not a panic.
        assert!(matches!(
            eval_hook(&prog, 7, &mut cache, None),
            Val::Error(EvalError::InvalidArgument)
        ));
    }

    #[test]
    fn templates_are_filled_for_the_matched_hook() {
        let src = r#"
hooks:
  - id: h
    event: e
    action:
      type: emit_event
      event_type: "kind ${x.s}"
      payload:
        whole_num: "${x.a}"
        whole_obj: "${x.o}"
        whole_missing: "${x.zz}"
        text: "a=${x.a} d=${x.d} s=${x.s} n=${x.n} t=${x.t} l=${x.nums} o=${x.o} z=${x.zz}!"
        escaped: "$${x.a} is ${x.a}"
        literal: "$${x.a}"
        nested: [1, "${x.s}", {deep: "${x.a}"}]
"#;
        let p = policy(src);
        let prog = verify(crate::lower::lower(&p)).unwrap();
        let c = ctx();
        let mut cache = PathCache::new(&prog.program().paths, Source::Document(&c));
        assert!(matches!(
            eval_hook(&prog, 0, &mut cache, None),
            Val::Bool(true)
        ));
        let action = fill_action(&prog, prog.program().hooks[0].action, &mut cache);
        assert_eq!(
            Value::Object(action),
            json!({
                "type": "emit_event",
                "event_type": "kind abc",
                "payload": {
                    "whole_num": 2,
                    "whole_obj": {"k": 1, "j": "v"},
                    "whole_missing": null,
                    "text": "a=2 d=2.5 s=abc n=null t=true l=[1,2,3] o={\"k\":1,\"j\":\"v\"} z=!",
                    "escaped": "${x.a} is 2",
                    "literal": "${x.a}",
                    "nested": [1, "abc", {"deep": 2}]
                }
            })
        );
        // Keys in declaration order, `type` first.
        let keys: Vec<String> = fill_action(&prog, 0, &mut cache).keys().cloned().collect();
        assert_eq!(keys, vec!["type", "event_type", "payload"]);
        assert!(fill_action(&prog, 9, &mut cache).is_empty());
    }

    #[test]
    fn vm_and_reference_agree_on_a_grid() {
        let exprs = [
            "x.a == 1",
            "x.a != 1",
            "x.a < 2",
            "x.a >= 1.5",
            "x.a in [1, 'a', null]",
            "x.a in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 1, 2.5]",
            "size(x.a) > 0",
            "x.a + 1",
            "x.a * 2.0",
            "-x.a",
            "!x.a",
            "x.a.matches('^a')",
            "x.a.startsWith('a')",
            "has(x.a)",
            "has(x.a.k)",
            "x.a.k",
            "x.a[0]",
            "x.a['k']",
            "x.a.exists(v, v == 1)",
            "x.a.all(v, v == 1)",
            "x.a.exists_one(v, true)",
            "x.a ? 1 : 2",
            "x.a && true",
            "x.a || false",
            "true && x.a",
            "[x.a, 1]",
            "[x.a][0] == x.a",
            "x.a == x.a",
            "x.a / 0",
            "x.a % 2",
            "1.0 / 0.0 > x.a",
            "0.0 / 0.0 == x.a",
        ];
        for ctx in probes() {
            for e in exprs {
                let _ = value(e, &ctx);
            }
        }
    }
}
