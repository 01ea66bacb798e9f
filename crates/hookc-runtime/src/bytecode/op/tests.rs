//! Unit tests of the instruction table: what it generates agrees with itself.

use super::*;

#[test]
fn names_and_effects_come_from_the_table() {
    let op = Op::PathCmpConst {
        path: PathIdx::new(1),
        konst: ConstIdx::new(2),
        op: CmpOp::Le,
    };
    assert_eq!(
        (op.name(), op.opcode(), op.stack_effect()),
        ("PathCmpConst", 0x1c, (0, 1))
    );
    assert_eq!(Op::MakeList(3).stack_effect(), (3, 1));
    assert_eq!(Op::Jump(JumpTarget::new(4)).flow(), Flow::Goto);
    assert_eq!(Op::Not.flow(), Flow::Next);
    assert_eq!(Op::Return.flow(), Flow::Return);
}

#[test]
fn operands_are_visited_in_declaration_order() {
    let op = Op::Branch {
        otherwise: JumpTarget::new(5),
        end: JumpTarget::new(9),
    };
    let mut seen = Vec::new();
    op.for_each_operand(|o| seen.push(o));
    assert_eq!(
        seen,
        [
            Operand::Jump(JumpTarget::new(5)),
            Operand::Exit(JumpTarget::new(9))
        ]
    );
    let mut n = 0;
    let stopped: Result<(), &str> = Op::PathInSet {
        path: PathIdx::new(0),
        set: SetIdx::new(0),
    }
    .try_for_each_operand(|_| {
        n += 1;
        Err("stop")
    });
    assert_eq!((stopped, n), (Err("stop"), 1));
    Op::True.for_each_operand(|_| panic!("no operands"));
}

#[test]
fn layouts_use_the_table_strings_or_join_the_operands() {
    let render = |o: Operand| match o {
        Operand::Path(p) => (p.to_string(), format!("p{p}")),
        Operand::Set(s) => (s.to_string(), format!("s{s}")),
        Operand::Cmp(c) => (c.symbol().to_owned(), c.symbol().to_owned()),
        other => (format!("{other:?}"), String::new()),
    };
    let op = Op::PathInSet {
        path: PathIdx::new(1),
        set: SetIdx::new(2),
    };
    assert_eq!(
        op.layout(render),
        ("path 1 in set 2".to_owned(), "p1 in s2".to_owned())
    );
    assert_eq!(
        Op::Cmp(CmpOp::Ge).layout(render),
        (">=".to_owned(), String::new())
    );
    assert_eq!(
        Op::Path(PathIdx::new(7)).layout(render),
        ("7".to_owned(), "p7".to_owned())
    );
    assert_eq!(Op::Add.layout(render), (String::new(), String::new()));
}

#[test]
fn the_codec_names_every_opcode_as_the_table_does() {
    let sample = crate::verify::tests::sample();
    for op in &sample.code {
        assert!(
            crate::artifact::OPCODES.contains(&(op.opcode(), op.name())),
            "{op:?}"
        );
    }
}
