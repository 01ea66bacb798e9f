//! Golden tests of diagnostics: every case in `tests/diagnostics/` (a file, or
//! a folder whose files compile together in name order) is compiled, and the
//! rendered diagnostics plus the summary line must equal `<case>.stderr`.
//!
//! `UPDATE_EXPECT=1 cargo test -p hookc --test suite diagnostics::` rewrites the expected
//! files; review the diff before committing. A final test checks that every
//! diagnostic code has at least one golden case.

use hookc::compile::{compile, Input};
use hookc::diag::{render, Code};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics")
}

/// Every case: its name and its inputs (names relative to the case).
fn cases() -> Vec<(String, Vec<Input>)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(cases_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let mut files: Vec<_> = std::fs::read_dir(&path)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            let inputs = files
                .iter()
                .map(|f| {
                    let n = format!("{name}/{}", f.file_name().unwrap().to_string_lossy());
                    Input::new(n, std::fs::read_to_string(f).unwrap())
                })
                .collect();
            out.push((name, inputs));
        } else if name.ends_with(".yaml") || name.ends_with(".xml") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((name.clone(), vec![Input::new(name, text)]));
        }
    }
    out
}

fn render_case(inputs: &[Input]) -> String {
    let c = compile(inputs);
    let diags: Vec<_> = c.diagnostics.iter().collect();
    let mut text = render::human(&diags, &c.sources);
    text.push_str(&hookc::summary(&c));
    text.push('\n');
    text
}

fn expected_path(case: &str) -> PathBuf {
    let stem = case
        .rsplit_once('.')
        .filter(|_| !case.ends_with('/'))
        .map_or(case, |(s, _)| s);
    cases_dir().join(format!("{stem}.stderr"))
}

#[test]
fn golden_diagnostics() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut failures = Vec::new();
    for (name, inputs) in cases() {
        let actual = render_case(&inputs);
        let path = expected_path(&name);
        if update {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if actual != expected {
            failures.push(format!(
                "--- {name}: expected ({})\n{expected}\n--- actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_code_has_a_golden_case() {
    let mut seen = BTreeSet::new();
    for entry in std::fs::read_dir(cases_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "stderr") {
            let text = std::fs::read_to_string(&path).unwrap();
            for code in Code::ALL {
                let tag = format!("{}[{}]", code.severity().as_str(), code.as_str());
                if text.contains(&tag) {
                    seen.insert(code.as_str());
                }
            }
        }
    }
    let missing: Vec<_> = Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !seen.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a golden case: {missing:?}"
    );
}

#[test]
fn every_bad_case_fails_and_names_its_code() {
    // A case named `e0301_...` must report E0301; `w0001_...` must report W0001.
    for (name, inputs) in cases() {
        let code = name.get(..5).unwrap().to_ascii_uppercase();
        let c = compile(&inputs);
        assert!(
            c.diagnostics.iter().any(|d| d.code.as_str() == code),
            "{name}: expected a {code} diagnostic, got {:?}",
            c.diagnostics
                .iter()
                .map(|d| d.code.as_str())
                .collect::<Vec<_>>()
        );
        if code.starts_with('E') {
            assert!(
                c.policy.is_none(),
                "{name}: an error case must not produce a policy"
            );
        }
    }
}
