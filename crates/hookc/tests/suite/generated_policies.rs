//! Policies as generators write them: thousands of hooks, one line of JSON,
//! the same undeclared path read by every hook. What hookc prints for them
//! stays proportionate: a snippet shows a window of a long line, and a
//! finding repeated across a file is reported once with the count of the
//! others.

use hookc::compile::{compile, Compilation, Input};
use hookc::diag::{render, Code};

/// `n` hooks as one line of JSON; each hook's action has an unknown
/// parameter (an error, E0401, per hook: errors are never folded).
fn one_line_policy(n: usize) -> String {
    let hooks: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id": "h{i}", "event": "error", "priority": {i}, "when": "classification.category == 'c{i}'", "action": {{"type": "suspend", "suspend_reason": "error", "bogus_{i}": 1}}}}"#
            )
        })
        .collect();
    format!("{{\"hooks\": [{}]}}\n", hooks.join(", "))
}

fn rendered(c: &Compilation) -> String {
    let diags: Vec<_> = c.diagnostics.iter().collect();
    render::human(&diags, &c.sources)
}

#[test]
fn diagnostics_on_one_long_line_print_a_bounded_window_each() {
    for n in [100, 4_000] {
        let text = one_line_policy(n);
        let c = compile(&[Input::new("generated.json", text.clone())]);
        let count = c
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::UnknownParameter)
            .count();
        assert_eq!(count, n, "one E0401 per hook");
        let out = rendered(&c);
        let per_diagnostic = out.len() / c.diagnostics.iter().count();
        // The line is 130 bytes per hook (13 KB at 100 hooks, 520 KB at
        // 4,000); what each diagnostic prints is a few hundred bytes
        // whatever its length.
        assert!(text.len() > 100 * n, "{} bytes", text.len());
        assert!(
            per_diagnostic < 700,
            "{n} hooks: {per_diagnostic} bytes per diagnostic"
        );
        // The last hook's snippet still points at its own parameter.
        let last = format!("bogus_{}", n - 1);
        assert!(
            out.lines()
                .any(|l| l.contains(&format!("\"{last}\"")) && l.contains("...")),
            "no windowed snippet of `{last}`"
        );
    }
}

/// `n` hooks, one per line of YAML, each reading the undeclared paths
/// `error.shard` and `error.zone` (W0001), the second in a template the
/// condition does not guard (W0007).
fn undeclared_paths_policy(n: usize) -> String {
    let mut text = String::from("hooks:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - {{id: h{i}, event: error, when: \"error.shard == {i}\", action: {{type: call_directive, directive: d, parameters: {{zone: \"${{error.zone}}\"}}}}}}\n"
        ));
    }
    text
}

#[test]
fn a_repeated_warning_is_reported_once_per_file_with_the_count_of_the_others() {
    let n = 1_000;
    let c = compile(&[
        Input::new("a.yaml", undeclared_paths_policy(n)),
        // Other conditions than a's first three, which would shadow them.
        Input::new(
            "b.yaml",
            undeclared_paths_policy(3)
                .replace("id: h", "id: b")
                .replace("== ", "== 100"),
        ),
    ]);
    assert!(!c.diagnostics.has_errors(), "{}", rendered(&c));
    let messages = |code: Code| -> Vec<String> {
        c.diagnostics
            .iter()
            .filter(|d| d.code == code)
            .map(|d| format!("{}: {}", c.sources.location(d.span.unwrap()), d.message))
            .collect()
    };
    assert_eq!(
        messages(Code::PathNotInSchema),
        [
            "a.yaml:2:35: `error.shard` is not in the schema: `error` has no key `shard` (and 999 more uses in this file)",
            "a.yaml:2:121: `error.zone` is not in the schema: `error` has no key `zone` (and 999 more uses in this file)",
            "b.yaml:2:35: `error.shard` is not in the schema: `error` has no key `shard` (and 2 more uses in this file)",
            "b.yaml:2:124: `error.zone` is not in the schema: `error` has no key `zone` (and 2 more uses in this file)",
        ]
    );
    assert_eq!(
        messages(Code::UnguardedTemplate),
        [
            "a.yaml:2:121: the action of hook `h0` reads `${error.zone}`, but its condition does not ensure that `error.zone` exists (and 999 more uses in this file)",
            "b.yaml:2:124: the action of hook `b0` reads `${error.zone}`, but its condition does not ensure that `error.zone` exists (and 2 more uses in this file)",
        ]
    );
    let diags: Vec<_> = c.diagnostics.iter().collect();
    assert_eq!(
        render::code_summary(&diags),
        "warning summary: 4 × W0001, 2 × W0007\n"
    );
}
