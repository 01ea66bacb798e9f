//! The check of one hook's code: one forward pass that tracks the operand
//! stack height by abstract interpretation (what the module documentation
//! of [`super`] lists under "What a hook's code must satisfy").

use super::{hook_loc, in_bounds, instr_loc, Location, VerifyError};
use crate::bytecode::Kinds;
use crate::bytecode::{Flow, JumpTarget, Op, Operand, Program};
use crate::limits::{MAX_LOCAL_SLOTS, MAX_MACRO_NESTING, MAX_STACK_DEPTH};

/// What the verifier knows about an instruction that a jump targets.
#[derive(Debug, Clone, Copy)]
pub(super) struct Join {
    /// The stack height on arrival.
    height: u32,
    /// The innermost macro frame around the jump (0: none).
    frame: u32,
    /// The jumping instruction.
    from: u32,
}

/// An open macro.
#[derive(Debug, Clone, Copy)]
struct OpenMacro {
    /// Unique within the hook (0 is "no macro").
    id: u32,
    /// The `MacroStart`.
    start: u32,
    /// Stack height at the body's start (the range popped).
    base: u32,
    /// Where its `MacroNext` must be (`end - 1`).
    next: u32,
}

/// Whose code is checked, for the locations of errors.
#[derive(Debug, Clone, Copy)]
pub(super) enum Owner {
    /// A hook's condition (its index in [`Program::hooks`]).
    Hook(u32),
    /// An expression of a template of an action (its index in
    /// [`Program::actions`]).
    Template(u32),
}

impl Owner {
    /// The location of the code as a whole.
    fn whole(self, p: &Program) -> Location {
        match self {
            Owner::Hook(hook) => hook_loc(p, hook),
            Owner::Template(action) => Location::Action(action),
        }
    }

    /// The location of instruction `ip` of the code.
    fn at(self, p: &Program, ip: u32) -> Location {
        match self {
            Owner::Hook(hook) => instr_loc(p, hook, ip),
            Owner::Template(action) => Location::TemplateInstruction { action, ip },
        }
    }
}

/// The code `p.code[start..end]` of one hook's condition or one template
/// expression (`owner`), a range already checked to be inside the code.
/// Returns the deepest stack height reached.
pub(super) fn check_code(
    p: &Program,
    owner: Owner,
    (start, end): (u32, u32),
    scratch: &mut Vec<Option<Join>>,
) -> Result<u32, VerifyError> {
    let Some(ops) = p.code.get(start as usize..end as usize) else {
        return Err(VerifyError::BadCodeRange {
            at: owner.whole(p),
            start,
            end,
            reason: "runs past the end of the code",
        });
    };
    let Some(last) = end.checked_sub(1).filter(|_| start < end) else {
        return Ok(0); // no condition: always matches
    };
    if ops.last().map(Op::flow) != Some(Flow::Return) {
        return Err(VerifyError::MissingReturn { at: owner.whole(p) });
    }
    scratch.clear();
    scratch.resize(ops.len(), None);
    let mut cx = CodeCx {
        p,
        owner,
        start,
        last,
        scratch,
        frames: Vec::new(),
        next_frame: 1,
    };
    // INVARIANT (stack height): `height` is `Some(h)` when the previous
    // instruction falls through with `h` values, `None` after an
    // unconditional transfer (`Jump`, `Return`).
    let mut height: Option<u32> = Some(0);
    let mut max: u32 = 0;
    for (ip, op) in (start..end).zip(ops) {
        let at = || owner.at(p, ip);
        let frame = cx.frames.last().map_or(0, |f| f.id);
        let joined = cx.scratch.get((ip - start) as usize).copied().flatten();
        let h = match (height, joined) {
            (None, None) => return Err(VerifyError::Unreachable { at: at() }),
            (Some(h), None) => h,
            (fall, Some(j)) => {
                if j.frame != frame {
                    return Err(VerifyError::BadJump {
                        at: owner.at(p, j.from),
                        target: ip,
                        reason: "enters or leaves a macro body",
                    });
                }
                if let Some(h) = fall {
                    if h != j.height {
                        return Err(VerifyError::StackMismatch {
                            at: at(),
                            expected: j.height,
                            found: h,
                            context: format!("on the jump from instruction {}", j.from),
                        });
                    }
                }
                j.height
            }
        };
        if let Some(f) = cx.frames.last() {
            if f.next == ip && op.flow() != Flow::MacroNext {
                return Err(VerifyError::BadMacro {
                    at: at(),
                    reason: format!(
                        "the macro started at instruction {} ends here, but this is not `MacroNext`",
                        f.start
                    ),
                });
            }
        }
        let jumps = cx.operands(ip, op)?;
        let (pops, pushes) = op.stack_effect();
        // `_else`: a location names the hook by its id, a `String`; build
        // it only for an error (eagerly, it was two allocations per
        // instruction of every verified program).
        let below = h
            .checked_sub(pops)
            .ok_or_else(|| VerifyError::StackUnderflow {
                at: at(),
                needs: pops,
                height: h,
            })?;
        let after = below
            .checked_add(pushes)
            .filter(|&a| a as usize <= MAX_STACK_DEPTH)
            .ok_or_else(|| VerifyError::StackTooDeep {
                at: at(),
                limit: MAX_STACK_DEPTH,
            })?;
        max = max.max(after);
        height = Some(after);
        match op.flow() {
            Flow::Next => {}
            Flow::Goto => height = None,
            Flow::MacroStart => {
                if cx.frames.len() >= MAX_MACRO_NESTING {
                    return Err(VerifyError::BadMacro {
                        at: at(),
                        reason: format!("macros nested deeper than {MAX_MACRO_NESTING}"),
                    });
                }
                let Some(end) = jumps.exit() else {
                    return Err(VerifyError::BadMacro {
                        at: at(),
                        reason: "the macro has no end".to_owned(),
                    });
                };
                // The body needs at least one instruction before `MacroNext`.
                let next = end
                    .as_u32()
                    .checked_sub(1)
                    .filter(|&n| n > ip.saturating_add(1));
                let Some(next) = next else {
                    return Err(VerifyError::BadJump {
                        at: at(),
                        target: end.as_u32(),
                        reason: "(the macro's end) leaves no room for a body and `MacroNext`",
                    });
                };
                if let Some(parent) = cx.frames.last() {
                    if next >= parent.next {
                        return Err(VerifyError::BadMacro {
                            at: at(),
                            reason: format!(
                                "the macro ends at {end}, outside the body of the macro started at instruction {}",
                                parent.start
                            ),
                        });
                    }
                }
                let id = cx.next_frame;
                // INVARIANT (frame ids): unique within the hook: there are
                // fewer `MacroStart`s than MAX_TABLE_LEN < u32::MAX.
                cx.next_frame = id.saturating_add(1);
                cx.frames.push(OpenMacro {
                    id,
                    start: ip,
                    base: after,
                    next,
                });
            }
            Flow::MacroNext => {
                let Some(f) = cx.frames.pop() else {
                    return Err(VerifyError::BadMacro {
                        at: at(),
                        reason: "`MacroNext` outside any macro".to_owned(),
                    });
                };
                if f.next != ip {
                    return Err(VerifyError::BadMacro {
                        at: at(),
                        reason: format!(
                            "`MacroNext` here, but the macro started at instruction {} ends at {}",
                            f.start,
                            u64::from(f.next) + 1
                        ),
                    });
                }
                if h != f.base + 1 {
                    return Err(VerifyError::StackMismatch {
                        at: at(),
                        expected: f.base + 1,
                        found: h,
                        context: format!(
                            "(one value over the body's start) for the body of the macro started at instruction {}",
                            f.start
                        ),
                    });
                }
            }
            Flow::Return => {
                if ip != last {
                    return Err(VerifyError::MisplacedReturn { at: at() });
                }
                if h != 1 {
                    return Err(VerifyError::ReturnHeight {
                        at: at(),
                        height: h,
                    });
                }
                height = None;
            }
        }
        // The jumps, from the instruction's (enclosing) frame: a `Jump`
        // target is reached with the fall-through height, an `Exit` with
        // the construct's result pushed on it.
        for &(target, extra) in jumps.targets() {
            let arrive = after + extra;
            cx.join(ip, target, arrive, frame)?;
            max = max.max(arrive);
        }
    }
    // Every frame closes before `Return`: each `next` is below its parent's,
    // the outermost below `last`, and `MacroNext` is required at `next`.
    Ok(max)
}

/// State of one hook's code check.
struct CodeCx<'p, 's> {
    p: &'p Program,
    owner: Owner,
    start: u32,
    last: u32,
    /// `scratch[ip - start]`: what jumps into `ip` require.
    scratch: &'s mut Vec<Option<Join>>,
    /// Open macros, innermost last.
    frames: Vec<OpenMacro>,
    next_frame: u32,
}

impl CodeCx<'_, '_> {
    fn at(&self, ip: u32) -> Location {
        self.owner.at(self.p, ip)
    }

    /// Records a jump from `from` to `target` arriving with `height` values.
    fn join(
        &mut self,
        from: u32,
        target: JumpTarget,
        height: u32,
        frame: u32,
    ) -> Result<(), VerifyError> {
        let target = target.as_u32();
        let bad = |reason| VerifyError::BadJump {
            at: self.owner.at(self.p, from),
            target,
            reason,
        };
        if target <= from {
            return Err(bad("is not forward"));
        }
        if target > self.last {
            return Err(bad("is past the hook's last instruction"));
        }
        let Some(slot) = self.scratch.get_mut((target - self.start) as usize) else {
            return Err(bad("is past the hook's last instruction"));
        };
        match slot {
            None => {
                *slot = Some(Join {
                    height,
                    frame,
                    from,
                });
                Ok(())
            }
            Some(j) if j.frame != frame => Err(bad("enters or leaves a macro body")),
            Some(j) if j.height != height => Err(VerifyError::StackMismatch {
                at: self.owner.at(self.p, from),
                expected: j.height,
                found: height,
                context: format!(
                    "on the jump from instruction {} to the same target {target}",
                    j.from
                ),
            }),
            Some(_) => Ok(()),
        }
    }

    /// The operands: table indexes in bounds, `Var` depths inside enough
    /// macros, `TypeIs` bits known; the jump targets returned for joining
    /// once the stack effect is known (an `Exit` after every `Jump` of the
    /// same instruction).
    fn operands(&self, ip: u32, op: &Op) -> Result<Jumps, VerifyError> {
        let p = self.p;
        let at = || self.at(ip);
        let mut jumps = Jumps::default();
        // (No opcode has more than two jump operands: `OPCODES`.)
        let third = |t: JumpTarget| VerifyError::BadJump {
            at: at(),
            target: t.as_u32(),
            reason: "is a third jump target of one instruction",
        };
        op.try_for_each_operand(|operand| match operand {
            Operand::Str(i) => in_bounds(p, i, at),
            Operand::Path(i) => in_bounds(p, i, at),
            Operand::Const(i) => in_bounds(p, i, at),
            Operand::Set(i) => in_bounds(p, i, at),
            Operand::Table(i) => in_bounds(p, i, at),
            Operand::Regex(i) => in_bounds(p, i, at),
            Operand::Jump(t) => jumps.push(t, 0).ok_or_else(|| third(t)),
            Operand::Exit(t) => jumps.push(t, 1).ok_or_else(|| third(t)),
            Operand::Depth(depth) => {
                if usize::from(depth) < self.frames.len() {
                    Ok(())
                } else {
                    Err(VerifyError::BadVar {
                        at: at(),
                        depth,
                        nesting: self.frames.len(),
                    })
                }
            }
            Operand::Slot(slot) => {
                if usize::from(slot) < MAX_LOCAL_SLOTS {
                    Ok(())
                } else {
                    Err(VerifyError::BadSlot { at: at(), slot })
                }
            }
            Operand::Kinds(bits) => {
                if Kinds::from_bits(bits).bits() == bits {
                    Ok(())
                } else {
                    Err(VerifyError::BadKinds { at: at(), bits })
                }
            }
            // A function takes its pattern from a `CallRegex` operand, and
            // only from there.
            Operand::Func(func) => {
                let f = crate::functions::Builtin::of(func)
                    .filter(|f| f.def().stack_arity() == func.arity())
                    .ok_or(VerifyError::UnknownCall {
                        at: at(),
                        id: func.id(),
                        arity: func.arity(),
                    })?;
                let has_pattern = f.def().pattern().is_some();
                let via_regex = matches!(op, Op::CallRegex { .. });
                if has_pattern == via_regex {
                    return Ok(());
                }
                Err(VerifyError::BadCall {
                    at: at(),
                    instruction: op.name(),
                    function: f,
                    reason: if has_pattern {
                        "takes a pattern"
                    } else {
                        "takes no pattern"
                    },
                })
            }
            // Any value of these is valid: the decoder only builds known
            // comparisons and macros, and `MakeList`'s count is checked
            // against the stack.
            Operand::Count(_) | Operand::Cmp(_) | Operand::Macro(_) => Ok(()),
        })?;
        // An exit leaves the whole construct: every other target of the
        // instruction (the `else` code of a `Branch`) is inside it.
        if let Some(exit) = jumps.exit() {
            if let Some(&(inner, _)) = jumps.targets().iter().find(|&&(t, x)| x == 0 && t >= exit) {
                return Err(VerifyError::BadJump {
                    at: at(),
                    target: inner.as_u32(),
                    reason: "is not before the instruction's exit target",
                });
            }
        }
        Ok(jumps)
    }
}

/// The jump targets of one instruction, with the values each arrives with
/// over the fall-through height (0 for a `Jump`, 1 for an `Exit`).
// PERF: a fixed pair, not a `SmallVec` (whose inline-or-spilled checks
// made the code pass 32.7M instructions of a 10,000-hook first-match load
// against 29.0M now, callgrind): no opcode has more than two.
#[derive(Debug)]
struct Jumps {
    slots: [(JumpTarget, u32); 2],
    len: usize,
}

impl Default for Jumps {
    fn default() -> Jumps {
        Jumps {
            slots: [(JumpTarget::new(0), 0); 2],
            len: 0,
        }
    }
}

impl Jumps {
    /// Adds a target; `None` when there are two already.
    fn push(&mut self, target: JumpTarget, extra: u32) -> Option<()> {
        *self.slots.get_mut(self.len)? = (target, extra);
        self.len += 1;
        Some(())
    }

    /// The targets, in operand order.
    fn targets(&self) -> &[(JumpTarget, u32)] {
        self.slots.get(..self.len).unwrap_or_default()
    }

    /// The instruction's `Exit` target.
    fn exit(&self) -> Option<JumpTarget> {
        self.targets()
            .iter()
            .find(|&&(_, extra)| extra == 1)
            .map(|&(t, _)| t)
    }
}
