//! `hookc::build_script::Builder`, the build-script API: the artifact it writes
//! loads and evaluates; it prints the cargo instructions a build script
//! must (rerun-if-changed for the folder and every file, diagnostics as
//! `cargo::warning=` / `cargo::error=` lines); broken policies fail with
//! `cargo::error=` lines. And the example crate `examples/embedded`, which
//! embeds its artifact with `include_bytes!`, builds and runs.

use hookc::build_script::{BuildError, Builder};
use hookc_runtime::Policy;
use std::path::{Path, PathBuf};

/// A fresh folder under cargo's per-test temporary directory.
fn fresh(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("build_api")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs the builder on `policies` with a fresh OUT_DIR: the result and the
/// printed lines.
fn build(
    policies: &Path,
    out_dir: &Path,
    deny: bool,
) -> (Result<PathBuf, BuildError>, Vec<String>) {
    let mut out = Vec::new();
    let result = Builder::new(policies)
        .out_name("p.hkb")
        .out_dir(out_dir)
        .deny_warnings(deny)
        .compile_with(&mut out);
    let lines = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    (result, lines)
}

const HOOKS: &str = r#"
hooks:
  - id: rate_limited
    event: error
    when: "classification.category == 'rate_limited'"
    action: {type: retry, max_attempts: 5}
"#;

const DIRECTIVE: &str = r#"<directive name="d"><hooks>
  <hook event="limit" when="limit_code == 'spend_exceeded'"><escalate target="both"/></hook>
</hooks></directive>"#;

#[test]
fn compiles_a_folder_into_a_loadable_artifact_and_prints_rerun_lines() {
    let root = fresh("ok");
    let policies = root.join("policies");
    write(&policies.join("b_hooks.yaml"), HOOKS);
    write(&policies.join("a/directive.xml"), DIRECTIVE);
    write(&policies.join("hooks.test.yaml"), "not: a policy\n");
    write(&policies.join("README.md"), "# notes\n");
    let out_dir = root.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();

    let (result, lines) = build(&policies, &out_dir, false);
    let path = result.unwrap();
    assert_eq!(path, out_dir.join("p.hkb"));
    let p = policies.display();
    assert_eq!(
        lines,
        [
            format!("cargo::rerun-if-changed={p}"),
            format!("cargo::rerun-if-changed={p}/a/directive.xml"),
            format!("cargo::rerun-if-changed={p}/b_hooks.yaml"),
        ],
        "no diagnostics, so nothing else"
    );
    let policy = Policy::from_artifact(&std::fs::read(&path).unwrap()).unwrap();
    // Files in path order (the source order: `a/directive.xml` first, both
    // hooks at priority 0), named relative to the folder.
    let ids: Vec<&str> = policy.hook_ids().collect();
    assert_eq!(ids, ["a/directive.xml#directive[0]", "rate_limited"]);
    let ctx = serde_json::json!({"classification": {"category": "rate_limited"}});
    let m = policy.evaluate("error", &ctx).unwrap().terminal.unwrap();
    assert_eq!(m.hook, "rate_limited");
    assert_eq!(m.action["max_attempts"], 5);
}

#[test]
fn warnings_are_cargo_warnings_and_fail_only_when_denied() {
    let root = fresh("warn");
    let policies = root.join("policies");
    // `eror` is an event no one names: W0006.
    write(
        &policies.join("hooks.yaml"),
        "hooks:\n  - id: typo\n    event: eror\n    action: {type: abort}\n",
    );
    let (result, lines) = build(&policies, &root, false);
    result.unwrap();
    let diag: Vec<&String> = lines
        .iter()
        .filter(|l| !l.contains("rerun-if-changed"))
        .collect();
    assert_eq!(
        diag.first().map(|s| s.as_str()),
        Some("cargo::warning=warning[W0006]: hook `typo` listens to event `eror`, which no other hook, known event or schema names")
    );
    assert!(
        diag.iter()
            .any(|l| *l == "cargo::warning=  ┌─ hooks.yaml:3:12"),
        "{diag:#?}"
    );
    assert!(
        diag.iter()
            .any(|l| l.contains("help: did you mean `error`?")),
        "{diag:#?}"
    );
    assert!(
        diag.iter().all(|l| l.starts_with("cargo::warning=")),
        "{diag:#?}"
    );
    assert_eq!(
        diag.last().map(|s| s.as_str()),
        Some(
            format!(
                "cargo::warning=hookc: `{}`: 1 file checked: 1 hook, 1 warning",
                policies.display()
            )
            .as_str()
        )
    );

    let (result, lines) = build(&policies, &root, true);
    match result {
        Err(BuildError::Policy {
            errors: 0,
            warnings: 1,
            denied_warnings: true,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    let diag: Vec<&String> = lines
        .iter()
        .filter(|l| !l.contains("rerun-if-changed"))
        .collect();
    assert!(
        !diag.is_empty() && diag.iter().all(|l| l.starts_with("cargo::error=")),
        "{diag:#?}"
    );
}

#[test]
fn a_broken_policy_is_an_error_with_cargo_error_lines_and_no_artifact() {
    let root = fresh("broken");
    let policies = root.join("policies");
    write(
        &policies.join("hooks.yaml"),
        "hooks:\n  - event: error\n    condition: {path: error.code, op: startswith, value: E}\n    action: {type: abort}\n",
    );
    let (result, lines) = build(&policies, &root, false);
    let err = result.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the policies in `{}` have 1 error(s) and 0 warning(s)",
            policies.display()
        )
    );
    let BuildError::Policy { rendered, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        rendered.contains("error[E0106]: unknown operator `startswith`"),
        "{rendered}"
    );
    assert!(
        lines.contains(&"cargo::error=error[E0106]: unknown operator `startswith`".to_owned()),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"cargo::error=  = help: did you mean `starts_with`?".to_owned()),
        "{lines:#?}"
    );
    assert!(lines
        .iter()
        .any(|l| l.starts_with("cargo::rerun-if-changed=") && l.ends_with("hooks.yaml")));
    assert!(!root.join("p.hkb").exists());
}

#[test]
fn an_empty_or_missing_folder_is_an_error_that_says_so() {
    let root = fresh("empty");
    let (result, lines) = build(&root, &root, false);
    assert!(
        matches!(result, Err(BuildError::NoPolicies { .. })),
        "{result:?}"
    );
    // Still watched, so that adding a file reruns the build; and the error
    // is printed for cargo, which then fails the build with it.
    assert_eq!(
        lines,
        [
            format!("cargo::rerun-if-changed={}", root.display()),
            format!(
                "cargo::error=hookc: the policy folder `{}` has no policy files \
                 (`*.yaml`, `*.yml`, `*.xml`)",
                root.display()
            ),
        ]
    );
    let (result, lines) = build(&root.join("nope"), &root, false);
    let err = result.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot read the policy folder `"),
        "{err}"
    );
    assert_eq!(lines, [format!("cargo::error=hookc: {err}")]);
}
