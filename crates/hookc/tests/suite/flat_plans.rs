//! `Policy::flat_plan`: an event's hooks as flat conjunctions of context
//! leaves, which the Node package decides in JavaScript (its
//! `flat.test.js` compares that with the addon on random policies). Here:
//! what has a plan and what has none, and that a plan's leaves are the
//! condition's.

use hookc::compile::{compile, Input};
use hookc_runtime::{FlatLeaf, Policy};

fn policy(text: &str) -> Policy {
    let c = compile(&[Input::new("p.yaml", text)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    c.into_policy().unwrap()
}

#[test]
fn flat_hooks_have_a_plan_in_evaluation_order() {
    let p = policy(
        "action_types:\n  observe: {effect: collected, parameters: {}}\nhooks:\n\
         - id: a\n  event: e\n  priority: 5\n  when: \"x == 'p' && n > 2 && has(a.b)\"\n  action: {type: abort}\n\
         - id: seen\n  event: e\n  priority: 9\n  when: \"x in ['a','b','c','d','e','f','g','h']\"\n  action: {type: observe}\n\
         - id: always\n  event: e\n  action: {type: abort}\n",
    );
    let plan = p.flat_plan("e").unwrap();
    let ids: Vec<(&str, bool, usize)> = plan
        .iter()
        .map(|h| (h.id, h.decides, h.leaves.len()))
        .collect();
    assert_eq!(
        ids,
        [("seen", false, 1), ("a", true, 3), ("always", true, 0)]
    );
    assert!(matches!(plan[0].leaves[0], FlatLeaf::In { values, .. } if values.len() == 8));
    assert!(matches!(
        plan[1].leaves[2],
        FlatLeaf::Has { path } if path.to_string() == "a.b"
    ));
    // An event no hook hears: an empty plan.
    assert_eq!(p.flat_plan("other").unwrap(), []);
}

#[test]
fn anything_but_flat_hooks_has_no_plan() {
    let none = |text: &str| assert!(policy(text).flat_plan("e").is_none(), "{text}");
    // A regex leaf, an `||`, a short list (no leaf), a macro.
    for when in [
        "x.matches('^p')",
        "x == 'p' || n > 1",
        "x in ['p', 'q']",
        "items.exists(i, i > 1)",
    ] {
        none(&format!(
            "hooks:\n- id: a\n  event: e\n  when: \"{when}\"\n  action: {{type: abort}}\n"
        ));
    }
    // The decision model beyond first match.
    none("combine: strictest\nhooks:\n- id: a\n  event: e\n  when: \"x == 'p'\"\n  action: {type: abort}\n");
    // A transform.
    none(
        "action_types:\n  t: {effect: transform, parameters: {patch: {type: object}}}\nhooks:\n\
          - id: a\n  event: e\n  when: \"x == 'p'\"\n  action: {type: t, patch: {y: 1}}\n",
    );
}
