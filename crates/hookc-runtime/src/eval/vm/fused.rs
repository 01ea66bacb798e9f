//! Instruction sequences the interpreter ([`super::run`]) runs in one
//! step where it can see that doing so gives exactly what running them one
//! by one gives: the same value functions on the same values, in the same
//! order, leaving the same stack. Untraced runs only: a traced run steps
//! through every instruction (its count and its watched values).

use super::{discard, MacroFrame};
use crate::bytecode::Op;
use crate::value::{self, Val};
use crate::verify::VerifiedProgram;

/// `a = a || b` (`or`) or `a = a && b`: [`value::or`] and [`value::and`].
// PERF: two bools, nearly every join, are joined here, where the values
// are seen to own nothing: through the value functions, the operand they
// do not return was dropped through the drop glue, a call per join
// (callgrind, bundled Claude Code guard on a 200-character command).
#[inline(always)]
pub(super) fn join_bools<'a>(a: &mut Val<'a>, b: Val<'a>, or: bool) {
    if let (Val::Bool(x), Val::Bool(y)) = (&*a, &b) {
        // Both functions' rule for two bools.
        let joined = Val::Bool(if or { *x || *y } else { *x && *y });
        discard(std::mem::replace(a, joined));
        discard(b);
        return;
    }
    let first = std::mem::replace(a, Val::Null);
    *a = if or {
        value::or(first, b)
    } else {
        value::and(first, b)
    };
}

/// Runs, from `at`, the rest of a chain of regex tests of one macro
/// variable joined by `||`, as the compiler lowers `path.match(p, G1) ||
/// path.match(p, G2) || ...` (a guard's list of protected files: 14 globs
/// in the bundled Claude Code guard), with `acc` the value on top of the
/// stack, the chain's value so far. Returns the index of the first
/// instruction not run.
///
/// Each link is the four instructions `OrShort -> L; Var d; Matches r;
/// OrJoin` with `L` just past them, and is run here as those instructions
/// run: past a `true` (the jump to `L`), else `acc || (elem_d matches r)`
/// through [`value::or`] and [`value::matches`], the same functions on the
/// same values (`Var` would push a copy of the element, which `Matches`
/// reads and drops). Nothing else is read or written, so the stack, the
/// frames and the result are exactly what the instructions leave. A link
/// of any other shape, or with an index a verified program cannot have,
/// ends the chain there, and the interpreter goes on from it.
// PERF: per link, one step of this loop instead of four dispatches with
// their pushes, pops and copies (callgrind, bundled Claude Code guard on a
// 200-character command).
#[inline(never)]
pub(super) fn or_matches<'a>(
    prog: &'a VerifiedProgram,
    code: &[Op],
    base: usize,
    mut at: usize,
    acc: &mut Val<'a>,
    frames: &[MacroFrame<'a>],
) -> usize {
    // The byte set of the string element `Var(d)` reads (the elements do
    // not change in a chain: only `MacroNext` moves them).
    let mut bytes_of: Option<(u16, u64)> = None;
    while let Some([Op::OrShort(to), Op::Var(d), Op::Matches(r), Op::OrJoin]) =
        code.get(at..at.saturating_add(4))
    {
        let past = at + 4;
        if to.as_usize().checked_sub(base) != Some(past) {
            break;
        }
        if !matches!(acc, Val::Bool(true)) {
            let frame = frames
                .len()
                .checked_sub(1 + usize::from(*d))
                .and_then(|k| frames.get(k));
            let (Some(frame), Some(re)) = (frame, prog.regex(*r)) else {
                break;
            };
            // PERF: the element's bytes, found once for the links that test
            // it, rule out most regexes of a path's chain without a search
            // (a byte of a recorded literal the path has not).
            let tested = match &frame.elem {
                Val::Str(s) => {
                    let bytes = match bytes_of {
                        Some((of, bytes)) if of == *d => bytes,
                        _ => {
                            let bytes = value::policy_regex::byte_set(s);
                            bytes_of = Some((*d, bytes));
                            bytes
                        }
                    };
                    if re.surely_lacks(bytes) {
                        Val::Bool(false)
                    } else {
                        value::matches(&frame.elem, re)
                    }
                }
                elem => value::matches(elem, re),
            };
            join_bools(acc, tested, true);
        }
        at = past;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::EvalError;
    use std::borrow::Cow;

    /// Every pair of operands of a join, bools and others, gives what
    /// `value::or` and `value::and` give.
    #[test]
    fn joins_are_the_value_functions() {
        let operands = || {
            [
                Val::Bool(true),
                Val::Bool(false),
                Val::Null,
                Val::Int(1),
                Val::Str(Cow::Borrowed("x")),
                Val::Str(Cow::Owned("y".to_owned())),
                Val::Error(EvalError::NoSuchKey),
                Val::Error(EvalError::NoSuchOverload),
            ]
        };
        for (i, a) in operands().into_iter().enumerate() {
            for (j, b) in operands().into_iter().enumerate() {
                for or in [false, true] {
                    let want = if or {
                        value::or(a.clone(), b.clone())
                    } else {
                        value::and(a.clone(), b.clone())
                    };
                    let mut got = a.clone();
                    join_bools(&mut got, b.clone(), or);
                    assert_eq!(
                        format!("{got:?}"),
                        format!("{want:?}"),
                        "operands {i} and {j}, or: {or}"
                    );
                }
            }
        }
    }
}
