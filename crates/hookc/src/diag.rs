//! Diagnostics: the stable codes, the [`Diagnostic`] every stage reports, and
//! the collection a compilation accumulates.
//!
//! Rendering (human with a source snippet, or JSON) lives in [`render`].
//!
//! Invariant: a code's meaning never changes once released; a retired code is
//! never reused. Every code has a golden test in `tests/diagnostics/`.

pub mod render;

use crate::span::Span;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Compilation fails.
    Error,
    /// Reported; fails the build only with `--deny-warnings`.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, $sev:ident, $title:literal; )*) => {
        /// A stable diagnostic code. `E…` codes are errors, `W…` warnings.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as printed, e.g. `E0301`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// Whether it is an error or a warning.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)* }
            }

            /// A one-line title: the heading of the code in the guide's
            /// diagnostics reference (`docs/src/reference/diagnostics.md`).
            pub fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }
        }
    };
}

codes! {
    // ---- E00xx: reading the input -------------------------------------------
    /// The YAML parser rejected the file.
    YamlSyntax = "E0001", Error, "malformed YAML";
    /// The XML parser rejected the file.
    XmlSyntax = "E0002", Error, "malformed XML";
    /// An expression (a `when`, a path, a template) does not parse.
    ExprSyntax = "E0003", Error, "expression syntax error";
    /// Nesting past a limit of `limits.rs` (expression, YAML, XML, condition tree).
    TooDeep = "E0004", Error, "nesting too deep";
    /// A literal that cannot be represented: bad escape, integer out of range.
    BadLiteral = "E0005", Error, "invalid literal";
    /// An input is larger than a limit of `limits.rs` (file size, hook count, alias
    /// expansion, the length of a string or list constant).
    TooLarge = "E0006", Error, "input too large";

    // ---- E01xx: document structure ------------------------------------------
    /// A key or attribute that the format does not have.
    UnknownKey = "E0100", Error, "unknown key";
    /// A mapping repeats a key.
    DuplicateKey = "E0113", Error, "duplicate key";
    /// A required key or attribute is missing.
    MissingKey = "E0101", Error, "missing key";
    /// A key has a value of the wrong shape (a list where a string is expected, ...).
    WrongShape = "E0102", Error, "value of the wrong shape";
    /// A hook gives both `condition` and `when` (or `when` twice in XML).
    ConditionAndWhen = "E0103", Error, "both `condition` and `when`";
    /// Two hooks share an id.
    DuplicateId = "E0104", Error, "duplicate hook id";
    /// `schema_version` is malformed or of another major version.
    SchemaVersion = "E0105", Error, "unsupported schema_version";
    /// A condition leaf names an operator hookc does not have.
    UnknownOperator = "E0106", Error, "unknown operator";
    /// A condition leaf without the `value` its operator needs, or with one it must not have.
    LeafValue = "E0107", Error, "condition leaf value missing or misplaced";
    /// A `path` that is not a path (`a.b['c'][0]`).
    InvalidPath = "E0108", Error, "invalid path";
    /// An XML `<hook>` without exactly one action element.
    HookAction = "E0109", Error, "hook without exactly one action";
    /// `event_context_schema` given by two files, or an action type defined twice.
    DuplicateDefinition = "E0110", Error, "defined twice";
    /// A `matches` value that is not a supported JSON-Schema fragment.
    MatchesSchema = "E0111", Error, "unsupported `matches` schema";
    /// A hook listens to no event, or to an empty event name.
    NoEvent = "E0112", Error, "hook listens to no event";
    /// A hook listens to an event the policy's `events:` does not declare.
    UndeclaredEvent = "E0114", Error, "event not declared";
    /// A policy names a host hookc has no profile for, or two hosts.
    UnknownHost = "E0115", Error, "unknown host";
    /// A local name (`let:`) declared twice in one scope, or named like a
    /// member of the context, which it would hide.
    LocalName = "E0116", Error, "local name declared twice or hiding a context member";

    // ---- E02xx: declarations --------------------------------------------------
    /// `event_context_schema` is not a valid schema of the supported subset.
    ContextSchema = "E0200", Error, "invalid event_context_schema";
    /// An `action_types` entry is not a valid action type definition.
    ActionTypeDef = "E0201", Error, "invalid action type definition";
    /// A `${path}` template in an item of an array parameter (or a whole
    /// template whose schema `items` are never the parameter's `items`)
    /// that can never fit the declared `items` type: the path's declared
    /// schema type, or a string with text around the reference, is none of
    /// the types `items` allows, or the schema's `enum` has no value the
    /// items' `enum` allows. (Templates into the parameter itself are
    /// E0403 and E0404.) Where a template may or may not fit, the value is
    /// checked at run time and a misfit is an evaluation error.
    TemplateType = "E0202", Error, "template can never fit the declared items type";

    // ---- E03xx: types ---------------------------------------------------------
    /// A path outside a closed (`additionalProperties: false`) object.
    UnknownPath = "E0300", Error, "path not in a closed schema";
    /// An operator or function applied to operands of types it does not take.
    TypeMismatch = "E0301", Error, "operand types do not fit the operator";
    /// A condition whose value is not a bool.
    NonBoolCondition = "E0302", Error, "condition is not a bool";
    /// `==`/`!=` between types that never compare equal.
    IncomparableTypes = "E0303", Error, "equality between unrelated types";
    /// A regex that does not compile.
    BadRegex = "E0304", Error, "invalid regular expression";
    /// A call of a function or method that does not exist.
    UnknownFunction = "E0305", Error, "unknown function";
    /// A call with the wrong number of arguments.
    WrongArity = "E0306", Error, "wrong number of arguments";
    /// `has()` of something other than a field selection.
    BadHasArgument = "E0307", Error, "`has()` needs a field selection";
    /// `matches()` or `glob()` with a pattern that is not a string literal
    /// (a YAML `regex`/`glob` value that is not a string).
    NonLiteralPattern = "E0308", Error, "pattern must be a literal";
    /// A glob that does not parse: an unclosed `[`, a trailing `\`, an empty
    /// or malformed class.
    BadGlob = "E0309", Error, "invalid glob pattern";
    /// A comparison with a string outside the path's `vocabulary` (a host
    /// profile's tool names): never true.
    OutsideVocabulary = "E0310", Error, "name outside the vocabulary";

    // ---- E04xx: actions -------------------------------------------------------
    /// An action type that is neither built in nor declared.
    UnknownActionType = "E0400", Error, "unknown action type";
    /// A parameter the action type does not declare.
    UnknownParameter = "E0401", Error, "unknown action parameter";
    /// A required parameter is missing.
    MissingParameter = "E0402", Error, "missing required parameter";
    /// A parameter value of the wrong type.
    ParameterType = "E0403", Error, "parameter of the wrong type";
    /// A parameter value outside the parameter's enum.
    ParameterEnum = "E0404", Error, "parameter value not allowed";
    /// A `${...}` template that does not parse.
    BadTemplate = "E0405", Error, "malformed template";
    /// A hook's action has an effect that a declared event of the hook does
    /// not allow (`effects:` of the event's declaration).
    EffectNotAllowed = "E0406", Error, "action effect not allowed on the event";

    // ---- W00xx: warnings ------------------------------------------------------
    /// A path outside the schema under an open object: typed `any`.
    PathNotInSchema = "W0001", Warning, "path not in the schema";
    /// A comparison with a value outside the schema's `enum`: never true.
    OutsideEnum = "W0002", Warning, "value outside the schema enum";
    /// The `operators` documentation section names an operator hookc does not have.
    UnknownDocOperator = "W0003", Warning, "documented operator does not exist";
    /// Earlier hooks for the same event always match whenever this one would.
    ShadowedHook = "W0004", Warning, "shadowed hook";
    /// A condition that is true in every context, or never true.
    ConstantCondition = "W0005", Warning, "condition always true or always false";
    /// An event that no other hook, known event or schema names.
    UnknownEvent = "W0006", Warning, "event named nowhere else";
    /// A template path the hook's condition does not guarantee to exist.
    UnguardedTemplate = "W0007", Warning, "template path not guaranteed by the condition";
    /// The same condition as an earlier hook on the same event.
    DuplicateCondition = "W0008", Warning, "duplicate condition";
    /// A hook marked `replace` with no hook of its id in a lower layer.
    NothingReplaced = "W0009", Warning, "replacement replaces nothing";
    /// `{name}` in an action's string where the `${name}` template was
    /// likely meant.
    BracesWithoutDollar = "W0010", Warning, "`{name}` where `${name}` was likely meant";
    /// `!=` or `!` in a `when` reading a path that may be absent: an error,
    /// not `true`, there.
    NegationOfAbsent = "W0011", Warning, "negation of a path that may be absent";
    /// Two transforms of one event patch the same context member: the
    /// later one in hook order wins.
    TransformOverlap = "W0012", Warning, "two transforms patch one member";
    /// A regex pattern holding a control character, which an escape of a
    /// non-raw string made (`\b` is a backspace there, not a word
    /// boundary).
    ControlInRegex = "W0013", Warning, "control character in a regex";
    /// An operand of `&&` or `||` that is a constant (`false`, or folds to
    /// one, like `1 == 1`): it decides the operation (`x && false`) or has
    /// no effect (`x && true`).
    ConstantOperand = "W0014", Warning, "constant operand of `&&` or `||`";
    /// A regex or glob written as a non-raw string whose backslashes are
    /// doubled (`"\\d+"`): a raw string says it as meant (`r"\d+"`).
    DoubledBackslashes = "W0015", Warning, "pattern needs a raw string";
    /// A string test (`startsWith`, `contains`, `endsWith`, `matches`,
    /// `==`) on a field the schema marks `format: shell-command`: the
    /// command's text is not what it runs.
    StringTestOnShell = "W0016", Warning, "string test on a shell command";
    /// A regex pattern that runs on the backtracking engine (look-around,
    /// a backreference, an atomic group): its time is not linear, and a
    /// search past the step limit is an evaluation error.
    BacktrackingRegex = "W0017", Warning, "regex needs backtracking";
    /// A comparison with a string outside the path's open `vocabulary` (a
    /// host's known tool names, to which new versions add): maybe never
    /// true.
    OutsideOpenVocabulary = "W0018", Warning, "name outside the known names";
    /// A string test on a field the schema marks `format: file-path`, in
    /// a hook that denies, asks or blocks: the text is one spelling of the
    /// file (`./.env`, `src/../.env`, `$HOME/...` are others).
    PathAsText = "W0019", Warning, "path tested as text";
    /// In a hook that denies, asks or blocks, a command of `shell.commands`
    /// tested on its raw words: `c.argv[0] == 'rm'` (`/bin/rm` keeps its
    /// directory there; `c.program` does not) or a flag as one exact word
    /// (`'-rf' in c.argv` misses `-fr`, `-r -f`; `c.hasFlag` reads them).
    RawArgvTest = "W0020", Warning, "program or flag tested on the raw words";
    /// A glob on a tool's name spelt as a permission rule
    /// (`tool_name.glob('Bash(git:*)')`): no tool's name matches it.
    PermissionRuleGlob = "W0021", Warning, "permission rule as a tool-name glob";
    /// A local name (`let:`) no condition uses: its expression is never
    /// evaluated, nor type-checked.
    UnusedLocal = "W0022", Warning, "local name never used";
    /// Under `on_error: fail` (or an error action), a `when` condition that
    /// is an error wherever a path the schema does not guarantee is absent:
    /// there the evaluation fails (or the error action decides).
    AbsentFailsEvaluation = "W0023", Warning, "an absent path fails the evaluation";
    /// A Unicode word boundary (`\b`) next to a part of a regex that
    /// matches non-ASCII characters, where JavaScript's and grep's ASCII
    /// `\b` would fall elsewhere.
    UnicodeWordBoundary = "W0024", Warning, "Unicode word boundary beside non-ASCII";
}

/// `a`, `a and b`, `a, b and c`: items listed in a message.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding, with everything a renderer needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// The stable code; it decides the severity.
    pub code: Code,
    /// What is wrong, lowercase, user input in backticks, no final period.
    pub message: String,
    /// Where; `None` only for findings about a whole compilation.
    pub span: Option<Span>,
    /// A short text under the caret.
    pub label: Option<String>,
    /// For YAML, the node path (`hooks[2].condition.all[0].op`).
    pub node_path: Option<String>,
    /// What to do about it (did-you-mean, the valid set).
    pub help: Option<String>,
    /// Further context.
    pub notes: Vec<String>,
    /// For findings that repeat across a file (one undeclared path read by
    /// a thousand hooks): what makes two of them the same finding. Findings
    /// of one code and file with the same key are reported once, with the
    /// count of the others ([`Diagnostics::fold_repeats`]).
    pub repeat_key: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with a code and message and nothing else yet.
    #[cold]
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span: None,
            label: None,
            node_path: None,
            help: None,
            notes: Vec::new(),
            repeat_key: None,
        }
    }

    /// Reports this finding once per file for all findings of its code with
    /// the same `key` (see [`Diagnostics::fold_repeats`]).
    pub fn once_per_file(mut self, key: impl Into<String>) -> Self {
        self.repeat_key = Some(key.into());
        self
    }

    /// Sets the location.
    pub fn at(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }

    /// Sets the caret label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets the YAML node path (kept if already set by an inner stage).
    pub fn node(mut self, path: impl Into<String>) -> Self {
        if self.node_path.is_none() {
            self.node_path = Some(path.into());
        }
        self
    }

    /// Sets the help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds the help line only when there is one.
    pub fn maybe_help(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The severity, from the code.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

/// The diagnostics of one compilation, in the order they were found.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
    /// Code, place and message of every recorded finding, to drop repeats.
    seen: std::collections::HashSet<(Code, Option<Span>, String)>,
    /// How many of `items` are errors: stages ask after every hook, so the
    /// count is kept, not recounted (issue 24, linear compile).
    errors: usize,
}

impl Diagnostics {
    /// None yet.
    pub fn new() -> Self {
        Diagnostics::default()
    }

    /// Records one, unless the same finding (code, place and message) is
    /// already recorded: desugared forms can check one source node twice
    /// (`exists` reads its path in `has(p)` and in `p != null`).
    pub fn push(&mut self, d: Diagnostic) {
        if self.seen.insert((d.code, d.span, d.message.clone())) {
            self.errors += usize::from(d.is_error());
            self.items.push(d);
        }
    }

    /// Whether any is an error.
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.errors
    }

    /// Number of warnings.
    pub fn warning_count(&self) -> usize {
        self.items.len() - self.error_count()
    }

    /// All of them.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.items.iter()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Sorts by file and position (stable: equal positions keep their order),
    /// so output does not depend on which stage found what first.
    pub fn sort(&mut self) {
        self.items
            .sort_by_key(|d| d.span.map(|s| (s.file, s.start, s.end)));
    }

    /// Keeps the first (in the current order) of the findings that share a
    /// code, a file and a [`Diagnostic::repeat_key`], and appends to its
    /// message how many others there were: a generated policy reading one
    /// undeclared path in 500 hooks gets one warning, not 500. Findings
    /// without a key are left alone.
    pub fn fold_repeats(&mut self) {
        use std::collections::hash_map::{Entry, HashMap};
        type Key = (Code, Option<crate::span::FileId>, String);
        // Each group's first finding (its index in `kept`) and its repeats.
        let mut groups: HashMap<Key, (usize, usize)> = HashMap::new();
        let mut kept: Vec<Diagnostic> = Vec::with_capacity(self.items.len());
        for d in std::mem::take(&mut self.items) {
            let Some(key) = d.repeat_key.clone() else {
                kept.push(d);
                continue;
            };
            match groups.entry((d.code, d.span.map(|s| s.file), key)) {
                Entry::Occupied(mut e) => e.get_mut().1 += 1,
                Entry::Vacant(e) => {
                    e.insert((kept.len(), 0));
                    kept.push(d);
                }
            }
        }
        for (first, repeats) in groups.into_values() {
            if let Some(d) = kept.get_mut(first).filter(|_| repeats > 0) {
                let uses = if repeats == 1 { "use" } else { "uses" };
                d.message
                    .push_str(&format!(" (and {repeats} more {uses} in this file)"));
            }
        }
        self.items = kept;
        self.recount();
    }

    /// Counts the errors again, after findings were dropped.
    fn recount(&mut self) {
        self.errors = self.items.iter().filter(|d| d.is_error()).count();
    }

    /// Keeps only the findings `keep` accepts, in order.
    pub fn retain(&mut self, keep: impl FnMut(&Diagnostic) -> bool) {
        self.items.retain(keep);
        self.recount();
    }

    /// Takes them out.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.items
    }
}

impl Extend<Diagnostic> for Diagnostics {
    fn extend<I: IntoIterator<Item = Diagnostic>>(&mut self, iter: I) {
        for d in iter {
            self.push(d);
        }
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// A count with `,` between thousands (`1000000` as `1,000,000`), as
/// messages and reports print numbers.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "duplicate code {s}");
            let prefix = match code.severity() {
                Severity::Error => 'E',
                Severity::Warning => 'W',
            };
            assert!(s.starts_with(prefix) && s.len() == 5, "bad code {s}");
        }
    }

    #[test]
    fn the_error_count_follows_pushes_repeats_retains_and_folds() {
        use crate::span::{FileId, Span};
        let at = |start: usize| Span::new(FileId(0), start, start + 1);
        let e = |start, key: &str| {
            Diagnostic::new(Code::TooLarge, format!("too large {key}"))
                .at(at(start))
                .once_per_file(key)
        };
        let w = |start| Diagnostic::new(Code::ShadowedHook, "s").at(at(start));
        let mut diags = Diagnostics::new();
        assert!(!diags.has_errors());
        diags.push(w(1));
        assert_eq!((diags.error_count(), diags.warning_count()), (0, 1));
        diags.push(e(2, "a"));
        diags.push(e(2, "a"));
        diags.push(e(3, "a"));
        diags.push(e(4, "b"));
        assert!(diags.has_errors());
        assert_eq!((diags.error_count(), diags.warning_count()), (3, 1));
        diags.fold_repeats();
        assert_eq!((diags.error_count(), diags.warning_count()), (2, 1));
        diags.retain(|d| !d.is_error());
        assert!(!diags.has_errors());
        assert_eq!((diags.error_count(), diags.warning_count()), (0, 1));
    }

    #[test]
    fn repeats_fold_into_the_first_per_code_file_and_key() {
        use crate::span::{FileId, Span};
        let at = |file: u32, start: usize| Span::new(FileId(file), start, start + 1);
        let w = |file, start, key: &str| {
            Diagnostic::new(
                Code::PathNotInSchema,
                format!("`{key}` is not in the schema"),
            )
            .at(at(file, start))
            .once_per_file(key)
        };
        let mut diags = Diagnostics::new();
        diags.push(w(0, 1, "a.b"));
        diags.push(w(0, 5, "a.b"));
        diags.push(w(0, 9, "a.b"));
        diags.push(w(0, 7, "a.c"));
        diags.push(w(1, 2, "a.b"));
        diags.push(w(1, 3, "a.b"));
        // Without a key, repeats stay.
        diags.push(Diagnostic::new(Code::ShadowedHook, "s").at(at(0, 11)));
        diags.push(Diagnostic::new(Code::ShadowedHook, "s").at(at(0, 12)));
        diags.fold_repeats();
        let messages: Vec<(&str, u32)> = diags
            .iter()
            .map(|d| (d.message.as_str(), d.span.map_or(0, |s| s.start)))
            .collect();
        assert_eq!(
            messages,
            [
                (
                    "`a.b` is not in the schema (and 2 more uses in this file)",
                    1
                ),
                ("`a.c` is not in the schema", 7),
                (
                    "`a.b` is not in the schema (and 1 more use in this file)",
                    2
                ),
                ("s", 11),
                ("s", 12),
            ]
        );
    }
}
