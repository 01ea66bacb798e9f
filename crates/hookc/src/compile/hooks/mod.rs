//! The driver's third stage: every hook checked (its id, events,
//! priority, condition, action and pattern table) against the policy's
//! settings, in source order, then the ids resolved across files and
//! layers (duplicates, replacements).

mod events;

use super::settings::PolicySettings;
use crate::check::actions::{self, ActionTypes};
use crate::check::events::DeclaredEvents;
use crate::check::policy::{Events, Hook};
use crate::check::schema::ContextSchema;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::{self, RawCondition, SourceFile, SourceHook};
use crate::ir::IrExpr;
use crate::resolve::ast_to_ir::{LocalDef, Resolver};
use crate::resolve::tree_to_ir::TreeResolver;
use crate::span::{FileId, SourceMap, Span};
use hookc_runtime::bytecode::path::PathTable;
use std::collections::HashMap;

/// Which layer each file's hooks are in.
pub(super) struct Layering<'a> {
    /// Parallel to the files: a file's layer as its position among the
    /// layers' first mentions (`None`: by YAML section).
    pub of_files: &'a [Option<u32>],
    /// With the layers listed highest first, the highest mention, which
    /// the positions count down from.
    pub rank: Option<u32>,
    /// The layers' names, in their listed order.
    pub names: &'a [String],
}

/// Checks every hook of `files`, returning the checked ones and, in the
/// same order, where each was written (for the lints).
pub(super) fn check_hooks(
    files: &[(FileId, SourceFile)],
    layering: &Layering<'_>,
    settings: &PolicySettings,
    sources: &SourceMap,
    paths: &mut PathTable,
    diags: &mut Diagnostics,
) -> (Vec<Hook>, Vec<crate::lint::HookOrigin>) {
    let mut hooks = Vec::new();
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
        return (hooks, origins);
    }
    let is_member = |name: &str| settings.is_member(name);
    let mut ids: Vec<IdUse> = Vec::new();
    let mut regexes = crate::check::typeck::RegexMemo::default();
    for ((id, file), layer) in files.iter().zip(layering.of_files) {
        let name = sources.name(*id).to_owned();
        let text = sources.get(*id).map_or("", |f| f.text());
        for raw in &file.hooks {
            let layer = match (layer, layering.rank) {
                (Some(mention), Some(top)) => top.saturating_sub(*mention),
                (Some(mention), None) => *mention,
                (None, _) => match raw.layer {
                    frontend::Layer::Builtin => 0,
                    frontend::Layer::Directive => 1,
                },
            };
            let cx = HookContext {
                layer,
                default_priority: settings.default_priority,
                file_name: &name,
                text,
                schema: &settings.schema,
                types: &settings.types,
                events: &settings.events,
                sources,
                locals: &settings.locals,
                is_member: &is_member,
            };
            let checked = check_hook(&cx, raw, hooks.len(), paths, &mut regexes, diags);
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
    resolve_ids(&ids, &mut hooks, layering.names, sources, diags);
    crate::resolve::locals::report_unused(&settings.locals, diags);
    (hooks, origins)
}

/// What checking one hook needs of the compilation.
pub(super) struct HookContext<'a> {
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

/// A hook's id: given, or `<file>#<section>[<index>]`.
pub(super) fn hook_id(raw: &SourceHook, file_name: &str) -> String {
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
pub(super) type ResolvedCondition = (
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
