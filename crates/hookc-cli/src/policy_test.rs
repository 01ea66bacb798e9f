//! `hookc test`: policy test files, run against the policy they name.
//!
//! A test file is YAML, read with the spanned reader of the front end
//! ([`hookc::frontend::yaml_doc`]), so every mistake in it is a diagnostic
//! with file:line:column, rendered like the compiler's:
//!
//! ```yaml
//! policy: [policy.xml]            # relative to this file: sources, or one `.hkb` artifact
//! cases:
//!   - name: rate limited, the provider says when to retry
//!     event: error
//!     context: {classification: {category: rate_limited}, error: {code: E9}}
//!     disabled: [orphan_event]    # optional: hooks switched off for this case
//!     expect:
//!       hook: rate_limit_backoff  # `null`: no hook matches
//!       action: {type: call_directive, inherit_token: true}
//! ```
//!
//! - `policy` is a path or a list of paths, resolved against the test file's
//!   folder. The files are *named* as written there (`policy.xml`, not
//!   `examples/policy.xml`), so the default id of a hook without `id`
//!   (`<file>#<layer>[<index>]`) does not depend on the directory hookc runs
//!   in. [`Options::policy`] (`--policy`) replaces it for every file, named
//!   as given.
//! - `expect.hook` and `disabled` must name hooks of the policy (its enabled
//!   hooks, checked once the policy is loaded, with a did-you-mean).
//! - `expect.action` is compared on the fields it gives only, each field as a
//!   whole and as JSON (`7200` is not `"7200"`, and a `parameters` object must
//!   be given complete).
//! - `context` is a mapping, `{}` when absent.
//!
//! Every case is evaluated twice, with [`Policy::query`] on the context as a
//! `serde_json::Value` and on its JSON text ([`Context::json`]); a
//! disagreement fails the case (it is a bug in hookc). A failing case
//! carries the explain [`Trace`] of its query.

use hookc::diag::{render, Code, Diagnostic};
use hookc::files::{self, PolicyError, PolicyFile, ReadError};
use hookc::frontend::doc::{Key, Node, NodeKind};
use hookc::frontend::yaml_doc;
use hookc::span::{FileId, SourceMap, Span, Spanned};
use hookc::suggest;
use hookc_runtime::{Context, Match, Policy, Trace};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The keys of a test file.
pub const FILE_KEYS: &[&str] = &["policy", "cases"];
/// The keys of a case.
pub const CASE_KEYS: &[&str] = &["name", "event", "context", "disabled", "expect"];
/// The keys of a case's `expect`.
pub const EXPECT_KEYS: &[&str] = &["hook", "action"];

/// A parsed test file.
#[derive(Debug, Clone)]
pub struct TestFile {
    /// The test file's name, as given.
    name: String,
    /// The test file's text, registered for rendering diagnostics.
    sources: SourceMap,
    /// The whole document, for findings about the file.
    root: Span,
    /// `policy`, resolved against the test file's folder.
    policy: Option<Vec<PolicyFile>>,
    /// The cases, in file order.
    cases: Vec<TestCase>,
}

/// One case of a test file.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    /// Its name.
    pub name: String,
    /// The event to evaluate.
    pub event: String,
    /// The context (`{}` when the case gives none).
    pub context: Value,
    /// Hooks switched off for this case.
    pub disabled: Vec<Spanned<String>>,
    /// What the policy should do.
    pub expect: Expect,
    /// Where the case is written (its mapping).
    pub span: Span,
    /// Its position in `cases`, for node paths.
    index: usize,
}

/// What a case expects.
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    /// The hook that wins, or `None` for "no hook matches".
    pub hook: Spanned<Option<String>>,
    /// The action fields to compare (only these).
    pub action: Option<Map<String, Value>>,
}

/// A test file with errors: its diagnostics, with the file to render them.
#[derive(Debug, Clone)]
pub struct Invalid {
    /// Every problem found.
    pub diagnostics: Vec<Diagnostic>,
    /// The test file, for rendering.
    pub sources: SourceMap,
}

impl Invalid {
    /// The diagnostics as people read them.
    pub fn render(&self) -> String {
        let refs: Vec<_> = self.diagnostics.iter().collect();
        render::human(&refs, &self.sources)
    }
}

/// Why a test file did not run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FileError {
    /// The test file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The test file has errors (structure, or ids the policy does not have).
    #[error("`{file}` has {} error(s); no case ran", .invalid.diagnostics.len())]
    Invalid {
        /// The test file.
        file: String,
        /// Its diagnostics.
        invalid: Invalid,
    },
    /// The policy it names does not load.
    #[error("the policy of `{file}`: {error}")]
    Policy {
        /// The test file.
        file: String,
        /// Why the policy does not load (boxed: it can hold a whole
        /// compilation).
        error: Box<PolicyError>,
    },
}

impl FileError {
    /// The error as people read it: diagnostics with snippets, then a line
    /// saying what did not run.
    pub fn render(&self) -> String {
        match self {
            FileError::Read(e) => format!("error: {e}\n"),
            FileError::Invalid { invalid, .. } => format!("{}error: {self}\n", invalid.render()),
            FileError::Policy { file, error } => {
                format!("error: the policy of `{file}`: {}\n", error.render())
            }
        }
    }

    /// The error as JSON objects: one per diagnostic (as `check --format
    /// json` prints them), or one `{"severity": "error", "message"}`.
    pub fn to_json(&self) -> Vec<Value> {
        let message = || vec![json!({"severity": "error", "message": self.to_string()})];
        match self {
            FileError::Invalid { invalid, .. } => invalid
                .diagnostics
                .iter()
                .map(|d| render::json(d, &invalid.sources))
                .collect(),
            FileError::Policy { error, .. } => match &**error {
                PolicyError::Compile(c) => c
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| render::json(d, &c.sources))
                    .collect(),
                _ => message(),
            },
            FileError::Read(_) => message(),
        }
    }
}

impl TestFile {
    /// Parses a test file named `name` (as shown in messages); policy paths
    /// are resolved against `dir`, the test file's folder.
    pub fn parse(name: &str, text: &str, dir: &Path) -> Result<TestFile, Invalid> {
        let mut sources = SourceMap::new();
        let file = sources.add(name, text);
        let mut reader = CaseReader {
            dir,
            diags: Vec::new(),
        };
        let parsed = match yaml_doc::parse(text, file) {
            Ok(root) => reader.file(&root, name, file),
            Err(d) => {
                reader.diags.push(d);
                None
            }
        };
        match parsed {
            Some((root, policy, cases)) if reader.diags.is_empty() => Ok(TestFile {
                name: name.to_owned(),
                sources,
                root,
                policy,
                cases,
            }),
            _ => Err(Invalid {
                diagnostics: reader.diags,
                sources,
            }),
        }
    }

    /// The policy files it names, if it names any.
    pub fn policy(&self) -> Option<&[PolicyFile]> {
        self.policy.as_deref()
    }

    /// `file:line:column` of a span in the test file.
    pub fn location(&self, span: Span) -> String {
        match self.sources.line_col(span.file, span.start) {
            Some(lc) => format!("{}:{lc}", self.name),
            None => self.name.clone(),
        }
    }

    /// The diagnostic for a test file that names no policy when no
    /// `--policy` is given either.
    pub fn missing_policy(&self) -> Invalid {
        let d = Diagnostic::new(Code::MissingKey, "the test file names no policy")
            .at(Span::new(self.root.file, self.root.start as usize, self.root.start as usize))
            .label("`policy` missing")
            .help("add `policy: [hooks.yaml]` (paths relative to the test file), or pass --policy FILE");
        self.invalid(vec![d])
    }

    fn invalid(&self, diagnostics: Vec<Diagnostic>) -> Invalid {
        Invalid {
            diagnostics,
            sources: self.sources.clone(),
        }
    }

    /// Checks that every hook id the cases name (`expect.hook`, `disabled`)
    /// is a hook of `policy`.
    pub fn check_ids(&self, policy: &Policy) -> Result<(), Invalid> {
        let ids: Vec<&str> = policy.hook_ids().collect();
        let mut diags = Vec::new();
        let mut check = |id: &str, span: Span, at: String| {
            if !ids.contains(&id) {
                diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!("the policy has no hook with the id `{id}`"),
                    )
                    .at(span)
                    .label("not a hook of the policy")
                    .node(at)
                    .maybe_help(suggest::help_for(id, ids.iter().copied()))
                    .note(
                        "the policy's hooks are its enabled hooks; a hook without `id` is \
                         `<file>#<layer>[<index>]`, its file named as written in `policy`",
                    ),
                );
            }
        };
        for case in &self.cases {
            let at = format!("cases[{}]", case.index);
            if let Some(id) = &case.expect.hook.value {
                check(id, case.expect.hook.span, format!("{at}.expect.hook"));
            }
            for (i, d) in case.disabled.iter().enumerate() {
                check(&d.value, d.span, format!("{at}.disabled[{i}]"));
            }
        }
        if diags.is_empty() {
            Ok(())
        } else {
            Err(self.invalid(diags))
        }
    }

    /// Runs every case against `policy` (whose ids [`TestFile::check_ids`]
    /// accepted).
    pub fn run(&self, policy: &Policy) -> Vec<TestResult> {
        self.cases
            .iter()
            .map(|case| run_case(policy, case, self.location(case.span)))
            .collect()
    }
}

/// Reads a test file's structure and reports every problem.
struct CaseReader<'a> {
    dir: &'a Path,
    diags: Vec<Diagnostic>,
}

type Parts = (Span, Option<Vec<PolicyFile>>, Vec<TestCase>);

impl CaseReader<'_> {
    fn wrong_shape(&mut self, node: &Node, at: &str, expected: &str) {
        self.diags.push(
            Diagnostic::new(
                Code::WrongShape,
                format!("expected {expected}, found {}", node.kind_name()),
            )
            .at(node.span)
            .node(at),
        );
    }

    /// The entries of a mapping with only `allowed` keys (others reported).
    fn mapping<'n>(
        &mut self,
        node: &'n Node,
        at: &str,
        what: &str,
        allowed: &[&str],
    ) -> Option<&'n [(Key, Node)]> {
        let Some(entries) = node.as_map() else {
            self.wrong_shape(node, at, what);
            return None;
        };
        for (key, _) in entries {
            if !allowed.contains(&key.name.as_str()) {
                let path = if at.is_empty() {
                    key.name.clone()
                } else {
                    format!("{at}.{}", key.name)
                };
                self.diags.push(
                    Diagnostic::new(Code::UnknownKey, format!("unknown key `{}`", key.name))
                        .at(key.span)
                        .node(path)
                        .maybe_help(suggest::help_for(&key.name, allowed.iter().copied())),
                );
            }
        }
        Some(entries)
    }

    fn missing(&mut self, node: &Node, at: &str, key: &str, help: &str) {
        // At the mapping's first line: where the key would go.
        let span = Span::new(
            node.span.file,
            node.span.start as usize,
            node.span.start as usize,
        );
        self.diags.push(
            Diagnostic::new(Code::MissingKey, format!("missing key `{key}`"))
                .at(span)
                .label(format!("`{key}` missing"))
                .node(at)
                .help(help),
        );
    }

    fn string(&mut self, node: &Node, at: &str) -> Option<String> {
        match &node.kind {
            NodeKind::Str(s) if !s.is_empty() => Some(s.clone()),
            _ => {
                self.wrong_shape(node, at, "a non-empty string");
                None
            }
        }
    }

    fn file(&mut self, root: &Node, name: &str, file: FileId) -> Option<Parts> {
        if root.kind == NodeKind::Null {
            self.diags.push(
                Diagnostic::new(Code::MissingKey, "the test file is empty")
                    .at(Span::new(file, 0, 0))
                    .help("give `policy: [FILE]` and `cases:` with a list of cases"),
            );
            return None;
        }
        let Some(entries) = root.as_map() else {
            self.diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!(
                        "expected a mapping with `policy` and `cases`, found {}",
                        root.kind_name()
                    ),
                )
                .at(root.span)
                .help(format!(
                    "`{name}` should be a mapping: `policy: [FILE]` and `cases:`"
                )),
            );
            return None;
        };
        self.mapping(root, "", "a mapping", FILE_KEYS);
        let mut policy = None;
        let mut cases = None;
        for (key, value) in entries {
            match key.name.as_str() {
                "policy" => policy = self.policy(value),
                "cases" => cases = self.cases(value),
                _ => {}
            }
        }
        if root.get("cases").is_none() {
            self.missing(root, "cases", "cases", "add `cases:` with a list of cases");
        }
        Some((root.span, policy, cases.unwrap_or_default()))
    }

    fn policy(&mut self, value: &Node) -> Option<Vec<PolicyFile>> {
        let one = |this: &mut Self, node: &Node, at: &str| {
            let rel = this.string(node, at)?;
            let name = files::join_lexically(Path::new(""), Path::new(&rel));
            let path = files::join_lexically(this.dir, Path::new(&rel));
            Some(PolicyFile::named(name.display().to_string(), path))
        };
        match &value.kind {
            NodeKind::Seq(items) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, item)| one(self, item, &format!("policy[{i}]")))
                .collect(),
            NodeKind::Str(_) => one(self, value, "policy").map(|f| vec![f]),
            _ => {
                self.wrong_shape(value, "policy", "a path or a non-empty list of paths");
                None
            }
        }
    }

    fn cases(&mut self, value: &Node) -> Option<Vec<TestCase>> {
        let Some(items) = value.as_seq() else {
            self.wrong_shape(value, "cases", "a list of cases");
            return None;
        };
        let mut out: Vec<TestCase> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let Some(case) = self.case(item, index) else {
                continue;
            };
            if let Some(first) = out.iter().find(|c| c.name == case.name) {
                let name_span = item.get("name").map_or(item.span, |n| n.span);
                let first_name = first.name.clone();
                self.diags.push(
                    Diagnostic::new(
                        Code::DuplicateDefinition,
                        format!("two cases are named `{first_name}`"),
                    )
                    .at(name_span)
                    .label("named again here")
                    .node(format!("cases[{index}].name"))
                    .help("give every case its own name: failures are reported by name"),
                );
            }
            out.push(case);
        }
        Some(out)
    }

    fn case(&mut self, node: &Node, index: usize) -> Option<TestCase> {
        let at = format!("cases[{index}]");
        let entries = self.mapping(node, &at, "a case (a mapping)", CASE_KEYS)?;
        let errors_before = self.diags.len();
        let mut name = None;
        let mut event = None;
        let mut context = Value::Object(Map::new());
        let mut disabled = Vec::new();
        let mut expect = None;
        for (key, value) in entries {
            let here = format!("{at}.{}", key.name);
            match key.name.as_str() {
                "name" => name = self.string(value, &here),
                "event" => event = self.string(value, &here),
                "context" => match &value.kind {
                    NodeKind::Map(_) => context = value.to_json(),
                    NodeKind::Null => {}
                    _ => self.wrong_shape(value, &here, "a mapping (the event context)"),
                },
                "disabled" => match value.as_seq() {
                    Some(items) => {
                        for (i, item) in items.iter().enumerate() {
                            if let Some(id) = self.string(item, &format!("{here}[{i}]")) {
                                disabled.push(Spanned::new(id, item.span));
                            }
                        }
                    }
                    None => self.wrong_shape(value, &here, "a list of hook ids"),
                },
                "expect" => expect = self.expect(value, &here),
                _ => {}
            }
        }
        for (key, help) in [
            ("name", "name the case: `name: rate limited`"),
            ("event", "give the event to evaluate: `event: error`"),
            (
                "expect",
                "say what should happen: `expect: {hook: ID}` (`hook: null` for no match)",
            ),
        ] {
            if node.get(key).is_none() {
                self.missing(node, &at, key, help);
            }
        }
        if self.diags.len() > errors_before {
            return None;
        }
        Some(TestCase {
            name: name?,
            event: event?,
            context,
            disabled,
            expect: expect?,
            span: node.span,
            index,
        })
    }

    fn expect(&mut self, node: &Node, at: &str) -> Option<Expect> {
        let entries = self.mapping(
            node,
            at,
            "a mapping with `hook` (and `action`)",
            EXPECT_KEYS,
        )?;
        let mut hook = None;
        let mut action = None;
        for (key, value) in entries {
            let here = format!("{at}.{}", key.name);
            match key.name.as_str() {
                "hook" => match &value.kind {
                    NodeKind::Null => hook = Some(Spanned::new(None, value.span)),
                    _ => {
                        hook = self
                            .string(value, &here)
                            .map(|id| Spanned::new(Some(id), value.span));
                    }
                },
                "action" => match value.to_json() {
                    Value::Object(fields) if !fields.is_empty() => action = Some(fields),
                    _ => self.wrong_shape(value, &here, "a non-empty mapping of action fields"),
                },
                _ => {}
            }
        }
        if node.get("hook").is_none() {
            self.missing(
                node,
                at,
                "hook",
                "give the hook that should win, or `hook: null` for no match",
            );
            return None;
        }
        let hook = hook?;
        if hook.value.is_none() && action.is_some() {
            let span = node.get("action").map_or(node.span, |a| a.span);
            self.diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    "`action` given, but `hook: null` expects no match",
                )
                .at(span)
                .node(format!("{at}.action"))
                .help("remove `action`, or name the hook that should win"),
            );
            return None;
        }
        Some(Expect { hook, action })
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
    /// The right hook, but an action field differs.
    ActionField {
        /// The field.
        field: String,
        /// What the case expects.
        expected: Value,
        /// What the action has (`None`: the action has no such field).
        actual: Option<Value>,
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
    /// The expectation as JSON: `{"hook": ID|null, "action"?: {...}}`.
    pub expected: Value,
    /// What `evaluate` returned: `{"hook", "action"}` or `null`.
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

/// Evaluates one case (both ways) and compares the result.
pub fn run_case(policy: &Policy, case: &TestCase, location: String) -> TestResult {
    let ids = case.disabled.iter().map(|d| d.value.as_str());
    let (overrides, mut mismatches) = match policy.overrides(ids) {
        Ok(o) => (o, Vec::new()),
        // `check_ids` accepts only known ids; should one still be unknown,
        // the case fails rather than run with the hook switched on.
        Err(e) => (Default::default(), vec![Mismatch::Overrides(e.to_string())]),
    };
    // The case runs from the parsed context and from its JSON text: the two
    // must agree (a disagreement is a bug in hookc, reported as such).
    let answer = |ctx: Context<'_>| {
        policy
            .query(&case.event, ctx)
            .with_overrides(&overrides)
            .first()
            .map_err(|e| e.to_string())
    };
    let by_value = answer(Context::Value(&case.context));
    let by_text = serde_json::to_vec(&case.context)
        .map_err(|e| e.to_string())
        .and_then(|text| answer(Context::json(&text)))
        .map(|m| m.as_ref().map_or(Value::Null, Match::to_json));
    let matched = by_value.as_ref().ok().and_then(Option::as_ref);
    let actual = match &by_value {
        Ok(m) => m.as_ref().map_or(Value::Null, Match::to_json),
        Err(e) => json!({ "error": e }),
    };
    if by_text.as_ref() != Ok(&actual) {
        mismatches.push(Mismatch::Disagreement {
            value: actual.clone(),
            json: by_text,
        });
    }
    let expected_hook = case.expect.hook.value.as_deref();
    let actual_hook = matched.map(|m| m.hook);
    if expected_hook != actual_hook {
        mismatches.push(Mismatch::Hook {
            expected: expected_hook.map(str::to_owned),
            actual: actual_hook.map(str::to_owned),
        });
    } else if let (Some(fields), Some(m)) = (&case.expect.action, matched) {
        for (field, want) in fields {
            let got = m.action.get(field);
            if got != Some(want) {
                mismatches.push(Mismatch::ActionField {
                    field: field.clone(),
                    expected: want.clone(),
                    actual: got.cloned(),
                });
            }
        }
    }
    let mut expected = Map::new();
    expected.insert(
        "hook".into(),
        expected_hook.map_or(Value::Null, Value::from),
    );
    if let Some(fields) = &case.expect.action {
        expected.insert("action".into(), Value::Object(fields.clone()));
    }
    let trace = if mismatches.is_empty() {
        None
    } else {
        policy
            .query(&case.event, &case.context)
            .with_overrides(&overrides)
            .explain()
            .ok()
    };
    TestResult {
        name: case.name.clone(),
        location,
        event: case.event.clone(),
        expected: Value::Object(expected),
        actual,
        mismatches,
        trace,
    }
}

/// Where the policy comes from when running test files.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Policy files for every test file (`--policy`), named as given,
    /// replacing what the test files name.
    pub policy: Vec<PathBuf>,
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
    let policy = files::load_policy(&policy_files).map_err(|error| FileError::Policy {
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
    pub fn exit_code(&self) -> u8 {
        if self.errors() > 0 {
            2
        } else if self.failed() > 0 {
            1
        } else {
            0
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
        Mismatch::Hook { expected, actual: got } => {
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
        Mismatch::ActionField {
            field,
            expected,
            actual,
        } => match actual {
            Some(a) => format!("action field `{field}`: expected {expected}, actual {a}\n"),
            None => format!("action field `{field}`: expected {expected}, actual: the action has no `{field}`\n"),
        },
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
                Mismatch::ActionField {
                    field,
                    expected,
                    actual,
                } => json!({"what": "action_field", "field": field, "expected": expected, "actual": actual}),
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

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use hookc::compile::Input;

    const POLICY: &str = r#"
hooks:
  - id: rate_limited
    event: error
    priority: 10
    when: "classification.category == 'rate_limited'"
    action: {type: retry, max_attempts: 5, backoff_policy: exponential}
  - id: anything
    event: error
    action: {type: fail, error_message: "failed: ${error.code}"}
"#;

    fn policy() -> Policy {
        hookc::compile::policy_from_sources(&[Input::new("p.yaml", POLICY)]).unwrap()
    }

    fn parse(text: &str) -> Result<TestFile, Invalid> {
        TestFile::parse("t.test.yaml", text, Path::new("dir"))
    }

    fn codes(invalid: &Invalid) -> Vec<(&str, Option<&str>)> {
        invalid
            .diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.node_path.as_deref()))
            .collect()
    }

    #[test]
    fn parses_cases_and_resolves_policy_paths_against_the_test_file() {
        let t = parse(
            "policy: [../p.yaml, q.xml]\ncases:\n  - name: a\n    event: error\n    disabled: [x]\n    expect: {hook: null}\n",
        )
        .unwrap();
        let names: Vec<_> = t
            .policy()
            .unwrap()
            .iter()
            .map(|f| (f.name.as_str(), f.path.clone()))
            .collect();
        assert_eq!(
            names,
            [
                ("../p.yaml", PathBuf::from("p.yaml")),
                ("q.xml", PathBuf::from("dir/q.xml"))
            ]
        );
        let case = &t.cases[0];
        assert_eq!((case.name.as_str(), case.event.as_str()), ("a", "error"));
        assert_eq!(case.context, json!({}));
        assert_eq!(case.disabled[0].value, "x");
        assert_eq!(case.expect.hook.value, None);
        assert_eq!(t.location(case.span), "t.test.yaml:3:5");
    }

    #[test]
    fn structural_mistakes_are_diagnostics_with_node_paths() {
        let invalid = parse(
            "policy: p.yaml\ncases:\n  - name: a\n    evnt: error\n    expect: {hook: h, action: {type: abort}, extra: 1}\n  - name: a\n    event: error\n    expect: {hook: null, action: {type: abort}}\n",
        )
        .unwrap_err();
        assert_eq!(
            codes(&invalid),
            [
                ("E0100", Some("cases[0].evnt")),
                ("E0100", Some("cases[0].expect.extra")),
                ("E0101", Some("cases[0]")),
                ("E0102", Some("cases[1].expect.action")),
            ]
        );
        assert_eq!(
            invalid.diagnostics[0].help.as_deref(),
            Some("did you mean `event`?")
        );
        let text = invalid.render();
        assert!(text.contains("t.test.yaml:4:5"), "{text}");
    }

    #[test]
    fn duplicate_case_names_and_missing_cases_are_errors() {
        let dup = parse("cases:\n  - {name: a, event: e, expect: {hook: null}}\n  - {name: a, event: e, expect: {hook: null}}\n").unwrap_err();
        assert_eq!(codes(&dup), [("E0110", Some("cases[1].name"))]);
        let none = parse("policy: p.yaml\n").unwrap_err();
        assert_eq!(codes(&none), [("E0101", Some("cases"))]);
        let yaml = parse("cases: [\n").unwrap_err();
        assert_eq!(yaml.diagnostics[0].code, Code::YamlSyntax);
    }

    #[test]
    fn unknown_hook_ids_are_reported_with_a_did_you_mean() {
        let t = parse("cases:\n  - {name: a, event: error, disabled: [anythin], expect: {hook: rate_limitd}}\n").unwrap();
        let invalid = t.check_ids(&policy()).unwrap_err();
        let helps: Vec<_> = invalid
            .diagnostics
            .iter()
            .map(|d| d.help.as_deref())
            .collect();
        assert_eq!(
            helps,
            [
                Some("did you mean `rate_limited`?"),
                Some("did you mean `anything`?")
            ]
        );
        assert_eq!(
            invalid.diagnostics[0].node_path.as_deref(),
            Some("cases[0].expect.hook")
        );
    }

    fn run_one(case_yaml: &str) -> TestResult {
        let t = parse(&format!("cases:\n  - {case_yaml}\n")).unwrap();
        let p = policy();
        t.check_ids(&p).unwrap();
        t.run(&p).remove(0)
    }

    #[test]
    fn a_passing_case_compares_only_the_given_action_fields() {
        let r = run_one(
            "{name: a, event: error, context: {classification: {category: rate_limited}}, expect: {hook: rate_limited, action: {max_attempts: 5}}}",
        );
        assert!(r.passed(), "{r:?}");
        assert_eq!(r.trace, None);
        assert_eq!(r.actual["hook"], "rate_limited");
    }

    #[test]
    fn a_failing_case_names_every_difference_and_carries_the_trace() {
        let r = run_one(
            "{name: a, event: error, context: {error: {code: E1}}, expect: {hook: anything, action: {error_message: \"failed: E2\", delay: 1}}}",
        );
        assert_eq!(
            r.mismatches,
            [
                Mismatch::ActionField {
                    field: "error_message".into(),
                    expected: json!("failed: E2"),
                    actual: Some(json!("failed: E1")),
                },
                Mismatch::ActionField {
                    field: "delay".into(),
                    expected: json!(1),
                    actual: None,
                },
            ]
        );
        let trace = r.trace.unwrap();
        assert_eq!(trace.hooks.len(), 2);
        assert_eq!(trace.winner, Some(1));
        // JSON types count: `5` is not `"5"`.
        let r = run_one(
            "{name: a, event: error, context: {classification: {category: rate_limited}}, expect: {hook: rate_limited, action: {max_attempts: \"5\"}}}",
        );
        assert!(!r.passed());
    }

    #[test]
    fn disabled_hooks_are_switched_off_for_the_case() {
        let r = run_one("{name: a, event: error, disabled: [anything], expect: {hook: null}}");
        assert!(r.passed(), "{r:?}");
        let r = run_one("{name: a, event: error, expect: {hook: null}}");
        assert_eq!(
            r.mismatches,
            [Mismatch::Hook {
                expected: None,
                actual: Some("anything".into())
            }]
        );
    }
}
