//! The lints against a hand-written corpus (`tests/data/shadowing/`): every
//! file states its true answer (shadowed hooks, partly shadowed hooks,
//! always-false conditions) and the analysis must report exactly that — no
//! false "always" (every reported hook is expected) and nothing missed (every
//! expected hook is reported).
//!
//! Then every claim is checked against the reference evaluator on random
//! contexts built from the policy's own paths and constants: a hook reported
//! shadowed never matches on its events unless an earlier *terminal* hook
//! does (a collected match lets evaluation go on); an always-false condition
//! is never true; a template path the lint considers guaranteed resolves
//! whenever its hook matches and is reached (no earlier terminal match).

use crate::rng;

use hookc::check::policy::{CheckedPolicy, Events};
use hookc::compile::{compile, Input};
use hookc::ir::{Const, IrExpr, IrExprKind};
use hookc::lint::{analyze, Finding};
use hookc_runtime::bytecode::path::{Path as CtxPath, Segment};
use rng::Rng;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/shadowing")
}

fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The ids after `# KEY:` in the header, if the line is there.
fn expected(text: &str, key: &str) -> Option<BTreeSet<String>> {
    let prefix = format!("# {key}:");
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.strip_prefix(&prefix))
        .map(|rest| rest.split_whitespace().map(str::to_owned).collect())
}

fn policy_of(name: &str, text: &str) -> CheckedPolicy {
    let c = compile(&[Input::new(name, text)]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}");
    c.policy.unwrap()
}

struct Reported {
    shadowed: BTreeSet<String>,
    partial: BTreeSet<String>,
    always_false: BTreeSet<String>,
}

fn reported(p: &CheckedPolicy, findings: &[Finding]) -> Reported {
    let id = |i: &usize| p.hooks()[*i].id.clone();
    let mut r = Reported {
        shadowed: BTreeSet::new(),
        partial: BTreeSet::new(),
        always_false: BTreeSet::new(),
    };
    for f in findings {
        match f {
            Finding::Shadowed { hook, events, .. } if events.is_empty() => {
                r.shadowed.insert(id(hook));
            }
            Finding::Shadowed { hook, events, .. } => {
                for e in events {
                    r.partial.insert(format!("{}@{e}", id(hook)));
                }
            }
            Finding::AlwaysFalse { hook, .. } => {
                r.always_false.insert(id(hook));
            }
            _ => {}
        }
    }
    r
}

#[test]
fn the_corpus_is_large_enough() {
    assert!(corpus().len() >= 20);
}

#[test]
fn exactly_the_expected_hooks_are_reported() {
    let mut failures = Vec::new();
    let (mut cases, mut claims) = (0, 0);
    for (name, text) in corpus() {
        let p = policy_of(&name, &text);
        let r = reported(&p, &analyze(&p));
        let exp_shadowed =
            expected(&text, "shadowed").unwrap_or_else(|| panic!("{name}: no `# shadowed:` line"));
        let checks = [
            ("shadowed", exp_shadowed, &r.shadowed),
            (
                "partial",
                expected(&text, "partial").unwrap_or_default(),
                &r.partial,
            ),
            (
                "always-false",
                expected(&text, "always-false").unwrap_or_default(),
                &r.always_false,
            ),
        ];
        for (what, want, got) in checks {
            claims += want.len();
            let false_always: Vec<_> = got.difference(&want).collect();
            let missed: Vec<_> = want.difference(got).collect();
            if !false_always.is_empty() {
                failures.push(format!(
                    "{name}: reported {what} but not expected (a false \"always\"): {false_always:?}"
                ));
            }
            if !missed.is_empty() {
                failures.push(format!(
                    "{name}: expected {what} but not reported: {missed:?}"
                ));
            }
        }
        cases += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        cases >= 20 && claims >= 40,
        "{cases} cases, {claims} claims"
    );
}

// ---- random contexts ------------------------------------------------------------

/// Constants of the policy's conditions, with neighbours: numbers ± 0.5 and
/// ± 1, strings with a character added or removed.
fn constants(e: &IrExpr, out: &mut Vec<Value>) {
    fn add(c: &Const, out: &mut Vec<Value>) {
        match c {
            Const::Int(i) => {
                for d in [-1, 0, 1] {
                    out.push(json!(i + d));
                }
                out.push(json!(*i as f64 + 0.5));
                out.push(json!(*i as f64 - 0.5));
            }
            Const::Double(d) => {
                for x in [*d - 1.0, *d - 0.5, *d, *d + 0.5, *d + 1.0] {
                    out.push(json!(x));
                }
            }
            Const::String(s) => {
                out.push(json!(s));
                out.push(json!(format!("{s}X")));
                out.push(json!(format!("X{s}")));
                out.push(json!(format!("X{s}X")));
                out.push(json!(format!("/{s}")));
                let mut shorter = s.clone();
                shorter.pop();
                out.push(json!(shorter));
            }
            Const::List(items) => items.iter().for_each(|i| add(i, out)),
            other => out.push(other.to_json()),
        }
    }
    match &e.kind {
        IrExprKind::Const(c) => add(c, out),
        IrExprKind::Matches(recv, re) => {
            constants(recv, out);
            // Strings that match the pattern's literal words.
            out.push(json!(re.pattern.replace("(?i)", "")));
            out.push(json!(format!(
                "x {} y",
                re.pattern.replace("(?i)", "").to_uppercase()
            )));
        }
        IrExprKind::List(items)
        | IrExprKind::Call(_, items)
        | IrExprKind::PatternCall { args: items, .. } => {
            items.iter().for_each(|i| constants(i, out))
        }
        IrExprKind::Unary(_, a)
        | IrExprKind::Field(a, _)
        | IrExprKind::HasField(a, _)
        | IrExprKind::TypeIs(a, _)
        | IrExprKind::Local { body: a, .. } => constants(a, out),
        IrExprKind::Binary { lhs, rhs, .. }
        | IrExprKind::Index(lhs, rhs)
        | IrExprKind::And(lhs, rhs)
        | IrExprKind::Or(lhs, rhs) => {
            constants(lhs, out);
            constants(rhs, out);
        }
        IrExprKind::Cond(c, a, b) => {
            constants(c, out);
            constants(a, out);
            constants(b, out);
        }
        IrExprKind::Macro { range, body, .. } => {
            constants(range, out);
            constants(body, out);
        }
        IrExprKind::SchemaMatch { check, .. } => constants(check, out),
        IrExprKind::Path(_) | IrExprKind::HasPath(_) | IrExprKind::Var { .. } => {}
    }
}

/// Sets `path` in `doc` to `v`, creating objects and lists on the way;
/// gives up where a prefix already holds a scalar.
fn set_path(doc: &mut Value, path: &CtxPath, v: Value) {
    let mut steps: Vec<Segment> = vec![Segment::Field(path.root_name().to_owned())];
    steps.extend(path.segments().iter().cloned());
    let mut cur = doc;
    let last = steps.len() - 1;
    for (i, step) in steps.iter().enumerate() {
        let next_is_index = matches!(steps.get(i + 1), Some(Segment::Index(_)));
        let fresh = || {
            if next_is_index {
                json!([])
            } else {
                json!({})
            }
        };
        cur = match step {
            Segment::Field(name) => {
                let Value::Object(map) = cur else { return };
                if i == last {
                    map.insert(name.clone(), v);
                    return;
                }
                map.entry(name.clone()).or_insert_with(fresh)
            }
            Segment::Index(ix) => {
                let Value::Array(items) = cur else { return };
                let Ok(ix) = usize::try_from(*ix) else { return };
                while items.len() <= ix {
                    items.push(Value::Null);
                }
                if i == last {
                    items[ix] = v;
                    return;
                }
                if items[ix].is_null() {
                    items[ix] = fresh();
                }
                &mut items[ix]
            }
        };
    }
}

fn random_context(rng: &mut Rng, paths: &[CtxPath], pool: &[Value]) -> Value {
    let mut doc = Value::Object(Map::new());
    let mut order: Vec<usize> = (0..paths.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    for i in order {
        let v = match rng.below(10) {
            0..=2 => continue, // missing
            3..=5 => rng.pick(pool).clone(),
            // Two strings of the pool joined: needles inside longer text.
            6 => match (rng.pick(pool), rng.pick(pool)) {
                (Value::String(a), Value::String(b)) => json!(format!("{a}{b}")),
                (a, _) => a.clone(),
            },
            7 => rng
                .pick(&[json!(null), json!(true), json!(false), json!([]), json!({})])
                .clone(),
            8 => json!(rng.below(30) as i64 - 10),
            _ => json!(rng.below(300) as f64 / 10.0 - 10.0),
        };
        set_path(&mut doc, &paths[i], v);
    }
    doc
}

/// Every claim of the analysis holds on random contexts.
#[test]
fn claims_hold_on_random_contexts() {
    use hookc::testing::reference::hook_matches;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0usize;
    for (name, text) in corpus() {
        let p = policy_of(&name, &text);
        let findings = analyze(&p);
        let paths: Vec<CtxPath> = p.paths().iter().map(|(_, q)| q.clone()).collect();
        let mut pool = vec![json!(""), json!("other"), json!(0), json!(1.5)];
        for h in p.hooks() {
            if let Some(c) = &h.condition {
                constants(c, &mut pool);
            }
        }
        let mut events: BTreeSet<String> = ["some_other_event".to_owned()].into();
        for h in p.hooks() {
            if let Events::Named(ns) = &h.events {
                events.extend(ns.iter().cloned());
            }
        }
        let listens = |hook: usize, e: &str| p.hooks()[hook].events.includes(e);
        for _ in 0..3000 {
            let ctx = random_context(&mut rng, &paths, &pool);
            for e in &events {
                let matched: Vec<bool> = p
                    .hooks()
                    .iter()
                    .map(|h| hook_matches(&p, h, e, &ctx))
                    .collect();
                // Evaluation ends at the first terminal match.
                let end = p
                    .hooks()
                    .iter()
                    .zip(&matched)
                    .position(|(h, m)| *m && h.action.effect == hookc::ir::Effect::Terminal);
                for f in &findings {
                    match f {
                        Finding::Shadowed { hook, events, .. } => {
                            let applies = listens(*hook, e)
                                && (events.is_empty() || events.iter().any(|x| x == e));
                            if applies && matched[*hook] {
                                checked += 1;
                                assert!(
                                    end.is_some_and(|i| i < *hook),
                                    "{name}: `{}` reported shadowed, but no earlier terminal hook matches `{e}` on {ctx}",
                                    p.hooks()[*hook].id
                                );
                            }
                        }
                        Finding::AlwaysFalse { hook, .. } => {
                            assert!(
                                !matched[*hook],
                                "{name}: `{}` reported always false, but matched on {ctx}",
                                p.hooks()[*hook].id
                            );
                        }
                        _ => {}
                    }
                }
                // Templates the lint does not report resolve when their hook
                // matches and is reached.
                let reached = end.map_or(matched.len(), |i| i + 1);
                for i in (0..reached).filter(|i| matched[*i]) {
                    let h = &p.hooks()[i];
                    let reported: BTreeSet<_> = findings
                        .iter()
                        .filter_map(|f| match f {
                            Finding::UnguardedTemplate { hook, path, .. } if *hook == i => {
                                Some(*path)
                            }
                            _ => None,
                        })
                        .collect();
                    for (_, v) in &h.action.params {
                        if let hookc::check::actions::ActionValue::Template(t) = v {
                            for (pid, _) in t.refs() {
                                if !reported.contains(&pid) {
                                    let path = p.paths().get(pid).unwrap();
                                    assert!(
                                        hookc_runtime::internals::context::resolve(&ctx, path).is_some(),
                                        "{name}: `${{{path}}}` of `{}` considered guaranteed, but missing in {ctx}",
                                        h.id
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    // The shadowed hooks' conditions did come true (so the check has teeth).
    assert!(checked > 1000, "only {checked} shadowed matches exercised");
}

#[test]
fn templates_guarded_by_their_condition_are_not_reported() {
    let src = r#"
hooks:
  - id: guarded
    event: error
    when: "has(error.code) && error.message.startsWith('x')"
    action: {type: fail, error_message: "${error.code}: ${error.message} (${error.type})"}
"#;
    let p = policy_of("t.yaml", src);
    let unguarded: Vec<String> = analyze(&p)
        .iter()
        .filter_map(|f| match f {
            Finding::UnguardedTemplate { path, .. } => {
                Some(p.paths().get(*path).unwrap().to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(unguarded, ["error.type"]);
}

#[test]
fn large_policies_are_analyzed_quickly() {
    // 5,000 hooks on one event, each an equality on its own value: the index
    // keeps this linear; the last hook repeats the first one's value.
    let mut src = String::from("hooks:\n");
    for i in 0..5000 {
        src.push_str(&format!(
            "  - {{id: h{i}, event: error, when: \"error.code == 'C{i}' && error.message.startsWith('m')\", action: {{type: abort}}}}\n"
        ));
    }
    src.push_str("  - {id: last, event: error, when: \"error.code == 'C0' && error.message == 'mm'\", action: {type: abort}}\n");
    let start = std::time::Instant::now();
    let p = policy_of("big.yaml", &src);
    let findings = analyze(&p);
    let shadowed: Vec<&str> = findings
        .iter()
        .filter_map(|f| match f {
            Finding::Shadowed { hook, .. } => Some(p.hooks()[*hook].id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(shadowed, ["last"]);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

/// W0001 is not reported for a key an awaited action binds its result at
/// through a parameter given as a plain string (`bind: {parameter: into}`,
/// `into: weather`): later hooks read it (issue 35, defect 5).
#[test]
fn a_key_an_earlier_hook_binds_is_not_outside_the_schema() {
    let policy = |into: &str| {
        format!(
            "action_types:\n  fetch: {{effect: await, bind: {{parameter: into}}, parameters: {{into: {{type: [string, \"null\"]}}}}}}\n\
             hooks:\n  - id: p\n    event: e\n    action: {{type: fetch, into: {into}}}\n\
             \x20 - id: q\n    event: e\n    when: \"has(weather.temp) && weather.temp > 30\"\n    action: {{type: abort}}\n"
        )
    };
    let w0001 = |text: String| {
        let c = compile(&[Input::new("p.yaml", text)]);
        assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
        c.diagnostics
            .iter()
            .filter(|d| d.code == hookc::diag::Code::PathNotInSchema)
            .count()
    };
    assert_eq!(w0001(policy("weather")), 0);
    // Bound elsewhere: `weather` is still outside the schema.
    assert_eq!(w0001(policy("forecast")), 1);
}
