//! Glob matching end to end: `x.glob('...')` in `when` (YAML and XML) and
//! `{op: glob}` condition leaves, compiled through the real pipeline and
//! evaluated by the runtime library (from a `serde_json::Value`, from JSON
//! text, and reloaded from its artifact) and by the reference evaluator;
//! tool-name matchers as shell hook systems write them (`Bash`, `Bash(git:*)`, `*`); the
//! normalized output, which keeps the glob; and the diagnostics of bad globs,
//! with their exact positions.

use hookc::compile::{compile, Compilation, Input};
use hookc::diag::Code;
use hookc_runtime::Policy;
use serde_json::{json, Value};

/// A schema with `tool.name` a string, so the checker has a type to check.
const SCHEMA: &str = r#"
event_context_schema:
  type: object
  properties:
    tool:
      type: object
      properties:
        name: {type: string}
        input: {type: string}
"#;

/// Shell-hook tool matchers as hooks on `before_step`, most specific first. The
/// `Bash` hook is a tree leaf, the others `when` expressions.
fn seed_003_yaml() -> String {
    format!(
        r#"{SCHEMA}
hooks:
  - id: git
    event: before_step
    priority: 30
    when: "tool.name.glob('Bash(git:*)')"
    action: {{type: continue}}
  - id: bash
    event: before_step
    priority: 20
    condition: {{path: tool.name, op: glob, value: Bash}}
    action: {{type: continue}}
  - id: read
    event: before_step
    priority: 10
    condition: {{path: tool.name, op: glob, value: 'Rea?'}}
    action: {{type: continue}}
  - id: all_tools
    event: before_step
    when: "tool.name.glob('*')"
    action: {{type: continue}}
"#
    )
}

fn compiled(inputs: &[Input]) -> Compilation {
    let c = compile(inputs);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    c
}

fn policy_of(yaml: &str) -> (hookc::check::policy::CheckedPolicy, Policy) {
    let c = compiled(&[Input::new("glob.yaml", yaml)]);
    let ir = c.policy.clone().unwrap();
    (ir, hookc::compile::Compilation::into_policy(c).unwrap())
}

/// The first match's hook id by every evaluator, which must agree.
fn first(
    ir: &hookc::check::policy::CheckedPolicy,
    policy: &Policy,
    event: &str,
    ctx: &Value,
) -> Option<String> {
    let by_value = policy
        .evaluate(event, ctx)
        .unwrap()
        .terminal
        .map(|m| m.hook.to_owned());
    let text = serde_json::to_vec(ctx).unwrap();
    let by_text = policy
        .query(event, hookc_runtime::Context::json(&text))
        .first()
        .unwrap()
        .map(|m| m.hook.to_owned());
    let reloaded = Policy::from_artifact(&policy.to_artifact()).unwrap();
    let by_artifact = reloaded
        .evaluate(event, ctx)
        .unwrap()
        .terminal
        .map(|m| m.hook.to_owned());
    let by_reference = hookc::testing::reference::first_match(ir, event, ctx).map(|h| h.id.clone());
    assert_eq!(by_value, by_text, "Value vs JSON text on {ctx}");
    assert_eq!(by_value, by_artifact, "compiled vs reloaded on {ctx}");
    assert_eq!(by_value, by_reference, "VM vs reference on {ctx}");
    by_value
}

fn tool(name: Value) -> Value {
    json!({"tool": {"name": name}})
}

#[test]
fn seed_003_tool_matchers() {
    let (ir, policy) = policy_of(&seed_003_yaml());
    let cases: &[(Value, Option<&str>)] = &[
        (json!("Bash(git:status)"), Some("git")),
        (json!("Bash(git:)"), Some("git")),
        // `Bash` is the exact tool name: not a prefix.
        (json!("Bash"), Some("bash")),
        (json!("Bash(npm:install)"), Some("all_tools")),
        (json!("bash"), Some("all_tools")),
        (json!("Read"), Some("read")),
        (json!("Reads"), Some("all_tools")),
        (json!("Write"), Some("all_tools")),
        // `*` matches the empty string too.
        (json!(""), Some("all_tools")),
        (json!("Bash(git:status"), Some("all_tools")),
        (json!("Réad"), Some("all_tools")),
        // Not a string: every glob is an error, so nothing matches.
        (json!(5), None),
        (json!(null), None),
        (json!(["Bash"]), None),
    ];
    for (name, expected) in cases {
        assert_eq!(
            first(&ir, &policy, "before_step", &tool(name.clone())).as_deref(),
            *expected,
            "tool.name = {name}"
        );
    }
    // A missing path is an error too.
    assert_eq!(first(&ir, &policy, "before_step", &json!({})), None);
    assert_eq!(
        first(&ir, &policy, "before_step", &json!({"tool": {}})),
        None
    );
    // Compiled as regexes, in the artifact's regex table, run by the fused
    // path-and-regex instruction: no instruction of their own.
    let prog = policy.program();
    let mut regexes = prog.regexes.clone();
    regexes.sort();
    assert_eq!(
        regexes,
        ["", r"(?s)\ABash\(git:.*\)\z", r"(?s)\ARea.\z", r"\ABash\z"]
    );
    let fused = prog
        .code
        .iter()
        .filter(|op| matches!(op, hookc_runtime::bytecode::Op::PathMatches { .. }))
        .count();
    assert_eq!(fused, 4);
}

#[test]
fn glob_semantics_through_the_runtime() {
    // Each glob against strings it must and must not match (whole string,
    // case-sensitive, scalars, literal regex metacharacters, classes).
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("*", &["", "x", "a/b/c", "line\nbreak"], &[]),
        ("?", &["é", "🎉", "\n", "x"], &["", "ab"]),
        ("a.b", &["a.b"], &["axb", "a.bc"]),
        ("a+|b", &["a+|b"], &["a", "aa|b", "b"]),
        (
            "src/*.rs",
            &["src/main.rs", "src/a/b.rs"],
            &["src/main.rsx", "lib/x.rs"],
        ),
        ("[a-c]x", &["ax", "cx"], &["dx", "Ax", "x"]),
        ("[!a-c]x", &["dx", "Ax", "\nx"], &["ax", "x"]),
        ("[^0-9]*", &["a1", "é"], &["1a", ""]),
        (r"\*\?\[\\", &[r"*?[\"], &["x?[\\", r"*?[\\"]),
        ("日本?", &["日本語"], &["日本", "日本語s"]),
        (
            "Bash(git:*)",
            &["Bash(git:push)"],
            &["bash(git:push)", "Bash(git:push"],
        ),
    ];
    for (glob, yes, no) in cases {
        let when = format!("tool.name.glob({})", quoted(glob));
        let yaml = format!(
            "{SCHEMA}\nhooks:\n  - id: w\n    event: e\n    when: {}\n    action: {{type: abort}}\n  - id: t\n    event: f\n    condition: {}\n    action: {{type: abort}}\n",
            json!(when),
            json!({"path": "tool.name", "op": "glob", "value": glob})
        );
        let (ir, policy) = policy_of(&yaml);
        for (s, expected) in yes
            .iter()
            .map(|s| (s, true))
            .chain(no.iter().map(|s| (s, false)))
        {
            for (event, id) in [("e", "w"), ("f", "t")] {
                let got = first(&ir, &policy, event, &tool(json!(s)));
                assert_eq!(
                    got.as_deref() == Some(id),
                    expected,
                    "{glob:?} on {s:?} ({id})"
                );
            }
        }
    }
}

/// A glob as a single-quoted expression literal.
fn quoted(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[test]
fn a_tree_leaf_and_its_when_give_the_same_ir() {
    let yaml = "hooks:\n  - id: tree\n    event: e\n    condition: {path: tool.name, op: glob, value: 'Bash(git:*)'}\n    action: {type: abort}\n  - id: when\n    event: f\n    when: \"tool.name.glob('Bash(git:*)')\"\n    action: {type: abort}\n";
    let c = compiled(&[Input::new("eq.yaml", yaml)]);
    let p = c.policy.unwrap();
    let cond = |id: &str| {
        p.hooks()
            .iter()
            .find(|h| h.id == id)
            .unwrap()
            .condition
            .clone()
            .unwrap()
    };
    // The tree's leaf is the `when`'s glob, false on a non-string
    // (`docs/src/semantics.md#condition-trees`): `glob && is string`.
    let (tree, b) = (cond("tree"), cond("when"));
    let hookc::ir::IrExprKind::And(a, guard) = &tree.kind else {
        panic!("{tree:#?}")
    };
    assert!(matches!(guard.kind, hookc::ir::IrExprKind::TypeIs(..)));
    assert!(a.same_as(&b), "{a:#?}\n{b:#?}");
    assert_eq!(
        a.to_source(p.paths()).as_deref(),
        Some("tool.name.glob('Bash(git:*)')")
    );
    // The glob is not a regex of the same text.
    let regex = "hooks:\n  - event: e\n    when: \"tool.name.matches('Bash(git:*)')\"\n    action: {type: abort}\n";
    let r = compiled(&[Input::new("r.yaml", regex)]).policy.unwrap();
    let rc = r.hooks()[0].condition.clone().unwrap();
    assert!(!a.same_as(&rc));
}

#[test]
fn xml_when_attributes_take_globs() {
    let xml = r#"<directive name="d"><hooks>
      <hook id="git" event="before_step" priority="5" when="tool.name.glob('Bash(git:*)') and tool.input.glob('*--force*')"><abort/></hook>
      <hook id="other" event="before_step" when="tool.name.glob('[A-Z]*')"><continue/></hook>
    </hooks></directive>"#;
    let c = compiled(&[Input::new("schema.yaml", SCHEMA), Input::new("d.xml", xml)]);
    let ir = c.policy.clone().unwrap();
    let policy = hookc::compile::Compilation::into_policy(c).unwrap();
    let ctx = |name: &str, input: &str| json!({"tool": {"name": name, "input": input}});
    let at = |name, input| first(&ir, &policy, "before_step", &ctx(name, input));
    assert_eq!(
        at("Bash(git:push)", "git push --force").as_deref(),
        Some("git")
    );
    assert_eq!(at("Bash(git:push)", "git push").as_deref(), Some("other"));
    assert_eq!(at("read", "x").as_deref(), None);
}

#[test]
fn normalized_output_keeps_the_glob() {
    let (ir, _) = policy_of(&seed_003_yaml());
    let doc = hookc::normalize::normalized(&ir);
    // Trees stay trees and `when`s stay `when`s: the two read an absent
    // path differently (`docs/src/semantics.md#condition-trees`).
    let conds: Vec<&Value> = doc["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.get("condition").unwrap_or(&h["when"]))
        .collect();
    assert_eq!(
        conds,
        [
            &json!("tool.name.glob('Bash(git:*)')"),
            &json!({"path": "tool.name", "op": "glob", "value": "Bash"}),
            &json!({"path": "tool.name", "op": "glob", "value": "Rea?"}),
            &json!("tool.name.glob('*')"),
        ]
    );
    // Any `when` with `.glob(...)`.
    let (ir2, _) = policy_of(&format!(
        "{SCHEMA}\nhooks:\n  - event: e\n    when: \"(tool.name + '!').glob('*[!a]!')\"\n    action: {{type: abort}}\n"
    ));
    let doc2 = hookc::normalize::normalized(&ir2);
    assert_eq!(
        doc2["hooks"][0]["when"],
        json!("(tool.name + '!').glob('*[!a]!')")
    );
    // The output compiles to the same output again.
    for ir in [ir, ir2] {
        let yaml = hookc::normalize::to_yaml(&ir).unwrap();
        let again = compiled(&[Input::new("n.yaml", yaml.clone())])
            .policy
            .unwrap();
        assert_eq!(hookc::normalize::to_yaml(&again).unwrap(), yaml);
    }
}

/// The diagnostics of compiling `text` (YAML): (code, line:column of the
/// start, width in characters, message).
fn diags(text: &str) -> Vec<(Code, String, usize, String)> {
    let c = compile(&[Input::new("bad.yaml", text)]);
    c.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let span = d.span.unwrap();
            let at = c.sources.line_col(span.file, span.start).unwrap();
            let src = c.sources.get(span.file).unwrap().text();
            let width = src[span.range()].chars().count();
            (d.code, at.to_string(), width, d.message.clone())
        })
        .collect()
}

#[test]
fn invalid_globs_point_at_the_fault() {
    // In a `when`: the exact characters inside the literal.
    let d = diags("hooks:\n  - event: e\n    when: \"tool.name.glob('Bash(git:[a-z')\"\n    action: {type: abort}\n");
    assert_eq!(
        d,
        [(
            Code::BadGlob,
            "3:37".to_owned(),
            4,
            "invalid glob `Bash(git:[a-z`: unclosed `[`".to_owned()
        )]
    );
    // A literal with escapes: the whole literal.
    let d = diags("hooks:\n  - event: e\n    when: 'tool.name.glob(\"\\x41[]\")'\n    action: {type: abort}\n");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        (d[0].0, d[0].1.as_str(), d[0].2),
        (Code::BadGlob, "3:27", 8)
    );
    assert!(d[0].3.ends_with("empty character class"), "{d:?}");
    // In a tree leaf, plain and quoted.
    let d = diags("hooks:\n  - event: e\n    condition: {path: tool.name, op: glob, value: 'a[z-a]'}\n    action: {type: abort}\n");
    assert_eq!(
        (d[0].0, d[0].1.as_str(), d[0].2),
        (Code::BadGlob, "3:54", 3)
    );
    assert!(d[0].3.contains("range `z-a` is out of order"), "{d:?}");
    let d = diags("hooks:\n  - event: e\n    condition: {path: tool.name, op: glob, value: 'ab\\'}\n    action: {type: abort}\n");
    assert_eq!(
        (d[0].0, d[0].1.as_str(), d[0].2),
        (Code::BadGlob, "3:54", 1)
    );
    // Not a literal, not a string.
    let d = diags("hooks:\n  - event: e\n    when: \"tool.name.glob(tool.input)\"\n    action: {type: abort}\n");
    assert_eq!(d[0].0, Code::NonLiteralPattern);
    assert_eq!(d[0].3, "the pattern of `glob` must be a string literal");
    let d = diags("hooks:\n  - event: e\n    condition: {path: tool.name, op: glob, value: [a]}\n    action: {type: abort}\n");
    assert_eq!(d[0].0, Code::NonLiteralPattern);
    // Types: the receiver must be a string, one argument.
    let d = diags(&format!("{SCHEMA}\nhooks:\n  - event: e\n    when: \"size(tool.name).glob('1*')\"\n    action: {{type: abort}}\n"));
    assert_eq!(d[0].0, Code::TypeMismatch, "{d:?}");
    assert!(d[0].3.contains("`glob`"), "{d:?}");
    let d = diags(
        "hooks:\n  - event: e\n    when: \"tool.name.glob('a', 'b')\"\n    action: {type: abort}\n",
    );
    assert_eq!(d[0].0, Code::WrongArity);
}

#[test]
fn the_global_form_and_expressions() {
    // `glob(s, p)`, like `matches(s, p)`, and a glob on a computed string.
    let ctx = json!({"tool": {"name": "Bash(git:status)"}});
    let ok = |e: &str| hookc::expr_program::eval_expr(e, &ctx).unwrap().unwrap();
    assert_eq!(ok("glob(tool.name, 'Bash(*)')"), json!(true));
    assert_eq!(ok("(tool.name + 'x').glob('*)x')"), json!(true));
    assert_eq!(ok("['a', 'b'].all(v, v.glob('?'))"), json!(true));
    assert_eq!(ok("'ab'.glob('a')"), json!(false));
    assert!(
        hookc::expr_program::eval_expr("tool.missing.glob('*')", &ctx)
            .unwrap()
            .is_err()
    );
}

#[test]
fn lints_read_literal_and_prefix_globs() {
    // `Bash(git:*` (a prefix) after `startsWith('Bash(')`: shadowed; a
    // catch-all `*` leaf before everything shadows later string tests.
    let yaml = format!(
        "{SCHEMA}\nhooks:\n  - id: any_bash\n    event: before_step\n    priority: 2\n    when: \"tool.name.startsWith('Bash(')\"\n    action: {{type: continue}}\n  - id: git\n    event: before_step\n    priority: 1\n    when: \"tool.name.glob('Bash(git:*')\"\n    action: {{type: continue}}\n  - id: exact\n    event: before_step\n    when: \"tool.name.glob('Bash(npm:install)')\"\n    action: {{type: continue}}\n  - id: other\n    event: before_step\n    when: \"tool.name.glob('Bash(?*)')\"\n    action: {{type: continue}}\n"
    );
    let c = compiled(&[Input::new("l.yaml", yaml)]);
    let shadowed: Vec<_> = c
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::ShadowedHook)
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(shadowed.len(), 2, "{shadowed:#?}");
    assert!(shadowed[0].contains("`git`"), "{shadowed:#?}");
    assert!(shadowed[1].contains("`exact`"), "{shadowed:#?}");
}

#[test]
fn the_regex_translation_agrees_with_the_direct_matcher() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    // Small alphabets, so that random globs are often valid and random
    // strings often match them.
    let strategy = (
        r"[ab*?\[\]!^\-\\é.]{0,8}",
        prop::collection::vec(r"[ab\-\\\]*.é\n]{0,8}", 8),
    );
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 4000,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[3; 32]),
    );
    let (valid, matched) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner
        .run(&strategy, |(glob, strings)| {
            let Ok(g) = hookc::check::glob::parse(&glob) else {
                return Ok(());
            };
            valid.set(valid.get() + 1);
            let pattern = g.to_regex();
            let re = hookc_runtime::verify::compile_regex(&pattern)
                .map_err(|e| TestCaseError::fail(format!("{glob:?} → {pattern:?}: {e}")))?;
            // Printing and reading back gives the same glob.
            prop_assert_eq!(
                hookc::check::glob::parse(&g.to_string()).ok(),
                Some(g.clone())
            );
            for s in &strings {
                let direct = g.is_match(s);
                matched.set(matched.get() + usize::from(direct));
                prop_assert_eq!(
                    re.is_match(s),
                    Ok(direct),
                    "glob {:?}, regex {:?}, string {:?}",
                    glob,
                    pattern,
                    s
                );
            }
            Ok(())
        })
        .unwrap();
    assert!(valid.get() > 1000, "{} valid globs", valid.get());
    assert!(matched.get() > 1000, "{} matches", matched.get());
}
