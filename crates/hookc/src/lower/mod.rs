//! Lowering: the checked IR ([`Policy`]) becomes a bytecode [`Program`].
//!
//! This module owns the shape of the code the VM runs: the interning of
//! strings, paths, constants, regexes and sets; constant folding; the
//! superinstructions; the short-circuit and macro code shapes; the event
//! index; and each hook's exact `max_stack`.
//!
//! Code shapes (jump targets are absolute and forward):
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

use crate::check::actions::ActionValue;
use crate::ir::{
    BinaryOp, Const, Events, Func, IrExpr as Expr, IrExprKind as ExprKind, MacroKind, Policy,
    UnaryOp,
};
use crate::span::{SourceMap, Span};
use hookc_runtime::bytecode::path::{PathId, PathTable};
use hookc_runtime::bytecode::{
    ActionEntry, CmpOp, DebugInfo, EventIndex, HookDebug, HookEntry, MacroOp, Mark, Op, ParamValue,
    Program, TemplatePart,
};
use hookc_runtime::internals::value::{self, Val};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Smallest constant list that `in` looks up in a hashed set ([`Op::InSet`])
/// instead of scanning it ([`Op::In`]).
///
/// Why 8 (an estimate, not yet measured by a bench): a scan compares the
/// probe with each item ([`value::eq`]: a kind check and a compare, a few ns
/// each, stopping at a match), while a set lookup hashes the probe once
/// (SipHash on a short string costs roughly what 5–10 such compares do) and
/// then compares one candidate. Near 8 items the two cost about the same;
/// past it the scan grows linearly while the lookup stays flat. Below it the
/// plain list also keeps the set table empty.
pub const SET_THRESHOLD: usize = 8;

/// Lowers a checked policy. Only enabled hooks are emitted, in the policy's
/// (evaluation) order. The program has no debug information.
pub fn lower(policy: &Policy) -> Program {
    lower_hooks(policy, false).prog
}

/// [`lower`], plus the debug information explain traces use
/// ([`Program::debug`]): each hook's location and, for each sub-condition,
/// its last instruction, canonical text and location. Its strings are
/// interned after every other string, so the rest of the program is the
/// same as [`lower`]'s.
pub fn lower_with_debug(policy: &Policy, sources: &SourceMap) -> Program {
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

fn lower_hooks(policy: &Policy, record: bool) -> Lowerer<'_> {
    let mut l = Lowerer::new(policy.paths());
    l.record = record;
    let mut events: Vec<&Events> = Vec::new();
    for hook in policy.hooks().iter().filter(|h| h.enabled) {
        l.hook(hook);
        events.push(&hook.events);
    }
    l.prog.events = l.event_index(&events);
    l.prog.layers = policy.layers().iter().map(|name| l.string(name)).collect();
    l
}

/// A sub-condition recorded for [`lower_with_debug`]: its last
/// instruction, span and canonical text.
type SubCondition = (u32, Span, String);

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
    strings: HashMap<String, u32>,
    /// Policy path id → program path index.
    paths: HashMap<PathId, u32>,
    /// Constants by their JSON text: `1` and `1.0`, `0.0` and `-0.0` differ.
    consts: HashMap<String, u32>,
    regexes: HashMap<String, u32>,
    /// Const index → set index.
    sets: HashMap<u32, u32>,
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
    /// Whether to record sub-conditions for [`lower_with_debug`].
    record: bool,
    /// Sub-conditions being lowered around the current expression (0: the
    /// expression is a sub-condition or a logical operator over them).
    in_leaf: u32,
    /// Per hook lowered so far: its span and its sub-conditions.
    debug: Vec<(Span, Vec<SubCondition>)>,
}

impl<'p> Lowerer<'p> {
    fn new(table: &'p PathTable) -> Lowerer<'p> {
        Lowerer {
            table,
            prog: Program::default(),
            strings: HashMap::new(),
            paths: HashMap::new(),
            consts: HashMap::new(),
            regexes: HashMap::new(),
            sets: HashMap::new(),
            depth: 0,
            max_depth: 0,
            binders: 0,
            record: false,
            in_leaf: 0,
            debug: Vec::new(),
        }
    }

    // ---- interning --------------------------------------------------------

    fn string(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.strings.get(s) {
            return i;
        }
        let i = idx(self.prog.strings.len());
        self.prog.strings.push(s.to_owned());
        self.strings.insert(s.to_owned(), i);
        i
    }

    /// The program index of a policy path, interned at first use.
    fn path_id(&mut self, id: PathId) -> u32 {
        if let Some(&i) = self.paths.get(&id) {
            return i;
        }
        let Some(path) = self.table.get(id) else {
            // Every id of a checked policy is in its table. Were one not, the
            // out-of-bounds index makes the verifier reject the program.
            return u32::MAX;
        };
        let i = idx(self.prog.paths.len());
        self.prog.paths.push(path.clone());
        self.paths.insert(id, i);
        i
    }

    fn json(&mut self, v: Value) -> u32 {
        let key = serde_json::to_string(&v).ok();
        if let Some(&i) = key.as_ref().and_then(|k| self.consts.get(k)) {
            return i;
        }
        let i = idx(self.prog.consts.len());
        self.prog.consts.push(v);
        if let Some(k) = key {
            self.consts.insert(k, i);
        }
        i
    }

    fn regex(&mut self, pattern: &str) -> u32 {
        if let Some(&i) = self.regexes.get(pattern) {
            return i;
        }
        let i = idx(self.prog.regexes.len());
        self.prog.regexes.push(pattern.to_owned());
        self.regexes.insert(pattern.to_owned(), i);
        i
    }

    fn set(&mut self, list: &Const) -> u32 {
        let k = self.json(list.to_json());
        if let Some(&i) = self.sets.get(&k) {
            return i;
        }
        let i = idx(self.prog.sets.len());
        self.prog.sets.push(k);
        self.sets.insert(k, i);
        i
    }

    // ---- emission ---------------------------------------------------------

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

    /// Points the forward jump at `at` to `target`.
    // INVARIANT (forward jumps): every placeholder is patched, once its
    // target is emitted, to a position after itself and inside the hook (at
    // most its `Return`).
    fn patch(&mut self, at: u32, target: u32) {
        if let Some(op) = self.prog.code.get_mut(at as usize) {
            match op {
                Op::AndShort(t) | Op::OrShort(t) | Op::Jump(t) => *t = target,
                Op::MacroStart { end, .. } => *end = target,
                Op::Branch { end, .. } => *end = target,
                _ => {}
            }
        }
    }

    // ---- hooks ------------------------------------------------------------

    fn hook(&mut self, hook: &crate::ir::Hook) {
        let id = self.string(&hook.id);
        let description = hook.description.as_deref().map(|d| self.string(d));
        let start = self.here();
        self.depth = 0;
        self.max_depth = 0;
        self.binders = 0;
        if self.record {
            self.debug.push((hook.span, Vec::new()));
        }
        if let Some(cond) = &hook.condition {
            let folded = fold(cond);
            // INVARIANT (empty code = always): a condition that folds to
            // `true` is the same as none, and gets the empty code range.
            if !matches!(folded.kind, ExprKind::Const(Const::Bool(true))) {
                self.expr(&folded);
                self.emit(Op::Return);
            }
            drop_chains(folded);
        }
        let end = self.here();
        let action = self.action(&hook.action);
        self.prog.hooks.push(HookEntry {
            id,
            priority: hook.priority,
            layer: hook.layer,
            description,
            code: (start, end),
            max_stack: self.max_depth,
            action,
        });
    }

    fn action(&mut self, action: &crate::check::actions::Action) -> u32 {
        let kind = self.string(&action.kind);
        let params = action
            .params
            .iter()
            .map(|(name, value)| (self.string(name), self.param(value)))
            .collect();
        let i = idx(self.prog.actions.len());
        self.prog.actions.push(ActionEntry { kind, params });
        i
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
                            TemplatePart::Path(self.path_id(*id))
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

    /// Emits code leaving `e`'s value on the stack (`depth + 1`).
    /// Lowers `e`; when recording, an operand of the logical operators that
    /// is not one itself is a sub-condition: its last instruction is marked.
    fn expr(&mut self, e: &Expr) {
        let logical = matches!(
            e.kind,
            ExprKind::And(..)
                | ExprKind::Or(..)
                | ExprKind::Cond(..)
                | ExprKind::Unary(UnaryOp::Not, _)
                | ExprKind::Binary {
                    op: BinaryOp::And | BinaryOp::Or,
                    ..
                }
        );
        if !self.record || self.in_leaf > 0 || logical {
            return self.expr_code(e);
        }
        self.in_leaf += 1;
        self.expr_code(e);
        self.in_leaf -= 1;
        let text = e
            .to_source(self.table)
            .unwrap_or_else(|| "<condition>".to_owned());
        if let (Some(last), Some((_, marks))) = (self.here().checked_sub(1), self.debug.last_mut())
        {
            marks.push((last, e.span, text));
        }
    }

    fn expr_code(&mut self, e: &Expr) {
        use ExprKind as K;
        match &e.kind {
            K::Const(c) => self.constant(c),
            K::List(items) => {
                for item in items {
                    self.expr(item);
                }
                self.emit(Op::MakeList(idx(items.len())));
            }
            K::Path(id) => {
                let p = self.path_id(*id);
                self.emit(Op::Path(p));
            }
            K::Var { depth, .. } => {
                // IR depth counts binders from the outermost; `Op::Var` from
                // the innermost. A checked policy has `depth < binders`; an
                // unbound one saturates to an index the verifier rejects.
                let d = self
                    .binders
                    .checked_sub(depth.saturating_add(1))
                    .and_then(|d| u16::try_from(d).ok())
                    .unwrap_or(u16::MAX);
                self.emit(Op::Var(d));
            }
            K::Field(base, name) => {
                self.expr(base);
                let s = self.string(name);
                self.emit(Op::Field(s));
            }
            K::Index(base, index) => {
                self.expr(base);
                self.expr(index);
                self.emit(Op::Index);
            }
            K::HasPath(id) => {
                let p = self.path_id(*id);
                self.emit(Op::HasPath(p));
            }
            K::HasField(base, name) => {
                self.expr(base);
                let s = self.string(name);
                self.emit(Op::HasField(s));
            }
            K::Unary(op, operand) => {
                self.expr(operand);
                self.emit(match op {
                    UnaryOp::Not => Op::Not,
                    UnaryOp::Neg => Op::Neg,
                });
            }
            K::And(..)
            | K::Or(..)
            | K::Binary {
                op: BinaryOp::And | BinaryOp::Or,
                ..
            } => self.logic_chain(e),
            K::Binary { op, lhs, rhs, .. } => self.binary(*op, lhs, rhs),
            K::Cond(c, a, b) => {
                self.expr(c);
                let branch = self.emit(Op::Branch {
                    otherwise: 0,
                    end: 0,
                });
                let base = self.depth;
                self.expr(a);
                let jump = self.emit(Op::Jump(0));
                let otherwise = self.here();
                // The else code starts from the depth the Branch left.
                self.depth = base;
                self.expr(b);
                let end = self.here();
                if let Some(Op::Branch { otherwise: o, .. }) =
                    self.prog.code.get_mut(branch as usize)
                {
                    *o = otherwise;
                }
                self.patch(branch, end);
                self.patch(jump, end);
            }
            K::Call(f, args) => {
                for a in args {
                    self.expr(a);
                }
                self.emit(match f {
                    Func::Size => Op::Size,
                    Func::Contains => Op::Contains,
                    Func::StartsWith => Op::StartsWith,
                    Func::EndsWith => Op::EndsWith,
                });
            }
            K::Matches(recv, re) => {
                let r = self.regex(&re.pattern);
                if let K::Path(id) = recv.kind {
                    let path = self.path_id(id);
                    self.emit(Op::PathMatches { path, regex: r });
                } else {
                    self.expr(recv);
                    self.emit(Op::Matches(r));
                }
            }
            K::Macro {
                kind, range, body, ..
            } => {
                self.expr(range);
                let start = self.emit(Op::MacroStart {
                    kind: macro_op(*kind),
                    end: 0,
                });
                self.binders += 1;
                self.expr(body);
                self.binders -= 1;
                self.emit(Op::MacroNext);
                let end = self.here();
                self.patch(start, end);
            }
            K::TypeIs(operand, kinds) => {
                self.expr(operand);
                self.emit(Op::TypeIs(kinds.bits()));
            }
            K::SchemaMatch { check, .. } => self.expr(check),
        }
    }

    /// A chain `a && b && c` (or of `||`): the same code as lowering each
    /// node in turn, but walking the left spine in a loop. YAML `all`/`any`
    /// lists become left-nested chains as long as the list, which no depth
    /// limit bounds, so this must not recurse per item.
    fn logic_chain(&mut self, e: &Expr) {
        let Some((_, _, and)) = logic_parts(e) else {
            return self.expr(e);
        };
        let (leaf, rights) = left_spine(e, and);
        self.expr(leaf);
        for (b, _) in rights.into_iter().rev() {
            let short = self.emit(if and { Op::AndShort(0) } else { Op::OrShort(0) });
            self.expr(b);
            self.emit(if and { Op::AndJoin } else { Op::OrJoin });
            let end = self.here();
            self.patch(short, end);
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr) {
        use ExprKind as K;
        if let Some(c) = cmp_op(op) {
            // Superinstruction: `path OP constant`, or `constant OP path`
            // mirrored (`5 < p` is `p > 5`: equality is symmetric, ordering
            // flips, errors and mismatched kinds are the same either way).
            let fused = match (&lhs.kind, &rhs.kind) {
                (K::Path(p), K::Const(k)) if exact(k) => Some((*p, k, c)),
                (K::Const(k), K::Path(p)) if exact(k) => Some((*p, k, mirror(c))),
                _ => None,
            };
            if let Some((p, k, c)) = fused {
                let path = self.path_id(p);
                let konst = self.json(k.to_json());
                self.emit(Op::PathCmpConst { path, konst, op: c });
            } else {
                self.expr(lhs);
                self.expr(rhs);
                self.emit(Op::Cmp(c));
            }
            return;
        }
        let op = match op {
            // `expr` sends these to `logic_chain`; both sides known, the join
            // alone is the same value.
            BinaryOp::And => Op::AndJoin,
            BinaryOp::Or => Op::OrJoin,
            BinaryOp::In => {
                if let K::Const(list @ Const::List(items)) = &rhs.kind {
                    if items.len() >= SET_THRESHOLD && exact(list) {
                        let set = self.set(list);
                        if let K::Path(p) = lhs.kind {
                            let path = self.path_id(p);
                            self.emit(Op::PathInSet { path, set });
                        } else {
                            self.expr(lhs);
                            self.emit(Op::InSet(set));
                        }
                        return;
                    }
                }
                Op::In
            }
            other => arith_op(other).unwrap_or(Op::In),
        };
        self.expr(lhs);
        self.expr(rhs);
        self.emit(op);
    }

    /// Pushes a constant.
    fn constant(&mut self, c: &Const) {
        match c {
            Const::Null => {
                self.emit(Op::Null);
            }
            Const::Bool(true) => {
                self.emit(Op::True);
            }
            Const::Bool(false) => {
                self.emit(Op::False);
            }
            // JSON (and so the pool) has no NaN or infinities: compute them
            // as CEL writes them, `0.0 / 0.0`, `1.0 / 0.0`, `-1.0 / 0.0`.
            Const::Double(d) if !d.is_finite() => {
                let num = if d.is_nan() {
                    0.0
                } else if *d > 0.0 {
                    1.0
                } else {
                    -1.0
                };
                let n = self.json(Const::Double(num).to_json());
                let z = self.json(Const::Double(0.0).to_json());
                self.emit(Op::Const(n));
                self.emit(Op::Const(z));
                self.emit(Op::Div);
            }
            Const::List(items) if !exact(c) => {
                for item in items {
                    self.constant(item);
                }
                self.emit(Op::MakeList(idx(items.len())));
            }
            // An object holding a non-finite double cannot be a runtime value
            // at all (`Val::Object` borrows a JSON map), so it takes
            // `Const::to_json`'s form (`null` in its place), as any evaluator
            // over `Val` must. Everything else is exact.
            _ => {
                let i = self.json(c.to_json());
                self.emit(Op::Const(i));
            }
        }
    }
}

/// The operands of a logical node and whether it is `&&`.
fn logic_parts(e: &Expr) -> Option<(&Expr, &Expr, bool)> {
    match &e.kind {
        ExprKind::And(a, b) => Some((a, b, true)),
        ExprKind::Or(a, b) => Some((a, b, false)),
        ExprKind::Binary {
            op: op @ (BinaryOp::And | BinaryOp::Or),
            lhs,
            rhs,
            ..
        } => Some((lhs, rhs, *op == BinaryOp::And)),
        _ => None,
    }
}

/// The left spine of a chain of one logical operator: its leftmost operand
/// and the right operands from the top down, with each node's span.
fn left_spine(e: &Expr, and: bool) -> (&Expr, Vec<(&Expr, Span)>) {
    let mut rights = Vec::new();
    let mut cur = e;
    while let Some((a, b, k)) = logic_parts(cur) {
        if k != and {
            break;
        }
        rights.push((b, cur.span));
        cur = a;
    }
    (cur, rights)
}

/// Drops an expression without recursing along `&&`/`||` left spines (the
/// derived drop of a `Box` chain recurses once per link).
fn drop_chains(e: Expr) {
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match e.kind {
            ExprKind::And(a, b) | ExprKind::Or(a, b) => todo.extend([*a, *b]),
            _ => {}
        }
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

fn macro_op(kind: MacroKind) -> MacroOp {
    match kind {
        MacroKind::Exists => MacroOp::Exists,
        MacroKind::All => MacroOp::All,
        MacroKind::ExistsOne => MacroOp::ExistsOne,
    }
}

fn cmp_op(op: BinaryOp) -> Option<CmpOp> {
    Some(match op {
        BinaryOp::Eq => CmpOp::Eq,
        BinaryOp::Ne => CmpOp::Ne,
        BinaryOp::Lt => CmpOp::Lt,
        BinaryOp::Le => CmpOp::Le,
        BinaryOp::Gt => CmpOp::Gt,
        BinaryOp::Ge => CmpOp::Ge,
        _ => return None,
    })
}

fn arith_op(op: BinaryOp) -> Option<Op> {
    Some(match op {
        BinaryOp::Add => Op::Add,
        BinaryOp::Sub => Op::Sub,
        BinaryOp::Mul => Op::Mul,
        BinaryOp::Div => Op::Div,
        BinaryOp::Rem => Op::Rem,
        _ => return None,
    })
}

/// The instruction computing `a OP b` for an operator other than `&&`/`||`.
fn binary_instr(op: BinaryOp) -> Option<Op> {
    match op {
        BinaryOp::In => Some(Op::In),
        other => cmp_op(other).map(Op::Cmp).or_else(|| arith_op(other)),
    }
}

/// `a OP b` ≡ `b mirror(OP) a`.
fn mirror(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Eq,
        CmpOp::Ne => CmpOp::Ne,
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
    }
}

/// Whether a constant is exactly its JSON (every double finite).
fn exact(c: &Const) -> bool {
    match c {
        Const::Double(d) => d.is_finite(),
        Const::List(items) => items.iter().all(exact),
        Const::Object(entries) => entries.iter().all(|(_, v)| exact(v)),
        _ => true,
    }
}

// ---- constant folding -------------------------------------------------------
//
// `fold` rewrites the IR bottom-up before emission. Each rule is exact: the
// folded expression gives the same value (errors included) for every
// context. The rules:
//
// 1. Closed operations: an operation whose operands all folded to constants
//    is computed with the VM's own functions (`vm::unary`, `vm::binary`,
//    `value::*`), and replaced by the result only when that is a non-error
//    value with every double finite. Errors (`1 / 0`) and non-finite results
//    (`0.0 / 0.0`, `1.0 / 0.0`) stay as code, so they keep their CEL
//    behaviour (absorption by `&&`/`||`, error sites in explain output).
// 2. A list literal of constants is a constant list.
// 3. `false && x` → `false`, `true || x` → `true` (the VM would not evaluate
//    `x` either).
// 4. `x && false` → `false`, `x || true` → `true`: CEL's commutative
//    absorption decides whatever `x` is (error, non-bool). Only when `x` holds
//    no macro: dropping a macro would change the per-hook iteration budget
//    left to the macros after it.
// 5. `true && x` → `x`, `x && true` → `x`, `false || x` → `x`,
//    `x || false` → `x`: only when `x` always yields a bool or an error
//    (`bool_or_error`), because `true && 'a'` is an error, not `'a'`.
// 6. `true ? a : b` → `a`, `false ? a : b` → `b` (the untaken branch is
//    never evaluated). A non-bool constant condition stays (an error).
// 7. `!!x` → `x` when `x` always yields a bool or an error.
// 8. A macro over a constant empty list: `exists`/`exists_one` → `false`,
//    `all` → `true` (the body never runs).
// 9. A `matches` schema leaf is its compiled check.
//
// Not folded: `true && x` for a non-bool `x` (CEL: error), anything reading
// a path or a macro variable, and dead hooks (a hook whose condition folds to
// `false` stays, so explain output still lists it; one that folds to `true`
// gets the empty code range, which means exactly "always matches").

/// Folds constant sub-expressions (see the rules above).
fn fold(e: &Expr) -> Expr {
    use ExprKind as K;
    let span = e.span;
    let konst = |c: Const| Expr::new(K::Const(c), span);
    match &e.kind {
        K::Const(_) | K::Path(_) | K::Var { .. } | K::HasPath(_) => e.clone(),
        K::List(items) => {
            let items: Vec<Expr> = items.iter().map(fold).collect();
            let consts: Option<Vec<Const>> = items
                .iter()
                .map(|i| match &i.kind {
                    K::Const(c) => Some(c.clone()),
                    _ => None,
                })
                .collect();
            match consts {
                Some(c) => konst(Const::List(c)),
                None => Expr::new(K::List(items), span),
            }
        }
        K::Field(base, name) => {
            let base = fold(base);
            if let Some(r) = as_const(&base).and_then(|b| eval1(b, &|v| value::field(v, name))) {
                return konst(r);
            }
            Expr::new(K::Field(Box::new(base), name.clone()), span)
        }
        K::HasField(base, name) => {
            let base = fold(base);
            if let Some(r) =
                as_const(&base).and_then(|b| eval1(b, &|v| Val::Bool(value::has_field(v, name))))
            {
                return konst(r);
            }
            Expr::new(K::HasField(Box::new(base), name.clone()), span)
        }
        K::Index(base, index) => {
            let (base, index) = (fold(base), fold(index));
            if let (Some(b), Some(i)) = (as_const(&base), as_const(&index)) {
                if let Some(r) = eval2(b, i, &|x, y| value::index(x, y)) {
                    return konst(r);
                }
            }
            Expr::new(K::Index(Box::new(base), Box::new(index)), span)
        }
        K::Unary(op, operand) => {
            let operand = fold(operand);
            let instr = match op {
                UnaryOp::Not => Op::Not,
                UnaryOp::Neg => Op::Neg,
            };
            if let Some(r) = as_const(&operand).and_then(|c| {
                eval1(c, &|v| {
                    hookc_runtime::internals::vm::unary(&instr, v).unwrap_or(invalid())
                })
            }) {
                return konst(r);
            }
            if *op == UnaryOp::Not {
                if let K::Unary(UnaryOp::Not, inner) = &operand.kind {
                    if bool_or_error(inner) {
                        return (**inner).clone();
                    }
                }
            }
            Expr::new(K::Unary(*op, Box::new(operand)), span)
        }
        K::Binary {
            op,
            op_span,
            lhs,
            rhs,
        } => {
            if matches!(op, BinaryOp::And | BinaryOp::Or) {
                return fold_chain(e);
            }
            let (lhs, rhs) = (fold(lhs), fold(rhs));
            if let (Some(a), Some(b), Some(instr)) =
                (as_const(&lhs), as_const(&rhs), binary_instr(*op))
            {
                if let Some(r) = eval2(a, b, &|x, y| {
                    hookc_runtime::internals::vm::binary(&instr, x, y).unwrap_or(invalid())
                }) {
                    return konst(r);
                }
            }
            Expr::new(
                K::Binary {
                    op: *op,
                    op_span: *op_span,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            )
        }
        K::And(..) | K::Or(..) => fold_chain(e),
        K::Cond(c, a, b) => {
            let c = fold(c);
            match c.kind {
                K::Const(Const::Bool(true)) => fold(a),
                K::Const(Const::Bool(false)) => fold(b),
                _ => Expr::new(
                    K::Cond(Box::new(c), Box::new(fold(a)), Box::new(fold(b))),
                    span,
                ),
            }
        }
        K::Call(f, args) => {
            let args: Vec<Expr> = args.iter().map(fold).collect();
            let consts: Vec<&Const> = args.iter().filter_map(as_const).collect();
            let folded = match (f, consts.as_slice()) {
                (Func::Size, [a]) if args.len() == 1 => eval1(a, &|v| {
                    hookc_runtime::internals::vm::unary(&Op::Size, v).unwrap_or(invalid())
                }),
                (Func::Contains | Func::StartsWith | Func::EndsWith, [a, b]) if args.len() == 2 => {
                    let instr = match f {
                        Func::Contains => Op::Contains,
                        Func::StartsWith => Op::StartsWith,
                        _ => Op::EndsWith,
                    };
                    eval2(a, b, &|x, y| {
                        hookc_runtime::internals::vm::binary(&instr, x, y).unwrap_or(invalid())
                    })
                }
                _ => None,
            };
            match folded {
                Some(r) => konst(r),
                None => Expr::new(K::Call(*f, args), span),
            }
        }
        K::Matches(recv, re) => {
            let recv = fold(recv);
            if let Some(c) = as_const(&recv) {
                if let Ok(compiled) = hookc_runtime::verify::compile_regex(&re.pattern) {
                    if let Some(r) = eval1(c, &|v| value::matches(v, &compiled)) {
                        return konst(r);
                    }
                }
            }
            Expr::new(K::Matches(Box::new(recv), re.clone()), span)
        }
        K::Macro {
            kind,
            range,
            var,
            body,
        } => {
            let range = fold(range);
            if let K::Const(Const::List(items)) = &range.kind {
                if items.is_empty() {
                    return konst(Const::Bool(*kind == MacroKind::All));
                }
            }
            Expr::new(
                K::Macro {
                    kind: *kind,
                    range: Box::new(range),
                    var: var.clone(),
                    body: Box::new(fold(body)),
                },
                span,
            )
        }
        K::TypeIs(operand, kinds) => {
            let operand = fold(operand);
            let instr = Op::TypeIs(kinds.bits());
            if let Some(r) = as_const(&operand).and_then(|c| {
                eval1(c, &|v| {
                    hookc_runtime::internals::vm::unary(&instr, v).unwrap_or(invalid())
                })
            }) {
                return konst(r);
            }
            Expr::new(K::TypeIs(Box::new(operand), *kinds), span)
        }
        K::SchemaMatch { check, .. } => fold(check),
    }
}

/// A chain of `&&` (or of `||`), folded node by node from the bottom of its
/// left spine up, in a loop (see [`Lowerer::logic_chain`] for why).
fn fold_chain(e: &Expr) -> Expr {
    let Some((_, _, and)) = logic_parts(e) else {
        return fold(e);
    };
    let (leaf, rights) = left_spine(e, and);
    let mut acc = fold(leaf);
    for (b, span) in rights.into_iter().rev() {
        acc = fold_logic(span, acc, fold(b), !and);
    }
    acc
}

/// `a && b` (`decider` false) or `a || b` (`decider` true) of folded
/// operands: rules 1 and 3–5.
fn fold_logic(span: Span, a: Expr, b: Expr, decider: bool) -> Expr {
    use ExprKind as K;
    let is = |x: &Expr, v: bool| matches!(x.kind, K::Const(Const::Bool(y)) if y == v);
    let decided = Expr::new(K::Const(Const::Bool(decider)), span);
    if is(&a, decider) || (is(&b, decider) && !has_macro(&a)) {
        // `a` may be a long chain: no recursive drop.
        drop_chains(a);
        drop_chains(b);
        return decided;
    }
    if let (Some(x), Some(y)) = (as_const(&a), as_const(&b)) {
        let r = if decider {
            eval2(x, y, &|p, q| value::or(p.clone(), q.clone()))
        } else {
            eval2(x, y, &|p, q| value::and(p.clone(), q.clone()))
        };
        if let Some(r) = r {
            return Expr::new(K::Const(r), span);
        }
    }
    if is(&a, !decider) && bool_or_error(&b) {
        return b;
    }
    if is(&b, !decider) && bool_or_error(&a) {
        return a;
    }
    let kind = if decider {
        K::Or(Box::new(a), Box::new(b))
    } else {
        K::And(Box::new(a), Box::new(b))
    };
    Expr::new(kind, span)
}

fn invalid<'a>() -> Val<'a> {
    Val::Error(value::EvalError::InvalidArgument)
}

fn as_const(e: &Expr) -> Option<&Const> {
    match &e.kind {
        ExprKind::Const(c) => Some(c),
        _ => None,
    }
}

/// `f(c)` on a constant, when the result is a constant (rule 1).
fn eval1(c: &Const, f: &dyn for<'v> Fn(&Val<'v>) -> Val<'v>) -> Option<Const> {
    if !exact(c) {
        return None;
    }
    let j = c.to_json();
    to_const(&f(&Val::from_json(&j)))
}

/// `f(a, b)` on constants, when the result is a constant (rule 1).
fn eval2(a: &Const, b: &Const, f: &dyn for<'v> Fn(&Val<'v>, &Val<'v>) -> Val<'v>) -> Option<Const> {
    if !exact(a) || !exact(b) {
        return None;
    }
    let (ja, jb) = (a.to_json(), b.to_json());
    to_const(&f(&Val::from_json(&ja), &Val::from_json(&jb)))
}

/// A runtime value as a constant: `None` for errors and non-finite doubles.
fn to_const(v: &Val<'_>) -> Option<Const> {
    let c = match v {
        Val::Null => Const::Null,
        Val::Bool(b) => Const::Bool(*b),
        Val::Int(i) => Const::Int(*i),
        Val::Double(d) if d.is_finite() => Const::Double(*d),
        Val::Double(_) | Val::Error(_) => return None,
        Val::Str(s) => Const::String(s.to_string()),
        Val::Array(items) => Const::List(items.iter().map(Const::from_json).collect()),
        Val::List(items) => Const::List(items.iter().map(to_const).collect::<Option<_>>()?),
        Val::Object(m) => Const::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), Const::from_json(v)))
                .collect(),
        ),
    };
    exact(&c).then_some(c)
}

/// Whether `e` always yields a bool or an error value, whatever the context
/// (rules 5 and 7). Each case is a [`value`] function (or VM behaviour) that
/// returns only `Bool` or `Error`.
fn bool_or_error(e: &Expr) -> bool {
    use ExprKind as K;
    match &e.kind {
        K::Const(Const::Bool(_)) => true,
        K::HasPath(_) | K::HasField(..) | K::TypeIs(..) | K::Matches(..) | K::Macro { .. } => true,
        K::And(..) | K::Or(..) | K::Unary(UnaryOp::Not, _) => true,
        K::Binary { op, .. } => !matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
        ),
        K::Call(f, _) => *f != Func::Size,
        K::Cond(_, a, b) => bool_or_error(a) && bool_or_error(b),
        K::SchemaMatch { check, .. } => bool_or_error(check),
        _ => false,
    }
}

/// Whether a macro occurs in `e` (rule 4). A worklist, not recursion: `e`
/// may be a long chain.
fn has_macro(e: &Expr) -> bool {
    use ExprKind as K;
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match &e.kind {
            K::Macro { .. } => return true,
            K::Const(_) | K::Path(_) | K::Var { .. } | K::HasPath(_) => {}
            K::List(items) | K::Call(_, items) => todo.extend(items),
            K::Field(x, _)
            | K::HasField(x, _)
            | K::Unary(_, x)
            | K::Matches(x, _)
            | K::TypeIs(x, _) => todo.push(x),
            K::Index(a, b) | K::And(a, b) | K::Or(a, b) => todo.extend([&**a, &**b]),
            K::Binary { lhs, rhs, .. } => todo.extend([&**lhs, &**rhs]),
            K::Cond(c, a, b) => todo.extend([&**c, &**a, &**b]),
            K::SchemaMatch { check, .. } => todo.push(check),
        }
    }
    false
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
    use crate::compile::{compile, Input};

    fn policy(src: &str) -> Policy {
        let c = compile(&[Input::new("t.yaml", src)]);
        assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
        c.policy.unwrap()
    }

    /// A one-hook policy with this `when`.
    fn when(expr: &str) -> String {
        format!(
            "hooks:\n  - id: h\n    event: e\n    when: {}\n    action: {{type: continue}}\n",
            serde_json::to_string(expr).unwrap()
        )
    }

    /// Lowers (and verifies) a policy source.
    fn program(src: &str) -> Program {
        let prog = lower(&policy(src));
        hookc_runtime::verify::verify(prog.clone()).unwrap();
        check_max_stack(&prog);
        prog
    }

    /// Hook 0's code of a one-hook `when` policy.
    fn code_of(expr: &str) -> (Program, Vec<Op>) {
        let prog = program(&when(expr));
        let (s, e) = prog.hooks[0].code;
        let code = prog.code[s as usize..e as usize].to_vec();
        (prog, code)
    }

    fn konst(prog: &Program, op: &Op) -> Value {
        match op {
            Op::Const(i) | Op::PathCmpConst { konst: i, .. } => prog.consts[*i as usize].clone(),
            other => panic!("not a constant: {other:?}"),
        }
    }

    /// An independent walk over every path through each hook's code: the
    /// deepest stack must be exactly `max_stack`.
    fn check_max_stack(prog: &Program) {
        for hook in &prog.hooks {
            let (s, e) = (hook.code.0 as usize, hook.code.1 as usize);
            if s == e {
                assert_eq!(hook.max_stack, 0);
                continue;
            }
            let mut at: Vec<Option<u32>> = vec![None; e - s + 1];
            at[0] = Some(0);
            let mut bodies: Vec<(usize, u32)> = Vec::new();
            let mut max = 0;
            let set = |at: &mut Vec<Option<u32>>, t: usize, h: u32| match at[t] {
                None => at[t] = Some(h),
                Some(x) => assert_eq!(x, h, "height mismatch at {}", t + s),
            };
            for k in 0..e - s {
                let h = at[k].unwrap_or_else(|| panic!("unreachable instruction {}", k + s));
                max = max.max(h);
                let op = prog.code[s + k];
                let local = |t: u32| t as usize - s;
                match op {
                    Op::AndShort(t) | Op::OrShort(t) => {
                        set(&mut at, local(t), h);
                        set(&mut at, k + 1, h);
                    }
                    Op::Branch { otherwise, end } => {
                        set(&mut at, local(otherwise), h - 1);
                        set(&mut at, local(end), h);
                        set(&mut at, k + 1, h - 1);
                    }
                    Op::Jump(t) => set(&mut at, local(t), h),
                    Op::MacroStart { end, .. } => {
                        set(&mut at, local(end), h);
                        set(&mut at, k + 1, h - 1);
                        bodies.push((k + 1, h - 1));
                    }
                    Op::MacroNext => {
                        let (_, base) = bodies.pop().unwrap();
                        assert_eq!(h, base + 1);
                        set(&mut at, k + 1, h);
                    }
                    Op::Return => assert_eq!(h, 1),
                    other => {
                        let (pops, pushes) = other.stack_effect();
                        assert!(h >= pops);
                        let after = h - pops + pushes;
                        max = max.max(after);
                        set(&mut at, k + 1, after);
                    }
                }
            }
            assert_eq!(
                hook.max_stack,
                max,
                "{}",
                hookc_runtime::bytecode::disasm::disassemble(prog)
            );
        }
    }

    #[test]
    fn path_op_constant_is_one_instruction_either_way_round() {
        let (prog, code) = code_of("x.a >= 5");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { op: CmpOp::Ge, .. }, Op::Return]
        ));
        assert_eq!(konst(&prog, &code[0]), serde_json::json!(5));
        let (_, code) = code_of("5 < x.a");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { op: CmpOp::Gt, .. }, Op::Return]
        ));
        let (_, code) = code_of("x.a != null");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { op: CmpOp::Ne, .. }, Op::Return]
        ));
        // Not a path on either side: the plain sequence.
        let (_, code) = code_of("x.a + 1 == 2");
        assert!(matches!(
            code.as_slice(),
            [
                Op::Path(_),
                Op::Const(_),
                Op::Add,
                Op::Const(_),
                Op::Cmp(CmpOp::Eq),
                Op::Return
            ]
        ));
    }

    #[test]
    fn large_constant_lists_become_sets() {
        let small = "x.s in ['a', 'b', 'c', 'd', 'e', 'f', 'g']";
        let (prog, code) = code_of(small);
        assert!(matches!(
            code.as_slice(),
            [Op::Path(_), Op::Const(_), Op::In, Op::Return]
        ));
        assert!(prog.sets.is_empty());
        let big = "x.s in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']";
        let (prog, code) = code_of(big);
        assert!(matches!(
            code.as_slice(),
            [Op::PathInSet { set: 0, .. }, Op::Return]
        ));
        assert_eq!(prog.sets.len(), 1);
        assert_eq!(
            prog.consts[prog.sets[0] as usize].as_array().unwrap().len(),
            SET_THRESHOLD
        );
        let (_, code) = code_of("size(x.s) in [1, 2, 3, 4, 5, 6, 7, 8, 9]");
        assert!(matches!(
            code.as_slice(),
            [Op::Path(_), Op::Size, Op::InSet(0), Op::Return]
        ));
        // The same list twice: one constant, one set.
        let (prog, _) = code_of(&format!(
            "{big} || x.t in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']"
        ));
        assert_eq!(prog.sets.len(), 1);
        assert_eq!(prog.consts.len(), 1);
    }

    #[test]
    fn matches_on_a_path_is_fused_and_regexes_are_shared() {
        let (prog, code) =
            code_of("x.s.matches('^a+$') && x.o.t.matches('^a+$') && (x.s + 'b').matches('b$')");
        assert!(matches!(code[0], Op::PathMatches { regex: 0, .. }));
        assert!(code.iter().any(|op| matches!(op, Op::Matches(1))));
        assert_eq!(prog.regexes, vec!["^a+$".to_owned(), "b$".to_owned()]);
        assert_eq!(
            code.iter()
                .filter(|op| matches!(op, Op::PathMatches { regex: 0, .. }))
                .count(),
            2
        );
    }

    #[test]
    fn short_circuits_and_conditionals_jump_forward_to_their_joins() {
        let (prog, code) = code_of("x.a == 1 && (x.b == 2 || x.c == 3)");
        let s = prog.hooks[0].code.0;
        // PCC AndShort PCC OrShort PCC OrJoin AndJoin Return
        assert_eq!(code.len(), 8);
        assert_eq!(code[1], Op::AndShort(s + 7));
        assert_eq!(code[3], Op::OrShort(s + 6));
        assert_eq!(code[5], Op::OrJoin);
        assert_eq!(code[6], Op::AndJoin);
        let (_, code) = code_of("x.t ? x.a == 1 : x.b == 2");
        // Path Branch PCC Jump PCC Return
        assert!(matches!(code[0], Op::Path(_)));
        assert_eq!(
            code[1],
            Op::Branch {
                otherwise: s + 4,
                end: s + 5
            }
        );
        assert_eq!(code[3], Op::Jump(s + 5));
        assert_eq!(code[5], Op::Return);
    }

    #[test]
    fn macro_variables_count_from_the_innermost_binder() {
        let (prog, code) = code_of("x.m.exists(r, r.all(c, c > r[0] && x.l.exists(z, z == c)))");
        let s = prog.hooks[0].code.0 as usize;
        let vars: Vec<u16> = code
            .iter()
            .filter_map(|op| match op {
                Op::Var(d) => Some(*d),
                _ => None,
            })
            .collect();
        // r (range of all), c, r, z, c
        assert_eq!(vars, vec![0, 0, 1, 0, 1]);
        // Every MacroStart's end is just past its own MacroNext.
        let mut open = Vec::new();
        for (k, op) in code.iter().enumerate() {
            match op {
                Op::MacroStart { end, .. } => open.push(*end as usize),
                Op::MacroNext => assert_eq!(open.pop(), Some(s + k + 1)),
                _ => {}
            }
        }
        assert!(open.is_empty());
    }

    #[test]
    fn folding_computes_closed_subexpressions_but_not_errors_or_non_finite() {
        let (prog, code) = code_of("x.a == 1 + 2 * 3");
        assert_eq!(code.len(), 2);
        assert_eq!(konst(&prog, &code[0]), serde_json::json!(7));
        let (prog, code) = code_of("x.a == 1.0 + 2");
        assert_eq!(konst(&prog, &code[0]), serde_json::json!(3.0));
        assert!(konst(&prog, &code[0]).is_f64());
        let (prog, code) = code_of("x.s == 'a' + 'b'");
        assert_eq!(konst(&prog, &code[0]), serde_json::json!("ab"));
        let (_, code) = code_of("x.a == size([1, 2, 3]) && x.b == ('abc'.startsWith('a') ? 1 : 2)");
        assert_eq!(code.len(), 5);
        // 1 / 0 is an error and stays code.
        let (prog, code) = code_of("x.a == 1 / 0");
        assert!(matches!(
            code.as_slice(),
            [
                Op::Path(_),
                Op::Const(_),
                Op::Const(_),
                Op::Div,
                Op::Cmp(CmpOp::Eq),
                Op::Return
            ]
        ));
        assert_eq!(
            prog.consts,
            vec![serde_json::json!(1), serde_json::json!(0)]
        );
        // NaN and infinities are not constants of the pool either.
        let (_, code) = code_of("x.a == 0.0 / 0.0");
        assert!(code.contains(&Op::Div));
        let (_, code) = code_of("x.a < 1.0 / 0.0");
        assert!(code.contains(&Op::Div));
        let (_, code) = code_of("x.a == 9223372036854775807 + 1");
        assert!(code.contains(&Op::Add));
    }

    #[test]
    fn folding_logic_only_where_exact() {
        // false && x, x && false (no macro), true || x, x || true: decided.
        for e in [
            "false && x.a == 1",
            "x.a == 1 && false",
            "x.s && false",
            "false && x.s",
        ] {
            let (_, code) = code_of(e);
            assert_eq!(code, vec![Op::False, Op::Return], "{e}");
        }
        for e in ["true || x.a == 1", "x.s || true"] {
            let prog = program(&when(e));
            assert_eq!(
                prog.hooks[0].code.0, prog.hooks[0].code.1,
                "{e}: always matches"
            );
        }
        // A macro on the dropped side stays (the iteration budget).
        let (_, code) = code_of("x.l.exists(e, e == 1) && false");
        assert!(code.contains(&Op::AndJoin));
        // true && x is x only for a bool-or-error x.
        let (_, code) = code_of("true && x.a == 1");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { .. }, Op::Return]
        ));
        let (_, code) = code_of("x.a == 1 || false");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { .. }, Op::Return]
        ));
        let (_, code) = code_of("true && x.s");
        assert_eq!(code[0], Op::True);
        assert!(code.contains(&Op::AndJoin));
        // `!!x`, `?:` on a constant, empty macros.
        let (_, code) = code_of("!!(x.a == 1)");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { .. }, Op::Return]
        ));
        let (_, code) = code_of("!!x.s");
        assert_eq!(code.iter().filter(|op| **op == Op::Not).count(), 2);
        let (_, code) = code_of("(1 < 2 ? x.a : x.b) == 1");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { .. }, Op::Return]
        ));
        let (_, code) = code_of("[].all(e, e == 1) && x.a == 1");
        assert!(matches!(
            code.as_slice(),
            [Op::PathCmpConst { .. }, Op::Return]
        ));
        // An error constant operand is not folded away.
        let (_, code) = code_of("1 / 0 == 1 || x.a == 1");
        assert!(code.contains(&Op::OrJoin));
    }

    #[test]
    fn non_finite_yaml_constants_are_computed() {
        let prog = program(
            "hooks:\n  - id: h\n    event: e\n    condition: {path: x.a, op: lt, value: .inf}\n    action: {type: continue}\n",
        );
        assert!(prog.code.contains(&Op::Div));
        assert!(prog.consts.iter().all(|c| !c.is_null()));
        let prog = program(
            "hooks:\n  - id: h\n    event: e\n    condition: {path: x.a, op: in, value: [1, .nan, -.inf]}\n    action: {type: continue}\n",
        );
        assert!(prog.code.iter().any(|op| matches!(op, Op::MakeList(3))));
    }

    #[test]
    fn constants_are_deduplicated_by_value_and_kind() {
        let (prog, _) =
            code_of("x.a == 1 || x.b == 1 || x.c == 1.0 || x.d == 0.0 || x.e == -0.0 || x.f == 1");
        let texts: Vec<String> = prog.consts.iter().map(|c| c.to_string()).collect();
        assert_eq!(texts, vec!["1", "1.0", "0.0", "-0.0"]);
    }

    #[test]
    fn tables_are_interned_in_first_use_order_and_only_used_paths_kept() {
        let src = r#"
hooks:
  - id: one
    event: e
    when: "x.b == 1 && x.a == 2 && x.b == 3"
    action: {type: fail, error_message: "at ${x.c} and ${x.b}"}
  - id: off
    event: e
    enabled: false
    when: "x.unused == 1"
    action: {type: continue}
"#;
        let prog = program(src);
        let paths: Vec<String> = prog.paths.iter().map(ToString::to_string).collect();
        assert_eq!(paths, vec!["x.b", "x.a", "x.c"]);
        assert_eq!(prog.hooks.len(), 1);
        assert_eq!(prog.string(prog.hooks[0].id), "one");
        let mut strings = prog.strings.clone();
        strings.sort();
        strings.dedup();
        assert_eq!(strings.len(), prog.strings.len(), "strings are unique");
    }

    #[test]
    fn hooks_keep_evaluation_order_and_are_indexed_by_event() {
        let src = r#"
builtin_hooks:
  - id: b_star
    event: "*"
    priority: 5
    action: {type: continue}
hooks:
  - id: low
    event: [zeta, alpha]
    action: {type: continue}
  - id: high
    event: alpha
    priority: 9
    when: "x.a == 1"
    action: {type: continue}
  - id: d_star
    event: "*"
    priority: 5
    action: {type: continue}
  - id: gone
    event: omega
    enabled: false
    action: {type: continue}
"#;
        let p = policy(src);
        let prog = program(src);
        let ids: Vec<&str> = prog.hooks.iter().map(|h| prog.string(h.id)).collect();
        let expected: Vec<&str> = p
            .hooks()
            .iter()
            .filter(|h| h.enabled)
            .map(|h| h.id.as_str())
            .collect();
        assert_eq!(ids, expected);
        assert_eq!(ids, vec!["high", "d_star", "b_star", "low"]);
        assert_eq!(
            prog.string(prog.layers[prog.hooks[2].layer as usize]),
            "builtin"
        );
        let names: Vec<&str> = prog
            .events
            .named
            .iter()
            .map(|(n, _)| prog.string(*n))
            .collect();
        assert_eq!(names, vec!["alpha", "zeta"]);
        assert_eq!(prog.hooks_for("alpha"), &[0, 1, 2, 3]);
        assert_eq!(prog.hooks_for("zeta"), &[1, 2, 3]);
        assert_eq!(prog.hooks_for("other"), &[1, 2]);
        assert_eq!(prog.hooks_for("omega"), &[1, 2]);
        // Hooks without a condition have an empty code range.
        assert_eq!(prog.hooks[1].code.0, prog.hooks[1].code.1);
    }

    #[test]
    fn lowering_is_deterministic() {
        let src = r#"
hooks:
  - id: a
    event: [b, a, c]
    when: "x.s in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] && x.l.exists(v, v.k.matches('^z') || v.n > 2.5)"
    action: {type: emit_event, event_type: "t", payload: {n: "${x.n}", m: "v=${x.m}", k: [1, "${x.k}"]}}
  - id: b
    event: "*"
    condition: {all: [{path: x.a, op: gt, value: 3}, {path: x.o, op: matches, value: {type: object, required: [k]}}]}
    action: {type: retry, max_attempts: 2}
"#;
        let p = policy(src);
        let first = lower(&p);
        assert_eq!(first, lower(&p));
        assert_eq!(first, lower(&policy(src)));
        assert_eq!(
            hookc_runtime::bytecode::disasm::disassemble(&first),
            hookc_runtime::bytecode::disasm::disassemble(&lower(&policy(src)))
        );
        hookc_runtime::verify::verify(first.clone()).unwrap();
        check_max_stack(&first);
    }

    #[test]
    fn actions_keep_constants_prebuilt_and_templates_split() {
        let src = r#"
hooks:
  - id: a
    event: e
    action:
      type: emit_event
      event_type: "literal $${not} a template"
      payload: {whole: "${x.n}", text: "n=${x.n}!", plain: {deep: [1, 2]}, mixed: [1, "${x.s}"]}
"#;
        let prog = program(src);
        let action = &prog.actions[0];
        assert_eq!(prog.string(action.kind), "emit_event");
        let param = |name: &str| {
            &action
                .params
                .iter()
                .find(|(n, _)| prog.string(*n) == name)
                .unwrap()
                .1
        };
        match param("event_type") {
            ParamValue::Const(i) => {
                assert_eq!(
                    prog.consts[*i as usize],
                    serde_json::json!("literal ${not} a template")
                )
            }
            other => panic!("{other:?}"),
        }
        let ParamValue::Object(entries) = param("payload") else {
            panic!("payload holds templates")
        };
        let entry = |name: &str| {
            &entries
                .iter()
                .find(|(n, _)| prog.string(*n) == name)
                .unwrap()
                .1
        };
        assert!(
            matches!(entry("whole"), ParamValue::Template(p) if matches!(p.as_slice(), [TemplatePart::Path(_)]))
        );
        assert!(matches!(entry("text"), ParamValue::Template(p) if p.len() == 3));
        assert!(matches!(entry("plain"), ParamValue::Const(_)));
        assert!(
            matches!(entry("mixed"), ParamValue::List(items) if matches!(items[0], ParamValue::Const(_)))
        );
    }

    #[test]
    fn long_yaml_style_chains_lower_without_deep_recursion() {
        // `all:`/`any:` lists are left-nested chains as long as the list.
        let mut p = policy(&when("x.a == 0"));
        let leaf = p.hooks[0].condition.take().unwrap();
        let n = 50_000;
        let mut chain = leaf.clone();
        for i in 0..n {
            let next = if i % 1000 == 999 {
                Expr::new(
                    ExprKind::Or(Box::new(leaf.clone()), Box::new(leaf.clone())),
                    leaf.span,
                )
            } else {
                leaf.clone()
            };
            chain = Expr::new(ExprKind::And(Box::new(chain), Box::new(next)), leaf.span);
        }
        p.hooks[0].condition = Some(chain);
        let prog = lower(&p);
        // The test's own tree, taken apart without recursion (before any
        // assertion could unwind through its recursive drop).
        drop_chains(p.hooks[0].condition.take().unwrap());
        assert_eq!(prog.hooks[0].max_stack, 3);
        assert_eq!(prog.code.len(), 3 * n + 2 + 3 * (n / 1000));
        check_max_stack(&prog);
    }
}
