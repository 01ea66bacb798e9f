//! The checked policy: the hooks, in evaluation order, with their events,
//! conditions (as [`IrExpr`]s), checked actions and pattern tables, and the
//! policy-wide settings they were checked under. [`crate::compile`] builds
//! it once every check has passed; linting, lowering and normalized output
//! read it.

use crate::check::actions::{Action, ActionTypes};
use crate::check::environment::DeclaredEnvironment;
use crate::check::events::DeclaredEvents;
use crate::check::schema::ContextSchema;
use crate::ir::{Attribution, Combine, IrExpr, PriorityOrder};
use crate::span::Span;
use hookc_runtime::bytecode::path::{PathId, PathTable};

/// Which events a hook listens to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Events {
    /// `"*"`: every event.
    Any,
    /// These names, deduplicated, in the order written.
    Named(Vec<String>),
}

impl Events {
    /// Whether the hook listens to `event`.
    pub fn includes(&self, event: &str) -> bool {
        match self {
            Events::Any => true,
            Events::Named(names) => names.iter().any(|n| n == event),
        }
    }
}

/// One checked hook.
#[derive(Debug, Clone)]
pub struct Hook {
    /// Unique id (given, or `<file>#<layer>[<index>]`).
    pub id: String,
    /// Events it listens to.
    pub events: Events,
    /// Higher runs first.
    pub priority: i64,
    /// Its layer: an index into [`CheckedPolicy::layers`] (higher runs first at
    /// equal priority).
    pub layer: u32,
    /// `None` = always matches.
    pub condition: Option<IrExpr>,
    /// A condition written as a YAML condition tree: that tree, normalized
    /// (canonical paths, values as JSON), for normalized output, which
    /// writes it back as a tree. `None` for a `when` condition: a tree means
    /// what seed 000's evaluator means, which a `when` does not
    /// (`docs/src/semantics.md#condition-trees`).
    pub condition_tree: Option<serde_json::Value>,
    /// What to do, parameters complete.
    pub action: Action,
    /// Its pattern table (`docs/src/semantics.md#pattern-tables`): the hook
    /// matches only when a row's pattern matches, and its action's
    /// templates read the first such row as `row`.
    pub table: Option<HookTable>,
    /// Whether the hook is emitted: `false` for a hook disabled
    /// (`enabled: false`) or replaced (`replaced`). Such hooks are checked,
    /// then left out; their ids stay known (`Program::absent`).
    pub enabled: bool,
    /// `replace: true`: the hook replaces the hook of the same id of a lower
    /// layer, here or in a policy it is layered over at run time.
    pub replace: bool,
    /// Replaced by a hook of a higher layer (then `enabled` is `false`).
    pub replaced: bool,
    /// Carried into the artifact for explain output.
    pub description: Option<String>,
    /// Position in source order across the compilation (files in command-line order).
    pub source_order: usize,
    /// The hook's source.
    pub span: Span,
}

/// A hook's checked pattern table: rows tested in order against the string
/// at a context path.
#[derive(Debug, Clone, PartialEq)]
pub struct HookTable {
    /// The path of the string the patterns are matched against.
    pub on: PathId,
    /// Each row's pattern (compiled successfully), in row order.
    pub patterns: Vec<String>,
    /// Each row's fields, in row order: every field of the table (in first
    /// use order), `null` where the row gives none.
    pub rows: Vec<serde_json::Map<String, serde_json::Value>>,
}

impl HookTable {
    /// The first row whose pattern matches `text`, trying each pattern in
    /// turn (the reference semantics; the runtime scans once with all of
    /// them). A pattern that does not compile matches nothing.
    pub fn first_row(&self, text: &str) -> Option<usize> {
        self.patterns.iter().position(|p| {
            hookc_runtime::verify::compile_regex(p)
                .is_ok_and(|re| re.is_match(text).unwrap_or(false))
        })
    }
}

/// A checked policy: hooks in evaluation order and what they refer to.
///
/// Invariant (evaluation order): `hooks` is sorted by priority (descending),
/// then layer (later in [`CheckedPolicy::layers`] first: directive before builtin
/// by default), then source order. Only
/// [`crate::compile`] builds it, after every check passed.
#[derive(Debug, Clone)]
pub struct CheckedPolicy {
    pub(crate) combine: Combine,
    pub(crate) on_error: OnErrorPolicy,
    pub(crate) priority_order: PriorityOrder,
    pub(crate) attribution: Attribution,
    pub(crate) environment: DeclaredEnvironment,
    pub(crate) hooks: Vec<Hook>,
    pub(crate) paths: PathTable,
    pub(crate) schema: ContextSchema,
    pub(crate) action_types: ActionTypes,
    pub(crate) events: DeclaredEvents,
    pub(crate) layers: Vec<String>,
    /// The members a decision log hashes (`sensitive:`).
    pub(crate) sensitive: Vec<hookc_runtime::bytecode::path::PathId>,
}

/// What a hook that cannot decide does (`on_error:`,
/// `docs/src/semantics.md#hook-errors`), checked.
#[derive(Debug, Clone, Default)]
pub enum OnErrorPolicy {
    /// `skip`, the default.
    #[default]
    Skip,
    /// `fail`.
    Fail,
    /// `{action: ...}`: this terminal action decides.
    Action(Box<Action>),
}

impl CheckedPolicy {
    /// How terminal matches combine (`combine:`).
    pub fn combine(&self) -> Combine {
        self.combine
    }

    /// What a hook that cannot decide does (`on_error:`).
    pub fn on_error(&self) -> &OnErrorPolicy {
        &self.on_error
    }

    /// Which priorities run first.
    pub fn priority_order(&self) -> PriorityOrder {
        self.priority_order
    }

    /// What a host answer adds to a decision's reason (`attribution:`).
    pub fn attribution(&self) -> Attribution {
        self.attribution
    }

    /// The context members a decision log keeps only as a keyed hash
    /// (`sensitive:`), as ids of [`CheckedPolicy::paths`].
    pub fn sensitive(&self) -> &[hookc_runtime::bytecode::path::PathId] {
        &self.sensitive
    }

    /// The environment variables the policy declares (`env:`).
    pub fn environment(&self) -> &DeclaredEnvironment {
        &self.environment
    }

    /// The layers' names, lowest first (`builtin`, `directive` unless the
    /// compilation named its own).
    pub fn layers(&self) -> &[String] {
        &self.layers
    }

    /// The hooks in evaluation order (disabled ones included).
    pub fn hooks(&self) -> &[Hook] {
        &self.hooks
    }

    /// The interned paths.
    pub fn paths(&self) -> &PathTable {
        &self.paths
    }

    /// The context schema the policy was checked against.
    pub fn schema(&self) -> &ContextSchema {
        &self.schema
    }

    /// Whether the context schema of every event `hook` listens to
    /// guarantees `path` ([`ContextSchema::guarantees`]).
    pub fn schema_guarantees(
        &self,
        hook: &Hook,
        path: &hookc_runtime::bytecode::path::Path,
    ) -> bool {
        match &hook.events {
            Events::Any => self.schema.guarantees(path),
            Events::Named(names) => names
                .iter()
                .all(|n| self.events.schema_of(n, &self.schema).guarantees(path)),
        }
    }

    /// The events the policy declares (`docs/src/semantics.md#declared-events`).
    pub fn events(&self) -> &DeclaredEvents {
        &self.events
    }

    /// The action types in force.
    pub fn action_types(&self) -> &ActionTypes {
        &self.action_types
    }
}
