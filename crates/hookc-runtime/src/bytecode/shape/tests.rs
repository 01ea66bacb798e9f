//! Unit tests of the code shapes: what [`Leaf`] and [`Link`] write,
//! [`HookShape::decode`] reads back, wherever the hook's code starts.

use super::*;

/// Code written from position `base` (a hook after others).
struct CodeBuffer {
    base: u32,
    ops: Vec<Op>,
}

impl CodeSink for CodeBuffer {
    fn emit(&mut self, op: Op) -> u32 {
        self.ops.push(op);
        self.here() - 1
    }
    fn here(&self) -> u32 {
        self.base + u32::try_from(self.ops.len()).unwrap()
    }
    fn op_mut(&mut self, at: u32) -> Option<&mut Op> {
        self.ops.get_mut((at - self.base) as usize)
    }
}

fn leaves() -> [Leaf; 4] {
    [
        Leaf::Cmp {
            path: PathIdx::new(0),
            op: CmpOp::Eq,
            konst: ConstIdx::new(3),
        },
        Leaf::InSet {
            path: PathIdx::new(1),
            set: SetIdx::new(0),
        },
        Leaf::Matches {
            path: PathIdx::new(2),
            regex: RegexIdx::new(1),
        },
        Leaf::Has {
            path: PathIdx::new(3),
        },
    ]
}

/// `operands[0] && operands[1] && ...` (each operand's code written by its
/// closure), then `Return`.
fn chain(base: u32, and: bool, operands: &[&dyn Fn(&mut CodeBuffer)]) -> CodeBuffer {
    let mut code = CodeBuffer {
        base,
        ops: Vec::new(),
    };
    let (first, rest) = operands.split_first().unwrap();
    first(&mut code);
    for operand in rest {
        let link = Link::open(&mut code, and);
        operand(&mut code);
        link.close(&mut code);
    }
    code.emit(Op::Return);
    code
}

/// `leaves[0] && leaves[1] && ...`, then `Return`.
fn conjunction(base: u32, leaves: &[Leaf]) -> CodeBuffer {
    let mut code = CodeBuffer {
        base,
        ops: Vec::new(),
    };
    let (first, rest) = leaves.split_first().unwrap();
    code.emit(first.op());
    for leaf in rest {
        let link = Link::open(&mut code, true);
        code.emit(leaf.op());
        link.close(&mut code);
    }
    code.emit(Op::Return);
    code
}

fn decode(code: &CodeBuffer) -> HookShape {
    HookShape::decode(&code.ops, code.base)
}

#[test]
fn leaves_round_trip_through_their_instruction() {
    for leaf in leaves() {
        assert_eq!(Leaf::from_op(&leaf.op()), Some(leaf));
    }
    assert_eq!(Leaf::from_op(&Op::Path(PathIdx::new(0))), None);
    assert_eq!(leaves().map(Leaf::path)[2], PathIdx::new(2));
}

#[test]
fn conjunctions_of_leaves_decode_to_their_leaves() {
    for base in [0, 7, 1000] {
        for n in 1..=4 {
            let code = conjunction(base, &leaves()[..n]);
            let shape = decode(&code);
            assert_eq!(shape.required, Some(leaves()[0]), "{n} at {base}");
            assert_eq!(shape.conjunction.as_deref(), Some(&leaves()[..n]));
        }
    }
}

#[test]
fn a_leading_leaf_is_required_whatever_follows() {
    let [eq, in_set, ..] = leaves();
    // `eq && (a || b) && in_set`
    let or = |c: &mut CodeBuffer| {
        c.emit(Op::Path(PathIdx::new(5)));
        let link = Link::open(c, false);
        c.emit(Op::True);
        link.close(c);
    };
    let code = chain(
        12,
        true,
        &[
            &|c| {
                c.emit(eq.op());
            },
            &or,
            &|c| {
                c.emit(in_set.op());
            },
        ],
    );
    let shape = decode(&code);
    assert_eq!(shape.required, Some(eq));
    assert_eq!(shape.conjunction, None);
    // Both leaves are required; the `||` between them is skipped.
    assert_eq!(
        shape.conjuncts,
        [Conjunct::Leaf(eq), Conjunct::Leaf(in_set)]
    );
}

#[test]
fn unfused_tests_are_conjuncts_at_any_place() {
    let [eq, ..] = leaves();
    let (path, list) = (PathIdx::new(4), ConstIdx::new(9));
    let test = |last: Op| {
        move |c: &mut CodeBuffer| {
            c.emit(Op::Path(path));
            c.emit(Op::Const(list));
            c.emit(last);
        }
    };
    let (is_in, starts) = (test(Op::In), test(Op::StartsWith));
    let leaf = |c: &mut CodeBuffer| {
        c.emit(eq.op());
    };
    let code = chain(3, true, &[&is_in, &leaf, &starts]);
    let shape = decode(&code);
    assert_eq!(shape.required, None);
    assert_eq!(shape.conjunction, None);
    assert_eq!(
        shape.conjuncts,
        [
            Conjunct::In { path, list },
            Conjunct::Leaf(eq),
            Conjunct::StartsWith { path, prefix: list }
        ]
    );
    // Alone.
    let code = chain(0, true, &[&is_in]);
    assert_eq!(decode(&code).conjuncts, [Conjunct::In { path, list }]);
    // Under `||`, nothing is required.
    let code = chain(0, false, &[&is_in, &leaf]);
    assert_eq!(decode(&code).conjuncts, []);
}

#[test]
fn other_shapes_take_no_fast_path() {
    let [eq, in_set, ..] = leaves();
    let leaf = |l: Leaf| {
        move |c: &mut CodeBuffer| {
            c.emit(l.op());
        }
    };
    // `eq || in_set`: neither is required.
    let code = chain(3, false, &[&leaf(eq), &leaf(in_set)]);
    assert_eq!(decode(&code), HookShape::default());
    // `(eq && in_set) || x`: the `&&` is not the top level.
    let and = |c: &mut CodeBuffer| {
        c.emit(eq.op());
        let link = Link::open(c, true);
        c.emit(in_set.op());
        link.close(c);
    };
    let code = chain(
        3,
        false,
        &[&and, &|c| {
            c.emit(Op::True);
        }],
    );
    assert_eq!(decode(&code), HookShape::default());
    // `x && eq`: the leaf is not leftmost.
    let code = chain(
        3,
        true,
        &[
            &|c| {
                c.emit(Op::Path(PathIdx::new(0)));
            },
            &leaf(eq),
        ],
    );
    assert_eq!(decode(&code), HookShape::default());
    // `!eq`, and no code at all.
    let code = chain(
        3,
        true,
        &[&|c| {
            c.emit(eq.op());
            c.emit(Op::Not);
        }],
    );
    assert_eq!(decode(&code), HookShape::default());
    assert_eq!(HookShape::decode(&[], 0), HookShape::default());
}

#[test]
fn links_must_jump_just_past_their_join() {
    let [eq, in_set, ..] = leaves();
    let mut code = chain(
        0,
        true,
        &[
            &|c| {
                c.emit(eq.op());
            },
            &|c| {
                c.emit(in_set.op());
            },
        ],
    );
    assert!(decode(&code).conjunction.is_some());
    // Read from the wrong start, or pointed elsewhere: not a chain.
    assert_eq!(HookShape::decode(&code.ops, 1), HookShape::default());
    code.ops[1] = Op::AndShort(JumpTarget::new(3));
    assert_eq!(decode(&code), HookShape::default());
}

/// Appends `? b : false` to the code before `Return` (`b` written by its
/// closure), as the lowering writes it; `else_op` in place of `False`.
fn sequence(code: &mut CodeBuffer, b: &dyn Fn(&mut CodeBuffer), else_op: Op) {
    assert_eq!(code.ops.pop(), Some(Op::Return));
    let branch = code.emit(Op::Branch {
        otherwise: JumpTarget::default(),
        end: JumpTarget::default(),
    });
    b(code);
    let jump = code.emit(Op::Jump(JumpTarget::default()));
    let otherwise = JumpTarget::new(code.here());
    code.emit(else_op);
    let end = JumpTarget::new(code.here());
    *code.op_mut(branch).unwrap() = Op::Branch { otherwise, end };
    *code.op_mut(jump).unwrap() = Op::Jump(end);
    code.emit(Op::Return);
}

#[test]
fn a_chain_followed_by_sequenced_operands_is_still_required() {
    let [eq, in_set, matches, _] = leaves();
    for base in [0, 9] {
        // `(eq && in_set ? matches : false) ? (x || true) : false`
        let mut code = conjunction(base, &[eq, in_set]);
        sequence(
            &mut code,
            &|c| {
                c.emit(matches.op());
            },
            Op::False,
        );
        sequence(
            &mut code,
            &|c| {
                c.emit(Op::Path(PathIdx::new(5)));
                let link = Link::open(c, false);
                c.emit(Op::True);
                link.close(c);
            },
            Op::False,
        );
        let shape = decode(&code);
        assert_eq!(shape.required, Some(eq), "at {base}");
        assert_eq!(shape.conjunction, None);
        assert_eq!(
            shape.conjuncts,
            [Conjunct::Leaf(eq), Conjunct::Leaf(in_set)]
        );
        // A leaf alone before the branch.
        let mut code = conjunction(base, &[in_set]);
        sequence(
            &mut code,
            &|c| {
                c.emit(eq.op());
            },
            Op::False,
        );
        assert_eq!(decode(&code).required, Some(in_set));
        // `? b : true` is no such link: the condition may be true without
        // the chain.
        let mut code = conjunction(base, &[eq]);
        sequence(
            &mut code,
            &|c| {
                c.emit(matches.op());
            },
            Op::True,
        );
        assert_eq!(decode(&code), HookShape::default());
    }
}

#[test]
fn a_has_that_another_leaf_of_its_path_implies_is_no_conjunction_leaf() {
    let [eq, in_set, ..] = leaves();
    let has = |path| Leaf::Has { path };
    // `p == v && has(p)` (a condition tree's `eq`): one leaf.
    let code = conjunction(0, &[eq, has(eq.path())]);
    assert_eq!(decode(&code).conjunction.as_deref(), Some(&[eq][..]));
    // `has(q) && p == v && has(p)`: `has(q)` reads another path, so stays.
    let other = has(in_set.path());
    let code = conjunction(4, &[other, eq, has(eq.path())]);
    let shape = decode(&code);
    assert_eq!(shape.conjunction.as_deref(), Some(&[other, eq][..]));
    // The required leaf and the conjuncts are the code's, unpruned.
    assert_eq!(shape.required, Some(other));
    assert_eq!(shape.conjuncts.len(), 3);
    // `has(p)` alone, or twice, is kept.
    let code = conjunction(0, &[other, other]);
    assert_eq!(
        decode(&code).conjunction.as_deref(),
        Some(&[other, other][..])
    );
}
