//! The disassembler on hand-made and compiled programs.

use hookc::compile::{compile, Input};
use hookc_runtime::bytecode::{ActionEntry, ActionParam, Effect, EventIndex};
use hookc_runtime::bytecode::{ActionIdx, ConstIdx, JumpTarget, PathIdx, RegexIdx, SetIdx, StrIdx};
use hookc_runtime::bytecode::{CmpOp, HookEntry, Op, ParamValue, Program, TemplatePart};
use hookc_runtime::disasm::*;

const SRC: &str = r#"
hooks:
  - id: budget
    event: [limit, error]
    priority: 10
    description: "Escalate big spend"
    when: "limit_code == 'spend_exceeded' && (cost.spend > 10.0 || x.tags.exists(t, t.matches('^vip')))"
    action: {type: escalate, target: user_approval}
builtin_hooks:
  - id: fallback
    event: "*"
    action: {type: fail, error_message: "failed at ${turn_number} ($${literal})"}
"#;

const GOLDEN: &str = r#"program: 2 hooks, 12 instructions, 14 strings, 4 paths, 4 constants, 1 regex, 0 sets, 2 actions

hook 0 "budget" (priority 10, layer directive, events error, limit)
  description "Escalate big spend"
  code 0..12, max stack 3
     0  PathCmpConst  path 0 == const 0     ; limit_code == "spend_exceeded"
     1  AndShort      -> 11
     2  PathCmpConst  path 1 > const 1      ; cost.spend > 10.0
     3  OrShort       -> 10
     4  Path          2                     ; x.tags
     5  MacroStart    exists, end -> 9
     6  Var           0
     7  Matches       0                     ; "^vip"
     8  MacroNext
     9  OrJoin
    10  AndJoin
    11  Return
  action 0 escalate
    target = "user_approval"
    timeout_seconds = 3600

hook 1 "fallback" (priority 0, layer builtin, events *)
  code: none (always matches)
  action 1 fail
    error_message = `failed at ${turn_number} ($${literal})`

strings (14)
     0  "budget"
     1  "Escalate big spend"
     2  "escalate"
     3  "target"
     4  "timeout_seconds"
     5  "fallback"
     6  "fail"
     7  "error_message"
     8  "failed at "
     9  " (${literal})"
    10  "error"
    11  "limit"
    12  "builtin"
    13  "directive"

paths (4)
     0  limit_code
     1  cost.spend
     2  x.tags
     3  turn_number

constants (4)
     0  "spend_exceeded"
     1  10.0
     2  "user_approval"
     3  3600

regexes (1)
     0  "^vip"  requires "vip"

sets (0)

events
  error -> 0 1
  limit -> 0 1
  * -> 1
"#;

#[test]
fn golden_listing_of_a_small_policy() {
    let c = compile(&[Input::new("t.yaml", SRC)]);
    assert!(!c.diagnostics.has_errors());
    let text = disassemble(&hookc::lower::lower(&c.policy.unwrap()));
    assert_eq!(text, GOLDEN, "got:\n{text}");
}

#[test]
fn bad_indexes_are_printed_not_panicked_on() {
    let prog = Program {
        strings: vec!["only"].into(),
        code: vec![
            Op::Const(ConstIdx::new(5)),
            Op::Const(ConstIdx::new(0)),
            Op::Field(StrIdx::new(9)),
            Op::InSet(SetIdx::new(3)),
            Op::Matches(RegexIdx::new(2)),
            Op::PathCmpConst {
                path: PathIdx::new(4),
                konst: ConstIdx::new(4),
                op: CmpOp::Lt,
            },
            Op::PathInSet {
                path: PathIdx::new(0),
                set: SetIdx::new(0),
            },
            Op::PathMatches {
                path: PathIdx::new(0),
                regex: RegexIdx::new(0),
            },
            Op::TypeIs(0xff),
            Op::Jump(JumpTarget::new(1)),
        ],
        consts: vec![serde_json::json!("x".repeat(200))].into(),
        sets: vec![ConstIdx::new(0), ConstIdx::new(7)],
        hooks: vec![
            HookEntry {
                id: StrIdx::new(3),
                priority: -1,
                layer: 0,
                description: Some(StrIdx::new(8)),
                code: (0, 10),
                max_stack: 0,
                action: ActionIdx::new(2),
                replace: false,
            },
            HookEntry {
                id: StrIdx::new(0),
                priority: 0,
                layer: 1,
                description: None,
                code: (9, 40),
                max_stack: 0,
                action: ActionIdx::new(0),
                replace: false,
            },
        ],
        actions: vec![ActionEntry {
            kind: StrIdx::new(6),
            effect: Effect::Terminal,
            severity: 0,
            bind: None,
            params: vec![ActionParam::new(
                StrIdx::new(0),
                ParamValue::List(vec![
                    ParamValue::Const(ConstIdx::new(9)),
                    ParamValue::Template(vec![
                        TemplatePart::Lit(StrIdx::new(8)),
                        TemplatePart::Path(PathIdx::new(8)),
                    ]),
                    ParamValue::Object(vec![(StrIdx::new(7), ParamValue::Const(ConstIdx::new(0)))]),
                ]),
            )],
        }],
        events: EventIndex {
            named: vec![(StrIdx::new(5), vec![0, 9])],
            wildcard: vec![1],
        },
        ..Program::default()
    };
    let text = disassemble(&prog);
    for needle in [
        "hook 0 <bad index 3>",
        "<bad code range 9..40>",
        "action <bad index 2>",
        "; <bad index 5>",
        "set 0 (const 0, not a list)",
        "set 1 (const <bad index 7>)",
        "<bad index 5> -> 0 9",
        "action 0 <bad index 6>",
        "${<bad index 8>}",
        "…",
    ] {
        assert!(text.contains(needle), "{needle} not in:\n{text}");
    }
    assert_eq!(disassemble(&Program::default()).lines().next(), Some("program: 0 hooks, 0 instructions, 0 strings, 0 paths, 0 constants, 0 regexes, 0 sets, 0 actions"));
}
