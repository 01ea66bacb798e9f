//! Equality dispatch never changes a result: on policies built to have long
//! runs of `path == 'constant' && ...` hooks (interleaved with other hooks,
//! other paths, disabled hooks, and condition trees whose `all` requires the
//! equality after an item that can be an error, `n > x` on an absent or
//! mistyped `n`), `evaluate` (dispatched) picks exactly the hook that trying
//! every hook in order picks (`explain`'s winner, and the reference
//! evaluator's first match).

use hookc::compile::{compile, Input};
use serde_json::{json, Value};

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const VALUES: [&str; 5] = ["a", "b", "c", "d", "e"];

fn policy(rng: &mut Rng) -> String {
    let mut src = String::from("hooks:\n");
    let n = 4 + rng.below(30);
    for i in 0..n {
        let v = VALUES[rng.below(5) as usize];
        let when = match rng.below(12) {
            0 => format!("n > {}", rng.below(5)),
            1 => format!("k == '{v}' && n > {}", rng.below(5)),
            2 => format!("c == '{v}' || n < {}", rng.below(3)),
            3 => format!("c == '{v}'"),
            // `n > x ? (c == v && has(c)) : false`: the equality is
            // required, after an item that can be an error.
            4 => format!(
                "{{all: [{{path: n, op: gt, value: {}}}, {{path: c, op: eq, value: {v}}}]}}",
                rng.below(5)
            ),
            5 => format!(
                "{{all: [{{path: n, op: gt, value: {}}}, {{path: c, op: eq, value: {v}}}, \
                 {{path: s, op: starts_with, value: {}}}]}}",
                rng.below(5),
                VALUES[rng.below(5) as usize]
            ),
            _ => format!(
                "c == '{v}' && n > {} && s.startsWith('{}')",
                rng.below(5),
                VALUES[rng.below(5) as usize]
            ),
        };
        // A tree is a `condition`, a `when` its text.
        let condition = match when.starts_with('{') {
            true => format!("condition: {when}"),
            false => format!("when: {when:?}"),
        };
        let enabled = if rng.below(12) == 0 {
            ", enabled: false"
        } else {
            ""
        };
        src.push_str(&format!(
            "  - {{id: h{i}, event: e, priority: {}, {condition}, action: {{type: abort}}{enabled}}}\n",
            rng.below(3)
        ));
    }
    src
}

fn context(rng: &mut Rng) -> Value {
    let mut ctx = serde_json::Map::new();
    let pick = |rng: &mut Rng| -> Value {
        match rng.below(8) {
            0 => Value::Null,
            1 => json!(rng.below(3)),
            2 => json!(true),
            _ => json!(VALUES[rng.below(5) as usize]),
        }
    };
    for key in ["c", "k", "s"] {
        if rng.below(6) != 0 {
            ctx.insert(key.into(), pick(rng));
        }
    }
    if rng.below(6) != 0 {
        ctx.insert("n".into(), json!(rng.below(6)));
    }
    Value::Object(ctx)
}

#[test]
fn dispatch_picks_the_same_hook_as_trying_every_hook() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut dispatched_policies = 0;
    let mut sequenced_policies = 0;
    let mut checks = 0;
    for _ in 0..300 {
        let src = policy(&mut rng);
        let c = compile(&[Input::new("p.yaml", src.clone())]);
        assert!(!c.diagnostics.has_errors(), "{src}");
        let ir = c.policy.clone().unwrap();
        let policy = hookc::compile::Compilation::into_policy(c).unwrap();
        let program = policy.program();
        let plans = hookc_runtime::internals::dispatch::Plans::new(program);
        if plans.for_event("e").iter().any(|s| {
            matches!(
                s,
                hookc_runtime::internals::dispatch::PlanStep::Dispatch { .. }
            )
        }) {
            dispatched_policies += 1;
        }
        // Hooks in a dispatch table whose leading leaf is no equality: keyed
        // by the equality after an item that can be an error.
        let shapes = hookc_runtime::bytecode::shape::HookShape::of_hooks(program);
        if plans.tables().iter().flat_map(|t| t.hooks()).any(|h| {
            !matches!(
                shapes[h as usize].required,
                Some(hookc_runtime::bytecode::shape::Leaf::Cmp {
                    op: hookc_runtime::bytecode::CmpOp::Eq,
                    ..
                })
            )
        }) {
            sequenced_policies += 1;
        }
        for _ in 0..40 {
            let ctx = context(&mut rng);
            let by_dispatch = policy
                .evaluate("e", &ctx)
                .unwrap()
                .terminal
                .map(|m| m.hook.to_owned());
            let trace = policy
                .query("e", &ctx)
                .with_overrides(&Default::default())
                .explain()
                .unwrap();
            let by_trace = trace.winner.map(|w| trace.hooks[w].hook.clone());
            let by_reference =
                hookc::testing::reference::first_match(&ir, "e", &ctx).map(|h| h.id.clone());
            assert_eq!(by_dispatch, by_trace, "{src}\n{ctx}");
            // The decision alone is the same decision, from either context form.
            let decided = policy.query("e", &ctx).decide().unwrap().map(str::to_owned);
            assert_eq!(decided, by_dispatch, "{src}\n{ctx}");
            let text = serde_json::to_vec(&ctx).unwrap();
            let decided_json = policy
                .query("e", hookc_runtime::Context::json(&text))
                .decide()
                .unwrap()
                .map(str::to_owned);
            assert_eq!(decided_json, by_dispatch, "{src}\n{ctx}");
            // Its position among the hook ids names the same hook.
            let position = policy.query("e", &ctx).decide_position().unwrap();
            let ids: Vec<&str> = policy.hook_ids().collect();
            assert_eq!(
                position.map(|i| ids[i].to_owned()),
                by_dispatch,
                "{src}\n{ctx}"
            );
            assert_eq!(by_dispatch, by_reference, "{src}\n{ctx}");
            // With the winner switched off, the next one wins, also through dispatch.
            if let Some(w) = &by_dispatch {
                let off = policy.overrides([w.as_str()]).unwrap();
                let next = policy
                    .query("e", &ctx)
                    .with_overrides(&off)
                    .first()
                    .unwrap()
                    .map(|m| m.hook.to_owned());
                let trace = policy
                    .query("e", &ctx)
                    .with_overrides(&off)
                    .explain()
                    .unwrap();
                assert_eq!(
                    next,
                    trace.winner.map(|i| trace.hooks[i].hook.clone()),
                    "{src}\n{ctx}"
                );
            }
            checks += 1;
        }
    }
    assert!(
        dispatched_policies >= 100,
        "only {dispatched_policies} policies had a dispatch run"
    );
    assert!(
        sequenced_policies >= 50,
        "only {sequenced_policies} policies dispatched a tree's sequenced equality"
    );
    assert!(checks >= 10_000);
}
