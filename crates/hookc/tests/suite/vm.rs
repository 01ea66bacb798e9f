//! The VM against the reference evaluator on compiled conditions, and on
//! hand-made programs for the fused instructions.

use hookc::check::policy::CheckedPolicy;
use hookc::check::schema::ContextSchema;
use hookc::compile::{compile, Input};
use hookc::expr_program::{compile_expr, ExprMode};
use hookc::testing::reference;
use hookc_runtime::bytecode::{ActionIdx, CmpOp, ConstIdx, Op, PathIdx, RegexIdx, SetIdx};
use hookc_runtime::internals::context::PathCache;
use hookc_runtime::internals::context::Source;
use hookc_runtime::internals::value::{EvalError, Val};
use hookc_runtime::internals::vm::*;
use hookc_runtime::limits::MAX_MACRO_ITERATIONS;
use hookc_runtime::verify::verify;
use hookc_runtime::verify::VerifiedProgram;
use serde_json::json;
use serde_json::Value;

type Outcome = Result<Value, EvalError>;

fn outcome(v: Val<'_>) -> Outcome {
    match v {
        Val::Error(e) => Err(e),
        v => Ok(v.to_json().unwrap()),
    }
}

fn policy(src: &str) -> CheckedPolicy {
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
fn run_policy(policy: &CheckedPolicy, ctx: &Value) -> Vec<Outcome> {
    let prog = verify(hookc::lower::lower(policy)).unwrap();
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
    let c = compile_expr(expr, &ContextSchema::builtin(), ExprMode::Unchecked).unwrap();
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
    sets: Vec<ConstIdx>,
    regexes: Vec<&str>,
) -> VerifiedProgram {
    let mut prog = hookc::lower::lower(&policy(&when("x.a == 1")));
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
        json!(i64::MAX),
        json!(9.223_372_036_854_776e18),
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
        // The fused leaf answers string, null and number pairs on the JSON
        // values directly; these are its edge cases.
        json!(""),
        json!("b"),
        json!(false),
        json!(u64::MAX),
        json!(i64::MAX),
        json!(9.223_372_036_854_776e18),
    ];
    for op in ops {
        for k in &konsts {
            let base = 2; // `x.a == 1` already holds constant 0 (`1`); ours is after it
            let fused = hand_made(
                vec![
                    Op::PathCmpConst {
                        path: PathIdx::new(0),
                        konst: ConstIdx::new(base - 1),
                        op,
                    },
                    Op::Return,
                ],
                vec![k.clone()],
                vec![],
                vec![],
            );
            let plain = hand_made(
                vec![
                    Op::Path(PathIdx::new(0)),
                    Op::Const(ConstIdx::new(base - 1)),
                    Op::Cmp(op),
                    Op::Return,
                ],
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
                path: PathIdx::new(0),
                konst: ConstIdx::new(0),
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
    let list = json!(["a", 1, 2.0, 2.5, null, [1], {"k": true}, true, 9007199254740993_i64, -0.0]);
    let k = ConstIdx::new(1); // after `x.a == 1`'s constant
    let fused = hand_made(
        vec![
            Op::PathInSet {
                path: PathIdx::new(0),
                set: SetIdx::new(0),
            },
            Op::Return,
        ],
        vec![list.clone()],
        vec![k],
        vec![],
    );
    let set = hand_made(
        vec![
            Op::Path(PathIdx::new(0)),
            Op::InSet(SetIdx::new(0)),
            Op::Return,
        ],
        vec![list.clone()],
        vec![k],
        vec![],
    );
    let plain = hand_made(
        vec![Op::Path(PathIdx::new(0)), Op::Const(k), Op::In, Op::Return],
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

/// A hand-made program of one fused `x.a.matches(pattern)`.
fn path_matches(pattern: &str) -> VerifiedProgram {
    hand_made(
        vec![
            Op::PathMatches {
                path: PathIdx::new(0),
                regex: RegexIdx::new(0),
            },
            Op::Return,
        ],
        vec![],
        vec![],
        vec![pattern],
    )
}

#[test]
fn fused_matches_equals_the_unfused_sequence() {
    let fused = path_matches("^a");
    let plain = hand_made(
        vec![
            Op::Path(PathIdx::new(0)),
            Op::Matches(RegexIdx::new(0)),
            Op::Return,
        ],
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
fn a_regex_that_does_not_parse_loads_and_its_search_is_an_evaluation_error() {
    // Only a hand-made artifact has one (the compiler parses every
    // pattern); the load does not parse regexes (`value::policy_regex`),
    // so its first search reports it, and the hook fails closed.
    let deep = format!("{}a{}", "(".repeat(300), ")".repeat(300));
    for bad in ["(", "[z-a]", deep.as_str()] {
        let prog = path_matches(bad);
        let (v, site) = run_hand(&prog, &json!({"x": {"a": "a"}}));
        assert_eq!(v, Err(EvalError::InvalidArgument), "{bad:?}");
        assert_eq!(site, Some(0), "the error names the search");
    }
}

#[test]
fn error_sites_point_at_the_first_error() {
    let p = policy(&when("x.f || x.zz.k > 1"));
    let prog = verify(hookc::lower::lower(&p)).unwrap();
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
    let prog = verify(hookc::lower::lower(&p)).unwrap();
    let c = ctx();
    let mut cache = PathCache::new(&prog.program().paths, Source::Document(&c));
    assert!(matches!(
        eval_hook(&prog, 0, &mut cache, None),
        Val::Bool(true)
    ));
    let action = fill_action(&prog, "h", prog.program().hooks[0].action, &mut cache).unwrap();
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
    let keys: Vec<String> = fill_action(&prog, "h", ActionIdx::new(0), &mut cache)
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, vec!["type", "event_type", "payload"]);
    assert!(fill_action(&prog, "h", ActionIdx::new(9), &mut cache)
        .unwrap()
        .is_empty());
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
