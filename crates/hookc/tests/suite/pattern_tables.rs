//! Pattern tables (`docs/src/semantics.md#pattern-tables`): a hook tests a
//! table of rows against one string, by one multi-pattern matcher; the
//! first matching row is `row` in its action's templates. YAML and XML,
//! through the artifact, against the reference evaluator (each row's regex
//! tried in turn), explain, and the errors.

use crate::rng::Rng;
use hookc::compile::{compile, Compilation, Input};
use hookc::diag::render;
use hookc::testing::reference;
use hookc_runtime::Policy;
use serde_json::{json, Value};

fn rendered(c: &Compilation) -> String {
    let diags: Vec<_> = c.diagnostics.iter().collect();
    render::human(&diags, &c.sources)
}

/// The 60 rows of the guard: a dangerous command and why, one per row.
fn dangerous() -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = [
        (r"\brm\s+-rf\s+/(\s|$)", "deletes the root"),
        (r"\bmkfs(\.\w+)?\b", "formats a disk"),
        (r"\bdd\s+if=", "writes raw blocks"),
        (r":\(\)\s*\{\s*:\|:&\s*\};:", "fork bomb"),
        (r"\bchmod\s+-R\s+777\b", "opens every permission"),
        (r"\bgit\s+push\s+.*--force\b", "rewrites shared history"),
        (r"\bcurl\b.*\|\s*(ba)?sh\b", "runs a downloaded script"),
        (r"\bshutdown\b", "shuts the machine down"),
    ]
    .iter()
    .map(|(p, m)| ((*p).to_owned(), (*m).to_owned()))
    .collect();
    for i in rows.len()..60 {
        rows.push((format!(r"\bdanger{i}\b"), format!("dangerous tool {i}")));
    }
    rows
}

fn guard_yaml(rows: &[(String, String)]) -> String {
    let mut text = String::from(
        "event_context_schema:
  type: object
  properties:
    tool_input: {type: object, properties: {command: {type: string}}}
action_types:
  deny:
    parameters:
      reason: {type: string, required: true}
      row: {}
hooks:
  - id: guard
    event: PreToolUse
    when: \"has(tool_input.command)\"
    table:
      on: tool_input.command
      rows:
",
    );
    for (i, (pattern, message)) in rows.iter().enumerate() {
        text.push_str(&format!(
            "        - {{pattern: {}, message: {}, n: {i}}}\n",
            serde_json::to_string(pattern).unwrap(),
            serde_json::to_string(message).unwrap()
        ));
    }
    text.push_str(
        "    action:
      type: deny
      reason: \"${row.message} (rule ${row.n}): ${tool_input.command.truncate(20)}\"
      row: \"${row}\"
",
    );
    text
}

fn guard_xml(rows: &[(String, String)]) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('"', "&quot;")
    };
    let mut text = String::from(
        "<directive name=\"d\"><hooks>
  <action_type name=\"deny\"><parameter name=\"reason\" type=\"string\" required=\"true\"/><parameter name=\"row\"/></action_type>
  <hook id=\"guard\" event=\"PreToolUse\" when=\"has(tool_input.command)\">
    <table on=\"tool_input.command\">
",
    );
    for (i, (pattern, message)) in rows.iter().enumerate() {
        text.push_str(&format!(
            "      <row pattern=\"{}\" message=\"{}\" n=\"{i}\"/>\n",
            escape(pattern),
            escape(message)
        ));
    }
    text.push_str(
        "    </table>
    <deny reason=\"${row.message} (rule ${row.n}): ${tool_input.command.truncate(20)}\" row=\"${row}\"/>
  </hook>
</hooks></directive>
",
    );
    text
}

fn compiled(name: &str, text: &str) -> Compilation {
    let c = compile(&[Input::new(name, text)]);
    assert!(!c.diagnostics.has_errors(), "{}", rendered(&c));
    c
}

/// The decision's action, through the artifact, checked against the
/// reference evaluator.
fn decide(c: &Compilation, ctx: &Value) -> Option<serde_json::Map<String, Value>> {
    let checked = c.policy.as_ref().unwrap();
    let program = hookc::lower::lower(checked);
    assert_eq!(program.tables.len(), 1);
    let bytes = hookc_runtime::artifact::encode(&program);
    let policy = Policy::from_artifact(&bytes).unwrap();
    let got = policy
        .evaluate("PreToolUse", ctx)
        .unwrap()
        .terminal
        .map(|m| m.action);
    let hook = reference::first_match(checked, "PreToolUse", ctx);
    let want = hook.map(|h| reference::fill_hook_action(checked, h, ctx).unwrap());
    assert_eq!(got, want, "{ctx}");
    got
}

#[test]
fn a_sixty_row_guard_in_yaml_and_xml() {
    let rows = dangerous();
    for (name, text) in [
        ("guard.yaml", guard_yaml(&rows)),
        ("guard.xml", guard_xml(&rows)),
    ] {
        let c = compiled(name, &text);
        let cmd = |c: &str| json!({"tool_input": {"command": c}});
        let action = decide(&c, &cmd("sudo rm -rf / now")).unwrap();
        assert_eq!(
            action["reason"],
            json!("deletes the root (rule 0): sudo rm -rf / now"),
            "{name}"
        );
        // XML attributes are text: `n` is a string there.
        let n = if name.ends_with(".xml") {
            json!("59")
        } else {
            json!(59)
        };
        let action = decide(&c, &cmd("run danger59 && shutdown")).unwrap();
        // The first row in order wins, not the first match in the string.
        assert_eq!(
            action["reason"],
            json!("shuts the machine down (rule 7): run danger59 && shut")
        );
        let action = decide(&c, &cmd("danger59")).unwrap();
        assert_eq!(action["row"]["n"], n, "{name}");
        assert!(decide(&c, &cmd("ls -la")).is_none());
        assert!(decide(&c, &json!({"tool_input": {}})).is_none());
        assert!(decide(&c, &json!({"tool_input": {"command": 5}})).is_none());
    }
}

/// `n` rows, each pattern two of `atoms`, each message its row number.
fn random_rows(rng: &mut Rng, atoms: &[&str], n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let a = *rng.pick(atoms);
            let b = *rng.pick(atoms);
            (format!("{a}{b}"), format!("row {i}"))
        })
        .collect()
}

#[test]
fn one_matcher_agrees_with_each_row_in_turn() {
    let mut rng = Rng(22);
    let atoms = [
        "a", "b", "ab", "^a", "b$", "a+b", "[ab]c", "(?i)AB", r"\d", "c|d", "x",
    ];
    let alphabet = ['a', 'b', 'c', 'd', 'A', 'B', '1', 'x', ' '];
    for round in 0..40 {
        let n = 1 + rng.below(12);
        let rows = random_rows(&mut rng, &atoms, n);
        let c = compiled("t.yaml", &guard_yaml(&rows));
        let table = c.policy.as_ref().unwrap().hooks()[0].table.clone().unwrap();
        for _ in 0..25 {
            let len = rng.below(6);
            let s: String = (0..len).map(|_| *rng.pick(&alphabet)).collect();
            let by_rows = rows
                .iter()
                .position(|(p, _)| regex::Regex::new(p).unwrap().is_match(&s));
            assert_eq!(
                table.first_row(&s),
                by_rows,
                "round {round}: {s:?} {rows:?}"
            );
            let action = decide(&c, &json!({"tool_input": {"command": s}}));
            let got = action.map(|a| a["row"]["message"].clone());
            assert_eq!(
                got,
                by_rows.map(|i| json!(format!("row {i}"))),
                "{s:?} {rows:?}"
            );
        }
    }
}

/// Rows that need backtracking (look-around, backreferences) among linear
/// ones: each is searched on its own before the rows matched together, and
/// the first matching row is the same as searching each row in turn, on
/// either engine.
#[test]
fn backtracking_rows_agree_with_each_row_in_turn() {
    let mut rng = Rng(35);
    let atoms = [
        "a",
        "b",
        "ab",
        "^a",
        "b$",
        "[ab]c",
        r"\d",
        "c|d",
        "a(?=b)",
        "(?<!x)b",
        "(?!a)c",
        r"(a)\1",
        "(?<=1)x",
        r"(?-u:\b)a",
    ];
    let alphabet = ['a', 'b', 'c', 'd', '1', 'x', ' ', 'é'];
    let mut backtracking_rows = 0;
    for round in 0..60 {
        let n = 1 + rng.below(8);
        let rows = random_rows(&mut rng, &atoms, n);
        let c = compiled("t.yaml", &guard_yaml(&rows));
        let table = c.policy.as_ref().unwrap().hooks()[0].table.clone().unwrap();
        let each: Vec<hookc_runtime::verify::CompiledRegex> = rows
            .iter()
            .map(|(p, _)| hookc_runtime::verify::compile_regex(p).unwrap())
            .collect();
        backtracking_rows += rows
            .iter()
            .filter(|(p, _)| regex::Regex::new(p).is_err())
            .count();
        for _ in 0..25 {
            let len = rng.below(6);
            let s: String = (0..len).map(|_| *rng.pick(&alphabet)).collect();
            let by_rows = each.iter().position(|re| re.is_match(&s).unwrap());
            assert_eq!(
                table.first_row(&s),
                by_rows,
                "round {round}: {s:?} {rows:?}"
            );
            // Through the artifact, and the reference evaluator.
            let ctx = json!({"tool_input": {"command": s}});
            let want = by_rows.map(|i| json!(format!("row {i}")));
            let got = decide(&c, &ctx).map(|a| a["row"]["message"].clone());
            assert_eq!(got, want, "{s:?} {rows:?}");
        }
    }
    assert!(
        backtracking_rows > 30,
        "only {backtracking_rows} backtracking rows"
    );
}

#[test]
fn explain_says_which_row_matched() {
    let c = compiled("guard.yaml", &guard_yaml(&dangerous()));
    let program = hookc::lower::lower_with_debug(c.policy.as_ref().unwrap(), &c.sources);
    let policy = Policy::from_program(program).unwrap();
    let ctx = json!({"tool_input": {"command": "mkfs.ext4 /dev/sda"}});
    let trace = policy.query("PreToolUse", &ctx).explain().unwrap();
    assert_eq!(trace.hooks[0].row, Some(1));
    assert_eq!(trace.to_json()["hooks"][0]["row"], json!(1));
    assert!(
        trace.to_text().contains("pattern table: row 1 matched"),
        "{}",
        trace.to_text()
    );
}

#[test]
fn table_errors_are_located() {
    let mut rows = dangerous();
    rows.truncate(10);
    rows[7].0 = "(unclosed".to_owned();
    let c = compile(&[Input::new("bad.yaml", guard_yaml(&rows))]);
    let text = rendered(&c);
    assert!(
        text.contains("invalid regular expression in row 7"),
        "{text}"
    );
    // Row 7 is on line 24 of the file.
    assert!(text.contains("bad.yaml:24:"), "{text}");

    let on_int =
        guard_yaml(&rows[..1]).replace("command: {type: string}", "command: {type: integer}");
    let c = compile(&[Input::new("on.yaml", on_int)]);
    let text = rendered(&c);
    assert!(text.contains("but it is an int"), "{text}");

    let empty = "hooks:\n  - event: e\n    table: {on: cmd, rows: []}\n    action: {type: abort}\n";
    let c = compile(&[Input::new("empty.yaml", empty)]);
    assert!(rendered(&c).contains("the table has no rows"));

    // A field no row has is not in the closed `row`.
    let typo = guard_yaml(&rows[..1]).replace("${row.message}", "${row.mesage}");
    let c = compile(&[Input::new("typo.yaml", typo)]);
    assert!(c.diagnostics.has_errors(), "{}", rendered(&c));
}

/// Layering at run time copies each side's tables with their hooks: the
/// layered policy decides as the layers compiled together do.
#[test]
fn layered_policies_keep_their_tables() {
    use hookc::compile::{compile_layers, LayerName};
    let base = "hooks:
  - id: low
    event: e
    table: {on: cmd, rows: [{pattern: a, m: base-a}, {pattern: b, m: base-b}]}
    action: {type: fail, error_message: \"${row.m} ${cmd.size()}\"}
";
    let run = "hooks:
  - id: high
    event: e
    priority: 5
    table: {on: cmd, rows: [{pattern: c, m: run-c}]}
    action: {type: fail, error_message: \"${row.m}\"}
";
    let layer = |name: &str, text: &str| {
        (
            LayerName::new(name).unwrap(),
            vec![Input::new(format!("{name}.yaml"), text)],
        )
    };
    let load = |c: Compilation| {
        assert!(!c.diagnostics.has_errors(), "{}", rendered(&c));
        Policy::from_artifact(&c.into_policy().unwrap().to_artifact()).unwrap()
    };
    let together = load(compile_layers(&[layer("base", base), layer("run", run)]));
    let layered = load(compile_layers(&[layer("base", base)]))
        .with_layer(&load(compile_layers(&[layer("run", run)])))
        .unwrap();
    for cmd in ["a", "b", "cb", "zz", "bca"] {
        let ctx = json!({ "cmd": cmd });
        let decide = |p: &Policy| p.evaluate("e", &ctx).unwrap().terminal.map(|m| m.action);
        assert_eq!(decide(&together), decide(&layered), "{cmd}");
    }
    let ctx = json!({"cmd": "bca"});
    let action = layered
        .evaluate("e", &ctx)
        .unwrap()
        .terminal
        .unwrap()
        .action;
    assert_eq!(action["error_message"], json!("run-c"));
}

/// The normalized output (`--emit`) writes the table back: it compiles to
/// the same decisions.
#[test]
fn normalized_output_keeps_the_table() {
    let c = compiled("guard.yaml", &guard_yaml(&dangerous()));
    let text = hookc::normalize::to_yaml(c.policy.as_ref().unwrap()).unwrap();
    assert!(text.contains("table:"), "{text}");
    let again = compiled("again.yaml", &text);
    for cmd in ["mkfs /dev/sda", "danger42", "ls", "git push --force origin"] {
        let ctx = json!({"tool_input": {"command": cmd}});
        assert_eq!(decide(&c, &ctx), decide(&again, &ctx), "{cmd}");
    }
}
