//! Running test files: each case evaluated both ways and compared with its
//! expectation, and the report, as text or JSON.

use super::file::{Expect, ExpectModel, FileError, TestCase, TestFile};
use crate::exit::Exit;
use hookc::files::{self, Overlay, PolicyFile};
use hookc_runtime::{Context, Decision, Match, Policy, Results, Trace};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

// `TestFile::run` lives beside what it calls, so that reading a test file
// (`file.rs`) does not depend on running it.
impl TestFile {
    /// Runs every case against `policy` (whose ids [`TestFile::check_ids`]
    /// accepted).
    pub fn run(&self, policy: &Policy) -> Vec<TestResult> {
        self.cases()
            .iter()
            .map(|case| {
                let location = self.location(case.span);
                run_case(policy, case, location, self.ignores_unknown_disables())
            })
            .collect()
    }
}

/// One way a case's result differs from its expectation.
#[derive(Debug, Clone, PartialEq)]
pub enum Mismatch {
    /// Another hook won (`None`: no hook matched, or no match was expected).
    Hook {
        /// The expected hook.
        expected: Option<String>,
        /// The hook that won.
        actual: Option<String>,
    },
    /// Other collected matches than expected (ids, in order).
    Collected {
        /// The expected collected hooks.
        expected: Vec<String>,
        /// The collected hooks.
        actual: Vec<String>,
    },
    /// The right hook, but an action field differs.
    ActionField {
        /// The hook whose action it is.
        hook: String,
        /// Whether that hook is a collected one (else the deciding one).
        collected: bool,
        /// The field.
        field: String,
        /// What the case expects.
        expected: Value,
        /// What the action has (`None`: the action has no such field).
        actual: Option<Value>,
    },
    /// The evaluation failed where the case expects a decision, or did not
    /// fail (or failed otherwise) where it expects an error.
    Error {
        /// The text the case expects in the error (`None`: no error).
        expected: Option<String>,
        /// The evaluation's error (`None`: it did not fail).
        actual: Option<String>,
    },
    /// A part of the decision model differs (`pending`, `transforms`,
    /// `patched`, `errors`).
    Model {
        /// Which part.
        what: &'static str,
        /// What the case expects.
        expected: Value,
        /// What the decision has.
        actual: Value,
    },
    /// The case's `disabled` hooks could not be switched off.
    Overrides(String),
    /// The query on the context as a `Value` and on its JSON text gave
    /// different results: a bug in hookc.
    Disagreement {
        /// The result from the `Value` (a `Match` as JSON, or `null`).
        value: Value,
        /// The result from the JSON text, or why it failed.
        json: Result<Value, String>,
    },
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    /// The case's name.
    pub name: String,
    /// `file:line:column` of the case.
    pub location: String,
    /// The event.
    pub event: String,
    /// The context, as the case gives it (so that a report can be replayed
    /// by another evaluator, as the Python package's tests do).
    pub context: Value,
    /// The hooks the case switches off.
    pub disabled: Vec<String>,
    /// The awaited hooks' results the case gives.
    pub results: Map<String, Value>,
    /// The expectation as JSON: `{"hook"?: ID|null, "action"?: {...},
    /// "collected"?: [{"hook": ID, "action"?: {...}}]}`.
    pub expected: Value,
    /// The decision, as `hookc eval` prints it ([`Decision::to_json`]).
    pub actual: Value,
    /// Every difference; empty when the case passed.
    pub mismatches: Vec<Mismatch>,
    /// The explain trace, for failed cases.
    pub trace: Option<Trace>,
}

impl TestResult {
    /// Whether the case passed.
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Evaluates one case (both ways) and compares the result; with
/// `ignore_unknown`, ids of `disabled` the policy does not know are
/// ignored (and left out of the result's `disabled`).
pub fn run_case(
    policy: &Policy,
    case: &TestCase,
    location: String,
    ignore_unknown: bool,
) -> TestResult {
    let ids = case.disabled.iter().map(|d| d.value.as_str());
    let (overrides, unknown) = policy.overrides_lenient(ids);
    let mut mismatches = Vec::new();
    if let (Some(id), false) = (unknown.first(), ignore_unknown) {
        // `check_ids` accepts only known ids; should one still be unknown,
        // the case fails rather than run with the hook switched on.
        let e = hookc_runtime::UnknownHook((*id).to_owned());
        mismatches.push(Mismatch::Overrides(e.to_string()));
    }
    // The case runs from the parsed context and from its JSON text: the two
    // must agree (a disagreement is a bug in hookc, reported as such).
    let results = Results::from(case.results.clone());
    let answer = |ctx: Context<'_>| {
        policy
            .query(&case.event, ctx)
            .with_overrides(&overrides)
            .with_results(&results)
            .decision()
            .map_err(|e| e.to_string())
    };
    let by_value = answer(Context::Value(&case.context));
    let by_text = serde_json::to_vec(&case.context)
        .map_err(|e| e.to_string())
        .and_then(|text| answer(Context::json(&text)))
        .map(|d| d.to_json());
    let actual = match &by_value {
        Ok(d) => d.to_json(),
        Err(e) => json!({ "error": e }),
    };
    let by_value_json = by_value
        .as_ref()
        .map(Decision::to_json)
        .map_err(String::clone);
    if by_text != by_value_json {
        mismatches.push(Mismatch::Disagreement {
            value: actual.clone(),
            json: by_text,
        });
    }
    match (&by_value, &case.expect.error) {
        (Ok(decision), None) => compare(&case.expect, decision, &mut mismatches),
        (Err(e), Some(want)) if e.contains(want.value.as_str()) => {}
        (got, want) => mismatches.push(Mismatch::Error {
            expected: want.as_ref().map(|w| w.value.clone()),
            actual: got.as_ref().err().cloned(),
        }),
    }
    let expected = expectation_json(&case.expect);
    let trace = if mismatches.is_empty() {
        None
    } else {
        policy
            .query(&case.event, &case.context)
            .with_overrides(&overrides)
            .with_results(&results)
            .explain()
            .ok()
    };
    TestResult {
        name: case.name.clone(),
        location,
        event: case.event.clone(),
        context: case.context.clone(),
        disabled: (case.disabled.iter())
            .filter(|d| !unknown.contains(&d.value.as_str()))
            .map(|d| d.value.clone())
            .collect(),
        results: case.results.clone(),
        expected,
        actual,
        mismatches,
        trace,
    }
}

/// Compares a decision with what the case expects (the deciding hook
/// only when the case gives it).
fn compare(expect: &Expect, decision: &Decision<'_>, mismatches: &mut Vec<Mismatch>) {
    compare_model(&expect.model, decision, mismatches);
    let terminal = decision.terminal.as_ref();
    if let Some(hook) = &expect.hook {
        let expected_hook = hook.value.as_deref();
        let actual_hook = terminal.map(|m| m.hook);
        if expected_hook != actual_hook {
            mismatches.push(Mismatch::Hook {
                expected: expected_hook.map(str::to_owned),
                actual: actual_hook.map(str::to_owned),
            });
        } else if let (Some(fields), Some(m)) = (&expect.action, terminal) {
            compare_fields(fields, m, false, mismatches);
        }
    }
    let Some(wanted) = &expect.collected else {
        return;
    };
    let ids = |it: &mut dyn Iterator<Item = &str>| it.map(str::to_owned).collect::<Vec<_>>();
    let expected_ids = ids(&mut wanted.iter().map(|c| c.hook.value.as_str()));
    let actual_ids = ids(&mut decision.collected.iter().map(|m| m.hook));
    if expected_ids != actual_ids {
        mismatches.push(Mismatch::Collected {
            expected: expected_ids,
            actual: actual_ids,
        });
        return;
    }
    for (want, got) in wanted.iter().zip(&decision.collected) {
        if let Some(fields) = &want.action {
            compare_fields(fields, got, true, mismatches);
        }
    }
}

/// Compares the decision model's parts a case names.
fn compare_model(want: &ExpectModel, decision: &Decision<'_>, mismatches: &mut Vec<Mismatch>) {
    let ids = |ms: &[Match<'_>]| Value::from(ms.iter().map(|m| m.hook).collect::<Vec<_>>());
    let mut check = |what, expected: Value, actual: Value| {
        if expected != actual {
            mismatches.push(Mismatch::Model {
                what,
                expected,
                actual,
            });
        }
    };
    if let Some(pending) = &want.pending {
        let expected = pending.as_ref().map(|p| p.hook.value.as_str());
        let actual = decision.pending.as_ref();
        check("pending", expected.into(), actual.map(|m| m.hook).into());
    }
    if let Some(transforms) = &want.transforms {
        check(
            "transforms",
            transforms.clone().into(),
            ids(&decision.transforms),
        );
    }
    if let Some(errors) = &want.errors {
        let actual: Vec<&str> = decision.errors.iter().map(|e| e.hook.as_str()).collect();
        check("errors", errors.clone().into(), actual.into());
    }
    if let Some(patched) = &want.patched {
        let actual: Map<String, Value> = patched
            .keys()
            .filter_map(|k| Some((k.clone(), decision.patched.get(k)?.clone())))
            .collect();
        check(
            "patched",
            Value::Object(patched.clone()),
            Value::Object(actual),
        );
    }
    // The pending action's fields, when it is the expected hook.
    if let (Some(Some(p)), Some(m)) = (&want.pending, &decision.pending) {
        if let (Some(fields), true) = (&p.action, p.hook.value == m.hook) {
            compare_fields(fields, m, true, mismatches);
        }
    }
}

/// Compares the fields a case names with a match's action (only those).
fn compare_fields(
    fields: &Map<String, Value>,
    m: &Match<'_>,
    collected: bool,
    mismatches: &mut Vec<Mismatch>,
) {
    for (field, want) in fields {
        let got = m.action.get(field);
        if got != Some(want) {
            mismatches.push(Mismatch::ActionField {
                hook: m.hook.to_owned(),
                collected,
                field: field.clone(),
                expected: want.clone(),
                actual: got.cloned(),
            });
        }
    }
}

/// The expectation as JSON (see [`TestResult::expected`]).
fn expectation_json(expect: &Expect) -> Value {
    let mut expected = Map::new();
    if let Some(error) = &expect.error {
        expected.insert("error".into(), error.value.clone().into());
        return Value::Object(expected);
    }
    if let Some(hook) = &expect.hook {
        let hook = hook.value.as_deref().map_or(Value::Null, Value::from);
        expected.insert("hook".into(), hook);
    }
    if let Some(fields) = &expect.action {
        expected.insert("action".into(), Value::Object(fields.clone()));
    }
    if let Some(collected) = &expect.collected {
        let entries = collected
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("hook".into(), c.hook.value.clone().into());
                if let Some(fields) = &c.action {
                    m.insert("action".into(), Value::Object(fields.clone()));
                }
                Value::Object(m)
            })
            .collect();
        expected.insert("collected".into(), Value::Array(entries));
    }
    let model = &expect.model;
    if let Some(p) = &model.pending {
        let p = p.as_ref().map_or(Value::Null, |p| {
            let mut m = Map::new();
            m.insert("hook".into(), p.hook.value.clone().into());
            if let Some(fields) = &p.action {
                m.insert("action".into(), Value::Object(fields.clone()));
            }
            Value::Object(m)
        });
        expected.insert("pending".into(), p);
    }
    if let Some(t) = &model.transforms {
        expected.insert("transforms".into(), t.clone().into());
    }
    if let Some(p) = &model.patched {
        expected.insert("patched".into(), Value::Object(p.clone()));
    }
    if let Some(e) = &model.errors {
        expected.insert("errors".into(), e.clone().into());
    }
    Value::Object(expected)
}

/// Where the policy comes from when running test files.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Policy files for every test file (`--policy`), named as given,
    /// replacing what the test files name.
    pub policy: Vec<PathBuf>,
    /// Policies layered over or under each test file's policy
    /// (`--overlay`, `--overlay-below`), in order.
    pub overlays: Vec<Overlay>,
}

/// One test file's run.
#[derive(Debug)]
pub struct FileRun {
    /// The test file, as given.
    pub file: String,
    /// The names of the policy files used (empty when the file did not parse).
    pub policy: Vec<String>,
    /// The cases' results, or why none ran.
    pub result: Result<Vec<TestResult>, FileError>,
}

/// Reads, checks and runs one test file.
pub fn run_file(path: &Path, options: &Options) -> FileRun {
    let file = path.display().to_string();
    let mut policy = Vec::new();
    let result = load_and_run(path, &file, options, &mut policy);
    FileRun {
        file,
        policy,
        result,
    }
}

/// [`run_file`]'s steps; `names` receives the policy files' names.
fn load_and_run(
    path: &Path,
    file: &str,
    options: &Options,
    names: &mut Vec<String>,
) -> Result<Vec<TestResult>, FileError> {
    let invalid = |invalid| FileError::Invalid {
        file: file.to_owned(),
        invalid,
    };
    let input = files::read_input(&PolicyFile::new(path))?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let test = TestFile::parse(file, &input.text, dir).map_err(invalid)?;
    let policy_files = if options.policy.is_empty() {
        test.policy()
            .map(<[PolicyFile]>::to_vec)
            .ok_or_else(|| invalid(test.missing_policy()))?
    } else {
        files::policy_files(&options.policy)
    };
    *names = policy_files.iter().map(|f| f.name.clone()).collect();
    let policy = files::load_policy(&policy_files)
        .and_then(|loaded| files::layer_overlays(loaded, &options.overlays))
        .map(|loaded| loaded.policy)
        .map_err(|error| FileError::Policy {
            file: file.to_owned(),
            error: Box::new(error),
        })?;
    test.check_ids(&policy).map_err(invalid)?;
    Ok(test.run(&policy))
}

/// The runs of several test files.
#[derive(Debug)]
pub struct Run {
    /// Each file's run, in the order given.
    pub files: Vec<FileRun>,
}

impl Run {
    /// Runs every test file.
    pub fn new(paths: &[PathBuf], options: &Options) -> Run {
        Run {
            files: paths.iter().map(|p| run_file(p, options)).collect(),
        }
    }

    fn results(&self) -> impl Iterator<Item = &TestResult> {
        self.files
            .iter()
            .filter_map(|f| f.result.as_ref().ok())
            .flatten()
    }

    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.results().filter(|r| r.passed()).count()
    }

    /// Cases that failed.
    pub fn failed(&self) -> usize {
        self.results().filter(|r| !r.passed()).count()
    }

    /// Test files that did not run (unreadable, invalid, or their policy
    /// does not load).
    pub fn errors(&self) -> usize {
        self.files.iter().filter(|f| f.result.is_err()).count()
    }

    /// 2 when a file did not run, else 1 when a case failed, else 0.
    pub fn exit(&self) -> Exit {
        if self.errors() > 0 {
            Exit::Failed
        } else {
            Exit::findings_if(self.failed() > 0)
        }
    }

    /// The report for people, modelled on `cargo test`: standard output
    /// (cases, failures with their traces, summary lines) and standard error
    /// (the errors of files that did not run).
    pub fn to_text(&self) -> (String, String) {
        let mut out = String::new();
        let mut err = String::new();
        for (i, f) in self.files.iter().enumerate() {
            let results = match &f.result {
                Ok(results) => results,
                Err(e) => {
                    err.push_str(&e.render());
                    continue;
                }
            };
            if i > 0 && !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&file_text(f, results));
        }
        if self.files.len() > 1 {
            let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
            let did_not_run = match self.errors() {
                0 => String::new(),
                n => format!(" ({n} did not run)"),
            };
            out.push_str(&format!(
                "\n{}{did_not_run}: {} passed; {} failed\n",
                plural(self.files.len(), "test file"),
                self.passed(),
                self.failed()
            ));
        }
        (out, err)
    }

    /// The report as one JSON document: `{"files": [{"file", "policy",
    /// "cases": [...]} or {"file", "errors": [...]}], "passed", "failed",
    /// "errors"}`.
    pub fn to_json(&self) -> Value {
        let files: Vec<Value> = self
            .files
            .iter()
            .map(|f| {
                let mut m = Map::new();
                m.insert("file".into(), f.file.clone().into());
                m.insert("policy".into(), f.policy.clone().into());
                match &f.result {
                    Ok(results) => {
                        let cases: Vec<Value> = results.iter().map(case_json).collect();
                        m.insert("cases".into(), cases.into());
                    }
                    Err(e) => {
                        m.insert("errors".into(), e.to_json().into());
                    }
                }
                Value::Object(m)
            })
            .collect();
        json!({
            "files": files,
            "passed": self.passed(),
            "failed": self.failed(),
            "errors": self.errors(),
        })
    }
}

/// One test file's block of the text report.
fn file_text(f: &FileRun, results: &[TestResult]) -> String {
    let mut out = format!(
        "running {} case{} from {}\n",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        f.file
    );
    for r in results {
        let verdict = if r.passed() { "ok" } else { "FAILED" };
        out.push_str(&format!("case {} ... {verdict}\n", r.name));
    }
    let failed: Vec<&TestResult> = results.iter().filter(|r| !r.passed()).collect();
    if !failed.is_empty() {
        out.push_str("\nfailures:\n");
        for r in &failed {
            out.push_str(&format!("\n---- {} ({}) ----\n", r.name, r.location));
            out.push_str(&format!("event: {}\n", r.event));
            for m in &r.mismatches {
                out.push_str(&mismatch_text(m, &r.actual));
            }
            if let Some(trace) = &r.trace {
                out.push('\n');
                out.push_str(&trace.to_text());
            }
        }
        out.push_str("\nfailures:\n");
        for r in &failed {
            out.push_str(&format!("    {}\n", r.name));
        }
    }
    let passed = results.len() - failed.len();
    out.push_str(&format!(
        "\ntest result: {}. {passed} passed; {} failed\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len()
    ));
    out
}

fn hook_name(h: &Option<String>) -> String {
    h.as_ref()
        .map_or_else(|| "no match".to_owned(), |h| format!("`{h}`"))
}

fn mismatch_text(m: &Mismatch, actual: &Value) -> String {
    match m {
        Mismatch::Hook {
            expected,
            actual: got,
        } => {
            let mut s = format!(
                "hook: expected {}, actual {}\n",
                hook_name(expected),
                hook_name(got)
            );
            if let Some(action) = actual.get("action") {
                s.push_str(&format!("actual action: {action}\n"));
            }
            s
        }
        Mismatch::Collected { expected, actual } => {
            let list = |ids: &[String]| match ids {
                [] => "none".to_owned(),
                ids => ids
                    .iter()
                    .map(|i| format!("`{i}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            format!(
                "collected: expected {}, actual {}\n",
                list(expected),
                list(actual)
            )
        }
        Mismatch::ActionField {
            hook,
            collected,
            field,
            expected,
            actual,
        } => {
            let whose = if *collected {
                format!("collected `{hook}`: ")
            } else {
                String::new()
            };
            match actual {
                Some(a) => format!("{whose}action field `{field}`: expected {expected}, actual {a}\n"),
                None => format!("{whose}action field `{field}`: expected {expected}, actual: the action has no `{field}`\n"),
            }
        }
        Mismatch::Error {
            expected,
            actual: failure,
        } => match (expected, failure) {
            (Some(want), Some(got)) => {
                format!("error: expected an error containing {want:?}, actual: {got}\n")
            }
            (Some(want), None) => format!(
                "error: expected an error containing {want:?}, actual: no error ({actual})\n"
            ),
            (None, got) => format!(
                "error: the evaluation failed: {}\n",
                got.as_deref().unwrap_or("")
            ),
        },
        Mismatch::Model {
            what,
            expected,
            actual,
        } => format!("{what}: expected {expected}, actual {actual}\n"),
        Mismatch::Overrides(e) => format!("disabled: {e}\n"),
        Mismatch::Disagreement { value, json } => {
            let json = match json {
                Ok(v) => v.to_string(),
                Err(e) => format!("an error: {e}"),
            };
            format!(
                "evaluate and evaluate_json disagree (a bug in hookc, please report it): \
                 evaluate gave {value}, evaluate_json gave {json}\n"
            )
        }
    }
}

fn case_json(r: &TestResult) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), r.name.clone().into());
    m.insert("location".into(), r.location.clone().into());
    m.insert("event".into(), r.event.clone().into());
    m.insert("context".into(), r.context.clone());
    m.insert("disabled".into(), r.disabled.clone().into());
    if !r.results.is_empty() {
        m.insert("results".into(), Value::Object(r.results.clone()));
    }
    m.insert(
        "outcome".into(),
        if r.passed() { "ok" } else { "failed" }.into(),
    );
    m.insert("expected".into(), r.expected.clone());
    m.insert("actual".into(), r.actual.clone());
    if !r.passed() {
        let mismatches: Vec<Value> = r
            .mismatches
            .iter()
            .map(|mm| match mm {
                Mismatch::Hook { expected, actual } => {
                    json!({"what": "hook", "expected": expected, "actual": actual})
                }
                Mismatch::Collected { expected, actual } => {
                    json!({"what": "collected", "expected": expected, "actual": actual})
                }
                Mismatch::ActionField {
                    collected: false,
                    field,
                    expected,
                    actual,
                    ..
                } => json!({"what": "action_field", "field": field, "expected": expected, "actual": actual}),
                Mismatch::ActionField {
                    hook,
                    collected: true,
                    field,
                    expected,
                    actual,
                } => json!({"what": "collected_action_field", "hook": hook, "field": field, "expected": expected, "actual": actual}),
                Mismatch::Error { expected, actual } => {
                    json!({"what": "error", "expected": expected, "actual": actual})
                }
                Mismatch::Model {
                    what,
                    expected,
                    actual,
                } => json!({"what": what, "expected": expected, "actual": actual}),
                Mismatch::Overrides(e) => json!({"what": "disabled", "error": e}),
                Mismatch::Disagreement { value, json } => json!({
                    "what": "evaluate_json_disagrees",
                    "evaluate": value,
                    "evaluate_json": match json { Ok(v) => v.clone(), Err(e) => json!({"error": e}) },
                }),
            })
            .collect();
        m.insert("mismatches".into(), mismatches.into());
    }
    if let Some(t) = &r.trace {
        m.insert("trace".into(), t.to_json());
    }
    Value::Object(m)
}
