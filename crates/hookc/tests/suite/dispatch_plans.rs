//! Evaluation plans: events found by scan or hash alike, and which
//! conditions become equality-dispatch keys.

use hookc::compile::{compile, Input};
use hookc_runtime::bytecode::Program;
use hookc_runtime::internals::dispatch::*;
use hookc_runtime::internals::str_map::SCAN_KEYS;
use serde_json::json;

fn program(src: &str) -> Program {
    let c = compile(&[Input::new("t.yaml", src)]);
    assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
    hookc::lower::lower(c.policy.as_ref().unwrap())
}

#[test]
fn events_are_found_by_scan_or_hash_alike() {
    // Event names of equal length and shared prefixes; a `*` hook.
    for n in [1, SCAN_KEYS, SCAN_KEYS + 1, 40] {
        let mut src = String::from("hooks:\n  - {id: any, event: '*', action: {type: abort}}\n");
        for i in 0..n {
            src.push_str(&format!(
                "  - {{id: h{i}, event: ev{i:02}, action: {{type: abort}}}}\n"
            ));
        }
        let p = program(&src);
        let plans = Plans::new(&p);
        assert_eq!(plans.scans_event_names(), n <= SCAN_KEYS);
        for i in 0..n {
            let event = format!("ev{i:02}");
            let hooks: Vec<PlanStep> = p
                .hooks_for(&event)
                .iter()
                .map(|&h| PlanStep::Hook(h))
                .collect();
            assert_eq!(plans.for_event(&event), hooks.as_slice(), "{event}");
            assert_eq!(hooks.len(), 2);
        }
        for other in ["ev", "ev0", "ev999", "", "EV00"] {
            assert_eq!(plans.for_event(other), [PlanStep::Hook(0)], "{other}");
        }
    }
}

#[test]
fn only_conditions_that_require_the_equality_are_keys() {
    let p = program(
        r#"
hooks:
  - {id: alone, event: e, when: "c == 'a'", action: {type: abort}}
  - {id: chain, event: e, when: "c == 'b' && n > 1 && s.startsWith('x')", action: {type: abort}}
  - {id: long, event: e, condition: {all: [{path: c, op: eq, value: d}, {path: n, op: gt, value: 2}]}, action: {type: abort}}
  - {id: or, event: e, when: "c == 'a' || n > 1", action: {type: abort}}
  - {id: nested, event: e, when: "(c == 'a' && n > 1) || n < 0", action: {type: abort}}
  - {id: int, event: e, when: "n == 1 && c == 'a'", action: {type: abort}}
  - {id: ne, event: e, when: "c != 'a'", action: {type: abort}}
"#,
    );
    let keys: Vec<_> = (0..7).map(|h| required_eq(&p, h).map(|(_, v)| v)).collect();
    assert_eq!(
        keys,
        [Some("a"), Some("b"), Some("d"), None, None, None, None]
    );
}

#[test]
fn runs_become_tables_and_keep_order() {
    let mut src = String::from("hooks:\n");
    for (i, v) in ["x", "y", "x", "z", "x"].iter().enumerate() {
        src.push_str(&format!(
                "  - {{id: h{i}, event: e, priority: {}, when: \"c == '{v}' && n > {i}\", action: {{type: abort}}}}\n",
                100 - i
            ));
    }
    src.push_str(
        "  - {id: other, event: e, priority: 0, when: \"n > 0\", action: {type: abort}}\n",
    );
    let p = program(&src);
    let plans = Plans::new(&p);
    let steps = plans.for_event("e");
    assert_eq!(steps.len(), 2);
    let PlanStep::Dispatch { table, .. } = steps[0] else {
        panic!("{steps:?}")
    };
    let t = plans.table(table).unwrap();
    assert_eq!(t.candidates(Some(&json!("x"))), [0, 2, 4]);
    assert_eq!(t.candidates(Some(&json!("w"))), [] as [u32; 0]);
    assert_eq!(t.candidates(Some(&json!(1))), [] as [u32; 0]);
    assert_eq!(t.candidates(None), [] as [u32; 0]);
    assert_eq!(steps[1], PlanStep::Hook(5));
}
