//! Local names (`let:`; `docs/src/semantics.md#local-names`): a policy
//! whose conditions use names decides exactly as the same policy with each
//! name's expression written in its place, on random policies and
//! contexts (names used inside macros, names built on names, hook names
//! after policy names), from sources, from an artifact and by the
//! reference evaluator. Plus where findings in a local point, templates
//! that read a local, explain traces that name it, and `--emit`.

use crate::rng::Rng as Gen;
use hookc::compile::{compile, Input};
use hookc::diag::Code;
use serde_json::{json, Value};

/// Boolean expressions over the context (`x`, `s`, `items`), some of them
/// errors on some contexts (a missing or mistyped member), some with
/// macros whose variables (`i`, `j`) are the expression's own.
const BOOLS: &[&str] = &[
    "x > 2",
    "x == 'a'",
    "s.startsWith('a')",
    "has(s)",
    "s.matches('^a.c')",
    "items.exists(i, i > 1)",
    "items.all(i, items.exists(j, j >= i))",
    "size(items) > 1",
    "items[0] == 1",
];

/// List expressions, for names that macros range over.
const LISTS: &[&str] = &[
    "items",
    "items.filter(i, i > 1)",
    "items.map(i, i + 1)",
    "[1, 2]",
];

/// One random policy, written twice: with local names, and with each
/// name's expression written in its place (parenthesized).
fn policies(g: &mut Gen) -> (String, String) {
    // Policy names: p0 (a bool), p1 (a list), p2 (a bool built on p0).
    let p0 = (*g.pick(BOOLS)).to_owned();
    let p1 = (*g.pick(LISTS)).to_owned();
    let p2_with = format!("p0 || {}", *g.pick(BOOLS));
    let p2_inline = p2_with.replace("p0", &format!("({p0})"));
    let mut with = format!("let:\n  p0: \"{p0}\"\n  p1: \"{p1}\"\n  p2: \"{p2_with}\"\nhooks:\n");
    let mut inline = String::from("hooks:\n");
    for h in 0..1 + g.below(5) {
        // A hook name, on the policy's: a bool over p1's items.
        let bound = g.below(3);
        let m0_with = format!("p1.exists(k, k > {bound})");
        let m0_inline = format!("({p1}).exists(k, k > {bound})");
        let (when_with, when_inline) = match g.below(6) {
            0 => ("p0".to_owned(), format!("({p0})")),
            1 => (
                "p2 && m0".to_owned(),
                format!("({p2_inline}) && ({m0_inline})"),
            ),
            // A name inside a macro's body, whose own variables must not
            // meet the body's.
            2 => (
                "items.exists(i, p0 && i > 0)".to_owned(),
                format!("items.exists(i, ({p0}) && i > 0)"),
            ),
            3 => (
                "[1, 2].all(i, items.exists(j, m0 || p2))".to_owned(),
                format!("[1, 2].all(i, items.exists(j, ({m0_inline}) || ({p2_inline})))"),
            ),
            4 => (
                "!p0 || size(p1) > 1".to_owned(),
                format!("!({p0}) || size({p1}) > 1"),
            ),
            _ => (
                "p1.exists(v, v == x)".to_owned(),
                format!("({p1}).exists(v, v == x)"),
            ),
        };
        let uses_m0 = when_with.contains("m0");
        with.push_str(&format!("  - id: h{h}\n    event: e\n"));
        if uses_m0 {
            with.push_str(&format!("    let: {{m0: \"{m0_with}\"}}\n"));
        }
        with.push_str(&format!(
            "    when: \"{when_with}\"\n    action: {{type: abort}}\n"
        ));
        inline.push_str(&format!(
            "  - id: h{h}\n    event: e\n    when: \"{when_inline}\"\n    action: {{type: abort}}\n"
        ));
    }
    (with, inline)
}

/// A random context: members present or not, of the expected kinds or not.
fn context(g: &mut Gen) -> Value {
    let mut ctx = serde_json::Map::new();
    match g.below(4) {
        0 => {}
        1 => {
            ctx.insert("x".into(), json!("a"));
        }
        _ => {
            ctx.insert("x".into(), json!(g.below(5)));
        }
    }
    if g.below(3) > 0 {
        ctx.insert("s".into(), json!(*g.pick(&["abc", "axc", "b", ""])));
    }
    match g.below(4) {
        0 => {}
        1 => {
            ctx.insert("items".into(), json!("not a list"));
        }
        _ => {
            let items: Vec<usize> = (0..g.below(4)).map(|_| g.below(4)).collect();
            ctx.insert("items".into(), json!(items));
        }
    }
    Value::Object(ctx)
}

/// A decision as comparable JSON: the decision, or the error's text.
fn decided(policy: &hookc_runtime::Policy, ctx: &Value) -> Value {
    match policy.evaluate("e", ctx) {
        Ok(d) => d.to_json(),
        Err(e) => json!({"error": e.to_string()}),
    }
}

#[test]
fn a_local_decides_as_its_expression_written_in_its_place() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let (mut compared, mut kept) = (0, 0);
    for case in 0..150 {
        let (with, inline) = policies(&mut g);
        let c = compile(&[Input::new("with.yaml", with.as_str())]);
        assert!(
            !c.diagnostics.has_errors(),
            "case {case}:\n{with}\n{:#?}",
            c.diagnostics
        );
        let checked = c.policy.clone().unwrap();
        let with_policy = c.into_policy().unwrap();
        let loaded = hookc_runtime::Policy::from_artifact(&with_policy.to_artifact()).unwrap();
        kept += usize::from(
            hookc_runtime::artifact::decode(&with_policy.to_artifact())
                .unwrap()
                .uses_locals(),
        );
        let inline_policy = compile(&[Input::new("inline.yaml", inline.as_str())])
            .into_policy()
            .unwrap_or_else(|e| panic!("case {case}:\n{inline}\n{e}"));
        for _ in 0..20 {
            let ctx = context(&mut g);
            let want = decided(&inline_policy, &ctx);
            assert_eq!(
                decided(&with_policy, &ctx),
                want,
                "case {case}:\n{with}\n{inline}\n{ctx}"
            );
            assert_eq!(decided(&loaded, &ctx), want, "case {case}, artifact");
            // The reference evaluator reads the locals' IR itself.
            let first = hookc::testing::reference::first_match(&checked, "e", &ctx);
            let terminal = want.get("terminal").and_then(|t| t.get("hook"));
            if want
                .get("errors")
                .is_some_and(|e| e.as_array().is_some_and(Vec::is_empty))
            {
                assert_eq!(
                    first.map(|h| h.id.as_str()),
                    terminal.and_then(Value::as_str),
                    "case {case}, reference:\n{with}\n{ctx}"
                );
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 3_000);
    // Kept names (`LocalLoad`/`LocalStore`) were among those compared.
    assert!(kept > 30, "{kept} of 150 policies keep a name's value");
}

/// A name used twice, whose expression does work, runs its code once: the
/// kept code executes fewer instructions than the name written in its
/// place, and decides the same, at every use (two in a macro body).
#[test]
fn a_kept_name_is_computed_once_per_code() {
    use hookc_runtime::internals::context::{PathCache, Source};
    use hookc_runtime::internals::vm::{eval_hook, ErrorSite};
    let with = "let:\n  big: \"items.filter(i, i > 1)\"\nhooks:\n- id: h\n  event: e\n  \
                when: \"size(big) > 1 && items.all(i, i in big || i <= 1)\"\n  \
                action: {type: abort}\n";
    let inline = with
        .replace("let:\n  big: \"items.filter(i, i > 1)\"\n", "")
        .replace("big", "items.filter(k, k > 1)");
    let steps = |src: &str, ctx: &Value| {
        let c = compile(&[Input::new("p.yaml", src)]);
        assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
        let bytes = c.into_policy().unwrap().to_artifact();
        let prog = hookc_runtime::artifact::load(&bytes).unwrap();
        let mut cache = PathCache::new(&prog.program().paths, Source::Document(ctx));
        let mut site = ErrorSite::default();
        let v = eval_hook(&prog, 0, &mut cache, Some(&mut site));
        (format!("{v:?}"), site.steps, prog.program().uses_locals())
    };
    let ctx = json!({"items": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]});
    let (kept_value, kept_steps, keeps) = steps(with, &ctx);
    let (inline_value, inline_steps, inline_keeps) = steps(&inline, &ctx);
    assert!(keeps && !inline_keeps);
    assert_eq!(kept_value, inline_value);
    assert_eq!(kept_value, "Bool(true)");
    // The filter runs once (10 elements) instead of 11 times.
    assert!(
        kept_steps * 4 < inline_steps,
        "kept {kept_steps} steps, in place {inline_steps}"
    );
    // An error is not kept: each use meets it (here, a missing `items`).
    let (missing, _, _) = steps(with, &json!({}));
    assert_eq!(missing, steps(&inline, &json!({})).0);
}

/// Explain names a kept name at every use, the later ones read from its
/// slot.
#[test]
fn explain_shows_a_kept_name_at_each_use() {
    let src = "let:\n  pushes: \"shell.commands(tool_input.command)\
               .filter(c, c.argvPrefix(['git', 'push']))\"\nhooks:\n- id: h\n  \
               event: PreToolUse\n  \
               when: \"tool_name == 'Bash' && (size(pushes) > 5 || pushes.exists(p, p.hasFlag('f', 'force')))\"\n  \
               action: {type: deny, reason: r}\nhost: claude-code\n";
    let c = compile(&[Input::new("p.yaml", src)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let policy = c.into_policy().unwrap();
    let bytes = policy.to_artifact();
    assert!(hookc_runtime::artifact::decode(&bytes)
        .unwrap()
        .uses_locals());
    let ctx = pre_tool_use("git push -f origin main");
    let trace = policy
        .query("PreToolUse", hookc_runtime::Context::Value(&ctx))
        .explain()
        .unwrap()
        .to_text();
    assert!(trace.contains("`size(pushes) > 5` -> false"), "{trace}");
    assert!(
        trace.contains("`pushes.exists(p, p.hasFlag('f', 'force'))` -> true"),
        "{trace}"
    );
}

const GUARD: &str = r#"
host: claude-code
let:
  bash: "tool_name == 'Bash'"
  commands: "shell.commands(tool_input.command)"
hooks:
  - id: no_force_push
    event: PreToolUse
    let:
      pushes: "commands.filter(c, c.argvPrefix(['git', 'push']))"
    when: "bash && pushes.exists(p, p.hasFlag('f', 'force'))"
    action: {type: deny, reason: "no force push (${pushes.size()} push)"}
"#;

/// [`GUARD`] in directive XML, as `docs/src/policies/xml.md` shows `<let>`.
const XML_GUARD: &str = r#"<directive name="guard">
  <hooks host="claude-code">
    <let name="bash">tool_name == 'Bash'</let>
    <let name="commands">shell.commands(tool_input.command)</let>
    <hook id="no_force_push" event="PreToolUse">
      <let name="pushes">commands.filter(c, c.argvPrefix(['git', 'push']))</let>
      <when>bash and pushes.exists(p, p.hasFlag('f', 'force'))</when>
      <deny reason="no force push (${pushes.size()} push)"/>
    </hook>
  </hooks>
</directive>
"#;

#[test]
fn xml_lets_decide_as_yaml_lets() {
    let yaml = compile(&[Input::new("guard.yaml", GUARD)])
        .into_policy()
        .unwrap();
    let xml = compile(&[Input::new("guard.xml", XML_GUARD)])
        .into_policy()
        .unwrap_or_else(|e| panic!("{e}"));
    for command in [
        "git push -f",
        "git push origin main",
        "ls; git push --force x",
        "echo",
    ] {
        let ctx = pre_tool_use(command);
        let (a, b) = (
            yaml.evaluate("PreToolUse", &ctx).unwrap(),
            xml.evaluate("PreToolUse", &ctx).unwrap(),
        );
        assert_eq!(
            a.terminal.as_ref().map(|m| (&m.hook, &m.action["reason"])),
            b.terminal.as_ref().map(|m| (&m.hook, &m.action["reason"])),
            "{command}"
        );
    }
    let denied = xml
        .evaluate("PreToolUse", &pre_tool_use("git push -f"))
        .unwrap();
    assert_eq!(
        denied.terminal.unwrap().action["reason"],
        json!("no force push (1 push)")
    );
}

#[test]
fn a_bad_xml_let_is_reported_where_it_is_written() {
    let codes = |body: &str| -> Vec<(Code, String)> {
        let src = format!("<directive><hooks>{body}<hook event=\"e\" when=\"true\"><abort/></hook></hooks></directive>");
        compile(&[Input::new("p.xml", src)])
            .diagnostics
            .iter()
            .map(|d| (d.code, d.message.clone()))
            .collect()
    };
    assert!(codes(r#"<let>x == 1</let>"#)
        .iter()
        .any(|(c, m)| *c == Code::MissingKey && m.contains("no `name`")));
    assert!(codes(r#"<let name="a-b">x == 1</let>"#)
        .iter()
        .any(|(c, m)| *c == Code::WrongShape && m.contains("`a-b` is not a name")));
    assert!(codes(r#"<let name="a"> </let>"#)
        .iter()
        .any(|(c, m)| *c == Code::WrongShape && m.contains("`<let>` is empty")));
    assert!(codes(r#"<let name="a" value="1">x</let>"#)
        .iter()
        .any(|(c, _)| *c == Code::UnknownKey));
    // An unused name is W0022, as in YAML.
    assert!(codes(r#"<let name="a">1 == 1</let>"#)
        .iter()
        .any(|(c, _)| *c == Code::UnusedLocal));
}

fn pre_tool_use(command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp",
           "tool_name": "Bash", "tool_input": {"command": command}})
}

#[test]
fn templates_read_locals_and_explain_names_them() {
    let policy = compile(&[Input::new("guard.yaml", GUARD)])
        .into_policy()
        .unwrap();
    let ctx = pre_tool_use("git push --force origin main");
    let d = policy.evaluate("PreToolUse", &ctx).unwrap();
    let terminal = d.terminal.unwrap();
    assert_eq!(terminal.action["reason"], "no force push (1 push)");
    let trace = policy
        .query("PreToolUse", hookc_runtime::Context::Value(&ctx))
        .explain()
        .unwrap()
        .to_text();
    assert!(trace.contains("`bash` -> true"), "{trace}");
    assert!(
        trace.contains("`pushes.exists(p, p.hasFlag('f', 'force'))` -> true"),
        "{trace}"
    );
    // A push without force: no decision.
    let quiet = policy
        .evaluate("PreToolUse", &pre_tool_use("git push origin main"))
        .unwrap();
    assert!(quiet.terminal.is_none());
}

#[test]
fn the_emitted_policy_writes_each_local_in_its_place() {
    let c = compile(&[Input::new("guard.yaml", GUARD)]);
    let emitted = hookc::normalize::normalized(c.policy.as_ref().unwrap());
    let when = emitted["hooks"][0]["when"].as_str().unwrap();
    assert_eq!(
        when,
        "tool_name == 'Bash' && shell.commands(tool_input.command)\
         .filter(c, c.argvPrefix(['git', 'push'])).exists(p, p.hasFlag('f', 'force'))"
    );
    let again = compile(&[Input::new("again.json", emitted.to_string())])
        .into_policy()
        .unwrap();
    let ctx = pre_tool_use("cd x && git push -f");
    let original = c.into_policy().unwrap();
    assert_eq!(decided_at(&again, &ctx), decided_at(&original, &ctx));
}

fn decided_at(policy: &hookc_runtime::Policy, ctx: &Value) -> Option<String> {
    let d = policy.evaluate("PreToolUse", ctx).unwrap();
    d.terminal.map(|m| m.hook.to_owned())
}

#[test]
fn a_finding_in_a_local_points_into_it_and_names_its_node() {
    // `s.size() + 'x'` is a type error; the hook is on an event whose
    // context has `tool_input`, and the local is the policy's.
    let text = "host: claude-code\nlet:\n  n: \"tool_input.command.size() + 'x'\"\nhooks:\n\
                - id: a\n  event: PreToolUse\n  when: \"n > 1\"\n  action: {type: deny}\n";
    let c = compile(&[Input::new("p.yaml", text)]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::TypeMismatch);
    assert_eq!(errors[0].node_path.as_deref(), Some("let.n"));
    let at = c.sources.location(errors[0].span.unwrap());
    assert!(at.starts_with("p.yaml:3:"), "{at}");
}

#[test]
fn a_name_declared_later_is_not_in_scope() {
    // `m` reads `later`, declared after it: a context member, outside the
    // closed schema of a declared event.
    let text = "events:\n  e: {context: {type: object, additionalProperties: false, \
                properties: {x: {type: integer}}}}\nhooks:\n- id: a\n  event: e\n  \
                let: {m: \"later > 1\", later: \"x\"}\n  when: \"m\"\n  action: {type: abort}\n";
    let c = compile(&[Input::new("p.yaml", text)]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::UnknownPath);
    assert_eq!(errors[0].node_path.as_deref(), Some("hooks[0].let.m"));
}
