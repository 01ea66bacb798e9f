//! The decision model (`docs/src/semantics.md#action-effects`): the
//! runtime's walk against the reference walk (`hookc::testing::model`) on
//! random policies that mix all four effects, both combining modes and all
//! three error policies, on random contexts with awaited results scripted;
//! from a `Value`, from JSON text and from a loaded artifact. Plus the
//! worked cases of each part of the model.

use hookc::compile::{compile, Input};
use hookc::testing::model::{decide, ModelOutcome};
use hookc_runtime::{Context, JsonSink, Policy, Results};
use serde_json::{json, Map, Value};

/// A small deterministic generator (xorshift64*), so that a failure names
/// its case by seed.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const HEADER: &str = r#"
schema_version: "1.0.0"
action_types:
  deny: {effect: terminal, severity: 30, parameters: {reason: {type: string}}}
  ask: {effect: terminal, severity: 20, parameters: {reason: {type: string}, n: {type: integer}}}
  allow: {effect: terminal, severity: 10, parameters: {n: {type: integer}}}
  note: {effect: collected, parameters: {text: {type: string}, n: {type: integer}}}
  rw: {effect: transform, parameters: {patch: {type: object}, set: {type: object}}}
  wait: {effect: await, parameters: {what: {type: string}}}
  probe: {effect: await, bind: probe.out, parameters: {what: {type: string}}}
  fetch: {effect: await, bind: {parameter: into}, parameters: {into: {type: [string, "null"]}}}
"#;

/// Conditions over `x`, `y.z`, `w`, the awaited results and the probe's
/// binding: comparisons that may be errors (absent paths, mixed kinds).
const CONDITIONS: &[&str] = &[
    "",
    "x == 1",
    "x > 2",
    "x == 'a'",
    "has(x)",
    "!has(x)",
    "y.z == 'b'",
    "y.z.startsWith('b')",
    "w",
    "has(results.h1) && results.h1 == 1",
    "results.h2 == 'ok'",
    "has(probe.out)",
    "probe.out > 0",
    "x == 1 || y.z == 'c'",
];

/// Action bodies by type: some templates may not fit (`n` is an integer,
/// filled from `x`).
fn action(g: &mut Gen, id: &str) -> String {
    match g.below(8) {
        0 => format!("{{type: deny, reason: \"deny {id} ${{x}}\"}}"),
        1 => g
            .pick(&[
                "{type: ask, reason: \"ask ID\"}",
                "{type: ask, n: \"${x}\"}",
            ])
            .replace("ID", id),
        2 => g
            .pick(&["{type: allow, n: 1}", "{type: allow, n: \"${x}\"}"])
            .to_owned(),
        3 => g
            .pick(&[
                "{type: note, text: \"saw ${y.z}\"}",
                "{type: note, n: \"${x}\"}",
                "{type: note, text: \"w is ${w}\"}",
            ])
            .to_owned(),
        4 => g
            .pick(&[
                "{type: rw, patch: {x: 1}}",
                "{type: rw, patch: {x: 5, w: true}}",
                "{type: rw, patch: {y: {z: \"b\"}}}",
                "{type: rw, patch: {y: null}}",
                "{type: rw, patch: {x: \"${y.z}\"}}",
                "{type: rw, patch: {w: null, x: \"a\"}}",
                "{type: rw, patch: {}, set: {y: {z: null}}}",
                "{type: rw, patch: {x: 2}, set: {x: null, w: false}}",
                "{type: rw, patch: {y: null}, set: {y: {z: \"c\"}}}",
            ])
            .to_owned(),
        5 => format!("{{type: wait, what: \"{id}\"}}"),
        6 => g
            .pick(&[
                "{type: fetch, into: w}",
                "{type: fetch, into: x}",
                "{type: fetch, into: null}",
            ])
            .to_owned(),
        _ => "{type: probe, what: \"p\"}".to_owned(),
    }
}

/// A random policy: its YAML and the ids of its hooks.
fn policy(g: &mut Gen) -> (String, Vec<String>) {
    let mut out = HEADER.to_owned();
    out.push_str(&format!(
        "combine: {}\n",
        g.pick(&["first_match", "strictest"])
    ));
    out.push_str(match g.below(4) {
        0 => "on_error: skip\n",
        1 => "on_error: fail\n",
        // Under strictest, an error action less severe than `deny`
        // competes with the later matches.
        2 => "on_error: {action: {type: ask, reason: \"policy error in ${policy_error.hook}\"}}\n",
        _ => "on_error: {action: {type: deny, reason: \"policy error in ${policy_error.hook}\"}}\n",
    });
    out.push_str("hooks:\n");
    let n = 1 + g.below(8);
    let mut ids = Vec::new();
    for i in 0..n {
        let id = format!("h{i}");
        let event = g.pick(&["A", "A", "B", "\"*\""]);
        out.push_str(&format!("  - id: {id}\n    event: {event}\n"));
        if g.below(3) == 0 {
            out.push_str(&format!("    priority: {}\n", g.below(3)));
        }
        let cond = g.pick(CONDITIONS);
        if !cond.is_empty() {
            out.push_str(&format!("    when: \"{cond}\"\n"));
        }
        out.push_str(&format!("    action: {}\n", action(g, &id)));
        ids.push(id);
    }
    (out, ids)
}

fn context(g: &mut Gen) -> Value {
    let mut m = Map::new();
    let pick = |g: &mut Gen, options: &[Value]| options[g.below(options.len())].clone();
    if g.below(4) != 0 {
        m.insert(
            "x".into(),
            pick(
                g,
                &[json!(1), json!(3), json!("a"), json!(null), json!(2.5)],
            ),
        );
    }
    if g.below(3) != 0 {
        m.insert(
            "y".into(),
            pick(
                g,
                &[
                    json!({"z": "b"}),
                    json!({"z": "c"}),
                    json!({"z": 1}),
                    json!("y"),
                ],
            ),
        );
    }
    if g.below(2) == 0 {
        m.insert(
            "w".into(),
            pick(g, &[json!(true), json!(false), json!("t")]),
        );
    }
    Value::Object(m)
}

fn results(g: &mut Gen, ids: &[String]) -> Map<String, Value> {
    let mut m = Map::new();
    for id in ids {
        if g.below(2) == 0 {
            let v = [
                json!(1),
                json!("ok"),
                json!(null),
                json!(3),
                json!({"a": 1}),
            ];
            m.insert(id.clone(), v[g.below(v.len())].clone());
        }
    }
    m
}

/// The runtime's answer in the reference's terms: the decision's JSON with
/// each error's cause left out.
fn runtime(policy: &Policy, event: &str, ctx: Context<'_>, results: &Results) -> ModelOutcome {
    let decision = policy.query(event, ctx).with_results(results).decision();
    ModelOutcome::of_runtime(decision).unwrap_or_else(|e| panic!("unexpected error {e}"))
}

#[test]
fn runtime_walk_equals_the_reference_on_random_policies() {
    let mut checked = 0;
    let mut decided = [0usize; 4];
    for seed in 1..=300u64 {
        let mut g = Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let (yaml, ids) = policy(&mut g);
        let comp = compile(&[Input::new("random.yaml", yaml.clone())]);
        assert!(
            !comp.diagnostics.has_errors(),
            "seed {seed}: {yaml}\n{:?}",
            comp.diagnostics
        );
        let checked_policy = comp.policy.clone().unwrap();
        let policy = comp.into_policy().unwrap();
        let reloaded = Policy::from_artifact(&policy.to_artifact()).unwrap();
        for _ in 0..20 {
            let ctx = context(&mut g);
            let given = results(&mut g, &ids);
            let event = ["A", "B", "C"][g.below(3)];
            let want = decide(&checked_policy, event, &ctx, &given);
            let scripted = Results::from(given.clone());
            let text = ctx.to_string();
            for (how, p, c) in [
                ("value", &policy, Context::Value(&ctx)),
                ("json", &policy, Context::json(&text)),
                ("artifact", &reloaded, Context::Value(&ctx)),
            ] {
                let got = runtime(p, event, c, &scripted);
                assert_eq!(
                    got, want,
                    "seed {seed}, {how}, event {event}, context {ctx}, results {given:?}\n{yaml}"
                );
            }
            // The trace decides what the decision decides.
            let trace = policy.query(event, &ctx).with_results(&scripted).explain();
            if let (Ok(trace), ModelOutcome::Decided(Value::Object(d))) = (&trace, &want) {
                let winner = trace.winner.and_then(|w| trace.hooks.get(w));
                let hook = d.get("hook").and_then(Value::as_str);
                assert_eq!(winner.map(|h| h.hook.as_str()), hook, "seed {seed}\n{yaml}");
            }
            // The deciding hook's position names the hook `decide` names.
            let q = policy.query(event, &ctx).with_results(&scripted);
            match (q.decide(), q.decide_position()) {
                (Ok(id), Ok(position)) => {
                    let ids: Vec<&str> = policy.hook_ids().collect();
                    assert_eq!(position.map(|i| ids[i]), id, "seed {seed}\n{yaml}");
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("decide {a:?} but decide_position {b:?}\n{yaml}"),
            }
            // The terminal match built through a sink is `first`'s; when the
            // decision is that match alone, it is the decision too.
            match (q.first(), q.first_with(&mut JsonSink)) {
                (Ok(first), Ok(built)) => {
                    let ids: Vec<&str> = policy.hook_ids().collect();
                    let built = built.map(|(i, hook, action)| {
                        assert_eq!(ids[i], hook, "seed {seed}\n{yaml}");
                        (hook, action)
                    });
                    let want_built = first.clone().map(|m| (m.hook, Value::Object(m.action)));
                    assert_eq!(built, want_built, "seed {seed}\n{yaml}");
                    if q.decision_is_first() {
                        let decision = q.decision().unwrap().into_json();
                        assert_eq!(decision, first.map_or(Value::Null, |m| m.into_json()));
                    }
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("first {a:?} but first_with {b:?}\n{yaml}"),
            }
            decided[match &want {
                ModelOutcome::Decided(Value::Null) => 0,
                ModelOutcome::Decided(_) => 1,
                ModelOutcome::Failed(_) => 2,
                ModelOutcome::ActionMisfit(_) => 3,
            }] += 1;
            checked += 1;
        }
    }
    assert_eq!(checked, 6000);
    // Every kind of outcome occurred, so the comparison covered them.
    assert!(decided.iter().all(|&n| n > 20), "{decided:?}");
}

fn load(yaml: &str) -> Policy {
    let comp = compile(&[Input::new("p.yaml", format!("{HEADER}{yaml}"))]);
    assert!(!comp.diagnostics.has_errors(), "{:?}", comp.diagnostics);
    comp.into_policy().unwrap()
}

#[test]
fn strictest_takes_the_most_severe_match_whatever_the_order() {
    let p = load(
        "combine: strictest\nhooks:\n  - {id: a, event: E, action: {type: ask, reason: r}}\n  \
         - {id: n, event: E, action: {type: note, text: t}}\n  \
         - {id: d, event: E, action: {type: deny, reason: r}}\n  \
         - {id: d2, event: E, action: {type: deny, reason: later}}\n",
    );
    let d = p.evaluate("E", &json!({})).unwrap();
    assert_eq!(d.terminal.unwrap().hook, "d");
    // The walk stopped at the highest severity: `d2` was not reached, and
    // the collected note before it is kept.
    assert_eq!(d.collected.len(), 1);
    let trace = p.query("E", &json!({})).explain().unwrap();
    assert!(
        trace.to_text().contains("highest severity (30)"),
        "{}",
        trace.to_text()
    );
}

#[test]
fn a_transform_is_read_by_later_hooks_and_reported() {
    let p = load(
        "hooks:\n  - {id: t, event: E, action: {type: rw, patch: {y: {z: b}, x: null}}}\n  \
         - {id: d, event: E, when: \"y.z == 'b' && !has(x)\", action: {type: deny, reason: \"${y.z}\"}}\n",
    );
    let d = p
        .evaluate("E", &json!({"x": 1, "y": {"z": "a", "k": 2}}))
        .unwrap();
    assert_eq!(d.terminal.as_ref().unwrap().hook, "d");
    assert_eq!(d.terminal.unwrap().action["reason"], json!("b"));
    assert_eq!(d.transforms.len(), 1);
    assert_eq!(d.patched.get("y"), Some(&json!({"z": "b", "k": 2})));
    assert_eq!(d.patched.get("x"), Some(&Value::Null));
}

#[test]
fn a_transform_sets_a_member_to_null_with_set() {
    // `patch` removes where it says null; `set` keeps the null as a value,
    // and is applied after the patch.
    let p = load(
        "hooks:\n  - {id: t, event: E, action: {type: rw, patch: {y: {k: null}}, set: {y: {z: null}, x: null}}}\n  \
         - {id: d, event: E, when: \"has(y.z) && y.z == null && has(x) && !has(y.k)\", action: {type: deny, reason: seen}}\n",
    );
    let d = p
        .evaluate("E", &json!({"x": 1, "y": {"z": "a", "k": 2}}))
        .unwrap();
    assert_eq!(d.terminal.as_ref().unwrap().hook, "d");
    assert_eq!(d.patched.get("y"), Some(&json!({"z": null})));
    assert_eq!(d.patched.get("x"), Some(&Value::Null));
}

#[test]
fn a_transform_set_that_is_not_an_object_type_is_refused() {
    let comp = compile(&[Input::new(
        "t.yaml",
        "action_types:\n  rw: {effect: transform, parameters: {patch: {type: object}, set: {type: string}}}\nhooks: []\n",
    )]);
    let messages: Vec<_> = comp.diagnostics.iter().map(|d| d.message.clone()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("declares a `set` parameter that is not of type `object`")),
        "{messages:?}"
    );
}

#[test]
fn an_await_suspends_then_resumes_with_the_result_bound() {
    let p = load(
        "hooks:\n  - {id: g, event: E, action: {type: wait, what: branch}}\n  \
         - {id: p, event: E, action: {type: probe, what: lock}}\n  \
         - {id: d, event: E, when: \"results.g == 'main' && probe.out\", action: {type: deny, reason: r}}\n",
    );
    let ctx = json!({});
    let d = p.evaluate("E", &ctx).unwrap();
    assert_eq!(d.pending.unwrap().hook, "g");
    let mut r = Results::new();
    r.insert("g", json!("main"));
    let d = p.query("E", &ctx).with_results(&r).decision().unwrap();
    assert_eq!(d.pending.unwrap().hook, "p");
    r.insert("p", json!(true));
    let d = p.query("E", &ctx).with_results(&r).decision().unwrap();
    assert_eq!(d.terminal.unwrap().hook, "d");
    assert!(d.pending.is_none());
}

#[test]
fn error_policies() {
    let hooks =
        "hooks:\n  - {id: bad, event: E, when: \"x > 1\", action: {type: deny, reason: r}}\n  \
                 - {id: obs, event: E, action: {type: note, n: \"${x}\"}}\n  \
                 - {id: ok, event: E, action: {type: ask, reason: fine}}\n";
    let ctx = json!({"x": "text"});
    // skip: the erroring condition is a non-match, the misfit observer is
    // reported and does not lose the later decision.
    let skip = load(hooks);
    let d = skip.evaluate("E", &ctx).unwrap();
    assert_eq!(d.terminal.unwrap().hook, "ok");
    assert_eq!(d.errors.len(), 1);
    assert_eq!(d.errors[0].hook, "obs");
    // fail: the evaluation fails, naming the hook and the cause.
    let e = load(&format!("on_error: fail\n{hooks}"))
        .evaluate("E", &ctx)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "policy error in hook `bad`: condition error: no such overload"
    );
    // an action: it decides, with the hook and cause in its templates.
    let p = load(&format!(
        "on_error: {{action: {{type: deny, reason: \"policy error in ${{policy_error.hook}}: ${{policy_error.cause}}\"}}}}\n{hooks}"
    ));
    let d = p.evaluate("E", &ctx).unwrap();
    let t = d.terminal.unwrap();
    assert_eq!(t.hook, "bad");
    assert_eq!(
        t.action["reason"],
        json!("policy error in bad: condition error: no such overload")
    );
}

/// Under strictest combining (issue 35, defect 3), the most severe match
/// decides whatever fails before it: a terminal action that cannot be
/// filled fails the evaluation only when it would decide, and the error
/// action competes at its type's severity.
#[test]
fn strictest_failures_decide_only_when_they_would_win() {
    let ctx = json!({"x": "text"});
    // `misfit` (ask, 20) cannot be filled: `x` is no integer.
    let misfit = "  - {id: misfit, event: E, action: {type: ask, n: \"${x}\"}}\n";
    let deny = "  - {id: later_deny, event: E, action: {type: deny, reason: r}}\n";
    let allow = "  - {id: later_allow, event: E, action: {type: allow, n: 1}}\n";
    // A later, more severe deny decides; the misfit is a decision error.
    let p = load(&format!("combine: strictest\nhooks:\n{misfit}{deny}"));
    let d = p.evaluate("E", &ctx).unwrap();
    assert_eq!(d.terminal.unwrap().hook, "later_deny");
    assert_eq!(d.errors.len(), 1);
    assert_eq!(d.errors[0].hook, "misfit");
    // A later, less severe match does not: the misfit would decide, so
    // the evaluation fails, as under first match.
    let p = load(&format!("combine: strictest\nhooks:\n{misfit}{allow}"));
    let e = p.evaluate("E", &ctx).unwrap_err();
    assert!(e.to_string().contains("misfit"), "{e}");
    // An error action less severe than a later deny: the deny decides.
    let bad = "  - {id: bad, event: E, when: \"x > 1\", action: {type: allow, n: 1}}\n";
    let on_error = "on_error: {action: {type: ask, reason: \"error in ${policy_error.hook}\"}}\n";
    let p = load(&format!(
        "combine: strictest\n{on_error}hooks:\n{bad}{deny}"
    ));
    let d = p.evaluate("E", &ctx).unwrap();
    assert_eq!(d.terminal.unwrap().hook, "later_deny");
    assert_eq!(d.errors[0].hook, "bad");
    // ... and with no deny after it, the error action decides.
    let p = load(&format!(
        "combine: strictest\n{on_error}hooks:\n{bad}{allow}"
    ));
    let t = p.evaluate("E", &ctx).unwrap().terminal.unwrap();
    assert_eq!(t.hook, "bad");
    assert_eq!(t.action["reason"], json!("error in bad"));
    // Under first match, the error action still decides at once.
    let p = load(&format!("{on_error}hooks:\n{bad}{deny}"));
    assert_eq!(p.evaluate("E", &ctx).unwrap().terminal.unwrap().hook, "bad");
    // The trace of a misfit that would win names it as the failure.
    let p = load(&format!("combine: strictest\nhooks:\n{misfit}{allow}"));
    let trace = p.query("E", &ctx).explain().unwrap();
    assert_eq!(trace.model.failed, Some(0));
    assert_eq!(trace.winner, None);
    // One outranked is still listed as a failure in the trace.
    let p = load(&format!("combine: strictest\nhooks:\n{misfit}{deny}"));
    let trace = p.query("E", &ctx).explain().unwrap();
    assert_eq!(trace.model.failed, None);
    assert_eq!(trace.winner, Some(1));
    assert_eq!(trace.model.failures.len(), 1);
    assert_eq!(trace.model.failures[0].0, 0);
    assert!(
        trace.to_text().contains("failure: misfit: "),
        "{}",
        trace.to_text()
    );
}

#[test]
fn first_match_policies_keep_their_artifact_format() {
    let artifact = |yaml: &str| {
        let comp = compile(&[Input::new("p.yaml", yaml.to_owned())]);
        comp.into_policy().unwrap().to_artifact()
    };
    let types = "action_types:\n  ask: {parameters: {reason: {type: string}}}\n  \
                 note: {effect: collected}\n";
    let hooks = "hooks:\n  - {id: a, event: E, action: {type: ask, reason: r}}\n  \
                 - {id: b, event: E, action: {type: note}}\n";
    assert_eq!(artifact(&format!("{types}{hooks}"))[8], 3);
    assert_eq!(
        artifact(&format!("combine: strictest\n{types}{hooks}"))[8],
        4
    );
    assert_eq!(artifact(&format!("on_error: fail\n{types}{hooks}"))[8], 4);
}

#[test]
fn overlapping_transforms_are_reported_once_on_the_later_hook() {
    let warnings = |hooks: &str| -> Vec<String> {
        let src = format!(
            "action_types:\n  rw: {{effect: transform, parameters: {{patch: {{type: object}}, set: {{type: object}}}}}}\nhooks:\n{hooks}"
        );
        let comp = compile(&[Input::new("t.yaml", src)]);
        comp.diagnostics
            .iter()
            .filter(|d| d.code == hookc::diag::Code::TransformOverlap)
            .map(|d| d.message.clone())
            .collect()
    };
    // The same member on one event, and a member under a replaced one.
    let w = warnings(
        "  - {id: a, event: E, action: {type: rw, patch: {x: {y: 1}}}}\n  \
         - {id: b, event: E, action: {type: rw, patch: {x: 2, z: 1}}}\n  \
         - {id: c, event: E, action: {type: rw, patch: {x: {y: 3}}}}\n",
    );
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].starts_with("hook `b` patches `x`, which the earlier transform `a`"));
    assert!(w[1].starts_with("hook `c` patches `x.y`, which the earlier transform `b`"));
    // A `set` sets members as a patch does.
    let w = warnings(
        "  - {id: a, event: E, action: {type: rw, patch: {x: 1}}}\n  \
         - {id: b, event: E, action: {type: rw, patch: {}, set: {x: null}}}\n",
    );
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("hook `b` patches `x`, which the earlier transform `a`"));
    // Other events do not meet; a "*" transform meets every event's.
    assert!(warnings(
        "  - {id: a, event: E, action: {type: rw, patch: {x: 1}}}\n  \
         - {id: b, event: F, action: {type: rw, patch: {x: 2}}}\n"
    )
    .is_empty());
    assert_eq!(
        warnings(
            "  - {id: a, event: E, action: {type: rw, patch: {x: 1}}}\n  \
             - {id: b, event: \"*\", action: {type: rw, patch: {x: 2}}}\n  \
             - {id: c, event: F, action: {type: rw, patch: {x: 3}}}\n"
        )
        .len(),
        2
    );
    // Sibling members do not overlap.
    assert!(warnings(
        "  - {id: a, event: E, action: {type: rw, patch: {x: {y: 1}}}}\n  \
         - {id: b, event: E, action: {type: rw, patch: {x: {z: 2}}}}\n"
    )
    .is_empty());
}

/// The shadowing lints stay sound under the decision model: under
/// strictest combining only a match of the highest severity ends the
/// evaluation, and after a transform the later hooks read another context,
/// so neither a less severe hook nor a hook before a transform shadows.
#[test]
fn shadowing_is_claimed_only_where_the_model_ends_the_walk() {
    let shadowed = |head: &str, hooks: &str| -> Vec<String> {
        let src = format!(
            "{head}action_types:\n  deny: {{severity: 30, parameters: {{r: {{type: string}}}}}}\n  \
             ask: {{severity: 20, parameters: {{r: {{type: string}}}}}}\n  \
             rw: {{effect: transform, parameters: {{patch: {{type: object}}}}}}\n\
             event_context_schema: {{type: object, properties: {{x: {{type: integer}}}}}}\nhooks:\n{hooks}"
        );
        let comp = compile(&[Input::new("s.yaml", src)]);
        assert!(!comp.diagnostics.has_errors(), "{:?}", comp.diagnostics);
        comp.diagnostics
            .iter()
            .filter(|d| {
                matches!(
                    d.code,
                    hookc::diag::Code::ShadowedHook | hookc::diag::Code::DuplicateCondition
                )
            })
            .map(|d| d.message.clone())
            .collect()
    };
    let ask_then_deny = "  - {id: a, event: E, when: \"x == 1\", action: {type: ask, r: q}}\n  \
                         - {id: d, event: E, when: \"x == 1\", action: {type: deny, r: n}}\n";
    // First match: the deny can never win.
    assert_eq!(shadowed("", ask_then_deny).len(), 1);
    // Strictest: it always wins over the ask.
    assert!(shadowed("combine: strictest\n", ask_then_deny).is_empty());
    // A deny (the highest severity) still shadows under strictest.
    let deny_then_ask = "  - {id: d, event: E, when: \"x == 1\", action: {type: deny, r: n}}\n  \
                         - {id: a, event: E, when: \"x == 1\", action: {type: ask, r: q}}\n";
    assert_eq!(shadowed("combine: strictest\n", deny_then_ask).len(), 1);
    // A transform between them: the later hook reads the patched context.
    let across_transform =
        "  - {id: a, event: E, when: \"x == 1\", action: {type: deny, r: q}}\n  \
                            - {id: t, event: E, action: {type: rw, patch: {x: 1}}}\n  \
                            - {id: b, event: E, when: \"x == 1\", action: {type: deny, r: n}}\n";
    assert!(shadowed("", across_transform).is_empty());
}

/// A host profile's `combine` is a default (issue 35): a policy under
/// `host: claude-code` may choose `first_match`, where the profile says
/// `strictest`; without a choice of its own it combines as the profile
/// says.
#[test]
fn a_policy_chooses_its_combine_over_its_host_profile() {
    let hooks = "hooks:\n  - {id: a, event: PreToolUse, when: \"tool_name == 'Bash'\", action: {type: ask, reason: x}}\n  \
                 - {id: b, event: PreToolUse, when: \"tool_input.command == 'ls'\", action: {type: deny, reason: y}}\n";
    let ctx = json!({"session_id": "s", "cwd": "/", "hook_event_name": "PreToolUse",
                     "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let decide = |head: &str| {
        let comp = compile(&[Input::new(
            "p.yaml",
            format!("host: claude-code\n{head}{hooks}"),
        )]);
        assert!(!comp.diagnostics.has_errors(), "{:?}", comp.diagnostics);
        let policy = comp.into_policy().unwrap();
        let d = policy.evaluate("PreToolUse", &ctx).unwrap();
        d.terminal.map(|m| m.hook.to_owned())
    };
    assert_eq!(decide("").as_deref(), Some("b"), "the profile's strictest");
    assert_eq!(decide("combine: first_match\n").as_deref(), Some("a"));
    assert_eq!(decide("combine: strictest\n").as_deref(), Some("b"));
    // Two files of the policy still agree with each other.
    let comp = compile(&[
        Input::new(
            "p.yaml",
            format!("host: claude-code\ncombine: first_match\n{hooks}"),
        ),
        Input::new("q.yaml", "combine: strictest\n"),
    ]);
    assert!(comp.diagnostics.has_errors());
}
