//! Reading a test file: the YAML, with spans, into [`TestFile`] and its
//! [`TestCase`]s, every mistake a diagnostic with a did-you-mean.

use hookc::diag::{render, Code, Diagnostic};
use hookc::files::{self, PolicyError, PolicyFile, ReadError};
use hookc::frontend::doc::{Key, Node, NodeKind};
use hookc::frontend::yaml_doc;
use hookc::span::{FileId, SourceMap, Span, Spanned};
use hookc::suggest;
use hookc_runtime::Policy;
use serde_json::{json, Map, Value};
use std::path::Path;
use thiserror::Error;

/// The keys of a test file.
pub const FILE_KEYS: &[&str] = &["policy", "ignore_unknown_disables", "cases"];
/// The keys of a case.
pub const CASE_KEYS: &[&str] = &["name", "event", "context", "disabled", "results", "expect"];
/// The keys of a case's `expect`.
pub const EXPECT_KEYS: &[&str] = &[
    "hook",
    "action",
    "collected",
    "error",
    "pending",
    "transforms",
    "patched",
    "errors",
];
/// The keys of an entry of `expect.collected`.
pub const COLLECTED_KEYS: &[&str] = &["hook", "action"];

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
    /// `ignore_unknown_disables: true`: an id in a case's `disabled` that
    /// the policy does not know is ignored (a host whose run overrides
    /// treat it as a no-op), not an error.
    ignore_unknown_disables: bool,
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
    /// The host's results for awaited hooks, by hook id
    /// (`docs/src/semantics.md#resumable-decisions`).
    pub results: Map<String, Value>,
    /// The ids of `results`, where each is written.
    pub result_ids: Vec<Spanned<String>>,
    /// What the policy should do.
    pub expect: Expect,
    /// Where the case is written (its mapping).
    pub span: Span,
    /// Its position in `cases`, for node paths.
    index: usize,
}

/// What a case expects: at least one of `hook`, `collected` and `error`
/// (a test must assert something).
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    /// The hook that decides (the first terminal match), or `None` for
    /// "no hook decides"; not compared when the case does not give it
    /// (`None` here: it checks only `collected`).
    pub hook: Option<Spanned<Option<String>>>,
    /// The action fields to compare (only these).
    pub action: Option<Map<String, Value>>,
    /// The collected matches, exactly and in order, when the case says
    /// (`collected: [...]`); not compared when it does not.
    pub collected: Option<Vec<ExpectCollected>>,
    /// `error: TEXT`: the evaluation fails (an action parameter outside its
    /// declared type) with a message containing TEXT. A case gives either
    /// this or `hook`, never both.
    pub error: Option<Spanned<String>>,
    /// What the decision model adds, each compared only when given.
    pub model: ExpectModel,
}

/// The decision model's parts of an expectation
/// (`docs/src/semantics.md#action-effects`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExpectModel {
    /// `pending: ID | null | {hook: ID, action: {...}}`: the awaited hook
    /// the evaluation suspends at (and the fields of its action to compare).
    pub pending: Option<Option<ExpectCollected>>,
    /// `transforms: [ID, ...]`: the transforms applied, in order.
    pub transforms: Option<Vec<String>>,
    /// `patched: {member: value}`: these patched context members' final
    /// values (only these).
    pub patched: Option<Map<String, Value>>,
    /// `errors: [ID, ...]`: the hooks that could not decide, in order.
    pub errors: Option<Vec<String>>,
}

impl ExpectModel {
    /// Whether the case expects anything of the model.
    pub fn is_empty(&self) -> bool {
        *self == ExpectModel::default()
    }
}

/// One expected collected match: `ID`, or `{hook: ID, action: {...}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectCollected {
    /// The collected hook's id.
    pub hook: Spanned<String>,
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
            Some(Parts {
                root,
                policy,
                ignore_unknown_disables,
                cases,
            }) if reader.diags.is_empty() => Ok(TestFile {
                name: name.to_owned(),
                sources,
                root,
                policy,
                ignore_unknown_disables,
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

    /// Checks that every hook id the cases name (`expect.hook`,
    /// `expect.collected`, `disabled`) is a hook of `policy` (`disabled`
    /// may name any id with `ignore_unknown_disables: true`).
    pub fn check_ids(&self, policy: &Policy) -> Result<(), Invalid> {
        let ids: Vec<&str> = policy.hook_ids().collect();
        let absent: Vec<&str> = policy.absent_hook_ids().collect();
        let mut diags = Vec::new();
        // `disabled` may name a hook the policy leaves out (a no-op);
        // `expect.hook` must name one that can match.
        let mut check = |id: &str, span: Span, at: String, may_be_absent: bool| {
            if absent.contains(&id) && !may_be_absent {
                diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!("the hook `{id}` is left out of the policy: it never matches"),
                    )
                    .at(span)
                    .label("disabled or replaced")
                    .node(at)
                    .help("expect the hook that runs instead, or `hook: null`"),
                );
            } else if !ids.contains(&id) && !absent.contains(&id) {
                diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!("the policy has no hook with the id `{id}`"),
                    )
                    .at(span)
                    .label("not a hook of the policy")
                    .node(at)
                    .maybe_help(suggest::help_for(id, ids.iter().chain(&absent).copied()))
                    .note(
                        "the policy's hooks include those it leaves out (disabled or replaced); \
                         a hook without `id` is `<file>#<layer>[<index>]`, its file named as \
                         written in `policy`",
                    ),
                );
            }
        };
        for case in &self.cases {
            let at = format!("cases[{}]", case.index);
            if let Some(Spanned {
                value: Some(id),
                span,
            }) = &case.expect.hook
            {
                check(id, *span, format!("{at}.expect.hook"), false);
            }
            for (i, c) in case.expect.collected.iter().flatten().enumerate() {
                check(
                    &c.hook.value,
                    c.hook.span,
                    format!("{at}.expect.collected[{i}]"),
                    false,
                );
            }
            if !self.ignore_unknown_disables {
                for (i, d) in case.disabled.iter().enumerate() {
                    check(&d.value, d.span, format!("{at}.disabled[{i}]"), true);
                }
            }
        }
        for case in &self.cases {
            let at = format!("cases[{}]", case.index);
            // A result for no hook (a typo) would leave the case's
            // decision pending, silently.
            for r in &case.result_ids {
                if let Some(why) = hookc_binding::bound::unknown_result(policy, &r.value) {
                    diags.push(
                        Diagnostic::new(Code::WrongShape, why)
                            .at(r.span)
                            .label("not a hook of the policy")
                            .node(format!("{at}.results.{}", r.value))
                            .help("give results by the id of a hook whose action awaits one (`run`, `test_path`, a host action)"),
                    );
                }
            }
        }
        if diags.is_empty() {
            Ok(())
        } else {
            Err(self.invalid(diags))
        }
    }

    /// The cases, in file order.
    pub fn cases(&self) -> &[TestCase] {
        &self.cases
    }

    /// Whether an unknown id in a case's `disabled` is ignored
    /// (`ignore_unknown_disables: true`).
    pub fn ignores_unknown_disables(&self) -> bool {
        self.ignore_unknown_disables
    }
}

/// Reads a test file's structure and reports every problem.
struct CaseReader<'a> {
    dir: &'a Path,
    diags: Vec<Diagnostic>,
}

/// What a test file gives, read.
struct Parts {
    /// The whole document.
    root: Span,
    policy: Option<Vec<PolicyFile>>,
    ignore_unknown_disables: bool,
    cases: Vec<TestCase>,
}

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
        let mut ignore_unknown_disables = false;
        for (key, value) in entries {
            match key.name.as_str() {
                "policy" => policy = self.policy(value),
                "cases" => cases = self.cases(value),
                "ignore_unknown_disables" => match value.kind {
                    NodeKind::Bool(b) => ignore_unknown_disables = b,
                    _ => self.wrong_shape(value, &key.name, "`true` or `false`"),
                },
                _ => {}
            }
        }
        if root.get("cases").is_none() {
            self.missing(root, "cases", "cases", "add `cases:` with a list of cases");
        }
        Some(Parts {
            root: root.span,
            policy,
            ignore_unknown_disables,
            cases: cases.unwrap_or_default(),
        })
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
        let mut results = Map::new();
        let mut result_ids = Vec::new();
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
                "results" => match value.to_json() {
                    Value::Object(map) => {
                        results = map;
                        if let NodeKind::Map(entries) = &value.kind {
                            result_ids = entries
                                .iter()
                                .map(|(k, _)| Spanned::new(k.name.clone(), k.span))
                                .collect();
                        }
                    }
                    Value::Null => {}
                    _ => self.wrong_shape(
                        value,
                        &here,
                        "a mapping of awaited hooks' results by hook id",
                    ),
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
            results,
            result_ids,
            expect: expect?,
            span: node.span,
            index,
        })
    }

    fn expect(&mut self, node: &Node, at: &str) -> Option<Expect> {
        let entries = self.mapping(
            node,
            at,
            "a mapping with `hook` (and `action`, `collected`), or with `error`",
            EXPECT_KEYS,
        )?;
        let mut hook = None;
        let mut action = None;
        let mut collected = None;
        let mut error = None;
        let mut model = ExpectModel::default();
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
                "action" => action = self.action_fields(value, &here),
                "pending" => match &value.kind {
                    NodeKind::Null => model.pending = Some(None),
                    _ => model.pending = self.collected(value, &here).map(Some),
                },
                "transforms" => model.transforms = self.ids(value, &here),
                "errors" => model.errors = self.ids(value, &here),
                "patched" => match value.to_json() {
                    Value::Object(members) => model.patched = Some(members),
                    _ => self.wrong_shape(value, &here, "a mapping of context members"),
                },
                "error" => {
                    error = self
                        .string(value, &here)
                        .map(|text| Spanned::new(text, value.span))
                }
                "collected" => match value.as_seq() {
                    Some(items) => {
                        collected = Some(
                            items
                                .iter()
                                .enumerate()
                                .filter_map(|(i, item)| {
                                    self.collected(item, &format!("{here}[{i}]"))
                                })
                                .collect(),
                        );
                    }
                    None => self.wrong_shape(
                        value,
                        &here,
                        "a list of collected hooks (`ID` or `{hook: ID, action: {...}}`)",
                    ),
                },
                _ => {}
            }
        }
        if node.get("error").is_some() {
            if let Some((key, _)) = entries
                .iter()
                .find(|(k, _)| matches!(k.name.as_str(), "hook" | "action" | "collected"))
            {
                self.diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!(
                            "`error` and `{}` given: an evaluation that fails decides nothing",
                            key.name
                        ),
                    )
                    .at(key.span)
                    .node(format!("{at}.{}", key.name))
                    .help("expect either the error or the decision"),
                );
                return None;
            }
            return Some(Expect {
                hook: None,
                action: None,
                collected: None,
                error: Some(error?),
                model: ExpectModel::default(),
            });
        }
        if node.get("hook").is_none() {
            if node.get("action").is_some() {
                let span = node.get("action").map_or(node.span, |a| a.span);
                self.diags.push(
                    Diagnostic::new(Code::WrongShape, "`action` given without `hook`")
                        .at(span)
                        .node(format!("{at}.action"))
                        .help("name the hook whose action it is: `hook: ID`"),
                );
                return None;
            }
            if node.get("collected").is_none() && model.is_empty() {
                // A test must assert something.
                self.missing(
                    node,
                    at,
                    "hook",
                    "give the hook that should win (`hook: null` for no match), the `collected` \
                     matches, or the `error` the evaluation fails with",
                );
                return None;
            }
        }
        let hook = match (hook, node.get("hook")) {
            (Some(hook), _) => Some(hook),
            // Given, but not an id: already reported.
            (None, Some(_)) => return None,
            (None, None) => None,
        };
        if hook.as_ref().is_some_and(|h| h.value.is_none()) && action.is_some() {
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
        Some(Expect {
            hook,
            action,
            collected,
            error: None,
            model,
        })
    }

    /// A list of hook ids (`transforms: [a, b]`).
    fn ids(&mut self, value: &Node, at: &str) -> Option<Vec<String>> {
        let Some(items) = value.as_seq() else {
            self.wrong_shape(value, at, "a list of hook ids");
            return None;
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.string(item, &format!("{at}[{i}]")))
            .collect()
    }

    /// `action: {...}` of an expectation: the fields to compare.
    fn action_fields(&mut self, value: &Node, at: &str) -> Option<Map<String, Value>> {
        match value.to_json() {
            Value::Object(fields) if !fields.is_empty() => Some(fields),
            _ => {
                self.wrong_shape(value, at, "a non-empty mapping of action fields");
                None
            }
        }
    }

    /// One entry of `expect.collected`: `ID` or `{hook: ID, action: {...}}`.
    fn collected(&mut self, node: &Node, at: &str) -> Option<ExpectCollected> {
        if let NodeKind::Str(_) = node.kind {
            let id = self.string(node, at)?;
            return Some(ExpectCollected {
                hook: Spanned::new(id, node.span),
                action: None,
            });
        }
        let entries = self.mapping(
            node,
            at,
            "a hook id, or a mapping with `hook` (and `action`)",
            COLLECTED_KEYS,
        )?;
        let mut hook = None;
        let mut action = None;
        for (key, value) in entries {
            let here = format!("{at}.{}", key.name);
            match key.name.as_str() {
                "hook" => {
                    hook = self
                        .string(value, &here)
                        .map(|id| Spanned::new(id, value.span))
                }
                "action" => action = self.action_fields(value, &here),
                _ => {}
            }
        }
        if node.get("hook").is_none() {
            self.missing(node, at, "hook", "give the id of the collected hook");
        }
        Some(ExpectCollected {
            hook: hook?,
            action,
        })
    }
}
