//! Unit tests of the lowering: code shapes, interning, folding and the
//! exact `max_stack`.

use super::*;
use crate::compile::{compile, Input};

fn policy(src: &str) -> CheckedPolicy {
    let c = compile(&[Input::new("t.yaml", src)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    c.policy.unwrap()
}

/// A one-hook policy with this `when`.
fn when(expr: &str) -> String {
    format!(
        "hooks:\n  - id: h\n    event: e\n    when: {}\n    action: {{type: continue}}\n",
        serde_json::to_string(expr).unwrap()
    )
}

/// Lowers (and verifies) a policy source.
fn program(src: &str) -> Program {
    let prog = lower(&policy(src));
    hookc_runtime::verify::verify(prog.clone()).unwrap();
    check_max_stack(&prog);
    prog
}

/// Hook 0's code of a one-hook `when` policy.
fn code_of(expr: &str) -> (Program, Vec<Op>) {
    let prog = program(&when(expr));
    let (s, e) = prog.hooks[0].code;
    let code = prog.code[s as usize..e as usize].to_vec();
    (prog, code)
}

fn konst(prog: &Program, op: &Op) -> Value {
    match op {
        Op::Const(i) | Op::PathCmpConst { konst: i, .. } => prog.konst(*i).unwrap().clone(),
        other => panic!("not a constant: {other:?}"),
    }
}

/// An independent walk over every path through each hook's code: the
/// deepest stack must be exactly `max_stack`.
fn check_max_stack(prog: &Program) {
    for hook in &prog.hooks {
        let (s, e) = (hook.code.0 as usize, hook.code.1 as usize);
        if s == e {
            assert_eq!(hook.max_stack, 0);
            continue;
        }
        let mut at: Vec<Option<u32>> = vec![None; e - s + 1];
        at[0] = Some(0);
        let mut bodies: Vec<(usize, u32)> = Vec::new();
        let mut max = 0;
        let set = |at: &mut Vec<Option<u32>>, t: usize, h: u32| match at[t] {
            None => at[t] = Some(h),
            Some(x) => assert_eq!(x, h, "height mismatch at {}", t + s),
        };
        for k in 0..e - s {
            let h = at[k].unwrap_or_else(|| panic!("unreachable instruction {}", k + s));
            max = max.max(h);
            let op = prog.code[s + k];
            let local = |t: JumpTarget| t.as_usize() - s;
            match op {
                Op::AndShort(t) | Op::OrShort(t) => {
                    set(&mut at, local(t), h);
                    set(&mut at, k + 1, h);
                }
                Op::Branch { otherwise, end } => {
                    set(&mut at, local(otherwise), h - 1);
                    set(&mut at, local(end), h);
                    set(&mut at, k + 1, h - 1);
                }
                Op::Jump(t) => set(&mut at, local(t), h),
                Op::MacroStart { end, .. } => {
                    set(&mut at, local(end), h);
                    set(&mut at, k + 1, h - 1);
                    bodies.push((k + 1, h - 1));
                }
                Op::MacroNext => {
                    let (_, base) = bodies.pop().unwrap();
                    assert_eq!(h, base + 1);
                    set(&mut at, k + 1, h);
                }
                Op::Return => assert_eq!(h, 1),
                other => {
                    let (pops, pushes) = other.stack_effect();
                    assert!(h >= pops);
                    let after = h - pops + pushes;
                    max = max.max(after);
                    set(&mut at, k + 1, after);
                }
            }
        }
        assert_eq!(
            hook.max_stack,
            max,
            "{}",
            hookc_runtime::disasm::disassemble(prog)
        );
    }
}

#[test]
fn path_op_constant_is_one_instruction_either_way_round() {
    let (prog, code) = code_of("x.a >= 5");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { op: CmpOp::Ge, .. }, Op::Return]
    ));
    assert_eq!(konst(&prog, &code[0]), serde_json::json!(5));
    let (_, code) = code_of("5 < x.a");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { op: CmpOp::Gt, .. }, Op::Return]
    ));
    let (_, code) = code_of("x.a != null");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { op: CmpOp::Ne, .. }, Op::Return]
    ));
    // Not a path on either side: the plain sequence.
    let (_, code) = code_of("x.a + 1 == 2");
    assert!(matches!(
        code.as_slice(),
        [
            Op::Path(_),
            Op::Const(_),
            Op::Add,
            Op::Const(_),
            Op::Cmp(CmpOp::Eq),
            Op::Return
        ]
    ));
}

#[test]
fn large_constant_lists_become_sets() {
    let small = "x.s in ['a', 'b', 'c', 'd', 'e', 'f', 'g']";
    let (prog, code) = code_of(small);
    assert!(matches!(
        code.as_slice(),
        [Op::Path(_), Op::Const(_), Op::In, Op::Return]
    ));
    assert!(prog.sets.is_empty());
    let big = "x.s in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']";
    let (prog, code) = code_of(big);
    assert!(matches!(
        code.as_slice(),
        [Op::PathInSet { set, .. }, Op::Return] if *set == SetIdx::new(0)
    ));
    assert_eq!(prog.sets.len(), 1);
    assert_eq!(
        prog.konst(prog.sets[0]).unwrap().as_array().unwrap().len(),
        SET_THRESHOLD
    );
    let (_, code) = code_of("size(x.s) in [1, 2, 3, 4, 5, 6, 7, 8, 9]");
    assert!(matches!(
        code.as_slice(),
        [Op::Path(_), Op::Size, Op::InSet(set), Op::Return] if *set == SetIdx::new(0)
    ));
    // The same list twice: one constant, one set.
    let (prog, _) = code_of(&format!(
        "{big} || x.t in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']"
    ));
    assert_eq!(prog.sets.len(), 1);
    assert_eq!(prog.consts.len(), 1);
}

#[test]
fn matches_on_a_path_is_fused_and_regexes_are_shared() {
    let (prog, code) =
        code_of("x.s.matches('^a+$') && x.o.t.matches('^a+$') && (x.s + 'b').matches('b$')");
    assert!(matches!(code[0], Op::PathMatches { regex, .. } if regex == RegexIdx::new(0)));
    assert!(code.contains(&Op::Matches(RegexIdx::new(1))));
    assert_eq!(prog.regexes, vec!["^a+$".to_owned(), "b$".to_owned()]);
    assert_eq!(
        code.iter()
            .filter(|op| matches!(op, Op::PathMatches { regex, .. } if *regex == RegexIdx::new(0)))
            .count(),
        2
    );
}

/// `path.match` is a regex test (`lower: RegexTest`): fused on a path,
/// `Matches` on a computed string, never a call.
#[test]
fn path_match_is_a_regex_test() {
    let (prog, code) =
        code_of("path.match(x.s, '**/.env') && ['a'].exists(p, path.match(p + x.s, '**/.env'))");
    assert!(matches!(code[0], Op::PathMatches { regex, .. } if regex == RegexIdx::new(0)));
    assert!(code.contains(&Op::Matches(RegexIdx::new(0))));
    assert_eq!(prog.regexes.len(), 1);
    assert!(!code
        .iter()
        .any(|op| matches!(op, Op::Call(_) | Op::CallRegex { .. })));
}

#[test]
fn short_circuits_and_conditionals_jump_forward_to_their_joins() {
    let (prog, code) = code_of("x.a == 1 && (x.b == 2 || x.c == 3)");
    let s = prog.hooks[0].code.0;
    // PCC AndShort PCC OrShort PCC OrJoin AndJoin Return
    assert_eq!(code.len(), 8);
    assert_eq!(code[1], Op::AndShort(JumpTarget::new(s + 7)));
    assert_eq!(code[3], Op::OrShort(JumpTarget::new(s + 6)));
    assert_eq!(code[5], Op::OrJoin);
    assert_eq!(code[6], Op::AndJoin);
    let (_, code) = code_of("x.t ? x.a == 1 : x.b == 2");
    // Path Branch PCC Jump PCC Return
    assert!(matches!(code[0], Op::Path(_)));
    assert_eq!(
        code[1],
        Op::Branch {
            otherwise: JumpTarget::new(s + 4),
            end: JumpTarget::new(s + 5)
        }
    );
    assert_eq!(code[3], Op::Jump(JumpTarget::new(s + 5)));
    assert_eq!(code[5], Op::Return);
}

#[test]
fn macro_variables_count_from_the_innermost_binder() {
    let (prog, code) = code_of("x.m.exists(r, r.all(c, c > r[0] && x.l.exists(z, z == c)))");
    let s = prog.hooks[0].code.0 as usize;
    let vars: Vec<u16> = code
        .iter()
        .filter_map(|op| match op {
            Op::Var(d) => Some(*d),
            _ => None,
        })
        .collect();
    // r (range of all), c, r, z, c
    assert_eq!(vars, vec![0, 0, 1, 0, 1]);
    // Every MacroStart's end is just past its own MacroNext.
    let mut open = Vec::new();
    for (k, op) in code.iter().enumerate() {
        match op {
            Op::MacroStart { end, .. } => open.push(end.as_usize()),
            Op::MacroNext => assert_eq!(open.pop(), Some(s + k + 1)),
            _ => {}
        }
    }
    assert!(open.is_empty());
}

#[test]
fn folding_computes_closed_subexpressions_but_not_errors_or_non_finite() {
    let (prog, code) = code_of("x.a == 1 + 2 * 3");
    assert_eq!(code.len(), 2);
    assert_eq!(konst(&prog, &code[0]), serde_json::json!(7));
    let (prog, code) = code_of("x.a == 1.0 + 2");
    assert_eq!(konst(&prog, &code[0]), serde_json::json!(3.0));
    assert!(konst(&prog, &code[0]).is_f64());
    let (prog, code) = code_of("x.s == 'a' + 'b'");
    assert_eq!(konst(&prog, &code[0]), serde_json::json!("ab"));
    let (_, code) = code_of("x.a == size([1, 2, 3]) && x.b == ('abc'.startsWith('a') ? 1 : 2)");
    assert_eq!(code.len(), 5);
    // 1 / 0 is an error and stays code.
    let (prog, code) = code_of("x.a == 1 / 0");
    assert!(matches!(
        code.as_slice(),
        [
            Op::Path(_),
            Op::Const(_),
            Op::Const(_),
            Op::Div,
            Op::Cmp(CmpOp::Eq),
            Op::Return
        ]
    ));
    assert_eq!(
        prog.consts,
        vec![serde_json::json!(1), serde_json::json!(0)].into()
    );
    // NaN and infinities are not constants of the pool either.
    let (_, code) = code_of("x.a == 0.0 / 0.0");
    assert!(code.contains(&Op::Div));
    let (_, code) = code_of("x.a < 1.0 / 0.0");
    assert!(code.contains(&Op::Div));
    let (_, code) = code_of("x.a == 9223372036854775807 + 1");
    assert!(code.contains(&Op::Add));
}

#[test]
fn folding_logic_only_where_exact() {
    // false && x, x && false (no macro), true || x, x || true: decided.
    for e in [
        "false && x.a == 1",
        "x.a == 1 && false",
        "x.s && false",
        "false && x.s",
    ] {
        let (_, code) = code_of(e);
        assert_eq!(code, vec![Op::False, Op::Return], "{e}");
    }
    for e in ["true || x.a == 1", "x.s || true"] {
        let prog = program(&when(e));
        assert_eq!(
            prog.hooks[0].code.0, prog.hooks[0].code.1,
            "{e}: always matches"
        );
    }
    // A macro on the dropped side stays (the iteration budget).
    let (_, code) = code_of("x.l.exists(e, e == 1) && false");
    assert!(code.contains(&Op::AndJoin));
    // true && x is x only for a bool-or-error x.
    let (_, code) = code_of("true && x.a == 1");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { .. }, Op::Return]
    ));
    let (_, code) = code_of("x.a == 1 || false");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { .. }, Op::Return]
    ));
    let (_, code) = code_of("true && x.s");
    assert_eq!(code[0], Op::True);
    assert!(code.contains(&Op::AndJoin));
    // `!!x`, `?:` on a constant, empty macros.
    let (_, code) = code_of("!!(x.a == 1)");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { .. }, Op::Return]
    ));
    let (_, code) = code_of("!!x.s");
    assert_eq!(code.iter().filter(|op| **op == Op::Not).count(), 2);
    let (_, code) = code_of("(1 < 2 ? x.a : x.b) == 1");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { .. }, Op::Return]
    ));
    let (_, code) = code_of("[].all(e, e == 1) && x.a == 1");
    assert!(matches!(
        code.as_slice(),
        [Op::PathCmpConst { .. }, Op::Return]
    ));
    // An error constant operand is not folded away.
    let (_, code) = code_of("1 / 0 == 1 || x.a == 1");
    assert!(code.contains(&Op::OrJoin));
}

#[test]
fn non_finite_yaml_constants_are_computed() {
    let prog = program(
            "hooks:\n  - id: h\n    event: e\n    condition: {path: x.a, op: lt, value: .inf}\n    action: {type: continue}\n",
        );
    assert!(prog.code.contains(&Op::Div));
    assert!(prog.consts.iter().all(|c| !c.is_null()));
    let prog = program(
            "hooks:\n  - id: h\n    event: e\n    condition: {path: x.a, op: in, value: [1, .nan, -.inf]}\n    action: {type: continue}\n",
        );
    assert!(prog.code.iter().any(|op| matches!(op, Op::MakeList(3))));
}

#[test]
fn constants_are_deduplicated_by_value_and_kind() {
    let (prog, _) =
        code_of("x.a == 1 || x.b == 1 || x.c == 1.0 || x.d == 0.0 || x.e == -0.0 || x.f == 1");
    let texts: Vec<String> = prog.consts.iter().map(|c| c.to_string()).collect();
    assert_eq!(texts, vec!["1", "1.0", "0.0", "-0.0"]);
}

#[test]
fn tables_are_interned_in_first_use_order_and_only_used_paths_kept() {
    let src = r#"
hooks:
  - id: one
    event: e
    when: "x.b == 1 && x.a == 2 && x.b == 3"
    action: {type: fail, error_message: "at ${x.c} and ${x.b}"}
  - id: off
    event: e
    enabled: false
    when: "x.unused == 1"
    action: {type: continue}
"#;
    let prog = program(src);
    let paths: Vec<String> = prog.paths.iter().map(ToString::to_string).collect();
    assert_eq!(paths, vec!["x.b", "x.a", "x.c"]);
    assert_eq!(prog.hooks.len(), 1);
    assert_eq!(prog.string(prog.hooks[0].id), "one");
    let mut strings: Vec<&str> = prog.strings.iter().collect();
    strings.sort();
    strings.dedup();
    assert_eq!(strings.len(), prog.strings.len(), "strings are unique");
}

#[test]
fn hooks_keep_evaluation_order_and_are_indexed_by_event() {
    let src = r#"
builtin_hooks:
  - id: b_star
    event: "*"
    priority: 5
    action: {type: continue}
hooks:
  - id: low
    event: [zeta, alpha]
    action: {type: continue}
  - id: high
    event: alpha
    priority: 9
    when: "x.a == 1"
    action: {type: continue}
  - id: d_star
    event: "*"
    priority: 5
    action: {type: continue}
  - id: gone
    event: omega
    enabled: false
    action: {type: continue}
"#;
    let p = policy(src);
    let prog = program(src);
    let ids: Vec<&str> = prog.hooks.iter().map(|h| prog.string(h.id)).collect();
    let expected: Vec<&str> = p
        .hooks()
        .iter()
        .filter(|h| h.enabled)
        .map(|h| h.id.as_str())
        .collect();
    assert_eq!(ids, expected);
    assert_eq!(ids, vec!["high", "d_star", "b_star", "low"]);
    assert_eq!(
        prog.string(prog.layers[prog.hooks[2].layer as usize]),
        "builtin"
    );
    let names: Vec<&str> = prog
        .events
        .named
        .iter()
        .map(|(n, _)| prog.string(*n))
        .collect();
    assert_eq!(names, vec!["alpha", "zeta"]);
    assert_eq!(prog.hooks_for("alpha"), &[0, 1, 2, 3]);
    assert_eq!(prog.hooks_for("zeta"), &[1, 2, 3]);
    assert_eq!(prog.hooks_for("other"), &[1, 2]);
    assert_eq!(prog.hooks_for("omega"), &[1, 2]);
    // Hooks without a condition have an empty code range.
    assert_eq!(prog.hooks[1].code.0, prog.hooks[1].code.1);
}

#[test]
fn lowering_is_deterministic() {
    let src = r#"
hooks:
  - id: a
    event: [b, a, c]
    when: "x.s in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] && x.l.exists(v, v.k.matches('^z') || v.n > 2.5)"
    action: {type: emit_event, event_type: "t", payload: {n: "${x.n}", m: "v=${x.m}", k: [1, "${x.k}"]}}
  - id: b
    event: "*"
    condition: {all: [{path: x.a, op: gt, value: 3}, {path: x.o, op: matches, value: {type: object, required: [k]}}]}
    action: {type: retry, max_attempts: 2}
"#;
    let p = policy(src);
    let first = lower(&p);
    assert_eq!(first, lower(&p));
    assert_eq!(first, lower(&policy(src)));
    assert_eq!(
        hookc_runtime::disasm::disassemble(&first),
        hookc_runtime::disasm::disassemble(&lower(&policy(src)))
    );
    hookc_runtime::verify::verify(first.clone()).unwrap();
    check_max_stack(&first);
}

#[test]
fn actions_keep_constants_prebuilt_and_templates_split() {
    let src = r#"
hooks:
  - id: a
    event: e
    action:
      type: emit_event
      event_type: "literal $${not} a template"
      payload: {whole: "${x.n}", text: "n=${x.n}!", plain: {deep: [1, 2]}, mixed: [1, "${x.s}"]}
"#;
    let prog = program(src);
    let action = &prog.actions[0];
    assert_eq!(prog.string(action.kind), "emit_event");
    let param = |name: &str| {
        &action
            .params
            .iter()
            .find(|p| prog.string(p.name) == name)
            .unwrap()
            .value
    };
    match param("event_type") {
        ParamValue::Const(i) => {
            assert_eq!(
                prog.konst(*i).unwrap(),
                &serde_json::json!("literal ${not} a template")
            )
        }
        other => panic!("{other:?}"),
    }
    let ParamValue::Object(entries) = param("payload") else {
        panic!("payload holds templates")
    };
    let entry = |name: &str| {
        &entries
            .iter()
            .find(|(n, _)| prog.string(*n) == name)
            .unwrap()
            .1
    };
    assert!(
        matches!(entry("whole"), ParamValue::Template(p) if matches!(p.as_slice(), [TemplatePart::Path(_)]))
    );
    assert!(matches!(entry("text"), ParamValue::Template(p) if p.len() == 3));
    assert!(matches!(entry("plain"), ParamValue::Const(_)));
    assert!(
        matches!(entry("mixed"), ParamValue::List(items) if matches!(items[0], ParamValue::Const(_)))
    );
}

#[test]
fn long_yaml_style_chains_lower_without_deep_recursion() {
    // `all:`/`any:` lists are left-nested chains as long as the list.
    let mut p = policy(&when("x.a == 0"));
    let leaf = p.hooks[0].condition.take().unwrap();
    let n = 50_000;
    let mut chain = leaf.clone();
    for i in 0..n {
        let next = if i % 1000 == 999 {
            IrExpr::new(
                IrExprKind::Or(Box::new(leaf.clone()), Box::new(leaf.clone())),
                leaf.span,
            )
        } else {
            leaf.clone()
        };
        chain = IrExpr::new(IrExprKind::And(Box::new(chain), Box::new(next)), leaf.span);
    }
    p.hooks[0].condition = Some(chain);
    let prog = lower(&p);
    // The test's own tree, taken apart without recursion (before any
    // assertion could unwind through its recursive drop).
    drop_chains(p.hooks[0].condition.take().unwrap());
    assert_eq!(prog.hooks[0].max_stack, 3);
    assert_eq!(prog.code.len(), 3 * n + 2 + 3 * (n / 1000));
    check_max_stack(&prog);
}
