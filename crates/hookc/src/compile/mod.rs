//! The front half's driver: sources → checked [`CheckedPolicy`].
//!
//! Reads every input with its front end, merges what the files declare
//! (context schema, action types), resolves and type-checks every hook's
//! condition, checks every action, rejects duplicate ids, and sorts the hooks
//! into evaluation order. Every problem in every file is reported in one run.
//!
//! The stages: `read` the inputs, `settings` what the files declare
//! for the whole policy, `hooks` each hook; then `drive` sorts and
//! lints.

mod hooks;
mod read;
mod settings;
use crate::check::policy::{CheckedPolicy, Hook};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::PriorityOrder;
use crate::span::{FileId, SourceMap};
use hookc_runtime::bytecode::path::PathTable;

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
    drive(&[], &files, layers)
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
    drive(declarations, &files, layers)
}

/// The driver: sources read for their declarations only (their hooks
/// dropped), then each input with its layer (its position among the
/// layers' first mentions; `None`: by YAML section, in the default layers),
/// and the layers. Each stage is a module: [`read`] the inputs,
/// [`settings`] the policy-wide declarations, [`hooks`] every hook; then
/// the hooks are sorted into evaluation order and linted.
fn drive(declared: &[Input], inputs: &[(&Input, Option<u32>)], layers: Layers) -> Compilation {
    let read::ReadInputs {
        sources,
        mut diags,
        files,
        file_layers,
        declarations_only,
    } = read::read_inputs(declared, inputs);
    let mut paths = PathTable::new();
    let settings =
        settings::PolicySettings::gather(&files, layers.order, &sources, &mut paths, &mut diags);
    // Named layers were numbered by first mention; listed highest first,
    // the first mentioned is the highest.
    let (layer_names, rank) = match settings.layer_order {
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
    let layering = hooks::Layering {
        of_files: &file_layers,
        rank,
        names: &layer_names,
    };
    let (hooks, origins) = hooks::check_hooks(
        &files, &layering, &settings, &sources, &mut paths, &mut diags,
    );

    diags.sort();
    let policy = if diags.has_errors() {
        None
    } else {
        let hooks = in_evaluation_order(hooks, settings.priority_order);
        let policy = settings.into_policy(hooks, paths, layer_names);
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

/// `hooks` in evaluation order.
///
/// INVARIANT (evaluation order): priority in the declared direction
/// (descending by default), then layer descending (directive before
/// builtin by default), then source order. `sort_by` is stable, and
/// `source_order` makes the key total.
fn in_evaluation_order(mut hooks: Vec<Hook>, priority_order: PriorityOrder) -> Vec<Hook> {
    hooks.sort_by(|a: &Hook, b: &Hook| {
        let by_priority = match priority_order {
            PriorityOrder::HigherFirst => b.priority.cmp(&a.priority),
            PriorityOrder::LowerFirst => a.priority.cmp(&b.priority),
        };
        by_priority
            .then(b.layer.cmp(&a.layer))
            .then(a.source_order.cmp(&b.source_order))
    });
    hooks
}
