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
    // Alone; and every conjunct reads back as written.
    let code = chain(0, true, &[&is_in]);
    assert_eq!(decode(&code).conjuncts, [Conjunct::In { path, list }]);
    for conjunct in [
        Conjunct::In { path, list },
        Conjunct::StartsWith { path, prefix: list },
        Conjunct::Contains { path, needle: list },
        Conjunct::Leaf(eq),
    ] {
        let mut code = CodeBuffer {
            base: 40,
            ops: Vec::new(),
        };
        conjunct.write(&mut code);
        assert_eq!(Conjunct::from_code(&code.ops), Some(conjunct));
    }
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
    // `eq || x`: neither is required, and the `||` has an operand that is
    // no conjunct.
    let code = chain(
        3,
        false,
        &[&leaf(eq), &|c| {
            c.emit(Op::True);
        }],
    );
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
    // `x && eq`: the leaf is not leftmost, so it is no required leaf and
    // there is no flat conjunction; but the chain is read back from its
    // end, and `eq` is still a conjunct.
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
    let shape = decode(&code);
    assert_eq!((shape.required, shape.conjunction), (None, None));
    assert_eq!(shape.conjuncts, [Conjunct::Leaf(eq)]);
    // `!x && (eq || in_set) && !y && in_set`: the same, with an `||`.
    let not = |c: &mut CodeBuffer| {
        c.emit(Op::Path(PathIdx::new(7)));
        c.emit(Op::Not);
    };
    let or = |c: &mut CodeBuffer| {
        c.emit(eq.op());
        let link = Link::open(c, false);
        c.emit(in_set.op());
        link.close(c);
    };
    for base in [0, 9] {
        let code = chain(base, true, &[&not, &or, &not, &leaf(in_set)]);
        let shape = decode(&code);
        assert_eq!(shape.conjuncts, [Conjunct::Leaf(in_set)], "at {base}");
        assert_eq!(
            shape.any_of,
            [Box::from([Conjunct::Leaf(eq), Conjunct::Leaf(in_set)])]
        );
    }
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
fn or_chains_of_conjuncts_are_any_of_at_any_place() {
    let [eq, in_set, matches, has] = leaves();
    let leaf = |l: Leaf| {
        move |c: &mut CodeBuffer| {
            c.emit(l.op());
        }
    };
    let (path, prefix) = (PathIdx::new(4), ConstIdx::new(9));
    let starts = |c: &mut CodeBuffer| Conjunct::StartsWith { path, prefix }.write(c);
    let or = |operands: &'static [usize]| {
        move |c: &mut CodeBuffer| {
            let all: [&dyn Fn(&mut CodeBuffer); 2] = [&leaf(leaves()[0]), &starts];
            all[operands[0]](c);
            for &o in &operands[1..] {
                let link = Link::open(c, false);
                all[o](c);
                link.close(c);
            }
        }
    };
    for base in [0, 5, 300] {
        // `eq || starts || eq`: the whole condition.
        let code = chain(base, false, &[&leaf(eq), &starts, &leaf(eq)]);
        let shape = decode(&code);
        let three: Box<[Conjunct]> = Box::new([
            Conjunct::Leaf(eq),
            Conjunct::StartsWith { path, prefix },
            Conjunct::Leaf(eq),
        ]);
        assert_eq!(shape.any_of, [three], "at {base}");
        assert_eq!((shape.required, shape.conjunction), (None, None));
        assert!(shape.conjuncts.is_empty());
        // `(eq || starts) && in_set && (starts || eq) && matches`.
        let code = chain(
            base,
            true,
            &[&or(&[0, 1]), &leaf(in_set), &or(&[1, 0]), &leaf(matches)],
        );
        let shape = decode(&code);
        assert_eq!(
            shape.any_of,
            [
                Box::from([Conjunct::Leaf(eq), Conjunct::StartsWith { path, prefix }]),
                Box::from([Conjunct::StartsWith { path, prefix }, Conjunct::Leaf(eq)])
            ]
        );
        assert_eq!(
            shape.conjuncts,
            [Conjunct::Leaf(in_set), Conjunct::Leaf(matches)]
        );
        assert_eq!((shape.required, shape.conjunction), (None, None));
        // `has && (eq || x)`: an `||` with an operand that is no conjunct
        // is skipped, as any other operand.
        let code = chain(
            base,
            true,
            &[&leaf(has), &|c: &mut CodeBuffer| {
                c.emit(eq.op());
                let link = Link::open(c, false);
                c.emit(Op::True);
                link.close(c);
            }],
        );
        let shape = decode(&code);
        assert!(shape.any_of.is_empty());
        assert_eq!(shape.conjuncts, [Conjunct::Leaf(has)]);
    }
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
        // `matches` is the first `b`; the second `b`'s chain leads with no
        // conjunct (an `||`), so it adds none.
        assert_eq!(shape.sequenced_conjuncts, [Conjunct::Leaf(matches)]);
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
    // Two implied ones side by side, before and after their leaf: both go.
    let code = conjunction(
        2,
        &[has(eq.path()), has(eq.path()), eq, other, has(eq.path())],
    );
    assert_eq!(decode(&code).conjunction.as_deref(), Some(&[eq, other][..]));
    // `has(p)` alone, or twice, is kept.
    let code = conjunction(0, &[other, other]);
    assert_eq!(
        decode(&code).conjunction.as_deref(),
        Some(&[other, other][..])
    );
}

/// A chain of 60,000 leaves: 30,000 `has` leaves, then the comparisons
/// that imply them in the opposite order. Dropping them is one sort and a
/// binary search each; a scan of the chain per `has` was about 1.4e9 leaf
/// comparisons (seconds, at a hostile artifact's load). The bound is two
/// hundred times what the sort takes in a debug build.
#[test]
fn implied_has_leaves_of_a_long_chain_are_dropped_without_a_scan_each() {
    let n = 30_000u32;
    let path = |i: u32| PathIdx::new(i);
    let mut chain: Vec<Leaf> = (0..n).map(|i| Leaf::Has { path: path(i) }).collect();
    chain.extend((0..n).rev().map(|i| Leaf::Cmp {
        path: path(i),
        op: CmpOp::Eq,
        konst: ConstIdx::new(0),
    }));
    let code = conjunction(0, &chain);
    let t = std::time::Instant::now();
    let shape = decode(&code);
    assert!(t.elapsed().as_secs_f64() < 2.0, "{:?}", t.elapsed());
    let kept = shape.conjunction.unwrap();
    assert_eq!(kept.len(), n as usize);
    assert!(kept.iter().all(|l| matches!(l, Leaf::Cmp { .. })));
}

/// `p == v && has(p)`: a condition tree's `eq` leaf.
fn tree_eq(c: &mut CodeBuffer, eq: Leaf) {
    c.emit(eq.op());
    let link = Link::open(c, true);
    c.emit(Leaf::Has { path: eq.path() }.op());
    link.close(c);
}

#[test]
fn the_chains_after_an_item_that_can_be_an_error_are_sequenced_conjuncts() {
    let [eq, in_set, matches, _] = leaves();
    let gte = Leaf::Cmp {
        path: PathIdx::new(6),
        op: CmpOp::Ge,
        konst: ConstIdx::new(0),
    };
    let has = Leaf::Has { path: eq.path() };
    for base in [0, 5, 1000] {
        // `all: [{spend gte 0}, {category eq v}]`, as `hookc disasm` shows
        // it: `PathCmpConst >=; Branch; PathCmpConst ==; AndShort; HasPath;
        // AndJoin; Jump; False; Return`.
        let mut code = conjunction(base, &[gte]);
        sequence(&mut code, &|c| tree_eq(c, eq), Op::False);
        assert!(matches!(
            code.ops.as_slice(),
            [
                Op::PathCmpConst { .. },
                Op::Branch { .. },
                Op::PathCmpConst { .. },
                Op::AndShort(_),
                Op::HasPath(_),
                Op::AndJoin,
                Op::Jump(_),
                Op::False,
                Op::Return
            ]
        ));
        let shape = decode(&code);
        assert_eq!(shape.required, Some(gte), "at {base}");
        assert_eq!(shape.conjunction, None);
        assert_eq!(shape.conjuncts, [Conjunct::Leaf(gte)]);
        assert_eq!(
            shape.sequenced_conjuncts,
            [Conjunct::Leaf(eq), Conjunct::Leaf(has)]
        );

        // Three links, `b`s of every kind: a chain with an unfused test, a
        // leaf alone, an `||` (no conjunct), a chain whose second operand is
        // no conjunct.
        let (path, list) = (PathIdx::new(4), ConstIdx::new(9));
        let mut code = conjunction(base, &[gte, in_set]);
        sequence(
            &mut code,
            &|c| {
                c.emit(Op::Path(path));
                c.emit(Op::Const(list));
                c.emit(Op::In);
                let link = Link::open(c, true);
                c.emit(matches.op());
                link.close(c);
            },
            Op::False,
        );
        sequence(
            &mut code,
            &|c| {
                c.emit(eq.op());
            },
            Op::False,
        );
        sequence(
            &mut code,
            &|c| {
                c.emit(in_set.op());
                let link = Link::open(c, false);
                c.emit(eq.op());
                link.close(c);
            },
            Op::False,
        );
        sequence(
            &mut code,
            &|c| {
                c.emit(matches.op());
                let link = Link::open(c, true);
                c.emit(Op::Path(path));
                let or = Link::open(c, false);
                c.emit(Op::True);
                or.close(c);
                link.close(c);
                let link = Link::open(c, true);
                c.emit(has.op());
                link.close(c);
            },
            Op::False,
        );
        let shape = decode(&code);
        assert_eq!(shape.required, Some(gte), "at {base}");
        assert_eq!(
            shape.conjuncts,
            [Conjunct::Leaf(gte), Conjunct::Leaf(in_set)]
        );
        assert_eq!(
            shape.sequenced_conjuncts,
            [
                Conjunct::In { path, list },
                Conjunct::Leaf(matches),
                Conjunct::Leaf(eq),
                Conjunct::Leaf(matches),
                Conjunct::Leaf(has),
            ],
            "at {base}"
        );
    }
}

#[test]
fn a_sequenced_chain_must_end_at_its_jump() {
    let [eq, in_set, ..] = leaves();
    let gte = Leaf::Cmp {
        path: PathIdx::new(6),
        op: CmpOp::Ge,
        konst: ConstIdx::new(0),
    };
    let mut code = conjunction(3, &[gte]);
    sequence(&mut code, &|c| tree_eq(c, eq), Op::False);
    assert_eq!(decode(&code).sequenced_conjuncts.len(), 2);
    // The `b` chain's short circuit pointed past the `Jump` (onto `False`):
    // a jump out of `b`, so no shape at all.
    let mut bad = CodeBuffer {
        base: code.base,
        ops: code.ops.clone(),
    };
    bad.ops[3] = Op::AndShort(JumpTarget::new(code.base + 7));
    assert_eq!(decode(&bad), HookShape::default());
    // `b` is a leaf followed by something that is no link: not a chain,
    // so no conjunct of it, but the shape still holds.
    let mut code = conjunction(3, &[gte]);
    sequence(
        &mut code,
        &|c| {
            c.emit(eq.op());
            c.emit(Op::Not);
        },
        Op::False,
    );
    let shape = decode(&code);
    assert_eq!(shape.conjuncts, [Conjunct::Leaf(gte)]);
    assert_eq!(shape.sequenced_conjuncts, []);
    // An empty `b` (no stack effect a verifier would accept): nothing, no
    // panic.
    let mut code = conjunction(0, &[gte]);
    sequence(&mut code, &|_| {}, Op::False);
    assert_eq!(decode(&code).sequenced_conjuncts, []);
    // A `b` that computes no conjunct (a path's value alone), its end read
    // no further than its `Jump`.
    let mut code = conjunction(0, &[gte]);
    sequence(
        &mut code,
        &|c| {
            c.emit(Op::Path(PathIdx::new(2)));
        },
        Op::False,
    );
    assert_eq!(decode(&code).sequenced_conjuncts, []);
    // Under `? b : true`, nothing is required.
    let mut code = conjunction(0, &[gte]);
    sequence(&mut code, &|c| tree_eq(c, in_set), Op::True);
    assert_eq!(decode(&code), HookShape::default());
}
