//! The driver's second stage: what the files declare for the whole
//! policy, merged and checked once before any hook: the context schema
//! (with awaited results, bound keys and environment variables as
//! members), the action types, the declared events, the policy's local
//! names, and its one-per-policy choices (`combine`, `attribution`,
//! `on_error`, `priority_order`, `layer_order`, `default_priority`).

use crate::check::actions::{self, ActionTypes};
use crate::check::environment::DeclaredEnvironment;
use crate::check::events::DeclaredEvents;
use crate::check::policy::{CheckedPolicy, Hook, OnErrorPolicy};
use crate::check::schema::ContextSchema;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::{LayerOrder, RawOnError, SourceFile};
use crate::ir::{Attribution, Combine, PriorityOrder, Spelled};
use crate::resolve::ast_to_ir::LocalDef;
use crate::resolve::tree_to_ir::OPERATORS;
use crate::span::{FileId, SourceMap, Span, Spanned};
use crate::suggest;
use hookc_runtime::bytecode::path::PathTable;

/// The policy-wide declarations, merged and checked.
pub(super) struct PolicySettings {
    pub schema: ContextSchema,
    pub types: ActionTypes,
    pub environment: DeclaredEnvironment,
    pub combine: Combine,
    pub attribution: Attribution,
    pub on_error: OnErrorPolicy,
    pub events: DeclaredEvents,
    /// The policy's local names (`let:`), every file's in file order.
    pub locals: Vec<LocalDef>,
    pub priority_order: PriorityOrder,
    pub layer_order: LayerOrder,
    /// The priority of a hook that gives none.
    pub default_priority: i64,
    /// The members a decision log hashes (`sensitive:`), each once.
    pub sensitive: Vec<hookc_runtime::bytecode::path::PathId>,
}

impl PolicySettings {
    /// Merges and checks what `files` declare; `layer_order` is the order
    /// the caller gave, if any.
    pub fn gather(
        files: &[(FileId, SourceFile)],
        layer_order: Option<LayerOrder>,
        sources: &SourceMap,
        paths: &mut PathTable,
        diags: &mut Diagnostics,
    ) -> PolicySettings {
        let (schema, types) = declarations(files, sources, diags);
        // Awaited results are context members later hooks read
        // (`docs/src/semantics.md#resumable-decisions`).
        let mut schema = schema;
        for awaited in types
            .iter()
            .filter(|t| t.effect() == crate::ir::Effect::Await)
        {
            // A binding at a parameter's key is known only at run time.
            let root = match awaited.bind() {
                None => Some(hookc_runtime::bytecode::RESULTS_ROOT),
                Some(actions::TypeBinding::Path(p)) => Some(p.root_name()),
                Some(actions::TypeBinding::Parameter(_)) => None,
            };
            if let Some(root) = root {
                schema = schema.with_free_member(root);
            }
        }
        // A binding at a parameter's key: the keys the hooks' actions give as
        // plain strings are members later hooks read (W0001 otherwise).
        for key in parameter_bound_keys(files, &types) {
            schema = schema.with_free_member(&key);
        }
        // `docs/src/semantics.md#environment-variables`: `env.NAME`, a closed
        // object of the declared variables.
        let environment = DeclaredEnvironment::read(
            files.iter().filter_map(|(_, f)| f.environment.as_ref()),
            sources,
            diags,
        );
        if environment.is_declared() {
            schema = schema.with_environment(hookc_runtime::bytecode::ENV_ROOT, &environment);
        }
        // A host profile's `combine` (the host's own precedence) is a default
        // the policy's files may override with one of their own.
        let profile = |id: &FileId| crate::hosts::is_profile_name(sources.name(*id));
        let own_combine = files
            .iter()
            .any(|(id, f)| !profile(id) && !f.combine.is_empty());
        let combine = one_choice(
            "combine",
            files
                .iter()
                .filter(|(id, _)| !own_combine || !profile(id))
                .flat_map(|(_, f)| &f.combine),
            None,
            |c: &Combine| c.name().to_owned(),
            sources,
            diags,
        )
        .unwrap_or_default();
        // `docs/src/semantics.md#attribution`: what a host answer adds to a
        // reason.
        let attribution = one_choice(
            "attribution",
            files.iter().flat_map(|(_, f)| &f.attribution),
            None,
            spelled,
            sources,
            diags,
        )
        .unwrap_or_default();
        let on_error = on_error(files, sources, &schema, &types, paths, diags);
        let events = DeclaredEvents::read(
            files.iter().filter_map(|(_, f)| f.events.as_ref()),
            &schema,
            sources,
            diags,
        );
        // `docs/src/semantics.md#local-names`: the policy's names, every
        // file's in file order.
        let is_member = |name: &str| declares_member(&schema, &events, name);
        let mut locals = Vec::new();
        for (_, file) in files {
            let scope = crate::resolve::locals::LocalScope {
                node_path: Some("let"),
                is_member: &is_member,
                sources,
            };
            crate::resolve::locals::resolve(&file.locals, &[], &mut locals, &scope, paths, diags);
        }
        let priority_order = one_choice(
            "priority_order",
            files.iter().flat_map(|(_, f)| &f.priority_order),
            None,
            spelled,
            sources,
            diags,
        )
        .unwrap_or_default();
        let layer_order = one_choice(
            "layer_order",
            files.iter().flat_map(|(_, f)| &f.layer_order),
            layer_order,
            spelled,
            sources,
            diags,
        )
        .unwrap_or_default();
        // `docs/src/semantics.md#hook-order`: the priority of a hook that
        // gives none.
        let default_priority = one_choice(
            "default_priority",
            files.iter().flat_map(|(_, f)| &f.default_priority),
            None,
            i64::to_string,
            sources,
            diags,
        )
        .unwrap_or(0);
        let sensitive = sensitive(files, &schema, &events, paths, diags);
        PolicySettings {
            sensitive,
            schema,
            types,
            environment,
            combine,
            attribution,
            on_error,
            events,
            locals,
            priority_order,
            layer_order,
            default_priority,
        }
    }

    /// Whether the context schema, shared or of a declared event, declares
    /// a top-level member `name` (which no local may hide).
    pub fn is_member(&self, name: &str) -> bool {
        declares_member(&self.schema, &self.events, name)
    }

    /// The checked policy of these settings and `hooks`, which are in
    /// evaluation order.
    pub fn into_policy(
        self,
        hooks: Vec<Hook>,
        paths: PathTable,
        layers: Vec<String>,
    ) -> CheckedPolicy {
        CheckedPolicy {
            combine: self.combine,
            on_error: self.on_error,
            priority_order: self.priority_order,
            attribution: self.attribution,
            environment: self.environment,
            hooks,
            paths,
            schema: self.schema,
            action_types: self.types,
            events: self.events,
            layers,
            sensitive: self.sensitive,
        }
    }
}

/// The policy's `on_error` (`docs/src/semantics.md#hook-errors`): at most
/// one declaration in all files (a second one is E0110 unless it is the
/// same word); an action is checked like a hook's, must be terminal, and
/// its templates may read `policy_error.hook` and `policy_error.cause`.
fn on_error(
    files: &[(FileId, SourceFile)],
    sources: &SourceMap,
    schema: &ContextSchema,
    types: &ActionTypes,
    paths: &mut PathTable,
    diags: &mut Diagnostics,
) -> OnErrorPolicy {
    let mut first: Option<&Spanned<RawOnError>> = None;
    for declared in files.iter().flat_map(|(_, f)| &f.on_error) {
        match first {
            Some(f) => {
                let same = matches!(
                    (&f.value, &declared.value),
                    (RawOnError::Skip, RawOnError::Skip) | (RawOnError::Fail, RawOnError::Fail)
                );
                if !same {
                    diags.push(
                        Diagnostic::new(
                            Code::DuplicateDefinition,
                            "`on_error` is declared twice, differently",
                        )
                        .at(declared.span)
                        .node("on_error")
                        .label("disagrees")
                        .note(format!("first declared at {}", sources.location(f.span)))
                        .help("one policy has one `on_error`: declare it in one file"),
                    );
                }
            }
            None => first = Some(declared),
        }
    }
    let Some(declared) = first else {
        return OnErrorPolicy::Skip;
    };
    match &declared.value {
        RawOnError::Skip => OnErrorPolicy::Skip,
        RawOnError::Fail => OnErrorPolicy::Fail,
        RawOnError::Action(raw) => {
            let text = sources.get(raw.span.file).map_or("", |f| f.text());
            let schema = schema.with_policy_error(hookc_runtime::bytecode::POLICY_ERROR_ROOT);
            let no_locals = [&[][..], &[][..]];
            let Some(action) =
                actions::check_action(raw, text, types, &schema, paths, no_locals, diags)
            else {
                return OnErrorPolicy::Skip;
            };
            if action.effect != crate::ir::Effect::Terminal {
                diags.push(
                    Diagnostic::new(
                        Code::ActionTypeDef,
                        format!(
                            "the `on_error` action `{}` is `{}`, but only a terminal action can decide for a hook that failed",
                            action.kind,
                            action.effect.name()
                        ),
                    )
                    .at(raw.kind.span)
                    .node("on_error.action.type")
                    .help("use a terminal action type, e.g. a deny"),
                );
                return OnErrorPolicy::Skip;
            }
            OnErrorPolicy::Action(Box::new(action))
        }
    }
}

/// How a [`Spelled`] choice is written in a message.
fn spelled<T: Spelled>(value: &T) -> String {
    value.name().to_owned()
}

/// A policy-wide choice the files declare (`priority_order:`,
/// `layer_order:`, `default_priority:`): every declaration, in any file,
/// must agree with the first and with what the caller gave (`given`); the
/// files that do not declare it follow. `None` when nothing declares it.
/// `show` writes a value as the files spell it.
fn one_choice<'f, T: Copy + PartialEq + 'f>(
    key: &str,
    declarations: impl Iterator<Item = &'f Spanned<T>>,
    given: Option<T>,
    show: impl Fn(&T) -> String,
    sources: &SourceMap,
    diags: &mut Diagnostics,
) -> Option<T> {
    let mut first: Option<&Spanned<T>> = None;
    for declared in declarations {
        let disagreement = match (given, first) {
            (Some(g), _) if g != declared.value => Some((
                format!(
                    "`{key}` is `{}` here but `{}` is given to the compiler",
                    show(&declared.value),
                    show(&g)
                ),
                format!(
                    "the compiler is given `{}` (`--{}`)",
                    show(&g),
                    key.replace('_', "-")
                ),
            )),
            (_, Some(f)) if f.value != declared.value => Some((
                format!(
                    "`{key}` is `{}` here but `{}` in another file",
                    show(&declared.value),
                    show(&f.value)
                ),
                format!(
                    "`{}` is declared at {}",
                    show(&f.value),
                    sources.location(f.span)
                ),
            )),
            _ => None,
        };
        match disagreement {
            Some((message, note)) => diags.push(
                Diagnostic::new(Code::DuplicateDefinition, message)
                    .at(declared.span)
                    .node(key)
                    .label("disagrees")
                    .note(note)
                    .help(format!("one policy has one `{key}`: declare the same in every file that declares it")),
            ),
            None => {
                first.get_or_insert(declared);
            }
        }
    }
    given.or(first.map(|f| f.value))
}

/// Merges what the files declare: one context schema at most, action types
/// over the built-ins, and the `operators` documentation section's names.
fn declarations(
    files: &[(FileId, SourceFile)],
    sources: &SourceMap,
    diags: &mut Diagnostics,
) -> (ContextSchema, ActionTypes) {
    let mut schema: Option<(ContextSchema, Span)> = None;
    let mut types = ActionTypes::builtin();
    for (_, file) in files {
        if let Some(node) = &file.context_schema {
            match &schema {
                Some((_, first)) => diags.push(
                    Diagnostic::new(
                        Code::DuplicateDefinition,
                        "`event_context_schema` is declared twice",
                    )
                    .at(node.span)
                    .node("event_context_schema")
                    .note(format!("first declared at {}", sources.location(*first)))
                    .help("declare the context schema in one file"),
                ),
                None => schema = Some((ContextSchema::from_node(node, diags), node.span)),
            }
        }
        if let Some(node) = &file.action_types {
            types.declare(node, diags);
        }
        if let Some(ops) = file.operators_doc.as_ref().and_then(|n| n.as_map()) {
            for (key, _) in ops {
                if !OPERATORS.contains(&key.name.as_str()) {
                    diags.push(
                        Diagnostic::new(
                            Code::UnknownDocOperator,
                            format!(
                                "the `operators` section documents `{}`, which is not an operator",
                                key.name
                            ),
                        )
                        .at(key.span)
                        .node(format!("operators.{}", key.name))
                        .maybe_help(suggest::help_for(&key.name, OPERATORS.iter().copied())),
                    );
                }
            }
        }
    }
    (
        schema.map_or_else(ContextSchema::builtin, |(s, _)| s),
        types,
    )
}

/// The top-level keys the hooks' awaited actions bind their results at
/// through a parameter (`bind: {parameter: into}`), where the action gives
/// that parameter as a plain string (`into: weather`; a template's key is
/// known only at run time).
fn parameter_bound_keys(files: &[(FileId, SourceFile)], types: &ActionTypes) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for raw in files.iter().flat_map(|(_, f)| &f.hooks) {
        let Some(actions::TypeBinding::Parameter(param)) =
            types.get(&raw.action.kind.value).and_then(|t| t.bind())
        else {
            continue;
        };
        let given = raw
            .action
            .params
            .iter()
            .chain(&raw.action.xml_params)
            .find(|(name, _)| name.value == *param)
            .and_then(|(_, node)| node.as_str());
        if let Some(key) = given.filter(|k| {
            hookc_runtime::bytecode::path::is_plain_field(k) && !keys.iter().any(|have| have == k)
        }) {
            keys.push(key.to_owned());
        }
    }
    keys
}

/// Whether the context schema, shared or of a declared event, declares a
/// top-level member `name`.
fn declares_member(schema: &ContextSchema, events: &DeclaredEvents, name: &str) -> bool {
    let root = hookc_runtime::bytecode::path::Path::root(name.to_owned());
    let declared = |s: &ContextSchema| s.resolve(&root).is_ok_and(|r| r.outside.is_none());
    declared(schema) || events.iter().any(|e| e.schema().is_some_and(declared))
}

/// `sensitive:` (`docs/src/hosts/teams.md#decision-logs-you-can-ship`): each
/// dotted path checked against the context of the shared schema and of
/// every declared event (one that knows it is enough: `tool_input.content`
/// is `PreToolUse`'s), interned once. A path no context knows is reported
/// as a condition's would be, against the context that knows most of it.
fn sensitive(
    files: &[(FileId, SourceFile)],
    schema: &ContextSchema,
    events: &DeclaredEvents,
    paths: &mut PathTable,
    diags: &mut Diagnostics,
) -> Vec<hookc_runtime::bytecode::path::PathId> {
    use hookc_runtime::bytecode::path::{is_identifier, Path, Segment};
    let contexts: Vec<&ContextSchema> = std::iter::once(schema)
        .chain(events.iter().filter_map(|e| e.schema()))
        .collect();
    let mut out = Vec::new();
    for written in files.iter().flat_map(|(_, f)| &f.sensitive) {
        let mut parts = written.value.split('.');
        let root = parts.next().filter(|r| is_identifier(r));
        let segments: Option<Vec<&str>> = parts.map(|p| (!p.is_empty()).then_some(p)).collect();
        let (Some(root), Some(segments)) = (root, segments) else {
            diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("`{}` is not a context path", written.value),
                )
                .at(written.span)
                .node("sensitive")
                .help("write members joined by dots, `tool_input.content`"),
            );
            continue;
        };
        let path = segments.into_iter().fold(Path::root(root), |p, s| {
            p.child(Segment::Field(s.to_owned()))
        });
        let known = |c: &ContextSchema| {
            c.resolve(&path).map_or(0, |r| {
                r.outside.map_or(usize::MAX, |o| o.known_prefix.len())
            })
        };
        match contexts.iter().copied().max_by_key(|c| known(c)) {
            Some(best) if known(best) == usize::MAX => {}
            Some(best) => {
                best.type_of_path(&path, written.span, diags);
            }
            None => {}
        }
        let id = paths.intern(path);
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}
