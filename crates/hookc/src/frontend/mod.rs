//! Front ends: YAML hook files and directive XML, read into one shape,
//! [`SourceFile`], before anything is resolved or checked.
//!
//! A front end checks only the document's structure (keys, shapes, required
//! fields); conditions stay raw (expression text or a YAML condition tree) and
//! actions stay untyped until [`crate::check`] resolves them against the
//! declared action types and context schema.

pub mod doc;
pub mod xml;
pub mod yaml;
pub mod yaml_doc;

use crate::diag::{Code, Diagnostic};
use crate::frontend::doc::Node;
use crate::ir::Spelled;
use crate::span::{Origin, Span, Spanned};

/// The two default layers (`docs/src/semantics.md#hook-order`). At equal
/// priority the directive layer runs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// `hooks:` in YAML, and every XML hook.
    Directive,
    /// `builtin_hooks:` in YAML.
    Builtin,
}

impl Layer {
    /// `directive` or `builtin`, as used in default hook ids.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Directive => "directive",
            Layer::Builtin => "builtin",
        }
    }

    /// The YAML key that holds this layer's hooks.
    pub fn yaml_key(self) -> &'static str {
        match self {
            Layer::Directive => "hooks",
            Layer::Builtin => "builtin_hooks",
        }
    }
}

/// How named layers are listed ([`crate::compile::compile_layers_ordered`], `hookc
/// --layer-order`, a file's `layer_order:`): which of them is the lowest.
/// At equal priority the hooks of a higher layer run first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LayerOrder {
    /// The first layer named is the lowest (the default).
    #[default]
    LowestFirst,
    /// The first layer named is the highest: layers listed in the order
    /// their hooks run at equal priority (seed 002's agent, workflow, step).
    HighestFirst,
}

impl Spelled for LayerOrder {
    const ALL: &'static [(LayerOrder, &'static str)] = &[
        (LayerOrder::LowestFirst, "lowest_first"),
        (LayerOrder::HighestFirst, "highest_first"),
    ];
}

/// Everything one input file declares.
#[derive(Debug, Clone, Default)]
pub struct SourceFile {
    /// `schema_version`, if given.
    pub schema_version: Option<Spanned<String>>,
    /// Every valid `priority_order` declaration, in file order (YAML has
    /// one at most; XML one per `<hooks>` that declares it). A bad value is
    /// reported and left out.
    pub priority_order: Vec<Spanned<crate::ir::PriorityOrder>>,
    /// Every valid `layer_order` declaration, in file order, as for
    /// `priority_order`.
    pub layer_order: Vec<Spanned<LayerOrder>>,
    /// Every valid `combine` declaration, as for `priority_order`.
    pub combine: Vec<Spanned<hookc_runtime::bytecode::Combine>>,
    /// Every valid `attribution` declaration, as for `priority_order`.
    pub attribution: Vec<Spanned<hookc_runtime::bytecode::Attribution>>,
    /// Every valid `on_error` declaration, in file order.
    pub on_error: Vec<Spanned<RawOnError>>,
    /// Every `default_priority` declaration, in file order, as for
    /// `priority_order`.
    pub default_priority: Vec<Spanned<i64>>,
    /// Every `host` declaration (YAML `host:`, XML `<hooks host="...">`),
    /// in file order: the host profile whose declarations the policy is
    /// compiled with ([`crate::hosts`]).
    pub host: Vec<Spanned<String>>,
    /// The hooks of both layers, in file order.
    pub hooks: Vec<SourceHook>,
    /// `event_context_schema`, unparsed.
    pub context_schema: Option<Node>,
    /// `action_types`, unparsed.
    pub action_types: Option<Node>,
    /// `events` (YAML) or the `<event>` elements (XML, as the same
    /// mapping), unparsed.
    pub events: Option<Node>,
    /// The `operators` documentation section, unparsed (names are checked).
    pub operators_doc: Option<Node>,
    /// The policy's local names (`let:` at the top level), in file order.
    pub locals: Vec<RawLocal>,
    /// `env`: the environment variables the policy reads, unparsed.
    pub environment: Option<Node>,
    /// `sensitive`: the context members a decision log keeps only as a
    /// keyed hash, as dotted paths (`docs/src/hosts/teams.md`).
    pub sensitive: Vec<Spanned<String>>,
}

/// A local name as written (`let: {NAME: EXPR}`, at a file's top level or
/// in a hook; `docs/src/semantics.md#local-names`): an expression a
/// condition uses by its name.
#[derive(Debug, Clone)]
pub struct RawLocal {
    /// The name, where it is written.
    pub name: Spanned<String>,
    /// The expression text.
    pub text: String,
    /// How offsets in `text` map to the file.
    pub origin: Origin,
    /// The whole expression scalar.
    pub span: Span,
}

/// Why `name` (written at `span`) cannot be a local name, if it cannot:
/// the same rule for YAML's `let:` keys and XML's `<let name>`.
pub(crate) fn local_name_problem(name: &str, span: Span) -> Option<Diagnostic> {
    if hookc_runtime::bytecode::path::is_plain_field(name) {
        return None;
    }
    Some(
        Diagnostic::new(
            Code::WrongShape,
            format!("`{name}` is not a name a condition can use"),
        )
        .at(span)
        .help("a local name is a letter or `_`, then letters, digits and `_`, and no keyword"),
    )
}

/// An `on_error` declaration as written
/// (`docs/src/semantics.md#hook-errors`).
#[derive(Debug, Clone)]
pub enum RawOnError {
    /// `on_error: skip`.
    Skip,
    /// `on_error: fail`.
    Fail,
    /// `on_error: {action: {...}}`: a terminal action, unchecked yet.
    Action(Box<RawAction>),
}

/// One hook as written.
#[derive(Debug, Clone)]
pub struct SourceHook {
    /// Its layer.
    pub layer: Layer,
    /// Position within its layer in its file, from 0 (for the default id).
    pub index: usize,
    /// YAML node path of the hook (`hooks[2]`); `None` for XML.
    pub node_path: Option<String>,
    /// The whole hook.
    pub span: Span,
    /// `id`, if given.
    pub id: Option<Spanned<String>>,
    /// The event names (`"*"` = every event), at least one.
    pub events: Vec<Spanned<String>>,
    /// `priority`, if given (default: the policy's `default_priority`, else 0).
    pub priority: Option<Spanned<i64>>,
    /// `enabled` (default true).
    pub enabled: bool,
    /// `replace: true` (YAML) or `replace="true"` (XML), where it is
    /// written: the hook replaces the hook of the same id of a lower layer
    /// (`docs/src/semantics.md#replacement-and-layering`).
    pub replace: Option<Span>,
    /// `description`, if given.
    pub description: Option<String>,
    /// `condition` or `when`; `None` = always.
    pub condition: Option<RawCondition>,
    /// The action.
    pub action: RawAction,
    /// `table`: the pattern table as written (YAML's mapping; XML's
    /// `<table>` read into the same shape), checked by the compiler.
    pub table: Option<Node>,
    /// The hook's own local names (`let:`), in file order.
    pub locals: Vec<RawLocal>,
}

/// A condition before resolution.
#[derive(Debug, Clone)]
pub enum RawCondition {
    /// A `when` expression.
    When {
        /// The expression text.
        text: String,
        /// How offsets in `text` map to the file.
        origin: Origin,
        /// The whole scalar or attribute.
        span: Span,
    },
    /// A YAML condition tree (`all`/`any`/`not`/leaf).
    Tree(Node),
}

/// An action before it is checked against its action type.
#[derive(Debug, Clone)]
pub struct RawAction {
    /// The action type's name.
    pub kind: Spanned<String>,
    /// The parameters as written, in order. XML attributes are [`crate::frontend::doc::NodeKind::Text`].
    pub params: Vec<(Spanned<String>, Node)>,
    /// XML `<param name="k">v</param>` children: they fill the action type's
    /// object parameter (`parameters` of `call_directive`, `payload` of `emit_event`).
    pub xml_params: Vec<(Spanned<String>, Node)>,
    /// The whole action (YAML mapping or XML element).
    pub span: Span,
    /// YAML node path of the action (`hooks[2].action`); `None` for XML.
    pub node_path: Option<String>,
}
