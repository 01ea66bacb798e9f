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
use hookc_runtime::Context;
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
            let ctx = context(&mut rng);
            let text = serde_json::to_vec(&ctx).unwrap();
            let (collected, terminal) = reference::decision(&ir, "e", &ctx);
            let want = (
                ids(collected.iter().map(|h| h.id.as_str())),
                terminal.map(|h| h.id.clone()),
            );
            let all = ids(reference::all_matches(&ir, "e", &ctx)
                .iter()
                .map(|h| h.id.as_str()));
            let first = reference::first_match(&ir, "e", &ctx).map(|h| h.id.clone());
            for (form, query) in [
                ("value", policy.query("e", &ctx)),
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
            }
            checks += 1;
        }
    }
    assert!(indexed >= 100, "only {indexed} policies had a hook index");
    assert!(checks >= 10_000);
}
