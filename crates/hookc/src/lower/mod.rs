//! Lowering: the checked IR ([`CheckedPolicy`]) becomes a bytecode [`Program`].
//!
//! This module owns the shape of the code the VM runs: the interning of
//! strings, paths, constants, regexes and sets; constant folding (in
//! `fold`); the shell-program prefilter (in `prefilter`, after folding);
//! expressions to code in `expr`, the operator and chain helpers both use
//! in `parts`;
//! the superinstructions; the short-circuit and macro code
//! shapes; the event index; and each hook's exact `max_stack`.
//!
//! Code shapes (jump targets are absolute and forward); the context leaves
//! (the fused `path OP constant`, `path in set`, `path.matches(re)` and
//! `has(path)`) and the `&&`/`||` links are written through
//! [`hookc_runtime::bytecode::shape`], where the runtime reads them back for
//! its fast paths:
//!
//! ```text
//! a && b      [a] AndShort(L) [b] AndJoin L:
//! a || b      [a] OrShort(L)  [b] OrJoin  L:
//! c ? a : b   [c] Branch{otherwise: E, end: L} [a] Jump(L) E: [b] L:
//! r.m(v, p)   [r] MacroStart{kind, end: L} [p] MacroNext L:
//! [x, y]      [x] [y] MakeList(2)        (items not all constant)
//! ```
//!
//! Like expr's compiler, `emit` returns the instruction's position and
//! forward jumps are emitted with a placeholder target and patched once the
//! target is known.
//!
//! Long `&&`/`||` chains (a YAML `all:`/`any:` list is a left-nested chain as
//! long as the list, which no depth limit bounds) are folded, lowered and
//! dropped by loops along their left spine, not by recursion.
//!
//! Determinism: every table is filled in first-use order while walking the
//! hooks in evaluation order; the `HashMap`s here are only looked up, never
//! iterated, so the same policy always gives the same `Program`.

use crate::check::actions::{ActionTypes, ActionValue, ParamDef, TypeBinding, TypeDef};
use crate::check::policy::{CheckedPolicy, Events, OnErrorPolicy};
use crate::ir::{BinaryOp, Const, IrExpr, IrExprKind, MacroKind, UnaryOp};
use crate::span::{SourceMap, Span};
use hookc_runtime::bytecode::path::{Path, PathId, PathTable};
use hookc_runtime::bytecode::shape::{CodeSink, Conjunct, Leaf, Link};
use hookc_runtime::bytecode::{
    AbsentHook, ActionEntry, ActionIdx, ActionParam, Binding, CmpOp, ConstIdx, DebugInfo,
    EventIndex, HookDebug, HookEntry, JumpTarget, MacroOp, Mark, OnError, Op, ParamValue, PathIdx,
    PatternTable, Program, RegexIdx, SetIdx, StrIdx, TableIdx, TemplatePart, ValueCheck,
};
use hookc_runtime::functions::Lowering;
use hookc_runtime::verify::record_required_literals;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

mod expr;
pub(crate) mod fold;
mod kept;
mod parts;
mod prefilter;

use parts::{drop_chains, exact};

/// Smallest constant list that `in` looks up in a hashed set ([`Op::InSet`])
/// instead of scanning it ([`Op::In`]).
///
/// Why 8 (an estimate, not yet measured by a bench): a scan compares the
/// probe with each item
/// ([`value::eq`](hookc_runtime::internals::value::eq): a kind check and a
/// compare, a few ns each, stopping at a match), while a set lookup hashes the probe once
/// (SipHash on a short string costs roughly what 5–10 such compares do) and
/// then compares one candidate. Near 8 items the two cost about the same;
/// past it the scan grows linearly while the lookup stays flat. Below it the
/// plain list also keeps the set table empty.
pub const SET_THRESHOLD: usize = 8;

/// Lowers a checked policy. Only enabled hooks are emitted, in the policy's
/// (evaluation) order. The program has no debug information.
pub fn lower(policy: &CheckedPolicy) -> Program {
    lower_hooks(policy, false).prog
}

/// [`lower`], plus the debug information explain traces use
/// ([`Program::debug`]): each hook's location and, for each sub-condition,
/// its last instruction, canonical text and location. Its strings are
/// interned after every other string, so the rest of the program is the
/// same as [`lower`]'s.
pub fn lower_with_debug(policy: &CheckedPolicy, sources: &SourceMap) -> Program {
    let mut l = lower_hooks(policy, true);
    let location = |span: Span| sources.location(span);
    let recorded = std::mem::take(&mut l.debug);
    let hooks = recorded
        .into_iter()
        .map(|(span, marks)| HookDebug {
            at: l.string(&location(span)),
            marks: marks
                .into_iter()
                .map(|(op, span, text)| Mark {
                    op,
                    text: l.string(&text),
                    at: l.string(&location(span)),
                })
                .collect(),
        })
        .collect();
    l.prog.debug = DebugInfo { hooks };
    l.prog
}

fn lower_hooks(policy: &CheckedPolicy, record: bool) -> Lowerer<'_> {
    let mut l = Lowerer::new(policy.paths());
    l.record = record;
    l.action_types = Some(policy.action_types());
    let mut events: Vec<&Events> = Vec::new();
    for hook in policy.hooks().iter().filter(|h| h.enabled) {
        l.hook(hook);
        events.push(&hook.events);
    }
    l.prog.events = l.event_index(&events);
    l.prog.layers = policy.layers().iter().map(|name| l.string(name)).collect();
    l.prog.priority_order = policy.priority_order();
    l.prog.attribution = policy.attribution();
    l.prog.reads_environment = policy.environment().is_declared();
    l.prog.sensitive = policy
        .sensitive()
        .iter()
        .filter_map(|&id| policy.paths().get(id))
        .map(|path| l.path(path))
        .collect();
    l.prog.model.combine = policy.combine();
    l.prog.model.on_error = match policy.on_error() {
        OnErrorPolicy::Skip => OnError::Skip,
        OnErrorPolicy::Fail => OnError::Fail,
        OnErrorPolicy::Action(action) => OnError::Action(l.action(action)),
    };
    // The ids of the hooks left out, once each, but not when a hook that
    // stays has the id (it replaced them).
    let present: HashSet<&str> = policy
        .hooks()
        .iter()
        .filter(|h| h.enabled)
        .map(|h| h.id.as_str())
        .collect();
    // A chain of replacements all left out (the top one disabled) is one
    // absent id, marked `replace` when its top hook is.
    let mut absent: Vec<(&str, bool)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for hook in policy.hooks().iter().filter(|h| !h.enabled) {
        if present.contains(hook.id.as_str()) {
            continue;
        }
        match index.get(hook.id.as_str()).and_then(|&i| absent.get_mut(i)) {
            Some((_, replace)) => *replace |= hook.replace,
            None => {
                index.insert(&hook.id, absent.len());
                absent.push((&hook.id, hook.replace));
            }
        }
    }
    l.prog.absent = absent
        .into_iter()
        .map(|(id, replace)| AbsentHook {
            id: l.string(id),
            replace,
        })
        .collect();
    record_required_literals(&mut l.prog);
    l
}

/// A sub-condition recorded for [`lower_with_debug`]: its last
/// instruction, span and canonical text.
type MarkedCondition = (u32, Span, String);

/// A table length or position as a `u32` index. Tables are bounded far below
/// `u32::MAX` by the input limits; if one ever were not, the saturated index
/// is out of bounds and the verifier rejects the program.
fn idx(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The lowering state: the program being built and the intern maps.
struct Lowerer<'p> {
    /// The policy's path table (the IR's `PathId`s index it).
    table: &'p PathTable,
    prog: Program,
    strings: HashMap<String, StrIdx>,
    /// Policy path id → program path index.
    paths: HashMap<PathId, PathIdx>,
    /// Program paths by value, for paths that are not the policy's (an
    /// awaited type's `bind`): the same path is one entry.
    by_path: HashMap<Path, PathIdx>,
    /// Constants by their JSON text: `1` and `1.0`, `0.0` and `-0.0` differ.
    consts: HashMap<String, ConstIdx>,
    regexes: HashMap<String, RegexIdx>,
    /// Const index → set index.
    sets: HashMap<ConstIdx, SetIdx>,
    // INVARIANT (exact max_stack): `depth` is the operand-stack height after
    // the last emitted instruction along its fall-through path, and
    // `max_depth` the largest height so far in this hook. Every other path
    // (a taken short circuit, `Branch`'s error exit, an empty macro range)
    // reaches its target at the height the fall-through path has there, so
    // `max_depth` is the exact maximum. Maintained by `emit` (stack effects)
    // and by `?:`, whose else code restarts from the height `Branch` left.
    /// Operand-stack depth after the last emitted instruction (this hook).
    depth: u32,
    /// Deepest `depth` so far (this hook).
    max_depth: u32,
    // INVARIANT (binders): the number of macros whose body encloses the
    // expression being emitted; `Var` converts the IR's outermost-first depth
    // with it. Incremented around each macro body only.
    /// Macro binders in scope at the expression being lowered.
    binders: u32,
    // INVARIANT (local binders): inside a local's expression, lowered where
    // it is used, `binders` at the use; its variables count from there
    // (`IrExprKind::Local`). 0 outside locals.
    /// Binders around the local whose expression is being lowered.
    var_base: u32,
    /// Whether to record sub-conditions for [`lower_with_debug`].
    record: bool,
    /// Sub-conditions being lowered around the current expression (0: the
    /// expression is a sub-condition or a logical operator over them).
    in_leaf: u32,
    /// Per hook lowered so far: its span and its sub-conditions.
    debug: Vec<(Span, Vec<MarkedCondition>)>,
    /// The declarations parameters are checked against at run time.
    action_types: Option<&'p ActionTypes>,
    // INVARIANT (row scope): `Some` only while the action of a hook with a
    // pattern table is lowered: there a path rooted at `row` reads the
    // table's first matching row (`Op::Row`), not the context.
    /// The pattern table whose row `row` names.
    row: Option<TableIdx>,
    /// The local names of the code being lowered, and the slots of those
    /// it keeps (`docs/src/semantics.md#local-names`).
    kept: kept::KeptLocals,
}

impl<'p> Lowerer<'p> {
    fn new(table: &'p PathTable) -> Lowerer<'p> {
        Lowerer {
            table,
            prog: Program::default(),
            strings: HashMap::new(),
            paths: HashMap::new(),
            by_path: HashMap::new(),
            consts: HashMap::new(),
            regexes: HashMap::new(),
            sets: HashMap::new(),
            depth: 0,
            max_depth: 0,
            binders: 0,
            var_base: 0,
            record: false,
            in_leaf: 0,
            debug: Vec::new(),
            action_types: None,
            row: None,
            kept: kept::KeptLocals::default(),
        }
    }

    // ---- interning --------------------------------------------------------

    fn string(&mut self, s: &str) -> StrIdx {
        if let Some(&i) = self.strings.get(s) {
            return i;
        }
        let i = StrIdx::from_usize(self.prog.strings.len());
        self.prog.strings.push(s);
        self.strings.insert(s.to_owned(), i);
        i
    }

    /// The program index of a policy path, interned at first use.
    fn path_id(&mut self, id: PathId) -> PathIdx {
        if let Some(&i) = self.paths.get(&id) {
            return i;
        }
        let Some(path) = self.table.get(id) else {
            // Every id of a checked policy is in its table. Were one not, the
            // out-of-bounds index makes the verifier reject the program.
            return PathIdx::new(u32::MAX);
        };
        let i = self.path(path);
        self.paths.insert(id, i);
        i
    }

    /// The program index of a path, interned at first use.
    fn path(&mut self, path: &Path) -> PathIdx {
        if let Some(&i) = self.by_path.get(path) {
            return i;
        }
        let i = PathIdx::from_usize(self.prog.paths.len());
        self.prog.paths.push(path.clone());
        self.by_path.insert(path.clone(), i);
        i
    }

    fn json(&mut self, v: Value) -> ConstIdx {
        let key = serde_json::to_string(&v).ok();
        if let Some(&i) = key.as_ref().and_then(|k| self.consts.get(k)) {
            return i;
        }
        let i = ConstIdx::from_usize(self.prog.consts.len());
        self.prog.consts.push(v);
        if let Some(k) = key {
            self.consts.insert(k, i);
        }
        i
    }

    /// `recv` tested against `pattern`: the fused path test when `recv`
    /// is a context path, else `recv` then `Matches`.
    fn regex_test(&mut self, recv: &IrExpr, pattern: &str) {
        let r = self.regex(pattern);
        if let Some(path) = self.context_path(recv) {
            Conjunct::Leaf(Leaf::Matches { path, regex: r }).write(self);
        } else {
            self.expr(recv);
            self.emit(Op::Matches(r));
        }
    }

    fn regex(&mut self, pattern: &str) -> RegexIdx {
        if let Some(&i) = self.regexes.get(pattern) {
            return i;
        }
        let i = RegexIdx::from_usize(self.prog.regexes.len());
        self.prog.regexes.push(pattern.to_owned());
        self.regexes.insert(pattern.to_owned(), i);
        i
    }

    fn set(&mut self, list: &Const) -> SetIdx {
        let k = self.json(list.to_json());
        if let Some(&i) = self.sets.get(&k) {
            return i;
        }
        let i = SetIdx::from_usize(self.prog.sets.len());
        self.prog.sets.push(k);
        self.sets.insert(k, i);
        i
    }

    // ---- emission ---------------------------------------------------------
    // (`emit` and `here` are the `CodeSink` impl below: the code shapes the
    // runtime's fast paths read are written through `shape`.)

    /// Points the forward jump at `at` (a `Jump`, or the `end` of a `Branch`
    /// or `MacroStart`) to `target`; `&&`/`||` links point their own
    /// ([`Link::close`]).
    // INVARIANT (forward jumps): every placeholder is patched, once its
    // target is emitted, to a position after itself and inside the hook (at
    // most its `Return`).
    fn patch(&mut self, at: u32, target: u32) {
        let target = JumpTarget::new(target);
        match self.prog.code.get_mut(at as usize) {
            Some(Op::Jump(t)) => *t = target,
            Some(
                Op::MacroStart { end, .. } | Op::Branch { end, .. } | Op::LocalLoad { end, .. },
            ) => *end = target,
            _ => {}
        }
    }

    // ---- hooks ------------------------------------------------------------

    fn hook(&mut self, hook: &crate::check::policy::Hook) {
        let id = self.string(&hook.id);
        let description = hook.description.as_deref().map(|d| self.string(d));
        let start = self.here();
        self.depth = 0;
        self.max_depth = 0;
        self.binders = 0;
        self.var_base = 0;
        self.kept = kept::KeptLocals::default();
        if self.record {
            self.debug.push((hook.span, Vec::new()));
        }
        let table = hook.table.as_ref().map(|t| self.table(t));
        let mut code = false;
        if let Some(cond) = &hook.condition {
            let folded = prefilter::shell_programs(fold::fold(cond));
            // INVARIANT (empty code = always): a condition that folds to
            // `true` is the same as none, and gets the empty code range.
            if !matches!(folded.kind, IrExprKind::Const(Const::Bool(true))) {
                self.kept = kept::KeptLocals::of(&folded);
                self.expr(&folded);
                code = true;
            }
            drop_chains(folded);
        }
        // `docs/src/semantics.md#pattern-tables`: the hook matches when its
        // condition holds and a row matches: `cond && <a row matched>`.
        if let Some(t) = table {
            let link = code.then(|| Link::open(self, true));
            self.emit(Op::Row(t));
            self.emit(Op::TypeIs(hookc_runtime::bytecode::Kinds::OBJECT.bits()));
            if let Some(link) = link {
                link.close(self);
            }
            code = true;
        }
        if code {
            self.emit(Op::Return);
        }
        let end = self.here();
        self.row = table;
        let action = self.action(&hook.action);
        self.row = None;
        self.prog.hooks.push(HookEntry {
            id,
            priority: hook.priority,
            layer: hook.layer,
            description,
            code: (start, end),
            max_stack: self.max_depth,
            action,
            replace: hook.replace,
        });
    }

    /// A hook's pattern table: its path, patterns (regexes of the table)
    /// and rows (one list constant).
    fn table(&mut self, t: &crate::check::policy::HookTable) -> TableIdx {
        let on = self.path_id(t.on);
        let patterns = t.patterns.iter().map(|p| self.regex(p)).collect();
        let rows = Value::Array(t.rows.iter().cloned().map(Value::Object).collect());
        let rows = self.json(rows);
        let i = TableIdx::from_usize(self.prog.tables.len());
        self.prog.tables.push(PatternTable { on, patterns, rows });
        i
    }

    /// The pattern table whose row path `id` reads, when it is a path rooted
    /// at `row` in the action of a hook with a table.
    fn row_table(&self, id: PathId) -> Option<TableIdx> {
        let t = self.row?;
        let path = self.table.get(id)?;
        (path.root_name() == crate::ir::ROW_ROOT).then_some(t)
    }

    /// The program path of an expression that is a context path (not a
    /// table's row path), for the fused leaves.
    fn context_path(&mut self, e: &IrExpr) -> Option<PathIdx> {
        match e.kind {
            IrExprKind::Path(id) if self.row_table(id).is_none() => Some(self.path_id(id)),
            _ => None,
        }
    }

    /// The [`Conjunct`] of a test of a context path against a constant
    /// that has no fused instruction (`path in [short list]`,
    /// `path.startsWith('p')`, `path.contains('s')`), written through the shape module so that
    /// the hook index reads back exactly what was written. Its code is the
    /// generic lowering's: the path, the constant, the operator.
    fn short_conjunct(&mut self, e: &IrExpr) -> Option<Conjunct> {
        use IrExprKind as K;
        let (path, konst, op) = match &e.kind {
            K::Binary {
                op: BinaryOp::In,
                lhs,
                rhs,
                ..
            } => match &rhs.kind {
                K::Const(list @ Const::List(items))
                    if items.len() < SET_THRESHOLD && exact(list) =>
                {
                    (&**lhs, list, Op::In)
                }
                _ => return None,
            },
            K::Call(f, args) => match (f.def().lowering, args.as_slice()) {
                (Lowering::Instruction(op @ (Op::StartsWith | Op::Contains)), [recv, arg]) => {
                    match &arg.kind {
                        K::Const(text @ Const::String(_)) => (recv, text, op),
                        _ => return None,
                    }
                }
                _ => return None,
            },
            _ => return None,
        };
        let path = self.context_path(path)?;
        let konst = self.json(konst.to_json());
        Some(match op {
            Op::StartsWith => Conjunct::StartsWith {
                path,
                prefix: konst,
            },
            Op::Contains => Conjunct::Contains {
                path,
                needle: konst,
            },
            _ => Conjunct::In { path, list: konst },
        })
    }

    /// Code reading a path rooted at `row` from table `t`'s row: `Row`,
    /// then a selection per segment.
    fn row_path(&mut self, t: TableIdx, id: PathId) {
        self.emit(Op::Row(t));
        let segments = self
            .table
            .get(id)
            .map(|p| p.segments().to_vec())
            .unwrap_or_default();
        for segment in segments {
            match segment {
                hookc_runtime::bytecode::Segment::Field(name) => {
                    let s = self.string(&name);
                    self.emit(Op::Field(s));
                }
                hookc_runtime::bytecode::Segment::Index(i) => {
                    let k = self.json(Value::from(i));
                    self.emit(Op::Const(k));
                    self.emit(Op::Index);
                }
            }
        }
    }

    fn action(&mut self, action: &crate::check::actions::Action) -> ActionIdx {
        let kind = self.string(&action.kind);
        let ty = self.action_types.and_then(|types| types.get(&action.kind));
        let params = action
            .params
            .iter()
            .map(|(name, value)| {
                // A run-time check only where a template may not fit.
                let def = ty.and_then(|t| t.param(name)).map(ParamDef::ty);
                ActionParam {
                    name: self.string(name),
                    value: self.param(value),
                    check: def
                        .filter(|def| def.may_misfit(value))
                        .map(|def| self.check(def)),
                }
            })
            .collect();
        let bind = ty.and_then(|t| t.bind()).map(|b| match b {
            TypeBinding::Path(path) => Binding::Path(self.path(path)),
            TypeBinding::Parameter(name) => Binding::Parameter(self.string(name)),
        });
        let i = ActionIdx::from_usize(self.prog.actions.len());
        self.prog.actions.push(ActionEntry {
            kind,
            effect: action.effect,
            severity: ty.map_or(0, |t| t.severity()),
            bind,
            params,
        });
        i
    }

    /// A type definition as a run-time check, its enum a list constant.
    /// Recursion follows `items`, as deep as the document it was read from.
    fn check(&mut self, def: &TypeDef) -> ValueCheck {
        ValueCheck {
            kinds: def.kinds(),
            allowed: def.allowed().map(|values| {
                let list = values.iter().filter_map(ActionValue::const_json).collect();
                self.json(Value::Array(list))
            }),
            items: def.items().map(|items| Box::new(self.check(items))),
        }
    }

    fn param(&mut self, value: &ActionValue) -> ParamValue {
        match value {
            ActionValue::Template(t) => ParamValue::Template(
                t.parts()
                    .iter()
                    .map(|p| match p {
                        crate::check::template::TemplatePiece::Lit(s) => {
                            TemplatePart::Lit(self.string(s))
                        }
                        crate::check::template::TemplatePiece::Path(id) => {
                            // `${row.f}` reads the table's row: code, not a
                            // context path.
                            match self.row_table(*id) {
                                Some(t) => self.template_code(|l| l.row_path(t, *id)),
                                None => TemplatePart::Path(self.path_id(*id)),
                            }
                        }
                        crate::check::template::TemplatePiece::Expr(e) => {
                            self.template_expr(&e.expr)
                        }
                    })
                    .collect(),
            ),
            ActionValue::List(items) if value.has_templates() => {
                ParamValue::List(items.iter().map(|v| self.param(v)).collect())
            }
            ActionValue::Object(entries) if value.has_templates() => ParamValue::Object(
                entries
                    .iter()
                    .map(|(k, v)| (self.string(k), self.param(v)))
                    .collect(),
            ),
            // Template-free: the value the runtime returns, built once.
            other => ParamValue::Const(self.json(other.const_json().unwrap_or(Value::Null))),
        }
    }

    /// A template's expression part: its code, folded and lowered like a
    /// condition, appended to the code (after the hook's own code, so the
    /// hooks' ranges stay in order) and ending in `Return`, with its own
    /// exact `max_stack`. The hook's lowering state is kept around it; no
    /// sub-condition is recorded for explain (marks are the condition's).
    fn template_expr(&mut self, e: &IrExpr) -> TemplatePart {
        let folded = fold::fold(e);
        let kept = std::mem::replace(&mut self.kept, kept::KeptLocals::of(&folded));
        let part = self.template_code(|l| l.expr(&folded));
        self.kept = kept;
        drop_chains(folded);
        part
    }

    /// The code `body` emits as a template part, ending in `Return`.
    fn template_code(&mut self, body: impl FnOnce(&mut Self)) -> TemplatePart {
        let saved = (self.depth, self.max_depth, self.binders, self.var_base);
        (self.depth, self.max_depth, self.binders, self.var_base) = (0, 0, 0, 0);
        self.in_leaf += 1;
        let start = self.here();
        body(self);
        self.emit(Op::Return);
        let end = self.here();
        self.in_leaf -= 1;
        let max_stack = self.max_depth;
        (self.depth, self.max_depth, self.binders, self.var_base) = saved;
        TemplatePart::Expr {
            code: (start, end),
            max_stack,
        }
    }

    /// Builds the event index from each emitted hook's events.
    fn event_index(&mut self, events: &[&Events]) -> EventIndex {
        let mut wildcard: Vec<u32> = Vec::new();
        // Sorted by name (byte order = `str::cmp`, what `hooks_for` searches by).
        let mut named: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (k, ev) in events.iter().enumerate() {
            let k = idx(k);
            match ev {
                Events::Any => wildcard.push(k),
                Events::Named(names) => {
                    for name in names {
                        let list = named.entry(name.as_str()).or_default();
                        // Names are deduplicated per hook; keep it robust anyway.
                        if list.last() != Some(&k) {
                            list.push(k);
                        }
                    }
                }
            }
        }
        let named = named
            .into_iter()
            .map(|(name, own)| (self.string(name), merge(&own, &wildcard)))
            .collect();
        EventIndex { named, wildcard }
    }

    // ---- expressions ------------------------------------------------------
}

impl CodeSink for Lowerer<'_> {
    /// Appends an instruction, tracking the stack depth along the
    /// fall-through path; returns its position.
    fn emit(&mut self, op: Op) -> u32 {
        let at = idx(self.prog.code.len());
        let (pops, pushes) = op.stack_effect();
        self.depth = self.depth.saturating_sub(pops) + pushes;
        self.max_depth = self.max_depth.max(self.depth);
        self.prog.code.push(op);
        at
    }

    /// The position the next instruction will have.
    fn here(&self) -> u32 {
        idx(self.prog.code.len())
    }

    fn op_mut(&mut self, at: u32) -> Option<&mut Op> {
        self.prog.code.get_mut(at as usize)
    }
}

/// Merges two ascending hook lists.
fn merge(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        if x <= y {
            out.push(x);
            i += 1;
            if x == y {
                j += 1;
            }
        } else {
            out.push(y);
            j += 1;
        }
    }
    out.extend_from_slice(a.get(i..).unwrap_or(&[]));
    out.extend_from_slice(b.get(j..).unwrap_or(&[]));
    out
}

#[cfg(test)]
mod tests;
