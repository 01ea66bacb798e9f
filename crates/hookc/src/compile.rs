//! The front half's driver: sources → checked [`CheckedPolicy`].
//!
//! Reads every input with its front end, merges what the files declare
//! (context schema, action types), resolves and type-checks every hook's
//! condition, checks every action, rejects duplicate ids, and sorts the hooks
//! into evaluation order. Every problem in every file is reported in one run.

use crate::check::actions::{self, ActionTypes};
use crate::check::events::DeclaredEvents;

mod events;
use crate::check::policy::{CheckedPolicy, Events, Hook, OnErrorPolicy};
use crate::check::schema::ContextSchema;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::{self, RawCondition, RawOnError, SourceFile, SourceHook};
use crate::ir::{IrExpr, PriorityOrder, Spelled};
use crate::resolve::ast_to_ir::{LocalDef, Resolver};
use crate::resolve::tree_to_ir::{TreeResolver, OPERATORS};
use crate::span::{FileId, SourceMap, Span, Spanned};
use crate::suggest;
use hookc_runtime::bytecode::path::PathTable;
use std::collections::HashMap;

/// How named layers are listed; a front end reads it from a file's
/// `layer_order:`, so it is declared there.
pub use crate::frontend::LayerOrder;

/// One source to compile.
#[derive(Debug, Clone)]
pub struct Input {
    /// The name diagnostics and default hook ids use (normally the path as given).
    pub name: String,
    /// The file's text.
    pub text: String,
}

impl Input {
    /// An input from a name and its text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Input {
        Input {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// The input formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A YAML hook file.
    Yaml,
    /// Directive XML.
    Xml,
}

impl Format {
    /// By extension (`.xml`, `.yaml`, `.yml`), else by the first non-blank
    /// character (`<` is XML).
    pub fn detect(name: &str, text: &str) -> Format {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".xml") {
            Format::Xml
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Format::Yaml
        } else if text.trim_start().starts_with('<') {
            Format::Xml
        } else {
            Format::Yaml
        }
    }
}

/// The result of compiling: the sources (for rendering diagnostics), every
/// diagnostic, and the policy when there was no error.
#[derive(Debug)]
pub struct Compilation {
    /// Every input, registered.
    pub sources: SourceMap,
    /// Errors and warnings, sorted by file and position.
    pub diagnostics: Diagnostics,
    /// The checked policy; `None` when any error was reported.
    pub policy: Option<CheckedPolicy>,
    /// The sources read for their declarations only
    /// ([`compile_layers_with_declarations`]: an overlay compiled with its
    /// base's sources); their hooks are not compiled, and
    /// [`crate::summary`] does not count them as checked.
    pub declarations_only: Vec<FileId>,
}

/// Why sources could not become a runtime [`hookc_runtime::Policy`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourcesError {
    /// The sources have errors (every diagnostic is kept, with the sources to render them).
    #[error("the policy sources have {} error(s)", .diagnostics.iter().filter(|d| d.is_error()).count())]
    Invalid {
        /// All diagnostics, warnings included.
        diagnostics: Vec<Diagnostic>,
        /// The sources, for rendering the diagnostics.
        sources: Box<SourceMap>,
    },
    /// The lowered program does not load (a compiler bug: please report it).
    #[error(transparent)]
    Load(#[from] hookc_runtime::LoadError),
}

impl Compilation {
    /// The runtime policy of a finished compilation: lowered with debug
    /// information (for explain traces) and verified like any artifact.
    /// Errors become [`SourcesError::Invalid`]; warnings are dropped.
    pub fn into_policy(self) -> Result<hookc_runtime::Policy, SourcesError> {
        let Some(policy) = self.policy else {
            return Err(SourcesError::Invalid {
                diagnostics: self.diagnostics.into_vec(),
                sources: Box::new(self.sources),
            });
        };
        let program = crate::lower::lower_with_debug(&policy, &self.sources);
        Ok(hookc_runtime::Policy::from_program(program)?)
    }
}

/// Whether an artifact keeps its debug section (source locations and
/// sub-condition texts for explain traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArtifactDebug {
    /// Keep it.
    Keep,
    /// Leave it out (`hookc compile --strip`): a smaller artifact whose
    /// traces list the values each hook reads instead.
    Strip,
}

impl Compilation {
    /// The artifact of a finished compilation: [`Compilation::into_policy`]
    /// encoded, then loaded back (decoded and verified, as a runtime loads
    /// it), so that what is written is what a runtime accepts. Errors become
    /// [`SourcesError::Invalid`]; a program that does not load back is
    /// [`SourcesError::Load`] (a compiler bug).
    pub fn into_artifact(self, debug: ArtifactDebug) -> Result<Vec<u8>, SourcesError> {
        let policy = self.into_policy()?;
        let bytes = match debug {
            ArtifactDebug::Keep => policy.to_artifact(),
            ArtifactDebug::Strip => policy.to_artifact_stripped(),
        };
        hookc_runtime::Policy::from_artifact(&bytes)?;
        Ok(bytes)
    }
}

/// Compiles sources (YAML hook files, directive XML) straight into a runtime
/// policy; see [`Compilation::into_policy`].
pub fn policy_from_sources(inputs: &[Input]) -> Result<hookc_runtime::Policy, SourcesError> {
    compile(inputs).into_policy()
}

/// The layers of a compilation without named layers, lowest first: a YAML
/// file's `builtin_hooks:`, then its `hooks:` and every XML hook.
pub const DEFAULT_LAYERS: [&str; 2] = ["builtin", "directive"];

/// A layer name for [`compile_layers`]: ASCII letters, digits, `_` and `-`,
/// starting with a letter or `_`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LayerName(String);

/// A string that is not a [`LayerName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a layer name: use ASCII letters, digits, `_` and `-`, starting with a letter or `_`")]
pub struct BadLayerName(pub String);

impl LayerName {
    /// Checks a layer name.
    pub fn new(name: &str) -> Result<LayerName, BadLayerName> {
        let mut chars = name.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            Ok(LayerName(name.to_owned()))
        } else {
            Err(BadLayerName(name.to_owned()))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The layers of a compilation: their names by first mention, and how
/// they are listed (`None`: as the files declare, else lowest first).
struct Layers {
    names: Vec<String>,
    order: Option<LayerOrder>,
    /// Named layers; else the [`DEFAULT_LAYERS`], whose order is fixed (a
    /// file's `layer_order:` is still checked, and has no effect).
    named: bool,
}

/// Compiles sources (files in this order define source order) into the
/// [`DEFAULT_LAYERS`]: each hook is in the layer of its YAML section.
pub fn compile(inputs: &[Input]) -> Compilation {
    let files: Vec<(&Input, Option<u32>)> = inputs.iter().map(|i| (i, None)).collect();
    let layers = Layers {
        names: DEFAULT_LAYERS.map(String::from).to_vec(),
        order: None,
        named: false,
    };
    compile_files(&[], &files, layers)
}

/// Compiles named layers, given lowest first (e.g. `builtin`, `project`,
/// `directive`, `run`) unless a file declares `layer_order: highest_first`:
/// [`compile_layers_ordered`] without an order of its own.
pub fn compile_layers(layers: &[(LayerName, Vec<Input>)]) -> Compilation {
    compile_layers_ordered(layers, None)
}

/// Compiles named layers: every hook of a layer's files is in that layer,
/// whichever YAML section it is written in. The layers are listed as
/// `order` says (`None`: as the files' `layer_order:` says, else lowest
/// first); a file that declares another order is an error (E0110).
/// Evaluation order is priority, then layer (higher first), then source
/// order, which is the order of the files as given. A name given again is
/// the same layer, at its first position.
pub fn compile_layers_ordered(
    layers: &[(LayerName, Vec<Input>)],
    order: Option<LayerOrder>,
) -> Compilation {
    compile_named(&[], layers, order)
}

/// Compiles named layers as [`compile_layers`] does, with what the
/// `declarations` sources declare (action types, context schema,
/// `priority_order`, ...) available as if it were declared in the layers'
/// own files: an overlay compiled with the sources of the policy it is
/// layered onto (`hookc eval --overlay`). The `declarations` files are read
/// (first, so a conflicting declaration is reported in the layers' files)
/// and their declarations merged as those of any two files of one
/// compilation are, with the same errors; their hooks are not compiled,
/// and only their errors are reported (their warnings are the base
/// policy's, already reported when it was compiled).
pub fn compile_layers_with_declarations(
    declarations: &[Input],
    layers: &[(LayerName, Vec<Input>)],
) -> Compilation {
    compile_named(declarations, layers, None)
}

/// The host the files name (`host:`), if any, its profile known; an
/// unknown host (with the closest known name) or two different hosts are
/// reported (E0115) and give `None`.
fn host(files: &[(FileId, SourceFile)], diags: &mut Diagnostics) -> Option<String> {
    let mut named: Option<&Spanned<String>> = None;
    for declared in files.iter().flat_map(|(_, f)| &f.host) {
        if crate::hosts::profile(&declared.value).is_none() {
            let names = crate::hosts::names().collect::<Vec<_>>().join("`, `");
            diags.push(
                Diagnostic::new(
                    Code::UnknownHost,
                    format!("hookc has no profile for the host `{}`", declared.value),
                )
                .at(declared.span)
                .node("host")
                .help(
                    match suggest::did_you_mean(&declared.value, crate::hosts::names()) {
                        Some(close) => format!("did you mean `{close}`? (hosts: `{names}`)"),
                        None => format!("the hosts hookc knows are `{names}`"),
                    },
                ),
            );
            return None;
        }
        match named {
            None => named = Some(declared),
            Some(first) if first.value == declared.value => {}
            Some(first) => {
                diags.push(
                    Diagnostic::new(
                        Code::UnknownHost,
                        format!(
                            "the policy names two hosts, `{}` and `{}`",
                            first.value, declared.value
                        ),
                    )
                    .at(declared.span)
                    .node("host")
                    .note(format!("`{}` is named first", first.value))
                    .help("a policy is written for one host: compile one policy per host"),
                );
                return None;
            }
        }
    }
    named.map(|h| h.value.clone())
}

/// [`compile_layers_ordered`] with declarations-only sources (see
/// [`compile_layers_with_declarations`]).
fn compile_named(
    declarations: &[Input],
    layers: &[(LayerName, Vec<Input>)],
    order: Option<LayerOrder>,
) -> Compilation {
    let mut names: Vec<String> = Vec::new();
    let mut files = Vec::new();
    for (name, inputs) in layers {
        let mention = match names.iter().position(|n| n == name.as_str()) {
            Some(mention) => mention,
            None => {
                names.push(name.as_str().to_owned());
                names.len().saturating_sub(1)
            }
        };
        let mention = u32::try_from(mention).unwrap_or(u32::MAX);
        files.extend(inputs.iter().map(|input| (input, Some(mention))));
    }
    let layers = Layers {
        names,
        order,
        named: true,
    };
    compile_files(declarations, &files, layers)
}

/// The driver: sources read for their declarations only (their hooks
/// dropped), then each input with its layer (its position among the
/// layers' first mentions; `None`: by YAML section, in the default layers),
/// and the layers.
fn compile_files(
    declared: &[Input],
    inputs: &[(&Input, Option<u32>)],
    layers: Layers,
) -> Compilation {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let mut files: Vec<(FileId, SourceFile)> = Vec::new();
    // Parallel to `files`: each file's layer.
    let mut file_layers: Vec<Option<u32>> = Vec::new();
    let mut declarations_only = Vec::with_capacity(declared.len());
    let all = (declared.iter().map(|input| (input, None, true)))
        .chain(inputs.iter().map(|&(input, layer)| (input, layer, false)));
    for (input, layer, declarations_only_file) in all {
        let id = sources.add(input.name.clone(), input.text.clone());
        if declarations_only_file {
            declarations_only.push(id);
        }
        if input.text.len() > hookc_runtime::limits::MAX_INPUT_BYTES {
            diags.push(
                Diagnostic::new(
                    Code::TooLarge,
                    format!(
                        "`{}` is {} bytes; hookc reads policy files of at most {} bytes",
                        input.name,
                        input.text.len(),
                        hookc_runtime::limits::MAX_INPUT_BYTES
                    ),
                )
                .at(Span::new(id, 0, 0)),
            );
            continue;
        }
        let mut file = match Format::detect(&input.name, &input.text) {
            Format::Yaml => frontend::yaml::read(&input.text, id, &input.name, &mut diags),
            Format::Xml => frontend::xml::read(&input.text, id, &mut diags),
        };
        if declarations_only_file {
            file.hooks.clear();
            // The base's decision model is the layered program's (the
            // linker takes it); the overlay compiled with its declarations
            // declares none of its own, so the two never clash.
            file.combine.clear();
            file.on_error.clear();
        }
        files.push((id, file));
        file_layers.push(layer);
    }
    // `host: NAME`: the host's profile, read first as declarations only.
    if let Some(host) = host(&files, &mut diags) {
        let overlay = !declared.is_empty();
        if let Some(profile) = crate::hosts::profile(&host) {
            let id = sources.add(crate::hosts::profile_name(&host), profile.to_owned());
            declarations_only.push(id);
            let mut file = frontend::yaml::read(profile, id, sources.name(id), &mut diags);
            file.hooks.clear();
            if overlay {
                // As for any declarations-only file: the base's decision
                // model is the layered program's.
                file.combine.clear();
                file.on_error.clear();
            }
            files.insert(0, (id, file));
            file_layers.insert(0, None);
        }
    }

    let (schema, types) = declarations(&files, &sources, &mut diags);
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
    for key in parameter_bound_keys(&files, &types) {
        schema = schema.with_free_member(&key);
    }
    // `docs/src/semantics.md#environment-variables`: `env.NAME`, a closed
    // object of the declared variables.
    let environment = crate::check::environment::DeclaredEnvironment::read(
        files.iter().filter_map(|(_, f)| f.environment.as_ref()),
        &sources,
        &mut diags,
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
        |c: &crate::ir::Combine| c.name().to_owned(),
        &sources,
        &mut diags,
    )
    .unwrap_or_default();
    // `docs/src/semantics.md#attribution`: what a host answer adds to a
    // reason.
    let attribution = one_choice(
        "attribution",
        files.iter().flat_map(|(_, f)| &f.attribution),
        None,
        spelled,
        &sources,
        &mut diags,
    )
    .unwrap_or_default();
    let mut paths = PathTable::new();
    let on_error = on_error(&files, &sources, &schema, &types, &mut paths, &mut diags);
    let events = DeclaredEvents::read(
        files.iter().filter_map(|(_, f)| f.events.as_ref()),
        &schema,
        &sources,
        &mut diags,
    );
    // `docs/src/semantics.md#local-names`: the policy's names, every
    // file's in file order.
    let is_member = |name: &str| declares_member(&schema, &events, name);
    let mut policy_locals = Vec::new();
    for (_, file) in &files {
        let scope = crate::resolve::locals::LocalScope {
            node_path: Some("let"),
            is_member: &is_member,
            sources: &sources,
        };
        crate::resolve::locals::resolve(
            &file.locals,
            &[],
            &mut policy_locals,
            &scope,
            &mut paths,
            &mut diags,
        );
    }
    let priority_order = one_choice(
        "priority_order",
        files.iter().flat_map(|(_, f)| &f.priority_order),
        None,
        spelled,
        &sources,
        &mut diags,
    )
    .unwrap_or_default();
    let layer_order = one_choice(
        "layer_order",
        files.iter().flat_map(|(_, f)| &f.layer_order),
        layers.order,
        spelled,
        &sources,
        &mut diags,
    )
    .unwrap_or_default();
    // `docs/src/semantics.md#hook-order`: the priority of a hook that
    // gives none.
    let default_priority = one_choice(
        "default_priority",
        files.iter().flat_map(|(_, f)| &f.default_priority),
        None,
        i64::to_string,
        &sources,
        &mut diags,
    )
    .unwrap_or(0);
    // Named layers were numbered by first mention; listed highest first,
    // the first mentioned is the highest.
    let (layer_names, rank) = match layer_order {
        _ if !layers.named => (layers.names, None),
        LayerOrder::LowestFirst => (layers.names, None),
        LayerOrder::HighestFirst => {
            let top = layers.names.len().saturating_sub(1);
            let top = u32::try_from(top).unwrap_or(u32::MAX);
            let mut names = layers.names;
            names.reverse();
            (names, Some(top))
        }
    };
    let mut hooks = Vec::new();
    // Where each checked hook was written (by `source_order`), for the lints.
    let mut origins = Vec::new();
    let total: usize = files.iter().map(|(_, f)| f.hooks.len()).sum();
    if total > hookc_runtime::limits::MAX_HOOKS {
        diags.push(Diagnostic::new(
            Code::TooLarge,
            format!(
                "{total} hooks; hookc compiles at most {} hooks at once",
                hookc_runtime::limits::MAX_HOOKS
            ),
        ));
    } else {
        let mut ids: Vec<IdUse> = Vec::new();
        let mut regexes = crate::check::typeck::RegexMemo::default();
        for ((id, file), layer) in files.iter().zip(&file_layers) {
            let name = sources.name(*id).to_owned();
            let text = sources.get(*id).map_or("", |f| f.text());
            for raw in &file.hooks {
                let layer = match (layer, rank) {
                    (Some(mention), Some(top)) => top.saturating_sub(*mention),
                    (Some(mention), None) => *mention,
                    (None, _) => match raw.layer {
                        frontend::Layer::Builtin => 0,
                        frontend::Layer::Directive => 1,
                    },
                };
                let cx = HookContext {
                    layer,
                    default_priority,
                    file_name: &name,
                    text,
                    schema: &schema,
                    types: &types,
                    events: &events,
                    sources: &sources,
                    locals: &policy_locals,
                    is_member: &is_member,
                };
                let checked =
                    check_hook(&cx, raw, hooks.len(), &mut paths, &mut regexes, &mut diags);
                ids.push(IdUse::of(
                    raw,
                    &name,
                    layer,
                    checked.is_some().then_some(hooks.len()),
                ));
                if let Some(hook) = checked {
                    origins.push(crate::lint::HookOrigin::of(raw));
                    hooks.push(hook);
                }
            }
        }
        resolve_ids(&ids, &mut hooks, &layer_names, &sources, &mut diags);
        crate::resolve::locals::report_unused(&policy_locals, &mut diags);
    }

    diags.sort();
    let policy = if diags.has_errors() {
        None
    } else {
        // INVARIANT (evaluation order): priority in the declared direction
        // (descending by default), then layer descending (directive before
        // builtin by default), then source order. `sort_by` is stable, and
        // `source_order` makes the key total.
        hooks.sort_by(|a: &Hook, b: &Hook| {
            let by_priority = match priority_order {
                PriorityOrder::HigherFirst => b.priority.cmp(&a.priority),
                PriorityOrder::LowerFirst => a.priority.cmp(&b.priority),
            };
            by_priority
                .then(b.layer.cmp(&a.layer))
                .then(a.source_order.cmp(&b.source_order))
        });
        let policy = CheckedPolicy {
            combine,
            on_error,
            priority_order,
            attribution,
            environment,
            hooks,
            paths,
            schema,
            action_types: types,
            events,
            layers: layer_names,
        };
        // Lints are warnings: they never turn a good policy into a failing one.
        crate::lint::report(&policy, &origins, &sources, &mut diags);
        diags.sort();
        Some(policy)
    };
    if !declarations_only.is_empty() {
        diags.retain(|d| {
            d.is_error() || !d.span.is_some_and(|s| declarations_only.contains(&s.file))
        });
    }
    diags.fold_repeats();
    Compilation {
        sources,
        diagnostics: diags,
        policy,
        declarations_only,
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

struct HookContext<'a> {
    /// The hook's layer (an index into the compilation's layers).
    layer: u32,
    /// The priority of a hook that gives none (`default_priority`).
    default_priority: i64,
    file_name: &'a str,
    text: &'a str,
    schema: &'a ContextSchema,
    types: &'a ActionTypes,
    /// The declared events (`docs/src/semantics.md#declared-events`).
    events: &'a DeclaredEvents,
    /// The sources, for locations in notes.
    sources: &'a SourceMap,
    /// The policy's local names (`let:` at a file's top level).
    locals: &'a [LocalDef],
    /// Whether a name is a member the context schema declares (which no
    /// local may hide).
    is_member: &'a dyn Fn(&str) -> bool,
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

/// A hook's id: given, or `<file>#<section>[<index>]`.
fn hook_id(raw: &SourceHook, file_name: &str) -> String {
    match &raw.id {
        Some(id) => id.value.clone(),
        None => format!("{file_name}#{}[{}]", raw.layer.as_str(), raw.index),
    }
}

/// One hook's id where it is written, checked or not: every hook counts
/// for duplicates.
struct IdUse {
    id: String,
    /// The id, or the whole hook for a default id.
    span: Span,
    /// The hook's YAML node path (`hooks[2]`).
    node_path: Option<String>,
    layer: u32,
    replace: Option<Span>,
    /// Its checked hook (an index into the compilation's hooks).
    hook: Option<usize>,
}

impl IdUse {
    fn of(raw: &SourceHook, file_name: &str, layer: u32, hook: Option<usize>) -> IdUse {
        IdUse {
            id: hook_id(raw, file_name),
            span: raw.id.as_ref().map_or(raw.span, |s| s.span),
            node_path: raw.node_path.clone(),
            layer,
            // Without an id there is nothing to replace (E0101 already).
            replace: raw.replace.filter(|_| raw.id.is_some()),
            hook,
        }
    }
}

/// Ids across the compilation (`docs/src/semantics.md#replacement-and-layering`):
/// a hook marked `replace` replaces the hook of the same id in the layer
/// below it (which is then left out, as a disabled hook is); any other
/// second use of an id, a replacement within one layer included, is
/// E0104. A `replace` with nothing below it is W0009: it may be meant for
/// a policy it is layered over at run time.
fn resolve_ids(
    uses: &[IdUse],
    hooks: &mut [Hook],
    layers: &[String],
    sources: &SourceMap,
    diags: &mut Diagnostics,
) {
    let mut by_id: HashMap<&str, Vec<&IdUse>> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for u in uses {
        let group = by_id.entry(&u.id).or_default();
        if group.is_empty() {
            order.push(&u.id);
        }
        group.push(u);
    }
    let layer_name = |l: u32| layers.get(l as usize).map_or("?", String::as_str);
    for id in order {
        let Some(group) = by_id.get_mut(id) else {
            continue;
        };
        // Lowest layer first; within a layer, in source order (stable).
        group.sort_by_key(|u| u.layer);
        if let Some(first) = group.first().filter(|u| u.replace.is_some()) {
            let at = first.replace.unwrap_or(first.span);
            let mut d = Diagnostic::new(
                    Code::NothingReplaced,
                    format!("hook `{id}` is marked `replace`, but no lower layer has a hook `{id}`"),
                )
                .at(at)
                .label("replaces nothing here")
                .help("remove `replace: true`, unless the policy is layered over one with this hook at run time (`Policy::with_layer`, `--overlay`)");
            if let Some(p) = &first.node_path {
                d = d.node(format!("{p}.replace"));
            }
            diags.push(d);
        }
        for pair in group.windows(2) {
            let [lower, upper] = pair else {
                continue;
            };
            let problem = if upper.layer == lower.layer {
                Some(match upper.replace {
                    Some(_) => format!(
                        "a hook replaces one of a lower layer, and both are in layer `{}`: ids are unique within a layer",
                        layer_name(upper.layer)
                    ),
                    None => "hook ids must be unique across all files of a compilation".to_owned(),
                })
            } else if upper.replace.is_none() {
                Some(format!(
                    "to replace the hook of the lower layer `{}`, mark this one `replace: true`; else rename one of them",
                    layer_name(lower.layer)
                ))
            } else {
                None
            };
            match problem {
                Some(help) => {
                    let mut d =
                        Diagnostic::new(Code::DuplicateId, format!("hook id `{id}` is used twice"))
                            .at(upper.span)
                            .label("second use")
                            .note(format!("first used at {}", sources.location(lower.span)))
                            .help(help);
                    if let Some(p) = &upper.node_path {
                        d = d.node(format!("{p}.id"));
                    }
                    diags.push(d);
                }
                None => {
                    if let Some(hook) = lower.hook.and_then(|h| hooks.get_mut(h)) {
                        hook.enabled = false;
                        hook.replaced = true;
                    }
                }
            }
        }
    }
}

fn check_hook(
    cx: &HookContext<'_>,
    raw: &SourceHook,
    source_order: usize,
    paths: &mut PathTable,
    regexes: &mut crate::check::typeck::RegexMemo,
    diags: &mut Diagnostics,
) -> Option<Hook> {
    let mut ok = true;
    let id = hook_id(raw, cx.file_name);
    if let (Some(at), None) = (raw.replace, &raw.id) {
        let mut d = Diagnostic::new(Code::MissingKey, "a hook with `replace: true` has no `id`")
            .at(at)
            .label("replaces nothing without an id")
            .help("give the hook the id of the hook it replaces: `id: ...`");
        if let Some(p) = &raw.node_path {
            d = d.node(format!("{p}.replace"));
        }
        diags.push(d);
        ok = false;
    }

    let events = if raw.events.iter().any(|e| e.value == "*") {
        Events::Any
    } else {
        let mut names: Vec<String> = Vec::new();
        for e in &raw.events {
            if !names.contains(&e.value) {
                names.push(e.value.clone());
            }
        }
        Events::Named(names)
    };

    ok &= events::events_declared(cx, raw, diags);
    let groups = events::schema_groups(cx, &events);

    // A hook that stops a call: a path it tests as text is W0019.
    let guard = matches!(raw.action.kind.value.as_str(), "deny" | "ask" | "block");
    let mut condition_tree = None;
    // The hook's own local names, with the policy's in scope.
    let mut own_locals = Vec::new();
    let locals_at = raw.node_path.as_ref().map(|p| format!("{p}.let"));
    let scope = crate::resolve::locals::LocalScope {
        node_path: locals_at.as_deref(),
        is_member: cx.is_member,
        sources: cx.sources,
    };
    let before = diags.error_count();
    crate::resolve::locals::resolve(
        &raw.locals,
        cx.locals,
        &mut own_locals,
        &scope,
        paths,
        diags,
    );
    ok &= diags.error_count() == before;
    let condition = match &raw.condition {
        None => None,
        Some(cond) => {
            let mut local = Diagnostics::new();
            let (expr, tree, node_paths, suffix) = resolve_condition(
                cx.text,
                cond,
                raw.node_path.as_deref(),
                [cx.locals, &own_locals],
                paths,
                &mut local,
            );
            if let Some(e) = &expr {
                events::per_schema(&groups, &mut local, |schema, d| {
                    crate::check::typeck::check_condition(e, schema, paths, regexes, d, guard);
                });
            }
            // Name the YAML node of each finding: the innermost condition node
            // containing it, else the hook's `condition`/`when`.
            let nodes = NodeIndex::new(node_paths);
            for mut d in local.into_vec() {
                if d.node_path.is_none() {
                    // A finding in a local's expression is the local's.
                    let in_local = d
                        .span
                        .and_then(|s| crate::resolve::locals::node_of([cx.locals, &own_locals], s));
                    if let Some(at) = in_local {
                        d = d.node(at);
                    }
                }
                if d.node_path.is_none() {
                    if let Some(hook_path) = &raw.node_path {
                        let inner = d.span.and_then(|s| nodes.innermost(s));
                        d = d.node(inner.unwrap_or_else(|| format!("{hook_path}.{suffix}")));
                    }
                }
                ok &= !d.is_error();
                diags.push(d);
            }
            condition_tree = tree;
            match expr {
                Some(e) => Some(e),
                None => {
                    ok = false;
                    None
                }
            }
        }
    };

    crate::resolve::locals::report_unused(&own_locals, diags);

    // `docs/src/semantics.md#pattern-tables`: the rows, and their `on`
    // path, which must be able to hold a string.
    let table = match &raw.table {
        None => None,
        Some(node) => {
            let at = raw.node_path.as_ref().map(|p| format!("{p}.table"));
            let checked = crate::check::table::check_table(
                node,
                cx.text,
                at.as_deref(),
                paths,
                regexes,
                diags,
            );
            ok &= checked.is_some();
            checked
        }
    };
    if let Some(t) = &table {
        let errors_before = diags.error_count();
        events::per_schema(&groups, diags, |schema, d| {
            let Some(path) = paths.get(t.table.on).cloned() else {
                return;
            };
            let ty = schema.type_of_path(&path, t.on_span, d);
            if !ty.kinds.is_empty() && !ty.kinds.intersects(crate::check::ty::Kinds::STRING) {
                let mut diag = Diagnostic::new(
                    Code::TypeMismatch,
                    format!(
                        "the table matches its rows against `{path}`, but it is {}",
                        ty.kinds.with_article()
                    ),
                )
                .at(t.on_span)
                .label(format!("this is {}", ty.kinds.with_article()))
                .help("match the rows against a string path");
                if let Some(p) = &raw.node_path {
                    diag = diag.node(format!("{p}.table.on"));
                }
                d.push(diag);
            }
        });
        ok &= diags.error_count() == errors_before;
    }

    let errors_before = diags.error_count();
    let action = events::per_schema(&groups, diags, |schema, d| {
        // A table's row is `row` in the action's templates.
        // A table with errors (reported) gives a `row` of unknown fields,
        // so its templates add no findings of their own.
        let with_row;
        let schema = match (&table, &raw.table) {
            (Some(t), _) => {
                with_row = schema.with_row(crate::ir::ROW_ROOT, &t.fields);
                &with_row
            }
            (None, Some(_)) => {
                with_row = schema.with_free_member(crate::ir::ROW_ROOT);
                &with_row
            }
            (None, None) => schema,
        };
        let locals = [cx.locals, own_locals.as_slice()];
        actions::check_action(&raw.action, cx.text, cx.types, schema, paths, locals, d)
    })
    .into_iter()
    .next()
    .flatten();
    ok &= diags.error_count() == errors_before;
    let action = action?;
    // What an event lets the host answer does not limit an action hookc
    // carries out itself (`remember`), which the host never sees.
    let by_hookc = cx
        .types
        .get(&raw.action.kind.value)
        .is_some_and(|t| t.performer() == actions::Performer::Hookc);
    if !by_hookc {
        ok &= events::effects_allowed(cx, raw, &events, action.effect, diags);
    }
    if !ok {
        return None;
    }
    Some(Hook {
        id,
        events,
        priority: raw
            .priority
            .as_ref()
            .map_or(cx.default_priority, |p| p.value),
        layer: cx.layer,
        condition,
        condition_tree,
        action,
        table: table.map(|t| t.table),
        enabled: raw.enabled,
        replace: raw.replace.is_some(),
        replaced: false,
        description: raw.description.clone(),
        source_order,
        span: raw.span,
    })
}

/// A condition's IR, its normalized tree (a condition tree's), the YAML
/// node paths of its parts, and the key it was written under.
type ResolvedCondition = (
    Option<IrExpr>,
    Option<serde_json::Value>,
    Vec<(Span, String)>,
    &'static str,
);

fn resolve_condition(
    text: &str,
    cond: &RawCondition,
    hook_path: Option<&str>,
    [policy_locals, own_locals]: [&[LocalDef]; 2],
    paths: &mut PathTable,
    diags: &mut Diagnostics,
) -> ResolvedCondition {
    match cond {
        RawCondition::When {
            text: src, origin, ..
        } => {
            let expr = match crate::syntax::parse(src, *origin) {
                Ok(ast) => Resolver::new(paths, diags)
                    .with_locals(policy_locals, own_locals)
                    .resolve(&ast),
                Err(d) => {
                    diags.push(d);
                    None
                }
            };
            (expr, None, Vec::new(), "when")
        }
        RawCondition::Tree(node) => {
            let at = format!("{}.condition", hook_path.unwrap_or("hook"));
            let mut tr = TreeResolver {
                text,
                paths,
                diags,
                node_paths: Vec::new(),
            };
            let resolved = tr.resolve(node, &at);
            let (expr, tree) = match resolved {
                Some(r) => (Some(r.expr), Some(r.tree)),
                None => (None, None),
            };
            (expr, tree, tr.node_paths, "condition")
        }
    }
}

/// The YAML nodes of one condition by span, to name the node a finding is
/// in. Node spans nest (a YAML tree), so each has a parent, and a lookup is a
/// binary search plus a walk up at most the nesting depth.
struct NodeIndex {
    /// `(span, node path, parent)`, sorted by start, then longest first.
    nodes: Vec<(Span, String, Option<usize>)>,
}

impl NodeIndex {
    fn new(mut paths: Vec<(Span, String)>) -> NodeIndex {
        paths.sort_by(|(a, _), (b, _)| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut nodes = Vec::with_capacity(paths.len());
        let mut open: Vec<usize> = Vec::new();
        for (i, (span, path)) in paths.into_iter().enumerate() {
            while let Some(&top) = open.last() {
                if nodes
                    .get(top)
                    .is_some_and(|(s, _, _): &(Span, String, Option<usize>)| s.end >= span.end)
                {
                    break;
                }
                open.pop();
            }
            nodes.push((span, path, open.last().copied()));
            open.push(i);
        }
        NodeIndex { nodes }
    }

    /// The node path of the smallest recorded span containing `span`.
    fn innermost(&self, span: Span) -> Option<String> {
        let last = self
            .nodes
            .partition_point(|(s, _, _)| s.start <= span.start)
            .checked_sub(1)?;
        let mut cur = Some(last);
        while let Some(i) = cur {
            let (s, path, parent) = self.nodes.get(i)?;
            if s.file == span.file && s.start <= span.start && span.end <= s.end {
                return Some(path.clone());
            }
            cur = *parent;
        }
        None
    }
}
