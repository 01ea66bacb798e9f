//! The hook index never changes a result: on random policies whose hooks
//! test strings, numbers and bools for equality, lists for membership,
//! prefixes and ranges, at any place of an `&&` chain, under `||` and `!`,
//! with unconstrained hooks and collected actions interleaved in random
//! order, the runtime's decision, every match and the first match (from a
//! `Value` and from JSON text) equal the reference evaluator's, on contexts
//! that hit the indexed values, miss them, and give them the wrong type.

use crate::rng;

use hookc::compile::{compile, Compilation, Input};
use hookc::testing::reference;
use hookc_runtime::internals::dispatch::Plans;
use hookc_runtime::{Context, Results};
use rng::Rng;
use serde_json::{json, Map, Value};

const STRINGS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];
const NUMBERS: [&str; 6] = ["0", "1", "2", "2.0", "1.5", "-0.0"];

/// One test that a hook index may key on, or not.
fn atom(rng: &mut Rng) -> String {
    let s = *rng.pick(&STRINGS);
    let n = *rng.pick(&NUMBERS);
    match rng.below(12) {
        0 | 1 => format!("c == '{s}'"),
        2 => format!("k == '{s}'"),
        3 => {
            let list: Vec<String> = (0..1 + rng.below(3))
                .map(|_| format!("'{}'", rng.pick(&STRINGS)))
                .collect();
            format!("c in [{}]", list.join(", "))
        }
        // Long enough to be hashed as a set; mixed kinds.
        4 => format!("c in ['{s}', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 1, true]"),
        5 => format!("n == {n}"),
        6 => format!("n in [{n}, 7]"),
        7 => format!("f == {}", rng.below(2) == 0),
        8 => format!("s.startsWith('{s}')"),
        9 => format!("n > {n}"),
        10 => format!("!(c == '{s}')"),
        _ => format!("(c == '{s}' || n < {n})"),
    }
}

fn condition(rng: &mut Rng) -> String {
    let conjuncts: Vec<String> = (0..1 + rng.below(4)).map(|_| atom(rng)).collect();
    let chain = conjuncts.join(" && ");
    match rng.below(10) {
        0 => format!("!({chain})"),
        1 => format!("{chain} || {}", atom(rng)),
        _ => chain,
    }
}

fn policy(rng: &mut Rng) -> String {
    let mut src =
        String::from("action_types: {observe: {effect: collected, parameters: {}}}\nhooks:\n");
    for i in 0..8 + rng.below(40) {
        let when = match rng.below(15) {
            0 => String::new(),
            _ => format!(", when: {:?}", condition(rng)),
        };
        let action = if rng.below(4) == 0 {
            "observe"
        } else {
            "abort"
        };
        let enabled = if rng.below(15) == 0 {
            ", enabled: false"
        } else {
            ""
        };
        src.push_str(&format!(
            "  - {{id: h{i}, event: e, priority: {}{when}, action: {{type: {action}}}{enabled}}}\n",
            rng.below(3)
        ));
    }
    src
}

fn context(rng: &mut Rng) -> Value {
    let mut ctx = Map::new();
    let string = |rng: &mut Rng| -> Value {
        match rng.below(10) {
            0 => Value::Null,
            1 => json!(1),
            2 => json!(true),
            3 => json!("zz"),
            _ => json!(rng.pick(&STRINGS)),
        }
    };
    let number = |rng: &mut Rng| -> Value {
        match rng.below(10) {
            0 => json!("2"),
            1 => json!(true),
            2 => json!(7),
            _ => {
                let n: &&str = rng.pick(&NUMBERS);
                serde_json::from_str(n).unwrap()
            }
        }
    };
    for key in ["c", "k", "s"] {
        if rng.below(8) != 0 {
            ctx.insert(key.into(), string(rng));
        }
    }
    if rng.below(8) != 0 {
        ctx.insert("n".into(), number(rng));
    }
    if rng.below(8) != 0 {
        let f = match rng.below(5) {
            0 => json!("true"),
            1 => json!(1),
            _ => json!(rng.below(2) == 0),
        };
        ctx.insert("f".into(), f);
    }
    Value::Object(ctx)
}

fn ids<'a>(hooks: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    hooks.into_iter().map(str::to_owned).collect()
}

/// Every answer the plans serve (the decision, every match, the first
/// match, the deciding hook), from a `Value` and from JSON text, is the
/// reference evaluator's, which runs the hooks one by one.
fn answers_agree(
    ir: &hookc::check::policy::CheckedPolicy,
    policy: &hookc_runtime::Policy,
    src: &str,
    ctx: &Value,
) {
    let text = serde_json::to_vec(ctx).unwrap();
    let (collected, terminal) = reference::decision(ir, "e", ctx);
    let want = (
        ids(collected.iter().map(|h| h.id.as_str())),
        terminal.map(|h| h.id.clone()),
    );
    let all = ids(reference::all_matches(ir, "e", ctx)
        .iter()
        .map(|h| h.id.as_str()));
    let first = reference::first_match(ir, "e", ctx).map(|h| h.id.clone());
    for (form, query) in [
        ("value", policy.query("e", ctx)),
        ("text", policy.query("e", Context::json(&text))),
    ] {
        let d = query.decision().unwrap();
        let got = (
            ids(d.collected.iter().map(|m| m.hook)),
            d.terminal.map(|m| m.hook.to_owned()),
        );
        assert_eq!(got, want, "decision from {form}\n{src}\n{ctx}");
        let got = ids(query.all().unwrap().iter().map(|m| m.hook));
        assert_eq!(got, all, "all from {form}\n{src}\n{ctx}");
        let got = query.first().unwrap().map(|m| m.hook.to_owned());
        assert_eq!(got, first, "first from {form}\n{src}\n{ctx}");
        let got = query.decide().unwrap().map(str::to_owned);
        assert_eq!(got, want.1, "decide from {form}\n{src}\n{ctx}");
    }
}

#[test]
fn the_index_changes_no_result() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut indexed, mut checks) = (0, 0);
    for _ in 0..300 {
        let src = policy(&mut rng);
        let c = compile(&[Input::new("p.yaml", src.clone())]);
        assert!(!c.diagnostics.has_errors(), "{src}");
        let ir = c.policy.clone().unwrap();
        let policy = Compilation::into_policy(c).unwrap();
        if !Plans::new(policy.program()).indexes().is_empty() {
            indexed += 1;
        }
        for _ in 0..40 {
            answers_agree(&ir, &policy, &src, &context(&mut rng));
            checks += 1;
        }
    }
    assert!(indexed >= 100, "only {indexed} policies had a hook index");
    assert!(checks >= 10_000);
}

// ---------------------------------------------------------------------------
// Range columns and `||` chains of keyable tests.
//
// A hook whose required tests are orderings of a number is keyed by the
// interval they allow, and an `||` of keyable tests on one path by the union
// of their keys (prefixes of different lengths at the shortest, equalities
// with long enough strings by their first bytes, intervals by their hull).
// The generator below writes those shapes with bounds and prefixes that
// share cells and bytes, ints beyond 2^53 (which meet doubles only after
// rounding), multi-byte prefixes (whose truncation may split a character),
// empty intervals and mirrored comparisons; the answers must be those of
// evaluating the hooks one by one.

const WORDS: [&str; 10] = ["a", "ab", "abc", "b", "ba", "é", "éa", "aé", "xabcx", "B"];
const BOUNDS: [&str; 9] = [
    "0",
    "1",
    "1.5",
    "2",
    "-3",
    "100",
    "9007199254740992",
    "9007199254740993",
    "-0.0",
];

fn column_atom(rng: &mut Rng, regexes: bool) -> String {
    let w = *rng.pick(&WORDS);
    let v = *rng.pick(&WORDS);
    let b = *rng.pick(&BOUNDS);
    let d = *rng.pick(&BOUNDS);
    let cmp = *rng.pick(&["<", "<=", ">", ">="]);
    match rng.below(15) {
        0 => format!("n {cmp} {b}"),
        1 => format!("{b} {cmp} n"),
        2 => format!("n >= {b} && n < {d}"),
        3 => format!("(n < {b} || n > {d})"),
        4 => format!("(n <= {b} || n == {d})"),
        5 => format!("(s == '{w}' || s == '{v}')"),
        6 => format!("(s.startsWith('{w}') || s.startsWith('{v}'))"),
        7 => format!("(s.startsWith('{w}') || s == '{v}')"),
        8 => format!("(s in ['{w}', '{v}'] || s == 'zz')"),
        9 => format!("(s == '{w}' || n > {b})"),
        10 => format!("s.startsWith('{w}')"),
        11 => format!("s.contains('{w}')"),
        // Regexes in a fifth of the policies: the reference evaluator
        // compiles each one at every evaluation.
        12 if regexes => match rng.below(3) {
            0 => format!("(s.contains('{w}') || s.matches('{v}[0-9]*$'))"),
            1 => format!("s.matches('^.?{w}')"),
            _ => format!("s.matches('(?i){w}')"),
        },
        12 | 13 => format!("(s.contains('{w}') || s.contains(''))"),
        _ => format!("m {cmp} {b}"),
    }
}

fn column_policy(rng: &mut Rng) -> String {
    let mut src = String::from("hooks:\n");
    let regexes = rng.below(5) == 0;
    for i in 0..10 + rng.below(50) {
        let atoms: Vec<String> = (0..1 + rng.below(3))
            .map(|_| column_atom(rng, regexes))
            .collect();
        src.push_str(&format!(
            "  - {{id: h{i}, event: e, priority: {}, when: {:?}, action: {{type: abort}}}}\n",
            rng.below(3),
            atoms.join(" && ")
        ));
    }
    src
}

fn column_context(rng: &mut Rng) -> Value {
    let mut ctx = Map::new();
    let number = |rng: &mut Rng| -> Value {
        match rng.below(12) {
            0 => json!("1"),
            1 => Value::Null,
            2 => json!(9_007_199_254_740_993_i64),
            3 => json!(-9_007_199_254_740_993_i64),
            4 => json!(u64::MAX),
            _ => {
                let b: &&str = rng.pick(&BOUNDS);
                serde_json::from_str(b).unwrap()
            }
        }
    };
    for key in ["n", "m"] {
        if rng.below(8) != 0 {
            ctx.insert(key.into(), number(rng));
        }
    }
    if rng.below(8) != 0 {
        let s = match rng.below(8) {
            0 => json!(2),
            1 => json!("zz"),
            _ => json!(rng.pick(&WORDS)),
        };
        ctx.insert("s".into(), s);
    }
    Value::Object(ctx)
}

#[test]
fn range_columns_and_or_chains_change_no_result() {
    use hookc_runtime::internals::index::ProbeKind;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ranges, mut prefixes, mut substrings, mut checks) = (0, 0, 0, 0);
    for _ in 0..300 {
        let src = column_policy(&mut rng);
        let c = compile(&[Input::new("p.yaml", src.clone())]);
        assert!(!c.diagnostics.has_errors(), "{src}");
        let ir = c.policy.clone().unwrap();
        let policy = Compilation::into_policy(c).unwrap();
        for index in Plans::new(policy.program()).indexes() {
            for probe in index.paths() {
                match probe.kind {
                    ProbeKind::Range => ranges += 1,
                    ProbeKind::Prefix(_) => prefixes += 1,
                    ProbeKind::Substring => substrings += 1,
                    ProbeKind::Value => {}
                }
            }
        }
        for _ in 0..40 {
            answers_agree(&ir, &policy, &src, &column_context(&mut rng));
            checks += 1;
        }
    }
    assert!(ranges >= 50, "only {ranges} range columns");
    assert!(prefixes >= 50, "only {prefixes} prefix columns");
    assert!(substrings >= 50, "only {substrings} substring columns");
    assert!(checks >= 10_000);
}

// ---------------------------------------------------------------------------
// Condition trees: `all`s whose first item can be an error.
//
// A condition tree's `all` after an item that can be an error is
// `a ? b : false` (`docs/src/semantics.md#condition-trees`), and the fast
// paths key such a hook by the equalities of `b` too
// (`HookShape::sequenced_conjuncts`) in a program without the decision
// model, where a condition that is an error is a non-match like `false`. The
// tests below generate such hooks (orderings on absent, `null` and
// mistyped values first, equalities and memberships after them), among
// `when` hooks and collected actions, and compare every answer with
// evaluating the hooks one by one: the reference evaluator, the explain
// trace (which runs every hook), and, for programs with the decision
// model, the reference walk of the model.

/// A condition-tree leaf, as flow YAML: the first kinds can be an error
/// (an ordering on an absent, `null` or mistyped value), the rest cannot.
fn tree_leaf(rng: &mut Rng, may_error: bool) -> String {
    let s = *rng.pick(&STRINGS);
    let t = *rng.pick(&STRINGS);
    let n = *rng.pick(&NUMBERS);
    let erring = match rng.below(4) {
        0 => format!("{{path: n, op: gt, value: {n}}}"),
        1 => format!("{{path: c, op: gte, value: \"{s}\"}}"),
        2 => format!("{{path: f, op: lt, value: {n}}}"),
        _ => format!("{{path: k, op: lte, value: \"{s}\"}}"),
    };
    if may_error {
        return erring;
    }
    match rng.below(10) {
        0..=3 => format!("{{path: c, op: eq, value: \"{s}\"}}"),
        4 => format!("{{path: c, op: in, value: [\"{s}\", \"{t}\"]}}"),
        5 => format!("{{path: n, op: eq, value: {n}}}"),
        6 => format!("{{path: k, op: eq, value: \"{s}\"}}"),
        7 => format!("{{path: s, op: starts_with, value: \"{s}\"}}"),
        8 => format!("{{path: m.x, op: eq, value: \"{s}\"}}"),
        _ => erring,
    }
}

/// A condition tree: mostly an `all` whose first item can be an error,
/// then equalities (or anything else); sometimes nested, negated, or an
/// `any`.
fn tree(rng: &mut Rng, depth: usize) -> String {
    let first_may_error = rng.below(4) != 0;
    let mut items = vec![tree_leaf(rng, first_may_error)];
    for _ in 0..1 + rng.below(3) {
        let item = match rng.below(12) {
            0 if depth < 2 => tree(rng, depth + 1),
            1 if depth < 2 => format!(
                "{{any: [{}, {}]}}",
                tree_leaf(rng, false),
                tree_leaf(rng, true)
            ),
            2 => format!("{{not: {}}}", tree_leaf(rng, false)),
            _ => tree_leaf(rng, false),
        };
        items.push(item);
    }
    let all = format!("{{all: [{}]}}", items.join(", "));
    match rng.below(12) {
        0 if depth == 0 => format!("{{not: {all}}}"),
        1 if depth == 0 => format!("{{any: [{all}, {}]}}", tree_leaf(rng, false)),
        _ => all,
    }
}

/// The decision model a generated policy declares, if any.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Model {
    /// None: first match, `on_error: skip`.
    FirstMatch,
    /// `on_error: fail`.
    Fail,
    /// `on_error: {action: ...}`.
    ErrorAction,
    /// `combine: strictest` (with severities).
    Strictest,
}

fn tree_policy(rng: &mut Rng, model: Model) -> String {
    // A severity is part of the decision model: only under strictest.
    let (deny, ask) = match model {
        Model::Strictest => (", severity: 20", ", severity: 10"),
        Model::FirstMatch | Model::Fail | Model::ErrorAction => ("", ""),
    };
    let mut src = format!(
        "action_types:\n  observe: {{effect: collected, parameters: {{}}}}\n  \
         deny: {{effect: terminal{deny}, parameters: {{}}}}\n  \
         ask: {{effect: terminal{ask}, parameters: {{}}}}\n"
    );
    src.push_str(match model {
        Model::FirstMatch => "",
        Model::Fail => "on_error: fail\n",
        Model::ErrorAction => "on_error: {action: {type: deny}}\n",
        Model::Strictest => "combine: strictest\n",
    });
    src.push_str("hooks:\n");
    for i in 0..8 + rng.below(40) {
        let condition = match rng.below(8) {
            0 => format!(", when: {:?}", condition(rng)),
            1 => String::new(),
            _ => format!(", condition: {}", tree(rng, 0)),
        };
        let action = match rng.below(6) {
            0 => "observe",
            1 => "ask",
            2 => "deny",
            _ => "abort",
        };
        let enabled = if rng.below(15) == 0 {
            ", enabled: false"
        } else {
            ""
        };
        src.push_str(&format!(
            "  - {{id: h{i}, event: e, priority: {}{condition}, action: {{type: {action}}}{enabled}}}\n",
            rng.below(3)
        ));
    }
    src
}

/// The tree contexts: [`context`]'s, with `m` sometimes an object holding
/// `x`, sometimes not an object.
fn tree_context(rng: &mut Rng) -> Value {
    let mut ctx = context(rng);
    let m = match rng.below(4) {
        0 => None,
        1 => Some(json!("m")),
        _ => Some(json!({"x": rng.pick(&STRINGS)})),
    };
    if let (Some(m), Some(obj)) = (m, ctx.as_object_mut()) {
        obj.insert("m".into(), m);
    }
    ctx
}

/// The decision, every match and the first terminal match, by walking the
/// explain trace (every hook run one by one), in ids.
type Answers = ((Vec<String>, Option<String>), Vec<String>, Option<String>);

fn by_trace(trace: &hookc_runtime::Trace) -> Answers {
    let hook = |i: usize| trace.hooks[i].hook.clone();
    let decision = (
        trace.collected.iter().map(|&i| hook(i)).collect(),
        trace.winner.map(hook),
    );
    let all = trace
        .hooks
        .iter()
        .filter(|h| h.outcome == hookc_runtime::Outcome::Matched)
        .map(|h| h.hook.clone())
        .collect();
    let first = trace.winner.map(hook);
    (decision, all, first)
}

/// How many hooks of the event the fast paths key by their sequenced
/// conjuncts: those the hook index keys with them less those it keys
/// without, and the dispatched hooks whose leading leaf is no string
/// equality.
fn keyed_by_sequenced(program: &hookc_runtime::bytecode::Program) -> usize {
    use hookc_runtime::bytecode::shape::{HookShape, Leaf};
    use hookc_runtime::bytecode::CmpOp;
    use hookc_runtime::internals::index::HookIndex;
    let shapes = HookShape::of_hooks(program);
    let hooks = program.hooks_for("e");
    let keyed = |sequenced| {
        // (No regex of these policies is keyed: none is required.)
        HookIndex::new(program, &shapes, hooks, sequenced, &|_| None).map_or(0, |i| i.keyed_hooks())
    };
    let leads_with_string_eq = |h: u32| match shapes[h as usize].required {
        Some(Leaf::Cmp {
            op: CmpOp::Eq,
            konst,
            ..
        }) => program.konst(konst).is_some_and(Value::is_string),
        _ => false,
    };
    let plans = Plans::new(program);
    let dispatched = plans
        .tables()
        .iter()
        .flat_map(|t| t.hooks())
        .filter(|&h| !leads_with_string_eq(h))
        .count();
    keyed(true).saturating_sub(keyed(false)) + dispatched
}

#[test]
fn sequenced_equalities_change_no_result_where_errors_are_no_matches() {
    let mut rng = Rng(0x5851_F42D_4C95_7F2D);
    let (mut sequenced, mut skipped_errors, mut checks) = (0, 0, 0);
    for _ in 0..300 {
        let src = tree_policy(&mut rng, Model::FirstMatch);
        let c = compile(&[Input::new("p.yaml", src.clone())]);
        assert!(!c.diagnostics.has_errors(), "{src}\n{:?}", c.diagnostics);
        let ir = c.policy.clone().unwrap();
        let policy = Compilation::into_policy(c).unwrap();
        let program = policy.program();
        assert!(Plans::new(program).keys_sequenced(), "{src}");
        if keyed_by_sequenced(program) > 0 {
            sequenced += 1;
        }
        let ids_of = |hooks: &[u32]| -> Vec<String> {
            hooks
                .iter()
                .map(|&h| program.string(program.hooks[h as usize].id).to_owned())
                .collect()
        };
        let event_ids = ids_of(program.hooks_for("e"));
        for _ in 0..40 {
            let ctx = tree_context(&mut rng);
            let text = serde_json::to_vec(&ctx).unwrap();
            // One by one: the reference evaluator and the explain trace.
            let (collected, terminal) = reference::decision(&ir, "e", &ctx);
            let want: Answers = (
                (
                    ids(collected.iter().map(|h| h.id.as_str())),
                    terminal.map(|h| h.id.clone()),
                ),
                ids(reference::all_matches(&ir, "e", &ctx)
                    .iter()
                    .map(|h| h.id.as_str())),
                reference::first_match(&ir, "e", &ctx).map(|h| h.id.clone()),
            );
            let trace = policy.query("e", &ctx).explain().unwrap();
            assert_eq!(by_trace(&trace), want, "explain\n{src}\n{ctx}");
            skipped_errors += trace
                .hooks
                .iter()
                .filter(|h| matches!(h.outcome, hookc_runtime::Outcome::Error { .. }))
                .count();
            // Some hooks switched off: the trace, run one by one, says what
            // the answers must be.
            let off_ids: Vec<&str> = event_ids
                .iter()
                .filter(|_| rng.below(5) == 0)
                .map(String::as_str)
                .collect();
            let off = policy.overrides(off_ids.iter().copied()).unwrap();
            let want_off = by_trace(
                &policy
                    .query("e", &ctx)
                    .with_overrides(&off)
                    .explain()
                    .unwrap(),
            );
            let evaluated = policy.evaluate("e", &ctx).unwrap();
            let got = (
                ids(evaluated.collected.iter().map(|m| m.hook)),
                evaluated.terminal.map(|m| m.hook.to_owned()),
            );
            assert_eq!(got, want.0, "evaluate\n{src}\n{ctx}");
            for (form, query) in [
                ("value", policy.query("e", &ctx)),
                ("text", policy.query("e", Context::json(&text))),
            ] {
                for (overridden, query, want) in [
                    (false, query, &want),
                    (true, query.with_overrides(&off), &want_off),
                ] {
                    let at =
                        format!("from {form}, overrides {overridden} {off_ids:?}\n{src}\n{ctx}");
                    let d = query.decision().unwrap();
                    let got = (
                        ids(d.collected.iter().map(|m| m.hook)),
                        d.terminal.map(|m| m.hook.to_owned()),
                    );
                    assert!(d.errors.is_empty(), "decision errors {at}");
                    assert_eq!(got, want.0, "decision {at}");
                    let got = ids(query.all().unwrap().iter().map(|m| m.hook));
                    assert_eq!(got, want.1, "all {at}");
                    let got = query.first().unwrap().map(|m| m.hook.to_owned());
                    assert_eq!(got, want.2, "first {at}");
                    let got = query.decide().unwrap().map(str::to_owned);
                    assert_eq!(got, want.2, "decide {at}");
                }
            }
            checks += 1;
        }
    }
    assert!(
        sequenced >= 100,
        "only {sequenced} policies keyed hooks by sequenced conjuncts"
    );
    assert!(
        skipped_errors >= 1_000,
        "only {skipped_errors} condition errors"
    );
    assert!(checks >= 10_000);
}

#[test]
fn sequenced_equalities_are_left_alone_under_the_decision_model() {
    use hookc::testing::model::{decide, ModelOutcome};
    let mut rng = Rng(0x1405_7B7E_F767_814F);
    let mut outcomes = [0usize; 3];
    for round in 0..240 {
        let model = [Model::Fail, Model::ErrorAction, Model::Strictest][round % 3];
        let src = tree_policy(&mut rng, model);
        let c = compile(&[Input::new("p.yaml", src.clone())]);
        assert!(!c.diagnostics.has_errors(), "{src}\n{:?}", c.diagnostics);
        let ir = c.policy.clone().unwrap();
        let policy = Compilation::into_policy(c).unwrap();
        // Decided once at load: no key from after an item that can be an
        // error, whatever the plans are used for.
        let plans = Plans::new(policy.program());
        assert!(!plans.keys_sequenced(), "{src}");
        let no_results = Results::new();
        for _ in 0..25 {
            let ctx = tree_context(&mut rng);
            let text = serde_json::to_vec(&ctx).unwrap();
            let want = decide(&ir, "e", &ctx, &Map::new());
            outcomes[match &want {
                ModelOutcome::Decided(Value::Null) => 0,
                ModelOutcome::Decided(_) => 1,
                ModelOutcome::Failed(_) | ModelOutcome::ActionMisfit(_) => 2,
            }] += 1;
            for (form, query) in [
                ("value", policy.query("e", &ctx)),
                ("text", policy.query("e", Context::json(&text))),
            ] {
                let at = format!("{model:?} from {form}\n{src}\n{ctx}");
                let query = query.with_results(&no_results);
                let got = ModelOutcome::of_runtime(query.decision())
                    .unwrap_or_else(|e| panic!("unexpected error {e}: {at}"));
                assert_eq!(got, want, "decision {at}");
                let hook = match &want {
                    ModelOutcome::Decided(Value::Object(d)) => {
                        d.get("hook").and_then(Value::as_str).map(str::to_owned)
                    }
                    _ => None,
                };
                if let ModelOutcome::Decided(_) = want {
                    let got = query.decide().unwrap().map(str::to_owned);
                    assert_eq!(got, hook, "decide {at}");
                    let got = query.first().unwrap().map(|m| m.hook.to_owned());
                    assert_eq!(got, hook, "first {at}");
                    let trace = query.explain().unwrap();
                    let winner = trace.winner.map(|w| trace.hooks[w].hook.clone());
                    assert_eq!(winner, hook, "explain {at}");
                }
            }
        }
    }
    // Each kind of outcome occurred: no match, a decision, a failure.
    assert!(outcomes.iter().all(|&n| n > 50), "{outcomes:?}");
}

#[test]
fn regex_literals_and_or_chains_across_paths_are_keyed() {
    use hookc_runtime::bytecode::shape::HookShape;
    use hookc_runtime::internals::index::ProbeKind;
    // 40 regexes, each requiring its own literal; 40 equalities on `s`;
    // 20 `||` chains across `s` and `n` (keyed once `s`'s column is chosen
    // for the equalities). Every hook is keyed (none always runs), the
    // regexes in a substring column, both on the plans built at once and on
    // the plan a loaded policy builds on the event's first use.
    let mut src = String::from("hooks:\n");
    for i in 0..40 {
        src += &format!(
            "  - id: r{i}\n    event: e\n    when: \"s.matches('<foo{i}bar>[0-9]+')\"\n    action: {{type: abort}}\n"
        );
    }
    for i in 0..40 {
        src += &format!(
            "  - id: q{i}\n    event: e\n    when: \"s == 'eq{i}'\"\n    action: {{type: abort}}\n"
        );
    }
    for i in 0..20 {
        src += &format!(
            "  - id: o{i}\n    event: e\n    when: \"s == 'x{i}' || n == {i}\"\n    action: {{type: abort}}\n"
        );
    }
    let c = compile(&[Input::new("p.yaml", src.clone())]);
    assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
    let ir = c.policy.clone().unwrap();
    let policy = Compilation::into_policy(c).unwrap();
    let program = policy.program();
    let verified = hookc_runtime::verify::verify(program.clone()).unwrap();
    let shapes = HookShape::of_hooks(program);
    let sequenced = Plans::new(program).keys_sequenced();
    let loaded = Plans::one_event(&verified, &shapes, program.hooks_for("e"), sequenced);
    for plans in [Plans::new(program), loaded] {
        let [index] = plans.indexes() else {
            panic!("one index: {:?}", plans.indexes().len())
        };
        assert_eq!((index.keyed_hooks(), index.always()), (100, 0));
        assert!(index.paths().any(|p| p.kind == ProbeKind::Substring));
    }
    for ctx in [
        json!({"s": "a <foo7bar>12 b", "n": 3}),
        json!({"s": "<foo39bar>", "n": 19}),
        json!({"s": "x5", "n": 100}),
        json!({"s": "eq12", "n": 7}),
        json!({"s": "nothing", "n": 100}),
        json!({"n": 0}),
    ] {
        answers_agree(&ir, &policy, &src, &ctx);
    }
}
