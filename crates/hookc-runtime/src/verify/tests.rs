//! Unit tests of the verifier: a sample program using every instruction,
//! and one mutation per check.

use super::*;
use crate::bytecode::path::{Path, Segment};
use crate::bytecode::{ActionEntry, ActionParam, CmpOp, EventIndex, HookEntry, MacroOp, Op};
use crate::bytecode::{ActionIdx, ConstIdx, JumpTarget, PathIdx, RegexIdx, SetIdx, StrIdx};
use crate::limits::MAX_MACRO_NESTING;
use serde_json::json;

/// A valid program that uses every instruction, every constant kind and
/// every parameter value kind (shared with the artifact tests).
pub(crate) fn sample() -> Program {
    use Op::*;
    let strings = [
        "h0",
        "h1",
        "h2",
        "retry",
        "max_attempts",
        "code",
        "error",
        "h3",
        "before_step",
        "msg: ",
        "desc",
        "k",
        "builtin",
        "directive",
    ];
    let path = |root: &str, segs: &[Segment]| {
        segs.iter()
            .fold(crate::bytecode::path::Path::root(root), |p, s| {
                p.child(s.clone())
            })
    };
    let field = |s: &str| Segment::Field(s.to_owned());
    #[rustfmt::skip]
        let code = vec![
            // hook 0: 0..9
            PathCmpConst { path: PathIdx::new(0), konst: ConstIdx::new(0), op: CmpOp::Eq },
            AndShort(JumpTarget::new(5)),
            PathCmpConst { path: PathIdx::new(1), konst: ConstIdx::new(1), op: CmpOp::Gt },
            Not,
            AndJoin,
            OrShort(JumpTarget::new(8)),
            PathMatches { path: PathIdx::new(0), regex: RegexIdx::new(0) },
            OrJoin,
            Return,
            // hook 1: 9..25
            Path(PathIdx::new(2)),
            MacroStart { kind: MacroOp::Exists, end: JumpTarget::new(18) },
            Path(PathIdx::new(2)),
            MacroStart { kind: MacroOp::All, end: JumpTarget::new(17) },
            Var(1),
            Var(0),
            Cmp(CmpOp::Ne),
            MacroNext,
            MacroNext,
            Branch { otherwise: JumpTarget::new(21), end: JumpTarget::new(24) },
            Const(ConstIdx::new(3)),
            Jump(JumpTarget::new(24)),
            Null,
            TypeIs(0x21),
            Size,
            Return,
            // hook 2: 25..25 (no condition); hook 3: 25..73
            True, False, Null, Const(ConstIdx::new(4)), MakeList(4),
            Path(PathIdx::new(3)), Field(StrIdx::new(5)), Const(ConstIdx::new(1)), Index,
            HasPath(PathIdx::new(4)), Path(PathIdx::new(0)), HasField(StrIdx::new(11)), Neg, Add, Sub,
            Const(ConstIdx::new(1)), Mul, Const(ConstIdx::new(1)), Div, Const(ConstIdx::new(1)), Rem,
            Const(ConstIdx::new(2)), In, InSet(SetIdx::new(0)),
            Path(PathIdx::new(0)), Contains, Path(PathIdx::new(0)), StartsWith, Path(PathIdx::new(0)), EndsWith,
            Matches(RegexIdx::new(0)),
            PathInSet { path: PathIdx::new(0), set: SetIdx::new(0) },
            Cmp(CmpOp::Lt), Cmp(CmpOp::Le),
            PathCmpConst { path: PathIdx::new(1), konst: ConstIdx::new(4), op: CmpOp::Ge },
            Cmp(CmpOp::Eq),
            Const(ConstIdx::new(2)),
            MacroStart { kind: MacroOp::ExistsOne, end: JumpTarget::new(65) },
            Var(0),
            MacroNext,
            Cmp(CmpOp::Gt),
            Path(PathIdx::new(0)),
            CallRegex { func: crate::functions::Builtin::Capture.func_id(), regex: RegexIdx::new(0) },
            Call(crate::functions::Builtin::Join.func_id()),
            Path(PathIdx::new(0)),
            Cmp(CmpOp::Eq),
            Cmp(CmpOp::Eq),
            Return,
        ];
    let hook = |id, priority, layer, description: Option<u32>, code, max_stack, action| HookEntry {
        id: StrIdx::new(id),
        priority,
        layer,
        description: description.map(StrIdx::new),
        code,
        max_stack,
        action: ActionIdx::new(action),
        replace: false,
    };
    let (s, k) = (StrIdx::new, ConstIdx::new);
    Program {
        strings: strings.iter().collect(),
        paths: vec![
            path("error", &[field("code")]),
            path("event", &[field("tokens")]),
            path("items", &[]),
            path("error", &[field("headers"), field("retry-after")]),
            path("items", &[Segment::Index(0)]),
        ],
        consts: vec![
            json!("x"),
            json!(5),
            json!(["a", "b"]),
            json!({"k": [1, 2.5, null, true, false, "s", -0.0], "big": u64::MAX, "neg": -3,
                       "a": {"z": 1, "b": 2}}),
            json!(1.5),
        ]
        .into(),
        regexes: vec!["^rate".to_owned()],
        regex_literals: Vec::new(),
        sets: vec![k(2)],
        layers: vec![s(12), s(13)],
        debug: crate::bytecode::DebugInfo::default(),
        priority_order: crate::bytecode::PriorityOrder::default(),
        attribution: crate::bytecode::Attribution::default(),
        reads_environment: false,
        sensitive: Vec::new(),
        regex_one_of: Vec::new(),
        model: crate::bytecode::DecisionModel::default(),
        tables: Vec::new(),
        absent: vec![crate::bytecode::AbsentHook {
            id: s(11),
            replace: true,
        }],
        code,
        hooks: vec![
            hook(0, 10, 1, Some(10), (0, 9), 2, 0),
            hook(1, 5, 0, None, (9, 25), 2, 1),
            hook(2, 0, 1, None, (25, 25), 0, 1),
            hook(7, -4, 1, None, (25, 73), 4, 0),
        ],
        actions: vec![
            ActionEntry {
                kind: s(3),
                effect: crate::bytecode::Effect::Terminal,
                severity: 0,
                bind: None,
                params: vec![
                    ActionParam::new(s(4), ParamValue::Const(k(1))),
                    ActionParam::new(
                        s(6),
                        ParamValue::Template(vec![
                            TemplatePart::Lit(s(9)),
                            TemplatePart::Path(PathIdx::new(0)),
                        ]),
                    ),
                    ActionParam::new(
                        s(5),
                        ParamValue::List(vec![
                            ParamValue::Const(k(0)),
                            ParamValue::Template(vec![TemplatePart::Path(PathIdx::new(1))]),
                            ParamValue::Object(vec![(s(11), ParamValue::Const(k(3)))]),
                        ]),
                    ),
                ],
            },
            ActionEntry {
                kind: s(3),
                effect: crate::bytecode::Effect::Collected,
                severity: 0,
                bind: None,
                params: vec![],
            },
        ],
        events: EventIndex {
            named: vec![(s(8), vec![0, 2, 3]), (s(6), vec![0, 1, 3])],
            wildcard: vec![0, 3],
        },
    }
}

/// [`sample`] with a pattern table on `error.code` (rows `^rate`, `x`)
/// that its last hook tests (`Row`) just before its `Return`.
pub(crate) fn sample_with_table() -> Program {
    use crate::bytecode::{PatternTable, TableIdx};
    let mut p = sample();
    p.regexes.push("x".to_owned());
    p.consts.push(json!([{"m": "rate"}, {"m": "x"}]));
    p.tables.push(PatternTable {
        on: PathIdx::new(0),
        patterns: vec![RegexIdx::new(0), RegexIdx::new(1)],
        rows: ConstIdx::from_usize(p.consts.len() - 1),
    });
    let last = p.code.len() - 1;
    p.code
        .splice(last..last, [Op::Row(TableIdx::new(0)), Op::Cmp(CmpOp::Eq)]);
    p.hooks[3].code.1 += 2;
    p
}

/// [`sample_with_table`] whose last hook also keeps a local (format 7):
/// `... && <kept local>`, the local's code `True`.
pub(crate) fn sample_with_every_op() -> Program {
    let mut p = sample_with_table();
    let last = p.code.len() - 1;
    let end = JumpTarget::new(u32::try_from(last + 3).unwrap());
    p.code.splice(
        last..last,
        [
            Op::LocalLoad { slot: 0, end },
            Op::True,
            Op::LocalStore(0),
            Op::AndJoin,
        ],
    );
    p.hooks[3].code.1 += 4;
    p
}

/// A program of one hook with this code (tables from [`sample`]).
fn one_hook(code: Vec<Op>, max_stack: u32) -> Program {
    let mut p = sample();
    let end = u32::try_from(code.len()).unwrap();
    p.code = code;
    p.hooks.truncate(1);
    p.hooks[0].code = (0, end);
    p.hooks[0].max_stack = max_stack;
    p.events = EventIndex::default();
    p
}

fn err(p: Program) -> VerifyError {
    verify(p).expect_err("should be rejected")
}

fn msg(p: Program) -> String {
    err(p).to_string()
}

#[test]
fn the_sample_verifies() {
    let v = verify(sample()).unwrap();
    assert!(v
        .regex(RegexIdx::new(0))
        .unwrap()
        .is_match("rate_limited")
        .unwrap());
    assert!(v.set(SetIdx::new(0)).is_some() && v.set(SetIdx::new(1)).is_none());
    assert_eq!(v.program(), &sample());
}

#[test]
fn ids_are_unique_among_hooks_and_absent_hooks() {
    let mut p = sample();
    p.hooks[1].id = p.hooks[0].id;
    assert!(msg(p).contains("duplicate hook id `h0`"));
    let mut p = sample();
    p.absent[0].id = p.hooks[2].id;
    assert!(msg(p).contains("duplicate hook id (of an absent hook) `h2`"));
    let mut p = sample();
    p.absent.push(p.absent[0]);
    assert!(msg(p).contains("duplicate hook id (of an absent hook) `k`"));
    let mut p = sample();
    p.absent[0].id = StrIdx::new(99);
    assert!(matches!(err(p), VerifyError::IndexOutOfBounds { .. }));
}

#[test]
fn every_opcode_is_in_the_sample() {
    let p = sample_with_every_op();
    assert!(verify(p.clone()).is_ok());
    let names: HashSet<&str> = p.code.iter().map(Op::name).collect();
    for (_, name) in crate::artifact::OPCODES {
        assert!(names.contains(*name), "{name} missing from the sample");
    }
}

#[test]
fn out_of_bounds_indexes_of_every_kind() {
    type Mutation = Box<dyn Fn(&mut Program)>;
    let cases: Vec<(&str, Mutation)> = vec![
        (
            "constant index 99",
            Box::new(|p| p.code[19] = Op::Const(ConstIdx::new(99))),
        ),
        (
            "path index 99",
            Box::new(|p| p.code[9] = Op::Path(PathIdx::new(99))),
        ),
        (
            "path index 99",
            Box::new(|p| p.code[34] = Op::HasPath(PathIdx::new(99))),
        ),
        (
            "string index 99",
            Box::new(|p| p.code[31] = Op::Field(StrIdx::new(99))),
        ),
        (
            "string index 99",
            Box::new(|p| p.code[36] = Op::HasField(StrIdx::new(99))),
        ),
        (
            "set index 99",
            Box::new(|p| p.code[48] = Op::InSet(SetIdx::new(99))),
        ),
        (
            "regex index 99",
            Box::new(|p| p.code[55] = Op::Matches(RegexIdx::new(99))),
        ),
        (
            "constant index 99",
            Box::new(|p| {
                p.code[0] = Op::PathCmpConst {
                    path: PathIdx::new(0),
                    konst: ConstIdx::new(99),
                    op: CmpOp::Eq,
                }
            }),
        ),
        (
            "path index 99",
            Box::new(|p| {
                p.code[0] = Op::PathCmpConst {
                    path: PathIdx::new(99),
                    konst: ConstIdx::new(0),
                    op: CmpOp::Eq,
                }
            }),
        ),
        (
            "set index 99",
            Box::new(|p| {
                p.code[56] = Op::PathInSet {
                    path: PathIdx::new(0),
                    set: SetIdx::new(99),
                }
            }),
        ),
        (
            "path index 99",
            Box::new(|p| {
                p.code[56] = Op::PathInSet {
                    path: PathIdx::new(99),
                    set: SetIdx::new(0),
                }
            }),
        ),
        (
            "regex index 99",
            Box::new(|p| {
                p.code[6] = Op::PathMatches {
                    path: PathIdx::new(0),
                    regex: RegexIdx::new(99),
                }
            }),
        ),
        (
            "constant index 99",
            Box::new(|p| p.sets[0] = ConstIdx::new(99)),
        ),
        (
            "string index 99",
            Box::new(|p| p.hooks[1].id = StrIdx::new(99)),
        ),
        (
            "string index 99",
            Box::new(|p| p.hooks[1].description = Some(StrIdx::new(99))),
        ),
        (
            "action index 99",
            Box::new(|p| p.hooks[1].action = ActionIdx::new(99)),
        ),
        (
            "string index 99",
            Box::new(|p| p.actions[0].kind = StrIdx::new(99)),
        ),
        (
            "string index 99",
            Box::new(|p| p.actions[0].params[0].name = StrIdx::new(99)),
        ),
        (
            "constant index 99",
            Box::new(|p| p.actions[0].params[0].value = ParamValue::Const(ConstIdx::new(99))),
        ),
        (
            "string index 99",
            Box::new(|p| {
                p.actions[0].params[1].value =
                    ParamValue::Template(vec![TemplatePart::Lit(StrIdx::new(99))])
            }),
        ),
        (
            "path index 99",
            Box::new(|p| {
                p.actions[0].params[1].value =
                    ParamValue::Template(vec![TemplatePart::Path(PathIdx::new(99))])
            }),
        ),
        (
            "string index 99",
            Box::new(|p| {
                p.actions[0].params[2].value = ParamValue::List(vec![ParamValue::Object(vec![(
                    StrIdx::new(99),
                    ParamValue::Const(ConstIdx::new(0)),
                )])])
            }),
        ),
        (
            "string index 99",
            Box::new(|p| p.events.named[0].0 = StrIdx::new(99)),
        ),
        ("hook index 99", Box::new(|p| p.events.named[0].1.push(99))),
        ("hook index 4", Box::new(|p| p.events.wildcard.push(4))),
    ];
    for (i, (expected, mutate)) in cases.iter().enumerate() {
        let mut p = sample();
        mutate(&mut p);
        let m = msg(p);
        assert!(m.contains(expected), "case {i}: {m}");
        assert!(m.contains("out of bounds"), "case {i}: {m}");
    }
}

#[test]
fn messages_name_the_hook_and_instruction() {
    let mut p = sample();
    p.code[19] = Op::Const(ConstIdx::new(99));
    assert_eq!(
        msg(p),
        "hook 1 (`h1`), instruction 19: constant index 99 is out of bounds (the program has 5)"
    );
}

#[test]
fn jumps_must_be_forward_and_inside_the_hook() {
    let mut p = sample();
    p.code[1] = Op::AndShort(JumpTarget::new(0));
    assert_eq!(
        msg(p),
        "hook 0 (`h0`), instruction 1: jump target 0 is not forward"
    );
    let mut p = sample();
    p.code[1] = Op::AndShort(JumpTarget::new(1));
    assert!(msg(p).contains("is not forward"));
    let mut p = sample();
    p.code[5] = Op::OrShort(JumpTarget::new(9)); // hook 0 is 0..9: 9 is hook 1's
    assert_eq!(
        msg(p),
        "hook 0 (`h0`), instruction 5: jump target 9 is past the hook's last instruction"
    );
    let mut p = sample();
    p.code[20] = Op::Jump(JumpTarget::new(25));
    assert!(msg(p).contains("past the hook's last instruction"));
    let mut p = sample();
    p.code[18] = Op::Branch {
        otherwise: JumpTarget::new(24),
        end: JumpTarget::new(21),
    };
    assert_eq!(
        msg(p),
        "hook 1 (`h1`), instruction 18: jump target 24 is not before the instruction's exit target"
    );
    let mut p = sample();
    p.code[18] = Op::Branch {
        otherwise: JumpTarget::new(17),
        end: JumpTarget::new(24),
    };
    assert!(msg(p).contains("jump target 17 is not forward"));
}

#[test]
fn joins_must_agree_on_the_stack_height() {
    // Jumping to the `AndJoin` (height 2 on fall-through, 1 on the jump).
    let mut p = sample();
    p.code[1] = Op::AndShort(JumpTarget::new(4));
    assert_eq!(
        msg(p),
        "hook 0 (`h0`), instruction 4: stack height 2 here, but 1 on the jump from instruction 1"
    );
    // Two jumps to one target with different heights.
    let code = vec![
        Op::True,
        Op::AndShort(JumpTarget::new(4)), // height 1 at 4
        Op::True,
        Op::AndShort(JumpTarget::new(4)), // height 2 at 4
        Op::Return,
    ];
    assert!(matches!(
        err(one_hook(code, 2)),
        VerifyError::StackMismatch {
            expected: 1,
            found: 2,
            ..
        }
    ));
    // The then-branch of a `?:` falling into the else-branch.
    let mut p = sample();
    p.code[20] = Op::Null; // replaces Jump(JumpTarget::new(24))
    p.code[21] = Op::Not;
    assert!(matches!(err(p), VerifyError::StackMismatch { .. }));
}

#[test]
fn underflow_missing_and_misplaced_return() {
    let mut p = sample();
    p.code[0] = Op::Not;
    assert_eq!(
        msg(p),
        "hook 0 (`h0`), instruction 0: pops 1 values but the stack holds 0"
    );
    let mut p = sample();
    p.code[29] = Op::MakeList(5);
    assert!(matches!(
        err(p),
        VerifyError::StackUnderflow {
            needs: 5,
            height: 4,
            ..
        }
    ));
    let mut p = sample();
    p.code[8] = Op::Not;
    assert_eq!(msg(p), "hook 0 (`h0`): code does not end with `Return`");
    let mut p = sample();
    p.code[3] = Op::Return;
    assert_eq!(
        msg(p),
        "hook 0 (`h0`), instruction 3: `Return` before the end of the hook's code"
    );
    assert!(matches!(
        err(one_hook(vec![Op::True, Op::True, Op::Return], 2)),
        VerifyError::ReturnHeight { height: 2, .. }
    ));
    assert!(matches!(
        err(one_hook(vec![Op::Return], 0)),
        VerifyError::StackUnderflow { .. }
    ));
}

#[test]
fn unreachable_code_is_rejected() {
    let mut p = sample();
    p.code[18] = Op::Branch {
        otherwise: JumpTarget::new(22),
        end: JumpTarget::new(24),
    }; // 21 now unreachable
    assert!(
        matches!(err(p), VerifyError::Unreachable { .. }),
        "{:?}",
        err(sample())
    );
    let code = vec![Op::True, Op::Jump(JumpTarget::new(3)), Op::Not, Op::Return];
    assert!(matches!(
        err(one_hook(code, 1)),
        VerifyError::Unreachable { .. }
    ));
}

#[test]
fn macros_must_nest() {
    // MacroNext missing where the inner macro ends.
    let mut p = sample();
    p.code[16] = Op::Not;
    assert!(msg(p).contains("ends here, but this is not `MacroNext`"));
    // MacroNext outside any macro.
    let mut p = sample();
    p.code[3] = Op::MacroNext;
    assert!(msg(p).contains("`MacroNext` outside any macro"));
    // An inner macro ending outside its parent.
    let mut p = sample();
    p.code[12] = Op::MacroStart {
        kind: MacroOp::All,
        end: JumpTarget::new(19),
    };
    assert!(msg(p).contains("outside the body of the macro started at instruction 10"));
    // MacroNext before the declared end.
    let code = vec![
        Op::Path(PathIdx::new(2)),
        Op::MacroStart {
            kind: MacroOp::All,
            end: JumpTarget::new(5),
        },
        Op::Var(0),
        Op::MacroNext,
        Op::Not,
        Op::Return,
    ];
    assert!(msg(one_hook(code, 1)).contains("ends at 5"));
    // No room for a body.
    let code = vec![
        Op::Path(PathIdx::new(2)),
        Op::MacroStart {
            kind: MacroOp::All,
            end: JumpTarget::new(3),
        },
        Op::MacroNext,
        Op::Return,
    ];
    assert!(msg(one_hook(code, 1)).contains("leaves no room"));
    // A body leaving two values.
    let code = vec![
        Op::Path(PathIdx::new(2)),
        Op::MacroStart {
            kind: MacroOp::All,
            end: JumpTarget::new(5),
        },
        Op::Var(0),
        Op::Var(0),
        Op::MacroNext,
        Op::Return,
    ];
    assert!(matches!(
        err(one_hook(code, 2)),
        VerifyError::StackMismatch {
            expected: 1,
            found: 2,
            ..
        }
    ));
}

#[test]
fn jumps_may_not_cross_macro_bodies() {
    // Out of a body, past its MacroNext.
    let code = vec![
        Op::Path(PathIdx::new(2)),
        Op::MacroStart {
            kind: MacroOp::Exists,
            end: JumpTarget::new(5),
        },
        Op::Var(0),
        Op::AndShort(JumpTarget::new(5)),
        Op::MacroNext,
        Op::Return,
    ];
    assert!(msg(one_hook(code, 1)).contains("enters or leaves a macro body"));
    // Into a body from before its MacroStart.
    let code = vec![
        Op::True,
        Op::AndShort(JumpTarget::new(4)),
        Op::Path(PathIdx::new(2)),
        Op::MacroStart {
            kind: MacroOp::Exists,
            end: JumpTarget::new(6),
        },
        Op::Var(0),
        Op::MacroNext,
        Op::Return,
    ];
    assert_eq!(
        msg(one_hook(code, 2)),
        "hook 0 (`h0`), instruction 1: jump target 4 enters or leaves a macro body"
    );
    // To the body's MacroNext from inside: fine.
    let code = vec![
        Op::Path(PathIdx::new(2)),
        Op::MacroStart {
            kind: MacroOp::Exists,
            end: JumpTarget::new(6),
        },
        Op::Var(0),
        Op::AndShort(JumpTarget::new(5)),
        Op::True,
        Op::MacroNext,
        Op::Return,
    ];
    let m = msg(one_hook(code, 2)); // AndShort leaves 1, fall-through 2
    assert!(m.contains("stack height"), "{m}");
    let code = vec![
        Op::Path(PathIdx::new(2)),
        Op::MacroStart {
            kind: MacroOp::Exists,
            end: JumpTarget::new(7),
        },
        Op::Var(0),
        Op::AndShort(JumpTarget::new(6)),
        Op::True,
        Op::AndJoin,
        Op::MacroNext,
        Op::Return,
    ];
    verify(one_hook(code, 2)).unwrap();
}

#[test]
fn var_needs_enclosing_macros() {
    let mut p = sample();
    p.code[6] = Op::Var(0);
    assert_eq!(
        msg(p),
        "hook 0 (`h0`), instruction 6: `Var(0)` needs 1 enclosing macros, but there are 0"
    );
    let mut p = sample();
    p.code[13] = Op::Var(2);
    assert!(matches!(
        err(p),
        VerifyError::BadVar {
            depth: 2,
            nesting: 2,
            ..
        }
    ));
}

/// A kept local's code: `LocalLoad` exits with its value one past the
/// `LocalStore`; a slot at the limit is refused, and a load's exit must
/// arrive with the height the store leaves.
#[test]
fn local_slots_are_bounded_and_their_exits_balanced() {
    let code = |slot: u16, end: u32| {
        vec![
            Op::LocalLoad {
                slot,
                end: JumpTarget::new(end),
            },
            Op::True,
            Op::LocalStore(slot),
            Op::Return,
        ]
    };
    verify(one_hook(code(0, 3), 1)).unwrap();
    let last = u16::try_from(crate::limits::MAX_LOCAL_SLOTS - 1).unwrap();
    verify(one_hook(code(last, 3), 1)).unwrap();
    assert!(matches!(
        verify(one_hook(code(last + 1, 3), 1)).unwrap_err(),
        VerifyError::BadSlot { slot, .. } if slot == last + 1
    ));
    // Exiting to the name's own code: a value where that code has none.
    assert!(matches!(
        verify(one_hook(code(0, 1), 1)).unwrap_err(),
        VerifyError::StackMismatch { .. }
    ));
}

fn nested_macros(depth: u32) -> Vec<Op> {
    let mut code = Vec::new();
    for i in 0..depth {
        code.push(Op::Path(PathIdx::new(2)));
        // MacroNext of level i (0 = outermost) is at 3*depth - i.
        code.push(Op::MacroStart {
            kind: MacroOp::All,
            end: JumpTarget::new(3 * depth - i + 1),
        });
    }
    code.push(Op::Var(u16::try_from(depth - 1).unwrap()));
    code.extend((0..depth).map(|_| Op::MacroNext));
    code.push(Op::Return);
    code
}

#[test]
fn macro_nesting_is_bounded() {
    let limit = u32::try_from(MAX_MACRO_NESTING).unwrap();
    verify(one_hook(nested_macros(limit), 2)).unwrap();
    let m = msg(one_hook(nested_macros(limit + 1), 2));
    assert!(m.contains("macros nested deeper than 128"), "{m}");
}

#[test]
fn max_stack_is_checked() {
    let mut p = sample();
    p.hooks[3].max_stack = 3;
    assert_eq!(
        msg(p),
        "hook 3 (`h3`): declared max_stack 3, but its code needs 4"
    );
    let mut p = sample();
    p.hooks[3].max_stack = u32::MAX;
    assert!(msg(p).contains("but the limit is 65536"));
    // More values than the limit.
    let n = u32::try_from(MAX_STACK_DEPTH).unwrap() + 1;
    let mut code: Vec<Op> = (0..n).map(|_| Op::Null).collect();
    code.push(Op::MakeList(n));
    code.push(Op::Return);
    assert!(matches!(
        err(one_hook(code, 1)),
        VerifyError::StackTooDeep { .. }
    ));
    // Overestimating is allowed.
    let mut p = sample();
    p.hooks[3].max_stack = 100;
    verify(p).unwrap();
}

#[test]
fn regexes_sets_paths_consts() {
    // A pattern that does not parse (bad syntax, nesting past the limit)
    // or compile (over the size limit) loads: a regex is parsed on its
    // first search, which is then an evaluation error
    // (`value::policy_regex`; `tests/suite/vm.rs` runs one).
    for bad in [
        "(".to_owned(),
        format!("{}a{}", "(".repeat(300), ")".repeat(300)),
        "a{1000}{1000}".to_owned(),
    ] {
        let mut p = sample();
        p.regexes[0] = bad.clone();
        let verified = verify(p).unwrap();
        let re = verified.regex(RegexIdx::new(0)).unwrap();
        assert_eq!(re.pattern(), bad);
        assert_eq!(
            re.is_match(&"a".repeat(1000)),
            Err(crate::value::EvalError::InvalidArgument)
        );
    }
    let mut p = sample();
    p.sets[0] = ConstIdx::new(0);
    assert_eq!(msg(p), "set 0 refers to constant 0, which is not a list");
    let mut p = sample();
    p.paths[2] = (0..=MAX_PATH_SEGMENTS).fold(Path::root("a"), |q, i| {
        q.child(Segment::Index(i64::try_from(i).unwrap()))
    });
    assert_eq!(
        msg(p),
        "the program has 257 segments in one path, over the limit of 256"
    );
    for root in ["", "1x", "a-b", "a.b"] {
        let mut p = sample();
        p.paths[2] = Path::root(root);
        assert!(
            matches!(err(p), VerifyError::BadPathRoot { path: 2, .. }),
            "{root}"
        );
    }
    let mut p = sample();
    let mut deep = json!(1);
    for _ in 0..MAX_VALUE_DEPTH {
        deep = json!([deep]);
    }
    p.consts.push(deep);
    assert_eq!(msg(p), "constant 5: value nested deeper than 256 levels");
    let mut p = sample();
    p.code[22] = Op::TypeIs(0x80);
    assert!(msg(p).contains("unknown kind bits 0x80"));
}

#[test]
fn parameter_checks() {
    use crate::bytecode::{Kinds, ValueCheck};
    let check = |kinds, allowed: Option<u32>| ValueCheck {
        kinds,
        allowed: allowed.map(ConstIdx::new),
        items: None,
    };
    // Constant 1 is 5: an integer passes, a string does not.
    let mut p = sample();
    p.actions[0].params[0].check = Some(check(Kinds::INT, None));
    assert!(verify(p).is_ok());
    let mut p = sample();
    p.actions[0].params[0].check = Some(check(Kinds::STRING, None));
    assert_eq!(
        msg(p),
        "action 0: parameter `max_attempts` is 5, not a string"
    );
    // The enum must be a list constant (2 is `["a", "b"]`, 1 is not).
    let mut p = sample();
    p.actions[0].params[0].check = Some(check(Kinds::INT, Some(1)));
    assert!(msg(p).contains("has an enum that is not a list constant"));
    let mut p = sample();
    p.actions[0].params[0].check = Some(check(Kinds::INT, Some(2)));
    assert!(msg(p).contains("is 5, not one of \"a\", \"b\""));
    let mut p = sample();
    p.actions[0].params[0].check = Some(check(Kinds::NONE, None));
    assert!(msg(p).contains("allows no kind of value"));
    // A text template is a string; a list's constant items meet `items`.
    let mut p = sample();
    p.actions[0].params[1].check = Some(check(Kinds::INT, None));
    assert!(msg(p).contains("is a string, not an integer"));
    let mut p = sample();
    p.actions[0].params[2].check = Some(ValueCheck {
        kinds: Kinds::LIST,
        allowed: None,
        items: Some(Box::new(check(Kinds::INT, None))),
    });
    assert_eq!(
        msg(p),
        "action 0: parameter `code[0]` is \"x\", not an integer"
    );
}

#[test]
fn actions_and_code_ranges() {
    let mut p = sample();
    p.actions[0].params[1].name = StrIdx::new(4);
    assert_eq!(msg(p), "action 0: duplicate parameter `max_attempts`");
    let mut p = sample();
    p.actions[0].params[2].value = ParamValue::Object(vec![
        (StrIdx::new(11), ParamValue::Const(ConstIdx::new(0))),
        (StrIdx::new(11), ParamValue::Const(ConstIdx::new(1))),
    ]);
    assert!(msg(p).contains("duplicate object key `k`"));
    let mut p = sample();
    let mut deep = ParamValue::Const(ConstIdx::new(0));
    for _ in 0..MAX_VALUE_DEPTH {
        deep = ParamValue::List(vec![deep]);
    }
    p.actions[1]
        .params
        .push(ActionParam::new(StrIdx::new(4), deep));
    assert!(msg(p).contains("action 1: value nested deeper"));
    let mut p = sample();
    p.hooks[1].code = (8, 25);
    assert!(msg(p).contains("overlaps or precedes"));
    let mut p = sample();
    p.hooks[3].code = (25, 74);
    assert!(msg(p).contains("runs past the end of the code"));
    let mut p = sample();
    p.hooks[2].code = (26, 25);
    assert!(msg(p).contains("is reversed"));
}

#[test]
fn event_index() {
    let mut p = sample();
    p.events.named.swap(0, 1);
    assert!(msg(p).contains("not sorted (`before_step` after `error`)"));
    let mut p = sample();
    p.events.named[1].0 = StrIdx::new(8);
    assert_eq!(msg(p), "event index: duplicate event `before_step`");
    let mut p = sample();
    p.events.named[1].1 = vec![0, 3, 1];
    assert!(msg(p).contains("hooks of event `error` are not in increasing order"));
    let mut p = sample();
    p.events.wildcard = vec![3, 3];
    assert!(msg(p).contains("wildcard"));
}

#[test]
fn table_sizes() {
    let p = Program {
        hooks: vec![
            HookEntry {
                id: StrIdx::new(0),
                priority: 0,
                layer: 1,
                description: None,
                code: (0, 0),
                max_stack: 0,
                action: ActionIdx::new(0),
                replace: false,
            };
            MAX_HOOKS + 1
        ],
        ..Program::default()
    };
    assert!(matches!(
        err(p),
        VerifyError::TableTooLarge { table: "hooks", .. }
    ));
}

#[test]
fn verification_is_linear() {
    // 200k instructions of short-circuits: quick, not quadratic.
    let mut code = vec![Op::True];
    for _ in 0..100_000 {
        let next = u32::try_from(code.len()).unwrap() + 3;
        code.extend([Op::AndShort(JumpTarget::new(next)), Op::True, Op::AndJoin]);
    }
    code.push(Op::Return);
    let t = std::time::Instant::now();
    verify(one_hook(code, 2)).unwrap();
    assert!(t.elapsed().as_secs() < 5);
}

/// Repeated names are found in short lists (compared pairwise) and long
/// ones (hashed past `Names::FEW`), and the buffers are reusable.
#[test]
fn names_find_the_first_repeat_in_short_and_long_lists() {
    let long: Vec<String> = (0..20).map(|i| format!("n{i}")).collect();
    let mut names = super::Names::default();
    for round in 0..2 {
        names.clear();
        for (i, name) in long.iter().enumerate() {
            assert!(names.insert(name), "round {round}, name {i}");
        }
        assert!(!names.insert("n3"), "a repeat of a name before the switch");
        assert!(!names.insert("n15"), "a repeat of a name after it");
        assert!(names.insert("n20"));
        names.clear();
        assert!(names.insert("a") && names.insert("b"));
        assert!(!names.insert("a"));
    }
}

#[test]
fn a_call_names_a_builtin_with_its_own_arity() {
    let at = sample()
        .code
        .iter()
        .position(|op| matches!(op, Op::Call(_)))
        .expect("the sample calls a function");
    let mut p = sample();
    p.code[at] = Op::Call(crate::bytecode::FuncId::new(0xFFFF, 2));
    let m = msg(p);
    assert!(
        m.contains("calls function id 0xffff popping 2 values"),
        "{m}"
    );
    // A builtin's id with another arity: the stack would be read wrongly.
    let mut p = sample();
    let Op::Call(f) = p.code[at] else {
        panic!("not a call")
    };
    p.code[at] = Op::Call(crate::bytecode::FuncId::new(f.id(), f.arity() - 1));
    let m = msg(p);
    assert!(
        m.contains(&format!("calls function id {:#x}", f.id())),
        "{m}"
    );
}
